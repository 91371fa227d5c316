//! `workspace/diagnostic`: the diagnostics of the workspace's files that are not open (open
//! ones are answered by `textDocument/diagnostic`), an `unchanged` report where the client's
//! previous result id is still current, and an empty report for a file the client holds a
//! result for that is gone (deleted, or no longer included). Edits to an open inventory or pool
//! file that are not read yet are read first: the answer is made for the inventory the client
//! sees, not for the one before its last keystroke.
//!
//! After a pool edit the answer is megabytes of JSON. It is made here, with each file's
//! diagnostics copied in as the pass serialized them, and goes out in place of the stand-in this
//! handler returns ([`crate::lsp::output`]): the JSON is the one tower-lsp-server would write
//! for the same reports.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;
use tower_lsp_server::jsonrpc;
use tower_lsp_server::ls_types::*;

use crate::lsp::session::{blocking, Session};

pub(crate) async fn handle(
    session: &Arc<Session>,
    params: WorkspaceDiagnosticParams,
) -> jsonrpc::Result<WorkspaceDiagnosticReportResult> {
    session.read_inventory_edits().await;
    let results = session.disk_diagnostics().await?;
    let open = session.open_uris();
    let json = blocking("answering workspace/diagnostic", move || {
        let current: Vec<Current<'_>> = results
            .iter()
            .map(|r| Current {
                uri: &r.uri,
                result_id: &r.result_id,
                items: &r.items,
            })
            .collect();
        answer(&current, &params.previous_result_ids, &open)
    })
    .await?;
    Ok(session.outbox.prepare(json))
}

/// A file's current diagnostics and their result id.
struct Current<'a> {
    uri: &'a Uri,
    result_id: &'a str,
    items: &'a RawValue,
}

/// A `WorkspaceDocumentDiagnosticReport` as ls-types serializes it, borrowing the diagnostics.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Report<'a> {
    Full {
        uri: &'a Uri,
        version: Option<i64>,
        #[serde(rename = "resultId", skip_serializing_if = "Option::is_none")]
        result_id: Option<&'a str>,
        items: &'a RawValue,
    },
    Unchanged {
        uri: &'a Uri,
        version: Option<i64>,
        #[serde(rename = "resultId")]
        result_id: &'a str,
    },
}

/// `WorkspaceDiagnosticReport`.
#[derive(Serialize)]
struct Answer<'a> {
    items: Vec<Report<'a>>,
}

/// A file's report: `unchanged` when the client holds its current result id.
fn report<'a>(current: &Current<'a>, previous: Option<&str>) -> Report<'a> {
    if previous == Some(current.result_id) {
        Report::Unchanged {
            uri: current.uri,
            version: None,
            result_id: current.result_id,
        }
    } else {
        Report::Full {
            uri: current.uri,
            version: None,
            result_id: Some(current.result_id),
            items: current.items,
        }
    }
}

