//! The API server's words, each class checked against the upstream code that prints it, and
//! the two semantic corrections found beside them (a bound pod is never scored; a refused
//! RuntimeClass is never created).

mod common;

use std::process::Command;

use serde_json::Value;
use taintlint::{analyse, Diagnostic, Options};

fn pod(tolerations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    \
         image: i\n  tolerations:\n{tolerations}"
    )
}

fn server_messages(found: &[Diagnostic], rule: &str) -> Vec<String> {
    found
        .iter()
        .filter(|d| d.rule == rule)
        .map(|d| d.server_message.clone().unwrap_or_default())
        .collect()
}

fn gate_on() -> Options {
    let mut o = Options::default();
    o.set_feature_gates("TaintTolerationComparisonOperators=true")
        .unwrap();
    o
}

/// Go's encoding/json, decode.go `literalStore`: a number into an integer field is
/// `UnmarshalTypeError{Value: "number " + s}`, into a string field `Value: "number"`; `s` is the
/// number as sigs.k8s.io/yaml's `YAMLToJSON` wrote it (`json.Marshal` of go-yaml's float64).
#[test]
fn a_number_of_the_wrong_type_keeps_its_literal() {
    let text = pod(
        "  - {key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 1.50}\n  \
         - {key: b, operator: Exists, effect: NoExecute, tolerationSeconds: 1e21}\n  \
         - {key: c, operator: Equal, value: 1.5, effect: NoSchedule}\n  \
         - {key: d, operator: Exists, effect: NoExecute, tolerationSeconds: \"60\"}\n",
    );
    let found = analyse(&text, &Options::default());
    assert_eq!(
        server_messages(&found, "undecodable-value"),
        [
            "json: cannot unmarshal number 1.5 into Go struct field \
             Toleration.spec.tolerations.tolerationSeconds of type int64",
            "json: cannot unmarshal number 1e+21 into Go struct field \
             Toleration.spec.tolerations.tolerationSeconds of type int64",
            "json: cannot unmarshal number into Go struct field \
             Toleration.spec.tolerations.value of type string",
            "json: cannot unmarshal string into Go struct field \
             Toleration.spec.tolerations.tolerationSeconds of type int64",
        ]
    );
}

/// apimachinery's `ValidateLabelName` appends one `field.Invalid` per message of
/// `IsQualifiedName`, for a node taint's key too (`validateNodeTaints`, under `metadata`).
#[test]
fn a_key_with_two_problems_is_two_field_errors() {
    let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nspec:\n  taints:\n  \
                - {key: \"-x-/y z\", effect: NoSchedule}\n";
    let found = analyse(text, &Options::default());
    let messages = server_messages(&found, "invalid-key");
    assert_eq!(messages.len(), 2, "{found:#?}");
    assert!(messages[0].starts_with(
        "metadata.taints[0].key: Invalid value: \"-x-/y z\": prefix part a lowercase RFC 1123 \
         subdomain must consist of"
    ));
    assert!(
        messages[1].starts_with(
            "metadata.taints[0].key: Invalid value: \"-x-/y z\": name part must consist of"
        ),
        "{messages:#?}"
    );
    // A value's messages stay one error, joined with ";" (ValidateTolerations:
    // `strings.Join(errs, ";")`).
    let long = format!("-{}", "v".repeat(70));
    let found = analyse(
        &pod(&format!(
            "  - {{key: a, operator: Equal, value: \"{long}\"}}\n"
        )),
        &Options::default(),
    );
    let messages = server_messages(&found, "invalid-value");
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].contains("must be no more than 63 bytes;a valid label must"),
        "{}",
        messages[0]
    );
}

/// ValidateTolerations since Kubernetes 1.35 (kubernetes/kubernetes pull request 134665):
/// `case core.TolerationOpLt, core.TolerationOpGt:` without
/// `opts.AllowTaintTolerationComparisonOperators` is `field.NotSupported` with the four
/// operators. A RuntimeClass is validated with `corevalidation.PodValidationOptions{}`
/// (pkg/apis/node/validation `validateTolerations`), so the gate never reaches it.
#[test]
fn lt_and_gt_without_the_option() {
    let want = "spec.tolerations[0].operator: Unsupported value: \"Lt\": supported values: \
                \"Equal\", \"Exists\", \"Lt\", \"Gt\"";
    let text = pod("  - {key: tier, operator: Lt, value: \"5\", effect: NoSchedule}\n");
    let found = analyse(&text, &Options::default());
    assert_eq!(server_messages(&found, "unknown-operator"), [want]);
    assert!(server_messages(&analyse(&text, &gate_on()), "unknown-operator").is_empty());

    let rc = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: sandbox}\n\
              handler: runsc\nscheduling:\n  tolerations:\n  \
              - {key: tier, operator: Gt, value: \"5\", effect: NoSchedule}\n";
    for options in [Options::default(), gate_on()] {
        let found = analyse(rc, &options);
        assert_eq!(
            server_messages(&found, "unknown-operator"),
            [
                "scheduling.tolerations[0].operator: Unsupported value: \"Gt\": supported \
              values: \"Equal\", \"Exists\", \"Lt\", \"Gt\""
            ]
        );
        // The value is not checked as an integer there: the operator refused, it stops.
        assert!(server_messages(&found, "invalid-value").is_empty());
    }
}

