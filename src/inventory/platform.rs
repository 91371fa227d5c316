//! The platform a cluster runs on, and what it does that decides where pods land.
//!
//! A platform (GKE, EKS, AKS, OpenShift, kubeadm, kind, Huawei CCE) is inferred from what the
//! inventory holds (its nodes' labels, the kinds of its pool definitions) or given
//! (`--platform`, `platform:` in `.taintlint.yaml`, the editor's `taintlint.platform`), and
//! brings what that platform does on its own: the admission plugins it runs beyond
//! kube-apiserver's defaults ([`Platform::runs_admission`]) and what its nodes carry that a
//! definition does not write (see [`imply`]). Each line cites the provider's documentation.
//!
//! What an instance type implies is the platform's too, and known whatever the platform: a pool
//! defined as code or a pool file whose nodes are all of EC2 types this project's table knows
//! ([`super::instance_types`]) have their `kubernetes.io/arch`, and, of one type, its
//! `node.kubernetes.io/instance-type` and its allocatable. A Node object carries what it carries:
//! nothing is implied for it.

use std::fmt;

use super::{instance_types, Pool};

/// A platform taintlint knows the behaviour of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Platform {
    Gke,
    Eks,
    Aks,
    OpenShift,
    Kubeadm,
    Kind,
    Cce,
}

/// The platforms by the names `--platform` takes.
pub const NAMES: &[(&str, Platform)] = &[
    ("gke", Platform::Gke),
    ("eks", Platform::Eks),
    ("aks", Platform::Aks),
    ("openshift", Platform::OpenShift),
    ("kubeadm", Platform::Kubeadm),
    ("kind", Platform::Kind),
    ("cce", Platform::Cce),
];

impl Platform {
    /// The name `--platform` takes.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, p)| *p == self)
            .map(|(n, _)| *n)
            .expect("every platform is named")
    }

    /// As people write it.
    pub fn title(self) -> &'static str {
        match self {
            Platform::Gke => "GKE",
            Platform::Eks => "EKS",
            Platform::Aks => "AKS",
            Platform::OpenShift => "OpenShift",
            Platform::Kubeadm => "kubeadm",
            Platform::Kind => "kind",
            Platform::Cce => "CCE",
        }
    }

    /// Whether the platform's API server runs the admission plugin `name` where
    /// kube-apiserver's defaults do not ([`crate::config`]'s `DEFAULT_ADMISSION_PLUGINS`).
    pub fn runs_admission(self, name: &str) -> bool {
        self.admission_plugins().iter().any(|(p, _)| *p == name)
    }

    /// The admission plugins the platform runs beyond kube-apiserver's defaults, each with
    /// where its provider says so.
    pub fn admission_plugins(self) -> &'static [(&'static str, &'static str)] {
        match self {
            // "GKE automatically applies the corresponding tolerations to Pods requesting GPUs
            // by running the ExtendedResourceToleration admission controller."
            Platform::Gke => &[(
                "ExtendedResourceToleration",
                "cloud.google.com/kubernetes-engine/docs/how-to/gpus",
            )],
            // "The following admission controllers are enabled for all 1.35 platform versions:
            // NodeRestriction, ExtendedResourceToleration, ..." (1.28 to 1.35 alike).
            Platform::Eks => &[(
                "ExtendedResourceToleration",
                "docs.aws.amazon.com/eks/latest/userguide/platform-versions.html",
            )],
            // "AKS supports the following admission controllers: ... PodNodeSelector,
            // PodTolerationRestriction, ExtendedResourceToleration. Currently, you can't modify
            // the list of admission controllers in AKS."
            Platform::Aks => &[
                (
                    "ExtendedResourceToleration",
                    "learn.microsoft.com/azure/aks/faq",
                ),
                ("PodNodeSelector", "learn.microsoft.com/azure/aks/faq"),
                (
                    "PodTolerationRestriction",
                    "learn.microsoft.com/azure/aks/faq",
                ),
            ],
            // OpenShift, kubeadm, kind and CCE: kube-apiserver's defaults, as far as their
            // documentation says.
            _ => &[],
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// Parses a `--platform` value: a platform's name, or `none`. `Err` names the choices.
pub fn parse(s: &str) -> Result<Option<Platform>, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(s))
        .map(|(_, p)| Some(*p))
        .ok_or_else(|| {
            let names: Vec<&str> = NAMES.iter().map(|(n, _)| *n).collect();
            format!(
                "unknown platform {s:?} (expected one of {}, or none)",
                names.join(", ")
            )
        })
}

