//! Rendered manifests traced to the files to edit.
//!
//! Kustomize overlays are rendered with the user's kustomize (kubectl's here) and their
//! findings traced to the base and patch files: tests/fixtures/kustomize/shop is a base, a
//! component (a JSON6902 patch file) and a prod overlay (`namePrefix`, `namespace`, a
//! strategic-merge patch file and an inline patch). `helm template` output
//! (tests/fixtures/helm/web-rendered.yaml, written in its shape) is traced to its templates and
//! to the chart's values file.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{tools, ROOT};
use serde_json::Value;

const SHOP: &str = "tests/fixtures/kustomize/shop";
const PROD: &str = "tests/fixtures/kustomize/shop/overlays/prod";

/// kubectl (or kustomize) on the PATH, as the rendering needs; `None` when the test may skip.
fn renderer(test: &str) -> Option<PathBuf> {
    tools::require(
        test,
        tools::on_path("kustomize").or_else(|_| tools::on_path("kubectl")),
        "https://kubernetes.io/docs/tasks/tools/ (kubectl carries kustomize)",
    )
}

/// The 1-based line and column where `needle` is written in a fixture file (the first time
/// after the line holding `after`).
fn place(file: &str, after: &str, needle: &str) -> (u64, u64) {
    let text = common::fixture(&format!("{SHOP}/{file}"));
    let start = text
        .find(after)
        .unwrap_or_else(|| panic!("{after} in {file}"));
    let at = start + text[start..].find(needle).expect("the needle follows");
    let line = text[..at].matches('\n').count() as u64 + 1;
    let column = (at - text[..at].rfind('\n').map_or(0, |i| i + 1)) as u64 + 1;
    (line, column)
}

fn lint(args: &[&str], path: Option<&str>) -> (Value, String, i32) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_taintlint"));
    command.current_dir(ROOT).arg("lint").args(args);
    if let Some(p) = path {
        command.env("PATH", p);
    }
    let out = command.output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (json, stderr, out.status.code().expect("an exit code"))
}

/// (file, line, column, rule, object kind and name) of each finding.
fn findings(json: &Value) -> Vec<(String, u64, u64, String, String)> {
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["column"].as_u64().unwrap(),
                d["rule"].as_str().unwrap().to_string(),
                format!(
                    "{} {}",
                    d["object"]["kind"].as_str().unwrap_or("-"),
                    d["object"]["name"].as_str().unwrap_or("-")
                ),
            )
        })
        .collect()
}

fn expected() -> Vec<(String, u64, u64, String, String)> {
    let at = |file: &str, after: &str, needle: &str, rule: &str, object: &str| {
        let (line, column) = place(file, after, needle);
        (
            format!("{SHOP}/{file}"),
            line,
            column,
            rule.to_string(),
            object.to_string(),
        )
    };
    let mut v = vec![
        // The base's own toleration, under its base name.
        at(
            "base/agent.yaml",
            "effect:",
            "noschedule",
            "unknown-effect",
            "DaemonSet agent",
        ),
        // The component's JSON6902 patch, inside its `value`.
        at(
            "components/spot/agent-gpu.yaml",
            "operator:",
            "Equal",
            "equal-empty-value",
            "DaemonSet agent",
        ),
        // The overlay's patch file replaced the base's list.
        at(
            "overlays/prod/web-tolerations.yaml",
            "effect:",
            "NoSchedul",
            "unknown-effect",
            "Deployment web",
        ),
        // The overlay's inline patch, inside the string.
        at(
            "overlays/prod/kustomization.yaml",
            "value: primary",
            "primary",
            "exists-with-value",
            "Job migrate",
        ),
    ];
    v.sort();
    v
}

