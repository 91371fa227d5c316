//! Cluster behaviour that differs between clusters, named as kube-apiserver names it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::diagnostic::Severity;
use crate::inventory::platform::Platform;
use crate::k8s::cluster::{ApiToleration, Cluster, Namespace};
use crate::k8s::json6902::PatchTarget;
use crate::k8s::workloads::ChartKinds;
use crate::rules::{self, RuleMeta};

/// Feature gates taintlint knows, with their default in current Kubernetes.
pub const FEATURE_GATES: &[(&str, bool)] = &[
    // KEP-5471: Lt and Gt toleration operators (alpha, off by default).
    ("TaintTolerationComparisonOperators", false),
];

/// Every admission plugin kube-apiserver accepts in `--enable-admission-plugins`.
pub const ADMISSION_PLUGINS: &[&str] = &[
    "AlwaysAdmit",
    "AlwaysDeny",
    "AlwaysPullImages",
    "CertificateApproval",
    "CertificateSigning",
    "CertificateSubjectRestriction",
    "ClusterTrustBundleAttest",
    "DefaultIngressClass",
    "DefaultStorageClass",
    "DefaultTolerationSeconds",
    "DenyServiceExternalIPs",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "ImagePolicyWebhook",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "NamespaceAutoProvision",
    "NamespaceExists",
    "NamespaceLifecycle",
    "NodeRestriction",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "PodNodeSelector",
    "PodSecurity",
    "PodTolerationRestriction",
    "PodTopologyLabels",
    "Priority",
    "ResourceQuota",
    "RuntimeClass",
    "ServiceAccount",
    "StorageObjectInUseProtection",
    "TaintNodesByCondition",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
];

/// Plugins kube-apiserver enables when `--enable-admission-plugins` does not name them.
pub const DEFAULT_ADMISSION_PLUGINS: &[&str] = &[
    "CertificateApproval",
    "CertificateSigning",
    "CertificateSubjectRestriction",
    "ClusterTrustBundleAttest",
    "DefaultIngressClass",
    "DefaultStorageClass",
    "DefaultTolerationSeconds",
    "LimitRanger",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionWebhook",
    "NamespaceLifecycle",
    "PersistentVolumeClaimResize",
    "PodSecurity",
    "PodTopologyLabels",
    "Priority",
    "ResourceQuota",
    "RuntimeClass",
    "ServiceAccount",
    "StorageObjectInUseProtection",
    "TaintNodesByCondition",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionWebhook",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Gates set explicitly, by name.
    gates: Vec<(String, bool)>,
    enabled_plugins: BTreeSet<String>,
    /// Rules whose severity was set (`None`: the rule is off), by name.
    rule_levels: BTreeMap<&'static str, Option<Severity>>,
    /// The Namespaces and RuntimeClasses admission looks up.
    cluster: Arc<Cluster>,
    /// The PodTolerationRestriction plugin's configuration.
    toleration_restriction: TolerationRestriction,
    /// The repository's own toleration policy (`.taintlint.yaml` `policy:`).
    policy: Option<Arc<Policy>>,
    /// Whether the text lies in a Helm chart's `templates/` directory (the caller knows where
    /// it read it): a document there that is not YAML is called a Helm chart template, not
    /// just a Go template.
    chart_template: bool,
    /// What the chart's templates render a values file into, for a chart's values file.
    chart: Option<Arc<ChartKinds>>,
    /// The object a JSON6902 patch file is applied to, as the kustomization that names the
    /// file says (found at the edge).
    patch_target: Option<Arc<PatchTarget>>,
    /// Whether a kustomization names the file as a patch (found at the edge): its objects say
    /// only what they change of another ([`crate::class::Class::MergePatch`]).
    patch_file: bool,
    /// The platform the cluster runs on: the admission plugins it runs count as enabled.
    platform: Option<Platform>,
    /// The plugins `--disable-admission-plugins` names: a platform's own stay off too.
    disabled_plugins: BTreeSet<String>,
}

/// A toleration policy of the repository's own (`.taintlint.yaml` `policy:`): the shapes of
/// PodTolerationRestriction's configuration and namespace annotations, checked as that plugin
/// checks them whether or not the cluster runs it. It changes no pod's tolerations (no plugin
/// adds the defaults), only what is reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// The cluster-wide default tolerations and whitelist, for namespaces the policy does not
    /// name.
    pub cluster: TolerationRestriction,
    /// Per namespace: its default tolerations and whitelist, as a Namespace's annotations
    /// would hold them (placed in the configuration file).
    pub namespaces: BTreeMap<String, Namespace>,
}

