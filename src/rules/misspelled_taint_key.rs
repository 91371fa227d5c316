//! `misspelled-taint-key`: a key one or two edits away from a well-known taint key.

use super::{edits, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::Item;
use crate::k8s::well_known::likely_misspelling;

pub struct MisspelledTaintKey;

pub static META: RuleMeta = RuleMeta {
    name: "misspelled-taint-key",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: true,
    summary: "A key one or two edits away from a well-known taint key",
    why: "The API server accepts the typo, and the toleration matches nothing.",
    explanation: r#"## What it catches
A toleration or taint key that is almost, but not exactly, one of the taint keys Kubernetes
sets: `node.kubernetes.io/net-ready` for `node.kubernetes.io/not-ready`,
`node.kubernetes.io/unreachible`, `node-role.kubernetes.io/controlplane`.

## Why it matters
The API server accepts any well-formed key, so the typo goes live and the toleration matches
nothing: the pod is evicted from a NotReady node at once, or never reaches the nodes it was
meant for.

## Example
```yaml
tolerations:
- key: node.kubernetes.io/net-ready
  operator: Exists
  effect: NoExecute
  tolerationSeconds: 600
```

## Fix
Use the well-known key taintlint suggests.
"#,
};

impl Rule for MisspelledTaintKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item);
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item);
    }
}

fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>) {
    let key = item.str("key");
    if key.is_empty() {
        return;
    }
    let Some(known) = likely_misspelling(key) else {
        return;
    };
    let Some(f) = item.field("key") else { return };
    let message = format!(
        "taint key {} is not one Kubernetes sets; did you mean `{known}`?",
        shown(key)
    );
    let fix = Fix {
        title: format!("Use `{known}`"),
        applicability: Applicability::NeedsReview,
        edits: vec![edits::replace_scalar(cx.text, cx.doc, f.value, known)],
    };
    let range = cx.span(f.value);
    cx.report(range, item.field_path("key"), message)
        .with_fix(Some(fix));
}
