//! Required node affinity, as component-helpers `nodeaffinity` reads and matches it.
//!
//! `nodeSelectorTerms` are ORed; within a term, `matchExpressions` (on labels) and
//! `matchFields` (on `metadata.name`) are ANDed. A term with neither selects nothing and is
//! dropped; a term that does not parse (an unknown operator, `In` without values, `Gt` with a
//! value that is not an integer, ...) never matches, but the other terms still can (upstream's
//! `LazyErrorNodeSelector`). No terms at all match no node.

use crate::k8s::names::{is_qualified_name, is_valid_label_value};
use crate::syntax::{Document, NodeId};

/// A node as the matchers see it: its labels and its name.
pub trait NodeView {
    fn label(&self, key: &str) -> Option<&str>;
    /// `None` for a pool as a whole (its nodes' names differ).
    fn name(&self) -> Option<&str>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SelOp {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
}

impl SelOp {
    pub fn parse(s: &str) -> Option<SelOp> {
        Some(match s {
            "In" => SelOp::In,
            "NotIn" => SelOp::NotIn,
            "Exists" => SelOp::Exists,
            "DoesNotExist" => SelOp::DoesNotExist,
            "Gt" => SelOp::Gt,
            "Lt" => SelOp::Lt,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SelOp::In => "In",
            SelOp::NotIn => "NotIn",
            SelOp::Exists => "Exists",
            SelOp::DoesNotExist => "DoesNotExist",
            SelOp::Gt => "Gt",
            SelOp::Lt => "Lt",
        }
    }
}

/// One `{key, operator, values}` of a term.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub key: String,
    pub op: SelOp,
    pub values: Vec<String>,
}

impl Requirement {
    /// upstream `labels.Requirement.Matches` for one label value (`None`: no such label).
    pub fn matches(&self, value: Option<&str>) -> bool {
        match self.op {
            SelOp::In => value.is_some_and(|v| self.values.iter().any(|x| x == v)),
            SelOp::NotIn => value.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            SelOp::Exists => value.is_some(),
            SelOp::DoesNotExist => value.is_none(),
            SelOp::Gt | SelOp::Lt => {
                let (Some(v), [r]) = (value.and_then(go_parse_int), self.values.as_slice()) else {
                    return false;
                };
                let Some(r) = go_parse_int(r) else {
                    return false;
                };
                if self.op == SelOp::Gt {
                    v > r
                } else {
                    v < r
                }
            }
        }
    }
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.op {
            SelOp::Exists | SelOp::DoesNotExist => write!(f, "{} {}", self.key, self.op.as_str()),
            _ => write!(
                f,
                "{} {} [{}]",
                self.key,
                self.op.as_str(),
                self.values.join(", ")
            ),
        }
    }
}

/// Go's `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits (leading zeros
/// allowed), within int64.
pub fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// One `nodeSelectorTerm`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Term {
    pub expressions: Vec<Requirement>,
    pub fields: Vec<Requirement>,
    /// Why the term does not parse (it then matches nothing).
    pub error: Option<String>,
    /// Its index in `nodeSelectorTerms`.
    pub index: usize,
}

impl Term {
    pub fn matches(&self, node: &dyn NodeView) -> bool {
        self.failure(node).is_none()
    }

    /// The first reason the term does not match, or `None` when it does.
    pub fn failure(&self, node: &dyn NodeView) -> Option<String> {
        self.check(node, &|_| false).err()
    }

