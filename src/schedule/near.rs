//! What comes closest: the taint a toleration nearly matches, the pool a pod template that fits
//! no node nearly fits, and the near miss among its tolerations, with the words each face says
//! them in. Decided here once, so that the `toleration-unused` and `unschedulable` findings, a
//! hover, a code lens and a `simulate` row about the same toleration name the same taint.
//!
//! Closeness is first how many fields miss and how (a key a typo away weighs more than a value,
//! another key rules the taint out), then how far the wrong key or value is from the right one
//! in edits: `value: rsk` comes closer to `dedicated=risk` than to `dedicated=search`. Ties go
//! to the taint met first.

use crate::inventory::{Inventory, Pool};
use crate::k8s::model::{Miss, Taint, Toleration};
use crate::k8s::well_known::edit_distance;
use crate::k8s::{go_quote, shown};
use crate::schedule::admission::Source;
use crate::schedule::{Reason, Simulation, Verdict};

/// Edits counted between a wrong key or value and the right one, at most (values are at most 63
/// characters; a key that is further off than a typo is not near anyway).
const EDITS: usize = 64;

/// How close a toleration comes to tolerating a taint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closeness {
    /// 0 tolerates it; 10 or more is unrelated (another key that is not a near-typo); between,
    /// each missed field counts (a key a typo away 2, any other field 1).
    pub score: usize,
    /// How many edits make the wrong key and value right.
    pub edits: usize,
    pub misses: Vec<Miss>,
}

impl Closeness {
    /// Whether it misses, but only just: a near miss worth naming.
    pub fn near(&self) -> bool {
        self.score > 0 && self.score < 10
    }

    /// What orders near misses: the lower, the closer.
    pub fn rank(&self) -> (usize, usize) {
        (self.score, self.edits)
    }
}

/// How close a toleration comes to tolerating a taint.
pub fn closeness(t: &Toleration, taint: &Taint, gate: bool) -> Closeness {
    let misses = t.misses(taint, gate);
    let mut score = 0;
    let mut edits = 0;
    for m in &misses {
        match m {
            Miss::Key { toleration, taint } => {
                let d = edit_distance(toleration, taint, 2);
                score += if d <= 2 { 2 } else { 10 };
                edits += d;
            }
            Miss::Value { toleration, taint } => {
                score += 1;
                edits += edit_distance(toleration, taint, EDITS);
            }
            _ => score += 1,
        }
    }
    Closeness {
        score,
        edits,
        misses,
    }
}

