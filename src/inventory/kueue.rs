//! Kueue ResourceFlavors (`kueue.x-k8s.io/v1beta1`, `v1beta2`, `v1`) as node pools.
//!
//! A ResourceFlavor names a kind of node by its labels and taints
//! (kubernetes-sigs/kueue apis/kueue/v1beta1/resourceflavor_types.go, the same fields in
//! v1beta2 and v1): `spec.nodeLabels` are labels the flavor's nodes have, `spec.nodeTaints` taints
//! they have (a `corev1.Taint` list, linted as a Node's: see
//! [`pool_taint_paths`](crate::k8s::objects::pool_taint_paths)), and `spec.tolerations` are added
//! to the pods of every workload admitted on the flavor. Kueue's flavor assigner admits a pod set
//! on a flavor only when the pod's tolerations together with the flavor's tolerate every
//! NoSchedule and NoExecute node taint, and its node selector and required affinity match the
//! node labels (pkg/scheduler/flavorassigner/flavorassigner.go: `FindMatchingUntoleratedTaint(
//! flavor.Spec.NodeTaints, append(podSpec.Tolerations, flavor.Spec.Tolerations...))`); the pods
//! then get the flavor's labels as node selector and its tolerations (pkg/podset/podset.go).
//!
//! So a flavor is read as a pool defined as code: named after the flavor, with its node labels
//! (other labels unknown) and node taints, an unknown number of nodes of unknown capacity, and
//! its tolerations in [`Declared::tolerations`], which count when a workload is judged against
//! this pool. A flavor with no labels and no taints (a "default" flavor of a homogeneous
//! cluster) is a pool any workload may fit.

use super::nodes::labels;
use super::pool_object::{PoolObject, Taints};
use super::{Count, ParseError, RawNode};
use crate::k8s::objects::{api_group, items, taint_list_at};
use crate::syntax::{Document, NodeId};

/// Kueue's API group.
pub(crate) const GROUP: &str = "kueue.x-k8s.io";

/// Whether a document is a Kueue ResourceFlavor of a version with `spec.nodeLabels` and
/// `spec.nodeTaints` (v1alpha1 and v1alpha2, no longer served since Kueue v0.3, kept
/// `nodeSelector` and `taints` at the root: apis/kueue/v1alpha2/resourceflavor_types.go).
pub(crate) fn is_flavor(doc: &Document<'_>, root: NodeId) -> bool {
    let api = doc.get_str(root, "apiVersion");
    api_group(api) == Some(GROUP)
        && api.is_some_and(|a| {
            a.ends_with("/v1beta1") || a.ends_with("/v1beta2") || a.ends_with("/v1")
        })
        && doc.get_str(root, "kind") == Some("ResourceFlavor")
}

/// Reads one ResourceFlavor (`is_flavor` holds) into the node that stands for its nodes;
/// returns it with the number of taints left out as invalid.
pub(crate) fn read(
    file: usize,
    doc: &Document<'_>,
    root: NodeId,
    index: usize,
) -> Result<(RawNode, usize), ParseError> {
    let object = PoolObject::read(file, doc, root)?;
    let node_labels = match object.at_path(&["spec", "nodeLabels"]) {
        Some(v) => labels(doc, v, "spec.nodeLabels")?,
        None => Vec::new(),
    };
    let Taints {
        taints: pool_taints,
        invalid,
        ..
    } = object.taints();
    let tolerations = taint_list_at(doc, root, "", &["spec", "tolerations"], None)
        .map(|list| {
            items(doc, &list)
                .iter()
                .filter_map(|item| item.toleration())
                .collect()
        })
        .unwrap_or_default();
    let PoolObject { name, at, .. } = object;
    let mut node = RawNode::defined(name, "resourceflavor", at, (file, index), Count::default());
    node.labels = node_labels;
    node.taints = pool_taints;
    if let Some(declared) = &mut node.declared {
        declared.tolerations = tolerations;
    }
    Ok((node, invalid))
}

#[cfg(test)]
mod tests {
    use crate::config::Options;
    use crate::inventory::Inventory;
    use crate::schedule::admission::Source;
    use crate::schedule::{simulate_text, Reason};

    // Written after the flavors of Kueue's documentation (site/content/en/docs/concepts/
    // resource_flavor.md: a spot flavor with `nodeTaints` and `tolerations`) for a GPU cluster
    // with on-demand and spot A100 nodes.
    const FLAVORS: &str = "\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: a100-on-demand
spec:
  nodeLabels:
    example.com/accelerator: a100
    example.com/capacity: on-demand
  nodeTaints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100-spot
spec:
  nodeLabels:
    example.com/accelerator: a100
    example.com/capacity: spot
  nodeTaints:
    - key: nvidia.com/gpu
      value: present
      effect: NoSchedule
    # taintlint: disable=flavor-tolerates-own-taint -- the nodes' taint; Kueue adds its toleration
    - key: example.com/spot
      value: \"true\"
      effect: NoSchedule
  tolerations:
    - key: example.com/spot
      operator: Exists
      effect: NoSchedule
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: default-flavor
";

