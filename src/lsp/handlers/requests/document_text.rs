//! `taintlint/documentText` (tests only): the server's copy of a document.

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::Uri;

use crate::lsp::session::Session;

#[derive(Debug, Deserialize)]
pub struct DocumentTextParams {
    pub uri: Uri,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct DocumentText {
    pub version: i32,
    pub text: String,
}

pub(crate) fn handle(session: &Session, params: DocumentTextParams) -> Option<DocumentText> {
    let state = session.lock();
    state.documents.get(&params.uri).map(|o| DocumentText {
        version: o.doc.version,
        text: o.doc.text().to_string(),
    })
}
