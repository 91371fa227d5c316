//! The rules: one file each, each declaring its metadata once. The registry below is the only
//! list of them; CLI output, `taintlint explain`, hover text and docs/rules.md (with its rule
//! table) read it.

pub use crate::k8s::{go_quote, shown};
use std::ops::Range;

use crate::config::Options;
use crate::diagnostic::{Diagnostic, Fix, ObjectRef, Related, Severity};
use crate::k8s::objects::{Extracted, Item, List, Object, Owner, TolerationList};
use crate::syntax::Document;

pub mod edits;

pub(crate) mod admission_rejected;
mod daemonset_misses_nodes;
mod daemonset_selects_no_node;
mod deprecated_taint_key;
mod deprecated_tolerations_annotation;
mod duplicate_taint;
mod duplicate_toleration;
mod embedded_yaml_syntax;
mod empty_key_requires_exists;
mod equal_empty_value;
mod eviction_loop;
mod exists_with_value;
mod flavor_tolerates_own_taint;
mod hcl_syntax;
mod helm_template;
mod invalid_key;
mod invalid_runtime_class;
mod invalid_toleration_annotation;
mod invalid_value;
mod misspelled_taint_key;
mod nonpositive_toleration_seconds;
mod not_a_manifest;
mod null_value;
mod only_avoided_nodes;
mod platform_taint;
mod taint_missing_field;
mod tolerates_everything;
mod toleration_does_not_attract;
mod toleration_seconds_requires_no_execute;
mod toleration_unused;
mod undecodable_value;
pub(crate) mod unknown_effect;
pub(crate) mod unknown_field;
mod unknown_operator;
mod unschedulable;
pub(crate) mod unused_suppression;
pub mod workload;
mod yaml_syntax;

pub(crate) use workload::check_workloads;
pub use workload::{workload_reads, InventoryReads, Reading, WorkloadCx};

use std::hash::DefaultHasher;

/// Everything said about a rule, written once.
#[derive(Debug)]
pub struct RuleMeta {
    /// Kebab-case, stable forever.
    pub name: &'static str,
    pub severity: Severity,
    /// Whether the rule needs a cluster inventory to say anything.
    pub needs_inventory: bool,
    /// Whether its findings carry a fix.
    pub fixable: bool,
    /// One line: what it catches.
    pub summary: &'static str,
    /// One line: why it matters (the hover on a finding shows it).
    pub why: &'static str,
    /// Markdown with the sections "What it catches", "Why it matters", "Example", "Fix".
    pub explanation: &'static str,
}

