//! Where each byte of a string scalar's value is written in the source, and edits of a value
//! written back into the source: what lets YAML held in a string (a values file in an Argo CD
//! Application, an inline kustomize patch, a JSON annotation) be linted, shown and fixed at its
//! own characters.

use std::ops::Range;

use super::{Document, NodeId, Style};

/// Where a byte offset of a string scalar's value is in the source (`offset` may be the
/// value's length: its end). See [`value_offsets`] for which scalars can be mapped.
pub fn value_offset(doc: &Document<'_>, text: &str, node: NodeId, offset: usize) -> Option<usize> {
    value_offsets(doc, text, node)?.get(offset).copied()
}

/// For each byte offset of a string scalar's value (and its end), the byte offset in the source
/// where it is written. Plain scalars and quoted ones on one line (escapes included: every byte
/// an escape stands for maps to its backslash) and literal block scalars (`|`, `|-`, `|+`) map;
/// a folded block scalar (`>`) or a quoted or plain one that spans lines does not (`None`),
/// as line folding joins lines the source keeps apart.
pub fn value_offsets(doc: &Document<'_>, text: &str, node: NodeId) -> Option<Vec<usize>> {
    let (value, style) = doc.scalar(node)?;
    let span = doc.node(node).span.clone();
    let src = text.get(span.clone())?;
    let mut map = Vec::with_capacity(value.len() + 1);
    match style {
        Style::Plain => {
            if src != value {
                return None;
            }
            map.extend(span.start..=span.end);
        }
        Style::SingleQuoted => single_quoted_offsets(src, &span, &mut map)?,
        Style::DoubleQuoted => double_quoted_offsets(src, &span, value, &mut map)?,
        Style::Literal => literal_offsets(text, &span, value, &mut map)?,
        Style::Folded => return None,
    }
    (map.len() == value.len() + 1).then_some(map)
}

/// A string scalar whose value maps to the source byte for byte ([`value_offsets`]), and how an
/// edit of its value is written back into the source.
#[derive(Debug, Clone)]
pub struct MappedString {
    /// The source offset of every byte of the value, and of its end.
    pub map: Vec<usize>,
    style: Style,
    /// A literal block's indentation, as its first content line writes it; `None` when that
    /// is not plain spaces (then nothing is written into the block).
    indent: Option<String>,
    /// The line break the scalar's source uses.
    newline: &'static str,
    /// Where the string is: its document's index and the steps from that document's root.
    document: usize,
    path: Vec<Step>,
    /// Whether its document parsed without an error.
    clean: bool,
}

impl MappedString {
    /// The string `node` holds (through an alias, where its anchor writes it), when it maps.
    pub fn new(doc: &Document<'_>, text: &str, node: NodeId) -> Option<MappedString> {
        let node = doc.resolve(node);
        let (_, style) = doc.scalar(node)?;
        let map = value_offsets(doc, text, node)?;
        let written = text.get(doc.node(node).span.clone()).unwrap_or_default();
        let newline = if written.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let indent = (style == Style::Literal)
            .then(|| block_indent(text, &map))
            .flatten();
        Some(MappedString {
            map,
            style,
            indent,
            newline,
            document: doc.index,
            path: path_to(doc, node)?,
            clean: doc.error.is_none(),
        })
    }

    /// A range of the value as a range of the source.
    pub fn range(&self, range: &Range<usize>) -> Range<usize> {
        let at = |i: usize| self.map[i.min(self.map.len() - 1)];
        let start = at(range.start);
        start..at(range.end).max(start)
    }

    /// Where the string is written: from its first content line's start (a literal block's
    /// indentation included) to the value's end.
    fn extent(&self, text: &str) -> Range<usize> {
        let first = self.map[0];
        let start = match self.style {
            Style::Literal => line_start(text, first),
            _ => first,
        };
        start..self.map[self.map.len() - 1]
    }

    /// An edit of the value (`range` of `value`, replaced by `replacement`) as an edit of
    /// `text`, when it can be written there so that the string then holds exactly the edited
    /// value and nothing around it changes; `None` when it cannot.
    ///
    /// In a quoted string the replacement is written escaped as the quoting escapes (a line break in a
    /// single-quoted string cannot be). In a
    /// literal block every line the replacement adds is written at the block's indentation; an
    /// edit of whole lines (from a line's start to a line's start) replaces whole lines of the
    /// source, indentation included, so that one ending at the block's end, where the next
    /// line of the file begins, neither leaves an indentation in front of that line nor
    /// swallows it; an edit that would take the block's last line break, which belongs to the
    /// block's chomping, is not written.
    pub fn edit(
        &self,
        text: &str,
        value: &str,
        range: &Range<usize>,
        replacement: &str,
    ) -> Option<(Range<usize>, String)> {
        if range.start > range.end
            || range.end > value.len()
            || !value.is_char_boundary(range.start)
            || !value.is_char_boundary(range.end)
        {
            return None;
        }
        match self.style {
            Style::Literal => self.literal_edit(text, value, range, replacement),
            // Each character of the value maps to the start of what writes it (an escape
            // included), so the range's source replaces exactly its characters, escapes and
            // all; the replacement is written escaped as the string's quoting escapes.
            Style::DoubleQuoted => Some((self.range(range), escape_double(replacement))),
            Style::SingleQuoted => {
                // A line break in a single-quoted string is folded: it cannot be written.
                (!replacement.chars().any(char::is_control))
                    .then(|| (self.range(range), replacement.replace('\'', "''")))
            }
            Style::Plain | Style::Folded => None,
        }
    }

