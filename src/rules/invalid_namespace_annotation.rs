//! `invalid-namespace-annotation`: a Namespace's PodTolerationRestriction annotation that is not
//! a JSON list of tolerations.

use super::{ObjectCx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::cluster::{
    namespace_annotation, read_annotation, value_offset, DEFAULT_TOLERATIONS, TOLERATIONS_WHITELIST,
};

pub struct InvalidNamespaceAnnotation;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-namespace-annotation",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A namespace's defaultTolerations or tolerationsWhitelist annotation that is not a JSON list of tolerations",
    why: "PodTolerationRestriction refuses every pod of the namespace while it does not decode.",
    explanation: r#"## What it catches
The Namespace annotations `scheduler.alpha.kubernetes.io/defaultTolerations` and
`scheduler.alpha.kubernetes.io/tolerationsWhitelist`, read by the PodTolerationRestriction
admission plugin (upstream plugin/pkg/admission/podtolerationrestriction/admission.go,
`extractNSTolerations`), when their value is not what the plugin decodes: JSON that does not
parse (the finding points at the character where it stops), a JSON value that is not a list of
objects, a field of the wrong type (`"tolerationSeconds": "60"`), or an operator or effect the
API does not know (the pods it is merged into would fail validation). An empty value is an empty
list; field names match case-insensitively and unknown fields are ignored, as Go's
`encoding/json` does.

## Why it matters
The Namespace itself is accepted (an annotation is any string), but once PodTolerationRestriction
is enabled every pod created in the namespace is refused with the decoding error:
`admission-rejected` reports each pod template of the namespace. The annotation only exists for
that plugin, so a broken one is reported whether or not the plugin is enabled here.

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
`'[{"key": "team", "operator": "Exists", "effect": "NoSchedule"}]'`.
"#,
};

impl Rule for InvalidNamespaceAnnotation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_object(&self, cx: &mut ObjectCx<'_, '_>) {
        if cx.object.kind != Some("Namespace") {
            return;
        }
        let namespace = cx.object.name.unwrap_or("");
        for annotation in [DEFAULT_TOLERATIONS, TOLERATIONS_WHITELIST] {
            let Some((key, value)) = namespace_annotation(cx.doc, cx.object.node, annotation)
            else {
                continue;
            };
            let Err(error) = read_annotation(cx.doc, value, "").tolerations else {
                continue;
            };
            let value_span = cx.span(value);
            let trimmed = cx.text[value_span.clone()].trim_end().len();
            let whole = if value_span.is_empty() {
                cx.span(key)
            } else {
                value_span.start..value_span.start + trimmed
            };
            // The character where the JSON stops parsing, when the scalar maps to the source.
            let range = error
                .offset
                .and_then(|o| value_offset(cx.doc, cx.text, value, o))
                .map_or(whole, |at| {
                    let len = cx.text[at..].chars().next().map_or(0, char::len_utf8);
                    at..at + len
                });
            let consequence = if cx.options.admission_enabled("PodTolerationRestriction") {
                format!("PodTolerationRestriction refuses every pod of {namespace}")
            } else {
                format!("with PodTolerationRestriction on, every pod of {namespace} is refused")
            };
            let short = annotation.rsplit('/').next().unwrap_or(annotation);
            let message = format!("{short} {}; {consequence}", plain(&error.message));
            let path = cx.path(&format!("metadata.annotations[{annotation}]"));
            let d = cx.report(range, path, message);
            // Go's own words for a type error; a syntax error is worded by another parser.
            if !error.message.starts_with("not JSON") {
                d.with_server_message(format!("{annotation}: {}", error.message));
            }
        }
    }
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
