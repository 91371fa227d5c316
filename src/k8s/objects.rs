//! Where tolerations and taints live in a document.
//!
//! Objects are found at the document root, or as the items of a `kind: List` (or `NodeList`,
//! `PodList`, ...). Each workload kind has its pod spec at a known path; RuntimeClass keeps
//! tolerations under `scheduling`, Node its taints under `spec`. Any other `tolerations:`
//! sequence of mappings (a CRD, a Helm values file) is found by walking the tree.

use std::collections::HashSet;

use crate::k8s::crd::{CrdKinds, Places};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::model::{Effect, Operator, Taint, Toleration};
use crate::k8s::workloads::{
    custom_workload, Absent, ChartKinds, Pods, Requests, PLACEMENT_FIELDS, TRAINER_JOB,
    TRAINER_OVERRIDES,
};
use crate::syntax::{Document, NodeId, NodeKind};

/// A Kubernetes object in a document.
#[derive(Debug, Clone)]
pub struct Object<'d> {
    pub kind: Option<&'d str>,
    pub name: Option<&'d str>,
    pub namespace: Option<&'d str>,
    pub node: NodeId,
    /// Path of the object from the document root: empty, or `items[3]`.
    pub path: String,
    /// Index inside a `kind: List`.
    pub item: Option<usize>,
    /// For chart values whose chart is not at hand (a workload of unknown kind), the object
    /// that installs the chart: every face names the workload after it.
    pub installer: Option<Installer<'d>>,
}

/// The object that installs a chart (a Flux HelmRelease, an Argo CD Application), as the
/// workloads of its values are named: `Application argocd/web, values `worker``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installer<'d> {
    pub kind: &'d str,
    /// Its own namespace (the workload's is the one it installs the chart in).
    pub namespace: Option<&'d str>,
    pub name: Option<&'d str>,
    /// The path of the values mapping, from the document root.
    pub values: String,
}

impl<'d> Object<'d> {
    /// The kind, namespace and name every face names the object by: its own, or those of the
    /// object that installs the chart whose values it is.
    pub fn said_as(&self) -> (Option<&'d str>, Option<&'d str>, Option<&'d str>) {
        match (&self.installer, self.kind) {
            (Some(i), None) => (Some(i.kind), i.namespace, i.name),
            _ => (self.kind, self.namespace, self.name),
        }
    }
}

/// A pod spec inside a workload object.
#[derive(Debug, Clone)]
pub struct PodSpec {
    pub object: usize,
    /// The mapping of its pod fields (a pod template's `spec`, pod fields inline). Where a
    /// custom resource leaves them out and its operator makes the pods all the same (a Strimzi
    /// component without `template.pod`), the component that makes them: then `fields` is
    /// false, and no pod field is read from it.
    pub node: NodeId,
    /// Path of the pod spec from the document root.
    pub path: String,
    /// Found by its shape (a `containers` list) in an object of a kind taintlint's table of
    /// workloads does not know, not at a path the table gives.
    pub by_shape: bool,
    /// Whether `node` holds the pod's fields.
    pub fields: bool,
    /// Where its requests and limits are, when not (only) as a pod spec keeps them.
    pub requests: PodRequests,
    /// A `nodeSelector` mapping the operator adds to the pod's own (a SparkApplication's
    /// `spec.nodeSelector`).
    pub selector: Option<NodeId>,
    /// What the pods get from elsewhere, not at hand (a TrainJob's runtime): the pod spec is
    /// read in part, and says so.
    pub partly: Option<String>,
}

/// Where a pod's requests and limits are (see [`Requests`], the table's form of it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PodRequests {
    /// As a pod spec keeps them.
    #[default]
    PodSpec,
    /// The containers the pod fields list (but the first, with `replace_first`), and one more
    /// for each `ResourceRequirements` mapping of `resources`; the pod fields' `resources` is
    /// the pod's with `pod_level`, else one of `resources` (or nothing).
    Containers {
        resources: Vec<NodeId>,
        replace_first: bool,
        pod_level: bool,
    },
    /// A Spark driver or executor, the pod fields its `SparkPodSpec`, of the application spec
    /// `application`.
    Spark {
        application: Option<NodeId>,
        executor: bool,
    },
}

/// Something that makes pods that is not simulated, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The object, an index in [`Extracted::objects`].
    pub object: usize,
    /// Where, from the document root.
    pub path: String,
    /// Why, in words (`its pods are its runtime's (runtimeRef torch-distributed)`).
    pub why: String,
}

/// What a toleration list belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// The pod spec with this index in [`Extracted::pod_specs`].
    PodSpec(usize),
    RuntimeClass,
    /// A `tolerations:` sequence found elsewhere (a CRD, a values file).
    Other,
}

#[derive(Debug, Clone)]
pub struct List {
    /// The sequence node (or whatever node the field holds, when it is not a sequence).
    pub node: NodeId,
    /// The field's key node.
    pub key: NodeId,
    pub path: String,
    /// The object the list is in (an index in [`Extracted::objects`]); `None` in a document
    /// that is no Kubernetes object (a chart's `values.yaml`, say), which does not say what its
    /// lists render into, a Pod's spec, a DaemonSet's or something else.
    pub object: Option<usize>,
    /// Its items are read from a string whose characters cannot be pointed at one by one (a
    /// block scalar, an escape in a quoted string): findings point at the whole string, and
    /// carry no fix.
    pub whole: bool,
}

#[derive(Debug, Clone)]
pub struct TolerationList {
    pub list: List,
    pub owner: Owner,
}

#[derive(Debug, Default)]
pub struct Extracted<'d> {
    pub objects: Vec<Object<'d>>,
    pub pod_specs: Vec<PodSpec>,
    pub tolerations: Vec<TolerationList>,
    pub taints: Vec<List>,
    /// What makes pods but is not simulated, each with why.
    pub skipped: Vec<Skipped>,
    /// Chart values of a workload that the values switch off (`enabled: false`): their paths,
    /// and the key that says so.
    pub switched_off: Vec<(String, &'static str)>,
    /// The sequences already in `tolerations` (a list is found once, by the first way to it).
    listed: HashSet<NodeId>,
    /// Pod specs whose `tolerations` list is another's too (templates that alias one
    /// mapping): linted once, under the first, and read by each ([`Extracted::pod_tolerations`]).
    shared: Vec<(usize, List)>,
}

impl Extracted<'_> {
    /// The `tolerations` list of the pod spec `spec` (an index in [`Extracted::pod_specs`]).
    pub fn pod_tolerations(&self, spec: usize) -> Option<&List> {
        self.tolerations
            .iter()
            .find(|t| t.owner == Owner::PodSpec(spec))
            .map(|t| &t.list)
            .or_else(|| self.shared.iter().find(|(s, _)| *s == spec).map(|(_, l)| l))
    }
}

/// The path from an object to its pod spec, by kind.
pub fn pod_spec_path(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "Pod" => &["spec"],
        "PodTemplate" => &["template", "spec"],
        "Deployment"
        | "StatefulSet"
        | "DaemonSet"
        | "ReplicaSet"
        | "ReplicationController"
        | "Job" => &["spec", "template", "spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => return None,
    })
}

/// Whether an object of `kind` is a core workload (a Pod, a Deployment, ...: [`pod_spec_path`])
/// of the API group that defines that kind. A custom resource may take a core kind's name
/// (Volcano's `Job` and `CronJob`, of `batch.volcano.sh`), and is not one; an object written
/// without `apiVersion` is taken for what its kind says.
pub fn is_core_workload(api_version: Option<&str>, kind: &str) -> bool {
    pod_spec_path(kind).is_some()
        && matches!(
            api_group(api_version),
            None | Some("apps" | "batch" | "extensions")
        )
}

fn join(base: &str, segment: &str) -> String {
    if base.is_empty() {
        segment.to_string()
    } else if segment.starts_with('[') {
        format!("{base}{segment}")
    } else {
        format!("{base}.{segment}")
    }
}

/// A mapping key as a path segment: `.name`, or `[key]` when it is not a plain field name.
fn key_segment(key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'$');
    if plain {
        key.to_string()
    } else {
        format!("[{key}]")
    }
}

pub fn extract<'d>(doc: &'d Document<'_>) -> Extracted<'d> {
    extract_with(doc, None)
}

/// [`extract`], with what a chart's templates render a values file into (`chart`: the values
/// file of a chart in the repository). A document without a `kind` is taken for chart values:
/// the mappings the chart renders into a workload's pod spec, and those that hold `tolerations`
/// beside `nodeSelector`, `affinity` or `resources` (a workload of unknown kind), are pod specs.
pub fn extract_with<'d>(doc: &'d Document<'_>, chart: Option<&ChartKinds>) -> Extracted<'d> {
    extract_known(doc, chart, None)
}

/// [`extract_with`], with what the CustomResourceDefinitions read (`crds`) say of where their
/// kinds keep pod specs, tolerations and taints: for a custom resource whose CRD serves its
/// version, the CRD's schema decides, and taintlint's own table of custom workloads
/// ([`crate::k8s::workloads::CUSTOM_WORKLOADS`]) and the search by shape are for the kinds whose
/// CRD is not at hand.
pub fn extract_known<'d>(
    doc: &'d Document<'_>,
    chart: Option<&ChartKinds>,
    crds: Option<&CrdKinds>,
) -> Extracted<'d> {
    let mut out = Extracted::default();
    let Some(root) = doc.root else { return out };
    let root_kind = doc.get_str(root, "kind");
    let is_list = root_kind.is_some_and(|k| k.ends_with("List"))
        && doc
            .get(root, "items")
            .is_some_and(|(_, v)| doc.sequence(v).is_some());
    if is_list {
        let (_, items) = doc.get(root, "items").expect("checked above");
        let items = doc.sequence(items).unwrap_or_default().to_vec();
        for (i, item) in items.into_iter().enumerate() {
            if doc.mapping(item).is_some() {
                add_object(doc, &mut out, item, format!("items[{i}]"), Some(i), crds);
            }
        }
    } else if doc.mapping(root).is_some() {
        if root_kind.is_some() {
            add_object(doc, &mut out, root, String::new(), None, crds);
        } else {
            // A helm-unittest suite's `set:` values are what a test sets, to assert what the
            // chart renders of them: no workload runs them. Their lists are linted all the same.
            if !is_helm_unittest_suite(doc, root) {
                let values = Values {
                    chart,
                    namespace: None,
                    item: None,
                    installer: None,
                };
                values_workloads(doc, &mut out, root, "", &values);
            }
            walk_tolerations(doc, &mut out, root, String::new(), None);
        }
    }
    out
}

