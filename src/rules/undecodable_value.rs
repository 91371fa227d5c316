//! `undecodable-value`: a field whose YAML value the API server cannot decode into its Go type.

use super::{edits, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Fix, Severity};
use crate::k8s::decode::Decoded;
use crate::k8s::objects::{Item, Owner};
use crate::syntax::Style;

pub struct UndecodableValue;

pub static META: RuleMeta = RuleMeta {
    name: "undecodable-value",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: true,
    summary: "A value that is not a string (or not an integer) to the API server",
    why: "The API server rejects the whole object: the field does not decode as its type.",
    explanation: r#"## What it catches
A toleration or taint field whose YAML value does not decode into the field's type. kubectl reads
YAML with YAML 1.1 rules (go-yaml v2 under sigs.k8s.io/yaml), so an unquoted `yes`, `no`, `on`,
`off`, `y`, `n`, `true`, `1234`, `0x1F`, `0777` or `1e3` is a boolean or a number, not a string.
`tolerationSeconds` must be an integer: `3600` and `3600.0` decode, `"3600"` and `1.5` do not.
A list item that is not a mapping, or a `tolerations:` that is not a list, fails the same way.

## Why it matters
The API server rejects the whole object: `json: cannot unmarshal number into Go struct field
Toleration.spec.tolerations.value of type string`. YAML 1.2 tools (and many editors) call these
values strings, so the mistake survives review. A number that does not fit `tolerationSeconds`
is quoted with its value as JSON writes it (`cannot unmarshal number 1.5 into Go struct field
Toleration.spec.tolerations.tolerationSeconds of type int64`), as Go's encoding/json does for an
integer field (decode.go `literalStore`); a number in a string field is `number` alone.

## Example
```yaml
tolerations:
- key: example.com/legacy
  operator: Equal
  value: yes        # a boolean in YAML 1.1
  effect: NoSchedule
```

## Fix
Quote the value (`value: "yes"`); write `tolerationSeconds` as a plain integer. The quoting fix
needs review: check that the string is what you meant.
"#,
};

const TOLERATION_STRINGS: &[&str] = &["key", "operator", "value", "effect"];
const TAINT_STRINGS: &[&str] = &["key", "value", "effect", "timeAdded"];

impl Rule for UndecodableValue {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check_item(cx, item, "Toleration", TOLERATION_STRINGS);
        let Some(f) = item.field("tolerationSeconds") else {
            return;
        };
        if f.decoded.as_int64().is_ok() {
            return;
        }
        let raw = cx.text.get(cx.span(f.value)).unwrap_or_default();
        let message = match &f.decoded {
            Decoded::Str(s) if s.trim().parse::<i64>().is_ok() => format!(
                "tolerationSeconds {} is a string, not a number; write it without quotes",
                shown(s)
            ),
            Decoded::Str(s) => format!("tolerationSeconds {} is not a number of seconds", shown(s)),
            Decoded::Float(x) if x.is_finite() && x.fract() == 0.0 => format!(
                "tolerationSeconds {} does not fit a 64-bit integer",
                shown(raw)
            ),
            Decoded::Float(_) => format!(
                "tolerationSeconds {} is not a whole number of seconds",
                shown(raw)
            ),
            Decoded::Int(_) => format!(
                "tolerationSeconds {} does not fit a 64-bit integer",
                shown(raw)
            ),
            other => format!(
                "tolerationSeconds is a {}, not a number of seconds",
                other.yaml_type()
            ),
        };
        // encoding/json (decode.go `literalStore`) names a number that does not fit an integer
        // field with its literal: `number 1.5`; other values by their JSON type alone.
        let found = match f.decoded.json_number() {
            Some(literal) => format!("number {literal}"),
            None => go_type_of(&f.decoded).to_string(),
        };
        let server = format!(
            "json: cannot unmarshal {found} into Go struct field Toleration.{} of type int64",
            go_field_path(&cx.object_path(&item.field_path("tolerationSeconds"))),
        );
        let range = cx.value_range(f.value, f.key);
        let fix = match (&f.decoded, cx.doc.scalar(f.value)) {
            (Decoded::Str(s), Some((_, Style::DoubleQuoted | Style::SingleQuoted)))
                if s.parse::<i64>().is_ok_and(|n| n.to_string() == *s) =>
            {
                Some(Fix {
                    title: format!("Write tolerationSeconds as the integer {s}"),
                    applicability: Applicability::NeedsReview,
                    edits: vec![crate::diagnostic::Edit {
                        range: cx.span(f.value),
                        replacement: s.to_string(),
                    }],
                })
            }
            _ => None,
        };
        cx.report(range, item.field_path("tolerationSeconds"), message)
            .with_server_message(server)
            .with_fix(fix);
    }

    fn check_toleration_list(&self, cx: &mut Cx<'_, '_>, _items: &[Item<'_>]) {
        if cx.owner != Some(Owner::Other) {
            check_list(cx, "[]v1.Toleration");
        }
    }

    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check_item(cx, item, "Taint", TAINT_STRINGS);
    }

    fn check_taint_list(&self, cx: &mut Cx<'_, '_>, _items: &[Item<'_>]) {
        check_list(cx, "[]v1.Taint");
    }
}

