//! `textDocument/didOpen`: the document is held and queued for analysis.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::lsp::documents::Document;
use crate::lsp::session::{Open, Session};

pub(crate) async fn handle(session: &Session, params: DidOpenTextDocumentParams) {
    let d = params.text_document;
    {
        let mut state = session.lock();
        let doc = Document::new(d.text, d.version, d.language_id);
        state.documents.insert(
            d.uri.clone(),
            Open {
                doc,
                analysis: None,
                facts: None,
                chunks: Arc::default(),
            },
        );
        state.disk.opened(&d.uri);
        state.dirty.insert(d.uri);
    }
    session.wake.notify_one();
}
