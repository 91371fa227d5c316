//! The compact pool file: a cluster described by hand, one entry per node pool.
//!
//! ```yaml
//! pools:
//!   gpu:
//!     count: 4                          # or `nodes: [gpu-a, gpu-b]`; neither means 1
//!     labels:
//!       example.com/pool: gpu
//!     taints:
//!     - nvidia.com/gpu=present:NoSchedule   # `kubectl taint` syntax: key=value:Effect, key:Effect
//!     - {key: example.com/pool, value: gpu, effect: NoSchedule}   # or a mapping
//!   system:
//!     nodes: [cp-1]
//!     unschedulable: true               # cordoned
//!   a100:
//!     allocatable: {cpu: 95690m, memory: 1077Gi, nvidia.com/gpu: 8}   # what each node offers
//! ```
//!
//! Without `allocatable`, what the nodes offer is unknown: a pod that asks for an extended
//! resource (`nvidia.com/gpu`), or for more CPU or memory than every node offers
//! ([`super::capacity::floor`]), may fit.
//!
//! Nodes are named `<pool>-1` .. `<pool>-<count>` unless `nodes` names them, and each gets the
//! `kubernetes.io/hostname` label the kubelet would set. A `key=value:Effect` string is read
//! the way `kubectl taint` reads it and then checked by the same taint rules as a mapping, with
//! findings pointing at the exact characters inside the string.

use std::borrow::Cow;

use super::nodes::{labels, scalar_text, taints};
use super::{Loc, ParseError, RawNode, HOSTNAME_LABEL};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::List;
use crate::syntax::{Document, Node, NodeId, NodeKind, Style};

const POOL_FIELDS: &[&str] = &[
    "count",
    "nodes",
    "labels",
    "taints",
    "unschedulable",
    "allocatable",
];

/// The most nodes one pool may declare (a guard against a typo such as `count: 1e9`).
pub const MAX_COUNT: i64 = 1_000_000;

/// Reads the pools of a pool file's document, into nodes when `nodes` is given; returns the
/// pools' taint lists (for the rules). String taints are replaced, in `doc`, by mappings whose
/// scalars point into the text.
pub(crate) fn parse<'a>(
    file: usize,
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    mut nodes: Option<&mut Vec<RawNode>>,
) -> Result<Vec<List>, ParseError> {
    for &(k, _) in doc.mapping(root).unwrap_or_default() {
        let name = doc.scalar(k).map(|(s, _)| s).unwrap_or("");
        if name != "pools" {
            return Err(ParseError::at(
                doc.node(k).span.start,
                format!("unknown field `{name}` in a pool file (expected `pools`)"),
            ));
        }
    }
    let (_, pools) = doc.get(root, "pools").expect("checked by the caller");
    let Some(entries) = doc.mapping(pools).map(<[(NodeId, NodeId)]>::to_vec) else {
        return Err(ParseError::at(
            doc.node(pools).span.start,
            "`pools` must be a mapping of pool names to pools",
        ));
    };
    let mut lists = Vec::new();
    for (index, (name_node, pool)) in entries.into_iter().enumerate() {
        let name = scalar_text(doc, name_node).unwrap_or_default();
        if name.is_empty() {
            return Err(ParseError::at(
                doc.node(name_node).span.start,
                "a pool needs a name",
            ));
        }
        let path = format!("pools.{}", segment(&name));
        let pool_is_null = matches!(decode(doc, pool), Decoded::Null);
        if doc.mapping(pool).is_none() && !pool_is_null {
            return Err(ParseError::at(
                doc.node(pool).span.start,
                format!(
                    "pool `{name}` must be a mapping ({})",
                    POOL_FIELDS.join(", ")
                ),
            ));
        }
        check_fields(doc, pool, &name)?;
        let field = |f: &str| doc.get(pool, f);
        let count = count(doc, pool, &name)?;
        // Node names: as `nodes` lists them (checked even when no nodes are wanted), else
        // numbered, made only when nodes are wanted.
        let listed = listed_nodes(doc, pool, &name, count)?;
        let pool_labels = match field("labels") {
            Some((_, v)) => labels(doc, v, &format!("pool `{name}`: labels"))?,
            None => Vec::new(),
        };
        let allocatable = allocatable(doc, pool, &name)?;
        let unschedulable = unschedulable(file, doc, pool, &name)?;
        let taint_list = taint_list(text, doc, pool, &name, &path)?;
        let pool_taints = taint_list
            .as_ref()
            .map(|l| taints(file, doc, l).0)
            .unwrap_or_default();
        lists.extend(taint_list);
        let Some(nodes) = nodes.as_deref_mut() else {
            continue;
        };
        let names = listed.unwrap_or_else(|| {
            let span = doc.node(name_node).span.clone();
            (1..=count.unwrap_or(1))
                .map(|i| (format!("{name}-{i}"), span.clone()))
                .collect()
        });
        for (node_name, span) in names {
            let mut node_labels = pool_labels.clone();
            if !node_labels.iter().any(|(k, _)| k == HOSTNAME_LABEL) {
                node_labels.push((HOSTNAME_LABEL.to_string(), node_name.clone()));
            }
            nodes.push(RawNode {
                name: node_name,
                labels: node_labels,
                taints: pool_taints.clone(),
                unschedulable: unschedulable.clone(),
                at: Loc { file, range: span },
                pool: Some(((file, index), name.clone())),
                declared: None,
                bootstrap: None,
                allocatable: allocatable.clone(),
                observed: false,
            });
        }
    }
    Ok(lists)
}

