//! The `taintlint` command: I/O, threads and exit codes around the pure core.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;

mod cli;

use taintlint::config_file::{self, ConfigFile};
use taintlint::inventory::Inventory;
use taintlint::report::simulate::SimulatedFile;
use taintlint::report::{self, FileReport, Summary};
use taintlint::schedule::simulate_text;
use taintlint::{analyse_with, config, fix, rules, Options};

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
    /// Exit status: 0 when nothing error-level was found, 1 when something was, 2 on a usage,
    /// configuration or I/O problem (the other files are still linted and reported). With
    /// `--diff`: 0 when no fix applies, 1 when one does.
    Lint(LintArgs),
    /// Simulate kube-scheduler: on which nodes of a cluster inventory each workload can land,
    /// and what keeps it off the others.
    ///
    /// Exit status: 0 when every workload fits some node, 1 when one fits none, 2 on a usage,
    /// inventory or I/O problem.
    Simulate(SimulateArgs),
    /// List every rule: name, default severity, whether it needs an inventory, whether it has a
    /// fix.
    Rules {
        /// `human` (a table), `json` (an array), or `markdown` (the rule reference,
        /// docs/rules.md).
        #[arg(long, value_enum, default_value_t = RulesFormat::Human)]
        format: RulesFormat,
    },
    /// Run the language server on standard input and output (editors start it; see README).
    ///
    /// Exit status: 0 after the client's `shutdown` and `exit`, 1 when the client exits or
    /// closes the connection without `shutdown`.
    Server {
        /// Accepted for clients that pass it (the server always speaks over stdio).
        #[arg(long)]
        stdio: bool,
    },
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
    /// One line per finding: `file:line:col: severity[rule] message`.
    Concise,
    /// One JSON object (version 1) for machines.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands (annotations on the pull request).
    Github,
}

