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
use serde_json::{json, Value};

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
    command.env(
        "TAINTLINT_CACHE_DIR",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/taintlint_cache"),
    );
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

/// A stand-in `kustomize` on the PATH (found before kubectl) that writes each call, with the
/// variables that close the network, to a log, and renders with kubectl: what taintlint runs,
/// and how, can then be read. `None` when kubectl is missing and the test may skip.
struct FakeKustomize {
    dir: tempfile::TempDir,
}

impl FakeKustomize {
    fn new(test: &str) -> Option<FakeKustomize> {
        let kubectl = tools::require(
            test,
            tools::on_path("kubectl"),
            "https://kubernetes.io/docs/tasks/tools/ (kubectl carries kustomize)",
        )?;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("calls.log");
        let script = format!(
            "#!/bin/sh\n\
             echo \"$* GIT_ALLOW_PROTOCOL=$GIT_ALLOW_PROTOCOL HTTPS_PROXY=$HTTPS_PROXY\" >> '{}'\n\
             if [ \"$1\" = version ]; then echo v5.5.0; exit 0; fi\n\
             shift\n\
             exec '{}' kustomize \"$@\"\n",
            log.display(),
            kubectl.display()
        );
        let path = dir.path().join("kustomize");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Some(FakeKustomize { dir })
    }

    /// `taintlint ARGS` in the crate root with this kustomize first on the PATH.
    fn run(&self, args: &[&str]) -> (String, String, i32) {
        let path = format!(
            "{}:{}",
            self.dir.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .current_dir(ROOT)
            .args(args)
            .env("PATH", path)
            .env_remove("TAINTLINT_CACHE_DIR")
            .output()
            .unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code().unwrap(),
        )
    }

    /// The builds run so far (calls other than `version`).
    fn builds(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("calls.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("build"))
            .map(str::to_string)
            .collect()
    }

    fn config(&self, text: &str) -> String {
        let path = self.dir.path().join("taintlint.yaml");
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }
}

const REMOTE: &str = "tests/fixtures/kustomize/remote";

/// An overlay whose base builds on a remote base is not rendered: kustomize is not run for
/// it, one line names the remote base, and the sources are linted. With `remote: true` it is
/// rendered, and the network is no longer closed to kustomize.
#[test]
fn a_remote_base_is_not_fetched_unless_the_configuration_says_so() {
    let Some(fake) =
        FakeKustomize::new("a_remote_base_is_not_fetched_unless_the_configuration_says_so")
    else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().display().to_string();
    let (stdout, stderr, _) = fake.run(&["lint", "-o", "json", "--cache-dir", &cache_dir, REMOTE]);
    assert!(fake.builds().is_empty(), "{:?}", fake.builds());
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        [
            format!(
                "taintlint: not fetching the remote base \
                 github.com/example/workflows/manifests/base/controller?ref=v3.7.3 (of \
                 {REMOTE}/overlays/prod): `kustomize: {{remote: true}}` in .taintlint.yaml \
                 fetches it"
            )
            .as_str(),
            "taintlint: 1 of 1 kustomization not rendered (1 need a remote base): linting its \
             sources only; `--show-skipped` says why for each",
        ],
        "{stderr}"
    );
    // The base's own file is linted all the same.
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let files: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, [format!("{REMOTE}/base/controller.yaml")]);
    // Opted in: kustomize runs, without the variables that close the network. The remote
    // base cannot be fetched here (no network), and the failure is one line with its cause.
    let config = fake.config("kustomize: {remote: true}\n");
    let (_, stderr, _) = fake.run(&[
        "lint",
        "-o",
        "json",
        "--config",
        &config,
        "--cache-dir",
        &cache_dir,
        REMOTE,
    ]);
    let builds = fake.builds();
    assert_eq!(builds.len(), 1, "{builds:?}");
    assert!(
        builds[0].ends_with("GIT_ALLOW_PROTOCOL= HTTPS_PROXY="),
        "{builds:?}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with(&format!("taintlint: {REMOTE}/overlays/prod: "))
            && lines[0].contains("github.com/example/workflows"),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with(
            "taintlint: 1 of 1 kustomization not rendered (1 `kustomize build` failed)"
        ),
        "{stderr}"
    );
    // A render that fetched a remote base is never kept.
    assert!(
        !cache.path().join("renders").exists()
            || std::fs::read_dir(cache.path().join("renders"))
                .unwrap()
                .next()
                .is_none()
    );
}

/// What kustomize is run with: its own load restrictor, and, without remote bases, git limited
/// to local repositories and HTTP sent to a proxy that is not there.
#[test]
fn kustomize_runs_offline_under_its_own_load_restrictor() {
    let Some(fake) = FakeKustomize::new("kustomize_runs_offline_under_its_own_load_restrictor")
    else {
        return;
    };
    let (_, stderr, code) = fake.run(&["lint", "-o", "json", "--no-cache", PROD]);
    assert_eq!(code, 1, "{stderr}");
    let builds = fake.builds();
    assert_eq!(builds.len(), 1, "{builds:?}");
    assert!(!builds[0].contains("load-restrictor"), "{builds:?}");
    assert!(
        builds[0].ends_with("GIT_ALLOW_PROTOCOL=file HTTPS_PROXY=http://127.0.0.1:9"),
        "{builds:?}"
    );
}

