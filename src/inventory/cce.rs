//! Huawei Cloud CCE node pools as the CCE API takes them: the JSON body of "create a node pool"
//! (`POST /api/v3/projects/{project_id}/clusters/{cluster_id}/nodepools`: `"kind": "NodePool"`,
//! `"apiVersion": "v3"`).
//!
//! Where (huaweicloud/terraform-provider-huaweicloud vendored SDK
//! `github.com/chnsz/golangsdk/openstack/cce/v3/nodepools/results.go`, and `.../nodes/results.go`
//! `TaintSpec{key, value, effect}`; the API reference "Creating a Node Pool",
//! <https://support.huaweicloud.com/intl/en-us/api-cce/cce_02_0354.html>): taints in
//! `spec.nodeTemplate.taints` (Kubernetes effect spelling), node labels in
//! `spec.nodeTemplate.k8sTags`, the size in `spec.initialNodeCount`, or
//! `spec.autoscaling.{minNodeCount,maxNodeCount}` when `enable` is true. CCE labels every node
//! with its pool's name, `cce.cloud.com/cce-nodepool` (the provider hides that label on read:
//! `resource_huaweicloud_cce_node_pool.go`). The file is read as YAML (JSON is YAML), so its
//! taints get the rules at their exact characters.

use super::nodes::{labels, scalar_text, taints};
use super::{Count, Defined, Loc, RawNode};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::List;
use crate::syntax::{Document, NodeId};

/// Whether a document is a CCE API NodePool.
pub(crate) fn is_cce(doc: &Document<'_>, root: NodeId) -> bool {
    doc.get_str(root, "kind") == Some("NodePool") && doc.get_str(root, "apiVersion") == Some("v3")
}

/// Reads one CCE NodePool (`is_cce` holds).
pub(crate) fn read(file: usize, doc: &Document<'_>, root: NodeId, index: usize) -> Defined {
    let mut out = Defined::default();
    let name = doc
        .get_path(root, &["metadata", "name"])
        .and_then(|v| scalar_text(doc, v))
        .filter(|n| !n.is_empty());
    let list = doc
        .get_path(root, &["spec", "nodeTemplate"])
        .and_then(|t| doc.get(t, "taints"))
        .map(|(key, node)| List {
            whole: false,
            node,
            key,
            path: "spec.nodeTemplate.taints".to_string(),
            object: Some(0),
        });
    let (found, invalid) = list
        .as_ref()
        .map(|l| taints(file, doc, l))
        .unwrap_or_default();
    out.invalid = invalid;
    let mut node_labels = doc
        .get_path(root, &["spec", "nodeTemplate", "k8sTags"])
        .and_then(|v| labels(doc, v, "spec.nodeTemplate.k8sTags").ok())
        .unwrap_or_default();
    if let Some(n) = &name {
        node_labels.push(("cce.cloud.com/cce-nodepool".to_string(), n.clone()));
    }
    let int = |segments: &[&str]| {
        doc.get_path(root, segments)
            .and_then(|v| decode(doc, v).as_int64().ok().flatten())
            .and_then(|n| u64::try_from(n).ok())
    };
    let autoscaling = doc
        .get_path(root, &["spec", "autoscaling", "enable"])
        .is_some_and(|v| matches!(decode(doc, v), Decoded::Bool(true)));
    let count = if autoscaling {
        Count {
            min: int(&["spec", "autoscaling", "minNodeCount"]),
            max: int(&["spec", "autoscaling", "maxNodeCount"]),
        }
    } else {
        let n = int(&["spec", "initialNodeCount"]);
        Count { min: n, max: n }
    };
    let at = Loc {
        file,
        range: doc.node(root).span.clone(),
    };
    let shown = name.unwrap_or_else(|| "NodePool".to_string());
    let mut node = RawNode::defined(shown, "cce-nodepool", at, (file, index), count);
    node.labels = node_labels;
    node.taints = found;
    out.nodes.push(node);
    out.lists.extend(list);
    out
}
