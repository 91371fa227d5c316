//! Loading the cluster inventory named on the command line or in the configuration.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use taintlint::config_file::ConfigFile;
use taintlint::inventory::{self, Inventory};

use super::input::{collect_inputs, read, Input};

/// An inventory and the texts it was read from.
/// The name an inventory read from standard input (`--inventory -`) is shown by.
pub(crate) const STDIN_INVENTORY: &str = "<standard input>";

pub(crate) struct LoadedInventory {
    pub(crate) inventory: Inventory,
    /// Each file and its text; `None` for a JSON node list read as it streamed in, unless
    /// texts were asked for.
    pub(crate) sources: Vec<(PathBuf, Option<String>)>,
}

impl LoadedInventory {
    /// The text of source `i`, loaded with [`Texts::Keep`].
    pub(crate) fn text(&self, i: usize) -> &str {
        self.sources[i]
            .1
            .as_deref()
            .expect("an inventory loaded with its texts")
    }
}

/// Whether the caller needs the inventory files' texts after loading (to lint them), or only
/// the inventory (then a JSON node list is read without holding its text).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Texts {
    Keep,
    Drop,
}

/// Reads and parses the inventory files (`-` is standard input; a directory stands for the
/// inventory files the lint walk finds in it, Terraform included); on any problem prints every
/// one and returns exit 2.
pub(crate) fn load_inventory(paths: &[PathBuf], texts: Texts) -> Result<LoadedInventory, ExitCode> {
    let ReadSources {
        mut sources,
        mut streamed,
        mut walked,
    } = read_sources(paths, texts)?;
    let mut failed = false;
    loop {
        let names: Vec<String> = sources
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect();
        for (i, p) in paths.iter().enumerate() {
            if p.is_dir() && !walked.contains(&Some(i)) {
                eprintln!(
                    "taintlint: inventory {}: {}",
                    p.display(),
                    inventory::empty_directory(inventory::holds_terraform(p))
                );
                failed = true;
            }
        }
        if failed {
            return Err(ExitCode::from(2));
        }
        // (Only files found in directories are ever left out below, and those are never
        // streamed: the streamed nodes are taken once.)
        let mut streamed_now = std::mem::take(&mut streamed).into_iter().peekable();
        let pairs: Vec<(&str, inventory::Source<'_>)> = names
            .iter()
            .zip(&sources)
            .enumerate()
            .map(|(i, (n, (_, t)))| {
                let source = match t {
                    Some(t) => inventory::Source::Text(t.as_str()),
                    None => {
                        let (at, nodes) = streamed_now.next().expect("a streamed source's nodes");
                        debug_assert_eq!(at, i);
                        inventory::Source::Streamed(nodes)
                    }
                };
                (n.as_str(), source)
            })
            .collect();
        let errors = match Inventory::load_sources(pairs) {
            Ok(inventory) => {
                let loaded = LoadedInventory { inventory, sources };
                warn_of_unread(&loaded);
                return Ok(loaded);
            }
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
        // So is one that does not parse (a Terraform template of Helm values, `%{ if }` and
        // all, beside the node groups), and one whose node groups are all written as
        // expressions taintlint does not evaluate: said, as a file named on its own would be
        // refused.
        let unparsed = |i: usize| {
            walked[i].and_then(|_| {
                errors.iter().find(|e| {
                    e.file == names[i]
                        && (e.message.starts_with("not valid YAML")
                            || e.message.starts_with(inventory::NO_GROUP_READ))
                })
            })
        };
        let mut keep = Vec::with_capacity(sources.len());
        for i in 0..sources.len() {
            if let Some(e) = unparsed(i) {
                eprintln!("taintlint: inventory {e}; left out of the directory's inventory");
                keep.push(false);
            } else {
                keep.push(!not_inventory(i));
            }
        }
        if keep.iter().all(|&k| k) {
            let mut said = std::collections::HashSet::new();
            for e in errors {
                let line = e.to_string();
                if said.insert(line.clone()) {
                    eprintln!("taintlint: inventory {line}");
                }
            }
            return Err(ExitCode::from(2));
        }
        let mut k = keep.iter();
        sources.retain(|_| *k.next().expect("one per source"));
        let mut k = keep.iter();
        walked.retain(|_| *k.next().expect("one per source"));
        // The streamed nodes went into that load: those files are read whole the next time.
        for (path, text) in &mut sources {
            if text.is_none() {
                match read(&Input::File(path.clone(), 0)) {
                    Ok(t) => *text = Some(t),
                    Err(e) => {
                        eprintln!("taintlint: inventory {e}");
                        return Err(ExitCode::from(2));
                    }
                }
            }
        }
    }
}

/// The inventory files as read: each source (its path, and its text unless its nodes were read
/// as it streamed in), those streamed nodes, and for each source found in a directory, the
/// directory's index in the paths given.
struct ReadSources {
    sources: Vec<(PathBuf, Option<String>)>,
    streamed: Vec<(usize, inventory::StreamedNodes)>,
    walked: Vec<Option<usize>>,
}

/// Reads every inventory path: `-`, a file, or the files a directory holds that may define
/// nodes; on any problem prints every one and returns exit 2.
fn read_sources(paths: &[PathBuf], texts: Texts) -> Result<ReadSources, ExitCode> {
    let mut sources: Vec<(PathBuf, Option<String>)> = Vec::new();
    // The nodes of the sources read as they streamed in, by index in `sources`.
    let mut streamed: Vec<(usize, inventory::StreamedNodes)> = Vec::new();
    // For each source found in a directory, the directory's index in `paths`.
    let mut walked: Vec<Option<usize>> = Vec::new();
    let mut failed = false;
    let defaults = [(ConfigFile::default(), taintlint::Options::default())];
    for (i, p) in paths.iter().enumerate() {
        let inputs = if p.as_os_str() == "-" {
            vec![(Input::Stdin(0), None)]
        } else if let Some(kustomization) = kustomization_in(p) {
            match kustomize(p, &kustomization) {
                Kustomized::Rendered(text, by) => {
                    sources.push((PathBuf::from(format!("{} ({by})", p.display())), Some(text)));
                    walked.push(Some(i));
                    continue;
                }
                Kustomized::Listed(files) => files
                    .into_iter()
                    .map(|f| (Input::File(f, 0), Some(i)))
                    .collect(),
            }
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
                // Named as people say it: `-:21:7` reads as a typo.
                Input::Stdin(_) => PathBuf::from(STDIN_INVENTORY),
            };
            // A JSON node list named on its own is read as it streams in, when its text is
            // not needed after.
            if let (Texts::Drop, Input::File(file, _), None) = (texts, &input, dir) {
                // (A file that cannot be read is left to the whole read, which says why.)
                if let Ok(Some(nodes)) = stream(file, sources.len()) {
                    streamed.push((sources.len(), nodes));
                    sources.push((path, None));
                    walked.push(dir);
                    continue;
                }
            }
            match read(&input) {
                // In a directory, only files that may define nodes are taken.
                Ok(text) if dir.is_some() && !inventory::may_define_nodes(&text) => {}
                Ok(text) => {
                    sources.push((path, Some(text)));
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
    Ok(ReadSources {
        sources,
        streamed,
        walked,
    })
}

use taintlint::overlays::kustomization_in;

/// A kustomize directory as an inventory: its rendered output, or the files it lists.
enum Kustomized {
    /// The output, and the command that rendered it.
    Rendered(String, &'static str),
    Listed(Vec<PathBuf>),
}

/// Renders a kustomize directory with the user's kustomize when it is on the PATH (its
/// patches then change the pools they patch, as they will in the cluster); else reads only the
/// resources its kustomization lists (a directory among them by its own kustomization, or
/// whole), and says so: its patch files are partial objects, not pools of their own.
fn kustomize(dir: &Path, kustomization: &Path) -> Kustomized {
    // Rendered as manifests are: offline, under kustomize's own load restrictor.
    let settings = taintlint::overlays::Settings::default();
    let refused = std::fs::canonicalize(dir)
        .ok()
        .and_then(|c| taintlint::overlays::plan::refusal(dir, &c, &settings));
    match taintlint::overlays::Renderer::find(settings) {
        Ok(Some(_)) if refused.is_some() => eprintln!(
            "taintlint: inventory {}: not rendered: {}; reading only the resources its \
             kustomization lists, without its patches",
            dir.display(),
            refused.map(|r| r.reason()).unwrap_or_default()
        ),
        Ok(Some(renderer)) => match renderer.build(dir) {
            Ok(text) => return Kustomized::Rendered(text, renderer.name()),
            Err(e) => eprintln!(
                "taintlint: inventory {}: {e}; reading only the resources its kustomization \
                 lists, without its patches",
                dir.display(),
            ),
        },
        Ok(None) | Err(_) => eprintln!(
            "taintlint: inventory {}: a kustomize directory, and neither kustomize nor kubectl \
             is on the PATH to render it: reading only the resources its kustomization lists, \
             without its patches (or give `kubectl kustomize {}` as the inventory)",
            dir.display(),
            dir.display()
        ),
    }
    let mut files = Vec::new();
    let mut seen = Vec::new();
    listed(kustomization, &mut files, &mut seen);
    Kustomized::Listed(files)
}

/// The files a kustomization lists, directories followed through their own kustomization.
fn listed(kustomization: &Path, files: &mut Vec<PathBuf>, seen: &mut Vec<PathBuf>) {
    if seen.iter().any(|s| s == kustomization) {
        return;
    }
    seen.push(kustomization.to_path_buf());
    let Ok(text) = std::fs::read_to_string(kustomization) else {
        return;
    };
    let base = kustomization.parent().unwrap_or(Path::new("."));
    let exists = |p: &str| base.join(p).exists();
    for resource in inventory::kustomize::Kustomization::read(&text, &exists).resources {
        let path = base.join(&resource);
        if let Some(nested) = path.is_dir().then(|| kustomization_in(&path)).flatten() {
            listed(&nested, files, seen);
        } else if path.is_file() {
            files.push(path);
        }
    }
}

/// A file read as a JSON node list as it streams in, when it starts like JSON and is one.
/// Only a regular file: it is read again when the stream cannot take it, and for the places of
/// its pools, which a pipe (`--inventory <(kubectl get nodes -o json)`) could not give twice.
fn stream(path: &Path, index: usize) -> std::io::Result<Option<inventory::StreamedNodes>> {
    if !std::fs::metadata(path)?.is_file() {
        return Ok(None);
    }
    let mut file = std::fs::File::open(path)?;
    // Only a file whose first character (after a byte order mark and white space) opens an
    // object is tried.
    let mut head = [0u8; 512];
    let n = file.read(&mut head)?;
    let start = head[..n]
        .strip_prefix(b"\xef\xbb\xbf")
        .unwrap_or(&head[..n]);
    if start.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(0))?;
    inventory::read_json_nodes(index, file)
}

/// A warning for each group of nodes an inventory file defines in a way taintlint does not read
/// (a Terraform expression): the simulation has none of its nodes, and a person should know.
fn warn_of_unread(loaded: &LoadedInventory) {
    for (i, f) in loaded.inventory.files.iter().enumerate() {
        let text = loaded.sources.get(i).and_then(|(_, t)| t.as_deref());
        for u in &f.unread {
            let place = match text {
                Some(text) => {
                    let (line, column) = taintlint::report::line_columns(text, &[u.at.start])[0];
                    format!("{}:{line}:{column}", f.name)
                }
                None => f.name.clone(),
            };
            eprintln!("taintlint: warning: inventory {place}: {}", u.message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSON node list named on its own is streamed unless its text is asked for; other
    /// inventories are read whole.
    #[test]
    fn json_node_lists_stream_when_their_text_is_not_needed() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("nodes.json");
        std::fs::write(
            &json,
            "\u{feff} {\"items\": [{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}], \"kind\": \"List\"}",
        )
        .unwrap();
        let yaml = dir.path().join("nodes.yaml");
        std::fs::write(&yaml, "kind: Node\nmetadata: {name: b}\n").unwrap();
        let paths = [json.clone(), yaml.clone()];
        let Ok(dropped) = load_inventory(&paths, Texts::Drop) else {
            panic!("the inventory loads");
        };
        assert_eq!(dropped.inventory.node_count(), 2);
        assert!(dropped.sources[0].1.is_none());
        assert!(dropped.sources[1].1.is_some());
        let Ok(kept) = load_inventory(&paths, Texts::Keep) else {
            panic!("the inventory loads");
        };
        assert!(kept.sources.iter().all(|(_, t)| t.is_some()));
        assert_eq!(kept.text(0), std::fs::read_to_string(&json).unwrap());
        // Beside a directory whose manifest only mentions a node kind (left out, and the rest
        // loaded again), the streamed list is read again.
        let cluster = dir.path().join("cluster");
        std::fs::create_dir(&cluster).unwrap();
        std::fs::write(
            cluster.join("app.yaml"),
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: Node-1}\n",
        )
        .unwrap();
        std::fs::write(cluster.join("pools.yaml"), "pools:\n  web: {count: 2}\n").unwrap();
        let Ok(mixed) = load_inventory(&[json.clone(), cluster], Texts::Drop) else {
            panic!("the inventory loads");
        };
        assert_eq!(mixed.inventory.node_count(), 3);
        assert_eq!(mixed.sources.len(), 2);
        // A JSON text that does not stream (here, not valid) is read whole, and refused.
        std::fs::write(&json, "{\"kind\": \"List\",\n \"items\": [,]}").unwrap();
        assert!(load_inventory(&paths, Texts::Drop).is_err());
    }
}
