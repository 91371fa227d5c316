//! `--format json`: the stable contract of ../DESIGN.md (version 1), written file by file.
//!
//! The document is the one `serde_json` would print pretty, with `files` after the findings
//! (it is known only at the end): `{"version": 1, "diagnostics": [...], "files": N,
//! "summary": {...}}`.

use std::io::{self, Write};

use serde::Serialize;

use super::{FileReport, Positions, Span, Summary, Writer};
use crate::diagnostic::{Applicability, Severity};
use crate::position::LineIndex;

#[derive(Serialize)]
struct Position {
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct JsonRange {
    start: Position,
    end: Position,
}

impl From<Span> for JsonRange {
    fn from(((sl, sc), (el, ec)): Span) -> Self {
        JsonRange {
            start: Position {
                line: sl,
                column: sc,
            },
            end: Position {
                line: el,
                column: ec,
            },
        }
    }
}

#[derive(Serialize)]
struct Object<'a> {
    kind: Option<&'a str>,
    name: Option<&'a str>,
    namespace: Option<&'a str>,
}

#[derive(Serialize)]
struct Related<'a> {
    file: &'a str,
    /// `null` for a place in a file whose text is not known.
    range: Option<JsonRange>,
    message: &'a str,
}

#[derive(Serialize)]
struct Edit<'a> {
    range: JsonRange,
    replacement: &'a str,
}

#[derive(Serialize)]
struct Fix<'a> {
    title: &'a str,
    applicability: Applicability,
    edits: Vec<Edit<'a>>,
}

#[derive(Serialize)]
struct Diagnostic<'a> {
    file: &'a str,
    rule: &'a str,
    severity: Severity,
    message: &'a str,
    server_message: Option<&'a str>,
    range: JsonRange,
    document: Option<usize>,
    path: Option<&'a str>,
    object: Object<'a>,
    related: Vec<Related<'a>>,
    fixes: Vec<Fix<'a>>,
}

#[derive(Serialize)]
struct Counts {
    error: usize,
    warning: usize,
    info: usize,
    hint: usize,
}

/// Serializes `value` as `serde_json` prints it pretty, nested `depth` levels deep (two spaces
/// each). A JSON string never holds a raw line break, so every line break is the printer's.
pub(crate) fn write_pretty(
    out: &mut dyn Write,
    value: &impl Serialize,
    depth: usize,
) -> io::Result<()> {
    let text = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    let indent = "  ".repeat(depth);
    let mut lines = text.split(|&b| b == b'\n');
    if let Some(first) = lines.next() {
        out.write_all(first)?;
    }
    for line in lines {
        out.write_all(b"\n")?;
        out.write_all(indent.as_bytes())?;
        out.write_all(line)?;
    }
    Ok(())
}

/// Writes the JSON document, one finding at a time.
#[derive(Default)]
pub struct Json {
    written: usize,
}

impl Writer for Json {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(b"{\n  \"version\": 1,\n  \"diagnostics\": [")
    }

    fn finding(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        index: &LineIndex,
        d: &crate::diagnostic::Diagnostic,
        positions: &Positions<'_>,
    ) -> io::Result<()> {
        let related = d
            .related
            .iter()
            .map(|r| {
                let (name, place) = positions.related(file, index, r);
                Related {
                    file: name,
                    range: place.map(JsonRange::from),
                    message: &r.message,
                }
            })
            .collect();
        let fixes = d
            .fixes
            .iter()
            .map(|f| Fix {
                title: &f.title,
                applicability: f.applicability,
                edits: f
                    .edits
                    .iter()
                    .map(|e| Edit {
                        range: file.span(index, &e.range).into(),
                        replacement: &e.replacement,
                    })
                    .collect(),
            })
            .collect();
        let object = d.object.as_ref();
        let value = Diagnostic {
            file: &file.path,
            rule: d.rule,
            severity: d.severity,
            message: &d.message,
            server_message: d.server_message.as_deref(),
            range: file.span(index, &d.range).into(),
            document: d.document,
            path: d.path.as_deref(),
            object: Object {
                kind: object.and_then(|o| o.kind.as_deref()),
                name: object.and_then(|o| o.name.as_deref()),
                namespace: object.and_then(|o| o.namespace.as_deref()),
            },
            related,
            fixes,
        };
        out.write_all(if self.written == 0 {
            b"\n    "
        } else {
            b",\n    "
        })?;
        write_pretty(out, &value, 2)?;
        self.written += 1;
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write, files: usize, s: &Summary) -> io::Result<()> {
        out.write_all(if self.written == 0 {
            b"],\n"
        } else {
            b"\n  ],\n"
        })?;
        write!(out, "  \"files\": {files},\n  \"summary\": ")?;
        let counts = Counts {
            error: s.error,
            warning: s.warning,
            info: s.info,
            hint: s.hint,
        };
        write_pretty(out, &counts, 1)?;
        out.write_all(b"\n}\n")
    }
}

/// The whole JSON document for a lint run.
pub fn render(files: &[FileReport]) -> String {
    super::render_with(&mut Json::default(), files)
}
