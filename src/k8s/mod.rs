//! The Kubernetes domain: names, decoding, taints and tolerations, and where they live.

pub mod cluster;
pub mod decode;
pub mod json6902;
pub mod model;
pub mod names;
pub mod objects;
pub mod parts;
pub mod quantity;
pub mod resources;
pub mod well_known;
pub mod workloads;

/// A Go `%q`-style quoted string, as the API server prints values in its messages (Go's
/// strconv/quote.go `appendEscapedRune`: the named escapes, `\x` and two hex digits below a space
/// and for DEL, `\u` and four for the other control characters).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if c < ' ' || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How a message shows a value: in backticks, cut to 40 characters (a message is one line of
/// an editor's problem list; the whole value is in the manifest and the server message).
pub fn shown(s: &str) -> String {
    const MAX: usize = 40;
    if s.is_empty() {
        return "\"\"".to_string();
    }
    if s.chars().count() <= MAX {
        return format!("`{s}`");
    }
    let cut: String = s.chars().take(MAX - 1).collect();
    format!("`{cut}…`")
}

#[cfg(test)]
mod tests {
    use super::go_quote;

    /// What Go's `strconv.Quote` (and so `%q` in the API server's field errors) writes.
    #[test]
    fn quotes_as_go_does() {
        assert_eq!(go_quote("team a"), r#""team a""#);
        assert_eq!(go_quote(""), r#""""#);
        assert_eq!(go_quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(go_quote("a\nb\rc\td"), r#""a\nb\rc\td""#);
        assert_eq!(go_quote("\u{7}\u{8}\u{c}\u{b}"), r#""\a\b\f\v""#);
        assert_eq!(go_quote("a\u{0}b\u{1b}c\u{7f}"), r#""a\x00b\x1bc\x7f""#);
        assert_eq!(go_quote("\u{85}"), r#""\u0085""#);
        assert_eq!(go_quote("été"), r#""été""#);
    }
}
