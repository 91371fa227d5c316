//! Edit-to-diagnostics latency of the language server on a 10,000-line manifest of 500
//! documents, and the process's resident memory.
//!
//! Each measured edit is one `textDocument/didChange` (a character typed or deleted in the
//! middle of the file) sent through real JSON-RPC framing, until the `publishDiagnostics` for
//! that version arrives: the whole path an editor sees (framing, the store, the analysis,
//! position conversion, serialisation).
//!
//! Two cases: the usual one, where an edit re-analyses only the YAML document it touched, and
//! the same manifest behind a `%YAML` directive, which makes the server analyse the whole file
//! on every edit (for comparison).
//!
//! `cargo bench --bench lsp`

#[path = "../tests/support/client.rs"]
mod client;

use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::{json, Value};

use client::{push_client, Client};

const URI: &str = "file:///bench/manifest.yaml";
/// `  name: web-250`, in the middle document.
const EDITED_LINE: usize = 5_004;

/// 500 Deployments of 20 lines each; every tenth has a mistake, so there is something to
/// report.
fn manifest() -> String {
    let mut docs = Vec::new();
    for i in 0..500 {
        let effect = if i % 10 == 0 {
            "noschedule"
        } else {
            "NoSchedule"
        };
        docs.push(format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\n  namespace: shop\n\
             spec:\n  template:\n    spec:\n      tolerations:\n\
             \x20     - key: node.kubernetes.io/not-ready\n        operator: Exists\n\
             \x20       effect: NoExecute\n        tolerationSeconds: 30\n\
             \x20     - key: dedicated\n        operator: Equal\n        value: web-{i}\n\
             \x20       effect: {effect}\n      containers:\n      - {{name: web, image: web:1}}"
        ));
    }
    format!("# 500 Deployments\n{}\n", docs.join("\n---\n"))
}

fn status(field: &str) -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .map(|l| l[field.len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The change for edit number `n` on `line`: type a character at its end, then delete it.
fn change(n: u64, line: usize) -> Value {
    let range = if n.is_multiple_of(2) {
        json!({"start": {"line": line, "character": 15}, "end": {"line": line, "character": 15}})
    } else {
        json!({"start": {"line": line, "character": 15}, "end": {"line": line, "character": 16}})
    };
    let text = if n.is_multiple_of(2) { "x" } else { "" };
    json!([{"range": range, "text": text}])
}

struct Session {
    client: Client,
    version: i64,
    line: usize,
}

impl Session {
    async fn start(text: &str, line: usize) -> Session {
        let mut client = Client::start(taintlint::lsp::Config::default());
        client.initialize(push_client(), Value::Null).await;
        client.open(URI, text).await;
        client.diagnostics(URI, 1).await;
        Session {
            client,
            version: 1,
            line,
        }
    }

    /// One edit, until its diagnostics arrive.
    async fn edit(&mut self) -> Duration {
        self.version += 1;
        let start = Instant::now();
        self.client
            .notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": URI, "version": self.version},
                       "contentChanges": change(self.version as u64, self.line)}),
            )
            .await;
        let d = self.client.diagnostics(URI, self.version).await;
        let elapsed = start.elapsed();
        assert_eq!(
            d["params"]["diagnostics"].as_array().map(Vec::len),
            Some(50)
        );
        elapsed
    }
}

/// Measures one case: our own 300 samples (median and tail), then criterion's.
fn case(
    criterion: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    name: &str,
    text: &str,
    line: usize,
) -> String {
    let mut session = runtime.block_on(Session::start(text, line));
    let mut samples: Vec<Duration> = runtime.block_on(async {
        let mut out = Vec::new();
        for _ in 0..300 {
            out.push(session.edit().await);
        }
        out
    });
    samples.sort();
    let pct = |p: usize| samples[(samples.len() * p / 100).min(samples.len() - 1)];
    criterion.bench_function(name, |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += session.edit().await;
                }
                total
            })
        })
    });
    format!(
        "{name}: over {} edits, median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        samples.len(),
        pct(50).as_secs_f64() * 1e3,
        pct(90).as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3,
    )
}

fn main() {
    let text = manifest();
    assert_eq!(text.lines().count(), 10_000);
    assert_eq!(text.lines().nth(EDITED_LINE), Some("  name: web-250"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let before = status("VmRSS:");
    let mut criterion = Criterion::default().configure_from_args();
    let incremental = case(
        &mut criterion,
        &runtime,
        "lsp/edit-to-diagnostics (10,000 lines, 500 documents)",
        &text,
        EDITED_LINE,
    );
    let after = status("VmRSS:");
    let whole = case(
        &mut criterion,
        &runtime,
        "lsp/edit-to-diagnostics, whole file analysed (%YAML directive)",
        &format!("%YAML 1.2\n---\n{text}"),
        EDITED_LINE + 2,
    );
    criterion.final_summary();
    println!("{incremental}");
    println!("{whole}");
    println!(
        "resident memory: VmRSS {before} before opening, {after} with the manifest open, \
         VmHWM {} (peak)",
        status("VmHWM:")
    );
}
