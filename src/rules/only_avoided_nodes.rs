//! `only-avoided-nodes`: a pod template that fits only nodes with an untolerated
//! PreferNoSchedule taint.

use super::workload::{access, hash_fits, more_pools, toleration_for, LISTED_POOLS};
use super::{count, Reading, Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::{Fix, Severity};
use crate::schedule::Verdict;
use std::hash::{DefaultHasher, Hash};

pub struct OnlyAvoidedNodes;

pub static META: RuleMeta = RuleMeta {
    name: "only-avoided-nodes",
    severity: Severity::Warning,
    needs_inventory: true,
    fixable: true,
    summary: "Fits only nodes whose PreferNoSchedule taint it does not tolerate",
    why: "The scheduler puts it on nodes meant to be avoided, because nothing else fits.",
    explanation: r#"## What it catches
A pod template whose every fitting node carries a PreferNoSchedule taint it does not tolerate.
PreferNoSchedule does not filter nodes out: the scheduler's TaintToleration score only ranks
such nodes last. When they are the only ones left, the pod lands there anyway.

## Why it matters
A PreferNoSchedule taint says "keep off unless there is no other way". A workload that can only
ever run there either belongs there (and should say so with a toleration), or is meant for
nodes that the inventory does not have, or that its selector excludes.

## Example
```yaml
# inventory: pool batch, taint example.com/batch:PreferNoSchedule
nodeSelector:
  example.com/pool: batch
# no toleration of example.com/batch
```

## Fix
Tolerate the PreferNoSchedule taint (the quick fix adds the toleration), or steer the workload
to the nodes it is meant for. The quick fix needs review; when the taint keeps the pool for some
workloads (a team's or a tenant's key: any taint that is not a condition, an accelerator or the
platform's own capacity), it is by hand only, never applied in bulk.
"#,
};

impl Rule for OnlyAvoidedNodes {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// While the template fits some node it need not avoid (or none), that is all it reads;
    /// else what a finding on its placement can show.
    fn workload_reads(&self, r: &Reading<'_>, h: &mut DefaultHasher) -> bool {
        let found = only_avoided(&r.simulation.fits(r.inventory));
        found.hash(h);
        if found {
            hash_fits(r.simulation, r.inventory, h);
        }
        true
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        let fits = cx.simulation.fits(cx.inventory);
        if !only_avoided(&fits) {
            return;
        }
        let inv = cx.inventory;
        let mut pools: Vec<usize> = fits.iter().map(|(p, _, _)| *p).collect();
        pools.dedup();
        let mut related = Vec::new();
        for &p in pools.iter().take(LISTED_POOLS) {
            let pool = &inv.pools[p];
            let v = fits.iter().find(|(q, _, _)| *q == p).expect("listed").2;
            for &i in &v.avoid {
                let at = &pool.taints[i].at;
                related.push((
                    cx.file(at).to_string(),
                    at.range.clone(),
                    format!("{}: untolerated PreferNoSchedule taint", cx.pool_title(p)),
                ));
            }
        }
        let first_pool = &inv.pools[pools[0]];
        let first_taint = fits[0]
            .2
            .avoid
            .first()
            .map(|&i| first_pool.taints[i].taint.to_string())
            .unwrap_or_default();
        let others = if pools.len() > 1 {
            format!(" {}", more_pools(pools.len() - 1))
        } else {
            String::new()
        };
        let message = format!(
            "{} fits only nodes it should avoid: {} of pool {}{others}, with untolerated {}",
            cx.title(),
            count(cx.simulation.fitting(inv), "node"),
            first_pool.name,
            first_taint
        );

        let first = fits[0];
        let pool = &inv.pools[first.0];
        let add: Vec<_> = first
            .2
            .avoid
            .iter()
            .map(|&i| toleration_for(&pool.taints[i].taint))
            .collect();
        let fix = cx.add_tolerations(&add).map(|edit| {
            let (applicability, by_hand) = access(&add);
            Fix {
                title: format!(
                    "Tolerate the PreferNoSchedule taints of pool {}{by_hand}",
                    pool.name
                ),
                applicability,
                edits: vec![edit],
            }
        });
        let (range, path) = cx.anchor();
        let d = cx.report(range, path, message);
        for (file, range, msg) in related {
            d.with_related_in(&file, range, msg);
        }
        d.with_fix(fix);
    }
}

/// Whether the template fits some node and every node it fits has an untolerated
/// PreferNoSchedule taint.
fn only_avoided(fits: &[(usize, Option<usize>, &Verdict)]) -> bool {
    !fits.is_empty() && fits.iter().all(|(_, _, v)| !v.avoid.is_empty())
}
