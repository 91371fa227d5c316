//! Karpenter NodePools (`karpenter.sh/v1`, `v1beta1`) and Provisioners (`karpenter.sh/v1alpha5`)
//! as node pools.
//!
//! Where things are (kubernetes-sigs/karpenter `pkg/apis/v1/nodepool.go`, `nodeclaim.go`;
//! v1alpha5 `pkg/apis/v1alpha5/provisioner.go`): taints and startup taints as
//! [`pool_taint_paths`] lists them; node labels in `spec.template.metadata.labels` (v1alpha5:
//! `spec.labels`); requirements in `spec.template.spec.requirements` (v1alpha5:
//! `spec.requirements`). Every node gets `karpenter.sh/nodepool=<name>` (v1alpha5:
//! `karpenter.sh/provisioner-name`) and, in v1, `<nodeClassRef.group>/<lowercase kind>=<name>`
//! (`pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go`, `pkg/apis/v1/labels.go`).
//! Requirements and labels together bound the nodes' labels: a custom key with one `In` value
//! is a label every node has. The size is `spec.replicas` for a static pool, else dynamic (from
//! none up to `spec.limits.nodes`, when set).

use super::nodes::{labels, scalar_text};
use super::pool_object::{PoolObject, Taints};
use super::{Count, ParseError, PoolRequirement, RawNode};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::{pool_taint_paths, List};
use crate::syntax::{Document, NodeId};

/// Whether a document is a Karpenter NodePool or Provisioner.
pub(crate) fn is_karpenter(doc: &Document<'_>, root: NodeId) -> bool {
    let api = doc.get_str(root, "apiVersion");
    api.is_some_and(|a| a.starts_with("karpenter.sh/"))
        && doc
            .get_str(root, "kind")
            .is_some_and(|k| pool_taint_paths(api, k).is_some())
}

/// Reads one NodePool or Provisioner (`is_karpenter` holds) into the node that stands for its
/// nodes; returns it with the number of taints left out as invalid.
pub(crate) fn read(
    file: usize,
    doc: &Document<'_>,
    root: NodeId,
    index: usize,
) -> Result<(RawNode, usize), ParseError> {
    let object = PoolObject::read(file, doc, root)?;
    let provisioner = object.kind == "Provisioner";
    let path = |segments: &[&str]| object.at_path(segments);
    let (labels_path, requirements_path): (&[&str], &[&str]) = if provisioner {
        (&["spec", "labels"], &["spec", "requirements"])
    } else {
        (
            &["spec", "template", "metadata", "labels"],
            &["spec", "template", "spec", "requirements"],
        )
    };
    let mut node_labels = match path(labels_path) {
        Some(v) => labels(doc, v, &labels_path.join("."))?,
        None => Vec::new(),
    };
    let name_label = if provisioner {
        "karpenter.sh/provisioner-name"
    } else {
        "karpenter.sh/nodepool"
    };
    node_labels.push((name_label.to_string(), object.name.clone()));
    let aws = node_class(doc, &object, provisioner, &mut node_labels);
    let requirements = requirements(doc, object.at_path(requirements_path), &mut node_labels);
    let count = count(doc, &object);
    let Taints {
        taints: pool_taints,
        startup: startup_taints,
        invalid,
    } = object.taints();
    let limit = |name: &str| {
        path(&["spec", "limits", name])
            .and_then(|v| scalar_text(doc, v))
            .and_then(|q| crate::k8s::resources::amount(name, &q))
    };
    let limits = (limit("cpu"), limit("memory"));
    let PoolObject { name, at, .. } = object;
    let kind = if provisioner {
        "provisioner"
    } else {
        "nodepool"
    };
    // One node stands for all: named for what it is, not as a node of the cluster.
    let mut node = RawNode::defined(name, kind, at, (file, index), count);
    node.labels = node_labels;
    node.taints = pool_taints;
    declare(&mut node, requirements, startup_taints, aws, limits);
    Ok((node, invalid))
}

/// What a NodePool's nodes are declared to be: its requirements, startup taints, and what its
/// instance types offer within its `limits` (CPU, memory).
fn declare(
    node: &mut RawNode,
    requirements: Vec<PoolRequirement>,
    startup_taints: Vec<super::PoolTaint>,
    aws: bool,
    limits: (Option<u128>, Option<u128>),
) {
    if let Some(declared) = &mut node.declared {
        declared.startup_taints = startup_taints;
        // EKS Auto Mode says in its own label domain what open source Karpenter says in its.
        let sized_by = super::auto_mode::as_karpenter(&requirements);
        declared.capacity = super::capacity::from_requirements(&sized_by);
        // Karpenter makes nodes of the types the requirements and the NodePool's `limits`
        // allow; on AWS, the table's types that both allow are certainly among them.
        declared
            .capacity
            .within_limits(&sized_by, aws, limits.0, limits.1);
        declared.requirements = Some(requirements);
    }
}

