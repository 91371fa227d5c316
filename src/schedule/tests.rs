//! Simulation tests, most of them ported from upstream's filter and controller tests.

use super::*;
use crate::inventory::platform::Platform;
use crate::inventory::Inventory;
use crate::k8s::objects::extract;
use crate::schedule::admission::Source;
use crate::syntax;

fn inventory(text: &str) -> Inventory {
    Inventory::load(&[("inv.yaml", text)]).unwrap()
}

fn node(name: &str, labels: &str, taints: &str, unschedulable: bool) -> String {
    format!(
        "kind: Node\nmetadata: {{name: {name}, labels: {{{labels}}}}}\nspec: {{unschedulable: {unschedulable}, taints: [{taints}]}}\n"
    )
}

fn pod(spec: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec: {{{spec}}}\n")
}

/// Whether the one workload of `manifest` fits the one-node inventory.
fn fits_with(manifest: &str, inv: &Inventory, options: &Options) -> bool {
    let results = simulate_text(manifest, options, inv);
    assert_eq!(results.len(), 1, "{manifest}");
    results[0].simulation.fits_anywhere()
}

fn fits(manifest: &str, inv: &Inventory) -> bool {
    fits_with(manifest, inv, &Options::default())
}

// Ported from pkg/scheduler/framework/plugins/tainttoleration TestTaintTolerationFilter and
// TestTaintTolerationFilterWithFeatureGate.
#[test]
fn taint_toleration_filter() {
    let cases = [
        ("A pod having no tolerations can't be scheduled onto a node with nonempty taints",
         "", "{key: dedicated, value: user1, effect: NoSchedule}", false, false),
        ("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
         "{key: dedicated, value: user1, effect: NoSchedule}", "{key: dedicated, value: user1, effect: NoSchedule}", false, true),
        ("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
         "{key: dedicated, operator: Equal, value: user2, effect: NoSchedule}", "{key: dedicated, value: user1, effect: NoSchedule}", false, false),
        ("A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
         "{key: foo, operator: Exists, effect: NoSchedule}", "{key: foo, value: bar, effect: NoSchedule}", false, true),
        ("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node",
         "{key: dedicated, operator: Equal, value: user2, effect: NoSchedule}, {key: foo, operator: Exists, effect: NoSchedule}",
         "{key: dedicated, value: user2, effect: NoSchedule}, {key: foo, value: bar, effect: NoSchedule}", false, true),
        ("A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, can't be scheduled onto the node",
         "{key: foo, operator: Equal, value: bar, effect: PreferNoSchedule}", "{key: foo, value: bar, effect: NoSchedule}", false, false),
        ("The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
         "{key: foo, operator: Equal, value: bar}", "{key: foo, value: bar, effect: NoSchedule}", false, true),
        ("The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
         "{key: dedicated, operator: Equal, value: user2, effect: NoSchedule}", "{key: dedicated, value: user1, effect: PreferNoSchedule}", false, true),
        ("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
         "", "{key: dedicated, value: user1, effect: PreferNoSchedule}", false, true),
        ("Pod with Gt toleration cannot be scheduled on node when taint value is lower than threshold",
         "{key: node.example.com/priority-level, operator: Gt, value: '950', effect: NoSchedule}", "{key: node.example.com/priority-level, value: '800', effect: NoSchedule}", true, false),
        ("Pod with Gt toleration can be scheduled on node when taint value is higher than threshold",
         "{key: node.kubernetes.io/sla, operator: Gt, value: '750', effect: NoSchedule}", "{key: node.kubernetes.io/sla, value: '950', effect: NoSchedule}", true, true),
        ("Pod with Lt toleration cannot be scheduled on node when taint value is higher than threshold",
         "{key: node.example.com/priority-level, operator: Lt, value: '800', effect: NoSchedule}", "{key: node.example.com/priority-level, value: '950', effect: NoSchedule}", true, false),
        ("Pod with Lt toleration can be scheduled on node when taint value is lower than threshold",
         "{key: node.kubernetes.io/sla, operator: Lt, value: '950', effect: NoSchedule}", "{key: node.kubernetes.io/sla, value: '800', effect: NoSchedule}", true, true),
        ("Pod with Gt toleration cannot be scheduled on node with non-numeric taint value",
         "{key: node.kubernetes.io/sla, operator: Gt, value: '950', effect: NoSchedule}", "{key: node.kubernetes.io/sla, value: high, effect: NoSchedule}", true, false),
        // TestTaintTolerationFilterWithFeatureGate
        ("Pod with Gt toleration cannot be scheduled when feature gate is disabled",
         "{key: node.kubernetes.io/sla, operator: Gt, value: '750', effect: NoSchedule}", "{key: node.kubernetes.io/sla, value: '950', effect: NoSchedule}", false, false),
        ("Pod with Lt toleration cannot be scheduled when feature gate is disabled",
         "{key: node.kubernetes.io/sla, operator: Lt, value: '950', effect: NoSchedule}", "{key: node.kubernetes.io/sla, value: '800', effect: NoSchedule}", false, false),
        ("Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored",
         "{key: dedicated, operator: Equal, value: user1, effect: NoSchedule}, {key: node.kubernetes.io/sla, operator: Gt, value: '750', effect: NoSchedule}",
         "{key: dedicated, value: user1, effect: NoSchedule}", false, true),
        ("Pod with mixed tolerations, Gt toleration needed but filtered out when feature gate is disabled",
         "{key: dedicated, operator: Equal, value: user1, effect: NoSchedule}, {key: node.kubernetes.io/sla, operator: Gt, value: '750', effect: NoSchedule}",
         "{key: dedicated, value: user1, effect: NoSchedule}, {key: node.kubernetes.io/sla, value: '950', effect: NoSchedule}", false, false),
    ];
    for (name, tolerations, taints, gate, want) in cases {
        let inv = inventory(&node("nodeA", "", taints, false));
        let mut options = Options::default();
        if gate {
            options
                .set_feature_gates("TaintTolerationComparisonOperators=true")
                .unwrap();
        }
        let manifest = pod(&format!("tolerations: [{tolerations}]"));
        assert_eq!(fits_with(&manifest, &inv, &options), want, "{name}");
    }
}

// Ported from pkg/scheduler/framework/plugins/nodeunschedulable TestNodeUnschedulable.
#[test]
fn node_unschedulable() {
    let cordoned = inventory(&node("n", "", "", true));
    let normal = inventory(&node("n", "", "", false));
    assert!(
        !fits(&pod(""), &cordoned),
        "Does not schedule pod to unschedulable node"
    );
    assert!(fits(&pod(""), &normal), "Schedule pod to normal node");
    assert!(
        fits(
            &pod("tolerations: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]"),
            &cordoned
        ),
        "Schedule pod with toleration to unschedulable node"
    );
    let r = simulate_text(&pod(""), &Options::default(), &cordoned);
    assert_eq!(
        r[0].simulation.pools[0],
        PoolVerdict::Uniform(Verdict {
            reasons: vec![Reason::Unschedulable],
            ..Verdict::default()
        })
    );
}

// Ported from nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms (the nodeSelector
// rows and the rows that combine it with affinity).
#[test]
fn node_selector_and_affinity() {
    let cases = [
        ("no selector", "", "", true),
        ("missing labels", "nodeSelector: {foo: bar}", "", false),
        ("same labels", "nodeSelector: {foo: bar}", "foo: bar", true),
        ("node labels are superset", "nodeSelector: {foo: bar}", "foo: bar, baz: blah", true),
        ("node labels are subset", "nodeSelector: {foo: bar, baz: blah}", "foo: bar", false),
        ("Pod with no Affinity will schedule onto a node", "", "foo: bar", true),
        ("Pod with Affinity but nil NodeSelector will schedule onto a node",
         "affinity: {nodeAffinity: {}}", "foo: bar", true),
        ("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node",
         "nodeSelector: {foo: bar}, affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: foo, operator: Exists}]}]}}}",
         "foo: bar", true),
        ("Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
         "nodeSelector: {foo: bar}, affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: foo, operator: Exists}]}]}}}",
         "foo: barrrrrr", false),
    ];
    for (name, spec, labels, want) in cases {
        let inv = inventory(&node("node_1", labels, "", false));
        assert_eq!(fits(&pod(spec), &inv), want, "{name}");
    }
}

/// Every node carries the kubelet's `kubernetes.io/os` and `kubernetes.io/arch`: a pool file's
/// node that does not give them may fit a pod that selects on them, with the reason; a value the
/// inventory gives decides; any other label the node does not carry is absent. A Node object
/// is what the scheduler sees: a label it does not hold is absent, the kubelet's too.
#[test]
fn the_kubelets_labels_are_on_every_node_with_values_the_inventory_may_not_give() {
    let os = "nodeSelector: {kubernetes.io/os: linux}";
    let arch = "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
                {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/arch, operator: In, \
                values: [arm64]}]}]}}}";
    let options = Options::default();
    let unsaid = inventory("pools:\n  n: {count: 1}\n");
    let observed = inventory(&node("n1", "", "", false));
    for spec in [os, arch] {
        let v = &first_verdict(&pod(spec), &observed, &options)[0];
        assert!(!v.fits() && v.unknown.is_empty(), "{spec}: {v:?}");
    }
    for (spec, key, words) in [
        (os, "kubernetes.io/os", "nodeSelector kubernetes.io/os=linux: the kubelet sets kubernetes.io/os on every node, and the inventory does not say its value on this pool's nodes; it fits if it is linux"),
        (arch, "kubernetes.io/arch", "node affinity `kubernetes.io/arch In [arm64]`: the kubelet sets kubernetes.io/arch on every node, and the inventory does not say its value on this pool's nodes; it fits if it matches"),
    ] {
        let v = &first_verdict(&pod(spec), &unsaid, &options)[0];
        assert!(v.fits() && v.reasons.is_empty(), "{spec}: {v:?}");
        assert_eq!(v.unknown.len(), 1, "{spec}: {v:?}");
        assert_eq!(v.unknown[0].key, key);
        assert!(!v.unknown[0].is_resource());
        assert_eq!(v.unknown[0].describe(), words);
    }
    // A value the inventory gives decides, both ways.
    let said = |labels: &str| inventory(&node("n1", labels, "", false));
    let linux = &first_verdict(&pod(os), &said("kubernetes.io/os: linux"), &options)[0];
    assert!(linux.fits() && linux.unknown.is_empty(), "{linux:?}");
    let windows = &first_verdict(&pod(os), &said("kubernetes.io/os: windows"), &options)[0];
    assert!(!windows.fits(), "{windows:?}");
    assert!(fits(&pod(arch), &said("kubernetes.io/arch: arm64")));
    assert!(!fits(&pod(arch), &said("kubernetes.io/arch: amd64")));
    // A label the kubelet does not set is absent where the inventory does not give it.
    assert!(!fits(
        &pod("nodeSelector: {example.com/pool: gpu}"),
        &unsaid
    ));
}

#[test]
fn node_name_and_match_fields_are_checked_per_node() {
    let inv = inventory(
        "pools:\n  web: {count: 3, labels: {role: web}}\n  db: {count: 2, labels: {role: db}}\n",
    );
    assert_eq!(inv.pools.len(), 2);
    let r = simulate_text(&pod("nodeName: web-2"), &Options::default(), &inv);
    let sim = &r[0].simulation;
    assert_eq!(sim.fitting(&inv), 1);
    assert!(sim.pools[0].verdict_of(&inv.pools[0], 1).fits());
    assert_eq!(
        sim.pools[0].verdict_of(&inv.pools[0], 0).reasons,
        vec![Reason::NodeName("web-2".into())]
    );
    let hostname = pod("nodeSelector: {kubernetes.io/hostname: db-1}");
    let r = simulate_text(&hostname, &Options::default(), &inv);
    assert_eq!(r[0].simulation.fitting(&inv), 1);
    let fields = pod("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: NotIn, values: [web-1]}]}]}}}");
    let r = simulate_text(&fields, &Options::default(), &inv);
    assert_eq!(r[0].simulation.fitting(&inv), 4);
    // nodeName bypasses the scheduler: NoSchedule taints and the cordon do not apply, NoExecute
    // taints do (the kubelet checks them).
    let tainted = inventory(&node("n", "", "{key: a, effect: NoSchedule}", true));
    assert!(fits(&pod("nodeName: n"), &tainted));
    assert!(!fits(&pod(""), &tainted));
    let evicting = inventory(&node("n", "", "{key: a, effect: NoExecute}", false));
    assert!(!fits(&pod("nodeName: n"), &evicting));
    // A pool-wide label is checked once per pool.
    let r = simulate_text(&pod("nodeSelector: {role: db}"), &Options::default(), &inv);
    assert!(matches!(r[0].simulation.pools[1], PoolVerdict::Uniform(_)));
    assert_eq!(r[0].simulation.fitting(&inv), 2);
}

