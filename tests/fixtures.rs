//! Rule fixtures: for every rule, a `bad.yaml` that triggers it and a `good.yaml` that does not,
//! with snapshots of what a person (human output) and a machine (JSON output) sees, and every
//! fix applied and checked.

mod common;

use std::ops::Range;
use std::path::PathBuf;

use taintlint::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use taintlint::inventory::Inventory;
use taintlint::report::{human, json};
use taintlint::{rules, Severity};

fn rules_dir() -> PathBuf {
    common::root().join("tests/fixtures/rules")
}

#[test]
fn rule_fixture_snapshots() {
    common::snapshot_settings().bind(|| {
        insta::glob!("fixtures/rules", "*/[bg]*.yaml", |path| {
            let files = common::reports(path);
            insta::assert_snapshot!("human", human::render(&files, false));
            insta::assert_snapshot!("json", json::render(&files));
        });
    });
}

#[test]
fn every_rule_has_a_bad_and_a_good_fixture() {
    let mut missing = Vec::new();
    for meta in rules::all() {
        let dir = rules_dir().join(meta.name);
        let (bad, good) = (dir.join("bad.yaml"), dir.join("good.yaml"));
        if !bad.exists() || !good.exists() {
            missing.push(meta.name);
            continue;
        }
        let inventory = common::inventory_for(&bad);
        let found = common::lint_with(&common::read(&bad), inventory.as_ref());
        assert!(
            found.iter().any(|d| d.rule == meta.name),
            "{}: bad.yaml does not trigger {}; it gives {:?}",
            meta.name,
            meta.name,
            rules_of(&found)
        );
        for d in found.iter().filter(|d| d.rule == meta.name) {
            assert_eq!(d.severity, meta.severity, "{}: {d:?}", meta.name);
        }
        let found = common::lint_with(&common::read(&good), inventory.as_ref());
        assert!(
            !found.iter().any(|d| d.rule == meta.name),
            "{}: good.yaml triggers it: {found:#?}",
            meta.name
        );
        assert!(
            !found.iter().any(|d| d.severity == Severity::Error),
            "{}: good.yaml has error-level findings: {found:#?}",
            meta.name
        );
    }
    assert!(missing.is_empty(), "rules without fixtures: {missing:?}");

    // And no fixture folder names a rule that does not exist; only rules that need an inventory
    // have one beside their fixtures.
    for entry in std::fs::read_dir(rules_dir()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        let meta = rules::find(&name).unwrap_or_else(|| panic!("fixture for unknown rule {name}"));
        assert_eq!(
            entry.path().join("inventory.yaml").exists(),
            meta.needs_inventory,
            "{name}: an inventory.yaml belongs beside exactly the fixtures of rules that need one"
        );
    }
}

fn rules_of(found: &[Diagnostic]) -> Vec<&'static str> {
    found.iter().map(|d| d.rule).collect()
}

fn fixture_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(rules_dir()).unwrap() {
        let dir = entry.unwrap().path();
        for name in ["bad.yaml", "good.yaml"] {
            out.push(dir.join(name));
        }
    }
    out.sort();
    out
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end.max(b.start + 1) && b.start < a.end.max(a.start + 1)
}

/// Checks one fix of one diagnostic: its edits lie in the text, the fixed text parses, and the
/// rule no longer fires at that place.
fn check_fix(
    name: &str,
    text: &str,
    inventory: Option<&Inventory>,
    d: &Diagnostic,
    fix: &Fix,
) -> String {
    for e in &fix.edits {
        assert!(
            e.range.end <= text.len()
                && text.is_char_boundary(e.range.start)
                && text.is_char_boundary(e.range.end),
            "{name}: {} edit {:?} is not inside the text",
            d.rule,
            e.range
        );
    }
    let fixed = fix.apply(text);
    assert!(
        common::syntax_errors(&fixed) <= common::syntax_errors(text),
        "{name}: fix {:?} of {} breaks the YAML:\n{fixed}",
        fix.title,
        d.rule
    );
    let before = common::lint_with(text, inventory);
    let after = common::lint_with(&fixed, inventory);
    // The field the finding was about is no longer reported by that rule...
    // (A finding without a field path, such as one about a comment, is told apart by its
    // message.)
    let again: Vec<&Diagnostic> = after
        .iter()
        .filter(|a| {
            a.rule == d.rule
                && a.document == d.document
                && a.path == d.path
                && (d.path.is_some() || a.message == d.message)
        })
        .collect();
    assert!(
        again.is_empty(),
        "{name}: after fix {:?}, {} still fires at {:?}:\n{again:#?}\n{fixed}",
        fix.title,
        d.rule,
        d.path
    );
    // ... and the rule fires once less (a renamed field has a new path).
    let count = |ds: &[Diagnostic]| ds.iter().filter(|x| x.rule == d.rule).count();
    assert_eq!(
        count(&after) + 1,
        count(&before),
        "{name}: fix {:?} of {} at {:?}:\n{fixed}",
        fix.title,
        d.rule,
        d.path
    );
    let errors = |ds: &[Diagnostic]| ds.iter().filter(|d| d.severity == Severity::Error).count();
    assert!(
        errors(&after) < errors(&before) || d.severity != Severity::Error,
        "{name}: fix {:?} of error {} does not reduce the errors:\n{after:#?}",
        fix.title,
        d.rule
    );
    if d.severity != Severity::Error {
        assert!(
            errors(&after) <= errors(&before),
            "{name}: fix {:?} of {} adds an error:\n{after:#?}",
            fix.title,
            d.rule
        );
    }
    fixed
}

