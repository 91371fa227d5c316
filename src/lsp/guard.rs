//! The input guard: reads the client's byte stream, frames it, and forwards only messages the
//! protocol layer can decode.
//!
//! tower-lsp-server reads with tokio-util's `FramedRead`, which ends the stream after the first
//! decoding error: one malformed message (bad JSON, a missing `Content-Length`, invalid UTF-8)
//! would stop the server. The guard sits in front of it. A well-formed message passes through
//! unchanged; anything else is replaced by a message to the server's own
//! [`INVALID_REQUEST`] / [`INVALID_NOTIFICATION`] methods, so the client still gets a JSON-RPC
//! error for a request it is waiting on, and a `window/logMessage` otherwise.

use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp_server::jsonrpc::{ErrorCode, Response};
use tower_lsp_server::ls_types::{
    CancelParams, DidChangeConfigurationParams, DidChangeTextDocumentParams,
    DidChangeWatchedFilesParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams,
};

/// Answered by the server with the error carried in its parameters ([`Invalid`]).
pub const INVALID_REQUEST: &str = "taintlint/invalidRequest";
/// Logged by the server ([`Invalid`]).
pub const INVALID_NOTIFICATION: &str = "taintlint/invalidNotification";

/// The largest message accepted (a document is sent whole on open).
pub const MAX_MESSAGE: usize = 256 << 20;
/// The most header bytes before the blank line that ends them.
const MAX_HEADER: usize = 8 << 10;

/// What was wrong with a message, as the server reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Invalid {
    /// A JSON-RPC error code (-32700 parse error, -32600 invalid request, -32602 invalid params).
    pub code: i64,
    pub message: String,
}

/// Copies framed messages from `input` to `output` until `input` ends, replacing each one that
/// would not decode. Returns when the input ends or the output is closed.
pub async fn run<R, W>(input: R, output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    run_limited(input, output, MAX_MESSAGE).await
}

async fn run_limited<R, W>(mut input: R, mut output: W, max_message: usize)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = Framer::new(max_message);
    loop {
        let frame = match reader.next(&mut input).await {
            Ok(Some(frame)) => frame,
            Ok(None) | Err(_) => break,
        };
        let body = match frame {
            Frame::Message(body) => match check(&body) {
                Verdict::Pass => body,
                Verdict::Replace(message) => message.into_bytes(),
            },
            Frame::Invalid(invalid) => replacement(None, false, invalid).into_bytes(),
        };
        let header = format!("Content-Length: {}\r\n\r\n", body.len());
        if output.write_all(header.as_bytes()).await.is_err()
            || output.write_all(&body).await.is_err()
            || output.flush().await.is_err()
        {
            break;
        }
    }
    let _ = output.shutdown().await;
}

pub(crate) enum Frame {
    Message(Vec<u8>),
    /// A frame that could not be read (bad headers, too large, not UTF-8).
    Invalid(Invalid),
}

/// Splits a byte stream into `Content-Length`-framed messages, skipping garbage. (It also
/// reads tower-lsp-server's own output, in [`super::output`].)
pub(crate) struct Framer {
    buf: Vec<u8>,
    eof: bool,
    max_message: usize,
}

impl Framer {
    pub(crate) fn new(max_message: usize) -> Framer {
        Framer {
            buf: Vec::new(),
            eof: false,
            max_message,
        }
    }

