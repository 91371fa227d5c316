//! Rendered kustomize output traced back to the files a person edits.
//!
//! The edge renders an overlay with kustomize's build metadata turned on
//! (`buildMetadata: [originAnnotations, transformerAnnotations]`, kubernetes-sigs/kustomize
//! api/types/kustomization.go `OriginAnnotations`, `TransformerAnnotations`; written by
//! api/resource/origin.go): every rendered object then carries `config.kubernetes.io/origin`
//! (`path:` of the file it was read from) and `alpha.config.kubernetes.io/transformations` (each
//! transformer that changed it, in order, with the kustomization that configured it). Here, each
//! finding of the rendered whole is placed where the field it is on was written:
//!
//! 1. in the last patch that wrote it: the patches of the kustomizations the transformations
//!    name (`patches`, `patchesStrategicMerge`, `patchesJson6902`; files or inline strings), the
//!    latest first, each tried on the object's field path (a strategic-merge patch by the same
//!    path in its document, a JSON6902 patch through an `add`/`replace` whose `path` leads to
//!    the field, then inside its `value`);
//! 2. else in the origin file, at the same path (or the deepest part of it written there).
//!
//! The object is then named as written there (its base name, not the rendered `prod-web`), with
//! a note at the overlay's kustomization: "rendered by overlays/prod as shop/prod-web". A finding
//! whose place cannot be found (an object from a remote base or a generator) lands on the
//! overlay's kustomization file itself. Every place is in a file the caller could read: no
//! finding points into the rendered text. Pure: files are read through the caller's `load`.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Fix, ObjectRef, Related};
use crate::syntax::mapped::MappedString;
use crate::syntax::{self, Document, NodeId};

/// The annotation with the file an object was read from.
pub const ORIGIN: &str = "config.kubernetes.io/origin";
/// The annotation with the transformers that changed an object.
pub const TRANSFORMATIONS: &str = "alpha.config.kubernetes.io/transformations";

/// A file the findings may be traced into: its name as reported, and its text.
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    pub text: Arc<str>,
}

/// The overlay that was rendered: its name as the user gave it (`overlays/prod`) and its
/// kustomization file, where the note "rendered by ..." points.
#[derive(Debug, Clone)]
pub struct Overlay {
    pub name: String,
    pub kustomization: Source,
}

/// A finding of the rendered whole, placed in the file to edit (`file`, a [`Source`] name).
#[derive(Debug, Clone)]
pub struct Traced {
    pub file: String,
    pub diagnostic: Diagnostic,
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Where a path leads in a document: the spans of the key and value of each step taken.
#[derive(Clone)]
pub(crate) struct Steps {
    /// (key span for a mapping step, value span), one per step resolved.
    pub(crate) nodes: Vec<(Option<Range<usize>>, Range<usize>)>,
    /// For each step into a sequence, how many items it has.
    pub(crate) lens: Vec<Option<usize>>,
}

/// A text that holds a patch: a file, or a string inside a kustomization file.
pub(crate) struct Holder {
    file: String,
    inner: String,
    outer: Outer,
}

/// Where the bytes of a holder's text are in its file.
enum Outer {
    /// The text is the file's.
    Same,
    /// A string's bytes, each at its offset in the file (and its end), and the file's text.
    Mapped(MappedString, Arc<str>),
    /// A string whose bytes cannot be placed one by one (a folded block): its whole span.
    Whole(Range<usize>),
}

impl Holder {
    pub(crate) fn file(source: &Source) -> Holder {
        Holder {
            file: source.name.clone(),
            inner: source.text.to_string(),
            outer: Outer::Same,
        }
    }

    fn map(&self, r: &Range<usize>) -> Range<usize> {
        match &self.outer {
            Outer::Same => r.clone(),
            Outer::Mapped(mapped, _) => {
                let map = &mapped.map;
                match (map.get(r.start), map.get(r.end)) {
                    (Some(&s), Some(&e)) if s <= e => s..e,
                    _ => map.first().copied().unwrap_or(0)..map.last().copied().unwrap_or(0),
                }
            }
            Outer::Whole(span) => span.clone(),
        }
    }

    /// A fix of the holder's text as a fix of its file, when it can be written there (see
    /// [`MappedString::edit`] and [`MappedString::writes`]); `false` when it cannot.
    fn place_fix(&self, fix: &mut Fix) -> bool {
        let (mapped, text) = match &self.outer {
            Outer::Same => return true,
            Outer::Whole(_) => return false,
            Outer::Mapped(mapped, text) => (mapped, text),
        };
        crate::analysis::outer_fix(text, &self.inner, mapped, fix)
    }

