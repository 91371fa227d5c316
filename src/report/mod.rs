//! Turning diagnostics into text for people and machines. Positions are converted here, at the
//! edge, from the core's byte ranges.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::io::{self, Write};
use std::ops::Range;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Related, Severity};
use crate::position::{Encoding, LineIndex};

pub mod concise;
pub mod github;
pub mod helm;
pub mod human;
pub mod json;
pub mod kustomize;
pub mod sarif;
pub mod simulate;
pub mod statistics;
pub mod text;

/// A start and an end, each a 1-based (line, column).
pub type Span = ((usize, usize), (usize, usize));

/// One linted file and what was found in it.
pub struct FileReport {
    /// The name to show (as given on the command line, or `-` for standard input).
    pub path: String,
    /// Shared: a file reported in pieces is still being linted when its first findings are
    /// written.
    pub text: Arc<str>,
    pub diagnostics: Vec<Diagnostic>,
}

impl FileReport {
    pub fn new(path: String, text: impl Into<Arc<str>>, diagnostics: Vec<Diagnostic>) -> Self {
        FileReport {
            path,
            text: text.into(),
            diagnostics,
        }
    }
}

/// 1-based line and column (in Unicode scalar values) of a byte offset.
pub fn line_column(index: &LineIndex, text: &str, offset: usize) -> (usize, usize) {
    let lc = index.line_col(text, offset.min(text.len()), Encoding::Utf32);
    (lc.line as usize + 1, lc.col as usize + 1)
}

/// The 1-based (line, column) of each of `offsets` in `text`, column in characters, as
/// [`line_column`] says them, in one pass over the text up to the last offset: for a few
/// places in a big file, without a line index of the whole file.
pub fn line_columns(text: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut out = vec![(1, 1); offsets.len()];
    let (mut line, mut line_start, mut scanned) = (1, 0, 0);
    for i in order {
        let offset = crate::position::floor_char_boundary(text, offsets[i].min(text.len()));
        for nl in memchr::memchr_iter(b'\n', &text.as_bytes()[scanned..offset]) {
            line += 1;
            line_start = scanned + nl + 1;
        }
        scanned = offset.max(scanned);
        out[i] = (line, text[line_start..offset].chars().count() + 1);
    }
    out
}

/// As [`line_columns`], reading the text from `reader` a buffer at a time (a file too big to
/// hold only for a few of its places). Offsets must fall on character boundaries.
pub fn line_columns_in(
    mut reader: impl std::io::Read,
    offsets: &[usize],
) -> std::io::Result<Vec<(usize, usize)>> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut out = vec![(1, 1); offsets.len()];
    /// Moves (line, column) over `span`: a column counts characters, the bytes that do not
    /// continue one.
    fn advance(span: &[u8], at: &mut (usize, usize)) {
        let chars = |bytes: &[u8]| bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        match memchr::memrchr(b'\n', span) {
            Some(last) => {
                at.0 += memchr::memchr_iter(b'\n', span).count();
                at.1 = 1 + chars(&span[last + 1..]);
            }
            None => at.1 += chars(span),
        }
    }
    let mut at = (1, 1);
    // The offset of `buf[0]` in the text, and how much of `buf` is counted in `at`.
    let (mut base, mut counted) = (0, 0);
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0;
    for i in order {
        let offset = offsets[i];
        // Read until the buffer holds the offset (or the text ends).
        while offset >= base + len {
            advance(&buf[counted..len], &mut at);
            base += len;
            counted = 0;
            len = loop {
                match reader.read(&mut buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            if len == 0 {
                break;
            }
        }
        let to = offset.saturating_sub(base).min(len).max(counted);
        advance(&buf[counted..to], &mut at);
        counted = to;
        out[i] = at;
    }
    Ok(out)
}

/// Places related locations that point into other files (the inventory a finding's related
/// location points into), building each file's line index once, on first use.
pub struct Positions<'t> {
    files: Vec<(&'t str, &'t str)>,
    /// A file's index in `files`, by name.
    by_name: HashMap<&'t str, usize>,
    indexes: Vec<OnceCell<LineIndex>>,
}

impl<'t> Positions<'t> {
    /// Positions in these files, given as (name, text).
    pub fn new(files: impl IntoIterator<Item = (&'t str, &'t str)>) -> Self {
        let files: Vec<(&str, &str)> = files.into_iter().collect();
        let mut by_name = HashMap::with_capacity(files.len());
        for (i, &(name, _)) in files.iter().enumerate() {
            by_name.entry(name).or_insert(i);
        }
        Positions {
            indexes: files.iter().map(|_| OnceCell::new()).collect(),
            by_name,
            files,
        }
    }

