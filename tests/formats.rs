//! Every output format over the same fixtures, as snapshots: what a person or a CI system sees.

mod common;

use common::{fixture, run, snapshots, without_version, HELM_RENDERED, LINT_FIXTURES};

const FORMATS: &[&str] = &["human", "concise", "json", "sarif", "github"];

fn lint(format: &str) -> String {
    let mut args = vec!["lint", "--color", "never", "--format", format];
    args.extend(LINT_FIXTURES);
    let files = run(&args, None);
    assert_eq!(
        files.code, 1,
        "error-level findings exit 1\n{}",
        files.stderr
    );
    assert!(files.stderr.is_empty(), "{}", files.stderr);
    // `helm template ... | taintlint lint -`: findings named after the chart's templates.
    let helm = run(
        &["lint", "--color", "never", "--format", format, "-"],
        Some(&fixture(HELM_RENDERED)),
    );
    assert_eq!(helm.code, 1, "{}", helm.stderr);
    format!(
        "$ taintlint lint --format {format} {}\n{}\n$ taintlint lint --format {format} - < {HELM_RENDERED}\n{}",
        LINT_FIXTURES.join(" "),
        files.stdout,
        helm.stdout
    )
}

#[test]
fn every_format() {
    for format in FORMATS {
        let out = lint(format);
        let out = if *format == "sarif" {
            without_version(&out)
        } else {
            out
        };
        snapshots().bind(|| insta::assert_snapshot!(format!("format_{format}"), out));
    }
}

/// The formats agree: each finds the same findings at the same places.
#[test]
fn formats_agree() {
    let mut args = vec!["lint", "--format", "json"];
    args.extend(LINT_FIXTURES);
    let json: serde_json::Value = serde_json::from_str(&run(&args, None).stdout).unwrap();
    let expected: Vec<String> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{}:{}",
                d["file"].as_str().unwrap(),
                d["range"]["start"]["line"],
                d["range"]["start"]["column"],
                d["rule"].as_str().unwrap()
            )
        })
        .collect();
    assert!(!expected.is_empty());

    args[2] = "concise";
    let concise: Vec<String> = run(&args, None)
        .stdout
        .lines()
        .map(|l| {
            let (place, rest) = l.split_once(": ").unwrap();
            let rule = rest.split_once('[').unwrap().1.split_once(']').unwrap().0;
            format!("{place}:{rule}")
        })
        .collect();
    assert_eq!(concise, expected);

    args[2] = "github";
    let github: Vec<String> = run(&args, None)
        .stdout
        .lines()
        .map(|l| {
            let props = l.split_once(' ').unwrap().1.split_once("::").unwrap().0;
            let get = |k: &str| {
                props
                    .split(',')
                    .find_map(|p| p.strip_prefix(&format!("{k}=")))
                    .unwrap()
                    .to_string()
            };
            let title = get("title").replace("%3A", ":");
            let rule = title
                .trim_start_matches("taintlint (")
                .trim_end_matches(')');
            format!("{}:{}:{}:{rule}", get("file"), get("line"), get("col"))
        })
        .collect();
    assert_eq!(github, expected);

    args[2] = "sarif";
    let sarif: serde_json::Value = serde_json::from_str(&run(&args, None).stdout).unwrap();
    let from_sarif: Vec<String> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            format!(
                "{}:{}:{}:{}",
                loc["artifactLocation"]["uri"].as_str().unwrap(),
                loc["region"]["startLine"],
                loc["region"]["startColumn"],
                r["ruleId"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(from_sarif, expected);
}

#[test]
fn clean_input_prints_nothing_in_machine_line_formats() {
    for format in ["concise", "github"] {
        let r = run(
            &[
                "lint",
                "--format",
                format,
                "tests/fixtures/ci/lint/clean.yaml",
            ],
            None,
        );
        assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{format}");
    }
}
