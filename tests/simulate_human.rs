//! `simulate`'s output for people at cluster size: 50 pools by 200 workloads at 80 and 200
//! columns, `--only`, `--why`, `COLUMNS`, display widths, and workloads the API server rejects.

mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use taintlint::inventory::Inventory;
use taintlint::Options;
use unicode_width::UnicodeWidthStr;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s
}

/// Runs `taintlint` in `dir` with `COLUMNS` set to `columns` (or unset), output to a pipe.
fn run_in(dir: &Path, columns: Option<&str>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_taintlint"));
    c.args(args).current_dir(dir);
    match columns {
        Some(n) => c.env("COLUMNS", n),
        None => c.env_remove("COLUMNS"),
    };
    c.output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

const FAMILIES: &[(&str, &[&str])] = &[
    ("general", &[]),
    ("gpu", &["nvidia.com/gpu=present:NoSchedule"]),
    ("batch", &["example.com/batch:PreferNoSchedule"]),
    ("spot", &["example.com/spot=true:NoExecute"]),
    ("infra", &["node-role.kubernetes.io/infra:NoSchedule"]),
    ("db", &["example.com/dedicated=db:NoSchedule"]),
    ("edge", &["example.com/edge:NoSchedule"]),
];

/// The CJK workload, the long ones (two that differ only at the end), the one that fits no
/// node and the one the API server rejects, by index.
const CJK: usize = 3;
const LONG: [usize; 2] = [5, 6];
const NOWHERE: usize = 150;
const REJECTED: usize = 77;

/// A pool file of 50 pools: seven families of taints, sizes from 1 to 23 nodes, one pool with a
/// name longer than the legend's column and one cordoned pool.
fn pools() -> String {
    let mut out = String::from("pools:\n");
    for i in 0..50 {
        let (family, taints) = FAMILIES[i % FAMILIES.len()];
        let name = if i == 8 {
            format!("{family}-h100-reserved-capacity-{i:02}")
        } else {
            format!("{family}-{i:02}")
        };
        writeln!(out, "  {name}:").unwrap();
        writeln!(out, "    count: {}", (i * 7) % 23 + 1).unwrap();
        writeln!(out, "    labels: {{example.com/pool: {family}}}").unwrap();
        let mut taints: Vec<String> = taints.iter().map(|t| format!("\"{t}\"")).collect();
        if i == 13 {
            writeln!(out, "    unschedulable: true").unwrap();
            taints.push("node.kubernetes.io/unschedulable:NoSchedule".into());
        }
        writeln!(out, "    taints: [{}]", taints.join(", ")).unwrap();
    }
    out
}

/// 200 Deployments in 8 files. Most run on general pools, some tolerate a family and select
/// it, some select the batch pools (nodes to avoid only).
fn workload(j: usize) -> String {
    let name = match j {
        CJK => "支払い-api".to_string(),
        5 => "payments-reconciliation-worker-for-the-european-settlement-window-eu-west".into(),
        6 => "payments-reconciliation-worker-for-the-european-settlement-window-eu-central".into(),
        _ => format!("svc-{j:03}"),
    };
    let (family, taints) = FAMILIES[j % FAMILIES.len()];
    let mut spec = String::new();
    if j == NOWHERE {
        spec.push_str("      nodeSelector: {example.com/pool: gpu-h100}\n");
    } else if j == REJECTED {
        spec.push_str(
            "      tolerations:\n      - key: example.com/dedicated\n        operator: Exists\n        efect: NoSchedule\n",
        );
    } else if j % 40 == 13 {
        spec.push_str("      nodeSelector: {example.com/pool: batch}\n");
    } else if j.is_multiple_of(3) && !taints.is_empty() && family != "batch" {
        writeln!(spec, "      nodeSelector: {{example.com/pool: {family}}}").unwrap();
        spec.push_str("      tolerations:\n");
        for t in taints.iter() {
            let (kv, effect) = t.rsplit_once(':').unwrap();
            let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
            let op = if value.is_empty() {
                "operator: Exists".to_string()
            } else {
                format!("operator: Equal, value: \"{value}\"")
            };
            writeln!(spec, "      - {{key: {key}, {op}, effect: {effect}}}").unwrap();
        }
    } else {
        spec.push_str("      nodeSelector: {example.com/pool: general}\n");
    }
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: team-{}\nspec:\n  template:\n    spec:\n      containers: [{{name: app, image: app}}]\n{spec}",
        j % 5
    )
}