/// Whether a document is a helm-unittest test suite (helm-unittest/helm-unittest
/// `DOCUMENT.md`: `suite`, `templates`, and `tests`, each test a mapping with `it` and
/// `asserts`), as charts keep them in their `tests/` (kuberay's
/// `helm-chart/ray-cluster/tests/raycluster_test.yaml` sets `head.tolerations` beside
/// `head.nodeSelector`).
fn is_helm_unittest_suite(doc: &Document<'_>, root: NodeId) -> bool {
    let Some((_, tests)) = doc.get(root, "tests") else {
        return false;
    };
    let tests = doc.sequence(tests).unwrap_or_default();
    (doc.get(root, "suite").is_some() || doc.get(root, "templates").is_some())
        && !tests.is_empty()
        && tests.iter().all(|&t| {
            doc.mapping(t).is_some()
                && (doc.get(t, "it").is_some() || doc.get(t, "asserts").is_some())
        })
}

fn add_object<'d>(
    doc: &'d Document<'_>,
    out: &mut Extracted<'d>,
    node: NodeId,
    path: String,
    item: Option<usize>,
    crds: Option<&CrdKinds>,
) {
    let metadata = doc.get(node, "metadata").map(|(_, v)| v);
    let object = Object {
        kind: doc.get_str(node, "kind"),
        name: metadata.and_then(|m| doc.get_str(m, "name")),
        namespace: metadata.and_then(|m| doc.get_str(m, "namespace")),
        node,
        path: path.clone(),
        item,
        installer: None,
    };
    let index = out.objects.len();
    let kind = object.kind;
    out.objects.push(object);

    match kind {
        Some("RuntimeClass") => {
            if let Some((scheduling_key, scheduling)) = doc.get(node, "scheduling") {
                let _ = scheduling_key;
                if let Some((key, value)) = doc.get(scheduling, "tolerations") {
                    let list = List {
                        whole: false,
                        node: value,
                        key,
                        path: join(&join(&path, "scheduling"), "tolerations"),
                        object: Some(index),
                    };
                    push_tolerations(out, list, Owner::RuntimeClass);
                }
            }
        }
        Some("Cluster") if api_group(doc.get_str(node, "apiVersion")) == Some(CAPI) => {
            for pattern in TOPOLOGY_TAINTS {
                let (parent, _) = pattern.rsplit_once('.').expect("a path with a parent");
                for (at, at_path) in resolve(doc, node, &path, parent) {
                    if let Some((key, value)) = doc.get(at, "taints") {
                        out.taints.push(List {
                            whole: false,
                            node: value,
                            key,
                            path: join(&at_path, "taints"),
                            object: Some(index),
                        });
                    }
                }
            }
        }
        Some(kind) if is_feature_rule(doc.get_str(node, "apiVersion"), Some(kind)) => {
            for (at, at_path) in resolve(doc, node, &path, "spec.rules[]") {
                if let Some((key, value)) = doc.get(at, "taints") {
                    out.taints.push(List {
                        whole: false,
                        node: value,
                        key,
                        path: join(&at_path, "taints"),
                        object: Some(index),
                    });
                }
            }
        }
        Some(kind) if pool_taint_paths(doc.get_str(node, "apiVersion"), kind).is_some() => {
            let api_version = doc.get_str(node, "apiVersion");
            for field in pool_taint_paths(api_version, kind).unwrap_or_default() {
                if let Some(list) = taint_list_at(doc, node, &path, field.path, Some(index)) {
                    out.taints.push(list);
                }
            }
        }
        Some(kind) => {
            let api_version = doc.get_str(node, "apiVersion");
            let group = api_group(api_version);
            let schema = crds.and_then(|c| c.places(api_version, kind));
            // A custom resource's kind may be a core kind's name (Volcano's `Job`): the group
            // tells them apart.
            if let Some(row) = custom_workload(api_version, kind) {
                add_pods(doc, out, index, node, &path, row.pods);
                for pattern in row.objects {
                    for (at, at_path) in resolve(doc, node, &path, pattern) {
                        add_embedded(doc, out, index, at, at_path, crds);
                    }
                }
                // The table knows where its pods are and what goes into them; a CRD at hand
                // adds the toleration and taint lists its schema shows.
                if let Some(places) = schema {
                    add_schema_lists(doc, out, index, node, &path, places);
                }
            } else if let Some(places) = schema {
                add_schema_places(doc, out, index, node, &path, places);
            } else if is_core_workload(api_version, kind) {
                if let Some((at, spec_path)) = core_pod_spec(doc, node, &path, kind) {
                    add_pod_spec(doc, out, index, at, spec_path, false);
                }
            } else if let Some(places) = values_places(group, kind) {
                let mut values = Values {
                    chart: None,
                    namespace: installed_in(doc, node),
                    item,
                    installer: None,
                };
                let app_template = is_app_template(doc, node);
                for pattern in places {
                    for (at, values_path) in resolve(doc, node, &path, pattern) {
                        if app_template || common_library_shape(doc, at) {
                            let release = metadata.and_then(|m| doc.get_str(m, "name"));
                            app_template_workloads(doc, out, at, &values_path, &values, release);
                        } else {
                            values.installer = Some(Installer {
                                kind,
                                namespace: metadata.and_then(|m| doc.get_str(m, "namespace")),
                                name: metadata.and_then(|m| doc.get_str(m, "name")),
                                values: values_path.clone(),
                            });
                            values_workloads(doc, out, at, &values_path, &values);
                        }
                    }
                }
            } else if !NOT_WORKLOADS.contains(&group.unwrap_or_default()) {
                add_by_shape(doc, out, index, node, &path);
            }
        }
        None => {}
    }
    walk_tolerations(doc, out, node, path, Some(index));
}

/// The pod spec of a core workload of `kind` (a Deployment's `spec.template.spec`), if it is
/// there.
fn core_pod_spec(
    doc: &Document<'_>,
    node: NodeId,
    path: &str,
    kind: &str,
) -> Option<(NodeId, String)> {
    let mut at = node;
    let mut spec_path = path.to_string();
    for segment in pod_spec_path(kind)? {
        let (_, v) = doc.get(at, segment)?;
        doc.mapping(v)?;
        at = v;
        spec_path = join(&spec_path, segment);
    }
    Some((at, spec_path))
}

/// API groups whose objects hold pod-shaped mappings that are no pods: Kyverno's policies
/// match and patch pods with them (kyverno/kyverno api/kyverno/v1/common_types.go
/// `Validation.RawPattern`, `Mutation.RawPatchStrategicMerge`). A CustomResourceDefinition's
/// schema describes pod specs without holding one, and is the largest object a repository has:
/// it is not walked for them.
const NOT_WORKLOADS: &[&str] = &["kyverno.io", "policies.kyverno.io", "apiextensions.k8s.io"];

/// The pod specs of an object that another wraps (an AppWrapper's component): where its kind
/// keeps them, else found by their shape. They belong to the wrapping object `object`.
fn add_embedded(
    doc: &Document<'_>,
    out: &mut Extracted<'_>,
    object: usize,
    node: NodeId,
    path: String,
    crds: Option<&CrdKinds>,
) {
    let api_version = doc.get_str(node, "apiVersion");
    let kind = doc.get_str(node, "kind").unwrap_or_default();
    if let Some(row) = custom_workload(api_version, kind) {
        add_pods(doc, out, object, node, &path, row.pods);
    } else if let Some(places) = crds.and_then(|c| c.places(api_version, kind)) {
        add_schema_places(doc, out, object, node, &path, places);
    } else if let Some((at, spec_path)) =
        core_pod_spec(doc, node, &path, kind).filter(|_| is_core_workload(api_version, kind))
    {
        add_pod_spec(doc, out, object, at, spec_path, false);
    } else {
        add_by_shape(doc, out, object, node, &path);
    }
}

/// The pod specs, toleration lists and taint lists of an object (of the object `object`, an
/// index in [`Extracted::objects`]) where its kind's CRD says they are.
fn add_schema_places(
    doc: &Document<'_>,
    out: &mut Extracted<'_>,
    object: usize,
    node: NodeId,
    path: &str,
    places: &Places,
) {
    for pattern in &places.pod_specs {
        for (at, spec_path) in resolve(doc, node, path, pattern) {
            add_pod_spec(doc, out, object, at, spec_path, false);
        }
    }
    add_schema_lists(doc, out, object, node, path, places);
}

/// The toleration lists and taint lists of an object where its kind's CRD says they are.
fn add_schema_lists(
    doc: &Document<'_>,
    out: &mut Extracted<'_>,
    object: usize,
    node: NodeId,
    path: &str,
    places: &Places,
) {
    // A list's place is its parent's, and the field.
    let lists = |pattern: &str| -> Vec<List> {
        let (parent, field) = match pattern.rsplit_once('.') {
            Some((parent, field)) => (Some(parent), field),
            None => (None, pattern),
        };
        let parents = match parent {
            Some(parent) => resolve(doc, node, path, parent),
            None => vec![(node, path.to_string())],
        };
        parents
            .into_iter()
            .filter_map(|(at, at_path)| {
                let (key, value) = doc.get(at, field)?;
                Some(List {
                    whole: false,
                    node: value,
                    key,
                    path: join(&at_path, field),
                    object: Some(object),
                })
            })
            .collect()
    };
    for pattern in &places.tolerations {
        for list in lists(pattern) {
            push_tolerations(out, list, Owner::Other);
        }
    }
    for pattern in &places.taints {
        out.taints.extend(lists(pattern));
    }
}

