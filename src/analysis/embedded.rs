//! YAML held in strings of another document, linted as a file of its own and reported at its
//! characters in the outer file:
//!
//! - an Argo CD Application's (or ApplicationSet template's) `helm.values` of its `source` or
//!   `sources[]` (argoproj/argo-cd pkg/apis/application/v1alpha1/types.go
//!   `ApplicationSourceHelm.Values`, a values file as a string);
//! - kustomize inline patches: `patches[].patch` (with its `target`) wherever a `patches` list
//!   of them is written (a kustomization, a Flux Kustomization's `spec.patches`, a Flux
//!   HelmRelease's post-renderers, a FluxInstance), and, at a kustomization's root,
//!   `patchesJson6902[].patch` and the strings of `patchesStrategicMerge`
//!   (kubernetes-sigs/kustomize api/types/kustomization.go), in a `kustomization.yaml` with or
//!   without its `kind`, or a `Component`; a strategic-merge patch is a partial manifest, a
//!   JSON6902 patch an operation list;
//! - an Argo Workflows resource template's `manifest` (argoproj/argo-workflows
//!   pkg/apis/workflow/v1alpha1/workflow_types.go `ResourceTemplate.Manifest`), in a Workflow,
//!   a (Cluster)WorkflowTemplate or a CronWorkflow: a manifest the workflow applies;
//! - a ConfigMap's `data` and a Secret's `stringData` whose key ends in `.yaml`, `.yml` or
//!   `values` (what a Flux HelmRelease's `valuesFrom` reads: fluxcd/helm-controller
//!   api/v2/reference_types.go `ValuesReference`, `valuesKey` `values.yaml` by default), whether
//!   or not a HelmRelease in sight names it. A Secret's `data` is base64: not read.
//!
//! A string that holds no `:` is not YAML of interest (a patch file's name, one word). A
//! string that does not parse is not the outer file's error: its syntax findings are left
//! out, and so are its template and not-a-manifest findings. A literal block scalar (`|`,
//! `|-`, `|+`) and a quoted string on one line map character by character (escapes included,
//! [`value_offsets`]); a folded one (`>`), or a quoted one over several lines, does not: its
//! findings point at the field's key, without fixes.

use std::ops::Range;
use std::sync::Arc;

use crate::config::Options;
use crate::diagnostic::{Diagnostic, Fix, ObjectRef};
use crate::inventory::Inventory;
use crate::k8s::json6902::PatchTarget;
use crate::k8s::objects::{api_group, resolve, Object};
use crate::rules;
use crate::syntax::mapped::{value_offsets, MappedString};
use crate::syntax::{Document, NodeId, NodeKind};

/// A string that holds YAML.
struct Place {
    /// The string's key and value nodes.
    key: NodeId,
    value: NodeId,
    /// The object a patch applies to, as its `target` says.
    target: Option<PatchTarget>,
    /// The outer object, an index into the document's objects.
    object: Option<usize>,
    /// Where the string is, from the document root, when it holds what is deployed (values, a
    /// manifest) rather than a patch: its pod templates are simulated.
    deployed: Option<String>,
    /// Whether it holds the values of a chart the outer object installs (an Argo CD
    /// Application's `helm.values`): a workload of unknown kind in them is named after it.
    values: bool,
}

/// Lints the YAML in the strings of the objects `range` of `objects` (and, for the first
/// objects of a document, of a kustomization without `kind` at its root). Returns whether it
/// linted any, and the pod templates of the strings that hold what is deployed; with
/// `places_out`, their placements and tolerations for the editor.
pub(super) fn check(
    text: &str,
    doc: &Document<'_>,
    options: &Options,
    inventory: Option<&Inventory>,
    objects: &[Object<'_>],
    range: Range<usize>,
    (out, places_out): (&mut Vec<Diagnostic>, Option<&mut super::Places>),
) -> (bool, super::PodTemplates) {
    let mut linted = false;
    let mut judged = super::PodTemplates::default();
    let mut places_out = places_out;
    for place in places(text, doc, objects, range) {
        let here = (objects, places_out.as_deref_mut());
        judged += lint_string(text, doc, options, inventory, here, place, out);
        linted = true;
    }
    (linted, judged)
}

/// Whether any string of a document is one [`check`] lints as YAML (with the inventory, when
/// there is one): a string that holds a `:` in a place that holds YAML.
pub(super) fn holds_yaml(text: &str, doc: &Document<'_>, objects: &[Object<'_>]) -> bool {
    places(text, doc, objects, 0..objects.len())
        .iter()
        .any(|p| {
            doc.scalar(p.value)
                .is_some_and(|(inner, _)| inner.contains(':'))
        })
}