    /// Whether a range of the text is placed exactly in the file.
    fn exact(&self) -> bool {
        !matches!(self.outer, Outer::Whole(_))
    }
}

/// What the rendered object says of itself.
struct Rendered {
    kind: String,
    name: String,
    /// The names it had before patches renamed it (`target.name` of a JSON6902 patch that
    /// replaced `/metadata/name`), latest first: found when its findings are placed.
    earlier: Vec<String>,
    namespace: Option<String>,
    origin: Option<String>,
    /// The remote repository it came from (its origin's `repo`).
    repo: Option<String>,
    /// For a generated object: the kustomization that configured the generator (as kustomize
    /// wrote it) and the generator's kind (`ConfigMapGenerator`, `SecretGenerator`).
    generated: Option<(String, String)>,
    /// The kustomizations whose patches changed it, in the order they were applied.
    patched_in: Vec<String>,
}

/// Places each finding of `rendered` (the overlay's output, linted into `diagnostics`) in the
/// file to edit. `load` reads a file by the path kustomize wrote (relative to the directory it
/// rendered in, or a patch path joined to its kustomization's directory, `/`-separated);
/// `None` when it cannot be read.
pub fn trace(
    rendered: &str,
    diagnostics: Vec<Diagnostic>,
    overlay: &Overlay,
    load: &mut dyn FnMut(&str) -> Option<Source>,
) -> Vec<Traced> {
    let stream = syntax::parse(rendered);
    let mut objects: HashMap<usize, Option<Rendered>> = HashMap::new();
    let mut out = Vec::new();
    for d in diagnostics {
        let Some(doc) = d.document.and_then(|i| stream.documents.get(i)) else {
            out.push(at_overlay(d, overlay, None));
            continue;
        };
        let object = objects.entry(doc.index).or_insert_with(|| {
            let mut o = rendered_object(doc)?;
            o.earlier = earlier_names(&o, load);
            Some(o)
        });
        let Some(object) = object.as_ref() else {
            out.push(at_overlay(d, overlay, None));
            continue;
        };
        match place(rendered, doc, object, d.clone(), load) {
            Some(mut traced) => {
                traced.diagnostic.related.push(note(overlay, object));
                out.push(traced);
            }
            None => out.push(at_overlay(d, overlay, Some(object))),
        }
    }
    out
}

/// "rendered by overlays/prod as shop/prod-web", at the overlay's kustomization.
fn note(overlay: &Overlay, object: &Rendered) -> Related {
    let name = match &object.namespace {
        Some(ns) => format!("{ns}/{}", object.name),
        None => object.name.clone(),
    };
    Related {
        file: Some(overlay.kustomization.name.clone()),
        range: 0..0,
        message: format!("rendered by {} as {} {name}", overlay.name, object.kind),
    }
}

/// A finding whose place is not known: on the overlay's kustomization, at its start.
fn at_overlay(mut d: Diagnostic, overlay: &Overlay, object: Option<&Rendered>) -> Traced {
    d.range = 0..0;
    d.fixes.clear();
    d.related.retain(|r| r.file.is_some());
    d.document = Some(0);
    if let Some(object) = object {
        let why = match (&object.repo, &object.generated) {
            (Some(repo), _) => format!("from the remote base {repo}, which no file here holds"),
            (None, Some((_, by))) => format!("made by a {by} whose source was not found here"),
            (None, None) => "whose place in the files here was not found".to_string(),
        };
        d.message = format!(
            "{} (in {} {} rendered by {}, {why})",
            d.message, object.kind, object.name, overlay.name
        );
    }
    Traced {
        file: overlay.kustomization.name.clone(),
        diagnostic: d,
    }
}

fn rendered_object(doc: &Document<'_>) -> Option<Rendered> {
    let root = doc.root?;
    let kind = doc.get_str(root, "kind")?.to_string();
    let meta = doc.get(root, "metadata")?.1;
    let name = doc.get_str(meta, "name").unwrap_or_default().to_string();
    let namespace = doc.get_str(meta, "namespace").map(str::to_string);
    let annotations = doc.get(meta, "annotations").map(|(_, v)| v);
    let annotation = |key: &str| annotations.and_then(|a| doc.get_str(a, key));
    let mut origin = None;
    let mut repo = None;
    let mut generated = None;
    if let Some(text) = annotation(ORIGIN) {
        let stream = syntax::parse(text);
        if let Some((d, root)) = stream.documents.first().and_then(|d| Some((d, d.root?))) {
            // An object from a remote base names its repository: its file is not here.
            repo = d.get_str(root, "repo").map(str::to_string);
            if repo.is_none() {
                origin = d.get_str(root, "path").map(str::to_string);
            }
            let by = d
                .get(root, "configuredBy")
                .and_then(|(_, v)| d.get_str(v, "kind"));
            if let (Some(k), Some(by)) = (d.get_str(root, "configuredIn"), by) {
                if repo.is_none() {
                    generated = Some((k.to_string(), by.to_string()));
                }
            }
        }
    }
    let mut patched_in = Vec::new();
    if let Some(text) = annotation(TRANSFORMATIONS) {
        let stream = syntax::parse(text);
        if let Some((d, root)) = stream.documents.first().and_then(|d| Some((d, d.root?))) {
            for &item in d.sequence(root).unwrap_or_default() {
                let by = d
                    .get(item, "configuredBy")
                    .and_then(|(_, v)| d.get_str(v, "kind"))
                    .unwrap_or_default();
                if let (true, Some(k)) = (by.contains("Patch"), d.get_str(item, "configuredIn")) {
                    if !patched_in.iter().any(|p| p == k) {
                        patched_in.push(k.to_string());
                    }
                }
            }
        }
    }
    Some(Rendered {
        kind,
        name,
        earlier: Vec::new(),
        namespace,
        origin,
        repo,
        generated,
        patched_in,
    })
}

/// The path of the deepest node of `doc` that holds `range`, and whether the range is on the
/// last step's key rather than its value.
pub(crate) fn path_of(doc: &Document<'_>, root: NodeId, range: &Range<usize>) -> (Vec<Seg>, bool) {
    let inside = |id: NodeId| {
        let s = &doc.node(id).span;
        s.start <= range.start && range.end <= s.end
    };
    let mut path = Vec::new();
    let mut at = root;
    loop {
        let at_resolved = doc.resolve(at);
        if let Some(entries) = doc.mapping(at_resolved) {
            let Some(&(k, v)) = entries.iter().find(|&&(k, v)| inside(k) || inside(v)) else {
                return (path, false);
            };
            let Some((name, _)) = doc.scalar(k) else {
                return (path, false);
            };
            path.push(Seg::Key(name.to_string()));
            if inside(k) {
                return (path, true);
            }
            at = v;
        } else if let Some(items) = doc.sequence(at_resolved) {
            let Some(i) = items.iter().position(|&item| inside(item)) else {
                return (path, false);
            };
            path.push(Seg::Index(i));
            at = items[i];
        } else {
            return (path, false);
        }
    }
}

/// The path of the node a finding is about: the deepest its range lies in (and whether on its
/// key), unless the finding names a node above it that starts where its range does (a
/// toleration as a whole, whose range begins at its first key): that one.
fn named_path(doc: &Document<'_>, root: NodeId, d: &Diagnostic) -> (Vec<Seg>, bool) {
    let (path, on_key) = path_of(doc, root, &d.range);
    let Some(named) = d.path.as_deref() else {
        return (path, on_key);
    };
    let mut shown = String::new();
    for (k, seg) in path.iter().enumerate() {
        match seg {
            Seg::Key(key) if shown.is_empty() => shown.push_str(key),
            Seg::Key(key) => {
                shown.push('.');
                shown.push_str(key);
            }
            Seg::Index(i) => shown.push_str(&format!("[{i}]")),
        }
        if shown.len() >= named.len() {
            let starts_here = follow(doc, root, &path[..=k])
                .nodes
                .last()
                .is_some_and(|(_, v)| v.start == d.range.start && d.range.end <= v.end);
            if shown == named && k + 1 < path.len() && starts_here {
                return (path[..=k].to_vec(), false);
            }
            break;
        }
    }
    (path, on_key)
}

/// Follows `path` from `node` as far as it goes.
pub(crate) fn follow(doc: &Document<'_>, node: NodeId, path: &[Seg]) -> Steps {
    let mut nodes = Vec::new();
    let mut lens = Vec::new();
    let mut at = node;
    for seg in path {
        let next = match seg {
            Seg::Key(k) => doc.get(at, k).map(|(k, v)| (Some(k), v)),
            Seg::Index(i) => doc.sequence(at).and_then(|s| s.get(*i)).map(|&v| (None, v)),
        };
        lens.push(doc.sequence(at).map(<[NodeId]>::len));
        let Some((k, v)) = next else { break };
        nodes.push((
            k.map(|k| doc.node(k).span.clone()),
            doc.node(v).span.clone(),
        ));
        at = v;
    }
    lens.truncate(nodes.len());
    Steps { nodes, lens }
}

/// Where a finding goes: in the last patch that wrote its field, else in its origin file.
fn place(
    rendered: &str,
    doc: &Document<'_>,
    object: &Rendered,
    d: Diagnostic,
    load: &mut dyn FnMut(&str) -> Option<Source>,
) -> Option<Traced> {
    let root = doc.root?;
    let (path, on_key) = named_path(doc, root, &d);
    if let Some((kustomization, by)) = &object.generated {
        return from_generator(rendered, doc, object, &path, kustomization, by, d, load);
    }
    let here = follow(doc, root, &path);
    for kustomization in object.patched_in.iter().rev() {
        let Some(source) = load(kustomization) else {
            continue;
        };
        for (holder, patch) in patches(kustomization, &source, load).into_iter().rev() {
            if let Some(t) = in_patch(rendered, &here, &path, on_key, object, &holder, &patch, &d) {
                return Some(t);
            }
        }
    }
    let origin = load(object.origin.as_deref()?)?;
    let holder = Holder::file(&origin);
    let stream = syntax::parse(&holder.inner);
    let parsed: Vec<&Document<'_>> = stream
        .documents
        .iter()
        .filter(|s| s.error.is_none())
        .collect();
    // The object by its kind and a name it had; else the only one of its kind in the file (a
    // patch renamed it in a way not read here).
    let of_kind: Vec<&Document<'_>> = parsed
        .iter()
        .copied()
        .filter(|s| {
            s.root
                .is_some_and(|r| s.get_str(r, "kind") == Some(object.kind.as_str()))
        })
        .collect();
    let sdoc = parsed
        .iter()
        .copied()
        .filter(|s| same_object(s, object, None))
        .max_by_key(|s| name_of(s).map_or(0, str::len))
        .or_else(|| (of_kind.len() == 1).then(|| of_kind[0]))?;
    let sroot = sdoc.root?;
    let there = follow(sdoc, sroot, &path);
    Some(mapped(
        rendered,
        &here,
        &there,
        on_key && there.nodes.len() == path.len(),
        sdoc,
        &holder,
        d,
    ))
}

/// A patch: its text (file or string), and the target its kustomization entry names.
struct Patch {
    target: Option<(Option<String>, Option<String>)>,
}

/// The patches a kustomization lists, in order, each with its text.
fn patches(
    kustomization: &str,
    source: &Source,
    load: &mut dyn FnMut(&str) -> Option<Source>,
) -> Vec<(Holder, Patch)> {
    let dir = match kustomization.rfind('/') {
        Some(i) => &kustomization[..i],
        None => ".",
    };
    let text = &*source.text;
    let stream = syntax::parse(text);
    let mut out = Vec::new();
    let Some((doc, root)) = stream.documents.first().and_then(|d| Some((d, d.root?))) else {
        return out;
    };
    for entry in crate::inventory::kustomize::patch_entries(doc, root) {
        let Some((value, _)) = doc.scalar(entry.value) else {
            continue;
        };
        let target = entry.target.map(|t| {
            (
                doc.get_str(t, "kind").map(str::to_string),
                doc.get_str(t, "name").map(str::to_string),
            )
        });
        if entry.is_path {
            if let Some(file) = load(&format!("{dir}/{value}")) {
                out.push((Holder::file(&file), Patch { target }));
            }
            continue;
        }
        let span = doc.node(entry.value).span.clone();
        let outer = MappedString::new(doc, text, entry.value).map_or(Outer::Whole(span), |m| {
            Outer::Mapped(m, source.text.clone())
        });
        let holder = Holder {
            file: source.name.clone(),
            inner: value.to_string(),
            outer,
        };
        out.push((holder, Patch { target }));
    }
    out
}

impl Rendered {
    /// Whether a name is the object's, as rendered (`web` in `prod-web`) or before a patch
    /// renamed it.
    fn was_named(&self, name: &str) -> bool {
        self.name.contains(name) || self.earlier.iter().any(|e| e == name)
    }
}

/// The names an object had before the patches of the kustomizations that patched it renamed
/// it: a JSON6902 `replace` or `add` of `/metadata/name` whose value is a name it has, and whose
/// target names the one before.
fn earlier_names(object: &Rendered, load: &mut dyn FnMut(&str) -> Option<Source>) -> Vec<String> {
    let mut names = vec![object.name.clone()];
    for kustomization in object.patched_in.iter().rev() {
        let Some(source) = load(kustomization) else {
            continue;
        };
        for (holder, patch) in patches(kustomization, &source, load).into_iter().rev() {
            let Some((kind, Some(before))) = &patch.target else {
                continue;
            };
            if kind.as_ref().is_some_and(|k| *k != object.kind) {
                continue;
            }
            let stream = syntax::parse(&holder.inner);
            for pdoc in stream.documents.iter().filter(|p| p.error.is_none()) {
                let Some(ops) = pdoc.root.and_then(|r| pdoc.sequence(r)) else {
                    continue;
                };
                for &op in ops {
                    let verb = pdoc.get_str(op, "op").unwrap_or_default();
                    let renames = (verb == "replace" || verb == "add")
                        && pdoc.get_str(op, "path") == Some("/metadata/name");
                    let value = pdoc.get_str(op, "value").unwrap_or_default();
                    if renames
                        && !value.is_empty()
                        && names.iter().any(|n| n.contains(value))
                        && !names.contains(before)
                    {
                        names.push(before.clone());
                    }
                }
            }
        }
    }
    names.remove(0);
    names
}

/// A finding in a generated ConfigMap's or Secret's data, placed in the generator's source: a
/// file of `files` or `envs` (at the same character: kustomize copies the file), or a literal
/// of `literals` (inside the string, in the kustomization); else at the generator's `name`.
#[allow(clippy::too_many_arguments)]
fn from_generator(
    rendered: &str,
    doc: &Document<'_>,
    object: &Rendered,
    path: &[Seg],
    kustomization: &str,
    by: &str,
    mut d: Diagnostic,
    load: &mut dyn FnMut(&str) -> Option<Source>,
) -> Option<Traced> {
    let source = load(kustomization)?;
    let dir = match kustomization.rfind('/') {
        Some(i) => &kustomization[..i],
        None => ".",
    };
    let field = match by {
        "ConfigMapGenerator" => "configMapGenerator",
        "SecretGenerator" => "secretGenerator",
        _ => return None,
    };
    let kstream = syntax::parse(&source.text);
    let kdoc = kstream.documents.iter().find(|k| k.error.is_none())?;
    let kroot = kdoc.root?;
    let (_, list) = kdoc.get(kroot, field)?;
    // The generator whose name the object's holds (the longest: `web` and `web-values`).
    let entry = kdoc
        .sequence(list)
        .unwrap_or_default()
        .iter()
        .copied()
        .filter(|&e| {
            kdoc.get_str(e, "name")
                .is_some_and(|n| object.name.contains(n))
        })
        .max_by_key(|&e| kdoc.get_str(e, "name").map_or(0, str::len))?;
    let key = match path {
        [Seg::Key(data), Seg::Key(key), ..] if data == "data" || data == "binaryData" => {
            Some(key.as_str())
        }
        _ => None,
    };
    let value = (|| {
        let root = doc.root?;
        let (_, data) = doc.get(root, "data")?;
        let (_, v) = doc.get(data, key?)?;
        Some(v)
    })();
    let mapped = value.and_then(|v| MappedString::new(doc, rendered, v));
    let content = value.and_then(|v| doc.scalar(v)).map(|(c, _)| c);
    let object_ref = || ObjectRef {
        kind: Some(object.kind.clone()),
        name: kdoc.get_str(entry, "name").map(str::to_string),
        namespace: None,
    };
    // Offsets of the finding (and its fixes) inside the data value.
    let inside = |r: &Range<usize>| -> Option<Range<usize>> {
        let map = &mapped.as_ref()?.map;
        let start = map.binary_search(&r.start).ok()?;
        let end = map.binary_search(&r.end).ok()?;
        (start <= end).then_some(start..end)
    };
    if let (Some(key), Some(content), Some(range)) = (key, content, inside(&d.range)) {
        // A file of `files` (`key=path`, or a path whose name is the key) or of `envs`.
        for list in ["files", "envs", "env"] {
            let Some((_, items)) = kdoc.get(entry, list) else {
                continue;
            };
            let names: Vec<&str> = match kdoc.sequence(items) {
                Some(items) => items
                    .iter()
                    .filter_map(|&i| kdoc.scalar(i).map(|(v, _)| v))
                    .collect(),
                None => kdoc.scalar(items).map(|(v, _)| v).into_iter().collect(),
            };
            for name in names {
                let file = if list == "files" {
                    match name.split_once('=') {
                        Some((k, p)) if k == key => p,
                        Some(_) => continue,
                        None if name.rsplit('/').next() == Some(key) => name,
                        None => continue,
                    }
                } else {
                    name
                };
                let Some(file) = load(&format!("{dir}/{file}")) else {
                    continue;
                };
                // `envs`: the value after `key=` on its line.
                let offset = if list == "files" {
                    (*file.text == *content).then_some(0)
                } else {
                    file.text
                        .lines()
                        .scan(0, |at, line| {
                            let start = *at;
                            *at += line.len() + 1;
                            Some((start, line))
                        })
                        .find_map(|(start, line)| {
                            let v = line.strip_prefix(key)?.strip_prefix('=')?;
                            (v == content).then_some(start + key.len() + 1)
                        })
                };
                let Some(offset) = offset else { continue };
                let holder = Holder::file(&file);
                let document = syntax::parse(&file.text)
                    .documents
                    .iter()
                    .find(|doc| doc.span.contains(&(offset + range.start)))
                    .map_or(0, |doc| doc.index);
                let mut t = moved_into(d, &holder, offset, range, &inside, object_ref());
                t.diagnostic.document = Some(document);
                return Some(t);
            }
        }
        // A literal `key=value` of the kustomization, inside its string.
        if let Some((_, items)) = kdoc.get(entry, "literals") {
            for &item in kdoc.sequence(items).unwrap_or_default() {
                let Some((literal, _)) = kdoc.scalar(item) else {
                    continue;
                };
                let Some(v) = literal.strip_prefix(key).and_then(|l| l.strip_prefix('=')) else {
                    continue;
                };
                if v != content {
                    continue;
                }
                let Some(m) = MappedString::new(kdoc, &source.text, item) else {
                    break;
                };
                let holder = Holder {
                    file: source.name.clone(),
                    inner: literal.to_string(),
                    outer: Outer::Mapped(m, source.text.clone()),
                };
                let shift = key.len() + 1;
                let mut t = moved_into(d, &holder, shift, range, &inside, object_ref());
                t.diagnostic.document = Some(kdoc.index);
                return Some(t);
            }
        }
    }
    // Its source is not read here: at the generator's name, which made it.
    let (_, name) = kdoc.get(entry, "name")?;
    d.range = kdoc.node(name).span.clone();
    d.fixes.clear();
    d.related.retain(|r| r.file.is_some());
    d.document = Some(kdoc.index);
    d.object = Some(object_ref());
    Some(Traced {
        file: source.name.clone(),
        diagnostic: d,
    })
}

/// A finding inside a generated value (`range`, offsets in the value) moved into the holder's
/// text, where the value starts at `offset`; its fixes with it, when they can be written there.
fn moved_into(
    mut d: Diagnostic,
    holder: &Holder,
    offset: usize,
    range: Range<usize>,
    inside: &dyn Fn(&Range<usize>) -> Option<Range<usize>>,
    object: ObjectRef,
) -> Traced {
    let shift = |r: Range<usize>| r.start + offset..r.end + offset;
    d.range = holder.map(&shift(range));
    d.fixes.retain_mut(|f| {
        for e in &mut f.edits {
            match inside(&e.range) {
                Some(r) => e.range = shift(r),
                None => return false,
            }
        }
        holder.place_fix(f)
    });
    d.related.retain(|r| r.file.is_some());
    d.object = Some(object);
    Traced {
        file: holder.file.clone(),
        diagnostic: d,
    }
}

fn name_of<'d>(doc: &'d Document<'_>) -> Option<&'d str> {
    let root = doc.root?;
    let meta = doc.get(root, "metadata")?.1;
    doc.get_str(meta, "name")
}

/// Whether a document (a base object or a strategic-merge patch) is the rendered object as
/// written before the overlays renamed it: the same kind, and a name the rendered one holds
/// (`web` in `prod-web`). A patch entry's target, when it names a kind or name, must agree too.
fn same_object(
    doc: &Document<'_>,
    object: &Rendered,
    target: Option<&(Option<String>, Option<String>)>,
) -> bool {
    if let Some((kind, name)) = target {
        if kind.as_ref().is_some_and(|k| *k != object.kind)
            || name.as_ref().is_some_and(|n| !object.was_named(n))
        {
            return false;
        }
    }
    let Some(root) = doc.root else { return false };
    if doc.sequence(root).is_some() {
        // A JSON6902 patch names no object: its entry's target does.
        return target.is_some();
    }
    let kind_ok = doc.get_str(root, "kind").is_none_or(|k| k == object.kind);
    let name_ok = name_of(doc).is_none_or(|n| object.was_named(n));
    kind_ok && name_ok
}

/// The finding in a patch that wrote its field, if this one did.
#[allow(clippy::too_many_arguments)]
fn in_patch(
    rendered: &str,
    here: &Steps,
    path: &[Seg],
    on_key: bool,
    object: &Rendered,
    holder: &Holder,
    patch: &Patch,
    d: &Diagnostic,
) -> Option<Traced> {
    let stream = syntax::parse(&holder.inner);
    for pdoc in stream.documents.iter().filter(|p| p.error.is_none()) {
        let Some(proot) = pdoc.root else { continue };
        if !same_object(pdoc, object, patch.target.as_ref()) {
            continue;
        }
        if let Some(ops) = pdoc.sequence(proot) {
            // JSON6902: the last `add` or `replace` whose path leads to the field. An `add` at
            // `-` appends: the last one to a list wrote its last item, the one before the
            // item before it.
            let mut appended: Vec<String> = Vec::new();
            for &op in ops.iter().rev() {
                let verb = pdoc.get_str(op, "op").unwrap_or_default();
                if verb != "add" && verb != "replace" {
                    continue;
                }
                let Some(pointer) = pdoc.get_str(op, "path") else {
                    continue;
                };
                let later = appended.iter().filter(|p| *p == pointer).count();
                if pointer.ends_with("/-") {
                    appended.push(pointer.to_string());
                }
                let Some(rest) = after_pointer(pointer, path, &here.lens, later) else {
                    continue;
                };
                let Some((_, value)) = pdoc.get(op, "value") else {
                    continue;
                };
                let there = follow(pdoc, value, rest);
                if there.nodes.len() == rest.len() {
                    // The rendered steps from the one the pointer ended on, against the
                    // value and the steps inside it.
                    let skip = path.len() - rest.len();
                    let here = Steps {
                        nodes: here
                            .nodes
                            .iter()
                            .skip(skip.saturating_sub(1))
                            .cloned()
                            .collect(),
                        lens: Vec::new(),
                    };
                    let mut nodes = vec![(None, pdoc.node(value).span.clone())];
                    nodes.extend(there.nodes);
                    let there = Steps {
                        nodes,
                        lens: Vec::new(),
                    };
                    let mut t = mapped(rendered, &here, &there, on_key, pdoc, holder, d.clone());
                    // The object is the one the patch's target names.
                    if let Some((kind, name)) = &patch.target {
                        t.diagnostic.object = Some(ObjectRef {
                            kind: kind.clone(),
                            name: name.clone(),
                            namespace: None,
                        });
                    }
                    return Some(t);
                }
            }
            continue;
        }
        let there = follow(pdoc, proot, path);
        if there.nodes.len() == path.len() && !path.is_empty() {
            return Some(mapped(
                rendered,
                here,
                &there,
                on_key,
                pdoc,
                holder,
                d.clone(),
            ));
        }
    }
    None
}

/// The rest of `path` after a JSON pointer that leads to it, or `None` when the pointer goes
/// elsewhere. `-` stands for the item appended: the list's last but `later` (appended after it;
/// `lens` are the lengths of the lists along `path`).
fn after_pointer<'p>(
    pointer: &str,
    path: &'p [Seg],
    lens: &[Option<usize>],
    later: usize,
) -> Option<&'p [Seg]> {
    let parts: Vec<String> = pointer
        .strip_prefix('/')?
        .split('/')
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect();
    if parts.len() > path.len() {
        return None;
    }
    for (at, (part, seg)) in parts.iter().zip(path).enumerate() {
        let ok = match seg {
            Seg::Key(k) => k == part,
            Seg::Index(i) if part == "-" => {
                lens.get(at)
                    .copied()
                    .flatten()
                    .and_then(|n| n.checked_sub(1 + later))
                    == Some(*i)
            }
            Seg::Index(i) => part.parse::<usize>().ok() == Some(*i),
        };
        if !ok {
            return None;
        }
    }
    Some(&path[parts.len()..])
}

