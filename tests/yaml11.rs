//! YAML 1.1 scalars, as kubectl (sigs.k8s.io/yaml over go-yaml v2) reads them: an unquoted
//! `yes` or `1234` in a string field is a boolean or a number and the object fails to decode;
//! quoted, it is a string. `tolerationSeconds` must decode to an int64.

mod common;

use std::ops::Range;

use taintlint::{Diagnostic, Severity};

const FIELDS: [&str; 4] = ["key", "operator", "value", "effect"];

/// A Pod with one valid toleration, one of whose fields is replaced by `raw` (as written).
fn pod_with(field: &str, raw: &str) -> String {
    let mut lines = vec![
        ("key", "example.com/pool"),
        ("operator", "Equal"),
        ("value", "batch"),
        ("effect", "NoSchedule"),
    ];
    for l in &mut lines {
        if l.0 == field {
            l.1 = raw;
        }
    }
    let mut out = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: worker\nspec:\n  containers:\n  - name: \
         w\n    image: busybox\n  tolerations:\n",
    );
    for (i, (name, value)) in lines.iter().enumerate() {
        out.push_str(if i == 0 { "  - " } else { "    " });
        out.push_str(&format!("{name}: {value}\n"));
    }
    out
}

/// The byte range of the value written after `field: ` in the toleration.
fn value_range(text: &str, field: &str, raw: &str) -> Range<usize> {
    let needle = format!(" {field}: {raw}\n");
    let at = text.find(&needle).unwrap_or_else(|| panic!("{needle:?}")) + field.len() + 3;
    at..at + raw.len()
}

fn of_rule<'a>(found: &'a [Diagnostic], rule: &str) -> Vec<&'a Diagnostic> {
    found.iter().filter(|d| d.rule == rule).collect()
}

#[test]
fn unquoted_yaml11_scalars_do_not_decode_into_string_fields() {
    let cases = [
        ("yes", "bool", "boolean"),
        ("y", "bool", "boolean"),
        ("Y", "bool", "boolean"),
        ("on", "bool", "boolean"),
        ("ON", "bool", "boolean"),
        ("off", "bool", "boolean"),
        ("no", "bool", "boolean"),
        ("n", "bool", "boolean"),
        ("true", "bool", "boolean"),
        ("False", "bool", "boolean"),
        ("1234", "number", "integer"),
        ("0x1F", "number", "integer"),
        ("0777", "number", "integer"),
        ("-12", "number", "integer"),
        ("1_000", "number", "integer"),
        ("1e3", "number", "float"),
        ("3.14", "number", "float"),
        (".5", "number", "float"),
        (".inf", "number", "float"),
    ];
    for field in FIELDS {
        for (raw, json_type, yaml_type) in cases {
            let text = pod_with(field, raw);
            let found = common::lint(&text);
            let undecodable = of_rule(&found, "undecodable-value");
            assert_eq!(undecodable.len(), 1, "{field}: {raw}: {found:#?}\n{text}");
            let d = undecodable[0];
            assert_eq!(d.severity, Severity::Error);
            assert_eq!(d.range, value_range(&text, field, raw), "{field}: {raw}");
            assert_eq!(&text[d.range.clone()], raw);
            assert_eq!(
                d.path.as_deref(),
                Some(&*format!("spec.tolerations[0].{field}"))
            );
            let article = if yaml_type == "integer" { "an" } else { "a" };
            assert_eq!(
                d.message,
                format!(
                    "`{field}: {raw}` is {article} {yaml_type} in YAML 1.1, not a string; quote it"
                )
            );
            assert_eq!(
                d.server_message.as_deref(),
                Some(&*format!(
                    "json: cannot unmarshal {json_type} into Go struct field \
                     Toleration.spec.tolerations.{field} of type string"
                ))
            );
            // The fix quotes it, and then it decodes.
            let fix = &d.fixes[0];
            assert_eq!(fix.edits[0].replacement, format!("\"{raw}\""));
            let fixed = fix.apply(&text);
            assert!(of_rule(&common::lint(&fixed), "undecodable-value").is_empty());
            // A field that does not decode is not validated further: no second error for it.
            let others: Vec<_> = found
                .iter()
                .filter(|d| d.severity == Severity::Error && d.rule != "undecodable-value")
                .collect();
            assert!(others.is_empty(), "{field}: {raw}: {others:#?}");
        }
    }
}

