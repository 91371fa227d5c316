//! Answers for the whole workspace, through real JSON-RPC (in memory): workspace symbols, and
//! renaming a taint key across the inventory (Node YAML, a pool file, Terraform) and the
//! workspace's manifests, open or not.

#[path = "support/client.rs"]
mod client;

use std::path::Path;

use serde_json::{json, Value};

use client::{apply_edits, push_client, Client};

fn file_uri(path: &Path) -> String {
    tower_lsp_server::ls_types::Uri::from_file_path(path)
        .unwrap()
        .as_str()
        .to_string()
}

/// The position of the start of `needle` (UTF-16; the texts here are ASCII before it).
fn position(text: &str, needle: &str) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let line = text[..at].matches('\n').count();
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let col: usize = text[line_start..at].chars().map(char::len_utf16).sum();
    json!({"line": line, "character": col})
}

/// The control-plane Nodes of a cluster from before Kubernetes 1.24, as `kubectl get nodes -o
/// yaml` prints them (trimmed), with the label and the retired taint key.
const NODES: &str = "\
apiVersion: v1
kind: List
items:
- kind: Node
  metadata:
    name: cp-1
    labels: {node-role.kubernetes.io/master: \"\", pool: cp}
  spec:
    taints:
    - effect: NoSchedule
      key: node-role.kubernetes.io/master
- kind: Node
  metadata:
    name: cp-2
    labels: {node-role.kubernetes.io/master: \"\", pool: cp}
  spec:
    taints:
    - {effect: NoSchedule, key: \"node-role.kubernetes.io/master\"}
";

/// A pool file in `kubectl taint` syntax.
const POOLS: &str = "\
pools:
  edge: {nodes: [edge-1], taints: [\"node-role.kubernetes.io/master:NoSchedule\", \"team.example.com/edge=yes:NoSchedule\"]}
  web:
    count: 3
";

/// An EKS managed node group (after the aws provider's aws_eks_node_group documentation).
const TERRAFORM: &str = "\
resource \"aws_eks_node_group\" \"cp\" {
  node_group_name = \"cp\"
  labels = { \"node-role.kubernetes.io/master\" = \"\" }
  taint {
    key    = \"node-role.kubernetes.io/master\"
    effect = \"NO_SCHEDULE\"
  }
}
";

/// A workload that nobody opens: its toleration names the key; its comment does not change.
const ADDON: &str = "\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: kube-proxy-addon, namespace: kube-system}
spec:
  template:
    spec:
      tolerations:
      # taintlint: disable=toleration-unused -- for node-role.kubernetes.io/master
      - key: node-role.kubernetes.io/master # the retired key
        operator: Exists
        effect: NoSchedule
      - key: team.example.com/edge
        operator: Exists
      # An effect the API server refuses: the key is renamed all the same.
      - {key: node-role.kubernetes.io/master, operator: Exists, effect: noschedule}
";

/// The workload the editor has open.
const OPEN: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: dns, namespace: kube-system}
spec:
  template:
    spec:
      tolerations: [{key: node-role.kubernetes.io/master, operator: Exists}]
";

struct Setup {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    c: Client,
}

fn caps() -> Value {
    let mut caps = push_client();
    caps["workspace"]["workspaceEdit"] = json!({
        "documentChanges": true,
        "changeAnnotationSupport": {"groupsOnLabel": true}
    });
    caps["textDocument"]["rename"] = json!({"prepareSupport": true});
    caps
}

async fn start(caps: Value) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("cluster")).unwrap();
    std::fs::create_dir_all(root.join("apps")).unwrap();
    for (path, text) in [
        ("cluster/nodes.yaml", NODES),
        ("cluster/pools.yaml", POOLS),
        ("cluster/eks.tf", TERRAFORM),
        ("apps/addon.yaml", ADDON),
        ("apps/dns.yaml", OPEN),
    ] {
        std::fs::write(root.join(path), text).unwrap();
    }
    let mut c = Client::start(Client::test_config());
    let r = c
        .initialize_in(
            Some(&file_uri(&root)),
            caps,
            json!({"inventory": ["cluster/nodes.yaml", "cluster/pools.yaml", "cluster/eks.tf"]}),
        )
        .await;
    assert!(r.get("error").is_none(), "{r}");
    // The workspace index is read in the background: wait for it.
    c.workspace_read().await;
    c.open(&file_uri(&root.join("apps/dns.yaml")), OPEN).await;
    Setup { _dir: dir, root, c }
}

#[tokio::test]
async fn workspace_symbols_name_taint_keys_with_their_pools_and_workloads() {
    let Setup { _dir, root, mut c } = start(caps()).await;
    let r = c
        .request("workspace/symbol", json!({"query": "team.example.com"}))
        .await;
    let symbols = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
    assert_eq!(symbols.len(), 1, "{r}");
    assert_eq!(symbols[0]["name"], "team.example.com/edge");
    assert_eq!(symbols[0]["kind"], 20, "a key: {r}");
    assert_eq!(symbols[0]["containerName"], "taint on pool edge");
    assert_eq!(
        symbols[0]["location"]["uri"],
        file_uri(&root.join("cluster/pools.yaml"))
    );

    // The retired key is carried by the Nodes' pool and two pool files; in any case.
    let r = c
        .request(
            "workspace/symbol",
            json!({"query": "Role.Kubernetes.IO/MASTER"}),
        )
        .await;
    let symbols = r["result"].as_array().unwrap();
    assert_eq!(symbols.len(), 1, "{r}");
    assert_eq!(symbols[0]["name"], "node-role.kubernetes.io/master");
    let container = symbols[0]["containerName"].as_str().unwrap();
    assert!(container.starts_with("taint on pools "), "{container}");
    assert!(
        container.contains("edge") && container.contains("cp"),
        "{container}"
    );

    // Workloads by name: the open one, and one on disk nobody opened.
    let r = c
        .request("workspace/symbol", json!({"query": "kube-proxy"}))
        .await;
    let symbols = r["result"].as_array().unwrap();
    assert_eq!(symbols.len(), 1, "{r}");
    assert_eq!(symbols[0]["name"], "kube-proxy-addon");
    assert_eq!(symbols[0]["containerName"], "DaemonSet in kube-system");
    assert_eq!(
        symbols[0]["location"]["uri"],
        file_uri(&root.join("apps/addon.yaml"))
    );
    assert_eq!(
        symbols[0]["location"]["range"]["start"],
        position(ADDON, "kind: DaemonSet")
    );
    let r = c.request("workspace/symbol", json!({"query": "dns"})).await;
    let names: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["dns"], "{r}");
    let r = c
        .request("workspace/symbol", json!({"query": "nothing-like-this"}))
        .await;
    assert_eq!(r["result"], json!([]), "{r}");
    assert!(c.finish().await);
}

/// The worked example: `node-role.kubernetes.io/master`, retired in Kubernetes 1.25 for
/// `node-role.kubernetes.io/control-plane`, renamed from a toleration.
#[tokio::test]
async fn rename_a_taint_key_across_inventory_and_workloads() {
    let Setup { _dir, root, mut c } = start(caps()).await;
    let dns = file_uri(&root.join("apps/dns.yaml"));
    let at = json!({"textDocument": {"uri": dns}, "position": position(OPEN, "role.kubernetes.io/master")});
    let r = c.request("textDocument/prepareRename", at.clone()).await;
    assert_eq!(
        r["result"]["placeholder"], "node-role.kubernetes.io/master",
        "{r}"
    );
    assert_eq!(
        r["result"]["range"]["start"],
        position(OPEN, "node-role.kubernetes.io/master")
    );

    let mut params = at.clone();
    params["newName"] = json!("node-role.kubernetes.io/control-plane");
    let r = c.request("textDocument/rename", params).await;
    let edit = &r["result"];
    let changes = edit["documentChanges"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"));
    assert!(edit.get("changeAnnotations").is_none(), "{edit}");
    let mut files: Vec<(String, String)> = Vec::new();
    for change in changes {
        let uri = change["textDocument"]["uri"].as_str().unwrap().to_string();
        let edits = change["edits"].as_array().unwrap();
        // Plain edits, applied when the user presses Enter: no annotation asks the editor for a
        // confirmation (which VS Code shows as a preview with every edit unticked).
        assert!(
            edits.iter().all(|e| e.get("annotationId").is_none()),
            "{change}"
        );
        // The open document's edit is for the version the editor has.
        if uri == dns {
            assert_eq!(change["textDocument"]["version"], 1);
        } else {
            assert_eq!(change["textDocument"]["version"], Value::Null);
        }
        let path = root.join(
            uri.strip_prefix(&file_uri(&root))
                .unwrap()
                .trim_start_matches('/'),
        );
        let text = std::fs::read_to_string(&path).unwrap();
        files.push((
            path.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            apply_edits(&text, edits, true),
        ));
    }
    files.sort();
    let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "apps/addon.yaml",
            "apps/dns.yaml",
            "cluster/eks.tf",
            "cluster/nodes.yaml",
            "cluster/pools.yaml"
        ]
    );
    // The taints and tolerations change; labels and comments (even one naming the key) do not.
    let new = |text: &str| {
        text.replace(
            "- key: node-role.kubernetes.io/master",
            "- key: node-role.kubernetes.io/control-plane",
        )
        .replace(
            "{key: node-role.kubernetes.io/master",
            "{key: node-role.kubernetes.io/control-plane",
        )
    };
    let renamed: std::collections::HashMap<&str, &str> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    assert_eq!(renamed["apps/addon.yaml"], new(ADDON));
    assert!(renamed["apps/addon.yaml"].contains(
        "# taintlint: disable=toleration-unused -- for node-role.kubernetes.io/master\n"
    ));
    assert!(renamed["apps/addon.yaml"].contains("# the retired key"));
    assert_eq!(renamed["apps/dns.yaml"], new(OPEN));
    assert_eq!(
        renamed["cluster/nodes.yaml"],
        NODES
            .replace(
                "key: node-role.kubernetes.io/master\n",
                "key: node-role.kubernetes.io/control-plane\n"
            )
            .replace(
                "key: \"node-role.kubernetes.io/master\"",
                "key: \"node-role.kubernetes.io/control-plane\""
            )
    );
    assert_eq!(
        renamed["cluster/nodes.yaml"]
            .matches("labels: {node-role.kubernetes.io/master: \"\"")
            .count(),
        2
    );
    assert_eq!(
        renamed["cluster/pools.yaml"],
        POOLS.replace(
            "node-role.kubernetes.io/master:NoSchedule",
            "node-role.kubernetes.io/control-plane:NoSchedule"
        )
    );
    assert_eq!(
        renamed["cluster/eks.tf"],
        TERRAFORM.replace(
            "key    = \"node-role.kubernetes.io/master\"",
            "key    = \"node-role.kubernetes.io/control-plane\""
        )
    );

    // From the inventory too: a pool file's compact taint.
    let pools = file_uri(&root.join("cluster/pools.yaml"));
    c.open(&pools, POOLS).await;
    let r = c
        .request(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": pools}, "position": position(POOLS, "kubernetes.io/master:NoSchedule")}),
        )
        .await;
    assert_eq!(
        r["result"]["placeholder"], "node-role.kubernetes.io/master",
        "{r}"
    );
    assert!(c.finish().await);
}

