//! `textDocument/references`: from a taint to the tolerations in the workspace that tolerate it.

use tower_lsp_server::ls_types::*;

use crate::lsp::handlers::{Answer, DocumentRequest};
use crate::lsp::session::Session;

pub(crate) async fn handle(session: &Session, params: ReferenceParams) -> Answer<Vec<Location>> {
    let at = params.text_document_position;
    let doc = DocumentRequest::open(session, &at.text_document.uri)?;
    let offset = doc.offset(at.position);
    let Some((taint, declaration)) = session
        .taint_at(&doc.uri, &doc.snap, &doc.ws, offset)
        .await?
    else {
        return Ok(None);
    };
    let mut out = Vec::new();
    if params.context.include_declaration {
        out.push(Location::new(
            doc.uri.clone(),
            doc.lines().range(declaration),
        ));
    }
    out.extend(
        session
            .tolerating(&taint, doc.ws.comparison_operators(), doc.encoding)
            .await?,
    );
    Ok(Some(out))
}
