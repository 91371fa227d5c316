//! Node pools defined as code (Karpenter NodePools, ...) as inventories: read, linted and
//! simulated against workloads, end to end through the CLI.

use std::process::{Command, Output};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(ROOT)
        .output()
        .expect("the binary runs")
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// The findings of a `lint --format json` report: rule, line, column and the finding's `field`.
fn findings<'r>(report: &'r Value, field: &str) -> Vec<(&'r str, u64, u64, &'r str)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let start = &d["range"]["start"];
            (
                d["rule"].as_str().unwrap(),
                start["line"].as_u64().unwrap(),
                start["column"].as_u64().unwrap(),
                d[field].as_str().unwrap(),
            )
        })
        .collect()
}

/// (workload name, [(pool name, fit)]) of a simulate JSON report.
fn fits(report: &Value) -> Vec<(String, Vec<(String, String)>)> {
    let pools = report["cluster"]["pools"].as_array().unwrap();
    report["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            // An entry stands for every pool on which the workload fares the same.
            let mut per_pool: Vec<(usize, String, String)> = w["pools"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|p| {
                    p["pools"].as_array().unwrap().iter().map(move |i| {
                        let i = i.as_u64().unwrap() as usize;
                        (
                            i,
                            pools[i]["name"].as_str().unwrap().to_string(),
                            p["fit"].as_str().unwrap().to_string(),
                        )
                    })
                })
                .collect();
            per_pool.sort();
            let per_pool = per_pool.into_iter().map(|(_, n, f)| (n, f)).collect();
            (w["name"].as_str().unwrap().to_string(), per_pool)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn karpenter_nodepools_as_inventory() {
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/iac/nodepools.yaml",
        "tests/fixtures/iac/karpenter-workloads.yaml",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the arm64 workload fits no pool"
    );
    let report = json(&out);
    let pools = &report["cluster"]["pools"];
    assert_eq!(pools[0]["kind"], "nodepool");
    assert_eq!(
        pools[0]["count"],
        serde_json::json!({"min": 0, "max": null})
    );
    assert_eq!(pools[1]["count"], serde_json::json!({"min": 0, "max": 10}));
    assert_eq!(
        pools[0]["startupTaints"][0]["key"],
        "node.cilium.io/agent-not-ready"
    );
    assert_eq!(pools[1]["source"]["line"], 31);
    assert_eq!(
        fits(&report),
        [
            (
                "web".to_string(),
                // The Cilium startup taint does not count; the GPU taint does.
                pairs(&[("general-purpose", "yes"), ("gpu", "no")])
            ),
            (
                "trainer".to_string(),
                // A custom label the general-purpose pool never sets.
                pairs(&[("general-purpose", "no"), ("gpu", "yes")])
            ),
            (
                "arm".to_string(),
                pairs(&[("general-purpose", "no"), ("gpu", "no")])
            ),
        ]
    );
    // Reasons are listed once per workload, and pools refer to them by index.
    let arm = &report["workloads"][2];
    let arm = &arm["reasons"][arm["pools"][0]["reasons"][0].as_u64().unwrap() as usize];
    assert_eq!(arm["code"], "requirements");
    assert_eq!(
        arm["message"],
        "nodeSelector kubernetes.io/arch=arm64 is outside the pool's requirement \
         kubernetes.io/arch In [amd64]"
    );
}

#[test]
fn nodepool_taint_errors_at_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/tests/fixtures/iac/nodepools.yaml"))
        .unwrap()
        .replace("effect: NoSchedule", "effect: NoScheduled");
    let path = dir.path().join("nodepools.yaml");
    std::fs::write(&path, &text).unwrap();
    let out = run(&["lint", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let d = &report["diagnostics"][0];
    assert_eq!(d["rule"], "unknown-effect");
    assert_eq!(d["path"], "spec.template.spec.taints[0].effect");
    assert_eq!(
        d["range"]["start"],
        serde_json::json!({"line": 52, "column": 19})
    );
    assert_eq!(d["object"]["kind"], "NodePool");
}

/// A NodePool a Terraform file applies with `kubectl_manifest` or `kubernetes_manifest` is a
/// pool of the inventory and is linted where it is written; one whose taints are Terraform
/// expressions is neither read nor judged on them. The node group's instance types are all x86.
#[test]
fn nodepools_applied_as_terraform_manifests() {
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/iac/applied-nodepool.tf",
        "tests/fixtures/iac/applied-workloads.yaml",
    ]);
    let report = json(&out);
    // `team` writes its label `team` as an expression: a pod that selects it may fit there,
    // as on the node group, whose labels are not all declared.
    assert_eq!(
        fits(&report),
        [
            (
                "graviton".to_string(),
                pairs(&[("mng", "no"), ("default", "yes"), ("team", "no")])
            ),
            (
                "team-app".to_string(),
                pairs(&[("mng", "partial"), ("default", "no"), ("team", "partial")])
            ),
        ]
    );
    // Taints written with expressions, in a value or on a line of their own: not read, said.
    let stderr = String::from_utf8_lossy(&out.stderr);
    for pool in ["gpu", "tainted"] {
        assert!(
            stderr.contains(&format!(
                "pool `{pool}` is written with Terraform expressions"
            )),
            "{stderr}"
        );
    }
    let out = run(&[
        "lint",
        "--format",
        "json",
        "tests/fixtures/iac/applied-nodepool.tf",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    // The misspelled effect, where it is written; nothing of the expressions.
    assert_eq!(
        findings(&report, "path"),
        [(
            "unknown-effect",
            55,
            23,
            "spec.template.spec.taints[0].effect"
        )]
    );
    assert!(report["diagnostics"][0]["fixes"]
        .as_array()
        .is_none_or(Vec::is_empty));
}

/// NodePools installed as karpenter-resources chart values (aws-ia/eks-data-addons'
/// `karpenter_resources_helm_config`): read by the inventory as the chart renders them, their
/// taints linted where they are written; a pool written with expressions is said and not read.
#[test]
fn karpenter_resources_chart_values() {
    let file = "tests/fixtures/iac/karpenter-resources.tf";
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        file,
        "tests/fixtures/spread/workload.yaml",
    ]);
    let report = json(&out);
    let pools: Vec<(&str, &str)> = report["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["labels"]["NodeGroupType"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pools,
        [
            ("g5-gpu-karpenter", "g5-gpu-karpenter"),
            ("x86-cpu-karpenter", "x86-cpu-karpenter")
        ]
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("pool `team` is written with Terraform expressions"),
        "{stderr}"
    );
    let out = run(&["lint", "--format", "json", file]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let found = findings(&report, "path");
    // The misspelled effect where it is written; nothing of the expressions.
    assert_eq!(
        found,
        [("unknown-effect", 31, 21, "nodePool.taints[0].effect")]
    );
    let d = &report["diagnostics"][0];
    assert!(d["server_message"].is_null(), "{d}");
    assert!(d["fixes"].as_array().is_none_or(Vec::is_empty));
}

/// Each pool of a simulate JSON report as `name kind count: taints | startup taints`.
fn pool_lines(report: &Value) -> Vec<String> {
    let taints = |v: &Value| {
        v.as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let value = t["value"].as_str().unwrap_or("");
                let kv = if value.is_empty() {
                    t["key"].as_str().unwrap().to_string()
                } else {
                    format!("{}={value}", t["key"].as_str().unwrap())
                };
                format!("{kv}:{}", t["effect"].as_str().unwrap())
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let n = |v: &Value| v.as_u64().map_or("?".to_string(), |n| n.to_string());
    report["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{} {} {}..{}: {} | {}",
                p["name"].as_str().unwrap(),
                p["kind"].as_str().unwrap(),
                n(&p["count"]["min"]),
                n(&p["count"]["max"]),
                taints(&p["taints"]),
                taints(&p["startupTaints"]),
            )
        })
        .collect()
}

