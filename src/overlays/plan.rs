//! Which kustomizations are rendered, and how: the one decision `lint` and `simulate` make for
//! every overlay ([`plan`]), and the refusals an inventory's kustomize directory meets too
//! ([`refusal`]). It lives in the library, beside the language server, for every edge that
//! renders.
//!
//! The candidates are a directory named on the command line that holds a kustomization, and,
//! in a directory walk, each kustomization no other one in the walk builds on (the overlays,
//! not their bases; a `kind: Component` only through its users). For each, the files kustomize
//! would read (its closure: the kustomizations it builds on, their resources, patches,
//! generator sources and other files) are found from the kustomization files alone, and:
//!
//! - one that needs a remote base is not rendered unless the configuration says
//!   `kustomize: {remote: true}` (kustomize would fetch it);
//! - one that inflates Helm charts is not rendered: kustomize runs helm only with
//!   `--enable-helm`, which taintlint never passes;
//! - one that reads a file outside its kustomization's directory is not rendered under
//!   kustomize's own load restrictor (kustomize refuses it) unless the configuration says
//!   `kustomize: {load-restrictor: none}`;
//! - one whose closure holds no pod template, toleration or taint is not rendered: no finding
//!   can come of it;
//! - one that changes nothing such a finding reads (no patch that can write a pod template, a
//!   toleration or a taint, no other transformer, no new names or namespace) and whose files
//!   that hold one are all linted on their own is not rendered: its findings are theirs;
//! - an overlay that only builds on one kustomization and changes nothing is rendered as that
//!   one, once, however many overlays share it.
//!
//! Everything else is rendered, once per distinct directory.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::config_file::{ConfigFile, Kustomize, LoadRestrictor};
use crate::inventory::kustomize::{Kustomization, KUSTOMIZATION_FILES};
use crate::k8s::workloads::CUSTOM_WORKLOADS;

/// How overlays are rendered: the tool, and what kustomize may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Settings {
    pub tool: Kustomize,
    /// Whether remote bases may be fetched (`kustomize: {remote: true}`).
    pub remote: bool,
    pub load_restrictor: LoadRestrictor,
}

impl Settings {
    /// The flag's tool, else the first configuration's that names one; the first configuration
    /// that says whether remote bases are fetched and which load restrictor applies.
    pub fn of<'c>(flag: Option<&str>, configs: impl IntoIterator<Item = &'c ConfigFile>) -> Self {
        let mut tool = flag.and_then(Kustomize::parse);
        let mut remote = None;
        let mut load_restrictor = None;
        for c in configs {
            tool = tool.or(c.kustomize);
            remote = remote.or(c.kustomize_remote);
            load_restrictor = load_restrictor.or(c.load_restrictor);
        }
        Settings {
            tool: tool.unwrap_or_default(),
            remote: remote.unwrap_or(false),
            load_restrictor: load_restrictor.unwrap_or_default(),
        }
    }
}

/// What the face that renders reads of a render: what decides whether a render can change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Tolerations and taints only: `lint` without an inventory or a toleration policy, whose
    /// findings without a cluster are about the lists themselves.
    Tolerations,
    /// Where workloads can run: their pod templates whole, names and namespaces (`simulate`,
    /// and `lint` with an inventory or a toleration policy).
    Placement,
}

/// Why a candidate is not rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip {
    /// It needs these remote bases, and remote bases are not fetched.
    Remote(Vec<String>),
    /// It inflates Helm charts (in this kustomization file).
    Helm(PathBuf),
    /// It reads these files outside their kustomization's directory (kustomization file,
    /// path as written), which kustomize's load restrictor refuses.
    Outside(Vec<(PathBuf, String)>),
    /// Its closure holds no pod template, toleration or taint.
    Nothing,
    /// It changes nothing a finding reads, and its files are linted on their own.
    Sources,
    /// It builds on itself (a kustomization that names one it is built from).
    Cycle,
}

