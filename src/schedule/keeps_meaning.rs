//! What a fix does to the cluster a workload runs on: with an inventory, a fix that edits a
//! toleration list is tried on the document, and the taints the list tolerates before and after
//! are compared (upstream `ToleratesTaint`, k8s.io/api/core/v1 toleration.go, as
//! [`Toleration::tolerates`] follows it). A fix after which the list stops tolerating a taint
//! of the cluster would take the workload off nodes it runs on: it becomes
//! [`Applicability::Manual`] (never applied in bulk) and its title says what it stops
//! tolerating. A fix after which the list tolerates more says that too.
//!
//! Only the edited list is read again (its text with the fix applied), so that a `kind: List`
//! of thousands of items, each with a finding, costs each fix its own list, not the document.

use crate::config::Options;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::inventory::Inventory;
use crate::k8s::model::{Taint, Toleration};
use crate::k8s::objects::{extract_known, items, TolerationList};
use crate::syntax::{self, Document, NodeKind};

/// How many taints a title names before "and N more".
const NAMED: usize = 2;

/// The distinct taints of an inventory's pools, as [`guard`] compares them: built once for all
/// the documents a caller guards.
pub fn cluster_taints(inventory: &Inventory) -> Vec<Taint> {
    inventory
        .taints()
        .into_iter()
        .map(|(t, _)| t.taint.clone())
        .collect()
}

/// The hash of [`cluster_taints`], worked out once per inventory: fixes held back by them are
/// held back alike under another inventory with the same hash.
pub fn cluster_taints_digest(inventory: &Inventory) -> u64 {
    struct Digest(u64);
    let digest = || {
        use std::hash::{Hash, Hasher};
        let mut h = std::hash::DefaultHasher::new();
        cluster_taints(inventory).hash(&mut h);
        Digest(h.finish())
    };
    inventory
        .derived(digest)
        .map_or_else(|| digest().0, |d| d.0)
}

/// Marks the fixes of `out` (findings of `doc`) that change which of the cluster's `taints`
/// (from [`cluster_taints`]) a toleration list tolerates.
pub fn guard(
    text: &str,
    doc: &Document<'_>,
    lists: &[TolerationList],
    options: &Options,
    taints: &[Taint],
    out: &mut [Diagnostic],
) {
    let gate = options.feature(crate::schedule::COMPARISON_GATE);
    if taints.is_empty() {
        return;
    }
    for d in out.iter_mut().filter(|d| !d.fixes.is_empty()) {
        let Some(path) = d.path.as_deref() else {
            continue;
        };
        let Some(list) = lists.iter().find(|l| inside(path, &l.list.path)) else {
            continue;
        };
        let before = tolerations_of(doc, list);
        let tolerated = |ts: &[Toleration], t: &Taint| ts.iter().any(|x| x.tolerates(t, gate));
        for fix in &mut d.fixes {
            let after = match list_after_fix(text, doc, fix, list) {
                Edited::List(after) => after,
                Edited::Elsewhere => match after_fix(text, doc, fix, &list.list.path, options) {
                    Some(after) => after,
                    None => continue,
                },
            };
            let lost: Vec<&Taint> = taints
                .iter()
                .filter(|t| tolerated(&before, t) && !tolerated(&after, t))
                .collect();
            let gained: Vec<&Taint> = taints
                .iter()
                .filter(|t| !tolerated(&before, t) && tolerated(&after, t))
                .collect();
            if !lost.is_empty() {
                fix.applicability = Applicability::Manual;
                fix.title = format!(
                    "{} (stops tolerating {}; not applied in bulk)",
                    fix.title,
                    named(&lost)
                );
            } else if !gained.is_empty() && !fix.title.contains("olerat") {
                fix.title = format!("{} (then tolerates {})", fix.title, named(&gained));
            }
        }
    }
}

/// Whether a finding at `path` lies in the list at `list`.
fn inside(path: &str, list: &str) -> bool {
    path.strip_prefix(list)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('[') || rest.starts_with('.'))
}

fn named(taints: &[&Taint]) -> String {
    let mut out: Vec<String> = taints.iter().take(NAMED).map(|t| t.to_string()).collect();
    if taints.len() > NAMED {
        out.push(format!("{} more", taints.len() - NAMED));
    }
    out.join(", ")
}

/// The tolerations of a list that the API server would keep (those that decode).
fn tolerations_of(doc: &Document<'_>, list: &TolerationList) -> Vec<Toleration> {
    items(doc, &list.list)
        .iter()
        .filter_map(|i| i.toleration())
        .collect()
}

