//! Renaming a taint key: whether a new key is valid, and where an inventory or pool file
//! writes a taint's key. Pure: text in, byte ranges out.
//!
//! Workload files are read structurally (the key ranges [`crate::lsp::facts`] finds). An
//! inventory file may be a `kubectl get nodes -o json` of thousands of nodes, a pool file in
//! `kubectl taint` syntax, or Terraform HCL, and its taints are grouped into pools (one place
//! per pool, not per node); so there the key is found in the text, where it is written as a
//! taint's key: after a `key:` / `"key":` / `key =` field, or at the start of a
//! `key=value:Effect` / `key:Effect` string. Label and annotation keys (`key: ""`, `"key": ""`)
//! and comments are left alone.

use std::ops::Range;

use crate::k8s::names;

/// Why a new taint key cannot be used, in words for the editor; `None` when it can. The key
/// must be a qualified name, as the API server checks a taint's and a toleration's key
/// (`IsQualifiedName` in k8s.io/apimachinery/pkg/util/validation/validation.go, called from
/// `validateTaints` and `ValidateTolerations` in pkg/apis/core/validation/validation.go).
pub fn new_key_problem(key: &str) -> Option<String> {
    names::key_problem(key).map(|problem| {
        format!(
            "`{key}` is not a valid taint key: it {problem} (a key is a qualified name: an \
             optional DNS subdomain prefix and `/`, then a name of at most 63 characters)"
        )
    })
}

/// The effects a `key:Effect` or `key=value:Effect` string ends with.
const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// Whether a character can be part of a taint key.
fn key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '/')
}

/// The places `text` (an inventory or pool file) writes `key` as a taint's (or a
/// toleration's) key, in order.
pub fn inventory_keys(text: &str, key: &str) -> Vec<Range<usize>> {
    if key.is_empty() {
        return Vec::new();
    }
    text.match_indices(key)
        .map(|(at, _)| at..at + key.len())
        .filter(|r| {
            let before = &text[..r.start];
            let after = &text[r.end..];
            !before.ends_with(key_char)
                && !after.starts_with(key_char)
                && !in_comment(line_before(before))
                && (after_key_field(before) || compact_taint(before, after))
        })
        .collect()
}