#[test]
fn an_overlays_findings_land_on_the_base_and_patch_files() {
    if renderer("an_overlays_findings_land_on_the_base_and_patch_files").is_none() {
        return;
    }
    let (json, stderr, code) = lint(&["--format", "json", PROD], None);
    assert_eq!(code, 1, "{stderr}");
    let mut found = findings(&json);
    found.sort();
    assert_eq!(found, expected(), "{stderr}");
    // Each names the overlay and the rendered object in a note at the overlay's kustomization.
    for d in json["diagnostics"].as_array().unwrap() {
        let notes: Vec<&str> = d["related"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["message"].as_str().unwrap())
            .collect();
        let name = d["object"]["name"].as_str().unwrap();
        let kind = d["object"]["kind"].as_str().unwrap();
        assert_eq!(
            notes,
            vec![format!("rendered by {PROD} as {kind} shop/prod-{name}")],
            "{d}"
        );
        assert_eq!(
            d["related"][0]["file"].as_str(),
            Some(format!("{PROD}/kustomization.yaml").as_str())
        );
    }
    // A fix moved with the finding still writes the right text.
    let effect = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file"] == format!("{SHOP}/overlays/prod/web-tolerations.yaml"))
        .unwrap();
    let edit = &effect["fixes"][0]["edits"][0];
    assert_eq!(edit["replacement"], "NoSchedule");
    assert_eq!(edit["range"], effect["range"]);
}

/// A file the overlay reaches is named as the walk would name it, from the overlay's path as
/// given: `./` kept, an absolute path kept whole.
#[test]
fn files_an_overlay_reaches_are_named_as_the_overlay_was_given() {
    if renderer("files_an_overlay_reaches_are_named_as_the_overlay_was_given").is_none() {
        return;
    }
    let files = |json: &Value| {
        let mut files: Vec<String> = findings(json).into_iter().map(|f| f.0).collect();
        files.sort();
        files.dedup();
        files
    };
    let mut want: Vec<String> = expected().into_iter().map(|f| f.0).collect();
    want.dedup();
    assert!(want.iter().any(|f| f.contains("/base/")), "{want:?}");
    for prefix in ["./".to_string(), format!("{ROOT}/")] {
        let (json, stderr, _) = lint(&["--format", "json", &format!("{prefix}{PROD}")], None);
        let named: Vec<String> = want.iter().map(|f| format!("{prefix}{f}")).collect();
        assert_eq!(files(&json), named, "{stderr}");
    }
}

#[test]
fn a_walk_over_sources_and_overlays_reports_each_finding_once() {
    if renderer("a_walk_over_sources_and_overlays_reports_each_finding_once").is_none() {
        return;
    }
    let (json, stderr, _) = lint(&["--format", "json", SHOP], None);
    let mut found = findings(&json);
    found.sort();
    // The base's finding is the source's own (the base is linted too) and the render's: once.
    assert_eq!(found, expected(), "{stderr}");
    let agent = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["file"] == format!("{SHOP}/base/agent.yaml"))
        .unwrap();
    assert_eq!(agent["related"].as_array().unwrap().len(), 1, "{agent}");
}

#[test]
fn sarif_of_an_overlay_points_only_into_real_files() {
    if renderer("sarif_of_an_overlay_points_only_into_real_files").is_none() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .current_dir(ROOT)
        .args(["lint", "--format", "sarif", PROD])
        .output()
        .unwrap();
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), expected().len());
    let mut uris = Vec::new();
    for r in results {
        for l in r["locations"]
            .as_array()
            .unwrap()
            .iter()
            .chain(r["relatedLocations"].as_array().into_iter().flatten())
        {
            if let Some(uri) = l["physicalLocation"]["artifactLocation"]["uri"].as_str() {
                uris.push(uri.to_string());
            }
        }
    }
    assert!(uris.len() >= 2 * results.len(), "{uris:?}");
    for uri in uris {
        assert!(
            Path::new(ROOT).join(&uri).is_file(),
            "{uri} is not a file of the repository"
        );
    }
}

#[test]
fn without_kustomize_the_sources_are_linted_and_it_says_so_once() {
    let (json, stderr, _) = lint(&["--format", "json", SHOP], Some("/nonexistent"));
    assert_eq!(
        stderr
            .matches("neither kustomize nor kubectl is on the PATH")
            .count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains(PROD), "{stderr}");
    // The files' own findings (the inline patch string is read as the YAML it holds).
    let files: Vec<String> = findings(&json).into_iter().map(|f| f.0).collect();
    assert!(
        files.contains(&format!("{SHOP}/base/agent.yaml")),
        "{files:?}"
    );
    assert!(
        files.contains(&format!("{SHOP}/overlays/prod/web-tolerations.yaml")),
        "{files:?}"
    );
}

