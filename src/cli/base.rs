//! `--base REV`: the repository as committed at a revision, beside the working tree.
//!
//! The files of the commit that taintlint or the tools it runs may read are written into a
//! temporary directory (read through git, see [`super::git`], or copied from the working tree
//! where the change leaves them as they are: nothing is checked out into the user's tree), and
//! the same command runs there as a child process, from the directory that mirrors the current
//! one, printing JSON. Running the very command on the very tree is what
//! makes the base side say what taintlint said at that revision: the same walk, the
//! configuration as committed then, kustomize overlays rendered from that tree, and none of
//! this process's state (caches, the working directory) shared. The child runs while this
//! process works on the working tree; its messages are kept, and said with the revision's name
//! when it fails. It starts once the configuration files and the other inputs named are
//! written, and reads what needs nothing of the tree (a node list the change leaves as it is)
//! while git writes the rest: its standard input ends when the tree is whole, and it reads
//! nothing else of the tree before ([`tree_written`]).
//!
//! The paths of the command line are read at both revisions: a path inside the work tree is
//! the same path in the base tree; a path outside it (`/tmp/nodes.json`) is the same file on
//! both sides. An inventory or configuration file that git does not track (a node list written
//! by the job) is not part of the change, and one the change leaves as it is needs no second
//! copy: both are read where they are. A big inventory the change edits is written by git
//! itself, beside the other files, rather than passed through this process. A path that is not
//! in the base commit otherwise is left out there (a file the change adds).

use std::collections::HashSet;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::git::{Commit, Entry, GitError, Repo};

/// What the child process is told: where the base tree is, and how to read the command line's
/// paths there (`--base-side`, hidden).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct BaseSide {
    /// The work tree's top directory.
    pub(crate) worktree: PathBuf,
    /// The base tree's top directory.
    pub(crate) tree: PathBuf,
    /// The directory the command was run from (in the work tree).
    pub(crate) cwd: PathBuf,
    /// Paths of the command line (as given) that the base revision does not have.
    pub(crate) absent: Vec<PathBuf>,
    /// Paths of the command line (as given) read where they are, the same on both sides: files
    /// the change leaves as they are, and files git does not track (a node list the job wrote).
    #[serde(default)]
    pub(crate) same: Vec<PathBuf>,
}

/// `path` without `.` components, and `..` folded where it can be.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

impl BaseSide {
    pub(crate) fn parse(spec: &str) -> Result<BaseSide, String> {
        serde_json::from_str(spec).map_err(|e| format!("--base-side: {e}"))
    }

    fn spec(&self) -> String {
        serde_json::to_string(self).expect("paths serialize")
    }

    /// The path to read in the base tree for a path of the command line; `None` when the base
    /// revision does not have it.
    pub(crate) fn map(&self, path: &Path) -> Option<PathBuf> {
        if path.as_os_str() == "-" {
            return Some(path.to_path_buf());
        }
        if self.absent.iter().any(|a| a == path) {
            return None;
        }
        let absolute = lexical(&self.cwd.join(path));
        if self.same.iter().any(|a| a == path) {
            return Some(absolute);
        }
        match absolute.strip_prefix(&self.worktree) {
            // Relative and staying below the current directory: the same relative path, from
            // the base tree's copy of the current directory.
            Ok(_)
                if path.is_relative() && !path.components().any(|c| c == Component::ParentDir) =>
            {
                Some(path.to_path_buf())
            }
            Ok(inside) => Some(self.tree.join(inside)),
            // Outside the repository: the same file on both sides.
            Err(_) => Some(absolute),
        }
    }

    /// Where this process (in the work tree) reads, in the base tree, a file the working tree
    /// names `name` (a path from the current directory, or absolute): a file outside the
    /// repository is the same file.
    pub(crate) fn in_tree(&self, name: &str) -> PathBuf {
        let absolute = lexical(&self.cwd.join(name));
        match absolute.strip_prefix(&self.worktree) {
            Ok(inside) => self.tree.join(inside),
            Err(_) => absolute,
        }
    }

    /// [`map`](Self::map) for a list of paths, leaving out those the base revision does not have.
    pub(crate) fn map_all(&self, paths: &mut Vec<PathBuf>) {
        *paths = paths.iter().filter_map(|p| self.map(p)).collect();
    }

