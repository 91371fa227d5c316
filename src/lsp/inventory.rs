//! The cluster inventory as the server holds it: the files the settings name, read at the edge
//! (the analysis core never touches the file system), reloaded when they change on disk or are
//! saved in the editor.
//!
//! This module only reads the files: turning their texts into the core's
//! [`Inventory`](crate::inventory::Inventory) (every format it reads) happens in
//! `Workspace::new`, and everything the editor shows about the cluster (diagnostics, hover,
//! completion, lenses, hints, definitions) reads that one inventory.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use tower_lsp_server::ls_types as lsp;

use crate::inventory::{ReadFile, Source};
use crate::lsp::convert::Lines;
use crate::position::{Encoding, LineIndex};

/// One inventory file as last read.
#[derive(Debug, Clone)]
pub struct InventoryFile {
    pub path: PathBuf,
    /// What was read, or why it could not be.
    content: Result<Content, String>,
    /// When it was last modified, to notice changes when the client cannot watch files.
    pub modified: Option<SystemTime>,
}

/// What the server keeps of an inventory file: not its text (a `kubectl get nodes -o json` of
/// 5,000 nodes is a hundred megabytes, and the core inventory holds what it says), only what
/// places positions in it and tells whether an open document is the file as read.
#[derive(Debug, Clone)]
struct Content {
    /// The text, only until the core inventory is made from it ([`InventoryFiles::without_texts`]).
    /// An `Arc<String>`, not an `Arc<str>`: making an `Arc<str>` of the text read would copy it,
    /// and for a hundred-megabyte node list that copy was the server's peak memory.
    text: Option<Arc<String>>,
    len: usize,
    hash: u64,
    positions: Arc<Positions>,
    /// The file's URI, made once: related locations in it come with every keystroke.
    uri: Option<lsp::Uri>,
    /// What the core read of it (nodes, pools), kept so that reading the inventory again after
    /// an edit to one pool file parses only that file.
    read: Option<Arc<ReadFile>>,
    /// Whether the text is the editor's (an open document) rather than the file on disk.
    edited: bool,
    /// The file's length on disk when it was read from disk.
    disk_len: Option<u64>,
}

/// Where a text's lines start, and the text of the lines that are not ASCII: enough to turn a
/// byte offset into a position in any encoding (on an ASCII line a column is the byte count).
#[derive(Debug)]
pub struct Positions {
    /// Line starts, in 32 bits while the text is under 4 GiB.
    starts: Starts,
    len: usize,
    /// Each line with a character outside ASCII (a byte order mark included), from its start to
    /// the next line's.
    wide: HashMap<usize, Box<str>>,
}

#[derive(Debug)]
enum Starts {
    Small(Vec<u32>),
    Large(Vec<usize>),
}

impl Starts {
    fn get(&self, line: usize) -> Option<usize> {
        match self {
            Starts::Small(v) => v.get(line).map(|&s| s as usize),
            Starts::Large(v) => v.get(line).copied(),
        }
    }

    /// The line that holds `offset`.
    fn line_of(&self, offset: usize) -> usize {
        match self {
            Starts::Small(v) => v.partition_point(|&s| s as usize <= offset) - 1,
            Starts::Large(v) => v.partition_point(|&s| s <= offset) - 1,
        }
    }
}

impl Positions {
    pub fn new(text: &str) -> Positions {
        let index = LineIndex::new(text);
        let count = index.line_count();
        let line_start = |i: usize| index.line_start(i).unwrap_or(text.len());
        let starts = if u32::try_from(text.len()).is_ok() {
            Starts::Small((0..count).map(|i| line_start(i) as u32).collect())
        } else {
            Starts::Large((0..count).map(line_start).collect())
        };
        let mut wide = HashMap::new();
        for i in 0..count {
            let line = &text[line_start(i)..line_start(i + 1)];
            if !line.is_ascii() {
                wide.insert(i, Box::from(line));
            }
        }
        Positions {
            starts,
            len: text.len(),
            wide,
        }
    }

