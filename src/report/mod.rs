//! Turning diagnostics into text for people and machines. Positions are converted here, at the
//! edge, from the core's byte ranges.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Related, Severity};
use crate::position::{Encoding, LineIndex};

pub mod concise;
pub mod github;
pub mod helm;
pub mod human;
pub mod json;
pub mod sarif;
pub mod simulate;

/// A start and an end, each a 1-based (line, column).
pub type Span = ((usize, usize), (usize, usize));

/// One linted file and what was found in it.
pub struct FileReport {
    /// The name to show (as given on the command line, or `-` for standard input).
    pub path: String,
    pub text: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Texts of the other files that related locations point into (an inventory), by name,
    /// so that their positions can be shown.
    pub related_texts: BTreeMap<String, Arc<str>>,
}

impl FileReport {
    pub fn new(path: String, text: String, diagnostics: Vec<Diagnostic>) -> Self {
        FileReport {
            path,
            text,
            diagnostics,
            related_texts: BTreeMap::new(),
        }
    }

    /// Makes the positions of related locations in `name` known.
    pub fn with_related_text(mut self, name: String, text: Arc<str>) -> Self {
        self.related_texts.insert(name, text);
        self
    }

    /// The file a related location is in, and its 1-based start and end (line, column), when
    /// that file's text is known.
    pub fn related_position<'s>(&'s self, related: &'s Related) -> (&'s str, Option<Span>) {
        let (name, text): (&str, Option<&str>) = match &related.file {
            None => (&self.path, Some(&self.text)),
            Some(f) => (f, self.related_texts.get(f).map(|t| &**t)),
        };
        let position = text.map(|text| {
            let index = LineIndex::new(text);
            (
                line_column(&index, text, related.range.start),
                line_column(&index, text, related.range.end),
            )
        });
        (name, position)
    }
}

/// 1-based line and column (in Unicode scalar values) of a byte offset.
pub fn line_column(index: &LineIndex, text: &str, offset: usize) -> (usize, usize) {
    let lc = index.line_col(text, offset, Encoding::Utf32);
    (lc.line as usize + 1, lc.col as usize + 1)
}

/// 1-based line and column of an offset in another reported file (an inventory, say), if that
/// file is among `files`.
pub fn position_in(files: &[FileReport], path: &str, offset: usize) -> Option<(usize, usize)> {
    let file = files.iter().find(|f| f.path == path)?;
    let index = LineIndex::new(&file.text);
    Some(line_column(&index, &file.text, offset.min(file.text.len())))
}

/// Counts of findings by severity.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
    pub hint: usize,
}

impl Summary {
    pub fn of(files: &[FileReport]) -> Summary {
        let mut s = Summary::default();
        for d in files.iter().flat_map(|f| &f.diagnostics) {
            match d.severity {
                Severity::Error => s.error += 1,
                Severity::Warning => s.warning += 1,
                Severity::Info => s.info += 1,
                Severity::Hint => s.hint += 1,
            }
        }
        s
    }
}
