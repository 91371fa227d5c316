//! What CI requires of the tests that run outside tools (tests/common/tools.rs): `.ci/run` sets
//! the requirement itself, and a required test whose tool is missing fails instead of passing.

mod common;

use std::process::Command;

use common::tools::{self, decide, truthy, REQUIRE_VAR};

#[test]
fn true_one_and_yes_turn_the_requirement_on() {
    for on in ["true", "TRUE", "True", "1", "yes", "YES", " yes\n"] {
        assert!(truthy(on), "{on:?}");
    }
    for off in ["", "false", "0", "no", "off", "2", "y"] {
        assert!(!truthy(off), "{off:?}");
    }
}

#[test]
fn a_missing_tool_fails_a_required_run_and_skips_otherwise() {
    let missing = || Err::<u8, _>("frob is not on PATH".to_string());
    let failed = decide("frobs", missing(), "scripts/install-frob.sh", true).unwrap_err();
    for part in [
        "frobs",
        "frob is not on PATH",
        "scripts/install-frob.sh",
        REQUIRE_VAR,
    ] {
        assert!(failed.contains(part), "{part:?} in {failed}");
    }
    assert_eq!(decide("frobs", missing(), "x", false), Ok(None));
    assert_eq!(decide("frobs", Ok(7u8), "x", true), Ok(Some(7)));
    assert_eq!(decide("frobs", Ok(7u8), "x", false), Ok(Some(7)));
}

#[test]
fn tools_are_found_on_path() {
    let sh = tools::on_path("sh").expect("sh is on PATH");
    assert!(sh.is_absolute() && sh.ends_with("sh"), "{}", sh.display());
    let err = tools::on_path("taintlint-no-such-tool").unwrap_err();
    assert!(err.contains("taintlint-no-such-tool"), "{err}");
}

/// Run by `a_required_test_fails_without_its_tool` in a child process, with the environment
/// it chooses; does nothing otherwise.
#[test]
fn probe_a_test_whose_tool_is_missing() {
    if std::env::var_os("TAINTLINT_TOOLS_PROBE").is_none() {
        return;
    }
    let Some(()) = tools::require(
        "probe",
        Err("frob is not on PATH".to_string()),
        "scripts/install-frob.sh",
    ) else {
        return;
    };
    unreachable!("the tool cannot be found");
}

/// The whole path, as `cargo test` sees it: the probe test fails under `.ci/run`'s variable and
/// under `CI=true` or `CI=1` alike, and passes, saying what it did not run, otherwise.
#[test]
fn a_required_test_fails_without_its_tool() {
    let run = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--exact",
            "probe_a_test_whose_tool_is_missing",
            "--nocapture",
        ])
        .env("TAINTLINT_TOOLS_PROBE", "1")
        .env_remove("CI")
        .env_remove(REQUIRE_VAR);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    for env in [
        &[(REQUIRE_VAR, "1")][..],
        &[("CI", "true")],
        &[("CI", "1")],
        &[("CI", "false"), (REQUIRE_VAR, "yes")],
    ] {
        let (passed, text) = run(env);
        assert!(
            !passed,
            "{env:?}: the probe passed without its tool:\n{text}"
        );
        assert!(
            text.contains("must run, not be skipped") && text.contains("scripts/install-frob.sh"),
            "{env:?}:\n{text}"
        );
    }
    for env in [
        &[][..],
        &[("CI", "false")],
        &[("CI", "0"), (REQUIRE_VAR, "")],
    ] {
        let (passed, text) = run(env);
        assert!(passed, "{env:?}: a run by hand may skip:\n{text}");
        assert!(
            text.contains("NOT RUN: probe") && text.contains("scripts/install-frob.sh"),
            "{env:?}:\n{text}"
        );
    }
}

#[test]
fn ci_script_requires_every_outside_tool_test() {
    let script = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    let lines: Vec<&str> = script.lines().map(str::trim).collect();
    let export = lines.iter().position(|l| {
        l.strip_prefix("export ")
            .and_then(|l| l.strip_prefix(REQUIRE_VAR))
            .and_then(|l| l.strip_prefix('='))
            .is_some_and(truthy)
    });
    let test = lines.iter().position(|l| l.starts_with("cargo test"));
    assert!(
        matches!((export, test), (Some(e), Some(t)) if e < t),
        ".ci/run must `export {REQUIRE_VAR}=1` before it runs `cargo test`"
    );
}