// The DaemonSet controller's tolerations, as daemon_controller_test.go exercises them:
// TestNotReadyNodeDaemonLaunchesPod, TestUnreachableNodeDaemonLaunchesPod,
// TestTaintPressureNodeDaemonLaunchesPod, TestNodeShouldRunDaemonPod
// (ShouldRunDaemonPodOnUnschedulableNode, ErrNodeSelectorNotMatch) and
// TestTaintedNodeDaemonDoesNotLaunchIntolerantPod / TestTaintedNodeDaemonLaunchesToleratePod.
#[test]
fn daemon_pods() {
    let ds = |spec: &str| {
        format!(
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: d}}\nspec:\n  template:\n    spec: {{{spec}}}\n"
        )
    };
    let cases = [
        ("not ready node", "{key: node.kubernetes.io/not-ready, effect: NoExecute}", false, "", true),
        ("unreachable node", "{key: node.kubernetes.io/unreachable, effect: NoExecute}", false, "", true),
        ("pressure taints",
         "{key: node.kubernetes.io/disk-pressure, effect: NoSchedule}, {key: node.kubernetes.io/memory-pressure, effect: NoSchedule}, {key: node.kubernetes.io/pid-pressure, effect: NoSchedule}",
         false, "", true),
        ("unschedulable node", "", true, "", true),
        ("network unavailable without hostNetwork", "{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}", false, "", false),
        ("network unavailable with hostNetwork", "{key: node.kubernetes.io/network-unavailable, effect: NoSchedule}", false, "hostNetwork: true", true),
        ("intolerant pod on a tainted node", "{key: dedicated, value: x, effect: NoSchedule}", false, "", false),
        ("tolerant pod on a tainted node", "{key: dedicated, value: x, effect: NoSchedule}", false,
         "tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]", true),
        ("node selector not matched", "", false, "nodeSelector: {type: other}", false),
    ];
    for (name, taints, unschedulable, spec, want) in cases {
        let inv = inventory(&node("n", "type: test", taints, unschedulable));
        assert_eq!(fits(&ds(spec), &inv), want, "DaemonSet: {name}");
    }
    // A plain pod gets none of these.
    let inv = inventory(&node(
        "n",
        "",
        "{key: node.kubernetes.io/not-ready, effect: NoExecute}",
        false,
    ));
    let r = simulate_text(&pod(""), &Options::default(), &inv);
    let v = r[0].simulation.pools[0].verdict_of(&inv.pools[0], 0);
    assert!(
        v.fits(),
        "DefaultTolerationSeconds tolerates not-ready for 300 s"
    );
    assert_eq!(v.eviction.as_ref().map(|e| e.seconds), Some(300));
    let mut no_dts = Options::default();
    no_dts
        .set_admission_plugins("DefaultTolerationSeconds", false)
        .unwrap();
    assert!(!fits_with(&pod(""), &inv, &no_dts));
}

#[test]
fn extended_resource_toleration_toggle() {
    let inv = inventory(&node(
        "gpu",
        "",
        "{key: nvidia.com/gpu, value: present, effect: NoSchedule}",
        false,
    ));
    let manifest =
        pod("containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]");
    assert!(!fits(&manifest, &inv), "off by default");
    let mut on = Options::default();
    on.set_admission_plugins("ExtendedResourceToleration", true)
        .unwrap();
    assert!(fits_with(&manifest, &inv, &on));
    let init =
        pod("initContainers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: 1}}}]");
    assert!(fits_with(&init, &inv, &on));
}

#[test]
fn every_kind_and_list_items() {
    let inv = inventory(&node("n", "", "{key: k, effect: NoSchedule}", false));
    let tol = "tolerations: [{key: k, operator: Exists}]";
    let manifests = [
        ("Pod", format!("spec: {{{tol}}}")),
        ("PodTemplate", format!("template: {{spec: {{{tol}}}}}")),
        (
            "Deployment",
            format!("spec: {{template: {{spec: {{{tol}}}}}}}"),
        ),
        (
            "StatefulSet",
            format!("spec: {{template: {{spec: {{{tol}}}}}}}"),
        ),
        (
            "DaemonSet",
            format!("spec: {{template: {{spec: {{{tol}}}}}}}"),
        ),
        (
            "ReplicaSet",
            format!("spec: {{template: {{spec: {{{tol}}}}}}}"),
        ),
        (
            "ReplicationController",
            format!("spec: {{template: {{spec: {{{tol}}}}}}}"),
        ),
        ("Job", format!("spec: {{template: {{spec: {{{tol}}}}}}}")),
        (
            "CronJob",
            format!("spec: {{jobTemplate: {{spec: {{template: {{spec: {{{tol}}}}}}}}}}}"),
        ),
    ];
    for (kind, body) in &manifests {
        let text = format!("kind: {kind}\nmetadata: {{name: x}}\n{body}\n");
        assert!(fits(&text, &inv), "{kind} tolerates");
        let bare = text.replace(tol, "");
        assert!(!fits(&bare, &inv), "{kind} without the toleration");
    }
    let list = "kind: List\nitems:\n- kind: Pod\n  metadata: {name: a}\n  spec: {}\n- kind: Pod\n  metadata: {name: b}\n  spec: {tolerations: [{key: k, operator: Exists}]}\n";
    let r = simulate_text(list, &Options::default(), &inv);
    assert_eq!(r.len(), 2);
    assert_eq!((r[0].item, r[1].item), (Some(0), Some(1)));
    assert_eq!(
        (
            r[0].simulation.fits_anywhere(),
            r[1].simulation.fits_anywhere()
        ),
        (false, true)
    );
}

#[test]
fn prefer_no_schedule_only_avoids_and_no_execute_evicts() {
    let inv = inventory(&node(
        "n",
        "",
        "{key: batch, effect: PreferNoSchedule}, {key: spot, effect: NoExecute}",
        false,
    ));
    let r = simulate_text(
        &pod("tolerations: [{key: spot, operator: Exists, effect: NoExecute, tolerationSeconds: 60}, {key: spot, operator: Exists}]"),
        &Options::default(),
        &inv,
    );
    let v = r[0].simulation.pools[0].verdict_of(&inv.pools[0], 0);
    assert!(v.fits());
    assert_eq!(v.avoid, vec![0]);
    // The first matching toleration counts: 60 s, even though the second has no limit.
    assert_eq!(
        v.eviction,
        Some(Eviction {
            seconds: 60,
            taint: 1,
            toleration: 0
        })
    );
}

/// A node that reports what it offers, as `kubectl get nodes -o yaml` does.
fn node_offering(name: &str, taints: &str, allocatable: &str) -> String {
    format!(
        "kind: Node\nmetadata: {{name: {name}}}\nspec: {{taints: [{taints}]}}\nstatus: {{allocatable: {{{allocatable}}}, capacity: {{cpu: '999'}}}}\n"
    )
}

fn first_verdict(manifest: &str, inv: &Inventory, options: &Options) -> Vec<Verdict> {
    let results = simulate_text(manifest, options, inv);
    assert_eq!(results.len(), 1, "{manifest}");
    results[0]
        .simulation
        .pools
        .iter()
        .map(|v| match v {
            PoolVerdict::Uniform(v) => v.clone(),
            PoolVerdict::Split(parts) => parts[0].verdict.clone(),
        })
        .collect()
}

// Ported from pkg/scheduler/framework/plugins/noderesources TestEnoughRequests: a node with
// 10 CPU (milli 10000) and 20 memory units, empty.
#[test]
fn node_resources_fit_filter() {
    let inv = inventory(&node_offering(
        "n",
        "",
        "cpu: 10, memory: '20', pods: '32', example.com/aaa: '5'",
    ));
    let cases = [
        ("no resources requested always fits", "containers: [{}]", true),
        ("too many resources fails", "containers: [{resources: {requests: {cpu: 11, memory: '1'}}}]", false),
        ("requests equal to allocatable fit", "containers: [{resources: {requests: {cpu: 10, memory: '20'}}}]", true),
        ("init container larger than the node fails",
         "initContainers: [{resources: {requests: {cpu: 11}}}], containers: [{resources: {requests: {cpu: 1}}}]", false),
        ("init container smaller than the sum fits",
         "initContainers: [{resources: {requests: {cpu: 5}}}], containers: [{resources: {requests: {cpu: 5}}}, {resources: {requests: {cpu: 5}}}]", true),
        ("a sidecar adds to the containers",
         "initContainers: [{restartPolicy: Always, resources: {requests: {cpu: 6}}}], containers: [{resources: {requests: {cpu: 5}}}]", false),
        ("limits default the requests", "containers: [{resources: {limits: {memory: '21'}}}]", false),
        ("extended resource within allocatable fits", "containers: [{resources: {limits: {example.com/aaa: 5}}}]", true),
        ("extended resource over allocatable fails", "containers: [{resources: {limits: {example.com/aaa: 6}}}]", false),
        ("extended resource the node lacks fails", "containers: [{resources: {limits: {example.com/bbb: 1}}}]", false),
        ("pods is not a container resource the filter counts", "containers: [{resources: {requests: {pods: 100}}}]", true),
    ];
    for (name, spec, want) in cases {
        assert_eq!(fits(&pod(spec), &inv), want, "{name}");
    }
    let v = &first_verdict(
        &pod("containers: [{resources: {requests: {cpu: 64}}}]"),
        &inv,
        &Options::default(),
    )[0];
    assert_eq!(
        v.reasons,
        vec![Reason::Insufficient {
            resource: "cpu".into(),
            requested: 64_000,
            offered: 10_000
        }]
    );
    let pool = &inv.pools[0];
    assert_eq!(
        v.reasons[0].describe(pool),
        "insufficient cpu: requests 64, a node offers at most 10"
    );
}

/// A pool file's `allocatable` names what sets its nodes apart: what the kubelet reports on
/// every node (CPU, memory, ephemeral storage, pods) that it does not write is unknown, and the
/// pod may fit; an extended resource it does not write is absent. A Node's `status.allocatable`
/// lists everything the node has. (The shipped examples/inventory/pools.yaml writes only the
/// GPUs of its GPU pool.)
#[test]
fn a_pool_files_allocatable_leaves_the_kubelets_resources_unknown() {
    let inv = inventory("pools:\n  gpu: {count: 2, allocatable: {nvidia.com/gpu: 4}}\n");
    let options = Options::default();
    let asks = |requests: &str| {
        first_verdict(
            &pod(&format!(
                "containers: [{{resources: {{requests: {{{requests}}}}}}}]"
            )),
            &inv,
            &options,
        )
        .remove(0)
    };
    for resource in [
        "cpu: 64",
        "memory: 500Gi",
        "ephemeral-storage: 1Ti",
        "hugepages-2Mi: 1Gi",
    ] {
        let v = asks(&format!("{resource}, nvidia.com/gpu: 1"));
        assert!(v.fits(), "{resource}: {v:?}");
        assert_eq!(v.unknown.len(), 1, "{resource}: {v:?}");
        assert!(v.unknown[0].is_resource(), "{v:?}");
        assert!(
            v.unknown[0]
                .describe()
                .contains("the pool does not say how much"),
            "{}",
            v.unknown[0].describe()
        );
    }
    // What it writes decides.
    assert!(asks("nvidia.com/gpu: 4").unknown.is_empty());
    assert_eq!(
        asks("nvidia.com/gpu: 5").reasons,
        vec![Reason::Insufficient {
            resource: "nvidia.com/gpu".into(),
            requested: 5,
            offered: 4
        }]
    );
    // An extended resource it does not write is absent.
    assert_eq!(
        asks("amd.com/gpu: 1").reasons,
        vec![Reason::Insufficient {
            resource: "amd.com/gpu".into(),
            requested: 1,
            offered: 0
        }]
    );
    // A Node that does not report CPU has none to give.
    let node = inventory(&node_offering("n", "", "nvidia.com/gpu: 4"));
    let v = &first_verdict(
        &pod("containers: [{resources: {requests: {cpu: 1}}}]"),
        &node,
        &options,
    )[0];
    assert!(!v.fits(), "{v:?}");
}

// The overhead of the pod's RuntimeClass counts (pkg/scheduler/framework/plugins/noderesources
// "resources + pod overhead fits" / "requests + overhead does not fit").
#[test]
fn runtime_class_overhead_counts() {
    let inv = inventory(&node_offering("n", "", "cpu: 10, memory: '20'"));
    let mut options = Options::default();
    let mut cluster = crate::k8s::cluster::Cluster::default();
    cluster.add_text(
        "rc.yaml",
        "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\noverhead: {podFixed: {cpu: 2}}\n",
    );
    options.set_cluster(std::sync::Arc::new(cluster));
    let spec = |cpu| {
        format!("runtimeClassName: kata, containers: [{{resources: {{requests: {{cpu: {cpu}}}}}}}]")
    };
    assert!(fits_with(&pod(&spec(8)), &inv, &options));
    assert!(!fits_with(&pod(&spec(9)), &inv, &options));
    assert!(fits(&pod(&spec(9)), &inv), "without the class, no overhead");
}

