//! Text edits that fixes are made of: replace a scalar, rename a key, remove or add a mapping
//! entry. Each touches only the bytes it must, in the file's own style (quoting, indentation,
//! flow or block, line endings).

use crate::diagnostic::Edit;
use crate::syntax::{Document, NodeId, NodeKind, Style};

/// Replaces a scalar's value, keeping its quoting style. An empty value (`operator:` with
/// nothing after it) has an empty span before its key's colon: the value goes after the colon,
/// with a space before it.
pub fn replace_scalar(text: &str, doc: &Document<'_>, node: NodeId, value: &str) -> Edit {
    let n = doc.node(node);
    if n.span.is_empty() {
        let end = n.span.end.min(text.len());
        let after = end + (text[end..].len() - text[end..].trim_start_matches([' ', '\t']).len());
        if text[after..].starts_with(':') {
            return Edit {
                range: after + 1..after + 1,
                replacement: format!(" {value}"),
            };
        }
        // A key written without its colon (`{key: "", operator}`): the value comes with one;
        // right after a colon, with the blank a plain scalar needs.
        let before = text[..end].trim_end_matches([' ', '\t']);
        let replacement = match before.ends_with(':') {
            false => format!(": {value}"),
            true if before.len() == end => format!(" {value}"),
            true => value.to_string(),
        };
        return Edit {
            range: end..end,
            replacement,
        };
    }
    let replacement = match &n.kind {
        NodeKind::Scalar {
            style: Style::DoubleQuoted,
            ..
        } => format!("\"{value}\""),
        NodeKind::Scalar {
            style: Style::SingleQuoted,
            ..
        } => format!("'{value}'"),
        _ => value.to_string(),
    };
    Edit {
        range: n.span.clone(),
        replacement,
    }
}

/// Whether a string needs quotes to be read back as that string (YAML 1.1 as Kubernetes
/// decodes it: `yes`, `1234` and `~` are not strings there), or to stay one plain scalar.
pub fn needs_quotes(value: &str) -> bool {
    use crate::k8s::decode::{resolve_scalar, Decoded};
    value.is_empty()
        || !matches!(resolve_scalar(value, Style::Plain, None), Decoded::Str(_))
        || value.contains([
            ':', '#', ',', '[', ']', '{', '}', '"', '\'', '\n', '\r', '\t',
        ])
        || value.starts_with(['-', '?', '!', '&', '*', '|', '>', '%', '@', '`', ' ', '.'])
        || value.ends_with(' ')
}

/// A string written in a scalar style, quoted as that style quotes (`Plain` quotes with double
/// quotes when the string needs it). `None` for block scalar styles.
pub fn string_in_style(value: &str, style: Style) -> Option<String> {
    Some(match style {
        Style::Plain if !needs_quotes(value) => value.to_string(),
        Style::Plain | Style::DoubleQuoted => crate::rules::go_quote(value),
        Style::SingleQuoted => format!("'{}'", value.replace('\'', "''")),
        Style::Literal | Style::Folded => return None,
    })
}

/// Replaces a scalar with a string, in the scalar's own quoting style (a plain scalar is
/// quoted when the string would not read back as a string). `None` for a block scalar.
pub fn replace_scalar_as_string(
    text: &str,
    doc: &Document<'_>,
    node: NodeId,
    value: &str,
) -> Option<Edit> {
    let n = doc.node(node);
    let NodeKind::Scalar { style, .. } = &n.kind else {
        return None;
    };
    text.get(n.span.clone())?;
    Some(Edit {
        range: n.span.clone(),
        replacement: string_in_style(value, *style)?,
    })
}

/// Puts a plain scalar in double quotes, so it decodes as a string.
pub fn quote_scalar(text: &str, doc: &Document<'_>, node: NodeId) -> Option<Edit> {
    let n = doc.node(node);
    let raw = text.get(n.span.clone())?;
    if raw.contains(['"', '\\', '\n', '\r']) {
        return None;
    }
    Some(Edit {
        range: n.span.clone(),
        replacement: format!("\"{raw}\""),
    })
}

/// Replaces the text of a mapping key.
pub fn rename_key(text: &str, doc: &Document<'_>, key: NodeId, name: &str) -> Edit {
    replace_scalar(text, doc, key, name)
}

fn entry_index(doc: &Document<'_>, mapping: NodeId, key: NodeId) -> Option<usize> {
    let NodeKind::Mapping { entries, .. } = &doc.node(mapping).kind else {
        return None;
    };
    entries.iter().position(|&(k, _)| k == key)
}

