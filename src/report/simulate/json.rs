//! `--format json`, version 2: one line per pool of the cluster, then one line per workload.
//!
//! A workload lists the distinct reasons that keep it off nodes once, in its `reasons`, each
//! as data (a `code`, the selector term or node name, a `message`). Its `pools` entries say,
//! for a set of pools, how the workload fits each of them (`fit`, and on how many of each one's
//! nodes), the reasons by index, and the untolerated taints by their index in each pool's own
//! `taints` in the cluster. Pools with the same verdict share one entry: in a cluster whose
//! pools each carry their own `dedicated=<pool>` taint (index 0), the 40 pools a workload does
//! not tolerate make one entry. So a reason shared by 49 pools is written once, a taint is never
//! restated, and the output grows with workloads x pools by a few bytes per pool at most.
//!
//! Each file's workloads are rendered on the worker that simulated it ([`JsonRenderer`]); the
//! writer only joins them ([`JsonWriter`]).

use std::io::{self, Write};

use serde::Serialize;

use super::{
    pool_reasons_into, Fit, Place, PoolReason, SimulateSummary, SimulatedFile, UnreadFile,
};
use crate::inventory::{Inventory, Pool};
use crate::k8s::model::Taint;
use crate::k8s::resources::display;
use crate::schedule::admission::Source as TolerationSource;
use crate::schedule::{Asked, Reason, WorkloadResult};

#[derive(Serialize, PartialEq)]
struct TaintOut<'a> {
    key: &'a str,
    value: &'a str,
    effect: &'static str,
}

impl<'a> From<&'a Taint> for TaintOut<'a> {
    fn from(t: &'a Taint) -> Self {
        TaintOut {
            key: &t.key,
            value: &t.value,
            effect: t.effect.as_str(),
        }
    }
}

#[derive(Serialize)]
struct Source<'a> {
    file: &'a str,
    line: Option<usize>,
    column: Option<usize>,
}

/// The platform assumed: its `--platform` name (`null`: none), whether it was given, and why.
#[derive(Serialize)]
struct PlatformOut<'a> {
    name: Option<&'static str>,
    given: bool,
    why: &'a str,
}

#[derive(Serialize)]
struct PoolOut<'a> {
    id: usize,
    name: &'a str,
    /// `nodes` for listed nodes, else the format that defines the pool (`nodepool`, ...).
    kind: &'static str,
    nodes: usize,
    /// For a pool defined as code: its declared size (`null` ends are unknown).
    count: Option<CountOut>,
    #[serde(rename = "startupTaints")]
    startup_taints: Vec<TaintOut<'a>>,
    taints: Vec<TaintOut<'a>>,
    labels: Labels<'a>,
    unschedulable: bool,
    source: Source<'a>,
}

#[derive(Serialize)]
struct CountOut {
    min: Option<u64>,
    max: Option<u64>,
}

/// Labels as a JSON object, in the pool's (sorted) order.
struct Labels<'a>(&'a [(String, String)]);

