//! The workspace's kustomize overlays, rendered as `lint` renders them: the same plan
//! ([`crate::overlays::plan::plan`], with the configuration's `kustomize:` settings and the
//! editor's `kustomize` setting in place of `--kustomize`), the same cache, the same tracing of
//! rendered findings to the files to edit ([`crate::overlays::traced`]).
//!
//! Rendering reads files and runs a process: it is done here, on the blocking pool, off every
//! request's way. A pass plans again from the files on disk and renders only the overlays whose
//! files changed (what kustomize reads for one, byte for byte, against what it read the last
//! time; the others keep their output); the pass runs after the workspace is read, when the
//! settings or the configuration change, and when a file changes on disk or is saved. Passes
//! are taken one at a time, and the requests that come while one runs are taken together by
//! the next. A pass whose renders came out as before changes nothing; one that changed them
//! installs a new workspace, whose findings the open documents and the workspace's files are
//! then judged with (and a pulling client is asked to pull again). Unsaved edits are not
//! rendered: kustomize reads files from disk, and a copy of a closure elsewhere would change
//! what its load restrictor allows and where the origin annotations point. A rendered finding
//! is shown in a file only while the file's text is the one it was placed in, so an edit not
//! saved yet hides the rendered findings of its file until it is saved and rendered again.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::SystemTime;

use tower_lsp_server::ls_types::MessageType;

use crate::config_file::Kustomize;
use crate::lsp::session::{blocking, Session};
use crate::lsp::workspace::Workspace;
use crate::overlays::{self, Cache, Decision, Progress, Rendered, Renderer, Told};

/// What a pass found: the renders, the lines to log, and what it says in one line (`None`
/// when there was nothing to render).
struct Pass {
    rendered: Rendered,
    notes: Vec<String>,
    summary: Option<String>,
}

impl Session {
    /// Renders the workspace's overlays again: now, or after the pass under way (which may have
    /// read the files before they changed).
    pub(crate) async fn render_overlays(self: Arc<Self>) {
        self.render_wanted.store(true, Ordering::SeqCst);
        let _one_at_a_time = self.rendering.lock().await;
        if !self.render_wanted.swap(false, Ordering::SeqCst) {
            return;
        }
        if self.stopped.load(Ordering::SeqCst) {
            return;
        }
        let (root, ws, files) = {
            let mut state = self.lock();
            state.overlays_read_at = Some(SystemTime::now());
            let files: Vec<PathBuf> = state.index.manifests().map(PathBuf::from).collect();
            (state.root.clone(), state.workspace.clone(), files)
        };
        let Some(root) = root else { return };
        let kept = ws.rendered.clone();
        let pass = blocking("rendering the workspace's overlays", move || {
            pass(&root, &ws, &files, &kept)
        })
        .await;
        let pass = match pass {
            Ok(p) => p,
            Err(e) => {
                self.log(MessageType::ERROR, e.message).await;
                return;
            }
        };
        for line in &pass.notes {
            self.log(MessageType::INFO, line).await;
        }
        let changed = !pass.rendered.same_as(&self.lock().workspace.rendered);
        if changed {
            self.install_rendered(Arc::new(pass.rendered)).await;
        }
        if let Some(summary) = pass.summary {
            self.log(MessageType::INFO, summary).await;
        }
    }

    /// Files changed on disk or were saved (and the workspace index has read them): the
    /// overlays are rendered again when there are any, or when a kustomization changed.
    pub(crate) fn files_changed(self: &Arc<Self>, paths: &[PathBuf]) {
        let overlays = !self.lock().workspace.rendered.plan.overlays.is_empty();
        let kustomization = paths.iter().any(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| crate::inventory::kustomize::KUSTOMIZATION_FILES.contains(&n))
        });
        if overlays || kustomization {
            tokio::spawn(self.clone().render_overlays());
        }
    }

    /// For a client that cannot watch files (checked now and then): renders the overlays again
    /// when a file of theirs changed on disk since it was read.
    pub(crate) async fn check_overlays(self: &Arc<Self>) {
        let (rendered, since) = {
            let state = self.lock();
            (state.workspace.rendered.clone(), state.overlays_read_at)
        };
        let Some(since) = since.filter(|_| !rendered.plan.renders.is_empty()) else {
            return;
        };
        let changed = blocking("checking the overlays' files", move || {
            changed_since(&rendered, since)
        })
        .await
        .unwrap_or(false);
        if changed {
            self.clone().render_overlays().await;
        }
    }

    /// Makes these renders the current workspace's: the workspace installed when they were
    /// made, or a newer one (settings or an inventory read while they rendered), with their
    /// findings traced for it.
    async fn install_rendered(self: &Arc<Self>, rendered: Arc<Rendered>) {
        loop {
            let (current, generation) = {
                let mut state = self.lock();
                state.next_generation += 1;
                (state.workspace.clone(), state.next_generation)
            };
            let base = current.generation;
            let r = rendered.clone();
            let made = blocking("tracing the rendered overlays", move || {
                current.with_rendered(r, generation)
            })
            .await;
            let Ok(workspace) = made else { return };
            if self.install_over(workspace, base).await {
                return;
            }
        }
    }
}

/// Whether a file kustomize read for a render was made, removed, or written since `since` with
/// other bytes than were read. The bytes are compared, not only the time: a file whose time is
/// ahead of the clock (copied from another machine) would otherwise render the overlays again
/// at every check.
fn changed_since(rendered: &Rendered, since: SystemTime) -> bool {
    rendered
        .plan
        .renders
        .iter()
        .flat_map(|r| &r.closure)
        .any(|(path, text)| match (std::fs::metadata(path), text) {
            (Ok(_), None) => true,
            (Err(_), text) => text.is_some(),
            (Ok(meta), Some(text)) => {
                meta.modified().map_or(true, |m| m >= since)
                    && std::fs::read(path).map_or(true, |now| now[..] != text[..])
            }
        })
}

