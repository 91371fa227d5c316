//! Where a change moves workloads: the simulations of two revisions compared, workload by
//! workload and pool by pool, and for each workload whose placement moved, the cause, placed at
//! the line that holds it (the taint added to a pool, the toleration removed from a manifest,
//! the pool that is gone).
//!
//! A workload is the same on both sides when its file, kind, namespace, name and pod-spec path
//! are (then, for a file that was moved or renamed, when the rest are); a pool when its name is
//! (then when everything it offers is: a pool renamed). Its placement moved when how it fits the
//! cluster changed (`yes`, `avoided`, `may`, `no`, refused by the API server), when the set of
//! pools it fits changed, or, for a DaemonSet, when the pools with nodes it picks and cannot run
//! on changed. A pool that only grew or shrank moves nothing.

use std::collections::HashMap;

use serde::Serialize;

use super::lines::Changed;
use super::model::{Cluster, Pool, Reason, Simulation, Taint, Workload};
use crate::k8s::model::{Effect, Taint as K8sTaint};
use crate::position::LineIndex;
use crate::syntax::{self, Document, NodeId};

/// The revision a place is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The base revision (what the change removed is only there).
    Before,
    /// The working tree.
    After,
}

/// Where a workload stands on one side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// As `fits` says it in the simulation (`yes`, `avoided`, `may`, `no`).
    pub fits: String,
    /// How many nodes it fits (members of pools defined as code count one each).
    pub nodes: usize,
    /// The pools it fits, some of their nodes at least.
    pub pools: Vec<String>,
    /// Why the API server would refuse its pods, if it would.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    /// For a DaemonSet: the nodes its selector picks, those it cannot run on, and their pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemonset: Option<Coverage>,
    /// Whether every pool it fits lists its nodes (then `nodes` counts nodes).
    #[serde(skip)]
    pub counted: bool,
}

impl Placement {
    /// Whether it runs nowhere it should: refused, or on no node (a DaemonSet that picks no node
    /// runs nowhere by design).
    pub fn runs_nowhere(&self) -> bool {
        crate::schedule::runs_nowhere(
            self.rejected.is_some(),
            self.daemonset.as_ref().map(|d| d.picked),
            || self.fits != "no",
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub picked: usize,
    pub missed: usize,
    #[serde(rename = "missedPools")]
    pub missed_pools: Vec<String>,
}

/// What moved a workload, and where that is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cause {
    /// `taint-added`, `taint-changed`, `taint-removed`, `toleration-removed`,
    /// `toleration-changed`, `toleration-added`, `pool-added`, `pool-removed`, `label-changed`,
    /// `node-selector-changed`, `cordoned`, `uncordoned`, `resources`, `rejected`, `accepted`,
    /// `other`.
    pub code: &'static str,
    pub message: String,
    /// The pool it is about, by its name on `side`.
    pub pool: Option<String>,
    /// The taint it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taint: Option<Taint>,
    /// The label or nodeSelector key it is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub file: String,
    /// 1-based; `null` when the place is not known to the line.
    pub line: Option<usize>,
    /// The revision `file` and `line` are in: `before` for what the change removed.
    pub side: Side,
}

/// A workload whose placement the change moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The workload as the working tree has it (its file, document and path there).
    pub file: String,
    pub document: usize,
    pub item: Option<usize>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub path: String,
    /// `Deployment shop/web`.
    pub title: String,
    /// Its file at the base revision, when it was another (moved or renamed).
    pub file_before: String,
    pub document_before: usize,
    pub path_before: String,
    pub before: Placement,
    pub after: Placement,
    pub cause: Cause,
    /// Whether it moved for the worse (fits less, or is refused).
    pub worse: bool,
}

/// What the comparison counted beside the changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Workloads on both sides.
    pub compared: usize,
    /// Workloads only in the working tree, and only at the base revision.
    pub added: usize,
    pub removed: usize,
    /// Workloads only in the working tree that run nowhere.
    pub added_nowhere: usize,
}

