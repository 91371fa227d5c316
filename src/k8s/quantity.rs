//! Resource quantities (`500m`, `1Gi`, `1e3`), as k8s.io/apimachinery/pkg/api/resource
//! (quantity.go, `ParseQuantity`) reads them: a signed decimal number, then one suffix: a binary
//! one (`Ki` .. `Ei`), a decimal one (`n`, `u`, `m`, none, `k`, `M`, `G`, `T`, `P`, `E`) or a
//! decimal exponent (`e3`, `E-2`). Also `Value()` and `String()`, the canonical form in which
//! the API server prints a quantity back in its messages.

/// Upstream `ErrFormatWrong`'s text.
pub const FORMAT_WRONG: &str = "quantities must match the regular expression \
                                '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// A parsed quantity: its sign, its digits and where the value's decimal point is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    pub negative: bool,
    /// Every digit of the number, without the point.
    digits: String,
    /// How many of `digits` are after the point.
    scale: u32,
    /// A power of ten (decimal suffixes and exponents) or of 1024 (binary suffixes).
    multiplier: Multiplier,
}

/// The multiplier, which also decides the quantity's upstream `Format`: a decimal suffix or
/// none is `DecimalSI`, an exponent `DecimalExponent`, a binary suffix `BinarySI`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Multiplier {
    Ten(i32),
    Exponent(i32),
    Binary(u32),
}

impl Quantity {
    pub fn is_zero(&self) -> bool {
        self.digits.bytes().all(|b| b == b'0')
    }

    /// Whether the value is a whole number (upstream checks `MilliValue() % 1000 == 0` for
    /// resources counted in units, as extended resources are). `None` when too large to tell.
    pub fn is_integer(&self) -> Option<bool> {
        let digits = self.digits.trim_start_matches('0');
        if digits.is_empty() {
            return Some(true);
        }
        let n: u128 = digits.parse().ok()?;
        match self.multiplier {
            Multiplier::Ten(e) | Multiplier::Exponent(e) => {
                let shift = i64::from(self.scale) - i64::from(e);
                if shift <= 0 {
                    return Some(true);
                }
                let div = 10u128.checked_pow(u32::try_from(shift).ok()?)?;
                Some(n.is_multiple_of(div))
            }
            Multiplier::Binary(k) => {
                let num = n.checked_mul(1u128.checked_shl(10 * k)?)?;
                let div = 10u128.checked_pow(self.scale)?;
                Some(num % div == 0)
            }
        }
    }

    /// The magnitude exactly, as an integer and how many of its digits are decimals, rounded up
    /// (away from zero) to nano units as `ParseQuantity` rounds. `None` past 128 bits.
    fn exact(&self) -> Option<(u128, u32)> {
        let digits = self.digits.trim_start_matches('0');
        let n: u128 = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        let (mut n, mut places) = match self.multiplier {
            Multiplier::Ten(e) | Multiplier::Exponent(e) => {
                let net = i64::from(e) - i64::from(self.scale);
                if net >= 0 {
                    let up = 10u128.checked_pow(u32::try_from(net).ok()?)?;
                    (n.checked_mul(up)?, 0)
                } else {
                    (n, u32::try_from(-net).ok()?)
                }
            }
            Multiplier::Binary(k) => (n.checked_mul(1u128.checked_shl(10 * k)?)?, self.scale),
        };
        if places > 9 {
            let div = 10u128.checked_pow(places - 9)?;
            n = n.div_ceil(div);
            places = 9;
        }
        Some((n, places))
    }

    /// Upstream `Value()`: the magnitude rounded up to a whole number.
    pub fn value(&self) -> Option<u128> {
        let (n, places) = self.exact()?;
        Some(n.div_ceil(10u128.checked_pow(places)?))
    }

    /// Upstream `MilliValue()`: the magnitude in thousandths, rounded up (how the scheduler
    /// counts CPU).
    pub fn milli_value(&self) -> Option<u128> {
        let (n, places) = self.exact()?;
        Some(n.checked_mul(1000)?.div_ceil(10u128.checked_pow(places)?))
    }

