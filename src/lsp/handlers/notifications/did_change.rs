//! `textDocument/didChange`: the edit applies at once, under the lock, before any `.await`.

use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;

pub(crate) async fn handle(session: &Session, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let problems = {
        let mut state = session.lock();
        let encoding = state.encoding;
        match state.documents.get_mut(&uri) {
            Some(open) => {
                let problems = open.doc.apply(
                    params.text_document.version,
                    &params.content_changes,
                    encoding,
                );
                state.dirty.insert(uri.clone());
                problems
            }
            None => vec![
                "a change to a document that is not open; ignored (the client must send \
                 textDocument/didOpen first)"
                    .to_string(),
            ],
        }
    };
    session.wake.notify_one();
    for p in problems {
        session
            .log(
                MessageType::WARNING,
                format!("taintlint: {}: {p}", uri.as_str()),
            )
            .await;
    }
}
