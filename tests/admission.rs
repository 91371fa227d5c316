//! Namespace toleration policy (PodTolerationRestriction) and RuntimeClass scheduling through the
//! binary: cluster objects from other linted files and from inventory files, the admission
//! configuration file, and placements that a namespace default or a RuntimeClass decides.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_taintlint");

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

const NAMESPACE: &str = r#"apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations:
    scheduler.alpha.kubernetes.io/defaultTolerations: '[{"key":"tenant","operator":"Equal","value":"shop","effect":"NoSchedule"}]'
    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{"key":"tenant","operator":"Equal","value":"shop","effect":"NoSchedule"},{"operator":"Exists","effect":"NoExecute"}]'
"#;

const RUNTIME_CLASS: &str = "apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
scheduling:
  nodeSelector: {sandbox: gvisor}
  tolerations:
  - {key: sandbox, operator: Equal, value: gvisor, effect: NoSchedule}
";

const NODES: &str = "pools:
  shop:
    nodes: [shop-1, shop-2]
    labels: {pool: shop}
    taints: [tenant=shop:NoSchedule]
  sandbox:
    nodes: [sandbox-1, sandbox-2, sandbox-3]
    labels: {sandbox: gvisor}
    taints: [sandbox=gvisor:NoSchedule]
";

/// Every workload kind, in namespace `shop`, with `extra` lines under its pod spec.
fn every_kind(extra: &str) -> String {
    let spec = |indent: usize| {
        let pad = " ".repeat(indent);
        let mut out = String::new();
        for line in extra.lines() {
            out.push_str(&format!("{pad}{line}\n"));
        }
        out.push_str(&format!("{pad}containers: [{{name: c, image: nginx}}]\n"));
        out
    };
    let mut docs = vec![format!(
        "kind: Pod\nmetadata: {{name: p, namespace: shop}}\nspec:\n{}",
        spec(2)
    )];
    for kind in [
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "ReplicaSet",
        "ReplicationController",
        "Job",
    ] {
        docs.push(format!(
            "kind: {kind}\nmetadata: {{name: w, namespace: shop}}\nspec:\n  template:\n    spec:\n{}",
            spec(6)
        ));
    }
    docs.push(format!(
        "kind: CronJob\nmetadata: {{name: c, namespace: shop}}\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n{}",
        spec(10)
    ));
    docs.push(format!(
        "kind: PodTemplate\nmetadata: {{name: t, namespace: shop}}\ntemplate:\n  spec:\n{}",
        spec(4)
    ));
    docs.join("---\n")
}

fn fits(json: &Value) -> Vec<(String, String)> {
    let name = |id: &Value| -> String {
        json["cluster"]["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == *id)
            .map_or("?".to_string(), |p| p["name"].as_str().unwrap().to_string())
    };
    json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let mut pools: Vec<String> = w["pools"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["fit"] == "yes")
                .flat_map(|p| p["pools"].as_array().unwrap())
                .map(name)
                .collect();
            pools.sort();
            (w["kind"].as_str().unwrap().to_string(), pools.join(","))
        })
        .collect()
}

