//! The language server driven through real JSON-RPC (in memory, with `Content-Length`
//! framing), asserting whole responses.

#[path = "support/client.rs"]
mod client;

use std::time::Duration;

use serde_json::{json, Value};

use client::{apply_edits, offset_of, pull_client, push_client, Client};

const WORKLOAD: &str = include_str!("fixtures/lsp/workload.yaml");
const NODES: &str = include_str!("fixtures/lsp/nodes.yaml");
const WORKLOAD_URI: &str = "file:///project/workload.yaml";
const NODES_URI: &str = "file:///project/nodes.yaml";

fn snapshots() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.add_redaction(".result.serverInfo.version", "[version]");
    s
}

macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        snapshots().bind(|| insta::assert_json_snapshot!($name, $value))
    };
}

/// A position (0-based line, column) of the `nth` occurrence of `needle`.
fn position(text: &str, needle: &str, utf16: bool) -> Value {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count();
    let col: usize = if utf16 {
        text[line_start..at].chars().map(char::len_utf16).sum()
    } else {
        at - line_start
    };
    json!({"line": line, "character": col})
}

/// Sends a code action's edits to the workload document as the client applies them, and returns
/// the rule codes the server then publishes for that version.
async fn apply_and_read_codes(c: &mut Client, edits: &[Value], version: i64) -> Vec<String> {
    let changes: Vec<Value> = edits
        .iter()
        .map(|e| json!({"range": e["range"], "text": e["newText"]}))
        .collect();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": WORKLOAD_URI, "version": version}, "contentChanges": changes}),
    )
    .await;
    let d = c.diagnostics(WORKLOAD_URI, version).await;
    d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

async fn push_server() -> Client {
    let mut c = Client::start(Client::test_config());
    c.initialize(push_client(), Value::Null).await;
    c
}

#[tokio::test]
async fn initialize_push_utf16() {
    let mut c = Client::start(Client::test_config());
    let r = c.initialize(push_client(), Value::Null).await;
    snapshot!("initialize_push_utf16", r);
    assert!(c.finish().await);
}

#[tokio::test]
async fn initialize_pull_utf8() {
    let mut c = Client::start(Client::test_config());
    let r = c.initialize(pull_client(), Value::Null).await;
    assert_eq!(r["result"]["capabilities"]["positionEncoding"], "utf-8");
    assert_eq!(
        r["result"]["capabilities"]["diagnosticProvider"]["identifier"],
        "taintlint"
    );
    assert!(c.finish().await);
}

#[tokio::test]
async fn pushed_diagnostics_for_a_fixture() {
    let mut c = push_server().await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let d = c.diagnostics(WORKLOAD_URI, 1).await;
    snapshot!("pushed_diagnostics_utf16", d);
    // The value `"x"` after Japanese text and an emoji: character 49, UTF-16 column 50.
    let diags = d["params"]["diagnostics"].as_array().unwrap();
    let exists = diags
        .iter()
        .find(|d| d["code"] == "exists-with-value")
        .unwrap();
    assert_eq!(exists["range"]["start"], position(WORKLOAD, "\"x\"", true));
    assert_eq!(exists["range"]["start"]["character"], 50);
    assert!(c.finish().await);
}

#[tokio::test]
async fn utf8_positions_when_the_client_offers_them() {
    let mut c = Client::start(Client::test_config());
    let caps = json!({"general": {"positionEncodings": ["utf-8", "utf-16", "utf-32"]}});
    let r = c.initialize(caps, Value::Null).await;
    assert_eq!(r["result"]["capabilities"]["positionEncoding"], "utf-8");
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let d = c.diagnostics(WORKLOAD_URI, 1).await;
    let ranges: Vec<(Value, Value)> = d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].clone(), d["range"].clone()))
        .collect();
    snapshot!("pushed_diagnostic_ranges_utf8", ranges);
    let invalid_key = &ranges.iter().find(|(c, _)| c == "invalid-key").unwrap().1;
    assert_eq!(invalid_key["start"], position(WORKLOAD, "\"専用", false));
    assert_eq!(invalid_key["start"]["character"], 14);
    let exists = &ranges
        .iter()
        .find(|(c, _)| c == "exists-with-value")
        .unwrap()
        .1;
    // 50 UTF-16 units, but 62 bytes: 専用 and ノード are 3 bytes a character, 🚀 is 4.
    assert_eq!(exists["start"]["character"], 62);
    assert!(c.finish().await);
}

