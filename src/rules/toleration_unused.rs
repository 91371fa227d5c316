//! `toleration-unused`: a toleration that matches no taint of the inventory.

use super::workload::{closeness, misses_short};
use super::{Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::Severity;
use crate::inventory::Inventory;
use crate::k8s::well_known::CONDITION_TAINT_KEYS;
use crate::schedule::admission::Source;

pub struct TolerationUnused;

pub static META: RuleMeta = RuleMeta {
    name: "toleration-unused",
    severity: Severity::Info,
    needs_inventory: true,
    fixable: false,
    summary: "A toleration that matches no taint in the inventory",
    why: "A toleration that matches nothing does nothing.",
    explanation: r#"## What it catches
A toleration of a pod template that tolerates no taint of any node in the inventory: a typo in
the key or value, a taint that was renamed or removed, a toleration copied from another
cluster. When a taint comes close (the same key with another value or effect, or a key a typo
away), the message names it and says why it misses. Tolerations of the taints Kubernetes sets
and clears as node conditions change (`node.kubernetes.io/not-ready`, `.../unreachable`,
`.../memory-pressure`, ...) and tolerations with an empty key are not reported: a snapshot of
the nodes says nothing about them.

## Why it matters
A toleration that matches nothing does nothing; if it was meant to let the workload onto
dedicated nodes, the workload is not getting there.

## Example
```yaml
# inventory: taint nvidia.com/gpu=present:NoSchedule
tolerations:
- key: nvidia.com/gpus      # one letter too many
  operator: Exists
```

## Fix
Correct the key or value to the taint's, or remove the toleration.
"#,
};

impl Rule for TolerationUnused {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        let inv = cx.inventory;
        let gate = cx.gate();
        let w = cx.workload;
        let taints = inv.taints();
        for (i, t) in w.tolerations.iter().enumerate() {
            let Source::Manifest(item_index) = w.sources[i] else {
                continue;
            };
            if t.key.is_empty() || CONDITION_TAINT_KEYS.contains(&t.key.as_str()) {
                continue;
            }
            if taints.iter().any(|(pt, _)| t.tolerates(&pt.taint, gate)) {
                continue;
            }
            let item = &w.items[item_index];
            if cx.rejected(item) {
                continue;
            }
            let mut message = format!(
                "tolerations[{item_index}] tolerates none of the taints on the inventory's {}",
                tainted_nodes(inv)
            );
            let near = taints
                .iter()
                .map(|(pt, pools)| (closeness(t, &pt.taint, gate), pt, pools))
                .filter(|((score, _), _, _)| *score < 10)
                .min_by_key(|((score, _), _, _)| *score);
            let mut related = None;
            if let Some(((_, misses), pt, pools)) = near {
                message = format!(
                    "tolerations[{item_index}] tolerates no inventory taint; closest: {} ({})",
                    pt.taint,
                    misses_short(&misses)
                );
                related = Some((
                    cx.file(&pt.at).to_string(),
                    pt.at.range.clone(),
                    format!("the closest taint, of {}", cx.pool_title(pools[0])),
                ));
            }
            let range = cx.item_range(item);
            let d = cx.report(range, item.path.clone(), message);
            if let Some((file, range, msg)) = related {
                d.with_related_in(&file, range, msg);
            }
        }
    }
}

/// `4 tainted nodes`: the nodes that carry a taint, which is what a toleration can match (the
/// hover on a toleration counts the same).
pub fn tainted_nodes(inv: &Inventory) -> String {
    let n: crate::inventory::NodeCount = inv
        .pools
        .iter()
        .filter(|p| !p.taints.is_empty())
        .map(|p| p.node_count())
        .sum();
    match n.known() {
        Some(n) => super::count(n as usize, "tainted node"),
        None if n.max.is_none() && n.min == 0 => "tainted nodes (how many is unknown)".to_string(),
        None => format!("tainted nodes ({n})"),
    }
}
