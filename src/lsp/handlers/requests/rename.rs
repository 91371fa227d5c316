//! `textDocument/prepareRename` and `textDocument/rename`: a taint key, from a taint or a
//! toleration, renamed everywhere the workspace writes it as a taint's or toleration's key:
//! the inventory and pool files (YAML, JSON, HCL), the workspace's manifests (open ones as
//! edited, the others as on disk). Shaped as rust-analyzer's `crates/ide/src/rename.rs`
//! (rust-lang/rust-analyzer): prepare first, then one change across files, refused with a
//! reason when the new name is invalid. The edits are plain text edits, applied when the user
//! presses Enter, as rust-analyzer's and ruff's are: no change annotation asks for a confirmation
//! that an editor shows as a refactor preview with every edit unticked.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use tower_lsp_server::jsonrpc::{self, ErrorCode};
use tower_lsp_server::ls_types::{self as lsp, *};

use crate::lsp::convert::Lines;
use crate::lsp::handlers::{DocumentRequest, Unanswered};
use crate::lsp::rename::{inventory_key_at, inventory_keys, new_key_problem};
use crate::lsp::session::{blocking, contains, Session};
use crate::position::LineIndex;

/// LSP's `RequestFailed`: the request was valid, and cannot be done.
fn refused(message: String) -> jsonrpc::Error {
    jsonrpc::Error {
        code: ErrorCode::ServerError(-32803),
        message: message.into(),
        data: None,
    }
}

fn failed(u: Unanswered) -> jsonrpc::Error {
    match u {
        Unanswered::Failed(e) => e,
        Unanswered::NotOpen | Unanswered::NoInventory => {
            refused("taintlint: the document is not open".to_string())
        }
    }
}

/// The taint key under the cursor (a toleration's, or a taint's in a manifest or in an
/// inventory file) and where it is written.
async fn key_at(
    session: &Session,
    doc: &DocumentRequest,
    position: Position,
) -> Result<Option<(Range<usize>, String)>, Unanswered> {
    let offset = doc.offset(position);
    let facts = doc.facts(session).await?;
    let written = facts
        .tolerations
        .iter()
        .filter_map(|t| t.key.clone())
        .chain(facts.taints.iter().filter_map(|t| t.key.clone()))
        .find(|k| contains(k, offset));
    if let Some(k) = written {
        let key = doc.snap.text[k.clone()].to_string();
        return Ok(Some((k, key)));
    }
    // An inventory or pool file, as edited (its reload may not have happened yet).
    let inventory = doc
        .uri
        .to_file_path()
        .is_some_and(|p| doc.ws.inventory.contains(&p));
    if inventory {
        if let Some((r, key)) = inventory_key_at(&doc.snap.text, offset) {
            return Ok(Some((r.clone(), key.to_string())));
        }
    }
    Ok(None)
}

const NOT_ON_A_KEY: &str =
    "taintlint renames taint keys: put the cursor on the key of a taint or a toleration";

pub(crate) async fn prepare(
    session: &Session,
    params: TextDocumentPositionParams,
) -> jsonrpc::Result<Option<PrepareRenameResponse>> {
    let doc = DocumentRequest::open(session, &params.text_document.uri).map_err(failed)?;
    match key_at(session, &doc, params.position)
        .await
        .map_err(failed)?
    {
        Some((range, key)) => Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
            range: doc.lines().range(range),
            placeholder: key,
        })),
        None => Err(refused(NOT_ON_A_KEY.to_string())),
    }
}

/// One file's edits.
struct FileEdits {
    uri: Uri,
    /// The open document's version (an edit to a file on disk has none).
    version: Option<i32>,
    ranges: Vec<lsp::Range>,
}

pub(crate) async fn handle(
    session: &Session,
    params: RenameParams,
) -> jsonrpc::Result<Option<WorkspaceEdit>> {
    let at = params.text_document_position;
    let doc = DocumentRequest::open(session, &at.text_document.uri).map_err(failed)?;
    let Some((_, old)) = key_at(session, &doc, at.position).await.map_err(failed)? else {
        return Err(refused(NOT_ON_A_KEY.to_string()));
    };
    let new = params.new_name.trim().to_string();
    if let Some(problem) = new_key_problem(&new) {
        return Err(refused(format!("taintlint: {problem}")));
    }
    if new == old {
        return Ok(Some(WorkspaceEdit::default()));
    }
    let files = places(session, &doc, &old).await.map_err(failed)?;
    let document_changes = session.lock().caps.document_changes;
    Ok(Some(workspace_edit(files, &new, document_changes)))
}

