//! The Kubernetes domain: names, decoding, taints and tolerations, and where they live.

pub mod cluster;
pub mod decode;
pub mod json6902;
pub mod model;
pub mod names;
pub mod objects;
pub mod quantity;
pub mod resources;
pub mod well_known;
pub mod workloads;

/// A Go `%q`-style quoted string, as the API server prints values in its messages.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
