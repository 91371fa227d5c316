//! `.taintlint.yaml`: the project's configuration file.
//!
//! ```yaml
//! inventory: cluster/nodes.yaml          # or a list; kept for the cluster cross-reference
//! feature-gates:
//!   TaintTolerationComparisonOperators: true
//! admission-plugins:
//!   enable: [ExtendedResourceToleration, PodTolerationRestriction]
//!   disable: [DefaultTolerationSeconds]
//! admission:                             # PodTolerationRestriction's configuration
//!   clusterDefaultTolerations: [{key: tenant, operator: Exists, effect: NoSchedule}]
//!   clusterTolerationWhitelist: [{operator: Exists, effect: NoSchedule}]
//!   # or: admissionControlConfigFile: admission.yaml (an AdmissionConfiguration)
//! policy:                                # the same shapes, checked without the plugin
//!   clusterTolerationWhitelist: [{operator: Exists, effect: NoExecute}]
//!   namespaces:
//!     shop: {tolerationsWhitelist: [{key: tenant, operator: Equal, value: shop}]}
//! rules:
//!   tolerates-everything: off            # error | warning | info | hint | off
//!   duplicate-toleration: warning
//! include: ["**/*.yaml"]                 # files a directory walk lints
//! exclude: ["vendor/**", "*.generated.yaml"]
//! per-path-ignores:
//!   "charts/third-party/**": [equal-empty-value, tolerates-everything]
//! kustomize: auto                        # auto | kustomize | kubectl | off: what renders overlays
//! # or: kustomize: {tool: auto, remote: false, load-restrictor: root-only}
//! ```
//!
//! Parsing ([`parse`]) is pure and reports every unknown key and bad value with its line and
//! column; finding and reading the file ([`discover`], [`load`]) is the only I/O here. The
//! analysis core never sees this file: it gets the [`Options`] resolved from it for each path.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::{json, Value};

use crate::config::{self, Options, ADMISSION_PLUGINS, FEATURE_GATES};
use crate::diagnostic::Severity;
use crate::position::{Encoding, LineIndex};
use crate::rules;
use crate::syntax::{self, Document, NodeId, NodeKind, Style};

/// The name the file is discovered by.
pub const FILE_NAME: &str = ".taintlint.yaml";

/// The top-level keys, in the order the documentation lists them.
pub const KEYS: &[&str] = &[
    "inventory",
    "pool-label",
    "platform",
    "feature-gates",
    "admission-plugins",
    "admission",
    "policy",
    "rules",
    "include",
    "exclude",
    "fail-on",
    "per-path-ignores",
    "kustomize",
];

/// What renders the kustomizations `lint` and `simulate` meet (`kustomize:` and `--kustomize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kustomize {
    /// `kustomize build` when kustomize is on the PATH, else `kubectl kustomize`.
    #[default]
    Auto,
    /// `kustomize build` only.
    Kustomize,
    /// `kubectl kustomize` only.
    Kubectl,
    /// No rendering: the sources alone are linted.
    Off,
}

impl Kustomize {
    /// The names the flag and the key take, in order.
    pub const NAMES: &'static [&'static str] = &["auto", "kustomize", "kubectl", "off"];

    pub fn parse(name: &str) -> Option<Kustomize> {
        match name {
            "auto" => Some(Kustomize::Auto),
            "kustomize" => Some(Kustomize::Kustomize),
            "kubectl" => Some(Kustomize::Kubectl),
            "off" => Some(Kustomize::Off),
            _ => None,
        }
    }
}

/// Which files kustomize may read for a kustomization (`kustomize.load-restrictor`): its own
/// restriction (`LoadRestrictionsRootOnly`: the kustomization's directory and below), or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadRestrictor {
    /// kustomize's default: a kustomization reads files in its directory and below only.
    #[default]
    RootOnly,
    /// `--load-restrictor LoadRestrictionsNone`: any file the user can read.
    None,
}

impl LoadRestrictor {
    /// The names the key takes, in order.
    pub const NAMES: &'static [&'static str] = &["root-only", "none"];

    pub fn parse(name: &str) -> Option<LoadRestrictor> {
        match name {
            "root-only" => Some(LoadRestrictor::RootOnly),
            "none" => Some(LoadRestrictor::None),
            _ => None,
        }
    }
}

/// The keys of `kustomize:` written as a mapping.
pub const KUSTOMIZE_KEYS: &[&str] = &["tool", "remote", "load-restrictor"];

/// Files a directory walk lints when the configuration has no `include`.
pub const DEFAULT_INCLUDE: &[&str] = &["*.yaml", "*.yml", "*.json"];

/// A resolved configuration: the defaults, or what a file says.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The file it came from; `None` for the defaults.
    pub path: Option<PathBuf>,
    /// The directory that relative paths and globs are relative to.
    pub dir: PathBuf,
    /// Inventory files (relative ones resolved against `dir`).
    pub inventory: Vec<PathBuf>,
    /// The node label that names the cluster's node pools (`pool-label`), looked at before the
    /// common providers' node-group labels.
    pub pool_label: Option<String>,
    /// The platform the cluster runs on (`platform`), or inferred from the inventory.
    pub platform: crate::inventory::platform::Choice,
    /// Cluster behaviour and rule levels.
    pub options: Options,
    /// What renders kustomizations (`kustomize:`, or its `tool`); `None` when the file does not
    /// say.
    pub kustomize: Option<Kustomize>,
    /// Whether kustomize may fetch remote bases (`kustomize.remote`); `None` when the file does
    /// not say (no).
    pub kustomize_remote: Option<bool>,
    /// kustomize's load restrictor (`kustomize.load-restrictor`); `None` when the file does not
    /// say (kustomize's own).
    pub load_restrictor: Option<LoadRestrictor>,
    /// `admission.admissionControlConfigFile` (resolved against `dir`) and where it is written:
    /// [`load`] reads it.
    admission_file: Option<(PathBuf, (usize, usize))>,
    include: Patterns,
    exclude: Patterns,
    per_path_ignores: Vec<(Patterns, Vec<&'static str>)>,
    /// `fail-on`: the lowest severity that fails a lint run (exit status 1); `None` when the
    /// file does not say (errors only).
    pub fail_on: Option<Severity>,
    /// The working directory and `dir` made absolute, for the `dir` they were made of: found
    /// once, since a directory walk asks for every file's relative path (asking the system for
    /// the working directory each time was a tenth of linting 10,000 small files).
    anchor: OnceLock<Anchor>,
}

#[derive(Debug, Clone)]
struct Anchor {
    dir: PathBuf,
    cwd: PathBuf,
    base: PathBuf,
}

