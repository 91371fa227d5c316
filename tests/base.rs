//! `--base REV`: `simulate` and `lint` against the repository as committed at a revision, on
//! throw-away git repositories the tests build (git is required: these tests fail without it).

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{run_in, Run};
use serde_json::Value;

/// A git repository in a temporary directory, committed with fixed dates (stable object names).
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(self.dir.path())
            .env("GIT_AUTHOR_DATE", "2025-01-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2025-01-01T00:00:00Z")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git is installed");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn write(&self, path: &str, text: &str) -> &Self {
        let p = self.dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        self
    }

    fn edit(&self, path: &str, from: &str, to: &str) -> &Self {
        let p = self.dir.path().join(path);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{path} holds {from:?}");
        std::fs::write(p, text.replacen(from, to, 1)).unwrap();
        self
    }

    fn commit(&self, message: &str) -> &Self {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self
    }

    fn run(&self, args: &[&str]) -> Run {
        run_in(self.dir.path(), args, None)
    }

    fn json(&self, args: &[&str]) -> (Value, Run) {
        let run = self.run(args);
        let value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
        (value, run)
    }
}

const POOLS: &str = "\
pools:
  general:
    count: 4
    labels: {tier: general}
  batch:
    count: 2
    labels: {tier: batch}
    taints:
    - batch=true:NoSchedule
";

const APPS: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers: [{name: web, image: nginx}]
---
apiVersion: batch/v1
kind: Job
metadata:
  name: report
  namespace: shop
spec:
  template:
    spec:
      nodeSelector:
        tier: batch
      tolerations:
      - key: batch
        operator: Exists
      containers: [{name: r, image: busybox}]
";

fn repo() -> Repo {
    let repo = Repo::new();
    repo.write("cluster/pools.yaml", POOLS)
        .write("apps/apps.yaml", APPS)
        .commit("init");
    repo
}

fn simulate(repo: &Repo) -> (Value, Run) {
    repo.json(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "main",
        "-o",
        "json",
        "apps",
    ])
}

fn changes(v: &Value) -> &Vec<Value> {
    v["changes"].as_array().expect("a changes array")
}

#[test]
fn a_taint_added_to_a_pool_strands_what_does_not_tolerate_it() {
    let repo = repo();
    repo.edit(
        "cluster/pools.yaml",
        "    labels: {tier: general}\n",
        "    labels: {tier: general}\n    taints:\n    - dedicated=infra:NoSchedule\n",
    );
    let (v, run) = simulate(&repo);
    assert_eq!(run.code, 1, "the change strands a workload: {}", run.stderr);
    let c = changes(&v);
    assert_eq!(c.len(), 1, "{c:#?}");
    let c = &c[0];
    assert_eq!(c["kind"], "Deployment");
    assert_eq!(c["name"], "web");
    assert_eq!(c["namespace"], "shop");
    assert_eq!(c["file"], "apps/apps.yaml");
    assert_eq!(c["path"], "spec.template.spec");
    assert_eq!(c["before"]["fits"], "yes");
    assert_eq!(c["before"]["pools"], serde_json::json!(["general"]));
    assert_eq!(c["after"]["fits"], "no");
    let cause = &c["cause"];
    assert_eq!(cause["code"], "taint-added");
    assert_eq!(cause["pool"], "general");
    assert_eq!(
        cause["taint"],
        serde_json::json!({"key": "dedicated", "value": "infra", "effect": "NoSchedule"})
    );
    assert_eq!(cause["file"], "cluster/pools.yaml");
    assert_eq!(cause["line"], 6, "the taint's own line");
    assert_eq!(cause["side"], "after");
    assert_eq!(v["base"]["revision"], "main");
    assert_eq!(
        v["base"]["commit"].as_str().unwrap(),
        repo.git(&["rev-parse", "main"]).trim()
    );
}

/// The repository with the Job's toleration of the batch taint removed in the working tree.
fn without_the_jobs_toleration() -> Repo {
    let repo = repo();
    repo.edit(
        "apps/apps.yaml",
        "      tolerations:\n      - key: batch\n        operator: Exists\n",
        "",
    );
    repo
}

/// `simulate --base`'s one change when the Job lost its toleration: its cause.
fn the_job_lost_its_toleration(repo: &Repo) -> Value {
    let (v, run) = simulate(repo);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let c = changes(&v);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0]["name"], "report");
    assert_eq!(c[0]["before"]["pools"], serde_json::json!(["batch"]));
    assert_eq!(c[0]["cause"]["code"], "toleration-removed");
    c[0]["cause"].clone()
}

