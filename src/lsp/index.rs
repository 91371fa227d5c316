//! The workspace's manifests as the server knows them without their being open: the
//! tolerations (and taints and workloads, for rename and workspace symbols) of each file a lint of the workspace root reads (the project's include and
//! exclude patterns, `.gitignore`, no dot-directories, no Helm chart `templates/`), so that
//! references on a taint list the tolerations of the whole workspace, not only of the open
//! files. Read off the request path, once after `initialized` and again for the files the
//! client reports changed; bounded in files and in bytes a file.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use crate::config_file::{self, ConfigFile};
use crate::k8s::model::Toleration;
use crate::lsp::convert::Lines;
use crate::lsp::facts::Facts;
use crate::position::{Encoding, LineIndex};

/// At most this many files are read (the first ones in path order).
pub const MAX_FILES: usize = 20_000;
/// Larger files are left out (a manifest this size is a generated dump, not something edited).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// A toleration written in a workspace file.
#[derive(Debug, Clone)]
pub struct Indexed {
    /// The whole item, in the negotiated encoding.
    pub range: lsp::Range,
    pub toleration: Toleration,
    /// Its object, for people (`Deployment shop/web`), and its field path.
    pub object: String,
    pub path: String,
    /// The key's text, when the key is a plain string (what a rename replaces).
    pub key: Option<lsp::Range>,
}

/// A taint written in a workspace file (a Node's, a node pool's), by its key.
#[derive(Debug, Clone)]
pub struct IndexedTaint {
    pub key: String,
    /// The key's text.
    pub range: lsp::Range,
    /// Its object, for people.
    pub object: String,
}

/// A workload (or Node, or node pool) of a workspace file, for workspace symbols.
#[derive(Debug, Clone)]
pub struct IndexedObject {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// Its `kind:` entry, else its name.
    pub selection: lsp::Range,
}

/// What one file holds: tolerations, taints, objects.
#[derive(Debug, Default)]
pub struct IndexedFile {
    pub tolerations: Vec<Indexed>,
    pub taints: Vec<IndexedTaint>,
    pub objects: Vec<IndexedObject>,
    /// Every toleration's and taint's key written as a plain string, valid or not (a
    /// toleration with a misspelt effect still has its key): what a rename of a key rewrites.
    pub keys: Vec<(String, lsp::Range)>,
    /// Its Namespaces, RuntimeClasses and other cluster objects, as `lint` reads them from
    /// every input: the workspace's analyses count them ([`WorkspaceIndex::cluster`]).
    pub cluster: Option<crate::k8s::cluster::Cluster>,
}

/// A file's URI and what it holds.
pub type Entry = (Uri, Arc<IndexedFile>);

/// The tolerations, taints and objects of the workspace's files, by file (files without any
/// are not kept).
#[derive(Debug, Default)]
pub struct WorkspaceIndex {
    files: HashMap<PathBuf, Entry>,
    /// Every manifest file of the workspace, whether it holds anything or not: the files
    /// workspace diagnostics cover.
    manifests: BTreeSet<PathBuf>,
    /// Whether the walk found more than [`MAX_FILES`] files.
    pub truncated: bool,
}

impl WorkspaceIndex {
    /// Reads the manifests under `root`.
    pub fn build(root: &Path, encoding: Encoding) -> WorkspaceIndex {
        let config = config_file::discover(root)
            .and_then(|p| config_file::load(&p).ok())
            .unwrap_or_default();
        let (paths, truncated) = manifest_files(root, &config);
        let manifests = paths.iter().cloned().collect();
        let files = paths
            .into_par_iter()
            .filter_map(|path| {
                let entry = read(&path, encoding)?;
                Some((path, entry))
            })
            .collect();
        WorkspaceIndex {
            files,
            manifests,
            truncated,
        }
    }

