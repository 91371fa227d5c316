//! Inline suppressions, read from YAML comments:
//!
//! - `# taintlint: disable=RULE[,RULE...] -- reason` silences those rules for the node that
//!   follows the comment (a toleration, a `key: value` entry, or a whole document when the
//!   comment stands at its top);
//! - `# taintlint: disable-file=RULE[,RULE...] -- reason` silences them for the whole file.
//!
//! The reason after ` -- ` is optional but recommended. Pure: text and parsed stream in,
//! directives out; [`apply`] removes the findings they silence and records which names were
//! used, so that `unused-suppression` can report the others.

use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::syntax::{Document, NodeId, NodeKind, Stream};

/// What a directive covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The node after the comment: findings that start in this byte range.
    Next(Range<usize>),
    /// No node follows the comment.
    Nothing,
    /// The whole file.
    File,
}

/// One rule name in a directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name<'a> {
    pub text: &'a str,
    /// Byte range of the name in the file.
    pub range: Range<usize>,
    /// Whether it silenced at least one finding.
    pub used: bool,
}

/// A parsed `# taintlint:` comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive<'a> {
    /// Byte range of the whole comment, `#` included.
    pub comment: Range<usize>,
    pub scope: Scope,
    pub names: Vec<Name<'a>>,
    pub reason: Option<&'a str>,
}

/// A comment that starts with `taintlint:` but is not a directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    pub comment: Range<usize>,
    pub message: String,
}

/// Every directive of a file, and the comments that look like one but are not.
#[derive(Debug, Default)]
pub struct Directives<'a> {
    pub directives: Vec<Directive<'a>>,
    pub malformed: Vec<Malformed>,
}

const PREFIX: &str = "taintlint:";

/// Reads the directives of a parsed file.
pub fn directives<'a>(text: &'a str, stream: &Stream<'_>) -> Directives<'a> {
    let mut out = Directives::default();
    // Built on the first `disable=` directive: most files have none.
    let mut index: Option<NodeIndex> = None;
    for comment in &stream.comments {
        let Some(raw) = text.get(comment.span.clone()) else {
            continue;
        };
        let body_start = comment.span.start + raw.len() - raw.trim_start_matches('#').len();
        let body = &text[body_start..comment.span.end];
        let lead = body.len() - body.trim_start().len();
        let Some(rest) = body[lead..].strip_prefix(PREFIX) else {
            continue;
        };
        let at = body_start + lead + PREFIX.len();
        match parse_directive(rest, at) {
            Ok((file, names, reason)) => {
                let scope = if file {
                    Scope::File
                } else {
                    let index = index.get_or_insert_with(|| NodeIndex::new(stream));
                    next_node(text, stream, index, comment.span.end)
                        .map_or(Scope::Nothing, Scope::Next)
                };
                out.directives.push(Directive {
                    comment: comment.span.clone(),
                    scope,
                    names,
                    reason,
                });
            }
            Err(message) => out.malformed.push(Malformed {
                comment: comment.span.clone(),
                message,
            }),
        }
    }
    out
}

const SYNTAX: &str =
    "expected `taintlint: disable=RULE[,RULE] -- reason` or `taintlint: disable-file=RULE`";

