//! `unknown-operator`: an operator other than Equal and Exists (case-sensitive).

use super::{edits, go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::objects::{Item, Owner};

pub struct UnknownOperator;

pub static META: RuleMeta = RuleMeta {
    name: "unknown-operator",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: true,
    summary: "An operator other than Equal or Exists (operators are case-sensitive)",
    why: "The API server rejects the object.",
    explanation: r#"## What it catches
A toleration `operator` that is not exactly `Equal` or `Exists`: `exists`, `EQUAL`, `In`,
`NotEqual`. `Lt` and `Gt` are accepted only when the feature gate
TaintTolerationComparisonOperators is on (`--feature-gates
TaintTolerationComparisonOperators=true`), and never in a RuntimeClass: upstream validates its
`scheduling.tolerations` with empty `PodValidationOptions` (pkg/apis/node/validation
`validateTolerations`), so the option the gate sets for pods is off there.

With the gate off, `Lt` and `Gt` get the text of `ValidateTolerations` (pkg/apis/core/validation,
since Kubernetes 1.35, kubernetes/kubernetes pull request 134665): `field.NotSupported` with the
four operators `"Equal", "Exists", "Lt", "Gt"` as its supported values. This reads as if it
contradicts itself, but it is what the API server prints: checked in the upstream change that
added the branch (`validValues := []core.TolerationOperator{core.TolerationOpEqual,
core.TolerationOpExists, core.TolerationOpLt, core.TolerationOpGt}`), not reconstructed. Any other
operator lists `"Equal", "Exists"`.

## Why it matters
The API server rejects the object: `spec.tolerations[0].operator: Unsupported value: "exists":
supported values: "Equal", "Exists"`.

## Example
```yaml
tolerations:
- key: dedicated
  operator: exists
```

## Fix
Write the operator with its exact spelling. A case-only correction is a safe fix.
"#,
};

const COMPARISON_GATE: &str = "TaintTolerationComparisonOperators";

impl Rule for UnknownOperator {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        let Some(operator) = item.text("operator") else {
            return;
        };
        let comparison = matches!(operator, "Lt" | "Gt");
        if matches!(operator, "" | "Equal" | "Exists") || (comparison && cx.comparison_operators())
        {
            return;
        }
        // Upstream lists all four operators when Lt or Gt is refused for the gate, two otherwise.
        let supported: &[&str] = if comparison {
            &["Equal", "Exists", "Lt", "Gt"]
        } else {
            &["Equal", "Exists"]
        };
        let Some(f) = item.field("operator") else {
            return;
        };
        let path = cx.api_path(&item.field_path("operator"));
        let list: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
        let server = format!(
            "{path}: Unsupported value: {}: supported values: {}",
            go_quote(operator),
            list.join(", ")
        );
        let suggestion = ["Equal", "Exists"]
            .iter()
            .find(|s| s.eq_ignore_ascii_case(operator));
        let message = match suggestion {
            _ if comparison && cx.owner == Some(Owner::RuntimeClass) => format!(
                "operator `{operator}` is refused in a RuntimeClass, whatever the feature gate \
                 {COMPARISON_GATE} says"
            ),
            _ if comparison => format!(
                "operator `{operator}` needs the feature gate {COMPARISON_GATE}, which is off"
            ),
            Some(s) => format!(
                "unknown operator {}; did you mean `{s}`? (operators are case-sensitive)",
                shown(operator)
            ),
            None => format!(
                "unknown operator {}: the operator is `Equal` or `Exists`",
                shown(operator)
            ),
        };
        let fix = suggestion.map(|s| Fix {
            title: format!("Write `{s}`"),
            applicability: Applicability::Safe,
            edits: vec![edits::replace_scalar(cx.text, cx.doc, f.value, s)],
        });
        let range = cx.span(f.value);
        cx.report(range, item.field_path("operator"), message)
            .with_server_message(server)
            .with_fix(fix);
    }
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options};

    fn messages(text: &str, gate: bool) -> Vec<String> {
        let mut options = Options::default();
        if gate {
            options
                .set_feature_gates("TaintTolerationComparisonOperators=true")
                .unwrap();
        }
        analyse(text, &options)
            .into_iter()
            .filter(|d| d.rule == "unknown-operator")
            .map(|d| d.message)
            .collect()
    }

    /// A RuntimeClass's tolerations never take Lt or Gt (pkg/apis/node/validation validates them
    /// with empty `PodValidationOptions`), so the message does not point at the gate; a Pod's
    /// says the gate is off.
    #[test]
    fn lt_in_a_runtime_class_is_refused_whatever_the_gate() {
        let runtime_class = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  \
                             name: gvisor\nhandler: runsc\nscheduling:\n  tolerations:\n  \
                             - {key: gen, operator: Lt, value: \"5\", effect: NoSchedule}\n";
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  \
                   - {key: gen, operator: Lt, value: \"5\", effect: NoSchedule}\n";
        let refused = "operator `Lt` is refused in a RuntimeClass, whatever the feature gate \
                       TaintTolerationComparisonOperators says";
        assert_eq!(messages(runtime_class, false), [refused]);
        assert_eq!(messages(runtime_class, true), [refused]);
        assert_eq!(
            messages(pod, false),
            ["operator `Lt` needs the feature gate TaintTolerationComparisonOperators, which is off"]
        );
        assert_eq!(messages(pod, true), Vec::<String>::new());
    }
}