    /// The directory the child runs in: the base tree's copy of the current directory.
    fn child_dir(&self) -> PathBuf {
        match self.cwd.strip_prefix(&self.worktree) {
            Ok(inside) => self.tree.join(inside),
            Err(_) => self.tree.clone(),
        }
    }
}

/// On the base side, the base tree, which may still be being written when the command starts
/// (the configuration files and the other inputs named are there already): its standard input
/// ends when the tree is whole ([`before_reading`], [`tree_written`]).
static BEING_WRITTEN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
static WRITTEN: std::sync::Once = std::sync::Once::new();

impl BaseSide {
    /// On the base side: says that the tree may still be being written.
    pub(crate) fn gate(&self) {
        let _ = BEING_WRITTEN.set(self.tree.clone());
    }
}

/// On the base side, waits until the base tree is whole (its parent ends standard input then).
pub(crate) fn tree_written() {
    if BEING_WRITTEN.get().is_some() {
        WRITTEN.call_once(|| {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        });
    }
}

/// On the base side, waits until the base tree is whole if any of `paths` is in it: a node
/// list the change leaves as it is is read where it is, while the tree is written.
pub(crate) fn before_reading(paths: &[PathBuf]) {
    let Some(tree) = BEING_WRITTEN.get() else {
        return;
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    if paths
        .iter()
        .any(|p| lexical(&cwd.join(p)).starts_with(tree))
    {
        tree_written();
    }
}

/// How the names the base side prints read in the working tree.
#[derive(Debug, Clone)]
pub(crate) struct Names {
    /// (as the base side prints it, as the working tree does), longest first.
    prefixes: Vec<(String, String)>,
}

impl Names {
    /// A name the base side printed, as the working tree's output would print it.
    pub(crate) fn back(&self, name: &str) -> String {
        for (from, to) in &self.prefixes {
            if let Some(rest) = name.strip_prefix(from.as_str()) {
                if rest.is_empty()
                    || rest.starts_with(std::path::MAIN_SEPARATOR)
                    || from.ends_with(std::path::MAIN_SEPARATOR)
                {
                    return format!("{to}{rest}");
                }
            }
        }
        name.to_string()
    }
}

/// The base tree, and what the child is told.
pub(crate) struct Prepared {
    /// Removed when dropped.
    _dir: tempfile::TempDir,
    pub(crate) side: BaseSide,
    pub(crate) commit: Commit,
    /// What is left to write once the command has started ([`Prepared::write_rest`]): the
    /// files, and the big inventories (path, object).
    rest: (Vec<Entry>, Vec<(PathBuf, String)>),
}

/// The paths of a command line, by what they are.
#[derive(Debug, Clone, Default)]
pub(crate) struct Paths {
    /// Manifests: files or directories; not in the base commit, they are new.
    pub(crate) manifests: Vec<PathBuf>,
    /// Inventories (`--inventory`).
    pub(crate) inventories: Vec<PathBuf>,
    /// The configuration and other inputs the command line names.
    pub(crate) inputs: Vec<PathBuf>,
}

impl Paths {
    /// Every path that is not a manifest: inventories first.
    fn others(&self) -> impl Iterator<Item = &PathBuf> {
        self.inventories.iter().chain(&self.inputs)
    }

    fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.manifests.iter().chain(self.others())
    }
}

/// Why `--base` cannot run, said as the command line says it (exit 2).
pub(crate) fn git_problem(rev: &str, e: GitError) -> String {
    match e {
        GitError::NoGit => format!(
            "--base {rev}: git is not installed (not on the PATH); --base reads the base \
             revision through git"
        ),
        GitError::Failed(said) if said.contains("not a git repository") => format!(
            "--base {rev}: the current directory is not in a git work tree ({said}); run \
             taintlint from inside the repository"
        ),
        GitError::Failed(said) => format!("--base {rev}: {said}"),
    }
}

/// The base revision's side of `--base`: its tree written, the command started on it (`None`
/// when the base revision has none of the manifests: all of them are new; for `simulate`, none
/// of the inventories either: the change adds the cluster), and how its names read here.
pub(crate) struct BaseRun {
    pub(crate) prepared: Prepared,
    pub(crate) running: Option<Running>,
    pub(crate) names: Names,
    /// Why nothing ran on the base side, when that is worth saying.
    pub(crate) said: Option<String>,
}

