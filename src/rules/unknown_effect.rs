//! `unknown-effect`: an effect other than NoSchedule, PreferNoSchedule and NoExecute.

use super::{edits, go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::model::Effect;
use crate::k8s::objects::Item;
use crate::k8s::well_known::edit_distance;

pub struct UnknownEffect;

pub static META: RuleMeta = RuleMeta {
    name: "unknown-effect",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: true,
    summary: "An effect other than NoSchedule, PreferNoSchedule or NoExecute (case-sensitive)",
    why: "The API server rejects the object.",
    explanation: r#"## What it catches
A toleration or taint `effect` that is not exactly `NoSchedule`, `PreferNoSchedule` or
`NoExecute`: `noschedule`, `NoExec`, `NoScheduleNoAdmit` (reserved upstream, never implemented).

## Why it matters
The API server rejects the object: `spec.tolerations[0].effect: Unsupported value: "noschedule":
supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`.

## Example
```yaml
tolerations:
- key: dedicated
  operator: Exists
  effect: noschedule
```

## Fix
Write the effect with its exact spelling. A case-only correction is a safe fix; a correction of
a misspelling needs review.
"#,
};

impl Rule for UnknownEffect {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_item(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item);
    }
}

/// The effect a misspelling most likely meant, and whether only its case differs.
pub fn suggest(effect: &str) -> Option<(Effect, bool)> {
    if let Some(e) = Effect::ALL
        .into_iter()
        .find(|e| e.as_str().eq_ignore_ascii_case(effect))
    {
        return Some((e, true));
    }
    let lower = effect.to_ascii_lowercase();
    Effect::ALL
        .into_iter()
        .map(|e| {
            (
                edit_distance(&lower, &e.as_str().to_ascii_lowercase(), 3),
                e,
            )
        })
        .filter(|&(d, _)| d <= 3)
        .min_by_key(|&(d, _)| d)
        .map(|(_, e)| (e, false))
}

fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>) {
    let Some(effect) = item.text("effect") else {
        return;
    };
    if effect.is_empty() || Effect::parse(effect).is_some() {
        return;
    }
    let Some(f) = item.field("effect") else {
        return;
    };
    let path = item.field_path("effect");
    let api = cx.api_path(&path);
    let server = if cx.kind() == Some("ResourceFlavor") && cx.list.path.ends_with("nodeTaints") {
        // A Kueue ResourceFlavor's CRD refuses the whole list by a CEL rule before its webhook
        // sees it (kubernetes-sigs/kueue apis/kueue/v1beta1/resourceflavor_types.go, the
        // `x.effect in [...]` rule on NodeTaints; apiextensions-apiserver reports a rule on an
        // array as `Invalid value: "array"`).
        format!(
            "{}: Invalid value: \"array\": supported taint effect values: 'NoSchedule', \
             'PreferNoSchedule', 'NoExecute'",
            cx.api_path(&cx.list.path)
        )
    } else {
        format!(
            "{api}: Unsupported value: {}: supported values: \"NoSchedule\", \
             \"PreferNoSchedule\", \"NoExecute\"",
            go_quote(effect)
        )
    };
    let mut message = format!(
        "unknown effect {}: the effect is `NoSchedule`, `PreferNoSchedule` or `NoExecute`",
        shown(effect)
    );
    let mut fix = None;
    if let Some((e, case_only)) = suggest(effect) {
        message = if case_only {
            format!(
                "unknown effect {}; did you mean `{e}`? (effects are case-sensitive)",
                shown(effect)
            )
        } else {
            format!("unknown effect {}; did you mean `{e}`?", shown(effect))
        };
        fix = Some(Fix {
            title: format!("Write `{e}`"),
            applicability: if case_only {
                Applicability::Safe
            } else {
                Applicability::NeedsReview
            },
            edits: vec![edits::replace_scalar(cx.text, cx.doc, f.value, e.as_str())],
        });
    }
    let range = cx.span(f.value);
    cx.report(range, path, message)
        .with_server_message(server)
        .with_fix(fix);
}

