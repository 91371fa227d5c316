//! Reading a repository as committed at a revision, through the user's `git`: the work tree the
//! current directory is in, a revision resolved to its commit, the commit's files listed and
//! their contents read. Nothing is checked out, and nothing in the repository is written: the
//! commands are plumbing that only reads (`rev-parse`, `ls-tree`, `cat-file`, `ls-files`,
//! `diff-index`).
//!
//! Why git itself rather than a library that reads repositories (gix): git is there wherever a
//! pull request is checked out, it reads every repository git can (partial clones that fetch a
//! missing object on demand, alternates, SHA-256 object formats, every revision syntax a user may
//! give, `origin/main~3`, `@{upstream}`), and it costs the build nothing, where gix brings a
//! hundred crates to read objects git reads in one process. Each command is given
//! `core.fsmonitor=false` and `GIT_OPTIONAL_LOCKS=0`: reading a revision runs no hook the
//! repository configures and takes no lock a concurrent git would wait for.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A git command that runs nothing the repository configures and takes no optional lock.
fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .args(["-c", "core.fsmonitor=false", "-c", "core.quotePath=false"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null());
    c
}

/// Runs a git command and gives its standard output, or what it said on standard error.
fn output(mut c: Command) -> Result<Vec<u8>, GitError> {
    let out = c.output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => GitError::NoGit,
        _ => GitError::Failed(e.to_string()),
    })?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let said = String::from_utf8_lossy(&out.stderr);
        let said = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        Err(GitError::Failed(
            said.trim_start_matches("fatal: ").trim().to_string(),
        ))
    }
}

#[derive(Debug)]
pub(crate) enum GitError {
    /// `git` is not installed (not on the PATH).
    NoGit,
    /// What git said.
    Failed(String),
}

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitError::NoGit => f.write_str("git is not installed (not on the PATH)"),
            GitError::Failed(said) => f.write_str(said),
        }
    }
}

/// The work tree the current directory is in.
#[derive(Debug, Clone)]
pub(crate) struct Repo {
    /// The work tree's top directory, absolute.
    pub(crate) top: PathBuf,
    /// The current directory, absolute (as the system gives it).
    pub(crate) cwd: PathBuf,
}

/// A commit, by its object name, and the revision the user gave for it.
#[derive(Debug, Clone)]
pub(crate) struct Commit {
    pub(crate) oid: String,
    pub(crate) rev: String,
}

impl Commit {
    /// `main (3f2a1bc)`, or the short name alone when the user gave the object name.
    pub(crate) fn label(&self) -> String {
        let short = &self.oid[..self.oid.len().min(7)];
        if self.oid.starts_with(&self.rev) {
            short.to_string()
        } else {
            format!("{} ({short})", self.rev)
        }
    }
}

/// One file of a commit's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `100644`, `100755`, `120000` (a symbolic link).
    pub(crate) mode: String,
    pub(crate) oid: String,
    /// The path from the top of the work tree, `/`-separated, as git stores it.
    pub(crate) path: PathBuf,
}

impl Repo {
    /// The work tree the current directory is in.
    pub(crate) fn discover() -> Result<Repo, GitError> {
        let cwd = std::env::current_dir().map_err(|e| GitError::Failed(e.to_string()))?;
        let out = output({
            let mut c = git(&cwd);
            c.args(["rev-parse", "--show-toplevel"]);
            c
        })?;
        let top = String::from_utf8_lossy(&out)
            .trim_end_matches('\n')
            .to_string();
        if top.is_empty() {
            // Inside the `.git` directory, or a bare repository: no work tree.
            return Err(GitError::Failed("not inside a work tree".to_string()));
        }
        // Both as the system spells them, so that one is a prefix of the other (a symbolic link
        // in the current directory's path, `/tmp` on macOS).
        let top = std::fs::canonicalize(&top).unwrap_or_else(|_| PathBuf::from(top));
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        Ok(Repo { top, cwd })
    }