/// The NodePool the karpenter-resources chart renders from its values at `root`
/// (aws-ia/terraform-aws-eks-data-addons helm-charts/karpenter-resources, templates/
/// node-pool.yaml and values.yaml): named `name` (default `default`), labelled `NodePool` and
/// `NodeGroupType` with it and with each of `nodePool.labels` (a list of one-label maps), with
/// `nodePool.taints` and `nodePool.requirements`, `nodePool.limits` (default 1000 CPUs,
/// 1000Gi), and an EC2NodeClass of its name; none when `nodePool.enabled` is false. `key` tells
/// its pool apart, placed at `at` (the values); its taints are where they are written.
pub(crate) fn from_chart_values(
    file: usize,
    doc: &Document<'_>,
    root: NodeId,
    (key, at): (usize, super::Loc),
) -> Option<(RawNode, usize)> {
    let pool = doc.get(root, "nodePool").map(|(_, v)| v);
    let get = |segments: &[&str]| pool.and_then(|p| doc.get_path(p, segments));
    if get(&["enabled"]).is_some_and(|v| matches!(decode(doc, v), Decoded::Bool(false))) {
        return None;
    }
    let name = doc
        .get(root, "name")
        .and_then(|(_, v)| scalar_text(doc, v))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "default".to_string());
    let mut node_labels: Vec<(String, String)> = ["NodePool", "NodeGroupType"]
        .iter()
        .map(|k| (k.to_string(), name.clone()))
        .collect();
    for &item in get(&["labels"])
        .and_then(|v| doc.sequence(v))
        .unwrap_or_default()
    {
        for &(k, v) in doc.mapping(item).unwrap_or_default() {
            if let (Some(k), Some(v)) = (scalar_text(doc, k), scalar_text(doc, v)) {
                node_labels.push((k, v));
            }
        }
    }
    node_labels.push(("karpenter.sh/nodepool".to_string(), name.clone()));
    node_labels.push(("karpenter.k8s.aws/ec2nodeclass".to_string(), name.clone()));
    let requirements = requirements(doc, get(&["requirements"]), &mut node_labels);
    let (taints, invalid) = chart_taint_list(doc, root)
        .map(|list| super::nodes::taints(file, doc, &list))
        .unwrap_or_default();
    let limit = |resource: &str, default: &str| {
        let written = get(&["limits", resource]).and_then(|v| scalar_text(doc, v));
        crate::k8s::resources::amount(resource, written.as_deref().unwrap_or(default))
    };
    let limits = (limit("cpu", "1000"), limit("memory", "1000Gi"));
    let count = Count {
        min: Some(0),
        max: None,
    };
    let mut node = RawNode::defined(name, "nodepool", at, (file, key), count);
    node.labels = node_labels;
    node.taints = taints;
    declare(&mut node, requirements, Vec::new(), true, limits);
    Some((node, invalid))
}

/// The taint list of karpenter-resources chart values at `root`: `nodePool.taints`.
pub(crate) fn chart_taint_list(doc: &Document<'_>, root: NodeId) -> Option<List> {
    let (_, pool) = doc.get(root, "nodePool")?;
    crate::k8s::objects::taint_list_at(doc, pool, "nodePool", &["taints"], None)
}

/// Whether the nodes are EC2 instances (an EC2NodeClass of `karpenter.k8s.aws`, EKS Auto Mode's
/// NodeClass of `eks.amazonaws.com`, or a
/// Provisioner's AWSNodeTemplate or inline `provider`), and the label a v1 node gets from its
/// `nodeClassRef` (`<group>/<lowercase kind>=<name>`), added to `node_labels`.
fn node_class(
    doc: &Document<'_>,
    object: &PoolObject<'_, '_>,
    provisioner: bool,
    node_labels: &mut Vec<(String, String)>,
) -> bool {
    let path = |segments: &[&str]| object.at_path(segments);
    let mut aws = provisioner
        && (path(&["spec", "provider"]).is_some()
            || path(&["spec", "providerRef"])
                .and_then(|r| doc.get_str(r, "kind"))
                .is_some_and(|k| k == "AWSNodeTemplate"));
    if let Some(class) = path(&["spec", "template", "spec", "nodeClassRef"]) {
        let group = doc.get_str(class, "group").unwrap_or_default();
        aws |= group == "karpenter.k8s.aws"
            || group == "eks.amazonaws.com"
            || doc.get_str(class, "kind") == Some("EC2NodeClass");
        let class_kind = doc.get_str(class, "kind").unwrap_or_default();
        let class_name = doc.get_str(class, "name").unwrap_or_default();
        // EKS Auto Mode labels its nodes `eks.amazonaws.com/compute-type=auto` (the EKS user
        // guide, "Control if a workload is deployed on EKS Auto Mode nodes").
        if group == "eks.amazonaws.com" {
            node_labels.push((
                "eks.amazonaws.com/compute-type".to_string(),
                "auto".to_string(),
            ));
        }
        if !group.is_empty() && !class_kind.is_empty() && !class_name.is_empty() {
            node_labels.push((
                format!("{group}/{}", class_kind.to_ascii_lowercase()),
                class_name.to_string(),
            ));
        }
    }
    aws
}

