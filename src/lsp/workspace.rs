//! Settings turned into the analysis' inputs, and the one call into the analysis core; the
//! workspace's kustomize overlays as last rendered, and their findings traced to the files to
//! edit for these inputs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::{Ask, FileAnalysis, Judged};
use crate::config::Options;
use crate::config_file;
use crate::diagnostic::{Diagnostic, Severity};
use crate::inventory::Inventory;
use crate::lsp::diagnostics::Links;
use crate::lsp::inventory::InventoryFiles;
use crate::lsp::settings::Settings;
use crate::overlays::plan::Reads;
use crate::overlays::traced::{Traced, TracedFile};
use crate::overlays::Rendered;
use crate::rules;
use crate::syntax::Stream;
use crate::walk::Place;

/// Everything an analysis depends on besides the document's text. Immutable: a configuration
/// change or an inventory reload makes a new one with the next `generation`.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    pub settings: Settings,
    pub root: Option<PathBuf>,
    pub options: Options,
    /// Per-rule overrides: `None` turns the rule off.
    severities: Vec<(&'static str, Option<Severity>)>,
    pub inventory: InventoryFiles,
    /// The inventory files as one cluster, when they all read and parse: what the inventory
    /// rules simulate against.
    pub cluster: Option<Arc<Inventory>>,
    /// The project's `.taintlint.yaml` (found from the workspace root), if any.
    pub config: Option<PathBuf>,
    /// The cluster objects (Namespaces, RuntimeClasses, ...) of the workspace's files, as
    /// `lint` reads them from its inputs: with the inventory's, the options' cluster.
    pub objects: Arc<crate::k8s::cluster::Cluster>,
    /// Its `pool-label`: the node label that names the inventory's pools.
    pub pool_label: Option<String>,
    /// Its `platform`, with where it is written; else inferred from the inventory.
    pub platform: (crate::inventory::platform::Choice, String),
    /// Changes whenever an analysis could come out differently.
    pub generation: u64,
    /// The generation at which everything but the inventory last changed: a file whose
    /// findings do not depend on the inventory ([`crate::analysis::reads_inventory`]) keeps
    /// them while this stays.
    pub settings_generation: u64,
    /// Each rule's link into the rule reference the settings name.
    pub links: Links,
    /// How overlays are rendered: the `kustomize` setting's tool, else the configuration's, and
    /// the configuration's remote bases and load restrictor, as `lint` takes them.
    pub kustomize: crate::overlays::Settings,
    /// Where renders are kept between runs, as `lint` keeps them: `TAINTLINT_CACHE_DIR`, else
    /// `.taintlint_cache` beside the configuration file, else in the workspace root.
    pub cache_dir: Option<PathBuf>,
    /// The workspace's overlays as last rendered (`crate::lsp::rendering`).
    pub rendered: Arc<Rendered>,
    /// Their findings, judged with this workspace's options and inventory, by the file to edit.
    pub traced: Arc<Traced>,
    /// The overlays' kustomization files, by the name their notes give them: (path, text).
    kustomizations: Arc<HashMap<String, (PathBuf, Arc<str>)>>,
}

