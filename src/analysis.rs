//! The pure core: text in, diagnostics out. No file system, threads or protocol here.
//!
//! The one front door to a file's analysis, which `lint`, `simulate` and the language server
//! all go through: [`check`] (its findings, with [`Ask`] saying against which options and
//! inventory and what to keep), [`check_streamed`] (the same, handed over in batches),
//! [`check_again`] (the same of a parsed file, keeping what still holds under another
//! inventory), [`simulate`] (where its workloads land), [`reads_inventory`] and
//! [`cluster_objects`]; [`analyse`] is [`check`]'s findings with options alone. What each
//! document is comes from [`crate::class`].

use std::sync::Arc;

use crate::class::{self, Class, Form, Template, Text};
use crate::config::Options;
use crate::diagnostic::{Diagnostic, Severity};
use crate::inventory::{compact, terraform, Inventory};
use crate::k8s::objects::{extract_known, extract_with, items, Extracted, Owner};
use crate::rules::InventoryReads;
use crate::rules::{self, check_lists, RuleMeta};
use crate::schedule::placement::{Placement, TolerationPlace};
use crate::schedule::{self, Rejected, WorkloadResult, COMPARISON_GATE};
use crate::suppress;
use crate::syntax::{self, Document, NodeKind, SyntaxError};

mod embedded;
mod json6902;

pub(crate) use embedded::outer_fix;
pub use embedded::{deeper, mapped_strings};

/// Lints one file's text. Ranges in the result are byte ranges into `text`, sorted by position.
/// Rules that `options` turns off are not reported, the others at the severity it sets, and
/// findings that a `# taintlint: disable` comment silences are left out.
pub fn analyse(text: &str, options: &Options) -> Vec<Diagnostic> {
    check(text, Ask::new(options, None)).diagnostics
}

/// What to analyse a file against, and what to keep of it.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    pub options: &'a Options,
    /// With an inventory, every pod template is simulated on its nodes and the inventory rules
    /// report what they find (related locations point into the inventory files).
    pub inventory: Option<&'a Inventory>,
    /// Keep where each pod template lands and what each toleration matches, as editors show
    /// them (with an inventory): the simulations the inventory rules ran, kept.
    pub placements: bool,
}

impl<'a> Ask<'a> {
    pub fn new(options: &'a Options, inventory: Option<&'a Inventory>) -> Self {
        Ask {
            options,
            inventory,
            placements: false,
        }
    }

    /// The same, keeping the placements.
    pub fn placed(self) -> Self {
        Ask {
            placements: true,
            ..self
        }
    }
}

/// One file's analysis: its findings, where each pod template lands and what each toleration
/// matches (when [`Ask::placements`] asked for them), and the pod templates it read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileAnalysis {
    pub diagnostics: Vec<Diagnostic>,
    /// One per pod template, in document order.
    pub placements: Vec<Placement>,
    /// One per valid toleration written in the file, in document order.
    pub tolerations: Vec<TolerationPlace>,
    /// The pod templates the analysis read (and judged, with an inventory), as
    /// `lint --inventory` counts them.
    pub templates: PodTemplates,
}

impl From<Vec<Diagnostic>> for FileAnalysis {
    fn from(diagnostics: Vec<Diagnostic>) -> Self {
        FileAnalysis {
            diagnostics,
            ..FileAnalysis::default()
        }
    }
}

/// Analyses one file's text.
pub fn check(text: &str, ask: Ask<'_>) -> FileAnalysis {
    if class::text(text) == Text::Hcl {
        let (stream, mut out) = check_hcl(text, ask.options);
        settle(text, &stream, ask.options, &mut out);
        order(&mut out);
        return out.into();
    }
    analyse_stream(text, &mut syntax::parse(text), ask, None)
}

/// What a file's documents are to be told ([`Judged`]), and what they found before.
type Again<'j> = Option<(&'j mut Judged, Option<&'j Judged>)>;

/// What each document of a file found (before the configuration and the suppressions
/// apply), and what its findings read of the inventory: judged again against another
/// inventory ([`check_again`]), a document whose findings read the same of it keeps
/// them.
#[derive(Debug, Clone, Default)]
pub struct Judged {
    documents: Vec<JudgedDocument>,
}

#[derive(Debug, Clone)]
struct JudgedDocument {
    /// Shared with the record of the next inventory when they hold under it.
    found: Arc<[Diagnostic]>,
    reads: InventoryReads,
    templates: PodTemplates,
}

impl Judged {
    /// Whether every document's findings are the same under `inventory`
    /// ([`InventoryReads::still_hold`]).
    pub fn still_hold(&self, inventory: &Inventory) -> bool {
        self.documents.iter().all(|d| d.reads.still_hold(inventory))
    }
}

/// [`check`] of a YAML file already parsed (the placements are not kept): `stream` is what
/// [`syntax::parse`] made of `text` (and is left so; the language server keeps the trees of the
/// files it judges again when only the inventory changes), and what each document found and
/// read of the inventory. With what the same text, under the same options, found before
/// (`before`, against another inventory), a document whose findings read the same of the
/// inventory keeps them rather than be judged again: the analysis is the same as [`check`]'s.
pub fn check_again<'a>(
    text: &'a str,
    stream: &mut syntax::Stream<'a>,
    ask: Ask<'_>,
    before: Option<&Judged>,
) -> (FileAnalysis, Judged) {
    debug_assert!(
        class::text(text).is_parsed(),
        "a Terraform file has no YAML tree"
    );
    let mut judged = Judged::default();
    let before = before.filter(|b| b.documents.len() == stream.documents.len());
    let marks: Vec<_> = stream.documents.iter().map(Document::mark).collect();
    let ask = Ask {
        placements: false,
        ..ask
    };
    let analysis = analyse_stream(text, stream, ask, Some((&mut judged, before)));
    // The rules add nodes (a JSON6902 patch's stand-ins, a pool file's taints read as
    // mappings): the tree is left as parsed.
    for (doc, mark) in stream.documents.iter_mut().zip(marks) {
        doc.restore(mark);
    }
    (analysis, judged)
}

