//! `workspace/symbol`: taint keys (with the pools that carry them) and workloads by name,
//! across the inventory, the open documents and the workspace's other manifests.

use std::collections::BTreeMap;

use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::*;

use crate::lsp::session::{inventory_location, Session};

/// At most this many symbols are answered (a client asks again as the query grows).
const MAX_SYMBOLS: usize = 1_000;

/// Whether a symbol's name matches the query: it contains it, ignoring case (the editor
/// ranks what it gets); an empty query matches everything.
fn matches(name: &str, query: &str) -> bool {
    name.to_lowercase().contains(&query.to_lowercase())
}

fn symbol(
    name: String,
    kind: SymbolKind,
    container: String,
    location: Location,
) -> WorkspaceSymbol {
    WorkspaceSymbol {
        name,
        kind,
        tags: None,
        container_name: Some(container),
        location: OneOf::Left(location),
        data: None,
    }
}

fn workload_name(kind: Option<&str>, name: Option<&str>) -> Option<(String, String)> {
    let name = name?.to_string();
    Some((name, kind.unwrap_or("object").to_string()))
}

pub(crate) async fn handle(
    session: &Session,
    params: WorkspaceSymbolParams,
) -> jsonrpc::Result<Option<WorkspaceSymbolResponse>> {
    let query = params.query;
    let (ws, encoding) = {
        let state = session.lock();
        (state.workspace.clone(), state.encoding)
    };
    let mut out = Vec::new();
    // Taint keys: the inventory's, with the pools that carry each.
    let mut keys: BTreeMap<String, (Vec<String>, Option<Location>)> = BTreeMap::new();
    if let Some(cluster) = &ws.cluster {
        for pool in &cluster.pools {
            for t in &pool.taints {
                if !matches(&t.taint.key, &query) {
                    continue;
                }
                let entry = keys.entry(t.taint.key.clone()).or_default();
                if !entry.0.contains(&pool.name) {
                    entry.0.push(pool.name.clone());
                }
                if entry.1.is_none() {
                    entry.1 = inventory_location(
                        &ws,
                        cluster.file_name(&t.at),
                        t.at.range.clone(),
                        encoding,
                    );
                }
            }
        }
    }
    // Workloads (and the manifests' own taints): the open documents as edited, the others as
    // on disk.
    let open = session.open_uris();
    let docs = session.facts(open.clone()).await?;
    let mut workloads = Vec::new();
    let mut manifest_keys: BTreeMap<String, (Vec<String>, Location)> = BTreeMap::new();
    for (uri, snap, facts) in &docs {
        let lines = snap.lines(encoding);
        for o in &facts.objects {
            if let Some((name, kind)) = workload_name(o.kind.as_deref(), o.name.as_deref()) {
                if matches(&name, &query) {
                    let container = o
                        .namespace
                        .clone()
                        .map_or(kind.clone(), |n| format!("{kind} in {n}"));
                    let location = Location::new(uri.clone(), lines.range(o.selection.clone()));
                    workloads.push((kind, name, container, location));
                }
            }
        }
        for t in &facts.taints {
            if let (Some(taint), Some(k)) = (&t.taint, &t.key) {
                if matches(&taint.key, &query) {
                    let label = crate::lsp::facts::object_label(t.object.as_ref());
                    let e = manifest_keys.entry(taint.key.clone()).or_insert_with(|| {
                        (
                            Vec::new(),
                            Location::new(uri.clone(), lines.range(k.clone())),
                        )
                    });
                    if !e.0.contains(&label) {
                        e.0.push(label);
                    }
                }
            }
        }
    }
    {
        let state = session.lock();
        for (_, uri, file) in state.index.entries() {
            if open.binary_search(uri).is_ok() {
                continue;
            }
            for o in &file.objects {
                if let Some((name, kind)) = workload_name(o.kind.as_deref(), o.name.as_deref()) {
                    if matches(&name, &query) {
                        let container = o
                            .namespace
                            .clone()
                            .map_or(kind.clone(), |n| format!("{kind} in {n}"));
                        workloads.push((
                            kind,
                            name,
                            container,
                            Location::new(uri.clone(), o.selection),
                        ));
                    }
                }
            }
            for t in &file.taints {
                if matches(&t.key, &query) {
                    let e = manifest_keys
                        .entry(t.key.clone())
                        .or_insert_with(|| (Vec::new(), Location::new(uri.clone(), t.range)));
                    if !e.0.contains(&t.object) {
                        e.0.push(t.object.clone());
                    }
                }
            }
        }
    }
    for (key, (pools, location)) in keys {
        let location = location.or_else(|| manifest_keys.get(&key).map(|m| m.1.clone()));
        let Some(location) = location else { continue };
        let container = format!(
            "taint on pool{} {}",
            if pools.len() == 1 { "" } else { "s" },
            pools.join(", ")
        );
        out.push(symbol(key, SymbolKind::KEY, container, location));
    }
    for (key, (objects, location)) in manifest_keys {
        if out.iter().any(|s| s.name == key) {
            continue;
        }
        out.push(symbol(
            key,
            SymbolKind::KEY,
            format!("taint on {}", objects.join(", ")),
            location,
        ));
    }
    workloads.sort_by(|a, b| {
        (&a.1, a.2.as_str(), a.3.uri.as_str()).cmp(&(&b.1, b.2.as_str(), b.3.uri.as_str()))
    });
    for (kind, name, container, location) in workloads {
        let symbol_kind = if kind == "Node" {
            SymbolKind::STRUCT
        } else {
            SymbolKind::OBJECT
        };
        out.push(symbol(name, symbol_kind, container, location));
    }
    out.truncate(MAX_SYMBOLS);
    Ok(Some(WorkspaceSymbolResponse::Nested(out)))
}
