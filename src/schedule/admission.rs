//! Tolerations a pod gets that its manifest does not show: the DaemonSet controller's
//! (pkg/controller/daemon/util `AddOrUpdateDaemonPodTolerations`) and the admission plugins'
//! (`DefaultTolerationSeconds`, on by default; `ExtendedResourceToleration`, off by default),
//! each switchable with kube-apiserver's `--enable/--disable-admission-plugins`.

use crate::config::Options;
use crate::k8s::model::{Effect, Toleration};
use crate::k8s::names::is_qualified_name;
use crate::k8s::well_known::{NOT_READY, UNREACHABLE, UNSCHEDULABLE};

/// Where an effective toleration comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The manifest's own `tolerations[i]`.
    Manifest(usize),
    /// The DaemonSet controller adds it to every daemon pod.
    DaemonSet,
    /// The DefaultTolerationSeconds admission plugin.
    DefaultTolerationSeconds,
    /// The ExtendedResourceToleration admission plugin, for this requested resource.
    ExtendedResourceToleration(String),
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
        }
    }
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

/// Every toleration a pod of this kind ends up with: the manifest's, then the DaemonSet
/// controller's, then the enabled admission plugins'.
pub fn effective(
    manifest: Tolerations,
    kind: Option<&str>,
    host_network: bool,
    requested: &[String],
    options: &Options,
) -> Tolerations {
    let mut out = manifest;
    if kind == Some("DaemonSet") {
        daemon_set(&mut out, host_network);
    }
    if options.admission_enabled("DefaultTolerationSeconds") {
        default_toleration_seconds(&mut out);
    }
    if options.admission_enabled("ExtendedResourceToleration") {
        extended_resource_toleration(&mut out, requested);
    }
    out
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
}