#[test]
fn quoted_scalars_are_strings() {
    for field in FIELDS {
        for raw in [
            "\"yes\"",
            "'yes'",
            "\"y\"",
            "'on'",
            "\"off\"",
            "'no'",
            "\"true\"",
            "\"1234\"",
            "'0x1F'",
            "\"0777\"",
            "'1e3'",
            "\"~\"",
            "!!str yes",
            "!!str 1234",
        ] {
            let text = pod_with(field, raw);
            let found = common::lint(&text);
            assert!(
                of_rule(&found, "undecodable-value").is_empty(),
                "{field}: {raw}: {found:#?}"
            );
            assert!(of_rule(&found, "null-value").is_empty(), "{field}: {raw}");
            // The string reaches validation: as a key or a value these are fine (but `~`, which
            // is not a qualified name or label value); as an operator or effect they are
            // unknown, reported at the quoted scalar.
            // A tag is not part of the value: the range is the scalar after it.
            let mut range = value_range(&text, field, raw);
            if raw.starts_with("!!str ") {
                range.start += "!!str ".len();
            }
            let expected = match field {
                "operator" => Some("unknown-operator"),
                "effect" => Some("unknown-effect"),
                "key" if raw.contains('~') => Some("invalid-key"),
                "value" if raw.contains('~') => Some("invalid-value"),
                _ => None,
            };
            let errors: Vec<_> = found
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            match expected {
                None => assert!(errors.is_empty(), "{field}: {raw}: {errors:#?}"),
                Some(rule) => {
                    assert_eq!(errors.len(), 1, "{field}: {raw}: {errors:#?}");
                    assert_eq!(errors[0].rule, rule, "{field}: {raw}");
                    assert_eq!(errors[0].range, range, "{field}: {raw}");
                }
            }
        }
    }
}

#[test]
fn null_reads_as_empty() {
    for raw in ["~", "null", "Null", "NULL"] {
        for field in FIELDS {
            let text = pod_with(field, raw);
            let found = common::lint(&text);
            assert!(
                of_rule(&found, "undecodable-value").is_empty(),
                "{field}: {raw}"
            );
            let nulls = of_rule(&found, "null-value");
            assert_eq!(nulls.len(), 1, "{field}: {raw}: {found:#?}");
            assert_eq!(nulls[0].range, value_range(&text, field, raw));
            assert_eq!(nulls[0].severity, Severity::Warning);
            // Read as empty: an empty key with Equal is the API server's error; an empty
            // value with Equal is the equal-empty-value warning.
            let rules: Vec<_> = found.iter().map(|d| d.rule).collect();
            match field {
                "key" => assert!(rules.contains(&"empty-key-requires-exists"), "{rules:?}"),
                "value" => assert!(rules.contains(&"equal-empty-value"), "{rules:?}"),
                _ => assert_eq!(rules, ["null-value"]),
            }
        }
    }
    // Nothing at all after the colon is null too; the finding points at the key.
    let text = pod_with("effect", "").replace("effect: \n", "effect:\n");
    let found = common::lint(&text);
    let nulls = of_rule(&found, "null-value");
    assert_eq!(nulls.len(), 1, "{found:#?}");
    let at = text.find("effect:").unwrap();
    assert_eq!(nulls[0].range, at..at + "effect".len());
}

fn pod_with_seconds(raw: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: api\nspec:\n  containers:\n  - name: a\n    \
         image: busybox\n  tolerations:\n  - key: node.kubernetes.io/unreachable\n    operator: \
         Exists\n    effect: NoExecute\n    tolerationSeconds: {raw}\n"
    )
}