/// The base side being made ready on a thread of its own, while this process reads the
/// working tree.
pub(crate) struct Pending {
    handle: std::thread::JoinHandle<Result<BaseRun, String>>,
}

impl Pending {
    /// Waits until the base tree is written and the command started on it.
    pub(crate) fn started(self) -> Result<BaseRun, String> {
        self.handle
            .join()
            .unwrap_or_else(|_| Err("--base: the base revision could not be read".to_string()))
    }
}

/// Resolves `rev` (here, so that a revision that does not resolve is said at once), then writes
/// the base tree and starts `taintlint SUBCOMMAND` on it on another thread.
pub(crate) fn start(rev: &str, paths: Paths, subcommand: &'static str) -> Result<Pending, String> {
    if paths.all().any(|p| p.as_os_str() == "-") {
        return Err(format!(
            "--base {rev}: standard input has no revision to compare with; give the manifests \
             and the inventory as files"
        ));
    }
    let repo = Repo::discover().map_err(|e| git_problem(rev, e))?;
    let commit = repo.resolve(rev).map_err(|e| git_problem(rev, e))?;
    let rev = rev.to_string();
    let handle = std::thread::spawn(move || {
        let survey = survey(&rev, repo, commit, &paths)?;
        let mut last = None;
        for place in places() {
            let mut prepared = match prepare_in(&survey, place.as_deref(), &rev, &paths) {
                Ok(p) => p,
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            };
            let all: Vec<&Path> = paths.all().map(PathBuf::as_path).collect();
            let names = prepared.names(&all);
            let absent = |p: &PathBuf| prepared.side.map(p).is_none();
            // A simulation needs an inventory: at a revision that has none of those named, the
            // change adds the cluster, and every placement is new.
            let no_inventory = subcommand == "simulate"
                && !paths.inventories.is_empty()
                && paths.inventories.iter().all(absent);
            let said = no_inventory.then(|| {
                let named: Vec<String> = paths
                    .inventories
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                format!(
                    "--base: {} {} not at {}: the change adds the inventory, so every \
                     placement is new",
                    named.join(", "),
                    if named.len() == 1 { "is" } else { "are" },
                    prepared.commit.label()
                )
            });
            // The command starts while the rest of the tree is written: it reads what needs
            // nothing from the tree (a node list the change leaves as it is) meanwhile.
            let mut running = if paths.manifests.iter().all(absent) || no_inventory {
                None
            } else {
                Some(prepared.spawn(subcommand)?)
            };
            match prepared.write_rest(&survey.repo, &survey.changed) {
                Ok(()) => {
                    if let Some(r) = &mut running {
                        r.gate = None;
                    }
                    return Ok(BaseRun {
                        prepared,
                        running,
                        names,
                        said,
                    });
                }
                Err(e) => {
                    if let Some(r) = running {
                        r.stop();
                    }
                    last = Some(git_problem(&rev, e));
                }
            }
        }
        Err(last.unwrap_or_default())
    });
    Ok(Pending { handle })
}

/// An inventory at least this big that the change edits is written by `git cat-file` itself,
/// while the other files are written, rather than read into this process and written again.
const BIG: u64 = 1 << 20;

/// What the base tree is made of: the commit's files, which of them are written (and which
/// inputs are read where they are instead), and the big inventories git writes itself.
struct Survey {
    repo: Repo,
    commit: Commit,
    entries: Vec<Entry>,
    /// The paths the working tree has otherwise than the commit (see [`write_files`]).
    changed: HashSet<PathBuf>,
    plan: Plan,
    big: Vec<(PathBuf, String)>,
    same: Vec<PathBuf>,
}

