//! `taint-missing-field`: a node taint needs a key and an effect.

use super::{Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::names::is_qualified_name;
use crate::k8s::objects::Item;

pub struct TaintMissingField;

pub static META: RuleMeta = RuleMeta {
    name: "taint-missing-field",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A node taint without a key or without an effect",
    why: "The API server rejects the Node.",
    explanation: r#"## What it catches
A taint in a Node's `spec.taints` (or in an inventory) with an empty or missing `key` or
`effect`. Unlike a toleration, a taint has no "any key" or "every effect".

## Why it matters
The API server rejects the Node: `metadata.taints[0].effect: Required value`, or for the key
two field errors, `metadata.taints[0].key: Invalid value: "": name part must be non-empty` and
`... name part must consist of alphanumeric characters, ...` (an empty name cannot match the
name pattern either: apimachinery's `IsQualifiedName`, k8s.io/apimachinery/pkg/api/validate/
content/kube.go `IsLabelKey`, checks the length and the pattern one after the other, and
`ValidateLabelName` makes a field error of each message). As for `invalid-key`, each is a
finding of its own, the second saying so. The path starts at `metadata` as in every Node taint
message: upstream `ValidateNode` hands `validateNodeTaints` the path it started for the
metadata.

In a Cluster Autoscaler node-template tag (`k8s.io/cluster-autoscaler/node-template/taint/<key>`
= `<value>:<effect>`), a value without a `:` and an effect is one the autoscaler ignores
(cluster-autoscaler/cloudprovider/aws/aws_manager.go `extractTaintsFromAsg`): that is said
instead, as a warning, since no API server reads the tag (all taint rules are warnings there).

## Example
```yaml
spec:
  taints:
  - key: dedicated
    value: gpu
```

## Fix
Give every taint a key and one of NoSchedule, PreferNoSchedule, NoExecute.
"#,
};

impl Rule for TaintMissingField {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        if item.text("key") == Some("") {
            let path = item.field_path("key");
            let api = cx.api_path(&path);
            let range = cx.field_range(item, "key");
            // `ValidateLabelName` makes one field error per message of `IsQualifiedName("")`:
            // "must be non-empty", then the name pattern an empty name cannot match. One finding
            // each, as `invalid-key` makes them.
            for (i, error) in is_qualified_name("").into_iter().enumerate() {
                let server = format!("{api}: Invalid value: \"\": {error}");
                let message = if i == 0 {
                    "this taint has no key"
                } else {
                    "this taint has no key, and an empty name matches no name pattern"
                };
                cx.report(range.clone(), path.clone(), message.to_string())
                    .with_server_message(server);
            }
        }
        if item.text("effect") == Some("") {
            let path = item.field_path("effect");
            let server = format!("{}: Required value", cx.api_path(&path));
            let range = cx.field_range(item, "effect");
            let message = if crate::inventory::asg_tags::is_tag_list(&cx.list.path) {
                "Cluster Autoscaler reads this tag's value as `<value>:<effect>` and ignores it \
                 without a `:` and an effect"
            } else {
                "this taint has no effect (NoSchedule, PreferNoSchedule or NoExecute)"
            };
            cx.report(range, path, message.to_string())
                .with_server_message(server);
        }
    }
}
