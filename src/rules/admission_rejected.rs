//! `admission-rejected`: a pod template whose pods an admission plugin refuses
//! (RuntimeClass, PodTolerationRestriction).

use std::ops::Range;

use super::{finding, shown, Rule, RuleMeta};
use crate::config::Options;
use crate::diagnostic::{Diagnostic, Severity};
use crate::k8s::cluster::{Place, TOLERATIONS_WHITELIST};
use crate::k8s::objects::Extracted;
use crate::schedule::admission::{Rejection, Scope, Source};
use crate::schedule::Workload;
use crate::syntax::Document;

pub struct AdmissionRejected;

pub static META: RuleMeta = RuleMeta {
    name: "admission-rejected",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A pod template whose pods an admission plugin refuses (RuntimeClass, PodTolerationRestriction)",
    why: "The API server refuses every pod made from it: a workload's controller retries forever.",
    explanation: r#"## What it catches
A pod template (of any workload kind) whose pods the API server refuses when they are created,
by one of two admission plugins:

- **RuntimeClass** (on by default; upstream plugin/pkg/admission/runtimeclass/admission.go):
  `runtimeClassName` names a RuntimeClass the cluster does not have (`pod rejected: RuntimeClass
  "kata" not found`), or the class's `scheduling.nodeSelector` sets a label the pod's
  `nodeSelector` sets to another value (`conflict: runtimeClass.scheduling.nodeSelector[...]`).
  The cluster's RuntimeClasses are those found among the linted files and the inventory files
  (`kubectl get runtimeclass -o yaml` output works as an inventory file); when none is found, a
  `runtimeClassName` is taken on trust.
- **PodTolerationRestriction** (off by default; `--enable-admission-plugins
  PodTolerationRestriction`; upstream plugin/pkg/admission/podtolerationrestriction/admission.go
  and pkg/util/tolerations/tolerations.go): a toleration of the pod is not within its
  namespace's whitelist (the annotation `scheduler.alpha.kubernetes.io/tolerationsWhitelist`,
  else the plugin configuration's whitelist). A whitelist entry covers a toleration when it
  tolerates a superset of it (upstream `isSuperset`: an empty key with `Exists` covers every key,
  an empty effect every effect, `Exists` every value, a NoExecute entry with `tolerationSeconds`
  only tolerations with at most as many seconds; an omitted operator is not `Equal` there). The
  whitelist sees every toleration the pod ends up with: its own, the namespace's default
  tolerations (`scheduler.alpha.kubernetes.io/defaultTolerations`, merged first), the
  DefaultTolerationSeconds ones, `node.kubernetes.io/memory-pressure` for every pod that is not
  BestEffort, and, in the validating phase, those ExtendedResourceToleration and RuntimeClass
  add. A namespace annotation that is not a JSON list of tolerations rejects the namespace's pods.

**The repository's policy** (`.taintlint.yaml` `policy:`) is checked the same way, as if
PodTolerationRestriction were on with the policy as its configuration and namespace
annotations (`clusterDefaultTolerations`, `clusterTolerationWhitelist`, and per namespace
`defaultTolerations` and `tolerationsWhitelist`), whether or not the cluster runs the plugin. Its
findings start with `policy (.taintlint.yaml, not the API server)`, carry no server message, and
do not make `simulate` call the workload rejected: the API server would create its pods.

A pod without `metadata.namespace` is taken to be in `default`, as `kubectl apply` puts it
without `-n`. The message says which toleration is outside which whitelist and where it came
from; a related location points at the namespace's annotation or the RuntimeClass.

## Why it matters
The manifest itself is accepted (a Deployment is not a pod), but every pod its controller makes
is refused: the ReplicaSet reports `FailedCreate` events and the workload never runs.

## Example
```yaml
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
scheduling:
  nodeSelector: {sandbox: gvisor}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  runtimeClassName: gvisor
  nodeSelector: {sandbox: kata}     # conflicts with the class's selector
  containers: [{name: web, image: nginx}]
```

## Fix
Name a RuntimeClass the cluster has, and drop the pod's own `nodeSelector` entry that the class
sets. For a whitelist, remove the toleration the namespace does not allow, or ask the cluster's
administrators to add it to the namespace's `tolerationsWhitelist`; remember that
DefaultTolerationSeconds' not-ready and unreachable tolerations and the memory-pressure one must
be whitelisted too.
"#,
};

