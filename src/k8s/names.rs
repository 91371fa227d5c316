//! Name and value syntax, as k8s.io/apimachinery/pkg/util/validation checks it.
//!
//! Each function returns the same list of messages as its upstream namesake, in the same order,
//! so that diagnostics can say exactly what the API server says.

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_ERR_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', \
                                      and must start and end with an alphanumeric character";
pub const QUALIFIED_NAME_MAX_LENGTH: usize = 63;

const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR_MSG: &str = "a valid label must be an empty string or consist of \
                                   alphanumeric characters, '-', '_' or '.', and must start and \
                                   end with an alphanumeric character";
pub const LABEL_VALUE_MAX_LENGTH: usize = 63;

const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower \
                                         case alphanumeric characters, '-' or '.', and must \
                                         start and end with an alphanumeric character";
pub const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;

pub fn empty_error() -> String {
    "must be non-empty".to_string()
}

/// Upstream `content.MaxLenError`. It says "bytes" since the label-key and label-value checks
/// moved to `k8s.io/apimachinery/pkg/api/validate/content` (apimachinery commit da7b67ed,
/// 2025-08-20, released in v0.35; Kubernetes v1.35): the lengths were always counted in bytes.
pub fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} bytes")
}

pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{msg} (regex used for validation is '{fmt}')");
    }
    let mut out = format!("{msg} (e.g. ");
    for (i, example) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push('\'');
        out.push_str(example);
        out.push_str("', ");
    }
    out.push_str("regex used for validation is '");
    out.push_str(fmt);
    out.push_str("')");
    out
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, anchored.
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let Some((&first, &last)) = b.first().zip(b.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, anchored.
fn is_dns1123_subdomain_syntax(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_dns1123_label_syntax)
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, anchored.
fn is_dns1123_label_syntax(s: &str) -> bool {
    let b = s.as_bytes();
    let Some((&first, &last)) = b.first().zip(b.last()) else {
        return false;
    };
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    alnum(first) && alnum(last) && b.iter().all(|&c| alnum(c) || c == b'-')
}

/// Upstream `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !is_dns1123_subdomain_syntax(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR_MSG,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR_MSG: &str = "a lowercase RFC 1123 label must consist of lower case \
                                     alphanumeric characters or '-', and must start and end \
                                     with an alphanumeric character";
pub const DNS1123_LABEL_MAX_LENGTH: usize = 63;

/// Upstream `IsDNS1123Label` (k8s.io/apimachinery/pkg/api/validate/content/dns.go): a valid
/// subdomain that is not a label can only have dots, and says so.
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !is_dns1123_label_syntax(value) {
        if is_dns1123_subdomain_syntax(value) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR_MSG,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// Upstream `IsQualifiedName`: an optional DNS-1123 subdomain prefix and `/`, then a name of at
/// most 63 characters.
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push(format!("prefix part {}", empty_error()));
            } else {
                errs.extend(
                    is_dns1123_subdomain(prefix)
                        .into_iter()
                        .map(|msg| format!("prefix part {msg}")),
                );
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. \
                 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR_MSG,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push(format!("name part {}", empty_error()));
    } else if name.len() > QUALIFIED_NAME_MAX_LENGTH {
        errs.push(format!(
            "name part {}",
            max_len_error(QUALIFIED_NAME_MAX_LENGTH)
        ));
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR_MSG,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// Upstream `IsValidLabelValue`: empty, or a qualified-name part of at most 63 characters.
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(max_len_error(LABEL_VALUE_MAX_LENGTH));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// A character a name or value cannot hold, as a message shows it.
fn shown_char(c: char) -> String {
    match c {
        ' ' => "a space".to_string(),
        '\t' => "a tab".to_string(),
        c if c.is_control() => format!("the control character U+{:04X}", c as u32),
        c => format!("`{c}`"),
    }
}

/// What is wrong with a qualified-name part (a key's name, a label value), in plain words.
fn name_part_problem(s: &str, what: &str, max: usize) -> Option<String> {
    if s.len() > max {
        return Some(format!("{what} is {} bytes long (at most {max})", s.len()));
    }
    if let Some(c) = s
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!(
            "{what} contains {}, which is not allowed",
            shown_char(c)
        ));
    }
    if !s.is_empty() && !is_qualified_name_part(s) {
        return Some(format!("{what} must start and end with a letter or digit"));
    }
    None
}

