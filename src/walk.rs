//! Which files a directory stands for, for every edge that reads directories: `lint` and
//! `simulate` paths, `--inventory DIR`, and the language server's workspace index and inventory.
//! One walk, so that the editor sees the files the command line lints.

use std::path::{Path, PathBuf};

use crate::config_file::ConfigFile;

/// The files under `dir` in path order, as a lint walk finds them: dot-directories and a Helm
/// chart's `templates/` (Go templates are not YAML until rendered) are skipped, `.gitignore` is
/// honoured (but a file git tracks is never left out for it: see [`walk`]), and so are the
/// configuration's excludes. Every file is given; which to read is the caller's choice
/// ([`lints`] for `lint`'s).
pub fn files(dir: &Path, config: &ConfigFile) -> impl Iterator<Item = Result<PathBuf, String>> {
    walk(dir, config).files.into_iter()
}

/// What a directory walk found: the files it gives, and the files of Helm charts' `templates/`
/// directories it skipped (all of them, that is every file the walk would give there).
#[derive(Debug, Default)]
pub struct Walk {
    pub files: Vec<Result<PathBuf, String>>,
    pub chart_templates: Vec<PathBuf>,
}

/// [`files`], and the chart templates it skipped. Inside a git work tree, the files git tracks
/// that an ignore pattern matches are given too: a pattern meant for a build output (`manager`
/// in a nested `.gitignore`) must not hide a tracked `config/manager/manager.yaml`. Git is asked
/// (`git ls-files --cached --ignored --exclude-standard`); without git, or outside a work tree,
/// the walk is the ignore rules' alone.
pub fn walk(dir: &Path, config: &ConfigFile) -> Walk {
    let templates = std::sync::Arc::new(std::sync::Mutex::new(Vec::<PathBuf>::new()));
    let found = templates.clone();
    let root = dir.to_path_buf();
    let skip = config.clone();
    // git lists what it tracks while the walk runs.
    let tracked_git = tracked_but_ignored(dir);
    let mut files: Vec<Result<PathBuf, String>> = ignore::WalkBuilder::new(dir)
        .hidden(false)
        .git_ignore(true)
        .require_git(false)
        // Siblings share their directory: their names order them as their paths would.
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let p = e.path();
            if p == root {
                return true;
            }
            let dir = e.file_type().is_some_and(|t| t.is_dir());
            if dir && !is_dot_dir(p) && is_chart_templates(p) && !skip.is_excluded(p) {
                found
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(p.to_path_buf());
                return false;
            }
            let dot_dir = dir && is_dot_dir(p);
            !dot_dir && !skip.is_excluded(p)
        })
        .build()
        .filter_map(|entry| match entry {
            Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => Some(Ok(e.into_path())),
            Ok(_) => None,
            Err(e) => Some(Err(e.to_string())),
        })
        .collect();
    let template_dirs = std::mem::take(&mut *templates.lock().unwrap_or_else(|e| e.into_inner()));
    let mut chart_templates = Vec::new();
    for templates in &template_dirs {
        chart_templates.extend(
            ignore::WalkBuilder::new(templates)
                .hidden(false)
                .git_ignore(true)
                .require_git(false)
                .build()
                .flatten()
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .map(|e| e.into_path())
                .filter(|p| !config.is_excluded(p)),
        );
    }
    // Tracked files an ignore pattern hides.
    let mut tracked = false;
    for path in tracked_git.wait() {
        let inside = path.strip_prefix(dir).unwrap_or(&path);
        let between = || {
            inside
                .ancestors()
                .skip(1)
                .filter(|a| !a.as_os_str().is_empty())
        };
        if between().any(is_dot_dir) || config.is_excluded(&path) || !path.is_file() {
            continue;
        }
        if between().any(|a| is_chart_templates(&dir.join(a))) {
            chart_templates.push(path);
        } else {
            files.push(Ok(path));
        }
        tracked = true;
    }
    if tracked {
        // Errors first, then the files in the walk's order (path order, component by component).
        files.sort_by(|a, b| match (a, b) {
            (Ok(a), Ok(b)) => a.cmp(b),
            (a, b) => a.is_ok().cmp(&b.is_ok()),
        });
        files.dedup_by(|a, b| matches!((a, b), (Ok(a), Ok(b)) if a == b));
    }
    chart_templates.sort();
    chart_templates.dedup();
    Walk {
        files,
        chart_templates,
    }
}

