//! Resource quantities (`500m`, `1Gi`, `1e3`), as k8s.io/apimachinery/pkg/api/resource
//! (quantity.go, `ParseQuantity`) reads them: a signed decimal number, then one suffix: a binary
//! one (`Ki` .. `Ei`), a decimal one (`n`, `u`, `m`, none, `k`, `M`, `G`, `T`, `P`, `E`) or a
//! decimal exponent (`e3`, `E-2`).

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Multiplier {
    Ten(i32),
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
            Multiplier::Ten(e) => {
                let shift = i64::from(self.scale) - i64::from(e);
                if shift <= 0 {
                    return Some(true);
                }
                let div = 10u128.checked_pow(u32::try_from(shift).ok()?)?;
                Some(n % div == 0)
            }
            Multiplier::Binary(k) => {
                let num = n.checked_mul(1u128.checked_shl(10 * k)?)?;
                let div = 10u128.checked_pow(self.scale)?;
                Some(num % div == 0)
            }
        }
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
            Multiplier::Ten(
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
        for ok in [
            "0", "10", "10G", "500m", "1.5Gi", "1e3", "1E-2", ".5", "5.", "+1Ki", "-1",
        ] {
            assert!(parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "abc", "1.2.3", "-", ".", "1 Gi", "10x", "1gi"] {
            assert!(parse(bad).is_err(), "{bad}");
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
    }
}
