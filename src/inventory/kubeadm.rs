//! kubeadm node configuration as node pools: `InitConfiguration` and `JoinConfiguration`
//! (`kubeadm.k8s.io/v1beta3`, `v1beta4`) and `KubeletConfiguration`
//! (`kubelet.config.k8s.io/v1beta1`) `registerWithTaints`; and [`registration`], which the
//! Cluster API bootstrap templates and kind configs share.
//!
//! What a node registered by kubeadm gets (kubernetes/kubernetes):
//! - `nodeRegistration.taints` left out or `null` on a control plane (an InitConfiguration, or a
//!   JoinConfiguration with `controlPlane`) is the control-plane taint
//!   `node-role.kubernetes.io/control-plane:NoSchedule`; `taints: []` is none; a list replaces
//!   the default (`cmd/kubeadm/app/util/config/initconfiguration.go`
//!   `SetNodeRegistrationDynamicDefaults`, `joinconfiguration.go` `SetJoinDynamicDefaults`;
//!   `cmd/kubeadm/app/constants/constants.go` `ControlPlaneTaint`).
//! - A worker's taints reach the kubelet as `--register-with-taints`, and a
//!   `register-with-taints` in `kubeletExtraArgs` overrides that flag
//!   (`cmd/kubeadm/app/phases/kubelet/flags.go`: `BuildArgumentListFromMap(stringMap,
//!   nodeReg.KubeletExtraArgs)`); a control plane gets its `taints` from the mark-control-plane
//!   phase and the flag's at registration, so both.
//! - A control plane is labelled `node-role.kubernetes.io/control-plane` and
//!   `node.kubernetes.io/exclude-from-external-load-balancers`
//!   (`cmd/kubeadm/app/phases/markcontrolplane/markcontrolplane.go`); `node-labels` in
//!   `kubeletExtraArgs` are the kubelet's `--node-labels`.
//!
//! kubeadm checks none of these taints (`validation.go` `ValidateNodeRegistrationOptions`: "TODO:
//! Maybe validate .Taints as well"): the taint rules do. An InitConfiguration makes one node; a
//! JoinConfiguration is usually shared by many, so its count is unknown. A KubeletConfiguration in
//! the same file as kubeadm configurations adds its `registerWithTaints` to their nodes (kubeadm
//! hands it to every kubelet); alone, it is a pool of unknown size.

use std::ops::Range;

use super::kubelet_flags::{self, extra_arg};
use super::nodes::taints;
use super::{Count, Defined, Loc, PoolTaint, RawNode};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::model::{Effect, Taint};
use crate::k8s::objects::List;
use crate::syntax::{Document, NodeId};

/// kubeadm's default control-plane taint key (`constants.go` `LabelNodeRoleControlPlane`).
pub(crate) const CONTROL_PLANE: &str = "node-role.kubernetes.io/control-plane";
pub(crate) const EXCLUDE_LB: &str = "node.kubernetes.io/exclude-from-external-load-balancers";

/// The kind written on pools made from a KubeletConfiguration (merged into kubeadm pools).
const KUBELET_KIND: &str = "kubeletconfiguration";

/// Whether a document is a kubeadm Init/JoinConfiguration or a KubeletConfiguration.
pub(crate) fn is_kubeadm(doc: &Document<'_>, root: NodeId) -> bool {
    let api = doc.get_str(root, "apiVersion").unwrap_or_default();
    match doc.get_str(root, "kind") {
        Some("InitConfiguration" | "JoinConfiguration") => api.starts_with("kubeadm.k8s.io/"),
        Some("KubeletConfiguration") => api.starts_with("kubelet.config.k8s.io/"),
        _ => false,
    }
}

/// What a `nodeRegistration` gives its node.
pub(crate) struct Registration {
    /// Every taint list written (for the rules).
    pub lists: Vec<List>,
    /// The lists whose taints the node gets.
    pub applied: Vec<List>,
    /// Where the default control-plane taint comes from, when it applies.
    pub default_at: Option<Range<usize>>,
    pub labels: Vec<(String, String)>,
    /// `nodeRegistration.name`.
    pub name: Option<String>,
}

/// Reads a `nodeRegistration` (at `path`; `None` when absent) of a control-plane or worker
/// configuration. `at` is where to point at a default taint when the field is not written.
pub(crate) fn registration<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    node_registration: Option<NodeId>,
    path: &str,
    control_plane: bool,
    object: Option<usize>,
    at: Range<usize>,
) -> Registration {
    let mut out = Registration {
        lists: Vec::new(),
        applied: Vec::new(),
        default_at: None,
        labels: Vec::new(),
        name: None,
    };
    let written = node_registration.and_then(|nr| doc.get(nr, "taints"));
    let nil = match written {
        None => true,
        Some((_, v)) => matches!(decode(doc, v), Decoded::Null),
    };
    let field = written.filter(|_| !nil).map(|(key, node)| List {
        whole: false,
        node,
        key,
        path: format!("{path}.taints"),
        object,
    });
    if control_plane && nil {
        out.default_at = Some(written.map_or(at, |(k, _)| doc.node(k).span.clone()));
    }
    let flag = node_registration
        .and_then(|nr| doc.get(nr, "kubeletExtraArgs"))
        .and_then(|(_, args)| {
            let base = format!("{path}.kubeletExtraArgs");
            let labels = extra_arg(doc, args, &base, "node-labels");
            if let Some(l) = labels {
                out.labels = kubelet_flags::labels(doc, l.value);
            }
            let arg = extra_arg(doc, args, &base, "register-with-taints")?;
            kubelet_flags::taint_list(text, doc, &arg, object)
        });
    out.lists.extend(field.clone());
    out.lists.extend(flag.clone());
    match (flag, field) {
        (Some(flag), field) if control_plane => {
            out.applied.push(flag);
            out.applied.extend(field);
        }
        (Some(flag), _) => out.applied.push(flag),
        (None, field) => out.applied.extend(field),
    }
    if control_plane {
        for key in [CONTROL_PLANE, EXCLUDE_LB] {
            if !out.labels.iter().any(|(k, _)| k == key) {
                out.labels.push((key.to_string(), String::new()));
            }
        }
    }
    out.name = node_registration
        .and_then(|nr| doc.get_str(nr, "name"))
        .filter(|n| !n.is_empty())
        .map(str::to_string);
    out
}

