//! The language server: state, handlers, the analysis worker.
//!
//! Ordering: tower-lsp-server runs several handlers at once. Every handler that changes state
//! (`didOpen`, `didChange`, `didClose`) does so synchronously, under one lock, before its first
//! `.await`, so edits apply in the order they arrive. Analyses run on immutable snapshots on
//! blocking threads; a result is used only if the document still has the version (and the
//! workspace the generation) it was computed for. Every request to the client has a timeout.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::Notify;
use tower_lsp_server::jsonrpc::{self, ErrorCode};
use tower_lsp_server::ls_types::request::Request as LspRequest;
use tower_lsp_server::ls_types::{self as lsp, *};
use tower_lsp_server::{Client, LanguageServer, LspService};

use crate::analysis::FileAnalysis;
use crate::diagnostic::Diagnostic;
use crate::lsp::cluster;
use crate::lsp::completion::{self, Context, KnownTaint, SuggestionKind};
use crate::lsp::convert;
use crate::lsp::diagnostics::{self, DiagnosticData, FixData};
use crate::lsp::documents::{Document, Snapshot};
use crate::lsp::facts::{object_label, Facts};
use crate::lsp::guard::{self, Invalid};
use crate::lsp::hover::{self, Tolerator};
use crate::lsp::incremental::{ChunkCache, Pieces};
use crate::lsp::index::{self, WorkspaceIndex};
use crate::lsp::inventory;
use crate::lsp::output::Outbox;
use crate::lsp::settings::{Settings, SECTION};
use crate::lsp::workspace::Workspace;
use crate::position::Encoding;
use crate::schedule::placement::{Placement, TolerationPlace};

/// How the server behaves, apart from what the client configures.
#[derive(Debug, Clone)]
pub struct Config {
    /// How long the server waits for the client to answer one of its requests.
    pub client_timeout: Duration,
    /// How often inventory files are checked for changes when the client cannot watch files.
    pub poll_interval: Duration,
    /// Adds the request `taintlint/documentText` (`{"uri"}` to `{"version", "text"}`): the
    /// server's copy of a document, for tests that check it equals the client's.
    pub test_methods: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            client_timeout: Duration::from_secs(10),
            poll_interval: Duration::from_secs(2),
            test_methods: false,
        }
    }
}

/// The id of the file-watcher registration for the inventory files.
const WATCH_ID: &str = "taintlint/inventory";
const CONFIGURATION_ID: &str = "taintlint/configuration";

/// What the client can do, as far as the server cares.
#[derive(Debug, Default, Clone)]
struct Caps {
    /// `textDocument/diagnostic`: the client pulls diagnostics (the server never pushes).
    pull: bool,
    /// `workspace/diagnostic/refresh`.
    refresh: bool,
    /// `workspace/configuration`.
    configuration: bool,
    configuration_dynamic: bool,
    watch_dynamic: bool,
    watch_relative: bool,
    document_changes: bool,
    markdown: bool,
    /// `workspace/codeLens/refresh` and `workspace/inlayHint/refresh`.
    lens_refresh: bool,
    hint_refresh: bool,
}

impl Caps {
    fn of(c: &ClientCapabilities) -> Caps {
        let ws = c.workspace.as_ref();
        let td = c.text_document.as_ref();
        Caps {
            // Pull only from a client that can be told to pull again: without
            // workspace/diagnostic/refresh (Neovim 0.11), a settings or inventory change would
            // never reach it, so it gets pushed diagnostics.
            pull: td.is_some_and(|t| t.diagnostic.is_some())
                && ws
                    .and_then(|w| w.diagnostics.as_ref())
                    .and_then(|d| d.refresh_support)
                    .unwrap_or(false),
            refresh: ws
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false),
            configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
            configuration_dynamic: ws
                .and_then(|w| w.did_change_configuration.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            watch_dynamic: ws
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            watch_relative: ws
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.relative_pattern_support)
                .unwrap_or(false),
            document_changes: ws
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
            lens_refresh: ws
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|l| l.refresh_support)
                .unwrap_or(false),
            hint_refresh: ws
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|l| l.refresh_support)
                .unwrap_or(false),
            markdown: td
                .and_then(|t| t.hover.as_ref())
                .and_then(|h| h.content_format.as_ref())
                .is_none_or(|f| f.contains(&MarkupKind::Markdown)),
        }
    }
}

/// One document's analysis, for the version and workspace generation it was made for.
struct Analysis {
    version: i32,
    generation: u64,
    /// Per YAML document, shared with the last analysis where the edit left it alone.
    pieces: Pieces,
    /// The findings, where each workload lands and what each toleration matches (with an
    /// inventory), put together for the whole file once the diagnostics are on their way (or
    /// when first asked for): not on the way from a keystroke to its diagnostics.
    whole: OnceLock<FileAnalysis>,
    lsp: Vec<lsp::Diagnostic>,
    /// Each placement's one-line summary, made when lenses are first asked for.
    summaries: OnceLock<Vec<String>>,
}

impl Analysis {
    fn whole(&self) -> &FileAnalysis {
        self.whole.get_or_init(|| self.pieces.whole())
    }

    fn diagnostics(&self) -> &[Diagnostic] {
        &self.whole().diagnostics
    }

    fn placements(&self) -> &[Placement] {
        &self.whole().placements
    }

    fn tolerations(&self) -> &[TolerationPlace] {
        &self.whole().tolerations
    }
}

struct Open {
    doc: Document,
    analysis: Option<Arc<Analysis>>,
    facts: Option<(i32, Arc<Facts>)>,
    /// Per-chunk results, so an edit re-analyses only the YAML documents it touched.
    chunks: Arc<Mutex<ChunkCache>>,
}

struct State {
    encoding: Encoding,
    caps: Caps,
    root: Option<PathBuf>,
    workspace: Arc<Workspace>,
    next_generation: u64,
    documents: HashMap<Uri, Open>,
    /// Documents whose diagnostics must be recomputed and pushed.
    dirty: BTreeSet<Uri>,
    /// Settings problems found before the client could be told.
    startup_problems: Vec<String>,
    /// The inventory files the client watches for us.
    watching: Option<Vec<PathBuf>>,
    /// Whether the worker and poller are running.
    started: bool,
    /// The tolerations of the workspace's files (read in the background after `initialized`).
    index: WorkspaceIndex,
}

