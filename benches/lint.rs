//! Lint throughput over a generated corpus of 10,000 manifests, against parsing the same corpus
//! alone: the core on one core and on every core, and the `taintlint lint` binary end to end over
//! the corpus written as files under `target/bench-data/lint-corpus/`. Run with `cargo bench
//! --bench lint`; it ends with the binary's median beside parse-only's on one core, and their
//! ratio (the target: at most 1.0).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

use taintlint::{analyse, syntax, Options};

const MANIFESTS: usize = 10_000;

/// A deterministic corpus of realistic manifests: workloads of every kind with tolerations
/// (some wrong), nodes with taints, values files. One string per manifest file.
fn corpus() -> Vec<String> {
    let kinds = [
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "Job",
        "CronJob",
        "Pod",
        "Node",
        "Values",
    ];
    (0..MANIFESTS)
        .map(|i| {
            let kind = kinds[i % kinds.len()];
            let tolerations = format!(
                "      - key: example.com/pool-{pool}\n        operator: Equal\n        value: \"team-{pool}\"\n        effect: NoSchedule\n      - key: node.kubernetes.io/{cond}\n        operator: Exists\n        effect: NoExecute\n        tolerationSeconds: {secs}\n      - key: nvidia.com/gpu\n        operator: {op}\n        effect: {effect}\n",
                pool = i % 50,
                cond = if i % 97 == 0 { "net-ready" } else { "not-ready" },
                secs = 300 + i % 60,
                op = if i % 31 == 0 { "exists" } else { "Exists" },
                effect = if i % 43 == 0 { "noschedule" } else { "NoSchedule" },
            );
            let containers = "      containers:\n      - name: app\n        image: registry.example.com/app:1.0\n        resources:\n          limits: {cpu: 500m, memory: 256Mi}\n        env:\n        - {name: MODE, value: production}\n        - {name: LOG_LEVEL, value: info}\n";
            match kind {
                "Node" => format!(
                    "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\n  labels:\n    example.com/pool: pool-{p}\n    kubernetes.io/hostname: node-{i}\nspec:\n  taints:\n  - key: example.com/pool-{p}\n    value: team-{p}\n    effect: NoSchedule\n  - key: nvidia.com/gpu\n    value: present\n    effect: NoSchedule\n",
                    p = i % 50
                ),
                "Values" => format!(
                    "# values for release {i}\nreplicaCount: 3\nimage:\n  repository: registry.example.com/app\n  tag: \"1.{i}\"\nworker:\n  tolerations:\n{}",
                    tolerations.replace("      ", "  ")
                ),
                "Pod" => format!(
                    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-{i}\n  namespace: ns-{n}\nspec:\n  tolerations:\n{}{}",
                    tolerations.replace("      ", "  "),
                    containers.replace("      ", "  "),
                    n = i % 20
                ),
                "CronJob" => format!(
                    "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: job-{i}\nspec:\n  schedule: \"*/5 * * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          tolerations:\n{}{}",
                    tolerations.replace("      ", "          "),
                    containers.replace("      ", "          ")
                ),
                _ => format!(
                    "apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: app-{i}\n  namespace: ns-{n}\n  labels: {{app: app-{i}, tier: backend}}\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {{app: app-{i}}}\n  template:\n    metadata:\n      labels: {{app: app-{i}}}\n    spec:\n      nodeSelector:\n        example.com/pool: pool-{p}\n      tolerations:\n{tolerations}{containers}",
                    n = i % 20,
                    p = i % 50
                ),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let corpus = corpus();
    let bytes: usize = corpus.iter().map(String::len).sum();
    let options = Options::default();
    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_with_input(
        BenchmarkId::new("parse-only", MANIFESTS),
        &corpus,
        |b, corpus| {
            b.iter(|| {
                for text in corpus {
                    black_box(syntax::parse(black_box(text)));
                }
            })
        },
    );
    group.bench_with_input(BenchmarkId::new("lint", MANIFESTS), &corpus, |b, corpus| {
        b.iter(|| {
            for text in corpus {
                black_box(analyse(black_box(text), &options));
            }
        })
    });
    // The core on every core, as `taintlint lint` runs it.
    group.bench_with_input(
        BenchmarkId::new("lint on every core", MANIFESTS),
        &corpus,
        |b, corpus| {
            use rayon::prelude::*;
            b.iter(|| {
                corpus.par_iter().for_each(|text| {
                    black_box(analyse(black_box(text), &options));
                })
            })
        },
    );
    // What `taintlint lint DIR` does with the corpus as files, end to end: the walk, reading,
    // linting on every core and writing the findings (the target: no slower than parse-only on
    // one core).
    let dir = corpus_dir(&corpus);
    group.bench_function(BenchmarkId::new("taintlint lint DIR", MANIFESTS), |b| {
        b.iter(|| lint_binary(&dir))
    });
    group.finish();
    // The two figures side by side, and their ratio: medians of 21 runs of each, taken in turn
    // so that the machine's drift falls on both alike.
    let time = |f: &mut dyn FnMut()| {
        let start = std::time::Instant::now();
        f();
        start.elapsed().as_secs_f64()
    };
    let (mut parses, mut lints) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        parses.push(time(&mut || {
            for text in &corpus {
                black_box(syntax::parse(black_box(text)));
            }
        }));
        lints.push(time(&mut || lint_binary(&dir)));
    }
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    let (parse, lint) = (median(parses), median(lints));
    println!(
        "taintlint lint of {MANIFESTS} files: {:.0} ms; parse-only on one core: {:.0} ms; ratio {:.2} (target: at most 1.00)",
        lint * 1e3,
        parse * 1e3,
        lint / parse
    );
}

/// The corpus as files under `target/bench-data/lint-corpus/`, written once (also for timing
/// the binary by hand: `taintlint lint --format json target/bench-data/lint-corpus`).
fn corpus_dir(corpus: &[String]) -> std::path::PathBuf {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data/lint-corpus");
    if !dir.join(format!("{:05}.yaml", MANIFESTS - 1)).is_file() {
        std::fs::create_dir_all(&dir).unwrap();
        for (i, text) in corpus.iter().enumerate() {
            std::fs::write(dir.join(format!("{i:05}.yaml")), text).unwrap();
        }
    }
    dir
}

/// Runs the release binary over `dir` as a user would, its findings written to a pipe as JSON
/// (the row of docs/development.md).
fn lint_binary(dir: &std::path::Path) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(["lint", "--format", "json"])
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .output()
        .expect("the taintlint binary runs");
    // The corpus has mistakes in it on purpose: exit status 1, and findings.
    assert_eq!(out.status.code(), Some(1));
    assert!(!out.stdout.is_empty());
}

criterion_group!(benches, bench);
criterion_main!(benches);