/// A rule's checks. Each hook is called for every toleration / taint / list in a document.
pub trait Rule: Sync {
    fn meta(&self) -> &'static RuleMeta;
    /// A check that is the same for a toleration and a taint: what the two hooks below call
    /// unless a rule writes its own.
    fn check_item(&self, _cx: &mut Cx<'_, '_>, _item: &Item<'_>) {}
    fn check_toleration(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        self.check_item(cx, item);
    }
    fn check_toleration_list(&self, _cx: &mut Cx<'_, '_>, _items: &[Item<'_>]) {}
    fn check_taint(&self, cx: &mut Cx<'_, '_>, item: &Item<'_>) {
        self.check_item(cx, item);
    }
    fn check_taint_list(&self, _cx: &mut Cx<'_, '_>, _items: &[Item<'_>]) {}
    /// Called once per pod template when there is an inventory, with the simulation's result.
    fn check_workload(&self, _cx: &mut WorkloadCx<'_, '_>) {}
    /// Feeds `h` everything [`Rule::check_workload`] reads of the inventory and of the
    /// simulation for a pod template that asks what `reading` says (the rest of what it reads is
    /// the template's own), so that equal hashes under two inventories mean equal findings:
    /// the language server then keeps a file's findings when a pool changes. `false` when the
    /// rule cannot say, and the template is judged again whenever the inventory changes. A
    /// rule that needs no inventory reads none of it.
    fn workload_reads(&self, _reading: &Reading<'_>, _h: &mut DefaultHasher) -> bool {
        !self.meta().needs_inventory
    }
    /// Called once per Kubernetes object of a document (a RuntimeClass, a Namespace, a Pod...).
    fn check_object(&self, _cx: &mut ObjectCx<'_, '_>) {}
}

/// Every rule, in the order they are documented.
pub static RULES: &[&dyn Rule] = &[
    &yaml_syntax::YamlSyntax,
    &embedded_yaml_syntax::EmbeddedYamlSyntax,
    &hcl_syntax::HclSyntax,
    &undecodable_value::UndecodableValue,
    &unknown_field::UnknownField,
    &invalid_key::InvalidKey,
    &invalid_value::InvalidValue,
    &empty_key_requires_exists::EmptyKeyRequiresExists,
    &exists_with_value::ExistsWithValue,
    &unknown_operator::UnknownOperator,
    &unknown_effect::UnknownEffect,
    &toleration_seconds_requires_no_execute::TolerationSecondsRequiresNoExecute,
    &taint_missing_field::TaintMissingField,
    &duplicate_taint::DuplicateTaint,
    &platform_taint::PlatformTaint,
    &deprecated_taint_key::DeprecatedTaintKey,
    &misspelled_taint_key::MisspelledTaintKey,
    &tolerates_everything::ToleratesEverything,
    &equal_empty_value::EqualEmptyValue,
    &nonpositive_toleration_seconds::NonpositiveTolerationSeconds,
    &null_value::NullValue,
    &flavor_tolerates_own_taint::FlavorToleratesOwnTaint,
    &duplicate_toleration::DuplicateToleration,
    &invalid_runtime_class::InvalidRuntimeClass,
    &invalid_toleration_annotation::InvalidTolerationAnnotation,
    &deprecated_tolerations_annotation::DeprecatedTolerationsAnnotation,
    &admission_rejected::AdmissionRejected,
    &unschedulable::Unschedulable,
    &daemonset_misses_nodes::DaemonSetMissesNodes,
    &daemonset_selects_no_node::DaemonSetSelectsNoNode,
    &only_avoided_nodes::OnlyAvoidedNodes,
    &eviction_loop::EvictionLoop,
    &toleration_unused::TolerationUnused,
    &toleration_does_not_attract::TolerationDoesNotAttract,
    &helm_template::HelmTemplate,
    &not_a_manifest::NotAManifest,
    &unused_suppression::UnusedSuppression,
];

/// Where the rule reference (docs/rules.md) is published: rule codes link to its sections
/// (LSP `codeDescription`, hovers). The language server's `docsUrl` setting replaces it, for a
/// fork or an internal mirror.
pub const DOCS_URL: &str = "https://github.com/taintlint/taintlint/blob/main/docs/rules.md";

/// The link to a rule's section of the rule reference at `base` (a docs/rules.md address):
/// its heading's anchor, which is the rule's name.
pub fn docs_url(base: &str, rule: &str) -> String {
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}#{rule}")
}

/// Every rule's metadata.
pub fn all() -> impl Iterator<Item = &'static RuleMeta> {
    RULES.iter().map(|r| r.meta())
}

/// Whether a finding says a file (or a document of it) was not read at all: a Go or Helm
/// template, placeholders a script fills in, YAML with no sign of Kubernetes. A directory walk
/// (`lint DIR`, and the language server's files nobody opened) sets such files aside in one
/// summary line rather than reporting them finding by finding; a file named on the command line,
/// or open in the editor, says it.
pub fn sets_file_aside(rule: &str) -> bool {
    rule == HELM_TEMPLATE.name || rule == NOT_A_MANIFEST.name
}

pub fn find(name: &str) -> Option<&'static RuleMeta> {
    all().find(|m| m.name == name)
}

/// The rule name closest to a misspelt one (at most three edits away), or else the first rule
/// one of whose words is the word given, give or take a typo (`efect` finds `unknown-effect`).
pub fn closest(name: &str) -> Option<&'static str> {
    use crate::k8s::well_known::edit_distance;
    let whole = all()
        .map(|m| (edit_distance(name, m.name, 3), m.name))
        .filter(|&(d, _)| d <= 3)
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n);
    whole.or_else(|| {
        let limit = if name.chars().count() <= 5 { 1 } else { 2 };
        all()
            .filter_map(|m| {
                let d = m
                    .name
                    .split('-')
                    .map(|w| edit_distance(name, w, limit))
                    .min()?;
                (d <= limit && name.len() >= 3).then_some((d, m.name))
            })
            .min_by_key(|&(d, _)| d)
            .map(|(_, n)| n)
    })
}

