//! What every object that declares a node pool (a Karpenter NodePool or Provisioner, a machine
//! set) is read by: its place, its name (required), its fields by path, and its taints where
//! [`pool_taint_paths`] says its kind keeps them.

use super::nodes::taints;
use super::{Loc, ParseError, PoolTaint};
use crate::k8s::objects::{pool_taint_paths, taint_list_at};
use crate::syntax::{Document, NodeId};

pub(crate) struct PoolObject<'d, 'a> {
    pub doc: &'d Document<'a>,
    pub root: NodeId,
    pub file: usize,
    pub api: Option<&'d str>,
    pub kind: &'d str,
    /// The whole object.
    pub at: Loc,
    /// `metadata.name`.
    pub name: String,
}

/// A pool's taints, its startup taints, and how many were left out as invalid.
pub(crate) struct Taints {
    pub taints: Vec<PoolTaint>,
    pub startup: Vec<PoolTaint>,
    pub invalid: usize,
}

impl<'d, 'a> PoolObject<'d, 'a> {
    /// Reads the object at `root`; one without a `metadata.name` is an error at its place.
    pub fn read(file: usize, doc: &'d Document<'a>, root: NodeId) -> Result<Self, ParseError> {
        let api = doc.get_str(root, "apiVersion");
        let kind = doc.get_str(root, "kind").unwrap_or_default();
        let at = Loc {
            file,
            range: doc.node(root).span.clone(),
        };
        let name = doc
            .get(root, "metadata")
            .and_then(|(_, m)| doc.get_str(m, "name"))
            .filter(|n| !n.is_empty())
            .ok_or_else(|| {
                ParseError::at(at.range.start, format!("a {kind} without metadata.name"))
            })?
            .to_string();
        Ok(PoolObject {
            doc,
            root,
            file,
            api,
            kind,
            at,
            name,
        })
    }

    /// The value at a path of mapping keys from the object's root.
    pub fn at_path(&self, segments: &[&str]) -> Option<NodeId> {
        self.doc.get_path(self.root, segments)
    }

    /// Its taints, startup taints apart.
    pub fn taints(&self) -> Taints {
        let mut out = Taints {
            taints: Vec::new(),
            startup: Vec::new(),
            invalid: 0,
        };
        for field in pool_taint_paths(self.api, self.kind).unwrap_or_default() {
            if let Some(list) = taint_list_at(self.doc, self.root, "", field.path, None) {
                let (found, left_out) = taints(self.file, self.doc, &list);
                out.invalid += left_out;
                if field.startup {
                    out.startup.extend(found);
                } else {
                    out.taints.extend(found);
                }
            }
        }
        out
    }
}
