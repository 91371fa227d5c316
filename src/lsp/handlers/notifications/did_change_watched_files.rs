//! `workspace/didChangeWatchedFiles`: inventory, configuration and manifest files changed on disk;
//! a chart's templates changed, so its values files, open or not, render into other workloads;
//! a file of a kustomize overlay changed, so the overlay renders into other objects.

use std::path::PathBuf;
use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;

pub(crate) async fn handle(session: &Arc<Session>, params: DidChangeWatchedFilesParams) {
    let paths: Vec<PathBuf> = params
        .changes
        .iter()
        .filter_map(|c| c.uri.to_file_path())
        .map(|p| p.into_owned())
        .collect();
    let (touched, config) = {
        let state = session.lock();
        (
            paths.iter().any(|p| state.workspace.inventory.contains(p)),
            paths.iter().any(|p| state.workspace.is_config(p)),
        )
    };
    if config {
        session.reload_config().await;
    } else if touched {
        session.reload_inventory().await;
    }
    let mut charts: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| crate::walk::chart_of_template(p))
        .collect();
    charts.dedup();
    if !charts.is_empty() {
        let forgotten = session.lock().disk.forget_values_of(&charts);
        session.reread_charts(charts).await;
        if forgotten {
            session.workspace_changed().await;
        }
    }
    let manifests = paths
        .iter()
        .filter(|p| session.indexes(p))
        .cloned()
        .collect();
    session.reindex(manifests).await;
    session.files_changed(&paths);
}
