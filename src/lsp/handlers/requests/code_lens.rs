//! `textDocument/codeLens`: one lens per workload, saying where it lands in the inventory; in
//! an inventory file the editor holds unsaved edits of, one on its first line saying how many
//! workloads the edit strands and frees ([`crate::lsp::edits`]), whose command lists them; in
//! a file kustomize renders, one on its first line naming the overlays that place its
//! workloads instead.

use serde_json::json;
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
    let mut lenses = cluster::lenses(analysis.placements(), summaries, &doc.lines(), &doc.uri);
    if let Some(overlays) = analysis.placed_as_rendered() {
        let start = Position::new(0, 0);
        lenses.insert(
            0,
            CodeLens {
                range: Range::new(start, start),
                command: Some(Command {
                    title: cluster::rendered_lens(overlays).0,
                    command: cluster::SHOW_PLACEMENT.to_string(),
                    arguments: Some(vec![json!({
                        "title": RENDERED_TITLE,
                        "uri": doc.uri.as_str(),
                        "position": start,
                    })]),
                }),
                data: None,
            },
        );
    }
    if let Some(moves) = session.edit_moves(&doc).await? {
        let start = Position::new(0, 0);
        lenses.insert(
            0,
            CodeLens {
                range: Range::new(start, start),
                command: Some(Command {
                    title: moves.summary(),
                    command: cluster::SHOW_PLACEMENT.to_string(),
                    arguments: Some(vec![json!({
                        "title": EDIT_TITLE,
                        "uri": doc.uri.as_str(),
                        "position": start,
                    })]),
                }),
                data: None,
            },
        );
    }
    Ok(Some(lenses))
}

/// The title of what the lens of a file kustomize renders shows.
pub(crate) const RENDERED_TITLE: &str = "Placed as rendered";

/// The title of what the edit lens's command shows.
pub(crate) const EDIT_TITLE: &str = "What the unsaved edit moves";
