//! `--format sarif`: SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
//!
//! One run. The driver lists every rule from the registry (id, name, short and full
//! description, help in text and Markdown, default level). Each result has its rule, level,
//! message, the exact region (1-based lines and columns; columns count Unicode code points, as
//! the run's `columnKind` says; the end column is the one after the last character), the
//! object and field path as a logical location, related locations, and the fixes.

use serde_json::{json, Map, Value};

use std::io::{self, Write};

use super::json::write_pretty;
use super::{line_column, FileReport, Positions, Summary, Writer};
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::position::LineIndex;
use crate::rules::{self, RuleMeta};

/// The schema URI SARIF files name.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "note",
    }
}

/// `unknown-effect` -> `UnknownEffect`: SARIF's `name` is an identifier-like display name.
fn pascal_case(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The "What it catches" section of an explanation, as one paragraph of text.
fn what_it_catches(meta: &RuleMeta) -> String {
    let body = meta
        .explanation
        .split("## What it catches")
        .nth(1)
        .unwrap_or(meta.explanation);
    let body = body.split("\n## ").next().unwrap_or(body);
    let text = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.ends_with('.') {
        text
    } else {
        format!("{text}.")
    }
}

fn ends_with_period(s: &str) -> String {
    if s.ends_with(['.', '?', '!']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

fn rule_descriptor(meta: &RuleMeta) -> Value {
    let name = pascal_case(meta.name);
    let mut rule = json!({
        "id": meta.name,
        "name": name,
        "shortDescription": {"text": ends_with_period(meta.summary)},
        "fullDescription": {"text": what_it_catches(meta)},
        "help": {
            "text": format!("{}\n\n{}", meta.summary, meta.explanation),
            "markdown": format!("{}\n\n{}", meta.summary, meta.explanation),
        },
        "defaultConfiguration": {"level": level(meta.severity)},
        "properties": {
            "tags": ["kubernetes", "taints-and-tolerations"],
            "needsInventory": meta.needs_inventory,
            "fixable": meta.fixable,
        },
    });
    // SARIF wants a rule's `name` to differ from its `id` (Multitool rule SARIF1001, which
    // compares them ignoring case): a one-word id such as `unschedulable` gets no name.
    if name.eq_ignore_ascii_case(meta.name) {
        rule.as_object_mut()
            .expect("a JSON object")
            .shift_remove("name");
    }
    rule
}

/// A path as a URI reference: `/` separators, and every byte outside RFC 3986's unreserved
/// and path characters percent-encoded. Absolute paths become `file://` URIs.
pub fn path_to_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let absolute = path.starts_with('/')
        || (path.len() >= 3 && path.as_bytes()[1] == b':' && path.as_bytes()[2] == b'/');
    let mut out = String::new();
    if absolute {
        out.push_str("file://");
        if !path.starts_with('/') {
            out.push('/');
        }
    }
    for (i, b) in path.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/' | b'!' | b'$' | b'&' | b'\'')
            || matches!(b, b'(' | b')' | b'*' | b'+' | b';' | b'=' | b'@')
            // A drive letter's colon; elsewhere a colon could read as a scheme.
            || (b == b':' && absolute && i == 1);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn region(index: &LineIndex, text: &str, range: &std::ops::Range<usize>) -> Value {
    let (sl, sc) = line_column(index, text, range.start);
    let (el, ec) = line_column(index, text, range.end);
    json!({"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec})
}

fn result(
    positions: &Positions<'_>,
    file: &FileReport,
    index: &LineIndex,
    d: &Diagnostic,
    rule_index: usize,
) -> Value {
    let uri = path_to_uri(&file.path);
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": region(index, &file.text, &d.range),
        },
    });
    if let Some(path) = &d.path {
        let object = d.object.as_ref().and_then(|o| {
            let kind = o.kind.as_deref()?;
            Some(match &o.name {
                Some(name) => format!("{kind}/{name}"),
                None => kind.to_string(),
            })
        });
        let full = match object {
            Some(o) => format!("{o}:{path}"),
            None => path.clone(),
        };
        location["logicalLocations"] = json!([{"fullyQualifiedName": full, "kind": "member"}]);
    }
    let related: Vec<Value> = d
        .related
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (name, position) = positions.related(file, index, r);
            let mut physical = json!({"artifactLocation": {"uri": path_to_uri(name)}});
            if let Some(((sl, sc), (el, ec))) = position {
                physical["region"] =
                    json!({"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec});
            }
            json!({
                "id": i + 1,
                "physicalLocation": physical,
                "message": {"text": r.message},
            })
        })
        .collect();
    let fixes: Vec<Value> = d
        .fixes
        .iter()
        .map(|f| {
            json!({
                "description": {"text": f.title},
                "artifactChanges": [{
                    "artifactLocation": {"uri": uri},
                    "replacements": f.edits.iter().map(|e| json!({
                        "deletedRegion": region(index, &file.text, &e.range),
                        "insertedContent": {"text": e.replacement},
                    })).collect::<Vec<_>>(),
                }],
                "properties": {"applicability": match f.applicability {
                    Applicability::Safe => "safe",
                    Applicability::NeedsReview => "needs-review",
                    Applicability::Manual => "manual",
                }},
            })
        })
        .collect();
    let mut properties = Map::new();
    properties.insert("severity".into(), json!(d.severity));
    if let Some(server) = &d.server_message {
        properties.insert("serverMessage".into(), json!(server));
    }
    if let Some(document) = d.document {
        properties.insert("document".into(), json!(document));
    }
    if let Some(o) = &d.object {
        properties.insert(
            "object".into(),
            json!({"kind": o.kind, "name": o.name, "namespace": o.namespace}),
        );
    }
    let mut out = json!({
        "ruleId": d.rule,
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": {"text": d.message},
        "locations": [location],
        "properties": properties,
    });
    if !related.is_empty() {
        out["relatedLocations"] = json!(related);
    }
    if !fixes.is_empty() {
        out["fixes"] = json!(fixes);
    }
    out
}

/// The log around the results: the one run, its tool with every rule, and an empty `results`.
fn skeleton() -> Value {
    let version = env!("CARGO_PKG_VERSION");
    let mut driver = json!({
        "name": "taintlint",
        "fullName": format!("taintlint {version}"),
        "version": version,
        "semanticVersion": version,
        "rules": rules::all().map(rule_descriptor).collect::<Vec<_>>(),
    });
    let home = env!("CARGO_PKG_REPOSITORY");
    if !home.is_empty() {
        driver["informationUri"] = json!(home);
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "columnKind": "unicodeCodePoints",
            "results": [],
        }],
    })
}

