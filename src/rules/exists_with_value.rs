//! `exists-with-value`: `operator: Exists` with a value.

use super::{edits, go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::Item;

pub struct ExistsWithValue;

pub static META: RuleMeta = RuleMeta {
    name: "exists-with-value",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: true,
    summary: "operator Exists must not have a value",
    why: "The API server rejects the object: Exists matches any value, so a value contradicts it.",
    explanation: r#"## What it catches
A toleration with `operator: Exists` and a non-empty `value`.

## Why it matters
The API server rejects the object: `spec.tolerations[0].operator: Invalid value: "present": value
must be empty when `operator` is 'Exists'`. `Exists` matches any value of the key, so a value there
is a contradiction: either the value or the operator is wrong.

The server message follows the current `ValidateTolerations` (pkg/apis/core/validation), which
passes `toleration.Value` to `field.Invalid`, so the value is what it quotes (seen in the
context lines of kubernetes/kubernetes pull request 134665). Older API servers passed the whole
toleration and printed it as Go's `%#v` of `core.Toleration` (`core.Toleration{Key:"nvidia.com/gpu",
Operator:"Exists", Value:"present", ...}`); the field and the reason are the same.

## Example
```yaml
tolerations:
- key: nvidia.com/gpu
  operator: Exists
  value: "present"
```

## Fix
Drop the value to match any value of the key, or use `operator: Equal` to match only that value.
Both fixes change what the toleration matches and need review.
"#,
};

impl Rule for ExistsWithValue {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        if item.text("operator") != Some("Exists") || item.text("value").is_none_or(str::is_empty) {
            return;
        }
        let (Some(value), Some(operator)) = (item.field("value"), item.field("operator")) else {
            return;
        };
        let path = cx.api_path(&item.field_path("operator"));
        let server = format!(
            "{path}: Invalid value: {}: value must be empty when `operator` is 'Exists'",
            go_quote(item.str("value"))
        );
        let message = format!(
            "value {} is not allowed with `operator: Exists`, which matches any value",
            shown(item.str("value"))
        );
        let mapping = cx.item_mapping(item);
        // Every `value` entry goes: a mapping that repeats the key (a merge mistake) keeps none.
        let values: Vec<_> = item
            .fields
            .iter()
            .flatten()
            .filter(|f| f.name == "value")
            .map(|f| edits::remove_entry(cx.text, cx.doc, mapping, f.key))
            .collect();
        let drop = values
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .map(|edits| Fix {
                title: "Remove the value (match any value of the key)".to_string(),
                applicability: Applicability::NeedsReview,
                edits,
            });
        let equal = Fix {
            title: format!(
                "Use `operator: Equal` (match only the value {:?})",
                item.str("value")
            ),
            applicability: Applicability::NeedsReview,
            edits: vec![edits::replace_scalar(
                cx.text,
                cx.doc,
                operator.value,
                "Equal",
            )],
        };
        let range = cx.span(value.value);
        cx.report(range, item.field_path("value"), message)
            .with_server_message(server)
            .with_fix(drop)
            .with_fix(Some(equal));
    }
}
