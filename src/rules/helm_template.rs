//! `helm-template`: a Helm chart template (Go template syntax) is not YAML until rendered.

use super::{Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::syntax::{Stream, Style};

pub struct HelmTemplate;

pub static META: RuleMeta = RuleMeta {
    name: "helm-template",
    severity: Severity::Hint,
    needs_inventory: false,
    fixable: false,
    summary: "A Helm template file: lint its rendered output instead",
    why: "Linting the template text itself would only produce parse errors.",
    explanation: r#"## What it catches
A file with Go template actions (`{{ .Values.x }}`, `{{- if ... }}`, `{{ include ... }}`) outside
of quoted or block strings: a Helm chart template, which is not YAML until Helm renders it.

## Why it matters
Linting the template text itself would only produce parse errors. taintlint says so once and
skips the file.

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

/// Markers of Go template actions that Helm charts use (and that other `{{ }}` users, such as
/// Prometheus alert texts, do not).
const MARKERS: &[&str] = &[
    ".Values",
    ".Release",
    ".Chart",
    ".Capabilities",
    ".Files",
    "include ",
    "toYaml",
    "nindent",
    "{{-",
    "-}}",
    "{{ end",
    "{{ if",
    "{{ range",
    "{{ with",
    "{{ define",
    "{{ template",
    "{{ else",
];

/// The offset of the first template action (its `{{`) if `text` is a Helm template: an action
/// with a Helm marker, not inside a quoted or block scalar or a comment (when the YAML does not
/// even parse, only comments are known to be data).
pub fn looks_like_helm_template(text: &str, stream: &Stream<'_>) -> Option<usize> {
    text.find("{{")?;
    let broken = stream.error.is_some() || stream.documents.iter().any(|d| d.error.is_some());
    let mut protected: Vec<std::ops::Range<usize>> = Vec::new();
    if !broken {
        for doc in &stream.documents {
            for id in 0..doc.nodes_len() as u32 {
                let node = doc.node(id);
                if let crate::syntax::NodeKind::Scalar { style, .. } = node.kind {
                    if style != Style::Plain {
                        protected.push(node.span.clone());
                    }
                }
            }
        }
    }
    let comments: Vec<_> = stream.comments.iter().map(|c| c.span.clone()).collect();
    let inside = |at: usize| {
        protected
            .iter()
            .chain(comments.iter())
            .any(|r| r.contains(&at))
    };
    // The first action (`{{` up to its `}}` on the same line) outside data that names Helm.
    text.match_indices("{{")
        .map(|(i, _)| i)
        .filter(|&i| !inside(i))
        .find(|&i| {
            let line = &text[i..text[i..].find('\n').map_or(text.len(), |n| i + n)];
            let action = line.find("}}").map_or(line, |e| &line[..e + 2]);
            MARKERS.iter().any(|m| action.contains(m))
        })
}
