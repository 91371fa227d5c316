use super::*;

/// A workload: its name, how it fits, and per pool how it fits and its untolerated taints.
type W<'a> = (&'a str, &'a str, &'a [(&'a str, &'a [usize])]);

/// A simulation of `pools` (name, taints as `key=value:Effect`, source line in `pools.yaml`)
/// and `workloads` (name, fits, nodes, per pool: fit and untolerated taint indices).
fn sim(pools: &[(&str, &[&str], usize)], workloads: &[W<'_>]) -> Simulation {
    let pools_json: Vec<serde_json::Value> = pools
        .iter()
        .enumerate()
        .map(|(id, (name, taints, line))| {
            let taints: Vec<serde_json::Value> = taints
                .iter()
                .map(|t| {
                    let (kv, effect) = t.split_once(':').unwrap();
                    let (key, value) = kv.split_once('=').unwrap_or((kv, ""));
                    serde_json::json!({"key": key, "value": value, "effect": effect})
                })
                .collect();
            serde_json::json!({
                "id": id, "name": name, "kind": "nodes", "nodes": 2, "taints": taints,
                "labels": {}, "unschedulable": false,
                "source": {"file": "pools.yaml", "line": line, "column": 1}
            })
        })
        .collect();
    let workloads_json: Vec<serde_json::Value> = workloads
        .iter()
        .map(|(name, fits, per_pool)| {
            let fitting: usize = per_pool.iter().filter(|(f, _)| *f != "no").count() * 2;
            let entries: Vec<serde_json::Value> = per_pool
                .iter()
                .enumerate()
                .map(|(id, (fit, taints))| {
                    serde_json::json!({
                        "pools": [id], "fit": fit,
                        "nodes": if *fit == "no" { 0 } else { 2 },
                        "reasons": [], "taints": taints
                    })
                })
                .collect();
            serde_json::json!({
                "file": "app.yaml", "document": 0, "item": null, "kind": "Deployment",
                "name": name, "namespace": "shop", "path": "spec.template.spec",
                "fits": fits, "nodes": fitting, "rejected": null, "reasons": [],
                "pools": entries
            })
        })
        .collect();
    let doc = serde_json::json!({
        "version": 2,
        "cluster": {"nodes": pools.len() * 2, "pools": pools_json},
        "workloads": workloads_json
    });
    Simulation::from_json(&serde_json::to_vec(&doc).unwrap()).unwrap()
}

#[test]
fn a_taint_added_to_a_pool_strands_a_workload() {
    let before = sim(&[("general", &[], 1)], &[("web", "yes", &[("yes", &[])])]);
    let after = sim(
        &[("general", &["dedicated=infra:NoSchedule"], 1)],
        &[("web", "no", &[("no", &[0])])],
    );
    let (changes, counts) = compare(&before, &after);
    assert_eq!(counts.compared, 1);
    assert_eq!(changes.len(), 1);
    let c = &changes[0];
    assert!(c.worse);
    assert_eq!(c.before.pools, vec!["general"]);
    assert!(c.after.pools.is_empty());
    assert_eq!(c.cause.code, "taint-added");
    assert_eq!(c.cause.pool.as_deref(), Some("general"));
    assert_eq!(c.cause.side, Side::After);
    assert_eq!(
        c.cause.message,
        "the taint dedicated=infra:NoSchedule was added to pool general"
    );
    // Placed at the taint's line, the one the change touched.
    let mut changes = changes;
    let pools_before = "- name: general\n  taints: []\n";
    let pools_after = "- name: general\n  labels: {dedicated: infra}\n  taints:\n  - dedicated=infra:NoSchedule\n";
    let texts = Texts {
        after: [("pools.yaml".to_string(), pools_after.to_string())].into(),
        before: [("pools.yaml".to_string(), pools_before.to_string())].into(),
        changed: [(
            "pools.yaml".to_string(),
            Changed::between(pools_before, pools_after),
        )]
        .into(),
    };
    // Only the lines near the pool's definition are read for its taint.
    assert_eq!(
        needed(&changes, &before, &after),
        vec![(Side::After, "pools.yaml".to_string(), Extent::Lines(401))]
    );
    place(&mut changes, &before, &after, &texts);
    assert_eq!(changes[0].cause.line, Some(4));
}

/// A pool's line as no text has it (0, or past any file) does not stop the placing: from line 0
/// the taint is looked for from the top; past the end, the cause stays at the pool's line.
#[test]
fn a_pool_line_out_of_range_is_no_panic() {
    for line in [0, usize::MAX] {
        let before = sim(
            &[("general", &[], line)],
            &[("web", "yes", &[("yes", &[])])],
        );
        let after = sim(
            &[("general", &["dedicated=infra:NoSchedule"], line)],
            &[("web", "no", &[("no", &[0])])],
        );
        let (mut changes, _) = compare(&before, &after);
        let text = "- name: general\n  taints:\n  - dedicated=infra:NoSchedule\n".to_string();
        let texts = Texts {
            after: [("pools.yaml".to_string(), text)].into(),
            ..Texts::default()
        };
        place(&mut changes, &before, &after, &texts);
        let want = if line == 0 { 3 } else { line };
        assert_eq!(changes[0].cause.line, Some(want), "line {line}");
    }
}

#[test]
fn a_toleration_removed_from_a_manifest() {
    let before = sim(
        &[("gpu", &["nvidia.com/gpu:NoSchedule"], 3)],
        &[("train", "yes", &[("yes", &[])])],
    );
    let after = sim(
        &[("gpu", &["nvidia.com/gpu:NoSchedule"], 3)],
        &[("train", "no", &[("no", &[0])])],
    );
    let (mut changes, _) = compare(&before, &after);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].cause.code, "toleration-removed");
    let manifest_before = "kind: Deployment\nmetadata: {name: train, namespace: shop}\nspec:\n  template:\n    spec:\n      tolerations:\n      - key: nvidia.com/gpu\n        operator: Exists\n      containers: []\n";
    let manifest_after = "kind: Deployment\nmetadata: {name: train, namespace: shop}\nspec:\n  template:\n    spec:\n      containers: []\n";
    let texts = Texts {
        before: [("app.yaml".to_string(), manifest_before.to_string())].into(),
        after: [("app.yaml".to_string(), manifest_after.to_string())].into(),
        changed: HashMap::new(),
    };
    place(&mut changes, &before, &after, &texts);
    let cause = &changes[0].cause;
    assert_eq!(cause.side, Side::Before);
    assert_eq!(cause.line, Some(7));
    assert_eq!(
        cause.message,
        "its toleration of nvidia.com/gpu:NoSchedule was removed (pool gpu)"
    );
}

