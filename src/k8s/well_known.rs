//! Well-known taint keys (k8s.io/api/core/v1 well_known_taints.go) and their retired names,
//! and the catalog of the taint keys real clusters carry ([`CATALOG`]): Kubernetes' own, the
//! cloud providers', the accelerator device plugins', the autoscalers' and the add-ons', each
//! with the public source that names it.

/// Taint keys that Kubernetes itself sets: the condition taints first, then the control
/// plane's.
pub const WELL_KNOWN_TAINT_KEYS: &[&str] = &[
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/out-of-service",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "node.cloudprovider.kubernetes.io/shutdown",
    "node-role.kubernetes.io/control-plane",
];

/// Taint keys the node lifecycle controller and cloud providers set and clear as conditions
/// come and go (every well-known key but the control plane's): an inventory snapshot not
/// having them says nothing.
pub const CONDITION_TAINT_KEYS: &[&str] = WELL_KNOWN_TAINT_KEYS
    .split_at(WELL_KNOWN_TAINT_KEYS.len() - 1)
    .0;

/// Who puts a catalogued taint on nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Kubernetes itself (the node lifecycle controller, the kubelet, kubeadm).
    Kubernetes,
    /// A managed Kubernetes service (EKS, AKS, GKE) or a distribution.
    Provider,
    /// The nodes of an accelerator and its device plugin (by convention or by the operator).
    Accelerator,
    /// An autoscaler or machine manager (Karpenter, Cluster Autoscaler, Cluster API).
    Autoscaler,
    /// A cluster add-on that taints nodes until it is ready on them (CNI, CSI) or keeps nodes
    /// for itself.
    AddOn,
}

/// A taint key clusters carry, what it means and where that is written down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownTaint {
    pub key: &'static str,
    pub origin: Origin,
    /// Who sets it and on which nodes, in a few words (shown after the key).
    pub meaning: &'static str,
    /// The public source: a URL, or an upstream repository and file.
    pub source: &'static str,
}

const fn row(
    key: &'static str,
    origin: Origin,
    meaning: &'static str,
    source: &'static str,
) -> KnownTaint {
    KnownTaint {
        key,
        origin,
        meaning,
        source,
    }
}

const K8S_TAINTS: &str =
    "kubernetes/kubernetes staging/src/k8s.io/api/core/v1/well_known_taints.go";