impl Registration {
    /// The node's taints (one per key and effect, the first written kept) and how many were
    /// left out as invalid.
    pub fn taints(&self, file: usize, doc: &Document<'_>) -> (Vec<PoolTaint>, usize) {
        let mut out: Vec<PoolTaint> = Vec::new();
        let mut invalid = 0;
        for list in &self.applied {
            let (found, left_out) = taints(file, doc, list);
            invalid += left_out;
            for t in found {
                if !out
                    .iter()
                    .any(|o| o.taint.key == t.taint.key && o.taint.effect == t.taint.effect)
                {
                    out.push(t);
                }
            }
        }
        if let Some(at) = &self.default_at {
            out.push(control_plane_taint(file, at.clone()));
        }
        (out, invalid)
    }
}

/// The taint kubeadm gives a control-plane node whose configuration omits `taints`
/// (`node-role.kubernetes.io/control-plane:NoSchedule`), placed at `range`.
pub(crate) fn control_plane_taint(file: usize, range: std::ops::Range<usize>) -> PoolTaint {
    PoolTaint {
        taint: Taint {
            key: CONTROL_PLANE.to_string(),
            value: String::new(),
            effect: Effect::NoSchedule,
        },
        at: Loc { file, range },
    }
}

/// Reads one kubeadm or kubelet configuration document (`is_kubeadm` holds).
pub(crate) fn read<'a>(
    file: usize,
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    index: usize,
) -> Defined {
    let kind = doc.get_str(root, "kind").unwrap_or_default().to_string();
    let at = doc.node(root).span.clone();
    let object = Some(0);
    if kind == "KubeletConfiguration" {
        let field = doc.get(root, "registerWithTaints");
        let list = field.map(|(key, node)| List {
            whole: false,
            node,
            key,
            path: "registerWithTaints".to_string(),
            object,
        });
        let (found, invalid) = list
            .as_ref()
            .map(|l| taints(file, doc, l))
            .unwrap_or_default();
        let mut node = RawNode::defined(
            "kubelet".to_string(),
            KUBELET_KIND,
            Loc { file, range: at },
            (file, index),
            Count::default(),
        );
        node.taints = found;
        return Defined {
            nodes: vec![node],
            lists: list.into_iter().collect(),
            invalid,
        };
    }
    let init = kind == "InitConfiguration";
    let control_plane = init || doc.get(root, "controlPlane").is_some();
    let nr = doc.get(root, "nodeRegistration").map(|(_, v)| v);
    let kind_at = doc
        .get(root, "kind")
        .map_or(at.clone(), |(_, v)| doc.node(v).span.clone());
    let reg = registration(
        text,
        doc,
        nr,
        "nodeRegistration",
        control_plane,
        object,
        kind_at,
    );
    let (found, invalid) = reg.taints(file, doc);
    let name = reg.name.clone().unwrap_or_else(|| {
        if init {
            "control-plane".to_string()
        } else if control_plane {
            "control-plane-join".to_string()
        } else {
            "worker".to_string()
        }
    });
    let count = if init {
        Count {
            min: Some(1),
            max: Some(1),
        }
    } else {
        Count::default()
    };
    let kind: &'static str = if init {
        "initconfiguration"
    } else {
        "joinconfiguration"
    };
    let mut node = RawNode::defined(name, kind, Loc { file, range: at }, (file, index), count);
    node.labels = reg.labels;
    node.taints = found;
    Defined {
        nodes: vec![node],
        lists: reg.lists,
        invalid,
    }
}

/// In a file with kubeadm configurations, a KubeletConfiguration's taints go to their nodes
/// rather than making a pool of their own.
pub(crate) fn merge_kubelet_config(nodes: &mut Vec<RawNode>) {
    let is =
        |n: &RawNode, kinds: &[&str]| n.declared.as_ref().is_some_and(|d| kinds.contains(&d.kind));
    let kubeadm = ["initconfiguration", "joinconfiguration"];
    if !nodes.iter().any(|n| is(n, &kubeadm)) {
        return;
    }
    let mut shared = Vec::new();
    nodes.retain(|n| {
        if is(n, &[KUBELET_KIND]) {
            shared.extend(n.taints.iter().cloned());
            false
        } else {
            true
        }
    });
    for n in nodes.iter_mut().filter(|n| is(n, &kubeadm)) {
        for t in &shared {
            if !n
                .taints
                .iter()
                .any(|o| o.taint.key == t.taint.key && o.taint.effect == t.taint.effect)
            {
                n.taints.push(t.clone());
            }
        }
    }
}