    async fn fill<R: AsyncRead + Unpin>(&mut self, input: &mut R) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let mut chunk = [0u8; 64 << 10];
        let n = input.read(&mut chunk).await?;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(true)
    }

    /// The next frame; `None` when the input has ended.
    pub(crate) async fn next<R: AsyncRead + Unpin>(
        &mut self,
        input: &mut R,
    ) -> std::io::Result<Option<Frame>> {
        // Headers: everything up to the first blank line.
        let header_end = loop {
            // Skip anything before a header line (garbage between messages).
            let skipped = skip_garbage(&mut self.buf);
            if skipped > 0 {
                return Ok(Some(Frame::Invalid(Invalid {
                    code: ErrorCode::ParseError.code(),
                    message: format!(
                        "skipped {skipped} bytes that are not a message (no Content-Length header)"
                    ),
                })));
            }
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                break end;
            }
            if self.buf.len() > MAX_HEADER {
                let n = self.buf.len();
                self.buf.clear();
                return Ok(Some(Frame::Invalid(Invalid {
                    code: ErrorCode::ParseError.code(),
                    message: format!("skipped {n} bytes of headers with no blank line after them"),
                })));
            }
            if !self.fill(input).await? {
                if !self.buf.is_empty() && !self.buf.iter().all(u8::is_ascii_whitespace) {
                    self.buf.clear();
                    return Ok(Some(Frame::Invalid(Invalid {
                        code: ErrorCode::ParseError.code(),
                        message: "the input ended inside a message's headers".into(),
                    })));
                }
                return Ok(None);
            }
        };
        let headers = self.buf[..header_end].to_vec();
        self.buf.drain(..header_end + 4);
        let length = match content_length(&headers) {
            Ok(n) => n,
            Err(message) => {
                return Ok(Some(Frame::Invalid(Invalid {
                    code: ErrorCode::ParseError.code(),
                    message,
                })))
            }
        };
        if length > self.max_message {
            // Read past the body without keeping it.
            let mut left = length;
            loop {
                let take = left.min(self.buf.len());
                self.buf.drain(..take);
                left -= take;
                if left == 0 || !self.fill(input).await? {
                    break;
                }
            }
            return Ok(Some(Frame::Invalid(Invalid {
                code: ErrorCode::InvalidRequest.code(),
                message: format!(
                    "a message of {length} bytes is larger than the {} bytes taintlint accepts",
                    self.max_message
                ),
            })));
        }
        while self.buf.len() < length {
            if !self.fill(input).await? {
                self.buf.clear();
                return Ok(Some(Frame::Invalid(Invalid {
                    code: ErrorCode::ParseError.code(),
                    message: format!(
                        "the input ended inside a message: {length} bytes announced, fewer sent"
                    ),
                })));
            }
        }
        let rest = self.buf.split_off(length);
        let body = std::mem::replace(&mut self.buf, rest);
        Ok(Some(Frame::Message(body)))
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Drops bytes before the first thing that looks like a header line; returns how many.
fn skip_garbage(buf: &mut Vec<u8>) -> usize {
    // Leading line breaks between messages are tolerated silently.
    let blank = buf
        .iter()
        .take_while(|b| matches!(b, b'\r' | b'\n'))
        .count();
    buf.drain(..blank);
    if buf.is_empty() || looks_like_header(buf) {
        return 0;
    }
    // Keep a possible header that is still arriving.
    let cut = match find_ascii_case_insensitive(buf, b"content-length") {
        Some(at) => at,
        None => buf.len().saturating_sub(b"content-length".len() - 1),
    };
    if cut == 0 {
        return 0;
    }
    buf.drain(..cut);
    cut
}

/// Whether the buffer starts with `Name:` made of header-name characters (or could still,
/// when only a prefix has arrived).
fn looks_like_header(buf: &[u8]) -> bool {
    for (i, &b) in buf.iter().enumerate() {
        match b {
            b':' => return i > 0,
            b'-' | b'_' => {}
            b if b.is_ascii_alphanumeric() => {}
            _ => return false,
        }
        if i > 64 {
            return false;
        }
    }
    true
}

fn find_ascii_case_insensitive(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

fn content_length(headers: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(headers)
        .map_err(|_| "message headers are not ASCII text".to_string())?;
    let mut length = None;
    for line in text.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("malformed header line {line:?}"));
        };
        let value = value.trim();
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value
                .parse::<usize>()
                .map_err(|_| format!("Content-Length {value:?} is not a byte count"))?;
            length = Some(n);
        } else if name.trim().eq_ignore_ascii_case("content-type") {
            let charset = value
                .split(';')
                .skip(1)
                .filter_map(|p| p.trim().strip_prefix("charset="))
                .next();
            if let Some(charset) = charset {
                if !matches!(charset.to_ascii_lowercase().as_str(), "utf-8" | "utf8") {
                    return Err(format!(
                        "charset {charset:?} is not supported; messages must be UTF-8"
                    ));
                }
            }
        }
    }
    length.ok_or_else(|| "a message without a Content-Length header".to_string())
}

enum Verdict {
    Pass,
    Replace(String),
}

