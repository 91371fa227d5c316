//! Where a workload lands and what a toleration matches, in words: what an editor shows beside
//! a manifest (a code lens per pod template, a hint after each toleration) and what the CLI can
//! print, from the simulation the analysis already made. Pure: data in, text out.
//!
//! The data ([`Placement`], [`TolerationPlace`]) carries byte ranges into the analysed text,
//! so an editor converts positions at its edge; the words ([`summary`], [`Placement::details`],
//! [`describe_matches`], [`describe_eviction`]) depend only on the simulation and the
//! inventory.

use std::ops::Range;
use std::sync::Arc;

use crate::inventory::{nodes_noun, Inventory, NodeCount, Pool};
use crate::k8s::model::{Effect, Toleration};
use crate::k8s::objects::{Item, Object};
use crate::schedule::near::{self, NearMiss};
use crate::schedule::{PoolVerdict, Reason, Simulation, Workload};
use crate::syntax::Document;

/// How many names a one-line summary lists before "+N more".
const LISTED: usize = 4;

/// A pod template and where it fits, as found by the analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The YAML document's index in the stream.
    pub document: usize,
    /// Where to show it: the object's `kind: ...` entry (else its name, else the pod spec).
    pub anchor: Range<usize>,
    /// The whole object.
    pub range: Range<usize>,
    /// `Deployment shop/web`.
    pub title: String,
    /// Shared: an editor keeps a file's placements per YAML document and puts the file's
    /// together again after each edit, which must not copy (or free) every pool's verdicts.
    pub simulation: Arc<Simulation>,
    /// Whether it is a DaemonSet, asked the DaemonSet question.
    pub daemonset: bool,
    /// The pod spec's field path from the document root.
    pub path: String,
    /// When it fits no node: the pool that comes closest and what keeps it off, as the
    /// `unschedulable` finding states it (`pool gpu: tolerations[0] misses ...`).
    pub cause: Option<String>,
    /// The same without the pool's name, for a lens that has no room for it.
    pub cause_alone: Option<String>,
    /// When it fits no node and one of its tolerations only just misses a taint of the closest
    /// pool: that near miss, as every face says it.
    pub near: Option<PlacedNear>,
    /// Why the API server would reject it (or the pods it creates), if it would: then it runs
    /// nowhere, as `simulate` says, whatever the simulation found.
    pub rejected: Option<String>,
}

/// The near miss of a pod template that fits no node ([`crate::schedule::near`]), in words
/// made when it was found (the inventory may change before they are shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedNear {
    /// The toleration item's path from the document root.
    pub path: String,
    /// The closest pool's name.
    pub pool: String,
    /// The taint and the miss: `dedicated=risk:NoSchedule (value "rsk", not "risk")`.
    pub said: String,
    pub miss: NearMiss,
}

/// How wide a code lens may be: a lens is one line above the object, and wider than a narrow
/// editor window it is cut at the edge.
pub const LENS_WIDTH: usize = 80;

/// The width a workload's details ([`Placement::details`]) are wrapped at when the editor does
/// not say: a document beside the manifest, as VS Code shows them.
pub const DETAILS_WIDTH: usize = 80;

