//! `textDocument/diagnostic`: a pulling client's diagnostics of one document, with a result id
//! (the workspace generation and the document version) so an unchanged document costs nothing.

use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::{self as lsp, *};

use crate::lsp::handlers::{DocumentRequest, Unanswered};
use crate::lsp::session::Session;

/// A full report.
pub(crate) fn full(
    items: Vec<lsp::Diagnostic>,
    result_id: Option<String>,
) -> DocumentDiagnosticReportResult {
    DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
        RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport { result_id, items },
        },
    ))
}

/// A diagnostic report is never `null`: a document that is not open has no diagnostics.
pub(crate) async fn handle(
    session: &Session,
    params: DocumentDiagnosticParams,
) -> jsonrpc::Result<DocumentDiagnosticReportResult> {
    let doc = match DocumentRequest::open(session, &params.text_document.uri) {
        Ok(doc) => doc,
        Err(_) => return Ok(full(Vec::new(), None)),
    };
    let result_id = format!("{}:{}", doc.ws.generation, doc.snap.version);
    if params.previous_result_id.as_deref() == Some(result_id.as_str()) {
        return Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                related_documents: None,
                unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                    result_id,
                },
            }),
        ));
    }
    match doc.analysis(session).await {
        Ok(analysis) => Ok(full(analysis.lsp.clone(), Some(result_id))),
        Err(Unanswered::Failed(e)) => Err(e),
        Err(_) => Ok(full(Vec::new(), None)),
    }
}
