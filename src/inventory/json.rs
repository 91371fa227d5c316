//! Reading `kubectl get nodes -o json` (or a single Node, or a list of Nodes) as JSON.
//!
//! A real cluster prints some 20 KB a node (conditions, addresses, nodeInfo, dozens of images),
//! of which scheduling needs a few hundred bytes: the name, the labels, the taints and
//! `spec.unschedulable`. The file is read once with serde_json, skipping everything else
//! without building it, and taints keep their exact byte ranges (serde_json's borrowed
//! [`RawValue`] is a slice of the text, so its place is known).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Loc, ParseError, PoolTaint, RawNode};
use crate::k8s::model::{Effect, Taint};

#[derive(Deserialize)]
struct Object<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    metadata: Option<Metadata<'a>>,
    #[serde(borrow, default)]
    spec: Option<Spec<'a>>,
    #[serde(borrow, default)]
    status: Option<Status<'a>>,
}

#[derive(Deserialize)]
struct Metadata<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    labels: Option<BTreeMap<Cow<'a, str>, Cow<'a, str>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec<'a> {
    #[serde(borrow, default)]
    taints: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    unschedulable: Option<bool>,
    #[serde(borrow, default, rename = "podCIDR")]
    pod_cidr: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "providerID")]
    provider_id: Option<&'a RawValue>,
}

/// Only whether the fields a Node's status has are there.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Status<'a> {
    #[serde(borrow, default)]
    node_info: Option<&'a RawValue>,
    #[serde(borrow, default)]
    capacity: Option<&'a RawValue>,
    #[serde(borrow, default)]
    allocatable: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct JsonTaint<'a> {
    #[serde(borrow, default)]
    key: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    value: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    effect: Option<Cow<'a, str>>,
}

/// Whether a text is JSON rather than YAML: its first character (after a byte-order mark and
/// white space) opens an object.
pub(crate) fn looks_like_json(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

/// The byte range of a borrowed JSON value inside `text`.
fn range_in(text: &str, raw: &RawValue) -> Range<usize> {
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    start..start + raw.get().len()
}

/// What reading a JSON inventory gives: its nodes and how many taints were left out as invalid.
pub(crate) struct Read {
    pub nodes: Vec<RawNode>,
    pub invalid_taints: usize,
}

/// Reads a JSON inventory file of Nodes; `None` when it holds something else, to be read as YAML.
pub(crate) fn read(file: usize, text: &str) -> Result<Option<Read>, ParseError> {
    let body = text.trim_start_matches('\u{feff}');
    let top: Object<'_> = serde_json::from_str(body).map_err(|e| json_error(text, &e))?;
    let mut out = Read {
        nodes: Vec::new(),
        invalid_taints: 0,
    };
    let kind = top.kind.as_deref().unwrap_or("");
    if super::is_cluster_kind(kind) {
        return Ok(Some(out));
    }
    if kind == "Node" {
        let at = 0..text.len();
        out.nodes
            .push(node(file, text, top, at, &mut out.invalid_taints)?);
        return Ok(Some(out));
    }
    // Anything else (a Karpenter NodePool, a CCE node pool, ...) is read as YAML, which JSON is.
    let Some(items) = top
        .items
        .filter(|_| kind.ends_with("List") || kind.is_empty())
    else {
        return Ok(None);
    };
    // The items are read on every core: a 5,000-node list is some 100 MB of JSON.
    use rayon::prelude::*;
    let read: Vec<Result<Option<(RawNode, usize)>, ParseError>> = items
        .par_iter()
        .enumerate()
        .map(|(i, raw)| item(file, text, i, raw))
        .collect();
    for r in read {
        if let Some((node, invalid)) = r? {
            out.nodes.push(node);
            out.invalid_taints += invalid;
        }
    }
    Ok(Some(out))
}

/// The `i`th item of a list: a Node with how many of its taints are invalid, or `None` for a
/// cluster object (Namespace, RuntimeClass) that is not a node.
fn item(
    file: usize,
    text: &str,
    i: usize,
    raw: &RawValue,
) -> Result<Option<(RawNode, usize)>, ParseError> {
    let at = range_in(text, raw);
    let item: Object<'_> = serde_json::from_str(raw.get()).map_err(|e| {
        let inner = json_error(raw.get(), &e);
        ParseError::at(
            at.start + inner.offset.unwrap_or(0),
            format!(
                "items[{i}]: {}",
                inner.message.trim_start_matches("not valid JSON: ")
            ),
        )
    })?;
    match item.kind.as_deref() {
        Some("Node") => {}
        Some(k) if super::is_cluster_kind(k) => return Ok(None),
        None if looks_like_a_node(&item) => {}
        other => {
            return Err(ParseError::at(
                at.start,
                super::not_a_node_item(i, other, item.metadata.is_some()),
            ))
        }
    }
    let mut invalid = 0;
    let node = node(file, text, item, at, &mut invalid)?;
    Ok(Some((node, invalid)))
}

/// An item without `kind` is a Node when it has a name and a Node's spec or status fields.
fn looks_like_a_node(item: &Object<'_>) -> bool {
    let named = item.metadata.as_ref().is_some_and(|m| m.name.is_some());
    let spec = item.spec.as_ref().is_some_and(|s| {
        s.taints.is_some()
            || s.unschedulable.is_some()
            || s.pod_cidr.is_some()
            || s.provider_id.is_some()
    });
    let status = item
        .status
        .as_ref()
        .is_some_and(|s| s.node_info.is_some() || s.capacity.is_some() || s.allocatable.is_some());
    named && (spec || status)
}

