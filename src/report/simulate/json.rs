//! `--format json`, version 2: one line per pool of the cluster, then one line per workload.
//!
//! A workload lists the distinct reasons that keep it off nodes once, in its `reasons`, each
//! as data (a `code`, the selector term or node name, a `message`); its `pools` entries refer
//! to them by index, and to the pool's untolerated taints by their index in the cluster's
//! `pools[].taints`. So a reason shared by 49 pools is written once, a taint is never restated,
//! and the output grows with workloads x pools by a few bytes per pool.

use std::io::{self, Write};

use serde::Serialize;

use super::{from_words, granted, Fit, Place, SimulateSummary, SimulatedFile};
use crate::inventory::{Inventory, Pool};
use crate::k8s::model::Taint;
use crate::schedule::admission::Source as TolerationSource;
use crate::schedule::{PoolVerdict, Reason, WorkloadResult};

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
        })
    }
}

#[derive(Serialize)]
struct ReasonOut<'a> {
    #[serde(flatten)]
    subject: Subject<'a>,
    message: String,
}

#[derive(Serialize)]
struct PoolFit {
    pool: usize,
    fit: &'static str,
    nodes: usize,
    /// Indices into the workload's `reasons`.
    reasons: Vec<usize>,
    /// The pool's taints (indices into its `taints`) that the workload does not tolerate.
    taints: Vec<usize>,
    /// The pool's taints the workload tolerates only by a toleration its manifest does not
    /// show, and where that toleration comes from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tolerated: Vec<GrantOut>,
}

/// A taint tolerated by a toleration from outside the manifest.
#[derive(Serialize)]
struct GrantOut {
    taint: usize,
    source: SourceOut,
    message: String,
}

/// Where a toleration comes from, as data.
#[derive(Serialize)]
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
        }
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
    fits: &'static str,
    nodes: usize,
    rejected: Option<RejectedOut<'a>>,
    reasons: Vec<ReasonOut<'a>>,
    pools: Vec<PoolFit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedulable: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    avoid: Option<Vec<&'a str>>,
}

#[derive(Serialize)]
struct SummaryOut {
    workloads: usize,
    yes: usize,
    avoided: usize,
    no: usize,
    rejected: usize,
}

/// Writes `taintlint simulate --format json` (version 2): [`begin`](Self::begin) with the
/// cluster, [`file`](Self::file) as each file is done, [`end`](Self::end) with the summary.
pub struct JsonWriter<'i> {
    inventory: &'i Inventory,
    nodes: bool,
    first: bool,
    pub summary: SimulateSummary,
    line: Vec<u8>,
}

fn json_error(e: serde_json::Error) -> io::Error {
    io::Error::other(e)
}

impl<'i> JsonWriter<'i> {
    /// `nodes`: list the names of the nodes each workload fits (`--nodes`).
    pub fn new(inventory: &'i Inventory, nodes: bool) -> Self {
        JsonWriter {
            inventory,
            nodes,
            first: true,
            summary: SimulateSummary::default(),
            line: Vec::new(),
        }
    }

    pub fn begin(&mut self, out: &mut dyn Write, place: Place<'_>) -> io::Result<()> {
        let inv = self.inventory;
        write!(
            out,
            "{{\"version\":2,\"cluster\":{{\"nodes\":{},\"pools\":[",
            inv.node_count()
        )?;
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

    /// The workloads of one file.
    pub fn file(&mut self, out: &mut dyn Write, file: &SimulatedFile) -> io::Result<()> {
        for w in &file.workloads {
            let value = self.workload(&file.path, w);
            self.line.clear();
            self.line
                .extend_from_slice(if self.first { b"\n" } else { b",\n" });
            serde_json::to_writer(&mut self.line, &value).map_err(json_error)?;
            out.write_all(&self.line)?;
            self.first = false;
        }
        Ok(())
    }

    fn workload<'a>(&mut self, file: &'a str, w: &'a WorkloadResult) -> WorkloadOut<'a>
    where
        'i: 'a,
    {
        let inv: &'a Inventory = self.inventory;
        let (fit, fitting) = Fit::of_workload(w, inv);
        self.summary.workloads += 1;
        self.summary.rejected += usize::from(w.rejected.is_some());
        match fit {
            Fit::No => self.summary.no += 1,
            Fit::Avoided => self.summary.avoided += 1,
            _ => self.summary.yes += 1,
        }
        let mut reasons: Vec<ReasonOut<'a>> = Vec::new();
        let pools = w
            .simulation
            .pools
            .iter()
            .zip(&inv.pools)
            .enumerate()
            .map(|(i, (v, pool))| {
                let (reasons, taints) = why_not(v, pool, &mut reasons);
                PoolFit {
                    pool: i,
                    fit: Fit::of_pool(v, pool).as_str(),
                    nodes: v.fitting(pool),
                    reasons,
                    taints,
                    tolerated: granted(v, pool)
                        .into_iter()
                        .map(|(t, source)| GrantOut {
                            taint: t,
                            message: format!(
                                "tolerates {} by a toleration {}",
                                pool.taints[t].taint,
                                from_words(source)
                            ),
                            source: SourceOut::of(source),
                        })
                        .collect(),
                }
            })
            .collect();
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
            fits: fit.as_str(),
            nodes: fitting,
            rejected: w.rejected.as_ref().map(|r| RejectedOut {
                rule: r.rule,
                message: &r.message,
                path: r.path.as_deref(),
            }),
            reasons,
            pools,
            schedulable,
            avoid,
        }
    }

    pub fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let s = self.summary;
        out.write_all(b"\n],\"summary\":")?;
        let summary = SummaryOut {
            workloads: s.workloads,
            yes: s.yes,
            avoided: s.avoided,
            no: s.no,
            rejected: s.rejected,
        };
        serde_json::to_writer(&mut *out, &summary).map_err(json_error)?;
        out.write_all(b"}\n")
    }
}

/// Why a pool's nodes (or some of them) turn the workload away: the indices, in `reasons`, of
/// the distinct reasons other than taints (a reason not seen before in this workload is added),
/// and the indices of the pool's untolerated taints.
fn why_not<'a>(
    verdict: &'a PoolVerdict,
    pool: &'a Pool,
    reasons: &mut Vec<ReasonOut<'a>>,
) -> (Vec<usize>, Vec<usize>) {
    let mut indices = Vec::new();
    let mut taints = Vec::new();
    for (v, _, _) in verdict.groups(pool) {
        for r in &v.reasons {
            let Some(subject) = Subject::of(r) else {
                if let Reason::Taint(t) = r {
                    if !taints.contains(t) {
                        taints.push(*t);
                    }
                }
                continue;
            };
            let index = match reasons.iter().position(|seen| seen.subject == subject) {
                Some(i) => i,
                None => {
                    reasons.push(ReasonOut {
                        subject,
                        message: r.describe(pool),
                    });
                    reasons.len() - 1
                }
            };
            if !indices.contains(&index) {
                indices.push(index);
            }
        }
    }
    taints.sort_unstable();
    (indices, taints)
}
