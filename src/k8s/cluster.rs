//! What the API server knows about a cluster when it admits a pod: its Namespaces (with the
//! PodTolerationRestriction annotations) and its RuntimeClasses (with their `scheduling`).
//!
//! Both are read from any YAML text (linted manifests, inventory files, `kubectl get
//! ns,runtimeclass -o yaml`). A namespace with no Namespace document exists without annotations.
//! When at least one RuntimeClass is known, the known ones are the cluster's; when none is, a
//! `runtimeClassName` is taken on trust.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::k8s::decode::{decode, Decoded};
use crate::k8s::model::{Effect, Operator, Toleration};
use crate::k8s::objects::{extract, items, Owner};
pub use crate::syntax::mapped::{value_offset, value_offsets};
use crate::syntax::{self, Document, NodeId};

/// The namespace annotation with a namespace's default tolerations (PodTolerationRestriction).
pub const DEFAULT_TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/defaultTolerations";
/// The namespace annotation with a namespace's toleration whitelist (PodTolerationRestriction).
pub const TOLERATIONS_WHITELIST: &str = "scheduler.alpha.kubernetes.io/tolerationsWhitelist";

/// A toleration as admission code compares it. Upstream's operator is a string, and an omitted
/// one (`""`) is not DeepEqual to `Equal`: `bare_operator` keeps that difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiToleration {
    pub toleration: Toleration,
    pub bare_operator: bool,
}

impl ApiToleration {
    pub fn new(toleration: Toleration, bare_operator: bool) -> Self {
        ApiToleration {
            toleration,
            bare_operator,
        }
    }

    /// As JSON, the way the API writes a toleration (omitting empty fields).
    pub fn to_json(&self) -> String {
        let t = &self.toleration;
        let mut parts = Vec::new();
        if !t.key.is_empty() {
            parts.push(format!("\"key\":{}", json_string(&t.key)));
        }
        if !self.bare_operator {
            parts.push(format!("\"operator\":\"{}\"", t.operator.as_str()));
        }
        if !t.value.is_empty() {
            parts.push(format!("\"value\":{}", json_string(&t.value)));
        }
        if let Some(e) = t.effect {
            parts.push(format!("\"effect\":\"{e}\""));
        }
        if let Some(s) = t.toleration_seconds {
            parts.push(format!("\"tolerationSeconds\":{s}"));
        }
        format!("{{{}}}", parts.join(","))
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string always serializes")
}

/// A place in one of the texts the cluster was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub range: Range<usize>,
}

/// A toleration list annotation of a namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// Where its value is written.
    pub at: Place,
    /// The tolerations, or why the API server cannot read them (and where in the value).
    pub tolerations: Result<Vec<ApiToleration>, AnnotationError>,
}

/// Why an annotation's JSON does not decode into tolerations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotationError {
    pub message: String,
    /// A byte offset in the JSON text, when the error has one.
    pub offset: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    pub name: String,
    pub at: Place,
    pub default_tolerations: Option<Annotation>,
    pub whitelist: Option<Annotation>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeClass {
    pub name: String,
    /// Its `metadata.name`.
    pub at: Place,
    /// `scheduling.tolerations` that the API server accepts.
    pub tolerations: Vec<ApiToleration>,
    /// `scheduling.nodeSelector`.
    pub node_selector: Vec<(String, String)>,
    /// `overhead.podFixed`: what its pods need beyond their containers.
    pub overhead: crate::k8s::resources::Resources,
}

/// One request of a ResourceClaim's devices (Dynamic Resource Allocation, resource.k8s.io/v1
/// `DeviceRequest`: `exactly.deviceClassName`, `exactly.count`, `exactly.allocationMode`; in
/// v1beta1 the same fields on the request itself; `firstAvailable` lists alternatives, of which
/// the first is shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRequest {
    pub class: String,
    /// How many devices (`count`, default 1); `None` for `allocationMode: All`.
    pub count: Option<u64>,
    /// Whether other subrequests (`firstAvailable`) may be allocated instead.
    pub alternatives: bool,
    /// Whether the request has CEL `selectors` of its own (they narrow the class's devices).
    pub narrowed: bool,
}

impl DeviceRequest {
    /// "2 devices of class gpu.nvidia.com" / "all devices of class ..." / "1 device ...".
    pub fn describe(&self) -> String {
        let n = match self.count {
            None => "all devices".to_string(),
            Some(1) => "1 device".to_string(),
            Some(n) => format!("{n} devices"),
        };
        let or = if self.alternatives {
            " (or an alternative)"
        } else {
            ""
        };
        let narrowed = if self.narrowed {
            " that its selectors pick"
        } else {
            ""
        };
        format!("{n} of class {}{narrowed}{or}", self.class)
    }
}

/// The device requests of a ResourceClaim's (or ResourceClaimTemplate's) `devices`.
fn device_requests(doc: &Document<'_>, devices: NodeId) -> Vec<DeviceRequest> {
    let mut out = Vec::new();
    let Some((_, list)) = doc.get(devices, "requests") else {
        return out;
    };
    for &r in doc.sequence(list).unwrap_or_default() {
        let (one, alternatives) = match doc.get(r, "exactly") {
            Some((_, e)) => (e, false),
            None => match doc
                .get(r, "firstAvailable")
                .and_then(|(_, l)| doc.sequence(l))
            {
                Some(subs) if !subs.is_empty() => (subs[0], subs.len() > 1),
                _ => (r, false),
            },
        };
        let Some(class) = doc.get_str(one, "deviceClassName") else {
            continue;
        };
        let all = doc.get_str(one, "allocationMode") == Some("All");
        let count = doc
            .get(one, "count")
            .and_then(|(_, v)| scalar_text(doc, v))
            .and_then(|c| c.parse().ok())
            .unwrap_or(1);
        out.push(DeviceRequest {
            class: class.to_string(),
            count: (!all).then_some(count),
            alternatives,
            narrowed: doc
                .get(one, "selectors")
                .and_then(|(_, l)| doc.sequence(l))
                .is_some_and(|l| !l.is_empty()),
        });
    }
    out
}

