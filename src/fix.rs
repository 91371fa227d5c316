//! Applying fixes to a file's text in bulk (pure), every one checked before it is kept, and
//! showing what changed as a unified diff.
//!
//! [`FixMode::Safe`] applies the fixes that keep what the manifest means; [`FixMode::Unsafe`]
//! (ruff's `--unsafe-fixes`) applies those that need review too; a fix that is for a person to
//! make ([`Applicability::Manual`]) is never applied. Each finding contributes at most one fix: the
//! first one its rule offers that the mode admits (a rule lists its preferred fix first).
//!
//! Every write is checked, as ruff's `lint_fix` checks its own: after a pass the text is linted
//! again, and a fix is kept only when the text (and every string of YAML it holds) still parses,
//! its own finding is gone, and it made no toleration a duplicate ([`check`]); a fix that fails is
//! dropped, and the run says which and why ([`Dropped`]). A pass applies at most one fix to each
//! document, so that a fix another one makes unnecessary is judged again on the text the first
//! one left (an `operator: equal` corrected to `Equal` may already tolerate the taint another
//! fix would add a toleration for). Passes go on until nothing is left to apply, a bounded
//! number of times.
//!
//! Only the bytes of each fix's edits change; everything else (comments, order, quoting, line
//! endings, a byte order mark) is kept.

use std::ops::Range;

use crate::config::Options;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};

/// How many lint-and-fix passes a file gets at most.
pub const MAX_PASSES: usize = 100;

/// The result of fixing one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    pub text: String,
    /// How many fixes were applied (over all passes).
    pub applied: usize,
    /// How many passes made a change.
    pub passes: usize,
    /// The fixes not applied because they failed the check, in the order they were tried.
    pub dropped: Vec<Dropped>,
}

/// A fix that failed [`check`]: which, where (a byte offset in the text it was offered for, and
/// that text's line), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub rule: &'static str,
    pub title: String,
    /// The 1-based line of its finding, in the text as it was when the fix was tried.
    pub line: usize,
    pub why: String,
}

/// Which fixes a bulk fix applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FixMode {
    /// Only fixes marked safe (`--fix`).
    #[default]
    Safe,
    /// Safe fixes and those that need review (`--fix --unsafe-fixes`).
    Unsafe,
}

impl FixMode {
    /// Whether a fix of this applicability is applied in this mode.
    pub fn admits(self, applicability: Applicability) -> bool {
        match self {
            FixMode::Safe => applicability == Applicability::Safe,
            FixMode::Unsafe => applicability != Applicability::Manual,
        }
    }
}

/// Applies every safe fix that [`crate::analyse`] offers for `text`.
pub fn fix_safe(text: &str, options: &Options) -> Fixed {
    fix_all(text, options, FixMode::Safe)
}

/// Applies every fix that `mode` admits among those [`crate::analyse`] offers for `text`,
/// until none is left (see [`fix_all_with`]). For a run against an inventory, call
/// [`fix_all_with`] with [`crate::analysis::check`].
pub fn fix_all(text: &str, options: &Options, mode: FixMode) -> Fixed {
    fix_all_with(text, mode, |t| crate::analyse(t, options))
}

/// Applies every safe fix that `lint` offers (see [`fix_all_with`]).
pub fn fix_with(text: &str, lint: impl Fn(&str) -> Vec<Diagnostic>) -> Fixed {
    fix_all_with(text, FixMode::Safe, lint)
}