/// How the platform is decided: inferred from the inventory, or given (`None`: given as
/// `none`, no platform's behaviour at all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Choice {
    #[default]
    Infer,
    Given(Option<Platform>),
}

/// The platform assumed for a cluster, and why, in words for a header line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assumed {
    pub platform: Option<Platform>,
    /// `given with --platform`, `node labels cloud.google.com/gke-nodepool`, `Terraform
    /// google_container_node_pool`, `nothing in the inventory names one`.
    pub why: String,
    /// Whether it was given rather than inferred.
    pub given: bool,
}

impl Assumed {
    /// "GKE (node labels cloud.google.com/gke-nodepool)" / "none (nothing in the inventory
    /// names one)".
    pub fn describe(&self) -> String {
        match self.platform {
            Some(p) => format!("{p} ({})", self.why),
            None => format!("none ({})", self.why),
        }
    }
}

/// What says a pool runs on a platform: a label key's prefix its nodes carry, or the kind of
/// the definition that makes it.
/// The first that matches names it: a pool's own name label before the other signs.
const LABEL_SIGNS: &[(&str, Platform)] = &[
    ("cloud.google.com/gke-nodepool", Platform::Gke),
    ("eks.amazonaws.com/nodegroup", Platform::Eks),
    ("kubernetes.azure.com/agentpool", Platform::Aks),
    ("cloud.google.com/gke-", Platform::Gke),
    ("eks.amazonaws.com/", Platform::Eks),
    ("alpha.eksctl.io/", Platform::Eks),
    ("karpenter.k8s.aws/", Platform::Eks),
    ("kubernetes.azure.com/", Platform::Aks),
    ("karpenter.azure.com/", Platform::Aks),
    ("node.openshift.io/", Platform::OpenShift),
    ("machine.openshift.io/", Platform::OpenShift),
];

/// The kinds of pool definitions ([`super::Declared::kind`]) that belong to one platform, with
/// what they are in words.
fn kind_sign(kind: &str) -> Option<(Platform, &'static str)> {
    Some(match kind {
        "google_container_node_pool" => (Platform::Gke, "Terraform google_container_node_pool"),
        "google_container_cluster" => (Platform::Gke, "Terraform google_container_cluster"),
        "gke_module_node_pool" => (Platform::Gke, "the Terraform GKE module's node_pools"),
        "aws_eks_node_group" => (Platform::Eks, "Terraform aws_eks_node_group"),
        "eks_managed_node_group" | "eks_managed_node_groups" | "eks" => {
            (Platform::Eks, "the Terraform EKS module's node groups")
        }
        "eksctl-nodegroup" | "eksctl-managednodegroup" => (Platform::Eks, "eksctl node groups"),
        "azurerm_kubernetes_cluster" | "azurerm_kubernetes_cluster_node_pool" => {
            (Platform::Aks, "Terraform azurerm_kubernetes_cluster")
        }
        "huaweicloud_cce_node_pool" => (Platform::Cce, "Terraform huaweicloud_cce_node_pool"),
        "cce-nodepool" => (Platform::Cce, "CCE node pools"),
        "kind" | "kind-node" => (Platform::Kind, "a kind cluster configuration"),
        "kubeadmconfig" | "kubeadmcontrolplane" | "kubeadmconfigtemplate" => {
            (Platform::Kubeadm, "kubeadm configuration")
        }
        _ => return None,
    })
}

