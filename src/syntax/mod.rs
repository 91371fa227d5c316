//! YAML text to documents of positioned nodes.
//!
//! This is the only module that knows the YAML parser. Every node carries the exact byte range of
//! its source text; aliases stay references (never copied), and a document in which too much
//! comes from alias expansion is rejected, as the API server's decoder rejects "excessive
//! aliasing" (see [`excessive_aliasing`]), so nothing downstream can be made to walk an alias
//! bomb. A document without aliases is never refused for its size.

use std::borrow::Cow;
use std::ops::Range;

pub mod mapped;

use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};

/// Index of a node inside its [`Document`].
pub type NodeId = u32;

/// Whether a document that decodes to `decoded` nodes, `aliased` of them reached through
/// aliases, is one the API server's decoder refuses: go-yaml v2's `allowedAliasRatio` (decode.go,
/// as vendored by sigs.k8s.io/yaml), which lets up to 99% of a small document come from alias
/// expansion, scaling down to 10% from 400,000 to 4,000,000 decoded nodes.
pub fn excessive_aliasing(decoded: u64, aliased: u64) -> bool {
    const LOW: u64 = 400_000;
    const HIGH: u64 = 4_000_000;
    let allowed = if decoded <= LOW {
        0.99
    } else if decoded >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decoded - LOW) as f64 / (HIGH - LOW) as f64)
    };
    aliased > 100 && decoded > 1000 && aliased as f64 / decoded as f64 > allowed
}

/// A parsed YAML stream: every document, in order, and every comment.
#[derive(Debug)]
pub struct Stream<'a> {
    pub documents: Vec<Document<'a>>,
    /// Comments of the whole stream, in source order (byte range includes the `#`).
    pub comments: Vec<Comment<'a>>,
    /// A syntax error outside any document (for example before the first one starts).
    pub error: Option<SyntaxError>,
}

#[derive(Debug, Clone)]
pub struct Comment<'a> {
    pub span: Range<usize>,
    /// The text after `#`.
    pub text: Cow<'a, str>,
}

/// A syntax error: what the parser said and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

/// One document of the stream.
#[derive(Debug)]
pub struct Document<'a> {
    /// 0-based index in the stream; every document counts, empty ones included.
    pub index: usize,
    /// Byte range from the document's first token to its end.
    pub span: Range<usize>,
    pub root: Option<NodeId>,
    nodes: Vec<Node<'a>>,
    /// Set when the document could not be parsed (or expands too far); its tree is then partial.
    pub error: Option<SyntaxError>,
    /// What [`Document::replace_item`] replaced, in order: (sequence, index, the item before).
    replaced: Vec<(NodeId, usize, NodeId)>,
}

/// A document's tree as it was at one moment, to go back to ([`Document::restore`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    nodes: usize,
    replaced: usize,
}

#[derive(Debug, Clone)]
pub struct Node<'a> {
    pub span: Range<usize>,
    /// Explicit tag, if any: `!!str` for the core schema's `str`, else the tag as written.
    pub tag: Option<Tag>,
    pub kind: NodeKind<'a>,
}

/// A node's explicit tag. One pointer wide: few nodes have one, and a big document has millions
/// of nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag(Box<Box<str>>);

impl From<&str> for Tag {
    fn from(tag: &str) -> Self {
        Tag(Box::new(tag.into()))
    }
}

impl std::ops::Deref for Tag {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Debug, Clone)]
pub enum NodeKind<'a> {
    Scalar {
        value: Cow<'a, str>,
        style: Style,
    },
    Sequence {
        items: Vec<NodeId>,
        flow: bool,
    },
    Mapping {
        entries: Vec<(NodeId, NodeId)>,
        flow: bool,
    },
    /// A resolved alias: the anchored node it refers to.
    Alias {
        target: NodeId,
    },
    /// An alias whose anchor is not defined in this document.
    UnknownAlias {
        name: Cow<'a, str>,
    },
}