/// The run's one invocation (SARIF 2.1.0 §3.20): `executionSuccessful` is false when a path
/// could not be read or a file not written, each problem a `toolExecutionNotifications` entry
/// (§3.20.21) at level error.
fn invocations(problems: &[String]) -> Value {
    let mut invocation = json!({"executionSuccessful": problems.is_empty()});
    if !problems.is_empty() {
        invocation["toolExecutionNotifications"] = problems
            .iter()
            .map(|p| json!({"level": "error", "message": {"text": p}}))
            .collect();
    }
    json!([invocation])
}

/// Writes the SARIF log, one result at a time.
pub struct Sarif {
    metas: Vec<&'static RuleMeta>,
    /// What follows the results array's last element.
    tail: String,
    written: usize,
    /// What went wrong besides the findings: each a tool execution notification, and the run
    /// then says it did not succeed.
    problems: Vec<String>,
}

impl Default for Sarif {
    fn default() -> Self {
        Sarif {
            metas: rules::all().collect(),
            tail: String::new(),
            written: 0,
            problems: Vec::new(),
        }
    }
}

/// How deep the results' elements are: root, `runs`, the run, `results`.
const RESULT_DEPTH: usize = 4;

impl Writer for Sarif {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let text = serde_json::to_string_pretty(&skeleton()).map_err(io::Error::other)?;
        const EMPTY: &str = "\"results\": []";
        let at = text
            .rfind(EMPTY)
            .expect("the skeleton has an empty results array");
        self.tail = text[at + EMPTY.len()..].to_string();
        out.write_all(&text.as_bytes()[..at + EMPTY.len() - 1])
    }

    fn finding(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        index: &LineIndex,
        d: &Diagnostic,
        positions: &Positions<'_>,
    ) -> io::Result<()> {
        let indent = "  ".repeat(RESULT_DEPTH);
        let rule_index = self
            .metas
            .iter()
            .position(|m| m.name == d.rule)
            .unwrap_or(0);
        let value = result(positions, file, index, d, rule_index);
        let sep = if self.written == 0 { "" } else { "," };
        write!(out, "{sep}\n{indent}")?;
        write_pretty(out, &value, RESULT_DEPTH)?;
        self.written += 1;
        Ok(())
    }

    fn problems(&mut self, problems: &[String]) {
        self.problems = problems.to_vec();
    }

    fn end(&mut self, out: &mut dyn Write, _files: usize, _summary: &Summary) -> io::Result<()> {
        let indent = "  ".repeat(RESULT_DEPTH - 1);
        if self.written > 0 {
            write!(out, "\n{indent}")?;
        }
        // The run's invocation: whether it read everything it was asked to (a viewer shows a
        // run that could not read a path as failed, not as a clean scan), and what went wrong.
        write!(out, "],\n{indent}\"invocations\": ")?;
        write_pretty(out, &invocations(&self.problems), RESULT_DEPTH - 1)?;
        writeln!(out, "{}", self.tail)
    }
}

