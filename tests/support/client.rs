//! A minimal LSP client for tests and benchmarks: drives `taintlint::lsp::serve` in memory
//! through real `Content-Length` framing, so every message goes through the same path as one
//! from an editor.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use taintlint::lsp::{serve, Config};

/// How long a test waits for any one message before failing.
pub const WAIT: Duration = Duration::from_secs(30);

/// How the client answers the server's requests.
#[derive(Debug, Clone)]
pub struct Answers {
    /// The answer to `workspace/configuration` (one item); `None` never answers.
    pub configuration: Option<Value>,
}

impl Default for Answers {
    fn default() -> Self {
        Answers {
            configuration: Some(Value::Null),
        }
    }
}

pub struct Client {
    to_server: DuplexStream,
    from_server: mpsc::UnboundedReceiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    queued: VecDeque<Value>,
    /// Every request the server sent.
    pub server_requests: Vec<Value>,
    pub answers: Answers,
    pub server: JoinHandle<bool>,
}

impl Client {
    pub fn start(config: Config) -> Client {
        let (to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_in) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(serve(server_in, server_out, config));
        let (tx, from_server) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut buf = Vec::new();
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                while let Some((message, used)) = parse_frame(&buf) {
                    buf.drain(..used);
                    if tx.send(message).is_err() {
                        return;
                    }
                }
                match client_in.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
        });
        Client {
            to_server,
            from_server,
            next_id: 1,
            queued: VecDeque::new(),
            server_requests: Vec::new(),
            answers: Answers::default(),
            server,
        }
    }

    pub fn test_config() -> Config {
        Config {
            client_timeout: Duration::from_millis(300),
            poll_interval: Duration::from_millis(50),
            test_methods: true,
        }
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.to_server.write_all(bytes).await.unwrap();
        self.to_server.flush().await.unwrap();
    }

    pub async fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.send_raw(framed.as_bytes()).await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// Sends a request without waiting; returns its id.
    pub async fn start_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    /// Sends a request and returns the whole response message.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.start_request(method, params).await;
        self.response(id).await
    }

    /// Waits for the response to request `id`.
    pub async fn response(&mut self, id: i64) -> Value {
        self.response_to(json!(id)).await
    }

    pub async fn response_to(&mut self, id: Value) -> Value {
        loop {
            let m = self.recv().await;
            if m.get("method").is_none() && m["id"] == id {
                return m;
            }
            if m.get("method").is_some() {
                self.queued.push_back(m);
            }
        }
    }

    /// The next message from the server; answers the server's requests as it goes.
    async fn recv(&mut self) -> Value {
        loop {
            let m = tokio::time::timeout(WAIT, self.from_server.recv())
                .await
                .expect("the server said nothing for too long")
                .expect("the server closed the connection");
            if let Some(m) = self.answer(m).await {
                return m;
            }
        }
    }

    /// Answers a request from the server (and returns `None`), or returns the message.
    async fn answer(&mut self, m: Value) -> Option<Value> {
        if std::env::var_os("LSP_TRACE").is_some() {
            eprintln!("<- {m}");
        }
        if m.get("method").is_none() || m.get("id").is_none() {
            return Some(m);
        }
        self.server_requests.push(m.clone());
        let answer = match m["method"].as_str().unwrap() {
            "workspace/configuration" => self.answers.configuration.as_ref().map(|v| json!([v])),
            _ => Some(Value::Null),
        };
        if let Some(result) = answer {
            let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": result});
            self.send(&reply).await;
        }
        None
    }

    /// Waits until the server has sent a request with this method.
    pub async fn server_request(&mut self, method: &str) -> Value {
        self.server_request_after(method, 0).await
    }

    /// The first request with this method the server sent after the first `after` of
    /// [`Client::server_requests`]: one that answers what happened since.
    pub async fn server_request_after(&mut self, method: &str, after: usize) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            if let Some(r) = self
                .server_requests
                .iter()
                .skip(after)
                .find(|r| r["method"] == method)
            {
                return r.clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the server never sent {method}"
            );
            let more = self.quiet_for(Duration::from_millis(20)).await;
            self.queued.extend(more);
        }
    }

    /// The next notification with this method (others are kept for later).
    pub async fn notification(&mut self, method: &str) -> Value {
        self.notification_where(|m| m["method"] == method).await
    }

    /// The server's message once it has read the workspace's files.
    pub async fn workspace_read(&mut self) -> String {
        let read = self
            .notification_where(|m| {
                m["method"] == "window/logMessage"
                    && m["params"]["message"]
                        .as_str()
                        .is_some_and(|s| s.starts_with("taintlint: read the workspace"))
            })
            .await;
        read["params"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The first notification that satisfies `wanted` (others are kept for later).
    pub async fn notification_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.queued.iter().position(&wanted) {
            return self.queued.remove(i).unwrap();
        }
        loop {
            let m = self.recv().await;
            if wanted(&m) {
                return m;
            }
            if m.get("method").is_some() {
                self.queued.push_back(m);
            }
        }
    }

    /// The next `publishDiagnostics` for `uri` whose version is `version`.
    pub async fn diagnostics(&mut self, uri: &str, version: i64) -> Value {
        self.notification_where(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        })
        .await
    }

    /// Notifications received and not yet taken.
    pub fn drain_queued(&mut self) -> Vec<Value> {
        self.queued.drain(..).collect()
    }

    /// Collects the notifications that arrive within `time`.
    pub async fn quiet_for(&mut self, time: Duration) -> Vec<Value> {
        let deadline = tokio::time::Instant::now() + time;
        let mut out: Vec<Value> = self.queued.drain(..).collect();
        loop {
            match tokio::time::timeout_at(deadline, self.from_server.recv()).await {
                Ok(Some(m)) => out.extend(self.answer(m).await),
                _ => return out,
            }
        }
    }

    pub async fn initialize(&mut self, capabilities: Value, options: Value) -> Value {
        self.initialize_in(None, capabilities, options).await
    }

    /// `initialize` with a workspace root (a `file://` URI).
    pub async fn initialize_in(
        &mut self,
        root: Option<&str>,
        capabilities: Value,
        options: Value,
    ) -> Value {
        let response = self
            .request(
                "initialize",
                json!({
                    "processId": null,
                    "rootUri": root,
                    "capabilities": capabilities,
                    "initializationOptions": options,
                }),
            )
            .await;
        self.notify("initialized", json!({})).await;
        response
    }

    pub async fn open(&mut self, uri: &str, text: &str) {
        self.open_as(uri, "yaml", text).await;
    }

    /// Opens a document with the language the editor gives it (`terraform`, `json`, ...).
    pub async fn open_as(&mut self, uri: &str, language: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        )
        .await;
    }

    /// The server's copy of a document.
    pub async fn server_text(&mut self, uri: &str) -> Value {
        self.request("taintlint/documentText", json!({"uri": uri}))
            .await["result"]
            .clone()
    }

    /// `shutdown` then `exit`; returns what `serve` returned.
    pub async fn finish(mut self) -> bool {
        let r = self.request("shutdown", Value::Null).await;
        assert_eq!(r["result"], Value::Null, "{r}");
        self.notify("exit", Value::Null).await;
        tokio::time::timeout(WAIT, self.server)
            .await
            .expect("the server did not stop after exit")
            .unwrap()
    }
}

