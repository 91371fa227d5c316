//! `taintlint lint`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use taintlint::analysis::analyse_streamed;
use taintlint::config_file::{self, ConfigFile};
use taintlint::diagnostic::Diagnostic;
use taintlint::fix::{self, FixMode};
use taintlint::position::LineIndex;
use taintlint::report::{self, FileReport, Positions, Summary, Writer};
use taintlint::{analyse_with, config, rules, Options};

use super::input::{
    collect_inputs, config_index, one_stdin, read, same_file, write_atomically, Input,
};
use super::inventory::{load_inventory, Texts};
use super::{ordered, ClusterArgs};

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
enum Color {
    /// Colour when standard output is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

#[derive(Args)]
pub(crate) struct LintArgs {
    /// Files or directories to lint (the current directory when none is given); `-` reads
    /// standard input.
    #[arg(value_name = "PATH")]
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
    /// With `--fix` or `--diff`: apply the fixes that need review too (they change what a
    /// toleration matches: read the diff).
    #[arg(long)]
    unsafe_fixes: bool,
    /// Print what `--fix` would change, as a unified diff, and write nothing.
    #[arg(long)]
    diff: bool,
    /// The file name standard input stands for: shown in the findings, and used to find its
    /// configuration and per-file settings.
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    /// Skip files the configuration excludes, and Helm chart templates, even when they are
    /// named on the command line (as pre-commit names every changed file).
    #[arg(long)]
    force_exclude: bool,
    /// A cluster inventory: `kubectl get nodes -o yaml` (or -o json) output, Node documents,
    /// a pool file, or node pools defined as code (Karpenter, machine sets, kubeadm, eksctl,
    /// kind, Terraform); a directory of them; `-` reads standard input. Repeat it to combine
    /// files into one cluster;
    /// enables the rules that need an inventory. Without it, the configuration file's
    /// `inventory` is used.
    #[arg(long, value_name = "FILE")]
    inventory: Vec<PathBuf>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// What linting one input produced.
struct Linted {
    reports: Vec<FileReport>,
    /// Fixes applied (`--fix`) or that would be (`--diff`).
    fixed: usize,
    diff: String,
}

/// What a worker hands the writer: a whole result, or a file in pieces (its start, then its
/// findings in batches, in order) so that a file with 250,000 findings never holds them all.
enum Piece {
    Whole(Result<Linted, String>),
    Start(FileReport),
    Findings(Vec<Diagnostic>),
}

/// How many findings a piece carries at least (but the last of a file).
const BATCH: usize = 1024;

/// One file to lint: an input from the command line, or an inventory file (reported too: its
/// own findings, and the place related locations point to).
enum Job {
    Input(Input),
    Inventory(usize),
}

pub(crate) fn run(mut args: LintArgs) -> ExitCode {
    let explicit = !args.paths.is_empty();
    if !explicit {
        args.paths.push(PathBuf::from("."));
    }
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
        match load_inventory(&inventory_paths, Texts::Keep) {
            Ok(l) => Some(l),
            Err(code) => return code,
        }
    };
    let inventory = loaded.as_ref().map(|l| &l.inventory);
    let mut problems = Vec::new();
    let stdin_config = args
        .stdin_filename
        .as_deref()
        .map_or(0, |p| config_index(p, &configs));
    let inputs = collect_inputs(&args.paths, &configs, args.force_exclude, &mut problems);
    let (cluster, cluster_files) = super::input::cluster_objects(&inputs, inventory);
    let cluster = std::sync::Arc::new(cluster);
    let mut configs = configs;
    for (_, options) in &mut configs {
        options.set_cluster(cluster.clone());
    }
    if inputs.is_empty() && problems.is_empty() {
        let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "taintlint: no file to lint in {} (files named *.yaml, *.yml or *.json, unless the \
             configuration says otherwise)",
            paths.join(", ")
        );
        if explicit {
            return ExitCode::from(2);
        }
    }
    let mut jobs: Vec<Job> = inputs
        .into_iter()
        .map(|input| match input {
            Input::Stdin(_) => Job::Input(Input::Stdin(stdin_config)),
            other => Job::Input(other),
        })
        .collect();
    if let (Some(l), false) = (&loaded, args.diff) {
        for (i, (path, _)) in l.sources.iter().enumerate() {
            let listed = jobs.iter().any(|j| match j {
                Job::Input(Input::File(p, _)) => p == path || same_file(p, path),
                _ => false,
            });
            if !listed {
                jobs.push(Job::Inventory(i));
            }
        }
    }
    let mode = if args.unsafe_fixes {
        FixMode::Unsafe
    } else {
        FixMode::Safe
    };

