//! Taints, tolerations and how they match (k8s.io/api/core/v1 toleration.go and taint.go).

use std::fmt;

use crate::k8s::names::decimal_int64;

/// A taint's effect. Tolerations may leave it empty, which matches every effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Effect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
}

impl Effect {
    pub const ALL: [Effect; 3] = [
        Effect::NoSchedule,
        Effect::PreferNoSchedule,
        Effect::NoExecute,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Effect::NoSchedule => "NoSchedule",
            Effect::PreferNoSchedule => "PreferNoSchedule",
            Effect::NoExecute => "NoExecute",
        }
    }

    /// The exact (case-sensitive) spelling the API server accepts.
    pub fn parse(s: &str) -> Option<Effect> {
        Effect::ALL.into_iter().find(|e| e.as_str() == s)
    }

    /// What a taint with this effect does to pods that do not tolerate it (kube-scheduler's
    /// TaintToleration plugin and the taint eviction controller).
    pub fn meaning(self) -> &'static str {
        match self {
            Effect::NoSchedule => {
                "new pods that do not tolerate it are not scheduled onto the node; pods already \
                 running there stay"
            }
            Effect::PreferNoSchedule => {
                "the scheduler avoids the node for pods that do not tolerate it, but still uses \
                 it when no other node fits"
            }
            Effect::NoExecute => {
                "pods that do not tolerate it are not scheduled onto the node, and those running \
                 there are evicted; a pod whose toleration sets tolerationSeconds is evicted \
                 that long after the taint appears"
            }
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A toleration's operator; an omitted one means Equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    Equal,
    Exists,
    /// Numeric comparison (feature gate TaintTolerationComparisonOperators): the taint's value
    /// is less than the toleration's.
    Lt,
    /// Numeric comparison: the taint's value is greater than the toleration's.
    Gt,
}

