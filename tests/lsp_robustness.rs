//! Whatever a client sends, the server keeps answering: malformed JSON-RPC, unknown methods,
//! positions past the end, changes to documents never opened, a 50 MB document, binary
//! garbage, cancelled requests, a client that never answers `workspace/configuration`.

#[path = "support/client.rs"]
mod client;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use client::{pull_client, push_client, Client};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - key: a\n    operator: Exists\n    effect: noschedule\n";
const POD_URI: &str = "file:///pod.yaml";

fn snapshots() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s
}

async fn started() -> Client {
    let mut c = Client::start(Client::test_config());
    c.initialize(push_client(), Value::Null).await;
    c.open(POD_URI, POD).await;
    c.diagnostics(POD_URI, 1).await;
    c
}

/// The server still answers: a hover on the toleration gives its description.
async fn still_answers(c: &mut Client) {
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": POD_URI}, "position": {"line": 6, "character": 6}}),
        )
        .await;
    let text = r["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("**Toleration**"), "{r}");
}

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

#[tokio::test]
async fn malformed_json_rpc() {
    let mut c = started().await;
    c.send_raw(&frame("{\"jsonrpc\": \"2.0\", \"method\": "))
        .await;
    let log = c.notification("window/logMessage").await;
    assert_eq!(log["params"]["type"], 1);
    assert!(
        log["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("taintlint: ignored a message: a message that is not JSON: EOF"),
        "{log}"
    );
    still_answers(&mut c).await;

    // A request the server can name gets an error response with its id.
    c.send_raw(&frame(r#"{"jsonrpc":"2.0","id":41,"method":7}"#))
        .await;
    let r = c.response(41).await;
    snapshots().bind(|| insta::assert_json_snapshot!("invalid_request_response", r));

    // Invalid parameters: an error for a request, a log line for a notification.
    let r = c.request("textDocument/hover", json!("nonsense")).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    c.notify("textDocument/didChange", json!({"textDocument": 5}))
        .await;
    let log = c
        .notification_where(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|s| s.contains("textDocument/didChange: invalid parameters"))
        })
        .await;
    assert_eq!(log["params"]["type"], 1);
    // Not UTF-8, a batch, a wrong version, a header without a length.
    c.send_raw(&frame("\u{0}")[..]).await;
    let mut not_utf8 = b"Content-Length: 2\r\n\r\n".to_vec();
    not_utf8.extend([0xff, 0xfe]);
    c.send_raw(&not_utf8).await;
    c.send_raw(&frame(r#"[{"jsonrpc":"2.0","method":"initialized"}]"#))
        .await;
    c.send_raw(&frame(r#"{"jsonrpc":"1.0","id":42,"method":"shutdown"}"#))
        .await;
    let r = c.response(42).await;
    assert_eq!(r["error"]["message"], "jsonrpc is \"1.0\", not \"2.0\"");
    c.send_raw(b"Content-Type: application/json\r\n\r\n").await;
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn binary_garbage_on_the_wire_and_in_a_document() {
    let mut c = started().await;
    let garbage: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    c.send_raw(&garbage).await;
    still_answers(&mut c).await;
    // The garbage is reported in the log (the notification may come after the answer above).
    let log = c.notification("window/logMessage").await;
    // None of it is a header: all 20,000 bytes are skipped, as an error.
    assert_eq!(
        log["params"],
        json!({"type": 1, "message": "taintlint: ignored a message: skipped 20000 bytes that are not a message (no Content-Length header)"}),
    );
    // A document of control characters, lone surrogates' replacement and NULs.
    let text: String = (0..5_000u32)
        .map(|i| char::from_u32(i * 7 % 0x2000).unwrap_or('\u{fffd}'))
        .collect();
    c.open("file:///garbage.yaml", &text).await;
    let d = c.diagnostics("file:///garbage.yaml", 1).await;
    // What the core says of that text: the NUL it starts with is a YAML syntax error, and with
    // no sign of Kubernetes in it the file is not read as a manifest.
    let core = taintlint::analyse(&text, &taintlint::Options::default());
    let said: Vec<(String, String)> = d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().into(),
                d["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = core
        .iter()
        .map(|d| (d.rule.to_string(), d.message.clone()))
        .collect();
    assert_eq!(said, want);
    assert_eq!(said[0].0, "not-a-manifest");
    assert_eq!(
        d["params"]["diagnostics"][0]["range"],
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}})
    );
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn unknown_methods() {
    let mut c = started().await;
    let r = c.request("taintlint/noSuchMethod", json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
    c.notify("taintlint/noSuchNotification", json!({})).await;
    c.notify("$/setTrace", json!({"value": "verbose"})).await;
    let r = c
        .request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": "file:///x.yaml"}, "options": {"tabSize": 2, "insertSpaces": true}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn positions_past_the_end() {
    let mut c = started().await;
    for (line, character) in [(9999, 0), (6, 9999), (u32::MAX, u32::MAX)] {
        let at = json!({"line": line, "character": character});
        let r = c
            .request(
                "textDocument/hover",
                json!({"textDocument": {"uri": POD_URI}, "position": at}),
            )
            .await;
        assert!(r.get("error").is_none(), "{r}");
        let r = c
            .request(
                "textDocument/completion",
                json!({"textDocument": {"uri": POD_URI}, "position": at}),
            )
            .await;
        assert!(r.get("error").is_none(), "{r}");
    }
    // An edit past the end lands at the end; a reversed range is applied between its ends.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": POD_URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 500, "character": 3}, "end": {"line": 900, "character": 0}}, "text": "# end\n"},
            {"range": {"start": {"line": 0, "character": 99}, "end": {"line": 0, "character": 0}}, "text": "apiVersion: v1"}
        ]}),
    )
    .await;
    let log = c.notification("window/logMessage").await;
    assert!(
        log["params"]["message"]
            .as_str()
            .unwrap()
            .contains("a change whose range ends (0:0) before it starts (0:99)"),
        "{log}"
    );
    let server = c.server_text(POD_URI).await;
    assert_eq!(server["text"], format!("{POD}# end\n"));
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn documents_never_opened() {
    let mut c = started().await;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///never.yaml", "version": 2}, "contentChanges": [{"text": "x"}]}),
    )
    .await;
    let log = c.notification("window/logMessage").await;
    assert_eq!(
        log["params"]["message"],
        "taintlint: file:///never.yaml: a change to a document that is not open; ignored (the \
         client must send textDocument/didOpen first)"
    );
    for method in ["textDocument/hover", "textDocument/completion"] {
        let r = c
            .request(
                method,
                json!({"textDocument": {"uri": "file:///never.yaml"}, "position": {"line": 0, "character": 0}}),
            )
            .await;
        assert_eq!(r["result"], Value::Null, "{r}");
    }
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": "file:///never.yaml"},
                   "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                   "context": {"diagnostics": []}}),
        )
        .await;
    assert_eq!(r["result"], Value::Null, "{r}");
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": "file:///never.yaml"}}),
    )
    .await;
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn a_fifty_megabyte_document() {
    let mut c = started().await;
    let line = format!("    {}\n", "x".repeat(75));
    let mut big =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  blob: |\n");
    while big.len() < 50 << 20 {
        big.push_str(&line);
    }
    big.push_str("---\ntolerations:\n- key: a\n  operator: Exists\n  effect: noschedule\n");
    let lines = big.matches('\n').count();
    c.open("file:///big.yaml", &big).await;
    // The server answers while it analyses.
    still_answers(&mut c).await;
    let d = c.diagnostics("file:///big.yaml", 1).await;
    let diagnostics = d["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "unknown-effect");
    assert_eq!(diagnostics[0]["range"]["start"]["line"], lines - 1);
    // An edit at its end is applied and analysed.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///big.yaml", "version": 2}, "contentChanges": [
            {"range": {"start": {"line": lines - 1, "character": 10}, "end": {"line": lines - 1, "character": 20}}, "text": "NoSchedule"}
        ]}),
    )
    .await;
    let d = c.diagnostics("file:///big.yaml", 2).await;
    assert_eq!(d["params"]["diagnostics"], json!([]));
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": "file:///big.yaml"}}),
    )
    .await;
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn cancelled_requests() {
    let mut c = started().await;
    // A request on a large document, cancelled at once.
    let big = format!("{POD}---\n").repeat(20_000);
    c.open("file:///many.yaml", &big).await;
    let id = c
        .start_request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///many.yaml"}, "position": {"line": 6, "character": 6}}),
        )
        .await;
    c.notify("$/cancelRequest", json!({"id": id})).await;
    let r = c.response(id).await;
    // Cancelled, or answered before the cancellation arrived: then with the hover of the
    // `operator: Exists` under the cursor.
    let cancelled = json!({"code": -32800, "message": "Canceled"});
    let answered = r["result"]["contents"]["value"]
        .as_str()
        .is_some_and(|v| v.contains("Exists"));
    assert!(r["error"] == cancelled || answered, "{r}");
    // Cancelling what is finished or unknown is harmless.
    c.notify("$/cancelRequest", json!({"id": id})).await;
    c.notify("$/cancelRequest", json!({"id": "nope"})).await;
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn a_client_that_never_answers_configuration() {
    let mut c = Client::start(Client::test_config());
    c.answers.configuration = None;
    c.initialize(pull_client(), Value::Null).await;
    c.open(POD_URI, POD).await;
    c.server_request("workspace/configuration").await;
    // Diagnostics are there at once, with the settings from initialization.
    let r = c
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": POD_URI}}),
        )
        .await;
    assert_eq!(r["result"]["items"][0]["code"], "unknown-effect");
    still_answers(&mut c).await;
    let log = c
        .notification_where(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|s| s.contains("workspace/configuration"))
        })
        .await;
    assert_eq!(
        log["params"]["message"],
        "taintlint: workspace/configuration got no answer within 300 ms; keeping the current \
         settings"
    );
    still_answers(&mut c).await;
    assert!(c.finish().await);
}

