//! The session's background work: settings and inventory (re)loading, the client's file
//! watchers, the push-mode analysis worker, the workspace index and the inventory poller.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde_json::Value;
use tower_lsp_server::ls_types::{self as lsp, *};

use crate::lsp::documents::Snapshot;
use crate::lsp::incremental::ChunkCache;
use crate::lsp::index::{self, WorkspaceIndex};
use crate::lsp::session::{analyse, blocking, watcher, Session, WATCH_ID};
use crate::lsp::settings::{Settings, SECTION};
use crate::lsp::workspace::Workspace;

impl Session {
    /// Re-analyses every open document: pushes new diagnostics, or asks a pulling client to
    /// pull again.
    pub(crate) async fn reanalyse_all(self: &Arc<Self>) {
        let (pull, lens_refresh, hint_refresh) = {
            let mut state = self.lock();
            let uris: Vec<Uri> = state.documents.keys().cloned().collect();
            state.dirty.extend(uris);
            (
                state.caps.pull,
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
        }
        // Pushed, the open documents go out from the worker woken above and the unopened ones
        // from here; pulled, the client is asked to pull them all again.
        self.workspace_changed().await;
    }

    /// The templates of these charts changed: each open values file of theirs gets what they
    /// render it into now, and is analysed again if that changed.
    pub(crate) async fn reread_charts(self: &Arc<Self>, charts: Vec<PathBuf>) {
        let values: Vec<(Uri, PathBuf)> = {
            let state = self.lock();
            state
                .documents
                .keys()
                .filter_map(|uri| {
                    let path = uri.to_file_path()?.into_owned();
                    let chart = path.parent()?;
                    charts
                        .iter()
                        .any(|c| c == chart)
                        .then(|| (uri.clone(), path))
                })
                .collect()
        };
        if values.is_empty() {
            return;
        }
        let read = blocking("reading a chart's templates", move || {
            values
                .into_iter()
                .map(|(uri, path)| (uri, crate::walk::Place::of(&path, None)))
                .collect::<Vec<_>>()
        })
        .await;
        let Ok(read) = read else { return };
        let changed = {
            let mut state = self.lock();
            let state = &mut *state;
            let mut changed = false;
            for (uri, chart) in read {
                if let Some(open) = state.documents.get_mut(&uri) {
                    if open.doc.chart != chart {
                        open.doc.chart = chart;
                        open.analysis = None;
                        open.chunks = Arc::default();
                        changed = true;
                    }
                }
            }
            changed
        };
        if changed {
            self.reanalyse_all().await;
        }
    }

    /// Applies new settings: a new workspace generation, every document re-analysed.
    pub(crate) async fn apply_settings(
        self: &Arc<Self>,
        settings: Settings,
        mut problems: Vec<String>,
    ) {
        let (root, generation, current) = {
            let mut state = self.lock();
            state.next_generation += 1;
            (
                state.root.clone(),
                state.next_generation,
                state.workspace.clone(),
            )
        };
        let result = blocking("reading the settings", move || {
            let (workspace, problems) = Workspace::new(settings, root.as_deref(), generation);
            let workspace = workspace.with_objects(current.objects.clone(), generation);
            // The overlays as rendered so far, while the next pass renders them for these
            // settings, when they render the same way.
            let workspace = if workspace.kustomize == current.kustomize
                && workspace.cache_dir == current.cache_dir
                && workspace.reads() == current.reads()
            {
                workspace.with_rendered(current.rendered.clone(), generation)
            } else {
                workspace
            };
            (workspace, problems)
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
        // The configuration may say otherwise of overlays now.
        tokio::spawn(self.clone().render_overlays());
    }

    /// Reads the inventory files again (they changed).
    /// The project's configuration file changed: everything is rebuilt from the same editor
    /// settings.
    /// The configuration file changed: its settings apply again, and the workspace is read
    /// again for references, since its `include` and `exclude` patterns decide which files count.
    pub(crate) async fn reload_config(self: &Arc<Self>) {
        let settings = self.lock().workspace.settings.clone();
        self.apply_settings(settings, Vec::new()).await;
        tokio::spawn(self.clone().index_workspace());
    }

    pub(crate) async fn reload_inventory(self: &Arc<Self>) {
        let (current, generation, open) = {
            let mut state = self.lock();
            state.next_generation += 1;
            // The inventory files the editor has open count as edited, saved or not.
            let open: std::collections::HashMap<PathBuf, Arc<String>> = state
                .documents
                .iter()
                .filter_map(|(uri, o)| {
                    let path = uri.to_file_path()?.into_owned();
                    state
                        .workspace
                        .inventory
                        .contains(&path)
                        .then(|| (path, o.doc.snapshot().text))
                })
                .collect();
            (state.workspace.clone(), state.next_generation, open)
        };
        let result = blocking("reading the inventory", move || {
            current.with_inventory_reread(generation, &open)
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

    /// Reads the inventory again if an open inventory file was edited since it was last read,
    /// one reading at a time: keystrokes come faster than a big inventory is read, and the edits
    /// that arrive while it is read are taken together by the next reading. Returns once the
    /// edits made before the call are read (by this call or by the reading under way).
    pub(crate) async fn read_inventory_edits(self: &Arc<Self>) {
        let _one_at_a_time = self.reading_edits.lock().await;
        if self.inventory_edited.swap(false, Ordering::SeqCst) {
            self.reload_inventory().await;
        }
    }

    /// Makes a workspace current (unless a newer one already is) and re-analyses.
    pub(crate) async fn install(self: &Arc<Self>, workspace: Workspace) {
        self.install_when(workspace, None).await;
    }

    /// Makes a workspace made from the one of generation `base` current, if that one still is;
    /// returns whether it did.
    pub(crate) async fn install_over(self: &Arc<Self>, workspace: Workspace, base: u64) -> bool {
        self.install_when(workspace, Some(base)).await
    }

    async fn install_when(self: &Arc<Self>, workspace: Workspace, base: Option<u64>) -> bool {
        {
            let mut state = self.lock();
            if workspace.generation <= state.workspace.generation
                || base.is_some_and(|b| b != state.workspace.generation)
            {
                return false;
            }
            self.installed.store(workspace.generation, Ordering::SeqCst);
            let replaced = std::mem::replace(&mut state.workspace, Arc::new(workspace));
            // Freeing a workspace of thousands of nodes takes milliseconds: not here, under
            // the lock, with a pull waiting for the new one.
            tokio::task::spawn_blocking(move || drop(replaced));
        }
        self.reanalyse_all().await;
        self.update_watchers().await;
        true
    }

    /// Logs settings problems, and shows them unless they are the ones shown last: a mistyped
    /// inventory path is found at start, again when the client's settings are pulled and pushed,
    /// and on each re-read, and a person wants to hear of it once.
    pub(crate) async fn report_problems(&self, problems: Vec<String>) {
        let repeated = {
            let mut state = self.lock();
            let repeated = state.shown_problems == problems;
            state.shown_problems = problems.clone();
            repeated
        };
        if problems.is_empty() {
            return;
        }
        for p in &problems {
            self.log(MessageType::WARNING, format!("taintlint settings: {p}"))
                .await;
        }
        if repeated {
            return;
        }
        self.client
            .show_message(
                MessageType::WARNING,
                format!("taintlint settings: {}", problems.join("; ")),
            )
            .await;
    }

    /// Asks the client for our settings section, and applies what it answers.
    pub(crate) async fn pull_configuration(self: &Arc<Self>) {
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

    /// Registers a file watcher for the inventory files, the project's configuration file and
    /// the files of rendered overlays the workspace's watch misses, with the client, replacing
    /// the last.
    pub(crate) async fn update_watchers(&self) {
        let (paths, caps, previous) = {
            let state = self.lock();
            let paths: Vec<PathBuf> = state
                .workspace
                .inventory
                .files()
                .iter()
                .map(|f| f.path.clone())
                .chain(state.workspace.config.clone())
                .chain(crate::lsp::rendering::unwatched(
                    &state.workspace.rendered,
                    state.root.as_deref(),
                ))
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
    pub(crate) async fn analysis_worker(self: Arc<Self>) {
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
                            (uri, snap, analysis)
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
                for (uri, snap, analysis) in results {
                    // A newer edit, setting or chart template makes this result stale: its turn
                    // comes next.
                    if self.store_analysis(&uri, &snap, &analysis) {
                        self.outbox
                            .publish_diagnostics(&uri, &analysis.lsp, Some(analysis.version))
                            .await;
                    }
                }
            }
        }
    }

    /// Reads the tolerations of the workspace's files, once, in the background.
    pub(crate) async fn index_workspace(self: Arc<Self>) {
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
                self.take_objects().await;
                self.workspace_changed().await;
                tokio::spawn(self.clone().render_overlays());
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
                if truncated {
                    self.client
                        .show_message(
                            MessageType::WARNING,
                            format!(
                                "taintlint: the workspace has more than {} manifest files; \
                                 references, rename, workspace symbols and the diagnostics of \
                                 files that are not open cover the first {} in path order (narrow \
                                 it with `include`/`exclude` in .taintlint.yaml)",
                                index::MAX_FILES,
                                index::MAX_FILES
                            ),
                        )
                        .await;
                }
            }
            Err(e) => self.log(MessageType::ERROR, e.message).await,
        }
    }

    /// Takes the cluster objects of the workspace's files as the index holds them: a new
    /// workspace when they changed (a Namespace's node selector edited judges every file
    /// again, as `lint` would).
    async fn take_objects(self: &Arc<Self>) {
        let (objects, current, generation) = {
            let mut state = self.lock();
            let objects = state.index.cluster();
            if *state.workspace.objects == objects {
                return;
            }
            state.next_generation += 1;
            (objects, state.workspace.clone(), state.next_generation)
        };
        let made = blocking("reading the workspace's cluster objects", move || {
            current.with_objects(Arc::new(objects), generation)
        })
        .await;
        if let Ok(workspace) = made {
            self.install(workspace).await;
        }
    }

    /// Whether a file is one the workspace index reads: a manifest under the workspace root.
    pub(crate) fn indexes(&self, path: &Path) -> bool {
        let state = self.lock();
        index::is_manifest(path)
            && state.root.as_deref().is_some_and(|r| path.starts_with(r))
            && !state.workspace.inventory.contains(path)
    }

    /// Reads workspace files again (they changed on disk or were saved).
    pub(crate) async fn reindex(self: &Arc<Self>, paths: Vec<PathBuf>) {
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
            {
                let mut state = self.lock();
                for (path, entry) in read {
                    state.index.set(&path, entry);
                }
            }
            self.take_objects().await;
            self.workspace_changed().await;
        }
    }

    /// For clients that cannot watch files: checks the inventory files and the files of the
    /// rendered overlays now and then.
    pub(crate) async fn inventory_poller(self: Arc<Self>) {
        loop {
            tokio::time::sleep(self.config.poll_interval).await;
            if self.stopped.load(Ordering::SeqCst) || self.shut_down.load(Ordering::SeqCst) {
                return;
            }
            self.check_overlays().await;
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
}
