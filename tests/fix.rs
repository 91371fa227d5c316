//! `--fix` and `--diff`: every safe fix is applied, only the bytes of its edits change, the
//! file is replaced atomically with its permissions kept, and linting again finds none of the
//! fixed problems.

mod common;

use std::path::Path;
use taintlint::analysis::{check, Ask};

use common::{fixture, run, run_in, snapshots, LINT_FIXTURES};
use serde_json::Value;

/// The fixtures with a safe fix.
const FIXABLE: &[&str] = &[
    "tests/fixtures/ci/lint/crlf.yaml",
    "tests/fixtures/ci/lint/nodes.yaml",
    "tests/fixtures/ci/lint/suppressed.yaml",
    "tests/fixtures/ci/lint/workloads.yaml",
];

/// (rule, message, has a safe fix) of every finding in a file.
fn findings(dir: &Path, file: &str) -> Vec<(String, String, bool)> {
    let r = run_in(dir, &["lint", "--format", "json", file], None);
    assert!(r.code <= 1, "{}", r.stderr);
    let json: Value = serde_json::from_str(&r.stdout).unwrap();
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
                d["fixes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f["applicability"] == "safe"),
            )
        })
        .collect()
}

fn copy_to(dir: &Path, fixture_path: &str) -> String {
    let name = Path::new(fixture_path)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    std::fs::write(dir.join(name), fixture(fixture_path)).unwrap();
    name.to_string()
}

#[test]
fn every_fixable_fixture_is_in_the_list() {
    let dir = common::root();
    for f in LINT_FIXTURES {
        let fixable = findings(&dir, f).iter().any(|(_, _, safe)| *safe);
        assert_eq!(fixable, FIXABLE.contains(f), "{f}");
    }
}

#[test]
fn relint_after_fix_finds_none_of_the_fixed_problems() {
    for f in FIXABLE {
        let dir = tempfile::tempdir().unwrap();
        let name = copy_to(dir.path(), f);
        let before = findings(dir.path(), &name);
        assert!(
            before.iter().any(|(_, _, safe)| *safe),
            "{f} has a safe fix"
        );

        let r = run_in(
            dir.path(),
            &["lint", "--fix", "--format", "concise", &name],
            None,
        );
        assert!(r.code <= 1, "{f}: {}", r.stderr);
        assert!(r.stderr.starts_with("Fixed "), "{f}: {}", r.stderr);

        let after = findings(dir.path(), &name);
        assert!(
            after.iter().all(|(_, _, safe)| !safe),
            "{f}: a safe fix is left: {after:?}"
        );
        // What is left is exactly what had no safe fix.
        let unfixable: Vec<_> = before
            .iter()
            .filter(|(_, _, safe)| !safe)
            .cloned()
            .collect();
        assert_eq!(after, unfixable, "{f}");
        // `--fix` reports what is left, as linting again does.
        let left = run_in(dir.path(), &["lint", "--format", "concise", &name], None);
        assert_eq!(r.stdout, left.stdout, "{f}");

        // Idempotent: a second --fix changes nothing and says nothing.
        let fixed = std::fs::read(dir.path().join(&name)).unwrap();
        let again = run_in(dir.path(), &["lint", "--fix", &name], None);
        assert!(!again.stderr.contains("Fixed"), "{f}: {}", again.stderr);
        assert_eq!(std::fs::read(dir.path().join(&name)).unwrap(), fixed, "{f}");
    }
}

/// Only the edited bytes change: CRLF line endings, comments (in Japanese), quoting and order
/// elsewhere stay as they were.
#[test]
fn fix_keeps_every_other_byte() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "tests/fixtures/ci/lint/crlf.yaml",
            &[
                ("operator: EXISTS\r\n", "operator: Exists\r\n"),
                ("effect:\r\n", "effect: \"\"\r\n"),
            ],
        ),
        (
            "tests/fixtures/ci/lint/workloads.yaml",
            &[
                (
                    "operator: exists          # 大文字で始まるべき",
                    "operator: Exists          # 大文字で始まるべき",
                ),
                ("effect: noschedule", "effect: NoSchedule"),
                ("effect: ~", "effect: \"\""),
            ],
        ),
        (
            "tests/fixtures/ci/lint/suppressed.yaml",
            &[
                ("# taintlint: disable-file=null-value -- nothing here is null\n", ""),
                (
                    "disable=equal-empty-value,tolerates-everything,null-value --",
                    "disable=equal-empty-value --",
                ),
                (
                    "      # taintlint: disable=tolerates-everything,tolerate-everything,duplicate-toleration\n",
                    "",
                ),
            ],
        ),
    ];
    for (f, replacements) in cases {
        let original = fixture(f);
        let mut expected = original.clone();
        for (from, to) in *replacements {
            assert!(expected.contains(from), "{f}: {from:?}");
            expected = expected.replace(from, to);
        }
        let dir = tempfile::tempdir().unwrap();
        let name = copy_to(dir.path(), f);
        run_in(dir.path(), &["lint", "--fix", &name], None);
        let fixed = std::fs::read_to_string(dir.path().join(&name)).unwrap();
        assert_eq!(fixed, expected, "{f}");
    }
}

/// `unused-suppression` fixes that overlap (two names next to each other in one list) take
/// two passes; the result is the same as fixing them one by one.
#[test]
fn overlapping_fixes_are_applied_over_passes() {
    let text = "\
kind: Pod
spec:
  tolerations:
  # taintlint: disable=tolerates-everything,null-value,unknown-effect -- agent
  - operator: Exists
";
    let fixed = taintlint::fix::fix_safe(text, &taintlint::Options::default());
    assert_eq!(fixed.text, text.replace(",null-value,unknown-effect", ""));
    assert_eq!((fixed.applied, fixed.passes), (2, 2));
}