/// Applies every fix that `mode` admits among those `lint` offers, re-linting after each pass
/// until nothing is left to apply (or [`MAX_PASSES`]): a fixed point, so fixing the result
/// again changes nothing. A pass applies at most one fix to each document, none whose edits
/// overlap another's, none dropped before; what the pass leaves is linted again and must pass
/// [`check`] for the fixes together, else they are tried one at a time and each that fails is
/// dropped. Only the bytes of the applied edits change.
pub fn fix_all_with(text: &str, mode: FixMode, lint: impl Fn(&str) -> Vec<Diagnostic>) -> Fixed {
    let mut current = text.to_string();
    let mut applied = 0;
    let mut passes = 0;
    let mut dropped: Vec<Dropped> = Vec::new();
    let mut dropped_keys: Vec<Key> = Vec::new();
    // The fixes dropped, by what names them across texts: rule, title, document and path.
    let mut refused: Vec<Key> = Vec::new();
    let mut diagnostics = lint(&current);
    while passes < MAX_PASSES {
        let chosen = choose(&current, &diagnostics, mode, &refused);
        if chosen.is_empty() {
            break;
        }
        let next = apply_edits(&current, chosen.iter().flat_map(|(_, f)| &f.edits));
        if next == current {
            break;
        }
        let next_diagnostics = lint(&next);
        let together = check_all(&diagnostics, &next_diagnostics, &chosen);
        passes += 1;
        if together.is_ok() {
            applied += chosen.len();
            current = next;
            diagnostics = next_diagnostics;
            // A fix refused on the text before may pass on this one.
            refused.clear();
            continue;
        }
        // One at a time, in order: the first that passes is kept (the others' edits were made
        // for the text before it), each that fails is dropped with its reason.
        let mut kept = None;
        for &(d, f) in &chosen {
            let alone = apply_edits(&current, f.edits.iter());
            let after = lint(&alone);
            match check(&diagnostics, &after, d.rule) {
                Ok(()) => {
                    kept = Some((alone, after));
                    break;
                }
                Err(why) => {
                    dropped_keys.push(key(d, f));
                    dropped.push(Dropped {
                        rule: d.rule,
                        title: f.title.clone(),
                        line: current[..d.range.start.min(current.len())]
                            .matches('\n')
                            .count()
                            + 1,
                        why,
                    });
                    refused.push(key(d, f));
                }
            }
        }
        if let Some((text, after)) = kept {
            applied += 1;
            current = text;
            diagnostics = after;
            refused.clear();
        }
    }
    // What was dropped and is still offered on the text as it ends, once each (the last reason
    // it failed for).
    let offered: Vec<Key> = diagnostics
        .iter()
        .filter_map(|d| {
            let f = d.fixes.iter().find(|f| mode.admits(f.applicability))?;
            Some(key(d, f))
        })
        .collect();
    let mut said: Vec<(Key, Dropped)> = Vec::new();
    for (k, d) in dropped_keys.into_iter().zip(dropped).rev() {
        if offered.contains(&k) && !said.iter().any(|(s, _)| *s == k) {
            said.push((k, d));
        }
    }
    let said: Vec<Dropped> = said.into_iter().rev().map(|(_, d)| d).collect();
    Fixed {
        text: current,
        applied,
        passes,
        dropped: said,
    }
}

