//! Helpers shared by the integration tests: running the binary, snapshot settings, fixtures.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The lint fixtures of tests/fixtures/ci/lint, as paths relative to the crate root.
pub const LINT_FIXTURES: &[&str] = &[
    "tests/fixtures/ci/lint/clean.yaml",
    "tests/fixtures/ci/lint/crlf.yaml",
    "tests/fixtures/ci/lint/nodes.yaml",
    "tests/fixtures/ci/lint/suppressed.yaml",
    "tests/fixtures/ci/lint/workloads.yaml",
];

/// `helm template` output, linted from standard input.
pub const HELM_RENDERED: &str = "tests/fixtures/ci/lint/helm-rendered.yaml";

/// What a run of the binary printed and how it exited.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `taintlint ARGS` in `dir`, feeding `stdin`.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    {
        let mut input = child.stdin.take().expect("piped");
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).expect("stdin is written");
        }
    }
    let out = child.wait_with_output().expect("the binary finishes");
    Run {
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
        code: out.status.code().expect("an exit code"),
    }
}

/// Runs `taintlint ARGS` in the crate root.
pub fn run(args: &[&str], stdin: Option<&str>) -> Run {
    run_in(Path::new(ROOT), args, stdin)
}

pub fn fixture(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).expect("the fixture exists")
}

pub fn root() -> PathBuf {
    PathBuf::from(ROOT)
}

/// Snapshots live in the top-level `snapshots/` folder.
pub fn snapshots() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(true);
    s
}

/// The SARIF output with the tool's version taken out, so snapshots survive a release.
pub fn without_version(sarif: &str) -> String {
    sarif
        .replace(
            &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
            "\"[version]\"",
        )
        .replace(
            &format!("\"taintlint {}\"", env!("CARGO_PKG_VERSION")),
            "\"taintlint [version]\"",
        )
}