/// The changes of placement from `before` to `after`, in the working tree's order, and counts.
/// Each cause is placed at a pool's definition or at the workload; [`place`] then finds the
/// line itself in the files' texts.
pub fn compare(before: &Simulation, after: &Simulation) -> (Vec<Change>, Counts) {
    let pools = PoolMap::new(&before.cluster, &after.cluster);
    let pairs = pair_workloads(&before.workloads, &after.workloads);
    let mut counts = Counts {
        compared: pairs.iter().filter(|(b, _)| b.is_some()).count(),
        removed: before.workloads.len(),
        ..Counts::default()
    };
    counts.removed -= counts.compared;
    let mut changes = Vec::new();
    for (b, a) in pairs {
        let wa = &after.workloads[a];
        let Some(b) = b else {
            counts.added += 1;
            counts.added_nowhere += usize::from(wa.runs_nowhere());
            continue;
        };
        let wb = &before.workloads[b];
        if let Some(change) = compare_one(wb, wa, before, after, &pools) {
            changes.push(change);
        }
    }
    (changes, counts)
}

/// How well a workload fits a pool, to compare: more is better.
fn pool_rank(fit: &str) -> u8 {
    match fit {
        "yes" => 3,
        "partial" => 2,
        "avoided" => 1,
        _ => 0,
    }
}

/// How well a workload fits the cluster, to compare: more is better.
fn rank(w: &Workload) -> i8 {
    if w.rejected.is_some() {
        return -1;
    }
    match w.fits.as_str() {
        "yes" => 3,
        "may" => 2,
        "avoided" => 1,
        _ => 0,
    }
}

/// The pools of two clusters that are the same pool: by name, then the rest by what they offer.
struct PoolMap {
    /// Before pool id -> after pool id.
    forth: HashMap<usize, usize>,
    back: HashMap<usize, usize>,
}

impl PoolMap {
    fn new(before: &Cluster, after: &Cluster) -> PoolMap {
        let mut forth = HashMap::new();
        let mut back = HashMap::new();
        let by_name: HashMap<&str, usize> = after
            .pools
            .iter()
            .map(|p| (p.name.as_str(), p.id))
            .collect();
        for p in &before.pools {
            if let Some(&a) = by_name.get(p.name.as_str()) {
                forth.insert(p.id, a);
                back.insert(a, p.id);
            }
        }
        // A pool renamed: the one left on each side that offers the same.
        let same = |x: &Pool, y: &Pool| {
            x.kind == y.kind
                && x.taints == y.taints
                && x.labels
                    .iter()
                    .filter(|(k, _)| !k.ends_with("/hostname") && !is_name_label(k))
                    .eq(y
                        .labels
                        .iter()
                        .filter(|(k, _)| !k.ends_with("/hostname") && !is_name_label(k)))
                && x.unschedulable == y.unschedulable
        };
        for p in &before.pools {
            if forth.contains_key(&p.id) {
                continue;
            }
            let mut candidates = after
                .pools
                .iter()
                .filter(|q| !back.contains_key(&q.id) && same(p, q));
            if let (Some(q), None) = (candidates.next(), candidates.next()) {
                forth.insert(p.id, q.id);
                back.insert(q.id, p.id);
            }
        }
        // A pool split off another (some of its nodes now tainted or cordoned: `web#2`,
        // `web-cordoned`) is compared with the pool it came from.
        for q in &after.pools {
            if back.contains_key(&q.id) {
                continue;
            }
            let stem = split_stem(&q.name);
            if stem == q.name {
                continue;
            }
            if let Some(p) = before.pools.iter().find(|p| p.name == stem) {
                back.insert(q.id, p.id);
            }
        }
        PoolMap { forth, back }
    }
}

/// The name of the pool a pool of this name was split off: `web` for `web#2` and
/// `web-cordoned` (the names taintlint gives pools that differ from another of the same name).
fn split_stem(name: &str) -> &str {
    if let Some((stem, n)) = name.rsplit_once('#') {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            return split_stem(stem);
        }
    }
    name.strip_suffix("-cordoned").unwrap_or(name)
}

/// A label that names a node's pool (its value is the pool's name, which a rename changes).
fn is_name_label(key: &str) -> bool {
    crate::inventory::POOL_LABELS.contains(&key)
}