/// Compiled globs, with the patterns as written.
#[derive(Debug, Clone)]
struct Patterns {
    written: Vec<String>,
    set: GlobSet,
}

impl Patterns {
    fn new(written: &[&str]) -> Result<Patterns, (usize, String)> {
        let mut builder = GlobSetBuilder::new();
        for (i, p) in written.iter().enumerate() {
            for glob in compile(p).map_err(|e| (i, e))? {
                builder.add(glob);
            }
        }
        Ok(Patterns {
            written: written.iter().map(|s| s.to_string()).collect(),
            set: builder.build().map_err(|e| (0, e.to_string()))?,
        })
    }

    fn matches(&self, relative: &str) -> bool {
        self.set.is_match(relative)
    }
}

/// A pattern without `/` matches a file or directory name at any depth (as in .gitignore);
/// one with `/` matches the path relative to the configuration's directory. Either way, a
/// directory that matches covers everything below it.
fn compile(pattern: &str) -> Result<Vec<Glob>, String> {
    let anchored = pattern.trim_start_matches('/');
    let trimmed = anchored.trim_end_matches('/');
    if trimmed.is_empty() {
        return Err("an empty pattern matches nothing".to_string());
    }
    let base = if pattern.contains('/') && pattern.trim_end_matches('/').contains('/') {
        trimmed.to_string()
    } else {
        format!("**/{trimmed}")
    };
    let glob = |p: &str| {
        GlobBuilder::new(p)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("invalid glob {pattern:?}: {}", e.kind()))
    };
    Ok(vec![glob(&base)?, glob(&format!("{base}/**"))?])
}

impl Default for ConfigFile {
    fn default() -> Self {
        ConfigFile {
            path: None,
            dir: PathBuf::from("."),
            inventory: Vec::new(),
            pool_label: None,
            platform: crate::inventory::platform::Choice::Infer,
            options: Options::default(),
            kustomize: None,
            kustomize_remote: None,
            load_restrictor: None,
            admission_file: None,
            include: Patterns::new(DEFAULT_INCLUDE).expect("the default patterns compile"),
            exclude: Patterns::new(&[]).expect("no patterns compile"),
            per_path_ignores: Vec::new(),
            fail_on: None,
            anchor: OnceLock::new(),
        }
    }
}

impl ConfigFile {
    /// `path` relative to the configuration's directory, with `/` separators; `None` when it
    /// is outside it.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let made = || {
            let cwd = std::env::current_dir().unwrap_or_default();
            let base = lexical(&cwd.join(&self.dir));
            Anchor {
                dir: self.dir.clone(),
                cwd,
                base,
            }
        };
        let fresh;
        let anchor = match self.anchor.get_or_init(made) {
            a if a.dir == self.dir => a,
            _ => {
                fresh = made();
                &fresh
            }
        };
        let path = lexical(&anchor.cwd.join(path));
        let rel = path.strip_prefix(&anchor.base).ok()?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// The name patterns match: the relative path, or the file name for a path outside the
    /// configuration's directory.
    fn subject(&self, path: &Path) -> String {
        self.relative(path).unwrap_or_else(|| {
            path.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
    }

    /// Whether a directory walk skips this file or directory.
    pub fn is_excluded(&self, path: &Path) -> bool {
        !self.exclude.written.is_empty() && self.exclude.matches(&self.subject(path))
    }

    /// Whether a directory walk lints this file (given it is not excluded).
    pub fn is_included(&self, path: &Path) -> bool {
        self.include.matches(&self.subject(path))
    }

    /// The rules `per-path-ignores` turns off for this path.
    pub fn ignored_rules(&self, path: &Path) -> Vec<&'static str> {
        if self.per_path_ignores.is_empty() {
            return Vec::new();
        }
        let subject = self.subject(path);
        let mut out: Vec<&'static str> = Vec::new();
        for (patterns, rules) in &self.per_path_ignores {
            if patterns.matches(&subject) {
                for rule in rules {
                    if !out.contains(rule) {
                        out.push(rule);
                    }
                }
            }
        }
        out
    }

    /// `base` (this file's options, with the command line applied on top) with the rules that
    /// `per-path-ignores` turns off for `path` turned off.
    pub fn options_for(&self, base: &Options, path: Option<&Path>) -> Options {
        let mut options = base.clone();
        if let Some(path) = path {
            for rule in self.ignored_rules(path) {
                options
                    .set_rule_level(rule, None)
                    .expect("per-path-ignores holds only known rules");
            }
        }
        options
    }
}

fn absolute(path: &Path) -> PathBuf {
    lexical(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// An absolute path without `.`, with `..` folded lexically, so `./a/../b` and `b` compare equal.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A problem in a configuration file, with its position when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    /// 1-based line and column (in characters).
    pub position: Option<(usize, usize)>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(f, "{}:{line}:{column}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Finds the configuration for a linted path: `.taintlint.yaml` in its directory (the path
/// itself for a directory) or the nearest one above.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let start = absolute(start);
    let mut dir = if start.is_dir() {
        Some(start.as_path())
    } else {
        start.parent()
    };
    while let Some(d) = dir {
        let candidate = d.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

/// Reads and parses a configuration file.
pub fn load(path: &Path) -> Result<ConfigFile, Vec<ConfigError>> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        vec![ConfigError {
            file: name.clone(),
            position: None,
            message: match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                _ => e.to_string(),
            },
        }]
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        vec![ConfigError {
            file: name.clone(),
            position: None,
            message: format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        }]
    })?;
    let mut config = parse(&text, path)?;
    if let Some((file, position)) = config.admission_file.take() {
        let error = |message: String| {
            vec![ConfigError {
                file: name.clone(),
                position: Some(position),
                message: format!(
                    "admission.admissionControlConfigFile {}: {message}",
                    file.display()
                ),
            }]
        };
        let text = std::fs::read_to_string(&file).map_err(|e| {
            error(match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                _ => e.to_string(),
            })
        })?;
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let read = |p: &str| {
            std::fs::read_to_string(dir.join(p)).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => "no such file".to_string(),
                _ => e.to_string(),
            })
        };
        let restriction = crate::admission_config::parse(&text, &read).map_err(error)?;
        config.options.set_toleration_restriction(restriction);
    }
    Ok(config)
}

