//! `taintlint simulate --format json` (version 2) read back: the cluster's pools and each
//! workload's verdict per pool, as the JSON contract gives them (docs/simulate.md). Both sides
//! of a comparison are read from it, so that what is compared is what a script would see.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One `simulate --format json` document (its summary left out).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Simulation {
    pub cluster: Cluster,
    #[serde(default)]
    pub workloads: Vec<Workload>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Cluster {
    #[serde(default)]
    pub nodes: usize,
    #[serde(default)]
    pub pools: Vec<Pool>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Pool {
    pub id: usize,
    pub name: String,
    /// `nodes` for listed nodes, else the format that defines the pool (`nodepool`, ...).
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub nodes: usize,
    #[serde(default)]
    pub taints: Vec<Taint>,
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    #[serde(default)]
    pub unschedulable: bool,
    pub source: Source,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize, Serialize)]
pub struct Taint {
    pub key: String,
    #[serde(default)]
    pub value: String,
    pub effect: String,
}

impl std::fmt::Display for Taint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}:{}", self.key, self.effect)
        } else {
            write!(f, "{}={}:{}", self.key, self.value, self.effect)
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Source {
    pub file: String,
    pub line: Option<usize>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Workload {
    pub file: String,
    #[serde(default)]
    pub document: usize,
    pub item: Option<usize>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    #[serde(default)]
    pub path: String,
    pub fits: String,
    #[serde(default)]
    pub nodes: usize,
    pub rejected: Option<Rejected>,
    pub daemonset: Option<DaemonSet>,
    #[serde(default)]
    pub reasons: Vec<Reason>,
    #[serde(default)]
    pub pools: Vec<PoolFit>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Rejected {
    pub rule: String,
    pub message: String,
    pub path: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DaemonSet {
    pub picked: usize,
    pub missed: usize,
    #[serde(rename = "missedPools", default)]
    pub missed_pools: Vec<usize>,
}

/// A reason other than a taint, as data: its `code` and what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Reason {
    pub code: String,
    pub key: Option<String>,
    pub value: Option<String>,
    pub resource: Option<String>,
    #[serde(rename = "nodeName")]
    pub node_name: Option<String>,
    pub message: String,
}

impl Reason {
    /// Two reasons about the same thing (their messages may say it with other numbers).
    pub fn same(&self, other: &Reason) -> bool {
        self.code == other.code
            && self.key == other.key
            && self.value == other.value
            && self.resource == other.resource
            && self.node_name == other.node_name
            && (self.key.is_some() || self.resource.is_some() || self.message == other.message)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct PoolFit {
    pub pools: Vec<usize>,
    pub fit: String,
    #[serde(default)]
    pub nodes: usize,
    #[serde(default)]
    pub reasons: Vec<usize>,
    #[serde(default)]
    pub taints: Vec<usize>,
}

impl Simulation {
    /// Reads a whole `simulate --format json` document.
    pub fn from_json(json: &[u8]) -> Result<Simulation, String> {
        serde_json::from_slice(json).map_err(|e| format!("not simulate's JSON: {e}"))
    }

    /// Adds the workloads of a run of `,`-separated workload objects (one file's, as the
    /// simulation renders them).
    pub fn add_workloads(&mut self, json: &[u8]) -> Result<(), String> {
        if json.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let mut array = Vec::with_capacity(json.len() + 2);
        array.push(b'[');
        array.extend_from_slice(json);
        array.push(b']');
        let workloads: Vec<Workload> =
            serde_json::from_slice(&array).map_err(|e| format!("not simulate's JSON: {e}"))?;
        self.workloads.extend(workloads);
        Ok(())
    }
}

/// How a workload fares on one pool.
#[derive(Debug, Clone)]
pub struct Verdict<'s> {
    pub fit: &'s str,
    pub nodes: usize,
    /// The pool's taints the workload does not tolerate there.
    pub taints: Vec<&'s Taint>,
    pub reasons: Vec<&'s Reason>,
}

impl Workload {
    /// How it fares on the pool with id `pool` of `cluster`.
    pub fn verdict<'s>(&'s self, cluster: &'s Cluster, pool: usize) -> Option<Verdict<'s>> {
        let fit = self.pools.iter().find(|p| p.pools.contains(&pool))?;
        let def = cluster.pools.iter().find(|p| p.id == pool)?;
        Some(Verdict {
            fit: &fit.fit,
            nodes: fit.nodes,
            taints: fit
                .taints
                .iter()
                .filter_map(|&t| def.taints.get(t))
                .collect(),
            reasons: fit
                .reasons
                .iter()
                .filter_map(|&r| self.reasons.get(r))
                .collect(),
        })
    }

    /// Whether it runs nowhere it should: the API server refuses it, or it fits no node (a
    /// DaemonSet that picks no node runs nowhere by design).
    pub fn runs_nowhere(&self) -> bool {
        if self.rejected.is_some() {
            return true;
        }
        if self.daemonset.as_ref().is_some_and(|d| d.picked == 0) {
            return false;
        }
        self.fits == "no"
    }

    /// `Deployment shop/web`.
    pub fn title(&self) -> String {
        let kind = self.kind.as_deref().unwrap_or("workload of unknown kind");
        match (&self.namespace, &self.name) {
            (Some(ns), Some(n)) => format!("{kind} {ns}/{n}"),
            (None, Some(n)) => format!("{kind} {n}"),
            _ if self.path.is_empty() => format!("{kind} at the document's root"),
            _ => format!("{kind} at {}", self.path),
        }
    }
}