    /// How many files hold tolerations.
    pub fn len(&self) -> usize {
        self.files
            .values()
            .filter(|(_, f)| !f.tolerations.is_empty())
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads one file again (it changed on disk, or was saved); forgets it when it is gone or
    /// holds no toleration.
    pub fn update(&mut self, path: &Path, encoding: Encoding) {
        self.set(path, read(path, encoding));
    }

    /// Keeps what [`read`] found in a file.
    pub fn set(&mut self, path: &Path, entry: Option<Entry>) {
        if path.is_file() {
            self.manifests.insert(path.to_path_buf());
        } else {
            self.manifests.remove(path);
        }
        match entry {
            Some(entry) => {
                self.files.insert(path.to_path_buf(), entry);
            }
            None => {
                self.files.remove(path);
            }
        }
    }

    /// Each file's URI and tolerations.
    pub fn files(&self) -> impl Iterator<Item = (&Uri, &[Indexed])> {
        self.files
            .values()
            .filter(|(_, f)| !f.tolerations.is_empty())
            .map(|(uri, f)| (uri, &f.tolerations[..]))
    }

    /// Every manifest file of the workspace, in path order.
    pub fn manifests(&self) -> impl Iterator<Item = &Path> {
        self.manifests.iter().map(PathBuf::as_path)
    }

    /// The cluster objects of the workspace's files, taken in path order (the first of a name
    /// stands, as in `lint`'s walk).
    pub fn cluster(&self) -> crate::k8s::cluster::Cluster {
        let mut cluster = crate::k8s::cluster::Cluster::default();
        for path in &self.manifests {
            if let Some(c) = self.files.get(path).and_then(|(_, f)| f.cluster.as_ref()) {
                cluster.merge(c.clone());
            }
        }
        cluster
    }

    /// Each file's path, URI and all it holds.
    pub fn entries(&self) -> impl Iterator<Item = (&Path, &Uri, &IndexedFile)> {
        self.files
            .iter()
            .map(|(path, (uri, f))| (path.as_path(), uri, &**f))
    }
}

/// Whether a changed file is one the index reads (by its name: `.yaml`, `.yml`, `.json`).
pub fn is_manifest(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
}

/// The glob a client watches for the index.
pub const WATCH_GLOB: &str = "**/*.{yaml,yml,json}";

/// The tolerations, taints and objects of one file on disk; `None` when it has none (or is
/// not a readable manifest of at most [`MAX_FILE_BYTES`]).
pub fn read(path: &Path, encoding: Encoding) -> Option<Entry> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let text = String::from_utf8(std::fs::read(path).ok()?).ok()?;
    // Parsed once for both.
    let stream = crate::syntax::parse(&text);
    let facts = Facts::of_parsed(&text, &stream);
    let cluster =
        crate::analysis::cluster_objects(&path.display().to_string(), &text, Some(&stream));
    drop(stream);
    let cluster = (!cluster.is_empty()).then_some(cluster);
    let index = LineIndex::new(&text);
    let lines = Lines::new(&text, &index, encoding);
    let keys: Vec<(String, lsp::Range)> = facts
        .tolerations
        .iter()
        .filter_map(|t| t.key.clone())
        .chain(facts.taints.iter().filter_map(|t| t.key.clone()))
        .map(|k| (text[k.clone()].to_string(), lines.range(k)))
        .collect();
    let tolerations: Vec<Indexed> = facts
        .tolerations
        .into_iter()
        .filter_map(|t| {
            Some(Indexed {
                range: lines.range(t.range),
                toleration: t.toleration?,
                object: t.object,
                path: t.path,
                key: t.key.map(|k| lines.range(k)),
            })
        })
        .collect();
    let taints: Vec<IndexedTaint> = facts
        .taints
        .into_iter()
        .filter_map(|t| {
            Some(IndexedTaint {
                key: t.taint?.key,
                range: lines.range(t.key?),
                object: t.object,
            })
        })
        .collect();
    let objects: Vec<IndexedObject> = facts
        .objects
        .into_iter()
        .map(|o| IndexedObject {
            kind: o.kind,
            name: o.name,
            namespace: o.namespace,
            selection: lines.range(o.selection),
        })
        .collect();
    if tolerations.is_empty()
        && taints.is_empty()
        && objects.is_empty()
        && keys.is_empty()
        && cluster.is_none()
    {
        return None;
    }
    let file = IndexedFile {
        tolerations,
        taints,
        objects,
        keys,
        cluster,
    };
    Some((Uri::from_file_path(path)?, Arc::new(file)))
}

/// The files a directory walk of `root` lints (manifests only, in path order), at most
/// [`MAX_FILES`]; and whether there were more.
fn manifest_files(root: &Path, config: &ConfigFile) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    for path in crate::walk::files(root, config).flatten() {
        if is_manifest(&path) && config.is_included(&path) {
            if out.len() == MAX_FILES {
                return (out, true);
            }
            out.push(path);
        }
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_manifests_a_lint_would() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let toleration = "tolerations:\n- {key: a, operator: Exists}\n";
        for (path, text) in [
            ("apps/web.yaml", toleration),
            (
                "apps/日本🚀.yml",
                "# 日本🚀\ntolerations: [{key: a, operator: Exists}]\n",
            ),
            ("apps/none.yaml", "kind: ConfigMap\n"),
            (".hidden/x.yaml", toleration),
            ("chart/Chart.yaml", "name: c\n"),
            ("chart/templates/x.yaml", toleration),
            ("ignored/x.yaml", toleration),
            ("notes.txt", toleration),
        ] {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        let mut index = WorkspaceIndex::build(root, Encoding::Utf16);
        let mut found: Vec<(String, lsp::Range)> = index
            .files()
            .flat_map(|(uri, t)| t.iter().map(move |t| (uri.as_str().to_string(), t.range)))
            .collect();
        found.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(found.len(), 2, "{found:?}");
        // `日本🚀.yml` percent-encoded comes first.
        assert!(found[0].0.ends_with("%F0%9F%9A%80.yml"), "{found:?}");
        assert!(found[1].0.ends_with("/apps/web.yaml"), "{found:?}");
        // After Japanese text and an emoji, in UTF-16 columns.
        assert_eq!(found[0].1.start, lsp::Position::new(1, 14));
        assert!(!index.truncated);

        // A file that changes on disk is read again; one that is gone is forgotten.
        let web = root.join("apps/web.yaml");
        std::fs::write(&web, "kind: ConfigMap\n").unwrap();
        index.update(&web, Encoding::Utf16);
        assert_eq!(index.len(), 1);
        std::fs::write(&web, toleration).unwrap();
        index.update(&web, Encoding::Utf16);
        assert_eq!(index.len(), 2);
        std::fs::remove_file(&web).unwrap();
        index.update(&web, Encoding::Utf16);
        assert_eq!(index.len(), 1);
    }
}
