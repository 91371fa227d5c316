//! Kustomizations rendered with the user's own kustomize: the one place that runs it (for the
//! manifests `lint` and `simulate` read, and an inventory given as a kustomize directory).
//!
//! `kustomize build DIR` when `kustomize` is on the PATH, else `kubectl kustomize DIR` (kubectl
//! carries kustomize since 1.14); `--kustomize` or the configuration's `kustomize:` key names
//! one, or `off`. A traced render names the user's kustomization as the only resource of a
//! kustomization of its own, in a temporary directory, with
//! `buildMetadata: [originAnnotations, transformerAnnotations]`: kustomize then writes where
//! every object came from and which kustomizations patched it (the user's files are never
//! touched). [`crate::report::kustomize`] turns that into the files to edit.
//!
//! kustomize runs with its own load restrictor unless the settings say `none`, and, unless
//! remote bases are allowed, with the network closed to what it starts: git may use only local
//! repositories (`GIT_ALLOW_PROTOCOL=file`) and HTTP goes to a proxy that is not there. The plan
//! ([`mod@super::plan`]) does not render an overlay that needs a remote base; this is the second
//! lock.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::config_file::{Kustomize, LoadRestrictor};

use super::plan::{relative, Settings};

/// How long one render may take (a remote base, when allowed, is fetched over the network).
const TIMEOUT: Duration = Duration::from_secs(60);

/// A kustomize to run.
#[derive(Debug, Clone)]
pub struct Renderer {
    program: PathBuf,
    /// `kubectl kustomize` rather than `kustomize build`.
    kubectl: bool,
    settings: Settings,
}

/// The first executable called `name` in a directory of `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

impl Renderer {
    /// The kustomize the settings ask for: `Ok(None)` when it is `off`, `Err` (what is
    /// missing, in a sentence) when the tool is not on the PATH.
    pub fn find(settings: Settings) -> Result<Option<Renderer>, String> {
        let kustomize = || {
            on_path("kustomize").map(|program| Renderer {
                program,
                kubectl: false,
                settings,
            })
        };
        let kubectl = || {
            on_path("kubectl").map(|program| Renderer {
                program,
                kubectl: true,
                settings,
            })
        };
        match settings.tool {
            Kustomize::Off => Ok(None),
            Kustomize::Auto => kustomize()
                .or_else(kubectl)
                .map(Some)
                .ok_or_else(|| "neither kustomize nor kubectl is on the PATH".to_string()),
            Kustomize::Kustomize => kustomize()
                .map(Some)
                .ok_or_else(|| "kustomize is not on the PATH".to_string()),
            Kustomize::Kubectl => kubectl()
                .map(Some)
                .ok_or_else(|| "kubectl is not on the PATH".to_string()),
        }
    }

    /// The command as people know it: `kustomize build` or `kubectl kustomize`.
    pub fn name(&self) -> &'static str {
        if self.kubectl {
            "kubectl kustomize"
        } else {
            "kustomize build"
        }
    }

    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The program, and what identifies its build on disk (length and modification time):
    /// what its version is remembered by.
    pub fn identity(&self) -> String {
        let meta = std::fs::metadata(&self.program).ok();
        let modified = meta
            .as_ref()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        format!(
            "{} {} {}",
            self.program.display(),
            meta.map_or(0, |m| m.len()),
            modified
        )
    }

    /// What the tool says its version is (`kubectl version --client` names the kustomize it
    /// carries).
    pub fn version(&self) -> Result<String, String> {
        let mut command = Command::new(&self.program);
        if self.kubectl {
            command.args(["version", "--client"]);
        } else {
            command.arg("version");
        }
        self.offline(&mut command);
        run(command).map(|v| format!("{}: {}", self.name(), v.trim()))
    }

    /// Closes the network to what kustomize starts, unless remote bases are allowed.
    fn offline(&self, command: &mut Command) {
        if self.settings.remote {
            return;
        }
        command.env("GIT_ALLOW_PROTOCOL", "file");
        command.env("GIT_TERMINAL_PROMPT", "0");
        for proxy in [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
        ] {
            command.env(proxy, "http://127.0.0.1:9");
        }
        command.env_remove("NO_PROXY").env_remove("no_proxy");
    }

    /// The arguments of a build: the subcommand and the load restrictor.
    fn build_command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.arg(if self.kubectl { "kustomize" } else { "build" });
        if self.settings.load_restrictor == LoadRestrictor::None {
            // Repositories that build with files outside a kustomization's directory
            // (`resources: [../bases/cluster.yaml]`, as Cluster API's e2e templates do) build
            // them so, when the configuration says they may.
            command.args(["--load-restrictor", "LoadRestrictionsNone"]);
        }
        self.offline(&mut command);
        command
    }

    /// The rendered output of the kustomization in `dir`, or why there is none (kustomize's
    /// own message).
    pub fn build(&self, dir: &Path) -> Result<String, String> {
        let mut command = self.build_command();
        command.arg(dir);
        run(command)
    }

    /// The rendered output of the kustomization in `dir`, with kustomize's origin and
    /// transformer annotations on every object, and the directory the annotations' paths are
    /// relative to (which is removed when this returns: only its name is needed).
    pub fn build_traced(&self, dir: &Path) -> Result<(String, PathBuf), String> {
        let target = std::fs::canonicalize(dir).map_err(|e| e.to_string())?;
        let temp = tempfile::Builder::new()
            .prefix("taintlint-render-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let root = std::fs::canonicalize(temp.path()).map_err(|e| e.to_string())?;
        // kustomize takes no absolute resource path: the user's directory is named relative to
        // the temporary one.
        let resource = relative(&root, &target);
        let text = format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\n\
             buildMetadata: [originAnnotations, transformerAnnotations]\n",
            serde_json::to_string(&resource.to_string_lossy()).expect("a string serializes")
        );
        std::fs::write(root.join("kustomization.yaml"), text).map_err(|e| e.to_string())?;
        let mut command = self.build_command();
        command.arg(&root);
        let out = run(command).map_err(|e| inner_cause(&e, &target))?;
        Ok((out, root))
    }
}