/// The workloads of both sides paired: each of `after` with its counterpart in `before`, if it
/// has one, in `after`'s order.
fn pair_workloads(before: &[Workload], after: &[Workload]) -> Vec<(Option<usize>, usize)> {
    type Key<'w> = (
        Option<&'w str>,
        &'w Option<String>,
        &'w Option<String>,
        &'w Option<String>,
        &'w str,
    );
    fn key(w: &Workload, file: bool) -> Key<'_> {
        (
            file.then_some(w.file.as_str()),
            &w.kind,
            &w.namespace,
            &w.name,
            w.path.as_str(),
        )
    }
    let mut taken = vec![false; before.len()];
    let mut pairs: Vec<(Option<usize>, usize)> = (0..after.len()).map(|a| (None, a)).collect();
    // In the same file first; then, for a file moved or renamed, anywhere (named objects only).
    for same_file in [true, false] {
        let mut index: HashMap<Key<'_>, Vec<usize>> = HashMap::new();
        for (i, w) in before.iter().enumerate() {
            if !taken[i] && (same_file || w.name.is_some()) {
                index.entry(key(w, same_file)).or_default().push(i);
            }
        }
        for v in index.values_mut() {
            v.reverse();
        }
        for (b, a) in pairs.iter_mut() {
            if b.is_some() || (!same_file && after[*a].name.is_none()) {
                continue;
            }
            if let Some(i) = index
                .get_mut(&key(&after[*a], same_file))
                .and_then(Vec::pop)
            {
                taken[i] = true;
                *b = Some(i);
            }
        }
    }
    pairs
}

/// The placement of a workload on one side.
fn placement(w: &Workload, cluster: &Cluster) -> Placement {
    let mut pools = Vec::new();
    let mut counted = true;
    for p in &cluster.pools {
        if w.verdict(cluster, p.id)
            .is_some_and(|v| pool_rank(v.fit) > 0)
        {
            pools.push(p.name.clone());
            counted &= p.kind == "nodes";
        }
    }
    Placement {
        fits: w.fits.clone(),
        nodes: w.nodes,
        pools,
        rejected: w.rejected.as_ref().map(|r| r.message.clone()),
        daemonset: w.daemonset.as_ref().map(|d| Coverage {
            picked: d.picked,
            missed: d.missed,
            missed_pools: d
                .missed_pools
                .iter()
                .filter_map(|&id| cluster.pools.iter().find(|p| p.id == id))
                .map(|p| p.name.clone())
                .collect(),
        }),
        counted,
    }
}

