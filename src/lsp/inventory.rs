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
    /// saved or not.
    pub fn reread_with(&self, open: &HashMap<PathBuf, Arc<String>>) -> Self {
        Self::read_sources_with(self.sources.clone(), open)
    }

    fn read_sources(sources: Vec<PathBuf>) -> Self {
        Self::read_sources_with(sources, &HashMap::new())
    }

    fn read_sources_with(sources: Vec<PathBuf>, open: &HashMap<PathBuf, Arc<String>>) -> Self {
        let read_file = |path: &Path| match open.get(path) {
            Some(text) => file_from_text(path, text.clone()),
            None => read_file(path),
        };
        let mut files = Vec::new();
        for source in &sources {
            if !source.is_dir() {
                files.push(read_file(source));
                continue;
            }
            let found = inventory_files_in(source);
            if found.is_empty() {
                files.push(InventoryFile {
                    path: source.clone(),
                    content: Err(format!(
                        "a directory with no inventory file; an inventory is {}, or node \
                         pools defined as code",
                        crate::inventory::FORMATS
                    )),
                    modified: modified(source),
                });
            }
            files.extend(found.iter().map(|path| read_file(path)));
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
        }),
        modified: modified(path),
    }
}

fn read_file(path: &Path) -> InventoryFile {
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
        }),
        modified: modified(path),
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