/// The strings of the objects `range` of `objects` that hold YAML (and, for the first objects
/// of a document, those of a kustomization without `kind` at its root).
fn places(
    text: &str,
    doc: &Document<'_>,
    objects: &[Object<'_>],
    range: Range<usize>,
) -> Vec<Place> {
    let mut places = Vec::new();
    // A `patch` key, as YAML or JSON writes it (an RBAC verb `- patch` is no key), looked for
    // in the node's own text: a file of many objects is read once.
    let patches = |node: NodeId| {
        let own = text.get(doc.node(node).span.clone()).unwrap_or_default();
        own.contains("patch:") || own.contains("\"patch\"") || own.contains("'patch'")
    };
    if range.start == 0 {
        if let Some(root) = doc.root.filter(|&r| doc.get(r, "kind").is_none()) {
            kustomization(doc, root, None, &mut places);
            if patches(root) {
                patch_lists(doc, root, None, &mut places);
            }
        }
    }
    for index in range {
        let Some(object) = objects.get(index) else {
            continue;
        };
        object_places(doc, object, index, &mut places);
        if patches(object.node) {
            patch_lists(doc, object.node, Some(index), &mut places);
        }
    }
    places
}

/// The strings of a document that hold YAML and map character by character (see the module's
/// documentation), each with the source offset of every byte of its value and its end: what
/// the editor's hover looks up inside them.
pub fn mapped_strings<'d>(text: &str, doc: &'d Document<'_>) -> Vec<(&'d str, Vec<usize>)> {
    let objects = crate::k8s::objects::extract(doc).objects;
    let mut places = Vec::new();
    if let Some(root) = doc.root.filter(|&r| doc.get(r, "kind").is_none()) {
        kustomization(doc, root, None, &mut places);
        patch_lists(doc, root, None, &mut places);
    }
    for (index, object) in objects.iter().enumerate() {
        object_places(doc, object, index, &mut places);
        patch_lists(doc, object.node, Some(index), &mut places);
    }
    places
        .into_iter()
        .filter_map(|place| {
            let (inner, _) = doc.scalar(place.value)?;
            let map = value_offsets(doc, text, doc.resolve(place.value))?;
            inner.contains(':').then_some((inner, map))
        })
        .collect()
}

/// The strings of an object that hold YAML, by its group and kind.
fn object_places(doc: &Document<'_>, object: &Object<'_>, index: usize, out: &mut Vec<Place>) {
    let Some(kind) = object.kind else { return };
    let group = api_group(doc.get_str(object.node, "apiVersion"));
    let node = object.node;
    match (group, kind) {
        (Some("argoproj.io"), "Application" | "ApplicationSet") => {
            let spec = if kind == "Application" {
                "spec"
            } else {
                "spec.template.spec"
            };
            for pattern in [
                format!("{spec}.source.helm"),
                format!("{spec}.sources[].helm"),
            ] {
                for (helm, path) in resolve(doc, node, &object.path, &pattern) {
                    if let Some((key, value)) = doc.get(helm, "values") {
                        out.push(Place {
                            key,
                            value,
                            target: None,
                            object: Some(index),
                            deployed: Some(format!("{path}.values")),
                            values: true,
                        });
                    }
                }
            }
        }
        (
            Some("argoproj.io"),
            "Workflow" | "WorkflowTemplate" | "ClusterWorkflowTemplate" | "CronWorkflow",
        ) => {
            let spec = if kind == "CronWorkflow" {
                "spec.workflowSpec.templates[].resource"
            } else {
                "spec.templates[].resource"
            };
            for (resource, path) in resolve(doc, node, &object.path, spec) {
                if let Some((key, value)) = doc.get(resource, "manifest") {
                    out.push(Place {
                        key,
                        value,
                        target: None,
                        object: Some(index),
                        deployed: Some(format!("{path}.manifest")),
                        values: false,
                    });
                }
            }
        }
        (Some("kustomize.config.k8s.io"), "Kustomization" | "Component") => {
            kustomization(doc, node, Some(index), out);
        }
        (None, "ConfigMap" | "Secret") => {
            let field = if kind == "ConfigMap" {
                "data"
            } else {
                "stringData"
            };
            let Some((_, data)) = doc.get(node, field) else {
                return;
            };
            for &(key, value) in doc.mapping(data).unwrap_or_default() {
                let Some((name, _)) = doc.scalar(key) else {
                    continue;
                };
                if name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with("values") {
                    let base = object.path.as_str();
                    let dot = if base.is_empty() { "" } else { "." };
                    out.push(Place {
                        key,
                        value,
                        target: None,
                        object: Some(index),
                        deployed: Some(format!("{base}{dot}{field}[{name}]")),
                        values: false,
                    });
                }
            }
        }
        _ => {}
    }
}