impl<'a> Document<'a> {
    /// An empty document, for trees built from another syntax (HCL) whose nodes point into
    /// that text: set `root` after adding nodes.
    pub fn synthetic(span: Range<usize>) -> Document<'a> {
        Document {
            index: 0,
            span,
            root: None,
            nodes: Vec::new(),
            error: None,
            replaced: Vec::new(),
        }
    }

    pub fn node(&self, id: NodeId) -> &Node<'a> {
        &self.nodes[id as usize]
    }

    /// Follows an alias to the node it names (one step: an alias never targets an alias).
    pub fn resolve(&self, id: NodeId) -> NodeId {
        match self.node(id).kind {
            NodeKind::Alias { target } => target,
            _ => id,
        }
    }

    /// The scalar's value and style, following an alias.
    pub fn scalar(&self, id: NodeId) -> Option<(&str, Style)> {
        match &self.node(self.resolve(id)).kind {
            NodeKind::Scalar { value, style } => Some((value, *style)),
            _ => None,
        }
    }

    /// The entries of a mapping, following an alias.
    pub fn mapping(&self, id: NodeId) -> Option<&[(NodeId, NodeId)]> {
        match &self.node(self.resolve(id)).kind {
            NodeKind::Mapping { entries, .. } => Some(entries),
            _ => None,
        }
    }

    /// The items of a sequence, following an alias.
    pub fn sequence(&self, id: NodeId) -> Option<&[NodeId]> {
        match &self.node(self.resolve(id)).kind {
            NodeKind::Sequence { items, .. } => Some(items),
            _ => None,
        }
    }

    /// The entries of a mapping as the decoder sees them: its own keys, then keys merged in with
    /// `<<` (an alias or a sequence of aliases) that the mapping does not set itself. Duplicate
    /// keys keep their first occurrence, as the decoder's last-wins merge is only about values.
    pub fn merged_entries(&self, id: NodeId) -> Vec<(NodeId, NodeId)> {
        let mut out = Vec::new();
        self.collect_merged(id, &mut out, 0);
        out
    }

    fn collect_merged(&self, id: NodeId, out: &mut Vec<(NodeId, NodeId)>, depth: usize) {
        let Some(entries) = self.mapping(id) else {
            return;
        };
        let mut merges = Vec::new();
        for &(k, v) in entries {
            match self.scalar(k) {
                Some(("<<", Style::Plain)) => merges.push(v),
                _ => out.push((k, v)),
            }
        }
        // Depth is bounded by the document's expansion limit; this guard only keeps a cycle
        // (impossible in YAML, whose aliases point backwards) from recursing forever.
        if depth > 64 {
            return;
        }
        for merge in merges {
            let sources: Vec<NodeId> = match self.sequence(merge) {
                Some(items) => items.to_vec(),
                None => vec![merge],
            };
            for source in sources {
                let mut inherited = Vec::new();
                self.collect_merged(source, &mut inherited, depth + 1);
                for (k, v) in inherited {
                    let name = self.scalar(k).map(|(s, _)| s);
                    if !out
                        .iter()
                        .any(|&(ok, _)| self.scalar(ok).map(|(s, _)| s) == name)
                    {
                        out.push((k, v));
                    }
                }
            }
        }
    }

    /// Looks a key up in a mapping (merge keys included) and returns (key node, value node).
    pub fn get(&self, mapping: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        let entries = self.mapping(mapping)?;
        if let Some(&found) = entries
            .iter()
            .find(|&&(k, _)| self.scalar(k).is_some_and(|(s, _)| s == key))
        {
            return Some(found);
        }
        if entries
            .iter()
            .any(|&(k, _)| matches!(self.scalar(k), Some(("<<", Style::Plain))))
        {
            return self
                .merged_entries(mapping)
                .into_iter()
                .find(|&(k, _)| self.scalar(k).is_some_and(|(s, _)| s == key));
        }
        None
    }

    /// The value at a path of mapping keys under `node` (`["spec", "template"]`).
    pub fn get_path(&self, node: NodeId, keys: &[&str]) -> Option<NodeId> {
        keys.iter()
            .try_fold(node, |at, key| self.get(at, key).map(|(_, v)| v))
    }

    /// The value of `key` in a mapping, as a scalar string.
    pub fn get_str(&self, mapping: NodeId, key: &str) -> Option<&str> {
        self.get(mapping, key)
            .and_then(|(_, v)| self.scalar(v))
            .map(|(s, _)| s)
    }

    pub fn nodes_len(&self) -> usize {
        self.nodes.len()
    }

    /// Where the tree is now: [`Document::restore`] goes back to it.
    pub fn mark(&self) -> Mark {
        Mark {
            nodes: self.nodes.len(),
            replaced: self.replaced.len(),
        }
    }

    /// Undoes what [`Document::add_node`] and [`Document::replace_item`] did since `mark`: a
    /// tree kept to be read again is left as it was.
    pub fn restore(&mut self, mark: Mark) {
        while self.replaced.len() > mark.replaced {
            let (sequence, index, before) = self.replaced.pop().expect("longer than the mark");
            if let NodeKind::Sequence { items, .. } = &mut self.nodes[sequence as usize].kind {
                items[index] = before;
            }
        }
        self.nodes.truncate(mark.nodes);
    }

    /// Adds a node built by the caller (a mapping that stands for a `key=value:Effect` string,
    /// say, whose scalars point into the source), so the rules can check it like any other.
    pub fn add_node(&mut self, node: Node<'a>) -> NodeId {
        self.nodes.push(node);
        (self.nodes.len() - 1) as NodeId
    }

    /// Puts `node` in place of a sequence's `index`th item; false when there is no such item.
    pub fn replace_item(&mut self, sequence: NodeId, index: usize, node: NodeId) -> bool {
        match &mut self.nodes[sequence as usize].kind {
            NodeKind::Sequence { items, .. } if index < items.len() => {
                let before = std::mem::replace(&mut items[index], node);
                self.replaced.push((sequence, index, before));
                true
            }
            _ => false,
        }
    }
}