const OUTSIDE: &str = "tests/fixtures/kustomize/outside/overlays/prod";

/// An overlay that names a file outside its directory is not rendered under kustomize's own
/// load restrictor, in lint and simulate alike, and says so in one line; with
/// `load-restrictor: none` it is rendered, and its finding traced to the file.
#[test]
fn an_overlay_outside_its_folder_is_rendered_only_when_the_configuration_allows_it() {
    let Some(fake) = FakeKustomize::new(
        "an_overlay_outside_its_folder_is_rendered_only_when_the_configuration_allows_it",
    ) else {
        return;
    };
    let said = format!(
        "taintlint: kustomize's load restrictor refuses the files outside their directory \
         that {OUTSIDE} reads (`kustomize: {{load-restrictor: none}}` in .taintlint.yaml allows \
         them)"
    );
    let counted = |verb: &str| {
        format!(
            "taintlint: 1 of 1 kustomization not rendered (1 read outside their directory): \
             {verb} its sources only; `--show-skipped` says why for each"
        )
    };
    let (stdout, stderr, _) = fake.run(&["lint", "-o", "json", "--no-cache", OUTSIDE]);
    assert_eq!(stderr, format!("{said}\n{}\n", counted("linting")));
    // `--show-skipped`: which file, named where.
    let (_, stderr, _) = fake.run(&["lint", "--no-cache", "--show-skipped", OUTSIDE]);
    assert!(
        stderr.contains(&format!(
            "taintlint: {OUTSIDE}: not rendered: reads ../../shared/job.yaml (named in \
             {OUTSIDE}/kustomization.yaml) outside its kustomization's directory"
        )),
        "{stderr}"
    );
    // `-q`: not a word.
    let (_, stderr, _) = fake.run(&["lint", "-q", "--no-cache", OUTSIDE]);
    assert_eq!(stderr, "");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["diagnostics"].as_array().unwrap().len(), 0);
    let (_, stderr, _) = fake.run(&[
        "simulate",
        "--inventory",
        "tests/fixtures/kustomize/shop-nodes.yaml",
        "--no-cache",
        OUTSIDE,
    ]);
    let lines: Vec<&str> = stderr.lines().take(2).collect();
    assert_eq!(lines, [said.clone(), counted("simulating")], "{stderr}");
    assert!(fake.builds().is_empty(), "{:?}", fake.builds());
    let config = fake.config("kustomize:\n  load-restrictor: none\n");
    let (stdout, stderr, code) = fake.run(&[
        "lint",
        "-o",
        "json",
        "--no-cache",
        "--config",
        &config,
        OUTSIDE,
    ]);
    assert_eq!(code, 1, "{stderr}");
    let builds = fake.builds();
    assert!(
        builds.len() == 1 && builds[0].contains("--load-restrictor LoadRestrictionsNone"),
        "{builds:?}"
    );
    let json: Value = serde_json::from_str(&stdout).unwrap();
    let found = findings(&json);
    assert_eq!(
        found,
        [(
            "tests/fixtures/kustomize/outside/shared/job.yaml".to_string(),
            12,
            17,
            "unknown-effect".to_string(),
            "Job smoke".to_string()
        )],
        "{stderr}"
    );
}

const BROKEN: &str = "tests/fixtures/kustomize/broken";

/// An overlay kustomize cannot build is one short line: the overlay, then kustomize's last
/// cause (the base's missing file, not the wrappers of every kustomization around it), with
/// paths from the working directory; a last line counts what was not rendered. Its sources are
/// linted. `--show-skipped` gives kustomize's message whole; `-q` the failure alone.
#[test]
fn an_overlay_that_does_not_build_is_one_line_with_its_cause() {
    let Some(fake) =
        FakeKustomize::new("an_overlay_that_does_not_build_is_one_line_with_its_cause")
    else {
        return;
    };
    let (stdout, stderr, _) = fake.run(&["lint", "-o", "json", "--no-cache", BROKEN]);
    assert_eq!(fake.builds().len(), 1, "{:?}", fake.builds());
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    let cause = lines[0]
        .strip_prefix(&format!(
            "taintlint: {BROKEN}/overlays/prod: generated-crds.yaml: "
        ))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        cause.ends_with(&format!("(in {BROKEN}/base)"))
            && !cause.contains("accumulat")
            && !cause.contains(ROOT)
            && lines[0].len() < 300,
        "{stderr}"
    );
    assert_eq!(
        lines[1],
        "taintlint: 1 of 1 kustomization not rendered (1 `kustomize build` failed): linting its \
         sources only; `--show-skipped` says why for each"
    );
    // The sources are linted: the base's DaemonSet is there.
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert!(json["diagnostics"].is_array(), "{stdout}");
    // Whole, with `--show-skipped`.
    let (_, stderr, _) = fake.run(&["lint", "--no-cache", "--show-skipped", BROKEN]);
    assert!(
        stderr.contains("accumulating resources from '../../base'"),
        "{stderr}"
    );
    // `-q`: the failure, nothing more.
    let (_, stderr, _) = fake.run(&["lint", "-q", "--no-cache", BROKEN]);
    assert_eq!(stderr, format!("{}\n", lines[0]));
}