/// apimachinery `field.Error.ErrorBody`: a struct value without a String method is printed
/// with `%#v`; `validateNodeTaints` passes the internal `core.Taint` (no JSON tags), and a nil
/// `TimeAdded *metav1.Time` prints `<nil>` (its promoted `GoString` panics on nil).
#[test]
fn a_duplicate_taint_is_printed_as_go_prints_it() {
    let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nspec:\n  taints:\n  \
                - {key: dedicated, value: gpu, effect: NoSchedule}\n  \
                - {key: dedicated, value: batch, effect: NoSchedule}\n  \
                - {key: x, effect: NoExecute}\n  \
                - {key: x, effect: NoExecute, timeAdded: \"2024-05-01T10:00:00Z\"}\n";
    let found = analyse(text, &Options::default());
    assert_eq!(
        server_messages(&found, "duplicate-taint"),
        [
            "metadata.taints[1]: Duplicate value: core.Taint{Key:\"dedicated\", \
             Value:\"batch\", Effect:\"NoSchedule\", TimeAdded:<nil>}: taints must be unique \
             by key and effect pair",
            "metadata.taints[3]: Duplicate value: core.Taint{Key:\"x\", Value:\"\", \
             Effect:\"NoExecute\", TimeAdded:time.Date(2024, time.May, 1, 10, 0, 0, 0, \
             time.Local)}: taints must be unique by key and effect pair",
        ]
    );
}

fn simulate(files: &[&str]) -> Value {
    let root = common::root();
    let mut args = vec![
        "simulate".to_string(),
        "--format".to_string(),
        "json".to_string(),
        "--nodes".to_string(),
        "--inventory".to_string(),
        "tests/fixtures/server-words/pools.yaml".to_string(),
    ];
    args.extend(
        files
            .iter()
            .map(|f| format!("tests/fixtures/server-words/{f}")),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(&args)
        .current_dir(&root)
        .output()
        .expect("the binary runs");
    serde_json::from_str(&String::from_utf8(out.stdout).unwrap()).expect("JSON")
}

fn workload<'v>(v: &'v Value, name: &str) -> &'v Value {
    v["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("no workload {name} in {v:#}"))
}

/// PreferNoSchedule weighs only in the scheduler's scoring (the TaintToleration plugin's Score),
/// which a pod with `spec.nodeName` never reaches: it fits its node, not "avoided". The same
/// pod sent to that node through the scheduler is avoided there.
#[test]
fn a_bound_pod_is_never_avoided() {
    let v = simulate(&["bound-pod.yaml"]);
    let bound = workload(&v, "bound");
    assert_eq!(bound["fits"], "yes", "{bound:#}");
    assert_eq!(bound["schedulable"], serde_json::json!(["batch-1"]));
    assert_eq!(bound["avoid"], serde_json::json!([]));
    let scheduled = workload(&v, "scheduled");
    assert_eq!(scheduled["fits"], "avoided", "{scheduled:#}");
    assert_eq!(scheduled["avoid"], serde_json::json!(["batch-1"]));
}

/// The RuntimeClass admission plugin (plugin/pkg/admission/runtimeclass/admission.go): a pod
/// naming a class the API server does not have is refused with
/// `pod rejected: RuntimeClass %q not found`; a class it refused to create is such a class.
#[test]
fn a_refused_runtime_class_is_not_found() {
    let text = common::fixture("tests/fixtures/server-words/refused-runtime-class.yaml");
    let found = analyse(&text, &Options::default());
    assert!(found.iter().any(|d| d.rule == "invalid-runtime-class"));
    let rejected: Vec<&Diagnostic> = found
        .iter()
        .filter(|d| d.rule == "admission-rejected")
        .collect();
    assert_eq!(rejected.len(), 1, "{found:#?}");
    assert_eq!(rejected[0].document, Some(1));
    assert!(
        rejected[0]
            .server_message
            .as_deref()
            .unwrap_or(&rejected[0].message)
            .contains("pod rejected: RuntimeClass \"gvisor\" not found"),
        "{:#?}",
        rejected[0]
    );
    // Made valid, the class exists and the pod is admitted.
    let valid = text.replace("handler: gvisor.runsc", "handler: runsc");
    let found = analyse(&valid, &Options::default());
    assert!(
        !found.iter().any(|d| d.rule == "admission-rejected"),
        "{found:#?}"
    );

    // `simulate` says the same of the pod.
    let v = simulate(&["refused-runtime-class.yaml"]);
    let pod = workload(&v, "sandboxed");
    assert_eq!(pod["rejected"]["rule"], "admission-rejected", "{pod:#}");
    assert_eq!(
        pod["rejected"]["message"],
        "RuntimeClass admission rejects Pod sandboxed: RuntimeClass `gvisor` not found (the API \
         server refuses its definition, so it is never created)"
    );
}

/// The same across files: `lint` reads every file's RuntimeClasses first, and one the API
/// server refuses is not there for a pod in another file.
#[test]
fn a_refused_runtime_class_in_another_file_is_not_found() {
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args([
            "lint",
            "--format",
            "concise",
            "tests/fixtures/server-words/split",
        ])
        .current_dir(common::root())
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "tests/fixtures/server-words/split/pod.yaml:7:21: error[admission-rejected] \
             RuntimeClass admission rejects Pod sandboxed: RuntimeClass `gvisor` not found (the \
             API server refuses its definition, so it is never created)"
        ),
        "{stdout}"
    );
}