    fn literal_edit(
        &self,
        text: &str,
        value: &str,
        range: &Range<usize>,
        replacement: &str,
    ) -> Option<(Range<usize>, String)> {
        let indent = self.indent.as_deref()?;
        let n = value.len();
        let at_line_start = |p: usize| p == 0 || value.as_bytes()[p - 1] == b'\n';
        // The value ends in a line break, and its end maps to the next line of the file (or
        // the file's end).
        let broken = value.ends_with('\n');
        // The file ends without the block's last line break.
        let unwritten = broken && !text[..self.map[n]].ends_with('\n');
        let whole_lines = at_line_start(range.start)
            && at_line_start(range.end)
            && (replacement.is_empty() || replacement.ends_with('\n'));
        if whole_lines {
            let outer_line = |p: usize| {
                if p == n {
                    self.map[n]
                } else {
                    line_start(text, self.map[p])
                }
            };
            let mut lines = String::new();
            for line in replacement.split_inclusive('\n') {
                let body = line.strip_suffix('\n').unwrap_or(line);
                if !body.is_empty() {
                    lines.push_str(indent);
                    lines.push_str(body);
                }
                lines.push_str(self.newline);
            }
            if unwritten && range.start == n && !lines.is_empty() {
                // Added after a last line the file does not end: that line's break first.
                lines.insert_str(0, self.newline);
            }
            return Some((outer_line(range.start)..outer_line(range.end), lines));
        }
        if !broken
            && range.end == n
            && at_line_start(range.start)
            && (replacement.is_empty() || replacement.ends_with('\n'))
        {
            // Whole lines up to the end of a block whose chomping strips its last break (`|-`):
            // they are written without a last break of their own, and when none are written
            // the line before loses its break instead.
            if replacement.is_empty() && range.start > 0 {
                return Some((self.map[range.start - 1]..self.map[n], String::new()));
            }
            let mut lines = String::new();
            for line in replacement.split_inclusive('\n') {
                let body = line.strip_suffix('\n').unwrap_or(line);
                if !body.is_empty() {
                    lines.push_str(indent);
                    lines.push_str(body);
                }
                lines.push_str(self.newline);
            }
            lines.truncate(lines.len().saturating_sub(self.newline.len()));
            return Some((line_start(text, self.map[range.start])..self.map[n], lines));
        }
        let at_end = broken && range.end == n;
        if at_end && !replacement.ends_with('\n') {
            // It would take the block's last line break, and join the next line to it.
            return None;
        }
        let mut lines = replacement.replace('\n', &format!("{}{indent}", self.newline));
        if at_end {
            // The last break is followed by the file's next line, not by the block.
            lines.truncate(lines.len() - indent.len());
        }
        Some((self.range(range), lines))
    }

    /// Whether writing `edits` (of `text`, as [`MappedString::edit`] makes them) into the
    /// string leaves the file parsing as it did and the string holding exactly `expected` (in a
    /// literal block, up to the last line breaks its chomping decides), with every edit inside
    /// the string: the check a fix passes before it is offered.
    pub fn writes(&self, text: &str, edits: &[(Range<usize>, &str)], expected: &str) -> bool {
        let extent = self.extent(text);
        if edits
            .iter()
            .any(|(r, _)| r.start < extent.start || r.end > extent.end || r.start > r.end)
        {
            return false;
        }
        let mut sorted: Vec<_> = edits.to_vec();
        sorted.sort_by_key(|(r, _)| (r.start, r.end));
        if sorted.windows(2).any(|w| w[0].0.end > w[1].0.start) {
            return false;
        }
        let mut new = String::with_capacity(text.len() + 64);
        let mut at = 0;
        for (r, replacement) in &sorted {
            new.push_str(&text[at..r.start]);
            new.push_str(replacement);
            at = r.end;
        }
        new.push_str(&text[at..]);
        let stream = super::parse(&new);
        let Some(after) = stream.documents.get(self.document) else {
            return false;
        };
        // (Every edit is inside this document's string: nothing can break the stream around
        // the documents.)
        if after.error.is_some() && self.clean {
            return false;
        }
        let Some((value, style)) = follow(after, &self.path).and_then(|n| after.scalar(n)) else {
            return false;
        };
        if style != self.style {
            return false;
        }
        match style {
            // A block's last line breaks are its chomping's to keep or strip: the same text
            // before them is the same YAML.
            Style::Literal => value.trim_end_matches('\n') == expected.trim_end_matches('\n'),
            _ => value == expected,
        }
    }
}

/// Where the line that holds `offset` starts.
fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// `text` as a YAML double-quoted string writes it (without the quotes): a backslash, a quote
/// and every control character escaped (YAML 1.2 section 5.7, escaped characters).
fn escape_double(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The indentation of a literal block scalar's content lines (what a line break in an edit's
/// replacement is followed by), read where its value's first byte is written: a literal that
/// maps starts with a content line ([`literal_offsets`] maps none that starts with an empty
/// line).
fn block_indent(text: &str, map: &[usize]) -> Option<String> {
    let at = *map.first()?;
    let indent = &text[line_start(text, at)..at];
    indent
        .bytes()
        .all(|b| b == b' ')
        .then(|| indent.to_string())
}

/// One step from a node to a child: the value of a mapping's entry, or a sequence's item, by
/// position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Entry(usize),
    Item(usize),
}

