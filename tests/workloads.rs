//! Workloads wherever repositories declare them: custom resources with pod templates or pod
//! fields, chart values (with and without the chart's templates), Flux HelmRelease and Argo CD
//! Application values; and what `simulate` says of files it could not read.

use std::path::Path;
use std::process::{Command, Output};
use taintlint::analysis::{check, check_streamed, simulate, Ask, Simulated};

use serde_json::Value;
use taintlint::inventory::Inventory;
use taintlint::{ChartKinds, Options};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const DIR: &str = "tests/fixtures/workloads";

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(DIR).join(path)).unwrap()
}

fn inventory() -> Inventory {
    Inventory::load(&[("inventory.yaml", &read("inventory.yaml"))]).unwrap()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(Path::new(ROOT).join(DIR))
        .env_remove("COLUMNS")
        .output()
        .expect("the binary runs")
}

/// Per workload: its kind, name, pod spec path and the pools it fits (by name).
fn placed(text: &str, options: &Options) -> Vec<(String, String, String, Vec<String>)> {
    let inv = inventory();
    simulate(text, options, &inv)
        .workloads
        .into_iter()
        .map(|w| {
            let pools = w
                .simulation
                .pools
                .iter()
                .zip(&inv.pools)
                .filter(|(v, p)| v.fitting(p) > 0)
                .map(|(_, p)| p.name.clone())
                .collect();
            (
                w.kind.unwrap_or_else(|| "?".into()),
                w.name.unwrap_or_default(),
                w.path,
                pools,
            )
        })
        .collect()
}

fn row(
    kind: &str,
    name: &str,
    path: &str,
    pools: &[&str],
) -> (String, String, String, Vec<String>) {
    (
        kind.into(),
        name.into(),
        path.into(),
        pools.iter().map(|p| p.to_string()).collect(),
    )
}

#[test]
fn custom_resources_hold_workloads_at_their_paths() {
    let got = placed(&read("custom-resources.yaml"), &Options::default());
    let want = vec![
        row("Prometheus", "k8s", "spec", &["monitoring"]),
        // The Alertmanager's toleration is invalid: it tolerates nothing.
        row("Alertmanager", "main", "spec", &[]),
        row(
            "Rollout",
            "rollouts-demo",
            "spec.template.spec",
            &["general"],
        ),
        row(
            "JobSet",
            "paralleljobs",
            "spec.replicatedJobs[0].template.spec.template.spec",
            &["gpu"],
        ),
        row(
            "JobSet",
            "paralleljobs",
            "spec.replicatedJobs[1].template.spec.template.spec",
            &[],
        ),
        row(
            "LeaderWorkerSet",
            "leaderworkerset-sample",
            "spec.leaderWorkerTemplate.leaderTemplate.spec",
            &["general"],
        ),
        row(
            "LeaderWorkerSet",
            "leaderworkerset-sample",
            "spec.leaderWorkerTemplate.workerTemplate.spec",
            &["gpu"],
        ),
        row(
            "RayCluster",
            "raycluster-gpu",
            "spec.headGroupSpec.template.spec",
            &["general"],
        ),
        row(
            "RayCluster",
            "raycluster-gpu",
            "spec.workerGroupSpecs[0].template.spec",
            &[],
        ),
        row(
            "RayJob",
            "rayjob-sample",
            "spec.rayClusterSpec.headGroupSpec.template.spec",
            &["general"],
        ),
        row(
            "RayJob",
            "rayjob-sample",
            "spec.rayClusterSpec.workerGroupSpecs[0].template.spec",
            &["general"],
        ),
        row(
            "RayJob",
            "rayjob-sample",
            "spec.submitterPodTemplate.spec",
            &["general"],
        ),
        row(
            "RayService",
            "rayservice-sample",
            "spec.rayClusterConfig.headGroupSpec.template.spec",
            &["general"],
        ),
        row(
            "RayService",
            "rayservice-sample",
            "spec.rayClusterConfig.workerGroupSpecs[0].template.spec",
            &["gpu"],
        ),
        row(
            "PyTorchJob",
            "pytorch-simple",
            "spec.pytorchReplicaSpecs.Master.template.spec",
            &["general"],
        ),
        row(
            "PyTorchJob",
            "pytorch-simple",
            "spec.pytorchReplicaSpecs.Worker.template.spec",
            &["gpu"],
        ),
        // Volcano's Job, not batch/v1's: its pod templates are its tasks'.
        row("Job", "test-job", "spec.tasks[0].template.spec", &[]),
        row("InferenceService", "torchserve", "spec.predictor", &["gpu"]),
    ];
    assert_eq!(got, want);
}

#[test]
fn a_custom_resources_findings_keep_their_paths_and_come_once() {
    let inv = inventory();
    let found = check(
        &read("custom-resources.yaml"),
        Ask::new(&Options::default(), Some(&inv)),
    )
    .diagnostics;
    let at = |rule: &str| -> Vec<String> {
        found
            .iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.path.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(at("unknown-effect"), vec!["spec.tolerations[0].effect"]);
    // Each pod template that fits no node is reported once, at its place.
    assert_eq!(
        at("unschedulable"),
        vec![
            "spec.tolerations",
            "spec.replicatedJobs[1].template.spec.template.spec",
            "spec.workerGroupSpecs[0].template.spec",
            "spec.tasks[0].template.spec",
        ]
    );
    let messages: Vec<&str> = found
        .iter()
        .filter(|d| d.rule == "unschedulable")
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages[1].starts_with("JobSet paralleljobs, replicated job driver fits no node"),
        "{messages:?}"
    );
}

const CHART_VALUES: &str = "chart/values.yaml";