/// What a fix leaves of a toleration list, read from the list's own text.
enum Edited {
    /// The tolerations the list holds once the fix is applied.
    List(Vec<Toleration>),
    /// The fix edits outside the list, or the list does not read alone (an alias or merge key
    /// refers to an anchor elsewhere, the edited text does not parse): the document is read.
    Elsewhere,
}

/// The tolerations of `list` once `fix` is applied, reading only the list's text: the lines it
/// spans, with whatever precedes it on its first line (its key, a dash) blanked so that every
/// item keeps its column.
fn list_after_fix(text: &str, doc: &Document<'_>, fix: &Fix, list: &TolerationList) -> Edited {
    let node = doc.node(list.list.node);
    let Some(flow) = (match node.kind {
        NodeKind::Sequence { flow, .. } if !list.list.whole => Some(flow),
        _ => None,
    }) else {
        return Edited::Elsewhere;
    };
    let span = node.span.clone();
    let line = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let Some(lead) = text.get(line..span.start) else {
        return Edited::Elsewhere;
    };
    // A block sequence's span starts at its first item, after the `- ` that is part of it.
    let start = match (flow, lead.rfind('-')) {
        (false, Some(dash)) => line + dash,
        (false, None) => return Edited::Elsewhere,
        (true, _) => span.start,
    };
    if fix
        .edits
        .iter()
        .any(|e| e.range.start < start || e.range.end > span.end)
    {
        return Edited::Elsewhere;
    }
    let mut fixed: String = " ".repeat(text[line..start].chars().count());
    let base = start - fixed.len();
    fixed.push_str(&text[start..span.end]);
    let mut edits: Vec<_> = fix.edits.iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    for e in edits {
        fixed.replace_range(e.range.start - base..e.range.end - base, &e.replacement);
    }
    // What does not read alone (a syntax error, an alias of an anchor outside the list) is
    // read with its document, as before any fix is taken for harmless.
    let stream = syntax::parse(&fixed);
    let [read] = stream.documents.as_slice() else {
        return Edited::Elsewhere;
    };
    let Some(root) = read.root.filter(|&r| read.sequence(r).is_some()) else {
        return Edited::Elsewhere;
    };
    let unknown_alias = (0..read.nodes_len() as u32)
        .any(|id| matches!(read.node(id).kind, NodeKind::UnknownAlias { .. }));
    if stream.error.is_some() || read.error.is_some() || unknown_alias {
        return Edited::Elsewhere;
    }
    let edited = crate::k8s::objects::List {
        node: root,
        ..list.list.clone()
    };
    Edited::List(
        items(read, &edited)
            .iter()
            .filter_map(|i| i.toleration())
            .collect(),
    )
}

