//! The kustomizations `lint` and `simulate` meet, rendered and traced back to their sources.
//!
//! Which are rendered, and how, is [`taintlint::overlays::plan`]'s decision (the same for the
//! language server); this module runs it for the command line, says what happened on standard
//! error, and traces the findings of each render to the files to edit
//! ([`taintlint::overlays::traced`], as the server traces them). The sources are linted as
//! well, as they always are: a finding the render repeats is reported once, at the source,
//! with a note per overlay that renders it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use clap::Args;
use taintlint::analysis::{Ask, PodTemplates};
use taintlint::config_file::ConfigFile;
use taintlint::inventory::Inventory;
use taintlint::overlays::plan::Reads;
use taintlint::overlays::{self, Cache, Plan, Progress, Renderer, Settings, Told};
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

pub(crate) use taintlint::overlays::traced::{with_rendered, Traced};
pub(crate) use taintlint::overlays::Rendered;

/// Plans and renders the kustomizations `paths` name and the walks found (`inputs`, each with
/// whether a walk found it), and says on standard error what was not rendered: each remote
/// base once, each overlay that failed in a line with kustomize's last cause, and a count (see
/// [`overlays::notes`]; `told` says how much). `verb` says what is done instead ("linting",
/// "simulating"); `reads`, what it reads of a render.
#[allow(clippy::too_many_arguments)]
pub(crate) fn render(
    paths: &[PathBuf],
    inputs: &[(Input, bool)],
    args: &RenderArgs,
    configs: &[(ConfigFile, Options)],
    reads: Reads,
    progress: Progress,
    told: Told,
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
    let walked: HashSet<PathBuf> =
        overlays::plan::canonical_set(inputs.iter().filter_map(|(i, _)| match i {
            Input::File(p, _) => Some(p.as_path()),
            Input::Stdin(_) => None,
        }));
    let plan = overlays::plan(&candidates, &walked, &settings, reads);
    let cache = args.cache(configs);
    let outcomes = overlays::render_all(&plan, &renderer, cache.as_ref(), progress);
    let cwd = std::env::current_dir().ok();
    for line in overlays::notes(
        &plan,
        &outcomes,
        renderer.name(),
        told,
        verb,
        cwd.as_deref(),
    ) {
        eprintln!("{line}");
    }
    rendered.plan = plan;
    rendered.outcomes = outcomes;
    rendered
}

/// How much a run says of what it did not render: `--show-skipped` all, `-q` the failures.
pub(crate) fn told(quiet: bool, show_skipped: bool) -> Told {
    if show_skipped {
        Told::Whole
    } else if quiet {
        Told::Quiet
    } else {
        Told::Short
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

/// Lints every render's output and traces the findings to the files to edit; with the pod
/// templates the renders hold (judged in place of those of the files they read).
pub(crate) fn trace_all(
    rendered: &Rendered,
    configs: &[(ConfigFile, Options)],
    inventory: Option<&Inventory>,
) -> (Traced, PodTemplates) {
    let templates = std::cell::RefCell::new(PodTemplates::default());
    let traced = taintlint::overlays::traced::trace_all(rendered, None, |kustomization, text| {
        let (config, options) = &configs[config_index(kustomization, configs)];
        let options = config.options_for(options, Some(kustomization));
        let analysis = taintlint::analysis::check(text, Ask::new(&options, inventory));
        *templates.borrow_mut() += analysis.templates;
        analysis.diagnostics
    });
    (traced, templates.into_inner())
}

/// The overlays rendered as they will be applied, for `simulate`: each (its directory as shown,
/// its output), and the files the renders read (canonical), which they stand for.
pub(crate) fn for_simulate(rendered: &Rendered) -> (Vec<(String, String)>, HashSet<PathBuf>) {
    let mut out = Vec::new();
    let mut read = HashSet::new();
    for (render, outcome) in rendered.plan.renders.iter().zip(&rendered.outcomes) {
        // A render that failed is simulated as its sources.
        if let Ok((text, _)) = outcome {
            out.push((
                render.dir.display().to_string(),
                overlays::plan::documents_that_matter(text),
            ));
            read.extend(render.closure.iter().map(|(path, _)| path.clone()));
        }
    }
    (out, read)
}
