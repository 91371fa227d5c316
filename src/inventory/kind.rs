//! kind cluster configs (`kind.x-k8s.io/v1alpha4` `Cluster`): every entry of `nodes` is a node.
//!
//! Where (kubernetes-sigs/kind `pkg/apis/config/v1alpha4/types.go`): `name` (default `kind`),
//! `nodes[]{role, labels, kubeadmConfigPatches}` (no `nodes`: one control plane), and
//! `kubeadmConfigPatches` for every node. Nodes are named `<cluster>-control-plane`,
//! `<cluster>-worker`, `<cluster>-worker2`, ... (`pkg/cluster/internal/providers/common/namer.go`);
//! `labels` become the kubelet's `--node-labels`. kind lets kubeadm taint its control planes
//! (the first joins with an InitConfiguration, the others with a JoinConfiguration with
//! `controlPlane`; see [`kubeadm`](super::kubeadm)), and removes the taint when the cluster is
//! one node (`pkg/cluster/internal/create/actions/kubeadminit/init.go`). Taints set through a
//! patch (`nodeRegistration.taints`, or `register-with-taints` in `kubeletExtraArgs`, as kind's
//! configuration guide shows) are read from the patch: an InitConfiguration patch applies to the
//! first control plane, a JoinConfiguration patch to the other nodes.
//!
//! A patch written as a literal block scalar (`- |`, as kind's documentation writes them) is
//! linted too: its taint lists are copied into the config's tree with their places in the file,
//! so the taint rules point inside the patch. Not read: `kubeadmConfigPatchesJSON6902`; patches
//! in other scalar styles are read but not linted.

use std::ops::Range;

use std::borrow::Cow;

use super::kubeadm::{control_plane_taint, registration, CONTROL_PLANE};
use super::kubelet_flags::{self, extra_arg, Arg};
use super::nodes::{labels, scalar_text};
use super::{Count, Defined, Loc, PoolTaint, RawNode, HOSTNAME_LABEL};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::List;
use crate::syntax::{self, Document, Node, NodeId, NodeKind, Style};

/// Whether a document is a kind Cluster config.
pub(crate) fn is_kind(doc: &Document<'_>, root: NodeId) -> bool {
    doc.get_str(root, "kind") == Some("Cluster")
        && doc
            .get_str(root, "apiVersion")
            .is_some_and(|a| a.starts_with("kind.x-k8s.io/"))
}

/// The patch strings of a `kubeadmConfigPatches` field, with their places.
fn patches(doc: &Document<'_>, parent: NodeId) -> Vec<(String, Range<usize>)> {
    doc.get(parent, "kubeadmConfigPatches")
        .and_then(|(_, v)| doc.sequence(v))
        .unwrap_or_default()
        .iter()
        .filter_map(|&p| match decode(doc, p) {
            Decoded::Str(s) => Some((s.to_string(), doc.node(p).span.clone())),
            _ => None,
        })
        .collect()
}

/// What the patches give one node: `Some(taints)` when a patch sets them (the last wins), the
/// labels they add, and how many taints were left out as invalid.
struct Patched {
    taints: Option<Vec<PoolTaint>>,
    labels: Vec<(String, String)>,
    invalid: usize,
}

fn apply(
    file: usize,
    patches: &[(String, Range<usize>)],
    init: bool,
    control_plane: bool,
) -> Patched {
    let mut out = Patched {
        taints: None,
        labels: Vec::new(),
        invalid: 0,
    };
    let wanted = if init {
        "InitConfiguration"
    } else {
        "JoinConfiguration"
    };
    for (text, at) in patches {
        let mut stream = syntax::parse(text);
        for doc in stream.documents.iter_mut() {
            let Some(root) = doc.root.filter(|&r| doc.mapping(r).is_some()) else {
                continue;
            };
            if doc.get_str(root, "kind") != Some(wanted) {
                continue;
            }
            let Some((_, nr)) = doc.get(root, "nodeRegistration") else {
                continue;
            };
            let written = doc.get(nr, "taints").is_some();
            let has_flag = doc
                .get(nr, "kubeletExtraArgs")
                .and_then(|(_, a)| {
                    super::kubelet_flags::extra_arg(doc, a, "", "register-with-taints")
                })
                .is_some();
            let reg = registration(text, doc, Some(nr), "", control_plane, None, 0..0);
            out.labels.extend(reg.labels.iter().cloned());
            if written || has_flag {
                let (found, invalid) = reg.taints(file, doc);
                out.invalid += invalid;
                out.taints = Some(
                    found
                        .into_iter()
                        .map(|t| PoolTaint {
                            taint: t.taint,
                            at: Loc {
                                file,
                                range: at.clone(),
                            },
                        })
                        .collect(),
                );
            }
        }
    }
    out
}

