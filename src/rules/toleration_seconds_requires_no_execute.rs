//! `toleration-seconds-requires-no-execute`: tolerationSeconds only means something for
//! NoExecute.

use super::{edits, go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::decode::Decoded;
use crate::k8s::objects::Item;

pub struct TolerationSecondsRequiresNoExecute;

pub static META: RuleMeta = RuleMeta {
    name: "toleration-seconds-requires-no-execute",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: true,
    summary: "tolerationSeconds is set but the effect is not NoExecute",
    why:
        "The API server rejects the object: only NoExecute taints evict, so only they take a limit.",
    explanation: r#"## What it catches
A toleration with `tolerationSeconds` whose `effect` is not `NoExecute`, an empty or omitted
effect included (even though an empty effect matches NoExecute taints too).

## Why it matters
The API server rejects the object: `spec.tolerations[0].effect: Invalid value: "NoSchedule":
effect must be 'NoExecute' when `tolerationSeconds` is set`. tolerationSeconds is how long a pod
stays bound after a NoExecute taint appears; the other effects never evict.

## Example
```yaml
tolerations:
- key: node.kubernetes.io/unreachable
  operator: Exists
  tolerationSeconds: 60
```

## Fix
Remove `tolerationSeconds`: the toleration keeps matching the taints it matches (the first fix,
safe). Or set `effect: NoExecute` if the pod was meant to be evicted after that time: that fix
changes what the toleration tolerates (a NoSchedule taint is no longer tolerated), needs review,
and with an inventory is never applied in bulk when the toleration stops tolerating a taint of
the cluster.
"#,
};

impl Rule for TolerationSecondsRequiresNoExecute {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        let Some(seconds) = item.field("tolerationSeconds") else {
            return;
        };
        if seconds.decoded == Decoded::Null {
            return;
        }
        let Some(effect) = item.text("effect") else {
            return;
        };
        if effect == "NoExecute" {
            return;
        }
        let path = item.field_path("effect");
        let api = cx.api_path(&path);
        let server = format!(
            "{api}: Invalid value: {}: effect must be 'NoExecute' when `tolerationSeconds` is set",
            go_quote(effect)
        );
        let message = if effect.is_empty() {
            "tolerationSeconds needs `effect: NoExecute`, and the effect is empty".to_string()
        } else {
            format!(
                "tolerationSeconds needs `effect: NoExecute`, not {}",
                shown(effect)
            )
        };
        let mapping = cx.item_mapping(item);
        // First the fix that keeps what the toleration matches: without tolerationSeconds it is
        // valid and tolerates the same taints (it never evicts, as the effect says).
        // (Not when it is all the toleration says: what is left would be an empty toleration.)
        let says_more = item.field("key").is_some() || item.field("operator").is_some();
        // Every `tolerationSeconds` entry goes: a mapping that repeats the key keeps none.
        let remove = item
            .fields
            .iter()
            .flatten()
            .filter(|f| f.name == "tolerationSeconds")
            .map(|f| edits::remove_entry(cx.text, cx.doc, mapping, f.key))
            .collect::<Option<Vec<_>>>()
            .filter(|_| says_more)
            .map(|edits| Fix {
                title: "Remove `tolerationSeconds`".to_string(),
                applicability: Applicability::Safe,
                edits,
            });
        let edit = match item.field("effect") {
            Some(f) if !cx.span(f.value).is_empty() => {
                Some(edits::replace_scalar(cx.text, cx.doc, f.value, "NoExecute"))
            }
            Some(_) => None,
            None => edits::add_entry(cx.text, cx.doc, mapping, "effect", "NoExecute"),
        };
        let set = edit.map(|edit| Fix {
            title: "Set `effect: NoExecute`, changing what it tolerates".to_string(),
            applicability: Applicability::NeedsReview,
            edits: vec![edit],
        });
        let range = match item.field("effect") {
            Some(f) => cx.value_range(f.value, f.key),
            None => cx.span(seconds.key),
        };
        cx.report(range, path, message)
            .with_server_message(server)
            .with_fix(remove)
            .with_fix(set);
    }
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options};

    const RULE: &str = "toleration-seconds-requires-no-execute";

    #[test]
    fn removing_the_seconds_removes_every_repeated_entry() {
        // A merge mistake repeats the key; the server reads the last one, so one removal
        // would leave the finding in place.
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  \
                    - key: example.com/spot\n    operator: Exists\n    effect: NoSchedule\n    \
                    tolerationSeconds: 300\n    tolerationSeconds: 300\n  containers:\n  \
                    - name: c\n    image: c\n";
        let options = Options::default();
        let found: Vec<_> = analyse(text, &options)
            .into_iter()
            .filter(|d| d.rule == RULE)
            .collect();
        assert_eq!(found.len(), 1, "{found:#?}");
        let fix = &found[0].fixes[0];
        assert_eq!(fix.title, "Remove `tolerationSeconds`");
        let fixed = fix.apply(text);
        assert_eq!(
            fixed,
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  \
             - key: example.com/spot\n    operator: Exists\n    effect: NoSchedule\n  \
             containers:\n  - name: c\n    image: c\n"
        );
        assert!(analyse(&fixed, &options).iter().all(|d| d.rule != RULE));
    }

    fn fix_titles(toleration: &str) -> Vec<String> {
        let text = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  tolerations:\n  - {toleration}\n"
        );
        let found: Vec<_> = analyse(&text, &Options::default())
            .into_iter()
            .filter(|d| d.rule == RULE)
            .collect();
        assert_eq!(found.len(), 1, "{toleration}: {found:#?}");
        found[0].fixes.iter().map(|f| f.title.clone()).collect()
    }

    /// Removing the seconds is offered when the toleration says anything else (a key or an
    /// operator); setting the effect only when there is an effect value to replace or none.
    #[test]
    fn which_fixes_are_offered() {
        let remove = "Remove `tolerationSeconds`";
        let set = "Set `effect: NoExecute`, changing what it tolerates";
        assert_eq!(
            fix_titles("{key: k, effect: NoSchedule, tolerationSeconds: 5}"),
            [remove, set]
        );
        assert_eq!(
            fix_titles("{operator: Exists, effect: NoSchedule, tolerationSeconds: 5}"),
            [remove, set]
        );
        assert_eq!(
            fix_titles("{effect: NoSchedule, tolerationSeconds: 5}"),
            [set]
        );
        // An effect key with no value: nothing to replace in place.
        assert_eq!(
            fix_titles("{key: k, effect: , tolerationSeconds: 5}"),
            [remove]
        );
    }
}