/// What names a fix across the texts of a run: its finding's rule, document and path, and its
/// title.
type Key = (&'static str, Option<usize>, Option<String>, String);

fn key(d: &Diagnostic, f: &Fix) -> Key {
    (d.rule, d.document, d.path.clone(), f.title.clone())
}

/// The rules whose findings say a text (or a string of YAML in it) does not parse.
const BREAKS: &[&str] = &["yaml-syntax", "hcl-syntax", "embedded-yaml-syntax"];

fn count(diagnostics: &[Diagnostic], rule: &str) -> usize {
    diagnostics.iter().filter(|d| d.rule == rule).count()
}

/// Whether the findings `after` a text was fixed say that nothing broke: no more parse failures
/// (of the text or a string of YAML it holds) and no more duplicate tolerations than `before`.
fn unbroken(before: &[Diagnostic], after: &[Diagnostic]) -> Result<(), String> {
    let broken = |d: &[Diagnostic]| BREAKS.iter().map(|r| count(d, r)).sum::<usize>();
    if broken(after) > broken(before) {
        let first = after
            .iter()
            .find(|d| BREAKS.contains(&d.rule) && !before.iter().any(|b| b.message == d.message))
            .or_else(|| after.iter().find(|d| BREAKS.contains(&d.rule)))
            .map_or(String::new(), |d| format!(": {}", d.message));
        return Err(format!("the text would no longer parse{first}"));
    }
    if count(after, "duplicate-toleration") > count(before, "duplicate-toleration") {
        return Err("a toleration would be written twice".to_string());
    }
    Ok(())
}

/// The check a fix passes before it is kept (the CLI's `--fix` and `--diff`, the editor's
/// fix-all and each of its quick fixes): `after` (the findings once the fix is applied) has
/// nothing `unbroken` refuses, and fewer findings of the fixed finding's `rule` than
/// `before`.
pub fn check(before: &[Diagnostic], after: &[Diagnostic], rule: &str) -> Result<(), String> {
    unbroken(before, after)?;
    if count(after, rule) >= count(before, rule) {
        return Err(format!("its `{rule}` finding would remain"));
    }
    Ok(())
}

/// Whether `edits` (byte ranges of `text`, whose findings are `before`, and their
/// replacements) make a text that passes [`check`] for a finding of `rule`, as `lint` judges
/// texts: what the editor asks of a quick fix before it offers it.
pub fn checked(
    text: &str,
    before: &[Diagnostic],
    edits: &[Edit],
    rule: &str,
    lint: impl Fn(&str) -> Vec<Diagnostic>,
) -> Result<(), String> {
    if edits.iter().any(|e| !valid(text, &e.range)) {
        return Err("its edits are not in the text".to_string());
    }
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    if sorted.windows(2).any(|w| overlap(&w[0].range, &w[1].range)) {
        return Err("its edits overlap".to_string());
    }
    let after = apply_edits(text, sorted.into_iter());
    check(before, &lint(&after), rule)
}

/// [`check`] for fixes applied together: as many fewer findings of each rule as fixes of it.
fn check_all(
    before: &[Diagnostic],
    after: &[Diagnostic],
    chosen: &[(&Diagnostic, &Fix)],
) -> Result<(), String> {
    unbroken(before, after)?;
    for &(d, _) in chosen {
        let fixes = chosen.iter().filter(|(o, _)| o.rule == d.rule).count();
        if count(after, d.rule) + fixes > count(before, d.rule) {
            return Err(format!("its `{}` finding would remain", d.rule));
        }
    }
    Ok(())
}

/// Whether a finding has a fix that `mode` would apply.
pub fn fixable(d: &Diagnostic, mode: FixMode) -> bool {
    d.fixes
        .iter()
        .any(|f| mode.admits(f.applicability) && !f.edits.is_empty())
}

/// The fixes to apply together: each finding's first fix that `mode` admits and whose edits
/// are valid, in order of position, at most one a document, none `refused`, each overlapping
/// none already chosen. A fix identical to a chosen one is the same change and is dropped.
fn choose<'d>(
    text: &str,
    diagnostics: &'d [Diagnostic],
    mode: FixMode,
    refused: &[Key],
) -> Vec<(&'d Diagnostic, &'d Fix)> {
    let mut fixes: Vec<(&Diagnostic, &Fix)> = diagnostics
        .iter()
        .filter_map(|d| {
            let f = d.fixes.iter().find(|f| {
                mode.admits(f.applicability)
                    && !f.edits.is_empty()
                    && f.edits.iter().all(|e| valid(text, &e.range))
            })?;
            (!refused.contains(&key(d, f))).then_some((d, f))
        })
        .collect();
    fixes.sort_by_key(|(_, f)| f.edits.iter().map(|e| e.range.start).min());
    let mut chosen: Vec<(&Diagnostic, &Fix)> = Vec::new();
    for (d, fix) in fixes {
        if chosen.iter().any(|(_, c)| c.edits == fix.edits) || self_overlapping(fix) {
            continue;
        }
        // One a document (a finding outside any document stands alone).
        if d.document.is_some() && chosen.iter().any(|(c, _)| c.document == d.document) {
            continue;
        }
        let clash = chosen
            .iter()
            .flat_map(|(_, c)| &c.edits)
            .any(|a| fix.edits.iter().any(|b| overlap(&a.range, &b.range)));
        if !clash {
            chosen.push((d, fix));
        }
    }
    chosen
}

fn valid(text: &str, r: &Range<usize>) -> bool {
    r.start <= r.end
        && r.end <= text.len()
        && text.is_char_boundary(r.start)
        && text.is_char_boundary(r.end)
}

fn self_overlapping(fix: &Fix) -> bool {
    fix.edits.iter().enumerate().any(|(i, a)| {
        fix.edits[i + 1..]
            .iter()
            .any(|b| overlap(&a.range, &b.range))
    })
}

/// Whether two edits cannot both be applied: their ranges share a byte, or both insert at the
/// same place (their order would be a guess), or one inserts strictly inside the other.
pub fn overlap(a: &Range<usize>, b: &Range<usize>) -> bool {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => a.start == b.start,
        (true, false) => b.start < a.start && a.start < b.end,
        (false, true) => a.start < b.start && b.start < a.end,
        (false, false) => a.start < b.end && b.start < a.end,
    }
}

