//! Helpers shared by the integration tests: linting fixtures, running the binary, snapshot
//! settings.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use taintlint::analysis::{check, Ask};

use taintlint::diagnostic::Diagnostic;
use taintlint::inventory::Inventory;
use taintlint::report::FileReport;
use taintlint::{analyse, Options};

pub mod generated;
pub mod tools;

/// insta settings: snapshots live in the top-level `snapshots/` folder.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .expect("the crate root exists")
}

/// A path relative to the crate root, with `/` separators, so output is machine-independent.
pub fn relative(path: &Path) -> String {
    let path = path.canonicalize().expect("the fixture exists");
    path.strip_prefix(root())
        .expect("fixtures live inside the crate")
        .components()
        .map(|c| c.as_os_str().to_str().expect("fixture paths are UTF-8"))
        .collect::<Vec<_>>()
        .join("/")
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Lints with the default options.
pub fn lint(text: &str) -> Vec<Diagnostic> {
    analyse(text, &Options::default())
}

/// The cluster a fixture is linted against: `inventory.yaml` in the fixture's folder, for the
/// rules that need one.
pub fn inventory_for(path: &Path) -> Option<Inventory> {
    let file = path.parent()?.join("inventory.yaml");
    let text = std::fs::read_to_string(&file).ok()?;
    let name = relative(&file);
    let inventory = Inventory::load(&[(name.as_str(), text.as_str())])
        .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
    Some(inventory)
}

/// Lints with the default options, against an inventory when there is one.
pub fn lint_with(text: &str, inventory: Option<&Inventory>) -> Vec<Diagnostic> {
    check(text, Ask::new(&Options::default(), inventory)).diagnostics
}

/// Lints a fixture file (against its folder's inventory) and names it by its relative path.
/// Like the CLI, the inventory file is reported after it, with its own findings.
pub fn reports(path: &Path) -> Vec<FileReport> {
    let text = read(path);
    let inventory = inventory_for(path);
    let diagnostics = lint_with(&text, inventory.as_ref());
    let mut out = vec![FileReport::new(relative(path), text, diagnostics)];
    if let Some(inventory) = inventory {
        let file = path
            .parent()
            .expect("a fixture is in a folder")
            .join("inventory.yaml");
        let inventory_text = read(&file);
        let diagnostics = lint_with(&inventory_text, Some(&inventory));
        out.push(FileReport::new(
            relative(&file),
            inventory_text,
            diagnostics,
        ));
    }
    out
}

/// How many syntax errors the YAML parser finds (at most one per document).
pub fn syntax_errors(text: &str) -> usize {
    let stream = taintlint::syntax::parse(text);
    usize::from(stream.error.is_some())
        + stream
            .documents
            .iter()
            .filter(|d| d.error.is_some())
            .count()
}

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The lint fixtures of tests/fixtures/ci/lint, as paths relative to the crate root.
pub const LINT_FIXTURES: &[&str] = &[
    "tests/fixtures/ci/lint/clean.yaml",
    "tests/fixtures/ci/lint/crlf.yaml",
    "tests/fixtures/ci/lint/nodes.yaml",
    "tests/fixtures/ci/lint/suppressed.yaml",
    "tests/fixtures/ci/lint/workloads.yaml",
];

/// `helm template` output, linted from standard input.
pub const HELM_RENDERED: &str = "tests/fixtures/ci/lint/helm-rendered.yaml";

/// What a run of the binary printed and how it exited.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `taintlint ARGS` in `dir`, feeding `stdin`.
pub fn run_in(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        // Rendered overlays are kept out of the tree.
        .env(
            "TAINTLINT_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/taintlint_cache"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    {
        let mut input = child.stdin.take().expect("piped");
        if let Some(text) = stdin {
            // The binary may exit without reading its input (a usage error): a broken pipe
            // here is its answer, judged by the assertions on its output and status.
            let _ = input.write_all(text.as_bytes());
        }
    }
    let out = child.wait_with_output().expect("the binary finishes");
    Run {
        stdout: String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 stderr"),
        code: out.status.code().expect("an exit code"),
    }
}

/// Runs `taintlint ARGS` in the crate root.
pub fn run(args: &[&str], stdin: Option<&str>) -> Run {
    run_in(Path::new(ROOT), args, stdin)
}

pub fn fixture(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).expect("the fixture exists")
}

/// Snapshots live in the top-level `snapshots/` folder.
pub fn snapshots() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(true);
    s
}

/// The SARIF output with the tool's version taken out, so snapshots survive a release.
pub fn without_version(sarif: &str) -> String {
    sarif
        .replace(
            &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
            "\"[version]\"",
        )
        .replace(
            &format!("\"taintlint {}\"", env!("CARGO_PKG_VERSION")),
            "\"taintlint [version]\"",
        )
}

/// The teams of [`dedicated_pools`], one pool each: `search` first, `risk` second.
pub const TEAMS: [&str; 50] = [
    "search",
    "risk",
    "ml",
    "payments",
    "ads",
    "billing",
    "fraud",
    "growth",
    "infra",
    "data",
    "analytics",
    "checkout",
    "catalog",
    "identity",
    "messaging",
    "notify",
    "pricing",
    "recs",
    "reporting",
    "security",
    "storage",
    "streaming",
    "support",
    "video",
    "web",
    "mobile",
    "maps",
    "media",
    "logistics",
    "inventory",
    "orders",
    "partners",
    "platform",
    "privacy",
    "quality",
    "ranking",
    "reviews",
    "rewards",
    "sales",
    "shipping",
    "social",
    "sre",
    "tax",
    "travel",
    "trust",
    "vendors",
    "wallet",
    "warehouse",
    "weather",
    "xray",
];

