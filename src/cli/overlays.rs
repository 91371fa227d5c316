//! The kustomizations `lint` and `simulate` meet, rendered and traced back to their sources.
//!
//! Which are rendered, and how, is [`taintlint::overlays::plan`]'s decision (the same for the
//! language server); this module runs it for the command line, says what happened on standard
//! error, and traces the findings of each render to the files to edit. The sources are linted
//! as well, as they always are: a finding the render repeats is reported once, at the source,
//! with a note per overlay that renders it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use taintlint::config_file::ConfigFile;
use taintlint::diagnostic::Diagnostic;
use taintlint::inventory::Inventory;
use taintlint::overlays::plan::normalize;
use taintlint::overlays::plan::Reads;
use taintlint::overlays::{self, Cache, Decision, Plan, Progress, Renderer, Settings, Skip};
use taintlint::report::kustomize::{trace, Overlay, Source};
use taintlint::Options;

use super::input::{config_index, Input};

/// How kustomizations are rendered: the options `lint` and `simulate` share.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct RenderArgs {
    /// What renders the kustomizations met (a directory holding a kustomization, or a walk's
    /// overlays), so that the rendered whole is linted and simulated as it will be applied:
    /// `auto` (kustomize build, else kubectl kustomize), `kustomize`, `kubectl`, or `off`.
    /// Without it, the configuration's `kustomize`, else `auto`. Remote bases are not fetched
    /// and kustomize's load restrictor is kept unless the configuration says otherwise.
    #[arg(long, value_name = "TOOL", value_parser = ["auto", "kustomize", "kubectl", "off"])]
    pub(crate) kustomize: Option<String>,
    /// Neither read nor write the cache of rendered overlays.
    #[arg(long)]
    pub(crate) no_cache: bool,
    /// Where rendered overlays are kept between runs (default: `.taintlint_cache` in the
    /// directory of the configuration file, else the current directory; or
    /// `TAINTLINT_CACHE_DIR`).
    #[arg(long, value_name = "DIR", env = "TAINTLINT_CACHE_DIR")]
    pub(crate) cache_dir: Option<PathBuf>,
    /// On `--base`'s other side: the base tree and the work tree it mirrors. The default cache
    /// is then the work tree's (renders are kept by content: the revision's are found again).
    #[arg(skip)]
    pub(crate) mirrors: Option<(PathBuf, PathBuf)>,
}

impl RenderArgs {
    /// The settings: the flag's tool, and the configurations' remote and load restrictor.
    pub(crate) fn settings(&self, configs: &[(ConfigFile, Options)]) -> Settings {
        Settings::of(self.kustomize.as_deref(), configs.iter().map(|(c, _)| c))
    }

    /// The cache of the run, unless `--no-cache`.
    pub(crate) fn cache(&self, configs: &[(ConfigFile, Options)]) -> Option<Cache> {
        if self.no_cache {
            return None;
        }
        let dir = match &self.cache_dir {
            Some(d) => d.clone(),
            None => {
                let from_cwd = taintlint::config_file::discover(Path::new("."));
                let config = configs
                    .iter()
                    .find(|(c, _)| c.path.is_some() && c.path == from_cwd)
                    .or_else(|| configs.iter().find(|(c, _)| c.path.is_some()));
                let base = config
                    .and_then(|(c, _)| c.path.as_ref())
                    .and_then(|p| p.parent())
                    .map(Path::to_path_buf)
                    .unwrap_or_default();
                let dir = base.join(overlays::cache::DIR_NAME);
                match &self.mirrors {
                    Some((tree, worktree)) => {
                        let absolute = std::path::absolute(&dir).unwrap_or(dir);
                        match absolute.strip_prefix(tree) {
                            Ok(inside) => worktree.join(inside),
                            Err(_) => absolute,
                        }
                    }
                    None => dir,
                }
            }
        };
        Some(Cache::new(dir))
    }
}

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