/// Whether a mapping is shaped like a pod spec: a `containers` list of mappings, each with a
/// `name` or an `image`.
pub fn is_pod_spec_shape(doc: &Document<'_>, node: NodeId) -> bool {
    let Some((_, containers)) = doc.get(node, "containers") else {
        return false;
    };
    let Some(items) = doc.sequence(containers) else {
        return false;
    };
    !items.is_empty()
        && items.iter().all(|&c| {
            doc.mapping(c).is_some()
                && (doc.get(c, "name").is_some() || doc.get(c, "image").is_some())
        })
}

/// The pod specs of an object of a kind the table does not know, found by their shape
/// ([`is_pod_spec_shape`]) anywhere under it (not inside one found: a pod spec holds none).
fn add_by_shape(
    doc: &Document<'_>,
    out: &mut Extracted<'_>,
    object: usize,
    node: NodeId,
    path: &str,
) {
    let mut stack = vec![(node, path.to_string())];
    while let Some((n, p)) = stack.pop() {
        if let Some(entries) = doc.mapping(n) {
            if n != node && is_pod_spec_shape(doc, n) {
                add_pod_spec(doc, out, object, n, p, true);
                continue;
            }
            for &(k, v) in entries.iter().rev() {
                if let Some((key, _)) = doc.scalar(k) {
                    if is_collection(doc, v) {
                        stack.push((v, join(&p, &key_segment(key))));
                    }
                }
            }
        } else if let Some(items) = doc.sequence(n) {
            for (i, &item) in items.iter().enumerate().rev() {
                if is_collection(doc, item) {
                    stack.push((item, format!("{p}[{i}]")));
                }
            }
        }
    }
}

/// Records a pod spec of the object `object` (an index in [`Extracted::objects`]) and its
/// `tolerations` list; `by_shape` when it was found by its shape, in a kind the table does not
/// know.
fn add_pod_spec(
    doc: &Document<'_>,
    out: &mut Extracted<'_>,
    object: usize,
    at: NodeId,
    spec_path: String,
    by_shape: bool,
) {
    push_pod(
        doc,
        out,
        PodSpec {
            object,
            node: at,
            path: spec_path,
            by_shape,
            fields: true,
            requests: PodRequests::PodSpec,
            selector: None,
            partly: None,
        },
    );
}

/// Records a pod spec and, when it holds its pod fields, its `tolerations` list.
fn push_pod(doc: &Document<'_>, out: &mut Extracted<'_>, pod: PodSpec) {
    let spec_index = out.pod_specs.len();
    if let Some((key, value)) = doc.get(pod.node, "tolerations").filter(|_| pod.fields) {
        let list = List {
            whole: false,
            node: value,
            key,
            path: join(&pod.path, "tolerations"),
            object: Some(pod.object),
        };
        if out.listed.contains(&value) {
            out.shared.push((spec_index, list));
        } else {
            push_tolerations(out, list, Owner::PodSpec(spec_index));
        }
    }
    out.pod_specs.push(pod);
}

/// The mapping at a plain path (`topicOperator.resources`) under `node`.
fn mapping_at(doc: &Document<'_>, node: NodeId, path: &str) -> Option<NodeId> {
    let keys: Vec<&str> = path.split('.').collect();
    doc.get_path(node, &keys)
        .filter(|&v| doc.mapping(v).is_some())
}

/// The pods a custom resource makes, where its row of the table says (see [`Pods`]): each
/// component's pod fields, and what the resource keeps for the pods outside them.
fn add_pods(
    doc: &Document<'_>,
    out: &mut Extracted<'_>,
    object: usize,
    node: NodeId,
    path: &str,
    pods: &[Pods],
) {
    for p in pods {
        if let Requests::Trainer { resources } = p.requests {
            add_trainjob(doc, out, object, node, path, p, resources);
            continue;
        }
        let selector = p
            .selector
            .and_then(|s| resolve(doc, node, path, s).into_iter().next())
            .map(|(n, _)| n);
        for (component, component_path) in resolve(doc, node, path, p.at) {
            let fields = if p.spec.is_empty() {
                Some((component, component_path.clone()))
            } else {
                resolve(doc, component, &component_path, p.spec)
                    .into_iter()
                    .next()
            };
            let (at, spec_path, has_fields) = match (fields, p.absent) {
                (Some((at, spec_path)), _) => (at, spec_path, true),
                (None, Absent::Component) => (component, component_path.clone(), false),
                (None, Absent::Nothing) => continue,
                (None, Absent::Said) => {
                    out.skipped.push(Skipped {
                        object,
                        path: component_path.clone(),
                        why: format!(
                            "it has no `{}`, the pod template its pods are made from",
                            p.spec
                        ),
                    });
                    continue;
                }
            };
            let requests = match p.requests {
                Requests::PodSpec => PodRequests::PodSpec,
                Requests::Containers(paths) => PodRequests::Containers {
                    resources: paths
                        .iter()
                        .filter_map(|r| mapping_at(doc, component, r))
                        .collect(),
                    replace_first: false,
                    pod_level: false,
                },
                Requests::Implementation { replace, join } => {
                    let written =
                        |names: &[&str]| names.iter().find_map(|n| mapping_at(doc, component, n));
                    let container = |c: NodeId| mapping_at(doc, c, "resources");
                    match (written(join), written(replace)) {
                        (Some(c), _) => PodRequests::Containers {
                            resources: container(c).into_iter().collect(),
                            replace_first: false,
                            pod_level: true,
                        },
                        (None, Some(c)) => PodRequests::Containers {
                            resources: container(c).into_iter().collect(),
                            replace_first: true,
                            pod_level: true,
                        },
                        (None, None) => PodRequests::PodSpec,
                    }
                }
                Requests::Spark {
                    application,
                    executor,
                } => PodRequests::Spark {
                    application: resolve(doc, node, path, application)
                        .into_iter()
                        .next()
                        .map(|(n, _)| n),
                    executor,
                },
                Requests::Trainer { .. } => unreachable!("handled above"),
            };
            let partly = partly(doc, p, component, has_fields);
            push_pod(
                doc,
                out,
                PodSpec {
                    object,
                    node: at,
                    path: spec_path,
                    by_shape: false,
                    fields: has_fields,
                    requests,
                    selector,
                    partly,
                },
            );
        }
    }
}

/// What a component's pods get from elsewhere, not at hand, in words.
fn partly(doc: &Document<'_>, p: &Pods, component: NodeId, has_fields: bool) -> Option<String> {
    match p.requests {
        // spark-operator api/v1beta2 SparkPodSpec.Template: the pod template Spark starts
        // from, its own settings applied over it (Spark 3.0's pod template files).
        Requests::Spark { .. } if mapping_at(doc, component, "template").is_some() => Some(
            "its `template`, the pod Spark starts from, is not merged with the rest".to_string(),
        ),
        // A KafkaNodePool that leaves out `resources` or `template` takes its Kafka's
        // `spec.kafka` ones (strimzi cluster-operator model/KafkaPool.java).
        Requests::Containers(_)
            if p.absent == Absent::Component
                && p.at == "spec"
                && doc.get(component, "roles").is_some()
                && (!has_fields || mapping_at(doc, component, "resources").is_none()) =>
        {
            Some(
                "what it leaves out (`resources`, `template.pod`) is its Kafka's `spec.kafka`"
                    .to_string(),
            )
        }
        _ => None,
    }
}

/// A Kubeflow TrainJob's pods: the trainer's, sized by `spec.trainer.resourcesPerNode`
/// (`resources`, from the component `spec`) with the pod fields of the runtime override or
/// patch that names the trainer's job ([`TRAINER_JOB`]); and, for each override or patch that
/// names only other jobs (the initializers), those jobs' pods. All are their runtime's pods,
/// changed: the runtime's own template is read where it is (a TrainingRuntime is a workload of
/// its own).
fn add_trainjob(
    doc: &Document<'_>,
    out: &mut Extracted<'_>,
    object: usize,
    node: NodeId,
    path: &str,
    p: &Pods,
    resources: &str,
) {
    let Some((component, component_path)) = resolve(doc, node, path, p.at).into_iter().next()
    else {
        return;
    };
    let runtime = doc
        .get_path(component, &["runtimeRef", "name"])
        .and_then(|n| doc.scalar(n))
        .map(|(n, _)| n);
    let partly = Some(match runtime {
        Some(name) => format!("the rest is its runtime's pod template (runtimeRef {name})"),
        None => "the rest is its runtime's pod template".to_string(),
    });
    // Each override or patch: its pod fields, and whether it names the trainer's job.
    let mut entries: Vec<(NodeId, String, bool)> = Vec::new();
    for &(items, spec, names) in TRAINER_OVERRIDES {
        for (item, item_path) in resolve(doc, node, path, items) {
            let (parent, field) = match names.rsplit_once('.') {
                Some((parent, field)) => (Some(parent), field),
                None => (None, names),
            };
            let named: Vec<&str> = match parent {
                Some(parent) => resolve(doc, item, "", parent),
                None => vec![(item, String::new())],
            }
            .into_iter()
            .filter_map(|(n, _)| doc.get_str(n, field))
            .collect();
            let fields = if spec.is_empty() {
                Some((item, item_path))
            } else {
                resolve(doc, item, &item_path, spec).into_iter().next()
            };
            if let Some((at, at_path)) = fields {
                entries.push((at, at_path, named.contains(&TRAINER_JOB)));
            }
        }
    }
    // One override or patch of the trainer's pods is theirs (the first); without one, the
    // trainer's own fields are the trainer's pods' place.
    let mut seen = false;
    entries.retain(|e| {
        let keep = !(e.2 && seen);
        seen |= e.2;
        keep
    });
    let mut trainer_at = entries.iter().position(|e| e.2);
    let declared = mapping_at(doc, component, "trainer");
    if trainer_at.is_none() {
        match declared {
            Some(t) => {
                entries.push((t, join(&component_path, "trainer"), true));
                trainer_at = Some(entries.len() - 1);
            }
            None if entries.is_empty() => {
                out.skipped.push(Skipped {
                    object,
                    path: component_path,
                    why: format!(
                        "{}, not at hand: neither `trainer` nor a runtime override names its \
                         trainer",
                        match runtime {
                            Some(name) => format!("its pods are its runtime's (runtimeRef {name})"),
                            None => "its pods are its runtime's".to_string(),
                        }
                    ),
                });
                return;
            }
            None => {}
        }
    }
    let trainer = trainer_at.map(|i| entries[i].0);
    let resources: Vec<NodeId> = mapping_at(doc, component, resources).into_iter().collect();
    entries.sort_by_key(|e| doc.node(e.0).span.start);
    for (at, spec_path, _) in entries {
        let is_trainer = Some(at) == trainer;
        push_pod(
            doc,
            out,
            PodSpec {
                object,
                node: at,
                path: spec_path,
                by_shape: false,
                // The trainer's own fields (`spec.trainer`) are no pod fields.
                fields: !(is_trainer && Some(at) == declared),
                requests: if is_trainer {
                    PodRequests::Containers {
                        resources: resources.clone(),
                        replace_first: false,
                        pod_level: false,
                    }
                } else {
                    PodRequests::PodSpec
                },
                selector: None,
                partly: partly.clone(),
            },
        );
    }
}

