//! What the API server receives for a YAML node.
//!
//! kubectl turns YAML into JSON with sigs.k8s.io/yaml, which resolves plain scalars with go-yaml
//! v2's YAML 1.1 rules: `yes`, `on`, `y`, `~`, `1234`, `0x1F`, `1e3` are not strings there,
//! whatever a YAML 1.2 parser says. The API server then decodes that JSON into typed fields;
//! [`Decoded`] is the JSON value, and the `as_*` helpers say whether a typed field accepts it.

use crate::syntax::{Document, NodeId, NodeKind, Style};

/// A value that does not decode into a Go int64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAnInt64;

/// The JSON value a YAML node becomes.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded<'d> {
    Null,
    Bool(bool),
    /// An integer that fits int64 (or uint64 beyond that).
    Int(i128),
    Float(f64),
    Str(&'d str),
    Mapping,
    Sequence,
}

impl Decoded<'_> {
    /// The JSON type name Go's decoder uses in "cannot unmarshal X into ..." messages.
    pub fn json_type(&self) -> &'static str {
        match self {
            Decoded::Null => "null",
            Decoded::Bool(_) => "bool",
            Decoded::Int(_) | Decoded::Float(_) => "number",
            Decoded::Str(_) => "string",
            Decoded::Mapping => "object",
            Decoded::Sequence => "array",
        }
    }

    /// The YAML 1.1 type name, for explanations.
    pub fn yaml_type(&self) -> &'static str {
        match self {
            Decoded::Null => "null",
            Decoded::Bool(_) => "boolean",
            Decoded::Int(_) => "integer",
            Decoded::Float(_) => "float",
            Decoded::Str(_) => "string",
            Decoded::Mapping => "mapping",
            Decoded::Sequence => "sequence",
        }
    }

    /// A number as the API server's decoder sees its text: sigs.k8s.io/yaml's `YAMLToJSON`
    /// hands go-yaml's int, uint64 or float64 to `json.Marshal`, so the literal Go's
    /// encoding/json quotes in "cannot unmarshal number `<literal>`" (decode.go `literalStore`,
    /// for integer fields) is what encoding/json's `floatEncoder` writes: the shortest decimal,
    /// in exponent form (`1e+21`, `1e-7`) below 1e-6 and from 1e21. `None` for anything else,
    /// and for infinities and NaN, which `json.Marshal` refuses.
    pub fn json_number(&self) -> Option<String> {
        match *self {
            Decoded::Int(i) => Some(i.to_string()),
            Decoded::Float(f) if f.is_finite() => {
                let abs = f.abs();
                if abs == 0.0 || (1e-6..1e21).contains(&abs) {
                    return Some(format!("{f}"));
                }
                // Rust writes `1e21` and `1e-7`; Go's 'e' format writes `1e+21` and `1e-07`,
                // which the encoder then shortens to `1e-7`.
                let text = format!("{f:e}");
                let (mantissa, exponent) = text.split_once('e')?;
                Some(match exponent.strip_prefix('-') {
                    Some(digits) => format!("{mantissa}e-{digits}"),
                    None => format!("{mantissa}e+{exponent:0>2}"),
                })
            }
            _ => None,
        }
    }

    /// The value of a Go `*int64` field (`Ok(None)` for null), or `Err` when it will not decode.
    pub fn as_int64(&self) -> Result<Option<i64>, NotAnInt64> {
        match *self {
            Decoded::Null => Ok(None),
            Decoded::Int(i) => i64::try_from(i).map(Some).map_err(|_| NotAnInt64),
            // encoding/json writes an integral float without a fraction (3600.0 -> 3600), so it
            // decodes into an int64 when it is in range (from 1e21 it writes an exponent, but
            // such a float is far beyond int64 anyway).
            Decoded::Float(f) if f.is_finite() && f.fract() == 0.0 => {
                if f >= i64::MIN as f64 && f < i64::MAX as f64 {
                    Ok(Some(f as i64))
                } else {
                    Err(NotAnInt64)
                }
            }
            _ => Err(NotAnInt64),
        }
    }
}

/// Decodes a node (following an alias) the way kubectl and the API server see it.
pub fn decode<'d>(doc: &'d Document<'_>, id: NodeId) -> Decoded<'d> {
    let node = doc.node(doc.resolve(id));
    match &node.kind {
        NodeKind::Scalar { value, style } => resolve_scalar(value, *style, node.tag.as_deref()),
        NodeKind::Mapping { .. } => Decoded::Mapping,
        NodeKind::Sequence { .. } => Decoded::Sequence,
        NodeKind::Alias { .. } | NodeKind::UnknownAlias { .. } => Decoded::Null,
    }
}

/// go-yaml v2's `resolve` for one scalar: quoted and block scalars are strings; plain ones are
/// looked up by their first character. A tag of the core schema resolves the text whatever its
/// style; any other tag (`!foo`, `!!set`) keeps the text a string, as go-yaml's `resolvableTag`
/// says (sigs.k8s.io/yaml goyaml.v2/resolve.go).
pub fn resolve_scalar<'d>(value: &'d str, style: Style, tag: Option<&str>) -> Decoded<'d> {
    match (tag, style) {
        (Some("!!null" | "!!bool" | "!!int" | "!!float" | "!!timestamp"), _)
        | (None, Style::Plain) => resolve_plain(value),
        // `!!str`, `!!binary`, the tags go-yaml does not resolve, quoted and block scalars.
        _ => Decoded::Str(value),
    }
}