    /// Whether the term matches `node`. An expression that needs a label the node does not
    /// have (`In`, `Exists`, `Gt`, `Lt`) but may carry (`open` says which: on a pool defined as
    /// code, labels beyond those it declares may be set elsewhere) is not a failure: it is
    /// returned, as a condition of the match. `Err` gives the first reason it cannot match.
    fn check(
        &self,
        node: &dyn NodeView,
        open: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<&Requirement>, String> {
        if let Some(e) = &self.error {
            return Err(format!("it is invalid ({e})"));
        }
        let mut needs = Vec::new();
        for r in &self.expressions {
            let value = node.label(&r.key);
            if value.is_none() && !r.matches(None) && open(&r.key) {
                needs.push(r);
            } else if !r.matches(value) {
                return Err(match value {
                    Some(v) => format!("`{r}` fails: the node has {}={v}", r.key),
                    None => format!("`{r}` fails: the node has no label {}", r.key),
                });
            }
        }
        // upstream only checks fields when the node has a name (every real node does).
        if let Some(name) = node.name() {
            for r in &self.fields {
                let value = if r.key == "metadata.name" { name } else { "" };
                let ok = match r.op {
                    SelOp::In => r.values.first().is_some_and(|v| v == value),
                    SelOp::NotIn => r.values.first().is_none_or(|v| v != value),
                    _ => false,
                };
                if !ok {
                    return Err(format!("`{r}` (a field) fails for node {name}"));
                }
            }
        }
        Ok(needs)
    }
}

/// `requiredDuringSchedulingIgnoredDuringExecution`.
#[derive(Debug, Clone)]
pub struct Affinity {
    pub terms: Vec<Term>,
    /// The `requiredDuringSchedulingIgnoredDuringExecution` key.
    pub key: NodeId,
}

impl Affinity {
    /// The value of `key` every term selects (`key In [value]`), if they all select one and
    /// the same: what a pod that is placed by this affinity certainly carries on its node.
    pub fn selected_value(&self, key: &str) -> Option<&str> {
        let mut values = self.terms.iter().map(|t| {
            t.expressions
                .iter()
                .find(|r| r.key == key && r.op == SelOp::In && r.values.len() == 1)
                .map(|r| r.values[0].as_str())
        });
        let first = values.next()??;
        values.all(|v| v == Some(first)).then_some(first)
    }

    pub fn matches(&self, node: &dyn NodeView) -> bool {
        self.terms.iter().any(|t| t.matches(node))
    }

    /// Why no term matches (`None` when one does).
    pub fn failure(&self, node: &dyn NodeView) -> Option<String> {
        self.check(node, &|_| false).err()
    }