#[tokio::test]
async fn crlf_text_keeps_positions() {
    let mut c = push_server().await;
    let crlf = WORKLOAD.replace('\n', "\r\n");
    c.open(WORKLOAD_URI, &crlf).await;
    let d = c.diagnostics(WORKLOAD_URI, 1).await;
    let lf = {
        let mut c2 = push_server().await;
        c2.open(WORKLOAD_URI, WORKLOAD).await;
        c2.diagnostics(WORKLOAD_URI, 1).await
    };
    // The same lines and columns whatever the line breaks.
    assert_eq!(d["params"]["diagnostics"], lf["params"]["diagnostics"]);
}

#[tokio::test]
async fn pull_diagnostics_are_never_pushed() {
    let mut c = Client::start(Client::test_config());
    c.initialize(pull_client(), Value::Null).await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let r = c
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": WORKLOAD_URI}}),
        )
        .await;
    let report = &r["result"];
    assert_eq!(report["kind"], "full");
    assert_eq!(report["items"].as_array().unwrap().len(), 3);
    let result_id = report["resultId"].clone();
    let again = c
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "previousResultId": result_id}),
        )
        .await;
    assert_eq!(
        again["result"],
        json!({"kind": "unchanged", "resultId": result_id})
    );
    let quiet = c.quiet_for(Duration::from_millis(300)).await;
    assert!(
        quiet
            .iter()
            .all(|m| m["method"] != "textDocument/publishDiagnostics"),
        "{quiet:?}"
    );
    assert!(c.finish().await);
}

#[tokio::test]
async fn hover_on_a_toleration() {
    let mut c = push_server().await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    // Anywhere inside the item: on its second line.
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "position": position(WORKLOAD, "value: web", true)}),
        )
        .await;
    snapshot!("hover_toleration_defaults", r);
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "position": position(WORKLOAD, "tolerationSeconds", true)}),
        )
        .await;
    let text = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("the pod stays 5 minutes after a matching NoExecute taint appears"),
        "{text}"
    );
    assert!(c.finish().await);
}

/// On a pod spec's runtimeClassName: where its pods' tolerations come from, with the
/// RuntimeClass in the same document.
#[tokio::test]
async fn hover_on_a_runtime_class_name_says_where_tolerations_come_from() {
    const URI: &str = "file:///work/sandboxed.yaml";
    const TEXT: &str = "kind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\nscheduling:\n  tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]\n---\nkind: Pod\nmetadata: {name: p}\nspec:\n  runtimeClassName: gvisor\n  containers: [{name: c, image: i}]\n";
    let mut c = push_server().await;
    c.open(URI, TEXT).await;
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": position(TEXT, "gvisor\n  containers", true)}),
        )
        .await;
    let text = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.starts_with("**Tolerations its pods get** (Pod p)"),
        "{text}"
    );
    assert!(
        text.contains("a toleration RuntimeClass gvisor adds (scheduling.tolerations[0])"),
        "{text}"
    );
    assert!(c.finish().await);
}

#[tokio::test]
async fn hover_on_a_toleration_with_an_inventory() {
    let dir = tempfile::tempdir().unwrap();
    let inventory = dir.path().join("inventory.yaml");
    std::fs::write(&inventory, include_str!("fixtures/lsp/inventory.yaml")).unwrap();
    let mut c = Client::start(Client::test_config());
    c.initialize(
        push_client(),
        json!({"inventory": inventory.to_str().unwrap()}),
    )
    .await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "position": position(WORKLOAD, "key: dedicated", true)}),
        )
        .await;
    snapshot!("hover_toleration_with_inventory", r);
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "position": position(WORKLOAD, "tolerationSeconds", true)}),
        )
        .await;
    let text = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.split("\n\n").nth(1) == Some("Matches no taint in the inventory."),
        "{text}"
    );
    // Completion offers the inventory's keys and values.
    c.open(
        "file:///v.yaml",
        "tolerations:\n- key: dedicated\n  value: \n",
    )
    .await;
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
        [
            ("web", "On pool web-* (2 nodes, inventory inventory.yaml)."),
            ("gpu", "On pool gpu-1 (1 node, inventory inventory.yaml).")
        ]
    );
    assert!(c.finish().await);
}

/// A taint's hover leads with the answer: who tolerates it, before what its effect means.
#[tokio::test]
async fn hover_on_a_taint_lists_who_tolerates_it() {
    let mut c = push_server().await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    c.open(NODES_URI, NODES).await;
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": NODES_URI}, "position": position(NODES, "value: web", true)}),
        )
        .await;
    let text = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        text.split("\n\n")
            .nth(1)
            .is_some_and(|s| s.starts_with("Tolerated by 1 toleration")),
        "{text}"
    );
    snapshot!("hover_taint", r);
    assert!(c.finish().await);
}

