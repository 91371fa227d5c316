//! The server's output: what tower-lsp-server writes (responses, the server's requests, log
//! messages) and the diagnostics the server publishes itself.
//!
//! Through tower-lsp-server's `Client`, a notification becomes a `serde_json::Value` tree before
//! it is written: one allocation per object, key and string. For a big manifest that is most of
//! the time from a keystroke to its diagnostics (600 diagnostics are 500 KB of JSON and 40,000
//! allocations, made, written and freed again on every edit). So the server serializes
//! `textDocument/publishDiagnostics` straight from its diagnostics into bytes ([`Outbox`]), and
//! one writer puts both on the wire, a whole frame at a time, each source in its own order.
//!
//! A response goes the same way when it is big: tower-lsp-server turns every handler's result
//! into a `Value` tree before writing it, and the answer to `workspace/diagnostic` after a pool
//! edit is megabytes of JSON (a value tree made, written and freed in tower-lsp-server's one
//! task, where no other message moves meanwhile). Its handler serializes the result itself
//! ([`Outbox::prepare`]) and returns a stand-in that names it; the writer puts the prepared JSON
//! in the stand-in's place, under the response's id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tower_lsp_server::ls_types::{
    Diagnostic, FullDocumentDiagnosticReport, Uri, WorkspaceDiagnosticReport,
    WorkspaceDiagnosticReportResult, WorkspaceDocumentDiagnosticReport,
    WorkspaceFullDocumentDiagnosticReport,
};

use crate::lsp::guard::{Frame, Framer};

/// How many frames may wait for the writer; a sender waits when they are all taken, as it
/// would for a client that does not read.
const QUEUE: usize = 8;

enum Out {
    /// A whole message, with its header: pieces written one after another (a prepared result
    /// is not copied into its response).
    Frame(Vec<Vec<u8>>),
    /// tower-lsp-server's output has ended: the server is done.
    End,
}

/// The scheme of a stand-in's one URI; its path is the prepared result's number.
macro_rules! stand_in_scheme {
    () => {
        "taintlint-prepared:"
    };
}
const STAND_IN: &str = stand_in_scheme!();

/// How tower-lsp-server's response to a stand-in begins (it writes `jsonrpc`, then `result`,
/// then `id`): the writer parses only a frame that begins so, whatever the length of its id.
const STAND_IN_RESPONSE: &str = concat!(
    r#"{"jsonrpc":"2.0","result":{"items":[{"kind":"full","uri":""#,
    stand_in_scheme!()
);

/// Results serialized by their handlers, waiting for their stand-ins to reach the writer.
#[derive(Default)]
struct Prepared {
    next: AtomicU64,
    results: Mutex<HashMap<u64, Vec<u8>>>,
}

impl Prepared {
    fn results(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Vec<u8>>> {
        // A panic while the map was held cannot leave it half-changed.
        self.results.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends messages the server serializes itself.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Out>,
    prepared: Arc<Prepared>,
}

/// The writer's end of the queue.
pub struct Queue {
    rx: mpsc::Receiver<Out>,
    /// For tower-lsp-server's frames.
    tx: mpsc::Sender<Out>,
    prepared: Arc<Prepared>,
}

/// A new outbox and the queue it feeds.
pub fn queue() -> (Outbox, Queue) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let prepared = Arc::new(Prepared::default());
    (
        Outbox {
            tx: tx.clone(),
            prepared: prepared.clone(),
        },
        Queue { rx, tx, prepared },
    )
}

#[derive(Serialize)]
struct Message<P> {
    jsonrpc: &'static str,
    method: &'static str,
    params: P,
}

/// `PublishDiagnosticsParams`, borrowed: the diagnostics as a slice, or as JSON made before.
#[derive(Serialize)]
struct PublishDiagnostics<'a, D: ?Sized> {
    uri: &'a Uri,
    diagnostics: &'a D,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<i32>,
}

impl Outbox {
    /// `textDocument/publishDiagnostics`.
    pub async fn publish_diagnostics(
        &self,
        uri: &Uri,
        diagnostics: &[Diagnostic],
        version: Option<i32>,
    ) {
        self.publish(uri, diagnostics, version).await;
    }

