//! `deprecated-tolerations-annotation`: the pod annotation `scheduler.alpha.kubernetes.io/tolerations`,
//! which the scheduler ignores; its tolerations still get the API server's toleration rules, at
//! their characters inside the JSON.

use super::{check_lists, ObjectCx, Rule, RuleMeta};
use crate::diagnostic::{ObjectRef, Severity};
use crate::k8s::cluster::{pod_annotation, read_annotation, value_offsets, POD_TOLERATIONS};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::{List, Owner, TolerationList};
use crate::syntax::{self, NodeKind};

pub struct DeprecatedTolerationsAnnotation;

pub static META: RuleMeta = RuleMeta {
    name: "deprecated-tolerations-annotation",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: false,
    summary: "The deprecated pod annotation scheduler.alpha.kubernetes.io/tolerations, which the scheduler ignores",
    why: "The scheduler ignores the annotation: only spec.tolerations count.",
    explanation: r#"## What it catches
A Pod, or a workload's pod template, with the annotation
`scheduler.alpha.kubernetes.io/tolerations`: the way tolerations were written before they
became the `tolerations` field (Kubernetes 1.6). The scheduler has ignored it ever since; only
`spec.tolerations` count.

The API server still validates it (upstream `ValidateTolerationsInPodAnnotations`,
pkg/apis/core/validation/validation.go, called for pods and pod templates): a value that does not
decode is `invalid-toleration-annotation`, and once it decodes its tolerations get the toleration
rules the API server applies to `spec.tolerations` (`invalid-key`, `invalid-value`,
`unknown-operator`, `unknown-effect`, `empty-key-requires-exists`, `exists-with-value`,
`toleration-seconds-requires-no-execute`), reported at their characters inside the JSON with the
API server's path (`metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].key`;
a template's is `spec.template.annotations....`). Those places are exact for plain and quoted
scalars on one line (escapes included) and literal block scalars (`|`); in a folded (`>`) or
multi-line quoted scalar they cover the whole value. Advice rules do not run inside it (the
tolerations have no effect), and nothing is checked inside when a field name is written in
another case (`"Key"`), which Go's decoder accepts but the rules would misread. No fix is
offered inside the JSON.

## Why it matters
Tolerations written only in the annotation tolerate nothing: the pod stays off the tainted nodes
it was meant for, or is evicted from them.

## Example
```yaml
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    scheduler.alpha.kubernetes.io/tolerations: '[{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}]'
spec:
  containers: [{name: web, image: nginx}]
```

## Fix
Move the tolerations to `spec.tolerations` (in a workload, `spec.template.spec.tolerations`)
and delete the annotation.
"#,
};

/// The rules whose findings inside the annotation are the API server's `ValidateTolerations`.
/// Decoding (`undecodable-value`, `unknown-field`) is Go's JSON decoder's business there, which
/// `invalid-toleration-annotation` reports.
const VALIDATION_RULES: &[&str] = &[
    "invalid-key",
    "invalid-value",
    "unknown-operator",
    "unknown-effect",
    "empty-key-requires-exists",
    "exists-with-value",
    "toleration-seconds-requires-no-execute",
];

const FIELDS: &[&str] = &["key", "operator", "value", "effect", "tolerationSeconds"];

