//! Kubelet flags written in node configuration: `kubeletExtraArgs` of a kubeadm
//! `nodeRegistration` (a map in kubeadm v1beta3 and Cluster API v1beta1, a list of
//! `{name, value}` in kubeadm v1beta4 and Cluster API v1beta2), and the two flags that shape a
//! node for the scheduler: `register-with-taints` (`key=value:Effect,key:Effect`, parsed by
//! kubernetes/kubernetes `pkg/util/taints/taints.go` `ParseTaints`) and `node-labels`
//! (`key=value,key2=value2`).
//!
//! A `register-with-taints` string becomes a list of taint mappings whose scalars span the
//! characters of each `key=value:Effect` inside the string (as a pool file's strings do, through
//! [`compact::taint_spec`]), so the ordinary taint rules check them where they are written.

use std::borrow::Cow;

use super::compact;
use crate::k8s::decode::{decode, Decoded};
use crate::k8s::objects::List;
use crate::syntax::{Document, Node, NodeId, NodeKind, Style};

/// A flag found in `kubeletExtraArgs`: the node to point at for the flag, its value's node, and
/// the value's path.
pub(crate) struct Arg {
    pub key: NodeId,
    pub value: NodeId,
    pub path: String,
}

/// The flag `name` in a `kubeletExtraArgs` field (map or list form); the last one wins, as kubeadm
/// builds its argument list (`cmd/kubeadm/app/util/arguments.go`).
pub(crate) fn extra_arg(doc: &Document<'_>, args: NodeId, base: &str, name: &str) -> Option<Arg> {
    if doc.mapping(args).is_some() {
        let (key, value) = doc.get(args, name)?;
        return Some(Arg {
            key,
            value,
            path: format!("{base}[{name}]"),
        });
    }
    let items = doc.sequence(args)?;
    items.iter().enumerate().rev().find_map(|(i, &item)| {
        (doc.get_str(item, "name") == Some(name)).then_some(())?;
        let (key, value) = doc.get(item, "value")?;
        Some(Arg {
            key,
            value,
            path: format!("{base}[{i}].value"),
        })
    })
}

/// The `register-with-taints` value at `arg` as a taint list for the rules: one mapping per
/// comma-separated taint, spanning its characters. A taint that does not split the way
/// `ParseTaints` splits it (`a=b=c:NoSchedule`) becomes a mapping with the whole text as its
/// key, so the rules report it. When the value's characters cannot be pointed at one by one (a
/// block scalar, an escape in a quoted string), every taint spans the whole value. `None` when
/// the value is not a string.
pub(crate) fn taint_list<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    arg: &Arg,
    object: Option<usize>,
) -> Option<List> {
    let node = doc.node(doc.resolve(arg.value));
    let span = node.span.clone();
    let NodeKind::Scalar { value, style } = &node.kind else {
        return None;
    };
    let start = match style {
        Style::Plain => Some(span.start),
        Style::SingleQuoted | Style::DoubleQuoted => Some(span.start + 1),
        _ => None,
    };
    let value = value.to_string();
    // Where the value's characters are in the text, when they are there as they read.
    let exact = start.filter(|&s| text.get(s..s + value.len()) == Some(value.as_str()));
    let mut items = Vec::new();
    let mut at = 0;
    for piece in value.split(',') {
        let lead = piece.len() - piece.trim_start().len();
        let body = piece.trim();
        let piece_at = at + lead;
        at += piece.len() + 1;
        if body.is_empty() {
            continue;
        }
        let (range, scalar_value) = match exact {
            Some(s) => {
                let range = s + piece_at..s + piece_at + body.len();
                (range.clone(), Cow::Borrowed(&text[range]))
            }
            None => (span.clone(), Cow::Owned(body.to_string())),
        };
        let scalar = doc.add_node(Node {
            span: range.clone(),
            tag: Some("!!str".into()),
            kind: NodeKind::Scalar {
                value: scalar_value,
                style: Style::Plain,
            },
        });
        let mapping = match exact {
            Some(_) => compact::taint_spec(text, doc, scalar, "register-with-taints").ok(),
            None => compact::taint_spec_spanning(doc, body, span.clone()),
        };
        let mapping = mapping.unwrap_or_else(|| {
            let key = doc.add_node(Node {
                span: range.clone(),
                tag: None,
                kind: NodeKind::Scalar {
                    value: Cow::Borrowed("key"),
                    style: Style::Plain,
                },
            });
            doc.add_node(Node {
                span: range,
                tag: None,
                kind: NodeKind::Mapping {
                    entries: vec![(key, scalar)],
                    flow: true,
                },
            })
        });
        items.push(mapping);
    }
    let seq = doc.add_node(Node {
        span,
        tag: None,
        kind: NodeKind::Sequence { items, flow: true },
    });
    Some(List {
        whole: exact.is_none(),
        node: seq,
        key: arg.key,
        path: arg.path.clone(),
        object,
    })
}

