//! `cargo bench --bench base`: `simulate --base` against one `simulate`, on a git repository of
//! 2,000 manifests (one Deployment each) and a 5,000-node `kubectl get nodes -o json` (110 MB),
//! written under `target/bench-data/base-*` once. Two changes, uncommitted in the working tree:
//! `inventory` retaints a pool in the node list and drops the tolerations of 20 manifests;
//! `manifests` only drops those tolerations (the node list is the same at both revisions).
//! Each measures the binary as a user runs it (JSON to /dev/null), both revisions against one.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{criterion_group, criterion_main, Criterion};

// (Not every generator is used here.)
#[allow(dead_code)]
#[path = "support/cluster.rs"]
mod cluster;

const MANIFESTS: usize = 2_000;
const NODES: usize = 5_000;
/// How many manifests the change edits.
const EDITED: usize = 20;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=b", "-c", "user.email=b@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .status()
        .expect("git is installed");
    assert!(status.success(), "git {args:?}");
}

/// The repository, committed, with its change in the working tree (written once).
fn repository(name: &str, retaint: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-data")
        .join(format!("base-{name}"));
    if dir.join(".git").is_dir() && dir.join("DONE").is_file() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    let files = cluster::manifest_files(MANIFESTS, MANIFESTS);
    for (i, text) in files.iter().enumerate() {
        std::fs::write(dir.join(format!("manifests/{i:04}.yaml")), text).unwrap();
    }
    let nodes = cluster::nodes_json(NODES);
    std::fs::write(dir.join("nodes.json"), &nodes).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "base"]);
    // The change: the manifests that tolerate their pool's taint lose it...
    let mut edited = 0;
    for (i, text) in files.iter().enumerate() {
        if edited == EDITED {
            break;
        }
        if let Some(at) = text.find("      tolerations:\n") {
            let end = text[at..].find("      containers:").unwrap() + at;
            let changed = format!("{}{}", &text[..at], &text[end..]);
            std::fs::write(dir.join(format!("manifests/{i:04}.yaml")), changed).unwrap();
            edited += 1;
        }
    }
    // ...and pool 2's nodes take another taint value.
    if retaint {
        let from = r#""value":"pool2"}"#;
        assert!(nodes.contains(from));
        std::fs::write(
            dir.join("nodes.json"),
            nodes.replace(from, r#""value":"pool2-reserved"}"#),
        )
        .unwrap();
    }
    std::fs::write(dir.join("DONE"), "").unwrap();
    dir
}

fn simulate(dir: &Path, base: bool) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_taintlint"));
    c.args(["simulate", "--inventory", "nodes.json", "-o", "json"]);
    if base {
        c.args(["--base", "main"]);
    }
    let status = c
        .arg("manifests")
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // 1: the change strands workloads (and some fit no node at either revision).
    assert!(matches!(status.code(), Some(0 | 1)), "{status:?}");
}

fn bench(c: &mut Criterion) {
    for (name, retaint) in [("inventory", true), ("manifests", false)] {
        let dir = repository(name, retaint);
        let mut group = c.benchmark_group(format!("2,000 manifests, 5,000 nodes, {name} changed"));
        group.sample_size(10);
        group.bench_function("simulate", |b| b.iter(|| simulate(&dir, false)));
        group.bench_function("simulate --base", |b| b.iter(|| simulate(&dir, true)));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