#[test]
fn chart_values_are_the_workloads_their_templates_render() {
    let templates: Vec<(String, String)> = [
        "controller-deployment.yaml",
        "agent-daemonset.yaml",
        "_helpers.tpl",
    ]
    .iter()
    .map(|f| (f.to_string(), read(&format!("chart/templates/{f}"))))
    .collect();
    let kinds = ChartKinds::from_templates(templates.iter().map(|(n, t)| (n.as_str(), t.as_str())));
    let mut options = Options::default();
    options.set_chart_kinds(Some(std::sync::Arc::new(kinds)));
    let got = placed(&read(CHART_VALUES), &options);
    assert_eq!(
        got,
        vec![
            row("Deployment", "", "controller", &[]),
            row("DaemonSet", "", "agent", &["gpu"]),
            // No template of the chart renders `backup`: its shape says it is a workload.
            row("?", "", "backup", &[]),
        ]
    );
    // Without the templates, each is a workload of unknown kind.
    let got = placed(&read(CHART_VALUES), &Options::default());
    let kinds: Vec<&str> = got.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(kinds, vec!["?", "?", "?"]);
}

/// Values that render no workload of their own: Helm's `global` (shared with every subchart,
/// as longhorn's chart/values.yaml `global.tolerations` is), and components these values switch
/// off (`enabled: false`, as longhorn's `global.cattle.windowsCluster`; `enable: false`, as
/// node-feature-discovery's `topologyUpdater`), with the chart's templates at hand or not.
#[test]
fn global_and_switched_off_values_are_no_workloads() {
    let values = "global:
  tolerations: [{key: global, operator: Exists}]
  nodeSelector: {kubernetes.io/os: linux}
  cattle:
    windowsCluster:
      enabled: false
      tolerations: [{key: cattle.io/os, operator: Equal, value: linux, effect: NoSchedule}]
      nodeSelector: {kubernetes.io/os: windows}
agent:
  enable: false
  tolerations: [{key: agent, operator: Exists}]
  nodeSelector: {kubernetes.io/os: linux}
server:
  enabled: true
  tolerations: [{key: server, operator: Exists}]
  nodeSelector: {kubernetes.io/os: linux}
";
    let paths = |options: &Options| -> Vec<String> {
        placed(values, options).into_iter().map(|r| r.2).collect()
    };
    assert_eq!(paths(&Options::default()), ["server"]);
    let template = "apiVersion: apps/v1
kind: DaemonSet
spec:
  template:
    spec:
      tolerations: {{ toYaml .Values.agent.tolerations | nindent 8 }}
";
    let kinds = ChartKinds::from_templates([("templates/agent.yaml", template)]);
    let mut options = Options::default();
    options.set_chart_kinds(Some(std::sync::Arc::new(kinds)));
    assert_eq!(paths(&options), ["server"]);
    // What the values switch off is said, not what is global.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("values.yaml");
    std::fs::write(&file, values).unwrap();
    let out = run(&[
        "simulate",
        "--inventory",
        "sized-inventory.yaml",
        file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "1 part that would make pods not simulated: chart values at agent: switched off \
             (`enable: false`), the chart renders none"
        ),
        "{err}"
    );
}

#[test]
fn a_daemonsets_values_get_the_daemonset_tolerations() {
    // A node that is cordoned takes DaemonSet pods (the DaemonSet controller tolerates
    // `node.kubernetes.io/unschedulable`), not a Deployment's.
    let inventory = "pools:\n  cordoned:\n    count: 1\n    unschedulable: true\n";
    let inv = Inventory::load(&[("cordoned.yaml", inventory)]).unwrap();
    let values = "agent:\n  nodeSelector: {}\n  tolerations: []\n";
    let fits = |kind: &'static str| {
        let mut options = Options::default();
        options.set_chart_kinds(Some(std::sync::Arc::new(ChartKinds {
            workloads: vec![("agent".into(), Some(kind))],
        })));
        simulate(values, &options, &inv).workloads[0]
            .simulation
            .fits_anywhere()
    };
    assert!(fits("DaemonSet"));
    assert!(!fits("Deployment"));
}

#[test]
fn the_cli_reads_a_charts_templates_beside_its_values() {
    let out = run(&[
        "simulate",
        "--format",
        "json",
        "--inventory",
        "inventory.yaml",
        CHART_VALUES,
    ]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<(Value, Value)> = json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["kind"].clone(), w["path"].clone()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("Deployment".into(), "controller".into()),
            ("DaemonSet".into(), "agent".into()),
            (Value::Null, "backup".into()),
        ]
    );
    // lint reads them too: the controller fits no node, and the message names it.
    let out = run(&[
        "lint",
        "--format",
        "json",
        "--inventory",
        "inventory.yaml",
        CHART_VALUES,
    ]);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unschedulable: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "unschedulable")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(unschedulable.len(), 2, "{unschedulable:?}");
    assert!(
        unschedulable[0].starts_with("Deployment `controller` fits no node"),
        "{unschedulable:?}"
    );
    assert!(
        unschedulable[1].starts_with("workload of unknown kind `backup` fits no node"),
        "{unschedulable:?}"
    );
}

#[test]
fn helmrelease_and_argo_cd_values_are_workloads_of_unknown_kind() {
    let got = placed(&read("helmrelease.yaml"), &Options::default());
    assert_eq!(
        got,
        vec![
            row(
                "HelmRelease",
                "ingress-nginx",
                "spec.values.controller",
                &[]
            ),
            // `kubernetes.io/os: linux`: the kubelet sets the label on every node, and the
            // inventory does not say its value, so it may fit (the pool it tolerates too).
            row(
                "HelmRelease",
                "ingress-nginx",
                "spec.values.controller.admissionWebhooks.patch",
                &["general", "monitoring"]
            ),
        ]
    );
    let inv = inventory();
    let results = simulate(&read("helmrelease.yaml"), &Options::default(), &inv).workloads;
    // The chart is installed in the HelmRelease's namespace.
    assert_eq!(results[0].namespace.as_deref(), Some("ingress-nginx"));
    // Named after the HelmRelease that installs the chart, by the values' key.
    assert_eq!(
        results[0].title(),
        "HelmRelease ingress-nginx/ingress-nginx, values `controller`"
    );

    let got = placed(&read("argocd-application.yaml"), &Options::default());
    assert_eq!(
        got,
        vec![row(
            "Application",
            "dcgm-exporter",
            "spec.sources[0].helm.valuesObject",
            &[]
        )]
    );
    // The values themselves are the workload: named after the Application, installed in its
    // destination's namespace.
    let results = simulate(&read("argocd-application.yaml"), &Options::default(), &inv).workloads;
    assert_eq!(
        results[0].title(),
        "Application argocd/dcgm-exporter, values"
    );
    // Its tolerations list is a pod spec's, linted once.
    let found = check(
        &read("argocd-application.yaml"),
        Ask::new(&Options::default(), Some(&inv)),
    )
    .diagnostics;
    let paths: Vec<_> = found.iter().map(|d| (d.rule, d.path.clone())).collect();
    assert_eq!(
        paths,
        vec![(
            "unschedulable",
            Some("spec.sources[0].helm.valuesObject.tolerations".to_string())
        )]
    );
}

