//! Loading the cluster inventory named on the command line or in the configuration.

use std::path::PathBuf;
use std::process::ExitCode;

use taintlint::inventory::Inventory;

use super::input::{read, Input};

/// An inventory and the texts it was read from.
pub(crate) struct LoadedInventory {
    pub(crate) inventory: Inventory,
    pub(crate) sources: Vec<(PathBuf, String)>,
}

/// Reads and parses the inventory files (`-` is standard input); on any problem prints every
/// one and returns exit 2.
pub(crate) fn load_inventory(paths: &[PathBuf]) -> Result<LoadedInventory, ExitCode> {
    let mut sources = Vec::new();
    let mut failed = false;
    for p in paths {
        let input = if p.as_os_str() == "-" {
            Input::Stdin(0)
        } else {
            Input::File(p.clone(), 0)
        };
        match read(&input) {
            Ok(text) => sources.push((p.clone(), text)),
            Err(e) => {
                eprintln!("taintlint: inventory {e}");
                failed = true;
            }
        }
    }
    if failed {
        return Err(ExitCode::from(2));
    }
    let names: Vec<String> = sources
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    let pairs: Vec<(&str, &str)> = names
        .iter()
        .zip(&sources)
        .map(|(n, (_, t))| (n.as_str(), t.as_str()))
        .collect();
    match Inventory::load(&pairs) {
        Ok(inventory) => Ok(LoadedInventory { inventory, sources }),
        Err(errors) => {
            for e in errors {
                eprintln!("taintlint: inventory {e}");
            }
            Err(ExitCode::from(2))
        }
    }
}
