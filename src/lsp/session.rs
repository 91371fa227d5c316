//! The session: what the server knows (the client's capabilities, the workspace, the open
//! documents and their analyses, the workspace index) and the few ways handlers read it.
//!
//! Ordering: tower-lsp-server runs several handlers at once. Every handler that changes state
//! (`didOpen`, `didChange`, `didClose`) does so synchronously, under one lock, before its first
//! `.await`, so edits apply in the order they arrive. Analyses run on immutable snapshots on
//! blocking threads; a result is used only if the document still has the version (and the
//! workspace the generation) it was computed for. Every request to the client has a timeout.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use rayon::prelude::*;
use tokio::sync::Notify;
use tower_lsp_server::jsonrpc::{self, ErrorCode};
use tower_lsp_server::ls_types::request::Request as LspRequest;
use tower_lsp_server::ls_types::{self as lsp, *};
use tower_lsp_server::Client;

use crate::analysis::FileAnalysis;
use crate::diagnostic::Diagnostic;
use crate::lsp::diagnostics;
use crate::lsp::documents::{Document, Snapshot};
use crate::lsp::facts::Facts;
use crate::lsp::incremental::{ChunkCache, Pieces};
use crate::lsp::index::WorkspaceIndex;
use crate::lsp::inventory;
use crate::lsp::output::Outbox;
use crate::lsp::workspace::Workspace;
use crate::lsp::workspace_diagnostics::DiskDiagnostics;
use crate::overlays::traced::{self, TracedFile};
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
pub(crate) const WATCH_ID: &str = "taintlint/inventory";
pub(crate) const CONFIGURATION_ID: &str = "taintlint/configuration";

/// What the client can do, as far as the server cares.
#[derive(Debug, Default, Clone)]
pub(crate) struct Caps {
    /// `textDocument/diagnostic`: the client pulls diagnostics (the server never pushes).
    pub(crate) pull: bool,
    /// `workspace/diagnostic/refresh`.
    pub(crate) refresh: bool,
    /// `workspace/configuration`.
    pub(crate) configuration: bool,
    pub(crate) configuration_dynamic: bool,
    pub(crate) watch_dynamic: bool,
    pub(crate) watch_relative: bool,
    pub(crate) document_changes: bool,
    /// `textDocument.rename.prepareSupport`.
    pub(crate) prepare_rename: bool,
    pub(crate) markdown: bool,
    /// `workspace/codeLens/refresh` and `workspace/inlayHint/refresh`.
    pub(crate) lens_refresh: bool,
    pub(crate) hint_refresh: bool,
}

