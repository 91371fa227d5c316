//! `textDocument/completion`: toleration fields, operators, effects, and the taint keys and
//! values the inventory and the open files know.

use tower_lsp_server::ls_types::*;

use crate::lsp::completion::{self, Context, SuggestionKind};
use crate::lsp::handlers::{Answer, DocumentRequest, Reply};
use crate::lsp::session::{blocking, Session};

impl Reply for CompletionResponse {}

pub(crate) async fn handle(
    session: &Session,
    params: CompletionParams,
) -> Answer<CompletionResponse> {
    let at = params.text_document_position;
    let doc = DocumentRequest::open(session, &at.text_document.uri)?;
    let offset = doc.offset(at.position);
    let (text, index) = (doc.snap.text.clone(), doc.snap.index.clone());
    let context = blocking("completing", move || {
        completion::context(&text, &index, offset)
    })
    .await?;
    let Some(context) = context else {
        return Ok(None);
    };
    let known = match &context {
        Context::Value { field, .. } if field == "key" || field == "value" => {
            session.known_taints().await?
        }
        _ => Vec::new(),
    };
    let typed = match &context {
        Context::Field { typed, .. } | Context::Value { typed, .. } => typed.clone(),
    };
    let range = doc.lines().range(typed);
    let items = completion::suggestions(&context, doc.ws.comparison_operators(), &known)
        .into_iter()
        .enumerate()
        .map(|(i, s)| CompletionItem {
            label: s.label.clone(),
            kind: Some(match s.kind {
                SuggestionKind::Field => CompletionItemKind::FIELD,
                SuggestionKind::Value => CompletionItemKind::VALUE,
            }),
            detail: Some(s.detail),
            documentation: Some(Documentation::MarkupContent(MarkupContent {
                kind: MarkupKind::Markdown,
                value: s.documentation,
            })),
            // Keep our order (the API's field order, well-known keys first).
            sort_text: Some(format!("{i:04}")),
            filter_text: Some(s.label),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, s.insert))),
            ..Default::default()
        })
        .collect();
    Ok(Some(CompletionResponse::Array(items)))
}