impl Rule for AdmissionRejected {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }
}

/// Whether any pod spec of the document could be refused: a RuntimeClass is named, or
/// PodTolerationRestriction is on.
pub(crate) fn worth_admitting(doc: &Document<'_>, ex: &Extracted<'_>, options: &Options) -> bool {
    options.admission_enabled("PodTolerationRestriction")
        || options.policy().is_some()
        || ex
            .pod_specs
            .iter()
            .any(|p| doc.get(p.node, "runtimeClassName").is_some())
}

/// Reports the pod templates of one document that admission refuses, and, with `policy`, those
/// the repository's policy refuses (the API server would create those: `simulate` leaves them
/// out).
pub(crate) fn check(
    doc: &Document<'_>,
    ex: &Extracted<'_>,
    options: &Options,
    policy: bool,
    out: &mut Vec<Diagnostic>,
) {
    if worth_admitting(doc, ex, options) {
        check_specs(doc, ex, options, 0..ex.pod_specs.len(), policy, out);
    }
}

/// [`check`] for the pod specs `specs` (indices in [`Extracted::pod_specs`]), once
/// [`worth_admitting`] says so.
pub(crate) fn check_specs(
    doc: &Document<'_>,
    ex: &Extracted<'_>,
    options: &Options,
    specs: std::ops::Range<usize>,
    policy: bool,
    out: &mut Vec<Diagnostic>,
) {
    for i in specs {
        let w = Workload::new(doc, ex, i, options);
        let (rejection, policy) = match (&w.rejection, &w.policy_rejection) {
            (Some(r), _) => (r, false),
            (None, Some(r)) if policy => (r, true),
            _ => continue,
        };
        let object = &ex.objects[w.object];
        let title = match (object.kind, object.namespace, object.name) {
            (Some(k), Some(ns), Some(n)) => format!("{k} {ns}/{n}"),
            (Some(k), None, Some(n)) => format!("{k} {n}"),
            _ => "this pod template".to_string(),
        };
        let (range, path) = place(doc, &w, rejection);
        let mut d = if policy {
            // The repository's policy, not the API server: no server message, and the
            // whitelist is the configuration file's.
            let message = policy_message(&title, rejection);
            finding(&META, doc, Some(object), range, path, message)
        } else {
            let message = message(&title, rejection, options);
            let mut d = finding(&META, doc, Some(object), range, path, message);
            d.with_server_message(rejection.server_message());
            d
        };
        if policy {
            out.push(d);
            continue;
        }
        if let Some((at, what)) = related(rejection, options) {
            if at.file.is_empty() {
                d.with_related(at.range.clone(), what);
            } else {
                d.with_related_in(&at.file, at.range.clone(), what);
            }
        }
        out.push(d);
    }
}

/// Where the finding points: the field that causes the rejection.
fn place(doc: &Document<'_>, w: &Workload<'_>, rejection: &Rejection) -> (Range<usize>, String) {
    let span = |id| doc.node(id).span.clone();
    match rejection {
        Rejection::RuntimeClassNotFound(_) => {
            if let Some((_, v)) = doc.get(w.spec, "runtimeClassName") {
                return (span(v), format!("{}.runtimeClassName", w.path));
            }
        }
        Rejection::NodeSelectorConflict { key, .. } => {
            if let Some(e) = w.node_selector.iter().find(|e| *e.key == **key) {
                return (span(e.value_node), format!("{}.nodeSelector.{key}", w.path));
            }
        }
        Rejection::NotWhitelisted {
            source: Source::Manifest(i),
            ..
        } => {
            if let Some(item) = w.items.get(*i) {
                let first = doc
                    .mapping(item.node)
                    .and_then(|e| e.first())
                    .map_or(item.node, |&(k, _)| k);
                return (span(first), item.path.clone());
            }
        }
        _ => {}
    }
    if let Some(list) = &w.list {
        return (span(list.key), list.path.clone());
    }
    if let Some((k, _)) = doc.get(w.spec, "runtimeClassName") {
        return (span(k), format!("{}.runtimeClassName", w.path));
    }
    let first = doc
        .mapping(w.spec)
        .and_then(|e| e.first())
        .map_or(w.spec, |&(k, _)| k);
    (span(first), w.path.clone())
}

