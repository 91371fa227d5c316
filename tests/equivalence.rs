//! One reading, three faces: `simulate` and `lint --inventory` judge the same workloads and say
//! the same of each. Over every fixture and example against the example inventories, over a
//! generated workspace and over the nine corpora when present: the pod templates `simulate`
//! reports are the ones `lint --inventory` judged (as many, and the same documents and pod spec
//! paths as its placements), and a workload that `simulate` says fits no node (and the API
//! server would create) has an `unschedulable` finding at it that names it as simulate does,
//! and the reverse.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use taintlint::analysis::{check, simulate, Ask};

use taintlint::inventory::Inventory;
use taintlint::Options;

/// The YAML and JSON files below `roots`, in path order.
fn files(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = roots.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn inventory(path: &str) -> Inventory {
    let text = common::fixture(path);
    Inventory::load(&[(path, text.as_str())]).unwrap()
}

/// The options a file is read with, as the CLI gives them: what its place says (a chart's values
/// file carries what its templates render it into, a patch file its kustomization's target).
fn options(path: &Path) -> Options {
    let mut o = Options::default();
    if let Some(place) = taintlint::walk::Place::of(path, None) {
        place.apply(&mut o);
    }
    o
}

/// A workload as simulate reports it: its document, pod spec path (inside a string, the path
/// inside the string), kind, name and namespace, and whether it fits no node.
struct Simulated {
    document: usize,
    path: String,
    object: (Option<String>, Option<String>, Option<String>),
    /// As simulate names it (`Application argocd/web, values`).
    title: String,
    nowhere: bool,
}

/// The workload of `simulated` a finding is about: in its document, the one whose pod spec
/// holds the finding's path (the deepest), else the one of the finding's object.
fn workload_of<'a>(simulated: &'a [Simulated], d: &taintlint::Diagnostic) -> Option<&'a Simulated> {
    let doc = d.document.unwrap_or(0);
    let path = d.path.as_deref().unwrap_or("");
    let holds = |w: &Simulated| {
        w.path.is_empty() || path == w.path || path.starts_with(&format!("{}.", w.path))
    };
    let in_doc = || simulated.iter().filter(move |w| w.document == doc);
    in_doc()
        .filter(|w| holds(w))
        .max_by_key(|w| w.path.len())
        .or_else(|| {
            let o = d.object.as_ref()?;
            let of = (o.kind.clone(), o.name.clone(), o.namespace.clone());
            let mut same = in_doc().filter(|w| w.object == of);
            let one = same.next();
            same.next().is_none().then_some(one).flatten()
        })
}

