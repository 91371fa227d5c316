//! Workloads by node pools, for people, at any cluster size and terminal width.
//!
//! The pools are a legend (a letter, name, size and taints each); the workloads follow, those
//! that fit no node first, then those the API server would reject, those that fit only nodes to
//! avoid, those that only may fit (counted apart), and those that fit. Each is a row of the
//! matrix (a column per pool letter) when the pools fit the width as columns, else a line saying
//! where it fits. What blocks a workload is
//! said under it when it fits nowhere or only on nodes to avoid (for every row with `why`).
//! Widths are display widths (a CJK character takes two columns); names are never cut: one that
//! does not fit its column gets a line of its own.

use super::{pool_reasons, Fit, PoolReason, SimulatedFile};
use crate::inventory::{nodes_noun, Inventory, NodeCount, Pool};
use crate::k8s::model::Effect;
use crate::report::text::{width, wrap};
use crate::schedule::{Reason, WorkloadResult};

/// How to render.
#[derive(Debug, Clone)]
pub struct HumanOptions {
    /// The width to fit, in terminal columns.
    pub width: usize,
    /// Say what blocks every workload, not only those that fit nowhere or only on nodes to avoid.
    pub why: bool,
    /// Show only the workloads that fit the cluster so (`Fit::No` includes those the API server
    /// rejects); empty: all.
    pub only: Vec<Fit>,
}

impl Default for HumanOptions {
    fn default() -> Self {
        HumanOptions {
            width: 100,
            why: false,
            only: Vec::new(),
        }
    }
}

/// The narrowest width rendered: below it, lines are as long as they must be.
const MIN_WIDTH: usize = 40;
/// The narrowest name column of the matrix; with less room, the list form is used.
const MIN_NAME: usize = 16;
/// The widest name column of the pool legend (longer names get a line of their own).
const POOL_NAME: usize = 24;
/// How many workloads of a kind the summary names.
const NAMED: usize = 10;
/// Where reasons start under a row, and where their wrapped lines go on.
const REASON_INDENT: usize = 6;

/// A column label for the `i`th pool: A..Z, then AA, AB, ...
fn column(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.insert(0, (b'A' + (i % 26) as u8) as char);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    s
}

/// `s` padded with spaces to `w` columns.
fn pad(s: &str, w: usize) -> String {
    format!("{s}{}", " ".repeat(w.saturating_sub(width(s))))
}

/// `text` split into lines of at most `w` columns, each starting at a character (a word longer
/// than the line is broken, never dropped).
fn hard_wrap(text: &str, w: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    let mut len = 0;
    for c in text.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if len + cw > w && len > 0 {
            lines.push(String::new());
            len = 0;
        }
        lines.last_mut().expect("one line at least").push(c);
        len += cw;
    }
    lines
}

