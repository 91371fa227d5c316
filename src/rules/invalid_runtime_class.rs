//! `invalid-runtime-class`: a RuntimeClass the API server refuses for what the toleration rules
//! do not check (its name, handler, overhead, node selector, and duplicate tolerations).

use super::{go_quote, shown, ObjectCx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::names::{is_dns1123_label, is_dns1123_subdomain, is_qualified_name};
use crate::k8s::names::{
    is_valid_label_value, label_value_error_problem, qualified_name_error_problem,
};
use crate::k8s::objects::{is_operator_placeholder, items, Owner};
use crate::k8s::quantity;
use crate::syntax::NodeId;

pub struct InvalidRuntimeClass;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-runtime-class",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "A RuntimeClass the API server refuses: its handler, overhead, node selector or a repeated toleration",
    why: "The API server rejects the RuntimeClass, and pods that name it are then refused.",
    explanation: r#"## What it catches
What `ValidateRuntimeClass` (upstream pkg/apis/node/validation/validation.go) refuses beyond
the toleration rules, which check `scheduling.tolerations` as they check a pod's:

- `metadata.name` that is not a DNS-1123 subdomain;
- `handler` that is not a DNS-1123 label (lowercase letters, digits and `-`, at most 63 bytes,
  no dots); an omitted handler is the empty string, which is refused too;
- `overhead.podFixed` entries as a container's limits are checked
  (`ValidateContainerResourceRequirements` in pkg/apis/core/validation/validation.go): a resource
  name that is a qualified name and, without a prefix, one of `cpu`, `memory`,
  `ephemeral-storage`, `hugepages-*`, or with a prefix an extended resource name; a quantity
  that parses (k8s.io/apimachinery/pkg/api/resource quantity.go), is not negative, and is a
  whole number for an extended resource; and `hugepages-*` only beside `cpu` or `memory`
  ("HugePages require cpu or memory"); a `hugepages-<size>` quantity is a whole number of pages
  of that size (`IsHugePageResourceValueDivisible` in pkg/apis/core/helper/helpers.go: the
  quantity rounded up to whole bytes; zero passes, whatever the message's "positive" says, and
  a size that does not parse divides nothing). The API server's messages name these fields
  `overhead.limits[...]`: it validates `podFixed` as a container's limits (`validateOverhead`),
  and prints quantities in their canonical form (`1.5Gi` as `1536Mi`);
- `scheduling.nodeSelector` labels (`ValidateLabels`: qualified-name keys, label values);
- two `scheduling.tolerations` with the same key, operator, value and effect. This is where a
  RuntimeClass differs from a pod: a pod may repeat a toleration (`duplicate-toleration` is
  advice there), a RuntimeClass may not (`validateTolerations` keeps a set of list keys:
  `Duplicate value`). The operator is compared as written: an omitted operator is not
  `Equal` here, and `tolerationSeconds` is not part of the key.

A name or handler that is an operator's placeholder, `FILLED_BY_OPERATOR` or another
`FILLED_BY_<WHO>` in capitals, is not checked: the API server would refuse it (capitals and `_`
are not in a DNS-1123 label), but the file is an operator's asset that is never applied as
written. NVIDIA's gpu-operator ships `assets/pre-requisites/0200_runtime_class.yaml` so, and
writes its ClusterPolicy's runtime class over both before it creates the RuntimeClass
(`transformRuntimeClass`, controllers/object_controls.go of NVIDIA/gpu-operator). The rest of
such a RuntimeClass (overhead, node selector, tolerations) is applied as written and checked.

## Why it matters
`kubectl apply` fails with `RuntimeClass.node.k8s.io "gvisor" is invalid: ...`. Until the
class exists, the RuntimeClass admission plugin refuses every pod that names it.

## Example
```yaml
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: gVisor.runsc          # not a DNS-1123 label
scheduling:
  tolerations:
  - {key: sandbox, operator: Exists, effect: NoSchedule}
  - {key: sandbox, operator: Exists, effect: NoSchedule, tolerationSeconds: 60}   # duplicate
```

## Fix
Write the handler as the container runtime's configuration names it (`runsc`, `kata-qemu`),
keep one toleration per key, operator, value and effect, and give `overhead.podFixed` standard
resource names with non-negative quantities (for `hugepages-<size>`, whole pages).
"#,
};

