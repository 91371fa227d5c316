//! The cluster in the editor, through real JSON-RPC (in memory): code lenses per workload,
//! inlay hints on tolerations, definition into the inventory, references to a taint, the
//! outline; positions under Japanese text and emoji in UTF-16 and UTF-8.

#[path = "support/client.rs"]
mod client;

use std::path::Path;

use serde_json::{json, Value};

use client::{push_client, Client};

/// A pool file with Japanese text and an emoji before a taint on its line.
const POOLS: &str = "\
# 日本のクラスタ 🚀
pools:
  gpu: {labels: {disk: ssd}, nodes: [gpu-1], note: 0, taints: [\"team.example.com/inference=a:NoSchedule\"]}
  batch:
    count: 2
    labels: {disk: ssd}
    taints:
    - batch.example.com/spot=true:PreferNoSchedule
    - {key: batch.example.com/spot, value: \"true\", effect: NoExecute} # 🚀
  web:
    count: 3
    labels: {disk: hdd}
";

/// Workloads with Japanese text and emoji before the places the server points at.
const WORKLOADS: &str = "\
# ワークロード 🚀
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      nodeSelector: {disk: ssd}
      tolerations:
      - key: team.example.com/inference # 推論用🚀ノード
        operator: Exists
      - {key: batch.example.com/spot, operator: Exists, effect: NoExecute, tolerationSeconds: 600} # 🚀
---
kind: List
items:
- {metadata: {name: p, annotations: {note: \"日本🚀\"}}, kind: Pod, spec: {nodeSelector: {disk: nvme}, tolerations: [{key: nowhere.example.com/x, operator: Exists}]}}
";

fn pools_text() -> String {
    POOLS.replace("note: 0, ", "")
}

/// A position (0-based line, column in UTF-16 units or bytes) of byte offset `at`.
fn position_at(text: &str, at: usize, utf16: bool) -> Value {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count();
    let col: usize = if utf16 {
        text[line_start..at].chars().map(char::len_utf16).sum()
    } else {
        at - line_start
    };
    json!({"line": line, "character": col})
}

/// The position of the start of `needle`.
fn position(text: &str, needle: &str, utf16: bool) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    position_at(text, at, utf16)
}

/// The position just after `needle`.
fn position_after(text: &str, needle: &str, utf16: bool) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"))
        + needle.len();
    position_at(text, at, utf16)
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A client with code lens and inlay hint refresh, in UTF-16 or UTF-8.
fn caps(utf16: bool) -> Value {
    let mut caps = push_client();
    if !utf16 {
        caps["general"] = json!({"positionEncodings": ["utf-8", "utf-16"]});
    }
    caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
    caps["workspace"]["codeLens"] = json!({"refreshSupport": true});
    caps["workspace"]["inlayHint"] = json!({"refreshSupport": true});
    caps
}

struct Setup {
    _dir: tempfile::TempDir,
    pools: std::path::PathBuf,
    workloads_uri: String,
    c: Client,
}

async fn start(utf16: bool, inventory: bool) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let pools = dir.path().join("pools.yaml");
    std::fs::write(&pools, pools_text()).unwrap();
    let workloads = dir.path().join("workloads.yaml");
    std::fs::write(&workloads, WORKLOADS).unwrap();
    let mut c = Client::start(Client::test_config());
    let options = if inventory {
        json!({"inventory": pools.to_str().unwrap()})
    } else {
        Value::Null
    };
    let r = c.initialize(caps(utf16), options).await;
    let encoding = r["result"]["capabilities"]["positionEncoding"].clone();
    assert_eq!(encoding, if utf16 { "utf-16" } else { "utf-8" });
    let workloads_uri = file_uri(&workloads);
    c.open(&workloads_uri, WORKLOADS).await;
    Setup {
        _dir: dir,
        pools,
        workloads_uri,
        c,
    }
}

async fn lenses(c: &mut Client, uri: &str) -> Value {
    let r = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert!(r.get("error").is_none(), "{r}");
    r["result"].clone()
}

async fn hints(c: &mut Client, uri: &str) -> Value {
    let r = c
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100, "character": 0}}}),
        )
        .await;
    assert!(r.get("error").is_none(), "{r}");
    r["result"].clone()
}

