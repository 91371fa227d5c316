//! `invalid-key`: a toleration or taint key that is not a qualified name.

use super::{go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::names::{is_qualified_name, qualified_name_error_problem};
use crate::k8s::objects::Item;

pub struct InvalidKey;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-key",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A toleration or taint key that is not a valid qualified name",
    why: "The API server rejects the object.",
    explanation: r#"## What it catches
A key that is not a qualified name, checked as the API server checks it (`ValidateLabelName`,
apimachinery `IsQualifiedName`): an optional prefix that is a lowercase DNS-1123 subdomain of at
most 253 bytes followed by `/`, then a name of at most 63 bytes matching
`([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. At most one `/`. The message says what is wrong in
plain words; the API server's own wording is the finding's server message. Since Kubernetes
v1.35 that wording counts lengths in "bytes", not "characters" (the checks moved to
`k8s.io/apimachinery/pkg/api/validate/content`, apimachinery commit da7b67ed, 2025-08-20), which
is what they always counted.

A key with several problems (a prefix that is not a DNS name and a name with a space) gets one
finding per problem: the API server makes one field error per message of `IsQualifiedName`
(`ValidateLabelName`, k8s.io/apimachinery/pkg/apis/meta/v1/validation), and kubectl lists each.

## Why it matters
The API server rejects the object: `spec.tolerations[0].key: Invalid value: "gpu type": name part
must consist of alphanumeric characters, ...`.

## Example
```yaml
tolerations:
- key: "Example.com/gpu type"
  operator: Exists
```

## Fix
Use the exact key the node's taint has (`kubectl describe node` lists them): lowercase prefix,
no spaces.
"#,
};

impl Rule for InvalidKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_item(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        // An empty taint key is `taint-missing-field`.
        check(cx, item);
    }
}

/// One finding per field error, as the API server makes them: `ValidateLabelName`
/// (k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go) appends one `field.Invalid`
/// per message of `IsQualifiedName`, for a toleration's key (`ValidateTolerations`) and a
/// taint's (`validateNodeTaints`) alike, and kubectl prints each as an error of its own.
fn check(cx: &mut Cx<'_, '_>, item: &Item<'_>) {
    let Some(key) = item.text("key") else { return };
    if key.is_empty() {
        return;
    }
    let errors = is_qualified_name(key);
    if errors.is_empty() {
        return;
    }
    let path = item.field_path("key");
    let api = cx.api_path(&path);
    let range = cx.field_range(item, "key");
    for error in &errors {
        let server = format!("{api}: Invalid value: {}: {error}", go_quote(key));
        let message = format!(
            "key {} {}",
            shown(key),
            qualified_name_error_problem(key, error)
        );
        cx.report(range.clone(), path.clone(), message)
            .with_server_message(server);
    }
}

#[cfg(test)]
mod tests {
    use crate::{analyse, Options};

    fn key_errors(key: &str) -> Vec<(String, Option<String>)> {
        let text = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  tolerations:\n  - {{key: {}, operator: Exists}}\n",
            serde_json::to_string(key).unwrap()
        );
        analyse(&text, &Options::default())
            .into_iter()
            .filter(|d| d.rule == "invalid-key")
            .map(|d| (d.message, d.server_message))
            .collect()
    }

    /// A key with a bad prefix and a bad name is two field errors upstream, so two findings.
    #[test]
    fn one_finding_per_field_error() {
        let found = key_errors("Example.com/gpu type");
        assert_eq!(found.len(), 2, "{found:#?}");
        assert_eq!(
            found[0].1.as_deref(),
            Some(
                "spec.tolerations[0].key: Invalid value: \"Example.com/gpu type\": prefix part a \
                 lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \
                 '-' or '.', and must start and end with an alphanumeric character (e.g. \
                 'example.com', regex used for validation is \
                 '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            )
        );
        assert_eq!(
            found[1].1.as_deref(),
            Some(
                "spec.tolerations[0].key: Invalid value: \"Example.com/gpu type\": name part must \
                 consist of alphanumeric characters, '-', '_' or '.', and must start and end with \
                 an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex \
                 used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            )
        );
        assert_eq!(
            found[0].0,
            "key `Example.com/gpu type` has a prefix that is not a lowercase DNS name (like `example.com`)"
        );
        assert_eq!(
            found[1].0,
            "key `Example.com/gpu type` is invalid: the name after `/` contains a space, which is not allowed"
        );
        // A name both too long and with a bad character: two errors as well.
        let long = format!("{}!", "a".repeat(70));
        let found = key_errors(&long);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0]
            .1
            .as_deref()
            .unwrap()
            .ends_with("name part must be no more than 63 bytes"));
        assert_eq!(
            found[0].0,
            format!(
                "key `{}…` is invalid: it is 71 bytes long (at most 63)",
                "a".repeat(39)
            )
        );
        assert!(
            found[1]
                .0
                .ends_with("is invalid: it contains `!`, which is not allowed"),
            "{}",
            found[1].0
        );
        // One problem, one finding.
        assert_eq!(key_errors("a/b/c").len(), 1);
    }
}
