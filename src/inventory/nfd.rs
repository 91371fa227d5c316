//! node-feature-discovery NodeFeatureRules (`nfd.k8s-sigs.io/v1alpha1`) as node pools.
//!
//! A rule of a NodeFeatureRule labels and taints the nodes whose features it matches
//! (kubernetes-sigs/node-feature-discovery api/nfd/v1alpha1/types.go: `Rule.Labels`,
//! `Rule.Taints`; docs/usage/customization-guide.md, "Node tainting"). Which nodes those are
//! depends on what nfd-worker finds on each (`matchFeatures`, `matchAny`: CPU flags, PCI
//! devices, kernel modules), and nfd-master applies the taints only when it runs with
//! `--enable-taints` (off by default): neither can be known from files. So a rule with taints is
//! read as a pool of its own, standing for the nodes it matches, of an unknown number: its
//! taints those nfd-master keeps (it drops, with a log line, a taint without a prefix, under
//! `kubernetes.io` other than `feature.node.kubernetes.io`, or without a valid effect:
//! pkg/apis/nfd/validate/validate.go `Taint`, called by `filterTaints`), its labels the rule's
//! `labels` with the prefix nfd-master adds to a name without one (`feature.node.kubernetes.io/`,
//! `addNsToMapKeys`; a value taken from a feature, `@kernel.version.major`, is unknown). Each
//! such pool comes with a note that says what cannot be known offline: the nodes of the other
//! pools may carry the rule's taints too.

use super::nodes::{scalar_text, taints};
use super::terraform::Unread;
use super::{Count, Loc, ParseError, RawNode};
use crate::k8s::objects::{is_feature_rule, resolve, List};
use crate::syntax::{Document, NodeId};

/// The kind of the pools NodeFeatureRules' rules stand for.
pub(crate) const KIND: &str = "nodefeaturerule";

/// The prefix nfd-master adds to a label name without one.
const LABEL_PREFIX: &str = "feature.node.kubernetes.io";

/// Whether a document is a NodeFeatureRule.
pub(crate) fn is_feature_rule_object(doc: &Document<'_>, root: NodeId) -> bool {
    is_feature_rule(doc.get_str(root, "apiVersion"), doc.get_str(root, "kind"))
}

/// Reads one NodeFeatureRule: a pool for each rule with taints, the number of taints left out
/// (invalid to the API server, or dropped by nfd-master), and the note for each pool.
pub(crate) fn read(
    file: usize,
    doc: &Document<'_>,
    root: NodeId,
    index: usize,
) -> Result<(Vec<RawNode>, usize, Vec<Unread>), ParseError> {
    let object = doc
        .get(root, "metadata")
        .and_then(|(_, m)| doc.get_str(m, "name"))
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            ParseError::at(
                doc.node(root).span.start,
                "a NodeFeatureRule without metadata.name",
            )
        })?;
    let (mut nodes, mut invalid, mut notes) = (Vec::new(), 0, Vec::new());
    for (k, (rule, path)) in resolve(doc, root, "", "spec.rules[]")
        .into_iter()
        .enumerate()
    {
        let Some((key, list)) = doc.get(rule, "taints") else {
            continue;
        };
        let list = List {
            node: list,
            key,
            path: format!("{path}.taints"),
            object: None,
            whole: false,
        };
        let (found, left_out) = taints(file, doc, &list);
        let (kept, dropped): (Vec<_>, Vec<_>) =
            found.into_iter().partition(|t| nfd_keeps(&t.taint.key));
        invalid += left_out + dropped.len();
        // nfd-master adds them one by one with `AddOrUpdateTaint` (k8s.io/kubernetes
        // pkg/util/taints), which replaces a taint of the same key and effect: the last wins.
        let kept: Vec<_> = kept
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                !kept[i + 1..]
                    .iter()
                    .any(|o| o.taint.key == t.taint.key && o.taint.effect == t.taint.effect)
            })
            .map(|(_, t)| t.clone())
            .collect();
        if kept.is_empty() {
            continue;
        }
        let rule_name = doc
            .get_str(rule, "name")
            .filter(|n| !n.is_empty())
            .map_or_else(|| format!("rule-{k}"), str::to_string);
        let name = format!("{object}/{rule_name}");
        let at = Loc {
            file,
            range: doc.node(rule).span.clone(),
        };
        let mut node =
            RawNode::defined(name.clone(), KIND, at.clone(), (index, k), Count::default());
        node.taints = kept;
        node.labels = rule_labels(doc, rule);
        nodes.push(node);
        notes.push(Unread {
            at: at.range,
            message: format!(
                "NodeFeatureRule {object}, rule {rule_name:?}: which nodes it matches (by the \
                 features nfd-worker finds on them) cannot be known offline, nor whether \
                 nfd-master runs with --enable-taints; pool {name} stands for the nodes it \
                 matches, and the nodes of other pools may carry its taints too"
            ),
        });
    }
    Ok((nodes, invalid, notes))
}