#[tokio::test]
async fn lenses_hints_and_definitions_in_both_encodings() {
    for utf16 in [true, false] {
        let Setup {
            _dir,
            pools,
            workloads_uri: uri,
            mut c,
        } = start(utf16, true).await;
        let pools_text = pools_text();

        // One lens per workload, on its `kind:` entry; running it asks for the per-pool details.
        let lenses = lenses(&mut c, &uri).await;
        let lenses = lenses.as_array().unwrap();
        assert_eq!(lenses.len(), 2, "{lenses:?}");
        assert_eq!(
            lenses[0]["command"]["title"],
            "fits 2 of 3 pools (3 nodes): gpu, batch~"
        );
        assert_eq!(lenses[0]["command"]["command"], "taintlint.showPlacement");
        assert_eq!(
            lenses[0]["range"]["start"],
            position(WORKLOADS, "kind: Deployment", utf16)
        );
        let argument = &lenses[0]["command"]["arguments"][0];
        assert_eq!(argument["title"], "Deployment shop/web");
        assert_eq!(argument["uri"], uri);
        assert_eq!(argument["position"], lenses[0]["range"]["start"]);
        let r = c
            .request(
                "taintlint/placement",
                json!({"textDocument": {"uri": uri}, "position": argument["position"]}),
            )
            .await;
        assert_eq!(r["result"]["title"], "Deployment shop/web", "{r}");
        let details = r["result"]["details"].as_str().unwrap();
        assert!(
            details.starts_with("Deployment shop/web: fits 2 of 3 pools (3 nodes): gpu, batch~\n"),
            "{details}"
        );
        assert!(
            details.contains(
                "pool web (3 nodes): does not fit\n  - nodeSelector disk=ssd does not match (the node has disk=hdd)"
            ),
            "{details}"
        );
        // The lens leads with the cause the `unschedulable` finding states.
        assert_eq!(
            lenses[1]["command"]["title"],
            "fits no node: no node has `disk=nvme`"
        );
        // After Japanese text and an emoji on the line.
        assert_eq!(
            lenses[1]["range"]["start"],
            position(WORKLOADS, "kind: Pod", utf16)
        );
        // Anywhere in a workload (here a List's item, after Japanese text and an emoji) asks
        // for that workload; outside any, nothing.
        for (at, title) in [
            (
                position(WORKLOADS, "nowhere.example.com", utf16),
                json!("Pod p"),
            ),
            (
                position(WORKLOADS, "tolerationSeconds", utf16),
                json!("Deployment shop/web"),
            ),
            (position(WORKLOADS, "# ワークロード", utf16), Value::Null),
        ] {
            let r = c
                .request(
                    "taintlint/placement",
                    json!({"textDocument": {"uri": uri}, "position": at}),
                )
                .await;
            assert!(r.get("error").is_none(), "{r}");
            assert_eq!(r["result"]["title"], title, "{r}");
        }
        let r = c
            .request(
                "taintlint/placement",
                json!({"textDocument": {"uri": uri}, "position": position(WORKLOADS, "nowhere.example.com", utf16)}),
            )
            .await;
        assert!(
            r["result"]["details"]
                .as_str()
                .unwrap()
                .starts_with("Pod p: fits no node: "),
            "{r}"
        );
        // The details lead with the lens's cause, and are wrapped at words to the width the
        // client asks for (80 columns when it does not say).
        let details_at = |width: Option<usize>| {
            let mut params = json!({"textDocument": {"uri": uri}, "position": position(WORKLOADS, "nowhere.example.com", utf16)});
            if let Some(width) = width {
                params["width"] = json!(width);
            }
            params
        };
        let mut texts = Vec::new();
        for width in [Some(10_000), Some(36), None] {
            let r = c.request("taintlint/placement", details_at(width)).await;
            texts.push(r["result"]["details"].as_str().unwrap().to_string());
        }
        let [whole, narrow, default] = &texts[..] else {
            unreachable!()
        };
        assert!(
            whole.starts_with(&format!(
                "Pod p: {}\n",
                lenses[1]["command"]["title"].as_str().unwrap()
            )),
            "{whole}"
        );
        assert!(whole.lines().any(|l| l.chars().count() > 36), "{whole}");
        let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        for (text, width) in [(narrow, 36), (default, 80)] {
            assert_eq!(words(text), words(whole), "no word is cut or lost:\n{text}");
            for line in text.lines() {
                assert!(
                    line.chars().count() <= width || !line.trim().contains(' '),
                    "wider than {width}: {line:?}\n{text}"
                );
            }
        }
        assert_ne!(narrow, default);
        assert_eq!(
            lenses[1]["range"]["end"],
            position_after(WORKLOADS, "kind: Pod", utf16)
        );

        // A hint after each toleration's first line, and one after tolerationSeconds.
        let hints = hints(&mut c, &uri).await;
        let got: Vec<(Value, &str)> = hints
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["position"].clone(), h["label"].as_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    position_after(WORKLOADS, "# 推論用🚀ノード", utf16),
                    "tolerates pool gpu (1 node)"
                ),
                (
                    position_after(WORKLOADS, "tolerationSeconds: 600}", utf16),
                    "tolerates pool batch (2 nodes)"
                ),
                (
                    position_after(WORKLOADS, "tolerationSeconds: 600} # 🚀", utf16),
                    "evicted 600 s after the NoExecute taint"
                ),
                (
                    position_after(WORKLOADS, "nowhere.example.com/x, operator: Exists}", utf16),
                    "matches no inventory taint"
                ),
            ]
        );
        // Each within VS Code's default 43 characters (`editor.inlayHints.maximumLength`).
        for (_, label) in &got {
            assert!(label.chars().count() <= 43, "{label}");
        }
        // A range covers only what it touches.
        let r = c
            .request(
                "textDocument/inlayHint",
                json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 13, "character": 0}, "end": {"line": 15, "character": 0}}}),
            )
            .await;
        assert_eq!(r["result"].as_array().unwrap().len(), 1, "{r}");

        // Definition: from a toleration to the inventory taints it tolerates, exact places.
        let r = c
            .request(
                "textDocument/definition",
                json!({"textDocument": {"uri": uri}, "position": position(WORKLOADS, "operator: Exists\n", utf16)}),
            )
            .await;
        let targets = r["result"].as_array().unwrap();
        assert_eq!(targets.len(), 1, "{r}");
        assert_eq!(targets[0]["uri"], file_uri(&pools));
        assert_eq!(
            targets[0]["range"],
            json!({
                "start": position(&pools_text, "\"team.example.com/inference=a", utf16),
                "end": position_after(&pools_text, "inference=a:NoSchedule\"", utf16),
            })
        );
        let r = c
            .request(
                "textDocument/definition",
                json!({"textDocument": {"uri": uri}, "position": position(WORKLOADS, "tolerationSeconds", utf16)}),
            )
            .await;
        let targets = r["result"].as_array().unwrap();
        assert_eq!(targets.len(), 1, "{r}");
        assert_eq!(
            targets[0]["range"]["start"],
            position(&pools_text, "{key: batch.example.com/spot, value", utf16)
        );
        // Nothing tolerated, or not on a toleration: no target.
        for needle in ["nowhere.example.com", "namespace: shop"] {
            let r = c
                .request(
                    "textDocument/definition",
                    json!({"textDocument": {"uri": uri}, "position": position(WORKLOADS, needle, utf16)}),
                )
                .await;
            assert_eq!(r["result"], Value::Null, "{needle}: {r}");
        }
        assert!(c.finish().await);
    }
}