#[tokio::test]
async fn rename_refuses_an_invalid_key_and_a_place_that_is_not_a_key() {
    let Setup { _dir, root, mut c } = start(caps()).await;
    let dns = file_uri(&root.join("apps/dns.yaml"));
    let at = json!({"textDocument": {"uri": dns}, "position": position(OPEN, "node-role.kubernetes.io/master")});
    for (new, reason) in [
        (
            "Node-Role.example.com/x",
            "`Node-Role.example.com/x` is not a valid taint key: it has a prefix that is not a lowercase DNS name",
        ),
        ("a/b/c", "`a/b/c` is not a valid taint key: it has more than one `/`"),
        ("", "`` is not a valid taint key: it is empty"),
    ] {
        let mut params = at.clone();
        params["newName"] = json!(new);
        let r = c.request("textDocument/rename", params).await;
        assert_eq!(r["error"]["code"], -32803, "{r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("taintlint: {reason}")), "{message}");
    }
    // Not on a key: the operator.
    let r = c
        .request(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": dns}, "position": position(OPEN, "Exists")}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32803, "{r}");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("put the cursor on the key of a taint or a toleration"));
    assert!(c.finish().await);
}

/// A client without document changes gets plain `changes`, one list per file.
#[tokio::test]
async fn rename_without_document_changes() {
    let mut caps = caps();
    caps["workspace"]["workspaceEdit"] = json!({});
    let Setup { _dir, root, mut c } = start(caps).await;
    let dns = file_uri(&root.join("apps/dns.yaml"));
    let r = c
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": dns}, "position": position(OPEN, "node-role"), "newName": "node-role.kubernetes.io/control-plane"}),
        )
        .await;
    let changes = r["result"]["changes"]
        .as_object()
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(changes.len(), 5, "{r}");
    assert_eq!(changes[&dns].as_array().unwrap().len(), 1);
    assert!(r["result"].get("documentChanges").is_none());
    assert!(c.finish().await);
}

/// A pool file with one pool and nothing on it yet.
const ONE_POOL: &str = "\
pools:
  general:
    count: 2
";

/// Workloads nobody opens: one that tolerates the taint the pool will get, one that does not.
const TOLERATES: &str = "\
kind: Deployment
metadata: {name: trainer}
spec:
  template:
    spec:
      tolerations: [{key: dedicated, value: ml, effect: NoSchedule}]
";
const PLAIN: &str = "\
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: [{name: web, image: nginx}]
";

struct Repo {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("apps")).unwrap();
        std::fs::create_dir_all(root.join("vendor")).unwrap();
        std::fs::write(root.join("pools.yaml"), ONE_POOL).unwrap();
        std::fs::write(root.join("apps/trainer.yaml"), TOLERATES).unwrap();
        std::fs::write(root.join("apps/web.yaml"), PLAIN).unwrap();
        // Excluded by the project's configuration: never reported.
        std::fs::write(root.join("vendor/web.yaml"), PLAIN).unwrap();
        std::fs::write(
            root.join(".taintlint.yaml"),
            "exclude: [\"vendor/**\"]\ninventory: pools.yaml\n",
        )
        .unwrap();
        Repo { _dir: dir, root }
    }

    fn uri(&self, path: &str) -> String {
        file_uri(&self.root.join(path))
    }
}