// Karpenter's GPU example (aws/karpenter-provider-aws examples/workloads/gpu-nvidia.yaml, a
// Deployment requesting nvidia.com/gpu: 1) against a CPU-only NodePool (examples/v1/
// general-purpose.yaml: instance categories c, m, r) and a GPU NodePool (instance families
// of NVIDIA GPUs, tainted nvidia.com/gpu:NoSchedule): only the GPU pool, with or without
// ExtendedResourceToleration.
#[test]
fn a_gpu_pod_fits_only_the_gpu_nodepool() {
    let pools = "\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: general-purpose}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ['2']}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5, g6, p4d]}
      taints:
        - {key: nvidia.com/gpu, effect: NoSchedule}
";
    let inv = inventory(pools);
    let deployment = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: inflate-gpu}
spec:
  template:
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: inflate-gpu
        image: public.ecr.aws/eks-distro/kubernetes/pause:3.7
        resources:
          limits: {nvidia.com/gpu: 1}
          requests: {cpu: '1'}
";
    let no_toleration = deployment.replace(
        "      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n",
        "",
    );
    let mut with_plugin = Options::default();
    with_plugin
        .set_admission_plugins("ExtendedResourceToleration", true)
        .unwrap();
    for (manifest, options, tolerated) in [
        (deployment, &Options::default(), true),
        (deployment, &with_plugin, true),
        (no_toleration.as_str(), &with_plugin, true),
        (no_toleration.as_str(), &Options::default(), false),
    ] {
        let v = first_verdict(manifest, &inv, options);
        assert_eq!(
            v[0].reasons,
            vec![Reason::Insufficient {
                resource: "nvidia.com/gpu".into(),
                requested: 1,
                offered: 0
            }]
        );
        assert_eq!(v[1].fits(), tolerated, "{manifest}");
        // A g5 has at least one GPU: one is certain, not "may fit".
        assert!(v[1].unknown.is_empty(), "{:?}", v[1].unknown);
    }
    // Eight GPUs: Karpenter launches a g5.48xlarge or a p4d.24xlarge, which have eight. GPUs
    // count per pod: 16 fit no instance type of the pool, however many replicas.
    let eight = deployment.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 8");
    let v = first_verdict(&eight, &inv, &Options::default());
    assert!(v[1].fits() && v[1].unknown.is_empty(), "{:?}", v[1]);
    let sixteen = deployment
        .replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 16")
        .replace("spec:\n  template:", "spec:\n  replicas: 1\n  template:");
    let v = first_verdict(&sixteen, &inv, &Options::default());
    assert_eq!(
        v[1].reasons,
        vec![Reason::Insufficient {
            resource: "nvidia.com/gpu".into(),
            requested: 16,
            offered: 8
        }]
    );
    // Eight GPUs and 150 CPUs: only a g5.48xlarge has both (p4d.24xlarge has 96 vCPUs).
    let big = eight.replace("requests: {cpu: '1'}", "requests: {cpu: '150'}");
    assert!(first_verdict(&big, &inv, &Options::default())[1].fits());
    // A pool of an instance family the table does not know: eight GPUs may fit.
    let unknown = inventory(&pools.replace("[g5, g6, p4d]", "[g7x]"));
    let v = first_verdict(&eight, &unknown, &Options::default());
    assert!(v[1].fits());
    let said: Vec<String> = v[1].unknown.iter().map(|u| u.describe()).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].starts_with("requests 1 cpu: the pool does not say"));
    assert!(said[1].contains("does not say how much nvidia.com/gpu"));
}

// Nodes of one pool that differ only in what they offer stay one pool; a request between the
// least and the most may fit (some nodes).
#[test]
fn nodes_that_differ_in_allocatable_share_a_pool() {
    let inv = inventory(&format!(
        "{}---\n{}",
        node_offering("a", "", "cpu: 4, nvidia.com/gpu: 8"),
        node_offering("b", "", "cpu: 8")
    ));
    assert_eq!(inv.pools.len(), 1);
    let v = &first_verdict(
        &pod("containers: [{resources: {limits: {nvidia.com/gpu: 2}}}]"),
        &inv,
        &Options::default(),
    )[0];
    assert!(v.fits());
    assert_eq!(
        v.unknown[0].describe(),
        "requests 2 nvidia.com/gpu: its nodes offer from 0 to 8; it fits only those with enough"
    );
    // A pool that does not say what it offers: 500 CPUs and a GPU may fit; what the smallest
    // nodes offer (500m, 512Mi) fits.
    let bare = inventory(&node("n", "", "", false));
    let v = &first_verdict(
        &pod("containers: [{resources: {limits: {cpu: 500, nvidia.com/gpu: 1}}}]"),
        &bare,
        &Options::default(),
    )[0];
    assert!(v.fits());
    let keys: Vec<&str> = v.unknown.iter().map(|u| u.key.as_str()).collect();
    assert_eq!(keys, ["cpu", "nvidia.com/gpu"]);
    assert_eq!(
        v.unknown[0].describe(),
        "requests 500 cpu: the pool does not say how much cpu its nodes offer; it fits if they \
         offer enough"
    );
    for (small, unknown) in [
        ("cpu: 500m, memory: 512Mi, ephemeral-storage: 1Gi", 0),
        ("cpu: 501m", 1),
        ("memory: 513Mi", 1),
        ("ephemeral-storage: 2Gi", 1),
    ] {
        let v = &first_verdict(
            &pod(&format!(
                "containers: [{{resources: {{requests: {{{small}}}}}}}]"
            )),
            &bare,
            &Options::default(),
        )[0];
        assert!(v.fits());
        assert_eq!(v.unknown.len(), unknown, "{small}: {:?}", v.unknown);
    }
}

// The README's GPU example, as the editor's lens says it: the driver DaemonSet misses the spot
// GPU pool, the MIG manager selects no node, the training Deployment fits only the GPU pool.
#[test]
fn the_gpu_example_lenses() {
    let inv = Inventory::load(&[(
        "nodepools.yaml",
        include_str!("../../examples/gpu/nodepools.yaml"),
    )])
    .unwrap();
    let options = Options::default();
    let operands = simulate_text(
        include_str!("../../examples/gpu/gpu-agents.yaml"),
        &options,
        &inv,
    );
    let lens = |r: &WorkloadResult| placement::daemonset_lens(&r.simulation, &inv);
    assert_eq!(
        placement::daemonset_summary(&operands[0].simulation, &inv).as_deref(),
        Some(
            "DaemonSet: runs on 1 of the 2 nodes it selects; misses pool gpu-spot: untolerated \
             taint spot=true:NoSchedule"
        )
    );
    // Too long for a lens: the count goes, the taint that answers stays whole.
    assert_eq!(
        lens(&operands[0]).as_deref(),
        Some("DaemonSet misses pool gpu-spot: untolerated taint spot=true:NoSchedule")
    );
    assert_eq!(
        lens(&operands[1]).as_deref(),
        Some("DaemonSet: selects no node (it runs no pods until a node matches)")
    );
    assert!(operands[1]
        .daemonset
        .as_ref()
        .is_some_and(|c| c.picked == 0));
    assert!(!operands[1].runs_nowhere());
    let training = simulate_text(
        include_str!("../../examples/gpu/training.yaml"),
        &options,
        &inv,
    );
    assert_eq!(training[0].daemonset, None);
    assert_eq!(
        placement::summary(&training[0].simulation, &inv),
        "fits 1 of 3 pools (count unknown): gpu"
    );
}

// Dynamic Resource Allocation, as NVIDIA's DRA driver demonstrates it (NVIDIA/k8s-dra-driver-gpu
// demo/specs/quickstart: a ResourceClaimTemplate of one `gpu.nvidia.com` device, a pod that
// names it): the claim is not simulated, so the pod may fit every node its taints and
// selectors allow, and says what it claims; never a silent "fits".
#[test]
fn resource_claims_may_fit_and_say_what_they_claim() {
    let inv = inventory(&format!(
        "{}---\n{}",
        node_offering("cpu-1", "", "cpu: 8, memory: 32Gi"),
        node_offering(
            "gpu-1",
            "{key: nvidia.com/gpu, effect: NoSchedule}",
            "cpu: 8"
        )
    ));
    let templates = "\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {namespace: gpu-test, name: single-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com, count: 2}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {namespace: gpu-test, name: shared-gpus}
spec:
  devices:
    requests:
    - {name: gpus, deviceClassName: gpu.nvidia.com, allocationMode: All}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {namespace: gpu-test, name: no-class}
spec:
  spec:
    devices:
      requests:
      - name: any
";
    let mut options = Options::default();
    let mut cluster = crate::k8s::cluster::Cluster::default();
    cluster.add_text("claims.yaml", templates);
    options.set_cluster(std::sync::Arc::new(cluster));
    let manifest = "\
apiVersion: v1
kind: Pod
metadata: {namespace: gpu-test, name: pod}
spec:
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: single-gpu}
  - {name: shared, resourceClaimName: shared-gpus}
  - {name: other, resourceClaimTemplateName: elsewhere}
  - {name: bare, resourceClaimTemplateName: no-class}
  containers:
  - name: ctr
    image: ubuntu:22.04
    resources:
      claims: [{name: gpu}]
";
    let v = first_verdict(manifest, &inv, &options);
    assert!(v[0].fits());
    let said: Vec<String> = v[0].unknown.iter().map(|u| u.describe()).collect();
    assert_eq!(
        said,
        [
            "resource claim gpu claims 2 devices of class gpu.nvidia.com (ResourceClaimTemplate \
             single-gpu): dynamic resource allocation is not simulated; it fits if a node's \
             devices satisfy the claim",
            "resource claim shared claims all devices of class gpu.nvidia.com (ResourceClaim \
             shared-gpus): dynamic resource allocation is not simulated; it fits if a node's \
             devices satisfy the claim",
            "resource claim other claims devices through the ResourceClaimTemplate elsewhere, \
             which is not among the files read: dynamic resource allocation is not simulated; \
             it fits if a node's devices satisfy the claim",
            "resource claim bare claims devices through the ResourceClaimTemplate no-class, \
             whose requests name no device class: dynamic resource allocation is not \
             simulated; it fits if a node's devices satisfy the claim",
        ]
    );
    // The GPU node's taint still keeps it off: a claim does not tolerate it.
    assert!(!v[1].fits());
    // Without the templates read, the claim is still not a silent fit.
    let v = first_verdict(manifest, &inv, &Options::default());
    assert!(v[0].fits() && v[0].unknown.len() == 4);
    assert!(v[0].unknown.iter().all(|u| u.is_resource()));
    // A pod without claims fits as before.
    let plain = manifest.replace("  resourceClaims:\n", "  x:\n");
    assert!(first_verdict(&plain, &inv, &options)[0].unknown.is_empty());
}

