//! Neovim 0.11, headless, with the plugin from editors/neovim and the `taintlint server` built by
//! this crate: the diagnostics Neovim holds (lines, byte columns, codes, messages) are the ones
//! `taintlint lint` reports for the same text, with either position encoding; hover explains; a
//! quick fix applied through `vim.lsp.buf.code_action` changes the text as the CLI's fix does;
//! an edit updates the diagnostics; lenses, hints, definition, the outline and the placement
//! say what the core says; and in a real terminal (tmux) the screen shows the lenses and hints
//! that editors/neovim/README.md shows. Needs the tools of scripts/install-editor-test-deps.sh.

mod common;
mod editor_support;

use std::path::{Path, PathBuf};
use std::time::Instant;
use taintlint::analysis::{check, Ask};

use editor_support::*;
use serde_json::Value;

const FIXTURE: &str = "tests/e2e/fixtures/workload.yaml";
const FIX_RULE: &str = "toleration-seconds-requires-no-execute";
/// A taint the test adds to the inventory: the quick-fixed toleration `example.com/spot`
/// (`"true"`, NoExecute after the fix) then tolerates it.
const INVENTORY_APPEND: &str =
    "  - key: example.com/spot\n    value: \"true\"\n    effect: NoExecute\n";
/// A warning in the fixture that the test makes an error through the plugin's settings.
const SEVERITY_RULE: &str = "tolerates-everything";

fn neovim() -> Result<PathBuf, String> {
    // The install script's, else one on PATH (its version is checked below).
    let nvim = executable(&e2e_home().join("nvim/bin/nvim"))
        .or_else(|e| on_path("nvim").map_err(|p| format!("{e}, and {p}")))
        .map_err(|e| format!("Neovim 0.11 is not installed ({e})"))?;
    let out = std::process::Command::new(&nvim)
        .arg("--version")
        .output()
        .map_err(|e| format!("{} does not run: {e}", nvim.display()))?;
    let version = String::from_utf8_lossy(&out.stdout);
    let first = version.lines().next().unwrap_or("");
    let minor: Option<u32> = first
        .strip_prefix("NVIM v0.")
        .and_then(|r| r.split('.').next())
        .and_then(|m| m.parse().ok());
    match minor {
        Some(m) if m >= 11 => Ok(nvim),
        _ => Err(format!("{} is `{first}`, not Neovim 0.11+", nvim.display())),
    }
}