/// What the run renders: the plan for the kustomizations met, and their renders' outcomes (in
/// the plan's order), once said on standard error.
pub(crate) struct Rendered {
    pub(crate) plan: Plan,
    pub(crate) outcomes: Vec<overlays::Outcome>,
}

/// Plans and renders the kustomizations `paths` name and the walks found (`inputs`, each with
/// whether a walk found it), and says on standard error what was not rendered: each remote
/// base once, each overlay that failed in a line with kustomize's last cause, and with
/// `show_skipped` every overlay not rendered and why, failures whole. `verb` says what is done
/// instead ("linting", "simulating"); `reads`, what it reads of a render.
#[allow(clippy::too_many_arguments)]
pub(crate) fn render(
    paths: &[PathBuf],
    inputs: &[(Input, bool)],
    args: &RenderArgs,
    configs: &[(ConfigFile, Options)],
    reads: Reads,
    progress: Progress,
    show_skipped: bool,
    verb: &str,
) -> Rendered {
    let settings = args.settings(configs);
    let files = inputs.iter().filter_map(|(i, walked)| match i {
        Input::File(p, _) => Some((p.as_path(), *walked)),
        Input::Stdin(_) => None,
    });
    let candidates = overlays::candidates(paths, files);
    let mut rendered = Rendered {
        plan: Plan::default(),
        outcomes: Vec::new(),
    };
    if candidates.is_empty() || settings.tool == taintlint::config_file::Kustomize::Off {
        return rendered;
    }
    let renderer = match Renderer::find(settings) {
        Ok(Some(r)) => r,
        Ok(None) => return rendered,
        Err(missing) => {
            let names: Vec<String> = candidates.iter().map(|d| d.display().to_string()).collect();
            eprintln!(
                "taintlint: {missing} to render {} (`--kustomize`): {verb} the sources only",
                names.join(", ")
            );
            return rendered;
        }
    };
    let walked: HashSet<PathBuf> = inputs
        .iter()
        .filter_map(|(i, _)| match i {
            Input::File(p, _) => std::fs::canonicalize(p).ok(),
            Input::Stdin(_) => None,
        })
        .collect();
    let plan = overlays::plan(&candidates, &walked, &settings, reads);
    let cache = args.cache(configs);
    let outcomes = overlays::render_all(&plan, &renderer, cache.as_ref(), progress);
    say(&plan, &outcomes, renderer.name(), show_skipped, verb);
    rendered.plan = plan;
    rendered.outcomes = outcomes;
    rendered
}

