//! `taintlint simulate` output: the JSON contract of DESIGN.md (version 2), written a file at a
//! time (`json`), and a matrix of workloads by node pools for people ([`human`]).
//!
//! Version 2 grows with workloads x pools, never with nodes: a workload says per pool whether
//! it fits (`yes`, `avoided`, `partial`, `no`), on how many nodes, and why not, as data. Node
//! names are listed only when asked for (`--nodes`).

use crate::inventory::{Inventory, Pool};
use crate::schedule::admission::Source;
use crate::schedule::{PoolVerdict, Reason, Undeclared, WorkloadResult};

mod changes;
mod human;
mod json;

pub use changes::{changes_human, changes_json, describe, Base};
pub use human::{human, HumanOptions, Row};
pub use json::{JsonRenderer, JsonWriter, RenderedFile};

/// The workloads of one file.
pub struct SimulatedFile {
    pub path: String,
    pub workloads: Vec<WorkloadResult>,
}

/// A file whose pod templates were not all read, why, and about how many of them were not
/// simulated (its `containers:` lines beyond the pod templates read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadFile {
    pub file: String,
    /// `template` (a Go or Helm template) or `syntax` (not valid YAML).
    pub why: &'static str,
    pub pod_templates: usize,
}

/// About how many pod templates of a file's text were not simulated: its lines that open a
/// `containers:` list, beyond the `simulated` pod templates read from it.
pub fn unread_pod_templates(text: &str, simulated: usize) -> usize {
    text.lines()
        .filter(|l| {
            let l = l.trim_start().trim_start_matches("- ");
            l.starts_with("containers:")
        })
        .count()
        .saturating_sub(simulated)
}

/// Where a place in an inventory file is, as 1-based (line, column): the caller knows the texts.
pub type Place<'a> = &'a dyn Fn(usize, usize) -> Option<(usize, usize)>;

/// How a workload fits a pool, or the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    Yes,
    /// Only on nodes with an untolerated PreferNoSchedule taint.
    Avoided,
    /// On some nodes of the pool only, or maybe (on labels a pool defined as code does not
    /// declare).
    Partial,
    /// Of a workload: it only may fit (every pool it fits says "may fit", none for certain;
    /// [`Fit::only_may`]). Never a pool's.
    May,
    No,
}

impl Fit {
    pub fn as_str(self) -> &'static str {
        match self {
            Fit::Yes => "yes",
            Fit::Avoided => "avoided",
            Fit::Partial => "partial",
            Fit::May => "may",
            Fit::No => "no",
        }
    }

    /// How a workload fits one pool.
    pub fn of_pool(verdict: &PoolVerdict, pool: &Pool) -> Fit {
        let fitting = verdict.fitting(pool);
        if fitting == 0 {
            Fit::No
        } else if fitting < pool.nodes.len() || verdict.uncertain(pool) {
            Fit::Partial
        } else if verdict.avoided(pool) == fitting {
            Fit::Avoided
        } else {
            Fit::Yes
        }
    }

    /// Whether a workload that fits some node (`fitting` of [`Fit::of_workload`]) only may: every
    /// pool it fits says "may fit" (a label or a capacity the pool does not declare, a resource
    /// claim), none that it certainly fits.
    pub fn only_may(w: &WorkloadResult, inventory: &Inventory) -> bool {
        let mut fits = w
            .simulation
            .pools
            .iter()
            .zip(&inventory.pools)
            .filter(|(v, pool)| v.fitting(pool) > 0)
            .peekable();
        fits.peek().is_some() && fits.all(|(v, pool)| v.uncertain(pool))
    }

    /// How a workload fits the cluster as `simulate` reports and counts it, in every format:
    /// `yes`, `may` (only may, [`Fit::only_may`]), `avoided` (only on nodes to avoid) or `no`.
    pub fn verdict(w: &WorkloadResult, inventory: &Inventory) -> (Fit, usize) {
        match Fit::of_workload(w, inventory) {
            (Fit::Yes, n) if Fit::only_may(w, inventory) => (Fit::May, n),
            other => other,
        }
    }

    /// How a workload fits the cluster: `yes`, `avoided` (only on nodes to avoid) or `no`.
    pub fn of_workload(w: &WorkloadResult, inventory: &Inventory) -> (Fit, usize) {
        let mut fitting = 0;
        let mut avoided = 0;
        for (v, pool) in w.simulation.pools.iter().zip(&inventory.pools) {
            fitting += v.fitting(pool);
            avoided += v.avoided(pool);
        }
        let fit = if fitting == 0 {
            Fit::No
        } else if avoided == fitting {
            Fit::Avoided
        } else {
            Fit::Yes
        };
        (fit, fitting)
    }
}

