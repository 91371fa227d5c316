//! `textDocument/didOpen`: the document is held and queued for analysis; a chart's values file
//! gets what the chart's templates render it into, read from them now.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::lsp::documents::Document;
use crate::lsp::session::{Open, Session};

pub(crate) async fn handle(session: &Session, params: DidOpenTextDocumentParams) {
    let d = params.text_document;
    // Read before the lock: a chart's templates are a few small files.
    let chart = d
        .uri
        .to_file_path()
        .and_then(|path| crate::walk::Place::of(&path, None));
    {
        let mut state = session.lock();
        let mut doc = Document::new(d.text, d.version, d.language_id);
        doc.chart = chart;
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
