//! `--format json`, version 2.

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use super::{pool_reasons, Fit, Place, SimulateSummary, SimulatedFile};
use crate::inventory::{Inventory, Pool};
use crate::schedule::Reason;

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
