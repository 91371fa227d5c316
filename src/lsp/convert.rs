//! Byte offsets to LSP positions and back, in the negotiated position encoding.
//!
//! All the arithmetic is [`LineIndex`]'s; this adds what LSP needs on top: the negotiation, and
//! the byte order mark, which the CLI does not count as a column but an editor that sends it as
//! part of the text does.

use std::ops::Range;

use tower_lsp_server::ls_types::{self as lsp, PositionEncodingKind};

use crate::position::{Encoding, LineCol, LineIndex};

const BOM: char = '\u{feff}';

/// UTF-8 when the client offers it (no conversion at all), else UTF-16, LSP's default.
pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
    match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

pub fn encoding_kind(encoding: Encoding) -> PositionEncodingKind {
    match encoding {
        Encoding::Utf8 => PositionEncodingKind::UTF8,
        Encoding::Utf16 => PositionEncodingKind::UTF16,
        Encoding::Utf32 => PositionEncodingKind::UTF32,
    }
}

/// A text and its line index, seen in one encoding.
#[derive(Clone, Copy)]
pub struct Lines<'a> {
    text: &'a str,
    index: &'a LineIndex,
    encoding: Encoding,
    /// Columns the byte order mark takes on line 0 (0 when there is none).
    bom: u32,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str, index: &'a LineIndex, encoding: Encoding) -> Self {
        let bom = if text.starts_with(BOM) {
            match encoding {
                Encoding::Utf8 => BOM.len_utf8() as u32,
                Encoding::Utf16 | Encoding::Utf32 => 1,
            }
        } else {
            0
        };
        Lines {
            text,
            index,
            encoding,
            bom,
        }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    pub fn position(&self, offset: usize) -> lsp::Position {
        let LineCol { line, mut col } = self.index.line_col(self.text, offset, self.encoding);
        if line == 0 && self.bom > 0 && offset >= BOM.len_utf8() {
            col += self.bom;
        }
        lsp::Position::new(line, col)
    }

    pub fn range(&self, range: Range<usize>) -> lsp::Range {
        lsp::Range::new(self.position(range.start), self.position(range.end))
    }

    /// The byte offset of a position; a position past a line's end clamps to it, past the
    /// text's end to the end, and inside a character to its start.
    pub fn offset(&self, position: lsp::Position) -> usize {
        let mut at = LineCol {
            line: position.line,
            col: position.character,
        };
        if at.line == 0 && self.bom > 0 {
            if at.col < self.bom {
                return 0;
            }
            at.col -= self.bom;
        }
        self.index.offset(self.text, at, self.encoding)
    }

    /// The byte range of an LSP range, ordered.
    pub fn byte_range(&self, range: lsp::Range) -> Range<usize> {
        let (a, b) = (self.offset(range.start), self.offset(range.end));
        a.min(b)..a.max(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> lsp::Position {
        lsp::Position::new(line, character)
    }

    #[test]
    fn negotiation_prefers_utf8() {
        assert_eq!(negotiate(None), Encoding::Utf16);
        assert_eq!(
            negotiate(Some(&[
                PositionEncodingKind::UTF32,
                PositionEncodingKind::UTF16
            ])),
            Encoding::Utf16
        );
        assert_eq!(
            negotiate(Some(&[
                PositionEncodingKind::UTF16,
                PositionEncodingKind::UTF8
            ])),
            Encoding::Utf8
        );
    }

    #[test]
    fn japanese_and_emoji() {
        // The line Neovim and VS Code were measured with: `operator` is byte 35, UTF-16 unit 23.
        let text = "x: 1\n    - {key: \"専用🚀ノード\", operator: Exists}\n";
        let index = LineIndex::new(text);
        let at = text.find("operator").unwrap();
        let utf16 = Lines::new(text, &index, Encoding::Utf16);
        let utf8 = Lines::new(text, &index, Encoding::Utf8);
        assert_eq!(utf16.position(at), pos(1, 23));
        assert_eq!(utf8.position(at), pos(1, 35));
        assert_eq!(utf16.offset(pos(1, 23)), at);
        assert_eq!(utf8.offset(pos(1, 35)), at);
        // Inside the surrogate pair: the emoji's start.
        let rocket = text.find('🚀').unwrap();
        assert_eq!(utf16.offset(pos(1, 16)), rocket);
    }

    #[test]
    fn bom_counts_as_a_column_for_the_client() {
        let text = "\u{feff}key: v\r\nb: 1\r\n";
        let index = LineIndex::new(text);
        let utf16 = Lines::new(text, &index, Encoding::Utf16);
        let utf8 = Lines::new(text, &index, Encoding::Utf8);
        let k = text.find("key").unwrap();
        assert_eq!(utf16.position(k), pos(0, 1));
        assert_eq!(utf8.position(k), pos(0, 3));
        assert_eq!(utf16.offset(pos(0, 1)), k);
        assert_eq!(utf16.offset(pos(0, 0)), 0);
        assert_eq!(utf8.offset(pos(0, 3)), k);
        assert_eq!(utf16.position(text.find('b').unwrap()), pos(1, 0));
    }

    #[test]
    fn past_the_end_clamps() {
        let text = "ab\r\ncd";
        let index = LineIndex::new(text);
        let lines = Lines::new(text, &index, Encoding::Utf16);
        assert_eq!(lines.offset(pos(0, 99)), 2);
        assert_eq!(lines.offset(pos(99, 0)), text.len());
        assert_eq!(
            lines.byte_range(lsp::Range::new(pos(1, 1), pos(0, 0))),
            0..5
        );
    }
}
