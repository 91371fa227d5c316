//! The pure core: text in, diagnostics out. No file system, threads or protocol here.

use crate::config::Options;
use crate::diagnostic::{Diagnostic, Severity};
use crate::inventory::{compact, terraform, Inventory};
use crate::k8s::objects::{extract, items};
use crate::rules::{self, check_lists, RuleMeta};
use crate::schedule::placement::{Placement, TolerationPlace};
use crate::schedule::{self, Rejected, WorkloadResult, COMPARISON_GATE};
use crate::suppress;
use crate::syntax::{self, Document, NodeKind, SyntaxError};

/// Lints one file's text. Ranges in the result are byte ranges into `text`, sorted by position.
/// Rules that `options` turns off are not reported, the others at the severity it sets, and
/// findings that a `# taintlint: disable` comment silences are left out.
pub fn analyse(text: &str, options: &Options) -> Vec<Diagnostic> {
    analyse_with(text, options, None)
}

/// Lints one file's text against a cluster inventory too: every pod template is simulated on
/// the inventory's nodes and the inventory rules report what they find (related locations point
/// into the inventory files). Without an inventory, the same as [`analyse`].
pub fn analyse_with(
    text: &str,
    options: &Options,
    inventory: Option<&Inventory>,
) -> Vec<Diagnostic> {
    analyse_file(text, options, inventory, false).diagnostics
}

/// One file's analysis: its findings and, when asked for (`placements`) and an inventory is
/// given, where each pod template lands and what each toleration matches, as editors show
/// them. The simulations are those the inventory rules ran, kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileAnalysis {
    pub diagnostics: Vec<Diagnostic>,
    /// One per pod template, in document order.
    pub placements: Vec<Placement>,
    /// One per valid toleration written in the file, in document order.
    pub tolerations: Vec<TolerationPlace>,
}

impl From<Vec<Diagnostic>> for FileAnalysis {
    fn from(diagnostics: Vec<Diagnostic>) -> Self {
        FileAnalysis {
            diagnostics,
            ..FileAnalysis::default()
        }
    }
}

/// [`analyse_with`], keeping the placements too when `placements` is set.
pub fn analyse_file(
    text: &str,
    options: &Options,
    inventory: Option<&Inventory>,
    placements: bool,
) -> FileAnalysis {
    let mut places = (placements && inventory.is_some()).then(Places::default);
    let (stream, mut out) = if terraform::looks_like_hcl(text) {
        check_hcl(text, options)
    } else {
        let mut stream = syntax::parse(text);
        let out = check_stream(text, &mut stream, options, inventory, places.as_mut());
        (stream, out)
    };
    settle(text, &stream, options, &mut out);

    out.sort_by(|a, b| {
        (a.range.start, a.range.end, a.rule).cmp(&(b.range.start, b.range.end, b.rule))
    });
    // A list reached twice (through an alias) is reported once. (The API server reports an
    // item aliased into two places at each: their server messages name different paths.)
    out.dedup_by(|a, b| {
        a.rule == b.rule
            && a.range == b.range
            && a.message == b.message
            && a.server_message == b.server_message
    });
    let places = places.unwrap_or_default();
    FileAnalysis {
        diagnostics: out,
        placements: places.placements,
        tolerations: places.tolerations,
    }
}

#[derive(Default)]
struct Places {
    placements: Vec<Placement>,
    tolerations: Vec<TolerationPlace>,
}