impl Serialize for Labels<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// What a reason is about, without its message: two pools' reasons that say the same thing
/// have the same subject.
#[derive(Serialize, PartialEq)]
#[serde(tag = "code", rename_all = "kebab-case")]
enum Subject<'a> {
    Unschedulable,
    NodeName {
        #[serde(rename = "nodeName")]
        node_name: &'a str,
    },
    NodeSelector {
        key: &'a str,
        value: &'a str,
    },
    NodeAffinity {
        #[serde(skip)]
        why: &'a str,
    },
    Requirements {
        #[serde(skip)]
        why: &'a str,
    },
    /// A `DoNotSchedule` topology spread constraint's key the pool's nodes have no label for.
    TopologyKey {
        key: &'a str,
    },
    /// A `DoNotSchedule` topology spread constraint's key that the inventory does not say the
    /// pool's nodes carry, though they may: it may fit.
    TopologyKeyUnknown {
        key: &'a str,
    },
    /// A `nodeSelector` label a pool defined as code does not declare, or one the kubelet sets
    /// whose value the inventory does not give: it may fit.
    LabelUnknown {
        key: &'a str,
        value: &'a str,
    },
    /// More of a resource than any node of the pool offers (NodeResourcesFit).
    Insufficient {
        resource: &'a str,
        requested: String,
        allocatable: String,
    },
    /// A resource whose amount the pool's nodes offer is unknown (`allocatable` null), or
    /// differs between them: it may fit.
    CapacityUnknown {
        resource: &'a str,
        requested: String,
        #[serde(rename = "allocatable")]
        range: Option<[String; 2]>,
    },
    /// A taint the pod does not tolerate that the pool's nodes may carry (a NodeFeatureRule's,
    /// on the nodes it matches): it may fit.
    TaintUnknown {
        taint: &'a str,
        by: &'a str,
    },
    /// A resource claim of the pod (Dynamic Resource Allocation), not simulated: it may fit.
    ClaimNotSimulated {
        claim: &'a str,
    },
    /// A label a required node affinity expression needs, which a pool defined as code does
    /// not declare (or the kubelet sets with a value the inventory does not give): it may fit.
    #[serde(rename = "label-unknown")]
    AffinityLabelUnknown {
        key: &'a str,
        expression: &'a str,
    },
}

impl<'a> Subject<'a> {
    /// What a reason other than a taint is about (a taint is referred to by its index).
    fn of(reason: &'a Reason) -> Option<Self> {
        Some(match reason {
            Reason::Unschedulable => Subject::Unschedulable,
            Reason::NodeName(n) => Subject::NodeName { node_name: n },
            Reason::Taint(_) => return None,
            Reason::NodeSelector { key, wanted, .. } => {
                Subject::NodeSelector { key, value: wanted }
            }
            Reason::NodeAffinity(why) => Subject::NodeAffinity { why },
            Reason::Requirements(why) => Subject::Requirements { why },
            Reason::TopologyKey(key) => Subject::TopologyKey { key },
            Reason::Insufficient {
                resource,
                requested,
                offered,
            } => Subject::Insufficient {
                resource,
                requested: display(resource, *requested),
                allocatable: display(resource, *offered),
            },
        })
    }
}

#[derive(Serialize)]
struct ReasonOut<'a> {
    #[serde(flatten)]
    subject: Subject<'a>,
    message: String,
}

/// The pools (ids in the cluster's `pools`) on which a workload fares the same.
#[derive(Serialize)]
struct PoolFit {
    pools: Vec<usize>,
    #[serde(serialize_with = "fit_str")]
    fit: Fit,
    /// On how many nodes of each of the pools.
    nodes: usize,
    /// Indices into the workload's `reasons`.
    reasons: Vec<usize>,
    /// The taints (indices into each pool's `taints`) that the workload does not tolerate.
    taints: Vec<usize>,
    /// The pool's taints the workload tolerates only by a toleration its manifest does not
    /// show, and where that toleration comes from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tolerated: Vec<GrantOut>,
}

/// A taint tolerated by a toleration from outside the manifest.
#[derive(Serialize, PartialEq)]
struct GrantOut {
    taint: usize,
    source: SourceOut,
    message: String,
}

/// Where a toleration comes from, as data.
#[derive(Serialize, PartialEq)]
#[serde(tag = "code", rename_all = "kebab-case")]
enum SourceOut {
    Manifest {
        index: usize,
    },
    DaemonSet,
    DefaultTolerationSeconds,
    ExtendedResourceToleration {
        resource: String,
    },
    NamespaceDefault {
        namespace: String,
        index: usize,
    },
    ClusterDefault {
        index: usize,
    },
    MemoryPressure,
    RuntimeClass {
        #[serde(rename = "runtimeClass")]
        runtime_class: String,
        index: usize,
    },
    ResourceFlavor {
        flavor: String,
        index: usize,
    },
    /// The platform adds it to pods that select `label`.
    Platform {
        platform: &'static str,
        label: &'static str,
    },
}

