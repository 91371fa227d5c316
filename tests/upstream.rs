//! Upstream's own validation tables, ported: the toleration cases of TestValidatePod and
//! TestValidatePodUpdate, and the taint cases of TestValidateNode
//! (kubernetes/kubernetes pkg/apis/core/validation/validation_test.go), each built as a YAML
//! manifest and run through `analyse`. Upstream asserts "no error" or "the aggregate error
//! contains this field path"; so do these tests, and they also name the rule and the kind of
//! error (Invalid, Unsupported, Required, Duplicate value).

mod common;

use taintlint::{analyse, Diagnostic, Options, Severity};

/// A `core.Toleration` as upstream's Go literal writes it; empty strings are left out, as Go's
/// `omitempty` leaves them out of the JSON the API server receives.
#[derive(Default, Clone, Copy)]
struct Tol {
    key: &'static str,
    operator: &'static str,
    value: &'static str,
    effect: &'static str,
    seconds: Option<i64>,
}

/// A YAML string that stays a string whatever it holds (`"true"`, `"1234"`, backslashes).
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn toleration_yaml(t: &Tol) -> String {
    let mut fields = Vec::new();
    for (name, value) in [
        ("key", t.key),
        ("operator", t.operator),
        ("value", t.value),
        ("effect", t.effect),
    ] {
        if !value.is_empty() {
            fields.push(format!("{name}: {}", quoted(value)));
        }
    }
    if let Some(s) = t.seconds {
        fields.push(format!("tolerationSeconds: {s}"));
    }
    let mut out = String::new();
    for (i, f) in fields.iter().enumerate() {
        out.push_str(if i == 0 { "  - " } else { "    " });
        out.push_str(f);
        out.push('\n');
    }
    if fields.is_empty() {
        out.push_str("  - {}\n");
    }
    out
}

/// `podtest.MakePod(name, podtest.SetTolerations(...))`: a valid pod but for its tolerations.
fn pod(name: &str, tolerations: &[Tol]) -> String {
    let mut out = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: ns\nspec:\n  \
         containers:\n  - name: ctr\n    image: image\n    imagePullPolicy: IfNotPresent\n  \
         restartPolicy: Always\n  dnsPolicy: ClusterFirst\n  tolerations:\n"
    );
    for t in tolerations {
        out.push_str(&toleration_yaml(t));
    }
    out
}

/// A `core.Taint`.
#[derive(Clone, Copy)]
struct Taint {
    key: &'static str,
    value: &'static str,
    effect: &'static str,
}

fn node(name: &str, taints: &[Taint]) -> String {
    let mut out =
        format!("apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\nspec:\n  taints:\n");
    for t in taints {
        let mut fields = Vec::new();
        for (field, value) in [("key", t.key), ("value", t.value), ("effect", t.effect)] {
            if !value.is_empty() {
                fields.push(format!("{field}: {}", quoted(value)));
            }
        }
        out.push_str(&format!("  - {{{}}}\n", fields.join(", ")));
    }
    out
}