fn compare_one(
    wb: &Workload,
    wa: &Workload,
    before: &Simulation,
    after: &Simulation,
    pools: &PoolMap,
) -> Option<Change> {
    let (cb, ca) = (&before.cluster, &after.cluster);
    // Each pool's rank on both sides, by the after pool (a pool only before: by its own).
    let mut worse: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    let mut better: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    for p in &ca.pools {
        let ra = wa.verdict(ca, p.id).map_or(0, |v| pool_rank(v.fit));
        let b = pools.back.get(&p.id).copied();
        let rb = b
            .and_then(|b| wb.verdict(cb, b))
            .map_or(0, |v| pool_rank(v.fit));
        if ra < rb {
            worse.push((b, Some(p.id)));
        } else if ra > rb {
            better.push((b, Some(p.id)));
        }
    }
    for p in &cb.pools {
        if !pools.forth.contains_key(&p.id)
            && wb.verdict(cb, p.id).is_some_and(|v| pool_rank(v.fit) > 0)
        {
            worse.push((Some(p.id), None));
        }
    }
    let missed = |w: &Workload, cluster: &Cluster, map: Option<&HashMap<usize, usize>>| {
        w.daemonset.as_ref().map(|d| {
            let mut ids: Vec<Option<usize>> = d
                .missed_pools
                .iter()
                .map(|id| match map {
                    Some(m) => m.get(id).copied(),
                    None => Some(*id),
                })
                .collect();
            ids.sort();
            (d.picked == 0, ids, cluster.pools.len())
        })
    };
    let coverage_moved = missed(wb, cb, Some(&pools.forth)).map(|(idle, ids, _)| (idle, ids))
        != missed(wa, ca, None).map(|(idle, ids, _)| (idle, ids));
    let fits_moved = wb.fits != wa.fits || wb.rejected.is_some() != wa.rejected.is_some();
    if !fits_moved && worse.is_empty() && better.is_empty() && !coverage_moved {
        return None;
    }
    let (rb, ra) = (rank(wb), rank(wa));
    let is_worse = ra < rb || (ra == rb && !worse.is_empty());
    let cause = match (&wb.rejected, &wa.rejected) {
        (None, Some(r)) => Cause {
            code: "rejected",
            message: format!(
                "the API server would refuse its pods: {} [{}]",
                r.message, r.rule
            ),
            pool: None,
            taint: None,
            label: None,
            file: wa.file.clone(),
            line: None,
            side: Side::After,
        },
        (Some(r), None) => Cause {
            code: "accepted",
            message: format!("the API server no longer refuses its pods ({})", r.rule),
            pool: None,
            taint: None,
            label: None,
            file: wa.file.clone(),
            line: None,
            side: Side::After,
        },
        _ => {
            let first = if is_worse {
                worse.first().or(better.first())
            } else {
                better.first().or(worse.first())
            };
            match first {
                Some(&(b, a)) => {
                    let got_worse = worse.contains(&(b, a));
                    explain(wb, wa, before, after, b, a, got_worse)
                }
                None => Cause {
                    code: "other",
                    message: "how it fits moved".to_string(),
                    pool: None,
                    taint: None,
                    label: None,
                    file: wa.file.clone(),
                    line: None,
                    side: Side::After,
                },
            }
        }
    };
    Some(Change {
        file: wa.file.clone(),
        document: wa.document,
        item: wa.item,
        kind: wa.kind.clone(),
        name: wa.name.clone(),
        namespace: wa.namespace.clone(),
        path: wa.path.clone(),
        title: wa.title(),
        file_before: wb.file.clone(),
        document_before: wb.document,
        path_before: wb.path.clone(),
        before: placement(wb, cb),
        after: placement(wa, ca),
        cause,
        worse: is_worse,
    })
}

fn pool_def(cluster: &Cluster, id: usize) -> Option<&Pool> {
    cluster.pools.iter().find(|p| p.id == id)
}

