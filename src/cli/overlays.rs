//! The kustomizations `lint` and `simulate` meet, rendered and traced back to their sources.
//!
//! Which are rendered: a directory named on the command line that holds a kustomization, and,
//! in a directory walk, each kustomization no other one in the walk builds on (the overlays,
//! not their bases and components: a base is linted as the files it is made of, and through
//! every overlay that renders it). A `kind: Component` is rendered only through its users.
//! The sources are linted as well, as they always are: a finding the render repeats is
//! reported once, at the source, with a note per overlay that renders it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use taintlint::config_file::{ConfigFile, Kustomize};
use taintlint::diagnostic::Diagnostic;
use taintlint::inventory::kustomize::{is_component, references, KUSTOMIZATION_FILES};
use taintlint::inventory::Inventory;
use taintlint::report::kustomize::{trace, Overlay, Source};
use taintlint::Options;

use super::input::{config_index, Input};
use super::render::{kustomization_in, normalize, Renderer};

/// Findings of rendered overlays, by the file they belong in.
#[derive(Default)]
pub(crate) struct Traced {
    pub(crate) files: Vec<TracedFile>,
    /// A file's index in `files`, by its canonical path.
    pub(crate) by_path: HashMap<PathBuf, usize>,
    /// The overlays' kustomization files (name, text): where the notes point.
    pub(crate) kustomizations: Vec<(String, Arc<str>)>,
}

pub(crate) struct TracedFile {
    pub(crate) name: String,
    pub(crate) text: Arc<str>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Traced {
    /// The traced findings for an input file, if it has any.
    pub(crate) fn of(&self, path: &Path) -> Option<usize> {
        if self.by_path.is_empty() {
            return None;
        }
        let canonical = std::fs::canonicalize(path).ok()?;
        self.by_path.get(&canonical).copied()
    }
}

/// The kustomization directories to render, in order: those named, then the walks' overlays.
pub(crate) fn to_render(paths: &[PathBuf], inputs: &[(Input, bool)]) -> Vec<PathBuf> {
    let mut named: Vec<PathBuf> = paths
        .iter()
        .filter(|p| {
            p.is_dir()
                && kustomization_in(p)
                    .and_then(|k| std::fs::read_to_string(k).ok())
                    .is_some_and(|text| !is_component(&text))
        })
        .cloned()
        .collect();
    // The kustomizations the walks found, and every directory one of them builds on.
    let mut found: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut built_on: Vec<PathBuf> = Vec::new();
    for (input, walked) in inputs {
        let Input::File(file, _) = input else {
            continue;
        };
        let is_kustomization = file
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| KUSTOMIZATION_FILES.contains(&n));
        if !is_kustomization {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        for r in references(&text) {
            if let Ok(c) = std::fs::canonicalize(dir.join(r)) {
                built_on.push(c);
            }
        }
        if *walked && !is_component(&text) {
            if let Ok(c) = std::fs::canonicalize(&dir) {
                found.push((dir, c));
            }
        }
    }
    let named_canonical: Vec<PathBuf> = named
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    for (dir, canonical) in found {
        if !built_on.contains(&canonical) && !named_canonical.contains(&canonical) {
            named.push(dir);
        }
    }
    named
}

/// What renders the kustomizations: the flag's choice, else the first configuration's that
/// makes one, else `auto`.
pub(crate) fn mode(flag: Option<&str>, configs: &[(ConfigFile, Options)]) -> Kustomize {
    flag.and_then(Kustomize::parse)
        .or_else(|| configs.iter().find_map(|(c, _)| c.kustomize))
        .unwrap_or_default()
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

/// Renders every directory of `dirs` with its origin annotations, lints the output, and traces the findings to the files to edit. Says on stderr, once, when nothing
/// can render them, and for each overlay that does not build (its sources are still linted).
pub(crate) fn render_and_trace(
    dirs: &[PathBuf],
    mode: Kustomize,
    configs: &[(ConfigFile, Options)],
    inventory: Option<&Inventory>,
) -> Traced {
    let mut traced = Traced::default();
    if dirs.is_empty() {
        return traced;
    }
    let renderer = match Renderer::find(mode) {
        Ok(Some(r)) => r,
        Ok(None) => return traced,
        Err(missing) => {
            let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            eprintln!(
                "taintlint: {missing} to render {} (`--kustomize`): linting the sources only",
                names.join(", ")
            );
            return traced;
        }
    };
    let mut cache: HashMap<PathBuf, Option<Source>> = HashMap::new();
    // The renders run on every core (each is a process of its own), the tracing in order.
    let builds: Vec<_> = {
        use rayon::prelude::*;
        dirs.par_iter()
            .map(|dir| renderer.build_traced(dir))
            .collect()
    };
    for (dir, build) in dirs.iter().zip(builds) {
        let Some(kustomization) = kustomization_in(dir) else {
            continue;
        };
        let (rendered, root) = match build {
            Ok(r) => r,
            Err(e) => {
                eprintln!(
                    "taintlint: {}: {e}; linting its sources only",
                    dir.display()
                );
                continue;
            }
        };
        let Ok(root) = std::fs::canonicalize(root.path()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&kustomization) else {
            continue;
        };
        let (config, options) = &configs[config_index(dir, configs)];
        let options = config.options_for(options, Some(&kustomization));
        let found = taintlint::analyse_with(&rendered, &options, inventory);
        let overlay = Overlay {
            name: dir.display().to_string(),
            kustomization: Source {
                name: kustomization.display().to_string(),
                text: text.into(),
            },
        };
        traced.kustomizations.push((
            overlay.kustomization.name.clone(),
            overlay.kustomization.text.clone(),
        ));
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
        let mut findings = trace(&rendered, found, &overlay, &mut load);
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
                traced.files.push(TracedFile {
                    name: t.file.clone(),
                    text,
                    diagnostics: Vec::new(),
                });
                traced.files.len() - 1
            });
            merge(&mut traced.files[i].diagnostics, vec![t.diagnostic]);
        }
    }
    for f in &mut traced.files {
        f.diagnostics.sort_by(|a, b| {
            (a.range.start, a.range.end, a.rule).cmp(&(b.range.start, b.range.end, b.rule))
        });
    }
    traced
}

