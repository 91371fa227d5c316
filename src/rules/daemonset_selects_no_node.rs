//! `daemonset-selects-no-node`: a DaemonSet whose selector picks no node of the inventory.

use super::{Reading, Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::Severity;
use std::hash::DefaultHasher;

pub struct DaemonSetSelectsNoNode;

pub static META: RuleMeta = RuleMeta {
    name: "daemonset-selects-no-node",
    severity: Severity::Info,
    needs_inventory: true,
    fixable: false,
    summary: "A DaemonSet whose selector picks no node of the inventory",
    why:
        "It runs no pods until a node gets the label it selects: often the point, sometimes a typo.",
    explanation: r#"## What it catches
A DaemonSet whose `nodeSelector` or required node affinity matches no node of the inventory,
so the DaemonSet controller (`NodeShouldRunDaemonPod`, pkg/controller/daemon/daemon_controller.go)
creates no pod. Taints play no part here: they decide where a selected node's pod may run
(`daemonset-misses-nodes`, `unschedulable`).

## Why it matters
Often nothing is wrong: optional operands (a GPU operator's MIG manager, a sandbox device plugin)
wait behind an opt-in label that an administrator sets on the nodes that need them, and a
DaemonSet with zero desired pods is normal. That is why this is information, not an error.
When the label is misspelt, or the nodes were relabelled, the DaemonSet silently runs nowhere.

## Example
```yaml
nodeSelector:
  nvidia.com/gpu.deploy.mig-manager: "true"   # no node carries it yet
```

## Fix
Nothing, if the label is an opt-in; else correct the selector, or label the nodes it is meant
for.
"#,
};

impl Rule for DaemonSetSelectsNoNode {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// It reads nothing of a template that is no DaemonSet's, and of a DaemonSet's only that
    /// it picks some node (or that there is no pool) while it does.
    fn workload_reads(&self, r: &Reading<'_>, _h: &mut DefaultHasher) -> bool {
        r.kind != Some("DaemonSet")
            || r.inventory.pools.is_empty()
            || r.simulation.coverage(r.inventory).picked > 0
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        let w = cx.workload;
        if w.kind != Some("DaemonSet") || w.rejection.is_some() || cx.inventory.pools.is_empty() {
            return;
        }
        if cx.simulation.coverage(cx.inventory).picked > 0 {
            return;
        }
        // What it asks for: the first nodeSelector entry no pool matches, else the affinity.
        let inv = cx.inventory;
        // (Labels kept per node are found through the inventory's index, never by a walk.)
        let unmatched = w.node_selector.iter().find(|e| {
            let (k, v) = (&*e.key, &*e.value);
            if inv.is_identity_key(k) {
                return inv.is_naming_key(k) && inv.nodes_labelled(k, v).is_empty();
            }
            inv.pools.iter().all(|pool| pool.label(None, k) != Some(v))
        });
        let (range, path, asked) = match (unmatched, &w.affinity) {
            (Some(e), _) => (
                cx.span(e.key_node),
                format!("{}.nodeSelector.{}", w.path, e.key),
                format!("no node has {}={}", e.key, e.value),
            ),
            (None, Some(a)) => (
                cx.span(a.key),
                format!(
                    "{}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                    w.path
                ),
                "no node matches its required node affinity".to_string(),
            ),
            (None, None) => {
                let (range, path) = cx.anchor();
                (range, path, "no node matches its selector".to_string())
            }
        };
        let message = format!("{} selects no node, so runs no pods: {asked}", cx.title());
        cx.report(range, path, message);
    }
}
