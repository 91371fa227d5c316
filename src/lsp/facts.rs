//! What one document says about tolerations and taints, with byte ranges: what hover and
//! completion look things up in. Pure: text in, data out, computed once per document version.

use std::ops::Range;

use crate::class::Class;
use crate::k8s::decode::Decoded;
use crate::k8s::model::{Taint, Toleration};
use crate::k8s::objects::{extract, items, Item, Object, Owner};
use crate::schedule::placement::item_range;
use crate::syntax;

#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// Objects with a pod template, tolerations or taints (and every Node), for the outline.
    pub objects: Vec<ObjectFact>,
    pub tolerations: Vec<TolerationFact>,
    pub taints: Vec<TaintFact>,
}

#[derive(Debug, Clone)]
pub struct ObjectFact {
    /// `Deployment shop/web`.
    pub label: String,
    pub kind: Option<String>,
    /// `metadata.name` and `metadata.namespace`, for workspace symbols.
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// The whole object.
    pub range: Range<usize>,
    /// Its `kind: ...` entry, else its name, else the start of the object.
    pub selection: Range<usize>,
}

#[derive(Debug, Clone)]
pub struct TolerationFact {
    /// The whole item, from its `-` to its last value.
    pub range: Range<usize>,
    /// Its object, an index in [`Facts::objects`].
    pub owner: Option<usize>,
    pub path: String,
    /// Its object and, when the object names its parts, the part of it whose pod template holds
    /// it, as every face names them ([`title`]): `RayCluster ml/rl-train, worker group
    /// l4-workers`.
    pub object: String,
    /// The toleration as the API server stores it, when it is valid enough to match.
    pub toleration: Option<Toleration>,
    /// The key's text (inside its quotes, if any), when the key is a plain string.
    pub key: Option<Range<usize>>,
    /// `operator` absent or null: the API server reads it as Equal.
    pub operator_omitted: bool,
    /// `effect` absent, null or empty: the toleration matches every effect.
    pub effect_omitted: bool,
}

#[derive(Debug, Clone)]
pub struct TaintFact {
    pub range: Range<usize>,
    /// Its object, an index in [`Facts::objects`].
    pub owner: Option<usize>,
    pub path: String,
    /// Its object, as every face names it ([`title`]).
    pub object: String,
    pub taint: Option<Taint>,
    /// The key's text (inside its quotes, if any), when the key is a plain string.
    pub key: Option<Range<usize>>,
}

impl Facts {
    pub fn collect(text: &str) -> Facts {
        Facts::of_parsed(text, &syntax::parse(text))
    }