/// The misses as a message says them, short: `value "rsk", not "risk"`, `key `gpu`, not
/// `nvidia.com/gpu``, `effect NoExecute, not NoSchedule`.
pub fn misses_short(misses: &[Miss]) -> String {
    misses
        .iter()
        .map(|m| match m {
            Miss::Key { toleration, taint } => {
                format!("key {}, not `{taint}`", shown(toleration))
            }
            Miss::Value { toleration, taint } => {
                format!("value {}, not {}", go_quote(toleration), go_quote(taint))
            }
            Miss::Effect { toleration, taint } => format!("effect {toleration}, not {taint}"),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A taint of the inventory that a toleration nearly matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearTaint {
    /// The pool (an index in [`Inventory::pools`]) and the taint (in its `taints`).
    pub pool: usize,
    pub taint: usize,
    pub misses: Vec<Miss>,
}

impl NearTaint {
    /// `dedicated=risk:NoSchedule (value "rsk", not "risk")`: the taint and how the toleration
    /// misses it, as every face says it.
    pub fn said(&self, inventory: &Inventory) -> String {
        format!(
            "{} ({})",
            inventory.pools[self.pool].taints[self.taint].taint,
            misses_short(&self.misses)
        )
    }
}

/// The taint of the whole inventory that `t` comes closest to tolerating, when it tolerates
/// none and one comes near. A toleration of a pod template that fits no node is rather said
/// against the pool that comes closest: [`closest_taint_for`].
pub fn closest_taint(t: &Toleration, inventory: &Inventory, gate: bool) -> Option<NearTaint> {
    let taints = inventory.taints();
    if taints.iter().any(|(pt, _)| t.tolerates(&pt.taint, gate)) {
        return None;
    }
    let (c, pt, pools) = taints
        .iter()
        .map(|(pt, pools)| (closeness(t, &pt.taint, gate), pt, pools))
        .filter(|(c, _, _)| c.near())
        .min_by_key(|(c, _, _)| c.rank())?;
    let pool = *pools.first()?;
    let taint = inventory.pools[pool]
        .taints
        .iter()
        .position(|x| x.taint == pt.taint)?;
    Some(NearTaint {
        pool,
        taint,
        misses: c.misses,
    })
}

/// The closest taint to the `toleration`th toleration of a pod template, which tolerates none:
/// the near miss of the pool that comes closest when the template fits no node and that
/// toleration is its near miss (`closest`), else `otherwise` (the closest taint of the whole
/// inventory, [`closest_taint`]). What every face says of a toleration that tolerates nothing.
pub fn closest_taint_for(
    closest: Option<&Closest<'_>>,
    toleration: usize,
    otherwise: impl FnOnce() -> Option<NearTaint>,
) -> Option<NearTaint> {
    match closest.and_then(|c| c.near_miss.as_ref()) {
        Some(n) if n.toleration == toleration => closest.and_then(Closest::near_taint),
        _ => otherwise(),
    }
}

/// The toleration of a pod's own (its manifest's) that comes closest to tolerating one of
/// `taints` (indices in `pool`'s): (index in `tolerations`, taint index, how close).
pub fn closest_toleration(
    (tolerations, sources): (&[Toleration], &[Source]),
    pool: &Pool,
    taints: &[usize],
    gate: bool,
) -> Option<(usize, usize, Closeness)> {
    let mut best: Option<(usize, usize, Closeness)> = None;
    for (i, t) in tolerations.iter().enumerate() {
        if !matches!(sources[i], Source::Manifest(_)) {
            continue;
        }
        for &ti in taints {
            let c = closeness(t, &pool.taints[ti].taint, gate);
            if !c.near() {
                continue;
            }
            if best.as_ref().is_none_or(|b| c.rank() < b.2.rank()) {
                best = Some((i, ti, c));
            }
        }
    }
    best
}

/// The toleration of a pod template that only just misses a taint of the closest pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearMiss {
    /// Its index in the pod's tolerations ([`crate::schedule::Workload::tolerations`]) and in
    /// its manifest's `tolerations` list.
    pub toleration: usize,
    pub item: usize,
    /// The taint (an index in the closest pool's `taints`) and how it is missed.
    pub taint: usize,
    pub misses: Vec<Miss>,
}

/// The pool that comes closest to admitting a pod template that fits no node, the near miss
/// among its tolerations if one only just misses a taint of that pool, and every pool's
/// distance, closest first.
#[derive(Debug)]
pub struct Closest<'v> {
    /// Each pool's most promising node verdict, and how far it is.
    pub pools: Vec<(usize, &'v Verdict, usize)>,
    /// Indices into `pools`, closest first.
    pub order: Vec<usize>,
    pub pool: usize,
    pub verdict: &'v Verdict,
    pub near_miss: Option<NearMiss>,
}

/// How far a pool is from admitting the template: selector mismatches weigh far more than
/// taints, which a toleration can fix, and a near miss brings it closer.
fn distance(v: &Verdict, near_miss: bool) -> usize {
    let mut d: usize = v
        .reasons
        .iter()
        .map(|r| if r.tolerable() { 10 } else { 100 })
        .sum();
    if near_miss {
        d = d.saturating_sub(5);
    }
    d
}

/// How much of what a verdict's nodes lack is missing, in thousandths of each request, summed
/// over the resources: a node with 2 of the 8 GPUs asked for is nearer than one with none.
fn shortfall(v: &Verdict) -> u128 {
    v.reasons
        .iter()
        .map(|r| match r {
            Reason::Insufficient {
                requested, offered, ..
            } if *requested > 0 => {
                (requested - offered.min(requested)).saturating_mul(1000) / requested
            }
            _ => 0,
        })
        .sum()
}

/// Each pool's most promising node verdict and how far it is, and their order, closest first
/// (indices into the first): by distance, then by how near its near miss comes, then by how
/// little of a resource its nodes lack, then the larger pool, then the first.
#[allow(clippy::type_complexity)]
pub fn ranked<'v>(
    simulation: &'v Simulation,
    inventory: &'v Inventory,
    tolerations: (&[Toleration], &[Source]),
    gate: bool,
) -> (Vec<(usize, &'v Verdict, usize)>, Vec<usize>) {
    let mut pools: Vec<(usize, &Verdict, usize)> = Vec::new();
    let mut nearness: Vec<(usize, usize)> = Vec::new();
    for (p, (pv, pool)) in simulation.pools.iter().zip(&inventory.pools).enumerate() {
        let Some((v, _, _)) = pv.groups(pool).min_by_key(|(v, _, _)| v.reasons.len()) else {
            continue;
        };
        let taints = v.untolerated_taints();
        let near = closest_toleration(tolerations, pool, &taints, gate);
        nearness.push(
            near.as_ref()
                .map_or((usize::MAX, usize::MAX), |n| n.2.rank()),
        );
        pools.push((p, v, distance(v, near.is_some())));
    }
    let mut order: Vec<usize> = (0..pools.len()).collect();
    order.sort_by_key(|&i| {
        let (p, _, d) = pools[i];
        (
            d,
            nearness[i],
            shortfall(pools[i].1),
            std::cmp::Reverse(inventory.pools[p].nodes.len()),
            p,
        )
    });
    (pools, order)
}

/// The pool that comes closest to admitting a pod template that fits no node, and the near miss
/// among its own tolerations; `None` without pools.
pub fn closest<'v>(
    simulation: &'v Simulation,
    inventory: &'v Inventory,
    tolerations: (&[Toleration], &[Source]),
    gate: bool,
) -> Option<Closest<'v>> {
    let (pools, order) = ranked(simulation, inventory, tolerations, gate);
    let (pool, verdict, _) = *pools.get(*order.first()?)?;
    let taints = verdict.untolerated_taints();
    let near_miss = closest_toleration(tolerations, &inventory.pools[pool], &taints, gate)
        .and_then(|(toleration, taint, c)| match tolerations.1[toleration] {
            Source::Manifest(item) => Some(NearMiss {
                toleration,
                item,
                taint,
                misses: c.misses,
            }),
            _ => None,
        });
    Some(Closest {
        pools,
        order,
        pool,
        verdict,
        near_miss,
    })
}

