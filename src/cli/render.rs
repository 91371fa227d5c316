//! Kustomizations rendered with the user's own kustomize: the one place that runs it (for the
//! manifests `lint` and `simulate` read, and for an inventory given as a kustomize directory).
//!
//! `kustomize build DIR` when `kustomize` is on the PATH, else `kubectl kustomize DIR` (kubectl
//! carries kustomize since 1.14); `--kustomize` or the configuration's `kustomize:` key names
//! one, or `off`. A traced render names the user's kustomization as the only resource of a
//! kustomization of its own, in a temporary directory, with
//! `buildMetadata: [originAnnotations, transformerAnnotations]`: kustomize then writes where
//! every object came from and which kustomizations patched it (the user's files are never
//! touched). [`taintlint::report::kustomize`] turns that into the files to edit.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use taintlint::config_file::Kustomize;
use taintlint::inventory::kustomize::KUSTOMIZATION_FILES;

/// How long one render may take (a remote base is fetched over the network).
const TIMEOUT: Duration = Duration::from_secs(60);

/// A kustomize to run.
#[derive(Debug, Clone)]
pub(crate) struct Renderer {
    program: PathBuf,
    /// `kubectl kustomize` rather than `kustomize build`.
    kubectl: bool,
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
    /// The kustomize `mode` asks for: `Ok(None)` when it is `off`, `Err` (what is missing, in a
    /// sentence) when the tool is not on the PATH.
    pub(crate) fn find(mode: Kustomize) -> Result<Option<Renderer>, String> {
        let kustomize = || {
            on_path("kustomize").map(|program| Renderer {
                program,
                kubectl: false,
            })
        };
        let kubectl = || {
            on_path("kubectl").map(|program| Renderer {
                program,
                kubectl: true,
            })
        };
        match mode {
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
    pub(crate) fn name(&self) -> &'static str {
        if self.kubectl {
            "kubectl kustomize"
        } else {
            "kustomize build"
        }
    }

    /// The rendered output of the kustomization in `dir`, or why there is none (kustomize's
    /// own message).
    pub(crate) fn build(&self, dir: &Path) -> Result<String, String> {
        let mut command = Command::new(&self.program);
        command.arg(if self.kubectl { "kustomize" } else { "build" });
        command.arg(dir);
        run(command).map_err(|e| format!("`{}` failed: {e}", self.name()))
    }

    /// The rendered output of the kustomization in `dir`, with kustomize's origin and
    /// transformer annotations on every object, and the directory the annotations' paths are
    /// relative to (kept as long as the result lives).
    pub(crate) fn build_traced(&self, dir: &Path) -> Result<(String, tempfile::TempDir), String> {
        let failed = |e: String| format!("`{}` failed: {e}", self.name());
        let target = std::fs::canonicalize(dir).map_err(|e| failed(e.to_string()))?;
        let temp = tempfile::Builder::new()
            .prefix("taintlint-render-")
            .tempdir()
            .map_err(|e| failed(e.to_string()))?;
        let root = std::fs::canonicalize(temp.path()).map_err(|e| failed(e.to_string()))?;
        // kustomize takes no absolute resource path: the user's directory is named relative to
        // the temporary one.
        let resource = relative(&root, &target);
        let text = format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\n\
             buildMetadata: [originAnnotations, transformerAnnotations]\n",
            serde_json::to_string(&resource.to_string_lossy()).expect("a string serializes")
        );
        std::fs::write(root.join("kustomization.yaml"), text).map_err(|e| failed(e.to_string()))?;
        let mut command = Command::new(&self.program);
        command.arg(if self.kubectl { "kustomize" } else { "build" });
        // Repositories that build with files outside a kustomization's directory
        // (`resources: [../bases/cluster.yaml]`, as Cluster API's e2e templates do) build
        // them so; it changes only which files may be read, never the output of one that
        // builds without it.
        command.args(["--load-restrictor", "LoadRestrictionsNone"]);
        command.arg(&root);
        let out = run(command).map_err(|e| failed(inner_cause(&e, &target)))?;
        Ok((out, temp))
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
/// '/x': `), and cut to a readable length.
fn inner_cause(message: &str, target: &Path) -> String {
    let marker = format!("recursed accumulation of path '{}': ", target.display());
    let inner = match message.find(&marker) {
        Some(i) => &message[i + marker.len()..],
        None => message,
    };
    const MAX: usize = 400;
    if inner.len() <= MAX {
        return inner.to_string();
    }
    let mut end = MAX;
    while !inner.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &inner[..end])
}

/// `to` relative to `from` (both absolute and canonical).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `path` with `.` and `..` taken out without asking the file system.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The kustomization file of a directory, if it has one.
pub(crate) fn kustomization_in(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|f| dir.join(f))
        .find(|f| f.is_file())
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
        assert_eq!(inner_cause(&"x".repeat(500), Path::new("/w")).len(), 403);
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative(Path::new("/tmp/x"), Path::new("/work/repo/overlays/prod")),
            PathBuf::from("../../work/repo/overlays/prod")
        );
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/b/c")),
            PathBuf::from("c")
        );
        assert_eq!(
            normalize(Path::new("/tmp/x/../../work/./a")),
            PathBuf::from("/work/a")
        );
    }
}