    /// [`Facts::collect`] of a text already parsed into `stream`. A document that is a template
    /// or does not parse ([`crate::class::document`]) holds none, as lint and simulate read
    /// none of it.
    pub fn of_parsed(text: &str, stream: &syntax::Stream<'_>) -> Facts {
        let mut facts = Facts::default();
        for doc in &stream.documents {
            if matches!(
                crate::class::document(text, doc),
                Class::Template(_) | Class::Broken
            ) {
                continue;
            }
            let extracted = extract(doc);
            let object = |i: Option<usize>, part: Option<&str>| {
                title(i.map(|i| &extracted.objects[i]), part)
            };
            // Index in `facts.objects` of each extracted object that is listed.
            let mut listed: Vec<Option<usize>> = vec![None; extracted.objects.len()];
            let mut list = |i: usize, facts: &mut Facts| -> usize {
                *listed[i].get_or_insert_with(|| {
                    let o = &extracted.objects[i];
                    let span = |id| doc.node(id).span.clone();
                    let entry =
                        |m, key: &str| doc.get(m, key).map(|(k, v)| span(k).start..span(v).end);
                    let range = span(o.node);
                    let selection = entry(o.node, "kind")
                        .or_else(|| {
                            doc.get(o.node, "metadata")
                                .and_then(|(_, m)| entry(m, "name"))
                        })
                        .unwrap_or(range.start..range.start);
                    facts.objects.push(ObjectFact {
                        label: title(Some(o), None),
                        kind: o.kind.map(str::to_string),
                        name: o.name.map(str::to_string),
                        namespace: o.namespace.map(str::to_string),
                        // A block mapping's span runs on to the next token.
                        range: range.start..range.start + text[range].trim_end().len(),
                        selection,
                    });
                    facts.objects.len() - 1
                })
            };
            let mut listed_objects: Vec<usize> =
                extracted.pod_specs.iter().map(|p| p.object).collect();
            listed_objects.extend(
                (0..extracted.objects.len()).filter(|&i| extracted.objects[i].kind == Some("Node")),
            );
            listed_objects.extend(extracted.tolerations.iter().filter_map(|t| t.list.object));
            listed_objects.extend(extracted.taints.iter().filter_map(|t| t.object));
            listed_objects.sort_unstable();
            listed_objects.dedup();
            for i in listed_objects {
                list(i, &mut facts);
            }
            for list in &extracted.tolerations {
                let part = match list.owner {
                    Owner::PodSpec(i) => extracted.pod_specs.get(i).and_then(|spec| {
                        crate::k8s::parts::part(doc, &extracted.objects[spec.object], &spec.path)
                    }),
                    _ => None,
                };
                for item in items(doc, &list.list) {
                    facts.tolerations.push(TolerationFact {
                        range: item_range(text, doc, &item),
                        owner: list.list.object.and_then(|i| listed[i]),
                        path: item.path.clone(),
                        object: object(list.list.object, part.as_deref()),
                        toleration: item.toleration(),
                        key: key_range(text, doc, &item),
                        operator_omitted: omitted(&item, "operator"),
                        effect_omitted: omitted(&item, "effect"),
                    });
                }
            }
            for list in &extracted.taints {
                for item in items(doc, list) {
                    facts.taints.push(TaintFact {
                        range: item_range(text, doc, &item),
                        owner: list.object.and_then(|i| listed[i]),
                        path: item.path.clone(),
                        object: match list.object {
                            Some(_) => object(list.object, None),
                            None => "a taints list".to_string(),
                        },
                        taint: item.taint(),
                        key: key_range(text, doc, &item),
                    });
                }
            }
            // Tolerations and taints in YAML held in strings, at their characters here.
            for (inner, map) in crate::analysis::mapped_strings(text, doc) {
                if let Some(inner) = crate::analysis::deeper(|| Facts::collect(inner)) {
                    facts.add_embedded(inner, &map);
                }
            }
        }
        facts
    }

    /// The tolerations and taints of a string's YAML, placed in the outer text through `map`
    /// (the outer offset of each byte of the string, and of its end).
    fn add_embedded(&mut self, inner: Facts, map: &[usize]) {
        let at = |i: usize| map[i.min(map.len() - 1)];
        let outer = |r: &Range<usize>| at(r.start)..at(r.end).max(at(r.start));
        // A key is edited where it is written (rename): only one written without escapes.
        let key = |r: &Range<usize>| Some(outer(r)).filter(|o| o.len() == r.len());
        for mut t in inner.tolerations {
            t.range = outer(&t.range);
            t.key = t.key.as_ref().and_then(key);
            t.owner = None;
            self.tolerations.push(t);
        }
        for mut t in inner.taints {
            t.range = outer(&t.range);
            t.key = t.key.as_ref().and_then(key);
            t.owner = None;
            self.taints.push(t);
        }
    }

    /// The innermost toleration around `offset`.
    pub fn toleration_at(&self, offset: usize) -> Option<&TolerationFact> {
        self.tolerations
            .iter()
            .filter(|t| t.range.start <= offset && offset <= t.range.end)
            .min_by_key(|t| t.range.len())
    }

