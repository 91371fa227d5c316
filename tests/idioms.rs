//! Idioms every operator repository has, reported at the level a platform engineer would
//! choose: the retired master toleration beside the control-plane one, and a chart's
//! tolerate-everything default in its values file.

mod common;

use taintlint::diagnostic::Diagnostic;
use taintlint::{Options, Severity};

fn findings(path: &str) -> (String, Vec<Diagnostic>) {
    let text = common::read(&common::root().join("tests/fixtures/idioms").join(path));
    let found = common::lint(&text);
    (text, found)
}

fn of<'d>(found: &'d [Diagnostic], rule: &str) -> Vec<&'d Diagnostic> {
    found.iter().filter(|d| d.rule == rule).collect()
}

#[test]
fn retired_master_key_beside_control_plane_is_information_removed_by_its_fix() {
    let (text, found) = findings("kubebuilder-manager.yaml");
    // The retired key had no value: no `equal-empty-value` on either document.
    assert!(of(&found, "equal-empty-value").is_empty(), "{found:#?}");

    let retired = of(&found, "deprecated-taint-key");
    assert_eq!(retired.len(), 2, "{found:#?}");
    let (beside, alone) = (retired[0], retired[1]);

    // Beside `node-role.kubernetes.io/control-plane`: information, and the fix removes it.
    assert_eq!(beside.document, Some(0));
    assert_eq!(beside.severity, Severity::Info);
    assert_eq!(
        &text[beside.range.clone()],
        "node-role.kubernetes.io/master"
    );
    assert!(
        beside.message.contains("beside its replacement"),
        "{}",
        beside.message
    );
    assert_eq!(beside.fixes.len(), 1);
    let fixed = beside.fixes[0].apply(&text);
    let first = fixed.split("\n---\n").next().unwrap();
    assert!(!first.contains("node-role.kubernetes.io/master"), "{first}");
    assert!(first.contains(
        "      tolerations:\n      - {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}\n      containers:"
    ), "{first}");
    // The fix leaves a manifest with nothing more to say about the list.
    assert!(of(&common::lint(&fixed), "deprecated-taint-key")
        .iter()
        .all(|d| d.document == Some(1)));

    // Alone: a warning whose fix renames it to the current key.
    assert_eq!(alone.document, Some(1));
    assert_eq!(alone.severity, Severity::Warning);
    let renamed = alone.fixes[0].apply(&text);
    assert!(renamed.ends_with(
        "      tolerations:\n      - {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}\n      containers:\n      - name: manager\n        image: controller:latest\n"
    ));
}

#[test]
fn a_configured_level_still_sets_the_softened_finding() {
    let (text, _) = findings("kubebuilder-manager.yaml");
    let mut options = Options::default();
    options
        .set_rule_level("deprecated-taint-key", Some(Severity::Error))
        .unwrap();
    let found = taintlint::analyse(&text, &options);
    let retired = of(&found, "deprecated-taint-key");
    assert_eq!(retired.len(), 2);
    assert!(retired.iter().all(|d| d.severity == Severity::Error));
}

#[test]
fn tolerate_everything_in_a_values_file_is_not_reported_but_in_a_deployment_it_is() {
    let (_, found) = findings("chart/values.yaml");
    assert!(of(&found, "tolerates-everything").is_empty(), "{found:#?}");
    // The list is still checked: the same values file with a bad operator is reported.
    let bad = "tolerations: [{operator: exists}]\n";
    assert_eq!(of(&common::lint(bad), "unknown-operator").len(), 1);

    let (text, found) = findings("tolerate-all-deployment.yaml");
    let everything = of(&found, "tolerates-everything");
    assert_eq!(everything.len(), 1, "{found:#?}");
    assert_eq!(everything[0].severity, Severity::Warning);
    assert_eq!(&text[everything[0].range.clone()], "Exists");
}

#[test]
fn tolerate_everything_in_a_values_file_shaped_like_a_pod_spec_is_not_reported() {
    // A chart's values for a node agent, with no chart beside it to say what they render
    // into (as Terraform `helm_release` values files are kept): `resources` and `tolerations`
    // at the top make it look like a pod spec of no known kind.
    let values = "resources:\n  requests:\n    cpu: 200m\n\
                  # lets the DaemonSet's pods run on every node\n\
                  tolerations:\n  - operator: Exists\n";
    let found = common::lint(values);
    assert!(of(&found, "tolerates-everything").is_empty(), "{found:#?}");
    let bad = values.replace("Exists", "exists");
    assert_eq!(of(&common::lint(&bad), "unknown-operator").len(), 1);

    // With the chart's templates beside it, the values are what they render into.
    let template = |kind: &str| {
        format!(
            "apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: {{{{ .Release.Name }}}}\n\
             spec:\n  template:\n    spec:\n      containers:\n        - name: agent\n\
             \x20         image: agent:1\n\
             \x20     tolerations: {{{{- toYaml .Values.tolerations | nindent 8 }}}}\n"
        )
    };
    for (kind, reported) in [("Deployment", 1), ("DaemonSet", 0)] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("templates")).unwrap();
        std::fs::write(
            dir.path().join("Chart.yaml"),
            "apiVersion: v2\nname: agent\nversion: 0.1.0\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("values.yaml"), values).unwrap();
        std::fs::write(dir.path().join("templates/workload.yaml"), template(kind)).unwrap();
        let r = common::run_in(
            dir.path(),
            &["lint", "--output-format", "concise", "values.yaml"],
            None,
        );
        let found = r.stdout.matches("tolerates-everything").count();
        assert_eq!(found, reported, "{kind}: {}{}", r.stdout, r.stderr);
    }
}

#[test]
fn tolerations_a_template_fills_in_are_not_linted_and_their_neighbours_are() {
    let (text, found) = findings("applicationset-placeholders.yaml");
    let at: Vec<(&str, &str)> = found
        .iter()
        .map(|d| (d.rule, &text[d.range.clone()]))
        .collect();
    // No finding on a placeholder (`{{ .toleration_key }}` is no key, `{{ .toleration_effect }}`
    // no effect, until the ApplicationSet fills them in).
    assert!(
        found.iter().all(|d| !text[d.range.clone()].contains("{{")),
        "{at:#?}"
    );
    // The literal entries beside them are linted, at their own paths.
    assert_eq!(
        at,
        vec![
            ("exists-with-value", "nightly"),
            ("unknown-operator", "Exist")
        ],
        "{found:#?}"
    );
    let paths: Vec<_> = found.iter().map(|d| d.path.as_deref()).collect();
    assert_eq!(
        paths,
        vec![
            Some("spec.template.spec.source.helm.valuesObject.tolerations[1].value"),
            Some("spec.template.spec.tolerations[1].operator"),
        ]
    );
}

#[test]
fn removing_the_value_of_an_exists_toleration_removes_every_value_key() {
    // A merge that left the key twice: the fix that drops the value drops both, so the
    // toleration is valid afterwards (found by the fix property in tests/props.rs).
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  - key: example.com/gpu\n    operator: Exists\n    value: a\n    value: b\n  containers:\n  - name: c\n    image: registry.example.com/c:1\n";
    let found = common::lint(text);
    let exists = of(&found, "exists-with-value");
    assert_eq!(exists.len(), 1, "{found:#?}");
    let drop = exists[0]
        .fixes
        .iter()
        .find(|f| f.title.starts_with("Remove the value"))
        .expect("a fix that removes the value");
    let fixed = drop.apply(text);
    assert!(!fixed.contains("value:"), "{fixed}");
    assert!(of(&common::lint(&fixed), "exists-with-value").is_empty());
}
