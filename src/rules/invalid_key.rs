//! `invalid-key`: a toleration or taint key that is not a qualified name.

use super::{go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::names::{is_qualified_name, key_problem};
use crate::k8s::objects::Item;

pub struct InvalidKey;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-key",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A toleration or taint key that is not a valid qualified name",
    why: "The API server rejects the object.",
    explanation: r#"## What it catches
A key that is not a qualified name, checked as the API server checks it (`ValidateLabelName`,
apimachinery `IsQualifiedName`): an optional prefix that is a lowercase DNS-1123 subdomain of at
most 253 bytes followed by `/`, then a name of at most 63 bytes matching
`([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. At most one `/`. The message says what is wrong in
plain words; the API server's own wording is the finding's server message. Since Kubernetes
v1.35 that wording counts lengths in "bytes", not "characters" (the checks moved to
`k8s.io/apimachinery/pkg/api/validate/content`, apimachinery commit da7b67ed, 2025-08-20), which
is what they always counted.

## Why it matters
The API server rejects the object: `spec.tolerations[0].key: Invalid value: "gpu type": name part
must consist of alphanumeric characters, ...`.

## Example
```yaml
tolerations:
- key: "Example.com/gpu type"
  operator: Exists
```

## Fix
Use the exact key the node's taint has (`kubectl describe node` lists them): lowercase prefix,
no spaces.
"#,
};

impl Rule for InvalidKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item);
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        // An empty taint key is `taint-missing-field`.
        check(cx, item);
    }
}

fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>) {
    let Some(key) = item.text("key") else { return };
    if key.is_empty() {
        return;
    }
    let errors = is_qualified_name(key);
    if errors.is_empty() {
        return;
    }
    let path = item.field_path("key");
    let api = cx.api_path(&path);
    let server = format!(
        "{api}: Invalid value: {}: {}",
        go_quote(key),
        errors.join("; ")
    );
    let problem = key_problem(key).unwrap_or_else(|| "is not a valid key".to_string());
    let message = format!("key {} {problem}", shown(key));
    let range = cx.field_range(item, "key");
    cx.report(range, path, message).with_server_message(server);
}
