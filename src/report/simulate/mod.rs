//! `taintlint simulate` output: the JSON contract of DESIGN.md (version 2), written a file at a
//! time (`json`), and a matrix of workloads by node pools for people ([`human`]).
//!
//! Version 2 grows with workloads x pools, never with nodes: a workload says per pool whether
//! it fits (`yes`, `avoided`, `partial`, `no`), on how many nodes, and why not, as data. Node
//! names are listed only when asked for (`--nodes`).

use crate::inventory::{Inventory, Pool};
use crate::schedule::{PoolVerdict, WorkloadResult};

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
    No,
}

impl Fit {
    pub fn as_str(self) -> &'static str {
        match self {
            Fit::Yes => "yes",
            Fit::Avoided => "avoided",
            Fit::Partial => "partial",
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