#[test]
fn a_pool_removed_and_a_pool_added() {
    let before = sim(
        &[("general", &[], 1), ("batch", &[], 9)],
        &[("web", "yes", &[("no", &[]), ("yes", &[])])],
    );
    let after = sim(&[("general", &[], 1)], &[("web", "no", &[("no", &[])])]);
    let (changes, _) = compare(&before, &after);
    assert_eq!(changes[0].cause.code, "pool-removed");
    assert_eq!(changes[0].cause.side, Side::Before);
    assert_eq!(changes[0].cause.line, Some(9));
    // Back again: a pool added frees it.
    let (changes, _) = compare(&after, &before);
    assert!(!changes[0].worse);
    assert_eq!(changes[0].cause.code, "pool-added");
    assert_eq!(changes[0].cause.line, Some(9));
}

#[test]
fn a_taint_removed_frees_a_workload_and_nothing_else_moves() {
    let before = sim(
        &[
            ("gpu", &["nvidia.com/gpu:NoSchedule"], 3),
            ("general", &[], 1),
        ],
        &[
            ("train", "no", &[("no", &[0]), ("no", &[])]),
            ("web", "yes", &[("no", &[0]), ("yes", &[])]),
        ],
    );
    let after = sim(
        &[("gpu", &[], 3), ("general", &[], 1)],
        &[
            ("train", "yes", &[("yes", &[]), ("no", &[])]),
            ("web", "yes", &[("no", &[]), ("yes", &[])]),
        ],
    );
    let (changes, counts) = compare(&before, &after);
    assert_eq!(counts.compared, 2);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].name.as_deref(), Some("train"));
    assert_eq!(changes[0].cause.code, "taint-removed");
    assert_eq!(changes[0].cause.side, Side::Before);
}

#[test]
fn a_renamed_file_and_a_renamed_pool_move_nothing() {
    let before = sim(
        &[("general", &["a=b:NoSchedule"], 1)],
        &[("web", "no", &[("no", &[0])])],
    );
    let mut after = sim(
        &[("workers", &["a=b:NoSchedule"], 1)],
        &[("web", "no", &[("no", &[0])])],
    );
    after.workloads[0].file = "moved.yaml".to_string();
    let (changes, counts) = compare(&before, &after);
    assert!(changes.is_empty(), "{changes:?}");
    assert_eq!((counts.compared, counts.added, counts.removed), (1, 0, 0));
}

#[test]
fn paths_find_nodes() {
    let text =
        "items:\n- kind: Pod\n  spec:\n    nodeSelector:\n      disk: ssd\n    tolerations: []\n";
    let stream = syntax::parse(text);
    let doc = &stream.documents[0];
    assert!(node_at(doc, "items[0].spec").is_some());
    assert!(node_at(doc, "items[1].spec").is_none());
    assert_eq!(selector_line(text, 0, "items[0].spec", "disk"), Some(5));
    assert_eq!(object_line(text, 0, Some(0)), Some(2));
}

#[test]
fn a_pool_split_by_a_taint_on_some_of_its_nodes() {
    let before = sim(&[("web", &[], 1)], &[("app", "yes", &[("yes", &[])])]);
    let after = sim(
        &[("web", &[], 1), ("web#2", &["maintenance:NoSchedule"], 7)],
        &[("app", "yes", &[("yes", &[]), ("no", &[0])])],
    );
    let (changes, _) = compare(&before, &after);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].cause.code, "taint-added");
    assert_eq!(changes[0].cause.pool.as_deref(), Some("web#2"));
    assert_eq!(changes[0].cause.line, Some(7));
    assert_eq!(split_stem("web#2"), "web");
    assert_eq!(split_stem("web-cordoned#3"), "web");
    assert_eq!(split_stem("a#b"), "a#b");
}
