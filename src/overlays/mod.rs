//! Kustomize overlays, rendered for every face the same way: which are rendered and how
//! ([`plan`]), running the user's kustomize ([`render`]), and the renders kept between runs
//! ([`cache`]). `lint` and `simulate` both ask [`plan::plan`] and render through
//! [`render_all`]; an inventory given as a kustomize directory asks [`plan::refusal`].
//!
//! This is an edge: it reads files and runs kustomize. What a render's findings are and where
//! they go is the core's and [`crate::report::kustomize`]'s.

pub mod cache;
pub mod plan;
pub mod render;

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
    if plan.renders.is_empty() {
        return Vec::new();
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
        .map(|k| match (cache, k) {
            (Some(c), Some(k)) => c.get(k).map(|e| match e {
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

/// An outcome, which every render has once rendering is done.
fn done_outcome(o: Option<Outcome>) -> Outcome {
    o.unwrap_or_else(|| Err("not rendered".to_string()))
}