/// Decides which files of the commit may be read, and so are written into the base tree.
fn survey(rev: &str, repo: Repo, commit: Commit, paths: &Paths) -> Result<Survey, String> {
    let entries = repo.tree(&commit).map_err(|e| git_problem(rev, e))?;
    let inside = |p: &Path| inside(&repo, p);
    // The inputs named as files, outside the manifests: one the change leaves as it is, or git
    // does not track, is read where it is (as a file outside the repository is); a big
    // inventory the change edits is written by git itself.
    let manifests: Vec<PathBuf> = paths
        .manifests
        .iter()
        .map(|m| lexical(&repo.cwd.join(m)))
        .collect();
    let mut same: Vec<PathBuf> = Vec::new();
    // (path in the tree, object)
    let mut big: Vec<(PathBuf, String)> = Vec::new();
    let candidates: Vec<(&PathBuf, PathBuf)> = paths
        .others()
        .filter(|p| {
            !manifests
                .iter()
                .any(|m| lexical(&repo.cwd.join(p)).starts_with(m))
        })
        .filter_map(|p| Some((p, inside(p)?)))
        .filter(|(_, r)| repo.top.join(r).is_file())
        .collect();
    let at_base: Vec<Option<&Entry>> = candidates
        .iter()
        .map(|(_, r)| entries.iter().find(|e| e.path == *r))
        .collect();
    let absent: Vec<PathBuf> = candidates
        .iter()
        .zip(&at_base)
        .filter(|(_, e)| e.is_none())
        .map(|((_, r), _)| r.clone())
        .collect();
    let changed = repo
        .changed_since(&commit)
        .map_err(|e| git_problem(rev, e))?;
    let tracked = repo.tracked(&absent).map_err(|e| git_problem(rev, e))?;
    for ((arg, r), entry) in candidates.iter().zip(&at_base) {
        match entry {
            Some(_) if !changed.contains(r) => same.push((*arg).clone()),
            Some(entry) => {
                let size = std::fs::metadata(repo.top.join(r)).map_or(0, |m| m.len());
                // (A symbolic link is written as one, with the other files.)
                let regular = entry.mode.starts_with("100");
                if size >= BIG
                    && regular
                    && paths.inventories.contains(arg)
                    && !big.iter().any(|b| b.0 == *r)
                {
                    big.push((r.clone(), entry.oid.clone()));
                }
            }
            None if !tracked.contains(r) => same.push((*arg).clone()),
            None => {}
        }
    }
    let plan = Plan {
        named: paths.all().filter_map(|p| inside(p)).collect(),
        not_written: same
            .iter()
            .filter_map(|p| inside(p))
            .chain(big.iter().map(|(r, _)| r.clone()))
            .collect(),
        roots: tool_roots(&entries),
        first: paths.inputs.iter().filter_map(|p| inside(p)).collect(),
    };
    Ok(Survey {
        repo,
        commit,
        entries,
        changed,
        plan,
        big,
        same,
    })
}

/// A path of the command line from the top of the work tree, when it is inside.
fn inside(repo: &Repo, path: &Path) -> Option<PathBuf> {
    lexical(&repo.cwd.join(path))
        .strip_prefix(&repo.top)
        .ok()
        .map(Path::to_path_buf)
}

/// Where base trees are written, in order: in memory where the system has it (creating
/// thousands of small files on a disk can take longer than simulating them), else in the
/// temporary directory (where memory is too small).
fn places() -> Vec<Option<PathBuf>> {
    let mut places: Vec<Option<PathBuf>> = Vec::new();
    if cfg!(target_os = "linux") && std::env::var_os("TMPDIR").is_none() {
        let shm = PathBuf::from("/dev/shm");
        if shm.is_dir() {
            places.push(Some(shm));
        }
    }
    places.push(None);
    places
}