/// What the two faces say of one file: the pod templates lint judged, those simulate reports,
/// and every difference between simulate's "fits no node" and lint's `unschedulable`.
fn judged(path: &Path, text: &str, inv: &Inventory) -> (usize, usize, Vec<String>) {
    let o = options(path);
    let analysis = check(text, Ask::new(&o, Some(inv)).placed());
    let counted = analysis.templates;
    let workloads = simulate(text, &o, inv).workloads;
    // The same workloads, one by one: lint's placements (its judged pod templates, as the
    // editor shows them) and simulate's rows, by document and pod spec path.
    let mut placed: Vec<(usize, &str)> = analysis
        .placements
        .iter()
        .map(|p| (p.document, p.path.as_str()))
        .collect();
    let mut rows: Vec<(usize, &str)> = workloads
        .iter()
        .map(|w| (w.document, w.path.as_str()))
        .collect();
    placed.sort();
    rows.sort();
    let simulated: Vec<Simulated> = workloads
        .iter()
        .map(|w| Simulated {
            document: w.document,
            path: w.path.rsplit('|').next().unwrap_or(&w.path).to_string(),
            object: (w.kind.clone(), w.name.clone(), w.namespace.clone()),
            title: w.title(),
            // A DaemonSet that picks no node runs nowhere by design.
            nowhere: !w.simulation.fits_anywhere()
                && w.daemonset.as_ref().is_none_or(|c| c.picked > 0),
        })
        .collect();
    let mut problems = Vec::new();
    if placed != rows {
        problems.push(format!("lint judged {placed:?}; simulate reports {rows:?}"));
    }
    let mut found: BTreeSet<(usize, String)> = BTreeSet::new();
    for d in analysis
        .diagnostics
        .iter()
        .filter(|d| d.rule == "unschedulable")
    {
        match workload_of(&simulated, d) {
            Some(w) if w.nowhere => {
                found.insert((w.document, w.path.clone()));
                // The same words: lint's finding names the workload as simulate's row does.
                if !d.message.starts_with(&format!("{} ", w.title)) {
                    problems.push(format!(
                        "lint says `{}`; simulate names it `{}`",
                        d.message, w.title
                    ));
                }
            }
            Some(w) => problems.push(format!(
                "lint: `{}` at document {} `{}`; simulate: {} `{}` fits",
                d.message,
                w.document,
                d.path.as_deref().unwrap_or(""),
                w.object.0.as_deref().unwrap_or("?"),
                w.path
            )),
            None => problems.push(format!(
                "lint: `{}` at document {:?} `{}`; simulate reports no workload there",
                d.message,
                d.document,
                d.path.as_deref().unwrap_or("")
            )),
        }
    }
    for w in simulated.iter().filter(|w| w.nowhere) {
        if !found.contains(&(w.document, w.path.clone())) {
            problems.push(format!(
                "simulate: {} at document {} `{}` fits no node; lint: no unschedulable",
                w.object.0.as_deref().unwrap_or("?"),
                w.document,
                w.path
            ));
        }
    }
    (counted.found, workloads.len(), problems)
}

/// Judges every file of `paths` against each of `inventories` with both faces, and fails
/// with every difference; `base` is left out of the names said. Returns how many workloads
/// were compared, at least `least`.
fn compare(paths: &[PathBuf], inventories: &[Inventory], base: &Path, least: usize) -> usize {
    let mut failures = Vec::new();
    let mut workloads = 0;
    for path in paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let name = path
            .strip_prefix(base)
            .unwrap_or(path)
            .display()
            .to_string();
        for inv in inventories {
            let (linted, simulated, problems) = judged(path, &text, inv);
            workloads += simulated;
            if linted != simulated {
                failures.push(format!(
                    "{name}: lint --inventory judged {linted} pod templates, simulate reports {simulated}"
                ));
            }
            failures.extend(problems.into_iter().map(|p| format!("{name}: {p}")));
        }
    }
    eprintln!("{} files, {workloads} workloads compared", paths.len());
    assert!(workloads > least, "only {workloads} workloads");
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    workloads
}

#[test]
fn simulate_and_lint_with_an_inventory_judge_the_same_workloads_alike() {
    let root = common::root();
    let dirs = ["tests/fixtures", "examples", "docs/examples"].map(|d| root.join(d));
    let inventories = [
        inventory("examples/inventory/pools.yaml"),
        inventory("examples/gpu/nodepools.yaml"),
    ];
    compare(&files(&dirs), &inventories, &root, 100);
}

/// The same comparison over the nine public repositories of `../shared/corpora`, when they are
/// beside the checkout (unpacked once into the test's scratch folder); skipped, and said, when
/// they are not.
#[test]
fn the_corpora_are_judged_alike_when_present() {
    let Some(repos) = common::corpora() else {
        eprintln!("skipped: ../shared/corpora is not here");
        return;
    };
    let inventories = [inventory("examples/inventory/pools.yaml")];
    compare(
        &files(std::slice::from_ref(&repos)),
        &inventories,
        &repos,
        100,
    );
}

/// The same comparison over a generated workspace of a few hundred files of every shape pods
/// are deployed in (see `tests/common/generated.rs`).
#[test]
fn a_generated_workspace_is_judged_alike() {
    let dir = tempfile::tempdir().unwrap();
    let written = common::generated::workspace(dir.path(), 30);
    let paths = files(&[dir.path().to_path_buf()]);
    assert_eq!(paths.len(), written);
    let inventories = [inventory("examples/inventory/pools.yaml")];
    compare(&paths, &inventories, dir.path(), 200);
}