#[test]
fn a_namespace_default_decides_the_placement_of_every_kind() {
    let dir = dir_with(&[
        ("ns.yaml", NAMESPACE),
        ("nodes.yaml", NODES),
        ("apps.yaml", &every_kind("")),
    ]);
    let args = [
        "simulate",
        "--inventory",
        "nodes.yaml",
        "--format",
        "json",
        "apps.yaml",
        "ns.yaml",
    ];
    // Without the plugin, nothing tolerates the shop pool's taint.
    let (code, out, _) = run(dir.path(), &args);
    assert_eq!(code, 1, "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    assert!(fits(&json).iter().all(|(_, p)| p.is_empty()), "{out}");
    // With it, the namespace's default toleration lets every pod onto the shop pool, except a
    // DaemonSet's: its controller picks nodes with the template's tolerations.
    let mut with = args.to_vec();
    with.extend(["--enable-admission-plugins", "PodTolerationRestriction"]);
    let (_, out, err) = run(dir.path(), &with);
    let json: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    for (kind, pools) in fits(&json) {
        let want = if kind == "DaemonSet" { "" } else { "shop" };
        assert_eq!(pools, want, "{kind}");
    }
}

#[test]
fn a_runtime_class_decides_the_placement_of_every_kind() {
    let dir = dir_with(&[
        ("nodes.yaml", NODES),
        ("classes.yaml", RUNTIME_CLASS),
        ("apps.yaml", &every_kind("runtimeClassName: gvisor")),
    ]);
    // The RuntimeClass comes from the inventory files here.
    let args = [
        "simulate",
        "--inventory",
        "nodes.yaml",
        "--inventory",
        "classes.yaml",
        "--format",
        "json",
        "apps.yaml",
    ];
    let (_, out, err) = run(dir.path(), &args);
    let json: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let got = fits(&json);
    assert_eq!(got.len(), 9);
    for (kind, pools) in got {
        let want = if kind == "DaemonSet" { "" } else { "sandbox" };
        assert_eq!(pools, want, "{kind}");
    }
}

#[test]
fn the_whitelist_rejects_with_the_namespace_from_another_file() {
    let pod = "kind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  tolerations:\n  - {key: gpu, operator: Exists, effect: NoSchedule}\n  containers: [{name: c, image: nginx}]\n";
    let dir = dir_with(&[("ns.yaml", NAMESPACE), ("pod.yaml", pod)]);
    let (code, out, _) = run(
        dir.path(),
        &["lint", "--format", "json", "pod.yaml", "ns.yaml"],
    );
    assert_eq!(code, 0, "off by default: {out}");
    let (code, out, _) = run(
        dir.path(),
        &[
            "lint",
            "--format",
            "json",
            "--enable-admission-plugins",
            "PodTolerationRestriction",
            "pod.yaml",
            "ns.yaml",
        ],
    );
    assert_eq!(code, 1, "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let d = &json["diagnostics"][0];
    assert_eq!(d["rule"], "admission-rejected");
    assert_eq!(d["path"], "spec.tolerations[0]");
    let message = d["message"].as_str().unwrap();
    assert!(message.starts_with("PodTolerationRestriction admission rejects Pod shop/p: toleration {key: gpu, operator: Exists, effect: NoSchedule} (tolerations[0]) is outside namespace shop's tolerationsWhitelist"), "{message}");
    assert_eq!(d["related"][0]["file"], "ns.yaml");
    // The place in the other file is positioned: at the whitelist annotation.
    assert_eq!(
        d["related"][0]["range"]["start"]["line"], 7,
        "{}",
        d["related"]
    );
}

#[test]
fn the_admission_configuration_file() {
    let config = "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  path: ptr.yaml\n";
    let ptr = "apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\nwhitelist:\n- {key: gpu, operator: Exists}\n";
    let pod = "kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - {key: spot, operator: Exists, effect: NoSchedule}\n  containers: [{name: c, image: nginx}]\n";
    let dir = dir_with(&[
        ("admission.yaml", config),
        ("ptr.yaml", ptr),
        ("pod.yaml", pod),
    ]);
    let args = [
        "lint",
        "--format",
        "json",
        "--enable-admission-plugins",
        "PodTolerationRestriction",
        "--admission-control-config-file",
        "admission.yaml",
        "pod.yaml",
    ];
    let (code, out, err) = run(dir.path(), &args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("is outside the cluster's whitelist"), "{out}");
    // An invalid file stops the run, as it would stop kube-apiserver.
    std::fs::write(
        dir.path().join("ptr.yaml"),
        "kind: Configuration\nwhitelist: [{key: gpu, effect: Never}]\n",
    )
    .unwrap();
    let (code, _, err) = run(dir.path(), &args);
    assert_eq!(code, 2);
    assert!(err.contains("--admission-control-config-file admission.yaml: PodTolerationRestriction configuration ptr.yaml: whitelist[0]: not a valid toleration"), "{err}");
    std::fs::remove_file(dir.path().join("ptr.yaml")).unwrap();
    let (code, _, err) = run(dir.path(), &args);
    assert_eq!(code, 2);
    assert!(err.contains("ptr.yaml: no such file"), "{err}");
}

#[test]
fn a_pod_whose_tolerations_annotation_is_invalid_is_rejected_in_simulate() {
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata:\n      annotations:\n        scheduler.alpha.kubernetes.io/tolerations: '[{\"key\": \"tenant\", \"operator\": \"exists\"}]'\n    spec:\n      containers: [{name: c, image: nginx}]\n";
    let dir = dir_with(&[("nodes.yaml", NODES), ("web.yaml", deployment)]);
    let args = [
        "simulate",
        "--inventory",
        "nodes.yaml",
        "--format",
        "json",
        "web.yaml",
    ];
    let (_, out, err) = run(dir.path(), &args);
    let json: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let w = &json["workloads"][0];
    assert_eq!(w["rejected"]["rule"], "unknown-operator", "{w}");
    assert_eq!(
        w["rejected"]["path"],
        "spec.template.metadata.annotations[scheduler.alpha.kubernetes.io/tolerations][0].operator"
    );
}

#[test]
fn a_malformed_namespace_annotation_is_an_error_at_its_character() {
    let ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations:\n    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{\"key\": \"a\",}]'\n";
    let pod = "kind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers: [{name: c, image: nginx}]\n";
    let dir = dir_with(&[("ns.yaml", ns), ("pod.yaml", pod)]);
    let (code, out, _) = run(
        dir.path(),
        &[
            "lint",
            "--format",
            "json",
            "--enable-admission-plugins",
            "PodTolerationRestriction",
            "ns.yaml",
            "pod.yaml",
        ],
    );
    assert_eq!(code, 1, "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let rules: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    // The annotation itself, and the namespace's pod that the plugin then refuses.
    assert_eq!(
        rules,
        ["invalid-toleration-annotation", "admission-rejected"]
    );
    let d = &json["diagnostics"][0];
    assert_eq!(d["file"], "ns.yaml");
    // `}` after the trailing comma: line 6, the 71st character.
    assert_eq!(d["range"]["start"]["line"], 6);
    assert_eq!(d["range"]["start"]["column"], 71);
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("PodTolerationRestriction refuses every pod of shop"));
}

#[test]
fn the_configuration_file_configures_the_plugin() {
    let config = "admission-plugins:\n  enable: [PodTolerationRestriction]\nadmission:\n  clusterTolerationWhitelist: [{key: gpu, operator: Exists}]\n";
    let pod = "kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - {key: spot, operator: Exists, effect: NoSchedule}\n  containers: [{name: c, image: nginx}]\n";
    let dir = dir_with(&[(".taintlint.yaml", config), ("pod.yaml", pod)]);
    let (code, out, err) = run(dir.path(), &["lint", "--format", "json", "pod.yaml"]);
    assert_eq!(code, 1, "{out}{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let d = &json["diagnostics"][0];
    assert_eq!(d["rule"], "admission-rejected");
    assert!(d["message"]
        .as_str()
        .unwrap()
        .contains("is outside the cluster's whitelist"));

    // By path, to an AdmissionConfiguration; a missing or invalid one is exit 2.
    let config = "admission-plugins:\n  enable: [PodTolerationRestriction]\nadmission:\n  admissionControlConfigFile: admission.yaml\n";
    let dir = dir_with(&[(".taintlint.yaml", config), ("pod.yaml", pod)]);
    let (code, out, err) = run(dir.path(), &["lint", "pod.yaml"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(".taintlint.yaml:4:31: admission.admissionControlConfigFile")
            && err.contains("admission.yaml: no such file"),
        "{err}"
    );
    std::fs::write(dir.path().join("admission.yaml"), "kind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  configuration:\n    whitelist: [{key: spot, operator: Exists, effect: NoSchedule}, {operator: Exists, effect: NoExecute}]\n").unwrap();
    let (code, out, err) = run(dir.path(), &["lint", "pod.yaml"]);
    assert_eq!(code, 0, "{out}{err}");
    std::fs::write(
        dir.path().join("admission.yaml"),
        "kind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  configuration:\n    whitelist: {key: spot}\n",
    )
    .unwrap();
    let (code, _, err) = run(dir.path(), &["lint", "pod.yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("whitelist is not a list of tolerations"),
        "{err}"
    );
}

#[test]
fn the_repository_policy_without_the_plugin() {
    let config = "policy:\n  clusterTolerationWhitelist: [{operator: Exists, effect: NoExecute}]\n  namespaces:\n    shop:\n      tolerationsWhitelist:\n      - {key: tenant, operator: Equal, value: shop, effect: NoSchedule}\n      - {operator: Exists, effect: NoExecute}\n";
    let pods = "kind: Pod\nmetadata: {name: ok, namespace: shop}\nspec:\n  tolerations: [{key: tenant, operator: Equal, value: shop, effect: NoSchedule}]\n  containers: [{name: c, image: nginx}]\n---\nkind: Pod\nmetadata: {name: gpu, namespace: shop}\nspec:\n  tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]\n  containers: [{name: c, image: nginx}]\n---\nkind: Pod\nmetadata: {name: elsewhere}\nspec:\n  tolerations: [{key: tenant, operator: Equal, value: shop, effect: NoSchedule}]\n  containers: [{name: c, image: nginx}]\n";
    let dir = dir_with(&[
        (".taintlint.yaml", config),
        ("pods.yaml", pods),
        ("nodes.yaml", NODES),
    ]);
    let (code, out, err) = run(dir.path(), &["lint", "--format", "json", "pods.yaml"]);
    assert_eq!(code, 1, "{out}{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let found: Vec<(&str, &str)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["object"]["name"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].0, "gpu");
    assert!(
        found[0].1.starts_with("policy (.taintlint.yaml, not the API server) rejects Pod shop/gpu: toleration {key: gpu, operator: Exists, effect: NoSchedule} (tolerations[0]) is outside namespace shop's whitelist"),
        "{}",
        found[0].1
    );
    assert_eq!(found[1].0, "elsewhere");
    assert!(
        found[1].1.contains("is outside the cluster-wide whitelist"),
        "{}",
        found[1].1
    );
    // Not the API server's: no server message, and simulate does not call the pods rejected.
    assert!(json["diagnostics"][0]["server_message"].is_null());
    let (_, out, _) = run(
        dir.path(),
        &[
            "simulate",
            "--inventory",
            "nodes.yaml",
            "--format",
            "json",
            "pods.yaml",
        ],
    );
    let json: Value = serde_json::from_str(&out).unwrap();
    for w in json["workloads"].as_array().unwrap() {
        assert!(w.get("rejected").is_none_or(Value::is_null), "{w}");
    }
}

/// Where a toleration that places a workload came from: simulate's JSON v2 says it per pool.
#[test]
fn simulate_says_where_a_placing_toleration_came_from() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args = [
        "simulate",
        "--enable-admission-plugins",
        "PodTolerationRestriction",
        "--inventory",
        "docs/examples/admission/nodes.yaml",
        "--inventory",
        "docs/examples/admission/cluster.yaml",
        "--format",
        "json",
        "docs/examples/admission/apps.yaml",
    ];
    let (_, out, err) = run(root, &args);
    let json: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let workload = |name: &str| {
        json["workloads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap()
            .clone()
    };
    // A workload's entry for the pool with this id (pools with the same verdict share one).
    let entry = |w: &Value, id: u64| {
        w["pools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pools"].as_array().unwrap().contains(&Value::from(id)))
            .unwrap()
            .clone()
    };
    // web: the shop pool (0) only by the namespace's default toleration.
    let web = workload("web");
    let shop = &entry(&web, 0);
    assert_eq!(shop["fit"], "yes");
    assert_eq!(shop["tolerated"][0]["taint"], 0);
    assert_eq!(
        shop["tolerated"][0]["source"],
        serde_json::json!({"code": "namespace-default", "namespace": "shop", "index": 0})
    );
    // checkout: the sandbox pool (1) by its RuntimeClass's toleration.
    let checkout = workload("checkout");
    let sandbox = &entry(&checkout, 1);
    assert_eq!(sandbox["fit"], "yes");
    assert_eq!(
        sandbox["tolerated"][0]["source"],
        serde_json::json!({"code": "runtime-class", "runtimeClass": "gvisor", "index": 0})
    );
    // No entry where nothing from outside the manifest is needed.
    assert!(entry(&web, 2).get("tolerated").is_none());
}

#[test]
fn unschedulable_says_which_taints_a_runtime_class_gets_it_past() {
    let pod = "kind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\nscheduling:\n  tolerations: [{key: sandbox, operator: Equal, value: gvisor, effect: NoSchedule}]\n---\nkind: Pod\nmetadata: {name: p}\nspec:\n  runtimeClassName: gvisor\n  nodeSelector: {sandbox: gvisor, pool: shop}\n  containers: [{name: c, image: i}]\n";
    let dir = dir_with(&[("nodes.yaml", NODES), ("pod.yaml", pod)]);
    let (code, out, _) = run(
        dir.path(),
        &[
            "lint",
            "--format",
            "json",
            "--inventory",
            "nodes.yaml",
            "pod.yaml",
        ],
    );
    assert_eq!(code, 1, "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let d = &json["diagnostics"][0];
    assert_eq!(d["rule"], "unschedulable");
    let related: Vec<&str> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert!(
        related.iter().any(|m| m.ends_with(
            "tolerates sandbox=gvisor:NoSchedule by a toleration RuntimeClass gvisor adds (scheduling.tolerations[0])"
        )),
        "{related:#?}"
    );
}

/// The words and places of PodTolerationRestriction's refusals: a toleration outside the
/// whitelist that RuntimeClass added is found only by the check after every plugin, and says
/// so (one DefaultTolerationSeconds added is found before, and does not); a namespace annotation
/// that does not decode is the related place, the default tolerations' or the whitelist's.
#[test]
fn the_refusals_say_which_check_found_them_and_point_at_the_annotation() {
    let ns = |name: &str, annotations: &str| {
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  annotations:\n{annotations}---\n")
    };
    let whitelist =
        |list: &str| format!("    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '{list}'\n");
    let tenant = r#"[{"key":"tenant","operator":"Exists"}]"#;
    let namespaces = [
        ns("b", &whitelist(tenant)),
        ns(
            "c",
            &format!(
                "    scheduler.alpha.kubernetes.io/defaultTolerations: 'not json'\n{}",
                whitelist(tenant)
            ),
        ),
        ns(
            "d",
            &whitelist(r#"[{"key":"tenant","operator":"Exists"},{"operator":"Exists","effect":"NoExecute"}]"#),
        ),
    ]
    .concat();
    let namespaces = format!("{namespaces}{RUNTIME_CLASS}");
    let pod = |ns: &str, class: &str| {
        format!("kind: Pod\nmetadata: {{name: p, namespace: {ns}}}\nspec:\n{class}  containers: [{{name: c, image: nginx}}]\n")
    };
    let class = "  runtimeClassName: gvisor\n";
    let pods = [pod("b", class), pod("c", ""), pod("d", class)].join("---\n");
    let dir = dir_with(&[("ns.yaml", &namespaces), ("pods.yaml", &pods)]);
    let (code, out, _) = run(
        dir.path(),
        &[
            "lint",
            "--format",
            "json",
            "--enable-admission-plugins",
            "PodTolerationRestriction",
            "ns.yaml",
            "pods.yaml",
        ],
    );
    assert_eq!(code, 1, "{out}");
    let json: Value = serde_json::from_str(&out).unwrap();
    let refusal = |ns: &str| {
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| {
                d["rule"] == "admission-rejected"
                    && d["message"]
                        .as_str()
                        .unwrap()
                        .contains(&format!("Pod {ns}/p"))
            })
            .unwrap_or_else(|| panic!("no refusal of {ns}/p: {out}"))
    };
    let after = ", checked after every plugin added its tolerations";
    let b = refusal("b")["message"].as_str().unwrap();
    assert!(
        b.contains("(added by the DefaultTolerationSeconds admission plugin)")
            && !b.contains(after),
        "{b}"
    );
    let d = refusal("d")["message"].as_str().unwrap();
    assert!(d.contains("sandbox") && d.ends_with(after), "{d}");
    let c = refusal("c");
    let line = |text: &str, what: &str| text.lines().position(|l| l.contains(what)).unwrap() + 1;
    assert_eq!(c["related"][0]["file"], "ns.yaml", "{c}");
    assert_eq!(
        c["related"][0]["range"]["start"]["line"],
        line(&namespaces, "defaultTolerations: 'not json'"),
        "{c}"
    );
    assert_eq!(
        c["related"][0]["message"],
        "scheduler.alpha.kubernetes.io/defaultTolerations of namespace c"
    );
}
