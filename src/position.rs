//! Byte offsets to line and column, in the units each consumer wants.
//!
//! The core speaks in byte ranges; the CLI reports columns in Unicode scalar values and the
//! language server in whatever position encoding it negotiated. Line breaks are `\n`, `\r\n` and
//! a lone `\r` (as in YAML and LSP). A UTF-8 byte order mark at the start takes no column.

/// The unit a column is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units (LSP's default).
    Utf16,
    /// Unicode scalar values (characters).
    Utf32,
}

/// 0-based line and column in some [`Encoding`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Start offsets of every line of a text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

const BOM: &str = "\u{feff}";

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte offset where 0-based `line` starts, if it exists.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.starts.get(line).copied()
    }

    /// 0-based line containing `offset` (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    /// Line and column of a byte offset. An offset inside a multi-byte character counts from
    /// that character's start; an offset past the end is clamped.
    pub fn line_col(&self, text: &str, offset: usize, encoding: Encoding) -> LineCol {
        let offset = floor_char_boundary(text, offset.min(self.len));
        let line = self.line_of(offset);
        let mut start = self.starts[line];
        if start == 0 && text.starts_with(BOM) && offset >= BOM.len() {
            start = BOM.len();
        }
        let segment = &text[start.min(offset)..offset];
        let col = match encoding {
            Encoding::Utf8 => segment.len(),
            Encoding::Utf16 => segment.chars().map(char::len_utf16).sum(),
            Encoding::Utf32 => segment.chars().count(),
        };
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// Byte offset of a line and column; columns past the line's end clamp to it, lines past
    /// the text's end clamp to its end. A column inside a character lands on its start.
    pub fn offset(&self, text: &str, at: LineCol, encoding: Encoding) -> usize {
        let Some(&line_start) = self.starts.get(at.line as usize) else {
            return self.len;
        };
        let mut start = line_start;
        if start == 0 && text.starts_with(BOM) {
            start = BOM.len();
        }
        let line_end = self.line_content_end(text, at.line as usize);
        let mut units = 0u32;
        for (i, ch) in text[start..line_end].char_indices() {
            let width = match encoding {
                Encoding::Utf8 => ch.len_utf8() as u32,
                Encoding::Utf16 => ch.len_utf16() as u32,
                Encoding::Utf32 => 1,
            };
            if units + width > at.col {
                return start + i;
            }
            units += width;
        }
        line_end
    }

    /// End of a line's content, before its line break.
    fn line_content_end(&self, text: &str, line: usize) -> usize {
        let end = self.starts.get(line + 1).copied().unwrap_or(self.len);
        let bytes = text.as_bytes();
        let mut e = end;
        if e > self.starts[line] && bytes.get(e - 1) == Some(&b'\n') {
            e -= 1;
        }
        if e > self.starts[line] && bytes.get(e - 1) == Some(&b'\r') {
            e -= 1;
        }
        e
    }
}

/// The largest char boundary at or before `offset`.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lc(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    #[test]
    fn ascii_lines() {
        let text = "ab\ncd\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0, Encoding::Utf16), lc(0, 0));
        assert_eq!(idx.line_col(text, 2, Encoding::Utf16), lc(0, 2));
        assert_eq!(idx.line_col(text, 3, Encoding::Utf16), lc(1, 0));
        assert_eq!(idx.line_col(text, 6, Encoding::Utf16), lc(2, 0));
        assert_eq!(idx.line_col(text, 99, Encoding::Utf16), lc(2, 0));
    }

    #[test]
    fn multibyte_columns_per_encoding() {
        // "日" is 3 bytes / 1 UTF-16 unit; "🚀" is 4 bytes / 2 UTF-16 units.
        let text = "# 日🚀\nk: 日本🚀x\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap();
        assert_eq!(idx.line_col(text, x, Encoding::Utf8), lc(1, 3 + 6 + 4));
        assert_eq!(idx.line_col(text, x, Encoding::Utf16), lc(1, 3 + 2 + 2));
        assert_eq!(idx.line_col(text, x, Encoding::Utf32), lc(1, 3 + 2 + 1));
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            assert_eq!(idx.offset(text, idx.line_col(text, x, enc), enc), x);
        }
    }

    #[test]
    fn offset_inside_a_character_floors() {
        let text = "🚀a";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 2, Encoding::Utf16), lc(0, 0));
        // UTF-16 column 1 is inside the surrogate pair: it lands on the character's start.
        assert_eq!(idx.offset(text, lc(0, 1), Encoding::Utf16), 0);
        assert_eq!(idx.offset(text, lc(0, 2), Encoding::Utf16), 4);
    }

    #[test]
    fn crlf_and_lone_cr() {
        let text = "a\r\nb\rc\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 4);
        assert_eq!(idx.line_col(text, 3, Encoding::Utf16), lc(1, 0));
        assert_eq!(idx.line_col(text, 5, Encoding::Utf16), lc(2, 0));
        // A column past the end of a CRLF line clamps before the line break.
        assert_eq!(idx.offset(text, lc(0, 10), Encoding::Utf16), 1);
        assert_eq!(idx.offset(text, lc(9, 0), Encoding::Utf16), text.len());
    }

    #[test]
    fn bom_takes_no_column() {
        let text = "\u{feff}key: v\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 3, Encoding::Utf32), lc(0, 0));
        assert_eq!(idx.line_col(text, 8, Encoding::Utf32), lc(0, 5));
        assert_eq!(idx.offset(text, lc(0, 5), Encoding::Utf32), 8);
    }
}
