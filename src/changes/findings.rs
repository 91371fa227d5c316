//! Which findings a change introduces: the findings of the working tree, less those the base
//! revision already had. A finding is the same as one at the base revision when it is of the
//! same rule in the same object (kind, namespace, name), wherever its line moved: first the one
//! that also says the same at the same field path, then the one that says the same, then any of
//! that rule in that object, so that an object with one old finding and one new one reports the
//! new one. A finding of a file that is gone from the working tree (moved or renamed) is matched
//! in any file, by object. Each finding at the base revision excuses one finding at most.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use serde::Deserialize;

use super::lines::Changed;
use crate::diagnostic::{Diagnostic, ObjectRef, Related};

/// A finding as `lint --format json` gives it, as far as telling findings apart goes.
#[derive(Debug, Clone, Deserialize)]
struct Finding {
    file: String,
    rule: String,
    message: String,
    path: Option<String>,
    #[serde(default)]
    object: Object,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, Hash)]
struct Object {
    kind: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
}

#[derive(Deserialize)]
struct LintJson {
    diagnostics: Vec<Finding>,
}

/// The ways a finding is matched, most alike first: (same file, same field path, same message).
/// A pass without the file matches only findings of files gone from the working tree.
const PASSES: [(bool, bool, bool); 6] = [
    (true, true, true),
    (true, false, true),
    (false, false, true),
    (true, true, false),
    (true, false, false),
    (false, false, false),
];

/// The findings of the base revision, each excusing one finding of the working tree.
#[derive(Debug, Default)]
pub struct Baseline {
    /// By file: each finding's keys (one per pass) and whether it excused one already.
    files: HashMap<String, Vec<(Vec<u64>, bool)>>,
    /// The files at the base revision that the working tree no longer has.
    gone: HashSet<String>,
    /// Built on first use: per file, (pass, key) -> findings.
    index: HashMap<String, HashMap<(usize, u64), Vec<usize>>>,
}

fn key(
    pass: usize,
    file: &str,
    rule: &str,
    object: (&Option<String>, &Option<String>, &Option<String>),
    path: Option<&str>,
    message: &str,
) -> u64 {
    let (same_file, same_path, same_message) = PASSES[pass];
    let mut h = DefaultHasher::new();
    pass.hash(&mut h);
    if same_file {
        file.hash(&mut h);
    }
    rule.hash(&mut h);
    object.hash(&mut h);
    if same_path {
        path.hash(&mut h);
    }
    if same_message {
        message.hash(&mut h);
    }
    h.finish()
}

impl Baseline {
    /// Reads `lint --format json` of the base revision; `exists` says whether a file it names
    /// is still in the working tree.
    pub fn from_json(
        json: &[u8],
        rename: impl Fn(&str) -> String,
        exists: impl Fn(&str) -> bool,
    ) -> Result<Baseline, String> {
        let parsed: LintJson =
            serde_json::from_slice(json).map_err(|e| format!("not lint's JSON: {e}"))?;
        let mut b = Baseline::default();
        for f in parsed.diagnostics {
            let file = rename(&f.file);
            b.add(&file, &f.rule, &f.object, f.path.as_deref(), &f.message);
        }
        b.gone = b.files.keys().filter(|f| !exists(f)).cloned().collect();
        Ok(b)
    }

    fn add(&mut self, file: &str, rule: &str, o: &Object, path: Option<&str>, message: &str) {
        let object = (&o.kind, &o.namespace, &o.name);
        let keys = (0..PASSES.len())
            .map(|p| key(p, file, rule, object, path, message))
            .collect();
        self.files
            .entry(file.to_string())
            .or_default()
            .push((keys, false));
    }

