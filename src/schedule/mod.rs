//! Which nodes of an inventory a pod template can land on, as kube-scheduler's filters decide:
//! NodeUnschedulable, NodeName, TaintToleration (NoSchedule and NoExecute must be tolerated;
//! PreferNoSchedule only makes a node one to avoid) and NodeAffinity (`nodeSelector` and
//! required node affinity), with the tolerations the DaemonSet controller and admission add.
//!
//! The work is done once per pool; only a workload that selects on something that names a node
//! (`nodeName`, `matchFields`, `kubernetes.io/hostname`) is checked node by node. A pod with
//! `nodeName` never meets the scheduler: the kubelet admits it, enforcing only NoExecute taints.

use crate::config::Options;
use std::collections::HashMap;
use std::sync::Arc;

use crate::inventory::{capacity, Inventory, NodeRef, Pool, HOSTNAME_LABEL};
use crate::k8s::model::{do_not_schedule, tolerations_tolerate_taint, Effect, Taint, Toleration};
use crate::k8s::objects::{items, Extracted, Item, List};
use crate::k8s::resources::{self, Resources};
use crate::k8s::well_known::UNSCHEDULABLE;
use crate::syntax::{Document, NodeId};

pub mod admission;
pub mod affinity;
pub mod keeps_meaning;
pub mod near;
pub mod placement;
pub mod requirements;

use admission::Source;
use affinity::{Affinity, NodeView};

/// The feature gate that turns on the Lt and Gt toleration operators.
pub const COMPARISON_GATE: &str = "TaintTolerationComparisonOperators";

/// One `nodeSelector` entry.
#[derive(Debug, Clone)]
pub struct SelectorEntry {
    /// Shared with the reasons that name it: a workload that 49 pools turn away for its
    /// nodeSelector copies no string for it.
    pub key: std::sync::Arc<str>,
    pub value: std::sync::Arc<str>,
    pub key_node: NodeId,
    pub value_node: NodeId,
}

/// The `topologyKey` of a `DoNotSchedule` topology spread constraint.
#[derive(Debug, Clone)]
pub struct SpreadKey {
    pub key: Arc<str>,
    /// The key's value in the manifest, and its constraint's index in the list.
    pub node: NodeId,
    pub index: usize,
}

/// A pod template as the scheduler sees it.
#[derive(Debug)]
pub struct Workload<'d> {
    /// Index of the pod spec in [`Extracted::pod_specs`].
    pub spec_index: usize,
    /// Index of its object in [`Extracted::objects`].
    pub object: usize,
    pub kind: Option<&'d str>,
    /// The pod spec mapping and its path.
    pub spec: NodeId,
    pub path: String,
    /// Found by its shape, in a kind taintlint's table does not know.
    pub by_shape: bool,
    /// Which part of its object it is, in words, when the object names its parts
    /// ([`crate::k8s::parts::part`]: `worker group l4-workers`).
    pub part: Option<String>,
    /// Whether `spec` holds the pod's fields; else it is the component that makes the pods,
    /// its pod fields not written (a Strimzi component without `template.pod`), where no
    /// toleration can be added.
    pub fields: bool,
    /// The manifest's `tolerations` list and its items.
    pub list: Option<List>,
    pub items: Vec<Item<'d>>,
    /// Every toleration the pod ends up with, and where each comes from.
    pub tolerations: Vec<Toleration>,
    pub sources: Vec<Source>,
    pub node_name: Option<(String, NodeId)>,
    pub node_selector: Vec<SelectorEntry>,
    /// The `nodeSelector` key.
    pub selector_key: Option<NodeId>,
    pub affinity: Option<Affinity>,
    /// The terms of its preferred node affinity (what the scheduler's score prefers).
    pub preferred: Vec<affinity::Term>,
    /// The `topologyKey`s of its `topologySpreadConstraints` that say `whenUnsatisfiable:
    /// DoNotSchedule`, each with its value's node: a node without such a label is turned away.
    pub spread_keys: Vec<SpreadKey>,
    pub host_network: bool,
    /// Resources the containers request (requests and limits: limits default the requests).
    pub requested: Vec<String>,
    /// The pod's effective requests, as the scheduler counts them (see
    /// [`crate::k8s::resources::pod_requests`]).
    pub requests: Resources,
    /// Its `resourceClaims` (Dynamic Resource Allocation).
    pub claims: Vec<PodClaim>,
    /// The nodeSelector entries its RuntimeClass adds.
    pub class_selector: Vec<(String, String)>,
    /// Why the API server refuses to create its pods, if it does.
    pub rejection: Option<admission::Rejection>,
    /// Why the repository's policy refuses its pods, when the API server does not.
    pub policy_rejection: Option<admission::Rejection>,
}

impl<'d> Workload<'d> {
    /// Reads the `spec_index`th pod spec of a document.
    pub fn new(
        doc: &'d Document<'_>,
        ex: &Extracted<'d>,
        spec_index: usize,
        options: &Options,
    ) -> Workload<'d> {
        let pod = &ex.pod_specs[spec_index];
        let spec = pod.node;
        let kind = ex.objects[pod.object].kind;
        let list = ex.pod_tolerations(spec_index).cloned();
        let items = list.as_ref().map(|l| items(doc, l)).unwrap_or_default();
        let (manifest, bare) = manifest_tolerations(&items);
        let text = |id| crate::inventory::scalar_text(doc, id);
        // A pod field, where the pod spec holds its fields (a Strimzi component written
        // without `template.pod` holds none).
        let field = |key: &str| doc.get(spec, key).filter(|_| pod.fields);
        let node_name = field("nodeName")
            .and_then(|(_, v)| Some((text(v)?, v)))
            .filter(|(n, _)| !n.is_empty());
        let (selector_key, mut node_selector) = match field("nodeSelector") {
            Some((k, v)) => (Some(k), selector_entries(doc, v)),
            None => (None, Vec::new()),
        };
        // What the operator adds (a SparkApplication's own `spec.nodeSelector`).
        if let Some(extra) = pod.selector {
            for e in selector_entries(doc, extra) {
                if !node_selector.iter().any(|s| s.key == e.key) {
                    node_selector.push(e);
                }
            }
        }
        let host_network = field("hostNetwork").is_some_and(|(_, v)| {
            matches!(
                crate::k8s::decode::decode(doc, v),
                crate::k8s::decode::Decoded::Bool(true)
            )
        });
        let asks = resources::pod_asks(doc, pod);
        let (requested, best_effort) = (asks.named.clone(), !asks.burstable);
        let object = &ex.objects[pod.object];
        let runtime_class = field("runtimeClassName")
            .and_then(|(_, v)| text(v))
            .filter(|n| !n.is_empty());
        let selector: Vec<(String, String)> = node_selector
            .iter()
            .map(|e| (e.key.to_string(), e.value.to_string()))
            .collect();
        let affinity = affinity::required(doc, spec).filter(|_| pod.fields);
        let preferred = if pod.fields {
            affinity::preferred(doc, spec)
        } else {
            Vec::new()
        };
        let spread_keys = field("topologySpreadConstraints")
            .map(|(_, v)| spread_keys(doc, v))
            .unwrap_or_default();
        let admission_pod = admission::Pod {
            kind,
            namespace: object.namespace.unwrap_or("default"),
            host_network,
            requested: &requested,
            best_effort,
            runtime_class: runtime_class.as_deref(),
            node_selector: &selector,
            affinity: affinity.as_ref(),
        };
        let policy_manifest = options.policy().map(|_| manifest.clone());
        let admitted = admission::admit(&admission_pod, manifest, &bare, options);
        let policy_rejection = match policy_manifest {
            Some(m) if admitted.rejection.is_none() => {
                admission::policy_rejection(&admission_pod, m, &bare, options)
            }
            _ => None,
        };
        let (tolerations, sources) = admitted.tolerations.into_iter().unzip();
        // RuntimeClass admission sets `spec.overhead` from the class's `overhead.podFixed`.
        let overhead = runtime_class
            .as_deref()
            .and_then(|rc| options.cluster().runtime_class(rc))
            .map(|rc| rc.overhead.clone());
        let requests = asks.requests(overhead.as_ref());
        let claims = if pod.fields {
            pod_claims(doc, spec, ex.objects[pod.object].namespace, options)
        } else {
            Vec::new()
        };
        Workload {
            spec_index,
            object: pod.object,
            kind,
            spec,
            path: pod.path.clone(),
            by_shape: pod.by_shape,
            part: crate::k8s::parts::part(doc, object, &pod.path),
            fields: pod.fields,
            list,
            items,
            tolerations,
            sources,
            node_name,
            node_selector,
            selector_key,
            affinity,
            preferred,
            spread_keys,
            host_network,
            requested,
            requests,
            claims,
            class_selector: admitted.node_selector,
            rejection: admitted.rejection,
            policy_rejection,
        }
    }

    /// The tolerations that decide which nodes it can run on: for a DaemonSet, those the
    /// DaemonSet controller sees when it picks nodes (the template's and its own; upstream
    /// `NodeShouldRunDaemonPod` builds the pod without admission), else all of them.
    pub fn placing_tolerations(&self) -> Vec<Toleration> {
        if self.kind != Some("DaemonSet") {
            return self.tolerations.clone();
        }
        self.tolerations
            .iter()
            .zip(&self.sources)
            .filter(|(_, s)| !s.from_admission())
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// Whether anything steers it to particular nodes: `nodeName`, `nodeSelector`, or required
    /// node affinity.
    pub fn steered(&self) -> bool {
        self.node_name.is_some() || !self.node_selector.is_empty() || self.affinity.is_some()
    }

    /// Whether its preferred node affinity prefers the nodes of `pool` ([`prefers`]).
    pub fn prefers(&self, pool: &Pool) -> bool {
        prefers(&self.preferred, pool)
    }

    /// The manifest item a toleration came from.
    pub fn manifest_item(&self, toleration: usize) -> Option<&Item<'d>> {
        match self.sources.get(toleration)? {
            Source::Manifest(i) => self.items.get(*i),
            _ => None,
        }
    }
}

