//! `taintlint rules` and `taintlint explain`.

use std::process::ExitCode;

use clap::ValueEnum;

use taintlint::report::text::wrap;
use taintlint::rules;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum RulesFormat {
    Human,
    Json,
    Markdown,
}

pub(crate) fn list(format: RulesFormat, width: usize) -> ExitCode {
    match format {
        RulesFormat::Human => print!("{}", table(width)),
        RulesFormat::Json => print!("{}", rules::json()),
        RulesFormat::Markdown => print!("{}", rules::markdown_docs()),
    }
    ExitCode::SUCCESS
}

pub(crate) fn explain(rule: &str) -> ExitCode {
    match rules::find(rule) {
        Some(meta) => {
            println!("{} ({})\n\n{}\n", meta.name, meta.severity, meta.summary);
            print!("{}", meta.explanation);
            ExitCode::SUCCESS
        }
        None => {
            match rules::closest(rule) {
                Some(near) => eprintln!(
                    "taintlint: no rule named {rule:?}; did you mean `{near}`? \
                     (`taintlint rules` lists them all)"
                ),
                None => {
                    let names: Vec<&str> = rules::all().map(|m| m.name).collect();
                    eprintln!(
                        "taintlint: no rule named {rule:?}; the rules are: {}",
                        names.join(", ")
                    );
                }
            }
            ExitCode::from(2)
        }
    }
}

/// The summary column's narrowest width (unless a word is wider): with less room, each summary
/// goes under its rule.
const MIN_SUMMARY: usize = 30;

/// The rules as a table that fits `width` columns: the summary in a column of its own, wrapped
/// in it, when that column can be 30 wide and hold every word; else under each rule, indented (and narrower still,
/// the other columns not aligned).
fn table(width: usize) -> String {
    let longest = rules::all().map(|m| m.name.len()).max().unwrap_or(0);
    let lead = longest + 2 + 8 + 2 + 9 + 2 + 3 + 2;
    // The summary column holds its longest word (a taint key may be 40 wide).
    let word = rules::all()
        .flat_map(|m| m.summary.split(' '))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let beside = width >= lead + MIN_SUMMARY.max(word);
    let aligned = width + 2 >= lead;
    let columns = |a: &str, b: &str, c: &str, d: &str| {
        if aligned {
            format!("{a:longest$}  {b:8}  {c:9}  {d:3}")
        } else {
            format!("{a}  {b}  {c}  {d}")
        }
    };
    let mut out = columns("RULE", "SEVERITY", "INVENTORY", "FIX");
    out = if beside {
        format!("{out}  SUMMARY\n")
    } else {
        format!("{}\n    SUMMARY\n", out.trim_end())
    };
    for m in rules::all() {
        let row = columns(
            m.name,
            m.severity.as_str(),
            if m.needs_inventory { "needed" } else { "-" },
            if m.fixable { "yes" } else { "-" },
        );
        if beside {
            out.push_str(&wrap(&format!("{row}  "), lead, m.summary, width));
        } else {
            out.push_str(row.trim_end());
            out.push('\n');
            out.push_str(&wrap("    ", 4, m.summary, width));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_fits_the_width() {
        for width in [60, 80, 100, 130] {
            let text = table(width);
            for line in text.lines() {
                assert!(
                    taintlint::report::text::width(line) <= width,
                    "{width}: {line:?}"
                );
            }
            // Every rule and every word of its summary is there.
            for m in rules::all() {
                assert!(text.contains(m.name), "{width}: {}", m.name);
                let words: Vec<&str> = text.split_whitespace().collect();
                for word in m.summary.split_whitespace() {
                    assert!(words.contains(&word), "{width}: {word}");
                }
            }
        }
        // Wide enough, each rule is one line.
        assert_eq!(table(1000).lines().count(), 1 + rules::all().count());
    }
}