/// The Namespaces and RuntimeClasses of a cluster, by name, and the ResourceClaims and
/// ResourceClaimTemplates the pods may name, by namespace and name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cluster {
    namespaces: BTreeMap<String, Namespace>,
    runtime_classes: BTreeMap<String, RuntimeClass>,
    /// `(kind, namespace, name)`: the device requests of a ResourceClaim or a
    /// ResourceClaimTemplate (namespace `""` where the manifest does not say).
    claims: BTreeMap<(&'static str, String, String), Vec<DeviceRequest>>,
    /// The DeviceClasses, each with the driver its selectors pick (`None` where they are not
    /// exactly `device.driver == "..."`, or there are none: which devices it picks is not
    /// decided here).
    device_classes: BTreeMap<String, Option<ClassSelector>>,
    /// The ResourceSlices' devices: per driver, per node name (`""` for a slice of
    /// `allNodes`), how many; and the drivers with a slice for a `nodeSelector` (which nodes
    /// it serves is not decided here).
    slices: BTreeMap<String, BTreeMap<String, Vec<Device>>>,
    selected_slices: BTreeSet<String>,
    /// RuntimeClasses defined where they were read but refused by the API server's validation:
    /// never created, so a pod naming one is refused as not found.
    refused: BTreeSet<String>,
    /// What the CustomResourceDefinitions read say of where their kinds keep pod specs,
    /// tolerations and taints.
    crds: crate::k8s::crd::CrdKinds,
}

/// Whether a text may hold a Namespace or a RuntimeClass (a cheap test before parsing it).
pub fn may_hold_cluster_objects(text: &str) -> bool {
    text.contains("Namespace")
        || text.contains("RuntimeClass")
        || text.contains("ResourceClaim")
        || text.contains("ResourceSlice")
        || text.contains("DeviceClass")
        || text.contains("CustomResourceDefinition")
}

/// How many devices of a DRA driver a node offers, as the ResourceSlices read say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Devices {
    /// No ResourceSlice was read: nothing is known.
    Unknown,
    /// Exactly this many (slices that name the node, or serve all nodes).
    Known(u64),
    /// At least this many; a slice of the driver serves the nodes its `nodeSelector` picks.
    AtLeast(u64),
}

/// What a DeviceClass selects, when its selectors are exactly one CEL expression of the form
/// the DRA drivers' own classes take: `device.driver == 'gpu.nvidia.com'`, optionally `&&`
/// string attributes `device.attributes['gpu.nvidia.com'].type == 'gpu'` (either quotes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassSelector {
    pub driver: String,
    /// Fully qualified attribute names (`gpu.nvidia.com/type`) and the string each must equal.
    pub attributes: Vec<(String, String)>,
}

/// One device of a ResourceSlice: its string attributes (fully qualified names), and whether
/// it has attributes of other types (a string comparison with one is a CEL error).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Device {
    strings: Vec<(String, String)>,
    others: Vec<String>,
}

/// A quoted CEL string literal without escapes: its text.
fn cel_string(s: &str) -> Option<&str> {
    let s = s.trim();
    let quote = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = s.strip_prefix(quote)?.strip_suffix(quote)?;
    (!inner.is_empty() && !inner.contains(['"', '\'', '\\'])).then_some(inner)
}

fn class_selector(doc: &Document<'_>, class: NodeId) -> Option<ClassSelector> {
    let (_, spec) = doc.get(class, "spec")?;
    let (_, selectors) = doc.get(spec, "selectors")?;
    let [one] = doc.sequence(selectors)? else {
        return None;
    };
    let (_, cel) = doc.get(*one, "cel")?;
    let expression = doc.get_str(cel, "expression")?;
    // Each term is read whole: outside its string literals there is room for nothing but
    // `device.driver` or `device.attributes[...].name`, `==` and spaces, so an `||`, a call,
    // parentheses or a negation there leaves a term unread (`None`); inside a literal they are
    // characters like any other.
    let mut driver = None;
    let mut attributes = Vec::new();
    for term in expression.split("&&") {
        let (left, right) = term.split_once("==")?;
        let value = cel_string(right)?.to_string();
        let left = left.trim();
        if left == "device.driver" {
            driver = Some(value);
        } else {
            let rest = left.strip_prefix("device.attributes[")?;
            let (domain, name) = rest.split_once(']')?;
            let name = name.strip_prefix('.')?;
            let ident =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            if !ident {
                return None;
            }
            attributes.push((format!("{}/{name}", cel_string(domain)?), value));
        }
    }
    Some(ClassSelector {
        driver: driver?,
        attributes,
    })
}

/// A ResourceSlice device's attributes (resource.k8s.io/v1 `Device.attributes`: a name,
/// qualified by the driver's domain when it has none, and one of `string`, `int`, `bool`,
/// `version`).
fn device(doc: &Document<'_>, d: NodeId, driver: &str) -> Device {
    let mut out = Device::default();
    let map = doc
        .get(d, "attributes")
        .and_then(|(_, a)| doc.mapping(a))
        .unwrap_or_default();
    for &(k, v) in map {
        let Some(name) = scalar_text(doc, k) else {
            continue;
        };
        let name = if name.contains('/') {
            name
        } else {
            format!("{driver}/{name}")
        };
        match doc.get_str(v, "string") {
            Some(value) => out.strings.push((name, value.to_string())),
            None => out.others.push(name),
        }
    }
    out
}

impl Cluster {
    pub fn is_empty(&self) -> bool {
        self.namespaces.is_empty()
            && self.runtime_classes.is_empty()
            && self.refused.is_empty()
            && self.claims.is_empty()
            && self.device_classes.is_empty()
            && self.slices.is_empty()
            && self.selected_slices.is_empty()
            && self.crds.is_empty()
    }

    /// What the CustomResourceDefinitions read say of their kinds.
    pub fn crds(&self) -> &crate::k8s::crd::CrdKinds {
        &self.crds
    }

    /// Whether any ResourceSlice was read (the inventory carries the cluster's devices).
    pub fn knows_devices(&self) -> bool {
        !self.slices.is_empty() || !self.selected_slices.is_empty()
    }

