//! `simulate --base REV`: the workloads whose placement the change moves, before the rest, for
//! people and in JSON (`"changes"`).

use serde::Serialize;

use crate::changes::placements::{Cause, Change, Counts, Placement, Side};
use crate::report::text::wrap;

/// The base revision, as the output names it.
#[derive(Debug, Clone, Serialize)]
pub struct Base {
    /// As given (`main`, `origin/main`, an object name).
    pub revision: String,
    /// The commit it named.
    pub commit: String,
    /// `main (3f2a1bc)`, for people.
    #[serde(skip)]
    pub label: String,
}

#[derive(Serialize)]
struct ChangeOut<'a> {
    file: &'a str,
    document: usize,
    item: Option<usize>,
    kind: Option<&'a str>,
    name: Option<&'a str>,
    namespace: Option<&'a str>,
    path: &'a str,
    /// The workload's file at the base revision, when it was another (moved or renamed).
    #[serde(rename = "fileBefore", skip_serializing_if = "Option::is_none")]
    file_before: Option<&'a str>,
    before: &'a Placement,
    after: &'a Placement,
    cause: &'a Cause,
}

/// `"base":{...},"changes":[...]` (without the braces around them), for the end of
/// `simulate --format json`.
pub fn changes_json(base: &Base, changes: &[Change]) -> Vec<u8> {
    let mut out = b"\"base\":".to_vec();
    serde_json::to_writer(&mut out, base).expect("strings serialize");
    out.extend_from_slice(b",\"changes\":[");
    for (i, c) in changes.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        let value = ChangeOut {
            file: &c.file,
            document: c.document,
            item: c.item,
            kind: c.kind.as_deref(),
            name: c.name.as_deref(),
            namespace: c.namespace.as_deref(),
            path: &c.path,
            file_before: (c.file_before != c.file).then_some(c.file_before.as_str()),
            before: &c.before,
            after: &c.after,
            cause: &c.cause,
        };
        serde_json::to_writer(&mut out, &value).expect("a change serializes");
    }
    out.extend_from_slice(if changes.is_empty() { b"]" } else { b"\n]" });
    out
}

/// How many pools a placement names before "and N more".
const NAMED_POOLS: usize = 3;

fn noun(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn pool_list(pools: &[String]) -> String {
    let mut named: Vec<&str> = pools.iter().take(NAMED_POOLS).map(String::as_str).collect();
    let more = pools.len().saturating_sub(NAMED_POOLS);
    let more_text = format!("{more} more");
    if more > 0 {
        named.push(&more_text);
    }
    match named.split_last() {
        Some((last, rest)) if !rest.is_empty() && more > 0 => {
            format!("{} and {last}", rest.join(", "))
        }
        _ => named.join(", "),
    }
}

/// Where a workload stands on one side, in a few words: `fits 4 nodes in general, batch`.
pub fn describe(p: &Placement) -> String {
    if p.rejected.is_some() {
        return "refused by the API server".to_string();
    }
    if let Some(d) = &p.daemonset {
        if d.picked == 0 {
            return "picks no node".to_string();
        }
        if d.missed == 0 {
            return format!("runs on all {} it picks", noun(d.picked, "node", "nodes"));
        }
        return format!(
            "misses {} of the {} it picks, in {}",
            d.missed,
            noun(d.picked, "node", "nodes"),
            pool_list(&d.missed_pools)
        );
    }
    let pools = pool_list(&p.pools);
    let size = |verb: &str| {
        if p.counted {
            format!("{verb} {} in {pools}", noun(p.nodes, "node", "nodes"))
        } else {
            format!("{verb} {pools}")
        }
    };
    match p.fits.as_str() {
        "no" => "fits no node".to_string(),
        "avoided" => size("fits only nodes to avoid:"),
        "may" => size("may fit"),
        _ => size("fits"),
    }
}

/// Where a cause is, for people: `cluster/pools.yaml:12`, with the revision when the line is
/// only there.
pub fn place(cause: &Cause, base: &Base) -> String {
    let at = match cause.line {
        Some(line) => format!("{}:{line}", cause.file),
        None => cause.file.clone(),
    };
    match cause.side {
        Side::Before => format!("{at} at {}", base.revision),
        Side::After => at,
    }
}

/// The section `simulate --base` prints before the matrix.
pub fn changes_human(base: &Base, changes: &[Change], counts: &Counts, width: usize) -> String {
    let max = width.max(40);
    let mut out = String::new();
    let others = {
        let mut parts = Vec::new();
        if counts.added > 0 {
            parts.push(format!(
                "{} added",
                noun(counts.added, "workload", "workloads")
            ));
        }
        if counts.removed > 0 {
            parts.push(format!(
                "{} removed",
                noun(counts.removed, "workload", "workloads")
            ));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    };
    if changes.is_empty() {
        out.push_str(&wrap(
            "",
            2,
            &format!("Placement changes since {}: none{others}.", base.label),
            max,
        ));
        out.push('\n');
        return out;
    }
    out.push_str(&wrap(
        "",
        2,
        &format!(
            "Placement changes since {}: {}{others}",
            base.label,
            noun(changes.len(), "workload", "workloads")
        ),
        max,
    ));
    for c in changes {
        out.push_str(&wrap("  ", 4, &format!("{} ({})", c.title, c.file), max));
        out.push_str(&wrap(
            "    ",
            6,
            &format!("{} -> {}", describe(&c.before), describe(&c.after)),
            max,
        ));
        out.push_str(&wrap(
            "    ",
            6,
            &format!("{} ({})", c.cause.message, place(&c.cause, base)),
            max,
        ));
    }
    out.push('\n');
    out
}