/// The mappings at a path of [`CUSTOM_WORKLOADS`](crate::k8s::workloads::CUSTOM_WORKLOADS)'s
/// form under `node` (`a.b[].c`, `*` for every value of a mapping), with their paths.
pub fn resolve(
    doc: &Document<'_>,
    node: NodeId,
    base: &str,
    pattern: &str,
) -> Vec<(NodeId, String)> {
    let mut at = vec![(node, base.to_string())];
    for segment in pattern.split('.') {
        let mut next = Vec::new();
        for (n, p) in at {
            if segment == "*" {
                for &(k, v) in doc.mapping(n).unwrap_or_default() {
                    if let (Some((key, _)), Some(_)) = (doc.scalar(k), doc.mapping(v)) {
                        next.push((v, join(&p, &key_segment(key))));
                    }
                }
            } else if let Some(name) = segment.strip_suffix("[]") {
                let Some((_, v)) = doc.get(n, name) else {
                    continue;
                };
                let p = join(&p, name);
                for (i, &item) in doc.sequence(v).unwrap_or_default().iter().enumerate() {
                    if doc.mapping(item).is_some() {
                        next.push((item, format!("{p}[{i}]")));
                    }
                }
            } else if let Some((_, v)) = doc
                .get(n, segment)
                .filter(|&(_, v)| doc.mapping(v).is_some())
            {
                next.push((v, join(&p, segment)));
            }
        }
        at = next;
    }
    at
}

/// Where objects that install a chart keep the chart's values, by API group and kind: a Flux
/// HelmRelease's `spec.values` (fluxcd/helm-controller api/v2/helmrelease_types.go
/// `HelmReleaseSpec.Values`), an Argo CD Application's `helm.valuesObject` of its source or
/// sources (argoproj/argo-cd pkg/apis/application/v1alpha1/types.go
/// `ApplicationSourceHelm.ValuesObject`). The chart is not in the repository: its workloads
/// are of unknown kind.
fn values_places(group: Option<&str>, kind: &str) -> Option<&'static [&'static str]> {
    match (group, kind) {
        (Some("helm.toolkit.fluxcd.io"), "HelmRelease") => Some(&["spec.values"]),
        (Some("argoproj.io"), "Application") => Some(&[
            "spec.source.helm.valuesObject",
            "spec.sources[].helm.valuesObject",
        ]),
        _ => None,
    }
}

/// The namespace an object that installs a chart installs it in: a HelmRelease's
/// `spec.targetNamespace` (fluxcd/helm-controller api/v2/helmrelease_types.go), an Argo CD
/// Application's `spec.destination.namespace` (argoproj/argo-cd
/// pkg/apis/application/v1alpha1/types.go `ApplicationDestination.Namespace`), else its own.
pub fn installed_in<'d>(doc: &'d Document<'_>, node: NodeId) -> Option<&'d str> {
    let at = |path: &[&str]| {
        doc.get_path(node, path)
            .and_then(|v| doc.scalar(v).map(|(s, _)| s))
    };
    at(&["spec", "targetNamespace"])
        .or_else(|| at(&["spec", "destination", "namespace"]))
        .or_else(|| at(&["metadata", "namespace"]))
}

/// Whether the field at `path` (from the document root) lies in the chart values an object of
/// the document keeps for a chart it installs (a Flux HelmRelease's `spec.values`, an Argo CD
/// Application's `helm.valuesObject`: `values_places`), where the chart, and so the kind of
/// the workload the values render into, is not in the repository.
pub fn in_chart_values(doc: &Document<'_>, path: &str) -> bool {
    let Some(root) = doc.root else { return false };
    let (object, base) = match path
        .strip_prefix("items[")
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(i, _)| i.parse::<usize>().ok())
    {
        Some(i) => {
            let Some(item) = doc
                .get(root, "items")
                .and_then(|(_, v)| doc.sequence(v)?.get(i).copied())
            else {
                return false;
            };
            (item, format!("items[{i}]"))
        }
        None => (root, String::new()),
    };
    let group = api_group(doc.get_str(object, "apiVersion"));
    let Some(kind) = doc.get_str(object, "kind") else {
        return false;
    };
    values_places(group, kind)
        .unwrap_or_default()
        .iter()
        .flat_map(|pattern| resolve(doc, object, &base, pattern))
        .any(|(_, at)| {
            path.strip_prefix(&at)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
}

/// What is known of a values mapping's workloads.
struct Values<'c, 'd> {
    /// What the chart's templates render the values into.
    chart: Option<&'c ChartKinds>,
    /// The namespace the chart is installed in, when the object that installs it says.
    namespace: Option<&'d str>,
    /// The index inside a `kind: List` of the object that holds the values.
    item: Option<usize>,
    /// The object that holds the values, when one installs the chart.
    installer: Option<Installer<'d>>,
}

/// The workloads of chart values under `node` (at `path`): each is an object of its own (its
/// kind as the chart's templates say, else none), whose pod spec is the values mapping.
fn values_workloads<'d>(
    doc: &'d Document<'_>,
    out: &mut Extracted<'d>,
    node: NodeId,
    path: &str,
    values: &Values<'_, 'd>,
) {
    let mut found: Vec<(NodeId, String, Option<&'static str>)> = Vec::new();
    for (values_path, kind) in values
        .chart
        .map(|c| c.workloads.as_slice())
        .unwrap_or_default()
    {
        let at = if values_path.is_empty() {
            Some(node)
        } else {
            let keys: Vec<&str> = values_path.split('.').collect();
            doc.get_path(node, &keys)
        };
        if let Some(at) = at.filter(|&a| doc.mapping(a).is_some()) {
            let p = values_path
                .split('.')
                .filter(|s| !s.is_empty())
                .fold(path.to_string(), |acc, k| join(&acc, &key_segment(k)));
            found.push((at, p, *kind));
        }
    }
    // Mappings shaped like a workload's pod fields, that no template names.
    let mut stack = vec![(node, path.to_string())];
    while let Some((n, p)) = stack.pop() {
        let Some(entries) = doc.mapping(n) else {
            if let Some(items) = doc.sequence(n) {
                for (i, &item) in items.iter().enumerate().rev() {
                    stack.push((item, format!("{p}[{i}]")));
                }
            }
            continue;
        };
        let has = |name: &str| doc.get(n, name).is_some();
        let pod_fields = doc
            .get(n, "tolerations")
            .is_some_and(|(_, v)| doc.sequence(v).is_some())
            && PLACEMENT_FIELDS.iter().any(|f| has(f));
        if pod_fields && !found.iter().any(|(at, _, _)| *at == n) {
            found.push((n, p.clone(), None));
        }
        for &(k, v) in entries.iter().rev() {
            let Some((key, _)) = doc.scalar(k) else {
                continue;
            };
            if pod_fields && (key == "tolerations" || PLACEMENT_FIELDS.contains(&key)) {
                continue;
            }
            if is_collection(doc, v) {
                stack.push((v, join(&p, &key_segment(key))));
            }
        }
    }
    // Helm's `global` values are shared with every subchart, no workload's own; a component
    // these values switch off (`enabled: false`, `enable: false`) renders nothing.
    found.retain(|(at, p, _)| {
        let global = *at != node && p.strip_prefix(path).is_some_and(is_global);
        let off = switched_off(doc, *at);
        if let (Some(key), false) = (off, global) {
            out.switched_off.push((p.clone(), key));
        }
        !global && off.is_none()
    });
    found.sort_by_key(|(at, _, _)| doc.node(*at).span.start);
    for (at, p, kind) in found {
        let index = out.objects.len();
        out.objects.push(Object {
            kind,
            name: None,
            namespace: values.namespace,
            node: at,
            path: p.clone(),
            item: values.item,
            installer: kind.is_none().then(|| values.installer.clone()).flatten(),
        });
        // A chart renders `resources` into its container (`{{ toYaml .Values.resources }}`
        // under `containers[]`), not into the pod's own.
        let resources = mapping_at(doc, at, "resources").into_iter().collect();
        push_pod(
            doc,
            out,
            PodSpec {
                object: index,
                node: at,
                path: p,
                by_shape: false,
                fields: true,
                requests: PodRequests::Containers {
                    resources,
                    replace_first: false,
                    pod_level: false,
                },
                selector: None,
                partly: None,
            },
        );
    }
}

/// Whether an object that installs a chart (a HelmRelease, an Argo CD Application) installs
/// bjw-s' `app-template` (bjw-s-labs/helm-charts charts/other/app-template), by the chart's
/// name: a HelmRelease's `spec.chart.spec.chart`, or the `spec.chartRef` it names (an
/// OCIRepository of that name, as `oci://ghcr.io/bjw-s-labs/helm/app-template`), an
/// Application's `spec.source.chart` or a `spec.sources[].chart`.
fn is_app_template(doc: &Document<'_>, node: NodeId) -> bool {
    const NAME: &str = "app-template";
    let at = |path: &[&str]| {
        doc.get_path(node, path)
            .and_then(|v| doc.scalar(v).map(|(s, _)| s))
            .is_some_and(|s| s == NAME)
    };
    at(&["spec", "chart", "spec", "chart"])
        || at(&["spec", "chartRef", "name"])
        || at(&["spec", "source", "chart"])
        || doc
            .get_path(node, &["spec", "sources"])
            .and_then(|v| doc.sequence(v))
            .is_some_and(|items| items.iter().any(|&i| doc.get_str(i, "chart") == Some(NAME)))
}

/// Whether a values path (after the values' own) is Helm's `global` or lies in it.
fn is_global(rest: &str) -> bool {
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    rest == "global" || rest.starts_with("global.")
}

/// Whether a values mapping switches its component off, and by which key: `enabled: false` or
/// `enable: false`, the conventions charts test with `{{- if .Values.<component>.enabled }}`.
fn switched_off(doc: &Document<'_>, at: NodeId) -> Option<&'static str> {
    ["enabled", "enable"].into_iter().find(|k| {
        doc.get(at, k)
            .and_then(|(_, v)| doc.scalar(v))
            .is_some_and(|(v, _)| v == "false")
    })
}

/// Whether chart values have the layout of bjw-s' common library, which `app-template` and the
/// charts built on it share: `controllers.<name>.containers` a mapping of containers by name
/// (a pod spec's `containers` is a list), each a mapping (a chart of its own may leave the
/// `image` to its defaults). A release that names its chart through an OCIRepository in
/// another file (`chartRef`) is known by it.
fn common_library_shape(doc: &Document<'_>, values: NodeId) -> bool {
    let Some((_, controllers)) = doc.get(values, "controllers") else {
        return false;
    };
    doc.mapping(controllers)
        .unwrap_or_default()
        .iter()
        .filter_map(|&(_, c)| doc.get(c, "containers"))
        .any(|(_, containers)| {
            doc.mapping(containers)
                .unwrap_or_default()
                .iter()
                .any(|&(_, container)| doc.mapping(container).is_some())
        })
}

/// The pod fields that decide where a pod lands.
const PLACED_BY: &[&str] = &[
    "nodeSelector",
    "affinity",
    "tolerations",
    "nodeName",
    "runtimeClassName",
    "priorityClassName",
    "resourceClaims",
    "topologySpreadConstraints",
];

/// The workloads of `app-template` values: each `controllers.<name>` makes one, of its `type`
/// (`deployment` when none is written; `statefulset`, `daemonset`, `cronjob`, `job`), whose pod
/// options are its `pod`, over the release's `defaultPodOptions`, and whose containers are its
/// `containers.<name>` and `initContainers.<name>`, each with its `resources`
/// (charts/library/common/values.yaml of bjw-s-labs/helm-charts, `controllers`,
/// `defaultPodOptions`; a controller with `enabled: false` makes nothing). Where both `pod`
/// and `defaultPodOptions` write pod options, the chart merges them key by key: the controller's
/// `pod` is read, and the workload is said read in part. The controller `main`, or the one named
/// as the `release` is, is named after the release, as the library names its objects; another
/// by its key.
fn app_template_workloads<'d>(
    doc: &'d Document<'_>,
    out: &mut Extracted<'d>,
    node: NodeId,
    path: &str,
    values: &Values<'_, 'd>,
    release: Option<&'d str>,
) {
    let Some((_, controllers)) = doc.get(node, "controllers") else {
        return;
    };
    let defaults = mapping_at(doc, node, "defaultPodOptions");
    for &(k, controller) in doc.mapping(controllers).unwrap_or_default() {
        let Some((name, _)) = doc.scalar(k) else {
            continue;
        };
        if doc.mapping(controller).is_none() || switched_off(doc, controller).is_some() {
            continue;
        }
        let kind = match doc.get_str(controller, "type").unwrap_or("deployment") {
            "deployment" => "Deployment",
            "statefulset" => "StatefulSet",
            "daemonset" => "DaemonSet",
            "cronjob" => "CronJob",
            "job" => "Job",
            _ => continue,
        };
        let controller_path = join(&join(path, "controllers"), &key_segment(name));
        let own = mapping_at(doc, controller, "pod");
        let (pod, pod_path) = match (own, defaults) {
            (Some(p), _) => (p, join(&controller_path, "pod")),
            (None, Some(d)) => (d, join(path, "defaultPodOptions")),
            (None, None) => (controller, controller_path.clone()),
        };
        // What the defaults would add to the controller's own pod options, of what decides
        // where the pods land.
        let merged: Vec<&str> = match (own, defaults) {
            (Some(own), Some(d)) => PLACED_BY
                .iter()
                .copied()
                .filter(|f| doc.get(d, f).is_some() && doc.get(own, f).is_none())
                .collect(),
            _ => Vec::new(),
        };
        let partly = (!merged.is_empty()).then(|| {
            format!(
                "the release's defaultPodOptions ({}), which the chart merges into the \
                 controller's pod options, are not read",
                merged.join(", ")
            )
        });
        let resources: Vec<NodeId> = ["containers", "initContainers"]
            .iter()
            .filter_map(|field| doc.get(controller, field))
            .flat_map(|(_, containers)| doc.mapping(containers).unwrap_or_default())
            .filter_map(|&(_, container)| mapping_at(doc, container, "resources"))
            .collect();
        let index = out.objects.len();
        let named = match release {
            Some(r) if name == "main" => r,
            _ => name,
        };
        out.objects.push(Object {
            kind: Some(kind),
            name: Some(named),
            namespace: values.namespace,
            node: controller,
            path: controller_path,
            item: values.item,
            installer: None,
        });
        push_pod(
            doc,
            out,
            PodSpec {
                object: index,
                node: pod,
                path: pod_path,
                by_shape: false,
                fields: own.is_some() || defaults.is_some(),
                requests: PodRequests::Containers {
                    resources,
                    replace_first: false,
                    pod_level: false,
                },
                selector: None,
                partly,
            },
        );
    }
}

/// A taint list of an object that defines nodes: where it is, and whether its taints are
/// startup taints (expected to be removed once the node is ready: they do not count for fit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaintField {
    pub path: &'static [&'static str],
    pub startup: bool,
}

