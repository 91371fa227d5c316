//! `textDocument/codeAction`: the fixes a diagnostic carries, "disable for this line", and
//! fix-all (`source.fixAll.taintlint`) as ruff offers it
//! (`crates/ruff_server/src/server/api/requests/code_action.rs` of astral-sh/ruff).

use std::collections::HashMap;
use std::ops::Range;

use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::{self as lsp, *};

use crate::lsp::diagnostics::{self, DiagnosticData, FixData};
use crate::lsp::session::{blocking, Session};

pub(crate) async fn handle(
    session: &Session,
    params: CodeActionParams,
) -> jsonrpc::Result<Option<CodeActionResponse>> {
    // Quick fixes unless the client asks for other kinds only; fix-all only when asked for
    // (as on save, `source.fixAll`), as ruff does.
    let wants = |kind: &str| match &params.context.only {
        None => kind == CodeActionKind::QUICKFIX.as_str(),
        Some(only) => only.iter().any(|k| {
            let k = k.as_str();
            kind == k || kind.starts_with(&format!("{k}."))
        }),
    };
    let (quick_fixes, fix_all) = (wants(CodeActionKind::QUICKFIX.as_str()), wants(FIX_ALL));
    if !quick_fixes && !fix_all {
        return Ok(None);
    }
    let uri = params.text_document.uri;
    let mut actions = Vec::new();
    if fix_all {
        if let Some(action) = session.fix_all_action(&uri).await? {
            actions.push(CodeActionOrCommand::CodeAction(action));
        }
    }
    if !quick_fixes {
        return Ok(Some(actions));
    }
    let (version, cached, document_changes) = {
        let state = session.lock();
        let Some(open) = state.documents.get(&uri) else {
            return Ok(None);
        };
        (
            open.doc.version,
            open.analysis.clone(),
            state.caps.document_changes,
        )
    };
    let current = session.snapshot(&uri);
    let mut disables = Vec::new();
    for d in &params.context.diagnostics {
        if d.source.as_deref() != Some(diagnostics::SOURCE) {
            continue;
        }
        // "Disable RULE for this line", on the text the client sees.
        if let (Some(NumberOrString::String(rule)), Some((snap, _, encoding))) = (&d.code, &current)
        {
            // Only for a finding of the current text (a stale one's line may have moved).
            let current_finding = cached
                .as_ref()
                .filter(|a| a.version == version)
                .is_some_and(|a| {
                    a.lsp
                        .iter()
                        .any(|c| c.range == d.range && c.code == d.code && c.message == d.message)
                });
            if snap.version == version
                && current_finding
                && !crate::suppress::NOT_SUPPRESSIBLE.contains(&rule.as_str())
                && crate::rules::find(rule).is_some()
            {
                let lines = snap.lines(*encoding);
                let edit = crate::suppress::disable_for_line(
                    &snap.text,
                    lines.offset(d.range.start),
                    rule,
                );
                let fix = FixData {
                    title: format!("Disable `{rule}` for this line"),
                    applicability: "needs-review".to_string(),
                    edits: vec![TextEdit::new(
                        lines.range(edit.range.clone()),
                        edit.replacement,
                    )],
                };
                disables.push((rule.clone(), d.clone(), fix));
            }
        }
        let data = d
            .data
            .clone()
            .or_else(|| {
                // A client that dropped `data`: the fix of the same diagnostic in the
                // current analysis.
                cached
                    .as_ref()
                    .filter(|a| a.version == version)?
                    .lsp
                    .iter()
                    .find(|c| c.range == d.range && c.code == d.code && c.message == d.message)?
                    .data
                    .clone()
            })
            .and_then(|v| serde_json::from_value::<DiagnosticData>(v).ok());
        let Some(data) = data else { continue };
        if data.version != version {
            // Made for an older text: its edits would land in the wrong place.
            continue;
        }
        let (Some(NumberOrString::String(rule)), Some((snap, ws, encoding))) = (&d.code, &current)
        else {
            continue;
        };
        if snap.version != version {
            continue;
        }
        // Each fix is offered only once it passes the check `lint --fix` makes of it.
        let fixes = checked_fixes(snap, ws.clone(), *encoding, rule.clone(), data.fixes).await?;
        for fix in fixes {
            actions.push(CodeActionOrCommand::CodeAction(code_action(
                &uri,
                version,
                d,
                fix,
                document_changes,
            )));
        }
    }
    // After the fixes: one per rule and line.
    let mut seen: Vec<(String, u32)> = Vec::new();
    for (rule, d, fix) in disables {
        let line = fix.edits[0].range.start.line;
        if seen.contains(&(rule.clone(), line)) {
            continue;
        }
        seen.push((rule, line));
        let mut action = code_action(&uri, version, &d, fix, document_changes);
        action.is_preferred = Some(false);
        actions.push(CodeActionOrCommand::CodeAction(action));
    }
    Ok(Some(actions))
}

