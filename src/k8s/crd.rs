//! What a CustomResourceDefinition says of where its kind keeps pod specs, tolerations and
//! taints, read from its schema's structure.
//!
//! A CRD (`apiextensions.k8s.io/v1`; kubernetes/apiextensions-apiserver
//! pkg/apis/apiextensions/v1/types.go: `spec.group`, `spec.names.kind`, `spec.versions[]` with
//! `name`, `served` and `schema.openAPIV3Schema`; `v1beta1` kept one `spec.validation` for
//! every version) describes each version's objects as an OpenAPI v3 schema: `properties` of an
//! object, `items` of an array, `additionalProperties` of a map. Operators generate it from
//! their Go types (controller-gen), and a field of type `corev1.PodTemplateSpec`, `PodSpec`,
//! `[]Toleration` or `[]Taint` keeps the shape of the Kubernetes type in it:
//!
//! - a **pod spec**: an object whose `containers` is an array of objects with an `image` or a
//!   `name` (a `PodTemplateSpec`'s `spec`, an inlined `PodSpec`, or pod fields of the
//!   operator's own with a container list);
//! - a **toleration list**: an array of objects with `tolerationSeconds`, or with `key`,
//!   `operator` and `effect`, and no field a toleration does not have;
//! - a **taint list**: an array of objects with `key` and `effect`, no `operator`, and no field
//!   a taint does not have (`value`, `timeAdded`).
//!
//! Their places are kept as paths in the form of the table of custom workloads
//! ([`crate::k8s::workloads`]): `.` between fields, `name[]` for every item of an array, `*` for
//! every value of a map. A pod spec holds its own tolerations: of its fields, only those a
//! `PodSpec` does not have are looked into (a type that inlines a pod spec may add another
//! beside it, as KServe's predictor adds `workerSpec`). A field whose schema is open
//! (`x-kubernetes-preserve-unknown-fields`, an AppWrapper's embedded objects) says nothing, and
//! a kind whose CRD is at hand is read by it alone: where the schema has no pod spec, none is
//! looked for by its shape.

use std::collections::BTreeMap;

use crate::syntax::{Document, NodeId};

/// The places of one served version of a kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    /// Paths of pod specs.
    pub pod_specs: Vec<String>,
    /// Paths of toleration lists (outside pod specs).
    pub tolerations: Vec<String>,
    /// Paths of taint lists.
    pub taints: Vec<String>,
}

impl Places {
    pub fn is_empty(&self) -> bool {
        self.pod_specs.is_empty() && self.tolerations.is_empty() && self.taints.is_empty()
    }
}

/// What the CRDs read say, by API group, kind and served version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrdKinds {
    kinds: BTreeMap<(String, String), BTreeMap<String, Places>>,
}

impl CrdKinds {
    /// The places of `kind` at `api_version` (`group/version`), when a CRD read serves that
    /// version of it.
    pub fn places(&self, api_version: Option<&str>, kind: &str) -> Option<&Places> {
        let (group, version) = api_version?.rsplit_once('/')?;
        self.kinds
            .get(&(group.to_string(), kind.to_string()))?
            .get(version)
    }

    /// Whether a CRD of `kind` in `group` was read (at any version).
    pub fn knows(&self, group: &str, kind: &str) -> bool {
        self.kinds
            .contains_key(&(group.to_string(), kind.to_string()))
    }

    /// The served versions of `kind` in `group` read, each with its places.
    pub fn versions(&self, group: &str, kind: &str) -> impl Iterator<Item = (&str, &Places)> {
        self.kinds
            .get(&(group.to_string(), kind.to_string()))
            .into_iter()
            .flatten()
            .map(|(v, p)| (v.as_str(), p))
    }

