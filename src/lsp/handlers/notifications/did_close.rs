//! `textDocument/didClose`: the document is dropped; a pushed client's diagnostics are cleared.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;

/// A closed inventory file counts as on disk again (its unsaved edits are gone); a closed
/// manifest of the workspace gets its diagnostics from disk again.
pub(crate) async fn handle(session: &Arc<Session>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    let (pull, inventory) = {
        let mut state = session.lock();
        state.documents.remove(&uri);
        state.dirty.remove(&uri);
        let inventory = uri
            .to_file_path()
            .is_some_and(|p| state.workspace.inventory.contains(&p));
        (state.caps.pull, inventory)
    };
    if !pull {
        session.outbox.publish_diagnostics(&uri, &[], None).await;
    }
    if inventory {
        session.reload_inventory().await;
    } else {
        session.workspace_changed().await;
    }
}
