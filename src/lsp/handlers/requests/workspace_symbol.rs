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

/// A workload found: its kind, name, container (kind and namespace) and place.
type Workload = (String, String, String, Location);

/// Taint keys by name, with what carries each (pools or objects) and the first place written.
type Keys<L> = BTreeMap<String, (Vec<String>, L)>;

pub(crate) async fn handle(
    session: &Session,
    params: WorkspaceSymbolParams,
) -> jsonrpc::Result<Option<WorkspaceSymbolResponse>> {
    let query = params.query;
    let (ws, encoding) = {
        let state = session.lock();
        (state.workspace.clone(), state.encoding)
    };
    let keys = inventory_keys(&ws, &query, encoding);
    // Workloads (and the manifests' own taints): the open documents as edited, the others as
    // on disk.
    let open = session.open_uris();
    let docs = session.facts(open.clone()).await?;
    let mut workloads = Vec::new();
    let mut manifest_keys = Keys::new();
    for (uri, snap, facts) in &docs {
        let lines = snap.lines(encoding);
        for o in &facts.objects {
            if let Some((name, kind)) = workload_name(o.kind.as_deref(), o.name.as_deref()) {
                if matches(&name, &query) {
                    let location = Location::new(uri.clone(), lines.range(o.selection.clone()));
                    workloads.push(workload(kind, name, o.namespace.clone(), location));
                }
            }
        }
        for t in &facts.taints {
            if let (Some(taint), Some(k)) = (&t.taint, &t.key) {
                if matches(&taint.key, &query) {
                    let label = t.object.clone();
                    let location = || Location::new(uri.clone(), lines.range(k.clone()));
                    carried(&mut manifest_keys, &taint.key, label, location);
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
                        let location = Location::new(uri.clone(), o.selection);
                        workloads.push(workload(kind, name, o.namespace.clone(), location));
                    }
                }
            }
            for t in &file.taints {
                if matches(&t.key, &query) {
                    let location = || Location::new(uri.clone(), t.range);
                    carried(&mut manifest_keys, &t.key, t.object.clone(), location);
                }
            }
        }
    }
    let mut out = symbols(keys, manifest_keys, workloads);
    out.truncate(MAX_SYMBOLS);
    Ok(Some(WorkspaceSymbolResponse::Nested(out)))
}

/// A workload found, its container saying its kind and namespace.
fn workload(kind: String, name: String, namespace: Option<String>, at: Location) -> Workload {
    let container = namespace.map_or(kind.clone(), |n| format!("{kind} in {n}"));
    (kind, name, container, at)
}

/// Records that `by` carries the taint `key`, first written at `location`.
fn carried(keys: &mut Keys<Location>, key: &str, by: String, location: impl FnOnce() -> Location) {
    let e = keys
        .entry(key.to_string())
        .or_insert_with(|| (Vec::new(), location()));
    if !e.0.contains(&by) {
        e.0.push(by);
    }
}

/// The inventory's taint keys matching `query`, with the pools that carry each and where the
/// first is written.
fn inventory_keys(
    ws: &crate::lsp::workspace::Workspace,
    query: &str,
    encoding: crate::position::Encoding,
) -> Keys<Option<Location>> {
    let mut keys = Keys::new();
    let Some(cluster) = &ws.cluster else {
        return keys;
    };
    for pool in &cluster.pools {
        for t in &pool.taints {
            if !matches(&t.taint.key, query) {
                continue;
            }
            let entry: &mut (Vec<String>, Option<Location>) =
                keys.entry(t.taint.key.clone()).or_default();
            if !entry.0.contains(&pool.name) {
                entry.0.push(pool.name.clone());
            }
            if entry.1.is_none() {
                entry.1 =
                    inventory_location(ws, cluster.file_name(&t.at), t.at.range.clone(), encoding);
            }
        }
    }
    keys
}

/// The answer: the inventory's taint keys (placed where the inventory writes them, else where
/// a manifest does), the manifests' other taint keys, then the workloads by name.
fn symbols(
    keys: Keys<Option<Location>>,
    manifest_keys: Keys<Location>,
    mut workloads: Vec<Workload>,
) -> Vec<WorkspaceSymbol> {
    let mut out = Vec::new();
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
    out
}