#[tokio::test]
async fn without_an_inventory_no_lenses_no_hints_no_error() {
    let Setup {
        _dir,
        workloads_uri: uri,
        mut c,
        ..
    } = start(true, false).await;
    assert_eq!(lenses(&mut c, &uri).await, json!([]));
    assert_eq!(hints(&mut c, &uri).await, json!([]));
    let r = c
        .request(
            "textDocument/definition",
            json!({"textDocument": {"uri": uri}, "position": position(WORKLOADS, "operator: Exists", true)}),
        )
        .await;
    assert_eq!(r["result"], Value::Null, "{r}");
    assert!(r.get("error").is_none(), "{r}");
    // A document that is not open: nothing, and no error.
    let r = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": "file:///nowhere.yaml"}}),
        )
        .await;
    assert!(r.get("error").is_none(), "{r}");
    assert!(c.finish().await);
}

#[tokio::test]
async fn lenses_follow_the_inventory_on_disk() {
    let Setup {
        _dir,
        pools,
        workloads_uri: uri,
        mut c,
    } = start(true, true).await;
    let before = lenses(&mut c, &uri).await;
    assert!(
        before[1]["command"]["title"]
            .as_str()
            .unwrap()
            .starts_with("fits no node: "),
        "{before}"
    );
    // The web pool gets NVMe disks.
    std::fs::write(&pools, pools_text().replace("disk: hdd", "disk: nvme")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&pools), "type": 2}]}),
    )
    .await;
    // The client is asked to fetch lenses and hints again.
    c.server_request("workspace/codeLens/refresh").await;
    c.server_request("workspace/inlayHint/refresh").await;
    let after = lenses(&mut c, &uri).await;
    assert_eq!(
        after[1]["command"]["title"],
        "fits 1 of 3 pools (3 nodes): web"
    );
    assert_eq!(
        after[0]["command"]["title"],
        "fits 2 of 3 pools (3 nodes): gpu, batch~"
    );
    assert!(c.finish().await);
}

