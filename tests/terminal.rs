//! Text for people fits an 80-column terminal: `taintlint rules`, lint's notes and help lines,
//! and simulate's placement views (at 80 columns when the output is not a terminal, or as
//! `COLUMNS` says). Snapshots in snapshots/, read as a user would.

mod common;

use std::process::Command;

use common::{snapshots, ROOT};

/// The command's standard output without colour, at `columns` (`None`: not set, as in a pipe).
fn stdout(args: &[&str], columns: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_taintlint"));
    cmd.args(args).current_dir(ROOT).env("NO_COLOR", "1");
    match columns {
        Some(c) => cmd.env("COLUMNS", c),
        None => cmd.env_remove("COLUMNS"),
    };
    let out = cmd.output().expect("the binary runs");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Every line at most `columns` wide, in display columns.
fn assert_fits(text: &str, columns: usize) {
    for line in text.lines() {
        assert!(
            taintlint::report::text::width(line) <= columns,
            "wider than {columns} columns: {line:?}"
        );
    }
}

#[test]
fn rules_fit_80_columns() {
    let text = stdout(&["rules"], None);
    assert_eq!(text, stdout(&["rules"], Some("80")));
    assert_fits(&text, 80);
    snapshots().bind(|| insta::assert_snapshot!("rules_at_80_columns", text));
    // Wider, the summaries stand beside their rules.
    let wide = stdout(&["rules"], Some("160"));
    assert_fits(&wide, 160);
    assert!(wide.lines().count() < text.lines().count());
}

#[test]
fn lint_notes_wrap_at_the_width() {
    let args = [
        "lint",
        "--inventory",
        "examples/inventory/pools.yaml",
        "examples/",
    ];
    let text = stdout(&args, None);
    assert_eq!(text, stdout(&args, Some("80")));
    // The notes and help lines are ours to wrap; a finding's first line and the source lines
    // of its snippet are annotate-snippets', as rustc prints them.
    for line in text.lines() {
        if line.trim_start().starts_with('=') || line.starts_with("           ") {
            assert_fits(line, 80);
        }
    }
    snapshots().bind(|| insta::assert_snapshot!("lint_at_80_columns", text));
    // Narrower still, the notes follow.
    let narrow = stdout(&args, Some("60"));
    assert!(narrow.lines().count() > text.lines().count());
    for line in narrow
        .lines()
        .filter(|l| l.trim_start().starts_with("= note"))
    {
        assert_fits(line, 60);
    }
}

#[test]
fn simulate_fits_80_columns() {
    let args = [
        "simulate",
        "--inventory",
        "examples/gpu/nodepools.yaml",
        "examples/gpu/training.yaml",
        "examples/gpu/gpu-agents.yaml",
    ];
    let text = stdout(&args, None);
    assert_eq!(text, stdout(&args, Some("80")));
    assert_fits(&text, 80);
    snapshots().bind(|| insta::assert_snapshot!("simulate_gpu_at_80_columns", text));
    let mut why = args.to_vec();
    why.push("--why");
    assert_fits(&stdout(&why, None), 80);
}