/// The taint keys real clusters carry. One catalog: `misspelled-taint-key` compares keys with
/// it, hovers and completions describe keys from it. A key here is never reported as a
/// misspelling of another (`efs.` and `ebs.csi.aws.com/agent-not-ready` are both real).
#[rustfmt::skip]
pub const CATALOG: &[KnownTaint] = &[
    row("node.kubernetes.io/not-ready", Origin::Kubernetes, "set by the node lifecycle controller while the node is NotReady", K8S_TAINTS),
    row("node.kubernetes.io/unreachable", Origin::Kubernetes, "set by the node lifecycle controller while the node is Unknown (unreachable)", K8S_TAINTS),
    row("node.kubernetes.io/unschedulable", Origin::Kubernetes, "set on cordoned nodes (spec.unschedulable)", K8S_TAINTS),
    row("node.kubernetes.io/memory-pressure", Origin::Kubernetes, "set while the node reports MemoryPressure", K8S_TAINTS),
    row("node.kubernetes.io/disk-pressure", Origin::Kubernetes, "set while the node reports DiskPressure", K8S_TAINTS),
    row("node.kubernetes.io/network-unavailable", Origin::Kubernetes, "set while the node's network is not configured", K8S_TAINTS),
    row("node.kubernetes.io/pid-pressure", Origin::Kubernetes, "set while the node reports PIDPressure", K8S_TAINTS),
    row("node.kubernetes.io/out-of-service", Origin::Kubernetes, "set by an operator on a node shut down for good (non-graceful shutdown)", K8S_TAINTS),
    row("node.cloudprovider.kubernetes.io/uninitialized", Origin::Kubernetes, "set by the kubelet with an external cloud provider until the cloud controller initializes the node", K8S_TAINTS),
    row("node.cloudprovider.kubernetes.io/shutdown", Origin::Kubernetes, "set by the cloud controller on a node whose machine is shut down", K8S_TAINTS),
    row("node-role.kubernetes.io/control-plane", Origin::Kubernetes, "set by kubeadm on control-plane nodes", "kubernetes/kubernetes cmd/kubeadm/app/constants/constants.go (ControlPlaneTaint)"),
    row("CriticalAddonsOnly", Origin::Provider, "system node pools kept for cluster add-ons (AKS system pools, EKS Auto Mode's system NodePool)", "https://learn.microsoft.com/azure/aks/use-system-pools"),
    row("kubernetes.azure.com/scalesetpriority", Origin::Provider, "AKS Spot node pools (`spot:NoSchedule`)", "https://learn.microsoft.com/azure/aks/spot-node-pool"),
    row("virtual-kubelet.io/provider", Origin::Provider, "virtual nodes (AKS virtual nodes on Azure Container Instances)", "https://learn.microsoft.com/azure/aks/virtual-nodes-cli"),
    row("eks.amazonaws.com/compute-type", Origin::Provider, "EKS Fargate nodes (`fargate:NoSchedule`)", "https://docs.aws.amazon.com/eks/latest/userguide/fargate-pod-configuration.html"),
    row("cloud.google.com/gke-spot", Origin::Provider, "GKE Spot VM node pools when asked for (`true:NoSchedule`)", "https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms"),
    row("cloud.google.com/gke-preemptible", Origin::Provider, "GKE preemptible VM node pools when asked for (`true:NoSchedule`)", "https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms"),
    row("components.gke.io/gke-managed-components", Origin::Provider, "GKE node pools kept for GKE's managed components", "https://cloud.google.com/kubernetes-engine/docs/how-to/isolate-workloads-dedicated-nodes"),
    row("sandbox.gke.io/runtime", Origin::Provider, "GKE Sandbox (gVisor) node pools (`gvisor:NoSchedule`)", "https://cloud.google.com/kubernetes-engine/docs/how-to/sandbox-pods"),
    row("kubernetes.io/arch", Origin::Provider, "GKE Arm nodes (`arm64:NoSchedule`)", "https://cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment"),
    row("node-role.kubernetes.io/infra", Origin::Provider, "OpenShift infrastructure nodes", "https://docs.openshift.com/container-platform/latest/machine_management/creating-infrastructure-machinesets.html"),
    row("nvidia.com/gpu", Origin::Accelerator, "NVIDIA GPU nodes (GKE sets it, the NVIDIA device plugin's docs suggest it)", "https://github.com/NVIDIA/k8s-device-plugin#readme"),
    row("amd.com/gpu", Origin::Accelerator, "AMD GPU nodes (the AMD GPU device plugin's resource name)", "https://github.com/ROCm/k8s-device-plugin#readme"),
    row("aws.amazon.com/neuron", Origin::Accelerator, "AWS Inferentia and Trainium nodes (the Neuron device plugin's resource name)", "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/containers/kubernetes-getting-started.html"),
    row("habana.ai/gaudi", Origin::Accelerator, "Intel Gaudi (Habana) nodes (the Habana device plugin's resource name)", "https://docs.habana.ai/en/latest/Orchestration/Gaudi_Kubernetes/Device_Plugin_for_Kubernetes.html"),
    row("google.com/tpu", Origin::Accelerator, "GKE TPU nodes (`present:NoSchedule`)", "https://cloud.google.com/kubernetes-engine/docs/how-to/tpus"),
    row("sku", Origin::Accelerator, "GPU node pools as AKS's GPU guide taints them (`sku=gpu:NoSchedule`)", "https://learn.microsoft.com/azure/aks/gpu-cluster"),
    row("karpenter.sh/disrupted", Origin::Autoscaler, "set by Karpenter (v1) on nodes it is disrupting", "kubernetes-sigs/karpenter pkg/apis/v1/taints.go"),
    row("karpenter.sh/unregistered", Origin::Autoscaler, "set by Karpenter (v1) on nodes until they register", "kubernetes-sigs/karpenter pkg/apis/v1/taints.go"),
    row("karpenter.sh/disruption", Origin::Autoscaler, "set by Karpenter before v1 on nodes it is disrupting (`disrupting:NoSchedule`)", "kubernetes-sigs/karpenter pkg/apis/v1beta1/taints.go"),
    row("ToBeDeletedByClusterAutoscaler", Origin::Autoscaler, "set by the Cluster Autoscaler on nodes it is removing", "kubernetes/autoscaler cluster-autoscaler/utils/taints/taints.go"),
    row("DeletionCandidateOfClusterAutoscaler", Origin::Autoscaler, "set by the Cluster Autoscaler (PreferNoSchedule) on nodes it may remove", "kubernetes/autoscaler cluster-autoscaler/utils/taints/taints.go"),
    row("node.cluster.x-k8s.io/uninitialized", Origin::Autoscaler, "set by Cluster API until the machine's labels are synced", "kubernetes-sigs/cluster-api api/core/v1beta2/common_types.go"),
    row("node.cluster.x-k8s.io/outdated-revision", Origin::Autoscaler, "set by Cluster API on nodes of an outdated MachineSet", "kubernetes-sigs/cluster-api api/core/v1beta2/common_types.go"),
    row("node.cilium.io/agent-not-ready", Origin::AddOn, "Cilium's startup taint, removed when the agent is ready", "https://docs.cilium.io/en/stable/installation/taints/"),
    row("cni.istio.io/not-ready", Origin::AddOn, "Istio CNI's startup taint, removed when the CNI plugin is ready", "istio/istio pilot/pkg/controllers/untaint/nodeuntainter.go"),
    row("ebs.csi.aws.com/agent-not-ready", Origin::AddOn, "the EBS CSI driver's startup taint, removed when the node plugin is ready", "kubernetes-sigs/aws-ebs-csi-driver pkg/driver/node.go"),
    row("efs.csi.aws.com/agent-not-ready", Origin::AddOn, "the EFS CSI driver's startup taint, removed when the node plugin is ready", "https://github.com/kubernetes-sigs/aws-efs-csi-driver#readme"),
    row("kwok.x-k8s.io/node", Origin::AddOn, "fake nodes that KWOK simulates (`fake:NoSchedule`)", "https://kwok.sigs.k8s.io/docs/user/kwok-manage-nodes-and-pods/"),
];

