//! The same words from every face: about one toleration that only just misses, `lint`'s two
//! findings, the editor's hover and code lens, and a `simulate` row name the same taint, the
//! same near miss and the same object. Against 53 pools, 50 of them dedicated to a team each
//! (`dedicated=<team>:NoSchedule`), as the case reported: `toleration-unused` named
//! `dedicated=search` as the closest taint to `value: rsk` while `unschedulable` said
//! `dedicated=risk`, and the toleration's hover named none.

#[path = "support/client.rs"]
mod client;
mod common;

use serde_json::{json, Value};
use taintlint::analysis::{check, Ask};

use client::{push_client, Client};
use common::{dedicated_pools, run_in, RISK_CRONJOB};

/// The near miss, as every face says it.
const NEAR: &str = "dedicated=risk:NoSchedule (value \"rsk\", not \"risk\")";

fn cluster(workload: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pools.yaml"), dedicated_pools()).unwrap();
    std::fs::write(dir.path().join("risk.yaml"), workload).unwrap();
    dir
}

/// `lint --format json`'s diagnostics of `risk.yaml` against `pools.yaml`.
fn diagnostics(dir: &std::path::Path) -> Vec<Value> {
    let run = run_in(
        dir,
        &[
            "lint",
            "--format",
            "json",
            "--inventory",
            "pools.yaml",
            "risk.yaml",
        ],
        None,
    );
    let json: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    json["diagnostics"].as_array().unwrap().clone()
}

/// `lint --format json`'s findings: (rule, message).
fn findings(dir: &std::path::Path) -> Vec<(String, String)> {
    diagnostics(dir)
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `simulate --format FORMAT` of `risk.yaml` against `pools.yaml`: what it printed.
fn simulate(dir: &std::path::Path, format: &str) -> String {
    run_in(
        dir,
        &[
            "simulate",
            "--format",
            format,
            "--inventory",
            "pools.yaml",
            "risk.yaml",
        ],
        None,
    )
    .stdout
}

/// A server given `pools.yaml` as its inventory, `risk.yaml` open with `text`; and its URI.
async fn open_in_server(dir: &std::path::Path, text: &str) -> (Client, String) {
    let uri = format!("file://{}", dir.join("risk.yaml").display());
    let mut c = Client::start(Client::test_config());
    c.initialize(
        push_client(),
        json!({"inventory": dir.join("pools.yaml").to_str().unwrap()}),
    )
    .await;
    c.open(&uri, text).await;
    (c, uri)
}

#[test]
fn both_findings_name_the_taint_fewest_edits_away() {
    let dir = cluster(RISK_CRONJOB);
    let found = findings(dir.path());
    assert_eq!(
        found,
        [
            (
                "toleration-unused".to_string(),
                format!("tolerations[0] tolerates no inventory taint; closest: {NEAR}")
            ),
            (
                "unschedulable".to_string(),
                format!("CronJob risk/nightly-risk fits no node: tolerations[0] misses {NEAR}")
            ),
        ]
    );
    // Without the nodeSelector, it fits the general pool: no `unschedulable`, and the closest
    // taint is still the one fewest edits away, not the first of those as near.
    let unsteered =
        RISK_CRONJOB.replace("          nodeSelector:\n            dedicated: risk\n", "");
    let dir = cluster(&unsteered);
    assert_eq!(
        findings(dir.path()),
        [(
            "toleration-unused".to_string(),
            format!("tolerations[0] tolerates no inventory taint; closest: {NEAR}")
        )]
    );
}

/// A workload steered to one team's pool (its nodeSelector) whose toleration's value is closer
/// to another team's: the toleration's finding names the taint of the pool the workload comes
/// closest to, as `unschedulable` does, not the other.
#[test]
fn a_workload_that_fits_no_node_names_its_closest_pools_taint() {
    let steered = RISK_CRONJOB.replace("dedicated: risk\n", "dedicated: ml\n");
    let dir = cluster(&steered);
    let ml = "dedicated=ml:NoSchedule (value \"rsk\", not \"ml\")";
    assert_eq!(
        findings(dir.path()),
        [
            (
                "toleration-unused".to_string(),
                format!("tolerations[0] tolerates no inventory taint; closest: {ml}")
            ),
            (
                "unschedulable".to_string(),
                format!("CronJob risk/nightly-risk fits no node: tolerations[0] misses {ml}")
            ),
        ]
    );
}

/// The position of the start of `needle` in `text` (0-based line, UTF-16 column).
fn position(text: &str, needle: &str) -> Value {
    let at = text.find(needle).unwrap();
    let line = text[..at].matches('\n').count();
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": text[start..at].encode_utf16().count()})
}

#[tokio::test]
async fn the_hover_and_the_lens_say_what_the_findings_say() {
    let dir = cluster(RISK_CRONJOB);
    let (mut c, uri) = open_in_server(dir.path(), RISK_CRONJOB).await;
    let diagnostics = c.diagnostics(&uri, 1).await;
    let messages: Vec<&str> = diagnostics["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            format!("tolerations[0] tolerates no inventory taint; closest: {NEAR}"),
            format!("CronJob risk/nightly-risk fits no node: tolerations[0] misses {NEAR}"),
        ]
    );
    // The toleration's hover (on its `operator`, where no finding is) leads with the answer,
    // and names the same taint and miss.
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(RISK_CRONJOB, "operator: Equal")}),
        )
        .await;
    let hover = r["result"]["contents"]["value"].as_str().unwrap();
    assert_eq!(
        hover.split("\n\n").nth(1),
        Some(format!("Matches no taint in the inventory; closest: {NEAR}.").as_str()),
        "{hover}"
    );
    // The finding's hover offers the fix that says the same taint.
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(RISK_CRONJOB, "rsk")}),
        )
        .await;
    let hover = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        hover.contains(
            "Fix: Change `tolerations[0]` to tolerate dedicated=risk:NoSchedule (lets it onto pool risk)"
        ),
        "{hover}"
    );
    // The lens: the same pool and miss.
    let r = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let titles: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["fits no node: closest pool risk: tolerations[0] has value \"rsk\", not \"risk\""]
    );
    assert!(c.finish().await);
}

