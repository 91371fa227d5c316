//! The whole workspace in the editor: 2,000 manifests (8,000 Deployments) in a workspace
//! folder, with a 5,000-node inventory (`kubectl get nodes -o json`, about 20 KB a node) and a
//! small pool file beside it as the inventory. Timed through real JSON-RPC framing, with a
//! client that pulls diagnostics (as VS Code does):
//! - the first `workspace/diagnostic` (every file read and analysed), and the time from
//!   `initialize` to its answer;
//! - an unsaved edit to the pool file (a taint added to a pool some workloads fall back on),
//!   until a `workspace/diagnostic` answer carries the changed files;
//! - an edit to an open manifest that changes nothing elsewhere, until its own diagnostics are
//!   pulled, and the `workspace/diagnostic` after it (every file unchanged);
//! - renaming the taint key `dedicated` across the workspace.
//!
//! The server runs in this process, with the allocator the shipped binary uses.
//!
//! `cargo bench --bench lsp_workspace`

#[path = "../tests/support/client.rs"]
mod client;
#[allow(dead_code)]
#[path = "support/cluster.rs"]
mod cluster;

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use client::{pull_client, Client};

/// The allocator the shipped server runs with (`src/main.rs`): the server is measured as it runs.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const NODES: usize = 5_000;
const FILES: usize = 2_000;
const WORKLOADS: usize = 8_000;
const SAMPLES: usize = 5;

/// A pool the workloads that select `example.com/pool: pool2` and tolerate nothing fit, until
/// it gets pool2's taint.
const POOLS: &str = "pools:\n  spare:\n    count: 2\n    labels: {example.com/pool: pool2}\n";
const TAINTED: &str = "    taints: [\"dedicated=pool2:NoSchedule\"]\n";

fn uri(path: &std::path::Path) -> String {
    tower_lsp_server::ls_types::Uri::from_file_path(path)
        .unwrap()
        .as_str()
        .to_string()
}