/// Adds findings of a render to a file's: one the file already has (the same rule at the same
/// place) gains the render's notes; the others are added.
pub(crate) fn merge(into: &mut Vec<Diagnostic>, found: Vec<Diagnostic>) {
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

/// The overlays rendered as they will be applied, for `simulate`: each (its directory as given,
/// its output), and the canonical directories of the kustomizations they build on (their own
/// included), whose files the renders stand for. Says on stderr, once, when nothing can render
/// them, and for each that does not build.
pub(crate) fn render_for_simulate(
    dirs: &[PathBuf],
    mode: Kustomize,
) -> (Vec<(String, String)>, Vec<PathBuf>) {
    let mut rendered = Vec::new();
    let mut covered = Vec::new();
    if dirs.is_empty() {
        return (rendered, covered);
    }
    let renderer = match Renderer::find(mode) {
        Ok(Some(r)) => r,
        Ok(None) => return (rendered, covered),
        Err(missing) => {
            let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            eprintln!(
                "taintlint: {missing} to render {} (`--kustomize`): simulating the sources only",
                names.join(", ")
            );
            return (rendered, covered);
        }
    };
    let builds: Vec<_> = {
        use rayon::prelude::*;
        dirs.par_iter().map(|dir| renderer.build(dir)).collect()
    };
    for (dir, build) in dirs.iter().zip(builds) {
        match build {
            Ok(text) => {
                rendered.push((dir.display().to_string(), text));
                built_on(dir, &mut covered);
            }
            Err(e) => eprintln!(
                "taintlint: {}: {e}; simulating its sources only",
                dir.display()
            ),
        }
    }
    (rendered, covered)
}

/// Adds `dir` and every local kustomization directory it builds on, canonical, to `out`.
fn built_on(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(canonical) = std::fs::canonicalize(dir) else {
        return;
    };
    if out.contains(&canonical) {
        return;
    }
    out.push(canonical);
    let Some(text) = kustomization_in(dir).and_then(|k| std::fs::read_to_string(k).ok()) else {
        return;
    };
    for r in references(&text) {
        let next = dir.join(r);
        if next.is_dir() {
            built_on(&next, out);
        }
    }
}

/// Whether a file lies directly in one of the directories (canonical).
pub(crate) fn is_in(file: &Path, dirs: &[PathBuf]) -> bool {
    file.parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .is_some_and(|p| dirs.contains(&p))
}