/// A lens is one line of at most 80 characters, and never cut before the answer: with a pool
/// name too long to leave room, the pool goes; with a long wrong value, its middle goes; the
/// right value stays whole.
#[test]
fn a_lens_keeps_the_right_value_whole() {
    use taintlint::inventory::Inventory;
    use taintlint::Options;
    let pool = "risk-analytics-nightly-batch-eu-west-1-spot";
    let pools = format!(
        "pools:\n  {pool}:\n    count: 2\n    labels: {{dedicated: risk}}\n    taints: [\"dedicated=risk-analytics:NoSchedule\"]\n    allocatable: {{cpu: 8}}\n"
    );
    let inv = Inventory::load(&[("pools.yaml", pools.as_str())]).unwrap();
    let lens = |value: &str| {
        let text = RISK_CRONJOB.replace("value: rsk", &format!("value: {value}"));
        let analysis = check(&text, Ask::new(&Options::default(), Some(&inv)).placed());
        analysis.placements[0].summary(&inv)
    };
    assert_eq!(
        lens("risk-analytic"),
        "fits no node: tolerations[0] has value \"risk-analytic\", not \"risk-analytics\""
    );
    let wrong = "risk-analytics-nightly-batch-job";
    assert_eq!(
        lens(wrong),
        "fits no node: tolerations[0] has value \"risk-…h-job\", not \"risk-analytics\""
    );
    // Without a near miss, what keeps it off the pool, not the pool's long name.
    let text = RISK_CRONJOB
        .replace("value: rsk", "value: risk-analytics")
        .replace(
            "image: example.com/risk:1\n",
            "image: example.com/risk:1\n            resources: {limits: {nvidia.com/gpu: 1}}\n",
        );
    let analysis = check(&text, Ask::new(&Options::default(), Some(&inv)).placed());
    assert_eq!(
        analysis.placements[0].summary(&inv),
        "fits no node: insufficient nvidia.com/gpu: requests 1, the nodes have none"
    );
    // Without a near miss and with a taint too long for the words around it: the other
    // reasons' count goes, then the word `taint`; the taint stays whole.
    let taint = "node-role.kubernetes.io/control-plane-etcd:NoSchedule";
    let pools = format!(
        "pools:\n  {pool}:\n    count: 2\n    labels: {{dedicated: risk}}\n    taints: [\"{taint}\"]\n"
    );
    let cp = Inventory::load(&[("pools.yaml", pools.as_str())]).unwrap();
    let analysis = check(
        RISK_CRONJOB,
        Ask::new(&Options::default(), Some(&cp)).placed(),
    );
    assert_eq!(
        analysis.placements[0].summary(&cp),
        format!("fits no node: untolerated {taint}")
    );
    // The pool's name is in the details that running the lens shows.
    let text = RISK_CRONJOB.replace("value: rsk", "value: risk-analytic");
    let analysis = check(&text, Ask::new(&Options::default(), Some(&inv)).placed());
    assert!(analysis.placements[0].details(&inv).starts_with(&format!(
        "CronJob risk/nightly-risk: fits no node: closest pool {pool}: "
    )));
}

