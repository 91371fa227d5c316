//! `.taintlint.yaml`: discovery, what each key does, `--select` / `--ignore` on top, errors
//! with their line and column, and the published JSON Schema agreeing with the parser.

mod common;

use common::{fixture, root, run, run_in, snapshots};
use serde_json::Value;
use taintlint::syntax::{self, Document, NodeId, NodeKind, Style};

const PROJECT: &str = "tests/fixtures/ci/project";
const CONFIGS: &str = "tests/fixtures/ci/config";

#[test]
fn a_project_is_linted_with_its_configuration() {
    let r = run(&["lint", "--format", "concise", PROJECT], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "taintlint: skipped 1 Go/Helm template file; `--show-skipped` lists it\n"
    );
    // `vendor` is excluded, the chart's templates/ are skipped and counted, its values file
    // is linted, `third-party/**` ignores unknown-operator, tolerates-everything is off and
    // duplicate-toleration is an error.
    snapshots().bind(|| insta::assert_snapshot!("project", r.stdout));
    assert!(!r.stdout.contains("vendor"));
    assert!(!r.stdout.contains("templates"));
    assert!(!r.stdout.contains("tolerates-everything"));
}

#[test]
fn the_configuration_is_found_from_a_path_below_it() {
    let r = run(
        &[
            "lint",
            "--format",
            "concise",
            &format!("{PROJECT}/manifests/app.yaml"),
        ],
        None,
    );
    assert_eq!(
        r.stdout,
        format!(
            "{PROJECT}/manifests/app.yaml:12:9: error[duplicate-toleration] duplicate of \
             tolerations[1]\n"
        )
    );
    // A file named on the command line is linted even where a walk would exclude it.
    let r = run(
        &[
            "lint",
            "--format",
            "concise",
            &format!("{PROJECT}/vendor/ingress/controller.yaml"),
        ],
        None,
    );
    assert!(r.stdout.contains("error[unknown-operator]"), "{}", r.stdout);
}

#[test]
fn force_exclude_skips_named_files_too() {
    let vendored = format!("{PROJECT}/vendor/ingress/controller.yaml");
    let template = format!("{PROJECT}/charts/web/templates/deployment.yaml");
    let app = format!("{PROJECT}/manifests/app.yaml");
    let r = run(
        &[
            "lint",
            "--force-exclude",
            "--format",
            "concise",
            &vendored,
            &template,
            &app,
        ],
        None,
    );
    assert_eq!(r.code, 1);
    assert!(r.stdout.starts_with(&format!("{app}:")), "{}", r.stdout);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    // Without it, a named template gets its one hint.
    let r = run(&["lint", "--format", "concise", &template], None);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("hint[helm-template]"), "{}", r.stdout);
}

#[test]
fn select_and_ignore_override_the_configuration() {
    let app = format!("{PROJECT}/manifests/app.yaml");
    // tolerates-everything is off in the configuration; --select turns it on, and only it.
    let r = run(
        &[
            "lint",
            "--format",
            "concise",
            "--select",
            "tolerates-everything",
            &app,
        ],
        None,
    );
    assert_eq!(
        r.stdout,
        format!(
            "{app}:9:19: warning[tolerates-everything] this toleration tolerates every taint: \
             cordoned, control-plane and NotReady nodes too\n"
        )
    );
    let r = run(
        &[
            "lint",
            "--format",
            "concise",
            "--ignore",
            "duplicate-toleration",
            &app,
        ],
        None,
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    // Unknown names are usage errors.
    let r = run(&["lint", "--select", "tolerate-everything", &app], None);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "taintlint: --select: unknown rule \"tolerate-everything\"; did you mean \
         \"tolerates-everything\"?\n"
    );
}

#[test]
fn an_explicit_configuration_replaces_discovery() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".taintlint.yaml"),
        "rules:\n  unknown-operator: off\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("other.yaml"),
        "rules:\n  unknown-operator: hint\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pod.yaml"),
        "tolerations:\n- key: k\n  operator: exists\n",
    )
    .unwrap();
    let found = run_in(
        dir.path(),
        &["lint", "--format", "concise", "pod.yaml"],
        None,
    );
    assert_eq!((found.code, found.stdout.as_str()), (0, ""));
    let explicit = run_in(
        dir.path(),
        &[
            "lint",
            "--format",
            "concise",
            "--config",
            "other.yaml",
            "pod.yaml",
        ],
        None,
    );
    assert!(
        explicit.stdout.contains(": hint[unknown-operator]"),
        "{}",
        explicit.stdout
    );
    // Standard input gets the configuration of the current directory.
    let stdin = run_in(
        dir.path(),
        &["lint", "--format", "concise", "-"],
        Some("tolerations:\n- key: k\n  operator: exists\n"),
    );
    assert_eq!((stdin.code, stdin.stdout.as_str()), (0, ""));
    // Command-line cluster settings apply on top of the file's.
    std::fs::write(
        dir.path().join("gates.yaml"),
        "feature-gates:\n  TaintTolerationComparisonOperators: true\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("lt.yaml"),
        "tolerations:\n- {key: k, operator: Lt, value: \"5\"}\n",
    )
    .unwrap();
    let on = run_in(
        dir.path(),
        &["lint", "--config", "gates.yaml", "lt.yaml"],
        None,
    );
    assert_eq!(on.code, 0, "{}", on.stdout);
    let off = run_in(
        dir.path(),
        &[
            "lint",
            "--config",
            "gates.yaml",
            "--feature-gates",
            "TaintTolerationComparisonOperators=false",
            "lt.yaml",
        ],
        None,
    );
    assert_eq!(off.code, 1, "{}", off.stdout);
}

