//! The cluster beside the manifest: code lenses (where each workload lands), inlay hints
//! (what each toleration matches, when it evicts) and the outline. The words come from
//! [`crate::schedule::placement`] and the data from the document's analysis; this module only
//! converts positions and builds protocol values.

use std::ops::Range;

use serde_json::json;
use tower_lsp_server::ls_types::*;

use crate::inventory::Inventory;
use crate::k8s::model::{Operator, Toleration};
use crate::lsp::convert::Lines;
use crate::lsp::facts::Facts;
use crate::schedule::placement::{self, Placement, TolerationPlace};

/// The client-side command a lens runs: its argument is `{"title", "uri", "position"}` (the
/// workload and where its lens is). The client asks for the per-pool verdicts and reasons with
/// [`PLACEMENT_REQUEST`] when the lens is run (VS Code opens them in a document, the Neovim
/// plugin in a floating window): sending them with every lens would make the answer for a file
/// of 500 workloads and 50 pools some megabytes, most of it never read.
pub const SHOW_PLACEMENT: &str = "taintlint.showPlacement";

/// `taintlint/placement`: `{"textDocument": {"uri"}, "position"}` to `{"title", "details"}` of
/// the workload at that position (in the document's current version), or `null`.
pub const PLACEMENT_REQUEST: &str = "taintlint/placement";

/// The lens of a file kustomize renders (its overlays, as named): its title, and what running
/// it shows. Where the file's workloads land is the renders' to say, not its text's: their
/// findings are the file's, and `simulate` lists each rendered workload.
pub fn rendered_lens(overlays: &[String]) -> (String, String) {
    let names = overlays.join(", ");
    let title = format!("Placed as rendered by {names}");
    let details = format!(
        "This file is applied as kustomize renders {names}, so its workloads are judged as \
         rendered: the findings here about where they run are the renders', traced to this \
         file, and no lens says where the text as written would land. `taintlint simulate \
         {}` lists where each rendered workload lands.",
        overlays.first().map_or("", String::as_str)
    );
    (title, details)
}

/// One lens per pod template, on its `kind:` entry, titled with its summary
/// ([`Placement::summary`], one per placement).
pub fn lenses(
    placements: &[Placement],
    summaries: &[String],
    lines: &Lines<'_>,
    uri: &Uri,
) -> Vec<CodeLens> {
    placements
        .iter()
        .zip(summaries)
        .map(|(p, summary)| {
            let range = lines.range(p.anchor.clone());
            CodeLens {
                range,
                command: Some(Command {
                    title: summary.clone(),
                    command: SHOW_PLACEMENT.to_string(),
                    arguments: Some(vec![json!({
                        "title": p.title,
                        "uri": uri.as_str(),
                        "position": range.start,
                    })]),
                }),
                data: None,
            }
        })
        .collect()
}

/// The workload whose lens anchor holds `offset` (a lens's own position: each pod template of
/// a custom resource has its own), else whose object holds it (the innermost, for a `kind:
/// List`; the first of an object's pod templates).
pub fn placement_at(placements: &[Placement], offset: usize) -> Option<&Placement> {
    let holds = |r: &Range<usize>| r.start <= offset && offset <= r.end;
    placements
        .iter()
        .filter(|p| holds(&p.anchor))
        .min_by_key(|p| p.range.len())
        .or_else(|| {
            placements
                .iter()
                .filter(|p| holds(&p.range))
                .min_by_key(|p| p.range.len())
        })
}

/// After each toleration's first line, what it matches in the inventory; after its
/// `tolerationSeconds`, when that evicts the pod. Only for tolerations that touch `within`.
pub fn hints(
    tolerations: &[TolerationPlace],
    inventory: &Inventory,
    lines: &Lines<'_>,
    within: Range<usize>,
) -> Vec<InlayHint> {
    let text = lines.text();
    let hint = |at: usize, label: String| InlayHint {
        position: lines.position(at),
        label: InlayHintLabel::String(label),
        kind: None,
        text_edits: None,
        tooltip: None,
        padding_left: Some(true),
        padding_right: None,
        data: None,
    };
    let mut out = Vec::new();
    for t in tolerations {
        if t.item.end < within.start || t.item.start > within.end {
            continue;
        }
        let first_line_end = text[t.item.clone()]
            .find(['\n', '\r'])
            .map_or(t.item.end, |i| t.item.start + i);
        out.push(hint(
            first_line_end,
            placement::hint_matches(&t.tolerated, inventory),
        ));
        if let (Some(seconds), Some(label)) = (
            &t.seconds,
            placement::hint_eviction(&t.toleration, &t.tolerated, inventory),
        ) {
            // On the line's end, after the first hint when both share the line.
            let line_end = text[seconds.end..]
                .find(['\n', '\r'])
                .map_or(text.len(), |i| seconds.end + i);
            out.push(hint(line_end, label));
        }
    }
    out
}

/// The outline: each object with a pod template, tolerations or taints (`Deployment shop/web`),
/// its tolerations and taints beneath it; lists outside any object at the top.
pub fn symbols(facts: &Facts, lines: &Lines<'_>) -> Vec<DocumentSymbol> {
    #[allow(deprecated)]
    let symbol = |name: String,
                  detail: Option<String>,
                  kind,
                  range: &Range<usize>,
                  selection: &Range<usize>| DocumentSymbol {
        name,
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: lines.range(range.clone()),
        selection_range: lines.range(selection.clone()),
        children: None,
    };
    let mut objects: Vec<DocumentSymbol> = facts
        .objects
        .iter()
        .map(|o| {
            symbol(
                o.label.clone(),
                None,
                if o.kind.as_deref() == Some("Node") {
                    SymbolKind::STRUCT
                } else {
                    SymbolKind::OBJECT
                },
                &o.range,
                &o.selection,
            )
        })
        .collect();
    let mut loose = Vec::new();
    let mut place = |owner: Option<usize>, s: DocumentSymbol| match owner {
        Some(i) => objects[i].children.get_or_insert_with(Vec::new).push(s),
        None => loose.push(s),
    };
    for t in &facts.tolerations {
        let name = t
            .toleration
            .as_ref()
            .map_or_else(|| t.path.clone(), toleration_name);
        let s = symbol(
            name,
            Some("toleration".to_string()),
            SymbolKind::FIELD,
            &t.range,
            &t.range,
        );
        place(t.owner, s);
    }
    for t in &facts.taints {
        let name = t
            .taint
            .as_ref()
            .map_or_else(|| t.path.clone(), |t| t.to_string());
        let s = symbol(
            name,
            Some("taint".to_string()),
            SymbolKind::CONSTANT,
            &t.range,
            &t.range,
        );
        place(t.owner, s);
    }
    let mut out = objects;
    out.extend(loose);
    out.sort_by_key(|s| (s.range.start.line, s.range.start.character));
    out
}

/// A toleration in a few characters, in the spirit of `kubectl taint` syntax:
/// `dedicated=gpu:NoSchedule`, `node.kubernetes.io/not-ready (exists):NoExecute`, `* (exists)`.
pub fn toleration_name(t: &Toleration) -> String {
    let key = if t.key.is_empty() { "*" } else { &t.key };
    let matched = match t.operator {
        Operator::Exists => format!("{key} (exists)"),
        Operator::Equal => format!("{key}={}", t.value),
        Operator::Lt => format!("{key} < {}", t.value),
        Operator::Gt => format!("{key} > {}", t.value),
    };
    match t.effect {
        Some(e) => format!("{matched}:{e}"),
        None => matched,
    }
}