#[tokio::test]
async fn hover_on_a_diagnostic_explains_the_rule() {
    let mut c = push_server().await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "position": position(WORKLOAD, "noschedule", true)}),
        )
        .await;
    let text = r["result"]["contents"]["value"].as_str().unwrap();
    let meta = taintlint::rules::find("unknown-effect").unwrap();
    // The finding, short: one line of why, the fix, the server's wording, and the rule linked
    // to its documentation; not the whole explanation, and not the message the editor already
    // shows above the hover.
    // The hover is the finding alone (the toleration's own hover is elsewhere on it).
    let finding = text;
    snapshots().bind(|| insta::assert_snapshot!("hover_diagnostic", finding));
    assert!(finding.contains(meta.why), "{text}");
    assert!(
        finding.contains(&format!("({}#unknown-effect)", taintlint::rules::DOCS_URL)),
        "{text}"
    );
    assert!(finding.contains("API server: `` spec.template.spec.tolerations[3].effect"));
    assert!(!finding.contains("did you mean"), "{text}");
    assert!(
        finding.find("- Fix:") < finding.find("API server:"),
        "the fix before the details: {text}"
    );
    assert!(
        finding.contains("- Fix: Write `NoSchedule` (safe)"),
        "{text}"
    );
    assert!(
        !text.contains("What it catches") && !text.contains("####"),
        "{text}"
    );
    assert!(finding.lines().count() <= 12, "{finding}");
    assert!(!text.contains("**Toleration**"), "{text}");
    assert!(c.finish().await);
}

/// The `docsUrl` setting moves every diagnostic's rule link, also after it changes.
#[tokio::test]
async fn rule_links_follow_the_docs_url_setting() {
    let mut c = Client::start(Client::test_config());
    c.initialize(
        push_client(),
        json!({"docsUrl": "https://example.com/taintlint/rules.md#top"}),
    )
    .await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let links = |d: &Value| -> Vec<String> {
        d["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let href = d["codeDescription"]["href"].as_str().unwrap();
                let code = d["code"].as_str().unwrap();
                href.strip_suffix(code).unwrap().to_string()
            })
            .collect()
    };
    let first = links(&c.diagnostics(WORKLOAD_URI, 1).await);
    assert!(!first.is_empty());
    assert!(
        first
            .iter()
            .all(|l| l == "https://example.com/taintlint/rules.md#"),
        "{first:?}"
    );
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"taintlint": {"docsUrl": "https://example.org/r.md"}}}),
    )
    .await;
    let d = c
        .notification_where(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["diagnostics"][0]["codeDescription"]["href"]
                    .as_str()
                    .is_some_and(|h| h.starts_with("https://example.org/"))
        })
        .await;
    assert!(links(&d).iter().all(|l| l == "https://example.org/r.md#"));
    assert!(c.finish().await);
}

/// `source.fixAll.taintlint` applies every safe fix at once (only when asked for), and the
/// "disable for this line" action writes a suppression that silences the finding.
#[tokio::test]
async fn fix_all_and_disable_for_this_line() {
    let mut c = push_server().await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let d = c.diagnostics(WORKLOAD_URI, 1).await;
    let diagnostics = d["params"]["diagnostics"].clone();
    // Diagnostics link their rule's documentation.
    assert_eq!(
        diagnostics[0]["codeDescription"]["href"],
        format!(
            "{}#{}",
            taintlint::rules::DOCS_URL,
            diagnostics[0]["code"].as_str().unwrap()
        )
    );
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 23, "character": 0}});
    // Not offered unasked: a quick-fix request has no source action.
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "range": whole,
                   "context": {"diagnostics": []}}),
        )
        .await;
    assert_eq!(r["result"], json!([]));
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "range": whole,
                   "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
        )
        .await;
    let actions = r["result"].as_array().unwrap();
    assert_eq!(actions.len(), 1, "{r}");
    assert_eq!(actions[0]["kind"], "source.fixAll.taintlint");
    let edit = &actions[0]["edit"]["documentChanges"][0];
    let fixed = apply_edits(WORKLOAD, edit["edits"].as_array().unwrap(), true);
    assert_eq!(
        fixed,
        taintlint::fix::fix_safe(WORKLOAD, &taintlint::Options::default()).text
    );
    assert!(fixed.contains("effect: NoSchedule") && fixed.contains("# 専用ノード 🚀 に載せる"));

    // Disable the exists-with-value finding for its line.
    let finding = diagnostics
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "exists-with-value")
        .unwrap()
        .clone();
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": WORKLOAD_URI}, "range": finding["range"],
                   "context": {"diagnostics": [finding]}}),
        )
        .await;
    let actions = r["result"].as_array().unwrap();
    let disable = actions
        .iter()
        .find(|a| a["title"] == "Disable `exists-with-value` for this line")
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(disable["kind"], "quickfix");
    assert_eq!(disable["isPreferred"], false);
    let edits = disable["edit"]["documentChanges"][0]["edits"]
        .as_array()
        .unwrap();
    let disabled = apply_edits(WORKLOAD, edits, true);
    assert!(disabled.contains(
        "      # taintlint: disable=exists-with-value -- TODO: say why\n      - {key: \"専用🚀ノード\""
    ));
    let codes = apply_and_read_codes(&mut c, edits, 2).await;
    assert!(!codes.iter().any(|c| c == "exists-with-value"), "{codes:?}");
    assert!(
        !codes.iter().any(|c| c == "unused-suppression"),
        "{codes:?}"
    );
    assert!(c.finish().await);
}