/// A second run of an unchanged tree renders nothing (the renders are read from the cache) and
/// reports the same; a changed file renders again; a damaged entry is a miss; `--no-cache`
/// neither reads nor writes the cache.
#[test]
fn a_second_run_reads_the_renders_from_the_cache() {
    let Some(fake) = FakeKustomize::new("a_second_run_reads_the_renders_from_the_cache") else {
        return;
    };
    // A copy of the shop, to change a file of.
    let tree = tempfile::tempdir().unwrap();
    let shop = tree.path().join("shop");
    copy_dir(&Path::new(ROOT).join(SHOP), &shop);
    let cache = tempfile::tempdir().unwrap();
    let cache_dir = cache.path().join("cache");
    let shop_arg = shop.display().to_string();
    let cache_arg = cache_dir.display().to_string();
    let args = ["lint", "-o", "json", "--cache-dir", &cache_arg, &shop_arg];
    let (first, stderr, _) = fake.run(&args);
    assert_eq!(fake.builds().len(), 1, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(cache_dir.join(".gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
    let (second, _, _) = fake.run(&args);
    assert_eq!(fake.builds().len(), 1, "the second run rendered again");
    assert_eq!(first, second);
    assert_eq!(findings(&serde_json::from_str(&first).unwrap()).len(), 4);
    // A changed patch is a new key.
    let patch = shop.join("overlays/prod/web-tolerations.yaml");
    let text = std::fs::read_to_string(&patch).unwrap();
    std::fs::write(&patch, text.replace("NoSchedul", "NoExecut")).unwrap();
    let (third, _, _) = fake.run(&args);
    assert_eq!(fake.builds().len(), 2);
    assert!(third.contains("NoExecut"), "{third}");
    // Damaged entries are misses, not errors.
    for entry in std::fs::read_dir(cache_dir.join("renders")).unwrap() {
        std::fs::write(entry.unwrap().path(), "taintlint render cache 1\ngarbage").unwrap();
    }
    let (fourth, stderr, _) = fake.run(&args);
    assert_eq!(fake.builds().len(), 3, "{stderr}");
    assert_eq!(third, fourth);
    assert!(stderr.is_empty(), "{stderr}");
    // --no-cache renders, and leaves the cache as it was.
    let before: Vec<_> = std::fs::read_dir(cache_dir.join("renders"))
        .unwrap()
        .count()
        .to_string()
        .into_bytes();
    let (fifth, _, _) = fake.run(&[
        "lint",
        "-o",
        "json",
        "--no-cache",
        "--cache-dir",
        &cache_arg,
        &shop_arg,
    ]);
    assert_eq!(fake.builds().len(), 4);
    assert_eq!(fifth, fourth);
    let after: Vec<_> = std::fs::read_dir(cache_dir.join("renders"))
        .unwrap()
        .count()
        .to_string()
        .into_bytes();
    assert_eq!(before, after);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A Flux values file that a `configMapGenerator` makes a ConfigMap of is reported once, at
/// its own line, with its fix; a literal of the generator inside the kustomization's string;
/// nothing at the kustomization's start.
#[test]
fn a_generators_source_is_where_its_findings_go() {
    if renderer("a_generators_source_is_where_its_findings_go").is_none() {
        return;
    }
    let dir = "tests/fixtures/kustomize/values/apps/web";
    let (json, stderr, code) = lint(&["--format", "json", "--no-cache", dir], None);
    assert_eq!(code, 1, "{stderr}");
    let found = findings(&json);
    assert_eq!(
        found,
        [
            (
                format!("{dir}/kustomization.yaml"),
                14,
                71,
                "exists-with-value".to_string(),
                "ConfigMap web-values".to_string()
            ),
            (
                format!("{dir}/values.yaml"),
                7,
                11,
                "unknown-effect".to_string(),
                "- -".to_string()
            ),
        ],
        "{stderr}"
    );
    let values = &json["diagnostics"][1];
    assert_eq!(values["fixes"][0]["edits"][0]["replacement"], "NoSchedule");
    // The rendered ConfigMap's note says which overlay rendered it.
    let notes: Vec<&str> = values["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 1, "{values}");
    assert!(notes[0].starts_with(&format!("rendered by {dir} as ConfigMap web/web-values-")));
    // The literal's fix edits inside the string.
    let literal = &json["diagnostics"][0];
    assert!(!json.to_string().contains("no file here holds"));
    assert_eq!(literal["range"]["end"]["column"], 78);
}

/// A Job a JSON6902 patch renamed is found in its base under its base name.
#[test]
fn a_renamed_objects_findings_go_to_its_base() {
    if renderer("a_renamed_objects_findings_go_to_its_base").is_none() {
        return;
    }
    let (json, stderr, _) = lint(
        &[
            "--format",
            "json",
            "--no-cache",
            "tests/fixtures/kustomize/renamed/overlays/prod",
        ],
        None,
    );
    assert_eq!(
        findings(&json),
        [(
            "tests/fixtures/kustomize/renamed/base/migrate.yaml".to_string(),
            12,
            16,
            "exists-with-value".to_string(),
            "Job migrate".to_string()
        )],
        "{stderr}"
    );
    assert_eq!(
        json["diagnostics"][0]["related"][0]["message"],
        "rendered by tests/fixtures/kustomize/renamed/overlays/prod as Job schema-upgrade-v2"
    );
}

/// Overlays that could change no finding are not rendered: a walk of a tree whose only
/// kustomization lists the files as they are runs no kustomize, and `--show-skipped` says why.
#[test]
fn what_a_render_cannot_change_is_not_rendered() {
    let Some(fake) = FakeKustomize::new("what_a_render_cannot_change_is_not_rendered") else {
        return;
    };
    let (_, stderr, _) = fake.run(&[
        "lint",
        "-o",
        "json",
        "--no-cache",
        "--show-skipped",
        "tests/fixtures/kustomize/renamed/base",
    ]);
    assert!(fake.builds().is_empty(), "{:?}", fake.builds());
    assert!(
        stderr.contains(
            "tests/fixtures/kustomize/renamed/base: not rendered: changes no pod template, \
             toleration or taint: its files are linted as they are"
        ),
        "{stderr}"
    );
    // Not on a terminal: no progress line.
    let (_, stderr, _) = fake.run(&["lint", "-o", "json", "--no-cache", SHOP]);
    assert!(!stderr.contains("rendering overlays"), "{stderr}");
}

/// A CustomResourceDefinition whose schema describes tolerations and taints holds none: an
/// operator's install overlay whose only such words are in its definitions is not rendered
/// for `lint` (kubernetes-sigs/kueue's config/default, 2 MB of definitions, cost a first run
/// 18 times a run without rendering). With an inventory its Deployment's pod template matters.
#[test]
fn definitions_that_describe_tolerations_hold_none() {
    let Some(fake) = FakeKustomize::new("definitions_that_describe_tolerations_hold_none") else {
        return;
    };
    let overlay = "tests/fixtures/kustomize/definitions";
    let (_, stderr, status) = fake.run(&["lint", "--no-cache", "--show-skipped", overlay]);
    assert_eq!(status, 0, "{stderr}");
    assert!(fake.builds().is_empty(), "{:?}", fake.builds());
    assert!(
        stderr.contains(&format!(
            "{overlay}: not rendered: holds nothing a finding could be about"
        )),
        "{stderr}"
    );
    let (_, stderr, _) = fake.run(&[
        "lint",
        "--no-cache",
        "--inventory",
        "tests/fixtures/kustomize/shop-nodes.yaml",
        overlay,
    ]);
    assert_eq!(fake.builds().len(), 1, "{:?}\n{stderr}", fake.builds());
}

#[path = "support/client.rs"]
mod client;

/// Per file (its path from the repository's root), each finding as both faces give it.
type Findings = std::collections::BTreeMap<String, Vec<Finding>>;

/// Rule, range (0-based start line and column, end line and column), severity (LSP's
/// numbers), message, and the messages of its notes.
type Finding = (String, [u64; 4], u64, String, Vec<String>);

/// The fixtures' overlays in a repository of their own: the shop (a base, a component, an
/// overlay with patches), a renamed Job, a generator's values, a remote base, an overlay that
/// reads outside its folder, and the shop's node; `config` as its `.taintlint.yaml`.
fn overlay_repo(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(ROOT).join("tests/fixtures/kustomize");
    for name in ["shop", "renamed", "values", "remote", "outside"] {
        copy_dir(&fixtures.join(name), &dir.path().join(name));
    }
    std::fs::copy(
        fixtures.join("shop-nodes.yaml"),
        dir.path().join("shop-nodes.yaml"),
    )
    .unwrap();
    if let Some(config) = config {
        std::fs::write(dir.path().join(".taintlint.yaml"), config).unwrap();
    }
    dir
}

/// What `taintlint lint --format json .` reports in `dir`.
fn lint_findings(dir: &Path) -> (Findings, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .current_dir(dir)
        .args(["lint", "--format", "json", "."])
        .env_remove("TAINTLINT_CACHE_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json: Value = serde_json::from_slice(&out.stdout).expect(&stderr);
    let mut found = Findings::new();
    for d in json["diagnostics"].as_array().unwrap() {
        let at = |end: &str, key: &str| d["range"][end][key].as_u64().unwrap() - 1;
        let severity = match d["severity"].as_str().unwrap() {
            "error" => 1,
            "warning" => 2,
            "info" => 3,
            _ => 4,
        };
        let mut notes: Vec<String> = d["related"]
            .as_array()
            .unwrap()
            .iter()
            // lint of `.` names an overlay `./shop/overlays/prod`, the editor from the
            // workspace folder.
            .map(|r| r["message"].as_str().unwrap().replace(" by ./", " by "))
            .collect();
        notes.sort();
        let file = d["file"].as_str().unwrap();
        found
            .entry(file.trim_start_matches("./").to_string())
            .or_default()
            .push((
                d["rule"].as_str().unwrap().to_string(),
                [
                    at("start", "line"),
                    at("start", "column"),
                    at("end", "line"),
                    at("end", "column"),
                ],
                severity,
                d["message"].as_str().unwrap().to_string(),
                notes,
            ));
    }
    for v in found.values_mut() {
        v.sort();
    }
    (found, stderr)
}

fn file_uri(path: &Path) -> String {
    tower_lsp_server::ls_types::Uri::from_file_path(path)
        .unwrap()
        .as_str()
        .to_string()
}

/// The findings of LSP diagnostics, as [`lint_findings`] gives them (the texts here are ASCII:
/// columns are the same in every encoding).
fn lsp_findings(items: &Value) -> Vec<Finding> {
    let mut out: Vec<_> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let at = |end: &str, key: &str| d["range"][end][key].as_u64().unwrap();
            let mut notes: Vec<String> = d["relatedInformation"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| r["message"].as_str().unwrap().to_string())
                .collect();
            notes.sort();
            (
                d["code"].as_str().unwrap().to_string(),
                [
                    at("start", "line"),
                    at("start", "character"),
                    at("end", "line"),
                    at("end", "character"),
                ],
                d["severity"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
                notes,
            )
        })
        .collect();
    out.sort();
    out
}

/// What a `workspace/diagnostic` answer gives, by file from the root (files without findings
/// left out, as lint's JSON leaves them out).
fn pulled_findings(r: &Value, root: &Path) -> Findings {
    let root = format!("{}/", file_uri(root));
    r["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .filter(|i| !i["items"].as_array().unwrap().is_empty())
        .map(|i| {
            let uri = i["uri"].as_str().unwrap();
            let file = uri.strip_prefix(&root).unwrap_or(uri).to_string();
            (file, lsp_findings(&i["items"]))
        })
        .collect()
}

/// A server on `root`, once it has rendered the workspace's overlays (its log says so).
async fn server_on(root: &Path) -> client::Client {
    let mut c = client::Client::start(client::Client::test_config());
    c.initialize_in(Some(&file_uri(root)), client::pull_client(), json!({}))
        .await;
    c.workspace_read().await;
    rendered_log(&mut c).await;
    c
}

/// The server's next line saying it rendered the overlays.
async fn rendered_log(c: &mut client::Client) -> String {
    let m = c
        .notification_where(|m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("taintlint: overlays rendered"))
        })
        .await;
    m["params"]["message"].as_str().unwrap().to_string()
}

async fn pull(c: &mut client::Client, root: &Path) -> Findings {
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": []}))
        .await;
    pulled_findings(&r, root)
}

/// The language server makes lint's decision for every overlay and reports what lint reports:
/// without an inventory and with one (then every pod template counts, and workloads that fit
/// no node are found in the rendered overlays), the workspace's diagnostics equal `lint
/// --format json .` file by file: rule, range, severity, message and notes.
#[tokio::test]
async fn the_servers_workspace_diagnostics_are_lints_with_overlays_rendered() {
    if renderer("the_servers_workspace_diagnostics_are_lints_with_overlays_rendered").is_none() {
        return;
    }
    for config in [None, Some("inventory: shop-nodes.yaml\n")] {
        let repo = overlay_repo(config);
        let root = repo.path();
        let mut c = server_on(root).await;
        let served = pull(&mut c, root).await;
        let (linted, stderr) = lint_findings(root);
        assert_eq!(served, linted, "{config:?}: {stderr}");
        // Findings only the renders have: in the overlay's own kustomization, placed by the
        // render (with an inventory, naming the Job as the render names it: its inline patch
        // as written would name it `migrate`), and each noted as rendered.
        let notes = served
            .values()
            .flatten()
            .filter(|f| !f.4.is_empty())
            .count();
        assert!(notes >= 4, "{served:#?}");
        if config.is_some() {
            let kustomization = &served["shop/overlays/prod/kustomization.yaml"];
            assert!(
                kustomization.iter().any(|f| f.0 == "unschedulable"
                    && f.3.starts_with("Job shop/prod-migrate fits no node")),
                "{kustomization:?}"
            );
        }
        assert!(c.finish().await);
    }
}

/// An open document's diagnostics, pulled.
async fn document_diagnostics(c: &mut client::Client, uri: &str) -> Value {
    let r = c
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    r["result"]["items"].clone()
}

/// The rendered-only finding of the shop's component patch (its toleration, appended to the
/// base's list, tolerates no taint of the inventory), as a `workspace/diagnostic` answer has it.
fn unused_toleration(found: &Findings) -> Option<String> {
    found
        .get("shop/components/spot/agent-gpu.yaml")?
        .iter()
        .find(|f| f.0 == "toleration-unused")
        .map(|f| f.3.clone())
}

/// A base changed on disk is rendered again, and the overlay's rendered finding in a file that
/// did not change follows it (the component's toleration is appended after one more of the
/// base's); the other overlays keep their renders. An open file shows its rendered findings
/// while its text is the one they were placed in: an unsaved edit hides them, undoing it brings
/// them back.
#[tokio::test]
async fn a_base_changed_on_disk_renders_the_overlay_again() {
    if renderer("a_base_changed_on_disk_renders_the_overlay_again").is_none() {
        return;
    }
    let repo = overlay_repo(Some("inventory: shop-nodes.yaml\n"));
    let root = repo.path();
    let mut c = server_on(root).await;
    let found = pull(&mut c, root).await;
    assert_eq!(
        unused_toleration(&found).as_deref(),
        Some("tolerations[1] tolerates none of the taints on the inventory's 1 tainted node"),
        "{found:#?}"
    );

    // Open, as on disk: the rendered finding with its note at the overlay's kustomization.
    let patch = root.join("shop/components/spot/agent-gpu.yaml");
    let (uri, text) = (file_uri(&patch), common::read(&patch));
    c.open(&uri, &text).await;
    let items = document_diagnostics(&mut c, &uri).await;
    let unused = items
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "toleration-unused")
        .unwrap_or_else(|| panic!("{items}"));
    assert_eq!(
        unused["relatedInformation"][0]["location"]["uri"],
        file_uri(&root.join("shop/overlays/prod/kustomization.yaml"))
    );
    assert_eq!(
        unused["relatedInformation"][0]["message"],
        "rendered by shop/overlays/prod as DaemonSet shop/prod-agent"
    );
    // An edit not saved: the file's own findings only, until it is saved and rendered again.
    let edited = format!("# spot nodes\n{text}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    )
    .await;
    let codes = |items: &Value| -> Vec<String> {
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        codes(&document_diagnostics(&mut c, &uri).await),
        ["equal-empty-value"]
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": text}]}),
    )
    .await;
    assert_eq!(
        codes(&document_diagnostics(&mut c, &uri).await),
        // The rendered toleration's finding on the whole item, from its first key.
        ["toleration-unused", "equal-empty-value"]
    );
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    )
    .await;

    // The base gains a toleration: the component's is now the third.
    let agent = root.join("shop/base/agent.yaml");
    let base = common::read(&agent).replace(
        "        effect: noschedule\n",
        "        effect: noschedule\n      - key: shop.example.com/frontend\n        operator: Exists\n",
    );
    std::fs::write(&agent, base).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": file_uri(&agent), "type": 2}]}),
    )
    .await;
    let said = rendered_log(&mut c).await;
    // The shop's render again; the renamed Job's and the generator's as they were.
    assert!(
        said.contains("(3 renders, 2 unchanged since the last, 0 failed)"),
        "{said}"
    );
    let found = pull(&mut c, root).await;
    assert_eq!(
        unused_toleration(&found).as_deref(),
        Some("tolerations[2] tolerates none of the taints on the inventory's 1 tainted node"),
        "{found:#?}"
    );
    assert_eq!(found, lint_findings(root).0);
    assert!(c.finish().await);
}

/// A client that cannot watch files (Neovim 0.11 on Linux) gets the same: the server checks the
/// overlays' files now and then, renders again what changed on disk, and pushes the findings of
/// files that are not open.
#[tokio::test]
async fn a_client_that_cannot_watch_files_gets_the_overlay_rendered_again() {
    if renderer("a_client_that_cannot_watch_files_gets_the_overlay_rendered_again").is_none() {
        return;
    }
    let repo = overlay_repo(Some("inventory: shop-nodes.yaml\n"));
    let root = repo.path();
    let mut c = client::Client::start(client::Client::test_config());
    c.initialize_in(Some(&file_uri(root)), client::push_client(), json!({}))
        .await;
    let patch = file_uri(&root.join("shop/components/spot/agent-gpu.yaml"));
    let pushed = |said: &'static str| {
        let patch = patch.clone();
        move |m: &Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == patch.as_str()
                && m["params"]["diagnostics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|d| d["message"].as_str().unwrap().starts_with(said))
        }
    };
    c.notification_where(pushed("tolerations[1] tolerates none"))
        .await;
    let agent = root.join("shop/base/agent.yaml");
    let base = common::read(&agent).replace(
        "        effect: noschedule\n",
        "        effect: noschedule\n      - key: shop.example.com/frontend\n        operator: Exists\n",
    );
    std::fs::write(&agent, base).unwrap();
    c.notification_where(pushed("tolerations[2] tolerates none"))
        .await;
    assert!(c.finish().await);
}

/// What `lint --inventory` and `simulate` (overlays rendered, the example inventory) say of
/// `dir`: the workloads simulate reports (the file each is under, and which fit no node), and
/// lint's standard error and `unschedulable` findings, each workload by kind, namespace and
/// name. Panics, naming `dir`, where the two differ: the count of pod templates judged, or
/// which workloads fit no node.
fn judged_alike(
    dir: &Path,
) -> (
    Vec<String>,
    std::collections::BTreeSet<(String, String, String)>,
) {
    let inventory = Path::new(ROOT).join("examples/inventory/pools.yaml");
    let cache = tempfile::tempdir().unwrap();
    let run = |verb: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .current_dir(dir)
            .args([verb, "--format", "json", "--inventory"])
            .arg(&inventory)
            .arg(".")
            .env("TAINTLINT_CACHE_DIR", cache.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let json: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{verb} in {}: {stderr}", dir.display()));
        (json, stderr)
    };
    let (linted, said) = run("lint");
    let (simulated, _) = run("simulate");
    let object = |v: &Value| {
        (
            v["kind"].as_str().unwrap_or("-").to_string(),
            v["namespace"].as_str().unwrap_or("-").to_string(),
            v["name"].as_str().unwrap_or("-").to_string(),
        )
    };
    let workloads = simulated["workloads"].as_array().unwrap();
    let judged = match workloads.len() {
        0 => "no pod template found to judge".to_string(),
        1 => "judged 1 pod template against".to_string(),
        n => format!("judged {n} pod templates against"),
    };
    assert!(
        said.contains(&judged),
        "{}: simulate: {judged}; lint: {said}",
        dir.display()
    );
    // Fits no node: a DaemonSet that selects no node runs nowhere by design.
    let nowhere: std::collections::BTreeSet<_> = workloads
        .iter()
        .filter(|w| w["fits"] == "no" && w["daemonset"]["picked"] != 0)
        .map(object)
        .collect();
    let unschedulable: std::collections::BTreeSet<_> = linted["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "unschedulable")
        .map(|d| object(&d["object"]))
        .collect();
    assert_eq!(unschedulable, nowhere, "{}", dir.display());
    let files = workloads
        .iter()
        .map(|w| w["file"].as_str().unwrap().to_string())
        .collect();
    (files, nowhere)
}

/// With the overlays rendered, `lint --inventory` and `simulate` judge the same workloads alike
/// over the generated workspace: a kustomization's base and patch files are judged as the
/// overlay renders them (simulate simulates the render in their place; lint reports the
/// render's findings in those files, not the files' own of where their workloads run), and a
/// file beside a kustomization that it does not list is judged as it is by both.
#[test]
fn lint_and_simulate_judge_rendered_overlays_alike() {
    if renderer("lint_and_simulate_judge_rendered_overlays_alike").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    common::generated::workspace(dir.path(), 30);
    // Beside a kustomization, not listed by it: a Deployment pinned to a pool no node is in.
    std::fs::write(
        dir.path().join("kustomize/k-0/unlisted.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: unlisted, namespace: shop}\n\
         spec:\n  template:\n    spec:\n      nodeSelector: {example.com/pool: nowhere}\n      \
         containers: [{name: app, image: app}]\n",
    )
    .unwrap();
    let (files, nowhere) = judged_alike(dir.path());
    let rendered = files
        .iter()
        .filter(|f| f.starts_with("./kustomize/k-") && !f.ends_with(".yaml"))
        .count();
    assert_eq!(rendered, 30, "each overlay is simulated as rendered");
    let unlisted = ("Deployment".into(), "shop".into(), "unlisted".into());
    assert!(nowhere.contains(&unlisted));
    // Enough fit nowhere for the comparison to say something (on this workspace, eleven bases
    // as written fit nowhere while their overlays fit: the bases' own findings were false).
    assert!(nowhere.len() > 20, "{nowhere:?}");
}

/// The same over each of the nine public repositories of `../shared/corpora`, when they are
/// beside the checkout, with their overlays rendered.
#[test]
fn the_corpora_with_their_overlays_rendered_are_judged_alike() {
    if renderer("the_corpora_with_their_overlays_rendered_are_judged_alike").is_none() {
        return;
    }
    let Some(repos) = common::corpora() else {
        eprintln!("skipped: ../shared/corpora is not here");
        return;
    };
    let mut workloads = 0;
    for entry in std::fs::read_dir(&repos).unwrap() {
        let dir = entry.unwrap().path();
        // (Not a cache another run left there.)
        let hidden = dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if dir.is_dir() && !hidden {
            workloads += judged_alike(&dir).0.len();
        }
    }
    eprintln!("{workloads} workloads judged alike");
    // 201 in the nine as they are.
    assert!(workloads > 150, "only {workloads} workloads");
}

/// A file kustomize renders says so in the editor: its one lens names the overlay that places
/// its workloads (no lens says where its text as written would land, which no one applies),
/// and running it says why; a file no render reads keeps a lens per workload.
#[tokio::test]
async fn a_rendered_files_lens_names_the_overlay_that_places_it() {
    if renderer("a_rendered_files_lens_names_the_overlay_that_places_it").is_none() {
        return;
    }
    let repo = overlay_repo(Some("inventory: shop-nodes.yaml\n"));
    let root = repo.path();
    let mut c = server_on(root).await;
    let base = root.join("shop/base/migrate.yaml");
    let uri = file_uri(&base);
    c.open(&uri, &common::read(&base)).await;
    let found = lenses(&mut c, &uri).await;
    let shown = titles(&found);
    assert_eq!(shown, ["Placed as rendered by shop/overlays/prod"]);
    let r = c
        .request(
            "taintlint/placement",
            json!({"textDocument": {"uri": uri}, "position": found[0]["range"]["start"]}),
        )
        .await;
    let details = r["result"]["details"].as_str().unwrap().replace('\n', " ");
    assert!(
        details.starts_with("This file is applied as kustomize renders shop/overlays/prod"),
        "{details}"
    );
    // A file a render reads that holds no pod template (a kustomization) has no lens.
    let kustomization = root.join("shop/base/kustomization.yaml");
    let uri = file_uri(&kustomization);
    c.open(&uri, &common::read(&kustomization)).await;
    let found = lenses(&mut c, &uri).await;
    assert!(titles(&found).is_empty(), "{found}");
    // A Job no render reads (its overlay reads outside its folder: not rendered).
    let own = root.join("outside/shared/job.yaml");
    let uri = file_uri(&own);
    c.open(&uri, &common::read(&own)).await;
    let found = lenses(&mut c, &uri).await;
    let shown = titles(&found);
    assert_eq!(shown.len(), 1, "{shown:?}");
    // Its own lens: what the API server would say of the Job as written.
    assert!(
        shown[0].starts_with("rejected by the API server: unknown effect"),
        "{shown:?}"
    );
    assert!(c.finish().await);
}

/// The titles of lenses.
fn titles(lenses: &Value) -> Vec<&str> {
    lenses
        .as_array()
        .into_iter()
        .flatten()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect()
}

/// The lenses of an open document.
async fn lenses(c: &mut client::Client, uri: &str) -> Value {
    let r = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    r["result"].clone()
}

/// A pool file's unsaved edit says what it strands as `simulate` would: a workload an overlay
/// renders is judged as rendered (here its patch tolerates the new taint, which its base as
/// written does not), a file no render reads as it is.
#[tokio::test]
async fn an_unsaved_pool_edit_judges_rendered_workloads_as_rendered() {
    if renderer("an_unsaved_pool_edit_judges_rendered_workloads_as_rendered").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |name: &str, text: &str| {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {pool: general}}\n";
    write("nodes.yaml", node);
    write(".taintlint.yaml", "inventory: nodes.yaml\n");
    write(
        "app/base/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: \
         {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      \
         containers: [{name: web, image: web}]\n",
    );
    write("app/base/kustomization.yaml", "resources: [web.yaml]\n");
    write(
        "app/prod/kustomization.yaml",
        "resources: [../base]\nnamePrefix: prod-\npatches:\n- target: {kind: Deployment, name: web}\n  \
         patch: |\n    - op: add\n      path: /spec/template/spec/tolerations\n      value: \
         [{key: dedicated, operator: Exists, effect: NoSchedule}]\n",
    );
    write(
        "jobs/job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: report}\nspec:\n  template:\n    spec:\n      \
         restartPolicy: Never\n      containers: [{name: r, image: r}]\n",
    );
    let mut c = server_on(root).await;
    let uri = file_uri(&root.join("nodes.yaml"));
    c.open(&uri, node).await;
    let tainted = format!("{node}spec:\n  taints: [{{key: dedicated, effect: NoSchedule}}]\n");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": tainted}]}),
    )
    .await;
    let found = lenses(&mut c, &uri).await;
    assert_eq!(
        found[0]["command"]["title"], "unsaved edit: strands 1 workload",
        "{found}"
    );
    let r = c
        .request(
            "taintlint/placement",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    let details = r["result"]["details"].as_str().unwrap();
    assert!(details.contains("Job report (jobs/job.yaml)"), "{details}");
    assert!(!details.contains("Deployment"), "{details}");
    assert!(c.finish().await);
}
