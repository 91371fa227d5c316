//! A JSON6902 operation list's `value`s, checked as the tolerations or taints they write (see
//! [`crate::k8s::json6902`]). A `value` that is one item of a list is read as a list of that one
//! item; findings name the field as the API server would in the patched object
//! (`spec.template.spec.tolerations[2].operator`, `[-]` for an item the patch appends).

use std::borrow::Cow;

use crate::config::Options;
use crate::diagnostic::Diagnostic;
use crate::k8s::json6902::{list_op, ListOp, PatchTarget, Written};
use crate::k8s::objects::{List, Object, Owner, TolerationList};
use crate::rules::check_lists;
use crate::syntax::{Document, Node, NodeId, NodeKind, Style};

/// The list values of an operation list, with the nodes added to read them.
pub(super) struct Patch {
    /// Each operation that writes a list: what it writes, the list node (the value, or a
    /// sequence of the one item added around it) and the `value` key.
    ops: Vec<(ListOp, NodeId, NodeId)>,
    /// A mapping added to stand for the patched object (`apiVersion`, `kind`, `name`,
    /// `namespace`), when the patch's target is known.
    object: Option<NodeId>,
}

/// Reads a document that is a JSON6902 operation list (its root, `root`: see
/// [`crate::class::patch`]), adding the nodes its items need; `None` for a list that writes no
/// tolerations or taints.
pub(super) fn prepare(
    doc: &mut Document<'_>,
    root: NodeId,
    target: Option<&PatchTarget>,
) -> Option<Patch> {
    let mut found = Vec::new();
    for &item in doc.sequence(root).unwrap_or_default() {
        let (Some(op), Some(path)) = (doc.get_str(item, "op"), doc.get_str(item, "path")) else {
            continue;
        };
        let Some(op) = list_op(op, path) else {
            continue;
        };
        if let Some((key, value)) = doc.get(item, "value") {
            found.push((op, key, value));
        }
    }
    if found.is_empty() {
        return None;
    }
    let mut ops = Vec::new();
    for (op, key, value) in found {
        let list = match op.written {
            Written::List => value,
            Written::Item(_) => {
                let span = doc.node(value).span.clone();
                doc.add_node(Node {
                    span,
                    tag: None,
                    kind: NodeKind::Sequence {
                        items: vec![value],
                        flow: true,
                    },
                })
            }
        };
        ops.push((op, list, key));
    }
    let object = target.map(|t| {
        let span = doc.node(root).span.start..doc.node(root).span.start;
        let mut entries = Vec::new();
        let fields = [
            ("apiVersion", t.api_version()),
            ("kind", t.kind.clone()),
            ("name", t.name.clone()),
            ("namespace", t.namespace.clone()),
        ];
        for (key, value) in fields {
            let Some(value) = value else { continue };
            let mut scalar = |s: String| {
                doc.add_node(Node {
                    span: span.clone(),
                    tag: None,
                    kind: NodeKind::Scalar {
                        value: Cow::Owned(s),
                        style: Style::Plain,
                    },
                })
            };
            let k = scalar(key.to_string());
            let v = scalar(value);
            entries.push((k, v));
        }
        doc.add_node(Node {
            span: span.clone(),
            tag: None,
            kind: NodeKind::Mapping {
                entries,
                flow: true,
            },
        })
    });
    Some(Patch { ops, object })
}

/// Runs the list rules over each list an operation writes.
pub(super) fn check(
    text: &str,
    doc: &Document<'_>,
    options: &Options,
    patch: &Patch,
    out: &mut Vec<Diagnostic>,
) {
    let objects: Vec<Object<'_>> = patch
        .object
        .map(|node| Object {
            kind: doc.get_str(node, "kind"),
            name: doc.get_str(node, "name"),
            namespace: doc.get_str(node, "namespace"),
            node,
            path: String::new(),
            item: None,
            installer: None,
        })
        .into_iter()
        .collect();
    for (op, node, key) in &patch.ops {
        let list = List {
            node: *node,
            key: *key,
            path: op.list_path.clone(),
            object: patch.object.map(|_| 0),
            whole: false,
        };
        let first = out.len();
        if op.tolerations() {
            let lists = [TolerationList {
                list,
                owner: Owner::Other,
            }];
            check_lists(text, doc, options, &objects, &lists, &[], out);
        } else {
            check_lists(text, doc, options, &objects, &[], &[list], out);
        }
        if let Written::Item(index) = &op.written {
            let read = format!("{}[0]", op.list_path);
            let written = format!("{}[{index}]", op.list_path);
            for d in &mut out[first..] {
                for p in [d.path.as_mut(), d.server_message.as_mut()]
                    .into_iter()
                    .flatten()
                {
                    if p.contains(&read) {
                        *p = p.replacen(&read, &written, 1);
                    }
                }
            }
        }
    }
}