#[test]
fn a_toleration_removed_is_shown_where_it_was() {
    let cause = the_job_lost_its_toleration(&without_the_jobs_toleration());
    assert_eq!(cause["file"], "apps/apps.yaml");
    assert_eq!(cause["line"], 22, "the toleration's line at main");
    assert_eq!(cause["side"], "before");
    assert_eq!(
        cause["message"],
        "its toleration of batch=true:NoSchedule was removed (pool batch)"
    );
}

/// The base tree takes the files a change leaves as they are from the working tree; a file git
/// is told not to look at (`--assume-unchanged`) is read from the revision all the same.
#[test]
fn a_file_git_is_told_not_to_look_at_is_read_at_the_revision() {
    let repo = without_the_jobs_toleration();
    repo.git(&["update-index", "--assume-unchanged", "apps/apps.yaml"]);
    the_job_lost_its_toleration(&repo);
}

/// A file the working tree has as committed is copied from there when it is small; a big one is
/// read through git, since a checkout filter (Git LFS) may have made a big file of a small
/// object. Here a filter swaps a node selector: the working tree says `general` where the
/// objects say `batch`, and git sees no change in either file.
#[test]
fn a_big_file_git_sees_unchanged_is_read_through_git() {
    let repo = Repo::new();
    repo.git(&[
        "config",
        "filter.swap.smudge",
        "sed s/tier:.batch/tier:\\ general/",
    ]);
    repo.git(&[
        "config",
        "filter.swap.clean",
        "sed s/tier:.general/tier:\\ batch/",
    ]);
    let job = |name: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {name}\n  namespace: shop\n\
             spec:\n  template:\n    spec:\n      nodeSelector:\n        tier: general\n      \
             containers: [{{name: r, image: busybox}}]\n"
        )
    };
    let padding = format!("# {}\n", "x".repeat(100)).repeat(11_000);
    repo.write("cluster/pools.yaml", POOLS)
        .write(".gitattributes", "apps/*.yaml filter=swap\n")
        .write("apps/small.yaml", &job("small"))
        .write("apps/big.yaml", &format!("{padding}{}", job("big")))
        .commit("init");
    let blob = repo.git(&["cat-file", "blob", "HEAD:apps/small.yaml"]);
    assert!(
        blob.contains("tier: batch"),
        "the object says batch: {blob}"
    );
    assert!(repo.git(&["status", "--porcelain"]).is_empty());
    let (v, run) = simulate(&repo);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The small file is the working tree's on both sides; the big one is the object at main.
    let c = changes(&v);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0]["name"], "big");
    assert_eq!(c[0]["before"]["fits"], "no");
    assert_eq!(c[0]["after"]["pools"], serde_json::json!(["general"]));
}

#[test]
fn a_toleration_changed_is_shown_where_it_is() {
    let repo = repo();
    repo.edit(
        "apps/apps.yaml",
        "operator: Exists",
        "operator: Equal\n        value: \"yes\"",
    );
    let (v, _) = simulate(&repo);
    let cause = &changes(&v)[0]["cause"];
    assert_eq!(cause["code"], "toleration-changed");
    assert_eq!(cause["line"], 22);
    assert_eq!(cause["side"], "after");
}

#[test]
fn a_pool_deleted() {
    let repo = repo();
    repo.edit(
        "cluster/pools.yaml",
        "  batch:\n    count: 2\n    labels: {tier: batch}\n    taints:\n    - batch=true:NoSchedule\n",
        "",
    );
    let (v, run) = simulate(&repo);
    assert_eq!(run.code, 1);
    let c = changes(&v);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0]["name"], "report");
    assert_eq!(c[0]["cause"]["code"], "pool-removed");
    assert_eq!(c[0]["cause"]["pool"], "batch");
    assert_eq!(c[0]["cause"]["line"], 5);
    assert_eq!(c[0]["cause"]["side"], "before");
}