/// The closest pool of a workload that fits no node and its near miss, kept in words with a
/// simulation's result ([`crate::schedule::WorkloadResult::closest`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The closest pool (an index in [`Inventory::pools`]).
    pub pool: usize,
    /// What keeps it off that pool, as the `unschedulable` finding says it ([`Closest::what`]).
    pub message: String,
    /// The near miss: the manifest's toleration (its index in `tolerations`) and the taint (an
    /// index in the pool's `taints`).
    pub near: Option<(usize, usize)>,
}

/// Whether no node of the inventory has the label a nodeSelector entry asks for: every node of
/// every pool is kept off by it (and that alone is the answer).
pub fn no_node_has(simulation: &Simulation, inventory: &Inventory, key: &str) -> bool {
    simulation
        .pools
        .iter()
        .zip(&inventory.pools)
        .all(|(pv, pool)| {
            pv.groups(pool).all(|(v, _, _)| {
                v.reasons
                    .iter()
                    .any(|r| matches!(r, Reason::NodeSelector { key: k, .. } if **k == *key))
            })
        })
}

/// [`closest`] for a pod template that fits no node and selects no label that no node has
/// (then that label is the answer, and no pool is closer than another); `None` otherwise.
pub fn closest_unplaced<'v, 'k>(
    simulation: &'v Simulation,
    inventory: &'v Inventory,
    tolerations: (&[Toleration], &[Source]),
    mut selector_keys: impl Iterator<Item = &'k str>,
    gate: bool,
) -> Option<Closest<'v>> {
    if simulation.fits_anywhere() || selector_keys.any(|k| no_node_has(simulation, inventory, k)) {
        return None;
    }
    closest(simulation, inventory, tolerations, gate)
}