    /// The text of the file named `name`, if known.
    pub fn text(&self, name: &str) -> Option<&'t str> {
        self.by_name.get(name).map(|&i| self.files[i].1)
    }

    /// Every file: (name, text).
    pub fn files(&self) -> impl Iterator<Item = (&'t str, &'t str)> + '_ {
        self.files.iter().copied()
    }

    /// Positions in the reported files themselves.
    pub fn of(reports: &'t [FileReport]) -> Self {
        Positions::new(reports.iter().map(|f| (f.path.as_str(), &*f.text)))
    }

    /// 1-based start and end (line, column) of a range in the file named `name`; `None` when
    /// that file's text is not known.
    pub fn span(&self, name: &str, range: &Range<usize>) -> Option<Span> {
        let &i = self.by_name.get(name)?;
        let text = self.files[i].1;
        let index = self.indexes[i].get_or_init(|| LineIndex::new(text));
        Some((
            line_column(index, text, range.start),
            line_column(index, text, range.end),
        ))
    }

    /// The file a related location of a finding in `file` (whose line index is `index`) is
    /// in, and where in it.
    pub fn related<'r>(
        &self,
        file: &'r FileReport,
        index: &LineIndex,
        related: &'r Related,
    ) -> (&'r str, Option<Span>) {
        match related.file.as_deref() {
            None => (file.path.as_str(), Some(file.span(index, &related.range))),
            Some(name) if name == file.path => (name, Some(file.span(index, &related.range))),
            Some(name) => (name, self.span(name, &related.range)),
        }
    }
}

impl FileReport {
    /// 1-based start and end (line, column) of a range in this file.
    pub fn span(&self, index: &LineIndex, range: &Range<usize>) -> Span {
        (
            line_column(index, &self.text, range.start),
            line_column(index, &self.text, range.end),
        )
    }
}

/// A lint output format, written file by file as each is done: nothing but counts is kept
/// between files.
pub trait Writer {
    /// What comes before the first file's findings.
    fn begin(&mut self, _out: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    /// One finding of `file`, whose line index is `index`; `positions` places related
    /// locations in other files.
    fn finding(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        index: &LineIndex,
        d: &Diagnostic,
        positions: &Positions<'_>,
    ) -> io::Result<()>;

    /// One file's findings, in order (nothing for a file without any).
    fn file(
        &mut self,
        out: &mut dyn Write,
        file: &FileReport,
        positions: &Positions<'_>,
    ) -> io::Result<()> {
        if file.diagnostics.is_empty() {
            return Ok(());
        }
        let index = LineIndex::new(&file.text);
        for d in &file.diagnostics {
            self.finding(out, file, &index, d, positions)?;
        }
        Ok(())
    }

    /// What went wrong besides the findings, before [`Writer::end`]: paths that could not be
    /// read, files that could not be written (each also said on standard error).
    fn problems(&mut self, _problems: &[String]) {}

    /// What comes after the last file: `files` files were reported, with these findings.
    fn end(&mut self, _out: &mut dyn Write, _files: usize, _summary: &Summary) -> io::Result<()> {
        Ok(())
    }
}

/// Writes every report with `writer` into a string (related locations are placed in the
/// reported files).
pub fn render_with(writer: &mut dyn Writer, files: &[FileReport]) -> String {
    let positions = Positions::of(files);
    let mut out = Vec::new();
    let mut summary = Summary::default();
    writer.begin(&mut out).expect("writing to memory");
    for file in files {
        writer
            .file(&mut out, file, &positions)
            .expect("writing to memory");
        summary.add(&file.diagnostics);
    }
    writer
        .end(&mut out, files.len(), &summary)
        .expect("writing to memory");
    String::from_utf8(out).expect("writers write UTF-8")
}

/// Counts of findings by severity.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
    pub hint: usize,
}

impl Summary {
    /// Counts these findings too.
    pub fn add(&mut self, diagnostics: &[Diagnostic]) {
        for d in diagnostics {
            match d.severity {
                Severity::Error => self.error += 1,
                Severity::Warning => self.warning += 1,
                Severity::Info => self.info += 1,
                Severity::Hint => self.hint += 1,
            }
        }
    }

    pub fn total(&self) -> usize {
        self.error + self.warning + self.info + self.hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Trickle;

    #[test]
    fn line_columns_agree_with_the_line_index_in_any_order() {
        let text = "a: 1\nbé: 2\r\n\n  ünï: x\nlast";
        let offsets = [text.len(), 0, 7, 4, 5, text.find('x').unwrap(), 7, 13];
        let index = LineIndex::new(text);
        let expected: Vec<(usize, usize)> = offsets
            .iter()
            .map(|&o| line_column(&index, text, o))
            .collect();
        assert_eq!(line_columns(text, &offsets), expected);
        assert_eq!(line_columns(text, &[]), []);
    }

    #[test]
    fn line_columns_from_a_reader_agree() {
        let text = "a: 1\nbé: 2\r\n\n  ünï: x\nlast 🚀\n";
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&o| text.is_char_boundary(o))
            .collect();
        let mut offsets: Vec<usize> = boundaries.iter().rev().copied().collect();
        offsets.extend([4, 4, text.len() + 10]);
        let expected = line_columns(text, &offsets);
        let got = line_columns_in(Trickle(text.as_bytes()), &offsets).unwrap();
        assert_eq!(got, expected);
        assert_eq!(
            line_columns_in(text.as_bytes(), &offsets).unwrap(),
            expected
        );
        assert_eq!(
            line_columns_in(Trickle(b""), &[0, 3]).unwrap(),
            [(1, 1), (1, 1)]
        );
    }
}