    /// Upstream `String()`: how the API server prints the quantity (`CanonicalizeBytes` in
    /// k8s.io/apimachinery/pkg/api/resource/quantity.go). `1.5Gi` is `1536Mi`, `1000` is `1k`,
    /// `0.5Ki` is `512`. `None` past 128 bits.
    pub fn canonical(&self) -> Option<String> {
        let (n, places) = self.exact()?;
        if n == 0 {
            return Some("0".to_string());
        }
        let sign = if self.negative { "-" } else { "" };
        // A binary quantity stays binary when it is a whole number of at least 1024.
        if let Multiplier::Binary(_) = self.multiplier {
            let unit = 10u128.checked_pow(places)?;
            if n % unit == 0 && n / unit >= 1024 {
                let (mut amount, mut exponent) = (n / unit, 0usize);
                while amount % 1024 == 0 {
                    amount /= 1024;
                    exponent += 1;
                }
                // As upstream, a power past `Ei` has no suffix.
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
                    .get(exponent)
                    .copied()
                    .unwrap_or("");
                return Some(format!("{sign}{amount}{suffix}"));
            }
        }
        // Otherwise the factors of ten go into an exponent that is a multiple of three.
        let (mut amount, mut exponent) = (n, -i64::from(places));
        while amount % 10 == 0 {
            amount /= 10;
            exponent += 1;
        }
        let down = exponent.rem_euclid(3);
        amount = amount.checked_mul(10u128.pow(down as u32))?;
        exponent -= down;
        let suffix = match self.multiplier {
            Multiplier::Exponent(_) if exponent == 0 => String::new(),
            Multiplier::Exponent(_) => format!("e{exponent}"),
            _ => match exponent {
                -9 => "n",
                -6 => "u",
                -3 => "m",
                3 => "k",
                6 => "M",
                9 => "G",
                12 => "T",
                15 => "P",
                18 => "E",
                _ => "",
            }
            .to_string(),
        };
        Some(format!("{sign}{amount}{suffix}"))
    }
}