/// Items three spaces apart, as many to a line as fit.
fn items(items: &[&str], max: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for item in items {
        if !line.is_empty() && width(&line) + 3 + width(item) > max {
            out.push_str(&format!("{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push_str("   ");
        }
        line.push_str(item);
    }
    format!("{out}{line}\n")
}

/// A workload's name on its own lines, at `indent`, broken only if longer than the width.
fn name_lines(name: &str, indent: usize, max: usize) -> String {
    let mut out = String::new();
    for (i, part) in hard_wrap(name, max.saturating_sub(indent + 2).max(1))
        .iter()
        .enumerate()
    {
        let at = if i == 0 { indent } else { indent + 2 };
        out.push_str(&format!("{}{part}\n", " ".repeat(at)));
    }
    out
}

/// Pool letters, runs of three or more as ranges: `A-C E F`.
fn letters(pools: &[usize], total: usize) -> String {
    if pools.len() == total && total > 1 {
        return "every pool".to_string();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pools.len() {
        let mut j = i;
        while j + 1 < pools.len() && pools[j + 1] == pools[j] + 1 {
            j += 1;
        }
        if j >= i + 2 {
            parts.push(format!("{}-{}", column(pools[i]), column(pools[j])));
        } else {
            parts.extend((i..=j).map(|k| column(pools[k])));
        }
        i = j + 1;
    }
    parts.join(" ")
}

/// Where a workload stands, in the order the output shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    No,
    /// A DaemonSet that cannot run on some of the nodes it picks.
    Misses,
    Rejected,
    Avoided,
    /// Every pool it fits only may fit (what the inventory does not say decides).
    May,
    Yes,
    /// A DaemonSet whose selector picks no node: it runs no pods, by design or not yet.
    Idle,
}

impl Class {
    fn of(w: &WorkloadResult, inventory: &Inventory) -> (Class, NodeCount) {
        if w.rejected.is_some() {
            return (Class::Rejected, NodeCount::default());
        }
        match &w.daemonset {
            Some(c) if c.picked == 0 => return (Class::Idle, NodeCount::default()),
            Some(c) if c.missed > 0 && c.missed + c.maybe_missed < c.picked => {
                return (
                    Class::Misses,
                    NodeCount::exact((c.picked - c.missed) as u64),
                )
            }
            _ => {}
        }
        let (fit, _) = Fit::verdict(w, inventory);
        let nodes = w
            .simulation
            .pools
            .iter()
            .zip(&inventory.pools)
            .map(|(v, pool)| pool.nodes_of(v.fitting(pool)))
            .sum();
        let class = match fit {
            Fit::No | Fit::Partial => Class::No,
            Fit::Avoided => Class::Avoided,
            Fit::May => Class::May,
            Fit::Yes => Class::Yes,
        };
        (class, nodes)
    }

    fn heading(self) -> &'static str {
        match self {
            Class::No => "Fit no node",
            Class::Misses => "DaemonSets that miss nodes they select",
            Class::Idle => "DaemonSets that select no node (they run no pods)",
            Class::Rejected => "Rejected by the API server, not placed",
            Class::Avoided => "Fit only on nodes to avoid",
            Class::May => "May fit",
            Class::Yes => "Fit",
        }
    }

    fn shown(self, only: &[Fit]) -> bool {
        only.is_empty()
            || only.contains(&match self {
                Class::No | Class::Rejected | Class::Misses | Class::Idle => Fit::No,
                Class::Avoided => Fit::Avoided,
                Class::May => Fit::May,
                Class::Yes => Fit::Yes,
            })
    }
}

/// What the matrix shows of one workload, made on the worker that simulated it: the matrix
/// needs every row before its first line, and a row is a few hundred bytes where a simulation
/// is kilobytes (25,000 workloads against 50 pools).
pub struct Row {
    file: std::sync::Arc<str>,
    title: String,
    class: Class,
    nodes: NodeCount,
    /// How it fits each pool.
    fits: Vec<Fit>,
    /// For a DaemonSet: the pools it does not select (it fits none of their nodes, by design).
    unselected: Vec<bool>,
    /// The reasons under the row, each with the pools it is about (when they are shown).
    reasons: Vec<(String, Vec<usize>)>,
    /// For a rejected workload: the finding's message and rule.
    rejected: Option<(String, &'static str)>,
    /// For a DaemonSet that does not run on every node it picks: how many it picks and misses.
    daemonset: Option<String>,
}

impl Row {
    /// The rows of one file's workloads; `why`: keep every row's reasons (`--why`), else
    /// only those of rows that fit no node or only nodes to avoid.
    pub fn of_file(inventory: &Inventory, file: &SimulatedFile, why: bool) -> Vec<Row> {
        let path: std::sync::Arc<str> = file.path.as_str().into();
        file.workloads
            .iter()
            .map(|w| {
                let (class, nodes) = Class::of(w, inventory);
                let shows_reasons =
                    why || matches!(class, Class::No | Class::Avoided | Class::Misses);
                // An object with several pod templates (a RayCluster's head and workers):
                // each row says which, by its name (its place, where two share a name).
                let fits: Vec<Fit> = w
                    .simulation
                    .pools
                    .iter()
                    .zip(&inventory.pools)
                    .map(|(pv, pool)| Fit::of_pool(pv, pool))
                    .collect();
                let title = w.title();
                let shared = file
                    .workloads
                    .iter()
                    .filter(|o| o.document == w.document && o.item == w.item)
                    .filter(|o| o.title() == title)
                    .nth(1)
                    .is_some();
                Row {
                    file: path.clone(),
                    title: if shared {
                        format!("{title} {}", template_part(&w.path))
                    } else {
                        title
                    },
                    class,
                    nodes,
                    unselected: w
                        .simulation
                        .pools
                        .iter()
                        .zip(&inventory.pools)
                        .zip(&fits)
                        .map(|((pv, pool), &fit)| {
                            w.daemonset.is_some()
                                && fit == Fit::No
                                && pv
                                    .groups(pool)
                                    .all(|(v, _, _)| v.reasons.iter().any(Reason::selects))
                        })
                        .collect(),
                    fits,
                    reasons: if shows_reasons {
                        reason_groups(inventory, w, why)
                    } else {
                        Vec::new()
                    },
                    rejected: w.rejected.as_ref().map(|r| (r.message.clone(), r.rule)),
                    daemonset: w
                        .daemonset
                        .as_ref()
                        .filter(|c| {
                            c.picked == 0 || (c.missed > 0 && c.missed + c.maybe_missed < c.picked)
                        })
                        .map(|c| daemonset_text(inventory, w, c)),
                }
            })
            .collect()
    }
}

/// The part of an object a pod spec at `path` is, as its last field names it: `headGroupSpec`
/// of `spec.headGroupSpec.template.spec`, `replicatedJobs[1]`, `Worker`, `kafka` of
/// `spec.kafka.template.pod` (Strimzi).
fn template_part(path: &str) -> &str {
    let mut p = path;
    while let Some(rest) = p
        .strip_suffix(".spec")
        .or_else(|| p.strip_suffix(".template"))
        .or_else(|| p.strip_suffix(".template.pod"))
    {
        p = rest;
    }
    p.rsplit_once('.').map_or(p, |(_, last)| last)
}

/// The matrix (or list) for people, with a summary that names what fits nowhere.
pub fn human(inventory: &Inventory, rows: Vec<Row>, options: &HumanOptions) -> String {
    let max = options.width.max(MIN_WIDTH);
    let pools = &inventory.pools;
    let mut out = String::new();
    let names: Vec<&str> = inventory.files.iter().map(|f| f.name.as_str()).collect();
    out.push_str(&wrap(
        "",
        2,
        &format!("Cluster: {} ({})", cluster_size(pools), names.join(", ")),
        max,
    ));
    out.push_str(&wrap(
        "",
        2,
        &format!("Platform: {}", inventory.platform.describe()),
        max,
    ));
    out.push_str(&legend(pools, max));

    let mut rows = rows;
    // Stable: files and documents keep their order within a class.
    rows.sort_by_key(|r| r.class);

    let layout = Layout::new(pools, &rows, max);
    let shown: Vec<&Row> = rows
        .iter()
        .filter(|r| r.class.shown(&options.only))
        .collect();
    out.push('\n');
    out.push_str(&match layout {
        Some(_) => {
            let mut marks = vec![
                "✓ fits",
                "~ fits, but avoided (PreferNoSchedule)",
                "± fits some nodes, or may",
                "✗ no fit",
            ];
            if shown.iter().any(|r| r.unselected.contains(&true)) {
                marks.push("· a pool the DaemonSet does not select");
            }
            items(&marks, max)
        }
        None => items(
            &[
                "name~ fits, but avoided (PreferNoSchedule)",
                "name± fits some nodes, or may",
            ],
            max,
        ),
    });

    let mut class = None;
    let mut file = None;
    for r in &shown {
        if class != Some(r.class) {
            class = Some(r.class);
            file = None;
            let count = shown.iter().filter(|s| s.class == r.class).count();
            out.push_str(&format!("\n{} ({count})\n", r.class.heading()));
            if let (Some(l), true) = (&layout, r.class != Class::Rejected) {
                out.push_str(&l.header(pools.len()));
            }
        }
        if file != Some(&*r.file) {
            file = Some(&*r.file);
            out.push_str(&name_lines(&r.file, 0, max));
        }
        match (&layout, r.class) {
            (_, Class::Rejected) => {
                out.push_str(&name_lines(&r.title, 2, max));
                let (message, rule) = r.rejected.as_ref().expect("a rejected row");
                let first = format!("{}rejected: ", " ".repeat(REASON_INDENT));
                out.push_str(&wrap(
                    &first,
                    REASON_INDENT + 2,
                    &format!("{message} ({rule})"),
                    max,
                ));
                continue;
            }
            (Some(l), _) => out.push_str(&l.row(r, max)),
            (None, _) => out.push_str(&list_row(inventory, r, max)),
        }
        if options.why || matches!(r.class, Class::No | Class::Avoided | Class::Misses) {
            out.push_str(&reasons(inventory, &r.reasons, max));
        }
    }

    out.push('\n');
    out.push_str(&summary(&rows, shown.len(), options, max));
    out
}

/// The pools: letter, name, size, and what keeps workloads off (cordon, taints).
fn legend(pools: &[Pool], max: usize) -> String {
    let mut out = String::new();
    let label = width(&column(pools.len().saturating_sub(1)));
    let name = pools
        .iter()
        .map(|p| width(&p.name))
        .filter(|&w| w <= POOL_NAME)
        .max()
        .unwrap_or(POOL_NAME);
    let size = pools.iter().map(|p| width(&p.size())).max().unwrap_or(0);
    let what = |p: &Pool| -> Vec<String> {
        let mut what: Vec<String> = Vec::new();
        if p.unschedulable.is_some() {
            what.push("cordoned".into());
        }
        what.extend(p.taints.iter().map(|t| t.taint.to_string()));
        if what.is_empty() {
            what.push("no taints".into());
        }
        what
    };
    // Taints in a column of their own when each (with the comma after it, but the last) fits
    // there, else under each pool.
    let indent = 2 + label + 2 + name + 2 + size + 2;
    let tabular = pools.iter().all(|p| {
        let what = what(p);
        let last = what.len() - 1;
        what.iter()
            .enumerate()
            .all(|(i, w)| indent + width(w) + usize::from(i < last) <= max)
    });
    for (i, p) in pools.iter().enumerate() {
        let text = what(p).join(", ");
        let letter = format!("  {}  ", pad(&column(i), label));
        let lead = letter.len();
        if tabular && width(&p.name) <= name {
            let head = format!("{letter}{}  {}  ", pad(&p.name, name), pad(&p.size(), size));
            out.push_str(&wrap(&head, indent, &text, max));
            continue;
        }
        // The name whole, on its own line(s) if need be.
        let parts = hard_wrap(&p.name, max.saturating_sub(lead).max(1));
        for (j, part) in parts.iter().enumerate() {
            let at = if j == 0 {
                letter.clone()
            } else {
                " ".repeat(lead)
            };
            let line = format!("{at}{part}");
            if j + 1 == parts.len() && !tabular && width(&line) + 2 + width(&p.size()) <= max {
                out.push_str(&format!("{line}  {}\n", p.size()));
            } else {
                out.push_str(&format!("{line}\n"));
            }
        }
        if tabular {
            let head = format!("{}{}  ", " ".repeat(lead + name + 2), pad(&p.size(), size));
            out.push_str(&wrap(&head, indent, &text, max));
        } else {
            if width(parts.last().map_or("", String::as_str)) + lead + 2 + width(&p.size()) > max {
                out.push_str(&format!("{}{}\n", " ".repeat(lead), p.size()));
            }
            out.push_str(&wrap(&" ".repeat(lead + 2), lead + 2, &text, max));
        }
    }
    out
}

/// The matrix's columns, when the pools fit the width as columns.
struct Layout {
    /// The name column's width.
    name: usize,
    /// A cell's width (a pool letter and a space).
    cell: usize,
}

impl Layout {
    fn new(pools: &[Pool], rows: &[Row], max: usize) -> Option<Layout> {
        let cell = width(&column(pools.len().saturating_sub(1))) + 1;
        let count = rows.iter().map(|r| width(&row_count(r))).max().unwrap_or(0);
        let fixed = 2 + 2 + cell * pools.len() + 1 + count;
        let room = max.checked_sub(fixed)?;
        let longest = rows.iter().map(|r| width(&r.title)).max().unwrap_or(0);
        if room < MIN_NAME.min(longest.max(1)) {
            return None;
        }
        Some(Layout {
            name: room.min(longest).max(1),
            cell,
        })
    }

    fn header(&self, pools: usize) -> String {
        let mut line = " ".repeat(2 + self.name + 2);
        for p in 0..pools {
            line.push_str(&pad(&column(p), self.cell));
        }
        format!("{}\n", line.trim_end())
    }

    fn row(&self, r: &Row, max: usize) -> String {
        let mut out = String::new();
        let mut line = if width(&r.title) <= self.name {
            format!("  {}  ", pad(&r.title, self.name))
        } else {
            out.push_str(&name_lines(&r.title, 2, max));
            " ".repeat(2 + self.name + 2)
        };
        for (fit, &unselected) in r.fits.iter().zip(&r.unselected) {
            let mark = match fit {
                Fit::No if unselected => "·",
                Fit::No => "✗",
                Fit::Partial | Fit::May => "±",
                Fit::Avoided => "~",
                Fit::Yes => "✓",
            };
            line.push_str(&pad(mark, self.cell));
        }
        // What follows the marks, wrapped under itself when it does not fit the width.
        let line = format!("{}  ", line.trim_end());
        let indent = width(&line);
        if indent + 16 <= max {
            out.push_str(&wrap(&line, indent, &row_count(r), max));
        } else {
            out.push_str(&format!("{}{}\n", line, row_count(r)));
        }
        out
    }
}

/// "10 nodes in 6 pools"; pools defined as code (a NodePool, a node group) are counted as pools,
/// their nodes being one that stands for all.
fn cluster_size(pools: &[Pool]) -> String {
    let pools_noun = |n: usize| match n {
        1 => "1 pool".to_string(),
        n => format!("{n} pools"),
    };
    let as_code = pools.iter().filter(|p| p.declared.is_some()).count();
    let listed: usize = pools
        .iter()
        .filter(|p| p.declared.is_none())
        .map(|p| p.nodes.len())
        .sum();
    match (as_code, listed) {
        (0, n) => format!("{} in {}", nodes_noun(n), pools_noun(pools.len())),
        (c, 0) => format!("{} defined as code", pools_noun(c)),
        (c, n) => format!(
            "{} in {}, and {} defined as code",
            nodes_noun(n),
            pools_noun(pools.len() - c),
            pools_noun(c)
        ),
    }
}

/// "fits no node" / "1 node fits" / "4 nodes fit", and for pools defined as code "0..8 nodes
/// fit", "fits (count unknown)"; for a workload that only may fit, "1 node may fit", "may fit
/// (count unknown)".
fn count_text(nodes: NodeCount, class: Class) -> String {
    let may = class == Class::May;
    match (nodes.known(), nodes.max) {
        (Some(0), _) => "fits no node".to_string(),
        (Some(1), _) if may => "1 node may fit".to_string(),
        (Some(1), _) => "1 node fits".to_string(),
        (Some(n), _) if may => format!("{n} nodes may fit"),
        (Some(n), _) => format!("{n} nodes fit"),
        (None, None) if nodes.min == 0 && may => "may fit (count unknown)".to_string(),
        (None, None) if nodes.min == 0 => "fits (count unknown)".to_string(),
        _ if may => format!("{nodes} may fit"),
        _ => format!("{nodes} fit"),
    }
}

/// What the matrix says after a row's marks: how many nodes fit, or for a DaemonSet that does
/// not run on every node it picks, how many it picks and misses.
fn row_count(r: &Row) -> String {
    match &r.daemonset {
        Some(text) => text.clone(),
        None => count_text(r.nodes, r.class),
    }
}

/// "selects no node" / "runs on 2 of the 3 nodes it selects" / for pools defined as code,
/// whose nodes are not counted, "misses pool gpu-spot of the 2 pools it selects".
fn daemonset_text(
    inventory: &Inventory,
    w: &WorkloadResult,
    c: &crate::schedule::Coverage,
) -> String {
    if c.picked == 0 {
        return "selects no node".to_string();
    }
    let as_code = w
        .simulation
        .pools
        .iter()
        .zip(&inventory.pools)
        .any(|(v, pool)| {
            pool.declared.is_some()
                && v.groups(pool)
                    .any(|(g, _, _)| !g.reasons.iter().any(|r| r.selects()))
        });
    if !as_code {
        return format!(
            "runs on {} of the {} it selects",
            c.picked - c.missed,
            nodes_noun(c.picked)
        );
    }
    let picked = w
        .simulation
        .pools
        .iter()
        .zip(&inventory.pools)
        .filter(|(v, pool)| {
            v.groups(pool)
                .any(|(g, _, _)| !g.reasons.iter().any(|r| r.selects()))
        })
        .count();
    let names: Vec<&str> = c
        .missed_pools
        .iter()
        .map(|&p| inventory.pools[p].name.as_str())
        .collect();
    format!(
        "misses pool{} {} of the {picked} pool{} it selects",
        if names.len() == 1 { "" } else { "s" },
        names.join(", "),
        if picked == 1 { "" } else { "s" }
    )
}

/// A workload as a line or two: its name, then the pools it fits.
fn list_row(inventory: &Inventory, r: &Row, max: usize) -> String {
    let mut out = name_lines(&r.title, 2, max);
    let mut fitting: Vec<String> = Vec::new();
    let mut whole = 0;
    for (p, (&fit, pool)) in r.fits.iter().zip(&inventory.pools).enumerate() {
        if fit == Fit::Yes {
            whole += 1;
        }
        let mark = match fit {
            Fit::No => continue,
            Fit::Partial | Fit::May => "±",
            Fit::Avoided => "~",
            Fit::Yes => "",
        };
        // A no-break space: the wrap keeps a pool's letter with its name.
        fitting.push(format!("{}\u{a0}{}{mark}", column(p), pool.name));
    }
    let text = if let Some(text) = &r.daemonset {
        text.clone()
    } else if fitting.is_empty() {
        "fits no node".to_string()
    } else if whole == inventory.pools.len() {
        format!("{}: every pool", count_text(r.nodes, r.class))
    } else {
        format!("{}: {}", count_text(r.nodes, r.class), fitting.join(", "))
    };
    // Wrapped lines hang under the first pool, apart from the reasons that follow.
    let first = " ".repeat(REASON_INDENT - 2);
    let hang = text
        .find(": ")
        .map_or(REASON_INDENT, |i| first.len() + i + 2);
    out.push_str(&wrap(&first, hang, &text, max).replace('\u{a0}', " "));
    out
}

/// How many pools' own values of one taint key and effect are said as one line (below, one
/// line each).
const SHAPED: usize = 4;

/// Each distinct reason under a row, with the pools (indices) it is about: every reason the
/// JSON gives ([`pool_reasons`], in its words), but for a DaemonSet those on nodes it does not
/// select unless `all` (`--why`). For a workload that fits no node, first the pool that comes
/// closest and what keeps it off (its near miss), as the `unschedulable` finding says it; then
/// what makes the nodes it fits ones to avoid, the taints it tolerates only by a toleration
/// from outside its manifest, what the pools it may fit do not say, and what keeps it off the
/// others. Taints of one key and effect that pools carry each with a value of their own
/// (`dedicated=<team>:NoSchedule`, one team a pool) are one line when there are
/// [`SHAPED`] values or more, as the JSON's pool entries share them.
fn reason_groups(
    inventory: &Inventory,
    w: &WorkloadResult,
    all: bool,
) -> Vec<(String, Vec<usize>)> {
    let daemonset = w.daemonset.as_ref().is_some_and(|c| c.picked > 0);
    let per_pool: Vec<Vec<PoolReason<'_>>> = w
        .simulation
        .pools
        .iter()
        .zip(&inventory.pools)
        .map(|(pv, pool)| pool_reasons(pv, pool, daemonset))
        .collect();
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    if let Some(c) = &w.closest {
        groups.push((
            format!(
                "closest is pool {}: {}",
                inventory.pools[c.pool].name, c.message
            ),
            vec![c.pool],
        ));
    }
    let shapes = taint_shapes(inventory, &per_pool, all);
    let kinds: [fn(&PoolReason<'_>) -> bool; 4] = [
        |r| matches!(r, PoolReason::Avoid(_)),
        |r| matches!(r, PoolReason::Granted(..)),
        |r| matches!(r, PoolReason::Unknown(_)),
        |r| matches!(r, PoolReason::Blocks { .. }),
    ];
    for kind in kinds {
        for (p, (reasons, pool)) in per_pool.iter().zip(&inventory.pools).enumerate() {
            for r in reasons.iter().filter(|r| kind(r)) {
                if !all
                    && matches!(
                        r,
                        PoolReason::Blocks {
                            unselected: true,
                            ..
                        }
                    )
                {
                    continue;
                }
                let text = match r {
                    PoolReason::Blocks {
                        reason: Reason::Taint(t),
                        ..
                    } => {
                        let taint = &pool.taints[*t].taint;
                        shapes
                            .iter()
                            .find(|(key, effect, _)| *key == taint.key && *effect == taint.effect)
                            .map_or_else(|| r.line(pool), |(_, _, text)| text.clone())
                    }
                    _ => r.line(pool),
                };
                // The closest pool's reason is said in its line already.
                if w.closest
                    .as_ref()
                    .is_some_and(|c| c.pool == p && c.message.contains(&text))
                {
                    continue;
                }
                match groups.iter_mut().find(|(x, _)| *x == text) {
                    Some((_, cols)) if cols.last() != Some(&p) => cols.push(p),
                    Some(_) => {}
                    None => groups.push((text, vec![p])),
                }
            }
        }
    }
    groups
}

/// The taint keys and effects that keep a workload off pools with [`SHAPED`] values or more,
/// each with its line: `untolerated taint dedicated=<pool name>:NoSchedule` when each pool's
/// value is its own name, else `untolerated taint dedicated=<value>:NoSchedule, values search,
/// risk, ml and 46 more`.
fn taint_shapes<'i>(
    inventory: &'i Inventory,
    per_pool: &[Vec<PoolReason<'_>>],
    all: bool,
) -> Vec<(&'i str, Effect, String)> {
    // Each key and effect, with its values and whether each pool's is its name.
    let mut seen: Vec<(&str, Effect, Vec<&str>, bool)> = Vec::new();
    for (reasons, pool) in per_pool.iter().zip(&inventory.pools) {
        for r in reasons {
            let PoolReason::Blocks {
                reason: Reason::Taint(t),
                unselected,
            } = r
            else {
                continue;
            };
            if *unselected && !all {
                continue;
            }
            let taint = &pool.taints[*t].taint;
            let named = taint.value == pool.name;
            match seen
                .iter_mut()
                .find(|(k, e, _, _)| *k == taint.key && *e == taint.effect)
            {
                Some((_, _, values, all_named)) => {
                    if !values.contains(&taint.value.as_str()) {
                        values.push(&taint.value);
                    }
                    *all_named &= named;
                }
                None => seen.push((&taint.key, taint.effect, vec![&taint.value], named)),
            }
        }
    }
    seen.into_iter()
        .filter(|(_, _, values, _)| values.len() >= SHAPED)
        .map(|(key, effect, values, named)| {
            let text = if named {
                format!("untolerated taint {key}=<pool name>:{effect}")
            } else {
                let listed: Vec<&str> = values.iter().take(3).copied().collect();
                format!(
                    "untolerated taint {key}=<value>:{effect}, values {} and {} more",
                    listed.join(", "),
                    values.len() - listed.len()
                )
            };
            (key, effect, text)
        })
        .collect()
}

/// Under a row: each distinct blocking reason with the pools it blocks.
fn reasons(inventory: &Inventory, groups: &[(String, Vec<usize>)], max: usize) -> String {
    let mut out = String::new();
    for (text, cols) in groups {
        let first = format!(
            "{}{}: ",
            " ".repeat(REASON_INDENT),
            letters(cols, inventory.pools.len())
        );
        out.push_str(&wrap(&first, REASON_INDENT + 2, text, max));
    }
    out
}

/// The counts, and the names of the workloads that run nowhere.
fn summary(rows: &[Row], shown: usize, options: &HumanOptions, max: usize) -> String {
    let count = |c: Class| rows.iter().filter(|r| r.class == c).count();
    let mut parts = vec![format!("{} fit", count(Class::Yes) + count(Class::Avoided))];
    if count(Class::Avoided) > 0 {
        parts.push(format!(
            "{} of them only on nodes to avoid",
            count(Class::Avoided)
        ));
    }
    // Counted apart, as the JSON summary's `may`: they fit only if what the inventory does not
    // say is so.
    if count(Class::May) > 0 {
        parts.push(format!("{} may fit", count(Class::May)));
    }
    parts.push(match count(Class::No) {
        1 => "1 fits no node".to_string(),
        n => format!("{n} fit no node"),
    });
    match count(Class::Misses) {
        0 => {}
        1 => parts.push("1 DaemonSet misses nodes it selects".to_string()),
        n => parts.push(format!("{n} DaemonSets miss nodes they select")),
    }
    match count(Class::Idle) {
        0 => {}
        1 => parts.push("1 DaemonSet selects no node".to_string()),
        n => parts.push(format!("{n} DaemonSets select no node")),
    }
    if count(Class::Rejected) > 0 {
        parts.push(format!(
            "{} rejected by the API server",
            count(Class::Rejected)
        ));
    }
    let total = rows.len();
    let mut out = wrap(
        "",
        0,
        &format!(
            "{} simulated: {}.",
            match total {
                1 => "1 workload".to_string(),
                n => format!("{n} workloads"),
            },
            parts.join(", ")
        ),
        max,
    );
    if !options.only.is_empty() {
        let only: Vec<&str> = options.only.iter().map(|f| f.as_str()).collect();
        out.push_str(&format!(
            "{shown} of them shown (--only {}).\n",
            only.join(",")
        ));
    }
    for (class, what) in [
        (Class::No, "Fit no node"),
        (Class::Misses, "Miss nodes they select"),
        (Class::Rejected, "Rejected"),
    ] {
        let named: Vec<&Row> = rows.iter().filter(|r| r.class == class).collect();
        if named.is_empty() {
            continue;
        }
        let mut list: Vec<String> = named
            .iter()
            .take(NAMED)
            .map(|r| format!("{} ({})", r.title, r.file))
            .collect();
        if named.len() > NAMED {
            list.push(format!("and {} more", named.len() - NAMED));
        }
        out.push_str(&wrap(&format!("{what}: "), 2, &list.join(", "), max));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_letters() {
        assert_eq!(column(0), "A");
        assert_eq!(column(25), "Z");
        assert_eq!(column(26), "AA");
        assert_eq!(column(27), "AB");
        assert_eq!(letters(&[0, 1, 2, 4, 5], 10), "A-C E F");
        assert_eq!(letters(&[3], 10), "D");
        assert_eq!(letters(&[0, 1, 2], 3), "every pool");
        assert_eq!(letters(&[24, 25, 26, 27], 50), "Y-AB");
    }

    #[test]
    fn wrapping_counts_display_width_and_keeps_words() {
        let long = "word ".repeat(40);
        for line in wrap("  x: ", 4, long.trim(), 60).lines() {
            assert!(width(line) <= 60, "{line}");
        }
        // Two columns a CJK character: 20 of them take 40 columns.
        let cjk = "支払い処理 ".repeat(8);
        for line in wrap("", 0, cjk.trim(), 30).lines() {
            assert!(width(line) <= 30, "{line}");
            assert_eq!(line.trim(), line.trim().replace("  ", " "));
        }
        // A word longer than the line stays whole.
        let w = "x".repeat(70);
        assert_eq!(wrap("", 0, &w, 60), format!("{w}\n"));
        assert_eq!(pad("支払い", 8), "支払い  ");
        assert_eq!(hard_wrap("支払い処理", 4), ["支払", "い処", "理"]);
    }
}