/// What a workspace/diagnostic answer says: per file, `unchanged` or the rules found.
fn reports(r: &Value) -> std::collections::BTreeMap<String, Value> {
    r["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|i| {
            let what = if i["kind"] == "unchanged" {
                json!("unchanged")
            } else {
                json!(i["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d["code"].clone())
                    .collect::<Vec<_>>())
            };
            (i["uri"].as_str().unwrap().to_string(), what)
        })
        .collect()
}

fn result_ids(r: &Value) -> Value {
    json!(r["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| Some(json!({"uri": i["uri"], "value": i["resultId"].as_str()?})))
        .collect::<Vec<_>>())
}

/// Asks for workspace diagnostics until `done` (the inventory is reloaded in the background)
/// or five seconds have passed; returns the last answer.
async fn workspace_diagnostics_until(
    c: &mut Client,
    previous: Value,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let r = c
            .request(
                "workspace/diagnostic",
                json!({"previousResultIds": previous}),
            )
            .await;
        if done(&r) || std::time::Instant::now() > deadline {
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn workspace_diagnostics_pulled_with_result_ids() {
    let repo = Repo::new();
    let mut c = Client::start(Client::test_config());
    let r = c
        .initialize_in(
            Some(&file_uri(&repo.root)),
            client::pull_client(),
            json!({}),
        )
        .await;
    assert_eq!(
        r["result"]["capabilities"]["diagnosticProvider"]["workspaceDiagnostics"], true,
        "{r}"
    );
    c.workspace_read().await;
    let (trainer, web) = (repo.uri("apps/trainer.yaml"), repo.uri("apps/web.yaml"));
    let first = workspace_diagnostics_until(&mut c, json!([]), |r| reports(r).len() == 2).await;
    // The excluded file and the inventory file are not reported.
    let mut want = std::collections::BTreeMap::new();
    want.insert(trainer.clone(), json!(["toleration-unused"]));
    want.insert(web.clone(), json!([]));
    assert_eq!(reports(&first), want, "{first}");

    // The same ids again: nothing changed.
    let ids = result_ids(&first);
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": ids}))
        .await;
    assert!(reports(&r).values().all(|v| v == "unchanged"), "{r}");
    // A stale id gets the full report.
    let stale = json!([{"uri": trainer, "value": "stale"}]);
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": stale}))
        .await;
    assert_eq!(reports(&r)[&trainer], json!(["toleration-unused"]), "{r}");

    // An unsaved edit to the pool file: the workload that does not tolerate the new taint
    // fits no node; the one that does no longer has an unused toleration.
    let pools = repo.uri("pools.yaml");
    c.open(&pools, ONE_POOL).await;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pools, "version": 2}, "contentChanges": [{"text": format!("{ONE_POOL}    taints: [\"dedicated=ml:NoSchedule\"]\n")}]}),
    )
    .await;
    // Asked at once, the answer is made for the edited pools: the edit is read first.
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": ids}))
        .await;
    let mut want = std::collections::BTreeMap::new();
    want.insert(trainer.clone(), json!([]));
    want.insert(web.clone(), json!(["unschedulable"]));
    assert_eq!(reports(&r), want, "{r}");
    // The server asked the client to pull again.
    c.server_request("workspace/diagnostic/refresh").await;

    // A file that is not open carries no fixes; opened, its diagnostic as the workspace report
    // gave it is offered the fix from the document's own analysis.
    let report = r["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["uri"] == web.as_str())
        .unwrap();
    let diagnostic = report["items"][0].clone();
    assert_eq!(diagnostic["code"], "unschedulable");
    assert!(diagnostic.get("data").is_none(), "{diagnostic}");
    c.open(&web, PLAIN).await;
    let own = c
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": web}}),
        )
        .await;
    assert!(
        own["result"]["items"][0]["data"]["fixes"].is_array(),
        "{own}"
    );
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": web}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic]}}),
        )
        .await;
    let titles: Vec<&str> = actions["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{actions}"))
        .iter()
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("Tolerate dedicated=ml:NoSchedule")),
        "{titles:?}"
    );
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": web}}),
    )
    .await;

    // A file deleted between requests: an empty report for it, then nothing.
    std::fs::remove_file(repo.root.join("apps/web.yaml")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": web, "type": 3}]}),
    )
    .await;
    let ids = result_ids(&r);
    let r = workspace_diagnostics_until(&mut c, ids, |r| reports(r).get(&web) == Some(&json!([])))
        .await;
    assert_eq!(reports(&r)[&web], json!([]), "{r}");
    let gone = r["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["uri"] == web.as_str())
        .unwrap();
    assert_eq!(gone["kind"], "full");
    assert!(gone.get("resultId").is_none(), "{gone}");
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": []}))
        .await;
    assert!(!reports(&r).contains_key(&web), "{r}");
    assert!(c.finish().await);
}

