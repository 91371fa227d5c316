//! Whether a pod can be given a node by a pool that makes nodes on demand (a Karpenter
//! NodePool): its `nodeSelector` and required node affinity must be compatible with the pool's
//! requirements, as Karpenter decides (kubernetes-sigs/karpenter `pkg/scheduling/requirements.go`
//! `Requirements.Compatible` and `Intersects`, `pkg/scheduling/requirement.go`).
//!
//! For each key the pod asks about: when the pool defines it, the two must have a value in
//! common (a `NotIn` or `DoesNotExist` against a `NotIn` or `DoesNotExist` always passes); when
//! it does not, a well-known label (zone, architecture, instance type, ...: the pool may make
//! any) passes, and a custom label passes only for `NotIn` / `DoesNotExist`. Node affinity terms
//! are alternatives: one compatible term is enough (Karpenter relaxes the others away).

use std::collections::BTreeSet;

#[cfg(test)]
use super::affinity::SelOp;
use super::affinity::{go_parse_int, Affinity};
use crate::inventory::{OpenLabels, Pool, PoolRequirement};

/// Labels Karpenter lets a pod select on when a pool leaves them undefined
/// (`pkg/apis/v1/labels.go` `WellKnownLabels`), and the label domains of its cloud providers
/// (instance families, sizes, ...: `karpenter.k8s.aws/`, `karpenter.azure.com/`, and EKS Auto
/// Mode's `eks.amazonaws.com/instance-`, the EKS user guide's "EKS Auto Mode Supported Labels").
const WELL_KNOWN: &[&str] = &[
    "karpenter.sh/nodepool",
    "karpenter.sh/capacity-type",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "node.kubernetes.io/windows-build",
    "kubernetes.io/arch",
    "kubernetes.io/os",
];
const PROVIDER_DOMAINS: &[&str] = &[
    "karpenter.k8s.aws/",
    "karpenter.azure.com/",
    "eks.amazonaws.com/instance-",
];

/// The node class labels that tell a pool's provider (`<group>/<kind>`, from its
/// `nodeClassRef`), each with the domain its provider labels instances in.
const NODE_CLASSES: &[(&str, &str)] = &[
    ("karpenter.k8s.aws/ec2nodeclass", "karpenter.k8s.aws/"),
    ("karpenter.azure.com/aksnodeclass", "karpenter.azure.com/"),
    ("eks.amazonaws.com/nodeclass", "eks.amazonaws.com/instance-"),
];

/// The domain in which the provider of `pool` labels its instances, known from its node class;
/// `None` when its labels do not say (any provider's is taken).
pub fn provider_domain(pool: &Pool) -> Option<&'static str> {
    NODE_CLASSES
        .iter()
        .find(|(class, _)| pool.label(None, class).is_some())
        .map(|&(_, domain)| domain)
}

fn well_known(key: &str, domain: Option<&str>) -> bool {
    WELL_KNOWN.contains(&key)
        || match domain {
            Some(d) => key.starts_with(d),
            None => PROVIDER_DOMAINS.iter().any(|d| key.starts_with(d)),
        }
}

/// The values a requirement allows: a set, or everything but a set (`complement`), within
/// integer bounds.
#[derive(Debug, Clone)]
struct Allowed {
    complement: bool,
    values: BTreeSet<String>,
    greater_than: Option<i64>,
    less_than: Option<i64>,
    op: &'static str,
}