#[tokio::test]
async fn completion_of_fields_and_values() {
    let mut c = push_server().await;
    let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - key: dedicated\n    eff\n  - operator: \n";
    c.open("file:///p.yaml", text).await;
    let field = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": "file:///p.yaml"}, "position": {"line": 6, "character": 7}}),
        )
        .await;
    snapshot!("completion_fields", field);
    let value = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": "file:///p.yaml"}, "position": {"line": 7, "character": 14}}),
        )
        .await;
    let labels: Vec<&str> = value["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Equal", "Exists"]);
    // Outside a toleration list: nothing.
    let none = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": "file:///p.yaml"}, "position": {"line": 2, "character": 11}}),
        )
        .await;
    assert_eq!(none["result"], Value::Null);
    assert!(c.finish().await);
}

#[tokio::test]
async fn completion_of_taint_keys_and_values_from_open_nodes() {
    let mut c = push_server().await;
    c.open(NODES_URI, NODES).await;
    let text = "tolerations:\n- key: nvidia.com/gpu\n  value: \n";
    c.open("file:///v.yaml", text).await;
    let r = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": "file:///v.yaml"}, "position": {"line": 2, "character": 9}}),
        )
        .await;
    snapshot!("completion_taint_values", r);
    assert!(c.finish().await);
}

#[tokio::test]
async fn quick_fix_applied_to_the_text() {
    let mut c = push_server().await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    let d = c.diagnostics(WORKLOAD_URI, 1).await;
    let diagnostic = d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "unknown-effect")
        .unwrap()
        .clone();
    let r = c
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": WORKLOAD_URI},
                "range": diagnostic["range"],
                "context": {"diagnostics": [diagnostic]}
            }),
        )
        .await;
    snapshot!("code_action_unknown_effect", r);
    let action = &r["result"][0];
    assert_eq!(action["isPreferred"], true);
    let edit = &action["edit"]["documentChanges"][0];
    assert_eq!(edit["textDocument"]["version"], 1);
    let fixed = apply_edits(WORKLOAD, edit["edits"].as_array().unwrap(), true);
    assert_eq!(
        fixed,
        WORKLOAD.replace("effect: noschedule", "effect: NoSchedule")
    );
    // The client applies it; the finding is gone.
    let codes = apply_and_read_codes(&mut c, edit["edits"].as_array().unwrap(), 2).await;
    assert_eq!(codes, ["invalid-key", "exists-with-value"]);
    assert_eq!(c.server_text(WORKLOAD_URI).await["text"], fixed);

    // A fix made for version 1 is not offered against version 2.
    let stale = c
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": WORKLOAD_URI},
                "range": diagnostic["range"],
                "context": {"diagnostics": [diagnostic]}
            }),
        )
        .await;
    assert_eq!(stale["result"], json!([]));
    assert!(c.finish().await);
}

/// A small deterministic generator, so the edit sequence is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// A random position in `text` (line, UTF-16 column), on a character boundary.
fn random_position(text: &str, rng: &mut Lcg) -> (u64, u64) {
    let lines: Vec<&str> = text.split('\n').collect();
    let line = rng.next(lines.len() as u64 + 1);
    let content = lines
        .get(line as usize)
        .map_or("", |l| l.trim_end_matches('\r'));
    let chars: Vec<char> = content.chars().collect();
    let k = rng.next(chars.len() as u64 + 2) as usize; // sometimes past the end
    let col: usize = chars.iter().take(k).map(|c| c.len_utf16()).sum::<usize>()
        + if k > chars.len() { 3 } else { 0 };
    (line, col as u64)
}

