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

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item);
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
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
    let server = format!(
        "{api}: Unsupported value: {}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \
         \"NoExecute\"",
        go_quote(effect)
    );
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
            edits: vec![edits::replace_scalar(cx.doc, f.value, e.as_str())],
        });
    }
    let range = cx.span(f.value);
    cx.report(range, path, message)
        .with_server_message(server)
        .with_fix(fix);
}
