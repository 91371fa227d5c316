//! `textDocument/didClose`: the document is dropped; a pushed client's diagnostics are cleared.

use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;

pub(crate) async fn handle(session: &Session, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    let pull = {
        let mut state = session.lock();
        state.documents.remove(&uri);
        state.dirty.remove(&uri);
        state.caps.pull
    };
    if !pull {
        session.outbox.publish_diagnostics(&uri, &[], None).await;
    }
}
