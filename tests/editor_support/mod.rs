//! Shared by the editor end-to-end tests (`editors_neovim.rs`, `editors_vscode.rs`, which also
//! declare `mod common;` for `common::tools`): where the editors are, how to run them with no
//! network but loopback, and what `taintlint lint` says about a text, which is what the editor
//! must show.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

pub const INSTALL_SCRIPT: &str = "scripts/install-editor-test-deps.sh";

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn server_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_taintlint"))
}

/// Where the install script puts the editors (`.e2e/`, or `$TAINTLINT_E2E_HOME`).
pub fn e2e_home() -> PathBuf {
    match std::env::var_os("TAINTLINT_E2E_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => repo().join(".e2e"),
    }
}

/// Screenshots, logs and results of one suite, under target/ (never committed).
pub fn artifacts(suite: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        repo().join(target)
    };
    target.join("e2e").join(suite)
}

use crate::common::tools::tools_required;
pub use crate::common::tools::{executable, on_path};

/// `Some(tools)` when every tool is there. When one is missing the test fails if the run
/// requires it (`common::tools::tools_required`: `.ci/run` sets `TAINTLINT_REQUIRE_TOOLS=1`);
/// run by hand, it says (uncaptured) what it did not run and how to install it, and the caller
/// returns early.
pub fn require<T>(suite: &str, found: Result<T, String>) -> Option<T> {
    crate::common::tools::require(
        suite,
        found,
        &format!(
            "{INSTALL_SCRIPT}   (Debian packages, Neovim, code-server, playwright-core into .e2e/; \
             it runs apt-get through sudo when not root)"
        ),
    )
}

/// The command, in a network namespace of its own that has only loopback, when this machine
/// allows it (root, or unprivileged user namespaces): nothing it starts can reach further.
pub fn loopback_only(program: &Path, args: &[&str]) -> Command {
    let probe = |extra: &[&str]| {
        Command::new("unshare")
            .args(extra)
            .args(["-n", "sh", "-c", "ip link set lo up"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let unshare: Option<&[&str]> = if probe(&[]) {
        Some(&[])
    } else if probe(&["-r"]) {
        Some(&["-r"])
    } else {
        None
    };
    match unshare {
        Some(extra) => {
            let mut cmd = Command::new("unshare");
            cmd.args(extra)
                .args(["-n", "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""])
                .arg(program)
                .args(args);
            cmd
        }
        None => {
            if tools_required() {
                panic!(
                    "cannot make a loopback-only network namespace (`unshare -n`): run CI as root"
                );
            }
            let _ = writeln!(
                std::io::stderr(),
                "note: `unshare -n` is not allowed here; {} runs in the normal network namespace \
                 (it only uses 127.0.0.1 by itself)",
                program.display()
            );
            let mut cmd = Command::new(program);
            cmd.args(args);
            cmd
        }
    }
}

/// One diagnostic as `taintlint lint --format json` reports it: 1-based lines, columns in
/// Unicode scalar values.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub rule: String,
    pub severity: String,
    pub message: String,
    pub fixes: Vec<Value>,
}

/// What the CLI reports for `text` (read from standard input), with `args` before `-`.
pub fn lint(text: &str, args: &[&str]) -> Vec<Expected> {
    let mut child = Command::new(server_bin())
        .args(["lint", "--format", "json"])
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run taintlint lint");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "taintlint lint failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("lint JSON");
    let pos = |d: &Value, end: &str, key: &str| d["range"][end][key].as_u64().unwrap() as usize;
    let mut list: Vec<Expected> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| Expected {
            line: pos(d, "start", "line"),
            column: pos(d, "start", "column"),
            end_line: pos(d, "end", "line"),
            end_column: pos(d, "end", "column"),
            rule: d["rule"].as_str().unwrap().to_string(),
            severity: d["severity"].as_str().unwrap().to_string(),
            message: d["message"].as_str().unwrap().to_string(),
            fixes: d["fixes"].as_array().cloned().unwrap_or_default(),
        })
        .collect();
    list.sort_by(|a, b| (a.line, a.column, &a.rule).cmp(&(b.line, b.column, &b.rule)));
    list
}

/// Line `line` (1-based) of `text`, without its line ending.
pub fn line_of(text: &str, line: usize) -> &str {
    let l = text.split('\n').nth(line - 1).unwrap_or("");
    l.strip_suffix('\r').unwrap_or(l)
}

/// A 1-based column in Unicode scalar values, as a 0-based offset in UTF-8 bytes or UTF-16 units.
pub fn offset(line: &str, column: usize, encoding: &str) -> usize {
    line.chars()
        .take(column - 1)
        .map(|c| match encoding {
            "utf-8" => c.len_utf8(),
            "utf-16" => c.len_utf16(),
            "utf-32" => 1,
            other => panic!("unknown encoding {other}"),
        })
        .sum()
}

/// `text` with one of the CLI's fixes applied (its edits, 1-based line/column ranges).
pub fn apply_fix(text: &str, fix: &Value) -> String {
    let byte = |p: &Value| -> usize {
        let line = p["line"].as_u64().unwrap() as usize;
        let column = p["column"].as_u64().unwrap() as usize;
        let start: usize = text
            .split_inclusive('\n')
            .take(line - 1)
            .map(str::len)
            .sum();
        start + offset(line_of(text, line), column, "utf-8")
    };
    let mut edits: Vec<(usize, usize, String)> = fix["edits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                byte(&e["range"]["start"]),
                byte(&e["range"]["end"]),
                e["replacement"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (start, end, replacement) in edits {
        out.replace_range(start..end, &replacement);
    }
    out
}

/// The explanation `taintlint explain RULE` prints.
pub fn explanation(rule: &str) -> String {
    let out = Command::new(server_bin())
        .args(["explain", rule])
        .output()
        .expect("run taintlint explain");
    assert!(out.status.success(), "taintlint explain {rule} failed");
    String::from_utf8(out.stdout).unwrap()
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