impl Rule for InvalidRuntimeClass {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_object(&self, cx: &mut ObjectCx<'_, '_>) {
        if cx.object.kind != Some("RuntimeClass") {
            return;
        }
        let node = cx.object.node;
        check_name(cx, node);
        check_handler(cx, node);
        check_overhead(cx, node);
        check_node_selector(cx, node);
        check_duplicates(cx);
    }
}

/// A value's range, or its key's when the value is empty (`handler:` with nothing after it).
fn value_range(cx: &ObjectCx<'_, '_>, key: NodeId, value: NodeId) -> std::ops::Range<usize> {
    let span = cx.span(value);
    if span.is_empty() {
        cx.span(key)
    } else {
        span
    }
}

fn check_name(cx: &mut ObjectCx<'_, '_>, node: NodeId) {
    let doc = cx.doc;
    let Some((_, metadata)) = doc.get(node, "metadata") else {
        return;
    };
    let Some((key, value)) = doc.get(metadata, "name") else {
        return;
    };
    let Decoded::Str(name) = decode(doc, value) else {
        return;
    };
    if is_operator_placeholder(name) {
        return;
    }
    let errors = is_dns1123_subdomain(name);
    if errors.is_empty() {
        return;
    }
    let message = format!(
        "RuntimeClass name {} is not a DNS-1123 subdomain (lowercase letters, digits, `-` and `.`)",
        shown(name)
    );
    let range = value_range(cx, key, value);
    let path = cx.path("metadata.name");
    // `ValidateObjectMeta` makes one field error per message of the name check.
    for error in errors {
        let server = format!("metadata.name: Invalid value: {}: {error}", go_quote(name));
        cx.report(range.clone(), path.clone(), message.clone())
            .with_server_message(server);
    }
}

fn check_handler(cx: &mut ObjectCx<'_, '_>, node: NodeId) {
    let doc = cx.doc;
    let (range, handler) = match doc.get(node, "handler") {
        Some((key, value)) => match decode(doc, value) {
            Decoded::Str(s) => (value_range(cx, key, value), s),
            Decoded::Null => (cx.span(key), ""),
            other => {
                let message = format!(
                    "handler must be a string, not a {} (quote it)",
                    other.yaml_type()
                );
                let range = value_range(cx, key, value);
                let path = cx.path("handler");
                cx.report(range, path, message).with_server_message(format!(
                    "json: cannot unmarshal {} into Go struct field RuntimeClass.handler of type string",
                    other.json_type()
                ));
                return;
            }
        },
        None => {
            // No handler at all: point at the kind, which says what the object is.
            let at = doc
                .get(node, "kind")
                .map_or(cx.span(node), |(k, _)| cx.span(k));
            (at, "")
        }
    };
    if is_operator_placeholder(handler) {
        return;
    }
    let errors = is_dns1123_label(handler);
    if errors.is_empty() {
        return;
    }
    let message = if handler.is_empty() {
        "a RuntimeClass needs a handler (the CRI runtime's name, a DNS-1123 label)".to_string()
    } else if errors.iter().any(|e| e == "must not contain dots") {
        format!(
            "handler {} must not contain dots (a DNS-1123 label)",
            shown(handler)
        )
    } else {
        format!(
            "handler {} is not a DNS-1123 label (lowercase letters, digits and `-`, at most 63)",
            shown(handler)
        )
    };
    let path = cx.path("handler");
    // `ValidateRuntimeClass` makes one field error per message of `NameIsDNSLabel`.
    for error in &errors {
        let server = format!("handler: Invalid value: {}: {error}", go_quote(handler));
        cx.report(range.clone(), path.clone(), message.clone())
            .with_server_message(server);
    }
}

/// Upstream `IsStandardContainerResourceName` (pkg/apis/core/helper/helpers.go).
fn is_standard_container_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || name.starts_with("hugepages-")
}

/// Upstream `IsNativeResource`: no prefix, or a `kubernetes.io/` one.
fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// Upstream `IsExtendedResourceName`: not native, not `requests.`, and `requests.<name>` is a
/// qualified name (what a quota on it is called).
fn is_extended_resource(name: &str) -> bool {
    !is_native_resource(name)
        && !name.starts_with("requests.")
        && is_qualified_name(&format!("requests.{name}")).is_empty()
}