struct Inner {
    client: Client,
    /// Where pushed diagnostics go (not through `client`: see [`crate::lsp::output`]).
    outbox: Outbox,
    config: Config,
    state: Mutex<State>,
    /// Wakes the analysis worker (push mode).
    wake: Notify,
    /// The client asked for `shutdown`.
    shut_down: AtomicBool,
    /// The connection is closed: background tasks end.
    stopped: AtomicBool,
}

/// The `LanguageServer` implementation.
pub struct Backend {
    inner: Arc<Inner>,
}

#[derive(Debug, Deserialize)]
pub struct DocumentTextParams {
    pub uri: Uri,
}

/// `taintlint/placement`'s parameters: a document and a position in a workload.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementParams {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
}

/// `taintlint/placement`'s answer: the workload, and every pool's verdict and reasons.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PlacementDetails {
    pub title: String,
    pub details: String,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct DocumentText {
    pub version: i32,
    pub text: String,
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
        self.inner.shut_down.load(Ordering::SeqCst)
    }

    /// Ends the background tasks (the connection is closed).
    pub fn stop(&self) {
        self.inner.stopped.store(true, Ordering::SeqCst);
        self.inner.wake.notify_one();
    }

    /// A handle that outlives the service.
    pub fn handle(&self) -> Backend {
        Backend {
            inner: self.inner.clone(),
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
            watching: None,
            started: false,
            index: WorkspaceIndex::default(),
        };
        let inner = Arc::new(Inner {
            client,
            outbox,
            config,
            state: Mutex::new(state),
            wake: Notify::new(),
            shut_down: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
        });
        Backend { inner }
    }

    async fn invalid_request(&self, params: Invalid) -> jsonrpc::Result<Value> {
        self.inner
            .log(MessageType::ERROR, format!("taintlint: {}", params.message))
            .await;
        Err(jsonrpc::Error {
            code: ErrorCode::from(params.code),
            message: params.message.into(),
            data: None,
        })
    }

    async fn invalid_notification(&self, params: Invalid) {
        self.inner
            .log(
                MessageType::ERROR,
                format!("taintlint: ignored a message: {}", params.message),
            )
            .await;
    }

    /// `taintlint/placement`: what running a workload's lens shows, from the document's
    /// current analysis (the lens carries only where it is).
    async fn placement(
        &self,
        params: PlacementParams,
    ) -> jsonrpc::Result<Option<PlacementDetails>> {
        let uri = params.text_document.uri;
        let Some((snap, ws, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(None);
        };
        let Some(cluster) = ws.cluster.clone() else {
            return Ok(None);
        };
        let offset = snap.lines(encoding).offset(params.position);
        let analysis = self.inner.analysis(&uri, &snap, &ws, encoding).await?;
        Ok(
            cluster::placement_at(analysis.placements(), offset).map(|p| PlacementDetails {
                title: p.title.clone(),
                details: crate::schedule::placement::details(&p.title, &p.simulation, &cluster),
            }),
        )
    }

    async fn document_text(
        &self,
        params: DocumentTextParams,
    ) -> jsonrpc::Result<Option<DocumentText>> {
        let state = self.inner.lock();
        Ok(state.documents.get(&params.uri).map(|o| DocumentText {
            version: o.doc.version,
            text: o.doc.text().to_string(),
        }))
    }
}

/// Runs CPU work (or anything that might panic) off the async threads; a panic becomes an
/// internal error instead of taking the server down.
async fn blocking<T: Send + 'static>(
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> jsonrpc::Result<T> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        let message = if e.is_panic() {
            format!("taintlint: internal error while {what}; please report it")
        } else {
            format!("taintlint: {what} was cancelled")
        };
        jsonrpc::Error {
            code: ErrorCode::InternalError,
            message: message.into(),
            data: None,
        }
    })
}

/// Analyses one snapshot (the changed YAML documents of it) and converts the result for the
/// client.
fn analyse(
    uri: &Uri,
    snap: &Snapshot,
    ws: &Workspace,
    encoding: Encoding,
    chunks: &Mutex<ChunkCache>,
) -> Analysis {
    let pieces = chunks.lock().unwrap_or_else(|e| e.into_inner()).analyse(
        &snap.text,
        ws.generation,
        |text| ws.analyse_file(text, true),
    );
    let other_file =
        |file: &str, range: Range<usize>| inventory_location(ws, file, range, encoding);
    let lsp = diagnostics::all_to_lsp(
        pieces.diagnostics(),
        snap.lines(encoding),
        uri,
        snap.version,
        &other_file,
        &ws.links,
    );
    Analysis {
        version: snap.version,
        generation: ws.generation,
        pieces,
        whole: OnceLock::new(),
        lsp,
        summaries: OnceLock::new(),
    }
}

/// A place in an inventory file (named as the core inventory names it), for the client.
fn inventory_location(
    ws: &Workspace,
    file: &str,
    range: Range<usize>,
    encoding: Encoding,
) -> Option<Location> {
    let path = inventory::resolve(file, ws.root.as_deref());
    ws.inventory.location(&path, range, encoding)
}

