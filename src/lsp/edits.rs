//! What an unsaved edit to an inventory file (a pool file, a node list) moves, as `simulate
//! --base` says it of a commit: the workspace's workloads it strands (they fit a node with the
//! file as saved and none with the editor's text) and frees (the other way round). The file on
//! disk is the base, the editor's text the change; the other open inventory files count as
//! edited on both sides, and the workspace's manifests are read as the editor holds them when
//! open, else from disk, and the files the workspace's overlays read as the overlays render
//! them (as `simulate` reads them). Shown by the pool file's code lens and hover; the lens's
//! command lists the workloads (`taintlint/placement` at the lens).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use tower_lsp_server::ls_types::Uri;

use crate::config::Options;
use crate::inventory::Inventory;
use crate::lsp::handlers::{DocumentRequest, Unanswered};
use crate::lsp::index::MAX_FILE_BYTES;
use crate::lsp::session::{blocking, Session};
use crate::lsp::workspace::Workspace;

/// A workload the edit moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// `Job analytics/etl`.
    pub title: String,
    /// Its file, relative to the workspace root when it is in it.
    pub file: String,
}

/// The workloads an unsaved edit strands and frees.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct EditMoves {
    pub stranded: Vec<Moved>,
    pub freed: Vec<Moved>,
}

/// `1 workload`, `2 workloads`.
fn count(n: usize) -> String {
    match n {
        1 => "1 workload".to_string(),
        n => format!("{n} workloads"),
    }
}

impl EditMoves {
    /// The lens's title: `unsaved edit: strands 2 workloads, frees 1 workload`.
    pub fn summary(&self) -> String {
        match (self.stranded.len(), self.freed.len()) {
            (0, 0) => "unsaved edit: strands no workload, frees none".to_string(),
            (s, 0) => format!("unsaved edit: strands {}", count(s)),
            (0, f) => format!("unsaved edit: frees {}", count(f)),
            (s, f) => format!("unsaved edit: strands {}, frees {}", count(s), count(f)),
        }
    }

    /// What running the lens shows: the workloads, one a line.
    pub fn details(&self) -> String {
        let mut out = format!(
            "Compared with the file as saved, the unsaved edit strands {} (they fit some node \
             before it, none with it) and frees {} (the other way round).\n",
            count(self.stranded.len()),
            count(self.freed.len())
        );
        for (head, list) in [("Stranded", &self.stranded), ("Freed", &self.freed)] {
            if list.is_empty() {
                continue;
            }
            out.push_str(&format!("\n{head}:\n"));
            for m in list {
                out.push_str(&format!("  {} ({})\n", m.title, m.file));
            }
        }
        out
    }

    /// The hover's section: the summary and the first workloads.
    pub fn hover(&self) -> String {
        const SHOWN: usize = 10;
        let mut out = format!("**{}** (against the file as saved)", self.summary());
        for (head, list) in [("Stranded", &self.stranded), ("Freed", &self.freed)] {
            if list.is_empty() {
                continue;
            }
            out.push_str(&format!("\n\n{head}:"));
            for m in list.iter().take(SHOWN) {
                out.push_str(&format!("\n- {} ({})", m.title, m.file));
            }
            if list.len() > SHOWN {
                out.push_str(&format!("\n- and {} more", list.len() - SHOWN));
            }
        }
        out
    }
}

/// Which of a workload's places is the same at both sides: its document, its item in a `kind:
/// List`, its pod spec's path.
type Key = (usize, Option<usize>, String);

/// Whether each workload of `text` runs nowhere, by [`Key`], with its title, against
/// `inventory`.
fn placed(text: &str, options: &Options, inventory: &Inventory) -> Vec<(Key, String, bool)> {
    crate::analysis::simulate(text, options, inventory)
        .workloads
        .into_iter()
        .map(|w| {
            let nowhere = w.runs_nowhere();
            let title = w.title();
            ((w.document, w.item, w.path), title, nowhere)
        })
        .collect()
}

/// What the edit moves, `before` and `after` being the inventory with the file as saved and as
/// edited, for the manifests `files` (path, text), each read with the options its place gives
/// it in the workspace `ws` (a chart's values file, a patch file), as its diagnostics are.
pub fn compare(
    files: &[(PathBuf, Arc<String>)],
    ws: &Workspace,
    before: &Inventory,
    after: &Inventory,
    root: Option<&Path>,
) -> EditMoves {
    // Each kustomization read once for the whole comparison.
    let kustomizations = crate::walk::Kustomizations::default();
    let found: Vec<(Vec<Moved>, Vec<Moved>)> = files
        .par_iter()
        .map(|(path, text)| {
            let place = crate::walk::Place::of(path, Some(&kustomizations));
            let (then, now) = ws.with_options(place.as_ref(), |options| {
                (placed(text, options, before), placed(text, options, after))
            });
            let then: HashMap<Key, bool> = then
                .into_iter()
                .map(|(k, _, nowhere)| (k, nowhere))
                .collect();
            let file = root
                .and_then(|r| path.strip_prefix(r).ok())
                .unwrap_or(path)
                .display()
                .to_string();
            let (mut stranded, mut freed) = (Vec::new(), Vec::new());
            for (key, title, nowhere) in now {
                let Some(&was) = then.get(&key) else {
                    continue;
                };
                let moved = Moved {
                    title,
                    file: file.clone(),
                };
                match (was, nowhere) {
                    (false, true) => stranded.push(moved),
                    (true, false) => freed.push(moved),
                    _ => {}
                }
            }
            (stranded, freed)
        })
        .collect();
    let mut moves = EditMoves::default();
    for (s, f) in found {
        moves.stranded.extend(s);
        moves.freed.extend(f);
    }
    moves
}

