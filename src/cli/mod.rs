//! The `taintlint` command: I/O, threads and exit codes around the pure core. One file per
//! subcommand; `input` walks the command line's paths and reads files, `inventory` loads the
//! cluster, `ordered` runs work on every core with results in input order.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use taintlint::inventory::platform::{Choice, Platform};
use taintlint::Options;

mod base;
mod git;
mod input;
mod inventory;
mod lint;
pub mod ordered;
mod overlays;
mod rules;
mod simulate;

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
    Lint(lint::LintArgs),
    /// Simulate kube-scheduler: on which nodes of a cluster inventory each workload can land,
    /// and what keeps it off the others.
    ///
    /// Exit status: 0 when every workload fits some node or may fit (what the inventory does
    /// not say decides: it is counted apart, not failed), 1 when one fits no node or the API
    /// server would reject it (or the pods it creates), 2 on a usage, inventory or I/O problem.
    /// A DaemonSet that selects no node runs nowhere by design and does not count.
    Simulate(simulate::SimulateArgs),
    /// List every rule: name, default severity, whether it needs an inventory, whether it has a
    /// fix.
    Rules {
        /// `human` (a table), `json` (an array), or `markdown` (the rule reference,
        /// docs/rules.md).
        #[arg(
            long = "output-format",
            short = 'o',
            visible_alias = "format",
            value_name = "FORMAT",
            value_enum,
            default_value_t = rules::RulesFormat::Human
        )]
        format: rules::RulesFormat,
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

/// Cluster behaviour, set the way kube-apiserver names it.
#[derive(Args)]
pub(crate) struct ClusterArgs {
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
    /// kube-apiserver's admission configuration (an AdmissionConfiguration): the
    /// PodTolerationRestriction plugin's default tolerations and whitelist.
    #[arg(long, value_name = "FILE")]
    admission_control_config_file: Option<std::path::PathBuf>,
    /// The node label that names the inventory's node pools (default: the common providers'
    /// node-group labels, eks.amazonaws.com/nodegroup, karpenter.sh/nodepool,
    /// cloud.google.com/gke-nodepool, kubernetes.azure.com/agentpool, ..., then `pool`).
    #[arg(long, value_name = "LABEL")]
    pool_label: Option<String>,
    /// The platform the cluster runs on: gke, eks, aks, openshift, kubeadm, kind, cce, or none.
    /// It brings what the platform does on its own (the admission plugins it runs, the taints
    /// and labels it gives nodes). Default: the configuration's `platform`, else inferred from
    /// the inventory (simulate's header says which, and why).
    #[arg(long, value_name = "NAME", value_parser = parse_platform)]
    platform: Option<PlatformArg>,
}

/// A `--platform` value: a platform, or none.
#[derive(Debug, Clone, Copy)]
struct PlatformArg(Option<Platform>);

fn parse_platform(s: &str) -> Result<PlatformArg, String> {
    taintlint::inventory::platform::parse(s).map(PlatformArg)
}

impl ClusterArgs {
    /// The files it names, for `--base` (read at both revisions).
    pub(crate) fn files(&self) -> Vec<&std::path::Path> {
        self.admission_control_config_file
            .iter()
            .map(|p| p.as_path())
            .collect()
    }

    /// Reads the files it names in the base tree (`--base`'s other side).
    pub(crate) fn map_files(&mut self, side: &base::BaseSide) {
        self.admission_control_config_file = self
            .admission_control_config_file
            .as_deref()
            .and_then(|p| side.map(p));
    }

    /// The pool label: the command line's, else the first configuration's that sets one.
    pub(crate) fn pool_label<'a>(
        &'a self,
        configs: impl IntoIterator<Item = &'a taintlint::config_file::ConfigFile>,
    ) -> Option<&'a str> {
        self.pool_label
            .as_deref()
            .or_else(|| configs.into_iter().find_map(|c| c.pool_label.as_deref()))
    }

    /// The platform: the command line's, else the first configuration's that gives one, else
    /// inferred; with what gave it, for the header.
    pub(crate) fn platform<'a>(
        &'a self,
        configs: impl IntoIterator<Item = &'a taintlint::config_file::ConfigFile>,
    ) -> (Choice, String) {
        if let Some(PlatformArg(p)) = self.platform {
            return (Choice::Given(p), "--platform".to_string());
        }
        configs
            .into_iter()
            .find(|c| c.platform != Choice::Infer)
            .map(|c| {
                let file = c
                    .path
                    .as_ref()
                    .map_or(".taintlint.yaml".to_string(), |p| p.display().to_string());
                (c.platform, format!("`platform` in {file}"))
            })
            .unwrap_or_default()
    }

    /// Applies the command line's cluster settings on top of `options` (the configuration's).
    pub(crate) fn apply(&self, mut options: Options) -> Result<Options, String> {
        if let Some(PlatformArg(p)) = self.platform {
            options.set_platform(p);
        }
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
        if let Some(path) = &self.admission_control_config_file {
            let name = path.display();
            let text = std::fs::read_to_string(path).map_err(|e| {
                format!(
                    "--admission-control-config-file {name}: {}",
                    input::io_message(&e)
                )
            })?;
            let dir = path
                .parent()
                .unwrap_or(std::path::Path::new("."))
                .to_path_buf();
            let read =
                |p: &str| std::fs::read_to_string(dir.join(p)).map_err(|e| input::io_message(&e));
            let config = taintlint::admission_config::parse(&text, &read)
                .map_err(|e| format!("--admission-control-config-file {name}: {e}"))?;
            options.set_toleration_restriction(config);
        }
        Ok(options)
    }
}

/// The width text for people is fitted to: `COLUMNS` when it is a number, else the terminal's,
/// else (output to a file or a pipe) 80 columns.
pub(crate) fn output_width() -> usize {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n;
    }
    if std::io::stdout().is_terminal() {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size() {
            return w as usize;
        }
    }
    80
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Lint(args) => lint::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Server { .. } => taintlint::lsp::run_stdio(),
        Command::Rules { format } => rules::list(format, output_width()),
        Command::Explain { rule } => rules::explain(&rule),
    }
}
