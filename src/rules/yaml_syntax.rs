//! `yaml-syntax`: text that is not YAML, or that would expand past the alias limit.

use super::{Rule, RuleMeta};
use crate::diagnostic::Severity;

pub struct YamlSyntax;

pub static META: RuleMeta = RuleMeta {
    name: "yaml-syntax",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "The document is not valid YAML, or its aliases expand too far",
    why: "kubectl cannot read the document, so nothing in it is applied.",
    explanation: r#"## What it catches
A document that does not parse as YAML (an unclosed bracket, a tab in the indentation, a stray
`key: value: value`), an alias whose anchor is not defined, or a document in which too much
comes from expanding aliases (an "alias bomb"): as in the API server's YAML decoder (go-yaml v2
`allowedAliasRatio` in decode.go), once more than 100 nodes come from aliases in a document of
more than 1,000, at most 99% of a document of up to 400,000 nodes may come from aliases, scaling
down to 10% at 4,000,000. A document without aliases is never refused, however large.

What kubectl's reader accepts beyond the YAML specification is not refused: go-yaml (under
sigs.k8s.io/yaml; scannerc.go, as libyaml) checks no indentation inside flow collections and
quoted scalars, so `flow: [a,` then `b]` on a line of its own, and a quoted scalar whose
continuation lines are indented less than its block (generated CRDs' long descriptions:
`- description: 'first line` then `continued here'` at the dash's column) are read as kubectl
reads them, their lines folded.

## Why it matters
kubectl cannot read the document at all, so nothing in it is applied; the API server's decoder
rejects excessive aliasing the same way. Other documents of the same file are still linted.

## Example
```yaml
tolerations: [{key: dedicated, operator: Exists}
```

## Fix
Correct the syntax at the position shown; close brackets and quotes, indent with spaces.
"#,
};

impl Rule for YamlSyntax {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
