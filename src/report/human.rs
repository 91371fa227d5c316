//! `--format human`: rustc-style snippets.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use super::{FileReport, Positions, Summary};
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::position::LineIndex;

fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
        Severity::Hint => Level::NOTE.with_name("hint"),
    }
}

/// Renders every finding of every file, then a one-line summary.
pub fn render(files: &[FileReport], color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let positions = Positions::new(files);
    let mut out = String::new();
    for file in files {
        let index = LineIndex::new(&file.text);
        for d in &file.diagnostics {
            out.push_str(&render_one(&renderer, &positions, file, &index, d));
            out.push_str("\n\n");
        }
    }
    let s = Summary::of(files);
    let total = s.error + s.warning + s.info + s.hint;
    let noun = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if total == 0 {
        out.push_str(&format!(
            "No problems found in {}.\n",
            noun(files.len(), "file", "files")
        ));
    } else {
        out.push_str(&format!(
            "Found {}, {}, {}, {} in {}.\n",
            noun(s.error, "error", "errors"),
            noun(s.warning, "warning", "warnings"),
            noun(s.info, "info", "infos"),
            noun(s.hint, "hint", "hints"),
            noun(files.len(), "file", "files"),
        ));
    }
    out
}

fn render_one(
    renderer: &Renderer,
    positions: &Positions<'_>,
    file: &FileReport,
    index: &LineIndex,
    d: &Diagnostic,
) -> String {
    let text = file.text.as_str();
    // Show only the lines the annotations touch (folding the ones between).
    let mut spans = vec![d.range.clone()];
    spans.extend(
        d.related
            .iter()
            .filter(|r| r.file.is_none())
            .map(|r| r.range.clone()),
    );
    let first_line = spans
        .iter()
        .map(|r| index.line_of(r.start))
        .min()
        .unwrap_or(0);
    let last_line = spans
        .iter()
        .map(|r| index.line_of(r.end))
        .max()
        .unwrap_or(0);
    let mut start = index.line_start(first_line).unwrap_or(0);
    if start == 0 && text.starts_with('\u{feff}') {
        start = 3;
    }
    let end = index
        .line_start(last_line + 1)
        .unwrap_or(text.len())
        .max(start);
    let window = &text[start..end];
    let window = window.trim_end_matches(['\n', '\r']);
    let clamp = |r: &std::ops::Range<usize>| {
        let s = r.start.clamp(start, start + window.len()) - start;
        let e = r.end.clamp(start, start + window.len()) - start;
        s..e.max(s)
    };

    let mut snippet = Snippet::source(window)
        .line_start(first_line + 1)
        .path(file.path.as_str())
        .fold(true)
        .annotation(AnnotationKind::Primary.span(clamp(&d.range)));
    for r in d.related.iter().filter(|r| r.file.is_none()) {
        snippet = snippet.annotation(
            AnnotationKind::Context
                .span(clamp(&r.range))
                .label(r.message.as_str()),
        );
    }
    let mut group = level(d.severity)
        .primary_title(d.message.as_str())
        .id(d.rule)
        .element(snippet);
    for r in d.related.iter().filter(|r| r.file.is_some()) {
        let place = match positions.related(file, r) {
            (path, Some(((line, column), _))) => format!("{path}:{line}:{column}"),
            (path, None) => path.to_string(),
        };
        group = group.element(Level::NOTE.message(format!("{place}: {}", r.message)));
    }
    if let Some(server) = &d.server_message {
        group = group.element(Level::NOTE.message(format!("the API server says: {server}")));
    }
    for fix in &d.fixes {
        let how = match fix.applicability {
            Applicability::Safe => "safe fix",
            Applicability::NeedsReview => "fix, needs review",
        };
        group = group.element(Level::HELP.message(format!("{} ({how})", fix.title)));
    }
    let report: [Group<'_>; 1] = [group];
    renderer.render(&report)
}