impl Operator {
    pub fn as_str(self) -> &'static str {
        match self {
            Operator::Equal => "Equal",
            Operator::Exists => "Exists",
            Operator::Lt => "Lt",
            Operator::Gt => "Gt",
        }
    }

    /// The exact (case-sensitive) spelling; `""` is Equal.
    pub fn parse(s: &str) -> Option<Operator> {
        match s {
            "" | "Equal" => Some(Operator::Equal),
            "Exists" => Some(Operator::Exists),
            "Lt" => Some(Operator::Lt),
            "Gt" => Some(Operator::Gt),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: Effect,
}

impl fmt::Display for Taint {
    /// `kubectl taint` syntax: `key=value:Effect`, or `key:Effect` without a value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.value.is_empty() {
            write!(f, "{}:{}", self.key, self.effect)
        } else {
            write!(f, "{}={}:{}", self.key, self.value, self.effect)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Toleration {
    pub key: String,
    pub operator: Operator,
    pub value: String,
    /// `None` matches every effect.
    pub effect: Option<Effect>,
    pub toleration_seconds: Option<i64>,
}

impl Toleration {
    /// Upstream `ToleratesTaint` (k8s.io/api/core/v1 toleration.go): effect (if set) and key (if
    /// set) must be equal; then Exists matches any value, Equal the same value, and Lt/Gt (only
    /// with the feature gate TaintTolerationComparisonOperators on) compare both values as
    /// canonical int64s. It is "nothing [`Toleration::misses`]", by construction: both read
    /// the same field checks (`Toleration::missed_fields`).
    pub fn tolerates(&self, taint: &Taint, comparison_operators: bool) -> bool {
        self.missed_fields(taint, comparison_operators)
            .iter()
            .all(Option::is_none)
    }

    /// Upstream `MatchToleration`: the same key, operator, value and effect (the seconds are
    /// not compared).
    pub fn same_match(&self, other: &Toleration) -> bool {
        self.key == other.key
            && self.operator == other.operator
            && self.value == other.value
            && self.effect == other.effect
    }

    /// Plain words for what this toleration matches.
    pub fn describe(&self) -> String {
        let key = if self.key.is_empty() {
            "any key".to_string()
        } else {
            format!("key `{}`", self.key)
        };
        let value = match self.operator {
            Operator::Exists => "any value".to_string(),
            Operator::Equal if self.value.is_empty() => "no value".to_string(),
            Operator::Equal => format!("value `{}`", self.value),
            Operator::Lt => format!("a numeric value below {}", self.value),
            Operator::Gt => format!("a numeric value above {}", self.value),
        };
        let effect = match self.effect {
            None => "any effect".to_string(),
            Some(e) => format!("effect {e}"),
        };
        format!("any taint with {key}, {value}, {effect}")
    }

    /// What `tolerationSeconds` means for this toleration, in plain words and human units;
    /// `None` when it is not set and the toleration cannot match a NoExecute taint.
    pub fn describe_seconds(&self) -> Option<String> {
        let no_execute = matches!(self.effect, None | Some(Effect::NoExecute));
        Some(match (self.toleration_seconds, no_execute) {
            (Some(s), true) if s <= 0 => format!(
                "tolerationSeconds {s}: the pod is evicted as soon as a matching NoExecute \
                 taint appears (zero or less means at once)"
            ),
            (Some(s), true) => format!(
                "tolerationSeconds {s}: the pod stays {} after a matching NoExecute taint \
                 appears, then is evicted",
                human_duration(s)
            ),
            (Some(s), false) => format!(
                "tolerationSeconds {s} only applies to NoExecute taints; with effect {} it \
                 means nothing",
                self.effect.map_or("", Effect::as_str)
            ),
            (None, true) => "No tolerationSeconds: a matching NoExecute taint never evicts \
                             the pod"
                .to_string(),
            (None, false) => return None,
        })
    }
}

/// A number of seconds in the largest units that fit: `90` is "1 minute 30 seconds".
pub fn human_duration(seconds: i64) -> String {
    if seconds <= 0 {
        return format!("{seconds} seconds");
    }
    let units = [
        ("day", 86_400),
        ("hour", 3_600),
        ("minute", 60),
        ("second", 1),
    ];
    let mut left = seconds;
    let mut parts = Vec::new();
    for (name, size) in units {
        let n = left / size;
        left %= size;
        if n > 0 {
            parts.push(format!("{n} {name}{}", if n == 1 { "" } else { "s" }));
        }
        // Two units are precise enough for a person.
        if parts.len() == 2 {
            break;
        }
    }
    parts.join(" ")
}

impl Toleration {
    /// `key Exists effect` with no seconds, as admission and the DaemonSet controller add them.
    pub fn exists(key: &str, effect: Effect) -> Toleration {
        Toleration {
            key: key.to_string(),
            operator: Operator::Exists,
            value: String::new(),
            effect: Some(effect),
            toleration_seconds: None,
        }
    }

    /// Why this toleration does not tolerate `taint`: every field that differs (empty when it
    /// does tolerate it, which is what [`Toleration::tolerates`] says).
    pub fn misses(&self, taint: &Taint, comparison_operators: bool) -> Vec<Miss> {
        self.missed_fields(taint, comparison_operators)
            .into_iter()
            .flatten()
            .map(|field| match field {
                Field::Key => Miss::Key {
                    toleration: self.key.clone(),
                    taint: taint.key.clone(),
                },
                Field::Effect(toleration) => Miss::Effect {
                    toleration,
                    taint: taint.effect,
                },
                Field::Value => Miss::Value {
                    toleration: self.value.clone(),
                    taint: taint.value.clone(),
                },
                Field::GateOff => Miss::GateOff(self.operator),
                Field::Comparison => Miss::Comparison {
                    operator: self.operator,
                    toleration: self.value.clone(),
                    taint: taint.value.clone(),
                },
            })
            .collect()
    }

    /// The one matching implementation, upstream `ToleratesTaint`'s checks in [`Miss`]'s
    /// order: the key (when set), the effect (when set), then the value by the operator. Each
    /// is `None` when the field matches; nothing is allocated.
    fn missed_fields(&self, taint: &Taint, comparison_operators: bool) -> [Option<Field>; 3] {
        let key = (!self.key.is_empty() && self.key != taint.key).then_some(Field::Key);
        let effect = self
            .effect
            .filter(|&e| e != taint.effect)
            .map(Field::Effect);
        let value = match self.operator {
            Operator::Exists => None,
            Operator::Equal => (self.value != taint.value).then_some(Field::Value),
            Operator::Lt | Operator::Gt if !comparison_operators => Some(Field::GateOff),
            Operator::Lt | Operator::Gt => {
                (!compare(self.operator, &self.value, &taint.value)).then_some(Field::Comparison)
            }
        };
        [key, effect, value]
    }
}

/// Which check of [`Toleration::missed_fields`] failed.
#[derive(Debug, Clone, Copy)]
enum Field {
    Key,
    Effect(Effect),
    Value,
    GateOff,
    Comparison,
}

/// Upstream `compareNumericValues`: both values canonical decimal int64s
/// (`content.IsDecimalInteger`, then `strconv.ParseInt`), and the taint's less (Lt) or greater
/// (Gt) than the toleration's.
fn compare(operator: Operator, toleration: &str, taint: &str) -> bool {
    match (decimal_int64(toleration), decimal_int64(taint)) {
        (Some(tol), Some(val)) => match operator {
            Operator::Lt => val < tol,
            Operator::Gt => val > tol,
            _ => false,
        },
        _ => false,
    }
}

/// One reason a toleration does not tolerate a taint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    Key {
        toleration: String,
        taint: String,
    },
    Effect {
        toleration: Effect,
        taint: Effect,
    },
    Value {
        toleration: String,
        taint: String,
    },
    /// Lt or Gt with the feature gate off: never matches.
    GateOff(Operator),
    /// Lt or Gt whose comparison fails (or whose values are not canonical integers).
    Comparison {
        operator: Operator,
        toleration: String,
        taint: String,
    },
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Miss::Key { toleration, taint } => {
                write!(f, "key `{toleration}` is not `{taint}`")?;
                if crate::k8s::well_known::edit_distance(toleration, taint, 2) <= 2 {
                    f.write_str(" (a typo?)")?;
                }
                Ok(())
            }
            Miss::Effect { toleration, taint } => {
                write!(f, "effect {toleration} does not match the taint's {taint}")
            }
            Miss::Value { toleration, taint } => write!(
                f,
                "value {} does not equal {}",
                super::go_quote(toleration),
                super::go_quote(taint)
            ),
            Miss::GateOff(op) => write!(
                f,
                "operator {op} matches nothing unless the feature gate \
                 TaintTolerationComparisonOperators is on",
                op = op.as_str()
            ),
            Miss::Comparison {
                operator,
                toleration,
                taint,
            } => {
                if decimal_int64(toleration).is_none() || decimal_int64(taint).is_none() {
                    write!(
                        f,
                        "{} compares canonical integers, and {} or {} is not one",
                        operator.as_str(),
                        super::go_quote(toleration),
                        super::go_quote(taint)
                    )
                } else {
                    let relation = if *operator == Operator::Lt {
                        "less"
                    } else {
                        "greater"
                    };
                    write!(f, "taint value {taint} is not {relation} than {toleration}")
                }
            }
        }
    }
}