/// The files of the renders that the client's watch of the workspace's manifests does not
/// cover (outside the workspace folder, or not YAML or JSON: a generator's `.env` source), to
/// be watched besides.
pub(crate) fn unwatched(rendered: &Rendered, root: Option<&Path>) -> Vec<PathBuf> {
    let root = root.map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.to_path_buf()));
    let mut out: Vec<PathBuf> = rendered
        .plan
        .renders
        .iter()
        .flat_map(|r| r.closure.iter().map(|(p, _)| p))
        .filter(|p| {
            !(crate::lsp::index::is_manifest(p) && root.as_ref().is_some_and(|r| p.starts_with(r)))
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Plans the workspace's overlays as `lint` plans a walk of its root, and renders what the plan
/// says, keeping what `kept` rendered of the overlays whose files did not change.
fn pass(root: &Path, ws: &Workspace, files: &[PathBuf], kept: &Rendered) -> Pass {
    let nothing = Pass {
        rendered: Rendered::default(),
        notes: Vec::new(),
        summary: None,
    };
    let settings = ws.kustomize;
    if settings.tool == Kustomize::Off {
        return nothing;
    }
    let candidates = overlays::candidates(
        &[root.to_path_buf()],
        files.iter().map(|p| (p.as_path(), true)),
    );
    if candidates.is_empty() {
        return nothing;
    }
    let renderer = match Renderer::find(settings) {
        Ok(Some(r)) => r,
        Ok(None) => return nothing,
        Err(missing) => {
            return Pass {
                notes: vec![format!(
                    "taintlint: {missing} to render the workspace's {} kustomization{} (the \
                     `kustomize` setting): linting the sources only",
                    candidates.len(),
                    if candidates.len() == 1 { "" } else { "s" }
                )],
                ..nothing
            }
        }
    };
    let walked: HashSet<PathBuf> =
        overlays::plan::canonical_set(files.iter().map(PathBuf::as_path));
    let plan = overlays::plan(&candidates, &walked, &settings, ws.reads());
    let cache = ws.cache_dir.clone().map(Cache::new);
    let unchanged = plan
        .renders
        .iter()
        .filter(|r| kept.kept(r).is_some())
        .count();
    let outcomes = overlays::render_again(&plan, &renderer, cache.as_ref(), Progress::Hidden, kept);
    let notes = overlays::notes(
        &plan,
        &outcomes,
        renderer.name(),
        Told::Short,
        "linting",
        Some(root),
    );
    let failed = outcomes.iter().filter(|o| o.is_err()).count();
    let skipped = plan
        .overlays
        .iter()
        .filter(|(_, d)| matches!(d, Decision::Skip(_)))
        .count();
    let summary = format!(
        "taintlint: overlays rendered with `{}`: {} of {} kustomization{} ({} render{}, {} \
         unchanged since the last, {} failed); {skipped} not rendered",
        renderer.name(),
        candidates.len() - skipped,
        candidates.len(),
        if candidates.len() == 1 { "" } else { "s" },
        plan.renders.len(),
        if plan.renders.len() == 1 { "" } else { "s" },
        unchanged,
        failed,
    );
    Pass {
        rendered: Rendered { plan, outcomes },
        notes,
        summary: Some(summary),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::overlays::plan::Render;

    fn rendered(closure: Vec<(PathBuf, Option<Arc<[u8]>>)>) -> Rendered {
        let mut r = Rendered::default();
        r.plan.renders.push(Render {
            dir: PathBuf::from("/r/app"),
            canonical: PathBuf::from("/r/app"),
            kustomization: PathBuf::from("/r/app/kustomization.yaml"),
            closure,
            layers: Vec::new(),
            remote: false,
        });
        r
    }

    /// The client watches the workspace's YAML and JSON files; a render's other files are
    /// watched besides.
    #[test]
    fn files_outside_the_workspaces_watch_are_watched_besides() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let some = || Some(Arc::from(&b"x"[..]));
        let r = rendered(vec![
            (root.join("app/kustomization.yaml"), some()),
            (root.join("app/settings.env"), some()),
            (root.join("app/missing.yaml"), None),
            (PathBuf::from("/elsewhere/base/deployment.yaml"), some()),
        ]);
        assert_eq!(
            unwatched(&r, Some(&root)),
            [
                PathBuf::from("/elsewhere/base/deployment.yaml"),
                root.join("app/settings.env"),
            ]
        );
    }

    /// A file written, made or removed after the pass that read it is a change; one written
    /// before is not.
    #[test]
    fn files_changed_since_they_were_read() {
        let dir = tempfile::tempdir().unwrap();
        let (file, gone) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
        std::fs::write(&file, "x").unwrap();
        let before = SystemTime::now() + std::time::Duration::from_secs(3600);
        let some = || Some(Arc::from(&b"x"[..]));
        assert!(!changed_since(
            &rendered(vec![(file.clone(), some())]),
            before
        ));
        let after = SystemTime::UNIX_EPOCH;
        assert!(changed_since(
            &rendered(vec![(file.clone(), Some(Arc::from(&b"y"[..])))]),
            after
        ));
        // Written with the bytes that were read: no change.
        assert!(!changed_since(
            &rendered(vec![(file.clone(), some())]),
            after
        ));
        // Made where nothing was, removed where something was.
        assert!(changed_since(&rendered(vec![(file.clone(), None)]), before));
        assert!(changed_since(&rendered(vec![(gone, some())]), before));
    }
}
