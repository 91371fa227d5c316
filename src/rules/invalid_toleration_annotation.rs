//! `invalid-toleration-annotation`: an annotation that holds a JSON list of tolerations (a
//! Namespace's PodTolerationRestriction annotations, a pod's deprecated tolerations) and does not
//! decode.

use super::go_quote;
use super::{ObjectCx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::cluster::{
    namespace_annotation, pod_annotation, read_annotation, value_offset, value_offsets,
    AnnotationError, DEFAULT_TOLERATIONS, POD_TOLERATIONS, TOLERATIONS_WHITELIST,
};
use crate::k8s::decode::{decode, Decoded};
use crate::syntax::NodeId;

pub struct InvalidTolerationAnnotation;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-toleration-annotation",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "An annotation that holds a JSON list of tolerations (a namespace's defaultTolerations or tolerationsWhitelist, a pod's deprecated tolerations) and does not decode",
    why: "The API server refuses the pods it applies to: the namespace's, or this pod.",
    explanation: r#"## What it catches
An annotation whose value the API server decodes as a JSON list of tolerations (Go's
`encoding/json` into `[]Toleration`: field names match case-insensitively, unknown fields are
ignored, an empty value is an empty list) when it does not decode: JSON that does not parse (the
finding points at the character where it stops), a JSON value that is not a list of objects, or
a field of the wrong type (`"tolerationSeconds": "60"`; the finding points at that value). Two
places hold one:

- The Namespace annotations `scheduler.alpha.kubernetes.io/defaultTolerations` and
  `scheduler.alpha.kubernetes.io/tolerationsWhitelist`, read by the PodTolerationRestriction
  admission plugin (upstream plugin/pkg/admission/podtolerationrestriction/admission.go,
  `extractNSTolerations`). An operator or effect the API does not know is refused here too: the
  pods the tolerations are merged into would fail validation.
- The deprecated pod annotation `scheduler.alpha.kubernetes.io/tolerations`, on a Pod or in a
  workload's pod template, which the API server still decodes and validates (upstream
  `ValidateTolerationsInPodAnnotations`, pkg/apis/core/validation/validation.go). Once it
  decodes, its tolerations get the toleration rules at their characters inside the JSON (see
  `deprecated-tolerations-annotation`).

A place inside the value is exact for plain and quoted scalars on one line (escapes included)
and literal block scalars (`|`); in a folded (`>`) or multi-line quoted scalar the finding
covers the whole value.

## Why it matters
A Namespace is accepted whatever its annotations say, but once PodTolerationRestriction is
enabled every pod created in the namespace is refused with the decoding error
(`admission-rejected` reports each pod template of the namespace). The annotation only exists for
that plugin, so a broken one is reported whether or not the plugin is enabled here. A pod whose
tolerations annotation does not decode is refused itself: `metadata.annotations: Invalid value:
"scheduler.alpha.kubernetes.io/tolerations": json: cannot unmarshal ...`.

## Example
```yaml
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  annotations:
    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{"key": "team", "operator": "Exists",}]'
```

## Fix
Write the value as a JSON array of toleration objects, with the API's field names and values:
`'[{"key": "team", "operator": "Exists", "effect": "NoSchedule"}]'`. On a pod, move the
tolerations to `spec.tolerations` and drop the annotation.
"#,
};

impl Rule for InvalidTolerationAnnotation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_object(&self, cx: &mut ObjectCx<'_, '_>) {
        match cx.object.kind {
            Some("Namespace") => check_namespace(cx),
            Some(kind) => check_pod(cx, kind),
            None => {}
        }
    }
}

fn check_namespace(cx: &mut ObjectCx<'_, '_>) {
    let namespace = cx.object.name.unwrap_or("");
    for annotation in [DEFAULT_TOLERATIONS, TOLERATIONS_WHITELIST] {
        let Some((key, value)) = namespace_annotation(cx.doc, cx.object.node, annotation) else {
            continue;
        };
        let Err(error) = read_annotation(cx.doc, value, "").tolerations else {
            continue;
        };
        let consequence = if cx.options.admission_enabled("PodTolerationRestriction") {
            format!("PodTolerationRestriction refuses every pod of {namespace}")
        } else {
            format!("with PodTolerationRestriction on, every pod of {namespace} is refused")
        };
        let short = annotation.rsplit('/').next().unwrap_or(annotation);
        let message = format!("{short} {}; {consequence}", plain(&error.message));
        let path = cx.path(&format!("metadata.annotations[{annotation}]"));
        // Go's own words for a type error; a syntax error is worded by another parser.
        let server = (!error.message.starts_with("not JSON"))
            .then(|| format!("{annotation}: {}", error.message));
        report(cx, key, value, &error, path, message, server);
    }
}

