//! Machine sets as node pools: the OpenShift MachineSet (`machine.openshift.io/v1beta1`) and the
//! Cluster API MachineDeployment, MachineSet and MachinePool (`cluster.x-k8s.io`).
//!
//! Taints are `spec.template.spec.taints` (see [`pool_taint_paths`]). The node labels of an
//! OpenShift MachineSet are `spec.template.spec.metadata.labels` ("will autopopulate the Node
//! created", openshift/api machine/v1beta1/types_machine.go), not `spec.template.metadata.labels`
//! (those label the Machine only); its `spec.replicas` defaults to 1 (types_machineset.go
//! `+kubebuilder:default=1`). Cluster API copies to the Node only the Machine labels of the
//! `node-role.kubernetes.io`, `node-restriction.kubernetes.io` and `node.cluster.x-k8s.io`
//! domains (util/labels/helpers.go `GetManagedLabels`); its `spec.replicas` may be left to an
//! autoscaler (unknown here).

use super::kubeadm::CONTROL_PLANE;
use super::nodes::labels;
use super::pool_object::{PoolObject, Taints};
use super::{Count, ParseError, RawNode};
use super::{Loc, PoolTaint};
use crate::k8s::decode::decode;
use crate::k8s::model::{Effect, Taint};
use crate::k8s::objects::{
    api_group, pool_taint_paths, resolve, taint_list_at, CAPI, TOPOLOGY_TAINTS,
};
use crate::syntax::{Document, NodeId};

/// Whether a document is a machine set this module reads.
pub(crate) fn is_machine_set(doc: &Document<'_>, root: NodeId) -> bool {
    let api = doc.get_str(root, "apiVersion");
    let openshift = api.is_some_and(|a| a.starts_with("machine.openshift.io/"));
    let capi = api.is_some_and(|a| a.starts_with("cluster.x-k8s.io/"));
    (openshift || capi)
        && doc
            .get_str(root, "kind")
            .is_some_and(|k| pool_taint_paths(api, k).is_some())
}

pub(crate) fn is_synced_by_capi(key: &str) -> bool {
    let domain = key.split_once('/').map_or("", |(d, _)| d);
    [
        "node-role.kubernetes.io",
        "node-restriction.kubernetes.io",
        "node.cluster.x-k8s.io",
    ]
    .iter()
    .any(|d| domain == *d || domain.ends_with(&format!(".{d}")))
}

/// Reads one machine set (`is_machine_set` holds) into the node that stands for its machines.
pub(crate) fn read(
    file: usize,
    doc: &Document<'_>,
    root: NodeId,
    index: usize,
) -> Result<(RawNode, usize), ParseError> {
    let object = PoolObject::read(file, doc, root)?;
    let openshift = object
        .api
        .is_some_and(|a| a.starts_with("machine.openshift.io/"));
    let path = |segments: &[&str]| object.at_path(segments);
    let node_labels = if openshift {
        match path(&["spec", "template", "spec", "metadata", "labels"]) {
            Some(v) => labels(doc, v, "spec.template.spec.metadata.labels")?,
            None => Vec::new(),
        }
    } else {
        match path(&["spec", "template", "metadata", "labels"]) {
            Some(v) => labels(doc, v, "spec.template.metadata.labels")?
                .into_iter()
                .filter(|(k, _)| is_synced_by_capi(k))
                .collect(),
            None => Vec::new(),
        }
    };
    let replicas = path(&["spec", "replicas"])
        .and_then(|v| decode(doc, v).as_int64().ok().flatten())
        .and_then(|n| u64::try_from(n).ok())
        .or(if openshift { Some(1) } else { None });
    let count = Count {
        min: replicas,
        max: replicas,
    };
    let bootstrap = (!openshift)
        .then(|| {
            let config = path(&["spec", "template", "spec", "bootstrap", "configRef"])?;
            (doc.get_str(config, "kind")? == "KubeadmConfigTemplate")
                .then(|| doc.get_str(config, "name"))
                .flatten()
        })
        .flatten()
        .map(|n| super::Bootstrap::UsesTemplate(n.to_string()));
    let Taints {
        taints: pool_taints,
        invalid,
        ..
    } = object.taints();
    let PoolObject { name, at, kind, .. } = object;
    let kind = if openshift {
        "machineset"
    } else {
        match kind {
            "MachineDeployment" => "machinedeployment",
            "MachinePool" => "machinepool",
            _ => "capi-machineset",
        }
    };
    let mut node = RawNode::defined(name, kind, at, (file, index), count);
    node.bootstrap = bootstrap;
    node.labels = node_labels;
    node.taints = pool_taints;
    Ok((node, invalid))
}

/// Whether a document is a Cluster API Cluster with a managed topology (`spec.topology`).
pub(crate) fn is_topology_cluster(doc: &Document<'_>, root: NodeId) -> bool {
    api_group(doc.get_str(root, "apiVersion")) == Some(CAPI)
        && doc.get_str(root, "kind") == Some("Cluster")
        && doc
            .get_path(root, &["spec", "topology"])
            .is_some_and(|t| doc.mapping(t).is_some())
}

