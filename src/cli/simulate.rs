//! `taintlint simulate`.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use taintlint::analysis::{self, Unread};
use taintlint::config_file::{self, ConfigFile};
use taintlint::report::{
    self,
    simulate::{Fit, HumanOptions, SimulatedFile},
};
use taintlint::Options;

use taintlint::changes::model::Simulation;

use super::base::BaseSide;
use super::input::{collect_walked, one_stdin, Input};
use super::inventory::{load_inventory, LoadedInventory, Texts};
use super::{ordered, ClusterArgs};

#[derive(Clone, Copy, ValueEnum)]
enum SimulateFormat {
    /// A matrix of workloads by node pools, with what blocks each.
    Human,
    /// One JSON object (version 2: per workload, how it fits each pool) for machines.
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnlyFit {
    No,
    Avoided,
    May,
    Yes,
}

impl OnlyFit {
    fn fit(self) -> Fit {
        match self {
            OnlyFit::No => Fit::No,
            OnlyFit::Avoided => Fit::Avoided,
            OnlyFit::May => Fit::May,
            OnlyFit::Yes => Fit::Yes,
        }
    }
}

#[derive(Args)]
pub(crate) struct SimulateArgs {
    /// Files or directories of manifests; `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The cluster inventory (repeatable: several files make one cluster; a directory stands
    /// for the inventory files in it); `-` reads standard input (`kubectl get nodes -o json | taintlint simulate --inventory - manifests/`).
    /// Without it, the configuration file's `inventory` is used.
    #[arg(long, value_name = "FILE")]
    inventory: Vec<PathBuf>,
    /// The configuration file. Without it, `.taintlint.yaml` is looked for in the current
    /// directory and the directories above it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Output format (`--format` is another name for it).
    #[arg(
        long = "output-format",
        short = 'o',
        visible_alias = "format",
        value_name = "FORMAT",
        value_enum,
        default_value_t = SimulateFormat::Human
    )]
    format: SimulateFormat,
    /// With `--format json`: list, per workload, the names of the nodes it fits
    /// (`schedulable`) and of those among them it would rather avoid (`avoid`).
    #[arg(long)]
    nodes: bool,
    /// Say what blocks every workload; without it, only those that fit no node or only nodes to
    /// avoid are explained.
    #[arg(long)]
    why: bool,
    /// Show only the workloads that fit so: `no` (no node; also those the API server would
    /// reject), `avoided` (only nodes with an untolerated PreferNoSchedule taint), `may` (only
    /// if what the inventory does not say is so), `yes`. Repeatable or comma-separated. The
    /// summary still counts every workload.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FIT")]
    only: Vec<OnlyFit>,
    #[command(flatten)]
    render: super::overlays::RenderArgs,
    /// List on standard error every kustomization not rendered and why, kustomize's messages
    /// whole.
    #[arg(long)]
    show_skipped: bool,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Compare with the repository as committed at REV (a branch, tag or commit of the git work
    /// tree the current directory is in; read through git, nothing is checked out): the
    /// workloads whose placement the change moves are printed first, each with what moved it.
    /// The exit status is then 1 only when the change leaves a workload on no node.
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// The other side of `--base` (a child process runs the command on the base tree).
    #[arg(long, hide = true, value_name = "SPEC")]
    base_side: Option<String>,
}

/// What is simulated: an input, or an overlay's rendered output (named by its directory).
enum Item {
    Input(Input),
    Rendered(String, String),
}

/// One file done by a worker: rendered as JSON (for the output, or to compare with the base
/// revision), as rows of the matrix, or both; and whether one of its workloads fits no node (or
/// would be rejected).
struct Simulated {
    rendered: Option<report::simulate::RenderedFile>,
    rows: Option<Vec<report::simulate::Row>>,
    nowhere: bool,
}

