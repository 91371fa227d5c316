//! What the workspace says about a taint: the taint under the cursor, the tolerations that
//! tolerate it (open files as edited, the others as on disk), and the taints completion offers.

use std::ops::Range;
use std::path::Path;

use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::*;

use crate::lsp::completion::KnownTaint;
use crate::lsp::documents::Snapshot;
use crate::lsp::hover::Tolerator;
use crate::lsp::session::{contains, file_name, Session};
use crate::lsp::workspace::Workspace;
use crate::position::Encoding;

impl Session {
    /// The taint under the cursor and its range: a taint of a Node in the document, or of the
    /// inventory when the document is an inventory file as loaded (a pool file's too).
    pub(crate) async fn taint_at(
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
    pub(crate) async fn tolerating(
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
    pub(crate) async fn tolerators(
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
                        object: t.object.clone(),
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
    pub(crate) async fn known_taints(&self) -> jsonrpc::Result<Vec<KnownTaint>> {
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
                        source: format!("{} ({})", t.object, file_name(uri)),
                    });
                }
            }
        }
        Ok(out)
    }
}