#[test]
fn every_fix_removes_its_finding() {
    let mut fixes = 0;
    for path in fixture_files() {
        let name = common::relative(&path);
        let text = common::read(&path);
        let inventory = common::inventory_for(&path);
        for d in common::lint_with(&text, inventory.as_ref()) {
            for fix in &d.fixes {
                check_fix(&name, &text, inventory.as_ref(), &d, fix);
                fixes += 1;
            }
        }
    }
    // Every fixable rule's bad fixture offers at least one fix.
    for meta in rules::all().filter(|m| m.fixable) {
        let bad = rules_dir().join(meta.name).join("bad.yaml");
        let inventory = common::inventory_for(&bad);
        assert!(
            common::lint_with(&common::read(&bad), inventory.as_ref())
                .iter()
                .any(|d| d.rule == meta.name && !d.fixes.is_empty()),
            "{}: fixable, but its bad fixture gets no fix",
            meta.name
        );
    }
    assert!(fixes > 20, "only {fixes} fixes were checked");
}

/// Every safe fix of a file at once (as a `--fix` run would apply them), skipping one that
/// overlaps a fix already taken.
fn apply_safe_fixes(text: &str, found: &[Diagnostic]) -> Option<(String, Vec<String>)> {
    let mut edits: Vec<Edit> = Vec::new();
    let mut titles = Vec::new();
    for d in found {
        for fix in d
            .fixes
            .iter()
            .filter(|f| f.applicability == Applicability::Safe)
        {
            let clash = fix
                .edits
                .iter()
                .any(|e| edits.iter().any(|t| overlaps(&t.range, &e.range)));
            if clash {
                continue;
            }
            edits.extend(fix.edits.iter().cloned());
            titles.push(format!(
                "[{}] {}: {}",
                d.rule,
                d.path.as_deref().unwrap_or("-"),
                fix.title
            ));
        }
    }
    if edits.is_empty() {
        return None;
    }
    let all = Fix {
        title: "all safe fixes".to_string(),
        applicability: Applicability::Safe,
        edits,
    };
    Some((all.apply(text), titles))
}

#[test]
fn safe_fixes_snapshots() {
    let mut snapshots = 0;
    common::snapshot_settings().bind(|| {
        insta::glob!("fixtures/rules", "*/[bg]*.yaml", |path| {
            let text = common::read(path);
            let inventory = common::inventory_for(path);
            let found = common::lint_with(&text, inventory.as_ref());
            let Some((fixed, titles)) = apply_safe_fixes(&text, &found) else {
                return;
            };
            assert!(
                common::syntax_errors(&fixed) <= common::syntax_errors(&text),
                "{}:\n{fixed}",
                path.display()
            );
            // A safe fix keeps the meaning: nothing it fixed comes back, and nothing new appears.
            let after = common::lint_with(&fixed, inventory.as_ref());
            for a in &after {
                assert!(
                    found
                        .iter()
                        .any(|d| d.rule == a.rule && d.message == a.message),
                    "{}: the safe fixes introduced {a:#?}",
                    path.display()
                );
            }
            let fixed_rules: Vec<_> = found
                .iter()
                .filter(|d| {
                    d.fixes
                        .iter()
                        .any(|f| f.applicability == Applicability::Safe)
                })
                .map(|d| (d.rule, d.document, d.path.clone()))
                .collect();
            for a in &after {
                assert!(
                    !fixed_rules.contains(&(a.rule, a.document, a.path.clone())),
                    "{}: {} at {:?} survives its safe fix",
                    path.display(),
                    a.rule,
                    a.path
                );
            }
            snapshots += 1;
            let description = format!("safe fixes applied:\n{}", titles.join("\n"));
            insta::with_settings!({ description => description }, {
                insta::assert_snapshot!("safe_fixes", fixed);
            });
        });
    });
    assert!(snapshots >= 4, "only {snapshots} fixtures have safe fixes");
}