    /// What the DeviceClass `name` selects, when that is decided: the class was read and its
    /// selector has the form [`ClassSelector`] reads.
    pub fn class_selector(&self, name: &str) -> Option<&ClassSelector> {
        self.device_classes.get(name)?.as_ref()
    }

    /// How many devices the class `selector` picks on the node `node`, as the ResourceSlices
    /// read say. A device that lacks an attribute the selector compares, or has it as another
    /// type than a string, is a CEL error, not a decision: the count is then a least.
    pub fn devices(&self, selector: &ClassSelector, node: &str) -> Devices {
        if !self.knows_devices() {
            return Devices::Unknown;
        }
        let mut n = 0;
        let mut undecided = self.selected_slices.contains(&selector.driver);
        let per = self.slices.get(&selector.driver);
        let listed = [node, ""]
            .into_iter()
            .filter_map(|k| per.and_then(|p| p.get(k)))
            .flatten();
        for d in listed {
            let mut matches = true;
            for (name, want) in &selector.attributes {
                match d.strings.iter().find(|(k, _)| k == name) {
                    Some((_, v)) => matches &= v == want,
                    None => {
                        undecided = true;
                        matches = false;
                    }
                }
            }
            n += u64::from(matches);
        }
        if undecided {
            Devices::AtLeast(n)
        } else {
            Devices::Known(n)
        }
    }

    /// How many objects it holds (refused RuntimeClasses count: they were read).
    pub fn len(&self) -> usize {
        self.namespaces.len()
            + self.runtime_classes.len()
            + self.refused.len()
            + self.claims.len()
            + self.device_classes.len()
    }

    /// The device requests of the ResourceClaim (`kind` "ResourceClaim") or
    /// ResourceClaimTemplate `name` in `namespace` (or, where either manifest does not say its
    /// namespace, of that name in any).
    pub fn claim(
        &self,
        kind: &'static str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&[DeviceRequest]> {
        let ns = namespace.unwrap_or("");
        if let Some(r) = self.claims.get(&(kind, ns.to_string(), name.to_string())) {
            return Some(r);
        }
        self.claims
            .iter()
            .find(|((k, n, m), _)| *k == kind && m == name && (ns.is_empty() || n.is_empty()))
            .map(|(_, r)| r.as_slice())
    }

    pub fn namespace(&self, name: &str) -> Option<&Namespace> {
        self.namespaces.get(name)
    }

    pub fn runtime_class(&self, name: &str) -> Option<&RuntimeClass> {
        self.runtime_classes.get(name)
    }

    /// Whether the cluster's RuntimeClasses are known (at least one was read, created or
    /// refused).
    pub fn knows_runtime_classes(&self) -> bool {
        !self.runtime_classes.is_empty() || !self.refused.is_empty()
    }

    /// Whether the RuntimeClass `name` was read but refused by the API server.
    pub fn is_refused(&self, name: &str) -> bool {
        self.refused.contains(name)
    }

    /// Marks the RuntimeClass `name` as one the API server refuses: it is never created, so
    /// [`Cluster::runtime_class`] does not find it, whatever another source says of that name.
    pub fn refuse(&mut self, name: &str) {
        self.runtime_classes.remove(name);
        self.refused.insert(name.to_string());
    }

    pub fn runtime_class_names(&self) -> impl Iterator<Item = &str> {
        self.runtime_classes.keys().map(String::as_str)
    }

    /// Adds what another source knows; the first definition of a name is kept.
    pub fn merge(&mut self, other: Cluster) {
        for (k, v) in other.namespaces {
            self.namespaces.entry(k).or_insert(v);
        }
        for (k, v) in other.runtime_classes {
            if !self.refused.contains(&k) {
                self.runtime_classes.entry(k).or_insert(v);
            }
        }
        for k in other.refused {
            if !self.runtime_classes.contains_key(&k) {
                self.refused.insert(k);
            }
        }
        for (k, v) in other.claims {
            self.claims.entry(k).or_insert(v);
        }
        for (k, v) in other.device_classes {
            self.device_classes.entry(k).or_insert(v);
        }
        for (driver, per) in other.slices {
            let mine = self.slices.entry(driver).or_default();
            for (node, devices) in per {
                mine.entry(node).or_default().extend(devices);
            }
        }
        self.selected_slices.extend(other.selected_slices);
        self.crds.merge(other.crds);
    }

    /// Reads the Namespaces and RuntimeClasses of one file's text (`file` names it in places).
    pub fn add_text(&mut self, file: &str, text: &str) {
        self.add_text_with(file, text, &|_, _| Vec::new());
    }