fn analyse_stream<'a>(
    text: &'a str,
    stream: &mut syntax::Stream<'a>,
    ask: Ask<'_>,
    again: Again<'_>,
) -> FileAnalysis {
    let Ask {
        options,
        inventory,
        placements,
    } = ask;
    let mut places = (placements && inventory.is_some()).then(Places::default);
    let mut pod_templates = PodTemplates::default();
    let mut out = check_stream(
        text,
        stream,
        options,
        (inventory, again),
        places.as_mut(),
        &mut pod_templates,
        None,
    );
    // A placement the API server would reject says so, as `simulate` does (before the
    // configuration and suppressions apply: the API server rejects what it rejects).
    if let Some(places) = places.as_mut() {
        let specs: Vec<(usize, String)> = places
            .placements
            .iter()
            .map(|p| (p.document, p.path.clone()))
            .collect();
        for p in &mut places.placements {
            let others = specs
                .iter()
                .filter(|(doc, _)| *doc == p.document)
                .map(|(_, path)| path.as_str());
            let others: Vec<&str> = others.collect();
            p.rejected = out
                .iter()
                .filter(|d| d.document == Some(p.document) && rejects_own(d, &p.path, &others))
                .min_by_key(|d| d.range.start)
                .map(|d| d.message.clone());
        }
    }
    settle(text, stream, options, &mut out);
    order(&mut out);
    let places = places.unwrap_or_default();
    FileAnalysis {
        diagnostics: out,
        placements: places.placements,
        tolerations: places.tolerations,
        templates: pod_templates,
    }
}

/// Whether a file's findings can depend on a cluster inventory: whether [`check`] would judge
/// any of it against one. That is a document (one the rules read: it parses, it is not a
/// template or a pool file) with a pod template (the inventory rules), a toleration list (the
/// fixes that must keep what it tolerates) or a string that holds YAML (linted with the
/// inventory in turn). A file without any has the same findings with every inventory and with
/// none: the language server keeps them when only the inventory changes. `stream`, when given,
/// is what [`syntax::parse`] made of `text`, as [`check_again`] takes it (and leaves it).
pub fn reads_inventory<'a>(
    text: &'a str,
    stream: Option<&mut syntax::Stream<'a>>,
    options: &Options,
) -> bool {
    if !class::text(text).is_parsed() {
        return false;
    }
    let mut parsed;
    let stream = match stream {
        Some(stream) => stream,
        None => {
            parsed = syntax::parse(text);
            &mut parsed
        }
    };
    stream.documents.iter_mut().any(|doc| {
        let class = class::in_place(class::document(text, doc), options.patch_file());
        let mark = doc.mark();
        let reads = document_reads_inventory(text, doc, &class, options);
        doc.restore(mark);
        reads
    })
}

fn document_reads_inventory<'a>(
    text: &'a str,
    doc: &mut Document<'a>,
    class: &Class,
    options: &Options,
) -> bool {
    match *class {
        Class::Template(_) | Class::Broken => return false,
        _ if unknown_aliases(doc, &mut Vec::new()) => return false,
        Class::PoolFile(root) if compact::parse(0, text, doc, root, None).is_ok() => return false,
        Class::Patch(root) => {
            // As `check_document` reads it: the operations' values in place.
            let _patch = json6902::prepare(doc, root, options.patch_target());
        }
        Class::PoolFile(_) | Class::Read | Class::MergePatch => {}
    }
    let doc = &*doc;
    let extracted = extract_known(doc, options.chart_kinds(), Some(options.cluster().crds()));
    (*class != Class::MergePatch && !extracted.pod_specs.is_empty())
        || !extracted.tolerations.is_empty()
        || embedded::holds_yaml(text, doc, &extracted.objects)
}

/// Lints one file's text as [`check`] does, handing the findings to `emit` in order, as
/// soon as they are final: a batch is cut at the end of an object once `batch` findings wait
/// (those of rules the options turn off are then left out, so it may be smaller; none is
/// empty). A file of 30,000 pods and 250,000 findings never holds them all. A file with
/// suppression comments, or one that is not YAML, is handed over whole (a suppression can
/// silence a finding anywhere in its scope, and an unused one is only known at the end).
/// Returns the pod templates the analysis read ([`FileAnalysis::templates`]); the placements
/// are not kept.
pub fn check_streamed(
    text: &str,
    ask: Ask<'_>,
    batch: usize,
    emit: &mut dyn FnMut(Vec<Diagnostic>),
) -> PodTemplates {
    let Ask {
        options, inventory, ..
    } = ask;
    let mut emit = |findings: Vec<Diagnostic>| {
        if !findings.is_empty() {
            emit(findings)
        }
    };
    if !class::text(text).is_parsed() {
        let analysis = check(text, Ask::new(options, inventory));
        emit(analysis.diagnostics);
        return analysis.templates;
    }
    let mut stream = syntax::parse(text);
    // What only the whole file decides: its suppressions, a syntax error outside every
    // document, JSON that does not parse, and whether it is a manifest at all.
    let whole = stream.error.is_some()
        || json_error(text).is_some()
        || stream.comments.iter().any(|c| c.text.contains("taintlint"))
        || !class::shows_kubernetes(text);
    let mut flush = |out: &mut Vec<Diagnostic>| {
        if !whole && out.len() >= batch {
            levels(options, out);
            order(out);
            emit(std::mem::take(out));
        }
    };
    let mut judged = PodTemplates::default();
    let mut out = check_stream(
        text,
        &mut stream,
        options,
        (inventory, None),
        None,
        &mut judged,
        Some(&mut flush),
    );
    if whole {
        settle(text, &stream, options, &mut out);
    } else {
        levels(options, &mut out);
    }
    order(&mut out);
    emit(out);
    judged
}

/// Sorts findings by place, and reports a list reached twice (through an alias) once. (The API
/// server reports an item aliased into two places at each: their server messages name
/// different paths.)
fn order(out: &mut Vec<Diagnostic>) {
    // Sorting indices, then moving each finding once, needs no copy of the findings.
    let mut by_place: Vec<u32> = (0..out.len() as u32).collect();
    by_place.sort_by(|&a, &b| {
        let (a, b) = (&out[a as usize], &out[b as usize]);
        (a.range.start, a.range.end, a.rule).cmp(&(b.range.start, b.range.end, b.rule))
    });
    // Position j takes the finding at by_place[j]: follow each cycle of the permutation.
    for start in 0..by_place.len() {
        let mut j = start;
        loop {
            let k = by_place[j] as usize;
            by_place[j] = j as u32;
            if k == start || k == j {
                break;
            }
            out.swap(j, k);
            j = k;
        }
    }
    out.dedup_by(|a, b| {
        a.rule == b.rule
            && a.range == b.range
            && a.message == b.message
            && a.server_message == b.server_message
    });
}

#[derive(Default)]
struct Places {
    placements: Vec<Placement>,
    tolerations: Vec<TolerationPlace>,
}

