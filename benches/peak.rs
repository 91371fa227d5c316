//! `cargo bench --bench peak`: the binary's wall time and peak memory (maximum resident set
//! size) for each row of docs/development.md's "Where the memory goes", measured as a person
//! runs it: `simulate --format json` of 25,000 workloads in 10,000 files against a
//! `kubectl get nodes -o json` of 5,000 and of 10,000 nodes (the data `cargo bench --bench
//! simulate` writes, written here too when missing), `lint` of the 10,000 files, and `lint
//! --kustomize off` of each of the nine corpora when `../shared/corpora/real-repos.tar.xz` is
//! there (unpacked once under `target/bench-data/`), and of each repository in the directory
//! `PEAK_REPOS` names when it is set (the ML and GPU repositories of the memory row: each a
//! checkout of its own). Every row is run `RUNS` times, the rows
//! interleaved; the medians are printed with the range. Peak memory is GNU time's `%M`
//! (`/usr/bin/time`): without it the rows are not run. The binary measured is the bench build's,
//! or the one `PEAK_BIN` names: the shipped build (`cargo build --profile dist`, then
//! `PEAK_BIN=target/dist/taintlint`), whose fat LTO makes less code to keep resident, or an
//! older build to compare with.
//!
//! Then the language server's rows (filter `server`), run by `benches/lsp_process.py` with
//! `python3`: the binary's `server` in a process of its own with the 5,000-node list as its
//! inventory and a 14,800-line manifest of 500 Deployments open (edit to pushed diagnostics,
//! median and p90, and the server's peak), and opened on the nine corpora as one workspace
//! (time from start to the first full `workspace/diagnostic`, and the server's peak).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "support/cluster.rs"]
#[allow(dead_code)]
mod cluster;

const RUNS: usize = 5;

/// The benchmark's data: the manifests and node lists the simulate benchmark writes.
fn data() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    let manifests = dir.join("manifests");
    if !manifests.join("9999.yaml").is_file() {
        std::fs::create_dir_all(&manifests).unwrap();
        for (i, text) in cluster::manifest_files(25_000, 10_000).iter().enumerate() {
            std::fs::write(manifests.join(format!("{i:04}.yaml")), text).unwrap();
        }
    }
    for nodes in [5_000, 10_000] {
        let file = dir.join(format!("nodes-{nodes}.json"));
        if !file.is_file() {
            std::fs::write(file, cluster::nodes_json(nodes)).unwrap();
        }
    }
    dir
}

/// The nine corpora's repositories, unpacked once, when the archive is there.
fn corpora(dir: &Path) -> Vec<PathBuf> {
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/real-repos.tar.xz");
    let repos = dir.join("real-repos/repos");
    if !repos.is_dir() && archive.is_file() {
        let ok = Command::new("tar")
            .arg("xJf")
            .arg(&archive)
            .arg("-C")
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Vec::new();
        }
    }
    directories(&repos)
}

/// The directories in `dir`, sorted; not hidden ones (a render cache left by a run there).
fn directories(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    found
}

/// One run: wall seconds and peak resident kilobytes, as GNU time reports them.
fn run(args: &[String]) -> Option<(f64, u64)> {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%e %M"])
        .arg(binary())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    let mut last = err.lines().last()?.split_whitespace();
    Some((last.next()?.parse().ok()?, last.next()?.parse().ok()?))
}

/// The binary measured: `PEAK_BIN`, else the bench build's.
fn binary() -> PathBuf {
    std::env::var_os("PEAK_BIN").map_or(env!("CARGO_BIN_EXE_taintlint").into(), PathBuf::from)
}

fn median<T: PartialOrd + Copy>(mut v: Vec<T>) -> (T, T, T) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() {
    // `cargo bench` passes `--bench`; a filter (`cargo bench --bench peak -- lint`) keeps the
    // rows whose name holds it.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if !Path::new("/usr/bin/time").is_file() {
        eprintln!("peak: /usr/bin/time (GNU time) is not there: no row is measured");
        return;
    }
    let dir = data();
    let s = |p: &Path| p.display().to_string();
    let manifests = s(&dir.join("manifests"));
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for nodes in [5_000, 10_000] {
        rows.push((
            format!("simulate --format json: 25,000 workloads x {nodes} nodes"),
            vec![
                "simulate".into(),
                "--inventory".into(),
                s(&dir.join(format!("nodes-{nodes}.json"))),
                "--format".into(),
                "json".into(),
                manifests.clone(),
            ],
        ));
    }
    rows.push((
        "lint --format json: 25,000 workloads in 10,000 files".into(),
        vec![
            "lint".into(),
            "--format".into(),
            "json".into(),
            manifests.clone(),
        ],
    ));
    let more = std::env::var_os("PEAK_REPOS").map_or_else(Vec::new, |d| directories(Path::new(&d)));
    for repo in corpora(&dir).into_iter().chain(more) {
        let name = repo
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace('+', "/");
        rows.push((
            format!("lint --kustomize off: {name}"),
            vec![
                "lint".into(),
                "--kustomize".into(),
                "off".into(),
                "--format".into(),
                "json".into(),
                s(&repo),
            ],
        ));
    }
    rows.retain(|(name, _)| filter.as_ref().is_none_or(|f| name.contains(f.as_str())));
    let mut measured: Vec<Vec<(f64, u64)>> = vec![Vec::new(); rows.len()];
    for _ in 0..RUNS {
        for (row, (_, args)) in rows.iter().enumerate() {
            if let Some(m) = run(args) {
                measured[row].push(m);
            }
        }
    }
    for ((name, _), runs) in rows.iter().zip(measured) {
        print_row(name, runs);
    }
    if filter
        .as_ref()
        .is_none_or(|f| "server".contains(f.as_str()))
    {
        server_rows(&dir);
    }
}

/// The language server's rows, by `benches/lsp_process.py` (which prints them).
fn server_rows(dir: &Path) {
    let manifest = dir.join("lsp-manifest.yaml");
    if !manifest.is_file() {
        std::fs::write(&manifest, cluster::manifest_files(500, 1).remove(0)).unwrap();
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lsp_process.py");
    let python = |args: Vec<PathBuf>| {
        let ok = Command::new("python3")
            .arg(&script)
            .arg(binary())
            .args(args)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!(
                "language server rows: not measured (python3 {})",
                script.display()
            );
        }
    };
    python(vec![
        "cluster".into(),
        dir.join("nodes-5000.json"),
        manifest,
    ]);
    if !corpora(dir).is_empty() {
        python(vec!["workspace".into(), dir.join("real-repos/repos")]);
    }
}

/// One row's medians and ranges.
fn print_row(name: &str, runs: Vec<(f64, u64)>) {
    if runs.is_empty() {
        println!("{name}: not measured");
        return;
    }
    let n = runs.len();
    let (t, t0, t1) = median(runs.iter().map(|r| r.0).collect());
    let (m, m0, m1) = median(runs.iter().map(|r| r.1).collect());
    let mib = |kb: u64| kb as f64 / 1024.0;
    println!(
        "{name}: {t:.2} s ({t0:.2}-{t1:.2}), peak {:.1} MiB ({:.1}-{:.1}), median of {n}",
        mib(m),
        mib(m0),
        mib(m1)
    );
}
