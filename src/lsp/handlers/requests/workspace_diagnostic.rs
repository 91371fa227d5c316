//! `workspace/diagnostic`: the diagnostics of the workspace's files that are not open (open
//! ones are answered by `textDocument/diagnostic`), an `unchanged` report where the client's
//! previous result id is still current, and an empty report for a file the client holds a
//! result for that is gone (deleted, or no longer included). Edits to an open inventory or pool
//! file that are not read yet are read first: the answer is made for the inventory the client
//! sees, not for the one before its last keystroke.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::*;

use crate::lsp::session::{blocking, Session};
use crate::lsp::workspace_diagnostics::DiskResult;

/// A file's report: `unchanged` when the client holds its current result id.
fn report(r: &DiskResult, previous: Option<&str>) -> WorkspaceDocumentDiagnosticReport {
    if previous == Some(r.result_id.as_str()) {
        WorkspaceDocumentDiagnosticReport::Unchanged(WorkspaceUnchangedDocumentDiagnosticReport {
            uri: r.uri.clone(),
            version: None,
            unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                result_id: r.result_id.clone(),
            },
        })
    } else {
        WorkspaceDocumentDiagnosticReport::Full(WorkspaceFullDocumentDiagnosticReport {
            uri: r.uri.clone(),
            version: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(r.result_id.clone()),
                items: r.items.to_vec(),
            },
        })
    }
}

pub(crate) async fn handle(
    session: &Arc<Session>,
    params: WorkspaceDiagnosticParams,
) -> jsonrpc::Result<WorkspaceDiagnosticReportResult> {
    session.read_inventory_edits().await;
    let results = session.disk_diagnostics().await?;
    let open = session.open_uris();
    // Made on the blocking pool, in parallel: a pool edit changes hundreds of files, and each
    // report is a copy of the file's diagnostics.
    let items = blocking("answering workspace/diagnostic", move || {
        reports(&results, &params.previous_result_ids, &open)
    })
    .await?;
    Ok(WorkspaceDiagnosticReportResult::Report(
        WorkspaceDiagnosticReport { items },
    ))
}

/// A report per file, and an empty one without a result id for each file the client holds a
/// result for that is gone (and not open: `open` is sorted).
fn reports(
    results: &[Arc<DiskResult>],
    previous: &[PreviousResultId],
    open: &[Uri],
) -> Vec<WorkspaceDocumentDiagnosticReport> {
    let previous: HashMap<&Uri, &str> = previous
        .iter()
        .map(|p| (&p.uri, p.value.as_str()))
        .collect();
    let mut items: Vec<WorkspaceDocumentDiagnosticReport> = results
        .par_iter()
        .map(|r| report(r, previous.get(&r.uri).copied()))
        .collect();
    let reported: std::collections::HashSet<&Uri> = results.iter().map(|r| &r.uri).collect();
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
    items
}