/// The finding moved from the rendered steps `here` to the source steps `there`: to the
/// deepest step both have whose rendered node holds it. When that node is written the same in
/// both texts, the range (and fixes) move by the same offset; else the finding covers the
/// source node.
pub(crate) fn mapped(
    rendered: &str,
    here: &Steps,
    there: &Steps,
    on_key: bool,
    sdoc: &Document<'_>,
    holder: &Holder,
    mut d: Diagnostic,
) -> Traced {
    let depth = here.nodes.len().min(there.nodes.len());
    let holds = |r: &Range<usize>, s: &Range<usize>| s.start <= r.start && r.end <= s.end;
    let mut target: Option<(Range<usize>, Range<usize>)> = None;
    for i in (0..depth).rev() {
        let (hk, hv) = &here.nodes[i];
        let (tk, tv) = &there.nodes[i];
        let last = i + 1 == here.nodes.len();
        let keys = hk.clone().zip(tk.clone());
        let pair = if on_key && last {
            keys.clone()
        } else {
            Some((hv.clone(), tv.clone()))
        };
        // A step whose value does not hold the finding may still hold it on its key.
        for (h, t) in pair.into_iter().chain(keys) {
            if holds(&d.range, &h) {
                target = Some((h, t));
                break;
            }
        }
        if target.is_some() {
            break;
        }
    }
    let source_root = sdoc.root.map(|r| sdoc.node(r).span.clone());
    let (range, shift) = match target {
        Some((h, t)) => {
            let same = rendered.get(h.clone()) == holder.inner.get(t.clone()) && holder.exact();
            if same {
                let delta = t.start as isize - h.start as isize;
                let moved = |r: &Range<usize>| {
                    let s = (r.start as isize + delta).max(0) as usize;
                    let e = (r.end as isize + delta).max(0) as usize;
                    holder.map(&(s..e))
                };
                (moved(&d.range), Some(delta))
            } else {
                (holder.map(&t), None)
            }
        }
        None => {
            let t = source_root.unwrap_or(0..0);
            (holder.map(&(t.start..t.start)), None)
        }
    };
    match shift {
        Some(delta) => {
            let moved = moved_fn(delta);
            d.fixes.retain_mut(|f| {
                for e in &mut f.edits {
                    e.range = moved(&e.range);
                }
                holder.place_fix(f)
            });
        }
        None => d.fixes.clear(),
    }
    d.range = range;
    // Related places in the rendered text cannot be shown: they are left out.
    d.related.retain(|r| r.file.is_some());
    d.document = Some(sdoc.index);
    d.object = Some(ObjectRef {
        kind: sdoc
            .root
            .and_then(|r| sdoc.get_str(r, "kind"))
            .map(str::to_string),
        name: name_of(sdoc).map(str::to_string),
        namespace: sdoc
            .root
            .and_then(|r| sdoc.get(r, "metadata"))
            .and_then(|(_, m)| sdoc.get_str(m, "namespace"))
            .map(str::to_string),
    })
    .filter(|o| o.kind.is_some() || o.name.is_some())
    .or(d.object);
    Traced {
        file: holder.file.clone(),
        diagnostic: d,
    }
}

