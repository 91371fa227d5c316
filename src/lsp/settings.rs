//! The server's settings, as `initializationOptions`, `workspace/didChangeConfiguration` or
//! `workspace/configuration` (section `taintlint`) carry them.
//!
//! ```json
//! {
//!   "inventory": ["clusters/prod/nodes.yaml"],
//!   "featureGates": {"TaintTolerationComparisonOperators": true},
//!   "enableAdmissionPlugins": ["ExtendedResourceToleration"],
//!   "disableAdmissionPlugins": [],
//!   "rules": {"tolerates-everything": "off", "duplicate-toleration": "warning"},
//!   "admission": {"clusterTolerationWhitelist": [{"operator": "Exists"}]},
//!   "docsUrl": "https://example.com/taintlint/docs/rules.md",
//!   "kustomize": "off"
//! }
//! ```
//!
//! Each list also takes one comma-separated string, as the kube-apiserver flags do
//! (`"featureGates": "TaintTolerationComparisonOperators=true"`). Reading never fails: a bad
//! entry is left out and reported, naming the setting.

use serde_json::Value;

/// Where settings live inside a larger configuration object.
pub const SECTION: &str = "taintlint";

const KEYS: &[&str] = &[
    "inventory",
    "featureGates",
    "enableAdmissionPlugins",
    "disableAdmissionPlugins",
    "rules",
    "admission",
    "docsUrl",
    "kustomize",
];

/// The PodTolerationRestriction plugin's configuration, as `.taintlint.yaml`'s `admission:`
/// takes it: the cluster's default tolerations and whitelist, or an AdmissionConfiguration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    Inline(crate::config::TolerationRestriction),
    /// A path relative to the workspace root unless absolute.
    File(String),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Inventory files, relative to the workspace root unless absolute.
    pub inventory: Vec<String>,
    /// `Name=bool` entries, as kube-apiserver's `--feature-gates` takes them.
    pub feature_gates: Vec<String>,
    pub enable_admission_plugins: Vec<String>,
    pub disable_admission_plugins: Vec<String>,
    /// Rule name and level: `error`, `warning`, `info`, `hint` or `off`.
    pub rules: Vec<(String, String)>,
    /// The PodTolerationRestriction plugin's configuration (`None`: the configuration file's).
    pub admission: Option<Admission>,
    /// Where the rule reference (docs/rules.md) is published, for the rule links of
    /// diagnostics and hovers; `None`: [`crate::rules::DOCS_URL`].
    pub docs_url: Option<String>,
    /// What renders the workspace's kustomize overlays, as `lint --kustomize` says it (`None`:
    /// the configuration file's `kustomize`, else `auto`).
    pub kustomize: Option<crate::config_file::Kustomize>,
}

impl Settings {
    /// The rule reference that rule codes link to.
    pub fn docs_url(&self) -> &str {
        self.docs_url.as_deref().unwrap_or(crate::rules::DOCS_URL)
    }
}

