//! Clusters as code read as the controllers would make the nodes: Cluster API (a control plane
//! with kubeadm's defaults, bootstrap templates merged into the machine sets that use them,
//! managed topologies), kustomize directories, and files that hold more than pools.

use std::path::Path;
use std::process::{Command, Output};
use taintlint::analysis::simulate;

use taintlint::inventory::Inventory;
use taintlint::{analyse, Options};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap()
}

/// (pool name, taints, labels) of each pool, in the inventory's order.
fn pools(inv: &Inventory) -> Vec<(String, Vec<String>, Vec<String>)> {
    inv.pools
        .iter()
        .map(|p| {
            let mut labels: Vec<String> =
                p.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            labels.sort();
            (
                p.name.clone(),
                p.taints.iter().map(|t| t.taint.to_string()).collect(),
                labels,
            )
        })
        .collect()
}

fn run(args: &[&str], path_env: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_taintlint"));
    c.args(args).current_dir(ROOT).env_remove("COLUMNS");
    if let Some(p) = path_env {
        c.env("PATH", p);
    }
    c.output().expect("the binary runs")
}

#[test]
fn cluster_api_pools_are_the_machine_sets_with_their_bootstrap_templates() {
    let file = "tests/fixtures/iac/capi-md-kubeadm.yaml";
    let inv = Inventory::load(&[(file, &read(file))]).unwrap();
    let got = pools(&inv);
    let names: Vec<&str> = got.iter().map(|p| p.0.as_str()).collect();
    // No pool for either KubeadmConfigTemplate: they make no machines of their own.
    assert_eq!(
        names,
        vec![
            "capi-quickstart-control-plane",
            "capi-quickstart-md-gpu",
            "capi-quickstart-md-0"
        ]
    );
    // A control plane that writes only clusterConfiguration gets kubeadm's default taint.
    assert_eq!(
        got[0].1,
        vec!["node-role.kubernetes.io/control-plane:NoSchedule"]
    );
    // The GPU machine deployment has its template's taint and node label.
    assert_eq!(got[1].1, vec!["nvidia.com/gpu=present:NoSchedule"]);
    assert!(
        got[1].2.contains(&"example.com/pool=gpu".to_string()),
        "{:?}",
        got[1].2
    );
    assert!(got[2].1.is_empty());
    assert_eq!(inv.pools[1].size(), "2 nodes");
    // The template's taint is where it is written.
    let taint = &inv.pools[1].taints[0];
    let text = read(file);
    assert!(text[taint.at.range.clone()].contains("nvidia.com/gpu"));
}

#[test]
fn a_template_no_machine_set_uses_is_still_read_alone() {
    // Without machine sets, a KubeadmConfigTemplate is all there is to go on.
    let file = "tests/fixtures/iac/capi-kubeadm.yaml";
    let inv = Inventory::load(&[(file, &read(file))]).unwrap();
    assert!(inv.pools.iter().any(|p| p.name == "my-cluster-md-gpu"));
}

#[test]
fn a_managed_topology_is_read_and_linted() {
    let file = "tests/fixtures/iac/capi-topology.yaml";
    let text = read(file);
    let inv = Inventory::load(&[(file, &text)]).unwrap();
    let got = pools(&inv);
    assert_eq!(
        got.iter()
            .map(|p| (p.0.as_str(), p.1.clone()))
            .collect::<Vec<_>>(),
        vec![
            (
                "ml-control-plane",
                vec!["node-role.kubernetes.io/control-plane:NoSchedule".to_string()]
            ),
            ("ml-md-0", vec![]),
            // The misspelt effect is left out of the simulation (and reported by lint).
            (
                "ml-md-gpu",
                vec!["nvidia.com/gpu=present:NoSchedule".to_string()]
            ),
        ]
    );
    // Only the labels Cluster API syncs to Nodes.
    assert_eq!(got[2].2, vec!["node-role.kubernetes.io/gpu="]);
    assert_eq!(inv.pools[2].size(), "2 nodes");
    let found: Vec<(&str, Option<String>)> = analyse(&text, &Options::default())
        .into_iter()
        .map(|d| (d.rule, d.path))
        .collect();
    assert_eq!(
        found,
        vec![(
            "unknown-effect",
            Some("spec.topology.workers.machineDeployments[1].taints[1].effect".to_string())
        )]
    );
}