#[derive(Clone, Copy, ValueEnum)]
enum SimulateFormat {
    /// A matrix of workloads by node pools, with what blocks each.
    Human,
    /// One JSON object (version 2: per workload, how it fits each pool) for machines.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum RulesFormat {
    Human,
    Json,
    Markdown,
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
    /// The configuration file. Without it, `.taintlint.yaml` is looked for in each linted
    /// path's directory and the directories above it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Run only these rules (comma-separated), whatever the configuration turns on or off.
    #[arg(long, value_name = "RULE,...")]
    select: Vec<String>,
    /// Do not run these rules (comma-separated).
    #[arg(long, value_name = "RULE,...")]
    ignore: Vec<String>,
    /// Apply every safe fix, writing each changed file in place (atomically), then report what
    /// is left.
    #[arg(long, conflicts_with = "diff")]
    fix: bool,
    /// Print what `--fix` would change, as a unified diff, and write nothing.
    #[arg(long)]
    diff: bool,
    /// Skip files the configuration excludes, and Helm chart templates, even when they are
    /// named on the command line (as pre-commit names every changed file).
    #[arg(long)]
    force_exclude: bool,
    /// A cluster inventory: `kubectl get nodes -o yaml` (or -o json) output, Node documents,
    /// or a pool file; `-` reads standard input. Repeat it to combine files into one cluster;
    /// enables the rules that need an inventory. Without it, the configuration file's
    /// `inventory` is used.
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
    /// The cluster inventory (repeatable: several files make one cluster); `-` reads standard
    /// input (`kubectl get nodes -o json | taintlint simulate --inventory - manifests/`).
    /// Without it, the configuration file's `inventory` is used.
    #[arg(long, value_name = "FILE")]
    inventory: Vec<PathBuf>,
    /// The configuration file. Without it, `.taintlint.yaml` is looked for in the current
    /// directory and the directories above it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Human)]
    format: SimulateFormat,
    /// With `--format json`: list, per workload, the names of the nodes it fits
    /// (`schedulable`) and of those among them it would rather avoid (`avoid`).
    #[arg(long)]
    nodes: bool,
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
    /// Applies the command line's cluster settings on top of `options` (the configuration's).
    fn apply(&self, mut options: Options) -> Result<Options, String> {
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
        Command::Server { .. } => taintlint::lsp::run_stdio(),
        Command::Rules { format } => {
            match format {
                RulesFormat::Human => print_rules(),
                RulesFormat::Json => print!("{}", rules::json()),
                RulesFormat::Markdown => print!("{}", rules::markdown_docs()),
            }
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

/// An input to lint, and the configuration it is linted with (an index into the loaded ones).
enum Input {
    Stdin(usize),
    File(PathBuf, usize),
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::Stdin(_) => "-".to_string(),
            Input::File(p, _) => p.display().to_string(),
        }
    }

    fn config(&self) -> usize {
        match self {
            Input::Stdin(c) | Input::File(_, c) => *c,
        }
    }
}

/// What linting one input produced.
struct Linted {
    reports: Vec<FileReport>,
    /// Fixes applied (`--fix`) or that would be (`--diff`).
    fixed: usize,
    diff: String,
}

fn lint(args: LintArgs) -> ExitCode {
    let mut problems = Vec::new();
    let configs = match load_configs(&args) {
        Ok(c) => c,
        Err(errors) => {
            for e in errors {
                eprintln!("taintlint: {e}");
            }
            return ExitCode::from(2);
        }
    };
    if let Err(e) = one_stdin(&args.paths, &args.inventory) {
        eprintln!("taintlint: {e}");
        return ExitCode::from(2);
    }
    if args.fix && args.paths.iter().any(|p| p.as_os_str() == "-") {
        eprintln!(
            "taintlint: --fix cannot write back to standard input; use --diff to see the fixes"
        );
        return ExitCode::from(2);
    }
    // The inventory: the command line's, else the configuration files' (each listed once).
    let mut inventory_paths = args.inventory.clone();
    if inventory_paths.is_empty() {
        for (config, _) in &configs {
            for p in &config.inventory {
                if !inventory_paths.contains(p) {
                    inventory_paths.push(p.clone());
                }
            }
        }
    }
    let loaded = if inventory_paths.is_empty() {
        None
    } else {
        match load_inventory(&inventory_paths) {
            Ok(l) => Some(l),
            Err(code) => return code,
        }
    };
    let inventory = loaded.as_ref().map(|l| &l.inventory);
    let inputs = collect_inputs(&args.paths, &configs, args.force_exclude, &mut problems);

    let results: Vec<Result<Linted, String>> = inputs
        .into_par_iter()
        .map(|input| {
            let name = input.name();
            let (config, options) = &configs[input.config()];
            let path = match &input {
                Input::File(p, _) => Some(p.as_path()),
                Input::Stdin(_) => None,
            };
            let options = config.options_for(options, path);
            let mut text = read(&input)?;
            let mut linted = Linted {
                reports: Vec::new(),
                fixed: 0,
                diff: String::new(),
            };
            if args.fix || args.diff {
                let fixed = fix::fix_safe(&text, &options);
                linted.fixed = fixed.applied;
                if args.diff {
                    linted.diff = fix::unified_diff(&name, &text, &fixed.text);
                    return Ok(linted);
                }
                if fixed.text != text {
                    if let Some(path) = path {
                        write_atomically(path, &fixed.text)
                            .map_err(|e| format!("{name}: could not write the fixes: {e}"))?;
                    }
                    text = fixed.text;
                }
            }
            let diagnostics = analyse_with(&text, &options, inventory);
            let report = FileReport::new(name, text, diagnostics);
            linted.reports = match input {
                // `helm template ... | taintlint lint -`: report against the templates.
                Input::Stdin(_) => report::helm::split(report),
                Input::File(..) => vec![report],
            };
            Ok(linted)
        })
        .collect();
    let mut files = Vec::new();
    let mut fixed = 0;
    let mut fixed_files = 0;
    let mut diff = String::new();
    for r in results {
        match r {
            Ok(l) => {
                files.extend(l.reports);
                fixed += l.fixed;
                fixed_files += usize::from(l.fixed > 0);
                diff.push_str(&l.diff);
            }
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
            if !listed && !args.diff {
                let diagnostics = analyse_with(text, &configs[0].1, inventory);
                files.push(FileReport::new(name, text.clone(), diagnostics));
            }
        }
    }

    let out = if args.diff {
        diff.clone()
    } else {
        match args.format {
            Format::Json => report::json::render(&files),
            Format::Concise => report::concise::render(&files),
            Format::Sarif => report::sarif::render(&files),
            Format::Github => report::github::render(&files),
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
        }
    };
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();

    if args.fix && fixed > 0 {
        let noun =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        eprintln!(
            "Fixed {} in {}.",
            noun(fixed, "problem", "problems"),
            noun(fixed_files, "file", "files")
        );
    }
    for p in &problems {
        eprintln!("taintlint: {p}");
    }
    if !problems.is_empty() {
        ExitCode::from(2)
    } else if args.diff {
        ExitCode::from(u8::from(!diff.is_empty()))
    } else if Summary::of(&files).error > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// An inventory and the texts it was read from.
struct LoadedInventory {
    inventory: Inventory,
    sources: Vec<(PathBuf, String)>,
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Standard input can be read once: as the manifests or as the inventory, not both.
fn one_stdin(paths: &[PathBuf], inventory: &[PathBuf]) -> Result<(), String> {
    let stdin = |p: &&PathBuf| p.as_os_str() == "-";
    let count = paths.iter().filter(stdin).count() + inventory.iter().filter(stdin).count();
    if count > 1 {
        return Err(
            "standard input (`-`) can be read only once: give it as the manifests or as the \
             inventory, not both"
                .to_string(),
        );
    }
    Ok(())
}

/// Reads and parses the inventory files (`-` is standard input); on any problem prints every
/// one and returns exit 2.
fn load_inventory(paths: &[PathBuf]) -> Result<LoadedInventory, ExitCode> {
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

fn simulate(args: SimulateArgs) -> ExitCode {
    let config = match args
        .config
        .clone()
        .or_else(|| config_file::discover(Path::new(".")))
    {
        None => ConfigFile::default(),
        Some(path) => match config_file::load(&path) {
            Ok(c) => c,
            Err(errors) => {
                for e in errors {
                    eprintln!("taintlint: {e}");
                }
                return ExitCode::from(2);
            }
        },
    };
    let options = match args.cluster.apply(config.options.clone()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("taintlint: {e}");
            return ExitCode::from(2);
        }
    };
    let inventory_paths = if args.inventory.is_empty() {
        config.inventory.clone()
    } else {
        args.inventory.clone()
    };
    if inventory_paths.is_empty() {
        eprintln!(
            "taintlint: simulate needs a cluster inventory: --inventory FILE (for example the \
             output of `kubectl get nodes -o yaml`), or `inventory:` in .taintlint.yaml"
        );
        return ExitCode::from(2);
    }
    if let Err(e) = one_stdin(&args.paths, &inventory_paths) {
        eprintln!("taintlint: {e}");
        return ExitCode::from(2);
    }
    let loaded = match load_inventory(&inventory_paths) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let inventory = &loaded.inventory;
    for f in &inventory.files {
        if f.invalid_taints > 0 {
            eprintln!(
                "taintlint: warning: inventory {} has {} left out of the simulation; \
                 `taintlint lint {}` shows why",
                f.name,
                match f.invalid_taints {
                    1 => "an invalid taint".to_string(),
                    n => format!("{n} invalid taints"),
                },
                f.name
            );
        }
    }
    let mut problems = Vec::new();
    let configs = vec![(config, options.clone())];
    let inputs = collect_inputs(&args.paths, &configs, false, &mut problems);
    let simulate_one = |input: &Input| -> Result<SimulatedFile, String> {
        let path = input.name();
        let text = read(input)?;
        Ok(SimulatedFile {
            path,
            workloads: simulate_text(&text, &options, inventory),
        })
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut nowhere = false;
    // JSON is streamed: each file's workloads are written as soon as it is done. The matrix
    // needs every row before its first line.
    let line_indexes: Vec<_> = loaded
        .sources
        .iter()
        .map(|(_, t)| taintlint::position::LineIndex::new(t))
        .collect();
    let place = |file: usize, offset: usize| {
        let text = &loaded.sources.get(file)?.1;
        Some(report::line_column(&line_indexes[file], text, offset))
    };
    let mut writer = match args.format {
        SimulateFormat::Json => Some(report::simulate::JsonWriter::new(inventory, args.nodes)),
        SimulateFormat::Human => None,
    };
    // A closed pipe (`| head`) ends the output, not the run.
    let mut write_ok = match &mut writer {
        Some(w) => w.begin(&mut stdout, &place).is_ok(),
        None => true,
    };
    let mut files = Vec::new();
    cli::ordered::run(
        &inputs,
        cli::ordered::threads(),
        64,
        simulate_one,
        |result| match result {
            Ok(file) => {
                nowhere |= file.workloads.iter().any(|w| !w.simulation.fits_anywhere());
                match &mut writer {
                    Some(w) => write_ok = write_ok && w.file(&mut stdout, &file).is_ok(),
                    None => files.push(file),
                }
            }
            Err(e) => problems.push(e),
        },
    );
    match &mut writer {
        Some(w) => {
            let _ = write_ok && w.end(&mut stdout).is_ok();
        }
        None => {
            let _ = stdout.write_all(report::simulate::human(inventory, &files).as_bytes());
        }
    }
    let _ = stdout.flush();
    drop(stdout);
    for p in &problems {
        eprintln!("taintlint: {p}");
    }
    if !problems.is_empty() {
        ExitCode::from(2)
    } else if nowhere {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Loads the configuration of every command-line path (`--config`, or the nearest
/// `.taintlint.yaml`), each with the command line's settings applied on top. Index 0 is the
/// one for standard input (found from the current directory).
fn load_configs(args: &LintArgs) -> Result<Vec<(ConfigFile, Options)>, Vec<String>> {
    let mut select = Vec::new();
    let mut ignore = Vec::new();
    let mut errors = Vec::new();
    for (flag, specs, out) in [
        ("--select", &args.select, &mut select),
        ("--ignore", &args.ignore, &mut ignore),
    ] {
        for name in specs.iter().flat_map(|s| s.split(',')).map(str::trim) {
            if name.is_empty() {
                continue;
            }
            match rules::find(name) {
                Some(meta) => out.push(meta),
                None => errors.push(format!("{flag}: {}", config::unknown_rule(name))),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let resolve = |config: ConfigFile| -> Result<(ConfigFile, Options), Vec<String>> {
        let mut options = args
            .cluster
            .apply(config.options.clone())
            .map_err(|e| vec![e])?;
        if !select.is_empty() {
            for meta in rules::all() {
                let level = select
                    .iter()
                    .any(|s| s.name == meta.name)
                    .then(|| options.rule_level(meta).unwrap_or(meta.severity));
                options
                    .set_rule_level(meta.name, level)
                    .expect("a registered rule");
            }
        }
        for meta in &ignore {
            options
                .set_rule_level(meta.name, None)
                .expect("a registered rule");
        }
        Ok((config, options))
    };
    let load = |path: Option<PathBuf>| -> Result<ConfigFile, Vec<String>> {
        match path {
            None => Ok(ConfigFile::default()),
            Some(p) => config_file::load(&p)
                .map_err(|errors| errors.iter().map(|e| e.to_string()).collect()),
        }
    };
    if let Some(path) = &args.config {
        return Ok(vec![resolve(load(Some(path.clone()))?)?]);
    }
    let mut found: Vec<Option<PathBuf>> = vec![config_file::discover(Path::new("."))];
    for path in &args.paths {
        if path.as_os_str() != "-" {
            let f = config_file::discover(path);
            if !found.contains(&f) {
                found.push(f);
            }
        }
    }
    found.into_iter().map(|p| resolve(load(p)?)).collect()
}

/// The index of the configuration for a command-line path.
fn config_index(path: &Path, configs: &[(ConfigFile, Options)]) -> usize {
    if configs.len() == 1 {
        return 0;
    }
    let found = config_file::discover(path);
    configs
        .iter()
        .position(|(c, _)| c.path == found)
        .unwrap_or(0)
}

/// Expands the command line's paths into files, in a stable order: each argument in turn, and
/// a directory's files sorted by path. A directory walk lints the files the configuration
/// includes and does not exclude, skips dot-directories, honours .gitignore, and skips the
/// `templates/` directory of a Helm chart (Go templates are not YAML until rendered).
fn collect_inputs(
    paths: &[PathBuf],
    configs: &[(ConfigFile, Options)],
    force_exclude: bool,
    problems: &mut Vec<String>,
) -> Vec<Input> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input::Stdin(0));
            continue;
        }
        let c = config_index(path, configs);
        let config = &configs[c].0;
        match std::fs::metadata(path) {
            Err(e) => problems.push(format!("{}: {}", path.display(), io_message(&e))),
            Ok(meta) if meta.is_dir() => {
                let mut found = Vec::new();
                let root = path.clone();
                let skip_config = config.clone();
                let walker = ignore::WalkBuilder::new(path)
                    .hidden(false)
                    .git_ignore(true)
                    .require_git(false)
                    .sort_by_file_path(|a, b| a.cmp(b))
                    .filter_entry(move |e| {
                        let p = e.path();
                        if p == root {
                            return true;
                        }
                        let dir = e.file_type().is_some_and(|t| t.is_dir());
                        !(dir && (is_dot_dir(p) || is_chart_templates(p)))
                            && !skip_config.is_excluded(p)
                    })
                    .build();
                for entry in walker {
                    match entry {
                        Ok(e) if e.file_type().is_some_and(|t| t.is_file()) => {
                            if config.is_included(e.path()) || defines_node_pools(e.path()) {
                                found.push(e.into_path());
                            }
                        }
                        Ok(_) => {}
                        Err(e) => problems.push(e.to_string()),
                    }
                }
                inputs.extend(found.into_iter().map(|p| Input::File(p, c)));
            }
            Ok(_) => {
                let skip = force_exclude
                    && (config.is_excluded(path)
                        || path.ancestors().skip(1).any(is_chart_templates));
                if !skip {
                    inputs.push(Input::File(path.clone(), c));
                }
            }
        }
    }
    inputs
}

/// A Terraform file that defines node pools (it is linted like a manifest).
fn defines_node_pools(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "tf")
        && std::fs::read_to_string(path)
            .is_ok_and(|t| taintlint::inventory::terraform::defines_pools(&t))
}

/// `.git` and other dot-directories (dot-files are linted).
fn is_dot_dir(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') && n != "." && n != "..")
}

/// The `templates` directory of a Helm chart (next to its Chart.yaml).
fn is_chart_templates(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "templates")
        && path
            .parent()
            .is_some_and(|chart| chart.join("Chart.yaml").is_file())
}

/// Replaces a file's contents so that a crash leaves either the old file or the new one: the
/// new text goes to a temporary file in the same directory (with the old file's permissions),
/// which is then renamed over it. A symbolic link is followed, and its target rewritten.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let target = std::fs::canonicalize(path)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let permissions = std::fs::metadata(&target)?.permissions();
    let mut temp = tempfile::Builder::new()
        .prefix(".taintlint-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    std::fs::set_permissions(temp.path(), permissions)?;
    temp.persist(&target).map_err(|e| e.error)?;
    Ok(())
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
        Input::Stdin(_) => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("standard input: {}", io_message(&e)))?;
            buf
        }
        Input::File(p, _) => std::fs::read(p).map_err(|e| format!("{name}: {}", io_message(&e)))?,
    };
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name}: not UTF-8 text (invalid byte at offset {}); Kubernetes manifests must be UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}