fn message(title: &str, rejection: &Rejection, options: &Options) -> String {
    let plugin = rejection.plugin();
    match rejection {
        Rejection::RuntimeClassNotFound(name) => {
            let cluster = options.cluster();
            let known: Vec<&str> = cluster.runtime_class_names().collect();
            let why = if cluster.is_refused(name) {
                "the API server refuses its definition, so it is never created".to_string()
            } else if known.is_empty() {
                "the cluster has none".to_string()
            } else {
                format!("the cluster has {}", known.join(", "))
            };
            format!(
                "{plugin} admission rejects {title}: RuntimeClass {} not found ({why})",
                shown(name),
            )
        }
        Rejection::NodeSelectorConflict {
            class,
            key,
            class_value,
            pod_value,
        } => format!(
            "{plugin} admission rejects {title}: RuntimeClass {class} selects {key}={class_value}, \
             the pod's nodeSelector {key}={pod_value}"
        ),
        Rejection::Annotation {
            namespace,
            annotation,
            error,
        } => format!(
            "{plugin} admission rejects {title}: namespace {namespace}'s annotation {annotation} \
             does not decode: {}",
            error.message
        ),
        Rejection::NotWhitelisted {
            toleration,
            source,
            scope,
            others,
            after_runtime_class,
        } => {
            let whitelist = match scope {
                Scope::Namespace(ns) => format!("namespace {ns}'s tolerationsWhitelist"),
                Scope::Cluster => "the cluster's whitelist (plugin configuration)".to_string(),
            };
            let (from, more) = origin_and_more(source, *others);
            let when = if *after_runtime_class && !matches!(source, Source::Manifest(_)) {
                ", checked after every plugin added its tolerations"
            } else {
                ""
            };
            format!(
                "{plugin} admission rejects {title}: toleration {} ({from}) is outside \
                 {whitelist}{more}{when}",
                super::workload::flow_yaml(toleration)
            )
        }
    }
}

/// Where the toleration outside the whitelist came from, and how many others are outside too.
fn origin_and_more(source: &Source, others: usize) -> (String, String) {
    let from = match source {
        Source::Manifest(i) => format!("tolerations[{i}]"),
        other => other.describe(),
    };
    let more = match others {
        0 => String::new(),
        1 => " (and 1 more)".to_string(),
        n => format!(" (and {n} more)"),
    };
    (from, more)
}

/// A rejection by the repository's policy (`.taintlint.yaml` `policy:`), said as such.
fn policy_message(title: &str, rejection: &Rejection) -> String {
    let Rejection::NotWhitelisted {
        toleration,
        source,
        scope,
        others,
        ..
    } = rejection
    else {
        return format!("the repository's toleration policy rejects {title}");
    };
    let whitelist = match scope {
        Scope::Namespace(ns) => format!("namespace {ns}'s whitelist"),
        Scope::Cluster => "the cluster-wide whitelist".to_string(),
    };
    let (from, more) = origin_and_more(source, *others);
    format!(
        "policy (.taintlint.yaml, not the API server) rejects {title}: toleration {} ({from}) is \
         outside {whitelist}{more}",
        super::workload::flow_yaml(toleration)
    )
}

/// The place that explains the rejection: the namespace's annotation, or the RuntimeClass.
fn related(rejection: &Rejection, options: &Options) -> Option<(Place, String)> {
    let cluster = options.cluster();
    match rejection {
        Rejection::NodeSelectorConflict { class, .. } => {
            let rc = cluster.runtime_class(class)?;
            Some((rc.at.clone(), format!("RuntimeClass {class}")))
        }
        Rejection::NotWhitelisted {
            scope: Scope::Namespace(ns),
            ..
        } => {
            let a = cluster.namespace(ns)?.whitelist.as_ref()?;
            Some((
                a.at.clone(),
                format!("{TOLERATIONS_WHITELIST} of namespace {ns}"),
            ))
        }
        Rejection::Annotation {
            namespace,
            annotation,
            ..
        } => {
            let ns = cluster.namespace(namespace)?;
            let a = if *annotation == TOLERATIONS_WHITELIST {
                ns.whitelist.as_ref()
            } else {
                ns.default_tolerations.as_ref()
            }?;
            Some((
                a.at.clone(),
                format!("{annotation} of namespace {namespace}"),
            ))
        }
        _ => None,
    }
}
