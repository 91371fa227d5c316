//! Diagnostics for the workspace's manifests that are not open: what `workspace/diagnostic`
//! answers (LSP 3.17 pull, a result id per document so that what did not change costs an
//! `unchanged` report) and what a client that only takes pushed diagnostics is sent when an
//! inventory or pool edit changes a file's findings (and cleared when it no longer does).
//!
//! The files are the ones the workspace index walks (the project's include and exclude
//! patterns, `.gitignore`, at most [`crate::lsp::index::MAX_FILES`]), read from disk; each
//! file's result is kept with the file's size and modification time and the workspace
//! generation it was made for, so an edit that changes neither re-reads nothing. When only the
//! inventory changed (an edit to a pool file), a file whose findings cannot depend on it
//! ([`crate::analysis::reads_inventory`]: no pod template, toleration or YAML in a string) keeps
//! its result and its result id without being analysed again. So does a file whose findings
//! read the same of the new inventory as of the last ([`Judged::still_hold`]: what each of its
//! pod templates asks is simulated again once per inventory, and what the inventory rules read
//! for it compared as a hash). Any other file is judged again from its YAML tree, kept from the
//! pass before with its text ([`Parsed`]; up to [`KEPT_TEXT`] bytes of text a workspace), not
//! read and parsed anew, and only in its documents whose findings can change; when its findings
//! come out as they were, pointing into inventory files whose texts are as they were, it keeps
//! its diagnostics and result id rather than have them made again.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rayon::prelude::*;
use serde_json::value::RawValue;
use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::{self as lsp, MessageType, Uri};

use crate::analysis::{FileAnalysis, Judged};
use crate::diagnostic::Diagnostic;
use crate::lsp::convert::Lines;
use crate::lsp::diagnostics;
use crate::lsp::session::{blocking, inventory_location, inventory_text_hash, Session};
use crate::lsp::workspace::Workspace;
use crate::overlays::traced::{self, TracedFile};
use crate::position::{Encoding, LineIndex};
use crate::syntax::{self, Stream};
use crate::walk::Place;

/// How much text (in bytes) the workspace's kept trees may stand for: a tree takes up to about
/// ten times its text (`lint` of 5 MB of Deployments peaks 72 MB above an empty file's), so
/// some 100 MB at most. Files beyond it are read and parsed again when they are judged again.
pub(crate) const KEPT_TEXT: usize = 8 << 20;

self_cell::self_cell!(
    /// A file's text and its YAML tree, as [`syntax::parse`] made it.
    pub(crate) struct Parsed {
        owner: String,
        #[covariant]
        dependent: Stream,
    }
    impl {Debug}
);

/// A file as a pass reads it: YAML with its tree, or a Terraform file's text.
enum Read {
    Tree(Parsed),
    Hcl(String),
}

impl Read {
    fn new(text: String) -> Read {
        if crate::class::text(&text).is_parsed() {
            Read::Tree(Parsed::new(text, |t| syntax::parse(t)))
        } else {
            Read::Hcl(text)
        }
    }

    fn text(&self) -> &str {
        match self {
            Read::Tree(p) => p.borrow_owner(),
            Read::Hcl(text) => text,
        }
    }

    fn reads_inventory(&mut self, ws: &Workspace, chart: Option<&Arc<Place>>) -> bool {
        match self {
            Read::Tree(p) => {
                p.with_dependent_mut(|text, stream| ws.reads_inventory(text, Some(stream), chart))
            }
            Read::Hcl(text) => ws.reads_inventory(text, None, chart),
        }
    }

    /// The file's analysis, and what each document found and read of the inventory (a
    /// Terraform file's are not told); a document keeps what it found `before` where it reads
    /// the same of this inventory.
    fn analyse(
        &mut self,
        ws: &Workspace,
        chart: Option<&Arc<Place>>,
        before: Option<&Judged>,
    ) -> (FileAnalysis, Option<Judged>) {
        match self {
            Read::Tree(p) => {
                let (analysis, judged) = p
                    .with_dependent_mut(|text, stream| ws.check_again(text, stream, chart, before));
                (analysis, Some(judged))
            }
            Read::Hcl(text) => (ws.check(text, false, chart), None),
        }
    }
}