/// The parser's options: what kubectl's reader reads.
fn options() -> granit_parser::Options {
    granit_parser::options! {
        emit_unresolved_aliases: true,
        // The parser buffers the comments between a key and what follows it until it knows
        // what that is: 96 by default, which refuses the commented-out default configuration
        // under a chart values file's `config:`. Every buffered comment is text of the input,
        // so no bound is needed beyond the input's own size.
        max_buffered_comment_events: usize::MAX,
    }
    // `simple_key_max_lookahead` stays at the YAML specification's 1024 characters for an
    // implicit key, which go-yaml (scannerc.go, `yaml_parser_stale_simple_keys`) enforces too:
    // a longer key is refused by the API server's decoder as well. The nesting limits (255)
    // keep every recursive walk over the tree shallow.
}

/// Parses a whole stream. Never fails: syntax errors are recorded on the document they occur in
/// (and parsing resumes at the next document), or on the stream when no document is open.
///
/// What go-yaml reads, the YAML specification aside, is read too (see `lenient`): a quoted
/// scalar's continuation lines indented less than the block that holds it.
pub fn parse(text: &str) -> Stream<'_> {
    let stream = parse_as_written(text);
    let quoted_indent = |e: &Option<SyntaxError>| {
        e.as_ref()
            .is_some_and(|e| e.message == QUOTED_INDENT_MESSAGE)
    };
    if !quoted_indent(&stream.error) && !stream.documents.iter().any(|d| quoted_indent(&d.error)) {
        return stream;
    }
    lenient(text).unwrap_or(stream)
}

/// The parser's message for a quoted scalar's continuation line indented too little.
const QUOTED_INDENT_MESSAGE: &str = "invalid indentation in multiline quoted scalar";

fn parse_as_written(text: &str) -> Stream<'_> {
    let mut parser = Parser::new_from_str_with_options(text, options());
    let mut builder = Builder::default();
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok((event, span))) => {
                if builder.event(event, byte_range(&span)) {
                    break;
                }
            }
            Some(Err(error)) => {
                let offset = error
                    .marker()
                    .byte_offset()
                    .unwrap_or(text.len())
                    .min(text.len());
                builder.error(SyntaxError {
                    offset,
                    message: error.kind().to_string(),
                });
                match parser.proceed_next_document() {
                    Ok(true) => continue,
                    Ok(false) => break,
                    Err(_) => break,
                }
            }
        }
    }
    builder.finish(text.len())
}