/// A RayCluster of two GPU worker groups, after ray-project/kuberay's
/// ray-operator/config/samples/ray-cluster.gpu.yaml, each steered to its own pool and each
/// tolerating a misspelt value: two workloads that fit no node, known to a Ray user by their
/// `groupName`.
const RAY: &str = "\
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: rl-train
  namespace: ml
spec:
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers: [{name: ray-head, image: rayproject/ray:2.41.0}]
  workerGroupSpecs:
  - groupName: a100-workers
    rayStartParams: {}
    template:
      spec:
        nodeSelector: {dedicated: ml}
        tolerations:
        - {key: dedicated, operator: Equal, value: mll, effect: NoSchedule}
        containers: [{name: ray-worker, image: rayproject/ray-ml:2.41.0-gpu}]
  - groupName: l4-workers
    rayStartParams: {}
    template:
      spec:
        nodeSelector: {dedicated: ml}
        tolerations:
        - {key: dedicated, operator: Equal, value: m1, effect: NoSchedule}
        containers: [{name: ray-worker, image: rayproject/ray-ml:2.41.0-gpu}]
";

/// Each face names a worker group by its `groupName`: the findings (two Problems rows told
/// apart), `simulate`'s rows and JSON (a `part` beside the `path`), the editor's hover on a
/// toleration and the details its lens opens.
#[tokio::test]
async fn a_worker_group_is_named_by_its_group_name_in_every_face() {
    let dir = cluster(RAY);
    let unschedulable: Vec<String> = findings(dir.path())
        .into_iter()
        .filter(|(rule, _)| rule == "unschedulable")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(
        unschedulable,
        [
            "RayCluster ml/rl-train, worker group a100-workers fits no node: tolerations[0] \
             misses dedicated=ml:NoSchedule (value \"mll\", not \"ml\")",
            "RayCluster ml/rl-train, worker group l4-workers fits no node: tolerations[0] \
             misses dedicated=ml:NoSchedule (value \"m1\", not \"ml\")",
        ]
    );

    let human = simulate(dir.path(), "human");
    for title in [
        "RayCluster ml/rl-train, head group",
        "RayCluster ml/rl-train, worker group a100-workers",
        "RayCluster ml/rl-train, worker group l4-workers",
    ] {
        assert!(human.contains(&format!("\n  {title}")), "{title}: {human}");
    }
    assert!(!human.contains("workerGroupSpecs"), "{human}");
    let json: Value = serde_json::from_str(&simulate(dir.path(), "json")).unwrap();
    let parts: Vec<(&str, &str)> = json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["path"].as_str().unwrap(), w["part"].as_str().unwrap()))
        .collect();
    assert_eq!(
        parts,
        [
            ("spec.headGroupSpec.template.spec", "head group"),
            (
                "spec.workerGroupSpecs[0].template.spec",
                "worker group a100-workers"
            ),
            (
                "spec.workerGroupSpecs[1].template.spec",
                "worker group l4-workers"
            ),
        ]
    );

    let (mut c, uri) = open_in_server(dir.path(), RAY).await;
    c.diagnostics(&uri, 1).await;
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(RAY, "operator: Equal, value: m1")}),
        )
        .await;
    let hover = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        hover.starts_with(
            "**Toleration** `spec.workerGroupSpecs[1].template.spec.tolerations[0]` in \
             RayCluster ml/rl-train, worker group l4-workers\n\nMatches no taint in the \
             inventory; closest: dedicated=ml:NoSchedule (value \"m1\", not \"ml\")."
        ),
        "{hover}"
    );
    let r = c
        .request(
            "taintlint/placement",
            json!({"textDocument": {"uri": uri}, "position": position(RAY, "nodeSelector: {dedicated: ml}\n        tolerations:\n        - {key: dedicated, operator: Equal, value: m1")}),
        )
        .await;
    assert_eq!(
        r["result"]["title"], "RayCluster ml/rl-train, worker group l4-workers",
        "{r}"
    );
    assert!(c.finish().await);
}