impl SourceOut {
    fn of(source: &TolerationSource) -> Self {
        match source {
            TolerationSource::Manifest(i) => SourceOut::Manifest { index: *i },
            TolerationSource::DaemonSet => SourceOut::DaemonSet,
            TolerationSource::DefaultTolerationSeconds => SourceOut::DefaultTolerationSeconds,
            TolerationSource::ExtendedResourceToleration(r) => {
                SourceOut::ExtendedResourceToleration {
                    resource: r.clone(),
                }
            }
            TolerationSource::NamespaceDefault(ns, i) => SourceOut::NamespaceDefault {
                namespace: ns.clone(),
                index: *i,
            },
            TolerationSource::ClusterDefault(i) => SourceOut::ClusterDefault { index: *i },
            TolerationSource::MemoryPressure => SourceOut::MemoryPressure,
            TolerationSource::RuntimeClass(rc, i) => SourceOut::RuntimeClass {
                runtime_class: rc.clone(),
                index: *i,
            },
            TolerationSource::ResourceFlavor(f, i) => SourceOut::ResourceFlavor {
                flavor: f.clone(),
                index: *i,
            },
            TolerationSource::Platform(p, label) => SourceOut::Platform {
                platform: p.name(),
                label,
            },
        }
    }
}

fn fit_str<S: serde::Serializer>(fit: &Fit, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(fit.as_str())
}

impl PoolFit {
    fn same_verdict(&self, other: &PoolFit) -> bool {
        self.fit == other.fit
            && self.nodes == other.nodes
            && self.reasons == other.reasons
            && self.taints == other.taints
            && self.tolerated == other.tolerated
    }
}

/// Why the API server would refuse the workload's pods: the finding that says so.
#[derive(Serialize)]
struct RejectedOut<'a> {
    rule: &'a str,
    message: &'a str,
    path: Option<&'a str>,
}

#[derive(Serialize)]
struct WorkloadOut<'a> {
    file: &'a str,
    document: usize,
    item: Option<usize>,
    kind: Option<&'a str>,
    name: Option<&'a str>,
    namespace: Option<&'a str>,
    /// The pod spec's path: which of an object's templates (a RayCluster's head or workers),
    /// which chart values (`controller`).
    path: &'a str,
    /// Which part of its object it is, in words, as every face names it (`worker group
    /// l4-workers`); null for a template that is the object's own.
    part: Option<&'a str>,
    fits: &'static str,
    nodes: usize,
    rejected: Option<RejectedOut<'a>>,
    /// Found by its shape (a `containers` list) in a kind taintlint's table does not know; only
    /// written when it was.
    #[serde(rename = "byShape", skip_serializing_if = "std::ops::Not::not")]
    by_shape: bool,
    /// For a DaemonSet: how many nodes its selector and affinity pick, how many of those it
    /// cannot run on, and the pools (ids) of those.
    #[serde(skip_serializing_if = "Option::is_none")]
    daemonset: Option<DaemonSetOut>,
    /// When it fits no node: the pool that comes closest and what keeps it off, as the
    /// `unschedulable` finding says it; only written then.
    #[serde(skip_serializing_if = "Option::is_none")]
    closest: Option<ClosestOut<'a>>,
    reasons: Part<Vec<ReasonOut<'a>>>,
    pools: Part<Vec<PoolFit>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedulable: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    avoid: Option<Vec<&'a str>>,
}

/// The pool a workload that fits no node comes closest to.
#[derive(Serialize)]
struct ClosestOut<'a> {
    /// Its id.
    pool: usize,
    message: &'a str,
    /// The near miss: the index of the manifest's toleration that only just misses, and of the
    /// pool's taint it misses (null without one).
    toleration: Option<usize>,
    taint: Option<usize>,
}