/// What makes pods in a file but was not simulated, each in words with why
/// ([`crate::k8s::objects::Skipped`]): `RayCluster ml/rl at spec.workerGroupSpecs[1]: it has
/// no `template.spec`, ...`.
fn skipped<'e>(
    extracted: &'e Extracted<'_>,
    simulated: &'e [WorkloadResult],
) -> impl Iterator<Item = String> + 'e {
    let said = |object: usize, path: &str, why: &str| part(extracted, object, path, why);
    let parts = extracted
        .skipped
        .iter()
        .map(move |s| said(s.object, &s.path, &s.why));
    let off = extracted.switched_off.iter().map(|(path, key)| {
        format!("chart values at {path}: switched off (`{key}: false`), the chart renders none")
    });
    parts
        .chain(unplaced(extracted, simulated).map(move |(object, path)| {
            said(
                object,
                path,
                "its tolerations are read by its operator, which makes its pods from no pod \
                 template taintlint knows",
            )
        }))
        .chain(off)
}

/// A part of an object that would make pods, and why it is not simulated, in words.
fn part(extracted: &Extracted<'_>, object: usize, path: &str, why: &str) -> String {
    let o = &extracted.objects[object];
    let kind = o.kind.unwrap_or("object");
    let name = match (o.namespace, o.name) {
        (Some(ns), Some(n)) => format!(" {ns}/{n}"),
        (None, Some(n)) => format!(" {n}"),
        _ => String::new(),
    };
    format!("{kind}{name} at {path}: {why}")
}

/// The custom resources with a toleration list (which lint checks) but nothing simulated
/// (`simulated`: the document's workloads), nor a part said not simulated: an operator places
/// their pods by them (a Rook CephCluster's `spec.placement.all.tolerations`), and nothing says
/// where. Each object once, at its first list. Kinds whose tolerations are not a pod's own are
/// left out: a Kueue ResourceFlavor's are the inventory's, chart values (HelmRelease, Argo CD)
/// are read as values, and so are core workload kinds.
fn unplaced<'e>(
    extracted: &'e Extracted<'_>,
    simulated: &'e [WorkloadResult],
) -> impl Iterator<Item = (usize, &'e str)> + 'e {
    let mut seen = Vec::new();
    extracted.tolerations.iter().filter_map(move |t| {
        let object = t.list.object?;
        let o = &extracted.objects[object];
        let kind = o.kind?;
        let placed = extracted.pod_specs.iter().any(|s| s.object == object)
            || extracted.skipped.iter().any(|s| s.object == object)
            || simulated.iter().any(|w| w.object_path == o.path);
        // (A core workload's kind is not a custom resource's: a chart's values that say
        // `kind: Deployment` are values.)
        let not_a_pods = matches!(
            kind,
            "ResourceFlavor" | "HelmRelease" | "Application" | "ApplicationSet"
        ) || crate::k8s::objects::pod_spec_path(kind).is_some();
        if t.owner != Owner::Other || placed || not_a_pods || seen.contains(&object) {
            return None;
        }
        seen.push(object);
        Some((object, t.list.path.as_str()))
    })
}

/// Why a file, or part of it, was not simulated: its pod templates, if it has any, could not
/// be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unread {
    /// A Go or Helm template (in some document at least): its rendered output can be simulated.
    Template,
    /// Not valid YAML (in some document at least).
    Syntax,
    /// Valid YAML, but a string in it that holds what is deployed (an Argo CD Application's
    /// values, a values ConfigMap) does not parse.
    String,
}

/// Where a file's workloads land.
#[derive(Debug, Clone, Default)]
pub struct Simulated {
    /// One per pod template, in document order.
    pub workloads: Vec<WorkloadResult>,
    /// Why some of the file was not read, if it was not.
    pub unread: Option<Unread>,
    /// What makes pods in the file but was not simulated, each in words with why.
    pub not_simulated: Vec<String>,
}

/// Simulates every pod template of a file's text against an inventory, and marks those the API
/// server would not create ([`WorkloadResult::rejected`]): a rule that finds what the API server
/// rejects (an error that needs no inventory, as `unknown-field` or `admission-rejected`) has a
/// finding inside the pod template. Configuration and suppressions change nothing here: the API
/// server rejects what it rejects.
pub fn simulate(text: &str, options: &Options, inventory: &Inventory) -> Simulated {
    let stream = syntax::parse(text);
    // Documents that are templates are not read; the others are, whatever their neighbours. A
    // strategic-merge patch is simulated in its overlay's render, not on its own.
    let classes = class::documents(text, &stream).in_place(options.patch_file());
    let mut unread = unread(&stream, &classes);
    let mut out = Vec::new();
    let mut not_simulated = Vec::new();
    let read = stream.documents.iter().zip(&classes.documents);
    for (doc, class) in
        read.filter(|(_, c)| matches!(c, Class::Read | Class::PoolFile(_) | Class::MergePatch))
    {
        let extracted = extract_known(doc, options.chart_kinds(), Some(options.cluster().crds()));
        if *class == Class::MergePatch {
            not_simulated.extend(extracted.pod_specs.iter().map(|p| {
                part(
                    &extracted,
                    p.object,
                    &p.path,
                    "a strategic-merge patch a kustomization applies to another object: its \
                     pods are that object's, as the overlay renders it",
                )
            }));
            continue;
        }
        let first = out.len();
        schedule::simulate_document(doc, &extracted, options, inventory, &mut out);
        let strings = out.len();
        if let Some(why) =
            embedded::simulate(text, doc, options, inventory, &extracted.objects, &mut out)
        {
            unread = unread.or(Some(why));
        }
        not_simulated.extend(skipped(&extracted, &out[first..]));
        if strings == first {
            continue;
        }
        // What the API server would reject: the error rules that need no inventory.
        let rejects = |m: &RuleMeta| !m.needs_inventory && m.severity == Severity::Error;
        let mut found = Vec::new();
        rules::check_lists_by(
            text,
            doc,
            options,
            (&extracted.objects, &extracted.tolerations, &[]),
            &rejects,
            &mut found,
        );
        rules::admission_rejected::check(doc, &extracted, options, false, &mut found);
        rules::check_objects(text, doc, options, &extracted, &mut found);
        found.retain(|d| rules::find(d.rule).is_some_and(rejects));
        found.sort_by_key(|d| d.range.start);
        // The strings' templates were judged in their own text.
        let specs: Vec<String> = out[first..strings].iter().map(|w| w.path.clone()).collect();
        let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
        for w in &mut out[first..strings] {
            w.rejected = found
                .iter()
                .find(|d| rejects_own(d, &w.path, &specs))
                .map(|d| Rejected {
                    rule: d.rule,
                    message: d.message.clone(),
                    path: d.path.clone(),
                });
            // Rejected, it is placed nowhere: no pool comes closer than another.
            if w.rejected.is_some() {
                w.closest = None;
            }
        }
    }
    Simulated {
        workloads: out,
        unread,
        not_simulated,
    }
}

/// The pod templates of a file, as `lint --inventory` counts the ones it judged: how many the
/// analysis read, how many of them by their shape (in kinds not in taintlint's table), and why
/// some of the file was not read, if it was not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PodTemplates {
    pub found: usize,
    pub by_shape: usize,
    pub unread: Option<Unread>,
}

