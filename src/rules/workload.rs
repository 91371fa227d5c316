//! What the inventory rules see: one pod template, the inventory, and where the template fits.

use std::ops::Range;

use super::{RuleMeta, RULES};
use crate::config::Options;
use crate::diagnostic::{Diagnostic, Edit};
use crate::inventory::{Inventory, Loc, Pool};
use crate::k8s::decode::{resolve_scalar, Decoded};
use crate::k8s::model::{Miss, Operator, Taint, Toleration};
use crate::k8s::objects::{Extracted, Item, Object};
use crate::k8s::well_known::edit_distance;
use crate::schedule::admission::Source;
use crate::schedule::{simulate, Simulation, Workload, COMPARISON_GATE};
use crate::syntax::{Document, NodeId, NodeKind, Style};

/// How many pools a message lists before "and N more".
pub const LISTED_POOLS: usize = 4;

/// "and 1 more pool" / "and N more pools".
pub fn more_pools(n: usize) -> String {
    format!("and {n} more pool{}", if n == 1 { "" } else { "s" })
}

pub struct WorkloadCx<'a, 'd> {
    pub text: &'a str,
    pub doc: &'d Document<'a>,
    pub options: &'a Options,
    pub object: Option<&'d Object<'d>>,
    pub workload: &'a Workload<'d>,
    pub inventory: &'a Inventory,
    pub simulation: &'a Simulation,
    pub(crate) out: &'a mut Vec<Diagnostic>,
    pub(crate) rule: &'static RuleMeta,
}

impl<'a, 'd> WorkloadCx<'a, 'd> {
    /// Records a finding of the current rule.
    pub fn report(
        &mut self,
        range: Range<usize>,
        path: String,
        message: String,
    ) -> &mut Diagnostic {
        let found = super::finding(self.rule, self.doc, self.object, range, path, message);
        self.out.push(found);
        self.out.last_mut().expect("just pushed")
    }

    pub fn gate(&self) -> bool {
        self.options.feature(COMPARISON_GATE)
    }

    pub fn span(&self, node: NodeId) -> Range<usize> {
        self.doc.node(node).span.clone()
    }

    /// An item's first key (or the item).
    pub fn item_range(&self, item: &Item<'_>) -> Range<usize> {
        match self.doc.mapping(item.node).and_then(|e| e.first()) {
            Some(&(k, _)) => self.span(k),
            None => self.span(item.node),
        }
    }

    /// `Deployment shop/web`.
    pub fn title(&self) -> String {
        let Some(o) = self.object else {
            return "this pod template".to_string();
        };
        let kind = o.kind.unwrap_or("object");
        match (o.namespace, o.name) {
            (Some(ns), Some(n)) => format!("{kind} {ns}/{n}"),
            (None, Some(n)) => format!("{kind} {n}"),
            _ => kind.to_string(),
        }
    }

    /// Where to point at the template as a whole: its `tolerations` key, else its object's
    /// `metadata.name`, else the pod spec's first key; with that place's path.
    pub fn anchor(&self) -> (Range<usize>, String) {
        if let Some(list) = &self.workload.list {
            return (self.span(list.key), list.path.clone());
        }
        if let Some(o) = self.object {
            if let Some((_, name)) = self
                .doc
                .get(o.node, "metadata")
                .and_then(|(_, m)| self.doc.get(m, "name"))
            {
                let path = if o.path.is_empty() {
                    "metadata.name".to_string()
                } else {
                    format!("{}.metadata.name", o.path)
                };
                return (self.span(name), path);
            }
        }
        let first = self
            .doc
            .mapping(self.workload.spec)
            .and_then(|e| e.first())
            .map_or(self.workload.spec, |&(k, _)| k);
        (self.span(first), self.workload.path.clone())
    }

    /// The name of the inventory file a location is in.
    pub fn file(&self, at: &Loc) -> &str {
        self.inventory.file_name(at)
    }

    /// `pool gpu (3 nodes)`.
    pub fn pool_title(&self, pool: usize) -> String {
        let p = &self.inventory.pools[pool];
        format!("pool {} ({})", p.name, p.size())
    }

    /// A fix that adds these tolerations to the template.
    pub fn add_tolerations(&self, tolerations: &[Toleration]) -> Option<Edit> {
        let flows: Vec<String> = tolerations.iter().map(flow_yaml).collect();
        add_tolerations(self.text, self.doc, self.workload, &flows)
    }
}

/// Runs every rule's workload check over the pod templates of one document.
pub(crate) fn check_workloads<'a, 'd>(
    text: &'a str,
    doc: &'d Document<'a>,
    options: &'a Options,
    extracted: &'d Extracted<'d>,
    inventory: &'a Inventory,
    out: &'a mut Vec<Diagnostic>,
) {
    for i in 0..extracted.pod_specs.len() {
        let workload = Workload::new(doc, extracted, i, options);
        let simulation = simulate(&workload, inventory, options);
        for rule in RULES {
            let mut cx = WorkloadCx {
                text,
                doc,
                options,
                object: Some(&extracted.objects[workload.object]),
                workload: &workload,
                inventory,
                simulation: &simulation,
                out,
                rule: rule.meta(),
            };
            rule.check_workload(&mut cx);
        }
    }
}