impl Workspace {
    /// The analysis inputs for `settings`, and what was wrong with them (each bad entry is
    /// left out, the rest applies).
    /// The project's configuration file (found from the workspace root, as the CLI finds it
    /// from a linted path) comes first; the editor's settings apply on top of it.
    pub fn new(settings: Settings, root: Option<&Path>, generation: u64) -> (Self, Vec<String>) {
        let mut problems = Vec::new();
        let config_path = root.and_then(config_file::discover);
        let config = match &config_path {
            None => config_file::ConfigFile::default(),
            Some(path) => config_file::load(path).unwrap_or_else(|errors| {
                problems.extend(errors.iter().map(|e| e.to_string()));
                config_file::ConfigFile::default()
            }),
        };
        let mut options = config.options.clone();
        for gate in &settings.feature_gates {
            if let Err(e) = options.set_feature_gates(gate) {
                problems.push(format!("featureGates: {e}"));
            }
        }
        for (list, enable) in [
            (&settings.enable_admission_plugins, true),
            (&settings.disable_admission_plugins, false),
        ] {
            for plugin in list {
                if let Err(e) = options.set_admission_plugins(plugin, enable) {
                    let key = if enable {
                        "enableAdmissionPlugins"
                    } else {
                        "disableAdmissionPlugins"
                    };
                    problems.push(format!("{key}: {e}"));
                }
            }
        }
        match &settings.admission {
            None => {}
            Some(crate::lsp::settings::Admission::Inline(r)) => {
                options.set_toleration_restriction(r.clone())
            }
            Some(crate::lsp::settings::Admission::File(f)) => {
                let path = match root {
                    Some(root) => root.join(f),
                    None => PathBuf::from(f),
                };
                let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                let read =
                    |p: &str| std::fs::read_to_string(dir.join(p)).map_err(|e| e.to_string());
                match std::fs::read_to_string(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|text| crate::admission_config::parse(&text, &read))
                {
                    Ok(r) => options.set_toleration_restriction(r),
                    Err(e) => {
                        problems.push(format!("admission.admissionControlConfigFile {f}: {e}"))
                    }
                }
            }
        }
        let mut severities = Vec::new();
        for (name, level) in &settings.rules {
            let Some(meta) = rules::find(name) else {
                let names: Vec<&str> = rules::all().map(|m| m.name).collect();
                problems.push(format!(
                    "rules: no rule named {name:?}; the rules are: {}",
                    names.join(", ")
                ));
                continue;
            };
            let severity = match level.as_str() {
                "error" => Some(Severity::Error),
                "warning" => Some(Severity::Warning),
                "info" => Some(Severity::Info),
                "hint" => Some(Severity::Hint),
                "off" => None,
                other => {
                    problems.push(format!(
                        "rules.{name}: {other:?} is not one of error, warning, info, hint, off"
                    ));
                    continue;
                }
            };
            severities.push((meta.name, severity));
        }
        // The inventory: the settings' files, else the configuration file's.
        let paths: Vec<String> = if settings.inventory.is_empty() {
            config
                .inventory
                .iter()
                .map(|p| p.display().to_string())
                .collect()
        } else {
            settings.inventory.clone()
        };
        let mut inventory = InventoryFiles::read(&paths, root);
        problems.extend(inventory.problems());
        let platform = (
            config.platform,
            config_path
                .as_ref()
                .map_or(String::new(), |p| format!("`platform` in {}", p.display())),
        );
        let cluster = load_cluster(
            &mut inventory,
            config.pool_label.as_deref(),
            &platform,
            &mut problems,
        );
        if let Some(c) = &cluster {
            options.set_platform(c.platform.platform);
        }
        let inventory = inventory.without_texts();
        let mut kustomize = crate::overlays::Settings::of(None, [&config]);
        if let Some(tool) = settings.kustomize {
            kustomize.tool = tool;
        }
        let cache_dir = std::env::var_os("TAINTLINT_CACHE_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                config_path
                    .as_deref()
                    .and_then(Path::parent)
                    .or(root)
                    .map(|d| d.join(crate::overlays::cache::DIR_NAME))
            });
        let mut workspace = Workspace {
            objects: Arc::default(),
            kustomize,
            cache_dir,
            rendered: Arc::default(),
            traced: Arc::default(),
            kustomizations: Arc::default(),
            pool_label: config.pool_label.clone(),
            platform,
            links: Links::new(settings.docs_url()),
            settings,
            root: root.map(Path::to_path_buf),
            options,
            severities,
            inventory,
            cluster,
            config: config_path,
            generation,
            settings_generation: generation,
        };
        workspace.set_cluster();
        (workspace, problems)
    }

    /// The same workspace with these cluster objects of its files (a new generation: every
    /// analysis may come out differently).
    pub fn with_objects(
        &self,
        objects: Arc<crate::k8s::cluster::Cluster>,
        generation: u64,
    ) -> Self {
        let mut workspace = Workspace {
            objects,
            generation,
            settings_generation: generation,
            ..self.clone()
        };
        workspace.set_cluster();
        workspace.trace();
        workspace
    }

    /// The options' cluster: the inventory's objects, then the workspace files', as `lint`
    /// takes them (the first of a name stands).
    fn set_cluster(&mut self) {
        let mut cluster = self
            .cluster
            .as_ref()
            .map(|i| i.cluster.clone())
            .unwrap_or_default();
        cluster.merge((*self.objects).clone());
        self.options.set_cluster(Arc::new(cluster));
    }

    /// The same settings with the inventory files read again; those in `open` as the editor
    /// holds them.
    pub fn with_inventory_reread(
        &self,
        generation: u64,
        open: &std::collections::HashMap<PathBuf, Arc<String>>,
    ) -> (Self, Vec<String>) {
        let mut inventory = self.inventory.reread_with(open);
        let mut problems = inventory.problems();
        let cluster = load_cluster(
            &mut inventory,
            self.pool_label.as_deref(),
            &self.platform,
            &mut problems,
        );
        let inventory = inventory.without_texts();
        let mut options = self.options.clone();
        if let Some(c) = &cluster {
            options.set_platform(c.platform.platform);
        }
        let mut workspace = Workspace {
            inventory,
            cluster,
            generation,
            options,
            ..self.clone()
        };
        workspace.set_cluster();
        // The rendered findings are judged against the new inventory.
        workspace.trace();
        (workspace, problems)
    }

    /// The inventory with its files read again, those in `open` as the editor holds them (an
    /// open file left out of `open` as it is on disk): one side of what an unsaved edit moves
    /// ([`crate::lsp::edits`]). `None` when it does not read.
    pub fn cluster_with(
        &self,
        open: &std::collections::HashMap<PathBuf, Arc<String>>,
    ) -> Option<Arc<Inventory>> {
        let mut inventory = self.inventory.reread_with(open);
        load_cluster(
            &mut inventory,
            self.pool_label.as_deref(),
            &self.platform,
            &mut Vec::new(),
        )
    }

    /// The same workspace with these overlays rendered, their findings traced.
    pub fn with_rendered(&self, rendered: Arc<Rendered>, generation: u64) -> Self {
        let mut workspace = Workspace {
            rendered,
            generation,
            ..self.clone()
        };
        workspace.trace();
        workspace
    }

    /// Judges the rendered overlays' output with this workspace's options and inventory, as
    /// `lint` does, and traces the findings to the files to edit.
    fn trace(&mut self) {
        if self.rendered.outcomes.iter().all(|o| o.is_err()) {
            self.traced = Arc::default();
            self.kustomizations = Arc::default();
            return;
        }
        let root = self.root.as_deref();
        let traced = crate::overlays::traced::trace_all(&self.rendered, root, |_, text| {
            let ask = Ask::new(&self.options, self.cluster.as_deref());
            self.configured(crate::analysis::check(text, ask))
                .diagnostics
        });
        self.kustomizations = Arc::new(
            traced
                .kustomizations
                .iter()
                .map(|(name, text)| (name.clone(), (PathBuf::from(name), text.clone())))
                .collect(),
        );
        self.traced = Arc::new(traced);
    }

    /// What the workspace's faces read of a render: with an inventory or a toleration policy,
    /// where workloads can run, as `lint` reads it then.
    pub fn reads(&self) -> Reads {
        let policy = self.options.policy().is_some()
            || self.options.admission_enabled("PodTolerationRestriction");
        if !self.inventory.is_empty() || policy {
            Reads::Placement
        } else {
            Reads::Tolerations
        }
    }

    /// The rendered findings of a file (`canonical`: its path, canonical) whose text is `text`:
    /// none when the text is not the one they were placed in (an edit not saved yet, or a file
    /// changed since it was rendered; the next render places them again).
    pub fn traced_for(&self, canonical: &Path, text: &str) -> Option<Arc<TracedFile>> {
        let i = *self.traced.by_path.get(canonical)?;
        let file = &self.traced.files[i];
        (*file.text == *text).then(|| file.clone())
    }

    /// A place in an overlay's kustomization file (named as the rendered findings' notes name
    /// it), for the client.
    pub fn kustomization_location(
        &self,
        file: &str,
        range: std::ops::Range<usize>,
        encoding: crate::position::Encoding,
    ) -> Option<tower_lsp_server::ls_types::Location> {
        let (path, text) = self.kustomizations.get(file)?;
        let uri = tower_lsp_server::ls_types::Uri::from_file_path(path)?;
        let index = crate::position::LineIndex::new(text);
        let lines = crate::lsp::convert::Lines::new(text, &index, encoding);
        Some(tower_lsp_server::ls_types::Location::new(
            uri,
            lines.range(range),
        ))
    }

    /// Lints one document.
    pub fn analyse(&self, text: &str) -> Vec<Diagnostic> {
        self.check(text, false, None).diagnostics
    }

    /// Analyses one document, with the placements of its workloads when `placements` is set
    /// (and an inventory is loaded): the only call from the server into the analysis core.
    /// `chart` is what the document's place says of it: for a chart's values file, what the
    /// chart's templates render it into; for a patch file, its target (read at the edge, as
    /// the CLI reads it: [`Place::of`]).
    pub fn check(&self, text: &str, placements: bool, chart: Option<&Arc<Place>>) -> FileAnalysis {
        let analysis = self.with_options(chart, |options| {
            let ask = Ask::new(options, self.cluster.as_deref());
            crate::analysis::check(text, Ask { placements, ..ask })
        });
        self.configured(analysis)
    }

    /// [`Workspace::check`] of a YAML file already parsed, and what each document found
    /// and read of the inventory, keeping what a document found `before` where it reads the
    /// same of this one (see [`crate::analysis::check_again`]).
    pub fn check_again<'a>(
        &self,
        text: &'a str,
        stream: &mut Stream<'a>,
        chart: Option<&Arc<Place>>,
        before: Option<&Judged>,
    ) -> (FileAnalysis, Judged) {
        let (analysis, judged) = self.with_options(chart, |options| {
            let ask = Ask::new(options, self.cluster.as_deref());
            crate::analysis::check_again(text, stream, ask, before)
        });
        (self.configured(analysis), judged)
    }

    /// Whether a file's findings can depend on the inventory (see
    /// [`crate::analysis::reads_inventory`]), with the options [`Workspace::check`]
    /// analyses it with (`stream`: its tree, when it is parsed already).
    pub fn reads_inventory<'a>(
        &self,
        text: &'a str,
        stream: Option<&mut Stream<'a>>,
        chart: Option<&Arc<Place>>,
    ) -> bool {
        self.with_options(chart, |o| crate::analysis::reads_inventory(text, stream, o))
    }

    /// Runs `f` with the options a document is analysed with: what its place says
    /// ([`Place`]: a chart's values file's chart, a patch file's target) applied.
    pub(crate) fn with_options<R>(
        &self,
        chart: Option<&Arc<Place>>,
        f: impl FnOnce(&Options) -> R,
    ) -> R {
        match chart {
            Some(c) => {
                let mut o = self.options.clone();
                c.apply(&mut o);
                f(&o)
            }
            None => f(&self.options),
        }
    }

    /// The settings' rule levels applied: a rule turned off is left out.
    fn configured(&self, mut analysis: FileAnalysis) -> FileAnalysis {
        if !self.severities.is_empty() {
            analysis.diagnostics.retain_mut(|d| {
                match self
                    .severities
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == d.rule)
                {
                    Some((_, None)) => false,
                    Some((_, Some(severity))) => {
                        d.severity = *severity;
                        true
                    }
                    None => true,
                }
            });
        }
        analysis
    }

    /// Whether `path` is the project's configuration file (a change to it reloads everything).
    pub fn is_config(&self, path: &Path) -> bool {
        self.config.as_deref() == Some(path)
    }

    /// Whether the Lt and Gt toleration operators are on.
    pub fn comparison_operators(&self) -> bool {
        self.options.feature("TaintTolerationComparisonOperators")
    }
}

