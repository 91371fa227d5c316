//! What the nodes of a pool offer the scheduler: per resource, the least and the most one node
//! has allocatable. Listed nodes say it in `status.allocatable` (else `status.capacity`); a
//! compact pool file in `allocatable:`; a pool defined as code implies it for accelerators
//! through what it says of instance types (Karpenter's `karpenter.k8s.aws/instance-family`,
//! `-category`, `-gpu-count`, `-gpu-manufacturer`, `-gpu-name` requirements). Where it says
//! nothing, the amount is unknown, and a pod that asks for it may fit.
//!
//! A pool keeps one [`Capacity`] whatever its size: nodes of one pool that differ only in their
//! allocatable stay one pool, with the range of what they offer.

use crate::k8s::resources::Resources;

use super::instance_types::{self, InstanceType};
use super::PoolRequirement;

/// What one node of a pool offers of a resource: at least `min`, at most `max` (`None`: no
/// bound known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub name: String,
    pub min: u128,
    pub max: Option<u128>,
}

/// What the nodes of a pool offer, per resource.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capacity {
    /// Sorted by name.
    pub offers: Vec<Offer>,
    /// What a resource not in `offers` is.
    pub unlisted: Unlisted,
    /// The instance types the nodes may be, where the definition names only known ones
    /// ([`instance_types`]); empty when unknown.
    pub types: Vec<&'static InstanceType>,
    /// Whether `types` are all the types the nodes may be; else (a Karpenter NodePool whose
    /// requirements leave the instance types open) they are only some of them.
    pub closed: bool,
    /// Whether the pool makes its nodes for the pods that wait (Karpenter launches the
    /// instance type that fits the pending pod, aws/karpenter-provider-aws
    /// `pkg/providers/instance` over kubernetes-sigs/karpenter
    /// `pkg/controllers/provisioning/scheduling`): a pod fits if one of `types` offers all it
    /// asks, rather than every node.
    pub sized: bool,
    /// Whether the nodes' machine has no GPU at all (its type says so): a GPU device resource
    /// ([`is_gpu_device`]) not in `offers` is absent, whole GPUs and their partitions alike.
    pub no_gpus: bool,
}

/// Whether a resource is a GPU device or a partition of one, as the vendors' device plugins
/// name them: `nvidia.com/gpu`, `nvidia.com/mig-3g.40gb`, `amd.com/gpu`, `gpu.intel.com/i915`.
pub fn is_gpu_device(name: &str) -> bool {
    ["nvidia.com/", "amd.com/", "gpu.intel.com/"]
        .iter()
        .any(|v| name.starts_with(v))
}

/// What a resource a pool's capacity does not list is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unlisted {
    /// Unknown: the definition does not say what its nodes offer.
    #[default]
    Unknown,
    /// Absent: nodes that report their allocatable (`status.allocatable`) list every resource
    /// they have.
    Absent,
    /// What the kubelet reports on every node ([`reported_by_kubelet`]) is unknown, any other
    /// (an extended resource, which only a device plugin or an operator advertises) absent: a
    /// pool file's `allocatable`, written by a person who names what sets the nodes apart.
    Extended,
}

/// Whether every node has `name` in its allocatable, as the kubelet reports it: CPU, memory,
/// ephemeral storage, pods and huge pages (kubernetes/kubernetes pkg/kubelet/cm
/// `GetNodeAllocatableAbsolute` over the node's capacity, pkg/kubelet/nodestatus/setters.go
/// `MachineInfo`).
pub fn reported_by_kubelet(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage" | "pods")
        || name.starts_with("hugepages-")
}