impl Skip {
    /// Why, in words, for `--show-skipped`.
    pub fn reason(&self) -> String {
        match self {
            Skip::Remote(bases) => format!(
                "needs the remote base{} {} (`kustomize: {{remote: true}}` fetches remote bases)",
                if bases.len() == 1 { "" } else { "s" },
                bases.join(", ")
            ),
            Skip::Helm(file) => format!(
                "{} inflates Helm charts (`helmCharts`), which needs kustomize's --enable-helm: \
                 taintlint does not run helm",
                file.display()
            ),
            Skip::Outside(files) => {
                let named: Vec<String> = files
                    .iter()
                    .map(|(k, p)| format!("{p} (named in {})", k.display()))
                    .collect();
                format!(
                    "reads {} outside its kustomization's directory, which kustomize's load \
                     restrictor refuses (`kustomize: {{load-restrictor: none}}` allows it)",
                    named.join(", ")
                )
            }
            Skip::Nothing => "holds nothing a finding could be about (no toleration or taint; \
                              no pod template, when there is an inventory)"
                .to_string(),
            Skip::Sources => {
                "changes no pod template, toleration or taint: its files are linted as they are"
                    .to_string()
            }
            Skip::Cycle => "builds on itself".to_string(),
        }
    }
}

/// What is decided for one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Rendered: the render at this index of [`Plan::renders`].
    Render(usize),
    Skip(Skip),
}

/// One kustomization to render.
#[derive(Debug, Clone)]
pub struct Render {
    /// Its directory as shown (from a candidate's path as given).
    pub dir: PathBuf,
    /// Its directory, canonical.
    pub canonical: PathBuf,
    /// Its kustomization file, as shown.
    pub kustomization: PathBuf,
    /// The files kustomize reads for it, canonical and sorted, with their text (`None` for a
    /// path named that is not there): what the cache key is made of.
    pub closure: Vec<(PathBuf, Option<Arc<[u8]>>)>,
    /// The canonical directories of the kustomizations it builds on, its own included.
    pub layers: Vec<PathBuf>,
    /// Whether it needs remote bases (fetched: its render is never cached).
    pub remote: bool,
}

/// The decision for every candidate.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Each candidate (its directory as given) and what is done with it.
    pub overlays: Vec<(PathBuf, Decision)>,
    pub renders: Vec<Render>,
}

/// The kustomization file of a directory, if it has one.
pub fn kustomization_in(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|f| dir.join(f))
        .find(|f| f.is_file())
}

/// Canonical paths, each directory's found once: a repository's kustomizations and the files
/// they name share their directories, and `std::fs::canonicalize` asks the file system about
/// every component of every path (thousands of calls for a GitOps repository of a hundred
/// kustomizations). A path whose last component is a plain name and no symbolic link is its
/// directory's canonical path joined with that name; any other is canonicalized whole.
#[derive(Debug, Default)]
pub struct Canonical {
    known: HashMap<PathBuf, Option<PathBuf>>,
}

impl Canonical {
    pub fn of(&mut self, path: &Path) -> Option<PathBuf> {
        if let Some(known) = self.known.get(path) {
            return known.clone();
        }
        let found = match (path.parent(), path.components().next_back()) {
            (Some(parent), Some(Component::Normal(name))) if !parent.as_os_str().is_empty() => {
                match std::fs::symlink_metadata(path) {
                    Ok(m) if !m.file_type().is_symlink() => self.of(parent).map(|p| p.join(name)),
                    Ok(_) => std::fs::canonicalize(path).ok(),
                    Err(_) => None,
                }
            }
            _ => std::fs::canonicalize(path).ok(),
        };
        self.known.insert(path.to_path_buf(), found.clone());
        found
    }
}

/// The canonical paths of these files (those that are there).
pub fn canonical_set<'a>(paths: impl IntoIterator<Item = &'a Path>) -> HashSet<PathBuf> {
    let mut canonical = Canonical::default();
    paths.into_iter().filter_map(|p| canonical.of(p)).collect()
}

