//! Property tests: whatever the input, `analyse` does not panic, every range it returns (primary,
//! related, fix edits) lies inside the text on character boundaries, each fix removes its
//! finding without breaking the YAML, and the reports render. Matching agrees with a reference
//! model of upstream `ToleratesTaint`; `--fix` reaches a fixed point; an inventory holds what
//! its nodes say.

mod common;

use std::path::PathBuf;
use taintlint::analysis::{check_again, Judged};

use proptest::prelude::*;
use taintlint::report::{human, json, FileReport};
use taintlint::{analyse, Options};

fn options(gate: bool) -> Options {
    let mut o = Options::default();
    if gate {
        o.set_feature_gates("TaintTolerationComparisonOperators=true")
            .unwrap();
    }
    o
}

fn check_range(text: &str, r: &std::ops::Range<usize>, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(r.start <= r.end, "{what}: {r:?} is reversed");
    prop_assert!(r.end <= text.len(), "{what}: {r:?} is past {}", text.len());
    prop_assert!(
        text.is_char_boundary(r.start) && text.is_char_boundary(r.end),
        "{what}: {r:?} splits a character"
    );
    Ok(())
}

/// The properties every input must have.
fn check_text(text: &str, gate: bool) -> Result<(), TestCaseError> {
    let found = analyse(text, &options(gate));
    for d in &found {
        check_range(text, &d.range, d.rule)?;
        for r in &d.related {
            check_range(text, &r.range, "related")?;
        }
        for fix in &d.fixes {
            prop_assert!(!fix.edits.is_empty(), "{}: a fix without edits", d.rule);
            for e in &fix.edits {
                check_range(text, &e.range, "edit")?;
            }
            // Edits of one fix never overlap (an insertion may touch a neighbour).
            let mut edits = fix.edits.clone();
            edits.sort_by_key(|e| (e.range.start, e.range.end));
            for pair in edits.windows(2) {
                prop_assert!(
                    pair[0].range.end <= pair[1].range.start,
                    "{}: overlapping edits {:?}",
                    d.rule,
                    edits
                );
            }
            // Applied, it removes its finding (on text this broken, the same rule may still
            // report the place with another message) and adds no syntax error.
            let fixed = fix.apply(text);
            let after = analyse(&fixed, &options(gate));
            let count = |found: &[taintlint::Diagnostic], rule: &str, message: Option<&str>| {
                found
                    .iter()
                    .filter(|f| f.rule == rule && message.is_none_or(|m| f.message == m))
                    .count()
            };
            prop_assert!(
                count(&after, d.rule, Some(&d.message)) < count(&found, d.rule, Some(&d.message)),
                "the fix {:?} of {} at {:?} did not remove it:\n{}\n--- fixed:\n{}",
                fix.title,
                d.rule,
                d.path,
                text,
                fixed
            );
            prop_assert!(
                count(&after, "yaml-syntax", None) <= count(&found, "yaml-syntax", None),
                "the fix {:?} of {} broke the YAML:\n{}\n--- fixed:\n{}",
                fix.title,
                d.rule,
                text,
                fixed
            );
        }
    }
    // Sorted by position, as promised.
    prop_assert!(found
        .windows(2)
        .all(|w| w[0].range.start <= w[1].range.start));
    // The reports render whatever the ranges are.
    let files = [FileReport::new("p.yaml".into(), text.to_string(), found)];
    let _ = human::render(&files, false);
    let out = json::render(&files);
    prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
    Ok(())
}

/// Realistic manifests to mutate: every rule fixture and every example (inventories included).
fn corpus() -> Vec<String> {
    let root = common::root();
    let mut paths: Vec<PathBuf> = Vec::new();
    for dir in std::fs::read_dir(root.join("tests/fixtures/rules")).unwrap() {
        let dir = dir.unwrap().path();
        paths.push(dir.join("bad.yaml"));
        paths.push(dir.join("good.yaml"));
    }
    let mut dirs = vec![root.join("examples")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths.iter().map(|p| common::read(p)).collect()
}

/// Snippets that YAML and the rules care about.
const SNIPPETS: &[&str] = &[
    ": ",
    "- ",
    "-",
    ":",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a ",
    "*a",
    "<<: *a\n",
    "? ",
    "|\n",
    ">-\n",
    "\t",
    "\r\n",
    "\r",
    "\n",
    "  ",
    "#",
    "'",
    "\"",
    "\\",
    "🚀",
    "日本",
    "\u{feff}",
    "~",
    "yes",
    "0x1F",
    "1e3",
    "!!str ",
    "!!int ",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    "Exists",
    "exists",
    "NoExecute",
    "tolerations:\n- ",
    "key: ",
    "value: ",
    "effect: ",
    "operator: ",
    "tolerationSeconds: ",
    "{{ .Values.x }}",
    "kind: List\nitems:\n- ",
    "\u{0}",
    "\u{85}",
    "\u{2028}",
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, snippet: usize },
    DuplicateLine { line: usize },
    SwapLines { a: usize, b: usize },
    Indent { line: usize, by: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..40usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), 0..SNIPPETS.len())
            .prop_map(|(at, snippet)| Mutation::Insert { at, snippet }),
        any::<usize>().prop_map(|line| Mutation::DuplicateLine { line }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines { a, b }),
        (any::<usize>(), 1..5usize).prop_map(|(line, by)| Mutation::Indent { line, by }),
    ]
}