// With the cluster's DeviceClasses and ResourceSlices in the inventory (`kubectl get
// deviceclasses,resourceslices -o yaml`, shaped as NVIDIA's DRA driver publishes them: one
// slice per node and driver, its classes selecting `device.driver == 'gpu.nvidia.com' &&
// device.attributes['gpu.nvidia.com'].type == 'gpu'`, deployments/helm/dra-driver-nvidia-gpu
// templates/deviceclass-gpu.yaml), devices are counted per node: two GPUs fit the node whose
// slice lists eight and no CPU node; sixteen fit none; a MIG device is not a GPU; a class with
// another CEL selector is not decided.
#[test]
fn resource_claims_are_counted_against_resource_slices() {
    let nodes = format!(
        "{}---\n{}",
        node_offering("cpu-1", "", "cpu: 8"),
        node_offering(
            "gpu-1",
            "{key: nvidia.com/gpu, effect: NoSchedule}",
            "cpu: 8"
        )
    );
    let mut devices: String = (0..8)
        .map(|i| format!("    - {{name: gpu-{i}, attributes: {{type: {{string: gpu}}, index: {{int: {i}}}}}}}\n"))
        .collect();
    devices.push_str("    - {name: gpu-0-mig-1g, attributes: {type: {string: mig}}}\n");
    let cluster_objects = format!(
        "\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu.nvidia.com}}
spec:
  selectors:
  - cel: {{expression: \"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'\"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: mig.nvidia.com}}
spec:
  selectors:
  - cel: {{expression: \"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'\"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu.example.com}}
spec:
  selectors:
  - cel: {{expression: \"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].index > 3\"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: gpu-1-gpu.nvidia.com-abcde}}
spec:
  driver: gpu.nvidia.com
  nodeName: gpu-1
  pool: {{name: gpu-1, generation: 1, resourceSliceCount: 1}}
  devices:
{devices}"
    );
    // The slices come with the inventory; the classes from any file (here, the same text).
    let inv = inventory(&format!("{nodes}---\n{cluster_objects}"));
    assert!(inv.cluster.knows_devices());
    // Slices among the manifests describe another cluster's nodes: not counted.
    let elsewhere = inventory(&nodes);
    let claim = |class: &str, count: u32| {
        format!(
            "\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: gpus}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {{deviceClassName: {class}, count: {count}}}
"
        )
    };
    let manifest = "\
apiVersion: v1
kind: Pod
metadata: {name: pod}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpus}]
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers: [{name: ctr, image: ubuntu:22.04, resources: {claims: [{name: gpu}]}}]
";
    let verdicts = |class: &str, count: u32| {
        let mut options = Options::default();
        let mut cluster = crate::k8s::cluster::Cluster::default();
        cluster.add_text("cluster.yaml", &cluster_objects);
        cluster.add_text("claim.yaml", &claim(class, count));
        options.set_cluster(std::sync::Arc::new(cluster));
        first_verdict(manifest, &inv, &options)
    };
    let mut options = Options::default();
    let mut cluster = crate::k8s::cluster::Cluster::default();
    cluster.add_text("cluster.yaml", &cluster_objects);
    cluster.add_text("claim.yaml", &claim("gpu.nvidia.com", 2));
    options.set_cluster(std::sync::Arc::new(cluster));
    let v = first_verdict(manifest, &elsewhere, &options);
    assert!(v.iter().all(|v| v.fits() && v.unknown.len() == 1), "{v:?}");
    let v = verdicts("gpu.nvidia.com", 2);
    assert_eq!(
        v[0].reasons,
        vec![Reason::Insufficient {
            resource: "gpu.nvidia.com devices".into(),
            requested: 2,
            offered: 0
        }]
    );
    assert!(v[1].fits() && v[1].unknown.is_empty(), "{:?}", v[1]);
    let v = verdicts("gpu.nvidia.com", 9);
    assert_eq!(
        v[1].reasons,
        vec![Reason::Insufficient {
            resource: "gpu.nvidia.com devices".into(),
            requested: 9,
            offered: 8
        }]
    );
    assert_eq!(
        v[1].reasons[0].describe(&inv.pools[1]),
        "insufficient gpu.nvidia.com devices: requests 9, a node offers at most 8"
    );
    let v = verdicts("mig.nvidia.com", 2);
    assert_eq!(v[1].reasons.len(), 1, "one MIG device: {v:?}");
    assert!(verdicts("mig.nvidia.com", 1)[1].unknown.is_empty());
    // A request's own selectors (NVIDIA's gpu-test6 picks A100s by index): too few of the
    // class is certain, enough may not be.
    let narrowed = |count: u32| {
        let mut options = Options::default();
        let mut cluster = crate::k8s::cluster::Cluster::default();
        cluster.add_text("cluster.yaml", &cluster_objects);
        let template = claim("gpu.nvidia.com", count).replace(
            &format!("count: {count}}}"),
            &format!("count: {count}, selectors: [{{cel: {{expression: \"device.attributes['gpu.nvidia.com'].index == 0\"}}}}]}}"),
        );
        cluster.add_text("claim.yaml", &template);
        options.set_cluster(std::sync::Arc::new(cluster));
        first_verdict(manifest, &inv, &options)
    };
    let v = narrowed(1);
    assert!(v[1].fits() && v[1].unknown.len() == 1, "{v:?}");
    assert!(v[1].unknown[0]
        .describe()
        .contains("1 device of class gpu.nvidia.com that its selectors pick"));
    assert!(!narrowed(9)[1].fits());
    // A comparison other than string equality is not decided: both pools may fit.
    let v = verdicts("gpu.example.com", 2);
    assert!(v.iter().all(|v| v.fits() && v.unknown.len() == 1), "{v:?}");
}

/// Workloads that ask the same of an inventory share one simulation, and it is the one each
/// would get on its own: every pod template of the fixtures and examples, against a node list
/// with pools and against Karpenter NodePools, with the comparison gate off and on.
#[test]
fn a_shared_simulation_is_the_workloads_own() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let (pools, nodes, nodepools) = (
        read("examples/inventory/pools.yaml"),
        read("examples/inventory/nodes.yaml"),
        read("examples/gpu/nodepools.yaml"),
    );
    let inventories = [
        Inventory::load(&[("pools.yaml", &pools), ("nodes.yaml", &nodes)]).unwrap(),
        Inventory::load(&[("nodepools.yaml", &nodepools)]).unwrap(),
    ];
    let mut gated = Options::default();
    gated
        .set_feature_gates("TaintTolerationComparisonOperators=true")
        .unwrap();
    let files = crate::test_support::fixture_files(&["yaml", "yml"]);
    let (mut judged, mut shared) = (0, 0);
    for inventory in &inventories {
        for options in [&Options::default(), &gated] {
            let mut seen: Vec<*const Simulation> = Vec::new();
            for path in &files {
                let text = std::fs::read_to_string(path).unwrap();
                let stream = syntax::parse(&text);
                for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
                    let ex = extract(doc);
                    for i in 0..ex.pod_specs.len() {
                        let w = Workload::new(doc, &ex, i, options);
                        let kept = simulate_shared(&w, inventory, options);
                        assert_eq!(
                            *kept,
                            simulate(&w, inventory, options),
                            "{}",
                            path.display()
                        );
                        judged += 1;
                        let at = Arc::as_ptr(&kept);
                        if seen.contains(&at) {
                            shared += 1;
                        } else {
                            seen.push(at);
                        }
                    }
                }
            }
        }
    }
    assert!(
        judged > 400 && shared > 50,
        "{judged} judged, {shared} shared"
    );
}

/// The one pod template of `manifest`, as [`simulate`] reads it.
fn with_workload<T>(manifest: &str, options: &Options, f: impl FnOnce(&Workload<'_>) -> T) -> T {
    let stream = syntax::parse(manifest);
    let doc = &stream.documents[0];
    let ex = extract(doc);
    assert_eq!(ex.pod_specs.len(), 1, "{manifest}");
    f(&Workload::new(doc, &ex, 0, options))
}

#[test]
fn steered_by_node_name_selector_or_affinity() {
    let steered = |spec: &str| with_workload(&pod(spec), &Options::default(), |w| w.steered());
    assert!(!steered(""));
    assert!(!steered("nodeSelector: {}"));
    assert!(steered("nodeName: n1"));
    assert!(steered("nodeSelector: {pool: gpu}"));
    assert!(steered(
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
         {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: Exists}]}]}}}"
    ));
}

// PodTolerationRestriction adds the memory-pressure toleration to a pod that is not BestEffort
// (pkg/apis/core/helper/qos GetPodQOS: a CPU or memory request or limit that is not zero).
#[test]
fn best_effort_as_the_qos_class_counts_it() {
    let mut options = Options::default();
    options
        .set_admission_plugins("PodTolerationRestriction", true)
        .unwrap();
    let memory_pressure = |resources: &str| {
        let spec = format!("containers: [{{name: c, image: i, resources: {resources}}}]");
        with_workload(&pod(&spec), &options, |w| {
            w.sources.contains(&Source::MemoryPressure)
        })
    };
    let cases = [
        ("{}", false),
        ("{requests: {cpu: 0}}", false),
        ("{requests: {cpu: 0m, memory: 0Gi}}", false),
        ("{limits: {memory: '0.0'}}", false),
        ("{requests: {nvidia.com/gpu: 1}}", false),
        ("{requests: {cpu: 100m}}", true),
        ("{requests: {cpu: 10}}", true),
        ("{limits: {memory: 1Gi}}", true),
        ("{requests: {cpu: 0}, limits: {memory: 64Mi}}", true),
    ];
    for (resources, want) in cases {
        assert_eq!(memory_pressure(resources), want, "{resources}");
    }
}

#[test]
fn manifest_item_only_for_the_manifests_tolerations() {
    // DefaultTolerationSeconds adds two tolerations that no item of the manifest holds.
    let spec = "tolerations: [{key: a, operator: Exists}, {key: b, operator: Exists}]";
    let (keys, added) = with_workload(&pod(spec), &Options::default(), |w| {
        // (the toleration's key, its item's key)
        let keys: Vec<(String, String)> = (0..w.tolerations.len())
            .filter_map(|i| {
                let item = w.manifest_item(i)?;
                Some((w.tolerations[i].key.clone(), item.str("key").to_string()))
            })
            .collect();
        let added = (0..w.tolerations.len())
            .filter(|&i| w.manifest_item(i).is_none())
            .count();
        (keys, added)
    });
    let pair = |k: &str| (k.to_string(), k.to_string());
    assert_eq!(keys, vec![pair("a"), pair("b")]);
    assert_eq!(added, 2);
}

#[test]
fn reasons_in_words_and_kinds() {
    let inv = inventory(&node(
        "n",
        "role: web",
        "{key: k, effect: NoSchedule}",
        false,
    ));
    let pool = &inv.pools[0];
    let selector = |key: &str, actual: Option<&str>| Reason::NodeSelector {
        key: key.into(),
        wanted: "db".into(),
        actual: actual.map(str::to_string),
    };
    assert_eq!(
        selector("role", Some("web")).explain(pool),
        "nodeSelector role=db does not match (the node has role=web)"
    );
    assert_eq!(
        selector("tier", None).explain(pool),
        "nodeSelector tier=db does not match (the node has no label tier)"
    );
    assert_eq!(
        Reason::Taint(0).explain(pool),
        "untolerated taint k:NoSchedule"
    );
    // A nodeSelector miss is the same whatever each node has instead.
    assert!(selector("role", Some("web")).same_as(&selector("role", None)));
    assert!(!selector("role", None).same_as(&selector("tier", None)));
    let other_value = Reason::NodeSelector {
        key: "role".into(),
        wanted: "cache".into(),
        actual: None,
    };
    assert!(!selector("role", None).same_as(&other_value));
    assert!(Reason::Taint(0).same_as(&Reason::Taint(0)));
    assert!(!Reason::Taint(0).same_as(&Reason::Taint(1)));
    assert!(!Reason::Unschedulable.same_as(&Reason::Taint(0)));
    // Only the cordon and a taint can be tolerated away.
    assert!(Reason::Unschedulable.tolerable());
    assert!(Reason::Taint(0).tolerable());
    assert!(!selector("role", None).tolerable());
    assert!(!Reason::NodeName("m".into()).tolerable());
    assert!(!Reason::NodeAffinity("no".into()).tolerable());
}

// Nodes of one pool in two zones (two variants), a pod naming one of them: each node's
// verdict is its own part's.
#[test]
fn parts_of_a_pool_answer_for_their_own_nodes() {
    let nodes = [
        node("n1", "pool: web, topology.kubernetes.io/zone: a", "", false),
        node("n2", "pool: web, topology.kubernetes.io/zone: a", "", false),
        node("n3", "pool: web, topology.kubernetes.io/zone: b", "", false),
    ]
    .join("---\n");
    let inv = inventory(&nodes);
    assert_eq!(inv.pools.len(), 1);
    let pool = &inv.pools[0];
    let index = |name: &str| pool.nodes.iter().position(|n| n.name == name).unwrap();
    let r = simulate_text(
        &pod("nodeName: n1, nodeSelector: {topology.kubernetes.io/zone: b}"),
        &Options::default(),
        &inv,
    );
    let v = &r[0].simulation.pools[0];
    assert!(matches!(v, PoolVerdict::Split(_)));
    let zone_b = || Reason::NodeSelector {
        key: "topology.kubernetes.io/zone".into(),
        wanted: "b".into(),
        actual: Some("a".into()),
    };
    let not_n1 = || Reason::NodeName("n1".into());
    assert_eq!(v.verdict_of(pool, index("n1")).reasons, vec![zone_b()]);
    assert_eq!(
        v.verdict_of(pool, index("n2")).reasons,
        vec![not_n1(), zone_b()]
    );
    assert_eq!(v.verdict_of(pool, index("n3")).reasons, vec![not_n1()]);
    assert_eq!(v.fitting(pool), 0);
    // Every node but the one it excludes by name fits, named one by one.
    let r = simulate_text(
        &pod(
            "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
              {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: NotIn, \
              values: [n2]}]}]}}}",
        ),
        &Options::default(),
        &inv,
    );
    let v = &r[0].simulation.pools[0];
    let mut fitting: Vec<u32> = v.fitting_nodes(pool).into_iter().map(|(m, _)| m).collect();
    fitting.sort_unstable();
    let mut want = vec![index("n1") as u32, index("n3") as u32];
    want.sort_unstable();
    assert_eq!(fitting, want);
    assert_eq!(v.fitting(pool), 2);
}