/// Where each line of a literal block scalar's value is in the text: (offset in the value,
/// offset in the text) of every line's start; `None` when the scalar is not a literal block or
/// its lines are not found where expected.
fn block_lines(text: &str, doc: &Document<'_>, scalar: NodeId) -> Option<Vec<(usize, usize)>> {
    let node = doc.node(scalar);
    let NodeKind::Scalar {
        value,
        style: Style::Literal,
    } = &node.kind
    else {
        return None;
    };
    let source = text.get(node.span.clone())?;
    // The block's lines start after the header line (`|`, `|-`, `|2`), when the span has it,
    // else at the start of the line the span starts on.
    let body_start = if source.starts_with('|') {
        node.span.start + source.find('\n')? + 1
    } else {
        text.get(..node.span.start)?
            .rfind('\n')
            .map_or(0, |i| i + 1)
    };
    let body = text.get(body_start..node.span.end.max(body_start))?;
    let indent = body
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())?;
    let mut out = Vec::new();
    let mut src = body_start;
    let mut at = 0;
    for line in value.split_inclusive('\n') {
        let content = line.trim_end_matches('\n');
        let src_line = text.get(src..)?.split_inclusive('\n').next()?;
        if !content.is_empty() && text.get(src + indent..src + indent + content.len())? != content {
            return None;
        }
        out.push((at, src + indent.min(src_line.trim_end_matches('\n').len())));
        at += line.len();
        src += src_line.len();
    }
    Some(out)
}

/// Copies the subtree at `id` of a patch's document into the config's, placing each node
/// where its characters are in the text (`lines` from [`block_lines`]).
fn copy<'a>(
    from: &Document<'_>,
    id: NodeId,
    into: &mut Document<'a>,
    lines: &[(usize, usize)],
    depth: usize,
) -> Option<NodeId> {
    if depth > 32 {
        return None;
    }
    let at = |o: usize| {
        let i = lines.partition_point(|&(v, _)| v <= o).saturating_sub(1);
        let (v, s) = lines.get(i).copied().unwrap_or((0, 0));
        s + (o - v)
    };
    let id = from.resolve(id);
    let node = from.node(id);
    let span = at(node.span.start)..at(node.span.end.max(node.span.start));
    let kind = match &node.kind {
        NodeKind::Scalar { value, style } => NodeKind::Scalar {
            value: Cow::Owned(value.to_string()),
            style: *style,
        },
        NodeKind::Sequence { items, flow } => NodeKind::Sequence {
            items: items
                .iter()
                .map(|&i| copy(from, i, into, lines, depth + 1))
                .collect::<Option<Vec<_>>>()?,
            flow: *flow,
        },
        NodeKind::Mapping { entries, flow } => NodeKind::Mapping {
            entries: entries
                .iter()
                .map(|&(k, v)| {
                    Some((
                        copy(from, k, into, lines, depth + 1)?,
                        copy(from, v, into, lines, depth + 1)?,
                    ))
                })
                .collect::<Option<Vec<_>>>()?,
            flow: *flow,
        },
        _ => return None,
    };
    Some(into.add_node(Node {
        span,
        tag: node.tag.clone(),
        kind,
    }))
}