fn floor(text: &str, at: usize) -> usize {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    match *m {
        Mutation::Delete { at, len } => {
            let start = floor(text, at);
            let end = floor(text, (start + len).min(text.len()));
            format!("{}{}", &text[..start], &text[end.max(start)..])
        }
        Mutation::Insert { at, snippet } => {
            let at = floor(text, at);
            format!("{}{}{}", &text[..at], SNIPPETS[snippet], &text[at..])
        }
        Mutation::DuplicateLine { line } if !lines.is_empty() => {
            let i = line % lines.len();
            lines.insert(i, lines[i]);
            lines.concat()
        }
        Mutation::SwapLines { a, b } if !lines.is_empty() => {
            let n = lines.len();
            lines.swap(a % n, b % n);
            lines.concat()
        }
        Mutation::Indent { line, by } if !lines.is_empty() => {
            let i = line % lines.len();
            let indented = format!("{}{}", " ".repeat(by), lines[i]);
            lines[i] = &indented;
            lines.concat()
        }
        _ => text.to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings(text in any::<String>(), gate in any::<bool>()) {
        check_text(&text, gate)?;
    }

    #[test]
    fn yaml_alphabet_strings(
        text in "([ \\-:\\[\\]{},#&*!|>'\"\\n\\r\\t?~.%<@`]|key|value|effect|operator|Exists|tolerations|kind|Pod|List|items|a|0|yes|🚀|日){0,120}",
        gate in any::<bool>(),
    ) {
        check_text(&text, gate)?;
    }

    #[test]
    fn mutated_manifests(
        pick in any::<usize>(),
        mutations in prop::collection::vec(mutation(), 1..6),
        gate in any::<bool>(),
    ) {
        let corpus = corpus();
        let mut text = corpus[pick % corpus.len()].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        check_text(&text, gate)?;
    }

    #[test]
    fn spliced_manifests(a in any::<usize>(), b in any::<usize>(), at in any::<usize>(), sep in 0..3usize) {
        // Two manifests joined as one stream, or one cut into the middle of another.
        let corpus = corpus();
        let (x, y) = (&corpus[a % corpus.len()], &corpus[b % corpus.len()]);
        let at = floor(x, at);
        let text = match sep {
            0 => format!("{x}---\n{y}"),
            1 => format!("{}{y}{}", &x[..at], &x[at..]),
            _ => format!("{}\n{}", &x[..at], y.replace('\n', "\r\n")),
        };
        check_text(&text, false)?;
    }
}

/// Node pools defined as code: Karpenter NodePools, machine sets, kubeadm, Cluster API
/// bootstrap, eksctl and kind configs, the CCE API JSON, and Terraform files.
fn pool_definitions() -> Vec<String> {
    let root = common::root();
    let mut paths: Vec<PathBuf> = ["tests/fixtures/iac", "examples/cluster-as-code"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths.iter().map(|p| common::read(p)).collect()
}

/// What HCL and the pool readers care about.
const HCL_SNIPPETS: &[&str] = &[
    "=",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "${",
    "%{",
    "<<EOF\n",
    "\n",
    "#",
    "//",
    "/*",
    ",",
    ":",
    "taint {\n",
    "key = \"a\"\n",
    "effect = \"NO_SCHEDULE\"\n",
    "node_taints = [\"a=b:NoSchedule\"]\n",
    "var.x",
    "-1",
    "1e99",
    "true",
    "null",
    "resource \"aws_eks_node_group\" \"x\" {\n",
    "replicas: ",
    "requirements:\n- ",
    "operator: Gt\n",
    "values: [a]\n",
    "taints:\n- ",
    "🚀",
    "nodeRegistration:\n",
    "kubeletExtraArgs:\n",
    "register-with-taints: ",
    "- name: register-with-taints\n  value: ",
    "a=b=c:NoSchedule,",
    ":NoSchedule",
    "taints: null\n",
    "taints: []\n",
    "controlPlane: {}\n",
    "kubeadmConfigPatches:\n- |\n  ",
    "kind: JoinConfiguration\n",
    "nodeGroups:\n- ",
    "\"taints\": ",
    "\"initialNodeCount\": -1",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// No pool reader panics on a mutated pool definition (any of them): loading it as an
    /// inventory gives pools that point into the text, or errors, and linting it holds the
    /// usual properties.
    #[test]
    fn mutated_pool_definitions(
        pick in any::<usize>(),
        edits in prop::collection::vec((any::<usize>(), 0..HCL_SNIPPETS.len(), 0..8usize), 1..6),
        mutations in prop::collection::vec(mutation(), 0..3),
    ) {
        let corpus = pool_definitions();
        let mut text = corpus[pick % corpus.len()].clone();
        for &(at, snippet, cut) in &edits {
            let at = floor(&text, at);
            let end = floor(&text, (at + cut).min(text.len())).max(at);
            text = format!("{}{}{}", &text[..at], HCL_SNIPPETS[snippet], &text[end..]);
        }
        for m in &mutations {
            text = apply(&text, m);
        }
        // Whatever loads points into the text: every pool, node and taint location.
        if let Ok(inventory) = taintlint::inventory::Inventory::load(&[("p", text.as_str())]) {
            for pool in &inventory.pools {
                check_range(&text, &pool.at.range, "pool")?;
                for t in &pool.taints {
                    check_range(&text, &t.at.range, "taint")?;
                }
                for m in &pool.nodes {
                    check_range(&text, &m.at.range, "node")?;
                }
            }
        }
        check_text(&text, false)?;
    }
}

/// What a JSON node list's reader cares about.
const JSON_SNIPPETS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "\\u00e9",
    "\"kind\": \"Node\", ",
    "\"kind\": \"Namespace\", ",
    "\"items\": [], ",
    "\"taints\": [{\"key\": \"k\", \"effect\": \"NoSchedule\"}]",
    "\"metadata\": {\"name\": \"n\"}",
    "🚀",
    "\u{feff}",
    " \n\t",
    "null",
    "5",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A mutated JSON node list read as it streams in never panics, and when the stream takes
    /// it, it gives what reading the whole text gives.
    #[test]
    fn mutated_json_node_lists_stream_as_they_read_whole(
        pick in any::<bool>(),
        edits in prop::collection::vec((any::<usize>(), 0..JSON_SNIPPETS.len(), 0..8usize), 0..6),
    ) {
        use taintlint::inventory::{read_json_nodes, Inventory, Source};
        let mut text = if pick {
            common::read(&common::root().join("tests/fixtures/nodelist.json"))
        } else {
            "\u{feff}{\"apiVersion\": \"v1\",\n \"items\": [\n  {\"kind\": \"Node\", \"metadata\": \
             {\"name\": \"gpu-1\", \"labels\": {\"pool\": \"gpu\"}}, \"spec\": {\"taints\": \
             [{\"key\": \"nvidia.com/gpu\", \"value\": \"pre\\u0073ent\", \"effect\": \"NoSchedule\"}]}},\n  \
             {\"metadata\": {\"name\": \"web-1\"}, \"spec\": {\"unschedulable\": true}}\n ],\n \
             \"kind\": \"List\", \"metadata\": {}}\n"
                .to_string()
        };
        for &(at, snippet, cut) in &edits {
            let at = floor(&text, at);
            let end = floor(&text, (at + cut).min(text.len())).max(at);
            text = format!("{}{}{}", &text[..at], JSON_SNIPPETS[snippet], &text[end..]);
        }
        let whole = Inventory::load(&[("p", text.as_str())]);
        let Some(streamed) = read_json_nodes(0, text.as_bytes()).unwrap() else {
            return Ok(());
        };
        let streamed = Inventory::load_sources(vec![("p", Source::Streamed(streamed))]);
        let describe = |inv: &Inventory| -> Vec<String> {
            inv.pools
                .iter()
                .map(|p| {
                    let taints: Vec<String> = p
                        .taints
                        .iter()
                        .map(|t| format!("{}@{:?}", t.taint, t.at.range))
                        .collect();
                    format!("{} {} {:?} {taints:?}", p.name, p.nodes.len(), p.labels)
                })
                .collect()
        };
        match (&whole, &streamed) {
            (Ok(w), Ok(s)) => prop_assert_eq!(describe(w), describe(s)),
            (w, s) => prop_assert_eq!(w.is_ok(), s.is_ok(), "{}", text),
        }
    }
}

#[test]
fn the_corpus_itself_holds() {
    for text in corpus() {
        check_text(&text, false).unwrap();
        check_text(&text, true).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Matching against a reference model.

/// Upstream `Toleration.ToleratesTaint` (k8s.io/api/core/v1 toleration.go), on the fields as
/// written, with the TaintTolerationComparisonOperators gate as its `enableComparisonOperators`.
fn reference_tolerates(tol: [&str; 4], taint: [&str; 3], gate: bool) -> bool {
    let ([key, operator, value, effect], [taint_key, taint_value, taint_effect]) = (tol, taint);
    if !effect.is_empty() && effect != taint_effect {
        return false;
    }
    if !key.is_empty() && key != taint_key {
        return false;
    }
    match operator {
        "" | "Equal" => value == taint_value,
        "Exists" => true,
        "Lt" | "Gt" if gate => match (canonical_int64(value), canonical_int64(taint_value)) {
            (Some(t), Some(v)) if operator == "Lt" => v < t,
            (Some(t), Some(v)) => v > t,
            _ => false,
        },
        _ => false,
    }
}

/// Upstream `compareNumericValues`' parse: `content.IsDecimalInteger` (`0`, or an optional `-`
/// and digits without a leading zero), then `strconv.ParseInt(v, 10, 64)`.
fn canonical_int64(v: &str) -> Option<i64> {
    let digits = v.strip_prefix('-').unwrap_or(v);
    let canonical = v == "0"
        || (!digits.is_empty()
            && !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit()));
    canonical.then(|| v.parse().ok()).flatten()
}

const TOLERATION_KEYS: &[&str] = &["", "k", "K", "example.com/gpu"];
const TAINT_KEYS: &[&str] = &["k", "K", "example.com/gpu"];
/// Valid, misspelled and unknown operators; `""` is Equal.
const OPERATORS: &[&str] = &[
    "", "Equal", "Exists", "Lt", "Gt", "exists", "In", "NotEqual",
];
const VALUES: &[&str] = &[
    "",
    "v",
    "V",
    "0",
    "1",
    "-1",
    "7",
    "10",
    "007",
    "-0",
    "+5",
    "1e3",
    " 1",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
];
const TOLERATION_EFFECTS: &[&str] = &[
    "",
    "NoSchedule",
    "PreferNoSchedule",
    "NoExecute",
    "noschedule",
    "Foo",
];
const TAINT_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// A toleration's fields as indices into the tables above; `None` leaves the field out.
type TolerationFields = [Option<usize>; 4];

fn toleration_fields() -> impl Strategy<Value = TolerationFields> {
    (
        prop::option::of(0..TOLERATION_KEYS.len()),
        prop::option::of(0..OPERATORS.len()),
        prop::option::of(0..VALUES.len()),
        prop::option::of(0..TOLERATION_EFFECTS.len()),
    )
        .prop_map(|(k, o, v, e)| [k, o, v, e])
}

fn field(table: &[&'static str], pick: Option<usize>) -> &'static str {
    pick.map_or("", |i| table[i])
}

fn written(t: &TolerationFields) -> [&'static str; 4] {
    [
        field(TOLERATION_KEYS, t[0]),
        field(OPERATORS, t[1]),
        field(VALUES, t[2]),
        field(TOLERATION_EFFECTS, t[3]),
    ]
}

/// A Pod with these tolerations, every written field a double-quoted YAML string.
fn pod_with(tolerations: &[TolerationFields]) -> String {
    let mut text =
        String::from("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n");
    for t in tolerations {
        let mut first = true;
        for (name, value) in ["key", "operator", "value", "effect"]
            .iter()
            .zip(written(t))
            .zip(t)
            .filter(|(_, pick)| pick.is_some())
            .map(|(pair, _)| pair)
        {
            let quoted = serde_json::to_string(value).unwrap();
            text += &format!("  {} {name}: {quoted}\n", if first { "-" } else { " " });
            first = false;
        }
        if first {
            text += "  - {}\n";
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// What the product makes of written tolerations (read from YAML as for every rule, hover
    /// and `simulate`) tolerates exactly what upstream's `ToleratesTaint` does, invalid
    /// combinations included: Exists with a value, an empty key with Equal, an unknown or
    /// misspelled operator (which tolerates nothing), an empty or unknown effect, Lt/Gt with the
    /// gate off or values that are not canonical integers. `misses` is empty exactly then, and a
    /// list tolerates a taint when any of its tolerations does.
    #[test]
    fn matching_follows_upstream(
        tolerations in prop::collection::vec(toleration_fields(), 1..4),
        taint in (0..TAINT_KEYS.len(), 0..VALUES.len(), 0..TAINT_EFFECTS.len()),
        gate in any::<bool>(),
    ) {
        use taintlint::k8s::model::{tolerations_tolerate_taint, Effect, Taint};
        use taintlint::k8s::objects::{extract, items};
        let written_taint = [TAINT_KEYS[taint.0], VALUES[taint.1], TAINT_EFFECTS[taint.2]];
        let model_taint = Taint {
            key: written_taint[0].to_string(),
            value: written_taint[1].to_string(),
            effect: Effect::parse(written_taint[2]).unwrap(),
        };
        let text = pod_with(&tolerations);
        let stream = taintlint::syntax::parse(&text);
        let doc = &stream.documents[0];
        let found = extract(doc);
        prop_assert_eq!(found.tolerations.len(), 1, "{}", text);
        let read = items(doc, &found.tolerations[0].list);
        prop_assert_eq!(read.len(), tolerations.len(), "{}", text);
        let mut models = Vec::new();
        for (t, item) in tolerations.iter().zip(&read) {
            let expected = reference_tolerates(written(t), written_taint, gate);
            let model = item.toleration();
            let got = model.as_ref().is_some_and(|m| m.tolerates(&model_taint, gate));
            prop_assert_eq!(
                got, expected,
                "{:?} against {:?} (gate {}): read as {:?}", written(t), written_taint, gate, model
            );
            if let Some(m) = model {
                prop_assert_eq!(m.misses(&model_taint, gate).is_empty(), got);
                models.push(m);
            }
        }
        let any = tolerations
            .iter()
            .any(|t| reference_tolerates(written(t), written_taint, gate));
        prop_assert_eq!(tolerations_tolerate_taint(&models, &model_taint, gate), any);
    }
}

#[test]
fn the_reference_model_reads_integers_as_upstream() {
    // content.IsDecimalInteger's own cases (k8s.io/apimachinery pkg/api/validate/content).
    for (v, want) in [
        ("0", Some(0)),
        ("123", Some(123)),
        ("-456", Some(-456)),
        ("-0", None),
        ("007", None),
        ("+5", None),
        ("", None),
        ("-", None),
        ("1e3", None),
        (" 1", None),
        ("9223372036854775808", None),
    ] {
        assert_eq!(canonical_int64(v), want, "{v:?}");
    }
    // And the model itself on the cases the issue names.
    let gpu = ["k", "v", "NoSchedule"];
    assert!(reference_tolerates(
        ["k", "Exists", "other", ""],
        gpu,
        false
    ));
    assert!(!reference_tolerates(["", "Equal", "", ""], gpu, false));
    assert!(reference_tolerates(["", "Equal", "v", ""], gpu, false));
    assert!(!reference_tolerates(["k", "exists", "", ""], gpu, false));
    assert!(!reference_tolerates(
        ["k", "Exists", "", "NoExecute"],
        gpu,
        false
    ));
    let ten = ["k", "10", "NoSchedule"];
    assert!(!reference_tolerates(["k", "Gt", "7", ""], ten, false));
    assert!(reference_tolerates(["k", "Gt", "7", ""], ten, true));
    assert!(!reference_tolerates(["k", "Lt", "7", ""], ten, true));
}

// ---------------------------------------------------------------------------------------------
// Fixes: each safe fix removes its finding, and fixing twice changes nothing.

/// Field lines of a toleration, shaped after the rule fixtures (tests/fixtures/rules/*/bad.yaml):
/// misspelled, deprecated and invalid keys, operators and effects, values that YAML 1.1 does
/// not decode as strings, nulls, unknown fields and nonpositive seconds.
const FIX_KEYS: &[&str] = &[
    "key: example.com/gpu",
    "key: node.kubernetes.io/unreachable",
    "key: node.alpha.kubernetes.io/unreachable",
    "key: node.kubernetes.io/net-ready",
    "key: \"\"",
    "key: ~",
    "key: bad key!",
    "Key: example.com/gpu",
];
const FIX_OPERATORS: &[&str] = &[
    "operator: Exists",
    "operator: Equal",
    "operator: exists",
    "operator: equal",
    "operator: In",
    "operator: \"\"",
    "Operator: Exists",
];
const FIX_VALUES: &[&str] = &[
    "value: \"true\"",
    "value: yes",
    "value: 1234",
    "value: 0x1F",
    "value: \"\"",
    "value: ~",
    "value: gpu",
];
const FIX_EFFECTS: &[&str] = &[
    "effect: NoSchedule",
    "effect: NoExecute",
    "effect: noschedule",
    "effect: NoExec",
    "effect: \"\"",
    "effect:",
    "efect: NoSchedule",
];
const FIX_SECONDS: &[&str] = &[
    "tolerationSeconds: 300",
    "tolerationSeconds: 0",
    "tolerationSeconds: -5",
    "tolerationSeconds: \"300\"",
    "tolerationSecond: 60",
];

/// One toleration: a pick (or nothing) from each table above.
type FixToleration = [Option<usize>; 5];

fn fix_toleration() -> impl Strategy<Value = FixToleration> {
    (
        prop::option::of(0..FIX_KEYS.len()),
        prop::option::of(0..FIX_OPERATORS.len()),
        prop::option::of(0..FIX_VALUES.len()),
        prop::option::of(0..FIX_EFFECTS.len()),
        prop::option::weighted(0.3, 0..FIX_SECONDS.len()),
    )
        .prop_map(|(k, o, v, e, s)| [k, o, v, e, s])
}

fn fix_lines(t: &FixToleration) -> Vec<&'static str> {
    [
        FIX_KEYS,
        FIX_OPERATORS,
        FIX_VALUES,
        FIX_EFFECTS,
        FIX_SECONDS,
    ]
    .iter()
    .zip(t)
    .filter_map(|(table, pick)| pick.map(|i| table[i]))
    .collect()
}

/// A manifest of the fixtures' shapes: a workload (Pod, Deployment, CronJob or a chart's values)
/// whose tolerations are written in block or flow style (an item may repeat an earlier one),
/// optionally followed by a Node with taints.
fn fix_manifest(
    kind: usize,
    tolerations: &[(FixToleration, bool)],
    repeat: Option<usize>,
    taints: &[(usize, usize)],
) -> String {
    let (head, indent) = match kind {
        0 => ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n", "  "),
        1 => (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n",
            "      ",
        ),
        2 => (
            "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: c\nspec:\n  schedule: \"0 2 * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n",
            "          ",
        ),
        _ => ("controller:\n  replicaCount: 2\n", "  "),
    };
    let mut items: Vec<&(FixToleration, bool)> = tolerations.iter().collect();
    if let Some(r) = repeat {
        items.push(&tolerations[r % tolerations.len()]);
    }
    let mut text = format!("{head}{indent}tolerations:\n");
    for (t, flow) in items {
        let lines = fix_lines(t);
        if lines.is_empty() {
            text += &format!("{indent}- {{}}\n");
        } else if *flow {
            text += &format!("{indent}- {{{}}}\n", lines.join(", "));
        } else {
            for (i, line) in lines.iter().enumerate() {
                text += &format!("{indent}{} {line}\n", if i == 0 { "-" } else { " " });
            }
        }
    }
    if kind < 3 {
        text += &format!("{indent}containers:\n{indent}- name: app\n{indent}  image: nginx\n");
    }
    if !taints.is_empty() {
        text += "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n\nspec:\n  taints:\n";
        for &(key, effect) in taints {
            text += &format!(
                "  - {}\n    {}\n",
                FIX_KEYS[key % 4],
                FIX_EFFECTS[effect % FIX_EFFECTS.len()]
            );
        }
    }
    text
}

fn fix_case() -> impl Strategy<Value = String> {
    (
        0..4usize,
        prop::collection::vec((fix_toleration(), any::<bool>()), 1..4),
        prop::option::of(any::<usize>()),
        prop::collection::vec((any::<usize>(), any::<usize>()), 0..3),
    )
        .prop_map(|(kind, tolerations, repeat, taints)| {
            fix_manifest(kind, &tolerations, repeat, &taints)
        })
}

/// How many findings of each rule.
fn by_rule(found: &[taintlint::Diagnostic]) -> std::collections::BTreeMap<&'static str, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for d in found {
        *counts.entry(d.rule).or_insert(0) += 1;
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// Every fix, safe or to review, applied alone, leaves fewer findings of its rule and no
    /// new syntax error; `--fix` (`fix_all`, safe fixes only, or with `--unsafe-fixes`) leaves
    /// no fix but those its check refuses, and fixing its result again changes nothing.
    #[test]
    fn fixes_remove_their_findings_and_fixing_twice_changes_nothing(text in fix_case()) {
        use taintlint::fix::{fix_all, fixable, FixMode, MAX_PASSES};
        let options = Options::default();
        let found = analyse(&text, &options);
        let before = by_rule(&found);
        for d in &found {
            for fix in &d.fixes {
                let fixed = fix.apply(&text);
                let after = analyse(&fixed, &options);
                let left = by_rule(&after);
                prop_assert!(
                    left.get(d.rule).copied().unwrap_or(0) < before[d.rule],
                    "the fix {:?} ({:?}) of {} at {:?} did not remove it:\n{}\n--- fixed:\n{}\n--- after: {:?}",
                    fix.title, fix.applicability, d.rule, d.path, text, fixed,
                    after.iter().map(|a| (a.rule, a.path.clone())).collect::<Vec<_>>()
                );
                prop_assert!(
                    left.get("yaml-syntax") <= before.get("yaml-syntax"),
                    "the fix {:?} of {} broke the YAML:\n{}", fix.title, d.rule, fixed
                );
            }
        }
        for mode in [FixMode::Safe, FixMode::Unsafe] {
            let once = fix_all(&text, &options, mode);
            prop_assert!(once.passes < MAX_PASSES, "{:?}: {} passes:\n{}", mode, once.passes, text);
            let left = analyse(&once.text, &options);
            // A fix left is one its check refuses (it would write a toleration twice, say).
            for d in left.iter().filter(|d| fixable(d, mode)) {
                let fix = d.fixes.iter().find(|f| mode.admits(f.applicability)).unwrap();
                let after = analyse(&fix.apply(&once.text), &options);
                prop_assert!(
                    taintlint::fix::check(&left, &after, d.rule).is_err(),
                    "{:?}: --fix left a fix it could apply, {:?} of {} at {:?}:\n{}\n--- fixed:\n{}",
                    mode, fix.title, d.rule, d.path, text, once.text
                );
            }
            let twice = fix_all(&once.text, &options, mode);
            prop_assert_eq!(twice.applied, 0, "{:?}: a second --fix applied fixes:\n{}", mode, once.text);
            prop_assert_eq!(&twice.text, &once.text);
        }
    }
}

/// `inner` (a generated manifest) written inside a string of another document, in the holders
/// taintlint reads YAML from: an Argo CD Application's `helm.values` as a literal block of each
/// chomping (`|+` followed by another key) or as one double-quoted line, a kustomization's
/// inline patch with its target, a values ConfigMap, and a patch that holds an Application that
/// holds the values (a string in a string). A tab sits before a comment after the string.
fn embed(inner: &str, holder: usize) -> String {
    let block = |indent: &str| {
        inner
            .lines()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{indent}{l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let application = |values: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: app}}\nspec:\n  \
             source:\n    repoURL: https://charts.example.org\n    chart: app\n    helm:\n\
             {values}\n  destination:\t# where it goes\n    server: https://kubernetes.default.svc\n"
        )
    };
    match holder {
        0 => application(&format!("      values: |\n{}", block("        "))),
        1 => application(&format!("      values: |-\n{}", block("        "))),
        2 => application(&format!("      values: |+\n{}\n", block("        "))),
        3 => application(&format!(
            "      values: {}",
            serde_json::to_string(inner).unwrap()
        )),
        4 => format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml]\n\
             patches:\n- patch: |\n{}\n  target: {{kind: Deployment, name: d}}\n",
            block("    ")
        ),
        5 => format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: values}}\ndata:\n  values.yaml: |\n{}\n  \
             other: x\n",
            block("    ")
        ),
        _ => {
            let app = application(&format!("      values: |\n{}", block("        ")));
            format!(
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\npatches:\n- patch: |\n{}\n\
                 target: {{kind: Application, name: app}}\n",
                app.lines()
                    .map(|l| format!("    {l}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
            .replace("\ntarget:", "\n  target:")
        }
    }
}

/// What `--fix` must keep, whatever it fixed: the text and every string in it parses as before
/// (no new syntax finding), no toleration is written twice, no fix it could still apply is left
/// but those its check refuses, and a second pass changes nothing.
fn check_fixed(text: &str, mode: taintlint::fix::FixMode) -> Result<(), TestCaseError> {
    use taintlint::fix::{fix_all, fixable, MAX_PASSES};
    let options = Options::default();
    let before = by_rule(&analyse(text, &options));
    let once = fix_all(text, &options, mode);
    prop_assert!(
        once.passes < MAX_PASSES,
        "{:?}: {} passes:\n{}",
        mode,
        once.passes,
        text
    );
    let left = analyse(&once.text, &options);
    let after = by_rule(&left);
    for rule in [
        "yaml-syntax",
        "embedded-yaml-syntax",
        "hcl-syntax",
        "duplicate-toleration",
    ] {
        prop_assert!(
            after.get(rule) <= before.get(rule),
            "{:?}: --fix made a new {} finding:\n{}\n--- fixed:\n{}",
            mode,
            rule,
            text,
            once.text
        );
    }
    for d in left.iter().filter(|d| fixable(d, mode)) {
        let fix = d
            .fixes
            .iter()
            .find(|f| mode.admits(f.applicability))
            .unwrap();
        let again = analyse(&fix.apply(&once.text), &options);
        prop_assert!(
            taintlint::fix::check(&left, &again, d.rule).is_err(),
            "{:?}: --fix left a fix it could apply, {:?} of {} at {:?}:\n{}\n--- fixed:\n{}",
            mode,
            fix.title,
            d.rule,
            d.path,
            text,
            once.text
        );
    }
    let twice = fix_all(&once.text, &options, mode);
    prop_assert_eq!(
        twice.applied,
        0,
        "{:?}: a second --fix applied fixes:\n{}",
        mode,
        once.text
    );
    prop_assert_eq!(&twice.text, &once.text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The generated manifests above, inside strings: `--fix` keeps every string parsing, with
    /// LF or CRLF line ends.
    #[test]
    fn fixes_inside_strings_keep_every_string_parsing(
        inner in fix_case(),
        holder in 0..7usize,
        crlf in any::<bool>(),
        unsafe_fixes in any::<bool>(),
    ) {
        use taintlint::fix::FixMode;
        let mut text = embed(&inner, holder);
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let mode = if unsafe_fixes { FixMode::Unsafe } else { FixMode::Safe };
        check_fixed(&text, mode)?;
        // Outside the strings nothing changed, key for key; inside them, every fix the
        // manifest takes on its own was taken.
        let fixed = taintlint::fix::fix_all(&text, &Options::default(), mode);
        let alone = taintlint::fix::fix_all(&inner, &Options::default(), mode);
        prop_assert_eq!(
            fixed.applied,
            alone.applied,
            "{:?} in holder {}: {} fixes in the string, {} alone:\n{}\n--- fixed:\n{}\n--- alone:\n{}",
            mode, holder, fixed.applied, alone.applied, text, fixed.text, alone.text
        );
        let fixed = fixed.text;
        prop_assert_eq!(
            common::outer_shape(&text),
            common::outer_shape(&fixed),
            "the document around the strings changed:\n{}\n--- fixed:\n{}",
            text,
            fixed
        );
    }
}

/// Every fixture and example of this repository (strings in them included), fixed with
/// `--unsafe-fixes`, keeps what `--fix` must keep.
#[test]
fn fixing_every_fixture_keeps_it_whole() {
    let root = common::root();
    let mut dirs = vec![root.join("tests/fixtures"), root.join("examples")];
    let mut fixed = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if !matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json" | "tf")
            ) {
                continue;
            }
            if let Err(e) = check_fixed(&text, taintlint::fix::FixMode::Unsafe) {
                panic!("{}: {e}", path.display());
            }
            fixed += 1;
        }
    }
    assert!(fixed > 200, "only {fixed} files");
}

