//! The command line's paths: walking directories in a stable order, reading files and standard
//! input, writing fixes back.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use taintlint::config_file::{self, ConfigFile};
use taintlint::Options;

/// An input to lint, and the configuration it is linted with (an index into the loaded ones).
pub(crate) enum Input {
    Stdin(usize),
    File(PathBuf, usize),
}

impl Input {
    pub(crate) fn name(&self) -> String {
        match self {
            Input::Stdin(_) => "-".to_string(),
            Input::File(p, _) => p.display().to_string(),
        }
    }

    pub(crate) fn config(&self) -> usize {
        match self {
            Input::Stdin(c) | Input::File(_, c) => *c,
        }
    }
}

pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Standard input can be read once: as the manifests or as the inventory, not both.
pub(crate) fn one_stdin(paths: &[PathBuf], inventory: &[PathBuf]) -> Result<(), String> {
    let stdin = |p: &&PathBuf| p.as_os_str() == "-";
    let count = paths.iter().filter(stdin).count() + inventory.iter().filter(stdin).count();
    if count > 1 {
        return Err(
            "standard input (`-`) can be read only once: give it as the manifests or as the \
             inventory, not both"
                .to_string(),
        );
    }
    Ok(())
}

/// The index of the configuration for a command-line path.
pub(crate) fn config_index(path: &Path, configs: &[(ConfigFile, Options)]) -> usize {
    if configs.len() == 1 {
        return 0;
    }
    let found = config_file::discover(path);
    configs
        .iter()
        .position(|(c, _)| c.path == found)
        .unwrap_or(0)
}

/// Expands the command line's paths into files, in a stable order: each argument in turn, and
/// a directory's files sorted by path. A directory walk lints the files the configuration
/// includes and does not exclude, skips dot-directories, honours .gitignore (but not for files
/// git tracks), and skips the `templates/` directory of a Helm chart (Go templates are not YAML
/// until rendered).
pub(crate) fn collect_inputs(
    paths: &[PathBuf],
    configs: &[(ConfigFile, Options)],
    force_exclude: bool,
    problems: &mut Vec<String>,
) -> Vec<Input> {
    collect_walked(paths, configs, force_exclude, problems, &mut Vec::new())
        .into_iter()
        .map(|(input, _)| input)
        .collect()
}

/// [`collect_inputs`], saying of each input whether a directory walk found it (rather than the
/// command line naming it), and adding to `chart_templates` the files of charts' `templates/`
/// directories the walks skipped.
pub(crate) fn collect_walked(
    paths: &[PathBuf],
    configs: &[(ConfigFile, Options)],
    force_exclude: bool,
    problems: &mut Vec<String>,
    chart_templates: &mut Vec<PathBuf>,
) -> Vec<(Input, bool)> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push((Input::Stdin(0), false));
            continue;
        }
        let c = config_index(path, configs);
        let config = &configs[c].0;
        match std::fs::metadata(path) {
            Err(e) => problems.push(format!("{}: {}", path.display(), io_message(&e))),
            Ok(meta) if meta.is_dir() => {
                let walk = taintlint::walk::walk(path, config);
                for file in walk.files {
                    match file {
                        Ok(p) if taintlint::walk::lints(&p, config) => {
                            inputs.push((Input::File(p, c), true))
                        }
                        Ok(_) => {}
                        Err(e) => problems.push(e),
                    }
                }
                chart_templates.extend(
                    walk.chart_templates
                        .into_iter()
                        .filter(|p| taintlint::walk::lints(p, config)),
                );
            }
            Ok(_) => {
                let skip = force_exclude
                    && (config.is_excluded(path)
                        || path
                            .ancestors()
                            .skip(1)
                            .any(taintlint::walk::is_chart_templates));
                if !skip {
                    inputs.push((Input::File(path.clone(), c), false));
                }
            }
        }
    }
    inputs
}

/// Replaces a file's contents so that a crash leaves either the old file or the new one: the
/// new text goes to a temporary file in the same directory (with the old file's permissions),
/// which is then renamed over it. A symbolic link is followed, and its target rewritten.
pub(crate) fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let permissions = std::fs::metadata(&target)?.permissions();
    let mut temp = tempfile::Builder::new()
        .prefix(".taintlint-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    std::fs::set_permissions(temp.path(), permissions)?;
    temp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

pub(crate) fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

pub(crate) fn read(input: &Input) -> Result<String, String> {
    let name = input.name();
    let bytes = match input {
        Input::Stdin(_) => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("standard input: {}", io_message(&e)))?;
            buf
        }
        Input::File(p, _) => std::fs::read(p).map_err(|e| format!("{name}: {}", io_message(&e)))?,
    };
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text (invalid byte at offset {}); Kubernetes manifests must be UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The Namespaces and RuntimeClasses of the inventory files and of every input file (standard
/// input, read once, only counts for itself), and the texts of the input files that hold some
/// (related locations point into them). Files are read on every core; only the few that may
/// hold such objects are parsed. With `keep`, the texts read are kept for linting (up to
/// [`KEPT`] bytes in all), so that a file is read once.
pub(crate) fn cluster_objects(
    inputs: &[Input],
    inventory: Option<&taintlint::inventory::Inventory>,
    keep: bool,
) -> (
    taintlint::k8s::cluster::Cluster,
    Vec<(String, String)>,
    Preread,
) {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use taintlint::k8s::cluster::may_hold_cluster_objects;
    let mut cluster = inventory.map(|i| i.cluster.clone()).unwrap_or_default();
    let budget = AtomicUsize::new(if keep { KEPT } else { 0 });
    // (path, text, whether it may hold cluster objects), for the texts kept or to be parsed.
    let read: Vec<(&PathBuf, String, bool)> = inputs
        .par_iter()
        .filter_map(|input| match input {
            Input::File(path, _) => {
                let text = std::fs::read_to_string(path).ok()?;
                let candidate = may_hold_cluster_objects(&text);
                let kept = budget
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                        left.checked_sub(text.len())
                    })
                    .is_ok();
                (kept || candidate).then_some((path, text, candidate))
            }
            Input::Stdin(_) => None,
        })
        .collect();
    let mut holding = Vec::new();
    let mut texts = std::collections::HashMap::new();
    for (path, text, candidate) in read {
        let name = path.display().to_string();
        if candidate {
            let before = cluster.len();
            cluster.merge(taintlint::analysis::cluster_objects(&name, &text, None));
            if cluster.len() > before {
                holding.push((name, text.clone()));
            }
        }
        if keep {
            texts.insert(path.clone(), std::sync::Mutex::new(Some(text)));
        }
    }
    (cluster, holding, Preread(texts))
}

/// How many bytes of input texts [`cluster_objects`] keeps for linting: a repository's
/// manifests are read once, and a bigger one still runs in bounded memory (the files past it are
/// read again when they are linted).
const KEPT: usize = 64 << 20;

/// Input texts already read, each taken once by the worker that lints it.
#[derive(Default)]
pub(crate) struct Preread(std::collections::HashMap<PathBuf, std::sync::Mutex<Option<String>>>);

impl Preread {
    /// `input`'s text: as read before, else read now.
    pub(crate) fn read(&self, input: &Input) -> Result<String, String> {
        if let Input::File(path, _) = input {
            let kept = self
                .0
                .get(path)
                .and_then(|text| text.lock().ok().and_then(|mut t| t.take()));
            if let Some(text) = kept {
                return Ok(text);
            }
        }
        read(input)
    }
}
