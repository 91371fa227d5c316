//! `duplicate-taint`: two taints of a node with the same key and effect.

use super::{shown, Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::objects::Item;

pub struct DuplicateTaint;

pub static META: RuleMeta = RuleMeta {
    name: "duplicate-taint",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "Two taints with the same key and effect",
    why: "The API server rejects the Node.",
    explanation: r#"## What it catches
Two taints of one node with the same `key` and `effect`, whatever their values.

## Why it matters
The API server rejects the Node: `spec.taints[1]: Duplicate value: ...: taints must be unique by
key and effect pair`. Which value was meant is ambiguous.

## Example
```yaml
spec:
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: dedicated, value: batch, effect: NoSchedule}
```

## Fix
Keep one of them, or give them different effects.
"#,
};

impl Rule for DuplicateTaint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_taint_list(&self, cx: &mut Cx<'_, '_>, items: &[Item<'_>]) {
        let mut seen: Vec<(&str, &str, usize)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let (Some(key), Some(effect)) = (item.text("key"), item.text("effect")) else {
                continue;
            };
            if let Some(&(_, _, first)) = seen.iter().find(|(k, e, _)| *k == key && *e == effect) {
                let server = format!(
                    "{}: Duplicate value: {{\"key\":{key:?},\"effect\":{effect:?}}}: taints must \
                     be unique by key and effect pair",
                    cx.api_path(&item.path)
                );
                let message = format!(
                    "duplicate of taints[{}]: the same key {} and effect {effect} (one taint \
                     per key and effect)",
                    items[first].index,
                    shown(key)
                );
                let range = cx.item_range(item);
                let related = cx.item_range(&items[first]);
                cx.report(range, item.path.clone(), message)
                    .with_server_message(server)
                    .with_related(
                        related,
                        format!("first taint with key {key:?} and effect {effect:?}"),
                    );
                continue;
            }
            seen.push((key, effect, i));
        }
    }
}
