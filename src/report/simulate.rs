//! `taintlint simulate` output: the JSON contract of DESIGN.md (version 2), written a file at a
//! time, and a matrix of workloads by node pools for people, readable in a 100-column terminal.
//!
//! Version 2 grows with workloads x pools, never with nodes: a workload says per pool whether
//! it fits (`yes`, `avoided`, `partial`, `no`), on how many nodes, and why not, as data. Node
//! names are listed only when asked for (`--nodes`).

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use crate::inventory::{nodes_noun, Inventory, Pool};
use crate::schedule::{PoolVerdict, Reason, WorkloadResult};

/// The workloads of one file.
pub struct SimulatedFile {
    pub path: String,
    pub workloads: Vec<WorkloadResult>,
}

/// Where a place in an inventory file is, as 1-based (line, column): the caller knows the texts.
pub type Place<'a> = &'a dyn Fn(usize, usize) -> Option<(usize, usize)>;

/// How a workload fits a pool, or the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    Yes,
    /// Only on nodes with an untolerated PreferNoSchedule taint.
    Avoided,
    /// On some nodes of the pool only.
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
        } else if fitting < pool.nodes.len() {
            Fit::Partial
        } else if verdict.avoided(pool) == fitting {
            Fit::Avoided
        } else {
            Fit::Yes
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

/// Counts for the summary.
#[derive(Debug, Default, Clone, Copy)]
pub struct SimulateSummary {
    pub workloads: usize,
    pub yes: usize,
    pub avoided: usize,
    pub no: usize,
}

/// A reason as data: a code, what it is about, and a message.
pub fn reason_json(reason: &Reason, pool: &Pool) -> Value {
    let message = reason.describe(pool);
    match reason {
        Reason::Unschedulable => json!({"code": "unschedulable", "message": message}),
        Reason::NodeName(n) => json!({"code": "node-name", "nodeName": n, "message": message}),
        Reason::Taint(i) => {
            let t = &pool.taints[*i].taint;
            json!({"code": "taint", "taint": {"key": t.key, "value": t.value, "effect": t.effect.to_string()}, "message": message})
        }
        Reason::NodeSelector { key, wanted, .. } => {
            json!({"code": "node-selector", "key": key, "value": wanted, "message": message})
        }
        Reason::NodeAffinity(_) => json!({"code": "node-affinity", "message": message}),
        Reason::Requirements(_) => json!({"code": "requirements", "message": message}),
    }
}

/// The distinct reasons a pool's nodes (or some of them) turn the workload away, in order.
pub fn pool_reasons<'v>(verdict: &'v PoolVerdict, pool: &'v Pool) -> Vec<&'v Reason> {
    let mut out: Vec<&Reason> = Vec::new();
    for (v, _, _) in verdict.groups(pool) {
        for r in &v.reasons {
            if !out
                .iter()
                .any(|seen| seen.describe(pool) == r.describe(pool))
            {
                out.push(r);
            }
        }
    }
    out
}

/// Writes `taintlint simulate --format json` (version 2): [`begin`](Self::begin) with the
/// cluster, [`file`](Self::file) as each file is done, [`end`](Self::end) with the summary.
pub struct JsonWriter<'i> {
    inventory: &'i Inventory,
    nodes: bool,
    first: bool,
    pub summary: SimulateSummary,
}

impl<'i> JsonWriter<'i> {
    /// `nodes`: list the names of the nodes each workload fits (`--nodes`).
    pub fn new(inventory: &'i Inventory, nodes: bool) -> Self {
        JsonWriter {
            inventory,
            nodes,
            first: true,
            summary: SimulateSummary::default(),
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
            let taints: Vec<Value> = pool
                .taints
                .iter()
                .map(|t| json!({"key": t.taint.key, "value": t.taint.value, "effect": t.taint.effect.to_string()}))
                .collect();
            let labels: Map<String, Value> = pool
                .labels
                .iter()
                .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
                .collect();
            let (line, column) = place(pool.at.file, pool.at.range.start).unzip();
            let count = pool
                .declared
                .as_ref()
                .map(|d| json!({"min": d.count.min, "max": d.count.max}));
            let startup: Vec<Value> = pool
                .declared
                .iter()
                .flat_map(|d| &d.startup_taints)
                .map(|t| json!({"key": t.taint.key, "value": t.taint.value, "effect": t.taint.effect.to_string()}))
                .collect();
            let value = json!({
                "id": i,
                "name": pool.name,
                "kind": pool.kind(),
                "nodes": pool.nodes.len(),
                "count": count,
                "startupTaints": startup,
                "taints": taints,
                "labels": labels,
                "unschedulable": pool.unschedulable.is_some(),
                "source": {"file": inv.file_name(&pool.at), "line": line, "column": column},
            });
            write!(out, "{}\n{value}", if i == 0 { "" } else { "," })?;
        }
        write!(out, "]}},\"workloads\":[")
    }

