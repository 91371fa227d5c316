//! What a pod asks of a node's resources, and what a node offers, as kube-scheduler's
//! NodeResourcesFit filter counts them (pkg/scheduler/framework/plugins/noderesources/fit.go,
//! `fitsRequest`), for a node that runs nothing yet.
//!
//! A pod's requests are upstream `PodRequests` (k8s.io/component-helpers/resource/helpers.go):
//! the containers' requests summed; each init container's, plus the restartable init containers
//! (sidecars) started before it, as a floor (the maximum of those); sidecars also add to the sum;
//! pod-level `spec.resources` replace the sum for CPU and memory when set; the RuntimeClass's
//! `overhead.podFixed` (which RuntimeClass admission writes into `spec.overhead`) is added. A
//! container's or the pod's request defaults to its limit when only the limit is written (API
//! defaulting, pkg/apis/core/v1/defaults.go).
//!
//! Amounts are whole numbers: CPU in thousandths of a core (`MilliValue`, as the scheduler counts
//! it), everything else in units rounded up (`Value`: bytes, devices).

use crate::k8s::objects::{PodRequests, PodSpec};
use crate::k8s::{quantity, spark};
use crate::syntax::{Document, NodeId};

/// Amounts by resource name, sorted by name, without zeros.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Resources(Vec<(String, u128)>);

/// How a resource is counted and compared by the scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Cpu,
    /// Bytes: memory, ephemeral storage, huge pages.
    Bytes,
    /// Extended resources (`nvidia.com/gpu`) and other prefixed names: whole units.
    Count,
    /// Not a resource the scheduler checks for a pod (`pods`, unprefixed unknown names).
    Ignored,
}

/// How the scheduler treats a resource name (upstream `Resource.Add` and
/// `schedutil.IsScalarResourceName`: extended resources, huge pages, prefixed native names).
pub fn class(name: &str) -> Class {
    match name {
        "cpu" => Class::Cpu,
        "memory" | "ephemeral-storage" => Class::Bytes,
        n if n.starts_with("hugepages-") => Class::Bytes,
        n if n.contains('/') => Class::Count,
        _ => Class::Ignored,
    }
}

/// A quantity as an amount of `name`: thousandths for CPU, else units rounded up. `None` for
/// what does not parse, is negative or is too large.
pub fn amount(name: &str, text: &str) -> Option<u128> {
    let q = quantity::parse(text.trim()).ok()?;
    if q.negative && !q.is_zero() {
        return None;
    }
    match class(name) {
        Class::Cpu => q.milli_value(),
        _ => q.value(),
    }
}

/// An amount as people write it: `500m`, `2` (CPU), `512Mi`, `30.5Gi` (bytes), `4` (devices).
pub fn display(name: &str, amount: u128) -> String {
    match class(name) {
        Class::Cpu if amount.is_multiple_of(1000) => (amount / 1000).to_string(),
        Class::Cpu => format!("{amount}m"),
        Class::Bytes => {
            let units = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
            let mut k = 0;
            while k + 1 < units.len() && amount >= 1u128 << (10 * (k + 1)) {
                k += 1;
            }
            let unit = 1u128 << (10 * k);
            if amount.is_multiple_of(unit) {
                format!("{}{}", amount / unit, units[k])
            } else {
                // One decimal, rounded down: never more than there is.
                let tenths = amount * 10 / unit;
                format!("{}.{}{}", tenths / 10, tenths % 10, units[k])
            }
        }
        _ => amount.to_string(),
    }
}

impl Resources {
    pub fn new() -> Self {
        Resources(Vec::new())
    }

