//! Tolerations a pod gets that its manifest does not show: the DaemonSet controller's
//! (pkg/controller/daemon/util `AddOrUpdateDaemonPodTolerations`) and the admission plugins'
//! (`DefaultTolerationSeconds`, on by default; `ExtendedResourceToleration`, off by default),
//! each switchable with kube-apiserver's `--enable/--disable-admission-plugins`; then
//! `PodTolerationRestriction` (off by default: a namespace's default tolerations and whitelist)
//! and `RuntimeClass` (on by default: the class's `scheduling`). They run in kube-apiserver's
//! order (pkg/kubeapiserver/options/plugins.go `AllOrderedPlugins`): DefaultTolerationSeconds,
//! PodTolerationRestriction, ExtendedResourceToleration, RuntimeClass; every mutating plugin
//! before any validating one, so PodTolerationRestriction's whitelist is checked once when it
//! admits the pod and again after RuntimeClass has merged its tolerations.

use crate::config::Options;
use crate::inventory::platform::Platform;
use crate::k8s::cluster::{
    AnnotationError, ApiToleration, Namespace, DEFAULT_TOLERATIONS, TOLERATIONS_WHITELIST,
};
use crate::k8s::model::{Effect, Operator, Toleration};
use crate::k8s::names::is_qualified_name;
use crate::k8s::well_known::{NOT_READY, UNREACHABLE, UNSCHEDULABLE};

/// Where an effective toleration comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// The manifest's own `tolerations[i]`.
    Manifest(usize),
    /// The DaemonSet controller adds it to every daemon pod.
    DaemonSet,
    /// The DefaultTolerationSeconds admission plugin.
    DefaultTolerationSeconds,
    /// The ExtendedResourceToleration admission plugin, for this requested resource.
    ExtendedResourceToleration(String),
    /// PodTolerationRestriction: the `i`th of the namespace's default tolerations (its
    /// `scheduler.alpha.kubernetes.io/defaultTolerations` annotation).
    NamespaceDefault(String, usize),
    /// PodTolerationRestriction: the `i`th of the cluster's default tolerations (the plugin's
    /// configuration), for a namespace without the annotation.
    ClusterDefault(usize),
    /// PodTolerationRestriction: memory-pressure, for every pod that is not BestEffort.
    MemoryPressure,
    /// The `i`th of the RuntimeClass's `scheduling.tolerations`.
    RuntimeClass(String, usize),
    /// The `i`th of a Kueue ResourceFlavor's `spec.tolerations`, which Kueue adds to the pods
    /// it admits on that flavor (kubernetes-sigs/kueue pkg/podset/podset.go).
    ResourceFlavor(String, usize),
    /// The platform adds it to pods that select what it names (see [`platform_tolerations`]):
    /// the platform and the label the pod selects.
    Platform(Platform, &'static str),
}

impl Source {
    /// Plain words for a finding's message.
    pub fn describe(&self) -> String {
        match self {
            Source::Manifest(i) => format!("tolerations[{i}]"),
            Source::DaemonSet => "added by the DaemonSet controller".into(),
            Source::DefaultTolerationSeconds => {
                "added by the DefaultTolerationSeconds admission plugin".into()
            }
            Source::ExtendedResourceToleration(r) => {
                format!("added by the ExtendedResourceToleration admission plugin for {r}")
            }
            Source::NamespaceDefault(ns, i) => format!(
                "a default toleration of namespace {ns} (defaultTolerations[{i}], merged by \
                 PodTolerationRestriction)"
            ),
            Source::ClusterDefault(i) => format!(
                "the cluster's default toleration {i} (PodTolerationRestriction configuration)"
            ),
            Source::MemoryPressure => {
                "added by PodTolerationRestriction to every pod that is not BestEffort".into()
            }
            Source::RuntimeClass(rc, i) => {
                format!("from RuntimeClass {rc} (scheduling.tolerations[{i}])")
            }
            Source::ResourceFlavor(f, i) => format!(
                "added by Kueue to workloads admitted on ResourceFlavor {f} (spec.tolerations[{i}])"
            ),
            Source::Platform(p, label) => {
                format!("added by {p} to pods that select {label}")
            }
        }
    }

    /// Where it came from, in words that follow "by a toleration": `namespace shop gives by
    /// default (defaultTolerations[0])`, `RuntimeClass gvisor adds (scheduling.tolerations[0])`.
    pub fn origin(&self) -> String {
        match self {
            Source::Manifest(i) => format!("of the manifest (tolerations[{i}])"),
            Source::DaemonSet => "the DaemonSet controller adds".into(),
            Source::DefaultTolerationSeconds => "DefaultTolerationSeconds adds".into(),
            Source::ExtendedResourceToleration(r) => {
                format!("ExtendedResourceToleration adds for {r}")
            }
            Source::NamespaceDefault(ns, i) => {
                format!("namespace {ns} gives by default (defaultTolerations[{i}])")
            }
            Source::ClusterDefault(i) => {
                format!("PodTolerationRestriction's configuration gives by default (default[{i}])")
            }
            Source::MemoryPressure => "PodTolerationRestriction adds (not BestEffort)".into(),
            Source::RuntimeClass(rc, i) => {
                format!("RuntimeClass {rc} adds (scheduling.tolerations[{i}])")
            }
            Source::ResourceFlavor(f, i) => {
                format!("Kueue adds on ResourceFlavor {f} (spec.tolerations[{i}])")
            }
            Source::Platform(p, label) => format!("{p} adds to pods that select {label}"),
        }
    }

    /// Whether admission added it to the pod (the DaemonSet controller does not see these when
    /// it picks the nodes a daemon pod is made for).
    pub fn from_admission(&self) -> bool {
        !matches!(self, Source::Manifest(_) | Source::DaemonSet)
    }
}

/// Which whitelist a toleration is checked against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The namespace's `scheduler.alpha.kubernetes.io/tolerationsWhitelist`.
    Namespace(String),
    /// The PodTolerationRestriction configuration's whitelist.
    Cluster,
}

impl Scope {
    /// Upstream's word for it in the rejection ("conflict with its %s whitelist").
    pub fn word(&self) -> &'static str {
        match self {
            Scope::Namespace(_) => "namespace",
            Scope::Cluster => "cluster",
        }
    }
}

/// Why the API server (or the repository's policy) refuses to create the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// RuntimeClass: `pod rejected: RuntimeClass %q not found`.
    RuntimeClassNotFound(String),
    /// RuntimeClass: the class's nodeSelector sets a key the pod sets to another value.
    NodeSelectorConflict {
        class: String,
        key: String,
        class_value: String,
        pod_value: String,
    },
    /// PodTolerationRestriction cannot read one of the namespace's annotations.
    Annotation {
        namespace: String,
        annotation: &'static str,
        error: AnnotationError,
    },
    /// PodTolerationRestriction: a toleration is not within the whitelist; `others` more are
    /// not either.
    NotWhitelisted {
        toleration: Toleration,
        source: Source,
        scope: Scope,
        others: usize,
        /// Whether it was found only after RuntimeClass merged its tolerations.
        after_runtime_class: bool,
    },
}