/// Words whose absence from a file means it holds no pod template, toleration or taint: a
/// toleration or taint list under any name (`agent_tolerations`, `startupTaints`), a pod
/// spec's `containers`, and the custom resources whose pod fields lie inline.
pub fn may_matter(text: &str) -> bool {
    if holds_tolerations(text) || text.contains("containers") || text.contains("Containers") {
        return true;
    }
    // `kind: Prometheus` and the other kinds of the workloads table.
    let mut rest = text;
    while let Some(i) = rest.find("kind:") {
        rest = &rest[i + 5..];
        let word: &str = rest
            .trim_start_matches([' ', '"', '\''])
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or_default();
        // Its group written too: Knative's `Service` is no core Service.
        if CUSTOM_WORKLOADS
            .iter()
            .any(|w| w.kinds.contains(&word) && text.contains(w.group))
        {
            return true;
        }
    }
    false
}

/// Whether a text may hold a toleration or a taint (any list whose key ends so, the deprecated
/// annotations), in any case.
pub fn holds_tolerations(text: &str) -> bool {
    const WORDS: &[&str] = &[
        "toleration",
        "Toleration",
        "TOLERATION",
        "taint",
        "Taint",
        "TAINT",
    ];
    WORDS
        .iter()
        .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some())
}

impl Reads {
    /// Whether a file of an overlay may hold what this face reads, its
    /// CustomResourceDefinitions left out: their schemas describe tolerations and taints
    /// without holding any (an operator's install overlay is mostly definitions).
    fn matters(self, text: &str) -> bool {
        let one = |doc: &str| match self {
            Reads::Tolerations => holds_tolerations(doc),
            Reads::Placement => may_matter(doc),
        };
        if !text.contains("CustomResourceDefinition") {
            return one(text);
        }
        text.split("\n---")
            .filter(|doc| !is_definition(doc))
            .any(one)
    }

    /// Whether a patch can change what this face reads.
    fn patch_matters(self, text: &str) -> bool {
        match self {
            Reads::Tolerations => holds_tolerations(text),
            Reads::Placement => patch_matters(text),
        }
    }
}

/// Whether a document (of a file split at its `---` lines) is a CustomResourceDefinition.
fn is_definition(doc: &str) -> bool {
    doc.contains("apiextensions.k8s.io/")
        && doc
            .lines()
            .any(|l| l.trim_end() == "kind: CustomResourceDefinition")
}

/// Whether a patch can write a pod template, a toleration or a taint, or rename or move the
/// object it patches.
fn patch_matters(text: &str) -> bool {
    const WORDS: &[&str] = &[
        "template",
        "containers",
        "nodeselector",
        "affinity",
        "nodename",
        "runtimeclass",
        "resources",
        "/spec",
        "/metadata/name",
        "/metadata/namespace",
        "/kind",
    ];
    may_matter(text) || WORDS.iter().any(|w| contains_ignoring_case(text, w))
}

