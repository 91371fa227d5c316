//! The cluster in the editor at scale: with a 5,000-node inventory (`kubectl get nodes -o json`,
//! about 20 KB a node) configured and a 14,800-line manifest of 500 Deployments open, how long
//! the language server takes to answer `textDocument/codeLens` (every workload),
//! `textDocument/inlayHint` (the whole file) and `textDocument/definition` (a toleration in the
//! middle, into the inventory file), `taintlint/placement` (what running a lens shows: one
//! workload's verdict in each of the 50 pools), and edit-to-diagnostics (a character typed in
//! a workload's name, until all 590 diagnostics of that version are in: pushed, and for a
//! second client, pulled); then the allocations an edit makes and the process's resident
//! memory. Each request goes through real JSON-RPC framing; the document's analysis is already
//! there (lenses and hints never simulate again).
//!
//! `cargo bench --bench lsp_cluster`

#[path = "../tests/support/client.rs"]
mod client;
// Shared with the other benchmarks: this one uses the inventory and the manifests only.
#[allow(dead_code)]
#[path = "support/cluster.rs"]
mod cluster;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::{json, Value};

use client::{pull_client, push_client, Client};

const URI: &str = "file:///bench/manifest.yaml";
const NODES: usize = 5_000;
const WORKLOADS: usize = 500;
const SAMPLES: usize = 100;
/// The manifest's diagnostics with the inventory: every edit must bring all of them (586 since
/// requests are simulated: a workload whose extended-resource limits no node of its pool offers,
/// or that asks for more CPU than any node has, fits no node, rather than only avoided ones).
const DIAGNOSTICS: usize = 586;

struct Request {
    name: &'static str,
    method: &'static str,
    params: Value,
    /// Checks the answer is a real one.
    check: fn(&Value),
}

async fn time(client: &mut Client, r: &Request) -> Duration {
    let start = Instant::now();
    let answer = client.request(r.method, r.params.clone()).await;
    let elapsed = start.elapsed();
    (r.check)(&answer);
    elapsed
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let inventory = dir.path().join("nodes.json");
    std::fs::write(&inventory, cluster::nodes_json(NODES)).unwrap();
    let text = cluster::manifest_files(WORKLOADS, 1).remove(0);
    let lines = text.lines().count();
    assert!((14_000..16_000).contains(&lines), "{lines} lines");
    // A toleration in the middle of the file.
    // (One for an even pool: those have the `dedicated` taint it tolerates.)
    let middle = text[text.len() / 2..]
        .match_indices("- key: dedicated\n        operator: Equal\n        value: pool")
        .map(|(at, m)| (at + text.len() / 2, at + text.len() / 2 + m.len()))
        .find(|&(_, value)| {
            let digits: String = text[value..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<usize>().is_ok_and(|p| p % 2 == 0)
        })
        .unwrap()
        .0;
    let line = text[..middle].matches('\n').count();
    let kind_line = text[..text[..middle].rfind("kind: Deployment").unwrap()]
        .matches('\n')
        .count();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut client = runtime.block_on(async {
        let mut c = Client::start(taintlint::lsp::Config::default());
        c.initialize(
            push_client(),
            json!({"inventory": inventory.to_str().unwrap()}),
        )
        .await;
        c.open(URI, &text).await;
        c.diagnostics(URI, 1).await;
        c
    });
    let requests = [
        Request {
            name: "lsp/codeLens (500 workloads, 5,000 nodes)",
            method: "textDocument/codeLens",
            params: json!({"textDocument": {"uri": URI}}),
            check: |a| assert_eq!(a["result"].as_array().map(Vec::len), Some(WORKLOADS), "{a}"),
        },
        Request {
            name: "lsp/inlayHint, whole file (14,800 lines, 5,000 nodes)",
            method: "textDocument/inlayHint",
            params: json!({"textDocument": {"uri": URI}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines + 1, "character": 0}}}),
            check: |a| assert!(a["result"].as_array().is_some_and(|h| h.len() > 500), "{a}"),
        },
        Request {
            name: "lsp/definition, toleration to inventory (5,000 nodes)",
            method: "textDocument/definition",
            params: json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": 8}}),
            check: |a| assert!(a["result"].as_array().is_some_and(|t| !t.is_empty()), "{a}"),
        },
        Request {
            name: "lsp/taintlint/placement, a lens run (50 pools, 5,000 nodes)",
            method: "taintlint/placement",
            params: json!({"textDocument": {"uri": URI}, "position": {"line": kind_line, "character": 0}}),
            check: |a| {
                assert!(
                    a["result"]["details"]
                        .as_str()
                        .is_some_and(|d| d.matches("\npool ").count() == 50),
                    "{a}"
                )
            },
        },
    ];
    // Edit-to-diagnostics with the inventory configured: a character typed into (then deleted
    // from) a workload's name in the middle of the file, until that version's diagnostics arrive.
    let name_at = text[middle..].find("\n  name: ").unwrap() + middle + 1;
    let name_line = text[..name_at].matches('\n').count();
    let allocations = ALLOCATIONS.load(Ordering::Relaxed);
    let mut edits = runtime.block_on(edit_to_diagnostics(
        &mut client,
        name_line,
        Diagnostics::Pushed,
    ));
    let allocations = (ALLOCATIONS.load(Ordering::Relaxed) - allocations) / SAMPLES;
    let mut criterion = Criterion::default().configure_from_args();
    let mut report = vec![
        summary(
            "lsp/edit-to-diagnostics, pushed (14,800 lines, 5,000 nodes)",
            "edits",
            &mut edits,
        ),
        format!(
            "lsp/edit-to-diagnostics, pushed: {allocations} allocations an edit, client and \
             server (the test client's reading of each 490 KB message into a serde_json::Value \
             is most of them)"
        ),
    ];
    for r in &requests {
        let mut samples: Vec<Duration> = runtime.block_on(async {
            let mut out = Vec::new();
            for _ in 0..SAMPLES {
                out.push(time(&mut client, r).await);
            }
            out
        });
        criterion.bench_function(r.name, |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += time(&mut client, r).await;
                    }
                    total
                })
            })
        });
        report.push(summary(r.name, "requests", &mut samples));
    }
    criterion.final_summary();
    for line in report {
        println!("{line}");
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for field in ["VmRSS:", "VmHWM:"] {
        if let Some(l) = status.lines().find(|l| l.starts_with(field)) {
            println!("resident memory of the process (client and server): {l}");
        }
    }
    // The same edits for a client that pulls diagnostics (a second server, after the memory
    // figures: they are one server's).
    drop(client);
    let mut pulls = runtime.block_on(async {
        let mut c = Client::start(taintlint::lsp::Config::default());
        c.initialize(
            pull_client(),
            json!({"inventory": inventory.to_str().unwrap()}),
        )
        .await;
        c.open(URI, &text).await;
        let first = c
            .request(
                "textDocument/diagnostic",
                json!({"textDocument": {"uri": URI}}),
            )
            .await;
        assert_eq!(
            first["result"]["items"].as_array().map(Vec::len),
            Some(DIAGNOSTICS),
            "{first}"
        );
        edit_to_diagnostics(&mut c, name_line, Diagnostics::Pulled).await
    });
    println!(
        "{}",
        summary(
            "lsp/edit-to-diagnostics, pulled (14,800 lines, 5,000 nodes)",
            "edits",
            &mut pulls
        )
    );
}