impl std::ops::AddAssign for PodTemplates {
    fn add_assign(&mut self, other: PodTemplates) {
        self.found += other.found;
        self.by_shape += other.by_shape;
        self.unread = self.unread.or(other.unread);
    }
}

/// Why some of a parsed stream is not read: a document (or the stream's tail) that is a Go or
/// Helm template, else one that is not valid YAML.
fn unread(stream: &syntax::Stream<'_>, classes: &class::Documents) -> Option<Unread> {
    if classes.any_template() {
        Some(Unread::Template)
    } else {
        (stream.error.is_some() || stream.documents.iter().any(|d| d.error.is_some()))
            .then_some(Unread::Syntax)
    }
}

/// Whether finding `d` makes the API server reject the pod template at `pod_spec` (a path from
/// the document root): an error of a rule that needs no inventory, in the pod spec or in the
/// pod's deprecated tolerations annotation (validated with the pod too).
/// [`rejects`], for the pod spec at `pod_spec` among the document's pod specs `specs`: a finding
/// inside a pod spec nested in it (chart values: `controller` holds
/// `controller.admissionWebhooks.patch`) is the nested one's.
fn rejects_own(d: &Diagnostic, pod_spec: &str, specs: &[&str]) -> bool {
    rejects(d, pod_spec)
        && !specs
            .iter()
            .any(|s| s.len() > pod_spec.len() && s.starts_with(pod_spec) && rejects(d, s))
}

/// Whether a finding makes the API server reject the pod spec at `pod_spec` (`""`: the
/// document's root, as chart values keep a workload's pod fields).
fn rejects(d: &Diagnostic, pod_spec: &str) -> bool {
    let error =
        rules::find(d.rule).is_some_and(|m| !m.needs_inventory && m.severity == Severity::Error);
    let annotation = format!(
        "{}metadata.annotations[{}]",
        pod_spec.strip_suffix("spec").unwrap_or(""),
        crate::k8s::cluster::POD_TOLERATIONS
    );
    error
        && d.path.as_deref().is_some_and(|p| {
            p.starts_with(&annotation)
                || p.strip_prefix(pod_spec).is_some_and(|rest| {
                    pod_spec.is_empty() || rest.is_empty() || rest.starts_with('.')
                })
        })
}

/// Leaves out the rules `options` turns off and sets the severity of those it gives a level
/// (other findings keep the severity their rule gave them).
fn levels(options: &Options, out: &mut Vec<Diagnostic>) {
    out.retain_mut(
        |d| match rules::find(d.rule).and_then(|m| options.configured_level(m)) {
            Some(Some(level)) => {
                d.severity = level;
                true
            }
            Some(None) => false,
            None => true,
        },
    );
}

/// Applies the configured rule levels and the inline suppressions, and reports suppressions
/// that silence nothing.
fn settle(text: &str, stream: &syntax::Stream<'_>, options: &Options, out: &mut Vec<Diagnostic>) {
    levels(options, out);
    let mut directives = suppress::directives(text, stream);
    suppress::apply(&mut directives, out);
    let document_of = |offset: usize| {
        stream
            .documents
            .iter()
            .find(|d| d.span.contains(&offset))
            .map(|d| d.index)
    };
    let mut unused = Vec::new();
    rules::unused_suppression::report(text, &directives, options, document_of, &mut unused);
    // `disable-file=unused-suppression` silences these too.
    suppress::apply(&mut directives, &mut unused);
    out.extend(unused);
}

/// Runs every rule over a parsed file, against `inventory`; telling `again` what each document
/// found and read of it, and keeping what a document found before where it reads the same.
/// With `flush`, the findings so far are offered to it after each object and each document
/// (see [`check_document`]; not with `again`, which keeps each document's findings).
fn check_stream<'a>(
    text: &'a str,
    stream: &mut syntax::Stream<'a>,
    options: &Options,
    (inventory, mut again): (Option<&Inventory>, Again<'_>),
    mut places: Option<&mut Places>,
    judged: &mut PodTemplates,
    mut flush: Option<&mut Flush<'_>>,
) -> Vec<Diagnostic> {
    debug_assert!(again.is_none() || flush.is_none());
    let mut out = Vec::new();
    let classes = class::documents(text, stream).in_place(options.patch_file());
    judged.unread = unread(stream, &classes);
    if let Some(error) = &stream.error {
        let at = stream.documents.len();
        match &classes.tail {
            Some(t) => out.push(template_finding(text, t, at, options)),
            None => out.push(syntax_diagnostic(text, error, at)),
        }
    } else if let Some(error) = json_error(text) {
        out.push(syntax_diagnostic(text, &error, 0));
    }
    let local = with_local_cluster(text, stream, options);
    let options = local.as_ref().unwrap_or(options);
    for (k, (doc, class)) in stream
        .documents
        .iter_mut()
        .zip(classes.documents)
        .enumerate()
    {
        let start = out.len();
        let mut reads = InventoryReads::default();
        let mut found = None;
        let templates = match class {
            Class::Template(t) => {
                out.push(template_finding(text, &t, doc.index, options));
                PodTemplates::default()
            }
            _ => {
                let kept = again
                    .as_ref()
                    .and_then(|(_, before)| before.as_ref()?.documents.get(k))
                    .filter(|d| {
                        places.is_none() && inventory.is_some_and(|i| d.reads.still_hold(i))
                    });
                match kept {
                    Some(d) => {
                        out.extend(d.found.iter().cloned());
                        found = Some(d.found.clone());
                        reads = d.reads.clone();
                        d.templates
                    }
                    None => {
                        if inventory.is_none() {
                            // Judged without one: what it reads of an inventory is not told.
                            reads.opaque();
                        }
                        let recording = again.is_some().then_some(&mut reads);
                        check_document(
                            text,
                            (doc, &class),
                            options,
                            (inventory, recording),
                            places.as_deref_mut(),
                            &mut out,
                            flush.as_deref_mut(),
                        )
                    }
                }
            }
        };
        // A document's findings lie inside it: a document is a place to cut too.
        if let Some(flush) = flush.as_deref_mut() {
            flush(&mut out);
        }
        *judged += templates;
        if let Some((now, _)) = again.as_mut() {
            now.documents.push(JudgedDocument {
                found: found.unwrap_or_else(|| out[start..].into()),
                reads,
                templates,
            });
        }
    }
    not_a_manifest(text, &mut out);
    out
}

