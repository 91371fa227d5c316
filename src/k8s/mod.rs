//! The Kubernetes domain: names, decoding, taints and tolerations, and where they live.

pub mod cluster;
pub mod crd;
pub mod decode;
pub mod json6902;
pub mod model;
pub mod names;
pub mod objects;
pub mod parts;
pub mod quantity;
pub mod resources;
pub mod spark;
pub mod well_known;
pub mod workloads;

/// A Go `%q`-style quoted string, as the API server prints values in its messages, and as
/// `%#v` prints the strings of the internal types in a `Duplicate value` (Go's fmt/format.go
/// `fmtQ` calls strconv's `AppendQuote`; strconv/quote.go `appendEscapedRune`: the named
/// escapes, `\x` and two hex digits below a space and for DEL, and every other character that
/// is not printable, `unicode.IsPrint` false, as `\u` and four hex digits, or `\U` and eight
/// beyond the Basic Multilingual Plane).
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
            c if go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
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

/// Go's `unicode.IsPrint` (what strconv's `IsPrint` answers from its own tables): a letter,
/// mark, number, punctuation or symbol, or the ASCII space; not a control, format, surrogate,
/// private-use or unassigned character, nor a space or separator other than U+0020. Rust's
/// `Debug` escaping leaves a character as written by the same rule (core's
/// unicode/printable.py escapes the categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs but the ASCII
/// space), so a character is printable when a string's escaping leaves it as it is (after a
/// first character, which alone has its combining marks escaped too). The Unicode versions of
/// Rust's and Go's tables may differ for the characters assigned last.
fn go_printable(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    let mut s = String::from("a");
    s.push(c);
    s.escape_debug().eq(s.chars())
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
        // Not printable to Go (unicode.IsPrint): spaces other than U+0020, format characters
        // (a zero-width space, a byte order mark, a soft hyphen), separators, private use; a
        // character beyond the Basic Multilingual Plane takes `\U` and eight digits.
        assert_eq!(go_quote("a\u{a0}b"), r#""a\u00a0b""#);
        assert_eq!(
            go_quote("\u{200b}\u{feff}\u{ad}"),
            r#""\u200b\ufeff\u00ad""#
        );
        assert_eq!(
            go_quote("\u{2028}\u{3000}\u{e000}"),
            r#""\u2028\u3000\ue000""#
        );
        assert_eq!(go_quote("\u{e0001}"), r#""\U000e0001""#);
        // Printable: letters and marks of any script (a combining accent too, first or not),
        // symbols and emoji.
        assert_eq!(go_quote("\u{301}e\u{301}"), "\"\u{301}e\u{301}\"");
        assert_eq!(go_quote("日本 €🚀"), r#""日本 €🚀""#);
    }
}