/// Files moved and renamed (a manifest, the pool file of an inventory directory): nothing
/// moves, and a workload that fit no node before does not fail the run (old debt).
#[test]
fn a_rename_that_changes_nothing() {
    let repo = repo();
    repo.write(
        "apps/stuck.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: stuck}\nspec:\n  nodeSelector: {tier: gpu}\n  containers: [{name: c, image: busybox}]\n",
    )
    .commit("a pod that fits nowhere");
    std::fs::create_dir(repo.path().join("apps/pods")).unwrap();
    repo.git(&["mv", "apps/stuck.yaml", "apps/pods/stuck-pod.yaml"]);
    repo.git(&["mv", "cluster/pools.yaml", "cluster/node-pools.yaml"]);
    let (v, run) = repo.json(&[
        "simulate",
        "--inventory",
        "cluster",
        "--base",
        "main",
        "-o",
        "json",
        "apps",
    ]);
    assert_eq!(changes(&v), &Vec::<Value>::new());
    assert_eq!(run.code, 0, "old debt: {}", run.stderr);
    let human = repo.run(&[
        "simulate",
        "--inventory",
        "cluster",
        "--base",
        "main",
        "apps",
    ]);
    assert!(human.stdout.starts_with("Placement changes since main ("));
    assert!(
        human.stdout.lines().next().unwrap().ends_with("): none."),
        "{}",
        human.stdout
    );
    // Without --base, the stuck pod fails the run.
    let plain = repo.run(&["simulate", "--inventory", "cluster", "apps"]);
    assert_eq!(plain.code, 1);
}

#[test]
fn a_change_that_frees_a_workload() {
    let repo = repo();
    repo.edit(
        "apps/apps.yaml",
        "      containers: [{name: web, image: nginx}]\n",
        "      nodeSelector: {tier: batch}\n      containers: [{name: web, image: nginx}]\n",
    )
    .commit("web on batch: stranded");
    repo.edit(
        "apps/apps.yaml",
        "      nodeSelector: {tier: batch}\n",
        "      nodeSelector: {tier: batch}\n      tolerations: [{key: batch, operator: Exists}]\n",
    );
    let (v, run) = simulate(&repo);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let c = changes(&v);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0]["before"]["fits"], "no");
    assert_eq!(c[0]["after"]["fits"], "yes");
    assert_eq!(c[0]["after"]["pools"], serde_json::json!(["batch"]));
    assert_eq!(c[0]["cause"]["code"], "toleration-added");
    assert_eq!(c[0]["cause"]["line"], 10);
}

#[test]
fn nothing_changed_is_an_empty_list() {
    let repo = repo();
    let (v, run) = simulate(&repo);
    assert_eq!(run.code, 0);
    assert_eq!(changes(&v), &Vec::<Value>::new());
    let human = repo.run(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "main",
        "apps",
    ]);
    assert!(
        human.stdout.starts_with("Placement changes since main ("),
        "{}",
        human.stdout
    );
    assert!(human.stdout.lines().next().unwrap().ends_with("): none."));
}

/// The inventory as `kubectl get nodes -o yaml` prints it (a `kind: List` of Nodes): a taint
/// added to one node group.
#[test]
fn a_node_list_inventory() {
    let node = |name: &str, pool: &str, taints: &str| {
        format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {name}\n    labels:\n      \
             kubernetes.io/hostname: {name}\n      eks.amazonaws.com/nodegroup: {pool}\n  \
             spec:{taints}\n"
        )
    };
    let nodes = |gpu_taints: &str| {
        format!(
            "apiVersion: v1\nkind: List\nitems:\n{}{}{}{}",
            node("ip-1", "general", " {}"),
            node("ip-2", "general", " {}"),
            node("ip-3", "gpu", gpu_taints),
            node("ip-4", "gpu", gpu_taints),
        )
    };
    let repo = Repo::new();
    repo.write("nodes.yaml", &nodes(" {}"))
        .write(
            "app.yaml",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: kube-system}\nspec:\n  template:\n    spec:\n      containers: [{name: a, image: agent}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: w, image: web}]\n",
        )
        .commit("init");
    repo.write(
        "nodes.yaml",
        &nodes("\n    taints:\n    - key: nvidia.com/gpu\n      value: \"true\"\n      effect: NoSchedule"),
    );
    let (v, run) = repo.json(&[
        "simulate",
        "--inventory",
        "nodes.yaml",
        "--base",
        "main",
        "-o",
        "json",
        "app.yaml",
    ]);
    let c = changes(&v);
    assert_eq!(c.len(), 2, "{c:#?}\n{}", run.stderr);
    // The DaemonSet newly misses the GPU nodes.
    let ds = c.iter().find(|c| c["kind"] == "DaemonSet").unwrap();
    assert_eq!(ds["before"]["daemonset"]["missed"], 0);
    assert_eq!(ds["after"]["daemonset"]["missed"], 2);
    assert_eq!(
        ds["after"]["daemonset"]["missedPools"],
        serde_json::json!(["gpu"])
    );
    assert_eq!(ds["cause"]["code"], "taint-added");
    // The taint's key line, in the first node of the pool.
    let text = std::fs::read_to_string(repo.path().join("nodes.yaml")).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("key: nvidia.com/gpu"))
        .unwrap()
        + 1;
    assert_eq!(ds["cause"]["line"], line);
    let web = c.iter().find(|c| c["kind"] == "Deployment").unwrap();
    assert_eq!(
        web["before"]["pools"],
        serde_json::json!(["general", "gpu"])
    );
    assert_eq!(web["after"]["pools"], serde_json::json!(["general"]));
    assert_eq!(web["after"]["fits"], "yes");
    // Fewer nodes, but not none: the run does not fail.
    assert_eq!(run.code, 0);
    // For people: before and after, and the cause at its line.
    let human = repo.run(&[
        "simulate",
        "--inventory",
        "nodes.yaml",
        "--base",
        "main",
        "app.yaml",
    ]);
    let words = human
        .stdout
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for said in [
        "runs on all 4 nodes it picks -> misses 2 of the 4 nodes it picks, in gpu".to_string(),
        "fits 4 nodes in general, gpu -> fits 2 nodes in general".to_string(),
        format!(
            "the taint nvidia.com/gpu=true:NoSchedule was added to pool gpu (nodes.yaml:{line})"
        ),
    ] {
        assert!(words.contains(&said), "{said}: {}", human.stdout);
    }
}

