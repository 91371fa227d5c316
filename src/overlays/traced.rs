//! The findings of rendered overlays, traced to the files to edit and gathered by file: what
//! `lint` reports beside each file's own findings, and what the language server adds to the
//! diagnostics of the same files. One function ([`trace_all`]) for both, so that the editor and
//! the command line put every rendered finding in the same place with the same words.
//!
//! The sources are linted as well, as they always are: a finding a render repeats (the same
//! rule at the same place) is reported once, at the source, with the render's note added
//! ([`merge`]). Where a file's workloads run is the renders' to say, not its text's: a base's
//! Deployment is applied as its overlays patch it ([`with_rendered`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::report::kustomize::{trace, Overlay, Source};

use super::plan::{documents_that_matter, kustomization_in, normalize};
use super::Rendered;

/// Findings of rendered overlays, by the file they belong in: every file a successful render
/// read.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Traced {
    pub files: Vec<Arc<TracedFile>>,
    /// A file's index in `files`, by its canonical path.
    pub by_path: HashMap<PathBuf, usize>,
    /// The overlays' kustomization files (name, text): where the notes point.
    pub kustomizations: Vec<(String, Arc<str>)>,
}

/// One file a successful render read: its name as shown, its text as it was read when the
/// findings were placed in it (their ranges are into that text), and the renders' findings in
/// it, sorted (none, often: the file is there because its workloads are the renders').
#[derive(Debug, Clone, PartialEq)]
pub struct TracedFile {
    pub name: String,
    pub text: Arc<str>,
    /// The overlays whose renders read it, as the notes name them.
    pub overlays: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Traced {
    /// The file's index in [`Traced::files`], if a render read it; `canonical` keeps the
    /// directories already resolved (a run asks for every file it walked).
    pub fn of(&self, path: &Path, canonical: &mut super::plan::Canonical) -> Option<usize> {
        if self.by_path.is_empty() {
            return None;
        }
        self.by_path.get(&canonical.of(path)?).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Lints every successful render's output with `analyse` (given the overlay's kustomization
/// file, to choose the options, and the documents of the output that may matter) and traces
/// the findings to the files to edit. The notes name each overlay as its directory was given,
/// or relative to `named_from` when it is below it (the language server's workspace folder).
pub fn trace_all(
    rendered: &Rendered,
    named_from: Option<&Path>,
    analyse: impl Fn(&Path, &str) -> Vec<Diagnostic>,
) -> Traced {
    let mut traced = Traced::default();
    let mut files: Vec<TracedFile> = Vec::new();
    let mut cache: HashMap<PathBuf, Option<Source>> = HashMap::new();
    for (render, outcome) in rendered.plan.renders.iter().zip(&rendered.outcomes) {
        let Ok((text, root)) = outcome else { continue };
        let text = &documents_that_matter(text);
        let dir = &render.dir;
        let Some(kustomization) = kustomization_in(dir) else {
            continue;
        };
        let Ok(own_text) = std::fs::read_to_string(&kustomization) else {
            continue;
        };
        let found = analyse(&kustomization, text);
        let name = match named_from.and_then(|r| dir.strip_prefix(r).ok()) {
            Some(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => dir.display().to_string(),
        };
        let overlay = Overlay {
            name,
            kustomization: Source {
                name: kustomization.display().to_string(),
                text: own_text.into(),
            },
        };
        traced.kustomizations.push((
            overlay.kustomization.name.clone(),
            overlay.kustomization.text.clone(),
        ));
        // Every file the render read is applied as it renders it, found in or not: its own
        // findings of where its workloads run give way to the render's ([`with_rendered`]).
        for (path, bytes) in &render.closure {
            let Some(Ok(text)) = bytes.as_deref().map(std::str::from_utf8) else {
                continue;
            };
            let i = *traced.by_path.entry(path.clone()).or_insert_with(|| {
                files.push(TracedFile {
                    name: shown(dir, path),
                    text: text.into(),
                    overlays: Vec::new(),
                    diagnostics: Vec::new(),
                });
                files.len() - 1
            });
            if !files[i].overlays.contains(&overlay.name) {
                files[i].overlays.push(overlay.name.clone());
            }
        }
        // Each file the findings may go in, by the name it is shown with.
        let mut names: HashMap<String, (PathBuf, Arc<str>)> = HashMap::new();
        let mut load = |p: &str| -> Option<Source> {
            let path = normalize(&root.join(p));
            let source = cache
                .entry(path.clone())
                .or_insert_with(|| {
                    let text = std::fs::read_to_string(&path).ok()?;
                    let canonical = std::fs::canonicalize(&path).ok()?;
                    Some(Source {
                        name: shown(dir, &canonical),
                        text: text.into(),
                    })
                })
                .clone();
            if let Some(s) = &source {
                names.insert(
                    s.name.clone(),
                    (std::fs::canonicalize(&path).ok()?, s.text.clone()),
                );
            }
            source
        };
        // The overlay's own kustomization is reached by the name it was given.
        let own = std::fs::canonicalize(&kustomization).ok();
        let mut findings = trace(text, found, &overlay, &mut load);
        for t in findings.drain(..) {
            let (canonical, text) = if t.file == overlay.kustomization.name {
                (own.clone(), overlay.kustomization.text.clone())
            } else {
                match names.get(&t.file) {
                    Some((c, text)) => (Some(c.clone()), text.clone()),
                    None => (None, Arc::from("")),
                }
            };
            let Some(canonical) = canonical else { continue };
            let i = *traced.by_path.entry(canonical).or_insert_with(|| {
                files.push(TracedFile {
                    name: t.file.clone(),
                    text,
                    overlays: Vec::new(),
                    diagnostics: Vec::new(),
                });
                files.len() - 1
            });
            merge(&mut files[i].diagnostics, vec![t.diagnostic]);
        }
    }
    for mut f in files {
        sort(&mut f.diagnostics);
        traced.files.push(Arc::new(f));
    }
    traced
}

/// Findings in the order every face reports a file's: by place, then rule.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (a.range.start, a.range.end, a.rule).cmp(&(b.range.start, b.range.end, b.rule))
    });
}

/// A file's own findings with what the renders that read it found there: the file is applied
/// as they render it, so where its workloads run is theirs to say (its own findings of the
/// rules that read the inventory give way to theirs, as `simulate` simulates the renders in
/// place of the files they read); the rest are merged ([`merge`]) and sorted.
pub fn with_rendered(own: &mut Vec<Diagnostic>, rendered: &TracedFile) {
    own.retain(|d| !crate::rules::find(d.rule).is_some_and(|m| m.needs_inventory));
    merge(own, rendered.diagnostics.clone());
    sort(own);
}

/// Adds findings of a render to a file's: one the file already has (the same rule at the same
/// place) gains the render's notes; the others are added.
pub fn merge(into: &mut Vec<Diagnostic>, found: Vec<Diagnostic>) {
    for d in found {
        match into
            .iter_mut()
            .find(|o| o.rule == d.rule && o.range == d.range)
        {
            Some(o) => {
                for r in d.related {
                    if !o.related.contains(&r) {
                        o.related.push(r);
                    }
                }
            }
            None => into.push(d),
        }
    }
}

/// A file an overlay reached, named as the walk names its files: below an ancestor of the
/// overlay's directory as it was given (the overlay `./k8s/overlays/prod` names its base
/// `./k8s/base/app.yaml`, as walking `.` names it), else relative to the working directory when
/// below it, else whole. `path` is canonical.
fn shown(overlay: &Path, path: &Path) -> String {
    for given in overlay.ancestors().filter(|a| !a.as_os_str().is_empty()) {
        let Ok(canonical) = std::fs::canonicalize(given) else {
            continue;
        };
        if let Ok(rest) = path.strip_prefix(&canonical) {
            return given.join(rest).display().to_string();
        }
    }
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|c| std::fs::canonicalize(c).ok());
    match cwd.as_ref().and_then(|c| path.strip_prefix(c).ok()) {
        Some(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}