/// What is wrong with a key (the first problem [`is_qualified_name`] finds), in plain words
/// that follow "key `…`"; `None` when the key is valid.
pub fn key_problem(value: &str) -> Option<String> {
    let parts: Vec<&str> = value.split('/').collect();
    let (name, what) = match parts.as_slice() {
        [name] => (*name, "it"),
        [prefix, name] => {
            if prefix.is_empty() {
                return Some("has nothing before the `/`".to_string());
            }
            if prefix.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
                return Some(format!(
                    "has a prefix of {} bytes (at most {DNS1123_SUBDOMAIN_MAX_LENGTH})",
                    prefix.len()
                ));
            }
            if !is_dns1123_subdomain_syntax(prefix) {
                return Some(
                    "has a prefix that is not a lowercase DNS name (like `example.com`)"
                        .to_string(),
                );
            }
            (*name, "the name after `/`")
        }
        _ => return Some("has more than one `/`".to_string()),
    };
    if name.is_empty() {
        return Some(if what == "it" {
            "is empty".to_string()
        } else {
            "has nothing after the `/`".to_string()
        });
    }
    name_part_problem(name, what, QUALIFIED_NAME_MAX_LENGTH).map(|p| format!("is invalid: {p}"))
}

/// What is wrong with a label value (a toleration's or taint's value), in plain words that
/// follow "value `…`"; `None` when it is valid.
pub fn label_value_problem(value: &str) -> Option<String> {
    name_part_problem(value, "it", LABEL_VALUE_MAX_LENGTH).map(|p| format!("is invalid: {p}"))
}

/// One of [`is_qualified_name`]'s messages for `key` in plain words that follow "key `…`"
/// (the API server makes one field error of each message, so each gets its own words).
pub fn qualified_name_error_problem(key: &str, error: &str) -> String {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) if !name.contains('/') => (Some(prefix), name),
        Some(_) => return "has more than one `/`".to_string(),
        None => (None, key),
    };
    if let Some(rest) = error.strip_prefix("prefix part ") {
        let prefix = prefix.unwrap_or_default();
        return if prefix.is_empty() {
            "has nothing before the `/`".to_string()
        } else if rest.starts_with("must be no more than") {
            format!(
                "has a prefix of {} bytes (at most {DNS1123_SUBDOMAIN_MAX_LENGTH})",
                prefix.len()
            )
        } else {
            "has a prefix that is not a lowercase DNS name (like `example.com`)".to_string()
        };
    }
    let what = if prefix.is_some() {
        "the name after `/`"
    } else {
        "it"
    };
    if name.is_empty() {
        return if prefix.is_some() {
            "has nothing after the `/`".to_string()
        } else {
            "is empty".to_string()
        };
    }
    if error.starts_with("name part must be no more than") {
        return format!(
            "is invalid: {what} is {} bytes long (at most {QUALIFIED_NAME_MAX_LENGTH})",
            name.len()
        );
    }
    // The name part's characters (its length is a message of its own).
    match name_part_problem(name, what, usize::MAX) {
        Some(problem) => format!("is invalid: {problem}"),
        None => "is not a valid key".to_string(),
    }
}

/// One of [`is_valid_label_value`]'s messages for `value` in plain words that follow
/// "value `…`".
pub fn label_value_error_problem(value: &str, error: &str) -> String {
    if error.starts_with("must be no more than") {
        return format!(
            "is invalid: it is {} bytes long (at most {LABEL_VALUE_MAX_LENGTH})",
            value.len()
        );
    }
    match name_part_problem(value, "it", usize::MAX) {
        Some(problem) => format!("is invalid: {problem}"),
        None => "is not a valid label value".to_string(),
    }
}