/// A file whose YAML does not parse and that shows no sign of Kubernetes is not read as a
/// manifest: its syntax errors become one `not-a-manifest` finding, at the first of them.
fn not_a_manifest(text: &str, out: &mut Vec<Diagnostic>) {
    let syntax = rules::YAML_SYNTAX.name;
    let Some(first) = out.iter().position(|d| d.rule == syntax) else {
        return;
    };
    if class::shows_kubernetes(text) {
        return;
    }
    let first = out.remove(first);
    out.retain(|d| d.rule != syntax);
    out.push(file_diagnostic(
        &rules::NOT_A_MANIFEST,
        first.range,
        first.document,
        format!(
            "not read as a manifest (no apiVersion, kind, tolerations or taints key): {}",
            first.message
        ),
    ));
}

/// The one finding of a document that is a template ([`class::documents`]). Under a chart's
/// `templates/` (the caller says so in `options`) it names Helm; elsewhere (an operator's
/// operand templates, say) Go.
fn template_finding(text: &str, t: &Template, document: usize, options: &Options) -> Diagnostic {
    let message = match t.form {
        Form::Placeholder => format!(
            "placeholders that a script fills in (`{}`), not YAML until they are filled in",
            &text[t.at.clone()]
        ),
        Form::Format => {
            "a Go format string (`%s` as a value), not YAML until its program fills it in".into()
        }
        Form::Go if options.chart_template() => {
            "a Helm chart template (Go template syntax), not YAML: lint its rendered output".into()
        }
        Form::Go => "a Go template, not YAML until it is rendered: lint its rendered output".into(),
        Form::ReadAsMappings => "a Go template whose actions YAML reads as mappings, not YAML \
                                 until it is rendered: lint its rendered output"
            .into(),
    };
    file_diagnostic(&rules::HELM_TEMPLATE, t.at.clone(), Some(document), message)
}

/// The options with this file's own Namespaces and RuntimeClasses added to the cluster (places
/// in this file carry no file name; the file's own definitions come first), when it has any.
fn with_local_cluster(
    text: &str,
    stream: &syntax::Stream<'_>,
    options: &Options,
) -> Option<Options> {
    let mut cluster = cluster_objects("", text, Some(stream));
    if cluster.is_empty() {
        return None;
    }
    cluster.merge(options.cluster().clone());
    let mut o = options.clone();
    o.set_cluster(std::sync::Arc::new(cluster));
    Some(o)
}

/// The cluster objects (Namespaces, RuntimeClasses, resource claims, CRDs, ...) of one file
/// named `file`, as every face reads a file that is not the one analysed: `lint` and
/// `simulate` from their inputs, the language server from the workspace's files. Merged in
/// path order into what the inventory holds ([`Cluster::merge`]: the first definition of a name
/// stands; one the API server refuses removes none read before it).
///
/// [`Cluster::merge`]: crate::k8s::cluster::Cluster::merge
///
/// `stream`, when given, is what [`syntax::parse`] made of `text`.
pub fn cluster_objects(
    file: &str,
    text: &str,
    stream: Option<&syntax::Stream<'_>>,
) -> crate::k8s::cluster::Cluster {
    let mut cluster = crate::k8s::cluster::Cluster::default();
    match stream {
        Some(stream) => cluster.add_stream_with(file, text, stream, &refused_runtime_classes),
        None => cluster.add_text_with(file, text, &refused_runtime_classes),
    }
    cluster
}

/// The names of the RuntimeClasses of a document that the API server refuses: those with a
/// finding of a rule that says the API server rejects it (an error-level rule that needs no
/// inventory), in the object or in its `scheduling.tolerations`. Such a class is never created,
/// so the RuntimeClass admission plugin refuses a pod that names it as not found.
fn refused_runtime_classes(text: &str, doc: &Document<'_>) -> Vec<String> {
    if !text.contains("RuntimeClass") {
        return Vec::new();
    }
    let extracted = extract_with(doc, None);
    let options = Options::default();
    let mut names = Vec::new();
    for (index, object) in extracted.objects.iter().enumerate() {
        let (Some("RuntimeClass"), Some(name)) = (object.kind, object.name) else {
            continue;
        };
        let mut found = Vec::new();
        rules::check_object(text, doc, &options, &extracted, index, &mut found);
        let lists: Vec<_> = extracted
            .tolerations
            .iter()
            .filter(|l| l.list.object == Some(index))
            .cloned()
            .collect();
        check_lists(
            text,
            doc,
            &options,
            &extracted.objects,
            &lists,
            &[],
            &mut found,
        );
        let refused = found.iter().any(|d| {
            rules::find(d.rule).is_some_and(|m| !m.needs_inventory && m.severity == Severity::Error)
        });
        if refused {
            names.push(name.to_string());
        }
    }
    names
}

/// Takes the findings so far when it wants them (see [`check_document`]).
type Flush<'f> = dyn FnMut(&mut Vec<Diagnostic>) + 'f;