/// The platform the pools' own signs point to: the one most pools show, with what showed it.
/// Pools that show two platforms, or a tie, leave it to be given.
pub fn infer(pools: &[Pool]) -> Assumed {
    let mut votes: Vec<(Platform, usize, String)> = Vec::new();
    for pool in pools {
        let mut sign: Option<(Platform, String)> = pool
            .declared
            .as_ref()
            .and_then(|d| kind_sign(d.kind))
            .map(|(p, words)| (p, words.to_string()));
        if sign.is_none() {
            sign = LABEL_SIGNS.iter().find_map(|(prefix, p)| {
                pool.labels
                    .iter()
                    .map(|(k, _)| k)
                    .find(|k| k.starts_with(prefix))
                    .map(|k| (*p, format!("node label {k}")))
            });
        }
        if let Some((p, what)) = sign {
            match votes.iter_mut().find(|(q, _, _)| *q == p) {
                Some((_, n, _)) => *n += 1,
                None => votes.push((p, 1, what)),
            }
        }
    }
    votes.sort_by_key(|v| std::cmp::Reverse(v.1));
    match votes.as_slice() {
        [] => Assumed {
            platform: None,
            why: "the inventory names none; --platform sets one".to_string(),
            given: false,
        },
        [(p, n, what), rest @ ..] if rest.first().is_none_or(|r| r.1 < *n) => Assumed {
            platform: Some(*p),
            why: if *n == 1 {
                what.clone()
            } else {
                format!("{what}, on {n} pools")
            },
            given: false,
        },
        _ => {
            let named: Vec<&str> = votes.iter().map(|(p, _, _)| p.title()).collect();
            Assumed {
                platform: None,
                why: format!(
                    "the pools name {}; --platform gives the one",
                    named.join(" and ")
                ),
                given: false,
            }
        }
    }
}

/// Adds to the pools what their platform and instance types imply and their definitions do not
/// write; returns how many pools gained something. Only pools that are not Node objects gain
/// anything (a Node carries what the scheduler sees).
pub fn imply(pools: &mut [Pool], platform: Option<Platform>) -> usize {
    // What another platform implied goes first.
    for pool in pools.iter_mut() {
        let written = pool.taints.len() - pool.implied.len();
        pool.taints.truncate(written);
        pool.implied.clear();
    }
    let mut changed = 0;
    for pool in pools.iter_mut().filter(|p| !p.observed) {
        if imply_instance_types(pool) {
            changed += 1;
        }
    }
    changed += no_gpu_devices(pools);
    if platform == Some(Platform::Gke) {
        changed += gke_taints(pools);
        changed += gke_allocatable(pools);
    }
    changed
}

/// On GKE, the CPU and memory a node of a Compute Engine machine type the table knows leaves
/// allocatable ([`instance_types::gke_allocatable`]), on the pools a file defines that do not
/// write them; the memory as a range (the kernel's part is an estimate).
fn gke_allocatable(pools: &mut [Pool]) -> usize {
    let mut changed = 0;
    for pool in pools.iter_mut().filter(|p| !p.observed) {
        let Some((vcpus, memory)) =
            super::find_label(&pool.labels, "node.kubernetes.io/instance-type")
                .and_then(instance_types::gce)
                .and_then(|m| m.shape)
        else {
            continue;
        };
        let (cpu, least, most) = instance_types::gke_allocatable(vcpus, memory);
        let mut offered = super::capacity::Capacity::default();
        offered.set("cpu", cpu, Some(cpu));
        offered.set("memory", least, Some(most));
        if pool.capacity.fill_from(&offered) {
            changed += 1;
        }
    }
    changed
}