    /// From (name, amount) pairs; zeros are left out, a name given twice keeps its last amount.
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, u128)>) -> Self {
        let mut r = Resources::new();
        for (k, v) in pairs {
            r.set(&k, v);
        }
        r
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, u128)> + '_ {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }

    pub fn get(&self, name: &str) -> u128 {
        self.position(name).map_or(0, |i| self.0[i].1)
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(name))
    }

    pub fn set(&mut self, name: &str, amount: u128) {
        match self.position(name) {
            Ok(i) if amount == 0 => {
                self.0.remove(i);
            }
            Ok(i) => self.0[i].1 = amount,
            Err(_) if amount == 0 => {}
            Err(i) => self.0.insert(i, (name.to_string(), amount)),
        }
    }

    /// upstream `addResourceList`.
    pub fn add(&mut self, other: &Resources) {
        for (k, v) in other.iter() {
            let sum = self.get(k).saturating_add(v);
            self.set(k, sum);
        }
    }

    /// upstream `maxResourceList`.
    pub fn max(&mut self, other: &Resources) {
        for (k, v) in other.iter() {
            if v > self.get(k) {
                self.set(k, v);
            }
        }
    }

    /// Per resource, the smaller of the two (a resource one of them lacks is zero).
    pub fn min(&self, other: &Resources) -> Resources {
        Resources(
            self.0
                .iter()
                .filter_map(|(k, v)| {
                    let m = (*v).min(other.get(k));
                    (m > 0).then(|| (k.clone(), m))
                })
                .collect(),
        )
    }
}

/// A `requests`/`limits`-shaped mapping (`{cpu: 500m, memory: 1Gi}`), as amounts; what does not
/// parse is left out (the API server rejects it, and the rules say so).
pub fn read_list(doc: &Document<'_>, map: NodeId) -> Resources {
    let mut out = Resources::new();
    for &(k, v) in doc.mapping(map).unwrap_or_default() {
        let (Some(name), Some(value)) = (text(doc, k), text(doc, v)) else {
            continue;
        };
        if let Some(a) = amount(&name, &value) {
            out.set(&name, a);
        }
    }
    out
}

/// A scalar as written (a quoted one unquoted); `None` for a mapping, a sequence or null.
pub(crate) fn text(doc: &Document<'_>, id: NodeId) -> Option<String> {
    use crate::k8s::decode::{decode, Decoded};
    match decode(doc, id) {
        Decoded::Str(s) => Some(s.to_string()),
        Decoded::Null | Decoded::Mapping | Decoded::Sequence => None,
        _ => doc.scalar(id).map(|(s, _)| s.to_string()),
    }
}

/// A `resources` block's effective requests: each request, or the limit where only the limit
/// is written.
fn requests_of(doc: &Document<'_>, resources: Option<NodeId>) -> Resources {
    let Some(resources) = resources else {
        return Resources::new();
    };
    let part = |name| doc.get(resources, name).map(|(_, m)| read_list(doc, m));
    let mut out = part("limits").unwrap_or_default();
    if let Some(requests) = part("requests") {
        // A request written as zero is kept as zero: it is not defaulted from the limit.
        for &(k, _) in doc
            .get(resources, "requests")
            .and_then(|(_, m)| doc.mapping(m))
            .unwrap_or_default()
        {
            if let Some(name) = text(doc, k) {
                out.set(&name, requests.get(&name));
            }
        }
    }
    out
}

/// What a pod's containers ask of a node, container by container, before they are summed: as a
/// pod spec lists them, or as a custom resource's operator makes them ([`pod_asks`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodAsks {
    /// Each container's effective requests.
    pub containers: Vec<Resources>,
    /// Each init container's, and whether it is a sidecar (`restartPolicy: Always`).
    pub init: Vec<(Resources, bool)>,
    /// The pod-level `spec.resources` requests (CPU and memory count).
    pub pod_level: Resources,
    /// The pod's own `spec.overhead`, if written.
    pub overhead: Option<Resources>,
    /// The resources the containers and init containers name under `requests` or `limits`,
    /// as admission plugins see them.
    pub named: Vec<String>,
    /// Whether a container requests or limits CPU or memory (its QoS class is not
    /// BestEffort: pkg/apis/core/helper/qos `GetPodQOS`; a zero quantity does not count).
    pub burstable: bool,
}

impl PodAsks {
    /// A container with this `resources` block (`ResourceRequirements`).
    pub fn add_container(&mut self, doc: &Document<'_>, resources: Option<NodeId>) {
        self.note(doc, resources);
        self.containers.push(requests_of(doc, resources));
    }

