//! What the inventory rules see: one pod template, the inventory, and where the template fits.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::ops::Range;
use std::sync::Arc;

use super::{RuleMeta, RULES};
use crate::config::Options;
use crate::diagnostic::{Diagnostic, Edit, Severity};
use crate::inventory::{Inventory, Loc};
use crate::k8s::model::{Operator, Taint, Toleration};
use crate::k8s::objects::{Extracted, Item, Object};
use crate::schedule::admission::Source;
use crate::schedule::placement::Placement;
use crate::schedule::{
    kept_simulation, shared_simulation, simulate, Asks, Shared, Simulation, Verdict, Workload,
    COMPARISON_GATE,
};
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

    /// Whether the API server rejects this toleration as written: a rule that checks fields
    /// has reported an error in it. The inventory rules say nothing more about such a
    /// toleration (what it matches is moot until it is valid).
    pub fn rejected(&self, item: &Item<'_>) -> bool {
        self.out.iter().any(|d| {
            d.document == Some(self.doc.index)
                && super::find(d.rule)
                    .is_some_and(|m| !m.needs_inventory && m.severity == Severity::Error)
                && d.path.as_deref().is_some_and(|p| {
                    p.strip_prefix(item.path.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
                })
        })
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

    /// `Deployment shop/web`, `RayCluster ml/rl-train, worker group l4-workers`: as every
    /// face names it ([`crate::k8s::parts::title`]); one found by its shape says so.
    pub fn title(&self) -> String {
        let Some(o) = self.object else {
            return "this pod template".to_string();
        };
        // One found by its shape says its place too, after the title every face gives it.
        let title = crate::k8s::parts::object_title(o, self.workload.part.as_deref());
        if self.workload.by_shape {
            format!(
                "{title} (a pod template at {} found by its shape: kind {} is not in \
                 taintlint's table)",
                self.workload.path,
                o.kind.unwrap_or("workload of unknown kind")
            )
        } else {
            title
        }
    }

    /// Where to point at the template as a whole: its `tolerations` key, else its object's
    /// `metadata.name` (for a core workload, whose only pod template it is), else the pod
    /// spec's first key; with that place's path.
    pub fn anchor(&self) -> (Range<usize>, String) {
        if let Some(list) = &self.workload.list {
            return (self.span(list.key), list.path.clone());
        }
        let core = self.object.is_some_and(|o| {
            let api_version = self.doc.get_str(o.node, "apiVersion");
            o.kind
                .is_some_and(|kind| crate::k8s::objects::is_core_workload(api_version, kind))
        });
        if let Some(o) = self.object.filter(|_| core) {
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
        pool_title(self.inventory, pool)
    }

    /// A fix that adds these tolerations to the template, in the style of its list (block or
    /// flow, indentation, quoting).
    pub fn add_tolerations(&self, tolerations: &[Toleration]) -> Option<Edit> {
        add_tolerations(self.text, self.doc, self.workload, tolerations)
    }
}

/// Whether the inventory rules judge a toleration: the manifest's, with a key that is no node
/// condition's.
/// How a fix that adds `tolerations` may be applied: for review, or by hand when one of them
/// tolerates a taint that keeps a pool for some workloads
/// ([`crate::k8s::well_known::reserves_pool`]): who may use such a pool is for a person to
/// decide, as a fix that stops tolerating a taint is. With the words the fix's title ends with.
pub fn access(tolerations: &[Toleration]) -> (crate::diagnostic::Applicability, &'static str) {
    if tolerations
        .iter()
        .any(|t| crate::k8s::well_known::reserves_pool(&t.key))
    {
        (
            crate::diagnostic::Applicability::Manual,
            " (a pool kept for some workloads; not applied in bulk)",
        )
    } else {
        (crate::diagnostic::Applicability::NeedsReview, "")
    }
}

pub fn judged_toleration(t: &Toleration, source: &Source) -> bool {
    matches!(source, Source::Manifest(_))
        && !t.key.is_empty()
        && !crate::k8s::well_known::CONDITION_TAINT_KEYS.contains(&t.key.as_str())
}

/// `pool gpu (3 nodes)`.
pub fn pool_title(inventory: &Inventory, pool: usize) -> String {
    let p = &inventory.pools[pool];
    format!("pool {} ({})", p.name, p.size())
}

/// Feeds `h` a place in the inventory as a finding shows it: the file's name and the range.
pub fn hash_place(inventory: &Inventory, at: &Loc, h: &mut DefaultHasher) {
    inventory.file_name(at).hash(h);
    at.range.hash(h);
}

/// Feeds `h` what a finding can show of a pool: its title, its node count, its places and its
/// taints.
pub fn hash_pool(inventory: &Inventory, p: usize, h: &mut DefaultHasher) {
    let pool = &inventory.pools[p];
    (p, &pool.name, pool.size(), pool.nodes.len()).hash(h);
    hash_place(inventory, &pool.at, h);
    if let Some(at) = &pool.unschedulable {
        hash_place(inventory, at, h);
    }
    for pt in &pool.taints {
        pt.taint.hash(h);
        hash_place(inventory, &pt.at, h);
    }
}

/// Feeds `h` what a finding on a pool's verdict can show: the verdict whole (its reasons,
/// the taints it gets past, ...), each reason in words, and the pool ([`hash_pool`]).
pub fn hash_verdict(inventory: &Inventory, p: usize, v: &Verdict, h: &mut DefaultHasher) {
    let pool = &inventory.pools[p];
    format!("{v:?}").hash(h);
    for r in &v.reasons {
        r.describe(pool).hash(h);
        r.explain(pool).hash(h);
    }
    hash_pool(inventory, p, h);
}

/// Feeds `h` everything a finding on a template's placement can show of its simulation and
/// of the pools: every pool's verdict whole, and each group of its nodes with its verdict
/// ([`hash_verdict`]).
pub fn hash_shown(simulation: &Simulation, inventory: &Inventory, h: &mut DefaultHasher) {
    inventory.pools.len().hash(h);
    for (p, (pv, pool)) in simulation.pools.iter().zip(&inventory.pools).enumerate() {
        format!("{pv:?}").hash(h);
        for (verdict, member, n) in pv.groups(pool) {
            (member, n).hash(h);
            hash_verdict(inventory, p, verdict, h);
        }
    }
}

/// Feeds `h` what a finding on the nodes a template fits can show: each fitting (pool,
/// member, verdict) ([`hash_verdict`]) and how many nodes it fits.
pub fn hash_fits(simulation: &Simulation, inventory: &Inventory, h: &mut DefaultHasher) {
    let fits = simulation.fits(inventory);
    fits.len().hash(h);
    for (p, member, v) in fits {
        member.hash(h);
        hash_verdict(inventory, p, v, h);
    }
    simulation.fitting(inventory).hash(h);
}

/// What a pod template asks of the inventory, as [`super::Rule::workload_reads`] reads it: the
/// simulation of it and what the simulation was made from.
pub struct Reading<'a> {
    pub kind: Option<&'a str>,
    /// Every toleration the pod ends up with, and where each comes from.
    pub tolerations: &'a [Toleration],
    pub sources: &'a [Source],
    /// Its `nodeSelector` entries.
    pub node_selector: &'a [(Arc<str>, Arc<str>)],
    /// The terms of its preferred node affinity.
    pub preferred: &'a [crate::schedule::affinity::Term],
    /// Whether the comparison operators' feature gate is on.
    pub gate: bool,
    pub simulation: &'a Simulation,
    pub inventory: &'a Inventory,
}

/// What every rule reads of `inventory` and of the simulation for the pod templates that ask
/// what `shared` was made for, hashed ([`super::Rule::workload_reads`]); `None` when a rule
/// cannot say. Worked out once per simulation kept.
pub fn workload_reads(shared: &Shared, inventory: &Inventory) -> Option<u64> {
    *shared.reads.get_or_init(|| {
        let asks = &shared.asks;
        let reading = Reading {
            kind: asks.kind.as_deref(),
            tolerations: &asks.tolerations,
            sources: &asks.sources,
            node_selector: &asks.node_selector,
            preferred: &asks.preferred,
            gate: asks.gate,
            simulation: &shared.simulation,
            inventory,
        };
        let mut h = DefaultHasher::new();
        for rule in RULES {
            rule.meta().name.hash(&mut h);
            if !rule.workload_reads(&reading, &mut h) {
                return None;
            }
        }
        Some(h.finish())
    })
}

/// What a file's findings read of the inventory: for each pod template judged, what it asks
/// and the hash of what the rules read for it ([`workload_reads`]). Under another inventory
/// that gives every template the same hash, the file's findings are the same ([`Self::still_hold`]).
#[derive(Debug, Clone, Default)]
pub struct InventoryReads {
    templates: Vec<(Arc<Asks>, u64)>,
    /// Something read the inventory in a way not told here (a template with resource claims,
    /// a rule that cannot say, YAML in a string judged against the inventory).
    opaque: bool,
    /// The hash of the inventory's distinct taints, when fixes were held back by them
    /// ([`crate::schedule::keeps_meaning::guard`]).
    taints: Option<u64>,
}

impl InventoryReads {
    /// The findings read the inventory in a way not told here.
    pub fn opaque(&mut self) {
        self.opaque = true;
    }

    /// Fixes were held back by the inventory's distinct taints, whose hash is `digest`.
    pub fn read_taints(&mut self, digest: u64) {
        self.taints = Some(digest);
    }

    /// Whether the findings that read this of another inventory are the same under
    /// `inventory`: every template gets the same simulation answers and what the rules read of
    /// them is the same. (A template asking what no workload judged against `inventory` asked
    /// yet cannot be told: the file is judged again, which keeps its simulation.)
    pub fn still_hold(&self, inventory: &Inventory) -> bool {
        if self.opaque {
            return false;
        }
        if let Some(taints) = self.taints {
            if crate::schedule::keeps_meaning::cluster_taints_digest(inventory) != taints {
                return false;
            }
        }
        self.templates.iter().all(|(asks, digest)| {
            kept_simulation(asks, inventory)
                .is_some_and(|shared| workload_reads(&shared, inventory) == Some(*digest))
        })
    }
}

/// Runs every rule's workload check over the pod templates of one document; keeps each
/// simulation in `placements` when asked to, and what the rules read of the inventory in
/// `reads`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_workloads<'a, 'd>(
    text: &'a str,
    doc: &'d Document<'a>,
    options: &'a Options,
    extracted: &'d Extracted<'d>,
    inventory: &'a Inventory,
    out: &'a mut Vec<Diagnostic>,
    mut placements: Option<&mut Vec<Placement>>,
    mut reads: Option<&mut InventoryReads>,
    specs: std::ops::Range<usize>,
) {
    for i in specs {
        let workload = Workload::new(doc, extracted, i, options);
        let simulation = match shared_simulation(&workload, inventory, options) {
            Some(shared) => {
                if let Some(reads) = reads.as_deref_mut() {
                    match workload_reads(&shared, inventory) {
                        Some(digest) => reads.templates.push((shared.asks.clone(), digest)),
                        None => reads.opaque(),
                    }
                }
                shared.simulation.clone()
            }
            None => {
                if let Some(reads) = reads.as_deref_mut() {
                    reads.opaque();
                }
                Arc::new(simulate(&workload, inventory, options))
            }
        };
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
        if let Some(placements) = placements.as_deref_mut() {
            let object = &extracted.objects[workload.object];
            let cx = WorkloadCx {
                text,
                doc,
                options,
                object: Some(object),
                workload: &workload,
                inventory,
                simulation: &simulation,
                out,
                rule: &super::unschedulable::META,
            };
            let said = super::unschedulable::closest_said(&cx);
            let mut placement = Placement::new(doc, object, &workload, simulation);
            if let Some(said) = said {
                placement.cause = Some(said.cause);
                placement.cause_alone = said.why;
                placement.near = said.near;
            }
            placements.push(placement);
        }
    }
}