#[test]
fn toleration_seconds_must_decode_to_int64() {
    // encoding/json turns a float without a fraction into an integer, so these decode.
    for raw in ["3600", "3600.0", "1e3", "0x10", "0777", "+60", "1_000"] {
        let text = pod_with_seconds(raw);
        let found = common::lint(&text);
        assert!(found.is_empty(), "{raw}: {found:#?}");
    }
    let cases = [
        (
            "\"3600\"",
            "string",
            "tolerationSeconds `3600` is a string, not a number; write it without quotes",
        ),
        (
            "'3600'",
            "string",
            "tolerationSeconds `3600` is a string, not a number; write it without quotes",
        ),
        (
            "1.5",
            "number 1.5",
            "tolerationSeconds `1.5` is not a whole number of seconds",
        ),
        (
            "true",
            "bool",
            "tolerationSeconds is a boolean, not a number of seconds",
        ),
        (
            "yes",
            "bool",
            "tolerationSeconds is a boolean, not a number of seconds",
        ),
        (
            "1e21",
            "number 1e+21",
            "tolerationSeconds `1e21` does not fit a 64-bit integer",
        ),
        (
            "-1e19",
            "number -10000000000000000000",
            "tolerationSeconds `-1e19` does not fit a 64-bit integer",
        ),
        // json.Marshal refuses an infinity before any decoding; taintlint names only its type.
        (
            ".inf",
            "number",
            "tolerationSeconds `.inf` is not a whole number of seconds",
        ),
        (
            "9223372036854775808",
            "number 9223372036854775808",
            "tolerationSeconds `9223372036854775808` does not fit a 64-bit integer",
        ),
        (
            "soon",
            "string",
            "tolerationSeconds `soon` is not a number of seconds",
        ),
        (
            "[60]",
            "array",
            "tolerationSeconds is a sequence, not a number of seconds",
        ),
    ];
    for (raw, json_type, why) in cases {
        let text = pod_with_seconds(raw);
        let found = common::lint(&text);
        let undecodable = of_rule(&found, "undecodable-value");
        assert_eq!(undecodable.len(), 1, "{raw}: {found:#?}");
        let d = undecodable[0];
        assert_eq!(
            d.range,
            value_range(&text, "tolerationSeconds", raw),
            "{raw}"
        );
        assert_eq!(
            d.path.as_deref(),
            Some("spec.tolerations[0].tolerationSeconds")
        );
        assert_eq!(d.message, why, "{raw}");
        assert_eq!(
            d.server_message.as_deref(),
            Some(&*format!(
                "json: cannot unmarshal {json_type} into Go struct field \
                 Toleration.spec.tolerations.tolerationSeconds of type int64"
            )),
            "{raw}"
        );
        // Nothing else: a value that does not decode is not checked for being non-positive.
        assert_eq!(found.len(), 1, "{raw}: {found:#?}");
    }
    // A quoted integer has a fix: unquote it.
    let text = pod_with_seconds("\"3600\"");
    let d = &common::lint(&text)[0];
    let fixed = d.fixes[0].apply(&text);
    assert!(fixed.contains("tolerationSeconds: 3600\n"));
    assert!(common::lint(&fixed).is_empty());
    // Only an integer written as Go writes it is offered unquoted: `0300` would be octal.
    for raw in ["\"0300\"", "\"+300\"", "\" 300\""] {
        let found = common::lint(&pod_with_seconds(raw));
        assert_eq!(found.len(), 1, "{raw}: {found:#?}");
        assert!(found[0]
            .message
            .ends_with("is a string, not a number; write it without quotes"));
        assert!(found[0].fixes.is_empty(), "{raw}: {:#?}", found[0].fixes);
    }
}

