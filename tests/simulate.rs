//! The inventory and the simulation end to end: the CLI's `--inventory` and `simulate`, each
//! inventory format, broken inventories, and snapshots of what a person sees.

use std::path::Path;
use std::process::{Command, Output};
use taintlint::analysis::{check, simulate, Ask};

use serde_json::Value;
use taintlint::inventory::Inventory;
use taintlint::report::{self, FileReport};
use taintlint::Options;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(ROOT)
        // The human output fits COLUMNS: the snapshots are taken at the width of a pipe.
        .env_remove("COLUMNS")
        .output()
        .expect("the binary runs")
}

/// `run` with `input` on standard input.
fn run_with_input(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(ROOT)
        .env_remove("COLUMNS")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped");
    // Written from another thread: the child may answer before it has read everything.
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("the binary runs");
    writer.join().expect("the writer ends");
    output
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// The human output with its wrapped lines joined (every run of white space one space).
fn joined(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap()
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s
}

fn load(paths: &[&str]) -> Inventory {
    let texts: Vec<(String, String)> = paths.iter().map(|p| (p.to_string(), read(p))).collect();
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    Inventory::load(&pairs).unwrap()
}

/// (workload title, sorted node names it fits) for every workload of the examples.
fn placements(inventory: &Inventory) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for file in [
        "examples/gpu-training.yaml",
        "examples/inference.yaml",
        "examples/web.yaml",
        "examples/node-agent.yaml",
    ] {
        for w in simulate(&read(file), &Options::default(), inventory).workloads {
            let mut nodes = Vec::new();
            for (pv, pool) in w.simulation.pools.iter().zip(&inventory.pools) {
                for (m, member) in pool.nodes.iter().enumerate() {
                    if pv.verdict_of(pool, m).fits() {
                        nodes.push(member.name.clone());
                    }
                }
                // The names --nodes lists agree with the verdicts node by node.
                let listed: Vec<&str> = pv
                    .fitting_nodes(pool)
                    .iter()
                    .map(|&(m, _)| pool.nodes[m as usize].name.as_str())
                    .collect();
                let judged: Vec<&str> = (0..pool.nodes.len())
                    .filter(|&m| pv.verdict_of(pool, m).fits())
                    .map(|m| pool.nodes[m].name.as_str())
                    .collect();
                assert_eq!(listed, judged);
                assert_eq!(pv.fitting(pool), judged.len());
            }
            nodes.sort();
            out.push((w.title(), nodes));
        }
    }
    out
}

#[test]
fn kubectl_output_and_the_pool_file_describe_the_same_cluster() {
    let listed = load(&["examples/inventory/nodes.yaml"]);
    let pools = load(&["examples/inventory/pools.yaml"]);
    assert_eq!(listed.node_count(), 10);
    assert_eq!(pools.node_count(), 10);
    assert_eq!(
        listed.pools.len(),
        6,
        "zones and hostnames do not split pools"
    );
    let a = placements(&listed);
    assert_eq!(a, placements(&pools));
    // A sanity check of the placements themselves.
    let find = |t: &str| a.iter().find(|(w, _)| w == t).unwrap().1.clone();
    assert_eq!(find("Job ml/train-resnet"), ["gpu-1", "gpu-2"]);
    assert!(find("Deployment ml/inference").is_empty());
    assert_eq!(find("DaemonSet kube-system/log-shipper").len(), 10);
    assert_eq!(
        find("Deployment shop/web"),
        ["batch-1", "batch-2", "general-1", "general-2"]
    );
}

#[test]
fn json_lists_node_documents_and_several_files_make_one_cluster() {
    let inv = load(&[
        "tests/fixtures/nodes.json",
        "tests/fixtures/nodelist.json",
        "examples/nodes.yaml",
    ]);
    assert_eq!(inv.node_count(), 3 + 1 + 2);
    // The two GPU nodes (different zones) are one pool; the cordoned node another.
    let gpu = inv.pools.iter().find(|p| p.nodes.len() == 2).unwrap();
    assert_eq!(gpu.nodes[0].name, "gpu-1");
    let cordoned = inv
        .pools
        .iter()
        .find(|p| p.unschedulable.is_some())
        .unwrap();
    assert_eq!(cordoned.nodes[0].name, "general-1");
    // examples/nodes.yaml (Node documents) has taint mistakes: left out of the simulation, and
    // linted as any manifest is.
    assert_eq!(inv.files[2].invalid_taints, 1);
    let text = read("examples/nodes.yaml");
    let found = taintlint::analyse(&text, &Options::default());
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["deprecated-taint-key", "unknown-effect"]);
    assert_eq!(inv.files[0].invalid_taints, 0);
}

#[test]
fn list_items_are_simulated_with_their_index() {
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/nodelist.json",
        "tests/fixtures/list-workloads.yaml",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["version"], 2);
    assert_eq!(v["cluster"]["nodes"], 1);
    let w = v["workloads"].as_array().unwrap();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0]["item"], 0);
    assert_eq!(w[0]["document"], 0);
    assert_eq!(w[0]["name"], "plain");
    assert_eq!(w[0]["fits"], "no");
    assert_eq!(w[0]["nodes"], 0);
    // An untolerated taint is referred to by its index in the cluster's pool.
    assert_eq!(
        v["cluster"]["pools"][0]["taints"][0],
        serde_json::json!({"key": "dedicated", "value": "infra", "effect": "NoExecute"})
    );
    assert_eq!(w[0]["reasons"], serde_json::json!([]));
    assert_eq!(
        w[0]["pools"],
        serde_json::json!([{"pools": [0], "fit": "no", "nodes": 0, "reasons": [], "taints": [0]}])
    );
    assert_eq!(w[1]["item"], 1);
    assert_eq!(w[1]["fits"], "yes");
    assert_eq!(w[1]["nodes"], 1);
    // Node names only with --nodes.
    assert_eq!(w[1].get("schedulable"), None);
    let keys: Vec<&String> = w[1].as_object().unwrap().keys().collect();
    // The contract's fields, in the contract's order.
    assert_eq!(
        keys,
        [
            "file",
            "document",
            "item",
            "kind",
            "name",
            "namespace",
            "path",
            "part",
            "fits",
            "nodes",
            "rejected",
            "reasons",
            "pools"
        ]
    );
}

