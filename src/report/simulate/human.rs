//! The matrix of workloads by node pools, for people.

use super::{pool_reasons, SimulatedFile};
use crate::inventory::{nodes_noun, Inventory};
use crate::schedule::WorkloadResult;

const WIDTH: usize = 100;
const NAME_WIDTH: usize = 34;

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

fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Wraps `text` at [`WIDTH`] columns, the first line after `first`, the others after `indent`.
fn wrap(first: &str, indent: usize, text: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut len = first.chars().count();
    for word in text.split(' ') {
        let w = word.chars().count();
        if len + 1 + w > WIDTH && len > indent {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            len = indent;
        } else if len > indent && !line.ends_with(' ') {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += w;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The matrix for people.
pub fn human(inventory: &Inventory, files: &[SimulatedFile]) -> String {
    let mut out = String::new();
    let pools = &inventory.pools;
    let names: Vec<&str> = inventory.files.iter().map(|f| f.name.as_str()).collect();
    let as_code = pools.iter().filter(|p| p.declared.is_some()).count();
    let listed: usize = pools
        .iter()
        .filter(|p| p.declared.is_none())
        .map(|p| p.nodes.len())
        .sum();
    let size = match (as_code, listed) {
        (0, n) => format!("{} in {} pools", nodes_noun(n), pools.len()),
        (c, 0) => format!("{c} pools defined as code"),
        (c, n) => format!(
            "{} in {} pools, and {c} pools defined as code",
            nodes_noun(n),
            pools.len() - c
        ),
    };
    out.push_str(&format!("Cluster: {size} ({})\n", names.join(", ")));
    let label_width = column(pools.len().saturating_sub(1)).len();
    let name_width = pools
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(0)
        .min(20);
    for (i, p) in pools.iter().enumerate() {
        let mut what: Vec<String> = Vec::new();
        if p.unschedulable.is_some() {
            what.push("cordoned".into());
        }
        what.extend(p.taints.iter().map(|t| t.taint.to_string()));
        let head = format!(
            "  {:<label_width$}  {:<name_width$}  {:<8}  ",
            column(i),
            truncate(&p.name, name_width),
            p.size()
        );
        let indent = head.chars().count();
        let text = if what.is_empty() {
            "no taints".to_string()
        } else {
            what.join(", ")
        };
        out.push_str(&wrap(&head, indent, &text));
    }
    out.push_str(
        "\n✓ fits   ~ fits, but avoided (PreferNoSchedule)   ± fits some nodes   ✗ no fit\n",
    );

    let cell = label_width + 1;
    let per_chunk = ((WIDTH - NAME_WIDTH - 4 - 12) / cell).max(1);
    let chunks: Vec<std::ops::Range<usize>> = (0..pools.len())
        .step_by(per_chunk)
        .map(|s| s..(s + per_chunk).min(pools.len()))
        .collect();
    let mut total = 0;
    let mut nowhere = 0;
    for chunk in &chunks {
        out.push('\n');
        let mut header = format!("  {:NAME_WIDTH$}  ", "");
        for p in chunk.clone() {
            header.push_str(&format!("{:<cell$}", column(p)));
        }
        out.push_str(header.trim_end());
        out.push('\n');
        for f in files {
            if f.workloads.is_empty() {
                continue;
            }
            out.push_str(&format!("{}\n", f.path));
            for w in &f.workloads {
                if chunk.start == 0 {
                    total += 1;
                }
                let fitting = w.simulation.fitting(inventory);
                if fitting == 0 && chunk.start == 0 {
                    nowhere += 1;
                }
                let mut row = format!("  {:<NAME_WIDTH$}  ", truncate(&w.title(), NAME_WIDTH));
                for p in chunk.clone() {
                    let pool = &pools[p];
                    let pv = &w.simulation.pools[p];
                    let fit = pv.fitting(pool);
                    let mark = if fit == 0 {
                        "✗"
                    } else if fit < pool.nodes.len() {
                        "±"
                    } else if pv.avoided(pool) == fit {
                        "~"
                    } else {
                        "✓"
                    };
                    row.push_str(&format!("{mark:<cell$}"));
                }
                if chunk.end == pools.len() {
                    row.push_str(&format!(
                        " {}",
                        if fitting == 0 {
                            "fits no node".to_string()
                        } else if as_code > 0 {
                            let n = w
                                .simulation
                                .pools
                                .iter()
                                .zip(pools)
                                .filter(|(v, p)| v.fitting(p) > 0)
                                .count();
                            format!("fits {n} pool{}", if n == 1 { "" } else { "s" })
                        } else {
                            format!("{} fit", nodes_noun(fitting))
                        }
                    ));
                }
                out.push_str(row.trim_end());
                out.push('\n');
                if chunk.end == pools.len() {
                    out.push_str(&reasons(inventory, w));
                }
            }
        }
    }
    out.push_str(&format!(
        "\n{} simulated; {} {} no node.\n",
        if total == 1 {
            "1 workload".to_string()
        } else {
            format!("{total} workloads")
        },
        nowhere,
        if nowhere == 1 { "fits" } else { "fit" }
    ));
    out
}

/// Under a row: each distinct blocking reason with the pools it blocks.
fn reasons(inventory: &Inventory, w: &WorkloadResult) -> String {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (p, (pv, pool)) in w.simulation.pools.iter().zip(&inventory.pools).enumerate() {
        for r in pool_reasons(pv, pool) {
            let text = r.describe(pool);
            match groups.iter_mut().find(|(t, _)| *t == text) {
                Some((_, cols)) => cols.push(column(p)),
                None => groups.push((text, vec![column(p)])),
            }
        }
    }
    let mut out = String::new();
    for (text, cols) in groups {
        let first = format!("      {}: ", cols.join(" "));
        out.push_str(&wrap(&first, 8, &text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_and_wrapping() {
        assert_eq!(column(0), "A");
        assert_eq!(column(25), "Z");
        assert_eq!(column(26), "AA");
        assert_eq!(column(27), "AB");
        let long = "word ".repeat(40);
        for line in wrap("  x: ", 4, long.trim()).lines() {
            assert!(line.chars().count() <= WIDTH, "{line}");
        }
    }
}
