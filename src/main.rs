//! The `taintlint` command: I/O, threads and exit codes around the pure core.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use taintlint::inventory::Inventory;
use taintlint::report::simulate::SimulatedFile;
use taintlint::report::{self, FileReport, Summary};
use taintlint::schedule::simulate_text;
use taintlint::{analyse_with, rules, Options, Severity};

#[derive(Parser)]
#[command(
    name = "taintlint",
    version,
    about = "A policy linter for Kubernetes taints and tolerations",
    long_about = "A policy linter for Kubernetes taints and tolerations.\n\n\
                  Finds what the API server would reject (to the exact character, with its \
                  message) and what it would accept but almost certainly does not mean."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint manifests: files, directories (*.yaml, *.yml, *.json; .gitignore honoured) or `-`
    /// for standard input.
    ///
    /// Exit status: 0 when nothing error-level was found, 1 when something was, 2 on a usage or
    /// I/O problem (the other files are still linted and reported).
    Lint(LintArgs),
    /// Simulate where each pod template of the manifests can run on a cluster's nodes.
    ///
    /// Prints a matrix of workloads by node pools (a mark per cell and what blocks it), or the
    /// JSON document of DESIGN.md with `--format json`. Exit status: 0 when every workload fits
    /// some node, 1 when one fits none, 2 on a usage or I/O problem.
    Simulate(SimulateArgs),
    /// List every rule: name, default severity, whether it needs an inventory, whether it has a
    /// fix.
    Rules,
    /// Explain one rule: what it catches, why it matters, an example, the fix.
    Explain {
        /// The rule's name, as shown in brackets in lint output (e.g. `unknown-effect`).
        rule: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// rustc-style snippets for people.
    Human,
    /// One JSON object (version 1) for machines.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    /// Colour when standard output is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

#[derive(Args)]
struct LintArgs {
    /// Files or directories to lint; `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// When to use colour in human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// A cluster inventory: `kubectl get nodes -o yaml` (or -o json) output, Node documents,
    /// or a pool file. Repeat it to combine files into one cluster; enables the rules that
    /// need an inventory.
    #[arg(long, value_name = "FILE")]
    inventory: Vec<PathBuf>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

#[derive(Args)]
struct SimulateArgs {
    /// Files or directories of manifests; `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The cluster inventory (repeatable: several files make one cluster).
    #[arg(long, value_name = "FILE", required = true)]
    inventory: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// Cluster behaviour, set the way kube-apiserver names it.
#[derive(Args)]
struct ClusterArgs {
    /// Feature gates, as kube-apiserver takes them: `Name=true,Other=false`. Known:
    /// TaintTolerationComparisonOperators (enables the Lt and Gt operators).
    #[arg(long, value_name = "NAME=BOOL,...")]
    feature_gates: Vec<String>,
    /// Admission plugins to enable in addition to kube-apiserver's defaults (comma-separated).
    #[arg(long, value_name = "PLUGIN,...")]
    enable_admission_plugins: Vec<String>,
    /// Admission plugins to disable (comma-separated).
    #[arg(long, value_name = "PLUGIN,...")]
    disable_admission_plugins: Vec<String>,
}

impl ClusterArgs {
    fn options(&self) -> Result<Options, String> {
        let mut options = Options::default();
        for spec in &self.feature_gates {
            options
                .set_feature_gates(spec)
                .map_err(|e| format!("--feature-gates: {e}"))?;
        }
        for spec in &self.enable_admission_plugins {
            options
                .set_admission_plugins(spec, true)
                .map_err(|e| format!("--enable-admission-plugins: {e}"))?;
        }
        for spec in &self.disable_admission_plugins {
            options
                .set_admission_plugins(spec, false)
                .map_err(|e| format!("--disable-admission-plugins: {e}"))?;
        }
        Ok(options)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Lint(args) => lint(args),
        Command::Simulate(args) => simulate(args),
        Command::Rules => {
            print_rules();
            ExitCode::SUCCESS
        }
        Command::Explain { rule } => match rules::find(&rule) {
            Some(meta) => {
                println!("{} ({})\n\n{}\n", meta.name, meta.severity, meta.summary);
                print!("{}", meta.explanation);
                ExitCode::SUCCESS
            }
            None => {
                let names: Vec<&str> = rules::all().map(|m| m.name).collect();
                eprintln!(
                    "taintlint: no rule named {rule:?}; the rules are: {}",
                    names.join(", ")
                );
                ExitCode::from(2)
            }
        },
    }
}

fn print_rules() {
    let width = rules::all().map(|m| m.name.len()).max().unwrap_or(0);
    println!(
        "{:width$}  {:8}  {:9}  {:7}  SUMMARY",
        "RULE", "SEVERITY", "INVENTORY", "FIX"
    );
    for m in rules::all() {
        println!(
            "{:width$}  {:8}  {:9}  {:7}  {}",
            m.name,
            m.severity.as_str(),
            if m.needs_inventory { "needed" } else { "-" },
            if m.fixable { "yes" } else { "-" },
            m.summary
        );
    }
}

/// An input to lint.
enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::Stdin => "-".to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }
}

fn lint(args: LintArgs) -> ExitCode {
    let options = match args.cluster.options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("taintlint: {e}");
            return ExitCode::from(2);
        }
    };
    let loaded = if args.inventory.is_empty() {
        None
    } else {
        match load_inventory(&args.inventory, &options) {
            Ok(l) => Some(l),
            Err(code) => return code,
        }
    };
    let inventory = loaded.as_ref().map(|l| &l.inventory);
    let mut problems = Vec::new();
    let inputs = collect_inputs(&args.paths, &mut problems);

    let results: Vec<Result<FileReport, String>> = inputs
        .into_par_iter()
        .map(|input| {
            let name = input.name();
            let text = read(&input)?;
            // An inventory file linted as a manifest too gets the inventory's findings, which
            // cover the pool file format as well.
            if let (Some(l), Input::File(p)) = (&loaded, &input) {
                if let Some(i) = l.index_of(p) {
                    let diagnostics = l.inventory.files[i].diagnostics.clone();
                    return Ok(FileReport::new(name, text, diagnostics));
                }
            }
            let diagnostics = analyse_with(&text, &options, inventory);
            Ok(FileReport::new(name, text, diagnostics))
        })
        .collect();
    let mut files = Vec::new();
    for r in results {
        match r {
            Ok(f) => files.push(f),
            Err(e) => problems.push(e),
        }
    }
    // The inventory files are reported too: their own findings, and the place related
    // locations point to.
    if let Some(l) = &loaded {
        for (i, (path, text)) in l.sources.iter().enumerate() {
            let name = l.inventory.files[i].name.clone();
            let listed = files.iter().any(|f| f.path == name)
                || files.iter().any(|f| same_file(Path::new(&f.path), path));
            if !listed {
                let diagnostics = l.inventory.files[i].diagnostics.clone();
                files.push(FileReport::new(name, text.clone(), diagnostics));
            }
        }
    }

    let out = match args.format {
        Format::Json => report::json::render(&files),
        Format::Human => {
            let color = match args.color {
                Color::Always => true,
                Color::Never => false,
                Color::Auto => {
                    std::io::stdout().is_terminal()
                        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                }
            };
            report::human::render(&files, color)
        }
    };
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();

    for p in &problems {
        eprintln!("taintlint: {p}");
    }
    if !problems.is_empty() {
        ExitCode::from(2)
    } else if Summary::of(&files).error > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// An inventory, the texts it was read from and their canonical paths.