#[derive(Serialize)]
struct DaemonSetOut {
    picked: usize,
    missed: usize,
    #[serde(rename = "missedPools")]
    missed_pools: Vec<usize>,
    /// Nodes it cannot run on that it only may pick (a label it asks for that their pool's
    /// definition does not declare), and their pools.
    #[serde(rename = "mayMiss")]
    may_miss: usize,
    #[serde(rename = "mayMissPools")]
    may_miss_pools: Vec<usize>,
}

#[derive(Serialize)]
struct SummaryOut<'a> {
    workloads: usize,
    yes: usize,
    may: usize,
    avoided: usize,
    no: usize,
    rejected: usize,
    /// How many of the workloads were found by their shape, in kinds not in taintlint's table.
    #[serde(rename = "byShape")]
    by_shape: usize,
    /// The files whose pod templates were not all read, why, and about how many were not
    /// simulated.
    unread: Vec<UnreadOut<'a>>,
}

#[derive(Serialize)]
struct UnreadOut<'a> {
    file: &'a str,
    why: &'static str,
    #[serde(rename = "podTemplates")]
    pod_templates: usize,
}

/// Writes `taintlint simulate --format json` (version 2): [`begin`](Self::begin) with the
/// cluster, [`file`](Self::file) as each file is done, [`end`](Self::end) with the summary.
pub struct JsonWriter<'i> {
    renderer: JsonRenderer<'i>,
    first: bool,
    pub summary: SimulateSummary,
}

/// Renders one file's workloads, on any thread: what [`JsonWriter::file`] writes.
#[derive(Clone)]
pub struct JsonRenderer<'i> {
    inventory: &'i Inventory,
    nodes: bool,
    /// What the workloads that share a simulation share of their JSON, written once.
    shared: std::sync::Arc<std::sync::Mutex<SharedJson>>,
}

/// The `reasons` and `pools` of each simulation that workloads share (they depend on the
/// simulation alone: the workloads of a repository ask the same of the inventory again and
/// again), by the simulation's address; each entry holds a weak reference to its simulation,
/// which keeps the address from being taken by another without keeping the simulation. At
/// most [`SharedJson::MOST`] are kept: when full, those whose simulation is gone make room, and
/// past that a workload's are written for it alone.
#[derive(Default)]
struct SharedJson {
    written: foldhash::HashMap<usize, Written>,
    /// The workloads met while it was full: every [`SharedJson::MOST`] of them, the entries of
    /// simulations gone are dropped (a sweep costs as many steps as it keeps entries).
    full: usize,
}

/// A simulation's `reasons` and `pools`, as JSON.
struct Written {
    simulation: std::sync::Weak<crate::schedule::Simulation>,
    reasons: std::sync::Arc<serde_json::value::RawValue>,
    pools: std::sync::Arc<serde_json::value::RawValue>,
}

impl SharedJson {
    const MOST: usize = 4096;
}

/// A value as JSON that is written as it is.
fn raw<T: Serialize>(v: &T) -> Option<std::sync::Arc<serde_json::value::RawValue>> {
    let text = serde_json::to_string(v).ok()?;
    serde_json::value::RawValue::from_string(text)
        .ok()
        .map(std::sync::Arc::from)
}

/// A workload's `reasons` or `pools`: its own, or the JSON it shares.
enum Part<T> {
    Own(T),
    Shared(std::sync::Arc<serde_json::value::RawValue>),
}

impl<T: Serialize> Serialize for Part<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Part::Own(v) => v.serialize(s),
            Part::Shared(raw) => raw.serialize(s),
        }
    }
}

/// One file's workloads as JSON (separated by `,\n`, without a leading one), and their counts.
#[derive(Debug, Default)]
pub struct RenderedFile {
    json: Vec<u8>,
    summary: SimulateSummary,
}

impl RenderedFile {
    /// The workloads' JSON objects, separated by `,\n`.
    pub fn json(&self) -> &[u8] {
        &self.json
    }
}

fn json_error(e: serde_json::Error) -> io::Error {
    io::Error::other(e)
}

