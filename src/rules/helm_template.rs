//! `helm-template`: a Helm chart template (Go template syntax) is not YAML until rendered.

use super::{Rule, RuleMeta};
use crate::diagnostic::Severity;
use std::ops::Range;

use crate::syntax::Comment;

pub struct HelmTemplate;

pub static META: RuleMeta = RuleMeta {
    name: "helm-template",
    severity: Severity::Hint,
    needs_inventory: false,
    fixable: false,
    summary: "A Go or Helm template (or placeholders a script fills in), not YAML until rendered: lint its rendered output instead",
    why: "Linting the template text itself would only produce parse errors.",
    explanation: r#"## What it catches
A document that does not parse as YAML and holds Go template actions (`{{ .Values.x }}`,
`{{- if ... }}`, `{{ include ... }}`) outside comments: a Helm chart template (in a chart's
`templates/` directory) or another Go template, such as an operator's operand manifests. It is
not YAML until it is rendered. A Go format string is one too: a document that does not parse
and holds a `fmt` verb as a whole value (`name: %s`, `- %d`), as Go test fixtures do, is filled
in by its program before it is YAML. So is a document with placeholders that a script fills in
(`name: @STS_NAME@`, `__IMAGE__`, `${REPLICAS}`), when it is they that keep it from parsing:
with each of them filled in, the document parses. longhorn's scale test keeps its StatefulSet
so, and fills it in with `sed`. A document broken elsewhere too keeps its `yaml-syntax` error.

Each document of a file is decided alone, and only a document that does not parse is a
template: a document that parses is linted whatever its strings hold (Prometheus alert texts
with `{{ $labels.node }}`, values a chart passes through `tpl`, the output of `helm template`).
One exception: YAML reads an action that stands as a whole value (`name: {{.Name}}`) as a
mapping whose key is a mapping, which no one writes meaning that, so a document in which an
action was read so is a template too (clusterloader2's object templates, as kuberay's
performance tests keep them, parse so), neither linted nor simulated as written.

## Why it matters
Linting the template text itself would only produce parse errors. taintlint says so once for
the document and lints the file's other documents. A directory walk does not lint a chart's
`templates/` at all, and counts the templates (and the files with placeholders) it skips in one
line on standard error (`--show-skipped` lists them, each with its reason); a file named on the
command line gets this hint, which does not fail the run.

## Example
```yaml
tolerations:
  {{- toYaml .Values.tolerations | nindent 8 }}
```

## Fix
Lint the rendered chart: `helm template my-release ./chart | taintlint lint -`; for a file with
placeholders, the output of the script that fills them in.
"#,
};

impl Rule for HelmTemplate {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}

