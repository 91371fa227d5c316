//! `initialize`: the client's capabilities and settings in, the server's capabilities out.

use std::sync::Arc;

use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::*;

use crate::lsp::convert;
use crate::lsp::handlers::requests::code_action::FIX_ALL;
use crate::lsp::session::{blocking, Caps, Session};
use crate::lsp::settings::Settings;
use crate::lsp::workspace::Workspace;

pub(crate) async fn handle(
    session: &Session,
    params: InitializeParams,
) -> jsonrpc::Result<InitializeResult> {
    let caps = Caps::of(&params.capabilities);
    let encoding = convert::negotiate(
        params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_deref()),
    );
    #[allow(deprecated)]
    let root = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .and_then(|f| f.uri.to_file_path().map(|p| p.into_owned()))
        .or_else(|| {
            params
                .root_uri
                .as_ref()
                .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
        });
    let (settings, mut problems) = params
        .initialization_options
        .as_ref()
        .map(Settings::from_json)
        .unwrap_or_default();
    let r = root.clone();
    let (workspace, more) = blocking("reading the settings", move || {
        Workspace::new(settings.unwrap_or_default(), r.as_deref(), 1)
    })
    .await?;
    problems.extend(more);
    let pull = caps.pull;
    let prepare_rename = caps.prepare_rename;
    {
        let mut state = session.lock();
        state.encoding = encoding;
        state.caps = caps;
        state.root = root;
        state.workspace = Arc::new(workspace);
        state.startup_problems = problems;
    }
    Ok(InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(convert::encoding_kind(encoding)),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..Default::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            code_lens_provider: Some(CodeLensOptions {
                resolve_provider: Some(false),
            }),
            inlay_hint_provider: Some(OneOf::Left(true)),
            definition_provider: Some(OneOf::Left(true)),
            references_provider: Some(OneOf::Left(true)),
            document_symbol_provider: Some(OneOf::Left(true)),
            workspace_symbol_provider: Some(OneOf::Left(true)),
            rename_provider: Some(if prepare_rename {
                OneOf::Right(RenameOptions {
                    prepare_provider: Some(true),
                    work_done_progress_options: Default::default(),
                })
            } else {
                OneOf::Left(true)
            }),
            completion_provider: Some(CompletionOptions {
                trigger_characters: Some(vec![":".into(), " ".into()]),
                ..Default::default()
            }),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![
                    CodeActionKind::QUICKFIX,
                    CodeActionKind::new(FIX_ALL),
                ]),
                ..Default::default()
            })),
            diagnostic_provider: pull.then(|| {
                DiagnosticServerCapabilities::Options(DiagnosticOptions {
                    identifier: Some("taintlint".into()),
                    // Diagnostics depend on the inventory files too.
                    inter_file_dependencies: true,
                    workspace_diagnostics: true,
                    ..Default::default()
                })
            }),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "taintlint".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    })
}
