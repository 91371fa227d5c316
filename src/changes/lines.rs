//! Which lines a change touched: the lines of the text after it that it added or rewrote, and
//! where it removed lines, as a review shows them.

use std::ops::Range;

/// The lines of a file a change touched, 1-based, in the text after the change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changed {
    /// Runs of lines added or rewritten, sorted.
    pub added: Vec<Range<usize>>,
    /// The lines before which lines were removed (one past the last line when at the end).
    pub removed_before: Vec<usize>,
    /// Every line (a file the change added).
    pub whole: bool,
}

/// Texts bigger than this are not compared line by line: a rewritten 100 MB node list would
/// cost seconds, and a line there is no place a review looks at.
pub const MAX_COMPARED: usize = 8 << 20;

impl Changed {
    /// The lines of `after` that differ from `before` (none are known for texts bigger than
    /// [`MAX_COMPARED`]).
    pub fn between(before: &str, after: &str) -> Changed {
        if before == after || before.len() > MAX_COMPARED || after.len() > MAX_COMPARED {
            return Changed::default();
        }
        let diff = similar::TextDiff::configure()
            .algorithm(similar::Algorithm::Myers)
            .diff_lines(before, after);
        let mut changed = Changed::default();
        for op in diff.ops() {
            let new = op.new_range();
            match op.tag() {
                similar::DiffTag::Equal => {}
                similar::DiffTag::Delete => changed.removed_before.push(new.start + 1),
                similar::DiffTag::Insert | similar::DiffTag::Replace => {
                    changed.added.push(new.start + 1..new.end + 1)
                }
            }
        }
        changed
    }

    /// A file the change added: every line.
    pub fn all() -> Changed {
        Changed {
            whole: true,
            ..Changed::default()
        }
    }

    /// Whether 1-based `line` is one the change added or rewrote.
    pub fn touches(&self, line: usize) -> bool {
        self.whole || self.added.iter().any(|r| r.contains(&line))
    }

    /// Whether the change touched `lines` (added or rewrote one, or removed lines inside them).
    pub fn touches_any(&self, lines: Range<usize>) -> bool {
        self.whole
            || self
                .added
                .iter()
                .any(|r| r.start < lines.end && lines.start < r.end)
            || self
                .removed_before
                .iter()
                .any(|&l| l > lines.start && l < lines.end)
    }

    pub fn is_empty(&self) -> bool {
        !self.whole && self.added.is_empty() && self.removed_before.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_rewritten_and_removed_lines() {
        let before = "a\nb\nc\nd\n";
        let after = "a\nB\nc\nx\ny\n";
        let c = Changed::between(before, after);
        // `b` rewritten (line 2); `d` rewritten as `x`, `y` added (lines 4-5).
        assert!(c.touches(2));
        assert!(!c.touches(1) && !c.touches(3));
        assert!(c.touches(4) && c.touches(5));
        let removed = Changed::between("a\nb\nc\n", "a\nc\n");
        assert_eq!(removed.removed_before, vec![2]);
        assert!(removed.added.is_empty());
        assert!(removed.touches_any(1..3));
        assert!(!removed.touches_any(2..3));
        assert!(Changed::between(before, before).is_empty());
        assert!(Changed::all().touches(1000));
    }
}