/// The files under `dir` that git tracks and an ignore pattern (`.gitignore`, `.git/info/exclude`,
/// the global excludes file) matches, as paths under `dir`, once [`Tracked::wait`] is asked;
/// none when git is not installed or `dir` is not in a work tree.
fn tracked_but_ignored(dir: &Path) -> Tracked {
    let child = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--ignored",
            "--exclude-standard",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    Tracked {
        dir: dir.to_path_buf(),
        child: child.ok(),
    }
}

/// git listing what it tracks, running.
struct Tracked {
    dir: PathBuf,
    child: Option<std::process::Child>,
}

impl Tracked {
    fn wait(self) -> Vec<PathBuf> {
        let Some(Ok(o)) = self.child.map(std::process::Child::wait_with_output) else {
            return Vec::new();
        };
        if !o.status.success() {
            return Vec::new();
        }
        o.stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .filter_map(|p| std::str::from_utf8(p).ok())
            .map(|p| self.dir.join(p))
            .collect()
    }
}

/// Whether a walk's file is one `lint` reads: one the configuration includes (`*.yaml`, `*.yml`,
/// `*.json` unless it says otherwise), or a Terraform file that defines node pools.
pub fn lints(path: &Path, config: &ConfigFile) -> bool {
    config.is_included(path) || defines_node_pools(path)
}

/// A Terraform file that defines node pools (it is linted like a manifest).
fn defines_node_pools(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "tf")
        && std::fs::read_to_string(path)
            .is_ok_and(|t| crate::inventory::terraform::defines_pools(&t))
}

/// `.git` and other dot-directories (dot-files are linted).
fn is_dot_dir(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') && n != "." && n != "..")
}

/// The `templates` directory of a Helm chart (next to its Chart.yaml).
pub fn is_chart_templates(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "templates")
        && path
            .parent()
            .is_some_and(|chart| chart.join("Chart.yaml").is_file())
}

/// The chart whose own `templates/` hold `path` (the directory of its `Chart.yaml`), if any.
pub fn chart_of_template(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|a| is_chart_templates(a))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// What a chart's templates render a values file into, when `path` is a chart's values file
/// (`values.yaml`, `values-prod.yaml`, ... beside a `Chart.yaml`): read from the templates under
/// the chart's `templates/` (its own, not its subcharts'). `None` for any other file, and for
/// a chart whose templates render no pod fields from the values. The one reader of a chart's
/// templates, for `lint`, `simulate` and the language server.
pub fn chart_kinds(path: &Path) -> Option<std::sync::Arc<crate::ChartKinds>> {
    let name = path.file_name()?.to_str()?;
    if !(name.starts_with("values") && (name.ends_with(".yaml") || name.ends_with(".yml"))) {
        return None;
    }
    let chart = path.parent()?;
    if !chart.join("Chart.yaml").is_file() {
        return None;
    }
    let mut templates = Vec::new();
    let mut dirs = vec![chart.join("templates")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                dirs.push(p);
            } else if p
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "tpl")
            {
                // A template that cannot be read says nothing.
                if let Ok(text) = std::fs::read_to_string(&p) {
                    templates.push((p.display().to_string(), text));
                }
            }
        }
    }
    let kinds =
        crate::ChartKinds::from_templates(templates.iter().map(|(n, t)| (n.as_str(), t.as_str())));
    (!kinds.is_empty()).then(|| std::sync::Arc::new(kinds))
}

/// What a file's place says of how its documents are read: for a chart's values file, what the
/// chart's templates render it into ([`chart_kinds`]); for a patch file, that a kustomization
/// applies it, and to which object when it says ([`patch_file`]: what a JSON6902 patch writes
/// into). Read at the edge, once per file, by `lint`, `simulate` and the language server alike.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Place {
    pub chart: Option<std::sync::Arc<crate::ChartKinds>>,
    pub patch: Option<PatchFile>,
}

/// A file a kustomization names as a patch, and the object it applies it to when it says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PatchFile {
    pub target: Option<std::sync::Arc<PatchTarget>>,
}