fn resolve_plain(value: &str) -> Decoded<'_> {
    match value {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Decoded::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Decoded::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => return Decoded::Null,
        ".nan" | ".NaN" | ".NAN" => return Decoded::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Decoded::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Decoded::Float(f64::NEG_INFINITY),
        _ => {}
    }
    match value.as_bytes()[0] {
        b'.' => match go_parse_float(value) {
            Some(f) => Decoded::Float(f),
            None => Decoded::Str(value),
        },
        b'+' | b'-' | b'0'..=b'9' => {
            // go-yaml also tries timestamps here, but keeps them as strings when decoding into
            // interface{}, and no timestamp parses as a number below.
            let plain: String = value.chars().filter(|&c| c != '_').collect();
            if let Some(i) = go_parse_int(&plain) {
                return Decoded::Int(i);
            }
            match go_parse_float(&plain) {
                Some(f) => Decoded::Float(f),
                None => Decoded::Str(value),
            }
        }
        _ => Decoded::Str(value),
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint(s, 0, 64)`: an optional sign, a base
/// prefix (`0x`, `0o`, `0b`, or a leading `0` for octal), digits.
fn go_parse_int(s: &str) -> Option<i128> {
    let (negative, rest) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = rest.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        (magnitude <= 1u128 << 63).then(|| -(magnitude as i128))
    } else if magnitude <= u64::MAX as u128 {
        Some(magnitude as i128)
    } else {
        None
    }
}

/// Go's `strconv.ParseFloat(s, 64)` for the decimal forms YAML can reach here. Once the
/// characters are digits, `.`, `e`, `E` and signs (no `inf` or `nan`), what Rust's `f64` parser
/// takes (`Sign? (Digit+ | Digit+ '.' Digit* | Digit* '.' Digit+) Exp?`) is exactly go-yaml's
/// `yamlStyleFloat` (`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`), which go-yaml
/// checks before `ParseFloat`. A number too large for a float64 is an error to `ParseFloat`
/// (`ErrRange`), so go-yaml keeps its text as a string; Rust would give an infinity.
fn go_parse_float(s: &str) -> Option<f64> {
    let valid = s
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'));
    if !valid {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> Decoded<'_> {
        resolve_scalar(s, Style::Plain, None)
    }

    #[test]
    fn yaml11_booleans_and_nulls() {
        for s in [
            "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE",
        ] {
            assert_eq!(plain(s), Decoded::Bool(true), "{s}");
        }
        for s in [
            "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
        ] {
            assert_eq!(plain(s), Decoded::Bool(false), "{s}");
        }
        for s in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(plain(s), Decoded::Null, "{s}");
        }
        // Mixed case is not in the table.
        assert_eq!(plain("yEs"), Decoded::Str("yEs"));
        assert_eq!(plain("nO"), Decoded::Str("nO"));
    }

    #[test]
    fn yaml11_numbers() {
        assert_eq!(plain("1234"), Decoded::Int(1234));
        assert_eq!(plain("0x1F"), Decoded::Int(31));
        assert_eq!(plain("0777"), Decoded::Int(511));
        assert_eq!(plain("0o17"), Decoded::Int(15));
        assert_eq!(plain("0b101"), Decoded::Int(5));
        assert_eq!(plain("-42"), Decoded::Int(-42));
        assert_eq!(plain("+42"), Decoded::Int(42));
        assert_eq!(plain("1_000"), Decoded::Int(1000));
        assert_eq!(plain("1e3"), Decoded::Float(1000.0));
        assert_eq!(plain("3600.0"), Decoded::Float(3600.0));
        assert_eq!(plain(".5"), Decoded::Float(0.5));
        assert_eq!(plain("0778"), Decoded::Float(778.0));
        assert!(matches!(plain(".inf"), Decoded::Float(f) if f.is_infinite()));
        assert!(matches!(plain(".nan"), Decoded::Float(f) if f.is_nan()));
        assert_eq!(plain("+.INF"), Decoded::Float(f64::INFINITY));
        assert_eq!(plain("-.inf"), Decoded::Float(f64::NEG_INFINITY));
        assert_eq!(plain("-.Inf"), Decoded::Float(f64::NEG_INFINITY));
        assert_eq!(
            plain("18446744073709551615"),
            Decoded::Int(u64::MAX as i128)
        );
        assert_eq!(plain("99999999999999999999"), Decoded::Float(1e20));
        assert_eq!(plain("0"), Decoded::Int(0));
        assert_eq!(plain("-0"), Decoded::Int(0));
        assert_eq!(plain("-.5"), Decoded::Float(-0.5));
        assert_eq!(plain("+.5e1"), Decoded::Float(5.0));
        assert_eq!(plain("5."), Decoded::Float(5.0));
        assert_eq!(plain("1e-400"), Decoded::Float(0.0));
    }

    /// What Go's `ParseInt`, `ParseUint` and `ParseFloat` refuse, go-yaml keeps as a string:
    /// a second sign, a sign after a base prefix, a float64 out of range (`ErrRange`), and what
    /// `yamlStyleFloat` does not match.
    #[test]
    fn near_numbers_stay_strings() {
        for s in [
            "++5", "-+5", "+-5", "0x+1F", "0x-1", "0b", "1e400", "-1e400", ".5e400", "1e", "1e+",
            "1e5e5", "1..2", "-.e1", "1.5-3", "+.",
        ] {
            assert_eq!(plain(s), Decoded::Str(s), "{s}");
        }
    }

    #[test]
    fn strings_stay_strings() {
        for s in [
            "NoSchedule",
            "example.com/gpu",
            "1.2.3",
            "1-2",
            "0x",
            "+",
            "-",
            ".",
            "2001-12-14",
            "12:30",
            "v1",
        ] {
            assert_eq!(plain(s), Decoded::Str(s), "{s}");
        }
        assert_eq!(
            resolve_scalar("1234", Style::DoubleQuoted, None),
            Decoded::Str("1234")
        );
        assert_eq!(
            resolve_scalar("yes", Style::Plain, Some("!!str")),
            Decoded::Str("yes")
        );
        assert_eq!(resolve_scalar("7", Style::Literal, None), Decoded::Str("7"));
    }

    /// go-yaml resolves the core schema's tags whatever the style, and keeps the text of a
    /// scalar under any other tag (goyaml.v2/resolve.go `resolvableTag`).
    #[test]
    fn tags_decide_before_style() {
        assert_eq!(
            resolve_scalar("1234", Style::DoubleQuoted, Some("!!int")),
            Decoded::Int(1234)
        );
        assert_eq!(
            resolve_scalar("yes", Style::SingleQuoted, Some("!!bool")),
            Decoded::Bool(true)
        );
        assert_eq!(
            resolve_scalar("1234", Style::Plain, Some("!!binary")),
            Decoded::Str("1234")
        );
        for style in [Style::Plain, Style::DoubleQuoted] {
            for tag in ["!foo", "!", "!!set"] {
                assert_eq!(
                    resolve_scalar("1234", style, Some(tag)),
                    Decoded::Str("1234"),
                    "{tag} {style:?}"
                );
            }
        }
    }

    #[test]
    fn int64_fields() {
        assert_eq!(plain("3600").as_int64(), Ok(Some(3600)));
        assert_eq!(plain("3600.0").as_int64(), Ok(Some(3600)));
        assert_eq!(plain("1e3").as_int64(), Ok(Some(1000)));
        assert_eq!(plain("~").as_int64(), Ok(None));
        assert_eq!(plain("1.5").as_int64(), Err(NotAnInt64));
        assert_eq!(plain("1e21").as_int64(), Err(NotAnInt64));
        assert_eq!(plain("18446744073709551615").as_int64(), Err(NotAnInt64));
        // Whole floats below 1e21 that int64 cannot hold: 2^63 is one past its largest.
        assert_eq!(plain("1e20").as_int64(), Err(NotAnInt64));
        assert_eq!(plain("-1e20").as_int64(), Err(NotAnInt64));
        assert_eq!(plain("9223372036854775808.0").as_int64(), Err(NotAnInt64));
        assert_eq!(
            plain("-9223372036854775808.0").as_int64(),
            Ok(Some(i64::MIN))
        );
        assert_eq!(
            resolve_scalar("3600", Style::DoubleQuoted, None).as_int64(),
            Err(NotAnInt64)
        );
        assert_eq!(plain("true").as_int64(), Err(NotAnInt64));
    }

    /// The literal encoding/json quotes: go-yaml's value written by `json.Marshal`
    /// (encode.go `floatEncoder`: 'f' format, 'e' below 1e-6 and from 1e21, `e-07` cut to `e-7`).
    #[test]
    fn numbers_as_json_writes_them() {
        let json = |s: &str| plain(s).json_number();
        assert_eq!(json("1.5").as_deref(), Some("1.5"));
        assert_eq!(json("1.50").as_deref(), Some("1.5"));
        assert_eq!(json("-2.25").as_deref(), Some("-2.25"));
        assert_eq!(json("0.000001").as_deref(), Some("0.000001"));
        assert_eq!(json("1e-7").as_deref(), Some("1e-7"));
        assert_eq!(json("1.5e-12").as_deref(), Some("1.5e-12"));
        assert_eq!(json("1e20").as_deref(), Some("100000000000000000000"));
        assert_eq!(json("1e21").as_deref(), Some("1e+21"));
        assert_eq!(json("2.5e300").as_deref(), Some("2.5e+300"));
        assert_eq!(
            json("18446744073709551615").as_deref(),
            Some("18446744073709551615")
        );
        assert_eq!(json("0x1F").as_deref(), Some("31"));
        assert_eq!(json(".inf"), None);
        assert_eq!(json("yes"), None);
    }
}