/// Why a node does not fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// `spec.unschedulable: true` (cordoned), not tolerated.
    Unschedulable,
    /// `spec.nodeName` names another node.
    NodeName(String),
    /// The pool's `taints[i]` (NoSchedule or NoExecute) is not tolerated.
    Taint(usize),
    /// A `nodeSelector` entry the node's labels do not have.
    NodeSelector {
        key: std::sync::Arc<str>,
        wanted: std::sync::Arc<str>,
        actual: Option<String>,
    },
    /// Required node affinity does not match; why.
    NodeAffinity(String),
    /// A `DoNotSchedule` topology spread constraint's `topologyKey` the node has no label for
    /// (PodTopologySpread's filter).
    TopologyKey(Arc<str>),
    /// The pool makes nodes on demand (a Karpenter NodePool) and its requirements rule out
    /// what the pod's `nodeSelector` or required affinity asks for; why.
    Requirements(String),
    /// The pod requests more of a resource than any node of the pool has allocatable
    /// (NodeResourcesFit): the resource, the amount requested and the most a node offers.
    Insufficient {
        resource: String,
        requested: u128,
        offered: u128,
    },
}

impl Reason {
    /// Plain words, with the taint spelt out from its pool.
    pub fn describe(&self, pool: &Pool) -> String {
        match self {
            Reason::Unschedulable => "node is cordoned (spec.unschedulable)".to_string(),
            Reason::NodeName(n) => format!("nodeName is {n}"),
            Reason::Taint(i) => format!("untolerated taint {}", pool.taints[*i].taint),
            Reason::NodeSelector { key, wanted, .. } => {
                format!("nodeSelector {key}={wanted} does not match")
            }
            Reason::NodeAffinity(why) => format!("required node affinity does not match: {why}"),
            Reason::TopologyKey(key) => {
                format!("topology spread on {key} (DoNotSchedule): the node has no label {key}")
            }
            Reason::Requirements(why) => why.clone(),
            Reason::Insufficient {
                resource,
                requested,
                offered,
            } => insufficient_text(resource, *requested, *offered),
        }
    }

    /// Like [`describe`](Self::describe), with what the node has instead.
    pub fn explain(&self, pool: &Pool) -> String {
        match self {
            Reason::NodeSelector {
                key,
                actual: Some(v),
                ..
            } => format!("{} (the node has {key}={v})", self.describe(pool)),
            Reason::NodeSelector {
                key, actual: None, ..
            } => {
                format!("{} (the node has no label {key})", self.describe(pool))
            }
            _ => self.describe(pool),
        }
    }

    /// Whether two reasons say the same thing (a `nodeSelector` miss is the same whatever
    /// value each node has instead), as [`describe`](Self::describe) would, without building it.
    pub fn same_as(&self, other: &Reason) -> bool {
        match (self, other) {
            (
                Reason::NodeSelector { key, wanted, .. },
                Reason::NodeSelector {
                    key: k, wanted: w, ..
                },
            ) => key == k && wanted == w,
            _ => self == other,
        }
    }

    /// Whether it is about which nodes the pod selects (`nodeName`, `nodeSelector`, node
    /// affinity, a pool's requirements), rather than a node it selects but cannot run on
    /// (a taint, the cordon, resources).
    pub fn selects(&self) -> bool {
        matches!(
            self,
            Reason::NodeName(_)
                | Reason::NodeSelector { .. }
                | Reason::NodeAffinity(_)
                | Reason::Requirements(_)
        )
    }

    /// Whether a toleration could remove it.
    pub fn tolerable(&self) -> bool {
        matches!(self, Reason::Unschedulable | Reason::Taint(_))
    }
}

/// "insufficient cpu: requests 64, a node offers at most 7910m" / "insufficient
/// nvidia.com/gpu: requests 1, the nodes have none".
pub fn insufficient_text(resource: &str, requested: u128, offered: u128) -> String {
    let asked = resources::display(resource, requested);
    if offered == 0 {
        format!("insufficient {resource}: requests {asked}, the nodes have none")
    } else {
        format!(
            "insufficient {resource}: requests {asked}, a node offers at most {}",
            resources::display(resource, offered)
        )
    }
}

/// When the taint manager evicts the pod from a node: after the fewest seconds of the
/// tolerations that let it stay despite the node's NoExecute taints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eviction {
    pub seconds: i64,
    /// The pool's taint and the toleration that bounds the time.
    pub taint: usize,
    pub toleration: usize,
}

/// What the filters say about one node (or every node of a pool).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Empty when the pod fits.
    pub reasons: Vec<Reason>,
    /// The pool's untolerated PreferNoSchedule taints (the node is one to avoid).
    pub avoid: Vec<usize>,
    /// When the pod would be evicted, if it fits and a NoExecute taint is tolerated for a time.
    pub eviction: Option<Eviction>,
    /// The pool's taints the pod tolerates only by a toleration its manifest does not show, and
    /// where that toleration comes from (a namespace default, a RuntimeClass, an admission
    /// plugin, the DaemonSet controller): why it fits a pool its own spec does not tolerate.
    pub granted: Vec<(usize, Source)>,
    /// What the pod asks of labels a pool defined as code does not declare: a label may be set
    /// elsewhere (by the platform, the kubelet, a controller), so the pod may fit there, or not.
    pub unknown: Vec<Undeclared>,
}

/// A label a pod asks for that a pool defined as code does not declare, or that the kubelet sets
/// on every node ([`KUBELET_LABELS`]) with a value the inventory does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undeclared {
    pub key: String,
    pub asked: Asked,
}

/// How a pod asks for a label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Asked {
    /// A `nodeSelector` entry (the pod's or its RuntimeClass's) with this value.
    Value(String),
    /// A required node affinity expression, as written (`topology.kubernetes.io/zone In [a]`).
    Expression(String),
    /// Not a label: an amount of the resource `key` that the pool's nodes may or may not offer.
    Resource {
        requested: u128,
        /// The least and the most a node of the pool offers, when the pool's nodes differ
        /// (`None`: unknown, the definition does not say).
        range: Option<(u128, u128)>,
    },
    /// Not a label: a taint (NoSchedule or NoExecute, whose key is `key`) the pod does not
    /// tolerate, which the pool's nodes may carry or not: `by` puts it on the nodes it matches,
    /// which cannot be known offline ([`Pool::may_carry`]).
    Taint { taint: String, by: String },
    /// The `topologyKey` of a `DoNotSchedule` topology spread constraint: the node must carry
    /// the label `key`, with any value.
    Spread,
    /// Not a label: a resource claim of the pod (Dynamic Resource Allocation), named `key`,
    /// with what it claims in words; not simulated.
    Claim {
        what: String,
        /// Where the devices were counted on each node: how many of the pool's nodes have
        /// enough, of how many.
        enough: Option<(usize, usize)>,
    },
}

impl Undeclared {
    /// Whether it is about a resource rather than a label.
    pub fn is_resource(&self) -> bool {
        matches!(self.asked, Asked::Resource { .. } | Asked::Claim { .. })
    }

    /// Whether it is about a label (which may decide whether the pod selects the node at all).
    pub fn is_label(&self) -> bool {
        matches!(self.asked, Asked::Value(_) | Asked::Expression(_))
    }

    /// Whether it says its own why ([`Undeclared::describe`]) wherever a pod may fit: a
    /// resource, a taint, or a kubelet label whose value the inventory does not give. The
    /// labels a definition does not declare are rather said together, or left to the `±`.
    pub fn said_alone(&self) -> bool {
        !self.is_label() || KUBELET_LABELS.contains(&self.key.as_str())
    }