fn simulate(inventory: &str) -> Value {
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        inventory,
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    json(&out)
}

/// The first finding of `lint --format json` on `text` written to a file named `name`:
/// (rule, path, line, column, the text it points at).
fn first_finding(name: &str, text: &str) -> (String, String, u64, u64, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let out = run(&["lint", "--format", "json", path.to_str().unwrap()]);
    let report = json(&out);
    let d = &report["diagnostics"][0];
    let (line, column) = (
        d["range"]["start"]["line"].as_u64().unwrap(),
        d["range"]["start"]["column"].as_u64().unwrap(),
    );
    let end = d["range"]["end"]["column"].as_u64().unwrap();
    let pointed: String = text
        .lines()
        .nth(line as usize - 1)
        .unwrap()
        .chars()
        .skip(column as usize - 1)
        .take((end - column) as usize)
        .collect();
    (
        d["rule"].as_str().unwrap().to_string(),
        d["path"].as_str().unwrap_or("").to_string(),
        line,
        column,
        pointed,
    )
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/tests/fixtures/iac/{name}")).unwrap()
}

#[test]
fn kubeadm_configurations_as_inventory() {
    let report = simulate("tests/fixtures/iac/kubeadm.yaml");
    assert_eq!(
        pool_lines(&report),
        [
            // No `taints`: the control-plane taint; the KubeletConfiguration's taint goes to
            // every kubeadm node of the file.
            "cp-1 initconfiguration 1..1: node-role.kubernetes.io/control-plane:NoSchedule,\
             example.com/maintenance=false:PreferNoSchedule | ",
            // A worker: its kubelet's register-with-taints.
            "gpu-worker joinconfiguration ?..?: nvidia.com/gpu=present:NoSchedule,\
             example.com/dedicated=ml:NoExecute,example.com/maintenance=false:PreferNoSchedule | ",
        ]
    );
    let pools = &report["cluster"]["pools"];
    assert_eq!(
        pools[0]["labels"]["node-role.kubernetes.io/control-plane"],
        ""
    );
    assert_eq!(pools[1]["labels"]["example.com/pool"], "gpu");
    assert_eq!(pools[1]["source"]["line"], 19);
    // Map-form kubeletExtraArgs (v1beta3); `taints: []` is none, `taints: null` the default.
    let report = simulate("tests/fixtures/iac/kubeadm-v1beta3.yaml");
    assert_eq!(
        pool_lines(&report),
        [
            "single-node initconfiguration 1..1:  | ",
            "cp-2 joinconfiguration ?..?: example.com/etcd=true:NoSchedule,\
             node-role.kubernetes.io/control-plane:NoSchedule | ",
        ]
    );
    assert_eq!(
        report["cluster"]["pools"][0]["labels"]["example.com/role"],
        "all-in-one"
    );
    assert_eq!(
        fits(&report),
        [
            (
                "web".to_string(),
                pairs(&[("single-node", "yes"), ("cp-2", "no")])
            ),
            (
                "trainer".to_string(),
                pairs(&[("single-node", "yes"), ("cp-2", "no")])
            ),
        ]
    );
    // Taints inside a register-with-taints string are linted at their characters.
    let text = fixture("kubeadm.yaml").replace("ml:NoExecute", "ml:NoExecut");
    assert_eq!(
        first_finding("kubeadm.yaml", &text),
        (
            "unknown-effect".to_string(),
            "nodeRegistration.kubeletExtraArgs[1].value[1].effect".to_string(),
            32,
            74,
            "NoExecut".to_string()
        )
    );
    let text = fixture("kubeadm-v1beta3.yaml").replace("etcd=true", "etcd=tru e");
    assert_eq!(
        first_finding("kubeadm.yaml", &text),
        (
            "invalid-value".to_string(),
            "nodeRegistration.kubeletExtraArgs[register-with-taints][0].value".to_string(),
            20,
            45,
            "tru e".to_string()
        )
    );
}

