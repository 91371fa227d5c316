//! Cluster API kubeadm bootstrap as node pools: `KubeadmConfigTemplate` and `KubeadmConfig`
//! (`bootstrap.cluster.x-k8s.io`) and `KubeadmControlPlane` (`controlplane.cluster.x-k8s.io`),
//! v1beta1 (`kubeletExtraArgs` a map) and v1beta2 (a list of `{name, value}`).
//!
//! Where (kubernetes-sigs/cluster-api `api/bootstrap/kubeadm/v1beta2/kubeadm_types.go`,
//! `api/controlplane/kubeadm/v1beta2/kubeadm_control_plane_types.go`): a template's
//! `spec.template.spec.joinConfiguration.nodeRegistration` (workers), a control plane's
//! `spec.kubeadmConfigSpec.initConfiguration.nodeRegistration` (its first machine) and
//! `...joinConfiguration.nodeRegistration` (the others): both control planes, so their taints
//! default to the control-plane taint (see [`kubeadm`](super::kubeadm)), and the pool has the
//! taints of either. Cluster API adds `node.cluster.x-k8s.io/uninitialized:NoSchedule` to every
//! worker's join and removes it once the Node is linked to its Machine
//! (`bootstrap/kubeadm/internal/controllers/kubeadmconfig_controller.go` `joinWorker`;
//! `api/core/v1beta2/common_types.go` `NodeUninitializedTaint`): a startup taint. The control
//! plane's size is `spec.replicas`; a template's is its MachineDeployment's (not read: unknown).
//! Of `spec.machineTemplate.metadata.labels`, only the domains Cluster API syncs reach the Node;
//! a control plane's `spec.machineTemplate.spec.taints` (v1beta2) are its Nodes' taints beside
//! the kubeadm ones.

use super::kubeadm::{registration, Registration};
use super::machines::is_synced_by_capi;
use super::nodes::{labels, scalar_text};
use super::{Count, Defined, Loc, PoolTaint, RawNode};
use crate::k8s::decode::decode;
use crate::k8s::model::{Effect, Taint};
use crate::k8s::objects::{pool_taint_paths, taint_list_at};
use crate::syntax::{Document, NodeId};

pub(crate) const UNINITIALIZED: &str = "node.cluster.x-k8s.io/uninitialized";

/// Whether a document is a KubeadmConfigTemplate, KubeadmConfig or KubeadmControlPlane.
pub(crate) fn is_capi_bootstrap(doc: &Document<'_>, root: NodeId) -> bool {
    let api = doc.get_str(root, "apiVersion").unwrap_or_default();
    match doc.get_str(root, "kind") {
        Some("KubeadmConfigTemplate" | "KubeadmConfig") => {
            api.starts_with("bootstrap.cluster.x-k8s.io/")
        }
        Some("KubeadmControlPlane") => api.starts_with("controlplane.cluster.x-k8s.io/"),
        _ => false,
    }
}

/// Reads one bootstrap object (`is_capi_bootstrap` holds) into the pool of machines it makes.
pub(crate) fn read<'a>(
    file: usize,
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    index: usize,
) -> Defined {
    let kind = doc.get_str(root, "kind").unwrap_or_default().to_string();
    let at = doc.node(root).span.clone();
    let name = doc
        .get(root, "metadata")
        .and_then(|(_, m)| doc.get_str(m, "name"))
        .filter(|n| !n.is_empty())
        .unwrap_or(&kind)
        .to_string();
    // (path of the kubeadm config spec, whether its machines are control planes)
    let control_plane = kind == "KubeadmControlPlane";
    let spec: &[&str] = match kind.as_str() {
        "KubeadmControlPlane" => &["spec", "kubeadmConfigSpec"],
        "KubeadmConfigTemplate" => &["spec", "template", "spec"],
        _ => &["spec"],
    };
    let (regs, worker) = registrations(text, doc, root, spec, control_plane, &at);
    let Merged {
        mut taints,
        mut node_labels,
        lists,
        mut invalid,
    } = merge(file, doc, regs);
    // A control plane's machine taints (Cluster API v1.12, `MachineTaint`) are the Node's too.
    let api = doc.get_str(root, "apiVersion");
    for field in pool_taint_paths(api, &kind).unwrap_or_default() {
        if let Some(list) = taint_list_at(doc, root, "", field.path, None) {
            let (found, left_out) = super::nodes::taints(file, doc, &list);
            invalid += left_out;
            add_new(&mut taints, found);
        }
    }
    if let Some(v) = doc.get_path(root, &["spec", "machineTemplate", "metadata", "labels"]) {
        node_labels.extend(
            labels(doc, v, "spec.machineTemplate.metadata.labels")
                .unwrap_or_default()
                .into_iter()
                .filter(|(k, _)| is_synced_by_capi(k)),
        );
    }
    let count = replicas(doc, root);
    let pool_kind: &'static str = match kind.as_str() {
        "KubeadmControlPlane" => "kubeadmcontrolplane",
        "KubeadmConfigTemplate" => "kubeadmconfigtemplate",
        _ => "kubeadmconfig",
    };
    let loc = Loc {
        file,
        range: at.clone(),
    };
    let template = (kind == "KubeadmConfigTemplate").then(|| name.clone());
    let mut node = RawNode::defined(name, pool_kind, loc, (file, index), count);
    node.bootstrap = template.map(super::Bootstrap::Template);
    node.labels = node_labels;
    node.taints = taints;
    if worker {
        if let Some(d) = node.declared.as_mut() {
            d.startup_taints.push(PoolTaint {
                taint: Taint {
                    key: UNINITIALIZED.to_string(),
                    value: String::new(),
                    effect: Effect::NoSchedule,
                },
                at: Loc { file, range: at },
            });
        }
    }
    Defined {
        nodes: vec![node],
        lists,
        invalid,
    }
}

