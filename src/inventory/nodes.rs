//! Reading one inventory file: Node documents, `kubectl get nodes` lists, or a pool file.

use super::{compact, karpenter, machines, Loc, ParseError, PoolTaint, RawNode};
use crate::k8s::cluster::Cluster;
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::{items, List};
use crate::syntax::{self, Document, NodeId, NodeKind};

/// The nodes of one YAML file, and how many of their taints were left out as invalid.
/// Also adds the file's Namespaces and RuntimeClasses to `cluster` (named `name`), from the
/// same parse.
pub(crate) fn parse_file(
    file: usize,
    name: &str,
    text: &str,
    cluster: &mut Cluster,
    notes: &mut Vec<super::terraform::Unread>,
) -> Result<(Vec<RawNode>, usize), ParseError> {
    let mut stream = syntax::parse(text);
    if crate::k8s::cluster::may_hold_cluster_objects(text) {
        for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
            cluster.add_document(name, doc);
        }
    }
    if let Some(e) = &stream.error {
        return Err(ParseError::at(
            e.offset,
            format!("not valid YAML: {}", e.message),
        ));
    }
    let mut found = Found::default();
    // A file that defines pools (NodePools, ...) or holds nodes may hold other objects beside
    // them (the EC2NodeClass a NodePool refers to, a Secret): those are skipped. A file of
    // nothing else is not an inventory.
    let mut other: Option<ParseError> = None;
    for (index, doc) in stream.documents.iter_mut().enumerate() {
        if let Some(e) = &doc.error {
            return Err(ParseError::at(
                e.offset,
                format!("not valid YAML: {}", e.message),
            ));
        }
        if let Some(at) = unknown_alias(doc) {
            return Err(ParseError::at(
                at,
                "not valid YAML: an alias to an undefined anchor",
            ));
        }
        let Some(root) = doc.root else { continue };
        if is_empty_document(doc, root) {
            continue;
        }
        if doc.mapping(root).is_none() {
            return Err(not_inventory(doc, root));
        }
        if read_pools_as_code(file, text, doc, root, index, &mut found)? {
            continue;
        }
        if super::nfd::is_feature_rule_object(doc, root) {
            let (nodes, left_out, said) = super::nfd::read(file, doc, root, index)?;
            found.defines_pools |= !nodes.is_empty();
            found.nodes.extend(nodes);
            found.invalid += left_out;
            notes.extend(said);
            continue;
        }
        let kind = doc.get_str(root, "kind").unwrap_or("");
        let items_seq = doc
            .get(root, "items")
            .and_then(|(_, v)| doc.sequence(v).map(<[NodeId]>::to_vec));
        match (kind, items_seq) {
            (k, _) if super::is_cluster_kind(k) => {}
            ("Node", _) => found.nodes.push(node(file, doc, root, &mut found.invalid)?),
            (k, Some(seq)) if k.ends_with("List") || k.is_empty() => {
                read_list(file, doc, &seq, index, &mut found)?;
            }
            _ => {
                other.get_or_insert_with(|| not_inventory(doc, root));
            }
        }
    }
    let Found {
        mut nodes,
        invalid,
        defines_pools,
    } = found;
    super::kubeadm::merge_kubelet_config(&mut nodes);
    // Nodes beside other objects (a Secret, a Cluster, a template): the nodes are the
    // inventory, the others are left out.
    match other {
        Some(e) if !defines_pools && nodes.is_empty() => Err(e),
        _ => Ok((nodes, invalid)),
    }
}

/// What a file's documents hold so far: its nodes (and pools defined as code, as nodes), how
/// many of their taints were left out as invalid, and whether a document defines pools.
#[derive(Default)]
struct Found {
    nodes: Vec<RawNode>,
    invalid: usize,
    defines_pools: bool,
}

/// An empty document (a stream that ends in `---`, a document of comments) holds nothing,
/// whatever the parser makes of it.
fn is_empty_document(doc: &Document<'_>, root: NodeId) -> bool {
    match &doc.node(root).kind {
        NodeKind::Scalar { value, .. } => {
            value.is_empty() || matches!(decode(doc, root), Decoded::Null)
        }
        NodeKind::Mapping { entries, .. } => entries.is_empty(),
        _ => false,
    }
}