/// A pool file of 53 pools as a platform team runs them: an untainted `general` pool, a
/// `system` pool for add-ons (`CriticalAddonsOnly=true:NoSchedule`, AKS's system pools), a
/// `gpu` pool (`nvidia.com/gpu=present:NoSchedule`), and one pool per team of [`TEAMS`],
/// labelled `dedicated: <team>` and tainted `dedicated=<team>:NoSchedule` (Kubernetes'
/// documented way of dedicating nodes to a group of users, "Taints and Tolerations: Example Use
/// Cases"), of 1 to 4 nodes.
pub fn dedicated_pools() -> String {
    let mut out = String::from(
        "pools:\n  general:\n    count: 6\n  system:\n    count: 3\n    taints: [\"CriticalAddonsOnly=true:NoSchedule\"]\n  gpu:\n    count: 2\n    taints: [\"nvidia.com/gpu=present:NoSchedule\"]\n",
    );
    for (i, team) in TEAMS.iter().enumerate() {
        out.push_str(&format!(
            "  {team}:\n    count: {}\n    labels: {{dedicated: {team}}}\n    taints: [\"dedicated={team}:NoSchedule\"]\n",
            i % 4 + 1
        ));
    }
    out
}

/// A CronJob of the risk team, meant for its dedicated pool (it selects `dedicated: risk`),
/// whose toleration's value is misspelt `rsk`: it fits no node.
pub const RISK_CRONJOB: &str = "\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly-risk
  namespace: risk
spec:
  schedule: \"0 2 * * *\"
  jobTemplate:
    spec:
      template:
        spec:
          nodeSelector:
            dedicated: risk
          tolerations:
          - key: dedicated
            operator: Equal
            value: rsk
            effect: NoSchedule
          containers:
          - name: job
            image: example.com/risk:1
          restartPolicy: OnFailure
";

/// Three more workloads for [`dedicated_pools`]: the search team's indexer, steered to its pool
/// with no toleration; the ML team's trainer, whose toleration has the wrong effect; and a web
/// Deployment that fits the general pool.
pub const TEAM_WORKLOADS: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: indexer, namespace: search}
spec:
  template:
    spec:
      nodeSelector: {dedicated: search}
      containers: [{name: indexer, image: example.com/indexer:1}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: trainer, namespace: ml}
spec:
  template:
    spec:
      nodeSelector: {dedicated: ml}
      tolerations:
      - {key: dedicated, operator: Equal, value: ml, effect: NoExecute}
      containers: [{name: trainer, image: example.com/trainer:1}]
      restartPolicy: Never
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers: [{name: web, image: example.com/web:1}]
";

/// A document's tree as plain data, each multi-line string replaced by the shape of the YAML
/// it holds: what must survive a fix inside a string, key for key.
pub fn outer_shape(text: &str) -> String {
    use taintlint::syntax::{self, Document, NodeId, NodeKind};
    fn shape(doc: &Document<'_>, node: NodeId, out: &mut String) {
        let node = doc.resolve(node);
        match &doc.node(node).kind {
            NodeKind::Scalar { value, .. } if value.contains('\n') => {
                let inner = syntax::parse(value);
                assert!(
                    inner.error.is_none() && inner.documents.iter().all(|d| d.error.is_none()),
                    "a string no longer parses: {value:?}"
                );
                out.push_str("<yaml>");
            }
            NodeKind::Scalar { value, .. } => out.push_str(&format!("{value:?}")),
            NodeKind::Mapping { entries, .. } => {
                out.push('{');
                for &(k, v) in entries {
                    shape(doc, k, out);
                    out.push_str(": ");
                    shape(doc, v, out);
                    out.push_str(", ");
                }
                out.push('}');
            }
            NodeKind::Sequence { items, .. } => {
                out.push('[');
                for &i in items {
                    shape(doc, i, out);
                    out.push_str(", ");
                }
                out.push(']');
            }
            _ => out.push('?'),
        }
    }
    let stream = syntax::parse(text);
    assert!(stream.error.is_none(), "{text}");
    let mut out = String::new();
    for doc in &stream.documents {
        assert!(doc.error.is_none(), "{:?}\n{text}", doc.error);
        if let Some(root) = doc.root {
            shape(doc, root, &mut out);
        }
        out.push_str("\n---\n");
    }
    out
}

/// The nine public repositories of `../shared/corpora` (`real-repos/repos`), unpacked once into
/// the tests' scratch folder; `None` when the archive is not beside the checkout.
pub fn corpora() -> Option<PathBuf> {
    let archive = root().join("../shared/corpora/real-repos.tar.xz");
    if !archive.exists() {
        return None;
    }
    let into = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpora");
    let repos = into.join("real-repos/repos");
    if !repos.exists() {
        // Unpacked beside, then moved into place: a test that finds the folder finds it whole.
        let partial = into.join(format!("partial-{}", std::process::id()));
        std::fs::create_dir_all(&partial).unwrap();
        let status = std::process::Command::new("tar")
            .arg("xJf")
            .arg(&archive)
            .arg("-C")
            .arg(&partial)
            .status()
            .expect("tar runs");
        assert!(status.success(), "tar xJf {}", archive.display());
        let _ = std::fs::rename(partial.join("real-repos"), into.join("real-repos"));
        let _ = std::fs::remove_dir_all(&partial);
    }
    Some(repos)
}
