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
const LABEL_SIGNS: &[(&str, Platform)] = &[
    ("cloud.google.com/gke-", Platform::Gke),
    ("eks.amazonaws.com/", Platform::Eks),
    ("alpha.eksctl.io/", Platform::Eks),
    ("karpenter.k8s.aws/", Platform::Eks),
    ("kubernetes.azure.com/", Platform::Aks),
    ("karpenter.azure.com/", Platform::Aks),
    ("node.openshift.io/", Platform::OpenShift),
    ("machine.openshift.io/", Platform::OpenShift),
];

/// The kinds of pool definitions ([`super::Declared::kind`]) that belong to one platform.
fn kind_sign(kind: &str) -> Option<Platform> {
    Some(match kind {
        "google_container_node_pool" | "google_container_cluster" | "gke_module_node_pool" => {
            Platform::Gke
        }
        "aws_eks_node_group"
        | "eks_managed_node_group"
        | "eks_managed_node_groups"
        | "eks"
        | "eksctl-nodegroup"
        | "eksctl-managednodegroup" => Platform::Eks,
        "azurerm_kubernetes_cluster" | "azurerm_kubernetes_cluster_node_pool" => Platform::Aks,
        "huaweicloud_cce_node_pool" | "cce-nodepool" => Platform::Cce,
        "kind" | "kind-node" => Platform::Kind,
        "kubeadmconfig" | "kubeadmcontrolplane" | "kubeadmconfigtemplate" => Platform::Kubeadm,
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
            .and_then(|d| Some((kind_sign(d.kind)?, d.kind.to_string())));
        if sign.is_none() {
            sign = pool
                .labels
                .iter()
                .chain(pool.nodes.iter().flat_map(|m| &m.labels))
                .find_map(|(k, _)| {
                    LABEL_SIGNS
                        .iter()
                        .find(|(prefix, _)| k.starts_with(prefix))
                        .map(|(_, p)| (*p, format!("node label {k}")))
                });
        }
        if let Some((p, what)) = sign {
            match votes.iter_mut().find(|(q, _, _)| *q == p) {
                Some((_, n, _)) => *n += 1,
                None => votes.push((p, 1, what)),
            }
        }
    }
    votes.sort_by(|a, b| b.1.cmp(&a.1));
    match votes.as_slice() {
        [] => Assumed {
            platform: None,
            why: "nothing in the inventory names one; --platform gives it".to_string(),
            given: false,
        },
        [(p, n, what), rest @ ..] if rest.first().is_none_or(|r| r.1 < *n) => Assumed {
            platform: Some(*p),
            why: if *n == 1 {
                what.clone()
            } else {
                format!("{what}, and {} more pools", n - 1)
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
pub fn imply(pools: &mut [Pool], _platform: Option<Platform>) -> usize {
    let mut changed = 0;
    for pool in pools.iter_mut().filter(|p| !p.observed) {
        if imply_instance_types(pool) {
            changed += 1;
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
    let named = super::find_label(&pool.labels, TYPE).and_then(instance_types::find);
    let types: Vec<&'static instance_types::InstanceType> = match named {
        Some(t) => vec![t],
        None if pool.capacity.closed || !pool.capacity.types.is_empty() => {
            pool.capacity.types.clone()
        }
        None => return false,
    };
    let Some(first) = types.first() else {
        return false;
    };
    let mut added = Vec::new();
    if types.iter().all(|t| t.arch == first.arch) && super::find_label(&pool.labels, ARCH).is_none()
    {
        added.push((ARCH.to_string(), first.arch.to_string()));
    }
    if types.len() == 1 && super::find_label(&pool.labels, TYPE).is_none() {
        added.push((TYPE.to_string(), first.name.to_string()));
    }
    let mut changed = !added.is_empty();
    pool.labels.extend(added);
    pool.labels.sort();
    if named.is_some() && pool.declared.is_none() {
        // A pool file that names its instance type: what the type offers, where the file does
        // not say.
        let offered = super::capacity::from_instance_types(&[first.name.to_string()]);
        changed |= pool.capacity.fill_from(&offered);
    }
    changed
}
