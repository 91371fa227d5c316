//! eksctl cluster configs (`eksctl.io/v1alpha5` `ClusterConfig`): every entry of `nodeGroups`
//! and `managedNodeGroups` is a node pool.
//!
//! Where (eksctl-io/eksctl `pkg/apis/eksctl.io/v1alpha5/types.go`): `name`, `labels`,
//! `desiredCapacity`, `minSize`, `maxSize`, and `taints`: for `nodeGroups` either a list of
//! `{key, value, effect}` or a map `key: "value:Effect"` (`taintsWrapper.UnmarshalJSON`; the
//! string is split on `:` by `pkg/utils/taints/taints.go` `parseTaint`: one part is the effect,
//! two are value and effect), for `managedNodeGroups` the list only. Map taints become mappings
//! whose scalars span the key and the characters inside the string, so the taint rules point
//! there. Every node is labelled `alpha.eksctl.io/cluster-name` and
//! `alpha.eksctl.io/nodegroup-name` (`defaults.go` `setDefaultNodeLabels`), a managed group's
//! also `eks.amazonaws.com/nodegroup` (`types.go` `EKSNodeGroupNameLabel`). The EKS Auto Mode
//! built-in NodePools `autoModeConfig.nodePools` names are pools too ([`super::auto_mode`]).

use std::borrow::Cow;

use super::nodes::{labels, scalar_text, taints};
use super::{asg_tags, Count, Defined, Loc, RawNode};
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::List;
use crate::syntax::{Document, Node, NodeId, NodeKind, Style};

/// Whether a document is an eksctl ClusterConfig.
pub(crate) fn is_eksctl(doc: &Document<'_>, root: NodeId) -> bool {
    doc.get_str(root, "kind") == Some("ClusterConfig")
        && doc
            .get_str(root, "apiVersion")
            .is_some_and(|a| a.starts_with("eksctl.io/"))
}

/// A count from `minSize`, `maxSize` and `desiredCapacity`: the range when bounds are written.
fn count(doc: &Document<'_>, group: NodeId) -> Count {
    let n = |f: &str| {
        doc.get(group, f)
            .and_then(|(_, v)| decode(doc, v).as_int64().ok().flatten())
            .and_then(|n| u64::try_from(n).ok())
    };
    // eksctl's defaults (eksctl-io/eksctl pkg/apis/eksctl.io/v1alpha5/validation.go and
    // pkg/cfn/builder/nodegroup.go): without `minSize` or `desiredCapacity`, `minSize` is
    // `DefaultNodeCount` (2, types.go); `maxSize` is `desiredCapacity`, else `minSize`.
    let (min, max, desired) = (n("minSize"), n("maxSize"), n("desiredCapacity"));
    let min = min.or(desired).unwrap_or(DEFAULT_NODE_COUNT);
    Count {
        min: Some(min),
        max: max.or(desired).or(Some(min)),
    }
}

/// A map-form taint `key: "value:Effect"` as a `{key, value, effect}` mapping; `None` when the
/// string's characters cannot be pointed at (escapes, block scalars).
fn map_taint<'a>(text: &'a str, doc: &mut Document<'a>, k: NodeId, v: NodeId) -> Option<NodeId> {
    let node = doc.node(doc.resolve(v));
    let span = node.span.clone();
    let (value, start) = match &node.kind {
        NodeKind::Scalar { value, style } => {
            let start = match style {
                Style::Plain => span.start,
                Style::SingleQuoted | Style::DoubleQuoted => span.start + 1,
                _ => return None,
            };
            (value.to_string(), start)
        }
        _ => return None,
    };
    if text.get(start..start + value.len()) != Some(value.as_str()) {
        return None;
    }
    let whole = doc.node(k).span.start..span.end;
    let mut entries = Vec::new();
    let mut field = |doc: &mut Document<'a>, name: &'static str, value: NodeId| {
        let key = doc.add_node(Node {
            span: whole.clone(),
            tag: None,
            kind: NodeKind::Scalar {
                value: Cow::Borrowed(name),
                style: Style::Plain,
            },
        });
        entries.push((key, value));
    };
    field(doc, "key", k);
    let sub = |doc: &mut Document<'a>, at: usize, len: usize| {
        doc.add_node(Node {
            span: at..at + len,
            tag: Some("!!str".into()),
            kind: NodeKind::Scalar {
                value: Cow::Borrowed(&text[at..at + len]),
                style: Style::Plain,
            },
        })
    };
    match value.split_once(':') {
        Some((val, effect)) => {
            let v = sub(doc, start, val.len());
            field(doc, "value", v);
            let e = sub(doc, start + val.len() + 1, effect.len());
            field(doc, "effect", e);
        }
        None => {
            let e = sub(doc, start, value.len());
            field(doc, "effect", e);
        }
    }
    Some(doc.add_node(Node {
        span: whole,
        tag: None,
        kind: NodeKind::Mapping {
            entries,
            flow: true,
        },
    }))
}