impl Place {
    /// The place of `path`, when it says anything; the kustomizations read are kept in `read`
    /// when it is given (a run over a repository reads each once: without it, every file of a
    /// directory would read the kustomizations of its four parents again).
    pub fn of(path: &Path, read: Option<&Kustomizations>) -> Option<std::sync::Arc<Place>> {
        let place = Place {
            chart: chart_kinds(path),
            patch: patch_file(path, read),
        };
        (place != Place::default()).then(|| std::sync::Arc::new(place))
    }

    /// `options` with what this place says set.
    pub fn apply(&self, options: &mut crate::Options) {
        options.set_chart_kinds(self.chart.clone());
        options.set_patch_target(self.patch.as_ref().and_then(|p| p.target.clone()));
        options.set_patch_file(self.patch.is_some());
    }
}

use crate::k8s::json6902::PatchTarget;

/// The kustomizations read, by directory: what each names as patch files. A run that reads a
/// repository once keeps one ([`Kustomizations::run`]: each kustomization read once); an
/// editor, whose kustomizations change, keeps one for a pass over its workspace and reads a
/// single file's anew ([`patch_file`] without one).
#[derive(Debug, Default)]
pub struct Kustomizations {
    /// What the kustomization of each directory names, by the directory's canonical path.
    named: std::sync::Mutex<std::collections::HashMap<PathBuf, Targets>>,
    /// What is around each directory, as a file's path gives it.
    around: std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<Around>>>,
}

/// Whether any kustomization around a directory names a patch file, and the directory's
/// symbolic links: when none does, a file there that is no link is no patch, known without a
/// system call of its own (a repository of ten thousand files saves fifty thousand).
#[derive(Debug)]
struct Around {
    any: bool,
    links: std::collections::HashSet<std::ffi::OsString>,
}

type Targets = std::sync::Arc<Vec<(PathBuf, PatchFile)>>;

impl Kustomizations {
    /// The one kept for the whole of a command-line run, which reads the repository once.
    pub fn run() -> &'static Kustomizations {
        static READ: std::sync::OnceLock<Kustomizations> = std::sync::OnceLock::new();
        READ.get_or_init(Default::default)
    }
}

/// The patch `path` is, when a kustomization in its directory or one of the three above names
/// it (`patches[].path`, `patchesJson6902[].path`, `patchesStrategicMerge[]`, or such an entry
/// commented out: [`crate::inventory::kustomize::commented_patch_files`]), with the
/// object it is applied to when the kustomization gives a `target`; the kustomizations read are
/// kept in `read` when it is given.
pub fn patch_file(path: &Path, read: Option<&Kustomizations>) -> Option<PatchFile> {
    let ext = path.extension()?.to_str()?;
    if !matches!(ext, "yaml" | "yml" | "json") {
        return None;
    }
    // A single file keeps what it reads for this call: each kustomization is read once.
    let single = read.is_none();
    let local = Kustomizations::default();
    let kept = read.unwrap_or(&local);
    // A file that is no link lies in its directory's canonical path: when no kustomization
    // there or above names a patch, it is none.
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let cached = kept.around.lock().ok().and_then(|m| m.get(dir).cloned());
    let around = cached.unwrap_or_else(|| {
        let any = std::fs::canonicalize(dir).is_ok_and(|canonical| {
            (canonical.ancestors().take(4)).any(|d| !named_in(d, kept).is_empty())
        });
        // A run asks of every file of a directory: one listing says which are links. A single
        // file asks the file system of itself (below).
        let links = if single || any {
            Default::default()
        } else {
            (std::fs::read_dir(dir).into_iter().flatten().flatten())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
                .map(|e| e.file_name())
                .collect()
        };
        let around = std::sync::Arc::new(Around { any, links });
        if let Ok(mut m) = kept.around.lock() {
            m.insert(dir.to_path_buf(), around.clone());
        }
        around
    });
    let link = match single {
        false => path.file_name().is_some_and(|n| around.links.contains(n)),
        true => std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()),
    };
    if !around.any && !link {
        return None;
    }
    let file = std::fs::canonicalize(path).ok()?;
    file.ancestors().skip(1).take(4).find_map(|dir| {
        let targets = named_in(dir, kept);
        let found = targets.iter().find(|(p, _)| *p == file);
        found.map(|(_, t)| t.clone())
    })
}