impl Caps {
    pub(crate) fn of(c: &ClientCapabilities) -> Caps {
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
            prepare_rename: td
                .and_then(|t| t.rename.as_ref())
                .and_then(|r| r.prepare_support)
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
pub(crate) struct Analysis {
    pub(crate) version: i32,
    pub(crate) generation: u64,
    /// Per YAML document, shared with the last analysis where the edit left it alone.
    pub(crate) pieces: Pieces,
    /// The findings, where each workload lands and what each toleration matches (with an
    /// inventory), put together for the whole file once the diagnostics are on their way (or
    /// when first asked for): not on the way from a keystroke to its diagnostics.
    pub(crate) whole: OnceLock<FileAnalysis>,
    pub(crate) lsp: Vec<lsp::Diagnostic>,
    /// Each placement's one-line summary, made when lenses are first asked for.
    pub(crate) summaries: OnceLock<Vec<String>>,
    /// What rendered overlays found in the file, placed in this text: reported with its own
    /// findings, as `lint` reports them.
    pub(crate) rendered: Option<Arc<TracedFile>>,
}

impl Analysis {
    pub(crate) fn whole(&self) -> &FileAnalysis {
        self.whole.get_or_init(|| {
            let mut whole = self.pieces.whole();
            if let Some(r) = &self.rendered {
                traced::with_rendered(&mut whole.diagnostics, r);
                // Where its workloads land is the renders' to say: no lens of its own text.
                whole.placements.clear();
            }
            whole
        })
    }

    pub(crate) fn diagnostics(&self) -> &[Diagnostic] {
        &self.whole().diagnostics
    }

    /// The overlays whose renders place the file's pod templates, when it has some and a
    /// render reads it as it is: its lens names them ([`crate::lsp::cluster::rendered_lens`]).
    pub(crate) fn placed_as_rendered(&self) -> Option<&[String]> {
        let r = self.rendered.as_ref()?;
        (self.whole().templates.found > 0 && !r.overlays.is_empty()).then_some(&r.overlays[..])
    }

    pub(crate) fn placements(&self) -> &[Placement] {
        &self.whole().placements
    }

    pub(crate) fn tolerations(&self) -> &[TolerationPlace] {
        &self.whole().tolerations
    }
}

pub(crate) struct Open {
    pub(crate) doc: Document,
    pub(crate) analysis: Option<Arc<Analysis>>,
    pub(crate) facts: Option<(i32, Arc<Facts>)>,
    /// Per-chunk results, so an edit re-analyses only the YAML documents it touched.
    pub(crate) chunks: Arc<Mutex<ChunkCache>>,
}

pub(crate) struct State {
    pub(crate) encoding: Encoding,
    pub(crate) caps: Caps,
    pub(crate) root: Option<PathBuf>,
    pub(crate) workspace: Arc<Workspace>,
    pub(crate) next_generation: u64,
    pub(crate) documents: HashMap<Uri, Open>,
    /// Documents whose diagnostics must be recomputed and pushed.
    pub(crate) dirty: BTreeSet<Uri>,
    /// Settings problems found before the client could be told.
    pub(crate) startup_problems: Vec<String>,
    /// The problems last shown to the user (`window/showMessage`): the same ones found again
    /// (the settings pulled, then pushed, then the inventory re-read) are only logged.
    pub(crate) shown_problems: Vec<String>,
    /// The inventory files the client watches for us.
    pub(crate) watching: Option<Vec<PathBuf>>,
    /// Whether the worker and poller are running.
    pub(crate) started: bool,
    /// The tolerations of the workspace's files (read in the background after `initialized`).
    pub(crate) index: WorkspaceIndex,
    /// The diagnostics of the workspace's files that are not open.
    pub(crate) disk: DiskDiagnostics,
    /// When the last rendering of the overlays started reading their files.
    pub(crate) overlays_read_at: Option<std::time::SystemTime>,
}

pub(crate) struct Session {
    pub(crate) client: Client,
    /// Where pushed diagnostics go (not through `client`: see [`crate::lsp::output`]).
    pub(crate) outbox: Outbox,
    pub(crate) config: Config,
    pub(crate) state: Mutex<State>,
    /// Wakes the analysis worker (push mode).
    pub(crate) wake: Notify,
    /// The client asked for `shutdown`.
    pub(crate) shut_down: AtomicBool,
    /// The connection is closed: background tasks end.
    pub(crate) stopped: AtomicBool,
    /// One push of the workspace's diagnostics at a time.
    pub(crate) publishing: tokio::sync::Mutex<()>,
    /// An open inventory file was edited since the inventory was last read.
    pub(crate) inventory_edited: AtomicBool,
    /// One reading of the inventory for edits at a time.
    pub(crate) reading_edits: tokio::sync::Mutex<()>,
    /// The generation of the workspace last installed (read without the lock by the work a
    /// newer one makes stale).
    pub(crate) installed: Arc<AtomicU64>,
    /// The overlays are to be rendered again ([`crate::lsp::rendering`]).
    pub(crate) render_wanted: AtomicBool,
    /// One rendering of the overlays at a time.
    pub(crate) rendering: tokio::sync::Mutex<()>,
    /// What the last unsaved inventory edit asked about moves ([`crate::lsp::edits`]).
    pub(crate) edit_moves: crate::lsp::edits::Cached,
}

/// internal error instead of taking the server down.
pub(crate) async fn blocking<T: Send + 'static>(
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
pub(crate) fn analyse(
    uri: &Uri,
    snap: &Snapshot,
    ws: &Workspace,
    encoding: Encoding,
    chunks: &Mutex<ChunkCache>,
) -> Analysis {
    let pieces = chunks.lock().unwrap_or_else(|e| e.into_inner()).analyse(
        &snap.text,
        ws.generation,
        |text| ws.check(text, true, snap.chart.as_ref()),
    );
    let other_file =
        |file: &str, range: Range<usize>| inventory_location(ws, file, range, encoding);
    let rendered = rendered_in(ws, uri, &snap.text);
    let lsp = match &rendered {
        None => diagnostics::all_to_lsp(
            pieces.diagnostics(),
            snap.lines(encoding),
            uri,
            Some(snap.version),
            &other_file,
            &ws.links,
        ),
        Some(r) => {
            let mut all = pieces.diagnostics_in_file();
            traced::with_rendered(&mut all, r);
            diagnostics::all_to_lsp(
                all.iter().map(|d| (d, 0)),
                snap.lines(encoding),
                uri,
                Some(snap.version),
                &other_file,
                &ws.links,
            )
        }
    };
    Analysis {
        version: snap.version,
        generation: ws.generation,
        pieces,
        whole: OnceLock::new(),
        lsp,
        summaries: OnceLock::new(),
        rendered,
    }
}

/// What the workspace's rendered overlays found in the file at `uri`, when its text is the one
/// they were placed in.
pub(crate) fn rendered_in(ws: &Workspace, uri: &Uri, text: &str) -> Option<Arc<TracedFile>> {
    if ws.traced.is_empty() {
        return None;
    }
    let path = uri.to_file_path()?;
    let canonical = std::fs::canonicalize(&path).ok()?;
    ws.traced_for(&canonical, text)
}

/// A place in an inventory file (named as the core inventory names it), or in the
/// kustomization of a rendered overlay (where its findings' notes point), for the client.
pub(crate) fn inventory_location(
    ws: &Workspace,
    file: &str,
    range: Range<usize>,
    encoding: Encoding,
) -> Option<Location> {
    let path = inventory::resolve(file, ws.root.as_deref());
    ws.inventory
        .location(&path, range.clone(), encoding)
        .or_else(|| ws.kustomization_location(file, range, encoding))
}

/// What [`inventory_location`] places a range of `file` by: a hash of the file's text as read.
pub(crate) fn inventory_text_hash(ws: &Workspace, file: &str) -> Option<u64> {
    ws.inventory
        .text_hash(&inventory::resolve(file, ws.root.as_deref()))
}

/// A file's name for people: the last segment of its path.
pub(crate) fn file_name(uri: &Uri) -> String {
    if let Some(path) = uri.to_file_path() {
        if let Some(name) = path.file_name() {
            return name.to_string_lossy().into_owned();
        }
    }
    let s = uri.as_str();
    s.rsplit('/').next().unwrap_or(s).to_string()
}

impl Session {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held must not stop the server from answering.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) async fn log(&self, typ: MessageType, message: impl std::fmt::Display) {
        self.client.log_message(typ, message).await;
    }

    /// Sends a request to the client, giving up after the configured timeout.
    pub(crate) async fn request<R: LspRequest>(
        &self,
        params: R::Params,
    ) -> Result<R::Result, String> {
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

    pub(crate) fn snapshot(&self, uri: &Uri) -> Option<(Snapshot, Arc<Workspace>, Encoding)> {
        let state = self.lock();
        let open = state.documents.get(uri)?;
        Some((open.doc.snapshot(), state.workspace.clone(), state.encoding))
    }

    /// The analysis of a snapshot: the cached one if it is current, else computed now.
    pub(crate) async fn analysis(
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
        self.store_analysis(uri, snap, &analysis);
        Ok(analysis)
    }

    /// Keeps an analysis of `snap` if it is still current (the same text, settings and chart
    /// templates: a chart's templates that changed while it was analysed make it stale, as an
    /// edit does); returns whether it was.
    pub(crate) fn store_analysis(
        &self,
        uri: &Uri,
        snap: &Snapshot,
        analysis: &Arc<Analysis>,
    ) -> bool {
        let replaced = {
            let mut state = self.lock();
            let generation = state.workspace.generation;
            match state.documents.get_mut(uri) {
                Some(open)
                    if open.doc.version == analysis.version
                        && generation == analysis.generation
                        && open.doc.chart == snap.chart =>
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
    pub(crate) async fn facts(
        &self,
        uris: Vec<Uri>,
    ) -> jsonrpc::Result<Vec<(Uri, Snapshot, Arc<Facts>)>> {
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

    pub(crate) fn open_uris(&self) -> Vec<Uri> {
        let state = self.lock();
        let mut uris: Vec<Uri> = state.documents.keys().cloned().collect();
        uris.sort();
        uris
    }
}

pub(crate) fn watcher(path: &Path, relative: bool) -> Option<FileSystemWatcher> {
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

pub(crate) fn contains(range: &Range<usize>, offset: usize) -> bool {
    range.start <= offset && offset <= range.end
}