/// Every list of kustomize patches under `node`: a `patches` sequence whose items hold a
/// `patch` string beside their `target` (kubernetes-sigs/kustomize api/types/patch.go `Patch`).
/// A kustomization's own, and those of the objects that take kustomize patches: a Flux
/// Kustomization's `spec.patches`, a Flux HelmRelease's `spec.postRenderers[].kustomize.patches`
/// (fluxcd/helm-controller api/v2/helmrelease_types.go `Kustomize`), a FluxInstance's
/// `spec.kustomize.patches`, wherever they are written (in chart values too). Aliases are not
/// followed: their targets are walked where they are defined.
fn patch_lists(doc: &Document<'_>, node: NodeId, object: Option<usize>, out: &mut Vec<Place>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match &doc.node(n).kind {
            NodeKind::Mapping { entries, .. } => {
                for &(k, v) in entries.iter().rev() {
                    if matches!(doc.node(v).kind, NodeKind::Alias { .. }) {
                        continue;
                    }
                    if doc.scalar(k).is_some_and(|(key, _)| key == "patches") {
                        patch_items(doc, (k, v, false), object, out);
                    }
                    stack.push(v);
                }
            }
            NodeKind::Sequence { items, .. } => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
}

/// The inline patches of the patch list `list` (its key `key`; of strings, as
/// `patchesStrategicMerge`, when `strings`), each with the object its `target` names.
fn patch_items(
    doc: &Document<'_>,
    (key, list, strings): (NodeId, NodeId, bool),
    object: Option<usize>,
    out: &mut Vec<Place>,
) {
    let mut entries = Vec::new();
    crate::inventory::kustomize::patch_list(doc, key, list, strings, &mut entries);
    out.extend(entries.into_iter().filter(|e| !e.is_path).map(|e| Place {
        key: e.key,
        value: e.value,
        target: e.target.and_then(|t| PatchTarget::read(doc, t)),
        object,
        deployed: None,
        values: false,
    }));
}

/// A kustomization's older inline patches, at its root (its `patches` are read where every
/// object's are).
fn kustomization(doc: &Document<'_>, node: NodeId, object: Option<usize>, out: &mut Vec<Place>) {
    for (field, strings) in [("patchesJson6902", false), ("patchesStrategicMerge", true)] {
        if let Some((key, list)) = doc.get(node, field) {
            patch_items(doc, (key, list, strings), object, out);
        }
    }
}

/// Whether a rule's findings inside a string are not the outer file's: the string's own
/// syntax.
fn left_out(rule: &str) -> bool {
    [
        &rules::YAML_SYNTAX,
        &rules::NOT_A_MANIFEST,
        &rules::HELM_TEMPLATE,
        &rules::HCL_SYNTAX,
    ]
    .iter()
    .any(|m| m.name == rule)
}

/// How deep strings are read inside strings (a patch that adds a patch is two): deeper ones are
/// not read, so no input can nest the analysis past the stack.
const MAX_DEPTH: usize = 4;

thread_local! {
    /// How many strings the analysis on this thread is inside.
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `read` (which reads a string's text) one level deeper; `None` past `MAX_DEPTH`.
pub fn deeper<T>(read: impl FnOnce() -> T) -> Option<T> {
    let depth = DEPTH.with(|d| d.get());
    if depth >= MAX_DEPTH {
        return None;
    }
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            DEPTH.with(|d| d.set(d.get() - 1));
        }
    }
    DEPTH.with(|d| d.set(depth + 1));
    let _leave = Leave;
    Some(read())
}

