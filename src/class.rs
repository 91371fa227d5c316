//! What a file, and each YAML document of it, is: decided here, once, and asked here by every
//! reader (inventory loading, `lint`, `simulate` and the language server's indexes).
//!
//! A file ([`text`]) is Terraform (HCL: its first statement opens a block or sets an
//! attribute), JSON (its first character opens an object: `kubectl get nodes -o json`), or YAML;
//! only YAML and JSON have a YAML tree ([`crate::syntax::parse`]). A YAML document
//! ([`documents`]) is one of:
//!
//! - a template ([`Template`]): it does not parse, and a Go template action, a Go `fmt` verb or
//!   the placeholders a script fills in are why (or it parses only because YAML reads its
//!   actions as mappings); neither linted nor simulated as written;
//! - broken: it does not parse, and is no template (a `yaml-syntax` finding, or the file is not
//!   a manifest when nothing in it shows Kubernetes: [`shows_kubernetes`]);
//! - a pool file: a mapping with `pools` and no `kind` ([`crate::inventory::compact`]);
//! - a JSON6902 patch: a list of operations (`op`, `path`), which writes what its
//!   kustomization's target holds;
//! - a strategic-merge patch: any other document of a file a kustomization names as a patch
//!   (or of a kustomization's patch string), an object that says only what it changes of
//!   another: its tolerations are checked, but it is no workload of its own to place;
//! - read: every other document, which the rules read by what its objects are (a manifest of a
//!   kind, chart values, a HelmRelease's or Argo CD Application's values, a strategic-merge
//!   patch no kustomization names, node configuration: [`crate::k8s::objects`] tells them apart
//!   by kind and shape, with what the file's place says of it, [`crate::walk::Place`]).
//!
//! Only this module decides these; the layers above ask it (it reads only the syntax tree).

use std::ops::Range;

use crate::syntax::{Comment, Document, NodeId, NodeKind, Stream};

/// What a file's text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// Terraform's HCL: read by its own parser, with no YAML tree.
    Hcl,
    /// A JSON object (a node list as `kubectl get nodes -o json` writes it): YAML too.
    Json,
    Yaml,
}

impl Text {
    /// Whether it has a YAML tree ([`crate::syntax::parse`]): all but HCL.
    pub fn is_parsed(self) -> bool {
        self != Text::Hcl
    }
}

/// What `text` is.
pub fn text(text: &str) -> Text {
    if looks_like_hcl(text) {
        Text::Hcl
    } else if looks_like_json(text) {
        Text::Json
    } else {
        Text::Yaml
    }
}

/// Whether a text is JSON rather than YAML: its first character (after a byte-order mark and
/// white space) opens an object.
pub(crate) fn looks_like_json(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

/// Whether a text is HCL rather than YAML or JSON: its first statement opens a block
/// (`resource "type" "name" {`) or sets an attribute (`name = ...`).
pub(crate) fn looks_like_hcl(text: &str) -> bool {
    let mut in_comment = false;
    for line in text.trim_start_matches('\u{feff}').lines() {
        let line = line.trim();
        if in_comment {
            in_comment = !line.contains("*/");
            continue;
        }
        if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
            continue;
        }
        if line.starts_with("/*") {
            in_comment = !line.contains("*/");
            continue;
        }
        let ident_end = line
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(line.len());
        if ident_end == 0 || !line.as_bytes()[0].is_ascii_alphabetic() {
            return false;
        }
        let rest = line[ident_end..].trim_start();
        // A block opens a line (`module "eks" {`) or is written on one (`data "x" "y" {}`).
        let block = rest
            .find('{')
            .is_some_and(|open| !rest[..open].contains(':') && (rest.ends_with(['{', '}'])));
        return (rest.starts_with('=') && !rest.starts_with("==")) || block;
    }
    false
}

/// What a YAML document is (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    Template(Template),
    /// It does not parse, and is no template.
    Broken,
    /// A pool file, its root mapping.
    PoolFile(NodeId),
    /// A JSON6902 operation list (a kustomize patch file), its root sequence.
    Patch(NodeId),
    /// An object that a kustomization applies as a strategic-merge patch to another: what it
    /// says is merged into its target, and its pod templates are partial.
    MergePatch,
    /// What the rules read.
    Read,
}

