//! Rendered Helm output (`helm template` piped to `taintlint lint -`): findings are mapped back
//! to the chart's template files through the `# Source: chart/templates/x.yaml` comment Helm
//! puts at the top of every document it renders.
//!
//! Each rendered document becomes a report of its own, named after its template; its lines
//! are counted from the first line after the `# Source:` comment. That is the line in the
//! rendered document, which is the template's own line only until the first template action
//! that renders to a different number of lines (an `include`, a `toYaml`, a `range`).

use std::ops::Range;

use super::FileReport;
use crate::diagnostic::Diagnostic;

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
}
