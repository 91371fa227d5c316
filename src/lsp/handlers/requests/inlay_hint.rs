//! `textDocument/inlayHint`: after each toleration, what it tolerates in the inventory.

use tower_lsp_server::ls_types::*;

use crate::lsp::cluster;
use crate::lsp::handlers::{Answer, DocumentRequest};
use crate::lsp::session::Session;

pub(crate) async fn handle(session: &Session, params: InlayHintParams) -> Answer<Vec<InlayHint>> {
    let doc = DocumentRequest::open(session, &params.text_document.uri)?;
    let cluster = doc.cluster()?;
    let analysis = doc.analysis(session).await?;
    let lines = doc.lines();
    let within = lines.byte_range(params.range);
    Ok(Some(cluster::hints(
        analysis.tolerations(),
        &cluster,
        &lines,
        within,
    )))
}