/// A toleration as a one-line flow mapping, quoting a value YAML 1.1 would not read as a string.
pub fn flow_yaml(t: &Toleration) -> String {
    let mut parts = Vec::new();
    if !t.key.is_empty() {
        parts.push(format!("key: {}", t.key));
    }
    parts.push(format!("operator: {}", t.operator.as_str()));
    if t.operator != Operator::Exists {
        let plain = matches!(
            resolve_scalar(&t.value, Style::Plain, None),
            Decoded::Str(_)
        ) && !t.value.contains([':', '#', ',', '[', ']', '{', '}']);
        if plain {
            parts.push(format!("value: {}", t.value));
        } else {
            parts.push(format!("value: {}", super::go_quote(&t.value)));
        }
    }
    if let Some(e) = t.effect {
        parts.push(format!("effect: {e}"));
    }
    if let Some(s) = t.toleration_seconds {
        parts.push(format!("tolerationSeconds: {s}"));
    }
    format!("{{{}}}", parts.join(", "))
}

/// The toleration that tolerates exactly this taint: `Equal` its value, or `Exists` without one.
pub fn toleration_for(taint: &Taint) -> Toleration {
    Toleration {
        key: taint.key.clone(),
        operator: if taint.value.is_empty() {
            Operator::Exists
        } else {
            Operator::Equal
        },
        value: taint.value.clone(),
        effect: Some(taint.effect),
        toleration_seconds: None,
    }
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// One edit adding flow-mapping tolerations to a template: appended to its `tolerations` list
/// (block or flow), or as a new `tolerations:` entry of the pod spec.
fn add_tolerations(
    text: &str,
    doc: &Document<'_>,
    w: &Workload<'_>,
    flows: &[String],
) -> Option<Edit> {
    if flows.is_empty() {
        return None;
    }
    let Some(list) = &w.list else {
        let value = format!("[{}]", flows.join(", "));
        return super::edits::add_entry(text, doc, doc.resolve(w.spec), "tolerations", &value);
    };
    let seq = doc.resolve(list.node);
    match &doc.node(seq).kind {
        NodeKind::Sequence { items, flow: true } => {
            let at = match items.last() {
                Some(&last) => doc.node(last).span.end,
                None => doc.node(seq).span.start + 1,
            };
            let lead = if items.is_empty() { "" } else { ", " };
            Some(Edit {
                range: at..at,
                replacement: format!("{lead}{}", flows.join(", ")),
            })
        }
        NodeKind::Sequence { items, flow: false } => {
            let &last = items.last()?;
            let item_start = doc.node(last).span.start;
            let dash = text[..item_start].rfind('-')?;
            let ls = line_start(text, dash);
            let indent = &text[ls..dash];
            if !indent.bytes().all(|c| c == b' ') {
                return None;
            }
            // A block mapping's span runs to the next token: step back to its last character,
            // then past the end of that line (and any comment on it).
            let end = doc.node(last).span.end.max(item_start);
            let end = text[..end].trim_end().len().max(item_start);
            let at = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
            let nl = newline(text);
            let lead = if at == text.len() && !text.ends_with('\n') {
                nl
            } else {
                ""
            };
            let mut replacement = lead.to_string();
            for f in flows {
                replacement.push_str(&format!("{indent}- {f}{nl}"));
            }
            Some(Edit {
                range: at..at,
                replacement,
            })
        }
        _ => None,
    }
}

/// How close a toleration comes to tolerating a taint: lower is closer; 0 tolerates it, and 10
/// or more is unrelated (another key that is not a near-typo).
pub fn closeness(t: &Toleration, taint: &Taint, gate: bool) -> (usize, Vec<Miss>) {
    let misses = t.misses(taint, gate);
    let score = misses
        .iter()
        .map(|m| match m {
            Miss::Key { toleration, taint } if edit_distance(toleration, taint, 2) <= 2 => 2,
            Miss::Key { .. } => 10,
            _ => 1,
        })
        .sum();
    (score, misses)
}

/// The manifest toleration that comes closest to tolerating one of `taints` (of `pool`):
/// (tolerations index, taint index, why it misses).
pub fn closest_toleration(
    w: &Workload<'_>,
    pool: &Pool,
    taints: &[usize],
    gate: bool,
) -> Option<(usize, usize, Vec<Miss>)> {
    let mut best: Option<(usize, usize, usize, Vec<Miss>)> = None;
    for (i, t) in w.tolerations.iter().enumerate() {
        if !matches!(w.sources[i], Source::Manifest(_)) {
            continue;
        }
        for &ti in taints {
            let (score, misses) = closeness(t, &pool.taints[ti].taint, gate);
            if score == 0 || score >= 10 {
                continue;
            }
            if best.as_ref().is_none_or(|b| score < b.0) {
                best = Some((score, i, ti, misses));
            }
        }
    }
    best.map(|(_, i, ti, m)| (i, ti, m))
}

/// "a; b; c" of the misses.
pub fn misses_text(misses: &[Miss]) -> String {
    misses
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::model::Effect;

    #[test]
    fn flow_yaml_quotes_what_yaml_would_not_read_as_a_string() {
        let t = toleration_for(&Taint {
            key: "spot".into(),
            value: "true".into(),
            effect: Effect::NoSchedule,
        });
        assert_eq!(
            flow_yaml(&t),
            "{key: spot, operator: Equal, value: \"true\", effect: NoSchedule}"
        );
        let t = toleration_for(&Taint {
            key: "gpu".into(),
            value: String::new(),
            effect: Effect::NoExecute,
        });
        assert_eq!(
            flow_yaml(&t),
            "{key: gpu, operator: Exists, effect: NoExecute}"
        );
    }
}
