//! `duplicate-taint`: two taints of a node with the same key and effect.

use super::{go_quote, shown, Cx, Rule, RuleMeta};
use crate::diagnostic::Severity;
use crate::k8s::objects::Item;

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
        let mut seen: Vec<(&str, &str, usize)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
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
            go_time(s).unwrap_or_else(|| format!("time.Date(…) /* {s} */"))
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

/// `time.Time.GoString` of an RFC 3339 UTC time (`2024-05-01T10:00:00Z`) read into the local
/// zone of a server running in UTC: `time.Date(2024, time.May, 1, 10, 0, 0, 0, time.Local)`.
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
    let s = s.strip_suffix('Z').or_else(|| s.strip_suffix('z'))?;
    let (date, clock) = s.split_once(['T', 't'])?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<u32>().ok());
    let (year, month, day) = (d.next()??, d.next()??, d.next()??);
    let (clock, frac) = clock.split_once('.').unwrap_or((clock, ""));
    let mut c = clock.splitn(3, ':').map(|p| p.parse::<u32>().ok());
    let (hour, min, sec) = (c.next()??, c.next()??, c.next()??);
    if !frac.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 9 {
        return None;
    }
    let nanos: u32 = format!("{frac:0<9}").parse().ok()?;
    let month = MONTHS.get(month.checked_sub(1)? as usize)?;
    Some(format!(
        "time.Date({year}, time.{month}, {day}, {hour}, {min}, {sec}, {nanos}, time.Local)"
    ))
}