/// `overhead.podFixed` as `validateOverhead` checks it, as a container's limits: each entry's
/// name, then its quantity; then the list as a whole (hugepages only beside cpu or memory).
fn check_overhead(cx: &mut ObjectCx<'_, '_>, node: NodeId) {
    let doc = cx.doc;
    let Some((_, overhead)) = doc.get(node, "overhead") else {
        return;
    };
    let Some((pod_fixed_key, pod_fixed)) = doc.get(overhead, "podFixed") else {
        return;
    };
    let entries = doc.merged_entries(pod_fixed);
    let (mut hugepages, mut cpu_or_memory) = (false, false);
    for (k, v) in entries {
        let Some((name, _)) = doc.scalar(k) else {
            continue;
        };
        hugepages |= name.starts_with("hugepages-");
        cpu_or_memory |= name == "cpu" || name == "memory";
        let path = cx.path(&format!("overhead.podFixed[{name}]"));
        // The API server validates podFixed as a container's limits, and names it so.
        let api = format!("overhead.limits[{name}]");
        check_overhead_name(cx, k, name, &path, &api);
        let Some(text) = overhead_quantity_text(cx, (k, v), name, &path) else {
            continue;
        };
        let range = value_range(cx, k, v);
        check_overhead_quantity(cx, range, name, text, (&path, &api));
    }
    // As a container's limits: hugepages only beside cpu or memory.
    if hugepages && !cpu_or_memory {
        let range = cx.span(pod_fixed_key);
        let path = cx.path("overhead.podFixed");
        cx.report(
            range,
            path,
            "overhead asks for hugepages without cpu or memory, which the API server requires \
             beside them"
                .to_string(),
        )
        .with_server_message("overhead: Forbidden: HugePages require cpu or memory".to_string());
    }
}

/// `overhead.podFixed`'s resource name, as a container's limits are checked: a qualified name
/// and, without a prefix, a standard container resource (`IsStandardContainerResourceName`),
/// with one, a native or an extended resource (`IsExtendedResourceName`).
fn check_overhead_name(cx: &mut ObjectCx<'_, '_>, k: NodeId, name: &str, path: &str, api: &str) {
    let mut name_errors: Vec<String> = is_qualified_name(name);
    if name_errors.is_empty() {
        if !name.contains('/') {
            if !is_standard_container_resource(name) {
                name_errors.push("must be a standard resource for containers".to_string());
            }
        } else if !is_native_resource(name) && !is_extended_resource(name) {
            name_errors.push("doesn't follow extended resource name standard".to_string());
        }
    }
    if !name_errors.is_empty() {
        let server = format!(
            "{api}: Invalid value: {}: {}",
            go_quote(name),
            name_errors.join("; ")
        );
        let message = if name.contains('/') || !is_qualified_name(name).is_empty() {
            format!(
                "overhead resource {} is not a valid resource name",
                shown(name)
            )
        } else {
            format!(
                "overhead resource {} is not one a pod can use: cpu, memory, \
                 ephemeral-storage, hugepages-<size>, or a prefixed extended resource",
                shown(name)
            )
        };
        let range = cx.span(k);
        cx.report(range, path.to_string(), message)
            .with_server_message(server);
    }
}

/// The quantity's text: a string or a number (a float as written); anything else is reported
/// as Go's JSON decoding refuses it, and `None`.
fn overhead_quantity_text(
    cx: &mut ObjectCx<'_, '_>,
    (k, v): (NodeId, NodeId),
    name: &str,
    path: &str,
) -> Option<String> {
    let doc = cx.doc;
    let text = match decode(doc, v) {
        Decoded::Str(s) => s.to_string(),
        Decoded::Int(i) => i.to_string(),
        Decoded::Float(_) => doc.scalar(v).map_or(String::new(), |(s, _)| s.to_string()),
        other => {
            let range = value_range(cx, k, v);
            cx.report(
                range,
                path.to_string(),
                format!(
                    "overhead {name} must be a quantity, not a {}",
                    other.yaml_type()
                ),
            )
            .with_server_message(format!(
                "json: cannot unmarshal {} into Go value of type resource.Quantity",
                other.json_type()
            ));
            return None;
        }
    };
    Some(text)
}

