//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use taintlint::diagnostic::Diagnostic;
use taintlint::report::FileReport;
use taintlint::{analyse, Options};

/// insta settings: snapshots live in the top-level `snapshots/` folder.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .expect("the crate root exists")
}

/// A path relative to the crate root, with `/` separators, so output is machine-independent.
pub fn relative(path: &Path) -> String {
    let path = path.canonicalize().expect("the fixture exists");
    path.strip_prefix(root())
        .expect("fixtures live inside the crate")
        .components()
        .map(|c| c.as_os_str().to_str().expect("fixture paths are UTF-8"))
        .collect::<Vec<_>>()
        .join("/")
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Lints with the default options.
pub fn lint(text: &str) -> Vec<Diagnostic> {
    analyse(text, &Options::default())
}

/// Lints a fixture file and names it by its relative path.
pub fn report(path: &Path) -> FileReport {
    let text = read(path);
    let diagnostics = lint(&text);
    FileReport::new(relative(path), text, diagnostics)
}

/// How many syntax errors the YAML parser finds (at most one per document).
pub fn syntax_errors(text: &str) -> usize {
    let stream = taintlint::syntax::parse(text);
    usize::from(stream.error.is_some())
        + stream
            .documents
            .iter()
            .filter(|d| d.error.is_some())
            .count()
}