    /// Why the pod may fit, in plain words.
    pub fn describe(&self) -> String {
        let key = &self.key;
        if KUBELET_LABELS.contains(&key.as_str()) {
            let unsaid = format!(
                "the kubelet sets {key} on every node, and the inventory does not say its value \
                 on this pool's nodes"
            );
            match &self.asked {
                Asked::Value(v) => {
                    return format!("nodeSelector {key}={v}: {unsaid}; it fits if it is {v}")
                }
                Asked::Expression(e) => {
                    return format!("node affinity `{e}`: {unsaid}; it fits if it matches")
                }
                _ => {}
            }
        }
        match &self.asked {
            Asked::Value(v) => format!(
                "nodeSelector {key}={v}: the pool's definition does not declare the label \
                 {key}; it fits if the label is set elsewhere"
            ),
            Asked::Expression(e) => format!(
                "node affinity `{e}`: the pool's definition does not declare the label {key}; \
                 it fits if the label is set elsewhere"
            ),
            Asked::Taint { taint, by } => format!(
                "untolerated taint {taint}: {by} puts it on the nodes it matches, which may be \
                 this pool's; it fits if they do not carry it"
            ),
            Asked::Spread if CLOUD_TOPOLOGY.contains(&key.as_str()) => format!(
                "topology spread on {key} (DoNotSchedule): a cloud provider sets {key} on its \
                 nodes, and the inventory does not say it on this pool's; it fits if they carry it"
            ),
            Asked::Spread => format!(
                "topology spread on {key} (DoNotSchedule): the pool's definition does not \
                 declare the label {key}; it fits if the label is set elsewhere"
            ),
            Asked::Claim { what, enough: None } => format!(
                "resource claim {key} {what}: dynamic resource allocation is not simulated; it \
                 fits if a node's devices satisfy the claim"
            ),
            Asked::Claim {
                what,
                enough: Some((n, of)),
            } => format!(
                "resource claim {key} {what}: nodes with that many devices: {n} of the \
                 pool's {of}; it fits those"
            ),
            Asked::Resource {
                requested,
                range: None,
            } => format!(
                "requests {} {key}: the pool does not say how much {key} its nodes offer; it \
                 fits if they offer enough",
                resources::display(key, *requested)
            ),
            Asked::Resource {
                requested,
                range: Some((min, max)),
            } => format!(
                "requests {} {key}: its nodes offer from {} to {}; it fits only those with enough",
                resources::display(key, *requested),
                resources::display(key, *min),
                resources::display(key, *max)
            ),
        }
    }
}

impl Verdict {
    pub fn fits(&self) -> bool {
        self.reasons.is_empty()
    }

    /// The pool taints (indices) that keep the pod off: its untolerated taint reasons.
    pub fn untolerated_taints(&self) -> Vec<usize> {
        self.reasons
            .iter()
            .filter_map(|r| match r {
                Reason::Taint(i) => Some(*i),
                _ => None,
            })
            .collect()
    }
}

/// Which nodes of a pool a [`Part`] covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Members {
    /// One node the workload names (by `nodeName`, a hostname, `matchFields`).
    One(u32),
    /// The nodes of a variant, but for those the workload names (each its own part).
    Variant { variant: u32, except: Vec<u32> },
}

/// Nodes of a pool that get the same verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub verdict: Verdict,
    /// How many nodes it covers (at least one).
    pub nodes: usize,
    pub members: Members,
    /// A node of the part, to name in messages.
    pub example: u32,
}

impl Part {
    /// The indices (in [`Pool::nodes`]) of the nodes it covers. This walks a variant's nodes:
    /// for naming them, not for deciding anything.
    pub fn members<'p>(&'p self, pool: &'p Pool) -> Box<dyn Iterator<Item = u32> + 'p> {
        match &self.members {
            Members::One(m) => Box::new(std::iter::once(*m)),
            Members::Variant { variant, except } => Box::new(
                pool.variants[*variant as usize]
                    .members
                    .iter()
                    .copied()
                    .filter(move |m| !except.contains(m)),
            ),
        }
    }
}

/// The verdict for a pool: one for all its nodes, or one per part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolVerdict {
    Uniform(Verdict),
    /// The workload selects on labels that differ between the pool's nodes.
    Split(Vec<Part>),
}

impl PoolVerdict {
    /// (verdict, a node it stands for or `None` for all, how many nodes it covers).
    pub fn groups<'a>(
        &'a self,
        pool: &'a Pool,
    ) -> impl Iterator<Item = (&'a Verdict, Option<usize>, usize)> + 'a {
        let (whole, parts) = match self {
            PoolVerdict::Uniform(v) => (Some((v, None, pool.nodes.len())), &[][..]),
            PoolVerdict::Split(parts) => (None, &parts[..]),
        };
        whole.into_iter().chain(
            parts
                .iter()
                .map(|p| (&p.verdict, Some(p.example as usize), p.nodes)),
        )
    }

    /// The verdict of one node of the pool (an index in [`Pool::nodes`]).
    pub fn verdict_of<'a>(&'a self, pool: &Pool, member: usize) -> &'a Verdict {
        match self {
            PoolVerdict::Uniform(v) => v,
            PoolVerdict::Split(parts) => {
                let m = member as u32;
                let variant = pool.nodes[member].variant;
                &parts
                    .iter()
                    .find(|p| match &p.members {
                        Members::One(one) => *one == m,
                        Members::Variant { variant: v, except } => {
                            *v == variant && !except.contains(&m)
                        }
                    })
                    .expect("every node of the pool is in one part")
                    .verdict
            }
        }
    }

    /// How many of the pool's nodes fit.
    pub fn fitting(&self, pool: &Pool) -> usize {
        self.groups(pool)
            .filter(|(v, _, _)| v.fits())
            .map(|(_, _, n)| n)
            .sum()
    }

    /// Whether the nodes that fit do so only if labels the pool's definition does not declare
    /// are set elsewhere (see [`Verdict::unknown`]).
    pub fn uncertain(&self, pool: &Pool) -> bool {
        self.groups(pool)
            .any(|(v, _, _)| v.fits() && !v.unknown.is_empty())
    }

    /// The distinct reasons the pool's nodes (or some of them) turn the workload away, in order.
    pub fn reasons<'a>(&'a self, pool: &'a Pool) -> Vec<&'a Reason> {
        let mut out: Vec<&Reason> = Vec::new();
        for (v, _, _) in self.groups(pool) {
            for r in &v.reasons {
                if !out.iter().any(|seen| seen.same_as(r)) {
                    out.push(r);
                }
            }
        }
        out
    }

    /// The pool's taints that the fitting nodes tolerate only by a toleration from outside the
    /// manifest, with its source, each once.
    pub fn tolerated_elsewhere<'a>(
        &'a self,
        pool: &'a Pool,
    ) -> Vec<(usize, &'a admission::Source)> {
        let mut out: Vec<(usize, &admission::Source)> = Vec::new();
        for (v, _, _) in self.groups(pool) {
            if !v.fits() {
                continue;
            }
            for (t, s) in &v.granted {
                if !out.iter().any(|(seen, _)| seen == t) {
                    out.push((*t, s));
                }
            }
        }
        out
    }

    /// How many of the pool's nodes fit only as nodes to avoid (untolerated PreferNoSchedule).
    pub fn avoided(&self, pool: &Pool) -> usize {
        self.groups(pool)
            .filter(|(v, _, _)| v.fits() && !v.avoid.is_empty())
            .map(|(_, _, n)| n)
            .sum()
    }

    /// The nodes (indices in [`Pool::nodes`]) that fit, and whether each is one to avoid. Walks
    /// the pool: for `--nodes`, which asks for names.
    pub fn fitting_nodes(&self, pool: &Pool) -> Vec<(u32, bool)> {
        match self {
            PoolVerdict::Uniform(v) if v.fits() => {
                let avoid = !v.avoid.is_empty();
                (0..pool.nodes.len() as u32).map(|m| (m, avoid)).collect()
            }
            PoolVerdict::Uniform(_) => Vec::new(),
            PoolVerdict::Split(parts) => {
                let mut out: Vec<(u32, bool)> = parts
                    .iter()
                    .filter(|p| p.verdict.fits())
                    .flat_map(|p| p.members(pool).map(|m| (m, !p.verdict.avoid.is_empty())))
                    .collect();
                out.sort_unstable();
                out
            }
        }
    }
}