#[tokio::test]
async fn references_list_the_tolerations_of_a_taint() {
    for utf16 in [true, false] {
        let Setup {
            _dir,
            pools,
            workloads_uri: uri,
            mut c,
        } = start(utf16, true).await;
        let pools_text = pools_text();
        let pools_uri = file_uri(&pools);
        // In the pool file, opened as it is on disk.
        c.open(&pools_uri, &pools_text).await;
        let r = c
            .request(
                "textDocument/references",
                json!({"textDocument": {"uri": pools_uri}, "position": position(&pools_text, "inference=a", utf16), "context": {"includeDeclaration": true}}),
            )
            .await;
        let found: Vec<(String, Value)> = r["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|l| {
                (
                    l["uri"].as_str().unwrap().to_string(),
                    l["range"]["start"].clone(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    pools_uri.clone(),
                    position(&pools_text, "\"team.example.com/inference=a", utf16)
                ),
                (
                    uri.clone(),
                    position(WORKLOADS, "- key: team.example.com/inference", utf16)
                ),
            ]
        );
        // In a Node document: the tolerations of every open file.
        let node = "kind: Node\nmetadata: {name: \"n\"} # 日本🚀\nspec:\n  taints: [{key: batch.example.com/spot, value: \"true\", effect: NoExecute}]\n";
        c.open("file:///node.yaml", node).await;
        let r = c
            .request(
                "textDocument/references",
                json!({"textDocument": {"uri": "file:///node.yaml"}, "position": position(node, "spot", utf16), "context": {"includeDeclaration": false}}),
            )
            .await;
        let found = r["result"].as_array().unwrap_or_else(|| panic!("{r}"));
        assert_eq!(found.len(), 1, "{r}");
        assert_eq!(found[0]["uri"], uri);
        assert_eq!(
            found[0]["range"]["start"],
            position(WORKLOADS, "- {key: batch.example.com/spot", utf16)
        );
        // Not on a taint: nothing.
        let r = c
            .request(
                "textDocument/references",
                json!({"textDocument": {"uri": "file:///node.yaml"}, "position": {"line": 0, "character": 0}, "context": {"includeDeclaration": true}}),
            )
            .await;
        assert_eq!(r["result"], Value::Null, "{r}");
        assert!(c.finish().await);
    }
}

