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
    /// Upstream `ToleratesTaint`: effect (if set) and key (if set) must be equal; then Exists
    /// matches any value, Equal the same value, and Lt/Gt (only with the feature gate
    /// TaintTolerationComparisonOperators on) compare both values as canonical int64s.
    pub fn tolerates(&self, taint: &Taint, comparison_operators: bool) -> bool {
        if self.effect.is_some_and(|e| e != taint.effect) {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match self.operator {
            Operator::Equal => self.value == taint.value,
            Operator::Exists => true,
            Operator::Lt | Operator::Gt => {
                if !comparison_operators {
                    return false;
                }
                let (Some(tol), Some(val)) =
                    (decimal_int64(&self.value), decimal_int64(&taint.value))
                else {
                    return false;
                };
                if self.operator == Operator::Lt {
                    val < tol
                } else {
                    val > tol
                }
            }
        }
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
}
