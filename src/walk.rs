//! Which files a directory stands for, for every edge that reads directories: `lint` and
//! `simulate` paths, `--inventory DIR`, and the language server's workspace index and inventory.
//! One walk, so that the editor sees the files the command line lints.

use std::path::{Path, PathBuf};

use crate::config_file::ConfigFile;

/// The files under `dir` in path order, as a lint walk finds them: dot-directories and a Helm
/// chart's `templates/` (Go templates are not YAML until rendered) are skipped, `.gitignore` is
/// honoured, and so are the configuration's excludes. Every file is given; which to read is the
/// caller's choice ([`lints`] for `lint`'s).
pub fn files(dir: &Path, config: &ConfigFile) -> impl Iterator<Item = Result<PathBuf, String>> {
    let root = dir.to_path_buf();
    let skip = config.clone();
    ignore::WalkBuilder::new(dir)
        .hidden(false)
        .git_ignore(true)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let p = e.path();
            if p == root {
                return true;
            }
            let dir = e.file_type().is_some_and(|t| t.is_dir());
            !(dir && (is_dot_dir(p) || is_chart_templates(p))) && !skip.is_excluded(p)
        })
        .build()
        .filter_map(|entry| match entry {
            Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => Some(Ok(e.into_path())),
            Ok(_) => None,
            Err(e) => Some(Err(e.to_string())),
        })
}

/// Whether a walk's file is one `lint` reads: one the configuration includes (`*.yaml`, `*.yml`,
/// `*.json` unless it says otherwise), or a Terraform file that defines node pools.
pub fn lints(path: &Path, config: &ConfigFile) -> bool {
    config.is_included(path) || defines_node_pools(path)
}

/// A Terraform file that defines node pools (it is linted like a manifest).
fn defines_node_pools(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "tf")
        && std::fs::read_to_string(path)
            .is_ok_and(|t| crate::inventory::terraform::defines_pools(&t))
}

/// `.git` and other dot-directories (dot-files are linted).
fn is_dot_dir(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') && n != "." && n != "..")
}

/// The `templates` directory of a Helm chart (next to its Chart.yaml).
pub fn is_chart_templates(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "templates")
        && path
            .parent()
            .is_some_and(|chart| chart.join("Chart.yaml").is_file())
}