/// Reads the inventory files (as read, texts still held; what was read of a file that did not
/// change is kept) into one cluster, and keeps what was read of each file. Files are named by
/// their path, which is what related locations into them carry. Nothing when a file is
/// unreadable or none is set. Pools are named by `pool_label` when it is set.
fn load_cluster(
    files: &mut InventoryFiles,
    pool_label: Option<&str>,
    (platform, by): &(crate::inventory::platform::Choice, String),
    problems: &mut Vec<String>,
) -> Option<Arc<Inventory>> {
    use rayon::prelude::*;
    if files.is_empty() || files.files().iter().any(|f| f.text().is_err()) {
        return None;
    }
    let read: Option<Vec<_>> = files
        .files()
        .par_iter()
        .enumerate()
        .map(|(i, f)| f.read_as(i))
        .collect();
    let read = read?;
    for (f, r) in files.files_mut().iter_mut().zip(&read) {
        f.keep_read(r.clone());
    }
    match Inventory::assemble(&read) {
        Ok(mut inventory) => {
            if let Some(label) = pool_label {
                inventory.name_pools_by(label);
            }
            inventory.set_platform(*platform, by);
            Some(Arc::new(inventory))
        }
        Err(errors) => {
            problems.extend(errors.iter().map(|e| format!("inventory {e}")));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_become_options_and_severities() {
        let settings = Settings {
            feature_gates: vec!["TaintTolerationComparisonOperators=true".into()],
            disable_admission_plugins: vec!["DefaultTolerationSeconds".into(), "Nope".into()],
            rules: vec![
                ("unknown-effect".into(), "warning".into()),
                ("equal-empty-value".into(), "off".into()),
                ("no-such-rule".into(), "off".into()),
                ("unknown-operator".into(), "loud".into()),
            ],
            ..Settings::default()
        };
        let (ws, problems) = Workspace::new(settings, None, 1);
        assert!(ws.comparison_operators());
        assert!(!ws.options.admission_enabled("DefaultTolerationSeconds"));
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].starts_with("disableAdmissionPlugins: admission plugin \"Nope\""));
        assert!(problems[1].starts_with("rules: no rule named \"no-such-rule\""));
        assert_eq!(
            problems[2],
            "rules.unknown-operator: \"loud\" is not one of error, warning, info, hint, off"
        );
        let text = "tolerations:\n- key: a\n  effect: noschedule\n- key: b\n";
        let found: Vec<(&str, Severity)> = ws
            .analyse(text)
            .iter()
            .map(|d| (d.rule, d.severity))
            .collect();
        assert_eq!(found, [("unknown-effect", Severity::Warning)]);
        let (plain, _) = Workspace::new(Settings::default(), None, 1);
        assert!(plain
            .analyse(text)
            .iter()
            .any(|d| d.rule == "equal-empty-value"));
    }

    #[test]
    fn the_admission_setting_configures_the_plugin() {
        use crate::lsp::settings::Admission;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("admission.yaml"),
            "kind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  configuration:\n    whitelist: [{key: gpu, operator: Exists}]\n",
        )
        .unwrap();
        let settings = Settings {
            enable_admission_plugins: vec!["PodTolerationRestriction".into()],
            admission: Some(Admission::File("admission.yaml".into())),
            ..Settings::default()
        };
        let (ws, problems) = Workspace::new(settings, Some(dir.path()), 1);
        assert!(problems.is_empty(), "{problems:?}");
        let pod = "kind: Pod\nmetadata: {name: p}\nspec:\n  tolerations: [{key: spot, operator: Exists}]\n  containers: [{name: c, image: i}]\n";
        assert!(ws
            .analyse(pod)
            .iter()
            .any(|d| d.rule == "admission-rejected"));
        let settings = Settings {
            admission: Some(Admission::File("missing.yaml".into())),
            ..Settings::default()
        };
        let (_, problems) = Workspace::new(settings, Some(dir.path()), 1);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("admission.admissionControlConfigFile missing.yaml"));
    }
}
