//! `unused-suppression`: a `# taintlint: disable=...` comment that silences nothing, names a rule
//! that does not exist, or is not a directive at all.

use std::ops::Range;

use super::{Rule, RuleMeta};
use crate::config::Options;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix, Severity};
use crate::suppress::{Directive, Directives, Scope};

pub struct UnusedSuppression;

pub static META: RuleMeta = RuleMeta {
    name: "unused-suppression",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: true,
    summary: "A `# taintlint: disable=` comment that silences nothing or names an unknown rule",
    why: "A stale suppression hides the next real problem there; a misspelt one silences nothing.",
    explanation: r#"## What it catches
A suppression comment that no longer silences anything: `# taintlint: disable=RULE` above a
node where RULE finds nothing, `# taintlint: disable-file=RULE` in a file where RULE finds
nothing, a rule name that does not exist (`disable=tolerate-everything`), and a comment that
starts with `taintlint:` but is not a directive (`# taintlint: disabel=...`).

A suppression of a rule that is turned off (in `.taintlint.yaml` or with `--ignore`) is not
reported: whether it is needed depends on the configuration.

## Why it matters
A stale suppression hides the next real problem at that place, and a misspelt one silences
nothing while looking as if it did.

## Example
```yaml
tolerations:
# taintlint: disable=tolerates-everything -- the agent runs on every node
- key: dedicated
  operator: Equal
  value: agents
```

## Fix
Remove the suppression, or the unused rule name from its list (a safe fix); correct a misspelt
rule name (the suggestion needs review).
"#,
};

impl Rule for UnusedSuppression {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}

/// Reports what the directives did not use, after [`crate::suppress::apply`].
pub(crate) fn report(
    text: &str,
    directives: &Directives<'_>,
    options: &Options,
    document_of: impl Fn(usize) -> Option<usize>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(severity) = options.rule_level(&META) else {
        return;
    };
    let mut push = |range: Range<usize>, message: String, fixes: Vec<Fix>| {
        out.push(Diagnostic {
            rule: META.name,
            severity,
            message,
            server_message: None,
            document: document_of(range.start),
            range,
            path: None,
            object: None,
            related: Vec::new(),
            fixes,
        });
    };
    for m in &directives.malformed {
        push(
            m.comment.clone(),
            format!("this comment is not a taintlint directive: {}", m.message),
            Vec::new(),
        );
    }
    for d in &directives.directives {
        // Names that will be reported; when all of a directive's names are, the fix removes
        // the whole comment.
        let reported: Vec<bool> = d
            .names
            .iter()
            .map(|n| {
                if n.used || n.text == META.name {
                    return false;
                }
                match super::find(n.text) {
                    None => true,
                    Some(_) => options.rule_enabled(n.text),
                }
            })
            .collect();
        let all = reported.iter().all(|&r| r);
        for (i, name) in d.names.iter().enumerate() {
            if !reported[i] {
                continue;
            }
            let removal = if all {
                Fix {
                    title: "Remove the suppression comment".to_string(),
                    applicability: Applicability::Safe,
                    edits: vec![remove_comment(text, d)],
                }
            } else {
                Fix {
                    title: format!("Remove `{}` from the list", name.text),
                    applicability: Applicability::Safe,
                    edits: vec![remove_name(d, i)],
                }
            };
            let (message, fixes) = match super::find(name.text) {
                None => match super::closest(name.text) {
                    Some(near) => (
                        format!(
                            "unknown rule `{}` in a suppression; did you mean `{near}`?",
                            name.text
                        ),
                        vec![
                            Fix {
                                title: format!("Write `{near}`"),
                                applicability: Applicability::NeedsReview,
                                edits: vec![Edit {
                                    range: name.range.clone(),
                                    replacement: near.to_string(),
                                }],
                            },
                            removal,
                        ],
                    ),
                    None => (
                        format!(
                            "unknown rule `{}` in a suppression (`taintlint rules` lists them)",
                            name.text
                        ),
                        vec![removal],
                    ),
                },
                Some(_) => (
                    match d.scope {
                        Scope::File => format!(
                            "`{}` finds nothing in this file: this suppression is unused",
                            name.text
                        ),
                        Scope::Nothing => format!(
                            "no node follows this suppression, so `{}` silences nothing",
                            name.text
                        ),
                        Scope::Next(_) => format!(
                            "`{}` finds nothing in the node below: this suppression is unused",
                            name.text
                        ),
                    },
                    vec![removal],
                ),
            };
            push(name.range.clone(), message, fixes);
        }
    }
}

/// Removes a comment: its whole line when nothing else is on it, else the comment and the
/// spaces before it.
fn remove_comment(text: &str, d: &Directive<'_>) -> Edit {
    let start = d.comment.start;
    let line_start = text[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let before = &text[line_start..start];
    if before.bytes().all(|b| b == b' ' || b == b'\t') {
        let rest = &text[d.comment.end..];
        let end = if rest.starts_with("\r\n") {
            d.comment.end + 2
        } else if rest.starts_with(['\n', '\r']) {
            d.comment.end + 1
        } else {
            d.comment.end
        };
        return Edit {
            range: line_start..end,
            replacement: String::new(),
        };
    }
    let trimmed = before.trim_end_matches([' ', '\t']).len();
    Edit {
        range: line_start + trimmed..d.comment.end,
        replacement: String::new(),
    }
}

/// Removes the `i`th name and one comma next to it.
fn remove_name(d: &Directive<'_>, i: usize) -> Edit {
    let names = &d.names;
    let range = if i + 1 < names.len() {
        names[i].range.start..names[i + 1].range.start
    } else {
        names[i - 1].range.end..names[i].range.end
    };
    Edit {
        range,
        replacement: String::new(),
    }
}
