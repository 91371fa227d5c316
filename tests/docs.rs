//! Generated documentation stays true: docs/rules.md is the rule registry's (with the one rule
//! table, which the README links), and docs/taintlint.schema.json is the configuration parser's
//! schema. Run with
//! `TAINTLINT_BLESS=1` to rewrite them after changing a rule or the configuration.

use std::path::Path;

fn check(relative: &str, generated: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if std::env::var_os("TAINTLINT_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, generated).unwrap();
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "{relative} is stale: run `TAINTLINT_BLESS=1 cargo test --test docs` to regenerate it"
    );
}

#[test]
fn rules_reference_matches_the_registry() {
    check("docs/rules.md", &taintlint::rules::markdown_docs());
}

/// The rule table is in docs/rules.md, where `TAINTLINT_BLESS=1` regenerates it; the README
/// links that page and keeps no copy of the table to go stale.
#[test]
fn the_rule_table_is_in_the_rules_reference_and_the_readme_links_it() {
    let read = |relative: &str| {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)).unwrap()
    };
    let table = taintlint::rules::markdown_table();
    assert!(
        read("docs/rules.md").contains(&table),
        "docs/rules.md lacks the rule table: run `TAINTLINT_BLESS=1 cargo test --test docs`"
    );
    let readme = read("README.md");
    assert!(
        readme.contains("](docs/rules.md)"),
        "README.md does not link docs/rules.md"
    );
    let header = table.lines().next().unwrap();
    assert!(
        !readme.contains(header) && !readme.contains("| `yaml-syntax` |"),
        "README.md holds a copy of the rule table; link docs/rules.md instead"
    );
}

#[test]
fn taint_key_catalog_page_matches_the_catalog() {
    check(
        "docs/taint-keys.md",
        &taintlint::k8s::well_known::catalog_markdown(),
    );
}

#[test]
fn configuration_schema_matches_the_parser() {
    let mut schema = serde_json::to_string_pretty(&taintlint::config_file::json_schema()).unwrap();
    schema.push('\n');
    check("docs/taintlint.schema.json", &schema);
}

#[test]
fn rules_reference_links_every_rule() {
    let docs = taintlint::rules::markdown_docs();
    for meta in taintlint::rules::all() {
        assert!(
            docs.contains(&format!("\n## `{}`\n", meta.name)),
            "{}",
            meta.name
        );
    }
}

#[test]
fn rules_command_prints_the_same_metadata() {
    let run = |format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .args(["rules", "--format", format])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(run("markdown"), taintlint::rules::markdown_docs());
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = taintlint::rules::all().map(|m| m.name).collect();
    assert_eq!(names, expected);
    let human = run("human");
    for name in expected {
        assert!(human.contains(name), "{name}");
    }
}