#[test]
fn cluster_api_bootstrap_as_inventory() {
    let report = simulate("tests/fixtures/iac/capi-kubeadm.yaml");
    assert_eq!(
        pool_lines(&report),
        [
            "my-cluster-control-plane kubeadmcontrolplane 3..3: \
             node-role.kubernetes.io/control-plane:NoSchedule | ",
            // Cluster API's own uninitialized taint is a startup taint: it does not count.
            "my-cluster-md-gpu kubeadmconfigtemplate ?..?: nvidia.com/gpu=present:NoSchedule | \
             node.cluster.x-k8s.io/uninitialized:NoSchedule",
        ]
    );
    let pools = &report["cluster"]["pools"];
    // Of the machine template's labels, only the domains Cluster API syncs to the Node.
    assert_eq!(pools[0]["labels"]["node-role.kubernetes.io/infra"], "");
    assert!(pools[0]["labels"]["cluster.x-k8s.io/cluster-name"].is_null());
    assert_eq!(pools[1]["labels"]["example.com/accelerator"], "a100");
    assert_eq!(
        fits(&report),
        [
            (
                "web".to_string(),
                pairs(&[
                    ("my-cluster-control-plane", "no"),
                    ("my-cluster-md-gpu", "no")
                ])
            ),
            (
                "trainer".to_string(),
                pairs(&[
                    ("my-cluster-control-plane", "no"),
                    ("my-cluster-md-gpu", "yes")
                ])
            ),
        ]
    );
    let text = fixture("capi-kubeadm.yaml").replace("key: nvidia.com/gpu", "key: nvidia.com/gpu/x");
    assert_eq!(
        first_finding("capi.yaml", &text),
        (
            "invalid-key".to_string(),
            "spec.template.spec.joinConfiguration.nodeRegistration.taints[0].key".to_string(),
            43,
            20,
            "nvidia.com/gpu/x".to_string()
        )
    );
}