struct LoadedInventory {
    inventory: Inventory,
    sources: Vec<(PathBuf, String)>,
    canonical: Vec<Option<PathBuf>>,
}

impl LoadedInventory {
    fn index_of(&self, path: &Path) -> Option<usize> {
        let c = std::fs::canonicalize(path).ok()?;
        self.canonical.iter().position(|p| p.as_ref() == Some(&c))
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Reads and parses the inventory files; on any problem prints every one and returns exit 2.
fn load_inventory(paths: &[PathBuf], options: &Options) -> Result<LoadedInventory, ExitCode> {
    let mut sources = Vec::new();
    let mut failed = false;
    for p in paths {
        match read(&Input::File(p.clone())) {
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
    match Inventory::load(&pairs, options) {
        Ok(inventory) => Ok(LoadedInventory {
            inventory,
            canonical: sources
                .iter()
                .map(|(p, _)| std::fs::canonicalize(p).ok())
                .collect(),
            sources,
        }),
        Err(errors) => {
            for e in errors {
                eprintln!("taintlint: inventory {e}");
            }
            Err(ExitCode::from(2))
        }
    }
}

fn simulate(args: SimulateArgs) -> ExitCode {
    let options = match args.cluster.options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("taintlint: {e}");
            return ExitCode::from(2);
        }
    };
    let loaded = match load_inventory(&args.inventory, &options) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let inventory = &loaded.inventory;
    for f in &inventory.files {
        let errors = f
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        if errors > 0 {
            eprintln!(
                "taintlint: warning: inventory {} has {errors} invalid taint(s), left out of the \
                 simulation; `taintlint lint {}` shows them",
                f.name, f.name
            );
        }
    }
    let mut problems = Vec::new();
    let inputs = collect_inputs(&args.paths, &mut problems);
    let results: Vec<Result<SimulatedFile, String>> = inputs
        .into_par_iter()
        .map(|input| {
            let path = input.name();
            let text = read(&input)?;
            Ok(SimulatedFile {
                path,
                workloads: simulate_text(&text, &options, inventory),
            })
        })
        .collect();
    let mut files = Vec::new();
    for r in results {
        match r {
            Ok(f) => files.push(f),
            Err(e) => problems.push(e),
        }
    }
    let out = match args.format {
        Format::Json => report::simulate::json(inventory, &files),
        Format::Human => report::simulate::human(inventory, &files),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
    for p in &problems {
        eprintln!("taintlint: {p}");
    }
    let nowhere = files
        .iter()
        .flat_map(|f| &f.workloads)
        .any(|w| !w.simulation.fits_anywhere());
    if !problems.is_empty() {
        ExitCode::from(2)
    } else if nowhere {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn is_manifest(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

/// Expands the command line's paths into files, in a stable order: each argument in turn, and
/// a directory's files sorted by path.
fn collect_inputs(paths: &[PathBuf], problems: &mut Vec<String>) -> Vec<Input> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin);
            continue;
        }
        match std::fs::metadata(path) {
            Err(e) => problems.push(format!("{}: {}", path.display(), io_message(&e))),
            Ok(meta) if meta.is_dir() => {
                let mut found = Vec::new();
                let walker = ignore::WalkBuilder::new(path)
                    .hidden(false)
                    .git_ignore(true)
                    .require_git(false)
                    .sort_by_file_path(|a, b| a.cmp(b))
                    .build();
                for entry in walker {
                    match entry {
                        Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                            if is_manifest(e.path()) && !in_dot_dir(e.path(), path) {
                                found.push(e.into_path());
                            }
                        }
                        Ok(_) => {}
                        Err(e) => problems.push(e.to_string()),
                    }
                }
                inputs.extend(found.into_iter().map(Input::File));
            }
            Ok(_) => inputs.push(Input::File(path.clone())),
        }
    }
    inputs
}

/// Skips `.git` and other dot-directories below the given root (dot-files are linted).
fn in_dot_dir(path: &Path, root: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut components: Vec<_> = rel.components().collect();
    components.pop();
    components
        .iter()
        .any(|c| c.as_os_str().to_str().is_some_and(|s| s.starts_with('.')))
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

fn read(input: &Input) -> Result<String, String> {
    let name = input.name();
    let bytes = match input {
        Input::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("standard input: {}", io_message(&e)))?;
            buf
        }
        Input::File(p) => std::fs::read(p).map_err(|e| format!("{name}: {}", io_message(&e)))?,
    };
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text (invalid byte at offset {}); Kubernetes manifests must be UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}