/// Whether nfd-master keeps a taint of this key (validate.go `Taint`; the effect is checked by
/// [`crate::k8s::objects::Item::taint`] already).
fn nfd_keeps(key: &str) -> bool {
    let Some((ns, _)) = key.split_once('/') else {
        return false;
    };
    let kubernetes = ns == "kubernetes.io" || ns.ends_with(".kubernetes.io");
    let allowed = ns == LABEL_PREFIX || ns.ends_with(".feature.node.kubernetes.io");
    !ns.is_empty() && (!kubernetes || allowed)
}

/// A rule's labels as nfd-master writes them: a name without a prefix gets
/// `feature.node.kubernetes.io/` (unless the same name with it is there too), and a value taken
/// from a feature (`@kernel.version.major`) is not known, so that label is left out.
fn rule_labels(doc: &Document<'_>, rule: NodeId) -> Vec<(String, String)> {
    let Some((_, labels)) = doc.get(rule, "labels") else {
        return Vec::new();
    };
    let written: Vec<(String, String)> = doc
        .mapping(labels)
        .unwrap_or_default()
        .iter()
        .filter_map(|&(k, v)| Some((scalar_text(doc, k)?, scalar_text(doc, v)?)))
        .collect();
    let mut out = Vec::new();
    for (key, value) in &written {
        if value.starts_with('@') {
            continue;
        }
        if key.contains('/') {
            out.push((key.clone(), value.clone()));
        } else {
            let full = format!("{LABEL_PREFIX}/{key}");
            if !written.iter().any(|(k, _)| *k == full) {
                out.push((full, value.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::config::Options;
    use crate::inventory::Inventory;
    use crate::schedule::simulate_text;

    // After node-feature-discovery's own sample (deployment/base/nfd-crds/cr-sample.yaml: a
    // rule with a PreferNoSchedule and a NoExecute taint beside its labels) and the taint rule
    // of its customization guide, with one rule that taints nothing and one taint nfd-master
    // drops.
    const RULES: &str = "\
apiVersion: nfd.k8s-sigs.io/v1alpha1
kind: NodeFeatureRule
metadata:
  name: gpu-nodes
spec:
  rules:
    - name: nvidia
      labels:
        nvidia-gpu: \"true\"
        example.com/accelerator: nvidia
        kernel-major: \"@kernel.version.major\"
      taints:
        - key: feature.node.kubernetes.io/gpu
          value: nvidia
          effect: NoSchedule
        - key: dedicated
          effect: NoSchedule
      matchFeatures:
        - feature: pci.device
          matchExpressions:
            vendor: {op: In, value: [\"10de\"]}
    - name: avx512
      labels:
        avx512: \"true\"
      matchFeatures:
        - feature: cpu.cpuid
          matchExpressions:
            AVX512F: {op: Exists}
";

    #[test]
    fn a_rule_with_taints_is_a_pool_of_the_nodes_it_matches() {
        let inv = Inventory::load(&[("rules.yaml", RULES)]).unwrap();
        assert_eq!(inv.pools.len(), 1);
        let pool = &inv.pools[0];
        assert_eq!(pool.name, "gpu-nodes/nvidia");
        assert_eq!(pool.kind(), "nodefeaturerule");
        assert_eq!(pool.size(), "count unknown");
        let taints: Vec<String> = pool.taints.iter().map(|t| t.taint.to_string()).collect();
        assert_eq!(taints, ["feature.node.kubernetes.io/gpu=nvidia:NoSchedule"]);
        assert_eq!(
            pool.label(None, "feature.node.kubernetes.io/nvidia-gpu"),
            Some("true")
        );
        assert_eq!(pool.label(None, "example.com/accelerator"), Some("nvidia"));
        assert_eq!(
            pool.label(None, "feature.node.kubernetes.io/kernel-major"),
            None
        );
        // The unprefixed taint nfd-master drops is left out, and the note says what files
        // cannot tell.
        assert_eq!(inv.files[0].invalid_taints, 1);
        assert_eq!(inv.files[0].unread.len(), 1);
        let note = &inv.files[0].unread[0].message;
        assert!(
            note.contains("cannot be known offline") && note.contains("--enable-taints"),
            "{note}"
        );
        assert!(RULES[inv.files[0].unread[0].at.clone()].starts_with("name: nvidia"));
        // A GPU job that tolerates the taint fits the rule's nodes; one that does not, does not.
        let job = |toleration: &str| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: \
                 c, image: i}}]\n  tolerations: [{toleration}]\n"
            )
        };
        let fits = |text: &str| {
            simulate_text(text, &Options::default(), &inv)[0]
                .simulation
                .fits_anywhere()
        };
        assert!(fits(&job(
            "{key: feature.node.kubernetes.io/gpu, operator: Exists}"
        )));
        assert!(!fits(&job("{key: other, operator: Exists}")));
    }

    /// A NodeFeatureRule whose rules taint nothing defines no node.
    #[test]
    fn rules_without_taints_define_no_pool() {
        let labels_only = RULES.replace("      taints:", "      notTaints:");
        assert!(Inventory::load(&[("rules.yaml", labels_only.as_str())]).is_err());
    }
}