#[tokio::test]
async fn three_hundred_rapid_edits_keep_the_text_in_sync() {
    let mut c = push_server().await;
    let mut text = WORKLOAD.replace("spec:\n", "spec:\r\n");
    c.open(WORKLOAD_URI, &text).await;
    let pieces = [
        "",
        "x",
        "日本",
        "🚀",
        "\n",
        "\r\n",
        "  - key: a\n",
        "effect: ",
        "é",
        "🇯🇵",
        "tolerations:",
    ];
    let mut rng = Lcg(42);
    for version in 2..302 {
        let mut changes = Vec::new();
        // One to three changes per notification, each applied to the result of the last.
        for _ in 0..=rng.next(3) {
            let (l0, c0) = random_position(&text, &mut rng);
            let (l1, c1) = if rng.next(2) == 0 {
                (l0, c0)
            } else {
                random_position(&text, &mut rng)
            };
            let (start, end) = if (l0, c0) <= (l1, c1) {
                ((l0, c0), (l1, c1))
            } else {
                ((l1, c1), (l0, c0))
            };
            let new_text = pieces[rng.next(pieces.len() as u64) as usize];
            let change = json!({
                "range": {"start": {"line": start.0, "character": start.1},
                          "end": {"line": end.0, "character": end.1}},
                "text": new_text
            });
            text = apply_edits(
                &text,
                &[json!({"range": change["range"], "newText": new_text})],
                true,
            );
            changes.push(change);
        }
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": WORKLOAD_URI, "version": version}, "contentChanges": changes}),
        )
        .await;
    }
    let server = c.server_text(WORKLOAD_URI).await;
    assert_eq!(server["version"], 301);
    assert_eq!(server["text"].as_str().unwrap(), text);
    // The last diagnostics are for the last version, and equal the core's on the same text.
    let d = c.diagnostics(WORKLOAD_URI, 301).await;
    let expected = taintlint::analyse(&text, &taintlint::Options::default());
    let got = d["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(g["code"], e.rule);
        let start = &g["range"]["start"];
        let at = offset_of(
            &text,
            start["line"].as_u64().unwrap(),
            start["character"].as_u64().unwrap(),
            true,
        );
        assert_eq!(at, e.range.start, "{g}");
    }
    assert!(c.finish().await);
}