// ---------------------------------------------------------------------------------------------
// Inventories: what loads is what the nodes say.

/// Taints a generated node may carry (at most one per key and effect, as the API server
/// requires).
const NODE_TAINTS: &[(&str, &str, &str)] = &[
    ("nvidia.com/gpu", "present", "NoSchedule"),
    ("nvidia.com/gpu", "", "NoExecute"),
    ("example.com/spot", "true", "PreferNoSchedule"),
    ("example.com/team", "data", "NoSchedule"),
    ("node.kubernetes.io/unreachable", "", "NoExecute"),
];

/// One node: its pool label's value, which of [`NODE_TAINTS`] it has, and whether it is cordoned.
type GeneratedNode = (usize, Vec<usize>, bool);

fn generated_node() -> impl Strategy<Value = GeneratedNode> {
    (
        0..3usize,
        prop::sample::subsequence((0..NODE_TAINTS.len()).collect::<Vec<_>>(), 0..4),
        prop::bool::weighted(0.2),
    )
}

const POOL_LABEL: &str = "example.com/pool";
const POOL_NAMES: &[&str] = &["general", "gpu", "batch"];

/// The nodes as `kubectl get nodes -o json` or `-o yaml` prints them, or as Node documents.
fn node_list(nodes: &[GeneratedNode], format: usize) -> String {
    let json = |i: usize, (pool, taints, cordoned): &GeneratedNode| {
        let taints: Vec<serde_json::Value> = taints
            .iter()
            .map(|&t| {
                let (key, value, effect) = NODE_TAINTS[t];
                let mut taint = serde_json::json!({"key": key, "effect": effect});
                if !value.is_empty() {
                    taint["value"] = value.into();
                }
                taint
            })
            .collect();
        let mut spec = serde_json::json!({"taints": taints});
        if *cordoned {
            spec["unschedulable"] = true.into();
        }
        serde_json::json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": format!("node-{i}"), "labels": {POOL_LABEL: POOL_NAMES[*pool]}},
            "spec": spec,
        })
    };
    let items: Vec<serde_json::Value> = nodes.iter().enumerate().map(|(i, n)| json(i, n)).collect();
    match format {
        0 => serde_json::to_string_pretty(
            &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}),
        )
        .unwrap(),
        // JSON is YAML: a flow-style List, one item a line.
        1 => {
            let lines: Vec<String> = items.iter().map(|i| format!("- {i}")).collect();
            format!("apiVersion: v1\nkind: List\nitems:\n{}\n", lines.join("\n"))
        }
        // Block-style Node documents.
        _ => nodes
            .iter()
            .enumerate()
            .map(|(i, (pool, taints, cordoned))| {
                let mut doc = format!(
                    "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i}\n  labels:\n    {POOL_LABEL}: {}\nspec:\n",
                    POOL_NAMES[*pool]
                );
                if *cordoned {
                    doc += "  unschedulable: true\n";
                }
                if taints.is_empty() {
                    doc += "  taints: []\n";
                }
                else {
                    doc += "  taints:\n";
                }
                for &t in taints {
                    let (key, value, effect) = NODE_TAINTS[t];
                    doc += &format!("  - key: {key}\n");
                    if !value.is_empty() {
                        doc += &format!("    value: \"{value}\"\n");
                    }
                    doc += &format!("    effect: {effect}\n");
                }
                doc
            })
            .collect::<Vec<_>>()
            .join("---\n"),
    }
}