/// One thing said of how a workload fares on a pool: the JSON writes it as data (a reason, a
/// taint's index, a toleration's source) and the matrix as a line under the row, both from
/// [`pool_reasons`] and in the same words ([`PoolReason::message`]), so that `--why` says every
/// reason the JSON has.
#[derive(Debug, Clone, Copy)]
pub enum PoolReason<'a> {
    /// An untolerated PreferNoSchedule taint (an index in the pool's `taints`) of nodes it fits:
    /// they are nodes to avoid.
    Avoid(usize),
    /// A taint (an index in the pool's `taints`) of nodes it fits that it tolerates only by a
    /// toleration its manifest does not show, and where that comes from.
    Granted(usize, &'a Source),
    /// What the pool does not say, on nodes it fits only if that is so.
    Unknown(&'a Undeclared),
    /// What keeps it off (some of) the pool's nodes. `unselected`: for a DaemonSet, on nodes it
    /// does not select (not a miss: it is not meant to run there).
    Blocks {
        reason: &'a Reason,
        unselected: bool,
    },
}

impl PoolReason<'_> {
    /// In words: `untolerated taint dedicated=search:NoSchedule`, `nodeSelector disk=ssd does
    /// not match`, the reason a pool may fit (without the `may fit: ` the matrix puts before
    /// it), `by a toleration RuntimeClass gvisor adds (scheduling.tolerations[0])`.
    pub fn message(&self, pool: &Pool) -> String {
        match self {
            PoolReason::Avoid(t) => format!("untolerated taint {}", pool.taints[*t].taint),
            PoolReason::Granted(_, source) => format!("by a toleration {}", source.origin()),
            PoolReason::Unknown(u) => u.describe(),
            PoolReason::Blocks { reason, .. } => reason.describe(pool),
        }
    }

    /// The line the matrix writes under a row: the message, with what kind of thing it is.
    pub fn line(&self, pool: &Pool) -> String {
        match self {
            PoolReason::Avoid(_) => format!("nodes to avoid: {}", self.message(pool)),
            PoolReason::Granted(t, _) => {
                format!("tolerates {} {}", pool.taints[*t].taint, self.message(pool))
            }
            PoolReason::Unknown(_) => format!("may fit: {}", self.message(pool)),
            PoolReason::Blocks {
                reason,
                unselected: true,
            } if reason.selects() => format!("not selected: {}", self.message(pool)),
            PoolReason::Blocks { .. } => self.message(pool),
        }
    }
}

/// Everything said of how a workload fares on one pool, each thing once, in the order the
/// matrix says them: nodes to avoid, taints tolerated from elsewhere, what the pool does not
/// say (on nodes it may fit), then what keeps it off. `daemonset`: a DaemonSet that selects
/// some node, whose reasons on nodes it does not select are marked so.
pub fn pool_reasons<'a>(
    verdict: &'a PoolVerdict,
    pool: &'a Pool,
    daemonset: bool,
) -> Vec<PoolReason<'a>> {
    let mut out = Vec::new();
    pool_reasons_into(verdict, pool, daemonset, &mut out);
    out
}

/// [`pool_reasons`] into `out` (emptied first): a workload's pools, one after the other, in
/// one buffer.
pub fn pool_reasons_into<'a>(
    verdict: &'a PoolVerdict,
    pool: &'a Pool,
    daemonset: bool,
    out: &mut Vec<PoolReason<'a>>,
) {
    out.clear();
    for (v, _, _) in verdict.groups(pool).filter(|(v, _, _)| v.fits()) {
        for &t in &v.avoid {
            if !out
                .iter()
                .any(|r| matches!(r, PoolReason::Avoid(x) if *x == t))
            {
                out.push(PoolReason::Avoid(t));
            }
        }
    }
    for (t, source) in verdict.tolerated_elsewhere(pool) {
        out.push(PoolReason::Granted(t, source));
    }
    for (v, _, _) in verdict.groups(pool).filter(|(v, _, _)| v.fits()) {
        for u in &v.unknown {
            if !out
                .iter()
                .any(|r| matches!(r, PoolReason::Unknown(x) if *x == u))
            {
                out.push(PoolReason::Unknown(u));
            }
        }
    }
    let first = out.len();
    for (v, _, _) in verdict.groups(pool) {
        let unselected = daemonset && v.reasons.iter().any(Reason::selects);
        for r in &v.reasons {
            let seen = out[first..].iter_mut().find_map(|b| match b {
                PoolReason::Blocks {
                    reason,
                    unselected: u,
                } if reason.same_as(r) => Some(u),
                _ => None,
            });
            match seen {
                Some(u) => *u &= unselected,
                None => out.push(PoolReason::Blocks {
                    reason: r,
                    unselected,
                }),
            }
        }
    }
}

/// Counts for the summary.
#[derive(Debug, Default, Clone, Copy)]
pub struct SimulateSummary {
    pub workloads: usize,
    pub yes: usize,
    /// Workloads that only may fit (every pool they fit says "may fit"): not in `yes`.
    pub may: usize,
    pub avoided: usize,
    pub no: usize,
    /// Workloads whose pods the API server would refuse (counted in the others too: they are
    /// placed as written).
    pub rejected: usize,
    /// Workloads found by their shape, in kinds taintlint's table does not know.
    pub by_shape: usize,
}

impl SimulateSummary {
    /// Counts a workload of this verdict ([`Fit::verdict`]).
    pub fn count(&mut self, fit: Fit) {
        self.workloads += 1;
        match fit {
            Fit::No => self.no += 1,
            Fit::Avoided => self.avoided += 1,
            Fit::May => self.may += 1,
            Fit::Yes | Fit::Partial => self.yes += 1,
        }
    }

    pub fn add(&mut self, other: &SimulateSummary) {
        self.workloads += other.workloads;
        self.yes += other.yes;
        self.may += other.may;
        self.avoided += other.avoided;
        self.no += other.no;
        self.rejected += other.rejected;
        self.by_shape += other.by_shape;
    }
}
