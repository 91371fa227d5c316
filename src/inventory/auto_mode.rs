//! EKS Auto Mode: the built-in NodePools a cluster enables without writing them, and the
//! instance labels of its own domain.
//!
//! A cluster with Auto Mode on (`compute_config { enabled = true, node_pools = [...] }`) gets
//! the NodePools its `node_pools` names, which no file of the repository holds. The EKS user
//! guide (automode/set-builtin-node-pools, "Built-in NodePool Reference") says what they are:
//! `system` has a `CriticalAddonsOnly` taint and both `amd64` and `arm64`; `general-purpose`
//! only `amd64`; both on-demand capacity of the C, M and R families, generation 5 or newer, of
//! the default NodeClass. They are read as the NodePools they are, placed where their names are
//! written.
//!
//! Auto Mode's Karpenter labels EC2 instances in `eks.amazonaws.com/` where open source
//! Karpenter writes `karpenter.k8s.aws/` (automode/create-node-pool, "EKS Auto Mode Supported
//! Labels": `instance-category`, `instance-family`, `instance-gpu-count`, ... the same names):
//! what a pool's requirements say of its instance types is read the same in either domain.

use std::borrow::Cow;
use std::ops::Range;

use super::{Loc, PoolRequirement, RawNode};
use crate::k8s::cluster::Cluster;

/// The built-in NodePools, by name.
pub(crate) const BUILTIN: &[&str] = &["general-purpose", "system"];

/// The built-in NodePool `name` as a NodePool manifest.
fn manifest(name: &str) -> Option<String> {
    let (arch, taints) = match name {
        "general-purpose" => ("[amd64]", ""),
        "system" => (
            "[amd64, arm64]",
            "      taints:\n        - {key: CriticalAddonsOnly, effect: NoSchedule}\n",
        ),
        _ => return None,
    };
    Some(format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec:\n  \
         template:\n    spec:\n      nodeClassRef: {{group: eks.amazonaws.com, kind: NodeClass, \
         name: default}}\n{taints}      requirements:\n        - {{key: \
         karpenter.sh/capacity-type, operator: In, values: [on-demand]}}\n        - {{key: \
         eks.amazonaws.com/instance-category, operator: In, values: [c, m, r]}}\n        - {{key: \
         eks.amazonaws.com/instance-generation, operator: Gt, values: ['4']}}\n        - {{key: \
         kubernetes.io/arch, operator: In, values: {arch}}}\n"
    ))
}

/// The built-in NodePool `name` of a cluster in `file`, its `k`th, placed at `at` (where the
/// name is written): the pool and each of its taints point there.
pub(crate) fn builtin(file: usize, name: &str, at: Range<usize>, k: usize) -> Option<RawNode> {
    let text = manifest(name)?;
    let (nodes, _) =
        super::nodes::parse_file(file, name, &text, &mut Cluster::default(), &mut Vec::new())
            .ok()?;
    let mut node = nodes.into_iter().next()?;
    let at = Loc { file, range: at };
    for t in &mut node.taints {
        t.at = at.clone();
    }
    node.at = at;
    // Told apart from the file's node groups and the pools of the manifests it applies.
    if let Some(((_, i), _)) = &mut node.pool {
        *i = (1 << 30) + k;
    }
    Some(node)
}