/// A node for the resource property: CPU in millicores, memory in MiB, GPUs when it has any;
/// `listed` false for a node whose status is not written (what it offers is unknown).
#[derive(Debug, Clone)]
struct NodeOffer {
    cpu: u32,
    memory: u32,
    gpus: Option<u32>,
    listed: bool,
}

/// What every node offers, whatever its pool says (taintlint's floor for CPU in millicores
/// and memory in MiB: `inventory::capacity::floor`).
const FLOOR: [u64; 2] = [500, 512];

/// A container's requests: CPU in millicores, memory in MiB, GPUs (as a limit), and whether it
/// is an init container, a sidecar (a restartable init container) or neither.
#[derive(Debug, Clone)]
struct Ask {
    cpu: u32,
    memory: u32,
    gpus: u32,
    init: u8,
}

fn node_offer() -> impl Strategy<Value = NodeOffer> {
    (
        0..20_000u32,
        0..65_536u32,
        prop::option::of(0..9u32),
        0..4u8,
    )
        .prop_map(|(cpu, memory, gpus, listed)| NodeOffer {
            cpu,
            memory,
            gpus,
            listed: listed > 0,
        })
}

fn ask() -> impl Strategy<Value = Ask> {
    // Small requests too, around what a node that does not say offers for certain.
    (0..12_000u32, 0..40_000u32, 0..5u32, 0..3u8, any::<bool>()).prop_map(
        |(cpu, memory, gpus, init, small)| Ask {
            cpu: if small { cpu % 300 } else { cpu },
            memory: if small { memory % 300 } else { memory },
            gpus: if gpus > 2 { 0 } else { gpus },
            init,
        },
    )
}