/// The catalog as a Markdown page (docs/taint-keys.md), one table row per key with its source.
pub fn catalog_markdown() -> String {
    let mut out = String::from(
        "# Taint keys real clusters carry\n\n\
         Generated from taintlint's taint catalog (`src/k8s/well_known.rs`): \
         `misspelled-taint-key` compares keys with it (no inventory needed), and the language \
         server's hovers and completions describe these keys. Each row cites where the key is \
         written down.\n\n\
         | Key | Set by | On which nodes | Source |\n|---|---|---|---|\n",
    );
    for t in CATALOG {
        let by = match t.origin {
            Origin::Kubernetes => "Kubernetes",
            Origin::Provider => "cloud provider",
            Origin::Accelerator => "accelerator",
            Origin::Autoscaler => "autoscaler",
            Origin::AddOn => "add-on",
        };
        let source = if t.source.starts_with("https://") {
            format!("<{}>", t.source)
        } else {
            format!("`{}`", t.source)
        };
        out.push_str(&format!(
            "| `{}` | {by} | {} | {source} |\n",
            t.key,
            t.meaning.replace('|', "\\|")
        ));
    }
    out
}

/// The catalog's row for `key`, if it has one.
pub fn known_taint(key: &str) -> Option<&'static KnownTaint> {
    CATALOG.iter().find(|t| t.key == key)
}

/// Catalog keys shorter than this (`sku`) are never the key a typo is taken for: too many real
/// keys are a letter or two away from them.
const SHORTEST_TARGET: usize = 8;

