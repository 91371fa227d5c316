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
    summary: "A Go or Helm template, not YAML until rendered: lint its rendered output instead",
    why: "Linting the template text itself would only produce parse errors.",
    explanation: r#"## What it catches
A document that does not parse as YAML and holds Go template actions (`{{ .Values.x }}`,
`{{- if ... }}`, `{{ include ... }}`) outside comments: a Helm chart template (in a chart's
`templates/` directory) or another Go template, such as an operator's operand manifests. It is
not YAML until it is rendered. A Go format string is one too: a document that does not parse
and holds a `fmt` verb as a whole value (`name: %s`, `- %d`), as Go test fixtures do, is filled
in by its program before it is YAML.

Each document of a file is decided alone, and only a document that does not parse is a
template: a document that parses is linted whatever its strings hold (Prometheus alert texts
with `{{ $labels.node }}`, values a chart passes through `tpl`, the output of `helm template`).

## Why it matters
Linting the template text itself would only produce parse errors. taintlint says so once for
the document and lints the file's other documents. A directory walk does not lint a chart's
`templates/` at all, and counts the templates it skips in one line on standard error
(`--show-skipped` lists them).

## Example
```yaml
tolerations:
  {{- toYaml .Values.tolerations | nindent 8 }}
```

## Fix
Lint the rendered chart: `helm template my-release ./chart | taintlint lint -`.
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
