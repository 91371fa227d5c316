//! `unschedulable`: a pod template that fits no node of the inventory.

use super::workload::{closest_toleration, misses_text, more_pools, toleration_for, LISTED_POOLS};
use super::{Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::model::{Effect, Toleration};
use crate::k8s::well_known::UNSCHEDULABLE;
use crate::schedule::{Reason, Verdict};

pub struct Unschedulable;

pub static META: RuleMeta = RuleMeta {
    name: "unschedulable",
    severity: Severity::Error,
    needs_inventory: true,
    fixable: true,
    summary: "A pod template that fits no node of the inventory",
    explanation: r#"## What it catches
A pod template (of a Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController,
Job, CronJob or PodTemplate) that kube-scheduler would let onto none of the inventory's nodes.
Every node is checked the way the scheduler's filters check it: each NoSchedule and NoExecute
taint must be tolerated (TaintToleration), a cordoned node (`spec.unschedulable: true`) needs a
toleration of `node.kubernetes.io/unschedulable:NoSchedule` (NodeUnschedulable), `nodeName`
must name the node (NodeName), and `nodeSelector` and required node affinity must match its
labels (NodeAffinity). A pod with `nodeName` bypasses the scheduler: the kubelet admits it and
enforces only NoExecute taints and the selectors, so that is what is checked for it. The
tolerations the pod gets without asking are counted: the DaemonSet
controller's, and those of the DefaultTolerationSeconds and (when enabled)
ExtendedResourceToleration admission plugins.

The message says, pool by pool, what blocks the template (the untolerated taint, the selector
that excludes it, the cordon), names the toleration that comes closest and why it misses, and
points into the inventory file at each blocking taint.

## Why it matters
The API server accepts the manifest; the pods then stay Pending with
`0/12 nodes are available: 8 node(s) had untolerated taint {nvidia.com/gpu: present}`, and a
DaemonSet just runs zero pods, silently.

## Example
```yaml
# inventory: pool gpu, taint nvidia.com/gpu=present:NoSchedule
tolerations:
- key: nvidia.com/gpu
  operator: Equal
  value: "true"          # the taint's value is "present"
  effect: NoSchedule
```

## Fix
Tolerate the taint of the pool the workload is meant for (the quick fix adds exactly that
toleration for the closest pool), or correct the selector that excludes every node.
"#,
};

/// How far a pool is from admitting the template: selector mismatches weigh far more than
/// taints, which a toleration can fix.
fn distance(v: &Verdict, near_miss: bool) -> usize {
    let mut d: usize = v
        .reasons
        .iter()
        .map(|r| if r.tolerable() { 10 } else { 100 })
        .sum();
    if near_miss {
        d = d.saturating_sub(5);
    }
    d
}

impl Rule for Unschedulable {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        if cx.simulation.fits_anywhere() || cx.inventory.pools.is_empty() {
            return;
        }
        let inv = cx.inventory;
        let gate = cx.gate();
        let w = cx.workload;
        // Each pool's most promising node verdict, and how far it is.
        let mut pools: Vec<(usize, &Verdict, usize)> = Vec::new();
        for (p, (pv, pool)) in cx.simulation.pools.iter().zip(&inv.pools).enumerate() {
            let groups = pv.groups(pool);
            let Some(&(v, _, _)) = groups.iter().min_by_key(|(v, _, _)| v.reasons.len()) else {
                continue;
            };
            let taints = v.untolerated_taints();
            let near = closest_toleration(w, pool, &taints, gate).is_some();
            pools.push((p, v, distance(v, near)));
        }
        let mut order: Vec<usize> = (0..pools.len()).collect();
        order.sort_by_key(|&i| {
            let (p, _, d) = pools[i];
            (d, std::cmp::Reverse(inv.pools[p].nodes.len()), p)
        });
        let (closest, closest_verdict, _) = pools[order[0]];
        let closest_pool = &inv.pools[closest];

        let mut parts = Vec::new();
        for &i in order.iter().take(LISTED_POOLS) {
            let (p, v, _) = pools[i];
            let pool = &inv.pools[p];
            let why: Vec<String> = v.reasons.iter().map(|r| r.explain(pool)).collect();
            parts.push(format!("{}: {}", cx.pool_title(p), why.join(", ")));
        }
        if order.len() > LISTED_POOLS {
            parts.push(more_pools(order.len() - LISTED_POOLS));
        }
        let mut message = format!(
            "{} fits none of the inventory's {} nodes: {}",
            cx.title(),
            inv.node_count(),
            parts.join("; ")
        );
        if w.kind == Some("DaemonSet") {
            message.push_str(" (the DaemonSet will run no pods)");
        }

        let taints = closest_verdict.untolerated_taints();
        let closest_tol = closest_toleration(w, closest_pool, &taints, gate);
        let mut related_here = None;
        if let Some((ti, taint, misses)) = &closest_tol {
            let item = w.manifest_item(*ti);
            let name = item.map_or("a toleration".to_string(), |it| {
                format!("tolerations[{}]", it.index)
            });
            message.push_str(&format!(
                "; closest: {name} misses {}'s taint {}: {}",
                closest_pool.name,
                closest_pool.taints[*taint].taint,
                misses_text(misses)
            ));
            related_here = item.map(|it| {
                (
                    cx.item_range(it),
                    format!("closest toleration: {}", misses_text(misses)),
                )
            });
        }

        // Where to point: the selector when that is what blocks the closest pool, else the
        // tolerations.
        let (range, path) = match closest_verdict.reasons.iter().find(|r| !r.tolerable()) {
            Some(Reason::NodeName(_)) => {
                let (_, v) = w
                    .node_name
                    .as_ref()
                    .expect("a nodeName reason has a nodeName");
                (cx.span(*v), format!("{}.nodeName", w.path))
            }
            Some(Reason::NodeSelector { key, .. }) => {
                match w.node_selector.iter().find(|e| e.key == *key) {
                    Some(e) => (
                        cx.span(e.key_node),
                        format!("{}.nodeSelector.{key}", w.path),
                    ),
                    None => cx.anchor(),
                }
            }
            Some(Reason::NodeAffinity(_)) => match &w.affinity {
                Some(a) => (
                    cx.span(a.key),
                    format!(
                        "{}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                        w.path
                    ),
                ),
                None => cx.anchor(),
            },
            _ => cx.anchor(),
        };

        // The fix: tolerate what blocks the closest pool, when only taints and the cordon do.
        let fix = if closest_verdict.reasons.iter().all(Reason::tolerable) {
            let mut add: Vec<Toleration> = Vec::new();
            for r in &closest_verdict.reasons {
                match r {
                    Reason::Taint(i) => add.push(toleration_for(&closest_pool.taints[*i].taint)),
                    Reason::Unschedulable => {
                        add.push(Toleration::exists(UNSCHEDULABLE, Effect::NoSchedule))
                    }
                    _ => {}
                }
            }
            let what: Vec<String> = add
                .iter()
                .map(|t| {
                    let v = if t.value.is_empty() {
                        String::new()
                    } else {
                        format!("={}", t.value)
                    };
                    format!("{}{v}:{}", t.key, t.effect.map_or("", |e| e.as_str()))
                })
                .collect();
            cx.add_tolerations(&add).map(|edit| Fix {
                title: format!(
                    "Tolerate {} (lets it onto pool {})",
                    what.join(", "),
                    closest_pool.name
                ),
                applicability: Applicability::NeedsReview,
                edits: vec![edit],
            })
        } else {
            None
        };

        let mut related = Vec::new();
        for &i in order.iter().take(LISTED_POOLS) {
            let (p, v, _) = pools[i];
            let pool = &inv.pools[p];
            for r in &v.reasons {
                let at = match r {
                    Reason::Taint(t) => pool.taints[*t].at.clone(),
                    Reason::Unschedulable => pool.unschedulable.clone().unwrap_or(pool.at.clone()),
                    _ => pool.at.clone(),
                };
                related.push((
                    cx.file(&at).to_string(),
                    at.range,
                    format!("{}: {}", cx.pool_title(p), r.explain(pool)),
                ));
            }
        }
        let d = cx.report(range, path, message);
        if let Some((range, msg)) = related_here {
            d.with_related(range, msg);
        }
        for (file, range, msg) in related {
            d.with_related_in(&file, range, msg);
        }
        d.with_fix(fix);
    }
}