/// GKE's taints of the nodes it makes, on the pools a file defines that do not write them:
/// - `nvidia.com/gpu=present:NoSchedule` on a GPU pool, "When you add a GPU node pool to an
///   existing cluster that already runs a non-GPU node pool, GKE automatically taints the GPU
///   nodes" (cloud.google.com/kubernetes-engine/docs/how-to/gpus): where the cluster has a pool
///   without GPUs;
/// - `google.com/tpu=present:NoSchedule` on a TPU pool: "TPU slice nodes are given a taint,
///   google.com/tpu=present:NoSchedule" (cloud.google.com/kubernetes-engine/docs/concepts/tpus,
///   "How TPUs work in GKE"; GKE's cluster autoscaler gives the nodes it plans for TPUs the same
///   taint, GoogleCloudPlatform/cluster-autoscaler pkg/autoprovisioning/injection.go); a pod
///   that requests `google.com/tpu` is given its toleration by ExtendedResourceToleration;
/// - `kubernetes.io/arch=arm64:NoSchedule` on Arm nodes: "By default, GKE schedules workloads
///   only to x86-based nodes ... by placing a taint (kubernetes.io/arch=arm64:NoSchedule) on all
///   Arm nodes" (cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment).
fn gke_taints(pools: &mut [Pool]) -> usize {
    use crate::k8s::model::{Effect, Taint};
    const GPU: &str = "nvidia.com/gpu";
    const TPU: &str = super::capacity::TPU;
    const ARCH: &str = "kubernetes.io/arch";
    let has_gpus = |p: &Pool| {
        super::find_label(&p.labels, "cloud.google.com/gke-accelerator").is_some()
            || p.capacity
                .offer(GPU)
                .is_some_and(|(min, max)| min > 0 || max.is_some_and(|m| m > 0))
    };
    let gpu_tainted = pools.iter().any(|p| !has_gpus(p));
    let mut changed = 0;
    for pool in pools.iter_mut().filter(|p| !p.observed) {
        let unwritten = |pool: &Pool, key: &str| !pool.taints.iter().any(|t| t.taint.key == key);
        let mut add = |pool: &mut Pool, key: &str, value: &str, why: &'static str| {
            pool.taints.push(super::PoolTaint {
                taint: Taint {
                    key: key.to_string(),
                    value: value.to_string(),
                    effect: Effect::NoSchedule,
                },
                at: pool.at.clone(),
            });
            pool.implied.push(why);
            changed += 1;
        };
        // A cluster's default pool is made with the cluster, before any other: GKE does not
        // taint it ("if you create a new cluster where the default node pool has GPUs
        // attached, you can manually set taints", the same page).
        let default_pool = super::find_label(&pool.labels, "cloud.google.com/gke-nodepool")
            == Some("default-pool");
        if gpu_tainted && has_gpus(pool) && !default_pool && unwritten(pool, GPU) {
            add(
                pool,
                GPU,
                "present",
                "GKE taints the nodes of a GPU pool added to a cluster that has pools \
                 without GPUs (cloud.google.com/kubernetes-engine/docs/how-to/gpus)",
            );
        }
        let tpus = super::find_label(&pool.labels, "cloud.google.com/gke-tpu-accelerator")
            .is_some()
            || pool
                .capacity
                .offer(TPU)
                .is_some_and(|(min, max)| min > 0 || max.is_some_and(|m| m > 0));
        if tpus && unwritten(pool, TPU) {
            add(
                pool,
                TPU,
                "present",
                "GKE taints the nodes of a TPU pool (cloud.google.com/kubernetes-engine/docs/\
                 concepts/tpus)",
            );
        }
        if super::find_label(&pool.labels, ARCH) == Some("arm64") && unwritten(pool, ARCH) {
            add(
                pool,
                ARCH,
                "arm64",
                "GKE taints Arm nodes (cloud.google.com/kubernetes-engine/docs/how-to/\
                 prepare-arm-workloads-for-deployment)",
            );
        }
    }
    changed
}

/// An EC2 instance type's labels on a pool whose nodes are all of known types: the architecture
/// they share, and the type when there is one (the kubelet sets `kubernetes.io/arch` from the
/// machine, kubernetes/kubernetes pkg/kubelet/kubelet_node_status.go; the AWS cloud provider
/// `node.kubernetes.io/instance-type` from the instance, kubernetes/cloud-provider-aws
/// pkg/providers/v1/aws.go `InstanceType`). A pool file names its type with that label; its
/// allocatable follows too where the file does not write it.
fn imply_instance_types(pool: &mut Pool) -> bool {
    const ARCH: &str = "kubernetes.io/arch";
    const TYPE: &str = "node.kubernetes.io/instance-type";
    // Karpenter's NodePools are bounded by their requirements, which say this themselves.
    if pool
        .declared
        .as_ref()
        .is_some_and(|d| d.requirements.is_some())
    {
        return false;
    }
    let named = super::find_label(&pool.labels, TYPE).map(str::to_string);
    let types: Vec<&'static instance_types::InstanceType> = match &named {
        Some(n) => instance_types::find(n).into_iter().collect(),
        None => pool.capacity.types.clone(),
    };
    let arch = match &named {
        Some(n) => instance_types::arch_of(n),
        None => types
            .first()
            .filter(|first| types.iter().all(|t| t.arch == first.arch))
            .map(|t| t.arch),
    };
    let mut added = Vec::new();
    if let Some(arch) = arch.filter(|_| super::find_label(&pool.labels, ARCH).is_none()) {
        added.push((ARCH.to_string(), arch.to_string()));
    }
    if let ([only], None) = (types.as_slice(), &named) {
        added.push((TYPE.to_string(), only.name.to_string()));
    }
    let mut changed = !added.is_empty();
    pool.labels.extend(added);
    pool.labels.sort();
    if let (Some(t), true) = (types.first(), named.is_some() && pool.declared.is_none()) {
        // A pool file that names its instance type: what the type offers, where the file does
        // not say.
        let offered = super::capacity::from_instance_types(&[t.name.to_string()]);
        changed |= pool.capacity.fill_from(&offered);
    }
    if types.is_empty() && pool.declared.is_none() {
        // A Compute Engine name (an EC2 name has a dot, an Azure size capitals).
        if let Some(machine) = named.as_deref().and_then(instance_types::gce) {
            changed |= imply_gce_machine(pool, &machine);
        }
        if let Some(size) = named.as_deref().and_then(instance_types::azure) {
            changed |= imply_azure_size(pool, &size);
        }
    }
    changed
}