/// The fixes that pass [`crate::fix::checked`] on the document's text: applied, the text still
/// parses, the finding is gone and no toleration is written twice.
async fn checked_fixes(
    snap: &crate::lsp::documents::Snapshot,
    ws: std::sync::Arc<crate::lsp::workspace::Workspace>,
    encoding: crate::position::Encoding,
    rule: String,
    fixes: Vec<FixData>,
) -> jsonrpc::Result<Vec<FixData>> {
    let text = snap.text.clone();
    let lines = snap.lines(encoding);
    let edits: Vec<Vec<crate::diagnostic::Edit>> = fixes
        .iter()
        .map(|f| {
            f.edits
                .iter()
                .map(|e| crate::diagnostic::Edit {
                    range: lines.offset(e.range.start)..lines.offset(e.range.end),
                    replacement: e.new_text.clone(),
                })
                .collect()
        })
        .collect();
    let chart = snap.chart.clone();
    let passed = blocking("checking fixes", move || {
        let lint = |t: &str| ws.check(t, false, chart.as_ref()).diagnostics;
        let before = lint(&text);
        edits
            .iter()
            .map(|e| crate::fix::checked(&text, &before, e, &rule, lint).is_ok())
            .collect::<Vec<bool>>()
    })
    .await?;
    Ok(fixes
        .into_iter()
        .zip(passed)
        .filter_map(|(f, ok)| ok.then_some(f))
        .collect())
}

pub(crate) const FIX_ALL: &str = "source.fixAll.taintlint";

impl Session {
    /// Every safe fix of a document at once (`source.fixAll.taintlint`), as `lint --fix`
    /// applies them: one edit over the span that changes. `None` when there is nothing to fix.
    pub(crate) async fn fix_all_action(&self, uri: &Uri) -> jsonrpc::Result<Option<CodeAction>> {
        let Some((snap, ws, encoding)) = self.snapshot(uri) else {
            return Ok(None);
        };
        let text = snap.text.clone();
        let chart = snap.chart.clone();
        let fixed = blocking("fixing", move || {
            crate::fix::fix_all_with(&text, crate::fix::FixMode::Safe, |t| {
                ws.check(t, false, chart.as_ref()).diagnostics
            })
        })
        .await?;
        if fixed.applied == 0 || fixed.text == *snap.text {
            return Ok(None);
        }
        let (range, replacement) = changed_span(&snap.text, &fixed.text);
        let edit = TextEdit::new(snap.lines(encoding).range(range), replacement.to_string());
        let document_changes = self.lock().caps.document_changes;
        let workspace_edit = if document_changes {
            WorkspaceEdit {
                document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                    text_document: OptionalVersionedTextDocumentIdentifier {
                        uri: uri.clone(),
                        version: Some(snap.version),
                    },
                    edits: vec![OneOf::Left(edit)],
                }])),
                ..Default::default()
            }
        } else {
            WorkspaceEdit {
                changes: Some(HashMap::from([(uri.clone(), vec![edit])])),
                ..Default::default()
            }
        };
        Ok(Some(CodeAction {
            title: format!(
                "Fix all taintlint problems ({} safe fix{})",
                fixed.applied,
                if fixed.applied == 1 { "" } else { "es" }
            ),
            kind: Some(CodeActionKind::new(FIX_ALL)),
            edit: Some(workspace_edit),
            ..Default::default()
        }))
    }
}

/// The byte range of `old` that differs from `new`, and what replaces it: everything between
/// their common prefix and common suffix (on character boundaries).
fn changed_span<'n>(old: &str, new: &'n str) -> (Range<usize>, &'n str) {
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (prefix..old.len() - suffix, &new[prefix..new.len() - suffix])
}

fn code_action(
    uri: &Uri,
    version: i32,
    d: &lsp::Diagnostic,
    fix: FixData,
    document_changes: bool,
) -> CodeAction {
    let preferred = fix.is_safe();
    let edit = if document_changes {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version: Some(version),
                },
                edits: fix.edits.into_iter().map(OneOf::Left).collect(),
            }])),
            ..Default::default()
        }
    } else {
        WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), fix.edits)])),
            ..Default::default()
        }
    };
    CodeAction {
        title: fix.title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        edit: Some(edit),
        is_preferred: Some(preferred),
        ..Default::default()
    }
}
