//! `taintlint lint`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use taintlint::analysis::{check, check_streamed, Ask, PodTemplates};
use taintlint::config_file::{self, ConfigFile};
use taintlint::diagnostic::{Diagnostic, Severity};
use taintlint::fix::{self, FixMode};
use taintlint::inventory::Inventory;
use taintlint::position::LineIndex;
use taintlint::report::{self, FileReport, Positions, Summary, Writer};
use taintlint::walk::{Kustomizations, Place};
use taintlint::{config, rules, Options};

use taintlint::changes::findings::{caused_at, Baseline};
use taintlint::changes::lines::Changed;
use taintlint::diagnostic::Related;

use super::base::BaseSide;
use super::input::{collect_walked, config_index, one_stdin, same_file, write_atomically, Input};
use super::inventory::{load_inventory, LoadedInventory, Texts};
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

/// The lowest severity that fails the run.
#[derive(Clone, Copy, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Info,
    Hint,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
            FailOn::Hint => Severity::Hint,
        }
    }
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
    /// Output format (`--format` is another name for it).
    #[arg(
        long = "output-format",
        short = 'o',
        visible_alias = "format",
        value_name = "FORMAT",
        value_enum,
        default_value_t = Format::Human
    )]
    format: Format,
    /// Print how many findings each rule made, instead of the findings (a table, or with
    /// `--output-format json` an array).
    #[arg(long, conflicts_with_all = ["fix", "diff"])]
    statistics: bool,
    /// Print the findings and nothing else: no summary line, no notes on standard error about
    /// skipped files or fixes applied (problems are still said).
    #[arg(short, long)]
    quiet: bool,
    /// Exit with status 0 even when findings would fail the run (a path that cannot be read
    /// still gives 2).
    #[arg(long)]
    exit_zero: bool,
    /// The lowest severity that fails the run (exit status 1). Default: the configuration's
    /// `fail-on`, else error.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    fail_on: Option<FailOn>,
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
    /// List on standard error every file a directory walk skipped (Go and Helm templates, YAML
    /// that is not a Kubernetes manifest), not only how many, and every kustomization not
    /// rendered and why, kustomize's messages whole.
    #[arg(long)]
    show_skipped: bool,
    /// A cluster inventory: `kubectl get nodes -o yaml` (or -o json) output, Node documents,
    /// a pool file, or node pools defined as code (Karpenter, machine sets, kubeadm, eksctl,
    /// kind, Terraform); a directory of them; `-` reads standard input. Repeat it to combine
    /// files into one cluster;
    /// enables the rules that need an inventory. Without it, the configuration file's
    /// `inventory` is used.
    #[arg(long, value_name = "FILE")]
    inventory: Vec<PathBuf>,
    #[command(flatten)]
    render: super::overlays::RenderArgs,
    /// With `helm template` output on standard input: the values files it was rendered with,
    /// in Helm's order (the chart's values.yaml, then each `-f`). A finding in a
    /// `tolerations`, `nodeSelector` or `affinity` value that one of them holds is reported
    /// there. Without it, the values.yaml of each chart the `# Source:` comments name, found
    /// from the working directory.
    #[arg(long, value_name = "FILE")]
    helm_values: Vec<PathBuf>,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Report only the findings the change from REV introduces (a branch, tag or commit of the
    /// git work tree the current directory is in; read through git, nothing is checked out): a
    /// finding REV already had in the same object and of the same rule is not reported, even if
    /// its line moved, and does not fail the run. In SARIF and GitHub output a new finding is
    /// placed on the changed line that caused it (a taint added to a pool file) when its own
    /// line is not one.
    #[arg(long, value_name = "REV", conflicts_with_all = ["fix", "diff"])]
    base: Option<String>,
    /// The other side of `--base` (a child process runs the command on the base tree).
    #[arg(long, hide = true, value_name = "SPEC")]
    base_side: Option<String>,
}

/// What linting one input produced.
struct Linted {
    reports: Vec<FileReport>,
    /// Fixes applied (`--fix`) or that would be (`--diff`).
    fixed: usize,
    diff: String,
    /// The fixes not applied because they failed their check: a line each, to say.
    dropped: Vec<String>,
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
    /// An input that rendered overlays found something in too: the index of those findings.
    Merged(Input, usize),
    /// A file that only rendered overlays found something in.
    Traced(usize),
}