/// A chart's template, rendering `.Values.worker` into a Deployment.
const CHART_TEMPLATE: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      {{- with .Values.worker.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: app
          image: \"{{ .Values.worker.image }}\"
";

/// A chart's values file nobody opens is judged again when its chart's templates change on
/// disk: the workload they render it into is a DaemonSet now, and its finding says so.
/// The workspace's cluster objects come from its files as `lint` reads them: a Namespace's
/// toleration whitelist in one unopened file rejects a Pod in another, with the admission plugin
/// on (the workspace read parses each file once for its facts and its cluster objects).
#[tokio::test]
async fn a_namespace_in_one_file_decides_another_files_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let namespace =
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations:\n    \
                     scheduler.alpha.kubernetes.io/tolerationsWhitelist: \
                     '[{\"key\":\"tenant\",\"operator\":\"Exists\"}]'\n";
    let pod = "kind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  tolerations:\n  \
               - {key: gpu, operator: Exists, effect: NoSchedule}\n  containers: [{name: c, image: nginx}]\n";
    for (path, text) in [
        ("ns.yaml", namespace),
        ("pod.yaml", pod),
        (
            ".taintlint.yaml",
            "admission-plugins:\n  enable: [PodTolerationRestriction]\n",
        ),
    ] {
        std::fs::write(root.join(path), text).unwrap();
    }
    let mut c = Client::start(Client::test_config());
    c.initialize_in(Some(&file_uri(&root)), client::pull_client(), json!({}))
        .await;
    c.workspace_read().await;
    let pod_uri = file_uri(&root.join("pod.yaml"));
    let r = workspace_diagnostics_until(&mut c, json!([]), |r| {
        reports(r).get(&pod_uri).is_some_and(|v| v != &json!([]))
    })
    .await;
    assert_eq!(
        reports(&r).get(&pod_uri),
        Some(&json!(["admission-rejected"])),
        "{r}"
    );
}

#[tokio::test]
async fn an_unopened_values_file_follows_its_charts_templates() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let chart = root.join("charts/app");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        root.join("pools.yaml"),
        "pools:\n  general:\n    count: 2\n    taints: [\"dedicated=ml:NoSchedule\"]\n",
    )
    .unwrap();
    std::fs::write(root.join(".taintlint.yaml"), "inventory: pools.yaml\n").unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    )
    .unwrap();
    let template = chart.join("templates/deployment.yaml");
    std::fs::write(&template, CHART_TEMPLATE).unwrap();
    std::fs::write(
        chart.join("values.yaml"),
        "worker:\n  image: registry.example.com/app:1\n",
    )
    .unwrap();
    let values = file_uri(&chart.join("values.yaml"));
    let mut c = Client::start(Client::test_config());
    c.initialize_in(Some(&file_uri(&root)), client::pull_client(), json!({}))
        .await;
    c.workspace_read().await;
    let message = |r: &Value| -> String {
        r["result"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["uri"] == values.as_str() && i["kind"] == "full")
            .map(|i| i["items"][0]["message"].as_str().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    let first = workspace_diagnostics_until(&mut c, json!([]), |r| !message(r).is_empty()).await;
    assert!(
        message(&first).starts_with("Deployment `worker` fits no node"),
        "{first}"
    );

    std::fs::write(
        &template,
        CHART_TEMPLATE.replace("kind: Deployment", "kind: DaemonSet"),
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&template), "type": 2}]}),
    )
    .await;
    // The client is asked to pull again, and the values file is reported changed.
    c.server_request("workspace/diagnostic/refresh").await;
    let r =
        workspace_diagnostics_until(&mut c, result_ids(&first), |r| !message(r).is_empty()).await;
    assert!(
        message(&r).starts_with("DaemonSet `worker` fits no node"),
        "{r}"
    );
    assert!(c.finish().await);
}