const fn field(path: &'static [&'static str], startup: bool) -> TaintField {
    TaintField { path, startup }
}

/// Where the objects that define nodes keep their taints, by `apiVersion` group and `kind`:
/// a Node (`spec.taints`), a Karpenter NodePool (`karpenter.sh/v1` and `v1beta1`,
/// kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go and nodeclaim.go:
/// `spec.template.spec.taints` and `startupTaints`) and the v1alpha5 Provisioner
/// (pkg/apis/v1alpha5/provisioner.go: `spec.taints`, `spec.startupTaints`); an OpenShift
/// MachineSet (openshift/api machine/v1beta1/types_machine.go `MachineSpec.Taints`) and the
/// Cluster API MachineDeployment, MachineSet and MachinePool (kubernetes-sigs/cluster-api
/// api/core/v1beta2/machine_types.go `MachineSpec.Taints`): `spec.template.spec.taints`; and a
/// Cluster API KubeadmControlPlane's machines (`spec.machineTemplate.spec.taints`, the control
/// plane contract's `MachineTaint`s, docs/book/src/developer/providers/contracts/control-plane.md);
/// a Kueue ResourceFlavor's `spec.nodeTaints` (`corev1.Taint`s of the flavor's nodes:
/// kubernetes-sigs/kueue apis/kueue/v1beta1/resourceflavor_types.go, the same in v1beta2 and v1).
pub fn pool_taint_paths(api_version: Option<&str>, kind: &str) -> Option<&'static [TaintField]> {
    const NODE: &[TaintField] = &[field(&["spec", "taints"], false)];
    const NODEPOOL: &[TaintField] = &[
        field(&["spec", "template", "spec", "taints"], false),
        field(&["spec", "template", "spec", "startupTaints"], true),
    ];
    const PROVISIONER: &[TaintField] = &[
        field(&["spec", "taints"], false),
        field(&["spec", "startupTaints"], true),
    ];
    const MACHINES: &[TaintField] = &[field(&["spec", "template", "spec", "taints"], false)];
    const CONTROL_PLANE: &[TaintField] =
        &[field(&["spec", "machineTemplate", "spec", "taints"], false)];
    const FLAVOR: &[TaintField] = &[field(&["spec", "nodeTaints"], false)];
    let group = api_group(api_version);
    Some(match (group, kind) {
        (None, "Node") => NODE,
        (Some("karpenter.sh"), "NodePool") => NODEPOOL,
        (Some("karpenter.sh"), "Provisioner") => PROVISIONER,
        (Some("machine.openshift.io"), "MachineSet") => MACHINES,
        _ if is_capi_machine_set(group, kind) => MACHINES,
        (Some("controlplane.cluster.x-k8s.io"), "KubeadmControlPlane") => CONTROL_PLANE,
        (Some("kueue.x-k8s.io"), "ResourceFlavor") => FLAVOR,
        _ => return None,
    })
}

/// node-feature-discovery's API group.
pub const NFD: &str = "nfd.k8s-sigs.io";

/// Whether an object is a node-feature-discovery NodeFeatureRule, whose rules taint the nodes
/// they match (kubernetes-sigs/node-feature-discovery api/nfd/v1alpha1/types.go: `Rule.Taints`,
/// a `[]corev1.Taint`, at `spec.rules[].taints`). nfd-master drops a taint it does not take
/// with a log line (pkg/nfd-master/nfd-master.go `filterTaints`), and patches the others into
/// the Node.
pub fn is_feature_rule(api_version: Option<&str>, kind: Option<&str>) -> bool {
    api_group(api_version) == Some(NFD) && kind == Some("NodeFeatureRule")
}

/// Cluster API's core API group.
pub const CAPI: &str = "cluster.x-k8s.io";

/// Where a Cluster API Cluster with a managed topology keeps the taints of its control plane's
/// and its workers' machines (Cluster API v1.12 `MachineTaint`s: kubernetes-sigs/cluster-api
/// api/core/v1beta2/cluster_types.go `ControlPlaneTopology.Taints`,
/// `MachineDeploymentTopology.Taints`, `MachinePoolTopology.Taints`;
/// docs/proposals/20250513-propogate-taints.md), in the form of [`resolve`].
pub const TOPOLOGY_TAINTS: &[&str] = &[
    "spec.topology.controlPlane.taints",
    "spec.topology.workers.machineDeployments[].taints",
    "spec.topology.workers.machinePools[].taints",
];