fn ids(r: &Value) -> Value {
    json!(r["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|i| json!({"uri": i["uri"], "value": i["resultId"]}))
        .collect::<Vec<_>>())
}

fn changed(r: &Value) -> usize {
    r["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "full")
        .count()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("cluster")).unwrap();
    std::fs::create_dir_all(root.join("apps")).unwrap();
    std::fs::write(root.join("cluster/nodes.json"), cluster::nodes_json(NODES)).unwrap();
    std::fs::write(root.join("cluster/pools.yaml"), POOLS).unwrap();
    for (i, text) in cluster::manifest_files(WORKLOADS, FILES)
        .into_iter()
        .enumerate()
    {
        std::fs::write(root.join(format!("apps/f{i:04}.yaml")), text).unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let started = Instant::now();
        let mut c = Client::start(Client::test_config());
        c.initialize_in(
            Some(&uri(&root)),
            pull_client(),
            json!({"inventory": ["cluster/nodes.json", "cluster/pools.yaml"]}),
        )
        .await;
        c.workspace_read().await;

        // First workspace diagnostics.
        let start = Instant::now();
        let first = c
            .request("workspace/diagnostic", json!({"previousResultIds": []}))
            .await;
        let elapsed = start.elapsed();
        let files = first["result"]["items"].as_array().unwrap().len();
        assert_eq!(files, FILES, "every manifest is reported");
        let errors: usize = first["result"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["items"].as_array().unwrap().len())
            .sum();
        println!(
            "first workspace/diagnostic: {:.1} ms ({files} files, {errors} diagnostics); {:.1} ms from initialize (the inventory read, the workspace walked)",
            elapsed.as_secs_f64() * 1e3,
            started.elapsed().as_secs_f64() * 1e3
        );
        let mut previous = ids(&first);

        // Pool edits, unsaved: a taint added, then taken back.
        let pools = uri(&root.join("cluster/pools.yaml"));
        c.open(&pools, POOLS).await;
        let mut times = Vec::new();
        let mut counts = Vec::new();
        for version in 2..2 + 2 * SAMPLES as i64 {
            let text = if version % 2 == 0 {
                format!("{POOLS}{TAINTED}")
            } else {
                POOLS.to_string()
            };
            let start = Instant::now();
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": pools, "version": version}, "contentChanges": [{"text": text}]}),
            )
            .await;
            let r = loop {
                let r = c
                    .request(
                        "workspace/diagnostic",
                        json!({"previousResultIds": previous}),
                    )
                    .await;
                if changed(&r) > 0 {
                    break r;
                }
                assert!(start.elapsed() < Duration::from_secs(60), "nothing changed");
            };
            times.push(start.elapsed());
            counts.push(changed(&r));
            // The next request's ids: the unchanged keep theirs.
            let mut map: std::collections::HashMap<String, Value> = previous
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p["uri"].as_str().unwrap().to_string(), p["value"].clone()))
                .collect();
            for i in r["result"]["items"].as_array().unwrap() {
                if i["kind"] == "full" {
                    map.insert(i["uri"].as_str().unwrap().to_string(), i["resultId"].clone());
                }
            }
            previous = json!(map
                .into_iter()
                .map(|(u, v)| json!({"uri": u, "value": v}))
                .collect::<Vec<_>>());
        }
        println!(
            "pool edit until the changed files are pulled: median {:.1} ms of {} (max {:.1} ms); files changed: {counts:?}",
            median(times.clone()).as_secs_f64() * 1e3,
            times.len(),
            times.iter().max().unwrap().as_secs_f64() * 1e3
        );

        // An edit to an open manifest: its own diagnostics, then a workspace pull with nothing
        // changed.
        let file = root.join("apps/f1000.yaml");
        let text = std::fs::read_to_string(&file).unwrap();
        let file_uri = uri(&file);
        c.open(&file_uri, &text).await;
        let r = c
            .request("textDocument/diagnostic", json!({"textDocument": {"uri": file_uri}}))
            .await;
        assert!(r["result"]["items"].is_array(), "{r}");
        let at = text.find("name: app").unwrap() + "name: app".len();
        let line = text[..at].matches('\n').count();
        let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
        let mut edit_times = Vec::new();
        let mut pull_times = Vec::new();
        for version in 2..2 + 10 {
            let start = Instant::now();
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": file_uri, "version": version}, "contentChanges": [{"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}}, "text": "x"}]}),
            )
            .await;
            let r = c
                .request("textDocument/diagnostic", json!({"textDocument": {"uri": file_uri}}))
                .await;
            edit_times.push(start.elapsed());
            assert!(r["result"]["items"].is_array(), "{r}");
            let start = Instant::now();
            let r = c
                .request(
                    "workspace/diagnostic",
                    json!({"previousResultIds": previous}),
                )
                .await;
            pull_times.push(start.elapsed());
            assert_eq!(changed(&r), 0, "an edit to one manifest changes nothing elsewhere");
        }
        println!(
            "edit to an open manifest until its diagnostics are pulled: median {:.1} ms; the workspace/diagnostic after it (all unchanged): median {:.1} ms",
            median(edit_times).as_secs_f64() * 1e3,
            median(pull_times).as_secs_f64() * 1e3
        );

        // Rename `dedicated` from a toleration of the open manifest.
        let text = c.server_text(&file_uri).await["text"].as_str().unwrap().to_string();
        let at = text.find("- key: dedicated").unwrap() + "- key: ".len();
        let line = text[..at].matches('\n').count();
        let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
        let mut rename_times = Vec::new();
        let mut edits = 0;
        let mut files = 0;
        for _ in 0..SAMPLES {
            let start = Instant::now();
            let r = c
                .request(
                    "textDocument/rename",
                    json!({"textDocument": {"uri": file_uri}, "position": {"line": line, "character": col}, "newName": "example.com/dedicated"}),
                )
                .await;
            rename_times.push(start.elapsed());
            // This client takes plain `changes`: a list of edits per file.
            let changes = r["result"]["changes"]
                .as_object()
                .unwrap_or_else(|| panic!("{r}"));
            files = changes.len();
            edits = changes.values().map(|e| e.as_array().unwrap().len()).sum();
        }
        println!(
            "rename `dedicated` across the workspace: median {:.1} ms ({files} files, {edits} edits)",
            median(rename_times).as_secs_f64() * 1e3
        );
        c.finish().await;
    });
}
