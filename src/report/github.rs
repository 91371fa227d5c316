//! `--format github`: GitHub Actions workflow commands, which the runner turns into
//! annotations on the pull request's files.
//!
//! `::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=T::MESSAGE`, one per line. Lines
//! and columns are 1-based, columns in characters, the end exclusive (as in the JSON output).
//! Info and hint findings become `notice`s. Escaping follows the runner's rules: in the message
//! `%`, `\r` and `\n` are percent-encoded; in property values `:` and `,` are too.

use std::io::{self, Write};

use super::{FileReport, Positions, Writer};
use crate::diagnostic::{Diagnostic, Severity};
use crate::position::LineIndex;

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "notice",
    }
}

/// Escapes a message (the data after `::`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`file=`, `title=`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Writes every finding as a workflow command.
pub struct Github;

impl Writer for Github {
    fn finding(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        index: &LineIndex,
        d: &Diagnostic,
        _: &Positions<'_>,
    ) -> io::Result<()> {
        let ((line, col), (end_line, end_col)) = file.span(index, &d.range);
        writeln!(
            out,
            "::{} file={},line={line},col={col},endLine={end_line},endColumn={end_col},\
             title={}::{}",
            command(d.severity),
            escape_property(&file.path),
            escape_property(&format!("taintlint ({})", d.rule)),
            escape_data(&d.message),
        )?;
        Ok(())
    }
}

/// Renders every finding as a workflow command.
pub fn render(files: &[FileReport]) -> String {
    super::render_with(&mut Github, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        // `%` first, so an escape is never escaped twice.
        assert_eq!(escape_data("%0A"), "%250A");
    }
}
