//! A cluster's nodes, read from text and grouped into pools.
//!
//! Three formats are accepted, told apart by their content: the output of
//! `kubectl get nodes -o yaml` or `-o json` (a `List` or `NodeList` of Node items; JSON is read
//! as JSON, see `json`), Node documents (a multi-document YAML stream), and a compact pool file
//! written by hand (see [`compact`]). Several files make one cluster. Reading runs no rules: an
//! inventory file is linted like any other file, by the analysis.
//!
//! Nodes that look the same to the scheduler (the same labels, taints and `spec.unschedulable`)
//! are grouped into one [`Pool`], so simulating a workload costs one check per pool, not per
//! node. Labels that name a node (`kubernetes.io/hostname`, or any label whose value is the
//! node's name) and topology labels (`topology.kubernetes.io/zone`, ...: a pool usually spans
//! zones) are kept per node. Within a pool, nodes with the same topology labels form a
//! [`Variant`]; a workload that selects on those labels is checked once per variant, and one that
//! names nodes (`nodeName`, a hostname) once per node it names plus once for the rest, found
//! through an index, so no simulation walks every node. Every taint keeps its byte range in its
//! file, so findings can point into the inventory.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::ops::Range;

use crate::class;
use crate::k8s::cluster::Cluster;
use crate::k8s::model::Taint;
use crate::k8s::resources::Resources;
use crate::position::LineIndex;
use crate::syntax;

pub mod asg_tags;
mod auto_mode;
pub mod capacity;
mod capi_bootstrap;
mod cce;
mod cfn;
pub mod compact;
mod eksctl;
mod hcl_objects;
pub mod instance_types;
mod json;
mod karpenter;
pub(crate) use karpenter::chart_taint_list;
mod kind;
mod kubeadm;
mod kubelet_flags;
mod kueue;
pub mod kustomize;
mod machines;
mod nfd;
mod nodes;
pub mod platform;
mod pool_object;
pub mod terraform;

pub(crate) use nodes::scalar_text;

/// The label every kubelet sets to its node's hostname.
pub const HOSTNAME_LABEL: &str = "kubernetes.io/hostname";

/// Labels that name a node pool on the common platforms, used to name pools (GKE, EKS managed
/// node groups, eksctl, Karpenter, AKS, OKE, DigitalOcean, Hetzner/kOps, then a plain `pool`).
/// A configured `pool-label` comes first ([`Inventory::name_pools_by`]).
pub const POOL_LABELS: &[&str] = &[
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "karpenter.sh/nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "oci.oraclecloud.com/node-pool-name",
    "doks.digitalocean.com/node-pool",
    "kops.k8s.io/instancegroup",
    "node.kubernetes.io/pool",
    "pool",
];

/// A place in an inventory file: the file's index in [`Inventory::files`] and a byte range.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Loc {
    pub file: usize,
    pub range: Range<usize>,
}

/// One inventory file.
#[derive(Debug)]
pub struct InventoryFile {
    /// The name it was loaded under (as given on the command line).
    pub name: String,
    /// How many nodes it holds.
    pub nodes: usize,
    /// Taints left out of the simulation because the API server would reject them (linting
    /// the file says why).
    pub invalid_taints: usize,
    /// Node groups it defines in a way taintlint does not read (a Terraform expression), each
    /// with its place and what to tell a person.
    pub unread: Vec<terraform::Unread>,
}

/// A taint a pool's nodes may carry, and what would put it there, in words
/// (`NodeFeatureRule gpu-rules, rule "nvidia"`).
#[derive(Debug, Clone, PartialEq)]
pub struct MayCarry {
    pub taint: Taint,
    pub by: String,
}

/// A taint of a pool, and where it is written.
#[derive(Debug, Clone)]
pub struct PoolTaint {
    pub taint: Taint,
    pub at: Loc,
}

/// One node of a pool: its name and the labels that name it.
#[derive(Debug, Clone)]
pub struct Member {
    pub name: String,
    /// Labels whose value is particular to this node (sorted by key).
    pub labels: Vec<(String, String)>,
    pub at: Loc,
    /// Its index in [`Pool::variants`].
    pub variant: u32,
}

/// Nodes of a pool with the same topology labels (zone, region) and the same node-naming label
/// keys: they differ only in their names and the values of those labels.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Indices into [`Pool::nodes`], ascending.
    pub members: Vec<u32>,
}

/// How many nodes a pool defined as code has: a number, a range (`min..max`, either end
/// unknown), or unknown (both `None`), as the file says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count {
    pub min: Option<u64>,
    pub max: Option<u64>,
}

/// A node requirement of a pool defined as code (a Karpenter NodePool's `requirements`): the
/// nodes it makes have label `key` matching `operator` and `values`, a node selector
/// requirement (`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`; Karpenter adds `Gte`, `Lte`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolRequirement {
    pub key: String,
    pub operator: String,
    pub values: Vec<String>,
}

/// What a file that defines a pool (rather than listing nodes) says beyond taints and labels.
#[derive(Debug, Clone, Default)]
pub struct Declared {
    /// The format: `nodepool`, `provisioner`, ...
    pub kind: &'static str,
    pub count: Count,
    /// Taints the nodes start with and lose once ready: they do not count for fit.
    pub startup_taints: Vec<PoolTaint>,
    /// Node requirements (a pod's node selector and affinity must be compatible with them);
    /// `None` when the nodes' labels are all known.
    pub requirements: Option<Vec<PoolRequirement>>,
    /// Labels the pool's platform sets on the nodes they apply to, and only there (AKS's
    /// `kubernetes.azure.com/scalesetpriority` on Spot pools, GKE's `cloud.google.com/gke-spot`):
    /// where the pool has none of them, its nodes do not have it, for certain.
    pub provider_labels: &'static [&'static str],
    /// What its nodes offer, as far as the definition says or implies.
    pub capacity: capacity::Capacity,
    /// Tolerations that every pod placed on the pool gets from what places it there (a Kueue
    /// ResourceFlavor's `spec.tolerations`, added to the workloads admitted on the flavor): they
    /// count when a workload is judged against this pool.
    pub tolerations: Vec<crate::k8s::model::Toleration>,
    /// Node labels the definition writes as expressions taintlint does not evaluate (Terraform's
    /// `${...}`): its nodes may carry them, with values not known.
    pub open_labels: OpenLabels,
}

/// Which node labels of a pool are not known because they are written as expressions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum OpenLabels {
    #[default]
    None,
    /// These keys, whose values are expressions.
    Keys(Vec<String>),
    /// Any: the labels (or the keys) are one expression.
    All,
}

impl OpenLabels {
    /// Whether the pool's nodes may carry `key` though the definition does not say so.
    pub fn covers(&self, key: &str) -> bool {
        match self {
            OpenLabels::None => false,
            OpenLabels::Keys(keys) => keys.iter().any(|k| k == key),
            OpenLabels::All => true,
        }
    }

    /// Adds `key` (`None`: any key) to those not known.
    pub fn open(&mut self, key: Option<&str>) {
        match (&mut *self, key) {
            (OpenLabels::All, _) => {}
            (_, None) => *self = OpenLabels::All,
            (OpenLabels::Keys(keys), Some(k)) if !keys.iter().any(|x| x == k) => {
                keys.push(k.to_string())
            }
            (OpenLabels::Keys(_), Some(_)) => {}
            (OpenLabels::None, Some(k)) => *self = OpenLabels::Keys(vec![k.to_string()]),
        }
    }
}