/// `text` cut to `width` characters, ending with `…` when cut.
pub fn fit_width(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

impl Placement {
    pub fn new(
        doc: &Document<'_>,
        object: &Object<'_>,
        workload: &Workload<'_>,
        simulation: Arc<Simulation>,
    ) -> Placement {
        let span = |id| doc.node(id).span.clone();
        let entry = |key: &str| {
            doc.get(object.node, key)
                .map(|(k, v)| span(k).start..span(v).end)
        };
        let name = doc
            .get(object.node, "metadata")
            .and_then(|(_, m)| doc.get(m, "name"))
            .map(|(k, v)| span(k).start..span(v).end);
        // A custom resource may hold several pod templates (a RayCluster's head and workers):
        // each is shown where it is, named by its own name.
        let api_version = doc.get_str(object.node, "apiVersion");
        let custom = object
            .kind
            .is_some_and(|k| !crate::k8s::objects::is_core_workload(api_version, k));
        let first_key = doc
            .mapping(workload.spec)
            .and_then(|e| e.first())
            .map(|&(k, v)| span(k).start..span(v).end);
        let anchor = if custom {
            first_key.unwrap_or_else(|| span(workload.spec))
        } else {
            entry("kind")
                .or(name)
                .unwrap_or_else(|| span(workload.spec))
        };
        let title = crate::k8s::parts::object_title(object, workload.part.as_deref());
        Placement {
            document: doc.index,
            anchor,
            range: span(object.node),
            title,
            simulation,
            daemonset: workload.kind == Some("DaemonSet"),
            path: workload.path.clone(),
            cause: None,
            cause_alone: None,
            near: None,
            rejected: None,
        }
    }

    /// The one-line summary, at most [`LENS_WIDTH`] characters: [`Placement::headline`], cut
    /// at its end; a near miss is said short enough to keep the answer (the right key, value
    /// or effect) whole ([`near::lens_cause`]), and a pool's name too long to leave room for
    /// what keeps the workload off it is left out, as is a DaemonSet's count of nodes.
    pub fn summary(&self, inventory: &Inventory) -> String {
        if let (None, Some(n)) = (&self.rejected, &self.near) {
            const LEAD: &str = "fits no node: ";
            let cause = near::lens_cause(&n.pool, &n.miss, LENS_WIDTH - LEAD.len());
            return fit_width(&format!("{LEAD}{cause}"), LENS_WIDTH);
        }
        if self.rejected.is_none() && self.cause.is_none() && self.daemonset {
            if let Some(text) = daemonset_lens(&self.simulation, inventory) {
                return text;
            }
        }
        let headline = self.headline(inventory);
        match (&self.rejected, &self.cause_alone) {
            (None, Some(why)) if headline.chars().count() > LENS_WIDTH => {
                fit_width(&format!("fits no node: {why}"), LENS_WIDTH)
            }
            _ => fit_width(&headline, LENS_WIDTH),
        }
    }

    /// What matters first, whole: that the API server rejects it, else the closest pool and
    /// what keeps it off when it fits no node (as the `unschedulable` finding says), else what a
    /// DaemonSet misses, else [`summary`].
    pub fn headline(&self, inventory: &Inventory) -> String {
        if let Some(why) = &self.rejected {
            format!("rejected by the API server: {why}")
        } else if let Some(cause) = &self.cause {
            format!("fits no node: {cause}")
        } else if let Some(text) = self
            .daemonset
            .then(|| daemonset_summary(&self.simulation, inventory))
            .flatten()
        {
            text
        } else {
            summary(&self.simulation, inventory)
        }
    }

    /// What running its lens shows: `Title: headline` (leading with the cause, as the lens
    /// does), then every pool's verdict and reasons, one pool a paragraph. One line per thing,
    /// unwrapped: an editor wraps it to its window (`report::text::wrap_lines`).
    pub fn details(&self, inventory: &Inventory) -> String {
        let mut out = format!(
            "{}: {}
",
            self.title,
            self.headline(inventory)
        );
        out.push_str(&verdicts(&self.simulation, inventory));
        out
    }
}

/// For a DaemonSet that does not run on every node it picks: `DaemonSet: selects no node`, or
/// `DaemonSet: runs on 2 of the 3 nodes it selects; misses pool gpu-spot: untolerated taint
/// spot=true:NoSchedule`. `None` when it runs on every node it picks.
pub fn daemonset_summary(sim: &Simulation, inventory: &Inventory) -> Option<String> {
    daemonset_said(sim, inventory, usize::MAX)
}

/// [`daemonset_summary`] as a code lens says it: at most [`LENS_WIDTH`] characters, what keeps
/// the DaemonSet off the first pool it misses whole where it can be (`daemonset_said`).
pub fn daemonset_lens(sim: &Simulation, inventory: &Inventory) -> Option<String> {
    daemonset_said(sim, inventory, LENS_WIDTH).map(|s| fit_width(&s, LENS_WIDTH))
}

/// [`daemonset_summary`] in at most `width` characters where it can be, never cut before what
/// keeps it off the first pool it misses (the answer): without how many nodes it runs on
/// (`DaemonSet misses pool gpu-spot: untolerated taint spot=true:NoSchedule; +1 more pool`),
/// then in a lens's few words (`untolerated spot=true:NoSchedule`), then without the other
/// pools, then without the pool's name (`DaemonSet misses 2 nodes: untolerated ...`); what is
/// still too long is for the caller to cut at its end.
fn daemonset_said(sim: &Simulation, inventory: &Inventory, width: usize) -> Option<String> {
    let c = sim.coverage(inventory);
    if c.picked == 0 {
        return Some("DaemonSet: selects no node (it runs no pods until a node matches)".into());
    }
    if c.missed == 0 {
        return None;
    }
    // What keeps it off a pool it misses, in full words or in a lens's few
    // (`untolerated spot=true:NoSchedule`, [`short`]).
    let words = |p: usize, brief: bool| -> String {
        let pool = &inventory.pools[p];
        let mut why: Vec<String> = Vec::new();
        for r in sim.pools[p]
            .reasons(pool)
            .into_iter()
            .filter(|r| !r.selects())
        {
            let said = if brief {
                short(r, pool)
            } else {
                r.describe(pool)
            };
            if !why.contains(&said) {
                why.push(said);
            }
        }
        why.join(", ")
    };
    let why = |p: usize| words(p, false);
    let mut misses: Vec<String> = Vec::new();
    for &p in c.missed_pools.iter().take(LISTED) {
        misses.push(format!("pool {}: {}", inventory.pools[p].name, why(p)));
    }
    if c.missed_pools.len() > LISTED {
        misses.push(format!("+{} more", c.missed_pools.len() - LISTED));
    }
    let whole = format!(
        "DaemonSet: runs on {} of the {} it selects; misses {}",
        c.picked - c.missed,
        nodes_noun(c.picked),
        misses.join("; ")
    );
    let fits = |s: &String| s.chars().count() <= width;
    if fits(&whole) {
        return Some(whole);
    }
    let &first = c.missed_pools.first()?;
    let more = match c.missed_pools.len() {
        1 => String::new(),
        n => format!("; +{} more pool{}", n - 1, if n == 2 { "" } else { "s" }),
    };
    let name = &inventory.pools[first].name;
    let candidates = [
        format!("DaemonSet misses pool {name}: {}{more}", why(first)),
        format!("DaemonSet misses pool {name}: {}{more}", words(first, true)),
        format!("DaemonSet misses pool {name}: {}", words(first, true)),
        format!(
            "DaemonSet misses {}: {}",
            nodes_noun(c.missed),
            words(first, true)
        ),
    ];
    let last = candidates[3].clone();
    Some(candidates.into_iter().find(fits).unwrap_or(last))
}

/// A toleration written in a manifest and the inventory taints it tolerates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TolerationPlace {
    /// The item, from its `- ` to its last character.
    pub item: Range<usize>,
    /// The `tolerationSeconds` value, when set.
    pub seconds: Option<Range<usize>>,
    pub toleration: Toleration,
    /// The taints it tolerates: (pool, index in the pool's taints).
    pub tolerated: Vec<(u32, u32)>,
}

