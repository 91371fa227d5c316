//! Cluster behaviour that differs between clusters, named as kube-apiserver names it.

use std::collections::BTreeSet;

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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            gates: Vec::new(),
            enabled_plugins: DEFAULT_ADMISSION_PLUGINS
                .iter()
                .map(|s| s.to_string())
                .collect(),
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

    pub fn admission_enabled(&self, plugin: &str) -> bool {
        self.enabled_plugins.contains(plugin)
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
            } else {
                self.enabled_plugins.remove(name);
            }
        }
        Ok(())
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
}