fn moved_fn(delta: isize) -> impl Fn(&Range<usize>) -> Range<usize> {
    move |r: &Range<usize>| {
        let s = (r.start as isize + delta).max(0) as usize;
        let e = (r.end as isize + delta).max(0) as usize;
        s..e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;

    /// What `kustomize build` writes with origin and transformer annotations (its shape as
    /// kustomize v5 writes it), for a base Deployment patched by an overlay's file.
    const RENDERED: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    alpha.config.kubernetes.io/transformations: |
      - configuredIn: ../repo/prod/kustomization.yaml
        configuredBy:
          apiVersion: builtin
          kind: PatchTransformer
    config.kubernetes.io/origin: |
      path: ../repo/base/web.yaml
  name: prod-web
  namespace: shop
spec:
  template:
    spec:
      nodeSelector:
        pool: spot
      tolerations:
      - effect: NoSchedul
        key: spot
        operator: Exists
---
apiVersion: v1
kind: Pod
metadata:
  annotations:
    config.kubernetes.io/origin: |
      path: deploy/pod.yaml
      repo: https://github.com/example/remote
  name: prod-remote
spec:
  tolerations:
  - key: a
    operator: Exists
    value: x
";

    const BASE: &str = "# the base\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      nodeSelector: {pool: spot}\n      tolerations:\n      - key: spot\n        operator: Exists\n        effect: NoSchedule\n";
    const KUSTOMIZATION: &str =
        "resources: [../base]\nnamePrefix: prod-\nnamespace: shop\npatches:\n- path: web.yaml\n";
    const PATCH: &str = "kind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      tolerations:\n      - key: spot\n        operator: Exists\n        effect: \"NoSchedul\"\n";

    fn load(path: &str) -> Option<Source> {
        let text = match path {
            "../repo/base/web.yaml" => BASE,
            "../repo/prod/kustomization.yaml" => KUSTOMIZATION,
            "../repo/prod/web.yaml" => PATCH,
            _ => return None,
        };
        Some(Source {
            name: path.trim_start_matches("../").to_string(),
            text: text.into(),
        })
    }

    fn overlay() -> Overlay {
        Overlay {
            name: "repo/prod".to_string(),
            kustomization: Source {
                name: "repo/prod/kustomization.yaml".to_string(),
                text: KUSTOMIZATION.into(),
            },
        }
    }

    #[test]
    fn findings_go_to_the_patch_that_wrote_the_field_or_the_origin() {
        let found = crate::analysis::analyse(RENDERED, &Options::default());
        let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["unknown-effect", "exists-with-value"]);
        let traced = trace(RENDERED, found, &overlay(), &mut load);
        // The effect was written by the patch, quoted there: the whole scalar, no fix.
        let effect = &traced[0];
        assert_eq!(effect.file, "repo/prod/web.yaml");
        assert_eq!(&PATCH[effect.diagnostic.range.clone()], "\"NoSchedul\"");
        assert!(effect.diagnostic.fixes.is_empty());
        let object = effect.diagnostic.object.as_ref().unwrap();
        assert_eq!(
            (
                object.kind.as_deref(),
                object.name.as_deref(),
                object.namespace.as_deref()
            ),
            (Some("Deployment"), Some("web"), None)
        );
        assert_eq!(
            effect.diagnostic.related,
            vec![Related {
                file: Some("repo/prod/kustomization.yaml".to_string()),
                range: 0..0,
                message: "rendered by repo/prod as Deployment shop/prod-web".to_string(),
            }]
        );
        // An object from a remote base: on the overlay's kustomization, saying so.
        let remote = &traced[1];
        assert_eq!(remote.file, "repo/prod/kustomization.yaml");
        assert!(remote.diagnostic.message.contains("no file here holds"));
    }

    #[test]
    fn a_field_no_patch_wrote_is_found_in_the_origin_with_its_fix() {
        let rendered = RENDERED.replace("NoSchedul", "NoSchedule").replace(
            "        operator: Exists\n---",
            "        operator: Exists\n        tolerationSeconds: 0\n---",
        );
        let base = BASE.replace("effect: NoSchedule\n", "effect: noschedule\n");
        let rendered = rendered.replace("- effect: NoSchedule", "- effect: noschedule");
        let found = crate::analysis::analyse(&rendered, &Options::default());
        assert!(found.iter().any(|d| d.rule == "unknown-effect"));
        // No patch writes the effect now: the patch's list is taken away.
        let mut load_base = |path: &str| -> Option<Source> {
            match path {
                "../repo/base/web.yaml" => Some(Source {
                    name: "repo/base/web.yaml".to_string(),
                    text: base.as_str().into(),
                }),
                "../repo/prod/kustomization.yaml" => load(path),
                _ => None,
            }
        };
        let traced = trace(&rendered, found, &overlay(), &mut load_base);
        let effect = traced
            .iter()
            .find(|t| t.diagnostic.rule == "unknown-effect")
            .unwrap();
        assert_eq!(effect.file, "repo/base/web.yaml");
        assert_eq!(&base[effect.diagnostic.range.clone()], "noschedule");
        let fixed = effect.diagnostic.fixes[0].apply(&base);
        assert!(fixed.contains("effect: NoSchedule\n"), "{fixed}");
    }

    #[test]
    fn an_inline_patch_in_a_quoted_string_is_placed_inside_it() {
        let kustomization = "resources: [../base]\npatches:\n- patch: \"kind: Deployment\\nmetadata: {name: web}\\nspec:\\n  template:\\n    spec:\\n      tolerations:\\n      - {key: spot, operator: Exists, effect: NoSchedul}\\n\"\n";
        let mut load_inline = |path: &str| -> Option<Source> {
            match path {
                "../repo/prod/kustomization.yaml" => Some(Source {
                    name: "repo/prod/kustomization.yaml".to_string(),
                    text: kustomization.into(),
                }),
                _ => load(path),
            }
        };
        let found = crate::analysis::analyse(RENDERED, &Options::default());
        let traced = trace(RENDERED, found, &overlay(), &mut load_inline);
        assert_eq!(traced[0].file, "repo/prod/kustomization.yaml");
        assert_eq!(
            &kustomization[traced[0].diagnostic.range.clone()],
            "NoSchedul"
        );
        // The fix edits inside the string.
        let fixed = traced[0].diagnostic.fixes[0].apply(kustomization);
        assert!(fixed.contains("effect: NoSchedule}"), "{fixed}");
    }

    #[test]
    fn json_pointers() {
        let path = [
            Seg::Key("spec".into()),
            Seg::Key("tolerations".into()),
            Seg::Index(2),
            Seg::Key("effect".into()),
        ];
        let lens = [None, None, Some(3), None];
        let rest = |p: &str, later| after_pointer(p, &path, &lens, later).map(<[Seg]>::len);
        assert_eq!(rest("/spec/tolerations/-", 0), Some(1));
        assert_eq!(rest("/spec/tolerations/-", 1), None);
        assert_eq!(rest("/spec/tolerations/2", 0), Some(1));
        assert_eq!(rest("/spec/tolerations/1", 0), None);
        assert_eq!(rest("/spec/tolerations", 0), Some(2));
        assert_eq!(rest("/spec/affinity", 0), None);
    }
}
