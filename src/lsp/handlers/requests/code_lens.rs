//! `textDocument/codeLens`: one lens per workload, saying where it lands in the inventory.

use tower_lsp_server::ls_types::*;

use crate::lsp::cluster;
use crate::lsp::handlers::{Answer, DocumentRequest};
use crate::lsp::session::Session;

pub(crate) async fn handle(session: &Session, params: CodeLensParams) -> Answer<Vec<CodeLens>> {
    let doc = DocumentRequest::open(session, &params.text_document.uri)?;
    let cluster = doc.cluster()?;
    let analysis = doc.analysis(session).await?;
    let summaries = analysis.summaries.get_or_init(|| {
        analysis
            .placements()
            .iter()
            .map(|p| p.summary(&cluster))
            .collect()
    });
    Ok(Some(cluster::lenses(
        analysis.placements(),
        summaries,
        &doc.lines(),
        &doc.uri,
    )))
}