/// How many continuation lines [`lenient`] re-indents, at most, before it gives up.
const LENIENT_LINES: usize = 4096;

/// The stream as go-yaml reads it, when it refuses only quoted scalars whose continuation lines
/// are indented less than the block that holds them (`- description: 'first line` then
/// `continued here'` at the dash's column, as generated CRDs have them). The YAML specification
/// wants them indented more (s-flow-line-prefix(n), 7.3.1), and so does the parser; libyaml and
/// its Go port go-yaml, which the API server's decoder and kubectl use (sigs.k8s.io/yaml over
/// its goyaml.v2 fork; scannerc.go `yaml_parser_scan_flow_scalar`), check no indentation inside
/// a quoted scalar: a continuation line's leading white space is folded away, whatever it is.
/// So such lines are indented further, by spaces the value never holds, in a copy of the text
/// that is parsed in place of it, and every place is mapped back to the text as written.
/// `None` when that does not make the text parse as go-yaml would (another error comes first).
fn lenient(text: &str) -> Option<Stream<'_>> {
    // First with the continuation lines a look at the text finds (one parse for a CRD with
    // hundreds of them), then, if those were not all inside quoted scalars, with only those
    // the parser points at, one by one.
    lenient_from(text, guess_reindents(text)).or_else(|| lenient_from(text, Vec::new()))
}

/// [`lenient`], with `inserts` (offset in the text as written, how many spaces, in order) to
/// start from; `None` when an inserted space would be anywhere but inside a quoted scalar
/// (where a line's leading white space is folded away), or nothing was to be inserted.
fn lenient_from(text: &str, mut inserts: Vec<(usize, usize)>) -> Option<Stream<'_>> {
    let mut patched = apply_inserts(text, &inserts);
    let mut fixed = 0;
    while let Some(at) = first_quoted_indent_error(&patched) {
        fixed += 1;
        if fixed > LENIENT_LINES {
            return None;
        }
        let map = Offsets::new(&inserts);
        for (offset, n) in reindent(&patched, at)? {
            let original = map.original(offset);
            let i = inserts.partition_point(|&(o, _)| o <= original);
            inserts.insert(i, (original, n));
        }
        patched = apply_inserts(text, &inserts);
    }
    if inserts.is_empty() {
        return None;
    }
    let map = Offsets::new(&inserts);
    let mut parser = Parser::new_from_str_with_options(&patched, options());
    let mut builder: Builder<'_> = Builder::default();
    // The quoted scalars' places in the patched text, and where the first error is.
    let mut quoted: Vec<Range<usize>> = Vec::new();
    let mut first_error = usize::MAX;
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok((event, span))) => {
                let range = byte_range(&span);
                if let Event::Scalar(_, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted, ..) =
                    &event
                {
                    quoted.push(range.clone());
                }
                let range = map.original(range.start)..map.original(range.end);
                if builder.event(owned(event), range) {
                    break;
                }
            }
            Some(Err(error)) => {
                let at = error.marker().byte_offset().unwrap_or(patched.len());
                first_error = first_error.min(at);
                builder.error(SyntaxError {
                    offset: map.original(at).min(text.len()),
                    message: error.kind().to_string(),
                });
                match parser.proceed_next_document() {
                    Ok(true) => continue,
                    Ok(false) => break,
                    Err(_) => break,
                }
            }
        }
    }
    let inside = |at: usize| {
        let i = quoted.partition_point(|r| r.start < at);
        i > 0 && at < quoted[i - 1].end
    };
    let all_inside = map
        .inserts
        .iter()
        .all(|&(at, ..)| at >= first_error || inside(at));
    all_inside.then(|| builder.finish(text.len()))
}

/// The text with `inserts` (offset, how many spaces) made.
fn apply_inserts(text: &str, inserts: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len() + inserts.iter().map(|i| i.1).sum::<usize>());
    let mut from = 0;
    for &(at, n) in inserts {
        out.push_str(&text[from..at]);
        out.extend(std::iter::repeat_n(' ', n));
        from = at;
    }
    out.push_str(&text[from..]);
    out
}