#[test]
fn a_kustomize_directory_is_rendered_or_read_by_its_resources() {
    let dir = "tests/fixtures/kustomize-nodepools";
    let args = [
        "simulate",
        "--format",
        "json",
        "--inventory",
        dir,
        "tests/fixtures/workloads/custom-resources.yaml",
    ];
    let pools_of = |o: &Output| -> Vec<(String, usize)> {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
        v["cluster"]["pools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["taints"].as_array().unwrap().len(),
                )
            })
            .collect()
    };
    // Without kubectl: the listed resources only, not the patch as a pool of its own.
    let out = run(&args, Some("/nonexistent"));
    assert_eq!(
        pools_of(&out),
        vec![("general".to_string(), 0), ("gpu".to_string(), 0)]
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("reading only the resources its kustomization lists"),
        "{err}"
    );
    // With kubectl: rendered, the patch taints the GPU pool.
    let kubectl = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("kubectl").is_file()));
    if !kubectl {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs this test with kubectl on the PATH"
        );
        eprintln!("kubectl is not on the PATH: the rendered case is not tested");
        return;
    }
    let out = run(&args, None);
    assert_eq!(
        pools_of(&out),
        vec![("general".to_string(), 0), ("gpu".to_string(), 1)]
    );
}

#[test]
fn files_that_hold_more_than_nodes_are_read() {
    // Nodes beside a Secret, and a stream that ends in `---`.
    let text = "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-1}\nspec:\n  taints: [{key: nvidia.com/gpu, effect: NoSchedule}]\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: token}\n---\n";
    let inv = Inventory::load(&[("nodes.yaml", text)]).unwrap();
    assert_eq!(inv.node_count(), 1);
    // A file of nothing but other objects is still no inventory.
    let text = "apiVersion: v1\nkind: Secret\nmetadata: {name: token}\n---\n";
    assert!(Inventory::load(&[("secret.yaml", text)]).is_err());
}

#[test]
fn provider_set_labels_decide_spot_fits() {
    let inventory = "tests/fixtures/iac/provider-spot.tf";
    let inv = Inventory::load(&[(inventory, &read(inventory))]).unwrap();
    let workloads = read("tests/fixtures/workloads/spot-workloads.yaml");
    // Per workload, the verdict on each pool of its own provider.
    let verdicts: Vec<(String, Vec<(String, &str)>)> =
        simulate(&workloads, &Options::default(), &inv)
            .workloads
            .into_iter()
            .map(|w| {
                let pools = w
                    .simulation
                    .pools
                    .iter()
                    .zip(&inv.pools)
                    .map(|(v, p)| {
                        let groups: Vec<_> = v.groups(p).map(|(verdict, _, _)| verdict).collect();
                        let fit = if groups.iter().any(|g| g.fits() && g.unknown.is_empty()) {
                            "yes"
                        } else if groups.iter().any(|g| g.fits()) {
                            "may"
                        } else {
                            "no"
                        };
                        (p.name.clone(), fit)
                    })
                    .collect();
                (w.name.unwrap(), pools)
            })
            .collect();
    let on = |workload: &str, pool: &str| -> &str {
        verdicts
            .iter()
            .find(|(w, _)| w == workload)
            .and_then(|(_, p)| p.iter().find(|(n, _)| n == pool))
            .map(|(_, f)| *f)
            .unwrap()
    };
    // EKS labels every managed node group's capacity type: ON_DEMAND unless SPOT.
    assert_eq!(on("eks-spot", "spot"), "yes");
    assert_eq!(on("eks-spot", "on-demand"), "no");
    // AKS labels (and taints) Spot pools only: a regular pool never has the label.
    assert_eq!(on("aks-spot", "spotpool"), "yes");
    assert_eq!(on("aks-spot", "regular"), "no");
    // GKE likewise.
    assert_eq!(on("gke-spot", "gke-spot"), "yes");
    assert_eq!(on("gke-spot", "standard"), "no");
    // The AKS Spot pool carries the taint AKS adds.
    let spot = inv.pools.iter().find(|p| p.name == "spotpool").unwrap();
    assert_eq!(
        spot.taints
            .iter()
            .map(|t| t.taint.to_string())
            .collect::<Vec<_>>(),
        vec!["kubernetes.azure.com/scalesetpriority=spot:NoSchedule"]
    );
}

