//! `cargo bench --bench iac`: reading node pools defined as code, as inventories and as linted
//! files: 1,000 Terraform files of node pools (a GKE node pool, an EKS node group and an AKS
//! node pool each), 1,000 Karpenter NodePools (one file, a document each) and an eksctl
//! ClusterConfig of 1,000 node groups.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

use taintlint::inventory::Inventory;
use taintlint::{analyse, Options};

const FILES: usize = 1_000;

fn terraform_file(i: usize) -> String {
    format!(
        r#"resource "google_container_node_pool" "gpu{i}" {{
  name    = "gpu-{i}"
  cluster = google_container_cluster.primary.id
  autoscaling {{
    min_node_count = 0
    max_node_count = 4
  }}
  node_config {{
    machine_type = "n1-standard-8"
    labels = {{
      "example.com/pool" = "gpu-{i}"
    }}
    taint {{
      key    = "nvidia.com/gpu"
      value  = "present"
      effect = "NO_SCHEDULE"
    }}
  }}
}}

resource "aws_eks_node_group" "system{i}" {{
  cluster_name    = aws_eks_cluster.example.name
  node_group_name = "system-{i}"
  scaling_config {{
    desired_size = 2
    max_size     = 3
    min_size     = 1
  }}
  taint {{
    key    = "CriticalAddonsOnly"
    value  = "true"
    effect = "NO_SCHEDULE"
  }}
}}

resource "azurerm_kubernetes_cluster_node_pool" "spot{i}" {{
  name        = "spot{i}"
  min_count   = 0
  max_count   = 5
  node_taints = ["kubernetes.azure.com/scalesetpriority=spot:NoSchedule"]
}}
"#
    )
}

fn nodepool(i: usize) -> String {
    format!(
        r#"apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: pool-{i}
spec:
  template:
    metadata:
      labels:
        example.com/team: team-{i}
    spec:
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot", "on-demand"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      taints:
        - key: example.com/team
          value: team-{i}
          effect: NoSchedule
      startupTaints:
        - key: node.cilium.io/agent-not-ready
          value: "true"
          effect: NoExecute
  limits:
    nodes: 20
"#
    )
}

/// One eksctl ClusterConfig with `n` node groups, half with map-form taints (`key: "value:Effect"`,
/// read into nodes spanning the string) and half with list-form ones.
fn eksctl(n: usize) -> String {
    let mut out = String::from(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: big, region: us-west-2}\nnodeGroups:\n",
    );
    for i in 0..n {
        if i % 2 == 0 {
            out.push_str(&format!(
                "  - name: ng-{i}\n    minSize: 0\n    maxSize: 10\n    labels: {{example.com/team: team-{i}}}\n    taints:\n      example.com/team: \"team-{i}:NoSchedule\"\n      example.com/spot: \":PreferNoSchedule\"\n"
            ));
        } else {
            out.push_str(&format!(
                "  - name: ng-{i}\n    desiredCapacity: 3\n    taints:\n      - {{key: example.com/team, value: team-{i}, effect: NoSchedule}}\n"
            ));
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let tf: Vec<(String, String)> = (0..FILES)
        .map(|i| (format!("pools{i}.tf"), terraform_file(i)))
        .collect();
    let tf_pairs: Vec<(&str, &str)> = tf.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let tf_bytes: usize = tf.iter().map(|(_, t)| t.len()).sum();
    let nodepools: String = (0..FILES).map(nodepool).collect::<Vec<_>>().join("---\n");

    let inv = Inventory::load(&tf_pairs).unwrap();
    assert_eq!(inv.pools.len(), 3 * FILES);
    let inv = Inventory::load(&[("nodepools.yaml", &nodepools)]).unwrap();
    assert_eq!(inv.pools.len(), FILES);

    let mut g = c.benchmark_group("terraform");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(tf_bytes as u64));
    g.bench_function("load 1,000 files (3,000 pools)", |b| {
        b.iter(|| black_box(Inventory::load(black_box(&tf_pairs)).unwrap()))
    });
    g.bench_function("lint 1,000 files", |b| {
        let options = Options::default();
        b.iter(|| {
            for (_, t) in &tf {
                black_box(analyse(t, &options));
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("karpenter");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(nodepools.len() as u64));
    g.bench_function("load 1,000 NodePools", |b| {
        b.iter(|| black_box(Inventory::load(&[("nodepools.yaml", black_box(&nodepools))]).unwrap()))
    });
    g.bench_function("lint 1,000 NodePools", |b| {
        let options = Options::default();
        b.iter(|| black_box(analyse(black_box(&nodepools), &options)))
    });
    g.finish();

    let groups = eksctl(FILES);
    let inv = Inventory::load(&[("eksctl.yaml", &groups)]).unwrap();
    assert_eq!(inv.pools.len(), FILES);
    let mut g = c.benchmark_group("eksctl");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(groups.len() as u64));
    g.bench_function("load 1,000 node groups", |b| {
        b.iter(|| black_box(Inventory::load(&[("eksctl.yaml", black_box(&groups))]).unwrap()))
    });
    g.bench_function("lint 1,000 node groups", |b| {
        let options = Options::default();
        b.iter(|| black_box(analyse(black_box(&groups), &options)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
