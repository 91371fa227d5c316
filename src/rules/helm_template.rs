//! `helm-template`: a Helm chart template (Go template syntax) is not YAML until rendered.

use super::{Rule, RuleMeta};
use crate::diagnostic::Severity;

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