/// A toleration's fields as `(name, value)` pairs, each value written in the quoting style the
/// list uses for that field (`styles`), or plain unless YAML 1.1 would not read it as a string.
fn fields(t: &Toleration, styles: &FieldStyles) -> Vec<(&'static str, String)> {
    let write = |name: &str, value: &str| {
        super::edits::string_in_style(value, styles.of(name))
            .unwrap_or_else(|| super::go_quote(value))
    };
    let mut out = Vec::new();
    if !t.key.is_empty() {
        out.push(("key", write("key", &t.key)));
    }
    out.push(("operator", write("operator", t.operator.as_str())));
    if t.operator != Operator::Exists {
        out.push(("value", write("value", &t.value)));
    }
    if let Some(e) = t.effect {
        out.push(("effect", write("effect", e.as_str())));
    }
    if let Some(s) = t.toleration_seconds {
        out.push(("tolerationSeconds", s.to_string()));
    }
    out
}

/// A toleration as a one-line flow mapping, quoting a value YAML 1.1 would not read as a string.
pub fn flow_yaml(t: &Toleration) -> String {
    flow_in_style(t, &FieldStyles::default())
}

fn flow_in_style(t: &Toleration, styles: &FieldStyles) -> String {
    let parts: Vec<String> = fields(t, styles)
        .into_iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// How the existing tolerations of a list quote each field: the style of the first item that
/// has the field written as a string.
#[derive(Debug, Default)]
struct FieldStyles(Vec<(String, Style)>);

impl FieldStyles {
    fn of_items(doc: &Document<'_>, items: &[NodeId]) -> FieldStyles {
        let mut out: Vec<(String, Style)> = Vec::new();
        for &item in items {
            let Some(entries) = doc.mapping(doc.resolve(item)) else {
                continue;
            };
            for &(k, v) in entries {
                let (Some((name, _)), Some((_, style))) = (doc.scalar(k), doc.scalar(v)) else {
                    continue;
                };
                if matches!(style, Style::Literal | Style::Folded)
                    || out.iter().any(|(n, _)| n == name)
                {
                    continue;
                }
                out.push((name.to_string(), style));
            }
        }
        FieldStyles(out)
    }

    fn of(&self, name: &str) -> Style {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Style::Plain, |&(_, s)| s)
    }
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

/// One edit adding tolerations to a template, in the style of what is there: appended to its
/// `tolerations` list as block mappings under a block list (its indentation, the fields'
/// quoting) or flow mappings under a flow list or among flow items; or, without a list, a new
/// `tolerations:` entry of the pod spec, in block style under a block mapping.
fn add_tolerations(
    text: &str,
    doc: &Document<'_>,
    w: &Workload<'_>,
    tolerations: &[Toleration],
) -> Option<Edit> {
    if tolerations.is_empty() {
        return None;
    }
    let nl = newline(text);
    // Where the pod fields are not written (a Strimzi component without `template.pod`),
    // the operator's own place for them is for a person to write.
    if !w.fields {
        return None;
    }
    let Some(list) = &w.list else {
        let spec = doc.resolve(w.spec);
        if matches!(doc.node(spec).kind, NodeKind::Mapping { flow: true, .. }) {
            let flows: Vec<String> = tolerations.iter().map(flow_yaml).collect();
            let value = format!("[{}]", flows.join(", "));
            return super::edits::add_entry(text, doc, spec, "tolerations", &value);
        }
        // `tolerations:` then its items, the dashes indented as this document indents a list
        // under its key.
        let entries = doc.mapping(spec)?;
        let &(first_key, _) = entries.first()?;
        let key_start = doc.node(first_key).span.start;
        let indent = key_start - line_start(text, key_start);
        let dash = " ".repeat(indent + list_indent(text, doc));
        let mut value = String::new();
        for t in tolerations {
            value.push_str(nl);
            value.push_str(&block_item(t, &FieldStyles::default(), &dash, 1, nl));
        }
        let value = value.trim_end_matches(['\r', '\n']);
        return super::edits::add_entry(text, doc, spec, "tolerations", value);
    };
    let seq = doc.resolve(list.node);
    let NodeKind::Sequence { items, flow } = &doc.node(seq).kind else {
        return None;
    };
    let styles = FieldStyles::of_items(doc, items);
    if *flow {
        let flows: Vec<String> = tolerations
            .iter()
            .map(|t| flow_in_style(t, &styles))
            .collect();
        let at = match items.last() {
            Some(&last) => doc.node(last).span.end,
            None => doc.node(seq).span.start + 1,
        };
        let lead = if items.is_empty() { "" } else { ", " };
        return Some(Edit {
            range: at..at,
            replacement: format!("{lead}{}", flows.join(", ")),
        });
    }
    let &last = items.last()?;
    let item_start = doc.node(last).span.start;
    let dash = text[..item_start].rfind('-')?;
    let ls = line_start(text, dash);
    let indent = &text[ls..dash];
    if !indent.bytes().all(|c| c == b' ') {
        return None;
    }
    // Items like the last one: a flow mapping (`- {key: a}`) or a block mapping whose keys
    // stand `gap` columns after the dash.
    let last_node = doc.resolve(last);
    let flow_items = matches!(
        doc.node(last_node).kind,
        NodeKind::Mapping { flow: true, .. }
    );
    let gap = text[dash + 1..item_start]
        .bytes()
        .take_while(|&c| c == b' ')
        .count();
    // A block mapping's span runs to the next token: step back to its last character, then
    // past the end of that line (and any comment on it).
    let end = doc.node(last).span.end.max(item_start);
    let end = text[..end].trim_end().len().max(item_start);
    let at = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    let lead = if at == text.len() && !text.ends_with('\n') {
        nl
    } else {
        ""
    };
    let mut replacement = lead.to_string();
    for t in tolerations {
        if flow_items {
            replacement.push_str(&format!("{indent}- {}{nl}", flow_in_style(t, &styles)));
        } else {
            replacement.push_str(&block_item(t, &styles, indent, gap, nl));
        }
    }
    Some(Edit {
        range: at..at,
        replacement,
    })
}

/// One toleration as a block list item: `{indent}-`, `gap` spaces, `key: ...`, then each field
/// under the first, every line ending with `nl`.
fn block_item(t: &Toleration, styles: &FieldStyles, indent: &str, gap: usize, nl: &str) -> String {
    let mut out = String::new();
    for (i, (name, value)) in fields(t, styles).into_iter().enumerate() {
        if i == 0 {
            out.push_str(&format!("{indent}-{}", " ".repeat(gap.max(1))));
        } else {
            out.push_str(&format!("{indent}{}", " ".repeat(gap.max(1) + 1)));
        }
        out.push_str(&format!("{name}: {value}{nl}"));
    }
    out
}

/// How far this document indents a block list's dashes past its key: 0 for
/// `containers:\n- name: x`, 2 for `containers:\n  - name: x` (the first block list under a
/// key that it finds; 0 when there is none, as kubectl writes).
fn list_indent(text: &str, doc: &Document<'_>) -> usize {
    for id in 0..doc.nodes_len() as NodeId {
        let Some(entries) = doc.mapping(id) else {
            continue;
        };
        for &(k, v) in entries {
            let NodeKind::Sequence { items, flow: false } = &doc.node(v).kind else {
                continue;
            };
            let Some(&first) = items.first() else {
                continue;
            };
            let key_start = doc.node(k).span.start;
            let item_start = doc.node(first).span.start;
            let Some(dash) = text[..item_start].rfind('-') else {
                continue;
            };
            let key_col = key_start - line_start(text, key_start);
            let dash_col = dash - line_start(text, dash);
            if dash_col >= key_col && line_start(text, dash) != line_start(text, key_start) {
                return dash_col - key_col;
            }
        }
    }
    0
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
