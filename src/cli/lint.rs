//! `taintlint lint`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use rayon::prelude::*;

use taintlint::config_file::{self, ConfigFile};
use taintlint::report::{self, FileReport, Summary};
use taintlint::{analyse_with, config, fix, rules, Options};

use super::input::{collect_inputs, one_stdin, read, same_file, write_atomically, Input};
use super::inventory::load_inventory;
use super::ClusterArgs;

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

/// What linting one input produced.
struct Linted {
    reports: Vec<FileReport>,
    /// Fixes applied (`--fix`) or that would be (`--diff`).
    fixed: usize,
    diff: String,
}

pub(crate) fn run(args: LintArgs) -> ExitCode {
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
