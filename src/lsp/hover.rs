//! Hover text: what a toleration matches, what a taint does and who tolerates it, and the
//! findings under the cursor. Markdown, built from the domain model and the
//! rule registry (nothing here is written twice).

use crate::class::Class;
use crate::config::Options;
use crate::diagnostic::Diagnostic;
use crate::inventory::{Inventory, NodeCount};
use crate::k8s::model::{Effect, Operator};
use crate::k8s::model::{Taint, Toleration};
use crate::k8s::objects::extract;
use crate::lsp::facts::{TaintFact, TolerationFact};
use crate::rules;
use crate::rules::workload::flow_yaml;
use crate::schedule::admission::Source;
use crate::schedule::Workload;
use crate::schedule::{near, placement};
use std::ops::Range;

/// A toleration, somewhere in the workspace (an open file or one on disk), that tolerates a taint.
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

/// On a toleration: what it matches in the inventory first (the answer, when there is an
/// inventory: the taints it tolerates, or that it tolerates none and the taint it comes closest
/// to), then what it matches in plain words and the defaults the API server applies.
/// `closest`: the near miss of its workload, when the workload fits no node and this toleration
/// is the one that only just misses the closest pool (as the `unschedulable` finding says it);
/// else the inventory's closest taint is named, as `toleration-unused` names it.
pub fn toleration(
    fact: &TolerationFact,
    comparison_operators: bool,
    inventory: Option<&Inventory>,
    closest: Option<&str>,
) -> String {
    let mut out = format!("**Toleration** `{}` in {}\n\n", fact.path, fact.object);
    let Some(t) = &fact.toleration else {
        out.push_str(
            "The API server would reject this toleration as written (see the diagnostics \
             here), so it tolerates nothing yet.",
        );
        return out;
    };
    if let Some(inventory) = inventory {
        out.push_str(&inventory_section(
            t,
            comparison_operators,
            inventory,
            closest,
        ));
        out.push('\n');
    }
    out.push_str(&format!("Tolerates {}.\n", t.describe()));
    if let Some(line) = catalogued(&t.key) {
        out.push_str(&format!("\n{line}\n"));
    }
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
    out
}

/// On a pod spec's `runtimeClassName` or `tolerations` key: every toleration its pods end up
/// with and where each comes from (its own, the namespace's defaults, the RuntimeClass, the
/// admission plugins, the DaemonSet controller), when any comes from elsewhere than the
/// manifest. The file's own Namespaces and RuntimeClasses count, read as the analysis reads
/// them ([`crate::analysis::cluster_objects`]: a class the API server refuses is none), and a
/// document that is a template or does not parse ([`crate::class::document`]) has none.
pub fn admitted(text: &str, offset: usize, options: &Options) -> Option<(Range<usize>, String)> {
    let stream = crate::syntax::parse(text);
    let mut cluster = crate::analysis::cluster_objects("", text, Some(&stream));
    let local;
    let options = if cluster.is_empty() {
        options
    } else {
        cluster.merge(options.cluster().clone());
        let mut o = options.clone();
        o.set_cluster(std::sync::Arc::new(cluster));
        local = o;
        &local
    };
    let doc = stream.documents.iter().find(|d| {
        d.span.contains(&offset)
            && !matches!(
                crate::class::document(text, d),
                Class::Template(_) | Class::Broken
            )
    })?;
    let ex = extract(doc);
    for (i, spec) in ex.pod_specs.iter().enumerate() {
        let Some(at) = ["runtimeClassName", "tolerations"]
            .iter()
            .filter_map(|k| doc.get(spec.node, k))
            .map(|(k, v)| {
                let key = doc.node(k).span.clone();
                if doc.scalar(v).is_some() {
                    key.start..doc.node(v).span.end
                } else {
                    key
                }
            })
            .find(|r| r.contains(&offset))
        else {
            continue;
        };
        let w = Workload::new(doc, &ex, i, options);
        if w.sources.iter().all(|s| matches!(s, Source::Manifest(_))) {
            return None;
        }
        let object = &ex.objects[w.object];
        let mut out = format!(
            "**Tolerations its pods get** ({})\n\n",
            crate::k8s::parts::object_title(object, w.part.as_deref())
        );
        for (t, s) in w.tolerations.iter().zip(&w.sources) {
            let from = match s {
                Source::Manifest(i) => format!("its own `tolerations[{i}]`"),
                other => format!("a toleration {}", other.origin()),
            };
            out.push_str(&format!("- `{}`: {from}\n", flow_yaml(t)));
        }
        if w.kind == Some("DaemonSet") {
            out.push_str(
                "\nThe DaemonSet controller picks nodes with its own and the controller's \
                 tolerations only; admission adds the others to each pod it makes.\n",
            );
        }
        return Some((at, out));
    }
    None
}