    /// The commit `rev` names (a branch, a tag, `HEAD~2`, an object name, ...).
    pub(crate) fn resolve(&self, rev: &str) -> Result<Commit, GitError> {
        let mut c = git(&self.top);
        // `--end-of-options`: a revision that begins with `-` is not taken for an option.
        c.args(["rev-parse", "--verify", "--quiet", "--end-of-options"])
            .arg(format!("{rev}^{{commit}}"));
        let out = output(c).map_err(|e| match e {
            GitError::NoGit => GitError::NoGit,
            GitError::Failed(_) => GitError::Failed(format!(
                "`{rev}` does not name a commit of this repository (`git rev-parse --verify \
                 '{rev}^{{commit}}'` finds none; in a shallow clone, fetch it first)"
            )),
        })?;
        let oid = String::from_utf8_lossy(&out).trim().to_string();
        if oid.is_empty() {
            return Err(GitError::Failed(format!(
                "`{rev}` does not name a commit of this repository"
            )));
        }
        Ok(Commit {
            oid,
            rev: rev.to_string(),
        })
    }

    /// Every file of the commit's tree (submodules, which are commits of other repositories,
    /// left out).
    pub(crate) fn tree(&self, commit: &Commit) -> Result<Vec<Entry>, GitError> {
        let mut c = git(&self.top);
        c.args(["ls-tree", "-r", "-z", "--full-tree", &commit.oid]);
        let out = output(c)?;
        Ok(out
            .split(|&b| b == 0)
            .filter(|line| !line.is_empty())
            .filter_map(|line| {
                // `<mode> SP <type> SP <object> TAB <path>`
                let tab = line.iter().position(|&b| b == b'\t')?;
                let head = std::str::from_utf8(&line[..tab]).ok()?;
                let mut parts = head.split(' ');
                let (mode, kind, oid) = (parts.next()?, parts.next()?, parts.next()?);
                (kind == "blob").then(|| Entry {
                    mode: mode.to_string(),
                    oid: oid.to_string(),
                    path: path_of(&line[tab + 1..]),
                })
            })
            .collect())
    }