/// Upstream `ParseQuantity`; `Err` carries upstream's message.
pub fn parse(s: &str) -> Result<Quantity, &'static str> {
    if s.is_empty() {
        return Err(FORMAT_WRONG);
    }
    let b = s.as_bytes();
    let mut i = 0;
    let mut negative = false;
    if matches!(b[0], b'+' | b'-') {
        negative = b[0] == b'-';
        i = 1;
    }
    let mut digits = String::new();
    let mut scale = 0u32;
    let mut seen_point = false;
    let mut any = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                digits.push(c as char);
                any = true;
                if seen_point {
                    scale += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if !any {
        return Err(FORMAT_WRONG);
    }
    let suffix = &s[i..];
    let multiplier = match suffix {
        "Ki" => Multiplier::Binary(1),
        "Mi" => Multiplier::Binary(2),
        "Gi" => Multiplier::Binary(3),
        "Ti" => Multiplier::Binary(4),
        "Pi" => Multiplier::Binary(5),
        "Ei" => Multiplier::Binary(6),
        "n" => Multiplier::Ten(-9),
        "u" => Multiplier::Ten(-6),
        "m" => Multiplier::Ten(-3),
        "" => Multiplier::Ten(0),
        "k" => Multiplier::Ten(3),
        "M" => Multiplier::Ten(6),
        "G" => Multiplier::Ten(9),
        "T" => Multiplier::Ten(12),
        "P" => Multiplier::Ten(15),
        "E" => Multiplier::Ten(18),
        e if e.starts_with(['e', 'E']) => {
            let exp = &e[1..];
            let body = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if body.is_empty() || !body.bytes().all(|c| c.is_ascii_digit()) {
                return Err("unable to parse quantity's suffix");
            }
            Multiplier::Exponent(
                exp.parse()
                    .map_err(|_| "unable to parse quantity's suffix")?,
            )
        }
        _ => {
            // Upstream tells a suffix it cannot read from a number it cannot read by the
            // regular expression's shape.
            let shape = suffix
                .bytes()
                .all(|c| b"eEinumkKMGTP+-0123456789".contains(&c));
            return Err(if shape {
                "unable to parse quantity's suffix"
            } else {
                FORMAT_WRONG
            });
        }
    };
    Ok(Quantity {
        negative: negative && digits.bytes().any(|c| c != b'0'),
        digits,
        scale,
        multiplier,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_as_upstream_parses_them() {
        // Each with the canonical form upstream's String() prints it in.
        for (ok, canonical) in [
            ("0", "0"),
            ("10", "10"),
            ("10G", "10G"),
            ("500m", "500m"),
            ("1.5Gi", "1536Mi"),
            ("1e3", "1e3"),
            ("1E-2", "10e-3"),
            (".5", "500m"),
            ("5.", "5"),
            ("+1Ki", "1Ki"),
            ("-1", "-1"),
        ] {
            let parsed = parse(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert_eq!(parsed.canonical().as_deref(), Some(canonical), "{ok}");
        }
        for bad in ["", "abc", "1.2.3", "-", ".", "1 Gi", "10x", "1gi"] {
            // Upstream's parseQuantityString: no number, or a character that can start no
            // suffix, is ErrFormatWrong.
            assert_eq!(parse(bad).unwrap_err(), FORMAT_WRONG, "{bad}");
        }
        assert_eq!(
            parse("1Mii").unwrap_err(),
            "unable to parse quantity's suffix"
        );
        assert!(parse("-1").unwrap().negative);
        assert!(!parse("-0").unwrap().negative);
        assert!(parse("0.0").unwrap().is_zero());
    }

    #[test]
    fn whole_numbers() {
        assert_eq!(parse("2").unwrap().is_integer(), Some(true));
        assert_eq!(parse("500m").unwrap().is_integer(), Some(false));
        assert_eq!(parse("1000m").unwrap().is_integer(), Some(true));
        assert_eq!(parse("1.5").unwrap().is_integer(), Some(false));
        assert_eq!(parse("1.5k").unwrap().is_integer(), Some(true));
        assert_eq!(parse("0.5Ki").unwrap().is_integer(), Some(true));
        assert_eq!(parse("1e-1").unwrap().is_integer(), Some(false));
        // A binary suffix multiplies by 1024 per step: 1/1024 Ki and 1/1024² Mi are one byte,
        // 1/2048 Ki is half of one.
        assert_eq!(parse("0.0009765625Ki").unwrap().is_integer(), Some(true));
        assert_eq!(parse("0.00048828125Ki").unwrap().is_integer(), Some(false));
        assert_eq!(
            parse("0.00000095367431640625Mi").unwrap().is_integer(),
            Some(true)
        );
        assert_eq!(parse("0.00000095367431640625Mi").unwrap().value(), Some(1));
    }

    /// Upstream TestQuantityString (each canonical form and its alternate spelling) and
    /// TestQuantityParseEmit, with their negatives (k8s.io/apimachinery/pkg/api/resource/
    /// quantity_test.go); then forms a hugepages message shows.
    #[test]
    fn canonical_forms_as_upstream_prints_them() {
        let string = [
            ("1Gi", "1024Mi"),
            ("300Mi", "307200Ki"),
            ("6Ki", ""),
            ("1001Gi", "1025024Mi"),
            ("1Ti", "1024Gi"),
            ("5", "5000m"),
            ("500m", "0.5"),
            ("1G", "1000M"),
            ("1G", "0.001T"),
            ("1m", "1000u"),
            ("80m", ""),
            ("1080m", "1.08"),
            ("1080m", "1080000000n"),
            ("300M", ""),
            ("1T", ""),
            ("1234567M", ""),
            ("1234567m", ""),
            ("3k", ""),
            ("1025", ""),
            ("0", "00"),
            ("1e9", ".001e12"),
            ("1e-3", "0.001e0"),
            ("1e-9", "1000e-12"),
            ("80e-3", ""),
            ("300e6", ""),
            ("1e12", ""),
            ("1e3", ""),
            ("3e3", ""),
            ("1n", ""),
            ("80n", ""),
            ("1080n", ""),
            ("1u", ""),
            ("80u", ""),
            ("1080u", ""),
        ];
        let canonical = |s: &str| parse(s).unwrap().canonical().unwrap();
        for (expect, alternate) in string {
            assert_eq!(canonical(expect), expect);
            if !alternate.is_empty() {
                assert_eq!(canonical(alternate), expect, "{alternate}");
            }
            if expect != "0" {
                assert_eq!(canonical(&format!("-{expect}")), format!("-{expect}"));
            }
        }
        let emit = [
            ("1Ki", "1Ki"),
            ("1Mi", "1Mi"),
            ("1Gi", "1Gi"),
            ("1024Mi", "1Gi"),
            ("1000M", "1G"),
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
        ];
        for (input, expect) in emit {
            assert_eq!(canonical(input), expect, "{input}");
            assert_eq!(
                canonical(&format!("-{input}")),
                format!("-{expect}"),
                "-{input}"
            );
        }
        for (input, expect) in [("1.5Gi", "1536Mi"), ("2.5Mi", "2560Ki"), ("0.5Ki", "512")] {
            assert_eq!(canonical(input), expect, "{input}");
        }
        // Every suffix; an exponent of 0 has none (upstream suffixHandler.constructBytes).
        for (input, expect) in [
            ("1000T", "1P"),
            ("2000P", "2E"),
            ("1e0", "1"),
            ("1000e-3", "1"),
            ("12e1", "120"),
            ("1024Ti", "1Pi"),
            ("1024Pi", "1Ei"),
            ("3Ei", "3Ei"),
            ("0.5E", "500P"),
        ] {
            assert_eq!(canonical(input), expect, "{input}");
        }
        // Upstream CanonicalizeBytes prints a binary quantity as DecimalSI when it is under
        // 1024 (1000 bytes is `1k`) or not a whole number (`AsScale(0)` not exact).
        for (input, expect) in [("0.9765625Ki", "1k"), ("1.0005Ki", "1024512m")] {
            assert_eq!(canonical(input), expect, "{input}");
        }
    }

    #[test]
    fn values_round_up_to_whole_numbers() {
        for (input, value) in [
            ("3Mi", 3 << 20),
            ("1.5", 2),
            ("500m", 1),
            ("1e3", 1000),
            ("1n", 1),
            ("0", 0),
        ] {
            assert_eq!(parse(input).unwrap().value(), Some(value), "{input}");
        }
    }
}