/// A file on disk as last seen: its size and modification time.
type Stamp = (u64, Option<SystemTime>);

/// One unopened file's diagnostics.
#[derive(Debug)]
pub(crate) struct DiskResult {
    pub uri: Uri,
    stamp: Stamp,
    generation: u64,
    /// The workspace's settings generation the result was made for.
    settings_generation: u64,
    /// Whether the file's findings can depend on the inventory; `None` until the inventory
    /// first changes after the result was made.
    reads_inventory: Option<bool>,
    /// The diagnostics as JSON, made once: a pool edit's answer is megabytes of them, copied
    /// as they are into each report that carries them.
    pub items: Arc<RawValue>,
    /// Names the items: equal ids, equal diagnostics.
    pub result_id: String,
    /// The findings the items were made from, while the file may be judged again.
    found: Arc<Vec<Diagnostic>>,
    /// What each document found and read of the inventory: under another inventory of which
    /// they read the same, they are the same.
    judged: Option<Arc<Judged>>,
    /// The hash of the text of each inventory file the findings point into, which places
    /// those places.
    placed: Vec<(String, Option<u64>)>,
    /// The file's text and tree, kept to judge it again against another inventory (taken by the
    /// pass that does).
    parsed: Mutex<Option<Parsed>>,
    /// What rendered overlays found in the file, reported with its own findings: the result
    /// holds while they are the same.
    rendered: Option<Arc<TracedFile>>,
}

#[derive(Debug, Default)]
pub(crate) struct DiskDiagnostics {
    files: HashMap<PathBuf, Arc<DiskResult>>,
    /// Push mode: the result id last published for each file that is not open.
    published: HashMap<Uri, String>,
}

impl DiskResult {
    /// The same result, current for another inventory (the file does not read it).
    fn for_generation(&self, generation: u64) -> DiskResult {
        DiskResult {
            uri: self.uri.clone(),
            stamp: self.stamp,
            generation,
            settings_generation: self.settings_generation,
            reads_inventory: Some(false),
            items: self.items.clone(),
            result_id: self.result_id.clone(),
            found: Arc::default(),
            judged: None,
            placed: Vec::new(),
            parsed: Mutex::new(None),
            rendered: self.rendered.clone(),
        }
    }

    /// The same findings, current for another inventory of which they read the same: the same
    /// diagnostics too, unless the inventory files they point into changed (then made again
    /// from the findings, with the file's text from its tree (`parsed`, kept on) or `text`).
    fn with_same_findings(
        &self,
        ws: &Workspace,
        encoding: Encoding,
        parsed: Option<Parsed>,
        text: impl FnOnce() -> Option<String>,
    ) -> Option<DiskResult> {
        let placed = placed_in(ws, &self.found);
        let (items, result_id) = if placed == self.placed {
            (self.items.clone(), self.result_id.clone())
        } else {
            let owned;
            let text = match &parsed {
                Some(p) => p.borrow_owner().as_str(),
                None => {
                    owned = text()?;
                    owned.as_str()
                }
            };
            as_json(&diagnostics_of(ws, &self.found, text, &self.uri, encoding))
        };
        Some(DiskResult {
            uri: self.uri.clone(),
            stamp: self.stamp,
            generation: ws.generation,
            settings_generation: self.settings_generation,
            reads_inventory: self.reads_inventory,
            items,
            result_id,
            found: self.found.clone(),
            judged: self.judged.clone(),
            placed,
            parsed: Mutex::new(parsed),
            rendered: self.rendered.clone(),
        })
    }

    /// The file's kept text and tree, if this result has them and no other pass took them.
    fn take_parsed(&self) -> Option<Parsed> {
        self.parsed.lock().ok()?.take()
    }
}