/// The whole SARIF log for a lint run.
pub fn render(files: &[FileReport]) -> String {
    super::render_with(&mut Sarif::default(), files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(path_to_uri("examples/web.yaml"), "examples/web.yaml");
        assert_eq!(path_to_uri("a b/#1%.yaml"), "a%20b/%231%25.yaml");
        assert_eq!(path_to_uri("x:y.yaml"), "x%3Ay.yaml");
        assert_eq!(path_to_uri("/srv/日.yaml"), "file:///srv/%E6%97%A5.yaml");
        assert_eq!(path_to_uri("C:\\w\\a.yaml"), "file:///C:/w/a.yaml");
    }

    #[test]
    fn related_locations_in_another_file() {
        use crate::diagnostic::Related;
        let text = "tolerations:\n- key: a\n  operator: exists\n";
        let mut diagnostics = crate::analyse(text, &crate::Options::default());
        let inventory = "# nodes\nspec:\n  taints:\n  - key: 日本\n";
        let at = inventory.find("key").unwrap();
        diagnostics[0].related = vec![
            Related {
                file: Some("nodes.yaml".into()),
                range: at..at + 3,
                message: "the taint".into(),
            },
            Related {
                file: Some("unknown.yaml".into()),
                range: 0..1,
                message: "no text known".into(),
            },
        ];
        // The inventory is reported beside the manifest, as the CLI reports it.
        let report = FileReport::new("pod.yaml".into(), text, diagnostics);
        let nodes = FileReport::new("nodes.yaml".into(), inventory, Vec::new());
        let log: Value = serde_json::from_str(&render(&[report, nodes])).unwrap();
        let related = &log["runs"][0]["results"][0]["relatedLocations"];
        assert_eq!(
            related[0]["physicalLocation"],
            json!({
                "artifactLocation": {"uri": "nodes.yaml"},
                "region": {"startLine": 4, "startColumn": 5, "endLine": 4, "endColumn": 8},
            })
        );
        assert_eq!(related[0]["id"], 1);
        assert_eq!(
            related[1]["physicalLocation"],
            json!({"artifactLocation": {"uri": "unknown.yaml"}})
        );
    }

    #[test]
    fn descriptions() {
        let meta = rules::find("unknown-effect").unwrap();
        assert_eq!(pascal_case(meta.name), "UnknownEffect");
        let full = what_it_catches(meta);
        assert!(full.starts_with("A toleration or taint `effect` that is not exactly"));
        assert!(!full.contains('\n') && full.ends_with('.'));
    }
}
