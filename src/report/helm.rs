//! Rendered Helm output (`helm template` piped to `taintlint lint -`): findings are mapped back
//! to the chart's template files through the `# Source: chart/templates/x.yaml` comment Helm
//! puts at the top of every document it renders.
//!
//! Each rendered document becomes a report of its own, named after its template; its lines
//! are counted from the first line after the `# Source:` comment. That is the line in the
//! rendered document, which is the template's own line only until the first template action
//! that renders to a different number of lines (an `include`, a `toYaml`, a `range`).
//!
//! A finding inside a `tolerations`, `nodeSelector` or `affinity` field whose rendered value
//! equals a value of the chart's values files (a chart writes them with
//! `{{- toYaml .Values.tolerations | nindent 8 }}`) is reported in the values file instead, at
//! the same place inside that value: that is where the fix goes ([`to_values`]).

use std::ops::Range;

use super::kustomize::{follow, mapped, path_of, Holder, Seg, Source, Steps};
use super::FileReport;
use crate::diagnostic::Diagnostic;
use crate::syntax::{self, Document, NodeId};

const MARKER: &str = "# Source: ";

/// A rendered document: its template's name and the byte range of its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub source: String,
    pub content: Range<usize>,
}

/// Lines of `text` with their byte ranges (without the line break).
fn lines(text: &str) -> impl Iterator<Item = (Range<usize>, &str)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let line = text[at..end].trim_end_matches('\r');
        let range = at..at + line.len();
        at = end + 1;
        Some((range, line))
    })
}

fn is_document_start(line: &str) -> bool {
    line == "---" || line.starts_with("--- ") || line.starts_with("---\t")
}

/// The rendered documents of Helm output: each `# Source: NAME` comment that is the first line
/// of a document, and the content after it up to the next `---`. Empty when the text is not
/// Helm output.
pub fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    // Whether the current line is the first of a document (after `---` or at the start).
    let mut at_start = true;
    for (range, line) in lines(text) {
        if is_document_start(line) {
            if let Some(last) = out.last_mut() {
                if last.content.end == usize::MAX {
                    last.content.end = range.start;
                }
            }
            at_start = true;
            continue;
        }
        if at_start {
            if let Some(name) = line.strip_prefix(MARKER) {
                let name = name.trim();
                if !name.is_empty() {
                    let content_start = (range.end + 1).min(text.len());
                    let content_start = if text[range.end..].starts_with("\r\n") {
                        range.end + 2
                    } else {
                        content_start
                    };
                    out.push(Section {
                        source: name.to_string(),
                        content: content_start..usize::MAX,
                    });
                }
            }
        }
        at_start = line.trim().is_empty() && at_start;
    }
    if let Some(last) = out.last_mut() {
        if last.content.end == usize::MAX {
            last.content.end = text.len();
        }
    }
    out.retain(|s| s.content.start <= s.content.end);
    out
}

fn shift(r: &Range<usize>, base: usize, len: usize) -> Range<usize> {
    let s = r.start.saturating_sub(base).min(len);
    let e = r.end.saturating_sub(base).min(len).max(s);
    s..e
}

fn shifted(mut d: Diagnostic, base: usize, len: usize) -> Diagnostic {
    d.range = shift(&d.range, base, len);
    for r in d.related.iter_mut().filter(|r| r.file.is_none()) {
        r.range = shift(&r.range, base, len);
    }
    for f in &mut d.fixes {
        for e in &mut f.edits {
            e.range = shift(&e.range, base, len);
        }
    }
    d
}

/// Splits the report of Helm output into one report per rendered document, named after its
/// template. Findings outside every document (on a `---` or `# Source:` line) stay in the
/// original report, which is kept only when it has any. Text that is not Helm output is
/// returned as it is.
pub fn split(report: FileReport) -> Vec<FileReport> {
    let sections = sections(&report.text);
    if sections.is_empty() {
        return vec![report];
    }
    let mut rest = Vec::new();
    let mut per_section: Vec<Vec<Diagnostic>> = vec![Vec::new(); sections.len()];
    for d in report.diagnostics {
        match sections
            .iter()
            .position(|s| s.content.contains(&d.range.start) || s.content.end == d.range.start)
        {
            Some(i) => per_section[i].push(d),
            None => rest.push(d),
        }
    }
    let mut out = Vec::new();
    if !rest.is_empty() {
        out.push(FileReport::new(
            report.path.clone(),
            report.text.clone(),
            rest,
        ));
    }
    for (section, diagnostics) in sections.into_iter().zip(per_section) {
        let text = report.text[section.content.clone()].to_string();
        let len = text.len();
        let base = section.content.start;
        let r = FileReport::new(
            section.source,
            text,
            diagnostics
                .into_iter()
                .map(|d| shifted(d, base, len))
                .collect(),
        );
        out.push(r);
    }
    out
}