/// The tolerations of the list at `path` once `fix` is applied to the document, or `None`
/// when a fix reaches outside the document or the result does not parse.
fn after_fix(
    text: &str,
    doc: &Document<'_>,
    fix: &Fix,
    path: &str,
    options: &Options,
) -> Option<Vec<Toleration>> {
    let span = doc.span.clone();
    let mut edits: Vec<_> = fix.edits.iter().collect();
    if edits
        .iter()
        .any(|e| e.range.start < span.start || e.range.end > span.end)
    {
        return None;
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut fixed = text.get(span.clone())?.to_string();
    for e in edits {
        fixed.replace_range(
            e.range.start - span.start..e.range.end - span.start,
            &e.replacement,
        );
    }
    let stream = syntax::parse(&fixed);
    if stream.error.is_some() {
        return None;
    }
    let doc = stream
        .documents
        .iter()
        .find(|d| d.root.is_some() && d.error.is_none())?;
    let extracted = extract_known(doc, options.chart_kinds(), Some(options.cluster().crds()));
    Some(
        extracted
            .tolerations
            .iter()
            .find(|l| l.list.path == path)
            .map(|l| tolerations_of(doc, l))
            .unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::{fix_all_with, FixMode};
    use crate::k8s::objects::extract_with;

    const GPU_POOL: &str = "\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
spec:
  taints:
  - key: nvidia.com/gpu
    effect: NoSchedule
";

    const JOB: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  tolerations:
  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 600}
  containers:
  - name: c
    image: x
";

    fn inventory() -> Inventory {
        Inventory::load(&[("nodes.yaml", GPU_POOL)]).expect("inventory")
    }

    fn lint(text: &str, inventory: &Inventory) -> Vec<Diagnostic> {
        crate::analysis::check(
            text,
            crate::analysis::Ask::new(&Options::default(), Some(inventory)),
        )
        .diagnostics
    }

    #[test]
    fn a_fix_that_stops_tolerating_a_cluster_taint_is_by_hand_only_and_says_so() {
        let inv = inventory();
        let found = lint(JOB, &inv);
        let d = found
            .iter()
            .find(|d| d.rule == "toleration-seconds-requires-no-execute")
            .expect("finding");
        assert_eq!(d.fixes[0].title, "Remove `tolerationSeconds`");
        assert_eq!(d.fixes[0].applicability, Applicability::Safe);
        assert_eq!(d.fixes[1].applicability, Applicability::Manual);
        assert!(
            d.fixes[1]
                .title
                .contains("stops tolerating nvidia.com/gpu:NoSchedule"),
            "{}",
            d.fixes[1].title
        );
    }

    #[test]
    fn without_the_taint_in_the_cluster_the_fix_only_needs_review() {
        let inv = Inventory::load(&[("nodes.yaml", &GPU_POOL.replace("nvidia.com/gpu", "x/y"))])
            .expect("inventory");
        let found = lint(JOB, &inv);
        let d = found
            .iter()
            .find(|d| d.rule == "toleration-seconds-requires-no-execute")
            .expect("finding");
        assert_eq!(d.fixes[1].applicability, Applicability::NeedsReview);
    }

    #[test]
    fn bulk_unsafe_fixes_keep_the_gpu_toleration() {
        let inv = inventory();
        let fixed = fix_all_with(JOB, FixMode::Unsafe, |t| lint(t, &inv));
        assert!(fixed.text.contains("effect: NoSchedule}"), "{}", fixed.text);
        assert!(!fixed.text.contains("tolerationSeconds"), "{}", fixed.text);
        assert!(lint(&fixed.text, &inv).is_empty());
    }

    #[test]
    fn a_fix_that_tolerates_more_says_so() {
        let inv = inventory();
        let text = JOB.replace(
            "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 600}",
            "{key: nvidia.com/gpu, operator: Exists, effect: noschedule}",
        );
        let found = lint(&text, &inv);
        let fix = found
            .iter()
            .filter(|d| d.rule == "unknown-effect")
            .flat_map(|d| &d.fixes)
            .next()
            .expect("a fix of the effect");
        assert!(
            fix.title
                .contains("then tolerates nvidia.com/gpu:NoSchedule"),
            "{}",
            fix.title
        );
    }

    /// Every fix of every fixture that edits a toleration list leaves the list the same
    /// tolerations whether only the list is read again or the whole document is.
    #[test]
    fn reading_the_edited_list_alone_agrees_with_reading_the_document() {
        fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("fixtures") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    yaml_files(&path, out);
                } else if path.extension().is_some_and(|e| e == "yaml") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        yaml_files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
            &mut files,
        );
        let options = Options::default();
        let (mut alone, mut elsewhere) = (0, 0);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a fixture");
            let found = crate::analyse(&text, &options);
            let stream = syntax::parse(&text);
            for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
                let lists = extract_with(doc, None).tolerations;
                for d in found.iter().filter(|d| d.document == Some(doc.index)) {
                    let Some(path) = d.path.as_deref() else {
                        continue;
                    };
                    let Some(list) = lists.iter().find(|l| inside(path, &l.list.path)) else {
                        continue;
                    };
                    for fix in &d.fixes {
                        match list_after_fix(&text, doc, fix, list) {
                            Edited::List(after) => {
                                alone += 1;
                                let whole = after_fix(&text, doc, fix, &list.list.path, &options);
                                assert_eq!(
                                    Some(after),
                                    whole,
                                    "{}: {} {:?}",
                                    file.display(),
                                    d.rule,
                                    fix.title
                                );
                            }
                            Edited::Elsewhere => elsewhere += 1,
                        }
                    }
                }
            }
        }
        // Most fixes are judged on their list alone; a merged anchor from outside is not.
        assert!(
            alone > 50 && elsewhere > 0,
            "alone {alone}, elsewhere {elsewhere}"
        );
    }

    /// A Pod whose one toleration (of the GPU pool's taint) has a finding
    /// (`toleration-seconds-requires-no-execute`) in a block list followed by another field.
    const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
    tolerationSeconds: 600
  containers:
  - name: c
    image: x
";

    const CONFIG_MAP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