/// Whether a body decodes as the protocol layer will decode it; if not, the replacement.
fn check(body: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(body) else {
        return Verdict::Replace(replacement(
            None,
            false,
            Invalid {
                code: ErrorCode::ParseError.code(),
                message: "a message that is not UTF-8 text".into(),
            },
        ));
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Replace(replacement(
                None,
                false,
                Invalid {
                    code: ErrorCode::ParseError.code(),
                    message: format!("a message that is not JSON: {e}"),
                },
            ))
        }
    };
    let id = value.get("id").filter(|id| id.is_i64() || id.is_string());
    let is_response = value.get("result").is_some() || value.get("error").is_some();
    if is_request(&value) {
        if id.is_none() {
            if let Err(e) = check_notification(&value) {
                return Verdict::Replace(replacement(None, false, e));
            }
        }
        return Verdict::Pass;
    }
    if is_response && Response::deserialize(&value).is_ok() {
        return Verdict::Pass;
    }
    let invalid = Invalid {
        code: ErrorCode::InvalidRequest.code(),
        message: invalid_request_message(&value),
    };
    // A request we can name gets its error; anything else is logged.
    let respond = id.is_some() && !is_response;
    Verdict::Replace(replacement(id.cloned(), respond, invalid))
}

/// Whether the protocol layer will read this as a request or notification: what its `Request`
/// type requires, checked in place (deserialising it would copy the parameters, which hold
/// whole documents), except that a missing `method` is refused (it would read as "").
fn is_request(value: &Value) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    object.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && object.get("method").is_some_and(Value::is_string)
        && object
            .get("id")
            .is_none_or(|id| id.is_i64() || id.is_string() || id.is_null())
}

fn invalid_request_message(value: &Value) -> String {
    let Some(object) = value.as_object() else {
        return format!(
            "a message that is not a JSON-RPC object (a JSON {})",
            match value {
                Value::Array(_) => "array; batches are not part of LSP",
                Value::String(_) => "string",
                Value::Number(_) => "number",
                Value::Bool(_) => "boolean",
                Value::Null => "null",
                Value::Object(_) => "object",
            }
        );
    };
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(v) => return format!("jsonrpc is {v}, not \"2.0\""),
        None => return "a message without \"jsonrpc\": \"2.0\"".into(),
    }
    match object.get("method") {
        Some(Value::String(_)) => {}
        Some(v) => return format!("method is {v}, not a string"),
        None if object.contains_key("id") => {
            return "a message with an id but no method, result or error".into()
        }
        None => return "a message without a method".into(),
    }
    if let Some(id) = object.get("id") {
        if !(id.is_i64() || id.is_string() || id.is_null()) {
            return format!("id is {id}, not an integer or a string");
        }
    }
    "a message that is not a JSON-RPC request, notification or response".into()
}

/// Checks the parameters of the notifications the server handles: the protocol layer drops a
/// notification whose parameters do not decode without telling anyone.
fn check_notification(value: &Value) -> Result<(), Invalid> {
    let method = value.get("method").and_then(Value::as_str).unwrap_or("");
    let params = value.get("params").unwrap_or(&Value::Null);
    fn decode<'a, T: Deserialize<'a>>(params: &'a Value) -> Result<(), String> {
        T::deserialize(params).map(drop).map_err(|e| e.to_string())
    }
    let result = match method {
        "textDocument/didOpen" => decode::<DidOpenTextDocumentParams>(params),
        "textDocument/didChange" => decode::<DidChangeTextDocumentParams>(params),
        "textDocument/didSave" => decode::<DidSaveTextDocumentParams>(params),
        "textDocument/didClose" => decode::<DidCloseTextDocumentParams>(params),
        "workspace/didChangeConfiguration" => decode::<DidChangeConfigurationParams>(params),
        "workspace/didChangeWatchedFiles" => decode::<DidChangeWatchedFilesParams>(params),
        "$/cancelRequest" => decode::<CancelParams>(params),
        _ => Ok(()),
    };
    result.map_err(|e| Invalid {
        code: ErrorCode::InvalidParams.code(),
        message: format!("{method}: invalid parameters: {e}"),
    })
}

