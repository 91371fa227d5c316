//! README.md and the manual's pages in docs/ stay true: every page is linked and every link
//! resolves, the pool file example loads, and every command shown with its output prints that
//! output (`TAINTLINT_BLESS=1` writes what they print, to be read before it is committed). (The
//! rule table, in docs/rules.md, is checked by tests/docs.rs.)

/// The pages a reader navigates: the README's front door and the manual under docs/.
const PAGES: &[&str] = &[
    "README.md",
    "docs/cli.md",
    "docs/configuration.md",
    "docs/ci.md",
    "docs/inventory.md",
    "docs/simulate.md",
    "docs/admission.md",
    "docs/cluster-as-code.md",
    "docs/editors.md",
    "docs/development.md",
];

fn page(name: &str) -> String {
    std::fs::read_to_string(format!("{}/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_manual_page_is_linked_from_the_readme_and_links_resolve() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = page("README.md");
    for name in &PAGES[1..] {
        assert!(
            readme.contains(&format!("]({name})")),
            "README.md does not link {name}"
        );
    }
    // Relative links (not URLs, not same-page anchors) name files that exist.
    for name in PAGES {
        let text = page(name);
        let dir = root.join(name).parent().unwrap().to_path_buf();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let target = &rest[..rest.find(')').unwrap()];
            if target.contains("://") || target.starts_with('#') {
                continue;
            }
            let file = target.split('#').next().unwrap();
            assert!(
                dir.join(file).exists(),
                "{name} links {target}, which does not exist"
            );
        }
    }
}

#[test]
fn readme_pool_file_example_loads() {
    let readme = page("docs/inventory.md");
    let start = readme
        .find("# examples/inventory/pools.yaml (abridged)\n")
        .expect("docs/inventory.md shows a pool file");
    let end = start + readme[start..].find("```").unwrap();
    let text = &readme[start..end];
    let inventory = taintlint::inventory::Inventory::load(&[("README.md", text)]).unwrap();
    assert_eq!(inventory.node_count(), 5);
    assert_eq!(inventory.files[0].invalid_taints, 0);
    assert_eq!(taintlint::analyse(text, &taintlint::Options::default()), []);
}

/// Every command the README and the manual show as `cargo run --release -- ARGS` followed by a
/// block of its output prints exactly that output (run from the repository root, without colour,
/// at the 80 columns of a terminal that is not one).
#[test]
fn readme_command_outputs_are_what_the_commands_print() {
    let root = env!("CARGO_MANIFEST_DIR");
    let bless = std::env::var_os("TAINTLINT_BLESS").is_some();
    let mut checked = 0;
    let mut in_readme = 0;
    let mut stale = Vec::new();
    for name in PAGES {
        let text = page(name);
        // With TAINTLINT_BLESS, the page with each output as the command prints it.
        let mut blessed = String::new();
        let mut copied = 0;
        const COMMAND: &str = "```sh\ncargo run --release -- ";
        let mut rest = text.as_str();
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
            let printed = String::from_utf8_lossy(&out.stdout);
            if printed != expected {
                stale.push(format!(
                    "{name}'s output of `taintlint {}` is stale:\n--- shown\n{expected}--- printed\n{printed}",
                    args.join(" ")
                ));
            }
            let start = text.len() - block.len();
            blessed.push_str(&text[copied..start]);
            blessed.push_str(&printed);
            copied = start + expected.len();
            checked += 1;
            if *name == "README.md" {
                in_readme += 1;
            }
        }
        blessed.push_str(&text[copied..]);
        if bless && blessed != text {
            std::fs::write(format!("{root}/{name}"), blessed).unwrap();
        }
    }
    assert!(
        bless || stale.is_empty(),
        "{}\n(`TAINTLINT_BLESS=1 cargo test --test readme` writes what the commands print)",
        stale.join("\n")
    );
    assert!(
        in_readme >= 2,
        "the README's tour shows commands with their output"
    );
    assert!(checked >= 10, "the manual shows commands with their output");
}

/// The worked overlay example of "Rendered and embedded manifests" prints what the README shows
/// (its block is `text`, so the test above leaves it to this one: it needs kustomize or kubectl).
#[test]
fn readme_overlay_example_is_what_lint_prints() {
    #[path = "common/tools.rs"]
    mod tools;
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/docs/cli.md")).unwrap();
    const COMMAND: &str = "```sh\ncargo run --release -- lint docs/examples/kustomize/overlays/prod\n```\n\n```text\n";
    let at = readme
        .find(COMMAND)
        .expect("docs/cli.md shows the overlay example")
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
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}