#[test]
fn simulate_json_marks_avoided_nodes() {
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--nodes",
        "--inventory",
        "examples/inventory/pools.yaml",
        "examples/inference.yaml",
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let reindex = v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == "reindex")
        .unwrap();
    assert_eq!(reindex["fits"], "avoided");
    assert_eq!(
        reindex["schedulable"],
        serde_json::json!(["batch-1", "batch-2"])
    );
    assert_eq!(reindex["avoid"], serde_json::json!(["batch-1", "batch-2"]));
    assert_eq!(reindex["item"], Value::Null);
    assert_eq!(reindex["document"], 1);
    let batch = v["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .position(|p| p["name"] == "batch")
        .unwrap();
    let entry = reindex["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["pools"].as_array().unwrap().contains(&batch.into()))
        .unwrap();
    assert_eq!(entry["fit"], "avoided");
    assert_eq!(entry["nodes"], 2);
}

/// A workload that only may fit (every pool it fits does not say what its nodes offer) says
/// `"fits": "may"`, not `"yes"`, and the summary counts it apart; one that fits a pool for
/// certain still says `"yes"`, even when it may fit others too.
#[test]
fn simulate_json_says_may_where_every_fitting_pool_may_fit() {
    let json = |inventory: &str, file: &str| -> Value {
        let o = run(&[
            "simulate",
            "--format",
            "json",
            "--inventory",
            inventory,
            file,
        ]);
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let v = json(
        "examples/gpu/flavors.yaml",
        "examples/gpu/finetune-jobset.yaml",
    );
    let workloads = v["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 2, "{v:#}");
    for w in workloads {
        assert_eq!(w["fits"], "may", "{w:#}");
        assert!(
            w["pools"]
                .as_array()
                .unwrap()
                .iter()
                .all(|p| p["fit"] == "partial" || p["fit"] == "no"),
            "{w:#}"
        );
    }
    assert_eq!(v["summary"]["may"], 2, "{v:#}");
    assert_eq!(v["summary"]["yes"], 0, "{v:#}");
    // Against Nodes that say what they offer, the coordinator fits for certain.
    let v = json(
        "examples/inventory/nodes.yaml",
        "examples/gpu/finetune-jobset.yaml",
    );
    let coordinator = &v["workloads"][0];
    assert_eq!(
        coordinator["path"],
        "spec.replicatedJobs[0].template.spec.template.spec"
    );
    assert_eq!(coordinator["fits"], "yes", "{v:#}");
    assert_eq!(v["summary"]["may"], 0, "{v:#}");
}

/// The matrix counts a workload that only may fit apart, as the JSON summary does, under a
/// heading of its own and with `--only may`; it exits 0 (an unknown is no "no"), while one that
/// fits no node beside it makes it exit 1.
#[test]
fn simulate_human_counts_may_fit_apart_and_exits_0_for_it() {
    let args = [
        "simulate",
        "--inventory",
        "examples/gpu/flavors.yaml",
        "examples/gpu/finetune-jobset.yaml",
    ];
    let o = run(&args);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("\nMay fit (2)\n"), "{text}");
    assert!(
        text.contains(
            "JobSet ml/finetune, replicated job coordinator  ± ✗ ✗  may fit (count unknown)"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("2 workloads simulated: 0 fit, 2 may fit, 0 fit no node.\n"),
        "{text}"
    );
    // Against Nodes that say what they offer, the coordinator fits, the workers fit none; the
    // DRA jobs (beside their own nodes) only may.
    let o = run(&[
        "simulate",
        "--inventory",
        "examples/inventory/nodes.yaml",
        "examples/gpu/finetune-jobset.yaml",
        "examples/dra/training.yaml",
        "--inventory",
        "examples/dra/cluster.yaml",
    ]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    let summary = text
        .lines()
        .rev()
        .find(|l| l.contains("simulated:"))
        .unwrap();
    assert_eq!(
        summary, "5 workloads simulated: 1 fit, 3 may fit, 1 fits no node.",
        "{text}"
    );
    // `--only may`: only those rows, the summary still counting every workload.
    let mut only = args.to_vec();
    only.extend(["--only", "may"]);
    let text = stdout(&run(&only));
    assert!(text.contains("May fit (2)"), "{text}");
    let mut only = args.to_vec();
    only.extend(["--only", "yes"]);
    let text = stdout(&run(&only));
    assert!(!text.contains("May fit"), "{text}");
    assert!(text.contains("0 of them shown (--only yes)."), "{text}");
}

/// The whole version 2 document for the examples against the pool file: cluster, workloads
/// with per-pool verdicts and reasons as data, summary.
#[test]
fn simulate_json_v2() {
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "examples/inventory/pools.yaml",
        "examples/",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    settings().bind(|| insta::assert_json_snapshot!("simulate_json_v2", v));
}

/// A workload's pool entries cover every pool exactly once, and pools on which it fares the same
/// share one entry: the output grows with the distinct verdicts, not with the pools.
#[test]
fn pools_with_the_same_verdict_share_one_entry() {
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "examples/inventory/pools.yaml",
        "examples/",
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let pools = v["cluster"]["pools"].as_array().unwrap().len();
    let mut shared = 0;
    for w in v["workloads"].as_array().unwrap() {
        let entries = w["pools"].as_array().unwrap();
        let mut ids: Vec<u64> = entries
            .iter()
            .flat_map(|e| e["pools"].as_array().unwrap())
            .map(|i| i.as_u64().unwrap())
            .collect();
        ids.sort_unstable();
        assert_eq!(ids, (0..pools as u64).collect::<Vec<_>>(), "{w}");
        let verdict = |e: &Value| {
            let mut e = e.clone();
            e.as_object_mut().unwrap().remove("pools");
            e
        };
        for (i, a) in entries.iter().enumerate() {
            for b in &entries[i + 1..] {
                assert_ne!(verdict(a), verdict(b), "{w}");
            }
        }
        shared += usize::from(entries.len() < pools);
    }
    assert!(
        shared > 0,
        "no workload has two pools with the same verdict"
    );
}

/// Workloads that ask the same of the inventory share one simulation, and the JSON of its
/// `reasons` and `pools` is written once for them all: each workload's is byte for byte what it
/// is when the workload is simulated alone.
#[test]
fn workloads_that_share_a_simulation_say_the_same_as_alone() {
    let dir = tempfile::tempdir().unwrap();
    let deployment = |name: &str, toleration: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  \
             template:\n    spec:\n      tolerations: [{toleration}]\n      containers: \
             [{{name: c, image: x}}]\n"
        )
    };
    let gpu = "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}";
    let alone = dir.path().join("alone.yaml");
    std::fs::write(&alone, deployment("a", gpu)).unwrap();
    let many = dir.path().join("many.yaml");
    std::fs::write(
        &many,
        [
            deployment("a", gpu),
            deployment("b", ""),
            deployment("c", gpu),
            deployment("d", gpu),
        ]
        .join("---\n"),
    )
    .unwrap();
    let parts = |file: &std::path::Path| -> Vec<(String, String)> {
        let o = run(&[
            "simulate",
            "--format",
            "json",
            "--inventory",
            "examples/inventory/pools.yaml",
            file.to_str().unwrap(),
        ]);
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["workloads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| (w["reasons"].to_string(), w["pools"].to_string()))
            .collect()
    };
    let alone = parts(&alone);
    let many = parts(&many);
    assert_eq!(many.len(), 4);
    for i in [0, 2, 3] {
        assert_eq!(many[i], alone[0], "workload {i}");
    }
    // The workload that asks otherwise fares otherwise.
    assert_ne!(many[1], alone[0]);
}

/// `kubectl get nodes -o json | taintlint simulate --inventory - ...`
#[test]
fn the_inventory_can_come_from_standard_input() {
    let o = run_with_input(
        &[
            "simulate",
            "--format",
            "json",
            "--inventory",
            "-",
            "tests/fixtures/list-workloads.yaml",
        ],
        &read("tests/fixtures/nodelist.json"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["cluster"]["nodes"], 1);
    assert_eq!(
        v["cluster"]["pools"][0]["source"]["file"],
        "<standard input>"
    );
    assert_eq!(v["workloads"][1]["fits"], "yes");
    // A pipe named as a file (`--inventory <(kubectl get nodes -o json)`) is read once, whole.
    let o = run_with_input(
        &[
            "simulate",
            "--format",
            "json",
            "--inventory",
            "/dev/stdin",
            "tests/fixtures/list-workloads.yaml",
        ],
        &read("tests/fixtures/nodelist.json"),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["cluster"]["nodes"], 1);
    // Standard input is read once: not for both.
    let o = run(&["simulate", "--inventory", "-", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("can be read only once"),
        "{}",
        stderr(&o)
    );
}

/// A JSON node list named as a file is read as it streams in, never held whole: what simulate
/// says is what it says of the same list read whole from standard input, places included (on
/// one long line with text in Japanese before them, and across the reader's buffers).
#[test]
fn a_streamed_node_list_simulates_as_one_read_whole() {
    let nodes: Vec<Value> = (0..2_000)
        .map(|i| {
            let pool = ["gpu", "web", "batch", "spot"][i % 4];
            let taints = match pool {
                "gpu" => serde_json::json!([{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]),
                "spot" => serde_json::json!([{"key": "spot", "effect": "PreferNoSchedule"}, {"key": "bad", "effect": "Sometimes"}]),
                _ => serde_json::json!([]),
            };
            serde_json::json!({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": format!("{pool}-{i}"),
                    "labels": {"pool": pool, "kubernetes.io/hostname": format!("{pool}-{i}")},
                    "annotations": {"note": format!("ノード {i} {}", "x".repeat(600))}
                },
                "spec": {"taints": taints, "unschedulable": i == 7},
                "status": {"nodeInfo": {"kubeletVersion": "v1.34.0"}}
            })
        })
        .collect();
    let list =
        serde_json::json!({"apiVersion": "v1", "items": nodes, "kind": "List", "metadata": {}});
    let text = list.to_string();
    assert!(text.len() > 1 << 20 && !text.contains('\n'));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nodes.json");
    std::fs::write(&path, &text).unwrap();
    let file = path.to_str().unwrap();
    let args = ["simulate", "--format", "json", "--inventory"];
    let workloads = "tests/fixtures/list-workloads.yaml";
    let streamed = run(&[&args[..], &[file, workloads]].concat());
    let whole = run_with_input(&[&args[..], &["-", workloads]].concat(), &text);
    assert_eq!(
        streamed.status.code(),
        whole.status.code(),
        "{}",
        stderr(&streamed)
    );
    // Both warn of the same taints left out; the whole text, kept, names the first one's place
    // (a list read as it streamed in is not kept, so it is counted only).
    assert_eq!(
        stderr(&streamed),
        format!(
            "taintlint: warning: inventory {file} has 500 invalid taints left out of the \
             simulation; `taintlint lint {file}` shows why\n"
        )
    );
    assert!(
        stderr(&whole).starts_with("taintlint: warning: <standard input>:1:")
            && stderr(&whole).contains("is left out of the simulation (and 499 more)"),
        "{}",
        stderr(&whole)
    );
    let mut streamed: Value = serde_json::from_str(&stdout(&streamed)).unwrap();
    let whole: Value = serde_json::from_str(&stdout(&whole)).unwrap();
    assert_eq!(streamed["cluster"]["nodes"], 2_000);
    for pool in streamed["cluster"]["pools"].as_array_mut().unwrap() {
        assert_eq!(pool["source"]["file"], file);
        pool["source"]["file"] = "<standard input>".into();
    }
    assert_eq!(streamed, whole);
    // The last pool starts far along the one line, past text in Japanese.
    let last = streamed["cluster"]["pools"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["source"]["line"], 1);
    assert!(last["source"]["column"].as_u64().unwrap() > 1_000, "{last}");
}

/// Items of a node list that carry no `kind` but are Node-shaped are nodes, in YAML and JSON.
#[test]
fn kindless_node_lists_are_inventories() {
    let yaml = "apiVersion: v1\nkind: List\nitems:\n- metadata: {name: a, labels: {kubernetes.io/hostname: a}}\n  spec: {taints: [{key: k, value: v, effect: NoSchedule}]}\n- metadata: {name: b}\n  status: {nodeInfo: {kubeletVersion: v1.31.0}}\n";
    let json = r#"{"items": [{"metadata": {"name": "a"}, "spec": {"providerID": "x"}}]}"#;
    let inv = Inventory::load(&[("list.yaml", yaml), ("list.json", json)]).unwrap();
    assert_eq!(inv.node_count(), 3);
    let tainted = inv.pools.iter().find(|p| !p.taints.is_empty()).unwrap();
    assert_eq!(tainted.nodes[0].name, "a");
    assert_eq!(
        &yaml[tainted.taints[0].at.range.clone()],
        "{key: k, value: v, effect: NoSchedule}"
    );
    // An item with neither `kind` nor a Node's fields is still refused, at its place.
    let e = Inventory::load(&[("list.yaml", "kind: List\nitems:\n- metadata: {name: a}\n")])
        .unwrap_err();
    assert_eq!(e[0].position, Some((3, 3)));
    assert!(e[0].message.contains("items[0] has no `kind`"), "{}", e[0]);
}

/// An alias bomb in an inventory is refused like one in a manifest; a large inventory without
/// aliases is read whatever its size.
#[test]
fn inventories_refuse_alias_bombs_not_size() {
    let mut bomb = String::from(
        "kind: Node\nmetadata:\n  name: n\n  labels:\n    a: &a [x, x, x, x, x, x, x, x, x]\n",
    );
    for (prev, name) in "abcdefgh".chars().zip("bcdefghi".chars()) {
        let refs = vec![format!("*{prev}"); 9].join(", ");
        bomb.push_str(&format!("    {name}: &{name} [{refs}]\n"));
    }
    let e = Inventory::load(&[("bomb.yaml", &bomb)]).unwrap_err();
    assert!(e[0].message.contains("excessive aliasing"), "{}", e[0]);
    // 20,000 Node documents, some 300,000 YAML nodes, no aliases.
    let mut big = String::new();
    for i in 0..20_000 {
        big.push_str(&format!(
            "---\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{kubernetes.io/hostname: n{i}, topology.kubernetes.io/zone: z{}, pool: p{}}}\nspec:\n  taints: [{{key: k, value: v{}, effect: NoSchedule}}]\nstatus:\n  images: [{{names: [a, b], sizeBytes: 1}}]\n",
            i % 3,
            i % 10,
            i % 10
        ));
    }
    let inv = Inventory::load(&[("big.yaml", &big)]).unwrap();
    assert_eq!(inv.node_count(), 20_000);
    assert_eq!(inv.pools.len(), 10);
}

#[test]
fn simulate_human_matrix() {
    let o = run(&[
        "simulate",
        "--inventory",
        "examples/inventory/nodes.yaml",
        "examples/",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a workload fits no node: {}",
        stderr(&o)
    );
    let out = stdout(&o);
    // Not a terminal: 80 columns.
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "wider than 80 columns: {line}");
    }
    settings().bind(|| insta::assert_snapshot!("simulate_matrix", out));
}

#[test]
fn lint_with_an_inventory_points_into_it() {
    let o = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        "examples/inventory/nodes.yaml",
        "examples/inference.yaml",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    // The inventory file is reported too.
    assert_eq!(v["files"], 2);
    let d = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "unschedulable")
        .unwrap();
    assert_eq!(d["object"]["name"], "inference");
    let inv_related: Vec<&Value> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["file"] == "examples/inventory/nodes.yaml")
        .collect();
    assert!(!inv_related.is_empty());
    // The position is the inventory's own: the taint's line there.
    let nodes = read("examples/inventory/nodes.yaml");
    let line = inv_related[0]["range"]["start"]["line"].as_u64().unwrap() as usize;
    let text = nodes.lines().nth(line - 1).unwrap();
    assert!(text.contains("effect: NoSchedule"), "{text}");
}

#[test]
fn inventory_findings_are_reported_for_the_inventory_file() {
    let o = run(&[
        "lint",
        "--inventory",
        "examples/nodes.yaml",
        "examples/web.yaml",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the inventory has an invalid effect"
    );
    let out = stdout(&o);
    assert!(out.contains("--> examples/nodes.yaml:28:13"), "{out}");
    // Linting the inventory as a manifest too does not report it twice.
    let o = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        "examples/inventory/pools.yaml",
        "examples/inventory/pools.yaml",
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["files"], 1);
}

#[test]
fn broken_or_missing_inventories_exit_2_naming_file_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.yaml");
    std::fs::write(
        &broken,
        "pools:\n  gpu:\n    taints: [nvidia.com/gpu=present]\n    count: many\n",
    )
    .unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "# no nodes yet\n").unwrap();
    let pods = dir.path().join("pods.yaml");
    std::fs::write(&pods, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n").unwrap();
    let missing = dir.path().join("missing.yaml");
    let cases = [
        (
            &broken,
            "broken.yaml:4:12: pool `gpu`: count must be a whole number",
        ),
        (&empty, "empty.yaml: holds no nodes"),
        (&pods, "pods.yaml:1:1: a Pod is not a node inventory"),
        (&missing, "missing.yaml: no such file or directory"),
    ];
    for (path, message) in cases {
        for command in ["lint", "simulate"] {
            let o = run(&[
                command,
                "--inventory",
                path.to_str().unwrap(),
                "examples/web.yaml",
            ]);
            assert_eq!(o.status.code(), Some(2), "{command} {path:?}");
            assert!(stderr(&o).contains(message), "{command}: {}", stderr(&o));
            assert!(
                stdout(&o).is_empty(),
                "nothing is linted against a broken inventory"
            );
        }
    }
    let o = run(&["simulate", "examples/web.yaml"]);
    assert_eq!(o.status.code(), Some(2), "simulate needs an inventory");
}

#[test]
fn admission_toggles_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.yaml");
    std::fs::write(
        &job,
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      nodeSelector: {example.com/pool: gpu}\n      tolerations: [{key: example.com/pool, operator: Exists}]\n      containers:\n      - {name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}\n",
    )
    .unwrap();
    let job = job.to_str().unwrap();
    let o = run(&[
        "simulate",
        "--inventory",
        "examples/inventory/pools.yaml",
        job,
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the GPU taint blocks it by default"
    );
    let o = run(&[
        "simulate",
        "--enable-admission-plugins",
        "ExtendedResourceToleration",
        "--inventory",
        "examples/inventory/pools.yaml",
        job,
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "ExtendedResourceToleration adds nvidia.com/gpu:NoSchedule"
    );
}

/// Every diagnostic of an inventory rule, rendered as a person sees it (related inventory
/// locations with their own line and column).
#[test]
fn inventory_rule_messages() {
    let inv_path = "examples/inventory/nodes.yaml";
    let inventory = load(&[inv_path]);
    let mut seen = Vec::new();
    for file in ["examples/inference.yaml", "examples/gpu-training.yaml"] {
        let text = read(file);
        let all = check(&text, Ask::new(&Options::default(), Some(&inventory))).diagnostics;
        for rule in [
            "unschedulable",
            "only-avoided-nodes",
            "eviction-loop",
            "toleration-unused",
            "toleration-does-not-attract",
        ] {
            let found: Vec<_> = all.iter().filter(|d| d.rule == rule).cloned().collect();
            if found.is_empty() {
                continue;
            }
            seen.push(rule);
            let files = vec![
                FileReport::new(file.to_string(), text.clone(), found.clone()),
                FileReport::new(inv_path.to_string(), read(inv_path), Vec::new()),
            ];
            let mut out = report::human::render(&files, false);
            for d in &found {
                for fix in &d.fixes {
                    out.push_str(&format!("\n--- {}\n", fix.title));
                    let fixed = fix.apply(&text);
                    // Only the lines around the edit.
                    let at = fix.edits[0].range.start;
                    let line = fixed[..at].matches('\n').count();
                    let lines: Vec<&str> = fixed.lines().collect();
                    let from = line.saturating_sub(3);
                    let to = (line + 3).min(lines.len());
                    for l in &lines[from..to] {
                        out.push_str(l);
                        out.push('\n');
                    }
                }
            }
            let name = format!(
                "{rule}-{}",
                Path::new(file).file_stem().unwrap().to_str().unwrap()
            );
            settings().bind(|| insta::assert_snapshot!(name, out));
        }
    }
    seen.sort();
    seen.dedup();
    assert_eq!(
        seen.len(),
        5,
        "every inventory rule has an example: {seen:?}"
    );
}

#[test]
fn the_unschedulable_fix_makes_it_fit() {
    let inventory = load(&["examples/inventory/nodes.yaml"]);
    let text = read("examples/inference.yaml");
    let d = check(&text, Ask::new(&Options::default(), Some(&inventory)))
        .diagnostics
        .into_iter()
        .find(|d| d.rule == "unschedulable")
        .unwrap();
    let fixed = d.fixes[0].apply(&text);
    let after = check(&fixed, Ask::new(&Options::default(), Some(&inventory))).diagnostics;
    assert!(after.iter().all(|d| d.rule != "unschedulable"), "{fixed}");
    assert!(
        taintlint::analyse(&fixed, &Options::default()).is_empty(),
        "the fix is valid YAML and Kubernetes"
    );
}

/// `simulate --format json` over `manifest` against `inventory` (both written to a temporary
/// folder), with `extra` arguments: per workload its name, `fits`, what rejected it (if
/// anything), and its verdict per pool name.
/// A workload's name, `fits`, rejection message, and (pool name, fit) per pool.
type Simulated = (String, String, Option<String>, Vec<(String, String)>);

fn simulated(inventory: &str, manifest: &str, extra: &[&str]) -> Vec<Simulated> {
    let dir = tempfile::tempdir().unwrap();
    let (inv, man) = (dir.path().join("nodes.yaml"), dir.path().join("pods.yaml"));
    std::fs::write(&inv, inventory).unwrap();
    std::fs::write(&man, manifest).unwrap();
    let mut args = vec![
        "simulate",
        "--format",
        "json",
        "--inventory",
        inv.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    args.push(man.to_str().unwrap());
    let o = run(&args);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let pool_names: Vec<&str> = json["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let pool_names = &pool_names;
            let mut pools: Vec<(String, String)> = w["pools"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|v| {
                    v["pools"].as_array().unwrap().iter().map(move |p| {
                        let name = pool_names[p.as_u64().unwrap() as usize];
                        (name.to_string(), v["fit"].as_str().unwrap().to_string())
                    })
                })
                .collect();
            pools.sort();
            (
                w["name"].as_str().unwrap().to_string(),
                w["fits"].as_str().unwrap().to_string(),
                w["rejected"]["message"].as_str().map(str::to_string),
                pools,
            )
        })
        .collect()
}

fn pools(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, f)| (p.to_string(), f.to_string()))
        .collect()
}

/// `nodeSelector: {kubernetes.io/os: linux}`, written by most charts (cert-manager's Deployments
/// among them), against a pool file that does not give its pools' operating system: the kubelet
/// sets the label on every node, so the pods may fit, and `lint` does not call them unschedulable.
/// A pool that says `windows` keeps them off; a label the kubelet does not set stays absent.
#[test]
fn a_pool_file_that_does_not_say_the_os_may_fit_pods_that_select_linux() {
    let pool_file = "\
pools:
  general:
    count: 2
  windows:
    labels: {kubernetes.io/os: windows}
";
    let manifest = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: cainjector, namespace: cert-manager}
spec:
  template:
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      containers: [{name: c, image: quay.io/jetstack/cert-manager-cainjector:v1.16.1}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  template:
    spec:
      nodeSelector: {example.com/pool: gpu}
      containers: [{name: c, image: example.com/trainer:1}]
";
    let got = simulated(pool_file, manifest, &[]);
    assert_eq!(
        got,
        vec![
            (
                "cainjector".to_string(),
                "may".to_string(),
                None,
                pools(&[("general", "partial"), ("windows", "no")])
            ),
            (
                "trainer".to_string(),
                "no".to_string(),
                None,
                pools(&[("general", "no"), ("windows", "no")])
            ),
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let (inv, man) = (dir.path().join("pools.yaml"), dir.path().join("apps.yaml"));
    std::fs::write(&inv, pool_file).unwrap();
    std::fs::write(&man, manifest).unwrap();
    let o = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        inv.to_str().unwrap(),
        man.to_str().unwrap(),
    ]);
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let unschedulable: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "unschedulable")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(unschedulable.len(), 1, "{unschedulable:?}");
    assert!(
        unschedulable[0].starts_with("Deployment trainer fits no node"),
        "{unschedulable:?}"
    );
}

