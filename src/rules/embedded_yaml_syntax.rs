//! `embedded-yaml-syntax`: YAML held in a string of another document (an Argo CD
//! Application's `helm.values`, a kustomize inline patch, a values ConfigMap) that does not
//! parse.

use super::{Rule, RuleMeta};
use crate::diagnostic::Severity;

pub struct EmbeddedYamlSyntax;

pub static META: RuleMeta = RuleMeta {
    name: "embedded-yaml-syntax",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: false,
    summary: "YAML held in a string (Helm values, an inline patch) does not parse",
    why: "what reads the string (Helm, kustomize, Argo CD) fails on it, or reads less than was written.",
    explanation: r#"## What it catches
A string that holds YAML for another tool and does not parse: an Argo CD Application's
`spec.source.helm.values` (argoproj/argo-cd `ApplicationSourceHelm.Values`), a kustomize inline
patch (`patches[].patch`, `patchesJson6902[].patch`, `patchesStrategicMerge`), an Argo Workflows
resource `manifest`, a ConfigMap's `values.yaml` that a Flux HelmRelease's `valuesFrom` reads.
The finding is at the character where the parser stopped, with its message and the line inside
the string. A string that is a template (Go template actions, placeholders) is not judged.

## Why it matters
The outer file is valid YAML, so `kubectl apply` accepts it, and nothing complains until the
tool that reads the string runs: Argo CD fails to render the chart, kustomize fails to build the
overlay, Helm ignores the values it cannot read. taintlint cannot lint the tolerations inside
either, and `simulate` cannot place the workload the values describe.

## Example
```yaml
helm:
  values: |
    tolerations:
    - key: spot
      operator: Exists
  - key: gpu          # indented less than the list it continues
```

## Fix
Correct the string's YAML at the position shown: keep each line at its block's indentation.
"#,
};

impl Rule for EmbeddedYamlSyntax {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
