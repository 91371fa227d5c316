//! `invalid-value`: a toleration or taint value that is not a label value (or, for the Lt and
//! Gt operators, not an integer).

use super::{go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::names::{decimal_int64, is_valid_label_value, label_value_problem};
use crate::k8s::objects::Item;

pub struct InvalidValue;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-value",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A toleration or taint value that is not a valid label value",
    why: "The API server rejects the object.",
    explanation: r#"## What it catches
A value that is not a label value (apimachinery `IsValidLabelValue`): empty, or at most 63
bytes matching `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. With the `Lt` and `Gt` operators
(feature gate TaintTolerationComparisonOperators) the value must be an integer written the
canonical way (`42`, `-3`; not `+42`, `042` or `4.2`).

Upstream reports a bad toleration value under the field path `...operator`, not `...value`
(`ValidateTolerations` passes `idxPath.Child("operator")`), and node taints under
`metadata.taints[i]` (`ValidateNode` starts its path at `metadata`). taintlint says what is wrong
in plain words and points at the value itself; the API server's message, paths included, is the
finding's server message. Since Kubernetes v1.35 it counts the length in "bytes", not
"characters" (apimachinery commit da7b67ed, 2025-08-20).

## Why it matters
The API server rejects the object: `spec.tolerations[0].operator: Invalid value: "nvidia gpu":
a valid label must be an empty string or consist of alphanumeric characters, ...`.

## Example
```yaml
tolerations:
- key: example.com/accelerator
  operator: Equal
  value: "nvidia tesla"
```

## Fix
Use the exact value of the node's taint: no spaces, at most 63 bytes.
"#,
};

impl Rule for InvalidValue {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        let (Some(value), Some(operator)) = (item.text("value"), item.text("operator")) else {
            return;
        };
        let path = cx.api_path(&item.field_path("operator"));
        let (message, server) = match operator {
            "" | "Equal" => {
                let errors = is_valid_label_value(value);
                if errors.is_empty() {
                    return;
                }
                let server = format!(
                    "{path}: Invalid value: {}: {}",
                    go_quote(value),
                    errors.join(";")
                );
                (plain(value), server)
            }
            "Lt" | "Gt" if cx.comparison_operators() => {
                if decimal_int64(value).is_some() {
                    return;
                }
                let path = cx.api_path(&item.field_path("value"));
                let server = format!(
                    "{path}: Invalid value: {}: value must be a valid integer for numeric operators",
                    go_quote(value)
                );
                let message = format!(
                    "value {} is not an integer, which operator {operator} compares",
                    shown(value)
                );
                (message, server)
            }
            _ => return,
        };
        let range = cx.field_range(item, "value");
        cx.report(range, item.field_path("value"), message)
            .with_server_message(server);
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        let Some(value) = item.text("value") else {
            return;
        };
        let errors = is_valid_label_value(value);
        if errors.is_empty() {
            return;
        }
        let server = format!(
            "{}: Invalid value: {}: {}",
            cx.api_path(&item.field_path("value")),
            go_quote(value),
            errors.join(";")
        );
        let range = cx.field_range(item, "value");
        cx.report(range, item.field_path("value"), plain(value))
            .with_server_message(server);
    }
}

/// The message for a value that is not a label value.
fn plain(value: &str) -> String {
    let problem =
        label_value_problem(value).unwrap_or_else(|| "is not a valid label value".to_string());
    format!("value {} {problem}", shown(value))
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options};

    fn findings(gate: bool) -> Vec<String> {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  \
                    - {key: gen, operator: Lt, value: abc, effect: NoSchedule}\n";
        let mut options = Options::default();
        if gate {
            options
                .set_feature_gates("TaintTolerationComparisonOperators=true")
                .unwrap();
        }
        analyse(text, &options)
            .into_iter()
            .filter(|d| d.rule == "invalid-value")
            .map(|d| d.server_message.unwrap_or_default())
            .collect()
    }

    /// `validateTolerations` checks an Lt/Gt value as an integer only when the gate admits the
    /// operator; with the gate off the operator itself is rejected (unknown-operator says so).
    #[test]
    fn lt_gt_values_are_integers_only_with_the_gate() {
        assert_eq!(findings(false), Vec::<String>::new());
        assert_eq!(
            findings(true),
            vec![
                "spec.tolerations[0].value: Invalid value: \"abc\": value must be a valid \
                 integer for numeric operators"
                    .to_string()
            ]
        );
    }
}