fn contains_ignoring_case(text: &str, word: &str) -> bool {
    let word = word.as_bytes();
    text.as_bytes()
        .windows(word.len())
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// The documents of a rendered stream that may hold what a face reads: those that may hold a
/// pod template, a toleration or a taint, but CustomResourceDefinitions (whose schemas
/// describe tolerations without holding any, and are most of what an overlay renders). The
/// documents are kustomize's, one after each `---` line.
pub fn documents_that_matter(rendered: &str) -> String {
    let mut out = String::with_capacity(rendered.len() / 4);
    for doc in rendered.split("\n---\n") {
        let crd = doc.starts_with("apiVersion: apiextensions.k8s.io/")
            && doc.contains("\nkind: CustomResourceDefinition\n");
        if crd || !may_matter(doc) {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n---\n");
        }
        out.push_str(doc);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// One kustomization as read from disk.
#[derive(Debug)]
struct Layer {
    file: PathBuf,
    text: Arc<[u8]>,
    k: Kustomization,
    /// Directories it builds on (resources, bases), canonical.
    bases: Vec<PathBuf>,
    /// Its components and the directories that make its plugin configurations, canonical.
    components: Vec<PathBuf>,
    /// Files it reads, canonical (the kustomization file apart).
    files: Vec<PathBuf>,
    /// Paths named that are not there (as joined to its directory, not canonical).
    missing: Vec<PathBuf>,
    /// Files named outside its directory, as written.
    outside: Vec<String>,
    /// Whether its own patches, plugins, literals or names change what a finding reads.
    changes: bool,
}

/// Reads files once for the whole plan.
struct Reader {
    reads: Reads,
    canonical: Canonical,
    texts: HashMap<PathBuf, Option<Arc<[u8]>>>,
    layers: HashMap<PathBuf, Option<Arc<Layer>>>,
}

impl Reader {
    fn new(reads: Reads) -> Reader {
        Reader {
            reads,
            canonical: Canonical::default(),
            texts: HashMap::new(),
            layers: HashMap::new(),
        }
    }
}

impl Reader {
    fn text(&mut self, path: &Path) -> Option<Arc<[u8]>> {
        self.texts
            .entry(path.to_path_buf())
            .or_insert_with(|| std::fs::read(path).ok().map(Arc::from))
            .clone()
    }

    /// The kustomization of a canonical directory.
    fn layer(&mut self, dir: &Path) -> Option<Arc<Layer>> {
        if let Some(l) = self.layers.get(dir) {
            return l.clone();
        }
        let layer = self.read_layer(dir).map(Arc::new);
        self.layers.insert(dir.to_path_buf(), layer.clone());
        layer
    }

    fn read_layer(&mut self, dir: &Path) -> Option<Layer> {
        let file = kustomization_in(dir)?;
        let text = self.text(&file)?;
        let source = String::from_utf8_lossy(&text).into_owned();
        let k = Kustomization::read(&source, &|p| dir.join(p).exists());
        let mut layer = Layer {
            file,
            text,
            bases: Vec::new(),
            components: Vec::new(),
            files: Vec::new(),
            missing: Vec::new(),
            outside: Vec::new(),
            changes: k.plugins
                || ((k.renames || k.vars) && self.reads == Reads::Placement)
                || k.inline_patches.iter().any(|p| self.reads.patch_matters(p))
                || k.replacements.iter().any(|r| self.reads.patch_matters(r))
                || k.literals.iter().any(|l| self.reads.matters(l)),
            k,
        };
        let inside = |p: &Path| p.starts_with(dir);
        for r in &layer.k.resources {
            let joined = dir.join(r);
            match self.canonical.of(&joined).ok_or(()) {
                Ok(c) if c.is_dir() => layer.bases.push(c),
                Ok(c) => {
                    if !inside(&c) {
                        layer.outside.push(r.clone());
                    }
                    layer.files.push(c);
                }
                Err(_) => layer.missing.push(joined),
            }
        }
        for r in layer.k.components.iter().chain(&layer.k.plugin_entries) {
            let joined = dir.join(r);
            match self.canonical.of(&joined).ok_or(()) {
                Ok(c) if c.is_dir() => layer.components.push(c),
                Ok(c) => {
                    if !inside(&c) {
                        layer.outside.push(r.clone());
                    }
                    layer.files.push(c);
                }
                Err(_) => layer.missing.push(joined),
            }
        }
        for f in &layer.k.files {
            let joined = dir.join(f);
            match self.canonical.of(&joined).ok_or(()) {
                Ok(c) => {
                    if !inside(&c) {
                        layer.outside.push(f.clone());
                    }
                    if c.is_dir() {
                        // A chart's home: every file below it.
                        for entry in ignore::WalkBuilder::new(&c)
                            .standard_filters(false)
                            .build()
                            .flatten()
                        {
                            if entry.file_type().is_some_and(|t| t.is_file()) {
                                layer.files.push(entry.into_path());
                            }
                        }
                    } else {
                        layer.files.push(c);
                    }
                }
                Err(_) => layer.missing.push(joined),
            }
        }
        // Patches and replacements that a file holds.
        let patch_files: Vec<PathBuf> = layer
            .k
            .patch_files
            .iter()
            .map(|(p, _)| p)
            .chain(&layer.k.replacement_files)
            .map(|p| dir.join(p))
            .collect::<Vec<PathBuf>>()
            .into_iter()
            .filter_map(|p| self.canonical.of(&p))
            .collect();
        for p in patch_files {
            if let Some(text) = self.text(&p) {
                if self.reads.patch_matters(&String::from_utf8_lossy(&text)) {
                    layer.changes = true;
                }
            }
        }
        // Any other string of the kustomization that names a file of its directory is read
        // for the key too: a field this reading does not know may make kustomize read it.
        for name in scalars(&source) {
            if name.len() > 1024 || name.contains('\n') || name.contains("://") {
                continue;
            }
            let joined = dir.join(&name);
            if joined.is_file() {
                if let Some(c) = self.canonical.of(&joined) {
                    if c.starts_with(dir) && c != layer.file && !layer.files.contains(&c) {
                        layer.files.push(c);
                    }
                }
            }
        }
        Some(layer)
    }
}

/// Every scalar of a YAML text.
fn scalars(text: &str) -> Vec<String> {
    let stream = crate::syntax::parse(text);
    let mut out = Vec::new();
    for doc in &stream.documents {
        let Some(root) = doc.root else { continue };
        let mut stack = vec![root];
        let mut seen = 0;
        while let Some(n) = stack.pop() {
            seen += 1;
            if seen > 100_000 {
                break;
            }
            if let Some((v, _)) = doc.scalar(n) {
                out.push(v.to_string());
            } else if let Some(entries) = doc.mapping(n) {
                stack.extend(entries.iter().map(|&(_, v)| v));
            } else if let Some(items) = doc.sequence(n) {
                stack.extend(items.iter().copied());
            }
        }
    }
    out
}

/// The candidates: the directories named that hold a kustomization (not a component), then each
/// kustomization a walk found (`walked` files, their paths as the walk gives them) that no
/// other one found builds on.
pub fn candidates<'a>(
    named: &[PathBuf],
    files: impl IntoIterator<Item = (&'a Path, bool)>,
) -> Vec<PathBuf> {
    let read = |file: &Path| {
        let dir = file.parent().unwrap_or(Path::new("."));
        let text = std::fs::read_to_string(file).ok()?;
        Some(Kustomization::read(&text, &|p| dir.join(p).exists()))
    };
    let component = |file: &Path| read(file).is_some_and(|k| k.component);
    let mut out: Vec<PathBuf> = named
        .iter()
        .filter(|p| p.is_dir() && kustomization_in(p).is_some_and(|k| !component(&k)))
        .cloned()
        .collect();
    let mut canonical = Canonical::default();
    let mut found: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut built_on: HashSet<PathBuf> = HashSet::new();
    for (file, walked) in files {
        let is_kustomization = file
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| KUSTOMIZATION_FILES.contains(&n));
        if !is_kustomization {
            continue;
        }
        let Some(k) = read(file) else {
            continue;
        };
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        for r in k.resources.iter().chain(&k.components) {
            if let Some(c) = canonical.of(&dir.join(r)) {
                built_on.insert(c);
            }
        }
        if walked && !k.component {
            if let Some(c) = canonical.of(&dir) {
                found.push((dir, c));
            }
        }
    }
    let named_canonical: HashSet<PathBuf> = out.iter().filter_map(|p| canonical.of(p)).collect();
    for (dir, canonical) in found {
        if !built_on.contains(&canonical) && !named_canonical.contains(&canonical) {
            out.push(dir);
        }
    }
    out
}

/// What is found of a candidate's closure.
#[derive(Default)]
struct Closure {
    layers: Vec<Arc<Layer>>,
    dirs: Vec<PathBuf>,
    cycle: bool,
}

fn closure(reader: &mut Reader, dir: &Path) -> Closure {
    let mut out = Closure::default();
    let mut path: Vec<PathBuf> = Vec::new();
    visit(reader, dir, &mut out, &mut path);
    out
}

fn visit(reader: &mut Reader, dir: &Path, out: &mut Closure, path: &mut Vec<PathBuf>) {
    if path.iter().any(|p| p == dir) {
        out.cycle = true;
        return;
    }
    if out.dirs.iter().any(|d| d == dir) {
        return;
    }
    out.dirs.push(dir.to_path_buf());
    let Some(layer) = reader.layer(dir) else {
        return;
    };
    out.layers.push(layer.clone());
    path.push(dir.to_path_buf());
    for next in layer.bases.iter().chain(&layer.components) {
        visit(reader, next, out, path);
    }
    path.pop();
}

/// Decides, for every candidate, whether and as what it is rendered. `walked` holds the
/// canonical paths of the files linted (or simulated) on their own; `reads` is what the face
/// reads of a render.
pub fn plan(
    candidates: &[PathBuf],
    walked: &HashSet<PathBuf>,
    settings: &Settings,
    reads: Reads,
) -> Plan {
    let mut reader = Reader::new(reads);
    let mut plan = Plan::default();
    let mut by_dir: HashMap<PathBuf, usize> = HashMap::new();
    for given in candidates {
        let Ok(canonical) = std::fs::canonicalize(given) else {
            continue;
        };
        let found = closure(&mut reader, &canonical);
        let decision = decide(
            &mut reader,
            given,
            &canonical,
            &found,
            walked,
            settings,
            &mut plan,
            &mut by_dir,
        );
        plan.overlays.push((given.clone(), decision));
    }
    plan
}

/// Why kustomize must not render the kustomization in `dir` (canonical) under these settings,
/// if it must not: it builds on itself, needs a remote base that is not to be fetched, inflates
/// Helm charts, or reads a file outside its directory under kustomize's own load restrictor.
/// `given` is the directory as shown. Every render, an inventory's too, asks this first.
pub fn refusal(given: &Path, dir: &Path, settings: &Settings) -> Option<Skip> {
    let mut reader = Reader::new(Reads::Placement);
    let found = closure(&mut reader, dir);
    refused(given, dir, &found, settings)
}

fn refused(given: &Path, canonical: &Path, found: &Closure, settings: &Settings) -> Option<Skip> {
    if found.cycle {
        return Some(Skip::Cycle);
    }
    let mut remote: Vec<String> = Vec::new();
    for r in found.layers.iter().flat_map(|l| l.k.remote.iter()) {
        if !remote.contains(r) {
            remote.push(r.clone());
        }
    }
    if !remote.is_empty() && !settings.remote {
        return Some(Skip::Remote(remote));
    }
    if let Some(l) = found.layers.iter().find(|l| l.k.helm) {
        return Some(Skip::Helm(shown(given, canonical, &l.file)));
    }
    if settings.load_restrictor == LoadRestrictor::RootOnly {
        let outside: Vec<(PathBuf, String)> = found
            .layers
            .iter()
            .flat_map(|l| {
                l.outside
                    .iter()
                    .map(|p| (shown(given, canonical, &l.file), p.clone()))
            })
            .collect();
        if !outside.is_empty() {
            return Some(Skip::Outside(outside));
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn decide(
    reader: &mut Reader,
    given: &Path,
    canonical: &Path,
    found: &Closure,
    walked: &HashSet<PathBuf>,
    settings: &Settings,
    plan: &mut Plan,
    by_dir: &mut HashMap<PathBuf, usize>,
) -> Decision {
    if let Some(skip) = refused(given, canonical, found, settings) {
        return Decision::Skip(skip);
    }
    let remote = found.layers.iter().any(|l| !l.k.remote.is_empty());
    // The closure's files, each once.
    let mut files: Vec<PathBuf> = found
        .layers
        .iter()
        .flat_map(|l| std::iter::once(l.file.clone()).chain(l.files.iter().cloned()))
        .collect();
    files.sort();
    files.dedup();
    let texts: Vec<Option<Arc<[u8]>>> = files.iter().map(|f| reader.text(f)).collect();
    let reads = reader.reads;
    let matters: Vec<bool> = texts
        .iter()
        .map(|t| {
            t.as_ref()
                .is_some_and(|t| reads.matters(&String::from_utf8_lossy(t)))
        })
        .collect();
    if !matters.iter().any(|&m| m) {
        return Decision::Skip(Skip::Nothing);
    }
    let changes = found.layers.iter().any(|l| l.changes);
    let unwalked = files
        .iter()
        .zip(&matters)
        .any(|(f, &m)| m && !walked.contains(f));
    if !changes && !unwalked {
        return Decision::Skip(Skip::Sources);
    }
    // An overlay that builds on one kustomization and changes nothing a finding reads (its
    // own files and components included) renders what that one renders: it is that one.
    let mut at = canonical.to_path_buf();
    while let Some(layer) = reader.layer(&at) {
        let passes = layer.bases.len() == 1
            && layer.missing.is_empty()
            && unchanging(reader, &layer, walked)
            && reader
                .layer(&layer.bases[0])
                .is_some_and(|b| !b.k.component)
            && layer.components.iter().all(|c| {
                let found = closure(reader, c);
                !found.cycle
                    && found.layers.len() == found.dirs.len()
                    && found.layers.iter().all(|l| unchanging(reader, l, walked))
            });
        if !passes {
            break;
        }
        at = layer.bases[0].clone();
    }
    if let Some(&i) = by_dir.get(&at) {
        return Decision::Render(i);
    }
    let dir = shown(given, canonical, &at);
    let closure = render_closure(reader, &at);
    let layers = closure_dirs(reader, &at);
    let file = reader
        .layer(&at)
        .map(|l| shown(given, canonical, &l.file))
        .unwrap_or_else(|| dir.join("kustomization.yaml"));
    plan.renders.push(Render {
        dir,
        canonical: at.clone(),
        kustomization: file,
        closure,
        layers,
        remote,
    });
    by_dir.insert(at, plan.renders.len() - 1);
    Decision::Render(plan.renders.len() - 1)
}

/// Whether a kustomization changes nothing a finding reads, and every file of its own that may
/// hold something is linted on its own.
fn unchanging(reader: &mut Reader, layer: &Layer, walked: &HashSet<PathBuf>) -> bool {
    let reads = reader.reads;
    !layer.changes
        && layer.files.iter().all(|f| {
            walked.contains(f)
                || !reader
                    .text(f)
                    .is_some_and(|t| reads.matters(&String::from_utf8_lossy(&t)))
        })
}

fn closure_dirs(reader: &mut Reader, dir: &Path) -> Vec<PathBuf> {
    closure(reader, dir).dirs
}

/// The files kustomize reads for the kustomization in `dir`, with their bytes, and the paths
/// named that are not there.
fn render_closure(reader: &mut Reader, dir: &Path) -> Vec<(PathBuf, Option<Arc<[u8]>>)> {
    let found = closure(reader, dir);
    let mut out: Vec<(PathBuf, Option<Arc<[u8]>>)> = Vec::new();
    for l in &found.layers {
        out.push((l.file.clone(), Some(l.text.clone())));
        for f in &l.files {
            let text = reader.text(f);
            out.push((f.clone(), text));
        }
        for m in &l.missing {
            out.push((m.clone(), None));
        }
    }
    // A directory named that has no kustomization yet.
    for d in &found.dirs {
        if kustomization_in(d).is_none() {
            out.push((d.join("kustomization.yaml"), None));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// A canonical path as the candidate's path as given names it: `given` joined with the path
/// from `canonical` (the candidate's) to it.
fn shown(given: &Path, canonical: &Path, path: &Path) -> PathBuf {
    normalize(&given.join(relative(canonical, path)))
}

/// `to` relative to `from` (both absolute and canonical).
pub fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c.as_os_str());
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `path` with `.` and `..` taken out without asking the file system (a leading `./` kept).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    let mut leading_dot = false;
    for (i, c) in path.components().enumerate() {
        match c {
            Component::CurDir => leading_dot |= i == 0,
            Component::ParentDir => {
                let up = out.as_os_str().is_empty()
                    || out.components().next_back() == Some(Component::ParentDir);
                if up {
                    out.push("..");
                } else {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if leading_dot && out.is_relative() && !out.starts_with("..") {
        return Path::new(".").join(out);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each path as `std::fs::canonicalize` gives it: through a linked directory or file, up
    /// with `..`, from the working directory; none for a path that is not there.
    #[test]
    fn canonical_paths_are_the_file_systems() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("base/sub")).unwrap();
        std::fs::write(root.join("base/a.yaml"), "a").unwrap();
        std::os::unix::fs::symlink(root.join("base"), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(root.join("base/a.yaml"), root.join("b.yaml")).unwrap();
        let mut canonical = Canonical::default();
        for p in [
            "base/a.yaml",
            "linked/a.yaml",
            "b.yaml",
            "base/sub/../a.yaml",
            "linked/sub/..",
            "base/missing.yaml",
            "missing/a.yaml",
        ] {
            let path = root.join(p);
            assert_eq!(
                canonical.of(&path),
                std::fs::canonicalize(&path).ok(),
                "{p}"
            );
        }
        assert_eq!(
            canonical.of(&root.join("linked/a.yaml")),
            Some(root.join("base/a.yaml"))
        );
        assert_eq!(
            canonical.of(Path::new(".")),
            std::fs::canonicalize(".").ok()
        );
    }

    #[test]
    fn words_that_may_matter() {
        assert!(may_matter("spec:\n  agent_Tolerations: []\n"));
        assert!(may_matter("spec:\n  startupTaints: []\n"));
        assert!(may_matter(
            "spec:\n  template:\n    spec:\n      containers: []\n"
        ));
        assert!(may_matter(
            "apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\n"
        ));
        assert!(!may_matter("kind: ConfigMap\ndata: {a: b}\n"));
        assert!(!may_matter("kind: Service\nmetadata: {name: maintainer}\n"));
        assert!(!holds_tolerations(
            "topologySpreadConstraints: []\ncontainers: []\n"
        ));
        assert!(holds_tolerations("spec:\n  startupTaints: []\n"));
        let definition = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
                          spec:\n  tolerations: {type: array}\n";
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    \
                          spec:\n      containers: []\n";
        for reads in [Reads::Tolerations, Reads::Placement] {
            assert!(!reads.matters(definition));
            assert!(!reads.matters(&format!("---\n{definition}---\n{definition}")));
            assert!(reads.matters("kind: Pod\nspec:\n  tolerations: []\n"));
            assert!(reads.matters(&format!(
                "{definition}---\nkind: Pod\nspec:\n  tolerations: []\n"
            )));
        }
        // A Deployment beside definitions matters to placements, not to tolerations alone.
        let both = format!("{definition}---\n{deployment}");
        assert!(!Reads::Tolerations.matters(&both));
        assert!(Reads::Placement.matters(&both));
        // Another group's kind of that name is no definition.
        assert!(Reads::Tolerations.matters(
            "apiVersion: example.com/v1\nkind: CustomResourceDefinition\ntolerations: []\n"
        ));
        let rendered = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
                        spec: {tolerations: x}\n---\napiVersion: v1\nkind: Service\n---\n\
                        apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n";
        assert_eq!(
            documents_that_matter(rendered),
            "apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n"
        );
        assert!(patch_matters(
            "- op: replace\n  path: /metadata/name\n  value: x\n"
        ));
        assert!(!patch_matters(
            "- op: replace\n  path: /data/a\n  value: x\n"
        ));
    }

    #[test]
    fn paths_shown_from_the_path_given() {
        assert_eq!(
            shown(
                Path::new("./k/overlays/prod"),
                Path::new("/r/k/overlays/prod"),
                Path::new("/r/k/base/app.yaml")
            ),
            PathBuf::from("./k/base/app.yaml")
        );
        assert_eq!(
            shown(
                Path::new("prod"),
                Path::new("/r/prod"),
                Path::new("/r/base")
            ),
            PathBuf::from("base")
        );
        assert_eq!(
            normalize(Path::new("/tmp/x/../../work/./a")),
            PathBuf::from("/work/a")
        );
        assert_eq!(normalize(Path::new("./k/../x")), PathBuf::from("./x"));
        assert_eq!(normalize(Path::new("../../a")), PathBuf::from("../../a"));
        assert_eq!(normalize(Path::new("./../a")), PathBuf::from("../a"));
        assert_eq!(
            relative(Path::new("/tmp/x"), Path::new("/work/repo/overlays/prod")),
            PathBuf::from("../../work/repo/overlays/prod")
        );
    }
}
