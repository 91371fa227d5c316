//! The YAML examples of the Kubernetes "Taints and Tolerations" concept page, which presents
//! them all as valid: taintlint finds no error in any of them. Whatever it does say is
//! snapshotted.

mod common;

use taintlint::report::human;
use taintlint::Severity;

#[test]
fn docs_examples_have_no_error() {
    let mut seen = 0;
    common::snapshot_settings().bind(|| {
        insta::glob!("fixtures/upstream-docs", "*.yaml", |path| {
            seen += 1;
            let report = common::reports(path).remove(0);
            let errors: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            assert!(errors.is_empty(), "{}: {errors:#?}", report.path);
            insta::assert_snapshot!("docs", human::render(&[report], false));
        });
    });
    assert_eq!(seen, 6);
}

/// The examples are really linted: breaking each one's effect is an error at that effect.
#[test]
fn docs_examples_are_linted() {
    let dir = common::root().join("tests/fixtures/upstream-docs");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = common::read(&path);
        let broken = text.replacen("effect: \"No", "effect: \"no", 1);
        assert_ne!(broken, text, "{}", path.display());
        let found = common::lint(&broken);
        let d = found
            .iter()
            .find(|d| d.rule == "unknown-effect")
            .unwrap_or_else(|| panic!("{}: {found:#?}", path.display()));
        assert!(broken[d.range.clone()].starts_with("\"no"));
    }
}