/// A directory with `cluster.yaml` and `apps/team-N.yaml`.
fn cluster() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cluster.yaml"), pools()).unwrap();
    std::fs::create_dir(dir.path().join("apps")).unwrap();
    for f in 0..8 {
        let docs: Vec<String> = (f * 25..(f + 1) * 25).map(workload).collect();
        std::fs::write(
            dir.path().join(format!("apps/team-{f}.yaml")),
            docs.join("---\n"),
        )
        .unwrap();
    }
    dir
}

fn simulate(dir: &Path, columns: Option<&str>, extra: &[&str]) -> String {
    let mut args = vec!["simulate", "--inventory", "cluster.yaml", "apps"];
    args.extend_from_slice(extra);
    let o = run_in(dir, columns, &args);
    assert_eq!(
        o.status.code(),
        Some(1),
        "one workload fits nowhere: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

/// The lines no wider than `columns`, but for a word that is wider on its own.
fn assert_fits(out: &str, columns: usize) {
    for line in out.lines() {
        let w = line.width();
        assert!(
            w <= columns || !line.trim().contains(' '),
            "{w} columns, wider than {columns}: {line}"
        );
    }
}

#[test]
fn fifty_pools_by_two_hundred_workloads() {
    let dir = cluster();
    for columns in [80, 200] {
        let out = simulate(dir.path(), Some(&columns.to_string()), &[]);
        assert_fits(&out, columns);
        // A line or two per pool and per workload: no row is repeated per band of pools (the
        // matrix in bands of 16 pools took 2,179 lines).
        assert!(out.lines().count() < 1000, "{}", out.lines().count());
        for j in 0..200 {
            let title = match j {
                CJK => "支払い-api".to_string(),
                _ if LONG.contains(&j) => continue,
                _ => format!("svc-{j:03}"),
            };
            assert_eq!(
                out.matches(&format!("team-{}/{title}", j % 5)).count(),
                1 + usize::from(j == NOWHERE || j == REJECTED),
                "{title} once, and in the summary if it runs nowhere"
            );
        }
        // Long names whole (wrapped at most), and told apart.
        let joined = out.replace("\n    ", "").replace("\n  ", "");
        assert!(joined.contains("window-eu-west"));
        assert!(joined.contains("window-eu-central"));
        assert!(!out.contains('…'));
        // What runs nowhere comes first, and the summary names it.
        let first_row = out.find("team-0/svc-000").unwrap();
        assert!(out.find("team-0/svc-150").unwrap() < first_row);
        assert!(out.find("team-2/svc-077").unwrap() < first_row);
        let summary = &out[out.rfind("200 workloads simulated").unwrap()..];
        assert!(summary.contains("Deployment team-0/svc-150 (apps/team-6.yaml)"));
        assert!(summary.contains("Rejected: Deployment team-2/svc-077 (apps/team-3.yaml)"));
        let name = format!("simulate_human_50x200_{columns}");
        settings().bind(|| insta::assert_snapshot!(name, out));
    }
}

#[test]
fn only_filters_rows_and_the_summary_counts_all() {
    let dir = cluster();
    let no = simulate(dir.path(), Some("200"), &["--only", "no"]);
    assert!(no.contains("team-0/svc-150"));
    assert!(no.contains("team-2/svc-077"), "rejected is among `no`");
    assert!(!no.contains("team-0/svc-000"));
    assert!(!no.contains("Fit only on nodes to avoid"));
    assert!(no.contains("200 workloads simulated"));
    assert!(no.contains("2 of them shown (--only no)."));

    let avoided = simulate(dir.path(), Some("200"), &["--only", "avoided"]);
    assert!(avoided.contains("Fit only on nodes to avoid (5)"));
    assert!(avoided.contains("team-3/svc-013"));
    assert!(!avoided.contains("Fit no node ("));
    assert!(!avoided.contains("\nFit ("));

    let comma = simulate(dir.path(), Some("200"), &["--only", "yes,avoided"]);
    let repeated = simulate(
        dir.path(),
        Some("200"),
        &["--only", "yes", "--only", "avoided"],
    );
    assert_eq!(comma, repeated);
    assert!(comma.contains("team-0/svc-000"));
    assert!(!comma.contains("Fit no node ("));

    let o = run_in(
        dir.path(),
        None,
        &[
            "simulate",
            "--inventory",
            "cluster.yaml",
            "apps",
            "--only",
            "maybe",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
}

/// The lines under a workload's row, up to the next row or heading.
fn under<'o>(out: &'o str, title: &str) -> Vec<&'o str> {
    let mut lines = out.lines().skip_while(|l| !l.contains(title));
    lines.next().expect("the row is there");
    lines.take_while(|l| l.starts_with("      ")).collect()
}

#[test]
fn reasons_for_rows_that_run_nowhere_or_on_avoided_nodes_and_all_with_why() {
    let args = [
        "simulate",
        "--inventory",
        "examples/inventory/nodes.yaml",
        "examples/",
    ];
    let plain = stdout(&run_in(Path::new(ROOT), Some("100"), &args));
    assert!(under(&plain, "Deployment shop/web").is_empty(), "{plain}");
    let nowhere = under(&plain, "Deployment ml/inference");
    assert!(
        nowhere
            .iter()
            .any(|l| l.contains("nodeSelector example.com/pool=gpu")),
        "{nowhere:?}"
    );
    let avoided = under(&plain, "Job search/reindex");
    assert!(
        avoided
            .iter()
            .any(|l| l.contains("E: nodes to avoid: untolerated taint example.com/batch")),
        "{avoided:?}"
    );

    let mut why = args.to_vec();
    why.push("--why");
    let why = stdout(&run_in(Path::new(ROOT), Some("100"), &why));
    let web = under(&why, "Deployment shop/web");
    assert!(
        web.iter()
            .any(|l| l.contains("D: untolerated taint nvidia.com/gpu=present:NoSchedule")),
        "{web:?}"
    );
    assert_eq!(under(&why, "Deployment ml/inference"), nowhere);
}

#[test]
fn columns_sets_the_width_else_80_when_not_a_terminal() {
    let dir = cluster();
    let piped = simulate(dir.path(), None, &[]);
    assert_eq!(piped, simulate(dir.path(), Some("80"), &[]));
    assert_eq!(
        piped,
        simulate(dir.path(), Some("wide"), &[]),
        "not a number"
    );
    assert_ne!(piped, simulate(dir.path(), Some("200"), &[]));
    // 50 pools take 150 columns as a matrix: at 80 they are listed per workload.
    assert!(!piped.contains("  A  B  C"));
    let wide = simulate(dir.path(), Some("200"), &[]);
    assert!(wide.contains("  A  B  C  D"));
    for (columns, out) in [(80, &piped), (200, &wide)] {
        assert_fits(out, columns);
    }
    // The examples' 6 pools fit 60 columns as a matrix.
    let o = run_in(
        Path::new(ROOT),
        Some("60"),
        &[
            "simulate",
            "--inventory",
            "examples/inventory/nodes.yaml",
            "examples/",
        ],
    );
    let out = stdout(&o);
    assert_fits(&out, 60);
    assert!(out.contains("A B C D E F"), "{out}");
}

#[test]
fn cjk_names_keep_the_columns_in_place() {
    let dir = cluster();
    let out = simulate(dir.path(), Some("200"), &[]);
    let header = out
        .lines()
        .find(|l| l.trim_start().starts_with("A  B  C"))
        .unwrap();
    let at = |line: &str, prefix_end: usize| line[..prefix_end].width();
    let first_letter = at(header, header.find('A').unwrap());
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("team-3/支払い-api") || l.contains("team-4/svc-004"))
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in rows {
        let mark = row.find(['✓', '✗', '~', '±']).unwrap();
        assert_eq!(at(row, mark), first_letter, "{row}");
        // Every cell three columns wide: the count starts at the same place too.
        let count = row.find(" nodes fit").unwrap() - 2;
        assert_eq!(at(row, count), first_letter + 49 * 3 + 1 + 2, "{row}");
    }
}

#[test]
fn workloads_the_api_server_rejects_are_not_placed() {
    let inventory = Inventory::load(&[(
        "pools.yaml",
        "pools:\n  general: {count: 2}\n  db: {count: 1, taints: [\"example.com/dedicated=db:NoSchedule\"]}\n",
    )])
    .unwrap();
    let pod = |tolerations: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: a, image: a}}]\n  tolerations:\n{tolerations}"
        )
    };
    let cases = [
        (
            "  - {key: example.com/dedicated, operator: Exists, efect: NoSchedule}\n",
            Some("unknown-field"),
        ),
        (
            "  - {key: example.com/dedicated, operator: Equal, value: yes, effect: NoSchedule}\n",
            Some("undecodable-value"),
        ),
        (
            "  - {key: example.com/dedicated, operator: Exists, value: db, effect: NoSchedule}\n",
            Some("exists-with-value"),
        ),
        (
            "  - {key: example.com/dedicated, operator: Equal, value: db, effect: NoSchedule}\n",
            None,
        ),
    ];
    for (tolerations, rule) in cases {
        let text = pod(tolerations);
        let results =
            taintlint::analysis::simulate(&text, &Options::default(), &inventory).workloads;
        assert_eq!(results.len(), 1);
        let rejected = &results[0].rejected;
        assert_eq!(rejected.as_ref().map(|r| r.rule), rule, "{tolerations}");
        if let Some(r) = rejected {
            assert!(r
                .path
                .as_deref()
                .unwrap()
                .starts_with("spec.tolerations[0]"));
        }
        // A suppression does not make the API server accept it.
        let silenced = format!("# taintlint: disable-file={}\n{text}", rule.unwrap_or("x"));
        let again =
            taintlint::analysis::simulate(&silenced, &Options::default(), &inventory).workloads;
        assert_eq!(again[0].rejected.is_some(), rule.is_some());
    }
}

