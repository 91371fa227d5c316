//! Rendering kustomize overlays against not rendering them: `taintlint lint DIR` with rendering
//! on and a fresh cache (first run), on again with the cache it left (second run), and with
//! `--kustomize off`, medians of several runs taken in turn, and the ratios (the targets: at
//! most 2.0 on a first run, 1.2 on a second).
//!
//! `cargo bench --bench render` measures a generated repository under
//! `target/bench-data/render/` (60 applications, each a base with a Deployment and a DaemonSet,
//! overlays whose patches write tolerations, overlays that only rename, and kustomizations that
//! only list their files). `TAINTLINT_RENDER_BENCH_REPOS=DIR:DIR...` measures those
//! repositories instead (the corpora of docs/development.md), `TAINTLINT_RENDER_BENCH_RUNS`
//! sets the runs (default 5). Needs kustomize or kubectl on the PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const APPS: usize = 60;

fn main() {
    let found = ["kustomize", "kubectl"].iter().any(|tool| {
        Command::new(tool)
            .arg("version")
            .arg("--client")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    });
    if !found {
        println!("render: neither kustomize nor kubectl is on the PATH: nothing measured");
        return;
    }
    let runs: usize = std::env::var("TAINTLINT_RENDER_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let repos: Vec<PathBuf> = match std::env::var("TAINTLINT_RENDER_BENCH_REPOS") {
        Ok(list) => std::env::split_paths(&list).collect(),
        Err(_) => vec![generated()],
    };
    for repo in repos {
        measure(&repo, runs);
    }
}

fn measure(repo: &Path, runs: usize) {
    let cache = tempfile::tempdir().unwrap();
    let (mut off, mut first, mut second) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let dir = cache.path().join(run.to_string());
        off.push(lint(repo, &["--kustomize", "off"]));
        let args = ["--cache-dir", dir.to_str().unwrap()];
        first.push(lint(repo, &args));
        second.push(lint(repo, &args));
    }
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (off, first, second) = (median(off), median(first), median(second));
    println!(
        "{}: --kustomize off {:.2} s; rendering, first run {:.2} s ({:.2}x), second run {:.2} s \
         ({:.2}x); medians of {runs} (targets: 2.0x, 1.2x)",
        repo.display(),
        off,
        first,
        first / off,
        second,
        second / off
    );
}

/// Wall time of `taintlint lint -q -o concise . ARGS` in `repo`.
fn lint(repo: &Path, args: &[&str]) -> f64 {
    let start = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .current_dir(repo)
        .args(["lint", "-q", "-o", "concise", "."])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the taintlint binary runs");
    assert!(status.code().is_some_and(|c| c <= 1), "{status}");
    start.elapsed().as_secs_f64()
}

/// The generated repository, written once.
fn generated() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/render");
    if root.join(format!("app{:02}", APPS - 1)).is_dir() {
        return root;
    }
    let write = |path: PathBuf, text: String| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    for i in 0..APPS {
        let app = root.join(format!("app{i:02}"));
        write(
            app.join("base/kustomization.yaml"),
            "resources: [deployment.yaml, daemonset.yaml, service.yaml]\n".to_string(),
        );
        write(
            app.join("base/deployment.yaml"),
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web{i}}}\nspec:\n  \
                 selector: {{matchLabels: {{app: web{i}}}}}\n  template:\n    metadata: \
                 {{labels: {{app: web{i}}}}}\n    spec:\n      tolerations:\n      - {{key: \
                 pool, operator: Equal, value: web, effect: NoSchedule}}\n      containers:\n      \
                 - {{name: web, image: registry.example.com/web:{i}}}\n"
            ),
        );
        write(
            app.join("base/daemonset.yaml"),
            format!(
                "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: agent{i}}}\nspec:\n  \
                 selector: {{matchLabels: {{app: agent{i}}}}}\n  template:\n    metadata: \
                 {{labels: {{app: agent{i}}}}}\n    spec:\n      tolerations:\n      - \
                 {{operator: Exists, effect: NoExecute, tolerationSeconds: 0}}\n      \
                 containers:\n      - {{name: agent, image: registry.example.com/agent:{i}}}\n"
            ),
        );
        write(
            app.join("base/service.yaml"),
            format!("apiVersion: v1\nkind: Service\nmetadata: {{name: web{i}}}\nspec: {{ports: [{{port: 80}}]}}\n"),
        );
        // An overlay whose patch writes a toleration, one that only renames.
        write(
            app.join("overlays/prod/kustomization.yaml"),
            format!(
                "resources: [../../base]\nnamePrefix: prod-\npatches:\n- target: {{kind: \
                 Deployment, name: web{i}}}\n  patch: |\n    - op: add\n      path: \
                 /spec/template/spec/tolerations/-\n      value: {{key: spot, operator: Exists, \
                 effect: NoSchedul}}\n"
            ),
        );
        write(
            app.join("overlays/dev/kustomization.yaml"),
            "resources: [../../base]\nnamespace: dev\n".to_string(),
        );
    }
    root
}
