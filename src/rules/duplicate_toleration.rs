//! `duplicate-toleration`: the same toleration twice in one list.

use super::{Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::objects::{Item, Owner};

pub struct DuplicateToleration;

pub static META: RuleMeta = RuleMeta {
    name: "duplicate-toleration",
    severity: Severity::Info,
    needs_inventory: false,
    fixable: false,
    summary: "The same toleration twice in one list",
    why: "The second one adds nothing.",
    explanation: r#"## What it catches
Two tolerations of one pod with the same key, operator, value and effect (upstream
`MatchToleration`; an omitted operator equals `Equal`). In a RuntimeClass, where the API server
refuses a repeated key, operator, value and effect as written, that is an error of
`invalid-runtime-class`; this rule then only notes an omitted operator beside an explicit
`Equal`.

## Why it matters
The second one adds nothing. If their `tolerationSeconds` differ, the shortest one decides when
a NoExecute taint evicts the pod, which is rarely what the longer one's author expected.

## Example
```yaml
tolerations:
- {key: dedicated, operator: Exists, effect: NoSchedule}
- {key: dedicated, operator: Exists, effect: NoSchedule}
```

## Fix
Remove one of them (after a merge of two sources, keep the one that is maintained).
"#,
};

impl Rule for DuplicateToleration {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration_list(&self, cx: &mut Cx<'_, '_>, items: &[Item<'_>]) {
        let tolerations: Vec<_> = items.iter().map(|i| i.toleration()).collect();
        for (i, t) in tolerations.iter().enumerate() {
            let Some(t) = t else { continue };
            let Some(first) = tolerations[..i]
                .iter()
                .position(|o| o.as_ref().is_some_and(|o| o.same_match(t)))
            else {
                continue;
            };
            // In a RuntimeClass, a repeat of the list key (as written) is an error of
            // `invalid-runtime-class`.
            if cx.owner == Some(Owner::RuntimeClass)
                && ["key", "operator", "value", "effect"]
                    .iter()
                    .all(|f| items[first].str(f) == items[i].str(f))
            {
                continue;
            }
            let other = tolerations[first].as_ref().expect("matched above");
            let mut message = format!("duplicate of tolerations[{}]", items[first].index);
            if other.toleration_seconds != t.toleration_seconds {
                let show = |s: Option<i64>| s.map_or("none".to_string(), |s| format!("{s}s"));
                message.push_str(&format!(
                    " with other tolerationSeconds ({} and {}): the shortest applies",
                    show(other.toleration_seconds),
                    show(t.toleration_seconds)
                ));
            }
            let range = cx.item_range(&items[i]);
            let related = cx.item_range(&items[first]);
            cx.report(range, items[i].path.clone(), message)
                .with_related(related, "first occurrence".to_string());
        }
    }
}