impl Rule for DeprecatedTolerationsAnnotation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_object(&self, cx: &mut ObjectCx<'_, '_>) {
        let Some(kind) = cx.object.kind else { return };
        let Some(a) = pod_annotation(
            cx.doc,
            cx.object.node,
            &cx.object.path,
            kind,
            POD_TOLERATIONS,
        ) else {
            return;
        };
        let json = match decode(cx.doc, a.value) {
            Decoded::Str(s) => s,
            _ => "",
        };
        let spec = if kind == "Pod" {
            "spec.tolerations"
        } else {
            "the template's spec.tolerations"
        };
        let range = cx.span(a.key);
        cx.report(
            range,
            a.path.clone(),
            format!("the scheduler ignores {POD_TOLERATIONS}: move its tolerations to {spec}"),
        );
        if json.is_empty() {
            return;
        }
        // Only a value that decodes is validated (upstream returns at the decoding error).
        if let Err(e) = read_annotation(cx.doc, a.value, "").tolerations {
            if !e.message.contains("Unsupported value") {
                return;
            }
        }
        // JSON is YAML: the toleration rules read it as a document of its own.
        let stream = syntax::parse(json);
        let Some(doc) = stream.documents.first().filter(|d| d.error.is_none()) else {
            return;
        };
        let Some(root) = doc.root.filter(|&r| doc.sequence(r).is_some()) else {
            return;
        };
        let cased = (0..doc.nodes_len()).any(|i| {
            let Ok(id) = crate::syntax::NodeId::try_from(i) else {
                return false;
            };
            match &doc.node(id).kind {
                NodeKind::Mapping { entries, .. } => entries.iter().any(|&(k, _)| {
                    doc.scalar(k).is_some_and(|(name, _)| {
                        FIELDS
                            .iter()
                            .any(|f| f.eq_ignore_ascii_case(name) && *f != name)
                    })
                }),
                _ => false,
            }
        });
        if cased {
            return;
        }
        let list = TolerationList {
            list: List {
                whole: false,
                node: root,
                key: root,
                path: a.api_path.clone(),
                object: None,
            },
            owner: Owner::PodSpec(0),
        };
        let mut found = Vec::new();
        check_lists(
            json,
            doc,
            cx.options,
            &[],
            std::slice::from_ref(&list),
            &[],
            &mut found,
        );
        let map = value_offsets(cx.doc, cx.text, a.value);
        let whole = {
            let span = cx.span(a.value);
            let len = cx.text[span.clone()].trim_end().len();
            span.start..span.start + len
        };
        let place = |r: &std::ops::Range<usize>| match &map {
            Some(m) => match (m.get(r.start), m.get(r.end)) {
                (Some(&s), Some(&e)) if s <= e => s..e,
                _ => whole.clone(),
            },
            None => whole.clone(),
        };
        let object = ObjectRef {
            kind: cx.object.kind.map(str::to_string),
            name: cx.object.name.map(str::to_string),
            namespace: cx.object.namespace.map(str::to_string),
        };
        for mut d in found {
            if !VALIDATION_RULES.contains(&d.rule) {
                continue;
            }
            d.range = place(&d.range);
            for r in &mut d.related {
                r.range = place(&r.range);
            }
            d.fixes.clear();
            d.document = Some(cx.doc.index);
            d.object = Some(object.clone());
            d.path = d.path.map(|p| match p.strip_prefix(&a.api_path) {
                Some(rest) => format!("{}{rest}", a.path),
                None => p,
            });
            cx.out.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Options;

    fn lint(annotation: &str) -> Vec<(String, String, String)> {
        let text = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    scheduler.alpha.kubernetes.io/tolerations: {annotation}\nspec:\n  containers: [{{name: c, image: i}}]\n"
        );
        crate::analysis::analyse(&text, &Options::default())
            .into_iter()
            .map(|d| {
                (
                    d.rule.to_string(),
                    text[d.range.clone()].to_string(),
                    d.server_message.unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn the_scheduler_ignores_it_and_its_tolerations_are_validated_in_place() {
        let found = lint(r#"'[{"key": "a b", "operator": "Exists", "value": "v"}]'"#);
        let rules: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            rules,
            [
                "deprecated-tolerations-annotation",
                "invalid-key",
                "exists-with-value"
            ]
        );
        assert_eq!(found[1].1, "\"a b\"");
        assert!(found[1].2.starts_with(
            "metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[0].key: Invalid value: \"a b\""
        ));
        assert_eq!(found[2].1, "\"v\"");
    }

    /// The shape upstream's e2e test writes (test/e2e/scheduling/predicates.go): a multi-line
    /// JSON list, here as a literal block scalar.
    #[test]
    fn a_valid_annotation_gets_only_the_advice() {
        let found = lint(
            "|\n      [\n        {\n          \"key\": \"kubernetes.io/e2e-taint-key\",\n          \"value\": \"testing-taint-value\",\n          \"effect\": \"NoSchedule\"\n        }\n      ]",
        );
        let rules: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(rules, ["deprecated-tolerations-annotation"]);
    }

    #[test]
    fn places_inside_escaped_and_block_scalars() {
        let found = lint(r#""[{\"key\": \"k\", \"effect\": \"NoSchedul\"}]""#);
        assert_eq!(found[1].0, "unknown-effect");
        assert_eq!(found[1].1, r#"\"NoSchedul\""#);
        let found = lint("|\n      [{\"key\": \"k\",\n        \"operator\": \"Exist\"}]");
        assert_eq!(found[1].0, "unknown-operator");
        assert_eq!(found[1].1, "\"Exist\"");
        // Folded: the whole value.
        let found = lint(">\n      [{\"key\": \"k\",\n        \"operator\": \"Exist\"}]");
        assert_eq!(found[1].0, "unknown-operator");
        assert!(found[1].1.starts_with("[{\"key\""), "{found:?}");
    }

    #[test]
    fn what_does_not_decode_is_not_validated() {
        let found = lint(r#"'[{"key": "a b", "tolerationSeconds": "5"}]'"#);
        let rules: Vec<&str> = found.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(
            rules,
            [
                "deprecated-tolerations-annotation",
                "invalid-toleration-annotation"
            ]
        );
        // Go's decoder takes `Key` for `key`; the rules are not run on such an item.
        let found = lint(r#"'[{"Key": "a b"}]'"#);
        assert_eq!(found.len(), 1, "{found:?}");
        // An empty value is not checked by the API server.
        assert_eq!(lint("''").len(), 1);
    }
}