pub(crate) fn run(mut args: LintArgs) -> ExitCode {
    if let Some(spec) = args.base_side.take() {
        match BaseSide::parse(&spec) {
            Ok(side) => {
                for_base_side(&mut args, &side);
                side.gate();
            }
            Err(e) => {
                eprintln!("taintlint: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let explicit = !args.paths.is_empty();
    if !explicit {
        args.paths.push(PathBuf::from("."));
    }
    // The base revision's side runs while this one reads the working tree.
    let base = match args.base.as_deref().map(|rev| start_base(&args, rev)) {
        Some(Ok(b)) => Some(b),
        Some(Err(e)) => {
            eprintln!("taintlint: {e}");
            return ExitCode::from(2);
        }
        None => None,
    };
    let configs = match check_arguments(&args) {
        Ok(configs) => configs,
        Err(code) => return code,
    };
    super::base::before_reading(&inventory_paths(&args, &configs));
    let loaded = match inventory(&args, &configs) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut configs = configs;
    if let Some(l) = &loaded {
        // The cluster's platform, as given or inferred, for every configuration's admission.
        for (_, options) in &mut configs {
            options.set_platform(l.inventory.platform.platform);
        }
    }
    let inventory = loaded.as_ref().map(|l| &l.inventory);
    let mut problems = Vec::new();
    let stdin_config = args
        .stdin_filename
        .as_deref()
        .map_or(0, |p| config_index(p, &configs));
    let mut chart_templates = Vec::new();
    super::base::tree_written();
    let inputs = collect_walked(
        &args.paths,
        &configs,
        args.force_exclude,
        &mut problems,
        &mut chart_templates,
    );
    // What the walks skipped, in path order: (file, why).
    let skipped: Vec<(String, Skipped)> = chart_templates
        .iter()
        .map(|p| (p.display().to_string(), Skipped::Template))
        .collect();
    // Overlays rendered and traced to their sources (not with fixes: they edit the sources).
    let (traced, rendered_templates) = if args.fix || args.diff {
        Default::default()
    } else {
        let rendered = super::overlays::render(
            &args.paths,
            &inputs,
            &args.render,
            &configs,
            super::overlays::lint_reads(&configs, inventory.is_some()),
            taintlint::overlays::Progress::on_terminal(args.quiet),
            super::overlays::told(args.quiet, args.show_skipped),
            "linting",
        );
        super::overlays::trace_all(&rendered, &configs, inventory)
    };
    let walked: Vec<bool> = inputs.iter().map(|(_, w)| *w).collect();
    let inputs: Vec<Input> = inputs.into_iter().map(|(i, _)| i).collect();
    let (cluster, cluster_files) = super::input::cluster_objects(&inputs, inventory);
    let cluster = std::sync::Arc::new(cluster);
    let mut configs = configs;
    for (_, options) in &mut configs {
        options.set_cluster(cluster.clone());
    }
    if inputs.is_empty() && problems.is_empty() && (explicit || !args.quiet) {
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
    let jobs = jobs(inputs, stdin_config, loaded.as_ref(), args.diff, &traced);
    let linter = Linter {
        traced: &traced,
        args: &args,
        configs: &configs,
        loaded: loaded.as_ref(),
        mode: if args.unsafe_fixes {
            FixMode::Unsafe
        } else {
            FixMode::Safe
        },
        templates: std::sync::Mutex::new(Templates {
            found: rendered_templates.found,
            by_shape: rendered_templates.by_shape,
            unread: Vec::new(),
        }),
    };

    let positions = positions(loaded.as_ref(), &cluster_files, &traced);
    let baseline = match base.map(finish_base) {
        Some(Ok(b)) => Some(b),
        Some(Err(messages)) => {
            for m in messages {
                eprintln!("taintlint: {m}");
            }
            return ExitCode::from(2);
        }
        None => None,
    };
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut writer: Box<dyn Writer> = if args.statistics {
        Box::new(report::statistics::Statistics::new(
            matches!(args.format, Format::Json),
            args.quiet,
        ))
    } else {
        writer(args.format, args.color)
    };
    if let Some(b) = &baseline {
        if !args.statistics && matches!(args.format, Format::Sarif | Format::Github) {
            writer = Box::new(Relocating::new(writer, b.prepared.side.clone()));
        }
    }
    // `--quiet` leaves out human output's closing line (the formats for machines stay whole).
    let end = !(args.quiet && !args.statistics && matches!(args.format, Format::Human));
    let mut out = Output::begin(writer, end, stdout, args.diff, &positions, walked, skipped);
    out.baseline = baseline;
    let threads = ordered::threads();
    ordered::run_in_pieces(
        &jobs,
        threads,
        64,
        |job, send| linter.in_pieces(job, send),
        |job, piece| out.take(job, piece, &mut problems),
    );
    let baseline = out.baseline.take();
    let (totals, mut skipped) = out.end(&problems);
    if let Some(b) = &baseline {
        if !args.quiet {
            eprintln!("taintlint: {}", b.summary(totals.summary.total()));
        }
        for m in &b.messages {
            eprintln!("taintlint: warning: {m}");
        }
    }

    say_after(
        &args,
        &totals,
        &mut skipped,
        loaded.is_some(),
        &linter.templates,
    );
    for p in &problems {
        eprintln!("taintlint: {p}");
    }
    exit_status(&args, &configs, &problems, &totals)
}

/// The inventory: the command line's, else the configuration files' (each listed once), its
/// pools named by the pool label the settings give; `None` without one.
fn inventory(
    args: &LintArgs,
    configs: &[(ConfigFile, taintlint::Options)],
) -> Result<Option<LoadedInventory>, ExitCode> {
    let inventory_paths = inventory_paths(args, configs);
    if inventory_paths.is_empty() {
        return Ok(None);
    }
    let mut l = load_inventory(&inventory_paths, Texts::Keep)?;
    if let Some(label) = args.cluster.pool_label(configs.iter().map(|(c, _)| c)) {
        l.inventory.name_pools_by(label);
    }
    let (choice, by) = args.cluster.platform(configs.iter().map(|(c, _)| c));
    l.inventory.set_platform(choice, &by);
    Ok(Some(l))
}

/// Where related locations may point: into the inventory files, the files that hold
/// Namespaces and RuntimeClasses, and the kustomizations of traced overlays.
fn positions<'a>(
    loaded: Option<&'a LoadedInventory>,
    cluster_files: &'a [(String, String)],
    traced: &'a super::overlays::Traced,
) -> Positions<'a> {
    Positions::new(
        loaded
            .iter()
            .flat_map(|l| {
                l.inventory
                    .files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.name.as_str(), l.text(i)))
            })
            .chain(cluster_files.iter().map(|(n, t)| (n.as_str(), t.as_str())))
            .chain(
                traced
                    .kustomizations
                    .iter()
                    .map(|(n, t)| (n.as_str(), &**t)),
            ),
    )
}

/// What is said on standard error once the findings are written: the fixes applied, the
/// files skipped, and with an inventory how many pod templates were judged against it.
fn say_after(
    args: &LintArgs,
    totals: &Totals,
    skipped: &mut [(String, Skipped)],
    inventory: bool,
    templates: &std::sync::Mutex<Templates>,
) {
    if args.fix && totals.fixed > 0 && !args.quiet {
        let noun =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        eprintln!(
            "Fixed {} in {}.",
            noun(totals.fixed, "problem", "problems"),
            noun(totals.fixed_files, "file", "files")
        );
    }
    if !args.quiet || args.show_skipped {
        report_skipped(skipped, args.show_skipped);
    }
    if inventory && !args.quiet && !args.diff {
        if let Ok(templates) = templates.lock() {
            for line in templates.lines() {
                eprintln!("taintlint: {line}");
            }
        }
    }
}

/// 2 on a problem, else 0 with `--exit-zero`, else with `--diff` 1 when a file would change,
/// else 1 when a finding is at the `--fail-on` level (the configuration's, else errors).
fn exit_status(
    args: &LintArgs,
    configs: &[(ConfigFile, taintlint::Options)],
    problems: &[String],
    totals: &Totals,
) -> ExitCode {
    let fail_on = args
        .fail_on
        .map(FailOn::severity)
        .or_else(|| configs.iter().find_map(|(c, _)| c.fail_on))
        .unwrap_or(Severity::Error);
    if !problems.is_empty() {
        ExitCode::from(2)
    } else if args.exit_zero {
        ExitCode::SUCCESS
    } else if args.diff {
        ExitCode::from(u8::from(totals.diffs))
    } else if failing(&totals.summary, fail_on) > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// How many findings are at `fail_on` or more severe.
fn failing(s: &Summary, fail_on: Severity) -> usize {
    [
        (Severity::Error, s.error),
        (Severity::Warning, s.warning),
        (Severity::Info, s.info),
        (Severity::Hint, s.hint),
    ]
    .iter()
    .filter(|(severity, _)| *severity >= fail_on)
    .map(|(_, n)| n)
    .sum()
}

/// The configuration files, and whether the arguments make sense together (one standard
/// input, no `--fix` of it); on a problem, says so and gives exit 2.
fn check_arguments(args: &LintArgs) -> Result<Vec<(ConfigFile, Options)>, ExitCode> {
    let configs = match load_configs(args) {
        Ok(c) => c,
        Err(errors) => {
            for e in errors {
                eprintln!("taintlint: {e}");
            }
            return Err(ExitCode::from(2));
        }
    };
    if let Err(e) = one_stdin(&args.paths, &args.inventory) {
        eprintln!("taintlint: {e}");
        return Err(ExitCode::from(2));
    }
    if args.statistics && matches!(args.format, Format::Sarif | Format::Github) {
        eprintln!(
            "taintlint: --statistics prints a table (human or concise output) or JSON, not \
             sarif or github"
        );
        return Err(ExitCode::from(2));
    }
    if args.fix && args.paths.iter().any(|p| p.as_os_str() == "-") {
        eprintln!(
            "taintlint: --fix cannot write back to standard input; use --diff to see the fixes"
        );
        return Err(ExitCode::from(2));
    }
    Ok(configs)
}

/// The inventory files: the command line's, else the configuration files' (each listed once).
fn inventory_paths(args: &LintArgs, configs: &[(ConfigFile, Options)]) -> Vec<PathBuf> {
    let mut paths = args.inventory.clone();
    if paths.is_empty() {
        for (config, _) in configs {
            for p in &config.inventory {
                if !paths.contains(p) {
                    paths.push(p.clone());
                }
            }
        }
    }
    paths
}

/// The files to lint, in order: the inputs, then the inventory files no input names (not with
/// `--diff`, which shows only the inputs' fixes), then the files only rendered overlays found
/// something in.
fn jobs(
    inputs: Vec<Input>,
    stdin_config: usize,
    loaded: Option<&LoadedInventory>,
    diff: bool,
    traced: &super::overlays::Traced,
) -> Vec<Job> {
    let mut merged = vec![false; traced.files.len()];
    let mut canonical = taintlint::overlays::plan::Canonical::default();
    let mut jobs: Vec<Job> = inputs
        .into_iter()
        .map(|input| match input {
            Input::Stdin(_) => Job::Input(Input::Stdin(stdin_config)),
            Input::File(path, c) => match traced.of(&path, &mut canonical) {
                Some(i) if !merged[i] => {
                    merged[i] = true;
                    Job::Merged(Input::File(path, c), i)
                }
                _ => Job::Input(Input::File(path, c)),
            },
        })
        .collect();
    let rest: Vec<Job> = (0..traced.files.len())
        .filter(|&i| !merged[i] && !traced.files[i].diagnostics.is_empty())
        .map(Job::Traced)
        .collect();
    if let (Some(l), false) = (loaded, diff) {
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
    jobs.extend(rest);
    jobs
}

/// What every job shares: the arguments, the configurations, the inventory and the fix mode.
struct Linter<'a> {
    args: &'a LintArgs,
    /// What rendered overlays found, by the file it belongs in.
    traced: &'a super::overlays::Traced,
    configs: &'a [(ConfigFile, Options)],
    loaded: Option<&'a LoadedInventory>,
    mode: FixMode,
    /// With an inventory: the pod templates judged against it, told after the findings.
    templates: std::sync::Mutex<Templates>,
}

/// What `lint --inventory` judged: the pod templates found (by their shape, of them), and the
/// files whose pod templates could not all be read, with about how many they hold.
#[derive(Default)]
struct Templates {
    found: usize,
    by_shape: usize,
    unread: Vec<(String, usize)>,
}

impl Templates {
    /// One line on standard error, or two.
    fn lines(&self) -> Vec<String> {
        let templates = |n: usize| match n {
            1 => "1 pod template".to_string(),
            n => format!("{n} pod templates"),
        };
        let mut out = vec![if self.found == 0 {
            "no pod template found to judge against the inventory".to_string()
        } else if self.by_shape > 0 {
            format!(
                "judged {} against the inventory ({} found by {} shape, of kinds not in \
                 taintlint's table)",
                templates(self.found),
                self.by_shape,
                if self.by_shape == 1 { "its" } else { "their" }
            )
        } else {
            format!("judged {} against the inventory", templates(self.found))
        }];
        if !self.unread.is_empty() {
            let about: usize = self.unread.iter().map(|(_, n)| n).sum();
            let mut names: Vec<&str> = self
                .unread
                .iter()
                .take(3)
                .map(|(f, _)| f.as_str())
                .collect();
            let more = format!("and {} more", self.unread.len().saturating_sub(3));
            if self.unread.len() > 3 {
                names.push(&more);
            }
            out.push(format!(
                "about {} not judged, in {} not all read (Go or Helm templates, YAML errors): {}",
                templates(about),
                match self.unread.len() {
                    1 => "1 file".to_string(),
                    n => format!("{n} files"),
                },
                names.join(", ")
            ));
        }
        out
    }
}

impl Linter<'_> {
    fn inventory(&self) -> Option<&Inventory> {
        self.loaded.map(|l| &l.inventory)
    }

    /// With an inventory, counts the pod templates of an input it judged (as its analysis
    /// found them).
    fn count_templates(&self, name: &str, text: &str, found: PodTemplates) {
        if self.inventory().is_none() {
            return;
        }
        let Ok(mut t) = self.templates.lock() else {
            return;
        };
        t.found += found.found;
        t.by_shape += found.by_shape;
        if found.unread.is_some() {
            let about = report::simulate::unread_pod_templates(text, found.found);
            if about > 0 {
                t.unread.push((name.to_string(), about));
            }
        }
    }

    /// A file from the command line is linted in pieces, unless fixes are applied or shown.
    fn in_pieces(&self, job: &Job, send: &mut dyn FnMut(Piece)) {
        let args = self.args;
        if let (Job::Input(input @ Input::File(path, _)), false) = (job, args.fix || args.diff) {
            let (config, options) = &self.configs[input.config()];
            let options = file_options(config, options, Some(path.as_path()));
            match super::input::read(input) {
                Err(e) => send(Piece::Whole(Err(e))),
                Ok(text) => {
                    let text: std::sync::Arc<str> = text.into();
                    send(Piece::Start(FileReport::new(
                        input.name(),
                        text.clone(),
                        Vec::new(),
                    )));
                    let found = check_streamed(
                        &text,
                        Ask::new(&options, self.inventory()),
                        BATCH,
                        &mut |findings| send(Piece::Findings(findings)),
                    );
                    self.count_templates(&input.name(), &text, found);
                }
            }
            return;
        }
        send(Piece::Whole(self.lint_one(job)));
    }

    /// One job whole: an inventory file, or an input with its fixes applied (`--fix`) or shown
    /// (`--diff`).
    fn lint_one(&self, job: &Job) -> Result<Linted, String> {
        let (args, inventory) = (self.args, self.inventory());
        let mut linted = Linted {
            reports: Vec::new(),
            fixed: 0,
            diff: String::new(),
            dropped: Vec::new(),
        };
        let (input, merged) = match job {
            Job::Input(input) => (input, None),
            Job::Merged(input, i) => (input, Some(*i)),
            Job::Traced(i) => {
                let f = &self.traced.files[*i];
                linted.reports.push(FileReport::new(
                    f.name.clone(),
                    f.text.clone(),
                    f.diagnostics.clone(),
                ));
                return Ok(linted);
            }
            Job::Inventory(i) => {
                let l = self.loaded.expect("inventory jobs come from it");
                let text = l.text(*i).to_string();
                let diagnostics = check(&text, Ask::new(&self.configs[0].1, inventory)).diagnostics;
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
        let (config, options) = &self.configs[input.config()];
        let options = file_options(config, options, path);
        let mut text = super::input::read(input)?;
        if args.fix || args.diff {
            let fixed = fix::fix_all_with(&text, self.mode, |t| {
                check(t, Ask::new(&options, inventory)).diagnostics
            });
            linted.fixed = fixed.applied;
            linted.dropped = fixed
                .dropped
                .iter()
                .map(|d| {
                    format!(
                        "taintlint: {name}:{}: not fixed: {} ({}): {}",
                        d.line, d.title, d.rule, d.why
                    )
                })
                .collect();
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
        let analysis = check(&text, Ask::new(&options, inventory));
        let mut diagnostics = analysis.diagnostics;
        match merged {
            // What the overlays found here: once, at the source, with their notes; its pod
            // templates are judged as the renders that read it (counted with them).
            Some(i) => super::overlays::with_rendered(&mut diagnostics, &self.traced.files[i]),
            None => self.count_templates(&name, &text, analysis.templates),
        }
        let report = FileReport::new(name, text, diagnostics);
        linted.reports = match input {
            // `helm template ... | taintlint lint -`: report against the templates, and the
            // values files the lists came from.
            Input::Stdin(_) => self.helm_values(report::helm::split(report))?,
            Input::File(..) => vec![report],
        };
        Ok(linted)
    }
}

impl Linter<'_> {
    /// Moves the findings of rendered Helm templates that lie in values taken from the values
    /// files into those files (reported after the templates).
    fn helm_values(&self, reports: Vec<FileReport>) -> Result<Vec<FileReport>, String> {
        let sources: Vec<String> = reports.iter().map(|r| r.path.clone()).collect();
        let files = if self.args.helm_values.is_empty() {
            chart_values(&sources)
        } else {
            self.args.helm_values.clone()
        };
        let mut values = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).map_err(|e| {
                format!(
                    "--helm-values {}: {}",
                    f.display(),
                    super::input::io_message(&e)
                )
            })?;
            values.push(report::kustomize::Source {
                name: f.display().to_string(),
                text: text.into(),
            });
        }
        let mut out = Vec::new();
        let mut moved: Vec<FileReport> = Vec::new();
        for r in reports {
            let (r, found) = report::helm::to_values(r, &values);
            out.push(r);
            for (file, d) in found {
                match moved.iter_mut().find(|m| m.path == file) {
                    Some(m) => m.diagnostics.push(d),
                    None => {
                        let text = values
                            .iter()
                            .find(|v| v.name == file)
                            .map(|v| v.text.clone())
                            .unwrap_or_else(|| std::sync::Arc::from(""));
                        moved.push(FileReport::new(file, text, vec![d]));
                    }
                }
            }
        }
        for m in &mut moved {
            m.diagnostics.sort_by_key(|d| (d.range.start, d.range.end));
            m.diagnostics
                .dedup_by(|a, b| a.rule == b.rule && a.range == b.range);
        }
        out.extend(moved);
        Ok(out)
    }
}

/// The values files of the charts that `# Source:` names (`web/templates/x.yaml`,
/// `web/charts/db/templates/y.yaml`) found from the working directory, in Helm's order: a
/// subchart's own values.yaml before its parent's, which overrides it.
fn chart_values(sources: &[String]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for source in sources {
        let Some(i) = source.find("/templates/") else {
            continue;
        };
        let chart = &source[..i];
        // The chart and each chart above it (`web/charts/db` is under `web`).
        let parts: Vec<&str> = chart.split("/charts/").collect();
        for n in (1..=parts.len()).rev() {
            let values = PathBuf::from(parts[..n].join("/charts/")).join("values.yaml");
            if values.is_file() && !out.contains(&values) {
                out.push(values);
            }
        }
    }
    // Subcharts' own values first: their parents' override them.
    out.sort_by_key(|p| std::cmp::Reverse(p.to_string_lossy().matches("/charts/").count()));
    out
}

/// The writer of a format; human output in colour as `--color` says.
fn writer(format: Format, color: Color) -> Box<dyn Writer> {
    let color = match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    match format {
        Format::Json => Box::new(report::json::Json::default()),
        Format::Concise => Box::new(report::concise::Concise),
        Format::Sarif => Box::new(report::sarif::Sarif::default()),
        Format::Github => Box::new(report::github::Github),
        Format::Human => Box::new(report::human::Human::new(color).width(super::output_width())),
    }
}

/// What the run counted, for the closing line and the exit status.
#[derive(Default)]
struct Totals {
    summary: Summary,
    files: usize,
    fixed: usize,
    fixed_files: usize,
    diffs: bool,
}

/// Standard output as the pieces arrive, in input order.
struct Output<'a, 't, W: Write> {
    writer: Box<dyn Writer>,
    /// Whether the format's end is written (not human output's summary line with `--quiet`).
    end: bool,
    stdout: W,
    diff: bool,
    positions: &'a Positions<'t>,
    /// Still writing: a closed pipe (`| head`) ends the output, not the run (the exit status
    /// still counts).
    write_ok: bool,
    /// The file being written in pieces, and its line index once it has a finding.
    current: Option<(FileReport, Option<LineIndex>)>,
    totals: Totals,
    /// By job: whether a directory walk found it (its template and not-a-manifest findings are
    /// then counted in one line, not reported).
    walked: Vec<bool>,
    /// What the walks skipped: (file, why).
    skipped: Vec<(String, Skipped)>,
    /// With `--base`: the base revision's findings, which the working tree's are told from.
    baseline: Option<BaseFindings>,
}

impl<'a, 't, W: Write> Output<'a, 't, W> {
    fn begin(
        mut writer: Box<dyn Writer>,
        end: bool,
        mut stdout: W,
        diff: bool,
        positions: &'a Positions<'t>,
        walked: Vec<bool>,
        skipped: Vec<(String, Skipped)>,
    ) -> Self {
        let write_ok = diff || writer.begin(&mut stdout).is_ok();
        Output {
            writer,
            end,
            stdout,
            diff,
            positions,
            write_ok,
            current: None,
            totals: Totals::default(),
            walked,
            skipped,
            baseline: None,
        }
    }

    /// With `--base`: keeps only the findings the change introduces.
    fn only_new(&mut self, file: &str, findings: &mut Vec<Diagnostic>) {
        if let Some(b) = &mut self.baseline {
            let new = b.baseline.new_findings(file, findings);
            let mut keep = new.iter();
            findings.retain(|_| *keep.next().expect("one per finding"));
            b.old += new.iter().filter(|n| !**n).count();
        }
    }

    fn take(&mut self, job: usize, piece: Piece, problems: &mut Vec<String>) {
        let walked = self.walked.get(job).copied().unwrap_or(false);
        match piece {
            Piece::Start(report) => {
                self.totals.files += 1;
                self.current = Some((report, None));
            }
            Piece::Findings(mut findings) => {
                let (report, _) = self
                    .current
                    .as_mut()
                    .expect("a file's findings follow its start");
                if walked {
                    set_aside(report, &mut findings, &mut self.skipped);
                }
                let path = report.path.clone();
                self.only_new(&path, &mut findings);
                if findings.is_empty() {
                    return;
                }
                let (report, index) = self
                    .current
                    .as_mut()
                    .expect("a file's findings follow its start");
                self.totals.summary.add(&findings);
                let index = index.get_or_insert_with(|| LineIndex::new(&report.text));
                for d in &findings {
                    self.write_ok = self.write_ok
                        && self
                            .writer
                            .finding(&mut self.stdout, report, index, d, self.positions)
                            .is_ok();
                }
                if self.write_ok {
                    self.write_ok = self.stdout.flush().is_ok();
                }
            }
            Piece::Whole(Ok(mut l)) => {
                self.totals.fixed += l.fixed;
                self.totals.fixed_files += usize::from(l.fixed > 0);
                self.totals.diffs |= !l.diff.is_empty();
                if self.diff {
                    self.write_ok =
                        self.write_ok && self.stdout.write_all(l.diff.as_bytes()).is_ok();
                }
                for report in &mut l.reports {
                    let mut found = std::mem::take(&mut report.diagnostics);
                    if walked {
                        set_aside(report, &mut found, &mut self.skipped);
                    }
                    self.only_new(&report.path, &mut found);
                    report.diagnostics = found;
                    self.totals.summary.add(&report.diagnostics);
                    self.totals.files += 1;
                    if !self.diff {
                        self.write_ok = self.write_ok
                            && self
                                .writer
                                .file(&mut self.stdout, report, self.positions)
                                .is_ok();
                    }
                }
                if self.write_ok {
                    // Each file's findings reach the reader when the file is done.
                    self.write_ok = self.stdout.flush().is_ok();
                }
                // After the file's output: the fixes its check refused.
                for line in &l.dropped {
                    eprintln!("{line}");
                }
            }
            Piece::Whole(Err(e)) => problems.push(e),
        }
    }

    /// Closes the output (the format's end, unless it stopped or shows a diff), and gives the
    /// totals and what the walks skipped.
    fn end(mut self, problems: &[String]) -> (Totals, Vec<(String, Skipped)>) {
        self.writer.problems(problems);
        if !self.diff && self.write_ok && self.end {
            let _ = self
                .writer
                .end(&mut self.stdout, self.totals.files, &self.totals.summary);
        }
        let _ = self.stdout.flush();
        (self.totals, self.skipped)
    }
}

/// Why a directory walk did not lint a file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Skipped {
    /// A Go or Helm template (a chart's `templates/`, or a document that is one).
    Template,
    /// A file with placeholders that a script fills in (`@NAME@`, `__NAME__`, `${NAME}`).
    Placeholder,
    /// YAML that does not parse, with no sign of Kubernetes.
    NotAManifest,
}

