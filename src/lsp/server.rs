//! The dispatch table: the `LanguageServer` implementation hands every request and
//! notification to its handler in [`crate::lsp::handlers`], and [`service`] adds the custom
//! methods. A new request is a file under `handlers/` and one line here. The state lives in
//! [`crate::lsp::session`].

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::Notify;
use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService};

use crate::lsp::cluster;
use crate::lsp::guard::{self, Invalid};
use crate::lsp::handlers::notifications as n;
use crate::lsp::handlers::reply;
use crate::lsp::handlers::requests as r;
use crate::lsp::index::WorkspaceIndex;
use crate::lsp::output::Outbox;
use crate::lsp::session::{Caps, Config, Session, State};
use crate::lsp::workspace::Workspace;
use crate::position::Encoding;

pub use crate::lsp::handlers::requests::document_text::{DocumentText, DocumentTextParams};
pub use crate::lsp::handlers::requests::placement::{PlacementDetails, PlacementParams};

/// The `LanguageServer` implementation.
pub struct Backend {
    session: Arc<Session>,
}

/// Builds the service.
pub fn service(
    config: Config,
    outbox: Outbox,
) -> (LspService<Backend>, tower_lsp_server::ClientSocket) {
    let test_methods = config.test_methods;
    let builder = LspService::build(move |client| Backend::new(client, outbox, config))
        .custom_method(guard::INVALID_REQUEST, Backend::invalid_request)
        .custom_method(guard::INVALID_NOTIFICATION, Backend::invalid_notification)
        .custom_method(cluster::PLACEMENT_REQUEST, Backend::placement);
    let builder = if test_methods {
        builder.custom_method("taintlint/documentText", Backend::document_text)
    } else {
        builder
    };
    builder.finish()
}

impl Backend {
    /// Whether the client asked for `shutdown`.
    pub fn was_shut_down(&self) -> bool {
        self.session.shut_down.load(Ordering::SeqCst)
    }

    /// Ends the background tasks (the connection is closed).
    pub fn stop(&self) {
        self.session.stopped.store(true, Ordering::SeqCst);
        self.session.wake.notify_one();
    }

    /// A handle that outlives the service.
    pub fn handle(&self) -> Backend {
        Backend {
            session: self.session.clone(),
        }
    }

    fn new(client: Client, outbox: Outbox, config: Config) -> Backend {
        let state = State {
            encoding: Encoding::Utf16,
            caps: Caps::default(),
            root: None,
            workspace: Arc::new(Workspace::default()),
            next_generation: 1,
            documents: HashMap::new(),
            dirty: BTreeSet::new(),
            startup_problems: Vec::new(),
            shown_problems: Vec::new(),
            watching: None,
            started: false,
            index: WorkspaceIndex::default(),
            disk: Default::default(),
            overlays_read_at: None,
        };
        let session = Arc::new(Session {
            client,
            outbox,
            config,
            state: Mutex::new(state),
            wake: Notify::new(),
            shut_down: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            publishing: Default::default(),
            inventory_edited: AtomicBool::new(false),
            reading_edits: Default::default(),
            installed: Default::default(),
            render_wanted: AtomicBool::new(false),
            rendering: Default::default(),
            edit_moves: Default::default(),
        });
        Backend { session }
    }

    async fn invalid_request(&self, params: Invalid) -> jsonrpc::Result<Value> {
        r::invalid::request(&self.session, params).await
    }

    async fn invalid_notification(&self, params: Invalid) {
        r::invalid::notification(&self.session, params).await
    }

    async fn placement(
        &self,
        params: PlacementParams,
    ) -> jsonrpc::Result<Option<PlacementDetails>> {
        reply(r::placement::handle(&self.session, params).await)
    }

    async fn document_text(
        &self,
        params: DocumentTextParams,
    ) -> jsonrpc::Result<Option<DocumentText>> {
        Ok(r::document_text::handle(&self.session, params))
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> jsonrpc::Result<InitializeResult> {
        r::initialize::handle(&self.session, params).await
    }

    async fn initialized(&self, params: InitializedParams) {
        n::initialized::handle(&self.session, params).await
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        self.session.shut_down.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        n::did_open::handle(&self.session, params).await
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        n::did_change::handle(&self.session, params).await
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        n::did_save::handle(&self.session, params).await
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        n::did_close::handle(&self.session, params).await
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        n::did_change_configuration::handle(&self.session, params).await
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        n::did_change_watched_files::handle(&self.session, params).await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> jsonrpc::Result<DocumentDiagnosticReportResult> {
        r::diagnostic::handle(&self.session, params).await
    }

    async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        reply(r::hover::handle(&self.session, params).await)
    }

    async fn code_lens(&self, params: CodeLensParams) -> jsonrpc::Result<Option<Vec<CodeLens>>> {
        reply(r::code_lens::handle(&self.session, params).await)
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> jsonrpc::Result<Option<Vec<InlayHint>>> {
        reply(r::inlay_hint::handle(&self.session, params).await)
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> jsonrpc::Result<Option<GotoDefinitionResponse>> {
        reply(r::definition::handle(&self.session, params).await)
    }

    async fn references(&self, params: ReferenceParams) -> jsonrpc::Result<Option<Vec<Location>>> {
        reply(r::references::handle(&self.session, params).await)
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> jsonrpc::Result<Option<DocumentSymbolResponse>> {
        reply(r::document_symbol::handle(&self.session, params).await)
    }

    async fn workspace_diagnostic(
        &self,
        params: WorkspaceDiagnosticParams,
    ) -> jsonrpc::Result<WorkspaceDiagnosticReportResult> {
        r::workspace_diagnostic::handle(&self.session, params).await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> jsonrpc::Result<Option<WorkspaceSymbolResponse>> {
        r::workspace_symbol::handle(&self.session, params).await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> jsonrpc::Result<Option<PrepareRenameResponse>> {
        r::rename::prepare(&self.session, params).await
    }

    async fn rename(&self, params: RenameParams) -> jsonrpc::Result<Option<WorkspaceEdit>> {
        r::rename::handle(&self.session, params).await
    }

    async fn completion(
        &self,
        params: CompletionParams,
    ) -> jsonrpc::Result<Option<CompletionResponse>> {
        reply(r::completion::handle(&self.session, params).await)
    }

    async fn code_action(
        &self,
        params: CodeActionParams,
    ) -> jsonrpc::Result<Option<CodeActionResponse>> {
        r::code_action::handle(&self.session, params).await
    }
}