/// Runs a command with no input, within [`TIMEOUT`]: its standard output, or its standard
/// error's message.
fn run(mut command: Command) -> Result<String, String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer in {} seconds", TIMEOUT.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    if status.success() {
        String::from_utf8(out).map_err(|_| "its output is not UTF-8".to_string())
    } else {
        Err(message(&String::from_utf8_lossy(&err)))
    }
}

/// The message of a failed kustomize run: kubectl's log line (`E1125 ... run.go:72] "command
/// failed" err="..."`, or `err=<` with the message on the indented lines after it) reduced to
/// its `err`; kustomize's own first line else.
fn message(stderr: &str) -> String {
    if let Some(i) = stderr.find("err=") {
        let rest = &stderr[i + 4..];
        if let Some(block) = rest.strip_prefix("<\n") {
            let lines: Vec<&str> = block
                .lines()
                .take_while(|l| l.trim() != ">")
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            return lines.join(" ");
        }
        let line = rest.lines().next().unwrap_or_default();
        return line.trim().trim_matches('"').replace("\\\"", "\"");
    }
    stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no message")
        .trim_start_matches("Error: ")
        .to_string()
}

/// kustomize's message for the user's kustomization, without what it says of the temporary one
/// that names it (`accumulating resources from '../x': ... recursed accumulation of path
/// '/x': `).
fn inner_cause(message: &str, target: &Path) -> String {
    let marker = format!("recursed accumulation of path '{}': ", target.display());
    match message.find(&marker) {
        Some(i) => message[i + marker.len()..].to_string(),
        None => message.to_string(),
    }
}

/// The last cause of a kustomize error, in one line: kustomize wraps the error of each
/// kustomization it builds on in the message of the one that names it (`accumulating resources:
/// accumulation err='accumulating resources from '../base': ...': recursed accumulation of path
/// '/r/base': <the base's error>`), so the cause is after the last "recursed accumulation",
/// in the kustomization it names; without one, the overlay's own message is the cause.
pub fn last_cause(message: &str) -> String {
    const RECURSED: &str = "recursed accumulation of path '";
    let (cause, path) = match message.rfind(RECURSED).and_then(|i| {
        let rest = &message[i + RECURSED.len()..];
        let end = rest.find("': ")?;
        Some((rest[end + 3..].trim(), &rest[..end]))
    }) {
        Some((cause, path)) => (cause, Some(path)),
        None => (message.trim(), None),
    };
    // What kustomize says of the resource it could not read, without the wrappers.
    const FROM: &str = "accumulation err='accumulating resources from '";
    let cause = match cause.find(FROM) {
        Some(j) => {
            let inner = &cause[j + FROM.len()..];
            match inner.find("': ") {
                Some(k) => format!("{}: {}", &inner[..k], {
                    let r = &inner[k + 3..];
                    r.strip_suffix('\'').unwrap_or(r)
                }),
                None => inner.to_string(),
            }
        }
        None => cause.to_string(),
    };
    match path {
        Some(path) => format!("{} (in {path})", plainer(&cause)),
        None => plainer(&cause),
    }
}