/// The reference: upstream `PodRequests` written out plainly (containers and sidecars summed;
/// each init container with the sidecars before it as a floor), per resource.
fn reference_requests(asks: &[Ask]) -> [u64; 3] {
    let mut sum = [0u64; 3];
    let mut sidecars = [0u64; 3];
    let mut floor = [0u64; 3];
    for a in asks {
        let own = [u64::from(a.cpu), u64::from(a.memory), u64::from(a.gpus)];
        match a.init {
            0 => (0..3).for_each(|i| sum[i] += own[i]),
            1 => (0..3).for_each(|i| floor[i] = floor[i].max(own[i] + sidecars[i])),
            _ => (0..3).for_each(|i| {
                sum[i] += own[i];
                sidecars[i] += own[i];
                floor[i] = floor[i].max(sidecars[i]);
            }),
        }
    }
    [0, 1, 2].map(|i| sum[i].max(floor[i]))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A node list loads as what it says: every node once, in a pool whose taints, pool label
    /// and cordon are the node's own, and nodes grouped together exactly when those agree.
    #[test]
    fn inventories_hold_what_the_nodes_say(
        nodes in prop::collection::vec(generated_node(), 1..10),
        format in 0..3usize,
    ) {
        let text = node_list(&nodes, format);
        let inventory = taintlint::inventory::Inventory::load(&[("nodes", text.as_str())])
            .map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
        prop_assert_eq!(inventory.node_count(), nodes.len(), "{}", text);
        prop_assert_eq!(inventory.files[0].nodes, nodes.len());
        let mut groups = std::collections::BTreeSet::new();
        for (i, (pool, taints, cordoned)) in nodes.iter().enumerate() {
            let name = format!("node-{i}");
            let holding: Vec<_> = inventory
                .pools
                .iter()
                .filter(|p| p.nodes.iter().any(|m| m.name == name))
                .collect();
            prop_assert_eq!(holding.len(), 1, "{} is in {} pools:\n{}", name, holding.len(), text);
            let p = holding[0];
            let mut want: Vec<(&str, &str, &str)> = taints.iter().map(|&t| NODE_TAINTS[t]).collect();
            want.sort();
            let mut got: Vec<(String, String, String)> = p
                .taints
                .iter()
                .map(|t| (t.taint.key.clone(), t.taint.value.clone(), t.taint.effect.to_string()))
                .collect();
            got.sort();
            let got: Vec<(&str, &str, &str)> =
                got.iter().map(|(k, v, e)| (k.as_str(), v.as_str(), e.as_str())).collect();
            prop_assert_eq!(&got, &want, "taints of {}:\n{}", name, text);
            prop_assert_eq!(p.label(None, POOL_LABEL), Some(POOL_NAMES[*pool]), "{}", name);
            prop_assert_eq!(p.unschedulable.is_some(), *cordoned, "{}", name);
            groups.insert((pool, want, cordoned));
        }
        prop_assert_eq!(inventory.pools.len(), groups.len(), "{}", text);
    }

    /// simulate's resource verdict never says "fits" (without a "may") where a node lacks the
    /// resource or has less allocatable than the pod requests, and never "does not fit" where
    /// every node has enough.
    #[test]
    fn resource_verdicts_match_a_reference(
        nodes in prop::collection::vec(node_offer(), 1..5),
        asks in prop::collection::vec(ask(), 1..5),
    ) {
        let mut inventory = String::new();
        for (i, n) in nodes.iter().enumerate() {
            let gpus = n.gpus.map(|g| format!(", nvidia.com/gpu: '{g}'")).unwrap_or_default();
            inventory.push_str(&format!(
                "---\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}}}\n"
            ));
            if n.listed {
                inventory.push_str(&format!(
                    "status: {{allocatable: {{cpu: {}m, memory: {}Mi, pods: '110'{gpus}}}}}\n",
                    n.cpu, n.memory
                ));
            }
        }
        let (mut containers, mut init) = (String::new(), String::new());
        for a in asks.iter() {
            let gpu = if a.gpus > 0 { format!(", limits: {{nvidia.com/gpu: {}}}", a.gpus) } else { String::new() };
            let item = format!(
                "  - name: c\n    image: x\n{}    resources: {{requests: {{cpu: {}m, memory: {}Mi}}{gpu}}}\n",
                if a.init == 2 { "    restartPolicy: Always\n" } else { "" },
                a.cpu, a.memory
            );
            if a.init == 0 { containers.push_str(&item) } else { init.push_str(&item) }
        }
        if containers.is_empty() {
            containers.push_str("  - name: c\n    image: x\n");
        }
        let pod = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n{containers}{}",
            if init.is_empty() { String::new() } else { format!("  initContainers:\n{init}") }
        );
        let inv = taintlint::inventory::Inventory::load(&[("nodes.yaml", &inventory)]).unwrap();
        let results = taintlint::analysis::simulate(&pod, &Options::default(), &inv).workloads;
        prop_assert_eq!(results.len(), 1);
        let want = reference_requests(&asks);
        let enough = |n: &NodeOffer| {
            want[0] <= u64::from(n.cpu)
                && want[1] <= u64::from(n.memory)
                && want[2] <= u64::from(n.gpus.unwrap_or(0))
        };
        for (pv, pool) in results[0].simulation.pools.iter().zip(&inv.pools) {
            let members: Vec<&NodeOffer> = pool
                .nodes
                .iter()
                .map(|m| &nodes[m.name[1..].parse::<usize>().unwrap()])
                .collect();
            if members.iter().any(|n| !n.listed) {
                // What the nodes offer is unknown: never "does not fit", and "fits" without a
                // "may" only for what every node offers.
                let small = want[0] <= FLOOR[0] && want[1] <= FLOOR[1] && want[2] == 0;
                for (v, _, _) in pv.groups(pool) {
                    prop_assert!(v.fits(), "says no fit on unknown nodes: {pod}\n{inventory}");
                    prop_assert_eq!(v.unknown.is_empty(), small, "{}\n{}", pod, inventory);
                }
                continue;
            }
            for (v, _, _) in pv.groups(pool) {
                if v.fits() && v.unknown.is_empty() {
                    prop_assert!(members.iter().all(|n| enough(n)), "says fits: {pod}\n{inventory}");
                }
                if !v.fits() {
                    prop_assert!(!members.iter().any(|n| enough(n)), "says no fit: {pod}\n{inventory}");
                }
                if v.fits() && !v.unknown.is_empty() {
                    prop_assert!(!members.iter().all(|n| enough(n)) || members.len() > 1, "a may where all fit: {pod}\n{inventory}");
                }
            }
        }
    }
}