#[test]
fn what_keeps_a_pod_off_and_what_lets_it_on() {
    // A cordoned node with a taint of each effect: the cordon and the NoSchedule and NoExecute
    // taints keep the pod off; PreferNoSchedule does not.
    let inv = inventory(&node(
        "n",
        "",
        "{key: a, effect: NoSchedule}, {key: b, effect: PreferNoSchedule}, {key: c, effect: NoExecute}",
        true,
    ));
    let v = &first_verdict(&pod(""), &inv, &Options::default())[0];
    assert_eq!(
        v.reasons,
        vec![Reason::Unschedulable, Reason::Taint(0), Reason::Taint(2)]
    );
    assert_eq!(v.untolerated_taints(), vec![0, 2]);
    // The two NoExecute taints DefaultTolerationSeconds tolerates for every pod: each named
    // once, with where its toleration comes from; the nodes fit, as nodes to avoid.
    let inv = inventory(
        &["n1", "n2"]
            .map(|n| {
                node(
                    n,
                    "",
                    "{key: node.kubernetes.io/not-ready, effect: NoExecute}, \
                     {key: node.kubernetes.io/unreachable, effect: NoExecute}, \
                     {key: batch, effect: PreferNoSchedule}",
                    false,
                )
            })
            .join("---\n"),
    );
    let pool = &inv.pools[0];
    let r = simulate_text(&pod(""), &Options::default(), &inv);
    let v = &r[0].simulation.pools[0];
    assert_eq!(
        v.tolerated_elsewhere(pool),
        vec![
            (0, &Source::DefaultTolerationSeconds),
            (1, &Source::DefaultTolerationSeconds)
        ]
    );
    assert_eq!(v.fitting_nodes(pool), vec![(0, true), (1, true)]);
    assert_eq!(v.avoided(pool), 2);
    // Tolerated by the manifest itself: nothing granted from elsewhere, nothing avoided.
    let r = simulate_text(
        &pod("tolerations: [{operator: Exists}]"),
        &Options::default(),
        &inv,
    );
    let v = &r[0].simulation.pools[0];
    assert_eq!(v.tolerated_elsewhere(pool), vec![]);
    assert_eq!(v.fitting_nodes(pool), vec![(0, false), (1, false)]);
}

#[test]
fn every_fitting_pool_and_part_listed() {
    // Pool 0 (role web, 2 nodes) fits whole; pool 1 (role db) not at all; pool 2 (role cache,
    // two zones) only in zone b, through its second variant.
    let nodes = [
        node("web-1", "role: web", "", false),
        node("web-2", "role: web", "", false),
        node("db-1", "role: db", "{key: db, effect: NoSchedule}", false),
        node(
            "cache-1",
            "role: cache, topology.kubernetes.io/zone: a",
            "",
            false,
        ),
        node(
            "cache-2",
            "role: cache, topology.kubernetes.io/zone: b",
            "",
            false,
        ),
    ]
    .join("---\n");
    let inv = inventory(&nodes);
    assert_eq!(inv.pools.len(), 3);
    let p = |role: &str| {
        inv.pools
            .iter()
            .position(|p| p.nodes[0].name.starts_with(role))
            .unwrap()
    };
    let r = simulate_text(
        &pod("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
              {nodeSelectorTerms: [{matchExpressions: [{key: role, operator: In, values: [web]}]}, \
              {matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [b]}]}]}}}"),
        &Options::default(),
        &inv,
    );
    let sim = &r[0].simulation;
    let cache = &inv.pools[p("cache")];
    let cache_2 = cache
        .nodes
        .iter()
        .position(|n| n.name == "cache-2")
        .unwrap();
    let fits: Vec<(usize, Option<usize>, usize)> = sim
        .fits(&inv)
        .into_iter()
        .map(|(pool, member, v)| (pool, member, v.reasons.len()))
        .collect();
    // Selecting on a zone, each pool is judged by variant: web's one variant stands for its
    // nodes by its first.
    let mut want = vec![(p("web"), Some(0), 0), (p("cache"), Some(cache_2), 0)];
    want.sort_unstable();
    assert_eq!(fits, want);
    assert_eq!(sim.fitting(&inv), 3);
    // Without a per-node label, one verdict for the whole pool.
    let r = simulate_text(&pod("nodeSelector: {role: web}"), &Options::default(), &inv);
    let fits: Vec<(usize, Option<usize>)> = r[0]
        .simulation
        .fits(&inv)
        .into_iter()
        .map(|(pool, member, _)| (pool, member))
        .collect();
    assert_eq!(fits, vec![(p("web"), None)]);
}

// The nodes a workload names are judged one by one, the rest of their variant once: the work
// grows with the nodes named, not with the pool.
#[test]
fn named_nodes_judged_alone() {
    let inv = inventory("pools:\n  web: {count: 4, labels: {role: web}}\n");
    let pool = &inv.pools[0];
    let parts = |spec: &str| {
        let r = simulate_text(&pod(spec), &Options::default(), &inv);
        let v = &r[0].simulation.pools[0];
        let fitting = v.fitting(pool);
        match v {
            PoolVerdict::Split(parts) => (parts.len(), fitting),
            PoolVerdict::Uniform(_) => (0, fitting),
        }
    };
    assert_eq!(parts("nodeName: web-2"), (2, 1));
    assert_eq!(
        parts("nodeSelector: {kubernetes.io/hostname: web-2}"),
        (2, 1)
    );
    // Required affinity on the hostname label names nodes too.
    let hostname = |op: &str, values: &str| {
        format!(
            "affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: \
             {{nodeSelectorTerms: [{{matchExpressions: [{{key: kubernetes.io/hostname, \
             operator: {op}, values: [{values}]}}]}}]}}}}}}"
        )
    };
    assert_eq!(parts(&hostname("In", "web-1, web-3")), (3, 2));
    assert_eq!(parts(&hostname("NotIn", "web-1")), (2, 3));
    assert_eq!(parts("nodeSelector: {role: web}"), (0, 4));
}

// A DaemonSet's pods are tolerated onto not-ready nodes by the DaemonSet controller, not by its
// manifest: that is what lets it on, as the controller sees it.
#[test]
fn a_daemon_set_tolerated_by_its_controller() {
    let inv = inventory(&node(
        "n",
        "",
        "{key: dedicated, effect: NoSchedule}, {key: node.kubernetes.io/not-ready, effect: NoExecute}",
        false,
    ));
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  template:\n    \
              spec: {tolerations: [{key: dedicated, operator: Exists}]}\n";
    let r = simulate_text(ds, &Options::default(), &inv);
    let v = &r[0].simulation.pools[0];
    assert!(r[0].simulation.fits_anywhere());
    assert_eq!(
        v.tolerated_elsewhere(&inv.pools[0]),
        vec![(1, &Source::DaemonSet)]
    );
}

// What the device count cannot decide stays a "may fit": a request with alternatives
// (`firstAvailable`: the scheduler may allocate the smaller one), a claim whose requests name
// no class, and a pool defined as code (an eksctl node group: its nodes' ResourceSlices are not
// listed, so no count of zero is read for them).
#[test]
fn resource_claims_the_count_does_not_decide() {
    let classes_and_slice = "\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: \"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'\"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-1-gpu.nvidia.com-abcde}
spec:
  driver: gpu.nvidia.com
  nodeName: gpu-1
  pool: {name: gpu-1, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {type: {string: gpu}}}
  - {name: gpu-1, attributes: {type: {string: gpu}}}
";
    // eksctl-io/eksctl examples: a GPU node group.
    let node_group = "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c, region: us-west-2}
nodeGroups:
- {name: gpus, instanceType: p3.8xlarge, desiredCapacity: 2}
";
    let inv = inventory(&format!(
        "{}---\n{classes_and_slice}---\n{node_group}",
        node_offering("gpu-1", "", "cpu: 8")
    ));
    assert!(inv.cluster.knows_devices());
    assert_eq!(inv.pools.len(), 2, "{:?}", inv.pools);
    let listed = usize::from(inv.pools[0].declared.is_some());
    let verdicts = |requests: &str| {
        let mut options = Options::default();
        let mut cluster = crate::k8s::cluster::Cluster::default();
        cluster.add_text("cluster.yaml", classes_and_slice);
        cluster.add_text(
            "claim.yaml",
            &format!(
                "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: \
                 {{name: gpus}}\nspec:\n  spec:\n    devices:\n      requests: {requests}\n"
            ),
        );
        options.set_cluster(std::sync::Arc::new(cluster));
        let manifest = "apiVersion: v1\nkind: Pod\nmetadata: {name: pod}\nspec:\n  \
                        resourceClaims: [{name: gpu, resourceClaimTemplateName: gpus}]\n";
        let v = first_verdict(manifest, &inv, &options);
        (v[listed].clone(), v[1 - listed].clone())
    };
    // Four GPUs: the listed node has two; the node group's nodes may have them.
    let (node, group) =
        verdicts("[{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 4}}]");
    assert!(!node.fits(), "{node:?}");
    assert!(group.fits() && group.unknown.len() == 1, "{group:?}");
    // Two requests of one class add up: one and two are three, more than the node's two.
    let (node, _) = verdicts(
        "[{name: a, exactly: {deviceClassName: gpu.nvidia.com, count: 1}}, \
         {name: b, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]",
    );
    assert_eq!(
        node.reasons,
        vec![Reason::Insufficient {
            resource: "gpu.nvidia.com devices".into(),
            requested: 3,
            offered: 2
        }]
    );
    // Four, or else one: the node may get one.
    let (node, _) = verdicts(
        "[{name: gpu, firstAvailable: [{name: four, deviceClassName: gpu.nvidia.com, count: 4}, \
         {name: one, deviceClassName: gpu.nvidia.com, count: 1}]}]",
    );
    assert!(node.fits() && node.unknown.len() == 1, "{node:?}");
    assert!(node.unknown[0].describe().contains("(or an alternative)"));
    // Requests that name no class: nothing to count, so not a silent fit.
    let (node, _) = verdicts("[{name: gpu}]");
    assert!(node.fits() && node.unknown.len() == 1, "{node:?}");
}

// Where the pool's nodes differ in devices, the nodes that have enough are counted, when every
// node's count is known well enough: "nodes with that many devices: 2 of the pool's 4". Two
// classes may pick the same devices: not counted.
#[test]
fn resource_claims_count_the_nodes_with_enough() {
    let class = |name: &str, kind: &str| {
        format!(
            "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: {name}}}\n\
             spec:\n  selectors:\n  - cel: {{expression: \"device.driver == 'gpu.nvidia.com' \
             && device.attributes['gpu.nvidia.com'].type == '{kind}'\"}}\n"
        )
    };
    let classes = format!(
        "{}---\n{}",
        class("gpu.nvidia.com", "gpu"),
        class("mig.nvidia.com", "mig")
    );
    // One node's slice: its devices, by type (`-` for a device without the attribute).
    let slice = |node: &str, types: &[&str]| {
        let devices: String = types
            .iter()
            .enumerate()
            .map(|(i, t)| match *t {
                "-" => format!("  - {{name: d{i}}}\n"),
                t => format!("  - {{name: d{i}, attributes: {{type: {{string: {t}}}}}}}\n"),
            })
            .collect();
        format!(
            "{}---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: \
             {{name: {node}-slice}}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: {node}\n  \
             pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devices}",
            node_offering(node, "", "cpu: 8")
        )
    };
    let said = |nodes: &[(&str, &[&str])], requests: &str| {
        let mut text = classes.clone();
        for (node, types) in nodes {
            text.push_str("---\n");
            text.push_str(&slice(node, types));
        }
        let inv = inventory(&text);
        assert_eq!(inv.pools.len(), 1);
        let mut options = Options::default();
        let mut cluster = crate::k8s::cluster::Cluster::default();
        cluster.add_text("classes.yaml", &classes);
        cluster.add_text(
            "claim.yaml",
            &format!(
                "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: \
                 {{name: t}}\nspec:\n  spec:\n    devices:\n      requests: {requests}\n"
            ),
        );
        options.set_cluster(std::sync::Arc::new(cluster));
        let manifest = "apiVersion: v1\nkind: Pod\nmetadata: {name: pod}\nspec:\n  \
                        resourceClaims: [{name: c, resourceClaimTemplateName: t}]\n";
        let v = first_verdict(manifest, &inv, &options).remove(0);
        assert!(v.fits(), "{v:?}");
        v.unknown.iter().map(|u| u.describe()).collect::<Vec<_>>()
    };
    let two = "[{name: r, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]";
    // Two GPUs, one, none, and two plus one device of unknown type (at least two).
    let gpus: [(&str, &[&str]); 4] = [
        ("n1", &["gpu", "gpu"]),
        ("n2", &["gpu"]),
        ("n3", &["mig"]),
        ("n4", &["gpu", "gpu", "-"]),
    ];
    assert_eq!(
        said(&gpus, two),
        [
            "resource claim c claims 2 devices of class gpu.nvidia.com (ResourceClaimTemplate \
             t): nodes with that many devices: 2 of the pool's 4; it fits those"
        ]
    );
    // At least one GPU, where two are asked: that node is not counted, so neither is the pool.
    let unknown: [(&str, &[&str]); 2] = [("n1", &["gpu", "gpu"]), ("n2", &["gpu", "-"])];
    assert_eq!(
        said(&unknown, two),
        [
            "resource claim c claims 2 devices of class gpu.nvidia.com (ResourceClaimTemplate \
             t): dynamic resource allocation is not simulated; it fits if a node's devices \
             satisfy the claim"
        ]
    );
    // All of a class's devices, on nodes that list none: no node to count.
    let none: [(&str, &[&str]); 2] = [("n1", &["mig"]), ("n2", &["mig"])];
    assert_eq!(
        said(
            &none,
            "[{name: r, exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All}}]"
        ),
        [
            "resource claim c claims all devices of class gpu.nvidia.com (ResourceClaimTemplate \
          t): dynamic resource allocation is not simulated; it fits if a node's devices \
          satisfy the claim"
        ]
    );
    // A GPU and a MIG device, two classes: enough of each on one node, not counted.
    let both: [(&str, &[&str]); 2] = [("n1", &["gpu", "mig"]), ("n2", &["gpu"])];
    assert_eq!(
        said(
            &both,
            "[{name: a, exactly: {deviceClassName: gpu.nvidia.com}}, \
             {name: b, exactly: {deviceClassName: mig.nvidia.com}}]"
        ),
        [
            "resource claim c claims 1 device of class gpu.nvidia.com, 1 device of class \
             mig.nvidia.com (ResourceClaimTemplate t): dynamic resource allocation is not \
             simulated; it fits if a node's devices satisfy the claim"
        ]
    );
}

