//! Exact positions: byte ranges in the core, 1-based line and column (in Unicode scalar values)
//! in the JSON output, under Japanese text, emoji, CRLF, a byte order mark, block scalars,
//! flow style, anchors, aliases and merge keys; document indices in multi-document streams;
//! and input built to hurt (alias bombs, deep nesting, a large file).

mod common;

use std::ops::Range;

use serde_json::Value;
use taintlint::position::{Encoding, LineIndex};
use taintlint::report::{json, FileReport};
use taintlint::{Diagnostic, Severity};

/// One expected finding: rule, path, byte range, and JSON start and end (line, column).
struct At {
    rule: &'static str,
    path: &'static str,
    bytes: Range<usize>,
    start: (u64, u64),
    end: (u64, u64),
}

fn json_of(text: &str, found: Vec<Diagnostic>) -> Value {
    let report = FileReport::new("t.yaml".to_string(), text.to_string(), found);
    serde_json::from_str(&json::render(&[report])).unwrap()
}

fn line_col(v: &Value) -> (u64, u64) {
    (v["line"].as_u64().unwrap(), v["column"].as_u64().unwrap())
}

/// Checks every expected finding in the core output and in the JSON output.
fn check(text: &str, expected: &[At]) -> Vec<Diagnostic> {
    let found = common::lint(text);
    let doc = json_of(text, found.clone());
    for want in expected {
        let core: Vec<_> = found
            .iter()
            .filter(|d| d.rule == want.rule && d.path.as_deref() == Some(want.path))
            .collect();
        assert_eq!(core.len(), 1, "{} at {}: {found:#?}", want.rule, want.path);
        assert_eq!(core[0].range, want.bytes, "{} at {}", want.rule, want.path);
        let j: Vec<&Value> = doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] == want.rule && d["path"] == want.path)
            .collect();
        assert_eq!(j.len(), 1);
        assert_eq!(
            line_col(&j[0]["range"]["start"]),
            want.start,
            "{} at {}",
            want.rule,
            want.path
        );
        assert_eq!(
            line_col(&j[0]["range"]["end"]),
            want.end,
            "{} at {}",
            want.rule,
            want.path
        );
    }
    found
}

/// Japanese and emoji in comments, values and block scalars; written with LF here, linted with
/// CRLF line endings and a byte order mark.
const JAPANESE: &str = r#"# 日本語のコメント: GPU ノード用 🚀
apiVersion: v1
kind: Pod
metadata:
  name: gpu-ジョブ  # 名前 👍
  annotations:
    description: |
      複数行の説明 🎉 key: value
      effect: noschedule  ← ブロック内は文字列
    note: >-
      折り畳み 😀
      テキスト
spec:
  tolerations:
  - {key: "専用", operator: Exists, effect: noschedule}  # 絵文字 🚀
  - key: example.com/gpu  # コメント 🇯🇵
    operator: Equal
    value: 値🚀
    effect: NoSchedule
"#;

fn crlf_bom() -> String {
    format!("\u{feff}{}", JAPANESE.replace('\n', "\r\n"))
}

#[test]
fn japanese_emoji_crlf_bom_and_block_scalars() {
    let text = &crlf_bom();
    let found = check(
        text,
        &[
            At {
                rule: "invalid-key",
                path: "spec.tolerations[0].key",
                bytes: 359..367,
                start: (15, 11),
                end: (15, 15),
            },
            At {
                rule: "unknown-effect",
                path: "spec.tolerations[0].effect",
                bytes: 395..405,
                start: (15, 43),
                end: (15, 53),
            },
            At {
                rule: "invalid-value",
                path: "spec.tolerations[1].value",
                bytes: 509..516,
                start: (18, 12),
                end: (18, 14),
            },
        ],
    );
    assert_eq!(&text[359..367], "\"専用\"");
    assert_eq!(&text[395..405], "noschedule");
    assert_eq!(&text[509..516], "値🚀");
    // Nothing in the block scalars, comments or metadata is a finding.
    assert_eq!(found.len(), 3, "{found:#?}");
    // An editor speaking UTF-16 counts the rocket as two units: the same place, other columns.
    let index = LineIndex::new(text);
    let end = index.line_col(text, 516, Encoding::Utf16);
    assert_eq!(
        (end.line, end.col),
        (17, 4 + "value: ".len() as u32 + 1 + 2)
    );
    let end = index.line_col(text, 516, Encoding::Utf32);
    assert_eq!((end.line, end.col), (17, 13));
}