#[tokio::test]
async fn the_outline_lists_workloads_tolerations_and_taints() {
    let Setup {
        _dir,
        workloads_uri: uri,
        mut c,
        ..
    } = start(true, false).await;
    let node = "# 日本🚀\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints:\n  - {key: a, effect: NoSchedule}\n";
    c.open("file:///node.yaml", node).await;
    let outline = |r: &Value| -> Vec<String> {
        fn walk(s: &Value, depth: usize, out: &mut Vec<String>) {
            out.push(format!(
                "{}{} [{}:{}]",
                "  ".repeat(depth),
                s["name"].as_str().unwrap(),
                s["selectionRange"]["start"]["line"],
                s["selectionRange"]["start"]["character"]
            ));
            for c in s["children"].as_array().into_iter().flatten() {
                walk(c, depth + 1, out);
            }
        }
        let mut out = Vec::new();
        for s in r["result"].as_array().unwrap_or_else(|| panic!("{r}")) {
            walk(s, 0, &mut out);
        }
        out
    };
    let r = c
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let kind_pod = position(WORKLOADS, "kind: Pod", true);
    let nowhere = position(WORKLOADS, "{key: nowhere", true);
    assert_eq!(
        outline(&r),
        [
            "Deployment shop/web [1:0]".to_string(),
            "  team.example.com/inference (exists) [8:6]".to_string(),
            "  batch.example.com/spot (exists):NoExecute [10:6]".to_string(),
            format!("Pod p [{}:{}]", kind_pod["line"], kind_pod["character"]),
            format!(
                "  nowhere.example.com/x (exists) [{}:{}]",
                nowhere["line"], nowhere["character"]
            ),
        ]
    );
    let r = c
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": "file:///node.yaml"}}),
        )
        .await;
    assert_eq!(outline(&r), ["Node n1 [1:0]", "  a:NoSchedule [5:2]"]);
    assert!(c.finish().await);
}

#[tokio::test]
async fn completion_offers_a_pool_files_taints() {
    let Setup { _dir, mut c, .. } = start(true, true).await;
    let text = "tolerations:\n- key: batch.example.com/spot\n  value: \n";
    c.open("file:///v.yaml", text).await;
    let r = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": "file:///v.yaml"}, "position": {"line": 2, "character": 9}}),
        )
        .await;
    let values: Vec<(&str, &str)> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap(),
                i["documentation"]["value"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        values,
        [("true", "On pool batch (2 nodes, inventory pools.yaml).")]
    );
    assert!(c.finish().await);
}

