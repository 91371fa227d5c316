//! `unknown-field`: a field a Toleration or Taint does not have (`efect:`), which strict field
//! validation rejects.

use super::{edits, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::{holds_machine_taints, Item};
use crate::k8s::well_known::edit_distance;

pub struct UnknownField;

pub static META: RuleMeta = RuleMeta {
    name: "unknown-field",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: true,
    summary: "A toleration or taint field that does not exist (a typo such as `efect`)",
    why:
        "Strict validation, kubectl's default, rejects the object; without it the field is dropped.",
    explanation: r#"## What it catches
A key inside a toleration other than `key`, `operator`, `value`, `effect` and
`tolerationSeconds`, or inside a node taint other than `key`, `value`, `effect` and `timeAdded`
(in a Cluster API machine template: `key`, `value`, `effect` and `propagation`).
Field names are case-sensitive: `Effect:` is unknown too.

In Terraform, a node group of terraform-aws-modules/eks that writes its taints as `taint` (the
module reads `taints`: node_groups.tf, `taints = try(each.value.taints, ...)`) is reported at
that name: the module ignores it, and its taints are put on no node. So is a key of
terraform-google-modules/kubernetes-engine's `node_pools_taints` that names no pool of
`node_pools` (the module reads the taints under `all` and under each pool's name: cluster.tf,
`concat(local.node_pools_taints["all"], local.node_pools_taints[each.value["name"]])`).

## Why it matters
kubectl validates strictly by default (`--validate=strict`), and the API server then rejects the
object: `strict decoding error: unknown field "spec.tolerations[0].efect"`. With validation off
the field is silently dropped, which is worse: `efect: NoSchedule` becomes "every effect".

## Example
```yaml
tolerations:
- key: dedicated
  operator: Exists
  efect: NoSchedule
```

## Fix
Correct the name (taintlint suggests the field it is closest to) or remove the field.
"#,
};

/// A finding on a field that holds taints under a name its module does not read.
pub(crate) fn check_ignored(
    ignored: &crate::inventory::terraform::Ignored,
) -> crate::diagnostic::Diagnostic {
    crate::diagnostic::Diagnostic {
        rule: META.name,
        severity: META.severity,
        message: format!(
            "unknown field `{}`: {}: its taints are put on no node",
            ignored.name, ignored.why
        ),
        server_message: None,
        range: ignored.range.clone(),
        document: Some(0),
        path: Some(ignored.path.clone()),
        object: None,
        related: Vec::new(),
        fixes: Vec::new(),
    }
}

pub const TOLERATION_FIELDS: &[&str] = &["key", "operator", "value", "effect", "tolerationSeconds"];
pub const TAINT_FIELDS: &[&str] = &["key", "value", "effect", "timeAdded"];
const CAPI_TAINT_FIELDS: &[&str] = &["key", "value", "effect", "propagation"];

impl Rule for UnknownField {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item, TOLERATION_FIELDS);
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        // A Cluster API MachineTaint has `propagation` (Always | OnInitialization) and no
        // `timeAdded` (kubernetes-sigs/cluster-api api/core/v1beta2/common_types.go).
        let capi = cx.object.is_some_and(|o| {
            holds_machine_taints(cx.doc.get_str(o.node, "apiVersion"), o.kind, &cx.list.path)
        });
        if capi {
            check(cx, item, CAPI_TAINT_FIELDS);
        } else {
            check(cx, item, TAINT_FIELDS);
        }
    }
}

/// The known field a misspelt one most likely means.
pub(crate) fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    known
        .iter()
        .copied()
        .map(|k| {
            let d = if k.eq_ignore_ascii_case(name) {
                0
            } else {
                edit_distance(&name.to_ascii_lowercase(), &k.to_ascii_lowercase(), 3)
            };
            (d, k)
        })
        .filter(|&(d, k)| d <= 2 || (d <= 3 && k.len() > 8))
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>, known: &[&str]) {
    let Some(fields) = &item.fields else { return };
    for f in fields {
        if known.contains(&f.name) {
            continue;
        }
        let path = item.field_path(f.name);
        let server = format!(
            "strict decoding error: unknown field \"{}\"",
            cx.object_path(&path)
        );
        let kind = if known.contains(&"operator") {
            "a toleration"
        } else {
            "a taint"
        };
        let mut message = format!("unknown field `{}`: {kind} has no such field", f.name);
        let suggestion = closest(f.name, known);
        let mut fix = None;
        if let Some(s) = suggestion {
            message = format!("unknown field `{}`; did you mean `{s}`?", f.name);
            if item.field(s).is_none() {
                fix = Some(Fix {
                    title: format!("Rename `{}` to `{s}`", f.name),
                    applicability: Applicability::NeedsReview,
                    edits: vec![edits::rename_key(cx.text, cx.doc, f.key, s)],
                });
            }
        }
        let range = cx.span(f.key);
        cx.report(range, path, message)
            .with_server_message(server)
            .with_fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(closest("efect", TOLERATION_FIELDS), Some("effect"));
        assert_eq!(closest("Effect", TOLERATION_FIELDS), Some("effect"));
        assert_eq!(
            closest("tolerationSecond", TOLERATION_FIELDS),
            Some("tolerationSeconds")
        );
        assert_eq!(
            closest("toleration_seconds", TOLERATION_FIELDS),
            Some("tolerationSeconds")
        );
        assert_eq!(closest("nodeSelector", TOLERATION_FIELDS), None);
    }

    /// Three edits away, a field is suggested only when its name is longer than 8 characters:
    /// `tolerationSeconds` and `timeAdded` are, `operator` (8) is not.
    #[test]
    fn three_edits_away_only_long_names() {
        assert_eq!(closest("oxxxator", TOLERATION_FIELDS), None);
        assert_eq!(
            closest("tolerationSecondsxyz", TOLERATION_FIELDS),
            Some("tolerationSeconds")
        );
        assert_eq!(closest("timeAddedxyz", TAINT_FIELDS), Some("timeAdded"));
    }
}
