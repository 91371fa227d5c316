//! Text for people in a terminal: display widths, and words wrapped to a width.

use unicode_width::UnicodeWidthStr;

/// Display width in terminal columns (a CJK character takes two).
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Wraps `text` at `max` columns: the first line after `first`, the others after `indent`
/// spaces. Words are kept whole.
pub fn wrap(first: &str, indent: usize, text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut len = width(first);
    let mut fresh = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let w = width(word);
        if !fresh && len + 1 + w > max {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(indent);
            len = indent;
        } else if !fresh {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += w;
        fresh = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_words_with_a_hanging_indent() {
        assert_eq!(
            wrap("= note: ", 8, "one two three four five", 20),
            "= note: one two\n        three four\n        five\n"
        );
        // A word longer than the line stays whole, on a line of its own.
        assert_eq!(
            wrap("> ", 2, "a verylongwordindeed b", 10),
            "> a\n  verylongwordindeed\n  b\n"
        );
        assert_eq!(width("日本"), 4);
    }
}