impl Closest<'_> {
    /// In words, to keep.
    pub fn to_said(&self, inventory: &Inventory) -> Said {
        Said {
            pool: self.pool,
            message: self.what(inventory),
            near: self.near_miss.as_ref().map(|n| (n.item, n.taint)),
        }
    }

    /// The near miss's taint, as [`NearTaint`].
    pub fn near_taint(&self) -> Option<NearTaint> {
        self.near_miss.as_ref().map(|n| NearTaint {
            pool: self.pool,
            taint: n.taint,
            misses: n.misses.clone(),
        })
    }

    /// What keeps the template off the closest pool, as the `unschedulable` finding says it
    /// after "fits no node": `tolerations[0] misses dedicated=risk:NoSchedule (value "rsk", not
    /// "risk")`, else `closest is pool gpu: untolerated taint ..., and 2 more`.
    pub fn said(&self, inventory: &Inventory) -> String {
        match &self.near_miss {
            Some(_) => self.what(inventory),
            None => format!(
                "closest is pool {}: {}",
                inventory.pools[self.pool].name,
                self.what(inventory)
            ),
        }
    }

    /// What keeps the template off the closest pool: its near miss (`tolerations[0] misses
    /// dedicated=risk:NoSchedule (value "rsk", not "risk")`), else its first two reasons
    /// (`untolerated taint ..., nodeSelector ... does not match, and 2 more`).
    pub fn what(&self, inventory: &Inventory) -> String {
        let pool = &inventory.pools[self.pool];
        if let (Some(n), Some(t)) = (&self.near_miss, self.near_taint()) {
            return format!("tolerations[{}] misses {}", n.item, t.said(inventory));
        }
        let reasons = &self.verdict.reasons;
        let mut why: Vec<String> = reasons.iter().take(2).map(|r| r.describe(pool)).collect();
        if reasons.len() > 2 {
            why.push(format!("and {} more", reasons.len() - 2));
        }
        why.join(", ")
    }

    /// The same in a few words, for a code lens: `closest pool risk: tolerations[0] has value
    /// "rsk", not "risk"`, `closest pool gpu: nodeSelector pool=gpus does not match, +1 more`
    /// (to fit a width, [`lens_cause`]).
    pub fn short(&self, inventory: &Inventory) -> String {
        let pool = &inventory.pools[self.pool];
        match &self.near_miss {
            Some(n) => lens_cause(&pool.name, n, usize::MAX),
            None => format!(
                "closest pool {}: {}",
                pool.name,
                self.short_why(inventory, usize::MAX)
            ),
        }
    }

    /// [`Closest::short`] without the pool, in at most `width` characters where it can be:
    /// what a lens keeps when the pool's name leaves no room for it. Never cut before what keeps
    /// the template off the pool: the other reasons' count goes first, then an untolerated
    /// taint is said without the word `taint` (`untolerated
    /// node-role.kubernetes.io/control-plane:NoSchedule`); what is still too long is for the
    /// caller to cut at its end.
    pub fn short_why(&self, inventory: &Inventory, width: usize) -> String {
        let pool = &inventory.pools[self.pool];
        if let Some(n) = &self.near_miss {
            return format!("tolerations[{}] has {}", n.item, misses_short(&n.misses));
        }
        let reasons = &self.verdict.reasons;
        let Some(first) = reasons.first() else {
            return String::new();
        };
        let more = match reasons.len() {
            1 => String::new(),
            n => format!(", +{} more", n - 1),
        };
        let said = first.describe(pool);
        if said.chars().count() + more.chars().count() <= width {
            return format!("{said}{more}");
        }
        match first {
            // The taint whole, without the word `taint`.
            Reason::Taint(_) if said.chars().count() > width => {
                crate::schedule::placement::short(first, pool)
            }
            _ => said,
        }
    }
}