/// A client without pull diagnostics (Neovim 0.11) is sent the unopened files' diagnostics
/// when a pool edit changes them, and cleared when it no longer does.
#[tokio::test]
async fn workspace_diagnostics_pushed_to_a_client_that_cannot_pull() {
    let repo = Repo::new();
    let mut c = Client::start(Client::test_config());
    let r = c
        .initialize_in(Some(&file_uri(&repo.root)), push_client(), json!({}))
        .await;
    assert!(
        r["result"]["capabilities"]
            .get("diagnosticProvider")
            .is_none(),
        "{r}"
    );
    let (trainer, web) = (repo.uri("apps/trainer.yaml"), repo.uri("apps/web.yaml"));
    let published = |uri: String| {
        move |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
        }
    };
    let codes = |m: &Value| -> Vec<Value> {
        m["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].clone())
            .collect()
    };
    // What the files say at first (the file with nothing to say is not sent).
    let m = c.notification_where(published(trainer.clone())).await;
    assert_eq!(codes(&m), [json!("toleration-unused")]);

    let pools = repo.uri("pools.yaml");
    c.open(&pools, ONE_POOL).await;
    let tainted = format!("{ONE_POOL}    taints: [\"dedicated=ml:NoSchedule\"]\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pools, "version": 2}, "contentChanges": [{"text": tainted}]}),
    )
    .await;
    let m = c.notification_where(published(web.clone())).await;
    assert_eq!(codes(&m), [json!("unschedulable")], "{m}");
    assert_eq!(m["params"].get("version"), None, "{m}");
    let m = c.notification_where(published(trainer.clone())).await;
    assert_eq!(codes(&m), Vec::<Value>::new(), "{m}");
    let excluded = repo.uri("vendor/web.yaml");
    assert!(
        !c.drain_queued()
            .iter()
            .any(|m| m["params"]["uri"] == excluded.as_str()),
        "an excluded file was published"
    );

    // The taint is taken back: the workload's error is cleared.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pools, "version": 3}, "contentChanges": [{"text": ONE_POOL}]}),
    )
    .await;
    let m = c.notification_where(published(web.clone())).await;
    assert_eq!(codes(&m), Vec::<Value>::new(), "{m}");
    let m = c.notification_where(published(trainer.clone())).await;
    assert_eq!(codes(&m), [json!("toleration-unused")], "{m}");
    assert!(c.finish().await);
}