/// The DaemonSet question: of the nodes a DaemonSet's selector and required affinity pick
/// (the DaemonSet controller's `NodeShouldRunDaemonPod`), how many it cannot run on and why.
/// Nodes are counted as in [`PoolVerdict::fitting`] (a pool defined as code is one member).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Nodes its selector and affinity pick (or may pick).
    pub picked: usize,
    /// Of those, the nodes it certainly picks and cannot run on (an untolerated taint,
    /// resources).
    pub missed: usize,
    /// The pools with such nodes, in the inventory's order.
    pub missed_pools: Vec<usize>,
    /// The nodes it cannot run on and only may pick: each lacks a label the DaemonSet asks
    /// for that its pool's definition does not declare (a pool defined as code, whose other
    /// labels are set elsewhere: by an administrator, a feature-discovery agent). The DaemonSet
    /// controller (`NodeShouldRunDaemonPod`) creates no pod on a node its selector does not
    /// match, so such a node is missed only once it is given the label.
    pub maybe_missed: usize,
    /// The pools whose missed nodes are all such, in the inventory's order.
    pub maybe_pools: Vec<usize>,
}

/// A workload against every pool of the inventory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simulation {
    /// One per pool, in the inventory's order.
    pub pools: Vec<PoolVerdict>,
}

impl Simulation {
    /// How many nodes the pod fits.
    pub fn fitting(&self, inventory: &Inventory) -> usize {
        self.pools
            .iter()
            .zip(&inventory.pools)
            .map(|(v, p)| v.fitting(p))
            .sum()
    }

    /// Which nodes a DaemonSet picks, and which of those it cannot run on, certainly or only
    /// if they are given a label their pool's definition does not declare.
    pub fn coverage(&self, inventory: &Inventory) -> Coverage {
        let mut out = Coverage::default();
        for (p, (v, pool)) in self.pools.iter().zip(&inventory.pools).enumerate() {
            // Whether the pool has a node certainly missed, one only maybe missed.
            let (mut certain, mut maybe) = (false, false);
            for (verdict, _, n) in v.groups(pool) {
                if verdict.reasons.iter().any(Reason::selects) {
                    continue;
                }
                out.picked += n;
                if verdict.fits() {
                    continue;
                }
                if verdict.unknown.iter().any(Undeclared::is_label) {
                    out.maybe_missed += n;
                    maybe = true;
                } else {
                    out.missed += n;
                    certain = true;
                }
            }
            if certain {
                out.missed_pools.push(p);
            } else if maybe {
                out.maybe_pools.push(p);
            }
        }
        out
    }

    pub fn fits_anywhere(&self) -> bool {
        self.pools.iter().any(|v| match v {
            PoolVerdict::Uniform(v) => v.fits(),
            PoolVerdict::Split(parts) => parts.iter().any(|p| p.verdict.fits()),
        })
    }

    /// Every fitting (pool, member, verdict): member `None` stands for the whole pool.
    pub fn fits<'a>(
        &'a self,
        inventory: &'a Inventory,
    ) -> Vec<(usize, Option<usize>, &'a Verdict)> {
        let mut out = Vec::new();
        for (p, (v, pool)) in self.pools.iter().zip(&inventory.pools).enumerate() {
            for (verdict, member, _) in v.groups(pool) {
                if verdict.fits() {
                    out.push((p, member, verdict));
                }
            }
        }
        out
    }
}

struct PoolNode<'a> {
    pool: &'a Pool,
    member: Option<usize>,
}

impl NodeView for PoolNode<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.pool.label(self.member, key)
    }
    fn name(&self) -> Option<&str> {
        self.member.map(|m| self.pool.nodes[m].name.as_str())
    }
}

/// The nodes a workload names, by pool: through `nodeName`, `matchFields` on `metadata.name`,
/// and its `nodeSelector` and affinity terms on labels that name nodes (found in the
/// inventory's index, never by walking the nodes). `None` when it compares such a label with
/// `Gt` or `Lt`, which only a walk over the nodes can answer.
fn named_nodes(w: &Workload<'_>, inventory: &Inventory) -> Option<HashMap<u32, Vec<u32>>> {
    let mut refs: Vec<NodeRef> = Vec::new();
    if let Some((name, _)) = &w.node_name {
        refs.extend_from_slice(inventory.nodes_named(name));
    }
    for e in &w.node_selector {
        if inventory.is_naming_key(&e.key) {
            refs.extend_from_slice(inventory.nodes_labelled(&e.key, &e.value));
        }
    }
    for t in w.affinity.iter().flat_map(|a| &a.terms) {
        for r in &t.expressions {
            if !inventory.is_naming_key(&r.key) {
                continue;
            }
            if matches!(r.op, affinity::SelOp::Gt | affinity::SelOp::Lt) {
                return None;
            }
            for v in &r.values {
                refs.extend_from_slice(inventory.nodes_labelled(&r.key, v));
            }
        }
        for r in t.fields.iter().filter(|r| r.key == "metadata.name") {
            for v in r.values.iter().take(1) {
                refs.extend_from_slice(inventory.nodes_named(v));
            }
        }
    }
    let mut by_pool: HashMap<u32, Vec<u32>> = HashMap::new();
    for (p, m) in refs {
        by_pool.entry(p).or_default().push(m);
    }
    for members in by_pool.values_mut() {
        members.sort_unstable();
        members.dedup();
    }
    Some(by_pool)
}

/// Simulates one workload against every pool.
///
/// A workload that selects on labels kept per node is judged once per [`Variant`] of a pool
/// (nodes with the same topology labels), and once per node it names; the rest of a variant
/// shares one verdict. The work grows with pools, variants and named nodes, not with nodes.
///
/// [`Variant`]: crate::inventory::Variant
pub fn simulate(w: &Workload<'_>, inventory: &Inventory, options: &Options) -> Simulation {
    let gate = options.feature(COMPARISON_GATE);
    let identity = |k: &str| inventory.is_identity_key(k);
    let per_node = w.node_name.is_some()
        || w.node_selector.iter().any(|e| identity(&e.key))
        || w.class_selector.iter().any(|(k, _)| identity(k))
        || w.affinity.as_ref().is_some_and(|a| a.per_node(&identity))
        || w.spread_keys.iter().any(|s| identity(&s.key));
    let named = if per_node {
        named_nodes(w, inventory)
    } else {
        Some(HashMap::new())
    };
    let unschedulable_taint = Taint {
        key: UNSCHEDULABLE.to_string(),
        value: String::new(),
        effect: Effect::NoSchedule,
    };
    let placing = w.placing_tolerations();
    let judging = Judging {
        w,
        inventory,
        options,
        gate,
        tolerates_cordon: tolerations_tolerate_taint(&placing, &unschedulable_taint, gate),
        placing_sources: w
            .tolerations
            .iter()
            .zip(&w.sources)
            .filter(|(_, s)| w.kind != Some("DaemonSet") || !s.from_admission())
            .collect(),
        placing,
        // A pod with `nodeName` bypasses the scheduler: the kubelet admits it, checking its node
        // selector and affinity but, of the taints, only NoExecute ones (pkg/kubelet/lifecycle
        // predicate.go), and not the cordon.
        bound: w.node_name.is_some(),
    };
    let pools = inventory
        .pools
        .iter()
        .enumerate()
        .map(|(p, pool)| {
            let (base, taint_reasons) = judging.pool_wide(pool);
            if !per_node {
                let mut base = base;
                base.reasons.extend(taint_reasons);
                selector_reasons(w, &PoolNode { pool, member: None }, &mut base);
                return PoolVerdict::Uniform(base);
            }
            let judge = |m: u32| judging.node(pool, m, &base, &taint_reasons);
            let parts = match &named {
                // Gt or Lt on a label that names nodes: every node is judged.
                None => (0..pool.nodes.len() as u32)
                    .map(|m| Part {
                        verdict: judge(m),
                        nodes: 1,
                        members: Members::One(m),
                        example: m,
                    })
                    .collect(),
                Some(named) => {
                    let named: &[u32] = named.get(&(p as u32)).map_or(&[], Vec::as_slice);
                    variant_parts(pool, named, judge)
                }
            };
            PoolVerdict::Split(parts)
        })
        .collect();
    Simulation { pools }
}

/// The simulations of the workloads judged against one inventory, by what they ask of it: a
/// repository holds many workloads that ask the same (no toleration, the same selector, the same
/// requests), and the language server judges them all again when a pool changes. Kept with the
/// inventory ([`Inventory::derived`]) while they hold at most [`Simulations::MOST`] verdicts.
#[derive(Default)]
struct Simulations(std::sync::RwLock<Kept>);

#[derive(Default)]
struct Kept {
    by_asks: HashMap<Arc<Asks>, Arc<Shared>>,
    /// How many verdicts they hold: a pool's one, or one per part of a pool judged node by node.
    verdicts: usize,
}

impl Simulations {
    /// An editor's keystrokes in a toleration each ask anew, and a workload judged node by node
    /// holds a verdict per node: what is kept stays bounded (some tens of MB).
    const MOST: usize = 250_000;
}

impl Simulation {
    /// How many verdicts it holds.
    fn verdicts(&self) -> usize {
        self.pools
            .iter()
            .map(|p| match p {
                PoolVerdict::Uniform(_) => 1,
                PoolVerdict::Split(parts) => parts.len(),
            })
            .sum()
    }
}