/// An object without a name, an item of a `kind: List`: the toleration's hover names it by its
/// place, as the finding does (`Deployment `items[0]``), not as `(unnamed)`.
#[tokio::test]
async fn an_unnamed_object_is_named_by_its_place_in_every_face() {
    const LIST: &str = "\
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {namespace: risk}
  spec:
    template:
      spec:
        nodeSelector: {dedicated: risk}
        tolerations:
        - {key: dedicated, operator: Equal, value: rsk, effect: NoSchedule}
        containers: [{name: c, image: i}]
";
    let dir = cluster(LIST);
    let unschedulable: Vec<String> = findings(dir.path())
        .into_iter()
        .filter(|(rule, _)| rule == "unschedulable")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(
        unschedulable,
        [format!(
            "Deployment `items[0]` fits no node: tolerations[0] misses {NEAR}"
        )]
    );
    let (mut c, uri) = open_in_server(dir.path(), LIST).await;
    c.diagnostics(&uri, 1).await;
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position(LIST, "operator: Equal")}),
        )
        .await;
    let hover = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        hover.starts_with(&format!(
            "**Toleration** `items[0].spec.template.spec.tolerations[0]` in Deployment \
             `items[0]`\n\nMatches no taint in the inventory; closest: {NEAR}."
        )),
        "{hover}"
    );
    assert!(c.finish().await);
}

/// Two Argo CD Applications of a chart that is not in the repository, after the
/// `valuesObject` and `values` examples of argoproj/argo-cd docs/user-guide/helm.md: the same
/// `worker` values (steered to the risk pool, tolerating a misspelt value), as an object and as
/// a string.
const ARGO_VALUES: &str = "\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: argocd
spec:
  destination: {namespace: risk}
  source:
    chart: web
    repoURL: https://charts.example.com
    targetRevision: 1.0.0
    helm:
      valuesObject:
        worker:
          nodeSelector: {dedicated: risk}
          tolerations:
          - {key: dedicated, operator: Equal, value: rsk, effect: NoSchedule}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: api
  namespace: argocd
spec:
  destination: {namespace: risk}
  source:
    chart: api
    repoURL: https://charts.example.com
    targetRevision: 1.0.0
    helm:
      values: |
        worker:
          nodeSelector: {dedicated: risk}
          tolerations:
          - {key: dedicated, operator: Equal, value: rsk, effect: NoSchedule}
";

/// Chart values of a workload whose kind the chart's templates (not at hand) would say are
/// named after the Application that installs the chart, whether its values are an object or a
/// string: `lint`'s findings and their objects, `simulate`'s rows and JSON, the editor's
/// findings and the title of the placement its lens opens.
#[tokio::test]
async fn argo_values_workloads_are_named_after_their_application_in_every_face() {
    let dir = cluster(ARGO_VALUES);
    let web = "Application argocd/web, values `worker`";
    let api = "Application argocd/api, values `worker`";
    let unschedulable = [
        format!("{web} fits no node: tolerations[0] misses {NEAR}"),
        format!("{api} fits no node: tolerations[0] misses {NEAR}"),
    ];
    let found: Vec<(String, Value)> = diagnostics(dir.path())
        .iter()
        .filter(|d| d["rule"] == "unschedulable")
        .map(|d| {
            (
                d["message"].as_str().unwrap().to_string(),
                d["object"].clone(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                unschedulable[0].clone(),
                json!({"kind": "Application", "name": "web", "namespace": "argocd"})
            ),
            (
                unschedulable[1].clone(),
                json!({"kind": "Application", "name": "api", "namespace": "argocd"})
            ),
        ]
    );

    let human = simulate(dir.path(), "human");
    for title in [web, api] {
        assert!(human.contains(&format!("\n  {title}")), "{title}: {human}");
    }
    let json: Value = serde_json::from_str(&simulate(dir.path(), "json")).unwrap();
    let named: Vec<(&str, &str, &str)> = json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["kind"].as_str().unwrap(),
                w["name"].as_str().unwrap(),
                w["part"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            ("Application", "web", "values `worker`"),
            ("Application", "api", "values `worker`"),
        ]
    );

    let (mut c, uri) = open_in_server(dir.path(), ARGO_VALUES).await;
    let diagnostics = c.diagnostics(&uri, 1).await;
    let messages: Vec<&str> = diagnostics["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .filter(|m| m.contains("fits no node"))
        .collect();
    assert_eq!(messages, unschedulable);
    // Each lens (in the string, as in the object) opens the placement of its workload, named
    // as the findings name it.
    let r = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let lenses: Vec<(u64, &str)> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["command"]["arguments"][0]["title"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(lenses, [(14, web), (32, api)], "{r}");
    assert!(c.finish().await);
}