/// Reads a Cluster's managed topology (`is_topology_cluster` holds) into the pools its
/// topology controller makes: the control plane, and each of `workers.machineDeployments[]`
/// and `workers.machinePools[]` (kubernetes-sigs/cluster-api api/core/v1beta2/cluster_types.go
/// `Topology`), each with its `taints` (see [`TOPOLOGY_TAINTS`]) and the labels of its
/// `metadata.labels` that Cluster API syncs to Nodes. Its control plane is taken for kubeadm's
/// (the control plane provider of the ClusterClass is not at hand; kubeadm's is the common
/// one): the default control-plane taint and labels unless its taints name that key. Workers
/// start with `node.cluster.x-k8s.io/uninitialized` (a startup taint).
pub(crate) fn read_topology(
    file: usize,
    doc: &Document<'_>,
    root: NodeId,
    index: usize,
) -> Result<(Vec<RawNode>, usize), ParseError> {
    let object = PoolObject::read(file, doc, root)?;
    let mut out = Vec::new();
    let mut invalid = 0;
    let count_of = |at: NodeId| {
        let replicas = doc
            .get(at, "replicas")
            .and_then(|(_, v)| decode(doc, v).as_int64().ok().flatten())
            .and_then(|n| u64::try_from(n).ok());
        Count {
            min: replicas,
            max: replicas,
        }
    };
    let synced_labels = |at: NodeId, path: &str| -> Result<Vec<(String, String)>, ParseError> {
        Ok(match doc.get_path(at, &["metadata", "labels"]) {
            Some(v) => labels(doc, v, &format!("{path}.metadata.labels"))?
                .into_iter()
                .filter(|(k, _)| is_synced_by_capi(k))
                .collect(),
            None => Vec::new(),
        })
    };
    for pattern in TOPOLOGY_TAINTS {
        let (parent, _) = pattern.rsplit_once('.').expect("a path with a parent");
        let control_plane = parent.ends_with("controlPlane");
        let mut places = resolve(doc, root, "", parent);
        if control_plane && places.is_empty() {
            // A topology without `controlPlane`: the ClusterClass's, with its defaults.
            if let Some(t) = doc.get_path(root, &["spec", "topology"]) {
                places.push((t, "spec.topology".to_string()));
            }
        }
        for (at, path) in places {
            let name = if control_plane {
                format!("{}-control-plane", object.name)
            } else {
                let own = doc.get_str(at, "name").unwrap_or("workers");
                format!("{}-{own}", object.name)
            };
            let kind = if control_plane {
                "topology-controlplane"
            } else if parent.contains("machinePools") {
                "topology-machinepool"
            } else {
                "topology-machinedeployment"
            };
            let loc = Loc {
                file,
                range: doc.node(at).span.clone(),
            };
            let count = if control_plane && path == "spec.topology" {
                Count::default()
            } else {
                count_of(at)
            };
            let mut node = RawNode::defined(name, kind, loc.clone(), (file, index), count);
            if !(control_plane && path == "spec.topology") {
                node.labels = synced_labels(at, &path)?;
                if let Some(list) = taint_list_at(doc, at, &path, &["taints"], None) {
                    let (found, left_out) = super::nodes::taints(file, doc, &list);
                    invalid += left_out;
                    node.taints = found;
                }
            }
            if control_plane {
                if !node.taints.iter().any(|t| t.taint.key == CONTROL_PLANE) {
                    node.taints
                        .push(super::kubeadm::control_plane_taint(file, loc.range.clone()));
                }
                for key in [CONTROL_PLANE, super::kubeadm::EXCLUDE_LB] {
                    if !node.labels.iter().any(|(k, _)| k == key) {
                        node.labels.push((key.to_string(), String::new()));
                    }
                }
            } else if let Some(d) = node.declared.as_mut() {
                d.startup_taints.push(PoolTaint {
                    taint: Taint {
                        key: super::capi_bootstrap::UNINITIALIZED.to_string(),
                        value: String::new(),
                        effect: Effect::NoSchedule,
                    },
                    at: loc,
                });
            }
            out.push(node);
        }
    }
    Ok((out, invalid))
}

#[cfg(test)]
mod tests {
    use crate::config::Options;
    use crate::inventory::Inventory;

    const MACHINES: &str = include_str!("../../tests/fixtures/iac/machinesets.yaml");

    #[test]
    fn machine_sets_are_pools() {
        let inv = Inventory::load(&[("machines.yaml", MACHINES)]).unwrap();
        let got: Vec<(&str, &str, String, Vec<String>)> = inv
            .pools
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.kind(),
                    p.size(),
                    p.taints.iter().map(|t| t.taint.to_string()).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "infra-us-east-1a",
                    "machineset",
                    "2 nodes".to_string(),
                    vec!["node-role.kubernetes.io/infra:NoSchedule".to_string()]
                ),
                (
                    "md-gpu",
                    "machinedeployment",
                    "count unknown".to_string(),
                    vec!["nvidia.com/gpu=present:NoSchedule".to_string()]
                ),
            ]
        );
        // Node labels: the MachineSet's spec.template.spec.metadata.labels; of the Cluster API
        // Machine labels, only the domains it syncs to the Node.
        assert_eq!(
            inv.pools[0].label(None, "node-role.kubernetes.io/infra"),
            Some("")
        );
        assert_eq!(
            inv.pools[0].label(None, "machine.openshift.io/cluster-api-machineset"),
            None
        );
        assert_eq!(
            inv.pools[1].label(None, "node-role.kubernetes.io/gpu"),
            Some("")
        );
        assert_eq!(
            inv.pools[1].label(None, "cluster.x-k8s.io/cluster-name"),
            None
        );
        // `propagation` is a field of a Cluster API taint, not an unknown one.
        let found = crate::analyse(MACHINES, &Options::default());
        assert_eq!(
            found.iter().map(|d| d.rule).collect::<Vec<_>>(),
            Vec::<&str>::new(),
            "{found:#?}"
        );
        let text = MACHINES.replace(
            "effect: NoSchedule\n          propagation",
            "effect: noschedule\n          propagation",
        );
        let found = crate::analyse(&text, &Options::default());
        assert_eq!(found[0].rule, "unknown-effect");
        assert_eq!(
            found[0].path.as_deref(),
            Some("spec.template.spec.taints[0].effect")
        );
    }
}