/// Whether preferred node affinity `terms` prefer the nodes of `pool`: a term matches the
/// labels every node of the pool has.
pub fn prefers(terms: &[affinity::Term], pool: &Pool) -> bool {
    let node = PoolNode { pool, member: None };
    terms.iter().any(|t| t.matches(&node))
}

/// Everything of a workload and of the options that [`simulate`] reads, but places in the
/// document (which no verdict holds).
#[derive(Debug, PartialEq, Eq)]
pub struct Asks {
    /// The hash of the rest, worked out once: a workload's asks are looked up again at every
    /// pool edit.
    digest: u64,
    pub kind: Option<String>,
    pub tolerations: Vec<Toleration>,
    pub sources: Vec<Source>,
    node_name: Option<String>,
    pub node_selector: Vec<(Arc<str>, Arc<str>)>,
    class_selector: Vec<(String, String)>,
    affinity: Option<Vec<affinity::Term>>,
    spread_keys: Vec<Arc<str>>,
    /// Its preferred node affinity: no verdict reads it, a rule does
    /// (`toleration-does-not-attract`).
    pub preferred: Vec<affinity::Term>,
    requests: Resources,
    pub gate: bool,
}

impl std::hash::Hash for Asks {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.digest);
    }
}

impl Asks {
    fn new(w: &Workload<'_>, options: &Options) -> Asks {
        let mut asks = Asks {
            digest: 0,
            kind: w.kind.map(str::to_string),
            tolerations: w.tolerations.clone(),
            sources: w.sources.clone(),
            node_name: w.node_name.as_ref().map(|(n, _)| n.clone()),
            node_selector: w
                .node_selector
                .iter()
                .map(|e| (e.key.clone(), e.value.clone()))
                .collect(),
            class_selector: w.class_selector.clone(),
            affinity: w.affinity.as_ref().map(|a| a.terms.clone()),
            spread_keys: w.spread_keys.iter().map(|s| s.key.clone()).collect(),
            preferred: w.preferred.clone(),
            requests: w.requests.clone(),
            gate: options.feature(COMPARISON_GATE),
        };
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        (
            &asks.kind,
            &asks.tolerations,
            &asks.sources,
            &asks.node_name,
            &asks.node_selector,
            &asks.class_selector,
            &asks.affinity,
            &asks.spread_keys,
            &asks.preferred,
            &asks.requests,
            asks.gate,
        )
            .hash(&mut h);
        asks.digest = h.finish();
        asks
    }
}

/// A simulation kept with the inventory for the workloads that ask the same of it
/// ([`shared_simulation`]), with what they ask.
#[derive(Debug)]
pub struct Shared {
    pub simulation: Arc<Simulation>,
    pub asks: Arc<Asks>,
    /// What the inventory rules read of the inventory and of the simulation for such a
    /// workload, hashed (`None`: they cannot say), worked out once by the rules
    /// ([`crate::rules::workload_reads`]).
    pub reads: std::sync::OnceLock<Option<u64>>,
    /// When such a workload fits no node, the pool that comes closest and its near miss
    /// ([`near::closest_unplaced`], in words), worked out once.
    pub closest: std::sync::OnceLock<Option<near::Said>>,
}

/// [`simulate`], the same answer shared by the workloads that ask the same of `inventory`. A
/// workload with resource claims is judged on its own: its claims are read against the
/// options' cluster, which a file's own objects extend.
pub fn simulate_shared(
    w: &Workload<'_>,
    inventory: &Inventory,
    options: &Options,
) -> Arc<Simulation> {
    match shared_simulation(w, inventory, options) {
        Some(shared) => shared.simulation.clone(),
        None => Arc::new(simulate(w, inventory, options)),
    }
}

/// [`simulate_shared`] with what the workload asks: `None` for a workload with resource claims
/// (judged on its own) or when the inventory keeps no simulations.
pub fn shared_simulation(
    w: &Workload<'_>,
    inventory: &Inventory,
    options: &Options,
) -> Option<Arc<Shared>> {
    let memo = inventory
        .derived(Simulations::default)
        .filter(|_| w.claims.is_empty())?;
    let asks = Asks::new(w, options);
    if let Some(known) = memo
        .0
        .read()
        .ok()
        .and_then(|m| m.by_asks.get(&asks).cloned())
    {
        return Some(known);
    }
    let simulation = Arc::new(simulate(w, inventory, options));
    let verdicts = simulation.verdicts();
    let shared = Arc::new(Shared {
        simulation,
        asks: Arc::new(asks),
        reads: std::sync::OnceLock::new(),
        closest: std::sync::OnceLock::new(),
    });
    if let (Ok(mut kept), true) = (memo.0.write(), verdicts <= Simulations::MOST) {
        if kept.verdicts + verdicts > Simulations::MOST {
            *kept = Kept::default();
        }
        // A workload judged at the same time may have put its own first: it is the one kept
        // (and this one is dropped with the workload).
        let kept = &mut *kept;
        match kept.by_asks.entry(shared.asks.clone()) {
            std::collections::hash_map::Entry::Occupied(known) => return Some(known.get().clone()),
            std::collections::hash_map::Entry::Vacant(place) => {
                place.insert(shared.clone());
                kept.verdicts += verdicts;
            }
        }
    }
    Some(shared)
}

/// The simulation `inventory` keeps for the workloads that ask `asks`, if one of them was
/// judged against it.
pub fn kept_simulation(asks: &Asks, inventory: &Inventory) -> Option<Arc<Shared>> {
    let memo = inventory.derived(Simulations::default)?;
    memo.0.read().ok()?.by_asks.get(asks).cloned()
}

/// What [`simulate`] knows of one workload while it judges the pools.
struct Judging<'a> {
    w: &'a Workload<'a>,
    inventory: &'a Inventory,
    options: &'a Options,
    gate: bool,
    /// The tolerations that decide placement ([`Workload::placing_tolerations`]).
    placing: Vec<Toleration>,
    /// The same with where each comes from.
    placing_sources: Vec<(&'a Toleration, &'a Source)>,
    tolerates_cordon: bool,
    /// The pod names its node (`nodeName`).
    bound: bool,
}

impl Judging<'_> {
    /// What holds for every node of `pool`: the cordon, avoided taints, eviction, tolerations
    /// granted, resources and claims; and, apart, the reasons of the taints it does not
    /// tolerate (a node named by `nodeName` puts its own reason first).
    fn pool_wide(&self, pool: &Pool) -> (Verdict, Vec<Reason>) {
        let (w, gate, bound) = (self.w, self.gate, self.bound);
        let mut base = Verdict::default();
        if pool.unschedulable.is_some() && !self.tolerates_cordon && !bound {
            base.reasons.push(Reason::Unschedulable);
        }
        // A Kueue ResourceFlavor's tolerations are added to the workloads admitted on it
        // (Kueue admits no DaemonSet).
        let flavor: &[Toleration] = match &pool.declared {
            Some(d) if w.kind != Some("DaemonSet") => &d.tolerations,
            _ => &[],
        };
        let mut taint_reasons = Vec::new();
        for (i, t) in pool.taints.iter().enumerate() {
            let tolerated = tolerations_tolerate_taint(&self.placing, &t.taint, gate)
                || tolerations_tolerate_taint(flavor, &t.taint, gate);
            let enforced = if bound {
                t.taint.effect == Effect::NoExecute
            } else {
                do_not_schedule(&t.taint)
            };
            if enforced && !tolerated {
                taint_reasons.push(Reason::Taint(i));
            } else if t.taint.effect == Effect::PreferNoSchedule && !tolerated && !bound {
                // PreferNoSchedule only weighs in the scheduler's scoring (TaintToleration
                // Score, pkg/scheduler/framework/plugins/tainttoleration), which a pod with
                // `nodeName` never reaches: its node is not one it avoids.
                base.avoid.push(i);
            }
        }
        // Taints the pool's nodes may carry, or not: one not tolerated makes a "may".
        for m in &pool.may_carry {
            let tolerated = tolerations_tolerate_taint(&self.placing, &m.taint, gate)
                || tolerations_tolerate_taint(flavor, &m.taint, gate);
            let enforced = if bound {
                m.taint.effect == Effect::NoExecute
            } else {
                do_not_schedule(&m.taint)
            };
            if enforced && !tolerated {
                base.unknown.push(Undeclared {
                    key: m.taint.key.clone(),
                    asked: Asked::Taint {
                        taint: m.taint.to_string(),
                        by: m.by.clone(),
                    },
                });
            }
        }
        base.eviction = eviction(w, pool, gate);
        base.granted = granted(&self.placing_sources, flavor, pool, gate);
        resource_fit(&w.requests, pool, &mut base);
        claim_fit(
            &w.claims,
            pool,
            self.options.cluster(),
            &self.inventory.cluster,
            &mut base,
        );
        (base, taint_reasons)
    }

    /// The verdict for the pool's `m`th node: what holds pool-wide, then `nodeName`, the taints
    /// and the node's own labels.
    fn node(&self, pool: &Pool, m: u32, base: &Verdict, taint_reasons: &[Reason]) -> Verdict {
        let mut v = base.clone();
        if let Some((name, _)) = &self.w.node_name {
            if *name != pool.nodes[m as usize].name {
                v.reasons.push(Reason::NodeName(name.clone()));
            }
        }
        v.reasons.extend(taint_reasons.iter().cloned());
        let node = PoolNode {
            pool,
            member: Some(m as usize),
        };
        selector_reasons(self.w, &node, &mut v);
        v
    }
}