// NodeResourcesFit against nodes that differ (fit.go `fitsRequest`: a request equal to what a
// node offers fits it): at most the least offered fits every node, certainly; up to the most,
// some; beyond it, none.
#[test]
fn requests_against_the_least_and_the_most_offered() {
    let inv = inventory(&format!(
        "{}---\n{}",
        node_offering("a", "", "cpu: 4"),
        node_offering("b", "", "cpu: 8")
    ));
    let verdict = |cpu: &str| {
        first_verdict(
            &pod(&format!(
                "containers: [{{resources: {{requests: {{cpu: {cpu}}}}}}}]"
            )),
            &inv,
            &Options::default(),
        )
        .remove(0)
    };
    for cpu in ["2", "4"] {
        let v = verdict(cpu);
        assert!(v.fits() && v.unknown.is_empty(), "{cpu}: {v:?}");
    }
    for cpu in ["4001m", "8"] {
        let v = verdict(cpu);
        assert!(v.fits(), "{cpu}: {v:?}");
        assert_eq!(
            v.unknown.iter().map(|u| u.key.as_str()).collect::<Vec<_>>(),
            ["cpu"]
        );
    }
    let v = verdict("8001m");
    assert_eq!(
        v.reasons,
        vec![Reason::Insufficient {
            resource: "cpu".into(),
            requested: 8001,
            offered: 8000
        }]
    );
}

// A RuntimeClass's `scheduling.nodeSelector` is merged into the pod's (RuntimeClass admission):
// a listed node without the label, or with another value, does not fit.
#[test]
fn runtime_class_node_selector_selects() {
    let mut options = Options::default();
    let mut cluster = crate::k8s::cluster::Cluster::default();
    cluster.add_text(
        "rc.yaml",
        "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\n\
         scheduling: {nodeSelector: {runtime: kata}}\n",
    );
    options.set_cluster(std::sync::Arc::new(cluster));
    let manifest = pod("runtimeClassName: kata");
    let verdict = |labels: &str| {
        let inv = inventory(&node("n", labels, "", false));
        first_verdict(&manifest, &inv, &options).remove(0)
    };
    assert!(verdict("runtime: kata").fits());
    let want = |actual: Option<&str>| Reason::NodeSelector {
        key: "runtime".into(),
        wanted: "kata".into(),
        actual: actual.map(str::to_string),
    };
    assert_eq!(verdict("").reasons, vec![want(None)]);
    assert_eq!(verdict("runtime: runc").reasons, vec![want(Some("runc"))]);
}

// Taint eviction (pkg/controller/tainteviction `getMinTolerationTime`): of the NoExecute
// taints' tolerations, the fewest seconds evict the pod.
#[test]
fn the_fewest_seconds_evict() {
    let inv = inventory(&node(
        "n",
        "",
        "{key: a, effect: NoExecute}, {key: b, effect: NoExecute}, {key: c, effect: NoExecute}",
        false,
    ));
    let v = &first_verdict(
        &pod(
            "tolerations: [{key: a, operator: Exists, tolerationSeconds: 600}, \
              {key: b, operator: Exists, tolerationSeconds: 60}, \
              {key: c, operator: Exists, tolerationSeconds: 300}]",
        ),
        &inv,
        &Options::default(),
    )[0];
    assert_eq!(
        v.eviction,
        Some(Eviction {
            seconds: 60,
            taint: 1,
            toleration: 1
        })
    );
    // Of equal times, the first taint's is named.
    let v = &first_verdict(
        &pod(
            "tolerations: [{key: a, operator: Exists, tolerationSeconds: 60}, \
              {key: b, operator: Exists, tolerationSeconds: 60}, {key: c, operator: Exists}]",
        ),
        &inv,
        &Options::default(),
    )[0];
    assert_eq!(
        v.eviction,
        Some(Eviction {
            seconds: 60,
            taint: 0,
            toleration: 0
        })
    );
}

#[test]
fn fitting_nodes_named_with_whether_to_avoid() {
    let inv = inventory(
        &["n1", "n2"]
            .map(|n| {
                node(
                    n,
                    "role: batch",
                    "{key: spot, effect: PreferNoSchedule}",
                    false,
                )
            })
            .join("---\n"),
    );
    let pool = &inv.pools[0];
    let fitting = |spec: &str| {
        let r = simulate_text(&pod(spec), &Options::default(), &inv);
        r[0].simulation.pools[0].fitting_nodes(pool)
    };
    let n2 = pool.nodes.iter().position(|n| n.name == "n2").unwrap() as u32;
    // Judged node by node (it names one by `matchFields`): the one it names, a node to avoid
    // unless tolerated (a pod with `nodeName` would skip the scoring that avoids it).
    let named = "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
                 {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, \
                 values: [n2]}]}]}}}";
    assert_eq!(fitting(named), vec![(n2, true)]);
    let tolerant = format!("{named}, tolerations: [{{key: spot, operator: Exists}}]");
    assert_eq!(fitting(&tolerant), vec![(n2, false)]);
    // Judged once for the pool: none when it does not fit.
    assert_eq!(fitting("nodeSelector: {role: web}"), vec![]);
}

// A pool defined as code (an eksctl node group, eksctl-io/eksctl examples) declares some of
// its labels; one it does not declare may be set elsewhere: the pod may fit.
#[test]
fn a_pool_defined_as_code_may_fit_on_labels_it_does_not_declare() {
    let inv = inventory(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: \
         us-west-2}\nnodeGroups:\n- {name: ng, instanceType: m5.large, desiredCapacity: 2, \
         labels: {role: web}}\n",
    );
    let pool = &inv.pools[0];
    assert!(pool.declared.is_some());
    let judged = |selector: &str| {
        let r = simulate_text(
            &pod(&format!("nodeSelector: {{{selector}}}")),
            &Options::default(),
            &inv,
        );
        let v = &r[0].simulation.pools[0];
        (r[0].simulation.fits_anywhere(), v.uncertain(pool))
    };
    assert_eq!(judged("example.com/team: ml"), (true, true));
    assert_eq!(judged("role: web"), (true, false));
    assert_eq!(judged("role: db"), (false, false));
}

#[test]
fn workloads_titled_by_name_or_place() {
    let titles = |text: &str| -> Vec<String> {
        simulate_text(
            text,
            &Options::default(),
            &inventory(&node("n", "", "", false)),
        )
        .iter()
        .map(WorkloadResult::title)
        .collect()
    };
    assert_eq!(
        titles("kind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {template: {spec: {}}}\n"),
        ["Deployment shop/web"]
    );
    assert_eq!(
        titles("kind: Pod\nmetadata: {name: p}\nspec: {}\n"),
        ["Pod p"]
    );
    // Unnamed: by its kind, and in a list by its place, as the findings name it.
    assert_eq!(titles("kind: Job\nspec: {template: {spec: {}}}\n"), ["Job"]);
    assert_eq!(
        titles("kind: List\nitems:\n- kind: Job\n  spec: {template: {spec: {}}}\n"),
        ["Job `items[0]`"]
    );
    // A custom resource's part, by its own name.
    assert_eq!(
        titles("apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: rl, namespace: ml}\nspec:\n  workerGroupSpecs:\n  - groupName: l4-workers\n    template: {spec: {containers: [{name: w, image: i}]}}\n"),
        ["RayCluster ml/rl, worker group l4-workers"]
    );
}

// GKE labels its Spot nodes `cloud.google.com/gke-spot=true`, on Spot pools only (provider-spot
// in the clusters-as-code fixtures, after the Terraform google provider's docs): a pod that
// needs it and another label the pool does not declare is told of the platform's label.
#[test]
fn a_platform_label_absent_is_decided() {
    let inv = Inventory::load(&[(
        "gke.tf",
        "resource \"google_container_node_pool\" \"standard\" {\n  name = \"standard\"\n}\n",
    )])
    .unwrap();
    let pool = &inv.pools[0];
    assert!(pool.declared.is_some());
    let spec = "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
                {nodeSelectorTerms: [{matchExpressions: [{key: example.com/team, operator: In, \
                values: [ml]}, {key: cloud.google.com/gke-spot, operator: In, values: ['true']}]}]}}}";
    let v = &first_verdict(&pod(spec), &inv, &Options::default())[0];
    assert_eq!(
        v.reasons,
        vec![Reason::NodeAffinity(
            "cloud.google.com/gke-spot In [true]: the platform sets cloud.google.com/gke-spot \
             only on the pools it applies to, not this one"
                .into()
        )]
    );
}

// The DaemonSet controller picks the nodes for its pods from the template's tolerations and
// its own (`NodeShouldRunDaemonPod` builds the pod without admission): a toleration that an
// admission plugin adds later does not put a daemon pod on a tainted node.
#[test]
fn admission_tolerations_do_not_place_daemon_pods() {
    let inv = inventory(&node(
        "gpu",
        "",
        "{key: nvidia.com/gpu, value: present, effect: NoSchedule}",
        false,
    ));
    let mut on = Options::default();
    on.set_admission_plugins("ExtendedResourceToleration", true)
        .unwrap();
    let spec = "containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]";
    let ds = format!(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: d}}\nspec:\n  template:\n    \
         spec: {{{spec}}}\n"
    );
    assert!(fits_with(&pod(spec), &inv, &on), "a plain pod is tolerated");
    assert!(!fits_with(&ds, &inv, &on), "a daemon pod is not placed");
}