/// A v1beta2 KubeadmControlPlane's machine taints are its nodes' taints beside kubeadm's
/// default control-plane taint, and they follow Cluster API's rules, not a Node's; the kubeadm
/// taints beside them stay a Node's.
#[test]
fn cluster_api_control_plane_machine_taints() {
    let report = simulate("tests/fixtures/iac/capi-kcp-v1beta2.yaml");
    assert_eq!(
        pool_lines(&report),
        ["prod-control-plane kubeadmcontrolplane 3..3: \
          node-role.kubernetes.io/control-plane:NoSchedule,example.com/etcd=dedicated:NoSchedule | "]
    );
    let text = fixture("capi-kcp-v1beta2.yaml");
    let out = run(&["lint", "tests/fixtures/iac/capi-kcp-v1beta2.yaml"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(
        first_finding("kcp.yaml", &text.replace("value: dedicated", "value: \"\"")),
        (
            "platform-taint".to_string(),
            "spec.machineTemplate.spec.taints[0].value".to_string(),
            21,
            18,
            "\"\"".to_string()
        )
    );
    assert_eq!(
        first_finding(
            "kcp.yaml",
            &text.replace("propagation: Always", "propagaton: Always")
        )
        .0,
        "unknown-field"
    );
    // `node-role.kubernetes.io/master` is reserved in a machine template only.
    let master = text.replace("example.com/etcd", "node-role.kubernetes.io/master");
    assert!(run_on("kcp.yaml", &master).contains("platform-taint"));
    let registered = text.replace(
        "      nodeRegistration:\n",
        "      nodeRegistration:\n        taints: [{key: node-role.kubernetes.io/master, effect: NoSchedule}]\n",
    );
    let out = run_on("kcp.yaml", &registered);
    assert!(
        !out.contains("platform-taint"),
        "a kubeadm taint is a Node's: {out}"
    );
}

/// A `register-with-taints` written as a block scalar is read, its taints reported at the whole
/// value and never "fixed" there (a fix edits characters the finding cannot point at).
#[test]
fn register_with_taints_in_a_block_scalar() {
    let text = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\nnodeRegistration:\n  \
                name: gpu-worker\n  kubeletExtraArgs:\n  - name: register-with-taints\n    value: >-\n      \
                nvidia.com/gpu=present:NoSchedule,\n      example.com/dedicated=ml:noexecute\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("join.yaml");
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let report = json(&run(&["lint", "--format", "json", file]));
    let found = report["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["rule"], "unknown-effect");
    assert_eq!(
        found[0]["path"],
        "nodeRegistration.kubeletExtraArgs[0].value[1].effect"
    );
    assert_eq!(found[0]["range"]["start"]["line"], 8);
    assert_eq!(
        found[0]["fixes"].as_array().map_or(0, Vec::len),
        0,
        "{report}"
    );
    run(&["lint", "--fix", "--unsafe-fixes", file]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // The valid taint is the pool's; the invalid one is left out.
    let sim = json(&run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        file,
        "tests/fixtures/iac/iac-workloads.yaml",
    ]));
    assert_eq!(
        pool_lines(&sim),
        ["gpu-worker joinconfiguration ?..?: nvidia.com/gpu=present:NoSchedule | "]
    );
}

/// `lint` of `text` written to a file named `name`, in the concise format.
fn run_on(name: &str, text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let out = run(&["lint", "--format", "concise", path.to_str().unwrap()]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn eksctl_node_groups_as_inventory() {
    let report = simulate("tests/fixtures/iac/eksctl.yaml");
    assert_eq!(
        pool_lines(&report),
        [
            "ng1-public eksctl-nodegroup 2..8: your.domain.com/db=true:NoSchedule,\
             your.domain.com/production=true:NoExecute | ",
            "ng3-public eksctl-nodegroup 3..3:  | ",
            // The map form: `key: "value:Effect"` and `key: ":Effect"`.
            "gpu-spot eksctl-nodegroup 0..4: spotInstance=true:PreferNoSchedule,\
             nvidia.com/gpu:NoSchedule | ",
            "mng1-public eksctl-managednodegroup 2..2: \
             your.domain.com/memory-pressure=true:PreferNoSchedule,\
             your.domain.com/needs-auth=true:NoExecute | ",
        ]
    );
    let pools = &report["cluster"]["pools"];
    assert_eq!(pools[1]["labels"]["role"], "general");
    assert_eq!(
        pools[1]["labels"]["alpha.eksctl.io/cluster-name"],
        "taints-1"
    );
    assert_eq!(
        pools[3]["labels"]["eks.amazonaws.com/nodegroup"],
        "mng1-public"
    );
    assert_eq!(
        fits(&report),
        [
            (
                "web".to_string(),
                pairs(&[
                    ("ng1-public", "no"),
                    ("ng3-public", "yes"),
                    ("gpu-spot", "no"),
                    ("mng1-public", "no")
                ])
            ),
            (
                "trainer".to_string(),
                pairs(&[
                    ("ng1-public", "no"),
                    ("ng3-public", "yes"),
                    ("gpu-spot", "avoided"),
                    ("mng1-public", "no")
                ])
            ),
        ]
    );
    let text = fixture("eksctl.yaml").replace("\":NoSchedule\"", "\":NoSchedul\"");
    assert_eq!(
        first_finding("eksctl.yaml", &text),
        (
            "unknown-effect".to_string(),
            "nodeGroups[2].taints[1].effect".to_string(),
            38,
            25,
            "NoSchedul".to_string()
        )
    );
    let text = fixture("eksctl.yaml").replace(
        "effect: NoExecute\n  - name: ng3",
        "effect: noexecute\n  - name: ng3",
    );
    assert_eq!(
        first_finding("eksctl.yaml", &text).0,
        "unknown-effect".to_string()
    );
}

/// The body of Huawei Cloud CCE's "create a node pool" API, adapted from its reference
/// (https://support.huaweicloud.com/intl/en-us/api-cce/cce_02_0354.html, example request).
#[test]
fn cce_api_node_pool_as_inventory() {
    let report = simulate("tests/fixtures/iac/cce-nodepool.json");
    assert_eq!(
        pool_lines(&report),
        ["gpu-pool cce-nodepool 1..6: nvidia.com/gpu=present:NoSchedule | "]
    );
    let pool = &report["cluster"]["pools"][0];
    assert_eq!(pool["labels"]["accelerator"], "nvidia-v100");
    assert_eq!(pool["labels"]["cce.cloud.com/cce-nodepool"], "gpu-pool");
    assert_eq!(
        fits(&report),
        [
            ("web".to_string(), pairs(&[("gpu-pool", "no")])),
            ("trainer".to_string(), pairs(&[("gpu-pool", "yes")])),
        ]
    );
    let text = fixture("cce-nodepool.json").replace("\"NoSchedule\"", "\"NO_SCHEDULE\"");
    assert_eq!(
        first_finding("cce.json", &text),
        (
            "unknown-effect".to_string(),
            "spec.nodeTemplate.taints[0].effect".to_string(),
            18,
            65,
            "\"NO_SCHEDULE\"".to_string()
        )
    );
}

#[test]
fn kind_cluster_config_as_inventory() {
    let report = simulate("tests/fixtures/iac/kind.yaml");
    assert_eq!(
        pool_lines(&report),
        [
            "dev-control-plane kind-node 1..1: node-role.kubernetes.io/control-plane:NoSchedule | ",
            "dev-worker kind-node 1..1:  | ",
            // From the JoinConfiguration patch's register-with-taints.
            "dev-worker2 kind-node 1..1: nvidia.com/gpu=present:NoSchedule | ",
        ]
    );
    let pools = &report["cluster"]["pools"];
    assert_eq!(pools[1]["labels"]["tier"], "frontend");
    assert_eq!(pools[2]["labels"]["example.com/pool"], "gpu");
    assert_eq!(
        fits(&report),
        [
            (
                "web".to_string(),
                pairs(&[
                    ("dev-control-plane", "no"),
                    ("dev-worker", "yes"),
                    ("dev-worker2", "no")
                ])
            ),
            (
                "trainer".to_string(),
                pairs(&[
                    ("dev-control-plane", "no"),
                    ("dev-worker", "yes"),
                    ("dev-worker2", "yes")
                ])
            ),
        ]
    );
    // Taints inside a patch (a literal block) are linted where they are written.
    let text = fixture("kind.yaml").replace("present:NoSchedule", "present:NoSchedul");
    assert_eq!(
        first_finding("kind.yaml", &text),
        (
            "unknown-effect".to_string(),
            "nodes[2].kubeadmConfigPatches[0].nodeRegistration.kubeletExtraArgs\
             [register-with-taints][0].effect"
                .to_string(),
            20,
            55,
            "NoSchedul".to_string()
        )
    );
    let text = format!(
        "{}- role: worker\n  kubeadmConfigPatches:\n  - |\n    kind: JoinConfiguration\n    \
         nodeRegistration:\n      taints:\n        - key: example.com/x y\n          effect: \
         NoSchedule\n",
        fixture("kind.yaml")
    );
    assert_eq!(
        first_finding("kind.yaml", &text),
        (
            "invalid-key".to_string(),
            "nodes[3].kubeadmConfigPatches[0].nodeRegistration.taints[0].key".to_string(),
            27,
            16,
            "example.com/x y".to_string()
        )
    );
    // A cluster of one node: kind removes the control-plane taint.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kind.yaml");
    std::fs::write(&path, "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n").unwrap();
    let report = simulate(path.to_str().unwrap());
    assert_eq!(
        pool_lines(&report),
        ["kind-control-plane kind-node 1..1:  | "]
    );
}

#[test]
fn directories_as_inventory() {
    // Every inventory file the walk finds, in any mix (YAML, JSON, Terraform); the workloads
    // beside them are not inventory files and are left out.
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "eksctl.yaml",
        "cce-nodepool.json",
        "gke.tf",
        "iac-workloads.yaml",
    ] {
        std::fs::copy(format!("{ROOT}/tests/fixtures/iac/{f}"), dir.path().join(f)).unwrap();
    }
    std::fs::write(dir.path().join("variables.tf"), "variable \"x\" {}\n").unwrap();
    // Helm values kept as a Terraform template (`templatefile`) beside the node groups: it
    // mentions a node group label, and does not parse as YAML. It is left out, and said to be.
    std::fs::create_dir(dir.path().join("helm-values")).unwrap();
    std::fs::write(
        dir.path().join("helm-values/operator.yaml"),
        "controller:\n  nodeSelector:\n    NodeGroupType: core\n%{ if enable_ipv6 ~}\n  env: []\n%{ endif ~}\n",
    )
    .unwrap();
    let inventory = dir.path().to_str().unwrap();
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        inventory,
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr
            .matches("helm-values/operator.yaml:4:1: not valid YAML")
            .count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("left out of the directory's inventory"),
        "{stderr}"
    );
    let report = simulate(inventory);
    let kinds: Vec<&str> = report["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "cce-nodepool",
            "eksctl-nodegroup",
            "eksctl-nodegroup",
            "eksctl-nodegroup",
            "eksctl-managednodegroup",
            "google_container_node_pool",
            "google_container_node_pool",
        ]
    );
    // The configuration's `inventory:` may name a directory too.
    std::fs::write(dir.path().join(".taintlint.yaml"), "inventory: .\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(["simulate", "--format", "json", "iac-workloads.yaml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(json(&out)["cluster"]["pools"].as_array().unwrap().len(), 7);
    // A directory without one is an error that says so.
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(
        empty.path().join("web.yaml"),
        "kind: Pod\nmetadata: {name: x}\n",
    )
    .unwrap();
    // What `simulate` with the directory as its inventory says; it stops (exit 2).
    let refused = || {
        let out = run(&[
            "simulate",
            "--inventory",
            empty.path().to_str().unwrap(),
            "tests/fixtures/iac/iac-workloads.yaml",
        ]);
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = refused();
    assert!(
        stderr.contains("a directory with no inventory file"),
        "{stderr}"
    );
    assert!(!stderr.contains("Terraform"), "{stderr}");
    // Terraform that hands its pools to a module in variables (GoogleCloudPlatform/ai-on-gke's
    // infrastructure/main.tf: `cpu_pools = var.cpu_pools`) defines none taintlint reads: said.
    std::fs::write(
        empty.path().join("main.tf"),
        "module \"cluster\" {\n  source    = \"../modules/gke-standard-public-cluster\"\n  \
         cpu_pools = var.cpu_pools\n}\n",
    )
    .unwrap();
    let stderr = refused();
    assert!(
        stderr.contains(
            "a directory with no inventory file; an inventory is the output of `kubectl get \
             nodes -o yaml` (or -o json), Node documents, or a pool file (`pools:`), or node \
             pools defined as code; its Terraform defines no node pool written out (pools \
             handed to a module in variables are not evaluated: write them in a pool file)"
        ),
        "{stderr}"
    );
}

#[test]
fn node_counts_of_pools_as_code_are_never_guessed() {
    // ng3-public has 3 nodes, gpu-spot 0..4, mng1-public eksctl's default of 2 (it writes no
    // size: eksctl-io/eksctl pkg/apis/eksctl.io/v1alpha5/types.go `DefaultNodeCount`): what fits
    // is counted as the files declare it (or their tool's defaults), never as one node per pool.
    let out = run(&[
        "simulate",
        "--inventory",
        "tests/fixtures/iac/eksctl.yaml",
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  D  mng1-public  2 nodes"), "{text}");
    assert!(
        text.contains("Deployment web      ✗ ✓ ✗ ✗  3 nodes fit"),
        "{text}"
    );
    assert!(
        text.contains("Deployment trainer  ✗ ✓ ~ ✗  3..7 nodes fit"),
        "{text}"
    );
    let out = run(&[
        "simulate",
        "--inventory",
        "tests/fixtures/iac/capi-kubeadm.yaml",
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Deployment trainer  ✗ ✓  fits (count unknown)"),
        "{text}"
    );
}

#[test]
fn labels_a_pool_definition_does_not_declare_are_unknown() {
    // gke.tf's gpu-pool declares example.com/accelerator=nvidia (and GKE's node-pool label);
    // any other label may be set elsewhere (by GKE, the kubelet, a controller).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.yaml");
    let workload = |name: &str, selector: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  \
             template:\n    spec:\n      nodeSelector: {{{selector}}}\n      tolerations: \
             [{{operator: Exists}}]\n      containers: [{{name: c, image: i}}]\n---\n"
        )
    };
    // Required node affinity, one term per list of expressions.
    let affinity = |name: &str, terms: &[&str]| {
        let terms: Vec<String> = terms
            .iter()
            .map(|t| format!("{{matchExpressions: [{t}]}}"))
            .collect();
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  \
             template:\n    spec:\n      affinity: {{nodeAffinity: \
             {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{}]}}}}}}\n      \
             tolerations: [{{operator: Exists}}]\n      containers: [{{name: c, image: i}}]\n---\n",
            terms.join(", ")
        )
    };
    let zone = "{key: topology.kubernetes.io/zone, operator: In, values: [us-central1-a]}";
    let amd = "{key: example.com/accelerator, operator: In, values: [amd]}";
    let text = [
        // (Not GKE's Spot label: GKE sets it on every Spot pool, so a pool without it has none.)
        workload("team", "example.com/team: ml"),
        workload("amd", "example.com/accelerator: amd"),
        workload("nvidia", "example.com/accelerator: nvidia"),
        affinity("zonal", &[zone]),
        affinity("amd-affinity", &[amd]),
        affinity("amd-or-zonal", &[amd, zone]),
        affinity(
            "not-elsewhere",
            &["{key: example.com/elsewhere, operator: DoesNotExist}"],
        ),
    ]
    .concat();
    std::fs::write(&path, &text).unwrap();
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/iac/gke.tf",
        path.to_str().unwrap(),
    ]);
    let report = json(&out);
    let gpu = |w: usize| {
        let w = &report["workloads"][w];
        // The entry that stands for pool 0 (entries name the pools on which it fares the same).
        let pool = w["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| {
                p["pools"]
                    .as_array()
                    .unwrap()
                    .contains(&serde_json::json!(0))
            })
            .unwrap();
        let reasons: Vec<String> = pool["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| w["reasons"][i.as_u64().unwrap() as usize]["code"].to_string())
            .collect();
        (pool["fit"].as_str().unwrap().to_string(), reasons)
    };
    assert_eq!(report["cluster"]["pools"][0]["name"], "gpu-pool");
    // Not declared: it may fit, and says why.
    assert_eq!(
        gpu(0),
        ("partial".to_string(), vec!["\"label-unknown\"".to_string()])
    );
    // Declared with another value: it does not.
    assert_eq!(
        gpu(1),
        ("no".to_string(), vec!["\"node-selector\"".to_string()])
    );
    assert_eq!(gpu(2), ("yes".to_string(), vec![]));
    // Node affinity alike: an expression on an undeclared label may be met (the zone is set by
    // GKE on every node, the file cannot say which); one on a declared label is decided.
    assert_eq!(
        gpu(3),
        ("partial".to_string(), vec!["\"label-unknown\"".to_string()])
    );
    let zonal = &report["workloads"][3]["reasons"][0];
    assert_eq!(zonal["key"], "topology.kubernetes.io/zone");
    assert_eq!(
        zonal["expression"],
        "topology.kubernetes.io/zone In [us-central1-a]"
    );
    assert!(zonal["value"].is_null());
    assert_eq!(
        gpu(4),
        ("no".to_string(), vec!["\"node-affinity\"".to_string()])
    );
    // Terms are alternatives: the second may match.
    assert_eq!(
        gpu(5),
        ("partial".to_string(), vec!["\"label-unknown\"".to_string()])
    );
    // An undeclared label is taken as absent by the expressions that want it absent.
    assert_eq!(gpu(6), ("yes".to_string(), vec![]));
    // A workload that may fit is not reported as fitting no node (amd may fit the batch pool,
    // which does not declare the label).
    let lint = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        "tests/fixtures/iac/gke.tf",
        path.to_str().unwrap(),
    ]);
    let found = json(&lint);
    let rules: Vec<(&str, &str)> = found["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["object"]["name"].as_str().unwrap_or(""),
                d["rule"].as_str().unwrap(),
            )
        })
        .filter(|(_, r)| *r == "unschedulable")
        .collect();
    assert_eq!(rules, []);
}