fn is_flow(doc: &Document<'_>, mapping: NodeId) -> bool {
    matches!(doc.node(mapping).kind, NodeKind::Mapping { flow: true, .. })
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

/// The offset just past the line break ending the line that contains `offset` (or the text's
/// end). An offset already at a line's start counts as the end of the previous line.
fn after_line_break(text: &str, offset: usize) -> usize {
    if offset > 0 && text.as_bytes()[offset - 1] == b'\n' {
        return offset;
    }
    match text[offset..].find('\n') {
        Some(i) => offset + i + 1,
        None => text.len(),
    }
}

fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// Removes one entry (`key: value`) from a mapping. `None` when the key is not the mapping's
/// own (it came through a merge key).
pub fn remove_entry(text: &str, doc: &Document<'_>, mapping: NodeId, key: NodeId) -> Option<Edit> {
    let i = entry_index(doc, mapping, key)?;
    let NodeKind::Mapping { entries, .. } = &doc.node(mapping).kind else {
        return None;
    };
    let (k, v) = entries[i];
    let key_span = doc.node(k).span.clone();
    let value_end = doc.node(v).span.end.max(key_span.end);
    let next = entries.get(i + 1).map(|&(nk, _)| doc.node(nk).span.start);
    if is_flow(doc, mapping) {
        let range = if i > 0 {
            doc.node(entries[i - 1].1).span.end..value_end
        } else if let Some(next) = next {
            key_span.start..next
        } else {
            key_span.start..value_end
        };
        return Some(Edit {
            range,
            replacement: String::new(),
        });
    }
    let start = line_start(text, key_span.start);
    let only_indent = text[start..key_span.start].bytes().all(|c| c == b' ');
    if only_indent {
        return Some(Edit {
            range: start..after_line_break(text, value_end),
            replacement: String::new(),
        });
    }
    // The first entry after a sequence dash (`- key: x`): the next entry moves up in its place.
    match next {
        Some(next) => Some(Edit {
            range: key_span.start..next,
            replacement: String::new(),
        }),
        None => Some(Edit {
            range: key_span.start..value_end,
            replacement: "{}".to_string(),
        }),
    }
}

/// Removes one item from a sequence: its whole line(s) in a block sequence (`- {key: a}` or
/// `- key: a` and the lines of its mapping), the item and one comma in a flow sequence. `None`
/// when the item is not written on lines of its own after a lone dash (`- - a`, a comment
/// sharing its last line), or is the only item of a flow sequence.
pub fn remove_item(text: &str, doc: &Document<'_>, seq: NodeId, item: NodeId) -> Option<Edit> {
    let NodeKind::Sequence { items, flow } = &doc.node(seq).kind else {
        return None;
    };
    let i = items.iter().position(|&n| n == item)?;
    let span = doc.node(item).span.clone();
    if *flow {
        let range = if i > 0 {
            doc.node(items[i - 1]).span.end..span.end
        } else {
            span.start..doc.node(*items.get(1)?).span.start
        };
        return Some(Edit {
            range,
            replacement: String::new(),
        });
    }
    let start = line_start(text, span.start);
    let before = text[start..span.start].trim_start_matches(' ');
    if before.trim_end() != "-" {
        return None;
    }
    let end = after_line_break(text, span.end);
    let rest = text[span.end..end].trim();
    if !rest.is_empty() {
        return None;
    }
    Some(Edit {
        range: start..end,
        replacement: String::new(),
    })
}

/// Adds `name: value` as the mapping's last entry. A value that starts with a line break (a
/// block collection, its lines already indented) follows the colon directly. `None` when the
/// mapping has a key that is a misspelling of `name` (`Operator`, `efect`): that key's own fix
/// renames it, and the two fixes together would write the field twice.
pub fn add_entry(
    text: &str,
    doc: &Document<'_>,
    mapping: NodeId,
    name: &str,
    value: &str,
) -> Option<Edit> {
    let NodeKind::Mapping { entries, flow } = &doc.node(mapping).kind else {
        return None;
    };
    let misspelt = entries.iter().any(|&(k, _)| {
        doc.scalar(k).is_some_and(|(key, _)| {
            key != name && crate::rules::unknown_field::closest(key, &[name]).is_some()
        })
    });
    // A key that is no scalar (an explicit `? key: value`, whose span the parser may stretch to
    // the next token): where the mapping ends cannot be told, and no entry is added.
    if misspelt || entries.iter().any(|&(k, _)| doc.scalar(k).is_none()) {
        return None;
    }
    let &(first_key, _) = entries.first()?;
    let &(_, last_value) = entries.last()?;
    let last_end = doc.node(last_value).span.end;
    if *flow {
        // An empty value (`{effect:}`, `{effect}`) has an empty span before its key's colon,
        // if there is one: the new entry goes after that colon, not between the key and it.
        let at = if doc.node(last_value).span.is_empty() {
            let blanks = text[last_end..].len() - text[last_end..].trim_start().len();
            let after = last_end + blanks;
            if text[after..].starts_with(':') {
                after + 1
            } else {
                last_end
            }
        } else {
            last_end
        };
        return Some(Edit {
            range: at..at,
            replacement: format!(", {name}: {value}"),
        });
    }
    let key_start = doc.node(first_key).span.start;
    let ls = line_start(text, key_start);
    let indent = text[ls..key_start].chars().count();
    let at = after_line_break(text, last_end);
    let nl = newline(text);
    let lead = if at == text.len() && !text.ends_with('\n') {
        nl
    } else {
        ""
    };
    let colon = if value.starts_with(['\n', '\r']) {
        ":"
    } else {
        ": "
    };
    Some(Edit {
        range: at..at,
        replacement: format!("{lead}{}{name}{colon}{value}{nl}", " ".repeat(indent)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Applicability, Fix};
    use crate::syntax::parse;

    fn apply(text: &str, edit: Edit) -> String {
        Fix {
            title: String::new(),
            applicability: Applicability::Safe,
            edits: vec![edit],
        }
        .apply(text)
    }

    /// What `f` makes of the first toleration mapping of a `t:` list at the root.
    fn on_item<R>(text: &str, f: impl Fn(&Document<'_>, NodeId) -> R) -> R {
        let stream = parse(text);
        let doc = &stream.documents[0];
        let (_, list) = doc.get(doc.root.unwrap(), "t").unwrap();
        let item = doc.sequence(list).unwrap()[0];
        f(doc, item)
    }

    /// `text` with the edit `f` makes of its first toleration mapping applied.
    fn with_item(text: &str, f: impl Fn(&Document<'_>, NodeId) -> Edit) -> String {
        apply(text, on_item(text, f))
    }

    fn key_of(doc: &Document<'_>, item: NodeId, name: &str) -> NodeId {
        doc.get(item, name).unwrap().0
    }

    #[test]
    fn remove_block_entries() {
        let text = "t:\n- key: a\n  value: \"\"\n  effect: NoSchedule\n";
        let out = with_item(text, |d, i| {
            remove_entry(text, d, i, key_of(d, i, "value")).unwrap()
        });
        assert_eq!(out, "t:\n- key: a\n  effect: NoSchedule\n");
        let out = with_item(text, |d, i| {
            remove_entry(text, d, i, key_of(d, i, "key")).unwrap()
        });
        assert_eq!(out, "t:\n- value: \"\"\n  effect: NoSchedule\n");
        let crlf = "t:\r\n- key: a\r\n  value: x # note\r\n  effect: E\r\n";
        let out = with_item(crlf, |d, i| {
            remove_entry(crlf, d, i, key_of(d, i, "value")).unwrap()
        });
        assert_eq!(out, "t:\r\n- key: a\r\n  effect: E\r\n");
    }

    #[test]
    fn remove_flow_entries() {
        let text = "t: [{key: a, value: \"\", effect: NoSchedule}]\n";
        let out = with_item(text, |d, i| {
            remove_entry(text, d, i, key_of(d, i, "value")).unwrap()
        });
        assert_eq!(out, "t: [{key: a, effect: NoSchedule}]\n");
        let out = with_item(text, |d, i| {
            remove_entry(text, d, i, key_of(d, i, "key")).unwrap()
        });
        assert_eq!(out, "t: [{value: \"\", effect: NoSchedule}]\n");
    }

    #[test]
    fn remove_items() {
        let seq = |text: &'static str, index: usize| {
            let stream = parse(text);
            let doc = &stream.documents[0];
            let (_, list) = doc.get(doc.root.unwrap(), "t").unwrap();
            let item = doc.sequence(list).unwrap()[index];
            remove_item(text, doc, list, item).map(|e| apply(text, e))
        };
        let block = "t:\n- {key: a, effect: E}\n- key: b\n  effect: E\n- key: c\n";
        assert_eq!(
            seq(block, 0).unwrap(),
            "t:\n- key: b\n  effect: E\n- key: c\n"
        );
        assert_eq!(
            seq(block, 1).unwrap(),
            "t:\n- {key: a, effect: E}\n- key: c\n"
        );
        let crlf = "t:\r\n  - key: a\r\n  - key: b\r\n";
        assert_eq!(seq(crlf, 1).unwrap(), "t:\r\n  - key: a\r\n");
        let flow = "t: [{key: a}, {key: b}, {key: c}]\n";
        assert_eq!(seq(flow, 0).unwrap(), "t: [{key: b}, {key: c}]\n");
        assert_eq!(seq(flow, 2).unwrap(), "t: [{key: a}, {key: b}]\n");
        assert_eq!(seq("t: [{key: a}]\n", 0), None);
        // A comment after the item would go with it: not removed.
        assert_eq!(seq("t:\n- {key: a} # keep\n- {key: b}\n", 0), None);
    }

    #[test]
    fn add_entries() {
        // The text with `key: value` added to its first toleration.
        let with_entry = |text: &str, key: &str, value: &str| {
            with_item(text, |d, i| add_entry(text, d, i, key, value).unwrap())
        };
        let text = "t:\n- key: a\n  tolerationSeconds: 5\n";
        let out = with_entry(text, "effect", "NoExecute");
        assert_eq!(
            out,
            "t:\n- key: a\n  tolerationSeconds: 5\n  effect: NoExecute\n"
        );
        let eof = "t:\n  - key: a";
        let out = with_entry(eof, "effect", "NoExecute");
        assert_eq!(out, "t:\n  - key: a\n    effect: NoExecute\n");
        // A misspelt `Operator` is renamed by its own fix: adding `operator` too would write
        // the field twice.
        let typo = "t:\n- key: a\n  Operator: Exists\n";
        on_item(typo, |doc, item| {
            assert_eq!(add_entry(typo, doc, item, "operator", "Exists"), None);
            assert!(add_entry(typo, doc, item, "effect", "NoExecute").is_some());
        });
        // An item whose last value is empty ends with its key's line, not at the next item.
        let empty = "t:\n- key: a\n  value:\n- key: b\n  operator: Exists\n";
        let out = with_entry(empty, "operator", "Exists");
        assert_eq!(
            out,
            "t:\n- key: a\n  value:\n  operator: Exists\n- key: b\n  operator: Exists\n"
        );
        // An explicit key that is no scalar: where the item ends cannot be told.
        let explicit = "t:\n- key: a\n  ? operator: Exists\n- key: b\n  operator: Exists\n";
        let added = on_item(explicit, |doc, item| {
            add_entry(explicit, doc, item, "operator", "Exists")
        });
        assert_eq!(added, None);
        let flow = "t: [{key: a}]\n";
        let out = with_entry(flow, "effect", "NoExecute");
        assert_eq!(out, "t: [{key: a, effect: NoExecute}]\n");
        for (flow, fixed) in [
            (
                "t: [{key: a, effect:}]\n",
                "t: [{key: a, effect:, operator: Exists}]\n",
            ),
            ("t: [{effect :}]\n", "t: [{effect :, operator: Exists}]\n"),
            ("t: [{effect}]\n", "t: [{effect, operator: Exists}]\n"),
        ] {
            let out = with_entry(flow, "operator", "Exists");
            assert_eq!(out, fixed, "{flow}");
        }
    }

    /// A value that is not written: after its key's colon, or with one where the key has none.
    #[test]
    fn replace_an_empty_value() {
        for (text, fixed) in [
            (
                "t: [{key: a, operator}]\n",
                "t: [{key: a, operator: Exists}]\n",
            ),
            (
                "t: [{key: a, operator:}]\n",
                "t: [{key: a, operator: Exists}]\n",
            ),
            (
                "t: [{key: a, operator: }]\n",
                "t: [{key: a, operator: Exists }]\n",
            ),
            (
                "t:\n- key: a\n  operator:\n",
                "t:\n- key: a\n  operator: Exists\n",
            ),
        ] {
            let out = with_item(text, |d, i| {
                let (_, v) = d.get(i, "operator").unwrap();
                replace_scalar(text, d, v, "Exists")
            });
            assert_eq!(out, fixed, "{text}");
        }
    }

    #[test]
    fn replace_keeps_quotes() {
        let text = "t:\n- operator: 'exists'\n";
        let out = with_item(text, |d, i| {
            let (_, v) = d.get(i, "operator").unwrap();
            replace_scalar(text, d, v, "Exists")
        });
        assert_eq!(out, "t:\n- operator: 'Exists'\n");
        // An empty value: after the colon, not between the key and it.
        for (empty, set) in [
            ("t:\n- operator:\n", "t:\n- operator: Exists\n"),
            (
                "t:\n- operator:\n# a comment\nn: x\n",
                "t:\n- operator: Exists\n# a comment\nn: x\n",
            ),
            ("t:\n- operator :\n", "t:\n- operator : Exists\n"),
            ("t: [{operator:}]\n", "t: [{operator: Exists}]\n"),
        ] {
            let out = with_item(empty, |d, i| {
                let (_, v) = d.get(i, "operator").unwrap();
                replace_scalar(empty, d, v, "Exists")
            });
            assert_eq!(out, set, "{empty}");
        }
        let text = "t:\n- value: 1234\n";
        let out = with_item(text, |d, i| {
            let (_, v) = d.get(i, "value").unwrap();
            quote_scalar(text, d, v).unwrap()
        });
        assert_eq!(out, "t:\n- value: \"1234\"\n");
    }
}