/// Nodes the scheduler cannot tell apart (except by the labels that name them).
#[derive(Debug, Clone)]
pub struct Pool {
    /// A short name for people: the pool file's name, a node-pool label's value, or the node
    /// names' common prefix.
    pub name: String,
    /// Labels every node of the pool has (sorted by key).
    pub labels: Vec<(String, String)>,
    pub taints: Vec<PoolTaint>,
    /// Where `spec.unschedulable: true` is written, when the nodes are cordoned.
    pub unschedulable: Option<Loc>,
    pub nodes: Vec<Member>,
    pub variants: Vec<Variant>,
    /// Where the pool (or its first node) is defined.
    pub at: Loc,
    /// For a pool defined as code (a NodePool, a node group): its kind, declared count,
    /// startup taints and requirements. Its nodes are then one member standing for them all,
    /// unless the count is an exact number, when there is one member per node.
    pub declared: Option<Box<Declared>>,
    /// What each of its nodes offers the scheduler (allocatable resources), as a range over
    /// its nodes; unknown where the inventory does not say.
    pub capacity: capacity::Capacity,
    /// Whether its nodes are Node objects (`kubectl get nodes`, Node documents): what they
    /// carry is what the scheduler sees, and a label they do not have is one they do not have.
    /// A pool file's or a definition's nodes may carry what it does not write.
    pub observed: bool,
    /// Why the platform gives its nodes the last `implied.len()` of `taints`, which no file
    /// writes (see [`platform::imply`]).
    pub implied: Vec<&'static str>,
    /// Taints its nodes may carry, or not, put there by what matches nodes in a way that cannot
    /// be known offline (a NodeFeatureRule's rule, by the features nfd-worker finds).
    pub may_carry: Vec<MayCarry>,
    /// The name its definition gives it (a pool file's, a NodePool's), if any.
    given_name: Option<String>,
}

impl Pool {
    /// Its taints as `key=value:Effect`, as a test compares them.
    #[cfg(test)]
    pub(crate) fn taint_texts(&self) -> Vec<String> {
        self.taints.iter().map(|t| t.taint.to_string()).collect()
    }

    /// The value of a label, for the whole pool (`member: None`) or for one of its nodes.
    pub fn label(&self, member: Option<usize>, key: &str) -> Option<&str> {
        if let Some(m) = member {
            if let Some(v) = find_label(&self.nodes[m].labels, key) {
                return Some(v);
            }
        }
        find_label(&self.labels, key)
    }

    /// "1 node" / "4 nodes", or a declared count ("1..10 nodes", "count unknown").
    pub fn size(&self) -> String {
        self.node_count().to_string()
    }

    /// How many nodes the pool has: its listed nodes, or its declared count.
    pub fn node_count(&self) -> NodeCount {
        match &self.declared {
            Some(d) => NodeCount {
                min: d.count.min.unwrap_or(0),
                max: d.count.max,
            },
            None => NodeCount::exact(self.nodes.len() as u64),
        }
    }

    /// How many nodes `members` of its members stand for: themselves for listed nodes; for a
    /// pool defined as code (one member standing for all), its declared count, or none.
    pub fn nodes_of(&self, members: usize) -> NodeCount {
        match (&self.declared, members) {
            (Some(_), 0) => NodeCount::default(),
            (Some(_), _) => self.node_count(),
            (None, n) => NodeCount::exact(n as u64),
        }
    }

    /// The pool's kind: `nodes` for listed nodes (node lists, pool files), or the format that defines it.
    pub fn kind(&self) -> &'static str {
        self.declared.as_ref().map_or("nodes", |d| d.kind)
    }
}

fn find_label<'l>(labels: &'l [(String, String)], key: &str) -> Option<&'l str> {
    labels
        .binary_search_by(|(k, _)| k.as_str().cmp(key))
        .ok()
        .map(|i| labels[i].1.as_str())
}

/// A number of nodes as far as the inventory knows it: listed nodes are counted, and a pool
/// defined as code adds its declared count, which may be a range or unknown (`max: None` is no
/// upper bound known). It is never "1 node" for a pool whose size is not written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeCount {
    pub min: u64,
    pub max: Option<u64>,
}

/// No node.
impl Default for NodeCount {
    fn default() -> Self {
        NodeCount::exact(0)
    }
}

impl NodeCount {
    pub fn exact(n: u64) -> NodeCount {
        NodeCount {
            min: n,
            max: Some(n),
        }
    }

    /// Whether it is certainly no node.
    pub fn is_zero(&self) -> bool {
        self.max == Some(0)
    }

    /// The known number, when it is one.
    pub fn known(&self) -> Option<u64> {
        self.max.filter(|&m| m == self.min)
    }

    /// As a noun phrase in a sentence: "3 nodes", "1..10 nodes", "an unknown number of nodes".
    pub fn phrase(&self) -> String {
        match (self.min, self.max) {
            (0, None) => "an unknown number of nodes".to_string(),
            _ => self.to_string(),
        }
    }
}

impl std::ops::Add for NodeCount {
    type Output = NodeCount;
    fn add(self, o: NodeCount) -> NodeCount {
        NodeCount {
            min: self.min + o.min,
            max: self.max.zip(o.max).map(|(a, b)| a + b),
        }
    }
}

impl std::iter::Sum for NodeCount {
    fn sum<I: Iterator<Item = NodeCount>>(iter: I) -> NodeCount {
        iter.fold(NodeCount::exact(0), |a, b| a + b)
    }
}

impl fmt::Display for NodeCount {
    /// "1 node", "4 nodes", "1..10 nodes", "2+ nodes", "count unknown".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (a, Some(b)) if a == b => write!(f, "{}", nodes_noun(a as usize)),
            (a, Some(b)) => write!(f, "{a}..{b} nodes"),
            (0, None) => write!(f, "count unknown"),
            (a, None) => write!(f, "{a}+ nodes"),
        }
    }
}

/// "1 node" / "N nodes".
pub fn nodes_noun(n: usize) -> String {
    if n == 1 {
        "1 node".to_string()
    } else {
        format!("{n} nodes")
    }
}

/// A node of the inventory: its pool and its index there.
pub type NodeRef = (u32, u32);

/// The nodes of one or more inventory files, grouped into pools.
#[derive(Debug)]
pub struct Inventory {
    pub files: Vec<InventoryFile>,
    /// The Namespaces and RuntimeClasses the files hold.
    pub cluster: Cluster,
    pub pools: Vec<Pool>,
    /// Label keys kept per node (they name nodes, or are topology labels), sorted.
    identity_keys: Vec<String>,
    /// Of those, the keys that name nodes (not topology), sorted.
    naming_keys: Vec<String>,
    /// For each naming label key and value, the nodes that have it.
    by_label: NodesByLabel,
    /// The nodes of each name.
    by_name: NodesByName,
    /// Every distinct taint of the pools, as the pool and index of its first writing, with the
    /// pools that carry it (see [`Inventory::taints`]): built once, asked for every workload.
    distinct_taints: Vec<((usize, usize), Vec<usize>)>,
    /// What later layers derive from the inventory and keep with it (the simulations of the
    /// workloads judged against it, what a rule asks of every taint): see
    /// [`Inventory::derived`].
    derived: [std::sync::OnceLock<Box<dyn std::any::Any + Send + Sync>>; DERIVED],
    /// The platform the cluster runs on, as inferred or given ([`Inventory::set_platform`]).
    pub platform: platform::Assumed,
}