/// Takes the findings that say a walked file (or a document of it) was not read out of
/// `findings`, and notes the file once in `skipped`: a directory walk reports them in one line.
fn set_aside(
    report: &FileReport,
    findings: &mut Vec<Diagnostic>,
    skipped: &mut Vec<(String, Skipped)>,
) {
    let name = &report.path;
    let why = |d: &Diagnostic| match d.rule {
        _ if !rules::sets_file_aside(d.rule) => None,
        "helm-template" => {
            let found = report.text.get(d.range.clone()).unwrap_or_default();
            Some(if taintlint::class::is_placeholder(found) {
                Skipped::Placeholder
            } else {
                Skipped::Template
            })
        }
        _ => Some(Skipped::NotAManifest),
    };
    for d in findings.iter() {
        if let Some(why) = why(d) {
            if !skipped.iter().rev().any(|(n, _)| n == name) {
                skipped.push((name.to_string(), why));
            }
        }
    }
    findings.retain(|d| why(d).is_none());
}

/// One line on standard error for what the directory walks skipped, and with `--show-skipped`
/// one line per file before it.
fn report_skipped(skipped: &mut [(String, Skipped)], show: bool) {
    if skipped.is_empty() {
        return;
    }
    skipped.sort_by(|a, b| Path::new(&a.0).cmp(Path::new(&b.0)));
    if show {
        for (name, why) in skipped.iter() {
            let why = match why {
                Skipped::Template => "a Go or Helm template, not YAML until rendered",
                Skipped::Placeholder => {
                    "placeholders that a script fills in, not YAML until they are filled in"
                }
                Skipped::NotAManifest => "YAML that does not parse, with no sign of Kubernetes",
            };
            eprintln!("taintlint: skipped {name}: {why}");
        }
    }
    let count = |kind| skipped.iter().filter(|(_, w)| *w == kind).count();
    let (templates, foreign) = (count(Skipped::Template), count(Skipped::NotAManifest));
    let placeholders = count(Skipped::Placeholder);
    let mut parts = Vec::new();
    if templates > 0 {
        let s = if templates == 1 { "" } else { "s" };
        parts.push(format!("{templates} Go/Helm template file{s}"));
    }
    if placeholders > 0 {
        let s = if placeholders == 1 { "" } else { "s" };
        parts.push(format!(
            "{placeholders} file{s} with placeholders a script fills in"
        ));
    }
    if foreign > 0 {
        parts.push(if foreign == 1 {
            "1 YAML file that is not a Kubernetes manifest and does not parse".to_string()
        } else {
            format!("{foreign} YAML files that are not Kubernetes manifests and do not parse")
        });
    }
    let list = if show {
        String::new()
    } else {
        let them = if skipped.len() == 1 { "it" } else { "them" };
        format!("; `--show-skipped` lists {them}")
    };
    let parts = match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    };
    eprintln!("taintlint: skipped {parts}{list}");
}