impl<'i> JsonWriter<'i> {
    /// `nodes`: list the names of the nodes each workload fits (`--nodes`).
    pub fn new(inventory: &'i Inventory, nodes: bool) -> Self {
        JsonWriter {
            renderer: JsonRenderer {
                inventory,
                nodes,
                shared: Default::default(),
            },
            first: true,
            summary: SimulateSummary::default(),
        }
    }

    /// The inventory it writes of.
    pub fn inventory(&self) -> &'i Inventory {
        self.renderer.inventory
    }

    /// What renders a file for [`file`](Self::file), to share with the workers.
    pub fn renderer(&self) -> JsonRenderer<'i> {
        self.renderer.clone()
    }

    pub fn begin(&mut self, out: &mut dyn Write, place: Place<'_>) -> io::Result<()> {
        let inv = self.renderer.inventory;
        write!(
            out,
            "{{\"version\":2,\"cluster\":{{\"nodes\":{},\"platform\":",
            inv.node_count()
        )?;
        let platform = PlatformOut {
            name: inv.platform.platform.map(|p| p.name()),
            given: inv.platform.given,
            why: &inv.platform.why,
        };
        serde_json::to_writer(&mut *out, &platform).map_err(json_error)?;
        write!(out, ",\"pools\":[")?;
        for (i, pool) in inv.pools.iter().enumerate() {
            let (line, column) = place(pool.at.file, pool.at.range.start).unzip();
            let value = PoolOut {
                id: i,
                name: &pool.name,
                kind: pool.kind(),
                nodes: pool.nodes.len(),
                count: pool.declared.as_ref().map(|d| CountOut {
                    min: d.count.min,
                    max: d.count.max,
                }),
                startup_taints: pool
                    .declared
                    .iter()
                    .flat_map(|d| &d.startup_taints)
                    .map(|t| (&t.taint).into())
                    .collect(),
                taints: pool.taints.iter().map(|t| (&t.taint).into()).collect(),
                labels: Labels(&pool.labels),
                unschedulable: pool.unschedulable.is_some(),
                source: Source {
                    file: inv.file_name(&pool.at),
                    line,
                    column,
                },
            };
            out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
            serde_json::to_writer(&mut *out, &value).map_err(json_error)?;
        }
        write!(out, "]}},\"workloads\":[")
    }

    /// The workloads of one file, rendered by [`JsonRenderer::render`].
    pub fn file(&mut self, out: &mut dyn Write, file: &RenderedFile) -> io::Result<()> {
        self.summary.add(&file.summary);
        if file.json.is_empty() {
            return Ok(());
        }
        out.write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        out.write_all(&file.json)
    }

    /// Ends the document with the summary, which names the files not all read (`unread`).
    pub fn end(&mut self, out: &mut dyn Write, unread: &[UnreadFile]) -> io::Result<()> {
        self.end_with(out, unread, None)
    }

    /// [`end`](Self::end), with members written before the summary (`--base`'s `"base"` and
    /// `"changes"`).
    pub fn end_with(
        &mut self,
        out: &mut dyn Write,
        unread: &[UnreadFile],
        members: Option<&[u8]>,
    ) -> io::Result<()> {
        let s = self.summary;
        out.write_all(b"\n],")?;
        if let Some(members) = members {
            out.write_all(members)?;
            out.write_all(b",")?;
        }
        out.write_all(b"\"summary\":")?;
        let summary = SummaryOut {
            workloads: s.workloads,
            yes: s.yes,
            may: s.may,
            avoided: s.avoided,
            no: s.no,
            rejected: s.rejected,
            by_shape: s.by_shape,
            unread: unread
                .iter()
                .map(|u| UnreadOut {
                    file: &u.file,
                    why: u.why,
                    pod_templates: u.pod_templates,
                })
                .collect(),
        };
        serde_json::to_writer(&mut *out, &summary).map_err(json_error)?;
        out.write_all(b"}\n")
    }
}