/// A Compute Engine machine type named by a pool file (`node.kubernetes.io/instance-type:
/// g2-standard-24`, as GKE labels its nodes): its architecture and family, and its GPUs where
/// the type decides them. "GPUs are supported for the N1 general-purpose machine series and the
/// accelerator-optimized ... machine series. For VMs that use N1 machine types, you attach the
/// GPU ... GPUs can't be used with other machine series" (cloud.google.com/compute/docs/gpus/
/// about-gpus): an accelerator-optimized type the table knows has its own count, N1 and the
/// accelerator-optimized families it does not know (A and G series) leave GPUs unknown, every
/// other family has none. What the file writes stays: a label or an `allocatable` of its own
/// wins. CPU and memory are left unknown: no table of allocatable per machine type is kept.
fn imply_gce_machine(pool: &mut Pool, machine: &instance_types::GceMachine) -> bool {
    let mut changed = false;
    for (key, value) in [
        ("kubernetes.io/arch", machine.arch),
        ("cloud.google.com/machine-family", machine.family.as_str()),
        ("cloud.google.com/gke-accelerator", machine.accelerator),
        (
            "cloud.google.com/gke-tpu-accelerator",
            machine.tpu_accelerator,
        ),
    ] {
        if !value.is_empty() && super::find_label(&pool.labels, key).is_none() {
            pool.labels.push((key.to_string(), value.to_string()));
            changed = true;
        }
    }
    pool.labels.sort();
    if machine.gpus > 0 || !gce_may_attach(machine) {
        let gpus = super::capacity::Capacity::gpus(u128::from(machine.gpus));
        changed |= pool.capacity.fill_from(&gpus);
    }
    // TPU chips come with a TPU VM's type only (cloud.google.com/tpu/docs/system-architecture-
    // tpu-vm: "each TPU VM has 1, 4 or 8 chips"), so every other type has none.
    let mut tpus = super::capacity::Capacity::default();
    let chips = u128::from(machine.tpus);
    tpus.set(super::capacity::TPU, chips, Some(chips));
    changed |= pool.capacity.fill_from(&tpus);
    changed
}

/// The pools a file defines whose machine has no GPU at all ([`without_gpus`]) offer no GPU
/// device, whole or partitioned (a MIG profile `nvidia.com/mig-1g.10gb` needs the GPU), but
/// what they write. Returns how many pools gained that.
fn no_gpu_devices(pools: &mut [Pool]) -> usize {
    let mut changed = 0;
    for pool in pools.iter_mut().filter(|p| !p.observed) {
        if !pool.capacity.no_gpus && without_gpus(pool) {
            pool.capacity.no_gpus = true;
            changed += 1;
        }
    }
    changed
}

/// Whether a pool's machine has no GPU at all, as its named type says: an EC2 type of the table
/// without accelerators, a Compute Engine type of a family that cannot carry GPUs, an Azure
/// size outside the GPU families.
fn without_gpus(pool: &Pool) -> bool {
    let Some(named) = super::find_label(&pool.labels, "node.kubernetes.io/instance-type") else {
        return false;
    };
    if let Some(t) = instance_types::find(named) {
        return t.accelerator.is_empty();
    }
    if let Some(m) = instance_types::gce(named) {
        return m.gpus == 0 && !gce_may_attach(&m);
    }
    instance_types::azure(named).is_some_and(|s| !s.gpu_family)
}