/// An effect where a Terraform provider spells effects its own way (the google and aws
/// providers take the GKE / EKS API enum: `NO_SCHEDULE`, `PREFER_NO_SCHEDULE`, `NO_EXECUTE`;
/// terraform-provider-google `google/services/container/node_config.go`,
/// terraform-provider-aws `internal/service/eks/node_group.go`): anything else, the Kubernetes
/// spelling included, fails `terraform plan`.
pub(crate) fn check_provider_effect(
    spelled: &crate::inventory::terraform::Spelled,
) -> Option<crate::diagnostic::Diagnostic> {
    if spelled.valid() {
        return None;
    }
    let expected: Vec<String> = spelled
        .spelling
        .effects
        .iter()
        .map(|(p, _)| format!("`{p}`"))
        .collect();
    let written = &spelled.written;
    let suggestion = suggest(&written.replace('_', "")).and_then(|(e, _)| {
        spelled
            .spelling
            .effects
            .iter()
            .find(|(_, k8s)| *k8s == e.as_str())
            .map(|(p, _)| *p)
    });
    let message = match suggestion {
        Some(p) => format!(
            "unknown effect {} for {}; did you mean `{p}`? (it expects {})",
            shown(written),
            spelled.spelling.provider,
            expected.join(", ")
        ),
        None => format!(
            "unknown effect {}: {} expects {}",
            shown(written),
            spelled.spelling.provider,
            expected.join(", ")
        ),
    };
    let fix = suggestion.map(|p| Fix {
        title: format!("Write `{p}`"),
        applicability: Applicability::NeedsReview,
        edits: vec![crate::diagnostic::Edit {
            range: spelled.range.clone(),
            replacement: p.to_string(),
        }],
    });
    Some(crate::diagnostic::Diagnostic {
        rule: META.name,
        severity: META.severity,
        message,
        server_message: None,
        range: spelled.range.clone(),
        document: Some(0),
        path: Some(spelled.path.clone()),
        object: None,
        related: Vec::new(),
        fixes: fix.into_iter().collect(),
    })
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options};

    /// The server messages of an unknown effect, by path.
    fn said(text: &str) -> Vec<(String, String)> {
        analyse(text, &Options::default())
            .into_iter()
            .filter(|d| d.rule == "unknown-effect")
            .map(|d| {
                (
                    d.path.unwrap_or_default(),
                    d.server_message.unwrap_or_default(),
                )
            })
            .collect()
    }

    /// A Kueue ResourceFlavor's nodeTaints are refused as a whole list by its CRD's CEL rule; its
    /// tolerations, and a Node's taints, by the field (shaped like the examples of
    /// kubernetes-sigs/kueue's ResourceFlavor documentation).
    #[test]
    fn resource_flavor_node_taints_are_refused_as_an_array() {
        let flavor = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  \
                      name: spot\nspec:\n  nodeTaints:\n  - key: spot\n    value: \"true\"\n    \
                      effect: NoSchedul\n  tolerations:\n  - key: spot\n    operator: Exists\n    \
                      effect: NoSchedul\n";
        let node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nspec:\n  taints:\n  \
                    - key: spot\n    value: \"true\"\n    effect: NoSchedul\n";
        let supported = "supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"";
        assert_eq!(
            said(flavor),
            [
                (
                    "spec.nodeTaints[0].effect".to_string(),
                    "spec.nodeTaints: Invalid value: \"array\": supported taint effect values: \
                     'NoSchedule', 'PreferNoSchedule', 'NoExecute'"
                        .to_string()
                ),
                (
                    "spec.tolerations[0].effect".to_string(),
                    format!(
                        "spec.tolerations[0].effect: Unsupported value: \"NoSchedul\": {supported}"
                    )
                ),
            ]
        );
        assert_eq!(
            said(node),
            [(
                "spec.taints[0].effect".to_string(),
                // ValidateNode names the field metadata.taints (upstream's own path).
                format!("metadata.taints[0].effect: Unsupported value: \"NoSchedul\": {supported}")
            )]
        );
    }
}