    /// `textDocument/publishDiagnostics` of diagnostics serialized before (a JSON array).
    pub async fn publish_diagnostics_json(&self, uri: &Uri, diagnostics: &RawValue) {
        self.publish(uri, diagnostics, None).await;
    }

    async fn publish<D: Serialize + ?Sized>(
        &self,
        uri: &Uri,
        diagnostics: &D,
        version: Option<i32>,
    ) {
        let message = Message {
            jsonrpc: "2.0",
            method: "textDocument/publishDiagnostics",
            params: PublishDiagnostics {
                uri,
                diagnostics,
                version,
            },
        };
        let body = serde_json::to_vec(&message).expect("diagnostics serialize");
        // A closed queue: the connection is gone, and nobody is left to tell.
        let _ = self.tx.send(Out::Frame(frame(vec![body]))).await;
    }

    /// Keeps `result`, the JSON of a `workspace/diagnostic` result, for the writer, and returns
    /// the stand-in the handler answers with: the client receives `result` in its place.
    pub fn prepare(&self, result: Vec<u8>) -> WorkspaceDiagnosticReportResult {
        let number = self.prepared.next.fetch_add(1, Ordering::Relaxed);
        self.prepared.results().insert(number, result);
        let uri = format!("{STAND_IN}{number}")
            .parse()
            .expect("a stand-in's URI parses");
        WorkspaceDiagnosticReportResult::Report(WorkspaceDiagnosticReport {
            items: vec![WorkspaceDocumentDiagnosticReport::Full(
                WorkspaceFullDocumentDiagnosticReport {
                    uri,
                    version: None,
                    full_document_diagnostic_report: FullDocumentDiagnosticReport::default(),
                },
            )],
        })
    }
}

/// The response `body` (a frame of tower-lsp-server's) with its prepared result in place of the
/// stand-in, in pieces, or `None` when it is not a stand-in's: the same `jsonrpc`, `result`,
/// `id` order tower-lsp-server writes.
fn replace_stand_in(body: &[u8], prepared: &Prepared) -> Option<Vec<Vec<u8>>> {
    if !body.starts_with(STAND_IN_RESPONSE.as_bytes()) {
        return None;
    }
    let response: Value = serde_json::from_slice(body).ok()?;
    let items = response.get("result")?.get("items")?.as_array()?;
    let [item] = items.as_slice() else {
        return None;
    };
    let number: u64 = item
        .get("uri")?
        .as_str()?
        .strip_prefix(STAND_IN)?
        .parse()
        .ok()?;
    let id = response.get("id")?;
    let mut tail = br#","id":"#.to_vec();
    serde_json::to_writer(&mut tail, id).ok()?;
    tail.push(b'}');
    let result = prepared.results().remove(&number)?;
    Some(vec![
        br#"{"jsonrpc":"2.0","result":"#.to_vec(),
        result,
        tail,
    ])
}

/// A message's pieces, with the header in front.
fn frame(mut body: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let length: usize = body.iter().map(Vec::len).sum();
    body.insert(0, format!("Content-Length: {length}\r\n\r\n").into_bytes());
    body
}

/// Writes to `output` the frames tower-lsp-server writes into `from_lsp` and those sent through
/// the queue's outbox, until `from_lsp` ends. Returns once everything sent before that end is
/// written and flushed (or the output fails).
pub async fn run<R, W>(from_lsp: R, queue: Queue, output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let Queue { rx, tx, prepared } = queue;
    tokio::join!(forward(from_lsp, tx, &prepared), write(rx, output));
}

/// tower-lsp-server's frames into the queue, each stand-in replaced by its prepared result. It
/// reads to the end even when the writer has stopped, so tower-lsp-server never waits on a full
/// pipe.
async fn forward<R: AsyncRead + Unpin>(
    mut from_lsp: R,
    tx: mpsc::Sender<Out>,
    prepared: &Prepared,
) {
    let mut framer = Framer::new(usize::MAX);
    let mut open = true;
    loop {
        match framer.next(&mut from_lsp).await {
            Ok(Some(Frame::Message(body))) => {
                if open {
                    let body = replace_stand_in(&body, prepared).unwrap_or_else(|| vec![body]);
                    open = tx.send(Out::Frame(frame(body))).await.is_ok();
                }
            }
            // tower-lsp-server writes only well-formed frames.
            Ok(Some(Frame::Invalid(_))) => {}
            Ok(None) | Err(_) => break,
        }
    }
    let _ = tx.send(Out::End).await;
}