/// Which of the inventory's taints a toleration tolerates, on which pools: the words of
/// [`placement`], with the taints listed; or that it tolerates none, and the taint it comes
/// closest to ([`near`]).
fn inventory_section(
    t: &Toleration,
    comparison_operators: bool,
    inventory: &Inventory,
    closest: Option<&str>,
) -> String {
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
        let said = closest.map(str::to_string).or_else(|| {
            near::closest_taint(t, inventory, comparison_operators).map(|n| n.said(inventory))
        });
        if let Some(said) = said {
            out.push_str(&format!("; closest: {}", markdown_text(&said)));
        }
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

/// On a taint: which tolerations in the workspace tolerate it first (the answer), then what its
/// effect does and who sets a taint of that key.
pub fn taint(fact: &TaintFact, tolerated_by: &[Tolerator]) -> String {
    let Some(t) = &fact.taint else {
        return format!(
            "**Taint** `{}` on {}\n\nThe API server would reject this taint as written (see \
             the diagnostics here).",
            fact.path, fact.object
        );
    };
    let mut out = format!("**Taint** `{t}` on {}\n\n", fact.object);
    let n = tolerated_by.len();
    if n == 0 {
        out.push_str("No toleration in the workspace tolerates it.\n");
    } else {
        out.push_str(&format!(
            "Tolerated by {n} toleration{} in the workspace:\n",
            if n == 1 { "" } else { "s" }
        ));
        for t in tolerated_by.iter().take(MAX_LISTED) {
            out.push_str(&format!("- {} (`{}`, `{}`)\n", t.object, t.place, t.path));
        }
        if n > MAX_LISTED {
            out.push_str(&format!("- and {} more\n", n - MAX_LISTED));
        }
    }
    out.push_str(&format!("\n{}: {}.\n", t.effect, t.effect.meaning()));
    if t.effect == Effect::NoExecute && n > 0 {
        out.push_str(
            "Tolerations with tolerationSeconds are evicted that long after the taint \
             appears.\n",
        );
    }
    if let Some(line) = catalogued(&t.key) {
        out.push_str(&format!("\n{line}\n"));
    }
    out
}

/// What the taint catalog says of `key`: who sets it, with its source (a link when it is a URL).
fn catalogued(key: &str) -> Option<String> {
    let t = crate::k8s::well_known::known_taint(key)?;
    let source = if t.source.starts_with("https://") {
        format!("[source]({})", t.source)
    } else {
        format!("source: {}", t.source)
    };
    Some(format!("`{}`: {} ({source}).", t.key, t.meaning))
}

/// A finding's hover, short enough to read without scrolling and leading with what the editor
/// does not already show: why it matters and the fixes on offer, then the API server's own
/// wording when it has one, with the rule code linking to the rule's documentation at `docs`
/// (a docs/rules.md address). The finding's message is not repeated (the editor shows it above
/// the hover, with the related places); the long explanation stays in `taintlint explain` and
/// the documentation.
pub fn diagnostic(d: &Diagnostic, docs: &str) -> String {
    let mut out = match rules::find(d.rule) {
        Some(meta) => format!(
            "**{}** [`{}`]({}): {}\n",
            d.severity,
            meta.name,
            rules::docs_url(docs, meta.name),
            markdown_text(meta.why)
        ),
        None => format!(
            "**{}** `{}`: {}\n",
            d.severity,
            d.rule,
            markdown_text(&d.message)
        ),
    };
    if !d.fixes.is_empty() {
        out.push('\n');
        for fix in &d.fixes {
            let how = fix.applicability.phrase();
            out.push_str(&format!("- Fix: {} ({how})\n", markdown_text(&fix.title)));
        }
    }
    if let Some(server) = &d.server_message {
        // A double-backtick code span: the wording has backticks and regex stars in it.
        out.push_str(&format!("\nAPI server: `` {server} ``\n"));
    }
    out.trim_end().to_string()
}

/// Plain words made safe for any Markdown renderer: a field path (`tolerations[0]`) goes in a
/// code span, which shows it as written (Neovim's renderer read `[0]` as a link and showed
/// `tolerations0`), and `*`, `_`, `<` outside code spans are escaped. Code spans stay as they are.
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
            continue;
        }
        let mut first = true;
        for word in part.split(' ') {
            if !first {
                out.push(' ');
            }
            first = false;
            let core = word.trim_end_matches([',', ';', ':', '.', ')']);
            let core = core.trim_start_matches('(');
            if core.contains('[') && core.contains(']') {
                let start = word.find(core).unwrap_or(0);
                out.push_str(&word[..start]);
                out.push('`');
                out.push_str(core);
                out.push('`');
                out.push_str(&word[start + core.len()..]);
            } else {
                for c in word.chars() {
                    if matches!(c, '*' | '_' | '<' | '[' | ']') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_are_code_for_every_markdown_renderer() {
        assert_eq!(
            markdown_text("Change tolerations[0] to tolerate x (lets it onto pool gpu)"),
            "Change `tolerations[0]` to tolerate x (lets it onto pool gpu)"
        );
        assert_eq!(
            markdown_text("(spec.tolerations[1].key), and `a[0]` kept"),
            "(`spec.tolerations[1].key`), and `a[0]` kept"
        );
        assert_eq!(markdown_text("a_b *c* <d>"), "a\\_b \\*c\\* \\<d>");
    }

    #[test]
    fn a_catalogued_key_says_who_sets_it_with_its_source() {
        let line = catalogued("nvidia.com/gpu").unwrap();
        assert!(
            line.starts_with("`nvidia.com/gpu`: NVIDIA GPU nodes"),
            "{line}"
        );
        assert!(
            line.contains("(https://github.com/NVIDIA/k8s-device-plugin"),
            "{line}"
        );
        let line = catalogued("karpenter.sh/disrupted").unwrap();
        assert!(line.contains("source: kubernetes-sigs/karpenter"), "{line}");
        assert_eq!(catalogued("example.com/dedicated"), None);
    }

    #[test]
    fn a_runtime_class_and_a_namespace_default_are_named() {
        let text = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  annotations:\n    scheduler.alpha.kubernetes.io/defaultTolerations: '[{\"key\": \"tenant\", \"operator\": \"Exists\"}]'\n---\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\nscheduling:\n  tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]\n---\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  runtimeClassName: gvisor\n  tolerations: [{key: a, operator: Exists}]\n  containers: [{name: c, image: i}]\n";
        let mut options = Options::default();
        options
            .set_admission_plugins("PodTolerationRestriction", true)
            .unwrap();
        let at = text.find("runtimeClassName").unwrap() + 3;
        let (range, hover) = admitted(text, at, &options).unwrap();
        assert_eq!(&text[range], "runtimeClassName: gvisor");
        assert!(
            hover.contains("- `{key: a, operator: Exists}`: its own `tolerations[0]`"),
            "{hover}"
        );
        assert!(
            hover.contains("namespace shop gives by default (defaultTolerations[0])"),
            "{hover}"
        );
        assert!(
            hover.contains("- `{key: sandbox, operator: Exists, effect: NoSchedule}`: a toleration RuntimeClass gvisor adds (scheduling.tolerations[0])"),
            "{hover}"
        );
        assert!(hover.contains("DefaultTolerationSeconds adds"), "{hover}");
        // The second pod spec of a document (a List) is found too.
        let list = "kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n  spec: {containers: []}\n- kind: Pod\n  metadata: {name: q}\n  spec:\n    runtimeClassName: gvisor\n    containers: []\n";
        let with_class = format!(
            "{}---\n{list}",
            &text[..text.find("---\nkind: Pod").unwrap()]
        );
        let at = with_class.rfind("runtimeClassName").unwrap();
        let (_, hover) = admitted(&with_class, at, &options).unwrap();
        assert!(hover.contains("(Pod q)"), "{hover}");
        // Elsewhere in the pod: nothing.
        assert!(admitted(text, text.find("containers").unwrap(), &options).is_none());
        // A RuntimeClass the API server refuses (its handler is no DNS label) is never
        // created: its tolerations are not the pod's, as the analysis says.
        let refused = text.replace("handler: runsc", "handler: run.sc");
        assert!(crate::analyse(&refused, &options)
            .iter()
            .any(|d| d.rule == "invalid-runtime-class"));
        let at = refused.find("runtimeClassName").unwrap() + 3;
        let (_, hover) = admitted(&refused, at, &options).unwrap();
        assert!(!hover.contains("RuntimeClass gvisor adds"), "{hover}");
        assert!(hover.contains("namespace shop gives by default"), "{hover}");
    }
}