/// Runs every rule over one document. With `flush`, findings are handed to it after each
/// object of the document (at least: it decides whether to take them), which in a `kind: List`
/// of 30,000 items keeps only one item's findings waiting; the findings of an object lie inside
/// it, so they come out in order. A document with aliases is checked whole (an alias in one item
/// may put findings inside another). Returns the pod templates it read.
#[allow(clippy::too_many_arguments)]
fn check_document<'a>(
    text: &'a str,
    (doc, class): (&mut Document<'a>, &Class),
    options: &Options,
    (inventory, mut reads): (Option<&Inventory>, Option<&mut InventoryReads>),
    mut places: Option<&mut Places>,
    out: &mut Vec<Diagnostic>,
    mut flush: Option<&mut Flush<'_>>,
) -> PodTemplates {
    let none = PodTemplates::default();
    if let Some(error) = &doc.error {
        out.push(syntax_diagnostic(text, error, doc.index));
        return none;
    }
    if unknown_aliases(doc, out) {
        return none;
    }
    // A pool file's taints (`key=value:Effect` strings or mappings) get the taint rules.
    if let Class::PoolFile(root) = *class {
        if let Ok(lists) = compact::parse(0, text, doc, root, None) {
            check_lists(text, doc, options, &[], &[], &lists, out);
            return none;
        }
    }
    // Node configuration (kubeadm, eksctl, ...) keeps taints in places of its own, some as
    // `key=value:Effect` strings: they get the taint rules too.
    let defined = crate::inventory::taint_lists(text, doc);
    // A JSON6902 operation list's values are the tolerations or taints they write.
    let patch = match *class {
        Class::Patch(root) => json6902::prepare(doc, root, options.patch_target()),
        _ => None,
    };
    let doc = &*doc;
    if let Some(patch) = &patch {
        json6902::check(text, doc, options, patch, out);
    }
    let extracted = extract_known(doc, options.chart_kinds(), Some(options.cluster().crds()));
    // A strategic-merge patch's pod templates are partial: placed in its target, not alone.
    let placed = *class != Class::MergePatch;
    let templates = if placed {
        &extracted.pod_specs[..]
    } else {
        &[]
    };
    let mut judged = PodTemplates {
        found: templates.len(),
        by_shape: templates.iter().filter(|p| p.by_shape).count(),
        unread: None,
    };
    let chunks = match flush.as_deref_mut() {
        Some(_) if defined.is_empty() => object_chunks(doc, &extracted),
        _ => None,
    };
    // A list both found (where a CRD says it is) and read by a node configuration's reader is
    // linted once.
    let mut defined = defined;
    defined.retain(|l| !extracted.taints.iter().any(|t| t.node == l.node));
    let taint_lists: std::borrow::Cow<'_, [crate::k8s::objects::List]> = if defined.is_empty() {
        std::borrow::Cow::Borrowed(&extracted.taints)
    } else {
        std::borrow::Cow::Owned(extracted.taints.iter().cloned().chain(defined).collect())
    };
    // Unless it is cut by object, the document is one chunk.
    let chunks = chunks.unwrap_or_else(|| {
        vec![ObjectChunk {
            objects: 0..extracted.objects.len(),
            tolerations: 0..extracted.tolerations.len(),
            taints: 0..taint_lists.len(),
            pod_specs: 0..extracted.pod_specs.len(),
        }]
    });
    let admit = rules::admission_rejected::worth_admitting(doc, &extracted, options);
    // The inventory's taints, built once for the document when a fix is to be guarded.
    let mut cluster_taints = None;
    for chunk in chunks {
        // YAML held in strings (Helm values, kustomize patches, values ConfigMaps): its
        // findings lie inside the object that holds it.
        let (embedded, in_strings) = embedded::check(
            text,
            doc,
            options,
            inventory,
            &extracted.objects,
            chunk.objects.clone(),
            (out, places.as_deref_mut()),
        );
        judged += in_strings;
        // What YAML in a string reads of the inventory is not told.
        if let (Some(reads), true, true) = (reads.as_deref_mut(), embedded, inventory.is_some()) {
            reads.opaque();
        }
        let start = out.len();
        for object in chunk.objects {
            rules::check_object(text, doc, options, &extracted, object, out);
        }
        let tolerations = &extracted.tolerations[chunk.tolerations];
        check_lists(
            text,
            doc,
            options,
            &extracted.objects,
            tolerations,
            &taint_lists[chunk.taints],
            out,
        );
        if admit {
            rules::admission_rejected::check_specs(
                doc,
                &extracted,
                options,
                chunk.pod_specs.clone(),
                true,
                out,
            );
        }
        if let Some(inventory) = inventory {
            let pass = InventoryPass {
                text,
                doc,
                options,
                extracted: &extracted,
                inventory,
            };
            let pod_specs = if placed { chunk.pod_specs } else { 0..0 };
            pass.check_chunk(
                tolerations,
                pod_specs,
                &mut cluster_taints,
                (out, start),
                places.as_deref_mut(),
                reads.as_deref_mut(),
            );
        }
        if let Some(flush) = flush.as_deref_mut() {
            flush(out);
        }
    }
    judged
}

/// A document judged against an inventory, chunk by chunk.
struct InventoryPass<'a, 'd> {
    text: &'a str,
    doc: &'d Document<'a>,
    options: &'d Options,
    extracted: &'d crate::k8s::objects::Extracted<'d>,
    inventory: &'d Inventory,
}

impl InventoryPass<'_, '_> {
    /// What the inventory adds to a chunk's findings (`out[start..]`): fixes that would change
    /// what a toleration tolerates are held back (with the inventory's distinct taints, built
    /// once a document in `cluster_taints`), the workloads are judged against the pools, and,
    /// for the editor, each toleration's place is kept.
    fn check_chunk(
        &self,
        tolerations: &[crate::k8s::objects::TolerationList],
        pod_specs: std::ops::Range<usize>,
        cluster_taints: &mut Option<Vec<crate::k8s::model::Taint>>,
        (out, start): (&mut Vec<Diagnostic>, usize),
        places: Option<&mut Places>,
        mut reads: Option<&mut InventoryReads>,
    ) {
        let (text, doc, options, inventory) = (self.text, self.doc, self.options, self.inventory);
        if out[start..].iter().any(|d| !d.fixes.is_empty()) {
            if let Some(reads) = reads.as_deref_mut() {
                reads.read_taints(schedule::keeps_meaning::cluster_taints_digest(inventory));
            }
            let taints = cluster_taints
                .get_or_insert_with(|| schedule::keeps_meaning::cluster_taints(inventory));
            schedule::keeps_meaning::guard(
                text,
                doc,
                tolerations,
                options,
                taints,
                &mut out[start..],
            );
        }
        let mut places = places;
        let placements = places.as_deref_mut().map(|p| &mut p.placements);
        rules::check_workloads(
            text,
            doc,
            options,
            self.extracted,
            inventory,
            out,
            placements,
            reads,
            pod_specs,
        );
        if let Some(places) = places {
            let gate = options.feature(COMPARISON_GATE);
            for list in tolerations {
                for item in items(doc, &list.list) {
                    places
                        .tolerations
                        .extend(TolerationPlace::new(text, doc, &item, inventory, gate));
                }
            }
        }
    }
}

/// What belongs to some objects of a document: ranges in [`Extracted`]'s lists.
struct ObjectChunk {
    objects: std::ops::Range<usize>,
    tolerations: std::ops::Range<usize>,
    taints: std::ops::Range<usize>,
    pod_specs: std::ops::Range<usize>,
}

/// A document's lists cut by object, when that keeps every finding of an object inside it: no
/// aliases, and every list belongs to an object, in object order.
fn object_chunks(
    doc: &Document<'_>,
    ex: &crate::k8s::objects::Extracted<'_>,
) -> Option<Vec<ObjectChunk>> {
    if ex.objects.len() < 2
        || (0..doc.nodes_len() as u32).any(|id| matches!(doc.node(id).kind, NodeKind::Alias { .. }))
    {
        return None;
    }
    let owners = |objects: &mut dyn Iterator<Item = Option<usize>>| -> Option<Vec<usize>> {
        let owners: Vec<usize> = objects.collect::<Option<_>>()?;
        owners.is_sorted().then_some(owners)
    };
    let tolerations = owners(&mut ex.tolerations.iter().map(|l| l.list.object))?;
    let taints = owners(&mut ex.taints.iter().map(|l| l.object))?;
    let pod_specs = owners(&mut ex.pod_specs.iter().map(|p| Some(p.object)))?;
    let range = |owners: &[usize], k: usize| {
        owners.partition_point(|&o| o < k)..owners.partition_point(|&o| o <= k)
    };
    Some(
        (0..ex.objects.len())
            .map(|k| ObjectChunk {
                objects: k..k + 1,
                tolerations: range(&tolerations, k),
                taints: range(&taints, k),
                pod_specs: range(&pod_specs, k),
            })
            .collect(),
    )
}