/// The first Go template action (`{{` to its `}}` on the same line) in `region` of `text`, outside
/// comments: in a document that does not parse, the sign that it is a template. (A document
/// that parses is YAML whatever its scalars hold: Prometheus alert texts and values passed
/// through `tpl` hold such actions as data.) `comments` are the parser's comments, in source
/// order; a line whose first character is `#` counts as one too, since the parser stops
/// reporting comments where the document breaks.
pub fn template_action(
    text: &str,
    region: Range<usize>,
    comments: &[Comment<'_>],
) -> Option<Range<usize>> {
    let region = &text[region.clone()];
    let base = region.as_ptr() as usize - text.as_ptr() as usize;
    let in_comment = |at: usize| {
        let i = comments.partition_point(|c| c.span.end <= at);
        comments.get(i).is_some_and(|c| c.span.contains(&at))
    };
    let commented = |i: usize| {
        let line_start = region[..i].rfind('\n').map_or(0, |n| n + 1);
        region[line_start..i].trim_start().starts_with('#') || in_comment(base + i)
    };
    let action = region.match_indices("{{").find_map(|(i, _)| {
        if commented(i) {
            return None;
        }
        let line_end = region[i..].find('\n').map_or(region.len(), |n| i + n);
        let close = region[i + 2..line_end].find("}}")?;
        Some(base + i..base + i + 2 + close + 2)
    });
    action.or_else(|| {
        region
            .match_indices('%')
            .find(|&(i, _)| format_verb(region, i) && !commented(i))
            .map(|(i, _)| base + i..base + i + 2)
    })
}

/// The first placeholder that a script fills in (`@STS_NAME@`, `__IMAGE__`, `${REPLICAS}`) in
/// `region` of `text`, outside comments, when it is the placeholders that keep the region from
/// parsing: with each of them filled in (letters in its place, or a comment where it stands
/// alone on its line, as a placeholder for whole lines does), the region parses as YAML. A
/// region whose YAML is broken elsewhere too is no placeholder file: its syntax error stands.
/// longhorn/longhorn's `dev/scale-test/statefulset.yaml` (`name: @STS_NAME@`, filled in by
/// `sed` in its `scale-test.py`) is one.
pub fn placeholder(
    text: &str,
    region: Range<usize>,
    comments: &[Comment<'_>],
) -> Option<Range<usize>> {
    let in_comment = |at: usize| {
        let i = comments.partition_point(|c| c.span.end <= at);
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        comments.get(i).is_some_and(|c| c.span.contains(&at))
            || text[line_start..at].trim_start().starts_with('#')
    };
    let found: Vec<Range<usize>> = placeholders(&text[region.clone()])
        .into_iter()
        .map(|r| region.start + r.start..region.start + r.end)
        .filter(|r| !in_comment(r.start))
        .collect();
    let first = found.first()?.clone();
    let mut filled = text.as_bytes().to_vec();
    for r in &found {
        let line_start = text[..r.start].rfind('\n').map_or(0, |n| n + 1);
        let line_end = text[r.end..].find('\n').map_or(text.len(), |n| r.end + n);
        let alone =
            text[line_start..r.start].trim().is_empty() && text[r.end..line_end].trim().is_empty();
        for (k, b) in filled[r.clone()].iter_mut().enumerate() {
            *b = if alone && k == 0 { b'#' } else { b'x' };
        }
    }
    let filled = String::from_utf8(filled).ok()?;
    let stream = crate::syntax::parse(&filled);
    // An error left inside the region (or at the end of the text, for its last document).
    let inside = |at: usize| at >= region.start && (at < region.end || at == text.len());
    let broken = stream
        .documents
        .iter()
        .filter_map(|d| d.error.as_ref())
        .chain(stream.error.as_ref())
        .any(|e| inside(e.offset));
    (!broken).then_some(first)
}

/// The placeholders of a text, in order: `@NAME@` (a name of letters, digits and `_`, not
/// after a letter or digit, as in an e-mail address), `__NAME__` (capitals, digits and `_`)
/// and `${NAME}` (a shell or envsubst variable, with an optional default: `${NAME:-x}`).
fn placeholders(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let after_word = i > 0 && word(b[i - 1]);
        let end = match b[i] {
            b'@' if !after_word => {
                let n = b[i + 1..].iter().take_while(|&&c| word(c)).count();
                let name = &b[i + 1..i + 1 + n];
                (n > 0
                    && b.get(i + 1 + n) == Some(&b'@')
                    && name.iter().any(u8::is_ascii_alphabetic))
                .then_some(i + n + 2)
            }
            b'_' if !after_word && b.get(i + 1) == Some(&b'_') => {
                let n = b[i..].iter().take_while(|&&c| word(c)).count();
                let run = &b[i..i + n];
                let inner = run.strip_prefix(b"__").and_then(|r| r.strip_suffix(b"__"));
                inner
                    .filter(|inner| {
                        inner.first().is_some_and(u8::is_ascii_uppercase)
                            && inner.last().is_some_and(|&c| c != b'_')
                            && inner
                                .iter()
                                .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
                    })
                    .map(|_| i + n)
            }
            b'$' if b.get(i + 1) == Some(&b'{') => {
                let start = i + 2;
                let n = b[start..].iter().take_while(|&&c| word(c)).count();
                let name_ok = n > 0 && !b[start].is_ascii_digit();
                let rest = start + n;
                let close = match b.get(rest) {
                    Some(b'}') => Some(rest),
                    Some(b':' | b'-' | b'=' | b'?' | b'+') => b[rest..]
                        .iter()
                        .position(|&c| c == b'}' || c == b'\n')
                        .filter(|&k| b[rest + k] == b'}')
                        .map(|k| rest + k),
                    _ => None,
                };
                close.filter(|_| name_ok).map(|c| c + 1)
            }
            _ => None,
        };
        match end {
            Some(end) => {
                out.push(i..end);
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// Whether the text of a template finding (what [`template_action`] or [`placeholder`] found)
/// is a placeholder a script fills in, not a Go template action or format verb.
pub fn is_placeholder(found: &str) -> bool {
    !found.starts_with("{{") && !found.starts_with('%')
}

/// Whether a Go `fmt` verb (`%s`, `%d`, `%v`, `%q`) starts at `i` and is a whole value: after
/// `: `, `- `, a quote or a flow indicator, and followed by the end of the line, a blank, a
/// quote or a flow indicator.
fn format_verb(text: &str, i: usize) -> bool {
    let bytes = text.as_bytes();
    let verb = bytes
        .get(i + 1)
        .is_some_and(|b| matches!(b, b's' | b'd' | b'v' | b'q'));
    let before = i == 0
        || matches!(
            bytes[i - 1],
            b' ' | b'\t' | b'"' | b'\'' | b'[' | b'{' | b','
        );
    let after = bytes.get(i + 2).is_none_or(|b| {
        matches!(
            b,
            b'\n' | b'\r' | b' ' | b'\t' | b'"' | b'\'' | b',' | b']' | b'}'
        )
    });
    verb && before && after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        placeholders(text).into_iter().map(|r| &text[r]).collect()
    }

    /// The three forms, with the names each takes; what only looks like one is none.
    #[test]
    fn placeholders_of_each_form() {
        assert_eq!(
            found("name: @STS_NAME@\nimage: __IMAGE__:${TAG}\nn: ${N:-3} ${X-y}"),
            ["@STS_NAME@", "__IMAGE__", "${TAG}", "${N:-3}", "${X-y}"]
        );
        assert_eq!(found("@prefix@ and @v2@"), ["@prefix@", "@v2@"]);
        for none in [
            "owner: a@b@c",
            "@@",
            "@1@",
            "__init__",
            "a__B__",
            "___",
            "__A_",
            "${}",
            "${1A}",
            "${A",
            "${A:-x\n}",
            "$A",
            "@A",
        ] {
            assert!(found(none).is_empty(), "{none}: {:?}", found(none));
        }
    }

    /// A region is a placeholder file only when filling its placeholders in makes it parse.
    #[test]
    fn filled_in_the_region_must_parse() {
        fn at(text: &str) -> Option<&str> {
            placeholder(text, 0..text.len(), &[]).map(|r| &text[r])
        }
        assert_eq!(at("name: @A@\nspec: {}\n"), Some("@A@"));
        assert_eq!(at("spec:\n  a: 1\n  __EXTRA__\n"), Some("__EXTRA__"));
        assert_eq!(at("name: @A@\nspec: [\n"), None);
        assert_eq!(at("name: a\nspec: [\n"), None);
        // A placeholder in a comment is not one.
        assert_eq!(at("# @A@\nspec: [\n"), None);
        assert!(is_placeholder("@A@") && is_placeholder("${A}"));
        assert!(!is_placeholder("{{ .A }}") && !is_placeholder("%s"));
    }
}