/// A template, and the first place that shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub at: Range<usize>,
    pub form: Form,
}

/// What kind of template a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A Go or Helm template action (`{{ .Values.x }}`) in a document that does not parse.
    Go,
    /// A Go `fmt` verb as a whole value (`name: %s`).
    Format,
    /// Placeholders a script fills in (`@NAME@`, `__NAME__`, `${NAME}`).
    Placeholder,
    /// Go template actions that YAML reads as flow mappings (`name: {{.Name}}`).
    ReadAsMappings,
}

/// The classes of a parsed file's documents, in order, and whether the text after its last
/// document (the stream's own syntax error, outside every document) is a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Documents {
    pub documents: Vec<Class>,
    pub tail: Option<Template>,
}

impl Documents {
    /// The classes in a file's place ([`in_place`]).
    pub fn in_place(mut self, patch_file: bool) -> Self {
        for class in &mut self.documents {
            *class = in_place(std::mem::replace(class, Class::Read), patch_file);
        }
        self
    }

    /// Whether some document (or the tail) is a template.
    pub fn any_template(&self) -> bool {
        self.tail.is_some()
            || self
                .documents
                .iter()
                .any(|c| matches!(c, Class::Template(_)))
    }
}

/// The class of each document of `stream` (what [`crate::syntax::parse`] made of `text`). A
/// document is a template when it does not parse and holds a Go template action, a `fmt` verb
/// or placeholders outside comments, decided for each document alone; a document that parses
/// is YAML whatever its scalars hold (alert texts, values passed through `tpl`, rendered
/// output), unless YAML reads its actions as mappings.
pub fn documents(text: &str, stream: &Stream<'_>) -> Documents {
    let docs = &stream.documents;
    let may_hold = ["{{", "%", "@", "__", "${"]
        .iter()
        .any(|s| text.contains(s));
    // A broken document's text runs to the next document's start: the parser skips there.
    let next_start = |i: usize| docs.get(i + 1).map_or(text.len(), |d| d.span.start);
    let template = |region: Range<usize>| {
        if !may_hold {
            return None;
        }
        let region = region.start.min(region.end)..region.end;
        let at = template_action(text, region.clone(), &stream.comments)
            .or_else(|| placeholder(text, region, &stream.comments))?;
        let form = if is_placeholder(&text[at.clone()]) {
            Form::Placeholder
        } else if text[at.clone()].starts_with('%') {
            Form::Format
        } else {
            Form::Go
        };
        Some(Template { at, form })
    };
    let documents = docs
        .iter()
        .enumerate()
        .map(|(i, doc)| {
            if doc.error.is_some() {
                let start = if i == 0 { 0 } else { doc.span.start };
                return template(start..next_start(i)).map_or(Class::Broken, Class::Template);
            }
            document(text, doc)
        })
        .collect();
    let tail = stream.error.as_ref().and_then(|error| {
        let at = error.offset;
        let start = docs
            .iter()
            .filter(|d| d.span.start <= at)
            .map(|d| d.span.end)
            .max()
            .unwrap_or(0)
            .min(at);
        let end = docs
            .iter()
            .map(|d| d.span.start)
            .find(|&s| s > at)
            .unwrap_or(text.len());
        template(start..end)
    });
    Documents { documents, tail }
}

/// The class of one document as [`documents`] gives it, but that a document that does not
/// parse is [`Class::Broken`] here whether or not it is a template: for a reader that reads
/// neither (the server's index, `reads_inventory`), without looking for what shows a template
/// in its text (which may parse the text again, with its placeholders filled in).
pub fn document(text: &str, doc: &Document<'_>) -> Class {
    if doc.error.is_some() {
        return Class::Broken;
    }
    if let Some(at) = actions_read_as_mappings(text, doc) {
        return Class::Template(Template {
            at,
            form: Form::ReadAsMappings,
        });
    }
    pool_file(doc)
        .map(Class::PoolFile)
        .or_else(|| patch(doc).map(Class::Patch))
        .unwrap_or(Class::Read)
}

