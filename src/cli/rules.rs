//! `taintlint rules` and `taintlint explain`.

use std::process::ExitCode;

use clap::ValueEnum;

use taintlint::rules;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum RulesFormat {
    Human,
    Json,
    Markdown,
}

pub(crate) fn list(format: RulesFormat) -> ExitCode {
    match format {
        RulesFormat::Human => print_rules(),
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

fn print_rules() {
    let width = rules::all().map(|m| m.name.len()).max().unwrap_or(0);
    println!(
        "{:width$}  {:8}  {:9}  {:7}  SUMMARY",
        "RULE", "SEVERITY", "INVENTORY", "FIX"
    );
    for m in rules::all() {
        println!(
            "{:width$}  {:8}  {:9}  {:7}  {}",
            m.name,
            m.severity.as_str(),
            if m.needs_inventory { "needed" } else { "-" },
            if m.fixable { "yes" } else { "-" },
            m.summary
        );
    }
}