/// Why a workload fares worse (`worse`) or better on a pool: `b` and `a` are the pool's ids on
/// each side (`None` where it is not).
fn explain(
    wb: &Workload,
    wa: &Workload,
    before: &Simulation,
    after: &Simulation,
    b: Option<usize>,
    a: Option<usize>,
    worse: bool,
) -> Cause {
    let (cb, ca) = (&before.cluster, &after.cluster);
    let pb = b.and_then(|b| pool_def(cb, b));
    let pa = a.and_then(|a| pool_def(ca, a));
    let at_pool = |code: &'static str, message: String, side: Side| {
        let pool = if side == Side::After {
            pa.or(pb)
        } else {
            pb.or(pa)
        };
        Cause {
            code,
            message,
            pool: pool.map(|p| p.name.clone()),
            taint: None,
            label: None,
            file: pool.map_or_else(|| wa.file.clone(), |p| p.source.file.clone()),
            line: pool.and_then(|p| p.source.line),
            side,
        }
    };
    let at_workload = |code: &'static str, message: String, pool: Option<&Pool>| Cause {
        code,
        message,
        pool: pool.map(|p| p.name.clone()),
        taint: None,
        label: None,
        file: wa.file.clone(),
        line: None,
        side: Side::After,
    };
    let (pb, pa) = match (pb, pa) {
        (Some(pb), None) => {
            return at_pool(
                "pool-removed",
                format!("pool {} was removed", pb.name),
                Side::Before,
            )
        }
        (None, Some(pa)) => {
            return at_pool(
                "pool-added",
                format!("pool {} was added", pa.name),
                Side::After,
            )
        }
        (Some(pb), Some(pa)) => (pb, pa),
        (None, None) => return at_workload("other", "how it fits moved".to_string(), None),
    };
    let vb = wb.verdict(cb, pb.id);
    let va = wa.verdict(ca, pa.id);
    let taints = |v: &Option<super::model::Verdict<'_>>| -> Vec<Taint> {
        v.as_ref()
            .map(|v| v.taints.iter().map(|t| (*t).clone()).collect())
            .unwrap_or_default()
    };
    let reasons = |v: &Option<super::model::Verdict<'_>>| -> Vec<Reason> {
        v.as_ref()
            .map(|v| v.reasons.iter().map(|r| (*r).clone()).collect())
            .unwrap_or_default()
    };
    // What blocks it on the side where it fares worse, and not on the other.
    let (from, to, from_pool) = if worse {
        (&vb, &va, pb)
    } else {
        (&va, &vb, pa)
    };
    let (from_taints, to_taints) = (taints(from), taints(to));
    let (from_reasons, to_reasons) = (reasons(from), reasons(to));
    // The side the blocking thing is on: the after side when worse.
    let blocking_side = if worse { Side::After } else { Side::Before };
    if let Some(t) = to_taints.iter().find(|t| !from_taints.contains(t)) {
        let with = |mut c: Cause| {
            c.taint = Some(t.clone());
            c
        };
        if from_pool.taints.contains(t) {
            // The pool had the taint, and the workload tolerated it.
            let mut c = at_workload(
                if worse {
                    "toleration-removed"
                } else {
                    "toleration-added"
                },
                if worse {
                    format!("it no longer tolerates {t} (pool {})", pa.name)
                } else {
                    format!("it now tolerates {t} (pool {})", pa.name)
                },
                Some(pa),
            );
            c.taint = Some(t.clone());
            return c;
        }
        let old = from_pool
            .taints
            .iter()
            .find(|o| o.key == t.key && o.effect == t.effect);
        return with(match (old, worse) {
            (Some(old), true) => at_pool(
                "taint-changed",
                format!("pool {}'s taint {old} became {t}", pa.name),
                Side::After,
            ),
            (Some(old), false) => at_pool(
                "taint-changed",
                format!("pool {}'s taint {t} became {old}", pa.name),
                Side::After,
            ),
            (None, true) => at_pool(
                "taint-added",
                format!("the taint {t} was added to pool {}", pa.name),
                blocking_side,
            ),
            (None, false) => at_pool(
                "taint-removed",
                format!("the taint {t} was removed from pool {}", pb.name),
                blocking_side,
            ),
        });
    }
    if let Some(r) = to_reasons
        .iter()
        .find(|r| !from_reasons.iter().any(|f| f.same(r)))
    {
        let key = r.key.clone().unwrap_or_default();
        match r.code.as_str() {
            "node-selector" | "label-unknown" | "topology-key" | "topology-key-unknown" => {
                let (lb, la) = (pb.labels.get(&key), pa.labels.get(&key));
                if lb != la {
                    let shown = |v: Option<&String>| {
                        v.map_or_else(|| "(none)".to_string(), |v| format!("`{v}`"))
                    };
                    let mut c = at_pool(
                        "label-changed",
                        format!(
                            "pool {}'s label {key} changed from {} to {}",
                            pa.name,
                            shown(lb),
                            shown(la)
                        ),
                        Side::After,
                    );
                    c.label = Some(key);
                    return c;
                }
                if r.code.starts_with("topology-key") {
                    return at_workload("other", pool_said(&pa.name, &r.message, worse), Some(pa));
                }
                let mut c = at_workload(
                    "node-selector-changed",
                    if worse {
                        format!(
                            "its nodeSelector now asks for {key}={}, which pool {} does not \
                             carry",
                            r.value.as_deref().unwrap_or(""),
                            pa.name
                        )
                    } else {
                        format!(
                            "its nodeSelector no longer asks for {key}={} (pool {})",
                            r.value.as_deref().unwrap_or(""),
                            pa.name
                        )
                    },
                    Some(pa),
                );
                c.label = Some(key);
                return c;
            }
            "unschedulable" => {
                return at_pool(
                    if worse { "cordoned" } else { "uncordoned" },
                    if worse {
                        format!("pool {} was cordoned (spec.unschedulable)", pa.name)
                    } else {
                        format!("pool {} is no longer cordoned", pa.name)
                    },
                    Side::After,
                )
            }
            "insufficient" => {
                return at_workload(
                    "resources",
                    if worse {
                        format!("pool {}: {}", pa.name, r.message)
                    } else {
                        format!("pool {} now has room: no longer \"{}\"", pa.name, r.message)
                    },
                    Some(pa),
                )
            }
            _ => return at_workload("other", pool_said(&pa.name, &r.message, worse), Some(pa)),
        }
    }
    at_workload(
        "other",
        format!(
            "it fits pool {} {} (how it fits {} moved)",
            pa.name,
            if worse { "less" } else { "more" },
            wa.title()
        ),
        Some(pa),
    )
}