#[test]
fn the_same_file_with_lf_has_the_same_columns() {
    let found = common::lint(JAPANESE);
    let doc = json_of(JAPANESE, found);
    let starts: Vec<(u64, u64)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| line_col(&d["range"]["start"]))
        .collect();
    assert_eq!(starts, [(15, 11), (15, 43), (18, 12)]);
}

#[test]
fn bom_on_the_flagged_line() {
    let text = "\u{feff}{kind: Pod, spec: {tolerations: [{key: a, operator: exists}]}}\n";
    check(
        text,
        &[At {
            rule: "unknown-operator",
            path: "spec.tolerations[0].operator",
            bytes: 55..61,
            start: (1, 53),
            end: (1, 59),
        }],
    );
}

/// Block scalars (keep, indentation indicator, folded) before the flagged tokens, anchors,
/// merge keys (one alias, a list of aliases) and whole tolerations through aliases.
const ANCHORS: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    keep: |+
      tolerations:
        - operator: exists


    indented: |2-
        効果: NoExecut 🚀

    folded: >
      a

      b
x-tolerations:
  base: &base
    operator: exists
    effect: NoSchedule
  full: &full {key: dedicated, operator: Exists, value: "yes-please"}
spec:
  template:
    spec:
      tolerations:
      - <<: *base
        key: a
      - <<: [*base]
        key: b
        effect: NoExecut
      - *full
      - *full
"#;

#[test]
fn anchors_aliases_merge_keys_and_block_scalars() {
    let text = ANCHORS;
    let exists = At {
        rule: "unknown-operator",
        path: "spec.template.spec.tolerations[0].operator",
        bytes: 258..264,
        start: (20, 15),
        end: (20, 21),
    };
    let with_value = |i: usize| At {
        rule: "exists-with-value",
        path: [
            "spec.template.spec.tolerations[2].value",
            "spec.template.spec.tolerations[3].value",
        ][i - 2],
        bytes: 344..356,
        start: (22, 57),
        end: (22, 69),
    };
    let found = check(
        text,
        &[
            // A merged field is reported where it is written, once per item that merges it.
            exists,
            At {
                path: "spec.template.spec.tolerations[1].operator",
                ..exists_at()
            },
            // The item's own key wins over the merged one.
            At {
                rule: "unknown-effect",
                path: "spec.template.spec.tolerations[1].effect",
                bytes: 489..497,
                start: (31, 17),
                end: (31, 25),
            },
            // A whole toleration through an alias: its fields are where the anchor is...
            with_value(2),
            with_value(3),
            // ... and the item itself is the alias.
            At {
                rule: "duplicate-toleration",
                path: "spec.template.spec.tolerations[3]",
                bytes: 520..525,
                start: (33, 9),
                end: (33, 14),
            },
        ],
    );
    let dup = found
        .iter()
        .find(|d| d.rule == "duplicate-toleration")
        .unwrap();
    assert_eq!(dup.related[0].range, 506..511);
    assert_eq!(&text[506..511], "*full");
    // The block scalars' look-alike tolerations are text, not findings.
    assert_eq!(found.len(), 6, "{found:#?}");
}

fn exists_at() -> At {
    At {
        rule: "unknown-operator",
        path: "",
        bytes: 258..264,
        start: (20, 15),
        end: (20, 21),
    }
}

#[test]
fn flow_style_positions() {
    let text = "kind: Pod\nspec: {tolerations: [{key: a, operator: Exists, value: b}, \
                {key: 'c', effect: \"NoExecut\", tolerationSeconds: 5}]}\n";
    let value = text.find("b}").unwrap();
    let effect = text.find("\"NoExecut\"").unwrap();
    check(
        text,
        &[
            At {
                rule: "exists-with-value",
                path: "spec.tolerations[0].value",
                bytes: value..value + 1,
                start: (2, 56),
                end: (2, 57),
            },
            At {
                rule: "unknown-effect",
                path: "spec.tolerations[1].effect",
                bytes: effect..effect + 10,
                start: (2, 79),
                end: (2, 89),
            },
        ],
    );
}