/// The kubeadm configurations the machines are made from (`initConfiguration`,
/// `joinConfiguration`) with what their `nodeRegistration` says, and whether any machine is a
/// worker (a join without `controlPlane`, outside a control plane). A control plane written
/// with neither configuration (only `clusterConfiguration`, say) gets one with an empty
/// nodeRegistration: Cluster API makes both so, and kubeadm gives its Nodes the default
/// control-plane taint (controlplane/kubeadm/internal/controllers/controller.go initializes
/// `InitConfiguration`/`JoinConfiguration` when nil).
fn registrations<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    spec: &[&str],
    control_plane: bool,
    at: &std::ops::Range<usize>,
) -> (Vec<Registration>, bool) {
    let object = Some(0);
    let mut regs: Vec<Registration> = Vec::new();
    let mut worker = false;
    for config in ["initConfiguration", "joinConfiguration"] {
        let mut segments = spec.to_vec();
        segments.push(config);
        let Some(cfg) = doc.get_path(root, &segments) else {
            continue;
        };
        let cfg_key = doc
            .get_path(root, &segments[..segments.len() - 1])
            .and_then(|parent| doc.get(parent, config))
            .map_or(at.clone(), |(k, _)| doc.node(k).span.clone());
        let cp = control_plane
            || config == "initConfiguration"
            || doc.get(cfg, "controlPlane").is_some();
        worker |= !cp;
        let nr = doc.get(cfg, "nodeRegistration").map(|(_, v)| v);
        let path = format!("{}.{config}.nodeRegistration", spec.join("."));
        regs.push(registration(text, doc, nr, &path, cp, object, cfg_key));
    }
    // A control plane written with neither configuration.
    if control_plane && regs.is_empty() {
        let spec_key = doc
            .get(root, "spec")
            .and_then(|(_, s)| doc.get(s, "kubeadmConfigSpec"))
            .map_or(at.clone(), |(k, _)| doc.node(k).span.clone());
        let path = format!("{}.initConfiguration.nodeRegistration", spec.join("."));
        regs.push(registration(text, doc, None, &path, true, object, spec_key));
    }
    (regs, worker)
}

/// What the registrations say together.
struct Merged {
    taints: Vec<PoolTaint>,
    node_labels: Vec<(String, String)>,
    lists: Vec<crate::k8s::objects::List>,
    invalid: usize,
}

/// The registrations' taints (one per key and effect, the first written wins), labels (the
/// first of a key wins), taint lists, and how many taints were left out as invalid.
fn merge(file: usize, doc: &Document<'_>, regs: Vec<Registration>) -> Merged {
    let mut lists = Vec::new();
    let mut taints: Vec<PoolTaint> = Vec::new();
    let mut node_labels = Vec::new();
    let mut invalid = 0;
    for reg in regs {
        let (found, left_out) = reg.taints(file, doc);
        invalid += left_out;
        add_new(&mut taints, found);
        for l in reg.labels {
            if !node_labels
                .iter()
                .any(|(k, _): &(String, String)| *k == l.0)
            {
                node_labels.push(l);
            }
        }
        lists.extend(reg.lists);
    }
    Merged {
        taints,
        node_labels,
        lists,
        invalid,
    }
}

/// The control plane's `spec.replicas` as its size (a template's is its MachineDeployment's,
/// not read here: unknown).
fn replicas(doc: &Document<'_>, root: NodeId) -> Count {
    let replicas =
        doc.get_path(root, &["spec", "replicas"])
            .and_then(|v| match decode(doc, v).as_int64() {
                Ok(Some(n)) => u64::try_from(n).ok(),
                _ => scalar_text(doc, v).and_then(|s| s.parse().ok()),
            });
    Count {
        min: replicas,
        max: replicas,
    }
}

/// Adds the taints whose key and effect the pool does not have yet (a Node has one taint per
/// key and effect; the first written wins).
fn add_new(taints: &mut Vec<PoolTaint>, found: Vec<PoolTaint>) {
    for t in found {
        if !taints
            .iter()
            .any(|o| o.taint.key == t.taint.key && o.taint.effect == t.taint.effect)
        {
            taints.push(t);
        }
    }
}