/// Node groups written as an expression taintlint does not evaluate (`merge(local..., var...)`)
/// are not read, and the user is told where; a file with nothing else is refused (named on its
/// own) or left out (found in a directory), saying why.
#[test]
fn node_groups_taintlint_cannot_read_are_said() {
    let fixture = "tests/fixtures/iac/eks-merged-groups.tf";
    let expected = "tests/fixtures/iac/eks-merged-groups.tf:17:29: module.eks.eks_managed_node_groups \
         is `merge( local.default_node_groups, var.managed_node_groups, )`, an expression taintlint does not evaluate: the node groups it makes are \
         not read (write them in a pool file to simulate them)";
    // Beside a node group that is written out: that one is read, the others are said.
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        fixture,
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!("taintlint: warning: inventory {expected}"),
        "{stderr}"
    );
    let report = json(&out);
    let pools: Vec<&str> = report["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(pools, ["batch"], "{report}");
    // Only the expression: named on its own, the inventory is refused and says why.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/{fixture}")).unwrap();
    let merged_only = &text[..text.find("resource \"aws_eks_node_group\"").unwrap()];
    std::fs::write(dir.path().join("eks.tf"), merged_only).unwrap();
    let eks = dir.path().join("eks.tf");
    let out = run(&[
        "simulate",
        "--inventory",
        eks.to_str().unwrap(),
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(":17:29: holds no node group taintlint reads: module.eks.eks_managed_node_groups is `merge( local.default_node_groups"),
        "{stderr}"
    );
    // Found in a directory beside pools it reads: left out, and said to be.
    std::fs::copy(
        format!("{ROOT}/tests/fixtures/iac/gke.tf"),
        dir.path().join("gke.tf"),
    )
    .unwrap();
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        dir.path().to_str().unwrap(),
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("eks.tf:17:29: holds no node group taintlint reads")
            && stderr.contains("left out of the directory's inventory"),
        "{stderr}"
    );
    assert!(!json(&out)["cluster"]["pools"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn repeated_keys_of_an_object_are_read_as_terraform_reads_them() {
    // Terraform keeps the last item of a key an object repeats; the file is no syntax error.
    let fixture = "tests/fixtures/iac/eks-repeated-keys.tf";
    let out = run(&["lint", "--format", "json", fixture]);
    assert_eq!(out.status.code(), Some(0), "{}", json(&out));
    assert_eq!(json(&out)["diagnostics"], serde_json::json!([]));
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        fixture,
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let report = json(&out);
    let pool = &report["cluster"]["pools"][0];
    assert_eq!(report["cluster"]["pools"].as_array().unwrap().len(), 1);
    assert_eq!(pool["count"], serde_json::json!({"min": 4, "max": 5}));
    assert_eq!(
        pool["taints"],
        serde_json::json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NoExecute"}])
    );
    assert_eq!(pool["labels"]["nvidia.com/gpu.present"], "yes");
    // What is written stays where it is written: a finding in the item read is at its place.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/{fixture}")).unwrap();
    let bad = dir.path().join("eks.tf");
    std::fs::write(&bad, text.replace("\"NO_EXECUTE\"", "\"NO_EXECUT\"")).unwrap();
    let out = run(&["lint", "--format", "json", bad.to_str().unwrap()]);
    let d = &json(&out)["diagnostics"];
    assert_eq!(d.as_array().unwrap().len(), 1, "{d}");
    assert_eq!(d[0]["rule"], "unknown-effect");
    assert_eq!(
        d[0]["range"]["start"],
        serde_json::json!({"line": 32, "column": 21})
    );
}

#[test]
fn gke_pools_of_a_wrapping_module_are_read_and_linted() {
    // The file opens with a one-line block (`data "..." "default" {}`): it is HCL, not YAML;
    // its module's `node_pools` are pools, named as an inventory and found in a directory.
    let fixture = "tests/fixtures/iac/gke-wrapped-module.tf";
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        fixture,
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let report = json(&out);
    // The wrapped module keeps its cluster's untainted default pool unless told otherwise; the
    // wrapper does not say how many nodes it has.
    assert_eq!(
        fits(&report),
        [
            (
                "web".to_string(),
                pairs(&[
                    ("default-pool", "yes"),
                    ("pool-zookeeper", "yes"),
                    ("pool-kafka", "no")
                ])
            ),
            (
                "trainer".to_string(),
                pairs(&[
                    ("default-pool", "yes"),
                    ("pool-zookeeper", "yes"),
                    ("pool-kafka", "no")
                ])
            ),
        ]
    );
    let default = &report["cluster"]["pools"][0];
    assert_eq!(default["name"], "default-pool");
    assert_eq!(
        default["count"],
        serde_json::json!({"min": null, "max": null})
    );
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!("{ROOT}/{fixture}")).unwrap();
    std::fs::write(
        dir.path().join("main.tf"),
        text.replace("\"NO_SCHEDULE\"", "\"NO_SCHEDUL\""),
    )
    .unwrap();
    let out = run(&["lint", "--format", "json", dir.path().to_str().unwrap()]);
    let d = &json(&out)["diagnostics"];
    assert_eq!(d.as_array().unwrap().len(), 1, "{d}");
    assert_eq!(d[0]["rule"], "unknown-effect");
    assert_eq!(
        d[0]["range"]["start"],
        serde_json::json!({"line": 37, "column": 19})
    );
}

#[test]
fn terraform_beside_the_workloads_is_no_broken_yaml() {
    // A directory that keeps its node groups (eks.tf) beside its manifests, as
    // terraform-aws-eks-blueprints' patterns do: the Terraform file holds no pod template and
    // is not said to be invalid YAML.
    let dir = tempfile::tempdir().unwrap();
    // A `for` expression's ` : ` is what YAML cannot take (a file of blocks alone reads as
    // one long YAML scalar).
    let text = std::fs::read_to_string(format!("{ROOT}/tests/fixtures/iac/gke-wrapped-module.tf"))
        .unwrap()
        + "\nlocals {\n  tags = { for k, v in var.tags : k => v }\n}\n";
    std::fs::write(dir.path().join("main.tf"), text).unwrap();
    std::fs::copy(
        format!("{ROOT}/tests/fixtures/iac/iac-workloads.yaml"),
        dir.path().join("workloads.yaml"),
    )
    .unwrap();
    let out = run(&[
        "simulate",
        "--inventory",
        dir.path().join("main.tf").to_str().unwrap(),
        dir.path().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr, "", "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("2 workloads simulated: 2 fit, 0 fit no node."),
        "{stdout}"
    );
}

#[test]
fn taints_terraform_puts_on_no_node_are_said() {
    let fixture = "tests/fixtures/iac/taints-on-no-node.tf";
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        fixture,
        "tests/fixtures/iac/iac-workloads.yaml",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        warnings,
        [
            "taintlint: warning: inventory tests/fixtures/iac/taints-on-no-node.tf:11:15: \
             module.eks.eks_managed_node_groups.system.taint is not read by the module, which \
             reads `taints`: the taints written there are put on no node",
            "taintlint: warning: inventory tests/fixtures/iac/taints-on-no-node.tf:30:5: \
             module.gke.node_pools_taints.pool-redis names no pool of node_pools \
             (pool-postgres): its taints are put on no node",
        ],
        "{stderr}"
    );
    // The pools are as Terraform makes them: untainted, so the untolerating workload fits.
    let report = json(&out);
    let taints: Vec<&Value> = report["cluster"]["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["taints"])
        .collect();
    assert_eq!(taints, [&serde_json::json!([]), &serde_json::json!([])]);
    // lint says both without an inventory: at the names the modules do not read.
    let report = json(&run(&["lint", "--format", "json", fixture]));
    let found = findings(&report, "message");
    assert_eq!(
        found,
        [
            (
                "unknown-field",
                11,
                7,
                "unknown field `taint`: the module reads `taints`, and ignores this one: its \
                 taints are put on no node"
            ),
            (
                "unknown-field",
                30,
                5,
                "unknown field `pool-redis`: no pool of node_pools is named so (pool-postgres), \
                 and the module reads only `all` and the pools' names: its taints are put on no \
                 node"
            )
        ]
    );
}

/// The `platform-taint` findings of a file, as `lint --format json` gives them: path and words.
fn platform_findings(name: &str, text: &str) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let report = json(&run(&["lint", "--format", "json", path.to_str().unwrap()]));
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "platform-taint")
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// EKS counts a taint key's characters whole, prefix included (terraform-provider-aws
/// `StringLenBetween(1, 63)`), for the resource and the module's node groups alike.
#[test]
fn eks_counts_the_whole_key_in_both_forms() {
    let long = format!("example.com/{}", "k".repeat(52));
    let text = fixture("eks-aks.tf")
        .replace("\"CriticalAddonsOnly\"", &format!("\"{long}\""))
        .replace("\"example.com/spot\"", &format!("\"{long}\""));
    let words = "EKS takes taint keys of at most 63 characters in all, prefix included; this one \
                 has 64";
    assert_eq!(
        platform_findings("main.tf", &text),
        [
            (
                "aws_eks_node_group.system.taint[0].key".to_string(),
                words.to_string()
            ),
            (
                "module.eks.eks_managed_node_groups.spot.taints[0].key".to_string(),
                words.to_string()
            ),
        ]
    );
    // 63 characters are taken.
    let text = text.replace(&long, &long[1..]);
    assert_eq!(platform_findings("main.tf", &text), []);
}

/// Karpenter validates a NodePool's `taints` and `startupTaints` together for duplicates of key
/// and effect (pkg/apis/v1/nodeclaim_validation.go `validateTaintsField`), and a taint value as
/// a qualified name.
#[test]
fn karpenter_startup_taints_and_values() {
    let text = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  \
                template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: \
                EC2NodeClass, name: default}\n      requirements: []\n      taints:\n      - {key: \
                example.com/gpu, value: \"team a\", effect: NoSchedule}\n      - {key: \
                example.com/gpu, effect: NoExecute}\n      startupTaints:\n      - {key: \
                example.com/gpu, effect: NoExecute}\n      - {key: example.com/warming, effect: \
                NoSchedule}\n";
    assert_eq!(
        platform_findings("nodepool.yaml", text),
        [
            (
                "spec.template.spec.taints[0].value".to_string(),
                "Karpenter checks taint values as qualified names (like keys), and `team a` is \
                 not one: alphanumerics, `-`, `_` and `.`, starting and ending alphanumeric, with \
                 an optional DNS prefix and `/`"
                    .to_string()
            ),
            (
                "spec.template.spec.startupTaints[0]".to_string(),
                "Karpenter refuses a startup taint with the key `example.com/gpu` and effect \
                 NoExecute of one of the pool's taints (taints[1]): it checks both lists together \
                 for duplicates"
                    .to_string()
            ),
        ]
    );
}

/// An AKS cluster of Azure Verified Modules' managed cluster module: its default pool
/// (`systempool`, 3 nodes where not written) and its `agent_pools`, in the ARM API's names
/// (`count_of`, `scale_set_priority`, `os_type`), read as the azurerm resources' pools are; the
/// taints linted where they are written. Before, the module was no inventory.
#[test]
fn azure_verified_module_aks_pools() {
    let fixture = "tests/fixtures/iac/avm-aks.tf";
    let report = simulate(fixture);
    assert_eq!(
        pool_lines(&report),
        [
            "systempool azurerm_kubernetes_cluster 3..3: CriticalAddonsOnly=true:NoSchedule | ",
            // The misspelled taint is left out (and said); the Spot pool's own is AKS's.
            "gpu azurerm_kubernetes_cluster_node_pool 2..2: \
             kubernetes.azure.com/scalesetpriority=spot:NoSchedule | ",
            "win azurerm_kubernetes_cluster_node_pool 1..1:  | ",
        ]
    );
    let os: Vec<&str> = (report["cluster"]["pools"].as_array().unwrap().iter())
        .map(|p| p["labels"]["kubernetes.io/os"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(os, ["linux", "linux", "windows"]);
    let report = json(&run(&["lint", "--format", "json", fixture]));
    assert_eq!(
        findings(&report, "path"),
        [(
            "unknown-effect",
            23,
            38,
            "module.aks.agent_pools.gpu.node_taints[0].effect"
        )]
    );
}