/// The quantity: one that parses, is not negative, is a whole number for an extended
/// resource, and a whole number of pages for `hugepages-<size>`. The server prints it back in
/// canonical form.
fn check_overhead_quantity(
    cx: &mut ObjectCx<'_, '_>,
    range: std::ops::Range<usize>,
    name: &str,
    text: String,
    (path, api): (&str, &str),
) {
    match quantity::parse(&text) {
        Err(e) => {
            cx.report(
                range,
                path.to_string(),
                format!(
                    "overhead {name} {} is not a quantity (such as `250m` or `64Mi`)",
                    shown(&text)
                ),
            )
            .with_server_message(e.to_string());
        }
        Ok(q) if q.negative => {
            cx.report(
                range,
                path.to_string(),
                format!("overhead {name} {} is negative", shown(&text)),
            )
            .with_server_message(format!(
                "{api}: Invalid value: {}: must be greater than or equal to 0",
                go_quote(&q.canonical().unwrap_or_else(|| text.clone()))
            ));
        }
        Ok(q) if is_extended_resource(name) && q.is_integer() == Some(false) => {
            cx.report(
                range,
                path.to_string(),
                format!(
                    "overhead {name} {} must be a whole number (an extended resource)",
                    shown(&text)
                ),
            )
            .with_server_message(format!(
                "{api}: Invalid value: {}: must be an integer",
                go_quote(&q.canonical().unwrap_or_else(|| text.clone()))
            ));
        }
        Ok(q) => {
            if let Some(size) = name.strip_prefix("hugepages-") {
                if !whole_pages(size, &q) {
                    let printed = q.canonical().unwrap_or_else(|| text.clone());
                    let message = if page_size(size).is_some() {
                        format!(
                            "overhead {name} {} is not a whole number of {size} pages",
                            shown(&text)
                        )
                    } else {
                        format!(
                            "overhead {name} names no page size the API server reads \
                             ({}), so it refuses any quantity",
                            shown(size)
                        )
                    };
                    cx.report(range, path.to_string(), message)
                        .with_server_message(format!(
                            "{api}: Invalid value: {}: {printed} is not positive integer \
                         multiple of {name}",
                            go_quote(&printed)
                        ));
                }
            }
        }
    }
}

/// A hugepages resource's page size in bytes: the quantity after `hugepages-`, when it parses
/// and is a positive whole number (`HugePageSizeFromResourceName` and the first checks of
/// `IsHugePageResourceValueDivisible`, pkg/apis/core/helper/helpers.go).
fn page_size(size: &str) -> Option<u128> {
    let page = quantity::parse(size).ok()?;
    if page.negative || page.is_zero() || page.is_integer() != Some(true) {
        return None;
    }
    page.value()
}

/// `IsHugePageResourceValueDivisible`: whether a quantity is a whole number of pages of `size`
/// (its `Value()`, rounded up, divides evenly). A quantity too large to tell is let through.
fn whole_pages(size: &str, q: &quantity::Quantity) -> bool {
    match (page_size(size), q.value()) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(page), Some(value)) => value % page == 0,
    }
}

fn check_node_selector(cx: &mut ObjectCx<'_, '_>, node: NodeId) {
    let doc = cx.doc;
    let Some((_, scheduling)) = doc.get(node, "scheduling") else {
        return;
    };
    let Some((_, selector)) = doc.get(scheduling, "nodeSelector") else {
        return;
    };
    for (k, v) in doc.merged_entries(selector) {
        let Some((key, _)) = doc.scalar(k) else {
            continue;
        };
        let api = "scheduling.nodeSelector";
        let path = cx.path(&format!("{api}.{key}"));
        // `ValidateLabels` makes one field error per message, for a key (`ValidateLabelName`)
        // as for a value, so each is a finding of its own.
        for error in is_qualified_name(key) {
            let server = format!("{api}: Invalid value: {}: {error}", go_quote(key));
            let problem = qualified_name_error_problem(key, &error);
            let range = cx.span(k);
            cx.report(
                range,
                path.clone(),
                format!("nodeSelector label {} {problem}", shown(key)),
            )
            .with_server_message(server);
        }
        let value = match decode(doc, v) {
            Decoded::Str(s) => s,
            Decoded::Null => "",
            other => {
                let range = value_range(cx, k, v);
                cx.report(
                    range,
                    path.clone(),
                    format!(
                        "nodeSelector label {key} must be a string, not a {} (quote it)",
                        other.yaml_type()
                    ),
                )
                .with_server_message(format!(
                    "json: cannot unmarshal {} into Go struct field Scheduling.scheduling.nodeSelector of type string",
                    other.json_type()
                ));
                continue;
            }
        };
        for error in is_valid_label_value(value) {
            let server = format!("{api}: Invalid value: {}: {error}", go_quote(value));
            let problem = label_value_error_problem(value, &error);
            let range = value_range(cx, k, v);
            cx.report(
                range,
                path.clone(),
                format!("nodeSelector value {} {problem}", shown(value)),
            )
            .with_server_message(server);
        }
    }
}