#[tokio::test]
async fn settings_from_initialization_options_and_changes() {
    let mut c = Client::start(Client::test_config());
    c.initialize(
        push_client(),
        json!({"rules": {"unknown-effect": "warning", "invalid-key": "off"}}),
    )
    .await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    c.open(NODES_URI, NODES).await;
    let d = c.diagnostics(WORKLOAD_URI, 1).await;
    let found: Vec<(&str, i64)> = d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["severity"].as_i64().unwrap()))
        .collect();
    assert_eq!(found, [("exists-with-value", 1), ("unknown-effect", 2)]);
    c.diagnostics(NODES_URI, 1).await;

    // A change of settings re-analyses every open document.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"taintlint": {"rules": {"exists-with-value": "hint"}, "colour": 1}}}),
    )
    .await;
    let message = c.notification("window/showMessage").await;
    assert_eq!(
        message["params"]["message"],
        "taintlint settings: unknown setting `colour` (known: inventory, featureGates, \
         enableAdmissionPlugins, disableAdmissionPlugins, rules, admission, docsUrl, kustomize)"
    );
    let d = c.diagnostics(WORKLOAD_URI, 1).await;
    let found: Vec<(&str, i64)> = d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["severity"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            ("invalid-key", 1),
            ("exists-with-value", 4),
            ("unknown-effect", 1)
        ]
    );
    c.diagnostics(NODES_URI, 1).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn settings_pulled_with_workspace_configuration() {
    let mut c = Client::start(Client::test_config());
    c.answers.configuration =
        Some(json!({"featureGates": "TaintTolerationComparisonOperators=true"}));
    c.initialize(pull_client(), Value::Null).await;
    // The server asks for its section and then for a refresh of pulled diagnostics.
    c.open(
        "file:///lt.yaml",
        "tolerations:\n- key: gen\n  operator: Lt\n  value: \"5\"\n",
    )
    .await;
    let mut codes = Vec::new();
    for _ in 0..100 {
        let r = c
            .request(
                "textDocument/diagnostic",
                json!({"textDocument": {"uri": "file:///lt.yaml"}}),
            )
            .await;
        codes = r["result"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].clone())
            .collect();
        if codes.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(codes, Vec::<Value>::new(), "Lt is valid with the gate on");
    let configuration = c.server_request("workspace/configuration").await;
    assert_eq!(
        configuration["params"],
        json!({"items": [{"section": "taintlint"}]})
    );
    c.server_request("workspace/diagnostic/refresh").await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn inventory_changes_under_open_documents() {
    let dir = tempfile::tempdir().unwrap();
    let inventory = dir.path().join("nodes.yaml");
    std::fs::write(&inventory, NODES).unwrap();
    let mut c = Client::start(Client::test_config());
    let mut caps = push_client();
    caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
    c.initialize(caps, json!({"inventory": [inventory.to_str().unwrap()]}))
        .await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    c.open("file:///other.yaml", "tolerations: []\n").await;
    c.diagnostics(WORKLOAD_URI, 1).await;
    c.diagnostics("file:///other.yaml", 1).await;
    // The server asked the client to watch the inventory file.
    let registration = c.server_request("client/registerCapability").await;
    let watcher = &registration["params"]["registrations"][0];
    assert_eq!(watcher["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        watcher["registerOptions"]["watchers"][0]["globPattern"],
        inventory.to_str().unwrap()
    );

    let hover = json!({"textDocument": {"uri": WORKLOAD_URI}, "position": position(WORKLOAD, "key: dedicated", true)});
    let r = c.request("textDocument/hover", hover.clone()).await;
    let text = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        // The answer first, under the title.
        text.split("\n\n").nth(1)
            == Some(
                "In the inventory, it tolerates `dedicated=web:NoSchedule` on 1 node (pool gpu-1)."
            ),
        "{text}"
    );

    // The inventory changes on disk: every open document is analysed again.
    std::fs::write(&inventory, NODES.replace("gpu-1", "gpu-2")).unwrap();
    let uri = tower_lsp_server::ls_types::Uri::from_file_path(&inventory).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri.as_str(), "type": 2}]}),
    )
    .await;
    let log = c.notification("window/logMessage").await;
    assert_eq!(
        log["params"]["message"],
        "taintlint: inventory changed; re-analysing the open documents"
    );
    c.diagnostics(WORKLOAD_URI, 1).await;
    c.diagnostics("file:///other.yaml", 1).await;
    let r = c.request("textDocument/hover", hover).await;
    let text = r["result"]["contents"]["value"].as_str().unwrap();
    assert!(
        // The answer first, under the title.
        text.split("\n\n").nth(1)
            == Some(
                "In the inventory, it tolerates `dedicated=web:NoSchedule` on 1 node (pool gpu-2)."
            ),
        "{text}"
    );
    assert!(c.finish().await);
}

#[tokio::test]
async fn inventory_is_polled_when_the_client_cannot_watch() {
    let dir = tempfile::tempdir().unwrap();
    let inventory = dir.path().join("nodes.yaml");
    std::fs::write(&inventory, NODES).unwrap();
    let mut c = Client::start(Client::test_config());
    c.initialize(
        push_client(),
        json!({"inventory": inventory.to_str().unwrap()}),
    )
    .await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    c.diagnostics(WORKLOAD_URI, 1).await;
    // Make sure the modification time differs.
    tokio::time::sleep(Duration::from_millis(20)).await;
    std::fs::remove_file(&inventory).unwrap();
    let message = c.notification("window/showMessage").await;
    assert_eq!(
        message["params"]["message"],
        format!(
            "taintlint settings: inventory {}: no such file or directory",
            inventory.display()
        )
    );
    c.diagnostics(WORKLOAD_URI, 1).await;
    assert!(c.finish().await);
}

/// A cluster whose only nodes carry a taint the workload below does not tolerate, written in
/// the compact pool format.
const POOLS: &str =
    "pools:\n  gpu:\n    count: 3\n    taints: [nvidia.com/gpu=present:NoSchedule]\n";
const STRANDED: &str = "kind: Deployment\nmetadata: {name: trainer}\nspec:\n  template:\n    spec:\n      tolerations:\n      - key: nvidia.com/gpu\n        value: \"true\"\n        effect: NoSchedule\n";

