//! Completion inside toleration and taint lists: field names, operator and effect values, taint
//! keys (well-known ones and those on the Nodes in the open files) and the values those taints
//! carry.
//!
//! The context comes from the text around the cursor, not the parse tree: while someone types,
//! the YAML is often incomplete (`effect:` with nothing after it, `- ke`), and the indentation
//! tells what the tree cannot yet.

use std::ops::Range;

use crate::k8s::model::Effect;
use crate::k8s::well_known::{Origin, CATALOG, WELL_KNOWN_TAINT_KEYS};
use crate::position::LineIndex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tolerations,
    Taints,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Context {
    /// Typing a field name; `typed` is what is typed of it so far.
    Field {
        list: ListKind,
        typed: Range<usize>,
        /// Fields the item already has.
        present: Vec<String>,
    },
    /// Typing the value of `field`.
    Value {
        list: ListKind,
        field: String,
        typed: Range<usize>,
        /// The item's `key`, if it has one (to suggest that taint's values).
        key: Option<String>,
    },
}

/// A suggestion, without protocol types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    pub label: String,
    pub insert: String,
    pub detail: String,
    pub documentation: String,
    pub kind: SuggestionKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuggestionKind {
    Field,
    Value,
}

/// A taint seen on a Node in the open files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownTaint {
    pub key: String,
    pub value: String,
    /// Where it was seen: `Node gpu-1 (nodes.yaml)`.
    pub source: String,
}

const TOLERATION_FIELDS: &[(&str, &str)] = &[
    (
        "key",
        "The taint key to match. Empty matches every key, and then operator must be Exists.",
    ),
    (
        "operator",
        "`Equal` (the default when omitted): the value must match; `Exists`: any value.",
    ),
    (
        "value",
        "The taint value to match with `Equal`; must be empty with `Exists`.",
    ),
    (
        "effect",
        "`NoSchedule`, `PreferNoSchedule` or `NoExecute`; empty matches all effects.",
    ),
    (
        "tolerationSeconds",
        "With effect `NoExecute`: how long the pod stays bound after the taint appears. \
         Omitted: forever.",
    ),
];

const TAINT_FIELDS: &[(&str, &str)] = &[
    (
        "key",
        "The taint key: a qualified name such as `example.com/pool`. Required.",
    ),
    ("value", "The taint value: a label value, may be empty."),
    (
        "effect",
        "`NoSchedule`, `PreferNoSchedule` or `NoExecute`. Required.",
    ),
    (
        "timeAdded",
        "When a NoExecute taint was added; the node lifecycle controller sets it.",
    ),
];

/// What is being typed at `offset`, if it is inside a toleration or taint list. `index` is the
/// text's line index (the document store keeps one).
pub fn context(text: &str, index: &LineIndex, offset: usize) -> Option<Context> {
    let offset = crate::position::floor_char_boundary(text, offset);
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let prefix = &text[line_start..offset];
    let lines = Lines { text, index };
    let line_no = lines.line_of(line_start);

    // In a flow mapping (`- {key: a, eff`), the segment after the last `{` or `,`.
    let (segment_start, list, present) = match last_flow_separator(prefix) {
        Some(sep) => {
            let open = prefix[..=sep].rfind('{')?;
            let before = &prefix[..open];
            let list = if let Some(kind) = flow_list_kind(before) {
                kind
            } else if before.trim() == "-" || before.trim().is_empty() {
                block_list_kind(&lines, line_no, indent(before))?
            } else {
                return None;
            };
            let end = text[line_start + open..]
                .find(['}', '\n', '\r'])
                .map_or(text.len(), |i| line_start + open + i);
            let present = keys_in(&text[line_start + open + 1..end]);
            (line_start + sep + 1, list, present)
        }
        None => {
            let item = item_lines(&lines, line_no, prefix)?;
            let list = block_list_kind(&lines, item.dash_line, item.dash_col)?;
            let present = item
                .lines
                .iter()
                .flat_map(|&l| keys_in(strip_dash(lines.get(l))))
                .collect();
            let content = strip_dash(prefix);
            (offset - content.len(), list, present)
        }
    };
    let segment = &text[segment_start..offset];
    let lead = segment.len() - segment.trim_start().len();
    let segment_start = segment_start + lead;
    let segment = &text[segment_start..offset];

    if segment.bytes().all(|b| b.is_ascii_alphabetic()) {
        let present = present.into_iter().filter(|k| k != segment).collect();
        return Some(Context::Field {
            list,
            typed: segment_start..offset,
            present,
        });
    }
    let colon = segment.find(':')?;
    let field = &segment[..colon];
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let after = &segment[colon + 1..];
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let value = after.trim_start();
    let mut value_start = offset - value.len();
    let value = match value.strip_prefix(['"', '\'']) {
        Some(rest) => {
            value_start += 1;
            rest
        }
        None => value,
    };
    if value.contains(['"', '\'', '#', '{', '[', ',', '}']) {
        return None;
    }
    let key = if field == "key" {
        None
    } else {
        present_key(text, line_start, prefix, &lines, line_no)
    };
    Some(Context::Value {
        list,
        field: field.to_string(),
        typed: value_start..offset,
        key,
    })
}