#[test]
fn kustomize_off_renders_nothing() {
    let (json, stderr, _) = lint(&["--format", "json", "--kustomize", "off", PROD], None);
    assert!(stderr.is_empty(), "{stderr}");
    // Without the render, the base (outside the path) is not reached; the overlay's own files
    // are linted, its inline patch string as the YAML it holds.
    let files: Vec<String> = findings(&json).into_iter().map(|f| f.0).collect();
    assert_eq!(
        files,
        vec![
            format!("{SHOP}/overlays/prod/kustomization.yaml"),
            format!("{SHOP}/overlays/prod/web-tolerations.yaml")
        ]
    );
}

#[test]
fn simulate_takes_each_overlays_workloads_as_rendered() {
    if renderer("simulate_takes_each_overlays_workloads_as_rendered").is_none() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .current_dir(ROOT)
        .args([
            "simulate",
            "--format",
            "json",
            "--inventory",
            "tests/fixtures/kustomize/shop-nodes.yaml",
            SHOP,
        ])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    let workloads: Vec<String> = json["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            format!(
                "{} {} {}/{}",
                w["file"].as_str().unwrap(),
                w["kind"].as_str().unwrap(),
                w["namespace"].as_str().unwrap_or("-"),
                w["name"].as_str().unwrap()
            )
        })
        .collect();
    // The overlay's workloads under their rendered names, not the base's nor the patches'
    // partial objects on their own.
    assert_eq!(
        workloads,
        [
            format!("{PROD} Deployment shop/prod-web"),
            format!("{PROD} DaemonSet shop/prod-agent"),
            format!("{PROD} Job shop/prod-migrate"),
        ]
    );
}

/// `helm template shop web | taintlint lint -` in the chart's parent directory: the list the
/// chart renders from its values is reported in values.yaml, where the fix goes; the one the
/// template writes itself stays on the template.
#[test]
fn helm_output_points_at_the_values_file_and_the_templates() {
    let dir = Path::new(ROOT).join("tests/fixtures/helm");
    let stream = common::fixture("tests/fixtures/helm/web-rendered.yaml");
    for args in [
        vec!["lint", "--format", "json", "-"],
        vec![
            "lint",
            "--format",
            "json",
            "--helm-values",
            "web/values.yaml",
            "-",
        ],
    ] {
        let out = common::run_in(&dir, &args, Some(&stream));
        let json: Value = serde_json::from_str(&out.stdout).expect(&out.stderr);
        let found: Vec<(String, u64, u64, String)> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["file"].as_str().unwrap().to_string(),
                    d["range"]["start"]["line"].as_u64().unwrap(),
                    d["range"]["start"]["column"].as_u64().unwrap(),
                    d["rule"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let values = common::fixture("tests/fixtures/helm/web/values.yaml");
        let line = values[..values.find("NoSchedul").unwrap()]
            .matches('\n')
            .count() as u64
            + 1;
        assert_eq!(
            found,
            [
                (
                    "web/templates/job.yaml".to_string(),
                    10,
                    16,
                    "misspelled-taint-key".to_string()
                ),
                (
                    "web/values.yaml".to_string(),
                    line,
                    13,
                    "unknown-effect".to_string()
                ),
            ],
            "{args:?}"
        );
        let moved = &json["diagnostics"][1];
        assert_eq!(moved["object"]["name"], "shop-web");
        assert_eq!(
            moved["related"][0]["message"],
            "rendered into Deployment shop-web by this template"
        );
        assert_eq!(moved["related"][0]["file"], "web/templates/deployment.yaml");
        // Every file named is one of the chart's.
        for d in json["diagnostics"].as_array().unwrap() {
            assert!(dir.join(d["file"].as_str().unwrap()).is_file(), "{d}");
        }
    }
}