/// An empty taint key is two field errors upstream: `ValidateLabelName` (k8s.io/apimachinery
/// pkg/apis/meta/v1/validation) makes one per message of `IsQualifiedName`, and `IsLabelKey`
/// (k8s.io/apimachinery pkg/api/validate/content/kube.go) says an empty name is empty and then,
/// since `labelKeyRegexp` does not match it, that it must consist of alphanumeric characters.
#[test]
fn an_empty_taint_key_is_both_field_errors() {
    let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nspec:\n  taints:\n  \
                - {key: \"\", effect: NoSchedule}\n";
    let found = analyse(text, &Options::default());
    assert_eq!(
        server_messages(&found, "taint-missing-field"),
        [
            "metadata.taints[0].key: Invalid value: \"\": name part must be non-empty",
            "metadata.taints[0].key: Invalid value: \"\": name part must consist of \
             alphanumeric characters, '-', '_' or '.', and must start and end with an \
             alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used \
             for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ]
    );
    // A toleration's empty key is no key error (`ValidateTolerations` checks a key only when
    // there is one); an empty name after a prefix is both errors, as for a taint.
    let text = pod("  - {key: \"example.com/\", operator: Exists}\n  - {operator: Exists}\n");
    let found = analyse(&text, &Options::default());
    let messages = server_messages(&found, "invalid-key");
    assert_eq!(messages.len(), 2, "{found:#?}");
    assert!(messages[0].ends_with("name part must be non-empty"));
    assert!(messages[1].contains("name part must consist of alphanumeric characters"));
}

/// A `Duplicate value` prints the internal `core.Taint` or `core.Toleration` with `%#v`
/// (apimachinery's validation/field/errors.go `ErrorBody`, for a value of no simple type and
/// no `String` method), whose strings are quoted by strconv's `AppendQuote`: a character Go's
/// `unicode.IsPrint` rejects (a no-break space, a zero-width space) is escaped there, as in the
/// `%q` of an `Invalid value`. Taints that do not decode are refused before any duplicate is
/// looked for.
#[test]
fn duplicate_values_render_as_go_prints_them() {
    let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nspec:\n  taints:\n  \
                - {key: \"a\\u00a0b\", value: \"x\\u200b\", effect: NoSchedule}\n  \
                - {key: \"a\\u00a0b\", effect: NoSchedule}\n";
    let found = analyse(text, &Options::default());
    assert_eq!(
        server_messages(&found, "duplicate-taint"),
        [
            "metadata.taints[1]: Duplicate value: core.Taint{Key:\"a\\u00a0b\", Value:\"\", \
          Effect:\"NoSchedule\", TimeAdded:<nil>}: taints must be unique by key and effect pair"
        ]
    );
    let keys = server_messages(&found, "invalid-key");
    assert!(!keys.is_empty());
    assert!(keys.iter().all(|m| m
        .starts_with("metadata.taints[0].key: Invalid value: \"a\\u00a0b\"")
        || m.starts_with("metadata.taints[1].key: Invalid value: \"a\\u00a0b\"")));
    let rc = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: sandbox}\n\
              handler: runsc\nscheduling:\n  tolerations:\n  \
              - {key: \"t\\u3000\", operator: Exists}\n  - {key: \"t\\u3000\", operator: Exists}\n";
    let found = analyse(rc, &Options::default());
    assert_eq!(
        server_messages(&found, "invalid-runtime-class"),
        [
            "scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:\"t\\u3000\", \
          Operator:\"Exists\", Value:\"\", Effect:\"\", TolerationSeconds:(*int64)(nil)}"
        ]
    );
    let undecodable = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nspec:\n  taints:\n  \
                       - {key: a, value: 1, effect: NoSchedule}\n  - {key: a, effect: NoSchedule}\n";
    let found = analyse(undecodable, &Options::default());
    assert!(
        server_messages(&found, "duplicate-taint").is_empty(),
        "{found:#?}"
    );
}