    /// [`Cluster::add_text`], with `refused` naming the RuntimeClasses of a document that the
    /// API server refuses (the validation rules live above this layer: the caller brings them).
    pub fn add_text_with(
        &mut self,
        file: &str,
        text: &str,
        refused: &dyn Fn(&str, &Document<'_>) -> Vec<String>,
    ) {
        if !may_hold_cluster_objects(text) {
            return;
        }
        self.add_stream_with(file, text, &syntax::parse(text), refused);
    }

    /// [`Cluster::add_text_with`] of a text already parsed into `stream`.
    pub fn add_stream_with(
        &mut self,
        file: &str,
        text: &str,
        stream: &syntax::Stream<'_>,
        refused: &dyn Fn(&str, &Document<'_>) -> Vec<String>,
    ) {
        if !may_hold_cluster_objects(text) {
            return;
        }
        for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
            self.add_document(file, doc);
            for name in refused(text, doc) {
                self.refuse(&name);
            }
        }
    }

    /// Reads the Namespaces, RuntimeClasses, DeviceClasses, ResourceSlices, resource claims and
    /// CustomResourceDefinitions of one parsed document.
    pub fn add_document(&mut self, file: &str, doc: &Document<'_>) {
        let ex = extract(doc);
        for (index, object) in ex.objects.iter().enumerate() {
            let (Some(kind), Some(name)) = (object.kind, object.name) else {
                continue;
            };
            let name_at = doc
                .get(object.node, "metadata")
                .and_then(|(_, m)| doc.get(m, "name"))
                .map_or(doc.node(object.node).span.clone(), |(_, v)| {
                    doc.node(v).span.clone()
                });
            // Where the object is named, made only for the kinds that keep it.
            let at = || Place {
                file: file.to_string(),
                range: name_at.clone(),
            };
            match kind {
                "Namespace" => self.add_namespace(doc, object.node, name, at()),
                "RuntimeClass" => {
                    let lists = ex
                        .tolerations
                        .iter()
                        .filter(|l| l.owner == Owner::RuntimeClass && l.list.object == Some(index))
                        .map(|l| &l.list);
                    self.add_runtime_class(doc, object.node, name, at(), lists);
                }
                "DeviceClass" => {
                    let driver = class_selector(doc, object.node);
                    self.device_classes
                        .entry(name.to_string())
                        .or_insert(driver);
                }
                "ResourceSlice" => self.add_resource_slice(doc, object.node),
                "ResourceClaim" | "ResourceClaimTemplate" => {
                    let namespace = object.namespace.unwrap_or("");
                    self.add_claim(doc, object.node, kind, (namespace, name));
                }
                "CustomResourceDefinition" => self.crds.add(doc, object.node),
                _ => {}
            }
        }
    }

    /// A Namespace with the PodTolerationRestriction annotations it carries (the first of a
    /// name wins).
    fn add_namespace(&mut self, doc: &Document<'_>, node: NodeId, name: &str, at: Place) {
        let annotation = |key: &str| {
            let (_, value) = namespace_annotation(doc, node, key)?;
            Some(read_annotation(doc, value, &at.file))
        };
        let (default_tolerations, whitelist) = (
            annotation(DEFAULT_TOLERATIONS),
            annotation(TOLERATIONS_WHITELIST),
        );
        let ns = Namespace {
            name: name.to_string(),
            at,
            default_tolerations,
            whitelist,
        };
        self.namespaces.entry(name.to_string()).or_insert(ns);
    }

    /// A RuntimeClass: its `scheduling.tolerations` (from `lists`, the document's toleration
    /// lists that belong to it), node selector and `overhead.podFixed` (the first of a name
    /// wins).
    fn add_runtime_class<'l>(
        &mut self,
        doc: &Document<'_>,
        node: NodeId,
        name: &str,
        at: Place,
        lists: impl Iterator<Item = &'l crate::k8s::objects::List>,
    ) {
        let mut tolerations = Vec::new();
        for list in lists {
            for item in items(doc, list) {
                if let Some(t) = item.toleration() {
                    tolerations.push(ApiToleration::new(t, item.str("operator").is_empty()));
                }
            }
        }
        let node_selector = doc
            .get(node, "scheduling")
            .and_then(|(_, s)| doc.get(s, "nodeSelector"))
            .and_then(|(_, m)| doc.mapping(m))
            .unwrap_or_default()
            .iter()
            .filter_map(|&(k, v)| Some((scalar_text(doc, k)?, scalar_text(doc, v)?)))
            .collect();
        let overhead = doc
            .get(node, "overhead")
            .and_then(|(_, o)| doc.get(o, "podFixed"))
            .map(|(_, m)| crate::k8s::resources::read_list(doc, m))
            .unwrap_or_default();
        let rc = RuntimeClass {
            name: name.to_string(),
            at,
            tolerations,
            node_selector,
            overhead,
        };
        self.runtime_classes.entry(name.to_string()).or_insert(rc);
    }

    /// A ResourceSlice (resource.k8s.io/v1 ResourceSliceSpec: `driver`, one of `nodeName`,
    /// `nodeSelector`, `allNodes` (or `perDeviceNodeSelection`), `devices`): its devices by
    /// driver and node (all nodes under the empty name); a slice that selects its nodes only
    /// marks its driver.
    fn add_resource_slice(&mut self, doc: &Document<'_>, node: NodeId) {
        let Some((_, spec)) = doc.get(node, "spec") else {
            return;
        };
        let Some(driver) = doc.get_str(spec, "driver") else {
            return;
        };
        let devices: Vec<Device> = doc
            .get(spec, "devices")
            .and_then(|(_, d)| doc.sequence(d))
            .unwrap_or_default()
            .iter()
            .map(|&d| device(doc, d, driver))
            .collect();
        let all = doc
            .get(spec, "allNodes")
            .is_some_and(|(_, v)| matches!(decode(doc, v), Decoded::Bool(true)));
        if let Some(node_name) = doc.get_str(spec, "nodeName") {
            self.slices
                .entry(driver.to_string())
                .or_default()
                .entry(node_name.to_string())
                .or_default()
                .extend(devices);
        } else if all {
            self.slices
                .entry(driver.to_string())
                .or_default()
                .entry(String::new())
                .or_default()
                .extend(devices);
        } else {
            self.selected_slices.insert(driver.to_string());
        }
    }

    /// A ResourceClaim's or ResourceClaimTemplate's device requests, by kind, namespace and
    /// name (the first wins).
    fn add_claim(
        &mut self,
        doc: &Document<'_>,
        node: NodeId,
        kind: &str,
        (namespace, name): (&str, &str),
    ) {
        let (kind, spec) = if kind == "ResourceClaim" {
            ("ResourceClaim", doc.get(node, "spec"))
        } else {
            (
                "ResourceClaimTemplate",
                doc.get(node, "spec").and_then(|(_, s)| doc.get(s, "spec")),
            )
        };
        let Some((_, devices)) = spec.and_then(|(_, s)| doc.get(s, "devices")) else {
            return;
        };
        let key = (kind, namespace.to_string(), name.to_string());
        let requests = device_requests(doc, devices);
        self.claims.entry(key).or_insert(requests);
    }
}

/// A label's key or value as text: a string, or a scalar written in place of one.
fn scalar_text(doc: &Document<'_>, id: NodeId) -> Option<String> {
    match decode(doc, id) {
        Decoded::Str(s) => Some(s.to_string()),
        Decoded::Null => Some(String::new()),
        Decoded::Mapping | Decoded::Sequence => None,
        _ => doc.scalar(id).map(|(s, _)| s.to_string()),
    }
}

/// The deprecated pod annotation with a JSON list of tolerations, which the API server still
/// validates (`ValidateTolerationsInPodAnnotations`) and the scheduler ignores.
pub const POD_TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/tolerations";