    pub fn taint_at(&self, offset: usize) -> Option<&TaintFact> {
        self.taints
            .iter()
            .filter(|t| t.range.start <= offset && offset <= t.range.end)
            .min_by_key(|t| t.range.len())
    }
}

/// Where an item's `key` is written: the decoded key's text inside the value's span (a
/// quoted scalar's quotes left out); `None` for an empty key or one written with escapes.
fn key_range(text: &str, doc: &syntax::Document<'_>, item: &Item<'_>) -> Option<Range<usize>> {
    let field = item.field("key")?;
    let Decoded::Str(key) = &field.decoded else {
        return None;
    };
    if key.is_empty() {
        return None;
    }
    let span = doc.node(field.value).span.clone();
    let at = text.get(span.clone())?.find(&**key)?;
    Some(span.start + at..span.start + at + key.len())
}

fn omitted(item: &Item<'_>, field: &str) -> bool {
    match item.field(field).map(|f| &f.decoded) {
        None | Some(Decoded::Null) => true,
        Some(Decoded::Str(s)) => s.is_empty() && field == "effect",
        Some(_) => false,
    }
}

/// How every face names an object, and the part of it that holds a pod template
/// ([`crate::k8s::parts::object_title`]): `Deployment shop/web`, ``Deployment `items[0]` ``,
/// `RayCluster ml/rl-train, worker group l4-workers`; a list outside any object is `a
/// tolerations list`.
pub fn title(object: Option<&Object<'_>>, part: Option<&str>) -> String {
    match object {
        Some(o) => crate::k8s::parts::object_title(o, part),
        None => "a tolerations list".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      tolerations:
      - key: dedicated
        value: web
      - {key: x, operator: Exists, effect: NoExecute}
---
kind: Node
metadata: {name: n1}
spec:
  taints:
  - key: dedicated
    value: web
    effect: NoSchedule
";

    #[test]
    fn finds_items_and_their_ranges() {
        let facts = Facts::collect(TEXT);
        assert_eq!(facts.tolerations.len(), 2);
        let first = &facts.tolerations[0];
        assert_eq!(
            &TEXT[first.range.clone()],
            "- key: dedicated\n        value: web"
        );
        assert!(first.operator_omitted && first.effect_omitted);
        assert_eq!(first.object, "Deployment shop/web");
        let second = &facts.tolerations[1];
        assert_eq!(
            &TEXT[second.range.clone()],
            "- {key: x, operator: Exists, effect: NoExecute}"
        );
        assert!(!second.operator_omitted && !second.effect_omitted);

        let at = TEXT.find("value: web").unwrap() + 3;
        assert_eq!(facts.toleration_at(at).unwrap().path, first.path);
        let taint = &facts.taints[0];
        assert_eq!(
            taint.taint.as_ref().unwrap().to_string(),
            "dedicated=web:NoSchedule"
        );
        assert_eq!(taint.object, "Node n1");
        assert!(first
            .toleration
            .as_ref()
            .unwrap()
            .tolerates(taint.taint.as_ref().unwrap(), false));
        assert!(facts
            .toleration_at(TEXT.find("template").unwrap())
            .is_none());
    }

    /// A Go template whose actions YAML reads as mappings is no manifest to lint or simulate,
    /// and none to index: its toleration and its object are not facts, those of the other
    /// document of the file are.
    #[test]
    fn a_template_holds_no_facts() {
        let template = "kind: Pod\nmetadata:\n  name: {{.Name}}\nspec:\n  tolerations:\n  - {key: a, operator: Exists}\n";
        let text = format!("{template}---\n{TEXT}");
        let facts = Facts::collect(&text);
        assert_eq!(facts.tolerations.len(), 2);
        assert!(facts.toleration_at(text.find("key: a").unwrap()).is_none());
        assert!(facts
            .objects
            .iter()
            .all(|o| o.kind.as_deref() != Some("Pod")));
        let found = crate::analyse(&text, &crate::Options::default());
        assert_eq!(found[0].rule, "helm-template");
    }
}