/// Makes the base tree in a temporary directory at `place` and writes what the command reads
/// first (the configuration files, the other inputs named); the rest is for
/// [`Prepared::write_rest`].
fn prepare_in(
    survey: &Survey,
    place: Option<&Path>,
    rev: &str,
    paths: &Paths,
) -> Result<Prepared, String> {
    let Survey {
        repo,
        commit,
        entries,
        changed,
        plan,
        big,
        same,
    } = survey;
    let mut builder = tempfile::Builder::new();
    builder.prefix("taintlint-base-");
    let dir = match place {
        Some(p) => builder.tempdir_in(p),
        None => builder.tempdir(),
    }
    .map_err(|e| format!("--base {rev}: a temporary directory: {e}"))?;
    let tree = std::fs::canonicalize(dir.path()).unwrap_or_else(|_| dir.path().to_path_buf());
    let (written, rest) = plan
        .write_first(repo, changed, entries, &tree)
        .map_err(|e| git_problem(rev, e))?;
    let mut side = BaseSide {
        worktree: repo.top.clone(),
        tree: tree.clone(),
        cwd: repo.cwd.clone(),
        absent: Vec::new(),
        same: same.clone(),
    };
    // The current directory's copy, for relative paths (it may be new since).
    let _ = std::fs::create_dir_all(side.child_dir());
    // A path the base revision does not have is left out there: one under which nothing is
    // written.
    let inside = |p: &Path| inside(repo, p);
    let cwd = inside(&repo.cwd).unwrap_or_default();
    let there = |r: &Path| {
        cwd.starts_with(r)
            || written
                .iter()
                .chain(rest.iter().map(|e| &e.path))
                .chain(big.iter().map(|(b, _)| b))
                .any(|w| w.starts_with(r))
    };
    for p in paths.all() {
        if side.same.contains(p) {
            continue;
        }
        if let Some(r) = inside(p) {
            if !there(&r) {
                side.absent.push(p.clone());
            }
        }
    }
    Ok(Prepared {
        _dir: dir,
        side,
        commit: commit.clone(),
        rest: (rest.into_iter().cloned().collect(), big.clone()),
    })
}

/// Which files of the commit are written into the base tree.
struct Plan {
    /// The command line's paths, from the top of the work tree.
    named: Vec<PathBuf>,
    /// Those read elsewhere (where they are, or from standard input).
    not_written: Vec<PathBuf>,
    /// Directories every file of which a tool may read.
    roots: Vec<PathBuf>,
    /// The inputs the command line names beside the manifests and inventories (an admission
    /// configuration): read before anything else.
    first: Vec<PathBuf>,
}

impl Plan {
    /// Writes into `tree` what the command reads first: the configuration files, whose
    /// `include` and `inventory` say what else is read, and the inputs named (see
    /// [`Plan::first`]). The paths written, and the other files taintlint and the tools it runs
    /// may read, to be written next.
    fn write_first<'e>(
        &self,
        repo: &Repo,
        changed: &HashSet<PathBuf>,
        entries: &'e [Entry],
        tree: &Path,
    ) -> Result<(Vec<PathBuf>, Vec<&'e Entry>), GitError> {
        let configs: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.path.file_name() == Some(taintlint::config_file::FILE_NAME.as_ref()))
            .collect();
        write_files(repo, changed, &configs, tree)?;
        let loaded: Vec<taintlint::config_file::ConfigFile> = configs
            .iter()
            .filter_map(|e| taintlint::config_file::load(&tree.join(&e.path)).ok())
            .collect();
        let config_inventory: Vec<PathBuf> = loaded
            .iter()
            .flat_map(|c| c.inventory.iter())
            .filter_map(|p| {
                lexical(&tree.join(p))
                    .strip_prefix(tree)
                    .ok()
                    .map(Path::to_path_buf)
            })
            .collect();
        let wanted: Vec<&Entry> = entries
            .iter()
            .filter(|e| !configs.iter().any(|c| c.path == e.path))
            .filter(|e| !self.not_written.contains(&e.path))
            .filter(|e| {
                read_by_taintlint(&e.path)
                    || self.roots.iter().any(|r| e.path.starts_with(r))
                    || self
                        .named
                        .iter()
                        .chain(&config_inventory)
                        .any(|n| e.path == *n || (e.path.starts_with(n) && readable(&e.path)))
                    || loaded.iter().any(|c| c.is_included(&tree.join(&e.path)))
            })
            .collect();
        let (first, rest): (Vec<&Entry>, Vec<&Entry>) = wanted
            .into_iter()
            .partition(|e| self.first.contains(&e.path));
        write_files(repo, changed, &first, tree)?;
        let written = configs
            .iter()
            .chain(&first)
            .map(|e| e.path.clone())
            .collect();
        Ok((written, rest))
    }
}