/// kubernetes-sigs/karpenter#2816: a taint added to a NodePool strands the pods that do not
/// tolerate it, and the review is told before it merges.
#[test]
fn a_taint_added_to_a_karpenter_nodepool() {
    let nodepool = "\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - key: kubernetes.io/arch
        operator: In
        values: [amd64]
";
    let repo = Repo::new();
    repo.write("karpenter/nodepool.yaml", nodepool)
        .write(
            "apps/web.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers: [{name: w, image: web}]\n",
        )
        .write(
            "apps/ingest.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ingest, namespace: shop}\nspec:\n  template:\n    spec:\n      tolerations: [{key: example.com/team, operator: Equal, value: data, effect: NoSchedule}]\n      containers: [{name: i, image: ingest}]\n",
        )
        .commit("init");
    repo.edit(
        "karpenter/nodepool.yaml",
        "      requirements:\n",
        "      taints:\n      - key: example.com/team\n        value: data\n        effect: NoSchedule\n      requirements:\n",
    );
    let (v, run) = repo.json(&[
        "simulate",
        "--inventory",
        "karpenter",
        "--base",
        "main",
        "-o",
        "json",
        "apps",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let c = changes(&v);
    assert_eq!(c.len(), 1, "only web is stranded: {c:#?}");
    assert_eq!(c[0]["name"], "web");
    assert_eq!(c[0]["before"]["pools"], serde_json::json!(["default"]));
    assert_eq!(c[0]["after"]["fits"], "no");
    assert_eq!(c[0]["cause"]["code"], "taint-added");
    assert_eq!(c[0]["cause"]["file"], "karpenter/nodepool.yaml");
    assert_eq!(c[0]["cause"]["line"], 10, "the taint's `- key:` line");
}

/// A pool that loses the label a workload spreads over (`DoNotSchedule`) strands it: the cause
/// is the label, in the pool's definition.
#[test]
fn a_label_a_spread_needs_removed_from_a_pool() {
    let repo = Repo::new();
    repo.write(
        "cluster/pools.yaml",
        "pools:\n  general:\n    count: 3\n    labels: {tier: general, rack: r1}\n",
    )
    .write(
        "apps/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      topologySpreadConstraints: [{maxSkew: 1, topologyKey: rack, whenUnsatisfiable: DoNotSchedule}]\n      containers: [{name: w, image: web}]\n",
    )
    .commit("init");
    repo.edit("cluster/pools.yaml", ", rack: r1", "");
    let (v, run) = simulate(&repo);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let c = changes(&v);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(c[0]["name"], "web");
    assert_eq!(c[0]["after"]["fits"], "no");
    assert_eq!(c[0]["cause"]["code"], "label-changed");
    assert_eq!(c[0]["cause"]["label"], "rack");
    assert_eq!(
        c[0]["cause"]["message"],
        "pool general's label rack changed from `r1` to (none)"
    );
    assert_eq!(c[0]["cause"]["file"], "cluster/pools.yaml");
}

#[test]
fn lint_reports_only_what_the_change_introduces() {
    let repo = repo();
    // Old debt: a toleration with an unknown effect.
    repo.edit(
        "apps/apps.yaml",
        "        operator: Exists\n",
        "        operator: Exists\n        effect: NoScheduled\n",
    )
    .commit("old debt");
    // The change: lines above it (the old finding moves), and a new misspelling elsewhere.
    repo.edit(
        "apps/apps.yaml",
        "      containers: [{name: web, image: nginx}]\n",
        "      tolerations:\n      - key: node.kubernetes.io/unreachabel\n        operator: Exists\n      containers: [{name: web, image: nginx}]\n",
    );
    let (v, run) = repo.json(&["lint", "--base", "main", "-o", "json", "apps"]);
    let found: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap(),
                d["object"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(!found.contains(&("unknown-effect", "report")), "{found:?}");
    assert!(found.iter().all(|(_, name)| *name == "web"), "{found:?}");
    assert!(!found.is_empty());
    let plain = repo.json(&["lint", "-o", "json", "apps"]).0;
    assert!(plain["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["rule"] == "unknown-effect"));
    assert!(
        run.stderr.contains("compared with main ("),
        "{}",
        run.stderr
    );
    // Only old debt: exit 0, where a plain lint fails.
    repo.git(&["checkout", "-q", "--", "apps"]);
    let old = repo.run(&["lint", "--base", "main", "apps"]);
    assert_eq!(old.code, 0, "{}{}", old.stdout, old.stderr);
    assert_eq!(repo.run(&["lint", "apps"]).code, 1);
}

/// In GitHub and SARIF output, a workload stranded by a taint added to a pool file is annotated
/// on the taint's line (the line in the pull request's diff), naming the workload.
#[test]
fn lint_places_a_new_finding_on_the_changed_line_that_caused_it() {
    let repo = repo();
    repo.edit(
        "cluster/pools.yaml",
        "    labels: {tier: general}\n",
        "    labels: {tier: general}\n    taints:\n    - dedicated=infra:NoSchedule\n",
    );
    let args = |format: &'static str| {
        vec![
            "lint",
            "--inventory",
            "cluster/pools.yaml",
            "--base",
            "main",
            "-o",
            format,
            "apps",
        ]
    };
    let github = repo.run(&args("github"));
    assert_eq!(github.code, 1);
    let lines: Vec<&str> = github.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", github.stdout);
    assert!(
        lines[0].starts_with("::error file=cluster/pools.yaml,line=6,"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("Deployment shop/web fits no node"));
    assert!(lines[0].ends_with("(apps/apps.yaml:4)"), "{}", lines[0]);
    let (sarif, _) = repo.json(&args("sarif"));
    let result = &sarif["runs"][0]["results"][0];
    let at = &result["locations"][0]["physicalLocation"];
    assert_eq!(at["artifactLocation"]["uri"], "cluster/pools.yaml");
    assert_eq!(at["region"]["startLine"], 6);
    let own = &result["relatedLocations"][0]["physicalLocation"];
    assert_eq!(own["artifactLocation"]["uri"], "apps/apps.yaml");
    assert_eq!(own["region"]["startLine"], 4);
    // Human output keeps the finding on the workload.
    let human = repo.run(&args("concise"));
    assert!(
        human.stdout.starts_with("apps/apps.yaml:4:"),
        "{}",
        human.stdout
    );
}

/// An inventory git does not track (a node list the job wrote) is the same on both sides; one
/// outside the repository too.
#[test]
fn an_untracked_inventory_is_the_same_at_both_revisions() {
    let repo = repo();
    repo.write(
        "nodes.yaml",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels: {tier: batch}\nspec: {}\n",
    );
    let outside = tempfile::tempdir().unwrap();
    let outside_nodes = outside.path().join("nodes.yaml");
    std::fs::copy(repo.path().join("nodes.yaml"), &outside_nodes).unwrap();
    for inventory in ["nodes.yaml", outside_nodes.to_str().unwrap()] {
        let (v, run) = repo.json(&[
            "simulate",
            "--inventory",
            inventory,
            "--base",
            "main",
            "-o",
            "json",
            "apps",
        ]);
        assert_eq!(run.code, 0, "{inventory}: {}", run.stderr);
        assert_eq!(changes(&v), &Vec::<Value>::new());
    }
}

#[test]
fn base_problems_exit_2_with_a_clear_message() {
    let repo = repo();
    let bad = repo.run(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "nope",
        "apps",
    ]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("`nope` does not name a commit of this repository"),
        "{}",
        bad.stderr
    );
    assert!(bad.stdout.is_empty());
    // A revision is never taken for an option of git's.
    let option = repo.run(&["lint", "--base=--output=/tmp/x", "apps"]);
    assert_eq!(option.code, 2, "{}", option.stderr);
    assert!(
        option.stderr.contains("does not name a commit"),
        "{}",
        option.stderr
    );
    let lint_bad = repo.run(&["lint", "--base", "HEAD~5", "apps"]);
    assert_eq!(lint_bad.code, 2);
    assert!(lint_bad.stderr.contains("`HEAD~5` does not name a commit"));
    let stdin = run_in(
        &repo.path(),
        &["lint", "--base", "main", "-"],
        Some("kind: Pod\n"),
    );
    assert_eq!(stdin.code, 2);
    assert!(
        stdin.stderr.contains("standard input has no revision"),
        "{}",
        stdin.stderr
    );
    // Outside a work tree.
    let plain = tempfile::tempdir().unwrap();
    std::fs::write(plain.path().join("a.yaml"), APPS).unwrap();
    std::fs::write(plain.path().join("pools.yaml"), POOLS).unwrap();
    let outside = run_in(
        plain.path(),
        &[
            "simulate",
            "--inventory",
            "pools.yaml",
            "--base",
            "main",
            "a.yaml",
        ],
        None,
    );
    assert_eq!(outside.code, 2);
    assert!(
        outside.stderr.contains("not in a git work tree"),
        "{}",
        outside.stderr
    );
    // `--fix` rewrites the working tree: it does not go with --base.
    assert_eq!(
        repo.run(&["lint", "--base", "main", "--fix", "apps"]).code,
        2
    );
}

/// Without git on the PATH, `--base` says so.
#[test]
fn without_git() {
    let repo = repo();
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(["lint", "--base", "main", "apps"])
        .current_dir(repo.path())
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("git is not installed"), "{stderr}");
}

/// A new file is all new; a file the change deletes is gone with its workloads.
#[test]
fn files_added_and_deleted() {
    let repo = repo();
    repo.write(
        "apps/new.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: lost}\nspec:\n  nodeSelector: {tier: gpu}\n  containers: [{name: c, image: busybox}]\n",
    );
    let (v, run) = simulate(&repo);
    assert_eq!(changes(&v), &Vec::<Value>::new());
    assert_eq!(
        run.code, 1,
        "a new workload that fits nowhere fails the run"
    );
    let human = repo.run(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "main",
        "apps",
    ]);
    assert!(
        human.stdout.contains("none (1 workload added)."),
        "{}",
        human.stdout
    );
    // A path only the working tree has.
    let (v, run) = repo.json(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "main",
        "-o",
        "json",
        "apps/new.yaml",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(changes(&v), &Vec::<Value>::new());
    let lint = repo.run(&["lint", "--base", "main", "apps/new.yaml"]);
    assert_eq!(lint.code, 0, "{}{}", lint.stdout, lint.stderr);
    std::fs::remove_file(repo.path().join("apps/new.yaml")).unwrap();
    std::fs::remove_file(repo.path().join("apps/apps.yaml")).unwrap();
    repo.write(
        "apps/other.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    );
    let human = repo.run(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "main",
        "apps",
    ]);
    assert!(
        human.stdout.contains("none (2 workloads removed)."),
        "{}",
        human.stdout
    );
}

/// A change that adds the inventory: the base revision has the manifests but no cluster, so
/// every placement is new (said once), not a failure to simulate the base; a workload the new
/// cluster cannot run fails the run as a new workload would.
#[test]
fn an_inventory_the_change_adds() {
    let repo = Repo::new();
    repo.write("apps/apps.yaml", APPS).commit("apps only");
    repo.write("cluster/pools.yaml", POOLS)
        .commit("the cluster");
    let since = |repo: &Repo| {
        repo.json(&[
            "simulate",
            "--inventory",
            "cluster/pools.yaml",
            "--base",
            "HEAD~1",
            "-o",
            "json",
            "apps",
        ])
    };
    let (v, run) = since(&repo);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(changes(&v), &Vec::<Value>::new());
    assert!(
        run.stderr
            .contains("taintlint: warning: --base: cluster/pools.yaml is not at HEAD~1 (")
            && run
                .stderr
                .contains("): the change adds the inventory, so every placement is new"),
        "{}",
        run.stderr
    );
    // The report Job, retargeted to a tier the new cluster lacks, runs nowhere: exit 1.
    repo.edit("apps/apps.yaml", "tier: batch", "tier: gpu");
    let (_, run) = since(&repo);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // A revision that does not resolve is still a problem (exit 2).
    let run = repo.run(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "no-such-revision",
        "apps",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

/// A manifest directory the base revision does not have: its workloads are new, the base side
/// is not run on nothing, and nothing fails that would not without `--base`.
#[test]
fn a_manifest_directory_the_change_adds() {
    let repo = repo();
    repo.write("jobs/apps.yaml", APPS);
    let args = |format: &'static str| {
        vec![
            "simulate",
            "--inventory",
            "cluster/pools.yaml",
            "--base",
            "main",
            "-o",
            format,
            "jobs",
        ]
    };
    let (v, run) = repo.json(&args("json"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(changes(&v), &Vec::<Value>::new());
    assert_eq!(v["workloads"].as_array().map(Vec::len), Some(2));
    let human = repo.run(&args("human"));
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human.stdout.contains("none (2 workloads added)."),
        "{}",
        human.stdout
    );
    // Beside a directory the base revision has, only the new one's workloads are added.
    let both = repo.run(&[
        "simulate",
        "--inventory",
        "cluster/pools.yaml",
        "--base",
        "main",
        "apps",
        "jobs",
    ]);
    assert_eq!(both.code, 0, "{}", both.stderr);
    assert!(
        both.stdout.contains("none (2 workloads added)."),
        "{}",
        both.stdout
    );
}

/// A JSON list of two Nodes of pool `web`, each padded to `kib` KiB; the second's `spec`
/// holds `taints` (a member, or nothing).
fn big_node_list(kib: usize, taints: &str) -> String {
    let padding = "x".repeat(kib * 1024);
    format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n\
         {{\"kind\": \"Node\", \"metadata\": {{\"name\": \"a\", \"labels\": {{\"pool\": \"web\"}}, \"annotations\": {{\"pad\": \"{padding}\"}}}}, \"spec\": {{}}}},\n\
         {{\"kind\": \"Node\", \"metadata\": {{\"name\": \"b\", \"labels\": {{\"pool\": \"web\"}}, \"annotations\": {{\"pad\": \"{padding}\"}}}},\n\
         \"spec\": {{{taints}}}}}]}}\n"
    )
}

/// The taint the change adds to the big node list's second node (its line 4).
const MAINTENANCE: &str = "\"taints\": [{\"key\": \"maintenance\", \"effect\": \"NoSchedule\"}]";

/// `simulate --base main` with `nodes.json` as the inventory: the change the maintenance taint
/// made to `web` (one of its two nodes left), and the cause's JSON.
fn web_lost_a_node(repo: &Repo) -> Value {
    let (v, run) = repo.json(&[
        "simulate",
        "--inventory",
        "nodes.json",
        "--base",
        "main",
        "-o",
        "json",
        "apps",
    ]);
    // (Nothing is stranded: one node is left.)
    assert_eq!(run.code, 0, "{}", run.stderr);
    let web = changes(&v)
        .iter()
        .find(|c| c["name"] == "web")
        .unwrap_or_else(|| panic!("{v:#}\n{}", run.stderr));
    assert_eq!(web["before"]["nodes"], 2, "{web}");
    assert_eq!(web["after"]["nodes"], 1, "{web}");
    assert_eq!(web["cause"]["code"], "taint-added", "{web}");
    web["cause"].clone()
}

/// A big node list the change edits is written into the base tree by git itself; what it says
/// is still named by the file, and its taint placed at its line. Past 8 MiB (too big to compare
/// line by line) only the lines near the pool are read for it.
#[test]
fn a_big_node_list_edited() {
    for kib in [600, 4200] {
        let repo = Repo::new();
        repo.write("nodes.json", &big_node_list(kib, ""))
            .write("apps/apps.yaml", APPS)
            .commit("init");
        repo.write("nodes.json", &big_node_list(kib, MAINTENANCE));
        let cause = web_lost_a_node(&repo);
        assert_eq!(cause["file"], "nodes.json", "{kib} KiB");
        assert_eq!(cause["line"], 4, "{kib} KiB");
    }
}

/// A big inventory that is a symbolic link, pointed elsewhere by the change: at the base
/// revision it is the link as committed, to the node list it named then.
#[cfg(unix)]
#[test]
fn a_big_node_list_behind_a_symbolic_link() {
    let repo = Repo::new();
    repo.write("cluster/old.json", &big_node_list(600, ""))
        .write("cluster/new.json", &big_node_list(600, MAINTENANCE))
        .write("apps/apps.yaml", APPS);
    let link = repo.dir.path().join("nodes.json");
    std::os::unix::fs::symlink("cluster/old.json", &link).unwrap();
    repo.commit("init");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("cluster/new.json", &link).unwrap();
    web_lost_a_node(&repo);
}

/// The example of docs/simulate.md ("What a change moves") and docs/ci.md: a pool dedicated
/// to one team, the CronJob given the new toleration, a Job and a DaemonSet forgotten.
fn docs_example() -> Repo {
    let repo = Repo::new();
    repo.write(
        "cluster/pools.yaml",
        r#"# Node pools, as `kubectl taint` writes taints.
pools:
  general:
    count: 4
  batch:
    count: 2
    labels: {workload: batch}
    taints:
    - batch=true:NoSchedule
"#,
    );
    repo.write(
        "apps/report.yaml",
        r#"apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly-report
  namespace: analytics
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          nodeSelector:
            workload: batch
          tolerations:
          - key: batch
            operator: Exists
            effect: NoSchedule
          containers:
          - name: report
            image: registry.example.com/report:1.4
          restartPolicy: OnFailure
"#,
    );
    repo.write(
        "apps/node-exporter.yaml",
        r#"apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-exporter
  namespace: monitoring
spec:
  selector:
    matchLabels: {app: node-exporter}
  template:
    metadata:
      labels: {app: node-exporter}
    spec:
      tolerations:
      - key: batch
        operator: Exists
      containers:
      - name: node-exporter
        image: quay.io/prometheus/node-exporter:v1.8.2
"#,
    );
    repo.write(
        "apps/web.yaml",
        r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example.com/web:2.0
"#,
    );
    repo.write(
        "apps/etl.yaml",
        r#"apiVersion: batch/v1
kind: Job
metadata:
  name: etl
  namespace: analytics
spec:
  template:
    spec:
      nodeSelector:
        workload: batch
      tolerations:
      - key: batch
        operator: Exists
        effect: NoSchedule
      containers:
      - name: etl
        image: registry.example.com/etl:3.1
      restartPolicy: Never
"#,
    );
    repo.commit("main");
    repo.edit(
        "cluster/pools.yaml",
        "    - batch=true:NoSchedule\n",
        "    - batch=true:NoSchedule\n    - team=data:NoSchedule\n",
    );
    repo.edit(
        "apps/report.yaml",
        "            effect: NoSchedule\n",
        "            effect: NoSchedule\n          - key: team\n            operator: Equal\n            value: data\n",
    );
    repo
}

/// The block of `page` that follows the command `command` shown in a `sh` block.
fn shown_after(page: &str, command: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/{page}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let marker = format!("```sh\n{command}\n```\n\n```text\n");
    let at = text
        .find(&marker)
        .unwrap_or_else(|| panic!("{page} shows `{command}`"))
        + marker.len();
    text[at..at + text[at..].find("```").unwrap()].to_string()
}

#[test]
fn the_documented_examples_are_what_taintlint_prints() {
    let repo = docs_example();
    let command = "taintlint simulate --inventory cluster/pools.yaml --base main apps";
    let run = repo.run(&command.split(' ').skip(1).collect::<Vec<_>>());
    assert_eq!(run.code, 1, "{}", run.stderr);
    let shown = shown_after("docs/simulate.md", command);
    assert!(
        run.stdout.starts_with(&shown),
        "docs/simulate.md shows:\n{shown}\ntaintlint prints:\n{}",
        run.stdout
    );
    let command = "taintlint lint --inventory cluster/pools.yaml --base main -o github apps";
    let run = repo.run(&command.split(' ').skip(1).collect::<Vec<_>>());
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, shown_after("docs/ci.md", command));
}