/// References on a taint list the tolerations of the whole workspace, read from disk, not
/// only of the open files; the list follows files that change on disk and the open text wins.
#[tokio::test]
async fn references_reach_the_files_of_the_workspace() {
    for utf16 in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("apps/日本")).unwrap();
        let pools = root.join("pools.yaml");
        std::fs::write(&pools, pools_text()).unwrap();
        // Never opened: one in a folder named in Japanese, one a lint would skip (.gitignore).
        let workloads = root.join("apps/日本/workloads.yaml");
        std::fs::write(&workloads, WORKLOADS).unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::write(root.join("build/out.yaml"), WORKLOADS).unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        let later = root.join("apps/later.yaml");

        let mut c = Client::start(Client::test_config());
        c.initialize_in(
            Some(&file_uri(&root)),
            caps(utf16),
            json!({"inventory": "pools.yaml"}),
        )
        .await;
        assert_eq!(
            c.workspace_read().await,
            "taintlint: read the workspace: 1 files with tolerations"
        );
        // The client is asked to watch the workspace's manifests.
        let registration = c.server_request("client/registerCapability").await;
        let watchers = &registration["params"]["registrations"][0]["registerOptions"]["watchers"];
        assert_eq!(
            watchers.as_array().unwrap().last().unwrap()["globPattern"],
            format!("{}/**/*.{{yaml,yml,json}}", root.display()).as_str(),
            "{registration}"
        );

        let pools_text = pools_text();
        let pools_uri = file_uri(&pools);
        c.open(&pools_uri, &pools_text).await;
        let params = json!({"textDocument": {"uri": pools_uri}, "position": position(&pools_text, "inference=a", utf16), "context": {"includeDeclaration": false}});
        let found = |r: &Value| -> Vec<(String, Value)> {
            r["result"]
                .as_array()
                .unwrap_or_else(|| panic!("{r}"))
                .iter()
                .map(|l| {
                    (
                        l["uri"].as_str().unwrap().to_string(),
                        l["range"]["start"].clone(),
                    )
                })
                .collect()
        };
        let workloads_uri = tower_lsp_server::ls_types::Uri::from_file_path(&workloads)
            .unwrap()
            .as_str()
            .to_string();
        let r = c.request("textDocument/references", params.clone()).await;
        assert_eq!(
            found(&r),
            [(
                workloads_uri.clone(),
                position(WORKLOADS, "- key: team.example.com/inference", utf16)
            )]
        );

        // Hover on a Node's taint names them too, with file and line.
        let node = "kind: Node\nmetadata: {name: n}\nspec:\n  taints: [{key: team.example.com/inference, value: a, effect: NoSchedule}]\n";
        c.open("file:///elsewhere/node.yaml", node).await;
        let r = c
            .request(
                "textDocument/hover",
                json!({"textDocument": {"uri": "file:///elsewhere/node.yaml"}, "position": position(node, "inference", utf16)}),
            )
            .await;
        let hover = r["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default();
        assert!(
            hover.contains("Tolerated by 1 toleration in the workspace:\n- Deployment shop/web (`workloads.yaml:9`"),
            "{hover}"
        );

        // A new file on disk, reported by the client's watcher, is read.
        let later_text =
            "# 後で 🚀\ntolerations: [{key: team.example.com/inference, operator: Exists}]\n";
        std::fs::write(&later, later_text).unwrap();
        c.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": file_uri(&later), "type": 1}]}),
        )
        .await;
        // The open text of a file wins over what is on disk.
        let edited = WORKLOADS.replace("team.example.com/inference #", "elsewhere.example.com/x #");
        c.open(&workloads_uri, &edited).await;
        let want = vec![(file_uri(&later), position(later_text, "{key: team", utf16))];
        let r = references_until(&mut c, &params, |r| found(r) == want).await;
        assert_eq!(found(&r), want);
        // Deleted on disk: gone.
        std::fs::remove_file(&later).unwrap();
        c.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": file_uri(&later), "type": 3}]}),
        )
        .await;
        let r = references_until(&mut c, &params, |r| found(r).is_empty()).await;
        assert_eq!(found(&r), []);
        assert!(c.finish().await);
    }
}

/// The configuration file decides which files of the workspace count: when its `exclude`
/// patterns change, references follow.
#[tokio::test]
async fn references_follow_the_configuration_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join("apps")).unwrap();
    let pools = root.join("pools.yaml");
    std::fs::write(&pools, pools_text()).unwrap();
    let workloads = root.join("apps/workloads.yaml");
    std::fs::write(&workloads, WORKLOADS).unwrap();
    let config = root.join(".taintlint.yaml");
    std::fs::write(&config, "exclude: [\"apps/**\"]\n").unwrap();

    let mut c = Client::start(Client::test_config());
    c.initialize_in(
        Some(&file_uri(&root)),
        caps(true),
        json!({"inventory": "pools.yaml"}),
    )
    .await;
    assert_eq!(
        c.workspace_read().await,
        "taintlint: read the workspace: 0 files with tolerations"
    );
    let pools_text = pools_text();
    let pools_uri = file_uri(&pools);
    c.open(&pools_uri, &pools_text).await;
    let params = json!({"textDocument": {"uri": pools_uri}, "position": position(&pools_text, "inference=a", true), "context": {"includeDeclaration": false}});
    let count = |r: &Value| r["result"].as_array().map_or(0, Vec::len);
    let r = c.request("textDocument/references", params.clone()).await;
    assert_eq!(count(&r), 0, "{r}");

    // The exclusion is lifted: the workload's toleration is found.
    std::fs::write(&config, "exclude: []\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&config), "type": 2}]}),
    )
    .await;
    let r = references_until(&mut c, &params, |r| count(r) == 1).await;
    let uri = r["result"][0]["uri"].as_str().unwrap_or_default();
    assert!(uri.ends_with("apps/workloads.yaml"), "{r}");
    assert!(c.finish().await);
}