impl<'i> JsonRenderer<'i> {
    /// The workloads of one file.
    pub fn render(&self, file: &SimulatedFile) -> RenderedFile {
        let mut out = RenderedFile::default();
        for (i, w) in file.workloads.iter().enumerate() {
            let value = self.workload(&file.path, w, &mut out.summary);
            if i > 0 {
                out.json.extend_from_slice(b",\n");
            }
            serde_json::to_writer(&mut out.json, &value)
                .expect("a workload serializes: its maps have string keys");
        }
        out
    }

    fn workload<'a>(
        &self,
        file: &'a str,
        w: &'a WorkloadResult,
        summary: &mut SimulateSummary,
    ) -> WorkloadOut<'a>
    where
        'i: 'a,
    {
        let inv: &'a Inventory = self.inventory;
        // A workload that fits no pool for certain, only may, says so: "may", not "yes".
        let (fit, fitting) = Fit::verdict(w, inv);
        let fits = fit.as_str();
        summary.count(fit);
        summary.rejected += usize::from(w.rejected.is_some());
        summary.by_shape += usize::from(w.by_shape);
        let (reasons, pools) = self.reasons_and_pools(w);
        let (schedulable, avoid) = if self.nodes {
            let mut schedulable = Vec::new();
            let mut avoid = Vec::new();
            for (v, pool) in w.simulation.pools.iter().zip(&inv.pools) {
                for (m, avoided) in v.fitting_nodes(pool) {
                    let name = pool.nodes[m as usize].name.as_str();
                    if avoided {
                        avoid.push(name);
                    }
                    schedulable.push(name);
                }
            }
            (Some(schedulable), Some(avoid))
        } else {
            (None, None)
        };
        WorkloadOut {
            file,
            document: w.document,
            item: w.item,
            kind: w.kind.as_deref(),
            name: w.name.as_deref(),
            namespace: w.namespace.as_deref(),
            path: &w.path,
            part: w.part.as_deref(),
            fits,
            nodes: fitting,
            rejected: w.rejected.as_ref().map(|r| RejectedOut {
                rule: r.rule,
                message: &r.message,
                path: r.path.as_deref(),
            }),
            by_shape: w.by_shape,
            daemonset: w.daemonset.as_ref().map(|c| DaemonSetOut {
                picked: c.picked,
                missed: c.missed,
                missed_pools: c.missed_pools.clone(),
                may_miss: c.maybe_missed,
                may_miss_pools: c.maybe_pools.clone(),
            }),
            closest: w.closest.as_ref().map(|c| ClosestOut {
                pool: c.pool,
                message: &c.message,
                toleration: c.near.map(|n| n.0),
                taint: c.near.map(|n| n.1),
            }),
            reasons,
            pools,
            schedulable,
            avoid,
        }
    }
    /// The workload's `reasons` and `pools`: the JSON its simulation's other workloads wrote,
    /// or its own.
    fn reasons_and_pools<'a>(
        &self,
        w: &'a WorkloadResult,
    ) -> (Part<Vec<ReasonOut<'a>>>, Part<Vec<PoolFit>>)
    where
        'i: 'a,
    {
        let key = std::sync::Arc::as_ptr(&w.simulation) as usize;
        let shared = |s: &SharedJson| {
            s.written.get(&key).map(|x| {
                (
                    Part::Shared(x.reasons.clone()),
                    Part::Shared(x.pools.clone()),
                )
            })
        };
        if let Some(parts) = self.shared.lock().ok().and_then(|s| shared(&s)) {
            return parts;
        }
        let (reasons, pools) = self.own_reasons_and_pools(w);
        // Kept only while there is room (another thread may have written it meanwhile), and
        // then written from what is kept: once.
        if let Ok(mut s) = self.shared.lock() {
            if s.written.len() >= SharedJson::MOST {
                s.full += 1;
                if s.full % SharedJson::MOST == 0 {
                    s.written.retain(|_, x| x.simulation.strong_count() > 0);
                }
            }
            if s.written.len() < SharedJson::MOST {
                if let (Some(r), Some(p)) = (raw(&reasons), raw(&pools)) {
                    let x = s.written.entry(key).or_insert(Written {
                        simulation: std::sync::Arc::downgrade(&w.simulation),
                        reasons: r,
                        pools: p,
                    });
                    return (
                        Part::Shared(x.reasons.clone()),
                        Part::Shared(x.pools.clone()),
                    );
                }
            }
        }
        (Part::Own(reasons), Part::Own(pools))
    }

    fn own_reasons_and_pools<'a>(&self, w: &'a WorkloadResult) -> (Vec<ReasonOut<'a>>, Vec<PoolFit>)
    where
        'i: 'a,
    {
        let inv: &'a Inventory = self.inventory;
        let mut reasons: Vec<ReasonOut<'a>> = Vec::new();
        let mut pools: Vec<PoolFit> = Vec::new();
        let mut said = Vec::new();
        for (i, (v, pool)) in w.simulation.pools.iter().zip(&inv.pools).enumerate() {
            pool_reasons_into(v, pool, false, &mut said);
            let (reasons, taints) = why_not(&said, pool, &mut reasons);
            let entry = PoolFit {
                pools: vec![i],
                fit: Fit::of_pool(v, pool),
                nodes: v.fitting(pool),
                reasons,
                taints,
                tolerated: said
                    .iter()
                    .filter_map(|r| match *r {
                        PoolReason::Granted(t, source) => Some(GrantOut {
                            taint: t,
                            source: SourceOut::of(source),
                            message: r.message(pool),
                        }),
                        _ => None,
                    })
                    .collect(),
            };
            match pools.iter_mut().find(|p| p.same_verdict(&entry)) {
                Some(p) => p.pools.push(i),
                None => pools.push(entry),
            }
        }
        (reasons, pools)
    }
}

