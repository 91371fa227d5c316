//! `--format json`: the stable contract of ../DESIGN.md (version 1).

use serde_json::{json, Value};

use super::{line_column, FileReport, Summary};
use crate::position::LineIndex;

fn range(index: &LineIndex, text: &str, r: &std::ops::Range<usize>) -> Value {
    let (sl, sc) = line_column(index, text, r.start.min(text.len()));
    let (el, ec) = line_column(index, text, r.end.min(text.len()));
    json!({"start": {"line": sl, "column": sc}, "end": {"line": el, "column": ec}})
}

/// The reported file a related location in another file points into.
fn other<'f>(files: &'f [FileReport], path: &str) -> Option<&'f FileReport> {
    files.iter().find(|f| f.path == path)
}

/// The whole JSON document for a lint run.
pub fn render(files: &[FileReport]) -> String {
    let mut diagnostics = Vec::new();
    for file in files {
        let index = LineIndex::new(&file.text);
        for d in &file.diagnostics {
            let related: Vec<Value> = d
                .related
                .iter()
                .map(|r| {
                    // A place in a file that is not part of this report has no known position.
                    let range = match r.file.as_deref() {
                        None => range(&index, &file.text, &r.range),
                        Some(p) => other(files, p).map_or(Value::Null, |f| {
                            range(&LineIndex::new(&f.text), &f.text, &r.range)
                        }),
                    };
                    json!({
                        "file": r.file.as_deref().unwrap_or(&file.path),
                        "range": range,
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