impl Settings {
    /// Reads settings from a JSON value: an object with the keys above, or one holding such an
    /// object under `taintlint`. `None` when the value holds no settings of ours (null, or an
    /// object for other tools only).
    pub fn from_json(value: &Value) -> (Option<Settings>, Vec<String>) {
        let object = match value {
            Value::Object(map) => match map.get(SECTION) {
                Some(Value::Object(inner)) => inner,
                Some(Value::Null) | None if !map.keys().any(|k| KEYS.contains(&k.as_str())) => {
                    return (None, Vec::new())
                }
                Some(Value::Null) | None => map,
                Some(other) => {
                    return (
                        None,
                        vec![format!(
                            "setting `{SECTION}` must be an object, not {}",
                            kind(other)
                        )],
                    )
                }
            },
            Value::Null => return (None, Vec::new()),
            other => {
                return (
                    None,
                    vec![format!("settings must be an object, not {}", kind(other))],
                )
            }
        };
        let mut problems = Vec::new();
        let mut settings = Settings::default();
        for (key, value) in object {
            match key.as_str() {
                "inventory" => settings.inventory = strings(key, value, &mut problems),
                "featureGates" => settings.feature_gates = gates(value, &mut problems),
                "enableAdmissionPlugins" => {
                    settings.enable_admission_plugins = strings(key, value, &mut problems)
                }
                "disableAdmissionPlugins" => {
                    settings.disable_admission_plugins = strings(key, value, &mut problems)
                }
                "rules" => settings.rules = rules(value, &mut problems),
                "admission" => settings.admission = admission(value, &mut problems),
                "docsUrl" => match value {
                    Value::Null => settings.docs_url = None,
                    Value::String(s) if s.parse::<tower_lsp_server::ls_types::Uri>().is_ok() => {
                        settings.docs_url = Some(s.trim().to_string())
                    }
                    Value::String(s) => {
                        problems.push(format!("setting `docsUrl` is not a URL: {s:?}"))
                    }
                    other => problems.push(format!(
                        "setting `docsUrl` must be a string, not {}",
                        kind(other)
                    )),
                },
                "kustomize" => match value {
                    Value::Null => settings.kustomize = None,
                    Value::String(s) if s.trim().is_empty() => settings.kustomize = None,
                    Value::String(s) => match crate::config_file::Kustomize::parse(s.trim()) {
                        Some(k) => settings.kustomize = Some(k),
                        None => problems.push(format!(
                            "setting `kustomize` is one of {}, not {s:?}",
                            crate::config_file::Kustomize::NAMES.join(", ")
                        )),
                    },
                    other => problems.push(format!(
                        "setting `kustomize` must be a string, not {}",
                        kind(other)
                    )),
                },
                other => problems.push(format!(
                    "unknown setting `{other}` (known: {})",
                    KEYS.join(", ")
                )),
            }
        }
        (Some(settings), problems)
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A list of strings, or one comma-separated string.
fn strings(key: &str, value: &Value, problems: &mut Vec<String>) -> Vec<String> {
    match value {
        Value::Null => Vec::new(),
        Value::String(s) => split(s),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
                Value::String(_) => None,
                other => {
                    problems.push(format!(
                        "setting `{key}[{i}]` must be a string, not {}",
                        kind(other)
                    ));
                    None
                }
            })
            .collect(),
        other => {
            problems.push(format!(
                "setting `{key}` must be a list of strings, not {}",
                kind(other)
            ));
            Vec::new()
        }
    }
}

