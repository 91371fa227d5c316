//! Benchmark data shaped like the real thing: `kubectl get nodes -o json` of an EKS/GKE-style
//! cluster (about 20 KB a node: labels, annotations, conditions, addresses, nodeInfo and 40
//! images), and a monorepo's Deployments spread over many files.

use std::fmt::Write;

pub const POOLS: usize = 50;

/// The taints of pool `p`.
fn taints(p: usize) -> Vec<String> {
    let mut t = Vec::new();
    if p.is_multiple_of(2) {
        t.push(format!(
            r#"{{"effect":"NoSchedule","key":"dedicated","value":"pool{p}"}}"#
        ));
    }
    if p.is_multiple_of(5) {
        t.push(r#"{"effect":"PreferNoSchedule","key":"example.com/batch"}"#.to_string());
    }
    if p.is_multiple_of(7) {
        t.push(r#"{"effect":"NoExecute","key":"example.com/spot","value":"true"}"#.to_string());
    }
    t
}

/// `kubectl get nodes -o json` for `nodes` nodes in [`POOLS`] pools over 3 zones.
pub fn nodes_json(nodes: usize) -> String {
    let mut s = String::with_capacity(nodes * 21_000);
    s.push_str("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n");
    for n in 0..nodes {
        let p = n % POOLS;
        let zone = ["us-east-1a", "us-east-1b", "us-east-1c"][n % 3];
        let name = format!("ip-10-{}-{}-{}.ec2.internal", p, n / 250, n % 250);
        let ip = format!("10.{}.{}.{}", p, n / 250, n % 250);
        let itype = ["m6i.2xlarge", "c6i.4xlarge", "r6i.2xlarge", "g5.2xlarge"][p % 4];
        // What each instance type offers, as EKS nodes report it; memory differs by a few KiB
        // between nodes of one type, as it does on real instances.
        let (cpu, cpu_cap, memory, gpu) = match p % 4 {
            0 => ("7910m", "8", 31_482_476 + (n % 3) * 4, ""),
            1 => ("15890m", "16", 31_482_476 + (n % 3) * 4, ""),
            2 => ("7910m", "8", 64_243_532 + (n % 3) * 4, ""),
            _ => (
                "7910m",
                "8",
                31_482_476 + (n % 3) * 4,
                r#", "nvidia.com/gpu": "1""#,
            ),
        };
        let memory_cap = memory + 926_208;
        if n > 0 {
            s.push_str(",\n");
        }
        let mut images = String::new();
        for i in 0..40 {
            if i > 0 {
                images.push_str(",\n");
            }
            let _ = write!(
                images,
                r#"                    {{
                        "names": [
                            "123456789012.dkr.ecr.us-east-1.amazonaws.com/team{i}/service-{i}@sha256:{:064x}",
                            "123456789012.dkr.ecr.us-east-1.amazonaws.com/team{i}/service-{i}:v1.{i}.{n}"
                        ],
                        "sizeBytes": {}
                    }}"#,
                (n as u128) * 1_000_003 + i as u128,
                10_000_000 + i * 1_234_567
            );
        }
        let mut conditions = String::new();
        for (i, (kind, reason, message)) in [
            (
                "MemoryPressure",
                "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available",
            ),
            (
                "DiskPressure",
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure",
            ),
            (
                "PIDPressure",
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
            ),
            ("Ready", "KubeletReady", "kubelet is posting ready status"),
        ]
        .iter()
        .enumerate()
        {
            if i > 0 {
                conditions.push_str(",\n");
            }
            let status = if *kind == "Ready" { "True" } else { "False" };
            let _ = write!(
                conditions,
                r#"                    {{
                        "lastHeartbeatTime": "2026-11-20T10:{:02}:00Z",
                        "lastTransitionTime": "2026-11-01T08:00:00Z",
                        "message": "{message}",
                        "reason": "{reason}",
                        "status": "{status}",
                        "type": "{kind}"
                    }}"#,
                n % 60
            );
        }
        let taints = taints(p);
        let taints = if taints.is_empty() {
            String::new()
        } else {
            format!(
                ",\n                \"taints\": [\n                    {}\n                ]",
                taints.join(",\n                    ")
            )
        };
        let _ = write!(
            s,
            r#"        {{
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {{
                "annotations": {{
                    "alpha.kubernetes.io/provided-node-ip": "{ip}",
                    "csi.volume.kubernetes.io/nodeid": "{{\"ebs.csi.aws.com\":\"i-0{n:016x}\"}}",
                    "node.alpha.kubernetes.io/ttl": "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true"
                }},
                "creationTimestamp": "2026-11-01T08:00:00Z",
                "labels": {{
                    "beta.kubernetes.io/arch": "amd64",
                    "beta.kubernetes.io/instance-type": "{itype}",
                    "beta.kubernetes.io/os": "linux",
                    "eks.amazonaws.com/capacityType": "ON_DEMAND",
                    "eks.amazonaws.com/nodegroup": "pool{p}",
                    "eks.amazonaws.com/nodegroup-image": "ami-0{p:016x}",
                    "failure-domain.beta.kubernetes.io/region": "us-east-1",
                    "failure-domain.beta.kubernetes.io/zone": "{zone}",
                    "k8s.io/cloud-provider-aws": "a94967527effcefb5f5829f529c0a1b9",
                    "kubernetes.io/arch": "amd64",
                    "kubernetes.io/hostname": "{name}",
                    "kubernetes.io/os": "linux",
                    "node.kubernetes.io/instance-type": "{itype}",
                    "example.com/pool": "pool{p}",
                    "topology.ebs.csi.aws.com/zone": "{zone}",
                    "topology.kubernetes.io/region": "us-east-1",
                    "topology.kubernetes.io/zone": "{zone}"
                }},
                "name": "{name}",
                "resourceVersion": "{}",
                "uid": "{:08x}-1234-5678-9abc-{:012x}"
            }},
            "spec": {{
                "providerID": "aws:///{zone}/i-0{n:016x}"{taints}
            }},
            "status": {{
                "addresses": [
                    {{"address": "{ip}", "type": "InternalIP"}},
                    {{"address": "{name}", "type": "InternalDNS"}},
                    {{"address": "{name}", "type": "Hostname"}}
                ],
                "allocatable": {{"cpu": "{cpu}", "ephemeral-storage": "95491281146", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "{memory}Ki"{gpu}, "pods": "58"}},
                "capacity": {{"cpu": "{cpu_cap}", "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "{memory_cap}Ki"{gpu}, "pods": "58"}},
                "conditions": [
{conditions}
                ],
                "daemonEndpoints": {{"kubeletEndpoint": {{"Port": 10250}}}},
                "images": [
{images}
                ],
                "nodeInfo": {{
                    "architecture": "amd64",
                    "bootID": "{n:08x}-aaaa-bbbb-cccc-dddddddddddd",
                    "containerRuntimeVersion": "containerd://1.7.22",
                    "kernelVersion": "6.1.112-122.189.amzn2023.x86_64",
                    "kubeProxyVersion": "v1.31.2-eks-94953ac",
                    "kubeletVersion": "v1.31.2-eks-94953ac",
                    "machineID": "ec2{n:029x}",
                    "operatingSystem": "linux",
                    "osImage": "Amazon Linux 2023.6.20241111",
                    "systemUUID": "ec2{n:029x}"
                }}
            }}
        }}"#,
            1_000_000 + n,
            n,
            n
        );
    }
    s.push_str("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n");
    s
}