/// Upstream `TolerationsTolerateTaint`: whether any toleration tolerates the taint.
pub fn tolerations_tolerate_taint(
    tolerations: &[Toleration],
    taint: &Taint,
    comparison_operators: bool,
) -> bool {
    tolerations
        .iter()
        .any(|t| t.tolerates(taint, comparison_operators))
}

/// Upstream `FindMatchingUntoleratedTaint`: the first taint that passes `filter` and that no
/// toleration tolerates.
pub fn find_matching_untolerated_taint<'t>(
    taints: &'t [Taint],
    tolerations: &[Toleration],
    filter: impl Fn(&Taint) -> bool,
    comparison_operators: bool,
) -> Option<&'t Taint> {
    taints
        .iter()
        .filter(|t| filter(t))
        .find(|t| !tolerations_tolerate_taint(tolerations, t, comparison_operators))
}

/// Upstream `DoNotScheduleTaintsFilterFunc`: the taints the scheduler's filter looks at.
pub fn do_not_schedule(taint: &Taint) -> bool {
    matches!(taint.effect, Effect::NoSchedule | Effect::NoExecute)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: &str, effect: Effect) -> Taint {
        Taint {
            key: key.into(),
            value: value.into(),
            effect,
        }
    }

    fn tol(key: &str, op: Operator, value: &str, effect: Option<Effect>) -> Toleration {
        Toleration {
            key: key.into(),
            operator: op,
            value: value.into(),
            effect,
            toleration_seconds: None,
        }
    }

    // Ported from k8s.io/api/core/v1 toleration_test.go TestTolerationToleratesTaint.
    #[test]
    fn tolerates_taint() {
        use Effect::*;
        use Operator::*;
        let cases = [
            (
                "toleration and taint have the same key and effect, and operator is Exists, and taint has no value, expect tolerated",
                tol("foo", Exists, "", Some(NoSchedule)),
                taint("foo", "", NoSchedule),
                true,
            ),
            (
                "toleration and taint have the same key and effect, and operator is Exists, and taint has some value, expect tolerated",
                tol("foo", Exists, "", Some(NoSchedule)),
                taint("foo", "bar", NoSchedule),
                true,
            ),
            (
                "toleration and taint have the same effect, toleration has empty key and operator is Exists, means match all taints, expect tolerated",
                tol("", Exists, "", Some(NoSchedule)),
                taint("foo", "bar", NoSchedule),
                true,
            ),
            (
                "toleration and taint have the same key, effect and value, and operator is Equal, expect tolerated",
                tol("foo", Equal, "bar", Some(NoSchedule)),
                taint("foo", "bar", NoSchedule),
                true,
            ),
            (
                "toleration and taint have the same key and effect, but different values, and operator is Equal, expect not tolerated",
                tol("foo", Equal, "value1", Some(NoSchedule)),
                taint("foo", "value2", NoSchedule),
                false,
            ),
            (
                "toleration and taint have the same key and value, but different effects, and operator is Equal, expect not tolerated",
                tol("foo", Equal, "bar", Some(NoSchedule)),
                taint("foo", "bar", NoExecute),
                false,
            ),
        ];
        for (name, t, x, want) in cases {
            assert_eq!(t.tolerates(&x, false), want, "{name}");
        }
    }

    #[test]
    fn empty_effect_matches_all_effects() {
        let t = tol("k", Operator::Exists, "", None);
        for e in Effect::ALL {
            assert!(t.tolerates(&taint("k", "v", e), false));
        }
        assert!(!t.tolerates(&taint("other", "v", Effect::NoSchedule), false));
    }

    #[test]
    fn numeric_comparison() {
        let lt = tol("gen", Operator::Lt, "5", Some(Effect::NoSchedule));
        assert!(lt.tolerates(&taint("gen", "4", Effect::NoSchedule), true));
        assert!(!lt.tolerates(&taint("gen", "5", Effect::NoSchedule), true));
        assert!(!lt.tolerates(&taint("gen", "x", Effect::NoSchedule), true));
        // Non-canonical integers never match, and without the gate nothing does.
        assert!(!lt.tolerates(&taint("gen", "04", Effect::NoSchedule), true));
        assert!(!lt.tolerates(&taint("gen", "4", Effect::NoSchedule), false));
        let gt = tol("gen", Operator::Gt, "5", None);
        assert!(gt.tolerates(&taint("gen", "6", Effect::NoExecute), true));
        assert!(!gt.tolerates(&taint("gen", "5", Effect::NoExecute), true));
        assert!(!tol("gen", Operator::Gt, "+5", None)
            .tolerates(&taint("gen", "6", Effect::NoExecute), true));
    }

    #[test]
    fn seconds_in_words() {
        assert_eq!(human_duration(30), "30 seconds");
        assert_eq!(human_duration(300), "5 minutes");
        assert_eq!(human_duration(3_661), "1 hour 1 minute");
        assert_eq!(human_duration(90_000), "1 day 1 hour");
        let mut t = tol("k", Operator::Exists, "", Some(Effect::NoExecute));
        assert_eq!(
            t.describe_seconds().unwrap(),
            "No tolerationSeconds: a matching NoExecute taint never evicts the pod"
        );
        t.toleration_seconds = Some(300);
        assert!(t.describe_seconds().unwrap().contains("stays 5 minutes"));
        t.toleration_seconds = Some(0);
        assert!(t.describe_seconds().unwrap().contains("at once"));
        t.effect = Some(Effect::NoSchedule);
        assert!(t
            .describe_seconds()
            .unwrap()
            .contains("only applies to NoExecute"));
        t.toleration_seconds = None;
        assert_eq!(t.describe_seconds(), None);
    }

    #[test]
    fn taint_display_is_kubectl_syntax() {
        assert_eq!(
            taint("a", "b", Effect::NoSchedule).to_string(),
            "a=b:NoSchedule"
        );
        assert_eq!(taint("a", "", Effect::NoExecute).to_string(), "a:NoExecute");
    }

    // Ported from component-helpers scheduling/corev1 helpers_test.go
    // TestFindMatchingUntoleratedTaint.
    #[test]
    fn find_matching_untolerated_taint_cases() {
        use Effect::*;
        use Operator::*;
        let all = |_: &Taint| true;
        let none = |_: &Taint| false;
        let no_execute = |t: &Taint| t.effect == NoExecute;
        type Filter = dyn Fn(&Taint) -> bool;
        let sla = "node.kubernetes.io/sla";
        type Case<'a> = (&'a str, Vec<Toleration>, Vec<Taint>, &'a Filter, bool);
        let cases: Vec<Case> = vec![
            ("empty tolerations tolerate empty taints", vec![], vec![], &all, true),
            (
                "non-empty tolerations tolerate empty taints",
                vec![tol("foo", Exists, "", Some(NoSchedule))],
                vec![],
                &all,
                true,
            ),
            (
                "tolerations match all taints, expect tolerated",
                vec![tol("foo", Exists, "", Some(NoSchedule))],
                vec![taint("foo", "", NoSchedule)],
                &all,
                true,
            ),
            (
                "tolerations don't match taints, but no taints apply to the filter, expect tolerated",
                vec![tol("foo", Exists, "", Some(NoSchedule))],
                vec![taint("bar", "", NoSchedule)],
                &none,
                true,
            ),
            (
                "no filterFunc indicated, means all taints apply to the filter, tolerations don't match taints, expect untolerated",
                vec![tol("foo", Exists, "", Some(NoSchedule))],
                vec![taint("bar", "", NoSchedule)],
                &all,
                false,
            ),
            (
                "tolerations match taints, expect tolerated",
                vec![tol("foo", Exists, "", Some(NoExecute))],
                vec![taint("foo", "", NoExecute), taint("bar", "", NoSchedule)],
                &no_execute,
                true,
            ),
            (
                "numeric Gt operator with taint value below threshold, expect not tolerated",
                vec![tol(sla, Gt, "950", Some(NoSchedule))],
                vec![taint(sla, "800", NoSchedule)],
                &all,
                false,
            ),
            (
                "numeric Gt operator with taint value above threshold, expect tolerated",
                vec![tol(sla, Gt, "750", Some(NoSchedule))],
                vec![taint(sla, "950", NoSchedule)],
                &all,
                true,
            ),
            (
                "numeric Lt operator with taint value above threshold, expect not tolerated",
                vec![tol(sla, Lt, "800", Some(NoSchedule))],
                vec![taint(sla, "950", NoSchedule)],
                &all,
                false,
            ),
            (
                "numeric Gt operator with non-numeric taint value, expect not tolerated",
                vec![tol(sla, Gt, "950", Some(NoSchedule))],
                vec![taint(sla, "high", NoSchedule)],
                &all,
                false,
            ),
        ];
        for (name, tolerations, taints, filter, tolerated) in cases {
            let found = find_matching_untolerated_taint(&taints, &tolerations, filter, true);
            assert_eq!(found.is_none(), tolerated, "{name}");
        }
    }

    // TolerationsTolerateTaint: any one toleration is enough.
    #[test]
    fn tolerations_tolerate_taint_cases() {
        use Effect::*;
        use Operator::*;
        let t = taint("dedicated", "gpu", NoSchedule);
        assert!(!tolerations_tolerate_taint(&[], &t, false));
        let tols = [
            tol("other", Exists, "", None),
            tol("dedicated", Equal, "gpu", Some(NoSchedule)),
        ];
        assert!(tolerations_tolerate_taint(&tols, &t, false));
        assert!(!tolerations_tolerate_taint(&tols[..1], &t, false));
    }

    // Newest toleration_test.go TestTolerationToleratesTaint rows 7 to 14 (the gate on) and
    // TestCompareNumericValues.
    #[test]
    fn comparison_operator_rows() {
        use Effect::*;
        use Operator::*;
        let sla = "node.kubernetes.io/sla";
        let rows = [
            (
                tol(sla, Gt, "950", Some(NoSchedule)),
                taint(sla, "800", NoSchedule),
                false,
            ),
            (
                tol(sla, Gt, "750", Some(NoSchedule)),
                taint(sla, "950", NoSchedule),
                true,
            ),
            (
                tol(sla, Lt, "800", Some(NoSchedule)),
                taint(sla, "950", NoSchedule),
                false,
            ),
            (
                tol(sla, Lt, "950", Some(NoSchedule)),
                taint(sla, "800", NoSchedule),
                true,
            ),
            (
                tol(sla, Gt, "950", Some(NoSchedule)),
                taint(sla, "950", NoSchedule),
                false,
            ),
            (
                tol(sla, Gt, "950", Some(NoSchedule)),
                taint(sla, "high", NoSchedule),
                false,
            ),
            (
                tol("test-key", Gt, "-100", Some(NoSchedule)),
                taint("test-key", "-200", NoSchedule),
                false,
            ),
            (
                tol("test-key", Gt, "9223372036854775806", Some(NoSchedule)),
                taint("test-key", "100", NoSchedule),
                false,
            ),
        ];
        for (i, (t, x, want)) in rows.iter().enumerate() {
            assert_eq!(t.tolerates(x, true), *want, "row {}", i + 7);
        }
        let cmp = |op, tol_v: &str, taint_v: &str| {
            tol("k", op, tol_v, None).tolerates(&taint("k", taint_v, NoSchedule), true)
        };
        for (a, b, want) in [
            ("100", "200", true),
            ("200", "100", false),
            ("100", "100", false),
            ("-100", "-50", true),
            ("-50", "-100", false),
            ("0", "1", true),
            ("9223372036854775806", "9223372036854775807", true),
            ("0", "9223372036854775807", true),
        ] {
            assert_eq!(cmp(Gt, a, b), want, "Gt {a} {b}");
        }
        for (a, b, want) in [
            ("200", "100", true),
            ("100", "200", false),
            ("100", "100", false),
            ("-50", "-100", true),
            ("-100", "-50", false),
            ("0", "-1", true),
            ("0", "-9223372036854775808", true),
            ("0", "0", false),
        ] {
            assert_eq!(cmp(Lt, a, b), want, "Lt {a} {b}");
        }
        for bad in ["abc", "", "0100", "+100", "100.5", "-"] {
            assert!(!cmp(Gt, bad, "200"), "toleration value {bad:?}");
        }
        for bad in ["xyz", "", "0200", "+200", " 200 "] {
            assert!(!cmp(Gt, "100", bad), "taint value {bad:?}");
            assert!(!cmp(Lt, "1000", bad), "taint value {bad:?}");
        }
    }

    #[test]
    fn misses_say_why() {
        use Effect::*;
        use Operator::*;
        let t = taint("nvidia.com/gpu", "present", NoSchedule);
        let m = |tol: Toleration| -> Vec<String> {
            tol.misses(&t, false)
                .iter()
                .map(|m| m.to_string())
                .collect()
        };
        assert_eq!(
            m(tol("nvidia.com/gpu", Equal, "true", Some(NoSchedule))),
            vec!["value \"true\" does not equal \"present\""]
        );
        assert_eq!(
            m(tol("nvidia.com/gpu", Exists, "", Some(NoExecute))),
            vec!["effect NoExecute does not match the taint's NoSchedule"]
        );
        assert_eq!(
            m(tol("nvidia.com/gpus", Exists, "", None)),
            vec!["key `nvidia.com/gpus` is not `nvidia.com/gpu` (a typo?)"]
        );
        assert!(m(tol("nvidia.com/gpu", Exists, "", None)).is_empty());
        assert_eq!(
            tol("k", Gt, "1", None)
                .misses(&taint("k", "5", NoSchedule), false)
                .len(),
            1
        );
        assert!(tol("k", Gt, "1", None)
            .misses(&taint("k", "5", NoSchedule), true)
            .is_empty());
        // With the gate on, a failed comparison names its relation, or the value that is not
        // a canonical integer (one is enough).
        let said = |op, tol_value: &str, taint_value: &str| -> Vec<String> {
            tol("k", op, tol_value, None)
                .misses(&taint("k", taint_value, NoSchedule), true)
                .iter()
                .map(|m| m.to_string())
                .collect()
        };
        assert_eq!(said(Lt, "5", "7"), vec!["taint value 7 is not less than 5"]);
        assert_eq!(
            said(Gt, "5", "3"),
            vec!["taint value 3 is not greater than 5"]
        );
        assert_eq!(
            said(Gt, "5", "05"),
            vec!["Gt compares canonical integers, and \"5\" or \"05\" is not one"]
        );
        assert_eq!(
            said(Lt, "x", "3"),
            vec!["Lt compares canonical integers, and \"x\" or \"3\" is not one"]
        );
        // Whatever misses() says, tolerates() agrees.
        for tol in [
            tol("nvidia.com/gpu", Equal, "present", None),
            tol("", Exists, "", Some(NoSchedule)),
            tol("x", Exists, "", Some(NoSchedule)),
        ] {
            assert_eq!(tol.misses(&t, false).is_empty(), tol.tolerates(&t, false));
        }
    }

    /// The words hover shows for a toleration: one per operator, an empty key and effect read
    /// as "any".
    #[test]
    fn describe_says_what_matches() {
        use Effect::*;
        use Operator::*;
        let said = |t: Toleration| t.describe();
        assert_eq!(
            said(tol("dedicated", Equal, "web", Some(NoSchedule))),
            "any taint with key `dedicated`, value `web`, effect NoSchedule"
        );
        assert_eq!(
            said(tol("dedicated", Equal, "", None)),
            "any taint with key `dedicated`, no value, any effect"
        );
        assert_eq!(
            said(tol("", Exists, "", None)),
            "any taint with any key, any value, any effect"
        );
        assert_eq!(
            said(tol("gen", Lt, "5", Some(NoExecute))),
            "any taint with key `gen`, a numeric value below 5, effect NoExecute"
        );
        assert_eq!(
            said(tol("gen", Gt, "5", None)),
            "any taint with key `gen`, a numeric value above 5, any effect"
        );
    }
}
