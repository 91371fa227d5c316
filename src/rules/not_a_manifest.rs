//! `not-a-manifest`: YAML that does not parse, in a file with no sign of Kubernetes.

use super::{Rule, RuleMeta};
use crate::diagnostic::Severity;

pub struct NotAManifest;

pub static META: RuleMeta = RuleMeta {
    name: "not-a-manifest",
    severity: Severity::Hint,
    needs_inventory: false,
    fixable: false,
    summary: "YAML that does not parse, in a file with no sign of Kubernetes: not read",
    why: "Nothing in the file says it is applied to a cluster, so its syntax is not taintlint's to gate.",
    explanation: r#"## What it catches
A file whose YAML does not parse and in which nothing says it is a Kubernetes manifest: no
`apiVersion`, `kind`, `tolerations` or `taints` key anywhere. Repositories hold such files
beside their manifests: a tool's configuration written for a more lenient parser, a document
of notes that only looks like YAML. (A Go template or a Go format string, `name: %s`, is
`helm-template`'s, with or without those keys.) taintlint says once that it does not read the
file, where a `yaml-syntax` error would fail the build over a file no cluster ever sees.

A file with any of those keys is read as a manifest, and its syntax errors stay `yaml-syntax`
errors. A directory walk does not print this finding for each file: it counts such files in one
line on standard error (`--show-skipped` lists them).

## Why it matters
Nothing in the file is applied to a cluster as it stands, so its syntax is not taintlint's to
gate; a CI gate that fails on it teaches people to ignore the gate.

## Example
```yaml
# settings a tool reads: a list that is never closed
names: [first, second
replicas: 3
```

## Fix
Nothing to fix. Exclude the file in `.taintlint.yaml` (`exclude:`) to drop the word about it.
If it is a manifest, its syntax error is real: add its `apiVersion` and `kind` to read it as one.
"#,
};

impl Rule for NotAManifest {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}
