//! `nonpositive-toleration-seconds`: zero or negative tolerationSeconds evicts at once.

use super::{Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::objects::Item;

pub struct NonpositiveTolerationSeconds;

pub static META: RuleMeta = RuleMeta {
    name: "nonpositive-toleration-seconds",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: false,
    summary: "tolerationSeconds of zero or less evicts the pod at once",
    why: "Zero and negative values both evict the pod as soon as the taint appears.",
    explanation: r#"## What it catches
A NoExecute toleration with `tolerationSeconds: 0` or a negative number.

## Why it matters
The API server accepts it, and the taint manager treats zero and negative values alike: the pod
is evicted as soon as the taint appears, the same as having no toleration at all (except that the
pod may still be scheduled onto the tainted node first, and then evicted).

## Example
```yaml
tolerations:
- key: node.kubernetes.io/unreachable
  operator: Exists
  effect: NoExecute
  tolerationSeconds: 0
```

## Fix
Give the number of seconds the pod should stay (the default added by admission is 300), or
remove `tolerationSeconds` to stay forever.
"#,
};

impl Rule for NonpositiveTolerationSeconds {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        let Some(f) = item.field("tolerationSeconds") else {
            return;
        };
        let Ok(Some(seconds)) = f.decoded.as_int64() else {
            return;
        };
        if seconds > 0 {
            return;
        }
        let message =
            format!("tolerationSeconds: {seconds} evicts the pod as soon as the taint appears");
        let range = cx.span(f.value);
        cx.report(range, item.field_path("tolerationSeconds"), message);
    }
}