/// How much of `name` every node offers, whatever the pool: a request up to it fits a pool that
/// does not say what its nodes offer; a larger one may fit. CPU, memory and ephemeral storage
/// only (an extended resource is on the nodes whose device plugin advertises it: none is
/// certain).
///
/// The floor is what the smallest nodes the managed platforms run keep allocatable once the
/// kubelet's reservations are taken: a 1 GiB node (GKE `e2-micro`, EKS `t3.micro`) keeps about
/// 600 MiB of memory (GKE reserves 25% of the first 4 GiB and a 100 MiB eviction threshold,
/// cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes; the EKS AMI 255 MiB plus
/// 11 MiB a pod and the same threshold, awslabs/amazon-eks-ami files/bootstrap.sh
/// `get_memory_mebibytes_to_reserve`),
/// and GKE's shared-core types 940m of CPU (the same page); a node's disk, whatever its size, at
/// least a gibibyte for pods. Requests below it are the common case (a sidecar's 100m and
/// 128Mi): saying "may fit" of each would bury the pods that ask for more than a small node has.
pub fn floor(name: &str) -> u128 {
    match name {
        "cpu" => 500,
        "memory" => 512 << 20,
        "ephemeral-storage" => 1 << 30,
        _ => 0,
    }
}

/// The TPU chips GKE's TPU nodes advertise ("the `google.com/tpu` resource",
/// cloud.google.com/kubernetes-engine/docs/how-to/tpus).
pub const TPU: &str = "google.com/tpu";

/// The accelerator resources the device plugins of the common platforms advertise.
pub const ACCELERATORS: &[&str] = &[
    "nvidia.com/gpu",
    "amd.com/gpu",
    "aws.amazon.com/neuron",
    "aws.amazon.com/neuroncore",
    "habana.ai/gaudi",
];

impl Capacity {
    /// Every node reports exactly `r`.
    pub fn exact(r: &Resources) -> Capacity {
        Capacity {
            offers: r
                .iter()
                .map(|(name, a)| Offer {
                    name: name.to_string(),
                    min: a,
                    max: Some(a),
                })
                .collect(),
            unlisted: Unlisted::Absent,
            ..Capacity::default()
        }
    }

    /// Nodes with exactly `n` NVIDIA GPUs and no other accelerator; other resources unknown.
    pub fn gpus(n: u128) -> Capacity {
        let mut cap = Capacity::default();
        for a in ACCELERATORS {
            let k = if *a == "nvidia.com/gpu" { n } else { 0 };
            cap.set(a, k, Some(k));
        }
        cap
    }

    /// Nodes that each offer at least `min` and at most `max` (per resource; a resource
    /// missing from `min` is one some node lacks).
    pub fn range(min: &Resources, max: &Resources) -> Capacity {
        Capacity {
            offers: max
                .iter()
                .map(|(name, most)| Offer {
                    name: name.to_string(),
                    min: min.get(name),
                    max: Some(most),
                })
                .collect(),
            unlisted: Unlisted::Absent,
            ..Capacity::default()
        }
    }

    /// What one node offers of `name`: `(least, most)`, `most` `None` when unbounded;
    /// `None` when unknown.
    pub fn offer(&self, name: &str) -> Option<(u128, Option<u128>)> {
        match self.offers.binary_search_by(|o| o.name.as_str().cmp(name)) {
            Ok(i) => Some((self.offers[i].min, self.offers[i].max)),
            Err(_) if self.no_gpus && is_gpu_device(name) => Some((0, Some(0))),
            Err(_) => match self.unlisted {
                Unlisted::Absent => Some((0, Some(0))),
                Unlisted::Extended if !reported_by_kubelet(name) => Some((0, Some(0))),
                _ => None,
            },
        }
    }

    /// Whether one of the pool's instance types offers all of `requests` that the table
    /// knows, when the pool makes its nodes to fit ([`Capacity::sized`]); `false` otherwise.
    pub fn one_type_fits(&self, requests: &Resources) -> bool {
        self.sized
            && self.types.iter().any(|t| {
                requests
                    .iter()
                    .all(|(name, asked)| t.offers(name).is_none_or(|has| asked <= has))
            })
    }

    /// The nodes are of these instance types: what they offer of CPU, memory and accelerators
    /// ranges over the types.
    fn of_types(&mut self, types: Vec<&'static InstanceType>, sized: bool) {
        let resources = ["cpu", "memory"]
            .into_iter()
            .chain(ACCELERATORS.iter().copied());
        for name in resources {
            let offered = types.iter().filter_map(|t| t.offers(name));
            if let (Some(min), Some(max)) = (offered.clone().min(), offered.max()) {
                self.set(name, min, Some(max));
            }
        }
        self.types = types;
        self.sized = sized;
        self.closed = true;
    }