/// The pod fields a chart typically renders whole from its values with `toYaml`.
const FROM_VALUES: &[&str] = &["tolerations", "nodeSelector", "affinity"];

/// Whether two nodes (of two documents) hold the same YAML value: scalars by their text,
/// mappings by their entries in any order, sequences item by item.
fn same(a: &Document<'_>, x: NodeId, b: &Document<'_>, y: NodeId) -> bool {
    if let (Some((s, _)), Some((t, _))) = (a.scalar(x), b.scalar(y)) {
        return s == t;
    }
    if let (Some(p), Some(q)) = (a.sequence(x), b.sequence(y)) {
        return p.len() == q.len() && p.iter().zip(q).all(|(&i, &j)| same(a, i, b, j));
    }
    if let (Some(p), Some(q)) = (a.mapping(x), b.mapping(y)) {
        return p.len() == q.len()
            && p.iter().all(|&(k, v)| {
                let key = a.scalar(k).map(|(s, _)| s).unwrap_or_default();
                b.get(y, key).is_some_and(|(_, w)| same(a, v, b, w))
            });
    }
    false
}

/// The nodes of a document that hold the same non-empty collection as `x` of `a`, those under
/// a key named `key` first.
fn equal_nodes(a: &Document<'_>, x: NodeId, b: &Document<'_>, key: &str) -> Vec<NodeId> {
    let (mut named, mut other) = (Vec::new(), Vec::new());
    let Some(root) = b.root else {
        return named;
    };
    let mut stack = vec![(None, root)];
    while let Some((k, node)) = stack.pop() {
        let node = b.resolve(node);
        if let Some(entries) = b.mapping(node) {
            for &(ek, ev) in entries.iter().rev() {
                stack.push((b.scalar(ek).map(|(s, _)| s.to_string()), ev));
            }
        } else if let Some(items) = b.sequence(node) {
            for &item in items.iter().rev() {
                stack.push((None, item));
            }
        }
        let filled = b.mapping(node).is_some_and(|m| !m.is_empty())
            || b.sequence(node).is_some_and(|s| !s.is_empty());
        if filled && same(a, x, b, node) {
            if k.as_deref() == Some(key) {
                named.push(node);
            } else {
                other.push(node);
            }
        }
    }
    named.extend(other);
    named
}