/// The pools of the equivalence test below: a web pool, and a GPU pool tainted for its jobs.
const EQ_POOLS: &str = "\
pools:
  web:
    count: 3
    labels: {example.com/pool: web}
  gpu:
    count: 2
    labels: {example.com/pool: gpu}
    taints: [\"example.com/gpu=true:NoSchedule\"]
";

/// The workspace of the equivalence test: workloads on each pool (two in one file), a
/// kustomization whose inline patch adds a toleration (YAML in a string, linted with the
/// inventory), and files whose findings do not depend on the inventory (a Node with a
/// mistyped effect, a Service).
const EQ_FILES: &[(&str, &str)] = &[
    (
        "apps/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      nodeSelector: {example.com/pool: web}\n      containers: [{name: web, image: nginx}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec:\n  ports: [{port: 80}]\n",
    ),
    (
        "apps/trainer.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: trainer, namespace: ml}\nspec:\n  template:\n    spec:\n      nodeSelector: {example.com/pool: gpu}\n      tolerations:\n      - {key: example.com/gpu, operator: Equal, value: \"true\", effect: NoSchedule}\n      - {key: example.com/spot, operator: Exists}\n      containers: [{name: train, image: trainer}]\n      restartPolicy: Never\n",
    ),
    (
        "apps/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [web.yaml]\npatches:\n- target: {kind: Deployment, name: web}\n  patch: |\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: web}\n    spec:\n      template:\n        spec:\n          tolerations:\n          - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}\n",
    ),
    (
        "apps/node.yaml",
        "apiVersion: v1\nkind: Node\nmetadata: {name: spare-1}\nspec:\n  taints: [{key: example.com/spare, effect: noschedule}]\n",
    ),
    // Three documents: a taint on the web pool changes the last one's findings; the second asks
    // what the first asks, and keeps its findings when they read the same of a new inventory.
    (
        "apps/mixed.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: infer, namespace: ml}\nspec:\n  selector: {matchLabels: {app: infer}}\n  template:\n    metadata: {labels: {app: infer}}\n    spec:\n      nodeSelector: {example.com/pool: gpu}\n      tolerations:\n      - {key: example.com/gpu, operator: Exists, effect: NoSchedule}\n      - {key: example.com/gpux, operator: Exists}\n      containers: [{name: infer, image: infer}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: infer-canary, namespace: ml}\nspec:\n  selector: {matchLabels: {app: infer-canary}}\n  template:\n    metadata: {labels: {app: infer-canary}}\n    spec:\n      nodeSelector: {example.com/pool: gpu}\n      tolerations:\n      - {key: example.com/gpu, operator: Exists, effect: NoSchedule}\n      - {key: example.com/gpux, operator: Exists}\n      containers: [{name: infer, image: infer}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: shop, namespace: shop}\nspec:\n  selector: {matchLabels: {app: shop}}\n  template:\n    metadata: {labels: {app: shop}}\n    spec:\n      nodeSelector: {example.com/pool: web}\n      containers: [{name: shop, image: shop}]\n",
    ),
    (
        "apps/service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec:\n  ports: [{port: 443}]\n",
    ),
];

/// Per file (its path from the workspace root), the diagnostics a pulling client holds, with
/// the workspace root's URI written `ROOT` (related places into the inventory name it).
type Held = std::collections::BTreeMap<String, Value>;

fn relative(uri: &str, root: &str) -> String {
    uri.strip_prefix(root)
        .and_then(|p| p.strip_prefix('/'))
        .unwrap_or(uri)
        .to_string()
}

fn normalized(items: &Value, root: &str) -> Value {
    serde_json::from_str(&items.to_string().replace(root, "ROOT")).unwrap()
}

/// What a server started afresh on `files` (the pool file as given, on disk) reports.
async fn fresh(files: &[(&str, String)]) -> Held {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut c = Client::start(Client::test_config());
    c.initialize_in(
        Some(&file_uri(&root)),
        client::pull_client(),
        // Overlays are not rendered: a render lands in the background at a moment of its
        // own in each server, and what an edit does to kept results is what is compared.
        json!({"inventory": ["cluster/pools.yaml"], "kustomize": "off"}),
    )
    .await;
    c.workspace_read().await;
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": []}))
        .await;
    let root = file_uri(&root);
    let held = r["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|i| {
            (
                relative(i["uri"].as_str().unwrap(), &root),
                normalized(&i["items"], &root),
            )
        })
        .collect();
    assert!(c.finish().await);
    held
}

/// A pulling client's view after one answer: a full report replaces what it held, an
/// unchanged one keeps it, a file not reported or reported empty without a result id is gone.
/// Every full report must differ from what the client held (result ids change only for files
/// whose diagnostics changed).
fn pulled(held: &Held, r: &Value, root: &str) -> (Held, Value) {
    let mut now = Held::new();
    let mut ids = Vec::new();
    for i in r["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
    {
        let path = relative(i["uri"].as_str().unwrap(), root);
        if i["kind"] == "unchanged" {
            now.insert(path.clone(), held[&path].clone());
        } else if i.get("resultId").is_some() {
            let items = normalized(&i["items"], root);
            assert_ne!(
                held.get(&path),
                Some(&items),
                "{path} reported as changed with the diagnostics it had"
            );
            now.insert(path.clone(), items);
        } else {
            continue;
        }
        ids.push(json!({"uri": i["uri"], "value": i["resultId"]}));
    }
    (now, json!(ids))
}

/// One edit of the equivalence test: what it does, the pool file as the editor holds it (None
/// once it is deleted), a workload file written to disk.
type Step = (&'static str, Option<String>, Option<(&'static str, String)>);