/// A pool's parts when the workload names some of its nodes (`named`): each named node
/// judged alone, and the rest of each variant judged once by one example member.
fn variant_parts(pool: &Pool, named: &[u32], judge: impl Fn(u32) -> Verdict) -> Vec<Part> {
    let mut parts = Vec::new();
    for (v, variant) in pool.variants.iter().enumerate() {
        let except: Vec<u32> = named
            .iter()
            .copied()
            .filter(|&m| pool.nodes[m as usize].variant == v as u32)
            .collect();
        for &m in &except {
            parts.push(Part {
                verdict: judge(m),
                nodes: 1,
                members: Members::One(m),
                example: m,
            });
        }
        let rest = variant.members.len() - except.len();
        if let Some(&example) = variant.members.iter().find(|m| !except.contains(m)) {
            parts.push(Part {
                verdict: judge(example),
                nodes: rest,
                members: Members::Variant {
                    variant: v as u32,
                    except,
                },
                example,
            });
        }
    }
    parts
}

/// The tolerations the manifest writes, each with its place, and for each item whether it
/// leaves `operator` out (admission defaults it to `Equal`).
fn manifest_tolerations(items: &[Item<'_>]) -> (admission::Tolerations, Vec<bool>) {
    let bare = items.iter().map(|i| i.str("operator").is_empty()).collect();
    let manifest = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| Some((item.toleration()?, Source::Manifest(i))))
        .collect();
    (manifest, bare)
}

/// The `topologyKey`s of a `topologySpreadConstraints` list whose `whenUnsatisfiable` is
/// `DoNotSchedule`, once each: the constraints kube-scheduler's PodTopologySpread filters with
/// (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go keeps those, and its `Filter`
/// turns away a node without the key as `UnschedulableAndUnresolvable`). `ScheduleAnyway` only
/// weighs in the score, and the spread itself (how many matching pods each domain holds) is
/// about the pods running, which no file says: only the label's presence is judged.
fn spread_keys(doc: &Document<'_>, list: NodeId) -> Vec<SpreadKey> {
    let text = |id| crate::inventory::scalar_text(doc, id);
    let mut keys: Vec<SpreadKey> = Vec::new();
    for (index, &item) in doc.sequence(list).unwrap_or_default().iter().enumerate() {
        let when = doc
            .get(item, "whenUnsatisfiable")
            .and_then(|(_, v)| text(v));
        let Some((_, node)) = doc.get(item, "topologyKey") else {
            continue;
        };
        let Some(key) = text(node).filter(|k| !k.is_empty()) else {
            continue;
        };
        if when.as_deref() == Some("DoNotSchedule") && !keys.iter().any(|k| *k.key == *key) {
            keys.push(SpreadKey {
                key: key.into(),
                node,
                index,
            });
        }
    }
    keys
}

/// The entries of a `nodeSelector` mapping.
fn selector_entries(doc: &Document<'_>, map: NodeId) -> Vec<SelectorEntry> {
    let text = |id| crate::inventory::scalar_text(doc, id);
    doc.mapping(map)
        .unwrap_or_default()
        .iter()
        .filter_map(|&(ek, ev)| {
            Some(SelectorEntry {
                key: text(ek)?.into(),
                value: text(ev)?.into(),
                key_node: ek,
                value_node: ev,
            })
        })
        .collect()
}

/// A resource claim of a pod: its name in the pod, what it claims in words, and the device
/// requests of the claim it names, where the files read hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodClaim {
    pub name: String,
    pub what: String,
    pub requests: Option<Vec<crate::k8s::cluster::DeviceRequest>>,
}

/// What a pod's `spec.resourceClaims` claim, in words, each with its name in the pod: the
/// device requests of the ResourceClaim or ResourceClaimTemplate it names, where the files read
/// hold it (upstream core/v1 `PodResourceClaim`: `resourceClaimName` or
/// `resourceClaimTemplateName`; before 1.28 under `source`).
fn pod_claims(
    doc: &Document<'_>,
    spec: NodeId,
    namespace: Option<&str>,
    options: &Options,
) -> Vec<PodClaim> {
    let Some((_, list)) = doc.get(spec, "resourceClaims") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &c in doc.sequence(list).unwrap_or_default() {
        let name = doc.get_str(c, "name").unwrap_or("").to_string();
        let source = doc.get(c, "source").map_or(c, |(_, s)| s);
        let named = [
            ("ResourceClaim", "resourceClaimName"),
            ("ResourceClaimTemplate", "resourceClaimTemplateName"),
        ]
        .into_iter()
        .find_map(|(kind, key)| Some((kind, doc.get_str(source, key)?)));
        let mut requests = None;
        let what = match named {
            Some((kind, object)) => match options.cluster().claim(kind, namespace, object) {
                Some(found) if !found.is_empty() => {
                    let each: Vec<String> = found.iter().map(|r| r.describe()).collect();
                    requests = Some(found.to_vec());
                    format!("claims {} ({kind} {object})", each.join(", "))
                }
                Some(_) => format!(
                    "claims devices through the {kind} {object}, whose requests name no device class"
                ),
                None => format!(
                    "claims devices through the {kind} {object}, which is not among the files read"
                ),
            },
            None => "claims devices".to_string(),
        };
        out.push(PodClaim {
            name,
            what,
            requests,
        });
    }
    out
}