/// A pod's (or pod template's) annotation.
#[derive(Debug, Clone)]
pub struct PodAnnotation {
    pub key: NodeId,
    pub value: NodeId,
    /// The annotation's path from the document root, as findings name it
    /// (`spec.template.metadata.annotations[scheduler.alpha.kubernetes.io/tolerations]`).
    pub path: String,
    /// Its path as the API server's validation names it: from the object's root, under
    /// `metadata.annotations` for a Pod and `<template>.annotations` for a template
    /// (`ValidatePodTemplateSpec` validates the template's annotations at
    /// `fldPath.Child("annotations")`).
    pub api_path: String,
}

/// The annotation `key` of the pod or pod template in an object of kind `kind`.
pub fn pod_annotation(
    doc: &Document<'_>,
    object: NodeId,
    object_path: &str,
    kind: &str,
    key: &str,
) -> Option<PodAnnotation> {
    let segments = crate::k8s::objects::pod_spec_path(kind)?;
    let (_, template) = segments.split_last()?;
    let mut at = object;
    for segment in template {
        at = doc.get(at, segment)?.1;
    }
    let (_, metadata) = doc.get(at, "metadata")?;
    let (_, annotations) = doc.get(metadata, "annotations")?;
    let (k, v) = doc.get(annotations, key)?;
    let template = template.join(".");
    let api_path = if template.is_empty() {
        format!("metadata.annotations.{key}")
    } else {
        format!("{template}.annotations.{key}")
    };
    let mut path = object_path.to_string();
    for part in [template.as_str(), "metadata.annotations"] {
        if part.is_empty() {
            continue;
        }
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(part);
    }
    path.push_str(&format!("[{key}]"));
    Some(PodAnnotation {
        key: k,
        value: v,
        path,
        api_path,
    })
}

/// A Namespace's `metadata.annotations[key]`: (key node, value node).
pub fn namespace_annotation(
    doc: &Document<'_>,
    object: NodeId,
    key: &str,
) -> Option<(NodeId, NodeId)> {
    let (_, metadata) = doc.get(object, "metadata")?;
    let (_, annotations) = doc.get(metadata, "annotations")?;
    doc.get(annotations, key)
}

/// Reads a toleration list annotation's value node.
pub fn read_annotation(doc: &Document<'_>, value: NodeId, file: &str) -> Annotation {
    let at = Place {
        file: file.to_string(),
        range: doc.node(value).span.clone(),
    };
    let tolerations = match decode(doc, value) {
        Decoded::Str(s) => parse_tolerations_json(s),
        Decoded::Null => Ok(Vec::new()),
        _ => Err(AnnotationError {
            message: "an annotation's value must be a string".to_string(),
            offset: None,
        }),
    };
    Annotation { at, tolerations }
}

/// Upstream `extractNSTolerations` (plugin/pkg/admission/podtolerationrestriction/admission.go):
/// an empty value is an empty list; otherwise `json.Unmarshal` into `[]v1.Toleration`, whose
/// field names match case-insensitively and whose unknown fields are ignored. An operator or
/// effect the API does not know is an error here: the merged pod would fail validation.
pub fn parse_tolerations_json(json: &str) -> Result<Vec<ApiToleration>, AnnotationError> {
    if json.is_empty() {
        return Ok(Vec::new());
    }
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| AnnotationError {
        message: format!("not JSON: {e}"),
        offset: Some(line_col_offset(json, e.line(), e.column())),
    })?;
    let items = match value {
        serde_json::Value::Array(items) => items,
        serde_json::Value::Null => return Ok(Vec::new()),
        other => {
            return Err(AnnotationError {
                message: format!(
                    "json: cannot unmarshal {} into Go value of type []v1.Toleration",
                    go_json_kind(&other)
                ),
                offset: None,
            })
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let fields = match item {
            serde_json::Value::Object(fields) => fields,
            serde_json::Value::Null => {
                // A null item is the zero toleration: operator "" and an empty key.
                let zero = Toleration {
                    key: String::new(),
                    operator: Operator::Equal,
                    value: String::new(),
                    effect: None,
                    toleration_seconds: None,
                };
                out.push(ApiToleration::new(zero, true));
                continue;
            }
            other => {
                return Err(AnnotationError {
                    message: format!(
                        "json: cannot unmarshal {} into Go value of type v1.Toleration",
                        go_json_kind(other)
                    ),
                    offset: None,
                })
            }
        };
        let field = |name: &str| {
            fields
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
                .next_back()
        };
        let string = |name: &str| -> Result<String, AnnotationError> {
            match field(name) {
                None | Some(serde_json::Value::Null) => Ok(String::new()),
                Some(serde_json::Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(AnnotationError {
                    message: format!(
                        "json: cannot unmarshal {} into Go struct field Toleration.{name} of type string",
                        go_json_kind(other)
                    ),
                    offset: None,
                }),
            }
        };
        let key = string("key")?;
        let operator = string("operator")?;
        let value = string("value")?;
        let effect = string("effect")?;
        let seconds = match field("tolerationSeconds") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::Number(n)) if n.as_i64().is_some() => n.as_i64(),
            Some(other) => {
                // encoding/json (decode.go `literalStore`) names a number that does not fit an
                // int64 with its literal as written: `number 1.5`, `number 1e3`.
                let found = match other {
                    serde_json::Value::Number(_) => raw_field(json, i, "tolerationSeconds")
                        .map_or_else(|| "number".to_string(), |raw| format!("number {raw}")),
                    other => go_json_kind(other).to_string(),
                };
                return Err(AnnotationError {
                    message: format!(
                        "json: cannot unmarshal {found} into Go struct field Toleration.tolerationSeconds of type int64"
                    ),
                    offset: None,
                });
            }
        };
        let Some(op) = Operator::parse(&operator) else {
            return Err(AnnotationError {
                message: format!(
                    "[{i}].operator: Unsupported value: {}: the pods it is merged into fail validation",
                    json_string(&operator)
                ),
                offset: None,
            });
        };
        let effect = match effect.as_str() {
            "" => None,
            e => Some(Effect::parse(e).ok_or_else(|| AnnotationError {
                message: format!(
                    "[{i}].effect: Unsupported value: {}: the pods it is merged into fail validation",
                    json_string(e)
                ),
                offset: None,
            })?),
        };
        out.push(ApiToleration::new(
            Toleration {
                key,
                operator: op,
                value,
                effect,
                toleration_seconds: seconds,
            },
            operator.is_empty(),
        ));
    }
    Ok(out)
}