/// The labels of a `node-labels` value (`key=value,key2=value2`); pairs without `=` are left out
/// (the kubelet refuses them).
pub(crate) fn labels(doc: &Document<'_>, value: NodeId) -> Vec<(String, String)> {
    let Decoded::Str(s) = decode(doc, value) else {
        return Vec::new();
    };
    s.split(',')
        .filter_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    #[test]
    fn flags_in_both_forms_and_taints_at_their_characters() {
        let text = "a:\n  register-with-taints: \"x=y:NoSchedule, b:NoExecute,,\"\n  node-labels: k=v,role=gpu\nb:\n- {name: register-with-taints, value: z=1:NoSchedule}\n- {name: register-with-taints, value: 'q=a=b:NoSchedule'}\n";
        let stream = parse(text);
        let mut doc = stream.documents.into_iter().next().unwrap();
        let root = doc.root.unwrap();
        let (_, a) = doc.get(root, "a").unwrap();
        let (_, b) = doc.get(root, "b").unwrap();
        let arg = extra_arg(&doc, a, "a", "register-with-taints").unwrap();
        assert_eq!(arg.path, "a[register-with-taints]");
        let list = taint_list(text, &mut doc, &arg, None).unwrap();
        let items = crate::k8s::objects::items(&doc, &list);
        let got: Vec<String> = items
            .iter()
            .map(|i| i.taint().unwrap().to_string())
            .collect();
        assert_eq!(got, ["x=y:NoSchedule", "b:NoExecute"]);
        let effect = items[1].field("effect").unwrap().value;
        assert_eq!(&text[doc.node(effect).span.clone()], "NoExecute");
        let labels_arg = extra_arg(&doc, a, "a", "node-labels").unwrap();
        assert_eq!(
            labels(&doc, labels_arg.value),
            [("k".into(), "v".into()), ("role".into(), "gpu".into())]
        );
        // The list form: the last one wins; a taint that does not split is one key.
        let arg = extra_arg(&doc, b, "b", "register-with-taints").unwrap();
        assert_eq!(arg.path, "b[1].value");
        let list = taint_list(text, &mut doc, &arg, None).unwrap();
        let items = crate::k8s::objects::items(&doc, &list);
        assert_eq!(items[0].str("key"), "q=a=b:NoSchedule");
        assert!(items[0].taint().is_none());
    }

    #[test]
    fn block_and_escaped_values_are_read_at_the_whole_value() {
        let text = "a:\n  register-with-taints: >-\n    x=y:NoSchedule,\n    b:NoExecute\nb:\n  register-with-taints: \"q=\\x41:NoSchedule\"\n";
        let stream = parse(text);
        let mut doc = stream.documents.into_iter().next().unwrap();
        let root = doc.root.unwrap();
        for (field, want) in [
            ("a", vec!["x=y:NoSchedule", "b:NoExecute"]),
            ("b", vec!["q=A:NoSchedule"]),
        ] {
            let (_, at) = doc.get(root, field).unwrap();
            let arg = extra_arg(&doc, at, field, "register-with-taints").unwrap();
            let value_span = doc.node(arg.value).span.clone();
            let list = taint_list(text, &mut doc, &arg, None).unwrap();
            let items = crate::k8s::objects::items(&doc, &list);
            let got: Vec<String> = items
                .iter()
                .map(|i| i.taint().unwrap().to_string())
                .collect();
            assert_eq!(got, want);
            // Each taint points at the whole value.
            let effect = items[0].field("effect").unwrap().value;
            assert_eq!(doc.node(effect).span, value_span);
        }
    }
}