#[test]
fn terraform_modules_in_their_documented_forms() {
    let file = "tests/fixtures/iac/module-forms.tf";
    let text = read(file);
    let inv = Inventory::load(&[(file, &text)]).unwrap();
    let got: Vec<(String, Vec<String>)> = pools(&inv).into_iter().map(|p| (p.0, p.1)).collect();
    let want = |name: &str, taints: &[&str]| {
        (
            name.to_string(),
            taints.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        got,
        vec![
            want("gpu", &["nvidia.com/gpu=true:NoSchedule"]),
            want("infra", &["dedicated=infra:NoExecute"]),
            want("legacy", &["legacy=true:NoSchedule"]),
            want("batch", &["batch=true:NoSchedule"]),
            want("default-pool", &[]),
            // Its taint's effect is misspelt: left out, and reported by lint.
            want("gpu-pool", &[]),
        ]
    );
    let gpu = &pools(&inv)[0];
    assert!(
        gpu.2
            .contains(&"eks.amazonaws.com/capacityType=SPOT".to_string()),
        "{:?}",
        gpu.2
    );
    let gke = &pools(&inv)[5];
    assert!(
        gke.2.contains(&"accelerator=l4".to_string()) && gke.2.contains(&"team=ml".to_string())
    );
    assert!(gke
        .2
        .contains(&"cloud.google.com/gke-spot=true".to_string()));
    let found: Vec<&str> = analyse(&text, &Options::default())
        .iter()
        .map(|d| d.rule)
        .collect();
    assert_eq!(found, vec!["unknown-effect"]);
}

#[test]
fn a_json_file_with_a_trailing_comma_is_reported_at_the_comma() {
    let text = "{\"kind\": \"List\", \"items\": [\n  {\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}},\n]}\n";
    let found = analyse(text, &Options::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, "yaml-syntax");
    assert_eq!(&text[found[0].range.clone()], ",");
    assert!(found[0]
        .message
        .contains("a comma before a closing bracket"));
    // Valid JSON, and YAML that is not JSON, say nothing of it.
    assert!(analyse("{\"kind\": \"List\", \"items\": []}\n", &Options::default()).is_empty());
    assert!(analyse("items: [a, b,]\n", &Options::default()).is_empty());
}

/// node-feature-discovery's NodeFeatureRules taint the nodes their rules match: the taints are
/// linted where they are written, with what nfd-master drops said as such (no API server
/// message: the API server never sees the rule's taints), and read as a pool per rule, with a
/// note that says which nodes those are cannot be known offline.
#[test]
fn node_feature_rules_are_linted_and_read_as_the_pools_they_taint() {
    let file = "tests/fixtures/iac/nfd-rules.yaml";
    let text = read(file);
    let found = analyse(&text, &Options::default());
    let got: Vec<(&str, &str, &str)> = found
        .iter()
        .map(|d| {
            (
                d.rule,
                d.path.as_deref().unwrap_or(""),
                &text[d.range.clone()],
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "unknown-effect",
                "spec.rules[1].taints[0].effect",
                "PreferNoschedule"
            ),
            (
                "platform-taint",
                "spec.rules[1].taints[1].key",
                "\"dedicated\""
            ),
            (
                "platform-taint",
                "spec.rules[1].taints[2].key",
                "\"node.kubernetes.io/special\""
            ),
            (
                "invalid-key",
                "spec.rules[1].taints[3].key",
                "\"feature.node.kubernetes.io/special cpu\""
            ),
            ("duplicate-taint", "spec.rules[1].taints[5]", "effect"),
        ]
    );
    assert!(
        found.iter().all(|d| d.server_message.is_none()),
        "{found:#?}"
    );
    let duplicate = found.iter().find(|d| d.rule == "duplicate-taint").unwrap();
    assert_eq!(duplicate.severity, taintlint::Severity::Warning);
    // Each rule with taints is a pool of the nodes it matches, with the taints nfd-master
    // keeps (the last of two with one key and effect), and a note says what is not known.
    let inv = Inventory::load(&[(file, &text)]).unwrap();
    let got = pools(&inv);
    assert_eq!(
        got,
        [
            (
                "accelerators/nvidia gpu".to_string(),
                vec!["feature.node.kubernetes.io/nvidia-gpu=true:NoSchedule".to_string()],
                vec!["feature.node.kubernetes.io/nvidia-gpu=true".to_string()]
            ),
            (
                "accelerators/special cpu".to_string(),
                vec![
                    "feature.node.kubernetes.io/special cpu:NoSchedule".to_string(),
                    "feature.node.kubernetes.io/nvidia-gpu=b:NoSchedule".to_string()
                ],
                vec![]
            ),
        ]
    );
    let out = run(
        &["simulate", "--inventory", file, "examples/web.yaml"],
        None,
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "taintlint: warning: inventory tests/fixtures/iac/nfd-rules.yaml:11:7: \
             NodeFeatureRule accelerators, rule \"nvidia gpu\": which nodes it matches (by the \
             features nfd-worker finds on them) cannot be known offline"
        ),
        "{err}"
    );
}