#[test]
fn simulate_says_what_it_could_not_read() {
    let out = run(&[
        "simulate",
        "--inventory",
        "inventory.yaml",
        "chart/templates/agent-daemonset.yaml",
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "1 file not all simulated, Go or Helm templates or placeholders (not YAML until \
             rendered or filled in): chart/templates/agent-daemonset.yaml"
        ),
        "{err}"
    );
    assert!(!err.contains("no pod template found"), "{err}");
    assert_eq!(out.status.code(), Some(0));

    let out = run(&[
        "simulate",
        "--inventory",
        "inventory.yaml",
        "inventory.yaml",
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no pod template found in 1 file:"), "{err}");

    let out = run(&[
        "simulate",
        "--inventory",
        "inventory.yaml",
        "custom-resources.yaml",
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("no pod template"), "{err}");
}

#[test]
fn the_manual_lists_every_custom_resource() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("docs/cli.md")).unwrap();
    for row in taintlint::k8s::workloads::CUSTOM_WORKLOADS {
        let line = readme
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", row.group)))
            .unwrap_or_else(|| panic!("docs/cli.md's table lacks {}", row.group));
        for kind in row.kinds {
            assert!(
                line.contains(kind),
                "docs/cli.md's table lacks {} {kind}",
                row.group
            );
        }
    }
}

#[test]
fn the_editor_places_each_template_where_it_is() {
    // The lenses and hints come from the placements the analysis keeps.
    let inv = inventory();
    let text = read("custom-resources.yaml");
    let analysis = check(&text, Ask::new(&Options::default(), Some(&inv)).placed());
    assert_eq!(analysis.placements.len(), 18);
    let ray: Vec<(&str, &str)> = analysis
        .placements
        .iter()
        .filter(|p| p.title.starts_with("RayJob"))
        .map(|p| {
            (
                p.title.as_str(),
                text[p.anchor.clone()].split(':').next().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ray,
        vec![
            ("RayJob rayjob-sample, head group", "containers"),
            (
                "RayJob rayjob-sample, worker group small-group",
                "containers"
            ),
            ("RayJob rayjob-sample, submitter", "restartPolicy"),
        ]
    );
    // Chart values without their templates: workloads of unknown kind, at their keys.
    let text = read(CHART_VALUES);
    let analysis = check(&text, Ask::new(&Options::default(), Some(&inv)).placed());
    let titles: Vec<&str> = analysis
        .placements
        .iter()
        .map(|p| p.title.as_str())
        .collect();
    assert_eq!(
        titles,
        vec![
            "workload of unknown kind `controller`",
            "workload of unknown kind `agent`",
            "workload of unknown kind `backup`"
        ]
    );
}

#[test]
fn templates_that_alias_one_mapping_each_keep_its_tolerations() {
    // A RayCluster whose worker group reuses the head's pod template through a YAML alias: both
    // tolerate the GPU taint; a finding in the shared list is reported once.
    let text = "\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: shared}
spec:
  headGroupSpec:
    template: &pod
      spec:
        nodeSelector: {example.com/pool: gpu}
        tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
        - {key: example.com/x, operator: Exists, effect: NoSchedul}
        containers: [{name: ray, image: rayproject/ray:2.41.0}]
  workerGroupSpecs:
  - groupName: workers
    template: *pod
";
    let got = placed(text, &Options::default());
    let pools: Vec<&[String]> = got.iter().map(|r| r.3.as_slice()).collect();
    assert_eq!(
        pools,
        vec![&["gpu".to_string()][..], &["gpu".to_string()][..]]
    );
    let found = check(text, Ask::new(&Options::default(), None)).diagnostics;
    let effects = found.iter().filter(|d| d.rule == "unknown-effect").count();
    assert_eq!(effects, 1, "{found:?}");
}

#[test]
fn ml_platforms_pod_templates_are_found_where_their_operators_keep_them() {
    let text = read("ml-platforms.yaml");
    let got = placed(&text, &Options::default());
    let want = vec![
        row(
            "ClusterTrainingRuntime",
            "torch-distributed-gpu",
            "spec.template.spec.replicatedJobs[0].template.spec.template.spec",
            &["gpu"],
        ),
        // No toleration of the GPU taint, and a nodeSelector for the GPU nodes.
        row("ServingRuntime", "text-generation", "spec", &[]),
        row(
            "LLMInferenceService",
            "llm-pd",
            "spec.template",
            &["general", "gpu"],
        ),
        row(
            "LLMInferenceService",
            "llm-pd",
            "spec.prefill.template",
            &["general"],
        ),
        row("SparkApplication", "spark-pi", "spec.driver", &["general"]),
        row(
            "SparkApplication",
            "spark-pi",
            "spec.executor",
            &["monitoring"],
        ),
        // An AppWrapper's components are whole objects, each with its pod specs where its
        // kind keeps them.
        row(
            "AppWrapper",
            "wrapped",
            "spec.components[0].template.spec.template.spec",
            &["general"],
        ),
        row(
            "AppWrapper",
            "wrapped",
            "spec.components[1].template.spec.pytorchReplicaSpecs.Master.template.spec",
            &["general", "gpu"],
        ),
        row("Service", "hello", "spec.template.spec", &["general"]),
        // A kind no table knows: its pod template is found by its shape.
        row("NightlyJob", "report", "spec.runner.template.spec", &[]),
    ];
    assert_eq!(got, want);
    let inv = inventory();
    let shapes: Vec<bool> = simulate(&text, &Options::default(), &inv)
        .workloads
        .iter()
        .map(|w| w.by_shape)
        .collect();
    assert_eq!(shapes.iter().filter(|s| **s).count(), 1);
    assert!(shapes[9]);
    // `lint --inventory` says where the template was found, and how.
    let found = check(&text, Ask::new(&Options::default(), Some(&inv))).diagnostics;
    let unschedulable: Vec<&str> = found
        .iter()
        .filter(|d| d.rule == "unschedulable")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(unschedulable.len(), 2, "{unschedulable:?}");
    assert!(
        unschedulable[1].starts_with(
            "NightlyJob report, runner (a pod template at spec.runner.template.spec found by its \
             shape: kind NightlyJob is not in taintlint's table) fits no node"
        ),
        "{unschedulable:?}"
    );
    assert!(unschedulable[0].starts_with("ServingRuntime text-generation fits no node"));
}

#[test]
fn a_version_the_table_does_not_list_is_read_by_shape() {
    // A JobSet at a version its operator never served: its pod template is still simulated,
    // found by its shape.
    let text = "apiVersion: jobset.x-k8s.io/v9\nkind: JobSet\nmetadata:\n  name: future\nspec:\n  replicatedJobs:\n  - name: w\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n            - name: w\n              image: example/w:1\n";
    let inv = inventory();
    let got = simulate(text, &Options::default(), &inv).workloads;
    assert_eq!(got.len(), 1);
    assert!(got[0].by_shape);
    assert_eq!(
        got[0].path,
        "spec.replicatedJobs[0].template.spec.template.spec"
    );
    // Kyverno's policies hold pod-shaped patterns, not pods.
    let policy = "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: p\nspec:\n  rules:\n  - name: r\n    validate:\n      pattern:\n        spec:\n          containers:\n          - name: \"*\"\n            image: \"!*:latest\"\n";
    assert!(simulate(policy, &Options::default(), &inv)
        .workloads
        .is_empty());
    // A CRD's schema may carry a pod-shaped example default; it is no workload.
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n          template:\n            default:\n              containers:\n              - name: w\n                image: example/w:1\n";
    assert!(simulate(crd, &Options::default(), &inv)
        .workloads
        .is_empty());
    // A mapping whose containers are no containers (strings) is no pod spec.
    let odd = "apiVersion: example.com/v1\nkind: Inventory\nmetadata:\n  name: i\nspec:\n  containers: [a, b]\n";
    assert!(simulate(odd, &Options::default(), &inv)
        .workloads
        .is_empty());
}

/// `lint --inventory` says what it judged as `simulate` does: as many pod templates as simulate
/// places, those found by their shape, and about how many the files it could not read hold.
#[test]
fn lint_with_an_inventory_says_how_many_pod_templates_it_judged() {
    let files = [
        "--inventory",
        "inventory.yaml",
        "ml-platforms.yaml",
        "chart/templates/agent-daemonset.yaml",
    ];
    let mut json = vec!["simulate", "--format", "json"];
    json.extend_from_slice(&files);
    let v: Value = serde_json::from_slice(&run(&json).stdout).unwrap();
    let simulated = v["summary"]["workloads"].as_u64().unwrap();
    let by_shape = v["summary"]["byShape"].as_u64().unwrap();
    assert!(simulated > 1 && by_shape > 0, "{v}");

    let mut lint = vec!["lint"];
    lint.extend_from_slice(&files);
    let err = String::from_utf8(run(&lint).stderr).unwrap();
    assert!(
        err.contains(&format!(
            "taintlint: judged {simulated} pod templates against the inventory ({by_shape} \
             found by its shape, of kinds not in taintlint's table)"
        )),
        "{err}"
    );
    assert!(
        err.contains(
            "taintlint: about 1 pod template not judged, in 1 file not all read (Go or Helm \
             templates, YAML errors): chart/templates/agent-daemonset.yaml"
        ),
        "{err}"
    );
    // Quiet, or without an inventory: no such line.
    lint.insert(1, "--quiet");
    let err = String::from_utf8(run(&lint).stderr).unwrap();
    assert!(!err.contains("judged"), "{err}");
    let err = String::from_utf8(run(&["lint", "ml-platforms.yaml"]).stderr).unwrap();
    assert!(!err.contains("judged"), "{err}");
}

/// The count comes from the analysis' own reading of the file, streamed or whole: the same
/// pod templates `simulate` places, and the same line when the fixes are shown (`--diff`).
#[test]
fn the_pod_templates_judged_are_those_the_analysis_read() {
    let inv = inventory();
    let options = Options::default();
    for file in ["ml-platforms.yaml", "inventory.yaml"] {
        let text = read(file);
        let placed = simulate(&text, &options, &inv).workloads;
        let streamed = check_streamed(&text, Ask::new(&options, Some(&inv)), 1, &mut |_| {});
        let whole = check(&text, Ask::new(&options, Some(&inv))).templates;
        assert_eq!(streamed.found, placed.len(), "{file}");
        assert_eq!(whole, streamed, "{file}");
        assert_eq!(streamed.unread, None, "{file}");
    }
    let template = read("chart/templates/agent-daemonset.yaml");
    let streamed = check_streamed(&template, Ask::new(&options, Some(&inv)), 1, &mut |_| {});
    assert_eq!(streamed.unread, Some(taintlint::analysis::Unread::Template));

    // A file read whole (standard input) is counted as one read in pieces.
    let judged = |args: &[&str], stdin: Option<String>| {
        let mut lint = Command::new(env!("CARGO_BIN_EXE_taintlint"));
        lint.arg("lint")
            .args(args)
            .current_dir(Path::new(ROOT).join(DIR))
            .env_remove("COLUMNS")
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null());
        let mut child = lint.spawn().unwrap();
        let input = stdin.unwrap_or_default();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
        let err = String::from_utf8(child.wait_with_output().unwrap().stderr).unwrap();
        err.lines()
            .find(|l| l.contains("judged"))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no judged line: {err}"))
    };
    let from_file = judged(
        &["--inventory", "inventory.yaml", "ml-platforms.yaml"],
        None,
    );
    let from_stdin = judged(
        &["--inventory", "inventory.yaml", "-"],
        Some(read("ml-platforms.yaml")),
    );
    assert_eq!(from_file, from_stdin);
    assert!(
        from_file.contains(&format!(
            "judged {} pod templates",
            simulate(&read("ml-platforms.yaml"), &options, &inv)
                .workloads
                .len()
        )),
        "{from_file}"
    );
}

#[test]
fn simulate_says_how_many_pod_templates_it_found_by_shape_and_could_not_read() {
    let files = [
        "simulate",
        "--inventory",
        "inventory.yaml",
        "ml-platforms.yaml",
        "chart/templates/agent-daemonset.yaml",
    ];
    let out = run(&files);
    let err = String::from_utf8(out.stderr).unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("10 workloads simulated"), "{stdout}");
    assert!(
        err.contains(
            "1 of 10 pod templates found by its shape, of kinds not in taintlint's table \
             (simulated as written): a pod template at spec.runner.template.spec of kind \
             NightlyJob (ml-platforms.yaml)"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "about 1 pod template in the files not all read not simulated (by their \
             `containers:` lines)"
        ),
        "{err}"
    );
    let mut json = vec!["simulate", "--format", "json"];
    json.extend_from_slice(&files[1..]);
    let out = run(&json);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["workloads"], 10);
    assert_eq!(v["summary"]["byShape"], 1);
    assert_eq!(
        v["summary"]["unread"],
        serde_json::json!([{
            "file": "chart/templates/agent-daemonset.yaml",
            "why": "template",
            "podTemplates": 1
        }])
    );
    let shaped: Vec<&Value> = v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["byShape"] == true)
        .collect();
    assert_eq!(shaped.len(), 1);
    assert_eq!(shaped[0]["kind"], "NightlyJob");
    // Files read whole, of known kinds only: no such lines.
    let out = run(&[
        "simulate",
        "--inventory",
        "inventory.yaml",
        "custom-resources.yaml",
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        !err.contains("shape") && !err.contains("not simulated"),
        "{err}"
    );
}