/// Whether tolerating a taint of this key is an access decision, for a person to make: a taint
/// that keeps a pool for some workloads (`dedicated=<team>`, a tenant's, any key the catalog
/// does not know; the control plane's, `CriticalAddonsOnly`, GKE's managed components',
/// OpenShift's infrastructure nodes') rather than one that says what the node is or what state
/// it is in (a condition, an accelerator, Spot, Arm or Fargate capacity, a sandbox, an
/// autoscaler's or an add-on's passing taint). A fix never adds a toleration of one in bulk.
pub fn reserves_pool(key: &str) -> bool {
    match known_taint(key) {
        None => true,
        Some(k) => match k.origin {
            Origin::Kubernetes => key == "node-role.kubernetes.io/control-plane",
            Origin::Provider => matches!(
                key,
                "CriticalAddonsOnly"
                    | "components.gke.io/gke-managed-components"
                    | "node-role.kubernetes.io/infra"
            ),
            Origin::Accelerator | Origin::Autoscaler | Origin::AddOn => false,
        },
    }
}

pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// A retired taint key and what replaced it (`None`: nothing sets it any more).
pub struct Deprecated {
    pub key: &'static str,
    pub replacement: Option<&'static str>,
    pub note: &'static str,
}

const DEPRECATED: &[Deprecated] = &[
    Deprecated {
        key: "node.alpha.kubernetes.io/notReady",
        replacement: Some("node.kubernetes.io/not-ready"),
        note: "renamed in Kubernetes 1.9",
    },
    Deprecated {
        key: "node.alpha.kubernetes.io/unreachable",
        replacement: Some("node.kubernetes.io/unreachable"),
        note: "renamed in Kubernetes 1.9",
    },
    Deprecated {
        key: "node-role.kubernetes.io/master",
        replacement: Some("node-role.kubernetes.io/control-plane"),
        note: "kubeadm stopped setting it in Kubernetes 1.25",
    },
    Deprecated {
        key: "node.kubernetes.io/out-of-disk",
        replacement: None,
        note: "the OutOfDisk condition and its taint were removed in Kubernetes 1.13",
    },
];

/// The retired key `key` is, if it is one. Any other `node.alpha.kubernetes.io/` key is retired
/// too, with no replacement.
pub fn deprecated(key: &str) -> Option<Deprecated> {
    if let Some(d) = DEPRECATED.iter().find(|d| d.key == key) {
        return Some(Deprecated {
            key: d.key,
            replacement: d.replacement,
            note: d.note,
        });
    }
    key.starts_with("node.alpha.kubernetes.io/")
        .then_some(Deprecated {
            key: "node.alpha.kubernetes.io/*",
            replacement: None,
            note: "the node.alpha.kubernetes.io/ taints were retired in Kubernetes 1.9",
        })
}

/// The catalog key `key` is probably a misspelling of: not itself in the catalog or retired,
/// and one edit away from a catalog key (an insertion, a deletion, a substitution or two
/// neighbours swapped), or two for a key of 16 characters or more. The closest wins, then the
/// first in the catalog.
pub fn likely_misspelling(key: &str) -> Option<&'static str> {
    if known_taint(key).is_some() || deprecated(key).is_some() {
        return None;
    }
    let limit = if key.chars().count() >= 16 { 2 } else { 1 };
    CATALOG
        .iter()
        .map(|t| t.key)
        .filter(|known| known.len() >= SHORTEST_TARGET && known.len().abs_diff(key.len()) <= limit)
        .map(|known| (typo_distance(key, known, limit), known))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, known)| known)
}

/// The edit distance of `a` and `b` counting a swap of two neighbouring characters as one edit
/// (optimal string alignment), giving up (returning `limit + 1`) past `limit`.
pub fn typo_distance(a: &str, b: &str, limit: usize) -> usize {
    if a.is_ascii() && b.is_ascii() {
        // Taint keys are ASCII (qualified names): bytes, without collecting characters.
        osa(a.as_bytes(), b.as_bytes(), limit)
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        osa(&a, &b, limit)
    }
}

/// [`typo_distance`] over two sequences, with three rolling rows of the distance table (the
/// row before last is what a swap of neighbours looks back to).
fn osa<T: PartialEq>(a: &[T], b: &[T], limit: usize) -> usize {
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let m = b.len();
    let mut rows = vec![0usize; 3 * (m + 1)];
    let (mut before, mut prev, mut cur) = (0, m + 1, 2 * (m + 1));
    for (j, cell) in rows[prev..prev + m + 1].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[cur] = i;
        let mut row_min = i;
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (rows[prev + j] + 1)
                .min(rows[cur + j - 1] + 1)
                .min(rows[prev + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(rows[before + j - 2] + 1);
            }
            rows[cur + j] = v;
            row_min = row_min.min(v);
        }
        // Each cell comes from its own row, the row before (plus 0 or 1) or, by a swap, the
        // row two before plus 1, which is never less than the row between's least value: so
        // no row's least value is less than the row before's, and past `limit` it stays so.
        if row_min > limit {
            return limit + 1;
        }
        (before, prev, cur) = (prev, cur, before);
    }
    rows[prev + m].min(limit + 1)
}

