//! `cargo bench --bench simulate`: 10,000 workloads against 5,000 nodes in 50 pools, and against
//! 10,000 nodes in the same 50 pools (the time should barely move: work grows with pools); and
//! loading a realistic `kubectl get nodes -o json` of 5,000 and 10,000 nodes (about 20 KB a
//! node), and grouping those nodes into pools again beside an edited pool file. It also writes that data, with 25,000 Deployments in 10,000 files, under
//! `target/bench-data/` for measuring the binary (docs/development.md, "At cluster scale").

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

use taintlint::inventory::{Inventory, ReadFile, Source};
use taintlint::k8s::objects::extract;
use taintlint::schedule::{simulate, Workload};
use taintlint::syntax::parse;
use taintlint::Options;

#[path = "support/cluster.rs"]
mod cluster;

const POOLS: usize = cluster::POOLS;
const WORKLOADS: usize = 10_000;

/// Writes the inventories, 25,000 workloads in 10,000 files and a file of 250,000 findings,
/// for measuring the binary.
fn write_data() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let manifests = dir.join("manifests");
    if !manifests.join("9999.yaml").is_file() {
        std::fs::create_dir_all(&manifests).unwrap();
        for (i, text) in cluster::manifest_files(25_000, 10_000).iter().enumerate() {
            std::fs::write(manifests.join(format!("{i:04}.yaml")), text).unwrap();
        }
    }
    // One big manifest of 250,000 findings, for lint's memory in every output format.
    let findings = dir.join("findings-250000.yaml");
    if !findings.is_file() {
        std::fs::write(findings, cluster::findings_file(250_000)).unwrap();
    }
    for nodes in [5_000, 10_000] {
        let file = dir.join(format!("nodes-{nodes}.json"));
        if !file.is_file() {
            std::fs::write(file, cluster::nodes_json(nodes)).unwrap();
        }
    }
    dir
}

/// `kubectl get nodes -o yaml`-shaped inventory: `nodes` nodes spread over 50 pools and 3 zones.
fn inventory_text(nodes: usize) -> String {
    let mut s = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for n in 0..nodes {
        let p = n % POOLS;
        let name = format!("pool{p}-node{n}");
        s.push_str(&format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {name}\n    labels:\n      \
             kubernetes.io/hostname: {name}\n      kubernetes.io/os: linux\n      \
             topology.kubernetes.io/zone: zone-{}\n      example.com/pool: pool{p}\n  spec:\n",
            n % 3
        ));
        let mut taints = Vec::new();
        if p.is_multiple_of(2) {
            taints.push(format!(
                "{{key: dedicated, value: pool{p}, effect: NoSchedule}}"
            ));
        }
        if p.is_multiple_of(5) {
            taints.push("{key: example.com/batch, effect: PreferNoSchedule}".to_string());
        }
        if p.is_multiple_of(7) {
            taints.push("{key: example.com/spot, value: \"true\", effect: NoExecute}".to_string());
        }
        s.push_str(&format!("    taints: [{}]\n", taints.join(", ")));
        let gpu = if p % 4 == 3 {
            ", nvidia.com/gpu: '1'"
        } else {
            ""
        };
        s.push_str(&format!(
            "  status:\n    allocatable: {{cpu: 7910m, memory: {}Ki, pods: '58'{gpu}}}\n",
            31_482_476 + (n % 3) * 4
        ));
    }
    s
}

/// Deployments, each aimed at one pool (or at none), tolerating that pool's taints or not.
fn workloads_text() -> String {
    let mut s = String::new();
    for i in 0..WORKLOADS {
        let p = i % POOLS;
        let selector = if i % 3 == 0 {
            String::new()
        } else {
            format!("      nodeSelector: {{example.com/pool: pool{p}}}\n")
        };
        let tolerations = if i % 4 == 0 {
            String::new()
        } else {
            format!(
                "      tolerations:\n      - {{key: dedicated, operator: Equal, value: pool{p}, effect: NoSchedule}}\n      - {{key: example.com/spot, operator: Exists, effect: NoExecute, tolerationSeconds: 600}}\n"
            )
        };
        s.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{i}\n  namespace: ns{}\nspec:\n  template:\n    spec:\n{selector}{tolerations}      containers:\n      - name: app\n        image: registry.example.com/app:{i}\n{}",
            i % 20,
            cluster::resources(i)
        ));
    }
    s
}

/// A pool file edited beside a node list.
const POOL_FILE: &str =
    "pools:\n  spare:\n    count: 2\n    taints: [\"dedicated=spare:NoSchedule\"]\n";

fn bench(c: &mut Criterion) {
    let options = Options::default();
    let workloads = workloads_text();
    let stream = parse(&workloads);
    let extracted: Vec<_> = stream.documents.iter().map(|d| (d, extract(d))).collect();
    let parsed: Vec<Workload<'_>> = extracted
        .iter()
        .flat_map(|(d, ex)| (0..ex.pod_specs.len()).map(|i| Workload::new(d, ex, i, &options)))
        .collect();
    assert_eq!(parsed.len(), WORKLOADS);
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    for nodes in [5_000, 10_000] {
        let text = inventory_text(nodes);
        let inventory = Inventory::load(&[("nodes.yaml", &text)]).unwrap();
        assert_eq!(inventory.node_count(), nodes);
        assert_eq!(inventory.pools.len(), POOLS);
        group.bench_function(
            format!("{WORKLOADS} workloads x {nodes} nodes in {POOLS} pools"),
            |b| {
                b.iter(|| {
                    let results =
                        taintlint::analysis::simulate(black_box(&workloads), &options, &inventory);
                    assert_eq!(results.workloads.len(), WORKLOADS);
                    results
                })
            },
        );
        group.bench_function(
            format!("filters only: {WORKLOADS} parsed workloads x {nodes} nodes"),
            |b| {
                b.iter(|| {
                    parsed
                        .iter()
                        .map(|w| simulate(black_box(w), &inventory, &options))
                        .filter(|s| s.fits_anywhere())
                        .count()
                })
            },
        );
        group.bench_function(format!("load an inventory of {nodes} nodes"), |b| {
            b.iter(|| Inventory::load(&[("nodes.yaml", black_box(&text))]).unwrap())
        });
    }
    let dir = write_data();
    for nodes in [5_000, 10_000] {
        let path = dir.join(format!("nodes-{nodes}.json"));
        let json = std::fs::read_to_string(&path).unwrap();
        let inventory = Inventory::load(&[("nodes.json", &json)]).unwrap();
        assert_eq!(inventory.node_count(), nodes);
        group.bench_function(
            format!(
                "load kubectl get nodes -o json: {nodes} nodes, {} MB",
                json.len() / 1_000_000
            ),
            |b| b.iter(|| Inventory::load(&[("nodes.json", black_box(&json))]).unwrap()),
        );
        // What the language server does on a keystroke in a pool file beside the node list:
        // the node list stays read, and all the nodes are put into pools again.
        let read = [
            ReadFile::read(0, "nodes.json", Source::Text(&json)),
            ReadFile::read(1, "pools.yaml", Source::Text(POOL_FILE)),
        ];
        assert_eq!(Inventory::assemble(&read).unwrap().node_count(), nodes + 2);
        group.bench_function(
            format!("group {nodes} nodes read, and a pool file, into pools again"),
            |b| b.iter(|| Inventory::assemble(black_box(&read)).unwrap()),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
