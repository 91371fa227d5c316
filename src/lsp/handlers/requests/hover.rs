//! `textDocument/hover`: on a finding, the finding; on a toleration, what it matches in the
//! inventory; on a taint, which tolerations in the workspace tolerate it; on a pod spec's
//! `runtimeClassName` or `tolerations:`, where its tolerations come from; in an inventory file
//! with unsaved edits, how many workloads the edit strands and frees.

use std::ops::Range;

use tower_lsp_server::ls_types::*;

use crate::lsp::handlers::{Answer, DocumentRequest, Reply};
use crate::lsp::hover;
use crate::lsp::session::{contains, Session};

impl Reply for Hover {}

pub(crate) async fn handle(session: &Session, params: HoverParams) -> Answer<Hover> {
    let at = params.text_document_position_params;
    let doc = DocumentRequest::open(session, &at.text_document.uri)?;
    let offset = doc.offset(at.position);
    let facts = doc.facts(session).await?;
    let analysis = doc.analysis(session).await?;
    let gate = doc.ws.comparison_operators();

    let mut sections = Vec::new();
    let mut range: Option<Range<usize>> = None;
    // On a finding, the hover is the finding (short, so it needs no scrolling); elsewhere
    // on a toleration or taint, what it means.
    let mut seen = Vec::new();
    for d in analysis
        .diagnostics()
        .iter()
        .filter(|d| contains(&d.range, offset))
    {
        if seen.contains(&d.rule) {
            continue;
        }
        seen.push(d.rule);
        sections.push(hover::diagnostic(d, doc.ws.settings.docs_url()));
        if range.is_none() {
            range = Some(d.range.clone());
        }
    }
    let on_toleration = facts.toleration_at(offset).filter(|_| sections.is_empty());
    let on_taint = facts.taint_at(offset).filter(|_| sections.is_empty());
    if let Some(t) = on_toleration {
        // The workload's near miss, when this is the toleration that only just misses the pool
        // that comes closest: what its `unschedulable` finding and its lens say.
        let closest = analysis
            .placements()
            .iter()
            .filter(|p| p.range.contains(&t.range.start))
            .filter_map(|p| p.near.as_ref())
            .find(|n| n.path == t.path)
            .map(|n| n.said.as_str());
        sections.push(hover::toleration(
            t,
            gate,
            doc.ws.cluster.as_deref(),
            closest,
        ));
        range = Some(t.range.clone());
    } else if let Some(t) = on_taint {
        let tolerators = match &t.taint {
            Some(taint) => session.tolerators(taint, gate).await?,
            None => Vec::new(),
        };
        sections.push(hover::taint(t, &tolerators));
        range = Some(t.range.clone());
    } else if sections.is_empty() {
        // On a pod spec's runtimeClassName or tolerations key: where its tolerations come
        // from.
        if let Some((r, text)) = hover::admitted(&doc.snap.text, offset, &doc.ws.options) {
            sections.push(text);
            range = Some(r);
        }
    }
    // In an inventory file with unsaved edits: what the edit strands and frees.
    if let Some(moves) = session.edit_moves(&doc).await? {
        sections.push(moves.hover());
    }
    if sections.is_empty() {
        return Ok(None);
    }
    let markdown = session.lock().caps.markdown;
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: if markdown {
                MarkupKind::Markdown
            } else {
                MarkupKind::PlainText
            },
            value: sections.join("\n\n---\n\n"),
        }),
        range: range.map(|r| doc.lines().range(r)),
    }))
}