/// A pool's reason that came (`worse`) or went, in words.
fn pool_said(pool: &str, message: &str, worse: bool) -> String {
    if worse {
        format!("pool {pool}: {message}")
    } else {
        format!("pool {pool}: no longer \"{message}\"")
    }
}

/// The texts `place` reads: each file by name, at the base revision and in the working tree,
/// with the lines the change touched in the working tree's.
#[derive(Debug, Default)]
pub struct Texts {
    pub before: HashMap<String, String>,
    pub after: HashMap<String, String>,
    pub changed: HashMap<String, Changed>,
}

/// How much of a file [`place`] reads for a cause: its first lines (a pool's taint is looked
/// for near the line that defines the pool, in a node list that may be 100 MB), or all of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Extent {
    Lines(usize),
    Whole,
}

impl Change {
    /// The files [`place`] reads for this change's cause: (side, file, how much of it).
    pub fn needs(&self, before: &Simulation, after: &Simulation) -> Vec<(Side, String, Extent)> {
        let cause = &self.cause;
        let extent = match cause.code {
            "taint-added" | "taint-changed" | "taint-removed" => {
                let cluster = match cause.side {
                    Side::Before => &before.cluster,
                    Side::After => &after.cluster,
                };
                let line = cause
                    .pool
                    .as_ref()
                    .and_then(|pool| cluster.pools.iter().find(|p| &p.name == pool))
                    .and_then(|p| p.source.line);
                Extent::Lines(line.map_or(0, |l| l.saturating_add(TAINT_SEARCH)))
            }
            _ => Extent::Whole,
        };
        let mut out = vec![(cause.side, cause.file.clone(), extent)];
        if cause.code.starts_with("toleration-") {
            out.push((Side::Before, self.file_before.clone(), Extent::Whole));
            out.push((Side::After, self.file.clone(), Extent::Whole));
        }
        out
    }
}

/// The files every change's cause needs, each once, with as much of it as the most any needs.
pub fn needed(
    changes: &[Change],
    before: &Simulation,
    after: &Simulation,
) -> Vec<(Side, String, Extent)> {
    let mut out: Vec<(Side, String, Extent)> = Vec::new();
    let mut at: HashMap<(Side, String), usize> = HashMap::new();
    for (side, file, extent) in changes.iter().flat_map(|c| c.needs(before, after)) {
        match at.get(&(side, file.clone())) {
            Some(&i) => out[i].2 = out[i].2.max(extent),
            None => {
                at.insert((side, file.clone()), out.len());
                out.push((side, file, extent));
            }
        }
    }
    out
}

/// Places each cause at its line: the taint in its pool's definition (a line the change touched
/// first), the toleration or `nodeSelector` entry in the manifest, the object itself.
pub fn place(changes: &mut [Change], before: &Simulation, after: &Simulation, texts: &Texts) {
    for c in changes.iter_mut() {
        place_one(c, before, after, texts);
    }
}