/// Every document counts, empty and comment-only ones included; a leading `---` adds none; a
/// syntax error is reported in its document and the others are still linted.
#[test]
fn document_indices() {
    let pod = "kind: Pod\nspec: {tolerations: [{key: a, operator: exists}]}\n";
    let text = format!(
        "---\n{pod}---\n---\n# only a comment\n---\n{pod}---\nkind: Pod\nspec: {{tolerations: \
         [{{key: a, operator: exists}}\n---\n{pod}"
    );
    let found = common::lint(&text);
    let docs: Vec<(&str, Option<usize>)> = found.iter().map(|d| (d.rule, d.document)).collect();
    assert_eq!(
        docs,
        [
            ("unknown-operator", Some(0)),
            ("unknown-operator", Some(3)),
            ("yaml-syntax", Some(4)),
            ("unknown-operator", Some(5)),
        ]
    );
    let doc = json_of(&text, found);
    let lines: Vec<(u64, u64)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| line_col(&d["range"]["start"]))
        .collect();
    // The syntax error points at the bracket that is never closed.
    assert_eq!(lines, [(3, 41), (9, 41), (12, 21), (15, 41)]);
    assert_eq!(doc["diagnostics"][2]["message"], "unclosed bracket '['");
    assert_eq!(doc["diagnostics"][2]["document"], 4);
    assert_eq!(doc["diagnostics"][2]["path"], Value::Null);
}

#[test]
fn document_indices_without_a_leading_marker() {
    let pod = "kind: Pod\nspec: {tolerations: [{key: a, operator: exists}]}\n";
    // A comment before the first document is not a document.
    for prefix in ["", "# header\n", "# header\n---\n", "%YAML 1.1\n---\n"] {
        let text = format!("{prefix}{pod}...\n# trailing comment\n---\n{pod}");
        let docs: Vec<_> = common::lint(&text).iter().map(|d| d.document).collect();
        assert_eq!(docs, [Some(0), Some(1)], "{prefix:?}");
    }
}