/// Simulates every pod template of a file's text against an inventory, and marks those the API
/// server would not create ([`WorkloadResult::rejected`]): a rule that finds what the API server
/// rejects (an error that needs no inventory, as `unknown-field` or `admission-rejected`) has a
/// finding inside the pod template. Configuration and suppressions change nothing here: the API
/// server rejects what it rejects.
pub fn simulate_text(text: &str, options: &Options, inventory: &Inventory) -> Vec<WorkloadResult> {
    let stream = syntax::parse(text);
    let mut out = Vec::new();
    for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
        let extracted = extract(doc);
        let first = out.len();
        schedule::simulate_document(doc, &extracted, options, inventory, &mut out);
        if out.len() == first {
            continue;
        }
        let mut found = Vec::new();
        check_lists(
            text,
            doc,
            options,
            &extracted.objects,
            &extracted.tolerations,
            &[],
            &mut found,
        );
        rules::admission_rejected::check(doc, &extracted, options, false, &mut found);
        rules::check_objects(text, doc, options, &extracted, &mut found);
        found.retain(|d| {
            rules::find(d.rule).is_some_and(|m| !m.needs_inventory && m.severity == Severity::Error)
        });
        found.sort_by_key(|d| d.range.start);
        for w in &mut out[first..] {
            // The pod's deprecated tolerations annotation is validated with the pod too.
            let annotation = format!(
                "{}metadata.annotations[{}]",
                w.path.strip_suffix("spec").unwrap_or(""),
                crate::k8s::cluster::POD_TOLERATIONS
            );
            w.rejected = found
                .iter()
                .find(|d| {
                    d.path.as_deref().is_some_and(|p| {
                        p.starts_with(&annotation)
                            || p.strip_prefix(w.path.as_str())
                                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
                    })
                })
                .map(|d| Rejected {
                    rule: d.rule,
                    message: d.message.clone(),
                    path: d.path.clone(),
                });
        }
    }
    out
}

/// Applies the configured rule levels and the inline suppressions, and reports suppressions
/// that silence nothing.
fn settle(text: &str, stream: &syntax::Stream<'_>, options: &Options, out: &mut Vec<Diagnostic>) {
    out.retain_mut(
        |d| match rules::find(d.rule).and_then(|m| options.rule_level(m)) {
            Some(level) => {
                d.severity = level;
                true
            }
            None => false,
        },
    );
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

/// Runs every rule over a parsed file.
fn check_stream<'a>(
    text: &'a str,
    stream: &mut syntax::Stream<'a>,
    options: &Options,
    inventory: Option<&Inventory>,
    mut places: Option<&mut Places>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();

    if let Some(at) = rules::looks_like_helm_template(text, stream) {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let end = text[at..end].find("}}").map_or(end, |i| at + i + 2);
        out.push(file_diagnostic(
            &rules::HELM_TEMPLATE,
            at..end,
            None,
            "a Helm chart template (Go template syntax), not YAML: lint its rendered output"
                .to_string(),
        ));
        return out;
    }

    if let Some(error) = &stream.error {
        out.push(syntax_diagnostic(text, error, stream.documents.len()));
    }
    // Namespaces and RuntimeClasses of this file are part of the cluster too (places in this
    // file carry no file name); the file's own definitions come first.
    let local;
    let options = if crate::k8s::cluster::may_hold_cluster_objects(text) {
        let mut cluster = crate::k8s::cluster::Cluster::default();
        for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
            cluster.add_document("", doc);
        }
        if cluster.is_empty() {
            options
        } else {
            cluster.merge(options.cluster().clone());
            let mut o = options.clone();
            o.set_cluster(std::sync::Arc::new(cluster));
            local = o;
            &local
        }
    } else {
        options
    };
    for doc in stream.documents.iter_mut() {
        if let Some(error) = &doc.error {
            out.push(syntax_diagnostic(text, error, doc.index));
            continue;
        }
        if unknown_aliases(doc, &mut out) {
            continue;
        }
        // A pool file's taints (`key=value:Effect` strings or mappings) get the taint rules.
        if let Some(root) = doc.root.filter(|&r| compact::is_pool_file(doc, r)) {
            if let Ok(lists) = compact::parse(0, text, doc, root, None) {
                check_lists(text, doc, options, &[], &[], &lists, &mut out);
                continue;
            }
        }
        let doc = &*doc;
        let extracted = extract(doc);
        check_lists(
            text,
            doc,
            options,
            &extracted.objects,
            &extracted.tolerations,
            &extracted.taints,
            &mut out,
        );
        rules::admission_rejected::check(doc, &extracted, options, true, &mut out);
        rules::check_objects(text, doc, options, &extracted, &mut out);
        if let Some(inventory) = inventory {
            let placements = places.as_deref_mut().map(|p| &mut p.placements);
            rules::check_workloads(
                text, doc, options, &extracted, inventory, &mut out, placements,
            );
            if let Some(places) = places.as_deref_mut() {
                let gate = options.feature(COMPARISON_GATE);
                for list in &extracted.tolerations {
                    for item in items(doc, &list.list) {
                        places
                            .tolerations
                            .extend(TolerationPlace::new(text, doc, &item, inventory, gate));
                    }
                }
            }
        }
    }
    out
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
    stream.documents.push(hcl.doc);
    (stream, out)
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