/// Why a pool's nodes (or some of them) turn the workload away, or only may take it: the
/// indices, in `reasons`, of the distinct reasons other than taints (a reason not seen before in
/// this workload is added), and the indices of the pool's untolerated taints; from
/// [`pool_reasons`], as the matrix's lines are.
fn why_not<'a>(
    said: &[PoolReason<'a>],
    pool: &'a Pool,
    reasons: &mut Vec<ReasonOut<'a>>,
) -> (Vec<usize>, Vec<usize>) {
    let mut indices = Vec::new();
    let mut taints = Vec::new();
    for r in said {
        let subject = match *r {
            PoolReason::Unknown(u) => {
                let key = u.key.as_str();
                match &u.asked {
                    Asked::Value(value) => Subject::LabelUnknown { key, value },
                    Asked::Expression(expression) => {
                        Subject::AffinityLabelUnknown { key, expression }
                    }
                    Asked::Spread => Subject::TopologyKeyUnknown { key },
                    Asked::Claim { .. } => Subject::ClaimNotSimulated { claim: key },
                    Asked::Taint { taint, by } => Subject::TaintUnknown { taint, by },
                    Asked::Resource { requested, range } => Subject::CapacityUnknown {
                        resource: key,
                        requested: display(key, *requested),
                        range: range.map(|(a, b)| [display(key, a), display(key, b)]),
                    },
                }
            }
            PoolReason::Blocks {
                reason: Reason::Taint(t),
                ..
            } => {
                if !taints.contains(t) {
                    taints.push(*t);
                }
                continue;
            }
            PoolReason::Blocks { reason, .. } => match Subject::of(reason) {
                Some(subject) => subject,
                None => continue,
            },
            PoolReason::Avoid(_) | PoolReason::Granted(..) => continue,
        };
        let index = match reasons.iter().position(|seen| seen.subject == subject) {
            Some(i) => i,
            None => {
                reasons.push(ReasonOut {
                    subject,
                    message: r.message(pool),
                });
                reasons.len() - 1
            }
        };
        if !indices.contains(&index) {
            indices.push(index);
        }
    }
    taints.sort_unstable();
    (indices, taints)
}
