//! What the input guard ([`crate::lsp::guard`]) makes of a malformed message: a request gets
//! the error it earned, a notification is logged and ignored.

use serde_json::Value;
use tower_lsp_server::jsonrpc::{self, ErrorCode};
use tower_lsp_server::ls_types::MessageType;

use crate::lsp::guard::Invalid;
use crate::lsp::session::Session;

pub(crate) async fn request(session: &Session, params: Invalid) -> jsonrpc::Result<Value> {
    session
        .log(MessageType::ERROR, format!("taintlint: {}", params.message))
        .await;
    Err(jsonrpc::Error {
        code: ErrorCode::from(params.code),
        message: params.message.into(),
        data: None,
    })
}

pub(crate) async fn notification(session: &Session, params: Invalid) {
    session
        .log(
            MessageType::ERROR,
            format!("taintlint: ignored a message: {}", params.message),
        )
        .await;
}