fn node(
    file: usize,
    text: &str,
    object: Object<'_>,
    at: Range<usize>,
    invalid: &mut usize,
) -> Result<RawNode, ParseError> {
    let at = Loc { file, range: at };
    let metadata = object.metadata;
    let name = metadata
        .as_ref()
        .and_then(|m| m.name)
        .and_then(|raw| serde_json::from_str::<Cow<'_, str>>(raw.get()).ok())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| ParseError::at(at.range.start, "a Node without metadata.name"))?;
    let labels = metadata
        .and_then(|m| m.labels)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let spec = object.spec;
    let mut taints = Vec::new();
    for raw in spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
    {
        match serde_json::from_str::<JsonTaint<'_>>(raw.get())
            .ok()
            .and_then(taint)
        {
            Some(taint) => taints.push(PoolTaint {
                taint,
                at: Loc {
                    file,
                    range: range_in(text, raw),
                },
            }),
            None => *invalid += 1,
        }
    }
    let unschedulable = spec
        .as_ref()
        .filter(|s| s.unschedulable == Some(true))
        .map(|_| at.clone());
    Ok(RawNode {
        name: name.into_owned(),
        labels,
        taints,
        unschedulable,
        at,
        pool: None,
        declared: None,
    })
}

/// A taint the scheduler can use: a key and a known effect (what the rules reject is left out,
/// as in a YAML inventory).
fn taint(t: JsonTaint<'_>) -> Option<Taint> {
    let key = t.key.filter(|k| !k.is_empty())?;
    Some(Taint {
        key: key.into_owned(),
        value: t.value.map(Cow::into_owned).unwrap_or_default(),
        effect: Effect::parse(t.effect.as_deref()?)?,
    })
}

/// serde_json reports 1-based lines and columns; turn them into a byte offset.
fn json_error(text: &str, e: &serde_json::Error) -> ParseError {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let line = &text[line_start.min(text.len())..];
    let column = line
        .char_indices()
        .nth(e.column().saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m);
    ParseError::at(
        (line_start + column).min(text.len()),
        format!("not valid JSON: {message}"),
    )
}

#[cfg(test)]
mod tests {
    use crate::inventory::Inventory;

    fn load(text: &str) -> Result<Inventory, String> {
        Inventory::load(&[("nodes.json", text)]).map_err(|e| {
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    const LIST: &str = r#"{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
                "labels": {"kubernetes.io/hostname": "gpu-1", "pool": "gpu"},
                "name": "gpu-1"
            },
            "spec": {
                "providerID": "aws:///us-east-1a/i-0",
                "taints": [
                    {"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "pre\u0073ent"},
                    {"effect": "Sometimes", "key": "bad"}
                ]
            },
            "status": {"images": [{"names": ["a", "b"], "sizeBytes": 1}], "nodeInfo": {"kubeletVersion": "v1.31.0"}}
        },
        {
            "metadata": {"name": "web-1", "labels": {"pool": "web"}},
            "spec": {"unschedulable": true},
            "status": {"capacity": {"cpu": "4"}}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
"#;

    #[test]
    fn nodes_labels_taints_and_places() {
        let inv = load(LIST).unwrap();
        assert_eq!(inv.node_count(), 2);
        assert_eq!(inv.files[0].invalid_taints, 1);
        let gpu = &inv.pools[0];
        assert_eq!(gpu.nodes[0].name, "gpu-1");
        assert_eq!(gpu.label(None, "pool"), Some("gpu"));
        assert_eq!(gpu.taints.len(), 1);
        assert_eq!(
            gpu.taints[0].taint.to_string(),
            "nvidia.com/gpu=present:NoSchedule"
        );
        assert_eq!(
            &LIST[gpu.taints[0].at.range.clone()],
            r#"{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "pre\u0073ent"}"#
        );
        // The item without `kind` is a Node: it has a name and a Node's spec and status.
        let web = &inv.pools[1];
        assert_eq!(web.nodes[0].name, "web-1");
        assert!(web.unschedulable.is_some());
    }

    #[test]
    fn a_single_node_and_a_bom() {
        let inv = load("\u{feff}{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}}").unwrap();
        assert_eq!(inv.pools[0].nodes[0].name, "n");
    }

    #[test]
    fn errors_name_the_place() {
        let e = load("{\"kind\": \"List\",\n \"items\": [\n  {\"kind\": \"Pod\"}]}").unwrap_err();
        assert!(
            e.starts_with("nodes.json:3:3: items[0] is a Pod, not a Node"),
            "{e}"
        );
        let e = load("{\"items\": [{\"metadata\": {}}]}").unwrap_err();
        assert!(e.contains("items[0] has no `kind`"), "{e}");
        let e = load("{\"kind\": \"List\",\n \"items\": [,]}").unwrap_err();
        assert!(e.starts_with("nodes.json:2:12: not valid JSON: "), "{e}");
        let e = load("{\"kind\": \"Pod\"}").unwrap_err();
        assert!(e.contains("a Pod is not a node inventory"), "{e}");
        let e = load("{\"kind\": \"Node\", \"metadata\": {\"name\": \"\"}}").unwrap_err();
        assert!(e.contains("a Node without metadata.name"), "{e}");
    }
}