/// The platform's own behaviour, for an inventory that shows it: GKE's GPU nodes tolerated by
/// the ExtendedResourceToleration GKE runs (cloud.google.com/kubernetes-engine/docs/how-to/gpus),
/// its compute classes' and Arm nodes' taints tolerated by what GKE adds to pods that select
/// them; nothing of it where the platform is another or none. (The shape of
/// GoogleCloudPlatform/kubernetes-engine-samples' Ray GPU workers and its compute-class DRA
/// sample, with nodes as `kubectl get nodes` lists them.)
#[test]
fn gke_tolerates_what_it_taints_for_the_pods_that_ask() {
    let gke = |labels: &str, taints: &str| {
        node(
            "gke-n",
            &format!("cloud.google.com/gke-nodepool: p, {labels}"),
            taints,
            false,
        )
    };
    let gpu = inventory(&format!(
        "{}---\n{}",
        gke(
            "cloud.google.com/gke-accelerator: nvidia-l4",
            "{key: nvidia.com/gpu, value: present, effect: NoSchedule}"
        ),
        node_offering("x", "", "nvidia.com/gpu: 1")
    ));
    assert_eq!(
        gpu.platform.platform,
        Some(Platform::Gke),
        "{:?}",
        gpu.platform
    );
    assert_eq!(gpu.platform.why, "node label cloud.google.com/gke-nodepool");
    let mut options = Options::default();
    options.set_platform(gpu.platform.platform);
    let worker = pod("containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]");
    let results = simulate_text(&worker, &options, &gpu);
    let v = results[0].simulation.pools[0].clone();
    let PoolVerdict::Uniform(v) = v else {
        panic!("{v:?}")
    };
    assert!(v.fits(), "{v:?}");
    assert_eq!(
        v.granted,
        vec![(
            0,
            Source::ExtendedResourceToleration("nvidia.com/gpu".into())
        )]
    );
    // Without the platform (upstream's defaults), the GPU worker fits no GKE GPU node.
    assert!(!fits(
        &worker,
        &inventory(&gke(
            "",
            "{key: nvidia.com/gpu, value: present, effect: NoSchedule}"
        ))
    ));

    // A compute class: the pool's nodes carry its label and taint; a pod that selects the class
    // gets the toleration, by nodeSelector or by required affinity.
    let class = inventory(&gke(
        "cloud.google.com/compute-class: inference-1x8x24",
        "{key: cloud.google.com/compute-class, value: inference-1x8x24, effect: NoSchedule}",
    ));
    let mut options = Options::default();
    options.set_platform(class.platform.platform);
    let by_selector = pod("nodeSelector: {cloud.google.com/compute-class: inference-1x8x24}");
    let by_affinity = pod(
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
         {nodeSelectorTerms: [{matchExpressions: [{key: cloud.google.com/compute-class, \
         operator: In, values: [inference-1x8x24]}]}]}}}",
    );
    for p in [&by_selector, &by_affinity] {
        assert!(fits_with(p, &class, &options), "{p}");
        assert!(!fits(p, &class), "without GKE: {p}");
    }
    // Another class selected: no toleration for this one.
    assert!(!fits_with(
        &pod("nodeSelector: {cloud.google.com/compute-class: other}"),
        &class,
        &options
    ));
    // Nothing selected: the taint keeps it off.
    assert!(!fits_with(&pod(""), &class, &options));

    // Arm nodes: tainted kubernetes.io/arch=arm64:NoSchedule; a pod that selects arm64 gets the
    // toleration, one that selects amd64 does not.
    let arm = inventory(&gke(
        "kubernetes.io/arch: arm64",
        "{key: kubernetes.io/arch, value: arm64, effect: NoSchedule}",
    ));
    let mut options = Options::default();
    options.set_platform(arm.platform.platform);
    assert!(fits_with(
        &pod("nodeSelector: {kubernetes.io/arch: arm64}"),
        &arm,
        &options
    ));
    assert!(!fits_with(&pod(""), &arm, &options));
    // On EKS, which runs ExtendedResourceToleration but adds no such toleration, the taint holds.
    options.set_platform(Some(Platform::Eks));
    assert!(!fits_with(
        &pod("nodeSelector: {kubernetes.io/arch: arm64}"),
        &arm,
        &options
    ));
}

/// The platforms run the admission plugins their providers document, and a plugin disabled
/// with `--disable-admission-plugins` stays off whatever the platform.
#[test]
fn platforms_run_their_documented_admission_plugins() {
    let mut o = Options::default();
    assert!(!o.admission_enabled("ExtendedResourceToleration"));
    for (platform, ert, restriction) in [
        (Platform::Gke, true, false),
        (Platform::Eks, true, false),
        (Platform::Aks, true, true),
        (Platform::OpenShift, false, false),
        (Platform::Kubeadm, false, false),
        (Platform::Kind, false, false),
        (Platform::Cce, false, false),
    ] {
        o.set_platform(Some(platform));
        assert_eq!(
            o.admission_enabled("ExtendedResourceToleration"),
            ert,
            "{platform}"
        );
        assert_eq!(
            o.admission_enabled("PodTolerationRestriction"),
            restriction,
            "{platform}"
        );
        assert!(
            o.admission_enabled("DefaultTolerationSeconds"),
            "{platform}"
        );
    }
    o.set_platform(Some(Platform::Gke));
    o.set_admission_plugins("ExtendedResourceToleration", false)
        .unwrap();
    assert!(!o.admission_enabled("ExtendedResourceToleration"));
    o.set_admission_plugins("ExtendedResourceToleration", true)
        .unwrap();
    o.set_platform(None);
    assert!(o.admission_enabled("ExtendedResourceToleration"));
}

/// An eksctl node group that names no instance type is eksctl's default m5.large, two nodes
/// (eksctl-io/eksctl pkg/apis/eksctl.io/v1alpha5/types.go): amd64, so a pod that selects arm64
/// (the shape of aws-samples/eks-workshop-v2's Graviton lab, which says the pod stays Pending
/// until an arm64 group exists) fits none of its nodes, while one named `m7g.large` takes it.
#[test]
fn an_eksctl_group_without_a_type_is_two_m5_large_nodes() {
    let config = |groups: &str| {
        format!(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: workshop, region: us-west-2}}\nmanagedNodeGroups:\n{groups}"
        )
    };
    let inv = inventory(&config("- name: default\n"));
    assert_eq!(inv.platform.platform, Some(Platform::Eks));
    let pool = &inv.pools[0];
    assert_eq!(pool.label(None, "kubernetes.io/arch"), Some("amd64"));
    assert_eq!(
        pool.label(None, "node.kubernetes.io/instance-type"),
        Some("m5.large")
    );
    assert_eq!(pool.node_count().to_string(), "2 nodes");
    let arm = pod("nodeSelector: {kubernetes.io/arch: arm64}");
    let v = &first_verdict(&arm, &inv, &Options::default())[0];
    assert!(!v.fits() && v.unknown.is_empty(), "{v:?}");
    let inv = inventory(&config(
        "- name: graviton\n  instanceType: m7g.large\n  minSize: 1\n  maxSize: 3\n",
    ));
    assert_eq!(
        inv.pools[0].label(None, "kubernetes.io/arch"),
        Some("arm64")
    );
    assert_eq!(inv.pools[0].node_count().to_string(), "1..3 nodes");
    assert!(fits(&arm, &inv));
    // A pool file that names its instance type takes the type's architecture and allocatable.
    let inv = inventory(
        "pools:\n  general: {count: 2, labels: {node.kubernetes.io/instance-type: m5.large}}\n",
    );
    assert_eq!(
        inv.pools[0].label(None, "kubernetes.io/arch"),
        Some("amd64")
    );
    assert!(!fits(&arm, &inv));
    let v = &first_verdict(
        &pod("containers: [{resources: {requests: {cpu: 4}}}]"),
        &inv,
        &Options::default(),
    )[0];
    assert!(!v.fits(), "an m5.large has 2 vCPUs: {v:?}");
}

/// A GKE cluster written with terraform-google-modules/kubernetes-engine (the shape of
/// GoogleCloudPlatform/kubernetes-engine-samples' `databases/*/terraform/modules/cluster` and
/// its Ray GPU samples): the module keeps the cluster's untainted `default-pool` of
/// `initial_node_count` nodes a zone (three zones for a regional cluster), of the first pool's
/// machine type, so a pod with no toleration lands there; the GPU pool its `node_pools` adds is
/// of an accelerator-optimized type (a G2: one L4), which GKE taints because the cluster has
/// pools without GPUs and whose taint ExtendedResourceToleration, which GKE runs, tolerates for
/// a pod that asks for a GPU. An Arm pool (T2A) is tainted for Arm, and GKE tolerates it for a
/// pod that selects arm64. Counts are per zone.
#[test]
fn a_gke_module_cluster_as_gke_runs_it() {
    let tf = r#"
module "gke" {
  source             = "terraform-google-modules/kubernetes-engine/google//modules/private-cluster"
  name               = "ml"
  regional           = true
  region             = var.region
  initial_node_count = 1
  node_pools = [
    { name = "general", machine_type = "n2-standard-4", min_count = 1, max_count = 3 },
    { name = "l4", machine_type = "g2-standard-8", min_count = 0, max_count = 2 },
    { name = "arm", machine_type = "t2a-standard-4", autoscaling = false, node_count = 1 },
  ]
}
"#;
    let inv = inventory(tf);
    assert_eq!(inv.platform.platform, Some(Platform::Gke));
    let pool = |name: &str| inv.pools.iter().find(|p| p.name == name).unwrap();
    let default = pool("default-pool");
    assert_eq!(default.size(), "3 nodes");
    assert!(default.taints.is_empty());
    assert_eq!(
        default.label(None, "node.kubernetes.io/instance-type"),
        Some("n2-standard-4")
    );
    assert_eq!(pool("general").size(), "3..9 nodes");
    let l4 = pool("l4");
    assert_eq!(l4.size(), "0..6 nodes");
    assert_eq!(
        l4.label(None, "cloud.google.com/gke-accelerator"),
        Some("nvidia-l4")
    );
    let taints: Vec<String> = l4.taints.iter().map(|t| t.taint.to_string()).collect();
    assert_eq!(taints, ["nvidia.com/gpu=present:NoSchedule"]);
    assert_eq!(l4.implied.len(), 1);
    let arm = pool("arm");
    assert_eq!(arm.size(), "3 nodes");
    let taints: Vec<String> = arm.taints.iter().map(|t| t.taint.to_string()).collect();
    assert_eq!(taints, ["kubernetes.io/arch=arm64:NoSchedule"]);

    let mut gke = Options::default();
    gke.set_platform(inv.platform.platform);
    let fitting = |manifest: &str, options: &Options| -> Vec<String> {
        let results = simulate_text(manifest, options, &inv);
        inv.pools
            .iter()
            .zip(&results[0].simulation.pools)
            .filter(|(_, v)| v.groups(&inv.pools[0]).any(|(v, _, _)| v.fits()))
            .map(|(p, _)| p.name.clone())
            .collect()
    };
    assert_eq!(fitting(&pod(""), &gke), ["default-pool", "general"]);
    let gpu = pod("containers: [{resources: {limits: {nvidia.com/gpu: 1}}}]");
    assert_eq!(fitting(&gpu, &gke), ["l4"]);
    assert!(fitting(&gpu, &Options::default()).is_empty());
    let arm64 = pod("nodeSelector: {kubernetes.io/arch: arm64}");
    assert_eq!(fitting(&arm64, &gke), ["arm"]);
    assert!(fitting(&arm64, &Options::default()).is_empty());
    // Given another platform, GKE's taints go.
    let mut eks = inventory(tf);
    eks.set_platform(
        crate::inventory::platform::Choice::Given(Some(Platform::Eks)),
        "--platform",
    );
    assert!(eks
        .pools
        .iter()
        .all(|p| p.taints.is_empty() && p.implied.is_empty()));
}

/// terraform-google-modules/kubernetes-engine makes one `default-node-pool` of its defaults
/// when `node_pools` is not written (variables.tf: `default = [{ name = "default-node-pool" }]`;
/// cluster.tf: autoscaled from 1 to 100 nodes a zone, `e2-medium`), and puts on it the taints
/// of `node_pools_taints` under `all` and its name; its Autopilot modules and
/// `gke-standard-cluster` make none (their pools are GKE's or other modules').
#[test]
fn a_gke_module_without_node_pools_makes_its_default_pool() {
    let module = |source: &str, rest: &str| {
        format!("module \"gke\" {{\n  source   = \"{source}\"\n  regional = true\n{rest}}}\n")
    };
    let root = "terraform-google-modules/kubernetes-engine/google";
    let taints =
        "  node_pools_taints = {\n    default-node-pool = [{ key = \"team\", value = \"ml\", \
                  effect = \"NO_SCHEDULE\" }]\n  }\n";
    let inv = inventory(&module(root, taints));
    let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["default-node-pool"]);
    let pool = &inv.pools[0];
    assert_eq!(pool.size(), "3..300 nodes");
    let written: Vec<String> = pool.taints.iter().map(|t| t.taint.to_string()).collect();
    assert_eq!(written, ["team=ml:NoSchedule"]);
    assert_eq!(
        pool.label(None, "node.kubernetes.io/instance-type"),
        Some("e2-medium")
    );
    // As many zones as `zones` lists, literal or not; one to three when it is an expression.
    for (zones, size) in [
        ("[var.zone]", "1..100 nodes"),
        ("[\"a\", var.b]", "2..200 nodes"),
        ("var.zones", "1..300 nodes"),
    ] {
        let inv = inventory(&module(root, &format!("  zones = {zones}\n")));
        assert_eq!(inv.pools[0].size(), size, "{zones}");
    }
    for cluster in ["private-cluster", "safer-cluster-update-variant"] {
        let source = format!("{root}//modules/{cluster}");
        let names: Vec<String> = (inventory(&module(&source, "")).pools.iter())
            .map(|p| p.name.clone())
            .collect();
        assert_eq!(names, ["default-node-pool"], "{cluster}");
    }
    for cluster in ["beta-autopilot-public-cluster", "gke-standard-cluster"] {
        let text = module(&format!("{root}//modules/{cluster}"), "");
        assert!(
            crate::inventory::Inventory::load(&[("main.tf", text.as_str())]).is_err(),
            "{cluster}"
        );
    }
}