/// The deprecated `scheduler.alpha.kubernetes.io/tolerations` of a pod or pod template: the
/// API server refuses the pod when it does not decode (upstream
/// `ValidateTolerationsInPodAnnotations`; an empty value is not checked). An operator or effect
/// it does not know is left to `unknown-operator` and `unknown-effect`, which the
/// `deprecated-tolerations-annotation` rule runs inside the JSON.
fn check_pod(cx: &mut ObjectCx<'_, '_>, kind: &str) {
    let Some(a) = pod_annotation(
        cx.doc,
        cx.object.node,
        &cx.object.path,
        kind,
        POD_TOLERATIONS,
    ) else {
        return;
    };
    if matches!(decode(cx.doc, a.value), Decoded::Str("") | Decoded::Null) {
        return;
    }
    let Err(error) = read_annotation(cx.doc, a.value, "").tolerations else {
        return;
    };
    if error.message.contains("Unsupported value") {
        return;
    }
    let message = format!(
        "tolerations annotation {}: the API server refuses the pod",
        plain(&error.message)
    );
    let api = a
        .api_path
        .strip_suffix(&format!(".{POD_TOLERATIONS}"))
        .unwrap_or(&a.api_path);
    let server = (!error.message.starts_with("not JSON")).then(|| {
        format!(
            "{api}: Invalid value: {}: {}",
            go_quote(POD_TOLERATIONS),
            error.message
        )
    });
    report(cx, a.key, a.value, &error, a.path, message, server);
}

/// Reports a decoding error at the character where the JSON stops, when the scalar maps to the
/// source, else at the whole value.
fn report(
    cx: &mut ObjectCx<'_, '_>,
    key: NodeId,
    value: NodeId,
    error: &AnnotationError,
    path: String,
    message: String,
    server: Option<String>,
) {
    let value_span = cx.span(value);
    let trimmed = cx.text[value_span.clone()].trim_end().len();
    let whole = if value_span.is_empty() {
        cx.span(key)
    } else {
        value_span.start..value_span.start + trimmed
    };
    let at_offset = error
        .offset
        .and_then(|o| value_offset(cx.doc, cx.text, value, o))
        .map(|at| {
            let len = cx.text[at..].chars().next().map_or(0, char::len_utf8);
            at..at + len
        });
    // A type error names no offset: find the value it is about in the JSON, and map that.
    let at_field = || {
        let json = cx.doc.scalar(value)?.0;
        let r = field_error_range(json, &error.message)?;
        let map = value_offsets(cx.doc, cx.text, value)?;
        Some(*map.get(r.start)?..*map.get(r.end)?)
    };
    let range = at_offset.or_else(at_field).unwrap_or(whole);
    let d = cx.report(range, path, message);
    if let Some(server) = server {
        d.with_server_message(server);
    }
}

/// Where in the JSON text a decoding error is (a byte range), for errors that do not say: the
/// first value of the field a type error names that is not of its type, the item that is not an
/// object, or the operator or effect an `[i].field: Unsupported value` names.
fn field_error_range(json: &str, error: &str) -> Option<std::ops::Range<usize>> {
    let stream = crate::syntax::parse(json);
    let doc = stream.documents.first().filter(|d| d.error.is_none())?;
    let items = doc.sequence(doc.root?)?;
    let span = |id: NodeId| doc.node(id).span.clone();
    // `[2].operator: Unsupported value: ...`
    if let Some(rest) = error.strip_prefix('[') {
        let (index, rest) = rest.split_once("].")?;
        let field = rest.split(':').next()?;
        let item = *items.get(index.parse::<usize>().ok()?)?;
        let (_, v) = doc.get(item, field)?;
        return Some(span(v));
    }
    let rest = error.strip_prefix("json: cannot unmarshal ")?;
    if rest.contains(" into Go value of type v1.Toleration") {
        let item = items.iter().find(|&&i| {
            doc.mapping(i).is_none() && doc.scalar(i).is_none_or(|(s, _)| s != "null")
        })?;
        return Some(span(*item));
    }
    let (_, into) = rest.split_once(" into Go struct field Toleration.")?;
    let (field, ty) = into.split_once(" of type ")?;
    for &item in items {
        let Some(entries) = doc.mapping(item) else {
            continue;
        };
        for &(k, v) in entries {
            if !doc
                .scalar(k)
                .is_some_and(|(n, _)| n.eq_ignore_ascii_case(field))
            {
                continue;
            }
            let fits = match (doc.scalar(v), ty) {
                (Some(("null", crate::syntax::Style::Plain)), _) => true,
                (Some((_, style)), "string") => style != crate::syntax::Style::Plain,
                (Some((text, crate::syntax::Style::Plain)), "int64") => text.parse::<i64>().is_ok(),
                _ => false,
            };
            if !fits {
                return Some(span(v));
            }
        }
    }
    None
}