/// A NodeFeatureRule beside the cluster's other pools (node-feature-discovery's e2e test
/// test/e2e/data/nodefeaturerule-3.yaml, whose rule taints every worker, beside the quick
/// start's workers): which nodes the rule matches cannot be known offline, so the workers may
/// carry its taints: a pod that does not tolerate them may fit there, with that reason; one
/// that tolerates them fits for certain.
#[test]
fn nodes_a_feature_rule_may_match_may_carry_its_taints() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let pools = write("pools.yaml", "pools:\n  workers:\n    count: 2\n");
    let rule = write(
        "rule.yaml",
        "apiVersion: nfd.k8s-sigs.io/v1alpha1
kind: NodeFeatureRule
metadata:
  name: e2e
spec:
  rules:
    - name: dedicated
      taints:
        - {key: feature.node.kubernetes.io/fake-dedicated-node, value: \"true\", effect: NoExecute}
      matchFeatures:
        - feature: kernel.version
          matchExpressions:
            major: {op: Exists}
",
    );
    let apps = write(
        "apps.yaml",
        "apiVersion: apps/v1
kind: Deployment
metadata: {name: gc}
spec:
  template:
    spec:
      containers: [{name: c, image: x}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: master}
spec:
  template:
    spec:
      tolerations:
        - {key: feature.node.kubernetes.io/fake-dedicated-node, operator: Exists}
      containers: [{name: c, image: x}]
",
    );
    let out = run(
        &[
            "simulate",
            "--format",
            "json",
            "--inventory",
            &pools,
            "--inventory",
            &rule,
            &apps,
        ],
        None,
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let workload = |name: &str| {
        report["workloads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap()
            .clone()
    };
    // The workers are pool 0, the rule's pool 1.
    let gc = workload("gc");
    assert_eq!(gc["fits"], "may", "{gc:#}");
    assert_eq!(gc["pools"][0]["pools"], serde_json::json!([0]), "{gc:#}");
    assert_eq!(gc["pools"][0]["fit"], "partial", "{gc:#}");
    assert_eq!(gc["pools"][1]["fit"], "no", "{gc:#}");
    let reason = &gc["reasons"][0];
    assert_eq!(reason["code"], "taint-unknown");
    assert_eq!(
        reason["taint"],
        "feature.node.kubernetes.io/fake-dedicated-node=true:NoExecute"
    );
    assert_eq!(reason["by"], "NodeFeatureRule e2e/dedicated");
    let master = workload("master");
    assert_eq!(master["fits"], "yes", "{master:#}");
    assert_eq!(master["reasons"], serde_json::json!([]), "{master:#}");
}

/// Cluster Autoscaler's node-template tags, in Terraform, CloudFormation and eksctl: linted at
/// the tag's value (warnings, without an API server message: the autoscaler alone reads them,
/// and ignores a tag it cannot read), and read as the taints, labels and resources of the
/// group's pool.
#[test]
fn autoscaler_node_template_tags_are_linted_and_read() {
    let files = [
        "tests/fixtures/iac/autoscaler-tags.tf",
        "tests/fixtures/iac/autoscaler-tags.yaml",
    ];
    let mut got = Vec::new();
    for file in files {
        let text = read(file);
        for d in analyse(&text, &Options::default()) {
            assert_eq!(d.severity, taintlint::Severity::Warning, "{d:#?}");
            assert!(d.server_message.is_none(), "{d:#?}");
            got.push((d.rule, text[d.range.clone()].to_string()));
        }
    }
    let want = [
        ("taint-missing-field", "nvidia.com/gpu=true"),
        ("unknown-effect", "NoSchedul"),
        ("unknown-effect", "noschedule"),
        ("unknown-effect", "NoSchedul"),
    ];
    let want: Vec<(&str, String)> = want.iter().map(|(r, t)| (*r, t.to_string())).collect();
    assert_eq!(got, want);
    let texts: Vec<String> = files.iter().map(|f| read(f)).collect();
    let inv = Inventory::load(&[(files[0], &texts[0]), (files[1], &texts[1])]).unwrap();
    let got = pools(&inv);
    let pool = |name: &str| got.iter().find(|p| p.0 == name).unwrap().clone();
    // An Auto Scaling group without Cluster Autoscaler's tags (web-frontends) is no node group.
    let names: Vec<&str> = got.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(names, ["ml-gpu", "batch", "ml-gpu#2", "gpu-spot"]);
    let (_, taints, labels) = pool("ml-gpu");
    assert_eq!(taints, ["nvidia.com/gpu=present:NoSchedule"]);
    assert_eq!(labels, ["example.com/pool=gpu"]);
    assert_eq!(pool("batch").1, ["batch=true:PreferNoSchedule"]);
    // An eksctl group's own taints stand; its tags add what they do not say.
    let (_, taints, labels) = pool("gpu-spot");
    assert_eq!(
        taints,
        ["spot=true:NoSchedule", "nvidia.com/gpu=present:NoSchedule"]
    );
    assert!(labels.contains(&"example.com/pool=gpu".to_string()));
    // A resources tag says what a node offers.
    let gpu = inv.pools.iter().find(|p| p.name == "ml-gpu").unwrap();
    let capacity = &gpu.declared.as_ref().unwrap().capacity;
    assert_eq!(capacity.offer("nvidia.com/gpu"), Some((1, Some(1))));
}
