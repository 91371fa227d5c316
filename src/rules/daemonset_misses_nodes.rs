//! `daemonset-misses-nodes`: a DaemonSet whose selector picks nodes it cannot run on.

use super::workload::{more_pools, LISTED_POOLS};
use super::{Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::Severity;
use crate::schedule::Reason;

pub struct DaemonSetMissesNodes;

pub static META: RuleMeta = RuleMeta {
    name: "daemonset-misses-nodes",
    severity: Severity::Warning,
    needs_inventory: true,
    fixable: false,
    summary: "A DaemonSet that cannot run on some of the nodes its selector picks",
    why: "Those nodes never get its pod: a GPU node without its driver, a node without its agent.",
    explanation: r#"## What it catches
A DaemonSet whose `nodeSelector` and required node affinity pick nodes of the inventory (the
DaemonSet controller's `NodeShouldRunDaemonPod`, pkg/controller/daemon/daemon_controller.go)
some of which it cannot run on: a NoSchedule or NoExecute taint it does not tolerate (the
DaemonSet controller's own tolerations counted), or more of a resource than the node has
allocatable. It runs on the other nodes it picks; a DaemonSet that runs on none of them is
`unschedulable`, and one that picks no node at all is `daemonset-selects-no-node`.

## Why it matters
A DaemonSet is meant to run on every node it selects. Its pods are created for the nodes it
cannot run on and stay Pending (resources), or never created (taints), without an error anywhere:
a GPU operator's driver DaemonSet that selects `nvidia.com/gpu.present=true` but does not tolerate
the spot GPU nodes' `spot=true:NoSchedule` leaves those nodes without a driver, and every GPU pod
sent there fails.

## Example
```yaml
# inventory: pool gpu-spot, labels nvidia.com/gpu.present=true,
# taints nvidia.com/gpu:NoSchedule, spot=true:NoSchedule
nodeSelector:
  nvidia.com/gpu.present: "true"
tolerations:
- {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}   # spot=true is not tolerated
```

## Fix
Tolerate the taints of the nodes the DaemonSet is meant for (agents and drivers often tolerate
every taint with `operator: Exists`), or narrow its selector to the nodes it should run on.
"#,
};

impl Rule for DaemonSetMissesNodes {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        if cx.workload.kind != Some("DaemonSet") || cx.workload.rejection.is_some() {
            return;
        }
        let inv = cx.inventory;
        let coverage = cx.simulation.coverage(inv);
        if coverage.missed == 0 || coverage.missed == coverage.picked {
            return;
        }
        // Each missed pool with what keeps the DaemonSet off it.
        let mut related = Vec::new();
        let mut first_why = String::new();
        for &p in coverage.missed_pools.iter().take(LISTED_POOLS) {
            let pool = &inv.pools[p];
            let pv = &cx.simulation.pools[p];
            for r in pv.reasons(pool).into_iter().filter(|r| !r.selects()) {
                let at = match r {
                    Reason::Taint(i) => &pool.taints[*i].at,
                    _ => &pool.at,
                };
                let text = r.describe(pool);
                if first_why.is_empty() {
                    // Short: the amounts offered are in the related note.
                    first_why = match r {
                        Reason::Insufficient {
                            resource,
                            requested,
                            ..
                        } => format!(
                            "insufficient {resource} (requests {})",
                            crate::k8s::resources::display(resource, *requested)
                        ),
                        _ => text.clone(),
                    };
                }
                related.push((
                    cx.file(at).to_string(),
                    at.range.clone(),
                    format!("{}: {text}", cx.pool_title(p)),
                ));
            }
        }
        let first = &inv.pools[coverage.missed_pools[0]];
        let others = match coverage.missed_pools.len() {
            1 => String::new(),
            n => format!(" {}", more_pools(n - 1)),
        };
        let all_as_code = coverage
            .missed_pools
            .iter()
            .all(|&p| inv.pools[p].declared.is_some());
        let message = if all_as_code {
            format!(
                "{} misses pool {}{others}, which it selects: {first_why}",
                cx.title(),
                first.name
            )
        } else {
            format!(
                "{} misses {} of {} selected nodes, pool {}{others}: {first_why}",
                cx.title(),
                coverage.missed,
                coverage.picked,
                first.name
            )
        };
        let (range, path) = cx.anchor();
        let d = cx.report(range, path, message);
        for (file, range, msg) in related {
            d.with_related_in(&file, range, msg);
        }
    }
}