async fn write<W: AsyncWrite + Unpin>(mut rx: mpsc::Receiver<Out>, mut output: W) {
    while let Some(Out::Frame(pieces)) = rx.recv().await {
        for piece in pieces {
            if output.write_all(&piece).await.is_err() {
                return;
            }
        }
        // Flushed when nothing else is waiting to be written.
        if rx.is_empty() && output.flush().await.is_err() {
            return;
        }
    }
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tokio::io::AsyncReadExt;
    use tower_lsp_server::jsonrpc::Request;
    use tower_lsp_server::ls_types::notification::{Notification, PublishDiagnostics as Publish};
    use tower_lsp_server::ls_types::{
        DiagnosticRelatedInformation, Location, NumberOrString, Position, PublishDiagnosticsParams,
        Range,
    };

    /// A message as it goes on the wire.
    fn framed(body: &[u8]) -> Vec<u8> {
        frame(vec![body.to_vec()]).concat()
    }

    fn messages(mut out: &[u8]) -> Vec<Value> {
        let mut messages = Vec::new();
        while !out.is_empty() {
            let end = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
            let header = std::str::from_utf8(&out[..end]).unwrap();
            let n: usize = header
                .strip_prefix("Content-Length: ")
                .unwrap()
                .parse()
                .unwrap();
            messages.push(serde_json::from_slice(&out[end + 4..end + 4 + n]).unwrap());
            out = &out[end + 4 + n..];
        }
        messages
    }

    fn diagnostic(line: u32) -> Diagnostic {
        let uri: Uri = "file:///inventory/nodes.json".parse().unwrap();
        Diagnostic {
            range: Range::new(Position::new(line, 2), Position::new(line, 9)),
            code: Some(NumberOrString::String("unschedulable".into())),
            message: format!("\"quoted\" and ünïcode on line {line}"),
            related_information: Some(vec![DiagnosticRelatedInformation {
                location: Location::new(uri, Range::default()),
                message: "pool a (3 nodes)".into(),
            }]),
            data: Some(json!({"version": 3, "fixes": []})),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn published_diagnostics_are_what_tower_lsp_server_would_send() {
        let uri: Uri = "file:///m%20x/a.yaml".parse().unwrap();
        let diagnostics: Vec<Diagnostic> = (0..3).map(diagnostic).collect();
        for version in [Some(4), None] {
            let (outbox, queue) = queue();
            let (lsp_in, lsp_out) = tokio::io::duplex(64);
            let mut out = Vec::new();
            let write = run(lsp_out, queue, &mut out);
            let send = async {
                outbox
                    .publish_diagnostics(&uri, &diagnostics, version)
                    .await;
                drop(lsp_in);
            };
            tokio::join!(write, send);
            // What `Client::publish_diagnostics` makes of the same.
            let params = PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics: diagnostics.clone(),
                version,
            };
            let expected = Request::build(<Publish as Notification>::METHOD)
                .params(serde_json::to_value(params).unwrap())
                .finish();
            assert_eq!(
                messages(&out),
                [serde_json::to_value(&expected).unwrap()],
                "{version:?}"
            );
        }
    }

    /// A stand-in's response reaches the client as the response tower-lsp-server would write
    /// for the prepared result, under the request's id, however long; anything else that
    /// mentions a stand-in (a log line, a stand-in whose result is gone) passes as it is.
    #[tokio::test]
    async fn a_stand_in_goes_out_as_its_prepared_result() {
        let (outbox, queue) = queue();
        let (mut lsp_in, lsp_out) = tokio::io::duplex(64);
        let mut out = Vec::new();
        let write = run(lsp_out, queue, &mut out);
        let result = json!({"items": [{"kind": "unchanged", "uri": "file:///a.yaml", "version": null, "resultId": "ünï"}]});
        let stand_in = outbox.prepare(serde_json::to_vec(&result).unwrap());
        let other = outbox.prepare(b"{}".to_vec());
        let as_written = |id: Value, result: &Value| {
            let response = tower_lsp_server::jsonrpc::Response::from_ok(
                serde_json::from_value(id).unwrap(),
                result.clone(),
            );
            serde_json::to_vec(&response).unwrap()
        };
        let stand_in = serde_json::to_value(&stand_in).unwrap();
        let other = serde_json::to_value(&other).unwrap();
        let long_id = json!("id-".repeat(100));
        let log = json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": STAND_IN}});
        let sent = async {
            for body in [
                as_written(json!("req-7"), &stand_in),
                // Taken already: passes as it is.
                as_written(json!(8), &stand_in),
                serde_json::to_vec(&log).unwrap(),
                as_written(long_id.clone(), &other),
            ] {
                lsp_in.write_all(&framed(&body)).await.unwrap();
            }
            drop(lsp_in);
        };
        tokio::join!(write, sent);
        let expected = [
            serde_json::from_slice::<Value>(&as_written(json!("req-7"), &result)).unwrap(),
            serde_json::from_slice(&as_written(json!(8), &stand_in)).unwrap(),
            log,
            serde_json::from_slice(&as_written(long_id, &json!({}))).unwrap(),
        ];
        assert_eq!(messages(&out), expected);
        // Byte for byte what tower-lsp-server writes, too.
        let first = framed(&as_written(json!("req-7"), &result));
        assert_eq!(&out[..first.len()], first.as_slice());
        // Both results were taken.
        assert!(outbox.prepared.results().is_empty());
    }

    /// tower-lsp-server's frames arrive a few bytes at a time while the server publishes:
    /// every frame reaches the client whole, each source's in the order sent, and nothing
    /// sent before tower-lsp-server's end is lost.
    #[tokio::test]
    async fn frames_from_both_sources_arrive_whole_and_in_order() {
        let uri: Uri = "file:///a.yaml".parse().unwrap();
        let (outbox, queue) = queue();
        let (mut lsp_in, lsp_out) = tokio::io::duplex(7);
        let (client_in, mut client_out) = tokio::io::duplex(1 << 10);
        let writer = tokio::spawn(run(lsp_out, queue, client_in));
        let lsp = tokio::spawn(async move {
            for id in 0..200 {
                let body = json!({"jsonrpc": "2.0", "id": id, "result": "ünïcode ".repeat(id)});
                let framed = framed(body.to_string().as_bytes());
                for piece in framed.chunks(5) {
                    lsp_in.write_all(piece).await.unwrap();
                }
            }
            lsp_in
        });
        let own = tokio::spawn(async move {
            for version in 0..200 {
                let diagnostics: Vec<Diagnostic> = (0..version % 7).map(diagnostic).collect();
                outbox
                    .publish_diagnostics(&uri, &diagnostics, Some(version as i32))
                    .await;
            }
        });
        let read = tokio::spawn(async move {
            let mut out = Vec::new();
            client_out.read_to_end(&mut out).await.unwrap();
            out
        });
        let lsp_in = lsp.await.unwrap();
        own.await.unwrap();
        // tower-lsp-server's end, after both are done.
        drop(lsp_in);
        writer.await.unwrap();
        let out = read.await.unwrap();
        let messages = messages(&out);
        let ids: Vec<i64> = messages.iter().filter_map(|m| m["id"].as_i64()).collect();
        let versions: Vec<i64> = messages
            .iter()
            .filter_map(|m| m["params"]["version"].as_i64())
            .collect();
        assert_eq!(ids, (0..200).collect::<Vec<_>>());
        assert_eq!(versions, (0..200).collect::<Vec<_>>());
        assert_eq!(messages.len(), 400);
        for m in &messages {
            if let Some(id) = m["id"].as_u64() {
                assert_eq!(m["result"], "ünïcode ".repeat(id as usize));
            } else {
                let version = m["params"]["version"].as_u64().unwrap();
                assert_eq!(
                    m["params"]["diagnostics"].as_array().unwrap().len() as u64,
                    version % 7
                );
            }
        }
    }
}
