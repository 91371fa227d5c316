//! `equal-empty-value`: Equal with an empty value matches only taints without a value.

use super::{edits, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::Item;
use crate::k8s::well_known::{deprecated, WELL_KNOWN_TAINT_KEYS};

pub struct EqualEmptyValue;

pub static META: RuleMeta = RuleMeta {
    name: "equal-empty-value",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: true,
    summary: "operator Equal (or none) with an empty value: did you mean Exists?",
    why: "Most taints carry a value, and such a toleration does not match them.",
    explanation: r#"## What it catches
A toleration with a key, an `Equal` operator (written, or omitted, which means Equal) and an
empty or missing value. It matches only taints of that key that have no value. Keys of the
well-known taints, which never have a value, are not reported, nor their retired names
(`node-role.kubernetes.io/master`, `node.alpha.kubernetes.io/notReady`, which had no value
either: `deprecated-taint-key` speaks of those).

## Why it matters
Most custom taints carry a value (`dedicated=gpu:NoSchedule`), and such a toleration does not
match them; the intent is usually "any value of this key", which is `operator: Exists`.

## Example
```yaml
tolerations:
- key: dedicated
  effect: NoSchedule
```

## Fix
Set `operator: Exists` to match any value, or write the value the taint has. The fix changes
what the toleration matches and needs review.
"#,
};

impl Rule for EqualEmptyValue {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        let Some(key) = item.text("key") else { return };
        if key.is_empty()
            || WELL_KNOWN_TAINT_KEYS.contains(&key)
            || deprecated(key).is_some()
            || !matches!(item.text("operator"), Some("" | "Equal"))
            || item.text("value") != Some("")
        {
            return;
        }
        let written = item.field("operator").is_some();
        let message = format!(
            "{} with an empty value matches only {} taints without a value; did you mean `Exists`?",
            if written {
                "`operator: Equal`"
            } else {
                "no operator (Equal)"
            },
            shown(key)
        );
        let mapping = cx.item_mapping(item);
        // Both edits or no fix: with `Operator:` (misspelt) beside it no operator can be added
        // (that key's own fix renames it), and removing the value alone would fix nothing.
        let operator_edit = match item.field("operator") {
            Some(f) => Some(edits::replace_scalar(cx.text, cx.doc, f.value, "Exists")),
            None => edits::add_entry(cx.text, cx.doc, mapping, "operator", "Exists"),
        };
        let value_edit = match item.field("value") {
            Some(v) => edits::remove_entry(cx.text, cx.doc, mapping, v.key).map(Some),
            None => Some(None),
        };
        let fix = operator_edit
            .zip(value_edit)
            .map(|(operator, value)| [Some(operator), value].into_iter().flatten().collect())
            .filter(|edits: &Vec<_>| !overlapping(edits))
            .map(|edits| Fix {
                title: "Use `operator: Exists` (any value)".to_string(),
                applicability: Applicability::NeedsReview,
                edits,
            });
        let range = match item.field("operator") {
            Some(f) => cx.span(f.value),
            None => cx.field_range(item, "key"),
        };
        cx.report(range, item.field_path("operator"), message)
            .with_fix(fix);
    }
}

fn overlapping(edits: &[crate::diagnostic::Edit]) -> bool {
    edits.iter().enumerate().any(|(i, a)| {
        edits[i + 1..].iter().any(|b| {
            a.range.start < b.range.end.max(b.range.start + 1)
                && b.range.start < a.range.end.max(a.range.start + 1)
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options};

    #[test]
    fn no_fix_that_cannot_add_the_operator() {
        let fixable = |text: &str| {
            let found = analyse(text, &Options::default());
            let d = found
                .iter()
                .find(|d| d.rule == "equal-empty-value")
                .expect("equal-empty-value reports it");
            !d.fixes.is_empty()
        };
        assert!(fixable(
            "kind: Pod\nspec:\n  tolerations:\n  - key: example.com/gpu\n    value: \"\"\n"
        ));
        // `Operator:` is unknown-field's to rename; this fix would only remove the value.
        assert!(!fixable(
            "kind: Pod\nspec:\n  tolerations:\n  - key: example.com/gpu\n    Operator: Exists\n    value: \"\"\n"
        ));
    }
}