    const GPU_JOB: &str = "\
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
  labels:
    kueue.x-k8s.io/queue-name: research
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector:
        example.com/accelerator: a100
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
      containers:
        - name: trainer
          image: registry.example.com/trainer:1.0
";

    #[test]
    fn a_flavor_is_a_pool() {
        let inv = Inventory::load(&[("flavors.yaml", FLAVORS)]).unwrap();
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a100-on-demand", "a100-spot", "default-flavor"]);
        let spot = &inv.pools[1];
        assert_eq!(spot.kind(), "resourceflavor");
        assert_eq!(spot.size(), "count unknown");
        assert_eq!(spot.label(None, "example.com/capacity"), Some("spot"));
        assert_eq!(
            spot.taints
                .iter()
                .map(|t| t.taint.to_string())
                .collect::<Vec<_>>(),
            [
                "nvidia.com/gpu=present:NoSchedule",
                "example.com/spot=true:NoSchedule"
            ]
        );
        assert_eq!(
            FLAVORS[spot.taints[1].at.range.clone()].trim_end(),
            "key: example.com/spot\n      value: \"true\"\n      effect: NoSchedule"
        );
        let declared = spot.declared.as_ref().unwrap();
        assert_eq!(declared.tolerations.len(), 1);
        assert_eq!(declared.tolerations[0].key, "example.com/spot");
        assert!(inv.pools[0]
            .declared
            .as_ref()
            .unwrap()
            .tolerations
            .is_empty());
        // The flavor without labels or taints stands for any node.
        assert!(inv.pools[2].labels.is_empty() && inv.pools[2].taints.is_empty());
        // The file lints clean.
        assert_eq!(crate::analyse(FLAVORS, &Options::default()), []);
    }

    #[test]
    fn flavor_taints_get_the_node_taint_rules() {
        let text = FLAVORS.replacen("effect: NoSchedule", "effect: NoSchedul", 1);
        let found = crate::analyse(&text, &Options::default());
        let got: Vec<(&str, &str, Option<&str>)> = found
            .iter()
            .map(|d| (d.rule, &text[d.range.clone()], d.path.as_deref()))
            .collect();
        assert_eq!(
            got,
            [(
                "unknown-effect",
                "NoSchedul",
                Some("spec.nodeTaints[0].effect")
            )]
        );
        // The same words as for a Node's taint, with the flavor's path.
        let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n  taints:\n    - {key: nvidia.com/gpu, value: present, effect: NoSchedul}\n";
        let on_node = crate::analyse(node, &Options::default());
        assert_eq!(on_node.len(), 1);
        assert_eq!(
            found[0]
                .message
                .replace("spec.nodeTaints[0]", "spec.taints[0]"),
            on_node[0].message
        );
        // What the API server answers is the flavor CRD's CEL rule, on the whole list.
        assert_eq!(
            found[0].server_message.as_deref(),
            Some(
                "spec.nodeTaints: Invalid value: \"array\": supported taint effect values: \
                 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"
            )
        );
        assert!(on_node[0]
            .server_message
            .as_deref()
            .is_some_and(|m| m.starts_with("metadata.taints[0].effect: Unsupported value")));
        // The invalid taint is left out of the simulation.
        let inv = Inventory::load(&[("flavors.yaml", text.as_str())]).unwrap();
        assert_eq!(inv.files[0].invalid_taints, 1);
        // A flavor's tolerations get the toleration rules.
        let text = FLAVORS.replace("operator: Exists", "operator: Exist");
        // (A toleration that does not decode tolerates nothing: the suppression of
        // flavor-tolerates-own-taint then silences nothing, and says so.)
        let rules: Vec<(&str, Option<String>)> = crate::analyse(&text, &Options::default())
            .into_iter()
            .filter(|d| d.rule != "unused-suppression")
            .map(|d| (d.rule, d.path))
            .collect();
        assert_eq!(
            rules,
            [(
                "unknown-operator",
                Some("spec.tolerations[0].operator".to_string())
            )]
        );
    }

