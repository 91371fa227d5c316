//! `eviction-loop`: a finite tolerationSeconds, and every node the pod fits has the NoExecute
//! taint it bounds.

use super::workload::hash_fits;
use super::{Reading, Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::Severity;
use crate::schedule::admission::Source;
use crate::schedule::Verdict;
use std::hash::{DefaultHasher, Hash};

pub struct EvictionLoop;

pub static META: RuleMeta = RuleMeta {
    name: "eviction-loop",
    severity: Severity::Warning,
    needs_inventory: true,
    fixable: false,
    summary: "Fits only nodes whose NoExecute taint it tolerates for a limited time",
    why: "The workload never runs longer than tolerationSeconds, and nothing reports an error.",
    explanation: r#"## What it catches
A toleration with `tolerationSeconds` whose NoExecute taint is on every node the pod fits. The
scheduler places the pod (the taint is tolerated), and the taint manager evicts it once the
seconds run out; the controller makes a new pod, the scheduler has nowhere else to put it, and
the cycle repeats forever (kubernetes/kubernetes#117520). The seconds counted are upstream's:
for each NoExecute taint the first toleration that tolerates it, and the fewest seconds among
those.

## Why it matters
The workload never runs for longer than `tolerationSeconds`, restarts from scratch each time,
and nothing reports an error: the pods look healthy between evictions.

## Example
```yaml
# inventory: every node fitting has spot=true:NoExecute
tolerations:
- key: spot
  operator: Equal
  value: "true"
  effect: NoExecute
  tolerationSeconds: 3600
```

## Fix
Drop `tolerationSeconds` to tolerate the taint for good, or make the workload fit nodes without
that taint.
"#,
};

impl Rule for EvictionLoop {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// While the template fits some node that does not evict it (or none), that is all it
    /// reads; else what a finding on its placement can show.
    fn workload_reads(&self, r: &Reading<'_>, h: &mut DefaultHasher) -> bool {
        let found = only_evicting(&r.simulation.fits(r.inventory));
        found.hash(h);
        if found {
            hash_fits(r.simulation, r.inventory, h);
        }
        true
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        let inv = cx.inventory;
        let fits = cx.simulation.fits(inv);
        if !only_evicting(&fits) {
            return;
        }
        let w = cx.workload;
        // Report the toleration that bounds the time on the first fitting pool, if the manifest
        // wrote it (a default admission toleration is not the author's choice).
        let (p, _, v) = fits[0];
        let e = v.eviction.as_ref().expect("checked");
        let Some(Source::Manifest(i)) = w.sources.get(e.toleration) else {
            return;
        };
        let Some(item) = w.items.get(*i) else { return };
        let pool = &inv.pools[p];
        let taint = &pool.taints[e.taint];
        let mut pools: Vec<usize> = fits.iter().map(|(p, _, _)| *p).collect();
        pools.dedup();
        let message = format!(
            "{} fits only nodes whose taint {} evicts it after {} s, over and over",
            cx.title(),
            taint.taint,
            e.seconds,
        );
        let (range, path) = match item.field("tolerationSeconds") {
            Some(f) => (cx.span(f.value), item.field_path("tolerationSeconds")),
            None => (cx.item_range(item), item.path.clone()),
        };
        let file = cx.file(&taint.at).to_string();
        let at = taint.at.range.clone();
        let msg = if pools.len() == 1 {
            format!(
                "{}: NoExecute taint on every fitting node",
                cx.pool_title(p)
            )
        } else {
            format!(
                "{} ({} fit): NoExecute taint on every fitting node",
                cx.pool_title(p),
                super::count(pools.len(), "pool")
            )
        };
        cx.report(range, path, message)
            .with_related_in(&file, at, msg);
    }
}

/// Whether the template fits some node and every node it fits evicts it after a while.
fn only_evicting(fits: &[(usize, Option<usize>, &Verdict)]) -> bool {
    !fits.is_empty() && fits.iter().all(|(_, _, v)| v.eviction.is_some())
}