    /// The workloads of one file.
    pub fn file(&mut self, out: &mut dyn Write, file: &SimulatedFile) -> io::Result<()> {
        let inv = self.inventory;
        for w in &file.workloads {
            let (fit, fitting) = Fit::of_workload(w, inv);
            self.summary.workloads += 1;
            match fit {
                Fit::No => self.summary.no += 1,
                Fit::Avoided => self.summary.avoided += 1,
                _ => self.summary.yes += 1,
            }
            let pools: Vec<Value> = w
                .simulation
                .pools
                .iter()
                .zip(&inv.pools)
                .enumerate()
                .map(|(i, (v, pool))| {
                    let reasons: Vec<Value> = pool_reasons(v, pool)
                        .into_iter()
                        .map(|r| reason_json(r, pool))
                        .collect();
                    json!({"pool": i, "fit": Fit::of_pool(v, pool).as_str(), "nodes": v.fitting(pool), "reasons": reasons})
                })
                .collect();
            let mut value = json!({
                "file": file.path,
                "document": w.document,
                "item": w.item,
                "kind": w.kind,
                "name": w.name,
                "namespace": w.namespace,
                "fits": fit.as_str(),
                "nodes": fitting,
                "pools": pools,
            });
            if self.nodes {
                let mut schedulable = Vec::new();
                let mut avoid = Vec::new();
                for (v, pool) in w.simulation.pools.iter().zip(&inv.pools) {
                    for (m, avoided) in v.fitting_nodes(pool) {
                        let name = Value::from(pool.nodes[m as usize].name.as_str());
                        if avoided {
                            avoid.push(name.clone());
                        }
                        schedulable.push(name);
                    }
                }
                value["schedulable"] = Value::from(schedulable);
                value["avoid"] = Value::from(avoid);
            }
            write!(out, "{}\n{value}", if self.first { "" } else { "," })?;
            self.first = false;
        }
        Ok(())
    }

    pub fn end(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let s = self.summary;
        writeln!(
            out,
            "\n],\"summary\":{}}}",
            json!({"workloads": s.workloads, "yes": s.yes, "avoided": s.avoided, "no": s.no})
        )
    }
}

const WIDTH: usize = 100;
const NAME_WIDTH: usize = 34;

/// A column label for the `i`th pool: A..Z, then AA, AB, ...
fn column(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.insert(0, (b'A' + (i % 26) as u8) as char);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    s
}

fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Wraps `text` at [`WIDTH`] columns, the first line after `first`, the others after `indent`.
fn wrap(first: &str, indent: usize, text: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut len = first.chars().count();
    for word in text.split(' ') {
        let w = word.chars().count();
        if len + 1 + w > WIDTH && len > indent {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            len = indent;
        } else if len > indent && !line.ends_with(' ') {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += w;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The matrix for people.
pub fn human(inventory: &Inventory, files: &[SimulatedFile]) -> String {
    let mut out = String::new();
    let pools = &inventory.pools;
    let names: Vec<&str> = inventory.files.iter().map(|f| f.name.as_str()).collect();
    let as_code = pools.iter().filter(|p| p.declared.is_some()).count();
    let listed: usize = pools
        .iter()
        .filter(|p| p.declared.is_none())
        .map(|p| p.nodes.len())
        .sum();
    let size = match (as_code, listed) {
        (0, n) => format!("{} in {} pools", nodes_noun(n), pools.len()),
        (c, 0) => format!("{c} pools defined as code"),
        (c, n) => format!(
            "{} in {} pools, and {c} pools defined as code",
            nodes_noun(n),
            pools.len() - c
        ),
    };
    out.push_str(&format!("Cluster: {size} ({})\n", names.join(", ")));
    let label_width = column(pools.len().saturating_sub(1)).len();
    let name_width = pools
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(20);
    for (i, p) in pools.iter().enumerate() {
        let mut what: Vec<String> = Vec::new();
        if p.unschedulable.is_some() {
            what.push("cordoned".into());
        }
        what.extend(p.taints.iter().map(|t| t.taint.to_string()));
        let head = format!(
            "  {:<label_width$}  {:<name_width$}  {:<8}  ",
            column(i),
            truncate(&p.name, name_width),
            p.size()
        );
        let indent = head.chars().count();
        let text = if what.is_empty() {
            "no taints".to_string()
        } else {
            what.join(", ")
        };
        out.push_str(&wrap(&head, indent, &text));
    }
    out.push_str(
        "\n✓ fits   ~ fits, but avoided (PreferNoSchedule)   ± fits some nodes   ✗ no fit\n",
    );

    let cell = label_width + 1;
    let per_chunk = ((WIDTH - NAME_WIDTH - 4 - 12) / cell).max(1);
    let chunks: Vec<std::ops::Range<usize>> = (0..pools.len())
        .step_by(per_chunk)
        .map(|s| s..(s + per_chunk).min(pools.len()))
        .collect();
    let mut total = 0;
    let mut nowhere = 0;
    for chunk in &chunks {
        out.push('\n');
        let mut header = format!("  {:NAME_WIDTH$}  ", "");
        for p in chunk.clone() {
            header.push_str(&format!("{:<cell$}", column(p)));
        }
        out.push_str(header.trim_end());
        out.push('\n');
        for f in files {
            if f.workloads.is_empty() {
                continue;
            }
            out.push_str(&format!("{}\n", f.path));
            for w in &f.workloads {
                if chunk.start == 0 {
                    total += 1;
                }
                let fitting = w.simulation.fitting(inventory);
                if fitting == 0 && chunk.start == 0 {
                    nowhere += 1;
                }
                let mut row = format!("  {:<NAME_WIDTH$}  ", truncate(&w.title(), NAME_WIDTH));
                for p in chunk.clone() {
                    let pool = &pools[p];
                    let pv = &w.simulation.pools[p];
                    let fit = pv.fitting(pool);
                    let mark = if fit == 0 {
                        "✗"
                    } else if fit < pool.nodes.len() {
                        "±"
                    } else if pv.avoided(pool) == fit {
                        "~"
                    } else {
                        "✓"
                    };
                    row.push_str(&format!("{mark:<cell$}"));
                }
                if chunk.end == pools.len() {
                    row.push_str(&format!(
                        " {}",
                        if fitting == 0 {
                            "fits no node".to_string()
                        } else if as_code > 0 {
                            let n = w
                                .simulation
                                .pools
                                .iter()
                                .zip(pools)
                                .filter(|(v, p)| v.fitting(p) > 0)
                                .count();
                            format!("fits {n} pool{}", if n == 1 { "" } else { "s" })
                        } else {
                            format!("{} fit", nodes_noun(fitting))
                        }
                    ));
                }
                out.push_str(row.trim_end());
                out.push('\n');
                if chunk.end == pools.len() {
                    out.push_str(&reasons(inventory, w));
                }
            }
        }
    }
    out.push_str(&format!(
        "\n{} simulated; {} {} no node.\n",
        if total == 1 {
            "1 workload".to_string()
        } else {
            format!("{total} workloads")
        },
        nowhere,
        if nowhere == 1 { "fits" } else { "fit" }
    ));
    out
}

/// Under a row: each distinct blocking reason with the pools it blocks.
fn reasons(inventory: &Inventory, w: &WorkloadResult) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (p, (pv, pool)) in w.simulation.pools.iter().zip(&inventory.pools).enumerate() {
        for r in pool_reasons(pv, pool) {
            let text = r.describe(pool);
            match groups.iter_mut().find(|(t, _)| *t == text) {
                Some((_, cols)) => cols.push(column(p)),
                None => groups.push((text, vec![column(p)])),
            }
        }
    }
    let mut out = String::new();
    for (text, cols) in groups {
        let first = format!("      {}: ", cols.join(" "));
        out.push_str(&wrap(&first, 8, &text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_wrapping() {
        assert_eq!(column(0), "A");
        assert_eq!(column(25), "Z");
        assert_eq!(column(26), "AA");
        assert_eq!(column(27), "AB");
        let long = "word ".repeat(40);
        for line in wrap("  x: ", 4, long.trim()).lines() {
            assert!(line.chars().count() <= WIDTH, "{line}");
        }
    }
}
