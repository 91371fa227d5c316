//! The cluster inventory as the server holds it: the files the settings name, read at the edge
//! (the analysis core never touches the file system), reloaded when they change on disk or are
//! saved in the editor.
//!
//! This module only reads the files: turning their texts into the core's
//! [`Inventory`](crate::inventory::Inventory) (every format it reads) happens in
//! `Workspace::new`, and everything the editor shows about the cluster (diagnostics, hover,
//! completion, lenses, hints, definitions) reads that one inventory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::position::LineIndex;
use std::time::SystemTime;

/// One inventory file as last read.
#[derive(Debug, Clone)]
pub struct InventoryFile {
    pub path: PathBuf,
    /// The text, or why it could not be read.
    pub text: Result<Arc<str>, String>,
    /// When it was last modified, to notice changes when the client cannot watch files.
    pub modified: Option<SystemTime>,
    /// Where its lines start, made when a position in it is first needed.
    lines: Arc<OnceLock<LineIndex>>,
}

#[derive(Debug, Clone, Default)]
pub struct InventoryFiles {
    files: Vec<InventoryFile>,
}

impl InventoryFiles {
    /// Resolves the settings' paths against the workspace root and reads each file.
    pub fn read(paths: &[String], root: Option<&Path>) -> Self {
        let files = paths
            .iter()
            .map(|p| resolve(p, root))
            .map(|path| read_file(&path))
            .collect();
        Self::from_files(files)
    }

    /// The same files, read again.
    pub fn reread(&self) -> Self {
        Self::from_files(self.files.iter().map(|f| read_file(&f.path)).collect())
    }

    fn from_files(files: Vec<InventoryFile>) -> Self {
        InventoryFiles { files }
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

    /// The text of an inventory file, to place positions that point into it.
    pub fn text(&self, path: &Path) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.path == path)
            .and_then(|f| f.text.as_deref().ok())
    }

    /// The text of an inventory file and where its lines start (computed once per reading: an
    /// inventory can be a hundred megabytes).
    pub fn lines(&self, path: &Path) -> Option<(&str, &LineIndex)> {
        let f = self.files.iter().find(|f| f.path == path)?;
        let text = f.text.as_deref().ok()?;
        Some((text, f.lines.get_or_init(|| LineIndex::new(text))))
    }

    /// Files that could not be read, as messages.
    pub fn problems(&self) -> Vec<String> {
        self.files
            .iter()
            .filter_map(|f| {
                f.text
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

fn read_file(path: &Path) -> InventoryFile {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Arc::from).map_err(|e| {
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
        text,
        modified: modified(path),
        lines: Arc::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(files.text(&nodes), Some(nodes_text));
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
}