/// Upstream `content.IsDecimalInteger`: an integer written the canonical way (`0`, `42`, `-7`;
/// not `+7`, `007`, `-0`, or with spaces).
pub fn is_decimal_integer(value: &str) -> bool {
    let digits = value.strip_prefix('-').unwrap_or(value);
    match digits.as_bytes() {
        [] => false,
        [b'0'] => digits.len() == value.len(),
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
    }
}

/// The int64 a canonical decimal integer denotes (`None` when not canonical or out of range),
/// as Lt and Gt toleration matching reads taint and toleration values.
pub fn decimal_int64(value: &str) -> Option<i64> {
    if !is_decimal_integer(value) {
        return None;
    }
    value.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Ported from apimachinery pkg/util/validation/validation_test.go.
    #[test]
    fn qualified_names() {
        let good = [
            "simple",
            "now-with-dashes",
            "1-starts-with-num",
            "1234",
            "simple/simple",
            "now-with-dashes/simple",
            "now-with-dashes/now-with-dashes",
            "now.with.dots/simple",
            "now-with.dashes-and.dots/simple",
            "1-num.2-num/3-num",
            "1234/5678",
            "1.2.3.4/5678",
            "Uppercase_Is_OK_123",
            "example.com/Uppercase_Is_OK_123",
            "requests.storage-foo",
        ];
        let long_name = "a".repeat(63);
        let long_prefix = format!("{}/b", "a".repeat(253));
        let longest = format!("{}/{}", "a".repeat(253), "b".repeat(63));
        for name in
            good.iter()
                .copied()
                .chain([long_name.as_str(), long_prefix.as_str(), longest.as_str()])
        {
            assert!(
                is_qualified_name(name).is_empty(),
                "{name:?} should be valid"
            );
        }
        let bad = [
            "nospecialchars%^=@",
            "cantendwithadash-",
            "-cantstartwithadash-",
            "only/one/slash",
            "Example.com/abc",
            "example_com/abc",
            "example.com/",
            "/simple",
            "",
        ];
        let too_long_name = "a".repeat(64);
        let too_long_prefix = format!("{}/b", "a".repeat(254));
        let upstream_too_long_prefix = format!("{}/abc", "a".repeat(254));
        let too_long_name_part = format!("example.com/{}", "b".repeat(64));
        for name in bad.iter().copied().chain([
            too_long_name.as_str(),
            too_long_prefix.as_str(),
            upstream_too_long_prefix.as_str(),
            too_long_name_part.as_str(),
        ]) {
            assert!(
                !is_qualified_name(name).is_empty(),
                "{name:?} should be invalid"
            );
        }
    }

    #[test]
    fn label_values() {
        let good = [
            "simple",
            "now-with-dashes",
            "1-starts-with-num",
            "end-with-num-1",
            "1234",
            "",
            "A",
            "AB",
            "AbC",
            "A_B_C",
            "A-B-C",
            "A.B.C",
            "upper-and.DOTS_MIXED",
        ];
        let max = "a".repeat(63);
        for value in good.iter().copied().chain([max.as_str()]) {
            assert!(
                is_valid_label_value(value).is_empty(),
                "{value:?} should be valid"
            );
        }
        let bad = [
            "nospecialchars%^=@",
            "Tama-nui-te-rā.is.Māori.sun",
            "\\backslashes\\are\\bad",
            "-starts-with-dash",
            "ends-with-dash-",
            ".starts.with.dot",
            "ends.with.dot.",
        ];
        let too_long = "a".repeat(64);
        for value in bad.iter().copied().chain([too_long.as_str()]) {
            assert!(
                !is_valid_label_value(value).is_empty(),
                "{value:?} should be invalid"
            );
        }
    }

    #[test]
    fn dns1123_subdomains() {
        let good = [
            "a",
            "ab",
            "abc",
            "a1",
            "a-1",
            "a--1--2--b",
            "0",
            "01",
            "012",
            "1a",
            "1-a",
            "1--a--b--2",
            "a.a",
            "ab.a",
            "abc.a",
            "a1.a",
            "a-1.a",
            "a--1--2--b.a",
            "a.1",
            "ab.1",
            "abc.1",
            "a1.1",
            "a-1.1",
            "a--1--2--b.1",
            "0.a",
            "01.a",
            "012.a",
            "1a.a",
            "1-a.a",
            "1--a--b--2",
            "0.1",
            "01.1",
            "012.1",
            "1a.1",
            "1-a.1",
            "1--a--b--2.1",
            "a.b.c.d.e",
            "aa.bb.cc.dd.ee",
            "1.2.3.4.5",
            "11.22.33.44.55",
        ];
        let max = "a".repeat(253);
        for value in good.iter().copied().chain([max.as_str()]) {
            assert!(
                is_dns1123_subdomain(value).is_empty(),
                "{value:?} should be valid"
            );
        }
        let bad = [
            "",
            "A",
            "ABC",
            "aBc",
            "A1",
            "A-1",
            "1-A",
            "-",
            "a-",
            "-a",
            "1-",
            "-1",
            "_",
            "a_",
            "_a",
            "a_b",
            "1_",
            "_1",
            "1_2",
            ".",
            "a.",
            ".a",
            "a..b",
            "1.",
            ".1",
            "1..2",
            " ",
            "a ",
            " a",
            "a b",
            "1 ",
            " 1",
            "1 2",
            "A.a",
            "aB.a",
            "ab.A",
            "A1.a",
            "a1.A",
            "A.1",
            "aB.1",
            "A1.1",
            "1A.1",
            "0.A",
            "01.A",
            "012.A",
            "1A.a",
            "1a.A",
            "A.B.C.D.E",
            "AA.BB.CC.DD.EE",
            "a.B.c.d.e",
            "aa.bB.cc.dd.ee",
            "a@b",
            "a,b",
            "a_b",
            "a;b",
            "a:b",
            "a%b",
            "a?b",
            "a$b",
        ];
        let too_long = "a".repeat(254);
        for value in bad.iter().copied().chain([too_long.as_str()]) {
            assert!(
                !is_dns1123_subdomain(value).is_empty(),
                "{value:?} should be invalid"
            );
        }
    }

    // Ported from apimachinery TestIsDNS1123Label. There is no IsDNS1123Label here (no taint
    // field is a DNS label), but the subdomain check is built from the label check, so the
    // label table runs against that building block. Its length rule (63) is the subdomain's
    // concern, so the 64-character case is left out.
    #[test]
    fn dns1123_labels() {
        let max = "a".repeat(63);
        let good = [
            "a",
            "ab",
            "abc",
            "a1",
            "a-1",
            "a--1--2--b",
            "0",
            "01",
            "012",
            "1a",
            "1-a",
            "1--a--b--2",
            max.as_str(),
        ];
        for value in good {
            assert!(is_dns1123_label_syntax(value), "{value:?} should be valid");
        }
        let bad = [
            "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_",
            "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ",
            " a", "a b", "1 ", " 1", "1 2",
        ];
        for value in bad {
            assert!(
                !is_dns1123_label_syntax(value),
                "{value:?} should be invalid"
            );
        }
    }

    // Ported from apimachinery api/validate/content TestIsDecimalInteger (decimal_int_test.go).
    #[test]
    fn decimal_integers() {
        let good = [
            "0",
            "1",
            "2",
            "5",
            "9",
            "-5",
            "-1",
            "-9",
            "100",
            "234",
            "345",
            "456",
            "567",
            "678",
            "789",
            "890",
            "999",
            "123",
            "-456",
            "-100",
            "-987",
            "9223372036854775807",
            "-9223372036854775808",
            "12345678901234567890",
            "999999999999",
            "42",
        ];
        for value in good {
            assert!(is_decimal_integer(value), "{value:?}");
        }
        let bad = [
            "-0",
            "00",
            "000",
            "0000000",
            "01",
            "02",
            "09",
            "0123",
            "0700",
            "0950",
            "00123",
            "-01",
            "-0123",
            "-00",
            "+123",
            "+5",
            "+0",
            "",
            "-",
            "+",
            " ",
            "   ",
            " 123",
            "123 ",
            "12 3",
            " 123 ",
            "12.3",
            "0.0",
            "-12.5",
            "123.",
            ".123",
            "abc",
            "12a3",
            "a123",
            "123a",
            "ABC",
            "12A3",
            "0x123",
            "0X123",
            "0o777",
            "0b101",
            "1e5",
            "1e-5",
            "1E5",
            "1_000",
            "1,000",
            "1.000",
            "1'000",
            "--123",
            "++123",
            "+-123",
            "-+123",
            "123-",
            "12-3",
            "123+",
            "12+3",
            // The rows the collected excerpt summarises: control characters, punctuation, and
            // digits or minus signs outside ASCII.
            "1\n",
            "\t1",
            "1\u{0}",
            "1!",
            "#1",
            "١٢٣",
            "１２３",
            "\u{2212}1",
        ];
        for value in bad {
            assert!(!is_decimal_integer(value), "{value:?}");
        }
        // Canonical but outside int64: ValidateTolerations then fails strconv.ParseInt.
        assert_eq!(decimal_int64("12345678901234567890"), None);
        assert_eq!(decimal_int64("9223372036854775808"), None);
        assert_eq!(decimal_int64("9223372036854775807"), Some(i64::MAX));
        assert_eq!(decimal_int64("-9223372036854775808"), Some(i64::MIN));
    }

    #[test]
    fn messages_match_upstream() {
        // Upstream's RegexError joins examples with "', " and " or ": the double space is real.
        let name_part = "name part must consist of alphanumeric characters, '-', '_' or '.', and \
                         must start and end with an alphanumeric character (e.g. 'MyName',  or \
                         'my.name',  or '123-abc', regex used for validation is \
                         '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        assert_eq!(is_qualified_name("a b"), vec![name_part.to_string()]);
        assert_eq!(
            is_qualified_name(""),
            vec![
                "name part must be non-empty".to_string(),
                name_part.to_string()
            ]
        );
        assert_eq!(
            is_qualified_name("/x"),
            vec!["prefix part must be non-empty".to_string()]
        );
        // Current apimachinery (content.IsLabelKey) says "a valid label key"; older releases
        // said "a qualified name".
        assert_eq!(
            is_qualified_name("a/b/c"),
            vec![
                "a valid label key must consist of alphanumeric characters, '-', '_' or '.', \
                 and must start and end with an alphanumeric character (e.g. 'MyName',  or \
                 'my.name',  or '123-abc', regex used for validation is \
                 '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain \
                 prefix and '/' (e.g. 'example.com/MyName')"
                    .to_string()
            ]
        );
        assert_eq!(
            is_qualified_name(&format!("example.com/{}", "b".repeat(64))),
            vec!["name part must be no more than 63 bytes".to_string()]
        );
        assert_eq!(
            is_valid_label_value(&"a".repeat(64)),
            vec!["must be no more than 63 bytes".to_string()]
        );
    }

    /// Upstream `IsDNS1123Label` (content/dns.go): the length, then "must not contain dots" for
    /// a valid subdomain, else the label's regex message.
    #[test]
    fn dns1123_label_messages() {
        assert!(is_dns1123_label(&"a".repeat(63)).is_empty());
        assert_eq!(
            is_dns1123_label(&"a".repeat(64)),
            vec!["must be no more than 63 bytes".to_string()]
        );
        assert_eq!(
            is_dns1123_label("my.name"),
            vec!["must not contain dots".to_string()]
        );
        assert_eq!(
            is_dns1123_label("My-Name"),
            vec![
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters \
                 or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or \
                 '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
                    .to_string()
            ]
        );
    }

    /// The plain words a finding says after "key `…`" or "value `…`": the first problem, with
    /// the character, the length or the part it is about.
    #[test]
    fn plain_words_name_the_first_problem() {
        let cases = [
            (
                "a b",
                Some("is invalid: it contains a space, which is not allowed"),
            ),
            (
                "a\tb",
                Some("is invalid: it contains a tab, which is not allowed"),
            ),
            (
                "a\u{1}b",
                Some("is invalid: it contains the control character U+0001, which is not allowed"),
            ),
            (
                "a*b",
                Some("is invalid: it contains `*`, which is not allowed"),
            ),
            (
                "-ab",
                Some("is invalid: it must start and end with a letter or digit"),
            ),
            (
                "ab_",
                Some("is invalid: it must start and end with a letter or digit"),
            ),
            ("", Some("is empty")),
            ("/a", Some("has nothing before the `/`")),
            ("example.com/", Some("has nothing after the `/`")),
            ("a/b/c", Some("has more than one `/`")),
            (
                "Example.com/a",
                Some("has a prefix that is not a lowercase DNS name (like `example.com`)"),
            ),
            (
                "example.com/a b",
                Some("is invalid: the name after `/` contains a space, which is not allowed"),
            ),
            (
                "example.com/ab_",
                Some("is invalid: the name after `/` must start and end with a letter or digit"),
            ),
            ("example.com/gpu", None),
            ("a.b-c_d", None),
        ];
        for (key, problem) in cases {
            assert_eq!(key_problem(key).as_deref(), problem, "{key:?}");
        }
        // The limits: 63 bytes for the name, 253 for the prefix.
        assert_eq!(key_problem(&"a".repeat(63)), None);
        assert_eq!(
            key_problem(&"a".repeat(64)).as_deref(),
            Some("is invalid: it is 64 bytes long (at most 63)")
        );
        assert_eq!(key_problem(&format!("{}/a", "a".repeat(253))), None);
        assert_eq!(
            key_problem(&format!("{}/a", "a".repeat(254))).as_deref(),
            Some("has a prefix of 254 bytes (at most 253)")
        );

        assert_eq!(label_value_problem(""), None);
        assert_eq!(label_value_problem(&"a".repeat(63)), None);
        assert_eq!(
            label_value_problem(&"a".repeat(64)).as_deref(),
            Some("is invalid: it is 64 bytes long (at most 63)")
        );
        assert_eq!(
            label_value_problem("team a").as_deref(),
            Some("is invalid: it contains a space, which is not allowed")
        );
        assert_eq!(
            label_value_problem("_a").as_deref(),
            Some("is invalid: it must start and end with a letter or digit")
        );
    }

    /// Each of upstream's messages for a key or value gets its own plain words.
    #[test]
    fn plain_words_for_each_upstream_message() {
        let words = |key: &str| -> Vec<String> {
            is_qualified_name(key)
                .iter()
                .map(|e| qualified_name_error_problem(key, e))
                .collect()
        };
        assert_eq!(words("a/b/c"), ["has more than one `/`"]);
        assert_eq!(words("/a"), ["has nothing before the `/`"]);
        assert_eq!(
            words(&format!("{}/a", "a".repeat(254))),
            ["has a prefix of 254 bytes (at most 253)"]
        );
        assert_eq!(
            words("Example.com/a"),
            ["has a prefix that is not a lowercase DNS name (like `example.com`)"]
        );
        assert_eq!(
            words("example.com/"),
            ["has nothing after the `/`", "has nothing after the `/`"]
        );
        assert_eq!(words(""), ["is empty", "is empty"]);
        assert_eq!(
            words(&format!("example.com/{}", "b".repeat(64))),
            ["is invalid: the name after `/` is 64 bytes long (at most 63)"]
        );
        assert_eq!(
            words(&"b".repeat(64)),
            ["is invalid: it is 64 bytes long (at most 63)"]
        );
        assert_eq!(
            words("a b"),
            ["is invalid: it contains a space, which is not allowed"]
        );
        assert_eq!(
            words("example.com/-a"),
            ["is invalid: the name after `/` must start and end with a letter or digit"]
        );
        // A message about a key with nothing wrong in its name's characters.
        assert_eq!(
            qualified_name_error_problem("ab", "?"),
            "is not a valid key"
        );

        let value = "a".repeat(64);
        assert_eq!(
            label_value_error_problem(&value, &is_valid_label_value(&value)[0]),
            "is invalid: it is 64 bytes long (at most 63)"
        );
        assert_eq!(
            label_value_error_problem("a b", &is_valid_label_value("a b")[0]),
            "is invalid: it contains a space, which is not allowed"
        );
        assert_eq!(
            label_value_error_problem("ok", "?"),
            "is not a valid label value"
        );
    }
}