    let lint_one = |job: &Job| -> Result<Linted, String> {
        let mut linted = Linted {
            reports: Vec::new(),
            fixed: 0,
            diff: String::new(),
        };
        let input = match job {
            Job::Input(input) => input,
            Job::Inventory(i) => {
                let l = loaded.as_ref().expect("inventory jobs come from it");
                let text = l.text(*i).to_string();
                let diagnostics = analyse_with(&text, &configs[0].1, inventory);
                let name = l.inventory.files[*i].name.clone();
                linted
                    .reports
                    .push(FileReport::new(name, text, diagnostics));
                return Ok(linted);
            }
        };
        let (name, path) = match input {
            Input::File(p, _) => (input.name(), Some(p.as_path())),
            Input::Stdin(_) => match &args.stdin_filename {
                Some(p) => (p.display().to_string(), Some(p.as_path())),
                None => (input.name(), None),
            },
        };
        let (config, options) = &configs[input.config()];
        let mut options = config.options_for(options, path);
        options.set_chart_kinds(path.and_then(super::input::chart_kinds));
        let mut text = read(input)?;
        if args.fix || args.diff {
            let fixed = fix::fix_all_with(&text, mode, |t| analyse_with(t, &options, inventory));
            linted.fixed = fixed.applied;
            if args.diff {
                linted.diff = fix::unified_diff(&name, &text, &fixed.text);
                return Ok(linted);
            }
            if fixed.text != text {
                if let Input::File(path, _) = input {
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
    };

    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let mut writer: Box<dyn Writer> = match args.format {
        Format::Json => Box::new(report::json::Json::default()),
        Format::Concise => Box::new(report::concise::Concise),
        Format::Sarif => Box::new(report::sarif::Sarif::default()),
        Format::Github => Box::new(report::github::Github),
        Format::Human => Box::new(report::human::Human::new(color)),
    };
    // Related locations point into the inventory files and the files that hold Namespaces and
    // RuntimeClasses.
    let positions = Positions::new(
        loaded
            .iter()
            .flat_map(|l| {
                l.inventory
                    .files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.name.as_str(), l.text(i)))
            })
            .chain(cluster_files.iter().map(|(n, t)| (n.as_str(), t.as_str()))),
    );
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    // A closed pipe (`| head`) ends the output, not the run: the exit status still counts.
    let mut write_ok = args.diff || writer.begin(&mut stdout).is_ok();
    let mut summary = Summary::default();
    let mut files = 0;
    let mut fixed = 0;
    let mut fixed_files = 0;
    let mut diffs = false;
    let threads = ordered::threads();
    // A file from the command line is linted in pieces, unless fixes are applied or shown.
    let in_pieces = |job: &Job, send: &mut dyn FnMut(Piece)| {
        if let (Job::Input(input @ Input::File(path, _)), false) = (job, args.fix || args.diff) {
            let (config, options) = &configs[input.config()];
            let mut options = config.options_for(options, Some(path.as_path()));
            options.set_chart_kinds(super::input::chart_kinds(path));
            match read(input) {
                Err(e) => send(Piece::Whole(Err(e))),
                Ok(text) => {
                    let text: std::sync::Arc<str> = text.into();
                    send(Piece::Start(FileReport::new(
                        input.name(),
                        text.clone(),
                        Vec::new(),
                    )));
                    analyse_streamed(&text, &options, inventory, BATCH, &mut |findings| {
                        send(Piece::Findings(findings))
                    });
                }
            }
            return;
        }
        send(Piece::Whole(lint_one(job)));
    };
    // The file being written in pieces, and its line index once it has a finding.
    let mut current: Option<(FileReport, Option<LineIndex>)> = None;
    ordered::run_in_pieces(
        &jobs,
        threads,
        4 * threads,
        in_pieces,
        |_, piece| match piece {
            Piece::Start(report) => {
                files += 1;
                current = Some((report, None));
            }
            Piece::Findings(findings) => {
                let (report, index) = current
                    .as_mut()
                    .expect("a file's findings follow its start");
                summary.add(&findings);
                let index = index.get_or_insert_with(|| LineIndex::new(&report.text));
                for d in &findings {
                    write_ok = write_ok
                        && writer
                            .finding(&mut stdout, report, index, d, &positions)
                            .is_ok();
                }
                if write_ok {
                    write_ok = stdout.flush().is_ok();
                }
            }
            Piece::Whole(result) => match result {
                Ok(l) => {
                    fixed += l.fixed;
                    fixed_files += usize::from(l.fixed > 0);
                    diffs |= !l.diff.is_empty();
                    if args.diff {
                        write_ok = write_ok && stdout.write_all(l.diff.as_bytes()).is_ok();
                    }
                    for report in &l.reports {
                        summary.add(&report.diagnostics);
                        files += 1;
                        if !args.diff {
                            write_ok =
                                write_ok && writer.file(&mut stdout, report, &positions).is_ok();
                        }
                    }
                    if write_ok {
                        // Each file's findings reach the reader when the file is done.
                        write_ok = stdout.flush().is_ok();
                    }
                }
                Err(e) => problems.push(e),
            },
        },
    );
    if !args.diff && write_ok {
        let _ = writer.end(&mut stdout, files, &summary);
    }
    let _ = stdout.flush();
    drop(stdout);

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
        ExitCode::from(u8::from(diffs))
    } else if summary.error > 0 {
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
    for path in args.paths.iter().chain(&args.stdin_filename) {
        if path.as_os_str() != "-" {
            let f = config_file::discover(path);
            if !found.contains(&f) {
                found.push(f);
            }
        }
    }
    found.into_iter().map(|p| resolve(load(p)?)).collect()
}