    /// Of `paths` (under the work tree, relative to its top), those git tracks now (in the
    /// index).
    pub(crate) fn tracked(&self, paths: &[PathBuf]) -> Result<Vec<PathBuf>, GitError> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut c = git(&self.top);
        c.args(["ls-files", "-z", "--full-name", "--"]);
        for p in paths {
            // A literal path, not a pattern.
            let mut spec = std::ffi::OsString::from(":(literal)");
            spec.push(p.as_os_str());
            c.arg(spec);
        }
        let out = output(c)?;
        Ok(out
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(path_of)
            .collect())
    }

    /// The paths (relative to the top of the work tree) that differ between the commit and the
    /// working tree, as the index tells (a file whose time stamps changed since git last looked
    /// counts as changed, without being read): `git diff-index`. A file the index is told not
    /// to look at (`git update-index --assume-unchanged` or `--skip-worktree`) counts as
    /// changed too: git would not see it edited. Every other file of the commit is in the
    /// working tree as committed.
    pub(crate) fn changed_since(
        &self,
        commit: &Commit,
    ) -> Result<std::collections::HashSet<PathBuf>, GitError> {
        let mut c = git(&self.top);
        c.args([
            "diff-index",
            "-z",
            "--name-only",
            "--no-renames",
            &commit.oid,
            "--",
        ]);
        let out = output(c)?;
        let mut changed: std::collections::HashSet<PathBuf> = out
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(path_of)
            .collect();
        // `<tag> SP <path>`: a lower-case tag is assumed unchanged, `S` skips the work tree.
        let mut c = git(&self.top);
        c.args(["ls-files", "-v", "-z", "--full-name"]);
        let out = output(c)?;
        changed.extend(
            out.split(|&b| b == 0)
                .filter(|l| l.len() > 2 && (l[0].is_ascii_lowercase() || l[0] == b'S'))
                .map(|l| path_of(&l[2..])),
        );
        Ok(changed)
    }

    /// Starts writing each object of `blobs` (path, object) under `dest` at its path, each by a
    /// `git cat-file blob` of its own straight into the file: big files, written while other
    /// work goes on.
    pub(crate) fn write_blobs(
        &self,
        blobs: &[(PathBuf, String)],
        dest: &Path,
    ) -> Result<Blobs, GitError> {
        let failed = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::NotFound => GitError::NoGit,
            _ => GitError::Failed(e.to_string()),
        };
        let mut running = Blobs(Vec::new());
        for (path, oid) in blobs {
            let path = dest.join(path);
            let started = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::File::create(&path))
                .map_err(|e| GitError::Failed(format!("{}: {e}", path.display())))
                .and_then(|file| {
                    git(&self.top)
                        .args(["cat-file", "blob", oid])
                        .stdout(file)
                        .stderr(Stdio::piped())
                        .spawn()
                        .map_err(failed)
                });
            match started {
                Ok(child) => running.0.push((path, child)),
                Err(e) => {
                    // Those started are waited for: none writes on into a tree given up.
                    let _ = running.wait();
                    return Err(e);
                }
            }
        }
        Ok(running)
    }

    /// Reads the objects `entries` name and writes each under `dest` at its path (a symbolic
    /// link as one, where the system has them), with one `git cat-file --batch`.
    pub(crate) fn write_files(&self, entries: &[&Entry], dest: &Path) -> Result<(), GitError> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut child = git(&self.top)
            // `--buffer`: answers are not flushed one by one (each flush was a round trip
            // between the processes, a second for 2,000 files on a busy machine).
            .args(["cat-file", "--batch", "--buffer"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => GitError::NoGit,
                _ => GitError::Failed(e.to_string()),
            })?;
        let mut stdin = child.stdin.take().expect("piped");
        let names: Vec<String> = entries.iter().map(|e| format!("{}\n", e.oid)).collect();
        // The names are written on a thread of their own: git answers as it reads, and a pipe
        // that fills on both sides would stop both.
        let writer = std::thread::spawn(move || -> std::io::Result<()> {
            let mut stdin = std::io::BufWriter::new(&mut stdin);
            for n in names {
                stdin.write_all(n.as_bytes())?;
            }
            stdin.flush()
        });
        let mut out = BufReader::with_capacity(1 << 16, child.stdout.take().expect("piped"));
        let mut result = Ok(());
        let mut header = String::new();
        let mut body = Vec::new();
        for entry in entries {
            header.clear();
            if out.read_line(&mut header).unwrap_or(0) == 0 {
                result = Err(GitError::Failed(format!(
                    "git cat-file stopped before {}",
                    entry.path.display()
                )));
                break;
            }
            // `<object> SP <type> SP <size> LF <contents> LF`, or `<object> SP missing LF`.
            let size = header
                .trim_end()
                .rsplit(' ')
                .next()
                .and_then(|s| s.parse::<u64>().ok());
            let Some(size) = size.filter(|_| !header.trim_end().ends_with(" missing")) else {
                result = Err(GitError::Failed(format!(
                    "object {} ({}) is missing from the repository",
                    entry.oid,
                    entry.path.display()
                )));
                break;
            };
            body.clear();
            let read = (&mut out)
                .take(size + 1)
                .read_to_end(&mut body)
                .map_err(|e| GitError::Failed(e.to_string()));
            if let Err(e) = read {
                result = Err(e);
                break;
            }
            body.truncate(size as usize);
            if let Err(e) = write_entry(dest, entry, &body) {
                result = Err(GitError::Failed(format!(
                    "{}: {e}",
                    dest.join(&entry.path).display()
                )));
                break;
            }
        }
        drop(out);
        let _ = writer.join();
        let status = child.wait();
        if result.is_ok() && !status.is_ok_and(|s| s.success()) {
            let mut said = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut said);
            }
            result = Err(GitError::Failed(said.trim().to_string()));
        }
        result
    }
}

/// Objects being written into files ([`Repo::write_blobs`]).
pub(crate) struct Blobs(Vec<(PathBuf, std::process::Child)>);

impl Blobs {
    /// Waits until every file is written; the first that was not, and why.
    pub(crate) fn wait(self) -> Result<(), GitError> {
        let mut result = Ok(());
        for (path, child) in self.0 {
            let out = child.wait_with_output();
            if result.is_ok() && !out.as_ref().is_ok_and(|o| o.status.success()) {
                let said = out.map_or_else(
                    |e| e.to_string(),
                    |o| String::from_utf8_lossy(&o.stderr).trim().to_string(),
                );
                result = Err(GitError::Failed(format!("{}: {said}", path.display())));
            }
        }
        result
    }
}

/// Writes one file of a tree under `dest`.
fn write_entry(dest: &Path, entry: &Entry, body: &[u8]) -> std::io::Result<()> {
    let path = dest.join(&entry.path);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if entry.mode == "120000" {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            return std::os::unix::fs::symlink(OsStr::from_bytes(body), &path);
        }
        #[cfg(not(unix))]
        return Ok(());
    }
    std::fs::write(&path, body)
}

/// A path as git prints it (bytes, `/`-separated).
fn path_of(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).replace('/', "\\"))
    }
}
