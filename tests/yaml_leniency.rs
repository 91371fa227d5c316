//! What kubectl's YAML reader accepts beyond the YAML specification, read as kubectl reads it:
//! the API server's decoder and kubectl read YAML with sigs.k8s.io/yaml over go-yaml, a port of
//! libyaml, whose scanner checks no indentation inside a quoted scalar (scannerc.go,
//! `yaml_parser_scan_flow_scalar`). Each leniency is an exception of tests/yaml_test_suite.rs.

use taintlint::syntax::{self, Document};
use taintlint::{analyse, Options};

fn only_document(stream: &syntax::Stream<'_>) -> usize {
    assert!(stream.error.is_none(), "{:?}", stream.error);
    for d in &stream.documents {
        assert!(d.error.is_none(), "{:?}", d.error);
    }
    stream.documents.len()
}

fn str_at<'d>(doc: &'d Document<'_>, keys: &[&str]) -> (&'d str, std::ops::Range<usize>) {
    let id = doc
        .get_path(doc.root.unwrap(), keys)
        .expect("the path is there");
    (
        doc.scalar(id).expect("a scalar").0,
        doc.node(id).span.clone(),
    )
}

/// The reproducer: a quoted scalar whose continuation line is at its list item's dash,
/// as controller-gen writes long descriptions into CRDs.
const REPRODUCER: &str = "data:\n  items:\n        - description: 'first line\n        continued here'\n          name: a\n";

#[test]
fn a_quoted_scalar_continued_left_of_its_block_is_read_as_go_yaml_reads_it() {
    let stream = syntax::parse(REPRODUCER);
    assert_eq!(only_document(&stream), 1);
    let doc = &stream.documents[0];
    let items = doc.get_path(doc.root.unwrap(), &["data", "items"]).unwrap();
    let item = doc.sequence(items).unwrap()[0];
    let description = doc.get(item, "description").unwrap().1;
    assert_eq!(
        doc.scalar(description).unwrap().0,
        "first line continued here"
    );
    // Places are the text's as written.
    assert_eq!(
        &REPRODUCER[doc.node(description).span.clone()],
        "'first line\n        continued here'"
    );
    let name = doc.get(item, "name").unwrap().1;
    assert_eq!(&REPRODUCER[doc.node(name).span.clone()], "a");
}

#[test]
fn the_specifications_example_of_it_folds_as_go_yaml_folds_it() {
    // The YAML test suite's QB6E.
    let text = "---\nquoted: \"a\nb\nc\"\nafter: 'x\n  y'' z\nw'\n";
    let stream = syntax::parse(text);
    only_document(&stream);
    let doc = &stream.documents[0];
    let (quoted, span) = str_at(doc, &["quoted"]);
    assert_eq!(quoted, "a b c");
    assert_eq!(&text[span], "\"a\nb\nc\"");
    let (after, span) = str_at(doc, &["after"]);
    assert_eq!(after, "x y' z w");
    assert_eq!(&text[span], "'x\n  y'' z\nw'");
}

#[test]
fn the_rest_of_the_document_is_linted_in_place() {
    // A CRD-like document with a generated description, and a broken toleration after it.
    let text = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  versions:\n    - description: \"Widget is\n    a widget\"\n      name: v1\n  tolerations:\n  - key: dedicated\n    operator: Exists\n    effect: NoSchedul\n";
    let found = analyse(text, &Options::default());
    let rules: Vec<(&str, &str)> = found
        .iter()
        .map(|d| (d.rule, &text[d.range.clone()]))
        .collect();
    assert_eq!(rules, vec![("unknown-effect", "NoSchedul")]);
}

#[test]
fn what_go_yaml_refuses_is_still_refused() {
    // An unclosed quote.
    let stream = syntax::parse("a: 'one\n  two\n");
    assert!(stream.documents.iter().any(|d| d.error.is_some()) || stream.error.is_some());
    // A continuation left of its block, then a real error in the same document: the first
    // error go-yaml would give is the one reported, where it is in the text as written.
    let text = "a:\n  b: 'one\n  two'\n  c: [d\n";
    let stream = syntax::parse(text);
    let error = stream
        .documents
        .iter()
        .find_map(|d| d.error.clone())
        .or(stream.error.clone())
        .expect("refused");
    assert_ne!(
        error.message,
        "invalid indentation in multiline quoted scalar"
    );
    assert!(error.offset >= text.find("[d").unwrap(), "{error:?}");
    // A document of its own is not held back by the others.
    let text = "a: 'one\ntwo'\n---\nb: [\n---\nc: d\n";
    let stream = syntax::parse(text);
    assert_eq!(stream.documents.len(), 3);
    assert!(stream.documents[0].error.is_none());
    assert!(stream.documents[1].error.is_some());
    assert!(stream.documents[2].error.is_none());
}

#[test]
fn a_quote_inside_a_block_scalar_opens_nothing() {
    // The look at the text takes `note: 'open` for a quoted scalar; the parser knows it is a
    // literal block's text, which keeps its lines as written.
    let text = "a: |\n  note: 'open\n  more\nb: 'x\nc'\n";
    let stream = syntax::parse(text);
    only_document(&stream);
    let doc = &stream.documents[0];
    assert_eq!(str_at(doc, &["a"]).0, "note: 'open\nmore\n");
    let (b, span) = str_at(doc, &["b"]);
    assert_eq!(b, "x c");
    assert_eq!(&text[span], "'x\nc'");
}

#[test]
fn a_generated_crd_with_hundreds_of_them_is_read() {
    let mut text = String::from("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n");
    for i in 0..400 {
        text.push_str(&format!(
            "          field{i}:\n            description: \"Field {i} does\n          things \\\"well\\\"\n          and more\"\n            type: string\n"
        ));
    }
    let stream = syntax::parse(&text);
    only_document(&stream);
    let doc = &stream.documents[0];
    let keys = ["spec", "versions"];
    let versions = doc.get_path(doc.root.unwrap(), &keys).unwrap();
    let v1 = doc.sequence(versions).unwrap()[0];
    let props = doc
        .get_path(v1, &["schema", "openAPIV3Schema", "properties"])
        .unwrap();
    let (d, span) = {
        let id = doc.get_path(props, &["field399", "description"]).unwrap();
        (doc.scalar(id).unwrap().0, doc.node(id).span.clone())
    };
    assert_eq!(d, "Field 399 does things \"well\" and more");
    assert!(text[span].starts_with("\"Field 399 does\n          things"));
}