/// A file's name for people: the last segment of its path.
fn file_name(uri: &Uri) -> String {
    if let Some(path) = uri.to_file_path() {
        if let Some(name) = path.file_name() {
            return name.to_string_lossy().into_owned();
        }
    }
    let s = uri.as_str();
    s.rsplit('/').next().unwrap_or(s).to_string()
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held must not stop the server from answering.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn log(&self, typ: MessageType, message: impl std::fmt::Display) {
        self.client.log_message(typ, message).await;
    }

    /// Sends a request to the client, giving up after the configured timeout.
    async fn request<R: LspRequest>(&self, params: R::Params) -> Result<R::Result, String> {
        match tokio::time::timeout(
            self.config.client_timeout,
            self.client.send_request::<R>(params),
        )
        .await
        {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(e)) => Err(format!("{} failed: {}", R::METHOD, e.message)),
            Err(_) => Err(format!(
                "{} got no answer within {} ms",
                R::METHOD,
                self.config.client_timeout.as_millis()
            )),
        }
    }

    fn snapshot(&self, uri: &Uri) -> Option<(Snapshot, Arc<Workspace>, Encoding)> {
        let state = self.lock();
        let open = state.documents.get(uri)?;
        Some((open.doc.snapshot(), state.workspace.clone(), state.encoding))
    }

    /// The analysis of a snapshot: the cached one if it is current, else computed now.
    async fn analysis(
        &self,
        uri: &Uri,
        snap: &Snapshot,
        ws: &Arc<Workspace>,
        encoding: Encoding,
    ) -> jsonrpc::Result<Arc<Analysis>> {
        let chunks = {
            let state = self.lock();
            let Some(open) = state.documents.get(uri) else {
                return Err(jsonrpc::Error::invalid_params("the document is not open"));
            };
            if let Some(a) = &open.analysis {
                if a.version == snap.version && a.generation == ws.generation {
                    return Ok(a.clone());
                }
            }
            open.chunks.clone()
        };
        let (u, s, w) = (uri.clone(), snap.clone(), ws.clone());
        let analysis = Arc::new(
            blocking("analysing a document", move || {
                analyse(&u, &s, &w, encoding, &chunks)
            })
            .await?,
        );
        self.store_analysis(uri, &analysis);
        Ok(analysis)
    }

    /// Keeps an analysis if it is still current; returns whether it was.
    fn store_analysis(&self, uri: &Uri, analysis: &Arc<Analysis>) -> bool {
        let replaced = {
            let mut state = self.lock();
            let generation = state.workspace.generation;
            match state.documents.get_mut(uri) {
                Some(open)
                    if open.doc.version == analysis.version
                        && generation == analysis.generation =>
                {
                    open.analysis.replace(analysis.clone())
                }
                _ => return false,
            }
        };
        // Beside the answer, not before it: freeing the analysis this one replaces (for a big
        // document that takes about as long as converting it for the client), and putting the
        // whole file's findings and places together for the lenses, hints and hovers that
        // come next.
        let current = analysis.clone();
        tokio::task::spawn_blocking(move || {
            drop(replaced);
            current.whole();
        });
        true
    }

    /// The facts of the given documents (cached per version, the missing ones computed in
    /// parallel).
    async fn facts(&self, uris: Vec<Uri>) -> jsonrpc::Result<Vec<(Uri, Snapshot, Arc<Facts>)>> {
        let mut done = Vec::new();
        let mut todo = Vec::new();
        {
            let state = self.lock();
            for uri in uris {
                let Some(open) = state.documents.get(&uri) else {
                    continue;
                };
                let snap = open.doc.snapshot();
                match &open.facts {
                    Some((v, f)) if *v == snap.version => done.push((uri, snap, f.clone())),
                    _ => todo.push((uri, snap)),
                }
            }
        }
        if !todo.is_empty() {
            let computed = blocking("reading tolerations and taints", move || {
                todo.into_par_iter()
                    .map(|(uri, snap)| {
                        let facts = Arc::new(Facts::collect(&snap.text));
                        (uri, snap, facts)
                    })
                    .collect::<Vec<_>>()
            })
            .await?;
            let mut state = self.lock();
            for (uri, snap, facts) in computed {
                if let Some(open) = state.documents.get_mut(&uri) {
                    if open.doc.version == snap.version {
                        open.facts = Some((snap.version, facts.clone()));
                    }
                }
                done.push((uri, snap, facts));
            }
        }
        Ok(done)
    }

    fn open_uris(&self) -> Vec<Uri> {
        let state = self.lock();
        let mut uris: Vec<Uri> = state.documents.keys().cloned().collect();
        uris.sort();
        uris
    }

    /// Re-analyses every open document: pushes new diagnostics, or asks a pulling client to
    /// pull again.
    async fn reanalyse_all(self: &Arc<Self>) {
        let (pull, refresh, lens_refresh, hint_refresh) = {
            let mut state = self.lock();
            let uris: Vec<Uri> = state.documents.keys().cloned().collect();
            state.dirty.extend(uris);
            (
                state.caps.pull,
                state.caps.refresh,
                state.caps.lens_refresh,
                state.caps.hint_refresh,
            )
        };
        // Lenses and hints show the inventory: ask for them again.
        if lens_refresh || hint_refresh {
            let me = self.clone();
            tokio::spawn(async move {
                let lens = async {
                    if lens_refresh {
                        me.request::<lsp::request::CodeLensRefresh>(()).await
                    } else {
                        Ok(())
                    }
                };
                let hint = async {
                    if hint_refresh {
                        me.request::<lsp::request::InlayHintRefreshRequest>(())
                            .await
                    } else {
                        Ok(())
                    }
                };
                let (a, b) = tokio::join!(lens, hint);
                for e in [a.err(), b.err()].into_iter().flatten() {
                    me.log(MessageType::WARNING, format!("taintlint: {e}"))
                        .await;
                }
            });
        }
        if !pull {
            self.wake.notify_one();
        } else if refresh {
            let me = self.clone();
            tokio::spawn(async move {
                if let Err(e) = me
                    .request::<lsp::request::WorkspaceDiagnosticRefresh>(())
                    .await
                {
                    me.log(MessageType::WARNING, format!("taintlint: {e}"))
                        .await;
                }
            });
        }
    }

    /// Applies new settings: a new workspace generation, every document re-analysed.
    async fn apply_settings(self: &Arc<Self>, settings: Settings, mut problems: Vec<String>) {
        let (root, generation) = {
            let mut state = self.lock();
            state.next_generation += 1;
            (state.root.clone(), state.next_generation)
        };
        let result = blocking("reading the settings", move || {
            Workspace::new(settings, root.as_deref(), generation)
        })
        .await;
        let (workspace, more) = match result {
            Ok(r) => r,
            Err(e) => {
                self.log(MessageType::ERROR, e.message).await;
                return;
            }
        };
        problems.extend(more);
        self.install(workspace).await;
        self.report_problems(problems).await;
    }

    /// Reads the inventory files again (they changed).
    /// The project's configuration file changed: everything is rebuilt from the same editor
    /// settings.
    /// The configuration file changed: its settings apply again, and the workspace is read
    /// again for references, since its `include` and `exclude` patterns decide which files count.
    async fn reload_config(self: &Arc<Self>) {
        let settings = self.lock().workspace.settings.clone();
        self.apply_settings(settings, Vec::new()).await;
        tokio::spawn(self.clone().index_workspace());
    }

    async fn reload_inventory(self: &Arc<Self>) {
        let (current, generation) = {
            let mut state = self.lock();
            state.next_generation += 1;
            (state.workspace.clone(), state.next_generation)
        };
        let result = blocking("reading the inventory", move || {
            current.with_inventory_reread(generation)
        })
        .await;
        match result {
            Ok((workspace, problems)) => {
                self.log(
                    MessageType::INFO,
                    "taintlint: inventory changed; re-analysing the open documents",
                )
                .await;
                self.install(workspace).await;
                self.report_problems(problems).await;
            }
            Err(e) => self.log(MessageType::ERROR, e.message).await,
        }
    }

    /// Makes a workspace current (unless a newer one already is) and re-analyses.
    async fn install(self: &Arc<Self>, workspace: Workspace) {
        {
            let mut state = self.lock();
            if workspace.generation <= state.workspace.generation {
                return;
            }
            state.workspace = Arc::new(workspace);
        }
        self.reanalyse_all().await;
        self.update_watchers().await;
    }

    async fn report_problems(&self, problems: Vec<String>) {
        if problems.is_empty() {
            return;
        }
        for p in &problems {
            self.log(MessageType::WARNING, format!("taintlint settings: {p}"))
                .await;
        }
        self.client
            .show_message(
                MessageType::WARNING,
                format!("taintlint settings: {}", problems.join("; ")),
            )
            .await;
    }

    /// Asks the client for our settings section, and applies what it answers.
    async fn pull_configuration(self: &Arc<Self>) {
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some(SECTION.to_string()),
        }];
        match self
            .request::<lsp::request::WorkspaceConfiguration>(ConfigurationParams { items })
            .await
        {
            Ok(values) => {
                let value = values.into_iter().next().unwrap_or(Value::Null);
                // The section's content is our settings object itself.
                let value = match value {
                    Value::Object(map) if !map.contains_key(SECTION) => {
                        let mut wrapped = serde_json::Map::new();
                        wrapped.insert(SECTION.to_string(), Value::Object(map));
                        Value::Object(wrapped)
                    }
                    other => other,
                };
                let (settings, problems) = Settings::from_json(&value);
                match settings {
                    Some(settings) => self.apply_settings(settings, problems).await,
                    None => self.report_problems(problems).await,
                }
            }
            Err(e) => {
                self.log(
                    MessageType::WARNING,
                    format!("taintlint: {e}; keeping the current settings"),
                )
                .await
            }
        }
    }

    /// Registers a file watcher for the inventory files and the project's configuration file
    /// with the client, replacing the last.
    async fn update_watchers(&self) {
        let (paths, caps, previous) = {
            let state = self.lock();
            let paths: Vec<PathBuf> = state
                .workspace
                .inventory
                .files()
                .iter()
                .map(|f| f.path.clone())
                .chain(state.workspace.config.clone())
                .collect();
            (paths, state.caps.clone(), state.watching.clone())
        };
        let root = self.lock().root.clone();
        if !caps.watch_dynamic || previous.as_ref() == Some(&paths) {
            return;
        }
        {
            self.lock().watching = Some(paths.clone());
        }
        // A registration exists when the last had paths, or a workspace root to watch.
        if previous
            .as_ref()
            .is_some_and(|p| !p.is_empty() || root.is_some())
        {
            let params = UnregistrationParams {
                unregisterations: vec![Unregistration {
                    id: WATCH_ID.to_string(),
                    method: "workspace/didChangeWatchedFiles".to_string(),
                }],
            };
            if let Err(e) = self
                .request::<lsp::request::UnregisterCapability>(params)
                .await
            {
                self.log(MessageType::WARNING, format!("taintlint: {e}"))
                    .await;
            }
        }
        if paths.is_empty() && root.is_none() {
            return;
        }
        let mut watchers: Vec<FileSystemWatcher> = paths
            .iter()
            .filter_map(|p| watcher(p, caps.watch_relative))
            .collect();
        // The workspace's manifests, for the index that references read.
        if let Some(root) = &root {
            let glob = match Uri::from_file_path(root) {
                Some(base) if caps.watch_relative => GlobPattern::Relative(RelativePattern {
                    base_uri: OneOf::Right(base),
                    pattern: index::WATCH_GLOB.to_string(),
                }),
                _ => GlobPattern::String(format!(
                    "{}/{}",
                    root.to_string_lossy().trim_end_matches('/'),
                    index::WATCH_GLOB
                )),
            };
            watchers.push(FileSystemWatcher {
                glob_pattern: glob,
                kind: None,
            });
        }
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: WATCH_ID.to_string(),
                method: "workspace/didChangeWatchedFiles".to_string(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        if let Err(e) = self
            .request::<lsp::request::RegisterCapability>(params)
            .await
        {
            self.log(MessageType::WARNING, format!("taintlint: {e}"))
                .await;
        }
    }

    /// Push mode: analyses dirty documents (latest version only) and publishes their
    /// diagnostics, until the server stops.
    async fn analysis_worker(self: Arc<Self>) {
        loop {
            self.wake.notified().await;
            if self.stopped.load(Ordering::SeqCst) {
                return;
            }
            loop {
                let (jobs, workspace, encoding) = {
                    let mut state = self.lock();
                    let dirty = std::mem::take(&mut state.dirty);
                    let jobs: Vec<(Uri, Snapshot, Arc<Mutex<ChunkCache>>)> = dirty
                        .into_iter()
                        .filter_map(|uri| {
                            let open = state.documents.get(&uri)?;
                            Some((uri, open.doc.snapshot(), open.chunks.clone()))
                        })
                        .collect();
                    (jobs, state.workspace.clone(), state.encoding)
                };
                if jobs.is_empty() {
                    break;
                }
                let result = blocking("analysing documents", move || {
                    jobs.into_par_iter()
                        .map(|(uri, snap, chunks)| {
                            let analysis =
                                Arc::new(analyse(&uri, &snap, &workspace, encoding, &chunks));
                            (uri, analysis)
                        })
                        .collect::<Vec<_>>()
                })
                .await;
                let results = match result {
                    Ok(r) => r,
                    Err(e) => {
                        self.log(MessageType::ERROR, e.message).await;
                        continue;
                    }
                };
                for (uri, analysis) in results {
                    // A newer edit or setting makes this result stale: its turn comes next.
                    if self.store_analysis(&uri, &analysis) {
                        self.outbox
                            .publish_diagnostics(&uri, &analysis.lsp, Some(analysis.version))
                            .await;
                    }
                }
            }
        }
    }

    /// Reads the tolerations of the workspace's files, once, in the background.
    async fn index_workspace(self: Arc<Self>) {
        let (root, encoding) = {
            let state = self.lock();
            (state.root.clone(), state.encoding)
        };
        let Some(root) = root else { return };
        let result = blocking("reading the workspace", move || {
            WorkspaceIndex::build(&root, encoding)
        })
        .await;
        match result {
            Ok(built) => {
                let (files, truncated) = (built.len(), built.truncated);
                self.lock().index = built;
                let more = if truncated {
                    format!(
                        " (only the first {} manifest files were read)",
                        index::MAX_FILES
                    )
                } else {
                    String::new()
                };
                self.log(
                    MessageType::INFO,
                    format!("taintlint: read the workspace: {files} files with tolerations{more}"),
                )
                .await;
            }
            Err(e) => self.log(MessageType::ERROR, e.message).await,
        }
    }

    /// Whether a file is one the workspace index reads: a manifest under the workspace root.
    fn indexes(&self, path: &Path) -> bool {
        let state = self.lock();
        index::is_manifest(path)
            && state.root.as_deref().is_some_and(|r| path.starts_with(r))
            && !state.workspace.inventory.contains(path)
    }

    /// Reads workspace files again (they changed on disk or were saved).
    async fn reindex(&self, paths: Vec<PathBuf>) {
        if paths.is_empty() {
            return;
        }
        let encoding = self.lock().encoding;
        let result = blocking("reading changed files", move || {
            paths
                .into_iter()
                .map(|p| {
                    let entry = index::read(&p, encoding);
                    (p, entry)
                })
                .collect::<Vec<_>>()
        })
        .await;
        if let Ok(read) = result {
            let mut state = self.lock();
            for (path, entry) in read {
                state.index.set(&path, entry);
            }
        }
    }

    /// For clients that cannot watch files: checks the inventory files now and then.
    async fn inventory_poller(self: Arc<Self>) {
        loop {
            tokio::time::sleep(self.config.poll_interval).await;
            if self.stopped.load(Ordering::SeqCst) || self.shut_down.load(Ordering::SeqCst) {
                return;
            }
            let workspace = self.lock().workspace.clone();
            if workspace.inventory.is_empty() {
                continue;
            }
            let changed = blocking("checking the inventory", move || {
                workspace.inventory.changed_on_disk()
            })
            .await
            .unwrap_or(false);
            if changed {
                self.reload_inventory().await;
            }
        }
    }

    /// The taint under the cursor and its range: a taint of a Node in the document, or of the
    /// inventory when the document is an inventory file as loaded (a pool file's too).
    async fn taint_at(
        &self,
        uri: &Uri,
        snap: &Snapshot,
        ws: &Workspace,
        offset: usize,
    ) -> jsonrpc::Result<Option<(crate::k8s::model::Taint, Range<usize>)>> {
        let facts = self.facts(vec![uri.clone()]).await?;
        if let Some((_, _, facts)) = facts.iter().find(|(_, s, _)| s.version == snap.version) {
            if let Some(t) = facts.taint_at(offset) {
                return Ok(t.taint.clone().map(|taint| (taint, t.range.clone())));
            }
        }
        let (Some(cluster), Some(path)) = (&ws.cluster, uri.to_file_path()) else {
            return Ok(None);
        };
        // Only while the document says what the inventory was read from.
        if !ws.inventory.holds(&path, &snap.text) {
            return Ok(None);
        }
        let name = path.display().to_string();
        let Some(file) = cluster.files.iter().position(|f| f.name == name) else {
            return Ok(None);
        };
        Ok(cluster
            .pools
            .iter()
            .flat_map(|p| &p.taints)
            .find(|t| t.at.file == file && contains(&t.at.range, offset))
            .map(|t| (t.taint.clone(), t.at.range.clone())))
    }

    /// Where the open files' tolerations that tolerate a taint are.
    async fn tolerating(
        &self,
        taint: &crate::k8s::model::Taint,
        gate: bool,
        encoding: Encoding,
    ) -> jsonrpc::Result<Vec<Location>> {
        let open = self.open_uris();
        let docs = self.facts(open.clone()).await?;
        let mut out = Vec::new();
        for (uri, snap, facts) in &docs {
            let lines = snap.lines(encoding);
            for t in &facts.tolerations {
                if t.toleration
                    .as_ref()
                    .is_some_and(|t| t.tolerates(taint, gate))
                {
                    out.push(Location::new(uri.clone(), lines.range(t.range.clone())));
                }
            }
        }
        // The workspace's other files, as last read from disk (an open file's text wins).
        let mut others = Vec::new();
        {
            let state = self.lock();
            for (uri, tolerations) in state.index.files() {
                if open.binary_search(uri).is_ok() {
                    continue;
                }
                for t in tolerations {
                    if t.toleration.tolerates(taint, gate) {
                        others.push(Location::new(uri.clone(), t.range));
                    }
                }
            }
        }
        others.sort_by(|a, b| {
            (a.uri.as_str(), a.range.start.line, a.range.start.character).cmp(&(
                b.uri.as_str(),
                b.range.start.line,
                b.range.start.character,
            ))
        });
        out.extend(others);
        Ok(out)
    }

    /// The tolerations in the workspace that tolerate a taint: the open files as edited, the
    /// others as on disk.
    async fn tolerators(
        &self,
        taint: &crate::k8s::model::Taint,
        gate: bool,
    ) -> jsonrpc::Result<Vec<Tolerator>> {
        let open = self.open_uris();
        let docs = self.facts(open.clone()).await?;
        let mut out = Vec::new();
        for (uri, snap, facts) in &docs {
            for t in &facts.tolerations {
                let Some(toleration) = &t.toleration else {
                    continue;
                };
                if toleration.tolerates(taint, gate) {
                    let line = snap.index.line_of(t.range.start) + 1;
                    out.push(Tolerator {
                        object: object_label(t.object.as_ref()),
                        place: format!("{}:{line}", file_name(uri)),
                        path: t.path.clone(),
                    });
                }
            }
        }
        // The workspace's other files, as on disk.
        let mut others: Vec<(&str, u32, Tolerator)> = Vec::new();
        let state = self.lock();
        for (uri, tolerations) in state.index.files() {
            if open.binary_search(uri).is_ok() {
                continue;
            }
            for t in tolerations {
                if t.toleration.tolerates(taint, gate) {
                    let line = t.range.start.line;
                    others.push((
                        uri.as_str(),
                        line,
                        Tolerator {
                            object: t.object.clone(),
                            place: format!("{}:{}", file_name(uri), line + 1),
                            path: t.path.clone(),
                        },
                    ));
                }
            }
        }
        others.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        out.extend(others.into_iter().map(|(_, _, t)| t));
        Ok(out)
    }

    /// Taints on the Nodes in the inventory and in the open files, for completion.
    async fn known_taints(&self) -> jsonrpc::Result<Vec<KnownTaint>> {
        let workspace = self.lock().workspace.clone();
        let mut out: Vec<KnownTaint> = Vec::new();
        if let Some(cluster) = &workspace.cluster {
            for pool in &cluster.pools {
                for t in &pool.taints {
                    let file = Path::new(cluster.file_name(&t.at));
                    out.push(KnownTaint {
                        key: t.taint.key.clone(),
                        value: t.taint.value.clone(),
                        source: format!(
                            "pool {} ({}, inventory {})",
                            pool.name,
                            pool.size(),
                            file.file_name().map_or_else(
                                || file.display().to_string(),
                                |n| n.to_string_lossy().into_owned()
                            )
                        ),
                    });
                }
            }
        }
        let docs = self.facts(self.open_uris()).await?;
        for (uri, _, facts) in &docs {
            for t in &facts.taints {
                if let Some(taint) = &t.taint {
                    out.push(KnownTaint {
                        key: taint.key.clone(),
                        value: taint.value.clone(),
                        source: format!("{} ({})", object_label(t.object.as_ref()), file_name(uri)),
                    });
                }
            }
        }
        Ok(out)
    }
}