fn lint_string(
    text: &str,
    doc: &Document<'_>,
    options: &Options,
    inventory: Option<&Inventory>,
    (objects, places_out): (&[Object<'_>], Option<&mut super::Places>),
    place: Place,
    out: &mut Vec<Diagnostic>,
) -> super::PodTemplates {
    let none = super::PodTemplates::default();
    let Some((inner, _)) = doc.scalar(place.value) else {
        return none;
    };
    if !inner.contains(':')
        || matches!(doc.node(place.value).tag.as_deref(), Some(t) if t != "!!str")
    {
        return none;
    }
    // The options as they are, unless the string's patch target (or none) is to be set, or
    // whether it is a patch (whose objects say only what they change of its target's).
    let patch = place.deployed.is_none();
    let targeted;
    let inner_options = if place.target.is_none()
        && options.patch_target().is_none()
        && patch == options.patch_file()
    {
        options
    } else {
        let mut o = options.clone();
        o.set_patch_target(place.target.map(Arc::new));
        o.set_patch_file(patch);
        targeted = o;
        &targeted
    };
    // The editor's placements of what the string deploys, at its characters.
    let placing = places_out.is_some() && place.deployed.is_some();
    let ask = super::Ask {
        placements: placing,
        ..super::Ask::new(inner_options, inventory)
    };
    let Some(analysis) = deeper(|| super::check(inner, ask)) else {
        return none;
    };
    let mut judged = analysis.templates;
    let outer = place.object.and_then(|i| objects.get(i));
    if let (Some(places_out), Some(at), false) = (
        places_out,
        &place.deployed,
        analysis.placements.is_empty() && analysis.tolerations.is_empty(),
    ) {
        if let Some(mapped) = MappedString::new(doc, text, place.value) {
            place_string(
                doc.index,
                at,
                (&mapped, outer, place.values),
                &analysis,
                places_out,
            );
        }
    }
    // A patch is no workload of its own: its pod templates are its target's.
    if patch {
        judged = none;
    }
    let mut found = analysis.diagnostics;
    // A string that does not parse is said once, where the parser stopped, unless it is a
    // template (whose actions are not YAML until rendered).
    let template = found.iter().any(|d| d.rule == rules::HELM_TEMPLATE.name);
    if let Some(i) = found
        .iter()
        .position(|d| d.rule == rules::YAML_SYNTAX.name)
        .filter(|_| !template)
    {
        let syntax = found.swap_remove(i);
        let line = inner[..syntax.range.start.min(inner.len())]
            .matches('\n')
            .count()
            + 1;
        found.push(Diagnostic {
            rule: rules::EMBEDDED_YAML_SYNTAX.name,
            severity: rules::EMBEDDED_YAML_SYNTAX.severity,
            message: format!(
                "the YAML in this string does not parse: {} (line {line} of the string)",
                syntax.message
            ),
            ..syntax
        });
    }
    if found.iter().all(|d| left_out(d.rule)) {
        return judged;
    }
    // A string read through an alias is written where its anchor is.
    let mapped = MappedString::new(doc, text, place.value);
    let key_span = doc.node(place.key).span.clone();
    let outer_object = outer.map(rules::object_ref);
    for mut d in found {
        if left_out(d.rule) {
            continue;
        }
        d.document = Some(doc.index);
        // A finding outside any object of the string, or in values that look like a workload
        // (an object of no kind and no name), belongs to the object that holds the string.
        let unnamed = |o: &ObjectRef| o.kind.is_none() && o.name.is_none();
        if d.object.as_ref().is_none_or(unnamed) {
            // A workload of unknown kind in a chart's values is named after the object that
            // installs the chart, as in its `valuesObject`; in other values (a ConfigMap's),
            // after the object that holds them, as `simulate` names it.
            if let (Some(o), Some(_)) = (outer, &d.object) {
                let title = |at: &str| string_title(o, place.values, at);
                d.message = crate::k8s::parts::retitle_values(&d.message, title);
                if let Some(m) = &mut d.server_message {
                    *m = crate::k8s::parts::retitle_values(m, title);
                }
            }
            d.object.clone_from(&outer_object);
        }
        match &mapped {
            Some(mapped) => {
                d.range = mapped.range(&d.range);
                for r in d.related.iter_mut().filter(|r| r.file.is_none()) {
                    r.range = mapped.range(&r.range);
                }
                d.fixes
                    .retain_mut(|fix| outer_fix(text, inner, mapped, fix));
            }
            None => {
                d.range = key_span.clone();
                for r in d.related.iter_mut().filter(|r| r.file.is_none()) {
                    r.range = key_span.clone();
                }
                d.fixes.clear();
            }
        }
        out.push(d);
    }
    judged
}

/// The placements and tolerations of what a string deploys (at `at`, from the document root),
/// for the editor: at the string's characters in the outer text, a workload of unknown kind in
/// a chart's values named after the object that installs the chart.
fn place_string(
    document: usize,
    at: &str,
    (mapped, outer, values): (&MappedString, Option<&Object<'_>>, bool),
    analysis: &super::FileAnalysis,
    out: &mut super::Places,
) {
    for p in &analysis.placements {
        let mut p = p.clone();
        p.document = document;
        p.anchor = mapped.range(&p.anchor);
        p.range = mapped.range(&p.range);
        if let Some(o) = outer {
            p.title = crate::k8s::parts::retitle_values(&p.title, |at| string_title(o, values, at));
        }
        p.path = format!("{at}|{}", p.path);
        if let Some(near) = &mut p.near {
            near.path = format!("{at}|{}", near.path);
        }
        out.placements.push(p);
    }
    for t in &analysis.tolerations {
        let mut t = t.clone();
        t.item = mapped.range(&t.item);
        t.seconds = t.seconds.as_ref().map(|r| mapped.range(r));
        out.tolerations.push(t);
    }
}

/// A fix of the string's text rewritten as a fix of the outer text, when every edit can be
/// written there and the outer file then parses with the string holding exactly the fixed text
/// ([`MappedString::writes`]); `false` (the fix is dropped) otherwise.
pub(crate) fn outer_fix(text: &str, inner: &str, mapped: &MappedString, fix: &mut Fix) -> bool {
    let Some(outer) = fix
        .edits
        .iter()
        .map(|e| mapped.edit(text, inner, &e.range, &e.replacement))
        .collect::<Option<Vec<_>>>()
    else {
        return false;
    };
    let mut ranges: Vec<&Range<usize>> = fix.edits.iter().map(|e| &e.range).collect();
    ranges.sort_by_key(|r| (r.start, r.end));
    if ranges.windows(2).any(|w| w[0].end > w[1].start) {
        return false;
    }
    let expected = fix.apply(inner);
    let edits: Vec<(Range<usize>, &str)> =
        outer.iter().map(|(r, s)| (r.clone(), s.as_str())).collect();
    if !mapped.writes(text, &edits, &expected) {
        return false;
    }
    for (e, (range, replacement)) in fix.edits.iter_mut().zip(outer) {
        e.range = range;
        e.replacement = replacement;
    }
    true
}

/// A workload of unknown kind at `at` in a string of `outer`, as every face names it: after
/// the object that installs the chart (`Application argocd/web, values `worker``) when the
/// string is a chart's values (`values`), else after the object that holds it.
fn string_title(outer: &Object<'_>, values: bool, at: &str) -> String {
    let part = values.then(|| crate::k8s::parts::values_part("", at));
    crate::k8s::parts::object_title(outer, part.as_deref())
}

/// Simulates the pod templates of the strings of a document that hold what is deployed (an
/// Argo CD Application's `helm.values`, an Argo Workflows `manifest`, a values ConfigMap), as
/// [`check`] lints them: each named by the object that holds the string unless it names its
/// own, at the string's path and then the template's path inside it (`spec.source.helm.values|`
/// and the values' own path). Returns why some string was not read: one that does not parse
/// ([`Unread::String`](super::Unread::String)), else one that is a template.
pub(super) fn simulate(
    text: &str,
    doc: &Document<'_>,
    options: &Options,
    inventory: &Inventory,
    objects: &[Object<'_>],
    out: &mut Vec<crate::schedule::WorkloadResult>,
) -> Option<super::Unread> {
    let mut unread = None;
    for place in places(text, doc, objects, 0..objects.len()) {
        let Some(at) = place.deployed else { continue };
        let Some((inner, _)) = doc.scalar(place.value) else {
            continue;
        };
        if !inner.contains(':')
            || matches!(doc.node(place.value).tag.as_deref(), Some(t) if t != "!!str")
        {
            continue;
        }
        let Some(simulated) = deeper(|| super::simulate(inner, options, inventory)) else {
            continue;
        };
        let (found, why) = (simulated.workloads, simulated.unread);
        unread = match (unread, why) {
            (Some(super::Unread::String), _) | (_, None) => unread,
            (_, Some(super::Unread::Template)) => Some(super::Unread::Template),
            (_, Some(_)) => Some(super::Unread::String),
        };
        let outer = place.object.and_then(|i| objects.get(i));
        for mut w in found {
            w.document = doc.index;
            w.item = None;
            if w.kind.is_none() && w.name.is_none() {
                if let Some(o) = outer {
                    // Named after the object that installs the chart, as in its
                    // `valuesObject`.
                    if place.values {
                        w.part = Some(crate::k8s::parts::values_part("", &w.path));
                        w.object_path.clone_from(&o.path);
                    }
                    w.kind = o.kind.map(str::to_string);
                    w.name = o.name.map(str::to_string);
                    w.namespace = o.namespace.map(str::to_string);
                }
            }
            w.path = format!("{at}|{}", w.path);
            out.push(w);
        }
    }
    unread
}
