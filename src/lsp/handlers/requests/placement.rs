//! `taintlint/placement`: what running a workload's lens shows, from the document's current
//! analysis (the lens carries only where it is); for the lens of an inventory file's unsaved
//! edit, the workloads the edit strands and frees.

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::*;

use crate::lsp::cluster;
use crate::lsp::handlers::{Answer, DocumentRequest, Reply};
use crate::lsp::session::Session;

/// `taintlint/placement`'s parameters: a document, a position in a workload, and the width
/// in columns of the window the client shows the details in (optional).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementParams {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
    #[serde(default)]
    pub width: Option<usize>,
}

/// The narrowest width honoured.
const NARROWEST: usize = 20;

/// `taintlint/placement`'s answer: the workload, and its headline (the cause first, as its
/// lens) then every pool's verdict and reasons, wrapped at words to the width asked for.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PlacementDetails {
    pub title: String,
    pub details: String,
}

impl Reply for PlacementDetails {}

pub(crate) async fn handle(session: &Session, params: PlacementParams) -> Answer<PlacementDetails> {
    let doc = DocumentRequest::open(session, &params.text_document.uri)?;
    let cluster = doc.cluster()?;
    let offset = doc.offset(params.position);
    let analysis = doc.analysis(session).await?;
    let width = params
        .width
        .unwrap_or(crate::schedule::placement::DETAILS_WIDTH)
        .max(NARROWEST);
    if let Some(p) = cluster::placement_at(analysis.placements(), offset) {
        return Ok(Some(PlacementDetails {
            title: p.title.clone(),
            details: crate::report::text::wrap_lines(&p.details(&cluster), width),
        }));
    }
    // In a file kustomize renders: by whom (its lens).
    if let Some(overlays) = analysis.placed_as_rendered() {
        return Ok(Some(PlacementDetails {
            title: super::code_lens::RENDERED_TITLE.to_string(),
            details: crate::report::text::wrap_lines(&cluster::rendered_lens(overlays).1, width),
        }));
    }
    // In an inventory file with unsaved edits: the workloads the edit moves (its lens).
    Ok(session
        .edit_moves(&doc)
        .await?
        .map(|moves| PlacementDetails {
            title: super::code_lens::EDIT_TITLE.to_string(),
            details: crate::report::text::wrap_lines(&moves.details(), width),
        }))
}