/// The continuation lines of quoted scalars indented no further than the block that holds
/// them, as a look at the text finds them: a line whose value (after its indentation, any `- `
/// and a `key: `) opens a quote it does not close, then the lines up to the one that closes it.
/// A guess, checked by [`lenient_from`] against what the parser reads.
fn guess_reindents(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    // An open quoted scalar: its quote, and the column its lines need.
    let mut open: Option<(char, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some((quote, wanted)) = open {
            let indent = body.len() - body.trim_start_matches(' ').len();
            if !body.trim().is_empty() && indent < wanted {
                out.push((start, wanted - indent));
            }
            if closes(body.trim_start(), quote) {
                open = None;
            }
            continue;
        }
        let trimmed = body.trim_start_matches(' ');
        let mut column = body.len() - trimmed.len();
        let mut rest = trimmed;
        while let Some(r) = rest.strip_prefix("- ") {
            let r2 = r.trim_start_matches(' ');
            column += rest.len() - r2.len();
            rest = r2;
        }
        let content = column;
        if let Some(colon) = rest.find(": ") {
            let key = &rest[..colon];
            if !key.is_empty() && !key.contains(['\'', '"', '#', '{', '[', '|', '>']) {
                rest = rest[colon + 1..].trim_start_matches(' ');
            }
        }
        let Some(quote) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') else {
            continue;
        };
        if !closes(&rest[1..], quote) {
            open = Some((quote, content + 1));
        }
    }
    out
}

/// Whether `text` (inside a quoted scalar) holds its closing `quote`: a `'` not doubled, a `"`
/// not escaped.
fn closes(text: &str, quote: char) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            ('\'', '\'') => {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                } else {
                    return true;
                }
            }
            ('"', '\\') => {
                chars.next();
            }
            ('"', '"') => return true,
            _ => {}
        }
    }
    false
}

/// Where the first quoted scalar continuation line indented too little starts its content, if
/// that is the text's first error in some document.
fn first_quoted_indent_error(text: &str) -> Option<usize> {
    let mut parser = Parser::new_from_str_with_options(text, options());
    loop {
        match parser.next_event()? {
            Ok((Event::StreamEnd, _)) => return None,
            Ok(_) => {}
            Err(error) => {
                if *error.kind() == granit_parser::ErrorKind::InvalidQuotedScalarIndent {
                    return error.marker().byte_offset();
                }
                if !matches!(parser.proceed_next_document(), Ok(true)) {
                    return None;
                }
            }
        }
    }
}

