//! Kustomize overlays, rendered for every face the same way: which are rendered and how
//! ([`mod@plan`]), running the user's kustomize ([`render`]), the renders kept between runs
//! ([`cache`]), and their findings traced to the files to edit ([`traced`]). `lint`,
//! `simulate` and the language server all ask [`plan::plan`] and render through
//! [`render_all`]; an inventory given as a kustomize directory asks [`plan::refusal`].
//!
//! This is an edge: it reads files and runs kustomize. What a render's findings are and where
//! they go is the core's and [`crate::report::kustomize`]'s.

pub mod cache;
pub mod plan;
pub mod render;
pub mod traced;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub use cache::Cache;
pub use plan::{candidates, kustomization_in, plan, Decision, Plan, Settings, Skip};
pub use render::Renderer;

/// One render's outcome: kustomize's output and the directory its origin annotations are
/// relative to, or kustomize's message.
pub type Outcome = Result<(String, PathBuf), String>;

/// What a run renders: the plan for the kustomizations met, and the outcomes of its renders
/// (in the plan's order).
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub plan: Plan,
    pub outcomes: Vec<Outcome>,
}

impl Rendered {
    /// The outcome kept for a render of the same directory that reads the same files (same
    /// paths, same bytes), when it fetched no remote base: rendering it again would give the
    /// same.
    pub fn kept(&self, render: &plan::Render) -> Option<&Outcome> {
        if render.remote {
            return None;
        }
        self.plan
            .renders
            .iter()
            .zip(&self.outcomes)
            .find(|(r, _)| {
                r.canonical == render.canonical && !r.remote && r.closure == render.closure
            })
            .map(|(_, o)| o)
    }

    /// Whether another run rendered the same overlays with the same outcomes.
    pub fn same_as(&self, other: &Rendered) -> bool {
        self.outcomes == other.outcomes
            && self.plan.overlays == other.plan.overlays
            && self.plan.renders.len() == other.plan.renders.len()
            && self
                .plan
                .renders
                .iter()
                .zip(&other.plan.renders)
                .all(|(a, b)| {
                    a.dir == b.dir && a.canonical == b.canonical && a.closure == b.closure
                })
    }
}

/// How a run shows that overlays are rendering: a line on standard error, rewritten as each
/// render ends, when standard error is a terminal and the run is not quiet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    Shown,
    Hidden,
}

impl Progress {
    /// Shown on a terminal, unless quiet.
    pub fn on_terminal(quiet: bool) -> Progress {
        if !quiet && std::io::stderr().is_terminal() {
            Progress::Shown
        } else {
            Progress::Hidden
        }
    }
}

/// Renders every render of the plan: from the cache when it holds one for the same inputs,
/// else with kustomize, a process per core at once (and keeps what it rendered). The outcomes
/// are in the plan's order.
pub fn render_all(
    plan: &Plan,
    renderer: &Renderer,
    cache: Option<&Cache>,
    progress: Progress,
) -> Vec<Outcome> {
    render_again(plan, renderer, cache, progress, &Rendered::default())
}

/// [`render_all`], taking the outcome a run before (`kept`) had for a render of the same
/// directory that reads the same files, as the language server renders again when files
/// change: only the overlays whose files changed are rendered again.
pub fn render_again(
    plan: &Plan,
    renderer: &Renderer,
    cache: Option<&Cache>,
    progress: Progress,
    kept: &Rendered,
) -> Vec<Outcome> {
    if plan.renders.is_empty() {
        return Vec::new();
    }
    let kept: Vec<Option<Outcome>> = plan.renders.iter().map(|r| kept.kept(r).cloned()).collect();
    if kept.iter().all(Option::is_some) {
        return kept.into_iter().map(done_outcome).collect();
    }
    let settings = renderer.settings();
    let version = cache.and_then(|c| c.version(renderer).ok());
    let keys: Vec<Option<String>> = plan
        .renders
        .iter()
        .map(|r| match (&version, r.remote) {
            (Some(v), false) => Some(cache::key(r, v, settings.load_restrictor)),
            _ => None,
        })
        .collect();
    let mut outcomes: Vec<Option<Outcome>> = keys
        .iter()
        .zip(kept)
        .map(|(k, kept)| match (kept, cache, k) {
            (Some(o), _, _) => Some(o),
            (None, Some(c), Some(k)) => c.get(k).map(|e| match e {
                cache::Entry::Rendered { text, root } => Ok((text, root)),
                cache::Entry::Failed(m) => Err(m),
            }),
            _ => None,
        })
        .collect();
    let missing: Vec<usize> = (0..outcomes.len())
        .filter(|&i| outcomes[i].is_none())
        .collect();
    if missing.is_empty() {
        return outcomes.into_iter().map(done_outcome).collect();
    }
    let done = AtomicUsize::new(0);
    let shown = Mutex::new(());
    let show = |n: usize| {
        if progress == Progress::Shown {
            let _lock = shown.lock();
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[Ktaintlint: rendering overlays with `{}`: {n}/{}",
                renderer.name(),
                missing.len()
            );
            let _ = err.flush();
        }
    };
    show(0);
    let built: Vec<(usize, Outcome)> = {
        use rayon::prelude::*;
        missing
            .par_iter()
            .map(|&i| {
                let out = renderer.build_traced(&plan.renders[i].dir);
                show(done.fetch_add(1, Ordering::Relaxed) + 1);
                (i, out)
            })
            .collect()
    };
    if progress == Progress::Shown {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[K");
        let _ = err.flush();
    }
    for (i, out) in built {
        if let (Some(c), Some(k)) = (cache, &keys[i]) {
            let entry = match &out {
                Ok((text, root)) => cache::Entry::Rendered {
                    text: text.clone(),
                    root: root.clone(),
                },
                Err(m) => cache::Entry::Failed(m.clone()),
            };
            c.put(k, &entry);
        }
        outcomes[i] = Some(out);
    }
    outcomes.into_iter().map(done_outcome).collect()
}

/// How much a run says of the kustomizations it did not render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Told {
    /// `-q`: the renders that failed, nothing else.
    Quiet,
    /// A line per render that failed and per remote base, a line for the overlays kustomize's
    /// load restrictor refuses, and a count of what was not rendered.
    Short,
    /// `--show-skipped`: every kustomization not rendered and why, kustomize's messages whole.
    Whole,
}