/// The taint lists of the literal block patches of a `kubeadmConfigPatches` field, copied into
/// `doc` where they are written, for the rules.
fn patch_lists<'a>(text: &'a str, doc: &mut Document<'a>, parent: NodeId, path: &str) -> Vec<List> {
    let mut out = Vec::new();
    let items: Vec<NodeId> = doc
        .get(parent, "kubeadmConfigPatches")
        .and_then(|(_, v)| doc.sequence(v))
        .map(<[NodeId]>::to_vec)
        .unwrap_or_default();
    for (j, item) in items.into_iter().enumerate() {
        let Some(lines) = block_lines(text, doc, item) else {
            continue;
        };
        let value = match &doc.node(item).kind {
            NodeKind::Scalar { value, .. } => value.to_string(),
            _ => continue,
        };
        let stream = syntax::parse(&value);
        for patch in stream.documents.iter().filter(|d| d.error.is_none()) {
            let Some(root) = patch.root else { continue };
            if !matches!(
                patch.get_str(root, "kind"),
                Some("InitConfiguration" | "JoinConfiguration")
            ) {
                continue;
            }
            let Some((_, nr)) = patch.get(root, "nodeRegistration") else {
                continue;
            };
            let base = format!("{path}.kubeadmConfigPatches[{j}].nodeRegistration");
            if let Some((k, v)) = patch.get(nr, "taints") {
                if let (Some(key), Some(node)) = (
                    copy(patch, k, doc, &lines, 0),
                    copy(patch, v, doc, &lines, 0),
                ) {
                    out.push(List {
                        whole: false,
                        node,
                        key,
                        path: format!("{base}.taints"),
                        object: Some(0),
                    });
                }
            }
            let flag = patch.get(nr, "kubeletExtraArgs").and_then(|(_, a)| {
                extra_arg(
                    patch,
                    a,
                    &format!("{base}.kubeletExtraArgs"),
                    "register-with-taints",
                )
            });
            if let Some(arg) = flag {
                let (Some(key), Some(value)) = (
                    copy(patch, arg.key, doc, &lines, 0),
                    copy(patch, arg.value, doc, &lines, 0),
                ) else {
                    continue;
                };
                let arg = Arg {
                    key,
                    value,
                    path: arg.path,
                };
                out.extend(kubelet_flags::taint_list(text, doc, &arg, Some(0)));
            }
        }
    }
    out
}

/// Reads a kind Cluster config (`is_kind` holds): one pool per node.
pub(crate) fn read<'a>(
    file: usize,
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    index: usize,
) -> Defined {
    let mut out = Defined {
        lists: patch_lists(text, doc, root, ""),
        ..Defined::default()
    };
    let node_items: Vec<NodeId> = doc
        .get(root, "nodes")
        .and_then(|(_, v)| doc.sequence(v))
        .map(<[NodeId]>::to_vec)
        .unwrap_or_default();
    for (i, n) in node_items.into_iter().enumerate() {
        let lists = patch_lists(text, doc, n, &format!("nodes[{i}]"));
        out.lists.extend(lists);
    }
    let doc = &*doc;
    let cluster = doc
        .get(root, "name")
        .and_then(|(_, v)| scalar_text(doc, v))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "kind".to_string());
    let shared = patches(doc, root);
    let entries: Vec<Option<NodeId>> =
        match doc.get(root, "nodes").and_then(|(_, v)| doc.sequence(v)) {
            Some(items) => items.iter().map(|&n| Some(n)).collect(),
            None => vec![None],
        };
    let single = entries.len() == 1;
    let (mut control_planes, mut workers) = (0, 0);
    for (i, entry) in entries.into_iter().enumerate() {
        let role = entry
            .and_then(|n| doc.get_str(n, "role"))
            .unwrap_or("control-plane");
        let control_plane = role != "worker";
        let (n, base) = if control_plane {
            control_planes += 1;
            (control_planes, "control-plane")
        } else {
            workers += 1;
            (workers, "worker")
        };
        let name = if n == 1 {
            format!("{cluster}-{base}")
        } else {
            format!("{cluster}-{base}{n}")
        };
        let init = control_plane && control_planes == 1;
        let mut node_patches = shared.clone();
        if let Some(e) = entry {
            node_patches.extend(patches(doc, e));
        }
        let patched = apply(file, &node_patches, init, control_plane);
        out.invalid += patched.invalid;
        let at = entry.map_or(doc.node(root).span.clone(), |e| doc.node(e).span.clone());
        let taints = match patched.taints {
            Some(t) => t,
            None if control_plane && !single => vec![control_plane_taint(file, at.clone())],
            None => Vec::new(),
        };
        let mut node_labels = entry
            .and_then(|e| doc.get(e, "labels"))
            .and_then(|(_, v)| labels(doc, v, &format!("nodes[{i}].labels")).ok())
            .unwrap_or_default();
        for l in patched.labels {
            if !node_labels.iter().any(|(k, _)| *k == l.0) {
                node_labels.push(l);
            }
        }
        if control_plane && !node_labels.iter().any(|(k, _)| k == CONTROL_PLANE) {
            node_labels.push((CONTROL_PLANE.to_string(), String::new()));
        }
        node_labels.push((HOSTNAME_LABEL.to_string(), name.clone()));
        let one = Count {
            min: Some(1),
            max: Some(1),
        };
        let mut node = RawNode::defined(
            name.clone(),
            "kind-node",
            Loc { file, range: at },
            (file, (index << 16) + i),
            one,
        );
        node.name = name;
        node.labels = node_labels;
        node.taints = taints;
        out.nodes.push(node);
    }
    out
}