/// How many values of different types later layers may derive from an inventory.
const DERIVED: usize = 4;

/// Whether a text may define nodes (a cheap look at what it mentions, for picking inventory
/// files out of a directory): Nodes, a pool file, or node pools defined as code.
pub fn may_define_nodes(text: &str) -> bool {
    const MARKS: &[&str] = &[
        "Node",
        "pools:",
        "Provisioner",
        "MachineSet",
        "MachineDeployment",
        "MachinePool",
        "KubeadmConfig",
        "KubeadmControlPlane",
        "InitConfiguration",
        "JoinConfiguration",
        "KubeletConfiguration",
        "eksctl.io/",
        "kind.x-k8s.io/",
        "ResourceFlavor",
        "NodeFeatureRule",
        "k8s.io/cluster-autoscaler/node-template/",
    ];
    if class::text(text) == class::Text::Hcl {
        return terraform::defines_pools(text);
    }
    MARKS.iter().any(|m| text.contains(m))
}

/// How an inventory file whose node groups are all written as expressions (Terraform's
/// `merge(...)`, say) is refused: the message starts so.
pub const NO_GROUP_READ: &str = "holds no node group taintlint reads";

/// The formats an inventory file may have, for messages.
pub const FORMATS: &str = "the output of `kubectl get nodes -o yaml` (or -o json), Node \
     documents, or a pool file (`pools:`)";

/// What to say of a directory given as an inventory in which nothing defines nodes: what an
/// inventory is, and, where the directory holds Terraform (`has_terraform`), why its pools were
/// not read: taintlint evaluates no Terraform expression, so pools a module is handed in
/// variables (`cpu_pools = var.cpu_pools`) are not there to read.
pub fn empty_directory(has_terraform: bool) -> String {
    let mut said = format!(
        "a directory with no inventory file; an inventory is {FORMATS}, or node pools defined as \
         code"
    );
    if has_terraform {
        said.push_str(
            "; its Terraform defines no node pool written out (pools handed to a module in \
             variables are not evaluated: write them in a pool file)",
        );
    }
    said
}

/// Whether a directory holds Terraform files of its own (`*.tf`).
pub fn holds_terraform(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "tf"))
    })
}

/// Kinds an inventory file may hold beside Nodes: the cluster objects admission looks up
/// (`kubectl get ns,runtimeclass -o yaml`) and the devices Dynamic Resource Allocation
/// allocates from (`kubectl get deviceclasses,resourceslices -o yaml`), and the
/// CustomResourceDefinitions that say where custom resources keep pod specs and tolerations
/// (`kubectl get crd -o yaml`), read by [`Cluster`](crate::k8s::cluster::Cluster).
pub(crate) fn is_cluster_kind(kind: &str) -> bool {
    matches!(
        kind,
        "Namespace" | "RuntimeClass" | "DeviceClass" | "ResourceSlice" | "CustomResourceDefinition"
    )
}

/// Why the `i`th item of a list is not taken for a Node.
pub(crate) fn not_a_node_item(i: usize, kind: Option<&str>, has_metadata: bool) -> String {
    match kind {
        Some(k) => format!("items[{i}] is a {k}, not a Node: list nodes with `kubectl get nodes -o yaml`"),
        None if has_metadata => format!(
            "items[{i}] has no `kind` and no Node fields (metadata.name with spec.taints, \
             spec.providerID, status.nodeInfo, ...): list nodes with `kubectl get nodes -o yaml`"
        ),
        None => format!(
            "items[{i}] has no `kind` and is not a Node: list nodes with `kubectl get nodes -o yaml`"
        ),
    }
}

/// Why an inventory could not be read: which file, where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryError {
    pub file: String,
    /// 1-based line and column (in characters) of the place, when there is one.
    pub position: Option<(usize, usize)>,
    pub message: String,
}

impl fmt::Display for InventoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{}:{line}:{column}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for InventoryError {}

/// A node as read from a file, before grouping.
#[derive(Debug, Clone)]
pub(crate) struct RawNode {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub taints: Vec<PoolTaint>,
    pub unschedulable: Option<Loc>,
    pub at: Loc,
    /// The pool a pool file puts it in (nodes of named pools are never merged with others).
    pub pool: Option<((usize, usize), String)>,
    /// For a pool defined as code, what its file declares (the same for all its nodes).
    pub declared: Option<Box<Declared>>,
    /// For Cluster API, how its machines are bootstrapped (see [`link_bootstrap`]).
    pub bootstrap: Option<Bootstrap>,
    /// What the node offers (`status.allocatable`, else `status.capacity`), when it says.
    pub allocatable: Option<crate::k8s::resources::Resources>,
    /// Whether it is a Node object, as the API server holds it (`kubectl get nodes`): its
    /// labels are all the scheduler sees, and its allocatable lists every resource it has.
    pub observed: bool,
}

/// A Cluster API pool's part in bootstrapping: a KubeadmConfigTemplate makes no machines, it
/// configures those of the machine sets whose `bootstrap.configRef` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bootstrap {
    /// A KubeadmConfigTemplate of this name.
    Template(String),
    /// A machine set whose machines bootstrap from the KubeadmConfigTemplate of this name.
    UsesTemplate(String),
}

/// Gives each Cluster API machine set the taints, labels and startup taints of the
/// KubeadmConfigTemplate its `spec.template.spec.bootstrap.configRef` names (the kubeadm
/// bootstrap provider renders the template into each Machine's KubeadmConfig: kubernetes-sigs/
/// cluster-api api/core/v1beta2/machine_types.go `Bootstrap.ConfigRef`), and drops the template
/// as a pool: it makes no nodes of its own. A template no machine set names is kept as the pool
/// it describes only when the inventory has no machine set at all (it is all there is to go on).
fn link_bootstrap(raw: &mut Vec<Cow<'_, RawNode>>) {
    let is_template = |n: &Cow<'_, RawNode>| matches!(n.bootstrap, Some(Bootstrap::Template(_)));
    if !raw.iter().any(is_template) {
        return;
    }
    let machine_sets = raw.iter().any(|n| {
        n.declared.as_ref().is_some_and(|d| {
            matches!(
                d.kind,
                "machinedeployment" | "machinepool" | "capi-machineset"
            )
        })
    });
    if !machine_sets {
        return;
    }
    let (templates, rest): (Vec<_>, Vec<_>) =
        std::mem::take(raw).into_iter().partition(is_template);
    *raw = rest;
    for node in raw.iter_mut() {
        let Some(Bootstrap::UsesTemplate(name)) = &node.bootstrap else {
            continue;
        };
        let Some(template) = templates
            .iter()
            .find(|t| t.bootstrap == Some(Bootstrap::Template(name.clone())))
        else {
            continue;
        };
        let node = node.to_mut();
        for t in &template.taints {
            if !node
                .taints
                .iter()
                .any(|o| o.taint.key == t.taint.key && o.taint.effect == t.taint.effect)
            {
                node.taints.push(t.clone());
            }
        }
        for l in &template.labels {
            if !node.labels.iter().any(|(k, _)| *k == l.0) {
                node.labels.push(l.clone());
            }
        }
        if let (Some(d), Some(td)) = (node.declared.as_mut(), template.declared.as_ref()) {
            for t in &td.startup_taints {
                if !d.startup_taints.iter().any(|o| o.taint == t.taint) {
                    d.startup_taints.push(t.clone());
                }
            }
        }
    }
}

