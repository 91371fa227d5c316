//! `textDocument/didChange`: the edit applies at once, under the lock, before any `.await`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;

/// An edit to an inventory or pool file changes the cluster at once, saved or not.
pub(crate) async fn handle(session: &Arc<Session>, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let inventory = {
        let state = session.lock();
        uri.to_file_path()
            .is_some_and(|p| state.workspace.inventory.contains(&p))
    };
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
    if inventory {
        // Keystrokes come faster than a big inventory is read: edits that arrive while it is
        // read are taken together by the next reading, not one reading each.
        session.inventory_edited.store(true, Ordering::SeqCst);
        let me = session.clone();
        tokio::spawn(async move { me.read_inventory_edits().await });
    }
    for p in problems {
        session
            .log(
                MessageType::WARNING,
                format!("taintlint: {}: {p}", uri.as_str()),
            )
            .await;
    }
}