    /// Every kind read, as `(group, kind)`.
    pub fn kinds(&self) -> impl Iterator<Item = (&str, &str)> {
        self.kinds.keys().map(|(g, k)| (g.as_str(), k.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// Adds another source's CRDs.
    pub fn merge(&mut self, other: CrdKinds) {
        for (k, versions) in other.kinds {
            self.insert(k, versions);
        }
    }

    /// Reads the CRD at `node` (a `CustomResourceDefinition` of `apiextensions.k8s.io`).
    pub fn add(&mut self, doc: &Document<'_>, node: NodeId) {
        let Some((group, kind, versions)) = read(doc, node) else {
            return;
        };
        self.insert((group, kind), versions);
    }

    /// A kind's versions, beside what other definitions of it said: a repository may hold a
    /// CRD twice (a chart's copy, a "minimal" one whose schema is left open, as KServe keeps
    /// beside the full one), and each version's places are all that any of them says.
    fn insert(&mut self, key: (String, String), versions: BTreeMap<String, Places>) {
        let known = self.kinds.entry(key).or_default();
        for (version, places) in versions {
            let mine = known.entry(version).or_default();
            for (all, more) in [
                (&mut mine.pod_specs, places.pod_specs),
                (&mut mine.tolerations, places.tolerations),
                (&mut mine.taints, places.taints),
            ] {
                all.extend(more);
                all.sort();
                all.dedup();
            }
        }
    }
}

/// Whether an object is a CustomResourceDefinition.
pub fn is_crd(doc: &Document<'_>, node: NodeId) -> bool {
    doc.get_str(node, "kind") == Some("CustomResourceDefinition")
        && doc
            .get_str(node, "apiVersion")
            .is_some_and(|a| a.starts_with("apiextensions.k8s.io/"))
}

/// A CRD's group, kind and the places of each version it serves.
fn read(doc: &Document<'_>, node: NodeId) -> Option<(String, String, BTreeMap<String, Places>)> {
    if !is_crd(doc, node) {
        return None;
    }
    let spec = doc.get(node, "spec")?.1;
    let group = doc.get_str(spec, "group")?.to_string();
    let kind = doc.get_path(spec, &["names", "kind"])?;
    let kind = doc.scalar(kind)?.0.to_string();
    let mut out = BTreeMap::new();
    // v1beta1: one schema for every version (`spec.validation`), `spec.version` or the
    // `versions` names.
    let shared = doc.get_path(spec, &["validation", "openAPIV3Schema"]);
    let versions = doc
        .get(spec, "versions")
        .and_then(|(_, v)| doc.sequence(v))
        .unwrap_or_default();
    for &v in versions {
        let Some(name) = doc.get_str(v, "name") else {
            continue;
        };
        // `served: false` is no version the API server takes.
        if doc.get_str(v, "served") == Some("false") {
            continue;
        }
        let schema = doc.get_path(v, &["schema", "openAPIV3Schema"]).or(shared);
        let places = schema.map(|s| places(doc, s)).unwrap_or_default();
        out.insert(name.to_string(), places);
    }
    if versions.is_empty() {
        if let (Some(name), Some(schema)) = (doc.get_str(spec, "version"), shared) {
            out.insert(name.to_string(), places(doc, schema));
        }
    }
    (!out.is_empty()).then_some((group, kind, out))
}

/// How deep a schema is walked: generated schemas of the deepest operator types stay well
/// within it, and no input can take the walk further.
const MAX_DEPTH: usize = 64;

/// The places a version's schema describes.
pub fn places(doc: &Document<'_>, schema: NodeId) -> Places {
    let mut out = Places::default();
    let mut stack = vec![(schema, String::new(), 0usize)];
    while let Some((node, path, depth)) = stack.pop() {
        if depth > MAX_DEPTH || doc.mapping(node).is_none() {
            continue;
        }
        let pod_spec = !path.is_empty() && is_pod_spec(doc, node);
        if pod_spec {
            out.pod_specs.push(path.clone());
        }
        if let Some(items) = doc.get(node, "items").map(|(_, v)| v).filter(|_| !pod_spec) {
            if !path.is_empty() && is_toleration(doc, items) {
                out.tolerations.push(path);
                continue;
            }
            if !path.is_empty() && is_taint(doc, items) {
                out.taints.push(path);
                continue;
            }
            // The items of an array: `name[]`, under a named field (the paths' form has no
            // place for an array of arrays, or an array that is a map's value).
            if !path.is_empty() && !path.ends_with("[]") && !path.ends_with('*') {
                stack.push((items, format!("{path}[]"), depth + 1));
            }
        }
        if let Some((_, map)) = doc.get(node, "additionalProperties") {
            if doc.mapping(map).is_some() && !path.is_empty() {
                stack.push((map, format!("{path}.*"), depth + 1));
            }
        }
        let properties = doc.get(node, "properties").map(|(_, v)| v);
        for &(k, v) in properties
            .and_then(|p| doc.mapping(p))
            .unwrap_or_default()
            .iter()
            .rev()
        {
            let Some((name, _)) = doc.scalar(k) else {
                continue;
            };
            // A path segment is a plain field name (the table's form has no quoting); what
            // the controller writes (`status`) is not read.
            if name.is_empty() || name.contains(['.', '[', ']', '*']) {
                continue;
            }
            if path.is_empty() && name == "status" {
                continue;
            }
            // A pod spec's own fields hold no other pod spec, and its tolerations are its own;
            // the fields a type adds beside an inlined pod spec (KServe's `workerSpec`) may.
            if pod_spec && POD_SPEC_FIELDS.contains(&name) {
                continue;
            }
            let child = if path.is_empty() {
                name.to_string()
            } else {
                format!("{path}.{name}")
            };
            stack.push((v, child, depth + 1));
        }
    }
    out.pod_specs.sort();
    out.tolerations.sort();
    out.taints.sort();
    out
}

/// The fields of a `corev1.PodSpec` (k8s.io/api/core/v1 types.go) that hold objects or lists:
/// not walked inside a pod spec.
const POD_SPEC_FIELDS: &[&str] = &[
    "volumes",
    "initContainers",
    "containers",
    "ephemeralContainers",
    "nodeSelector",
    "securityContext",
    "imagePullSecrets",
    "affinity",
    "tolerations",
    "hostAliases",
    "dnsConfig",
    "readinessGates",
    "overhead",
    "topologySpreadConstraints",
    "os",
    "schedulingGates",
    "resourceClaims",
    "resources",
    "metadata",
];

/// The names of an object schema's properties.
fn property_names<'d>(doc: &'d Document<'_>, schema: NodeId) -> Vec<&'d str> {
    doc.get(schema, "properties")
        .and_then(|(_, p)| doc.mapping(p))
        .unwrap_or_default()
        .iter()
        .filter_map(|&(k, _)| doc.scalar(k).map(|(s, _)| s))
        .collect()
}

/// An object schema whose `containers` is an array of objects with an `image` or a `name`.
fn is_pod_spec(doc: &Document<'_>, schema: NodeId) -> bool {
    let Some(containers) = doc.get_path(schema, &["properties", "containers"]) else {
        return false;
    };
    let Some((_, items)) = doc.get(containers, "items") else {
        return false;
    };
    let names = property_names(doc, items);
    names.contains(&"image") || names.contains(&"name")
}

/// An object schema of a toleration (`corev1.Toleration`'s fields only).
fn is_toleration(doc: &Document<'_>, items: NodeId) -> bool {
    const FIELDS: &[&str] = &["key", "operator", "value", "effect", "tolerationSeconds"];
    let names = property_names(doc, items);
    !names.is_empty()
        && names.iter().all(|n| FIELDS.contains(n))
        && (names.contains(&"tolerationSeconds")
            || ["key", "operator", "effect"]
                .iter()
                .all(|f| names.contains(f)))
}

/// An object schema of a taint (`corev1.Taint`'s fields only).
fn is_taint(doc: &Document<'_>, items: NodeId) -> bool {
    const FIELDS: &[&str] = &["key", "value", "effect", "timeAdded"];
    let names = property_names(doc, items);
    names.iter().all(|n| FIELDS.contains(n)) && names.contains(&"key") && names.contains(&"effect")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    const CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: trainjobs.example.org
spec:
  group: example.org
  names: {kind: TrainJob, plural: trainjobs}
  versions:
  - name: v1
    served: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              template:
                type: object
                properties:
                  metadata: {type: object}
                  spec:
                    type: object
                    properties:
                      containers:
                        type: array
                        items:
                          type: object
                          properties:
                            name: {type: string}
                            image: {type: string}
                      tolerations:
                        type: array
                        items:
                          type: object
                          properties:
                            key: {type: string}
                            operator: {type: string}
                            value: {type: string}
                            effect: {type: string}
                            tolerationSeconds: {type: integer}
              predictor:
                type: object
                properties:
                  containers:
                    type: array
                    items:
                      type: object
                      properties:
                        name: {type: string}
                  tolerations:
                    type: array
                    items:
                      type: object
                      properties:
                        key: {type: string}
                        operator: {type: string}
                        effect: {type: string}
                  workerSpec:
                    type: object
                    properties:
                      containers:
                        type: array
                        items:
                          type: object
                          properties:
                            image: {type: string}
              roles:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    podOverrides:
                      type: array
                      items:
                        type: object
                        properties:
                          tolerations:
                            type: array
                            items:
                              type: object
                              properties:
                                key: {type: string}
                                operator: {type: string}
                                effect: {type: string}
              nodeTaints:
                type: array
                items:
                  type: object
                  properties:
                    key: {type: string}
                    value: {type: string}
                    effect: {type: string}
              labels:
                type: array
                items:
                  type: object
                  properties:
                    key: {type: string}
                    value: {type: string}
              raw:
                type: object
                x-kubernetes-preserve-unknown-fields: true
  - name: v1alpha1
    served: false
    schema:
      openAPIV3Schema: {type: object}
";

    #[test]
    fn a_crd_says_where_its_kind_keeps_pod_specs_tolerations_and_taints() {
        let stream = parse(CRD);
        let doc = &stream.documents[0];
        let mut kinds = CrdKinds::default();
        kinds.add(doc, doc.root.unwrap());
        let places = kinds.places(Some("example.org/v1"), "TrainJob").unwrap();
        // A pod spec inlined with a field of the type's own beside it (KServe's predictor and
        // its `workerSpec`): both; the pod spec's own tolerations are its own.
        assert_eq!(
            places.pod_specs,
            [
                "spec.predictor",
                "spec.predictor.workerSpec",
                "spec.template.spec"
            ]
        );
        assert_eq!(
            places.tolerations,
            ["spec.roles.*.podOverrides[].tolerations"]
        );
        assert_eq!(places.taints, ["spec.nodeTaints"]);
        // A version not served, another group or kind: nothing.
        assert!(kinds
            .places(Some("example.org/v1alpha1"), "TrainJob")
            .is_none());
        assert!(kinds.places(Some("example.com/v1"), "TrainJob").is_none());
        assert!(kinds.places(Some("example.org/v1"), "Other").is_none());
        assert!(kinds.knows("example.org", "TrainJob"));
    }
}
