//! `null-value`: a field written as null (`~`, `null`, or nothing) is read as empty.

use super::{edits, Cx, Rule, RuleMeta};
use crate::diagnostic::{Applicability, Edit, Fix, Severity};
use crate::k8s::decode::Decoded;
use crate::k8s::objects::Item;

pub struct NullValue;

pub static META: RuleMeta = RuleMeta {
    name: "null-value",
    severity: Severity::Warning,
    needs_inventory: false,
    fixable: true,
    summary: "A field set to null (`~`, `null` or nothing), which reads as empty",
    why: "A null reads as an empty string (or no limit), which is rarely what was meant.",
    explanation: r#"## What it catches
A toleration or taint field whose value is null in YAML 1.1: `~`, `null`, `Null`, `NULL`, or
nothing at all after the colon.

## Why it matters
Unlike `yes` or `1234`, a null decodes: encoding/json leaves the Go field at its zero value, so
the API server reads `effect: ~` as an empty effect (every effect), `value: ~` as an empty value
and `tolerationSeconds: ~` as "forever". The manifest says less than it seems to, and a reader
may take `~` for a placeholder that was meant to be filled in. (Null is accepted upstream, so
this is a warning, not an error.)

## Example
```yaml
tolerations:
- key: dedicated
  operator: Exists
  effect: ~
```

## Fix
Write the value meant, or remove the field. The fix writes `""` (or removes a null
`tolerationSeconds`), which keeps the meaning exactly, and is safe.
"#,
};

impl Rule for NullValue {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_item(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        check(cx, item);
    }
}

fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>) {
    let Some(fields) = &item.fields else { return };
    for f in fields {
        if f.decoded != Decoded::Null
            || !matches!(
                f.name,
                "key" | "operator" | "value" | "effect" | "tolerationSeconds"
            )
        {
            continue;
        }
        let span = cx.span(f.value);
        let written = cx.text.get(span.clone()).unwrap_or_default();
        let shown = written;
        let (reads_as, edit) = if f.name == "tolerationSeconds" {
            let mapping = cx.item_mapping(item);
            (
                "no limit (the pod is never evicted)",
                edits::remove_entry(cx.text, cx.doc, mapping, f.key),
            )
        } else {
            let edit = if span.is_empty() {
                let at = cx.span(f.key).end;
                // `key:` with nothing after it: put the value after the colon.
                cx.text[at..].starts_with(':').then(|| Edit {
                    range: at + 1..at + 1,
                    replacement: " \"\"".to_string(),
                })
            } else {
                Some(Edit {
                    range: span,
                    replacement: "\"\"".to_string(),
                })
            };
            ("an empty string", edit)
        };
        let message = if written.is_empty() {
            format!(
                "`{}` has no value (null), which the API server reads as {reads_as}",
                f.name
            )
        } else {
            format!(
                "`{}` is null (`{shown}`), which the API server reads as {reads_as}",
                f.name
            )
        };
        let fix = edit.map(|edit| Fix {
            title: if f.name == "tolerationSeconds" {
                "Remove the null tolerationSeconds".to_string()
            } else {
                format!("Write `{}: \"\"`", f.name)
            },
            applicability: Applicability::Safe,
            edits: vec![edit],
        });
        let range = cx.value_range(f.value, f.key);
        cx.report(range, item.field_path(f.name), message)
            .with_fix(fix);
    }
}