#[test]
fn toleration_lists_under_any_key_ending_in_tolerations_are_linted() {
    let found = check(
        &read("values-toleration-keys.yaml"),
        Ask::new(&Options::default(), None),
    )
    .diagnostics;
    let got: Vec<(&str, String, bool)> = found
        .iter()
        .map(|d| {
            (
                d.rule,
                d.path.clone().unwrap_or_default(),
                !d.fixes.is_empty(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "unknown-effect",
                "agent_tolerations[0].effect".to_string(),
                true
            ),
            (
                "toleration-seconds-requires-no-execute",
                "scheduler.schedulerTolerations[0].effect".to_string(),
                true
            ),
            (
                "exists-with-value",
                "WebhookTolerations[0].value".to_string(),
                true
            ),
        ]
    );
}

#[test]
fn strimzi_components_are_placed_by_their_pod_templates() {
    let text = read("strimzi.yaml");
    let got = placed(&text, &Options::default());
    let want = vec![
        row(
            "Kafka",
            "events",
            "spec.kafka.template.pod",
            &["monitoring"],
        ),
        // Without `template.pod` ZooKeeper's pods run all the same, with no toleration.
        row("Kafka", "events", "spec.zookeeper", &["general"]),
        // The entity operator's pods (with an effect the API server refuses in the pods the
        // operator makes) tolerate nothing.
        row(
            "Kafka",
            "events",
            "spec.entityOperator.template.pod",
            &["general"],
        ),
        row(
            "KafkaNodePool",
            "brokers",
            "spec.template.pod",
            &["general", "monitoring"],
        ),
    ];
    assert_eq!(got, want);
    // The pod template's own fields (its `metadata`) are no finding; the unknown effect is,
    // where it is written.
    let found = check(&text, Ask::new(&Options::default(), None)).diagnostics;
    let rules: Vec<(&str, &str)> = found
        .iter()
        .map(|d| (d.rule, &text[d.range.clone()]))
        .collect();
    assert_eq!(rules, [("unknown-effect", "NoSchedul")], "{found:?}");
    // Rows name the component.
    let out = run(&["simulate", "--inventory", "inventory.yaml", "strimzi.yaml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\n  Kafka events, Kafka brokers "), "{text}");
    assert!(
        text.contains("\n  Kafka events, Entity Operator\n"),
        "{text}"
    );
}

/// Per workload of `file` against `sized-inventory.yaml`: its pod spec's path, the pools it
/// fits (by name), and every reason a pool turns it away, as `pool: reason`.
fn sized(file: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    let inv = Inventory::load(&[("sized-inventory.yaml", &read("sized-inventory.yaml"))]).unwrap();
    simulate(&read(file), &Options::default(), &inv)
        .workloads
        .into_iter()
        .map(|w| {
            let mut fits = Vec::new();
            let mut why = Vec::new();
            for (v, p) in w.simulation.pools.iter().zip(&inv.pools) {
                if v.fitting(p) > 0 {
                    fits.push(p.name.clone());
                }
                for r in v.reasons(p) {
                    why.push(format!("{}: {}", p.name, r.describe(p)));
                }
            }
            (w.path, fits, why)
        })
        .collect()
}

/// The path and pools of each workload, and whether one of its reasons is `reason`.
fn with_reason(
    got: &[(String, Vec<String>, Vec<String>)],
    reason: &str,
) -> Vec<(String, Vec<String>, bool)> {
    got.iter()
        .map(|(path, fits, why)| (path.clone(), fits.clone(), why.iter().any(|w| w == reason)))
        .collect()
}

/// Each pod spec's path and the pools it fits, from [`sized`].
fn fits_by_path(got: &[(String, Vec<String>, Vec<String>)]) -> Vec<(&str, Vec<String>)> {
    got.iter()
        .map(|(p, fits, _)| (p.as_str(), fits.clone()))
        .collect()
}

fn names(pools: &[&str]) -> Vec<String> {
    pools.iter().map(|p| p.to_string()).collect()
}

/// Strimzi components are sized by their `resources`, outside `template.pod`: a 100-CPU,
/// 500 GiB broker fits no 6 GiB node (it "fitted" every node its tolerations allowed), a
/// ZooKeeper without `template.pod` is simulated, and an Entity Operator asks for its two
/// operators' containers together.
#[test]
fn strimzi_components_are_sized_by_their_resources() {
    let got = sized("strimzi-sized.yaml");
    let paths = fits_by_path(&got);
    assert_eq!(
        paths,
        [
            ("spec.kafka.template.pod", names(&[])),
            ("spec.zookeeper", names(&[])),
            ("spec.entityOperator", names(&[])),
            ("spec.template.pod", names(&["kafka"])),
            ("spec", names(&["general"])),
        ]
    );
    let why = |i: usize| got[i].2.clone();
    assert!(
        why(0).contains(&"kafka: insufficient cpu: requests 100, a node offers at most 15".into())
    );
    assert!(why(0).contains(
        &"kafka: insufficient memory: requests 500Gi, a node offers at most 60Gi".into()
    ));
    assert!(why(1)
        .contains(&"general: insufficient memory: requests 8Gi, a node offers at most 6Gi".into()));
    assert!(why(2)
        .contains(&"general: insufficient memory: requests 8Gi, a node offers at most 6Gi".into()));
    // A node pool without `resources` is its Kafka's; simulate says it reads it in part.
    let out = run(&[
        "simulate",
        "--inventory",
        "sized-inventory.yaml",
        "strimzi-sized.yaml",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "1 of 5 pod templates read in part, simulated as far as written (what their pods \
             get from elsewhere is not at hand): KafkaNodePool kafka/controllers at spec: what \
             it leaves out (`resources`, `template.pod`) is its Kafka's `spec.kafka`"
        ),
        "{err}"
    );
}

/// KServe's containers kept outside the pod fields: a framework's (`tensorflow`) and a `model`
/// asking for GPUs, a framework that replaces the first container listed, an explainer's `art`,
/// and an InferenceGraph router's `resources`.
#[test]
fn kserve_components_are_sized_by_their_model_and_framework_containers() {
    let got = sized("kserve-sized.yaml");
    let gpu_none = "general: insufficient nvidia.com/gpu: requests 1, the nodes have none";
    assert_eq!(
        with_reason(&got, gpu_none),
        [
            ("spec.predictor".to_string(), names(&[]), true),
            ("spec.predictor".to_string(), names(&[]), false),
            ("spec.predictor".to_string(), names(&["general"]), false),
            ("spec.explainer".to_string(), names(&[]), false),
            ("spec".to_string(), names(&["gpu"]), true),
        ]
    );
    // The model's 2 GPUs and 6 CPUs, with the logger's 500m beside it.
    assert!(got[1]
        .2
        .contains(&"gpu: insufficient nvidia.com/gpu: requests 2, a node offers at most 1".into()));
    assert!(got[1].2.contains(
        &"general: insufficient cpu: requests 6500m, a node offers at most 1930m".into()
    ));
    // sklearn's 100m replaces the custom container's 64 CPUs.
    assert!(
        !got[2].2.iter().any(|w| w.contains("insufficient cpu")),
        "{:?}",
        got[2].2
    );
    assert!(got[3]
        .2
        .contains(&"general: insufficient memory: requests 8Gi, a node offers at most 6Gi".into()));
}

/// A SparkApplication's driver and executors are sized as Spark sizes them (cores, memory plus
/// its overhead, the GPU), at v1beta2 and v1beta1, with the application's own `nodeSelector`.
#[test]
fn spark_drivers_and_executors_are_sized_as_spark_sizes_them() {
    let got = sized("spark-sized.yaml");
    let paths = fits_by_path(&got);
    assert_eq!(
        paths,
        [
            ("spec.driver", names(&["gpu"])),
            ("spec.executor", names(&["gpu"])),
            ("spec.driver", names(&["general"])),
            ("spec.executor", names(&[])),
            ("spec.template.driver", names(&["general"])),
            ("spec.template.executor", names(&["general"])),
        ]
    );
    // A Python executor's 16g and its 40% overhead; the application's nodeSelector.
    assert!(got[1].2.contains(
        &"general: insufficient memory: requests 22.3Gi, a node offers at most 6Gi".into()
    ));
    assert!(got[1]
        .2
        .contains(&"general: insufficient nvidia.com/gpu: requests 1, the nodes have none".into()));
    assert!(got[0]
        .2
        .contains(&"general: nodeSelector example.com/pool=gpu does not match".into()));
    // v1beta1: 6g and Spark's 10% overhead.
    assert!(got[3].2.contains(
        &"general: insufficient memory: requests 6.5Gi, a node offers at most 6Gi".into()
    ));
    // The driver's `template` is not merged, and simulate says so.
    let out = run(&[
        "simulate",
        "--inventory",
        "sized-inventory.yaml",
        "spark-sized.yaml",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "ScheduledSparkApplication default/spark-pi-scheduled, driver at \
             spec.template.driver: its `template`, the pod Spark starts from, is not merged with \
             the rest"
        ),
        "{err}"
    );
}

/// A TrainJob's trainer asks for `trainer.resourcesPerNode`, with the pod fields of the
/// override or patch that names its `node` job; other patches are their jobs' pods; a TrainJob
/// whose pods are all its runtime's is said not simulated, and why.
#[test]
fn a_trainjobs_trainer_is_sized_by_resources_per_node() {
    let got = sized("trainjob-sized.yaml");
    let patch = |i: usize| {
        format!(
            "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[{i}]\
             .template.spec.template.spec"
        )
    };
    assert_eq!(
        with_reason(
            &got,
            "general: insufficient nvidia.com/gpu: requests 1, the nodes have none"
        ),
        [
            ("spec.trainer".to_string(), names(&[]), true),
            (patch(0), names(&["gpu"]), true),
            (patch(1), names(&["general"]), false),
            (
                "spec.podTemplateOverrides[0].spec".to_string(),
                names(&["general", "kafka"]),
                false
            ),
        ]
    );
    let out = run(&[
        "simulate",
        "--inventory",
        "sized-inventory.yaml",
        "trainjob-sized.yaml",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4 of 4 pod templates read in part"), "{err}");
    assert!(
        err.contains(
            "1 part that would make pods not simulated: TrainJob \
             ml/runtime-only at spec: its pods are its runtime's (runtimeRef torch-distributed), \
             not at hand"
        ),
        "{err}"
    );
}

/// A custom resource whose operator places its pods by tolerations it keeps outside any pod
/// template taintlint reads (Rook's CephCluster, `spec.placement.<component>.tolerations`, as
/// rook/rook deploy/examples/cluster.yaml writes them) is said on stderr, once; a Kueue
/// ResourceFlavor's tolerations are the cluster's, and a chart's values that name
/// `kind: Deployment` are values: neither is said.
#[test]
fn tolerations_an_operator_places_pods_by_are_said_not_simulated() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ceph.yaml");
    std::fs::write(
        &file,
        "apiVersion: ceph.rook.io/v1
kind: CephCluster
metadata: {name: rook-ceph, namespace: rook-ceph}
spec:
  placement:
    all:
      tolerations:
        - {key: storage-node, operator: Exists}
    mon:
      tolerations:
        - {key: mon, operator: Exists}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: gpu}
spec:
  tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
---
kind: Deployment
replicas: 1
tolerations: []
",
    )
    .unwrap();
    let out = run(&[
        "simulate",
        "--inventory",
        "sized-inventory.yaml",
        file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "taintlint: 1 part that would make pods not simulated: \
             CephCluster rook-ceph/rook-ceph at spec.placement.all.tolerations: its tolerations \
             are read by its operator, which makes its pods from no pod template taintlint knows \
             ({})",
            file.display()
        )),
        "{err}"
    );
    assert!(!err.contains("ResourceFlavor"), "{err}");
}