/// Reads a ClusterConfig's node groups (`is_eksctl` holds).
pub(crate) fn read<'a>(
    file: usize,
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    index: usize,
) -> Defined {
    let mut out = Defined::default();
    let cluster = doc
        .get(root, "metadata")
        .and_then(|(_, m)| doc.get(m, "name"))
        .and_then(|(_, v)| scalar_text(doc, v));
    let mut n = 0;
    for (field, managed) in [("nodeGroups", false), ("managedNodeGroups", true)] {
        let Some((_, seq)) = doc.get(root, field) else {
            continue;
        };
        let groups = doc.sequence(seq).unwrap_or_default().to_vec();
        for (i, group) in groups.into_iter().enumerate() {
            if doc.mapping(group).is_none() {
                continue;
            }
            n += 1;
            let path = format!("{field}[{i}]");
            let name = doc
                .get(group, "name")
                .and_then(|(_, v)| scalar_text(doc, v))
                .filter(|s| !s.is_empty());
            let list = taint_list(text, doc, group, &path, managed, &mut out.invalid);
            let node_labels = group_labels(
                doc,
                group,
                &path,
                (cluster.as_deref(), name.as_deref()),
                managed,
            );
            let shown = name.clone().unwrap_or_else(|| path.clone());
            let (found, left_out) = list
                .as_ref()
                .map(|l| taints(file, doc, l))
                .unwrap_or_default();
            out.invalid += left_out;
            let at = Loc {
                file,
                range: doc.node(group).span.clone(),
            };
            let kind = if managed {
                "eksctl-managednodegroup"
            } else {
                "eksctl-nodegroup"
            };
            let mut node = RawNode::defined(
                shown,
                kind,
                at,
                (file, (index << 16) + n),
                count(doc, group),
            );
            node.labels = node_labels;
            node.taints = found;
            let types = instance_types(doc, group);
            if let Some(d) = &mut node.declared {
                d.capacity = super::capacity::from_instance_types(&types);
            }
            // Cluster Autoscaler's node-template tags, which eksctl puts on the group's Auto
            // Scaling group (a managed group's with `propagateASGTags`).
            let tags = group_tags(text, doc, group);
            if !tags.is_empty() {
                let (seq, skipped) = asg_tags::taint_sequence(text, doc, &tags);
                out.invalid += skipped;
                let mut from_tags = Vec::new();
                if let (Some(seq), Some((key, _))) = (seq, doc.get(group, "tags")) {
                    let list = List {
                        whole: false,
                        node: seq,
                        key,
                        path: format!("{path}.tags"),
                        object: Some(0),
                    };
                    let (found, left_out) = taints(file, doc, &list);
                    out.invalid += left_out;
                    from_tags = found;
                    out.lists.push(list);
                }
                let labels = asg_tags::labels(&tags);
                asg_tags::merge(&mut node.taints, from_tags, &mut node.labels, labels);
                if let Some(d) = &mut node.declared {
                    asg_tags::add_resources(&mut d.capacity, &tags);
                }
            }
            out.nodes.push(node);
            out.lists.extend(list);
        }
    }
    // EKS Auto Mode's built-in NodePools, as `autoModeConfig` names them (`enabled: true`,
    // `nodePools: [general-purpose, system]`); left out, `nodePools` takes eksctl's default,
    // which is not read here.
    if let Some((_, auto)) = doc.get(root, "autoModeConfig") {
        let on = |(_, v): (NodeId, NodeId)| matches!(decode(doc, v), Decoded::Bool(true));
        if doc.get(auto, "enabled").is_some_and(on) {
            let names = doc
                .get(auto, "nodePools")
                .and_then(|(_, v)| doc.sequence(v));
            for (k, &item) in names.unwrap_or_default().iter().enumerate() {
                let Some(name) = scalar_text(doc, item) else {
                    continue;
                };
                let at = doc.node(item).span.clone();
                out.nodes
                    .extend(super::auto_mode::builtin(file, &name, at, (index << 8) + k));
            }
        }
    }
    out
}

/// A group's `taints` as a list: for a self-managed group, eksctl's map form
/// (`key: value:Effect`) turned into one (a map entry that is not a taint is counted in
/// `invalid`); otherwise the value as written. `null` or no `taints` is none.
fn taint_list<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    group: NodeId,
    path: &str,
    managed: bool,
    invalid: &mut usize,
) -> Option<List> {
    match doc.get(group, "taints") {
        Some((key, value)) if doc.mapping(value).is_some() && !managed => {
            let entries = doc.mapping(value).unwrap_or_default().to_vec();
            let mut items = Vec::new();
            for (k, v) in entries {
                match map_taint(text, doc, k, v) {
                    Some(m) => items.push(m),
                    None => *invalid += 1,
                }
            }
            let span = doc.node(value).span.clone();
            let node = doc.add_node(Node {
                span,
                tag: None,
                kind: NodeKind::Sequence { items, flow: true },
            });
            Some(List {
                whole: false,
                node,
                key,
                path: format!("{path}.taints"),
                object: Some(0),
            })
        }
        Some((key, node)) if !matches!(decode(doc, node), Decoded::Null) => Some(List {
            whole: false,
            node,
            key,
            path: format!("{path}.taints"),
            object: Some(0),
        }),
        _ => None,
    }
}

