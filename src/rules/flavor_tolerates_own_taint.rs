//! `flavor-tolerates-own-taint`: a Kueue ResourceFlavor whose tolerations tolerate its own
//! `nodeTaints`, which Kueue then ignores at admission.

use super::{shown, ObjectCx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::model::{do_not_schedule, Toleration};
use crate::k8s::objects::{api_group, items, taint_list_at};

pub struct FlavorToleratesOwnTaint;

pub static META: RuleMeta = RuleMeta {
    name: "flavor-tolerates-own-taint",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: false,
    summary: "A Kueue ResourceFlavor whose tolerations tolerate its own nodeTaints",
    why:
        "Kueue ignores such a taint at admission: workloads that do not tolerate it get the flavor.",
    explanation: r#"## What it catches
A Kueue `ResourceFlavor` (`kueue.x-k8s.io`, every version) with a NoSchedule or NoExecute taint
in `spec.nodeTaints` that one of its own `spec.tolerations` tolerates (as the scheduler matches
them: the same key, or an empty key with `Exists`; the same value, or `Exists`; the same effect,
or none). Kueue's flavor assigner checks a workload's pod sets against the flavor's taints with
the pod's tolerations *and the flavor's own* (kubernetes-sigs/kueue
pkg/scheduler/flavorassigner/flavorassigner.go: `FindMatchingUntoleratedTaint(...,
flavor.Spec.NodeTaints, append(podSpec.Tolerations, flavor.Spec.Tolerations...), ...)`), so a
taint the flavor tolerates itself never keeps a workload out. Kueue's documentation says so since
kubernetes-sigs/kueue#4704 (issue #4646): "when the ResourceFlavor has also set the matching
tolerations in `.spec.tolerations`, then the taints are not considered during admission"
(site/content/en/docs/concepts/resource_flavor.md, "ResourceFlavor taints for user-selective
scheduling"). PreferNoSchedule taints are ignored by Kueue at admission anyway, and are not
reported.

## Why it matters
`nodeTaints` is there to keep a flavor (spot capacity, a GPU model) for the workloads that opt in
with a toleration; `tolerations` is there to add tolerations to the workloads admitted to it.
Both for the same taint, and every workload of the ClusterQueue can be admitted to the flavor,
opted in or not: the quota the taint was meant to guard is open to all.

## Example
```yaml
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: spot
spec:
  nodeLabels: {instance-type: spot}
  nodeTaints:
  - {key: spot, value: "true", effect: NoSchedule}
  tolerations:
  - {key: spot, operator: Exists, effect: NoSchedule}
```

## Fix
Choose one: keep `nodeTaints` for a flavor that workloads opt into with a toleration of their
own, or keep `tolerations` for a flavor whose pods Kueue should send onto the tainted nodes
without asking. Where the taint is written to say what the flavor's nodes carry (taintlint reads
a flavor's `nodeTaints` as its pool's taints), and every workload admitted there is meant to get
the toleration, say so with a suppression: `# taintlint: disable=flavor-tolerates-own-taint --
the nodes' taint; Kueue adds its toleration`.
"#,
};

impl Rule for FlavorToleratesOwnTaint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_object(&self, cx: &mut ObjectCx<'_, '_>) {
        let object = cx.object;
        let api = cx.doc.get_str(object.node, "apiVersion");
        if object.kind != Some("ResourceFlavor") || api_group(api) != Some("kueue.x-k8s.io") {
            return;
        }
        let list = |field: &str| {
            taint_list_at(cx.doc, object.node, &object.path, &["spec", field], None)
                .map(|l| items(cx.doc, &l))
                .unwrap_or_default()
        };
        let (taints, tolerations) = (list("nodeTaints"), list("tolerations"));
        let own: Vec<(usize, Toleration)> = tolerations
            .iter()
            .enumerate()
            .filter_map(|(i, item)| Some((i, item.toleration()?)))
            .collect();
        for item in &taints {
            let Some(taint) = item.taint().filter(do_not_schedule) else {
                continue;
            };
            // Kueue matches with the comparison operators on (its call passes `true`).
            let Some(&(i, _)) = own.iter().find(|(_, t)| t.tolerates(&taint, true)) else {
                continue;
            };
            let toleration = &tolerations[i];
            let message = format!(
                "taint {} is tolerated by the flavor's own tolerations[{}]: Kueue ignores it at \
                 admission",
                shown(&taint.to_string()),
                toleration.index,
            );
            let range = match cx.doc.mapping(item.node).and_then(|e| e.first()) {
                Some(&(k, _)) => cx.span(k),
                None => cx.span(item.node),
            };
            let related = match cx.doc.mapping(toleration.node).and_then(|e| e.first()) {
                Some(&(k, _)) => cx.span(k),
                None => cx.span(toleration.node),
            };
            cx.report(range, item.path.clone(), message).with_related(
                related,
                format!("tolerations[{}] tolerates the taint", toleration.index),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options};

    fn found(spec: &str) -> Vec<(String, String)> {
        let text = format!(
            "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {{name: f}}\n\
             spec:\n{spec}"
        );
        analyse(&text, &Options::default())
            .into_iter()
            .filter(|d| d.rule == "flavor-tolerates-own-taint")
            .map(|d| (d.path.unwrap_or_default(), text[d.range].to_string()))
            .collect()
    }

    /// The matching is the scheduler's (an empty key with Exists tolerates every taint, an
    /// effect-less toleration every effect); PreferNoSchedule taints, tolerations of other
    /// taints and items that do not decode say nothing.
    #[test]
    fn a_taint_its_own_tolerations_tolerate() {
        let taints = "  nodeTaints:\n  - {key: spot, value: \"true\", effect: NoSchedule}\n  \
                      - {key: gpu, effect: NoExecute}\n  - {key: soft, effect: PreferNoSchedule}\n";
        assert_eq!(
            found(&format!(
                "{taints}  tolerations:\n  - {{key: spot, operator: Exists, effect: NoSchedule}}\n"
            )),
            [("spec.nodeTaints[0]".to_string(), "key".to_string())]
        );
        assert_eq!(
            found(&format!(
                "{taints}  tolerations:\n  - {{operator: Exists}}\n"
            ))
            .len(),
            2
        );
        assert_eq!(
            found(&format!(
                "{taints}  tolerations:\n  - {{key: gpu, operator: Equal, effect: NoExecute}}\n"
            )),
            [("spec.nodeTaints[1]".to_string(), "key".to_string())]
        );
        for none in [
            "  tolerations:\n  - {key: spot, operator: Equal, value: \"false\"}\n",
            "  tolerations:\n  - {key: soft, operator: Exists}\n",
            "  tolerations:\n  - {key: spot, operator: Exists, tolerationSeconds: \"x\"}\n",
            "",
        ] {
            assert!(found(&format!("{taints}{none}")).is_empty(), "{none}");
        }
        // Not a Kueue flavor: nothing.
        let other = "apiVersion: example.com/v1\nkind: ResourceFlavor\nspec:\n  nodeTaints: \
                     [{key: a, effect: NoSchedule}]\n  tolerations: [{operator: Exists}]\n";
        assert!(analyse(other, &Options::default())
            .iter()
            .all(|d| d.rule != "flavor-tolerates-own-taint"));
    }
}