/// `node_pools` is an input of other modules too: Azure/terraform-azurerm-aks takes its AKS pools
/// so (examples/multiple_node_pools). Such a module is no GKE cluster (before, it was read as one,
/// with a GKE `default-pool` of unknown size and GKE's taints); a module of the repository's own
/// that also takes the GKE module's `node_pools_taints` is one.
#[test]
fn node_pools_alone_make_no_gke_cluster() {
    let aks = "module \"aks\" {\n  source = \"Azure/aks/azurerm\"\n  prefix = \"p\"\n  \
               node_pools = {\n    worker0 = { name = \"worker0\", vm_size = \"Standard_D2s_v3\", \
               node_count = 1 }\n  }\n}\n";
    assert!(Inventory::load(&[("main.tf", aks)]).is_err());
    let own = "module \"cluster\" {\n  source = \"../modules/cluster\"\n  node_pools = [\n    \
               { name = \"pool-db\", min_count = 1, max_count = 2 },\n  ]\n  node_pools_taints = {\n    \
               pool-db = [{ key = \"db\", value = \"true\", effect = \"NO_SCHEDULE\" }]\n  }\n}\n";
    let inv = inventory(own);
    assert_eq!(inv.platform.platform, Some(Platform::Gke));
    let pool = inv.pools.iter().find(|p| p.name == "pool-db").unwrap();
    let taints: Vec<String> = pool.taints.iter().map(|t| t.taint.to_string()).collect();
    assert_eq!(taints, ["db=true:NoSchedule"]);
}

/// The AVM managed cluster module makes its default pool, `systempool` of 3 Linux nodes, when
/// `default_agent_pool` is not written (its variables.tf: `default = {}`); before v0.4.0 it took
/// azurerm's `default_node_pool` instead.
#[test]
fn the_avm_aks_modules_default_pool() {
    let module = |inputs: &str| {
        format!(
            "module \"aks\" {{\n  source = \"Azure/avm-res-containerservice-managedcluster/azurerm\"\n\
             {inputs}}}\n"
        )
    };
    let inv = inventory(&module(""));
    let pool = &inv.pools[0];
    assert_eq!(
        (pool.name.as_str(), pool.size(), inv.pools.len()),
        ("systempool", "3 nodes".to_string(), 1)
    );
    assert_eq!(pool.label(None, "kubernetes.io/os"), Some("linux"));
    assert_eq!(inv.platform.platform, Some(Platform::Aks));
    let old = module("  default_node_pool = { name = \"default\", node_count = 2 }\n");
    let inv = inventory(&old);
    assert_eq!(
        (inv.pools[0].name.as_str(), inv.pools[0].size()),
        ("default", "2 nodes".to_string())
    );
    // Its own examples name it `../..`: its inputs tell it.
    let own = "module \"aks\" {\n  source = \"../..\"\n  default_agent_pool = { name = \
               \"default\", count_of = 2 }\n}\n";
    assert_eq!(inventory(own).pools[0].size(), "2 nodes");
    // An AKS Automatic cluster's nodes are node auto-provisioning's: not read.
    let automatic = module("  sku = { name = \"Automatic\", tier = \"Standard\" }\n");
    let Err(errors) = Inventory::load(&[("main.tf", automatic.as_str())]) else {
        panic!("an Automatic cluster defines no pool taintlint reads");
    };
    assert!(errors[0].message.contains("AKS Automatic"), "{errors:?}");
}

/// A `google_container_cluster` without `node_pool` blocks makes its default pool, of its own
/// `node_config` and `initial_node_count` a zone (google_container_cluster docs), unless
/// `remove_default_node_pool`; a zone as its location is one zone, its `node_locations` as many
/// as they list.
#[test]
fn a_gke_clusters_default_pool() {
    let cluster = |extra: &str| {
        inventory(&format!(
            "resource \"google_container_cluster\" \"c\" {{\n  name = \"c\"\n  location = \"us-central1-a\"\n  initial_node_count = 2\n{extra}}}\n"
        ))
    };
    let inv = cluster("  node_config {\n    machine_type = \"c4a-standard-8\"\n  }\n");
    let names: Vec<(&str, String)> = inv
        .pools
        .iter()
        .map(|p| (p.name.as_str(), p.size()))
        .collect();
    assert_eq!(names, [("default-pool", "2 nodes".to_string())]);
    assert_eq!(
        inv.pools[0].label(None, "kubernetes.io/arch"),
        Some("arm64")
    );
    let inv = cluster("  node_locations = [\"us-central1-a\", \"us-central1-b\"]\n");
    assert_eq!(inv.pools[0].size(), "4 nodes");
    let removed = Inventory::load(&[(
        "c.tf",
        "resource \"google_container_cluster\" \"c\" {\n  name = \"c\"\n  remove_default_node_pool = true\n  initial_node_count = 1\n}\nresource \"google_container_node_pool\" \"p\" {\n  name = \"p\"\n  cluster = google_container_cluster.c.name\n  node_count = 1\n}\n",
    )])
    .unwrap();
    let names: Vec<&str> = removed.pools.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["p"]);
    // Its cluster's location is not a literal: one to three zones.
    assert_eq!(removed.pools[0].size(), "1..3 nodes");
}

/// A `DoNotSchedule` topology spread needs its key on the node (PodTopologySpread's filter,
/// pkg/scheduler/framework/plugins/podtopologyspread/filtering.go: a node without the label is
/// `UnschedulableAndUnresolvable`), whatever its value and whatever the pods running; a
/// `ScheduleAnyway` one only scores. Where the inventory cannot say whether its nodes carry the
/// key, the pod may fit.
#[test]
fn a_do_not_schedule_spread_needs_its_key_on_the_node() {
    let spread = |key: &str, when: &str| {
        pod(&format!(
            "topologySpreadConstraints: [{{maxSkew: 1, topologyKey: {key}, \
             whenUnsatisfiable: {when}, labelSelector: {{matchLabels: {{app: a}}}}}}]"
        ))
    };
    let options = Options::default();
    // Node objects: what they hold is what the scheduler sees.
    let nodes = inventory(&format!(
        "{}---\n{}",
        node(
            "a",
            "capacity-spread: '1', topology.kubernetes.io/zone: z1",
            "",
            false
        ),
        node("b", "topology.kubernetes.io/zone: z2", "", false)
    ));
    let pools_fitting = |manifest: &str, inv: &Inventory| -> Vec<bool> {
        first_verdict(manifest, inv, &options)
            .iter()
            .map(|v| v.fits())
            .collect()
    };
    assert_eq!(
        pools_fitting(&spread("capacity-spread", "DoNotSchedule"), &nodes),
        [true, false]
    );
    let v = &first_verdict(
        &spread("capacity-spread", "DoNotSchedule"),
        &nodes,
        &options,
    )[1];
    assert_eq!(v.reasons, [Reason::TopologyKey("capacity-spread".into())]);
    assert_eq!(
        v.reasons[0].describe(&nodes.pools[1]),
        "topology spread on capacity-spread (DoNotSchedule): the node has no label capacity-spread"
    );
    assert!(!v.reasons[0].selects() && !v.reasons[0].tolerable());
    assert_eq!(
        pools_fitting(&spread("capacity-spread", "ScheduleAnyway"), &nodes),
        [true, true]
    );
    // A zone kept per node: both nodes carry one.
    assert_eq!(
        pools_fitting(
            &spread("topology.kubernetes.io/zone", "DoNotSchedule"),
            &nodes
        ),
        [true, true]
    );
    // No node names itself here: a Node object without the hostname label has none.
    assert!(!fits(
        &spread("kubernetes.io/hostname", "DoNotSchedule"),
        &nodes
    ));

    // A pool file: the kubelet names every node; a cloud gives its zone; another label is
    // absent where the file does not write it.
    let file = inventory("pools:\n  n: {count: 2}\n");
    assert!(fits(
        &spread("kubernetes.io/hostname", "DoNotSchedule"),
        &file
    ));
    assert!(!fits(&spread("capacity-spread", "DoNotSchedule"), &file));
    let v = &first_verdict(
        &spread("topology.kubernetes.io/zone", "DoNotSchedule"),
        &file,
        &options,
    )[0];
    assert!(v.fits(), "{v:?}");
    assert_eq!(v.unknown.len(), 1, "{v:?}");
    assert!(!v.unknown[0].is_label() && v.unknown[0].said_alone());
    assert_eq!(
        v.unknown[0].describe(),
        "topology spread on topology.kubernetes.io/zone (DoNotSchedule): a cloud provider sets \
         topology.kubernetes.io/zone on its nodes, and the inventory does not say it on this \
         pool's; it fits if they carry it"
    );
    let zoned = inventory("pools:\n  n: {count: 2, labels: {topology.kubernetes.io/zone: z1}}\n");
    let v = &first_verdict(
        &spread("topology.kubernetes.io/zone", "DoNotSchedule"),
        &zoned,
        &options,
    )[0];
    assert!(v.fits() && v.unknown.is_empty(), "{v:?}");

    // A Karpenter NodePool makes nodes with the labels its requirements define and the
    // well-known ones; it spreads over hostnames by making nodes.
    let nodepool = |requirements: &str| {
        inventory(&format!(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: np}}\nspec:\n  \
             template:\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: \
             EC2NodeClass, name: default}}\n      requirements: [{requirements}]\n"
        ))
    };
    let plain = nodepool("{key: karpenter.sh/capacity-type, operator: In, values: [spot]}");
    let split = nodepool("{key: capacity-spread, operator: In, values: ['1', '2']}");
    let custom = spread("capacity-spread", "DoNotSchedule");
    assert_eq!(
        first_verdict(&custom, &plain, &options)[0].reasons,
        [Reason::TopologyKey("capacity-spread".into())]
    );
    assert!(fits(&custom, &split));
    for key in [
        "topology.kubernetes.io/zone",
        "kubernetes.io/hostname",
        "karpenter.sh/capacity-type",
    ] {
        let v = &first_verdict(&spread(key, "DoNotSchedule"), &plain, &options)[0];
        assert!(v.fits() && v.unknown.is_empty(), "{key}: {v:?}");
    }
    let forbidden = nodepool("{key: capacity-spread, operator: DoesNotExist}");
    assert!(!fits(&custom, &forbidden));
}

/// Two workloads that differ only in a spread constraint ask different things of the pools:
/// the simulation one of them shares is not the other's.
#[test]
fn a_spread_is_part_of_what_a_workload_asks() {
    let inv = inventory(&node("a", "", "", false));
    let options = Options::default();
    let plain = pod("containers: [{name: c, image: i}]");
    let spread = pod(
        "containers: [{name: c, image: i}], topologySpreadConstraints: [{maxSkew: 1, \
         topologyKey: capacity-spread, whenUnsatisfiable: DoNotSchedule}]",
    );
    let judge = |manifest: &str| {
        with_workload(manifest, &options, |w| {
            simulate_shared(w, &inv, &options).fits_anywhere()
        })
    };
    assert!(judge(&plain));
    assert!(!judge(&spread));
    assert!(judge(&plain));
}

/// Auto Mode's nodes carry its own instance labels and `eks.amazonaws.com/compute-type=auto`,
/// not open source Karpenter's (the karpenter-blueprints GPU blueprint tells its readers to
/// change `karpenter.k8s.aws/instance-gpu-name` to `eks.amazonaws.com/instance-gpu-name`
/// on Auto Mode); a pool of an EC2NodeClass is the other way round.
#[test]
fn a_pool_answers_for_the_labels_of_its_own_provider() {
    let nodepool = |group: &str, kind: &str| {
        format!(
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: gpu}}\nspec:\n  \
                 template:\n    spec:\n      nodeClassRef: {{group: {group}, kind: {kind}, \
                 name: gpu}}\n      requirements:\n        - {{key: karpenter.sh/capacity-type, \
                 operator: In, values: [on-demand]}}\n"
        )
    };
    let fits = |pool: &str, selector: &str| {
        let inv = Inventory::load(&[("np.yaml", pool)]).unwrap();
        let pod = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  nodeSelector: \
                 {{{selector}}}\n  containers: [{{name: c, image: i}}]\n"
        );
        let results = simulate_text(&pod, &Options::default(), &inv);
        results[0].simulation.fits_anywhere()
    };
    let auto = nodepool("eks.amazonaws.com", "NodeClass");
    let oss = nodepool("karpenter.k8s.aws", "EC2NodeClass");
    let gpu_name = |domain: &str| format!("{domain}/instance-gpu-name: t4");
    assert!(fits(&auto, &gpu_name("eks.amazonaws.com")));
    assert!(!fits(&auto, &gpu_name("karpenter.k8s.aws")));
    assert!(fits(&oss, &gpu_name("karpenter.k8s.aws")));
    assert!(!fits(&oss, &gpu_name("eks.amazonaws.com")));
    assert!(fits(&auto, "eks.amazonaws.com/compute-type: auto"));
    assert!(!fits(&oss, "eks.amazonaws.com/compute-type: auto"));
}