/// A Terraform file: the taints of its node pools get the taint rules, at their characters in
/// the HCL strings. An effect in a provider's spelling (`NO_SCHEDULE`) is checked against that
/// provider's list; fixes are kept only when they edit inside a string.
/// Returns them with a stream of the taints' tree and the comments, for the suppressions.
fn check_hcl<'a>(text: &'a str, options: &Options) -> (syntax::Stream<'a>, Vec<Diagnostic>) {
    let mut stream = syntax::Stream {
        documents: Vec::new(),
        comments: terraform::line_comments(text),
        error: None,
    };
    let hcl = match terraform::parse(text) {
        Ok(hcl) => hcl,
        Err(e) => {
            let at = e.offset.unwrap_or(0).min(text.len());
            let start = crate::position::floor_char_boundary(text, at);
            let error = file_diagnostic(&rules::HCL_SYNTAX, start..start, Some(0), e.message);
            return (stream, vec![error]);
        }
    };
    let mut out = Vec::new();
    check_lists(text, &hcl.doc, options, &[], &[], &hcl.lists(), &mut out);
    out.retain(|d| {
        !(d.rule == rules::unknown_effect::META.name
            && hcl.spelled.iter().any(|s| s.range == d.range))
    });
    out.extend(
        hcl.spelled
            .iter()
            .filter_map(rules::unknown_effect::check_provider_effect),
    );
    out.extend(hcl.ignored.iter().map(rules::unknown_field::check_ignored));
    let strings: Vec<std::ops::Range<usize>> = (0..hcl.doc.nodes_len() as u32)
        .filter(|&id| matches!(hcl.doc.node(id).kind, NodeKind::Scalar { .. }))
        .map(|id| hcl.doc.node(id).span.clone())
        .collect();
    for d in &mut out {
        d.fixes.retain(|f| {
            f.edits.iter().all(|e| {
                strings
                    .iter()
                    .any(|s| s.start <= e.range.start && e.range.end <= s.end)
                    && !e.replacement.contains(['"', '\\', '\n'])
            })
        });
    }
    out.extend(applied_manifests(text, &hcl, options));
    stream.documents.push(hcl.doc);
    (stream, out)
}

/// The findings in the manifests a Terraform file applies (a NodePool in a `kubectl_manifest`'s
/// heredoc, [`terraform::Hcl::manifests`]) and in the karpenter-resources chart values it installs
/// (their `nodePool.taints`, [`terraform::Hcl::chart_pools`]), read as YAML where they are
/// written, as the inventory reads them. Without fixes (a fix is checked as YAML, and the file
/// is HCL), and without those on a Terraform expression (`${...}`, `%{...}`), whose value is not
/// known.
fn applied_manifests(text: &str, hcl: &terraform::Hcl<'_>, options: &Options) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let manifests = hcl.manifests.iter().map(|r| (r, false));
    for (range, chart) in manifests.chain(hcl.chart_pools.iter().map(|r| (r, true))) {
        let Some(yaml) = terraform::manifest_text(text, range) else {
            continue;
        };
        let mut stream = syntax::parse(&yaml);
        let mut found = if chart {
            chart_taints(&yaml, &stream, options)
        } else {
            check_stream(
                &yaml,
                &mut stream,
                options,
                (None, None),
                None,
                &mut PodTemplates::default(),
                None,
            )
        };
        let expressions: Vec<std::ops::Range<usize>> =
            terraform::expressions(&text.as_bytes()[range.clone()])
                .into_iter()
                .map(|e| range.start + e.start..range.start + e.end)
                .collect();
        found.retain(|d| {
            !expressions
                .iter()
                .any(|e| d.range.start < e.end && e.start < d.range.end.max(d.range.start + 1))
        });
        for d in &mut found {
            d.fixes.clear();
            d.document = Some(0);
        }
        out.extend(found);
    }
    out
}

/// The findings on the `nodePool.taints` of karpenter-resources chart values (the taints of
/// the NodePool the chart renders), without what the API server would say at its paths.
fn chart_taints(yaml: &str, stream: &syntax::Stream<'_>, options: &Options) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(doc) = stream.documents.first() else {
        return out;
    };
    let list = (doc.root).and_then(|root| crate::inventory::chart_taint_list(doc, root));
    if let Some(list) = list {
        rules::check_lists(yaml, doc, options, &[], &[], &[list], &mut out);
    }
    // The API server sees the NodePool the chart renders, at its own paths, not these values.
    for d in &mut out {
        d.server_message = None;
    }
    out
}

fn file_diagnostic(
    rule: &'static RuleMeta,
    range: std::ops::Range<usize>,
    document: Option<usize>,
    message: String,
) -> Diagnostic {
    Diagnostic {
        rule: rule.name,
        severity: rule.severity,
        message,
        server_message: None,
        range,
        document,
        path: None,
        object: None,
        related: Vec::new(),
        fixes: Vec::new(),
    }
}

/// A comma before a closing bracket in a text that opens with `{` (as `kubectl get -o json`
/// writes): kubectl (apimachinery's `NewYAMLOrJSONDecoder`) and the inventory reader decode
/// such a file as JSON and refuse it, while YAML's flow collections take it. `None` for valid
/// JSON and for any other text.
fn json_error(text: &str) -> Option<SyntaxError> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if !body.starts_with('{') {
        return None;
    }
    let error =
        serde_json::from_str::<serde::de::IgnoredAny>(text.trim_start_matches('\u{feff}')).err()?;
    // serde_json counts lines from 1 and columns in bytes from 1 (0 at a line's start).
    let bom = text.len() - text.trim_start_matches('\u{feff}').len();
    let line_start = text[bom..]
        .split_inclusive('\n')
        .take(error.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let offset = crate::position::floor_char_boundary(
        text,
        (bom + line_start + error.column().saturating_sub(1)).min(text.len()),
    );
    // A comma before a closing bracket: the place to fix is the comma.
    let before = text[..offset].trim_end();
    if before.ends_with(',') && text[offset..].starts_with([']', '}']) {
        return Some(SyntaxError {
            offset: before.len() - 1,
            message: "not valid JSON: a comma before a closing bracket (a file that starts \
                      with `{` is read as JSON)"
                .to_string(),
        });
    }
    // Other texts that open with `{` may be YAML flow mappings that are not JSON: the YAML
    // reading stands for them.
    None
}

