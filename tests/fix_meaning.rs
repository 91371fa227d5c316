//! Fixes keep their meaning: over every fixture, against the fixture's inventory and against a
//! cluster made of the very taints the fixture's tolerations tolerate, no fix changes the set of
//! nodes a workload fits unless its title says it changes what is tolerated, and no fix that a
//! bulk fix applies (`--fix`, `--unsafe-fixes`, fix-all) takes a workload off a node it fits.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use taintlint::analysis::simulate;

use taintlint::diagnostic::Applicability;
use taintlint::fix::FixMode;
use taintlint::inventory::Inventory;
use taintlint::k8s::model::Effect;
use taintlint::k8s::objects::{extract, items};
use taintlint::Options;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

/// A pool file with one pool per taint that some toleration of `text` tolerates (a taint of its
/// key, its value or some value, its effect or both evicting effects), and an untainted pool.
fn mirror_cluster(text: &str) -> Option<Inventory> {
    let stream = taintlint::syntax::parse(text);
    let mut taints = BTreeSet::new();
    for doc in &stream.documents {
        for list in &extract(doc).tolerations {
            for item in items(doc, &list.list) {
                let Some(t) = item.toleration() else { continue };
                if t.key.is_empty() || t.key.contains(['"', '\\', '\n', ' ']) {
                    continue;
                }
                let value = if t.value.is_empty() { "x" } else { &t.value };
                let effects = match t.effect {
                    Some(e) if e != Effect::PreferNoSchedule => vec![e],
                    Some(_) => continue,
                    None => vec![Effect::NoSchedule, Effect::NoExecute],
                };
                for e in effects {
                    taints.insert(format!("{}={value}:{}", t.key, e.as_str()));
                }
            }
        }
    }
    if taints.is_empty() {
        return None;
    }
    let mut pools = String::from("pools:\n  plain:\n    count: 1\n");
    for (i, t) in taints.iter().enumerate() {
        pools.push_str(&format!(
            "  p{i}:\n    count: 1\n    taints:\n    - \"{t}\"\n"
        ));
    }
    Inventory::load(&[("mirror.yaml", pools.as_str())]).ok()
}

/// For each workload of `text`, how many nodes of each pool the simulation says it fits (the
/// nodes of a pool that fit are the same ones whenever the count is).
fn fits(text: &str, inventory: &Inventory) -> Vec<Vec<usize>> {
    simulate(text, &Options::default(), inventory)
        .workloads
        .iter()
        .map(|w| {
            w.simulation
                .pools
                .iter()
                .zip(&inventory.pools)
                .map(|(verdict, pool)| verdict.fitting(pool))
                .collect()
        })
        .collect()
}

/// Whether every node `before` fits, `after` fits too.
fn keeps(before: &[usize], after: &[usize]) -> bool {
    before.iter().zip(after).all(|(b, a)| b <= a)
}

/// A title that says the fix changes what the workload tolerates, or where it lands.
fn says_it_changes_placement(title: &str) -> bool {
    title.contains("tolerat") || title.contains("Tolerat") || title.contains("onto pool")
}

#[test]
fn no_fix_changes_where_a_workload_fits_unless_its_title_says_so() {
    let mut files = Vec::new();
    yaml_files(&common::root().join("tests/fixtures"), &mut files);
    files.sort();
    let (mut checked, mut changed, mut manual) = (0, 0, 0);
    for path in files {
        let name = common::relative(&path);
        let text = common::read(&path);
        let inventories: Vec<Inventory> = common::inventory_for(&path)
            .into_iter()
            .chain(mirror_cluster(&text))
            .collect();
        for inventory in &inventories {
            let before = fits(&text, inventory);
            if before.is_empty() {
                continue;
            }
            for d in common::lint_with(&text, Some(inventory)) {
                for fix in &d.fixes {
                    let fixed = fix.apply(&text);
                    let after = fits(&fixed, inventory);
                    if after.len() != before.len() {
                        continue;
                    }
                    checked += 1;
                    manual += usize::from(fix.applicability == Applicability::Manual);
                    for (b, a) in before.iter().zip(&after) {
                        if a == b {
                            continue;
                        }
                        changed += 1;
                        assert!(
                            says_it_changes_placement(&fix.title),
                            "{name}: fix {:?} of {} changes the nodes a workload fits \
                             ({} -> {}) and its title does not say so",
                            fix.title,
                            d.rule,
                            b.iter().sum::<usize>(),
                            a.iter().sum::<usize>()
                        );
                        assert!(
                            !FixMode::Unsafe.admits(fix.applicability) || keeps(b, a),
                            "{name}: fix {:?} of {} takes a workload off nodes it fits \
                             ({} -> {}) and would be applied in bulk",
                            fix.title,
                            d.rule,
                            b.iter().sum::<usize>(),
                            a.iter().sum::<usize>()
                        );
                    }
                }
            }
        }
    }
    // The property is not empty: fixes were tried, some changed placement, and some were
    // held back from bulk fixing.
    assert!(checked > 50, "only {checked} fixes checked");
    assert!(
        changed > 0 && manual > 0,
        "changed {changed}, manual {manual}"
    );
}

/// What the guard says of every fix it judges, over every fixture, against the fixture's
/// inventory and the mirror cluster: the fixes it holds back from bulk fixing and those whose
/// title it extends. The guard reads only the edited toleration list; this record, taken when
/// it still re-read the whole document for each fix, must not move.
#[test]
fn the_guards_answers_over_the_fixtures() {
    let mut files = Vec::new();
    yaml_files(&common::root().join("tests/fixtures"), &mut files);
    files.sort();
    let mut record = String::new();
    let (mut judged, mut marked) = (0, 0);
    for path in files {
        let name = common::relative(&path);
        let text = common::read(&path);
        let inventories: Vec<(&str, Inventory)> = common::inventory_for(&path)
            .map(|i| ("inventory", i))
            .into_iter()
            .chain(mirror_cluster(&text).map(|i| ("mirror", i)))
            .collect();
        for (cluster, inventory) in &inventories {
            for d in common::lint_with(&text, Some(inventory)) {
                for fix in &d.fixes {
                    judged += 1;
                    let manual = fix.applicability == Applicability::Manual;
                    if !manual && !fix.title.contains("(then tolerates") {
                        continue;
                    }
                    marked += 1;
                    record.push_str(&format!(
                        "{name} [{cluster}] {} {}: {} ({:?})\n",
                        d.rule,
                        d.path.as_deref().unwrap_or("-"),
                        fix.title,
                        fix.applicability
                    ));
                }
            }
        }
    }
    assert!(
        judged > 50 && marked > 5,
        "judged {judged}, marked {marked}"
    );
    common::snapshot_settings().bind(|| insta::assert_snapshot!("guarded_fixes", record));
}