/// A list or an item of the wrong shape. encoding/json names the struct that holds the field,
/// the field's JSON path and its Go type, from k8s.io/api/core/v1; the API server answers, for
/// instance, `Deployment in version "v1" cannot be handled as a Deployment: json: cannot
/// unmarshal object into Go struct field PodSpec.spec.template.spec.tolerations of type
/// []v1.Toleration`.
#[test]
fn lists_and_items_of_the_wrong_shape() {
    let words = |text: &str| -> Vec<(String, String)> {
        of_rule(&common::lint(text), "undecodable-value")
            .iter()
            .map(|d| {
                (
                    d.message.clone(),
                    d.server_message.clone().unwrap_or_default(),
                )
            })
            .collect()
    };
    let deployment = |tolerations: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    \
             matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n    \
             spec:\n      containers:\n      - {{name: w, image: busybox}}\n      tolerations: \
             {tolerations}\n"
        )
    };
    assert_eq!(
        words(&deployment("{key: a, operator: Exists}")),
        [(
            "`tolerations` is a mapping, not a list".to_string(),
            "json: cannot unmarshal object into Go struct field \
             PodSpec.spec.template.spec.tolerations of type []v1.Toleration"
                .to_string()
        )]
    );
    assert_eq!(
        words(&deployment("[[{key: a, operator: Exists}]]")),
        [(
            "this toleration is a sequence, not a mapping of fields".to_string(),
            "json: cannot unmarshal array into Go struct field \
             PodSpec.spec.template.spec.tolerations of type v1.Toleration"
                .to_string()
        )]
    );
    let node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nspec:\n  taints: yes\n";
    assert_eq!(
        words(node),
        [(
            "`taints` is a boolean, not a list".to_string(),
            "json: cannot unmarshal bool into Go struct field NodeSpec.spec.taints of type \
             []v1.Taint"
                .to_string()
        )]
    );
    // A field that holds a mapping or a list: its type, and no quoting fix (the quotes would
    // make a string of the flow collection's text).
    for (raw, ty, json) in [
        ("{a: b}", "mapping", "object"),
        ("[a]", "sequence", "array"),
    ] {
        let text = pod_with("value", raw);
        let found = common::lint(&text);
        let undecodable = of_rule(&found, "undecodable-value");
        assert_eq!(undecodable.len(), 1, "{raw}: {found:#?}");
        assert_eq!(
            undecodable[0].message,
            format!("`value` is a {ty}, not a string")
        );
        assert_eq!(
            undecodable[0].server_message.as_deref(),
            Some(&*format!(
                "json: cannot unmarshal {json} into Go struct field \
                 Toleration.spec.tolerations.value of type string"
            ))
        );
        assert!(undecodable[0].fixes.is_empty(), "{raw}: {undecodable:#?}");
    }
    let runtime_class = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: \
                         gvisor\nhandler: runsc\nscheduling:\n  tolerations: none\n";
    assert_eq!(
        words(runtime_class),
        [(
            "`tolerations` is a string, not a list".to_string(),
            "json: cannot unmarshal string into Go struct field \
             Scheduling.scheduling.tolerations of type []v1.Toleration"
                .to_string()
        )]
    );
}

#[test]
fn taint_fields_decode_the_same_way() {
    let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nspec:\n  taints:\n  - key: \
                example.com/spot\n    value: yes\n    effect: NoSchedule\n  - key: 1234\n    \
                effect: NoSchedule\n";
    let found = common::lint(text);
    let undecodable = of_rule(&found, "undecodable-value");
    assert_eq!(undecodable.len(), 2, "{found:#?}");
    assert_eq!(&text[undecodable[0].range.clone()], "yes");
    assert_eq!(
        undecodable[0].message,
        "`value: yes` is a boolean in YAML 1.1, not a string; quote it"
    );
    assert_eq!(
        undecodable[0].server_message.as_deref(),
        Some("json: cannot unmarshal bool into Go struct field Taint.spec.taints.value of type string")
    );
    assert_eq!(&text[undecodable[1].range.clone()], "1234");
    assert_eq!(undecodable[1].path.as_deref(), Some("spec.taints[1].key"));
}