    /// For the one workload of `manifest`: per pool, the untolerated taints' keys, and where the
    /// tolerations came from that the manifest does not show.
    fn taints_per_pool(manifest: &str, inv: &Inventory) -> Vec<(Vec<String>, Vec<Source>)> {
        let results = simulate_text(manifest, &Options::default(), inv);
        assert_eq!(results.len(), 1);
        let sim = &results[0].simulation;
        inv.pools
            .iter()
            .zip(&sim.pools)
            .map(|(pool, v)| {
                let verdict = v.verdict_of(pool, 0);
                let untolerated = verdict
                    .reasons
                    .iter()
                    .filter_map(|r| match r {
                        Reason::Taint(i) => Some(pool.taints[*i].taint.key.clone()),
                        _ => None,
                    })
                    .collect();
                let granted = verdict.granted.iter().map(|(_, s)| s.clone()).collect();
                (untolerated, granted)
            })
            .collect()
    }

    #[test]
    fn a_flavors_tolerations_count_on_its_pool() {
        let inv = Inventory::load(&[("flavors.yaml", FLAVORS)]).unwrap();
        // The job tolerates the GPU taint; Kueue adds the spot toleration on the spot flavor.
        assert_eq!(
            taints_per_pool(GPU_JOB, &inv),
            [
                (vec![], vec![]),
                (
                    vec![],
                    vec![Source::ResourceFlavor("a100-spot".to_string(), 0)]
                ),
                (vec![], vec![]),
            ]
        );
        // Without the GPU toleration, no flavor with the GPU taint admits it.
        let untolerating = GPU_JOB.replace("nvidia.com/gpu", "example.com/other");
        let per_pool = taints_per_pool(&untolerating, &inv);
        assert_eq!(per_pool[0].0, ["nvidia.com/gpu"]);
        assert_eq!(per_pool[1].0, ["nvidia.com/gpu"]);
        // The flavor's toleration is its own: the on-demand flavor's taints are not tolerated
        // by it, and a flavor without that toleration keeps a spot taint.
        let no_toleration = FLAVORS.replace("  tolerations:\n    - key: example.com/spot\n      operator: Exists\n      effect: NoSchedule\n", "");
        let inv = Inventory::load(&[("flavors.yaml", no_toleration.as_str())]).unwrap();
        assert_eq!(taints_per_pool(GPU_JOB, &inv)[1].0, ["example.com/spot"]);
    }

    #[test]
    fn a_daemonset_gets_no_flavor_tolerations() {
        // Kueue admits no DaemonSet: the flavor's tolerations are not its.
        let inv = Inventory::load(&[("flavors.yaml", FLAVORS)]).unwrap();
        let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: exporter}\nspec:\n  template:\n    spec:\n      tolerations: [{key: nvidia.com/gpu, operator: Exists}]\n      containers: [{name: e, image: registry.example.com/exporter:1}]\n";
        assert_eq!(taints_per_pool(ds, &inv)[1].0, ["example.com/spot"]);
    }

    #[test]
    fn kubectl_get_resourceflavors_is_an_inventory() {
        // `kubectl get resourceflavors -o yaml`: a List of them, linted at their paths there.
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: ResourceFlavor\n  metadata: {name: spot}\n  spec:\n    nodeLabels: {instance-type: spot}\n    nodeTaints: [{key: spot, value: \"true\", effect: NoSchedul}]\n- apiVersion: kueue.x-k8s.io/v1beta2\n  kind: ResourceFlavor\n  metadata: {name: on-demand}\n  spec:\n    nodeLabels: {instance-type: on-demand}\n";
        let inv = Inventory::load(&[("rf.yaml", list)]).unwrap();
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["spot", "on-demand"]);
        assert_eq!(inv.files[0].invalid_taints, 1);
        let paths: Vec<Option<String>> = crate::analyse(list, &Options::default())
            .into_iter()
            .map(|d| d.path)
            .collect();
        assert_eq!(
            paths,
            [Some("items[0].spec.nodeTaints[0].effect".to_string())]
        );
    }

    #[test]
    fn a_flavor_without_a_name_is_an_error() {
        let e = Inventory::load(&[(
            "rf.yaml",
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nspec: {}\n",
        )])
        .unwrap_err();
        assert_eq!(
            e[0].to_string(),
            "rf.yaml:1:1: a ResourceFlavor without metadata.name"
        );
        // v1alpha2 (no longer served) kept its labels and taints elsewhere: not read as a pool
        // that would stand for any node.
        let old = "apiVersion: kueue.x-k8s.io/v1alpha2\nkind: ResourceFlavor\nmetadata: {name: spot}\nnodeSelector: {instance-type: spot}\ntaints: [{key: spot, value: \"true\", effect: NoSchedule}]\n";
        assert!(Inventory::load(&[("old.yaml", old)]).is_err());
    }
}