#[tokio::test]
async fn inventory_rules_run_in_the_editor() {
    let dir = tempfile::tempdir().unwrap();
    let pools = dir.path().join("pools.yaml");
    std::fs::write(&pools, POOLS).unwrap();
    let mut c = Client::start(Client::test_config());
    c.initialize(push_client(), json!({"inventory": pools.to_str().unwrap()}))
        .await;
    c.open(WORKLOAD_URI, STRANDED).await;
    let published = c.diagnostics(WORKLOAD_URI, 1).await;
    let diagnostics = published["params"]["diagnostics"].as_array().unwrap();
    let stranded = diagnostics
        .iter()
        .find(|d| d["code"] == "unschedulable")
        .unwrap_or_else(|| panic!("no unschedulable finding: {diagnostics:#?}"));
    assert!(
        stranded["message"]
            .as_str()
            .unwrap()
            .contains("value \"true\", not \"present\""),
        "{stranded:#?}"
    );
    // Its related location points at the taint in the pool file (line 4, 0-based 3).
    let related = stranded["relatedInformation"].as_array().unwrap();
    let in_pools = related
        .iter()
        .find(|r| {
            r["location"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("/pools.yaml")
        })
        .unwrap_or_else(|| panic!("nothing points into the pool file: {related:#?}"));
    assert_eq!(in_pools["location"]["range"]["start"]["line"], 3);
    assert!(c.finish().await);
}

#[tokio::test]
async fn the_project_configuration_file_is_read_from_the_root() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pools.yaml"), POOLS).unwrap();
    std::fs::write(
        dir.path().join(".taintlint.yaml"),
        "inventory: pools.yaml\nrules:\n  equal-empty-value: off\n  unschedulable: warning\n",
    )
    .unwrap();
    let root = tower_lsp_server::ls_types::Uri::from_file_path(dir.path()).unwrap();
    let mut c = Client::start(Client::test_config());
    c.initialize_in(Some(root.as_str()), push_client(), json!({}))
        .await;
    let text = format!("{STRANDED}      - key: dedicated\n        effect: NoSchedule\n");
    c.open(WORKLOAD_URI, &text).await;
    let published = c.diagnostics(WORKLOAD_URI, 1).await;
    let found: Vec<(String, i64)> = published["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_i64().unwrap(),
            )
        })
        .collect();
    // The configuration's inventory is simulated against, at the configured level (2 =
    // Warning), and the rule it turns off is silent.
    assert!(
        found.contains(&("unschedulable".to_string(), 2)),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|(rule, _)| rule == "equal-empty-value"),
        "{found:?}"
    );
    assert!(c.finish().await);
}

/// Files that define node pools get the same findings in the editor as from `lint`, with
/// hovers: a Karpenter NodePool (YAML) and Terraform (HCL, whatever the client calls it: VS
/// Code with a Terraform extension and Neovim say `terraform`, VS Code without one `plaintext`).
#[tokio::test]
async fn pool_definitions_in_the_editor() {
    let nodepool = include_str!("fixtures/iac/nodepools.yaml")
        .replace("effect: NoSchedule", "effect: noschedule");
    let terraform = include_str!("fixtures/iac/typos.tf");
    let mut c = push_server().await;
    for (uri, language, text) in [
        ("file:///project/nodepools.yaml", "yaml", nodepool.as_str()),
        ("file:///project/main.tf", "terraform", terraform),
        ("file:///project/eks/pools.tf", "plaintext", terraform),
    ] {
        c.open_as(uri, language, text).await;
        let d = c.diagnostics(uri, 1).await;
        let got: Vec<(String, Value)> = d["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["range"]["start"].clone(),
                )
            })
            .collect();
        let want: Vec<(String, Value)> = taintlint::analyse(text, &taintlint::Options::default())
            .iter()
            .map(|d| {
                let before = &text[..d.range.start];
                let line_start = before.rfind('\n').map_or(0, |i| i + 1);
                let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
                let line = before.matches('\n').count();
                (
                    d.rule.to_string(),
                    json!({"line": line, "character": character}),
                )
            })
            .collect();
        assert!(!want.is_empty(), "{uri}");
        assert_eq!(got, want, "{uri}");
        let first = &d["params"]["diagnostics"][0];
        let r = c
            .request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": first["range"]["start"]}),
            )
            .await;
        let hover = r["result"]["contents"]["value"]
            .as_str()
            .unwrap_or_default();
        assert!(hover.contains("unknown-effect"), "{uri}: {hover}");
    }
    assert!(c.finish().await);
}

