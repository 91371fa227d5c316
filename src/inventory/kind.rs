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
//! Not read: taints in `kubeadmConfigPatchesJSON6902`, and patches are not linted (their taints
//! are inside YAML inside a string; they point at the patch as a whole).

use std::ops::Range;

use super::kubeadm::{pool, registration, CONTROL_PLANE};
use super::nodes::{labels, scalar_text};
use super::{Count, Defined, Loc, PoolTaint, HOSTNAME_LABEL};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::model::{Effect, Taint};
use crate::syntax::{self, Document, NodeId};

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

/// Reads a kind Cluster config (`is_kind` holds): one pool per node.
pub(crate) fn read(file: usize, doc: &Document<'_>, root: NodeId, index: usize) -> Defined {
    let mut out = Defined::default();
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
            None if control_plane && !single => vec![PoolTaint {
                taint: Taint {
                    key: CONTROL_PLANE.to_string(),
                    value: String::new(),
                    effect: Effect::NoSchedule,
                },
                at: Loc {
                    file,
                    range: at.clone(),
                },
            }],
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
        let mut node = pool(
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
