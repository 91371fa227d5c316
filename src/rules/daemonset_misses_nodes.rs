//! `daemonset-misses-nodes`: a DaemonSet whose selector picks nodes it cannot run on.

use super::workload::{more_pools, LISTED_POOLS};
use super::{Reading, Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::Severity;
use crate::inventory::Pool;
use crate::schedule::{Asked, Coverage, PoolVerdict, Reason, Verdict};
use std::hash::DefaultHasher;

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

A pool defined as code (a Kueue ResourceFlavor, a node group) may not declare every label its
nodes carry: an administrator or a feature-discovery agent sets the others. A DaemonSet that
selects on such a label only may select the pool, and the controller creates no pod on a node
its selector does not match: a pool it cannot run on is then information ("may select ... and
cannot run there"), not a warning, unless the DaemonSet also misses a pool it certainly
selects. A GPU operator's opt-in operand (`nvidia.com/gpu.deploy.mig-manager=true`) on a
cluster whose spot GPU pool it does not tolerate is that case: it misses the spot nodes only
once someone labels one of them.

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

    /// It reads nothing of a template that is no DaemonSet's, and of a DaemonSet's only
    /// whether it misses some of the nodes it picks, while it misses none (or all).
    fn workload_reads(&self, r: &Reading<'_>, _h: &mut DefaultHasher) -> bool {
        r.kind != Some("DaemonSet") || !misses_some(&r.simulation.coverage(r.inventory))
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        if cx.workload.kind != Some("DaemonSet") || cx.workload.rejection.is_some() {
            return;
        }
        let inv = cx.inventory;
        let coverage = cx.simulation.coverage(inv);
        if !misses_some(&coverage) {
            return;
        }
        // The pools it certainly selects come first; those it only may select (a label it asks
        // for that the pool's definition does not declare) are a finding of their own only
        // when there is no certain miss, and then as information.
        let (missed_pools, missed) = if coverage.missed_pools.is_empty() {
            (coverage.maybe_pools, 0)
        } else {
            (coverage.missed_pools, coverage.missed)
        };
        // Each missed pool with what keeps the DaemonSet off it.
        let mut related = Vec::new();
        let mut first_why = String::new();
        for &p in missed_pools.iter().take(LISTED_POOLS) {
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
        let first = &inv.pools[missed_pools[0]];
        let others = match missed_pools.len() {
            1 => String::new(),
            n => format!(" {}", more_pools(n - 1)),
        };
        let all_as_code = missed_pools
            .iter()
            .all(|&p| inv.pools[p].declared.is_some());
        let label = if missed == 0 {
            maybe_selected(&cx.simulation.pools[missed_pools[0]], first)
        } else {
            None
        };
        let message = if let Some(label) = &label {
            format!(
                "{} may select pool {}{others} (if its nodes carry {label}, a label the pool's \
                 definition does not declare) and cannot run there: {first_why}",
                cx.title(),
                first.name
            )
        } else if all_as_code {
            format!(
                "{} misses pool {}{others}, which it selects: {first_why}",
                cx.title(),
                first.name
            )
        } else {
            format!(
                "{} misses {} of {} selected nodes, pool {}{others}: {first_why}",
                cx.title(),
                missed,
                coverage.picked,
                first.name
            )
        };
        let (range, path) = cx.anchor();
        let d = cx.report(range, path, message);
        if label.is_some() {
            d.with_severity(Severity::Info);
        }
        for (file, range, msg) in related {
            d.with_related_in(&file, range, msg);
        }
    }
}

fn missed_groups<'a>(
    verdict: &'a PoolVerdict,
    pool: &'a Pool,
) -> impl Iterator<Item = (&'a Verdict, Option<usize>, usize)> + 'a {
    verdict
        .groups(pool)
        .filter(|(v, _, _)| !v.fits() && !v.reasons.iter().any(Reason::selects))
}

/// For a pool the DaemonSet only may select ([`Coverage::maybe_pools`]): the first label it
/// asks for that the pool's definition does not declare, as the DaemonSet asks for it; `None`
/// when the DaemonSet certainly selects the nodes it misses there.
///
/// [`Coverage::maybe_pools`]: crate::schedule::Coverage::maybe_pools
fn maybe_selected(verdict: &PoolVerdict, pool: &Pool) -> Option<String> {
    let mut first = None;
    for (v, _, _) in missed_groups(verdict, pool) {
        let u = v.unknown.iter().find(|u| u.is_label())?;
        first.get_or_insert_with(|| match &u.asked {
            Asked::Expression(e) => format!("`{e}`"),
            Asked::Value(value) => format!("{}={value}", u.key),
            _ => u.key.clone(),
        });
    }
    first
}

/// Whether a DaemonSet misses some of the nodes it picks, not all of them.
fn misses_some(coverage: &Coverage) -> bool {
    let all_missed = coverage.missed + coverage.maybe_missed;
    all_missed != 0 && all_missed != coverage.picked
}

#[cfg(test)]
mod tests {
    use crate::analysis::{check, Ask};
    use crate::inventory::Inventory;
    use crate::{Options, Severity};

    /// A GPU cluster as Kueue ResourceFlavors say it (after examples/gpu/flavors.yaml, itself
    /// after kubernetes-sigs/kueue apis/kueue/v1beta1/resourceflavor_types.go): a flavor names
    /// some of its nodes' labels; the others are set elsewhere. The `spot` flavor does not say
    /// whether its nodes have GPUs.
    const FLAVORS: &str = "apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: cpu}
spec:
  nodeLabels: {example.com/pool: general}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: gpu}
spec:
  nodeLabels: {nvidia.com/gpu.present: \"true\"}
  nodeTaints: [{key: nvidia.com/gpu, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: gpu-spot}
spec:
  nodeLabels: {nvidia.com/gpu.present: \"true\"}
  nodeTaints:
  - {key: nvidia.com/gpu, effect: NoSchedule}
  - {key: spot, value: \"true\", effect: NoSchedule}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: spot}
spec:
  nodeLabels: {example.com/pool: spot}
  nodeTaints: [{key: spot, value: \"true\", effect: NoSchedule}]
";

    fn daemonset(name: &str, selector: &str) -> String {
        format!(
            "apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: gpu-system}}
spec:
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      nodeSelector: {{{selector}}}
      tolerations:
      - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}
      containers: [{{name: c, image: registry.example.com/{name}:1.0}}]
"
        )
    }

    fn found(manifest: &str) -> Vec<(Severity, String)> {
        let inv = Inventory::load(&[("flavors.yaml", FLAVORS)]).unwrap();
        check(manifest, Ask::new(&Options::default(), Some(&inv)))
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == super::META.name)
            .map(|d| (d.severity, d.message))
            .collect()
    }

    /// A driver that selects a label the GPU flavors declare certainly selects the spot GPU
    /// pool, whose taint it does not tolerate: a warning that names that pool only, not the
    /// `spot` pool, which it selects only if its nodes have GPUs.
    #[test]
    fn a_pool_it_certainly_selects_is_a_warning() {
        let got = found(&daemonset("driver", "nvidia.com/gpu.present: \"true\""));
        assert_eq!(
            got,
            [(
                Severity::Warning,
                "DaemonSet gpu-system/driver misses pool gpu-spot, which it selects: untolerated \
                 taint spot=true:NoSchedule"
                    .to_string()
            )]
        );
    }

    /// An opt-in operand selects a label no flavor declares: it only may select the spot
    /// pools (once someone labels a node there), so missing them is information, said as a
    /// maybe.
    #[test]
    fn pools_it_only_may_select_are_information() {
        let got = found(&daemonset(
            "mig-manager",
            "nvidia.com/gpu.deploy.mig-manager: \"true\"",
        ));
        assert_eq!(
            got,
            [(
                Severity::Info,
                "DaemonSet gpu-system/mig-manager may select pool gpu-spot and 1 more pool (if \
                 its nodes carry nvidia.com/gpu.deploy.mig-manager=true, a label the pool's \
                 definition does not declare) and cannot run there: untolerated taint \
                 spot=true:NoSchedule"
                    .to_string()
            )]
        );
    }
}