/// What the kustomization of `dir` (a canonical path) names as patch files, each by its
/// canonical path.
fn named_in(dir: &Path, kept: &Kustomizations) -> Targets {
    if let Some(t) = kept.named.lock().ok().and_then(|m| m.get(dir).cloned()) {
        return t;
    }
    let mut targets = Vec::new();
    for name in crate::inventory::kustomize::KUSTOMIZATION_FILES {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
            continue;
        };
        let exists = |p: &str| dir.join(p).exists();
        let k = crate::inventory::kustomize::Kustomization::read(&text, &exists);
        let canonical = |p: &str| std::fs::canonicalize(dir.join(p)).ok();
        // A file it lists as a resource is one, whatever a comment says.
        let resources: Vec<PathBuf> = k.resources.iter().filter_map(|r| canonical(r)).collect();
        let commented = crate::inventory::kustomize::commented_patch_files(&text)
            .into_iter()
            .filter_map(|p| canonical(&p))
            .filter(|p| !resources.contains(p))
            .map(|p| (p, None));
        let named = k.patch_files.iter().filter_map(|(p, target)| {
            Some((canonical(p)?, target.clone().map(std::sync::Arc::new)))
        });
        for (p, target) in named.chain(commented) {
            targets.push((p, PatchFile { target }));
        }
        break;
    }
    let targets = std::sync::Arc::new(targets);
    if let Ok(mut m) = kept.named.lock() {
        m.insert(dir.to_path_buf(), targets.clone());
    }
    targets
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file a kustomization names in a commented-out patch entry is a patch, unless the same
    /// kustomization lists it as a resource.
    #[test]
    fn a_patch_named_in_a_comment_is_one_unless_it_is_a_resource() {
        let dir = std::env::temp_dir().join(format!("taintlint-walk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let kustomization = "resources:\n- ./web.yaml\npatches:\n#ENABLE_AGENT - path: agent.yaml\n# - path: web.yaml\n";
        for (name, text) in [
            ("kustomization.yaml", kustomization),
            ("web.yaml", "kind: Deployment\n"),
            ("agent.yaml", "kind: DaemonSet\n"),
        ] {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let agent = patch_file(&dir.join("agent.yaml"), None);
        let web = patch_file(&dir.join("web.yaml"), None);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(agent.is_some_and(|p| p.target.is_none()));
        assert!(web.is_none());
    }

    /// A patch is found by the file's canonical path: through a link from a directory with no
    /// kustomization around it, and from a kustomization two directories up, with the
    /// kustomizations kept for the run or read anew.
    #[cfg(unix)]
    #[test]
    fn a_patch_is_found_through_links_and_from_above() {
        let dir = std::env::temp_dir().join(format!("taintlint-walk-link-{}", std::process::id()));
        let (base, elsewhere) = (dir.join("base"), dir.join("elsewhere"));
        std::fs::create_dir_all(base.join("patches/gpu")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        let kustomization = "resources:\n- web.yaml\npatches:\n- path: patches/gpu/gpu.yaml\n  target:\n    kind: Deployment\n    name: web\n";
        std::fs::write(base.join("kustomization.yaml"), kustomization).unwrap();
        std::fs::write(base.join("patches/gpu/gpu.yaml"), "- op: add\n").unwrap();
        std::fs::write(base.join("patches/gpu/other.yaml"), "- op: add\n").unwrap();
        std::os::unix::fs::symlink(
            base.join("patches/gpu/gpu.yaml"),
            elsewhere.join("gpu.yaml"),
        )
        .unwrap();
        let kept = Kustomizations::default();
        for read in [None, Some(&kept), Some(&kept)] {
            let target = |p: &Path| patch_file(p, read).and_then(|p| p.target);
            let named = target(&base.join("patches/gpu/gpu.yaml"));
            assert_eq!(named.as_ref().and_then(|t| t.name.as_deref()), Some("web"));
            assert_eq!(target(&elsewhere.join("gpu.yaml")), named);
            assert!(patch_file(&base.join("patches/gpu/other.yaml"), read).is_none());
            assert!(patch_file(&base.join("web.yaml"), read).is_none());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