/// bjw-s' app-template (and every chart of its common library): each controller is a
/// workload of its `type`, named by its key (`main` by its release's name), its pod options
/// its `pod` (or the release's `defaultPodOptions`), its requests its containers' by name; a
/// disabled controller makes none.
/// Known by the chart's name, or by the values' layout when the chart is named in another file.
#[test]
fn app_template_controllers_are_workloads() {
    let got = sized("app-template.yaml");
    let paths = fits_by_path(&got);
    assert_eq!(
        paths,
        [
            // The GPU, the taint's toleration and the selector: the GPU pool.
            ("spec.values.controllers.jellyfin.pod", names(&["gpu"])),
            // The defaults' toleration of `dedicated`: the kafka pool too.
            (
                "spec.values.defaultPodOptions",
                names(&["general", "kafka"])
            ),
            // Its own pod options, without the defaults' toleration: 2 CPUs fit no general
            // node, and the other pools are tainted.
            ("spec.values.controllers.web.pod", names(&[])),
        ]
    );
    let inv = Inventory::load(&[("sized-inventory.yaml", &read("sized-inventory.yaml"))]).unwrap();
    let kinds: Vec<(Option<String>, Option<String>)> =
        simulate(&read("app-template.yaml"), &Options::default(), &inv)
            .workloads
            .into_iter()
            .map(|w| (w.kind, w.name))
            .collect();
    let some = |k: &str, n: &str| (Some(k.to_string()), Some(n.to_string()));
    assert_eq!(
        kinds,
        [
            some("Deployment", "jellyfin"),
            // The controller `main` is named after its release.
            some("DaemonSet", "node-agent"),
            some("Deployment", "web")
        ]
    );
    let out = run(&[
        "simulate",
        "--inventory",
        "sized-inventory.yaml",
        "app-template.yaml",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "Deployment monitoring/web at spec.values.controllers.web.pod: the release's \
             defaultPodOptions (tolerations), which the chart merges into the controller's pod \
             options, are not read"
        ),
        "{err}"
    );
}

