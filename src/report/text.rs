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

/// Wraps every line of `text` at `max` columns, at words: a line keeps its indentation and
/// its `- ` bullet, and goes on two columns further in (under the bullet's text). Empty lines
/// stay. For text an editor shows in a window of that width (a workload's placement).
pub fn wrap_lines(text: &str, max: usize) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let body = line.trim_start_matches(' ');
        if body.is_empty() {
            out.push('\n');
            continue;
        }
        let indent = line.len() - body.len();
        let lead = if body.starts_with("- ") { 2 } else { 0 };
        out.push_str(&wrap(
            &line[..indent + lead],
            indent + 2,
            &body[lead..],
            max,
        ));
    }
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

    #[test]
    fn lines_keep_their_indentation_and_bullets() {
        let text = "Pod p: fits no node: no node has disk=nvme\n\npool gpu (2 nodes): does not fit\n  - untolerated taint nvidia.com/gpu=present:NoSchedule\n";
        assert_eq!(
            wrap_lines(text, 24),
            "Pod p: fits no node: no\n  node has disk=nvme\n\npool gpu (2 nodes): does\n  not fit\n  - untolerated taint\n    nvidia.com/gpu=present:NoSchedule\n"
        );
        // Wide enough: unchanged.
        assert_eq!(wrap_lines(text, 80), text);
    }
}