/// The steps from the document's root to `target`, where it is written (aliases are not
/// followed).
fn path_to(doc: &Document<'_>, target: NodeId) -> Option<Vec<Step>> {
    fn walk(doc: &Document<'_>, node: NodeId, target: NodeId, path: &mut Vec<Step>) -> bool {
        if node == target {
            return true;
        }
        let span = &doc.node(node).span;
        let there = &doc.node(target).span;
        if there.start < span.start || there.end > span.end {
            return false;
        }
        match &doc.node(node).kind {
            super::NodeKind::Mapping { entries, .. } => {
                for (i, &(_, value)) in entries.iter().enumerate() {
                    path.push(Step::Entry(i));
                    if walk(doc, value, target, path) {
                        return true;
                    }
                    path.pop();
                }
                false
            }
            super::NodeKind::Sequence { items, .. } => {
                for (i, &item) in items.iter().enumerate() {
                    path.push(Step::Item(i));
                    if walk(doc, item, target, path) {
                        return true;
                    }
                    path.pop();
                }
                false
            }
            _ => false,
        }
    }
    let mut path = Vec::new();
    walk(doc, doc.root?, target, &mut path).then_some(path)
}

/// The node the steps lead to.
fn follow(doc: &Document<'_>, path: &[Step]) -> Option<NodeId> {
    let mut node = doc.root?;
    for step in path {
        node = match (step, &doc.node(node).kind) {
            (Step::Entry(i), super::NodeKind::Mapping { entries, .. }) => entries.get(*i)?.1,
            (Step::Item(i), super::NodeKind::Sequence { items, .. }) => *items.get(*i)?,
            _ => return None,
        };
    }
    Some(node)
}

/// A single-quoted scalar on one line: `''` stands for one quote.
fn single_quoted_offsets(src: &str, span: &Range<usize>, map: &mut Vec<usize>) -> Option<()> {
    let inner = src.get(1..src.len().checked_sub(1)?)?;
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i..].chars().next()?;
        if c == '\n' || c == '\r' {
            return None;
        }
        let at = span.start + 1 + i;
        if inner[i..].starts_with("''") {
            map.push(at);
            i += 2;
            continue;
        }
        map.extend(std::iter::repeat_n(at, c.len_utf8()));
        i += c.len_utf8();
    }
    map.push(span.end - 1);
    Some(())
}

/// A double-quoted scalar on one line: every byte an escape stands for maps to its backslash;
/// `None` for an escape YAML does not have, or text that does not decode to `value`.
fn double_quoted_offsets(
    src: &str,
    span: &Range<usize>,
    value: &str,
    map: &mut Vec<usize>,
) -> Option<()> {
    let inner = src.get(1..src.len().checked_sub(1)?)?;
    let mut decoded = String::new();
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i..].chars().next()?;
        if c == '\n' || c == '\r' {
            return None;
        }
        let at = span.start + 1 + i;
        if c != '\\' {
            decoded.push(c);
            map.extend(std::iter::repeat_n(at, c.len_utf8()));
            i += c.len_utf8();
            continue;
        }
        let e = inner[i + 1..].chars().next()?;
        let (ch, width) = match e {
            'x' => (hex_char(inner.get(i + 2..i + 4)?)?, 4),
            'u' => (hex_char(inner.get(i + 2..i + 6)?)?, 6),
            'U' => (hex_char(inner.get(i + 2..i + 10)?)?, 10),
            other => (
                match other {
                    '0' => '\0',
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    't' | '\t' => '\t',
                    'n' => '\n',
                    'v' => '\u{b}',
                    'f' => '\u{c}',
                    'r' => '\r',
                    'e' => '\u{1b}',
                    ' ' => ' ',
                    '"' => '"',
                    '/' => '/',
                    '\\' => '\\',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    _ => return None,
                },
                1 + other.len_utf8(),
            ),
        };
        decoded.push(ch);
        map.extend(std::iter::repeat_n(at, ch.len_utf8()));
        i += width;
    }
    if decoded != value {
        return None;
    }
    map.push(span.end - 1);
    Some(())
}

/// A literal block scalar (`|`, `|-`, `|+`, with or without an indentation indicator): its
/// content lines at one indentation. granit-parser (2.1.0, `scan_block_scalar`) starts the span
/// of a literal with content at its first content character, in the column its indentation
/// sets, so that column is the indentation. A literal without content (its value no more than
/// line breaks) has nothing to map, and its span is not where it is written: it starts at the
/// `|` header when the stream ends after it, else it is empty at the next line's first
/// character (`None`).
///
/// A line break maps to where its line's text ends (the `\r` of a CRLF), also on an empty line
/// written with less indentation than the block's. The value's end maps past the last byte; when
/// the value ends in a line break, past that whole break (`\r\n` included): the start of the
/// next line of the file, or the file's end when the file ends without one.
fn literal_offsets(
    text: &str,
    span: &Range<usize>,
    value: &str,
    map: &mut Vec<usize>,
) -> Option<()> {
    if value.trim_start_matches('\n').is_empty() {
        return None;
    }
    let body_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = span.start - body_start;
    let body = &text[body_start..span.end];
    let mut lines = body.split_inclusive('\n');
    let mut at = body_start;
    for want in value.split_inclusive('\n') {
        let line = lines.next()?;
        let written = line.trim_end_matches(['\n', '\r']);
        let skip = indent.min(written.len());
        let content = &written[skip..];
        let content_at = at + skip;
        let want_text = want.trim_end_matches('\n');
        if content != want_text {
            return None;
        }
        map.extend((0..want_text.len()).map(|j| content_at + j));
        if want.ends_with('\n') {
            map.push(content_at + want_text.len());
        }
        at += line.len();
    }
    let last = *map.last()?;
    let end = if value.ends_with('\n') {
        // Past the line break as written; at the end of a file without a final line break,
        // the one clip chomping keeps is not in the source, and the end is the text's.
        let after = &text[last..];
        last + if after.starts_with("\r\n") {
            2
        } else {
            usize::from(after.starts_with('\n'))
        }
    } else {
        last + 1
    };
    map.push(end.min(text.len()));
    Some(())
}