    /// For a Karpenter NodePool: keeps the instance types whose capacity is within the
    /// NodePool's `limits` (Karpenter launches no node that would exceed them), and, where the
    /// requirements leave the types open on AWS, takes the table's types they allow as some of
    /// the types Karpenter may launch: a pod one of them fits, fits.
    pub fn within_limits(
        &mut self,
        reqs: &[PoolRequirement],
        aws: bool,
        cpu: Option<u128>,
        memory: Option<u128>,
    ) {
        let within = |t: &&InstanceType| {
            cpu.is_none_or(|c| u128::from(t.cpu) * 1000 <= c)
                && memory.is_none_or(|m| u128::from(t.memory) << 20 <= m)
        };
        if self.closed {
            let kept: Vec<&'static InstanceType> =
                self.types.iter().copied().filter(within).collect();
            if !kept.is_empty() && kept.len() < self.types.len() {
                self.of_types(kept, true);
            }
        } else if aws {
            if let Some(some) = instance_types::some_allowed(reqs) {
                self.types = some.into_iter().filter(within).collect();
                self.sized = true;
            }
        }
    }

    /// Takes from `other` what this capacity leaves unknown (a resource it does not list and
    /// does not know to be absent), and its instance types when it has none; whether anything
    /// was taken.
    pub fn fill_from(&mut self, other: &Capacity) -> bool {
        let mut changed = false;
        for o in &other.offers {
            if self.offer(&o.name).is_none() {
                self.set(&o.name, o.min, o.max);
                changed = true;
            }
        }
        if self.types.is_empty() && !other.types.is_empty() {
            self.types.clone_from(&other.types);
            self.closed = other.closed;
            changed = true;
        }
        changed
    }

    pub(crate) fn set(&mut self, name: &str, min: u128, max: Option<u128>) {
        let offer = Offer {
            name: name.to_string(),
            min,
            max,
        };
        match self.offers.binary_search_by(|o| o.name.as_str().cmp(name)) {
            Ok(i) => self.offers[i] = offer,
            Err(i) => self.offers.insert(i, offer),
        }
    }
}

/// The accelerators of an AWS instance family (`g5`, `p4d`, `inf2`): the resource its device
/// plugin advertises, or `None` for a family without accelerators. From the EC2 accelerated
/// computing instance types (docs.aws.amazon.com/ec2/latest/instancetypes/ac.html) and the
/// resources their device plugins advertise (NVIDIA, AMD, the Neuron and Gaudi plugins).
fn family_accelerator(family: &str) -> Option<&'static str> {
    let f = family.to_ascii_lowercase();
    if f.starts_with("g4ad") {
        Some("amd.com/gpu")
    } else if f.starts_with("inf") || f.starts_with("trn") {
        Some("aws.amazon.com/neuron")
    } else if f.starts_with("dl1") {
        Some("habana.ai/gaudi")
    } else if f.starts_with('p') || f.starts_with('g') {
        Some("nvidia.com/gpu")
    } else {
        None
    }
}

/// `g5.2xlarge`, `m6i.large`, `p4d.24xlarge`: a family (letters, a generation digit, options)
/// and a size.
fn is_aws_instance_type(t: &str) -> bool {
    let Some((family, size)) = t.split_once('.') else {
        return false;
    };
    let lower = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    family.starts_with(|c: char| c.is_ascii_lowercase())
        && family.bytes().any(|b| b.is_ascii_digit())
        && lower(family)
        && !size.is_empty()
        && lower(size)
}

/// The instance categories (`karpenter.k8s.aws/instance-category`) that hold accelerators.
fn category_accelerators(category: &str) -> &'static [&'static str] {
    match category.to_ascii_lowercase().as_str() {
        "p" | "g" => &["nvidia.com/gpu", "amd.com/gpu"],
        "inf" | "trn" => &["aws.amazon.com/neuron"],
        "dl" => &["habana.ai/gaudi"],
        _ => &[],
    }
}