/// The suggestions for a context.
pub fn suggestions(
    context: &Context,
    comparison_operators: bool,
    known: &[KnownTaint],
) -> Vec<Suggestion> {
    match context {
        Context::Field { list, present, .. } => {
            let fields = match list {
                ListKind::Tolerations => TOLERATION_FIELDS,
                ListKind::Taints => TAINT_FIELDS,
            };
            fields
                .iter()
                .filter(|(name, _)| !present.iter().any(|p| p == name))
                .map(|(name, doc)| Suggestion {
                    label: name.to_string(),
                    insert: format!("{name}: "),
                    detail: match list {
                        ListKind::Tolerations => "toleration field".into(),
                        ListKind::Taints => "taint field".into(),
                    },
                    documentation: doc.to_string(),
                    kind: SuggestionKind::Field,
                })
                .collect()
        }
        Context::Value {
            list, field, key, ..
        } => match (list, field.as_str()) {
            (ListKind::Tolerations, "operator") => {
                let mut ops = vec![
                    (
                        "Equal",
                        "The taint's value must equal `value` (the default).",
                    ),
                    ("Exists", "Any value; `value` must be empty."),
                ];
                if comparison_operators {
                    ops.push((
                        "Lt",
                        "The taint's value, an integer, is less than `value` \
                         (TaintTolerationComparisonOperators).",
                    ));
                    ops.push((
                        "Gt",
                        "The taint's value, an integer, is greater than `value` \
                         (TaintTolerationComparisonOperators).",
                    ));
                }
                ops.into_iter()
                    .map(|(op, doc)| value(op, "operator", doc))
                    .collect()
            }
            (_, "effect") => Effect::ALL
                .into_iter()
                .map(|e| value(e.as_str(), "effect", &format!("{}.", e.meaning())))
                .collect(),
            (_, "key") => {
                let mut out: Vec<Suggestion> = Vec::new();
                for k in WELL_KNOWN_TAINT_KEYS {
                    out.push(value(
                        k,
                        "well-known taint key",
                        "Set by Kubernetes itself.",
                    ));
                }
                for t in known {
                    if !out.iter().any(|s| s.label == t.key) {
                        out.push(value(&t.key, "taint key", &format!("On {}.", t.source)));
                    }
                }
                // Then the keys of the taint catalog that others set (cloud providers,
                // accelerators, autoscalers, add-ons).
                for t in CATALOG.iter().filter(|t| t.origin != Origin::Kubernetes) {
                    if !out.iter().any(|s| s.label == t.key) {
                        out.push(value(t.key, "known taint key", &format!("{}.", t.meaning)));
                    }
                }
                out
            }
            (_, "value") => {
                let mut out: Vec<Suggestion> = Vec::new();
                for t in known {
                    if Some(&t.key) == key.as_ref()
                        && !t.value.is_empty()
                        && !out.iter().any(|s| s.label == t.value)
                    {
                        out.push(value(
                            &t.value,
                            &format!("value of {}", t.key),
                            &format!("On {}.", t.source),
                        ));
                    }
                }
                out
            }
            _ => Vec::new(),
        },
    }
}

fn value(label: &str, detail: &str, doc: &str) -> Suggestion {
    Suggestion {
        label: label.to_string(),
        insert: label.to_string(),
        detail: detail.to_string(),
        documentation: doc.to_string(),
        kind: SuggestionKind::Value,
    }
}

/// The lines of a text, with `\n`, `\r\n` and `\r` breaks.
struct Lines<'a> {
    text: &'a str,
    index: &'a LineIndex,
}