/// The JSON type name in Go's "cannot unmarshal" message.
fn go_type_of(d: &Decoded<'_>) -> &'static str {
    d.json_type()
}

/// Go names a struct field by its JSON path without list indices.
fn go_field_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn check_item(cx: &mut Cx<'_, '_>, item: &Item<'_>, go_type: &str, strings: &[&str]) {
    let Some(fields) = &item.fields else {
        let found = crate::k8s::decode::decode(cx.doc, item.node);
        let server = format!(
            "json: cannot unmarshal {} into Go struct field {}.{} of type v1.{go_type}",
            found.json_type(),
            parent_type(cx),
            go_field_path(&cx.object_path(&cx.list.path)),
        );
        let message = format!(
            "this {} is a {}, not a mapping of fields",
            go_type.to_ascii_lowercase(),
            found.yaml_type()
        );
        let range = cx.span(item.node);
        cx.report(range, item.path.clone(), message)
            .with_server_message(server);
        return;
    };
    for f in fields {
        if !strings.contains(&f.name) || matches!(f.decoded, Decoded::Str(_) | Decoded::Null) {
            continue;
        }
        let raw = cx.text.get(cx.span(f.value)).unwrap_or_default();
        let ty = f.decoded.yaml_type();
        let message = match f.decoded {
            Decoded::Mapping | Decoded::Sequence => {
                format!("`{}` is a {ty}, not a string", f.name)
            }
            _ => {
                let article = if ty.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                format!(
                    "`{}: {raw}` is {article} {ty} in YAML 1.1, not a string; quote it",
                    f.name
                )
            }
        };
        let server = format!(
            "json: cannot unmarshal {} into Go struct field {go_type}.{} of type string",
            f.decoded.json_type(),
            go_field_path(&cx.object_path(&item.field_path(f.name))),
        );
        let fix = match f.decoded {
            Decoded::Mapping | Decoded::Sequence => None,
            _ => edits::quote_scalar(cx.text, cx.doc, f.value).map(|edit| Fix {
                title: format!("Quote {raw} so it is the string \"{raw}\""),
                applicability: Applicability::NeedsReview,
                edits: vec![edit],
            }),
        };
        let range = cx.span(f.value);
        cx.report(range, item.field_path(f.name), message)
            .with_server_message(server)
            .with_fix(fix);
    }
}

fn parent_type(cx: &Cx<'_, '_>) -> &'static str {
    match (cx.owner, cx.kind()) {
        (Some(Owner::RuntimeClass), _) => "Scheduling",
        (None, _) => "NodeSpec",
        _ => "PodSpec",
    }
}

fn check_list(cx: &mut Cx<'_, '_>, go_type: &str) {
    let found = crate::k8s::decode::decode(cx.doc, cx.list.node);
    if matches!(found, Decoded::Sequence | Decoded::Null) {
        return;
    }
    let server = format!(
        "json: cannot unmarshal {} into Go struct field {}.{} of type {go_type}",
        found.json_type(),
        parent_type(cx),
        go_field_path(&cx.object_path(&cx.list.path)),
    );
    let what = if go_type.contains("Taint") {
        "taints"
    } else {
        "tolerations"
    };
    let message = format!("`{what}` is a {}, not a list", found.yaml_type());
    let range = cx.value_range(cx.list.node, cx.list.key);
    let path = cx.list.path.clone();
    cx.report(range, path, message).with_server_message(server);
}