impl TolerationPlace {
    /// `None` for an item that is not a toleration the API server would accept.
    pub fn new(
        text: &str,
        doc: &Document<'_>,
        item: &Item<'_>,
        inventory: &Inventory,
        gate: bool,
    ) -> Option<TolerationPlace> {
        let toleration = item.toleration()?;
        Some(TolerationPlace {
            item: item_range(text, doc, item),
            seconds: item
                .field("tolerationSeconds")
                .map(|f| doc.node(f.value).span.clone()),
            tolerated: tolerated_taints(&toleration, inventory, gate),
            toleration,
        })
    }
}

/// An item's span, widened to the `- ` that introduces it in a block sequence, and ending at
/// its last character (a block mapping's span runs on to the next token).
pub fn item_range(text: &str, doc: &Document<'_>, item: &Item<'_>) -> Range<usize> {
    let span = doc.node(item.node).span.clone();
    let end = span.start + text[span.clone()].trim_end().len();
    let before = &text[..span.start];
    let trimmed = before.trim_end_matches([' ', '\t']);
    let start = match trimmed.strip_suffix('-') {
        Some(rest) if rest.is_empty() || rest.ends_with([' ', '\t', '\n', '\r']) => rest.len(),
        _ => span.start,
    };
    start..end
}

/// The inventory's taints a toleration tolerates: (pool, index in the pool's taints).
pub fn tolerated_taints(t: &Toleration, inventory: &Inventory, gate: bool) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (p, pool) in inventory.pools.iter().enumerate() {
        for (i, pt) in pool.taints.iter().enumerate() {
            if t.tolerates(&pt.taint, gate) {
                out.push((p as u32, i as u32));
            }
        }
    }
    out
}

/// What a toleration matches, in a few words: `tolerates 2 taints on 1 pool (2 nodes)`, or
/// `matches no taint in the inventory`.
pub fn describe_matches(tolerated: &[(u32, u32)], inventory: &Inventory) -> String {
    if tolerated.is_empty() {
        return "matches no taint in the inventory".to_string();
    }
    let mut taints = Vec::new();
    let mut pools: Vec<u32> = Vec::new();
    for &(p, i) in tolerated {
        let taint = &inventory.pools[p as usize].taints[i as usize].taint;
        if !taints.contains(&taint) {
            taints.push(taint);
        }
        if !pools.contains(&p) {
            pools.push(p);
        }
    }
    let nodes: NodeCount = pools
        .iter()
        .map(|&p| inventory.pools[p as usize].node_count())
        .sum();
    let taint_words = if taints.len() == 1 {
        format!("tolerates {}", taints[0])
    } else {
        format!("tolerates {} taints", taints.len())
    };
    format!(
        "{taint_words} on {} pool{} ({nodes})",
        pools.len(),
        if pools.len() == 1 { "" } else { "s" },
    )
}