/// Every place the workspace writes `key` as a taint's or a toleration's key, by file.
async fn places(
    session: &Session,
    doc: &DocumentRequest,
    key: &str,
) -> Result<Vec<FileEdits>, Unanswered> {
    let ws = doc.ws.clone();
    let encoding = doc.encoding;
    let inventory: HashSet<PathBuf> = ws
        .inventory
        .files()
        .iter()
        .map(|f| f.path.clone())
        .collect();
    let is_inventory = |uri: &Uri| {
        uri.to_file_path()
            .is_some_and(|p| inventory.contains(p.as_ref() as &Path))
    };
    let mut out: BTreeMap<String, FileEdits> = BTreeMap::new();
    // The open documents, as edited.
    let open = session.open_uris();
    for (uri, snap, facts) in session.facts(open.clone()).await? {
        let lines = snap.lines(encoding);
        let ranges: Vec<Range<usize>> = if is_inventory(&uri) {
            inventory_keys(&snap.text, key)
        } else {
            facts
                .tolerations
                .iter()
                .filter_map(|t| t.key.clone())
                .chain(facts.taints.iter().filter_map(|t| t.key.clone()))
                .filter(|k| &snap.text[k.clone()] == key)
                .collect()
        };
        if !ranges.is_empty() {
            out.insert(
                uri.as_str().to_string(),
                FileEdits {
                    uri: uri.clone(),
                    version: Some(snap.version),
                    ranges: ranges.into_iter().map(|r| lines.range(r)).collect(),
                },
            );
        }
    }
    // The workspace's other manifests, as last read from disk.
    {
        let state = session.lock();
        for (_, uri, file) in state.index.entries() {
            if open.binary_search(uri).is_ok() || is_inventory(uri) {
                continue;
            }
            // Every key written so, whether or not its toleration or taint is valid.
            let mut ranges: Vec<lsp::Range> = file
                .keys
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, r)| *r)
                .collect();
            if ranges.is_empty() {
                continue;
            }
            ranges.sort_by_key(|r| (r.start.line, r.start.character));
            out.insert(
                uri.as_str().to_string(),
                FileEdits {
                    uri: uri.clone(),
                    version: None,
                    ranges,
                },
            );
        }
    }
    // The inventory files that are not open, from disk.
    let closed: Vec<PathBuf> = inventory
        .into_iter()
        .filter(|p| Uri::from_file_path(p).is_none_or(|u| open.binary_search(&u).is_err()))
        .collect();
    let key = key.to_string();
    let read = blocking("reading the inventory files", move || {
        closed
            .into_iter()
            .filter_map(|path| {
                // Where the lines start is known for a file as read (a node list of
                // thousands of nodes is not indexed again for each rename).
                let text = std::fs::read_to_string(&path).ok()?;
                let found = inventory_keys(&text, &key);
                if found.is_empty() {
                    return None;
                }
                let positions = ws
                    .inventory
                    .positions_on_disk(&path)
                    .filter(|p| p.len() == text.len());
                let ranges = match positions {
                    Some(p) => found.into_iter().map(|r| p.range(r, encoding)).collect(),
                    None => {
                        let index = LineIndex::new(&text);
                        let lines = Lines::new(&text, &index, encoding);
                        found.into_iter().map(|r| lines.range(r)).collect()
                    }
                };
                Some(FileEdits {
                    uri: Uri::from_file_path(&path)?,
                    version: None,
                    ranges,
                })
            })
            .collect::<Vec<_>>()
    })
    .await?;
    for f in read {
        out.insert(f.uri.as_str().to_string(), f);
    }
    Ok(out.into_values().collect())
}

fn workspace_edit(files: Vec<FileEdits>, new: &str, document_changes: bool) -> WorkspaceEdit {
    let edits_of = |ranges: Vec<lsp::Range>| {
        ranges
            .into_iter()
            .map(|r| TextEdit::new(r, new.to_string()))
    };
    if !document_changes {
        let changes: HashMap<Uri, Vec<TextEdit>> = files
            .into_iter()
            .map(|f| (f.uri, edits_of(f.ranges).collect()))
            .collect();
        return WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        };
    }
    let edits = files
        .into_iter()
        .map(|f| TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier {
                uri: f.uri,
                version: f.version,
            },
            edits: edits_of(f.ranges).map(OneOf::Left).collect(),
        })
        .collect();
    WorkspaceEdit {
        document_changes: Some(DocumentChanges::Edits(edits)),
        ..Default::default()
    }
}