/// A document that defines pools rather than listing nodes: a pool file, a Karpenter
/// NodePool, a Cluster API or OpenShift machine set, a Kueue ResourceFlavor, a Cluster API
/// topology, or another definition [`super::read_defined`] reads. False when it is none of
/// them.
fn read_pools_as_code<'a>(
    file: usize,
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    index: usize,
    found: &mut Found,
) -> Result<bool, ParseError> {
    if crate::class::is_pool_file(doc, root) {
        let lists = compact::parse(file, text, doc, root, Some(&mut found.nodes))?;
        found.invalid += lists.iter().map(|l| taints(file, doc, l).1).sum::<usize>();
        return Ok(true);
    }
    let read = if karpenter::is_karpenter(doc, root) {
        Some(karpenter::read(file, doc, root, index)?)
    } else if machines::is_machine_set(doc, root) {
        Some(machines::read(file, doc, root, index)?)
    } else if super::kueue::is_flavor(doc, root) {
        Some(super::kueue::read(file, doc, root, index)?)
    } else {
        None
    };
    if machines::is_topology_cluster(doc, root) {
        let (nodes, left_out) = machines::read_topology(file, doc, root, index)?;
        found.nodes.extend(nodes);
        found.invalid += left_out;
        found.defines_pools = true;
        return Ok(true);
    }
    if let Some((node, left_out)) = read {
        found.nodes.push(node);
        found.invalid += left_out;
        found.defines_pools = true;
        return Ok(true);
    }
    if let Some(defined) = super::read_defined(file, text, doc, root, index) {
        found.nodes.extend(defined.nodes);
        found.invalid += defined.invalid;
        found.defines_pools = true;
        return Ok(true);
    }
    Ok(false)
}

/// The items of a list (`kubectl get nodes -o yaml`): Nodes, kindless items that look like
/// Nodes, and ResourceFlavors (`kubectl get resourceflavors -o yaml`); the cluster's objects
/// are skipped; any other item makes the file not an inventory.
fn read_list(
    file: usize,
    doc: &Document<'_>,
    seq: &[NodeId],
    index: usize,
    found: &mut Found,
) -> Result<(), ParseError> {
    for (i, &item) in seq.iter().enumerate() {
        match doc.get_str(item, "kind") {
            Some("Node") => {}
            Some(k) if super::is_cluster_kind(k) => continue,
            // `kubectl get resourceflavors -o yaml`
            Some("ResourceFlavor") if super::kueue::is_flavor(doc, item) => {
                let (flavor, left_out) = super::kueue::read(file, doc, item, index)?;
                found.nodes.push(flavor);
                found.invalid += left_out;
                found.defines_pools = true;
                continue;
            }
            None if looks_like_a_node(doc, item) => {}
            other => {
                return Err(ParseError::at(
                    doc.node(item).span.start,
                    super::not_a_node_item(i, other, doc.get(item, "metadata").is_some()),
                ))
            }
        }
        found.nodes.push(node(file, doc, item, &mut found.invalid)?);
    }
    Ok(())
}

/// An item without `kind` is a Node when it has a name and a Node's spec or status fields (as
/// some tools and older `oc`/`kubectl` versions write node lists).
fn looks_like_a_node(doc: &Document<'_>, item: NodeId) -> bool {
    let has = |parent: &str, fields: &[&str]| {
        doc.get(item, parent)
            .is_some_and(|(_, v)| fields.iter().any(|f| doc.get(v, f).is_some()))
    };
    has("metadata", &["name"])
        && (has(
            "spec",
            &["taints", "unschedulable", "podCIDR", "providerID"],
        ) || has("status", &["nodeInfo", "capacity", "allocatable"]))
}

fn unknown_alias(doc: &Document<'_>) -> Option<usize> {
    (0..doc.nodes_len() as NodeId).find_map(|id| {
        matches!(doc.node(id).kind, NodeKind::UnknownAlias { .. }).then(|| doc.node(id).span.start)
    })
}