/// Asks for references until the answer is `done` (a watched-file change is read in the
/// background) or five seconds have passed; returns the last answer.
async fn references_until(c: &mut Client, params: &Value, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let r = c.request("textDocument/references", params.clone()).await;
        if done(&r) || std::time::Instant::now() > deadline {
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// A chart whose templates render `.Values.agent` into a DaemonSet and `.Values.api` into a
/// Deployment (written after the common shape of a chart's `with .Values.x.tolerations` blocks).
const AGENT_DAEMONSET: &str = "\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}-agent
spec:
  template:
    spec:
      {{- with .Values.agent.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.agent.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: agent
          image: \"{{ .Values.agent.image }}\"
";

const API_DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-api
spec:
  template:
    spec:
      {{- with .Values.api.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: api
          image: \"{{ .Values.api.image }}\"
";

const CHART_VALUES: &str = "\
agent:
  image: registry.example.com/agent:1
  nodeSelector:
    disk: ssd
  tolerations:
    - key: team.example.com/inference
      operator: Exists
api:
  image: registry.example.com/api:1
  tolerations:
    - key: nowhere.example.com/x
      operator: Exists
";

/// A chart's values file gets lenses and hints for the workloads its chart's templates render
/// it into, as `lint` and `simulate` read it; the same text outside a chart has no workload.
#[tokio::test]
async fn a_charts_values_get_lenses_and_hints_as_the_templates_render_them() {
    let Setup {
        _dir: dir, mut c, ..
    } = start(true, true).await;
    let chart = dir.path().join("agent-chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: agent\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("templates/daemonset.yaml"), AGENT_DAEMONSET).unwrap();
    std::fs::write(chart.join("templates/deployment.yaml"), API_DEPLOYMENT).unwrap();
    let values = chart.join("values.yaml");
    std::fs::write(&values, CHART_VALUES).unwrap();
    let uri = file_uri(&values);
    c.open(&uri, CHART_VALUES).await;
    let got = lenses(&mut c, &uri).await;
    let got: Vec<(Value, Value)> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["range"]["start"].clone(), l["command"]["title"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (
                position(CHART_VALUES, "image: registry.example.com/agent", true),
                // The taint whole: the count of nodes it runs on, and the word `taint`, make room.
                json!("DaemonSet misses pool batch: untolerated batch.example.com/spot=true:NoExecute")
            ),
            (
                position(CHART_VALUES, "image: registry.example.com/api", true),
                json!("fits 1 of 3 pools (3 nodes): web")
            ),
        ]
    );
    let got = hints(&mut c, &uri).await;
    let got: Vec<(Value, Value)> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["position"].clone(), h["label"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (
                position_after(CHART_VALUES, "key: team.example.com/inference", true),
                json!("tolerates pool gpu (1 node)")
            ),
            (
                position_after(CHART_VALUES, "key: nowhere.example.com/x", true),
                json!("matches no inventory taint")
            ),
        ]
    );

    // The chart's agent becomes a Deployment: the values' lens follows its templates, once the
    // server asks for lenses again after the change (an analysis under way with the old
    // templates is not kept).
    let before = c.server_requests.len();
    std::fs::write(
        chart.join("templates/daemonset.yaml"),
        AGENT_DAEMONSET.replace("kind: DaemonSet", "kind: Deployment"),
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&chart.join("templates/daemonset.yaml")), "type": 2}]}),
    )
    .await;
    c.server_request_after("workspace/codeLens/refresh", before)
        .await;
    let got = lenses(&mut c, &uri).await;
    assert_eq!(
        got[0]["command"]["title"], "fits 1 of 3 pools (1 node): gpu",
        "{got}"
    );

    // The same text outside a chart: `agent` is a workload of unknown kind (not asked the
    // DaemonSet question) and `api`, tolerations alone, no workload.
    let loose = dir.path().join("values.yaml");
    std::fs::write(&loose, CHART_VALUES).unwrap();
    let loose_uri = file_uri(&loose);
    c.open(&loose_uri, CHART_VALUES).await;
    let got = lenses(&mut c, &loose_uri).await;
    let titles: Vec<&Value> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["command"]["title"])
        .collect();
    assert_eq!(titles, [&json!("fits 1 of 3 pools (1 node): gpu")]);
    assert!(c.finish().await);
}

