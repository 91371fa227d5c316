//! Reading HCL whose object constructors repeat a key, as Terraform does.
//!
//! Terraform evaluates an object constructor (`{ min_size = 2, min_size = 4 }`) item by item
//! into a map, so a repeated key is no error and the last item wins (hashicorp/hcl,
//! hclsyntax/expression.go, `ObjectConsExpr.Value`: `vals[keyStr] = val`); only a repeated
//! attribute of a block body is ("Attribute redefined", hclsyntax/parser.go), and only a `for`
//! expression's repeated key ("Duplicate object key"). The HCL parser taintlint uses refuses
//! every repeated object key, which would turn a file `terraform apply` takes into a syntax
//! error and lose its node pools. So a repeated key's earlier items are blanked out (each
//! character but a line break becomes a space: every span stays where it was written) and
//! the text is parsed again; the later item is the one read, as Terraform reads it.

use hcl_edit::expr::{Expression, Object, ObjectKey};
use hcl_edit::parser::{parse_body, Error};
use hcl_edit::structure::{Body, Structure};
use hcl_edit::Span;
use std::collections::HashMap;
use std::ops::Range;

const REPEATED_KEY: &str = "found redefined object key";

/// Parses a body as Terraform reads it: an object constructor's repeated key is not an error,
/// its last item is the one kept. Any other syntax error is returned as the parser said it; so
/// is a repeated key of one character, which leaves no room for a placeholder.
pub(crate) fn parse_terraform_body(src: &str) -> Result<Body, Error> {
    let first = match parse_body(src) {
        Ok(body) => return Ok(body),
        Err(e) if e.message().contains(REPEATED_KEY) => e,
        Err(e) => return Err(e),
    };
    // First the later items of each repeated key get a key of their own (a placeholder as
    // long as the key, so that spans stay), which makes the text parse; then, in the tree,
    // every item but the last of a key (placeholders count as the key they stand for) is
    // blanked out in the text as written.
    let mut renamed = src.to_string();
    let mut stands_for: HashMap<usize, String> = HashMap::new();
    let body = loop {
        match parse_body(&renamed) {
            Ok(body) => break body,
            Err(e) if e.message().contains(REPEATED_KEY) => {
                let at = e.location().offset();
                if stands_for.contains_key(&at) {
                    return Err(first);
                }
                let Some((key, placeholder)) = placeholder(&renamed[at..], stands_for.len()) else {
                    return Err(first);
                };
                renamed.replace_range(at..at + placeholder.len(), &placeholder);
                stands_for.insert(at, key);
            }
            // The error the text holds besides its repeated keys, where it is.
            Err(e) => return Err(e),
        }
    };
    let mut earlier = Vec::new();
    walk_body(&body, &renamed, &stands_for, &mut earlier);
    let mut blanked = src.to_string();
    for item in earlier {
        let text: String = blanked[item.clone()]
            .chars()
            .map(|c| if c == '\n' || c == '\r' { c } else { ' ' })
            .collect();
        blanked.replace_range(item, &text);
    }
    parse_body(&blanked).map_err(|_| first)
}

/// The key written at the start of `text` (an identifier or a plain quoted string) and a
/// placeholder of the same length, the `n`th: `None` for a key too short to hold one.
fn placeholder(text: &str, n: usize) -> Option<(String, String)> {
    let tag = format!("_{n}");
    if let Some(rest) = text.strip_prefix('"') {
        let inner: String = rest.chars().take_while(|c| *c != '"').collect();
        if inner.contains(['\\', '$', '%', '\n']) || inner.len() < tag.len() {
            return None;
        }
        let pad = "_".repeat(inner.len() - tag.len());
        return Some((inner, format!("\"{tag}{pad}\"")));
    }
    let ident: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if ident.len() < tag.len() || !ident.is_ascii() {
        return None;
    }
    let pad = "_".repeat(ident.len() - tag.len());
    Some((ident, format!("{tag}{pad}")))
}

fn walk_body(
    body: &Body,
    text: &str,
    stands_for: &HashMap<usize, String>,
    out: &mut Vec<Range<usize>>,
) {
    for s in body.iter() {
        match s {
            Structure::Attribute(a) => walk(&a.value, text, stands_for, out),
            Structure::Block(b) => walk_body(&b.body, text, stands_for, out),
        }
    }
}

fn walk(
    e: &Expression,
    text: &str,
    stands_for: &HashMap<usize, String>,
    out: &mut Vec<Range<usize>>,
) {
    match e {
        Expression::Object(o) => {
            earlier_items(o, text, stands_for, out);
            for (_, v) in o.iter() {
                walk(v.expr(), text, stands_for, out);
            }
        }
        Expression::Array(a) => a.iter().for_each(|e| walk(e, text, stands_for, out)),
        Expression::Parenthesis(p) => walk(p.inner(), text, stands_for, out),
        Expression::FuncCall(f) => f.args.iter().for_each(|e| walk(e, text, stands_for, out)),
        Expression::Conditional(c) => {
            for e in [&c.cond_expr, &c.true_expr, &c.false_expr] {
                walk(e, text, stands_for, out);
            }
        }
        Expression::Traversal(t) => walk(&t.expr, text, stands_for, out),
        Expression::UnaryOp(u) => walk(&u.expr, text, stands_for, out),
        Expression::BinaryOp(b) => {
            walk(&b.lhs_expr, text, stands_for, out);
            walk(&b.rhs_expr, text, stands_for, out);
        }
        Expression::ForExpr(f) => {
            walk(&f.intro.collection_expr, text, stands_for, out);
            if let Some(k) = &f.key_expr {
                walk(k, text, stands_for, out);
            }
            walk(&f.value_expr, text, stands_for, out);
        }
        _ => {}
    }
}