/// A pod with `spec.nodeName` never meets the scheduler: the kubelet admits it, and of the
/// node's taints it checks only NoExecute ones (upstream pkg/kubelet/lifecycle/predicate.go,
/// `generalFilter`: "Kubelet is only interested in the NoExecute taint"), and not the cordon
/// (`spec.unschedulable` is the scheduler's filter). NoSchedule does not keep it off its node;
/// NoExecute does, unless tolerated.
#[test]
fn a_node_name_pod_meets_only_no_execute_taints() {
    let inventory = "\
apiVersion: v1
kind: Node
metadata: {name: db-1}
spec:
  taints: [{key: example.com/dedicated, value: db, effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata: {name: drain-1}
spec:
  taints: [{key: example.com/drain, effect: NoExecute}]
---
apiVersion: v1
kind: Node
metadata: {name: cordoned-1}
spec: {unschedulable: true}
";
    let pod = |name: &str, spec: &str| {
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{spec}  containers: [{{name: app, image: nginx}}]\n"
        )
    };
    let manifest = [
        pod("scheduled", ""),
        pod("bound-db", "  nodeName: db-1\n"),
        pod("bound-drain", "  nodeName: drain-1\n"),
        pod(
            "bound-drain-tolerated",
            "  nodeName: drain-1\n  tolerations: [{key: example.com/drain, operator: Exists}]\n",
        ),
        pod("bound-cordoned", "  nodeName: cordoned-1\n"),
    ]
    .concat();
    let got = simulated(inventory, &manifest, &[]);
    let want = [
        (
            "scheduled",
            "no",
            [("cordoned-1", "no"), ("db-1", "no"), ("drain-1", "no")],
        ),
        (
            "bound-db",
            "yes",
            [("cordoned-1", "no"), ("db-1", "yes"), ("drain-1", "no")],
        ),
        (
            "bound-drain",
            "no",
            [("cordoned-1", "no"), ("db-1", "no"), ("drain-1", "no")],
        ),
        (
            "bound-drain-tolerated",
            "yes",
            [("cordoned-1", "no"), ("db-1", "no"), ("drain-1", "yes")],
        ),
        (
            "bound-cordoned",
            "yes",
            [("cordoned-1", "yes"), ("db-1", "no"), ("drain-1", "no")],
        ),
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, (name, fits, by_pool)) in got.iter().zip(want) {
        assert_eq!(
            (g.0.as_str(), g.1.as_str(), &g.3),
            (name, fits, &pools(&by_pool)),
            "{got:#?}"
        );
    }
}

/// DefaultTolerationSeconds adds the not-ready and unreachable NoExecute tolerations (300 s)
/// only when no toleration of the pod already covers them: one whose key is that key or empty
/// and whose effect is NoExecute or empty (upstream
/// plugin/pkg/admission/defaulttolerationseconds/admission.go). What it adds shows where
/// PodTolerationRestriction judges every toleration the pod ends up with: this namespace
/// allows NoExecute tolerations of at most 60 seconds, so a 300-second default is refused.
#[test]
fn default_toleration_seconds_adds_nothing_an_empty_key_toleration_covers() {
    let inventory = "\
apiVersion: v1
kind: Node
metadata: {name: lost-1}
spec:
  taints: [{key: node.kubernetes.io/unreachable, effect: NoExecute}]
";
    let namespace = r#"apiVersion: v1
kind: Namespace
metadata:
  name: edge
  annotations:
    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}, {"operator": "Exists", "effect": "NoSchedule"}]'
