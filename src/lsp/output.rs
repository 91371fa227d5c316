//! The server's output: what tower-lsp-server writes (responses, the server's requests, log
//! messages) and the diagnostics the server publishes itself.
//!
//! Through tower-lsp-server's `Client`, a notification becomes a `serde_json::Value` tree before
//! it is written: one allocation per object, key and string. For a big manifest that is most of
//! the time from a keystroke to its diagnostics (600 diagnostics are 500 KB of JSON and 40,000
//! allocations, made, written and freed again on every edit). So the server serializes
//! `textDocument/publishDiagnostics` straight from its diagnostics into bytes ([`Outbox`]), and
//! one writer puts both on the wire, a whole frame at a time, each source in its own order.

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tower_lsp_server::ls_types::{Diagnostic, Uri};

use crate::lsp::guard::{Frame, Framer};

/// How many frames may wait for the writer; a sender waits when they are all taken, as it
/// would for a client that does not read.
const QUEUE: usize = 8;

enum Out {
    /// A whole message, with its header.
    Frame(Vec<u8>),
    /// tower-lsp-server's output has ended: the server is done.
    End,
}

/// Sends messages the server serializes itself.
#[derive(Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Out>,
}

/// The writer's end of the queue.
pub struct Queue {
    rx: mpsc::Receiver<Out>,
    /// For tower-lsp-server's frames.
    tx: mpsc::Sender<Out>,
}

/// A new outbox and the queue it feeds.
pub fn queue() -> (Outbox, Queue) {
    let (tx, rx) = mpsc::channel(QUEUE);
    (Outbox { tx: tx.clone() }, Queue { rx, tx })
}

#[derive(Serialize)]
struct Message<P> {
    jsonrpc: &'static str,
    method: &'static str,
    params: P,
}

/// `PublishDiagnosticsParams`, borrowed.
#[derive(Serialize)]
struct PublishDiagnostics<'a> {
    uri: &'a Uri,
    diagnostics: &'a [Diagnostic],
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
        let _ = self.tx.send(Out::Frame(frame(&body))).await;
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    let mut out = Vec::with_capacity(header.len() + body.len());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(body);
    out
}

/// Writes to `output` the frames tower-lsp-server writes into `from_lsp` and those sent through
/// the queue's outbox, until `from_lsp` ends. Returns once everything sent before that end is
/// written and flushed (or the output fails).
pub async fn run<R, W>(from_lsp: R, queue: Queue, output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let Queue { rx, tx } = queue;
    tokio::join!(forward(from_lsp, tx), write(rx, output));
}

/// tower-lsp-server's frames into the queue. It reads to the end even when the writer has
/// stopped, so tower-lsp-server never waits on a full pipe.
async fn forward<R: AsyncRead + Unpin>(mut from_lsp: R, tx: mpsc::Sender<Out>) {
    let mut framer = Framer::new(usize::MAX);
    let mut open = true;
    loop {
        match framer.next(&mut from_lsp).await {
            Ok(Some(Frame::Message(body))) => {
                if open {
                    open = tx.send(Out::Frame(frame(&body))).await.is_ok();
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
    while let Some(Out::Frame(bytes)) = rx.recv().await {
        if output.write_all(&bytes).await.is_err() {
            return;
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
                let framed = frame(body.to_string().as_bytes());
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