/// Parses a configuration file's text; `path` names it in errors and anchors its relative
/// paths. Every problem is reported, not only the first.
pub fn parse(text: &str, path: &Path) -> Result<ConfigFile, Vec<ConfigError>> {
    let mut p = Parser {
        text,
        file: path.display().to_string(),
        index: LineIndex::new(text),
        errors: Vec::new(),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut config = ConfigFile {
        path: Some(path.to_path_buf()),
        dir,
        ..ConfigFile::default()
    };
    let stream = syntax::parse(text);
    if let Some(e) = stream
        .error
        .as_ref()
        .or_else(|| stream.documents.iter().find_map(|d| d.error.as_ref()))
    {
        p.error(e.offset, format!("not valid YAML: {}", e.message));
        return Err(p.errors);
    }
    let docs: Vec<&Document<'_>> = stream
        .documents
        .iter()
        .filter(|d| d.root.is_some())
        .collect();
    if let Some(extra) = docs.get(1) {
        p.error(
            extra.span.start,
            "a configuration file holds one YAML document".to_string(),
        );
        return Err(p.errors);
    }
    let Some(doc) = docs.first() else {
        return Ok(config);
    };
    let root = doc.root.expect("filtered on a root");
    if is_null(doc, root) {
        return Ok(config);
    }
    let Some(entries) = p.entries(doc, root, "the configuration") else {
        return Err(p.errors);
    };
    for (key, name, value) in entries {
        match name.as_str() {
            "inventory" => {
                let paths = if let Some((s, _)) = scalar_str(doc, value) {
                    vec![s.to_string()]
                } else {
                    p.strings(doc, value, &name)
                        .into_iter()
                        .map(|(s, _)| s)
                        .collect()
                };
                config.inventory = paths.iter().map(|s| config.dir.join(s)).collect();
            }
            "pool-label" => match scalar_str(doc, value) {
                Some((s, _)) if crate::k8s::names::is_qualified_name(s).is_empty() => {
                    config.pool_label = Some(s.to_string());
                }
                _ => p.node_error(
                    doc,
                    value,
                    format!("{name}: a node label key, such as `example.com/pool`"),
                ),
            },
            "platform" => {
                match scalar_str(doc, value).map(|(s, _)| crate::inventory::platform::parse(s)) {
                    Some(Ok(platform)) => {
                        config.platform = crate::inventory::platform::Choice::Given(platform);
                        config.options.set_platform(platform);
                    }
                    Some(Err(e)) => p.node_error(doc, value, format!("{name}: {e}")),
                    None if is_null(doc, value) => {}
                    None => p.node_error(
                        doc,
                        value,
                        format!("{name}: a platform's name: {}", platform_names()),
                    ),
                }
            }
            "feature-gates" => read_feature_gates(&mut p, doc, &mut config, &name, value),
            "admission-plugins" => read_admission_plugins(&mut p, doc, &mut config, &name, value),
            "admission" => read_admission(&mut p, doc, &mut config, &name, value),
            "policy" => read_policy(&mut p, doc, &mut config, &name, value),
            "rules" => read_rules(&mut p, doc, &mut config, &name, value),
            "include" | "exclude" => read_patterns(&mut p, doc, &mut config, &name, value),
            "per-path-ignores" => read_per_path_ignores(&mut p, doc, &mut config, &name, value),
            "kustomize" => read_kustomize(&mut p, doc, &mut config, &name, value),
            "fail-on" => read_fail_on(&mut p, doc, &mut config, &name, value),
            _ => p.unknown_key(doc, key, "the configuration", &name, KEYS),
        }
    }
    if p.errors.is_empty() {
        Ok(config)
    } else {
        Err(p.errors)
    }
}

/// `feature-gates:`: a mapping of gate names to booleans, set as `--feature-gates` sets them.
fn read_feature_gates(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    for (k, gate, v) in p.entries(doc, value, name).unwrap_or_default() {
        let Some(on) = p.boolean(doc, v, &format!("{name}.{gate}")) else {
            continue;
        };
        if let Err(e) = config.options.set_feature_gates(&format!("{gate}={on}")) {
            p.node_error(doc, k, format!("{name}.{gate}: {e}"));
        }
    }
}

/// `admission-plugins:`: `enable` and `disable` lists of plugin names, as
/// `--enable-admission-plugins` and `--disable-admission-plugins` take them.
fn read_admission_plugins(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    for (k, what, v) in p.entries(doc, value, name).unwrap_or_default() {
        let enable = match what.as_str() {
            "enable" => true,
            "disable" => false,
            _ => {
                p.unknown_key(doc, k, name, &what, &["enable", "disable"]);
                continue;
            }
        };
        let key = format!("{name}.{what}");
        for (plugin, node) in p.strings(doc, v, &key) {
            if let Err(e) = config.options.set_admission_plugins(&plugin, enable) {
                p.node_error(doc, node, format!("{key}: {e}"));
            }
        }
    }
}

/// `include:` and `exclude:`: lists of path patterns; an empty `include` keeps the default
/// rather than linting nothing.
fn read_patterns(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    let items = p.strings(doc, value, name);
    let written: Vec<&str> = items.iter().map(|(s, _)| s.as_str()).collect();
    if written.is_empty() {
        // An empty `include` keeps the default rather than linting nothing.
        return;
    }
    match Patterns::new(&written) {
        Ok(patterns) if name == "include" => config.include = patterns,
        Ok(patterns) => config.exclude = patterns,
        Err((i, e)) => {
            let node = items.get(i).map_or(value, |&(_, n)| n);
            p.node_error(doc, node, format!("{name}: {e}"));
        }
    }
}

/// `kustomize:`: the tool's name, or a mapping of `tool`, `remote` and `load-restrictor`.
fn read_kustomize(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    let tool = |p: &mut Parser<'_>, node: NodeId, key: &str| match scalar_str(doc, node)
        .and_then(|(s, _)| Kustomize::parse(s))
    {
        Some(k) => Some(k),
        None => {
            p.node_error(
                doc,
                node,
                format!("{key}: expected one of {}", Kustomize::NAMES.join(", ")),
            );
            None
        }
    };
    if doc.mapping(value).is_none() {
        config.kustomize = tool(p, value, name);
        return;
    }
    for (k, what, v) in p.entries(doc, value, name).unwrap_or_default() {
        let key = format!("{name}.{what}");
        match what.as_str() {
            "tool" => config.kustomize = tool(p, v, &key),
            "remote" => config.kustomize_remote = p.boolean(doc, v, &key),
            "load-restrictor" => {
                match scalar_str(doc, v).and_then(|(s, _)| LoadRestrictor::parse(s)) {
                    Some(r) => config.load_restrictor = Some(r),
                    None => p.node_error(
                        doc,
                        v,
                        format!(
                            "{key}: expected one of {}",
                            LoadRestrictor::NAMES.join(", ")
                        ),
                    ),
                }
            }
            _ => p.unknown_key(doc, k, name, &what, KUSTOMIZE_KEYS),
        }
    }
}

/// `fail-on:`: the least severity that fails the run (`error`, `warning`, `info`, `hint`).
fn read_fail_on(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    let Some((level, _)) = p.string(doc, value, name) else {
        return;
    };
    match config::parse_level(&level) {
        Some(Some(severity)) => config.fail_on = Some(severity),
        _ => p.node_error(
            doc,
            value,
            format!(
                "{name}: invalid severity {level:?}: expected error, warning, info \
                 or hint"
            ),
        ),
    }
}

/// `admission:`: PodTolerationRestriction's configuration, inline or in a file (not both).
fn read_admission(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    const ADMISSION_KEYS: &[&str] = &[
        "clusterDefaultTolerations",
        "clusterTolerationWhitelist",
        "admissionControlConfigFile",
    ];
    let mut restriction = config::TolerationRestriction::default();
    let mut inline = None;
    let mut file = None;
    for (k, what, v) in p.entries(doc, value, name).unwrap_or_default() {
        let key = format!("{name}.{what}");
        match what.as_str() {
            "clusterDefaultTolerations" | "clusterTolerationWhitelist" => {
                inline.get_or_insert(k);
                match crate::admission_config::toleration_list(doc, k, v, &key) {
                    Ok(list) if what == "clusterDefaultTolerations" => restriction.default = list,
                    Ok(list) => restriction.whitelist = list,
                    Err(e) => p.node_error(doc, v, e),
                }
            }
            "admissionControlConfigFile" => {
                if let Some((path, node)) = p.string(doc, v, &key) {
                    file = Some((path, node));
                }
            }
            _ => p.unknown_key(doc, k, name, &what, ADMISSION_KEYS),
        }
    }
    match (inline, file) {
        (Some(_), Some((_, node))) => p.node_error(
            doc,
            node,
            format!(
                "{name}: give the PodTolerationRestriction configuration inline \
                 (clusterDefaultTolerations, clusterTolerationWhitelist) or in \
                 admissionControlConfigFile, not both"
            ),
        ),
        (Some(_), None) => config.options.set_toleration_restriction(restriction),
        (None, Some((path, node))) => {
            let offset = doc.node(node).span.start;
            let lc = p.index.line_col(p.text, offset, Encoding::Utf32);
            config.admission_file = Some((
                config.dir.join(path),
                (lc.line as usize + 1, lc.col as usize + 1),
            ));
        }
        (None, None) => {}
    }
}

/// `policy:`: the repository's toleration policy, cluster-wide and per namespace.
fn read_policy(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    // The file's name as given, as `parse` was called with it.
    let file = p.file.clone();
    let mut policy = config::Policy::default();
    for (k, what, v) in p.entries(doc, value, name).unwrap_or_default() {
        let key = format!("{name}.{what}");
        match what.as_str() {
            "clusterDefaultTolerations" | "clusterTolerationWhitelist" => {
                match crate::admission_config::toleration_list(doc, k, v, &key) {
                    Ok(list) if what == "clusterDefaultTolerations" => {
                        policy.cluster.default = list
                    }
                    Ok(list) => policy.cluster.whitelist = list,
                    Err(e) => p.node_error(doc, v, e),
                }
            }
            "namespaces" => {
                for (nk, ns, nv) in p.entries(doc, v, &key).unwrap_or_default() {
                    let namespace = policy_namespace(p, doc, &file, nk, &ns, nv);
                    policy.namespaces.insert(ns, namespace);
                }
            }
            _ => p.unknown_key(doc, k, name, &what, POLICY_KEYS),
        }
    }
    config.options.set_policy(Some(policy));
}

/// `rules:`: a severity (or `off`) per rule.
fn read_rules(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    for (k, rule, v) in p.entries(doc, value, name).unwrap_or_default() {
        if rules::find(&rule).is_none() {
            p.node_error(doc, k, format!("{name}: {}", config::unknown_rule(&rule)));
            continue;
        }
        let Some((level, _)) = p.string(doc, v, &format!("{name}.{rule}")) else {
            continue;
        };
        match config::parse_level(&level) {
            Some(level) => {
                config
                    .options
                    .set_rule_level(&rule, level)
                    .expect("the rule was found");
            }
            None => p.node_error(
                doc,
                v,
                format!(
                    "{name}.{rule}: invalid severity {level:?}: expected error, \
                     warning, info, hint or off"
                ),
            ),
        }
    }
}

/// `per-path-ignores:`: rules not run on the files a pattern matches.
fn read_per_path_ignores(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    config: &mut ConfigFile,
    name: &str,
    value: NodeId,
) {
    for (k, pattern, v) in p.entries(doc, value, name).unwrap_or_default() {
        let patterns = match Patterns::new(&[pattern.as_str()]) {
            Ok(patterns) => patterns,
            Err((_, e)) => {
                p.node_error(doc, k, format!("{name}: {e}"));
                continue;
            }
        };
        let mut names = Vec::new();
        for (rule, node) in p.strings(doc, v, &format!("{name}.{pattern}")) {
            match rules::find(&rule) {
                Some(meta) => names.push(meta.name),
                None => p.node_error(
                    doc,
                    node,
                    format!("{name}.{pattern}: {}", config::unknown_rule(&rule)),
                ),
            }
        }
        config.per_path_ignores.push((patterns, names));
    }
}

const POLICY_KEYS: &[&str] = &[
    "clusterDefaultTolerations",
    "clusterTolerationWhitelist",
    "namespaces",
];

/// One namespace of `policy.namespaces`: its `defaultTolerations` and `tolerationsWhitelist`,
/// held as a Namespace's annotations would hold them, placed in the configuration file.
fn policy_namespace(
    p: &mut Parser<'_>,
    doc: &Document<'_>,
    file: &str,
    key: NodeId,
    name: &str,
    value: NodeId,
) -> crate::k8s::cluster::Namespace {
    use crate::k8s::cluster::{Annotation, Namespace, Place};
    let place = |node: NodeId| Place {
        file: file.to_string(),
        range: doc.node(node).span.clone(),
    };
    let mut ns = Namespace {
        name: name.to_string(),
        at: place(key),
        default_tolerations: None,
        whitelist: None,
    };
    let within = format!("policy.namespaces.{name}");
    for (k, what, v) in p.entries(doc, value, &within).unwrap_or_default() {
        let key_path = format!("{within}.{what}");
        let slot = match what.as_str() {
            "defaultTolerations" => &mut ns.default_tolerations,
            "tolerationsWhitelist" => &mut ns.whitelist,
            _ => {
                p.unknown_key(
                    doc,
                    k,
                    &within,
                    &what,
                    &["defaultTolerations", "tolerationsWhitelist"],
                );
                continue;
            }
        };
        match crate::admission_config::toleration_list(doc, k, v, &key_path) {
            Ok(list) => {
                *slot = Some(Annotation {
                    at: place(v),
                    tolerations: Ok(list),
                })
            }
            Err(e) => p.node_error(doc, v, e),
        }
    }
    ns
}

fn is_null(doc: &Document<'_>, node: NodeId) -> bool {
    matches!(
        doc.scalar(node),
        Some(("" | "~" | "null" | "Null" | "NULL", Style::Plain))
    )
}

/// The values `platform` takes, for messages: `gke, eks, ..., or none`.
fn platform_names() -> String {
    let names: Vec<&str> = crate::inventory::platform::NAMES
        .iter()
        .map(|(n, _)| *n)
        .collect();
    format!("{}, or none", names.join(", "))
}

/// The values `platform` takes, for the schema.
fn platform_values() -> Vec<serde_json::Value> {
    crate::inventory::platform::NAMES
        .iter()
        .map(|(n, _)| serde_json::Value::from(*n))
        .chain([serde_json::Value::from("none"), serde_json::Value::Null])
        .collect()
}

fn scalar_str<'d>(doc: &'d Document<'_>, node: NodeId) -> Option<(&'d str, Style)> {
    if is_null(doc, node) {
        return None;
    }
    doc.scalar(node)
}

