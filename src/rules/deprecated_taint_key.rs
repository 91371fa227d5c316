//! `deprecated-taint-key`: a taint key Kubernetes no longer sets.

use super::{edits, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::Item;
use crate::k8s::well_known::deprecated;

pub struct DeprecatedTaintKey;

pub static META: RuleMeta = RuleMeta {
    name: "deprecated-taint-key",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: true,
    summary: "A retired well-known taint key, such as node-role.kubernetes.io/master",
    why: "No current node carries that taint, so the toleration matches nothing.",
    explanation: r#"## What it catches
A toleration or taint using a well-known key that Kubernetes renamed or stopped setting:
`node.alpha.kubernetes.io/notReady` and `node.alpha.kubernetes.io/unreachable` (now
`node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable`), any other
`node.alpha.kubernetes.io/` key, `node-role.kubernetes.io/master` (now
`node-role.kubernetes.io/control-plane`), `node.kubernetes.io/out-of-disk`.

## Why it matters
The API server accepts it, but no current node carries that taint: the toleration matches
nothing, and a pod meant for control-plane nodes or meant to survive an outage does not.

## Example
```yaml
tolerations:
- key: node-role.kubernetes.io/master
  operator: Exists
  effect: NoSchedule
```

## Fix
Use the current key. While old nodes still carry the retired taint, tolerate both.
"#,
};

impl Rule for DeprecatedTaintKey {
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
    let Some(d) = deprecated(key) else { return };
    let Some(f) = item.field("key") else { return };
    let message = match d.replacement {
        Some(new) => format!("retired taint key {}; use `{new}`", shown(key)),
        None => format!("retired taint key {}: no current node has it", shown(key)),
    };
    let fix = d.replacement.map(|new| Fix {
        title: format!("Use `{new}`"),
        applicability: Applicability::NeedsReview,
        edits: vec![edits::replace_scalar(cx.doc, f.value, new)],
    });
    let range = cx.span(f.value);
    let note = d.note.to_string();
    cx.report(range.clone(), item.field_path("key"), message)
        .with_related(range, note)
        .with_fix(fix);
}