    /// Whether a term matches `node`, as `Term::check` decides: `Ok` with no condition when
    /// one matches for certain, else with the expressions on labels the node does not declare
    /// of the first term that matches if they are set; `Err` with why no term can match.
    pub fn check(
        &self,
        node: &dyn NodeView,
        open: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<&Requirement>, String> {
        if self.terms.is_empty() {
            return Err("it has no non-empty nodeSelectorTerms, so it matches no node".into());
        }
        let mut why = Vec::new();
        let mut conditional = None;
        for t in &self.terms {
            match t.check(node, open) {
                Ok(needs) if needs.is_empty() => return Ok(needs),
                Ok(needs) => {
                    conditional.get_or_insert(needs);
                }
                Err(w) if self.terms.len() == 1 => why.push(w),
                Err(w) => why.push(format!("term {}: {w}", t.index)),
            }
        }
        conditional.ok_or_else(|| why.join("; "))
    }

    /// Whether matching depends on which node of a pool it is: fields, or a label that names
    /// nodes.
    pub fn per_node(&self, identity: &dyn Fn(&str) -> bool) -> bool {
        self.terms
            .iter()
            .any(|t| !t.fields.is_empty() || t.expressions.iter().any(|r| identity(&r.key)))
    }
}

fn strings(doc: &Document<'_>, id: NodeId) -> Vec<String> {
    doc.sequence(id)
        .unwrap_or_default()
        .iter()
        .filter_map(|&v| crate::inventory::scalar_text(doc, v))
        .collect()
}

fn requirement(doc: &Document<'_>, id: NodeId) -> Result<Requirement, String> {
    let key = doc
        .get(id, "key")
        .and_then(|(_, v)| crate::inventory::scalar_text(doc, v))
        .unwrap_or_default();
    let op_text = doc.get_str(id, "operator").unwrap_or("");
    let values = doc
        .get(id, "values")
        .map(|(_, v)| strings(doc, v))
        .unwrap_or_default();
    let op = SelOp::parse(op_text).ok_or_else(|| {
        format!(
            "operator: Unsupported value: {op_text:?}: supported values: \"In\", \"NotIn\", \
             \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""
        )
    })?;
    Ok(Requirement { key, op, values })
}

/// upstream `labels.NewRequirement` validation.
fn validate_expression(r: &Requirement) -> Option<String> {
    let errs = is_qualified_name(&r.key);
    if !errs.is_empty() {
        return Some(format!("key {:?}: {}", r.key, errs.join("; ")));
    }
    match r.op {
        SelOp::In | SelOp::NotIn if r.values.is_empty() => {
            return Some("for 'in', 'notin' operators, values set can't be empty".into())
        }
        SelOp::Exists | SelOp::DoesNotExist if !r.values.is_empty() => {
            return Some("values set must be empty for exists and does not exist".into())
        }
        SelOp::Gt | SelOp::Lt => {
            if r.values.len() != 1 {
                return Some("for 'Gt', 'Lt' operators, exactly one value is required".into());
            }
            if go_parse_int(&r.values[0]).is_none() {
                return Some("for 'Gt', 'Lt' operators, the value must be an integer".into());
            }
        }
        _ => {}
    }
    r.values.iter().find_map(|v| {
        let errs = is_valid_label_value(v);
        (!errs.is_empty()).then(|| format!("value {v:?}: {}", errs.join("; ")))
    })
}

/// Reads `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution` of a pod spec.
pub fn required(doc: &Document<'_>, spec: NodeId) -> Option<Affinity> {
    let (_, affinity) = doc.get(spec, "affinity")?;
    let (_, node_affinity) = doc.get(affinity, "nodeAffinity")?;
    let (key, required) = doc.get(
        node_affinity,
        "requiredDuringSchedulingIgnoredDuringExecution",
    )?;
    doc.mapping(required)?;
    let list = doc
        .get(required, "nodeSelectorTerms")
        .and_then(|(_, v)| doc.sequence(v))
        .unwrap_or_default();
    let terms = list
        .iter()
        .enumerate()
        .filter_map(|(index, &term)| node_selector_term(doc, term, index))
        .collect();
    Some(Affinity { terms, key })
}

/// Reads the terms of `affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution`
/// (each item's `preference`, with a positive `weight`): the nodes the scheduler's NodeAffinity
/// score prefers (pkg/scheduler/framework/plugins/nodeaffinity `Score`), a term that does not
/// parse left out.
pub fn preferred(doc: &Document<'_>, spec: NodeId) -> Vec<Term> {
    let list = doc
        .get_path(
            spec,
            &[
                "affinity",
                "nodeAffinity",
                "preferredDuringSchedulingIgnoredDuringExecution",
            ],
        )
        .and_then(|v| doc.sequence(v))
        .unwrap_or_default();
    list.iter()
        .enumerate()
        .filter(|&(_, &item)| {
            doc.get(item, "weight")
                .and_then(|(_, w)| doc.scalar(w))
                .and_then(|(w, _)| go_parse_int(w))
                .is_some_and(|w| w > 0)
        })
        .filter_map(|(index, &item)| {
            let (_, preference) = doc.get(item, "preference")?;
            node_selector_term(doc, preference, index)
        })
        .filter(|t| t.error.is_none())
        .collect()
}

/// One `NodeSelectorTerm` (`index` in its list), `None` when it has no requirement.
fn node_selector_term(doc: &Document<'_>, term: NodeId, index: usize) -> Option<Term> {
    let part = |name: &str| {
        doc.get(term, name)
            .and_then(|(_, v)| doc.sequence(v))
            .unwrap_or_default()
            .iter()
            .map(|&r| requirement(doc, r))
            .collect::<Vec<_>>()
    };
    let expressions = part("matchExpressions");
    let fields = part("matchFields");
    if expressions.is_empty() && fields.is_empty() {
        return None;
    }
    let mut error = None;
    let mut ok_expressions = Vec::new();
    for (i, r) in expressions.into_iter().enumerate() {
        match r {
            Ok(r) => {
                if let Some(e) = validate_expression(&r) {
                    error.get_or_insert(format!("matchExpressions[{i}]: {e}"));
                }
                ok_expressions.push(r);
            }
            Err(e) => {
                error.get_or_insert(format!("matchExpressions[{i}].{e}"));
            }
        }
    }
    let mut ok_fields = Vec::new();
    for (i, r) in fields.into_iter().enumerate() {
        match r {
            Ok(r) if matches!(r.op, SelOp::In | SelOp::NotIn) => {
                if r.values.len() != 1 {
                    error.get_or_insert(format!("matchFields[{i}].values: must have one element"));
                }
                ok_fields.push(r);
            }
            Ok(r) => {
                error.get_or_insert(format!(
                    "matchFields[{i}].operator: Unsupported value: {:?}: supported values: \
                     \"In\", \"NotIn\"",
                    r.op.as_str()
                ));
            }
            Err(e) => {
                error.get_or_insert(format!("matchFields[{i}].{e}"));
            }
        }
    }
    Some(Term {
        expressions: ok_expressions,
        fields: ok_fields,
        error,
        index,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::parse;

    struct Node<'a> {
        name: Option<&'a str>,
        labels: &'a [(&'a str, &'a str)],
    }

    impl NodeView for Node<'_> {
        fn label(&self, key: &str) -> Option<&str> {
            self.labels.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
        }
        fn name(&self) -> Option<&str> {
            self.name
        }
    }

    fn affinity(terms: &str) -> Option<Affinity> {
        let text = format!(
            "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n      nodeSelectorTerms: {terms}\n"
        );
        let stream = parse(&text);
        let doc = &stream.documents[0];
        required(doc, doc.root.unwrap())
    }

    /// Preferred node affinity: each item's `preference` with a positive weight (the scheduler
    /// scores no term of weight 0, and the API server refuses a weight outside 1..100), a term
    /// that does not parse left out.
    #[test]
    fn preferred_terms() {
        let text = "affinity:
  nodeAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
    - {weight: 50, preference: {matchExpressions: [{key: pool, operator: In, values: [gpu]}]}}
    - {weight: 0, preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}}
    - {weight: 10, preference: {matchExpressions: [{key: disk, operator: Bogus}]}}
    - {weight: 10, preference: {}}
";
        let stream = parse(text);
        let doc = &stream.documents[0];
        let terms = preferred(doc, doc.root.unwrap());
        assert_eq!(terms.len(), 1, "{terms:?}");
        assert_eq!(terms[0].index, 0);
        let node = |labels: &'static [(&'static str, &'static str)]| Node { name: None, labels };
        assert!(terms[0].matches(&node(&[("pool", "gpu")])));
        assert!(!terms[0].matches(&node(&[("pool", "cpu")])));
    }

