//! Cluster Autoscaler's node-template tags: what the nodes of an AWS Auto Scaling group will
//! carry, written on the group so that the autoscaler can scale it up from zero nodes
//! (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "Auto-Discovery
//! Setup" and "Scaling a node group to 0"; the tags are read by aws_manager.go
//! `extractTaintsFromAsg`, `extractLabelsFromAsg` and `extractAllocatableResourcesFromAsg`):
//!
//! - `k8s.io/cluster-autoscaler/node-template/taint/<key>` = `<value>:<effect>`: a taint. The
//!   autoscaler takes the tag only when its value matches `(.*):(?:NoSchedule|NoExecute|
//!   PreferNoSchedule)` (anywhere in it), and then splits it at its first `:`, the value before
//!   and the effect after; a value without `:` and one of those effects is ignored, silently.
//! - `k8s.io/cluster-autoscaler/node-template/label/<key>` = `<value>`: a label.
//! - `k8s.io/cluster-autoscaler/node-template/resources/<name>` = `<quantity>`: what a node
//!   offers (a quantity that does not parse is ignored).
//!
//! They are written on the group in Terraform (`aws_autoscaling_group` `tag` blocks or
//! `tags`, `aws_autoscaling_group_tag`, the terraform-aws-modules/eks self-managed groups'
//! `autoscaling_group_tags`), CloudFormation (`AWS::AutoScaling::AutoScalingGroup` `Tags`) and
//! eksctl (a node group's `tags`). A taint tag becomes a `{key, value, effect}` mapping whose
//! scalars span the characters of the tag's key (after the prefix) and value, so the taint rules
//! point there.

use std::borrow::Cow;
use std::ops::Range;

use super::capacity::{Capacity, Offer};
use crate::syntax::{Document, Node, NodeId, NodeKind, Style};

pub(crate) const TAINT: &str = "k8s.io/cluster-autoscaler/node-template/taint/";
pub(crate) const LABEL: &str = "k8s.io/cluster-autoscaler/node-template/label/";
pub(crate) const RESOURCES: &str = "k8s.io/cluster-autoscaler/node-template/resources/";

/// One tag as written: its key and value, and where the characters of each are in the text
/// (`None` where they cannot be pointed at one by one: escapes, a block scalar).
#[derive(Debug, Clone)]
pub(crate) struct Tag<'a> {
    pub key: Cow<'a, str>,
    pub key_at: Option<Range<usize>>,
    pub value: Cow<'a, str>,
    pub value_at: Option<Range<usize>>,
}

/// Whether a taint list is made of node-template tags (the paths their readers give them end
/// so): the autoscaler, not the API server, reads them.
pub fn is_tag_list(path: &str) -> bool {
    [".tags", ".tag", ".Tags", ".autoscaling_group_tags"]
        .iter()
        .any(|s| path.ends_with(s))
}

/// Whether a text mentions node-template tags at all (cheap, for picking files).
pub(crate) fn mentions(text: &str) -> bool {
    text.contains("k8s.io/cluster-autoscaler/node-template/")
}

/// The taint a taint tag describes, as a mapping for the rules: its key the tag key after the
/// prefix, its value the tag value before the first `:`, its effect what follows (no effect
/// without a `:`). `None` for a tag of another kind, and for one whose characters cannot be
/// pointed at.
pub(crate) fn taint_node<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    tag: &Tag<'_>,
) -> Option<NodeId> {
    let name = tag.key.strip_prefix(TAINT)?;
    let (key_at, value_at) = (tag.key_at.clone()?, tag.value_at.clone()?);
    if text.get(key_at.clone()) != Some(&*tag.key)
        || text.get(value_at.clone()) != Some(&*tag.value)
    {
        return None;
    }
    let whole = key_at.start.min(value_at.start)..key_at.end.max(value_at.end);
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
    let key = sub(doc, key_at.end - name.len(), name.len());
    let value = &*tag.value;
    // A finding about the taint as a whole (its first field's name) points at the tag's
    // value. A value without a `:` is no `<value>:<effect>` at all, and the autoscaler ignores
    // the tag: the taint is its key alone, with no effect to find.
    let mut fields = Vec::new();
    match value.split_once(':') {
        Some((v, effect)) => {
            fields.push(("value", sub(doc, value_at.start, v.len()), None));
            let e = sub(doc, value_at.start + v.len() + 1, effect.len());
            fields.push(("effect", e, None));
            fields.push(("key", key, None));
        }
        None => fields.push(("key", key, Some(value_at.clone()))),
    }
    let entries = fields
        .into_iter()
        .map(|(name, v, at)| {
            let span = at.unwrap_or_else(|| doc.node(v).span.clone());
            let k = doc.add_node(Node {
                span: if span.is_empty() { whole.clone() } else { span },
                tag: None,
                kind: NodeKind::Scalar {
                    value: Cow::Borrowed(name),
                    style: Style::Plain,
                },
            });
            (k, v)
        })
        .collect();
    Some(doc.add_node(Node {
        span: whole,
        tag: None,
        kind: NodeKind::Mapping {
            entries,
            flow: true,
        },
    }))
}