/// The PodTolerationRestriction plugin's configuration
/// (podtolerationrestriction.admission.k8s.io/v1 `Configuration`): the cluster's default
/// tolerations and whitelist, for namespaces without the annotations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TolerationRestriction {
    pub default: Vec<ApiToleration>,
    pub whitelist: Vec<ApiToleration>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            gates: Vec::new(),
            enabled_plugins: DEFAULT_ADMISSION_PLUGINS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            rule_levels: BTreeMap::new(),
            cluster: Arc::default(),
            toleration_restriction: TolerationRestriction::default(),
            policy: None,
            chart_template: false,
            chart: None,
            patch_target: None,
            patch_file: false,
            platform: None,
            disabled_plugins: BTreeSet::new(),
        }
    }
}

impl Options {
    /// Whether a feature gate is on (its default unless set).
    pub fn feature(&self, name: &str) -> bool {
        if let Some(&(_, on)) = self.gates.iter().rev().find(|(n, _)| n == name) {
            return on;
        }
        FEATURE_GATES
            .iter()
            .find(|(n, _)| *n == name)
            .is_some_and(|&(_, on)| on)
    }

    /// The Namespaces and RuntimeClasses known of the cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    pub fn set_cluster(&mut self, cluster: Arc<Cluster>) {
        self.cluster = cluster;
    }

    /// What the chart's templates render this values file into, when the file is a chart's
    /// values (gathered from the chart's `templates/` at the edge).
    pub fn chart_kinds(&self) -> Option<&ChartKinds> {
        self.chart.as_deref()
    }

    pub fn set_chart_kinds(&mut self, chart: Option<Arc<ChartKinds>>) {
        self.chart = chart;
    }

    /// The object this text's JSON6902 operations patch, when a kustomization names it.
    pub fn patch_target(&self) -> Option<&PatchTarget> {
        self.patch_target.as_deref()
    }

    pub fn set_patch_target(&mut self, target: Option<Arc<PatchTarget>>) {
        self.patch_target = target;
    }

    /// Whether a kustomization names this text's file as a patch.
    pub fn patch_file(&self) -> bool {
        self.patch_file
    }

    pub fn set_patch_file(&mut self, patch_file: bool) {
        self.patch_file = patch_file;
    }

    pub fn toleration_restriction(&self) -> &TolerationRestriction {
        &self.toleration_restriction
    }

    pub fn set_toleration_restriction(&mut self, config: TolerationRestriction) {
        self.toleration_restriction = config;
    }

    /// The repository's own toleration policy, if it has one.
    pub fn policy(&self) -> Option<&Policy> {
        self.policy.as_deref()
    }

    pub fn set_policy(&mut self, policy: Option<Policy>) {
        self.policy = policy.map(Arc::new);
    }

    /// Whether the text being linted lies in a Helm chart's `templates/` directory.
    pub fn chart_template(&self) -> bool {
        self.chart_template
    }

    pub fn set_chart_template(&mut self, chart_template: bool) {
        self.chart_template = chart_template;
    }

    /// Whether the cluster's API server runs an admission plugin: kube-apiserver's defaults, as
    /// `--enable-admission-plugins` and `--disable-admission-plugins` change them, and those
    /// the platform runs, unless disabled.
    pub fn admission_enabled(&self, plugin: &str) -> bool {
        self.enabled_plugins.contains(plugin)
            || (self.platform.is_some_and(|p| p.runs_admission(plugin))
                && !self.disabled_plugins.contains(plugin))
    }

    /// The platform the cluster runs on.
    pub fn platform(&self) -> Option<Platform> {
        self.platform
    }

    pub fn set_platform(&mut self, platform: Option<Platform>) {
        self.platform = platform;
    }

    /// Parses `Name=true,Other=false` as kube-apiserver's `--feature-gates` does.
    pub fn set_feature_gates(&mut self, spec: &str) -> Result<(), String> {
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((name, value)) = part.split_once('=') else {
                return Err(format!("missing bool value for feature gate {part:?}"));
            };
            let name = name.trim();
            let value = match value.trim() {
                "true" | "True" | "TRUE" | "1" | "t" | "T" => true,
                "false" | "False" | "FALSE" | "0" | "f" | "F" => false,
                other => {
                    return Err(format!(
                        "invalid value of {name}={other}, err: strconv.ParseBool: parsing \
                         {other:?}: invalid syntax"
                    ))
                }
            };
            if !FEATURE_GATES.iter().any(|(n, _)| *n == name) {
                let known: Vec<&str> = FEATURE_GATES.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "unrecognized feature gate: {name} (taintlint knows: {})",
                    known.join(", ")
                ));
            }
            self.gates.push((name.to_string(), value));
        }
        Ok(())
    }

    /// The severity a rule reports at, or `None` when it is off.
    pub fn rule_level(&self, rule: &RuleMeta) -> Option<Severity> {
        match self.rule_levels.get(rule.name) {
            Some(&level) => level,
            None => Some(rule.severity),
        }
    }

    /// The level configured for a rule, if one is (`Some(None)`: turned off). Without one, each
    /// finding keeps the severity its rule gave it.
    pub fn configured_level(&self, rule: &RuleMeta) -> Option<Option<Severity>> {
        self.rule_levels.get(rule.name).copied()
    }

    /// Whether a rule (by name) runs at all.
    pub fn rule_enabled(&self, name: &str) -> bool {
        rules::find(name).is_some_and(|m| self.rule_level(m).is_some())
    }

    /// Sets a rule's severity; `None` turns it off.
    pub fn set_rule_level(&mut self, name: &str, level: Option<Severity>) -> Result<(), String> {
        let meta = rules::find(name).ok_or_else(|| unknown_rule(name))?;
        self.rule_levels.insert(meta.name, level);
        Ok(())
    }

    /// Applies `--enable-admission-plugins` / `--disable-admission-plugins` lists.
    pub fn set_admission_plugins(&mut self, spec: &str, enable: bool) -> Result<(), String> {
        for name in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if !ADMISSION_PLUGINS.contains(&name) {
                return Err(format!(
                    "admission plugin {name:?} is unknown to kube-apiserver (known: {})",
                    ADMISSION_PLUGINS.join(", ")
                ));
            }
            if enable {
                self.enabled_plugins.insert(name.to_string());
                self.disabled_plugins.remove(name);
            } else {
                self.enabled_plugins.remove(name);
                self.disabled_plugins.insert(name.to_string());
            }
        }
        Ok(())
    }
}

