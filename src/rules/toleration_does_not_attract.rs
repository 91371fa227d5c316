//! `toleration-does-not-attract`: a toleration lets the workload onto a dedicated pool, but
//! nothing steers it there.

use std::hash::{DefaultHasher, Hash};

use super::workload::{hash_place, judged_toleration, pool_title};
use super::{Reading, Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::Severity;
use crate::inventory::{Inventory, NodeCount, PoolTaint};
use crate::k8s::model::do_not_schedule;
use crate::k8s::model::Toleration;
use crate::schedule::admission::Source;
use crate::schedule::Simulation;

pub struct TolerationDoesNotAttract;

pub static META: RuleMeta = RuleMeta {
    name: "toleration-does-not-attract",
    severity: Severity::Info,
    needs_inventory: true,
    fixable: false,
    summary: "Tolerates a dedicated pool's taint, but may land anywhere",
    why: "A taint keeps other pods off the pool; it does not pull this one in.",
    explanation: r#"## What it catches
A toleration that lets a workload onto a pool kept for others by a NoSchedule or NoExecute
taint, while the workload also fits nodes outside that pool: nothing (no `nodeSelector`, no
required node affinity, or one that admits other nodes too, and no preferred node affinity for
the pool's labels) steers it there. The message says
how many fitting nodes lie outside the pool. DaemonSets, meant to run everywhere, are not
reported.

## Why it matters
A taint keeps other pods off; it does not pull any pod on. A GPU job that tolerates the GPU
taint but has no selector is as likely to land on a CPU node, where it fails or runs slowly,
and the GPU nodes stay idle.

## Example
```yaml
tolerations:
- {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
# no nodeSelector / affinity: any untainted node will do too
```

## Fix
Add a `nodeSelector` (or required node affinity) on the pool's label, next to the toleration.
"#,
};

impl Rule for TolerationDoesNotAttract {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// The pools each toleration of the manifest opens, what a finding shows of them, and how
    /// many other nodes the template fits.
    fn workload_reads(&self, r: &Reading<'_>, h: &mut DefaultHasher) -> bool {
        if r.kind == Some("DaemonSet") {
            return true;
        }
        let inv = r.inventory;
        for (i, t) in r.tolerations.iter().enumerate() {
            if !judged_toleration(t, &r.sources[i]) {
                continue;
            }
            let (opened, outside) = opens(t, r.gate, r.simulation, inv);
            for (p, pt) in &opened {
                p.hash(h);
                crate::schedule::prefers(r.preferred, &inv.pools[*p]).hash(h);
                inv.pools[*p].name.hash(h);
                pool_title(inv, *p).hash(h);
                hash_place(inv, &pt.at, h);
            }
            // Nothing opened: the count is not read.
            if !opened.is_empty() {
                outside.hash(h);
            }
            usize::MAX.hash(h);
        }
        true
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        let w = cx.workload;
        if w.kind == Some("DaemonSet") {
            return;
        }
        let inv = cx.inventory;
        let gate = cx.gate();
        // Each pool is reported once, for the first toleration that opens it.
        let mut reported: Vec<usize> = Vec::new();
        for (i, t) in w.tolerations.iter().enumerate() {
            let Source::Manifest(item_index) = w.sources[i] else {
                continue;
            };
            if !judged_toleration(t, &w.sources[i]) || cx.rejected(&w.items[item_index]) {
                continue;
            }
            let (mut opened, outside) = opens(t, gate, cx.simulation, inv);
            if opened.is_empty() {
                continue;
            }
            // A pool its preferred node affinity prefers is where the scheduler sends it
            // first: something steers it there.
            opened.retain(|(p, _)| !reported.contains(p) && !w.prefers(&inv.pools[*p]));
            if outside.is_zero() || opened.is_empty() {
                continue;
            }
            let (p, pt) = opened[0];
            reported.extend(opened.iter().map(|(p, _)| *p));
            let pools = if opened.len() == 1 {
                format!("pool {}", inv.pools[p].name)
            } else {
                format!(
                    "pool {} {}",
                    inv.pools[p].name,
                    super::workload::more_pools(opened.len() - 1)
                )
            };
            let steer = if w.steered() {
                "its selectors admit"
            } else {
                "nothing steers it there: it fits"
            };
            let other = match outside.known() {
                Some(1) => "1 other node".to_string(),
                Some(n) => format!("{n} other nodes"),
                None if outside.max.is_none() && outside.min == 0 => {
                    "other nodes (how many is unknown)".to_string()
                }
                None => format!("other nodes ({outside})"),
            };
            let message =
                format!("tolerations[{item_index}] lets it onto {pools}, but {steer} {other} too");
            let item = &w.items[item_index];
            let range = cx.item_range(item);
            let file = cx.file(&pt.at).to_string();
            let at = pt.at.range.clone();
            let msg = format!("the taint it tolerates, of {}", cx.pool_title(p));
            cx.report(range, item.path.clone(), message)
                .with_related_in(&file, at, msg);
        }
    }
}

/// The pools a toleration opens (a NoSchedule or NoExecute taint of theirs it tolerates, the
/// first, and the pod fits some of their nodes), and the nodes of the other pools the pod
/// fits.
fn opens<'i>(
    t: &Toleration,
    gate: bool,
    simulation: &Simulation,
    inv: &'i Inventory,
) -> (Vec<(usize, &'i PoolTaint)>, NodeCount) {
    let mut opened = Vec::new();
    for (p, pool) in inv.pools.iter().enumerate() {
        let taint = pool
            .taints
            .iter()
            .find(|pt| do_not_schedule(&pt.taint) && t.tolerates(&pt.taint, gate));
        if let Some(pt) = taint {
            if simulation.pools[p].fitting(pool) > 0 {
                opened.push((p, pt));
            }
        }
    }
    let outside: NodeCount = inv
        .pools
        .iter()
        .enumerate()
        .filter(|(p, _)| !opened.iter().any(|(q, _)| q == p))
        .map(|(p, pool)| pool.nodes_of(simulation.pools[p].fitting(pool)))
        .sum();
    (opened, outside)
}
