//! `--statistics`: how many findings each rule made, as ruff's `--statistics` prints them (the
//! findings themselves are not shown).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_json::json;

use super::{human, FileReport, Positions, Summary, Writer};
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::position::LineIndex;

/// Counts per rule, then a table (or a JSON array) at the end.
pub struct Statistics {
    json: bool,
    /// Leave out the closing summary line (`--quiet`).
    quiet: bool,
    /// Rule -> (severity, findings, findings with a safe fix).
    counts: BTreeMap<&'static str, (Severity, usize, usize)>,
}

impl Statistics {
    /// A table for people, or with `json` an array of `{rule, severity, count, fixable}`.
    pub fn new(json: bool, quiet: bool) -> Self {
        Statistics {
            json,
            quiet,
            counts: BTreeMap::new(),
        }
    }

    /// The rows, most findings first, then the most severe, then by rule name.
    fn rows(&self) -> Vec<(&'static str, Severity, usize, usize)> {
        let mut rows: Vec<_> = self
            .counts
            .iter()
            .map(|(rule, &(severity, count, fixable))| (*rule, severity, count, fixable))
            .collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(b.0)));
        rows
    }
}

impl Writer for Statistics {
    fn finding(
        &mut self,
        _out: &mut dyn Write,
        _file: &FileReport,
        _index: &LineIndex,
        d: &Diagnostic,
        _positions: &Positions<'_>,
    ) -> io::Result<()> {
        let entry = self.counts.entry(d.rule).or_insert((d.severity, 0, 0));
        entry.1 += 1;
        // The fix `--fix` would apply: the first a rule offers, when it is safe.
        if d.fixes
            .first()
            .is_some_and(|f| f.applicability == Applicability::Safe)
        {
            entry.2 += 1;
        }
        Ok(())
    }

    fn file(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        positions: &Positions<'_>,
    ) -> io::Result<()> {
        // Counting needs no line index.
        let index = LineIndex::new("");
        for d in &file.diagnostics {
            self.finding(out, file, &index, d, positions)?;
        }
        Ok(())
    }

    fn end(&mut self, out: &mut dyn Write, files: usize, summary: &Summary) -> io::Result<()> {
        let rows = self.rows();
        if self.json {
            let array: Vec<_> = rows
                .iter()
                .map(|(rule, severity, count, fixable)| {
                    json!({"rule": rule, "severity": severity, "count": count, "fixable": fixable})
                })
                .collect();
            let text = serde_json::to_string_pretty(&array).map_err(io::Error::other)?;
            return writeln!(out, "{text}");
        }
        let count_width = rows
            .iter()
            .map(|r| r.2.to_string().len())
            .max()
            .unwrap_or(1);
        let rule_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        for (rule, severity, count, fixable) in &rows {
            let fix = match *fixable {
                0 => String::new(),
                n if n == *count => "[*]".to_string(),
                n => format!("[*] {n} of them"),
            };
            let line = format!(
                "{count:>count_width$}  {:<7}  {rule:<rule_width$}  {fix}",
                severity.as_str()
            );
            writeln!(out, "{}", line.trim_end())?;
        }
        if self.quiet {
            return Ok(());
        }
        if rows.iter().any(|r| r.3 > 0) {
            writeln!(out, "[*] fixable with `taintlint lint --fix`")?;
        }
        writeln!(out, "{}", human::summary_line(files, summary))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::render_with;

    fn files() -> Vec<FileReport> {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  tolerations:\n  - {key: a, operator: exists, effect: noschedule}\n  - {key: b, operator: Exists, effect: noschedule}\n  - {key: node-role.kubernetes.io/master, operator: Exists}\n";
        let diagnostics = crate::analyse(text, &crate::Options::default());
        vec![FileReport::new("pod.yaml".into(), text, diagnostics)]
    }

    #[test]
    fn counts_per_rule_most_first_with_the_safe_fixes_marked() {
        let text = render_with(&mut Statistics::new(false, false), &files());
        assert_eq!(
            text,
            "2  error    unknown-effect        [*]\n\
             1  error    unknown-operator      [*]\n\
             1  warning  deprecated-taint-key\n\
             [*] fixable with `taintlint lint --fix`\n\
             Found 3 errors, 1 warning, 0 infos, 0 hints in 1 file.\n"
        );
        let quiet = render_with(&mut Statistics::new(false, true), &files());
        assert!(
            !quiet.contains("Found") && !quiet.contains("fixable with"),
            "{quiet}"
        );
    }

    #[test]
    fn json_is_an_array_of_counts() {
        let text = render_with(&mut Statistics::new(true, false), &files());
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value[0]["rule"], "unknown-effect");
        assert_eq!(value[0]["count"], 2);
        assert_eq!(value[0]["fixable"], 2);
        assert_eq!(value[2]["severity"], "warning");
        assert_eq!(value.as_array().unwrap().len(), 3);
    }
}