/// A sequence of the taint nodes of `tags`; with how many taint tags could not be pointed at.
pub(crate) fn taint_sequence<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    tags: &[Tag<'_>],
) -> (Option<NodeId>, usize) {
    let mut items = Vec::new();
    let mut skipped = 0;
    for tag in tags.iter().filter(|t| t.key.starts_with(TAINT)) {
        match taint_node(text, doc, tag) {
            Some(n) => items.push(n),
            None => skipped += 1,
        }
    }
    if items.is_empty() {
        return (None, skipped);
    }
    let start = items
        .iter()
        .map(|&i| doc.node(i).span.start)
        .min()
        .unwrap_or(0);
    let end = items
        .iter()
        .map(|&i| doc.node(i).span.end)
        .max()
        .unwrap_or(0);
    let node = doc.add_node(Node {
        span: start..end,
        tag: None,
        kind: NodeKind::Sequence { items, flow: true },
    });
    (Some(node), skipped)
}

/// The labels the label tags give the nodes.
pub(crate) fn labels(tags: &[Tag<'_>]) -> Vec<(String, String)> {
    tags.iter()
        .filter_map(|t| {
            let name = t.key.strip_prefix(LABEL).filter(|n| !n.is_empty())?;
            Some((name.to_string(), t.value.to_string()))
        })
        .collect()
}

/// Adds what the resources tags say a node offers to `capacity` (a tag overrides what the
/// instance types say, as it does for the autoscaler's node template; a quantity that does not
/// parse is ignored, as the autoscaler ignores it).
pub(crate) fn add_resources(capacity: &mut Capacity, tags: &[Tag<'_>]) {
    for t in tags {
        let Some(name) = t.key.strip_prefix(RESOURCES).filter(|n| !n.is_empty()) else {
            continue;
        };
        let Some(amount) = crate::k8s::resources::amount(name, t.value.trim()) else {
            continue;
        };
        let offer = Offer {
            name: name.to_string(),
            min: amount,
            max: Some(amount),
        };
        match capacity
            .offers
            .binary_search_by(|o| o.name.as_str().cmp(name))
        {
            Ok(i) => capacity.offers[i] = offer,
            Err(i) => capacity.offers.insert(i, offer),
        }
    }
}

/// Adds to `taints` (a pool's, as written elsewhere) those of `from_tags` it does not have by
/// key and effect, and to `labels` the tags' labels it does not have: a pool's own definition
/// says what its nodes carry, the tags what the autoscaler is told they carry.
pub(crate) fn merge(
    taints: &mut Vec<super::PoolTaint>,
    from_tags: Vec<super::PoolTaint>,
    labels: &mut Vec<(String, String)>,
    from_labels: Vec<(String, String)>,
) {
    for t in from_tags {
        if !taints
            .iter()
            .any(|o| o.taint.key == t.taint.key && o.taint.effect == t.taint.effect)
        {
            taints.push(t);
        }
    }
    for l in from_labels {
        if !labels.iter().any(|(k, _)| *k == l.0) {
            labels.push(l);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag<'a>(text: &'a str, key: &str, value: &str) -> Tag<'a> {
        let k = text.find(key).unwrap();
        let v = text.rfind(value).unwrap();
        Tag {
            key: Cow::Borrowed(&text[k..k + key.len()]),
            key_at: Some(k..k + key.len()),
            value: Cow::Borrowed(&text[v..v + value.len()]),
            value_at: Some(v..v + value.len()),
        }
    }

    /// The value splits at its first `:`, as the autoscaler's `strings.SplitN(v, ":", 2)`.
    #[test]
    fn a_taint_tag_splits_as_the_autoscaler_splits_it() {
        let fields = |value: &str| -> Vec<(String, String)> {
            let text = format!("k8s.io/cluster-autoscaler/node-template/taint/dedicated = {value}");
            let mut doc = Document::synthetic(0..text.len());
            let t = tag(
                &text,
                "k8s.io/cluster-autoscaler/node-template/taint/dedicated",
                value,
            );
            let node = taint_node(&text, &mut doc, &t).unwrap();
            doc.mapping(node)
                .unwrap()
                .iter()
                .map(|&(k, v)| {
                    (
                        doc.scalar(k).unwrap().0.to_string(),
                        text[doc.node(v).span.clone()].to_string(),
                    )
                })
                .collect()
        };
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(
            fields("gpu:NoSchedule"),
            pairs(&[
                ("value", "gpu"),
                ("effect", "NoSchedule"),
                ("key", "dedicated")
            ])
        );
        assert_eq!(
            fields("a:b:NoExecute"),
            pairs(&[
                ("value", "a"),
                ("effect", "b:NoExecute"),
                ("key", "dedicated")
            ])
        );
        assert_eq!(
            fields("nvidia.com/gpu=true"),
            pairs(&[("key", "dedicated")])
        );
        assert!(is_tag_list("nodeGroups[0].tags") && !is_tag_list("spec.taints"));
    }

    #[test]
    fn labels_and_resources_tags() {
        let tags = [
            Tag {
                key: Cow::Borrowed("k8s.io/cluster-autoscaler/node-template/label/pool"),
                key_at: None,
                value: Cow::Borrowed("gpu"),
                value_at: None,
            },
            Tag {
                key: Cow::Borrowed(
                    "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu",
                ),
                key_at: None,
                value: Cow::Borrowed("4"),
                value_at: None,
            },
            Tag {
                key: Cow::Borrowed("k8s.io/cluster-autoscaler/node-template/resources/memory"),
                key_at: None,
                value: Cow::Borrowed("lots"),
                value_at: None,
            },
        ];
        assert_eq!(labels(&tags), [("pool".to_string(), "gpu".to_string())]);
        let mut capacity = Capacity::default();
        add_resources(&mut capacity, &tags);
        assert_eq!(capacity.offer("nvidia.com/gpu"), Some((4, Some(4))));
        assert_eq!(capacity.offer("memory"), None);
    }
}