/// The class of a document of a file a kustomization names as a patch (`patch_file`, what the
/// file's place says: [`crate::walk::Place`]): a document the rules would read whole is a
/// strategic-merge patch there. kustomize reads such a file as a JSON6902 operation list when
/// it is one and as a strategic-merge patch otherwise (api/filters/patchstrategicmerge and
/// patchjson6902 of kubernetes-sigs/kustomize).
pub fn in_place(class: Class, patch_file: bool) -> Class {
    match class {
        Class::Read if patch_file => Class::MergePatch,
        class => class,
    }
}

/// The root of a document that is a pool file: a mapping with `pools` and no `kind`.
pub fn pool_file(doc: &Document<'_>) -> Option<NodeId> {
    doc.root.filter(|&root| is_pool_file(doc, root))
}

/// Whether the mapping at `root` is a pool file's.
pub(crate) fn is_pool_file(doc: &Document<'_>, root: NodeId) -> bool {
    doc.get(root, "pools").is_some() && doc.get(root, "kind").is_none()
}

/// The root of a document that is a JSON6902 operation list: a non-empty sequence of
/// mappings, each with a scalar `op` and `path`.
pub fn patch(doc: &Document<'_>) -> Option<NodeId> {
    let ops = |items: &[NodeId]| {
        !items.is_empty()
            && items.iter().all(|&i| {
                let scalar = |key| {
                    doc.get(i, key)
                        .is_some_and(|(_, v)| doc.scalar(v).is_some())
                };
                doc.mapping(i).is_some() && scalar("op") && scalar("path")
            })
    };
    doc.root.filter(|&root| doc.sequence(root).is_some_and(ops))
}

/// Whether a text shows any sign of Kubernetes: an `apiVersion`, `kind`, `tolerations` or
/// `taints` key anywhere (written as a key: followed by `:`, quoted or not), even where the YAML
/// around it does not parse. YAML that does not parse and shows none is not a manifest.
pub fn shows_kubernetes(text: &str) -> bool {
    ["apiVersion", "kind", "tolerations", "taints"]
        .iter()
        .any(|word| {
            text.match_indices(word).any(|(i, _)| {
                let rest = text[i + word.len()..].trim_start_matches(['"', '\'']);
                rest.trim_start_matches([' ', '\t']).starts_with(':')
            })
        })
}

/// A document that parses only because YAML reads its Go template actions as flow mappings
/// (`name: {{.Name}}` is a mapping whose one key is the mapping `{.Name}`): a Go template all
/// the same, which no one writes meaning those mappings. The first such action.
/// clusterloader2's object templates are written so (kuberay's
/// `benchmark/perf-tests/*/pytorch-mnist-rayjob.yaml`: `name: {{.Name}}`, `image: {{.Image}}`).
fn actions_read_as_mappings(text: &str, doc: &Document<'_>) -> Option<Range<usize>> {
    if !text[doc.span.clone()].contains("{{") {
        return None;
    }
    (0..doc.nodes_len() as u32).find_map(|id| {
        let node = doc.node(id);
        let NodeKind::Mapping { flow: true, .. } = node.kind else {
            return None;
        };
        let written = text.get(node.span.clone())?;
        (written.starts_with("{{") && written.ends_with("}}") && !written.contains('\n'))
            .then(|| node.span.clone())
    })
}