/// A near miss for a code lens of at most `width` characters, never cut before the answer (the
/// right key, value or effect): `closest pool risk: tolerations[0] has value "rsk", not
/// "risk"`, else without the pool, else with the wrong key or value cut in its middle, else the
/// answer alone (`tolerations[0] needs value "risk"`), which a lens may then cut at its end only.
pub fn lens_cause(pool: &str, near: &NearMiss, width: usize) -> String {
    let has = misses_short(&near.misses);
    let item = near.item;
    let fits = |s: &String| s.chars().count() <= width;
    let candidates = [
        format!("closest pool {pool}: tolerations[{item}] has {has}"),
        format!("tolerations[{item}] has {has}"),
    ];
    if let Some(s) = candidates.into_iter().find(fits) {
        return s;
    }
    // The wrong parts cut short: the right ones whole.
    let short = |s: &str| {
        let n = s.chars().count();
        if n <= 12 {
            s.to_string()
        } else {
            let head: String = s.chars().take(5).collect();
            let tail: String = s.chars().skip(n - 5).collect();
            format!("{head}…{tail}")
        }
    };
    let cut: Vec<String> = near
        .misses
        .iter()
        .map(|m| match m {
            Miss::Key { toleration, taint } => {
                format!("key `{}`, not `{taint}`", short(toleration))
            }
            Miss::Value { toleration, taint } => {
                format!(
                    "value {}, not {}",
                    go_quote(&short(toleration)),
                    go_quote(taint)
                )
            }
            other => misses_short(std::slice::from_ref(other)),
        })
        .collect();
    let s = format!("tolerations[{item}] has {}", cut.join("; "));
    if fits(&s) {
        return s;
    }
    let needs: Vec<String> = near
        .misses
        .iter()
        .map(|m| match m {
            Miss::Key { taint, .. } => format!("key `{taint}`"),
            Miss::Value { taint, .. } => format!("value {}", go_quote(taint)),
            Miss::Effect { taint, .. } => format!("effect {taint}"),
            other => other.to_string(),
        })
        .collect();
    format!("tolerations[{item}] needs {}", needs.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::model::{Effect, Operator};

    fn toleration(key: &str, value: &str) -> Toleration {
        Toleration {
            key: key.into(),
            operator: Operator::Equal,
            value: value.into(),
            effect: Some(Effect::NoSchedule),
            toleration_seconds: None,
        }
    }

    fn teams(names: &[&str]) -> Inventory {
        let mut pools = String::from("pools:\n  general:\n    count: 3\n");
        for n in names {
            pools.push_str(&format!(
                "  {n}:\n    count: 2\n    taints: [\"dedicated={n}:NoSchedule\"]\n"
            ));
        }
        Inventory::load(&[("pools.yaml", pools.as_str())]).unwrap()
    }

    /// Of taints that differ only in their value, the one whose value is fewest edits away is
    /// the closest, wherever it stands in the inventory.
    #[test]
    fn the_closest_value_is_the_fewest_edits_away() {
        let inv = teams(&["search", "ml", "risk", "payments"]);
        let near = closest_taint(&toleration("dedicated", "rsk"), &inv, false).unwrap();
        assert_eq!(inv.pools[near.pool].name, "risk");
        assert_eq!(
            near.said(&inv),
            "dedicated=risk:NoSchedule (value \"rsk\", not \"risk\")"
        );
        // A key a typo away, with the right value, is still near; another key is not.
        let near = closest_taint(&toleration("dedicatd", "ml"), &inv, false).unwrap();
        assert_eq!(inv.pools[near.pool].name, "ml");
        assert_eq!(closest_taint(&toleration("team", "ml"), &inv, false), None);
        // One that tolerates a taint has no closest.
        assert_eq!(
            closest_taint(&toleration("dedicated", "ml"), &inv, false),
            None
        );
        // Equally near (two edits each): the first met.
        let inv = teams(&["ab", "cd"]);
        let near = closest_taint(&toleration("dedicated", "xy"), &inv, false).unwrap();
        assert_eq!(inv.pools[near.pool].name, "ab");
        // A key a typo away weighs more than a value: `dedicatd=ab` (a key, one edit) comes
        // after `dedicated=xy` (a value, two edits).
        let dedicated = Taint {
            key: "dedicated".into(),
            value: "ab".into(),
            effect: Effect::NoSchedule,
        };
        assert_eq!(
            closeness(&toleration("dedicated", "xy"), &dedicated, false).rank(),
            (1, 2)
        );
        assert_eq!(
            closeness(&toleration("dedicatd", "ab"), &dedicated, false).rank(),
            (2, 1)
        );
    }

    #[test]
    fn a_lens_cause_keeps_the_answer_whole() {
        let near = |toleration: &str, taint: &str| NearMiss {
            toleration: 0,
            item: 2,
            taint: 0,
            misses: vec![Miss::Value {
                toleration: toleration.into(),
                taint: taint.into(),
            }],
        };
        assert_eq!(
            lens_cause("risk", &near("rsk", "risk"), 66),
            "closest pool risk: tolerations[2] has value \"rsk\", not \"risk\""
        );
        // Too long with the pool: without it.
        let n = near("rsk", "risk");
        assert_eq!(
            lens_cause("a-very-long-pool-name-for-the-risk-team", &n, 66),
            "tolerations[2] has value \"rsk\", not \"risk\""
        );
        // A long wrong value is cut in its middle, the right one kept whole.
        let long_wrong = "x".repeat(40);
        let s = lens_cause("risk", &near(&long_wrong, "risk-batch"), 66);
        assert_eq!(
            s,
            "tolerations[2] has value \"xxxxx…xxxxx\", not \"risk-batch\""
        );
        // A right value too long for the width with anything else: the answer alone.
        let right = "r".repeat(60);
        let s = lens_cause("risk", &near(&long_wrong, &right), 66);
        assert_eq!(s, format!("tolerations[2] needs value \"{right}\""));
    }
}