/// A rule severity as written in configuration: `error`, `warning`, `info`, `hint`, or `off`
/// (`Some(None)`). `None` when it is none of these.
pub fn parse_level(s: &str) -> Option<Option<Severity>> {
    Some(match s {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        "info" => Some(Severity::Info),
        "hint" => Some(Severity::Hint),
        "off" => None,
        _ => return None,
    })
}

/// The message for a rule name that is not in the registry, with the closest name when one is
/// near.
pub fn unknown_rule(name: &str) -> String {
    match rules::closest(name) {
        Some(near) => format!("unknown rule {name:?}; did you mean {:?}?", near),
        None => format!("unknown rule {name:?} (`taintlint rules` lists them)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_gates() {
        let mut o = Options::default();
        assert!(!o.feature("TaintTolerationComparisonOperators"));
        o.set_feature_gates("TaintTolerationComparisonOperators=true")
            .unwrap();
        assert!(o.feature("TaintTolerationComparisonOperators"));
        assert!(o.set_feature_gates("Nope=true").is_err());
        assert!(o
            .set_feature_gates("TaintTolerationComparisonOperators")
            .is_err());
        assert!(o
            .set_feature_gates("TaintTolerationComparisonOperators=maybe")
            .is_err());
    }

    #[test]
    fn admission_plugins() {
        let mut o = Options::default();
        assert!(o.admission_enabled("DefaultTolerationSeconds"));
        assert!(!o.admission_enabled("ExtendedResourceToleration"));
        o.set_admission_plugins("ExtendedResourceToleration", true)
            .unwrap();
        o.set_admission_plugins("DefaultTolerationSeconds", false)
            .unwrap();
        assert!(o.admission_enabled("ExtendedResourceToleration"));
        assert!(!o.admission_enabled("DefaultTolerationSeconds"));
        assert!(o.set_admission_plugins("NotAPlugin", true).is_err());
    }

    #[test]
    fn rule_levels() {
        let mut o = Options::default();
        let meta = rules::find("tolerates-everything").unwrap();
        assert_eq!(o.rule_level(meta), Some(meta.severity));
        o.set_rule_level("tolerates-everything", None).unwrap();
        assert_eq!(o.rule_level(meta), None);
        assert!(!o.rule_enabled("tolerates-everything"));
        o.set_rule_level("tolerates-everything", Some(Severity::Error))
            .unwrap();
        assert_eq!(o.rule_level(meta), Some(Severity::Error));
        let err = o.set_rule_level("tolerate-everything", None).unwrap_err();
        assert!(
            err.contains("did you mean \"tolerates-everything\""),
            "{err}"
        );
        assert_eq!(parse_level("off"), Some(None));
        assert_eq!(parse_level("warning"), Some(Some(Severity::Warning)));
        assert_eq!(parse_level("Warning"), None);
    }
}