/// Runs the editor session of tests/e2e/neovim/check.lua; `encoding` limits what Neovim offers.
fn session(nvim: &Path, encoding: Option<&str>) -> Value {
    let name = encoding.unwrap_or("default");
    let dir = artifacts("neovim").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let home = tempfile::tempdir().unwrap();
    let workspace = home.path().join("workspace");
    std::fs::create_dir_all(workspace.join(".git")).unwrap();
    let file = workspace.join("workload.yaml");
    std::fs::copy(repo().join(FIXTURE), &file).unwrap();
    let inventory = workspace.join("nodes.yaml");
    std::fs::copy(repo().join("tests/e2e/fixtures/nodes.yaml"), &inventory).unwrap();
    let out = dir.join("result.json");
    let e2e = repo().join("tests/e2e/neovim");
    let init = e2e.join("init.lua");
    let check = e2e.join("check.lua");

    let started = Instant::now();
    let output = loopback_only(
        nvim,
        &[
            "--headless",
            "--clean",
            "-u",
            init.to_str().unwrap(),
            file.to_str().unwrap(),
            "-c",
            &format!("luafile {}", check.display()),
        ],
    )
    .current_dir(&workspace)
    .env("TAINTLINT_BIN", server_bin())
    .env("TAINTLINT_NVIM_PLUGIN", repo().join("editors/neovim"))
    .env("TAINTLINT_E2E_OUT", &out)
    .env("TAINTLINT_E2E_FIX_RULE", FIX_RULE)
    .env("TAINTLINT_E2E_SEVERITY_RULE", SEVERITY_RULE)
    .env("TAINTLINT_E2E_INVENTORY", &inventory)
    .env("TAINTLINT_E2E_INVENTORY_APPEND", INVENTORY_APPEND)
    .env("TAINTLINT_E2E_ENCODING", encoding.unwrap_or(""))
    .env("XDG_CONFIG_HOME", home.path().join("config"))
    .env("XDG_DATA_HOME", home.path().join("data"))
    .env("XDG_STATE_HOME", home.path().join("state"))
    .env("XDG_CACHE_HOME", home.path().join("cache"))
    .output()
    .expect("run nvim");
    let elapsed = started.elapsed();
    let log = home.path().join("state/nvim/lsp.log");
    let _ = std::fs::copy(&log, dir.join("lsp.log"));
    eprintln!("neovim session ({name}): {:.1} s", elapsed.as_secs_f64());
    let report = if out.exists() {
        read_json(&out)
    } else {
        Value::Null
    };
    assert!(
        output.status.success() && report.get("error").is_none(),
        "the Neovim session ({name}) failed: {}\nstatus: {}\nstderr: {}\nNeovim's LSP log: {}\n{}",
        report
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("(no result)"),
        output.status,
        String::from_utf8_lossy(&output.stderr),
        dir.join("lsp.log").display(),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    report
}

fn step<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {report:#}"))
}

/// (line, byte col, end line, byte end col, code, severity, message), all 0-based as Neovim has them.
type Shown = (u64, u64, u64, u64, String, String, String);

fn shown(step: &Value) -> Vec<Shown> {
    let mut list: Vec<Shown> = step["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["source"], "taintlint", "{d}");
            (
                d["lnum"].as_u64().unwrap(),
                d["col"].as_u64().unwrap(),
                d["end_lnum"].as_u64().unwrap(),
                d["end_col"].as_u64().unwrap(),
                d["code"].as_str().unwrap_or("").to_string(),
                d["severity"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    list.sort();
    list
}

fn expected(text: &str) -> Vec<Shown> {
    let mut list: Vec<Shown> = lint(text, &[])
        .into_iter()
        .map(|e| {
            (
                e.line as u64 - 1,
                offset(line_of(text, e.line), e.column, "utf-8") as u64,
                e.end_line as u64 - 1,
                offset(line_of(text, e.end_line), e.end_column, "utf-8") as u64,
                e.rule,
                e.severity,
                e.message,
            )
        })
        .collect();
    list.sort();
    list
}

/// The positions the server sent (in the negotiated encoding) are the CLI's, converted.
fn check_raw(step: &Value, encoding: &str) {
    let text = step["text"].as_str().unwrap();
    let mut sent: Vec<(u64, u64, String)> = step["raw"]["diagnostics"]
        .as_array()
        .expect("the server's last diagnostics were recorded")
        .iter()
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["character"].as_u64().unwrap(),
                d["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    sent.sort();
    let mut want: Vec<(u64, u64, String)> = lint(text, &[])
        .into_iter()
        .map(|e| {
            (
                e.line as u64 - 1,
                offset(line_of(text, e.line), e.column, encoding) as u64,
                e.rule,
            )
        })
        .collect();
    want.sort();
    assert_eq!(sent, want, "positions sent in {encoding}");
}

fn check_session(report: &Value, encoding: &str) {
    assert_eq!(report["offset_encoding"], encoding, "negotiated encoding");
    let fixture = std::fs::read_to_string(repo().join(FIXTURE)).unwrap();

    // Opening the file: every diagnostic at the CLI's line and column.
    let open = step(report, "open");
    assert_eq!(open["text"], fixture.as_str());
    assert_eq!(shown(open), expected(&fixture));
    check_raw(open, encoding);
    // The line with Japanese text and an emoji before the flagged value:
    // `      - {key: "専用🚀ノード", operator: Exists, value: "x", effect: NoExecute}`.
    // `"x"` is code point 49 (0-based), UTF-16 unit 50 (🚀 is a surrogate pair), byte 62.
    let jp = open["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "exists-with-value")
        .expect("exists-with-value on the Japanese line");
    assert_eq!(jp["lnum"], 19);
    assert_eq!(jp["col"], 62, "Neovim's byte column");
    assert_eq!(jp["text"], "\"x\"", "the flagged text in the buffer");
    let raw_jp = open["raw"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "exists-with-value")
        .unwrap();
    let sent_character = if encoding == "utf-8" { 62 } else { 50 };
    assert_eq!(raw_jp["range"]["start"]["character"], sent_character);

    // Hover on a toleration says what it matches.
    let hover = report["hover_toleration"]
        .as_str()
        .expect("a hover on the toleration");
    assert!(
        hover.contains("node.kubernetes.io/unreachable") && hover.contains("NoExecute"),
        "hover on the toleration: {hover}"
    );
    // Hover on a diagnostic shows the finding short: its message and one line of why, no
    // explanation sections, so Neovim's float stays small.
    let hover = report["hover_diagnostic"]
        .as_str()
        .expect("a hover on the diagnostic");
    let meta = taintlint::rules::find(FIX_RULE).unwrap();
    let finding = hover.rsplit("\n---\n").next().unwrap();
    assert!(
        finding.contains(meta.why) && !hover.contains("####") && !hover.contains("What it catches"),
        "hover on the {FIX_RULE} diagnostic: {hover}"
    );
    assert!(
        finding.trim().lines().count() <= 12,
        "the {FIX_RULE} hover is long: {finding}"
    );

    // The quick fix, applied by code_action: the text is the CLI's fix applied, and the
    // diagnostics are those of the new text.
    let titles: Vec<&str> = report["code_actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    // The fix that sets the effect (the second offered: the first, safe, removes
    // tolerationSeconds), so that the toleration then tolerates the NoExecute taint added below.
    let cli_fix = lint(&fixture, &[])
        .into_iter()
        .find(|e| e.rule == FIX_RULE)
        .unwrap()
        .fixes
        .into_iter()
        .find(|f| {
            f["title"]
                .as_str()
                .unwrap()
                .starts_with("Set `effect: NoExecute`")
        })
        .unwrap();
    assert!(
        titles.contains(&cli_fix["title"].as_str().unwrap()),
        "quick fixes offered: {titles:?}"
    );
    let disable = format!("Disable `{FIX_RULE}` for this line");
    assert!(
        titles.contains(&disable.as_str()),
        "quick fixes offered: {titles:?}"
    );
    let fixed = step(report, "quick-fix");
    assert_eq!(fixed["text"], apply_fix(&fixture, &cli_fix).as_str());
    let fixed_text = fixed["text"].as_str().unwrap();
    assert_eq!(shown(fixed), expected(fixed_text));
    assert!(!shown(fixed).iter().any(|d| d.4 == FIX_RULE));

    // An edit (a misspelt effect) brings the new diagnostic.
    let edited = step(report, "edit");
    let text = edited["text"].as_str().unwrap();
    assert!(text.contains("effect: NoSchedul\n"));
    assert_eq!(shown(edited), expected(text));
    assert!(shown(edited).iter().any(|d| d.4 == "unknown-effect"));
    check_raw(edited, encoding);

    // setup() again with a rule's severity: the running server (no restart) re-lints.
    assert_eq!(report["same_client_after_settings"], true);
    let after = step(report, "settings");
    let want: Vec<Shown> = expected(after["text"].as_str().unwrap())
        .into_iter()
        .map(|mut d| {
            if d.4 == SEVERITY_RULE {
                assert_eq!(d.5, "warning", "{SEVERITY_RULE} is a warning by default");
                d.5 = "error".into();
            }
            d
        })
        .collect();
    assert!(want.iter().any(|d| d.4 == SEVERITY_RULE));
    assert_eq!(shown(after), want);

    // With an inventory: the CLI's findings with the same inventory. Then the inventory changed
    // on disk: the server said so, and the findings are those of the new inventory.
    let with_inventory = |step: &Value| -> Vec<Shown> {
        let dir = tempfile::tempdir().unwrap();
        let nodes = dir.path().join("nodes.yaml");
        std::fs::write(&nodes, step["inventory"].as_str().unwrap()).unwrap();
        let text = step["text"].as_str().unwrap();
        let mut list: Vec<Shown> = lint(text, &["--inventory", nodes.to_str().unwrap()])
            .into_iter()
            .map(|e| {
                let severity = if e.rule == SEVERITY_RULE {
                    "error".to_string()
                } else {
                    e.severity
                };
                (
                    e.line as u64 - 1,
                    offset(line_of(text, e.line), e.column, "utf-8") as u64,
                    e.end_line as u64 - 1,
                    offset(line_of(text, e.end_line), e.end_column, "utf-8") as u64,
                    e.rule,
                    severity,
                    e.message,
                )
            })
            .collect();
        list.sort();
        list
    };
    let set = step(report, "inventory-set");
    let want_set = with_inventory(set);
    assert!(
        want_set.len() > want.len(),
        "the inventory adds findings: {want_set:?}"
    );
    assert_eq!(shown(set), want_set);
    let log: Vec<&str> = report["inventory_log"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        log.iter().any(|m| m.contains("inventory changed")),
        "the server's inventory messages: {log:?}"
    );
    let changed = step(report, "inventory");
    assert!(changed["inventory"]
        .as_str()
        .unwrap()
        .ends_with(INVENTORY_APPEND));
    let want_changed = with_inventory(changed);
    assert_ne!(want_changed, want_set);
    assert_eq!(shown(changed), want_changed);

    check_cluster(report, changed);
}

/// Lenses, hints, definition, outline, the placement window and `:checkhealth`: what Neovim
/// showed is what the core says about the same text and inventory.
fn check_cluster(report: &Value, last: &Value) {
    let text = last["text"].as_str().unwrap();
    let nodes = last["inventory"].as_str().unwrap();
    let inventory = taintlint::inventory::Inventory::load(&[("nodes.yaml", nodes)]).unwrap();
    let analysis = check(
        text,
        Ask::new(&taintlint::Options::default(), Some(&inventory)).placed(),
    );
    let line_of_offset = |at: usize| text[..at].matches('\n').count() as u64;

    // One lens per workload, on its `kind:` line, with the core's words; its details wrapped
    // at words to the placement window's width (the editor's columns less its border).
    let width = report["placement_width"]
        .as_u64()
        .expect("the window's width") as usize;
    assert!((20..=100).contains(&width), "{width}");
    let lenses = report["lenses"].as_array().expect("lenses");
    assert_eq!(lenses.len(), analysis.placements.len(), "{lenses:?}");
    for (lens, p) in lenses.iter().zip(&analysis.placements) {
        assert_eq!(lens["line"], line_of_offset(p.anchor.start));
        assert_eq!(lens["title"], p.summary(&inventory).as_str());
        assert_eq!(lens["command"], "taintlint.showPlacement");
        assert_eq!(
            lens["details"],
            taintlint::report::text::wrap_lines(&p.details(&inventory), width).as_str()
        );
    }
    // The placement window shows the same details.
    let details = lenses[0]["details"].as_str().unwrap();
    assert_eq!(report["placement"].as_str(), Some(details.trim()));
    for line in details.lines() {
        assert!(
            taintlint::report::text::width(line) <= width || !line.trim().contains(' '),
            "wider than the window ({width}): {line:?}"
        );
    }
    assert!(details.contains("example.com/spot"), "{details}");

    // A hint per toleration (and one per tolerationSeconds that evicts), the core's words.
    let labels: Vec<&str> = report["hints"]
        .as_array()
        .expect("inlay hints")
        .iter()
        .map(|h| h["label"].as_str().unwrap())
        .collect();
    let mut want = Vec::new();
    for t in &analysis.tolerations {
        want.push(taintlint::schedule::placement::hint_matches(
            &t.tolerated,
            &inventory,
        ));
        if t.seconds.is_some() {
            want.extend(taintlint::schedule::placement::hint_eviction(
                &t.toleration,
                &t.tolerated,
                &inventory,
            ));
        }
    }
    assert_eq!(labels, want);
    assert!(labels.len() >= 5, "{labels:?}");

    // Definition on the `example.com/spot` toleration: the taint the inventory got, its line.
    let def = &report["definition"];
    assert!(
        def["file"].as_str().unwrap().ends_with("nodes.yaml"),
        "{def}"
    );
    let taint_line = nodes
        .lines()
        .position(|l| l == "  - key: example.com/spot")
        .unwrap();
    assert_eq!(def["line"], taint_line as u64, "{def}");
    assert_eq!(def["col"], 4, "{def}");

    // The outline: the workload, its tolerations beneath it.
    let outline: Vec<&str> = report["outline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    // (The first toleration has the misspelt effect of step 5: it is named by its path.)
    assert_eq!(
        outline,
        [
            "Deployment jobs/batch-worker",
            "  spec.template.spec.tolerations[0]",
            "  専用🚀ノード (exists):NoExecute",
            "  example.com/spot=true:NoExecute",
            "  node.kubernetes.io/unreachable (exists):NoExecute",
            "  * (exists)",
        ]
    );

    // :checkhealth taintlint names the inventory in use.
    let health = report["health"].as_str().unwrap();
    assert!(
        health
            .lines()
            .any(|l| l.contains("OK inventory ") && l.contains("nodes.yaml")),
        "{health}"
    );
}

#[test]
fn neovim_shows_taintlint_diagnostics_hover_and_quick_fixes() {
    let Some(nvim) = require("editors_neovim", neovim()) else {
        return;
    };
    // Neovim offers utf-8 first: the server must use byte columns.
    let report = session(&nvim, None);
    check_session(&report, "utf-8");
    // A client that offers only UTF-16 (like VS Code) gets UTF-16 columns.
    let report = session(&nvim, Some("utf-16"));
    check_session(&report, "utf-16");
}

/// The screen of a real terminal: Neovim in tmux with the plugin set up as its README says, an
/// inventory and inlay hints on. The lenses and hints are on the screen, where a user reads
/// them, and `:TaintlintPlacement` opens the per-pool verdicts. The screens are saved as text
/// in target/e2e/neovim/ (`TAINTLINT_BLESS=1`: the one the README shows, into
/// editors/neovim/screen.txt).
#[test]
fn neovim_screen_shows_the_cluster() {
    let Some((nvim, tmux)) = require(
        "editors_neovim",
        neovim().and_then(|nvim| {
            on_path("tmux")
                .map(|tmux| (nvim, tmux))
                .map_err(|e| format!("tmux is not installed ({e})"))
        }),
    ) else {
        return;
    };
    let dir = artifacts("neovim").join("screen");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let home = tempfile::tempdir().unwrap();
    let workspace = home.path().join("workspace");
    std::fs::create_dir_all(workspace.join(".git")).unwrap();
    let file = workspace.join("inference.yaml");
    std::fs::copy(repo().join("examples/inference.yaml"), &file).unwrap();
    let inventory = workspace.join("pools.yaml");
    std::fs::copy(repo().join("examples/inventory/pools.yaml"), &inventory).unwrap();

    // What the core says about that text and inventory.
    let text = std::fs::read_to_string(&file).unwrap();
    let pools = std::fs::read_to_string(&inventory).unwrap();
    let inv = taintlint::inventory::Inventory::load(&[("pools.yaml", pools.as_str())]).unwrap();
    let analysis = check(
        &text,
        Ask::new(&taintlint::Options::default(), Some(&inv)).placed(),
    );
    let line_of_offset = |at: usize| text[..at].matches('\n').count() + 1;
    // The row of the screen that shows line `n` of the file (`number` is on: `  4 kind: ...`,
    // after a diagnostic's sign when there is one: `E 21 ...`).
    let row = |screen: &str, n: usize| -> String {
        let number = n.to_string();
        screen
            .lines()
            .find(|l| {
                let mut words = l.split_whitespace();
                let mut first = words.next();
                if first
                    .is_some_and(|w| w.len() == 1 && !w.starts_with(|c: char| c.is_ascii_digit()))
                {
                    first = words.next();
                }
                first == Some(number.as_str())
            })
            .unwrap_or("")
            .to_string()
    };

    let socket = format!("taintlint-e2e-{}", std::process::id());
    let tmux_cmd = |args: &[&str]| {
        std::process::Command::new(&tmux)
            .args(["-L", &socket, "-f", "/dev/null"])
            .args(args)
            .current_dir(&workspace)
            .env("TAINTLINT_BIN", server_bin())
            .env("TAINTLINT_NVIM_PLUGIN", repo().join("editors/neovim"))
            .env("TAINTLINT_E2E_INVENTORY", &inventory)
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_STATE_HOME", home.path().join("state"))
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("TERM", "xterm-256color")
            .output()
            .expect("run tmux")
    };
    let command = format!(
        "{} --clean -u {} {}",
        nvim.display(),
        repo().join("tests/e2e/neovim/screen.lua").display(),
        file.display()
    );
    let started = tmux_cmd(&[
        "new-session",
        "-d",
        "-s",
        "e2e",
        "-x",
        "150",
        "-y",
        "45",
        &command,
    ]);
    assert!(
        started.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&started.stderr)
    );
    let capture = || {
        String::from_utf8_lossy(&tmux_cmd(&["capture-pane", "-p", "-t", "e2e"]).stdout).to_string()
    };
    let wait_for = |what: &str, ok: &dyn Fn(&str) -> bool| -> String {
        let deadline = Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let screen = capture();
            if ok(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                let _ = tmux_cmd(&["kill-server"]);
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(std::time::Duration::from_millis(250));
        }
    };

    // The Job's lens (the short one) after its `kind:` line, the gpu toleration's hint after
    // its first line.
    let job = analysis
        .placements
        .iter()
        .find(|p| p.title == "Job search/reindex")
        .expect("the Job's placement");
    let job_line = line_of_offset(job.anchor.start);
    let lens = job.summary(&inv);
    let pool = analysis
        .tolerations
        .iter()
        .find(|t| t.toleration.key == "example.com/pool")
        .expect("the example.com/pool toleration");
    let pool_line = line_of_offset(pool.item.start);
    let hint = taintlint::schedule::placement::hint_matches(&pool.tolerated, &inv);
    let screen = wait_for("the lens and the hint", &|s| {
        row(s, job_line).contains(&lens) && row(s, pool_line).contains(&hint)
    });
    std::fs::write(dir.join("screen.txt"), &screen).unwrap();
    // Every workload on the screen has its lens, on its `kind:` line.
    for p in &analysis.placements {
        let n = line_of_offset(p.anchor.start);
        let shown = row(&screen, n);
        if !shown.is_empty() {
            // Whole: a lens is one line of at most 80 characters, never cut at the edge.
            let summary = p.summary(&inv);
            assert!(summary.chars().count() <= 80, "{summary}");
            assert!(
                shown.contains(&summary),
                "line {n}: {shown:?} lacks {summary:?}"
            );
        }
    }

    // :TaintlintPlacement in the first workload: its per-pool verdicts in a floating window.
    let first = &analysis.placements[0];
    // tmux's 150 columns: the window is 100 wide at most (the plugin's `width()`).
    let details = taintlint::report::text::wrap_lines(&first.details(&inv), 100);
    tmux_cmd(&[
        "send-keys",
        "-t",
        "e2e",
        "Escape",
        ":5",
        "Enter",
        ":TaintlintPlacement",
        "Enter",
    ]);
    let pool_verdict = details
        .lines()
        .find(|l| l.starts_with("pool gpu"))
        .expect("the gpu pool's verdict")
        .to_string();
    let placement = wait_for("the placement window", &|s| s.contains(&pool_verdict));
    std::fs::write(dir.join("placement.txt"), &placement).unwrap();
    for line in details.lines().filter(|l| l.starts_with("pool ")) {
        assert!(
            placement.contains(line),
            "the window lacks {line:?}:\n{placement}"
        );
    }
    let _ = tmux_cmd(&["kill-server"]);

    // The README shows both screens, between its `screen` markers.
    let shown = |s: &str| -> String {
        let lines: Vec<&str> = s.lines().map(str::trim_end).collect();
        let end = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        lines[..end].join("\n")
    };
    let block = format!(
        "```text\n{}\n```\n\n`:TaintlintPlacement` on line 5:\n\n```text\n{}\n```\n",
        shown(&screen),
        shown(&placement)
    );
    let readme_path = repo().join("editors/neovim/README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let (start, end) = ("<!-- screen:start -->\n", "<!-- screen:end -->");
    let (Some(a), Some(b)) = (readme.find(start), readme.find(end)) else {
        panic!("editors/neovim/README.md has no {start:?} ... {end:?} markers");
    };
    let current = &readme[a + start.len()..b];
    if std::env::var_os("TAINTLINT_BLESS").is_some() {
        let updated = format!("{}{block}{}", &readme[..a + start.len()], &readme[b..]);
        std::fs::write(&readme_path, updated).unwrap();
    } else {
        // The README's screens show what this test sees (refresh: TAINTLINT_BLESS=1); a
        // diagnostic's sign and the spacing may differ.
        let norm = |l: &str| -> String {
            let mut words: Vec<&str> = l.split_whitespace().collect();
            if words
                .first()
                .is_some_and(|w| w.len() == 1 && !w.starts_with(|c: char| c.is_ascii_digit()))
            {
                words.remove(0);
            }
            words.join(" ")
        };
        for (i, line) in current.lines().enumerate() {
            if line.starts_with('`') || line.is_empty() {
                continue;
            }
            assert!(
                block.lines().any(|l| norm(l) == norm(line)),
                "editors/neovim/README.md line {} of its screens is no longer on the screen: {line:?}\n\
                 (TAINTLINT_BLESS=1 cargo test --test editors_neovim refreshes it)",
                i + 1
            );
        }
    }
}

/// The whole workspace in Neovim, which only takes pushed diagnostics: an unsaved taint added
/// to the pool file puts a workload that is not open into `vim.diagnostic`, taking it back
/// clears it, and renaming the taint key from the pool file changes the files on disk as the
/// workspace edit said (tests/e2e/neovim/workspace.lua).
#[test]
fn neovim_workspace_diagnostics_and_rename() {
    let Some(nvim) = require("editors_neovim", neovim()) else {
        return;
    };
    const POOLS: &str = "pools:\n  control-plane:\n    count: 3\n";
    // Nobody opens these: one tolerates the control-plane taint, one does not.
    const WEB: &str = "kind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: nginx}]\n";
    const AGENT: &str = "kind: DaemonSet\nmetadata: {name: agent}\nspec:\n  template:\n    spec:\n      # taintlint: disable=toleration-unused -- node-role.kubernetes.io/master: runs everywhere\n      tolerations:\n      - key: node-role.kubernetes.io/master\n        operator: Exists\n";
    const NEW_KEY: &str = "node-role.kubernetes.io/control-plane";
    let dir = artifacts("neovim").join("workspace");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let home = tempfile::tempdir().unwrap();
    let workspace = home.path().join("workspace");
    std::fs::create_dir_all(workspace.join(".git")).unwrap();
    std::fs::create_dir_all(workspace.join("apps")).unwrap();
    std::fs::write(workspace.join(".taintlint.yaml"), "inventory: pools.yaml\n").unwrap();
    let pools = workspace.join("pools.yaml");
    std::fs::write(&pools, POOLS).unwrap();
    let web = workspace.join("apps/web.yaml");
    std::fs::write(&web, WEB).unwrap();
    let agent = workspace.join("apps/agent.yaml");
    std::fs::write(&agent, AGENT).unwrap();
    let out = dir.join("result.json");
    let e2e = repo().join("tests/e2e/neovim");
    let output = loopback_only(
        &nvim,
        &[
            "--headless",
            "--clean",
            "-u",
            e2e.join("init.lua").to_str().unwrap(),
            pools.to_str().unwrap(),
            "-c",
            &format!("luafile {}", e2e.join("workspace.lua").display()),
        ],
    )
    .current_dir(&workspace)
    .env("TAINTLINT_BIN", server_bin())
    .env("TAINTLINT_NVIM_PLUGIN", repo().join("editors/neovim"))
    .env("TAINTLINT_E2E_OUT", &out)
    .env("TAINTLINT_E2E_WEB", &web)
    .env("TAINTLINT_E2E_NEW_KEY", NEW_KEY)
    .env("XDG_CONFIG_HOME", home.path().join("config"))
    .env("XDG_DATA_HOME", home.path().join("data"))
    .env("XDG_STATE_HOME", home.path().join("state"))
    .env("XDG_CACHE_HOME", home.path().join("cache"))
    .output()
    .expect("run nvim");
    let log = home.path().join("state/nvim/lsp.log");
    let _ = std::fs::copy(&log, dir.join("lsp.log"));
    let report = if out.exists() {
        read_json(&out)
    } else {
        Value::Null
    };
    assert!(
        output.status.success() && report.get("error").is_none(),
        "the Neovim workspace session failed: {}\nstderr: {}\nNeovim's LSP log: {}",
        report
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("(no result)"),
        String::from_utf8_lossy(&output.stderr),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let step = |name: &str| step(&report, name).clone();
    // Never opened: nothing to say at first, unschedulable with the taint, cleared without.
    assert_eq!(step("before")["web"], serde_json::json!([]), "{report}");
    assert_eq!(step("tainted")["web"], serde_json::json!(["unschedulable"]));
    assert_eq!(
        step("tainted")["web_loaded"],
        false,
        "the workload was never opened"
    );
    assert_eq!(step("untainted")["web"], serde_json::json!([]));
    // The rename, as written to disk: the pool's taint and the agent's toleration, not the
    // suppression comment.
    let on_disk = |p: &Path| std::fs::read_to_string(p).unwrap();
    assert_eq!(
        on_disk(&pools),
        format!("{POOLS}    taints: [\"{NEW_KEY}:NoSchedule\"]\n")
    );
    assert_eq!(
        on_disk(&agent),
        AGENT.replace(
            "key: node-role.kubernetes.io/master",
            &format!("key: {NEW_KEY}")
        )
    );
    assert_eq!(on_disk(&web), WEB);
    // As the workspace edit said (Neovim 0.11 takes plain `changes`): one edit in each of the
    // two files, and what it writes is the new key.
    let edit = &report["rename_edit"];
    let changes = edit["changes"]
        .as_object()
        .unwrap_or_else(|| panic!("{edit}"));
    let changed: Vec<String> = changes.keys().cloned().collect();
    for edits in changes.values() {
        let edits = edits.as_array().unwrap();
        assert_eq!(edits.len(), 1, "{edit}");
        assert_eq!(edits[0]["newText"], NEW_KEY, "{edit}");
    }
    assert_eq!(changed.len(), 2, "{edit}");
    assert!(changed.iter().any(|u| u.ends_with("/pools.yaml")), "{edit}");
    assert!(
        changed.iter().any(|u| u.ends_with("/apps/agent.yaml")),
        "{edit}"
    );
}