fn syntax_diagnostic(text: &str, error: &SyntaxError, document: usize) -> Diagnostic {
    let start = crate::position::floor_char_boundary(text, error.offset);
    let end = text[start..]
        .chars()
        .next()
        .filter(|c| *c != '\n' && *c != '\r')
        .map_or(start, |c| start + c.len_utf8());
    file_diagnostic(
        &rules::YAML_SYNTAX,
        start..end,
        Some(document),
        error.message.clone(),
    )
}

/// Reports aliases to undefined anchors; returns whether there were any.
fn unknown_aliases(doc: &Document<'_>, out: &mut Vec<Diagnostic>) -> bool {
    let mut found = false;
    for id in 0..doc.nodes_len() as u32 {
        let node = doc.node(id);
        if let NodeKind::UnknownAlias { name } = &node.kind {
            found = true;
            out.push(file_diagnostic(
                &rules::YAML_SYNTAX,
                node.span.clone(),
                Some(doc.index),
                format!("unknown anchor '{name}' referenced"),
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(start: usize, rule: &'static str, message: &str) -> Diagnostic {
        let mut d = file_diagnostic(
            &rules::HELM_TEMPLATE,
            start..start + 1,
            None,
            message.into(),
        );
        d.rule = rule;
        d
    }

    /// The language server judges a file again from the tree it kept: every fixture and example
    /// gets the same findings (and placements) from one tree judged three times as from its
    /// text, and the tree is left as parsed (a JSON6902 patch adds nodes while it is judged).
    #[test]
    fn a_kept_tree_is_judged_as_its_text_is() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let pools = std::fs::read_to_string(root.join("examples/inventory/pools.yaml")).unwrap();
        let nodes = std::fs::read_to_string(root.join("examples/inventory/nodes.yaml")).unwrap();
        let inventory = Inventory::load(&[("pools.yaml", &pools), ("nodes.yaml", &nodes)]).unwrap();
        let mut patched = Options::default();
        patched.set_patch_target(Some(std::sync::Arc::new(
            crate::k8s::json6902::PatchTarget {
                group: Some("apps".into()),
                version: Some("v1".into()),
                kind: Some("Deployment".into()),
                name: Some("agent".into()),
                namespace: None,
            },
        )));
        let (mut judged, mut changed) = (0, 0);
        for path in crate::test_support::fixture_files(&["yaml", "yml", "json", "tf"]) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if !class::text(&text).is_parsed() {
                continue;
            }
            let mut stream = syntax::parse(&text);
            let marks: Vec<_> = stream.documents.iter().map(Document::mark).collect();
            for options in [&Options::default(), &patched] {
                assert_eq!(
                    reads_inventory(&text, Some(&mut stream), options),
                    reads_inventory(&text, None, options),
                    "{}",
                    path.display()
                );
                for inventory in [None, Some(&inventory), Some(&inventory)] {
                    let ask = Ask::new(options, inventory);
                    let fresh = check(&text, ask);
                    let (kept, _) = check_again(&text, &mut stream, ask, None);
                    assert_eq!(kept, fresh, "{}", path.display());
                    judged += 1;
                }
            }
            let after: Vec<_> = stream.documents.iter().map(Document::mark).collect();
            assert_eq!(after, marks, "{}", path.display());
            // Whether the rules change the tree while they judge it (they must, in some
            // fixtures, for the checks above to mean anything): a patch's stand-ins added, a
            // pool file's `key=value:Effect` strings replaced by mappings.
            let mut probe = syntax::parse(&text);
            for d in &mut probe.documents {
                let mark = d.mark();
                if let Some(root) = class::patch(d) {
                    let _patch = json6902::prepare(d, root, patched.patch_target());
                }
                if let Some(root) = class::pool_file(d) {
                    let _ = compact::parse(0, &text, d, root, None);
                }
                if d.mark() != mark {
                    changed += 1;
                }
            }
        }
        assert!(
            judged > 300 && changed > 1,
            "{judged} judged, {changed} changed"
        );
    }

    /// A file `reads_inventory` says is blind to the inventory has the same findings with an
    /// inventory as without one, over every fixture and example; and the files that hold pod
    /// templates, tolerations or YAML in strings are not called blind.
    #[test]
    fn a_file_that_reads_no_inventory_has_the_same_findings_with_one() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let pools = std::fs::read_to_string(root.join("examples/inventory/pools.yaml")).unwrap();
        let nodes = std::fs::read_to_string(root.join("examples/inventory/nodes.yaml")).unwrap();
        let inventory = Inventory::load(&[("pools.yaml", &pools), ("nodes.yaml", &nodes)]).unwrap();
        let options = Options::default();
        let (mut blind, mut reading) = (0, 0);
        for path in &crate::test_support::fixture_files(&["yaml", "yml", "json", "tf"]) {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            if reads_inventory(&text, None, &options) {
                reading += 1;
                continue;
            }
            blind += 1;
            assert_eq!(
                check(&text, Ask::new(&options, Some(&inventory))).diagnostics,
                analyse(&text, &options),
                "{}",
                path.display()
            );
        }
        assert!(
            blind > 20 && reading > 20,
            "{blind} blind, {reading} reading"
        );
        let cases = [
            ("kind: Pod\nspec:\n  containers: [{name: c, image: i}]\n", true),
            ("tolerations: [{key: a, operator: Exists}]\n", true),
            (
                "resources: [a.yaml]\npatches:\n- patch: |\n    kind: Deployment\n    metadata: {name: a}\n",
                true,
            ),
            ("kind: Service\nmetadata: {name: a}\n", false),
            (
                "kind: Node\nmetadata: {name: n}\nspec:\n  taints: [{key: a, effect: NoSchedule}]\n",
                false,
            ),
            ("pools:\n  web: {count: 2, taints: [\"a=b:NoSchedule\"]}\n", false),
            ("{{ if .Values.x }}\ntolerations: {{ .Values.t }}\n", false),
        ];
        for (text, reads) in cases {
            assert_eq!(reads_inventory(text, None, &options), reads, "{text}");
        }
    }

    /// `order` sorts as a stable sort by (start, end, rule) would, and drops exact repeats.
    #[test]
    fn order_is_a_stable_sort_by_place_without_repeats() {
        let mut seed = 7u64;
        for n in [0, 1, 2, 3, 10, 200] {
            let mut findings: Vec<Diagnostic> = (0..n)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let rule = if seed >> 40 & 1 == 0 { "a" } else { "b" };
                    finding((seed >> 33) as usize % 17, rule, &format!("m{}", i % 3))
                })
                .collect();
            let mut expected = findings.clone();
            expected.sort_by_key(|d| (d.range.start, d.range.end, d.rule));
            expected
                .dedup_by(|a, b| a.rule == b.rule && a.range == b.range && a.message == b.message);
            order(&mut findings);
            assert_eq!(findings, expected, "n = {n}");
        }
    }
}