/// Parses what follows `taintlint:`; `at` is its byte offset in the file.
#[allow(clippy::type_complexity)]
fn parse_directive(rest: &str, at: usize) -> Result<(bool, Vec<Name<'_>>, Option<&str>), String> {
    let lead = rest.len() - rest.trim_start().len();
    let s = &rest[lead..];
    let (file, after) = if let Some(a) = s.strip_prefix("disable-file=") {
        (true, a)
    } else if let Some(a) = s.strip_prefix("disable=") {
        (false, a)
    } else {
        let word: String = s
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '=')
            .collect();
        return Err(if word.is_empty() {
            format!("empty taintlint directive; {SYNTAX}")
        } else {
            format!("unknown taintlint directive `{word}`; {SYNTAX}")
        });
    };
    let list_at = at + rest.len() - after.len();
    // The list ends at ` --` (the reason) or at the end of the comment.
    let (list, reason) = match find_reason(after) {
        Some(i) => {
            let reason = after[i..].trim_start_matches([' ', '\t']);
            let reason = reason.strip_prefix("--").unwrap_or(reason).trim();
            (&after[..i], (!reason.is_empty()).then_some(reason))
        }
        None => (after, None),
    };
    let mut names = Vec::new();
    let mut offset = 0;
    for part in list.split(',') {
        let trimmed = part.trim();
        let start = list_at + offset + (part.len() - part.trim_start().len());
        offset += part.len() + 1;
        if trimmed.is_empty() {
            return Err(format!("empty rule name in the list; {SYNTAX}"));
        }
        if let Some(bad) = trimmed
            .chars()
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
        {
            return Err(format!(
                "`{trimmed}` is not a rule name ({bad:?} is not allowed; separate rules with \
                 commas and put the reason after ` -- `)"
            ));
        }
        names.push(Name {
            text: trimmed,
            range: start..start + trimmed.len(),
            used: false,
        });
    }
    Ok((file, names, reason))
}

/// The offset of the whitespace before `--` that starts the reason.
fn find_reason(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    (0..bytes.len()).find(|&i| {
        matches!(bytes[i], b' ' | b'\t') && s[i..].trim_start_matches([' ', '\t']).starts_with("--")
    })
}

/// Every node of a stream by start (outermost first), and the value of every mapping key.
struct NodeIndex {
    /// (start, end reversed, document, node), sorted.
    by_start: Vec<(usize, std::cmp::Reverse<usize>, usize, NodeId)>,
    /// (document, key) -> value.
    value_of: std::collections::HashMap<(usize, NodeId), NodeId>,
}

impl NodeIndex {
    fn new(stream: &Stream<'_>) -> NodeIndex {
        let mut by_start = Vec::new();
        let mut value_of = std::collections::HashMap::new();
        for (d, doc) in stream.documents.iter().enumerate() {
            for id in 0..doc.nodes_len() as NodeId {
                let node = doc.node(id);
                by_start.push((node.span.start, std::cmp::Reverse(node.span.end), d, id));
                if let NodeKind::Mapping { entries, .. } = &node.kind {
                    for &(k, v) in entries {
                        value_of.insert((d, k), v);
                    }
                }
            }
        }
        by_start.sort_unstable();
        NodeIndex { by_start, value_of }
    }
}

/// The byte range a `disable=` comment ending at `after` covers: the outermost node that starts
/// first after it. A key stands for its whole entry; a block sequence whose first item is on its
/// first line (`- key: a`) stands for that item, so a comment above any toleration covers that
/// toleration only.
fn next_node(
    text: &str,
    stream: &Stream<'_>,
    index: &NodeIndex,
    after: usize,
) -> Option<Range<usize>> {
    let at = index.by_start.partition_point(|e| e.0 < after);
    let &(_, _, d, mut id) = index.by_start.get(at)?;
    let doc: &Document<'_> = &stream.documents[d];
    while let NodeKind::Sequence { items, flow: false } = &doc.node(id).kind {
        let Some(&first) = items.first() else { break };
        let start = doc.node(id).span.start;
        let first_start = doc.node(first).span.start;
        let between = text.get(start..first_start).unwrap_or("\n");
        if between.contains(['\n', '\r']) {
            break;
        }
        id = first;
    }
    let span = doc.node(id).span.clone();
    // A mapping key: the whole entry.
    match index.value_of.get(&(d, id)) {
        Some(&v) => Some(span.start..doc.node(v).span.end.max(span.end)),
        None => Some(span),
    }
}

/// What the "disable for this line" action writes after ` -- `: a reason is worth writing, and
/// this is where it goes.
pub const REASON_PLACEHOLDER: &str = "TODO: say why";

