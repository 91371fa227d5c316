//! README.md stays true: its rule table is the registry's.

#[test]
fn readme_rule_table_matches_the_registry() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("<!-- rules:start -->\n")
        .expect("README has a rules:start marker")
        + "<!-- rules:start -->\n".len();
    let end = readme
        .find("<!-- rules:end -->")
        .expect("README has a rules:end marker");
    let table = taintlint::rules::markdown_table();
    assert_eq!(
        &readme[start..end],
        table,
        "README's rule table is stale; replace it with the output of rules::markdown_table()"
    );
}

#[test]
fn readme_pool_file_example_loads() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("# examples/inventory/pools.yaml (abridged)\n")
        .expect("README shows a pool file");
    let end = start + readme[start..].find("```").unwrap();
    let text = &readme[start..end];
    let inventory = taintlint::inventory::Inventory::load(&[("README.md", text)]).unwrap();
    assert_eq!(inventory.node_count(), 5);
    assert_eq!(inventory.files[0].invalid_taints, 0);
    assert_eq!(taintlint::analyse(text, &taintlint::Options::default()), []);
}

/// The "Your cluster as code" section shows what the commands print.
#[test]
fn readme_cluster_as_code_outputs_are_true() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let block = |marker: &str| {
        let start = readme.find(marker).expect("README has the marker") + marker.len();
        let start = start + readme[start..].find("```\n").unwrap() + 4;
        let end = start + readme[start..].find("```").unwrap();
        readme[start..end].to_string()
    };
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(
        block("<!-- cluster-as-code:simulate -->"),
        run(&[
            "simulate",
            "--inventory",
            "examples/cluster-as-code/karpenter.yaml",
            "--inventory",
            "examples/cluster-as-code/node-pools.tf",
            "examples/gpu-training.yaml",
            "examples/web.yaml",
        ])
    );
    assert_eq!(
        block("<!-- cluster-as-code:lint -->"),
        run(&["lint", "tests/fixtures/iac/typos.tf"])
    );
}
