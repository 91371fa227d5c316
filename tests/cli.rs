//! The `taintlint` binary: exit codes, I/O problems, standard input, directory walking, the
//! JSON contract of DESIGN.md, colour, `rules`, `explain`, and cluster options.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_taintlint");

const GOOD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  tolerations:\n  \
                    - key: dedicated\n    operator: Exists\n    effect: NoSchedule\n  \
                    containers:\n  - name: web\n    image: nginx\n";
const BAD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  \
                   tolerations:\n  - key: dedicated\n    operator: Exists\n    effect: \
                   noschedule\n  containers:\n  - name: web\n    image: nginx\n";
/// A warning and an info, but no error.
const WARN: &str =
    "kind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      \
                    tolerations:\n      - operator: Exists\n      - operator: Exists\n";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_with(args: &[&str], stdin: Option<&str>, env: &[(&str, &str)], cwd: Option<&Path>) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().expect("the binary runs");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).unwrap();
        }
    }
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    Run {
        code: status.code().expect("exited normally"),
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    run_with(args, None, &[], Some(dir))
}

fn dir_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    dir
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn exit_codes() {
    let dir = dir_with(&[
        ("good.yaml", GOOD.as_bytes()),
        ("bad.yaml", BAD.as_bytes()),
        ("warn.yaml", WARN.as_bytes()),
    ]);
    let r = run_in(dir.path(), &["lint", "good.yaml"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "No problems found in 1 file.\n");
    assert_eq!(r.stderr, "");

    let r = run_in(dir.path(), &["lint", "warn.yaml"]);
    assert_eq!(r.code, 0, "warnings alone do not fail: {}", r.stdout);
    assert!(r.stdout.contains("warning[tolerates-everything]"));

    let r = run_in(dir.path(), &["lint", "good.yaml", "bad.yaml"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("error[unknown-effect]"), "{}", r.stdout);
    assert!(r.stdout.contains("--> bad.yaml:10:13"), "{}", r.stdout);
    assert!(r
        .stdout
        .ends_with("Found 1 error, 0 warnings, 0 infos, 0 hints in 2 files.\n"));

    // Usage problems are 2 as well.
    assert_eq!(
        run_in(dir.path(), &["lint", "--format", "xml", "good.yaml"]).code,
        2
    );
    assert_eq!(run_in(dir.path(), &["frobnicate"]).code, 2);
}

#[test]
fn without_a_path_the_current_directory_is_linted() {
    let dir = dir_with(&[
        ("good.yaml", GOOD.as_bytes()),
        ("sub/bad.yaml", BAD.as_bytes()),
    ]);
    let r = run_in(dir.path(), &["lint", "--format", "concise"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .starts_with("./sub/bad.yaml:10:13: error[unknown-effect]"),
        "{}",
        r.stdout
    );
}

#[test]
fn finding_no_file_is_said_and_fails_when_a_path_was_named() {
    let dir = dir_with(&[("notes.txt", b"not a manifest")]);
    let said = "taintlint: no file to lint in . (files named *.yaml, *.yml or *.json, unless the \
                configuration says otherwise)\n";
    // Named explicitly: a wrong path in CI must not pass silently.
    let r = run_in(dir.path(), &["lint", "."]);
    assert_eq!((r.code, r.stderr.as_str()), (2, said));
    // The implicit `.`: said, but nothing was asked for that is missing.
    let r = run_in(dir.path(), &["lint"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, said));
}

#[test]
fn stdin_filename_names_standard_input_and_finds_its_configuration() {
    let dir = dir_with(&[
        (
            "team/.taintlint.yaml",
            b"rules:\n  unknown-effect: warning\n",
        ),
        ("other.yaml", GOOD.as_bytes()),
    ]);
    let r = run_with(
        &[
            "lint",
            "--format",
            "concise",
            "--stdin-filename",
            "team/pod.yaml",
            "-",
        ],
        Some(BAD),
        &[],
        Some(dir.path()),
    );
    assert!(
        r.stdout.starts_with(
            "team/pod.yaml:10:13: warning[unknown-effect] unknown effect `noschedule`"
        ),
        "{}",
        r.stdout
    );
    assert_eq!(r.code, 0, "the team's configuration made it a warning");
    // Without it, standard input is `-`, with the current directory's configuration.
    let r = run_with(
        &["lint", "--format", "concise", "-"],
        Some(BAD),
        &[],
        Some(dir.path()),
    );
    assert!(
        r.stdout.starts_with("-:10:13: error[unknown-effect]"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_missing_path_is_named_and_the_rest_is_reported() {
    let dir = dir_with(&[("bad.yaml", BAD.as_bytes()), ("good.yaml", GOOD.as_bytes())]);
    let r = run_in(
        dir.path(),
        &["lint", "bad.yaml", "nowhere.yaml", "good.yaml"],
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "taintlint: nowhere.yaml: no such file or directory\n"
    );
    assert!(r.stdout.contains("error[unknown-effect]"), "{}", r.stdout);
    assert!(r.stdout.contains("in 2 files."), "{}", r.stdout);

    // Exit 2 wins over 1 and 0, in JSON too.
    let r = run_in(
        dir.path(),
        &["lint", "--format", "json", "good.yaml", "missing/"],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("missing/"), "{}", r.stderr);
    assert_eq!(json(&r.stdout)["files"], 1);
}

#[test]
fn a_missing_path_alone_prints_nothing_on_standard_output() {
    let dir = dir_with(&[("good.yaml", GOOD.as_bytes())]);
    let r = run_in(dir.path(), &["lint", "nowhere.yaml"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "", "no \"No problems found in 0 files.\"");
    assert_eq!(
        r.stderr,
        "taintlint: nowhere.yaml: no such file or directory\n"
    );
    // Its SARIF run says so: not a clean scan.
    let r = run_in(dir.path(), &["lint", "-o", "sarif", "nowhere.yaml"]);
    assert_eq!(r.code, 2);
    let log = json(&r.stdout);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{invocation}");
    let notes = invocation["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["level"], "error");
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("nowhere.yaml"),
        "{invocation}"
    );
    // A run that read everything succeeded.
    let r = run_in(
        dir.path(),
        &["lint", "--output-format", "sarif", "good.yaml"],
    );
    assert_eq!(r.code, 0);
    let log = json(&r.stdout);
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );
    assert!(log["runs"][0]["invocations"][0]["toolExecutionNotifications"].is_null());
}

#[test]
fn output_format_has_ruffs_and_kubectls_names_and_keeps_format() {
    let dir = dir_with(&[("bad.yaml", BAD.as_bytes())]);
    let expected = "bad.yaml:10:13: error[unknown-effect]";
    for flag in ["--output-format", "-o", "--format"] {
        let r = run_in(dir.path(), &["lint", flag, "concise", "bad.yaml"]);
        assert!(r.stdout.starts_with(expected), "{flag}: {}", r.stdout);
        assert_eq!(r.code, 1);
    }
    // The other subcommands take the same names.
    for flag in ["--output-format", "-o", "--format"] {
        let r = run_in(dir.path(), &["rules", flag, "json"]);
        assert!(json(&r.stdout).is_array(), "rules {flag}");
    }
    std::fs::write(dir.path().join("pools.yaml"), "pools:\n  a: {count: 1}\n").unwrap();
    std::fs::write(dir.path().join("good.yaml"), GOOD).unwrap();
    for flag in ["--output-format", "-o", "--format"] {
        let r = run_in(
            dir.path(),
            &[
                "simulate",
                flag,
                "json",
                "--inventory",
                "pools.yaml",
                "good.yaml",
            ],
        );
        assert_eq!(json(&r.stdout)["cluster"]["nodes"], 1, "simulate {flag}");
    }
}

#[test]
fn exit_zero_and_fail_on_set_what_fails_the_run() {
    let dir = dir_with(&[
        ("bad.yaml", BAD.as_bytes()),
        ("warn.yaml", WARN.as_bytes()),
        ("good.yaml", GOOD.as_bytes()),
    ]);
    let code = |args: &[&str]| run_in(dir.path(), args).code;
    assert_eq!(code(&["lint", "--exit-zero", "bad.yaml"]), 0);
    // A path that cannot be read is still a failure.
    assert_eq!(
        code(&["lint", "--exit-zero", "bad.yaml", "nowhere.yaml"]),
        2
    );
    assert_eq!(code(&["lint", "warn.yaml"]), 0);
    assert_eq!(code(&["lint", "--fail-on", "warning", "warn.yaml"]), 1);
    assert_eq!(code(&["lint", "--fail-on", "warning", "good.yaml"]), 0);
    assert_eq!(code(&["lint", "--fail-on", "error", "warn.yaml"]), 0);
    assert_eq!(code(&["lint", "--fail-on", "fatal", "warn.yaml"]), 2);
    // warn.yaml has an info too: a duplicate toleration.
    let only_info = "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  \
                     tolerations:\n  - {key: a, operator: Exists}\n  - {key: a, operator: Exists}\n";
    std::fs::write(dir.path().join("info.yaml"), only_info).unwrap();
    assert_eq!(code(&["lint", "--fail-on", "warning", "info.yaml"]), 0);
    assert_eq!(code(&["lint", "--fail-on", "info", "info.yaml"]), 1);
    // The configuration's `fail-on`, which the flag overrides.
    std::fs::write(dir.path().join(".taintlint.yaml"), "fail-on: warning\n").unwrap();
    assert_eq!(code(&["lint", "warn.yaml"]), 1);
    assert_eq!(code(&["lint", "--fail-on", "error", "warn.yaml"]), 0);
    std::fs::write(dir.path().join(".taintlint.yaml"), "fail-on: sometimes\n").unwrap();
    let r = run_in(dir.path(), &["lint", "warn.yaml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("fail-on: invalid severity"),
        "{}",
        r.stderr
    );
}

#[test]
fn statistics_counts_findings_per_rule() {
    let dir = dir_with(&[("bad.yaml", BAD.as_bytes()), ("warn.yaml", WARN.as_bytes())]);
    let r = run_in(
        dir.path(),
        &["lint", "--statistics", "bad.yaml", "warn.yaml"],
    );
    assert_eq!(r.code, 1, "the exit status is the findings'");
    assert!(!r.stdout.contains("-->"), "no findings shown: {}", r.stdout);
    let rows: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(rows[0], "2  warning  tolerates-everything", "{}", r.stdout);
    assert!(
        rows.contains(&"1  error    unknown-effect        [*]"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .ends_with("Found 1 error, 2 warnings, 1 info, 0 hints in 2 files.\n"),
        "{}",
        r.stdout
    );
    let r = run_in(
        dir.path(),
        &[
            "lint",
            "--statistics",
            "-o",
            "json",
            "bad.yaml",
            "warn.yaml",
        ],
    );
    let counts = json(&r.stdout);
    let total: u64 = counts
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 4, "{counts}");
    let r = run_in(
        dir.path(),
        &["lint", "--statistics", "-o", "sarif", "bad.yaml"],
    );
    assert_eq!(r.code, 2);
}

#[test]
fn quiet_prints_the_findings_and_nothing_else() {
    let dir = dir_with(&[
        ("bad.yaml", BAD.as_bytes()),
        ("good.yaml", GOOD.as_bytes()),
        ("chart/Chart.yaml", b"name: c\n"),
        ("chart/templates/d.yaml", b"kind: Pod\n{{ .Values.x }}\n"),
    ]);
    let r = run_in(dir.path(), &["lint", "-q", "good.yaml"]);
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    let r = run_in(dir.path(), &["lint", "--quiet", "."]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("error[unknown-effect]"), "{}", r.stdout);
    assert!(!r.stdout.contains("Found"), "{}", r.stdout);
    assert_eq!(r.stderr, "", "no note about skipped templates");
    let r = run_in(dir.path(), &["lint", "."]);
    assert!(
        r.stderr.contains("skipped 1 Go/Helm template file"),
        "{}",
        r.stderr
    );
    // Machine formats stay whole.
    let r = run_in(dir.path(), &["lint", "-q", "-o", "json", "bad.yaml"]);
    assert_eq!(json(&r.stdout)["files"], 1);
}

#[test]
fn a_non_utf8_file_is_named_and_the_rest_is_reported() {
    let mut latin1 = b"kind: Pod\nmetadata:\n  name: caf".to_vec();
    latin1.push(0xe9); // 'é' in Latin-1
    latin1.extend_from_slice(b"\n");
    let dir = dir_with(&[("latin1.yaml", &latin1), ("bad.yaml", BAD.as_bytes())]);
    let r = run_in(dir.path(), &["lint", "latin1.yaml", "bad.yaml"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "taintlint: latin1.yaml: not UTF-8 text (invalid byte at offset 31); Kubernetes \
         manifests must be UTF-8\n"
    );
    assert!(r.stdout.contains("bad.yaml:10:13"), "{}", r.stdout);
    // Found while walking a directory, too.
    let r = run_in(dir.path(), &["lint", "."]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("latin1.yaml: not UTF-8"), "{}", r.stderr);
    assert!(r.stdout.contains("error[unknown-effect]"), "{}", r.stdout);
}

#[test]
fn standard_input() {
    let r = run_with(&["lint", "-"], Some(BAD), &[], None);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("--> -:10:13"), "{}", r.stdout);
    let r = run_with(&["lint", "--format", "json", "-"], Some(GOOD), &[], None);
    assert_eq!(r.code, 0);
    assert_eq!(json(&r.stdout)["files"], 1);
    let r = run_with(
        &["lint", "-"],
        Some("{ \u{fffd} ok: \"\u{1F680}\" }\n"),
        &[],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = run_with(&["lint", "-"], None, &[], None);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "No problems found in 1 file.\n")
    );
}

#[test]
fn directories_are_walked_in_order_honouring_gitignore() {
    let pod = |effect: &str| BAD.replace("noschedule", effect);
    let json_pod = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"},
  "spec": {"tolerations": [{"key": "a", "operator": "Exists", "effect": "nojson"}]}}
"#;
    let dir = dir_with(&[
        ("b.yaml", pod("nob").as_bytes()),
        ("a.yml", pod("noa").as_bytes()),
        ("sub/c.json", json_pod.as_bytes()),
        ("sub/deeper/d.yaml", pod("nod").as_bytes()),
        ("sub/notes.txt", pod("notxt").as_bytes()),
        ("sub/README.md", b"kind: Pod\n"),
        ("ignored.yaml", pod("noignored").as_bytes()),
        ("build/out.yaml", pod("nobuild").as_bytes()),
        ("sub/.gitignore", b"deeper/skip.yaml\n"),
        ("sub/deeper/skip.yaml", pod("noskip").as_bytes()),
        (".gitignore", b"ignored.yaml\nbuild/\n"),
        (".hidden/h.yaml", pod("nohidden").as_bytes()),
    ]);
    let r = run_in(dir.path(), &["lint", "--format", "json", "."]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let out = json(&r.stdout);
    let files: Vec<&str> = out["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        ["./a.yml", "./b.yaml", "./sub/c.json", "./sub/deeper/d.yaml"]
    );
    assert_eq!(out["files"], 4);
    // The JSON file is linted as what it is: YAML's flow style.
    let c = &out["diagnostics"][2];
    assert_eq!(c["rule"], "unknown-effect");
    assert_eq!(c["range"]["start"]["line"], 2);
    // A directory given as a path keeps its spelling; an explicit file is linted whatever its
    // name, and explicit arguments keep their order.
    let r = run_in(
        dir.path(),
        &["lint", "--format", "json", "sub", "ignored.yaml", "a.yml"],
    );
    let out = json(&r.stdout);
    let files: Vec<&str> = out["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        ["sub/c.json", "sub/deeper/d.yaml", "ignored.yaml", "a.yml"]
    );
    // The same run twice gives the same bytes (parallel linting, stable order).
    let again = run_in(
        dir.path(),
        &["lint", "--format", "json", "sub", "ignored.yaml", "a.yml"],
    );
    assert_eq!(r.stdout, again.stdout);
}

#[test]
fn json_output_follows_the_contract() {
    let dir = dir_with(&[
        ("bad.yaml", BAD.as_bytes()),
        ("warn.yaml", WARN.as_bytes()),
        ("good.yaml", GOOD.as_bytes()),
    ]);
    let r = run_in(
        dir.path(),
        &[
            "lint",
            "--format",
            "json",
            "bad.yaml",
            "warn.yaml",
            "good.yaml",
        ],
    );
    assert_eq!(r.code, 1);
    let out = json(&r.stdout);
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&out), ["diagnostics", "files", "summary", "version"]);
    assert_eq!(out["version"], 1);
    assert_eq!(out["files"], 3);
    assert_eq!(
        out["summary"],
        serde_json::json!({"error": 1, "warning": 2, "info": 1, "hint": 0})
    );
    let diagnostics = out["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 4);
    for d in diagnostics {
        let k = keys(d);
        for field in [
            "file",
            "rule",
            "severity",
            "message",
            "server_message",
            "range",
            "document",
            "path",
            "object",
            "related",
        ] {
            assert!(k.contains(&field.to_string()), "{field} missing in {d}");
        }
        for end in ["start", "end"] {
            assert!(d["range"][end]["line"].as_u64().unwrap() >= 1);
            assert!(d["range"][end]["column"].as_u64().unwrap() >= 1);
        }
        assert_eq!(keys(&d["object"]), ["kind", "name", "namespace"]);
        assert!(["error", "warning", "info", "hint"].contains(&d["severity"].as_str().unwrap()));
        for rel in d["related"].as_array().unwrap() {
            assert_eq!(keys(rel), ["file", "message", "range"]);
        }
    }
    let e = &diagnostics[0];
    assert_eq!(e["file"], "bad.yaml");
    assert_eq!(e["rule"], "unknown-effect");
    assert_eq!(e["severity"], "error");
    assert_eq!(
        e["message"],
        "unknown effect `noschedule`; did you mean `NoSchedule`? (effects are case-sensitive)"
    );
    assert_eq!(
        e["server_message"],
        "spec.tolerations[0].effect: Unsupported value: \"noschedule\": supported values: \
         \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""
    );
    assert_eq!(
        e["range"],
        serde_json::json!({"start": {"line": 10, "column": 13}, "end": {"line": 10, "column": 23}})
    );
    assert_eq!(e["document"], 0);
    assert_eq!(e["path"], "spec.tolerations[0].effect");
    assert_eq!(
        e["object"],
        serde_json::json!({"kind": "Pod", "name": "web", "namespace": "shop"})
    );
    assert_eq!(e["related"], serde_json::json!([]));
    assert_eq!(e["fixes"][0]["applicability"], "safe");
    assert_eq!(e["fixes"][0]["edits"][0]["replacement"], "NoSchedule");
    // The duplicate points back at the first one, in the same file; null where absent.
    let info = diagnostics
        .iter()
        .find(|d| d["severity"] == "info")
        .unwrap();
    assert_eq!(info["related"][0]["file"], "warn.yaml");
    assert_eq!(info["related"][0]["message"], "first occurrence");
    assert_eq!(info["object"]["namespace"], Value::Null);
    assert_eq!(info["object"]["kind"], "Deployment");

    // A syntax error has no path and no object.
    let r = run_with(
        &["lint", "--format", "json", "-"],
        Some("kind: Pod\nspec: [\n"),
        &[],
        None,
    );
    let out = json(&r.stdout);
    let d = &out["diagnostics"][0];
    assert_eq!(d["rule"], "yaml-syntax");
    assert_eq!(d["path"], Value::Null);
    assert_eq!(
        d["object"],
        serde_json::json!({"kind": null, "name": null, "namespace": null})
    );
}

#[test]
fn colour() {
    let dir = dir_with(&[("bad.yaml", BAD.as_bytes())]);
    let escape = "\u{1b}[";
    let always = run_in(dir.path(), &["lint", "--color", "always", "bad.yaml"]);
    assert!(always.stdout.contains(escape), "--color always colours");
    let never = run_in(dir.path(), &["lint", "--color", "never", "bad.yaml"]);
    assert!(!never.stdout.contains(escape));
    let no_color = run_with(
        &["lint", "bad.yaml"],
        None,
        &[("NO_COLOR", "1")],
        Some(dir.path()),
    );
    assert!(!no_color.stdout.contains(escape));
    // Not a terminal: no colour by default either; and the text is the same without it.
    let auto = run_in(dir.path(), &["lint", "bad.yaml"]);
    assert!(!auto.stdout.contains(escape));
    assert_eq!(auto.stdout, never.stdout);
    assert_eq!(auto.stdout, no_color.stdout);
    let json = run_in(
        dir.path(),
        &["lint", "--color", "always", "--format", "json", "bad.yaml"],
    );
    assert!(!json.stdout.contains(escape), "JSON is never coloured");
}

#[test]
fn rules_lists_every_rule() {
    // Wide enough for one line a rule (at 80 columns the summaries go under the rules).
    let r = run_with(&["rules"], None, &[("COLUMNS", "1000")], None);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("RULE"));
    let names: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let all: Vec<&str> = taintlint::rules::all().map(|m| m.name).collect();
    assert_eq!(names, all);
    for m in taintlint::rules::all() {
        let line = lines
            .iter()
            .find(|l| l.starts_with(&format!("{} ", m.name)))
            .unwrap();
        assert!(line.contains(m.severity.as_str()), "{line}");
        assert!(line.ends_with(m.summary), "{line}");
    }
}

#[test]
fn explain() {
    let r = run_with(&["explain", "unknown-effect"], None, &[], None);
    assert_eq!(r.code, 0);
    let meta = taintlint::rules::find("unknown-effect").unwrap();
    assert!(
        r.stdout.starts_with("unknown-effect (error)\n\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(meta.summary));
    assert!(r.stdout.contains(meta.explanation));
    assert!(r.stdout.contains("## What it catches"));

    // A near miss gets a suggestion; a name like no rule gets the list.
    let r = run_with(&["explain", "unknown-efect"], None, &[], None);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "taintlint: no rule named \"unknown-efect\"; did you mean `unknown-effect`? \
         (`taintlint rules` lists them all)\n"
    );
    // A word of a rule's name, misspelt, finds the rule too.
    let r = run_with(&["explain", "efect"], None, &[], None);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "taintlint: no rule named \"efect\"; did you mean `unknown-effect`? \
         (`taintlint rules` lists them all)\n"
    );
    let r = run_with(&["explain", "frobnication"], None, &[], None);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .starts_with("taintlint: no rule named \"frobnication\"; the rules are: yaml-syntax,"),
        "{}",
        r.stderr
    );
    for m in taintlint::rules::all() {
        assert!(r.stderr.contains(m.name));
    }
}

#[test]
fn bad_cluster_options_are_usage_errors() {
    let dir = dir_with(&[("good.yaml", GOOD.as_bytes())]);
    let r = run_in(
        dir.path(),
        &["lint", "--feature-gates", "Bogus=true", "good.yaml"],
    );
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "", "nothing is linted with a bad option");
    assert_eq!(
        r.stderr,
        "taintlint: --feature-gates: unrecognized feature gate: Bogus (taintlint knows: \
         TaintTolerationComparisonOperators)\n"
    );
    let r = run_in(
        dir.path(),
        &[
            "lint",
            "--feature-gates",
            "TaintTolerationComparisonOperators=maybe",
            "good.yaml",
        ],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("maybe"), "{}", r.stderr);
    let r = run_in(
        dir.path(),
        &["lint", "--enable-admission-plugins", "Nope", "good.yaml"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with(
            "taintlint: --enable-admission-plugins: admission plugin \"Nope\" is unknown to \
             kube-apiserver (known: AlwaysAdmit,"
        ),
        "{}",
        r.stderr
    );
    let r = run_in(
        dir.path(),
        &["lint", "--disable-admission-plugins", "Nope", "good.yaml"],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("\"Nope\""), "{}", r.stderr);
    // Known names are accepted.
    let r = run_in(
        dir.path(),
        &[
            "lint",
            "--enable-admission-plugins",
            "ExtendedResourceToleration,PodTolerationRestriction",
            "--disable-admission-plugins",
            "DefaultTolerationSeconds",
            "good.yaml",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn comparison_operators_feature_gate() {
    let lt = |value: &str| {
        format!(
            "kind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  - key: \
             example.com/generation\n    operator: Lt\n    value: {value}\n    effect: \
             NoSchedule\n"
        )
    };
    let gate = "TaintTolerationComparisonOperators=true";
    let r = run_with(
        &["lint", "--feature-gates", gate, "-"],
        Some(&lt("\"5\"")),
        &[],
        None,
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "No problems found in 1 file.\n")
    );
    // Wide enough that the note is one line.
    let r = run_with(
        &["lint", "--feature-gates", gate, "-"],
        Some(&lt("\"05\"")),
        &[("COLUMNS", "1000")],
        None,
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains(
            "error[invalid-value]: value `05` is not an integer, which operator Lt compares"
        ) && r.stdout.contains(
            "the API server says: spec.tolerations[0].value: Invalid value: \"05\": value \
             must be a valid integer for numeric operators"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("--> -:8:12"), "{}", r.stdout);
    // Without the gate, Lt itself is refused.
    let r = run_with(&["lint", "-"], Some(&lt("\"5\"")), &[], None);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("error[unknown-operator]"), "{}", r.stdout);
    // Gates can be switched off again, later settings winning, as kube-apiserver does.
    let off = format!("{gate},TaintTolerationComparisonOperators=false");
    let r = run_with(
        &["lint", "--feature-gates", &off, "-"],
        Some(&lt("\"5\"")),
        &[],
        None,
    );
    assert_eq!(r.code, 1);
}

#[test]
fn server_accepts_the_stdio_flag_that_clients_pass() {
    // No input at all: the server sees the connection close without `shutdown` (status 1),
    // which is not a usage error (status 2).
    for args in [&["server"][..], &["server", "--stdio"][..]] {
        let r = run_with(args, Some(""), &[], None);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("unexpected argument"), "{}", r.stderr);
    }
}
