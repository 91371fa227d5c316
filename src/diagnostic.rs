//! A finding as data: rule, severity, message, byte range, where in the document, and fixes.

use std::fmt;
use std::ops::Range;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Hint,
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The Kubernetes object a finding is in.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ObjectRef {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

/// A second place that explains the finding (in the same file unless `file` is set).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub file: Option<String>,
    pub range: Range<usize>,
    pub message: String,
}

/// One replacement of a byte range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub range: Range<usize>,
    pub replacement: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Keeps what the manifest means (a case correction, an empty value dropped): may be
    /// applied without a look.
    Safe,
    /// Changes what the toleration matches: a person should look first.
    NeedsReview,
    /// Would make a toleration stop tolerating a taint of the cluster it is linted against (the
    /// workload would lose nodes it runs on): offered one at a time, never applied in bulk
    /// (`--fix`, `--unsafe-fixes`, fix-all), and its title says what it stops tolerating.
    Manual,
}

impl Applicability {
    /// How the CLI and hovers name it.
    pub fn phrase(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::NeedsReview => "needs review",
            Applicability::Manual => "by hand only",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub title: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

impl Fix {
    /// Applies the edits to `text` (edits must not overlap).
    pub fn apply(&self, text: &str) -> String {
        let mut edits: Vec<&Edit> = self.edits.iter().collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
        let mut out = text.to_string();
        for e in edits {
            out.replace_range(e.range.clone(), &e.replacement);
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub rule: &'static str,
    pub severity: Severity,
    /// What is wrong, in plain words, subject first: one line, short enough for one row of an
    /// editor's problem list. Details go to `related` and the hover.
    pub message: String,
    /// The API server's own wording, exactly as `kubectl apply` prints it (its field path
    /// included), for findings the API server rejects; `None` for advice it does not give.
    pub server_message: Option<String>,
    /// Byte range in the analysed text.
    pub range: Range<usize>,
    /// 0-based index of the document in the stream.
    pub document: Option<usize>,
    /// Field path in Kubernetes notation from the document root.
    pub path: Option<String>,
    pub object: Option<ObjectRef>,
    pub related: Vec<Related>,
    pub fixes: Vec<Fix>,
}