/// What a node group of these AWS instance types (`g5.2xlarge`, `m6i.large`) implies about its
/// accelerators, as [`from_requirements`] reads a `node.kubernetes.io/instance-type`
/// requirement, and, where [`instance_types`] knows them all, what its nodes offer of CPU,
/// memory and accelerators; unknown with no type given. The group's nodes are of any of the
/// types: a pod fits those that offer enough.
pub fn from_instance_types(types: &[String]) -> Capacity {
    if types.is_empty() {
        return Capacity::default();
    }
    let mut cap = from_requirements(&[PoolRequirement {
        key: "node.kubernetes.io/instance-type".to_string(),
        operator: "In".to_string(),
        values: types.to_vec(),
    }]);
    cap.sized = false;
    cap
}

/// What a Karpenter NodePool's requirements imply about the accelerators of the nodes it makes.
/// Other resources stay unknown (any instance type the requirements allow may be picked).
pub fn from_requirements(reqs: &[PoolRequirement]) -> Capacity {
    let mut cap = Capacity::default();
    let req = |key: &str| reqs.iter().find(|r| r.key == key);
    // Which accelerator resources the allowed instance types can have: `None` is any.
    let mut kinds: Option<Vec<&'static str>> = None;
    let narrow = |kinds: &mut Option<Vec<&'static str>>, allowed: Vec<&'static str>| {
        let mut next: Vec<&'static str> = match kinds.take() {
            None => allowed,
            Some(k) => k.into_iter().filter(|a| allowed.contains(a)).collect(),
        };
        next.sort_unstable();
        next.dedup();
        *kinds = Some(next);
    };
    if let Some(r) = req("karpenter.k8s.aws/instance-family").filter(|r| r.operator == "In") {
        narrow(
            &mut kinds,
            r.values
                .iter()
                .filter_map(|f| family_accelerator(f))
                .collect(),
        );
    }
    // Only AWS instance types (`g5.2xlarge`) are known; another provider's (`Standard_NC6`)
    // say nothing here.
    if let Some(r) = req("node.kubernetes.io/instance-type")
        .filter(|r| r.operator == "In" && r.values.iter().all(|t| is_aws_instance_type(t)))
    {
        narrow(
            &mut kinds,
            r.values
                .iter()
                .filter_map(|t| family_accelerator(t.split('.').next().unwrap_or(t)))
                .collect(),
        );
    }
    if let Some(r) = req("karpenter.k8s.aws/instance-category").filter(|r| r.operator == "In") {
        narrow(
            &mut kinds,
            r.values
                .iter()
                .flat_map(|c| category_accelerators(c).iter().copied())
                .collect(),
        );
    }
    if let Some(r) =
        req("karpenter.k8s.aws/instance-gpu-manufacturer").filter(|r| r.operator == "In")
    {
        let allowed = r
            .values
            .iter()
            .filter_map(|m| match m.to_ascii_lowercase().as_str() {
                "nvidia" => Some("nvidia.com/gpu"),
                "amd" => Some("amd.com/gpu"),
                _ => None,
            })
            .collect();
        narrow(&mut kinds, allowed);
    }
    // The GPU count bounds: `instance-gpu-count` (Karpenter's Gt/Lt/In, or no GPU at all).
    let mut gpus: (u128, Option<u128>) = (0, None);
    let mut gpu_count_known = false;
    if let Some(r) = req("karpenter.k8s.aws/instance-gpu-count") {
        let nums: Vec<u128> = r.values.iter().filter_map(|v| v.parse().ok()).collect();
        gpu_count_known = true;
        gpus = match r.operator.as_str() {
            "In" if !nums.is_empty() => {
                (*nums.iter().min().unwrap_or(&0), nums.iter().max().copied())
            }
            "Gt" => (nums.first().map_or(0, |n| n + 1), None),
            "Gte" => (nums.first().copied().unwrap_or(0), None),
            "Lt" => (0, nums.first().map(|n| n.saturating_sub(1))),
            "Lte" => (0, nums.first().copied()),
            "DoesNotExist" => (0, Some(0)),
            "Exists" => (1, None),
            _ => {
                gpu_count_known = false;
                (0, None)
            }
        };
    }
    if gpus.1 == Some(0) {
        narrow(&mut kinds, vec!["aws.amazon.com/neuron", "habana.ai/gaudi"]);
    }
    let gpu_kinds = ["nvidia.com/gpu", "amd.com/gpu"];
    if let Some(kinds) = &kinds {
        for a in ACCELERATORS {
            let neuron =
                *a == "aws.amazon.com/neuroncore" && kinds.contains(&"aws.amazon.com/neuron");
            if !kinds.contains(a) && !neuron {
                cap.set(a, 0, Some(0));
            }
        }
        // A family with a GPU has at least one; how many depends on the size. Where the
        // allowed types hold accelerators of more than one kind, none is certain.
        let only = kinds.len() == 1;
        for a in kinds {
            let gpu = gpu_kinds.contains(a);
            let at_least = match (only, gpu && gpu_count_known) {
                (false, _) => 0,
                (true, true) => gpus.0.max(1),
                (true, false) => 1,
            };
            cap.set(a, at_least, if gpu { gpus.1 } else { None });
        }
    } else if gpu_count_known {
        for a in gpu_kinds {
            cap.set(a, 0, gpus.1);
        }
    }
    // Instance types (or families) the table knows: what the nodes offer ranges over them, and
    // Karpenter launches the one that fits the pod.
    if let Some(types) = instance_types::allowed(reqs).filter(|t| !t.is_empty()) {
        cap.of_types(types, true);
    }
    cap
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(key: &str, op: &str, values: &[&str]) -> PoolRequirement {
        PoolRequirement {
            key: key.to_string(),
            operator: op.to_string(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn gpu_families_offer_gpus_and_general_categories_none() {
        let gpu = from_requirements(&[req(
            "karpenter.k8s.aws/instance-family",
            "In",
            &["g5", "p4d"],
        )]);
        // From one A10G (g5.xlarge) to eight (g5.48xlarge, p4d.24xlarge); CPU from the
        // g5.xlarge's 3920m to the g5.48xlarge's 191450m allocatable.
        assert_eq!(gpu.offer("nvidia.com/gpu"), Some((1, Some(8))));
        assert_eq!(gpu.offer("amd.com/gpu"), Some((0, Some(0))));
        assert_eq!(gpu.offer("cpu"), Some((3920, Some(191_450))));
        assert!(gpu.sized);
        // A family the table does not know: the GPU is implied, the amounts are not.
        let unknown = from_requirements(&[req(
            "karpenter.k8s.aws/instance-family",
            "In",
            &["g5", "g7x"],
        )]);
        assert_eq!(unknown.offer("nvidia.com/gpu"), Some((1, None)));
        assert_eq!(unknown.offer("cpu"), None);
        let general = from_requirements(&[req(
            "karpenter.k8s.aws/instance-category",
            "In",
            &["c", "m", "r"],
        )]);
        assert_eq!(general.offer("nvidia.com/gpu"), Some((0, Some(0))));
        assert_eq!(general.offer("aws.amazon.com/neuron"), Some((0, Some(0))));
        // Nothing said of instance types: any may be picked.
        let open = from_requirements(&[req("kubernetes.io/arch", "In", &["amd64"])]);
        assert_eq!(open.offer("nvidia.com/gpu"), None);
    }

    #[test]
    fn gpu_counts_bound_the_offer() {
        let eight = from_requirements(&[
            req("karpenter.k8s.aws/instance-gpu-count", "In", &["4", "8"]),
            req(
                "karpenter.k8s.aws/instance-gpu-manufacturer",
                "In",
                &["nvidia"],
            ),
        ]);
        assert_eq!(eight.offer("nvidia.com/gpu"), Some((4, Some(8))));
        assert_eq!(eight.offer("amd.com/gpu"), Some((0, Some(0))));
        let none = from_requirements(&[req(
            "karpenter.k8s.aws/instance-gpu-count",
            "DoesNotExist",
            &[],
        )]);
        assert_eq!(none.offer("nvidia.com/gpu"), Some((0, Some(0))));
        let neuron = from_requirements(&[req(
            "node.kubernetes.io/instance-type",
            "In",
            &["inf2.xlarge"],
        )]);
        assert_eq!(neuron.offer("aws.amazon.com/neuron"), Some((1, Some(1))));
        assert_eq!(neuron.offer("nvidia.com/gpu"), Some((0, Some(0))));
        // Another provider's instance types say nothing of GPUs here.
        let azure = from_requirements(&[req(
            "node.kubernetes.io/instance-type",
            "In",
            &["Standard_NC24ads_A100_v4"],
        )]);
        assert_eq!(azure.offer("nvidia.com/gpu"), None);
    }

    // Karpenter's operators on the instance labels narrow the types a family allows
    // (aws/karpenter-provider-aws examples: `instance-cpu In [4, 8, 16, 32]`,
    // `instance-size NotIn [metal]`, `instance-gpu-count Gt 1`).
    #[test]
    fn requirements_narrow_the_instance_types() {
        let family = req("karpenter.k8s.aws/instance-family", "In", &["g5", "m6i"]);
        let cap = |more: &[PoolRequirement]| {
            let mut reqs = vec![family.clone()];
            reqs.extend_from_slice(more);
            from_requirements(&reqs)
        };
        let small = cap(&[req("karpenter.k8s.aws/instance-cpu", "Lt", &["9"])]);
        assert_eq!(small.offer("cpu"), Some((1930, Some(7910))));
        let names: Vec<&str> = small.types.iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "g5.xlarge",
                "g5.2xlarge",
                "m6i.large",
                "m6i.xlarge",
                "m6i.2xlarge"
            ]
        );
        let multi = cap(&[req("karpenter.k8s.aws/instance-gpu-count", "Gt", &["1"])]);
        assert_eq!(multi.offer("nvidia.com/gpu"), Some((4, Some(8))));
        assert!(multi.types.iter().all(|t| t.name.starts_with("g5.")));
        let sizes = cap(&[req(
            "karpenter.k8s.aws/instance-size",
            "In",
            &["large", "xlarge"],
        )]);
        assert_eq!(sizes.types.len(), 3);
        // GPU nodes of at least 24 GiB and an A10G: g5 sizes from 2xlarge.
        let gpus = cap(&[
            req("karpenter.k8s.aws/instance-memory", "Gte", &["24576"]),
            req("karpenter.k8s.aws/instance-gpu-name", "In", &["a10g"]),
        ]);
        assert_eq!(gpus.types[0].name, "g5.2xlarge");
        // One type offers 8 GPUs and 100 CPUs; none offers 8 GPUs and 200 CPUs.
        let ask = |cpu: u128, gpus: u128| {
            Resources::from_pairs([
                ("cpu".to_string(), cpu * 1000),
                ("nvidia.com/gpu".to_string(), gpus),
            ])
        };
        let all = cap(&[]);
        assert!(all.one_type_fits(&ask(100, 8)));
        assert!(!all.one_type_fits(&ask(200, 8)));
        assert!(!all.one_type_fits(&ask(1, 16)));
    }

    #[test]
    fn nodes_make_a_range() {
        let a =
            Resources::from_pairs([("cpu".to_string(), 4000), ("nvidia.com/gpu".to_string(), 8)]);
        let b = Resources::from_pairs([("cpu".to_string(), 8000)]);
        let mut max = a.clone();
        max.max(&b);
        let cap = Capacity::range(&a.min(&b), &max);
        assert_eq!(cap.offer("cpu"), Some((4000, Some(8000))));
        assert_eq!(cap.offer("nvidia.com/gpu"), Some((0, Some(8))));
        assert_eq!(cap.offer("memory"), Some((0, Some(0))));
        assert_eq!(Capacity::default().offer("cpu"), None);
    }
}