/// A small random number generator (xorshift), so that the cases below are the same at every
/// run and can be counted.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

const POOL_KEYS: &[&str] = &["dedicated", "gpu", "spot"];
const POOL_VALUES: &[&str] = &["a", "b", ""];
const POOL_EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

const EDITED_POOLS: &[&str] = &["a", "b", "c", "d", "e", "f", "g", "h"];

/// A pool file of eight pools (sizes, labels, taints at random), as written by hand.
fn random_pools(rng: &mut Rng) -> Vec<(String, usize, String, Vec<String>)> {
    EDITED_POOLS
        .iter()
        .map(|name| {
            let taints = (0..rng.below(3))
                .map(|_| {
                    let value = rng.pick(POOL_VALUES);
                    let value = if value.is_empty() {
                        String::new()
                    } else {
                        format!("={value}")
                    };
                    format!("{}{value}:{}", rng.pick(POOL_KEYS), rng.pick(POOL_EFFECTS))
                })
                .collect();
            (
                name.to_string(),
                1 + rng.below(3),
                rng.pick(EDITED_POOLS).to_string(),
                taints,
            )
        })
        .collect()
}

fn pool_file(pools: &[(String, usize, String, Vec<String>)], comment: bool) -> String {
    let mut s = if comment {
        "# pools\n".to_string()
    } else {
        String::new()
    };
    s.push_str("pools:\n");
    for (name, count, label, taints) in pools {
        s.push_str(&format!(
            "  {name}:\n    count: {count}\n    labels: {{example.com/pool: {label}}}\n"
        ));
        if !taints.is_empty() {
            let quoted: Vec<String> = taints.iter().map(|t| format!("\"{t}\"")).collect();
            s.push_str(&format!("    taints: [{}]\n", quoted.join(", ")));
        }
    }
    s
}

