//! Tests that run a tool from outside the project (the SARIF Multitool, the editors, tmux,
//! Chromium) decide here, in one place, whether they may be skipped.
//!
//! Such a test is *required* when `TAINTLINT_REQUIRE_TOOLS` or `CI` is `true`, `1` or `yes`
//! (any case); `.ci/run` sets `TAINTLINT_REQUIRE_TOOLS=1` itself. A required test whose tool is
//! missing fails. Otherwise (a run by hand) it prints, uncaptured, what it did not run and how
//! to install the tool, and returns without checking anything.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The variable `.ci/run` exports to make every outside-tool test mandatory.
pub const REQUIRE_VAR: &str = "TAINTLINT_REQUIRE_TOOLS";

/// `true`, `1` or `yes`, in any case and with blanks around: the values that turn a requirement
/// on. Anything else (`false`, `0`, empty) leaves it off.
pub fn truthy(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "true" | "1" | "yes"
    )
}

/// Whether outside-tool tests must run: `TAINTLINT_REQUIRE_TOOLS` or `CI` is truthy.
pub fn tools_required() -> bool {
    [REQUIRE_VAR, "CI"]
        .iter()
        .any(|name| std::env::var(name).is_ok_and(|v| truthy(&v)))
}

/// What to do with a test's tools: `Ok(Some(tools))` when they are there, `Ok(None)` (skip) when
/// one is missing and the run does not require it, `Err(message)` (fail) when it does.
pub fn decide<T>(
    test: &str,
    found: Result<T, String>,
    install: &str,
    required: bool,
) -> Result<Option<T>, String> {
    match found {
        Ok(tools) => Ok(Some(tools)),
        Err(missing) => {
            let message = format!("{test}: {missing}.\n  Install it with:\n      {install}");
            if required {
                Err(format!(
                    "{message}\n  {REQUIRE_VAR} or CI is set (as .ci/run sets it): this test must \
                     run, not be skipped."
                ))
            } else {
                Ok(None)
            }
        }
    }
}

/// The tools a test needs, or `None` when it may be skipped: then it has said so on stderr and
/// the caller returns. Panics (the test fails) when a tool is missing and the run requires it.
pub fn require<T>(test: &str, found: Result<T, String>, install: &str) -> Option<T> {
    let missing = found.as_ref().err().cloned();
    match decide(test, found, install, tools_required()) {
        Ok(Some(tools)) => Some(tools),
        Ok(None) => {
            // Straight to the process's stderr: the test harness captures only print macros.
            let _ = writeln!(
                std::io::stderr().lock(),
                "\nNOT RUN: {test} ({}). Install it with:\n      {install}\n  and run the test \
                 again; with {REQUIRE_VAR}=1 (as .ci/run sets it) a missing tool fails the test.\n",
                missing.unwrap_or_default()
            );
            None
        }
        Err(message) => panic!("{message}"),
    }
}

/// `path` when it is an executable file.
pub fn executable(path: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(path.to_path_buf()),
        _ => Err(format!("{} is missing", path.display())),
    }
}

/// The first executable called `name` in a directory of `PATH`.
pub fn on_path(name: &str) -> Result<PathBuf, String> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|p| executable(p).is_ok())
        .ok_or_else(|| format!("{name} is not on PATH"))
}