impl Allowed {
    fn new(operator: &str, values: &[String]) -> Option<Allowed> {
        let set = || values.iter().cloned().collect::<BTreeSet<_>>();
        let bound = || values.first().and_then(|v| go_parse_int(v));
        let mut a = Allowed {
            complement: true,
            values: BTreeSet::new(),
            greater_than: None,
            less_than: None,
            op: "Exists",
        };
        match operator {
            "In" => {
                a.complement = false;
                a.values = set();
                a.op = "In";
            }
            "NotIn" => {
                a.values = set();
                a.op = "NotIn";
            }
            "Exists" => {}
            "DoesNotExist" => {
                a.complement = false;
                a.op = "DoesNotExist";
            }
            "Gt" => a.greater_than = Some(bound()?),
            "Gte" => a.greater_than = Some(bound()?.checked_sub(1)?),
            "Lt" => a.less_than = Some(bound()?),
            "Lte" => a.less_than = Some(bound()?.checked_add(1)?),
            _ => return None,
        }
        Some(a)
    }

    fn within(&self, v: &str) -> bool {
        if self.greater_than.is_none() && self.less_than.is_none() {
            return true;
        }
        let Some(n) = go_parse_int(v) else {
            return false;
        };
        self.greater_than.is_none_or(|g| n > g) && self.less_than.is_none_or(|l| n < l)
    }

    /// Whether some value satisfies both.
    fn intersects(&self, other: &Allowed) -> bool {
        let g = self.greater_than.max(other.greater_than);
        let l = match (self.less_than, other.less_than) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let both = |v: &String| self.within(v) && other.within(v);
        match (self.complement, other.complement) {
            (true, true) => match (g, l) {
                (Some(g), Some(l)) => l.checked_sub(g).is_some_and(|d| d > 1),
                _ => true,
            },
            (true, false) => other
                .values
                .iter()
                .any(|v| !self.values.contains(v) && both(v)),
            (false, true) => self
                .values
                .iter()
                .any(|v| !other.values.contains(v) && both(v)),
            (false, false) => self
                .values
                .iter()
                .any(|v| other.values.contains(v) && both(v)),
        }
    }

    fn negative(&self) -> bool {
        matches!(self.op, "NotIn" | "DoesNotExist")
    }
}

/// One thing the pod asks of a node's label.
struct Asked<'a> {
    key: &'a str,
    allowed: Allowed,
    /// How the pod writes it, for messages.
    text: String,
}

/// Why the pod's `asked` cannot be met by the pool, or `None` when it can. A label the pool
/// writes as an expression (`open`) and does not define otherwise may have any value.
fn incompatible(
    pool: &[PoolRequirement],
    domain: Option<&str>,
    open: &OpenLabels,
    asked: &[Asked<'_>],
) -> Option<String> {
    for a in asked {
        let defined: Vec<&PoolRequirement> = pool.iter().filter(|r| r.key == a.key).collect();
        if defined.is_empty() {
            if !well_known(a.key, domain) && !a.allowed.negative() && !open.covers(a.key) {
                return Some(format!(
                    "{} asks for a label the pool's nodes do not have ({} is neither in its \
                     requirements nor its labels)",
                    a.text, a.key
                ));
            }
            continue;
        }
        for r in defined {
            let Some(existing) = Allowed::new(&r.operator, &r.values) else {
                continue;
            };
            let both_negative = a.allowed.negative() && existing.negative();
            if !(existing.intersects(&a.allowed) || both_negative) {
                let values = if r.values.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", r.values.join(", "))
                };
                return Some(format!(
                    "{} is outside the pool's requirement {} {}{values}",
                    a.text, r.key, r.operator
                ));
            }
        }
    }
    None
}

/// Whether a pool with these requirements makes nodes that carry the label `key` (a topology
/// spread's key, asked with any value): a well-known label, or one its requirements define and
/// do not forbid.
pub fn can_label(pool: &[PoolRequirement], domain: Option<&str>, key: &str) -> bool {
    let exists = Asked {
        key,
        allowed: Allowed::new("Exists", &[]).expect("Exists always parses"),
        text: String::new(),
    };
    incompatible(pool, domain, &OpenLabels::None, &[exists]).is_none()
}

