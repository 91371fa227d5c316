//! `toleration-unused`: a toleration that matches no taint of the inventory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use std::hash::{DefaultHasher, Hash};

use super::workload::{hash_place, judged_toleration, pool_title};
use super::{Reading, Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::Severity;
use crate::inventory::Inventory;
use crate::k8s::model::Toleration;
use crate::schedule::admission::Source;
use crate::schedule::near::{self, NearTaint};

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
away), the message names it and says why it misses: of taints that differ only in their value,
the one whose value is fewest edits away (`value: rsk` comes closest to `dedicated=risk`, not to
`dedicated=search`), and for a workload that fits no node, the taint of the pool that comes
closest, as the `unschedulable` finding names it. Tolerations of the taints Kubernetes sets
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

    /// What the inventory answers each toleration of the manifest, and what a finding shows of
    /// the closest taint.
    fn workload_reads(&self, r: &Reading<'_>, h: &mut DefaultHasher) -> bool {
        let inv = r.inventory;
        let closest = near::closest_unplaced(
            r.simulation,
            inv,
            (r.tolerations, r.sources),
            r.node_selector.iter().map(|(k, _)| &**k),
            r.gate,
        );
        for (i, t) in r.tolerations.iter().enumerate() {
            if !judged_toleration(t, &r.sources[i]) {
                continue;
            }
            let answer = answer(inv, t, r.gate);
            match closest_of(&answer, closest.as_ref(), i) {
                None => 0u8.hash(h),
                Some(None) => {
                    1u8.hash(h);
                    tainted_nodes(inv).hash(h);
                }
                Some(Some(near)) => {
                    2u8.hash(h);
                    near.said(inv).hash(h);
                    hash_place(inv, &inv.pools[near.pool].taints[near.taint].at, h);
                    pool_title(inv, near.pool).hash(h);
                }
            }
        }
        true
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        let inv = cx.inventory;
        let gate = cx.gate();
        let w = cx.workload;
        let closest = near::closest_unplaced(
            cx.simulation,
            inv,
            (&w.tolerations, &w.sources),
            w.node_selector.iter().map(|e| &*e.key),
            gate,
        );
        for (i, t) in w.tolerations.iter().enumerate() {
            let Source::Manifest(item_index) = w.sources[i] else {
                continue;
            };
            if !judged_toleration(t, &w.sources[i]) {
                continue;
            }
            let answer = answer(inv, t, gate);
            let Some(near) = closest_of(&answer, closest.as_ref(), i) else {
                continue;
            };
            let item = &w.items[item_index];
            if cx.rejected(item) {
                continue;
            }
            let range = cx.item_range(item);
            let Some(near) = near else {
                let message = format!(
                    "tolerations[{item_index}] tolerates none of the taints on the inventory's {}",
                    tainted_nodes(inv)
                );
                cx.report(range, item.path.clone(), message);
                continue;
            };
            let pt = &inv.pools[near.pool].taints[near.taint];
            let related = format!("the closest taint, of {}", cx.pool_title(near.pool));
            let file = cx.file(&pt.at).to_string();
            let message = format!(
                "tolerations[{item_index}] tolerates no inventory taint; closest: {}",
                near.said(inv)
            );
            cx.report(range, item.path.clone(), message)
                .with_related_in(&file, pt.at.range.clone(), related);
        }
    }
}

/// What `inv` answers a toleration, worked out once per inventory when it keeps answers.
fn answer(inv: &Inventory, t: &Toleration, gate: bool) -> Arc<Answer> {
    match inv.derived(Answers::default) {
        Some(answers) => answers.get(inv, t, gate),
        None => Arc::new(Answer::new(inv, t, gate)),
    }
}

/// What the inventory answers a toleration: it tolerates one of its taints, or none, and then
/// which comes closest in the whole inventory, if one does ([`near::closest_taint`]).
enum Answer {
    Tolerated,
    Unused(Option<NearTaint>),
}

impl Answer {
    fn new(inv: &Inventory, t: &Toleration, gate: bool) -> Answer {
        if inv
            .taints()
            .iter()
            .any(|(pt, _)| t.tolerates(&pt.taint, gate))
        {
            return Answer::Tolerated;
        }
        Answer::Unused(near::closest_taint(t, inv, gate))
    }
}

/// For the `i`th toleration of a pod template, tolerating no taint (`None` when it tolerates
/// one): the taint it comes closest to, as every face names it ([`near::closest_taint_for`]:
/// the near miss of the closest pool when the template fits no node, else the inventory's).
fn closest_of(
    answer: &Answer,
    closest: Option<&near::Closest<'_>>,
    i: usize,
) -> Option<Option<NearTaint>> {
    let Answer::Unused(near) = answer else {
        return None;
    };
    Some(near::closest_taint_for(closest, i, || near.clone()))
}

/// The answers of one inventory, by toleration: a repository's workloads repeat a few
/// tolerations thousands of times, and the editor judges them all again at each keystroke in a
/// pool file. At most [`Answers::MOST`] are kept (an editor's keystrokes in a toleration each
/// ask anew).
#[derive(Default)]
struct Answers(Mutex<HashMap<(Toleration, bool), Arc<Answer>>>);

impl Answers {
    const MOST: usize = 10_000;

    fn get(&self, inv: &Inventory, t: &Toleration, gate: bool) -> Arc<Answer> {
        let key = (t.clone(), gate);
        if let Some(known) = self.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return known;
        }
        let answer = Arc::new(Answer::new(inv, t, gate));
        if let Ok(mut kept) = self.0.lock() {
            if kept.len() >= Self::MOST {
                kept.clear();
            }
            kept.insert(key, answer.clone());
        }
        answer
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