/// The Markdown table of every rule, as docs/rules.md shows it.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| rule | severity | inventory | fix | what it catches |\n|---|---|---|---|---|\n",
    );
    for m in all() {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            m.name,
            m.severity,
            if m.needs_inventory { "needed" } else { "" },
            if m.fixable { "yes" } else { "" },
            m.summary.replace('|', "\\|")
        ));
    }
    out
}

/// Every rule as a JSON array (`taintlint rules --format json`).
pub fn json() -> String {
    let rules: Vec<serde_json::Value> = all()
        .map(|m| {
            serde_json::json!({
                "name": m.name,
                "severity": m.severity,
                "needsInventory": m.needs_inventory,
                "fixable": m.fixable,
                "summary": m.summary,
                "explanation": m.explanation,
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&rules).expect("JSON values always serialize");
    text.push('\n');
    text
}

/// The rule reference, docs/rules.md: the table, then every rule's explanation.
pub fn markdown_docs() -> String {
    let mut out = String::from(
        "# taintlint rules\n\n\
         <!-- Generated from the rule registry (src/rules/) by `taintlint rules --format \
         markdown`; tests/docs.rs keeps it in sync. -->\n\n\
         Severity: `error` means the API server rejects it (or the workload can run on no \
         node); `warning` means it is accepted but almost certainly wrong; `info` and `hint` \
         are worth knowing. Every rule's severity can be changed, or the rule turned off, in \
         `.taintlint.yaml`; a single finding can be silenced with a \
         `# taintlint: disable=RULE -- reason` comment above its node.\n\n",
    );
    out.push_str(&markdown_table());
    for m in all() {
        out.push_str(&format!("\n## `{}`\n\n", m.name));
        out.push_str(&format!(
            "{}. Default severity: **{}**. Needs an inventory: {}. Fix: {}.\n\n",
            m.summary.trim_end_matches('.'),
            m.severity,
            if m.needs_inventory { "yes" } else { "no" },
            if m.fixable { "yes" } else { "none" },
        ));
        for line in m.explanation.trim_end().lines() {
            match line.strip_prefix("## ") {
                Some(heading) => out.push_str(&format!("### {heading}\n")),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

pub(crate) use embedded_yaml_syntax::META as EMBEDDED_YAML_SYNTAX;
pub(crate) use hcl_syntax::META as HCL_SYNTAX;
pub(crate) use helm_template::META as HELM_TEMPLATE;
pub(crate) use not_a_manifest::META as NOT_A_MANIFEST;
pub(crate) use yaml_syntax::META as YAML_SYNTAX;

/// What a rule sees while it checks one list, and where its findings go.
pub struct Cx<'a, 'd> {
    pub text: &'a str,
    pub doc: &'d Document<'a>,
    pub options: &'a Options,
    pub object: Option<&'d Object<'d>>,
    /// For toleration lists: what they belong to.
    pub owner: Option<Owner>,
    pub list: &'d List,
    pub(crate) out: &'a mut Vec<Diagnostic>,
    pub(crate) rule: &'static RuleMeta,
}

impl<'a, 'd> Cx<'a, 'd> {
    /// The object's kind, when the list is inside a Kubernetes object.
    pub fn kind(&self) -> Option<&'d str> {
        self.object.and_then(|o| o.kind)
    }

    /// Records a finding of the current rule at `range`, for the field at `path`.
    pub fn report(
        &mut self,
        range: Range<usize>,
        path: String,
        message: String,
    ) -> &mut Diagnostic {
        let found = finding(self.rule, self.doc, self.object, range, path, message);
        self.out.push(found);
        self.out.last_mut().expect("just pushed")
    }

    /// The byte range of a node.
    pub fn span(&self, node: crate::syntax::NodeId) -> Range<usize> {
        self.doc.node(node).span.clone()
    }

    /// Where to point at an item as a whole: its first key (a mapping's span can cover many
    /// lines), or the item itself when it has no key or is an alias (`- *toleration`), whose
    /// keys are written elsewhere.
    pub fn item_range(&self, item: &Item<'_>) -> Range<usize> {
        if matches!(
            self.doc.node(item.node).kind,
            crate::syntax::NodeKind::Alias { .. }
        ) {
            return self.span(item.node);
        }
        match self.doc.mapping(item.node).and_then(|e| e.first()) {
            Some(&(k, _)) => self.span(k),
            None => self.span(item.node),
        }
    }

    /// Where to point at a field: its value, or the item when the field is absent.
    pub fn field_range(&self, item: &Item<'_>, name: &str) -> Range<usize> {
        match item.field(name) {
            Some(f) => self.value_range(f.value, f.key),
            None => self.item_range(item),
        }
    }

    /// A value's range; an empty value (`key:` with nothing after it) points at its key.
    pub fn value_range(
        &self,
        value: crate::syntax::NodeId,
        key: crate::syntax::NodeId,
    ) -> Range<usize> {
        let span = self.span(value);
        if span.is_empty() {
            self.span(key)
        } else {
            span
        }
    }

    /// Whether `Lt` and `Gt` are accepted in this toleration list: with the feature gate
    /// TaintTolerationComparisonOperators on, except in a RuntimeClass. Upstream validates a
    /// RuntimeClass's `scheduling.tolerations` with empty options
    /// (pkg/apis/node/validation/validation.go `validateTolerations` passes
    /// `corevalidation.PodValidationOptions{}`), so `AllowTaintTolerationComparisonOperators`
    /// is false there whatever the gate says.
    pub fn comparison_operators(&self) -> bool {
        self.owner != Some(Owner::RuntimeClass)
            && self.options.feature(crate::schedule::COMPARISON_GATE)
    }

    /// A path as the object's own decoder names it: from the object's root, so without the
    /// `items[N].` of a `kind: List`.
    pub fn object_path(&self, path: &str) -> String {
        match self.object.map(|o| o.path.as_str()) {
            Some(prefix) if !prefix.is_empty() => path
                .strip_prefix(prefix)
                .map_or(path, |rest| rest.trim_start_matches('.'))
                .to_string(),
            _ => path.to_string(),
        }
    }

    /// A path as the API server's validation names it in its messages: from the object's root,
    /// and, for a Node's taints, under `metadata.taints` (upstream `ValidateNode` starts its
    /// field path at `metadata`).
    pub fn api_path(&self, path: &str) -> String {
        let path = self.object_path(path);
        if self.owner.is_none() && self.kind() == Some("Node") {
            if let Some(rest) = path.strip_prefix("spec.taints") {
                return format!("metadata.taints{rest}");
            }
        }
        path
    }

    /// The mapping a fix edits: the item's own node (an alias's target is edited where it is
    /// defined).
    pub fn item_mapping(&self, item: &Item<'_>) -> crate::syntax::NodeId {
        self.doc.resolve(item.node)
    }
}

impl Diagnostic {
    /// The API server's own wording for this finding (see [`Diagnostic::server_message`]).
    pub fn with_server_message(&mut self, message: String) -> &mut Self {
        self.server_message = Some(message);
        self
    }

    /// A finding less severe than its rule's default (a softened case of the rule). A level
    /// configured for the rule still sets every finding's severity.
    pub fn with_severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = severity;
        self
    }

    pub fn with_fix(&mut self, fix: Option<Fix>) -> &mut Self {
        self.fixes.extend(fix);
        self
    }

    pub fn with_related(&mut self, range: Range<usize>, message: String) -> &mut Self {
        self.related.push(Related {
            file: None,
            range,
            message,
        });
        self
    }

    /// A related place in another file (an inventory's taint, say).
    pub fn with_related_in(
        &mut self,
        file: &str,
        range: Range<usize>,
        message: String,
    ) -> &mut Self {
        self.related.push(Related {
            file: Some(file.to_string()),
            range,
            message,
        });
        self
    }
}

/// A finding of `rule` at `range` of a document, for the field at `path` of `object`.
pub(crate) fn finding(
    rule: &'static RuleMeta,
    doc: &Document<'_>,
    object: Option<&Object<'_>>,
    range: Range<usize>,
    path: String,
    message: String,
) -> Diagnostic {
    Diagnostic {
        rule: rule.name,
        severity: rule.severity,
        message,
        server_message: None,
        range,
        document: Some(doc.index),
        path: Some(path),
        object: object.map(object_ref),
        related: Vec::new(),
        fixes: Vec::new(),
    }
}

/// Runs every rule over the toleration lists and taint lists of one document.
pub(crate) fn check_lists<'a, 'd>(
    text: &'a str,
    doc: &'d Document<'a>,
    options: &'a Options,
    objects: &'d [Object<'d>],
    tolerations: &'d [TolerationList],
    taints: &'d [List],
    out: &'a mut Vec<Diagnostic>,
) {
    check_lists_by(
        text,
        doc,
        options,
        (objects, tolerations, taints),
        &|_| true,
        out,
    );
}

/// The lists of a document, each checked by every rule, and found what they find.
type Lists<'d> = (&'d [Object<'d>], &'d [TolerationList], &'d [List]);

/// [`check_lists`] by the rules `by` keeps only (simulate asks only whether the API server
/// would reject a workload: the error rules that need no inventory).
pub(crate) fn check_lists_by<'a, 'd>(
    text: &'a str,
    doc: &'d Document<'a>,
    options: &'a Options,
    (objects, tolerations, taints): Lists<'d>,
    by: &dyn Fn(&RuleMeta) -> bool,
    out: &'a mut Vec<Diagnostic>,
) {
    for list in tolerations {
        let items = crate::k8s::objects::items(doc, &list.list);
        for rule in RULES.iter().filter(|r| by(r.meta())) {
            let mut cx = Cx {
                text,
                doc,
                options,
                object: list.list.object.map(|i| &objects[i]),
                owner: Some(list.owner),
                list: &list.list,
                out,
                rule: rule.meta(),
            };
            for item in &items {
                rule.check_toleration(&mut cx, item);
            }
            rule.check_toleration_list(&mut cx, &items);
        }
    }
    for list in taints {
        let items = crate::k8s::objects::items(doc, list);
        let first = out.len();
        for rule in RULES.iter().filter(|r| by(r.meta())) {
            let mut cx = Cx {
                text,
                doc,
                options,
                object: list.object.map(|i| &objects[i]),
                owner: None,
                list,
                out,
                rule: rule.meta(),
            };
            for item in &items {
                rule.check_taint(&mut cx, item);
            }
            rule.check_taint_list(&mut cx, &items);
        }
        // A fix edits the characters a finding points at, which a list read whole has not.
        if list.whole {
            for d in &mut out[first..] {
                d.fixes.clear();
            }
        }
        // Cluster Autoscaler's node-template tags describe taints to the autoscaler alone: no
        // API server reads them, and a tag it cannot read is ignored, so what is wrong there is
        // a warning (its scale-ups from zero then misjudge the nodes), with no server message.
        if crate::inventory::asg_tags::is_tag_list(&list.path) {
            for d in &mut out[first..] {
                d.server_message = None;
                d.severity = d.severity.min(Severity::Warning);
            }
        }
        // The API server never validates a NodeFeatureRule's taints as such: nfd-master drops
        // some with a log line, and the Node update that carries another invalid one is
        // refused, its index in the Node's taints unknown here.
        let object = list.object.map(|i| &objects[i]);
        if object.is_some_and(|o| {
            crate::k8s::objects::is_feature_rule(doc.get_str(o.node, "apiVersion"), o.kind)
        }) {
            for d in &mut out[first..] {
                d.server_message = None;
            }
        }
    }
}

/// What a rule sees while it checks one object of a document.
pub struct ObjectCx<'a, 'd> {
    pub text: &'a str,
    pub doc: &'d Document<'a>,
    pub options: &'a Options,
    pub object: &'d Object<'d>,
    /// Everything found in the object's document (its toleration lists, its pod specs).
    pub extracted: &'d Extracted<'d>,
    pub(crate) out: &'a mut Vec<Diagnostic>,
    pub(crate) rule: &'static RuleMeta,
}

impl ObjectCx<'_, '_> {
    /// Records a finding of the current rule at `range`, for the field at `path` (from the
    /// document root).
    pub fn report(
        &mut self,
        range: Range<usize>,
        path: String,
        message: String,
    ) -> &mut Diagnostic {
        let found = finding(self.rule, self.doc, Some(self.object), range, path, message);
        self.out.push(found);
        self.out.last_mut().expect("just pushed")
    }

    /// A field path under the object, from the document root (`items[2].handler` in a List).
    pub fn path(&self, field: &str) -> String {
        if self.object.path.is_empty() {
            field.to_string()
        } else {
            format!("{}.{field}", self.object.path)
        }
    }

    /// The byte range of a node.
    pub fn span(&self, node: crate::syntax::NodeId) -> Range<usize> {
        self.doc.node(node).span.clone()
    }
}

/// Runs every rule's object check over the objects of one document.
pub(crate) fn check_objects<'a, 'd>(
    text: &'a str,
    doc: &'d Document<'a>,
    options: &'a Options,
    extracted: &'d Extracted<'d>,
    out: &'a mut Vec<Diagnostic>,
) {
    for object in 0..extracted.objects.len() {
        check_object(text, doc, options, extracted, object, out);
    }
}

/// Runs every rule's object check over one object (an index in [`Extracted::objects`]).
pub(crate) fn check_object<'a, 'd>(
    text: &'a str,
    doc: &'d Document<'a>,
    options: &'a Options,
    extracted: &'d Extracted<'d>,
    object: usize,
    out: &'a mut Vec<Diagnostic>,
) {
    let object = &extracted.objects[object];
    for rule in RULES {
        let mut cx = ObjectCx {
            text,
            doc,
            options,
            object,
            extracted,
            out,
            rule: rule.meta(),
        };
        rule.check_object(&mut cx);
    }
}

/// `1 node`, `2 nodes`: a count with its noun, singular or plural.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The object a finding is in, as every face names it ([`Object::said_as`]: chart values of a
/// workload of unknown kind by the object that installs the chart).
pub fn object_ref(o: &Object<'_>) -> ObjectRef {
    let (kind, namespace, name) = o.said_as();
    ObjectRef {
        kind: kind.map(str::to_string),
        name: name.map(str::to_string),
        namespace: namespace.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_rule_or_word_finds_its_rule() {
        assert_eq!(closest("unknown-efect"), Some("unknown-effect"));
        assert_eq!(closest("efect"), Some("unknown-effect"));
        assert_eq!(closest("operater"), Some("unknown-operator"));
        assert_eq!(closest("zz"), None);
        assert_eq!(closest("kubernetes"), None);
    }
    use std::collections::HashSet;

    #[test]
    fn registry_is_complete_and_documented() {
        let mut names = HashSet::new();
        for meta in all() {
            assert!(names.insert(meta.name), "duplicate rule name {}", meta.name);
            assert!(
                meta.name
                    .bytes()
                    .all(|c| c.is_ascii_lowercase() || c == b'-'),
                "{} is not kebab-case",
                meta.name
            );
            assert!(!meta.summary.is_empty(), "{} has no summary", meta.name);
            assert!(
                !meta.why.is_empty() && !meta.why.contains('\n') && meta.why.len() <= 110,
                "{}: `why` is one short line",
                meta.name
            );
            for section in [
                "## What it catches",
                "## Why it matters",
                "## Example",
                "## Fix",
            ] {
                assert!(
                    meta.explanation.contains(section),
                    "{} lacks {section:?}",
                    meta.name
                );
            }
        }
        // Every rule file in src/rules is registered.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/rules");
        for entry in std::fs::read_dir(dir).unwrap() {
            let file = entry.unwrap().file_name().into_string().unwrap();
            let Some(stem) = file.strip_suffix(".rs") else {
                continue;
            };
            if matches!(stem, "mod" | "edits" | "workload") {
                continue;
            }
            let name = stem.replace('_', "-");
            assert!(
                names.contains(name.as_str()),
                "{file} is not registered in RULES"
            );
        }
    }
}
