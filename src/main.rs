//! The `taintlint` command: I/O, threads and exit codes around the pure core.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

use taintlint::report::{self, FileReport, Summary};
use taintlint::{analyse, rules, Options};

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
    /// List every rule: name, default severity, whether it needs an inventory, whether it has a
    /// fix.
    Rules,
    /// Run the language server on standard input and output (editors start it; see README).
    ///
    /// Exit status: 0 after the client's `shutdown` and `exit`, 1 when the client exits or
    /// closes the connection without `shutdown`.
    Server,
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
        Command::Server => taintlint::lsp::run_stdio(),
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
    let mut problems = Vec::new();
    let inputs = collect_inputs(&args.paths, &mut problems);

    let results: Vec<Result<FileReport, String>> = inputs
        .into_par_iter()
        .map(|input| {
            let name = input.name();
            let text = read(&input)?;
            let diagnostics = analyse(&text, &options);
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