/// A decoding error in plain words: what is wrong where (the finding's place says where).
fn plain(error: &str) -> String {
    if let Some(rest) = error.strip_prefix("not JSON: ") {
        let why = rest.split(" at line ").next().unwrap_or(rest);
        return format!("is not JSON ({why})");
    }
    if let Some(rest) = error.strip_prefix("json: cannot unmarshal ") {
        if let Some((kind, into)) = rest.split_once(" into Go value of type ") {
            return if into.starts_with("[]") {
                format!("is a JSON {kind}, not a list of tolerations")
            } else {
                format!("has an item that is a JSON {kind}, not a toleration")
            };
        }
        if let Some((kind, into)) = rest.split_once(" into Go struct field Toleration.") {
            let (field, ty) = into.split_once(" of type ").unwrap_or((into, "?"));
            let ty = if ty == "int64" {
                "an integer"
            } else {
                "a string"
            };
            return format!("has {field} as a JSON {kind}, not {ty}");
        }
    }
    format!("does not decode: {error}")
}

#[cfg(test)]
mod tests {
    use super::field_error_range;

    #[test]
    fn type_errors_are_placed_at_their_value() {
        let json = r#"[{"key": "a"}, {"key": "b", "TolerationSeconds": "60"}]"#;
        let r = field_error_range(
            json,
            "json: cannot unmarshal string into Go struct field Toleration.tolerationSeconds of type int64",
        )
        .unwrap();
        assert_eq!(&json[r], "\"60\"");
        let json = r#"[{"key": "a"}, 3]"#;
        let r = field_error_range(
            json,
            "json: cannot unmarshal number into Go value of type v1.Toleration",
        )
        .unwrap();
        assert_eq!(&json[r], "3");
        let json = r#"[{"key": "a", "operator": "exists"}]"#;
        let r = field_error_range(
            json,
            "[0].operator: Unsupported value: \"exists\": the pods it is merged into fail validation",
        )
        .unwrap();
        assert_eq!(&json[r], "\"exists\"");
    }

    /// Go's decoder passes over what fits the field (a `null`, a string in a string field, an
    /// integer in an int64 one), so the first value that does not is the one the error is about;
    /// a `null` item decodes as an empty toleration.
    #[test]
    fn the_first_value_that_does_not_fit_is_the_one() {
        let at =
            |json: &str, error: &str| field_error_range(json, error).map(|r| json[r].to_string());
        let int64 = "json: cannot unmarshal string into Go struct field \
                     Toleration.tolerationSeconds of type int64";
        assert_eq!(
            at(
                r#"[{"tolerationSeconds": null}, {"tolerationSeconds": 5}, {"tolerationSeconds": "60"}]"#,
                int64
            )
            .as_deref(),
            Some("\"60\"")
        );
        let string = "json: cannot unmarshal number into Go struct field Toleration.value of \
                      type string";
        assert_eq!(
            at(r#"[{"value": "a"}, {"value": null}, {"value": 1}]"#, string).as_deref(),
            Some("1")
        );
        let item = "json: cannot unmarshal string into Go value of type v1.Toleration";
        assert_eq!(
            at(r#"[null, {"key": "a"}, "b"]"#, item).as_deref(),
            Some("\"b\"")
        );
        // Nothing of the kind named: no place.
        assert_eq!(at(r#"[{"key": "a"}]"#, item), None);
        assert_eq!(at(r#"[{"value": "a"}]"#, string), None);
    }
}
