//! VS Code (code-server on 127.0.0.1, in headless Chromium driven by playwright-core) with the
//! extension from editors/vscode packaged by `npm run package` into this platform's .vsix, which
//! carries the release `taintlint`, installed where `taintlint` is not on `PATH` and no
//! `taintlint.path` is set: the Problems panel lists what `taintlint lint` reports, at the same
//! `[Ln, Col]` (VS Code counts UTF-16 units), each row readable whole, the hovers explain and a
//! finding's fits without scrolling (photographed, cut to the hover), the code lenses and inlay hints
//! say what the core says about the inventory, a lens opens the workload's placement, a
//! `taintlint.path` replaces the bundled server, and a wrong one gives a clear message.
//! Screenshots land in target/e2e/vscode/ (with `TAINTLINT_BLESS=1`, the ones the READMEs show
//! are copied to editors/vscode/images/). Needs the tools of scripts/install-editor-test-deps.sh.

mod common;
mod editor_support;

use std::path::{Path, PathBuf};
use std::time::Instant;
use taintlint::analysis::{check, Ask};

use editor_support::*;
use serde_json::Value;

const FIXTURE: &str = "tests/e2e/fixtures/workload.yaml";
/// A manifest of workloads that land differently on the inventory: lenses and hints.
const CLUSTER_MANIFEST: &str = "examples/inference.yaml";
/// The inventory the workspace settings name (`taintlint.inventory`).
const INVENTORY: &str = "examples/inventory/pools.yaml";
/// A Karpenter NodePool without taints, added to the inventory during the session and given
/// [`NODEPOOL_TAINT`] in the editor (unsaved), and a workload on its nodes that is never opened.
const NODEPOOL: &str = "tests/e2e/fixtures/nodepool.yaml";
const UNOPENED: &str = "tests/e2e/fixtures/nightly-report.yaml";
const NODEPOOL_TAINT: &str = "{key: example.com/dedicated, value: ml, effect: NoSchedule}";
const HOVER_RULE: &str = "toleration-seconds-requires-no-execute";
const HOVER_TOLERATION: &str = "key: node.kubernetes.io/unreachable";
/// A warning in the fixture that the test makes an error through the user settings.
const SEVERITY_RULE: &str = "tolerates-everything";

struct Tools {
    node: PathBuf,
    chromium: PathBuf,
}

fn tools() -> Result<Tools, String> {
    let home = e2e_home();
    executable(&home.join("code-server/node_modules/.bin/code-server"))
        .map_err(|e| format!("code-server is not installed ({e})"))?;
    let playwright = home.join("playwright/node_modules/playwright-core/package.json");
    if !playwright.exists() {
        return Err(format!(
            "playwright-core is not installed ({} is missing)",
            playwright.display()
        ));
    }
    // `$TAINTLINT_CHROMIUM`, as the driver reads it, or Debian's `chromium` on PATH.
    let chromium = match std::env::var_os("TAINTLINT_CHROMIUM") {
        Some(path) if !path.is_empty() => executable(Path::new(&path)),
        _ => on_path("chromium"),
    }
    .map_err(|e| format!("Chromium is not installed ({e})"))?;
    let ext = repo().join("editors/vscode/node_modules/.bin/vsce");
    executable(&ext)
        .map_err(|e| format!("the VS Code extension's npm dependencies are not installed ({e})"))?;
    let node = on_path("node")?;
    Ok(Tools { node, chromium })
}

/// A PNG's width and height, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[1..4], b"PNG", "{} is not a PNG", path.display());
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