"#;
    let pod = |name: &str, tolerations: &str| {
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: edge}}\nspec:\n  tolerations: [{tolerations}]\n  containers: [{{name: app, image: nginx}}]\n"
        )
    };
    let manifest = [
        namespace.to_string(),
        pod("none", ""),
        // An empty key with NoExecute covers both: nothing is added.
        pod(
            "any-key",
            "{operator: Exists, effect: NoExecute, tolerationSeconds: 60}",
        ),
        // An empty key with another effect covers neither.
        pod("any-key-no-schedule", "{operator: Exists, effect: NoSchedule}"),
        // The not-ready key covers only not-ready: unreachable is added.
        pod(
            "not-ready",
            "{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 60}",
        ),
    ]
    .concat();
    let got = simulated(
        inventory,
        &manifest,
        &["--enable-admission-plugins", "PodTolerationRestriction"],
    );
    let rejected: Vec<(&str, Option<&str>)> = got
        .iter()
        .map(|(name, _, rejected, _)| (name.as_str(), rejected.as_deref()))
        .collect();
    let names: Vec<&str> = rejected.iter().map(|r| r.0).collect();
    assert_eq!(
        names,
        ["none", "any-key", "any-key-no-schedule", "not-ready"]
    );
    let says = |name: &str, default: &str| {
        let message = rejected.iter().find(|r| r.0 == name).unwrap().1;
        message.is_some_and(|m| {
            m.contains(&format!(
                "{{key: {default}, operator: Exists, effect: NoExecute, tolerationSeconds: 300}}"
            )) && m.contains("DefaultTolerationSeconds")
        })
    };
    assert!(
        says("none", "node.kubernetes.io/not-ready"),
        "{rejected:#?}"
    );
    assert_eq!(rejected[1], ("any-key", None), "{rejected:#?}");
    assert!(
        says("any-key-no-schedule", "node.kubernetes.io/not-ready"),
        "{rejected:#?}"
    );
    assert!(
        says("not-ready", "node.kubernetes.io/unreachable"),
        "{rejected:#?}"
    );
    assert!(
        !says("not-ready", "node.kubernetes.io/not-ready"),
        "{rejected:#?}"
    );
    // Admitted, the empty-key pod stays on the unreachable node (for its own 60 seconds).
    assert_eq!(got[1].3, pools(&[("lost-1", "yes")]));
}