fn not_inventory(doc: &Document<'_>, root: NodeId) -> ParseError {
    let what = doc
        .get_str(root, "kind")
        .map_or("this document".to_string(), |k| format!("a {k}"));
    ParseError::at(
        doc.node(root).span.start,
        format!(
            "{what} is not a node inventory: expected {}",
            super::FORMATS
        ),
    )
}

/// A label or field value as text: a string, or a scalar written in place of one.
pub(crate) fn scalar_text(doc: &Document<'_>, id: NodeId) -> Option<String> {
    match decode(doc, id) {
        Decoded::Str(s) => Some(s.to_string()),
        Decoded::Null => Some(String::new()),
        Decoded::Mapping | Decoded::Sequence => None,
        _ => doc.scalar(id).map(|(s, _)| s.to_string()),
    }
}

/// The labels of a mapping node (`metadata.labels`, or a pool's `labels`).
pub(crate) fn labels(
    doc: &Document<'_>,
    mapping: NodeId,
    what: &str,
) -> Result<Vec<(String, String)>, ParseError> {
    let Some(entries) = doc.mapping(mapping) else {
        if matches!(decode(doc, mapping), Decoded::Null) {
            return Ok(Vec::new());
        }
        return Err(ParseError::at(
            doc.node(mapping).span.start,
            format!("{what} must be a mapping of label keys to values"),
        ));
    };
    let mut out = Vec::new();
    for &(k, v) in entries {
        let (Some(key), Some(value)) = (scalar_text(doc, k), scalar_text(doc, v)) else {
            return Err(ParseError::at(
                doc.node(k).span.start,
                format!("{what}: a label's key and value must be strings"),
            ));
        };
        out.push((key, value));
    }
    Ok(out)
}

/// The valid taints of a taint list (invalid ones are left to the rules to report), and how
/// many were left out.
pub(crate) fn taints(file: usize, doc: &Document<'_>, list: &List) -> (Vec<PoolTaint>, usize) {
    let all = items(doc, list);
    let valid: Vec<PoolTaint> = all
        .iter()
        .filter_map(|item| {
            Some(PoolTaint {
                taint: item.taint()?,
                at: Loc {
                    file,
                    range: doc.node(item.node).span.clone(),
                },
            })
        })
        .collect();
    let invalid = all.len() - valid.len();
    (valid, invalid)
}

fn node(
    file: usize,
    doc: &Document<'_>,
    node: NodeId,
    invalid: &mut usize,
) -> Result<RawNode, ParseError> {
    let at = Loc {
        file,
        range: doc.node(node).span.clone(),
    };
    let metadata = doc.get(node, "metadata").map(|(_, v)| v);
    let Some(name) = metadata
        .and_then(|m| doc.get_str(m, "name"))
        .filter(|n| !n.is_empty())
    else {
        return Err(ParseError::at(
            at.range.start,
            "a Node without metadata.name",
        ));
    };
    let labels = match metadata.and_then(|m| doc.get(m, "labels")) {
        Some((_, v)) => labels(doc, v, "metadata.labels")?,
        None => Vec::new(),
    };
    let spec = doc.get(node, "spec").map(|(_, v)| v);
    let taints = match spec.and_then(|s| doc.get(s, "taints")) {
        Some((key, value)) => {
            let list = List {
                whole: false,
                node: value,
                key,
                path: String::new(),
                object: None,
            };
            let (found, left_out) = taints(file, doc, &list);
            *invalid += left_out;
            found
        }
        None => Vec::new(),
    };
    let unschedulable = spec
        .and_then(|s| doc.get(s, "unschedulable"))
        .filter(|&(_, v)| matches!(decode(doc, v), Decoded::Bool(true)))
        .map(|(k, v)| Loc {
            file,
            range: doc.node(k).span.start..doc.node(v).span.end,
        });
    let allocatable = crate::k8s::resources::node_allocatable(doc, node);
    Ok(RawNode {
        name: name.to_string(),
        labels,
        taints,
        unschedulable,
        at,
        pool: None,
        declared: None,
        bootstrap: None,
        allocatable,
        observed: true,
    })
}
