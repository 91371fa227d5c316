//! `textDocument/documentSymbol`: the outline (workloads, their tolerations, Node taints).

use tower_lsp_server::ls_types::*;

use crate::lsp::cluster;
use crate::lsp::handlers::{Answer, DocumentRequest, Reply};
use crate::lsp::session::Session;

impl Reply for DocumentSymbolResponse {}

pub(crate) async fn handle(
    session: &Session,
    params: DocumentSymbolParams,
) -> Answer<DocumentSymbolResponse> {
    let doc = DocumentRequest::open(session, &params.text_document.uri)?;
    let facts = doc.facts(session).await?;
    Ok(Some(DocumentSymbolResponse::Nested(cluster::symbols(
        &facts,
        &doc.lines(),
    ))))
}