impl DiskDiagnostics {
    /// An open document's own diagnostics take the file over.
    pub fn opened(&mut self, uri: &Uri) {
        self.published.remove(uri);
    }

    /// The templates of these charts changed: the results of the files beside them (their
    /// values files) are forgotten, to be judged again as the templates render them now.
    /// Whether there were any.
    pub fn forget_values_of(&mut self, charts: &[PathBuf]) -> bool {
        let before = self.files.len();
        self.files.retain(|path, _| {
            !path
                .parent()
                .is_some_and(|dir| charts.iter().any(|c| c == dir))
        });
        self.files.len() != before
    }
}

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    (meta.len(), meta.modified().ok())
}

/// The inventory files `found` points into (sorted, once each), each with the hash of its text.
fn placed_in(ws: &Workspace, found: &[Diagnostic]) -> Vec<(String, Option<u64>)> {
    let mut files: Vec<&str> = found
        .iter()
        .flat_map(|d| d.related.iter().filter_map(|r| r.file.as_deref()))
        .collect();
    files.sort_unstable();
    files.dedup();
    files
        .into_iter()
        .map(|f| (f.to_string(), inventory_text_hash(ws, f)))
        .collect()
}

/// A file's findings as LSP diagnostics: `text` is the file's, places in inventory files are
/// found in the workspace's inventory.
fn diagnostics_of(
    ws: &Workspace,
    found: &[Diagnostic],
    text: &str,
    uri: &Uri,
    encoding: Encoding,
) -> Vec<lsp::Diagnostic> {
    let index = LineIndex::new(text);
    let lines = Lines::new(text, &index, encoding);
    let other_file =
        |file: &str, range: std::ops::Range<usize>| inventory_location(ws, file, range, encoding);
    diagnostics::all_to_lsp(
        found.iter().map(|d| (d, 0)),
        lines,
        uri,
        None,
        &other_file,
        &ws.links,
    )
}

/// A file's diagnostics as JSON, and their result id: the hash of that JSON.
fn as_json(items: &[lsp::Diagnostic]) -> (Arc<RawValue>, String) {
    use std::hash::BuildHasher;
    let json = serde_json::value::to_raw_value(items).expect("diagnostics serialize");
    let hash = foldhash::quality::FixedState::with_seed(0).hash_one(json.get().as_bytes());
    (Arc::from(json), format!("{hash:016x}"))
}

/// What rendered overlays found in each file, by the path the workspace's files are known by
/// (a file below the workspace root as the walk names it), and the files of those that are not
/// among `paths` and not in `skip` (open, inventory or configuration files), each with the
/// result reported for it last (`cached`).
#[allow(clippy::type_complexity)]
fn rendered_by_path(
    ws: &Workspace,
    paths: &[PathBuf],
    skip: &HashSet<PathBuf>,
    cached: &HashMap<PathBuf, Arc<DiskResult>>,
) -> (
    HashMap<PathBuf, Arc<TracedFile>>,
    Vec<(PathBuf, Option<Arc<DiskResult>>)>,
) {
    if ws.traced.is_empty() {
        return (HashMap::new(), Vec::new());
    }
    let root = ws.root.clone().unwrap_or_default();
    let canonical_root = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
    let mut by_path = HashMap::new();
    for (canonical, &i) in &ws.traced.by_path {
        let path = match canonical.strip_prefix(&canonical_root) {
            Ok(rest) => root.join(rest),
            Err(_) => canonical.clone(),
        };
        by_path.insert(path, ws.traced.files[i].clone());
    }
    let listed: HashSet<&PathBuf> = paths.iter().collect();
    let mut extra: Vec<(PathBuf, Option<Arc<DiskResult>>)> = by_path
        .keys()
        .filter(|p| !listed.contains(p) && !skip.contains(*p))
        .map(|p| (p.clone(), cached.get(p).cloned()))
        .collect();
    extra.sort_by(|a, b| a.0.cmp(&b.0));
    (by_path, extra)
}