impl RawNode {
    /// The one node that stands for a pool defined as code: named `name`, of `kind`, defined
    /// at `at`, told apart from the file's other pools by `key`; its labels, taints, startup
    /// taints and requirements are set by the caller.
    pub(crate) fn defined(
        name: String,
        kind: &'static str,
        at: Loc,
        key: (usize, usize),
        count: Count,
    ) -> RawNode {
        RawNode {
            name: format!("{name}-*"),
            labels: Vec::new(),
            taints: Vec::new(),
            unschedulable: None,
            at,
            pool: Some((key, name)),
            declared: Some(Box::new(Declared {
                kind,
                count,
                startup_taints: Vec::new(),
                requirements: None,
                provider_labels: &[],
                capacity: capacity::Capacity::default(),
                tolerations: Vec::new(),
                open_labels: OpenLabels::None,
            })),
            bootstrap: None,
            allocatable: None,
            observed: false,
        }
    }
}

/// What a reader of node configuration finds in one document: the pools it defines (one node
/// standing for each), every taint list written (for the rules, which may be built of
/// `key=value:Effect` strings), and how many taints were left out as invalid.
#[derive(Default)]
pub(crate) struct Defined {
    pub nodes: Vec<RawNode>,
    pub lists: Vec<crate::k8s::objects::List>,
    pub invalid: usize,
}

/// The readers of documents that define pools through node configuration (kubeadm, Cluster API
/// bootstrap, eksctl, kind, CCE), for the document at `root`; `None` when none reads it. Taints
/// written as strings become nodes of `doc` that span their characters.
pub(crate) fn read_defined<'a>(
    file: usize,
    text: &'a str,
    doc: &mut syntax::Document<'a>,
    root: syntax::NodeId,
    index: usize,
) -> Option<Defined> {
    if kubeadm::is_kubeadm(doc, root) {
        Some(kubeadm::read(file, text, doc, root, index))
    } else if capi_bootstrap::is_capi_bootstrap(doc, root) {
        Some(capi_bootstrap::read(file, text, doc, root, index))
    } else if eksctl::is_eksctl(doc, root) {
        Some(eksctl::read(file, text, doc, root, index))
    } else if cce::is_cce(doc, root) {
        Some(cce::read(file, doc, root, index))
    } else if kind::is_kind(doc, root) {
        Some(kind::read(file, text, doc, root, index))
    } else if cfn::is_template(doc, root) {
        Some(cfn::read(file, text, doc, root, index))
    } else {
        None
    }
}

/// The taint lists of a document that defines pools through node configuration, for the rules
/// (see `read_defined`); empty for any other document.
pub fn taint_lists<'a>(
    text: &'a str,
    doc: &mut syntax::Document<'a>,
) -> Vec<crate::k8s::objects::List> {
    let Some(root) = doc.root.filter(|&r| doc.mapping(r).is_some()) else {
        return Vec::new();
    };
    read_defined(0, text, doc, root, 0).map_or_else(Vec::new, |d| d.lists)
}

/// The nodes of the manifests a Terraform file applies (`manifests`, [`terraform::read`]), and how many
/// taints were left out as invalid: each is read as YAML where it is written
/// ([`terraform::manifest_text`]), its pools told apart from the file's node groups. A pool
/// whose taints or requirements are Terraform expressions (`${...}`) is not read, and said so,
/// and a label that is one is left out: taintlint evaluates no expression. A manifest that is no
/// inventory (a Deployment, an EC2NodeClass) adds nothing.
fn applied_manifests(
    (file, name, text): (usize, &str, &str),
    manifests: &[Range<usize>],
    objects: &mut Cluster,
    unread: &mut Vec<terraform::Unread>,
) -> (Vec<RawNode>, usize) {
    let (mut out, mut invalid) = (Vec::new(), 0);
    for (n, range) in manifests.iter().enumerate() {
        let Some(yaml) = terraform::manifest_text(text, range) else {
            continue;
        };
        let Ok((nodes, left_out)) = nodes::parse_file(file, name, &yaml, objects, unread) else {
            continue;
        };
        invalid += left_out;
        for mut node in nodes {
            if let Some(note) = terraform::unknown_parts(&mut node, text, range) {
                unread.push(note);
                continue;
            }
            // Told apart from the node groups, whose keys count from 0.
            if let Some(((_, i), _)) = &mut node.pool {
                *i += (n + 1) << 20;
            }
            out.push(node);
        }
    }
    (out, invalid)
}

/// An error at a byte offset of a file, turned into a line and column by the caller.
pub(crate) struct ParseError {
    pub offset: Option<usize>,
    pub message: String,
}

impl ParseError {
    pub fn at(offset: usize, message: impl Into<String>) -> Self {
        ParseError {
            offset: Some(offset),
            message: message.into(),
        }
    }
}

/// The nodes of a JSON node list, read as its bytes arrived (see [`read_json_nodes`]).
pub struct StreamedNodes(json::Read);

/// Reads a JSON node list (`kubectl get nodes -o json`) from `reader` without holding its text,
/// as the source at `index` of an inventory: a list of 10,000 nodes is some 200 MB, of which
/// scheduling keeps a few. `None` when the text is anything else, to be read whole (which also
/// says where a text that is not valid goes wrong).
pub fn read_json_nodes(
    index: usize,
    reader: impl std::io::Read,
) -> std::io::Result<Option<StreamedNodes>> {
    Ok(json::read_stream(index, reader)?.map(StreamedNodes))
}

/// One inventory file: its text, or its nodes already read from a JSON node list.
pub enum Source<'a> {
    Text(&'a str),
    Streamed(StreamedNodes),
}

/// One inventory file read on its own, before the files are put together into pools
/// ([`Inventory::assemble`]): its nodes, Namespaces and RuntimeClasses, or what is wrong with it.
#[derive(Debug, Clone)]
pub struct ReadFile {
    /// Its place among the inventory's files (the nodes' locations name it).
    index: usize,
    read: Result<FileNodes, Vec<InventoryError>>,
}

#[derive(Debug, Clone)]
struct FileNodes {
    name: String,
    nodes: Vec<RawNode>,
    invalid_taints: usize,
    unread: Vec<terraform::Unread>,
    objects: Cluster,
}