/// After each edit (a taint added to a pool and taken back, a pool renamed, a line break that
/// moves the pool file's places without moving their bytes, a workload file changed on disk,
/// the pool file deleted), what the server that kept its results reports for
/// the workspace equals what a server started afresh on the same files reports, and only the
/// files whose diagnostics changed are reported as changed. A cached result kept past an edit
/// that changes it fails here.
#[tokio::test]
async fn incremental_workspace_diagnostics_equal_a_fresh_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let mut files: Vec<(&str, String)> = vec![("cluster/pools.yaml", EQ_POOLS.to_string())];
    files.extend(EQ_FILES.iter().map(|(p, t)| (*p, t.to_string())));
    for (path, text) in &files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut c = Client::start(Client::test_config());
    c.initialize_in(
        Some(&file_uri(&root)),
        client::pull_client(),
        // Overlays are not rendered: a render lands in the background at a moment of its
        // own in each server, and what an edit does to kept results is what is compared.
        json!({"inventory": ["cluster/pools.yaml"], "kustomize": "off"}),
    )
    .await;
    c.workspace_read().await;
    let root_uri = file_uri(&root);
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": []}))
        .await;
    let (mut held, mut ids) = pulled(&Held::new(), &r, &root_uri);
    assert_eq!(held, fresh(&files).await);
    let codes = |held: &Held, path: &str| -> Vec<String> {
        held[path]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(codes(&held, "apps/node.yaml"), ["unknown-effect"]);
    assert!(codes(&held, "apps/web.yaml").is_empty());

    let pools_uri = file_uri(&root.join("cluster/pools.yaml"));
    c.open(&pools_uri, EQ_POOLS).await;
    let web_tainted = EQ_POOLS.replace(
        "labels: {example.com/pool: web}\n",
        "labels: {example.com/pool: web}\n    taints: [\"dedicated=web:NoSchedule\"]\n",
    );
    let renamed = web_tainted.replace("  web:\n", "  frontend:\n");
    let commented = format!("#\n#\n{renamed}");
    let mut version = 1;
    let steps: Vec<Step> = vec![
        (
            "a taint added to the web pool",
            Some(web_tainted.clone()),
            None,
        ),
        ("the taint taken back", Some(EQ_POOLS.to_string()), None),
        ("the taint added again", Some(web_tainted.clone()), None),
        ("the web pool renamed", Some(renamed.clone()), None),
        // Places in the pool file move down a line while their byte offsets stay: the
        // findings are the same, their related places are not.
        (
            "a comment added above the pools",
            Some(format!("# a\n{renamed}")),
            None,
        ),
        (
            "the comment split in two lines",
            Some(commented.clone()),
            None,
        ),
        (
            "a pool added after the others",
            Some(format!(
                "{commented}  spare:\n    count: 1\n    labels: {{example.com/pool: spare}}\n"
            )),
            None,
        ),
        (
            "a workload file changed on disk",
            Some(format!(
                "{commented}  spare:\n    count: 1\n    labels: {{example.com/pool: spare}}\n"
            )),
            Some((
                "apps/trainer.yaml",
                EQ_FILES[1]
                    .1
                    .replace("value: \"true\"", "value: \"yes\"")
                    .replace("example.com/pool: gpu", "example.com/pool: web"),
            )),
        ),
        ("the pool file deleted", None, None),
    ];
    let mut changed_files = 0;
    for (what, pools, workload) in steps {
        if let Some((path, text)) = &workload {
            std::fs::write(root.join(path), text).unwrap();
            c.notify(
                "workspace/didChangeWatchedFiles",
                json!({"changes": [{"uri": file_uri(&root.join(path)), "type": 2}]}),
            )
            .await;
            let at = files.iter().position(|(p, _)| p == path).unwrap();
            files[at].1 = text.clone();
        }
        match &pools {
            Some(text) if *text != files[0].1 => {
                version += 1;
                c.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": pools_uri, "version": version}, "contentChanges": [{"text": text}]}),
                )
                .await;
                files[0].1 = text.clone();
            }
            Some(_) => {}
            None => {
                c.notify(
                    "textDocument/didClose",
                    json!({"textDocument": {"uri": pools_uri}}),
                )
                .await;
                std::fs::remove_file(root.join("cluster/pools.yaml")).unwrap();
                c.notify(
                    "workspace/didChangeWatchedFiles",
                    json!({"changes": [{"uri": pools_uri, "type": 3}]}),
                )
                .await;
                files.remove(0);
            }
        }
        let want = fresh(&files).await;
        // The edit is applied in the background: pull until the answer settles on it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let r = c
                .request("workspace/diagnostic", json!({"previousResultIds": ids}))
                .await;
            let (now, now_ids) = pulled(&held, &r, &root_uri);
            changed_files += r["result"]["items"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| i["kind"] == "full")
                .count();
            (held, ids) = (now, now_ids);
            if held == want || std::time::Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(held, want, "after {what}");
        match what {
            "a taint added to the web pool" | "the taint added again" => {
                assert_eq!(codes(&held, "apps/web.yaml"), ["unschedulable"], "{what}");
                let mixed = ["toleration-unused", "toleration-unused", "unschedulable"];
                assert_eq!(codes(&held, "apps/mixed.yaml"), mixed, "{what}");
            }
            "the taint taken back" => {
                assert!(codes(&held, "apps/web.yaml").is_empty());
                let mixed = ["toleration-unused", "toleration-unused"];
                assert_eq!(codes(&held, "apps/mixed.yaml"), mixed, "{what}");
            }
            "the comment split in two lines" => assert!(
                held["apps/web.yaml"]
                    .to_string()
                    .contains("ROOT/cluster/pools.yaml"),
                "a finding points into the pool file: {}",
                held["apps/web.yaml"]
            ),
            _ => {}
        }
        // The files whose findings cannot depend on the inventory keep theirs.
        assert_eq!(codes(&held, "apps/node.yaml"), ["unknown-effect"], "{what}");
    }
    assert!(
        changed_files >= 6,
        "{changed_files} files reported as changed"
    );
    assert!(c.finish().await);
}