/// Rules whose findings a `disable=` comment cannot silence: they are about the file or the
/// comments themselves, or (`embedded-yaml-syntax`) lie inside a string, where a comment line
/// would be part of the string (configuration or a per-path ignore turns them off).
pub const NOT_SUPPRESSIBLE: &[&str] = &[
    "yaml-syntax",
    "embedded-yaml-syntax",
    "hcl-syntax",
    "helm-template",
    "not-a-manifest",
    "unused-suppression",
];

/// The edit that silences `rule` for the line holding `offset` (ruff's "noqa" action): a
/// `# taintlint: disable=RULE -- TODO: say why` comment on its own line above it, indented as
/// that line, with the file's line ending. It covers the node that starts that line (the
/// toleration of a `- key:` line, the entry of a `key:` line), which holds the finding.
pub fn disable_for_line(text: &str, offset: usize, rule: &str) -> crate::diagnostic::Edit {
    let offset = crate::position::floor_char_boundary(text, offset.min(text.len()));
    let mut start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    if start == 0 && text.starts_with('\u{feff}') {
        start = '\u{feff}'.len_utf8();
    }
    let indent: String = text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    crate::diagnostic::Edit {
        range: start..start,
        replacement: format!("{indent}# taintlint: disable={rule} -- {REASON_PLACEHOLDER}{nl}"),
    }
}