/// How wide an inlay hint may be: VS Code cuts hints at 43 characters by default
/// (`editor.inlayHints.maximumLength`).
pub const HINT_WIDTH: usize = 43;

/// What a toleration matches, for an inlay hint after it (at most [`HINT_WIDTH`] characters):
/// the pools, since the line already says the key: `tolerates pool gpu (2 nodes)`,
/// `tolerates pools gpu, spot (4 nodes)`, `matches no inventory taint`.
pub fn hint_matches(tolerated: &[(u32, u32)], inventory: &Inventory) -> String {
    if tolerated.is_empty() {
        return "matches no inventory taint".to_string();
    }
    let mut pools: Vec<u32> = Vec::new();
    for &(p, _) in tolerated {
        if !pools.contains(&p) {
            pools.push(p);
        }
    }
    let nodes: NodeCount = pools
        .iter()
        .map(|&p| inventory.pools[p as usize].node_count())
        .sum();
    let names: Vec<&str> = pools
        .iter()
        .map(|&p| inventory.pools[p as usize].name.as_str())
        .collect();
    let pools_word = if names.len() == 1 { "pool" } else { "pools" };
    let full = format!("tolerates {pools_word} {} ({nodes})", names.join(", "));
    if full.chars().count() <= HINT_WIDTH {
        return full;
    }
    let short = format!("tolerates {} {pools_word} ({nodes})", names.len());
    fit_width(&short, HINT_WIDTH)
}

/// The toleration's `tolerationSeconds` and the first NoExecute taint of the inventory it
/// tolerates (`tolerated`: pool and taint indices), when it has both.
fn evicting<'i>(
    t: &Toleration,
    tolerated: &[(u32, u32)],
    inventory: &'i Inventory,
) -> Option<(i64, &'i crate::k8s::model::Taint)> {
    let seconds = t.toleration_seconds?;
    let taint = tolerated
        .iter()
        .map(|&(p, i)| &inventory.pools[p as usize].taints[i as usize].taint)
        .find(|taint| taint.effect == Effect::NoExecute)?;
    Some((seconds, taint))
}

/// [`describe_eviction`] for an inlay hint: `evicted 600 s after spot taints`, at most
/// [`HINT_WIDTH`] characters.
pub fn hint_eviction(
    t: &Toleration,
    tolerated: &[(u32, u32)],
    inventory: &Inventory,
) -> Option<String> {
    let (seconds, taint) = evicting(t, tolerated, inventory)?;
    let when = if seconds <= 0 {
        "evicted at once".to_string()
    } else {
        format!("evicted {seconds} s after")
    };
    let full = format!("{when} {} taints", taint.key);
    Some(if full.chars().count() <= HINT_WIDTH {
        full
    } else {
        format!("{when} the NoExecute taint")
    })
}

/// When `tolerationSeconds` matters (the toleration tolerates a NoExecute taint of the
/// inventory): `evicted 600 s after batch.example.com/spot taints its node`.
pub fn describe_eviction(
    t: &Toleration,
    tolerated: &[(u32, u32)],
    inventory: &Inventory,
) -> Option<String> {
    let (seconds, taint) = evicting(t, tolerated, inventory)?;
    Some(if seconds <= 0 {
        format!("evicted at once when {} taints its node", taint.key)
    } else {
        format!("evicted {seconds} s after {} taints its node", taint.key)
    })
}

/// How a workload fits one pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    All,
    /// Every node fits, but only as a node to avoid (an untolerated PreferNoSchedule taint).
    Avoided,
    /// Some of the pool's nodes.
    Some(usize),
    /// If labels the pool's definition does not declare are set elsewhere.
    Maybe,
    None,
}

fn fit(verdict: &PoolVerdict, pool: &Pool) -> Fit {
    let fitting = verdict.fitting(pool);
    if fitting == 0 {
        Fit::None
    } else if verdict.uncertain(pool) {
        Fit::Maybe
    } else if fitting < pool.nodes.len() {
        Fit::Some(fitting)
    } else if verdict.avoided(pool) == fitting {
        Fit::Avoided
    } else {
        Fit::All
    }
}

