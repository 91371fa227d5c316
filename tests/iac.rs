//! Node pools defined as code (Karpenter NodePools, ...) as inventories: read, linted and
//! simulated against workloads, end to end through the CLI.

use std::process::{Command, Output};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("the binary runs")
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// (workload name, [(pool name, fit)]) of a simulate JSON report.
fn fits(report: &Value) -> Vec<(String, Vec<(String, String)>)> {
    let pools = report["cluster"]["pools"].as_array().unwrap();
    report["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            // An entry stands for every pool on which the workload fares the same.
            let mut per_pool: Vec<(usize, String, String)> = w["pools"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|p| {
                    p["pools"].as_array().unwrap().iter().map(move |i| {
                        let i = i.as_u64().unwrap() as usize;
                        (
                            i,
                            pools[i]["name"].as_str().unwrap().to_string(),
                            p["fit"].as_str().unwrap().to_string(),
                        )
                    })
                })
                .collect();
            per_pool.sort();
            let per_pool = per_pool.into_iter().map(|(_, n, f)| (n, f)).collect();
            (w["name"].as_str().unwrap().to_string(), per_pool)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn karpenter_nodepools_as_inventory() {
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/iac/nodepools.yaml",
        "tests/fixtures/iac/karpenter-workloads.yaml",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the arm64 workload fits no pool"
    );
    let report = json(&out);
    let pools = &report["cluster"]["pools"];
    assert_eq!(pools[0]["kind"], "nodepool");
    assert_eq!(
        pools[0]["count"],
        serde_json::json!({"min": 0, "max": null})
    );
    assert_eq!(pools[1]["count"], serde_json::json!({"min": 0, "max": 10}));
    assert_eq!(
        pools[0]["startupTaints"][0]["key"],
        "node.cilium.io/agent-not-ready"
    );
    assert_eq!(pools[1]["source"]["line"], 31);
    assert_eq!(
        fits(&report),
        [
            (
                "web".to_string(),
                // The Cilium startup taint does not count; the GPU taint does.
                pairs(&[("general-purpose", "yes"), ("gpu", "no")])
            ),
            (
                "trainer".to_string(),
                // A custom label the general-purpose pool never sets.
                pairs(&[("general-purpose", "no"), ("gpu", "yes")])
            ),
            (
                "arm".to_string(),
                pairs(&[("general-purpose", "no"), ("gpu", "no")])
            ),
        ]
    );
    // Reasons are listed once per workload, and pools refer to them by index.
    let arm = &report["workloads"][2];
    let arm = &arm["reasons"][arm["pools"][0]["reasons"][0].as_u64().unwrap() as usize];
    assert_eq!(arm["code"], "requirements");
    assert_eq!(
        arm["message"],
        "nodeSelector kubernetes.io/arch=arm64 is outside the pool's requirement \
         kubernetes.io/arch In [amd64]"
    );
}

#[test]
fn nodepool_taint_errors_at_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/tests/fixtures/iac/nodepools.yaml"))
        .unwrap()
        .replace("effect: NoSchedule", "effect: NoScheduled");
    let path = dir.path().join("nodepools.yaml");
    std::fs::write(&path, &text).unwrap();
    let out = run(&["lint", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let d = &report["diagnostics"][0];
    assert_eq!(d["rule"], "unknown-effect");
    assert_eq!(d["path"], "spec.template.spec.taints[0].effect");
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 52, "column": 19})
    );
    assert_eq!(d["object"]["kind"], "NodePool");
}
