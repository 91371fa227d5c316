//! One reading, three faces: the language server's `workspace/diagnostic` says, file by file,
//! what `lint --format json` says of the same folder (rule, range, severity, message), over
//! every example and fixture folder copied into one workspace, against an inventory.

#[path = "support/client.rs"]
mod client;
mod common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use client::{pull_client, Client};

/// The folders copied into the workspace, as they are in this repository.
const FOLDERS: &[&str] = &[
    "examples",
    "docs/examples",
    "tests/fixtures/rules",
    "tests/fixtures/embedded",
    "tests/fixtures/workloads",
];
const INVENTORY: &str = "examples/inventory/pools.yaml";

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// A finding as both faces can say it: rule, range (1-based line, 1-based column in
/// characters, for start and end), severity and message.
type Said = (String, [u64; 4], String, String);

/// What one face says, file by file.
type Sides = BTreeMap<String, Vec<Said>>;

fn severity(n: &Value) -> String {
    match n.as_u64() {
        Some(1) => "error",
        Some(2) => "warning",
        Some(3) => "info",
        _ => "hint",
    }
    .to_string()
}

/// A URI's path part with its `%XX` escapes decoded.
fn decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// A 0-based line and a column in UTF-8 bytes as a 1-based line and character column.
fn chars(text: &str, line: u64, byte: u64) -> [u64; 2] {
    let l = text.split('\n').nth(line as usize).unwrap_or("");
    let byte = (byte as usize).min(l.len());
    let col = l.get(..byte).map_or(byte, |s| s.chars().count());
    [line + 1, col as u64 + 1]
}