fn split(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// `{"Name": true}`, `["Name=true"]` or `"Name=true,Other=false"`.
fn gates(value: &Value, problems: &mut Vec<String>) -> Vec<String> {
    match value {
        Value::Object(map) => map
            .iter()
            .filter_map(|(name, on)| match on {
                Value::Bool(b) => Some(format!("{name}={b}")),
                other => {
                    problems.push(format!(
                        "setting `featureGates.{name}` must be true or false, not {}",
                        kind(other)
                    ));
                    None
                }
            })
            .collect(),
        other => strings("featureGates", other, problems),
    }
}

/// `{"clusterDefaultTolerations": [...], "clusterTolerationWhitelist": [...]}` or
/// `{"admissionControlConfigFile": "admission.yaml"}`. Tolerations are read as the plugin reads
/// JSON ones (Go's `encoding/json`: field names in any case, unknown fields ignored).
fn admission(value: &Value, problems: &mut Vec<String>) -> Option<Admission> {
    let map = match value {
        Value::Null => return None,
        Value::Object(map) => map,
        other => {
            problems.push(format!(
                "setting `admission` must be an object, not {}",
                kind(other)
            ));
            return None;
        }
    };
    let mut restriction = crate::config::TolerationRestriction::default();
    let mut inline = false;
    let mut file = None;
    for (key, v) in map {
        match key.as_str() {
            "clusterDefaultTolerations" | "clusterTolerationWhitelist" => {
                inline = true;
                let list = match v {
                    Value::Null => Ok(Vec::new()),
                    Value::Array(_) => crate::k8s::cluster::parse_tolerations_json(&v.to_string())
                        .map_err(|e| e.message),
                    other => Err(format!(
                        "must be a list of tolerations, not {}",
                        kind(other)
                    )),
                };
                match list {
                    Ok(list) if key == "clusterDefaultTolerations" => restriction.default = list,
                    Ok(list) => restriction.whitelist = list,
                    Err(e) => problems.push(format!("setting `admission.{key}`: {e}")),
                }
            }
            "admissionControlConfigFile" => match v {
                Value::String(s) if !s.trim().is_empty() => file = Some(s.trim().to_string()),
                other => problems.push(format!(
                    "setting `admission.admissionControlConfigFile` must be a path, not {}",
                    kind(other)
                )),
            },
            other => problems.push(format!(
                "unknown setting `admission.{other}` (known: clusterDefaultTolerations, \
                 clusterTolerationWhitelist, admissionControlConfigFile)"
            )),
        }
    }
    match (inline, file) {
        (true, Some(_)) => {
            problems.push(
                "setting `admission`: give clusterDefaultTolerations and \
                 clusterTolerationWhitelist, or admissionControlConfigFile, not both"
                    .to_string(),
            );
            None
        }
        (true, None) => Some(Admission::Inline(restriction)),
        (false, Some(f)) => Some(Admission::File(f)),
        (false, None) => None,
    }
}

fn rules(value: &Value, problems: &mut Vec<String>) -> Vec<(String, String)> {
    match value {
        Value::Null => Vec::new(),
        Value::Object(map) => map
            .iter()
            .filter_map(|(name, level)| match level {
                Value::String(s) => Some((name.clone(), s.clone())),
                other => {
                    problems.push(format!(
                        "setting `rules.{name}` must be one of error, warning, info, hint, off; \
                         not {}",
                        kind(other)
                    ));
                    None
                }
            })
            .collect(),
        other => {
            problems.push(format!(
                "setting `rules` must be an object of rule names to levels, not {}",
                kind(other)
            ));
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_form() {
        let (s, problems) = Settings::from_json(&json!({
            "taintlint": {
                "inventory": "a.yaml, b.yaml",
                "featureGates": {"TaintTolerationComparisonOperators": true},
                "enableAdmissionPlugins": ["ExtendedResourceToleration"],
                "rules": {"tolerates-everything": "off"},
                "kustomize": "kubectl"
            }
        }));
        assert!(problems.is_empty(), "{problems:?}");
        let s = s.unwrap();
        assert_eq!(s.inventory, ["a.yaml", "b.yaml"]);
        assert_eq!(s.feature_gates, ["TaintTolerationComparisonOperators=true"]);
        assert_eq!(s.enable_admission_plugins, ["ExtendedResourceToleration"]);
        assert_eq!(s.rules, [("tolerates-everything".into(), "off".into())]);
        assert_eq!(s.kustomize, Some(crate::config_file::Kustomize::Kubectl));
        // Empty, as VS Code sends a setting left alone: the configuration file decides.
        let (s, problems) = Settings::from_json(&json!({"kustomize": ""}));
        assert_eq!((s.unwrap().kustomize, problems), (None, vec![]));
    }

    #[test]
    fn admission() {
        let (s, problems) = Settings::from_json(&json!({
            "admission": {
                "clusterDefaultTolerations": [{"key": "tenant", "operator": "Exists"}],
                "clusterTolerationWhitelist": [{"Key": "gpu", "effect": "NoSchedule"}]
            }
        }));
        assert!(problems.is_empty(), "{problems:?}");
        let Some(Admission::Inline(r)) = s.unwrap().admission else {
            panic!("inline")
        };
        assert_eq!(r.default[0].toleration.key, "tenant");
        assert_eq!(r.whitelist[0].toleration.key, "gpu");
        assert!(r.whitelist[0].bare_operator);
        let (s, _) =
            Settings::from_json(&json!({"admission": {"admissionControlConfigFile": "a.yaml"}}));
        assert_eq!(s.unwrap().admission, Some(Admission::File("a.yaml".into())));
        let (s, problems) = Settings::from_json(&json!({
            "admission": {"clusterTolerationWhitelist": [{"operator": "exists"}], "x": 1}
        }));
        assert_eq!(
            s.unwrap().admission,
            Some(Admission::Inline(Default::default()))
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("Unsupported value: \"exists\""),
            "{problems:?}"
        );
    }

    #[test]
    fn other_tools_settings_are_not_ours() {
        assert_eq!(
            Settings::from_json(&json!({"yaml": {"schemas": {}}})),
            (None, vec![])
        );
        assert_eq!(Settings::from_json(&Value::Null), (None, vec![]));
    }

    #[test]
    fn bad_entries_are_reported_and_left_out() {
        let (s, problems) = Settings::from_json(&json!({
            "inventory": ["a.yaml", 3],
            "featureGates": {"X": "yes"},
            "rules": "off",
            "kustomize": "helm",
            "colour": true
        }));
        assert_eq!(s.unwrap().inventory, ["a.yaml"]);
        // In the order the client wrote them.
        assert_eq!(
            problems,
            [
                "setting `inventory[1]` must be a string, not a number",
                "setting `featureGates.X` must be true or false, not a string",
                "setting `rules` must be an object of rule names to levels, not a string",
                "setting `kustomize` is one of auto, kustomize, kubectl, off, not \"helm\"",
                "unknown setting `colour` (known: inventory, featureGates, \
                 enableAdmissionPlugins, disableAdmissionPlugins, rules, admission, docsUrl, \
                 kustomize)",
            ]
        );
    }
}