/// A strategic-merge patch opened in the editor (its kustomization names it; overlays not
/// rendered, as before a render lands): its toleration is checked, but its partial pod template
/// is not placed on its own, as `lint` reads it (`tests/embedded.rs`). Before the class, the
/// trainer's node-selector patch "fit no node" and had a lens saying so.
#[tokio::test]
async fn an_open_strategic_merge_patch_is_checked_but_not_placed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/fixtures/embedded/merge-patches/gpu");
    let mut c = Client::start(Client::test_config());
    let inventory = root.join("examples/inventory/pools.yaml");
    c.initialize(
        push_client(),
        json!({"inventory": inventory.to_str().unwrap(), "kustomize": "off"}),
    )
    .await;
    let rules = |d: &Value| -> Vec<String> {
        d["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    for (file, expected) in [
        ("trainer-on-gpus.yaml", vec![]),
        ("agent-image.yaml", vec![]),
        ("trainer-spot.yaml", vec!["exists-with-value".to_string()]),
    ] {
        let path = fixture.join(file);
        let uri = file_uri(&path);
        c.open(&uri, &std::fs::read_to_string(&path).unwrap()).await;
        let d = c.diagnostics(&uri, 1).await;
        assert_eq!(rules(&d), expected, "{file}: {d:#}");
        assert_eq!(lenses(&mut c, &uri).await, json!([]), "{file}");
    }
    assert!(c.finish().await);
}

/// What an unsaved pool edit moves reads each workspace file as its diagnostics do: a
/// strategic-merge patch file (here with overlays not rendered) is no workload of its own. The
/// build before judged the image patch as a whole Deployment without the base's toleration, and
/// the lens said the taint strands 2 workloads, not 1.
#[tokio::test]
async fn an_unsaved_pool_edit_does_not_place_a_strategic_merge_patch_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |name: &str, text: &str| {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {pool: general}}\n";
    write("nodes.yaml", node);
    write(".taintlint.yaml", "inventory: nodes.yaml\n");
    write(
        "app/base/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: \
         {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      \
         tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]\n      \
         containers: [{name: web, image: web:v1}]\n",
    );
    write("app/base/kustomization.yaml", "resources: [web.yaml]\n");
    write(
        "app/prod/kustomization.yaml",
        "resources: [../base]\npatches:\n- path: image.yaml\n",
    );
    write(
        "app/prod/image.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    \
         spec:\n      containers: [{name: web, image: web:v2}]\n",
    );
    write(
        "jobs/job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: report}\nspec:\n  template:\n    spec:\n      \
         restartPolicy: Never\n      containers: [{name: r, image: r}]\n",
    );
    let mut c = Client::start(Client::test_config());
    c.initialize_in(
        Some(&file_uri(root)),
        client::pull_client(),
        json!({"kustomize": "off"}),
    )
    .await;
    c.workspace_read().await;
    let uri = file_uri(&root.join("nodes.yaml"));
    c.open(&uri, node).await;
    let tainted = format!("{node}spec:\n  taints: [{{key: dedicated, effect: NoSchedule}}]\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": tainted}]}),
    )
    .await;
    let found = lenses(&mut c, &uri).await;
    assert_eq!(
        found[0]["command"]["title"], "unsaved edit: strands 1 workload",
        "{found}"
    );
    assert!(c.finish().await);
}