/// kustomize's words for a resource it could not read, each thing said once: it tries a
/// resource as a file, then as a directory, and says both (`<as a file>': must build at
/// directory: <as a directory>`): the file's error is kept when the path is no directory, else
/// the directory's; and `evalsymlink failure on 'P' : lstat P: ...` names P once.
fn plainer(cause: &str) -> String {
    const DIR: &str = "': must build at directory: ";
    let mut cause = match cause.find(DIR) {
        Some(k) => {
            let (file, dir) = (&cause[..k], &cause[k + DIR.len()..]);
            match dir.strip_prefix("not a valid directory") {
                Some(_) => file.to_string(),
                None => format!("{}{dir}", &file[..file.find(": ").map_or(0, |i| i + 2)]),
            }
        }
        None => cause.to_string(),
    };
    const EVAL: &str = "evalsymlink failure on '";
    while let Some(i) = cause.find(EVAL) {
        match cause[i + EVAL.len()..].find("' : ") {
            Some(j) => cause.replace_range(i..i + EVAL.len() + j + 4, ""),
            None => break,
        }
    }
    cause
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubectl_log_lines_give_their_err() {
        assert_eq!(
            message(
                "E1125 22:36:19.684336   25836 run.go:72] \"command failed\" err=\"missing: x\"\n"
            ),
            "missing: x"
        );
        assert_eq!(
            message("E1125 run.go:72] \"command failed\" err=<\n\tfirst line\n\tsecond\n >\n"),
            "first line second"
        );
        assert_eq!(message("Error: no kustomization\n"), "no kustomization");
    }

    #[test]
    fn the_temporary_kustomization_is_left_out_of_messages() {
        let m = "accumulating resources: accumulation err='accumulating resources from \
                 '../w/o': '/w/o' must resolve to a file': recursed accumulation of path '/w/o': \
                 accumulating resources: missing.yaml: no such file";
        assert_eq!(
            inner_cause(m, Path::new("/w/o")),
            "accumulating resources: missing.yaml: no such file"
        );
        // A long message is kept whole: `--show-skipped` shows it.
        assert_eq!(inner_cause(&"x".repeat(500), Path::new("/w")).len(), 500);
    }

    /// kubectl's message for an overlay whose base's base fetches a remote base (as
    /// kubeflow/manifests' pipeline overlays do), shortened: the cause is the innermost one.
    #[test]
    fn the_last_cause_is_the_innermost_kustomizations() {
        let m = "accumulating resources: accumulation err='accumulating resources from \
                 '../../dev': '/r/env/dev' must resolve to a file': recursed accumulation of \
                 path '/r/env/dev': accumulating resources: accumulation err='accumulating \
                 resources from '../../base': '/r/base' must resolve to a file': recursed \
                 accumulation of path '/r/base': accumulating resources: accumulation \
                 err='accumulating resources from 'missing.yaml': open /r/base/missing.yaml: no \
                 such file or directory'";
        assert_eq!(
            last_cause(m),
            "missing.yaml: open /r/base/missing.yaml: no such file or directory (in /r/base)"
        );
        // A resource not there: said once, not as a file and again as a directory.
        let m = "accumulating resources: accumulation err='accumulating resources from \
                 '../../base': '/r/base' must resolve to a file': recursed accumulation of \
                 path '/r/base': accumulating resources: accumulation err='accumulating \
                 resources from 'crds.yaml': evalsymlink failure on '/r/base/crds.yaml' : lstat \
                 /r/base/crds.yaml: no such file or directory': must build at directory: not a \
                 valid directory: evalsymlink failure on '/r/base/crds.yaml' : lstat \
                 /r/base/crds.yaml: no such file or directory'";
        assert_eq!(
            last_cause(m),
            "crds.yaml: lstat /r/base/crds.yaml: no such file or directory (in /r/base)"
        );
        // A directory without a kustomization: the directory's error.
        let m = "recursed accumulation of path '/r/o': accumulating resources: accumulation \
                 err='accumulating resources from '../empty': '/r/empty' must resolve to a \
                 file': must build at directory: unable to find one of 'kustomization.yaml', \
                 'kustomization.yml' or 'Kustomization' in directory '/r/empty''";
        assert_eq!(
            last_cause(m),
            "../empty: unable to find one of 'kustomization.yaml', 'kustomization.yml' or \
             'Kustomization' in directory '/r/empty' (in /r/o)"
        );
        // A resource of the overlay itself that is not there (a directory a Makefile makes,
        // as kubernetes-sigs/kueue's e2e overlays name): no "recursed" part, the same words.
        let m = "accumulating resources: accumulation err='accumulating resources from \
                 '../../dep-crds/standalone': evalsymlink failure on \
                 'dep-crds/standalone' : lstat dep-crds: no such file or directory': must \
                 build at directory: not a valid directory: evalsymlink failure on \
                 'dep-crds/standalone' : lstat dep-crds: no such file or directory'";
        assert_eq!(
            last_cause(m),
            "../../dep-crds/standalone: lstat dep-crds: no such file or directory"
        );
        assert_eq!(
            last_cause("no kustomization file in /r/x"),
            "no kustomization file in /r/x"
        );
    }
}