struct Parser<'t> {
    text: &'t str,
    file: String,
    index: LineIndex,
    errors: Vec<ConfigError>,
}

impl Parser<'_> {
    fn error(&mut self, offset: usize, message: String) {
        let lc = self.index.line_col(self.text, offset, Encoding::Utf32);
        self.errors.push(ConfigError {
            file: self.file.clone(),
            position: Some((lc.line as usize + 1, lc.col as usize + 1)),
            message,
        });
    }

    fn node_error(&mut self, doc: &Document<'_>, node: NodeId, message: String) {
        let span = doc.node(node).span.clone();
        self.error(span.start, message);
    }

    fn unknown_key(
        &mut self,
        doc: &Document<'_>,
        key: NodeId,
        within: &str,
        name: &str,
        known: &[&str],
    ) {
        let near = known
            .iter()
            .map(|k| (crate::k8s::well_known::edit_distance(name, k, 3), *k))
            .filter(|&(d, _)| d <= 3)
            .min_by_key(|&(d, _)| d);
        let hint = match near {
            Some((_, k)) => format!("; did you mean {k:?}?"),
            None => format!(" (known keys: {})", known.join(", ")),
        };
        self.node_error(doc, key, format!("unknown key {name:?} in {within}{hint}"));
    }

    fn describe(doc: &Document<'_>, node: NodeId) -> &'static str {
        match doc.node(doc.resolve(node)).kind {
            NodeKind::Mapping { .. } => "a mapping",
            NodeKind::Sequence { .. } => "a list",
            _ if is_null(doc, node) => "nothing",
            _ => "a scalar",
        }
    }

    /// The entries of a mapping with string keys; duplicate and non-string keys are errors.
    /// Null counts as an empty mapping.
    fn entries(
        &mut self,
        doc: &Document<'_>,
        node: NodeId,
        what: &str,
    ) -> Option<Vec<(NodeId, String, NodeId)>> {
        if is_null(doc, node) {
            return Some(Vec::new());
        }
        let Some(entries) = doc.mapping(node) else {
            let found = Self::describe(doc, node);
            self.node_error(
                doc,
                node,
                format!("{what}: expected a mapping, found {found}"),
            );
            return None;
        };
        let mut out: Vec<(NodeId, String, NodeId)> = Vec::new();
        for &(k, v) in entries {
            let Some((name, _)) = doc.scalar(k) else {
                self.node_error(doc, k, format!("{what}: keys must be strings"));
                continue;
            };
            if out.iter().any(|(_, n, _)| n == name) {
                self.node_error(doc, k, format!("{what}: duplicate key {name:?}"));
                continue;
            }
            out.push((k, name.to_string(), v));
        }
        Some(out)
    }

    fn string(&mut self, doc: &Document<'_>, node: NodeId, key: &str) -> Option<(String, NodeId)> {
        match scalar_str(doc, node) {
            Some((s, _)) => Some((s.to_string(), node)),
            None => {
                let found = Self::describe(doc, node);
                self.node_error(
                    doc,
                    node,
                    format!("{key}: expected a string, found {found}"),
                );
                None
            }
        }
    }

    /// A list of strings; null counts as an empty list.
    fn strings(&mut self, doc: &Document<'_>, node: NodeId, key: &str) -> Vec<(String, NodeId)> {
        if is_null(doc, node) {
            return Vec::new();
        }
        let Some(items) = doc.sequence(node) else {
            let found = Self::describe(doc, node);
            self.node_error(
                doc,
                node,
                format!("{key}: expected a list of strings, found {found}"),
            );
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|&item| self.string(doc, item, key))
            .collect()
    }

    fn boolean(&mut self, doc: &Document<'_>, node: NodeId, key: &str) -> Option<bool> {
        match doc.scalar(node) {
            Some(("true" | "True" | "TRUE", Style::Plain)) => Some(true),
            Some(("false" | "False" | "FALSE", Style::Plain)) => Some(false),
            _ => {
                let shown = self
                    .text
                    .get(doc.node(node).span.clone())
                    .unwrap_or_default()
                    .to_string();
                self.node_error(
                    doc,
                    node,
                    format!("{key}: expected true or false, found {shown:?}"),
                );
                None
            }
        }
    }
}