/// YAML inside a string (an Argo CD Application's `helm.values`): the server reports its
/// findings at their characters in the outer file, hovers there, and its quick fix edits inside
/// the string.
#[tokio::test]
async fn embedded_values_diagnostics_hover_and_fix() {
    const APP: &str = include_str!("fixtures/embedded/argo-application.yaml");
    const URI: &str = "file:///project/argo-application.yaml";
    let mut c = push_server().await;
    c.open(URI, APP).await;
    let d = c.diagnostics(URI, 1).await;
    let diagnostics = d["params"]["diagnostics"].as_array().unwrap();
    let operator = diagnostics
        .iter()
        .find(|d| d["code"] == "unknown-operator")
        .unwrap_or_else(|| panic!("{d}"));
    assert_eq!(operator["range"]["start"], position(APP, "Equals", true));
    let effect = diagnostics
        .iter()
        .find(|d| d["code"] == "unknown-effect")
        .unwrap_or_else(|| panic!("{d}"))
        .clone();
    assert_eq!(effect["range"]["start"], position(APP, "NoSchedul}", true));

    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": position(APP, "Equals", true)}),
        )
        .await;
    let hover = r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(hover.contains("unknown-operator"), "{r}");
    // A valid toleration inside a string: what it matches.
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": position(APP, "key: gpu", true)}),
        )
        .await;
    let hover = r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        hover.starts_with("**Toleration** `tolerations[0]`") && hover.contains("`gpu`"),
        "{r}"
    );

    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": effect["range"],
                   "context": {"diagnostics": [effect]}}),
        )
        .await;
    let fix = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["kind"] == "quickfix" && a["title"].as_str().unwrap().contains("NoSchedule"))
        .unwrap_or_else(|| panic!("{r}"));
    let edits = fix["edit"]["documentChanges"][0]["edits"]
        .as_array()
        .unwrap();
    let fixed = apply_edits(APP, edits, true);
    assert!(
        fixed.contains(
            r#"values: "tolerations: [{key: \"spot\", operator: Exists, effect: NoSchedule}]""#
        ),
        "{fixed}"
    );
    assert!(c.finish().await);
}

/// A mistyped inventory path is shown once: not again when the settings come back unchanged
/// (as Neovim pushes them after start) or the document is saved; it stays in the log.
#[tokio::test]
async fn a_bad_inventory_path_is_shown_once() {
    let mut c = Client::start(Client::test_config());
    let settings = json!({"inventory": "/nonexistent/taintlint/nodes.yaml"});
    c.initialize(push_client(), settings.clone()).await;
    c.open(WORKLOAD_URI, WORKLOAD).await;
    c.diagnostics(WORKLOAD_URI, 1).await;
    for _ in 0..2 {
        c.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"taintlint": settings.clone()}}),
        )
        .await;
    }
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": WORKLOAD_URI}}),
    )
    .await;
    let mut seen = c.drain_queued();
    seen.extend(c.quiet_for(Duration::from_millis(400)).await);
    let shown: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "window/showMessage")
        .collect();
    assert_eq!(shown.len(), 1, "{shown:#?}");
    assert!(
        shown[0]["params"]["message"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/taintlint/nodes.yaml"),
        "{shown:#?}"
    );
    let logged = seen
        .iter()
        .filter(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|s| s.contains("/nonexistent/taintlint/nodes.yaml"))
        })
        .count();
    assert!(logged >= 2, "{seen:#?}");
    assert!(c.finish().await);
}

/// The editor's quick fixes on a finding at the end of an Argo CD Application's `helm.values`
/// block: each action's edits, applied as the client applies them, leave the Application's keys
/// after the block where they were (the safe fix removes the values' last line only; the
/// other adds a line inside the block).
#[tokio::test]
async fn quick_fixes_at_a_block_strings_end_keep_the_next_key() {
    const URI: &str = "file:///project/app.yaml";
    let text = include_str!("fixtures/embedded/block-ends/argo-values-last-line.yaml");
    let mut c = push_server().await;
    c.open(URI, text).await;
    let d = c.diagnostics(URI, 1).await;
    let diagnostic = d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "toleration-seconds-requires-no-execute")
        .unwrap_or_else(|| panic!("{d:#}"))
        .clone();
    let r = c
        .request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": URI},
                "range": diagnostic["range"],
                "context": {"diagnostics": [diagnostic]}
            }),
        )
        .await;
    let fixed: Vec<String> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["kind"] == "quickfix" && a["edit"].is_object())
        .map(|a| {
            let edits = a["edit"]["documentChanges"][0]["edits"].as_array().unwrap();
            apply_edits(text, edits, true)
        })
        .collect();
    let tail = "  destination:\n    server: https://kubernetes.default.svc\n  project: default\n";
    assert!(
        fixed.contains(&text.replace("          tolerationSeconds: 60\n", "")),
        "{fixed:#?}"
    );
    assert!(
        fixed.contains(&text.replace(
            "          tolerationSeconds: 60\n",
            "          tolerationSeconds: 60\n          effect: NoExecute\n"
        )),
        "{fixed:#?}"
    );
    for f in &fixed {
        assert!(f.ends_with(tail), "{f}");
    }
    assert!(c.finish().await);
}
