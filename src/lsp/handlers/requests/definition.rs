//! `textDocument/definition`: from a toleration to the inventory taints it tolerates.

use tower_lsp_server::ls_types::*;

use crate::lsp::handlers::{Answer, DocumentRequest, Reply};
use crate::lsp::session::{contains, inventory_location, Session};

impl Reply for GotoDefinitionResponse {}

pub(crate) async fn handle(
    session: &Session,
    params: GotoDefinitionParams,
) -> Answer<GotoDefinitionResponse> {
    let at = params.text_document_position_params;
    let doc = DocumentRequest::open(session, &at.text_document.uri)?;
    let cluster = doc.cluster()?;
    let offset = doc.offset(at.position);
    let analysis = doc.analysis(session).await?;
    let Some(t) = analysis
        .tolerations()
        .iter()
        .find(|t| contains(&t.item, offset))
    else {
        return Ok(None);
    };
    let targets: Vec<Location> = t
        .tolerated
        .iter()
        .filter_map(|&(p, i)| {
            let at = &cluster.pools[p as usize].taints[i as usize].at;
            inventory_location(
                &doc.ws,
                cluster.file_name(at),
                at.range.clone(),
                doc.encoding,
            )
        })
        .collect();
    if targets.is_empty() {
        return Ok(None);
    }
    Ok(Some(GotoDefinitionResponse::Array(targets)))
}