/// The spaces to insert (offset, how many) that indent the quoted scalar's continuation lines
/// from the one whose content starts at `at` to the one that closes it (the first that holds a
/// quote) past the line before them: past its first content after any `- ` indicators, the
/// block's key or item, so past the block's indentation.
fn reindent(text: &str, at: usize) -> Option<Vec<(usize, usize)>> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let before = text[..line_start.checked_sub(1)?]
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())?;
    let mut content = before.len() - before.trim_start().len();
    let mut rest = before.trim_start();
    while let Some(r) = rest
        .strip_prefix("- ")
        .or_else(|| (rest == "-").then_some(""))
    {
        let r_trimmed = r.trim_start_matches(' ');
        content += rest.len() - r_trimmed.len();
        rest = r_trimmed;
    }
    let wanted = content + 1;
    let mut out = Vec::new();
    let mut offset = line_start;
    for line in text[line_start..].split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if !line.trim().is_empty() && indent < wanted {
            out.push((offset, wanted - indent));
        }
        offset += line.len();
        if line.contains(['\'', '"']) {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Maps offsets in a text with spaces inserted back to the text as written.
struct Offsets {
    /// Per insertion: where it starts in the patched text, where it is in the text as written,
    /// how many spaces, and how many were inserted up to and with it.
    inserts: Vec<(usize, usize, usize, usize)>,
}

impl Offsets {
    fn new(inserts: &[(usize, usize)]) -> Self {
        let mut shift = 0;
        let inserts = inserts
            .iter()
            .map(|&(original, n)| {
                let at = original + shift;
                shift += n;
                (at, original, n, shift)
            })
            .collect();
        Offsets { inserts }
    }

    /// The offset in the text as written of `patched`; an inserted space maps to the place it
    /// was inserted at.
    fn original(&self, patched: usize) -> usize {
        let i = self.inserts.partition_point(|&(at, ..)| at <= patched);
        if i == 0 {
            return patched;
        }
        let (at, original, n, shift) = self.inserts[i - 1];
        if patched < at + n {
            original
        } else {
            patched - shift
        }
    }
}

/// An event that borrows nothing from the text it was parsed from.
fn owned(event: Event<'_>) -> Event<'static> {
    fn own(s: Cow<'_, str>) -> Cow<'static, str> {
        Cow::Owned(s.into_owned())
    }
    fn own_tag(t: Option<Cow<'_, granit_parser::Tag>>) -> Option<Cow<'static, granit_parser::Tag>> {
        t.map(|t| Cow::Owned(t.into_owned()))
    }
    match event {
        Event::StreamStart => Event::StreamStart,
        Event::StreamEnd => Event::StreamEnd,
        Event::DocumentStart(explicit, version) => Event::DocumentStart(explicit, version),
        Event::DocumentEnd => Event::DocumentEnd,
        Event::Alias(id) => Event::Alias(id),
        Event::Anchor(id, name) => Event::Anchor(id, own(name)),
        Event::UnresolvedAlias(name) => Event::UnresolvedAlias(own(name)),
        Event::Comment(text, placement) => Event::Comment(own(text), placement),
        Event::Scalar(value, style, anchor, tag) => {
            Event::Scalar(own(value), style, anchor, own_tag(tag))
        }
        Event::SequenceStart(style, anchor, tag) => {
            Event::SequenceStart(style, anchor, own_tag(tag))
        }
        Event::SequenceEnd => Event::SequenceEnd,
        Event::MappingStart(style, anchor, tag) => Event::MappingStart(style, anchor, own_tag(tag)),
        Event::MappingEnd => Event::MappingEnd,
        // (None other in the pinned version; the builder ignores a stream start.)
        _ => Event::StreamStart,
    }
}

#[derive(Default)]
struct Builder<'a> {
    documents: Vec<Document<'a>>,
    comments: Vec<Comment<'a>>,
    stream_error: Option<SyntaxError>,
    current: Option<DocBuilder<'a>>,
}

struct DocBuilder<'a> {
    doc: Document<'a>,
    /// Open collections.
    stack: Vec<Open>,
    /// For each anchor id of the parser: its node, and that node's expanded size (aliases
    /// followed; a collection's is known once it closes). Only anchored nodes need a size.
    anchors: Vec<Anchored>,
    /// Nodes the decoder visits so far, aliases followed, and how many of those it reaches
    /// through an alias.
    decoded: u64,
    aliased: u64,
}

/// A collection being built.
struct Open {
    id: NodeId,
    children: Vec<NodeId>,
    /// Its expanded size so far: itself and its children's.
    size: u64,
    anchored: bool,
}

struct Anchored {
    anchor: usize,
    node: NodeId,
    size: u64,
}

fn byte_range(span: &Span) -> Range<usize> {
    span.byte_range().unwrap_or(0..0)
}

fn style_of(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
    }
}

fn tag_text(tag: Option<&granit_parser::Tag>) -> Option<Tag> {
    let tag = tag?;
    Some(match tag.core_suffix() {
        Some(suffix) => Tag(Box::new(format!("!!{suffix}").into_boxed_str())),
        None => Tag(Box::new(tag.original().into_boxed_str())),
    })
}

impl<'a> Builder<'a> {
    /// Feeds one event; returns true at the end of the stream.
    fn event(&mut self, event: Event<'a>, range: Range<usize>) -> bool {
        match event {
            Event::StreamStart | Event::Anchor(..) => {}
            Event::StreamEnd => return true,
            Event::Comment(text, _) => self.comments.push(Comment { span: range, text }),
            Event::DocumentStart(..) => {
                self.close_document(range.start);
                self.current = Some(DocBuilder {
                    doc: Document {
                        index: self.documents.len(),
                        span: range,
                        root: None,
                        nodes: Vec::new(),
                        error: None,
                        replaced: Vec::new(),
                    },
                    stack: Vec::new(),
                    anchors: Vec::new(),
                    decoded: 0,
                    aliased: 0,
                });
            }
            Event::DocumentEnd => {
                if let Some(current) = &mut self.current {
                    current.doc.span.end = range.end.max(current.doc.span.start);
                }
                self.close_document(range.end);
            }
            Event::Scalar(value, style, anchor, tag) => {
                let node = Node {
                    span: range,
                    tag: tag_text(tag.as_deref()),
                    kind: NodeKind::Scalar {
                        value,
                        style: style_of(style),
                    },
                };
                self.push_leaf(node, anchor, 1);
            }
            Event::Alias(anchor) => {
                let Some(current) = &mut self.current else {
                    return false;
                };
                match current.anchors.iter().rev().find(|a| a.anchor == anchor) {
                    Some(&Anchored {
                        node: target,
                        size: through,
                        ..
                    }) => {
                        // The decoder visits the alias node, then its target's whole subtree.
                        current.aliased = current.aliased.saturating_add(through);
                        let node = Node {
                            span: range,
                            tag: None,
                            kind: NodeKind::Alias { target },
                        };
                        self.push_leaf(node, 0, through.saturating_add(1));
                    }
                    None => {
                        let node = Node {
                            span: range.clone(),
                            tag: None,
                            kind: NodeKind::UnknownAlias {
                                name: Cow::Borrowed(""),
                            },
                        };
                        self.push_leaf(node, 0, 1);
                    }
                }
            }
            Event::UnresolvedAlias(name) => {
                let node = Node {
                    span: range,
                    tag: None,
                    kind: NodeKind::UnknownAlias { name },
                };
                self.push_leaf(node, 0, 1);
            }
            Event::SequenceStart(style, anchor, tag) => {
                let flow = style == StructureStyle::Flow;
                self.open_collection(false, flow, anchor, tag_text(tag.as_deref()), range);
            }
            Event::MappingStart(style, anchor, tag) => {
                let flow = style == StructureStyle::Flow;
                self.open_collection(true, flow, anchor, tag_text(tag.as_deref()), range);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.close_collection(range.end);
            }
            // Events a later parser version may add carry no node.
            _ => {}
        }
        false
    }

    fn push_leaf(&mut self, node: Node<'a>, anchor: usize, size: u64) {
        let Some(current) = &mut self.current else {
            return;
        };
        let id = current.add(node, size);
        if anchor != 0 {
            current.anchors.push(Anchored {
                anchor,
                node: id,
                size,
            });
        }
        self.attach(id, size);
    }

    /// Makes a node of `size` (expanded) the next child of the open collection, or the root.
    fn attach(&mut self, id: NodeId, size: u64) {
        let Some(current) = &mut self.current else {
            return;
        };
        match current.stack.last_mut() {
            Some(open) => {
                open.children.push(id);
                open.size = open.size.saturating_add(size);
            }
            None => current.doc.root = Some(id),
        }
    }

    fn open_collection(
        &mut self,
        mapping: bool,
        flow: bool,
        anchor: usize,
        tag: Option<Tag>,
        range: Range<usize>,
    ) {
        let Some(current) = &mut self.current else {
            return;
        };
        let kind = if mapping {
            NodeKind::Mapping {
                entries: Vec::new(),
                flow,
            }
        } else {
            NodeKind::Sequence {
                items: Vec::new(),
                flow,
            }
        };
        let id = current.add(
            Node {
                span: range,
                tag,
                kind,
            },
            1,
        );
        if anchor != 0 {
            current.anchors.push(Anchored {
                anchor,
                node: id,
                size: 1,
            });
        }
        current.stack.push(Open {
            id,
            children: Vec::new(),
            size: 1,
            anchored: anchor != 0,
        });
    }

    fn close_collection(&mut self, end: usize) {
        let Some(current) = &mut self.current else {
            return;
        };
        let Some(Open {
            id,
            children,
            size,
            anchored,
        }) = current.stack.pop()
        else {
            return;
        };
        if anchored {
            if let Some(a) = current.anchors.iter_mut().rev().find(|a| a.node == id) {
                a.size = size;
            }
        }
        let node = &mut current.doc.nodes[id as usize];
        node.span.end = end.max(node.span.start);
        match &mut node.kind {
            NodeKind::Mapping { entries, .. } => {
                *entries = children
                    .chunks(2)
                    .filter(|pair| pair.len() == 2)
                    .map(|pair| (pair[0], pair[1]))
                    .collect();
            }
            NodeKind::Sequence { items, .. } => *items = children,
            _ => {}
        }
        self.attach(id, size);
    }

    fn error(&mut self, error: SyntaxError) {
        match &mut self.current {
            Some(current) => {
                if current.doc.error.is_none() {
                    current.doc.error = Some(error);
                }
                current.doc.span.end = current.doc.span.end.max(current.doc.span.start);
                self.close_document(usize::MAX);
            }
            None => {
                if self.stream_error.is_none() {
                    self.stream_error = Some(error);
                }
            }
        }
    }

    fn close_document(&mut self, end: usize) {
        if let Some(mut current) = self.current.take() {
            if end != usize::MAX {
                current.doc.span.end = end.max(current.doc.span.start);
            }
            // A broken document may leave collections open: keep what was built, unattached.
            self.documents.push(current.doc);
        }
    }

    fn finish(mut self, len: usize) -> Stream<'a> {
        self.close_document(len);
        Stream {
            documents: self.documents,
            comments: self.comments,
            error: self.stream_error,
        }
    }
}