    // Ported from component-helpers nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms
    // (the affinity half; the nodeSelector half is in schedule::tests) and helpers_test.go
    // TestMatchNodeSelectorTerms.
    #[test]
    fn node_affinity_matching() {
        let foo_bar = [("foo", "bar")];
        let gpu = [
            ("GPU", "NVIDIA-GRID-K1"),
            ("kernel-version", "0206"),
            ("mem-type", "DDR3"),
        ];
        type Case<'a> = (
            &'a str,
            &'a str,
            &'a [(&'a str, &'a str)],
            Option<&'a str>,
            bool,
        );
        let cases: Vec<Case> = vec![
            ("Pod with matchExpressions using In operator that matches the existing node",
             "[{matchExpressions: [{key: foo, operator: In, values: [bar, value2]}]}]", &foo_bar, None, true),
            ("Pod with matchExpressions using Gt operator that matches the existing node",
             "[{matchExpressions: [{key: kernel-version, operator: Gt, values: ['0204']}]}]", &gpu, None, true),
            ("Pod with matchExpressions using NotIn operator that matches the existing node",
             "[{matchExpressions: [{key: mem-type, operator: NotIn, values: [DDR, DDR2]}]}]", &gpu, None, true),
            ("Pod with matchExpressions using Exists operator that matches the existing node",
             "[{matchExpressions: [{key: GPU, operator: Exists}]}]", &gpu, None, true),
            ("Pod with affinity that don't match node's labels won't schedule onto the node",
             "[{matchExpressions: [{key: foo, operator: In, values: [value1, value2]}]}]", &foo_bar, None, false),
            ("Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
             "null", &foo_bar, None, false),
            ("Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
             "[]", &foo_bar, None, false),
            ("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
             "[{matchExpressions: []}]", &foo_bar, None, false),
            ("Pod with multiple matchExpressions ANDed that matches the existing node",
             "[{matchExpressions: [{key: GPU, operator: Exists}, {key: GPU, operator: NotIn, values: [AMD, INTER]}]}]", &gpu, None, true),
            ("Pod with multiple matchExpressions ANDed that doesn't match the existing node",
             "[{matchExpressions: [{key: GPU, operator: Exists}, {key: GPU, operator: In, values: [AMD, INTER]}]}]", &gpu, None, false),
            ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
             "[{matchExpressions: [{key: foo, operator: In, values: [bar, value2]}]}, {matchExpressions: [{key: diffkey, operator: In, values: [wrong, value2]}]}]", &foo_bar, None, true),
            ("Pod with an invalid value in Affinity term won't be scheduled onto the node",
             "[{matchExpressions: [{key: foo, operator: NotIn, values: ['invalid value: ___@#$%^']}]}]", &foo_bar, None, false),
            ("Pod with matchFields using In operator that matches the existing node",
             "[{matchFields: [{key: metadata.name, operator: In, values: [node_1]}]}]", &foo_bar, Some("node_1"), true),
            ("Pod with matchFields using In operator that does not match the existing node",
             "[{matchFields: [{key: metadata.name, operator: In, values: [node_1]}]}]", &foo_bar, Some("node_2"), false),
            ("Pod with two terms: matchFields does not match, but matchExpressions matches",
             "[{matchFields: [{key: metadata.name, operator: In, values: [node_1]}]}, {matchExpressions: [{key: foo, operator: In, values: [bar]}]}]", &foo_bar, Some("node_2"), true),
            ("Pod with one term: matchFields does not match, but matchExpressions matches",
             "[{matchFields: [{key: metadata.name, operator: In, values: [node_1]}], matchExpressions: [{key: foo, operator: In, values: [bar]}]}]", &foo_bar, Some("node_2"), false),
            ("Pod with one term: both matchFields and matchExpressions match",
             "[{matchFields: [{key: metadata.name, operator: In, values: [node_1]}], matchExpressions: [{key: foo, operator: In, values: [bar]}]}]", &foo_bar, Some("node_1"), true),
            ("Pod with two terms: both matchFields and matchExpressions do not match",
             "[{matchFields: [{key: metadata.name, operator: In, values: [node_1]}]}, {matchExpressions: [{key: foo, operator: In, values: [not-match-to-bar]}]}]", &foo_bar, Some("node_2"), false),
            // TestMatchNodeSelectorTerms
            ("invalid node field requirement",
             "[{matchFields: [{key: metadata.name, operator: In, values: [host_1, host_2]}]}]", &foo_bar, Some("host_1"), false),
            ("fieldSelectorTerm with node labels",
             "[{matchFields: [{key: metadata.name, operator: In, values: [host_1]}]}]", &[("metadata.name", "host_1")], Some("not_host_1"), false),
            ("labelSelectorTerm with node fields",
             "[{matchExpressions: [{key: metadata.name, operator: In, values: [host_1]}]}]", &[], Some("host_1"), false),
            ("multi-selector was set, both node fields and labels (one mismatched)",
             "[{matchExpressions: [{key: label_1, operator: In, values: [label_1_val]}]}, {matchFields: [{key: metadata.name, operator: In, values: [host_1]}]}]", &[("label_1", "label_1_val")], Some("host_2"), true),
            ("an unknown operator breaks only its own term",
             "[{matchExpressions: [{key: foo, operator: Equals, values: [bar]}]}, {matchExpressions: [{key: foo, operator: Exists}]}]", &foo_bar, None, true),
        ];
        for (name, terms, labels, node_name, want) in cases {
            let node = Node {
                name: node_name,
                labels,
            };
            let got = affinity(terms).is_some_and(|a| a.matches(&node));
            assert_eq!(got, want, "{name}");
        }
    }

    // TestNodeSelectorRequirementsAsSelector and labels.Requirement Gt/Lt: ParseInt semantics.
    #[test]
    fn gt_lt_use_parse_int() {
        let r = |op, v: &str| Requirement {
            key: "k".into(),
            op,
            values: vec![v.into()],
        };
        assert!(r(SelOp::Gt, "1").matches(Some("2")));
        assert!(r(SelOp::Gt, "0204").matches(Some("0206")));
        assert!(r(SelOp::Lt, "7").matches(Some("+6")));
        assert!(!r(SelOp::Lt, "7").matches(Some("six")));
        assert!(!r(SelOp::Gt, "1").matches(None));
        assert_eq!(go_parse_int("-0"), Some(0));
        assert_eq!(go_parse_int("1_000"), None);
        assert_eq!(go_parse_int("9223372036854775808"), None);
    }

    // Every operator as labels.Requirement.Matches decides it
    // (staging/src/k8s.io/apimachinery/pkg/labels/selector.go): Gt and Lt are strict.
    #[test]
    fn each_operator_read_and_matched() {
        let node = Node {
            name: None,
            labels: &[("kv", "0206"), ("foo", "bar")],
        };
        let matches = |expr: &str| {
            affinity(&format!("[{{matchExpressions: [{expr}]}}]"))
                .unwrap()
                .matches(&node)
        };
        let cases = [
            ("{key: gpu, operator: DoesNotExist}", true),
            ("{key: foo, operator: DoesNotExist}", false),
            ("{key: kv, operator: Lt, values: ['0207']}", true),
            ("{key: kv, operator: Lt, values: ['206']}", false),
            ("{key: kv, operator: Gt, values: ['206']}", false),
            ("{key: kv, operator: Gt, values: ['205']}", true),
            ("{key: kv, operator: Lt, values: ['-1']}", false),
            // Invalid requirements (labels.NewRequirement) select nothing, even where the
            // label would satisfy them.
            ("{key: foo, operator: Exists, values: [bar]}", false),
            ("{key: foo, operator: DoesNotExist, values: [bar]}", false),
            ("{key: kv, operator: Gt, values: ['1', '2']}", false),
        ];
        for (expr, want) in cases {
            assert_eq!(matches(expr), want, "{expr}");
        }
    }

    #[test]
    fn invalid_terms_say_why() {
        let node = Node {
            name: Some("n"),
            labels: &[("foo", "bar"), ("n", "7")],
        };
        let failure = |terms: &str| affinity(terms).unwrap().failure(&node).unwrap();
        assert_eq!(
            failure("[{matchExpressions: [{key: foo, operator: Exists, values: [bar]}]}]"),
            "it is invalid (matchExpressions[0]: values set must be empty for exists and does \
             not exist)"
        );
        assert_eq!(
            failure("[{matchExpressions: [{key: n, operator: Gt, values: ['1', '2']}]}]"),
            "it is invalid (matchExpressions[0]: for 'Gt', 'Lt' operators, exactly one value \
             is required)"
        );
        assert_eq!(
            failure("[{matchExpressions: [{key: n, operator: Lt, values: [ten]}]}]"),
            "it is invalid (matchExpressions[0]: for 'Gt', 'Lt' operators, the value must be \
             an integer)"
        );
        // matchFields only knows In and NotIn (ValidateNodeFieldSelectorRequirement).
        assert_eq!(
            failure("[{matchFields: [{key: metadata.name, operator: Exists}]}]"),
            "it is invalid (matchFields[0].operator: Unsupported value: \"Exists\": supported \
             values: \"In\", \"NotIn\")"
        );
        // Several terms: each reason says which term it is.
        assert_eq!(
            failure(
                "[{matchExpressions: [{key: foo, operator: DoesNotExist}]}, \
                 {matchExpressions: [{key: gpu, operator: Exists}]}]"
            ),
            "term 0: `foo DoesNotExist` fails: the node has foo=bar; \
             term 1: `gpu Exists` fails: the node has no label gpu"
        );
    }

    // A pool defined as code ("open"): a label it does not declare may be set elsewhere, so an
    // expression needing it is a condition, not a failure; a certain match wins over one.
    #[test]
    fn open_nodes_make_missing_labels_conditions() {
        let node = Node {
            name: None,
            labels: &[("pool", "cpu")],
        };
        let needs = |terms: &str| -> Result<Vec<String>, String> {
            let a = affinity(terms).unwrap();
            a.check(&node, &|_| true)
                .map(|n| n.iter().map(|r| r.to_string()).collect())
        };
        let zone = "{matchExpressions: [{key: zone, operator: In, values: [a]}]}";
        let cpu = "{matchExpressions: [{key: pool, operator: In, values: [cpu]}]}";
        let gpu = "{matchExpressions: [{key: pool, operator: In, values: [gpu]}]}";
        assert_eq!(needs(&format!("[{zone}]")), Ok(vec!["zone In [a]".into()]));
        assert_eq!(needs(&format!("[{zone}, {cpu}]")), Ok(vec![]));
        assert_eq!(needs(&format!("[{cpu}, {zone}]")), Ok(vec![]));
        assert_eq!(
            needs(&format!("[{gpu}, {zone}]")),
            Ok(vec!["zone In [a]".into()])
        );
        // A label the node declares decides, open or not; NotIn on a missing label holds.
        assert!(needs(&format!("[{gpu}]")).is_err());
        assert_eq!(
            needs("[{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}]"),
            Ok(vec![])
        );
        // Closed, the missing label fails the term.
        let a = affinity(&format!("[{zone}]")).unwrap();
        assert_eq!(
            a.check(&node, &|_| false).unwrap_err(),
            "`zone In [a]` fails: the node has no label zone"
        );
    }

    #[test]
    fn per_node_when_fields_or_naming_labels() {
        let identity = |k: &str| k == "kubernetes.io/hostname";
        let per_node = |terms: &str| affinity(terms).unwrap().per_node(&identity);
        assert!(!per_node(
            "[{matchExpressions: [{key: pool, operator: In, values: [gpu]}]}]"
        ));
        assert!(per_node(
            "[{matchExpressions: [{key: pool, operator: Exists}]}, \
             {matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]}]"
        ));
        assert!(per_node(
            "[{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]"
        ));
    }

    #[test]
    fn failures_say_which_requirement() {
        let a =
            affinity("[{matchExpressions: [{key: pool, operator: In, values: [gpu]}]}]").unwrap();
        let node = Node {
            name: Some("n"),
            labels: &[("pool", "cpu")],
        };
        assert_eq!(
            a.failure(&node).unwrap(),
            "`pool In [gpu]` fails: the node has pool=cpu"
        );
        let a = affinity("[{matchExpressions: [{key: pool, operator: In}]}]").unwrap();
        assert!(a
            .failure(&node)
            .unwrap()
            .contains("values set can't be empty"));
    }
}