/// The first Go template action (`{{` to its `}}` on the same line) in `region` of `text`, outside
/// comments: in a document that does not parse, the sign that it is a template. (A document
/// that parses is YAML whatever its scalars hold: Prometheus alert texts and values passed
/// through `tpl` hold such actions as data.) `comments` are the parser's comments, in source
/// order; a line whose first character is `#` counts as one too, since the parser stops
/// reporting comments where the document breaks.
fn template_action(
    text: &str,
    region: Range<usize>,
    comments: &[Comment<'_>],
) -> Option<Range<usize>> {
    let region = &text[region.clone()];
    let base = region.as_ptr() as usize - text.as_ptr() as usize;
    let in_comment = |at: usize| {
        let i = comments.partition_point(|c| c.span.end <= at);
        comments.get(i).is_some_and(|c| c.span.contains(&at))
    };
    let commented = |i: usize| {
        let line_start = region[..i].rfind('\n').map_or(0, |n| n + 1);
        region[line_start..i].trim_start().starts_with('#') || in_comment(base + i)
    };
    let action = region.match_indices("{{").find_map(|(i, _)| {
        if commented(i) {
            return None;
        }
        let line_end = region[i..].find('\n').map_or(region.len(), |n| i + n);
        let close = region[i + 2..line_end].find("}}")?;
        Some(base + i..base + i + 2 + close + 2)
    });
    action.or_else(|| {
        region
            .match_indices('%')
            .find(|&(i, _)| format_verb(region, i) && !commented(i))
            .map(|(i, _)| base + i..base + i + 2)
    })
}

/// The first placeholder that a script fills in (`@STS_NAME@`, `__IMAGE__`, `${REPLICAS}`) in
/// `region` of `text`, outside comments, when it is the placeholders that keep the region from
/// parsing: with each of them filled in (letters in its place, or a comment where it stands
/// alone on its line, as a placeholder for whole lines does), the region parses as YAML. A
/// region whose YAML is broken elsewhere too is no placeholder file: its syntax error stands.
/// longhorn/longhorn's `dev/scale-test/statefulset.yaml` (`name: @STS_NAME@`, filled in by
/// `sed` in its `scale-test.py`) is one.
fn placeholder(text: &str, region: Range<usize>, comments: &[Comment<'_>]) -> Option<Range<usize>> {
    let in_comment = |at: usize| {
        let i = comments.partition_point(|c| c.span.end <= at);
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        comments.get(i).is_some_and(|c| c.span.contains(&at))
            || text[line_start..at].trim_start().starts_with('#')
    };
    let found: Vec<Range<usize>> = placeholders(&text[region.clone()])
        .into_iter()
        .map(|r| region.start + r.start..region.start + r.end)
        .filter(|r| !in_comment(r.start))
        .collect();
    let first = found.first()?.clone();
    let mut filled = text.as_bytes().to_vec();
    for r in &found {
        let line_start = text[..r.start].rfind('\n').map_or(0, |n| n + 1);
        let line_end = text[r.end..].find('\n').map_or(text.len(), |n| r.end + n);
        let alone =
            text[line_start..r.start].trim().is_empty() && text[r.end..line_end].trim().is_empty();
        for (k, b) in filled[r.clone()].iter_mut().enumerate() {
            *b = if alone && k == 0 { b'#' } else { b'x' };
        }
    }
    let filled = String::from_utf8(filled).ok()?;
    let stream = crate::syntax::parse(&filled);
    // An error left inside the region (or at the end of the text, for its last document).
    let inside = |at: usize| at >= region.start && (at < region.end || at == text.len());
    let broken = stream
        .documents
        .iter()
        .filter_map(|d| d.error.as_ref())
        .chain(stream.error.as_ref())
        .any(|e| inside(e.offset));
    (!broken).then_some(first)
}

/// The placeholders of a text, in order: `@NAME@` (a name of letters, digits and `_`, not
/// after a letter or digit, as in an e-mail address), `__NAME__` (capitals, digits and `_`)
/// and `${NAME}` (a shell or envsubst variable, with an optional default: `${NAME:-x}`).
fn placeholders(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let after_word = i > 0 && word(b[i - 1]);
        let end = match b[i] {
            b'@' if !after_word => {
                let n = b[i + 1..].iter().take_while(|&&c| word(c)).count();
                let name = &b[i + 1..i + 1 + n];
                (n > 0
                    && b.get(i + 1 + n) == Some(&b'@')
                    && name.iter().any(u8::is_ascii_alphabetic))
                .then_some(i + n + 2)
            }
            b'_' if !after_word && b.get(i + 1) == Some(&b'_') => {
                let n = b[i..].iter().take_while(|&&c| word(c)).count();
                let run = &b[i..i + n];
                let inner = run.strip_prefix(b"__").and_then(|r| r.strip_suffix(b"__"));
                inner
                    .filter(|inner| {
                        inner.first().is_some_and(u8::is_ascii_uppercase)
                            && inner.last().is_some_and(|&c| c != b'_')
                            && inner
                                .iter()
                                .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
                    })
                    .map(|_| i + n)
            }
            b'$' if b.get(i + 1) == Some(&b'{') => {
                let start = i + 2;
                let n = b[start..].iter().take_while(|&&c| word(c)).count();
                let name_ok = n > 0 && !b[start].is_ascii_digit();
                let rest = start + n;
                let close = match b.get(rest) {
                    Some(b'}') => Some(rest),
                    Some(b':' | b'-' | b'=' | b'?' | b'+') => b[rest..]
                        .iter()
                        .position(|&c| c == b'}' || c == b'\n')
                        .filter(|&k| b[rest + k] == b'}')
                        .map(|k| rest + k),
                    _ => None,
                };
                close.filter(|_| name_ok).map(|c| c + 1)
            }
            _ => None,
        };
        match end {
            Some(end) => {
                out.push(i..end);
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

/// Whether the text that shows a template ([`Template::at`]) is a placeholder a script fills
/// in, not a Go template action or format verb.
pub fn is_placeholder(found: &str) -> bool {
    !found.starts_with("{{") && !found.starts_with('%')
}

/// Whether a Go `fmt` verb (`%s`, `%d`, `%v`, `%q`) starts at `i` and is a whole value: after
/// `: `, `- `, a quote or a flow indicator, and followed by the end of the line, a blank, a
/// quote or a flow indicator.
fn format_verb(text: &str, i: usize) -> bool {
    let bytes = text.as_bytes();
    let verb = bytes
        .get(i + 1)
        .is_some_and(|b| matches!(b, b's' | b'd' | b'v' | b'q'));
    let before = i == 0
        || matches!(
            bytes[i - 1],
            b' ' | b'\t' | b'"' | b'\'' | b'[' | b'{' | b','
        );
    let after = bytes.get(i + 2).is_none_or(|b| {
        matches!(
            b,
            b'\n' | b'\r' | b' ' | b'\t' | b'"' | b'\'' | b',' | b']' | b'}'
        )
    });
    verb && before && after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        placeholders(text).into_iter().map(|r| &text[r]).collect()
    }

    /// The three forms, with the names each takes; what only looks like one is none.
    #[test]
    fn placeholders_of_each_form() {
        assert_eq!(
            found("name: @STS_NAME@\nimage: __IMAGE__:${TAG}\nn: ${N:-3} ${X-y}"),
            ["@STS_NAME@", "__IMAGE__", "${TAG}", "${N:-3}", "${X-y}"]
        );
        assert_eq!(found("@prefix@ and @v2@"), ["@prefix@", "@v2@"]);
        for none in [
            "owner: a@b@c",
            "@@",
            "@1@",
            "__init__",
            "a__B__",
            "___",
            "__A_",
            "${}",
            "${1A}",
            "${A",
            "${A:-x\n}",
            "$A",
            "@A",
        ] {
            assert!(found(none).is_empty(), "{none}: {:?}", found(none));
        }
    }

    /// A region is a placeholder file only when filling its placeholders in makes it parse.
    #[test]
    fn filled_in_the_region_must_parse() {
        fn at(text: &str) -> Option<&str> {
            placeholder(text, 0..text.len(), &[]).map(|r| &text[r])
        }
        assert_eq!(at("name: @A@\nspec: {}\n"), Some("@A@"));
        assert_eq!(at("spec:\n  a: 1\n  __EXTRA__\n"), Some("__EXTRA__"));
        assert_eq!(at("name: @A@\nspec: [\n"), None);
        assert_eq!(at("name: a\nspec: [\n"), None);
        // A placeholder in a comment is not one.
        assert_eq!(at("# @A@\nspec: [\n"), None);
        assert!(is_placeholder("@A@") && is_placeholder("${A}"));
        assert!(!is_placeholder("{{ .A }}") && !is_placeholder("%s"));
    }

    #[test]
    fn op_lists_are_recognised_by_shape() {
        let yes = crate::syntax::parse("- op: add\n  path: /spec/tolerations\n  value: []\n");
        let doc = &yes.documents[0];
        assert!(patch(doc).is_some());
        for text in [
            "- a\n",
            "[]\n",
            "- op: add\n",
            "- {op: add, path: /x}\n- 3\n",
            "a: 1\n",
        ] {
            let s = crate::syntax::parse(text);
            let doc = &s.documents[0];
            assert!(patch(doc).is_none(), "{text}");
        }
    }
}