/// The items of an object that a later item of the same key overrides, each from its key to
/// the end of its value and the comma after it, if any.
fn earlier_items(
    o: &Object,
    text: &str,
    stands_for: &HashMap<usize, String>,
    out: &mut Vec<Range<usize>>,
) {
    let mut by_key: HashMap<String, Vec<Range<usize>>> = HashMap::new();
    for (k, v) in o.iter() {
        let (Some(ks), Some(vs)) = (k.span(), v.expr().span()) else {
            continue;
        };
        let name = match stands_for.get(&ks.start) {
            Some(name) => name.clone(),
            None => match k {
                ObjectKey::Ident(i) => i.as_str().to_string(),
                ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
                // A key that is an expression is known only when evaluated.
                ObjectKey::Expression(_) => continue,
            },
        };
        let mut end = vs.end;
        let after = &text[end..];
        let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
        if after[spaces..].starts_with(',') {
            end += spaces + 1;
        }
        by_key.entry(name).or_default().push(ks.start..end);
    }
    for (_, mut items) in by_key {
        items.pop();
        out.extend(items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The object of attribute `name` in a parsed body, as (key, value as written) pairs.
    fn items(src: &str, name: &str) -> Vec<(String, String)> {
        let body = parse_terraform_body(src).unwrap();
        let Some(Expression::Object(o)) = body.get_attribute(name).map(|a| &a.value) else {
            panic!("{name} is not an object");
        };
        o.iter()
            .map(|(k, v)| {
                let key = match k {
                    ObjectKey::Ident(i) => i.as_str().to_string(),
                    ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
                    ObjectKey::Expression(e) => panic!("{e:?}"),
                };
                (key, src[v.expr().span().unwrap()].to_string())
            })
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_last_item_of_a_repeated_key_is_the_one_read() {
        let src = "x = {\n  a_size = 2\n  b = \"kept\"\n  a_size = 4\n}\n";
        assert_eq!(
            items(src, "x"),
            pairs(&[("b", "\"kept\""), ("a_size", "4")])
        );
        // Three times, on one line with commas, quoted or not: the same key.
        let src = "x = { size = 1, \"size\" = 2, other = 0 , size = 3 }\n";
        assert_eq!(items(src, "x"), pairs(&[("other", "0"), ("size", "3")]));
    }

    #[test]
    fn repeated_keys_are_read_in_nested_objects_and_calls() {
        let src = "m = merge({ g = { tt = \"a\"\n tt = \"b\" } }, var.x)\nblock \"l\" {\n  y = [{ kk = 1, kk = 2 }]\n}\n";
        let body = parse_terraform_body(src).unwrap();
        let Some(Expression::FuncCall(f)) = body.get_attribute("m").map(|a| &a.value) else {
            panic!("{body:?}");
        };
        let Some(Expression::Object(outer)) = f.args.iter().next() else {
            panic!("{f:?}");
        };
        let inner = outer.iter().next().unwrap().1.expr().as_object().unwrap();
        let values: Vec<&str> = inner
            .iter()
            .map(|(_, v)| &src[v.expr().span().unwrap()])
            .collect();
        assert_eq!(values, ["\"b\""]);
        let block = body.get_blocks("block").next().unwrap();
        let Some(Expression::Array(a)) = block.body.get_attribute("y").map(|a| &a.value) else {
            panic!("{block:?}");
        };
        let o = a.iter().next().unwrap().as_object().unwrap();
        assert_eq!(o.len(), 1);
        assert_eq!(&src[o.iter().next().unwrap().1.expr().span().unwrap()], "2");
    }

    #[test]
    fn other_syntax_errors_stay_errors() {
        // A block body's attribute written twice is an error in Terraform too
        // (hclsyntax/parser.go: "Attribute redefined").
        let e = parse_terraform_body("a = 1\na = 2\n").unwrap_err();
        assert!(e.message().contains("redefined attribute"), "{e}");
        // A repeated key beside a real error: the error is said, where it is.
        let e = parse_terraform_body("x = { k1 = 1, k1 = 2 }\ny = \n").unwrap_err();
        assert_eq!(e.location().line(), 2, "{e}");
        // A key of one character has no room for a placeholder: said, not guessed.
        let e = parse_terraform_body("x = { a = 1, a = 2 }\n").unwrap_err();
        assert!(e.message().contains(REPEATED_KEY), "{e}");
    }
}