    /// The names a `resources` block gives, and whether it asks for CPU or memory.
    fn note(&mut self, doc: &Document<'_>, resources: Option<NodeId>) {
        let Some(resources) = resources else { return };
        for part in ["requests", "limits"] {
            let Some((_, m)) = doc.get(resources, part) else {
                continue;
            };
            for &(k, v) in doc.mapping(m).unwrap_or_default() {
                let name = text(doc, k);
                if matches!(name.as_deref(), Some("cpu" | "memory"))
                    && text(doc, v).is_some_and(|q| !is_zero_quantity(&q))
                {
                    self.burstable = true;
                }
                self.named.extend(name);
            }
        }
    }

    /// The pod's requests, as upstream `PodRequests` makes them (see the module's comment),
    /// with the `overhead` its RuntimeClass adds (`None`: the pod's own `spec.overhead`).
    pub fn requests(&self, overhead: Option<&Resources>) -> Resources {
        let mut reqs = Resources::new();
        for c in &self.containers {
            reqs.add(c);
        }
        let mut sidecars = Resources::new();
        let mut init = Resources::new();
        for (own, restartable) in &self.init {
            let phase = if *restartable {
                reqs.add(own);
                sidecars.add(own);
                sidecars.clone()
            } else {
                let mut tmp = own.clone();
                tmp.add(&sidecars);
                tmp
            };
            init.max(&phase);
        }
        reqs.max(&init);
        // Pod-level resources (upstream `IsSupportedPodLevelResource`: CPU and memory).
        for name in ["cpu", "memory"] {
            let a = self.pod_level.get(name);
            if a > 0 {
                reqs.set(name, a);
            }
        }
        if let Some(o) = overhead.or(self.overhead.as_ref()) {
            reqs.add(o);
        }
        reqs
    }
}

/// Whether a resource quantity is zero (`0`, `0m`, `0Gi`, `0.0`, ...).
fn is_zero_quantity(q: &str) -> bool {
    let digits = q.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    !digits.is_empty() && digits.chars().all(|c| c == '0' || c == '.')
}

/// What the containers of the pod spec `spec` ask for.
pub fn spec_asks(doc: &Document<'_>, spec: NodeId) -> PodAsks {
    let containers = |key| {
        doc.get(spec, key)
            .and_then(|(_, v)| doc.sequence(v))
            .unwrap_or_default()
    };
    let resources = |c: NodeId| doc.get(c, "resources").map(|(_, v)| v);
    let mut asks = PodAsks::default();
    for &c in containers("containers") {
        asks.add_container(doc, resources(c));
    }
    for &c in containers("initContainers") {
        asks.note(doc, resources(c));
        let restartable = doc.get_str(c, "restartPolicy") == Some("Always");
        asks.init
            .push((requests_of(doc, resources(c)), restartable));
    }
    asks.pod_level = requests_of(doc, doc.get(spec, "resources").map(|(_, v)| v));
    asks.overhead = doc.get(spec, "overhead").map(|(_, o)| read_list(doc, o));
    asks
}

/// What a pod found in a document asks for: as its pod spec lists it, or as its custom
/// resource's operator makes its containers (see [`PodRequests`]).
pub fn pod_asks(doc: &Document<'_>, pod: &PodSpec) -> PodAsks {
    let mut asks = if pod.fields {
        spec_asks(doc, pod.node)
    } else {
        PodAsks::default()
    };
    match &pod.requests {
        PodRequests::PodSpec => {}
        PodRequests::Containers {
            resources,
            replace_first,
            pod_level,
        } => {
            if *replace_first && !asks.containers.is_empty() {
                asks.containers.remove(0);
            }
            if !*pod_level {
                asks.pod_level = Resources::new();
            }
            for &r in resources {
                asks.add_container(doc, Some(r));
            }
        }
        PodRequests::Spark {
            application,
            executor,
        } => {
            // The main container Spark makes, its sidecars, and its init containers.
            let (main, named) = spark::container(doc, pod.node, *application, *executor);
            asks.containers.push(main);
            asks.named.extend(named);
            asks.burstable = true;
            for &c in doc
                .get(pod.node, "sidecars")
                .and_then(|(_, v)| doc.sequence(v))
                .unwrap_or_default()
            {
                asks.add_container(doc, doc.get(c, "resources").map(|(_, v)| v));
            }
        }
    }
    asks
}