/// The JSON Schema of the configuration file (draft 2020-12), as published in
/// `docs/taintlint.schema.json`; generated from the same lists the parser checks against.
pub fn json_schema() -> Value {
    let rule_names: Vec<&str> = rules::all().map(|m| m.name).collect();
    let mut rule_props = serde_json::Map::new();
    for m in rules::all() {
        rule_props.insert(
            m.name.to_string(),
            json!({
                "description": format!("{} (default: {})", m.summary, m.severity),
                "$ref": "#/$defs/level",
            }),
        );
    }
    let mut gates = serde_json::Map::new();
    for (name, default) in FEATURE_GATES {
        gates.insert(
            name.to_string(),
            json!({"type": "boolean", "default": default}),
        );
    }
    let string_list = json!({"type": ["array", "null"], "items": {"type": "string"}});
    let plugin_list = json!({"type": ["array", "null"], "items": {"enum": ADMISSION_PLUGINS}});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "taintlint configuration (.taintlint.yaml)",
        "description": "Discovered from the linted path upward, or given with --config. \
            Relative paths and globs are relative to the file's directory.",
        "type": ["object", "null"],
        "additionalProperties": false,
        "properties": {
            "inventory": {
                "description": "Cluster inventory files or directories (kubectl get nodes -o \
                    yaml, Node documents, a pool file, or node pools defined as code).",
                "anyOf": [{"type": "string"}, string_list],
            },
            "pool-label": {
                "description": "The node label that names the cluster's node pools, looked at \
                    before the common providers' node-group labels (eks.amazonaws.com/nodegroup, \
                    karpenter.sh/nodepool, cloud.google.com/gke-nodepool, \
                    kubernetes.azure.com/agentpool, ...).",
                "type": ["string", "null"],
            },
            "platform": {
                "description": "The platform the cluster runs on, which brings what it does on \
                    its own (the admission plugins it runs, the taints and labels it gives nodes, \
                    the default pools of its modules); inferred from the inventory when not \
                    given, `none` for no platform's behaviour.",
                "enum": platform_values(),
            },
            "feature-gates": {
                "description": "Feature gates, as kube-apiserver names them.",
                "type": ["object", "null"],
                "additionalProperties": false,
                "properties": gates,
            },
            "admission-plugins": {
                "description": "Admission plugins enabled or disabled on top of \
                    kube-apiserver's defaults.",
                "type": ["object", "null"],
                "additionalProperties": false,
                "properties": {"enable": plugin_list.clone(), "disable": plugin_list},
            },
            "admission": {
                "description": "The PodTolerationRestriction admission plugin's configuration \
                    (kube-apiserver's --admission-control-config-file): the cluster's default \
                    tolerations and whitelist, for namespaces without the annotations, inline or \
                    in an AdmissionConfiguration file. It configures the plugin; \
                    admission-plugins.enable turns it on.",
                "type": ["object", "null"],
                "additionalProperties": false,
                "properties": {
                    "clusterDefaultTolerations": {
                        "description": "Tolerations added to pods of namespaces without the \
                            defaultTolerations annotation (the plugin's `default`).",
                        "$ref": "#/$defs/tolerations",
                    },
                    "clusterTolerationWhitelist": {
                        "description": "Tolerations the pods of namespaces without the \
                            tolerationsWhitelist annotation may have (the plugin's `whitelist`).",
                        "$ref": "#/$defs/tolerations",
                    },
                    "admissionControlConfigFile": {
                        "description": "An AdmissionConfiguration (apiserver.config.k8s.io/v1) \
                            whose PodTolerationRestriction entry is read, inline or by path.",
                        "type": "string",
                    },
                },
            },
            "policy": {
                "description": "A toleration policy of the repository's own, in \
                    PodTolerationRestriction's shapes, checked whether or not the cluster runs \
                    that plugin: violations are admission-rejected findings marked as the \
                    policy's. Namespaces it names use their own whitelist and defaults, the \
                    others the cluster-wide ones.",
                "type": ["object", "null"],
                "additionalProperties": false,
                "properties": {
                    "clusterDefaultTolerations": {"$ref": "#/$defs/tolerations"},
                    "clusterTolerationWhitelist": {"$ref": "#/$defs/tolerations"},
                    "namespaces": {
                        "type": ["object", "null"],
                        "additionalProperties": {
                            "type": ["object", "null"],
                            "additionalProperties": false,
                            "properties": {
                                "defaultTolerations": {"$ref": "#/$defs/tolerations"},
                                "tolerationsWhitelist": {"$ref": "#/$defs/tolerations"},
                            },
                        },
                    },
                },
            },
            "rules": {
                "description": "Severity per rule; off turns a rule off.",
                "type": ["object", "null"],
                "additionalProperties": false,
                "properties": rule_props,
            },
            "include": {
                "description": "Files a directory walk lints (default: *.yaml, *.yml, \
                    *.json). A pattern without / matches a name at any depth.",
                "allOf": [string_list.clone()],
            },
            "exclude": {
                "description": "Files and directories a directory walk skips.",
                "allOf": [string_list],
            },
            "kustomize": {
                "description": "What renders the kustomizations lint and simulate meet, so that \
                    findings of the rendered whole are reported in the base and patch files: \
                    auto (kustomize build, else kubectl kustomize), kustomize, kubectl, or off \
                    (the sources alone); or a mapping of tool, remote and load-restrictor.",
                "anyOf": [
                    {"enum": Kustomize::NAMES},
                    {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "tool": {
                                "description": "auto, kustomize, kubectl or off (the default: \
                                    auto).",
                                "enum": Kustomize::NAMES,
                            },
                            "remote": {
                                "description": "Whether kustomize may fetch remote bases \
                                    (github.com/org/repo//path?ref=v1, https://...): off by \
                                    default, and an overlay that needs one is not rendered.",
                                "type": "boolean",
                                "default": false,
                            },
                            "load-restrictor": {
                                "description": "root-only (kustomize's own: a kustomization \
                                    reads files in its directory and below) or none (any file, \
                                    as `--load-restrictor LoadRestrictionsNone`).",
                                "enum": LoadRestrictor::NAMES,
                                "default": "root-only",
                            },
                        },
                    },
                ],
            },
            "fail-on": {
                "description": "The lowest severity that fails `taintlint lint` (exit status \
                    1): error (the default), warning, info or hint. `--fail-on` overrides it.",
                "enum": ["error", "warning", "info", "hint"],
            },
            "per-path-ignores": {
                "description": "Rules turned off for the paths a glob matches (vendored or \
                    third-party manifests).",
                "type": ["object", "null"],
                "additionalProperties": {
                    "type": ["array", "null"],
                    "items": {"enum": rule_names},
                },
            },
        },
        "$defs": {
            "level": {"enum": ["error", "warning", "info", "hint", "off"]},
            "tolerations": {
                "type": ["array", "null"],
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "key": {"type": "string"},
                        "operator": {"enum": ["Equal", "Exists"]},
                        "value": {"type": "string"},
                        "effect": {"enum": ["NoSchedule", "PreferNoSchedule", "NoExecute"]},
                        "tolerationSeconds": {"type": "integer"},
                    },
                },
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn ok(text: &str) -> ConfigFile {
        parse(text, Path::new("/p/.taintlint.yaml")).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn errors(text: &str) -> Vec<String> {
        parse(text, Path::new(".taintlint.yaml"))
            .expect_err("an error")
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn kustomize_key() {
        assert_eq!(
            ok("kustomize: kubectl\n").kustomize,
            Some(Kustomize::Kubectl)
        );
        assert_eq!(ok("kustomize: off\n").kustomize, Some(Kustomize::Off));
        assert_eq!(ok("rules: {}\n").kustomize, None);
        assert_eq!(
            errors("kustomize: helm\n"),
            [".taintlint.yaml:1:12: kustomize: expected one of auto, kustomize, kubectl, off"]
        );
        // The mapping: the tool, remote bases, the load restrictor.
        let c = ok("kustomize: {tool: kubectl, remote: true, load-restrictor: none}\n");
        assert_eq!(
            (c.kustomize, c.kustomize_remote, c.load_restrictor),
            (
                Some(Kustomize::Kubectl),
                Some(true),
                Some(LoadRestrictor::None)
            )
        );
        let c = ok("kustomize:\n  remote: false\n");
        assert_eq!(
            (c.kustomize, c.kustomize_remote, c.load_restrictor),
            (None, Some(false), None)
        );
        assert_eq!(
            errors("kustomize: {remote: yes, load-restrictor: all, fetch: true}\n"),
            [
                ".taintlint.yaml:1:21: kustomize.remote: expected true or false, found \"yes\"",
                ".taintlint.yaml:1:43: kustomize.load-restrictor: expected one of root-only, none",
                ".taintlint.yaml:1:48: unknown key \"fetch\" in kustomize (known keys: tool, \
                 remote, load-restrictor)",
            ]
        );
    }

    #[test]
    fn full_file() {
        let c = ok("\
inventory: nodes.yaml
feature-gates:
  TaintTolerationComparisonOperators: true
admission-plugins:
  enable: [ExtendedResourceToleration]
  disable: [DefaultTolerationSeconds]
rules:
  tolerates-everything: off
  duplicate-toleration: error
include: ['*.yaml']
exclude: [vendor, /generated/*.yaml]
per-path-ignores:
  charts/third-party/**: [equal-empty-value]
");
        assert_eq!(c.inventory, [PathBuf::from("/p/nodes.yaml")]);
        assert!(c.options.feature("TaintTolerationComparisonOperators"));
        assert!(c.options.admission_enabled("ExtendedResourceToleration"));
        assert!(!c.options.admission_enabled("DefaultTolerationSeconds"));
        assert!(!c.options.rule_enabled("tolerates-everything"));
        let dup = rules::find("duplicate-toleration").unwrap();
        assert_eq!(c.options.rule_level(dup), Some(Severity::Error));
        assert!(c.is_included(Path::new("/p/a/b.yaml")));
        assert!(!c.is_included(Path::new("/p/a/b.json")));
        assert!(c.is_excluded(Path::new("/p/x/vendor")));
        assert!(c.is_excluded(Path::new("/p/x/vendor/a.yaml")));
        assert!(c.is_excluded(Path::new("/p/generated/a.yaml")));
        assert!(!c.is_excluded(Path::new("/p/x/generated/a.yaml")));
        assert_eq!(
            c.ignored_rules(Path::new("/p/charts/third-party/t/x.yaml")),
            ["equal-empty-value"]
        );
        assert!(c
            .ignored_rules(Path::new("/p/charts/own/x.yaml"))
            .is_empty());
        let o = c.options_for(&c.options, Some(Path::new("/p/charts/third-party/x.yaml")));
        assert!(!o.rule_enabled("equal-empty-value"));
        assert!(c.options.rule_enabled("equal-empty-value"));
    }

    #[test]
    fn the_admission_section() {
        let c = ok("\
admission:
  clusterDefaultTolerations: [{key: tenant, operator: Exists, effect: NoSchedule}]
  clusterTolerationWhitelist:
  - {operator: Exists, effect: NoSchedule}
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
");
        let r = c.options.toleration_restriction();
        assert_eq!(r.default.len(), 1);
        assert_eq!(r.default[0].toleration.key, "tenant");
        assert_eq!(r.whitelist.len(), 2);
        assert_eq!(r.whitelist[1].toleration.toleration_seconds, Some(300));
        // Configuring the plugin does not turn it on, as with kube-apiserver.
        assert!(!c.options.admission_enabled("PodTolerationRestriction"));
        assert_eq!(
            errors("admission:\n  clusterTolerationWhitelist: [{key: a, effect: Nope}]\n"),
            [
                ".taintlint.yaml:2:31: admission.clusterTolerationWhitelist[0]: not a valid \
              toleration (fields key, operator Equal or Exists, value, effect NoSchedule, \
              PreferNoSchedule or NoExecute, tolerationSeconds)"
            ]
        );
        assert_eq!(
            errors("admission:\n  clusterDefaultTolerations: {}\n  admissionControlConfigFile: a.yaml\n  whitelist: []\n"),
            [
                ".taintlint.yaml:2:30: admission.clusterDefaultTolerations is not a list of tolerations",
                ".taintlint.yaml:4:3: unknown key \"whitelist\" in admission (known keys: \
                 clusterDefaultTolerations, clusterTolerationWhitelist, admissionControlConfigFile)",
                ".taintlint.yaml:3:31: admission: give the PodTolerationRestriction configuration \
                 inline (clusterDefaultTolerations, clusterTolerationWhitelist) or in \
                 admissionControlConfigFile, not both",
            ]
        );
    }

    #[test]
    fn the_policy_section() {
        let c = ok("\
policy:
  clusterTolerationWhitelist: [{operator: Exists, effect: NoExecute}]
  namespaces:
    shop:
      defaultTolerations: [{key: tenant, operator: Equal, value: shop, effect: NoSchedule}]
      tolerationsWhitelist: [{key: tenant, operator: Exists}]
    ml: {}
");
        let policy = c.options.policy().unwrap();
        assert_eq!(policy.cluster.whitelist.len(), 1);
        let shop = &policy.namespaces["shop"];
        let w = shop
            .whitelist
            .as_ref()
            .unwrap()
            .tolerations
            .as_ref()
            .unwrap();
        assert_eq!(w[0].toleration.key, "tenant");
        assert!(shop.default_tolerations.is_some());
        assert!(policy.namespaces["ml"].whitelist.is_none());
        assert!(!c.options.admission_enabled("PodTolerationRestriction"));
        assert_eq!(
            errors("policy:\n  namespaces:\n    shop: {whitelist: []}\n  other: 1\n"),
            [
                ".taintlint.yaml:3:12: unknown key \"whitelist\" in policy.namespaces.shop \
                 (known keys: defaultTolerations, tolerationsWhitelist)",
                ".taintlint.yaml:4:3: unknown key \"other\" in policy (known keys: \
                 clusterDefaultTolerations, clusterTolerationWhitelist, namespaces)",
            ]
        );
    }

    #[test]
    fn the_admission_configuration_file_is_read_by_load() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(FILE_NAME);
        std::fs::write(
            &config,
            "admission:\n  admissionControlConfigFile: admission.yaml\n",
        )
        .unwrap();
        let e = load(&config).unwrap_err();
        assert_eq!(e[0].position, Some((2, 31)));
        assert!(
            e[0].message.ends_with("admission.yaml: no such file"),
            "{e:?}"
        );
        std::fs::write(
            dir.path().join("admission.yaml"),
            "kind: AdmissionConfiguration\nplugins:\n- name: PodTolerationRestriction\n  path: ptr.yaml\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("ptr.yaml"),
            "kind: Configuration\nwhitelist: [{key: gpu, operator: Exists}]\n",
        )
        .unwrap();
        let c = load(&config).unwrap();
        assert_eq!(
            c.options.toleration_restriction().whitelist[0]
                .toleration
                .key,
            "gpu"
        );
        std::fs::write(dir.path().join("admission.yaml"), "kind: Pod\n").unwrap();
        let e = load(&config).unwrap_err();
        assert!(
            e[0].message.contains("expected AdmissionConfiguration"),
            "{e:?}"
        );
    }

    #[test]
    fn empty_files_are_defaults() {
        for text in ["", "# nothing\n", "---\n", "~\n", "rules:\ninclude:\n"] {
            let c = ok(text);
            assert!(c.is_included(Path::new("/p/a.yml")), "{text:?}");
            assert_eq!(c.options, Options::default(), "{text:?}");
        }
    }

    #[test]
    fn every_problem_is_reported_with_its_place() {
        assert_eq!(
            errors(
                "\
rule:
  x: off
rules:
  tolerate-everything: off
  null-value: no
  equal-empty-value: [off]
feature-gates:
  TaintTolerationComparisonOperators: yes
  Nope: true
admission-plugins:
  enable: DefaultTolerationSeconds
  disable: [Nope]
  both: []
include: ['[']
per-path-ignores:
  'a/**': [nul-value]
inventory: {a: b}
"
            ),
            [
                ".taintlint.yaml:1:1: unknown key \"rule\" in the configuration; did you mean \
                 \"rules\"?",
                ".taintlint.yaml:4:3: rules: unknown rule \"tolerate-everything\"; did you mean \
                 \"tolerates-everything\"?",
                ".taintlint.yaml:5:15: rules.null-value: invalid severity \"no\": expected \
                 error, warning, info, hint or off",
                ".taintlint.yaml:6:22: rules.equal-empty-value: expected a string, found a list",
                ".taintlint.yaml:8:39: feature-gates.TaintTolerationComparisonOperators: \
                 expected true or false, found \"yes\"",
                ".taintlint.yaml:9:3: feature-gates.Nope: unrecognized feature gate: Nope \
                 (taintlint knows: TaintTolerationComparisonOperators)",
                ".taintlint.yaml:11:11: admission-plugins.enable: expected a list of strings, \
                 found a scalar",
                ".taintlint.yaml:12:13: admission-plugins.disable: admission plugin \"Nope\" is \
                 unknown to kube-apiserver (known: AlwaysAdmit, AlwaysDeny, AlwaysPullImages, \
                 CertificateApproval, CertificateSigning, CertificateSubjectRestriction, \
                 ClusterTrustBundleAttest, DefaultIngressClass, DefaultStorageClass, \
                 DefaultTolerationSeconds, DenyServiceExternalIPs, EventRateLimit, \
                 ExtendedResourceToleration, ImagePolicyWebhook, \
                 LimitPodHardAntiAffinityTopology, LimitRanger, MutatingAdmissionPolicy, \
                 MutatingAdmissionWebhook, NamespaceAutoProvision, NamespaceExists, \
                 NamespaceLifecycle, NodeRestriction, OwnerReferencesPermissionEnforcement, \
                 PersistentVolumeClaimResize, PodNodeSelector, PodSecurity, \
                 PodTolerationRestriction, PodTopologyLabels, Priority, ResourceQuota, \
                 RuntimeClass, ServiceAccount, StorageObjectInUseProtection, \
                 TaintNodesByCondition, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook)",
                ".taintlint.yaml:13:3: unknown key \"both\" in admission-plugins (known keys: \
                 enable, disable)",
                ".taintlint.yaml:14:11: include: invalid glob \"[\": unclosed character class; \
                 missing ']'",
                ".taintlint.yaml:16:12: per-path-ignores.a/**: unknown rule \"nul-value\"; did \
                 you mean \"null-value\"?",
                ".taintlint.yaml:17:12: inventory: expected a list of strings, found a mapping",
            ]
        );
    }

    #[test]
    fn structural_errors() {
        assert_eq!(
            errors("rules: [a\n"),
            [".taintlint.yaml:1:8: not valid YAML: unclosed bracket '['"]
        );
        assert_eq!(
            errors("rules: {}\n---\nrules: {}\n"),
            [".taintlint.yaml:2:1: a configuration file holds one YAML document"]
        );
        assert_eq!(
            errors("- rules\n"),
            [".taintlint.yaml:1:1: the configuration: expected a mapping, found a list"]
        );
        assert_eq!(
            errors("rules: {}\nrules: {}\n"),
            [".taintlint.yaml:2:1: the configuration: duplicate key \"rules\""]
        );
    }

    #[test]
    fn paths_outside_match_by_name() {
        let c = ok("exclude: ['*.gen.yaml']\n");
        assert!(c.is_excluded(Path::new("/elsewhere/x.gen.yaml")));
        assert!(!c.is_excluded(Path::new("/elsewhere/x.yaml")));
        assert_eq!(
            c.relative(Path::new("/p/./a/../b/c.yaml")).as_deref(),
            Some("b/c.yaml")
        );
    }

    /// The working directory found once answers as the system's answers on every call, for
    /// relative and absolute paths on both sides, and a changed `dir` is taken into account.
    #[test]
    fn relative_paths_agree_with_the_working_directory() {
        let cwd = std::env::current_dir().unwrap();
        let mut c = ConfigFile {
            dir: PathBuf::from("sub/../charts"),
            ..ConfigFile::default()
        };
        assert_eq!(
            c.relative(Path::new("./charts/web/values.yaml")).as_deref(),
            Some("web/values.yaml")
        );
        assert_eq!(
            c.relative(&cwd.join("charts/x.yaml")).as_deref(),
            Some("x.yaml")
        );
        assert_eq!(c.relative(Path::new("other/x.yaml")), None);
        c.dir = cwd.join("other");
        assert_eq!(
            c.relative(Path::new("other/deep/x.yaml")).as_deref(),
            Some("deep/x.yaml")
        );
        assert_eq!(c.relative(Path::new("charts/x.yaml")), None);
    }
}