    /// How many findings of the base revision it holds.
    pub fn len(&self) -> usize {
        self.files.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn index_of(&mut self, file: &str) {
        if self.index.contains_key(file) {
            return;
        }
        let mut index: HashMap<(usize, u64), Vec<usize>> = HashMap::new();
        if let Some(found) = self.files.get(file) {
            for (i, (keys, _)) in found.iter().enumerate().rev() {
                for (p, k) in keys.iter().enumerate() {
                    index.entry((p, *k)).or_default().push(i);
                }
            }
        }
        self.index.insert(file.to_string(), index);
    }

    /// Finds an unused finding of `file` with key `k` for pass `p`, and uses it.
    fn take(&mut self, file: &str, p: usize, k: u64) -> bool {
        self.index_of(file);
        let Some(list) = self
            .index
            .get_mut(file)
            .and_then(|index| index.get_mut(&(p, k)))
        else {
            return false;
        };
        let found = self.files.get_mut(file).expect("indexed");
        while let Some(i) = list.pop() {
            if !found[i].1 {
                found[i].1 = true;
                return true;
            }
        }
        false
    }

    /// Which of `findings` (of one file of the working tree, named `file`) are new: each
    /// `false` is excused by a finding of the base revision, which then excuses no other.
    pub fn new_findings(&mut self, file: &str, findings: &[Diagnostic]) -> Vec<bool> {
        let mut new = vec![true; findings.len()];
        let none = ObjectRef::default();
        let mut gone: Vec<String> = self.gone.iter().cloned().collect();
        gone.sort();
        for (p, &(same_file, _, _)) in PASSES.iter().enumerate() {
            for (i, d) in findings.iter().enumerate() {
                if !new[i] {
                    continue;
                }
                let o = d.object.as_ref().unwrap_or(&none);
                let object = (&o.kind, &o.namespace, &o.name);
                let k = key(p, file, d.rule, object, d.path.as_deref(), &d.message);
                if same_file {
                    new[i] = !self.take(file, p, k);
                } else if o.kind.is_some() && o.name.is_some() {
                    new[i] = !gone.iter().any(|g| self.take(g, p, k));
                }
            }
        }
        new
    }
}

/// Where a new finding is shown for review: a place among its related locations that the
/// change touched (the taint added to a pool file, for a workload that no longer fits), when its
/// own place is not one. `line_of` gives the 1-based lines a related location spans (`None`
/// when its file's text is not known); `changed` the lines the change touched in a file (`None`
/// for the finding's own file).
pub fn caused_at(
    d: &Diagnostic,
    own_lines: std::ops::Range<usize>,
    changed: &dyn Fn(Option<&str>) -> Option<Changed>,
    line_of: &dyn Fn(&Related) -> Option<std::ops::Range<usize>>,
) -> Option<usize> {
    let touched = |file: Option<&str>, lines: std::ops::Range<usize>| {
        changed(file).is_some_and(|c| c.touches_any(lines))
    };
    if touched(None, own_lines) {
        return None;
    }
    d.related
        .iter()
        .position(|r| line_of(r).is_some_and(|lines| touched(r.file.as_deref(), lines)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn finding(rule: &'static str, name: &str, path: &str, message: &str) -> Diagnostic {
        Diagnostic {
            rule,
            severity: Severity::Error,
            message: message.to_string(),
            server_message: None,
            range: 0..1,
            document: Some(0),
            path: Some(path.to_string()),
            object: Some(ObjectRef {
                kind: Some("Deployment".to_string()),
                name: Some(name.to_string()),
                namespace: None,
            }),
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    fn json(findings: &[(&str, &str, &str, &str, &str)]) -> Vec<u8> {
        let list: Vec<serde_json::Value> = findings
            .iter()
            .map(|(file, rule, name, path, message)| {
                serde_json::json!({
                    "file": file, "rule": rule, "message": message, "path": path,
                    "object": {"kind": "Deployment", "name": name, "namespace": null},
                })
            })
            .collect();
        serde_json::to_vec(&serde_json::json!({ "version": 1, "diagnostics": list })).unwrap()
    }

    /// An old finding whose line moved is not new; a second finding of the same rule in the same
    /// object is; a finding of a renamed file is matched in its new file.
    #[test]
    fn old_findings_excuse_one_each() {
        let base = json(&[
            ("a.yaml", "empty-value", "web", "t[0]", "value is empty"),
            ("old.yaml", "empty-value", "db", "t[0]", "value is empty"),
        ]);
        let mut b = Baseline::from_json(&base, str::to_string, |f| f != "old.yaml").unwrap();
        assert_eq!(b.len(), 2);
        let now = [
            // Moved from t[0] to t[1], and a new one at t[0] saying something else.
            finding("empty-value", "web", "t[1]", "value is empty"),
            finding("empty-value", "web", "t[0]", "value is empty again"),
        ];
        assert_eq!(b.new_findings("a.yaml", &now), vec![false, true]);
        // The renamed file's finding.
        let renamed = [finding("empty-value", "db", "t[0]", "value is empty")];
        assert_eq!(b.new_findings("new.yaml", &renamed), vec![false]);
        // Used up: the same finding again is new.
        assert_eq!(b.new_findings("new.yaml", &renamed), vec![true]);
        // Another rule in the same object is new.
        let other = [finding("unknown-effect", "web", "t[0]", "value is empty")];
        assert_eq!(b.new_findings("a.yaml", &other), vec![true]);
    }

    /// Of one object's two old findings of a rule, the one that says the same is matched first,
    /// whatever the order.
    #[test]
    fn the_most_alike_is_matched_first() {
        let base = json(&[
            ("a.yaml", "r", "web", "t[0]", "one"),
            ("a.yaml", "r", "web", "t[1]", "two"),
        ]);
        let mut b = Baseline::from_json(&base, str::to_string, |_| true).unwrap();
        let now = [
            finding("r", "web", "t[0]", "three"),
            finding("r", "web", "t[0]", "two"),
            finding("r", "web", "t[2]", "one"),
        ];
        // `two` and `one` match theirs; nothing is left for `three`, which is new.
        assert_eq!(b.new_findings("a.yaml", &now), vec![true, false, false]);
    }

    #[test]
    fn a_finding_on_a_changed_line_stays_there() {
        let mut d = finding("r", "web", "t[0]", "m");
        d.related.push(Related {
            file: Some("pools.yaml".to_string()),
            range: 0..1,
            message: "pool".to_string(),
        });
        let pools = Changed::between("a\nb\n", "a\nc\n");
        let changed = |file: Option<&str>| match file {
            Some("pools.yaml") => Some(pools.clone()),
            _ => Some(Changed::default()),
        };
        let line_of = |_: &Related| Some(2..3);
        assert_eq!(caused_at(&d, 5..6, &changed, &line_of), Some(0));
        let own = |file: Option<&str>| match file {
            None => Some(Changed::between("a\n", "b\n")),
            _ => Some(pools.clone()),
        };
        assert_eq!(caused_at(&d, 1..2, &own, &line_of), None);
        let far = |_: &Related| Some(1..2);
        assert_eq!(caused_at(&d, 5..6, &changed, &far), None);
    }
}