/// Moves the findings of one rendered template (`report`, split from Helm output) that lie in
/// a value the chart took from its values files into those files. `values` are the values
/// files in the order Helm reads them (the chart's `values.yaml`, then each `-f`): the last
/// one that holds the value is where it came from. Returns the template's report with what
/// stays, and each moved finding with the values file it now belongs to.
pub fn to_values(
    mut report: FileReport,
    values: &[Source],
) -> (FileReport, Vec<(String, Diagnostic)>) {
    let mut moved = Vec::new();
    if values.is_empty() || report.diagnostics.is_empty() {
        return (report, moved);
    }
    let rendered = report.text.clone();
    let stream = syntax::parse(&rendered);
    let parsed: Vec<(&Source, syntax::Stream<'_>)> = values
        .iter()
        .rev()
        .map(|v| (v, syntax::parse(&v.text)))
        .collect();
    let mut stay = Vec::new();
    for d in std::mem::take(&mut report.diagnostics) {
        match value_place(&rendered, &stream, &parsed, &d) {
            Some((file, mut found)) => {
                found.object = d.object.clone();
                let object = d.object.as_ref().map_or(String::new(), |o| {
                    let kind = o.kind.as_deref().unwrap_or("object");
                    match (&o.namespace, &o.name) {
                        (Some(ns), Some(n)) => format!(" into {kind} {ns}/{n}"),
                        (None, Some(n)) => format!(" into {kind} {n}"),
                        _ => String::new(),
                    }
                });
                found.related.push(crate::diagnostic::Related {
                    file: Some(report.path.clone()),
                    range: 0..0,
                    message: format!("rendered{object} by this template"),
                });
                moved.push((file, found));
            }
            None => stay.push(d),
        }
    }
    report.diagnostics = stay;
    (report, moved)
}

/// Where in a values file a finding of a rendered template goes, if its field came from one.
fn value_place(
    rendered: &str,
    stream: &syntax::Stream<'_>,
    values: &[(&Source, syntax::Stream<'_>)],
    d: &Diagnostic,
) -> Option<(String, Diagnostic)> {
    // The document is the one that holds the finding (a section holds one).
    let doc = stream
        .documents
        .iter()
        .find(|doc| doc.span.start <= d.range.start && d.range.end <= doc.span.end)?;
    let root = doc.root?;
    let (path, on_key) = path_of(doc, root, &d.range);
    // The innermost field a chart renders from its values.
    let at = path
        .iter()
        .rposition(|s| matches!(s, Seg::Key(k) if FROM_VALUES.contains(&k.as_str())))?;
    let Seg::Key(key) = &path[at] else {
        return None;
    };
    // On the field's own key (`tolerations:`), the finding is the template's.
    if on_key && at + 1 == path.len() {
        return None;
    }
    let field = follow(doc, root, &path[..=at]);
    if field.nodes.len() != at + 1 {
        return None;
    }
    let node = node_at(doc, root, &path[..=at])?;
    let rest = &path[at + 1..];
    for (source, vstream) in values {
        for vdoc in vstream.documents.iter().filter(|v| v.error.is_none()) {
            let Some(&found) = equal_nodes(doc, node, vdoc, key).first() else {
                continue;
            };
            let mut here = Steps {
                nodes: vec![field.nodes[at].clone()],
                lens: Vec::new(),
            };
            here.nodes.extend(follow(doc, node, rest).nodes);
            let mut there = Steps {
                nodes: vec![(None, vdoc.node(found).span.clone())],
                lens: Vec::new(),
            };
            there.nodes.extend(follow(vdoc, found, rest).nodes);
            here.nodes[0].0 = None;
            let holder = Holder::file(source);
            let t = mapped(rendered, &here, &there, on_key, vdoc, &holder, d.clone());
            return Some((t.file, t.diagnostic));
        }
    }
    None
}

/// The node at a path.
fn node_at(doc: &Document<'_>, root: NodeId, path: &[Seg]) -> Option<NodeId> {
    path.iter().try_fold(root, |at, seg| match seg {
        Seg::Key(k) => doc.get(at, k).map(|(_, v)| v),
        Seg::Index(i) => doc.sequence(at)?.get(*i).copied(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const RENDERED: &str = "---\n# Source: web/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\n---\n# Source: web/templates/job.yaml\r\nkind: Job\r\n";

    #[test]
    fn finds_sections() {
        let s = sections(RENDERED);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].source, "web/templates/deployment.yaml");
        assert_eq!(
            &RENDERED[s[0].content.clone()],
            "apiVersion: apps/v1\nkind: Deployment\n"
        );
        assert_eq!(s[1].source, "web/templates/job.yaml");
        assert_eq!(&RENDERED[s[1].content.clone()], "kind: Job\r\n");
    }

    #[test]
    fn only_a_documents_first_comment_counts() {
        assert!(sections("a: 1\n# Source: x.yaml\nb: 2\n").is_empty());
        assert_eq!(sections("# Source: x.yaml\nb: 2\n").len(), 1);
        assert!(sections("plain: yaml\n").is_empty());
    }

    const TEMPLATE: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      tolerations:\n        - effect: NoSchedul\n          key: dedicated\n          operator: Exists\n      containers: []\n";
    const VALUES: &str = "replicaCount: 1\n# Where the pods may go.\ntolerations:\n  - key: dedicated\n    operator: Exists\n    effect: NoSchedul\nnodeSelector: {}\n";

    fn values(text: &str) -> Vec<Source> {
        vec![Source {
            name: "web/values.yaml".to_string(),
            text: text.into(),
        }]
    }

    #[test]
    fn a_rendered_values_list_points_at_the_values_file() {
        let found = crate::analysis::analyse(TEMPLATE, &crate::config::Options::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let report = FileReport::new("web/templates/deployment.yaml".into(), TEMPLATE, found);
        let (stays, moved) = to_values(report, &values(VALUES));
        assert!(stays.diagnostics.is_empty());
        let (file, d) = &moved[0];
        assert_eq!(file, "web/values.yaml");
        assert_eq!(&VALUES[d.range.clone()], "NoSchedul");
        assert_eq!(d.fixes[0].apply(VALUES).matches("NoSchedule\n").count(), 1);
        assert_eq!(
            d.related[0].file.as_deref(),
            Some("web/templates/deployment.yaml")
        );
        assert_eq!(d.object.as_ref().unwrap().name.as_deref(), Some("web"));
    }

    #[test]
    fn a_list_the_values_do_not_hold_stays_in_the_template() {
        let found = crate::analysis::analyse(TEMPLATE, &crate::config::Options::default());
        let report = FileReport::new("web/templates/deployment.yaml".into(), TEMPLATE, found);
        // Another effect in the values: the template wrote its own list.
        let (stays, moved) = to_values(report, &values(&VALUES.replace("NoSchedul", "NoSchedule")));
        assert!(moved.is_empty());
        assert_eq!(stays.diagnostics.len(), 1);
    }
}