/// Applies non-overlapping, valid edits.
fn apply_edits<'e>(text: &str, edits: impl Iterator<Item = &'e Edit>) -> String {
    let mut edits: Vec<&Edit> = edits.collect();
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in edits {
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.replacement);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A unified diff of `old` to `new` (three lines of context), with `a/NAME` and `b/NAME`
/// headers; empty when they are equal.
pub fn unified_diff(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn diag(fixes: Vec<Fix>) -> Diagnostic {
        Diagnostic {
            rule: "test",
            severity: Severity::Warning,
            message: String::new(),
            server_message: None,
            range: 0..0,
            document: None,
            path: None,
            object: None,
            related: Vec::new(),
            fixes,
        }
    }

    fn fix(range: Range<usize>, replacement: &str, applicability: Applicability) -> Fix {
        Fix {
            title: String::new(),
            applicability,
            edits: vec![Edit {
                range,
                replacement: replacement.to_string(),
            }],
        }
    }

    #[test]
    fn overlap_rules() {
        assert!(overlap(&(0..3), &(2..5)));
        assert!(!overlap(&(0..3), &(3..5)));
        assert!(overlap(&(3..3), &(3..3)));
        assert!(!overlap(&(3..3), &(3..5)));
        assert!(!overlap(&(3..3), &(0..3)));
        assert!(overlap(&(2..2), &(0..3)));
    }

    /// A toy linter: every lowercase letter is a finding whose safe fix rewrites it and the
    /// character after it (so neighbours' fixes overlap); every `q` has a fix that needs review.
    fn toy(text: &str) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for (i, c) in text.char_indices() {
            if c == 'q' {
                out.push(diag(vec![fix(i..i + 1, "Q", Applicability::NeedsReview)]));
            } else if c.is_ascii_lowercase() {
                let end = (i + 2).min(text.len());
                let rep = format!("{}{}", c.to_ascii_uppercase(), &text[i + 1..end]);
                out.push(diag(vec![fix(i..end, &rep, Applicability::Safe)]));
            }
        }
        out
    }

    #[test]
    fn overlapping_fixes_take_more_passes() {
        // Pass 1 fixes `a` and `c` (`b`'s fix overlaps `a`'s); pass 2 fixes `b`.
        let fixed = fix_with("abc q", toy);
        assert_eq!(fixed.text, "ABC q");
        assert_eq!(fixed.applied, 3);
        assert_eq!(fixed.passes, 2);
        let fixed = fix_with("abcdefgh", toy);
        assert_eq!(fixed.text, "ABCDEFGH");
        assert_eq!(fixed.passes, 2);
    }

    #[test]
    fn unsafe_mode_applies_fixes_that_need_review_too() {
        let fixed = fix_all_with("abc q", FixMode::Unsafe, toy);
        assert_eq!(fixed.text, "ABC Q");
        assert_eq!(fixed.applied, 4);
        // A fixed point: nothing is left to apply, and fixing again changes nothing.
        assert!(!toy(&fixed.text).iter().any(|d| fixable(d, FixMode::Unsafe)));
        let again = fix_all_with(&fixed.text, FixMode::Unsafe, toy);
        assert_eq!(
            (again.text.as_str(), again.applied),
            (fixed.text.as_str(), 0)
        );
        // Safe mode leaves the `q`.
        assert_eq!(fix_all_with("abc q", FixMode::Safe, toy).text, "ABC q");
    }

    #[test]
    fn one_fix_per_finding_the_first_the_mode_admits() {
        // Two alternatives for one finding: only the first is applied, never both.
        let lint = |t: &str| {
            if t == "x" {
                vec![diag(vec![
                    fix(0..1, "review", Applicability::NeedsReview),
                    fix(0..0, "safe-", Applicability::Safe),
                ])]
            } else {
                Vec::new()
            }
        };
        assert_eq!(fix_all_with("x", FixMode::Unsafe, lint).text, "review");
        assert_eq!(fix_all_with("x", FixMode::Safe, lint).text, "safe-x");
    }

    #[test]
    fn relints_until_stable() {
        // `ab` -> `c` and `ac` -> `b`: `aab` becomes `ac`, a finding the first lint did not
        // see, and then `b`.
        let lint = |t: &str| -> Vec<Diagnostic> {
            let mut out = Vec::new();
            for (pattern, rule, with) in [("ab", "ab", "c"), ("ac", "ac", "b")] {
                for (i, _) in t.match_indices(pattern) {
                    let mut d = diag(vec![fix(i..i + 2, with, Applicability::Safe)]);
                    d.rule = rule;
                    out.push(d);
                }
            }
            out
        };
        let fixed = fix_with("aab", lint);
        assert_eq!(fixed.text, "b");
        assert_eq!(fixed.passes, 2);
        assert!(fixed.dropped.is_empty());
    }

    #[test]
    fn bounded_passes() {
        // Fixes that never converge (each removes its finding and makes another) stop after
        // MAX_PASSES.
        let lint = |t: &str| {
            let mut d = diag(vec![fix(t.len()..t.len(), "!", Applicability::Safe)]);
            d.rule = if t.len().is_multiple_of(2) {
                "even"
            } else {
                "odd"
            };
            vec![d]
        };
        let fixed = fix_with("", lint);
        assert_eq!(fixed.passes, MAX_PASSES);
        assert_eq!(fixed.text.len(), MAX_PASSES);
    }

    /// A fix whose finding stays is dropped, with its reason, and not tried again; the rest of
    /// the pass is applied.
    #[test]
    fn a_fix_that_leaves_its_finding_is_dropped() {
        let lint = |t: &str| {
            let mut out = Vec::new();
            if t.contains('x') {
                // Its fix writes another `x`.
                let i = t.find('x').unwrap();
                let mut d = diag(vec![fix(i..i + 1, "xx", Applicability::Safe)]);
                d.rule = "x";
                d.document = Some(0);
                out.push(d);
            }
            if let Some(i) = t.find('y') {
                let mut d = diag(vec![fix(i..i + 1, "Y", Applicability::Safe)]);
                d.rule = "y";
                d.document = Some(1);
                out.push(d);
            }
            out
        };
        let fixed = fix_with("x\ny", lint);
        assert_eq!(fixed.text, "x\nY");
        assert_eq!(fixed.applied, 1);
        assert_eq!(
            fixed.dropped,
            vec![Dropped {
                rule: "x",
                title: String::new(),
                line: 1,
                why: "its `x` finding would remain".to_string()
            }]
        );
    }

    /// A fix that breaks the YAML, or writes a toleration twice, is dropped.
    #[test]
    fn a_fix_that_breaks_the_text_is_dropped() {
        let lint = |t: &str| {
            let mut out = Vec::new();
            if t.contains('[') && !t.contains(']') {
                let mut d = diag(Vec::new());
                d.rule = "yaml-syntax";
                d.message = "did not find expected ',' or ']'".to_string();
                out.push(d);
            }
            if t.contains("dup dup") {
                let mut d = diag(Vec::new());
                d.rule = "duplicate-toleration";
                out.push(d);
            }
            if let Some(i) = t.find("old") {
                let mut d = diag(vec![fix(i..i + 3, "[", Applicability::Safe)]);
                d.rule = "breaks";
                out.push(d);
            }
            if let Some(i) = t.find("one") {
                let mut d = diag(vec![fix(i..i + 3, "dup dup", Applicability::Safe)]);
                d.rule = "doubles";
                out.push(d);
            }
            out
        };
        let fixed = fix_with("old", lint);
        assert_eq!(fixed.text, "old");
        assert_eq!(
            fixed.dropped[0].why,
            "the text would no longer parse: did not find expected ',' or ']'"
        );
        let fixed = fix_with("one", lint);
        assert_eq!(fixed.text, "one");
        assert_eq!(fixed.dropped[0].why, "a toleration would be written twice");
    }

    /// At most one fix a document each pass: the second is judged on the text the first left,
    /// and not applied when the first made it unnecessary.
    #[test]
    fn one_fix_a_document_each_pass() {
        // `a` and `b` are two findings of one document; fixing `a` also removes `b`'s.
        let lint = |t: &str| {
            let mut out = Vec::new();
            if let Some(i) = t.find('a') {
                let mut d = diag(vec![fix(i..i + 1, "A", Applicability::Safe)]);
                d.rule = "a";
                d.document = Some(0);
                out.push(d);
            }
            if let (Some(i), false) = (t.find('b'), t.contains('A')) {
                let mut d = diag(vec![fix(i..i + 1, "B", Applicability::Safe)]);
                d.rule = "b";
                d.document = Some(0);
                out.push(d);
            }
            out
        };
        let fixed = fix_with("ab", lint);
        assert_eq!(fixed.text, "Ab");
        assert_eq!((fixed.applied, fixed.passes), (1, 1));
    }

    #[test]
    fn invalid_edits_are_skipped() {
        let lint = |_: &str| {
            vec![
                diag(vec![fix(0..99, "", Applicability::Safe)]),
                diag(vec![fix(1..2, "", Applicability::Safe)]), // inside `日`
            ]
        };
        assert_eq!(fix_with("日本", lint).text, "日本");
    }

    #[test]
    fn identical_fixes_apply_once() {
        let lint = |t: &str| {
            if t.starts_with('#') {
                vec![
                    diag(vec![fix(0..2, "", Applicability::Safe)]),
                    diag(vec![fix(0..2, "", Applicability::Safe)]),
                ]
            } else {
                Vec::new()
            }
        };
        let fixed = fix_with("# x", lint);
        assert_eq!(fixed.text, "x");
        assert_eq!(fixed.applied, 1);
    }

    #[test]
    fn real_fixes_keep_every_other_byte() {
        let text = "\u{feff}# 日本語のコメント\r\ntolerations:\r\n- key: a # 残す\r\n  operator: exists\r\n  effect: ~\r\n";
        let fixed = fix_safe(text, &Options::default());
        assert_eq!(
            fixed.text,
            "\u{feff}# 日本語のコメント\r\ntolerations:\r\n- key: a # 残す\r\n  operator: Exists\r\n  effect: \"\"\r\n"
        );
        assert_eq!(fixed.applied, 2);
    }

    #[test]
    fn diff() {
        assert_eq!(unified_diff("f", "a\n", "a\n"), "");
        let d = unified_diff("f.yaml", "a\nb\n", "a\nc\n");
        assert_eq!(
            d,
            "--- a/f.yaml\n+++ b/f.yaml\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn syntax_errors(diagnostics: &[Diagnostic]) -> usize {
            BREAKS.iter().map(|r| count(diagnostics, r)).sum()
        }

        /// Lines of toleration lists, suppression comments (good, stale and broken), Japanese
        /// comments and odd values, joined with LF or CRLF.
        fn manifest() -> impl Strategy<Value = String> {
            let line = prop::sample::select(vec![
                "tolerations:",
                "- key: dedicated",
                "- operator: Exists",
                "  operator: exists",
                "  operator: EQUAL",
                "  effect: noschedule",
                "  effect: ~",
                "  effect:",
                "  value: yes",
                "  tolerationSeconds: ~",
                "- {key: a, operator: exists, effect: ~}",
                "# taintlint: disable=tolerates-everything,null-value,unknown-effect -- why",
                "# taintlint: disable-file=unknown-operator",
                "# taintlint: disable=nul-value",
                "# taintlint: disable=",
                "# taintlint: bogus",
                "  # 日本語のコメント",
                "---",
                "kind: Pod",
                "spec:",
                "  tolerations:",
                "  - operator: Exists",
            ]);
            (prop::collection::vec(line, 0..24), any::<bool>()).prop_map(|(lines, crlf)| {
                let nl = if crlf { "\r\n" } else { "\n" };
                lines.iter().map(|l| format!("{l}{nl}")).collect()
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn fixing_never_panics_breaks_or_flip_flops(text in manifest()) {
                let options = Options::default();
                let fixed = fix_safe(&text, &options);
                let before = syntax_errors(&crate::analyse(&text, &options));
                let after = crate::analyse(&fixed.text, &options);
                prop_assert!(syntax_errors(&after) <= before);
                if fixed.passes < MAX_PASSES {
                    prop_assert_eq!(&fix_safe(&fixed.text, &options).text, &fixed.text);
                }
                // Line endings are the file's own.
                if !text.contains("\r\n") {
                    prop_assert!(!fixed.text.contains('\r'));
                }
                let all = fix_all(&text, &options, FixMode::Unsafe);
                prop_assert!(syntax_errors(&crate::analyse(&all.text, &options)) <= before);
                if all.passes < MAX_PASSES {
                    let again = fix_all(&all.text, &options, FixMode::Unsafe);
                    prop_assert_eq!(&again.text, &all.text);
                    prop_assert_eq!(again.applied, 0);
                }
                if !text.contains("\r\n") {
                    prop_assert!(!all.text.contains('\r'));
                }
            }
        }
    }
}
