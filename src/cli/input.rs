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

/// The cluster objects (Namespaces, RuntimeClasses, what [`taintlint::k8s::cluster::Cluster`]
/// holds) of the inventory and of every input file (standard input, read once, only counts for
/// itself), and the texts of the input files that add some (related locations point into them).
/// Files are read on every core, and only those that may hold such objects are parsed. No text
/// outlives its worker: a file is read again when it is linted, which costs less than holding
/// a repository's texts (docs/development.md, "Where the memory goes").
pub(crate) fn cluster_objects(
    inputs: &[Input],
    inventory: Option<&taintlint::inventory::Inventory>,
) -> (taintlint::k8s::cluster::Cluster, Vec<(String, String)>) {
    use rayon::prelude::*;
    let found: Vec<_> = inputs
        .par_iter()
        .filter_map(|input| {
            let Input::File(path, _) = input else {
                return None;
            };
            let text = std::fs::read_to_string(path).ok()?;
            if !taintlint::k8s::cluster::may_hold_cluster_objects(&text) {
                return None;
            }
            let found =
                taintlint::analysis::cluster_objects(&path.display().to_string(), &text, None);
            (!found.is_empty()).then_some((path, found))
        })
        .collect();
    let mut cluster = inventory.map(|i| i.cluster.clone()).unwrap_or_default();
    let mut holding = Vec::new();
    for (path, found) in found {
        let before = cluster.len();
        cluster.merge(found);
        if cluster.len() > before {
            if let Ok(text) = std::fs::read_to_string(path) {
                holding.push((path.display().to_string(), text));
            }
        }
    }
    (cluster, holding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cluster pass holds on to the texts of the files that add cluster objects, and only
    /// to those: a repository's other texts are read again when they are linted.
    #[test]
    fn the_cluster_pass_holds_only_the_files_that_add_objects() {
        let dir =
            std::env::temp_dir().join(format!("taintlint-cluster-pass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = [
            ("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n"),
            ("again.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n"),
            ("rc.yaml", "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: gvisor\nhandler: runsc\n"),
            ("pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: team\nspec:\n  containers: [{name: a, image: a}]\n"),
        ];
        let inputs: Vec<Input> = files
            .iter()
            .map(|(name, text)| {
                let path = dir.join(name);
                std::fs::write(&path, text).unwrap();
                Input::File(path, 0)
            })
            .collect();
        let (cluster, holding) = cluster_objects(&inputs, None);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(cluster.namespace("team").is_some());
        assert!(cluster.runtime_class("gvisor").is_some());
        // The second Namespace of the same name adds nothing; the Pod is no cluster object.
        let held: Vec<&str> = holding
            .iter()
            .map(|(name, _)| Path::new(name).file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(held, ["ns.yaml", "rc.yaml"]);
        assert_eq!(holding[0].1, files[0].1);
    }
}