/// Levenshtein distance over characters, giving up (returning `limit + 1`) once it must exceed
/// `limit`.
pub fn edit_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            row_min = row_min.min(cur[j]);
        }
        if row_min > limit {
            return limit + 1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(limit + 1)
}

#[cfg(test)]
mod tests {

    /// The rolling-row distance equals the whole table's (optimal string alignment), for
    /// characters and bytes alike, whatever the limit.
    #[test]
    fn typo_distance_is_the_whole_tables() {
        fn table(a: &str, b: &str) -> usize {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for i in 0..=a.len() {
                for j in 0..=b.len() {
                    d[i][j] = if i == 0 || j == 0 {
                        i + j
                    } else {
                        let cost = usize::from(a[i - 1] != b[j - 1]);
                        let mut v = (d[i - 1][j] + 1)
                            .min(d[i][j - 1] + 1)
                            .min(d[i - 1][j - 1] + cost);
                        if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                            v = v.min(d[i - 2][j - 2] + 1);
                        }
                        v
                    };
                }
            }
            d[a.len()][b.len()]
        }
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "acb",
            "nvidia.com/gpu",
            "nvidia.com/gpus",
            "nvidia.com/pgu",
            "amd.com/gpuu",
            "CriticalAddonsOnly",
            "CriticalAddonOnly",
            "kubernetes.azure.com/scalesetpriority",
            "kubernetes.azure.com/scalesetpriorty",
            "ümlaut/ä",
            "umlaut/a",
        ];
        for a in words {
            for b in words {
                for limit in 0..4 {
                    assert_eq!(
                        typo_distance(a, b, limit),
                        table(a, b).min(limit + 1),
                        "{a:?} {b:?} {limit}"
                    );
                }
            }
        }
    }

    use super::*;

    #[test]
    fn condition_keys_are_the_well_known_ones_but_the_control_plane() {
        assert_eq!(CONDITION_TAINT_KEYS.len() + 1, WELL_KNOWN_TAINT_KEYS.len());
        assert!(!CONDITION_TAINT_KEYS.contains(&"node-role.kubernetes.io/control-plane"));
        assert!(CONDITION_TAINT_KEYS.contains(&NOT_READY));
        assert!(CONDITION_TAINT_KEYS.contains(&"node.cloudprovider.kubernetes.io/shutdown"));
    }

    #[test]
    fn misspellings() {
        assert_eq!(
            likely_misspelling("node.kubernetes.io/net-ready"),
            Some("node.kubernetes.io/not-ready")
        );
        assert_eq!(
            likely_misspelling("node.kubernetes.io/unreachible"),
            Some("node.kubernetes.io/unreachable")
        );
        assert_eq!(likely_misspelling("node.kubernetes.io/not-ready"), None);
        assert_eq!(likely_misspelling("dedicated"), None);
        assert_eq!(likely_misspelling("node-role.kubernetes.io/master"), None);
        assert_eq!(likely_misspelling("nvidia.com/gpu"), None);
    }

    #[test]
    fn the_keys_people_type_wrong_on_real_clusters() {
        for (typo, key) in [
            ("nvidia.com/gpus", "nvidia.com/gpu"),
            ("amd.com/gpuu", "amd.com/gpu"),
            (
                "kubernetes.azure.com/scalesetpriorty",
                "kubernetes.azure.com/scalesetpriority",
            ),
            ("CriticalAddonOnly", "CriticalAddonsOnly"),
            ("karpenter.sh/disrupt", "karpenter.sh/disrupted"),
            (
                "node.cilium.io/agent-not-redy",
                "node.cilium.io/agent-not-ready",
            ),
            ("aws.amazon.com/nueron", "aws.amazon.com/neuron"),
        ] {
            assert_eq!(likely_misspelling(typo), Some(key), "{typo}");
        }
        // Other keys a letter or two from a catalog key: short keys are never targets, and
        // keys under 16 characters get one edit only.
        for other in [
            "sky",
            "skus",
            "nvidia.com/mig",
            "amd.com/cpu1",
            "google.com/gpus",
            "example.com/gpu",
        ] {
            assert_eq!(likely_misspelling(other), None, "{other}");
        }
    }

    #[test]
    fn no_catalog_key_is_taken_for_a_misspelling_of_another() {
        for t in CATALOG {
            assert_eq!(likely_misspelling(t.key), None, "{}", t.key);
            assert!(!t.meaning.is_empty() && !t.source.is_empty(), "{}", t.key);
            assert!(
                t.source.starts_with("https://") || t.source.contains('/'),
                "{}: a URL or an upstream repository and file",
                t.key
            );
            assert!(
                crate::k8s::names::is_qualified_name(t.key).is_empty(),
                "{}",
                t.key
            );
        }
        let mut keys: Vec<_> = CATALOG.iter().map(|t| t.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), CATALOG.len(), "a key is catalogued once");
    }

    #[test]
    fn the_kubernetes_rows_are_the_well_known_keys() {
        let rows: Vec<_> = CATALOG
            .iter()
            .filter(|t| t.origin == Origin::Kubernetes)
            .map(|t| t.key)
            .collect();
        assert_eq!(rows, WELL_KNOWN_TAINT_KEYS);
    }

    #[test]
    fn swaps_are_one_edit() {
        assert_eq!(typo_distance("priorty", "priority", 2), 1);
        assert_eq!(typo_distance("ab", "ba", 2), 1);
        assert_eq!(typo_distance("abc", "abc", 1), 0);
        assert_eq!(typo_distance("kitten", "sitting", 2), 3);
    }

    /// A taint that keeps a pool for some workloads, against one that says what a node is or
    /// what state it is in.
    #[test]
    fn which_taints_reserve_a_pool() {
        for key in [
            "dedicated",
            "example.com/team",
            "tenant",
            "node-role.kubernetes.io/control-plane",
            "CriticalAddonsOnly",
            "node-role.kubernetes.io/infra",
            "components.gke.io/gke-managed-components",
        ] {
            assert!(reserves_pool(key), "{key}");
        }
        for key in [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unschedulable",
            "nvidia.com/gpu",
            "google.com/tpu",
            "kubernetes.azure.com/scalesetpriority",
            "cloud.google.com/gke-spot",
            "kubernetes.io/arch",
            "sandbox.gke.io/runtime",
            "karpenter.sh/disrupted",
            "node.cilium.io/agent-not-ready",
        ] {
            assert!(!reserves_pool(key), "{key}");
        }
    }

    #[test]
    fn deprecations() {
        assert_eq!(
            deprecated("node-role.kubernetes.io/master").and_then(|d| d.replacement),
            Some("node-role.kubernetes.io/control-plane")
        );
        assert!(deprecated("node.alpha.kubernetes.io/ismaster").is_some());
        assert!(deprecated("node.kubernetes.io/not-ready").is_none());
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kitten", "sitting", 5), 3);
        assert_eq!(edit_distance("kitten", "sitting", 2), 3);
        assert_eq!(edit_distance("", "ab", 2), 2);
        assert_eq!(edit_distance("same", "same", 2), 0);
        // Past the limit, by the lengths alone or by a row, the answer is `limit + 1`: a caller
        // that asks "within 2?" must not be told 2.
        assert_eq!(edit_distance("", "abcd", 2), 3);
        assert_eq!(edit_distance("abcdef", "a", 1), 2);
        assert_eq!(edit_distance("abcd", "wxyz", 2), 3);
        assert_eq!(edit_distance("abcd", "wxyz", 1), 2);
        // A deletion costs one, and a distance equal to the limit is within it.
        assert_eq!(edit_distance("ab", "a", 2), 1);
        assert_eq!(edit_distance("abc", "ac", 2), 1);
        assert_eq!(edit_distance("abc", "abd", 1), 1);
        assert_eq!(edit_distance("abc", "xbz", 2), 2);
    }
}
