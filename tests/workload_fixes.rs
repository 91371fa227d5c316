//! The fixes of the inventory rules: a near miss is corrected where it is written, and what is
//! added follows the list it goes into (block or flow, indentation, quoting, line endings).

use taintlint::analysis::{check, Ask};
use taintlint::diagnostic::Diagnostic;
use taintlint::fix::{fix_all_with, fixable, FixMode};
use taintlint::inventory::Inventory;
use taintlint::Options;

const POOLS: &str = "pools:
  gpu:
    count: 2
    labels: {example.com/pool: gpu}
    taints: [nvidia.com/gpu=present:NoSchedule]
  general:
    count: 2
    labels: {example.com/pool: general}
";

const CORDONED: &str = "pools:
  gpu:
    count: 2
    labels: {example.com/pool: gpu}
    taints: [nvidia.com/gpu=present:NoSchedule]
    unschedulable: true
";

fn inventory(text: &str) -> Inventory {
    Inventory::load(&[("pools.yaml", text)]).unwrap()
}

fn lint(text: &str, inv: &Inventory) -> Vec<Diagnostic> {
    check(text, Ask::new(&Options::default(), Some(inv))).diagnostics
}

/// The one fix of the `unschedulable` finding, applied.
fn unschedulable_fix(text: &str, inv: &Inventory) -> (String, String) {
    let found = lint(text, inv);
    let d = found
        .iter()
        .find(|d| d.rule == "unschedulable")
        .unwrap_or_else(|| panic!("no unschedulable finding: {found:#?}"));
    assert_eq!(d.fixes.len(), 1, "{d:#?}");
    let fixed = d.fixes[0].apply(text);
    let after = lint(&fixed, inv);
    assert!(
        !after.iter().any(|a| a.rule == "unschedulable"),
        "still unschedulable:\n{fixed}\n{after:#?}"
    );
    // The near miss is mended, not doubled: nothing is left unused.
    assert!(
        !after.iter().any(|a| a.rule == "toleration-unused"),
        "a toleration is left unused:\n{fixed}\n{after:#?}"
    );
    (d.fixes[0].title.clone(), fixed)
}

fn pod(tolerations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeSelector:\n    \
         example.com/pool: gpu\n{tolerations}  containers:\n  - name: c\n    image: i\n"
    )
}

#[test]
fn near_miss_in_a_block_list_is_corrected_in_place() {
    let inv = inventory(POOLS);
    let text = pod("  tolerations:\n  - key: nvidia.com/gpu\n    operator: Equal\n    value: \"true\"   # was it?\n    effect: NoSchedule\n");
    let (title, fixed) = unschedulable_fix(&text, &inv);
    assert_eq!(
        fixed,
        text.replace("value: \"true\"", "value: \"present\""),
        "{title}"
    );
    assert!(
        title.starts_with("Change tolerations[0] to tolerate"),
        "{title}"
    );
}

#[test]
fn near_miss_in_a_flow_list_is_corrected_in_place() {
    let inv = inventory(POOLS);
    let text = pod("  tolerations: [{key: nvidia.com/gpu, operator: Equal, value: 'yes', effect: NoSchedule}]\n");
    let (_, fixed) = unschedulable_fix(&text, &inv);
    assert_eq!(fixed, text.replace("value: 'yes'", "value: 'present'"));

    // A plain value that reads back as a string stays plain; one that would not is quoted.
    let text = pod("  tolerations:\n  - {key: nvidia.com/gpu, operator: Equal, value: presnt, effect: NoSchedule}\n");
    let (_, fixed) = unschedulable_fix(&text, &inv);
    assert_eq!(fixed, text.replace("value: presnt", "value: present"));
}

#[test]
fn near_miss_key_typo_and_wrong_effect_are_corrected() {
    let inv = inventory(POOLS);
    let text = pod(
        "  tolerations:\n  - key: nvidia.com/gpus\n    operator: Exists\n    effect: NoExecute\n",
    );
    let (_, fixed) = unschedulable_fix(&text, &inv);
    assert_eq!(
        fixed,
        text.replace("nvidia.com/gpus", "nvidia.com/gpu")
            .replace("NoExecute", "NoSchedule")
    );
}

#[test]
fn what_is_added_follows_the_block_list_style() {
    let inv = inventory(CORDONED);
    // Indented dashes, keys two columns after the dash, quoted values: the added toleration
    // is written the same way, after the last item and its comment, with CRLF kept.
    let text = pod("  tolerations:\n    - key: \"nvidia.com/gpu\"\n      operator: \"Equal\"\n      value: \"true\"\n      effect: \"NoSchedule\" # gpu\n")
        .replace('\n', "\r\n");
    let (_, fixed) = unschedulable_fix(&text, &inv);
    let want = text
        .replace("value: \"true\"", "value: \"present\"")
        .replace(
            "# gpu\r\n",
            "# gpu\r\n    - key: \"node.kubernetes.io/unschedulable\"\r\n      operator: \"Exists\"\r\n      effect: \"NoSchedule\"\r\n",
        );
    assert_eq!(fixed, want);
}

#[test]
fn what_is_added_follows_the_flow_list_style() {
    let inv = inventory(CORDONED);
    let text = pod("  tolerations: [{key: nvidia.com/gpu, operator: Equal, value: \"true\", effect: NoSchedule}]\n");
    let (_, fixed) = unschedulable_fix(&text, &inv);
    assert_eq!(
        fixed,
        text.replace(
            "value: \"true\", effect: NoSchedule}]",
            "value: \"present\", effect: NoSchedule}, {key: node.kubernetes.io/unschedulable, \
             operator: Exists, effect: NoSchedule}]"
        )
    );
}

