//! `--format human`: rustc-style snippets.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use std::io::{self, Write};

use super::text::wrap;
use super::{FileReport, Positions, Summary, Writer};
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

/// rustc-style snippets for every finding, then a one-line summary.
pub struct Human {
    renderer: Renderer,
    /// How many problems (a path that could not be read, ...) the run had.
    problems: usize,
    /// The terminal's width, which notes and help lines are wrapped to (annotate-snippets
    /// renders the snippet; the notes are ours); `None`: one line each.
    width: Option<usize>,
}

impl Human {
    pub fn new(color: bool) -> Self {
        Human {
            renderer: if color {
                Renderer::styled()
            } else {
                Renderer::plain()
            },
            problems: 0,
            width: None,
        }
    }

    /// Notes and help lines wrapped to `width` columns.
    pub fn width(mut self, width: usize) -> Self {
        self.width = Some(width);
        self
    }
}

impl Writer for Human {
    fn finding(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        index: &LineIndex,
        d: &Diagnostic,
        positions: &Positions<'_>,
    ) -> io::Result<()> {
        let snippet = render_one(&self.renderer, self.width, positions, file, index, d);
        write!(out, "{snippet}\n\n")?;
        Ok(())
    }

    fn problems(&mut self, problems: &[String]) {
        self.problems = problems.len();
    }

    fn end(&mut self, out: &mut dyn Write, files: usize, s: &Summary) -> io::Result<()> {
        if files == 0 && self.problems > 0 {
            // Nothing was read (a missing path): standard error says why; "no problems found"
            // would be the opposite of the truth.
            return Ok(());
        }
        writeln!(out, "{}", summary_line(files, s))
    }
}

/// The closing line: `Found 1 error, 0 warnings, ... in 2 files.` or `No problems found in 2
/// files.`
pub fn summary_line(files: usize, s: &Summary) -> String {
    let noun = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if s.total() == 0 {
        format!("No problems found in {}.", noun(files, "file", "files"))
    } else {
        format!(
            "Found {}, {}, {}, {} in {}.",
            noun(s.error, "error", "errors"),
            noun(s.warning, "warning", "warnings"),
            noun(s.info, "info", "infos"),
            noun(s.hint, "hint", "hints"),
            noun(files, "file", "files"),
        )
    }
}

/// Renders every finding of every file, then a one-line summary.
pub fn render(files: &[FileReport], color: bool) -> String {
    super::render_with(&mut Human::new(color), files)
}

fn render_one(
    renderer: &Renderer,
    width: Option<usize>,
    positions: &Positions<'_>,
    file: &FileReport,
    index: &LineIndex,
    d: &Diagnostic,
) -> String {
    let text = &*file.text;
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
    // A note or help line wrapped under itself: `   = note: ` is the gutter (the widest line
    // number and a space), `= `, the level and `: `.
    let gutter = (last_line + 1).to_string().len() + 1;
    let wrapped = |level: &str, text: String| -> String {
        let Some(max) = width else {
            return text;
        };
        let indent = gutter + 2 + level.len() + 2;
        if indent + 20 > max {
            return text;
        }
        let lines = wrap("", 0, &text, max - indent);
        lines.trim_end().to_string()
    };
    let mut group = level(d.severity)
        .primary_title(d.message.as_str())
        .id(d.rule)
        .element(snippet);
    for r in d.related.iter().filter(|r| r.file.is_some()) {
        let place = match positions.related(file, index, r) {
            (path, Some(((line, column), _))) => format!("{path}:{line}:{column}"),
            (path, None) => path.to_string(),
        };
        group =
            group.element(Level::NOTE.message(wrapped("note", format!("{place}: {}", r.message))));
    }
    if let Some(server) = &d.server_message {
        group = group.element(
            Level::NOTE.message(wrapped("note", format!("the API server says: {server}"))),
        );
    }
    for fix in &d.fixes {
        let how = match fix.applicability {
            Applicability::Safe => "safe fix",
            Applicability::NeedsReview => "fix, needs review",
            Applicability::Manual => "fix, by hand only",
        };
        group =
            group.element(Level::HELP.message(wrapped("help", format!("{} ({how})", fix.title))));
    }
    let report: [Group<'_>; 1] = [group];
    renderer.render(&report)
}
