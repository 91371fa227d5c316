//! `duplicate-taint`: two taints of a node with the same key and effect.

use super::{go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::objects::{is_feature_rule, Item};

pub struct DuplicateTaint;

pub static META: RuleMeta = RuleMeta {
    name: "duplicate-taint",
    severity: Severity::Error,
    needs_inventory: false,
    fixable: false,
    summary: "Two taints with the same key and effect",
    why: "The API server rejects the Node.",
    explanation: r#"## What it catches
Two taints of one node with the same `key` and `effect`, whatever their values.

## Why it matters
The API server rejects the Node: `metadata.taints[1]: Duplicate value: core.Taint{Key:"dedicated",
Value:"batch", Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect
pair`. Which value was meant is ambiguous.

The path in that message starts at `metadata`, though the list is `spec.taints`: upstream
`ValidateNode` (pkg/apis/core/validation/validation.go) hands `validateNodeTaints` the field
path it started for the metadata, so the message says `metadata.taints[1]` (taintlint's own
path, in JSON output and editors, is the true `spec.taints[1]`). The duplicate is printed the
way apimachinery's `field.Error` prints a struct (`ErrorBody`, validation/field/errors.go: Go's
`%#v` of the internal `core.Taint`, which has no JSON tags), value included; an absent
`timeAdded` shows as `<nil>`, since `metav1.Time` has a `GoString` method that a nil pointer
cannot run.

In a node-feature-discovery NodeFeatureRule's `spec.rules[].taints` it is a warning: nfd-master
adds a rule's taints to the Node one by one with `AddOrUpdateTaint` (k8s.io/kubernetes
pkg/util/taints), which replaces a taint of the same key and effect, so the last one wins and the
API server never sees two. A taint with a field that does not decode is not compared: the API
server refuses it before it looks for duplicates (`undecodable-value`).

## Example
```yaml
spec:
  taints:
  - {key: dedicated, value: gpu, effect: NoSchedule}
  - {key: dedicated, value: batch, effect: NoSchedule}
```

## Fix
Keep one of them, or give them different effects.
"#,
};

impl Rule for DuplicateTaint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check_taint_list(&self, cx: &mut Cx<'_, '_>, items: &[Item<'_>]) {
        let nfd = cx
            .object
            .is_some_and(|o| is_feature_rule(cx.doc.get_str(o.node, "apiVersion"), o.kind));
        let mut seen: Vec<(&str, &str, usize)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            // The API server validates only what decodes: a taint with a field of the wrong
            // type is refused before any duplicate is looked for.
            if !item.decodes() {
                continue;
            }
            let (Some(key), Some(effect)) = (item.text("key"), item.text("effect")) else {
                continue;
            };
            if let Some(&(_, _, first)) = seen.iter().find(|(k, e, _)| *k == key && *e == effect) {
                let server = format!(
                    "{}: Duplicate value: {}: taints must be unique by key and effect pair",
                    cx.api_path(&item.path),
                    go_taint(item)
                );
                let message = format!(
                    "duplicate of taints[{}]: the same key {} and effect {effect} (one taint \
                     per key and effect)",
                    items[first].index,
                    shown(key)
                );
                let range = cx.item_range(item);
                let related = cx.item_range(&items[first]);
                if nfd {
                    // nfd-master adds a rule's taints one by one with `AddOrUpdateTaint`
                    // (k8s.io/kubernetes pkg/util/taints), which replaces a taint of the same
                    // key and effect: the last one wins, and the Node never sees two.
                    let message = format!("{message}; nfd-master keeps the last one");
                    cx.report(range, item.path.clone(), message)
                        .with_severity(Severity::Warning)
                        .with_related(
                            related,
                            format!("first taint with key {key:?} and effect {effect:?}"),
                        );
                    continue;
                }
                cx.report(range, item.path.clone(), message)
                    .with_server_message(server)
                    .with_related(
                        related,
                        format!("first taint with key {key:?} and effect {effect:?}"),
                    );
                continue;
            }
            seen.push((key, effect, i));
        }
    }
}

/// A taint as Go's `%#v` prints the internal `core.Taint` (pkg/apis/core/types.go: `Key`,
/// `Value`, `Effect`, `TimeAdded *metav1.Time`) in apimachinery's `field.Error.ErrorBody`.
/// `TimeAdded` is printed by `metav1.Time`'s promoted `time.Time.GoString`; on a nil pointer that
/// panics and fmt prints `<nil>`. A set time is decoded to the server's local time
/// (`metav1.Time.UnmarshalJSON` calls `Local()`), shown here for a server running in UTC.
fn go_taint(item: &Item<'_>) -> String {
    let time = match item.field("timeAdded").map(|f| &f.decoded) {
        None | Some(crate::k8s::decode::Decoded::Null) => "<nil>".to_string(),
        Some(crate::k8s::decode::Decoded::Str(s)) => {
            // Text `time.RFC3339` does not read fails to decode on the API server before any
            // validation (`metav1.Time.UnmarshalJSON`); taintlint does not check that format,
            // and shows such text as written.
            go_time(s).unwrap_or_else(|| go_quote(s))
        }
        Some(_) => "<nil>".to_string(),
    };
    format!(
        "core.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:{time}}}",
        go_quote(item.str("key")),
        go_quote(item.str("value")),
        go_quote(item.str("effect")),
    )
}