/// The pool's requirements as written (those with a key and an operator: the CRD refuses the
/// others), then one `key In [value]` for each label the nodes get that no requirement names:
/// labels bound the nodes too. A custom key with one `In` value is a label every node has,
/// added to `node_labels`.
fn requirements(
    doc: &Document<'_>,
    list: Option<NodeId>,
    node_labels: &mut Vec<(String, String)>,
) -> Vec<PoolRequirement> {
    let mut requirements = Vec::new();
    for &item in list.and_then(|v| doc.sequence(v)).unwrap_or_default() {
        let text = |f: &str| doc.get(item, f).and_then(|(_, v)| scalar_text(doc, v));
        let (Some(key), Some(operator)) = (text("key"), text("operator")) else {
            continue; // not a requirement Karpenter would accept: the CRD rejects it
        };
        let values: Vec<String> = doc
            .get(item, "values")
            .and_then(|(_, v)| doc.sequence(v))
            .unwrap_or_default()
            .iter()
            .filter_map(|&v| scalar_text(doc, v))
            .collect();
        if operator == "In" && values.len() == 1 && !node_labels.iter().any(|(k, _)| *k == key) {
            node_labels.push((key.clone(), values[0].clone()));
        }
        requirements.push(PoolRequirement {
            key,
            operator,
            values,
        });
    }
    // Labels bound the nodes too: a requirement `key In [value]` each.
    for (k, v) in node_labels.iter() {
        if !requirements.iter().any(|r| r.key == *k) {
            requirements.push(PoolRequirement {
                key: k.clone(),
                operator: "In".to_string(),
                values: vec![v.clone()],
            });
        }
    }
    requirements
}