/// Whether GPUs may be attached to a Compute Engine type beyond its own: N1's are attached, and
/// accelerator-optimized families the table does not know (A and G series) may have some.
fn gce_may_attach(machine: &instance_types::GceMachine) -> bool {
    machine.family == "n1" || machine.family.starts_with(['a', 'g'])
}

/// An Azure VM size named by a pool file (`node.kubernetes.io/instance-type: Standard_D4s_v5`,
/// as AKS labels its nodes): its architecture, and no GPUs for a size outside the GPU families
/// ([`instance_types::azure`]); an N-series size leaves them unknown, and what the file writes
/// stays.
fn imply_azure_size(pool: &mut Pool, size: &instance_types::AzureSize) -> bool {
    let mut changed = false;
    if super::find_label(&pool.labels, "kubernetes.io/arch").is_none() {
        pool.labels
            .push(("kubernetes.io/arch".to_string(), size.arch.to_string()));
        pool.labels.sort();
        changed = true;
    }
    if !size.gpu_family {
        changed |= pool.capacity.fill_from(&super::capacity::Capacity::gpus(0));
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::Inventory;

    fn load(text: &str) -> Inventory {
        Inventory::load(&[("inv.yaml", text)]).unwrap()
    }

    /// The platform the pools show: the most pools' sign, said in words; none when nothing
    /// shows one or two platforms tie; given, whatever the pools show.
    #[test]
    fn inferred_from_the_pools_or_given() {
        let node = |name: &str, label: &str| {
            format!("kind: Node\nmetadata: {{name: {name}, labels: {{{label}: x}}}}\n---\n")
        };
        let gke = load(&[node("a", "cloud.google.com/gke-nodepool"), node("b", "x/y")].concat());
        assert_eq!(gke.platform.platform, Some(Platform::Gke));
        assert_eq!(
            gke.platform.describe(),
            "GKE (node label cloud.google.com/gke-nodepool)"
        );
        let aks = load(
            &[
                node("a", "kubernetes.azure.com/agentpool"),
                node("b", "kubernetes.azure.com/mode"),
                node("c", "eks.amazonaws.com/nodegroup"),
            ]
            .concat(),
        );
        assert_eq!(aks.platform.platform, Some(Platform::Aks));
        assert_eq!(
            aks.platform.why,
            "node label kubernetes.azure.com/agentpool, on 2 pools"
        );
        let tie = load(
            &[
                node("a", "kubernetes.azure.com/agentpool"),
                node("c", "eks.amazonaws.com/nodegroup"),
            ]
            .concat(),
        );
        assert_eq!(tie.platform.platform, None);
        assert!(
            tie.platform.why.contains("AKS and EKS"),
            "{}",
            tie.platform.why
        );
        let none = load("pools:\n  a: {count: 1}\n");
        assert_eq!(
            none.platform.describe(),
            "none (the inventory names none; --platform sets one)"
        );
        let mut given = load("pools:\n  a: {count: 1}\n");
        given.set_platform(Choice::Given(Some(Platform::OpenShift)), "--platform");
        assert_eq!(
            given.platform.describe(),
            "OpenShift (given with --platform)"
        );
        assert!(given.platform.given);
        given.set_platform(Choice::Infer, "--platform");
        assert_eq!(given.platform.platform, Some(Platform::OpenShift));
        let mut off = gke;
        off.set_platform(Choice::Given(None), "`platform` in .taintlint.yaml");
        assert_eq!(
            off.platform.describe(),
            "none (given with `platform` in .taintlint.yaml)"
        );
        // A definition's kind says it too.
        let tf = load(
            "resource \"google_container_node_pool\" \"gpu\" {\n  name = \"gpu\"\n  node_count = 1\n}\n",
        );
        assert_eq!(
            tf.platform.describe(),
            "GKE (Terraform google_container_node_pool)"
        );
    }

    /// A pool file that names a Compute Engine machine type (KubeRay's GKE GPU guides: a CPU
    /// pool of `e2-standard-8` and an L4 pool of `g2-standard-24`): the types' GPUs where the
    /// family decides them, their architecture and family, GKE's GPU taint on the L4 pool; an
    /// N1 pool and an accelerator family the table does not know leave GPUs unknown; what the
    /// file writes stays.
    #[test]
    fn compute_engine_machine_types_say_their_gpus() {
        let inv = load(
            "pools:
  cpu:
    count: 3
    labels: {cloud.google.com/gke-nodepool: cpu, node.kubernetes.io/instance-type: e2-standard-8}
  l4:
    count: 2
    labels: {cloud.google.com/gke-nodepool: l4, node.kubernetes.io/instance-type: g2-standard-24}
  n1:
    count: 1
    labels: {node.kubernetes.io/instance-type: n1-standard-8}
  g4:
    count: 1
    labels: {node.kubernetes.io/instance-type: g4-standard-48}
  written:
    count: 1
    labels: {node.kubernetes.io/instance-type: a2-highgpu-2g, kubernetes.io/arch: amd64}
    allocatable: {nvidia.com/gpu: 1}
",
        );
        assert_eq!(inv.platform.platform, Some(Platform::Gke));
        let pool = |name: &str| inv.pools.iter().find(|p| p.name == name).unwrap();
        let gpus = |name: &str| pool(name).capacity.offer("nvidia.com/gpu");
        assert_eq!(gpus("cpu"), Some((0, Some(0))));
        assert_eq!(gpus("l4"), Some((2, Some(2))));
        assert_eq!(gpus("n1"), None);
        assert_eq!(gpus("g4"), None);
        assert_eq!(gpus("written"), Some((1, Some(1))));
        let label = |name: &str, key: &str| {
            crate::inventory::find_label(&pool(name).labels, key).map(str::to_string)
        };
        assert_eq!(label("cpu", "kubernetes.io/arch").as_deref(), Some("amd64"));
        assert_eq!(
            label("cpu", "cloud.google.com/machine-family").as_deref(),
            Some("e2")
        );
        assert_eq!(label("cpu", "cloud.google.com/gke-accelerator"), None);
        assert_eq!(
            label("l4", "cloud.google.com/gke-accelerator").as_deref(),
            Some("nvidia-l4")
        );
        let taints = |name: &str| pool(name).taint_texts();
        assert_eq!(taints("l4"), ["nvidia.com/gpu=present:NoSchedule"]);
        assert!(taints("cpu").is_empty());
        // GKE's reservations on the type's CPU and memory; a type without a known shape
        // leaves them unknown.
        assert_eq!(pool("cpu").capacity.offer("cpu"), Some((7910, Some(7910))));
        assert_eq!(
            pool("l4").capacity.offer("cpu"),
            Some((23_870, Some(23_870)))
        );
        let (least, most) = match pool("cpu").capacity.offer("memory") {
            Some((least, Some(most))) => (least, most),
            other => panic!("{other:?}"),
        };
        assert!(least < most && most < 32 << 30, "{least} {most}");
        assert_eq!(pool("g4").capacity.offer("cpu"), None);
    }

    /// A pool file of a GKE cluster with a TPU slice pool beside a CPU pool (the TPU tutorials
    /// of GoogleCloudPlatform/kubernetes-engine-samples: `ct5lp-hightpu-4t` beside
    /// `e2-standard-8`): the TPU pool offers its VM's 4 chips, carries GKE's accelerator label
    /// and its `google.com/tpu` taint; the CPU pool has no TPU, and no taint.
    #[test]
    fn tpu_machine_types_say_their_chips_and_are_tainted() {
        let inv = load(
            "pools:
  cpu:
    count: 2
    labels: {cloud.google.com/gke-nodepool: cpu, node.kubernetes.io/instance-type: e2-standard-8}
  tpu:
    count: 4
    labels: {cloud.google.com/gke-nodepool: tpu, node.kubernetes.io/instance-type: ct5lp-hightpu-4t}
",
        );
        assert_eq!(inv.platform.platform, Some(Platform::Gke));
        let pool = |name: &str| inv.pools.iter().find(|p| p.name == name).unwrap();
        let tpus = |name: &str| pool(name).capacity.offer("google.com/tpu");
        assert_eq!(tpus("tpu"), Some((4, Some(4))));
        assert_eq!(tpus("cpu"), Some((0, Some(0))));
        assert_eq!(
            pool("tpu").capacity.offer("nvidia.com/gpu"),
            Some((0, Some(0)))
        );
        assert_eq!(
            crate::inventory::find_label(
                &pool("tpu").labels,
                "cloud.google.com/gke-tpu-accelerator"
            ),
            Some("tpu-v5-lite-podslice")
        );
        let taints = |name: &str| pool(name).taint_texts();
        assert_eq!(taints("tpu"), ["google.com/tpu=present:NoSchedule"]);
        assert!(taints("cpu").is_empty());
    }

    /// A pool file of AKS pools (Azure-Samples/aks-kueue-sample: a `Standard_D4s_v5` system
    /// pool beside an H100 pool whose GPUs the file writes): the system pool has no GPUs, so a
    /// GPU job fits the GPU pool only; an N-series pool without `allocatable` leaves them
    /// unknown.
    #[test]
    fn azure_sizes_outside_the_gpu_families_have_none() {
        let inv = load(
            "pools:
  system:
    count: 2
    labels: {kubernetes.azure.com/agentpool: system, node.kubernetes.io/instance-type: Standard_D4s_v5}
  gpu:
    count: 1
    labels: {kubernetes.azure.com/agentpool: gpu, node.kubernetes.io/instance-type: Standard_ND96isr_H100_v5}
    taints: [nvidia.com/gpu=present:NoSchedule]
    allocatable: {nvidia.com/gpu: 8}
  nc:
    count: 1
    labels: {kubernetes.azure.com/agentpool: nc, node.kubernetes.io/instance-type: Standard_NC24ads_A100_v4}
  arm:
    count: 1
    labels: {kubernetes.azure.com/agentpool: arm, node.kubernetes.io/instance-type: Standard_D4ps_v5}
",
        );
        assert_eq!(inv.platform.platform, Some(Platform::Aks));
        let pool = |name: &str| inv.pools.iter().find(|p| p.name == name).unwrap();
        let gpus = |name: &str| pool(name).capacity.offer("nvidia.com/gpu");
        assert_eq!(gpus("system"), Some((0, Some(0))));
        assert_eq!(gpus("gpu"), Some((8, Some(8))));
        assert_eq!(gpus("nc"), None);
        assert_eq!(gpus("arm"), Some((0, Some(0))));
        // A MIG profile, one pool offers or none does: none on a machine without GPUs,
        // unknown on an N-series pool that does not say.
        let mig = load(
            "pools:
  system:
    count: 2
    labels: {node.kubernetes.io/instance-type: Standard_D4s_v5}
  gpu:
    count: 1
    labels: {node.kubernetes.io/instance-type: Standard_ND96isr_H100_v5}
    allocatable: {nvidia.com/mig-3g.40gb: 16}
  nc:
    count: 1
    labels: {node.kubernetes.io/instance-type: Standard_NC24ads_A100_v4}
  cpu:
    count: 1
    labels: {node.kubernetes.io/instance-type: m5.large}
",
        );
        let offer = |name: &str| {
            mig.pools
                .iter()
                .find(|p| p.name == name)
                .unwrap()
                .capacity
                .offer("nvidia.com/mig-3g.40gb")
        };
        assert_eq!(offer("system"), Some((0, Some(0))));
        assert_eq!(offer("cpu"), Some((0, Some(0))));
        assert_eq!(offer("gpu"), Some((16, Some(16))));
        assert_eq!(offer("nc"), None);
        let of = |name: &str| &mig.pools.iter().find(|p| p.name == name).unwrap().capacity;
        assert_eq!(
            of("system").offer("nvidia.com/mig-1g.10gb"),
            Some((0, Some(0)))
        );
        assert_eq!(of("nc").offer("nvidia.com/mig-1g.10gb"), None);
        assert_eq!(of("system").offer("example.com/fuse"), None);
        let arch =
            |name: &str| crate::inventory::find_label(&pool(name).labels, "kubernetes.io/arch");
        assert_eq!(arch("system"), Some("amd64"));
        assert_eq!(arch("arm"), Some("arm64"));
    }

    #[test]
    fn names_parse_as_the_flag_takes_them() {
        for (name, p) in NAMES {
            assert_eq!(parse(name), Ok(Some(*p)));
            assert_eq!(p.name(), *name);
            assert_eq!(parse(&name.to_uppercase()), Ok(Some(*p)));
        }
        assert_eq!(parse("none"), Ok(None));
        let e = parse("gcp").unwrap_err();
        assert!(e.contains("\"gcp\"") && e.contains("gke, eks, aks"), "{e}");
    }
}