impl ReadFile {
    /// Its place among the inventory's files.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Reads the file at `index` of an inventory, named `name` (as related locations name it).
    pub fn read(index: usize, name: &str, source: Source<'_>) -> ReadFile {
        let text = match source {
            Source::Text(text) => text,
            Source::Streamed(StreamedNodes(read)) => {
                let read = if read.nodes.is_empty() {
                    Err(vec![InventoryError {
                        file: name.to_string(),
                        position: None,
                        message: format!("holds no nodes; an inventory is {FORMATS}"),
                    }])
                } else {
                    Ok(FileNodes {
                        name: name.to_string(),
                        nodes: read.nodes,
                        invalid_taints: read.invalid_taints,
                        unread: Vec::new(),
                        objects: Cluster::default(),
                    })
                };
                return ReadFile { index, read };
            }
        };
        let error = |e: ParseError| InventoryError {
            file: name.to_string(),
            position: e.offset.map(|o| {
                let lc = LineIndex::new(text).line_col(
                    text,
                    o.min(text.len()),
                    crate::position::Encoding::Utf32,
                );
                (lc.line as usize + 1, lc.col as usize + 1)
            }),
            message: e.message,
        };
        // Namespaces and RuntimeClasses come from the YAML reader's parse (a JSON list of
        // nodes is read from its text; Terraform has none).
        let mut objects = Cluster::default();
        let mut unread = Vec::new();
        let read = match class::text(text) {
            class::Text::Hcl => {
                terraform::read(index, text).map(|(mut nodes, mut invalid, not_read, manifests)| {
                    unread = not_read;
                    let (applied, left_out) = applied_manifests(
                        (index, name, text),
                        &manifests,
                        &mut objects,
                        &mut unread,
                    );
                    nodes.extend(applied);
                    invalid += left_out;
                    (nodes, invalid)
                })
            }
            class::Text::Json => match json::read(index, text) {
                Ok(Some(r)) => {
                    objects.add_text(name, text);
                    Ok((r.nodes, r.invalid_taints))
                }
                Ok(None) => nodes::parse_file(index, name, text, &mut objects, &mut unread),
                Err(e) => Err(e),
            },
            class::Text::Yaml => nodes::parse_file(index, name, text, &mut objects, &mut unread),
        };
        let read = match read {
            Ok((nodes, _)) if nodes.is_empty() && objects.is_empty() => {
                // A file whose node groups are all written as expressions says so.
                let message = match unread.first() {
                    Some(u) => format!("{NO_GROUP_READ}: {}", u.message),
                    None => format!("holds no nodes; an inventory is {FORMATS}"),
                };
                Err(vec![error(ParseError {
                    offset: unread.first().map(|u| u.at.start),
                    message,
                })])
            }
            Ok((nodes, invalid_taints)) => Ok(FileNodes {
                name: name.to_string(),
                nodes,
                invalid_taints,
                unread,
                objects,
            }),
            Err(e) => Err(vec![error(e)]),
        };
        ReadFile { index, read }
    }
}

impl Inventory {
    /// Reads inventory files, given as (name, text) pairs, into one cluster. Every file must hold
    /// at least one node; each error names its file and place.
    pub fn load(sources: &[(&str, &str)]) -> Result<Inventory, Vec<InventoryError>> {
        Self::load_sources(
            sources
                .iter()
                .map(|&(name, text)| (name, Source::Text(text)))
                .collect(),
        )
    }