/// The rows of `simulate --why` output (wide enough never to wrap): (file, title, the lines
/// under the row).
fn rows_of(out: &str) -> Vec<(String, String, Vec<String>)> {
    let mut rows: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut file = String::new();
    let mut in_rows = false;
    for line in out.lines() {
        if line.is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        match indent {
            // A heading (`Fit (2)`), the summary, or a file's name.
            0 => {
                let heading = line.ends_with(')')
                    && line.rfind(" (").is_some_and(|i| {
                        line[i + 2..line.len() - 1]
                            .chars()
                            .all(|c| c.is_ascii_digit())
                    });
                if heading {
                    in_rows = true;
                } else if line.contains(" simulated: ") {
                    in_rows = false;
                } else if in_rows {
                    file = line.to_string();
                }
            }
            2 if in_rows => {
                // The title, before the matrix's marks (two spaces on).
                let title = line.trim_start();
                let title = title.split("  ").next().unwrap_or(title);
                rows.push((file.clone(), title.to_string(), Vec::new()));
            }
            _ if in_rows && indent >= 6 => {
                if let Some(row) = rows.last_mut() {
                    row.2.push(line.trim_start().to_string());
                }
            }
            _ => {}
        }
    }
    rows
}

/// Every reason the JSON gives a workload is said under its row with `--why`, in the same
/// words: its `reasons` (what keeps it off a pool, what a pool does not say where it may fit),
/// the tolerations it gets from elsewhere, and its untolerated taints; over every inventory and
/// manifest of the examples, the manual and the fixtures. (A workload the API server would
/// reject is not placed, and its row says why instead.) (`--why` left out the labels a pool
/// defined as code does not declare, which the JSON gives as `label-unknown`.)
#[test]
fn why_says_every_reason_the_json_has() {
    let root = Path::new(ROOT);
    let inventories: &[&[&str]] = &[
        &["examples/inventory/pools.yaml"],
        &["examples/inventory/nodes.yaml"],
        &["examples/gpu/nodepools.yaml"],
        &["examples/gpu/flavors.yaml"],
        &["examples/dra/cluster.yaml"],
        &["examples/cluster-as-code/eksctl.yaml"],
        &[
            "examples/cluster-as-code/karpenter.yaml",
            "examples/cluster-as-code/node-pools.tf",
        ],
        &[
            "docs/examples/admission/nodes.yaml",
            "docs/examples/admission/cluster.yaml",
        ],
        &["tests/fixtures/iac/eksctl.yaml"],
        &["tests/fixtures/iac/gke.tf"],
        &["tests/fixtures/iac/nodepools.yaml"],
        &["tests/fixtures/iac/eks-aks.tf"],
        &["tests/fixtures/iac/kind.yaml"],
        &["tests/fixtures/iac/capi-topology.yaml"],
        &["tests/fixtures/iac/gke-wrapped-module.tf"],
        &["tests/fixtures/iac/autoscaler-tags.tf"],
        &["tests/fixtures/iac/nfd-rules.yaml"],
        &["tests/fixtures/iac/cce-nodepool.json"],
        &["tests/fixtures/iac/machinesets.yaml"],
    ];
    let manifests = [
        "examples",
        "docs/examples/admission/apps.yaml",
        "tests/fixtures/iac/iac-workloads.yaml",
        "tests/fixtures/iac/karpenter-workloads.yaml",
        "tests/fixtures/workloads/custom-resources.yaml",
        "tests/fixtures/crds",
    ];
    let mut said = 0;
    let mut label_unknown = 0;
    for inventory in inventories {
        let mut args: Vec<&str> = vec!["simulate"];
        for i in *inventory {
            args.extend(["--inventory", i]);
        }
        args.extend(manifests);
        let mut json_args = args.clone();
        json_args.extend(["--format", "json"]);
        let json: serde_json::Value =
            serde_json::from_str(&stdout(&run_in(root, None, &json_args))).unwrap();
        let mut why_args = args.clone();
        why_args.push("--why");
        let human = stdout(&run_in(root, Some("100000"), &why_args));
        let rows = rows_of(&human);
        let pools = json["cluster"]["pools"].as_array().unwrap();
        // A workload the API server would reject is not placed: its row says why it is
        // rejected, not where it would land as written.
        let placed = json["workloads"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["rejected"].is_null());
        for w in placed {
            let title = taintlint::k8s::parts::title(
                w["kind"].as_str(),
                w["namespace"].as_str(),
                w["name"].as_str(),
                "",
                w["part"].as_str(),
            );
            let file = w["file"].as_str().unwrap();
            let lines: Vec<&String> = rows
                .iter()
                .filter(|(f, t, _)| f == file && t.starts_with(&title))
                .flat_map(|(_, _, l)| l)
                .collect();
            let under = |words: &str| lines.iter().any(|l| l.contains(words));
            for r in w["reasons"].as_array().unwrap() {
                let message = r["message"].as_str().unwrap();
                assert!(
                    under(message),
                    "{inventory:?}: {file}: {title}: `{message}` not under its row: {lines:#?}\n{human}"
                );
                said += 1;
                label_unknown += usize::from(r["code"] == "label-unknown");
            }
            for entry in w["pools"].as_array().unwrap() {
                for p in entry["pools"].as_array().unwrap() {
                    let pool = &pools[p.as_u64().unwrap() as usize];
                    for t in entry["taints"].as_array().unwrap() {
                        let taint = &pool["taints"][t.as_u64().unwrap() as usize];
                        let value = taint["value"].as_str().unwrap();
                        let words = format!(
                            "untolerated taint {}{}:{}",
                            taint["key"].as_str().unwrap(),
                            if value.is_empty() {
                                String::new()
                            } else {
                                format!("={value}")
                            },
                            taint["effect"].as_str().unwrap()
                        );
                        assert!(
                            under(&words) || under(&taint_shape(taint)),
                            "{inventory:?}: {file}: {title}: `{words}` not under its row: {lines:#?}"
                        );
                        said += 1;
                    }
                    for g in entry["tolerated"].as_array().into_iter().flatten() {
                        let message = g["message"].as_str().unwrap();
                        assert!(
                            under(message),
                            "{inventory:?}: {file}: {title}: `{message}` not under its row"
                        );
                        said += 1;
                    }
                }
            }
        }
    }
    // The comparison compared something, the labels a definition does not declare too.
    assert!(said > 500, "{said}");
    assert!(label_unknown > 0);
}