";

    /// Where `needle` starts in `text`, which holds it once.
    fn at(text: &str, needle: &str) -> usize {
        assert_eq!(text.matches(needle).count(), 1, "{needle:?}");
        text.find(needle).expect("held")
    }

    /// An edit replacing `text[start..end]`, whatever it held, by `replacement`.
    fn edit(start: usize, end: usize, replacement: &str) -> crate::diagnostic::Edit {
        crate::diagnostic::Edit {
            range: start..end,
            replacement: replacement.to_string(),
        }
    }

    /// The fix made of `edits`, given to the finding of document `index` of `text` and guarded
    /// against the GPU pool.
    fn guarded(text: &str, index: usize, edits: Vec<crate::diagnostic::Edit>) -> Fix {
        let options = Options::default();
        let mut found: Vec<Diagnostic> = crate::analyse(text, &options)
            .into_iter()
            .filter(|d| {
                d.document == Some(index) && d.rule == "toleration-seconds-requires-no-execute"
            })
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        found[0].fixes = vec![Fix {
            title: "Edit".to_string(),
            applicability: Applicability::Safe,
            edits,
        }];
        let stream = syntax::parse(text);
        let doc = &stream.documents[index];
        let lists = extract_with(doc, None).tolerations;
        let taints = cluster_taints(&inventory());
        guard(text, doc, &lists, &options, &taints, &mut found);
        found.remove(0).fixes.remove(0)
    }

    const STOPS: &str = "Edit (stops tolerating nvidia.com/gpu:NoSchedule; not applied in bulk)";

    #[test]
    fn a_fix_that_reaches_outside_its_list_is_judged_on_the_document() {
        // Within the list: the key changed.
        let key = at(POD, "nvidia.com/gpu");
        let inside = guarded(
            POD,
            0,
            vec![edit(key, key + "nvidia.com/gpu".len(), "example.com/other")],
        );
        assert_eq!(inside.title, STOPS);
        assert_eq!(inside.applicability, Applicability::Manual);
        // The same change made by an edit from the list's key into the list.
        let from = at(POD, "tolerations:");
        let before = guarded(
            POD,
            0,
            vec![edit(
                from,
                key + "nvidia.com/gpu".len(),
                "tolerations:\n  - key: example.com/other",
            )],
        );
        assert_eq!(
            (before.title, before.applicability),
            (STOPS.into(), Applicability::Manual)
        );
        // And by an edit from the list into the field after it.
        let to = at(POD, "  containers:") + "  containers:".len();
        let past = guarded(
            POD,
            0,
            vec![edit(
                key,
                to,
                "example.com/other\n    operator: Exists\n    effect: NoSchedule\n  containers:",
            )],
        );
        assert_eq!(
            (past.title, past.applicability),
            (STOPS.into(), Applicability::Manual)
        );
    }

    #[test]
    fn a_fix_that_rewrites_the_whole_document_is_judged() {
        let stream = syntax::parse(POD);
        let span = stream.documents[0].span.clone();
        let rewritten = POD[span.clone()].replace("nvidia.com/gpu", "example.com/other");
        let fix = guarded(POD, 0, vec![edit(span.start, span.end, &rewritten)]);
        assert_eq!(fix.title, STOPS);
        assert_eq!(fix.applicability, Applicability::Manual);
        // The document after another one: its span starts after the `---`.
        let text = format!("{CONFIG_MAP}---\n{POD}");
        let stream = syntax::parse(&text);
        let span = stream.documents[1].span.clone();
        let rewritten = text[span.clone()].replace("nvidia.com/gpu", "example.com/other");
        let fix = guarded(&text, 1, vec![edit(span.start, span.end, &rewritten)]);
        assert_eq!(fix.title, STOPS);
    }

    /// A fix is made for its own document; one whose edits reach into another is left as its
    /// rule made it (and no byte outside the document is read as part of it).
    #[test]
    fn a_fix_that_reaches_into_another_document_is_left_as_it_is() {
        let untouched = |fix: Fix| {
            assert_eq!(fix.title, "Edit");
            assert_eq!(fix.applicability, Applicability::Safe);
        };
        let text = format!("{CONFIG_MAP}---\n{POD}");
        let (mode, key) = (at(&text, "fast"), at(&text, "nvidia.com/gpu"));
        untouched(guarded(
            &text,
            1,
            vec![edit(mode, key + "nvidia.com/gpu".len(), "slow\n---\n")],
        ));
        let text = format!("{POD}---\n{CONFIG_MAP}");
        let (key, mode) = (at(&text, "nvidia.com/gpu"), at(&text, "fast"));
        untouched(guarded(
            &text,
            0,
            vec![edit(key, mode, "example.com/other")],
        ));
    }

    /// A fix after which the document does not parse is not judged: the part of the list that
    /// still reads would not say what the fix does. Nor one after which it expands too far
    /// through aliases (the API server's decoder refuses it, `syntax::excessive_aliasing`),
    /// though the list it leaves is whole.
    #[test]
    fn a_fix_that_breaks_the_yaml_is_left_as_it_is() {
        let untouched = |fix: Fix| {
            assert_eq!(fix.title, "Edit");
            assert_eq!(fix.applicability, Applicability::Safe);
        };
        let key = at(POD, "nvidia.com/gpu");
        untouched(guarded(POD, 0, vec![edit(key, key, "[")]));
        // The GPU toleration replaced by a list of lists, each ten aliases of the one before.
        let mut bomb = String::from("[&l0 [x, x, x, x, x, x, x, x, x, x]");
        for level in 1..5 {
            let aliases = vec![format!("*l{}", level - 1); 10].join(", ");
            bomb.push_str(&format!(", &l{level} [{aliases}]"));
        }
        bomb.push(']');
        let item = at(POD, "key: nvidia.com/gpu");
        let end = at(POD, "600") + "600".len();
        let bombed = edit(item, end, &bomb);
        let mut broken = POD.to_string();
        broken.replace_range(bombed.range.clone(), &bombed.replacement);
        let stream = syntax::parse(&broken);
        assert!(stream.documents[0].error.is_some(), "{broken}");
        untouched(guarded(POD, 0, vec![bombed]));
    }

    /// A toleration that is an alias of an anchor outside the list (a `kind: List` whose items
    /// share one) is read with its document: a fix of another item keeps it.
    #[test]
    fn an_alias_of_an_anchor_outside_the_list_keeps_its_toleration() {
        let text = "\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: a
  spec:
    tolerations:
    - &gpu {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
    containers:
    - {name: c, image: x}
- apiVersion: v1
  kind: Pod
  metadata:
    name: b
  spec:
    tolerations:
    - *gpu
    - {key: example.com/batch, operator: Exists, effect: NoSchedule, tolerationSeconds: 60}
    containers:
    - {name: c, image: x}
";
        let inv = inventory();
        let found = lint(text, &inv);
        let d = found
            .iter()
            .find(|d| d.rule == "toleration-seconds-requires-no-execute")
            .expect("finding");
        assert_eq!(
            d.path.as_deref(),
            Some("items[1].spec.tolerations[1].effect")
        );
        let titles: Vec<(&str, Applicability)> = d
            .fixes
            .iter()
            .map(|f| (f.title.as_str(), f.applicability))
            .collect();
        assert_eq!(
            titles,
            [
                ("Remove `tolerationSeconds`", Applicability::Safe),
                (
                    "Set `effect: NoExecute`, changing what it tolerates",
                    Applicability::NeedsReview
                ),
            ]
        );
    }

    /// A fix that rewrites a whole list, from its first dash to its end, is judged on the
    /// list's text alone, as one that edits an item is (reading the document for each would
    /// cost a `kind: List` of thousands of items the whole list each time).
    #[test]
    fn a_fix_that_rewrites_the_whole_list_is_judged_on_the_list_alone() {
        let stream = syntax::parse(POD);
        let doc = &stream.documents[0];
        let lists = extract_with(doc, None).tolerations;
        let list = &lists[0];
        let span = doc.node(list.list.node).span.clone();
        let dash = at(POD, "- key");
        let rewritten = POD[dash..span.end].replace("nvidia.com/gpu", "example.com/other");
        let fix = Fix {
            title: "Edit".to_string(),
            applicability: Applicability::Safe,
            edits: vec![edit(dash, span.end, &rewritten)],
        };
        let Edited::List(after) = list_after_fix(POD, doc, &fix, list) else {
            panic!("read with the document");
        };
        let keys: Vec<&str> = after.iter().map(|t| t.key.as_str()).collect();
        assert_eq!(keys, ["example.com/other"]);
        let options = Options::default();
        assert_eq!(
            Some(after),
            after_fix(POD, doc, &fix, &list.list.path, &options)
        );
    }

    #[test]
    fn paths_inside_a_list() {
        assert!(inside("spec.tolerations[0].effect", "spec.tolerations"));
        assert!(inside("spec.tolerations", "spec.tolerations"));
        assert!(!inside("spec.tolerationsX", "spec.tolerations"));
    }
}
