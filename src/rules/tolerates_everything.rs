//! `tolerates-everything`: an empty key with Exists and no effect tolerates every taint.

use super::{Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::objects::Item;

pub struct ToleratesEverything;

pub static META: RuleMeta = RuleMeta {
    name: "tolerates-everything",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: false,
    summary: "A toleration that tolerates every taint, in an object other than a DaemonSet",
    why: "The pod may land on cordoned, control-plane and NotReady nodes, and no NoExecute taint evicts it.",
    explanation: r#"## What it catches
A toleration with no key, `operator: Exists` and no effect (`- operator: Exists`), in a
Kubernetes object other than a DaemonSet. It matches every taint there is.

A file that is no Kubernetes object (no `kind`, as a chart's `values.yaml`, even where its
top level looks like a pod spec) is not reported: it does not say what its lists render into,
and `tolerations: [{operator: Exists}]` is the usual setting of the log, metrics and network
agents that charts deploy as DaemonSets. Where the chart's templates are beside the values and
render them into a Deployment, the toleration is reported as in the Deployment (not where a
template's values choose between a Deployment and a DaemonSet: the templates do not say which).

## Why it matters
The pod may be scheduled onto cordoned, control-plane, GPU and NotReady nodes, and no NoExecute
taint ever evicts it. That is right for node agents (DaemonSets, where it is not reported) and
almost never for an application.

## Example
```yaml
kind: Deployment
spec:
  template:
    spec:
      tolerations:
      - operator: Exists
```

## Fix
Tolerate the taints the workload needs, by key (and effect).
"#,
};

impl Rule for ToleratesEverything {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        // No kind: a values file (a list outside any object has none), or a pod template found
        // by its shape in one, whose kind the files read do not say.
        if matches!(cx.kind(), Some("DaemonSet") | None) {
            return;
        }
        if item.text("key") != Some("")
            || item.text("operator") != Some("Exists")
            || item.text("effect") != Some("")
        {
            return;
        }
        let message =
            "this toleration tolerates every taint: cordoned, control-plane and NotReady \
                       nodes too"
                .to_string();
        let range = cx.field_range(item, "operator");
        cx.report(range, item.path.clone(), message);
    }
}