/// The JSON of the `WorkspaceDiagnosticReport`: a report per file, and an empty one without a
/// result id for each file the client holds a result for that is gone (and not open: `open` is
/// sorted). Each file's diagnostics are copied in as they were serialized.
fn answer(current: &[Current<'_>], previous: &[PreviousResultId], open: &[Uri]) -> Vec<u8> {
    let previous: HashMap<&Uri, &str> = previous
        .iter()
        .map(|p| (&p.uri, p.value.as_str()))
        .collect();
    let reported: HashSet<&Uri> = current.iter().map(|c| c.uri).collect();
    let mut gone: Vec<&Uri> = previous
        .keys()
        .copied()
        .filter(|u| !reported.contains(u) && open.binary_search(u).is_err())
        .collect();
    gone.sort();
    let empty = RawValue::from_string("[]".to_owned()).expect("[] is JSON");
    let gone = gone.into_iter().map(|uri| Report::Full {
        uri,
        version: None,
        result_id: None,
        items: &empty,
    });
    let reports: Vec<Report<'_>> = current
        .iter()
        .map(|c| report(c, previous.get(c.uri).copied()))
        .chain(gone)
        .collect();
    // Room for it all at once: grown as it is written, megabytes would be copied over and over.
    let room: usize = reports
        .iter()
        .map(|r| match r {
            Report::Full { uri, items, .. } => uri.as_str().len() + items.get().len() + 80,
            Report::Unchanged { uri, .. } => uri.as_str().len() + 80,
        })
        .sum();
    let mut out = Vec::with_capacity(room + 16);
    serde_json::to_writer(&mut out, &Answer { items: reports }).expect("reports serialize");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(name: &str) -> Uri {
        format!("file:///repo/{name}.yaml").parse().unwrap()
    }

    fn diagnostic(line: u32) -> Diagnostic {
        Diagnostic {
            range: Range::new(Position::new(line, 2), Position::new(line, 9)),
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String("unschedulable".into())),
            source: Some("taintlint".into()),
            message: format!("\"quoted\", ünïcode and a tab\t on line {line}"),
            related_information: Some(vec![DiagnosticRelatedInformation {
                location: Location::new(uri("nodes"), Range::default()),
                message: "pool a (3 nodes)".into(),
            }]),
            data: Some(serde_json::json!({"version": 0, "fixes": [{"title": "t"}]})),
            ..Default::default()
        }
    }

    /// The answer is the JSON tower-lsp-server would write for the same reports: a changed
    /// file in full, an unchanged one by its id, a file without diagnostics, and files the client
    /// holds results for that are gone (in order) or open (not reported).
    #[test]
    fn the_answer_is_the_json_of_the_reports_it_stands_for() {
        let (a, b, c) = (uri("a"), uri("b"), uri("c"));
        let items = vec![diagnostic(1), diagnostic(7)];
        let json = |items: &[Diagnostic]| serde_json::value::to_raw_value(items).unwrap();
        let (both, last, none) = (json(&items), json(&items[1..]), json(&[]));
        let current = [
            Current {
                uri: &a,
                result_id: "1a",
                items: &both,
            },
            Current {
                uri: &b,
                result_id: "2b",
                items: &last,
            },
            Current {
                uri: &c,
                result_id: "3c",
                items: &none,
            },
        ];
        let previous: Vec<PreviousResultId> = [("a", "0a"), ("b", "2b"), ("z", "9"), ("y", "8")]
            .iter()
            .chain([("open", "5")].iter())
            .map(|(name, value)| PreviousResultId {
                uri: uri(name),
                value: value.to_string(),
            })
            .collect();
        let open = [uri("open")];
        let full = |uri: &Uri, id: Option<&str>, items: &[Diagnostic]| {
            WorkspaceDocumentDiagnosticReport::Full(WorkspaceFullDocumentDiagnosticReport {
                uri: uri.clone(),
                version: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: id.map(str::to_string),
                    items: items.to_vec(),
                },
            })
        };
        let expected = WorkspaceDiagnosticReportResult::Report(WorkspaceDiagnosticReport {
            items: vec![
                full(&a, Some("1a"), &items),
                WorkspaceDocumentDiagnosticReport::Unchanged(
                    WorkspaceUnchangedDocumentDiagnosticReport {
                        uri: b.clone(),
                        version: None,
                        unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                            result_id: "2b".into(),
                        },
                    },
                ),
                full(&c, Some("3c"), &[]),
                full(&uri("y"), None, &[]),
                full(&uri("z"), None, &[]),
            ],
        });
        // As tower-lsp-server writes a result: made a `Value`, then written.
        let written = serde_json::to_vec(&serde_json::to_value(&expected).unwrap()).unwrap();
        let answer = answer(&current, &previous, &open);
        assert_eq!(
            String::from_utf8(answer).unwrap(),
            String::from_utf8(written).unwrap()
        );
        assert_eq!(
            String::from_utf8(super::answer(&[], &[], &[])).unwrap(),
            r#"{"items":[]}"#
        );
    }
}
