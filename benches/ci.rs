//! What CI-grade linting adds on top of the rules: inline suppressions, the safe-fix loop and
//! the SARIF renderer, on a generated manifest with one suppression per toleration.
//!
//! cargo bench --bench ci

use criterion::{criterion_group, criterion_main, Criterion};
use taintlint::report::FileReport;
use taintlint::{analyse, Options};

/// A Deployment with `n` tolerations, each under a suppression comment (one used name, one
/// unused), half of them with a null effect (a safe fix).
fn manifest(n: usize) -> String {
    let mut out = String::from(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: big\nspec:\n  template:\n    \
         spec:\n      tolerations:\n",
    );
    for i in 0..n {
        out.push_str(&format!(
            "      # taintlint: disable=tolerates-everything,unknown-operator -- item {i}\n      \
             - key: example.com/k{i}\n        operator: exists\n        effect: {}\n",
            if i % 2 == 0 { "NoSchedule" } else { "~" }
        ));
    }
    out
}

fn bench(c: &mut Criterion) {
    let options = Options::default();
    let text = manifest(2000);
    c.bench_function("analyse 2000 suppressed tolerations", |b| {
        b.iter(|| analyse(&text, &options))
    });
    c.bench_function("fix_safe 2000 tolerations", |b| {
        b.iter(|| taintlint::fix::fix_safe(&text, &options))
    });
    let report = FileReport::new("big.yaml".into(), text.clone(), analyse(&text, &options));
    let files = [report];
    c.bench_function("sarif render 3000 findings", |b| {
        b.iter(|| taintlint::report::sarif::render(&files))
    });
    c.bench_function("json render 3000 findings", |b| {
        b.iter(|| taintlint::report::json::render(&files))
    });
    let plain = text
        .lines()
        .filter(|l| !l.contains("# taintlint:"))
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    c.bench_function("analyse 2000 tolerations without suppressions", |b| {
        b.iter(|| analyse(&plain, &options))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