fn place_one(c: &mut Change, before: &Simulation, after: &Simulation, texts: &Texts) {
    let text = |side: Side, file: &str| match side {
        Side::Before => texts.before.get(file).map(String::as_str),
        Side::After => texts.after.get(file).map(String::as_str),
    };
    let cause = &mut c.cause;
    match cause.code {
        "taint-added" | "taint-changed" | "taint-removed" => {
            let cluster = match cause.side {
                Side::Before => &before.cluster,
                Side::After => &after.cluster,
            };
            let (Some(t), Some(pool)) = (&cause.taint, &cause.pool) else {
                return;
            };
            let Some(def) = cluster.pools.iter().find(|p| &p.name == pool) else {
                return;
            };
            let Some(body) = text(cause.side, &def.source.file) else {
                return;
            };
            let changed = (cause.side == Side::After)
                .then(|| texts.changed.get(&def.source.file))
                .flatten();
            if let Some(line) = taint_line(body, cluster, def, t, changed) {
                cause.line = Some(line);
            }
        }
        "toleration-removed" | "toleration-changed" | "toleration-added" => {
            let Some(t) = cause.taint.clone() else {
                return;
            };
            let after_line = text(Side::After, &c.file).and_then(|body| {
                toleration_line(body, c.document, &c.path, &t, ItemMatch::SameKey)
            });
            let before_line = text(Side::Before, &c.file_before).and_then(|body| {
                toleration_line(
                    body,
                    c.document_before,
                    &c.path_before,
                    &t,
                    ItemMatch::Tolerates,
                )
            });
            let added_line = text(Side::After, &c.file).and_then(|body| {
                toleration_line(body, c.document, &c.path, &t, ItemMatch::Tolerates)
            });
            match (cause.code, after_line, before_line, added_line) {
                ("toleration-added", _, _, Some(line)) => {
                    cause.line = Some(line);
                }
                ("toleration-removed", Some(line), _, _) => {
                    // A toleration of the key is still there: it was changed.
                    cause.code = "toleration-changed";
                    cause.message = format!(
                        "its toleration of {} no longer tolerates {t}{}",
                        t.key,
                        cause
                            .pool
                            .as_ref()
                            .map(|p| format!(" (pool {p})"))
                            .unwrap_or_default()
                    );
                    cause.line = Some(line);
                }
                ("toleration-removed", None, Some(line), _) => {
                    cause.message = format!(
                        "its toleration of {t} was removed{}",
                        cause
                            .pool
                            .as_ref()
                            .map(|p| format!(" (pool {p})"))
                            .unwrap_or_default()
                    );
                    cause.file = c.file_before.clone();
                    cause.line = Some(line);
                    cause.side = Side::Before;
                }
                _ => {
                    cause.line = text(Side::After, &c.file)
                        .and_then(|body| object_line(body, c.document, c.item));
                }
            }
        }
        "node-selector-changed" => {
            let key = cause.label.clone().unwrap_or_default();
            cause.line = text(Side::After, &c.file).and_then(|body| {
                selector_line(body, c.document, &c.path, &key)
                    .or_else(|| object_line(body, c.document, c.item))
            });
        }
        "rejected" | "resources" | "other" | "accepted" if cause.file == c.file => {
            cause.line =
                text(Side::After, &c.file).and_then(|body| object_line(body, c.document, c.item));
        }
        _ => {}
    }
}

/// How far to look for a pool's taint below the line that defines the pool, when no other pool
/// of the file starts sooner.
const TAINT_SEARCH: usize = 400;

/// The line of `taint` in the definition of `pool`: a line between the pool's first line and the
/// next pool's that names the taint's key (one the change touched first).
fn taint_line(
    text: &str,
    cluster: &Cluster,
    pool: &Pool,
    taint: &Taint,
    changed: Option<&Changed>,
) -> Option<usize> {
    let start = pool.source.line?;
    let end = cluster
        .pools
        .iter()
        .filter(|p| p.source.file == pool.source.file)
        .filter_map(|p| p.source.line)
        .filter(|&l| l > start)
        .min()
        .unwrap_or(usize::MAX)
        .min(start.saturating_add(TAINT_SEARCH));
    let mut lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .skip(start.saturating_sub(1))
        .take(end.saturating_sub(start))
        .collect();
    // From the pool's taints on (`taints:`, `"taints": [`, `taint {`), where it says.
    if let Some(from) = lines
        .iter()
        .position(|(_, l)| l.to_ascii_lowercase().contains("taint"))
    {
        lines.drain(..from);
    }
    let names = |l: &str| {
        l.contains(taint.key.as_str()) && (taint.value.is_empty() || l.contains(&taint.value))
    };
    let names_key = |l: &str| l.contains(taint.key.as_str());
    let touched = |n: usize| changed.is_some_and(|c| c.touches(n));
    lines
        .iter()
        .find(|(n, l)| touched(*n) && names(l))
        .or_else(|| lines.iter().find(|(n, l)| touched(*n) && names_key(l)))
        .or_else(|| lines.iter().find(|(_, l)| names(l)))
        .or_else(|| lines.iter().find(|(_, l)| names_key(l)))
        .map(|(n, _)| *n)
}

