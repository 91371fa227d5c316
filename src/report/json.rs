//! `--format json`: the stable contract of ../DESIGN.md (version 1).

use serde_json::{json, Value};

use super::{line_column, FileReport, Positions, Span, Summary};
use crate::position::LineIndex;

fn range(index: &LineIndex, text: &str, r: &std::ops::Range<usize>) -> Value {
    span(
        line_column(index, text, r.start),
        line_column(index, text, r.end),
    )
}

fn span((sl, sc): (usize, usize), (el, ec): (usize, usize)) -> Value {
    json!({"start": {"line": sl, "column": sc}, "end": {"line": el, "column": ec}})
}

/// The whole JSON document for a lint run.
pub fn render(files: &[FileReport]) -> String {
    let positions = Positions::new(files);
    let mut diagnostics = Vec::new();
    for file in files {
        let index = LineIndex::new(&file.text);
        for d in &file.diagnostics {
            let related: Vec<Value> = d
                .related
                .iter()
                .map(|r| {
                    // A place in a file that is not part of this report has no known position.
                    let (name, place) = match r.file {
                        None => (file.path.as_str(), range(&index, &file.text, &r.range)),
                        Some(_) => {
                            let (name, at) = positions.related(file, r);
                            (name, at.map_or(Value::Null, |(s, e): Span| span(s, e)))
                        }
                    };
                    json!({
                        "file": name,
                        "range": place,
                        "message": r.message,
                    })
                })
                .collect();
            let fixes: Vec<Value> = d
                .fixes
                .iter()
                .map(|f| {
                    json!({
                        "title": f.title,
                        "applicability": f.applicability,
                        "edits": f.edits.iter().map(|e| json!({
                            "range": range(&index, &file.text, &e.range),
                            "replacement": e.replacement,
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let object = d.object.as_ref().map_or(
                json!({"kind": null, "name": null, "namespace": null}),
                |o| json!({"kind": o.kind, "name": o.name, "namespace": o.namespace}),
            );
            diagnostics.push(json!({
                "file": file.path,
                "rule": d.rule,
                "severity": d.severity,
                "message": d.message,
                "server_message": d.server_message,
                "range": range(&index, &file.text, &d.range),
                "document": d.document,
                "path": d.path,
                "object": object,
                "related": related,
                "fixes": fixes,
            }));
        }
    }
    let s = Summary::of(files);
    let out = json!({
        "version": 1,
        "files": files.len(),
        "diagnostics": diagnostics,
        "summary": {"error": s.error, "warning": s.warning, "info": s.info, "hint": s.hint},
    });
    let mut text = serde_json::to_string_pretty(&out).expect("JSON values always serialize");
    text.push('\n');
    text
}