/// `time.Time.GoString` of an RFC 3339 time (`2024-05-01T12:00:00+02:00`, as Go's
/// `time.RFC3339` layout reads it, fractional seconds allowed, the first nine digits kept)
/// moved into the local zone of a server running in UTC:
/// `time.Date(2024, time.May, 1, 10, 0, 0, 0, time.Local)`. `None` for text that layout does
/// not read (the API server then refuses the taint as undecodable).
fn go_time(s: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let number = |t: &str| -> Option<i64> {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (number(&s[0..4])?, number(&s[5..7])?, number(&s[8..10])?);
    let (hour, min, sec) = (
        number(&s[11..13])?,
        number(&s[14..16])?,
        number(&s[17..19])?,
    );
    let mut rest = &s[19..];
    let mut nanos = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        nanos = number(&format!("{:0<9}", &frac[..digits.min(9)]))?;
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = rest[1..].split_once(':')?;
            if h.len() != 2 || m.len() != 2 {
                return None;
            }
            sign * (number(h)? * 3600 + number(m)? * 60)
        }
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || min > 59 || sec > 59 {
        return None;
    }
    let seconds =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec - offset;
    let (days, clock) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let month = MONTHS[(month - 1) as usize];
    Some(format!(
        "time.Date({year}, time.{month}, {day}, {}, {}, {}, {nanos}, time.Local)",
        clock / 3600,
        clock % 3600 / 60,
        clock % 60
    ))
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date of the proleptic Gregorian calendar (H. Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::go_time;

    #[test]
    fn times_as_go_prints_them_in_utc() {
        assert_eq!(
            go_time("2024-05-01T10:00:00Z").as_deref(),
            Some("time.Date(2024, time.May, 1, 10, 0, 0, 0, time.Local)")
        );
        // An offset is moved to UTC, across a day, a month and a year.
        assert_eq!(
            go_time("2024-01-01T01:30:00+02:00").as_deref(),
            Some("time.Date(2023, time.December, 31, 23, 30, 0, 0, time.Local)")
        );
        assert_eq!(
            go_time("2024-02-28T23:00:00.5-01:00").as_deref(),
            Some("time.Date(2024, time.February, 29, 0, 0, 0, 500000000, time.Local)")
        );
        assert_eq!(go_time("2024-02-30T00:00:00Z"), None);
        assert_eq!(go_time("2024-05-01 10:00:00Z"), None);
        assert_eq!(go_time("yesterday"), None);
    }

    /// Dates across months, leap years (every 4th, not the 100th, the 400th) and eras, moved
    /// to UTC by an offset; the expected dates are Python's `datetime.astimezone(timezone.utc)`
    /// of the same text (year 0 and before, which Python lacks, by hand: Go's year 0 is 1 BC).
    #[test]
    fn dates_across_months_leap_years_and_eras() {
        for (text, date) in [
            (
                "0000-01-01T00:30:00+01:00",
                "-1, time.December, 31, 23, 30, 0",
            ),
            ("0000-02-29T00:00:00Z", "0, time.February, 29, 0, 0, 0"),
            ("0001-01-01T00:00:00Z", "1, time.January, 1, 0, 0, 0"),
            (
                "0001-03-01T00:00:00+00:01",
                "1, time.February, 28, 23, 59, 0",
            ),
            ("1600-02-29T12:00:00Z", "1600, time.February, 29, 12, 0, 0"),
            ("1700-03-01T00:00:00-00:30", "1700, time.March, 1, 0, 30, 0"),
            (
                "1899-12-31T23:00:00-01:00",
                "1900, time.January, 1, 0, 0, 0",
            ),
            ("1900-02-28T23:30:00-01:00", "1900, time.March, 1, 0, 30, 0"),
            (
                "1969-12-31T23:59:59Z",
                "1969, time.December, 31, 23, 59, 59",
            ),
            ("1970-01-01T00:00:00Z", "1970, time.January, 1, 0, 0, 0"),
            (
                "2000-02-29T23:59:59Z",
                "2000, time.February, 29, 23, 59, 59",
            ),
            ("2000-03-01T00:00:00+00:00", "2000, time.March, 1, 0, 0, 0"),
            (
                "2023-03-01T00:30:00+01:00",
                "2023, time.February, 28, 23, 30, 0",
            ),
            (
                "2024-03-01T00:30:00+01:00",
                "2024, time.February, 29, 23, 30, 0",
            ),
            (
                "2024-01-31T23:00:00-01:00",
                "2024, time.February, 1, 0, 0, 0",
            ),
            ("2024-04-30T23:00:00-01:00", "2024, time.May, 1, 0, 0, 0"),
            ("2024-05-31T23:00:00-01:00", "2024, time.June, 1, 0, 0, 0"),
            ("2024-06-30T23:59:59-00:01", "2024, time.July, 1, 0, 0, 59"),
            ("2024-07-31T23:00:00-01:00", "2024, time.August, 1, 0, 0, 0"),
            (
                "2024-08-31T23:00:00-01:00",
                "2024, time.September, 1, 0, 0, 0",
            ),
            (
                "2024-09-30T22:00:00-05:45",
                "2024, time.October, 1, 3, 45, 0",
            ),
            (
                "2024-10-31T23:00:00-01:00",
                "2024, time.November, 1, 0, 0, 0",
            ),
            (
                "2024-11-30T23:00:00-01:00",
                "2024, time.December, 1, 0, 0, 0",
            ),
            ("2100-02-28T23:00:00-01:00", "2100, time.March, 1, 0, 0, 0"),
            (
                "2100-12-31T22:00:00-02:00",
                "2101, time.January, 1, 0, 0, 0",
            ),
            ("2400-02-29T00:00:00Z", "2400, time.February, 29, 0, 0, 0"),
            (
                "9999-12-31T23:59:59Z",
                "9999, time.December, 31, 23, 59, 59",
            ),
        ] {
            assert_eq!(
                go_time(text),
                Some(format!("time.Date({date}, 0, time.Local)")),
                "{text}"
            );
        }
    }

    /// What Go's `time.Parse(time.RFC3339, ...)` refuses (`parseRFC3339`, src/time/format_rfc3339.go,
    /// then the general `parse` of src/time/format.go): fields out of range (the day by the
    /// month's length, February's by the leap year), a field that is not all digits, a missing
    /// separator, text too short or a malformed offset.
    #[test]
    fn what_go_refuses() {
        for text in [
            "1900-02-29T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-06-31T00:00:00Z",
            "2024-09-31T00:00:00Z",
            "2024-11-31T00:00:00Z",
            "2024-01-32T00:00:00Z",
            "2024-00-10T00:00:00Z",
            "2024-13-10T00:00:00Z",
            "2024-05-00T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T23:60:00Z",
            "2024-05-01T23:59:60Z",
            "2024-+5-01T10:00:00Z",
            "2024-05-01T10:-1:00Z",
            "2024-05/01T10:00:00Z",
            "2024/05-01T10:00:00Z",
            "2024-05-01T10.00:00Z",
            "2024-05-01T10:00.00Z",
            "2024-05-01T10:00",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00:00.Z",
            "2024-05-01T10:00:00+02",
            "2024-05-01T10:00:00+2:00",
            "2024-05-01T10:00:00+02:0",
            "2024-05-01T10:00:00 02:00",
        ] {
            assert_eq!(go_time(text), None, "{text}");
        }
        // The edges that pass.
        for (text, date) in [
            (
                "2024-12-31T23:59:59Z",
                "2024, time.December, 31, 23, 59, 59, 0",
            ),
            (
                "2024-12-31T23:59:59.000000001Z",
                "2024, time.December, 31, 23, 59, 59, 1",
            ),
            (
                "2024-12-31T23:59:59.123456789Z",
                "2024, time.December, 31, 23, 59, 59, 123456789",
            ),
            (
                "2024-12-31T23:59:59-00:00",
                "2024, time.December, 31, 23, 59, 59, 0",
            ),
            (
                "2024-12-31T23:59:59+23:59",
                "2024, time.December, 31, 0, 0, 59, 0",
            ),
            // Go reads any number of fractional digits and keeps the first nine, cut, not
            // rounded (`parseNanoseconds`, src/time/format.go).
            (
                "2024-12-31T23:59:59.1234567891Z",
                "2024, time.December, 31, 23, 59, 59, 123456789",
            ),
            (
                "2024-12-31T23:59:59.99999999999Z",
                "2024, time.December, 31, 23, 59, 59, 999999999",
            ),
        ] {
            assert_eq!(
                go_time(text),
                Some(format!("time.Date({date}, time.Local)")),
                "{text}"
            );
        }
    }
}