    /// As [`Inventory::load`], with some files' nodes already read.
    pub fn load_sources(
        sources: Vec<(&str, Source<'_>)>,
    ) -> Result<Inventory, Vec<InventoryError>> {
        let read: Vec<ReadFile> = sources
            .into_iter()
            .enumerate()
            .map(|(index, (name, source))| ReadFile::read(index, name, source))
            .collect();
        Self::assemble(&read)
    }

    /// One cluster from its files as read, each at the index it was read for (a reader that
    /// keeps them reads again only the files that changed: the language server, when a pool
    /// file is edited beside a node list of thousands of nodes).
    pub fn assemble<F: std::borrow::Borrow<ReadFile>>(
        files: &[F],
    ) -> Result<Inventory, Vec<InventoryError>> {
        let mut errors = Vec::new();
        let mut cluster = Cluster::default();
        let mut raw = Vec::new();
        let mut list = Vec::new();
        for (index, f) in files.iter().enumerate() {
            let f = f.borrow();
            debug_assert_eq!(f.index, index, "a file read for another place");
            match &f.read {
                Ok(r) => {
                    cluster.merge(r.objects.clone());
                    list.push(InventoryFile {
                        name: r.name.clone(),
                        nodes: r.nodes.len(),
                        invalid_taints: r.invalid_taints,
                        unread: r.unread.clone(),
                    });
                    raw.extend(r.nodes.iter().map(Cow::Borrowed));
                }
                Err(e) => errors.extend(e.iter().cloned()),
            }
        }
        if files.is_empty() {
            errors.push(InventoryError {
                file: "inventory".to_string(),
                position: None,
                message: "no inventory file given".to_string(),
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        link_bootstrap(&mut raw);
        let mut inventory = group(list, raw);
        inventory.cluster = cluster;
        inventory.platform = platform::infer(&inventory.pools);
        platform::imply(&mut inventory.pools, inventory.platform.platform);
        inventory.distinct_taints = distinct_taints(&inventory.pools);
        Ok(inventory)
    }

    /// Decides the platform: `choice` gives it, or leaves it to what the pools show (as
    /// [`Inventory::assemble`] inferred it). What the platform implies follows.
    pub fn set_platform(&mut self, choice: platform::Choice, by: &str) {
        let assumed = match choice {
            platform::Choice::Infer => return,
            platform::Choice::Given(p) => platform::Assumed {
                platform: p,
                why: format!("given with {by}"),
                given: true,
            },
        };
        if assumed.platform != self.platform.platform {
            self.derived = Default::default();
            platform::imply(&mut self.pools, assumed.platform);
            self.distinct_taints = distinct_taints(&self.pools);
        }
        self.platform = assumed;
    }

    /// The value of type `T` a later layer derives from this inventory (the simulations of the
    /// workloads judged against it, what a rule asks of every taint), made by `init` on first
    /// use and kept with it. The inventory does not change once it is shared (what changes it
    /// before forgets the values). `None` when values of `DERIVED` other types took the
    /// places.
    pub fn derived<T: std::any::Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Option<&T> {
        let mut init = Some(init);
        for slot in &self.derived {
            let value = slot.get_or_init(|| match init.take() {
                Some(init) => Box::new(init()),
                None => unreachable!("a value is made for one slot only"),
            });
            if let Some(value) = value.downcast_ref() {
                return Some(value);
            }
        }
        None
    }

    /// How many nodes the cluster has.
    pub fn node_count(&self) -> usize {
        self.pools.iter().map(|p| p.nodes.len()).sum()
    }

    /// The name of the file a location is in.
    pub fn file_name(&self, at: &Loc) -> &str {
        &self.files[at.file].name
    }

    /// Whether a label key is kept per node (it names nodes, or is a topology label), so
    /// selecting on it needs a check per variant or per node.
    pub fn is_identity_key(&self, key: &str) -> bool {
        self.identity_keys
            .binary_search_by(|k| k.as_str().cmp(key))
            .is_ok()
    }

    /// Whether a label key names nodes (`kubernetes.io/hostname`, or a label whose value is a
    /// node's name): its values are looked up in an index rather than grouped into variants.
    pub fn is_naming_key(&self, key: &str) -> bool {
        self.naming_keys
            .binary_search_by(|k| k.as_str().cmp(key))
            .is_ok()
    }

    /// The nodes whose naming label `key` has `value`.
    pub fn nodes_labelled(&self, key: &str, value: &str) -> &[NodeRef] {
        self.by_label
            .get(&(key.to_string(), value.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// The nodes named `name`.
    pub fn nodes_named(&self, name: &str) -> &[NodeRef] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Names the pools again, by the node label `label` first (a `pool-label` setting: the
    /// label a cluster's node groups carry), where the inventory does not name them itself.
    pub fn name_pools_by(&mut self, label: &str) {
        self.derived = Default::default();
        name_pools(&mut self.pools, Some(label));
    }

    /// Every distinct taint of the cluster with the pools that carry it.
    pub fn taints(&self) -> Vec<(&PoolTaint, &[usize])> {
        (0..self.distinct_taints.len())
            .map(|i| self.taint(i))
            .collect()
    }

    /// The `i`th of [`Inventory::taints`], without listing them all.
    pub fn taint(&self, i: usize) -> (&PoolTaint, &[usize]) {
        let ((p, t), pools) = &self.distinct_taints[i];
        (&self.pools[*p].taints[*t], pools.as_slice())
    }
}

/// A NodeFeatureRule's pool stands for the nodes its rule matches, which may be any other
/// pool's (src/inventory/nfd.rs): every other pool's nodes may carry its taints.
fn feature_rule_taints(pools: &mut [Pool]) {
    let is_rule = |p: &Pool| p.declared.as_ref().is_some_and(|d| d.kind == nfd::KIND);
    let carried: Vec<MayCarry> = pools
        .iter()
        .filter(|p| is_rule(p))
        .flat_map(|p| {
            p.taints.iter().map(|t| MayCarry {
                taint: t.taint.clone(),
                by: format!("NodeFeatureRule {}", p.name),
            })
        })
        .collect();
    if carried.is_empty() {
        return;
    }
    for pool in pools.iter_mut().filter(|p| !is_rule(p)) {
        pool.may_carry.extend(carried.iter().cloned());
    }
}

/// Groups nodes into pools, and the nodes of each pool into variants.
fn group(files: Vec<InventoryFile>, raw: Vec<Cow<'_, RawNode>>) -> Inventory {
    let (naming, identity) = label_keys(&raw);
    let mut pools = pools_of(&raw, &identity);
    let (by_label, by_name) = index_members(&mut pools, &naming);
    name_pools(&mut pools, None);
    feature_rule_taints(&mut pools);
    Inventory {
        files,
        cluster: Cluster::default(),
        distinct_taints: distinct_taints(&pools),
        derived: Default::default(),
        platform: platform::Assumed::default(),
        pools,
        identity_keys: identity.into_iter().collect(),
        naming_keys: naming.into_iter().collect(),
        by_label,
        by_name,
    }
}

/// Every distinct taint of `pools` (the pool and index of its first writing), with the pools
/// that carry it, in the order they are first written.
fn distinct_taints(pools: &[Pool]) -> Vec<((usize, usize), Vec<usize>)> {
    let mut out: Vec<((usize, usize), Vec<usize>)> = Vec::new();
    for (p, pool) in pools.iter().enumerate() {
        for (i, t) in pool.taints.iter().enumerate() {
            match out
                .iter_mut()
                .find(|((fp, fi), _)| pools[*fp].taints[*fi].taint == t.taint)
            {
                Some((_, carriers)) => carriers.push(p),
                None => out.push(((p, i), vec![p])),
            }
        }
    }
    out
}

/// The label keys that name nodes (`kubernetes.io/hostname`, and any label whose value is the
/// node's name), and the identity keys: those and the topology keys. A node keeps its own
/// values of the identity keys; its other labels are its pool's.
fn label_keys(raw: &[Cow<'_, RawNode>]) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut naming: BTreeSet<String> = BTreeSet::new();
    naming.insert(HOSTNAME_LABEL.to_string());
    let mut identity: BTreeSet<String> = BTreeSet::new();
    for node in raw {
        for (k, v) in &node.labels {
            // Looked up before inserted: thousands of nodes carry the same few keys.
            if is_topology_key(k) {
                if !identity.contains(k) {
                    identity.insert(k.clone());
                }
            } else if *v == node.name && !naming.contains(k) {
                naming.insert(k.clone());
            }
        }
    }
    identity.extend(naming.iter().cloned());
    (naming, identity)
}

/// Nodes with the same pool (as given), shared labels, taints and cordon make one pool; what
/// its nodes offer is the least and the most of each resource (or unknown once a node does not
/// say), and a pool defined as code keeps what its definition declares.
fn pools_of(raw: &[Cow<'_, RawNode>], identity: &BTreeSet<String>) -> Vec<Pool> {
    use rayon::prelude::*;
    /// What puts nodes in one pool: the pool a file names, the shared labels (sorted, one
    /// value a key), the taints (sorted, distinct) and the cordon.
    type Key<'n> = (
        Option<(usize, usize)>,
        Vec<(&'n str, &'n str)>,
        Vec<(&'n str, &'n str, crate::k8s::model::Effect)>,
        bool,
    );
    // Each node's key and own labels, worked out on every core: a node list holds thousands,
    // and a keystroke in a pool file beside it groups them all again.
    let keyed: Vec<(Key<'_>, Vec<(String, String)>)> = raw
        .par_iter()
        .map(|node| {
            let (mut own, mut shared): (Vec<_>, Vec<_>) =
                node.labels.iter().partition(|(k, _)| identity.contains(k));
            own.sort();
            own.dedup_by(|a, b| a.0 == b.0);
            shared.sort();
            shared.dedup_by(|a, b| a.0 == b.0);
            let mut taints: Vec<_> = node
                .taints
                .iter()
                .map(|t| (t.taint.key.as_str(), t.taint.value.as_str(), t.taint.effect))
                .collect();
            taints.sort();
            taints.dedup();
            let key: Key<'_> = (
                node.pool.as_ref().map(|(i, _)| *i),
                shared
                    .into_iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect(),
                taints,
                node.unschedulable.is_some(),
            );
            (key, own.into_iter().cloned().collect())
        })
        .collect();
    let mut index: foldhash::HashMap<Key<'_>, usize> = foldhash::HashMap::default();
    let mut pools: Vec<Pool> = Vec::new();
    // What each pool's nodes offer: the least and the most of each resource, or unknown once
    // a node does not say (kept per pool, never per node).
    let mut offered: Vec<Option<Option<(Resources, Resources)>>> = Vec::new();
    let offer = |acc: &mut Option<Option<(Resources, Resources)>>, node: Option<&Resources>| {
        *acc = match (acc.take(), node) {
            (_, None) | (Some(None), _) => Some(None),
            (None, Some(r)) => Some(Some((r.clone(), r.clone()))),
            (Some(Some((min, mut max))), Some(r)) => {
                max.max(r);
                Some(Some((min.min(r), max)))
            }
        };
    };
    for (node, (key, own)) in raw.iter().zip(keyed) {
        let member = Member {
            name: node.name.clone(),
            labels: own,
            at: node.at.clone(),
            variant: 0,
        };
        match index.get(&key) {
            Some(&i) => {
                pools[i].nodes.push(member);
                offer(&mut offered[i], node.allocatable.as_ref());
            }
            None => {
                let labels = key
                    .1
                    .iter()
                    .map(|&(k, v)| (k.to_string(), v.to_string()))
                    .collect();
                index.insert(key, pools.len());
                let mut acc = None;
                offer(&mut acc, node.allocatable.as_ref());
                offered.push(acc);
                pools.push(Pool {
                    given_name: node.pool.as_ref().map(|(_, name)| name.clone()),
                    name: String::new(),
                    labels,
                    taints: node.taints.clone(),
                    unschedulable: node.unschedulable.clone(),
                    nodes: vec![member],
                    variants: Vec::new(),
                    at: node.at.clone(),
                    declared: node.declared.clone(),
                    capacity: capacity::Capacity::default(),
                    observed: node.observed,
                    implied: Vec::new(),
                    may_carry: Vec::new(),
                });
            }
        }
    }
    for (pool, acc) in pools.iter_mut().zip(offered) {
        pool.capacity = match (&pool.declared, acc) {
            (Some(d), _) => d.capacity.clone(),
            (None, Some(Some((min, max)))) => {
                let mut capacity = capacity::Capacity::range(&min, &max);
                if !pool.observed {
                    // A pool file's `allocatable`: see [`capacity::Unlisted::Extended`].
                    capacity.unlisted = capacity::Unlisted::Extended;
                }
                capacity
            }
            (None, _) => capacity::Capacity::default(),
        };
    }
    absent_where_unnamed(&mut pools);
    pools
}

/// A pool file that names an extended resource (`nvidia.com/gpu: 1` in one pool's
/// `allocatable`) speaks of it for every pool it writes: a pool of the file that writes no
/// `allocatable` has none of it (the system pool beside the GPU pool), unless something about
/// its nodes says they may (an instance type, an accelerator or GPU label), which leaves it
/// unknown. Resources the kubelet reports stay unknown, and nothing is said of a resource no
/// pool names.
fn absent_where_unnamed(pools: &mut [Pool]) {
    let written = |p: &Pool| !p.observed && p.declared.is_none();
    let mut named: Vec<String> = pools
        .iter()
        .filter(|p| written(p))
        .flat_map(|p| p.capacity.offers.iter().map(|o| o.name.clone()))
        .filter(|n| !capacity::reported_by_kubelet(n))
        .collect();
    named.sort();
    named.dedup();
    if named.is_empty() {
        return;
    }
    let may_have = |p: &Pool| {
        p.labels.iter().any(|(k, _)| {
            k.contains("instance-type") || k.contains("accelerator") || k.contains("gpu")
        })
    };
    for pool in pools.iter_mut() {
        let silent = pool.capacity.offers.is_empty()
            && pool.capacity.unlisted == capacity::Unlisted::Unknown
            && pool.capacity.types.is_empty();
        if written(pool) && silent && !may_have(pool) {
            for name in &named {
                pool.capacity.set(name, 0, Some(0));
            }
        }
    }
}

/// The nodes (as pool and member) that carry a naming label's value. (The index maps use a
/// fast hash: a keystroke in a pool file beside a node list indexes thousands of nodes again.)
type NodesByLabel = foldhash::HashMap<(String, String), Vec<NodeRef>>;
/// The nodes (as pool and member) of a name.
type NodesByName = foldhash::HashMap<String, Vec<NodeRef>>;

/// Indexes every node by name and by the naming labels it carries, and sorts each pool's nodes
/// into variants: nodes whose identity labels differ only in naming values share one.
fn index_members(pools: &mut [Pool], naming: &BTreeSet<String>) -> (NodesByLabel, NodesByName) {
    let is_naming = |k: &str| naming.contains(k);
    // Made at their size: grown node by node, they would be hashed over and over.
    let nodes: usize = pools.iter().map(|p| p.nodes.len()).sum();
    let mut by_label = NodesByLabel::with_capacity_and_hasher(nodes, Default::default());
    let mut by_name = NodesByName::with_capacity_and_hasher(nodes, Default::default());
    for (p, pool) in pools.iter_mut().enumerate() {
        let mut variants: foldhash::HashMap<Vec<(&str, Option<&str>)>, u32> =
            foldhash::HashMap::default();
        let mut members: Vec<Vec<u32>> = Vec::new();
        for (m, member) in pool.nodes.iter_mut().enumerate() {
            let at = (p as u32, m as u32);
            by_name.entry(member.name.clone()).or_default().push(at);
            let mut shape = Vec::with_capacity(member.labels.len());
            for (k, v) in &member.labels {
                if is_naming(k) {
                    by_label.entry((k.clone(), v.clone())).or_default().push(at);
                    shape.push((k.as_str(), None));
                } else {
                    shape.push((k.as_str(), Some(v.as_str())));
                }
            }
            let next = members.len() as u32;
            let v = *variants.entry(shape).or_insert(next);
            if v == next {
                members.push(Vec::new());
            }
            members[v as usize].push(m as u32);
            member.variant = v;
        }
        pool.variants = members
            .into_iter()
            .map(|members| Variant { members })
            .collect();
    }
    (by_label, by_name)
}

/// Names the pools: the pool file's name, a node-pool label (`label` first, then
/// [`POOL_LABELS`]), the node names' common prefix (`ip-10-0-2-*`), or the node role. A prefix
/// that also begins a node of another pool would claim that node too (`ip-10-0-2-*` and the
/// cordoned `ip-10-0-2-13`): the pool is then named by its first node and how many more. Names
/// are unique: a cordoned pool named as another takes `-cordoned`, and others `#2`, `#3`.
fn name_pools(pools: &mut [Pool], label: Option<&str>) {
    let mut bases: Vec<String> = pools
        .iter()
        .map(|pool| match &pool.given_name {
            Some(given) => given.clone(),
            None => derived_name(pool, label),
        })
        .collect();
    for (p, base) in bases.iter_mut().enumerate() {
        let Some(stem) = base
            .strip_suffix('*')
            .filter(|_| pools[p].given_name.is_none())
        else {
            continue;
        };
        let overlaps = pools
            .iter()
            .enumerate()
            .any(|(q, other)| q != p && other.nodes.iter().any(|m| m.name.starts_with(stem)));
        if overlaps {
            let pool = &pools[p];
            *base = format!("{}+{}", pool.nodes[0].name, pool.nodes.len() - 1);
        }
    }
    let mut taken: HashMap<String, usize> = HashMap::new();
    for (pool, mut base) in pools.iter_mut().zip(bases) {
        if taken.contains_key(&base) && pool.unschedulable.is_some() {
            base.push_str("-cordoned");
        }
        let n = taken.entry(base.clone()).or_insert(0);
        *n += 1;
        pool.name = if *n == 1 { base } else { format!("{base}#{n}") };
    }
}

/// Topology labels: a zone or region, which nodes of one pool usually do not share.
fn is_topology_key(key: &str) -> bool {
    key.starts_with("topology.") || key.starts_with("failure-domain.beta.kubernetes.io/")
}

fn derived_name(pool: &Pool, label: Option<&str>) -> String {
    for label in label.into_iter().chain(POOL_LABELS.iter().copied()) {
        if let Some(v) = pool.label(None, label).filter(|v| !v.is_empty()) {
            return v.to_string();
        }
    }
    if pool.nodes.len() == 1 {
        return pool.nodes[0].name.clone();
    }
    let first = &pool.nodes[0].name;
    let mut prefix = first.len();
    for m in &pool.nodes[1..] {
        prefix = first
            .bytes()
            .zip(m.name.bytes())
            .take(prefix)
            .take_while(|(a, b)| a == b)
            .count();
    }
    while prefix > 0 && !first.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let stem = first[..prefix].trim_end_matches(|c: char| c.is_ascii_digit());
    if stem.len() >= 2 {
        format!("{stem}*")
    } else if let Some(role) = pool
        .labels
        .iter()
        .find_map(|(k, _)| k.strip_prefix("node-role.kubernetes.io/"))
        .filter(|r| !r.is_empty())
    {
        role.to_string()
    } else {
        format!("{first}+{}", pool.nodes.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Inventory {
        Inventory::load(&[("nodes.yaml", text)]).unwrap()
    }

    /// What later layers derive from an inventory is made once a type, kept, and forgotten when
    /// the inventory changes.
    #[test]
    fn a_derived_value_is_made_once_and_forgotten_on_change() {
        let mut inv = load(&node("a", "pool: x", ""));
        let made = std::cell::Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            vec![inv.pools.len()]
        };
        assert_eq!(inv.derived(make), Some(&vec![1]));
        assert_eq!(inv.derived(|| vec![7_usize]), Some(&vec![1]));
        assert_eq!(made.get(), 1);
        // Values of other types have places of their own, as many as there are.
        assert_eq!(inv.derived(|| "other"), Some(&"other"));
        assert_eq!(inv.derived(|| 2_u8), Some(&2));
        assert_eq!(inv.derived(|| 3_u16), Some(&3));
        assert_eq!(inv.derived(|| 4_u32), None);
        assert_eq!(inv.derived(|| vec![8_usize]), Some(&vec![1]));
        assert_eq!(inv.derived(|| "another"), Some(&"other"));
        inv.name_pools_by("pool");
        assert_eq!(inv.derived(|| vec![7_usize]), Some(&vec![7]));
    }

    fn node(name: &str, labels: &str, taints: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\nspec:\n  taints: [{taints}]\n"
        )
    }

    #[test]
    fn identical_nodes_share_a_pool() {
        let mut text = String::new();
        for i in 1..=3 {
            text.push_str(&node(
                &format!("gpu-{i}"),
                &format!("kubernetes.io/hostname: gpu-{i}, pool: gpu"),
                "{key: nvidia.com/gpu, value: present, effect: NoSchedule}",
            ));
            text.push_str("---\n");
        }
        text.push_str(&node("web-1", "pool: web", ""));
        let inv = load(&text);
        assert_eq!(inv.node_count(), 4);
        assert_eq!(inv.pools.len(), 2);
        let gpu = &inv.pools[0];
        // Named by the `pool` label the nodes carry.
        assert_eq!(gpu.name, "gpu");
        assert_eq!(gpu.nodes.len(), 3);
        assert_eq!(gpu.label(None, "pool"), Some("gpu"));
        assert_eq!(gpu.label(None, HOSTNAME_LABEL), None);
        assert_eq!(gpu.label(Some(1), HOSTNAME_LABEL), Some("gpu-2"));
        assert_eq!(gpu.taints.len(), 1);
        let t = &gpu.taints[0];
        assert_eq!(
            &text[t.at.range.clone()],
            "{key: nvidia.com/gpu, value: present, effect: NoSchedule}"
        );
        assert_eq!(inv.pools[1].name, "web");
        assert!(inv.is_identity_key(HOSTNAME_LABEL));
    }

    /// Nodes named as EC2 names them: a prefix shared with a cordoned node of the same group
    /// names no pool (`ip-10-0-2-*` would claim `ip-10-0-2-13` too).
    #[test]
    fn pool_names_never_claim_the_nodes_of_another_pool() {
        let mut text = String::new();
        for i in 10..=12 {
            text.push_str(&node(&format!("ip-10-0-2-{i}"), "", ""));
            text.push_str(
                "---
",
            );
        }
        for i in 10..=11 {
            text.push_str(&node(
                &format!("ip-10-0-1-{i}"),
                "",
                "{key: a, effect: NoSchedule}",
            ));
            text.push_str(
                "---
",
            );
        }
        text.push_str(&node("ip-10-0-2-13", "", ""));
        text.push_str(
            "  unschedulable: true
",
        );
        let inv = load(&text);
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["ip-10-0-2-10+2", "ip-10-0-1-*", "ip-10-0-2-13"]);
        // Each name's prefix, if it has one, begins no node of another pool.
        for (p, pool) in inv.pools.iter().enumerate() {
            if let Some(stem) = pool.name.strip_suffix('*') {
                for (q, other) in inv.pools.iter().enumerate() {
                    assert!(q == p || other.nodes.iter().all(|m| !m.name.starts_with(stem)));
                }
            }
        }
    }

    /// The node-group labels of the common providers name pools, a configured label first;
    /// the cordoned nodes of a group are that group's, cordoned.
    #[test]
    fn node_group_labels_name_pools() {
        let mut text = String::new();
        for (name, labels, cordoned) in [
            (
                "ip-10-0-2-10",
                "eks.amazonaws.com/nodegroup: gpu-a100, team: ml",
                false,
            ),
            (
                "ip-10-0-2-11",
                "eks.amazonaws.com/nodegroup: gpu-a100, team: ml",
                false,
            ),
            (
                "ip-10-0-2-13",
                "eks.amazonaws.com/nodegroup: gpu-a100, team: ml",
                true,
            ),
            (
                "gke-x-1",
                "cloud.google.com/gke-nodepool: default-pool, team: web",
                false,
            ),
            (
                "aks-sys-1",
                "kubernetes.azure.com/agentpool: system, team: infra",
                false,
            ),
            ("kp-1", "karpenter.sh/nodepool: spot, team: batch", false),
        ] {
            text.push_str(&node(name, labels, ""));
            if cordoned {
                text.push_str(
                    "  unschedulable: true
",
                );
            }
            text.push_str(
                "---
",
            );
        }
        let mut inv = load(&text);
        let names =
            |inv: &Inventory| -> Vec<String> { inv.pools.iter().map(|p| p.name.clone()).collect() };
        assert_eq!(
            names(&inv),
            [
                "gpu-a100",
                "gpu-a100-cordoned",
                "default-pool",
                "system",
                "spot"
            ]
        );
        inv.name_pools_by("team");
        assert_eq!(names(&inv), ["ml", "ml-cordoned", "web", "infra", "batch"]);
    }

    #[test]
    fn taint_order_does_not_split_pools() {
        let a = "{key: a, effect: NoSchedule}";
        let b = "{key: b, effect: NoExecute}";
        let text = format!(
            "{}---\n{}",
            node("n1", "", &format!("{a}, {b}")),
            node("n2", "", &format!("{b}, {a}"))
        );
        assert_eq!(load(&text).pools.len(), 1);
    }

    #[test]
    fn distinct_taints_name_every_pool_that_carries_them() {
        let gpu = "{key: nvidia.com/gpu, effect: NoSchedule}";
        let spot = "{key: spot, value: 'true', effect: NoSchedule}";
        let text = format!(
            "{}---\n{}---\n{}",
            node("cpu", "pool: cpu", ""),
            node("gpu", "pool: gpu", gpu),
            node("gpu-spot", "pool: gpu-spot", &format!("{spot}, {gpu}"))
        );
        let inventory = load(&text);
        let taints: Vec<(String, Vec<&str>)> = inventory
            .taints()
            .into_iter()
            .map(|(t, pools)| {
                let names = pools.iter().map(|&p| inventory.pools[p].name.as_str());
                (t.taint.to_string(), names.collect())
            })
            .collect();
        assert_eq!(
            taints,
            [
                (
                    "nvidia.com/gpu:NoSchedule".to_string(),
                    vec!["gpu", "gpu-spot"]
                ),
                ("spot=true:NoSchedule".to_string(), vec!["gpu-spot"]),
            ]
        );
    }

    #[test]
    fn errors_name_file_and_place() {
        let e = Inventory::load(&[("bad.yaml", "kind: Node\nmetadata: [\n")]).unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].file, "bad.yaml");
        assert!(e[0].position.is_some(), "{e:?}");
        let e = Inventory::load(&[("empty.yaml", "# nothing\n")]).unwrap_err();
        assert!(
            e[0].to_string().starts_with("empty.yaml: holds no nodes"),
            "{}",
            e[0]
        );
        let e = Inventory::load(&[("pod.yaml", "kind: Pod\nmetadata: {name: x}\n")]).unwrap_err();
        assert_eq!(e[0].position, Some((1, 1)));
        assert!(e[0].message.contains("not a node inventory"), "{}", e[0]);
        assert!(Inventory::load(&[]).is_err());
    }
}