impl Rejection {
    /// The admission plugin that rejects the pod.
    pub fn plugin(&self) -> &'static str {
        match self {
            Rejection::RuntimeClassNotFound(_) | Rejection::NodeSelectorConflict { .. } => {
                "RuntimeClass"
            }
            _ => "PodTolerationRestriction",
        }
    }

    /// The API server's own message.
    pub fn server_message(&self) -> String {
        match self {
            Rejection::RuntimeClassNotFound(name) => {
                format!("pod rejected: RuntimeClass {name:?} not found")
            }
            Rejection::NodeSelectorConflict {
                key,
                class_value,
                pod_value,
                ..
            } => format!(
                "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {class_value}; \
                 pod.spec.nodeSelector[{key}] = {pod_value}"
            ),
            Rejection::Annotation { error, .. } => error.message.clone(),
            Rejection::NotWhitelisted { scope, .. } => format!(
                "pod tolerations (possibly merged with namespace default tolerations) conflict \
                 with its {} whitelist",
                scope.word()
            ),
        }
    }
}

/// A pod as admission sees it.
#[derive(Debug, Clone, Copy)]
pub struct Pod<'a> {
    pub kind: Option<&'a str>,
    /// Its namespace (`default` when the manifest names none, as `kubectl apply` would).
    pub namespace: &'a str,
    pub host_network: bool,
    pub requested: &'a [String],
    /// Whether no container requests or limits CPU or memory (QoS class BestEffort).
    pub best_effort: bool,
    pub runtime_class: Option<&'a str>,
    pub node_selector: &'a [(String, String)],
    /// Its required node affinity.
    pub affinity: Option<&'a super::affinity::Affinity>,
}

/// What admission makes of a pod.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Admitted {
    pub tolerations: Tolerations,
    /// The nodeSelector entries its RuntimeClass adds.
    pub node_selector: Vec<(String, String)>,
    /// Why the API server refuses it, if it does.
    pub rejection: Option<Rejection>,
}

/// upstream `isSuperset` (pkg/util/tolerations/tolerations.go): whether `ss` tolerates a
/// superset of what `t` tolerates.
pub fn is_superset(ss: &ApiToleration, t: &ApiToleration) -> bool {
    if ss == t {
        return true;
    }
    let (s, u) = (&ss.toleration, &t.toleration);
    if u.key != s.key && (!s.key.is_empty() || s.operator != Operator::Exists) {
        return false;
    }
    if u.effect != s.effect && s.effect.is_some() {
        return false;
    }
    if s.effect == Some(Effect::NoExecute) {
        if let Some(limit) = s.toleration_seconds {
            if u.toleration_seconds.is_none_or(|secs| secs > limit) {
                return false;
            }
        }
    }
    match s.operator {
        // Upstream compares the operator string with "Equal": an omitted one is not.
        Operator::Equal => u.operator == Operator::Equal && !t.bare_operator && u.value == s.value,
        Operator::Exists => true,
        Operator::Lt | Operator::Gt => false,
    }
}

/// upstream `MergeTolerations`: both lists, each toleration kept only when no other one
/// (already kept, or later and not equal) is a superset of it.
pub fn merge_tolerations<T: Clone>(
    first: &[(ApiToleration, T)],
    second: &[(ApiToleration, T)],
) -> Vec<(ApiToleration, T)> {
    let all: Vec<&(ApiToleration, T)> = first.iter().chain(second).collect();
    let mut merged: Vec<(ApiToleration, T)> = Vec::new();
    'next: for (i, t) in all.iter().enumerate() {
        if merged.iter().any(|m| is_superset(&m.0, &t.0)) {
            continue;
        }
        for t2 in &all[i + 1..] {
            if t.0 != t2.0 && is_superset(&t2.0, &t.0) {
                continue 'next;
            }
        }
        merged.push((*t).clone());
    }
    merged
}

/// upstream `VerifyAgainstWhitelist`, returning the tolerations (indices) no whitelist entry
/// covers: none when the whitelist or the tolerations are empty.
pub fn outside_whitelist(tolerations: &[ApiToleration], whitelist: &[ApiToleration]) -> Vec<usize> {
    if whitelist.is_empty() {
        return Vec::new();
    }
    tolerations
        .iter()
        .enumerate()
        .filter(|(_, t)| !whitelist.iter().any(|w| is_superset(w, t)))
        .map(|(i, _)| i)
        .collect()
}

/// A pod's tolerations with where each comes from.
pub type Tolerations = Vec<(Toleration, Source)>;

pub const DISK_PRESSURE: &str = "node.kubernetes.io/disk-pressure";
pub const MEMORY_PRESSURE: &str = "node.kubernetes.io/memory-pressure";
pub const PID_PRESSURE: &str = "node.kubernetes.io/pid-pressure";
pub const NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";

/// The seconds DefaultTolerationSeconds gives (kube-apiserver's
/// `--default-not-ready-toleration-seconds` and `--default-unreachable-toleration-seconds`).
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;

/// Upstream `AddOrUpdateTolerationInPodSpec`: every toleration with the same key, operator,
/// value and effect is replaced by `toleration`; without one, it is appended. Returns whether
/// anything changed.
pub fn add_or_update(
    tolerations: &mut Tolerations,
    toleration: Toleration,
    source: Source,
) -> bool {
    // Upstream returns early, unchanged, at a matching toleration that is already equal.
    if tolerations.iter().any(|(t, _)| *t == toleration) {
        return false;
    }
    let mut updated = false;
    for (t, s) in tolerations.iter_mut() {
        if toleration.same_match(t) {
            *t = toleration.clone();
            *s = source.clone();
            updated = true;
        }
    }
    if !updated {
        tolerations.push((toleration, source));
    }
    true
}

/// The DaemonSet controller's tolerations for daemon pods (`hostNetwork` adds
/// network-unavailable).
pub fn daemon_set(tolerations: &mut Tolerations, host_network: bool) {
    let mut keys = vec![
        (NOT_READY, Effect::NoExecute),
        (UNREACHABLE, Effect::NoExecute),
        (DISK_PRESSURE, Effect::NoSchedule),
        (MEMORY_PRESSURE, Effect::NoSchedule),
        (PID_PRESSURE, Effect::NoSchedule),
        (UNSCHEDULABLE, Effect::NoSchedule),
    ];
    if host_network {
        keys.push((NETWORK_UNAVAILABLE, Effect::NoSchedule));
    }
    for (key, effect) in keys {
        add_or_update(
            tolerations,
            Toleration::exists(key, effect),
            Source::DaemonSet,
        );
    }
}

/// DefaultTolerationSeconds' `Admit`: not-ready and unreachable NoExecute for 300 s, unless a
/// toleration with that key (or no key) and effect NoExecute (or no effect) is already there,
/// whatever its operator and value.
pub fn default_toleration_seconds(tolerations: &mut Tolerations) {
    let covers = |key: &str| {
        tolerations.iter().any(|(t, _)| {
            (t.key == key || t.key.is_empty()) && t.effect.is_none_or(|e| e == Effect::NoExecute)
        })
    };
    let not_ready = covers(NOT_READY);
    let unreachable = covers(UNREACHABLE);
    for (needed, key) in [(!not_ready, NOT_READY), (!unreachable, UNREACHABLE)] {
        if needed {
            let mut t = Toleration::exists(key, Effect::NoExecute);
            t.toleration_seconds = Some(DEFAULT_TOLERATION_SECONDS);
            tolerations.push((t, Source::DefaultTolerationSeconds));
        }
    }
}