/// What was not rendered, in lines for standard error or a log, each starting `taintlint: `.
/// A render that failed is one line: the overlay, then kustomize's last cause (the innermost
/// kustomization's error, with `base`, the working directory or the workspace, left out of its
/// paths), whole with [`Told::Whole`]. Each remote base is one line with the overlays that need
/// it, and the overlays that read files outside their directory one line together; a last line
/// counts them all and says what is done instead (`verb`: "linting", "simulating").
pub fn notes(
    plan: &Plan,
    outcomes: &[Outcome],
    tool: &str,
    told: Told,
    verb: &str,
    base: Option<&std::path::Path>,
) -> Vec<String> {
    let mut out = Vec::new();
    let whole = told == Told::Whole;
    let short = told == Told::Short;
    // Each remote base once, with the overlays that need it.
    let mut remote: Vec<(String, Vec<String>)> = Vec::new();
    let (mut needs_remote, mut quiet, mut cycles) = (0, 0, 0);
    let mut outside: Vec<String> = Vec::new();
    for (dir, decision) in &plan.overlays {
        let Decision::Skip(skip) = decision else {
            continue;
        };
        if whole {
            out.push(format!(
                "taintlint: {}: not rendered: {}",
                dir.display(),
                skip.reason()
            ));
        }
        match skip {
            Skip::Remote(bases) => {
                needs_remote += 1;
                for b in bases {
                    match remote.iter_mut().find(|(r, _)| r == b) {
                        Some((_, users)) => users.push(dir.display().to_string()),
                        None => remote.push((b.clone(), vec![dir.display().to_string()])),
                    }
                }
            }
            Skip::Outside(_) => outside.push(dir.display().to_string()),
            Skip::Cycle => {
                cycles += 1;
                if short {
                    out.push(format!(
                        "taintlint: {}: not rendered: it builds on itself",
                        dir.display()
                    ));
                }
            }
            Skip::Helm(_) | Skip::Nothing | Skip::Sources => quiet += 1,
        }
    }
    if short {
        for (base, users) in &remote {
            out.push(format!(
                "taintlint: not fetching the remote base {base} (of {}): \
                 `kustomize: {{remote: true}}` in .taintlint.yaml fetches it",
                some_of(users)
            ));
        }
        if !outside.is_empty() {
            out.push(format!(
                "taintlint: kustomize's load restrictor refuses the files outside their \
                 directory that {} read{} (`kustomize: {{load-restrictor: none}}` in \
                 .taintlint.yaml allows them)",
                some_of(&outside),
                if outside.len() == 1 { "s" } else { "" }
            ));
        }
    }
    let mut failed = 0;
    for (render, outcome) in plan.renders.iter().zip(outcomes) {
        if let Err(e) = outcome {
            failed += 1;
            let cause = if whole {
                e.clone()
            } else {
                render::last_cause(e)
            };
            let cause = match base.and_then(|b| std::fs::canonicalize(b).ok()) {
                Some(b) => cause.replace(&format!("{}/", b.display()), ""),
                None => cause,
            };
            out.push(format!("taintlint: {}: {cause}", render.dir.display()));
        }
    }
    if told != Told::Quiet {
        let mut counts: Vec<String> = Vec::new();
        let mut count = |n: usize, what: &str| {
            if n > 0 {
                counts.push(format!("{n} {what}"));
            }
        };
        count(failed, &format!("`{tool}` failed"));
        count(outside.len(), "read outside their directory");
        count(needs_remote, "need a remote base");
        count(cycles, "build on themselves");
        let unrendered = failed + outside.len() + needs_remote + cycles;
        if unrendered > 0 {
            out.push(format!(
                "taintlint: {unrendered} of {} kustomization{} not rendered ({}): {verb} \
                 {} sources only{}",
                plan.overlays.len(),
                if plan.overlays.len() == 1 { "" } else { "s" },
                counts.join(", "),
                if unrendered == 1 { "its" } else { "their" },
                if whole {
                    ""
                } else {
                    "; `--show-skipped` says why for each"
                }
            ));
        }
    }
    if whole && quiet > 0 {
        out.push(format!(
            "taintlint: {quiet} kustomization{} not rendered: no render of {} could change a \
             finding",
            if quiet == 1 { "" } else { "s" },
            if quiet == 1 { "it" } else { "them" }
        ));
    }
    out
}

/// The first of some names, and how many others: `a`, `a and b`, `a and 3 others`.
fn some_of(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [one, two] => format!("{one} and {two}"),
        [one, rest @ ..] => format!("{one} and {} others", rest.len()),
    }
}

/// An outcome, which every render has once rendering is done.
fn done_outcome(o: Option<Outcome>) -> Outcome {
    o.unwrap_or_else(|| Err("not rendered".to_string()))
}