/// The group of an `apiVersion` (`karpenter.sh` of `karpenter.sh/v1`); `None` for the core
/// group's `v1`.
pub fn api_group(api_version: Option<&str>) -> Option<&str> {
    api_version.and_then(|v| v.rsplit_once('/')).map(|(g, _)| g)
}

/// A Cluster API MachineDeployment, MachineSet or MachinePool.
fn is_capi_machine_set(group: Option<&str>, kind: &str) -> bool {
    group == Some("cluster.x-k8s.io")
        && matches!(kind, "MachineDeployment" | "MachineSet" | "MachinePool")
}

/// Whether an object's taint list at `list_path` holds Cluster API `MachineTaint`s (with
/// `propagation`, without `timeAdded`, and the Cluster API webhook's own rules:
/// kubernetes-sigs/cluster-api api/core/v1beta2/common_types.go): a machine set's or a
/// KubeadmControlPlane's machine taints, not the kubeadm `nodeRegistration` taints beside
/// them, which are a Node's.
pub fn holds_machine_taints(
    api_version: Option<&str>,
    kind: Option<&str>,
    list_path: &str,
) -> bool {
    let (group, kind) = (api_group(api_version), kind.unwrap_or_default());
    match (group, kind) {
        (Some("controlplane.cluster.x-k8s.io"), "KubeadmControlPlane") => {
            list_path.ends_with("machineTemplate.spec.taints")
        }
        (Some(CAPI), "Cluster") => list_path.starts_with("spec.topology."),
        _ => is_capi_machine_set(group, kind),
    }
}

/// The taint list at `segments` under an object, if the field is there.
pub fn taint_list_at(
    doc: &Document<'_>,
    object: NodeId,
    object_path: &str,
    segments: &[&str],
    index: Option<usize>,
) -> Option<List> {
    let (last, parents) = segments.split_last()?;
    let mut at = object;
    let mut path = object_path.to_string();
    for segment in parents {
        let (_, v) = doc.get(at, segment)?;
        doc.mapping(v)?;
        at = v;
        path = join(&path, segment);
    }
    let (key, value) = doc.get(at, last)?;
    Some(List {
        whole: false,
        node: value,
        key,
        path: join(&path, last),
        object: index,
    })
}

fn push_tolerations(out: &mut Extracted<'_>, list: List, owner: Owner) {
    if out.listed.insert(list.node) {
        out.tolerations.push(TolerationList { list, owner });
    }
}

/// One step of a path from the walk's root: a mapping key or a sequence index, after the step
/// at `parent` (an index into the walk's arena).
enum Step<'d> {
    Key(&'d str),
    Index(usize),
}

