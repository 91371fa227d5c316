//! Hover text: what a toleration matches, what a taint does and who tolerates it, and the
//! findings under the cursor. Markdown, built from the domain model and the
//! rule registry (nothing here is written twice).

use crate::diagnostic::Diagnostic;
use crate::inventory::{Inventory, NodeCount};
use crate::k8s::model::{Effect, Operator};
use crate::k8s::model::{Taint, Toleration};
use crate::lsp::facts::{object_label, TaintFact, TolerationFact};
use crate::rules;
use crate::schedule::placement;

/// A toleration, somewhere in the open files, that tolerates a taint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tolerator {
    /// `Deployment shop/web`.
    pub object: String,
    /// File name and 1-based line: `web.yaml:17`.
    pub place: String,
    pub path: String,
}

/// At most this many tolerators are listed.
const MAX_LISTED: usize = 20;

pub fn toleration(
    fact: &TolerationFact,
    comparison_operators: bool,
    inventory: Option<&Inventory>,
) -> String {
    let mut out = format!(
        "**Toleration** `{}` in {}\n\n",
        fact.path,
        object_label(fact.object.as_ref())
    );
    let Some(t) = &fact.toleration else {
        out.push_str(
            "The API server would reject this toleration as written (see the diagnostics \
             here), so it tolerates nothing yet.",
        );
        return out;
    };
    out.push_str(&format!("Tolerates {}.\n", t.describe()));
    let mut notes = Vec::new();
    if fact.operator_omitted {
        let then = if t.value.is_empty() {
            "so it only matches taints without a value".to_string()
        } else {
            format!("so the taint's value must be exactly `{}`", t.value)
        };
        notes.push(format!(
            "No `operator`: the API server reads it as `Equal`, {then}."
        ));
    }
    if fact.effect_omitted {
        notes.push(
            "No `effect`: it matches all three effects (NoSchedule, PreferNoSchedule and \
             NoExecute)."
                .to_string(),
        );
    }
    if t.key.is_empty() && t.operator == Operator::Exists {
        notes.push("Empty `key` with `Exists`: it matches every taint key.".to_string());
    }
    if matches!(t.operator, Operator::Lt | Operator::Gt) && !comparison_operators {
        notes.push(format!(
            "`{}` needs the feature gate TaintTolerationComparisonOperators; without it the \
             API server rejects it and it matches nothing.",
            t.operator.as_str()
        ));
    }
    if let Some(seconds) = t.describe_seconds() {
        notes.push(format!("{seconds}."));
    }
    if !notes.is_empty() {
        out.push('\n');
        for n in notes {
            out.push_str(&format!("- {n}\n"));
        }
    }
    if let Some(inventory) = inventory {
        out.push('\n');
        out.push_str(&inventory_section(t, comparison_operators, inventory));
    }
    out
}

/// Which of the inventory's taints a toleration tolerates, on which pools: the words of
/// [`placement`], with the taints listed.
fn inventory_section(t: &Toleration, comparison_operators: bool, inventory: &Inventory) -> String {
    let tolerated = placement::tolerated_taints(t, inventory, comparison_operators);
    // Each distinct taint with the pools that carry it, in the order first seen.
    let mut taints: Vec<(&Taint, Vec<usize>)> = Vec::new();
    for &(p, i) in &tolerated {
        let taint = &inventory.pools[p as usize].taints[i as usize].taint;
        match taints.iter_mut().find(|(seen, _)| *seen == taint) {
            Some((_, pools)) => pools.push(p as usize),
            None => taints.push((taint, vec![p as usize])),
        }
    }
    let on = |taint: &Taint, pools: &[usize]| {
        let nodes: NodeCount = pools.iter().map(|&p| inventory.pools[p].node_count()).sum();
        let names: Vec<&str> = pools
            .iter()
            .take(5)
            .map(|&p| inventory.pools[p].name.as_str())
            .collect();
        let more = if pools.len() > 5 {
            format!(", and {} more", pools.len() - 5)
        } else {
            String::new()
        };
        format!(
            "`{taint}` on {} (pool{} {}{more})",
            nodes.phrase(),
            if pools.len() == 1 { "" } else { "s" },
            names.join(", ")
        )
    };
    if let [(taint, pools)] = taints.as_slice() {
        return format!("In the inventory, it tolerates {}.\n", on(taint, pools));
    }
    let words = placement::describe_matches(&tolerated, inventory);
    let mut words = words.chars();
    let first = words.next().map(|c| c.to_ascii_uppercase());
    let mut out: String = first.into_iter().chain(words).collect();
    if taints.is_empty() {
        out.push_str(".\n");
        return out;
    }
    out.push_str(":\n");
    for (taint, pools) in taints.iter().take(MAX_LISTED) {
        out.push_str(&format!("- {}\n", on(taint, pools)));
    }
    if taints.len() > MAX_LISTED {
        out.push_str(&format!(
            "- and {} more taints\n",
            taints.len() - MAX_LISTED
        ));
    }
    out
}

pub fn taint(fact: &TaintFact, tolerated_by: &[Tolerator]) -> String {
    let mut out = String::new();
    let Some(t) = &fact.taint else {
        out.push_str(&format!(
            "**Taint** `{}` on {}\n\nThe API server would reject this taint as written (see \
             the diagnostics here).",
            fact.path,
            object_label(fact.object.as_ref())
        ));
        return out;
    };
    out.push_str(&format!(
        "**Taint** `{t}` on {}\n\n{}: {}.\n\n",
        object_label(fact.object.as_ref()),
        t.effect,
        t.effect.meaning()
    ));
    if tolerated_by.is_empty() {
        out.push_str("No toleration in the open files tolerates it.");
        return out;
    }
    let n = tolerated_by.len();
    out.push_str(&format!(
        "Tolerated by {n} toleration{} in the open files:\n",
        if n == 1 { "" } else { "s" }
    ));
    for t in tolerated_by.iter().take(MAX_LISTED) {
        out.push_str(&format!("- {} (`{}`, `{}`)\n", t.object, t.place, t.path));
    }
    if n > MAX_LISTED {
        out.push_str(&format!("- and {} more\n", n - MAX_LISTED));
    }
    if t.effect == Effect::NoExecute {
        out.push_str(
            "\nTolerations with tolerationSeconds are evicted that long after the taint \
             appears.",
        );
    }
    out
}

/// A finding, short enough to read without scrolling: its message, one line of why, the API
/// server's own wording when it has one, the fixes on offer, and the rule code linking to the
/// rule's documentation at `docs` (a docs/rules.md address). The long explanation stays in
/// `taintlint explain` and the documentation.
pub fn diagnostic(d: &Diagnostic, docs: &str) -> String {
    let mut out = match rules::find(d.rule) {
        Some(meta) => format!(
            "**{}** [`{}`]({}): {}\n\n{}\n",
            d.severity,
            meta.name,
            rules::docs_url(docs, meta.name),
            d.message,
            meta.why
        ),
        None => format!("**{}** `{}`: {}\n", d.severity, d.rule, d.message),
    };
    if let Some(server) = &d.server_message {
        // A double-backtick code span: the wording has backticks and regex stars in it.
        out.push_str(&format!("\nAPI server: `` {server} ``\n"));
    }
    if !d.fixes.is_empty() {
        out.push('\n');
        for fix in &d.fixes {
            let how = match fix.applicability {
                crate::diagnostic::Applicability::Safe => "safe",
                crate::diagnostic::Applicability::NeedsReview => "needs review",
            };
            out.push_str(&format!("- Fix: {} ({how})\n", fix.title));
        }
    }
    out.trim_end().to_string()
}
