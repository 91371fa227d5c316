//! Turning diagnostics into text for people and machines. Positions are converted here, at the
//! edge, from the core's byte ranges.

use crate::diagnostic::{Diagnostic, Severity};
use crate::position::{Encoding, LineIndex};

pub mod human;
pub mod json;
pub mod simulate;

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
