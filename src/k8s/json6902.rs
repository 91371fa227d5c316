//! JSON6902 patches (RFC 6902 JSON Patch) as kustomize applies them: a list of operations
//! (`op`, `path`, `value`), in a patch file or inline, aimed at an object by a `target`
//! (kubernetes-sigs/kustomize api/types/patch.go `Patch`, api/types/selector.go `Selector`;
//! api/filters/patchjson6902/patchjson6902.go decodes the operations with
//! evanphx/json-patch). An `add` or `replace` whose `path` names a tolerations or taints list,
//! or one item of it, writes that field of the patched object: the API server validates its
//! `value` as it validates the field.

use crate::syntax::{Document, NodeId};

/// The object a patch is applied to, as its kustomization's `target` selects it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatchTarget {
    pub group: Option<String>,
    pub version: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

impl PatchTarget {
    /// A `target:` mapping (`group`, `version`, `kind`, `name`, `namespace`); `None` when it
    /// selects nothing by these fields.
    pub fn read(doc: &Document<'_>, node: NodeId) -> Option<PatchTarget> {
        doc.mapping(node)?;
        let field = |key: &str| {
            doc.get_str(node, key)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let target = PatchTarget {
            group: field("group"),
            version: field("version"),
            kind: field("kind"),
            name: field("name"),
            namespace: field("namespace"),
        };
        (target != PatchTarget::default()).then_some(target)
    }

    /// The target's `apiVersion` (`group/version`, or the core group's `version`); only its
    /// group is known when the target names no version.
    pub fn api_version(&self) -> Option<String> {
        match (&self.group, &self.version) {
            (Some(g), Some(v)) => Some(format!("{g}/{v}")),
            (Some(g), None) => Some(format!("{g}/")),
            (None, Some(v)) => Some(v.clone()),
            (None, None) => None,
        }
    }
}

/// Which field a patch operation writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The whole list (`value` is a list of tolerations or taints).
    List,
    /// One item: its index as the patch writes it (`-` appends).
    Item(String),
}

/// What a JSON6902 operation writes, when it writes a tolerations or taints list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListOp {
    /// `tolerations`, `taints` or `startupTaints`.
    pub field: String,
    /// The list's path in the patched object, in Kubernetes notation
    /// (`spec.template.spec.tolerations`).
    pub list_path: String,
    pub written: Written,
}

impl ListOp {
    /// Whether the list holds tolerations (else taints).
    pub fn tolerations(&self) -> bool {
        self.field == "tolerations"
    }
}

const LIST_FIELDS: &[&str] = &["tolerations", "taints", "startupTaints"];

/// The reference tokens of a JSON pointer (RFC 6901: `~1` is `/`, `~0` is `~`); `None` when it
/// is not one (it must start with `/`).
pub fn pointer(path: &str) -> Option<Vec<String>> {
    let rest = path.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// Pointer tokens as a path in Kubernetes notation: `spec.containers[0].name`.
pub fn kubernetes_path(tokens: &[String]) -> String {
    let mut out = String::new();
    for t in tokens {
        let index = t == "-" || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()));
        let plain = !t.is_empty()
            && t.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'$');
        if index || !plain {
            out.push_str(&format!("[{t}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(t);
        }
    }
    out
}

/// What an `add` or `replace` at `path` writes, when it is a tolerations or taints list
/// (`/spec/template/spec/tolerations`) or one item of one (`.../tolerations/0`,
/// `.../tolerations/-`). Other operations and paths write no such field.
pub fn list_op(op: &str, path: &str) -> Option<ListOp> {
    if !matches!(op, "add" | "replace") {
        return None;
    }
    let tokens = pointer(path)?;
    let (last, parents) = tokens.split_last()?;
    if LIST_FIELDS.contains(&last.as_str()) {
        return Some(ListOp {
            field: last.clone(),
            list_path: kubernetes_path(&tokens),
            written: Written::List,
        });
    }
    let (field, _) = parents.split_last()?;
    let index = last == "-" || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()));
    (index && LIST_FIELDS.contains(&field.as_str())).then(|| ListOp {
        field: field.clone(),
        list_path: kubernetes_path(parents),
        written: Written::Item(last.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_and_item_paths() {
        let op = list_op("add", "/spec/template/spec/tolerations/-").unwrap();
        assert_eq!(op.list_path, "spec.template.spec.tolerations");
        assert_eq!(op.written, Written::Item("-".into()));
        assert!(op.tolerations());
        let op = list_op("replace", "/spec/tolerations/3").unwrap();
        assert_eq!(op.list_path, "spec.tolerations");
        assert_eq!(op.written, Written::Item("3".into()));
        let op = list_op("add", "/spec/template/spec/taints").unwrap();
        assert_eq!(op.list_path, "spec.template.spec.taints");
        assert_eq!(op.written, Written::List);
        assert!(!op.tolerations());
        let op = list_op("add", "/spec/containers/0/tolerations").unwrap();
        assert_eq!(op.list_path, "spec.containers[0].tolerations");
        // Other operations, fields inside an item, other lists, and non-pointers.
        assert_eq!(list_op("remove", "/spec/tolerations/0"), None);
        assert_eq!(list_op("test", "/spec/tolerations"), None);
        assert_eq!(list_op("add", "/spec/tolerations/0/key"), None);
        assert_eq!(list_op("add", "/spec/containers/-"), None);
        assert_eq!(list_op("add", "spec/tolerations"), None);
        assert_eq!(list_op("add", "/spec/tolerations/x"), None);
    }

    #[test]
    fn pointer_escapes_and_kubernetes_notation() {
        let tokens = pointer("/metadata/annotations/a~1b~0c").unwrap();
        assert_eq!(tokens, vec!["metadata", "annotations", "a/b~c"]);
        assert_eq!(kubernetes_path(&tokens), "metadata.annotations[a/b~c]");
        // A name of letters, digits, `_`, `-` and `$` is a field; anything else is a key.
        let tokens = pointer("/spec/node_pool/node-group/$patch/a.b/").unwrap();
        assert_eq!(
            kubernetes_path(&tokens),
            "spec.node_pool.node-group.$patch[a.b][]"
        );
    }
}