#[cfg(test)]
mod node_group_tests {
    use crate::inventory::Inventory;

    // The eksctl example (examples/cluster-as-code/eksctl.yaml): an m5 group has no GPU, a g5
    // group at least one NVIDIA GPU a node, a group without instance types is unknown.
    #[test]
    fn eksctl_instance_types_imply_gpus() {
        let inv = Inventory::load(&[(
            "eksctl.yaml",
            include_str!("../../examples/cluster-as-code/eksctl.yaml"),
        )])
        .unwrap();
        let offer = |name: &str| {
            inv.pools
                .iter()
                .find(|p| p.name == name)
                .unwrap()
                .capacity
                .offer("nvidia.com/gpu")
        };
        assert_eq!(offer("general"), Some((0, Some(0))));
        assert_eq!(offer("gpu"), Some((1, Some(1))));
        // A g5.xlarge node group's nodes are all alike: 3920m CPU, 14162Mi memory (not made
        // to fit the pod, as Karpenter's are).
        let gpu = &inv.pools.iter().find(|p| p.name == "gpu").unwrap().capacity;
        assert_eq!(gpu.offer("cpu"), Some((3920, Some(3920))));
        assert_eq!(gpu.offer("memory"), Some((14162 << 20, Some(14162 << 20))));
        assert!(!gpu.sized);
        // A group that names no instance type is eksctl's default m5.large, without GPUs.
        assert_eq!(offer("batch"), Some((0, Some(0))));
    }
}