/// `validateTolerations`' uniqueness: the list key is key, operator, value and effect, as
/// written (no defaulting: an omitted operator is its own value).
fn check_duplicates(cx: &mut ObjectCx<'_, '_>) {
    let doc = cx.doc;
    let index = cx
        .extracted
        .objects
        .iter()
        .position(|o| o.node == cx.object.node);
    let lists: Vec<_> = cx
        .extracted
        .tolerations
        .iter()
        .filter(|l| l.owner == Owner::RuntimeClass && l.list.object == index)
        .map(|l| l.list.clone())
        .collect();
    for list in lists {
        let items = items(doc, &list);
        let mut seen: Vec<(usize, [&str; 4])> = Vec::new();
        for item in &items {
            if !item.decodes() {
                continue;
            }
            let list_key = [
                item.str("key"),
                item.str("operator"),
                item.str("value"),
                item.str("effect"),
            ];
            if let Some(&(first, _)) = seen.iter().find(|(_, k)| *k == list_key) {
                let api = item
                    .path
                    .strip_prefix(&format!("{}.", cx.object.path))
                    .unwrap_or(&item.path);
                let server = format!("{api}: Duplicate value: {}", go_struct(&list_key, item));
                let at = doc
                    .mapping(item.node)
                    .and_then(|e| e.first())
                    .map_or(cx.span(item.node), |&(k, _)| cx.span(k));
                let related = doc
                    .mapping(items[first].node)
                    .and_then(|e| e.first())
                    .map_or(cx.span(items[first].node), |&(k, _)| cx.span(k));
                let message = format!(
                    "duplicate of tolerations[{first}]: a RuntimeClass may not repeat a toleration's \
                     key, operator, value and effect"
                );
                cx.report(at, item.path.clone(), message)
                    .with_server_message(server)
                    .with_related(related, "first occurrence".to_string());
            } else {
                seen.push((item.index, list_key));
            }
        }
    }
}

/// A toleration as Go's `%v` of `core.Toleration` prints it in a `Duplicate value` message.
fn go_struct(list_key: &[&str; 4], item: &crate::k8s::objects::Item<'_>) -> String {
    let seconds = item
        .field("tolerationSeconds")
        .and_then(|f| f.decoded.as_int64().ok().flatten());
    // `%#v` prints the pointer's address, which no manifest can know.
    let seconds = match seconds {
        Some(_) => "(*int64)(0x…)",
        None => "(*int64)(nil)",
    };
    format!(
        "core.Toleration{{Key:{}, Operator:{}, Value:{}, Effect:{}, TolerationSeconds:{seconds}}}",
        go_quote(list_key[0]),
        go_quote(list_key[1]),
        go_quote(list_key[2]),
        go_quote(list_key[3]),
    )
}

#[cfg(test)]
mod tests {
    use crate::config::Options;

    /// The API paths of this rule's findings for a RuntimeClass with `body` under its name.
    fn errors(name: &str, body: &str) -> Vec<String> {
        let text = format!(
            "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: {name}\n{body}"
        );
        crate::analysis::analyse(&text, &Options::default())
            .into_iter()
            .filter(|d| d.severity == crate::Severity::Error)
            .map(|d| d.server_message.unwrap_or(d.message))
            .collect()
    }

    /// The words a person reads: the messages of this rule's findings, in order.
    fn messages(name: &str, body: &str) -> Vec<String> {
        let text = format!(
            "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: {name}\n{body}"
        );
        crate::analysis::analyse(&text, &Options::default())
            .into_iter()
            .filter(|d| d.rule == "invalid-runtime-class")
            .map(|d| d.message)
            .collect()
    }

    /// Upstream TestValidateRuntimeClass (pkg/apis/node/validation/validation_test.go).
    #[test]
    fn validate_runtime_class() {
        let cases: &[(&str, &str, &str, bool)] = &[
            ("invalid name", "'&!@#'", "handler: foo\n", true),
            ("invalid Handler name", "foo", "handler: '&@#$'\n", true),
            ("invalid empty RuntimeClass", "empty", "", true),
            ("valid Handler", "foo", "handler: bar-baz\n", false),
        ];
        for (case, name, body, expect_error) in cases {
            let errs = errors(name, body);
            assert_eq!(!errs.is_empty(), *expect_error, "{case}: {errs:?}");
        }
    }

