//! `--format concise`: one line per finding, `file:line:col: severity[rule] message`.

use super::{line_column, FileReport};
use crate::position::LineIndex;

/// Renders every finding of every file, one line each (nothing when there is none).
pub fn render(files: &[FileReport]) -> String {
    let mut out = String::new();
    for file in files {
        let index = LineIndex::new(&file.text);
        for d in &file.diagnostics {
            let (line, column) = line_column(&index, &file.text, d.range.start);
            out.push_str(&format!(
                "{}:{line}:{column}: {}[{}] {}\n",
                file.path,
                d.severity,
                d.rule,
                one_line(&d.message)
            ));
        }
    }
    out
}

/// A message on one line: line breaks become `\n`, so each finding stays one line.
fn one_line(message: &str) -> String {
    message.replace('\r', "\\r").replace('\n', "\\n")
}
