//! CustomResourceDefinitions as the source of truth: a CRD among the files read (the linted
//! tree, the inventory, the file itself) says where its kind keeps pod specs, tolerations and
//! taints, for every version it serves; taintlint's own table of custom workloads, and the
//! search by shape, are for the kinds whose CRD is not at hand.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use taintlint::inventory::Inventory;
use taintlint::{analyse, Options};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join("tests/fixtures/crds").join(name)).unwrap()
}

/// `taintlint ARGS` in the fixtures' directory: its JSON findings as (file, rule, line).
fn lint(args: &[&str]) -> Vec<(String, String, u64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(["lint", "-o", "json"])
        .args(args)
        .current_dir(Path::new(ROOT).join("tests/fixtures/crds"))
        .output()
        .expect("the binary runs");
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["rule"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn found(file: &str, rule: &str, line: u64) -> (String, String, u64) {
    (file.to_string(), rule.to_string(), line)
}

/// A NodeClaim's taints are a Node's, and only its CRD says where they are: with the CRD in
/// the tree they get the taint rules (and the CRD's own words: an effect outside its enum is an
/// `Unsupported value`), without it they are not read.
#[test]
fn a_crd_in_the_tree_says_where_its_kinds_taints_are() {
    assert_eq!(
        lint(&["."]),
        [
            found("./nodeclaim.yaml", "duplicate-taint", 15),
            found("./nodeclaim.yaml", "unknown-effect", 20),
            found("./notebook.yaml", "exists-with-value", 19),
            found("./trainjob.yaml", "exists-with-value", 29),
        ]
    );
    assert_eq!(
        lint(&["nodeclaim.yaml"]),
        Vec::<(String, String, u64)>::new()
    );
    // The CRD given as (part of) an inventory, as `kubectl get crd -o yaml` prints it, teaches
    // the same.
    let dir = tempfile::tempdir().unwrap();
    let crd = read("nodeclaims-crd.yaml");
    let mut item = String::new();
    for (i, line) in crd.lines().filter(|l| !l.starts_with('#')).enumerate() {
        item.push_str(if i == 0 { "  - " } else { "    " });
        item.push_str(line);
        item.push('\n');
    }
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n    \
         metadata: {{name: n1}}\n{item}"
    );
    let inventory = dir.path().join("cluster.yaml");
    std::fs::write(&inventory, list).unwrap();
    let with_inventory = lint(&["--inventory", inventory.to_str().unwrap(), "nodeclaim.yaml"]);
    assert!(
        with_inventory.contains(&found("nodeclaim.yaml", "duplicate-taint", 15)),
        "{with_inventory:?}"
    );
}

/// In one file, a CRD and its object: the object's taint lists are read where the CRD says.
/// A version the CRD does not serve is not read by it.
#[test]
fn a_crd_beside_its_object_and_the_versions_it_serves() {
    let both = format!(
        "{}---\n{}",
        read("nodeclaims-crd.yaml"),
        read("nodeclaim.yaml")
    );
    let rules: Vec<&str> = analyse(&both, &Options::default())
        .iter()
        .map(|d| d.rule)
        .collect();
    assert_eq!(rules, ["duplicate-taint", "unknown-effect"]);
    let unserved = both.replace("served: true", "served: false");
    assert!(analyse(&unserved, &Options::default()).is_empty());
    // Another version of the kind than the CRD serves: not read by it.
    let other = both.replace(
        "apiVersion: karpenter.sh/v1\n",
        "apiVersion: karpenter.sh/v2\n",
    );
    assert!(analyse(&other, &Options::default()).is_empty());
}

/// `taintlint simulate --inventory pools.yaml FILES` in the fixtures' directory: its stderr.
fn simulate(files: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args([
            "simulate",
            "--inventory",
            "../../../examples/inventory/pools.yaml",
        ])
        .args(files)
        .current_dir(Path::new(ROOT).join("tests/fixtures/crds"))
        .output()
        .expect("the binary runs");
    String::from_utf8(out.stderr).unwrap()
}

/// A kind the table does not know (Kubeflow's Notebook) has its pod templates found by their
/// shape; with its CRD at hand they are where the CRD says, and `simulate` no longer calls them
/// found by shape.
#[test]
fn a_crd_replaces_the_search_by_shape() {
    let alone = simulate(&["notebook.yaml"]);
    assert!(
        alone.contains("1 of 1 pod template found by its shape"),
        "{alone}"
    );
    let with_crd = simulate(&["notebook.yaml", "notebook-crd.yaml"]);
    assert!(!with_crd.contains("found by its shape"), "{with_crd}");
    // Its toleration is linted either way.
    let found = analyse(&read("notebook.yaml"), &Options::default());
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].path.as_deref(),
        Some("spec.template.spec.tolerations[0].value")
    );
}

/// A kind the table knows is read by the table, CRD or not: the table says what its schema
/// cannot (a Strimzi component's pods, its `template.pod` holding no containers; a TrainJob
/// trainer's requests, kept in `spec.trainer`).
#[test]
fn the_table_knows_its_kinds_with_a_crd_at_hand() {
    let inventory = Inventory::load(&[(
        "pools.yaml",
        &std::fs::read_to_string(Path::new(ROOT).join("examples/inventory/pools.yaml")).unwrap(),
    )])
    .unwrap();
    let paths = |text: &str| -> Vec<String> {
        let out = taintlint::analysis::simulate(text, &Options::default(), &inventory).workloads;
        out.into_iter().map(|w| w.path).collect()
    };
    let trainjob = read("trainjob.yaml");
    let with_crd = format!("{}---\n{trainjob}", read("trainjob-crd.yaml"));
    let want = [
        "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template\
         .spec.template.spec",
    ];
    assert_eq!(paths(&trainjob), want);
    assert_eq!(paths(&with_crd), want);
    let with_crd = simulate(&["trainjob.yaml", "trainjob-crd.yaml"]);
    assert!(!with_crd.contains("found by its shape"), "{with_crd}");
    // A Strimzi Kafka beside a CRD whose schema shows its `template.pod` (no containers: no pod
    // spec to the schema): the broker's pods are still read, with their requests.
    let kafka = "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata: {name: k}\n\
                 spec:\n  kafka:\n    replicas: 3\n    resources: {requests: {nvidia.com/gpu: 4}}\n";
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
               metadata: {name: kafkas.kafka.strimzi.io}\nspec:\n  group: kafka.strimzi.io\n  \
               names: {kind: Kafka, plural: kafkas}\n  versions:\n  - name: v1beta2\n    \
               served: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        \
               properties:\n          spec:\n            type: object\n            \
               properties:\n              kafka:\n                type: object\n                \
               properties:\n                  template:\n                    type: object\n";
    let both = format!("{crd}---\n{kafka}");
    let out = taintlint::analysis::simulate(&both, &Options::default(), &inventory).workloads;
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].path, "spec.kafka");
    // The GPU pool's nodes offer 1 GPU each: 4 do not fit there.
    let gpu = inventory
        .pools
        .iter()
        .position(|p| p.name == "gpu")
        .unwrap();
    let pool = &inventory.pools[gpu];
    let reasons: Vec<String> = out[0].simulation.pools[gpu]
        .reasons(pool)
        .iter()
        .map(|r| r.describe(pool))
        .collect();
    assert!(
        reasons
            .contains(&"insufficient nvidia.com/gpu: requests 4, a node offers at most 1".into()),
        "{reasons:?}"
    );
}