    /// An operator's asset keeps `FILLED_BY_OPERATOR` where the operator writes the name and
    /// handler (after NVIDIA/gpu-operator assets/state-kata-manager/0700_runtime_class.yaml):
    /// neither is checked, what it writes as is still is, and a handler in capitals that is not
    /// such a placeholder is still refused.
    #[test]
    fn operator_placeholders_are_not_checked() {
        let asset = "handler: \"FILLED_BY_OPERATOR\"\nscheduling:\n  nodeSelector:\n    \
                     nvidia.com/gpu.deploy.kata-manager: \"true\"\n";
        assert_eq!(
            errors("\"FILLED_BY_OPERATOR\"", asset),
            Vec::<String>::new()
        );
        let bad_selector = "handler: FILLED_BY_OPERATOR\nscheduling:\n  nodeSelector:\n    \
                            nvidia.com/gpu.deploy.kata-manager: \"not a value\"\n";
        assert_eq!(errors("FILLED_BY_OPERATOR", bad_selector).len(), 1);
        for (name, handler) in [
            ("kata", "NVIDIA"),
            ("kata", "FILLED_BY_"),
            ("kata", "FILLED_BY_operator"),
            ("FILLED-BY-OPERATOR", "kata"),
        ] {
            let errs = errors(name, &format!("handler: {handler}\n"));
            assert!(!errs.is_empty(), "{name} {handler}");
        }
    }

    /// Upstream TestValidateOverhead.
    #[test]
    fn validate_overhead() {
        let ok = errors(
            "foo",
            "handler: bar\noverhead:\n  podFixed:\n    cpu: \"10\"\n    memory: 10G\n",
        );
        assert!(ok.is_empty(), "{ok:?}");
        let bad = errors(
            "foo",
            "handler: bar\noverhead:\n  podFixed:\n    my.org: 10m\n",
        );
        assert_eq!(
            bad,
            vec!["overhead.limits[my.org]: Invalid value: \"my.org\": must be a standard resource for containers"]
        );
        // ValidateContainerResourceRequirements' cross-field check, limits only.
        let huge = errors(
            "foo",
            "handler: bar\noverhead:\n  podFixed:\n    hugepages-2Mi: 4Mi\n",
        );
        assert_eq!(
            huge,
            vec!["overhead: Forbidden: HugePages require cpu or memory"]
        );
        let with_memory = errors(
            "foo",
            "handler: bar\noverhead:\n  podFixed:\n    hugepages-2Mi: 4Mi\n    memory: 1Gi\n",
        );
        assert!(with_memory.is_empty(), "{with_memory:?}");
        // validateResourceQuantityHugePageValue: whole pages, printed as the server prints them.
        let pages = |quantity: &str, name: &str| {
            errors(
                "foo",
                &format!("handler: bar\noverhead:\n  podFixed:\n    memory: 1Gi\n    {name}: {quantity}\n"),
            )
        };
        assert_eq!(
            pages("3Mi", "hugepages-2Mi"),
            vec!["overhead.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi"]
        );
        assert_eq!(
            pages("1.5Gi", "hugepages-1Gi"),
            vec!["overhead.limits[hugepages-1Gi]: Invalid value: \"1536Mi\": 1536Mi is not positive integer multiple of hugepages-1Gi"]
        );
        assert_eq!(
            pages("1Gi", "hugepages-foo"),
            vec!["overhead.limits[hugepages-foo]: Invalid value: \"1Gi\": 1Gi is not positive integer multiple of hugepages-foo"]
        );
        // The server prints every quantity back in canonical form (field.Invalid's JSON of it).
        assert_eq!(
            errors("foo", "handler: bar\noverhead:\n  podFixed:\n    memory: -1.5Gi\n"),
            vec!["overhead.limits[memory]: Invalid value: \"-1536Mi\": must be greater than or equal to 0"]
        );
        assert_eq!(
            errors(
                "foo",
                "handler: bar\noverhead:\n  podFixed:\n    example.com/gpu: \"0.5\"\n"
            ),
            vec!["overhead.limits[example.com/gpu]: Invalid value: \"500m\": must be an integer"]
        );
        for whole in ["0", "4Mi", "4194304", "\"2Mi\"", "0.5Gi"] {
            let errs = pages(whole, "hugepages-2Mi");
            assert!(errs.is_empty(), "{whole}: {errs:?}");
        }
    }