/// The last answer, for the document version and workspace it was made for: a lens, its
/// command and a hover ask for the same.
#[derive(Default)]
pub(crate) struct Cached(std::sync::Mutex<Option<Entry>>);

/// An answer and what it was made for: a document's version in a workspace's generation.
struct Entry {
    uri: Uri,
    version: i32,
    generation: u64,
    moves: Option<Arc<EditMoves>>,
}

impl Session {
    /// What the unsaved edit of the document moves, when it is an inventory file the editor
    /// holds a text of that differs from the file on disk.
    pub(crate) async fn edit_moves(
        &self,
        doc: &DocumentRequest,
    ) -> Result<Option<Arc<EditMoves>>, Unanswered> {
        let Some(path) = doc.uri.to_file_path().map(|p| p.into_owned()) else {
            return Ok(None);
        };
        if !doc.ws.inventory.contains(&path) {
            return Ok(None);
        }
        if let Some(e) = &*self.edit_moves.0.lock().unwrap_or_else(|e| e.into_inner()) {
            if e.uri == doc.uri
                && e.version == doc.snap.version
                && e.generation == doc.ws.generation
            {
                return Ok(e.moves.clone());
            }
        }
        // The open files: inventory files as edited, manifests as edited.
        let (open_inventory, open_manifests, manifests) = {
            let state = self.lock();
            let mut inventory = HashMap::new();
            let mut manifests = HashMap::new();
            for (uri, o) in &state.documents {
                let Some(p) = uri.to_file_path().map(|p| p.into_owned()) else {
                    continue;
                };
                let text = o.doc.snapshot().text;
                if doc.ws.inventory.contains(&p) {
                    inventory.insert(p, text);
                } else {
                    manifests.insert(p, text);
                }
            }
            let paths: Vec<PathBuf> = state
                .index
                .manifests()
                .filter(|p| !doc.ws.inventory.contains(p))
                .map(Path::to_path_buf)
                .collect();
            (inventory, manifests, paths)
        };
        let ws = doc.ws.clone();
        let text = doc.snap.text.clone();
        let moves = blocking("comparing the unsaved inventory edit", move || {
            let saved = std::fs::read(&path).ok()?;
            if saved == text.as_bytes() {
                return None;
            }
            let mut edited = open_inventory;
            edited.insert(path.clone(), text);
            let after = ws.cluster_with(&edited)?;
            edited.remove(&path);
            let before = ws.cluster_with(&edited)?;
            let mut files: Vec<(PathBuf, Arc<String>)> = manifests
                .into_iter()
                .filter_map(|p| {
                    if let Some(t) = open_manifests.get(&p) {
                        return Some((p, t.clone()));
                    }
                    let meta = std::fs::metadata(&p).ok()?;
                    if meta.len() > MAX_FILE_BYTES {
                        return None;
                    }
                    let t = String::from_utf8(std::fs::read(&p).ok()?).ok()?;
                    Some((p, Arc::new(t)))
                })
                .collect();
            // The files the workspace's renders read are placed as rendered, as `simulate`
            // places them: the renders stand in their place.
            if !ws.traced.by_path.is_empty() {
                let mut canonical = crate::overlays::plan::Canonical::default();
                files.retain(|(p, _)| ws.traced.of(p, &mut canonical).is_none());
                let rendered = &ws.rendered;
                for (render, outcome) in rendered.plan.renders.iter().zip(&rendered.outcomes) {
                    if let Ok((text, _)) = outcome {
                        let text = crate::overlays::plan::documents_that_matter(text);
                        files.push((render.dir.clone(), Arc::new(text)));
                    }
                }
            }
            files.sort_by(|a, b| a.0.cmp(&b.0));
            Some(Arc::new(compare(
                &files,
                &ws,
                &before,
                &after,
                ws.root.as_deref(),
            )))
        })
        .await?;
        *self.edit_moves.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Entry {
            uri: doc.uri.clone(),
            version: doc.snap.version,
            generation: doc.ws.generation,
            moves: moves.clone(),
        });
        Ok(moves)
    }
}