/// The text of field `name` (matched as encoding/json matches, case-insensitively, the last one
/// winning) of item `index` of a JSON array, as written.
fn raw_field(json: &str, index: usize, name: &str) -> Option<String> {
    use serde::de::{MapAccess, Visitor};
    use serde_json::value::RawValue;

    /// An object's fields in order, each value as written.
    struct Fields(Vec<(String, Box<RawValue>)>);
    impl<'de> serde::Deserialize<'de> for Fields {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Fields;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                    let mut out = Vec::new();
                    while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                        out.push(entry);
                    }
                    Ok(Fields(out))
                }
            }
            d.deserialize_map(V)
        }
    }

    let items: Vec<Box<RawValue>> = serde_json::from_str(json).ok()?;
    let Fields(fields) = serde_json::from_str(items.get(index)?.get()).ok()?;
    fields
        .into_iter()
        .rfind(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.get().trim().to_string())
}

fn go_json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// serde_json's 1-based line and column (in bytes) as a byte offset.
fn line_col_offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    crate::position::floor_char_boundary(text, (start + column.saturating_sub(1)).min(text.len()))
}

#[cfg(test)]
mod tests {
    /// encoding/json's `literalStore`: a number that does not fit an int64 is named with its
    /// literal, as the annotation writes it.
    #[test]
    fn annotation_numbers_keep_their_literal() {
        let error = |json: &str| super::parse_tolerations_json(json).unwrap_err().message;
        assert_eq!(
            error(r#"[{"key": "a"}, {"key": "b", "effect": "NoExecute", "tolerationSeconds": 1.50}]"#),
            "json: cannot unmarshal number 1.50 into Go struct field Toleration.tolerationSeconds of type int64"
        );
        assert_eq!(
            error(r#"[{"TolerationSeconds": 1, "tolerationseconds": 18446744073709551616}]"#),
            "json: cannot unmarshal number 18446744073709551616 into Go struct field Toleration.tolerationSeconds of type int64"
        );
        assert_eq!(
            error(r#"[{"tolerationSeconds": "60"}]"#),
            "json: cannot unmarshal string into Go struct field Toleration.tolerationSeconds of type int64"
        );
    }

    use super::*;

    #[test]
    fn namespaces_and_runtime_classes_are_read() {
        let text = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations:\n    scheduler.alpha.kubernetes.io/defaultTolerations: '[{\"key\":\"team\",\"operator\":\"Equal\",\"value\":\"shop\",\"effect\":\"NoSchedule\"}]'\n    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{\"operator\": \"Exists\", \"effect\": \"NoSchedule\", \"key\": \"team\"}]'\n---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\nscheduling:\n  nodeSelector: {sandbox: gvisor}\n  tolerations:\n  - {key: sandbox, operator: Equal, value: gvisor, effect: NoSchedule}\n";
        let mut c = Cluster::default();
        c.add_text("cluster.yaml", text);
        let ns = c.namespace("shop").unwrap();
        let d = ns.default_tolerations.as_ref().unwrap();
        let d = d.tolerations.as_ref().unwrap();
        assert_eq!(d[0].toleration.key, "team");
        assert_eq!(d[0].toleration.value, "shop");
        let w = ns.whitelist.as_ref().unwrap().tolerations.as_ref().unwrap();
        assert_eq!(w[0].toleration.operator, Operator::Exists);
        let rc = c.runtime_class("gvisor").unwrap();
        assert_eq!(rc.node_selector, vec![("sandbox".into(), "gvisor".into())]);
        assert_eq!(rc.tolerations[0].toleration.value, "gvisor");
        assert_eq!(&text[rc.at.range.clone()], "gvisor");
        assert!(c.knows_runtime_classes());
    }

    /// A claim's requests (resource.k8s.io `DeviceRequest`): `firstAvailable` shows its first
    /// subrequest, with alternatives when it has more than one; an empty `firstAvailable` is
    /// one not written (Go's `omitempty`), so a v1beta1 request's own class counts.
    #[test]
    fn device_requests_of_a_claim() {
        let text = "\
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - {name: a, firstAvailable: [], deviceClassName: gpu.nvidia.com, count: 2}
    - {name: b, firstAvailable: [{name: one, deviceClassName: mig.nvidia.com}]}
    - name: c
      firstAvailable:
      - {name: x, deviceClassName: big.example.com, allocationMode: All}
      - {name: y, deviceClassName: small.example.com}
    - {name: d, firstAvailable: []}
";
        let mut c = Cluster::default();
        c.add_text("claim.yaml", text);
        let request = |class: &str, count, alternatives| DeviceRequest {
            class: class.to_string(),
            count,
            alternatives,
            narrowed: false,
        };
        let requests = c.claim("ResourceClaim", None, "c").unwrap();
        assert_eq!(
            requests,
            [
                request("gpu.nvidia.com", Some(2), false),
                request("mig.nvidia.com", Some(1), false),
                request("big.example.com", None, true),
            ]
        );
        let described: Vec<String> = requests.iter().map(DeviceRequest::describe).collect();
        assert_eq!(
            described,
            [
                "2 devices of class gpu.nvidia.com",
                "1 device of class mig.nvidia.com",
                "all devices of class big.example.com (or an alternative)",
            ]
        );
    }

    /// A pod names a claim by name in its own namespace; a manifest that does not say its
    /// namespace (the pod's or the claim's) may be applied to any, so the name matches there.
    #[test]
    fn claims_are_found_by_kind_namespace_and_name() {
        // Each written in both shapes: a template's requests under `spec.spec`, a claim's
        // under `spec`.
        let claim = |kind: &str, namespace: &str, name: &str, class: &str| {
            format!(
                "apiVersion: resource.k8s.io/v1\nkind: {kind}\nmetadata: {{name: {name}{namespace}}}\n\
                 spec:\n  spec:\n    devices:\n      requests: [{{name: r, exactly: {{deviceClassName: {class}}}}}]\n\
                 \x20 devices:\n    requests: [{{name: r, exactly: {{deviceClassName: {class}}}}}]\n"
            )
        };
        let text = [
            claim(
                "ResourceClaimTemplate",
                ", namespace: ml",
                "gpus",
                "ml.example.com",
            ),
            claim("ResourceClaimTemplate", "", "other", "other.example.com"),
            claim("ResourceClaim", "", "gpus", "claim.example.com"),
        ]
        .join("---\n");
        let mut c = Cluster::default();
        c.add_text("claims.yaml", &text);
        let class = |kind, namespace, name| {
            c.claim(kind, namespace, name)
                .map(|r| r.iter().map(|r| r.class.as_str()).collect::<Vec<_>>())
        };
        let t = "ResourceClaimTemplate";
        assert_eq!(class(t, Some("ml"), "gpus"), Some(vec!["ml.example.com"]));
        assert_eq!(class(t, None, "gpus"), Some(vec!["ml.example.com"]));
        assert_eq!(class(t, Some("web"), "gpus"), None);
        assert_eq!(
            class(t, Some("web"), "other"),
            Some(vec!["other.example.com"])
        );
        assert_eq!(class(t, None, "missing"), None);
        assert_eq!(
            class("ResourceClaim", Some("web"), "gpus"),
            Some(vec!["claim.example.com"])
        );
        assert_eq!(class("ResourceClaim", Some("web"), "other"), None);
    }

    /// What a cluster holds, each kind of object alone: not empty; how many objects, counted
    /// by kind (a refused RuntimeClass was read, so it counts; a ResourceSlice describes
    /// devices, not an object a related location points into).
    #[test]
    fn a_cluster_counts_what_it_holds() {
        let doc = |kind: &str, name: &str, spec: &str| {
            format!("apiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}}}\n{spec}")
        };
        let namespace = doc("Namespace", "shop", "");
        let runtime_class = doc("RuntimeClass", "gvisor", "handler: runsc\n");
        let claim = doc(
            "ResourceClaim",
            "c",
            "spec:\n  devices:\n    requests: [{name: r, exactly: {deviceClassName: k}}]\n",
        );
        let class = doc("DeviceClass", "k", "spec: {}\n");
        let slice = |at: &str| {
            doc(
                "ResourceSlice",
                "s",
                &format!("spec: {{driver: d, {at}}}\n"),
            )
        };
        let alone = [
            namespace.clone(),
            runtime_class.clone(),
            claim.clone(),
            class.clone(),
            slice("nodeName: n1"),
            slice("allNodes: true"),
            slice("nodeSelector: {}"),
        ];
        for text in &alone {
            let mut c = Cluster::default();
            c.add_text("c.yaml", text);
            assert!(!c.is_empty(), "{text}");
        }
        let mut c = Cluster::default();
        assert!(c.is_empty());
        c.refuse("bad");
        assert!(!c.is_empty());
        assert_eq!(c.len(), 1);
        let text = [
            namespace.clone(),
            namespace.replace("shop", "web"),
            namespace.replace("shop", "ml"),
            runtime_class.clone(),
            runtime_class.replace("gvisor", "kata"),
            claim.clone(),
            claim.replace("name: c}", "name: d}"),
            class,
            slice("nodeName: n1"),
        ]
        .join("---\n");
        c.add_text("c.yaml", &text);
        // 3 namespaces, 2 RuntimeClasses and a refused one, 2 claims, 1 DeviceClass.
        assert_eq!(c.len(), 9);
    }

    /// Merging keeps the first definition of a name; a RuntimeClass refused by one source and
    /// defined by the other stays as the first source has it; devices add up per driver and
    /// node.
    #[test]
    fn merging_keeps_the_first_definition() {
        let runtime_class = |name: &str, handler: &str| {
            format!("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {{name: {name}}}\nhandler: {handler}\n")
        };
        let slice = |devices: &str| {
            format!(
                "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: s}}\n\
                 spec: {{driver: d.example.com, nodeName: n1, devices: [{devices}]}}\n"
            )
        };
        let mut first = Cluster::default();
        first.add_text(
            "first.yaml",
            &[runtime_class("gvisor", "runsc"), slice("{name: a}")].join("---\n"),
        );
        first.refuse("bad");
        let mut second = Cluster::default();
        second.add_text(
            "second.yaml",
            &[
                runtime_class("gvisor", "other"),
                runtime_class("bad", "runc"),
                runtime_class("kata", "kata-qemu"),
                slice("{name: b}, {name: c}"),
            ]
            .join("---\n"),
        );
        second.refuse("worse");
        let mut gvisor_refused = Cluster::default();
        gvisor_refused.refuse("gvisor");
        first.merge(second);
        first.merge(gvisor_refused);
        assert_eq!(first.runtime_class("gvisor").unwrap().at.file, "first.yaml");
        assert_eq!(first.runtime_class("kata").unwrap().at.file, "second.yaml");
        assert_eq!(first.runtime_class("bad"), None);
        assert_eq!(
            first.runtime_class_names().collect::<Vec<_>>(),
            ["gvisor", "kata"]
        );
        let refused = ["gvisor", "kata", "bad", "worse"].map(|name| first.is_refused(name));
        assert_eq!(refused, [false, false, true, true]);
        let any = ClassSelector {
            driver: "d.example.com".to_string(),
            attributes: Vec::new(),
        };
        assert_eq!(first.devices(&any, "n1"), Devices::Known(3));
        assert_eq!(first.devices(&any, "n2"), Devices::Known(0));
    }

    /// A DeviceClass's selector is read when it is one CEL expression of `device.driver` and
    /// string attributes compared with string literals (either quotes), joined by `&&`; a
    /// literal may hold any character but a quote or a backslash (an escape is not decoded
    /// here), `(`, `!` and `||` included. Any other expression is not decided.
    #[test]
    fn device_class_selectors() {
        let selector = |expression: &str| {
            let text = format!(
                "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: k}}\n\
                 spec:\n  selectors:\n  - cel: {{expression: {}}}\n",
                serde_json::to_string(expression).unwrap()
            );
            let mut c = Cluster::default();
            c.add_text("class.yaml", &text);
            c.class_selector("k").cloned()
        };
        let gpu = |attributes: &[(&str, &str)]| {
            Some(ClassSelector {
                driver: "gpu.nvidia.com".to_string(),
                attributes: attributes
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            })
        };
        assert_eq!(selector("device.driver == 'gpu.nvidia.com'"), gpu(&[]));
        assert_eq!(selector("device.driver == \"gpu.nvidia.com\""), gpu(&[]));
        assert_eq!(
            selector(
                "device.attributes[\"gpu.nvidia.com\"].productName == 'A100 (80GB) || H100!' \
                 && device.driver == 'gpu.nvidia.com'"
            ),
            gpu(&[("gpu.nvidia.com/productName", "A100 (80GB) || H100!")])
        );
        // An attribute's name is an identifier: letters, digits and `_`.
        assert_eq!(
            selector(
                "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].product_name2 == 'x'"
            ),
            gpu(&[("gpu.nvidia.com/product_name2", "x")])
        );
        for undecided in [
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type-x == 'gpu'",
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com']. == 'gpu'",
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].a.b == 'gpu'",
            "device.driver == 'gpu.nvidia.com' || device.driver == 'example.com'",
            "(device.driver == 'gpu.nvidia.com')",
            "!(device.driver == 'example.com')",
            "device.driver == 'gpu.nvidia.com' && (device.attributes['gpu.nvidia.com'].type == 'gpu')",
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type != 'mig'",
            "device.driver == 'gpu.nvidia.com' && !device.attributes['gpu.nvidia.com'].mig == 'x'",
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu' || true",
            "device.driver == 'gpu\\x2envidia.com'",
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == ''",
            "device.driver == 'it''s'",
            "device.driver == 'gpu.nvidia.com\"",
            "device.driver == gpu.nvidia.com",
            "device.attributes['gpu.nvidia.com'].type == 'gpu'",
        ] {
            assert_eq!(selector(undecided), None, "{undecided}");
        }
    }

    /// Two RuntimeClasses in one `kind: List`: each keeps its own `scheduling.tolerations`.
    #[test]
    fn runtime_classes_of_a_list_keep_their_tolerations() {
        let text = "\
apiVersion: v1
kind: List
items:
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: gvisor}
  handler: runsc
  scheduling:
    tolerations: [{key: sandbox, operator: Exists}]
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: kata}
  handler: kata-qemu
  scheduling:
    tolerations: [{key: vm, operator: Exists}, {key: gpu, operator: Exists}]
";
        let mut c = Cluster::default();
        c.add_text("classes.yaml", text);
        let keys = |name: &str| {
            let class = c.runtime_class(name).unwrap();
            class
                .tolerations
                .iter()
                .map(|t| t.toleration.key.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(keys("gvisor"), ["sandbox"]);
        assert_eq!(keys("kata"), ["vm", "gpu"]);
    }

    /// A RuntimeClass's `scheduling.nodeSelector` is a `map[string]string`: a null value
    /// decodes as the empty string, a number or a boolean as its text; a list or a mapping is
    /// no string (left out).
    #[test]
    fn runtime_class_node_selector_values_as_strings() {
        let text = "\
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
scheduling:
  nodeSelector: {a: null, b: ~, c: , d: 1, e: true, f: [x], g: {h: i}, j: \"k\"}
";
        let mut c = Cluster::default();
        c.add_text("class.yaml", text);
        let selector = &c.runtime_class("gvisor").unwrap().node_selector;
        let want = [
            ("a", ""),
            ("b", ""),
            ("c", ""),
            ("d", "1"),
            ("e", "true"),
            ("j", "k"),
        ];
        assert_eq!(selector, &want.map(|(k, v)| (k.to_string(), v.to_string())));
    }

    #[test]
    fn annotation_json_as_go_reads_it() {
        assert_eq!(parse_tolerations_json("").unwrap(), vec![]);
        assert_eq!(parse_tolerations_json("null").unwrap(), vec![]);
        let t = parse_tolerations_json(r#"[{"KEY":"a","value":"b","unknown":1}]"#).unwrap();
        assert_eq!(t[0].toleration.key, "a");
        assert!(t[0].bare_operator);
        let e = parse_tolerations_json(r#"[{"key": 1}]"#).unwrap_err();
        assert!(e.message.contains("Toleration.key of type string"), "{e:?}");
        let e = parse_tolerations_json(r#"{"key": "a"}"#).unwrap_err();
        assert!(e.message.contains("cannot unmarshal object"), "{e:?}");
        let e = parse_tolerations_json("[{\"key\": \"a\",}]").unwrap_err();
        assert_eq!(e.offset, Some(13));
        let e = parse_tolerations_json(r#"[{"operator":"exists"}]"#).unwrap_err();
        assert!(e.message.contains("Unsupported value: \"exists\""), "{e:?}");
    }

    /// An annotation is a string (`map[string]string`): a null value decodes as the empty
    /// string, an empty list (`extractNSTolerations`); a mapping does not decode at all.
    #[test]
    fn an_annotation_read_from_its_node() {
        let text = "a: ~\nb: '[{\"key\": \"k\", \"effect\": \"NoExecute\", \"tolerationSeconds\": 60}]'\nc: {x: y}\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let get = |k: &str| doc.get(doc.root.unwrap(), k).unwrap().1;
        assert_eq!(read_annotation(doc, get("a"), "f").tolerations, Ok(vec![]));
        let b = read_annotation(doc, get("b"), "f");
        assert!(text[b.at.range.clone()].ends_with("\"tolerationSeconds\": 60}]'"));
        let b = b.tolerations.unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].toleration.key, "k");
        assert_eq!(b[0].toleration.effect, Some(Effect::NoExecute));
        assert_eq!(b[0].toleration.toleration_seconds, Some(60));
        assert_eq!(
            read_annotation(doc, get("c"), "f").tolerations,
            Err(AnnotationError {
                message: "an annotation's value must be a string".to_string(),
                offset: None
            })
        );
    }
}
