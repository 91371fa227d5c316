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

A toleration of a retired key written beside a toleration of its replacement (for the same
effect, or for every effect) is the "tolerate both" of a migration, as the kubebuilder scaffold
writes for `node-role.kubernetes.io/master` next to `node-role.kubernetes.io/control-plane`:
it is reported as information only, since it does no harm while old nodes remain.

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
Use the current key. While old nodes still carry the retired taint, tolerate both. Beside a
toleration of the replacement, the fix removes the retired entry, once no node carries its
taint any more.
"#,
};

impl Rule for DeprecatedTaintKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration_list(&self, cx: &mut Cx<'_, '_>, items: &[Item<'_>]) {
        for item in items {
            check(cx, item, items);
        }
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item, &[]);
    }
}

/// A toleration of the retired key's replacement in the same list, for the same effect or for
/// every effect: the retired one beside it is the "tolerate both" of a migration.
fn replaced_by<'i>(
    item: &Item<'_>,
    replacement: &str,
    siblings: &'i [Item<'i>],
) -> Option<&'i Item<'i>> {
    siblings.iter().find(|s| {
        s.index != item.index
            && s.str("key") == replacement
            && (s.str("effect").is_empty() || s.str("effect") == item.str("effect"))
    })
}

/// Checks one toleration (with the other tolerations of its list) or one taint (no siblings).
fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>, siblings: &[Item<'_>]) {
    let key = item.str("key");
    let Some(d) = deprecated(key) else { return };
    let Some(f) = item.field("key") else { return };
    let range = cx.span(f.value);
    let note = d.note.to_string();
    if let Some(sibling) = d
        .replacement
        .and_then(|new| replaced_by(item, new, siblings))
    {
        let new = d.replacement.unwrap_or_default();
        let message = format!(
            "retired taint key {} beside its replacement `{new}`: needed only while nodes \
             still carry the retired taint",
            shown(key)
        );
        let fix = edits::remove_item(cx.text, cx.doc, cx.list.node, item.node).map(|edit| Fix {
            title: "Remove this toleration (its replacement is tolerated)".to_string(),
            applicability: Applicability::NeedsReview,
            edits: vec![edit],
        });
        let sibling_range = cx.item_range(sibling);
        cx.report(range.clone(), item.field_path("key"), message)
            .with_severity(Severity::Info)
            .with_related(range, note)
            .with_related(sibling_range, format!("`{new}` is tolerated here"))
            .with_fix(fix);
        return;
    }
    let message = match d.replacement {
        Some(new) => format!("retired taint key {}; use `{new}`", shown(key)),
        None => format!("retired taint key {}: no current node has it", shown(key)),
    };
    let fix = d.replacement.map(|new| Fix {
        title: format!("Use `{new}`"),
        applicability: Applicability::NeedsReview,
        edits: vec![edits::replace_scalar(cx.text, cx.doc, f.value, new)],
    });
    cx.report(range.clone(), item.field_path("key"), message)
        .with_related(range, note)
        .with_fix(fix);
}