    /// Upstream TestValidateScheduling, and validateTolerations' uniqueness.
    #[test]
    fn validate_scheduling() {
        let valid = "{key: valid, operator: Exists, effect: NoSchedule}";
        let bad_key = "{key: \"not a valid key!!!\", operator: Exists, effect: NoSchedule}";
        let cases: Vec<(&str, String, usize)> = vec![
            (
                "valid scheduling",
                format!("scheduling:\n  nodeSelector: {{valid: \"yes\"}}\n  tolerations: [{valid}]\n"),
                0,
            ),
            ("empty scheduling", "scheduling: {}\n".into(), 0),
            (
                "invalid nodeSelector",
                "scheduling:\n  nodeSelector: {\"not a valid key!!!\": nope}\n".into(),
                1,
            ),
            (
                "invalid toleration",
                format!("scheduling:\n  tolerations: [{valid}, {bad_key}]\n"),
                1,
            ),
            (
                "invalid scheduling",
                format!(
                    "scheduling:\n  nodeSelector: {{\"not a valid key!!!\": nope}}\n  tolerations: [{valid}, {bad_key}]\n"
                ),
                2,
            ),
            (
                "duplicate toleration, seconds aside",
                "scheduling:\n  tolerations:\n  - {key: a, operator: Exists, effect: NoExecute}\n  - {key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 5}\n".into(),
                1,
            ),
            (
                "an omitted operator is not Equal in the list key",
                "scheduling:\n  tolerations:\n  - {key: a, value: b}\n  - {key: a, operator: Equal, value: b}\n".into(),
                0,
            ),
        ];
        for (case, body, want) in cases {
            let errs = errors("foo", &format!("handler: bar\n{body}"));
            assert_eq!(errs.len(), want, "{case}: {errs:?}");
        }
        // `ValidateLabels`: one field error per message of the key's and the value's checks.
        let long = format!("{}!", "v".repeat(63));
        let errs = errors(
            "foo",
            &format!("handler: bar\nscheduling:\n  nodeSelector: {{\"Bad_/a b\": \"{long}\"}}\n"),
        );
        assert_eq!(errs.len(), 4, "{errs:#?}");
        assert!(errs[0].contains("Invalid value: \"Bad_/a b\": prefix part a lowercase RFC 1123"));
        assert!(errs[1].contains("Invalid value: \"Bad_/a b\": name part must consist of"));
        assert!(
            errs[2].ends_with(": must be no more than 63 bytes"),
            "{}",
            errs[2]
        );
        assert!(errs[3].contains(": a valid label must be an empty string or consist of"));
    }

    /// A handler with dots, one with other characters a DNS-1123 label refuses, and none: each
    /// says its own problem.
    #[test]
    fn handler_messages_say_what_is_wrong() {
        assert_eq!(
            messages("foo", "handler: runsc.v2\n"),
            ["handler `runsc.v2` must not contain dots (a DNS-1123 label)"]
        );
        assert_eq!(
            messages("foo", "handler: Runsc\n"),
            ["handler `Runsc` is not a DNS-1123 label (lowercase letters, digits and `-`, at most 63)"]
        );
        assert_eq!(
            messages("foo", ""),
            ["a RuntimeClass needs a handler (the CRI runtime's name, a DNS-1123 label)"]
        );
    }

    /// `validateContainerResourceName` (pkg/apis/core/validation/validation.go): a prefixed name
    /// is refused only when it is neither native (`kubernetes.io/`, `IsNativeResource`) nor an
    /// extended resource name (`IsExtendedResourceName`: a `requests.` prefix is not one). A
    /// prefixed or unqualified name is "not a valid resource name"; a plain qualified one that
    /// no container may ask for is named as such.
    #[test]
    fn prefixed_overhead_names() {
        let overhead = |name: &str| {
            format!("handler: bar\noverhead:\n  podFixed:\n    cpu: 250m\n    {name}: \"1\"\n")
        };
        assert_eq!(
            errors("foo", &overhead("kubernetes.io/foo")),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("foo", &overhead("example.com/gpu")),
            Vec::<String>::new()
        );
        assert_eq!(
            errors("foo", &overhead("requests.example.com/gpu")),
            ["overhead.limits[requests.example.com/gpu]: Invalid value: \"requests.example.com/gpu\": doesn't follow extended resource name standard"]
        );
        assert_eq!(
            messages("foo", &overhead("requests.example.com/gpu")),
            ["overhead resource `requests.example.com/gpu` is not a valid resource name"]
        );
        assert_eq!(
            messages("foo", &overhead("Bad_Name_")),
            ["overhead resource `Bad_Name_` is not a valid resource name"]
        );
        assert_eq!(
            messages("foo", &overhead("gpu")),
            ["overhead resource `gpu` is not one a pod can use: cpu, memory, ephemeral-storage, \
              hugepages-<size>, or a prefixed extended resource"]
        );
    }

