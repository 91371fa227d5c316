//! Turning diagnostics into text for people and machines. Positions are converted here, at the
//! edge, from the core's byte ranges.

use std::cell::OnceCell;
use std::ops::Range;

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
}

impl FileReport {
    pub fn new(path: String, text: String, diagnostics: Vec<Diagnostic>) -> Self {
        FileReport {
            path,
            text,
            diagnostics,
        }
    }
}

/// 1-based line and column (in Unicode scalar values) of a byte offset.
pub fn line_column(index: &LineIndex, text: &str, offset: usize) -> (usize, usize) {
    let lc = index.line_col(text, offset.min(text.len()), Encoding::Utf32);
    (lc.line as usize + 1, lc.col as usize + 1)
}

/// Places locations in any of a report's files (a finding's own, or an inventory a related
/// location points into), building each file's line index once, on first use.
pub struct Positions<'f> {
    files: &'f [FileReport],
    indexes: Vec<OnceCell<LineIndex>>,
}

impl<'f> Positions<'f> {
    pub fn new(files: &'f [FileReport]) -> Self {
        Positions {
            files,
            indexes: files.iter().map(|_| OnceCell::new()).collect(),
        }
    }

    /// The file named `name` among the reported ones, and its line index.
    fn file(&self, name: &str) -> Option<(&'f FileReport, &LineIndex)> {
        let i = self.files.iter().position(|f| f.path == name)?;
        let file = &self.files[i];
        Some((
            file,
            self.indexes[i].get_or_init(|| LineIndex::new(&file.text)),
        ))
    }

    /// 1-based start and end (line, column) of a range in the file named `name`; `None` when
    /// that file is not part of the report.
    pub fn span(&self, name: &str, range: &Range<usize>) -> Option<Span> {
        let (file, index) = self.file(name)?;
        Some((
            line_column(index, &file.text, range.start),
            line_column(index, &file.text, range.end),
        ))
    }

    /// The file a related location of a finding in `file` is in, and where in it.
    pub fn related<'r>(
        &self,
        file: &'r FileReport,
        related: &'r Related,
    ) -> (&'r str, Option<Span>) {
        let name = related.file.as_deref().unwrap_or(&file.path);
        (name, self.span(name, &related.range))
    }
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