/// What was not rendered, on standard error.
fn say(plan: &Plan, outcomes: &[overlays::Outcome], tool: &str, show_skipped: bool, verb: &str) {
    // Each remote base once, with the overlays that need it.
    let mut remote: Vec<(String, Vec<String>)> = Vec::new();
    let mut quiet = 0;
    for (dir, decision) in &plan.overlays {
        match decision {
            Decision::Skip(Skip::Remote(bases)) => {
                for b in bases {
                    match remote.iter_mut().find(|(r, _)| r == b) {
                        Some((_, users)) => users.push(dir.display().to_string()),
                        None => remote.push((b.clone(), vec![dir.display().to_string()])),
                    }
                }
                if show_skipped {
                    eprintln!(
                        "taintlint: {}: not rendered: {}",
                        dir.display(),
                        Skip::Remote(bases.clone()).reason()
                    );
                }
            }
            Decision::Skip(skip @ (Skip::Outside(_) | Skip::Cycle)) => {
                eprintln!(
                    "taintlint: {}: not rendered: {}; {verb} its sources only",
                    dir.display(),
                    skip.reason()
                );
            }
            Decision::Skip(skip) => {
                quiet += 1;
                if show_skipped {
                    eprintln!(
                        "taintlint: {}: not rendered: {}",
                        dir.display(),
                        skip.reason()
                    );
                }
            }
            Decision::Render(_) => {}
        }
    }
    for (base, users) in &remote {
        let (first, more) = (users[0].as_str(), users.len() - 1);
        let others = match more {
            0 => String::new(),
            1 => " and 1 other".to_string(),
            n => format!(" and {n} others"),
        };
        eprintln!(
            "taintlint: not fetching the remote base {base} (of {first}{others}): {verb} \
             the sources only; `kustomize: {{remote: true}}` in .taintlint.yaml fetches it"
        );
    }
    for (render, outcome) in plan.renders.iter().zip(outcomes) {
        if let Err(e) = outcome {
            let shown = if show_skipped {
                e.clone()
            } else {
                overlays::render::last_cause(e)
            };
            eprintln!(
                "taintlint: {}: `{tool}` failed: {shown}; {verb} its sources only",
                render.dir.display()
            );
        }
    }
    if show_skipped && quiet > 0 {
        eprintln!(
            "taintlint: {quiet} kustomization{} not rendered: no render of {} could change a \
             finding",
            if quiet == 1 { "" } else { "s" },
            if quiet == 1 { "it" } else { "them" }
        );
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

/// What `lint` reads of a render: where workloads can run when there is an inventory or a
/// toleration policy, else the tolerations and taints alone.
pub(crate) fn lint_reads(configs: &[(ConfigFile, Options)], inventory: bool) -> Reads {
    let policy = configs
        .iter()
        .any(|(_, o)| o.policy().is_some() || o.admission_enabled("PodTolerationRestriction"));
    if inventory || policy {
        Reads::Placement
    } else {
        Reads::Tolerations
    }
}

/// Lints every render's output and traces the findings to the files to edit.
pub(crate) fn trace_all(
    rendered: &Rendered,
    configs: &[(ConfigFile, Options)],
    inventory: Option<&Inventory>,
) -> Traced {
    let mut traced = Traced::default();
    let mut cache: HashMap<PathBuf, Option<Source>> = HashMap::new();
    for (render, outcome) in rendered.plan.renders.iter().zip(&rendered.outcomes) {
        let Ok((text, root)) = outcome else { continue };
        let text = &overlays::plan::documents_that_matter(text);
        let dir = &render.dir;
        let Some(kustomization) = overlays::kustomization_in(dir) else {
            continue;
        };
        let Ok(own_text) = std::fs::read_to_string(&kustomization) else {
            continue;
        };
        let (config, options) = &configs[config_index(dir, configs)];
        let options = config.options_for(options, Some(&kustomization));
        let found = taintlint::analyse_with(text, &options, inventory);
        let overlay = Overlay {
            name: dir.display().to_string(),
            kustomization: Source {
                name: kustomization.display().to_string(),
                text: own_text.into(),
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

/// The overlays rendered as they will be applied, for `simulate`: each (its directory as shown,
/// its output), and the canonical directories of the kustomizations they stand for.
pub(crate) fn for_simulate(rendered: &Rendered) -> (Vec<(String, String)>, Vec<PathBuf>) {
    let mut out = Vec::new();
    for (render, outcome) in rendered.plan.renders.iter().zip(&rendered.outcomes) {
        if let Ok((text, _)) = outcome {
            out.push((
                render.dir.display().to_string(),
                overlays::plan::documents_that_matter(text),
            ));
        }
    }
    // The directories of the renders that failed are simulated as their sources.
    let failed: HashSet<&PathBuf> = rendered
        .plan
        .renders
        .iter()
        .zip(&rendered.outcomes)
        .filter(|(_, o)| o.is_err())
        .map(|(r, _)| &r.canonical)
        .collect();
    let mut plan = rendered.plan.clone();
    plan.renders.retain(|r| !failed.contains(&r.canonical));
    plan.overlays.retain(|(_, d)| match d {
        Decision::Render(i) => !failed.contains(&rendered.plan.renders[*i].canonical),
        Decision::Skip(_) => false,
    });
    (out, plan.covered())
}

/// Whether a file lies directly in one of the directories (canonical).
pub(crate) fn is_in(file: &Path, dirs: &[PathBuf]) -> bool {
    file.parent()
        .and_then(|p| std::fs::canonicalize(p).ok())
        .is_some_and(|p| dirs.contains(&p))
}