/// The GPU example: the training Deployment fits only the GPU NodePool (the general pool's
/// instance categories have no GPU, the spot pool's taint is not tolerated); the driver
/// DaemonSet picks both GPU pools and misses the spot one; the MIG manager picks none, which is
/// information and leaves the exit status at 0.
#[test]
fn gpu_example_resources_and_daemonsets_as_json() {
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "examples/gpu/nodepools.yaml",
        "examples/gpu/training.yaml",
        "examples/gpu/gpu-agents.yaml",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let pools: Vec<&str> = v["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(pools, ["general", "gpu", "gpu-spot"]);
    let workload = |name: &str| {
        v["workloads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap()
            .clone()
    };
    let fit_of = |w: &Value, pool: usize| {
        w["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["pools"].as_array().unwrap().contains(&pool.into()))
            .unwrap()["fit"]
            .clone()
    };
    let trainer = workload("trainer");
    assert_eq!(fit_of(&trainer, 0), "no");
    assert_eq!(fit_of(&trainer, 1), "yes");
    assert_eq!(fit_of(&trainer, 2), "no");
    let insufficient = trainer["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["code"] == "insufficient")
        .expect("the general pool has no GPU");
    assert_eq!(insufficient["resource"], "nvidia.com/gpu");
    assert_eq!(insufficient["requested"], "1");
    assert_eq!(insufficient["allocatable"], "0");
    assert!(trainer.get("daemonset").is_none());

    let driver = workload("gpu-driver");
    assert_eq!(
        driver["daemonset"],
        serde_json::json!({"picked": 2, "missed": 1, "missedPools": [2], "mayMiss": 0, "mayMissPools": []})
    );
    let mig = workload("gpu-partitioner");
    assert_eq!(
        mig["daemonset"],
        serde_json::json!({"picked": 0, "missed": 0, "missedPools": [], "mayMiss": 0, "mayMissPools": []})
    );
    assert_eq!(mig["fits"], "no");

    // lint says the same: a warning for the driver, information for the MIG manager.
    let o = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        "examples/gpu/nodepools.yaml",
        "examples/gpu/",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let found: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["rule"].as_str().unwrap(), d["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            ("daemonset-misses-nodes", "warning"),
            ("daemonset-selects-no-node", "info")
        ]
    );
}

/// The GPU example against its Kueue flavors, which name only some of their nodes' labels: the
/// driver certainly selects the spot GPU flavor (its `nvidia.com/gpu.present` label is declared)
/// and misses it, a warning; the MIG manager selects an opt-in label no flavor declares, so it
/// only may select the spot flavor: information, said as a maybe.
#[test]
fn a_daemonset_that_only_may_select_a_pool_is_not_warned_as_missing_it() {
    let o = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        "examples/gpu/flavors.yaml",
        "examples/gpu/gpu-agents.yaml",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let found: Vec<(&str, &str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "daemonset-misses-nodes")
        .map(|d| {
            (
                d["object"]["name"].as_str().unwrap(),
                d["severity"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, "gpu-driver");
    assert_eq!(found[0].1, "warning");
    assert!(found[0]
        .2
        .contains("misses pool gpu-spot, which it selects"));
    assert_eq!(found[1].0, "gpu-partitioner");
    assert_eq!(found[1].1, "info");
    assert!(
        found[1].2.contains(
            "may select pool gpu-spot (if its nodes carry nvidia.com/gpu.deploy.mig-manager=true"
        ),
        "{}",
        found[1].2
    );

    // simulate says the same: the driver misses the spot flavor's pool, the MIG manager only
    // may, and is not listed among the DaemonSets that miss nodes.
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "examples/gpu/flavors.yaml",
        "examples/gpu/gpu-agents.yaml",
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let pools = v["cluster"]["pools"].as_array().unwrap();
    let spot = pools.iter().position(|p| p["name"] == "gpu-spot").unwrap();
    let daemonset = |name: &str| {
        v["workloads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {v}"))["daemonset"]
            .clone()
    };
    let driver = daemonset("gpu-driver");
    assert_eq!(driver["missedPools"], serde_json::json!([spot]));
    assert_eq!(driver["mayMissPools"], serde_json::json!([]));
    let mig = daemonset("gpu-partitioner");
    assert_eq!(mig["missed"], 0);
    assert_eq!(mig["missedPools"], serde_json::json!([]));
    assert_eq!(mig["mayMissPools"], serde_json::json!([spot]));
    let human = run(&[
        "simulate",
        "--inventory",
        "examples/gpu/flavors.yaml",
        "examples/gpu/gpu-agents.yaml",
    ]);
    let out = stdout(&human);
    let misses = out
        .lines()
        .find(|l| l.starts_with("Miss nodes they select:"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(misses.contains("gpu-driver"), "{out}");
    assert!(
        !out.contains("DaemonSet gpu-system/gpu-partitioner\n    misses"),
        "{out}"
    );
}

/// Kueue ResourceFlavors are an inventory: a pool per flavor, its node taints; the coordinator
/// of the GPU example's JobSet fits only the CPU flavor, its GPU workers the spot flavor by the
/// toleration Kueue adds there (a `resource-flavor` source), and a misspelt node taint effect is
/// the API server's error at its path.
#[test]
fn kueue_flavors_are_an_inventory() {
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "examples/gpu/flavors.yaml",
        "examples/gpu/finetune-jobset.yaml",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let pools: Vec<(&str, usize)> = v["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["taints"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(pools, [("cpu", 0), ("gpu", 1), ("gpu-spot", 2)]);
    let workloads = v["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 2);
    let entry = |w: &Value, pool: usize| {
        w["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["pools"].as_array().unwrap().contains(&pool.into()))
            .unwrap()
            .clone()
    };
    let coordinator = &workloads[0];
    let fits: Vec<Value> = (0..3)
        .map(|p| entry(coordinator, p)["fit"].clone())
        .collect();
    // A flavor does not say what its nodes offer: the coordinator's 2 CPUs may fit `cpu`.
    assert_eq!(fits, ["partial", "no", "no"]);
    let workers = &workloads[1];
    assert_ne!(entry(workers, 2)["fit"], "no");
    assert_eq!(
        entry(workers, 2)["tolerated"][0]["source"],
        serde_json::json!({"code": "resource-flavor", "flavor": "gpu-spot", "index": 0})
    );
    assert!(entry(workers, 1).get("tolerated").is_none());

    // A misspelt effect in a flavor's node taints.
    let dir = std::env::temp_dir().join(format!("taintlint-kueue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let flavors = std::fs::read_to_string("examples/gpu/flavors.yaml")
        .unwrap()
        .replacen("effect: NoSchedule", "effect: NoSchedul", 1);
    let file = dir.join("flavors.yaml");
    std::fs::write(&file, flavors).unwrap();
    let o = run(&["lint", "--format", "json", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["rule"], "unknown-effect");
    assert_eq!(d["path"], "spec.nodeTaints[0].effect");
    assert_eq!(d["object"]["kind"], "ResourceFlavor");
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

/// A pod larger than any node fits nowhere, and says which resource, how much it asks and the
/// most a node has; a node list read as JSON keeps what each node has allocatable.
#[test]
fn a_request_larger_than_any_node_names_the_resource() {
    let nodes = r#"{"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1"}},
       "spec":{},"status":{"allocatable":{"cpu":"7910m","memory":"31369748Ki","pods":"58"},
       "capacity":{"cpu":"8","memory":"32386580Ki","pods":"58"}}},
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n2","labels":{"kubernetes.io/hostname":"n2"}},
       "spec":{},"status":{"allocatable":{"cpu":"15890m","memory":"63Gi","pods":"58"}}}]}"#;
    let dir = std::env::temp_dir().join(format!("taintlint-resources-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let inv = dir.join("nodes.json");
    std::fs::write(&inv, nodes).unwrap();
    let pod = dir.join("big.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      requests: {cpu: \"16\"}\n",
    )
    .unwrap();
    let (inv, pod) = (inv.to_str().unwrap(), pod.to_str().unwrap());
    let o = run(&["simulate", "--format", "json", "--inventory", inv, pod]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let reasons = &v["workloads"][0]["reasons"];
    assert_eq!(reasons[0]["code"], "insufficient", "{reasons}");
    assert_eq!(reasons[0]["resource"], "cpu");
    assert_eq!(reasons[0]["requested"], "16");
    assert_eq!(reasons[0]["allocatable"], "15890m");
    let o = run(&["simulate", "--inventory", inv, pod]);
    assert!(
        joined(&stdout(&o)).contains("insufficient cpu: requests 16, a node offers at most 15890m"),
        "{}",
        stdout(&o)
    );
    let o = run(&["lint", "--inventory", inv, pod]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("insufficient cpu: requests 16, a node offers at most 15890m"),
        "{}",
        stdout(&o)
    );
    // At 15 CPU it fits the larger node only: the one pool is split by what its nodes offer.
    std::fs::write(
        pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      requests: {cpu: \"15\"}\n",
    )
    .unwrap();
    let o = run(&["simulate", "--format", "json", "--inventory", inv, pod]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["cluster"]["pools"].as_array().unwrap().len(), 1);
    assert_eq!(v["workloads"][0]["pools"][0]["fit"], "partial");
    assert_eq!(v["workloads"][0]["reasons"][0]["code"], "capacity-unknown");
    assert_eq!(
        v["workloads"][0]["reasons"][0]["allocatable"],
        serde_json::json!(["7910m", "15890m"])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// GPU counts are per pod: sixteen GPUs a pod fit no node of the DRA example's cluster listed
// with eight allocatable a node, however few replicas; eight fit (the inventory is written
// here, after `kubectl get nodes -o yaml` of two 8-GPU A100 nodes).
#[test]
fn gpu_counts_are_per_pod_end_to_end() {
    let dir = std::env::temp_dir().join(format!("taintlint-gpu-counts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let nodes = dir.join("nodes.yaml");
    std::fs::write(
        &nodes,
        "apiVersion: v1\nkind: List\nitems:\n\
         - kind: Node\n  metadata: {name: a100-1}\n  status: {allocatable: {cpu: 95690m, memory: 1000Gi, nvidia.com/gpu: '8'}}\n\
         - kind: Node\n  metadata: {name: a100-2}\n  status: {allocatable: {cpu: 95690m, memory: 1000Gi, nvidia.com/gpu: '8'}}\n",
    )
    .unwrap();
    let deployment = |gpus: u32, replicas: u32| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: train}}\nspec:\n  replicas: {replicas}\n  \
             template:\n    spec:\n      containers:\n      - name: t\n        image: x\n        \
             resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}\n"
        )
    };
    for (gpus, replicas, fits) in [(16, 1, false), (8, 4, true), (9, 1, false)] {
        let manifest = dir.join(format!("train-{gpus}-{replicas}.yaml"));
        std::fs::write(&manifest, deployment(gpus, replicas)).unwrap();
        let out = run(&[
            "simulate",
            "--why",
            "--inventory",
            nodes.to_str().unwrap(),
            manifest.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(if fits { 0 } else { 1 }),
            "{}",
            stdout(&out)
        );
        if !fits {
            assert!(
                joined(&stdout(&out)).contains(&format!(
                    "insufficient nvidia.com/gpu: requests {gpus}, a node offers at most 8"
                )),
                "{}",
                stdout(&out)
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// An inventory read from standard input is named as people say it, not `-`.
#[test]
fn an_inventory_on_standard_input_is_named_standard_input() {
    let o = run_with_input(
        &["simulate", "--inventory", "-", "examples/inference.yaml"],
        &read("examples/inventory/pools.yaml"),
    );
    let out = stdout(&o);
    assert!(out.contains("pools (<standard input>)"), "{out}");
    assert!(!out.contains("(-)"), "{out}");
}

/// A taint the simulation leaves out is named by its place and what is wrong with it (a
/// Karpenter NodePool's GPU taint with its effect mistyped, imitating the GPU NodePool of
/// Karpenter's docs).
#[test]
fn a_taint_left_out_of_the_simulation_is_named_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let pool = dir.path().join("nodepool.yaml");
    std::fs::write(
        &pool,
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  \
         template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      \
         requirements: []\n      taints:\n      - key: nvidia.com/gpu\n        \
         effect: NoSchedul\n",
    )
    .unwrap();
    let o = run(&[
        "simulate",
        "--inventory",
        pool.to_str().unwrap(),
        "examples/inference.yaml",
    ]);
    let err = stderr(&o);
    let line = err
        .lines()
        .find(|l| l.contains("left out of the simulation"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.contains(
            "nodepool.yaml:12:17: the taint at spec.template.spec.taints[0] of NodePool general"
        ) && line.contains("unknown effect `NoSchedul`"),
        "{line}"
    );
}

/// `simulate --help` says every exit status it gives: an object the API server rejects exits 1,
/// one that only may fit does not.
#[test]
fn help_lists_api_server_rejections_in_the_exit_status() {
    let help = stdout(&run(&["simulate", "--help"]));
    let exit = help
        .split("Exit status:")
        .nth(1)
        .unwrap_or_else(|| panic!("{help}"));
    let exit = exit
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .replace('\n', " ");
    assert!(
        exit.contains("1 when one fits no node or the API server would reject it"),
        "{exit}"
    );
    assert!(
        exit.contains("0 when every workload fits some node or may fit"),
        "{exit}"
    );
}

/// Pools are named by the node label `--pool-label` (or `pool-label:` in .taintlint.yaml)
/// names, before the providers' node-group labels and the node names' common prefix.
#[test]
fn pools_are_named_by_the_configured_pool_label() {
    let dir = tempfile::tempdir().unwrap();
    let mut nodes = String::new();
    for (name, group) in [
        ("ip-10-0-2-10", "gpu"),
        ("ip-10-0-2-11", "gpu"),
        ("ip-10-0-1-10", "web"),
    ] {
        nodes.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{kubernetes.io/hostname: {name}, platform.example.com/group: {group}}}\n---\n"
        ));
    }
    let inventory = dir.path().join("nodes.yaml");
    std::fs::write(&inventory, nodes).unwrap();
    let names = |extra: &[&str], cwd: &Path| -> Vec<String> {
        let web = Path::new(ROOT).join("examples/web.yaml");
        let mut args = vec!["simulate", "--format", "json", "--inventory"];
        args.push(inventory.to_str().unwrap());
        args.extend_from_slice(extra);
        args.push(web.to_str().unwrap());
        let o = Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .args(&args)
            .current_dir(cwd)
            .output()
            .unwrap();
        let v: Value =
            serde_json::from_str(&stdout(&o)).unwrap_or_else(|_| panic!("{}", stderr(&o)));
        v["cluster"]["pools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&[], dir.path()), ["ip-10-0-2-*", "ip-10-0-1-10"]);
    assert_eq!(
        names(&["--pool-label", "platform.example.com/group"], dir.path()),
        ["gpu", "web"]
    );
    std::fs::write(
        dir.path().join(".taintlint.yaml"),
        "pool-label: platform.example.com/group\n",
    )
    .unwrap();
    assert_eq!(names(&[], dir.path()), ["gpu", "web"]);
}

/// Editors' lenses agree with `simulate`: a workload simulate lists as rejected by the API
/// server is shown as rejected, one that fits no node leads with the closest pool and what
/// keeps it off (as the `unschedulable` finding says), and every lens is one short line.
#[test]
fn lenses_agree_with_simulate() {
    let cases = [
        ("examples/inventory/pools.yaml", "examples/inference.yaml"),
        (
            "examples/inventory/pools.yaml",
            "examples/gpu-training.yaml",
        ),
        ("examples/inventory/pools.yaml", "examples/web.yaml"),
        ("examples/inventory/pools.yaml", "examples/node-agent.yaml"),
        (
            "tests/fixtures/workloads/inventory.yaml",
            "tests/fixtures/workloads/spot-workloads.yaml",
        ),
        (
            "tests/fixtures/workloads/inventory.yaml",
            "tests/fixtures/workloads/custom-resources.yaml",
        ),
    ];
    let (mut rejected, mut nowhere) = (0, 0);
    for (inventory, manifests) in cases {
        let inv = Inventory::load(&[(inventory, read(inventory).as_str())]).unwrap();
        let text = read(manifests);
        let options = Options::default();
        let simulated = simulate(&text, &options, &inv).workloads;
        let analysis = check(&text, Ask::new(&options, Some(&inv)).placed());
        let found = analysis.diagnostics;
        assert_eq!(simulated.len(), analysis.placements.len(), "{manifests}");
        for (w, p) in simulated.iter().zip(&analysis.placements) {
            let lens = p.summary(&inv);
            assert!(lens.chars().count() <= 80, "{manifests}: {lens}");
            match &w.rejected {
                Some(r) => {
                    rejected += 1;
                    assert!(
                        lens.starts_with("rejected by the API server: "),
                        "{manifests}: {lens}"
                    );
                    assert!(
                        r.message.starts_with(
                            lens.trim_start_matches("rejected by the API server: ")
                                .trim_end_matches('…')
                        ),
                        "{lens} / {}",
                        r.message
                    );
                }
                None if !w.simulation.fits_anywhere() => {
                    nowhere += 1;
                    assert!(lens.starts_with("fits no node: "), "{manifests}: {lens}");
                    // The same pool the finding names.
                    let finding = found
                        .iter()
                        .find(|d| d.rule == "unschedulable" && d.document == Some(w.document))
                        .unwrap_or_else(|| panic!("{manifests}: {lens}"));
                    if let Some(pool) = lens.strip_prefix("fits no node: closest pool ") {
                        let pool = pool.split(':').next().unwrap();
                        assert!(
                            finding.message.contains(&format!("pool {pool}"))
                                || finding.message.contains("misses"),
                            "{lens} / {}",
                            finding.message
                        );
                    }
                }
                None => assert!(!lens.starts_with("fits no node"), "{manifests}: {lens}"),
            }
        }
    }
    assert!(
        rejected > 0 && nowhere > 0,
        "rejected {rejected}, fits nowhere {nowhere}"
    );
}

/// A DaemonSet runs only on the nodes it selects: a pool it does not select is not a miss, and
/// the matrix marks it apart (`·`) from a pool it selects and cannot run on (`✗`).
#[test]
fn a_daemonsets_unselected_pools_are_marked_apart_from_its_misses() {
    let o = run(&[
        "simulate",
        "--inventory",
        "examples/gpu/nodepools.yaml",
        "examples/gpu/gpu-agents.yaml",
    ]);
    let out = stdout(&o);
    let row = |name: &str| -> String {
        let at = out.find(name).unwrap_or_else(|| panic!("{name} in\n{out}"));
        out[at..].lines().nth(1).unwrap().trim().to_string()
    };
    // The driver selects the two GPU pools (B, C) and misses the spot one (C).
    assert_eq!(
        row("DaemonSet gpu-system/gpu-driver"),
        "· ✓ ✗  misses pool gpu-spot of the 2 pools it selects",
        "{out}"
    );
    // The partitioner selects none.
    assert_eq!(
        row("DaemonSet gpu-system/gpu-partitioner"),
        "· · ·  selects no node",
        "{out}"
    );
    assert!(
        out.contains("· a pool the DaemonSet does not select"),
        "{out}"
    );
    // A Deployment that a pool does not select does not fit there: `✗`, and no `·` legend.
    let o = run(&[
        "simulate",
        "--inventory",
        "examples/gpu/nodepools.yaml",
        "examples/gpu/training.yaml",
    ]);
    let out = stdout(&o);
    assert!(out.contains('✗') && !out.contains('·'), "{out}");
}

/// A pool file that gives one pool GPUs (`allocatable: {nvidia.com/gpu: 1}`) and writes nothing
/// of the system pool beside it, as the AKS GPU samples' clusters are described
/// (Azure-Samples aks-kueue-sample: a system pool, a GPU pool): the system pool has no GPUs, so
/// a GPU Job that tolerates the GPU taint fits the GPU pool only, not "may" the system pool. A
/// pool whose labels name an instance type or accelerator stays unknown; a resource no pool
/// names stays unknown too.
#[test]
fn an_extended_resource_a_pool_file_names_is_absent_where_it_is_not_written() {
    let pool_file = "\
pools:
  system:
    count: 2
  gpu:
    count: 1
    taints: [nvidia.com/gpu=present:NoSchedule]
    allocatable: {nvidia.com/gpu: 1}
  typed:
    labels: {node.kubernetes.io/instance-type: Standard_NC24ads_A100_v4}
";
    let job = |resource: &str| {
        format!(
            "\
apiVersion: batch/v1
kind: Job
metadata: {{name: train}}
spec:
  template:
    spec:
      tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
      containers:
      - name: t
        image: x
        resources: {{limits: {{{resource}: 1}}}}
"
        )
    };
    let fit = |found: &[Simulated], pool: &str| {
        found[0]
            .3
            .iter()
            .find(|(p, _)| p == pool)
            .unwrap()
            .1
            .clone()
    };
    let gpu = simulated(pool_file, &job("nvidia.com/gpu"), &[]);
    assert_eq!(fit(&gpu, "gpu"), "yes", "{gpu:?}");
    assert_eq!(fit(&gpu, "system"), "no", "{gpu:?}");
    assert_ne!(fit(&gpu, "typed"), "no", "{gpu:?}");
    let other = simulated(pool_file, &job("amd.com/gpu"), &[]);
    assert_eq!(fit(&other, "gpu"), "no", "{other:?}");
    assert_ne!(fit(&other, "system"), "no", "{other:?}");
}

/// The pool that comes closest to a workload that fits no node is the one whose nodes lack the
/// least of what it asks (KubeRay's DeepSeek worker group, 8 GPUs, on a cluster of a CPU pool
/// and an L4 pool: the pool of 2 GPUs, not the larger pool of none), and the human output says
/// what keeps it off that pool once.
#[test]
fn the_closest_pool_lacks_the_least() {
    let dir = tempfile::tempdir().unwrap();
    let pools = dir.path().join("pools.yaml");
    std::fs::write(
        &pools,
        "pools:
  cpu:
    count: 3
    allocatable: {cpu: 8, memory: 32Gi, nvidia.com/gpu: 0}
  l4:
    count: 2
    allocatable: {cpu: 24, memory: 96Gi, nvidia.com/gpu: 2}
",
    )
    .unwrap();
    let manifest = dir.path().join("worker.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: apps/v1
kind: Deployment
metadata: {name: worker}
spec:
  template:
    spec:
      containers:
      - name: ray
        image: rayproject/ray
        resources:
          requests: {cpu: 4, nvidia.com/gpu: 8}
          limits: {nvidia.com/gpu: 8}
",
    )
    .unwrap();
    let out = run(&[
        "simulate",
        "--why",
        "--inventory",
        pools.to_str().unwrap(),
        manifest.to_str().unwrap(),
    ]);
    let text = joined(&stdout(&out));
    assert!(
        text.contains(
            "B: closest is pool l4: insufficient nvidia.com/gpu: requests 8, a node offers at \
             most 2"
        ),
        "{text}"
    );
    assert_eq!(
        text.matches("a node offers at most 2").count(),
        1,
        "the closest pool's reason said once: {text}"
    );
    assert!(
        text.contains("A: insufficient nvidia.com/gpu: requests 8, the nodes have none"),
        "{text}"
    );
}

/// A workload split between two NodePools by a custom label they define, with a
/// `DoNotSchedule` spread on it (the karpenter-blueprints od-spot-split shape): `simulate` keeps
/// it off the pool without the label, and `lint` against that pool alone points at the key.
#[test]
fn a_spread_keeps_a_workload_off_pools_without_its_key() {
    let o = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/spread/nodepools.yaml",
        "--inventory",
        "tests/fixtures/spread/default.yaml",
        "tests/fixtures/spread/workload.yaml",
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let w = &v["workloads"][0];
    assert_eq!(w["fits"], "yes", "{w}");
    let names: Vec<&str> = v["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut fits: Vec<(&str, &str)> = Vec::new();
    for entry in w["pools"].as_array().unwrap() {
        for p in entry["pools"].as_array().unwrap() {
            fits.push((
                names[p.as_u64().unwrap() as usize],
                entry["fit"].as_str().unwrap(),
            ));
        }
    }
    fits.sort();
    assert_eq!(
        fits,
        [("default", "no"), ("node-od", "yes"), ("node-spot", "yes")]
    );
    // The ScheduleAnyway spread on the zone only scores: nothing is said of it.
    assert_eq!(
        w["reasons"],
        serde_json::json!([{
            "code": "topology-key",
            "key": "capacity-spread",
            "message": "topology spread on capacity-spread (DoNotSchedule): the node has no label capacity-spread"
        }])
    );

    let o = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/spread/default.yaml",
        "tests/fixtures/spread/workload.yaml",
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let found: Vec<(&str, u64, u64, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "unschedulable")
        .map(|d| {
            (
                d["path"].as_str().unwrap(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["column"].as_u64().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [(
            "spec.template.spec.topologySpreadConstraints[0].topologyKey",
            24,
            24,
            "Deployment workload-split fits no node; closest is pool default: topology spread on \
             capacity-spread (DoNotSchedule): the node has no label capacity-spread"
        )]
    );
}
