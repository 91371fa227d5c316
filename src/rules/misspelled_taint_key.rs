//! `misspelled-taint-key`: a key one or two edits away from a taint key real clusters carry
//! (the catalog of [`crate::k8s::well_known::CATALOG`], each row citing its source).

use super::{edits, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::Item;
use crate::k8s::well_known::{known_taint, likely_misspelling, Origin};

pub struct MisspelledTaintKey;

pub static META: RuleMeta = RuleMeta {
    name: "misspelled-taint-key",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: true,
    summary: "A key one or two edits away from a taint key real clusters carry",
    why: "The API server accepts the typo, and the toleration matches nothing.",
    explanation: r#"## What it catches
A toleration or taint key that is almost, but not exactly, one of the taint keys real clusters
carry: those Kubernetes sets (`node.kubernetes.io/net-ready` for `node.kubernetes.io/not-ready`,
`node-role.kubernetes.io/controlplane`), the cloud providers' (`kubernetes.azure.com/scalesetpriorty`,
`CriticalAddonOnly`), the accelerators' (`nvidia.com/gpus`, `amd.com/gpuu`), Karpenter's and the
Cluster Autoscaler's, and the add-ons' startup taints (`node.cilium.io/agent-not-ready`). No
inventory is needed: the catalog of known keys is built in, each row citing its public source
(docs/taint-keys.md lists them; a hover on a catalogued key says who sets it).

One edit (a letter added, dropped, changed, or two swapped) counts for any key; two for keys of
16 characters or more. Keys of the catalog are never reported (`ebs.csi.aws.com/agent-not-ready`
and `efs.csi.aws.com/agent-not-ready` are both real), nor keys shorter than 8 characters taken
for one another.

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
Use the key taintlint suggests. If your cluster really uses the key as written, silence the
finding (`# taintlint: disable-line=misspelled-taint-key`) or turn the rule off in the
configuration.
"#,
};

impl Rule for MisspelledTaintKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_item(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item);
    }
}

fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>) {
    let key = item.str("key");
    // An invalid key is `invalid-key`'s finding: the API server rejects it as it is.
    if key.is_empty() || !crate::k8s::names::is_qualified_name(key).is_empty() {
        return;
    }
    let Some(known) = likely_misspelling(key) else {
        return;
    };
    let Some(f) = item.field("key") else { return };
    let message = match known_taint(known).map(|t| t.origin) {
        Some(Origin::Kubernetes) | None => format!(
            "taint key {} is not one Kubernetes sets; did you mean `{known}`?",
            shown(key)
        ),
        Some(_) => format!(
            "taint key {} is not one clusters carry; did you mean `{known}`?",
            shown(key)
        ),
    };
    let meaning = known_taint(known)
        .filter(|t| t.origin != Origin::Kubernetes)
        .map_or(String::new(), |t| {
            format!(" ({})", t.meaning.split(" (").next().unwrap_or(t.meaning))
        });
    let fix = Fix {
        title: format!("Use `{known}`{meaning}"),
        applicability: Applicability::NeedsReview,
        edits: vec![edits::replace_scalar(cx.text, cx.doc, f.value, known)],
    };
    let range = cx.span(f.value);
    cx.report(range, item.field_path("key"), message)
        .with_fix(Some(fix));
}