/// Why a pod with this `nodeSelector` and required affinity can get no node from a pool with
/// these requirements and these labels written as expressions (`None`: it can).
pub fn failure(
    pool: &[PoolRequirement],
    domain: Option<&str>,
    open: &OpenLabels,
    selector: &[(&str, &str)],
    affinity: Option<&Affinity>,
) -> Option<String> {
    let from_selector: Vec<Asked<'_>> = selector
        .iter()
        .map(|&(k, v)| Asked {
            key: k,
            allowed: Allowed::new("In", &[v.to_string()]).expect("In always parses"),
            text: format!("nodeSelector {k}={v}"),
        })
        .collect();
    if let Some(why) = incompatible(pool, domain, open, &from_selector) {
        return Some(why);
    }
    let affinity = affinity?;
    let mut first: Option<String> = None;
    for term in &affinity.terms {
        if let Some(e) = &term.error {
            first.get_or_insert_with(|| {
                format!("node affinity term {} is invalid ({e})", term.index)
            });
            continue;
        }
        let asked: Vec<Asked<'_>> = term
            .expressions
            .iter()
            .filter_map(|r| {
                Some(Asked {
                    key: &r.key,
                    allowed: Allowed::new(r.op.as_str(), &r.values)?,
                    text: format!("node affinity `{r}`"),
                })
            })
            .collect();
        match incompatible(pool, domain, open, &asked) {
            None => return None,
            Some(why) => {
                first.get_or_insert(why);
            }
        }
    }
    Some(first.unwrap_or_else(|| "required node affinity has no terms".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(key: &str, op: &str, values: &[&str]) -> PoolRequirement {
        PoolRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn selectors_against_requirements() {
        let pool = [
            req("kubernetes.io/arch", "In", &["amd64"]),
            req("karpenter.sh/capacity-type", "In", &["spot", "on-demand"]),
            req("team", "In", &["ml"]),
            req("karpenter.k8s.aws/instance-cpu", "Gt", &["3"]),
        ];
        let fits = |sel: &[(&str, &str)]| failure(&pool, None, &OpenLabels::None, sel, None);
        assert_eq!(fits(&[("karpenter.sh/capacity-type", "spot")]), None);
        assert_eq!(fits(&[("team", "ml")]), None);
        // Well-known labels the pool leaves open can be asked for.
        assert_eq!(fits(&[("topology.kubernetes.io/zone", "us-west-2a")]), None);
        assert_eq!(fits(&[("karpenter.k8s.aws/instance-cpu", "8")]), None);
        assert!(fits(&[("karpenter.k8s.aws/instance-cpu", "2")]).is_some());
        let why = fits(&[("kubernetes.io/arch", "arm64")]).unwrap();
        assert_eq!(
            why,
            "nodeSelector kubernetes.io/arch=arm64 is outside the pool's requirement \
             kubernetes.io/arch In [amd64]"
        );
        // A custom label the pool does not define: Karpenter cannot make such a node.
        let why = fits(&[("example.com/gpu", "a100")]).unwrap();
        assert!(why.contains("example.com/gpu is neither"), "{why}");
    }

    /// A required affinity of one term with these expressions.
    fn one_term(exprs: &[(&str, SelOp, &[&str])]) -> Affinity {
        Affinity {
            terms: vec![crate::schedule::affinity::Term {
                expressions: exprs
                    .iter()
                    .map(
                        |&(key, op, values)| crate::schedule::affinity::Requirement {
                            key: key.into(),
                            op,
                            values: values.iter().map(|v| v.to_string()).collect(),
                        },
                    )
                    .collect(),
                fields: Vec::new(),
                error: None,
                index: 0,
            }],
            key: 0,
        }
    }

    // Karpenter's bounds are strict (`withinIntPtrs`: a value equal to a `Gt` or `Lt` bound is
    // outside), and a value must be an integer to be within one.
    #[test]
    fn bounds_are_strict() {
        let pool = [
            req("karpenter.k8s.aws/instance-cpu", "Gt", &["3"]),
            req("karpenter.k8s.aws/instance-memory", "Lt", &["8192"]),
        ];
        let fits =
            |k: &str, v: &str| failure(&pool, None, &OpenLabels::None, &[(k, v)], None).is_none();
        assert!(!fits("karpenter.k8s.aws/instance-cpu", "3"));
        assert!(fits("karpenter.k8s.aws/instance-cpu", "4"));
        assert!(!fits("karpenter.k8s.aws/instance-cpu", "four"));
        assert!(fits("karpenter.k8s.aws/instance-memory", "8191"));
        assert!(!fits("karpenter.k8s.aws/instance-memory", "8192"));
        assert!(!fits("karpenter.k8s.aws/instance-memory", "16384"));
    }

    // A pool that makes only some values against a pod that excludes or bounds them
    // (`Requirement.Intersection`: a set minus a complement's values, within the bounds).
    #[test]
    fn a_pool_set_against_a_pod_complement() {
        let pool = [
            req("team", "In", &["ml"]),
            req("karpenter.k8s.aws/instance-cpu", "In", &["2", "4"]),
        ];
        let why = |exprs: &[(&str, SelOp, &[&str])]| {
            failure(&pool, None, &OpenLabels::None, &[], Some(&one_term(exprs)))
        };
        assert_eq!(
            why(&[("team", SelOp::NotIn, &["ml"])]).as_deref(),
            Some("node affinity `team NotIn [ml]` is outside the pool's requirement team In [ml]")
        );
        assert_eq!(why(&[("team", SelOp::NotIn, &["web"])]), None);
        assert_eq!(why(&[("team", SelOp::Exists, &[])]), None);
        assert_eq!(
            why(&[("karpenter.k8s.aws/instance-cpu", SelOp::Gt, &["3"])]),
            None
        );
        assert!(why(&[("karpenter.k8s.aws/instance-cpu", SelOp::Gt, &["4"])]).is_some());
        assert!(why(&[("karpenter.k8s.aws/instance-cpu", SelOp::Lt, &["2"])]).is_some());
        // Two exclusions always agree: a node without the value exists.
        let pool = [req("team", "NotIn", &["ml"])];
        let aff = one_term(&[("team", SelOp::NotIn, &["ml"])]);
        assert_eq!(
            failure(&pool, None, &OpenLabels::None, &[], Some(&aff)),
            None
        );
    }

    #[test]
    fn negative_operators_and_bounds() {
        let a = Allowed::new("NotIn", &["a".into()]).unwrap();
        let b = Allowed::new("In", &["a".into()]).unwrap();
        assert!(!a.intersects(&b));
        assert!(a.intersects(&Allowed::new("In", &["b".into()]).unwrap()));
        let gt = Allowed::new("Gt", &["3".into()]).unwrap();
        let lt = Allowed::new("Lt", &["5".into()]).unwrap();
        assert!(gt.intersects(&lt)); // 4
        let lt4 = Allowed::new("Lt", &["4".into()]).unwrap();
        assert!(!gt.intersects(&lt4));
        let gte = Allowed::new("Gte", &["4".into()]).unwrap();
        assert!(gte.intersects(&Allowed::new("In", &["4".into()]).unwrap()));
        assert!(Allowed::new("Gt", &["x".into()]).is_none());
        // NotIn against an undefined custom label passes.
        let pool = [req("team", "In", &["ml"])];
        let mut aff = Affinity {
            terms: Vec::new(),
            key: 0,
        };
        aff.terms.push(crate::schedule::affinity::Term {
            expressions: vec![crate::schedule::affinity::Requirement {
                key: "example.com/x".into(),
                op: SelOp::NotIn,
                values: vec!["y".into()],
            }],
            fields: Vec::new(),
            error: None,
            index: 0,
        });
        assert_eq!(
            failure(&pool, None, &OpenLabels::None, &[], Some(&aff)),
            None
        );
    }
}