#[test]
fn errors_name_the_key_and_the_line() {
    let r = run(
        &[
            "lint",
            "--config",
            &format!("{CONFIGS}/errors.taintlint.yaml"),
            "tests/fixtures/ci/lint/clean.yaml",
        ],
        None,
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stdout, "",
        "nothing is linted with a broken configuration"
    );
    snapshots().bind(|| insta::assert_snapshot!("config_errors", r.stderr));

    let r = run(&["lint", "--config", "no/such/file.yaml", "-"], Some(""));
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (2, "taintlint: no/such/file.yaml: no such file\n")
    );
}

/// A YAML file as JSON, the way a YAML 1.2 editor reads it (for the schema check).
fn to_json(doc: &Document<'_>, node: NodeId) -> Value {
    match &doc.node(doc.resolve(node)).kind {
        NodeKind::Scalar { value, style } => {
            if *style != Style::Plain {
                return Value::String(value.to_string());
            }
            match value.as_ref() {
                "" | "~" | "null" | "Null" | "NULL" => Value::Null,
                "true" | "True" | "TRUE" => Value::Bool(true),
                "false" | "False" | "FALSE" => Value::Bool(false),
                s => s
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or_else(|_| Value::String(s.to_string())),
            }
        }
        NodeKind::Sequence { items, .. } => items.iter().map(|&i| to_json(doc, i)).collect(),
        NodeKind::Mapping { entries, .. } => Value::Object(
            entries
                .iter()
                .map(|&(k, v)| {
                    let key = doc
                        .scalar(k)
                        .map(|(s, _)| s.to_string())
                        .unwrap_or_default();
                    (key, to_json(doc, v))
                })
                .collect(),
        ),
        _ => Value::Null,
    }
}

/// What a valid configuration file says (as JSON) is what its parsed configuration holds:
/// the inventory files, each rule's level, the feature gates and the admission plugins.
fn said_is_parsed(name: &str, said: &Value, config: &taintlint::config_file::ConfigFile) {
    let strings = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a.iter().map(|s| s.as_str().unwrap().to_string()).collect(),
            _ => Vec::new(),
        }
    };
    let inventory = strings(&said["inventory"]);
    assert_eq!(
        config.inventory.len(),
        inventory.len(),
        "{name}: {:?}",
        config.inventory
    );
    for (path, written) in config.inventory.iter().zip(&inventory) {
        assert!(
            path.ends_with(written),
            "{name}: {} for {written}",
            path.display()
        );
    }
    for (rule, level) in said["rules"].as_object().into_iter().flatten() {
        let meta = taintlint::rules::find(rule).unwrap();
        let level = taintlint::config::parse_level(level.as_str().unwrap()).unwrap();
        assert_eq!(config.options.rule_level(meta), level, "{name}: {rule}");
    }
    for (gate, on) in said["feature-gates"].as_object().into_iter().flatten() {
        assert_eq!(
            Some(config.options.feature(gate)),
            on.as_bool(),
            "{name}: {gate}"
        );
    }
    for (list, enabled) in [("enable", true), ("disable", false)] {
        for plugin in strings(&said["admission-plugins"][list]) {
            assert_eq!(
                config.options.admission_enabled(&plugin),
                enabled,
                "{name}: {plugin}"
            );
        }
    }
}

fn yaml_to_json(text: &str) -> Value {
    let stream = syntax::parse(text);
    match stream
        .documents
        .first()
        .and_then(|d| d.root.map(|r| (d, r)))
    {
        Some((doc, root)) => to_json(doc, root),
        None => Value::Null,
    }
}

#[test]
fn the_json_schema_agrees_with_the_parser() {
    let schema: Value = serde_json::from_str(&fixture("docs/taintlint.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let mut files: Vec<_> = std::fs::read_dir(root().join(CONFIGS))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.push(root().join(PROJECT).join(".taintlint.yaml"));
    files.sort();
    let mut checked = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let parsed = taintlint::config_file::parse(&text, path);
        let errors: Vec<String> = validator
            .iter_errors(&yaml_to_json(&text))
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        let name = path.file_name().unwrap().to_str().unwrap();
        if name.starts_with("errors") {
            assert!(parsed.is_err(), "{name}");
            // The schema sees what a schema can (unknown keys, rules, gates and plugins, wrong
            // types, bad severities), though not glob syntax.
            assert!(errors.len() >= 8, "{name}: {errors:#?}");
        } else {
            let config = parsed.unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert!(errors.is_empty(), "{name}: {errors:#?}");
            said_is_parsed(name, &yaml_to_json(&text), &config);
        }
        checked += 1;
    }
    assert!(checked >= 5);
}

#[test]
fn every_rule_and_key_is_in_the_schema() {
    let schema: Value = serde_json::from_str(&fixture("docs/taintlint.schema.json")).unwrap();
    let props = schema["properties"].as_object().unwrap();
    let keys: Vec<&str> = props.keys().map(String::as_str).collect();
    let mut expected = taintlint::config_file::KEYS.to_vec();
    expected.sort();
    let mut keys = keys;
    keys.sort();
    assert_eq!(keys, expected);
    for meta in taintlint::rules::all() {
        assert!(
            props["rules"]["properties"].get(meta.name).is_some(),
            "{} is not in the schema",
            meta.name
        );
    }
}

#[test]
fn the_manual_example_is_a_valid_configuration() {
    let section = fixture("docs/configuration.md");
    let start = section.find("```yaml\n").expect("an example") + "```yaml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let config = taintlint::config_file::parse(example, &root().join(".taintlint.yaml"))
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(!config.options.rule_enabled("tolerates-everything"));
    assert_eq!(config.inventory.len(), 1);
    assert_eq!(
        config.fail_on,
        Some(taintlint::diagnostic::Severity::Warning)
    );
}