impl<'a> DocBuilder<'a> {
    /// Adds a node that the decoder visits `size` times once aliases are expanded (an alias
    /// stands for its target's subtree; its share was added to `aliased` by the caller).
    fn add(&mut self, node: Node<'a>, size: u64) -> NodeId {
        let id = self.doc.nodes.len() as NodeId;
        self.decoded = self.decoded.saturating_add(size);
        if self.doc.error.is_none() && excessive_aliasing(self.decoded, self.aliased) {
            self.doc.error = Some(SyntaxError {
                offset: node.span.start,
                message: format!(
                    "document contains excessive aliasing: {} of its {} nodes would come from \
                     expanding aliases",
                    self.aliased, self.decoded
                ),
            });
        }
        self.doc.nodes.push(node);
        id
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_look_at_the_text_finds_every_continuation_line_of_a_crd() {
        // Two under-indented continuation lines per description, found without the parser:
        // one parse reads them all, not one per line.
        let mut text = String::from("properties:\n");
        for i in 0..50 {
            text.push_str(&format!(
                "  - description: 'Field {i} does\n  things ''well''\n  and more'\n    type: string\n"
            ));
        }
        let guessed = super::guess_reindents(&text);
        assert_eq!(guessed.len(), 100);
        assert!(guessed.iter().all(|&(_, n)| n == 3));
        let stream = super::lenient_from(&text, guessed).expect("read");
        assert!(stream.documents[0].error.is_none());
        assert!(super::first_quoted_indent_error(&super::apply_inserts(
            &text,
            &super::guess_reindents(&text)
        ))
        .is_none());
        // Closing quotes: a doubled `'` and an escaped `"` close nothing.
        assert!(!super::closes("it''s", '\''));
        assert!(super::closes("it''s'", '\''));
        assert!(!super::closes("say \\\"hi", '"'));
        assert!(super::closes("hi\"", '"'));
    }

    use super::*;

    /// A 37 MB file is some three million nodes: every byte of a node counts three times over.
    #[test]
    fn a_node_stays_small() {
        assert!(std::mem::size_of::<Node<'_>>() <= 56);
        assert_eq!(std::mem::size_of::<Option<Tag>>(), 8);
    }

    /// The expansion count follows aliases to anchored collections, however deep.
    #[test]
    fn aliases_count_their_targets_whole_subtree() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let stream = parse(&text);
        let error = stream.documents[0].error.as_ref().expect("an alias bomb");
        assert!(
            error.message.contains("excessive aliasing"),
            "{}",
            error.message
        );
        // The same shape, two levels deep, is a small document.
        let small: String = text.lines().take(3).collect::<Vec<_>>().join("\n");
        assert!(parse(&small).documents[0].error.is_none());
    }
}