fn watcher(path: &Path, relative: bool) -> Option<FileSystemWatcher> {
    let glob = if relative {
        let parent = path.parent()?;
        GlobPattern::Relative(RelativePattern {
            base_uri: OneOf::Right(Uri::from_file_path(parent)?),
            pattern: path.file_name()?.to_string_lossy().into_owned(),
        })
    } else {
        GlobPattern::String(path.to_string_lossy().into_owned())
    };
    Some(FileSystemWatcher {
        glob_pattern: glob,
        kind: None,
    })
}

fn contains(range: &Range<usize>, offset: usize) -> bool {
    range.start <= offset && offset <= range.end
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> jsonrpc::Result<InitializeResult> {
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
        {
            let mut state = self.inner.lock();
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
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![":".into(), " ".into()]),
                    ..Default::default()
                }),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::new(FIX_ALL),
                        ]),
                        ..Default::default()
                    },
                )),
                diagnostic_provider: pull.then(|| {
                    DiagnosticServerCapabilities::Options(DiagnosticOptions {
                        identifier: Some("taintlint".into()),
                        // Diagnostics depend on the inventory files too.
                        inter_file_dependencies: true,
                        workspace_diagnostics: false,
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

    async fn initialized(&self, _: InitializedParams) {
        let inner = &self.inner;
        let (problems, caps, start) = {
            let mut state = inner.lock();
            let start = !state.started;
            state.started = true;
            (
                std::mem::take(&mut state.startup_problems),
                state.caps.clone(),
                start,
            )
        };
        if start {
            if !caps.pull {
                tokio::spawn(inner.clone().analysis_worker());
            }
            if !caps.watch_dynamic {
                tokio::spawn(inner.clone().inventory_poller());
            }
        }
        inner.report_problems(problems).await;
        if start {
            tokio::spawn(inner.clone().index_workspace());
        }
        let me = inner.clone();
        tokio::spawn(async move {
            if caps.configuration_dynamic {
                let params = RegistrationParams {
                    registrations: vec![Registration {
                        id: CONFIGURATION_ID.to_string(),
                        method: "workspace/didChangeConfiguration".to_string(),
                        register_options: None,
                    }],
                };
                if let Err(e) = me.request::<lsp::request::RegisterCapability>(params).await {
                    me.log(MessageType::WARNING, format!("taintlint: {e}"))
                        .await;
                }
            }
            if caps.configuration {
                me.pull_configuration().await;
            }
            me.update_watchers().await;
        });
    }

    async fn shutdown(&self) -> jsonrpc::Result<()> {
        self.inner.shut_down.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let d = params.text_document;
        {
            let mut state = self.inner.lock();
            let doc = Document::new(d.text, d.version, d.language_id);
            state.documents.insert(
                d.uri.clone(),
                Open {
                    doc,
                    analysis: None,
                    facts: None,
                    chunks: Arc::default(),
                },
            );
            state.dirty.insert(d.uri);
        }
        self.inner.wake.notify_one();
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let problems = {
            let mut state = self.inner.lock();
            let encoding = state.encoding;
            match state.documents.get_mut(&uri) {
                Some(open) => {
                    let problems = open.doc.apply(
                        params.text_document.version,
                        &params.content_changes,
                        encoding,
                    );
                    state.dirty.insert(uri.clone());
                    problems
                }
                None => vec![
                    "a change to a document that is not open; ignored (the client must send \
                     textDocument/didOpen first)"
                        .to_string(),
                ],
            }
        };
        self.inner.wake.notify_one();
        for p in problems {
            self.inner
                .log(
                    MessageType::WARNING,
                    format!("taintlint: {}: {p}", uri.as_str()),
                )
                .await;
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let (is_inventory, is_config) = {
            let state = self.inner.lock();
            let path = params.text_document.uri.to_file_path();
            (
                path.as_ref()
                    .is_some_and(|p| state.workspace.inventory.contains(p)),
                path.as_ref().is_some_and(|p| state.workspace.is_config(p)),
            )
        };
        if is_config {
            self.inner.reload_config().await;
        } else if is_inventory {
            self.inner.reload_inventory().await;
        }
        let saved: Vec<PathBuf> = params
            .text_document
            .uri
            .to_file_path()
            .map(|p| p.into_owned())
            .filter(|p| self.inner.indexes(p))
            .into_iter()
            .collect();
        self.inner.reindex(saved).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let pull = {
            let mut state = self.inner.lock();
            state.documents.remove(&uri);
            state.dirty.remove(&uri);
            state.caps.pull
        };
        if !pull {
            self.inner.outbox.publish_diagnostics(&uri, &[], None).await;
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let (settings, problems) = Settings::from_json(&params.settings);
        let pull_config = self.inner.lock().caps.configuration;
        match settings {
            Some(settings) => self.inner.apply_settings(settings, problems).await,
            None if pull_config => {
                self.inner.report_problems(problems).await;
                let me = self.inner.clone();
                tokio::spawn(async move { me.pull_configuration().await });
            }
            None => self.inner.report_problems(problems).await,
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let paths: Vec<PathBuf> = params
            .changes
            .iter()
            .filter_map(|c| c.uri.to_file_path())
            .map(|p| p.into_owned())
            .collect();
        let (touched, config) = {
            let state = self.inner.lock();
            (
                paths.iter().any(|p| state.workspace.inventory.contains(p)),
                paths.iter().any(|p| state.workspace.is_config(p)),
            )
        };
        if config {
            self.inner.reload_config().await;
        } else if touched {
            self.inner.reload_inventory().await;
        }
        let manifests = paths
            .into_iter()
            .filter(|p| self.inner.indexes(p))
            .collect();
        self.inner.reindex(manifests).await;
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> jsonrpc::Result<DocumentDiagnosticReportResult> {
        let uri = params.text_document.uri;
        let report = |items: Vec<lsp::Diagnostic>, result_id: Option<String>| {
            DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
                RelatedFullDocumentDiagnosticReport {
                    related_documents: None,
                    full_document_diagnostic_report: FullDocumentDiagnosticReport {
                        result_id,
                        items,
                    },
                },
            ))
        };
        let Some((snap, ws, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(report(Vec::new(), None));
        };
        let result_id = format!("{}:{}", ws.generation, snap.version);
        if params.previous_result_id.as_deref() == Some(result_id.as_str()) {
            return Ok(DocumentDiagnosticReportResult::Report(
                DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                    related_documents: None,
                    unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                        result_id,
                    },
                }),
            ));
        }
        let analysis = self.inner.analysis(&uri, &snap, &ws, encoding).await?;
        Ok(report(analysis.lsp.clone(), Some(result_id)))
    }

    async fn hover(&self, params: HoverParams) -> jsonrpc::Result<Option<Hover>> {
        let at = params.text_document_position_params;
        let uri = at.text_document.uri;
        let Some((snap, ws, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(None);
        };
        let offset = snap.lines(encoding).offset(at.position);
        let facts = self.inner.facts(vec![uri.clone()]).await?;
        let Some((_, _, facts)) = facts
            .into_iter()
            .find(|(_, s, _)| s.version == snap.version)
        else {
            return Ok(None);
        };
        let analysis = self.inner.analysis(&uri, &snap, &ws, encoding).await?;
        let gate = ws.comparison_operators();

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
            sections.push(hover::diagnostic(d, ws.settings.docs_url()));
            if range.is_none() {
                range = Some(d.range.clone());
            }
        }
        let on_toleration = facts.toleration_at(offset).filter(|_| sections.is_empty());
        let on_taint = facts.taint_at(offset).filter(|_| sections.is_empty());
        if let Some(t) = on_toleration {
            sections.push(hover::toleration(t, gate, ws.cluster.as_deref()));
            range = Some(t.range.clone());
        } else if let Some(t) = on_taint {
            let tolerators = match &t.taint {
                Some(taint) => self.inner.tolerators(taint, gate).await?,
                None => Vec::new(),
            };
            sections.push(hover::taint(t, &tolerators));
            range = Some(t.range.clone());
        } else if sections.is_empty() {
            // On a pod spec's runtimeClassName or tolerations key: where its tolerations come
            // from.
            if let Some((r, text)) = hover::admitted(&snap.text, offset, &ws.options) {
                sections.push(text);
                range = Some(r);
            }
        }
        if sections.is_empty() {
            return Ok(None);
        }
        let markdown = self.inner.lock().caps.markdown;
        Ok(Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: if markdown {
                    MarkupKind::Markdown
                } else {
                    MarkupKind::PlainText
                },
                value: sections.join("\n\n---\n\n"),
            }),
            range: range.map(|r| snap.lines(encoding).range(r)),
        }))
    }

    async fn code_lens(&self, params: CodeLensParams) -> jsonrpc::Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let Some((snap, ws, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(None);
        };
        let Some(cluster) = ws.cluster.clone() else {
            return Ok(Some(Vec::new()));
        };
        let analysis = self.inner.analysis(&uri, &snap, &ws, encoding).await?;
        let summaries = analysis.summaries.get_or_init(|| {
            analysis
                .placements()
                .iter()
                .map(|p| p.summary(&cluster))
                .collect()
        });
        Ok(Some(cluster::lenses(
            analysis.placements(),
            summaries,
            &snap.lines(encoding),
            &uri,
        )))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> jsonrpc::Result<Option<Vec<InlayHint>>> {
        let uri = params.text_document.uri;
        let Some((snap, ws, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(None);
        };
        let Some(cluster) = ws.cluster.clone() else {
            return Ok(Some(Vec::new()));
        };
        let analysis = self.inner.analysis(&uri, &snap, &ws, encoding).await?;
        let lines = snap.lines(encoding);
        let within = lines.byte_range(params.range);
        Ok(Some(cluster::hints(
            analysis.tolerations(),
            &cluster,
            &lines,
            within,
        )))
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> jsonrpc::Result<Option<GotoDefinitionResponse>> {
        let at = params.text_document_position_params;
        let uri = at.text_document.uri;
        let Some((snap, ws, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(None);
        };
        let Some(cluster) = ws.cluster.clone() else {
            return Ok(None);
        };
        let offset = snap.lines(encoding).offset(at.position);
        let analysis = self.inner.analysis(&uri, &snap, &ws, encoding).await?;
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
                inventory_location(&ws, cluster.file_name(at), at.range.clone(), encoding)
            })
            .collect();
        if targets.is_empty() {
            return Ok(None);
        }
        Ok(Some(GotoDefinitionResponse::Array(targets)))
    }

    async fn references(&self, params: ReferenceParams) -> jsonrpc::Result<Option<Vec<Location>>> {
        let at = params.text_document_position;
        let uri = at.text_document.uri;
        let Some((snap, ws, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(None);
        };
        let offset = snap.lines(encoding).offset(at.position);
        let Some((taint, declaration)) = self.inner.taint_at(&uri, &snap, &ws, offset).await?
        else {
            return Ok(None);
        };
        let mut out = Vec::new();
        if params.context.include_declaration {
            out.push(Location::new(
                uri.clone(),
                snap.lines(encoding).range(declaration),
            ));
        }
        out.extend(
            self.inner
                .tolerating(&taint, ws.comparison_operators(), encoding)
                .await?,
        );
        Ok(Some(out))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> jsonrpc::Result<Option<DocumentSymbolResponse>> {
        let uri = params.text_document.uri;
        let Some((snap, _, encoding)) = self.inner.snapshot(&uri) else {
            return Ok(None);
        };
        let facts = self.inner.facts(vec![uri.clone()]).await?;
        let Some((_, _, facts)) = facts
            .into_iter()
            .find(|(_, s, _)| s.version == snap.version)
        else {
            return Ok(None);
        };
        Ok(Some(DocumentSymbolResponse::Nested(cluster::symbols(
            &facts,
            &snap.lines(encoding),
        ))))
    }

    async fn completion(
        &self,
        params: CompletionParams,
    ) -> jsonrpc::Result<Option<CompletionResponse>> {
        let at = params.text_document_position;
        let Some((snap, ws, encoding)) = self.inner.snapshot(&at.text_document.uri) else {
            return Ok(None);
        };
        let offset = snap.lines(encoding).offset(at.position);
        let (text, index) = (snap.text.clone(), snap.index.clone());
        let context = blocking("completing", move || {
            completion::context(&text, &index, offset)
        })
        .await?;
        let Some(context) = context else {
            return Ok(None);
        };
        let known = match &context {
            Context::Value { field, .. } if field == "key" || field == "value" => {
                self.inner.known_taints().await?
            }
            _ => Vec::new(),
        };
        let typed = match &context {
            Context::Field { typed, .. } | Context::Value { typed, .. } => typed.clone(),
        };
        let range = snap.lines(encoding).range(typed);
        let items = completion::suggestions(&context, ws.comparison_operators(), &known)
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

    async fn code_action(
        &self,
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
            if let Some(action) = self.inner.fix_all_action(&uri).await? {
                actions.push(CodeActionOrCommand::CodeAction(action));
            }
        }
        if !quick_fixes {
            return Ok(Some(actions));
        }
        let (version, cached, document_changes) = {
            let state = self.inner.lock();
            let Some(open) = state.documents.get(&uri) else {
                return Ok(None);
            };
            (
                open.doc.version,
                open.analysis.clone(),
                state.caps.document_changes,
            )
        };
        let current = self.inner.snapshot(&uri);
        let mut disables = Vec::new();
        for d in &params.context.diagnostics {
            if d.source.as_deref() != Some(diagnostics::SOURCE) {
                continue;
            }
            // "Disable RULE for this line", on the text the client sees.
            if let (Some(NumberOrString::String(rule)), Some((snap, _, encoding))) =
                (&d.code, &current)
            {
                // Only for a finding of the current text (a stale one's line may have moved).
                let current_finding = cached
                    .as_ref()
                    .filter(|a| a.version == version)
                    .is_some_and(|a| {
                        a.lsp.iter().any(|c| {
                            c.range == d.range && c.code == d.code && c.message == d.message
                        })
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
            for fix in data.fixes {
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
}

/// The fix-all code action kind (`source.fixAll` for this server).
const FIX_ALL: &str = "source.fixAll.taintlint";

impl Inner {
    /// Every safe fix of a document at once (`source.fixAll.taintlint`), as `lint --fix`
    /// applies them: one edit over the span that changes. `None` when there is nothing to fix.
    async fn fix_all_action(&self, uri: &Uri) -> jsonrpc::Result<Option<CodeAction>> {
        let Some((snap, ws, encoding)) = self.snapshot(uri) else {
            return Ok(None);
        };
        let text = snap.text.clone();
        let fixed = blocking("fixing", move || {
            crate::fix::fix_all_with(&text, crate::fix::FixMode::Safe, |t| ws.analyse(t))
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