/// upstream `IsNativeResource`: unprefixed, or in a `kubernetes.io/` namespace.
pub fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// upstream `IsExtendedResourceName`.
pub fn is_extended_resource_name(name: &str) -> bool {
    if is_native_resource(name) || name.starts_with("requests.") {
        return false;
    }
    is_qualified_name(&format!("requests.{name}")).is_empty()
}

/// ExtendedResourceToleration's `Admit`: `<resource> Exists NoSchedule` for every extended
/// resource the containers request, in sorted order.
pub fn extended_resource_toleration(tolerations: &mut Tolerations, requested: &[String]) {
    let mut resources: Vec<&String> = requested
        .iter()
        .filter(|r| is_extended_resource_name(r))
        .collect();
    resources.sort();
    resources.dedup();
    for r in resources {
        add_or_update(
            tolerations,
            Toleration::exists(r, Effect::NoSchedule),
            Source::ExtendedResourceToleration(r.clone()),
        );
    }
}

/// The labels whose selection makes GKE add the toleration of the taint it gives the nodes
/// that carry them, with the taint's effect:
/// - `cloud.google.com/compute-class`: nodes of a pool a custom ComputeClass uses carry the
///   label and the taint `cloud.google.com/compute-class=<class>:NoSchedule`
///   (cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes), and "GKE
///   will mutate any pod specifying a CC label in a nodeSelector or in a nodeAffinity with a
///   toleration for the CC node label" (GoogleCloudPlatform/kubernetes-engine-samples
///   autoscaling/custom-compute-classes/vap/restrict-toleration.yaml);
/// - `kubernetes.io/arch` = `arm64`: GKE taints Arm nodes `kubernetes.io/arch=arm64:NoSchedule`
///   and "automatically adds a toleration to the workload configuration" of a pod that selects
///   them (cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment).
const GKE_SELECTED: &[(&str, Option<&str>)] = &[
    ("cloud.google.com/compute-class", None),
    ("kubernetes.io/arch", Some("arm64")),
];

/// What the platform's own admission adds to a pod for what its `nodeSelector` or required
/// node affinity selects (see `GKE_SELECTED`).
pub fn platform_tolerations(
    tolerations: &mut Tolerations,
    node_selector: &[(String, String)],
    affinity: Option<&super::affinity::Affinity>,
    platform: Platform,
) {
    if platform != Platform::Gke {
        return;
    }
    for &(key, only) in GKE_SELECTED {
        let selected = node_selector
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .or_else(|| affinity.and_then(|a| a.selected_value(key)));
        let Some(value) = selected.filter(|v| only.is_none_or(|o| o == *v)) else {
            continue;
        };
        add_or_update(
            tolerations,
            Toleration {
                key: key.to_string(),
                operator: Operator::Equal,
                value: value.to_string(),
                effect: Some(Effect::NoSchedule),
                toleration_seconds: None,
            },
            Source::Platform(platform, key),
        );
    }
}

/// Every toleration a pod of this kind ends up with: the manifest's, then the DaemonSet
/// controller's, then the enabled admission plugins' (see [`admit`]), for a pod in a namespace
/// without annotations and without a RuntimeClass.
pub fn effective(
    manifest: Tolerations,
    kind: Option<&str>,
    host_network: bool,
    requested: &[String],
    options: &Options,
) -> Tolerations {
    let pod = Pod {
        kind,
        namespace: "default",
        host_network,
        requested,
        best_effort: true,
        runtime_class: None,
        node_selector: &[],
        affinity: None,
    };
    admit(&pod, manifest, &[], options).tolerations
}

/// The toleration memory-pressure, which PodTolerationRestriction gives pods that are not
/// BestEffort.
fn memory_pressure() -> ApiToleration {
    ApiToleration::new(
        Toleration::exists(MEMORY_PRESSURE, Effect::NoSchedule),
        false,
    )
}

/// What the API server makes of a pod: the manifest's tolerations (`bare[i]`: whether the
/// `i`th omits its operator), the DaemonSet controller's, then each enabled admission plugin in
/// kube-apiserver's order; and the first reason it refuses the pod.
pub fn admit(pod: &Pod<'_>, manifest: Tolerations, bare: &[bool], options: &Options) -> Admitted {
    admit_in(
        pod,
        manifest,
        bare,
        options,
        options.cluster().namespace(pod.namespace),
    )
}

/// [`admit`] with the pod's Namespace given (what PodTolerationRestriction reads its
/// annotations from): the repository's policy passes its own.
pub fn admit_in(
    pod: &Pod<'_>,
    manifest: Tolerations,
    bare: &[bool],
    options: &Options,
    namespace: Option<&Namespace>,
) -> Admitted {
    let cx = Admission {
        pod,
        bare,
        options,
        namespace,
    };
    let mut out = manifest;
    if pod.kind == Some("DaemonSet") {
        daemon_set(&mut out, pod.host_network);
    }
    if options.admission_enabled("DefaultTolerationSeconds") {
        default_toleration_seconds(&mut out);
    }
    let mut admitted = Admitted::default();
    let restriction = options.admission_enabled("PodTolerationRestriction");
    if restriction {
        if let Some(rejection) = cx.restriction_defaults(&mut out) {
            admitted.tolerations = out;
            admitted.rejection = Some(rejection);
            return admitted;
        }
        admitted.rejection = cx.whitelist_check(&out, false);
    }
    if options.admission_enabled("ExtendedResourceToleration") {
        extended_resource_toleration(&mut out, pod.requested);
    }
    if let Some(platform) = options.platform() {
        platform_tolerations(&mut out, pod.node_selector, pod.affinity, platform);
    }
    if options.admission_enabled("RuntimeClass") && admitted.rejection.is_none() {
        cx.runtime_class(&mut out, &mut admitted);
    }
    // The validating phase: PodTolerationRestriction checks what every plugin has added.
    if restriction && admitted.rejection.is_none() {
        admitted.rejection = cx.whitelist_check(&out, true);
    }
    admitted.tolerations = out;
    admitted
}

/// What [`admit_in`]'s phases read: the pod, where its tolerations were written, the cluster's
/// settings and the pod's Namespace.
struct Admission<'a, 'p> {
    pod: &'a Pod<'p>,
    bare: &'a [bool],
    options: &'a Options,
    namespace: Option<&'a Namespace>,
}

impl Admission<'_, '_> {
    /// A toleration as the API server holds it: with whether it omits its operator, from where
    /// it was written (the manifest, a Namespace's or the cluster's defaults, a RuntimeClass).
    fn api(&self, t: &Toleration, s: &Source) -> ApiToleration {
        let bare = match s {
            Source::Manifest(i) => self.bare.get(*i).copied().unwrap_or(false),
            Source::NamespaceDefault(_, i) => self
                .namespace
                .and_then(|n| n.default_tolerations.as_ref())
                .and_then(|a| a.tolerations.as_ref().ok())
                .and_then(|ts| ts.get(*i))
                .is_some_and(|t| t.bare_operator),
            Source::ClusterDefault(i) => self
                .options
                .toleration_restriction()
                .default
                .get(*i)
                .is_some_and(|t| t.bare_operator),
            Source::RuntimeClass(rc, i) => self
                .options
                .cluster()
                .runtime_class(rc)
                .and_then(|rc| rc.tolerations.get(*i))
                .is_some_and(|t| t.bare_operator),
            _ => false,
        };
        ApiToleration::new(t.clone(), bare)
    }