/// `key=<...>:Effect`: how the matrix says a taint it says for many pools at once, each with
/// its own value.
fn taint_shape(taint: &serde_json::Value) -> String {
    format!("untolerated taint {}=<", taint["key"].as_str().unwrap())
}

/// 53 pools, 50 of them dedicated to a team each (`dedicated=<team>:NoSchedule`), and the
/// workloads that fit none of them: a line per pool's own taint made 37 lines under one
/// workload, 188 for three with `--only no`. Pools that a taint of one key and effect keeps off,
/// each with its own value, are one line; first comes the closest pool and its near miss, as
/// `lint` says it.
#[test]
fn fifty_dedicated_pools_are_one_line_under_a_workload_that_fits_none() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pools.yaml"), common::dedicated_pools()).unwrap();
    std::fs::write(
        dir.path().join("apps.yaml"),
        format!("{}---\n{}", common::RISK_CRONJOB, common::TEAM_WORKLOADS),
    )
    .unwrap();
    let o = run_in(
        dir.path(),
        Some("80"),
        &[
            "simulate",
            "--inventory",
            "pools.yaml",
            "apps.yaml",
            "--only",
            "no",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert_fits(&out, 80);
    // The legend (a line a pool, 53), and a few lines a workload.
    let legend = out
        .lines()
        .filter(|l| l.starts_with("  ") && l.as_bytes()[2] != b' ')
        .count();
    assert!(legend >= 53, "{out}");
    let under = |title: &str| -> Vec<&str> {
        let at = out
            .find(&format!("\n  {title}\n"))
            .unwrap_or_else(|| panic!("{title}: {out}"));
        out[at + 1..]
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with("      "))
            .collect()
    };
    let risk = under("CronJob risk/nightly-risk");
    assert_eq!(
        risk,
        [
            "      E: closest is pool risk: tolerations[0] misses dedicated=risk:NoSchedule",
            "        (value \"rsk\", not \"risk\")",
            "      A-D F-BA: nodeSelector dedicated=risk does not match",
            "      B: untolerated taint CriticalAddonsOnly=true:NoSchedule",
            "      C: untolerated taint nvidia.com/gpu=present:NoSchedule",
            "      D-BA: untolerated taint dedicated=<pool name>:NoSchedule",
        ],
        "{out}"
    );
    let trainer = under("Job ml/trainer");
    assert_eq!(
        trainer[..2],
        [
            "      F: closest is pool ml: tolerations[0] misses dedicated=ml:NoSchedule",
            "        (effect NoExecute, not NoSchedule)"
        ],
        "{out}"
    );
    assert!(trainer.len() <= 7, "{out}");
    assert!(under("Deployment search/indexer").len() <= 6, "{out}");
    // What lint says of the same toleration, in the same words.
    let lint = run_in(
        dir.path(),
        None,
        &[
            "lint",
            "-o",
            "concise",
            "--inventory",
            "pools.yaml",
            "apps.yaml",
        ],
    );
    assert!(
        stdout(&lint).contains(
            "CronJob risk/nightly-risk fits no node: tolerations[0] misses \
             dedicated=risk:NoSchedule (value \"rsk\", not \"risk\")"
        ),
        "{}",
        stdout(&lint)
    );
    let rows = out.lines().count() - legend;
    assert!(rows <= 40, "{rows} lines besides the legend:\n{out}");
    settings().bind(|| insta::assert_snapshot!("simulate_human_dedicated_only_no", out));

    // Pools not named after the values of their taints: the line says the first values.
    let mut renamed = common::dedicated_pools();
    for team in common::TEAMS {
        renamed = renamed.replace(&format!("\n  {team}:\n"), &format!("\n  pool-{team}:\n"));
    }
    std::fs::write(dir.path().join("pools.yaml"), renamed).unwrap();
    let o = run_in(
        dir.path(),
        Some("80"),
        &[
            "simulate",
            "--inventory",
            "pools.yaml",
            "apps.yaml",
            "--only",
            "no",
        ],
    );
    let out = stdout(&o);
    assert!(
        out.contains(
            "\n      D-BA: untolerated taint dedicated=<value>:NoSchedule, values search, risk,\n        ml and 47 more\n"
        ),
        "{out}"
    );
}