fn errors(found: &[Diagnostic]) -> Vec<&Diagnostic> {
    found
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

fn gate_on() -> Options {
    let mut o = Options::default();
    o.set_feature_gates("TaintTolerationComparisonOperators=true")
        .unwrap();
    o
}

fn assert_valid(name: &str, text: &str, options: &Options) {
    let found = analyse(text, options);
    assert!(
        errors(&found).is_empty(),
        "{name}: expected no error, got {:#?}\n{text}",
        errors(&found)
    );
}

/// An expected error: the rule, the field path in the API server's message (as the API server
/// names it), the error kind, and the path from the document root (where the diagnostic
/// points). The server's wording is the diagnostic's `server_message`; its `message` says the
/// same in plain words, short enough for one row of a problem list.
struct Expect {
    rule: &'static str,
    message_path: &'static str,
    kind: &'static str,
    path: &'static str,
}

fn assert_error(name: &str, text: &str, options: &Options, want: &Expect) {
    let found = analyse(text, options);
    let errs = errors(&found);
    assert!(!errs.is_empty(), "{name}: expected failure\n{text}");
    let hit = errs.iter().find(|d| {
        d.rule == want.rule
            && d.server_message
                .as_deref()
                .is_some_and(|m| m.starts_with(&format!("{}: {}", want.message_path, want.kind)))
            && d.path.as_deref() == Some(want.path)
    });
    assert!(
        hit.is_some(),
        "{name}: expected {} to report \"{}: {}...\" at {}, got {errs:#?}",
        want.rule,
        want.message_path,
        want.kind,
        want.path
    );
    // The range points at the text of the field the path names (or the item, when absent).
    let d = hit.unwrap();
    assert!(
        !d.message.contains(want.message_path) && d.message.chars().count() <= 120,
        "{name}: the message is not short and plain: {:?}",
        d.message
    );
    assert!(
        d.range.end <= text.len() && !d.range.is_empty(),
        "{name}: {d:?}"
    );
}

const NOT_READY: &str = "node.kubernetes.io/not-ready";

#[test]
fn validate_pod_success_cases() {
    let cases: &[(&str, Tol)] = &[
        (
            "populate forgiveness tolerations with exists operator in annotations.",
            Tol {
                key: "foo",
                operator: "Exists",
                effect: "NoExecute",
                seconds: Some(60),
                ..Tol::default()
            },
        ),
        (
            "populate forgiveness tolerations with equal operator in annotations.",
            Tol {
                key: "foo",
                operator: "Equal",
                value: "bar",
                effect: "NoExecute",
                seconds: Some(60),
            },
        ),
        (
            "populate tolerations equal operator in annotations.",
            Tol {
                key: "foo",
                operator: "Equal",
                value: "bar",
                effect: "NoSchedule",
                ..Tol::default()
            },
        ),
        (
            "empty key with Exists operator is OK for toleration, empty toleration key means \
             match all taint keys.",
            Tol {
                operator: "Exists",
                effect: "NoSchedule",
                ..Tol::default()
            },
        ),
        (
            "empty operator is OK for toleration, defaults to Equal.",
            Tol {
                key: "foo",
                value: "bar",
                effect: "NoSchedule",
                ..Tol::default()
            },
        ),
        (
            "empty effect is OK for toleration, empty toleration effect means match all taint \
             effects.",
            Tol {
                key: "foo",
                operator: "Equal",
                value: "bar",
                ..Tol::default()
            },
        ),
        (
            "negative tolerationSeconds is OK for toleration.",
            Tol {
                key: NOT_READY,
                operator: "Exists",
                effect: "NoExecute",
                seconds: Some(-2),
                ..Tol::default()
            },
        ),
    ];
    for (name, t) in cases {
        assert_valid(name, &pod("123", &[*t]), &Options::default());
    }
    // "populate tolerations exists operator in annotations." has no toleration at all.
    assert_valid(
        "no tolerations",
        &pod("123", &[]).replace("  tolerations:\n", ""),
        &Options::default(),
    );
    // Negative seconds are accepted, but taintlint warns that they evict at once.
    let found = analyse(&pod("123", &[cases[6].1]), &Options::default());
    assert!(found
        .iter()
        .any(|d| d.rule == "nonpositive-toleration-seconds" && d.severity == Severity::Warning));
}

#[test]
fn validate_pod_error_cases() {
    let cases: &[(&str, Tol, Expect)] = &[
        (
            "invalid toleration key",
            Tol {
                key: "nospecialchars^=@",
                operator: "Equal",
                value: "bar",
                effect: "NoSchedule",
                ..Tol::default()
            },
            Expect {
                rule: "invalid-key",
                message_path: "spec.tolerations[0].key",
                kind: "Invalid value: \"nospecialchars^=@\"",
                path: "spec.tolerations[0].key",
            },
        ),
        (
            "invalid toleration operator",
            Tol {
                key: "foo",
                operator: "In",
                value: "bar",
                effect: "NoSchedule",
                ..Tol::default()
            },
            Expect {
                rule: "unknown-operator",
                message_path: "spec.tolerations[0].operator",
                kind: "Unsupported value: \"In\": supported values: \"Equal\", \"Exists\"",
                path: "spec.tolerations[0].operator",
            },
        ),
        (
            "value must be empty when `operator` is 'Exists'",
            Tol {
                key: "foo",
                operator: "Exists",
                value: "bar",
                effect: "NoSchedule",
                ..Tol::default()
            },
            Expect {
                rule: "exists-with-value",
                message_path: "spec.tolerations[0].operator",
                kind: "Invalid value: \"bar\": value must be empty when `operator` is 'Exists'",
                path: "spec.tolerations[0].value",
            },
        ),
        (
            "operator must be 'Exists' when `key` is empty",
            Tol {
                operator: "Equal",
                value: "bar",
                effect: "NoSchedule",
                ..Tol::default()
            },
            Expect {
                rule: "empty-key-requires-exists",
                message_path: "spec.tolerations[0].operator",
                kind: "Invalid value: \"Equal\": operator must be Exists when `key` is empty",
                path: "spec.tolerations[0].operator",
            },
        ),
        (
            "effect must be 'NoExecute' when `TolerationSeconds` is set",
            Tol {
                key: NOT_READY,
                operator: "Exists",
                effect: "NoSchedule",
                seconds: Some(20),
                ..Tol::default()
            },
            Expect {
                rule: "toleration-seconds-requires-no-execute",
                message_path: "spec.tolerations[0].effect",
                kind: "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when \
                       `tolerationSeconds` is set",
                path: "spec.tolerations[0].effect",
            },
        ),
    ];
    for (name, t, want) in cases {
        assert_error(name, &pod("123", &[*t]), &Options::default(), want);
    }
}

/// The full label-value message, as upstream's node-affinity case spells it out.
#[test]
fn label_value_message_is_upstreams() {
    let text = pod(
        "123",
        &[Tol {
            key: "foo",
            operator: "Equal",
            value: "-1",
            ..Tol::default()
        }],
    );
    let found = analyse(&text, &Options::default());
    let want = "spec.tolerations[0].operator: Invalid value: \"-1\": a valid label must be an \
                empty string or consist of alphanumeric characters, '-', '_' or '.', and must \
                start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  \
                or '12345', regex used for validation is \
                '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    let d = found
        .iter()
        .find(|d| d.rule == "invalid-value")
        .expect("invalid-value");
    assert_eq!(d.server_message.as_deref(), Some(want));
    assert_eq!(
        d.message,
        "value `-1` is invalid: it must start and end with a letter or digit"
    );
    assert_eq!(&text[d.range.clone()], "\"-1\"");
}

/// TestValidatePodUpdate: only the new pod's own tolerations can be judged from one manifest
/// (the "existing toleration can not be modified" Forbidden errors compare two versions).
/// ValidateTolerations runs on the new tolerations, so the one case that fails it fails here.
#[test]
fn validate_pod_update_cases_new_pod_alone() {
    let ne = |key, value, seconds| Tol {
        key,
        value,
        operator: "Equal",
        effect: "NoExecute",
        seconds,
    };
    let valid: &[(&str, Vec<Tol>)] = &[
        (
            "existing toleration value modified in pod spec updates",
            vec![Tol {
                key: "key1",
                value: "value2",
                ..Tol::default()
            }],
        ),
        (
            "existing toleration value modified in pod spec updates with modified \
             tolerationSeconds",
            vec![ne("key1", "value2", None)],
        ),
        (
            "modified tolerationSeconds in existing toleration value in pod spec updates",
            vec![ne("key1", "value1", Some(10))],
        ),
        (
            "added valid new toleration to existing tolerations in pod spec updates",
            vec![
                ne("key1", "value1", Some(20)),
                ne("key2", "value2", Some(30)),
            ],
        ),
    ];
    for (name, tolerations) in valid {
        assert_valid(name, &pod("foo", tolerations), &Options::default());
    }
    let invalid = [
        ne("key1", "value1", Some(20)),
        Tol {
            effect: "NoSchedule",
            ..ne("key2", "value2", Some(30))
        },
    ];
    assert_error(
        "added invalid new toleration to existing tolerations in pod spec updates",
        &pod("foo", &invalid),
        &Options::default(),
        &Expect {
            rule: "toleration-seconds-requires-no-execute",
            message_path: "spec.tolerations[1].effect",
            kind: "Invalid value: \"NoSchedule\"",
            path: "spec.tolerations[1].effect",
        },
    );
}

/// ValidateTolerations' Lt/Gt branch (no upstream test table exists yet; cases follow the code:
/// NotSupported with four values without the gate, IsDecimalInteger then ParseInt with it).
#[test]
fn comparison_operators_follow_the_code() {
    let lt = |value| Tol {
        key: "example.com/generation",
        operator: "Lt",
        value,
        effect: "NoSchedule",
        ..Tol::default()
    };
    for value in ["5", "0", "-7", "9223372036854775807"] {
        assert_valid(value, &pod("p", &[lt(value)]), &gate_on());
    }
    for value in ["05", "+5", "5.0", "", "five", "12345678901234567890"] {
        assert_error(
            value,
            &pod("p", &[lt(value)]),
            &gate_on(),
            &Expect {
                rule: "invalid-value",
                message_path: "spec.tolerations[0].value",
                kind: "Invalid value",
                path: "spec.tolerations[0].value",
            },
        );
    }
    let gt = Tol {
        operator: "Gt",
        ..lt("5")
    };
    assert_error(
        "Gt without the gate",
        &pod("p", &[gt]),
        &Options::default(),
        &Expect {
            rule: "unknown-operator",
            message_path: "spec.tolerations[0].operator",
            kind: "Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\", \"Lt\", \
                   \"Gt\"",
            path: "spec.tolerations[0].operator",
        },
    );
    // Operators stay case-sensitive with the gate on.
    assert_error(
        "lt",
        &pod(
            "p",
            &[Tol {
                operator: "lt",
                ..lt("5")
            }],
        ),
        &gate_on(),
        &Expect {
            rule: "unknown-operator",
            message_path: "spec.tolerations[0].operator",
            kind: "Unsupported value: \"lt\": supported values: \"Equal\", \"Exists\"",
            path: "spec.tolerations[0].operator",
        },
    );
}

/// More rows that follow ValidateTolerations' branches: lengths, effects, the empty key.
#[test]
fn more_toleration_branches() {
    let base = Tol {
        key: "foo",
        operator: "Equal",
        value: "bar",
        effect: "NoSchedule",
        ..Tol::default()
    };
    let long63: &'static str = Box::leak("v".repeat(63).into_boxed_str());
    let long64: &'static str = Box::leak("v".repeat(64).into_boxed_str());
    let key253: &'static str = Box::leak(format!("{}/k", "a".repeat(253)).into_boxed_str());
    let key254: &'static str = Box::leak(format!("{}/k", "a".repeat(254)).into_boxed_str());
    for (name, t) in [
        (
            "value of 63",
            Tol {
                value: long63,
                ..base
            },
        ),
        (
            "prefix of 253",
            Tol {
                key: key253,
                ..base
            },
        ),
        (
            "each effect",
            Tol {
                effect: "PreferNoSchedule",
                ..base
            },
        ),
        (
            "Exists, no value",
            Tol {
                operator: "Exists",
                value: "",
                ..base
            },
        ),
        (
            "Exists, empty key, no effect (tolerates everything)",
            Tol {
                key: "",
                operator: "Exists",
                value: "",
                effect: "",
                seconds: None,
            },
        ),
    ] {
        assert_valid(name, &pod("p", &[t]), &Options::default());
    }
    let cases = [
        (
            Tol {
                value: long64,
                ..base
            },
            Expect {
                rule: "invalid-value",
                message_path: "spec.tolerations[0].operator",
                kind: "Invalid value",
                path: "spec.tolerations[0].value",
            },
        ),
        (
            Tol {
                key: key254,
                ..base
            },
            Expect {
                rule: "invalid-key",
                message_path: "spec.tolerations[0].key",
                kind: "Invalid value",
                path: "spec.tolerations[0].key",
            },
        ),
        (
            Tol {
                effect: "NoScheduleNoAdmit",
                ..base
            },
            Expect {
                rule: "unknown-effect",
                message_path: "spec.tolerations[0].effect",
                kind: "Unsupported value: \"NoScheduleNoAdmit\": supported values: \
                       \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                path: "spec.tolerations[0].effect",
            },
        ),
        (
            // An omitted operator is Equal, and the error shows it as the empty string.
            Tol {
                key: "",
                operator: "",
                value: "",
                ..base
            },
            Expect {
                rule: "empty-key-requires-exists",
                message_path: "spec.tolerations[0].operator",
                kind: "Invalid value: \"\"",
                path: "spec.tolerations[0].operator",
            },
        ),
        (
            Tol {
                effect: "",
                seconds: Some(5),
                ..base
            },
            Expect {
                rule: "toleration-seconds-requires-no-execute",
                message_path: "spec.tolerations[0].effect",
                kind: "Invalid value: \"\"",
                path: "spec.tolerations[0].effect",
            },
        ),
    ];
    for (t, want) in &cases {
        assert_error(want.rule, &pod("p", &[*t]), &Options::default(), want);
    }
}

#[test]
fn validate_node_success_case() {
    let text = node(
        "abc",
        &[Taint {
            key: "GPU",
            value: "true",
            effect: "NoSchedule",
        }],
    );
    assert_valid("valid taint", &text, &Options::default());
    assert!(analyse(&text, &Options::default()).is_empty());
}

#[test]
fn validate_node_error_cases() {
    // ValidateNode starts its field path at `metadata`: the server says metadata.taints[i];
    // the diagnostic's own path is where the field is in the document, spec.taints[i].
    let cases = [
        (
            "missing-taint-key",
            vec![Taint {
                key: "",
                value: "special-user-1",
                effect: "NoSchedule",
            }],
            Expect {
                rule: "taint-missing-field",
                message_path: "metadata.taints[0].key",
                kind: "Invalid value: \"\": name part must be non-empty",
                path: "spec.taints[0].key",
            },
        ),
        (
            "bad-taint-key",
            vec![Taint {
                key: "NoUppercaseOrSpecialCharsLike=Equals",
                value: "special-user-1",
                effect: "NoSchedule",
            }],
            Expect {
                rule: "invalid-key",
                message_path: "metadata.taints[0].key",
                kind: "Invalid value: \"NoUppercaseOrSpecialCharsLike=Equals\": name part must \
                       consist of alphanumeric characters",
                path: "spec.taints[0].key",
            },
        ),
        (
            "bad-taint-value",
            vec![Taint {
                key: "dedicated",
                value: "some\\bad\\value",
                effect: "NoSchedule",
            }],
            Expect {
                rule: "invalid-value",
                message_path: "metadata.taints[0].value",
                kind: "Invalid value: \"some\\\\bad\\\\value\": a valid label must be an empty \
                       string",
                path: "spec.taints[0].value",
            },
        ),
        (
            "missing-taint-effect",
            vec![Taint {
                key: "dedicated",
                value: "special-user-3",
                effect: "",
            }],
            Expect {
                rule: "taint-missing-field",
                message_path: "metadata.taints[0].effect",
                kind: "Required value",
                path: "spec.taints[0].effect",
            },
        ),
        (
            "invalid-taint-effect",
            vec![Taint {
                key: "dedicated",
                value: "special-user-3",
                effect: "NoScheduleNoAdmit",
            }],
            Expect {
                rule: "unknown-effect",
                message_path: "metadata.taints[0].effect",
                kind: "Unsupported value: \"NoScheduleNoAdmit\": supported values: \
                       \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                path: "spec.taints[0].effect",
            },
        ),
        (
            "duplicated-taints-with-same-key-effect",
            vec![
                Taint {
                    key: "dedicated",
                    value: "special-user-1",
                    effect: "NoSchedule",
                },
                Taint {
                    key: "dedicated",
                    value: "special-user-2",
                    effect: "NoSchedule",
                },
            ],
            Expect {
                rule: "duplicate-taint",
                message_path: "metadata.taints[1]",
                kind: "Duplicate value",
                path: "spec.taints[1]",
            },
        ),
    ];
    for (name, taints, want) in &cases {
        assert_error(
            name,
            &node("dedicated-node1", taints),
            &Options::default(),
            want,
        );
    }
}

/// Upstream's duplicate check is by (key, effect): the same key with another effect, or the
/// same effect with another key, is fine; a NoExecute duplicate is caught too.
#[test]
fn duplicate_taints_are_by_key_and_effect() {
    let t = |key, effect| Taint {
        key,
        value: "v",
        effect,
    };
    assert_valid(
        "same key, other effects",
        &node(
            "n",
            &[
                t("a", "NoSchedule"),
                t("a", "NoExecute"),
                t("a", "PreferNoSchedule"),
            ],
        ),
        &Options::default(),
    );
    assert_valid(
        "same effect, other keys",
        &node("n", &[t("a", "NoSchedule"), t("b", "NoSchedule")]),
        &Options::default(),
    );
    let text = node(
        "n",
        &[
            t("a", "NoExecute"),
            t("b", "NoSchedule"),
            t("a", "NoExecute"),
        ],
    );
    assert_error(
        "third repeats first",
        &text,
        &Options::default(),
        &Expect {
            rule: "duplicate-taint",
            message_path: "metadata.taints[2]",
            kind: "Duplicate value",
            path: "spec.taints[2]",
        },
    );
    // It says where the first one is.
    let found = analyse(&text, &Options::default());
    let d = found.iter().find(|d| d.rule == "duplicate-taint").unwrap();
    assert_eq!(d.related.len(), 1);
    assert!(text[d.related[0].range.start..]
        .starts_with("key: \"a\", value: \"v\", effect: \"NoExecute\"}\n  - {key: \"b\""));
}