impl<'a> Lines<'a> {
    fn line_of(&self, offset: usize) -> usize {
        self.index.line_of(offset)
    }

    /// A line's content, without its break.
    fn get(&self, line: usize) -> &'a str {
        let Some(start) = self.index.line_start(line) else {
            return "";
        };
        let end = self.index.line_start(line + 1).unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// A line's content after its indentation and any `- ` sequence indicators.
fn strip_dash(line: &str) -> &str {
    let mut s = line.trim_start();
    while let Some(rest) = s.strip_prefix('-') {
        if rest.is_empty() || rest.starts_with([' ', '\t']) {
            s = rest.trim_start();
        } else {
            break;
        }
    }
    s
}

fn is_dash_line(line: &str) -> bool {
    let t = line.trim_start();
    t == "-" || t.starts_with("- ") || t.starts_with("-\t")
}

struct ItemLines {
    dash_line: usize,
    dash_col: usize,
    lines: Vec<usize>,
}

/// The block sequence item the cursor's line belongs to.
fn item_lines(lines: &Lines<'_>, line_no: usize, prefix: &str) -> Option<ItemLines> {
    let (dash_line, dash_col) = if is_dash_line(prefix) {
        (line_no, indent(prefix))
    } else {
        let own = indent(prefix);
        let mut l = line_no;
        loop {
            if l == 0 {
                return None;
            }
            l -= 1;
            let line = lines.get(l);
            if is_blank_or_comment(line) {
                continue;
            }
            if indent(line) < own {
                if !is_dash_line(line) {
                    return None;
                }
                let content = indent(line) + (line.trim_start().len() - strip_dash(line).len());
                if content != own {
                    return None;
                }
                break (l, indent(line));
            }
        }
    };
    // The item runs until a line indented no deeper than its dash.
    let mut item = vec![dash_line];
    let mut l = dash_line + 1;
    while l < lines.index.line_count() {
        let line = lines.get(l);
        if !is_blank_or_comment(line) {
            if indent(line) <= dash_col {
                break;
            }
            item.push(l);
        }
        l += 1;
    }
    Some(ItemLines {
        dash_line,
        dash_col,
        lines: item,
    })
}

/// Which list a block sequence item whose `-` is at `dash_col` on `dash_line` belongs to.
fn block_list_kind(lines: &Lines<'_>, dash_line: usize, dash_col: usize) -> Option<ListKind> {
    let mut l = dash_line;
    while l > 0 {
        l -= 1;
        let line = lines.get(l);
        if is_blank_or_comment(line) {
            continue;
        }
        let i = indent(line);
        if i < dash_col || (i == dash_col && !is_dash_line(line)) {
            return list_key(strip_dash(line));
        }
    }
    None
}

/// `tolerations:` or `taints:` (a comment may follow).
fn list_key(content: &str) -> Option<ListKind> {
    let content = match content.find(" #") {
        Some(i) => &content[..i],
        None => content,
    };
    match content.trim_end() {
        "tolerations:" => Some(ListKind::Tolerations),
        "taints:" => Some(ListKind::Taints),
        _ => None,
    }
}

/// A flow list opened on this line: `tolerations: [` before the item's `{`.
fn flow_list_kind(before: &str) -> Option<ListKind> {
    let bracket = before.rfind('[')?;
    let key = before[..bracket].trim_end().strip_suffix(':')?;
    let name = key.rsplit([' ', '\t', '{', ',', '-']).next()?;
    list_key(&format!("{name}:"))
}

/// The last `{` or `,` outside quotes.
fn last_flow_separator(prefix: &str) -> Option<usize> {
    let mut quote = None;
    let mut last = None;
    for (i, c) in prefix.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '{' | ',') => last = Some(i),
            (None, '#') if i > 0 && prefix[..i].ends_with(' ') => break,
            _ => {}
        }
    }
    // A `,` only counts inside a flow mapping.
    last.filter(|&i| prefix[..=i].contains('{'))
}

/// Field names in a piece of an item: `key: a` or `{key: a, effect: b`.
fn keys_in(text: &str) -> Vec<String> {
    text.split([',', '{'])
        .filter_map(|part| {
            let part = strip_dash(part.trim_start());
            let (name, _) = part.split_once(':')?;
            (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphabetic()))
                .then(|| name.to_string())
        })
        .collect()
}

