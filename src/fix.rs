//! Applying fixes to a file's text in bulk (pure), and showing what changed as a unified diff.
//!
//! [`FixMode::Safe`] applies the fixes that keep what the manifest means; [`FixMode::Unsafe`]
//! (ruff's `--unsafe-fixes`) applies those that need review too. Each finding contributes at
//! most one fix per pass: the first one its rule offers that the mode admits (a rule lists its
//! preferred fix first).
//!
//! Only the bytes of each fix's edits change; everything else (comments, order, quoting, line
//! endings, a byte order mark) is kept. Fixes whose edits overlap are not applied together: the
//! ones that fit are applied, the text is linted again and the rest are tried on the new text,
//! a bounded number of times.

use std::ops::Range;

use crate::config::Options;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};

/// How many lint-and-fix passes a file gets at most.
pub const MAX_PASSES: usize = 10;

/// The result of fixing one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    pub text: String,
    /// How many fixes were applied (over all passes).
    pub applied: usize,
    /// How many passes made a change.
    pub passes: usize,
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
/// [`fix_all_with`] with [`crate::analyse_with`].
pub fn fix_all(text: &str, options: &Options, mode: FixMode) -> Fixed {
    fix_all_with(text, mode, |t| crate::analyse(t, options))
}

/// Applies every safe fix that `lint` offers (see [`fix_all_with`]).
pub fn fix_with(text: &str, lint: impl Fn(&str) -> Vec<Diagnostic>) -> Fixed {
    fix_all_with(text, FixMode::Safe, lint)
}

/// Applies every fix that `mode` admits among those `lint` offers, re-linting after each pass
/// until nothing is left to apply (or [`MAX_PASSES`]): a fixed point, so fixing the result
/// again changes nothing. A pass applies no two fixes whose edits overlap (the rest wait for
/// the next pass, on the new text), and a pass that would add a YAML syntax error is
/// discarded: a fix never breaks a file. Only the bytes of the applied edits change.
pub fn fix_all_with(text: &str, mode: FixMode, lint: impl Fn(&str) -> Vec<Diagnostic>) -> Fixed {
    let mut current = text.to_string();
    let mut applied = 0;
    let mut passes = 0;
    let mut diagnostics = lint(&current);
    while passes < MAX_PASSES {
        let chosen = choose(&current, &diagnostics, mode);
        if chosen.is_empty() {
            break;
        }
        let next = apply_edits(&current, chosen.iter().flat_map(|f| &f.edits));
        if next == current {
            break;
        }
        let next_diagnostics = lint(&next);
        if syntax_errors(&next_diagnostics) > syntax_errors(&diagnostics) {
            break;
        }
        applied += chosen.len();
        passes += 1;
        current = next;
        diagnostics = next_diagnostics;
    }
    Fixed {
        text: current,
        applied,
        passes,
    }
}

fn syntax_errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|d| d.rule == "yaml-syntax")
        .count()
}

/// Whether a finding has a fix that `mode` would apply.
pub fn fixable(d: &Diagnostic, mode: FixMode) -> bool {
    d.fixes
        .iter()
        .any(|f| mode.admits(f.applicability) && !f.edits.is_empty())
}

/// The fixes to apply together: each finding's first fix that `mode` admits and whose edits
/// are valid, in order of position, each one overlapping none already chosen. A fix identical
/// to a chosen one is the same change and is dropped.
fn choose<'d>(text: &str, diagnostics: &'d [Diagnostic], mode: FixMode) -> Vec<&'d Fix> {
    let mut fixes: Vec<&Fix> = diagnostics
        .iter()
        .filter_map(|d| {
            d.fixes.iter().find(|f| {
                mode.admits(f.applicability)
                    && !f.edits.is_empty()
                    && f.edits.iter().all(|e| valid(text, &e.range))
            })
        })
        .collect();
    fixes.sort_by_key(|f| f.edits.iter().map(|e| e.range.start).min());
    let mut chosen: Vec<&Fix> = Vec::new();
    for fix in fixes {
        if chosen.iter().any(|c| c.edits == fix.edits) || self_overlapping(fix) {
            continue;
        }
        let clash = chosen
            .iter()
            .flat_map(|c| &c.edits)
            .any(|a| fix.edits.iter().any(|b| overlap(&a.range, &b.range)));
        if !clash {
            chosen.push(fix);
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
        // Each pass makes a new `ab` out of `aab`: `aaab` -> `aax` ... needs a fresh lint.
        let lint = |t: &str| -> Vec<Diagnostic> {
            // `ab` -> `b` (safe): `aaab` takes three passes.
            t.match_indices("ab")
                .map(|(i, _)| diag(vec![fix(i..i + 1, "", Applicability::Safe)]))
                .collect()
        };
        let fixed = fix_with("aaab", lint);
        assert_eq!(fixed.text, "b");
        assert_eq!(fixed.passes, 3);
    }

    #[test]
    fn bounded_passes() {
        // A fix that never converges stops after MAX_PASSES.
        let lint = |t: &str| vec![diag(vec![fix(t.len()..t.len(), "!", Applicability::Safe)])];
        let fixed = fix_with("", lint);
        assert_eq!(fixed.passes, MAX_PASSES);
        assert_eq!(fixed.text.len(), MAX_PASSES);
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
