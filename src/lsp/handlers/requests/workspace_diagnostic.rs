//! `workspace/diagnostic`: the diagnostics of the workspace's files that are not open (open
//! ones are answered by `textDocument/diagnostic`), an `unchanged` report where the client's
//! previous result id is still current, and an empty report for a file the client holds a
//! result for that is gone (deleted, or no longer included). Edits to an open inventory or pool
//! file that are not read yet are read first: the answer is made for the inventory the client
//! sees, not for the one before its last keystroke.

use std::collections::HashMap;
use std::sync::Arc;

use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;

pub(crate) async fn handle(
    session: &Arc<Session>,
    params: WorkspaceDiagnosticParams,
) -> jsonrpc::Result<WorkspaceDiagnosticReportResult> {
    session.read_inventory_edits().await;
    let results = session.disk_diagnostics().await?;
    let previous: HashMap<&Uri, &str> = params
        .previous_result_ids
        .iter()
        .map(|p| (&p.uri, p.value.as_str()))
        .collect();
    let mut items = Vec::with_capacity(results.len());
    for r in &results {
        if previous.get(&r.uri) == Some(&r.result_id.as_str()) {
            items.push(WorkspaceDocumentDiagnosticReport::Unchanged(
                WorkspaceUnchangedDocumentDiagnosticReport {
                    uri: r.uri.clone(),
                    version: None,
                    unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                        result_id: r.result_id.clone(),
                    },
                },
            ));
        } else {
            items.push(WorkspaceDocumentDiagnosticReport::Full(
                WorkspaceFullDocumentDiagnosticReport {
                    uri: r.uri.clone(),
                    version: None,
                    full_document_diagnostic_report: FullDocumentDiagnosticReport {
                        result_id: Some(r.result_id.clone()),
                        items: r.items.to_vec(),
                    },
                },
            ));
        }
    }
    let reported: std::collections::HashSet<&Uri> = results.iter().map(|r| &r.uri).collect();
    let open = session.open_uris();
    let mut gone: Vec<&Uri> = previous
        .keys()
        .copied()
        .filter(|u| !reported.contains(u) && open.binary_search(u).is_err())
        .collect();
    gone.sort();
    for uri in gone {
        items.push(WorkspaceDocumentDiagnosticReport::Full(
            WorkspaceFullDocumentDiagnosticReport {
                uri: uri.clone(),
                version: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: None,
                    items: Vec::new(),
                },
            },
        ));
    }
    Ok(WorkspaceDiagnosticReportResult::Report(
        WorkspaceDiagnosticReport { items },
    ))
}