/// The message that stands in for an invalid one.
fn replacement(id: Option<Value>, respond: bool, invalid: Invalid) -> String {
    let params = serde_json::to_value(&invalid).expect("plain data serialises");
    let message = if respond {
        json!({"jsonrpc": "2.0", "id": id, "method": INVALID_REQUEST, "params": params})
    } else {
        json!({"jsonrpc": "2.0", "method": INVALID_NOTIFICATION, "params": params})
    };
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::jsonrpc::Request;

    async fn pass(input: &[u8], max_message: usize) -> Vec<Value> {
        let (mut w, r) = tokio::io::duplex(4096);
        let (out_w, mut out_r) = tokio::io::duplex(4096);
        let input = input.to_vec();
        let writer = tokio::spawn(async move {
            w.write_all(&input).await.unwrap();
        });
        let reader = tokio::spawn(async move {
            let mut out = Vec::new();
            out_r.read_to_end(&mut out).await.unwrap();
            out
        });
        run_limited(r, out_w, max_message).await;
        writer.await.unwrap();
        let out = reader.await.unwrap();
        let mut messages = Vec::new();
        let mut rest = &out[..];
        while !rest.is_empty() {
            let end = find(rest, b"\r\n\r\n").unwrap();
            let n: usize = std::str::from_utf8(&rest[16..end])
                .unwrap()
                .parse()
                .unwrap();
            let body = &rest[end + 4..end + 4 + n];
            messages.push(serde_json::from_slice(body).unwrap());
            rest = &rest[end + 4 + n..];
        }
        messages
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[tokio::test]
    async fn passes_good_messages_and_replaces_bad_ones() {
        let good = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        let input = [
            frame(good),
            frame("{not json"),
            "garbage\x00\x01 here".to_string(),
            frame(r#"{"jsonrpc":"2.0","id":7}"#),
            frame(r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}"#),
            "Content-Length: nope\r\n\r\n".to_string(),
            frame(good),
        ]
        .concat();
        let out = pass(input.as_bytes(), MAX_MESSAGE).await;
        let methods: Vec<&str> = out.iter().map(|m| m["method"].as_str().unwrap()).collect();
        assert_eq!(
            methods,
            [
                "shutdown",
                INVALID_NOTIFICATION,
                INVALID_NOTIFICATION,
                INVALID_REQUEST,
                INVALID_NOTIFICATION,
                INVALID_NOTIFICATION,
                "shutdown"
            ]
        );
        assert_eq!(out[1]["params"]["code"], -32700);
        assert_eq!(out[3]["id"], 7);
        assert_eq!(out[3]["params"]["code"], -32600);
        assert_eq!(out[4]["params"]["code"], -32602);
        assert!(out[4]["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("textDocument/didOpen: invalid parameters"));
    }

    #[tokio::test]
    async fn skips_oversized_messages() {
        let max = 1000;
        let huge = format!("Content-Length: {}\r\n\r\n", 100_000);
        let mut input = huge.into_bytes();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#).bytes());
        let out = pass(&input, max).await;
        assert_eq!(out.len(), 2);
        assert_eq!(out[0]["params"]["code"], -32600);
        assert_eq!(out[1]["method"], "exit");
    }

    #[test]
    fn requests_as_the_protocol_layer_reads_them() {
        for ok in [
            json!({"jsonrpc": "2.0", "method": "m"}),
            json!({"jsonrpc": "2.0", "method": "m", "id": 1, "params": [1]}),
            json!({"jsonrpc": "2.0", "method": "m", "id": "a", "extra": true}),
            json!({"jsonrpc": "2.0", "method": "m", "id": null}),
        ] {
            assert!(is_request(&ok), "{ok}");
            let request = Request::deserialize(&ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert_eq!(request.method(), "m", "{ok}");
            // The id as written (`null` is an id too); none for a notification.
            assert_eq!(
                request.id().map(|id| serde_json::to_value(id).unwrap()),
                ok.get("id").cloned(),
                "{ok}"
            );
        }
        for bad in [
            json!({"jsonrpc": "2.0", "method": "m", "id": 1.5}),
            json!({"jsonrpc": "2.0", "method": "m", "id": u64::MAX}),
            json!({"jsonrpc": "1.0", "method": "m"}),
            json!({"jsonrpc": "2.0", "method": 3}),
            json!({"method": "m"}),
            json!(["batch"]),
        ] {
            assert!(!is_request(&bad), "{bad}");
            assert!(Request::deserialize(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn headers() {
        assert_eq!(content_length(b"Content-Length: 12"), Ok(12));
        assert_eq!(
            content_length(
                b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 3"
            ),
            Ok(3)
        );
        assert_eq!(
            content_length(b"Content-Type: x; charset=latin1\r\nContent-Length: 3"),
            Err("charset \"latin1\" is not supported; messages must be UTF-8".to_string())
        );
        assert_eq!(
            content_length(b"X-Other: 1"),
            Err("a message without a Content-Length header".to_string())
        );
        assert_eq!(
            content_length(b"Content-Length: twelve"),
            Err("Content-Length \"twelve\" is not a byte count".to_string())
        );
        assert_eq!(
            content_length(b"Content-Length 12"),
            Err("malformed header line \"Content-Length 12\"".to_string())
        );
    }
}