/// A group's `tags` (a map of tag key to value) that hold scalars, with where their characters
/// are.
fn group_tags<'a>(text: &'a str, doc: &Document<'a>, group: NodeId) -> Vec<asg_tags::Tag<'a>> {
    let Some((_, map)) = doc.get(group, "tags") else {
        return Vec::new();
    };
    let chars = |n: NodeId| -> Option<(Cow<'a, str>, Option<std::ops::Range<usize>>)> {
        let node = doc.node(doc.resolve(n));
        let NodeKind::Scalar { value, style } = &node.kind else {
            return None;
        };
        let start = match style {
            Style::Plain => Some(node.span.start),
            Style::SingleQuoted | Style::DoubleQuoted => Some(node.span.start + 1),
            _ => None,
        };
        let at = start
            .map(|s| s..s + value.len())
            .filter(|r| text.get(r.clone()) == Some(&**value));
        Some((Cow::Owned(value.to_string()), at))
    };
    doc.mapping(map)
        .unwrap_or_default()
        .iter()
        .filter_map(|&(k, v)| {
            let (key, key_at) = chars(k)?;
            let (value, value_at) = chars(v)?;
            Some(asg_tags::Tag {
                key,
                key_at,
                value,
                value_at,
            })
        })
        .collect()
}

/// The labels a group's nodes get: its `labels`, then what eksctl and EKS set: the cluster's
/// and the group's names, and for a managed group its name again and its capacity type
/// (`spot: true`: SPOT).
fn group_labels(
    doc: &Document<'_>,
    group: NodeId,
    path: &str,
    (cluster, name): (Option<&str>, Option<&str>),
    managed: bool,
) -> Vec<(String, String)> {
    let mut node_labels = doc
        .get(group, "labels")
        .and_then(|(_, v)| labels(doc, v, &format!("{path}.labels")).ok())
        .unwrap_or_default();
    if let Some(c) = cluster {
        node_labels.push(("alpha.eksctl.io/cluster-name".to_string(), c.to_string()));
    }
    if let Some(ng) = name {
        node_labels.push(("alpha.eksctl.io/nodegroup-name".to_string(), ng.to_string()));
        if managed {
            node_labels.push(("eks.amazonaws.com/nodegroup".to_string(), ng.to_string()));
        }
    }
    // EKS labels a managed group's nodes with its capacity type (`spot: true`: SPOT).
    if managed {
        let spot = doc.get(group, "spot").is_some_and(|(_, v)| {
            matches!(decode(doc, v), crate::k8s::decode::Decoded::Bool(true))
        });
        node_labels.push((
            super::terraform::EKS_CAPACITY_TYPE.to_string(),
            if spot { "SPOT" } else { "ON_DEMAND" }.to_string(),
        ));
    }
    node_labels
}

/// The node count eksctl gives a group that does not say (`DefaultNodeCount`, eksctl-io/eksctl
/// pkg/apis/eksctl.io/v1alpha5/types.go).
const DEFAULT_NODE_COUNT: u64 = 2;

/// The instance type eksctl gives a group that names none (`DefaultNodeType`, the same file).
const DEFAULT_NODE_TYPE: &str = "m5.large";

/// The instance types, which say which accelerators the nodes have: eksctl's `instanceType`,
/// a managed group's `instanceTypes`, a mixed group's `instancesDistribution.instanceTypes`;
/// `m5.large` when the group names none and nothing else picks them (a launch template, an
/// instance selector), as eksctl does (pkg/eks/nodegroup_service.go).
fn instance_types(doc: &Document<'_>, group: NodeId) -> Vec<String> {
    let mut types: Vec<String> = Vec::new();
    if let Some(t) = doc.get_str(group, "instanceType").filter(|t| !t.is_empty()) {
        types.push(t.to_string());
    }
    let listed = doc.get(group, "instanceTypes").or_else(|| {
        doc.get(group, "instancesDistribution")
            .and_then(|(_, d)| doc.get(d, "instanceTypes"))
    });
    for &t in listed
        .and_then(|(_, v)| doc.sequence(v))
        .unwrap_or_default()
    {
        types.extend(doc.scalar(t).map(|(s, _)| s.to_string()));
    }
    let chosen_elsewhere = [
        "launchTemplate",
        "instanceSelector",
        "instancesDistribution",
    ]
    .iter()
    .any(|f| doc.get(group, f).is_some());
    if types.is_empty() && !chosen_elsewhere {
        types.push(DEFAULT_NODE_TYPE.to_string());
    }
    types
}