/// What each node of a pool offers (`allocatable:`, a mapping of resource names to quantities).
fn allocatable(
    doc: &Document<'_>,
    pool: NodeId,
    name: &str,
) -> Result<Option<crate::k8s::resources::Resources>, ParseError> {
    let Some((_, v)) = doc.get(pool, "allocatable") else {
        return Ok(None);
    };
    let Some(entries) = doc.mapping(v) else {
        return Err(ParseError::at(
            doc.node(v).span.start,
            format!(
                "pool `{name}`: allocatable must be a mapping of resource names to quantities \
                 (cpu: 8, memory: 32Gi, nvidia.com/gpu: 4)"
            ),
        ));
    };
    for &(k, q) in entries {
        let resource = scalar_text(doc, k).unwrap_or_default();
        let quantity = scalar_text(doc, q).unwrap_or_default();
        if crate::k8s::resources::amount(&resource, &quantity).is_none() {
            return Err(ParseError::at(
                doc.node(q).span.start,
                format!(
                    "pool `{name}`: allocatable {resource}: {quantity:?} is not a quantity \
                     (such as 8, 500m, 32Gi)"
                ),
            ));
        }
    }
    Ok(Some(crate::k8s::resources::read_list(doc, v)))
}

/// A pool's fields are among [`POOL_FIELDS`].
fn check_fields(doc: &Document<'_>, pool: NodeId, name: &str) -> Result<(), ParseError> {
    for &(k, _) in doc.mapping(pool).unwrap_or_default() {
        let field = doc.scalar(k).map(|(s, _)| s).unwrap_or("");
        if !POOL_FIELDS.contains(&field) {
            return Err(ParseError::at(
                doc.node(k).span.start,
                format!(
                    "unknown field `{field}` in pool `{name}` (expected one of {})",
                    POOL_FIELDS.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The pool's `count`, a whole number from 1 to [`MAX_COUNT`], if written.
fn count(doc: &Document<'_>, pool: NodeId, name: &str) -> Result<Option<usize>, ParseError> {
    let Some((_, v)) = doc.get(pool, "count") else {
        return Ok(None);
    };
    match decode(doc, v).as_int64() {
        Ok(Some(n)) if (1..=MAX_COUNT).contains(&n) => Ok(Some(n as usize)),
        _ => Err(ParseError::at(
            doc.node(v).span.start,
            format!("pool `{name}`: count must be a whole number from 1 to {MAX_COUNT}"),
        )),
    }
}

/// A node name and where it is written.
type NamedAt = (String, std::ops::Range<usize>);

/// The node names `nodes` lists, with their places: non-empty strings, as many as `count`
/// says, if written. (Checked even when no nodes are wanted.)
fn listed_nodes(
    doc: &Document<'_>,
    pool: NodeId,
    name: &str,
    count: Option<usize>,
) -> Result<Option<Vec<NamedAt>>, ParseError> {
    let Some((_, v)) = doc.get(pool, "nodes") else {
        return Ok(None);
    };
    let Some(seq) = doc.sequence(v) else {
        return Err(ParseError::at(
            doc.node(v).span.start,
            format!("pool `{name}`: nodes must be a list of node names"),
        ));
    };
    let mut out = Vec::new();
    for &n in seq {
        match scalar_text(doc, n).filter(|s| !s.is_empty()) {
            Some(s) => out.push((s, doc.node(n).span.clone())),
            None => {
                return Err(ParseError::at(
                    doc.node(n).span.start,
                    format!("pool `{name}`: a node name must be a non-empty string"),
                ))
            }
        }
    }
    if out.is_empty() {
        return Err(ParseError::at(
            doc.node(v).span.start,
            format!("pool `{name}`: nodes is empty"),
        ));
    }
    if let Some(c) = count.filter(|&c| c != out.len()) {
        return Err(ParseError::at(
            doc.node(v).span.start,
            format!("pool `{name}`: count is {c} but nodes names {}", out.len()),
        ));
    }
    Ok(Some(out))
}

/// Where `unschedulable: true` is written, if it is (`false` and null are not cordoned).
fn unschedulable(
    file: usize,
    doc: &Document<'_>,
    pool: NodeId,
    name: &str,
) -> Result<Option<Loc>, ParseError> {
    let Some((k, v)) = doc.get(pool, "unschedulable") else {
        return Ok(None);
    };
    match decode(doc, v) {
        Decoded::Bool(true) => Ok(Some(Loc {
            file,
            range: doc.node(k).span.start..doc.node(v).span.end,
        })),
        Decoded::Bool(false) | Decoded::Null => Ok(None),
        _ => Err(ParseError::at(
            doc.node(v).span.start,
            format!("pool `{name}`: unschedulable must be true or false"),
        )),
    }
}

/// The pool's `taints` list, if written; each `key=value:Effect` string in it becomes a mapping
/// of `doc` that spans its characters, so the rules read it as any taint.
fn taint_list<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    pool: NodeId,
    name: &str,
    path: &str,
) -> Result<Option<List>, ParseError> {
    let Some((key, value)) = doc.get(pool, "taints") else {
        return Ok(None);
    };
    let list = List {
        whole: false,
        node: value,
        key,
        path: format!("{path}.taints"),
        object: None,
    };
    if doc.sequence(value).is_none() && !matches!(decode(doc, value), Decoded::Null) {
        return Err(ParseError::at(
            doc.node(value).span.start,
            format!("pool `{name}`: taints must be a list"),
        ));
    }
    let seq = doc.sequence(value).unwrap_or_default().to_vec();
    for (i, item) in seq.into_iter().enumerate() {
        if doc.mapping(item).is_some() {
            continue;
        }
        let mapping = taint_spec(text, doc, item, name)?;
        doc.replace_item(value, i, mapping);
    }
    Ok(Some(list))
}

fn segment(name: &str) -> String {
    if name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    {
        name.to_string()
    } else {
        format!("[{name}]")
    }
}

/// Turns a `key=value:Effect` string into a mapping node (`{key, value, effect}`) whose scalars
/// span the matching characters of the string, as `kubectl taint` splits it.
pub(crate) fn taint_spec<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    item: NodeId,
    pool: &str,
) -> Result<NodeId, ParseError> {
    let node = doc.node(item);
    let span = node.span.clone();
    let (value, style) = match &node.kind {
        NodeKind::Scalar { value, style } => (value.to_string(), *style),
        _ => {
            return Err(ParseError::at(
                span.start,
                format!("pool `{pool}`: a taint is `key=value:Effect`, `key:Effect`, or a mapping"),
            ))
        }
    };
    let start = match style {
        Style::Plain => span.start,
        Style::SingleQuoted | Style::DoubleQuoted => span.start + 1,
        _ => usize::MAX,
    };
    if text.get(start..start.saturating_add(value.len())) != Some(value.as_str()) {
        return Err(ParseError::at(
            span.start,
            format!(
                "pool `{pool}`: write the taint `{value}` as a plain or simply quoted string (no \
                 escapes, no block scalar), or as a mapping"
            ),
        ));
    }
    let parts = split_spec(&value).ok_or_else(|| {
        ParseError::at(
            span.start,
            format!("invalid taint spec: {value} (expected key=value:Effect or key:Effect)"),
        )
    })?;
    let fields = parts
        .into_iter()
        .map(|(name, at, len)| {
            let range = start + at..start + at + len;
            (name, range.clone(), Cow::Borrowed(&text[range]))
        })
        .collect();
    Ok(spec_mapping(doc, span, fields))
}

/// A taint spec whose characters cannot be pointed at one by one (a block scalar, an escape in
/// a quoted string) as a mapping whose scalars all span the whole string; `None` when it does
/// not split as `kubectl taint` splits it.
pub(crate) fn taint_spec_spanning<'a>(
    doc: &mut Document<'a>,
    spec: &str,
    span: std::ops::Range<usize>,
) -> Option<NodeId> {
    let fields = split_spec(spec)?
        .into_iter()
        .map(|(name, at, len)| {
            (
                name,
                span.clone(),
                Cow::Owned(spec[at..at + len].to_string()),
            )
        })
        .collect();
    Some(spec_mapping(doc, span, fields))
}

/// How `ParseTaints` (kubernetes/kubernetes pkg/util/taints/taints.go) splits one spec,
/// `key[=value][:effect]`: each field's name, offset and length; `None` with more than one `:`
/// or `=`.
fn split_spec(spec: &str) -> Option<Vec<(&'static str, usize, usize)>> {
    let parts: Vec<&str> = spec.split(':').collect();
    let kv: Vec<&str> = parts[0].split('=').collect();
    if parts.len() > 2 || kv.len() > 2 {
        return None;
    }
    let mut fields = vec![("key", 0, kv[0].len())];
    if let Some(v) = kv.get(1) {
        fields.push(("value", kv[0].len() + 1, v.len()));
    }
    if let Some(e) = parts.get(1) {
        fields.push(("effect", parts[0].len() + 1, e.len()));
    }
    Some(fields)
}

/// The mapping of a taint spec's fields: (name, the value's span, the value).
fn spec_mapping<'a>(
    doc: &mut Document<'a>,
    span: std::ops::Range<usize>,
    fields: Vec<(&'static str, std::ops::Range<usize>, Cow<'a, str>)>,
) -> NodeId {
    let mut entries = Vec::new();
    for (name, range, value) in fields {
        let k = doc.add_node(Node {
            span: span.clone(),
            tag: None,
            kind: NodeKind::Scalar {
                value: Cow::Borrowed(name),
                style: Style::Plain,
            },
        });
        let v = doc.add_node(Node {
            span: range,
            tag: Some("!!str".into()),
            kind: NodeKind::Scalar {
                value,
                style: Style::Plain,
            },
        });
        entries.push((k, v));
    }
    doc.add_node(Node {
        span,
        tag: None,
        kind: NodeKind::Mapping {
            entries,
            flow: true,
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::config::Options;
    use crate::inventory::Inventory;
    use crate::k8s::model::Effect;

    const POOLS: &str = "\
pools:
  gpu:
    count: 3
    labels: {example.com/pool: gpu}
    taints:
    - nvidia.com/gpu=present:NoSchedule
    - {key: example.com/pool, value: gpu, effect: NoSchedule}
  system:
    nodes: [cp-1]
    unschedulable: true
    taints: ['node-role.kubernetes.io/control-plane:NoSchedule']
";

    fn load(text: &str) -> Result<Inventory, String> {
        Inventory::load(&[("pools.yaml", text)]).map_err(|e| {
            e.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    #[test]
    fn pools_nodes_labels_taints() {
        let inv = load(POOLS).unwrap();
        assert_eq!(inv.node_count(), 4);
        let gpu = &inv.pools[0];
        assert_eq!(gpu.name, "gpu");
        let names: Vec<&str> = gpu.nodes.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["gpu-1", "gpu-2", "gpu-3"]);
        assert_eq!(gpu.label(Some(2), "kubernetes.io/hostname"), Some("gpu-3"));
        assert_eq!(
            gpu.taints[0].taint.to_string(),
            "nvidia.com/gpu=present:NoSchedule"
        );
        assert_eq!(
            &POOLS[gpu.taints[0].at.range.clone()],
            "nvidia.com/gpu=present:NoSchedule"
        );
        assert_eq!(gpu.taints[1].taint.effect, Effect::NoSchedule);
        let system = &inv.pools[1];
        assert_eq!(system.nodes[0].name, "cp-1");
        assert!(system.unschedulable.is_some());
        assert_eq!(
            system.taints[0].taint.to_string(),
            "node-role.kubernetes.io/control-plane:NoSchedule"
        );
        assert_eq!(inv.files[0].invalid_taints, 0);
        assert_eq!(crate::analyse(POOLS, &Options::default()), []);
    }

    #[test]
    fn string_taints_get_the_taint_rules_at_exact_characters() {
        let text = "pools:\n  a:\n    taints:\n    - \"node.kubernetes.io/unreachible:NoExecute\"\n    - dedicated=gpu:noschedule\n    - dedicated=x y:NoSchedule\n";
        let inv = load(text).unwrap();
        let diagnostics = crate::analyse(text, &Options::default());
        let found: Vec<(&str, &str)> = diagnostics
            .iter()
            .map(|d| (d.rule, &text[d.range.clone()]))
            .collect();
        assert_eq!(
            found,
            [
                ("misspelled-taint-key", "node.kubernetes.io/unreachible"),
                ("unknown-effect", "noschedule"),
                ("invalid-value", "x y"),
            ]
        );
        // The fixes edit inside the string.
        let fixed = diagnostics[0].fixes[0].apply(text);
        assert!(
            fixed.contains("\"node.kubernetes.io/unreachable:NoExecute\""),
            "{fixed}"
        );
        // Invalid taints are not simulated.
        assert_eq!(inv.pools[0].taints.len(), 2);
        assert_eq!(inv.files[0].invalid_taints, 1);
    }

    #[test]
    fn a_missing_effect_is_reported_by_the_rule() {
        let text = "pools:\n  a:\n    taints: [dedicated=gpu]\n";
        assert_eq!(load(text).unwrap().files[0].invalid_taints, 1);
        let found = crate::analyse(text, &Options::default());
        let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["taint-missing-field"]);
    }

    #[test]
    fn broken_pool_files_are_errors_with_places() {
        let cases = [
            (
                "pools:\n  a:\n    taint: [x:NoSchedule]\n",
                "3:5",
                "unknown field `taint` in pool `a`",
            ),
            (
                "pools:\n  a:\n    count: 0\n",
                "3:12",
                "count must be a whole number",
            ),
            (
                "pools:\n  a:\n    count: 2\n    nodes: [x]\n",
                "4:12",
                "count is 2 but nodes names 1",
            ),
            (
                "pools:\n  a:\n    taints: [a:b:NoSchedule]\n",
                "3:14",
                "invalid taint spec: a:b:NoSchedule",
            ),
            (
                "pools:\n  a:\n    taints: [a=b=c:NoSchedule]\n",
                "3:14",
                "invalid taint spec",
            ),
            ("pools: {}\n", "", "holds no nodes"),
            (
                "pools:\n  a: {}\nnodes: 3\n",
                "3:1",
                "unknown field `nodes` in a pool file",
            ),
            ("pool:\n  a: {}\n", "1:1", "is not a node inventory"),
            (
                "pools:\n  a:\n    unschedulable: maybe\n",
                "3:20",
                "unschedulable must be true or false",
            ),
            (
                "pools:\n  a:\n    nodes: x\n",
                "3:12",
                "pool `a`: nodes must be a list of node names",
            ),
            (
                "pools:\n  a:\n    nodes: [\"\"]\n",
                "3:13",
                "pool `a`: a node name must be a non-empty string",
            ),
            (
                "pools:\n  a:\n    nodes: []\n",
                "3:12",
                "pool `a`: nodes is empty",
            ),
            (
                "pools:\n  a:\n    taints: x\n",
                "3:13",
                "pool `a`: taints must be a list",
            ),
        ];
        for (text, at, message) in cases {
            let e = load(text).unwrap_err();
            assert!(e.contains(message), "{text:?}: {e}");
            if !at.is_empty() {
                assert!(
                    e.starts_with(&format!("pools.yaml:{at}: ")),
                    "{text:?}: {e}"
                );
            }
        }
    }
}
