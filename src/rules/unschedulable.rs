//! `unschedulable`: a pod template that fits no node of the inventory.

use super::workload::{hash_shown, hash_verdict, more_pools, toleration_for, LISTED_POOLS};
use super::{edits, Reading, Rule, RuleMeta, WorkloadCx};
use crate::diagnostic::{Fix, Severity};
use crate::k8s::model::{Effect, Miss, Toleration};
use crate::k8s::well_known::UNSCHEDULABLE;
use crate::schedule::near::{self, NearMiss};
use crate::schedule::placement::PlacedNear;
use crate::schedule::Reason;
use std::hash::{DefaultHasher, Hash};
use std::ops::Range;

pub struct Unschedulable;

pub static META: RuleMeta = RuleMeta {
    name: "unschedulable",
    severity: Severity::Error,
    needs_inventory: true,
    fixable: true,
    summary: "A pod template that fits no node of the inventory",
    why: "The API server accepts it; the pods then stay Pending (a DaemonSet runs none).",
    explanation: r#"## What it catches
A pod template (of a Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController,
Job, CronJob or PodTemplate) that kube-scheduler would let onto none of the inventory's nodes.
Every node is checked the way the scheduler's filters check it: each NoSchedule and NoExecute
taint must be tolerated (TaintToleration), a cordoned node (`spec.unschedulable: true`) needs a
toleration of `node.kubernetes.io/unschedulable:NoSchedule` (NodeUnschedulable), `nodeName`
must name the node (NodeName), `nodeSelector` and required node affinity must match its
labels (NodeAffinity), a `DoNotSchedule` topology spread constraint's `topologyKey` must be a
label the node carries (PodTopologySpread,
pkg/scheduler/framework/plugins/podtopologyspread/filtering.go: a node without it is
`UnschedulableAndUnresolvable`; how many matching pods each domain already holds is about the
running cluster, which no file says, and is not judged), and the pod's requests must fit what
the node has allocatable
(NodeResourcesFit, pkg/scheduler/framework/plugins/noderesources/fit.go): the containers'
requests summed, init containers as a floor, sidecars and RuntimeClass overhead added; a node
without an extended resource such as `nvidia.com/gpu` has none of it. What a node offers comes
from its `status.allocatable` (a pool file's `allocatable`, the instance types of a pool defined
as code); where the inventory does not say, an extended resource, and CPU or memory beyond what
every node offers (500m, 512Mi), may fit. Resource claims (Dynamic Resource Allocation) are
counted against the inventory's ResourceSlices where the DeviceClass selects by driver and
string attributes; otherwise they may fit. A pod with `nodeName` bypasses
the scheduler: the kubelet admits it and enforces only NoExecute taints and the selectors, so
that is what is checked for it. The tolerations the pod gets without asking are counted: the
DaemonSet controller's, and those of the DefaultTolerationSeconds and (when enabled)
ExtendedResourceToleration admission plugins.

The message names the pool that comes closest and what keeps the template off it: the toleration
that nearly matches its taint and why it misses (and the finding points at that field), or the
taint, selector or cordon that blocks it. A nodeSelector label that no node has is said as
such. The related locations say, pool by pool, what blocks the template, pointing into the
inventory file at each blocking taint.

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
Tolerate the taint of the pool the workload is meant for, or correct the selector that excludes
every node. The quick fix corrects the toleration that nearly matches in place (its value, key or
effect, in the file's quoting) and adds, in the list's own style, a toleration for whatever else
keeps the template off the closest pool. It needs review (`--unsafe-fixes`): it lets the
workload onto that pool. When what it adds tolerates a taint that keeps the pool for some
workloads (`dedicated=<team>`, a tenant's, the control plane's: any taint that is not a
condition, an accelerator or the platform's own capacity), it is a fix by hand only, never
applied in bulk: who may use such a pool is for a person to decide.
"#,
};

/// Where a container asks for `resource`: the first `resources.requests.<resource>` (else
/// `limits`, which defaults the request) of the containers, then of the init containers, with
/// its path from the pod spec; the pod-level `resources` last.
fn resource_request(
    doc: &crate::syntax::Document<'_>,
    spec: crate::syntax::NodeId,
    resource: &str,
) -> Option<(crate::syntax::NodeId, String)> {
    for list in ["containers", "initContainers"] {
        let Some((_, seq)) = doc.get(spec, list) else {
            continue;
        };
        for (i, &c) in doc.sequence(seq).unwrap_or_default().iter().enumerate() {
            for part in ["requests", "limits"] {
                let found = doc
                    .get(c, "resources")
                    .and_then(|(_, r)| doc.get(r, part))
                    .and_then(|(_, m)| doc.get(m, resource));
                if let Some((_, v)) = found {
                    return Some((v, format!("{list}[{i}].resources.{part}.{resource}")));
                }
            }
        }
    }
    for part in ["requests", "limits"] {
        let found = doc
            .get(spec, "resources")
            .and_then(|(_, r)| doc.get(r, part))
            .and_then(|(_, m)| doc.get(m, resource));
        if let Some((_, v)) = found {
            return Some((v, format!("resources.{part}.{resource}")));
        }
    }
    None
}

impl Rule for Unschedulable {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    /// While the template fits some node (or there is no pool), that is all it reads; else
    /// whether each nodeSelector entry is one no node has, and the pools a finding shows:
    /// the closest ones (what ranks the others is how many there are).
    fn workload_reads(&self, r: &Reading<'_>, h: &mut DefaultHasher) -> bool {
        let (sim, inv) = (r.simulation, r.inventory);
        let quiet = sim.fits_anywhere() || inv.pools.is_empty();
        quiet.hash(h);
        if quiet {
            return true;
        }
        if r.kind == Some("DaemonSet") {
            hash_shown(sim, inv, h);
            return true;
        }
        for (key, _) in r.node_selector {
            near::no_node_has(sim, inv, key).hash(h);
        }
        let (pools, order) = near::ranked(sim, inv, (r.tolerations, r.sources), r.gate);
        order.len().hash(h);
        for &i in order.iter().take(LISTED_POOLS + 1) {
            let (p, v, d) = pools[i];
            d.hash(h);
            hash_verdict(inv, p, v, h);
        }
        true
    }

    fn check_workload(&self, cx: &mut WorkloadCx<'_, '_>) {
        if cx.simulation.fits_anywhere() || cx.inventory.pools.is_empty() {
            return;
        }
        // A DaemonSet that picks no node runs nowhere by design: `daemonset-selects-no-node`.
        if cx.workload.kind == Some("DaemonSet") && cx.simulation.coverage(cx.inventory).picked == 0
        {
            return;
        }
        let w = cx.workload;
        let daemonset = if w.kind == Some("DaemonSet") {
            " (the DaemonSet runs no pods)"
        } else {
            ""
        };

        // A nodeSelector entry no node has: that alone is the answer, whatever else blocks.
        if let Some(e) = w.node_selector.iter().find(|e| no_node_has(cx, &e.key)) {
            let message = format!(
                "{} fits no node: no node has `{}={}`{daemonset}",
                cx.title(),
                e.key,
                e.value
            );
            let (range, path) = (
                cx.span(e.key_node),
                format!("{}.nodeSelector.{}", w.path, e.key),
            );
            cx.report(range, path, message);
            return;
        }

        let Some(closest) = closest(cx) else {
            return;
        };
        let message = message(cx, &closest, daemonset);
        let (range, path) = place(cx, &closest);
        let fix = fix(cx, &closest);
        let related = related(cx, &closest);
        let d = cx.report(range, path, message);
        for (file, range, msg) in related {
            d.with_related_in(&file, range, msg);
        }
        d.with_fix(fix);
    }
}

/// The message: the closest pool and what keeps the template off it, the near miss among its
/// tolerations first (every pool's reasons are related locations, see [`related`]), in the
/// words every face uses ([`near::Closest::said`]).
fn message(cx: &WorkloadCx<'_, '_>, c: &Closest<'_, '_>, daemonset: &str) -> String {
    let sep = if c.at.near_miss.is_some() { ":" } else { ";" };
    format!(
        "{} fits no node{sep} {}{daemonset}",
        cx.title(),
        c.at.said(cx.inventory)
    )
}

/// Where to point: the near miss's wrong field, else the selector, node name, resource request
/// or affinity when that is what blocks the closest pool, else the tolerations (or the
/// template); with that place's path.
fn place(cx: &WorkloadCx<'_, '_>, c: &Closest<'_, '_>) -> (Range<usize>, String) {
    let w = cx.workload;
    match (
        c.near_miss(),
        c.at.verdict.reasons.iter().find(|r| !r.tolerable()),
    ) {
        (Some((item, near)), _) => {
            let field = near.misses.iter().find_map(|m| match m {
                Miss::Key { .. } => Some("key"),
                Miss::Value { .. } => Some("value"),
                Miss::Effect { .. } => Some("effect"),
                _ => None,
            });
            match field.and_then(|f| Some((f, item.field(f)?))) {
                Some((f, field)) => (cx.span(field.value), item.field_path(f)),
                None => (cx.item_range(item), item.path.clone()),
            }
        }
        (None, Some(Reason::NodeName(_))) => {
            let (_, v) = w
                .node_name
                .as_ref()
                .expect("a nodeName reason has a nodeName");
            (cx.span(*v), format!("{}.nodeName", w.path))
        }
        (None, Some(Reason::NodeSelector { key, .. })) => {
            match w.node_selector.iter().find(|e| e.key == *key) {
                Some(e) => (
                    cx.span(e.key_node),
                    format!("{}.nodeSelector.{key}", w.path),
                ),
                None => cx.anchor(),
            }
        }
        (None, Some(Reason::TopologyKey(key))) => {
            match w.spread_keys.iter().find(|s| s.key == *key) {
                Some(s) => (
                    cx.span(s.node),
                    format!(
                        "{}.topologySpreadConstraints[{}].topologyKey",
                        w.path, s.index
                    ),
                ),
                None => cx.anchor(),
            }
        }
        (None, Some(Reason::Insufficient { resource, .. })) => {
            match resource_request(cx.doc, w.spec, resource) {
                Some((node, path)) => (cx.span(node), format!("{}.{path}", w.path)),
                None => cx.anchor(),
            }
        }
        (None, Some(Reason::NodeAffinity(_))) => match &w.affinity {
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
    }
}

/// The fix, offered only when taints and the cordon alone keep the template off the closest
/// pool: correct the near miss in place, and tolerate whatever else blocks (needs review: it
/// lets the pods onto that pool).
fn fix(cx: &WorkloadCx<'_, '_>, c: &Closest<'_, '_>) -> Option<Fix> {
    let closest_pool = &cx.inventory.pools[c.at.pool];
    if !c.at.verdict.reasons.iter().all(Reason::tolerable) {
        return None;
    }
    let corrected = c.near_miss().and_then(|(item, near)| {
        correct_near_miss(
            cx,
            item,
            &closest_pool.taints[near.taint].taint,
            &near.misses,
        )
        .map(|edits| (item.index, near.taint, edits))
    });
    let mut add: Vec<Toleration> = Vec::new();
    for r in &c.at.verdict.reasons {
        match r {
            Reason::Taint(i) if corrected.as_ref().is_some_and(|c| c.1 == *i) => {}
            Reason::Taint(i) => add.push(toleration_for(&closest_pool.taints[*i].taint)),
            Reason::Unschedulable => {
                add.push(Toleration::exists(UNSCHEDULABLE, Effect::NoSchedule))
            }
            _ => {}
        }
    }
    let mut edits = Vec::new();
    let mut what = Vec::new();
    if let Some((index, taint, e)) = &corrected {
        edits.extend(e.iter().cloned());
        what.push(format!(
            "Change tolerations[{index}] to tolerate {}",
            closest_pool.taints[*taint].taint
        ));
    }
    if !add.is_empty() {
        match cx.add_tolerations(&add) {
            Some(edit) => {
                edits.push(edit);
                let names: Vec<String> = add.iter().map(toleration_text).collect();
                what.push(format!("tolerate {}", names.join(", ")));
            }
            None => edits.clear(),
        }
    }
    (!edits.is_empty() && !what.is_empty()).then(|| {
        let mut title = what.join(", and ");
        if let Some(first) = title.get(..1) {
            title = first.to_uppercase() + &title[1..];
        }
        let (applicability, by_hand) = super::workload::access(&add);
        Fix {
            title: format!("{title} (lets it onto pool {}){by_hand}", closest_pool.name),
            applicability,
            edits,
        }
    })
}

/// What keeps the template off each pool, closest first (at most [`LISTED_POOLS`], then how
/// many more), and the taints it gets past only by a toleration from elsewhere than its
/// manifest: (file, range, message) in the inventory.
fn related(cx: &WorkloadCx<'_, '_>, c: &Closest<'_, '_>) -> Vec<(String, Range<usize>, String)> {
    let (pools, order) = (&c.at.pools, &c.at.order);
    let inv = cx.inventory;
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
        // The taints it gets past only by a toleration from elsewhere than its manifest.
        for (t, source) in &v.granted {
            let at = pool.taints[*t].at.clone();
            related.push((
                cx.file(&at).to_string(),
                at.range,
                format!(
                    "{}: tolerates {} by a toleration {}",
                    cx.pool_title(p),
                    pool.taints[*t].taint,
                    source.origin()
                ),
            ));
        }
    }
    if order.len() > LISTED_POOLS {
        let (file, at) = {
            let pool = &inv.pools[pools[order[LISTED_POOLS]].0];
            (cx.file(&pool.at).to_string(), pool.at.range.clone())
        };
        related.push((file, at, more_pools(order.len() - LISTED_POOLS)));
    }
    related
}

/// The pool that comes closest to admitting a pod template that fits no node, and the near
/// miss among its tolerations ([`near::closest`]), with the manifest item it is; a near miss
/// the API server would reject as written is none (what it matches is moot until it is valid).
struct Closest<'v, 'd> {
    at: near::Closest<'v>,
    item: Option<&'d crate::k8s::objects::Item<'d>>,
}

impl<'d> Closest<'_, 'd> {
    fn near_miss(&self) -> Option<(&'d crate::k8s::objects::Item<'d>, &NearMiss)> {
        Some((self.item?, self.at.near_miss.as_ref()?))
    }
}

fn closest<'v, 'd>(cx: &'v WorkloadCx<'_, 'd>) -> Option<Closest<'v, 'd>> {
    let (inv, w, gate) = (cx.inventory, cx.workload, cx.gate());
    let tolerations = (w.tolerations.as_slice(), w.sources.as_slice());
    let mut at = near::closest(cx.simulation, inv, tolerations, gate)?;
    let item = at
        .near_miss
        .as_ref()
        .and_then(|n| w.manifest_item(n.toleration))
        .filter(|item| !cx.rejected(item));
    if item.is_none() {
        at.near_miss = None;
    }
    Some(Closest { at, item })
}

/// The closest pool and its near miss as every face says them, for a pod template that fits no
/// node (`None` when it fits some node, or there is no pool); with the same pool, near miss and
/// words as the finding.
pub(crate) fn closest_said(cx: &WorkloadCx<'_, '_>) -> Option<Said> {
    if cx.simulation.fits_anywhere() || cx.inventory.pools.is_empty() {
        return None;
    }
    if let Some(e) = cx
        .workload
        .node_selector
        .iter()
        .find(|e| no_node_has(cx, &e.key))
    {
        return Some(Said {
            cause: format!("no node has `{}={}`", e.key, e.value),
            why: None,
            near: None,
        });
    }
    let c = closest(cx)?;
    let near = c.near_miss().and_then(|(item, n)| {
        Some(PlacedNear {
            path: item.path.clone(),
            pool: cx.inventory.pools[c.at.pool].name.clone(),
            said: c.at.near_taint()?.said(cx.inventory),
            miss: n.clone(),
        })
    });
    Some(Said {
        cause: c.at.short(cx.inventory),
        why: Some(c.at.short_why(
            cx.inventory,
            crate::schedule::placement::LENS_WIDTH - "fits no node: ".len(),
        )),
        near,
    })
}

/// What keeps a pod template that fits no node off the pool that comes closest, in a few words
/// for a code lens (`no node has `disk=nvme``, `closest pool gpu: tolerations[0] has value
/// "true", not "present"`, `closest pool gpu: nodeSelector pool=gpus does not match`), and its
/// near miss: the taint, the miss, and the toleration item's path.
#[derive(Debug, Clone)]
pub(crate) struct Said {
    pub cause: String,
    /// The cause without the closest pool's name, for a lens it leaves no room in.
    pub why: Option<String>,
    pub near: Option<PlacedNear>,
}

/// Whether no node of the inventory has the label that a nodeSelector entry asks for: every
/// node of every pool is kept off by it.
fn no_node_has(cx: &WorkloadCx<'_, '_>, key: &str) -> bool {
    near::no_node_has(cx.simulation, cx.inventory, key)
}

/// `key=value:Effect` of a toleration that tolerates exactly one taint.
fn toleration_text(t: &Toleration) -> String {
    let v = if t.value.is_empty() {
        String::new()
    } else {
        format!("={}", t.value)
    };
    format!("{}{v}:{}", t.key, t.effect.map_or("", |e| e.as_str()))
}

/// The edits that make a near-miss toleration tolerate `taint`: its key, value or effect
/// rewritten in place (in the file's quoting). `None` when a miss is not one an edit of a
/// field mends (a comparison operator) or the toleration is written through an alias.
fn correct_near_miss(
    cx: &WorkloadCx<'_, '_>,
    item: &crate::k8s::objects::Item<'_>,
    taint: &crate::k8s::model::Taint,
    misses: &[Miss],
) -> Option<Vec<crate::diagnostic::Edit>> {
    let mut out = Vec::new();
    for m in misses {
        let (name, want) = match m {
            Miss::Key { .. } => ("key", taint.key.as_str()),
            Miss::Value { .. } => ("value", taint.value.as_str()),
            Miss::Effect { .. } => ("effect", taint.effect.as_str()),
            _ => return None,
        };
        match item.field(name) {
            Some(f) if !cx.span(f.value).is_empty() => out.push(edits::replace_scalar_as_string(
                cx.text, cx.doc, f.value, want,
            )?),
            _ => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}