/// `requirements` with Auto Mode's instance labels (`eks.amazonaws.com/instance-*`) read as
/// Karpenter's on AWS (`karpenter.k8s.aws/instance-*`), for what they say of instance types.
pub(crate) fn as_karpenter(requirements: &[PoolRequirement]) -> Cow<'_, [PoolRequirement]> {
    const AUTO: &str = "eks.amazonaws.com/instance-";
    if !requirements.iter().any(|r| r.key.starts_with(AUTO)) {
        return Cow::Borrowed(requirements);
    }
    Cow::Owned(
        requirements
            .iter()
            .map(|r| match r.key.strip_prefix(AUTO) {
                Some(rest) => PoolRequirement {
                    key: format!("karpenter.k8s.aws/instance-{rest}"),
                    ..r.clone()
                },
                None => r.clone(),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use crate::inventory::{terraform, Inventory};

    /// EKS Auto Mode's built-in NodePools, as a cluster's `compute_config` enables them (the
    /// EKS user guide, "Built-in NodePool Reference"), written nowhere else: read as the
    /// NodePools they are, placed at their names.
    #[test]
    fn auto_modes_builtin_nodepools_are_those_a_cluster_enables() {
        // After terraform-aws-modules/eks's Auto Mode example (v21) and the aws_eks_cluster
        // resource's `compute_config` block.
        let module = r#"module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 21.0"
  compute_config = {
    enabled    = true
    node_pools = ["general-purpose", "system"]
  }
}
"#;
        let resource = r#"resource "aws_eks_cluster" "example" {
  name = "example"
  compute_config {
    enabled    = true
    node_pools = ["system"]
  }
}
"#;
        let inv = Inventory::load(&[("eks.tf", module)]).unwrap();
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["general-purpose", "system"]);
        let (general, system) = (&inv.pools[0], &inv.pools[1]);
        assert!(general.taints.is_empty());
        assert_eq!(system.taint_texts(), ["CriticalAddonsOnly:NoSchedule"]);
        assert_eq!(&module[system.at.range.clone()], "\"system\"");
        assert_eq!(&module[system.taints[0].at.range.clone()], "\"system\"");
        assert_eq!(&module[general.at.range.clone()], "\"general-purpose\"");
        let requirement = |pool: &crate::inventory::Pool, key: &str| {
            let reqs = pool
                .declared
                .as_ref()
                .unwrap()
                .requirements
                .as_ref()
                .unwrap();
            let r = reqs.iter().find(|r| r.key == key).unwrap();
            format!("{} {:?}", r.operator, r.values)
        };
        assert_eq!(requirement(general, "kubernetes.io/arch"), "In [\"amd64\"]");
        assert_eq!(
            requirement(system, "kubernetes.io/arch"),
            "In [\"amd64\", \"arm64\"]"
        );
        assert_eq!(
            requirement(general, "eks.amazonaws.com/instance-category"),
            "In [\"c\", \"m\", \"r\"]"
        );
        // C, M and R instances have no GPU: certainly none, not "may".
        let gpu = general
            .declared
            .as_ref()
            .unwrap()
            .capacity
            .offer("nvidia.com/gpu");
        assert_eq!(gpu, Some((0, Some(0))));

        let inv = Inventory::load(&[("cluster.tf", resource)]).unwrap();
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["system"]);
        // Not enabled, or no built-in named: none.
        for off in [
            resource.replace("enabled    = true", "enabled    = false"),
            resource.replace("[\"system\"]", "[]"),
        ] {
            let Ok(hcl) = terraform::parse(&off) else {
                panic!("{off} parses")
            };
            assert!(hcl.builtins.is_empty(), "{off}");
        }
        // Named by an expression: said, not guessed.
        let named = resource.replace("[\"system\"]", "var.pools");
        let Ok(hcl) = terraform::parse(&named) else {
            panic!("the file parses")
        };
        assert!(hcl.builtins.is_empty());
        assert!(hcl.unread[0]
            .message
            .starts_with("aws_eks_cluster.example.compute_config.node_pools is `var.pools`"));
    }

    /// An Auto Mode NodePool's instance requirements, in `eks.amazonaws.com/`, say what its
    /// instance types offer as Karpenter's `karpenter.k8s.aws/` ones do.
    #[test]
    fn auto_mode_instance_labels_size_a_nodepool() {
        let nodepool = |prefix: &str| {
            format!(
                "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: gpu}}\nspec:\n  \
                 template:\n    spec:\n      nodeClassRef: {{group: eks.amazonaws.com, kind: \
                 NodeClass, name: default}}\n      requirements:\n        - {{key: \
                 {prefix}/instance-family, operator: In, values: [g6e]}}\n"
            )
        };
        let gpus = |text: &str| {
            let inv = Inventory::load(&[("np.yaml", text)]).unwrap();
            let cap = &inv.pools[0].declared.as_ref().unwrap().capacity;
            cap.offer("nvidia.com/gpu")
        };
        let auto = gpus(&nodepool("eks.amazonaws.com"));
        assert_eq!(auto, gpus(&nodepool("karpenter.k8s.aws")));
        assert!(auto.is_some_and(|(min, _)| min >= 1), "{auto:?}");
    }

    /// eksctl's `autoModeConfig` (after aws-samples/eks-workshop-v2's cluster/eksctl
    /// cluster-auto.yaml): the built-in NodePools it names, placed at their names; none named,
    /// none read (eksctl's default for a left-out `nodePools` is not one taintlint can cite).
    #[test]
    fn eksctls_auto_mode_config_names_its_builtin_nodepools() {
        let config = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: \
                      auto\n  region: us-west-2\nautoModeConfig:\n  enabled: true\n  nodePools: \
                      [general-purpose, system]\n";
        let inv = Inventory::load(&[("cluster-auto.yaml", config)]).unwrap();
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["general-purpose", "system"]);
        assert_eq!(&config[inv.pools[1].at.range.clone()], "system");
        assert_eq!(
            inv.pools[1].taint_texts(),
            ["CriticalAddonsOnly:NoSchedule"]
        );
        let unnamed = config.replace("  nodePools: [general-purpose, system]\n", "");
        let off = config.replace("enabled: true", "enabled: false");
        for text in [unnamed, off] {
            let pools = Inventory::load(&[("cluster-auto.yaml", &text)]).map(|i| i.pools.len());
            assert!(!matches!(pools, Ok(n) if n > 0), "{text}");
        }
    }
}
