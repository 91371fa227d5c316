//! kube-apiserver's `--admission-control-config-file`: an `AdmissionConfiguration`
//! (apiserver.config.k8s.io/v1) whose PodTolerationRestriction entry holds the plugin's
//! `Configuration` (podtolerationrestriction.admission.k8s.io/v1: `default` and `whitelist`
//! tolerations) inline under `configuration`, or in the file that `path` names. Pure: a file
//! named by `path` is read through the caller's `read`.

use crate::config::TolerationRestriction;
use crate::k8s::cluster::ApiToleration;
use crate::k8s::objects::{items, List};
use crate::syntax::{self, Document, NodeId};

const PLUGIN: &str = "PodTolerationRestriction";

/// Reads an admission configuration file's text into the PodTolerationRestriction settings
/// (the defaults when the file does not configure that plugin). An error says what is wrong, as
/// it would stop kube-apiserver.
pub fn parse(
    text: &str,
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<TolerationRestriction, String> {
    let stream = syntax::parse(text);
    let doc = stream
        .documents
        .iter()
        .find(|d| d.root.is_some())
        .ok_or("holds no AdmissionConfiguration")?;
    if let Some(e) = stream.error.as_ref().or(doc.error.as_ref()) {
        return Err(format!("not valid YAML: {}", e.message));
    }
    let root = doc.root.expect("found above");
    match doc.get_str(root, "kind") {
        Some("AdmissionConfiguration") => {}
        other => {
            return Err(format!(
                "kind is {}, expected AdmissionConfiguration (apiserver.config.k8s.io/v1)",
                other.map_or("missing".to_string(), |k| format!("{k:?}"))
            ))
        }
    }
    let plugins = doc
        .get(root, "plugins")
        .and_then(|(_, v)| doc.sequence(v))
        .unwrap_or_default();
    for &plugin in plugins {
        if doc.get_str(plugin, "name") != Some(PLUGIN) {
            continue;
        }
        if let Some((_, config)) = doc.get(plugin, "configuration") {
            return configuration(doc, config);
        }
        if let Some(path) = doc.get_str(plugin, "path") {
            let text = read(path).map_err(|e| format!("{PLUGIN} configuration {path}: {e}"))?;
            let stream = syntax::parse(&text);
            let inner = stream
                .documents
                .iter()
                .find(|d| d.root.is_some())
                .ok_or_else(|| format!("{PLUGIN} configuration {path}: empty"))?;
            if let Some(e) = stream.error.as_ref().or(inner.error.as_ref()) {
                return Err(format!(
                    "{PLUGIN} configuration {path}: not valid YAML: {}",
                    e.message
                ));
            }
            return configuration(inner, inner.root.expect("found above"))
                .map_err(|e| format!("{PLUGIN} configuration {path}: {e}"));
        }
        return Err(format!(
            "plugin {PLUGIN} has neither `configuration` nor `path`"
        ));
    }
    Ok(TolerationRestriction::default())
}

/// The plugin's `Configuration` object.
fn configuration(doc: &Document<'_>, node: NodeId) -> Result<TolerationRestriction, String> {
    if doc.mapping(node).is_none() {
        return Err("the configuration is not a mapping".to_string());
    }
    if let Some(kind) = doc.get_str(node, "kind").filter(|k| *k != "Configuration") {
        return Err(format!("kind is {kind:?}, expected Configuration"));
    }
    Ok(TolerationRestriction {
        default: tolerations(doc, node, "default")?,
        whitelist: tolerations(doc, node, "whitelist")?,
    })
}

fn tolerations(
    doc: &Document<'_>,
    node: NodeId,
    field: &str,
) -> Result<Vec<ApiToleration>, String> {
    let Some((key, value)) = doc.get(node, field) else {
        return Ok(Vec::new());
    };
    toleration_list(doc, key, value, field)
}

/// A list of tolerations as the plugin's configuration holds them (`field` names it in errors);
/// null is an empty list.
pub fn toleration_list(
    doc: &Document<'_>,
    key: NodeId,
    value: NodeId,
    field: &str,
) -> Result<Vec<ApiToleration>, String> {
    if matches!(
        doc.scalar(value),
        Some(("" | "~" | "null" | "Null" | "NULL", syntax::Style::Plain))
    ) {
        return Ok(Vec::new());
    }
    if doc.sequence(value).is_none() {
        return Err(format!("{field} is not a list of tolerations"));
    }
    let list = List {
        whole: false,
        node: value,
        key,
        path: field.to_string(),
        object: None,
    };
    items(doc, &list)
        .iter()
        .map(|item| {
            item.toleration()
                .map(|t| ApiToleration::new(t, item.str("operator").is_empty()))
                .ok_or_else(|| {
                    format!(
                        "{}: not a valid toleration (fields key, operator Equal or Exists, \
                         value, effect NoSchedule, PreferNoSchedule or NoExecute, \
                         tolerationSeconds)",
                        item.path
                    )
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::model::Operator;

    const INLINE: &str = "apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodTolerationRestriction
  configuration:
    apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
    kind: Configuration
    default:
    - {key: tenant, operator: Exists, effect: NoSchedule}
    whitelist:
    - {operator: Exists, effect: NoSchedule}
    - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
";

    fn no_files(_: &str) -> Result<String, String> {
        Err("no such file".to_string())
    }

    #[test]
    fn inline_and_by_path() {
        let c = parse(INLINE, &no_files).unwrap();
        assert_eq!(c.default.len(), 1);
        assert_eq!(c.whitelist.len(), 2);
        assert_eq!(c.whitelist[0].toleration.operator, Operator::Exists);
        let by_path = "kind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  path: ptr.yaml\n";
        let inner = "kind: Configuration\nwhitelist: [{key: a, value: b}]\n";
        let c = parse(by_path, &|p| {
            assert_eq!(p, "ptr.yaml");
            Ok(inner.to_string())
        })
        .unwrap();
        assert!(c.whitelist[0].bare_operator);
        let e = parse(by_path, &no_files).unwrap_err();
        assert!(e.contains("ptr.yaml: no such file"), "{e}");
    }

    #[test]
    fn invalid_files_say_why() {
        assert!(parse("kind: Pod\n", &no_files)
            .unwrap_err()
            .contains("expected AdmissionConfiguration"));
        assert!(parse("", &no_files).is_err());
        let bad = INLINE.replace(
            "effect: NoSchedule}\n    whitelist",
            "effect: noschedule}\n    whitelist",
        );
        let e = parse(&bad, &no_files).unwrap_err();
        assert!(e.contains("default[0]: not a valid toleration"), "{e}");
        // Other plugins' configuration is not ours to judge.
        let other =
            "kind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: erl.yaml\n";
        assert_eq!(
            parse(other, &no_files).unwrap(),
            TolerationRestriction::default()
        );
    }
}
