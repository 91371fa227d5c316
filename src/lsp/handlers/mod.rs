//! One file per request (`requests/`) and per notification (`notifications/`), as ruff's
//! server keeps them (`crates/ruff_server/src/server/api/requests/*.rs` of astral-sh/ruff); the
//! dispatch table is the `LanguageServer` implementation in [`crate::lsp::server`].
//!
//! A request about one document starts from the shared preamble here, [`DocumentRequest`]:
//! the document's snapshot, the workspace and the encoding, taken together under one lock.
//! What a request answers when it has nothing to say is decided here once, by [`reply`]:
//! `null` when the document is not open (or the text moved on while it was being read), and
//! when there is no inventory, an empty list for a request that answers with a list
//! (lenses, hints) and `null` for one that answers with one thing (definition, placement).

pub(crate) mod notifications;
pub(crate) mod requests;

use std::sync::Arc;

use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::{Position, Uri};

use crate::inventory::Inventory;
use crate::lsp::convert::Lines;
use crate::lsp::documents::Snapshot;
use crate::lsp::facts::Facts;
use crate::lsp::session::{Analysis, Session};
use crate::lsp::workspace::Workspace;
use crate::position::Encoding;

/// Why a request about a document has no answer beyond its empty one.
pub(crate) enum Unanswered {
    /// The document is not open (or changed while its facts were read).
    NotOpen,
    /// The request is about the cluster and the workspace has no inventory.
    NoInventory,
    /// A real failure, answered as a JSON-RPC error.
    Failed(jsonrpc::Error),
}

impl From<jsonrpc::Error> for Unanswered {
    fn from(e: jsonrpc::Error) -> Self {
        Unanswered::Failed(e)
    }
}

/// What a handler finds: `Ok(None)` when there is nothing at the place asked about.
pub(crate) type Answer<T> = Result<Option<T>, Unanswered>;

/// What a request answers without an inventory: `null`, or an empty list for lists.
pub(crate) trait Reply: Sized {
    fn without_inventory() -> Option<Self> {
        None
    }
}

impl<T> Reply for Vec<T> {
    fn without_inventory() -> Option<Self> {
        Some(Vec::new())
    }
}

/// The one place an answer becomes the client's.
pub(crate) fn reply<T: Reply>(answer: Answer<T>) -> jsonrpc::Result<Option<T>> {
    match answer {
        Ok(found) => Ok(found),
        Err(Unanswered::NotOpen) => Ok(None),
        Err(Unanswered::NoInventory) => Ok(T::without_inventory()),
        Err(Unanswered::Failed(e)) => Err(e),
    }
}

/// The shared preamble of a request about one open document.
pub(crate) struct DocumentRequest {
    pub uri: Uri,
    pub snap: Snapshot,
    pub ws: Arc<Workspace>,
    pub encoding: Encoding,
}

impl DocumentRequest {
    /// The document as it is now, or [`Unanswered::NotOpen`].
    pub fn open(session: &Session, uri: &Uri) -> Result<DocumentRequest, Unanswered> {
        let (snap, ws, encoding) = session.snapshot(uri).ok_or(Unanswered::NotOpen)?;
        Ok(DocumentRequest {
            uri: uri.clone(),
            snap,
            ws,
            encoding,
        })
    }

    /// The workspace's inventory, or [`Unanswered::NoInventory`].
    pub fn cluster(&self) -> Result<Arc<Inventory>, Unanswered> {
        self.ws.cluster.clone().ok_or(Unanswered::NoInventory)
    }

    pub fn lines(&self) -> Lines<'_> {
        self.snap.lines(self.encoding)
    }

    /// The byte offset of a position in the client's encoding.
    pub fn offset(&self, position: Position) -> usize {
        self.lines().offset(position)
    }

    /// The document's analysis for this snapshot (cached, or made now).
    pub async fn analysis(&self, session: &Session) -> Result<Arc<Analysis>, Unanswered> {
        Ok(session
            .analysis(&self.uri, &self.snap, &self.ws, self.encoding)
            .await?)
    }

    /// What the document says (its tolerations and taints) for this snapshot, or
    /// [`Unanswered::NotOpen`] when the text moved on.
    pub async fn facts(&self, session: &Session) -> Result<Arc<Facts>, Unanswered> {
        let facts = session.facts(vec![self.uri.clone()]).await?;
        facts
            .into_iter()
            .find(|(_, s, _)| s.version == self.snap.version)
            .map(|(_, _, f)| f)
            .ok_or(Unanswered::NotOpen)
    }
}