fn problems(result: &Value) -> Vec<(u64, u64, String)> {
    let mut list: Vec<(u64, u64, String)> = result["problems"]
        .as_array()
        .expect("the Problems panel was read")
        .iter()
        .map(|p| {
            (
                p["line"].as_u64().unwrap(),
                p["column"].as_u64().unwrap(),
                p["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    list.sort();
    list
}

#[test]
fn vscode_shows_taintlint_problems_and_hovers() {
    let Some(tools) = require("editors_vscode", tools()) else {
        return;
    };
    let dir = artifacts("vscode");
    let driver = repo().join("tests/e2e/vscode/drive.js");
    let started = Instant::now();
    let output = loopback_only(&tools.node, &[driver.to_str().unwrap()])
        .current_dir(repo())
        .env("TAINTLINT_BIN", server_bin())
        .env("TAINTLINT_E2E_HOME", e2e_home())
        .env("TAINTLINT_CHROMIUM", &tools.chromium)
        .env("TAINTLINT_E2E_ARTIFACTS", &dir)
        .env("TAINTLINT_E2E_FIXTURE", repo().join(FIXTURE))
        .env(
            "TAINTLINT_E2E_CLUSTER_MANIFEST",
            repo().join(CLUSTER_MANIFEST),
        )
        .env("TAINTLINT_E2E_INVENTORY", repo().join(INVENTORY))
        .env("TAINTLINT_E2E_NODEPOOL", repo().join(NODEPOOL))
        .env("TAINTLINT_E2E_UNOPENED", repo().join(UNOPENED))
        .env("TAINTLINT_E2E_NODEPOOL_TAINT", NODEPOOL_TAINT)
        .env("TAINTLINT_VSCODE_EXTENSION", repo().join("editors/vscode"))
        .env("TAINTLINT_E2E_HOVER_RULE", HOVER_RULE)
        .env("TAINTLINT_E2E_HOVER_TOLERATION", HOVER_TOLERATION)
        .env("TAINTLINT_E2E_SEVERITY_RULE", SEVERITY_RULE)
        .output()
        .expect("run the VS Code driver");
    eprintln!("vscode session: {:.1} s", started.elapsed().as_secs_f64());
    let result_file = dir.join("result.json");
    let result = if result_file.exists() {
        read_json(&result_file)
    } else {
        Value::Null
    };
    assert!(
        output.status.success() && result.get("error").is_none(),
        "the VS Code session failed: {}\nstatus: {}\ndriver log:\n{}\nScreenshots and the extension host's logs are in {}",
        result.get("error").and_then(Value::as_str).unwrap_or("(no result)"),
        output.status,
        String::from_utf8_lossy(&output.stderr),
        dir.display()
    );

    // `npm run package` wrote this platform's package, which is what got installed, with its
    // binary; code-server had no taintlint on PATH and no taintlint.path, so the server that
    // answered everything below is the one the package carries.
    let version = read_json(&repo().join("editors/vscode/package.json"))["version"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        result["packages"],
        serde_json::json!([format!("taintlint-linux-x64-{version}.vsix")])
    );
    assert_eq!(
        result["installed"],
        serde_json::json!([format!("taintlint.taintlint-{version}")])
    );
    assert_eq!(
        result["installed_platforms"],
        serde_json::json!([format!("taintlint.taintlint-{version}:linux-x64")])
    );
    assert_eq!(result["bundled"].as_array().unwrap().len(), 1, "{result}");
    assert_eq!(result["path_without_taintlint"], true);
    // Then `taintlint.path` comes first: the server restarts from there; when it names a
    // missing file, no server starts.
    assert_eq!(
        result["server_commands"],
        serde_json::json!([
            format!("extensions/taintlint.taintlint-{version}/bin/taintlint"),
            server_bin().to_str().unwrap()
        ])
    );

    // The Problems panel: every diagnostic of the CLI with the same inventory, at [Ln, Col] in
    // UTF-16 units, 1-based.
    let fixture = std::fs::read_to_string(repo().join(FIXTURE)).unwrap();
    let inventory_path = repo().join(INVENTORY);
    let cli = lint(&fixture, &["--inventory", inventory_path.to_str().unwrap()]);
    assert!(
        cli.iter().any(|e| e.rule == "toleration-unused"),
        "the inventory adds findings: {cli:?}"
    );
    let mut want: Vec<(u64, u64, String)> = cli
        .iter()
        .map(|e| {
            (
                e.line as u64,
                offset(line_of(&fixture, e.line), e.column, "utf-16") as u64 + 1,
                e.rule.clone(),
            )
        })
        .collect();
    want.sort();
    assert_eq!(problems(&result), want, "Problems panel");
    // Each row shows the CLI's message and the source.
    for e in &cli {
        let row = result["problems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["code"] == e.rule.as_str())
            .unwrap();
        let text = row["text"].as_str().unwrap();
        // The row's accessible label has the message with its spacing intact.
        let aria = row["aria"].as_str().unwrap();
        assert!(
            aria.contains(&e.message) && aria.contains("taintlint"),
            "row {aria:?} lacks {:?}",
            e.message
        );
        assert_eq!(row["severity"], e.severity.as_str(), "{text}");
    }
    // The line with Japanese text and an emoji: `"x"` is code point 50 but VS Code's Col 51,
    // as 🚀 counts two UTF-16 units.
    assert!(problems(&result).contains(&(20, 51, "exists-with-value".into())));

    // Each of taintlint's rows is readable whole: no ellipsis cuts its message.
    for row in result["problems"].as_array().unwrap() {
        if row["aria"].as_str().unwrap_or("").contains("taintlint") {
            assert_eq!(row["truncated"], false, "a Problems row is cut off: {row}");
        }
    }

    // Hovers: on a problem, the finding (its message and one line of why, not the rule's whole
    // explanation), fitting without scrolling; plain words on a toleration.
    let hover = result["hover_diagnostic"].as_str().unwrap();
    assert!(
        !hover.starts_with("[scrolls]"),
        "the hover needs scrolling: {hover}"
    );
    let meta = taintlint::rules::find(HOVER_RULE).unwrap();
    assert!(hover.contains(meta.why), "the hover lacks why: {hover}");
    let message = &cli.iter().find(|e| e.rule == HOVER_RULE).unwrap().message;
    // VS Code shows the message above the hover (rendered: no backticks); the server's part
    // does not repeat it.
    let shown = message.replace('`', "");
    assert!(
        hover.matches(&shown).count() <= 1,
        "the hover repeats the message {message:?}: {hover}"
    );
    assert!(
        !hover.contains("What it catches") && !hover.contains("Why it matters"),
        "the hover has the whole explanation: {hover}"
    );
    let hover = result["hover_toleration"].as_str().unwrap();
    let hover = hover.trim_start_matches("[scrolls] ");
    assert!(
        hover.contains("node.kubernetes.io/unreachable") && hover.contains("NoExecute"),
        "hover on the toleration: {hover}"
    );

    // A changed setting reaches the running server: the rule is now an error, nothing else moved.
    let after = result["problems_after_settings"].as_array().unwrap();
    assert_eq!(after.len(), cli.len());
    for e in &cli {
        let row = after.iter().find(|p| p["code"] == e.rule.as_str()).unwrap();
        let severity = if e.rule == SEVERITY_RULE {
            assert_eq!(e.severity, "warning");
            "error"
        } else {
            e.severity.as_str()
        };
        assert_eq!(row["severity"], severity, "{row}");
    }

    // A wrong taintlint.path is reported, with the path.
    let message = result["missing_binary_message"].as_str().unwrap();
    assert!(
        message.contains("taintlint.path") && message.contains("no-such-taintlint"),
        "{message}"
    );

    check_cluster(&result);
    check_pool_edit(&result);
    check_rename(&result);

    for shot in [
        "pool-edit-problems.png",
        "squiggles.png",
        "lenses.png",
        "cluster.png",
        "problems.png",
        "hover-diagnostic.png",
        "hover-toleration.png",
        "settings.png",
        "missing-binary.png",
    ] {
        let len = std::fs::metadata(dir.join(shot))
            .map(|m| m.len())
            .unwrap_or(0);
        // The hovers are cut to the hover and its line.
        let least = if shot.starts_with("hover-") {
            2_000
        } else {
            10_000
        };
        assert!(len > least, "screenshot {shot} is missing or empty");
    }
    // The hover's picture is the hover (with its line), not the whole window: smaller than the
    // 1400x860 page, and as large as the box the driver measured around the hover.
    let (width, height) = png_size(&dir.join("hover-diagnostic.png"));
    let bx = &result["hover_diagnostic_box"];
    assert!(width < 1400 && height < 860, "{width}x{height}");
    assert!(
        (width as f64 - bx["width"].as_f64().unwrap()).abs() < 2.0
            && (height as f64 - bx["height"].as_f64().unwrap()).abs() < 2.0,
        "{width}x{height} against {bx}"
    );
    if std::env::var_os("TAINTLINT_BLESS").is_some() {
        for (shot, image) in [
            ("cluster.png", "cluster.png"),
            ("problems.png", "screenshot.png"),
            ("hover-diagnostic.png", "hover.png"),
        ] {
            std::fs::copy(
                dir.join(shot),
                repo().join("editors/vscode/images").join(image),
            )
            .unwrap();
        }
        // The short lenses and a hover that needs no scrolling, for the manual.
        for (shot, image) in [
            ("lenses.png", "vscode-lenses.png"),
            ("hover-diagnostic.png", "vscode-hover.png"),
        ] {
            std::fs::copy(dir.join(shot), repo().join("docs/images").join(image)).unwrap();
        }
        // The language server's manual shows the pool edit.
        std::fs::copy(
            dir.join("pool-edit-problems.png"),
            repo().join("docs/images/pool-edit-problems.png"),
        )
        .unwrap();
    }
}

/// Tainting the NodePool in the editor (unsaved) puts the unopened workload's problems in the
/// Problems panel: the ones the core finds against the inventory with the pool as edited, and
/// none before.
fn check_pool_edit(result: &Value) {
    let workload = std::fs::read_to_string(repo().join(UNOPENED)).unwrap();
    let pools = std::fs::read_to_string(repo().join(INVENTORY)).unwrap();
    let pool = std::fs::read_to_string(repo().join(NODEPOOL)).unwrap();
    let tainted = pool.replace("taints: []", &format!("taints: [{NODEPOOL_TAINT}]"));
    assert_ne!(tainted, pool);
    let findings = |pool: &str| {
        let mut files = vec![("pools.yaml", pools.as_str())];
        if !pool.is_empty() {
            files.push(("nodepool.yaml", pool));
        }
        let inventory = taintlint::inventory::Inventory::load(&files).unwrap();
        check(
            &workload,
            Ask::new(&taintlint::Options::default(), Some(&inventory)),
        )
        .diagnostics
    };
    assert!(
        findings(&pool).is_empty(),
        "the workload fits the untainted pool"
    );
    let before = result["pool_edit_before"]
        .as_array()
        .expect("pool_edit_before");
    assert!(before.is_empty(), "before the edit: {before:?}");
    // Before the pool was in the inventory, the workload fitted no node: the test waited for
    // that problem to go as its sign that the server had read the new inventory.
    let without = findings("");
    assert!(
        without.iter().any(|d| d.rule == "unschedulable"),
        "{without:?}"
    );
    let rows = result["pool_edit_without_pool"]
        .as_array()
        .expect("pool_edit_without_pool");
    assert!(
        rows.iter().any(|r| r["code"] == "unschedulable"),
        "without the pool: {rows:?}"
    );

    let want = findings(&tainted);
    assert!(want.iter().any(|d| d.rule == "unschedulable"), "{want:?}");
    let rows = result["pool_edit_after"]
        .as_array()
        .expect("pool_edit_after");
    let got: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["code"].as_str().unwrap_or("").to_string(),
                r["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let expected: Vec<(String, u64)> = want
        .iter()
        .map(|d| {
            (
                d.rule.to_string(),
                workload[..d.range.start].matches('\n').count() as u64 + 1,
            )
        })
        .collect();
    assert_eq!(got, expected, "{rows:?}");
    for (row, d) in rows.iter().zip(&want) {
        let text = row["text"].as_str().unwrap();
        let message = d.server_message.as_deref().unwrap_or(&d.message);
        assert!(text.contains(message), "{text:?} does not say {message:?}");
    }
    // The edit was not saved: the server took the editor's text.
    assert_eq!(result["pool_edit_on_disk_unchanged"], Value::Bool(true));
    // The workload was never opened.
    let unopened = UNOPENED.rsplit('/').next().unwrap();
    let tabs = result["pool_edit_open_tabs"].as_array().expect("tabs");
    assert!(
        tabs.iter()
            .all(|t| !t.as_str().unwrap().starts_with(unopened)),
        "{tabs:?}"
    );
}

/// A rename of `example.com/spot` from the open workload's toleration, done as a person does it
/// (F2, the new name, Enter), applied at once without a preview to confirm, and saved: every
/// toleration and taint of that key is renamed on disk, in the open files and in the inventory
/// nobody opened, and nothing else changed.
fn check_rename(result: &Value) {
    assert_eq!(
        result["rename_preview_shown"],
        Value::Bool(false),
        "a preview asked for confirmation"
    );
    let on_disk = result["rename_on_disk"]
        .as_object()
        .expect("rename_on_disk");
    for (name, original) in [
        ("workload.yaml", FIXTURE),
        ("pools.yaml", INVENTORY),
        ("inference.yaml", CLUSTER_MANIFEST),
    ] {
        let before = std::fs::read_to_string(repo().join(original)).unwrap();
        assert_eq!(
            on_disk[name].as_str().unwrap(),
            before.replace("example.com/spot", "example.com/preemptible"),
            "{name}"
        );
    }
}

/// The lenses, hints and placement VS Code drew for the cluster manifest: the core's words for
/// the same text and inventory, on the lines the server put them.
fn check_cluster(result: &Value) {
    let text = std::fs::read_to_string(repo().join(CLUSTER_MANIFEST)).unwrap();
    let pools = std::fs::read_to_string(repo().join(INVENTORY)).unwrap();
    let inventory =
        taintlint::inventory::Inventory::load(&[("pools.yaml", pools.as_str())]).unwrap();
    let analysis = check(
        &text,
        Ask::new(&taintlint::Options::default(), Some(&inventory)).placed(),
    );
    let line = |at: usize| text[..at].matches('\n').count() as u64 + 1;

    // A lens above each workload's `kind:` line, saying where it lands.
    let lenses: Vec<(u64, String)> = result["lenses"]
        .as_array()
        .expect("lenses")
        .iter()
        .map(|l| {
            (
                l["line"].as_u64().unwrap_or(0),
                l["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(u64, String)> = analysis
        .placements
        .iter()
        .map(|p| (line(p.anchor.start), p.summary(&inventory)))
        .collect();
    assert_eq!(lenses, want, "code lenses");
    // Short: one line each, under 80 characters, leading with the cause.
    for (_, lens) in &lenses {
        assert!(lens.chars().count() <= 80, "{lens}");
    }
    assert!(want.len() >= 4, "{want:?}");
    assert!(
        want.iter().any(|(_, t)| t.starts_with("fits no node")),
        "one workload fits no node: {want:?}"
    );

    // After each toleration's first line what it matches; after a tolerationSeconds that
    // evicts, when.
    let hints: Vec<(u64, String)> = result["hints"]
        .as_array()
        .expect("inlay hints")
        .iter()
        .map(|h| {
            (
                h["line"].as_u64().unwrap_or(0),
                h["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut want = Vec::new();
    for t in &analysis.tolerations {
        want.push((
            line(t.item.start),
            taintlint::schedule::placement::hint_matches(&t.tolerated, &inventory),
        ));
        if let (Some(seconds), Some(label)) = (
            &t.seconds,
            taintlint::schedule::placement::hint_eviction(&t.toleration, &t.tolerated, &inventory),
        ) {
            want.push((line(seconds.start), label));
        }
    }
    assert_eq!(hints, want, "inlay hints");
    // Within VS Code's default `editor.inlayHints.maximumLength` (43): drawn whole.
    for (_, hint) in &hints {
        assert!(hint.chars().count() <= 43, "{hint}");
    }
    assert!(
        want.iter().any(|(_, h)| h.starts_with("evicted ")),
        "an eviction hint: {want:?}"
    );

    // The first lens opens its workload's per-pool verdicts beside the manifest.
    let p = &analysis.placements[0];
    // The client asks for no width: the server wraps at its default, at words.
    let details = taintlint::report::text::wrap_lines(
        &p.details(&inventory),
        taintlint::schedule::placement::DETAILS_WIDTH,
    );
    let shown = result["placement"]
        .as_str()
        .expect("the placement document");
    let trim =
        |s: &str| -> Vec<String> { s.trim().lines().map(|l| l.trim_end().to_string()).collect() };
    assert_eq!(trim(shown), trim(&details), "placement");
    // In a read-only document named after the workload, which closes without asking to save.
    let tab = &result["placement_tab"];
    assert!(
        tab["label"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{} placement", p.title.replace('/', "\u{2215}"))),
        "{tab}"
    );
    assert_eq!(tab["dirty"], false, "{tab}");
}