/// Writes `entries` under `tree`: a regular file the working tree has as committed is copied
/// from there by the system (most files of a repository are not changed, and git would read and
/// inflate each), the others are read through git. A copy is also what the working tree's side
/// reads, byte for byte, where git's checkout filters (line endings) make the object differ
/// from the file. Only a file under [`BIG`] is copied: a big one may be what a filter made of
/// a small object (a model's weights for a Git LFS pointer), and the base tree may be in memory.
fn write_files(
    repo: &Repo,
    changed: &HashSet<PathBuf>,
    entries: &[&Entry],
    tree: &Path,
) -> Result<(), GitError> {
    let copy = |e: &Entry| -> std::io::Result<()> {
        let from = repo.top.join(&e.path);
        if std::fs::metadata(&from)?.len() >= BIG {
            return Err(std::io::ErrorKind::FileTooLarge.into());
        }
        let to = tree.join(&e.path);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::copy(from, to).map(|_| ())
    };
    let from_git: Vec<&Entry> = entries
        .iter()
        .copied()
        .filter(|e| !(e.mode.starts_with("100") && !changed.contains(&e.path) && copy(e).is_ok()))
        .collect();
    repo.write_files(&from_git, tree)
}

/// Directories whose every file a tool may read: those of kustomizations (generators read any
/// file beside them) and of Helm charts (`.Files.Get`).
fn tool_roots(entries: &[Entry]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = entries
        .iter()
        .filter(|e| {
            e.path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| {
                    taintlint::inventory::kustomize::KUSTOMIZATION_FILES.contains(&n)
                        || n == "Chart.yaml"
                })
        })
        .filter_map(|e| e.path.parent().map(Path::to_path_buf))
        .collect();
    roots.sort();
    roots.dedup();
    roots
}

/// Whether taintlint may read a file of this name on its own: manifests, inventories and
/// Terraform, chart helpers, ignore files.
fn read_by_taintlint(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name == ".gitignore" {
        // Every file of a commit is tracked: an ignore pattern never hides one.
        return false;
    }
    name == ".ignore" || readable(path)
}

/// Files of a kind taintlint reads (by extension).
fn readable(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    matches!(
        ext.as_str(),
        "yaml" | "yml" | "json" | "tf" | "tfvars" | "hcl" | "tpl"
    )
}

impl Prepared {
    /// Writes the rest of the base tree: the files, and the big inventories by git itself.
    fn write_rest(&mut self, repo: &Repo, changed: &HashSet<PathBuf>) -> Result<(), GitError> {
        let (entries, big) = std::mem::take(&mut self.rest);
        let blobs = repo.write_blobs(&big, &self.side.tree)?;
        let entries: Vec<&Entry> = entries.iter().collect();
        let written = write_files(repo, changed, &entries, &self.side.tree);
        // The blobs are waited for even when the files failed: none writes on into a tree
        // given up.
        let blobs = blobs.wait();
        written.and(blobs)
    }

    /// How the base side's names read in the working tree, for the command line's paths.
    pub(crate) fn names(&self, paths: &[&Path]) -> Names {
        let mut prefixes: Vec<(String, String)> = paths
            .iter()
            .filter_map(|p| {
                let mapped = self.side.map(p)?;
                if mapped.as_os_str() == "-" && p.as_os_str() != "-" {
                    return Some((
                        super::inventory::STDIN_INVENTORY.to_string(),
                        p.display().to_string(),
                    ));
                }
                (mapped != *p).then(|| (mapped.display().to_string(), p.display().to_string()))
            })
            .collect();
        let tree = self.side.tree.display().to_string();
        let top = self.side.worktree.display().to_string();
        prefixes.push((tree, top));
        prefixes.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        Names { prefixes }
    }

    /// Starts the same command on the base tree, printing JSON (`subcommand`: `lint` or
    /// `simulate`).
    pub(crate) fn spawn(&self, subcommand: &str) -> Result<Running, String> {
        let exe = std::env::current_exe()
            .map_err(|e| format!("--base: the path of taintlint itself: {e}"))?;
        let mut command = Command::new(exe);
        command
            .arg(subcommand)
            .arg("--base-side")
            .arg(self.side.spec())
            .args(std::env::args_os().skip(2))
            .current_dir(self.side.child_dir())
            .env_remove("COLUMNS")
            // Its end says the tree is whole.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .map_err(|e| format!("--base: could not run taintlint at the base revision: {e}"))?;
        let gate = child.stdin.take();
        let mut out = child.stdout.take().expect("piped");
        let mut err = child.stderr.take().expect("piped");
        let stdout = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = out.read_to_end(&mut buf);
            buf
        });
        let stderr = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = err.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        });
        Ok(Running {
            child,
            gate,
            stdout,
            stderr,
            label: self.commit.label(),
        })
    }
}