#[test]
fn diff_prints_the_fixes_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for f in FIXABLE {
        names.push(copy_to(dir.path(), f));
    }
    let mut args = vec!["lint", "--diff"];
    args.extend(names.iter().map(String::as_str));
    let r = run_in(dir.path(), &args, None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    for (f, name) in FIXABLE.iter().zip(&names) {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            fixture(f),
            "--diff wrote {name}"
        );
    }
    snapshots().bind(|| insta::assert_snapshot!("diff", r.stdout));

    // The diff is what --fix does.
    let fixed = run_in(dir.path(), &["lint", "--fix", &names[0]], None);
    assert!(fixed.code <= 1);
    // CRLF lines keep their CR in the diff (the snapshot shows them without).
    assert!(r
        .stdout
        .contains("\n-    operator: EXISTS\r\n-    effect:\r\n+    operator: Exists\r\n"));

    // Nothing to fix: no output, exit 0.
    let clean = run(
        &["lint", "--diff", "tests/fixtures/ci/lint/clean.yaml"],
        None,
    );
    assert_eq!((clean.code, clean.stdout.as_str()), (0, ""));
}

#[test]
fn fix_refuses_standard_input() {
    let r = run(&["lint", "--fix", "-"], Some("kind: Pod\n"));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("--fix cannot write back to standard input"),
        "{}",
        r.stderr
    );
    let r = run(
        &["lint", "--diff", "-"],
        Some(&fixture("tests/fixtures/ci/lint/crlf.yaml")),
    );
    assert_eq!(r.code, 1);
    assert!(r.stdout.starts_with("--- a/-\n+++ b/-\n"), "{}", r.stdout);
}

#[cfg(unix)]
#[test]
fn fix_keeps_permissions_and_follows_symlinks() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let name = copy_to(dir.path(), "tests/fixtures/ci/lint/workloads.yaml");
    let path = dir.path().join(&name);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::symlink(&name, dir.path().join("link.yaml")).unwrap();

    let r = run_in(dir.path(), &["lint", "--fix", "link.yaml"], None);
    assert!(
        r.stderr.starts_with("Fixed 4 problems in 1 file."),
        "{}",
        r.stderr
    );
    let meta = std::fs::symlink_metadata(dir.path().join("link.yaml")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("operator: Exists "));
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");
}

#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_written_is_an_io_problem() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let name = copy_to(dir.path(), "tests/fixtures/ci/lint/crlf.yaml");
    // A read-only directory: the temporary file cannot be created, the original stays.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let r = run_in(dir.path(), &["lint", "--fix", &name], None);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    if r.code == 2 {
        assert!(
            r.stderr.contains("could not write the fixes"),
            "{}",
            r.stderr
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(&name)).unwrap(),
            fixture("tests/fixtures/ci/lint/crlf.yaml")
        );
    } else {
        // Running as root: permissions do not stop the write.
        assert!(r.stderr.starts_with("Fixed"), "{}", r.stderr);
    }
}

/// `--fix --unsafe-fixes` through the binary applies what the bulk fixer applies in the
/// `Unsafe` mode (against the fixture's inventory when it has one), `--fix` alone leaves the
/// fixes that need review, and `--diff --unsafe-fixes` shows exactly what the former writes.
#[test]
fn unsafe_fixes_from_the_command_line() {
    use taintlint::fix::{fix_all_with, FixMode};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules");
    let mut rules: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    rules.sort();
    let mut needed_review = 0;
    for rule in rules {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(rule.join("bad.yaml")).unwrap();
        std::fs::write(dir.path().join("bad.yaml"), &text).unwrap();
        let inventory = rule.join("inventory.yaml");
        let mut args = vec!["lint", "--format", "concise"];
        let mut expected_inventory = None;
        if inventory.is_file() {
            std::fs::copy(&inventory, dir.path().join("inventory.yaml")).unwrap();
            args.extend(["--inventory", "inventory.yaml"]);
            let inv_text = std::fs::read_to_string(&inventory).unwrap();
            expected_inventory = Some(
                taintlint::inventory::Inventory::load(&[("inventory.yaml", &inv_text)]).unwrap(),
            );
        }
        let lint = |t: &str| {
            check(
                t,
                Ask::new(&taintlint::Options::default(), expected_inventory.as_ref()),
            )
            .diagnostics
        };
        let safe = fix_all_with(&text, FixMode::Safe, lint).text;
        let all = fix_all_with(&text, FixMode::Unsafe, lint).text;
        let name = rule.file_name().unwrap().to_string_lossy().to_string();

        let with = |extra: &[&str]| {
            let mut a = args.clone();
            a.extend(extra);
            a.push("bad.yaml");
            run_in(dir.path(), &a, None)
        };
        let diff = with(&["--diff", "--unsafe-fixes"]);
        assert_eq!(
            diff.stdout,
            taintlint::fix::unified_diff("bad.yaml", &text, &all),
            "{name}"
        );
        with(&["--fix"]);
        let after_safe = std::fs::read_to_string(dir.path().join("bad.yaml")).unwrap();
        assert_eq!(after_safe, safe, "{name}: --fix");
        // From the file as it was (fixing what --fix left is another sequence of fixes).
        std::fs::write(dir.path().join("bad.yaml"), &text).unwrap();
        with(&["--fix", "--unsafe-fixes"]);
        let after_all = std::fs::read_to_string(dir.path().join("bad.yaml")).unwrap();
        assert_eq!(after_all, all, "{name}: --fix --unsafe-fixes");
        needed_review += usize::from(safe != all);
    }
    assert!(
        needed_review >= 3,
        "the fixtures exercise fixes that need review"
    );
}