#[cfg(test)]
mod nodepool_tests {
    use crate::inventory::Inventory;
    use crate::k8s::resources::Resources;

    fn pool(requirements: &str, limits: &str, class: &str) -> super::Capacity {
        let text = format!(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: p}}\nspec:\n  \
             template:\n    spec:\n      nodeClassRef: {class}\n      requirements:\n{requirements}{limits}"
        );
        let inv = Inventory::load(&[("nodepool.yaml", &text)]).unwrap();
        inv.pools[0].capacity.clone()
    }

    fn cpu(n: u128) -> Resources {
        Resources::from_pairs([("cpu".to_string(), n * 1000)])
    }

    const EC2: &str = "{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}";

    // aws/karpenter-provider-aws examples/v1/general-purpose.yaml: categories c, m, r of a
    // generation above 2 leave the instance types open; Karpenter launches one that fits the
    // pod, so a pod of 1 or 64 CPUs fits (m6i.24xlarge, c7i.48xlarge ...); 500 CPUs may.
    // examples/v1/100-cpu-limit.yaml: no node above 100 vCPUs.
    #[test]
    fn open_nodepools_fit_what_a_known_type_fits() {
        let general = "        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}\n        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ['2']}\n";
        let cap = pool(general, "", EC2);
        assert!(!cap.closed);
        assert!(cap.one_type_fits(&cpu(1)));
        assert!(cap.one_type_fits(&cpu(64)));
        assert!(!cap.one_type_fits(&cpu(500)));
        assert_eq!(cap.offer("cpu"), None);
        let limited = pool(general, "  limits: {cpu: 100}\n", EC2);
        assert!(limited.one_type_fits(&cpu(64)));
        assert!(!limited.one_type_fits(&cpu(100)));
        // Another cloud's node class: the AWS table says nothing.
        let azure = pool(
            general,
            "",
            "{group: karpenter.azure.com, kind: AKSNodeClass, name: default}",
        );
        assert!(!azure.one_type_fits(&cpu(1)));
        // A requirement on an instance label the table does not know: not decided.
        let bandwidth = pool(
            &format!("{general}        - {{key: karpenter.k8s.aws/instance-network-bandwidth, operator: Gt, values: ['10000']}}\n"),
            "",
            EC2,
        );
        assert!(!bandwidth.one_type_fits(&cpu(1)));
        // The hypervisor is known: Nitro, and none on bare metal.
        let hypervisor = |req: &str| {
            let line = format!("        - {{key: karpenter.k8s.aws/instance-hypervisor, {req}}}\n");
            pool(&format!("{general}{line}"), "", EC2)
        };
        assert!(hypervisor("operator: In, values: [nitro]").one_type_fits(&cpu(1)));
        assert!(hypervisor("operator: NotIn, values: ['']").one_type_fits(&cpu(64)));
        let metal = hypervisor("operator: In, values: ['']");
        assert!(metal.types.iter().all(|t| t.size.starts_with("metal")) && !metal.types.is_empty());
        // A closed set within limits: g5 up to 48 vCPUs.
        let g5 = pool(
            "        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}\n",
            "  limits: {cpu: 48}\n",
            EC2,
        );
        assert_eq!(g5.offer("cpu"), Some((3920, Some(47810))));
    }
}