/// Rule, path, message, start and end (0-based line, column in characters).
type Place = (String, Option<String>, String, (u32, u32), (u32, u32));

/// Every fixture with CRLF line endings and a byte order mark gives the same findings at the
/// same lines and columns, and its fixes keep CRLF (no bare LF appears).
#[test]
fn crlf_and_bom_variants_report_the_same() {
    use taintlint::position::{Encoding, LineIndex};
    let places = |text: &str, inventory: Option<&Inventory>| -> Vec<Place> {
        let index = LineIndex::new(text);
        let at = |o: usize| {
            let lc = index.line_col(text, o, Encoding::Utf32);
            (lc.line, lc.col)
        };
        common::lint_with(text, inventory)
            .into_iter()
            .map(|d| {
                (
                    d.rule.to_string(),
                    d.path.clone(),
                    d.message.clone(),
                    at(d.range.start),
                    at(d.range.end),
                )
            })
            .collect()
    };
    for path in fixture_files() {
        let name = common::relative(&path);
        let lf = common::read(&path);
        let crlf = format!("\u{feff}{}", lf.replace('\n', "\r\n"));
        let inventory = common::inventory_for(&path);
        assert_eq!(
            places(&lf, inventory.as_ref()),
            places(&crlf, inventory.as_ref()),
            "{name}"
        );
        for d in common::lint_with(&crlf, inventory.as_ref()) {
            for fix in &d.fixes {
                let fixed = fix.apply(&crlf);
                assert!(fixed.starts_with('\u{feff}'), "{name}: {}", fix.title);
                let bare_lf = fixed.replace("\r\n", "").contains('\n');
                assert!(
                    !bare_lf,
                    "{name}: {} leaves a bare LF:\n{fixed:?}",
                    fix.title
                );
            }
        }
    }
}

/// Every fix, safe or needing review, applied in bulk to every fixture (what `lint --fix
/// --unsafe-fixes` does): no fixable finding is left, nothing breaks, the file keeps its line
/// endings and byte order mark, and fixing the result again changes nothing. The snapshot is
/// the diff, so every changed byte is in it.
#[test]
fn all_fixes_reach_a_fixed_point() {
    use taintlint::fix::{fix_all_with, fixable, unified_diff, FixMode, MAX_PASSES};
    let mut changed = 0;
    common::snapshot_settings().bind(|| {
        insta::glob!("fixtures/rules", "*/[bg]*.yaml", |path| {
            let name = common::relative(path);
            let inventory = common::inventory_for(path);
            let lint = |t: &str| common::lint_with(t, inventory.as_ref());
            let lf = common::read(path);
            let crlf = format!("\u{feff}{}", lf.replace('\n', "\r\n"));
            let mut diffs = Vec::new();
            for text in [&lf, &crlf] {
                let fixed = fix_all_with(text, FixMode::Unsafe, lint);
                assert!(fixed.passes < MAX_PASSES, "{name}: no fixed point");
                let after = lint(&fixed.text);
                let left: Vec<_> = after
                    .iter()
                    .filter(|d| fixable(d, FixMode::Unsafe))
                    .collect();
                assert!(left.is_empty(), "{name}: fixable after fixing:\n{left:#?}");
                assert!(
                    common::syntax_errors(&fixed.text) <= common::syntax_errors(text),
                    "{name}:\n{}",
                    fixed.text
                );
                let again = fix_all_with(&fixed.text, FixMode::Unsafe, lint);
                assert_eq!(again.text, fixed.text, "{name}: not idempotent");
                assert_eq!(again.applied, 0, "{name}");
                if text.starts_with('\u{feff}') {
                    assert!(fixed.text.starts_with('\u{feff}'), "{name}");
                    assert!(
                        !fixed.text.replace("\r\n", "").contains('\n'),
                        "{name}: a bare LF:\n{:?}",
                        fixed.text
                    );
                    // The same change as the LF file's.
                    assert_eq!(
                        fixed
                            .text
                            .trim_start_matches('\u{feff}')
                            .replace("\r\n", "\n"),
                        fix_all_with(&lf, FixMode::Unsafe, lint).text,
                        "{name}"
                    );
                } else {
                    diffs.push(unified_diff(&name, text, &fixed.text));
                }
            }
            if diffs[0].is_empty() {
                return;
            }
            changed += 1;
            insta::assert_snapshot!("all_fixes", diffs[0]);
        });
    });
    // Every fixable rule's bad fixture changes.
    assert!(
        changed >= rules::all().filter(|m| m.fixable).count(),
        "only {changed} fixtures change"
    );
}

