//! Renders kept between runs, keyed by what decides them: the content of every file kustomize
//! reads for the overlay (the plan's closure, and the paths it names that are not there), the
//! overlay's directory, the tool and its version, and the settings (load restrictor). A second
//! run of an unchanged repository reads the renders from here and runs nothing.
//!
//! The directory (`.taintlint_cache` by default, as ruff keeps `.ruff_cache`) holds a
//! `.gitignore` of `*` and a `CACHEDIR.TAG`, so that git and backup tools leave it alone.
//! Entries are written whole or not at all (a temporary file renamed), and each carries its
//! own key and a digest of its body: an entry that does not read back exactly is a miss, never
//! an error. A render that needs a remote base is never kept (what it fetched is not in the
//! key).

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::plan::Render;
use super::render::Renderer;
use crate::config_file::LoadRestrictor;

/// The name of the cache directory.
pub const DIR_NAME: &str = ".taintlint_cache";
/// Bumped when what an entry holds, or how a key is made, changes.
const FORMAT: &str = "taintlint render cache 1";

/// A render as kept: kustomize's output and the directory its origin annotations are relative
/// to, or kustomize's message when it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Rendered { text: String, root: PathBuf },
    Failed(String),
}

/// The cache directory of a run.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Makes the directory with its `.gitignore` and `CACHEDIR.TAG`, when it is not there.
    fn prepare(&self) -> std::io::Result<()> {
        if self.dir.join(".gitignore").is_file() {
            return Ok(());
        }
        std::fs::create_dir_all(self.dir.join("renders"))?;
        std::fs::write(
            self.dir.join(".gitignore"),
            "# Automatically created by taintlint.\n*\n",
        )?;
        std::fs::write(
            self.dir.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55\n\
             # This file is a cache directory tag created by taintlint.\n",
        )?;
        Ok(())
    }

    /// The tool's version, remembered by the program's path, length and modification time, so
    /// that a run does not ask the tool each time.
    pub fn version(&self, renderer: &Renderer) -> Result<String, String> {
        let identity = renderer.identity();
        let path = self
            .dir
            .join("versions")
            .join(hex(&Sha256::digest(identity.as_bytes())));
        if let Ok(text) = std::fs::read_to_string(&path) {
            if let Some(version) = text.strip_prefix(&format!("{identity}\n")) {
                if !version.is_empty() {
                    return Ok(version.to_string());
                }
            }
        }
        let version = renderer.version()?;
        if self.prepare().is_ok() && std::fs::create_dir_all(self.dir.join("versions")).is_ok() {
            let _ = write_whole(&path, format!("{identity}\n{version}").as_bytes());
        }
        Ok(version)
    }

    /// The entry for a key, when there is one that reads back whole.
    pub fn get(&self, key: &str) -> Option<Entry> {
        let bytes = std::fs::read(self.entry(key)).ok()?;
        decode(&bytes, key)
    }

    /// Keeps an entry (silently not, when the directory cannot be written).
    pub fn put(&self, key: &str, entry: &Entry) {
        if self.prepare().is_err() {
            return;
        }
        let _ = write_whole(&self.entry(key), &encode(key, entry));
    }

    fn entry(&self, key: &str) -> PathBuf {
        self.dir.join("renders").join(key)
    }
}

/// The key of a render: every input that decides its output.
pub fn key(render: &Render, version: &str, restrictor: LoadRestrictor) -> String {
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(FORMAT.as_bytes());
    field(version.as_bytes());
    field(format!("{restrictor:?}").as_bytes());
    field(render.canonical.as_os_str().as_encoded_bytes());
    for (path, text) in &render.closure {
        field(path.as_os_str().as_encoded_bytes());
        match text {
            Some(t) => {
                field(b"file");
                field(t);
            }
            None => field(b"absent"),
        }
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An entry's bytes: the format, its key, what it is, the digest and length of its body, then
/// the body.
fn encode(key: &str, entry: &Entry) -> Vec<u8> {
    let (kind, root, body) = match entry {
        Entry::Rendered { text, root } => ("rendered", root.to_string_lossy(), text.as_bytes()),
        Entry::Failed(m) => ("failed", "".into(), m.as_bytes()),
    };
    let mut out = format!(
        "{FORMAT}\n{key}\n{kind}\n{root}\n{}\n{}\n",
        hex(&Sha256::digest(body)),
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn decode(bytes: &[u8], key: &str) -> Option<Entry> {
    let mut rest = bytes;
    let mut line = || -> Option<&str> {
        let end = rest.iter().position(|&b| b == b'\n')?;
        let l = std::str::from_utf8(&rest[..end]).ok()?;
        rest = &rest[end + 1..];
        Some(l)
    };
    if line()? != FORMAT || line()? != key {
        return None;
    }
    let kind = line()?.to_string();
    let root = line()?.to_string();
    let digest = line()?.to_string();
    let len: usize = line()?.parse().ok()?;
    if rest.len() != len || hex(&Sha256::digest(rest)) != digest {
        return None;
    }
    let body = String::from_utf8(rest.to_vec()).ok()?;
    match kind.as_str() {
        "rendered" if !root.is_empty() => Some(Entry::Rendered {
            text: body,
            root: PathBuf::from(root),
        }),
        "failed" => Some(Entry::Failed(body)),
        _ => None,
    }
}

/// Writes a file whole or not at all: a temporary file beside it, renamed over it.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_and_damaged_ones_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join(DIR_NAME));
        let key = "ab".repeat(32);
        assert_eq!(cache.get(&key), None);
        let entry = Entry::Rendered {
            text: "kind: Pod\n".to_string(),
            root: PathBuf::from("/tmp/taintlint-render-x"),
        };
        cache.put(&key, &entry);
        assert_eq!(cache.get(&key), Some(entry));
        // The directory tells git and backups to leave it alone.
        let ignore = std::fs::read_to_string(dir.path().join(DIR_NAME).join(".gitignore"));
        assert!(ignore.unwrap().lines().any(|l| l == "*"));
        assert!(dir.path().join(DIR_NAME).join("CACHEDIR.TAG").is_file());
        // Another key's entry under this name, a body cut short, a changed byte, garbage.
        let path = cache.entry(&key);
        let good = std::fs::read(&path).unwrap();
        let damaged: Vec<Vec<u8>> = vec![
            encode(&"cd".repeat(32), &Entry::Failed("x".into())),
            good[..good.len() - 2].to_vec(),
            {
                let mut b = good.clone();
                let n = b.len();
                b[n - 2] = b'X';
                b
            },
            b"\xff\xfe not an entry".to_vec(),
            Vec::new(),
        ];
        for bytes in damaged {
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(
                cache.get(&key),
                None,
                "{:?}",
                String::from_utf8_lossy(&bytes)
            );
        }
        let failed = Entry::Failed("no kustomization".to_string());
        cache.put(&key, &failed);
        assert_eq!(cache.get(&key), Some(failed));
    }

    #[test]
    fn an_unwritable_directory_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        // The cache's directory would be under a file.
        let cache = Cache::new(file.join(DIR_NAME));
        cache.put("k", &Entry::Failed("x".into()));
        assert_eq!(cache.get("k"), None);
    }
}