/// One change to a pool file, as a platform engineer's edit makes it.
fn edit_pools(
    rng: &mut Rng,
    pools: &mut [(String, usize, String, Vec<String>)],
    comment: &mut bool,
) {
    let p = rng.below(pools.len());
    match rng.below(6) {
        0 => pools[p].3.push(format!(
            "{}={}:{}",
            rng.pick(POOL_KEYS),
            rng.pick(POOL_VALUES),
            rng.pick(POOL_EFFECTS)
        )),
        1 => {
            pools[p].3.pop();
        }
        2 => pools[p].1 = 1 + rng.below(3),
        3 => pools[p].2 = rng.pick(EDITED_POOLS).to_string(),
        4 => pools[p].0.push('x'),
        _ => *comment = !*comment,
    }
}

/// Workloads with tolerations, selectors and kinds at random.
fn random_workloads(rng: &mut Rng) -> String {
    let mut out = Vec::new();
    for i in 0..4 {
        let kind = if rng.below(6) == 0 {
            "DaemonSet"
        } else {
            "Deployment"
        };
        let mut spec = String::new();
        if rng.below(2) == 0 {
            spec.push_str(&format!(
                "      nodeSelector: {{example.com/pool: {}}}\n",
                rng.pick(EDITED_POOLS)
            ));
        }
        let n = rng.below(3);
        if n > 0 {
            spec.push_str("      tolerations:\n");
        }
        for _ in 0..n {
            let effect = rng.pick(POOL_EFFECTS);
            spec.push_str(&format!("      - key: {}\n", rng.pick(POOL_KEYS)));
            match rng.below(2) {
                0 => spec.push_str("        operator: Exists\n"),
                _ => spec.push_str(&format!(
                    "        operator: Equal\n        value: \"{}\"\n",
                    rng.pick(POOL_VALUES)
                )),
            }
            spec.push_str(&format!("        effect: {effect}\n"));
            if effect == "NoExecute" && rng.below(2) == 0 {
                spec.push_str("        tolerationSeconds: 60\n");
            }
        }
        out.push(format!(
            "apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: w{i}}}\nspec:\n  selector: {{matchLabels: {{app: w{i}}}}}\n  template:\n    metadata: {{labels: {{app: w{i}}}}}\n    spec:\n{spec}      containers: [{{name: c, image: x}}]\n"
        ));
    }
    out.join("---\n")
}