/// Volcano's CronJob is batch.volcano.sh's, not batch/v1's: its pods are its job template's
/// tasks' (it was read as a batch/v1 CronJob, found no pod template there, and said nothing).
#[test]
fn a_volcano_cronjob_is_read_by_its_tasks() {
    let got = sized("volcano-cronjob.yaml");
    assert_eq!(
        with_reason(
            &got,
            "general: insufficient nvidia.com/gpu: requests 1, the nodes have none"
        ),
        [(
            "spec.jobTemplate.spec.tasks[0].template.spec".to_string(),
            names(&[]),
            true
        )]
    );
    // A batch/v1 CronJob is still one.
    let core = read("volcano-cronjob.yaml")
        .replace("batch.volcano.sh/v1alpha1", "batch/v1")
        .replace("    spec:\n      schedulerName", "    spec:\n      template:\n        spec:\n          containers: [{name: a, image: a}]\n      schedulerName");
    let inv = inventory();
    let paths: Vec<String> = simulate(&core, &Options::default(), &inv)
        .workloads
        .into_iter()
        .map(|w| w.path)
        .collect();
    assert_eq!(paths, ["spec.jobTemplate.spec.template.spec"]);
}

/// A component written without the pod template its pods are made from: a Ray worker group
/// (whose pods cannot be read) is said not simulated, and why; a LeaderWorkerSet without
/// `leaderTemplate` makes no pods of its own (its leaders run the worker template); a Strimzi
/// ZooKeeper without `template.pod` is simulated all the same.
#[test]
fn a_component_without_its_template_is_said_skipped_or_simulated() {
    let inv = inventory();
    let text = "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rl, namespace: ml}\n\
                spec:\n  headGroupSpec:\n    template:\n      spec:\n        containers: \
                [{name: head, image: rayproject/ray}]\n  workerGroupSpecs:\n  - groupName: \
                l4-workers\n    replicas: 2\n---\napiVersion: leaderworkerset.x-k8s.io/v1\n\
                kind: LeaderWorkerSet\nmetadata: {name: lws}\nspec:\n  leaderWorkerTemplate:\n    \
                size: 4\n    workerTemplate:\n      spec:\n        containers: [{name: w, \
                image: w}]\n";
    let Simulated {
        workloads: out,
        not_simulated: skipped,
        ..
    } = simulate(text, &Options::default(), &inv);
    let paths: Vec<&str> = out.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "spec.headGroupSpec.template.spec",
            "spec.leaderWorkerTemplate.workerTemplate.spec"
        ]
    );
    assert_eq!(
        skipped,
        [
            "RayCluster ml/rl at spec.workerGroupSpecs[0]: it has no `template.spec`, the pod \
          template its pods are made from"
        ]
    );
}