/// One framed message at the start of `buf`, and how many bytes it took.
fn parse_frame(buf: &[u8]) -> Option<(Value, usize)> {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let headers = std::str::from_utf8(&buf[..end]).unwrap();
    let length: usize = headers
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .expect("a Content-Length header")
        .trim()
        .parse()
        .unwrap();
    let start = end + 4;
    if buf.len() < start + length {
        return None;
    }
    let message = serde_json::from_slice(&buf[start..start + length]).unwrap();
    Some((message, start + length))
}

/// Capabilities of a client that takes pushed diagnostics and UTF-16 positions only.
pub fn push_client() -> Value {
    json!({
        "textDocument": {
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": true},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}}
        },
        "workspace": {"workspaceEdit": {"documentChanges": true}}
    })
}

/// Capabilities of a client that pulls diagnostics, watches files and offers UTF-8.
pub fn pull_client() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-8", "utf-16"]},
        "textDocument": {
            "diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false},
            "hover": {"contentFormat": ["markdown"]}
        },
        "workspace": {
            "configuration": true,
            "didChangeConfiguration": {"dynamicRegistration": true},
            "didChangeWatchedFiles": {"dynamicRegistration": true, "relativePatternSupport": false},
            "diagnostics": {"refreshSupport": true}
        }
    })
}

/// A byte offset from a line and a column counted in UTF-16 units (`utf16`) or bytes,
/// computed independently of the server's code: lines split at `\r\n`, `\n` and `\r`.
pub fn offset_of(text: &str, line: u64, col: u64, utf16: bool) -> usize {
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut l = 0;
    while l < line {
        match bytes[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            Some(i) => {
                let at = start + i;
                start = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                    at + 2
                } else {
                    at + 1
                };
            }
            None => return text.len(),
        }
        l += 1;
    }
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if c == '\n' || c == '\r' || units >= col {
            return start + i;
        }
        units += if utf16 {
            c.len_utf16() as u64
        } else {
            c.len_utf8() as u64
        };
    }
    text.len()
}

/// Applies LSP text edits (`[{range, newText}]`, non-overlapping) to a text.
pub fn apply_edits(text: &str, edits: &[Value], utf16: bool) -> String {
    let mut resolved: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            let r = &e["range"];
            let at = |p: &Value| {
                offset_of(
                    text,
                    p["line"].as_u64().unwrap(),
                    p["character"].as_u64().unwrap(),
                    utf16,
                )
            };
            (
                at(&r["start"]),
                at(&r["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    resolved.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, t) in resolved {
        out.replace_range(s..e, &t);
    }
    out
}