/// Keystrokes in a pool file that come faster than the workspace is judged (a judgement made
/// stale by the next keystroke is cut short and not published): what a client that only takes
/// pushed diagnostics ends up showing for each file equals what a fresh server reports.
#[tokio::test]
async fn pushed_workspace_diagnostics_settle_on_the_last_keystroke() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let mut files: Vec<(&str, String)> = vec![("cluster/pools.yaml", EQ_POOLS.to_string())];
    files.extend(EQ_FILES.iter().map(|(p, t)| (*p, t.to_string())));
    for (path, text) in &files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut c = Client::start(Client::test_config());
    c.initialize_in(
        Some(&file_uri(&root)),
        push_client(),
        // Not rendered: compared with a fresh analysis that does not render (see
        // `incremental_workspace_diagnostics_equal_a_fresh_analysis`).
        json!({"inventory": ["cluster/pools.yaml"], "kustomize": "off"}),
    )
    .await;
    // The workspace as it is, first: the Node's finding is published.
    let node = file_uri(&root.join("apps/node.yaml"));
    let first = c
        .notification_where(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == node.as_str()
        })
        .await;
    let pools_uri = file_uri(&root.join("cluster/pools.yaml"));
    c.open(&pools_uri, EQ_POOLS).await;
    let tainted = EQ_POOLS.replace(
        "labels: {example.com/pool: web}\n",
        "labels: {example.com/pool: web}\n    taints: [\"dedicated=web:NoSchedule\"]\n",
    );
    // Typed: the taint appears, goes, and appears again, one keystroke after the other.
    for version in 2..=9 {
        let text = if version % 2 == 1 { &tainted } else { EQ_POOLS };
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": pools_uri, "version": version}, "contentChanges": [{"text": text}]}),
        )
        .await;
    }
    files[0].1 = tainted.clone();
    let want = fresh(&files).await;
    let root_uri = file_uri(&root);
    let web = file_uri(&root.join("apps/web.yaml"));
    let mut shown = Held::new();
    shown.insert(
        "apps/node.yaml".to_string(),
        normalized(&first["params"]["diagnostics"], &root_uri),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        for m in c.quiet_for(std::time::Duration::from_millis(300)).await {
            if m["method"] == "textDocument/publishDiagnostics" {
                let uri = m["params"]["uri"].as_str().unwrap();
                shown.insert(
                    relative(uri, &root_uri),
                    normalized(&m["params"]["diagnostics"], &root_uri),
                );
            }
        }
        let now: Held = want
            .keys()
            .map(|k| (k.clone(), shown.get(k).cloned().unwrap_or(json!([]))))
            .collect();
        if now == want || std::time::Instant::now() > deadline {
            assert_eq!(now, want);
            break;
        }
    }
    assert!(shown.contains_key(&relative(&web, &root_uri)));
    assert!(c.finish().await);
}

/// The code lens of an inventory file's unsaved edit, its command's list and the hover.
async fn edit_lens(c: &mut Client, uri: &str) -> (Value, Value, Value) {
    let lenses = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let lens = lenses["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{lenses}"))
        .first()
        .cloned()
        .unwrap_or(Value::Null);
    let at = json!({"line": 0, "character": 0});
    let listed = c
        .request(
            "taintlint/placement",
            json!({"textDocument": {"uri": uri}, "position": at}),
        )
        .await;
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}),
        )
        .await;
    (lens, listed["result"].clone(), hover["result"].clone())
}

#[tokio::test]
async fn a_pool_files_unsaved_edit_says_what_it_strands_and_frees() {
    let repo = Repo::new();
    let mut c = Client::start(Client::test_config());
    c.initialize_in(
        Some(&file_uri(&repo.root)),
        client::pull_client(),
        json!({}),
    )
    .await;
    c.workspace_read().await;
    let pools = repo.uri("pools.yaml");
    c.open(&pools, ONE_POOL).await;
    // As saved: no lens, nothing to hover.
    let (lens, listed, hover) = edit_lens(&mut c, &pools).await;
    assert_eq!(
        (lens, listed, hover),
        (Value::Null, Value::Null, Value::Null)
    );

    // A taint the web Deployment does not tolerate: it loses the only pool (the excluded
    // vendor/web.yaml does not count; the trainer tolerates it).
    let tainted = format!("{ONE_POOL}    taints: [\"dedicated=ml:NoSchedule\"]\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pools, "version": 2}, "contentChanges": [{"text": tainted}]}),
    )
    .await;
    let (lens, listed, hover) = edit_lens(&mut c, &pools).await;
    assert_eq!(
        lens["command"]["title"], "unsaved edit: strands 1 workload",
        "{lens}"
    );
    assert_eq!(lens["command"]["command"], "taintlint.showPlacement");
    assert_eq!(listed["title"], "What the unsaved edit moves", "{listed}");
    let details = listed["details"].as_str().unwrap();
    assert!(
        details.contains("Stranded:\n  Deployment web (apps/web.yaml)\n"),
        "{details}"
    );
    assert!(!details.contains("trainer") && !details.contains("Freed"));
    let hover = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        hover.contains("unsaved edit: strands 1 workload") && hover.contains("Deployment web"),
        "{hover}"
    );

    // Saved with the taint, then edited back: the edit frees the web Deployment.
    std::fs::write(repo.root.join("pools.yaml"), &tainted).unwrap();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pools, "version": 3}, "contentChanges": [{"text": ONE_POOL}]}),
    )
    .await;
    let (lens, listed, _) = edit_lens(&mut c, &pools).await;
    assert_eq!(lens["command"]["title"], "unsaved edit: frees 1 workload");
    assert!(
        listed["details"]
            .as_str()
            .unwrap()
            .contains("Freed:\n  Deployment web (apps/web.yaml)\n"),
        "{listed}"
    );
    assert!(c.finish().await);
}