/// The taint key written at `offset` of an inventory or pool file (the word under the cursor,
/// when [`inventory_keys`] finds it there), with its range.
pub fn inventory_key_at(text: &str, offset: usize) -> Option<(Range<usize>, &str)> {
    let offset = offset.min(text.len());
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| key_char(c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = offset
        + text[offset..]
            .find(|c: char| !key_char(c))
            .unwrap_or(text.len() - offset);
    let key = &text[start..end];
    inventory_keys(text, key)
        .into_iter()
        .find(|r| r.start == start)
        .map(|r| (r, key))
}

fn line_before(before: &str) -> &str {
    before.rfind('\n').map_or(before, |i| &before[i + 1..])
}

/// Whether the end of a line's text is inside a `#` or `//` comment.
fn in_comment(line: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for c in line.chars() {
        match quote {
            Some(q) if c == q && previous != '\\' => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && (previous.is_whitespace() || previous == ',') => return true,
            None if c == '/' && previous == '/' => return true,
            None => {}
        }
        previous = c;
    }
    // A `#` at the very start of the line.
    line.trim_start().starts_with('#')
}

/// `key: X`, `"key": "X"`, `key = "X"`, `{key: X`: the text before X ends with a `key` field.
fn after_key_field(before: &str) -> bool {
    let rest = before.trim_end_matches([' ', '\t']);
    let rest = rest.strip_suffix(['"', '\'']).unwrap_or(rest);
    let rest = rest.trim_end_matches([' ', '\t']);
    let Some(rest) = rest.strip_suffix([':', '=']) else {
        return false;
    };
    let rest = rest.trim_end_matches([' ', '\t']);
    let rest = rest.strip_suffix(['"', '\'']).unwrap_or(rest);
    let Some(rest) = rest.strip_suffix("key") else {
        return false;
    };
    !rest.ends_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `key=value:Effect` or `key:Effect` starting a string (quoted, or a list item).
fn compact_taint(before: &str, after: &str) -> bool {
    let starts = before.is_empty() || before.ends_with(['"', '\'', '[', ',', ' ', '\t', '\n']);
    if !starts {
        return false;
    }
    let effect = if let Some(rest) = after.strip_prefix('=') {
        match rest.find(|c: char| {
            c == ':' || c.is_whitespace() || matches!(c, '"' | '\'' | ',' | ']' | '}')
        }) {
            Some(i) if rest[i..].starts_with(':') => &rest[i + 1..],
            _ => return false,
        }
    } else if let Some(rest) = after.strip_prefix(':') {
        rest
    } else {
        return false;
    };
    EFFECTS.iter().any(|e| {
        effect
            .strip_prefix(e)
            .is_some_and(|tail| !tail.starts_with(|c: char| c.is_alphanumeric()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found<'t>(text: &'t str, key: &str) -> Vec<&'t str> {
        inventory_keys(text, key)
            .into_iter()
            .map(|r| {
                let line_start = text[..r.start].rfind('\n').map_or(0, |i| i + 1);
                let line_end = text[r.end..].find('\n').map_or(text.len(), |i| r.end + i);
                &text[line_start..line_end]
            })
            .collect()
    }

    const OLD: &str = "node-role.kubernetes.io/master";

    #[test]
    fn finds_taint_keys_in_node_yaml_and_json_not_labels_or_comments() {
        let yaml = "\
kind: Node
metadata:
  labels:
    node-role.kubernetes.io/master: \"\"
  annotations: {note: \"node-role.kubernetes.io/master is retired\"}
spec:
  # key: node-role.kubernetes.io/master  taintlint: disable=unknown-taint-key
  taints:
  - key: node-role.kubernetes.io/master
    effect: NoSchedule
  - {effect: NoSchedule, key: \"node-role.kubernetes.io/master\"}
  - key: node-role.kubernetes.io/master-old
    effect: NoSchedule
";
        assert_eq!(
            found(yaml, OLD),
            vec![
                "  - key: node-role.kubernetes.io/master",
                "  - {effect: NoSchedule, key: \"node-role.kubernetes.io/master\"}",
            ]
        );
        let json = r#"{"items": [{"metadata": {"labels": {"node-role.kubernetes.io/master": ""}},
 "spec": {"taints": [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/master"}]}}]}"#;
        assert_eq!(
            found(json, OLD),
            vec![
                r#" "spec": {"taints": [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/master"}]}}]}"#
            ]
        );
    }

    #[test]
    fn finds_compact_taints_and_hcl_fields() {
        // A pool file in `kubectl taint` syntax (as the project's pool files are written).
        let pools = "\
pools:
  cp: {nodes: [cp-1], taints: [\"node-role.kubernetes.io/master:NoSchedule\"]}
  cp2:
    taints:
    - node-role.kubernetes.io/master=true:NoExecute
    - node-role.kubernetes.io/master=true:Sometimes
    labels: {node-role.kubernetes.io/master: \"\"}
";
        assert_eq!(
            found(pools, OLD),
            vec![
                "  cp: {nodes: [cp-1], taints: [\"node-role.kubernetes.io/master:NoSchedule\"]}",
                "    - node-role.kubernetes.io/master=true:NoExecute",
            ]
        );
        // Terraform, as an EKS managed node group writes it (terraform-provider-aws docs).
        let hcl = "\
resource \"aws_eks_node_group\" \"cp\" {
  labels = { \"node-role.kubernetes.io/master\" = \"\" }
  taint {
    key    = \"node-role.kubernetes.io/master\"
    effect = \"NO_SCHEDULE\"
  }
  // key = \"node-role.kubernetes.io/master\"
}
";
        assert_eq!(
            found(hcl, OLD),
            vec!["    key    = \"node-role.kubernetes.io/master\""]
        );
        // A field that only ends in `key` is not `key`.
        assert!(found("monkey: node-role.kubernetes.io/master\n", OLD).is_empty());
    }

    #[test]
    fn the_key_under_the_cursor_in_an_inventory_file() {
        let text = "pools:\n  cp: {taints: [\"node-role.kubernetes.io/master:NoSchedule\"], labels: {a: b}}\n";
        let at = text.find("kubernetes.io/master").unwrap();
        let (range, key) = inventory_key_at(text, at).unwrap();
        assert_eq!(key, OLD);
        assert_eq!(&text[range], OLD);
        // On the effect, on a label: not a taint key.
        assert_eq!(inventory_key_at(text, text.find("Schedule").unwrap()), None);
        assert_eq!(inventory_key_at(text, text.find("a: b").unwrap()), None);
    }

    #[test]
    fn new_keys_are_checked_as_qualified_names() {
        assert_eq!(
            new_key_problem("node-role.kubernetes.io/control-plane"),
            None
        );
        assert_eq!(new_key_problem("dedicated"), None);
        let p = new_key_problem("Node_Role/x").unwrap();
        assert!(
            p.starts_with("`Node_Role/x` is not a valid taint key: it has a prefix"),
            "{p}"
        );
        assert!(new_key_problem("a/b/c")
            .unwrap()
            .contains("more than one `/`"));
        assert!(new_key_problem("").unwrap().contains("is empty"));
    }
}