/// Which toleration of a manifest to find.
#[derive(Clone, Copy)]
enum ItemMatch {
    /// One that tolerates the taint.
    Tolerates,
    /// One of the taint's key that does not tolerate it (a toleration changed).
    SameKey,
}

/// The line of a toleration of the pod spec at `path` in document `document`.
fn toleration_line(
    text: &str,
    document: usize,
    path: &str,
    taint: &Taint,
    how: ItemMatch,
) -> Option<usize> {
    let stream = syntax::parse(text);
    let doc = stream.documents.iter().find(|d| d.index == document)?;
    let spec = node_at(doc, path)?;
    let (_, list) = doc.get(spec, "tolerations")?;
    let items = doc.sequence(list)?;
    let k8s = K8sTaint {
        key: taint.key.clone(),
        value: taint.value.clone(),
        effect: Effect::parse(&taint.effect)?,
    };
    let lines = LineIndex::new(text);
    for &item in items {
        let entry = |name: &str| {
            doc.get(item, name)
                .and_then(|(_, v)| doc.scalar(v))
                .map(|(s, _)| s.to_string())
        };
        let toleration = crate::k8s::model::Toleration {
            key: entry("key").unwrap_or_default(),
            operator: crate::k8s::model::Operator::parse(&entry("operator").unwrap_or_default())
                .unwrap_or(crate::k8s::model::Operator::Equal),
            value: entry("value").unwrap_or_default(),
            effect: entry("effect").and_then(|e| Effect::parse(&e)),
            toleration_seconds: None,
        };
        let found = match how {
            ItemMatch::Tolerates => toleration.tolerates(&k8s, true),
            ItemMatch::SameKey => toleration.key == taint.key && !toleration.tolerates(&k8s, true),
        };
        if found {
            return Some(lines.line_of(doc.node(item).span.start) + 1);
        }
    }
    None
}

/// The line of the `nodeSelector` entry `key` of the pod spec at `path`.
fn selector_line(text: &str, document: usize, path: &str, key: &str) -> Option<usize> {
    let stream = syntax::parse(text);
    let doc = stream.documents.iter().find(|d| d.index == document)?;
    let spec = node_at(doc, path)?;
    let (_, selector) = doc.get(spec, "nodeSelector")?;
    let (k, _) = doc.get(selector, key)?;
    Some(LineIndex::new(text).line_of(doc.node(k).span.start) + 1)
}

/// The line an object starts on: its document's, or its item's in a `kind: List`.
fn object_line(text: &str, document: usize, item: Option<usize>) -> Option<usize> {
    let stream = syntax::parse(text);
    let doc = stream.documents.iter().find(|d| d.index == document)?;
    let node = match item {
        Some(i) => node_at(doc, &format!("items[{i}]"))?,
        None => doc.root?,
    };
    Some(LineIndex::new(text).line_of(doc.node(node).span.start) + 1)
}

/// The node at a field path in Kubernetes notation (`spec.template.spec`, `items[3].spec`,
/// `[app.kubernetes.io/name]`).
fn node_at(doc: &Document<'_>, path: &str) -> Option<NodeId> {
    let mut node = doc.root?;
    let mut rest = path;
    while !rest.is_empty() {
        rest = rest.strip_prefix('.').unwrap_or(rest);
        let segment;
        if let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']')?;
            segment = &inner[..close];
            rest = &inner[close + 1..];
            if let Ok(i) = segment.parse::<usize>() {
                node = *doc.sequence(node)?.get(i)?;
                continue;
            }
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            segment = &rest[..end];
            rest = &rest[end..];
        }
        node = doc.get(node, segment)?.1;
    }
    Some(node)
}

#[cfg(test)]
mod tests;