/// The command running on the base tree.
pub(crate) struct Running {
    child: std::process::Child,
    /// Its standard input, closed when the base tree is whole.
    gate: Option<std::process::ChildStdin>,
    stdout: std::thread::JoinHandle<Vec<u8>>,
    stderr: std::thread::JoinHandle<String>,
    label: String,
}

/// What the command said of the base tree.
pub(crate) struct Finished {
    pub(crate) json: Vec<u8>,
    /// Its exit status (2: a problem, which it said).
    pub(crate) code: Option<i32>,
    stderr: String,
    pub(crate) label: String,
}

impl Running {
    /// Stops it (the tree it reads was not written whole).
    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub(crate) fn wait(mut self) -> Finished {
        self.gate = None;
        let status = self.child.wait();
        let json = self.stdout.join().unwrap_or_default();
        let stderr = self.stderr.join().unwrap_or_default();
        Finished {
            json,
            code: status.ok().and_then(|s| s.code()),
            stderr,
            label: self.label,
        }
    }
}

impl Finished {
    /// Its JSON read by `parse`, with what it said when it stopped at a problem (exit status
    /// 2), else nothing; when its output does not read, what it said and that `doing` the
    /// repository at `label` failed.
    pub(crate) fn read<T, E>(
        &self,
        names: &Names,
        label: &str,
        doing: &str,
        parse: impl FnOnce(&[u8]) -> Result<T, E>,
    ) -> Result<(T, Vec<String>), Vec<String>> {
        match parse(&self.json) {
            Ok(t) => Ok((
                t,
                if self.code == Some(2) {
                    self.messages(names)
                } else {
                    Vec::new()
                },
            )),
            Err(_) => {
                let mut said = self.messages(names);
                said.push(format!(
                    "--base: could not {doing} the repository at {label}{}",
                    if said.is_empty() { "" } else { " (above)" }
                ));
                Err(said)
            }
        }
    }

    /// What it said on standard error, each line naming the revision, its names read as the
    /// working tree's.
    pub(crate) fn messages(&self, names: &Names) -> Vec<String> {
        self.stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let l = l.strip_prefix("taintlint: ").unwrap_or(l);
                let mut l = l.to_string();
                for (from, to) in &names.prefixes {
                    l = l.replace(from.as_str(), to.as_str());
                }
                format!("at {}: {l}", self.label)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side() -> BaseSide {
        BaseSide {
            worktree: PathBuf::from("/repo"),
            tree: PathBuf::from("/tmp/base"),
            cwd: PathBuf::from("/repo/deploy"),
            absent: vec![PathBuf::from("new.yaml")],
            same: vec![PathBuf::from("nodes.json")],
        }
    }

    #[test]
    fn paths_read_at_the_base_revision() {
        let s = side();
        // Relative and below: the same, from the mirrored directory.
        assert_eq!(s.map(Path::new("apps")), Some(PathBuf::from("apps")));
        // Relative through `..` but inside: the base tree's.
        assert_eq!(
            s.map(Path::new("../cluster/pools.yaml")),
            Some(PathBuf::from("/tmp/base/cluster/pools.yaml"))
        );
        // Absolute inside: the base tree's.
        assert_eq!(
            s.map(Path::new("/repo/cluster")),
            Some(PathBuf::from("/tmp/base/cluster"))
        );
        // Outside: the same file.
        assert_eq!(
            s.map(Path::new("../../tmp/nodes.json")),
            Some(PathBuf::from("/tmp/nodes.json"))
        );
        assert_eq!(s.map(Path::new("new.yaml")), None);
        assert_eq!(
            s.map(Path::new("nodes.json")),
            Some(PathBuf::from("/repo/deploy/nodes.json"))
        );
        let mut list = vec![PathBuf::from("new.yaml"), PathBuf::from("apps")];
        s.map_all(&mut list);
        assert_eq!(list, vec![PathBuf::from("apps")]);
        assert_eq!(s.child_dir(), PathBuf::from("/tmp/base/deploy"));
        assert_eq!(BaseSide::parse(&s.spec()).unwrap().tree, s.tree);
    }
}