/// How the client gets a document's diagnostics.
#[derive(Clone, Copy)]
enum Diagnostics {
    /// `textDocument/publishDiagnostics` (Neovim 0.11, and any client without
    /// `workspace/diagnostic/refresh`).
    Pushed,
    /// `textDocument/diagnostic`, asked right after each change (VS Code).
    Pulled,
}

/// Types a character into the workload name on `line`, and deletes it again, `SAMPLES` times:
/// each sample is the time from sending the change until that version's diagnostics are in.
async fn edit_to_diagnostics(client: &mut Client, line: usize, how: Diagnostics) -> Vec<Duration> {
    let mut out = Vec::new();
    for version in 2..(2 + SAMPLES as i64) {
        let typed = version % 2 == 0;
        let end = if typed { 8 } else { 9 };
        let range = json!({"start": {"line": line, "character": 8}, "end": {"line": line, "character": end}});
        let start = Instant::now();
        client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": URI, "version": version},
                       "contentChanges": [{"range": range, "text": if typed { "x" } else { "" }}]}),
            )
            .await;
        let count = match how {
            Diagnostics::Pushed => client.diagnostics(URI, version).await["params"]["diagnostics"]
                .as_array()
                .map(Vec::len),
            Diagnostics::Pulled => client
                .request(
                    "textDocument/diagnostic",
                    json!({"textDocument": {"uri": URI}}),
                )
                .await["result"]["items"]
                .as_array()
                .map(Vec::len),
        };
        out.push(start.elapsed());
        assert_eq!(count, Some(DIAGNOSTICS));
    }
    out
}

/// Median, 90th percentile and maximum.
fn summary(name: &str, what: &str, samples: &mut [Duration]) -> String {
    samples.sort();
    let pct = |p: usize| samples[(samples.len() * p / 100).min(samples.len() - 1)];
    format!(
        "{name}: over {} {what}, median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        samples.len(),
        pct(50).as_secs_f64() * 1e3,
        pct(90).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3,
    )
}

/// Counts allocations (and reallocations), for a figure that does not vary from run to run
/// as times do on a shared machine.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;