/// Finds every other `tolerations:` sequence of mappings under `node` (aliases are not
/// followed: their targets are walked where they are defined). Paths are kept as steps and only
/// written out for a list found, as almost every node walked is not one.
fn walk_tolerations<'d>(
    doc: &'d Document<'_>,
    out: &mut Extracted<'_>,
    node: NodeId,
    path: String,
    object: Option<usize>,
) {
    let mut steps: Vec<(Option<usize>, Step<'d>)> = Vec::new();
    let write = |steps: &[(Option<usize>, Step<'_>)], mut at: Option<usize>| -> String {
        let mut chain = Vec::new();
        while let Some(i) = at {
            chain.push(i);
            at = steps[i].0;
        }
        chain
            .iter()
            .rev()
            .fold(path.clone(), |acc, &i| match steps[i].1 {
                Step::Key(key) => join(&acc, &key_segment(key)),
                Step::Index(n) => format!("{acc}[{n}]"),
            })
    };
    // Iterative, so deep nesting cannot overflow the stack.
    let mut stack: Vec<(NodeId, Option<usize>)> = vec![(node, None)];
    while let Some((node, at)) = stack.pop() {
        match &doc.node(node).kind {
            NodeKind::Mapping { entries, .. } => {
                for &(k, v) in entries.iter().rev() {
                    let Some((key, _)) = doc.scalar(k) else {
                        continue;
                    };
                    if matches!(doc.node(v).kind, NodeKind::Alias { .. }) {
                        continue;
                    }
                    if is_tolerations_key(key) {
                        if let Some(items) = doc.sequence(v) {
                            if items.iter().all(|&i| doc.mapping(i).is_some())
                                && (key == "tolerations" || toleration_shaped(doc, items))
                            {
                                steps.push((at, Step::Key(key)));
                                let list = List {
                                    whole: false,
                                    node: v,
                                    key: k,
                                    path: write(&steps, Some(steps.len() - 1)),
                                    object,
                                };
                                push_tolerations(out, list, Owner::Other);
                                continue;
                            }
                        }
                    }
                    if is_collection(doc, v) {
                        steps.push((at, Step::Key(key)));
                        stack.push((v, Some(steps.len() - 1)));
                    }
                }
            }
            NodeKind::Sequence { items, .. } => {
                for (i, &item) in items.iter().enumerate().rev() {
                    if is_collection(doc, item) {
                        steps.push((at, Step::Index(i)));
                        stack.push((item, Some(steps.len() - 1)));
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether a mapping key names a toleration list: `tolerations`, or any key ending so, in any
/// case, as charts name theirs (`agent_tolerations`, `schedulerTolerations`,
/// `webhookTolerations`).
pub fn is_tolerations_key(key: &str) -> bool {
    key.len() >= "tolerations".len()
        && key.as_bytes()[key.len() - "tolerations".len()..].eq_ignore_ascii_case(b"tolerations")
}

/// The fields of a toleration (k8s.io/api/core/v1 types.go `Toleration`).
const TOLERATION_FIELDS: &[&str] = &["key", "operator", "value", "effect", "tolerationSeconds"];

/// Whether a list's items (mappings) look like tolerations: each has a toleration field, and
/// one has a `key`, an `operator` or an `effect`. A list under a key that only ends in
/// `tolerations` is linted as tolerations when it does.
fn toleration_shaped(doc: &Document<'_>, items: &[NodeId]) -> bool {
    let has = |i: NodeId, f: &str| doc.get(i, f).is_some();
    !items.is_empty()
        && items
            .iter()
            .all(|&i| TOLERATION_FIELDS.iter().any(|f| has(i, f)))
        && items
            .iter()
            .any(|&i| ["key", "operator", "effect"].iter().any(|f| has(i, f)))
}

fn is_collection(doc: &Document<'_>, id: NodeId) -> bool {
    matches!(
        doc.node(id).kind,
        NodeKind::Mapping { .. } | NodeKind::Sequence { .. }
    )
}

/// One field of a toleration or taint.
#[derive(Debug, Clone)]
pub struct Field<'d> {
    pub name: &'d str,
    pub key: NodeId,
    pub value: NodeId,
    pub decoded: Decoded<'d>,
}

/// One toleration or taint: a mapping item of a list, with its fields as the decoder sees them.
#[derive(Debug, Clone)]
pub struct Item<'d> {
    pub node: NodeId,
    pub index: usize,
    pub path: String,
    /// `None` when the item is not a mapping.
    pub fields: Option<Vec<Field<'d>>>,
}

impl<'d> Item<'d> {
    pub fn field(&self, name: &str) -> Option<&Field<'d>> {
        self.fields.as_ref()?.iter().find(|f| f.name == name)
    }

    /// The field's value as the API server reads a string field: `Some("")` when absent or
    /// null, `None` when it does not decode into a string at all.
    pub fn text(&self, name: &str) -> Option<&'d str> {
        match self.field(name).map(|f| &f.decoded) {
            None | Some(Decoded::Null) => Some(""),
            Some(Decoded::Str(s)) => Some(s),
            Some(_) => None,
        }
    }

    /// The field's string value; empty when absent, null or not a string.
    pub fn str(&self, name: &str) -> &'d str {
        match self.field(name).map(|f| &f.decoded) {
            Some(Decoded::Str(s)) => s,
            _ => "",
        }
    }

    /// The path of one of its fields.
    pub fn field_path(&self, name: &str) -> String {
        format!("{}.{name}", self.path)
    }

    /// The toleration as the API server would store it, if every field decodes and names a
    /// known operator and effect.
    pub fn toleration(&self) -> Option<Toleration> {
        if !self.decodes() {
            return None;
        }
        let effect = match self.str("effect") {
            "" => None,
            e => Some(Effect::parse(e)?),
        };
        Some(Toleration {
            key: self.str("key").to_string(),
            operator: Operator::parse(self.str("operator"))?,
            value: self.str("value").to_string(),
            effect,
            toleration_seconds: self
                .field("tolerationSeconds")
                .and_then(|f| f.decoded.as_int64().ok().flatten()),
        })
    }

    /// Whether every known field decodes into its Go type (strings, and an int64 for
    /// tolerationSeconds). Validation only runs on items that decode, as on the API server.
    pub fn decodes(&self) -> bool {
        let Some(fields) = &self.fields else {
            return false;
        };
        fields.iter().all(|f| match f.name {
            "key" | "operator" | "value" | "effect" | "timeAdded" => {
                matches!(f.decoded, Decoded::Str(_) | Decoded::Null)
            }
            "tolerationSeconds" => f.decoded.as_int64().is_ok(),
            _ => true,
        })
    }

    /// The taint as the API server would store it, if it is valid enough to match against.
    pub fn taint(&self) -> Option<Taint> {
        if !self.decodes() || self.str("key").is_empty() {
            return None;
        }
        Some(Taint {
            key: self.str("key").to_string(),
            value: self.str("value").to_string(),
            effect: Effect::parse(self.str("effect"))?,
        })
    }
}

/// Whether a string holds a Go template action (`{{ ... }}`): a value some program fills in
/// before the API server sees it (an Argo CD ApplicationSet with `goTemplate`, a Helm template
/// that parses as YAML, values passed through `tpl`).
fn holds_template_action(s: &str) -> bool {
    s.find("{{").is_some_and(|at| s[at + 2..].contains("}}"))
}

/// Whether a string is an operator's placeholder: `FILLED_BY_OPERATOR`, and the like in
/// capitals (`FILLED_BY_<WHO>`). An operator that ships its objects as assets keeps such a
/// value where it writes its own at run time: NVIDIA's gpu-operator replaces a RuntimeClass's
/// `FILLED_BY_OPERATOR` name and handler with the runtime class of its ClusterPolicy before it
/// creates the object (`transformRuntimeClass`, controllers/object_controls.go), so the file is
/// never applied as written.
pub fn is_operator_placeholder(s: &str) -> bool {
    s.strip_prefix("FILLED_BY_").is_some_and(|who| {
        !who.is_empty()
            && who
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
    })
}

/// The items of a list (nothing when the list's node is not a sequence). An item with a field
/// that a template fills in (`key: '{{ .toleration_key }}'`) is left out: what it will say is
/// not known, so it is neither linted nor matched.
pub fn items<'d>(doc: &'d Document<'_>, list: &List) -> Vec<Item<'d>> {
    let Some(seq) = doc.sequence(list.node) else {
        return Vec::new();
    };
    seq.iter()
        .enumerate()
        .map(|(index, &node)| Item {
            node,
            index,
            path: format!("{}[{index}]", list.path),
            fields: doc.mapping(node).map(|_| {
                doc.merged_entries(node)
                    .into_iter()
                    .filter_map(|(k, v)| {
                        Some(Field {
                            name: doc.scalar(k)?.0,
                            key: k,
                            value: v,
                            decoded: decode(doc, v),
                        })
                    })
                    .collect()
            }),
        })
        .filter(|item| {
            !item
                .fields
                .iter()
                .flatten()
                .any(|f| matches!(&f.decoded, Decoded::Str(s) if holds_template_action(s)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    fn paths(text: &str) -> Vec<String> {
        let stream = parse(text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let mut out: Vec<String> = ex.tolerations.iter().map(|t| t.list.path.clone()).collect();
        out.extend(ex.taints.iter().map(|t| t.path.clone()));
        out
    }

    #[test]
    fn every_kind_has_its_place() {
        let tol = "tolerations: [{key: a, operator: Exists}]";
        let cases = [
            ("Pod", format!("spec: {{{tol}}}"), "spec.tolerations"),
            (
                "PodTemplate",
                format!("template: {{spec: {{{tol}}}}}"),
                "template.spec.tolerations",
            ),
            (
                "Deployment",
                format!("spec: {{template: {{spec: {{{tol}}}}}}}"),
                "spec.template.spec.tolerations",
            ),
            (
                "CronJob",
                format!("spec: {{jobTemplate: {{spec: {{template: {{spec: {{{tol}}}}}}}}}}}"),
                "spec.jobTemplate.spec.template.spec.tolerations",
            ),
            (
                "RuntimeClass",
                format!("scheduling: {{{tol}}}"),
                "scheduling.tolerations",
            ),
            (
                "Node",
                "spec: {taints: [{key: a, effect: NoSchedule}]}".into(),
                "spec.taints",
            ),
            (
                "MyCustomThing",
                format!("spec: {{workers: [{{{tol}}}]}}"),
                "spec.workers[0].tolerations",
            ),
        ];
        for (kind, body, want) in cases {
            let text = format!("kind: {kind}\n{body}\n");
            assert_eq!(paths(&text), vec![want.to_string()], "{kind}");
        }
    }

    #[test]
    fn list_items_and_values_files() {
        let text = "kind: List\nitems:\n- kind: Pod\n  spec: {tolerations: []}\n- kind: Pod\n  spec:\n    tolerations: []\n";
        assert_eq!(
            paths(text),
            vec!["items[0].spec.tolerations", "items[1].spec.tolerations"]
        );
        let values = "gpu:\n  tolerations:\n  - key: nvidia.com/gpu\n    operator: Exists\n";
        assert_eq!(paths(values), vec!["gpu.tolerations"]);
    }

    /// A key is a path segment as it is when it is a field name (letters, digits, `_`, `-`,
    /// `$`), else in brackets.
    #[test]
    fn keys_that_are_no_field_names_are_bracketed() {
        let values = "my-app_1$x:\n  tolerations: [{key: a, operator: Exists}]\n\
                      example.com/team:\n  tolerations: [{key: b, operator: Exists}]\n\
                      \"\":\n  tolerations: [{key: c, operator: Exists}]\n";
        assert_eq!(
            paths(values),
            vec![
                "my-app_1$x.tolerations",
                "[example.com/team].tolerations",
                "[].tolerations"
            ]
        );
    }

    /// A pod spec by its shape: a non-empty `containers` list of mappings, each with a `name` or
    /// an `image`.
    #[test]
    fn pod_specs_by_their_shape() {
        let shaped = |text: &str| {
            let stream = parse(text);
            let doc = &stream.documents[0];
            is_pod_spec_shape(doc, doc.root.unwrap())
        };
        assert!(shaped("containers: [{name: a}]"));
        assert!(shaped("containers: [{image: b}]"));
        assert!(shaped("containers: [{name: a, image: b}, {image: c}]"));
        assert!(!shaped("containers: [{command: [x]}]"));
        assert!(!shaped("containers: [{name: a}, {command: [x]}]"));
        assert!(!shaped("containers: [a]"));
        assert!(!shaped("containers: []"));
        assert!(!shaped("containers: {name: a}"));
        assert!(!shaped("spec: {containers: [{name: a}]}"));
    }

    /// A Cluster API Cluster's topology taints, and no other group's `Cluster` (CloudNativePG's,
    /// say) read as one.
    #[test]
    fn topology_taints_of_a_cluster_api_cluster_only() {
        let body = "kind: Cluster\nspec:\n  topology:\n    controlPlane:\n      taints: [{key: a, \
                    effect: NoSchedule}]\n";
        assert_eq!(
            paths(&format!("apiVersion: cluster.x-k8s.io/v1beta2\n{body}")),
            vec!["spec.topology.controlPlane.taints"]
        );
        assert!(paths(&format!("apiVersion: postgresql.cnpg.io/v1\n{body}")).is_empty());
    }

    /// Only a document whose `kind` ends in `List` is read as a list of objects; a values file
    /// with an `items:` list is walked for its `tolerations:` lists, which belong to no object.
    #[test]
    fn items_make_a_list_only_under_a_list_kind() {
        let values = "items:\n- tolerations: [{key: a, operator: Exists}]\n";
        let stream = parse(values);
        let ex = extract(&stream.documents[0]);
        assert!(ex.objects.is_empty());
        assert_eq!(ex.tolerations.len(), 1);
        assert_eq!(ex.tolerations[0].list.path, "items[0].tolerations");
        assert_eq!(ex.tolerations[0].list.object, None);
        let list = format!("kind: PodList\n{values}");
        let stream = parse(&list);
        let ex = extract(&stream.documents[0]);
        assert_eq!(ex.objects.len(), 1);
        assert_eq!(ex.tolerations[0].list.object, Some(0));
    }

    /// Two pod specs that alias one mapping: their list is linted once, under the first, and
    /// each reads it as its own.
    #[test]
    fn aliased_pod_specs_share_their_tolerations() {
        let text = "kind: List\nitems:\n- kind: Pod\n  spec: &spec\n    tolerations: [{key: a, \
                    operator: Exists}]\n- kind: Pod\n  spec: *spec\n- kind: Pod\n  spec: {}\n";
        let stream = parse(text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        assert_eq!(ex.pod_specs.len(), 3);
        assert_eq!(ex.tolerations.len(), 1);
        let first = ex.pod_tolerations(0).map(|l| l.node);
        assert!(first.is_some());
        assert_eq!(ex.pod_tolerations(1).map(|l| l.node), first);
        assert!(ex.pod_tolerations(2).is_none());
    }

    #[test]
    fn merge_keys_supply_fields() {
        let text = "kind: Pod\nbase: &b {key: k, operator: Equal}\nspec:\n  tolerations:\n  - <<: *b\n    value: v\n";
        let stream = parse(text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let list = &ex.tolerations[0].list;
        let item = &items(doc, list)[0];
        let t = item.toleration().unwrap();
        assert_eq!((t.key.as_str(), t.value.as_str()), ("k", "v"));
    }

    /// A pattern's segments: a field that holds a mapping, every item of a list that is a
    /// mapping (`[]`), every value of a mapping that is a mapping (`*`); the paths start at the
    /// base.
    #[test]
    fn resolve_follows_fields_items_and_values() {
        let text = "metadata: {name: m}\nspec:\n  template: {name: t}\n  workers:\n  - {name: w0}\n  \
                    - w1\n  - {name: w2}\n  roles:\n    x: {name: x}\n    y: 2\n    z.io: {name: z}\n";
        let stream = parse(text);
        let doc = &stream.documents[0];
        let root = doc.root.unwrap();
        let got = |base: &str, pattern: &str| -> Vec<(String, String)> {
            resolve(doc, root, base, pattern)
                .into_iter()
                .map(|(n, p)| (p, doc.get_str(n, "name").unwrap_or_default().to_string()))
                .collect()
        };
        let want = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(p, n)| (p.to_string(), n.to_string()))
                .collect()
        };
        assert_eq!(got("", "spec.template"), want(&[("spec.template", "t")]));
        assert_eq!(
            got("items[1]", "spec.template"),
            want(&[("items[1].spec.template", "t")])
        );
        assert_eq!(
            got("", "spec.workers[]"),
            want(&[("spec.workers[0]", "w0"), ("spec.workers[2]", "w2")])
        );
        assert_eq!(
            got("", "spec.roles.*"),
            want(&[("spec.roles.x", "x"), ("spec.roles[z.io]", "z")])
        );
        assert_eq!(got("", "metadata"), want(&[("metadata", "m")]));
        assert!(got("", "metadata.name").is_empty());
        assert!(got("", "spec.missing").is_empty());
        assert!(got("", "spec.template[]").is_empty());
    }

    /// Where each kind that defines nodes keeps its taints, and no such place for a kind of
    /// the same name in another group.
    #[test]
    fn pool_taint_paths_by_group_and_kind() {
        let got = |api: Option<&str>, kind: &str| -> Option<Vec<(String, bool)>> {
            pool_taint_paths(api, kind).map(|fields| {
                fields
                    .iter()
                    .map(|f| (f.path.join("."), f.startup))
                    .collect()
            })
        };
        let some = |fields: &[(&str, bool)]| -> Option<Vec<(String, bool)>> {
            Some(fields.iter().map(|(p, s)| (p.to_string(), *s)).collect())
        };
        let machines = some(&[("spec.template.spec.taints", false)]);
        let cases = [
            (Some("v1"), "Node", some(&[("spec.taints", false)])),
            (None, "Node", some(&[("spec.taints", false)])),
            (
                Some("karpenter.sh/v1"),
                "NodePool",
                some(&[
                    ("spec.template.spec.taints", false),
                    ("spec.template.spec.startupTaints", true),
                ]),
            ),
            (
                Some("karpenter.sh/v1alpha5"),
                "Provisioner",
                some(&[("spec.taints", false), ("spec.startupTaints", true)]),
            ),
            (
                Some("machine.openshift.io/v1beta1"),
                "MachineSet",
                machines.clone(),
            ),
            (
                Some("cluster.x-k8s.io/v1beta2"),
                "MachineDeployment",
                machines.clone(),
            ),
            (
                Some("cluster.x-k8s.io/v1beta1"),
                "MachineSet",
                machines.clone(),
            ),
            (Some("cluster.x-k8s.io/v1beta2"), "MachinePool", machines),
            (
                Some("controlplane.cluster.x-k8s.io/v1beta2"),
                "KubeadmControlPlane",
                some(&[("spec.machineTemplate.spec.taints", false)]),
            ),
            (
                Some("kueue.x-k8s.io/v1beta1"),
                "ResourceFlavor",
                some(&[("spec.nodeTaints", false)]),
            ),
            // A Cluster keeps its machines' taints in its topology (`TOPOLOGY_TAINTS`).
            (Some("cluster.x-k8s.io/v1beta2"), "Cluster", None),
            (Some("example.com/v1"), "MachineDeployment", None),
            (Some("example.com/v1"), "MachineSet", None),
            (Some("example.com/v1"), "NodePool", None),
            (Some("example.com/v1"), "Node", None),
            (Some("apps/v1"), "Deployment", None),
        ];
        for (api, kind, want) in cases {
            assert_eq!(got(api, kind), want, "{api:?} {kind}");
        }
    }

    /// Which taint lists hold Cluster API `MachineTaint`s: a machine set's, a
    /// KubeadmControlPlane's machine template's (not its kubeadm `nodeRegistration` taints,
    /// which are a Node's) and a Cluster API Cluster's topology's.
    #[test]
    fn machine_taints_are_cluster_api_machines_taints_only() {
        let kcp = (
            Some("controlplane.cluster.x-k8s.io/v1beta2"),
            Some("KubeadmControlPlane"),
        );
        let capi = |kind| (Some("cluster.x-k8s.io/v1beta2"), Some(kind));
        let cases = [
            (kcp, "spec.machineTemplate.spec.taints", true),
            (
                kcp,
                "spec.kubeadmConfigSpec.initConfiguration.nodeRegistration.taints",
                false,
            ),
            (capi("Cluster"), "spec.topology.controlPlane.taints", true),
            (
                capi("Cluster"),
                "spec.topology.workers.machineDeployments[0].taints",
                true,
            ),
            (capi("Cluster"), "spec.taints", false),
            (capi("MachineDeployment"), "spec.template.spec.taints", true),
            (capi("MachinePool"), "spec.template.spec.taints", true),
            (
                (Some("postgresql.cnpg.io/v1"), Some("Cluster")),
                "spec.topology.controlPlane.taints",
                false,
            ),
            (
                (Some("machine.openshift.io/v1beta1"), Some("MachineSet")),
                "spec.template.spec.taints",
                false,
            ),
            ((Some("v1"), Some("Node")), "spec.taints", false),
            ((None, None), "spec.taints", false),
        ];
        for ((api, kind), path, want) in cases {
            assert_eq!(
                holds_machine_taints(api, kind, path),
                want,
                "{api:?} {kind:?} {path}"
            );
        }
    }

    /// A list under a key that only ends in `tolerations` is one when its items look like
    /// tolerations (each has a toleration field, one a `key`, `operator` or `effect`); a
    /// `tolerations` list is one whatever its mappings hold (its fields are linted); a list of
    /// items that are not all mappings is none.
    #[test]
    fn which_lists_the_walk_takes_for_tolerations() {
        let values = "a:\n  tolerations: [{keys: a}]\n\
                      b:\n  agentTolerations: [{key: a, operator: Exists}]\n\
                      c:\n  extraTolerations: [{name: a}]\n\
                      d:\n  tolerations: [{key: a}, b]\n\
                      e:\n  podTolerations: [{key: a}, b]\n\
                      f:\n  tolerations: []\n\
                      g:\n  extraTolerations: [{value: a}]\n\
                      h:\n  nodeTolerations: [{key: a}, {name: b}]\n";
        assert_eq!(
            paths(values),
            vec!["a.tolerations", "b.agentTolerations", "f.tolerations"]
        );
    }

    /// In values, a mapping with a `tolerations` list beside a placement field is a workload of
    /// unknown kind. Its own placement fields hold no other workload; under a mapping that is
    /// no workload, a key of the same name is walked like any other.
    #[test]
    fn a_workloads_own_fields_hold_no_other_workload() {
        let values = "app:\n  tolerations: []\n  nodeSelector: {pool: a}\n  resources:\n    \
                      limits: {cpu: 1}\n    tolerations: []\n    nodeSelector: {}\n\
                      components:\n  resources:\n    exporter:\n      tolerations: []\n      \
                      nodeSelector: {pool: b}\n";
        let stream = parse(values);
        let ex = extract(&stream.documents[0]);
        let specs: Vec<&str> = ex.pod_specs.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(specs, vec!["app", "components.resources.exporter"]);
    }

    /// An item decodes when each field the API server knows has its Go type (a string or null,
    /// an int64 for `tolerationSeconds`); other fields are not read. Only an item that decodes
    /// gives a taint or a toleration, a taint only with a key and a known effect.
    #[test]
    fn items_decode_as_the_api_server_reads_them() {
        let text = [
            "kind: Node",
            "spec:",
            "  taints:",
            "  - {key: a, value: v, effect: NoSchedule, timeAdded: ~, other: [1]}",
            "  - {key: a, value: 1, effect: NoSchedule}",
            "  - {key: a, effect: NoSchedule, timeAdded: 5}",
            "  - {key: ~, effect: NoSchedule}",
            "  - {key: a, effect: NoSchedul}",
            "  - a",
        ]
        .join("\n");
        let stream = parse(&text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let got: Vec<(bool, Option<Taint>)> = items(doc, &ex.taints[0])
            .iter()
            .map(|i| (i.decodes(), i.taint()))
            .collect();
        let taint = Taint {
            key: "a".into(),
            value: "v".into(),
            effect: Effect::NoSchedule,
        };
        assert_eq!(
            got,
            vec![
                (true, Some(taint)),
                (false, None),
                (false, None),
                (true, None),
                (true, None),
                (false, None)
            ]
        );

        let text = [
            "kind: Pod",
            "spec:",
            "  tolerations:",
            "  - {key: a, operator: Exists, tolerationSeconds: 60.0, effect: NoExecute}",
            "  - {key: a, operator: Exists, tolerationSeconds: \"60\"}",
            "  - {key: 1, operator: Exists}",
        ]
        .join("\n");
        let stream = parse(&text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let got: Vec<(bool, Option<Toleration>)> = items(doc, &ex.tolerations[0].list)
            .iter()
            .map(|i| (i.decodes(), i.toleration()))
            .collect();
        let toleration = Toleration {
            key: "a".into(),
            operator: Operator::Exists,
            value: String::new(),
            effect: Some(Effect::NoExecute),
            toleration_seconds: Some(60),
        };
        assert_eq!(
            got,
            vec![(true, Some(toleration)), (false, None), (false, None)]
        );
    }

    /// A value with a Go template action is filled in before the API server sees it, wherever
    /// the action starts; its item is left out.
    #[test]
    fn items_with_template_actions_are_left_out() {
        assert!(holds_template_action("{{ .key }}"));
        assert!(holds_template_action("storage-{{ .cluster }}"));
        assert!(holds_template_action("a long prefix {{x}}"));
        assert!(!holds_template_action("storage-{{ .cluster"));
        assert!(!holds_template_action("}} {{"));
        assert!(!holds_template_action("{}"));
        let text = "kind: Pod\nspec:\n  tolerations:\n  - {key: 'pool-{{ .name }}', operator: \
                    Exists}\n  - {key: a, operator: Exists}\n";
        let stream = parse(text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let kept: Vec<usize> = items(doc, &ex.tolerations[0].list)
            .iter()
            .map(|i| i.index)
            .collect();
        assert_eq!(kept, vec![1]);
    }

    /// `FILLED_BY_` and a name in capitals, digits and `_`.
    #[test]
    fn operator_placeholders() {
        for s in [
            "FILLED_BY_OPERATOR",
            "FILLED_BY_GPU_OPERATOR",
            "FILLED_BY_OPERATOR2",
        ] {
            assert!(is_operator_placeholder(s), "{s}");
        }
        for s in [
            "FILLED_BY_",
            "FILLED_BY_operator",
            "FILLED_BY_OPERATOR-X",
            "filled_by_OPERATOR",
            "nvidia",
        ] {
            assert!(!is_operator_placeholder(s), "{s}");
        }
    }

    /// The walks do not follow aliases (their targets are walked where they are defined), so
    /// an alias of a mapping that holds it cannot make them endless.
    #[test]
    fn an_alias_of_an_enclosing_mapping_ends_the_walks() {
        let specs = |text: &str| -> Vec<String> {
            let stream = parse(text);
            let ex = extract(&stream.documents[0]);
            ex.pod_specs.iter().map(|s| s.path.clone()).collect()
        };
        assert_eq!(
            specs("a: &x\n  b: *x\n  tolerations: []\n  nodeSelector: {}\n"),
            vec!["a"]
        );
        assert!(specs("kind: Thing\nspec: &x\n  b: *x\n").is_empty());
        assert_eq!(
            specs("kind: Thing\nspec: &x\n  b: *x\n  c: {containers: [{name: a}]}\n"),
            vec!["spec.c"]
        );
    }
}