/// Removes the findings the directives silence (marking the names that did), and returns them.
pub fn apply(directives: &mut Directives<'_>, diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.retain(|d| {
        let mut silenced = false;
        for directive in &mut directives.directives {
            let covers = match &directive.scope {
                Scope::File => true,
                Scope::Nothing => false,
                Scope::Next(r) => {
                    r.contains(&d.range.start) || (r.is_empty() && r.start == d.range.start)
                }
            };
            if !covers {
                continue;
            }
            for name in &mut directive.names {
                if name.text == d.rule {
                    name.used = true;
                    silenced = true;
                }
            }
        }
        !silenced
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;
    use crate::syntax::parse;

    fn rules_found(text: &str, options: &Options) -> Vec<(&'static str, usize)> {
        let index = crate::position::LineIndex::new(text);
        crate::analyse(text, options)
            .iter()
            .map(|d| (d.rule, index.line_of(d.range.start) + 1))
            .collect()
    }

    const POD: &str = "\
kind: Pod
spec:
  tolerations:
  - operator: Exists
  - operator: Exists
";

    #[test]
    fn unsuppressed_baseline() {
        assert_eq!(
            rules_found(POD, &Options::default()),
            [
                ("tolerates-everything", 4),
                ("duplicate-toleration", 5),
                ("tolerates-everything", 5)
            ]
        );
    }

    #[test]
    fn next_node_is_one_toleration() {
        for (line, expected) in [
            // Above the first item: that item only, not the whole list.
            (
                3,
                vec![("duplicate-toleration", 6), ("tolerates-everything", 6)],
            ),
            // Above the second item.
            (
                4,
                vec![("tolerates-everything", 4), ("duplicate-toleration", 6)],
            ),
        ] {
            let mut lines: Vec<&str> = POD.lines().collect();
            lines.insert(line, "  # taintlint: disable=tolerates-everything -- agent");
            let text = lines.join("\n") + "\n";
            assert_eq!(rules_found(&text, &Options::default()), expected, "{text}");
        }
    }

    #[test]
    fn next_node_is_an_entry_or_a_document() {
        let entry = POD.replace(
            "  tolerations:",
            "  # taintlint: disable=tolerates-everything,duplicate-toleration\n  tolerations:",
        );
        assert_eq!(rules_found(&entry, &Options::default()), []);
        let doc = format!("---\n# taintlint: disable=tolerates-everything\n{POD}---\n{POD}");
        assert_eq!(
            rules_found(&doc, &Options::default()),
            [
                ("duplicate-toleration", 7),
                ("tolerates-everything", 12),
                ("duplicate-toleration", 13),
                ("tolerates-everything", 13)
            ]
        );
    }

    #[test]
    fn file_scope() {
        let text = format!("{POD}---\n# taintlint: disable-file=tolerates-everything\n{POD}");
        assert_eq!(
            rules_found(&text, &Options::default()),
            [("duplicate-toleration", 5), ("duplicate-toleration", 12)]
        );
    }

    #[test]
    fn unused_unknown_and_malformed() {
        let text = format!(
            "# taintlint: disable-file=null-value\n\
             # taintlint: disable=tolerate-everything\n\
             # taintlint: disable=zzzz-not-a-rule -- why\n\
             # taintlint: enable=all\n\
             # taintlint: disable=a b\n\
             {POD}# taintlint: disable=duplicate-toleration\n"
        );
        let found = crate::analyse(&text, &Options::default());
        let unused: Vec<&str> = found
            .iter()
            .filter(|d| d.rule == "unused-suppression")
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            unused,
            [
                "`null-value` finds nothing in this file: this suppression is unused",
                "unknown rule `tolerate-everything` in a suppression; did you mean \
                 `tolerates-everything`?",
                "unknown rule `zzzz-not-a-rule` in a suppression (`taintlint rules` lists them)",
                "this comment is not a taintlint directive: unknown taintlint directive \
                 `enable`; expected `taintlint: disable=RULE[,RULE] -- reason` or \
                 `taintlint: disable-file=RULE`",
                "this comment is not a taintlint directive: `a b` is not a rule name (' ' is \
                 not allowed; separate rules with commas and put the reason after ` -- `)",
                "no node follows this suppression, so `duplicate-toleration` silences nothing",
            ]
        );
    }

    #[test]
    fn rules_turned_off_are_not_unused() {
        let text = format!("# taintlint: disable-file=null-value\n{POD}");
        let mut options = Options::default();
        assert!(rules_found(&text, &options).contains(&("unused-suppression", 1)));
        options.set_rule_level("null-value", None).unwrap();
        assert!(!rules_found(&text, &options).contains(&("unused-suppression", 1)));
        // And unused-suppression can silence itself.
        let text = format!("# taintlint: disable-file=null-value,unused-suppression\n{POD}");
        assert!(!rules_found(&text, &Options::default()).contains(&("unused-suppression", 1)));
    }

    #[test]
    fn directive_syntax() {
        let text = "#taintlint:disable=a-b , c -- the reason -- with dashes\nk: v\n";
        let stream = parse(text);
        let d = directives(text, &stream);
        assert!(d.malformed.is_empty());
        let directive = &d.directives[0];
        let names: Vec<&str> = directive.names.iter().map(|n| n.text).collect();
        assert_eq!(names, ["a-b", "c"]);
        for n in &directive.names {
            assert_eq!(&text[n.range.clone()], n.text);
        }
        assert_eq!(directive.reason, Some("the reason -- with dashes"));
        let Scope::Next(r) = &directive.scope else {
            panic!("{:?}", directive.scope)
        };
        assert_eq!(text[r.clone()].trim_end(), "k: v");
        // Comments that do not start with `taintlint:` are not directives.
        let text = "# see taintlint: disable=x\n# TaintLint: disable=x\nk: v\n";
        let d = directives(text, &parse(text));
        assert!(d.directives.is_empty() && d.malformed.is_empty());
    }

    #[test]
    fn fix_removes_unused_names_and_comments() {
        let text = format!(
            "{}  # taintlint: disable=tolerates-everything,null-value,unknown-effect\n{}",
            &POD[..POD.find("  - operator").unwrap()],
            &POD[POD.find("  - operator").unwrap()..]
        );
        let fixed = crate::fix::fix_safe(&text, &Options::default());
        assert!(fixed
            .text
            .contains("  # taintlint: disable=tolerates-everything\n"));
        let alone = format!("{POD}# taintlint: disable=null-value -- stale\n");
        assert_eq!(crate::fix::fix_safe(&alone, &Options::default()).text, POD);
        let trailing = POD.replace(
            "kind: Pod",
            "kind: Pod  # taintlint: disable-file=null-value",
        );
        assert_eq!(
            crate::fix::fix_safe(&trailing, &Options::default()).text,
            POD
        );
    }
}