/// A Deployment's container resources: requests from 100m/128Mi to 2/4Gi, every 50th asks for
/// a GPU, every 997th for more CPU than any node has.
pub fn resources(i: usize) -> String {
    let cpu = ["100m", "250m", "500m", "1", "2"][i % 5];
    let memory = ["128Mi", "256Mi", "512Mi", "1Gi", "4Gi"][(i / 5) % 5];
    let cpu = if i.is_multiple_of(997) { "32" } else { cpu };
    let gpu = if i.is_multiple_of(50) {
        ", nvidia.com/gpu: 1"
    } else {
        ""
    };
    format!("        resources:\n          requests: {{cpu: {cpu}, memory: {memory}}}\n          limits: {{memory: {memory}{gpu}}}\n")
}

/// One Deployment: aimed at a pool (or at none, or at a zone), tolerating its taints or not.
pub fn deployment(i: usize) -> String {
    let p = i % POOLS;
    let selector = match i % 6 {
        0 => String::new(),
        1 => "      nodeSelector: {topology.kubernetes.io/zone: us-east-1b}\n".to_string(),
        _ => format!("      nodeSelector: {{example.com/pool: pool{p}}}\n"),
    };
    let tolerations = if i.is_multiple_of(4) {
        String::new()
    } else {
        format!(
            "      tolerations:\n      - key: dedicated\n        operator: Equal\n        value: pool{p}\n        effect: NoSchedule\n      - key: example.com/spot\n        operator: Exists\n        effect: NoExecute\n        tolerationSeconds: 600\n"
        )
    };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{i}\n  namespace: team{}\n  labels: {{app: app{i}}}\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {{app: app{i}}}\n  template:\n    metadata:\n      labels: {{app: app{i}}}\n    spec:\n{selector}{tolerations}      containers:\n      - name: app\n        image: registry.example.com/team/app{i}:1.0.{i}\n        ports: [{{containerPort: 8080}}]\n{}",
        i % 40,
        resources(i)
    )
}

/// `workloads` Deployments in `files` files (multi-document YAML), in order.
pub fn manifest_files(workloads: usize, files: usize) -> Vec<String> {
    let mut out = vec![String::new(); files];
    for i in 0..workloads {
        let f = &mut out[i * files / workloads];
        if !f.is_empty() {
            f.push_str("---\n");
        }
        f.push_str(&deployment(i));
    }
    out
}

/// One file with at least `findings` findings, as a big generated manifest gives them: a
/// `kind: List` of Pods whose tolerations carry the usual mistakes (an `Exists` with a value,
/// an effect in the wrong case, an operator in the wrong case, an unknown field), about 150
/// bytes of YAML per finding.
pub fn findings_file(findings: usize) -> String {
    const PER_POD: usize = 8;
    let pods = findings.div_ceil(PER_POD);
    let mut s = String::with_capacity(findings * 160);
    s.push_str("apiVersion: v1\nkind: List\nitems:\n");
    for p in 0..pods {
        s.push_str(&format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: batch-{p}\n    namespace: team{}\n  spec:\n    containers:\n    - name: worker\n      image: registry.example.com/batch/worker:2.{p}\n    tolerations:\n",
            p % 40
        ));
        for t in 0..PER_POD {
            let key = format!("example.com/queue-{}", (p * PER_POD + t) % 997);
            s.push_str(&match t % 4 {
                0 => format!("    - key: {key}\n      operator: Exists\n      value: \"true\"\n      effect: NoSchedule\n"),
                1 => format!("    - key: {key}\n      operator: Equal\n      value: batch\n      effect: noschedule\n"),
                2 => format!("    - key: {key}\n      operator: exists\n      effect: NoExecute\n      tolerationSeconds: 300\n"),
                _ => format!("    - key: {key}\n      operator: Equal\n      value: batch\n      efect: NoSchedule\n"),
            });
        }
    }
    s
}