/// The pod's requests, as upstream `PodRequests` makes them (see the module's comment), with the
/// `overhead` its RuntimeClass adds (`None`: the pod's own `spec.overhead`, if written).
pub fn pod_requests(doc: &Document<'_>, spec: NodeId, overhead: Option<&Resources>) -> Resources {
    spec_asks(doc, spec).requests(overhead)
}

/// What a node offers: its `status.allocatable`, else its `status.capacity` (the kubelet
/// reports both; allocatable is capacity less what is reserved for the system).
pub fn node_allocatable(doc: &Document<'_>, node: NodeId) -> Option<Resources> {
    let (_, status) = doc.get(node, "status")?;
    let (_, list) = doc
        .get(status, "allocatable")
        .or_else(|| doc.get(status, "capacity"))?;
    Some(read_list(doc, list))
}

/// The first resource the pod asks more of than the node offers, as kube-scheduler's
/// `fitsRequest` finds it (CPU, memory, ephemeral storage, then the others by name), with the
/// amount asked and the amount offered. Resources it does not check are skipped.
pub fn insufficient(requests: &Resources, allocatable: &Resources) -> Vec<(String, u128, u128)> {
    let mut out = Vec::new();
    let order = |n: &str| match n {
        "cpu" => 0,
        "memory" => 1,
        "ephemeral-storage" => 2,
        _ => 3,
    };
    let mut names: Vec<(&str, u128)> = requests
        .iter()
        .filter(|(n, _)| class(n) != Class::Ignored)
        .collect();
    names.sort_by_key(|(n, _)| order(n));
    for (name, asked) in names {
        let offered = allocatable.get(name);
        if asked > offered {
            out.push((name.to_string(), asked, offered));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    fn requests(yaml: &str) -> Resources {
        let stream = syntax::parse(yaml);
        let doc = &stream.documents[0];
        let root = doc.root.expect("a document");
        pod_requests(doc, root, None)
    }

    fn r(pairs: &[(&str, u128)]) -> Resources {
        Resources::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), *v)))
    }

    /// Zeros are left out: a list of zeros is empty, and setting an amount to zero removes it.
    #[test]
    fn zeros_are_left_out() {
        assert!(Resources::new().is_empty());
        assert!(r(&[("cpu", 0), ("memory", 0)]).is_empty());
        let mut some = r(&[("cpu", 500)]);
        assert!(!some.is_empty());
        some.set("cpu", 0);
        assert!(some.is_empty());
    }

    /// The least of two lists, per resource: what one of them lacks, it offers none of.
    #[test]
    fn the_least_of_two_lists() {
        let a = r(&[("cpu", 4000), ("memory", 8 << 30), ("nvidia.com/gpu", 2)]);
        let b = r(&[("cpu", 2000), ("memory", 16 << 30)]);
        assert_eq!(a.min(&b), r(&[("cpu", 2000), ("memory", 8 << 30)]));
        assert_eq!(b.min(&a), a.min(&b));
        assert_eq!(a.min(&Resources::new()), Resources::new());
        assert!(a.min(&Resources::new()).is_empty());
    }

    #[test]
    fn containers_add_up_and_limits_default_requests() {
        let got = requests(
            "containers:\n\
             - resources: {requests: {cpu: 500m, memory: 1Gi}}\n\
             - resources: {limits: {cpu: '1', nvidia.com/gpu: 2}}\n\
             - resources: {requests: {cpu: 0}, limits: {cpu: '4'}}\n",
        );
        assert_eq!(
            got,
            r(&[("cpu", 1500), ("memory", 1 << 30), ("nvidia.com/gpu", 2)])
        );
    }

    #[test]
    fn init_containers_are_a_floor_and_sidecars_add_up() {
        // The example of upstream's KEP-753 "exposing pod resource requirements": an init
        // container runs beside the sidecars started before it.
        let got = requests(
            "initContainers:\n\
             - resources: {requests: {cpu: '2', memory: 100Mi}}\n\
             - restartPolicy: Always\n  resources: {requests: {cpu: '1'}}\n\
             - resources: {requests: {cpu: '2'}}\n\
             containers:\n\
             - resources: {requests: {cpu: '1', memory: 50Mi}}\n",
        );
        // Sum: 1 + the sidecar's 1 = 2; init floor: max(2, 1, 2 + 1) = 3 CPU; memory max(100, 50).
        assert_eq!(got, r(&[("cpu", 3000), ("memory", 100 << 20)]));
    }

    #[test]
    fn pod_level_resources_and_overhead() {
        let got = requests(
            "resources: {limits: {cpu: '8'}}\n\
             overhead: {cpu: 250m}\n\
             containers:\n\
             - resources: {requests: {cpu: '1', memory: 1Gi}}\n",
        );
        assert_eq!(got, r(&[("cpu", 8250), ("memory", 1 << 30)]));
        let stream = syntax::parse("containers: [{resources: {requests: {cpu: '1'}}}]\n");
        let doc = &stream.documents[0];
        let with = pod_requests(doc, doc.root.unwrap(), Some(&r(&[("cpu", 100)])));
        assert_eq!(with, r(&[("cpu", 1100)]));
    }

    #[test]
    fn shown_as_people_write_them() {
        assert_eq!(display("cpu", 7910), "7910m");
        assert_eq!(display("cpu", 8000), "8");
        assert_eq!(display("memory", 31369748 * 1024), "29.9Gi");
        assert_eq!(display("memory", 512 << 20), "512Mi");
        assert_eq!(display("nvidia.com/gpu", 8), "8");
        // `Ei` is the largest unit.
        assert_eq!(display("memory", 3 << 60), "3Ei");
        assert_eq!(display("memory", 1 << 70), "1024Ei");
        assert_eq!(amount("memory", "1.5Gi"), Some(1536 << 20));
        assert_eq!(amount("cpu", "0.1"), Some(100));
        assert_eq!(amount("cpu", "-1"), None);
    }

    #[test]
    fn the_scheduler_checks_what_it_counts() {
        let asked = r(&[("cpu", 64000), ("pods", 5), ("nvidia.com/gpu", 1)]);
        let node = r(&[("cpu", 7910), ("memory", 1 << 34)]);
        assert_eq!(
            insufficient(&asked, &node),
            vec![
                ("cpu".to_string(), 64000, 7910),
                ("nvidia.com/gpu".to_string(), 1, 0)
            ]
        );
        assert!(insufficient(&r(&[("cpu", 7910)]), &node).is_empty());
        // CPU, memory and ephemeral storage first, in that order, as `fitsRequest` checks
        // them; then the others (here one named before them all).
        let asked = r(&[
            ("amd.com/gpu", 1),
            ("cpu", 2000),
            ("ephemeral-storage", 10 << 30),
            ("memory", 2 << 30),
        ]);
        let names: Vec<String> = insufficient(&asked, &Resources::new())
            .into_iter()
            .map(|(name, _, _)| name)
            .collect();
        assert_eq!(names, ["cpu", "memory", "ephemeral-storage", "amd.com/gpu"]);
        // Huge pages are counted in bytes (upstream `IsHugePageResourceName` makes them scalar
        // resources the filter checks).
        let asked = r(&[("hugepages-2Mi", 1 << 30)]);
        let node = r(&[("hugepages-2Mi", 512 << 20)]);
        assert_eq!(
            insufficient(&asked, &node),
            vec![("hugepages-2Mi".to_string(), 1 << 30, 512 << 20)]
        );
        assert_eq!(display("hugepages-2Mi", 1 << 30), "1Gi");
    }
}