    /// The position of a byte offset (clamped to the text; inside a character, its start).
    pub fn position(&self, offset: usize, encoding: Encoding) -> lsp::Position {
        let offset = offset.min(self.len);
        let line = self.starts.line_of(offset);
        let start = self.starts.get(line).unwrap_or(0);
        match self.wide.get(&line) {
            None => lsp::Position::new(line as u32, (offset - start) as u32),
            Some(text) => {
                let index = LineIndex::new(text);
                let at = Lines::new(text, &index, encoding).position(offset - start);
                lsp::Position::new(line as u32, at.character)
            }
        }
    }

    /// The length of the text.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn range(&self, range: Range<usize>, encoding: Encoding) -> lsp::Range {
        lsp::Range::new(
            self.position(range.start, encoding),
            self.position(range.end, encoding),
        )
    }
}

fn hash(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

#[derive(Debug, Clone, Default)]
pub struct InventoryFiles {
    files: Vec<InventoryFile>,
    /// The paths the settings name, resolved: files, and directories that stand for the
    /// inventory files in them (as `--inventory DIR` does).
    sources: Vec<PathBuf>,
}

impl InventoryFiles {
    /// Resolves the settings' paths against the workspace root and reads each file.
    pub fn read(paths: &[String], root: Option<&Path>) -> Self {
        Self::read_sources(paths.iter().map(|p| resolve(p, root)).collect())
    }

    /// The same files, read again (a directory is looked into again).
    pub fn reread(&self) -> Self {
        Self::read_sources(self.sources.clone())
    }

    /// The same files, read again, except those the editor has open: their texts as edited,
    /// saved or not. A file that is where it was in the list, with the same text (an open one)
    /// or the same length and modification time on disk, is not read again: what was read of
    /// it is kept (a node list of 5,000 nodes is not parsed again for an edit to a pool file).
    pub fn reread_with(&self, open: &HashMap<PathBuf, Arc<String>>) -> Self {
        Self::read_sources_with(self.sources.clone(), open, Some(self))
    }

    fn read_sources(sources: Vec<PathBuf>) -> Self {
        Self::read_sources_with(sources, &HashMap::new(), None)
    }

    fn read_sources_with(
        sources: Vec<PathBuf>,
        open: &HashMap<PathBuf, Arc<String>>,
        previous: Option<&InventoryFiles>,
    ) -> Self {
        let mut files: Vec<InventoryFile> = Vec::new();
        // The file at the next place, kept from `previous` when it did not change.
        let next = |files: &Vec<InventoryFile>, path: &Path| {
            let before = previous
                .and_then(|p| p.files.get(files.len()))
                .filter(|f| f.path == path);
            match (open.get(path), before) {
                (Some(text), Some(f)) if f.holds_edited(text) => f.clone(),
                (Some(text), _) => file_from_text(path, text.clone()),
                (None, Some(f)) if f.unchanged_on_disk() => f.clone(),
                (None, _) => read_file(path),
            }
        };
        for source in &sources {
            if !source.is_dir() {
                let file = next(&files, source);
                files.push(file);
                continue;
            }
            let found = inventory_files_in(source);
            if found.is_empty() {
                files.push(InventoryFile {
                    path: source.clone(),
                    content: Err(crate::inventory::empty_directory(
                        crate::inventory::holds_terraform(source),
                    )),
                    modified: modified(source),
                });
            }
            for path in &found {
                let file = next(&files, path);
                files.push(file);
            }
        }
        InventoryFiles { files, sources }
    }

    /// The same files without their texts, once the core inventory is made from them.
    pub fn without_texts(mut self) -> Self {
        for f in &mut self.files {
            if let Ok(c) = &mut f.content {
                c.text = None;
            }
        }
        self
    }

    pub fn files(&self) -> &[InventoryFile] {
        &self.files
    }

    pub fn files_mut(&mut self) -> &mut [InventoryFile] {
        &mut self.files
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn contains(&self, path: &Path) -> bool {
        self.files.iter().any(|f| f.path == path)
    }

    /// Whether `text` is what the inventory file at `path` held when it was read.
    pub fn holds(&self, path: &Path, text: &str) -> bool {
        self.files
            .iter()
            .find(|f| f.path == path)
            .and_then(|f| f.content.as_ref().ok())
            .is_some_and(|c| c.len == text.len() && c.hash == hash(text))
    }

    /// Where the lines of the inventory file at `path` start, when the file on disk is still
    /// the one read (so a range found in its text again can be placed without indexing it).
    pub fn positions_on_disk(&self, path: &Path) -> Option<Arc<Positions>> {
        let f = self.files.iter().find(|f| f.path == path)?;
        if !f.unchanged_on_disk() {
            return None;
        }
        Some(f.content.as_ref().ok()?.positions.clone())
    }

    /// A range in a file as read, as a location for the client.
    pub fn location(
        &self,
        path: &Path,
        range: Range<usize>,
        encoding: Encoding,
    ) -> Option<lsp::Location> {
        let f = self.files.iter().find(|f| f.path == path)?;
        let content = f.content.as_ref().ok()?;
        let uri = content.uri.clone()?;
        Some(lsp::Location::new(
            uri,
            content.positions.range(range, encoding),
        ))
    }

    /// A hash of the text of the inventory file at `path` as read, if it was: equal hashes,
    /// equal positions in it.
    pub fn text_hash(&self, path: &Path) -> Option<u64> {
        let f = self.files.iter().find(|f| f.path == path)?;
        f.content.as_ref().ok().map(|c| c.hash)
    }

    /// Files that could not be read, as messages.
    pub fn problems(&self) -> Vec<String> {
        self.files
            .iter()
            .filter_map(|f| {
                f.content
                    .as_ref()
                    .err()
                    .map(|e| format!("inventory {}: {e}", f.path.display()))
            })
            .collect()
    }

    /// Whether any file changed on disk since it was read (for clients that cannot watch).
    pub fn changed_on_disk(&self) -> bool {
        self.files.iter().any(|f| modified(&f.path) != f.modified)
    }
}

impl InventoryFile {
    /// Whether this is the editor's text `text`, as read into the inventory.
    fn holds_edited(&self, text: &str) -> bool {
        self.content.as_ref().is_ok_and(|c| {
            c.edited && c.read.is_some() && c.len == text.len() && c.hash == hash(text)
        })
    }

    /// Whether this was read from disk, into the inventory, and the file has the same length
    /// and modification time now.
    fn unchanged_on_disk(&self) -> bool {
        let Ok(c) = &self.content else {
            return false;
        };
        if c.edited || c.read.is_none() || self.modified.is_none() {
            return false;
        }
        std::fs::metadata(&self.path)
            .is_ok_and(|m| Some(m.len()) == c.disk_len && m.modified().ok() == self.modified)
    }

    /// What the core read of this file as the `index`th of the inventory: kept from the last
    /// reading, else read now from the text. Nothing when the file could not be read, or its
    /// text is gone.
    pub fn read_as(&self, index: usize) -> Option<Arc<ReadFile>> {
        let c = self.content.as_ref().ok()?;
        if let Some(read) = &c.read {
            if read.index() == index {
                return Some(read.clone());
            }
        }
        let text = c.text.as_deref()?;
        let name = self.path.display().to_string();
        Some(Arc::new(ReadFile::read(index, &name, Source::Text(text))))
    }

    /// Keeps what the core read of this file.
    pub fn keep_read(&mut self, read: Arc<ReadFile>) {
        if let Ok(c) = &mut self.content {
            c.read = Some(read);
        }
    }

    /// The text as read, until [`InventoryFiles::without_texts`]; why it could not be read.
    pub fn text(&self) -> Result<Option<&str>, &str> {
        match &self.content {
            Ok(c) => Ok(c.text.as_deref().map(String::as_str)),
            Err(e) => Err(e),
        }
    }
}

/// A settings path made absolute: relative paths are relative to the workspace root (or the
/// server's working directory when there is none).
pub fn resolve(path: &str, root: Option<&Path>) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        return path.to_path_buf();
    }
    match root {
        Some(root) => root.join(path),
        None => std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf()),
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The inventory files of a directory, as `taintlint lint --inventory DIR` takes them: the files
/// a lint walk of it reads ([`crate::walk`]), in path order, that define nodes.
fn inventory_files_in(dir: &Path) -> Vec<PathBuf> {
    let config = crate::config_file::ConfigFile::default();
    crate::walk::files(dir, &config)
        .flatten()
        .filter(|p| crate::walk::lints(p, &config))
        .filter(|p| {
            // A file that only mentions a node kind (a manifest beside the pools) holds none.
            let Ok(text) = std::fs::read_to_string(p) else {
                return false;
            };
            let name = p.display().to_string();
            crate::inventory::may_define_nodes(&text)
                && crate::inventory::Inventory::load(&[(name.as_str(), text.as_str())]).is_ok()
        })
        .collect()
}

/// An inventory file from the text an editor holds.
fn file_from_text(path: &Path, text: Arc<String>) -> InventoryFile {
    InventoryFile {
        path: path.to_path_buf(),
        content: Ok(Content {
            len: text.len(),
            hash: hash(&text),
            positions: Arc::new(Positions::new(&text)),
            text: Some(text),
            uri: lsp::Uri::from_file_path(path),
            read: None,
            edited: true,
            disk_len: None,
        }),
        modified: modified(path),
    }
}

fn read_file(path: &Path) -> InventoryFile {
    // Looked at before it is read: a change while it is read is noticed the next time.
    let meta = std::fs::metadata(path).ok();
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|e| {
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("no such file or directory".to_string())
        }
        Err(e) => Err(e.to_string()),
    };
    InventoryFile {
        path: path.to_path_buf(),
        content: text.map(|text| Content {
            len: text.len(),
            hash: hash(&text),
            positions: Arc::new(Positions::new(&text)),
            text: Some(Arc::new(text)),
            uri: lsp::Uri::from_file_path(path),
            read: None,
            edited: false,
            disk_len: meta.as_ref().map(|m| m.len()),
        }),
        modified: meta.and_then(|m| m.modified().ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every offset of texts with Japanese text, emoji, a byte order mark, CRLF and lone CR
    /// lands where the full text's line index puts it, in each encoding.
    #[test]
    fn positions_without_the_text_equal_the_texts() {
        for text in [
            "kind: List\nitems: []\n",
            "\u{feff}# 日本🚀\r\nkind: Node # ノード\rspec: {taints: [{key: \"🚀\", effect: NoSchedule}]}\n",
            "a: 1\n\n\u{feff}b: \"é\"",
            "",
        ] {
            let positions = Positions::new(text);
            let index = LineIndex::new(text);
            for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
                let lines = Lines::new(text, &index, encoding);
                for offset in 0..=text.len() + 2 {
                    assert_eq!(
                        positions.position(offset, encoding),
                        lines.position(offset),
                        "{text:?} at {offset} in {encoding:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn reads_resolves_and_reports() {
        let dir = tempfile::tempdir().unwrap();
        let nodes_text = "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1}\n  spec:\n    taints: [{key: a, effect: NoSchedule}]\n";
        std::fs::write(dir.path().join("nodes.yaml"), nodes_text).unwrap();
        let files = InventoryFiles::read(
            &["nodes.yaml".into(), "missing.yaml".into()],
            Some(dir.path()),
        );
        let nodes = dir.path().join("nodes.yaml");
        assert!(files.contains(&nodes));
        assert_eq!(files.files()[0].text(), Ok(Some(nodes_text)));
        let files = files.without_texts();
        assert_eq!(files.files()[0].text(), Ok(None));
        assert!(files.holds(&nodes, nodes_text));
        assert!(!files.holds(&nodes, &nodes_text.replace("n1", "n2")));
        let taints = nodes_text.find("taints").unwrap();
        let location = files
            .location(&nodes, taints..taints + 6, Encoding::Utf16)
            .unwrap();
        assert_eq!(Some(location.uri), lsp::Uri::from_file_path(&nodes));
        assert_eq!(
            location.range,
            lsp::Range::new(lsp::Position::new(5, 4), lsp::Position::new(5, 10))
        );
        let missing = dir.path().join("missing.yaml");
        assert!(files.location(&missing, 0..1, Encoding::Utf16).is_none());
        assert_eq!(
            files.problems(),
            [format!(
                "inventory {}: no such file or directory",
                dir.path().join("missing.yaml").display()
            )]
        );
        assert!(!files.changed_on_disk());
        std::fs::remove_file(&nodes).unwrap();
        assert!(files.changed_on_disk());
    }

    /// Reading the inventory again after an edit to one file reads only that file: the
    /// others (a node list of thousands of nodes) keep what was read of them, until they
    /// change on disk.
    #[test]
    fn reading_again_reads_only_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let nodes = dir.path().join("nodes.yaml");
        let pools = dir.path().join("pools.yaml");
        std::fs::write(
            &nodes,
            "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1}\n",
        )
        .unwrap();
        let pool = "pools:\n  spare:\n    count: 2\n";
        std::fs::write(&pools, pool).unwrap();
        let read = |files: &InventoryFiles| -> Vec<Arc<ReadFile>> {
            (0..files.files().len())
                .map(|i| files.files()[i].read_as(i).unwrap())
                .collect()
        };
        let mut files = InventoryFiles::read(
            &["nodes.yaml".into(), "pools.yaml".into()],
            Some(dir.path()),
        );
        let first = read(&files);
        for (f, r) in files.files_mut().iter_mut().zip(&first) {
            f.keep_read(r.clone());
        }
        let files = files.without_texts();
        // The pool file edited in the editor: only it is read again.
        let tainted = format!("{pool}    taints: [\"a=b:NoSchedule\"]\n");
        let open = HashMap::from([(pools.clone(), Arc::new(tainted.clone()))]);
        let mut again = files.reread_with(&open);
        let second = read(&again);
        assert!(
            Arc::ptr_eq(&first[0], &second[0]),
            "the node list is not read again"
        );
        assert!(
            !Arc::ptr_eq(&first[1], &second[1]),
            "the edited pool file is"
        );
        let inventory = crate::inventory::Inventory::assemble(&second).unwrap();
        assert_eq!(inventory.taints().len(), 1);
        for (f, r) in again.files_mut().iter_mut().zip(&second) {
            f.keep_read(r.clone());
        }
        let again = again.without_texts();
        // The same text again: nothing is read.
        let third = read(&again.reread_with(&open));
        assert!(Arc::ptr_eq(&second[1], &third[1]));
        // Closed, the file on disk counts again (it never had the taint).
        let closed = again.reread_with(&HashMap::new());
        let fourth = read(&closed);
        assert!(Arc::ptr_eq(&first[0], &fourth[0]));
        let inventory = crate::inventory::Inventory::assemble(&fourth).unwrap();
        assert!(inventory.taints().is_empty());
        // The node list changed on disk: it is read again.
        std::fs::write(&nodes, "kind: List\nitems:\n- kind: Node\n  metadata: {name: n22}\n  spec: {taints: [{key: c, effect: NoSchedule}]}\n")
            .unwrap();
        let fifth = read(&files.reread_with(&HashMap::new()));
        assert!(!Arc::ptr_eq(&first[0], &fifth[0]));
        let inventory = crate::inventory::Inventory::assemble(&fifth).unwrap();
        assert_eq!(inventory.taints().len(), 1);
    }

    /// A directory in the settings stands for the inventory files in it, as on the command
    /// line: node lists and pools defined as code, not the manifests beside them.
    #[test]
    fn a_directory_stands_for_its_inventory_files() {
        let dir = tempfile::tempdir().unwrap();
        let cluster = dir.path().join("cluster");
        std::fs::create_dir_all(cluster.join("pools")).unwrap();
        std::fs::write(
            cluster.join("nodes.yaml"),
            "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1}\n",
        )
        .unwrap();
        std::fs::write(
            cluster.join("pools/gpu.yaml"),
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  \
             template:\n    spec:\n      taints: [{key: gpu, effect: NoSchedule}]\n",
        )
        .unwrap();
        // Mentions a node kind, defines none.
        std::fs::write(
            cluster.join("notes.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: about-Node}\n",
        )
        .unwrap();
        std::fs::write(cluster.join("README.md"), "kind: Node\n").unwrap();
        let files = InventoryFiles::read(&["cluster".into()], Some(dir.path()));
        let paths: Vec<&Path> = files.files().iter().map(|f| f.path.as_path()).collect();
        assert_eq!(
            paths,
            [cluster.join("nodes.yaml"), cluster.join("pools/gpu.yaml")]
        );
        assert!(files.problems().is_empty(), "{:?}", files.problems());
        // A pool added to the directory is found when the inventory is read again.
        std::fs::write(
            cluster.join("pools/cpu.yaml"),
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: cpu}\nspec: {}\n",
        )
        .unwrap();
        assert_eq!(files.reread().files().len(), 3);
        // A directory without any is a problem, named.
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        let files = InventoryFiles::read(&["empty".into()], Some(dir.path()));
        let problems = files.problems();
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].contains("a directory with no inventory file"),
            "{problems:?}"
        );
    }
}
