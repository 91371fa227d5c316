//! YAML text to documents of positioned nodes.
//!
//! This is the only module that knows the YAML parser. Every node carries the exact byte range of
//! its source text; aliases stay references (never copied), and a document in which too much
//! comes from alias expansion is rejected, as the API server's decoder rejects "excessive
//! aliasing" (see [`excessive_aliasing`]), so nothing downstream can be made to walk an alias
//! bomb. A document without aliases is never refused for its size.

use std::borrow::Cow;
use std::ops::Range;

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
                items[index] = node;
                true
            }
            _ => false,
        }
    }
}

/// Parses a whole stream. Never fails: syntax errors are recorded on the document they occur in
/// (and parsing resumes at the next document), or on the stream when no document is open.
pub fn parse(text: &str) -> Stream<'_> {
    let options = granit_parser::options! {
        emit_unresolved_aliases: true,
        // The parser buffers the comments between a key and what follows it until it knows
        // what that is: 96 by default, which refuses the commented-out default configuration
        // under a chart values file's `config:`. Every buffered comment is text of the input,
        // so no bound is needed beyond the input's own size.
        max_buffered_comment_events: usize::MAX,
    };
    // `simple_key_max_lookahead` stays at the YAML specification's 1024 characters for an
    // implicit key, which go-yaml (scannerc.go, `yaml_parser_stale_simple_keys`) enforces too:
    // a longer key is refused by the API server's decoder as well. The nesting limits (255)
    // keep every recursive walk over the tree shallow.

    let mut parser = Parser::new_from_str_with_options(text, options);
    let mut builder = Builder::default();
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok((event, span))) => {
                if builder.event(event, span) {
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
    fn event(&mut self, event: Event<'a>, span: Span) -> bool {
        let range = byte_range(&span);
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