/// The "billion laughs": nine levels of nine aliases. One clear error, not a hang.
#[test]
fn alias_bomb_is_one_error() {
    let mut text =
        String::from("kind: Pod\nx:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (prev, name) in "abcdefgh".chars().zip("bcdefghi".chars()) {
        let refs = vec![format!("*{prev}"); 9].join(", ");
        text.push_str(&format!("  {name}: &{name} [{refs}]\n"));
    }
    text.push_str("spec:\n  tolerations: *i\n");
    let found = common::lint(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(d.rule, "yaml-syntax");
    assert_eq!(d.severity, Severity::Error);
    assert!(d.message.contains("excessive aliasing"), "{}", d.message);
    // It points at the alias that crosses go-yaml's limit: in the line that defines `d`, where
    // what comes through aliases first makes up more than 99% of the nodes decoded so far.
    let line = text[..d.range.start].matches('\n').count() + 1;
    assert!(
        text[d.range.start..].starts_with('*'),
        "{:?}",
        &text[d.range.clone()]
    );
    assert_eq!(line, 6, "{}", &text[d.range.start..d.range.start + 20]);
}

/// A document without aliases is never refused for its size: a million nodes are linted.
#[test]
fn a_million_nodes_without_aliases_are_accepted() {
    let mut text = String::from(
        "kind: Pod
metadata:
  name: big
spec:
  tolerations:
  - {key: a, operator: Exists, value: x}
  containers:
  - name: c
    args: [",
    );
    for i in 0..1_000_000 {
        text.push_str(if i == 0 { "a" } else { ",a" });
    }
    text.push_str("]\n");
    let found = common::lint(&text);
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["exists-with-value"], "{found:#?}");
}

/// Aliases that make up most of a document, but stay under go-yaml's ratio, are fine.
#[test]
fn aliases_under_the_ratio_are_accepted() {
    let mut text = String::from("kind: Pod\nx: &x [a, b, c, d, e, f, g, h, i]\ny: [");
    // 1,000 aliases of 10 nodes: 11,000 decoded nodes, 10,000 of them through aliases (91%).
    for i in 0..1000 {
        text.push_str(if i == 0 { "*x" } else { ", *x" });
    }
    text.push_str("]\n");
    assert_eq!(common::lint(&text), []);
}

/// Aliases that stay below the limit are fine, however often they are used.
#[test]
fn many_small_aliases_are_fine() {
    let mut text =
        String::from("kind: Pod\nspec:\n  tolerations:\n  - &t {key: a, operator: Exists}\n");
    for _ in 0..2000 {
        text.push_str("  - *t\n");
    }
    let found = common::lint(&text);
    assert!(found.iter().all(|d| d.rule == "duplicate-toleration"));
    assert_eq!(found.len(), 2000);
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let block: String = (0..10_000)
        .map(|i| format!("{}- \n", " ".repeat(i)))
        .collect();
    for text in [
        "[".repeat(10_000),
        "{a: ".repeat(10_000),
        format!("tolerations:\n{}", "[".repeat(10_000)),
        format!("x:\n{block}"),
    ] {
        // A sign of Kubernetes (here in a comment) makes the error a `yaml-syntax` error;
        // without one, the file is not read as a manifest, for the same reason.
        let bare = if text.starts_with("tolerations:") {
            "yaml-syntax"
        } else {
            "not-a-manifest"
        };
        for (prefix, rule) in [("# kind: List\n", "yaml-syntax"), ("", bare)] {
            let found = common::lint(&format!("{prefix}{text}"));
            assert_eq!(found.len(), 1, "{found:#?}");
            assert_eq!(found[0].rule, rule);
            assert!(
                found[0].message.contains("recursion limit"),
                "{}",
                found[0].message
            );
        }
    }
}

/// Nesting below the parser's limit goes all the way through extraction and the rules.
#[test]
fn nesting_below_the_limit_is_linted() {
    let depth = 100;
    let mut text = String::from("kind: Thing\nspec:\n");
    let mut indent = String::from("  ");
    for i in 0..depth {
        text.push_str(&format!("{indent}level{i}:\n"));
        indent.push_str("  ");
    }
    text.push_str(&format!(
        "{indent}tolerations:\n{indent}- key: a\n{indent}  operator: exists\n"
    ));
    let found = common::lint(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, "unknown-operator");
    assert!(found[0]
        .path
        .as_deref()
        .unwrap()
        .ends_with("level99.tolerations[0].operator"));
}

/// A 5 MB stream of Deployments with one mistake near the end: found, at the right line.
#[test]
fn five_megabytes() {
    let one = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\n  namespace: \
               shop\nspec:\n  replicas: 3\n  template:\n    spec:\n      tolerations:\n      - \
               key: dedicated\n        operator: Equal\n        value: web\n        effect: \
               NoSchedule\n      containers:\n      - name: web\n        image: nginx:1.27 # \
               ウェブ\n---\n";
    let mut text = String::new();
    let mut n = 0;
    while text.len() < 5 * 1024 * 1024 {
        text.push_str(&one.replace("{i}", &n.to_string()));
        n += 1;
    }
    let lines_before = text.matches('\n').count();
    text.push_str(
        &one.replace("{i}", "last")
            .replace("effect: NoSchedule", "effect: NoExecut"),
    );
    let found = common::lint(&text);
    assert_eq!(found.len(), 1, "{:#?}", &found[..found.len().min(3)]);
    let d = &found[0];
    assert_eq!(d.rule, "unknown-effect");
    assert_eq!(d.document, Some(n));
    assert_eq!(&text[d.range.clone()], "NoExecut");
    let doc = json_of(&text, found);
    assert_eq!(
        line_col(&doc["diagnostics"][0]["range"]["start"]),
        (lines_before as u64 + 14, 17)
    );
}

/// A Helm template is named once, at its first template action (the whole `{{ ... }}`). A file
/// that does not parse cannot tell quoted data from template text, so a quoted action counts.
#[test]
fn helm_template_points_at_its_first_action() {
    let text = "# {{ .Values.inAComment }}\nkind: Pod\nmetadata:\n  annotations:\n    a: \"{{ .Values.quoted }}\"\n\
                {{- if .Values.enabled }}\nspec:\n  tolerations: {{ toYaml .Values.t }}\n{{- end }}\n";
    let found = common::lint(text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, "helm-template");
    assert_eq!(&text[found[0].range.clone()], "{{ .Values.quoted }}");
    let doc = json_of(text, found);
    assert_eq!(line_col(&doc["diagnostics"][0]["range"]["start"]), (5, 9));
    let text = text.replace("\"{{ .Values.quoted }}\"", "plain");
    let found = common::lint(&text);
    assert_eq!(&text[found[0].range.clone()], "{{- if .Values.enabled }}");
    let doc = json_of(&text, found);
    assert_eq!(line_col(&doc["diagnostics"][0]["range"]["start"]), (6, 1));
    // Braces in data, and Helm's words outside any action, are not a template.
    let text = "kind: Pod\nmetadata:\n  annotations:\n    summary: \"{{ $labels.node }} down\"\n    \
                how: include toYaml nindent .Values\nspec:\n  tolerations: [{key: a, operator: Exists}]\n";
    assert!(common::lint(text).is_empty(), "{:#?}", common::lint(text));
}
