//! Property tests: whatever the input, `analyse` does not panic, every range it returns (primary,
//! related, fix edits) lies inside the text on character boundaries, fixes apply cleanly, and
//! the reports render.

mod common;

use std::path::PathBuf;

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
            // Applying it and linting the result does not panic either.
            let fixed = fix.apply(text);
            let _ = analyse(&fixed, &options(gate));
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
    /// inventory gives pools or errors, and linting it holds the usual properties.
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
        let _ = taintlint::inventory::Inventory::load(&[("p", text.as_str())]);
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

/// A node for the resource property: CPU in millicores, memory in MiB, GPUs when it has any.
#[derive(Debug, Clone)]
struct NodeOffer {
    cpu: u32,
    memory: u32,
    gpus: Option<u32>,
}

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
    (0..20_000u32, 0..65_536u32, prop::option::of(0..9u32))
        .prop_map(|(cpu, memory, gpus)| NodeOffer { cpu, memory, gpus })
}

fn ask() -> impl Strategy<Value = Ask> {
    (0..12_000u32, 0..40_000u32, 0..5u32, 0..3u8).prop_map(|(cpu, memory, gpus, init)| Ask {
        cpu,
        memory,
        gpus: if gpus > 2 { 0 } else { gpus },
        init,
    })
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
                "---\nkind: Node\nmetadata: {{name: n{i}, labels: {{kubernetes.io/hostname: n{i}}}}}\n\
                 status: {{allocatable: {{cpu: {}m, memory: {}Mi, pods: '110'{gpus}}}}}\n",
                n.cpu, n.memory
            ));
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
        let results = taintlint::schedule::simulate_text(&pod, &Options::default(), &inv);
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
