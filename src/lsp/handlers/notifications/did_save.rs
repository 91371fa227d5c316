//! `textDocument/didSave`: a saved inventory or configuration file is read again; a saved
//! manifest is read again for the workspace index, and the overlays are rendered again with it.

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;

pub(crate) async fn handle(session: &Arc<Session>, params: DidSaveTextDocumentParams) {
    let (is_inventory, is_config) = {
        let state = session.lock();
        let path = params.text_document.uri.to_file_path();
        (
            path.as_ref()
                .is_some_and(|p| state.workspace.inventory.contains(p)),
            path.as_ref().is_some_and(|p| state.workspace.is_config(p)),
        )
    };
    if is_config {
        session.reload_config().await;
    } else if is_inventory {
        session.reload_inventory().await;
    }
    let saved: Vec<PathBuf> = params
        .text_document
        .uri
        .to_file_path()
        .map(|p| p.into_owned())
        .into_iter()
        .collect();
    let manifests = saved
        .iter()
        .filter(|p| session.indexes(p))
        .cloned()
        .collect();
    session.reindex(manifests).await;
    // What kustomize reads is on disk now: the overlays it is in render it.
    session.files_changed(&saved);
}