/// The "disable for this line" edit silences exactly the finding it is offered for, and the
/// comment it writes is used (no `unused-suppression`), for every finding of every fixture.
#[test]
fn disable_for_line_silences_each_finding() {
    use taintlint::suppress::{disable_for_line, NOT_SUPPRESSIBLE};
    let mut silenced = 0;
    for path in fixture_files() {
        let name = common::relative(&path);
        let inventory = common::inventory_for(&path);
        for crlf in [false, true] {
            let mut text = common::read(&path);
            if crlf {
                text = format!("\u{feff}{}", text.replace('\n', "\r\n"));
            }
            let found = common::lint_with(&text, inventory.as_ref());
            for d in found.iter().filter(|d| !NOT_SUPPRESSIBLE.contains(&d.rule)) {
                let edit = disable_for_line(&text, d.range.start, d.rule);
                let fixed = Fix {
                    title: String::new(),
                    applicability: Applicability::Safe,
                    edits: vec![edit],
                }
                .apply(&text);
                let after = common::lint_with(&fixed, inventory.as_ref());
                let same =
                    |a: &Diagnostic| a.rule == d.rule && a.path == d.path && a.message == d.message;
                assert_eq!(
                    after.iter().filter(|a| same(a)).count() + 1,
                    found.iter().filter(|a| same(a)).count(),
                    "{name}: {} at {:?} is not silenced:\n{fixed}",
                    d.rule,
                    d.path
                );
                assert!(
                    !after.iter().any(|a| a.rule == "unused-suppression")
                        || found.iter().any(|a| a.rule == "unused-suppression"),
                    "{name}: the comment for {} is unused:\n{fixed}",
                    d.rule
                );
                if crlf {
                    assert!(!fixed.replace("\r\n", "").contains('\n'), "{name}");
                }
                silenced += 1;
            }
        }
    }
    assert!(silenced > 50, "only {silenced} findings checked");
}

/// What the editor shows on hover over each finding of a bad fixture: short enough to read
/// without scrolling (no explanation sections; the rule links to its documentation).
#[test]
fn hover_snapshots() {
    use taintlint::lsp::hover;
    common::snapshot_settings().bind(|| {
        insta::glob!("fixtures/rules", "*/bad.yaml", |path| {
            let text = common::read(path);
            let inventory = common::inventory_for(path);
            let found = common::lint_with(&text, inventory.as_ref());
            let hovers: Vec<String> = found
                .iter()
                .map(|d| hover::diagnostic(d, rules::DOCS_URL))
                .collect();
            for (d, h) in found.iter().zip(&hovers) {
                assert!(!h.contains("## "), "{h}");
                assert!(
                    h.lines().count() <= 14,
                    "{}: the hover of {} is too long:\n{h}",
                    path.display(),
                    d.rule
                );
                // The editor shows the message above the hover: the hover does not repeat it,
                // and leads with why it matters.
                assert!(!h.contains(&d.message), "{}: {h}", path.display());
                let why = rules::find(d.rule).unwrap().why;
                assert!(h.lines().next().unwrap().ends_with(why), "{h}");
                // Field paths are code spans: Neovim's Markdown showed `tolerations[0]` as
                // `tolerations0`.
                for line in h.lines().filter(|l| l.starts_with("- Fix:")) {
                    let outside: String = line.split('`').step_by(2).collect::<Vec<_>>().concat();
                    assert!(!outside.contains('['), "{}: {line}", path.display());
                }
            }
            insta::assert_snapshot!("hover", hovers.join("\n\n---\n\n"));
        });
    });
}

/// Every finding's message fits one row of a problem list: about 100 characters (a little more
/// when it quotes a long object name or key).
#[test]
fn messages_are_short() {
    for path in fixture_files() {
        let text = common::read(&path);
        let inventory = common::inventory_for(&path);
        for d in common::lint_with(&text, inventory.as_ref()) {
            if d.rule == "yaml-syntax" {
                continue; // the parser's own words
            }
            assert!(
                d.message.chars().count() <= 140 && !d.message.contains('\n'),
                "{}: {} message is {} characters: {}",
                common::relative(&path),
                d.rule,
                d.message.chars().count(),
                d.message
            );
        }
    }
}