/// Adds to `verdict` what the pod's resource claims say of the pool's nodes. The devices a
/// claim asks for are allocated from the ResourceSlices that DRA drivers publish for each node
/// and picked by the DeviceClass's CEL selectors (upstream
/// pkg/scheduler/framework/plugins/dynamicresources, resource.k8s.io/v1, GA in 1.34). Where
/// the inventory carries the ResourceSlices and the class's selector compares only the driver
/// and string attributes (`device.driver == 'gpu.nvidia.com' &&
/// device.attributes['gpu.nvidia.com'].type == 'gpu'`, as the drivers' own classes do), the
/// devices it picks on each node of a listed pool are counted: a claim that asks more than
/// every node has keeps the pod off, one that every node can meet fits. Anything else (another
/// CEL selector, a slice for a `nodeSelector`, a pool defined as code, a claim not read,
/// alternatives, a request's own selectors, two classes of one claim) is not simulated: the
/// pod may fit, never certainly. The DeviceClasses come from any file read (`cluster`), the
/// ResourceSlices only from the inventory (`devices`): a slice names the nodes of the cluster
/// it was listed from.
pub fn claim_fit(
    claims: &[PodClaim],
    pool: &Pool,
    cluster: &crate::k8s::cluster::Cluster,
    devices: &crate::k8s::cluster::Cluster,
    verdict: &mut Verdict,
) {
    use crate::k8s::cluster::Devices;
    for claim in claims {
        let may = |enough| Undeclared {
            key: claim.name.clone(),
            asked: Asked::Claim {
                what: claim.what.clone(),
                enough,
            },
        };
        let decided = pool.declared.is_none() && devices.knows_devices();
        let Some(requests) = claim.requests.as_ref().filter(|_| decided) else {
            verdict.unknown.push(may(None));
            continue;
        };
        // Per class: the devices needed (a request for all of a node's devices needs one).
        let mut needed: Vec<(&crate::k8s::cluster::ClassSelector, &str, u64, bool)> = Vec::new();
        let mut certain = true;
        for r in requests {
            match cluster.class_selector(&r.class) {
                Some(selector) if !r.alternatives => {
                    // A request's own selectors narrow the class: too few devices of the
                    // class is too few, enough of them may not be.
                    certain &= !r.narrowed;
                    let n = r.count.unwrap_or(1);
                    match needed.iter_mut().find(|(_, c, ..)| *c == r.class) {
                        Some(e) => e.2 += n,
                        None => needed.push((selector, &r.class, n, r.count.is_none())),
                    }
                }
                _ => certain = false,
            }
        }
        // Two classes may pick the same devices: enough of each is not enough of both.
        if needed.len() > 1 {
            certain = false;
        }
        let mut short = false;
        // Nodes that have enough of every class, where each count is known.
        let mut enough = vec![true; pool.nodes.len()];
        let mut counted = certain;
        for &(selector, class, n, all) in &needed {
            let have: Vec<Devices> = pool
                .nodes
                .iter()
                .map(|m| devices.devices(selector, &m.name))
                .collect();
            let most = have
                .iter()
                .filter_map(|d| match d {
                    Devices::Known(k) => Some(*k),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            if !all
                && have
                    .iter()
                    .all(|d| matches!(d, Devices::Known(k) if *k < n))
            {
                verdict.reasons.push(Reason::Insufficient {
                    resource: format!("{class} devices"),
                    requested: u128::from(n),
                    offered: u128::from(most),
                });
                short = true;
            } else if !have
                .iter()
                .all(|d| matches!(d, Devices::Known(k) | Devices::AtLeast(k) if *k >= n))
            {
                certain = false;
            }
            for (e, d) in enough.iter_mut().zip(&have) {
                match d {
                    Devices::Known(k) => *e &= *k >= n,
                    Devices::AtLeast(k) if *k >= n => {}
                    _ => counted = false,
                }
            }
        }
        if !short && !certain {
            let n = enough.iter().filter(|e| **e).count();
            let decided = counted && !needed.is_empty() && n > 0;
            verdict
                .unknown
                .push(may(decided.then_some((n, pool.nodes.len()))));
        }
    }
}

/// Adds to `verdict` what NodeResourcesFit says of the pool's nodes (upstream
/// pkg/scheduler/framework/plugins/noderesources/fit.go `fitsRequest`, for a node that runs
/// nothing): a resource the pod requests more of than any node offers keeps it off (a node
/// without an extended resource offers none); where the pool's nodes differ, or what they offer
/// is not known, the pod may fit. Of CPU, memory and ephemeral storage, which every node has, a
/// request no larger than [`capacity::floor`] fits a pool that does not say what it offers; a
/// larger one may fit.
pub fn resource_fit(requests: &Resources, pool: &Pool, verdict: &mut Verdict) {
    // A pool that makes its nodes for the pod (Karpenter) fits it where one of its instance
    // types offers all it asks; what the types do not say is judged below.
    let made_to_fit = pool.capacity.one_type_fits(requests);
    for (name, requested) in requests.iter() {
        let class = resources::class(name);
        if class == resources::Class::Ignored {
            continue;
        }
        if made_to_fit && pool.capacity.types[0].offers(name).is_some() {
            continue;
        }
        match pool.capacity.offer(name) {
            Some((min, _)) if requested <= min => {}
            Some((_, Some(max))) if requested > max => verdict.reasons.push(Reason::Insufficient {
                resource: name.to_string(),
                requested,
                offered: max,
            }),
            Some((min, max)) => verdict.unknown.push(Undeclared {
                key: name.to_string(),
                asked: Asked::Resource {
                    requested,
                    range: max.map(|max| (min, max)),
                },
            }),
            None if requested <= capacity::floor(name) => {}
            None => verdict.unknown.push(Undeclared {
                key: name.to_string(),
                asked: Asked::Resource {
                    requested,
                    range: None,
                },
            }),
        }
    }
}

/// The labels the kubelet sets on every node it registers, with values of the node itself (its
/// operating system and architecture: kubernetes/kubernetes pkg/kubelet/kubelet_node_status.go,
/// the initial Node's `kubernetes.io/os` and `kubernetes.io/arch`, beside
/// `kubernetes.io/hostname`, which inventories without it are given). A node of a pool file or
/// a definition that does not write one has it all the same, with a value the inventory does
/// not say; a Node object has what it holds.
pub const KUBELET_LABELS: &[&str] = &["kubernetes.io/os", "kubernetes.io/arch"];

/// The topology labels a cloud provider's node controller gives each node from the cloud's own
/// record of it (kubernetes/cloud-provider controllers/node/node_controller.go): on a node of a
/// cloud, whatever the inventory writes; on bare metal or a local cluster, only if labelled.
pub const CLOUD_TOPOLOGY: &[&str] = &[
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
];

/// Adds to `verdict` what the workload's selectors say about a node: reasons it does not fit,
/// and what the `nodeSelector` and required node affinity ask of labels the node may carry
/// though the inventory does not say (on a pool defined as code whose labels are not all known,
/// those it does not declare; on any node, the kubelet's labels it does not give).
fn selector_reasons(w: &Workload<'_>, node: &PoolNode<'_>, verdict: &mut Verdict) {
    let out = &mut verdict.reasons;
    if let Some((reqs, open)) =
        (node.pool.declared.as_ref()).and_then(|d| Some((d.requirements.as_ref()?, &d.open_labels)))
    {
        let selector: Vec<(&str, &str)> = w
            .node_selector
            .iter()
            .map(|e| (&*e.key, &*e.value))
            .collect();
        let domain = requirements::provider_domain(node.pool);
        let affinity = w.affinity.as_ref();
        if let Some(why) = requirements::failure(reqs, domain, open, &selector, affinity) {
            out.push(Reason::Requirements(why));
        }
        // What it asks of a label the pool writes as an expression may be so.
        let unsure = |key: &str| open.covers(key) && !reqs.iter().any(|r| r.key == key);
        let unknown = &mut verdict.unknown;
        for e in w.node_selector.iter().filter(|e| unsure(&e.key)) {
            unknown.push(Undeclared {
                key: e.key.to_string(),
                asked: Asked::Value(e.value.to_string()),
            });
        }
        let terms = affinity.into_iter().flat_map(|a| &a.terms);
        for r in terms.flat_map(|t| &t.expressions) {
            if unsure(&r.key) && !r.matches(None) {
                unknown.push(Undeclared {
                    key: r.key.clone(),
                    asked: Asked::Expression(r.to_string()),
                });
            }
        }
        // Every node it makes has a hostname (Karpenter spreads over hostnames as new nodes).
        for SpreadKey { key, .. } in &w.spread_keys {
            if **key == *HOSTNAME_LABEL || requirements::can_label(reqs, domain, key) {
                continue;
            }
            if unsure(key) {
                unknown.push(Undeclared {
                    key: key.to_string(),
                    asked: Asked::Spread,
                });
            } else {
                out.push(Reason::TopologyKey(key.clone()));
            }
        }
        return;
    }
    // Terraform node pools, machine sets, node groups, ...: only the labels written (or set by
    // the platform for certain) are known; others may be added where the file does not say.
    // (A Karpenter NodePool has requirements, above: its nodes' labels are bounded by them.)
    let open = node.pool.declared.is_some();
    // Except the labels its platform sets wherever they apply: absent here means absent.
    let provider = node
        .pool
        .declared
        .as_ref()
        .map_or(&[][..], |d| d.provider_labels);
    // The kubelet's own labels are on every node, with values a pool file or a definition may
    // not write; a Node object carries them or does not (kubelets older than 1.14, labels
    // removed by hand): what the scheduler sees is what it holds.
    let kubelet = |key: &str| !node.pool.observed && KUBELET_LABELS.contains(&key);
    let open_for = |key: &str| (open && !provider.contains(&key)) || kubelet(key);
    let may_carry = |key: &str| open || kubelet(key);
    let unknown = &mut verdict.unknown;
    for e in &w.node_selector {
        let actual = node.label(&e.key);
        if actual.is_none() && open_for(&e.key) {
            unknown.push(Undeclared {
                key: e.key.to_string(),
                asked: Asked::Value(e.value.to_string()),
            });
        } else if actual != Some(&*e.value) {
            out.push(Reason::NodeSelector {
                key: e.key.clone(),
                wanted: e.value.clone(),
                actual: actual.map(str::to_string),
            });
        }
    }
    for (key, wanted) in &w.class_selector {
        let actual = node.label(key);
        if actual.is_none() && open_for(key) {
            unknown.push(Undeclared {
                key: key.clone(),
                asked: Asked::Value(wanted.clone()),
            });
        } else if actual != Some(wanted.as_str()) {
            out.push(Reason::NodeSelector {
                key: key.as_str().into(),
                wanted: wanted.as_str().into(),
                actual: actual.map(str::to_string),
            });
        }
    }
    // A DoNotSchedule topology spread needs its key on the node, whatever its value. The kubelet
    // names every node it registers (`kubernetes.io/hostname`); a cloud provider gives its nodes
    // their zone and region, which a pool file or a definition may not write.
    for SpreadKey { key, .. } in &w.spread_keys {
        let unsaid = !node.pool.observed;
        if node.label(key).is_some() || (unsaid && **key == *HOSTNAME_LABEL) {
            continue;
        }
        if open_for(key) || (unsaid && CLOUD_TOPOLOGY.contains(&&**key)) {
            unknown.push(Undeclared {
                key: key.to_string(),
                asked: Asked::Spread,
            });
        } else {
            out.push(Reason::TopologyKey(key.clone()));
        }
    }
    // Required node affinity likewise: a term may match if the labels it needs are set.
    if let Some(a) = &w.affinity {
        match a.check(node, &may_carry) {
            // A condition on a label the platform would have set is decided: the label is
            // absent.
            Ok(needs) if needs.iter().any(|r| !open_for(&r.key) && !r.matches(None)) => {
                let r = needs
                    .iter()
                    .find(|r| !open_for(&r.key) && !r.matches(None))
                    .expect("found");
                out.push(Reason::NodeAffinity(format!(
                    "{r}: the platform sets {} only on the pools it applies to, not this one",
                    r.key
                )));
            }
            Ok(needs) => {
                unknown.extend(
                    needs
                        .into_iter()
                        .filter(|r| open_for(&r.key))
                        .map(|r| Undeclared {
                            key: r.key.clone(),
                            asked: Asked::Expression(r.to_string()),
                        }),
                )
            }
            Err(why) => out.push(Reason::NodeAffinity(why)),
        }
    }
}

/// The pool's taints (that matter for placement or eviction) that no toleration of the manifest
/// tolerates but one from elsewhere does (admission, or the pool's own `flavor` tolerations), with
/// that one's source.
fn granted(
    placing: &[(&Toleration, &Source)],
    flavor: &[Toleration],
    pool: &Pool,
    gate: bool,
) -> Vec<(usize, Source)> {
    let mut out = Vec::new();
    for (i, t) in pool.taints.iter().enumerate() {
        let mut by = placing
            .iter()
            .filter(|(tol, _)| tol.tolerates(&t.taint, gate));
        let Some(first) = by.clone().next() else {
            if let Some(j) = flavor.iter().position(|tol| tol.tolerates(&t.taint, gate)) {
                out.push((i, Source::ResourceFlavor(pool.name.clone(), j)));
            }
            continue;
        };
        if by.any(|(_, s)| matches!(s, Source::Manifest(_))) {
            continue;
        }
        out.push((i, first.1.clone()));
    }
    out
}

/// When the pool's NoExecute taints evict the workload, as upstream taint eviction decides
/// (pkg/controller/tainteviction): for each NoExecute taint, the first toleration that tolerates
/// it is used; the pod is evicted after the fewest seconds among them (never, if none has
/// seconds). `None` when nothing evicts it, or when a NoExecute taint is not tolerated at all
/// (the pod does not fit).
fn eviction(w: &Workload<'_>, pool: &Pool, gate: bool) -> Option<Eviction> {
    let mut best: Option<Eviction> = None;
    for (i, t) in pool.taints.iter().enumerate() {
        if t.taint.effect != Effect::NoExecute {
            continue;
        }
        let Some(j) = w
            .tolerations
            .iter()
            .position(|tol| tol.tolerates(&t.taint, gate))
        else {
            return None; // untolerated: the pod does not fit at all
        };
        if let Some(s) = w.tolerations[j].toleration_seconds {
            let s = s.max(0);
            if best.as_ref().is_none_or(|b| s < b.seconds) {
                best = Some(Eviction {
                    seconds: s,
                    taint: i,
                    toleration: j,
                });
            }
        }
    }
    best
}

/// A workload of a file and where it fits, for `taintlint simulate`.
#[derive(Debug, Clone)]
pub struct WorkloadResult {
    pub document: usize,
    /// The index inside a `kind: List`.
    pub item: Option<usize>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// The pod spec's path.
    pub path: String,
    /// Its object's path from the document root: empty, or `items[3]` in a `kind: List`.
    pub object_path: String,
    /// Which part of its object it is, in words ([`crate::k8s::parts::part`]).
    pub part: Option<String>,
    /// Shared with the workloads that ask the same of the inventory ([`simulate_shared`]).
    pub simulation: Arc<Simulation>,
    /// For a DaemonSet: the nodes it picks and those of them it cannot run on.
    pub daemonset: Option<Coverage>,
    /// Why the API server would not create its pods, if it would not: then it runs nowhere,
    /// whatever [`simulation`](Self::simulation) says. Only the analysis can tell (its rules
    /// find what the API server rejects): [`crate::analysis::simulate`] fills it in.
    pub rejected: Option<Rejected>,
    /// Found by its shape in an object of a kind taintlint's table does not know
    /// ([`crate::k8s::objects::PodSpec::by_shape`]).
    pub by_shape: bool,
    /// When it fits no node: the pool that comes closest and what keeps it off, with its near
    /// miss, as the `unschedulable` finding says them ([`near::closest_unplaced`]).
    pub closest: Option<near::Said>,
    /// What its pods get from elsewhere, not at hand, in words (a TrainJob's runtime):
    /// simulated as far as it is written ([`crate::k8s::objects::PodSpec::partly`]).
    pub partly: Option<String>,
}

/// Whether a workload runs nowhere it should: the API server refuses it, or it fits no node; a
/// DaemonSet whose selector picks no node (`picked`) runs nowhere by design (an opt-in label no
/// node has yet).
pub fn runs_nowhere(rejected: bool, picked: Option<usize>, fits: impl FnOnce() -> bool) -> bool {
    rejected || (picked != Some(0) && !fits())
}

/// A finding that makes the API server reject a workload (or every pod it creates).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The rule that finds it (`unknown-field`, `admission-rejected`, ...).
    pub rule: &'static str,
    /// Its message: what is wrong, in plain words.
    pub message: String,
    /// Where, as a field path from the document root.
    pub path: Option<String>,
}

impl WorkloadResult {
    /// Whether it runs nowhere it should: it fits no node (or the API server refuses it); a
    /// DaemonSet that picks no node runs nowhere by design (an opt-in label no node has yet).
    pub fn runs_nowhere(&self) -> bool {
        runs_nowhere(
            self.rejected.is_some(),
            self.daemonset.as_ref().map(|c| c.picked),
            || self.simulation.fits_anywhere(),
        )
    }

    /// `Deployment shop/web`, `RayCluster ml/rl-train, worker group l4-workers`: as every face
    /// names it ([`crate::k8s::parts::title`]).
    pub fn title(&self) -> String {
        crate::k8s::parts::title(
            self.kind.as_deref(),
            self.namespace.as_deref(),
            self.name.as_deref(),
            &self.object_path,
            self.part.as_deref(),
        )
    }
}

/// Simulates every pod template of a file's text, as the scheduler would place them, for the
/// tests of this layer: whether the API server accepts them is left unsaid
/// ([`WorkloadResult::rejected`] is `None`). Every face simulates through
/// [`crate::analysis::simulate`].
#[cfg(test)]
pub(crate) fn simulate_text(
    text: &str,
    options: &Options,
    inventory: &Inventory,
) -> Vec<WorkloadResult> {
    let stream = crate::syntax::parse(text);
    let mut out = Vec::new();
    for doc in &stream.documents {
        if doc.error.is_some() {
            continue;
        }
        let ex = crate::k8s::objects::extract(doc);
        simulate_document(doc, &ex, options, inventory, &mut out);
    }
    out
}

/// Simulates every pod template of one parsed document.
pub fn simulate_document(
    doc: &Document<'_>,
    ex: &Extracted<'_>,
    options: &Options,
    inventory: &Inventory,
    out: &mut Vec<WorkloadResult>,
) {
    for i in 0..ex.pod_specs.len() {
        let w = Workload::new(doc, ex, i, options);
        let object = &ex.objects[w.object];
        let shared = shared_simulation(&w, inventory, options);
        let simulation = match &shared {
            Some(shared) => shared.simulation.clone(),
            None => Arc::new(simulate(&w, inventory, options)),
        };
        let daemonset = (w.kind == Some("DaemonSet")).then(|| simulation.coverage(inventory));
        // What comes closest, for one that fits no node; a DaemonSet that selects no node runs
        // nowhere by design, and nothing comes close. Worked out once for the workloads that
        // ask the same.
        let closest = daemonset
            .as_ref()
            .is_none_or(|c| c.picked != 0)
            .then(|| {
                let work = || {
                    near::closest_unplaced(
                        &simulation,
                        inventory,
                        (&w.tolerations, &w.sources),
                        w.node_selector.iter().map(|e| &*e.key),
                        options.feature(COMPARISON_GATE),
                    )
                    .map(|c| c.to_said(inventory))
                };
                match &shared {
                    Some(shared) => shared.closest.get_or_init(work).clone(),
                    None => work(),
                }
            })
            .flatten();
        // Chart values of a workload of unknown kind are named after the object that installs
        // the chart, as every face names them.
        let (kind, namespace, name) = object.said_as();
        out.push(WorkloadResult {
            document: doc.index,
            item: object.item,
            kind: kind.map(str::to_string),
            name: name.map(str::to_string),
            namespace: namespace.map(str::to_string),
            path: w.path.clone(),
            object_path: object.path.clone(),
            part: w.part.clone(),
            daemonset,
            simulation,
            rejected: None,
            by_shape: ex.pod_specs[i].by_shape,
            closest,
            partly: ex.pod_specs[i].partly.clone(),
        });
    }
}

#[cfg(test)]
mod tests;