/// The language server keeps a file's findings when a pool changes if what they read of the
/// inventory reads the same of the new one (`Judged::still_hold`), and judges again only the
/// documents whose findings do not (`analyse_parsed_again`). Over random pools, edits and
/// workloads: whenever it says the findings hold, judging the file again gives the same
/// findings; it says so often enough to matter, and not always; and a file judged again
/// document by document has the findings of a file judged anew.
#[test]
fn findings_said_to_hold_under_another_inventory_are_the_same() {
    use taintlint::inventory::Inventory;
    use Judged;
    let options = Options::default();
    let judge = |text: &str, inventory: &Inventory, before: Option<&Judged>| {
        let mut stream = taintlint::syntax::parse(text);
        let (analysis, judged) = check_again(
            text,
            &mut stream,
            taintlint::analysis::Ask::new(&options, Some(inventory)),
            before,
        );
        (analysis.diagnostics, judged)
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut held, mut judged_again, mut findings_held) = (0, 0, 0);
    for case in 0..1500 {
        let mut pools = random_pools(&mut rng);
        let mut comment = false;
        let before = pool_file(&pools, comment);
        edit_pools(&mut rng, &mut pools, &mut comment);
        if rng.below(3) == 0 {
            edit_pools(&mut rng, &mut pools, &mut comment);
        }
        let after = pool_file(&pools, comment);
        let text = random_workloads(&mut rng);
        let old = Inventory::load(&[("pools.yaml", before.as_str())]).unwrap();
        let new = Inventory::load(&[("pools.yaml", after.as_str())]).unwrap();
        let (found, judged) = judge(&text, &old, None);
        // Nothing judged against the new inventory yet: nothing can be told.
        assert!(!judged.still_hold(&new), "case {case}");
        let (fresh, _) = judge(&text, &new, None);
        let (again, _) = judge(&text, &new, Some(&judged));
        assert_eq!(
            again, fresh,
            "case {case}: judged again document by document\n{before}\n{after}\n{text}"
        );
        if judged.still_hold(&new) {
            held += 1;
            if !found.is_empty() {
                findings_held += 1;
            }
            assert_eq!(
                found, fresh,
                "case {case}: said to hold, but the findings differ\n{before}\n{after}\n{text}"
            );
        } else {
            judged_again += 1;
        }
    }
    assert!(
        held >= 100 && findings_held >= 80,
        "held {held} ({findings_held} with findings)"
    );
    assert!(judged_again >= 500, "judged again {judged_again}");
}

/// A fix that would stop a toleration tolerating a taint of the cluster is held back (its
/// title says so), so findings with fixes read the cluster's distinct taints: under an
/// inventory whose taints differ they are judged again, under one whose taints are the same
/// they hold. (A RuntimeClass's tolerations: no pod template reads the inventory here.)
#[test]
fn fixes_held_back_by_the_clusters_taints_hold_while_the_taints_do() {
    use taintlint::inventory::Inventory;
    let text = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gpu}\nhandler: nvidia\nscheduling:\n  tolerations:\n  - {key: gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 600}\n";
    let tainted = "pools:\n  gpu:\n    count: 2\n    taints: [\"gpu=a100:NoSchedule\"]\n";
    let bigger = tainted.replace("count: 2", "count: 5");
    let plain = "pools:\n  gpu:\n    count: 2\n";
    let judge = |pools: &str| {
        let inventory = Inventory::load(&[("pools.yaml", pools)]).unwrap();
        let mut stream = taintlint::syntax::parse(text);
        let (analysis, judged) = check_again(
            text,
            &mut stream,
            taintlint::analysis::Ask::new(&Options::default(), Some(&inventory)),
            None,
        );
        (analysis.diagnostics, judged, inventory)
    };
    let (held_back, judged, _) = judge(tainted);
    let (offered, _, plain) = judge(plain);
    let (same, _, bigger) = judge(&bigger);
    let titles = |found: &[taintlint::Diagnostic]| -> Vec<String> {
        found
            .iter()
            .flat_map(|d| d.fixes.iter().map(|f| f.title.clone()))
            .collect()
    };
    assert!(
        titles(&held_back)
            .iter()
            .any(|t| t.contains("stops tolerating gpu=a100:NoSchedule")),
        "{:?}",
        titles(&held_back)
    );
    assert_ne!(held_back, offered);
    assert!(!judged.still_hold(&plain), "the cluster's taints changed");
    assert_eq!(held_back, same);
    assert!(
        judged.still_hold(&bigger),
        "the cluster's taints are the same"
    );
}