pub(crate) fn run(mut args: SimulateArgs) -> ExitCode {
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
    let base = match args.base.as_deref().map(|rev| start_base(&args, rev)) {
        Some(Ok(b)) => Some(b),
        Some(Err(e)) => {
            eprintln!("taintlint: {e}");
            return ExitCode::from(2);
        }
        None => None,
    };
    let (config, options, inventory_paths) = match settings(&args) {
        Ok(settings) => settings,
        Err(code) => return code,
    };
    super::base::before_reading(&inventory_paths);
    let loaded = match load_inventory(&inventory_paths, Texts::Drop) {
        Ok(mut l) => {
            if let Some(label) = args.cluster.pool_label([&config]) {
                l.inventory.name_pools_by(label);
            }
            let (choice, by) = args.cluster.platform([&config]);
            l.inventory.set_platform(choice, &by);
            l
        }
        Err(code) => return code,
    };
    let inventory = &loaded.inventory;
    warn_of_invalid_taints(&loaded, &options);
    let mut problems = Vec::new();
    let configs = vec![(config, options.clone())];
    super::base::tree_written();
    let (inputs, rendered) = inputs(&args, &configs, &mut problems);
    let mut options = options;
    options.set_platform(inventory.platform.platform);
    let (cluster, _) = super::input::cluster_objects(&inputs, Some(inventory));
    options.set_cluster(std::sync::Arc::new(cluster));
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut nowhere = false;
    let places = pool_places(&loaded);
    let place = |file: usize, offset: usize| places.get(file)?.get(&offset).copied();
    let mut writer = match args.format {
        SimulateFormat::Json => Some(report::simulate::JsonWriter::new(inventory, args.nodes)),
        SimulateFormat::Human => None,
    };
    // JSON is streamed: each file's workloads are rendered on the worker that simulated them
    // and written as soon as every file before it is. The matrix needs every row before its
    // first line. With `--base`, the working tree's side is read back from its JSON, as the base
    // revision's is.
    let compared = report::simulate::JsonWriter::new(inventory, false);
    let renderer = match &writer {
        Some(w) => Some(w.renderer()),
        None => base.as_ref().map(|_| compared.renderer()),
    };
    let rows_wanted = matches!(args.format, SimulateFormat::Human);
    let mut after = match &base {
        Some(_) => match cluster_model(&compared, &place) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("taintlint: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let items: Vec<Item> = inputs
        .into_iter()
        .map(Item::Input)
        .chain(rendered.into_iter().map(|(n, t)| Item::Rendered(n, t)))
        .collect();
    let simulate_one = |item: &Item| {
        simulate_item(
            item,
            &options,
            inventory,
            renderer.as_ref(),
            rows_wanted,
            args.why,
        )
    };
    // A closed pipe (`| head`) ends the output, not the run.
    let mut write_ok = match &mut writer {
        Some(w) => w.begin(&mut stdout, &place).is_ok(),
        None => true,
    };
    let mut rows = Vec::new();
    let mut notes = Notes::default();
    ordered::run(
        &items,
        ordered::threads(),
        64,
        simulate_one,
        |result| match result {
            Ok((simulated, note)) => {
                notes.add(note);
                nowhere |= simulated.nowhere;
                if let Some(rendered) = &simulated.rendered {
                    if let Some(w) = &mut writer {
                        write_ok = write_ok && w.file(&mut stdout, rendered).is_ok();
                    }
                    if let Some(after) = &mut after {
                        if let Err(e) = after.add_workloads(rendered.json()) {
                            problems.push(e);
                        }
                    }
                }
                rows.extend(simulated.rows.into_iter().flatten());
            }
            Err(e) => problems.push(e),
        },
    );
    // With `--base`: the base revision's side, compared.
    let compared = match (base, after) {
        (Some(base), Some(after)) => match finish_base(base, &after) {
            Ok(c) => Some(c),
            Err(messages) => {
                drop(stdout);
                for m in messages {
                    eprintln!("taintlint: {m}");
                }
                return ExitCode::from(2);
            }
        },
        _ => None,
    };
    match &mut writer {
        Some(w) => {
            let members = compared
                .as_ref()
                .map(|c| report::simulate::changes_json(&c.base, &c.changes));
            let _ = write_ok
                && w.end_with(&mut stdout, &notes.unread, members.as_deref())
                    .is_ok();
        }
        None => {
            let human = HumanOptions {
                width: super::output_width(),
                why: args.why,
                only: args.only.iter().map(|o| o.fit()).collect(),
            };
            if let Some(c) = &compared {
                let text =
                    report::simulate::changes_human(&c.base, &c.changes, &c.counts, human.width);
                let _ = stdout.write_all(text.as_bytes());
            }
            let text = report::simulate::human(inventory, rows, &human);
            let _ = stdout.write_all(text.as_bytes());
        }
    }
    let _ = stdout.flush();
    drop(stdout);
    for line in notes.lines() {
        eprintln!("taintlint: {line}");
    }
    if let Some(c) = &compared {
        for m in &c.messages {
            eprintln!("taintlint: warning: {m}");
        }
    }
    for p in &problems {
        eprintln!("taintlint: {p}");
    }
    // With `--base`, only what the change strands fails the run: a workload that runs
    // nowhere now and did at the base revision, or a new one that runs nowhere.
    let failing = match &compared {
        Some(c) => c.stranded,
        None => nowhere,
    };
    if !problems.is_empty() {
        ExitCode::from(2)
    } else if failing {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Starts the base side: the paths of the command line, by what they are.
fn start_base(args: &SimulateArgs, rev: &str) -> Result<super::base::Pending, String> {
    let paths = super::base::Paths {
        manifests: args.paths.clone(),
        inventories: args.inventory.clone(),
        inputs: args
            .config
            .iter()
            .cloned()
            .chain(args.cluster.files().into_iter().map(Path::to_path_buf))
            .collect(),
    };
    super::base::start(rev, paths, "simulate")
}

/// On the base side (`--base-side`): JSON for the comparison, the command line's paths read in
/// the base tree.
fn for_base_side(args: &mut SimulateArgs, side: &BaseSide) {
    args.base = None;
    args.format = SimulateFormat::Json;
    args.nodes = false;
    args.why = false;
    args.only.clear();
    args.show_skipped = false;
    side.map_all(&mut args.paths);
    side.map_all(&mut args.inventory);
    args.config = args.config.as_deref().and_then(|c| side.map(c));
    args.cluster.map_files(side);
    args.render.mirrors = Some((side.tree.clone(), side.worktree.clone()));
}

/// The text of the file at `path`, or its first lines only.
fn read_extent(path: &Path, extent: taintlint::changes::placements::Extent) -> Option<String> {
    use std::io::BufRead;
    use taintlint::changes::placements::Extent;
    match extent {
        Extent::Whole => std::fs::read_to_string(path).ok(),
        Extent::Lines(n) => {
            let mut reader = std::io::BufReader::new(std::fs::File::open(path).ok()?);
            let mut text = String::new();
            for _ in 0..n {
                if reader.read_line(&mut text).ok()? == 0 {
                    break;
                }
            }
            Some(text)
        }
    }
}

/// The cluster of the working tree's side, read back from its JSON.
fn cluster_model(
    writer: &report::simulate::JsonWriter<'_>,
    place: report::simulate::Place<'_>,
) -> Result<Simulation, String> {
    let mut json = Vec::new();
    let mut w = report::simulate::JsonWriter::new(writer.inventory(), false);
    w.begin(&mut json, place)
        .map_err(|e| format!("--base: {e}"))?;
    json.extend_from_slice(b"]}");
    Simulation::from_json(&json)
}

/// What `--base` found: the changes, placed, and what to say.
struct Compared {
    base: report::simulate::Base,
    changes: Vec<taintlint::changes::placements::Change>,
    counts: taintlint::changes::placements::Counts,
    /// Whether the change leaves a workload on no node.
    stranded: bool,
    /// What the base side said of a problem it met (it ran on).
    messages: Vec<String>,
}

/// Waits for the base side, and compares. On a failure, the messages to say (exit 2).
fn finish_base(base: super::base::Pending, after: &Simulation) -> Result<Compared, Vec<String>> {
    use taintlint::changes::placements::{self, Side};
    let super::base::BaseRun {
        prepared,
        running,
        names,
        said,
    } = base.started().map_err(|e| vec![e])?;
    let label = prepared.commit.label();
    let (mut before, messages) = match running.map(super::base::Running::wait) {
        None => (Simulation::default(), said.into_iter().collect()),
        Some(done) => done.read(&names, &label, "simulate", Simulation::from_json)?,
    };
    for w in &mut before.workloads {
        w.file = names.back(&w.file);
    }
    for p in &mut before.cluster.pools {
        p.source.file = names.back(&p.source.file);
    }
    let (mut changes, counts) = placements::compare(&before, after);
    let mut texts = placements::Texts::default();
    let side = &prepared.side;
    for (s, file, extent) in placements::needed(&changes, &before, after) {
        let before_path = side.in_tree(&file);
        match s {
            Side::Before => {
                if let Some(t) = read_extent(&before_path, extent) {
                    texts.before.insert(file, t);
                }
            }
            Side::After => {
                use taintlint::changes::lines::{Changed, MAX_COMPARED};
                // A file too big to compare (a node list) is read only as far as needed.
                let big = std::fs::metadata(&file).is_ok_and(|m| m.len() > MAX_COMPARED as u64);
                let (text, before_text) = if big {
                    (read_extent(Path::new(&file), extent), None)
                } else {
                    (
                        std::fs::read_to_string(&file).ok(),
                        std::fs::read_to_string(&before_path).ok(),
                    )
                };
                if let Some(t) = text {
                    let changed = match before_text {
                        Some(b) => Changed::between(&b, &t),
                        None if big && before_path.is_file() => Changed::default(),
                        None => Changed::all(),
                    };
                    texts.changed.insert(file.clone(), changed);
                    texts.after.insert(file, t);
                }
            }
        }
    }
    placements::place(&mut changes, &before, after, &texts);
    let stranded = counts.added_nowhere > 0
        || changes
            .iter()
            .any(|c| c.after.runs_nowhere() && !c.before.runs_nowhere());
    Ok(Compared {
        base: report::simulate::Base {
            revision: prepared.commit.rev.clone(),
            commit: prepared.commit.oid.clone(),
            label,
        },
        changes,
        counts,
        stranded,
        messages,
    })
}

/// The manifests to simulate: the files and standard input named or walked, and the overlays
/// rendered (name, text) in place of the kustomization files they stand for.
fn inputs(
    args: &SimulateArgs,
    configs: &[(ConfigFile, Options)],
    problems: &mut Vec<String>,
) -> (Vec<Input>, Vec<(String, String)>) {
    let walked = collect_walked(&args.paths, configs, false, problems, &mut Vec::new());
    // Overlays are simulated as rendered; the files the renders read, met in a walk, are what
    // the renders stand for (a file beside a kustomization that it does not list is simulated
    // as it is).
    let rendered = super::overlays::render(
        &args.paths,
        &walked,
        &args.render,
        configs,
        taintlint::overlays::plan::Reads::Placement,
        taintlint::overlays::Progress::on_terminal(false),
        super::overlays::told(false, args.show_skipped),
        "simulating",
    );
    let (rendered, read) = super::overlays::for_simulate(&rendered);
    let mut canonical = taintlint::overlays::plan::Canonical::default();
    let inputs = walked
        .into_iter()
        .filter(|(input, walked)| match input {
            Input::File(p, _) => {
                !*walked || read.is_empty() || canonical.of(p).is_none_or(|c| !read.contains(&c))
            }
            Input::Stdin(_) => true,
        })
        .map(|(input, _)| input)
        .collect();
    (inputs, rendered)
}

/// Simulates one file on a worker: its workloads rendered as JSON (with a `renderer`) or as
/// rows of the matrix, and what to say of it on standard error.
fn simulate_item(
    item: &Item,
    options: &Options,
    inventory: &taintlint::inventory::Inventory,
    renderer: Option<&report::simulate::JsonRenderer<'_>>,
    rows: bool,
    why: bool,
) -> Result<(Simulated, Note), String> {
    let (path, text) = match item {
        Item::Input(input) => (input.name(), super::input::read(input)?),
        Item::Rendered(name, text) => (name.clone(), text.clone()),
    };
    // What the file's place says, as `lint` reads it: a chart's values file's templates say what
    // the values render into, a patch file's kustomization what it patches.
    let place = match item {
        Item::Input(Input::File(p, _)) => {
            taintlint::walk::Place::of(p, Some(taintlint::walk::Kustomizations::run()))
        }
        _ => None,
    };
    let local = place.map(|place| {
        let mut o = options.clone();
        place.apply(&mut o);
        o
    });
    // A Terraform file met in a walk (it is linted for the node pools it defines) holds no pod
    // template, and is no YAML to be said broken.
    let simulated = if taintlint::inventory::terraform::defines_pools(&text) {
        analysis::Simulated::default()
    } else {
        analysis::simulate(&text, local.as_ref().unwrap_or(options), inventory)
    };
    let analysis::Simulated {
        workloads,
        unread,
        not_simulated: skipped,
    } = simulated;
    let note = Note {
        file: path.clone(),
        unread,
        workloads: workloads.len(),
        unread_templates: unread.map_or(0, |_| {
            report::simulate::unread_pod_templates(&text, workloads.len())
        }),
        by_shape: workloads
            .iter()
            .filter(|w| w.by_shape)
            .map(|w| {
                format!(
                    "a pod template at {} of kind {} ({path})",
                    w.path,
                    w.kind.as_deref().unwrap_or("?")
                )
            })
            .collect(),
        partly: workloads
            .iter()
            .filter_map(|w| {
                Some(format!(
                    "{} at {}: {}",
                    w.title(),
                    w.path,
                    w.partly.as_ref()?
                ))
            })
            .map(|w| format!("{w} ({path})"))
            .collect(),
        skipped: skipped
            .into_iter()
            .map(|s| format!("{s} ({path})"))
            .collect(),
    };
    let file = SimulatedFile { path, workloads };
    let nowhere = file.workloads.iter().any(|w| w.runs_nowhere());
    let simulated = Simulated {
        rendered: renderer.map(|r| r.render(&file)),
        rows: rows.then(|| report::simulate::Row::of_file(inventory, &file, why)),
        nowhere,
    };
    Ok((simulated, note))
}

/// The configuration (`--config`, else `.taintlint.yaml` found from here), the options with the
/// command line's cluster settings, and the inventory files (the command line's, else the
/// configuration's); on a problem, says so and gives exit 2.
fn settings(args: &SimulateArgs) -> Result<(ConfigFile, Options, Vec<PathBuf>), ExitCode> {
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
                return Err(ExitCode::from(2));
            }
        },
    };
    let options = match args.cluster.apply(config.options.clone()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("taintlint: {e}");
            return Err(ExitCode::from(2));
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
        return Err(ExitCode::from(2));
    }
    if let Err(e) = one_stdin(&args.paths, &inventory_paths) {
        eprintln!("taintlint: {e}");
        return Err(ExitCode::from(2));
    }
    Ok((config, options, inventory_paths))
}

/// A warning for each inventory file with taints the simulation leaves out: the first one by
/// its place and what is wrong with it (the finding `lint` reports there), and how many more.
fn warn_of_invalid_taints(loaded: &LoadedInventory, options: &Options) {
    for (i, f) in loaded.inventory.files.iter().enumerate() {
        if f.invalid_taints == 0 {
            continue;
        }
        let more = match f.invalid_taints {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let first = loaded
            .sources
            .get(i)
            .and_then(|(_, t)| t.as_deref())
            .and_then(|text| {
                let found = taintlint::analyse(text, options);
                let d = found.into_iter().find(|d| {
                    d.severity == taintlint::Severity::Error
                        && d.path.as_deref().is_some_and(|p| p.contains("aints["))
                })?;
                let (line, column) = taintlint::report::line_columns(text, &[d.range.start])[0];
                // The taint's own path: up to the index after the last `taints[`.
                let path = d.path.unwrap_or_default();
                let start = path.rfind("aints[").unwrap_or(0);
                let end = path[start..]
                    .find(']')
                    .map_or(path.len(), |e| start + e + 1);
                let place = &path[..end];
                let of = match d
                    .object
                    .as_ref()
                    .map(|o| (o.kind.as_deref(), o.name.as_deref()))
                {
                    Some((Some(kind), Some(name))) => format!(" of {kind} {name}"),
                    _ => String::new(),
                };
                Some(format!(
                "taintlint: warning: {}:{line}:{column}: the taint at {place}{of} is left out of \
                 the simulation{more}: {}",
                f.name, d.message
            ))
            });
        eprintln!(
            "{}",
            first.unwrap_or_else(|| format!(
                "taintlint: warning: inventory {} has {} left out of the simulation; \
                 `taintlint lint {}` shows why",
                f.name,
                match f.invalid_taints {
                    1 => "an invalid taint".to_string(),
                    n => format!("{n} invalid taints"),
                },
                f.name
            ))
        );
    }
}

/// Where each pool is defined (line and column by byte offset, per inventory file): a few
/// places, found in one pass over each file. A node list read as it streamed in is read again
/// for them.
fn pool_places(loaded: &LoadedInventory) -> Vec<HashMap<usize, (usize, usize)>> {
    let mut wanted: Vec<Vec<usize>> = vec![Vec::new(); loaded.sources.len()];
    for pool in &loaded.inventory.pools {
        if let Some(offsets) = wanted.get_mut(pool.at.file) {
            offsets.push(pool.at.range.start);
        }
    }
    wanted
        .iter()
        .zip(&loaded.sources)
        .map(|(offsets, (path, text))| {
            let found = match text {
                Some(text) => report::line_columns(text, offsets),
                // (Gone since: no places.)
                None => std::fs::File::open(path)
                    .and_then(|f| report::line_columns_in(f, offsets))
                    .unwrap_or_default(),
            };
            offsets.iter().copied().zip(found).collect()
        })
        .collect()
}

/// What one file gave the simulation.
struct Note {
    file: String,
    unread: Option<Unread>,
    workloads: usize,
    /// When the file was not all read: about how many of its pod templates were not simulated.
    unread_templates: usize,
    /// Its workloads found by their shape, in kinds not in taintlint's table, described.
    by_shape: Vec<String>,
    /// Its workloads read in part, each with what their pods get from elsewhere.
    partly: Vec<String>,
    /// What makes pods in it but was not simulated, each with why.
    skipped: Vec<String>,
}

/// What the files gave the simulation, told after it: the files whose pod templates could not
/// be read, and why; and, when no pod template was found at all, that none was.
#[derive(Default)]
struct Notes {
    files: usize,
    workloads: usize,
    templates: Vec<String>,
    broken: Vec<String>,
    /// Files a YAML string of which (values, a manifest) does not parse.
    strings: Vec<String>,
    unread: Vec<report::simulate::UnreadFile>,
    by_shape: Vec<String>,
    partly: Vec<String>,
    skipped: Vec<String>,
}

impl Notes {
    fn add(&mut self, note: Note) {
        self.files += 1;
        self.workloads += note.workloads;
        self.by_shape.extend(note.by_shape);
        self.partly.extend(note.partly);
        self.skipped.extend(note.skipped);
        if let Some(why) = note.unread {
            self.unread.push(report::simulate::UnreadFile {
                file: note.file.clone(),
                why: match why {
                    Unread::Template => "template",
                    Unread::Syntax => "syntax",
                    Unread::String => "string-syntax",
                },
                pod_templates: note.unread_templates,
            });
        }
        match note.unread {
            Some(Unread::Template) => self.templates.push(note.file),
            Some(Unread::Syntax) => self.broken.push(note.file),
            Some(Unread::String) => self.strings.push(note.file),
            None => {}
        }
    }

    fn lines(&self) -> Vec<String> {
        /// How many files a line names before "and N more".
        const NAMED: usize = 3;
        let named = |files: &[String]| {
            let mut list: Vec<String> = files.iter().take(NAMED).cloned().collect();
            if files.len() > NAMED {
                list.push(format!("and {} more", files.len() - NAMED));
            }
            list.join(", ")
        };
        // Items that hold commas of their own, apart by semicolons.
        let listed = |items: &[String]| {
            let mut list: Vec<String> = items.iter().take(NAMED).cloned().collect();
            if items.len() > NAMED {
                list.push(format!("and {} more", items.len() - NAMED));
            }
            list.join("; ")
        };
        let mut out = Vec::new();
        if !self.templates.is_empty() {
            out.push(format!(
                "{} not all simulated, Go or Helm templates or placeholders (not YAML until \
                 rendered or filled in): {}; \
                 simulate the rendered output (`helm template CHART | taintlint simulate \
                 --inventory FILE -`), or the chart's values.yaml",
                files(self.templates.len()),
                named(&self.templates)
            ));
        }
        if !self.broken.is_empty() {
            out.push(format!(
                "{} not valid YAML, their pod templates not all simulated: {}; \
                 `taintlint lint` shows where",
                files(self.broken.len()),
                named(&self.broken)
            ));
        }
        if !self.strings.is_empty() {
            out.push(format!(
                "{} with a YAML string that does not parse (Argo CD values, a values ConfigMap, \
                 a workflow's manifest), its pod templates not simulated: {}; `taintlint lint` \
                 shows where (embedded-yaml-syntax)",
                files(self.strings.len()),
                named(&self.strings)
            ));
        }
        let unread: usize = self.unread.iter().map(|u| u.pod_templates).sum();
        if unread > 0 {
            out.push(format!(
                "about {} in the files not all read not simulated (by their `containers:` lines)",
                match unread {
                    1 => "1 pod template".to_string(),
                    n => format!("{n} pod templates"),
                }
            ));
        }
        if !self.by_shape.is_empty() {
            out.push(format!(
                "{} of {} found by {} shape, of kinds not in taintlint's table (simulated as \
                 written): {}",
                self.by_shape.len(),
                match self.workloads {
                    1 => "1 pod template".to_string(),
                    n => format!("{n} pod templates"),
                },
                if self.by_shape.len() == 1 {
                    "its"
                } else {
                    "their"
                },
                named(&self.by_shape)
            ));
        }
        if !self.partly.is_empty() {
            out.push(format!(
                "{} of {} read in part, simulated as far as written (what their pods get from \
                 elsewhere is not at hand): {}",
                self.partly.len(),
                match self.workloads {
                    1 => "1 pod template".to_string(),
                    n => format!("{n} pod templates"),
                },
                listed(&self.partly)
            ));
        }
        if !self.skipped.is_empty() {
            out.push(format!(
                "{} that would make pods not simulated: {}",
                match self.skipped.len() {
                    1 => "1 part".to_string(),
                    n => format!("{n} parts"),
                },
                self.skipped.join("; ")
            ));
        }
        if self.workloads == 0
            && self.files > self.templates.len() + self.broken.len() + self.strings.len()
        {
            out.push(format!(
                "no pod template found in {}{}: simulate reads the pod templates of core \
                 workloads (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, \
                 ...), of the custom resources docs/cli.md lists (What is linted), chart \
                 values, HelmRelease and Argo CD Application values",
                files(self.files - self.templates.len() - self.broken.len() - self.strings.len()),
                if self.templates.len() + self.broken.len() + self.strings.len() > 0 {
                    " read"
                } else {
                    ""
                }
            ));
        }
        out
    }
}

fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}
