//! AWS CloudFormation Auto Scaling groups (`AWS::AutoScaling::AutoScalingGroup`) that tell
//! Cluster Autoscaler what their nodes carry, in node-template tags (see [`super::asg_tags`]).
//!
//! Where (AWS CloudFormation User Guide, "AWS::AutoScaling::AutoScalingGroup" and its
//! "TagProperty"): `Resources.<logical id>.Properties` holds `AutoScalingGroupName`,
//! `MinSize`, `MaxSize`, `DesiredCapacity` (strings) and `Tags`, a list of `{Key, Value,
//! PropagateAtLaunch}`. A template is YAML or JSON (JSON is YAML): its tag values get the taint
//! rules at their characters. A value that is an intrinsic function (`!Sub`, `Fn::Join`) is not
//! a literal, and is not guessed. A group without a Cluster Autoscaler tag is no node group.

use std::borrow::Cow;

use super::nodes::{scalar_text, taints};
use super::{asg_tags, Count, Defined, Loc, RawNode};
use crate::k8s::decode::decode;
use crate::k8s::objects::List;
use crate::syntax::{Document, NodeId, NodeKind, Style};

const ASG: &str = "AWS::AutoScaling::AutoScalingGroup";

/// Whether a document is a CloudFormation template with an Auto Scaling group.
pub(crate) fn is_template(doc: &Document<'_>, root: NodeId) -> bool {
    let Some((_, resources)) = doc.get(root, "Resources") else {
        return false;
    };
    doc.mapping(resources)
        .unwrap_or_default()
        .iter()
        .any(|&(_, r)| doc.get_str(r, "Type") == Some(ASG))
}

/// A literal scalar's text and where its characters are; `None` for an intrinsic function
/// (`!Sub ...`, `{"Fn::Sub": ...}`) or anything but a scalar.
fn literal<'a>(
    text: &str,
    doc: &Document<'a>,
    node: NodeId,
) -> Option<(Cow<'a, str>, Option<std::ops::Range<usize>>)> {
    let node = doc.node(doc.resolve(node));
    if node.tag.as_deref().is_some_and(|t| t != "!!str") {
        return None;
    }
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
    Some((value.clone(), at))
}

/// Reads a template's Auto Scaling groups that carry Cluster Autoscaler tags (`is_template`
/// holds).
pub(crate) fn read<'a>(
    file: usize,
    text: &'a str,
    doc: &mut Document<'a>,
    root: NodeId,
    index: usize,
) -> Defined {
    let mut out = Defined::default();
    let Some((_, resources)) = doc.get(root, "Resources") else {
        return out;
    };
    let entries = doc.mapping(resources).unwrap_or_default().to_vec();
    for (n, (k, r)) in entries.into_iter().enumerate() {
        if doc.get_str(r, "Type") != Some(ASG) {
            continue;
        }
        let Some(id) = scalar_text(doc, k) else {
            continue;
        };
        let Some((_, props)) = doc.get(r, "Properties") else {
            continue;
        };
        let Some((tags_key, tag_list)) = doc.get(props, "Tags") else {
            continue;
        };
        let tags: Vec<asg_tags::Tag<'a>> = doc
            .sequence(tag_list)
            .unwrap_or_default()
            .iter()
            .filter_map(|&t| {
                let (key, key_at) = literal(text, doc, doc.get(t, "Key")?.1)?;
                let (value, value_at) = literal(text, doc, doc.get(t, "Value")?.1)?;
                Some(asg_tags::Tag {
                    key,
                    key_at,
                    value,
                    value_at,
                })
            })
            .collect();
        if !tags
            .iter()
            .any(|t| t.key.starts_with("k8s.io/cluster-autoscaler/"))
        {
            continue;
        }
        let path = format!("Resources.{id}.Properties.Tags");
        let (seq, skipped) = asg_tags::taint_sequence(text, doc, &tags);
        out.invalid += skipped;
        let list = seq.map(|node| List {
            whole: false,
            node,
            key: tags_key,
            path,
            object: None,
        });
        let (found, left_out) = list
            .as_ref()
            .map(|l| taints(file, doc, l))
            .unwrap_or_default();
        out.invalid += left_out;
        let int = |field: &str| {
            doc.get(props, field)
                .and_then(|(_, v)| {
                    let d = decode(doc, v);
                    d.as_int64()
                        .ok()
                        .flatten()
                        .or_else(|| scalar_text(doc, v)?.parse().ok())
                })
                .and_then(|n| u64::try_from(n).ok())
        };
        let count = match (int("MinSize"), int("MaxSize"), int("DesiredCapacity")) {
            (None, None, Some(d)) => Count {
                min: Some(d),
                max: Some(d),
            },
            (min, max, _) => Count { min, max },
        };
        let name = doc
            .get(props, "AutoScalingGroupName")
            .and_then(|(_, v)| literal(text, doc, v))
            .map_or(id, |(name, _)| name.to_string());
        let at = Loc {
            file,
            range: doc.node(r).span.clone(),
        };
        let mut node = RawNode::defined(
            name,
            "cloudformation-autoscalinggroup",
            at,
            (file, (index << 16) + n),
            count,
        );
        node.taints = found;
        node.labels = asg_tags::labels(&tags);
        if let Some(d) = &mut node.declared {
            asg_tags::add_resources(&mut d.capacity, &tags);
        }
        out.nodes.push(node);
        out.lists.extend(list);
    }
    out
}