/// How many nodes: `spec.replicas` for a static pool, else from none up to
/// `spec.limits.nodes` (unbounded when it is not set).
fn count(doc: &Document<'_>, object: &PoolObject<'_, '_>) -> Count {
    let path = |segments: &[&str]| object.at_path(segments);
    let int = |segments: &[&str]| {
        path(segments).and_then(|v| match decode(doc, v) {
            Decoded::Str(s) => s.parse::<u64>().ok(),
            d => d
                .as_int64()
                .ok()
                .flatten()
                .and_then(|n| u64::try_from(n).ok()),
        })
    };
    match int(&["spec", "replicas"]) {
        Some(n) => Count {
            min: Some(n),
            max: Some(n),
        },
        None => Count {
            min: Some(0),
            max: int(&["spec", "limits", "nodes"]),
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Options;
    use crate::inventory::{Count, Inventory};

    // Adapted from aws/karpenter-provider-aws examples/v1/general-purpose.yaml and the NodePool
    // reference (website/content/en/preview/concepts/nodepools.md: the Cilium startup taint).
    const NODEPOOL: &str = "\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    metadata:
      labels:
        team: ml
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: [\"amd64\"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: [\"spot\", \"on-demand\"]
        - key: example.com/accelerator
          operator: In
          values: [\"a100\"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      taints:
        - key: nvidia.com/gpu
          value: \"true\"
          effect: NoSchedule
      startupTaints:
        - key: node.cilium.io/agent-not-ready
          value: \"true\"
          effect: NoExecute
  limits:
    cpu: 1000
    nodes: 20
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  amiSelectorTerms:
    - alias: al2023@latest
";

    #[test]
    fn a_nodepool_is_a_pool() {
        let inv = Inventory::load(&[("nodepool.yaml", NODEPOOL)]).unwrap();
        assert_eq!(inv.pools.len(), 1);
        let pool = &inv.pools[0];
        assert_eq!(pool.name, "gpu");
        assert_eq!(pool.kind(), "nodepool");
        assert_eq!(pool.size(), "0..20 nodes");
        assert_eq!(
            pool.taints
                .iter()
                .map(|t| t.taint.to_string())
                .collect::<Vec<_>>(),
            ["nvidia.com/gpu=true:NoSchedule"]
        );
        let declared = pool.declared.as_ref().unwrap();
        assert_eq!(
            declared.startup_taints[0].taint.to_string(),
            "node.cilium.io/agent-not-ready=true:NoExecute"
        );
        assert_eq!(
            NODEPOOL[pool.taints[0].at.range.clone()].trim_end(),
            "key: nvidia.com/gpu\n          value: \"true\"\n          effect: NoSchedule"
        );
        assert_eq!(pool.label(None, "team"), Some("ml"));
        assert_eq!(pool.label(None, "karpenter.sh/nodepool"), Some("gpu"));
        assert_eq!(
            pool.label(None, "karpenter.k8s.aws/ec2nodeclass"),
            Some("default")
        );
        assert_eq!(pool.label(None, "example.com/accelerator"), Some("a100"));
        assert_eq!(pool.label(None, "kubernetes.io/arch"), Some("amd64"));
        // Two capacity types: not a label every node has.
        assert_eq!(pool.label(None, "karpenter.sh/capacity-type"), None);
        let reqs = declared.requirements.as_ref().unwrap();
        assert!(reqs
            .iter()
            .any(|r| r.key == "karpenter.sh/capacity-type" && r.values.len() == 2));
        // The file lints clean; the EC2NodeClass beside it is not an error.
        assert_eq!(crate::analyse(NODEPOOL, &Options::default()), []);
    }

    #[test]
    fn static_pools_and_provisioners() {
        let text = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: fixed}\nspec:\n  replicas: 3\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n      requirements: []\n";
        let inv = Inventory::load(&[("static.yaml", text)]).unwrap();
        assert_eq!(
            inv.pools[0].declared.as_ref().unwrap().count,
            Count {
                min: Some(3),
                max: Some(3)
            }
        );
        assert_eq!(inv.pools[0].size(), "3 nodes");
        // Adapted from the v1alpha5 Provisioner reference (aws/karpenter v0.31 docs).
        let text = "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata:\n  name: default\nspec:\n  labels: {billing-team: my-team}\n  taints:\n    - key: example.com/special-taint\n      effect: NoSchedule\n  startupTaints:\n    - key: example.com/another-taint\n      effect: NoSchedule\n  requirements:\n    - key: karpenter.sh/capacity-type\n      operator: In\n      values: [spot]\n";
        let inv = Inventory::load(&[("provisioner.yaml", text)]).unwrap();
        let pool = &inv.pools[0];
        assert_eq!(pool.kind(), "provisioner");
        assert_eq!(pool.size(), "count unknown");
        assert_eq!(
            pool.label(None, "karpenter.sh/provisioner-name"),
            Some("default")
        );
        assert_eq!(
            pool.taints[0].taint.to_string(),
            "example.com/special-taint:NoSchedule"
        );
    }

    #[test]
    fn nodepool_taints_get_the_taint_rules() {
        let text = NODEPOOL
            .replace("effect: NoSchedule", "effect: NoSchedul")
            .replace(
                "node.cilium.io/agent-not-ready",
                "node.cilium.io/agent not ready",
            );
        let found: Vec<(&str, &str, String)> = crate::analyse(&text, &Options::default())
            .iter()
            .map(|d| {
                (
                    d.rule,
                    &text[d.range.clone()],
                    d.path.clone().unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "unknown-effect",
                    "NoSchedul",
                    "spec.template.spec.taints[0].effect".to_string()
                ),
                (
                    "invalid-key",
                    "node.cilium.io/agent not ready",
                    "spec.template.spec.startupTaints[0].key".to_string()
                ),
            ]
        );
        // The invalid taints are left out of the simulation.
        let inv = Inventory::load(&[("nodepool.yaml", text.as_str())]).unwrap();
        assert_eq!(inv.files[0].invalid_taints, 1);
    }

    #[test]
    fn a_startup_taint_may_not_repeat_a_taint() {
        // Karpenter checks taints and startupTaints together (nodeclaim_validation.go).
        let text = NODEPOOL.replace(
            "node.cilium.io/agent-not-ready\n          value: \"true\"\n          effect: NoExecute",
            "nvidia.com/gpu\n          value: \"other\"\n          effect: NoSchedule",
        );
        let found = crate::analyse(&text, &Options::default());
        let got: Vec<(&str, &str, Option<&str>)> = found
            .iter()
            .map(|d| (d.rule, &text[d.range.clone()], d.path.as_deref()))
            .collect();
        assert_eq!(
            got,
            [(
                "platform-taint",
                "key",
                Some("spec.template.spec.startupTaints[0]")
            )]
        );
        assert_eq!(
            &text[found[0].related[0].range.clone()],
            "key",
            "points at the taint it repeats"
        );
        assert!(found[0].related[0].range.start < found[0].range.start);
    }

    #[test]
    fn a_nodepool_without_a_name_is_an_error() {
        let e = Inventory::load(&[(
            "np.yaml",
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nspec: {}\n",
        )])
        .unwrap_err();
        assert_eq!(
            e[0].to_string(),
            "np.yaml:1:1: a NodePool without metadata.name"
        );
    }
}