fn hex_char(hex: &str) -> Option<char> {
    char::from_u32(u32::from_str_radix(hex, 16).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    /// A plain scalar maps byte for byte; one that spans lines does not, nor a quoted one, even
    /// where folding keeps the length (`'a` and `b'` on two lines are `a b`: a line break read
    /// as a space).
    #[test]
    fn scalars_over_lines_do_not_map() {
        let text = "p: abc\nq: a\n  b\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let get = |k: &str| doc.get(doc.root.unwrap(), k).unwrap().1;
        assert_eq!(value_offsets(doc, text, get("p")), Some(vec![3, 4, 5, 6]));
        assert_eq!(value_offsets(doc, text, get("q")), None);
        for text in ["'a\nb'\n", "\"a\nb\"\n", "'a\rb'\n", "\"a\rb\"\n"] {
            let stream = syntax::parse(text);
            let doc = &stream.documents[0];
            let root = doc.root.unwrap();
            assert_eq!(doc.scalar(root).map(|(v, _)| v.len()), Some(3), "{text:?}");
            assert_eq!(value_offsets(doc, text, root), None, "{text:?}");
        }
    }

    /// In a single-quoted scalar `''` stands for one quote, which maps to the first of the two;
    /// the value's end maps to the closing quote.
    #[test]
    fn a_doubled_quote_maps_to_its_first() {
        for (text, want) in [
            ("k: 'a''b'\n", vec![4, 5, 7, 8]),
            ("k: '''b'''\n", vec![4, 6, 7, 9]),
            ("k: 'é'''\n", vec![4, 4, 6, 8]),
        ] {
            let stream = syntax::parse(text);
            let doc = &stream.documents[0];
            let (_, k) = doc.get(doc.root.unwrap(), "k").unwrap();
            assert_eq!(value_offsets(doc, text, k), Some(want), "{text}");
        }
    }

    /// A literal block scalar maps each content byte and line break to where it is written,
    /// after the indentation its first content line sets, and its end past its last byte.
    #[test]
    fn literal_block_scalars_map_line_by_line() {
        for (text, want) in [
            ("b: |\n  ab\n  cd\n", Some(vec![7, 8, 9, 12, 13, 14, 15])),
            ("b: |-\n  ab\n  cd\n", Some(vec![8, 9, 10, 13, 14, 15])),
            (
                "b: |\n  ab\n   cd\n",
                Some(vec![7, 8, 9, 12, 13, 14, 15, 16]),
            ),
            ("b: |2\n  ab\n", Some(vec![8, 9, 10, 11])),
            // An indentation indicator below the lines' own: the rest is content.
            ("b: |1\n  ab\n", Some(vec![7, 8, 9, 10, 11])),
            // One line, its break stripped: the end is past its last byte.
            ("b: |-\n  ab\n", Some(vec![8, 9, 10])),
            // CRLF: a line break maps to the `\r` where its line's text ends, the end past the
            // whole last break.
            ("b: |\r\n  x\r\n  y\r\n", Some(vec![8, 9, 13, 14, 16])),
            ("b: |\r\n  x\r\nc: 1\r\n", Some(vec![8, 9, 11])),
            // An empty line, written with less indentation than the block's (or none): its
            // break maps to where it is written, not past it.
            ("b: |\n  a\n\n  c\n", Some(vec![7, 8, 9, 12, 13, 14])),
            ("b: |\n  a\n \n  c\n", Some(vec![7, 8, 10, 13, 14, 15])),
            // A value that starts with an empty line: where the span starts is not where its
            // first byte is written.
            ("b: |\n\n  ab\n", None),
            // Content that starts with `|` is no header.
            ("b: |\n  |x\n", Some(vec![7, 8, 9, 10])),
            ("b: |\n  |\n  [x]\n", Some(vec![7, 8, 11, 12, 13, 14, 15])),
            ("b: |2\n  |2\n", Some(vec![8, 9, 10, 11])),
        ] {
            let stream = syntax::parse(text);
            let doc = &stream.documents[0];
            let (_, b) = doc.get(doc.root.unwrap(), "b").unwrap();
            assert_eq!(value_offsets(doc, text, b), want, "{text:?}");
        }
    }

    /// A literal block scalar with no content has nothing to map: its span starts at its `|`
    /// header when the stream ends after it, else it is empty at the next line, whose first
    /// character is not where the value is written.
    #[test]
    fn blank_literal_block_scalars_do_not_map() {
        for (text, path) in [
            ("b: |\n", &["b"][..]),
            ("b: |", &["b"]),
            ("b: |\n\n\n", &["b"]),
            ("b: |-\n  \n", &["b"]),
            ("b: |+\n\n\n", &["b"]),
            ("b: |2\n", &["b"]),
            ("b: |\nc: 1\n", &["b"]),
            ("b: |-\nc: 1\n", &["b"]),
            ("b: |+\n\n\nc: 1\n", &["b"]),
            ("x:\n  b: |\n  c: 1\n", &["x", "b"]),
            ("x:\n  b: |\n\n  c: 1\n", &["x", "b"]),
            ("b: |\n---\nc: 1\n", &["b"]),
        ] {
            let stream = syntax::parse(text);
            let doc = &stream.documents[0];
            let mut node = doc.root.unwrap();
            for key in path {
                node = doc.get(node, key).unwrap().1;
            }
            let (value, style) = doc.scalar(node).unwrap();
            assert_eq!(
                (value.trim_matches('\n'), style),
                ("", Style::Literal),
                "{text:?}"
            );
            assert_eq!(value_offsets(doc, text, node), None, "{text:?}");
        }
    }

    /// Every escape of a double-quoted scalar (YAML 1.2, 5.7 "Escaped Characters"): each byte
    /// it stands for maps to its backslash, the bytes around it to themselves, and the value's
    /// end to the closing quote.
    #[test]
    fn every_escape_maps_to_its_backslash() {
        let escapes: &[(&str, char)] = &[
            ("\\0", '\0'),
            ("\\a", '\u{7}'),
            ("\\b", '\u{8}'),
            ("\\t", '\t'),
            ("\\\t", '\t'),
            ("\\n", '\n'),
            ("\\v", '\u{b}'),
            ("\\f", '\u{c}'),
            ("\\r", '\r'),
            ("\\e", '\u{1b}'),
            ("\\ ", ' '),
            ("\\\"", '"'),
            ("\\/", '/'),
            ("\\\\", '\\'),
            ("\\N", '\u{85}'),
            ("\\_", '\u{a0}'),
            ("\\L", '\u{2028}'),
            ("\\P", '\u{2029}'),
            ("\\x41", 'A'),
            ("\\u00e9", 'é'),
            ("\\U0001F600", '😀'),
        ];
        // At the start, and after `é`, two bytes, and after three: an escape's offset in the
        // value is not its offset in the source.
        for prefix in ["", "é", "é-x"] {
            for &(escape, ch) in escapes {
                let text = format!("a: \"{prefix}{escape}z\"\n");
                let stream = syntax::parse(&text);
                let doc = &stream.documents[0];
                let (_, a) = doc.get(doc.root.unwrap(), "a").unwrap();
                assert_eq!(
                    doc.scalar(a).map(|(v, _)| v.to_string()),
                    Some(format!("{prefix}{ch}z"))
                );
                let backslash = text.find('\\').unwrap();
                let z = backslash + escape.len();
                let mut want = Vec::new();
                for (at, c) in prefix.char_indices() {
                    want.extend(std::iter::repeat_n(4 + at, c.len_utf8()));
                }
                want.extend(std::iter::repeat_n(backslash, ch.len_utf8()));
                want.extend([z, z + 1]);
                assert_eq!(value_offsets(doc, &text, a), Some(want), "{prefix}{escape}");
            }
        }
    }

    #[test]
    fn offsets_inside_a_scalar() {
        let text = "a: '[x]'\nb: \"[\\\"x\\\"]\"\nc: [x]\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let (_, a) = doc.get(doc.root.unwrap(), "a").unwrap();
        assert_eq!(value_offset(doc, text, a, 1), Some(5));
        let (_, b) = doc.get(doc.root.unwrap(), "b").unwrap();
        // `["x"]` is written `[\"x\"]`: the quote maps to its backslash, the x after it.
        assert_eq!(value_offset(doc, text, b, 1), Some(14));
        assert_eq!(value_offset(doc, text, b, 2), Some(16));
        let text = "a: 'it''s'\nb: |\n  [x,\n   y]\nc: >\n  x\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let get = |k: &str| doc.get(doc.root.unwrap(), k).unwrap().1;
        assert_eq!(value_offset(doc, text, get("a"), 3), Some(8));
        let b = get("b");
        assert_eq!(&text[value_offset(doc, text, b, 4).unwrap()..][..2], " y");
        assert_eq!(value_offset(doc, text, get("c"), 0), None);
        // A literal block scalar that ends the file without a line break: its value ends in
        // one all the same, and no offset lies past the text.
        let text = "b: |\n  [{\"key\": \"a\", \"effect\": \"NoS";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let b = doc.get(doc.root.unwrap(), "b").unwrap().1;
        let map = value_offsets(doc, text, b).expect("a literal block scalar maps");
        assert_eq!(map.last(), Some(&text.len()));
    }

    /// `path_to` finds every value and item where it is written, and `follow` leads back to
    /// it: in block and flow collections, a sequence's items at its own dash or nested in
    /// another's, an explicit key's value, under a tag or an anchor, an alias and a null, and
    /// the root itself.
    #[test]
    fn every_value_has_its_path() {
        fn walk(
            doc: &syntax::Document<'_>,
            node: NodeId,
            path: &mut Vec<Step>,
            out: &mut Vec<(NodeId, Vec<Step>)>,
        ) {
            out.push((node, path.clone()));
            let children: Vec<(Step, NodeId)> = match &doc.node(node).kind {
                syntax::NodeKind::Mapping { entries, .. } => entries
                    .iter()
                    .enumerate()
                    .map(|(i, &(_, v))| (Step::Entry(i), v))
                    .collect(),
                syntax::NodeKind::Sequence { items, .. } => items
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (Step::Item(i), v))
                    .collect(),
                _ => Vec::new(),
            };
            for (step, child) in children {
                path.push(step);
                walk(doc, child, path, out);
                path.pop();
            }
        }
        let mut checked = 0;
        for text in [
            "- |\n  a: 1\n- 'b'\n",
            "- - 'x'\n  - \"y\"\n- - z\n",
            "k:\n- |\n  a\n- b\nl: c\n",
            "k:\n- 'a: 1'\n- \"b\"\n",
            "[a, [b, 'c'], {d: \"e\"}]\n",
            "{k: 'v', l: {m: n}, o: [p]}\n",
            "? a\n: |\n  b\n? [c]\n: d\n",
            "k: !!str |\n  x\nl: !!str 'y'\n",
            "k: &x |\n  y\nl: *x\nm:\n- *x\n- &z 'w'\n",
            "k:\nl: x\nm:\n-\n- y\n",
            "a:\n  b:\n    c: |\n      d\n  e: f\n",
            "|\n  top\n",
            "'top'",
        ] {
            let stream = syntax::parse(text);
            let doc = &stream.documents[0];
            assert!(doc.error.is_none(), "{text:?}");
            let mut all = Vec::new();
            walk(doc, doc.root.unwrap(), &mut Vec::new(), &mut all);
            for (node, path) in all {
                assert_eq!(
                    path_to(doc, node).as_ref(),
                    Some(&path),
                    "{text:?}: {:?}",
                    doc.node(node).span
                );
                assert_eq!(follow(doc, &path), Some(node), "{text:?}: {path:?}");
                checked += 1;
            }
        }
        assert!(checked > 50, "{checked}");
    }

    /// A sequence written at its key's own indentation starts where its first item starts
    /// (granit-parser 2.1.0 starts a block sequence's span at its first item's node, the dash
    /// only when the sequence is indented): a quoted string that is that first item, as a
    /// kustomization's inline `patchesStrategicMerge` writes it, still maps and is edited.
    #[test]
    fn a_quoted_first_item_of_a_sequence_at_its_keys_indentation_is_edited() {
        let text = "patches:\n- 'a: 1'\n- \"b: 2\"\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let (_, seq) = doc.get(doc.root.unwrap(), "patches").unwrap();
        let items = doc.sequence(seq).unwrap();
        assert_eq!(doc.node(seq).span.start, doc.node(items[0]).span.start);
        for (&item, want) in items.iter().zip(["a: 9", "b: 9"]) {
            let (value, _) = doc.scalar(item).unwrap();
            let m = MappedString::new(doc, text, item).expect(value);
            let (range, with) = m.edit(text, value, &(3..4), "9").unwrap();
            assert!(m.writes(text, &[(range, with.as_str())], want), "{want}");
        }
    }

    /// The outer texts the edit tests write into: a literal block of YAML lines (`a: 1`, `b: 2`,
    /// `c: 3`) under `v`, in every chomping, with an indentation indicator, nested, with CRLF,
    /// with an empty line inside, followed by another key or ending the file (with and without
    /// a final line break).
    fn blocks() -> Vec<String> {
        let mut out = Vec::new();
        for header in ["|", "|-", "|+", "|2"] {
            for tail in [
                "after: kept\n",
                "after:\n  deep: kept\n",
                "",
                "# comment\nafter: x\n",
            ] {
                out.push(format!("k: 0\nv: {header}\n  a: 1\n  b: 2\n  c: 3\n{tail}"));
            }
        }
        out.push(
            "spec:\n  helm:\n    values: |\n      a: 1\n      b: 2\n  destination: d\n".into(),
        );
        out.push("k: 0\nv: |\n  a: 1\n\n  c: 3\nafter: kept\n".into());
        out.push("k: 0\nv: |\n  a: 1\n  b: 2".into());
        out.push("k: 0\nv: |-\n  a: 1\n  b: 2".into());
        out.push("k: 0\r\nv: |\r\n  a: 1\r\n  b: 2\r\nafter: kept\r\n".into());
        out.push("- v: |\n    a: 1\n    b: 2\n  after: kept\n- x\n".into());
        out
    }

    /// The path to the block in each of [`blocks`].
    fn block(doc: &syntax::Document<'_>) -> NodeId {
        let root = doc.root.unwrap();
        if let Some((_, v)) = doc.get(root, "v") {
            return v;
        }
        if let Some(spec) = doc.get_path(root, &["spec", "helm"]) {
            return doc.get(spec, "values").unwrap().1;
        }
        let first = doc.sequence(root).unwrap()[0];
        doc.get(first, "v").unwrap().1
    }

    /// A document's tree as plain data, to compare everything outside the block.
    fn shape(doc: &syntax::Document<'_>, node: NodeId, skip: NodeId) -> String {
        let node = doc.resolve(node);
        if node == skip {
            return "<block>".into();
        }
        match &doc.node(node).kind {
            syntax::NodeKind::Scalar { value, .. } => format!("{value:?}"),
            syntax::NodeKind::Mapping { entries, .. } => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|&(k, v)| format!("{}: {}", shape(doc, k, skip), shape(doc, v, skip)))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            syntax::NodeKind::Sequence { items, .. } => {
                let inner: Vec<String> = items.iter().map(|&i| shape(doc, i, skip)).collect();
                format!("[{}]", inner.join(", "))
            }
            _ => "?".into(),
        }
    }

    /// Every edit of whole lines of the value (removing any run of lines, adding a line at any
    /// line's start and at the end, replacing a line) and edits inside lines (a value
    /// replaced, a line added after a line's text, a line break replaced by lines): each is
    /// written into the source (unless nothing would be left), and there the block holds
    /// exactly the edited value (up to the last breaks its chomping decides) while everything
    /// around it is as it was; [`MappedString::writes`] accepts exactly those.
    #[test]
    fn edits_of_a_literal_block_keep_everything_around_it() {
        let mut checked = 0;
        for text in blocks() {
            let stream = syntax::parse(&text);
            let doc = &stream.documents[0];
            assert!(doc.error.is_none(), "{text:?}");
            let node = block(doc);
            let (value, _) = doc.scalar(node).unwrap();
            let value = value.to_string();
            let mapped = MappedString::new(doc, &text, node).expect(&text);
            let outside = shape(doc, doc.root.unwrap(), node);
            let stripped = !value.ends_with('\n');
            let starts: Vec<usize> = (0..=value.len())
                .filter(|&p| p == 0 || value.as_bytes()[p - 1] == b'\n')
                .collect();
            let mut ends = starts.clone();
            if stripped {
                ends.push(value.len());
            }
            let mut edits: Vec<(Range<usize>, String)> = Vec::new();
            for &s in &starts {
                for &e in ends.iter().filter(|&&e| e >= s) {
                    edits.push((s..e, String::new()));
                    edits.push((s..e, "z: 9\n".into()));
                }
                edits.push((s..s, "y: 8\n  w: 7\n".into()));
            }
            for (at, _) in value.match_indices(": ") {
                let line_end = value[at..].find('\n').map_or(value.len(), |i| at + i);
                edits.push((at + 2..line_end, "99".into()));
                edits.push((line_end..line_end, "\nq: 5".into()));
                if line_end < value.len() {
                    edits.push((line_end..line_end + 1, "\nq: 5\n".into()));
                }
            }
            for (range, replacement) in edits {
                let mut expected = value.clone();
                expected.replace_range(range.clone(), &replacement);
                // What the block holds, up to the last line breaks its chomping decides.
                let want = expected.trim_end_matches('\n');
                // Each of these edits is written, unless nothing is left.
                let must = !want.trim().is_empty();
                let Some((outer, with)) = mapped.edit(&text, &value, &range, &replacement) else {
                    assert!(!must, "{text:?}: {range:?} {replacement:?} not written");
                    continue;
                };
                let mut new = text.clone();
                new.replace_range(outer.clone(), &with);
                let after = syntax::parse(&new);
                let adoc = &after.documents[0];
                let check = adoc.error.is_none() && {
                    let anode = block(adoc);
                    adoc.scalar(anode).map(|(v, _)| v.trim_end_matches('\n')) == Some(want)
                        && shape(adoc, adoc.root.unwrap(), anode) == outside
                };
                let accepted = mapped.writes(&text, &[(outer.clone(), with.as_str())], &expected);
                assert_eq!(
                    accepted, check,
                    "{text:?}: {range:?} {replacement:?} written as {outer:?} {with:?}:\n{new}"
                );
                assert!(
                    check || !must,
                    "{text:?}: {range:?} {replacement:?}:\n{new}"
                );
                checked += usize::from(check);
            }
        }
        assert!(checked > 500, "{checked}");
    }

    /// The audit's case: the last line of an Argo CD Application's `helm.values` removed, and a
    /// line added at the end: the next key of the Application stays where it is.
    #[test]
    fn the_last_line_of_a_block_is_removed_without_the_next_key() {
        let text = "spec:\n  source:\n    helm:\n      values: |\n        tolerations:\n        - key: spot\n          operator: Exists\n          tolerationSeconds: 60\n  destination:\n    server: s\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let node = doc
            .get_path(doc.root.unwrap(), &["spec", "source", "helm", "values"])
            .unwrap();
        let (value, _) = doc.scalar(node).unwrap();
        let mapped = MappedString::new(doc, text, node).unwrap();
        let last = value.find("  tolerationSeconds").unwrap();
        let (range, with) = mapped.edit(text, value, &(last..value.len()), "").unwrap();
        let mut fixed = text.to_string();
        fixed.replace_range(range, &with);
        assert_eq!(
            fixed,
            "spec:\n  source:\n    helm:\n      values: |\n        tolerations:\n        - key: spot\n          operator: Exists\n  destination:\n    server: s\n"
        );
        let end = value.len();
        let (range, with) = mapped
            .edit(text, value, &(end..end), "  effect: NoExecute\n")
            .unwrap();
        let mut fixed = text.to_string();
        fixed.replace_range(range, &with);
        assert!(
            fixed.contains("tolerationSeconds: 60\n          effect: NoExecute\n  destination:\n"),
            "{fixed}"
        );
        // An edit that would take the block's last line break is not written.
        assert_eq!(mapped.edit(text, value, &(end - 1..end), ""), None);
        // A folded block does not map at all.
        let folded = text.replace("values: |", "values: >");
        let stream = syntax::parse(&folded);
        let doc = &stream.documents[0];
        let node = doc
            .get_path(doc.root.unwrap(), &["spec", "source", "helm", "values"])
            .unwrap();
        assert!(MappedString::new(doc, &folded, node).is_none());
    }

    /// Quoted strings: an edit replaces the source of its characters, escapes included, and
    /// its replacement is written escaped as the quoting escapes; the string then holds the
    /// edited value.
    #[test]
    fn quoted_edits_write_escapes() {
        let text = "a: \"x: \\\"q\\\" y\"\nb: 'p: ''r'' s'\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let get = |k: &str| doc.get(doc.root.unwrap(), k).unwrap().1;
        let a = MappedString::new(doc, text, get("a")).unwrap();
        let (va, _) = doc.scalar(get("a")).unwrap();
        assert_eq!(va, "x: \"q\" y");
        let writes = |m: &MappedString, value: &str, range: Range<usize>, new: &str| {
            let (outer, replacement) = m.edit(text, value, &range, new).unwrap();
            let mut expected = value.to_string();
            expected.replace_range(range, new);
            assert!(
                m.writes(text, &[(outer.clone(), replacement.as_str())], &expected),
                "{outer:?} {replacement:?}"
            );
            (outer, replacement)
        };
        assert_eq!(writes(&a, va, 7..8, "z"), (13..14, "z".into()));
        assert_eq!(
            writes(&a, va, 3..6, "t"),
            (7..12, "t".into()),
            "escapes in the range"
        );
        assert_eq!(writes(&a, va, 7..8, "\""), (13..14, "\\\"".into()));
        assert_eq!(writes(&a, va, 7..8, "\\"), (13..14, "\\\\".into()));
        assert_eq!(writes(&a, va, 7..8, "\t\n"), (13..14, "\\t\\n".into()));
        assert_eq!(writes(&a, va, 8..8, "\u{7}"), (14..14, "\\u0007".into()));
        let b = MappedString::new(doc, text, get("b")).unwrap();
        let (vb, _) = doc.scalar(get("b")).unwrap();
        assert_eq!(vb, "p: 'r' s");
        assert_eq!(writes(&b, vb, 7..8, "t"), (29..30, "t".into()));
        assert_eq!(
            writes(&b, vb, 3..6, "t"),
            (23..28, "t".into()),
            "doubled quotes in the range"
        );
        assert_eq!(writes(&b, vb, 7..8, "'"), (29..30, "''".into()));
        assert_eq!(writes(&b, vb, 7..8, "\""), (29..30, "\"".into()));
        assert_eq!(
            b.edit(text, vb, &(7..8), "\n"),
            None,
            "a line break in a single-quoted string is folded"
        );
        // Not a char boundary, past the end, backwards: nothing.
        let text = "c: 'é: x'\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let c = doc.get(doc.root.unwrap(), "c").unwrap().1;
        let m = MappedString::new(doc, text, c).unwrap();
        assert_eq!(m.edit(text, "é: x", &(1..2), "e"), None);
        assert_eq!(m.edit(text, "é: x", &(2..9), "e"), None);
        #[allow(clippy::reversed_empty_ranges)]
        let backwards = 3..2;
        assert_eq!(m.edit(text, "é: x", &backwards, "e"), None);
        // In a literal block, where every byte maps, a range that starts or ends inside a
        // character is refused too (it would split the character in the file).
        let text = "v: |\n  é: 1\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let v = doc.get(doc.root.unwrap(), "v").unwrap().1;
        let m = MappedString::new(doc, text, v).unwrap();
        assert_eq!(
            m.edit(text, "é: 1\n", &(0..2), "e"),
            Some((7..9, "e".into()))
        );
        assert_eq!(m.edit(text, "é: 1\n", &(1..2), "e"), None);
        assert_eq!(m.edit(text, "é: 1\n", &(0..1), "e"), None);
        // A range past the value's end maps to its end.
        assert_eq!(m.range(&(0..99)), 7..13);
    }

    /// The check a fix passes: an edit outside the string, one that leaves the string
    /// holding something else, one that breaks the file, and overlapping edits are refused.
    #[test]
    fn writes_refuses_what_it_did_not_intend() {
        let text = "v: |\n  a: 1\n  b: 2\nafter: kept\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let v = doc.get(doc.root.unwrap(), "v").unwrap().1;
        let m = MappedString::new(doc, text, v).unwrap();
        let b = text.find("  b").unwrap();
        let after = text.find("after").unwrap();
        assert!(m.writes(text, &[(b..after, "")], "a: 1\n"));
        // The same bytes removed, but the string was to hold something else.
        assert!(!m.writes(text, &[(b..after, "")], "a: 2\n"));
        // Reaching into the next key.
        assert!(!m.writes(text, &[(b..after + 2, "")], "a: 1\n"));
        // Before the block's first line.
        assert!(!m.writes(text, &[(0..1, "w")], "a: 1\nb: 2\n"));
        // The file no longer parses.
        assert!(!m.writes(text, &[(b..b, " - x\n")], "a: 1\n - x\nb: 2\n"));
        // Overlapping edits; edits that only meet are two edits.
        assert!(!m.writes(text, &[(b..b + 3, ""), (b + 2..b + 4, "")], "a: 1\n"));
        assert!(m.writes(
            text,
            &[(b + 2..b + 3, "c"), (b + 3..b + 4, "=")],
            "a: 1\nc= 2\n"
        ));
        // A quoted string holds exactly what it should, or the edit is refused.
        let text = "q: 'a: 1'\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let q = doc.get(doc.root.unwrap(), "q").unwrap().1;
        let m = MappedString::new(doc, text, q).unwrap();
        assert!(m.writes(text, &[(7..8, "2")], "a: 2"));
        assert!(!m.writes(text, &[(7..8, "2")], "a: 3"));
        assert!(!m.writes(text, &[(7..8, "2")], "a: 2\n"));
    }

    /// Under `|-` an edit of the last whole lines writes them without a break of their own, and
    /// removing them takes the break before them: no line of spaces is left behind.
    #[test]
    fn last_lines_of_a_stripped_block_leave_no_blank_line() {
        let text = "v: |-\n  a: 1\n  b: 2\nafter: kept\n";
        let stream = syntax::parse(text);
        let doc = &stream.documents[0];
        let v = doc.get(doc.root.unwrap(), "v").unwrap().1;
        let (value, _) = doc.scalar(v).unwrap();
        assert_eq!(value, "a: 1\nb: 2");
        let m = MappedString::new(doc, text, v).unwrap();
        let fixed = |range: Range<usize>, with: &str| {
            let (r, w) = m
                .edit(text, value, &range, with)
                .unwrap_or_else(|| panic!("{range:?} {with:?} not written"));
            let mut t = text.to_string();
            t.replace_range(r, &w);
            t
        };
        assert_eq!(fixed(5..9, ""), "v: |-\n  a: 1\nafter: kept\n");
        assert_eq!(
            fixed(5..9, "z: 9\n"),
            "v: |-\n  a: 1\n  z: 9\nafter: kept\n"
        );
        assert_eq!(fixed(0..9, "z: 9\n"), "v: |-\n  z: 9\nafter: kept\n");
        assert_eq!(
            fixed(5..9, "y: 8\nz: 9\n"),
            "v: |-\n  a: 1\n  y: 8\n  z: 9\nafter: kept\n"
        );
        // An edit that does not end at the value's end, or does not end its lines, is no
        // such edit.
        assert_eq!(fixed(0..5, ""), "v: |-\n  b: 2\nafter: kept\n");
        assert_eq!(fixed(5..9, "z: 9"), "v: |-\n  a: 1\n  z: 9\nafter: kept\n");
    }
}