    /// `IsHugePageResourceValueDivisible` (pkg/apis/core/helper/helpers.go) refuses any quantity
    /// for a page size that is not positive (`pageSize.Sign() <= 0`) or not a whole number of
    /// bytes (`MilliValue() % 1000 != 0`).
    #[test]
    fn page_sizes_that_are_not_positive_whole_numbers_refuse_everything() {
        for size in ["-2Mi", "0", "0.5"] {
            let name = format!("hugepages-{size}");
            let body =
                format!("handler: bar\noverhead:\n  podFixed:\n    memory: 1Gi\n    {name}: 4Mi\n");
            assert_eq!(
                errors("foo", &body),
                [format!("overhead.limits[{name}]: Invalid value: \"4Mi\": 4Mi is not positive integer multiple of {name}")],
                "{size}"
            );
            assert_eq!(
                messages("foo", &body),
                [format!("overhead {name} names no page size the API server reads (`{size}`), so it refuses any quantity")],
                "{size}"
            );
        }
    }

    /// Each RuntimeClass's toleration list is its own, also among the items of one `kind: List`:
    /// a class whose list repeats a toleration is refused, and a pod that names it is refused as
    /// not found (plugin/pkg/admission/runtimeclass/admission.go); a valid class beside it is
    /// created, and a pod that names that one is admitted.
    #[test]
    fn duplicates_refuse_their_own_runtime_class_only() {
        let class = |name: &str, tolerations: &str| {
            format!(
                "- apiVersion: node.k8s.io/v1\n  kind: RuntimeClass\n  metadata: {{name: {name}}}\n  \
                 handler: bar\n  scheduling:\n    tolerations: {tolerations}\n"
            )
        };
        let pod = |class: &str| {
            format!(
                "- apiVersion: v1\n  kind: Pod\n  metadata: {{name: p-{class}}}\n  spec:\n    \
                 runtimeClassName: {class}\n    containers: [{{name: c, image: i}}]\n"
            )
        };
        let once = "[{key: a, operator: Exists}]";
        let twice = "[{key: a, operator: Exists}, {key: a, operator: Exists}]";
        let text = format!(
            "apiVersion: v1\nkind: List\nitems:\n{}{}{}{}",
            class("one", once),
            class("two", twice),
            pod("one"),
            pod("two")
        );
        let found = crate::analysis::analyse(&text, &Options::default());
        let of = |rule: &str| -> Vec<_> {
            found
                .iter()
                .filter(|d| d.rule == rule)
                .map(|d| (d.path.clone(), d.server_message.clone().unwrap_or_default()))
                .collect()
        };
        let duplicates = of("invalid-runtime-class");
        assert_eq!(duplicates.len(), 1, "{duplicates:?}");
        assert_eq!(
            duplicates[0].1,
            "scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:\"a\", \
             Operator:\"Exists\", Value:\"\", Effect:\"\", TolerationSeconds:(*int64)(nil)}"
        );
        let rejected = of("admission-rejected");
        assert_eq!(rejected.len(), 1, "{rejected:?}");
        assert!(
            rejected[0]
                .0
                .as_deref()
                .is_some_and(|p| p.starts_with("items[3]")),
            "{rejected:?}"
        );
    }

    #[test]
    fn handler_is_a_dns_label() {
        let errs = errors("foo", "handler: runsc.v2\n");
        assert_eq!(
            errs,
            vec!["handler: Invalid value: \"runsc.v2\": must not contain dots"]
        );
        assert_eq!(
            errors("foo", &format!("handler: {}\n", "a".repeat(64))).len(),
            1
        );
        assert!(errors("foo", "handler: 123\n")[0].contains("cannot unmarshal number"));
    }
}