/// The `key` value of the item around the cursor.
fn present_key(
    text: &str,
    line_start: usize,
    prefix: &str,
    lines: &Lines<'_>,
    line_no: usize,
) -> Option<String> {
    let candidates: Vec<&str> = match last_flow_separator(prefix) {
        Some(sep) => {
            let open = prefix[..=sep].rfind('{')?;
            let end = text[line_start + open..]
                .find(['}', '\n', '\r'])
                .map_or(text.len(), |i| line_start + open + i);
            text[line_start + open + 1..end].split(',').collect()
        }
        None => {
            let item = item_lines(lines, line_no, prefix)?;
            item.lines.iter().map(|&l| lines.get(l)).collect()
        }
    };
    candidates.into_iter().find_map(|part| {
        let rest = strip_dash(part.trim_start()).strip_prefix("key:")?;
        let v = rest.trim();
        let v = v.split(" #").next().unwrap_or(v).trim();
        let v = v.trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| v.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The context at the `|` in `text`.
    fn at(text: &str) -> Option<Context> {
        let offset = text.find('|').unwrap();
        let text = text.replacen('|', "", 1);
        context(&text, &LineIndex::new(&text), offset)
    }

    #[test]
    fn field_names_in_block_items() {
        let c = at("spec:\n  tolerations:\n  - key: a\n    ope|\n");
        let Some(Context::Field {
            list,
            typed,
            present,
        }) = c
        else {
            panic!("{c:?}")
        };
        assert_eq!(list, ListKind::Tolerations);
        assert_eq!(typed.len(), 3);
        assert_eq!(present, ["key"]);
        // A fresh item.
        assert!(matches!(
            at("spec:\n  taints:\n  - |\n"),
            Some(Context::Field {
                list: ListKind::Taints,
                ..
            })
        ));
        // Outside any list: nothing.
        assert_eq!(at("spec:\n  containers:\n  - na|\n"), None);
        assert_eq!(at("metadata:\n  na|\n"), None);
    }

    #[test]
    fn values_in_block_and_flow_items() {
        let text = "tolerations:\n- key: dedicated\n  value: |\n";
        let offset = text.find('|').unwrap();
        assert_eq!(
            at(text),
            Some(Context::Value {
                list: ListKind::Tolerations,
                field: "value".into(),
                typed: offset..offset,
                key: Some("dedicated".into()),
            })
        );
        let c = at("      tolerations:\n      - {key: a, effect: No|}\n");
        let Some(Context::Value { field, typed, .. }) = c else {
            panic!("{c:?}")
        };
        assert_eq!(field, "effect");
        assert_eq!(typed.len(), 2);
        let c = at("tolerations: [{key: x, operator: \"Ex|\"}]\n");
        assert!(
            matches!(&c, Some(Context::Value { field, typed, .. }) if field == "operator" && typed.len() == 2),
            "{c:?}"
        );
    }

    #[test]
    fn suggestions_follow_the_context() {
        let c = at("tolerations:\n- operator: |\n").unwrap();
        let labels: Vec<String> = suggestions(&c, false, &[])
            .into_iter()
            .map(|s| s.label)
            .collect();
        assert_eq!(labels, ["Equal", "Exists"]);
        let labels: Vec<String> = suggestions(&c, true, &[])
            .into_iter()
            .map(|s| s.label)
            .collect();
        assert_eq!(labels, ["Equal", "Exists", "Lt", "Gt"]);
        let known = [KnownTaint {
            key: "nvidia.com/gpu".into(),
            value: "present".into(),
            source: "Node gpu-1 (nodes.yaml)".into(),
        }];
        let c = at("tolerations:\n- key: nvidia.com/gpu\n  value: |\n").unwrap();
        let s = suggestions(&c, false, &known);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].label, "present");
        let c = at("tolerations:\n- key: |\n").unwrap();
        let s = suggestions(&c, false, &known);
        assert!(s.iter().any(|s| s.label == "node.kubernetes.io/not-ready"));
        assert!(s.iter().any(|s| s.label == "nvidia.com/gpu"));
        let c = at("tolerations:\n- key: a\n  effect: NoSchedule\n  |\n").unwrap();
        let labels: Vec<String> = suggestions(&c, false, &[])
            .into_iter()
            .map(|s| s.label)
            .collect();
        assert_eq!(labels, ["operator", "value", "tolerationSeconds"]);
    }
}