/// Chart values are judged as the pod they render: `resources` are the container's, GPUs
/// included (a 2-GPU request "fitted" a 1-GPU pool), and a toleration the API server would
/// reject makes the workload rejected, as in a Deployment, at the values' root too.
#[test]
fn values_are_judged_as_the_rendered_pod_spec() {
    let got = sized("values-root-gpu.yaml");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, "");
    assert!(got[0].1.is_empty(), "{got:?}");
    assert!(got[0]
        .2
        .contains(&"gpu: insufficient nvidia.com/gpu: requests 2, a node offers at most 1".into()));
    let inv = Inventory::load(&[("sized-inventory.yaml", &read("sized-inventory.yaml"))]).unwrap();
    let invalid = read("values-root-gpu.yaml").replace(
        "    operator: Exists\n",
        "    operator: Exists\n    value: present\n",
    );
    let rejected: Vec<_> = simulate(&invalid, &Options::default(), &inv)
        .workloads
        .into_iter()
        .map(|w| w.rejected.map(|r| (r.rule, r.path)))
        .collect();
    assert_eq!(
        rejected,
        [Some((
            "exists-with-value",
            Some("tolerations[0].value".to_string())
        ))]
    );
    // The same toleration in a Deployment.
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ollama}\nspec:\n  \
                      template:\n    spec:\n      containers: [{name: ollama, image: ollama/ollama}]\n      \
                      tolerations:\n      - {key: nvidia.com/gpu, operator: Exists, value: present, \
                      effect: NoSchedule}\n";
    let rejected: Vec<_> = simulate(deployment, &Options::default(), &inv)
        .workloads
        .into_iter()
        .map(|w| w.rejected.map(|r| r.rule))
        .collect();
    assert_eq!(rejected, [Some("exists-with-value")]);
    // A values workload nested in another keeps its own findings: the outer is not rejected
    // for the inner's toleration.
    let nested = "nodeSelector: {example.com/pool: general}\ntolerations: []\n\
                  webhook:\n  nodeSelector: {example.com/pool: general}\n  tolerations:\n  \
                  - {key: a, operator: Exists, value: b}\n";
    let rejected: Vec<_> = simulate(nested, &Options::default(), &inv)
        .workloads
        .into_iter()
        .map(|w| (w.path, w.rejected.is_some()))
        .collect();
    assert_eq!(
        rejected,
        [("".to_string(), false), ("webhook".to_string(), true)]
    );
}

