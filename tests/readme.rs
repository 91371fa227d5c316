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

/// Every command the README shows as `cargo run --release -- ARGS` followed by a block of its
/// output prints exactly that output (run from the repository root, without colour).
#[test]
fn readme_command_outputs_are_what_the_commands_print() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    const COMMAND: &str = "```sh\ncargo run --release -- ";
    let mut checked = 0;
    let mut rest = readme.as_str();
    while let Some(at) = rest.find(COMMAND) {
        rest = &rest[at + COMMAND.len()..];
        let line_end = rest.find('\n').unwrap();
        let args: Vec<&str> = rest[..line_end].split_whitespace().collect();
        let after = &rest[line_end + 1..];
        let Some(block) = after.strip_prefix("```\n\n```\n") else {
            continue; // a command shown without its output
        };
        let expected = &block[..block.find("```").unwrap()];
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .args(&args)
            .current_dir(root)
            .env("NO_COLOR", "1")
            .env_remove("COLUMNS")
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "README's output of `taintlint {}` is stale",
            args.join(" ")
        );
        checked += 1;
    }
    assert!(checked >= 2, "the README shows commands with their output");
}

/// The worked overlay example of "Rendered and embedded manifests" prints what the README shows
/// (its block is `text`, so the test above leaves it to this one: it needs kustomize or kubectl).
#[test]
fn readme_overlay_example_is_what_lint_prints() {
    #[path = "common/tools.rs"]
    mod tools;
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    const COMMAND: &str = "```sh\ncargo run --release -- lint docs/examples/kustomize/overlays/prod\n```\n\n```text\n";
    let at = readme
        .find(COMMAND)
        .expect("README shows the overlay example")
        + COMMAND.len();
    let expected = &readme[at..at + readme[at..].find("```").unwrap()];
    if tools::require(
        "readme_overlay_example_is_what_lint_prints",
        tools::on_path("kustomize").or_else(|_| tools::on_path("kubectl")),
        "https://kubernetes.io/docs/tasks/tools/ (kubectl carries kustomize)",
    )
    .is_none()
    {
        return;
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(["lint", "docs/examples/kustomize/overlays/prod"])
        .current_dir(root)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}
