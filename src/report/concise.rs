//! `--format concise`: one line per finding, `file:line:col: severity[rule] message`.

use std::io::{self, Write};

use super::{line_column, FileReport, Positions, Writer};
use crate::diagnostic::Diagnostic;
use crate::position::LineIndex;

/// Writes one line per finding (nothing for a file without any).
pub struct Concise;

impl Writer for Concise {
    fn finding(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        index: &LineIndex,
        d: &Diagnostic,
        _: &Positions<'_>,
    ) -> io::Result<()> {
        let (line, column) = line_column(index, &file.text, d.range.start);
        writeln!(
            out,
            "{}:{line}:{column}: {}[{}] {}",
            file.path,
            d.severity,
            d.rule,
            one_line(&d.message)
        )?;
        Ok(())
    }
}

/// Renders every finding of every file, one line each (nothing when there is none).
pub fn render(files: &[FileReport]) -> String {
    super::render_with(&mut Concise, files)
}

/// A message on one line: line breaks become `\n`, so each finding stays one line.
fn one_line(message: &str) -> String {
    message.replace('\r', "\\r").replace('\n', "\\n")
}
