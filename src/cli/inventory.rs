//! Loading the cluster inventory named on the command line or in the configuration.

use std::path::PathBuf;
use std::process::ExitCode;

use taintlint::config_file::ConfigFile;
use taintlint::inventory::{self, Inventory};

use super::input::{collect_inputs, read, Input};

/// An inventory and the texts it was read from.
pub(crate) struct LoadedInventory {
    pub(crate) inventory: Inventory,
    pub(crate) sources: Vec<(PathBuf, String)>,
}

/// Reads and parses the inventory files (`-` is standard input; a directory stands for the
/// inventory files the lint walk finds in it, Terraform included); on any problem prints every
/// one and returns exit 2.
pub(crate) fn load_inventory(paths: &[PathBuf]) -> Result<LoadedInventory, ExitCode> {
    let mut sources = Vec::new();
    // For each source found in a directory, the directory's index in `paths`.
    let mut walked: Vec<Option<usize>> = Vec::new();
    let mut failed = false;
    let defaults = [(ConfigFile::default(), taintlint::Options::default())];
    for (i, p) in paths.iter().enumerate() {
        let inputs = if p.as_os_str() == "-" {
            vec![(Input::Stdin(0), None)]
        } else if p.is_dir() {
            let mut problems = Vec::new();
            let found = collect_inputs(std::slice::from_ref(p), &defaults, false, &mut problems);
            for problem in problems {
                eprintln!("taintlint: inventory {problem}");
                failed = true;
            }
            found.into_iter().map(|f| (f, Some(i))).collect()
        } else {
            vec![(Input::File(p.clone(), 0), None)]
        };
        for (input, dir) in inputs {
            let path = match &input {
                Input::File(f, _) => f.clone(),
                Input::Stdin(_) => p.clone(),
            };
            match read(&input) {
                // In a directory, only files that may define nodes are taken.
                Ok(text) if dir.is_some() && !inventory::may_define_nodes(&text) => {}
                Ok(text) => {
                    sources.push((path, text));
                    walked.push(dir);
                }
                Err(e) => {
                    eprintln!("taintlint: inventory {e}");
                    failed = true;
                }
            }
        }
    }
    if failed {
        return Err(ExitCode::from(2));
    }
    loop {
        let names: Vec<String> = sources
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect();
        for (i, p) in paths.iter().enumerate() {
            if p.is_dir() && !walked.contains(&Some(i)) {
                eprintln!(
                    "taintlint: inventory {}: a directory with no inventory file; an inventory \
                     is {}, or node pools defined as code",
                    p.display(),
                    inventory::FORMATS
                );
                failed = true;
            }
        }
        if failed {
            return Err(ExitCode::from(2));
        }
        let pairs: Vec<(&str, &str)> = names
            .iter()
            .zip(&sources)
            .map(|(n, (_, t))| (n.as_str(), t.as_str()))
            .collect();
        let errors = match Inventory::load(&pairs) {
            Ok(inventory) => return Ok(LoadedInventory { inventory, sources }),
            Err(errors) => errors,
        };
        // A file found in a directory that holds no nodes after all (a manifest that only
        // mentions a node kind) is left out, and the rest read again.
        let not_inventory = |i: usize| {
            walked[i].is_some()
                && errors.iter().any(|e| {
                    e.file == names[i]
                        && (e.message.contains("is not a node inventory")
                            || e.message.starts_with("holds no nodes"))
                })
        };
        let keep: Vec<bool> = (0..sources.len()).map(|i| !not_inventory(i)).collect();
        if keep.iter().all(|&k| k) {
            for e in errors {
                eprintln!("taintlint: inventory {e}");
            }
            return Err(ExitCode::from(2));
        }
        let mut k = keep.iter();
        sources.retain(|_| *k.next().expect("one per source"));
        let mut k = keep.iter();
        walked.retain(|_| *k.next().expect("one per source"));
    }
}