/// The result of a file only rendered overlays found something in: their findings alone, as
/// `lint` reports such a file; the last result (`cached`) while they are the same.
fn rendered_only(
    ws: &Workspace,
    path: &std::path::Path,
    cached: Option<Arc<DiskResult>>,
    encoding: Encoding,
    rendered: &mut HashMap<PathBuf, Arc<TracedFile>>,
) -> Option<Arc<DiskResult>> {
    let r = rendered.remove(path)?;
    if let Some(c) = cached.filter(|c| c.rendered.as_ref() == Some(&r)) {
        return Some(c);
    }
    let uri = Uri::from_file_path(path)?;
    let (items, result_id) = as_json(&diagnostics_of(ws, &r.diagnostics, &r.text, &uri, encoding));
    Some(Arc::new(DiskResult {
        uri,
        stamp: (0, None),
        generation: ws.generation,
        settings_generation: ws.settings_generation,
        reads_inventory: None,
        items,
        result_id,
        found: Arc::default(),
        judged: None,
        placed: Vec::new(),
        parsed: Mutex::new(None),
        rendered: Some(r),
    }))
}

impl Session {
    /// The diagnostics of every workspace manifest that is not open, not an inventory file and
    /// not the project's configuration file,
    /// in path order: cached results where the file and the workspace did not change, the
    /// others read and analysed now (in parallel).
    pub(crate) async fn disk_diagnostics(&self) -> jsonrpc::Result<Vec<Arc<DiskResult>>> {
        let (paths, ws, encoding, cached, skip, extra_cached) = {
            let state = self.lock();
            let open: HashSet<PathBuf> = state
                .documents
                .keys()
                .filter_map(|u| u.to_file_path().map(|p| p.into_owned()))
                .collect();
            let paths: Vec<PathBuf> = state
                .index
                .manifests()
                .filter(|p| {
                    !open.contains(*p)
                        && !state.workspace.inventory.contains(p)
                        && !state.workspace.is_config(p)
                })
                .map(PathBuf::from)
                .collect();
            let cached: Vec<Option<Arc<DiskResult>>> = paths
                .iter()
                .map(|p| state.disk.files.get(p).cloned())
                .collect();
            // What is reported of files outside the workspace's manifests was kept too.
            let extra_cached: HashMap<PathBuf, Arc<DiskResult>> =
                if state.workspace.traced.is_empty() {
                    HashMap::new()
                } else {
                    state
                        .disk
                        .files
                        .iter()
                        .filter(|(_, r)| r.rendered.is_some())
                        .map(|(p, r)| (p.clone(), r.clone()))
                        .collect()
                };
            let skip: HashSet<PathBuf> = open
                .into_iter()
                .chain(
                    state
                        .workspace
                        .inventory
                        .files()
                        .iter()
                        .map(|f| f.path.clone()),
                )
                .chain(state.workspace.config.clone())
                .collect();
            (
                paths,
                state.workspace.clone(),
                state.encoding,
                cached,
                skip,
                extra_cached,
            )
        };
        let generation = ws.generation;
        let installed = self.installed.clone();
        let kept_text = AtomicUsize::new(0);
        let results = blocking("analysing the workspace", move || {
            // Each kustomization read once for the whole pass (what each names as a patch).
            let kustomizations = crate::walk::Kustomizations::default();
            let (mut rendered, extra) = rendered_by_path(&ws, &paths, &skip, &extra_cached);
            let mut results: Vec<(PathBuf, Arc<DiskResult>)> = paths
                .into_par_iter()
                .zip(cached)
                .map(|(path, cached)| {
                    let rendered = rendered.get(&path).cloned();
                    (path, cached, rendered)
                })
                .filter_map(|(path, cached, rendered)| {
                    let meta = std::fs::metadata(&path).ok()?;
                    let stamp = stamp(&meta);
                    // The file as it was, under the same settings and with the same rendered
                    // findings: only the inventory changed.
                    let same = cached.clone().filter(|c| {
                        c.stamp == stamp
                            && c.settings_generation == ws.settings_generation
                            && c.rendered == rendered
                    });
                    if let Some(c) = &same {
                        if c.generation == generation {
                            return Some((path, c.clone()));
                        }
                        if c.reads_inventory == Some(false) {
                            return Some((path, Arc::new(c.for_generation(generation))));
                        }
                        // Findings that read the same of this inventory as of the last are the
                        // same: not judged again.
                        let holds = |judged: &Arc<Judged>| {
                            ws.cluster.as_deref().is_some_and(|i| judged.still_hold(i))
                        };
                        if c.judged.as_ref().is_some_and(holds) {
                            let parsed = c.take_parsed().and_then(|p| {
                                let len = p.borrow_owner().len();
                                (kept_text.fetch_add(len, Ordering::Relaxed) + len <= KEPT_TEXT)
                                    .then_some(p)
                            });
                            let text = || std::fs::read_to_string(&path).ok();
                            if let Some(r) = c.with_same_findings(&ws, encoding, parsed, text) {
                                return Some((path, Arc::new(r)));
                            }
                        }
                    }
                    // A newer workspace is installed (a keystroke in a pool file while this
                    // one is judged): this answer is stale, and the client is sent or asked
                    // for the new one. What is left keeps its last result rather than be
                    // judged against an inventory that is gone.
                    if installed.load(Ordering::SeqCst) > generation {
                        if let Some(c) = cached {
                            return Some((path, c));
                        }
                    }
                    let chart = crate::walk::Place::of(&path, Some(&kustomizations));
                    let mut reads_inventory = same.as_ref().and_then(|c| c.reads_inventory);
                    // The tree the last pass kept, else the file read (and parsed, unless it is
                    // Terraform).
                    let mut file = match same.as_ref().and_then(|c| c.take_parsed()) {
                        Some(parsed) => Read::Tree(parsed),
                        None => Read::new(std::fs::read_to_string(&path).ok()?),
                    };
                    if let (Some(c), None) = (&same, reads_inventory) {
                        // Whether it depends on the inventory is asked once, when the
                        // inventory first changes: not on the way to the first diagnostics.
                        if !file.reads_inventory(&ws, chart.as_ref()) {
                            return Some((path, Arc::new(c.for_generation(generation))));
                        }
                        reads_inventory = Some(true);
                    }
                    let uri = Uri::from_file_path(&path)?;
                    // The documents whose findings read the same of this inventory keep them.
                    let before = same.as_ref().and_then(|c| c.judged.as_deref());
                    let (analysis, judged) = file.analyse(&ws, chart.as_ref(), before);
                    let mut found = analysis.diagnostics;
                    // A template or a file that is no manifest is set aside, as `lint DIR`
                    // sets it aside: said when the file is opened.
                    found.retain(|d| !crate::rules::sets_file_aside(d.rule));
                    // What rendered overlays found here, once, with the file's own, as `lint`
                    // reports them; not when the file changed since (its next render places
                    // them in the new text).
                    let rendered = rendered.filter(|r| *r.text == *file.text());
                    if let Some(r) = &rendered {
                        traced::with_rendered(&mut found, r);
                    }
                    // A finding of an inventory rule says the file reads the inventory: it need
                    // not be asked.
                    if found
                        .iter()
                        .any(|d| crate::rules::find(d.rule).is_some_and(|m| m.needs_inventory))
                    {
                        reads_inventory = Some(true);
                    }
                    // The same findings, placed in inventory files with the same texts, are
                    // the same diagnostics: the last pass's, with its result id (an edit to a
                    // pool file leaves most files' findings as they were).
                    let placed = placed_in(&ws, &found);
                    let kept = same
                        .as_ref()
                        .filter(|c| *c.found == found && c.placed == placed);
                    let (items, result_id) = match kept {
                        Some(c) => (c.items.clone(), c.result_id.clone()),
                        None => as_json(&diagnostics_of(&ws, &found, file.text(), &uri, encoding)),
                    };
                    // Kept while the workspace's budget lasts, unless the file is never judged
                    // again for another inventory.
                    let keep = match file {
                        Read::Tree(p) if reads_inventory != Some(false) => {
                            let len = p.borrow_owner().len();
                            (kept_text.fetch_add(len, Ordering::Relaxed) + len <= KEPT_TEXT)
                                .then_some(p)
                        }
                        _ => None,
                    };
                    // The findings are compared with the next pass's only if the file is
                    // judged again.
                    let (found, placed, judged) = if reads_inventory == Some(false) {
                        (Vec::new(), Vec::new(), None)
                    } else {
                        (found, placed, judged.map(Arc::new))
                    };
                    Some((
                        path,
                        Arc::new(DiskResult {
                            uri,
                            stamp,
                            generation,
                            settings_generation: ws.settings_generation,
                            reads_inventory,
                            items,
                            result_id,
                            found: Arc::new(found),
                            judged,
                            placed,
                            parsed: Mutex::new(keep),
                            rendered,
                        }),
                    ))
                })
                .collect();
            // The files only rendered overlays found something in (a base outside the
            // workspace folder, a generator's source that is no manifest), as `lint` adds them.
            for (path, r) in extra {
                if let Some(result) = rendered_only(&ws, &path, r, encoding, &mut rendered) {
                    results.push((path, result));
                }
            }
            results
        })
        .await?;
        let mut state = self.lock();
        if state.workspace.generation == generation {
            // What is gone (deleted, excluded, open now) is forgotten. The results replaced are
            // freed off the lock and off the answer's way (a pool edit replaces thousands).
            let current = results
                .iter()
                .map(|(path, r)| (path.clone(), r.clone()))
                .collect();
            let replaced = std::mem::replace(&mut state.disk.files, current);
            drop(state);
            tokio::task::spawn_blocking(move || drop(replaced));
        }
        Ok(results.into_iter().map(|(_, r)| r).collect())
    }