#[test]
fn a_new_tolerations_list_is_block_style_under_a_block_spec() {
    let inv = inventory(POOLS);
    // The document indents its lists by two: so does the new one.
    let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      nodeSelector:\n        example.com/pool: gpu\n      containers:\n        - name: c\n          image: i\n";
    let (title, fixed) = unschedulable_fix(text, &inv);
    assert_eq!(
        fixed,
        format!(
            "{text}      tolerations:\n        - key: nvidia.com/gpu\n          operator: Equal\n          value: present\n          effect: NoSchedule\n"
        ),
        "{title}"
    );
}

#[test]
fn every_fix_applied_in_bulk_leaves_nothing_fixable() {
    let inv = inventory(CORDONED);
    let text = pod("  tolerations:\n  - key: nvidia.com/gpu\n    operator: exists\n    effect: NoSchedule\n  - key: nvidia.com/gpu\n    operator: Equal\n    value: \"true\"\n    effect: NoSchedule\n");
    let fixed = fix_all_with(&text, FixMode::Unsafe, |t| lint(t, &inv));
    let after = lint(&fixed.text, &inv);
    assert!(
        !after.iter().any(|d| fixable(d, FixMode::Unsafe)),
        "{}\n{after:#?}",
        fixed.text
    );
    assert!(
        !after.iter().any(|d| d.rule == "unschedulable"),
        "{}",
        fixed.text
    );
    let again = fix_all_with(&fixed.text, FixMode::Unsafe, |t| lint(t, &inv));
    assert_eq!(again.text, fixed.text);
    assert_eq!(again.applied, 0);
}

#[test]
fn a_toleration_the_api_server_rejects_is_not_reported_again_by_inventory_rules() {
    let inv = inventory(POOLS);
    let text = pod("  tolerations:\n  - key: nvidia gpu\n    operator: Exists\n  - key: example.com/none\n    operator: Exists\n");
    let found = lint(&text, &inv);
    let at = |rule: &str| -> Vec<Option<&str>> {
        found
            .iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.path.as_deref())
            .collect()
    };
    assert_eq!(at("invalid-key"), [Some("spec.tolerations[0].key")]);
    // Only the valid toleration is unused; the invalid one is not echoed.
    assert_eq!(at("toleration-unused"), [Some("spec.tolerations[1]")]);
    let unused = found
        .iter()
        .find(|d| d.rule == "toleration-unused")
        .unwrap();
    // The count is of tainted nodes (as the hover counts them), with the right plural.
    assert_eq!(
        unused.message,
        "tolerations[1] tolerates none of the taints on the inventory's 2 tainted nodes"
    );
}

/// Who may use a pool a taint keeps for some workloads is a person's decision: the fix that
/// would add a toleration of `dedicated=ml-inference:NoSchedule` (the fine-tuning
/// CronJob and its inference pool) is shown, never applied by `--unsafe-fixes`; one that adds
/// the GPU taint's toleration (a resource the pod asks for) is for review, and is applied.
#[test]
fn a_dedicated_pool_is_opened_by_hand() {
    let pools = "pools:
  inference:
    count: 2
    labels: {example.com/pool: inference}
    taints: [dedicated=ml-inference:NoSchedule]
";
    let inv = inventory(pools);
    let job = "apiVersion: batch/v1
kind: CronJob
metadata: {name: finetune}
spec:
  schedule: '0 3 * * *'
  jobTemplate:
    spec:
      template:
        spec:
          nodeSelector: {example.com/pool: inference}
          containers: [{name: c, image: i}]
          restartPolicy: Never
";
    let found = lint(job, &inv);
    let d = found.iter().find(|d| d.rule == "unschedulable").unwrap();
    assert_eq!(d.fixes.len(), 1, "{d:#?}");
    assert_eq!(
        d.fixes[0].applicability,
        taintlint::diagnostic::Applicability::Manual
    );
    assert!(
        d.fixes[0]
            .title
            .contains("a pool kept for some workloads; not applied in bulk"),
        "{}",
        d.fixes[0].title
    );
    let fixed = fix_all_with(job, FixMode::Unsafe, |t| lint(t, &inv));
    assert_eq!(fixed.text, job, "applied in bulk");
    // The GPU pool's taint is the resource's: for review, applied by --unsafe-fixes.
    let inv = inventory(POOLS);
    let text = pod("");
    let found = lint(&text, &inv);
    let d = found.iter().find(|d| d.rule == "unschedulable").unwrap();
    assert_eq!(
        d.fixes[0].applicability,
        taintlint::diagnostic::Applicability::NeedsReview
    );
    assert_ne!(
        fix_all_with(&text, FixMode::Unsafe, |t| lint(t, &inv)).text,
        text
    );
}

/// Fixes are judged again after each one: `operator: equal` corrected to `Equal` already
/// tolerates the GPU taint, and the fix that would have added a toleration of it is not
/// applied on top (the values.yaml, where the next lint reported a duplicate).
#[test]
fn a_fix_another_makes_unnecessary_is_not_stacked() {
    let inv = inventory(POOLS);
    let text = pod(
        "  tolerations:\n  - key: nvidia.com/gpu\n    operator: equal\n    value: present\n    effect: NoSchedule\n",
    );
    let found = lint(&text, &inv);
    assert!(
        found.iter().any(|d| d.rule == "unknown-operator"),
        "{found:#?}"
    );
    let fixed = fix_all_with(&text, FixMode::Unsafe, |t| lint(t, &inv));
    assert_eq!(
        fixed.text,
        text.replace("operator: equal", "operator: Equal"),
        "{:#?}",
        fixed
    );
    let after = lint(&fixed.text, &inv);
    assert!(
        !after
            .iter()
            .any(|d| d.rule == "duplicate-toleration" || d.rule == "unschedulable"),
        "{after:#?}"
    );
}