/// A helm-unittest suite's `set:` values are what a test hands the chart, to assert what it
/// renders: no workload runs them, so they are not simulated (a toleration there of a taint
/// no node has made `lint --inventory` fail), while their lists are still linted. The shape
/// imitates kuberay's chart tests (ray-project/kuberay
/// `helm-chart/ray-cluster/tests/raycluster_test.yaml`: `set: {head: {tolerations: [...]}}`).
#[test]
fn a_helm_unittest_suites_values_are_not_workloads() {
    let suite = "suite: Test RayCluster\ntemplates:\n  - raycluster-cluster.yaml\ntests:\n  \
                 - it: Should add tolerations if `head.tolerations` is set\n    set:\n      \
                 head:\n        nodeSelector: {pool: nowhere}\n        tolerations:\n          \
                 - key: key1\n            operator: Equal\n            value: value1\n            \
                 effect: NoSchedule\n    asserts:\n      - equal:\n          path: \
                 spec.headGroupSpec.template.spec.tolerations\n          value:\n            \
                 - {key: key1, operator: Equal, value: value1, effect: NoSchedule}\n";
    assert!(placed(suite, &Options::default()).is_empty());
    let found = check(suite, Ask::new(&Options::default(), Some(&inventory()))).diagnostics;
    assert!(found.is_empty(), "{found:#?}");
    // Its lists get the field rules all the same.
    let broken = suite.replace(
        "effect: NoSchedule\n    asserts",
        "effect: NoSchedul\n    asserts",
    );
    let found = check(&broken, Ask::new(&Options::default(), Some(&inventory()))).diagnostics;
    let rules: Vec<_> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["unknown-effect"], "{found:#?}");
    // Without the suite's keys, the same mapping is chart values, and simulated.
    let values = "head:\n  nodeSelector: {pool: nowhere}\n  tolerations: [{key: key1, \
                  operator: Exists}]\n";
    assert_eq!(placed(values, &Options::default()).len(), 1);
}