    /// Push mode: publishes the diagnostics of the unopened files whose findings changed since
    /// they were last published, and clears those of files that are gone. One run at a time.
    pub(crate) async fn publish_workspace(self: Arc<Self>) {
        if self.lock().caps.pull {
            return;
        }
        let _one_at_a_time = self.publishing.lock().await;
        let results = match self.disk_diagnostics().await {
            Ok(r) => r,
            Err(e) => {
                self.log(MessageType::ERROR, e.message).await;
                return;
            }
        };
        // Made for a workspace a newer one replaced: the run that the newer one started
        // publishes.
        let installed = self.installed.load(Ordering::SeqCst);
        if results.iter().any(|r| r.generation < installed) {
            return;
        }
        let (publish, clear) = {
            let mut state = self.lock();
            let open: HashSet<Uri> = state.documents.keys().cloned().collect();
            let published = &mut state.disk.published;
            let mut publish = Vec::new();
            for r in &results {
                let before = published.get(&r.uri);
                if before == Some(&r.result_id) {
                    continue;
                }
                // Never shown and nothing to show: nothing to send.
                if before.is_some() || r.items.get() != "[]" {
                    publish.push(r.clone());
                }
                published.insert(r.uri.clone(), r.result_id.clone());
            }
            let current: HashSet<&Uri> = results.iter().map(|r| &r.uri).collect();
            let clear: Vec<Uri> = published
                .keys()
                .filter(|u| !current.contains(u) && !open.contains(*u))
                .cloned()
                .collect();
            for u in &clear {
                published.remove(u);
            }
            (publish, clear)
        };
        for r in publish {
            self.outbox.publish_diagnostics_json(&r.uri, &r.items).await;
        }
        for uri in clear {
            self.outbox.publish_diagnostics(&uri, &[], None).await;
        }
    }

    /// The workspace's unopened files may have new findings: a pushed client is sent them, a
    /// pulling one is asked to pull again.
    pub(crate) async fn workspace_changed(self: &Arc<Self>) {
        let (pull, refresh) = {
            let state = self.lock();
            (state.caps.pull, state.caps.refresh)
        };
        if !pull {
            tokio::spawn(self.clone().publish_workspace());
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
}