#[tokio::test]
async fn shutdown_and_exit() {
    // After shutdown, requests are refused and exit ends the server cleanly.
    let mut c = started().await;
    let r = c.request("shutdown", Value::Null).await;
    assert_eq!(r["result"], Value::Null);
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": POD_URI}, "position": {"line": 6, "character": 6}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
    c.notify("exit", Value::Null).await;
    assert!(tokio::time::timeout(Duration::from_secs(10), c.server)
        .await
        .unwrap()
        .unwrap());

    // Exit without shutdown: the server stops, and says it was not clean.
    let mut c = started().await;
    c.notify("exit", Value::Null).await;
    assert!(!tokio::time::timeout(Duration::from_secs(10), c.server)
        .await
        .unwrap()
        .unwrap());
}

/// The real binary over standard input and output: sends each message, and after a request
/// waits for its response, as a client does. Returns the exit status and every message read.
fn run_binary(messages: &[&[u8]]) -> (Option<i32>, Vec<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .arg("server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let n: usize = std::str::from_utf8(&buf[16..end]).unwrap().parse().unwrap();
                if buf.len() < end + 4 + n {
                    break;
                }
                let _ = tx.send(serde_json::from_slice(&buf[end + 4..end + 4 + n]).unwrap());
                buf.drain(..end + 4 + n);
            }
            match stdout.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
    });
    let mut seen = Vec::new();
    for message in messages {
        stdin.write_all(message).unwrap();
        stdin.flush().unwrap();
        let id = std::str::from_utf8(message)
            .ok()
            .and_then(|m| m.split_once("\r\n\r\n"))
            .and_then(|(_, body)| serde_json::from_str::<Value>(body).ok())
            .and_then(|v| v.get("id").cloned());
        if let Some(id) = id {
            loop {
                let m = rx
                    .recv_timeout(Duration::from_secs(30))
                    .expect("a response");
                let done = m["id"] == id && m.get("method").is_none();
                seen.push(m);
                if done {
                    break;
                }
            }
        }
    }
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    seen.extend(rx.try_iter());
    (status.code(), seen)
}

#[test]
fn the_binary_serves_stdio_and_exits_cleanly() {
    let initialize =
        frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#);
    let initialized = frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
    let shutdown = frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#);
    let exit = frame(r#"{"jsonrpc":"2.0","method":"exit"}"#);
    let (code, messages) = run_binary(&[
        &initialize,
        &initialized,
        b"\x00\x01garbage",
        &shutdown,
        &exit,
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(messages[0]["result"]["serverInfo"]["name"], "taintlint");
    assert!(messages.iter().any(|m| m["method"] == "window/logMessage"
        && m["params"]["message"]
            .as_str()
            .is_some_and(|s| s.contains("skipped 9 bytes"))));
    assert!(messages
        .iter()
        .any(|m| m["id"] == 2 && m["result"] == Value::Null));

    // Exit without shutdown, or the input simply ending: status 1.
    let (code, _) = run_binary(&[&initialize, &exit]);
    assert_eq!(code, Some(1));
    let (code, _) = run_binary(&[]);
    assert_eq!(code, Some(1));
}
