//! `tolerates-everything`: an empty key with Exists and no effect tolerates every taint.

use super::{Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::objects::{in_chart_values, Item};

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

In the values an object gives a chart it installs (a Flux HelmRelease's `spec.values`, an Argo
CD Application's `helm.valuesObject`), the chart is not at hand either, and most charts whose
values tolerate everything are node agents: the finding is information there, not a warning.

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
        if cx.kind() == Some("DaemonSet") {
            return;
        }
        if item.text("key") != Some("")
            || item.text("operator") != Some("Exists")
            || item.text("effect") != Some("")
        {
            return;
        }
        let range = cx.field_range(item, "operator");
        // The values of a chart that an object installs (a HelmRelease's `spec.values`): the
        // chart is elsewhere, and what kind its workload is, nobody here says.
        if in_chart_values(cx.doc, &cx.list.path) {
            let message = "this toleration tolerates every taint: usual for a node agent, which \
                           the chart these values are for may deploy"
                .to_string();
            cx.report(range, item.path.clone(), message)
                .with_severity(Severity::Info);
            return;
        }
        // No kind: a values file (a list outside any object has none), or a pod template found
        // by its shape in one, whose kind the files read do not say.
        if cx.kind().is_none() {
            return;
        }
        let message =
            "this toleration tolerates every taint: cordoned, control-plane and NotReady \
                       nodes too"
                .to_string();
        cx.report(range, item.path.clone(), message);
    }
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options, Severity};

    fn found(text: &str) -> Vec<(Severity, String)> {
        analyse(text, &Options::default())
            .into_iter()
            .filter(|d| d.rule == "tolerates-everything")
            .map(|d| (d.severity, d.path.unwrap_or_default()))
            .collect()
    }

    /// In the values a HelmRelease or an Argo CD Application gives a chart, the chart's kind is
    /// unknown and most charts that tolerate everything are node agents: information, whether
    /// the values look like a workload or not. In a Deployment it stays a warning; in a values
    /// file with no kind, and in a DaemonSet, it is not reported.
    #[test]
    fn in_an_installed_charts_values_it_is_information() {
        let release = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: \
                       {name: logs}\nspec:\n  values:\n    tolerations: [{operator: Exists}]\n    \
                       collector:\n      tolerations: [{operator: Exists}]\n      \
                       nodeSelector: {a: b}\n";
        assert_eq!(
            found(release),
            [
                (Severity::Info, "spec.values.tolerations[0]".to_string()),
                (
                    Severity::Info,
                    "spec.values.collector.tolerations[0]".to_string()
                )
            ]
        );
        let application =
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: argoproj.io/v1alpha1\n  \
                           kind: Application\n  spec:\n    sources:\n    - helm:\n        \
                           valuesObject:\n          tolerations: [{operator: Exists}]\n";
        assert_eq!(
            found(application),
            [(
                Severity::Info,
                "items[0].spec.sources[0].helm.valuesObject.tolerations[0]".to_string()
            )]
        );
        let deployment =
            "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      \
                          tolerations: [{operator: Exists}]\n";
        assert_eq!(
            found(deployment),
            [(
                Severity::Warning,
                "spec.template.spec.tolerations[0]".to_string()
            )]
        );
        assert!(found("tolerations: [{operator: Exists}]\nnodeSelector: {a: b}\n").is_empty());
        // A HelmRelease's own fields outside its values are not values.
        let elsewhere = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nspec:\n  \
                         valuesx:\n    tolerations: [{operator: Exists}]\n";
        assert_eq!(found(elsewhere)[0].0, Severity::Warning);
    }
}
