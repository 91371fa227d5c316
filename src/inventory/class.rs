//! What a file, and each YAML document of it, is, decided here and asked here by every reader:
//! inventory loading, the analysis (lint, simulate) and the language server.
//!
//! A file is Terraform (HCL: its first statement opens a block or sets an attribute), JSON (its
//! first character opens an object: `kubectl get nodes -o json`), or YAML; only YAML and JSON
//! have a YAML tree ([`crate::syntax::parse`]). A YAML document is a pool file (a mapping with
//! `pools` and no `kind`, [`super::compact`]), or a document the rules read as manifests, chart
//! values or patches.

use crate::syntax::{Document, NodeId};

use super::{json, terraform};

/// What a file's text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// Terraform's HCL: read by its own parser, with no YAML tree.
    Hcl,
    /// A JSON object (a node list as `kubectl get nodes -o json` writes it): YAML too.
    Json,
    Yaml,
}

impl Text {
    /// Whether it has a YAML tree ([`crate::syntax::parse`]): all but HCL.
    pub fn is_parsed(self) -> bool {
        self != Text::Hcl
    }
}

/// What `text` is.
pub fn text(text: &str) -> Text {
    if terraform::looks_like_hcl(text) {
        Text::Hcl
    } else if json::looks_like_json(text) {
        Text::Json
    } else {
        Text::Yaml
    }
}

/// The root of a document that is a pool file: a mapping with `pools` and no `kind`.
pub fn pool_file(doc: &Document<'_>) -> Option<NodeId> {
    doc.root.filter(|&root| is_pool_file(doc, root))
}

/// Whether the mapping at `root` is a pool file's.
pub(crate) fn is_pool_file(doc: &Document<'_>, root: NodeId) -> bool {
    doc.get(root, "pools").is_some() && doc.get(root, "kind").is_none()
}