    /// `extra` merged into `list` as the API server merges them ([`merge_tolerations`]: a
    /// toleration that another one covers is dropped).
    fn merge(&self, list: Tolerations, extra: &[(ApiToleration, Source)]) -> Tolerations {
        let with_api: Vec<(ApiToleration, Source)> = list
            .iter()
            .map(|(t, s)| (self.api(t, s), s.clone()))
            .collect();
        merge_tolerations(&with_api, extra)
            .into_iter()
            .map(|(t, s)| (t.toleration, s))
            .collect()
    }

    /// PodTolerationRestriction's mutating phase: the Namespace's default tolerations (its
    /// annotation), else the cluster's, and memory-pressure for a pod that is not BestEffort,
    /// merged into the pod's `out`. A default-tolerations annotation that does not parse
    /// refuses the pod: that rejection, `out` left as it was.
    fn restriction_defaults(&self, out: &mut Tolerations) -> Option<Rejection> {
        let pod = self.pod;
        let mut extra: Vec<(ApiToleration, Source)> =
            match self.namespace.and_then(|n| n.default_tolerations.as_ref()) {
                Some(a) => match &a.tolerations {
                    Ok(ts) => ts
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            (
                                t.clone(),
                                Source::NamespaceDefault(pod.namespace.to_string(), i),
                            )
                        })
                        .collect(),
                    Err(error) => {
                        let rejection = Rejection::Annotation {
                            namespace: pod.namespace.to_string(),
                            annotation: DEFAULT_TOLERATIONS,
                            error: error.clone(),
                        };
                        return Some(rejection);
                    }
                },
                None => self
                    .options
                    .toleration_restriction()
                    .default
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (t.clone(), Source::ClusterDefault(i)))
                    .collect(),
            };
        if !pod.best_effort {
            extra.push((memory_pressure(), Source::MemoryPressure));
        }
        if !extra.is_empty() {
            *out = self.merge(std::mem::take(out), &extra);
        }
        None
    }

    /// PodTolerationRestriction's whitelist check (its Validate, which its Admit calls too):
    /// the first toleration outside the Namespace's whitelist (its annotation), else the
    /// cluster's, refuses the pod; so does a whitelist annotation that does not parse.
    /// `after_runtime_class`: the check of the validating phase, after every plugin.
    fn whitelist_check(&self, list: &Tolerations, after_runtime_class: bool) -> Option<Rejection> {
        if list.is_empty() {
            return None;
        }
        let pod = self.pod;
        let config = self.options.toleration_restriction();
        let (whitelist, scope) = match self.namespace.and_then(|n| n.whitelist.as_ref()) {
            Some(a) => match &a.tolerations {
                Ok(w) => (w.as_slice(), Scope::Namespace(pod.namespace.to_string())),
                Err(error) => {
                    return Some(Rejection::Annotation {
                        namespace: pod.namespace.to_string(),
                        annotation: TOLERATIONS_WHITELIST,
                        error: error.clone(),
                    })
                }
            },
            None => (config.whitelist.as_slice(), Scope::Cluster),
        };
        let tolerations: Vec<ApiToleration> = list.iter().map(|(t, s)| self.api(t, s)).collect();
        let outside = outside_whitelist(&tolerations, whitelist);
        let &first = outside.first()?;
        Some(Rejection::NotWhitelisted {
            toleration: list[first].0.clone(),
            source: list[first].1.clone(),
            scope,
            others: outside.len() - 1,
            after_runtime_class,
        })
    }

    /// The RuntimeClass plugin, for a pod that names a class: refused when the class is not
    /// among the cluster's (when any are known) or when its node selector contradicts the
    /// pod's; else the class's node selector entries the pod does not set go to
    /// `admitted.node_selector` and its tolerations are merged into `out`.
    fn runtime_class(&self, out: &mut Tolerations, admitted: &mut Admitted) {
        let pod = self.pod;
        let Some(name) = pod.runtime_class else {
            return;
        };
        let cluster = self.options.cluster();
        let Some(rc) = cluster.runtime_class(name) else {
            if cluster.knows_runtime_classes() {
                admitted.rejection = Some(Rejection::RuntimeClassNotFound(name.to_string()));
            }
            return;
        };
        let conflict = rc.node_selector.iter().find_map(|(k, v)| {
            let (_, pod_value) = pod.node_selector.iter().find(|(pk, _)| pk == k)?;
            (pod_value != v).then(|| Rejection::NodeSelectorConflict {
                class: name.to_string(),
                key: k.clone(),
                class_value: v.clone(),
                pod_value: pod_value.clone(),
            })
        });
        if conflict.is_some() {
            admitted.rejection = conflict;
            return;
        }
        admitted.node_selector = rc
            .node_selector
            .iter()
            .filter(|(k, _)| !pod.node_selector.iter().any(|(pk, _)| pk == k))
            .cloned()
            .collect();
        let class: Vec<(ApiToleration, Source)> = rc
            .tolerations
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), Source::RuntimeClass(name.to_string(), i)))
            .collect();
        if !class.is_empty() {
            *out = self.merge(std::mem::take(out), &class);
        }
    }
}