/// A reason in a word or two, for a one-line summary.
pub(crate) fn short(reason: &Reason, pool: &Pool) -> String {
    match reason {
        Reason::Unschedulable => "cordoned".to_string(),
        Reason::NodeName(n) => format!("nodeName {n}"),
        Reason::Taint(i) => format!("untolerated {}", pool.taints[*i].taint),
        Reason::NodeSelector { .. } => "nodeSelector".to_string(),
        Reason::NodeAffinity(_) => "node affinity".to_string(),
        Reason::Requirements(_) => "pool requirements".to_string(),
        Reason::TopologyKey(key) => format!("no label {key}"),
        Reason::Insufficient { resource, .. } => format!("insufficient {resource}"),
    }
}

/// Names, at most [`LISTED`] of them, then `+N more`.
fn listed(names: &[String]) -> String {
    let mut out = names
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LISTED {
        out.push_str(&format!(", +{} more", names.len() - LISTED));
    }
    out
}

/// Where a workload fits, in one line: `fits 2 of 3 pools (3 nodes): gpu, batch~` (`~`: only as
/// nodes to avoid; `web 2/5`: on 2 of the pool's 5 nodes), or why it fits nowhere:
/// `fits no node: untolerated dedicated=gpu:NoSchedule (gpu), nodeSelector (web, batch)`.
pub fn summary(sim: &Simulation, inventory: &Inventory) -> String {
    let mut fitting = Vec::new();
    let mut nodes = NodeCount::exact(0);
    for (v, pool) in sim.pools.iter().zip(&inventory.pools) {
        match fit(v, pool) {
            Fit::None => continue,
            Fit::All => fitting.push(pool.name.clone()),
            Fit::Avoided => fitting.push(format!("{}~", pool.name)),
            Fit::Some(n) => fitting.push(format!("{} {n}/{}", pool.name, pool.nodes.len())),
            Fit::Maybe => fitting.push(format!("{}?", pool.name)),
        }
        nodes = nodes + pool.nodes_of(v.fitting(pool));
    }
    let total = inventory.pools.len();
    if !fitting.is_empty() {
        return format!(
            "fits {} of {total} pool{} ({nodes}): {}",
            fitting.len(),
            if total == 1 { "" } else { "s" },
            listed(&fitting)
        );
    }
    // Each short reason with the pools it blocks, in order of first appearance.
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (v, pool) in sim.pools.iter().zip(&inventory.pools) {
        for r in v.reasons(pool) {
            let text = short(r, pool);
            match groups.iter_mut().find(|(t, _)| *t == text) {
                Some((_, pools)) => {
                    if !pools.contains(&pool.name) {
                        pools.push(pool.name.clone())
                    }
                }
                None => groups.push((text, vec![pool.name.clone()])),
            }
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(text, pools)| format!("{text} ({})", listed(pools)))
        .collect();
    format!("fits no node: {}", listed(&parts))
}

/// Every pool's verdict and reasons, one pool a paragraph (each after an empty line).
fn verdicts(sim: &Simulation, inventory: &Inventory) -> String {
    let mut out = String::new();
    for (v, pool) in sim.pools.iter().zip(&inventory.pools) {
        let head = format!("\npool {} ({})", pool.name, pool.size());
        let fitting = v.fitting(pool);
        let verdict = match fit(v, pool) {
            Fit::All => "fits".to_string(),
            Fit::Avoided => "fits, but as a node to avoid".to_string(),
            Fit::Some(n) => format!("fits {} of them", nodes_noun(n)),
            Fit::Maybe => {
                let mut why: Vec<String> = Vec::new();
                let mut keys: Vec<String> = Vec::new();
                for (g, _, _) in v.groups(pool) {
                    for u in &g.unknown {
                        // The labels a definition does not declare are said together.
                        if u.said_alone() {
                            let text = u.describe();
                            if !why.contains(&text) {
                                why.push(text);
                            }
                        } else if !keys.contains(&u.key) {
                            keys.push(u.key.clone());
                        }
                    }
                }
                if !keys.is_empty() {
                    why.insert(
                        0,
                        format!(
                            "its definition does not declare the label{} {} (it may be set \
                             elsewhere)",
                            if keys.len() > 1 { "s" } else { "" },
                            keys.join(", ")
                        ),
                    );
                }
                format!("may fit: {}", why.join("; "))
            }
            Fit::None => "does not fit".to_string(),
        };
        out.push_str(&format!("{head}: {verdict}\n"));
        for r in v.reasons(pool) {
            out.push_str(&format!("  - {}\n", r.explain(pool)));
        }
        if fitting > 0 {
            let mut avoid: Vec<usize> = Vec::new();
            let mut eviction = None;
            for (verdict, _, _) in v.groups(pool) {
                if !verdict.fits() {
                    continue;
                }
                for &i in &verdict.avoid {
                    if !avoid.contains(&i) {
                        avoid.push(i);
                    }
                }
                eviction = eviction.or(verdict.eviction.as_ref());
            }
            for (t, source) in v.tolerated_elsewhere(pool) {
                out.push_str(&format!(
                    "  - tolerates {} by a toleration {}\n",
                    pool.taints[t].taint,
                    source.origin()
                ));
            }
            for i in avoid {
                out.push_str(&format!(
                    "  - avoided: untolerated {}\n",
                    pool.taints[i].taint
                ));
            }
            if let Some(e) = eviction {
                out.push_str(&format!(
                    "  - evicted {} s after {} taints the node\n",
                    e.seconds, pool.taints[e.taint].taint.key
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;
    use crate::k8s::objects::{extract, items};
    use crate::schedule::simulate;
    use crate::syntax;

    const POOLS: &str = "\
pools:
  gpu:
    nodes: [gpu-1]
    taints: [\"team.example.com/inference=a:NoSchedule\"]
    labels: {disk: ssd}
  batch:
    nodes: [batch-1, batch-2]
    taints: [\"batch.example.com/spot=true:PreferNoSchedule\", \"batch.example.com/spot=true:NoExecute\"]
    labels: {disk: ssd}
  web:
    nodes: [web-1, web-2, web-3]
    labels: {disk: hdd}
";

    fn inventory() -> Inventory {
        Inventory::load(&[("pools.yaml", POOLS)]).unwrap()
    }

    /// The placements and toleration places of the first document of `text`.
    fn analyse(text: &str) -> (Vec<Placement>, Vec<TolerationPlace>) {
        let inv = inventory();
        let options = Options::default();
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let mut placements = Vec::new();
        for i in 0..ex.pod_specs.len() {
            let w = Workload::new(doc, &ex, i, &options);
            let sim = simulate(&w, &inv, &options);
            placements.push(Placement::new(
                doc,
                &ex.objects[w.object],
                &w,
                Arc::new(sim),
            ));
        }
        let mut places = Vec::new();
        for list in &ex.tolerations {
            for item in items(doc, &list.list) {
                places.extend(TolerationPlace::new(text, doc, &item, &inv, false));
            }
        }
        (placements, places)
    }

    #[test]
    fn a_workload_that_fits_lists_its_pools() {
        let text = "\
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      nodeSelector: {disk: ssd}
      tolerations:
      - key: team.example.com/inference
        operator: Exists
      - {key: batch.example.com/spot, operator: Exists, effect: NoExecute, tolerationSeconds: 600}
";
        let (placements, places) = analyse(text);
        let inv = inventory();
        assert_eq!(placements.len(), 1);
        let p = &placements[0];
        assert_eq!(&text[p.anchor.clone()], "kind: Deployment");
        assert_eq!(p.title, "Deployment shop/web");
        assert_eq!(p.summary(&inv), "fits 2 of 3 pools (3 nodes): gpu, batch~");
        let details = p.details(&inv);
        assert!(
            details.starts_with("Deployment shop/web: fits 2 of 3 pools (3 nodes): gpu, batch~\n")
        );
        assert!(
            details.contains("pool web (3 nodes): does not fit\n  - nodeSelector disk=ssd does not match (the node has disk=hdd)"),
            "{details}"
        );
        assert!(
            details.contains("pool batch (2 nodes): fits, but as a node to avoid\n  - avoided: untolerated batch.example.com/spot=true:PreferNoSchedule\n  - evicted 600 s after batch.example.com/spot taints the node"),
            "{details}"
        );

        assert_eq!(places.len(), 2);
        assert_eq!(
            &text[places[0].item.clone()],
            "- key: team.example.com/inference\n        operator: Exists"
        );
        assert_eq!(
            describe_matches(&places[0].tolerated, &inv),
            "tolerates team.example.com/inference=a:NoSchedule on 1 pool (1 node)"
        );
        assert_eq!(
            describe_eviction(&places[0].toleration, &places[0].tolerated, &inv),
            None
        );
        assert_eq!(
            describe_matches(&places[1].tolerated, &inv),
            "tolerates batch.example.com/spot=true:NoExecute on 1 pool (2 nodes)"
        );
        assert_eq!(&text[places[1].seconds.clone().unwrap()], "600");
        assert_eq!(
            describe_eviction(&places[1].toleration, &places[1].tolerated, &inv).unwrap(),
            "evicted 600 s after batch.example.com/spot taints its node"
        );
    }

    /// A RuntimeClass's toleration places the workload: the details say so.
    #[test]
    fn the_details_say_where_a_placing_toleration_came_from() {
        let inv = inventory();
        let mut options = Options::default();
        let mut cluster = crate::k8s::cluster::Cluster::default();
        cluster.add_text(
            "classes.yaml",
            "kind: RuntimeClass\nmetadata: {name: gpu}\nhandler: runc\nscheduling:\n  tolerations: [{key: team.example.com/inference, operator: Exists}]\n",
        );
        options.set_cluster(std::sync::Arc::new(cluster));
        let text = "kind: Pod\nmetadata: {name: p}\nspec:\n  runtimeClassName: gpu\n  containers: [{name: c, image: i}]\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let w = Workload::new(doc, &ex, 0, &options);
        let sim = simulate(&w, &inv, &options);
        let details = verdicts(&sim, &inv);
        assert!(
            details.contains("pool gpu (1 node): fits\n  - tolerates team.example.com/inference=a:NoSchedule by a toleration RuntimeClass gpu adds (scheduling.tolerations[0])"),
            "{details}"
        );
    }

    #[test]
    fn a_workload_that_fits_nowhere_says_why_per_pool() {
        let text = "\
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {disk: nvme}
  tolerations:
  - {key: nothing.example.com/here, operator: Exists}
  - {operator: Exists}
";
        let (placements, places) = analyse(text);
        let inv = inventory();
        assert_eq!(
            placements[0].summary(&inv),
            "fits no node: nodeSelector (gpu, batch, web)"
        );
        assert_eq!(
            describe_matches(&places[0].tolerated, &inv),
            "matches no taint in the inventory"
        );
        assert_eq!(
            describe_matches(&places[1].tolerated, &inv),
            "tolerates 3 taints on 2 pools (3 nodes)"
        );

        let text = "kind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {disk: ssd}\n";
        let (placements, _) = analyse(text);
        assert_eq!(
            summary(&placements[0].simulation, &inv),
            "fits no node: untolerated team.example.com/inference=a:NoSchedule (gpu), \
             untolerated batch.example.com/spot=true:NoExecute (batch), nodeSelector (web)"
        );
        // A lens is one line: cut at the width, and saying so.
        let lens = placements[0].summary(&inv);
        assert_eq!(lens.chars().count(), LENS_WIDTH, "{lens}");
        assert!(lens.ends_with('…') && lens.starts_with("fits no node: untolerated"));
    }

    /// The placement of the first pod template of `text` against `inv`.
    fn placed(text: &str, inv: &Inventory) -> Placement {
        let options = Options::default();
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let ex = extract(doc);
        let w = Workload::new(doc, &ex, 0, &options);
        let sim = simulate(&w, inv, &options);
        Placement::new(doc, &ex.objects[w.object], &w, Arc::new(sim))
    }

    /// `count` pools `a`, `b`, ... of one node each, each with its own NoSchedule taint, and
    /// an untainted pool `plain`.
    fn tainted_pools(count: usize) -> Inventory {
        let mut pools = String::from("pools:\n  plain:\n    nodes: [plain-1]\n");
        for name in ["a", "b", "c", "d", "e"].iter().take(count) {
            pools.push_str(&format!(
                "  {name}:\n    nodes: [{name}-1]\n    taints: [\"t.example.com/{name}=x:NoSchedule\"]\n"
            ));
        }
        Inventory::load(&[("pools.yaml", pools.as_str())]).unwrap()
    }

    /// At most four names, then how many more.
    #[test]
    fn a_summary_lists_four_pools_then_counts_the_rest() {
        let pod = "kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations: [{operator: Exists}]\n";
        assert_eq!(
            placed(pod, &tainted_pools(3)).summary(&tainted_pools(3)),
            "fits 4 of 4 pools (4 nodes): plain, a, b, c"
        );
        assert_eq!(
            placed(pod, &tainted_pools(4)).summary(&tainted_pools(4)),
            "fits 5 of 5 pools (5 nodes): plain, a, b, c, +1 more"
        );
    }

    #[test]
    fn a_daemonset_names_four_pools_it_misses_then_counts_the_rest() {
        let ds = "kind: DaemonSet\nmetadata: {name: agent}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n";
        let headline = |count| {
            let inv = tainted_pools(count);
            placed(ds, &inv).headline(&inv)
        };
        let missed = |names: &[&str]| {
            names
                .iter()
                .map(|n| format!("pool {n}: untolerated taint t.example.com/{n}=x:NoSchedule"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        assert_eq!(
            headline(4),
            format!(
                "DaemonSet: runs on 1 of the 5 nodes it selects; misses {}",
                missed(&["a", "b", "c", "d"])
            )
        );
        assert_eq!(
            headline(5),
            format!(
                "DaemonSet: runs on 1 of the 6 nodes it selects; misses {}; +1 more",
                missed(&["a", "b", "c", "d"])
            )
        );
    }

    /// A pod bound to one node by `nodeName` fits that node of its pool, not the pool.
    #[test]
    fn a_workload_that_fits_some_nodes_of_a_pool_says_how_many() {
        let inv = inventory();
        let p = placed(
            "kind: Pod\nmetadata: {name: p}\nspec:\n  nodeName: web-2\n",
            &inv,
        );
        assert_eq!(p.summary(&inv), "fits 1 of 3 pools (1 node): web 1/3");
        let details = p.details(&inv);
        assert!(
            details.contains("\npool web (3 nodes): fits 1 node of them\n"),
            "{details}"
        );
    }

    /// A pool defined as code (an eksctl node group, imitating eksctl-io/eksctl's examples) that
    /// does not declare a label the pod selects, nor what its nodes offer: the details say why
    /// it may fit.
    #[test]
    fn the_details_say_why_a_pool_may_fit() {
        let inv = Inventory::load(&[(
            "cluster.yaml",
            "\
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: c, region: us-west-1}
nodeGroups:
- name: general
  desiredCapacity: 2
  instanceSelector: {vCPUs: 2, memory: 4GiB}
",
        )])
        .unwrap();
        let pod = "\
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {team.example.com/owner: ml, team.example.com/tier: batch}
  containers:
  - {name: a, image: i, resources: {requests: {cpu: 500}}}
";
        let details = placed(pod, &inv).details(&inv);
        assert_eq!(
            details,
            "Pod p: fits 1 of 1 pool (2 nodes): general?\n\npool general (2 nodes): may fit: its \
             definition does not declare the labels team.example.com/owner, \
             team.example.com/tier (it may be set elsewhere); requests 500 cpu: the pool does \
             not say how much cpu its nodes offer; it fits if they offer enough\n"
        );
    }

    /// A pool file that does not give its nodes' operating system: the kubelet's label is on
    /// every node, with a value the inventory does not say, and the details say so in its words
    /// (not as a label a definition does not declare).
    #[test]
    fn the_details_say_a_kubelet_label_is_not_given() {
        let inv = Inventory::load(&[("pools.yaml", "pools:\n  general:\n    count: 2\n")]).unwrap();
        let pod = "\
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {kubernetes.io/os: linux}
  containers: [{name: a, image: i}]
";
        assert_eq!(
            placed(pod, &inv).details(&inv),
            "Pod p: fits 1 of 1 pool (2 nodes): general?\n\npool general (2 nodes): may fit: \
             nodeSelector kubernetes.io/os=linux: the kubelet sets kubernetes.io/os on every \
             node, and the inventory does not say its value on this pool's nodes; it fits if it \
             is linux\n"
        );
    }

    /// An item's range starts at the `- ` that introduces it.
    #[test]
    fn item_ranges_start_at_the_dash() {
        let text =
            "tolerations:\n- &gpu- {key: a, operator: Exists}\n- {key: b, operator: Exists}\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let list = doc.get(doc.root.unwrap(), "tolerations").unwrap().1;
        let list = crate::k8s::objects::List {
            node: list,
            key: list,
            path: "tolerations".into(),
            object: None,
            whole: false,
        };
        let ranges: Vec<&str> = items(doc, &list)
            .iter()
            .map(|i| &text[item_range(text, doc, i)])
            .collect();
        // A dash that ends an anchor's name is no item's: that item starts at its node.
        assert_eq!(
            ranges,
            ["{key: a, operator: Exists}", "- {key: b, operator: Exists}"]
        );
    }

    #[test]
    fn fit_width_cuts_at_a_character() {
        assert_eq!(fit_width("short", 80), "short");
        assert_eq!(fit_width("ab cdé fgh", 7), "ab cdé…");
        assert_eq!(fit_width("ab cd efgh", 6), "ab cd…");
        assert_eq!(fit_width("ab cd efgh", 7), "ab cd…");
    }
}
