//! `empty-key-requires-exists`: a toleration without a key must use `operator: Exists`.

use super::{edits, go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::Item;

pub struct EmptyKeyRequiresExists;

pub static META: RuleMeta = RuleMeta {
    name: "empty-key-requires-exists",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: true,
    summary: "A toleration with an empty key must use operator Exists",
    why: "The API server rejects the object.",
    explanation: r#"## What it catches
A toleration whose `key` is empty or missing while its operator is not `Exists`. An omitted
operator counts as `Equal`.

## Why it matters
The API server rejects the object: `spec.tolerations[0].operator: Invalid value: "Equal":
operator must be Exists when `key` is empty, which means "match all values and all keys"`.

## Example
```yaml
tolerations:
- effect: NoSchedule      # no key, no operator
```

## Fix
Add the taint's key, or, if the pod really should tolerate every taint of that effect, set
`operator: Exists`. The fix sets the operator and needs review: it makes the toleration match
every key.
"#,
};

impl Rule for EmptyKeyRequiresExists {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        let (Some(""), Some(operator)) = (item.text("key"), item.text("operator")) else {
            return;
        };
        if operator == "Exists" {
            return;
        }
        let path = item.field_path("operator");
        let api = cx.api_path(&path);
        let server = format!(
            "{api}: Invalid value: {}: operator must be Exists when `key` is empty, which means \
             \"match all values and all keys\"",
            go_quote(operator)
        );
        let message = if operator.is_empty() {
            "an empty key needs `operator: Exists` (to match every key), and the operator is \
             omitted (Equal)"
                .to_string()
        } else {
            format!(
                "an empty key needs `operator: Exists` (to match every key), not {}",
                shown(operator)
            )
        };
        let range = match item.field("operator") {
            Some(f) => cx.value_range(f.value, f.key),
            None => cx.field_range(item, "key"),
        };
        let mapping = cx.item_mapping(item);
        let edit = match item.field("operator") {
            Some(f) => Some(edits::replace_scalar(cx.text, cx.doc, f.value, "Exists")),
            None => edits::add_entry(cx.text, cx.doc, mapping, "operator", "Exists"),
        };
        // With a value left in place, Exists would be rejected too: only offer the fix without.
        let fix = edit
            .filter(|_| item.str("value").is_empty())
            .map(|edit| Fix {
                title: "Set `operator: Exists` (tolerate every key)".to_string(),
                applicability: Applicability::NeedsReview,
                edits: vec![edit],
            });
        cx.report(range, path, message)
            .with_server_message(server)
            .with_fix(fix);
    }
}