/// What the repository's policy (`.taintlint.yaml` `policy:`) refuses of a pod the API server
/// admits: PodTolerationRestriction's checks with the policy as its configuration and
/// namespace annotations, as if the plugin were on.
pub fn policy_rejection(
    pod: &Pod<'_>,
    manifest: Tolerations,
    bare: &[bool],
    options: &Options,
) -> Option<Rejection> {
    let policy = options.policy()?;
    let mut o = options.clone();
    o.set_admission_plugins("PodTolerationRestriction", true)
        .expect("a known plugin");
    o.set_toleration_restriction(policy.cluster.clone());
    let namespace = policy.namespaces.get(pod.namespace);
    admit_in(pod, manifest, bare, &o, namespace)
        .rejection
        .filter(|r| matches!(r, Rejection::NotWhitelisted { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::model::Operator;

    fn tol(
        key: &str,
        op: Operator,
        value: &str,
        effect: Option<Effect>,
        secs: Option<i64>,
    ) -> Toleration {
        Toleration {
            key: key.into(),
            operator: op,
            value: value.into(),
            effect,
            toleration_seconds: secs,
        }
    }

    fn manifest(tols: Vec<Toleration>) -> Tolerations {
        tols.into_iter()
            .enumerate()
            .map(|(i, t)| (t, Source::Manifest(i)))
            .collect()
    }

    fn only(t: &Tolerations) -> Vec<Toleration> {
        t.iter().map(|(t, _)| t.clone()).collect()
    }

    // Ported from plugin/pkg/admission/defaulttolerationseconds/admission_test.go
    // TestForgivenessAdmission.
    #[test]
    fn default_toleration_seconds_cases() {
        use Effect::*;
        use Operator::*;
        let nr = |s| tol(NOT_READY, Exists, "", Some(NoExecute), Some(s));
        let un = |s| tol(UNREACHABLE, Exists, "", Some(NoExecute), Some(s));
        let cases = vec![
            (
                "pod has no tolerations, expect add tolerations for `notread:NoExecute` and `unreachable:NoExecute`",
                vec![],
                vec![nr(300), un(300)],
            ),
            (
                "pod has tolerations, but none is for taint `notread:NoExecute` or `unreachable:NoExecute`, expect add tolerations for `notread:NoExecute` and `unreachable:NoExecute`",
                vec![tol("foo", Equal, "bar", Some(NoSchedule), Some(700))],
                vec![tol("foo", Equal, "bar", Some(NoSchedule), Some(700)), nr(300), un(300)],
            ),
            (
                "pod specified a toleration for taint `notReady:NoExecute`, expect add toleration for `unreachable:NoExecute`",
                vec![nr(700)],
                vec![nr(700), un(300)],
            ),
            (
                "pod specified a toleration for taint `unreachable:NoExecute`, expect add toleration for `notReady:NoExecute`",
                vec![un(700)],
                vec![un(700), nr(300)],
            ),
            (
                "pod specified tolerations for both `notread:NoExecute` and `unreachable:NoExecute`, expect no change",
                vec![nr(700), un(700)],
                vec![nr(700), un(700)],
            ),
            (
                "pod specified toleration for taint `unreachable`, expect add toleration for `notReady:NoExecute`",
                vec![tol(UNREACHABLE, Exists, "", None, Some(700))],
                vec![tol(UNREACHABLE, Exists, "", None, Some(700)), nr(300)],
            ),
            (
                "pod has wildcard toleration for all kind of taints, expect no change",
                vec![tol("", Exists, "", None, Some(700))],
                vec![tol("", Exists, "", None, Some(700))],
            ),
        ];
        for (name, given, want) in cases {
            let mut t = manifest(given);
            default_toleration_seconds(&mut t);
            assert_eq!(only(&t), want, "{name}");
        }
    }

    // Ported from plugin/pkg/admission/extendedresourcetoleration/admission_test.go TestAdmit.
    #[test]
    fn extended_resource_toleration_cases() {
        use Effect::*;
        use Operator::*;
        let r1 = "example.com/device-ek";
        let r2 = "example.com/device-do";
        let ex = |r: &str| tol(r, Exists, "", Some(NoSchedule), None);
        let foo = tol("foo", Equal, "bar", Some(NoSchedule), None);
        type Case<'a> = (&'a str, Vec<&'a str>, Vec<Toleration>, Vec<Toleration>);
        let cases: Vec<Case> = vec![
            ("empty pod without any extended resources, expect no change in tolerations", vec![], vec![], vec![]),
            ("pod with container without any extended resources, expect no change in tolerations", vec!["cpu"], vec![], vec![]),
            ("pod with init container without any extended resources, expect no change in tolerations", vec!["memory"], vec![], vec![]),
            ("pod with container with extended resource, expect toleration to be added", vec![r1], vec![], vec![ex(r1)]),
            ("pod with init container with extended resource, expect toleration to be added", vec![r2], vec![], vec![ex(r2)]),
            (
                "pod with existing tolerations and container with extended resource, expect existing tolerations to be preserved and new toleration to be added",
                vec!["cpu", r1],
                vec![foo.clone()],
                vec![foo.clone(), ex(r1)],
            ),
            (
                "pod with multiple extended resources, expect multiple tolerations to be added",
                vec!["memory", r1, "cpu", r2],
                vec![],
                vec![ex(r2), ex(r1)],
            ),
            (
                "pod with container requesting extended resource and existing correct toleration, expect no change in tolerations",
                vec!["cpu", "memory", r1],
                vec![ex(r1)],
                vec![ex(r1)],
            ),
            (
                "pod with container requesting extended resource and existing toleration with the same key but different effect and value, expect existing tolerations to be preserved and new toleration to be added",
                vec!["cpu", "memory", r1],
                vec![tol(r1, Equal, "foo", Some(NoExecute), None)],
                vec![tol(r1, Equal, "foo", Some(NoExecute), None), ex(r1)],
            ),
            (
                "pod with wildcard toleration and container requesting extended resource, expect existing tolerations to be preserved and new toleration to be added",
                vec!["cpu", "memory", r1],
                vec![tol("", Exists, "", None, None)],
                vec![tol("", Exists, "", None, None), ex(r1)],
            ),
        ];
        for (name, resources, given, want) in cases {
            let mut t = manifest(given);
            let resources: Vec<String> = resources.into_iter().map(String::from).collect();
            extended_resource_toleration(&mut t, &resources);
            assert_eq!(only(&t), want, "{name}");
        }
        assert!(is_extended_resource_name("nvidia.com/gpu"));
        assert!(!is_extended_resource_name("kubernetes.io/foo"));
        assert!(!is_extended_resource_name("hugepages-2Mi"));
        assert!(!is_extended_resource_name("requests.example.com/x"));
    }

    // pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations, and the daemon controller tests
    // that rely on it (TestNotReadyNodeDaemonLaunchesPod, TestUnreachableNodeDaemonLaunchesPod,
    // TestTaintPressureNodeDaemonLaunchesPod, ShouldRunDaemonPodOnUnschedulableNode).
    #[test]
    fn daemon_set_tolerations() {
        use Effect::*;
        let mut t = Tolerations::new();
        daemon_set(&mut t, false);
        let keys: Vec<(&str, Option<Effect>)> =
            t.iter().map(|(t, _)| (t.key.as_str(), t.effect)).collect();
        assert_eq!(
            keys,
            [
                (NOT_READY, Some(NoExecute)),
                (UNREACHABLE, Some(NoExecute)),
                (DISK_PRESSURE, Some(NoSchedule)),
                (MEMORY_PRESSURE, Some(NoSchedule)),
                (PID_PRESSURE, Some(NoSchedule)),
                (UNSCHEDULABLE, Some(NoSchedule)),
            ]
        );
        assert!(t
            .iter()
            .all(|(t, s)| t.toleration_seconds.is_none() && *s == Source::DaemonSet));
        let mut t = Tolerations::new();
        daemon_set(&mut t, true);
        assert_eq!(t.last().unwrap().0.key, NETWORK_UNAVAILABLE);
        // A finite not-ready toleration of the manifest is replaced by the infinite one.
        let mut t = manifest(vec![tol(
            NOT_READY,
            Operator::Exists,
            "",
            Some(NoExecute),
            Some(30),
        )]);
        daemon_set(&mut t, false);
        assert_eq!(t[0].0.toleration_seconds, None);
        assert_eq!(t[0].1, Source::DaemonSet);
        assert_eq!(t.len(), 6);
        // And DefaultTolerationSeconds then has nothing to add.
        default_toleration_seconds(&mut t);
        assert_eq!(t.len(), 6);
    }

    #[test]
    fn effective_follows_the_options() {
        let mut options = Options::default();
        let gpu = vec!["nvidia.com/gpu".to_string()];
        assert_eq!(
            effective(vec![], Some("Job"), false, &gpu, &options).len(),
            2
        );
        options
            .set_admission_plugins("DefaultTolerationSeconds", false)
            .unwrap();
        assert_eq!(
            effective(vec![], Some("Job"), false, &gpu, &options).len(),
            0
        );
        options
            .set_admission_plugins("ExtendedResourceToleration", true)
            .unwrap();
        let t = effective(vec![], Some("Job"), false, &gpu, &options);
        assert_eq!(
            t[0].1,
            Source::ExtendedResourceToleration("nvidia.com/gpu".into())
        );
        assert_eq!(
            effective(vec![], Some("DaemonSet"), false, &[], &options).len(),
            6
        );
    }

    fn upstream_tolerations() -> Vec<(&'static str, ApiToleration)> {
        use Effect::*;
        use Operator::*;
        let t = |key: &str, op, value: &str, effect, secs| {
            ApiToleration::new(tol(key, op, value, effect, secs), false)
        };
        vec![
            ("all", t("", Exists, "", None, None)),
            ("all-nosched", t("", Exists, "", Some(NoSchedule), None)),
            ("all-noexec", t("", Exists, "", Some(NoExecute), None)),
            ("foo", t("foo", Exists, "", None, None)),
            ("foo-bar", t("foo", Equal, "bar", None, None)),
            ("foo-nosched", t("foo", Exists, "", Some(NoSchedule), None)),
            (
                "foo-bar-nosched",
                t("foo", Equal, "bar", Some(NoSchedule), None),
            ),
            (
                "foo-baz-nosched",
                t("foo", Equal, "baz", Some(NoSchedule), None),
            ),
            ("faz-nosched", t("faz", Exists, "", Some(NoSchedule), None)),
            (
                "faz-baz-nosched",
                t("faz", Equal, "baz", Some(NoSchedule), None),
            ),
            (
                "foo-prefnosched",
                t("foo", Exists, "", Some(PreferNoSchedule), None),
            ),
            ("foo-noexec", t("foo", Exists, "", Some(NoExecute), None)),
            (
                "foo-bar-noexec",
                t("foo", Equal, "bar", Some(NoExecute), None),
            ),
            (
                "foo-noexec-10",
                t("foo", Exists, "", Some(NoExecute), Some(10)),
            ),
            (
                "foo-noexec-0",
                t("foo", Exists, "", Some(NoExecute), Some(0)),
            ),
            (
                "foo-bar-noexec-10",
                t("foo", Equal, "bar", Some(NoExecute), Some(10)),
            ),
        ]
    }

    fn named(names: &[&str]) -> Vec<ApiToleration> {
        let all = upstream_tolerations();
        names
            .iter()
            .map(|n| all.iter().find(|(k, _)| k == n).unwrap().1.clone())
            .collect()
    }

    // Ported from pkg/util/tolerations/tolerations_test.go TestIsSuperset.
    #[test]
    fn is_superset_cases() {
        let cases: &[(&str, &[&str])] = &[
            (
                "all",
                &[
                    "all-nosched",
                    "all-noexec",
                    "foo",
                    "foo-bar",
                    "foo-nosched",
                    "foo-bar-nosched",
                    "foo-baz-nosched",
                    "faz-nosched",
                    "faz-baz-nosched",
                    "foo-prefnosched",
                    "foo-noexec",
                    "foo-bar-noexec",
                    "foo-noexec-10",
                    "foo-noexec-0",
                    "foo-bar-noexec-10",
                ],
            ),
            (
                "all-nosched",
                &[
                    "foo-nosched",
                    "foo-bar-nosched",
                    "foo-baz-nosched",
                    "faz-nosched",
                    "faz-baz-nosched",
                ],
            ),
            (
                "all-noexec",
                &[
                    "foo-noexec",
                    "foo-bar-noexec",
                    "foo-noexec-10",
                    "foo-noexec-0",
                    "foo-bar-noexec-10",
                ],
            ),
            (
                "foo",
                &[
                    "foo-bar",
                    "foo-nosched",
                    "foo-bar-nosched",
                    "foo-baz-nosched",
                    "foo-prefnosched",
                    "foo-noexec",
                    "foo-bar-noexec",
                    "foo-noexec-10",
                    "foo-noexec-0",
                    "foo-bar-noexec-10",
                ],
            ),
            (
                "foo-bar",
                &["foo-bar-nosched", "foo-bar-noexec", "foo-bar-noexec-10"],
            ),
            ("foo-nosched", &["foo-bar-nosched", "foo-baz-nosched"]),
            ("foo-bar-nosched", &[]),
            ("faz-nosched", &["faz-baz-nosched"]),
            ("faz-baz-nosched", &[]),
            ("foo-prefnosched", &[]),
            (
                "foo-noexec",
                &[
                    "foo-noexec",
                    "foo-bar-noexec",
                    "foo-noexec-10",
                    "foo-noexec-0",
                    "foo-bar-noexec-10",
                ],
            ),
            ("foo-bar-noexec", &["foo-bar-noexec-10"]),
            ("foo-noexec-10", &["foo-noexec-0", "foo-bar-noexec-10"]),
            ("foo-noexec-0", &[]),
            ("foo-bar-noexec-10", &[]),
        ];
        let all = upstream_tolerations();
        for (sup, subs) in cases {
            let s = &named(&[sup])[0];
            for (name, t) in &all {
                let want = name == sup || subs.contains(name);
                assert_eq!(is_superset(s, t), want, "{sup} superset of {name}");
            }
        }
        // An omitted operator is not DeepEqual to Equal, and upstream compares the string.
        let mut bare = named(&["foo-bar"])[0].clone();
        bare.bare_operator = true;
        assert!(!is_superset(&named(&["foo-bar"])[0], &bare));
        assert!(is_superset(&named(&["foo"])[0], &bare));
    }

    // An omitted operator stays omitted wherever the toleration was written (the manifest, a
    // Namespace's defaults, a RuntimeClass), and a whitelist entry with `Equal` does not cover
    // it: upstream `isSuperset` compares the operator string.
    #[test]
    fn bare_operators_checked_against_the_whitelist() {
        let w = r#"[{"key": "k", "operator": "Equal", "value": "v"}]"#;
        let bare = r#"[{"key": "k", "value": "v"}]"#;
        let text = [
            ns("w", None, Some(w)),
            ns("d-w", Some(bare), Some(w)),
            "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rc}\nhandler: h\n\
             scheduling: {tolerations: [{key: k, value: v}]}\n"
                .to_string(),
        ]
        .concat();
        let mut options = cluster_options(&text, "PodTolerationRestriction,RuntimeClass");
        options
            .set_admission_plugins("DefaultTolerationSeconds", false)
            .unwrap();
        let kv = tol("k", Operator::Equal, "v", None, None);
        let others = |r: &Admitted| match &r.rejection {
            Some(Rejection::NotWhitelisted { others, .. }) => Some(*others),
            _ => None,
        };
        let in_w = pod("w", None, &[]);
        let r = admit(&in_w, manifest(vec![kv.clone()]), &[false], &options);
        assert_eq!(r.rejection, None);
        let r = admit(&in_w, manifest(vec![kv.clone()]), &[true], &options);
        assert_eq!(others(&r), Some(0));
        // Two outside the whitelist: the first, and one other.
        let x = tol("x", Operator::Exists, "", None, None);
        let r = admit(
            &in_w,
            manifest(vec![kv.clone(), x]),
            &[true, false],
            &options,
        );
        assert_eq!(others(&r), Some(1));
        let rejection = r.rejection.unwrap();
        assert_eq!(rejection.plugin(), "PodTolerationRestriction");
        assert_eq!(
            rejection.server_message(),
            "pod tolerations (possibly merged with namespace default tolerations) conflict with \
             its namespace whitelist"
        );
        // Where each toleration outside came from, in the finding's words.
        let source = |r: Admitted| match r.rejection {
            Some(Rejection::NotWhitelisted { source, .. }) => source.describe(),
            other => panic!("{other:?}"),
        };
        let r = admit(&pod("d-w", None, &[]), manifest(vec![]), &[], &options);
        assert_eq!(
            source(r),
            "a default toleration of namespace d-w (defaultTolerations[0], merged by \
             PodTolerationRestriction)"
        );
        let r = admit(&pod("w", Some("rc"), &[]), manifest(vec![]), &[], &options);
        assert_eq!(
            source(r),
            "from RuntimeClass rc (scheduling.tolerations[0])"
        );
        // The plugin's configuration: its default, written without an operator, against its
        // whitelist, for a namespace without annotations.
        let mut configured = options.clone();
        configured.set_toleration_restriction(crate::config::TolerationRestriction {
            default: vec![ApiToleration::new(kv.clone(), true)],
            whitelist: vec![ApiToleration::new(kv.clone(), false)],
        });
        let r = admit(&pod("other", None, &[]), manifest(vec![]), &[], &configured);
        assert_eq!(
            source(r),
            "the cluster's default toleration 0 (PodTolerationRestriction configuration)"
        );
    }

    // The RuntimeClass plugin (plugin/pkg/admission/runtimeclass `setScheduling`): the class's
    // node selector entries the pod does not set are added; a plugin turned off does nothing.
    #[test]
    fn runtime_class_scheduling_added_only_where_the_pod_is_silent() {
        let text = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rc}\n\
                    handler: h\nscheduling: {nodeSelector: {runtime: kata, zone: a}}\n";
        let options = cluster_options(text, "RuntimeClass");
        let sel = vec![("zone".to_string(), "a".to_string())];
        let r = admit(
            &pod("default", Some("rc"), &sel),
            manifest(vec![]),
            &[],
            &options,
        );
        assert_eq!(r.rejection, None);
        assert_eq!(r.node_selector, vec![("runtime".into(), "kata".into())]);
        let r = admit(
            &pod("default", Some("gone"), &[]),
            manifest(vec![]),
            &[],
            &options,
        );
        assert_eq!(
            r.rejection,
            Some(Rejection::RuntimeClassNotFound("gone".into()))
        );
        assert_eq!(r.rejection.unwrap().plugin(), "RuntimeClass");
        let mut off = options.clone();
        off.set_admission_plugins("RuntimeClass", false).unwrap();
        let r = admit(
            &pod("default", Some("gone"), &[]),
            manifest(vec![]),
            &[],
            &off,
        );
        assert_eq!(r.rejection, None);
        assert!(r.node_selector.is_empty());
    }

    // Ported from TestVerifyAgainstWhitelist.
    #[test]
    fn whitelist_cases() {
        let cases: &[(&str, &[&str], &[&str], bool)] = &[
            (
                "equal input and whitelist",
                &["foo-bar-nosched", "foo-baz-nosched"],
                &["foo-bar-nosched", "foo-baz-nosched"],
                true,
            ),
            (
                "duplicate input allowed",
                &["foo-bar-nosched", "foo-bar-nosched"],
                &["foo-bar-nosched", "foo-baz-nosched"],
                true,
            ),
            (
                "allow all",
                &["foo-bar-nosched", "foo-bar-nosched"],
                &["all"],
                true,
            ),
            (
                "duplicate input forbidden",
                &["foo-bar-nosched", "foo-bar-nosched"],
                &["foo-baz-nosched"],
                false,
            ),
            (
                "value mismatch",
                &["foo-bar-nosched", "foo-baz-nosched"],
                &["foo-baz-nosched"],
                false,
            ),
            (
                "input does not exist in whitelist",
                &["foo-bar-nosched"],
                &["foo-baz-nosched"],
                false,
            ),
            ("disjoint sets", &["foo-bar"], &["foo-nosched"], false),
            ("empty whitelist", &["foo-bar"], &[], true),
            ("empty input", &[], &["foo-bar"], true),
        ];
        for (name, input, whitelist, want) in cases {
            let ok = outside_whitelist(&named(input), &named(whitelist)).is_empty();
            assert_eq!(ok, *want, "{name}");
        }
    }

    // Ported from TestMergeTolerations.
    #[test]
    fn merge_cases() {
        type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let cases: &[Case] = &[
            (
                "disjoint",
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                &["foo-prefnosched", "foo-baz-nosched"],
                &[
                    "foo-bar-nosched",
                    "faz-baz-nosched",
                    "foo-noexec-10",
                    "foo-prefnosched",
                    "foo-baz-nosched",
                ],
            ),
            (
                "duplicate",
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
                &["foo-bar-nosched", "faz-baz-nosched", "foo-noexec-10"],
            ),
            (
                "merge redundant",
                &["foo-bar-nosched", "foo-baz-nosched"],
                &["foo-nosched", "faz-baz-nosched"],
                &["foo-nosched", "faz-baz-nosched"],
            ),
            (
                "merge all",
                &["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"],
                &["all"],
                &["all"],
            ),
            (
                "merge into all",
                &["all"],
                &["foo-bar-nosched", "foo-baz-nosched", "foo-noexec-10"],
                &["all"],
            ),
        ];
        for (name, a, b, want) in cases {
            let tag = |v: Vec<ApiToleration>| v.into_iter().map(|t| (t, ())).collect::<Vec<_>>();
            let got: Vec<ApiToleration> = merge_tolerations(&tag(named(a)), &tag(named(b)))
                .into_iter()
                .map(|(t, _)| t)
                .collect();
            assert_eq!(got, named(want), "{name}");
        }
    }

    fn cluster_options(text: &str, plugins: &str) -> Options {
        let mut c = crate::k8s::cluster::Cluster::default();
        c.add_text("cluster.yaml", text);
        let mut o = Options::default();
        o.set_cluster(std::sync::Arc::new(c));
        if !plugins.is_empty() {
            o.set_admission_plugins(plugins, true).unwrap();
        }
        o
    }

    fn pod<'a>(ns: &'a str, rc: Option<&'a str>, sel: &'a [(String, String)]) -> Pod<'a> {
        Pod {
            kind: Some("Pod"),
            namespace: ns,
            host_network: false,
            requested: &[],
            best_effort: true,
            runtime_class: rc,
            node_selector: sel,
            affinity: None,
        }
    }

    fn ns(name: &str, default: Option<&str>, whitelist: Option<&str>) -> String {
        let mut a = String::new();
        if let Some(d) = default {
            a.push_str(&format!("    {DEFAULT_TOLERATIONS}: '{d}'\n"));
        }
        if let Some(w) = whitelist {
            a.push_str(&format!("    {TOLERATIONS_WHITELIST}: '{w}'\n"));
        }
        format!("kind: Namespace\nmetadata:\n  name: {name}\n  annotations:\n{a}---\n")
    }

    // Cases of plugin/pkg/admission/podtolerationrestriction/admission_test.go TestPodAdmission,
    // with DefaultTolerationSeconds off as there.
    #[test]
    fn pod_toleration_restriction_cases() {
        use Effect::*;
        use Operator::*;
        let nosched = |k: &str, v: &str| tol(k, Equal, v, Some(NoSchedule), None);
        let j = |t: &Toleration| ApiToleration::new(t.clone(), false).to_json();
        let a = nosched("testKey", "testValue");
        let b = nosched("testKey", "testValue1");
        let c = tol("testKey", Exists, "", Some(NoSchedule), None);
        let text = [
            ns("empty", None, None),
            ns("d-a", Some(&format!("[{}]", j(&a))), None),
            ns("w-a", None, Some(&format!("[{}]", j(&a)))),
            ns(
                "d-a-w-a",
                Some(&format!("[{}]", j(&a))),
                Some(&format!("[{}]", j(&a))),
            ),
            ns(
                "d-a-w-c",
                Some(&format!("[{}]", j(&a))),
                Some(&format!("[{}]", j(&c))),
            ),
            ns("w-b", None, Some(&format!("[{}]", j(&b)))),
            ns("bad", Some("[{"), None),
        ]
        .concat();
        let mut options = cluster_options(&text, "PodTolerationRestriction");
        options
            .set_admission_plugins("DefaultTolerationSeconds", false)
            .unwrap();
        let run = |namespace: &str, given: Vec<Toleration>, best_effort: bool| {
            let mut p = pod(namespace, None, &[]);
            p.best_effort = best_effort;
            admit(&p, manifest(given), &[], &options)
        };
        // default tolerations are merged into a pod without tolerations
        let r = run("d-a", vec![], true);
        assert_eq!(only(&r.tolerations), vec![a.clone()]);
        assert_eq!(
            r.tolerations[0].1,
            Source::NamespaceDefault("d-a".into(), 0)
        );
        assert_eq!(r.rejection, None);
        // a pod's toleration that the default supersets is dropped; others are kept
        let r = run("d-a", vec![c.clone()], true);
        assert_eq!(only(&r.tolerations), vec![c.clone()]);
        // whitelist allows the pod's own toleration
        assert_eq!(run("w-a", vec![a.clone()], true).rejection, None);
        // whitelist rejects another value, naming the namespace scope
        let r = run("w-a", vec![b.clone()], true);
        match r.rejection {
            Some(Rejection::NotWhitelisted {
                toleration, scope, ..
            }) => {
                assert_eq!(toleration, b);
                assert_eq!(scope, Scope::Namespace("w-a".into()));
            }
            other => panic!("{other:?}"),
        }
        // defaults and whitelist agree
        assert_eq!(run("d-a-w-a", vec![], true).rejection, None);
        assert_eq!(run("d-a-w-c", vec![], true).rejection, None);
        // a non-BestEffort pod gets memory-pressure, which the whitelist must cover
        let r = run("w-a", vec![a.clone()], false);
        assert!(matches!(
            r.rejection,
            Some(Rejection::NotWhitelisted {
                source: Source::MemoryPressure,
                ..
            })
        ));
        // a pod without tolerations is never checked against the whitelist
        assert_eq!(run("w-b", vec![], true).rejection, None);
        // a namespace without annotations falls back to the cluster's configuration
        let mut cfg = options.clone();
        cfg.set_toleration_restriction(crate::config::TolerationRestriction {
            default: vec![ApiToleration::new(b.clone(), false)],
            whitelist: vec![ApiToleration::new(b.clone(), false)],
        });
        let r = admit(
            &pod("empty", None, &[]),
            manifest(vec![a.clone()]),
            &[],
            &cfg,
        );
        assert!(matches!(
            r.rejection,
            Some(Rejection::NotWhitelisted {
                scope: Scope::Cluster,
                ..
            })
        ));
        let r = admit(&pod("unknown-ns", None, &[]), manifest(vec![]), &[], &cfg);
        assert_eq!(only(&r.tolerations), vec![b.clone()]);
        // a malformed annotation rejects every pod of the namespace
        assert!(matches!(
            run("bad", vec![], true).rejection,
            Some(Rejection::Annotation {
                annotation: DEFAULT_TOLERATIONS,
                ..
            })
        ));
        // off by default
        let off = cluster_options(&text, "");
        let r = admit(&pod("w-a", None, &[]), manifest(vec![b.clone()]), &[], &off);
        assert_eq!(r.rejection, None);
    }

    // plugin/pkg/admission/runtimeclass/admission_test.go TestSetScheduling and the not-found
    // case of TestAdmit.
    #[test]
    fn runtime_class_cases() {
        use Effect::*;
        use Operator::*;
        let text = "kind: RuntimeClass\nmetadata: {name: sandbox}\nhandler: runsc\nscheduling:\n  nodeSelector: {foo: bar}\n  tolerations:\n  - {key: foo, operator: Equal, value: bar, effect: NoSchedule}\n---\nkind: RuntimeClass\nmetadata: {name: plain}\nhandler: runc\n";
        let options = cluster_options(text, "");
        let sel = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        // selector and tolerations are merged
        let none = sel(&[]);
        let r = admit(
            &pod("default", Some("sandbox"), &none),
            manifest(vec![]),
            &[],
            &options,
        );
        assert_eq!(r.node_selector, sel(&[("foo", "bar")]));
        let t = only(&r.tolerations);
        assert!(t.contains(&tol("foo", Equal, "bar", Some(NoSchedule), None)));
        assert_eq!(r.rejection, None);
        // the same selector entry is no conflict; another value is
        let same = sel(&[("foo", "bar"), ("x", "y")]);
        let r = admit(
            &pod("default", Some("sandbox"), &same),
            manifest(vec![]),
            &[],
            &options,
        );
        assert_eq!(r.node_selector, none);
        assert_eq!(r.rejection, None);
        let other = sel(&[("foo", "baz")]);
        let r = admit(
            &pod("default", Some("sandbox"), &other),
            manifest(vec![]),
            &[],
            &options,
        );
        assert_eq!(
            r.rejection.unwrap().server_message(),
            "conflict: runtimeClass.scheduling.nodeSelector[foo] = bar; pod.spec.nodeSelector[foo] = baz"
        );
        // a pod's toleration that tolerates more is kept instead of the class's
        let wide = tol("foo", Exists, "", None, None);
        let r = admit(
            &pod("default", Some("sandbox"), &none),
            manifest(vec![wide.clone()]),
            &[],
            &options,
        );
        assert!(only(&r.tolerations).contains(&wide));
        assert!(!r
            .tolerations
            .iter()
            .any(|(_, s)| matches!(s, Source::RuntimeClass(..))));
        // a class without scheduling changes nothing
        let r = admit(
            &pod("default", Some("plain"), &none),
            manifest(vec![]),
            &[],
            &options,
        );
        assert_eq!(r.node_selector, none);
        assert_eq!(r.rejection, None);
        // not found, when the cluster's classes are known
        let r = admit(
            &pod("default", Some("kata"), &none),
            manifest(vec![]),
            &[],
            &options,
        );
        assert_eq!(
            r.rejection.unwrap().server_message(),
            "pod rejected: RuntimeClass \"kata\" not found"
        );
        // taken on trust when none is known
        let r = admit(
            &pod("default", Some("kata"), &none),
            manifest(vec![]),
            &[],
            &Options::default(),
        );
        assert_eq!(r.rejection, None);
        // and the whitelist sees what RuntimeClass added (validating phase)
        let ns_text = format!(
            "{}{text}",
            ns(
                "tenant",
                None,
                Some(r#"[{"operator":"Exists","effect":"NoExecute"}]"#)
            )
        );
        let mut o = cluster_options(&ns_text, "PodTolerationRestriction");
        o.set_admission_plugins("DefaultTolerationSeconds", false)
            .unwrap();
        let r = admit(
            &pod("tenant", Some("sandbox"), &none),
            manifest(vec![]),
            &[],
            &o,
        );
        assert!(matches!(
            r.rejection,
            Some(Rejection::NotWhitelisted {
                source: Source::RuntimeClass(..),
                after_runtime_class: true,
                ..
            })
        ));
    }
}
