//! The core's diagnostics as LSP diagnostics: positions in the negotiated encoding, the rule as
//! `code`, related locations, and the fixes in `data` so a code action never recomputes.

use std::collections::HashMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};
use tower_lsp_server::ls_types::{
    self as lsp, DiagnosticRelatedInformation, DiagnosticTag, Location, NumberOrString, TextEdit,
    Uri,
};

use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::lsp::convert::Lines;
use crate::rules;

pub const SOURCE: &str = "taintlint";

/// More than this many diagnostics in one document are not sent (the editor could not show
/// them usefully, and the message would be huge).
pub const MAX_PER_DOCUMENT: usize = 10_000;

/// What a diagnostic carries in `data`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticData {
    /// The document version the edits apply to.
    pub version: i32,
    pub fixes: Vec<FixData>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixData {
    pub title: String,
    /// `safe`, `needs-review` or `manual`.
    pub applicability: String,
    pub edits: Vec<TextEdit>,
}

impl FixData {
    pub fn is_safe(&self) -> bool {
        self.applicability == applicability_name(Applicability::Safe)
    }
}

fn applicability_name(a: Applicability) -> String {
    match serde_json::to_value(a) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

pub fn severity(s: Severity) -> lsp::DiagnosticSeverity {
    match s {
        Severity::Error => lsp::DiagnosticSeverity::ERROR,
        Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        Severity::Info => lsp::DiagnosticSeverity::INFORMATION,
        Severity::Hint => lsp::DiagnosticSeverity::HINT,
    }
}

/// Each rule's link into the rule reference (a diagnostic's `codeDescription`), made once for
/// the reference's address: every keystroke sends one with each diagnostic.
#[derive(Debug, Clone)]
pub struct Links {
    docs: String,
    rules: HashMap<&'static str, Uri>,
}

impl Links {
    pub fn new(docs: &str) -> Links {
        let rules = rules::all()
            .filter_map(|m| Some((m.name, rules::docs_url(docs, m.name).parse().ok()?)))
            .collect();
        Links {
            docs: docs.to_string(),
            rules,
        }
    }

    /// A rule's link; one the reference does not list still gets its section's address.
    fn get(&self, rule: &str) -> Option<Uri> {
        match self.rules.get(rule) {
            Some(uri) => Some(uri.clone()),
            None => rules::docs_url(&self.docs, rule).parse().ok(),
        }
    }
}

/// The links into the default rule reference (what default settings give).
impl Default for Links {
    fn default() -> Self {
        Links::new(rules::DOCS_URL)
    }
}

/// Places a related location in another file: its URI and the range there.
pub type OtherFile<'a> = dyn Fn(&str, Range<usize>) -> Option<Location> + 'a;

/// Converts one diagnostic of the document at `uri`, whose places count from byte `by` of the
/// document (where the YAML document it was found in starts); its rule code links to the rule's
/// section of the rule reference (`links`). Its fixes go in `data` for an open document, with
/// its `version`; a file that is not open (`None`) carries none: code actions are asked for
/// open documents only, and then come from the document's own analysis (its diagnostics after
/// a pool edit are megabytes of JSON, 7% of it fixes).
pub fn to_lsp(
    d: &Diagnostic,
    by: usize,
    lines: Lines<'_>,
    uri: &Uri,
    version: Option<i32>,
    other_file: &OtherFile<'_>,
    links: &Links,
) -> lsp::Diagnostic {
    let range = |r: &Range<usize>| lines.range(r.start + by..r.end + by);
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|r| {
            let location = match &r.file {
                None => Location::new(uri.clone(), range(&r.range)),
                Some(file) => other_file(file, r.range.clone())?,
            };
            Some(DiagnosticRelatedInformation {
                location,
                message: r.message.clone(),
            })
        })
        .collect();
    let data = version.filter(|_| !d.fixes.is_empty()).map(|version| {
        let fixes = d
            .fixes
            .iter()
            .map(|f| FixData {
                title: f.title.clone(),
                applicability: applicability_name(f.applicability),
                edits: f
                    .edits
                    .iter()
                    .map(|e| TextEdit::new(range(&e.range), e.replacement.clone()))
                    .collect(),
            })
            .collect();
        serde_json::to_value(DiagnosticData { version, fixes }).expect("plain data")
    });
    let tags = match d.rule {
        "deprecated-taint-key" => Some(vec![DiagnosticTag::DEPRECATED]),
        "duplicate-toleration" => Some(vec![DiagnosticTag::UNNECESSARY]),
        _ => None,
    };
    lsp::Diagnostic {
        range: range(&d.range),
        severity: Some(severity(d.severity)),
        code: Some(NumberOrString::String(d.rule.to_string())),
        code_description: links.get(d.rule).map(|href| lsp::CodeDescription { href }),
        source: Some(SOURCE.to_string()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags,
        data,
    }
}

/// Converts a document's diagnostics (at most [`MAX_PER_DOCUMENT`]), each with the offset
/// its places are relative to.
pub fn all_to_lsp<'a>(
    diagnostics: impl IntoIterator<Item = (&'a Diagnostic, usize)>,
    lines: Lines<'_>,
    uri: &Uri,
    version: Option<i32>,
    other_file: &OtherFile<'_>,
    links: &Links,
) -> Vec<lsp::Diagnostic> {
    diagnostics
        .into_iter()
        .take(MAX_PER_DOCUMENT)
        .map(|(d, by)| to_lsp(d, by, lines, uri, version, other_file, links))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{Encoding, LineIndex};

    #[test]
    fn carries_rule_fixes_and_related_places() {
        let text = "# 日本語\ntolerations:\n- key: a\n  operator: Exists\n  effect: noschedule\n";
        let diagnostics = crate::analyse(text, &crate::Options::default());
        let d = diagnostics
            .iter()
            .find(|d| d.rule == "unknown-effect")
            .unwrap();
        let index = LineIndex::new(text);
        let uri: Uri = "file:///m.yaml".parse().unwrap();
        let none = |_: &str, _: Range<usize>| None;
        let links = Links::new("https://example.com/docs/rules.md");
        let lines = Lines::new(text, &index, Encoding::Utf16);
        let lsp = to_lsp(d, 0, lines, &uri, Some(7), &none, &links);
        // Not open: the same diagnostic, without its fixes.
        let unopened = to_lsp(d, 0, lines, &uri, None, &none, &links);
        assert_eq!(
            unopened,
            lsp::Diagnostic {
                data: None,
                ..lsp.clone()
            }
        );
        assert_eq!(
            lsp.code_description.unwrap().href.as_str(),
            "https://example.com/docs/rules.md#unknown-effect"
        );
        assert_eq!(
            lsp.code,
            Some(NumberOrString::String("unknown-effect".into()))
        );
        assert_eq!(lsp.source.as_deref(), Some("taintlint"));
        assert_eq!(lsp.range.start, lsp::Position::new(4, 10));
        let data: DiagnosticData = serde_json::from_value(lsp.data.unwrap()).unwrap();
        assert_eq!(data.version, 7);
        assert_eq!(data.fixes[0].edits[0].new_text, "NoSchedule");
        assert!(data.fixes[0].is_safe());
    }

    #[test]
    fn links_name_each_rule_and_any_other_code() {
        let links = Links::new("https://example.com/rules.md#top");
        for rule in rules::all() {
            assert_eq!(
                links.get(rule.name).unwrap().as_str(),
                format!("https://example.com/rules.md#{}", rule.name)
            );
        }
        assert_eq!(
            links.get("not-listed").unwrap().as_str(),
            "https://example.com/rules.md#not-listed"
        );
        assert_eq!(
            Links::default().get("unknown-effect").unwrap().as_str(),
            rules::docs_url(rules::DOCS_URL, "unknown-effect")
        );
    }
}