/// What `lint --format json --kustomize off --inventory INVENTORY .` and the server's
/// `workspace/diagnostic` (the same inventory in its settings) say of `root`, file by file.
async fn both_faces(root: &Path, inventory: &str) -> (Sides, Sides) {
    // lint of the same folder, rendering off as the server reads files as they are.
    let lint = common::run_in(
        root,
        &[
            "lint",
            "--format",
            "json",
            "--kustomize",
            "off",
            "--inventory",
            inventory,
            ".",
        ],
        None,
    );
    let lint: Value = serde_json::from_str(&lint.stdout).expect(&lint.stderr);
    let mut by_lint = Sides::new();
    for d in lint["diagnostics"].as_array().unwrap() {
        let file = d["file"]
            .as_str()
            .unwrap()
            .trim_start_matches("./")
            .to_string();
        let r = &d["range"];
        by_lint.entry(file).or_default().push((
            d["rule"].as_str().unwrap().to_string(),
            [
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["column"].as_u64().unwrap(),
                r["end"]["line"].as_u64().unwrap(),
                r["end"]["column"].as_u64().unwrap(),
            ],
            d["severity"].as_str().unwrap().to_string(),
            d["message"].as_str().unwrap().to_string(),
        ));
    }

    let mut c = Client::start(Client::test_config());
    let uri = tower_lsp_server::ls_types::Uri::from_file_path(root).unwrap();
    let r = c
        .initialize_in(
            Some(uri.as_str()),
            pull_client(),
            // Not rendered, as `lint --kustomize off` is not: a render would land in the
            // background, before or after the pull.
            json!({"inventory": [inventory], "kustomize": "off"}),
        )
        .await;
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(r["result"]["capabilities"]["positionEncoding"], "utf-8");
    c.workspace_read().await;
    let r = c
        .request("workspace/diagnostic", json!({"previousResultIds": []}))
        .await;
    let mut by_server = Sides::new();
    for item in r["result"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
    {
        let file = decoded(
            item["uri"]
                .as_str()
                .unwrap()
                .strip_prefix(&format!("{}/", uri.as_str()))
                .unwrap(),
        );
        let path = root.join(&file);
        let text = std::fs::read_to_string(&path).unwrap();
        for d in item["items"].as_array().unwrap() {
            let r = &d["range"];
            let [sl, sc] = chars(
                &text,
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["character"].as_u64().unwrap(),
            );
            let [el, ec] = chars(
                &text,
                r["end"]["line"].as_u64().unwrap(),
                r["end"]["character"].as_u64().unwrap(),
            );
            by_server.entry(file.clone()).or_default().push((
                d["code"].as_str().unwrap_or_default().to_string(),
                [sl, sc, el, ec],
                severity(&d["severity"]),
                d["message"].as_str().unwrap().to_string(),
            ));
        }
    }
    by_server.retain(|_, v| !v.is_empty());
    (by_lint, by_server)
}

/// Each finding one face says of a file and the other does not.
fn differences(by_lint: &Sides, by_server: &Sides) -> Vec<String> {
    let mut differences = Vec::new();
    let files: std::collections::BTreeSet<&String> =
        by_lint.keys().chain(by_server.keys()).collect();
    for file in files {
        let mut l = by_lint.get(file).cloned().unwrap_or_default();
        let mut s = by_server.get(file).cloned().unwrap_or_default();
        l.sort();
        s.sort();
        for d in l.iter().filter(|d| !s.contains(d)) {
            differences.push(format!("{file}: lint only: {d:?}"));
        }
        for d in s.iter().filter(|d| !l.contains(d)) {
            differences.push(format!("{file}: server only: {d:?}"));
        }
    }
    differences
}

#[tokio::test(flavor = "multi_thread")]
async fn workspace_diagnostics_say_what_lint_says() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    for folder in FOLDERS {
        copy(&common::root().join(folder), &root.join(folder));
    }
    let (by_lint, by_server) = both_faces(&root, INVENTORY).await;
    // A JSON6902 patch file of a Cluster API Cluster's topology taints: its kustomization's
    // target makes `propagation` a field of a MachineDeployment topology's taints, in both faces.
    let patch =
        "tests/fixtures/embedded/patch-files/cluster-topology/machinedeployment-taints.yaml";
    assert_eq!(by_server.get(patch), None, "{patch}");
    assert_eq!(by_lint.get(patch), None, "{patch}");
    let differences = differences(&by_lint, &by_server);
    let total: usize = by_lint.values().map(Vec::len).sum();
    assert!(total > 200, "only {total} findings");
    // Nothing is known to differ: a difference listed here would be one the server does not
    // read yet as lint reads it, to be taken off the list when it does.
    let known: [&str; 0] = [];
    let unexpected: Vec<&str> = differences
        .iter()
        .map(String::as_str)
        .filter(|d| !known.iter().any(|k| d.starts_with(k)))
        .collect();
    let gone: Vec<&&str> = known
        .iter()
        .filter(|k| !differences.iter().any(|d| d.starts_with(**k)))
        .collect();
    assert!(
        unexpected.is_empty() && gone.is_empty(),
        "differences not known:\n{}\nknown differences now gone (take them off the list): {gone:?}",
        unexpected.join("\n")
    );
}

/// The same comparison over the nine public repositories of `../shared/corpora`, when they are
/// beside the checkout (unpacked once into the tests' scratch folder, as `tests/equivalence.rs`
/// unpacks them); skipped, and said, when they are not.
/// Both faces over `root` with the example inventory, which must find more than `least`
/// findings and say each alike.
async fn alike(root: &Path, least: usize) {
    let inventory = common::root().join(INVENTORY);
    let (by_lint, by_server) = both_faces(root, inventory.to_str().unwrap()).await;
    let total: usize = by_lint.values().map(Vec::len).sum();
    eprintln!("{} files with findings, {total} findings", by_lint.len());
    assert!(total > least, "only {total} findings");
    let differences = differences(&by_lint, &by_server);
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn workspace_diagnostics_say_what_lint_says_on_the_corpora_when_present() {
    let Some(repos) = common::corpora() else {
        eprintln!("skipped: ../shared/corpora is not here");
        return;
    };
    alike(&repos, 50).await;
}

/// The same comparison over a generated workspace of a few hundred files of every shape pods
/// are deployed in (see `tests/common/generated.rs`).
#[tokio::test(flavor = "multi_thread")]
async fn workspace_diagnostics_say_what_lint_says_of_a_generated_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let files = common::generated::workspace(&root, 30);
    assert!(files > 300, "{files} files");
    alike(&root, 200).await;
}