/// A file's options: its configuration's, with its per-path settings, what its chart's templates
/// render it into (for a chart's values file), and whether it lies in a Helm chart's
/// `templates/` (its Go templates are then named Helm's).
fn file_options(config: &ConfigFile, options: &Options, path: Option<&Path>) -> Options {
    let mut options = config.options_for(options, path);
    let place = path.and_then(|p| Place::of(p, Some(Kustomizations::run())));
    place.unwrap_or_default().apply(&mut options);
    options.set_chart_template(path.is_some_and(|p| {
        p.ancestors()
            .skip(1)
            .any(taintlint::walk::is_chart_templates)
    }));
    options
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

/// What `--base` compares the working tree's findings with.
struct BaseFindings {
    baseline: Baseline,
    /// The base tree, kept while the findings are placed.
    prepared: super::base::Prepared,
    label: String,
    /// How many findings of the working tree the base revision had already.
    old: usize,
    /// What the base side said of a problem it met (it ran on).
    messages: Vec<String>,
}

impl BaseFindings {
    /// The line said after the findings: how many are new, how many were there before.
    fn summary(&self, new: usize) -> String {
        let findings = |n: usize| match n {
            1 => "1 finding".to_string(),
            n => format!("{n} findings"),
        };
        format!(
            "compared with {}: {} the change introduces; {} already there, not reported",
            self.label,
            findings(new),
            findings(self.old)
        )
    }
}

/// Starts the base side: the paths of the command line, by what they are.
fn start_base(args: &LintArgs, rev: &str) -> Result<super::base::Pending, String> {
    let paths = super::base::Paths {
        manifests: args.paths.clone(),
        inventories: args.inventory.clone(),
        inputs: args
            .config
            .iter()
            .chain(&args.helm_values)
            .cloned()
            .chain(args.cluster.files().into_iter().map(Path::to_path_buf))
            .collect(),
    };
    super::base::start(rev, paths, "lint")
}

/// Waits for the base side, and reads its findings. On a failure, the messages to say (exit 2).
fn finish_base(base: super::base::Pending) -> Result<BaseFindings, Vec<String>> {
    let super::base::BaseRun {
        prepared,
        running,
        names,
        ..
    } = base.started().map_err(|e| vec![e])?;
    let label = prepared.commit.label();
    let exists = |name: &str| Path::new(name).exists();
    let (baseline, messages) = match running.map(super::base::Running::wait) {
        None => (Baseline::default(), Vec::new()),
        Some(done) => done.read(&names, &label, "lint", |json| {
            Baseline::from_json(json, |n| names.back(n), exists)
        })?,
    };
    Ok(BaseFindings {
        baseline,
        prepared,
        label,
        old: 0,
        messages,
    })
}

/// On the base side (`--base-side`): JSON for the comparison, the command line's paths read in
/// the base tree, nothing said but problems.
fn for_base_side(args: &mut LintArgs, side: &BaseSide) {
    args.base = None;
    args.format = Format::Json;
    args.statistics = false;
    args.quiet = true;
    args.exit_zero = false;
    args.color = Color::Never;
    args.fix = false;
    args.diff = false;
    args.show_skipped = false;
    args.stdin_filename = None;
    // (The parent asks only when the base revision has one of the paths at least.)
    side.map_all(&mut args.paths);
    side.map_all(&mut args.inventory);
    side.map_all(&mut args.helm_values);
    args.config = args.config.as_deref().and_then(|c| side.map(c));
    args.cluster.map_files(side);
    args.render.mirrors = Some((side.tree.clone(), side.worktree.clone()));
}

/// `--base` in SARIF and GitHub output: a new finding whose own line the change did not touch
/// is placed on a line among its related locations that it did (the taint added to a pool file
/// that strands a workload), with the finding's own place as a related location. Code scanning
/// annotates a pull request's changed lines.
struct Relocating {
    inner: Box<dyn Writer>,
    side: BaseSide,
    /// The lines each file's change touched, by name.
    changed: std::collections::HashMap<String, Option<Changed>>,
}

impl Relocating {
    fn new(inner: Box<dyn Writer>, side: BaseSide) -> Self {
        Relocating {
            inner,
            side,
            changed: std::collections::HashMap::new(),
        }
    }

    /// The lines the change touched in the file `name`, whose text in the working tree is
    /// `text`: every line of a file the base revision does not have.
    fn changed(&mut self, name: &str, text: Option<&str>) -> Option<Changed> {
        if let Some(c) = self.changed.get(name) {
            return c.clone();
        }
        let c = text.map(
            |text| match std::fs::read_to_string(self.side.in_tree(name)) {
                Ok(before) => Changed::between(&before, text),
                Err(_) => Changed::all(),
            },
        );
        self.changed.insert(name.to_string(), c.clone());
        c
    }
}

impl Writer for Relocating {
    fn begin(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        self.inner.begin(out)
    }

    fn finding(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        index: &LineIndex,
        d: &Diagnostic,
        positions: &Positions<'_>,
    ) -> std::io::Result<()> {
        let lines = |range: &std::ops::Range<usize>| {
            index.line_of(range.start) + 1..index.line_of(range.end) + 2
        };
        let own = lines(&d.range);
        // The texts and changed lines of every file the finding names, known first.
        let mut changed: std::collections::HashMap<Option<String>, Option<Changed>> =
            std::collections::HashMap::new();
        changed.insert(None, self.changed(&file.path, Some(&file.text)));
        for r in &d.related {
            if let Some(name) = r.file.as_deref().filter(|n| *n != file.path) {
                let c = self.changed(name, positions.text(name));
                changed.insert(Some(name.to_string()), c);
            }
        }
        let changed_in = |f: Option<&str>| -> Option<Changed> {
            let key = f.filter(|n| *n != file.path).map(str::to_string);
            changed.get(&key).cloned().flatten()
        };
        let line_of = |r: &Related| -> Option<std::ops::Range<usize>> {
            match r.file.as_deref() {
                None => Some(lines(&r.range)),
                Some(name) if name == file.path => Some(lines(&r.range)),
                Some(name) => positions
                    .span(name, &r.range)
                    .map(|((start, _), (end, _))| start..end + 1),
            }
        };
        let Some(i) = caused_at(d, own, &changed_in, &line_of) else {
            return self.inner.finding(out, file, index, d, positions);
        };
        let at = d.related[i].clone();
        let mut moved = d.clone();
        moved.range = at.range.clone();
        moved.fixes.clear();
        // Said where the finding's object is: a review shows the annotation alone.
        let (line, _) = file.span(index, &d.range).0;
        moved.message = format!("{} ({}:{line})", d.message, file.path);
        let here = |r: &Related| Related {
            file: Some(r.file.clone().unwrap_or_else(|| file.path.clone())),
            range: r.range.clone(),
            message: r.message.clone(),
        };
        moved.related = std::iter::once(Related {
            file: Some(file.path.clone()),
            range: d.range.clone(),
            message: "the finding's own place".to_string(),
        })
        .chain(
            d.related
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, r)| here(r)),
        )
        .collect();
        match at.file.as_deref().filter(|n| *n != file.path) {
            None => {
                moved.related[0].file = None;
                self.inner.finding(out, file, index, &moved, positions)
            }
            Some(name) => {
                let Some(text) = positions.text(name) else {
                    return self.inner.finding(out, file, index, d, positions);
                };
                let target = FileReport::new(name.to_string(), text, Vec::new());
                let target_index = LineIndex::new(text);
                // Related places in the finding's own file are placed through it.
                let with_own = Positions::new(
                    std::iter::once((file.path.as_str(), &*file.text)).chain(positions.files()),
                );
                self.inner
                    .finding(out, &target, &target_index, &moved, &with_own)
            }
        }
    }

    fn problems(&mut self, problems: &[String]) {
        self.inner.problems(problems);
    }

    fn end(&mut self, out: &mut dyn Write, files: usize, summary: &Summary) -> std::io::Result<()> {
        self.inner.end(out, files, summary)
    }
}
