//! Reading `kubectl get nodes -o json` (or a single Node, or a list of Nodes) as JSON.
//!
//! A real cluster prints some 20 KB a node (conditions, addresses, nodeInfo, dozens of images),
//! of which scheduling needs a few hundred bytes: the name, the labels, the taints and
//! `spec.unschedulable`. The file is read once with serde_json, skipping everything else
//! without building it, and taints keep their exact byte ranges (serde_json's borrowed
//! [`RawValue`] is a slice of the text, so its place is known).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Loc, ParseError, PoolTaint, RawNode};
use crate::k8s::model::{Effect, Taint};
use crate::k8s::resources::{self, Resources};

#[derive(Deserialize)]
struct Object<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    metadata: Option<Metadata<'a>>,
    #[serde(borrow, default)]
    spec: Option<Spec<'a>>,
    #[serde(borrow, default)]
    status: Option<Status<'a>>,
}

#[derive(Deserialize)]
struct Metadata<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    labels: Option<BTreeMap<Cow<'a, str>, Cow<'a, str>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec<'a> {
    #[serde(borrow, default)]
    taints: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    unschedulable: Option<bool>,
    #[serde(borrow, default, rename = "podCIDR")]
    pod_cidr: Option<&'a RawValue>,
    #[serde(borrow, default, rename = "providerID")]
    provider_id: Option<&'a RawValue>,
}

/// Only whether the fields a Node's status has are there.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Status<'a> {
    #[serde(borrow, default)]
    node_info: Option<&'a RawValue>,
    #[serde(borrow, default)]
    capacity: Option<&'a RawValue>,
    #[serde(borrow, default)]
    allocatable: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct JsonTaint<'a> {
    #[serde(borrow, default)]
    key: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    value: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    effect: Option<Cow<'a, str>>,
}

/// The byte range of a borrowed JSON value inside `text`.
fn range_in(text: &str, raw: &RawValue) -> Range<usize> {
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    start..start + raw.get().len()
}

fn shift(range: Range<usize>, by: usize) -> Range<usize> {
    range.start + by..range.end + by
}

/// What reading a JSON inventory gives: its nodes and how many taints were left out as invalid.
pub(crate) struct Read {
    pub nodes: Vec<RawNode>,
    pub invalid_taints: usize,
}

/// Reads a JSON inventory file of Nodes; `None` when it holds something else, to be read as YAML.
pub(crate) fn read(file: usize, text: &str) -> Result<Option<Read>, ParseError> {
    let body = text.trim_start_matches('\u{feff}');
    let top: Object<'_> = serde_json::from_str(body).map_err(|e| json_error(text, &e))?;
    let mut out = Read {
        nodes: Vec::new(),
        invalid_taints: 0,
    };
    let kind = top.kind.as_deref().unwrap_or("");
    if super::is_cluster_kind(kind) {
        return Ok(Some(out));
    }
    if kind == "Node" {
        let at = 0..text.len();
        out.nodes
            .push(node(file, text, 0, top, at, &mut out.invalid_taints)?);
        return Ok(Some(out));
    }
    // Anything else (a Karpenter NodePool, a CCE node pool, ...) is read as YAML, which JSON is.
    let Some(items) = top
        .items
        .filter(|_| kind.ends_with("List") || kind.is_empty())
    else {
        return Ok(None);
    };
    // The items are read on every core: a 5,000-node list is some 100 MB of JSON.
    use rayon::prelude::*;
    let read: Vec<Result<Option<(RawNode, usize)>, ParseError>> = items
        .par_iter()
        .enumerate()
        .map(|(i, raw)| item(file, raw.get(), range_in(text, raw).start, i))
        .collect();
    for r in read {
        if let Some((node, invalid)) = r? {
            out.nodes.push(node);
            out.invalid_taints += invalid;
        }
    }
    Ok(Some(out))
}

/// The `i`th item of a list, whose text starts at `base` in the file: a Node with how many of
/// its taints are invalid, or `None` for a cluster object (Namespace, RuntimeClass) that is not
/// a node.
fn item(
    file: usize,
    text: &str,
    base: usize,
    i: usize,
) -> Result<Option<(RawNode, usize)>, ParseError> {
    let at = base..base + text.len();
    let item: Object<'_> = serde_json::from_str(text).map_err(|e| {
        let inner = json_error(text, &e);
        ParseError::at(
            at.start + inner.offset.unwrap_or(0),
            format!(
                "items[{i}]: {}",
                inner.message.trim_start_matches("not valid JSON: ")
            ),
        )
    })?;
    match item.kind.as_deref() {
        Some("Node") => {}
        Some(k) if super::is_cluster_kind(k) => return Ok(None),
        None if looks_like_a_node(&item) => {}
        other => {
            return Err(ParseError::at(
                at.start,
                super::not_a_node_item(i, other, item.metadata.is_some()),
            ))
        }
    }
    let mut invalid = 0;
    let node = node(file, text, base, item, at, &mut invalid)?;
    Ok(Some((node, invalid)))
}

/// An item without `kind` is a Node when it has a name and a Node's spec or status fields.
fn looks_like_a_node(item: &Object<'_>) -> bool {
    let named = item.metadata.as_ref().is_some_and(|m| m.name.is_some());
    let spec = item.spec.as_ref().is_some_and(|s| {
        s.taints.is_some()
            || s.unschedulable.is_some()
            || s.pod_cidr.is_some()
            || s.provider_id.is_some()
    });
    let status = item
        .status
        .as_ref()
        .is_some_and(|s| s.node_info.is_some() || s.capacity.is_some() || s.allocatable.is_some());
    named && (spec || status)
}

/// A Node read from `text`, which starts at `base` in the file.
fn node(
    file: usize,
    text: &str,
    base: usize,
    object: Object<'_>,
    at: Range<usize>,
    invalid: &mut usize,
) -> Result<RawNode, ParseError> {
    let at = Loc { file, range: at };
    let metadata = object.metadata;
    let name = metadata
        .as_ref()
        .and_then(|m| m.name)
        .and_then(|raw| serde_json::from_str::<Cow<'_, str>>(raw.get()).ok())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| ParseError::at(at.range.start, "a Node without metadata.name"))?;
    let labels = metadata
        .and_then(|m| m.labels)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let spec = object.spec;
    let mut taints = Vec::new();
    for raw in spec
        .as_ref()
        .and_then(|s| s.taints.as_deref())
        .unwrap_or_default()
    {
        match serde_json::from_str::<JsonTaint<'_>>(raw.get())
            .ok()
            .and_then(taint)
        {
            Some(taint) => taints.push(PoolTaint {
                taint,
                at: Loc {
                    file,
                    range: shift(range_in(text, raw), base),
                },
            }),
            None => *invalid += 1,
        }
    }
    let unschedulable = spec
        .as_ref()
        .filter(|s| s.unschedulable == Some(true))
        .map(|_| at.clone());
    // What it offers: `status.allocatable`, else `status.capacity` (quantities are strings).
    let allocatable = object
        .status
        .as_ref()
        .and_then(|s| s.allocatable.or(s.capacity))
        .and_then(|raw| {
            serde_json::from_str::<BTreeMap<Cow<'_, str>, Cow<'_, str>>>(raw.get()).ok()
        })
        .map(|list| {
            Resources::from_pairs(
                list.iter()
                    .filter_map(|(k, v)| Some((k.to_string(), resources::amount(k, v)?))),
            )
        });
    Ok(RawNode {
        name: name.into_owned(),
        labels,
        taints,
        unschedulable,
        at,
        pool: None,
        declared: None,
        bootstrap: None,
        allocatable,
        observed: true,
    })
}

/// A taint the scheduler can use: a key and a known effect (what the rules reject is left out,
/// as in a YAML inventory).
fn taint(t: JsonTaint<'_>) -> Option<Taint> {
    let key = t.key.filter(|k| !k.is_empty())?;
    Some(Taint {
        key: key.into_owned(),
        value: t.value.map(Cow::into_owned).unwrap_or_default(),
        effect: Effect::parse(t.effect.as_deref()?)?,
    })
}

/// How many bytes of items are read before they are parsed, together, on every core: enough
/// for every core to have work (a real node is about 20 KB), few enough that the batch is not
/// what a load holds most of (at 8 MB it was a third of a 5,000-node load's peak).
const BATCH_BYTES: usize = 2 << 20;

/// Reads a JSON list of Nodes from `reader` without holding its text: the top-level `items`
/// array is cut into items as the bytes arrive, and each batch of items is parsed on every core
/// as [`read`] parses them, with the same places. `Ok(None)` for anything a [`read`] of the
/// whole text must decide: a single Node, a list that is not of Nodes, a Namespace or
/// RuntimeClass among the items, or a text that is not valid (the whole read says where).
pub(crate) fn read_stream(
    file: usize,
    reader: impl std::io::Read,
) -> std::io::Result<Option<Read>> {
    let mut stream = Stream {
        scan: Scanner::new(reader),
        file,
        out: Read {
            nodes: Vec::new(),
            invalid_taints: 0,
        },
        batch: Vec::new(),
        bytes: Vec::new(),
        count: 0,
    };
    let mut list = ListFields::default();
    if !stream.scan.object_start()? {
        return Ok(None);
    }
    // The list's members in any order, `items` parsed in batches as it streams in.
    let mut first = true;
    loop {
        let key = match stream.scan.member_key(first)? {
            Some(Member::Key(key)) => key,
            Some(Member::End) => break,
            None => return Ok(None),
        };
        first = false;
        if !stream.member(&key, &mut list)? {
            return Ok(None);
        }
        stream.scan.skip_ws()?;
        match stream.scan.next()? {
            Some(b',') => {}
            Some(b'}') => break,
            _ => return Ok(None),
        }
    }
    // Nothing but white space may follow.
    stream.scan.skip_ws()?;
    if stream.scan.peek()?.is_some() || !list.is_node_list() {
        return Ok(None);
    }
    if !stream.parse_batch() {
        return Ok(None);
    }
    Ok(Some(stream.out))
}

/// A streaming read of a JSON list of Nodes: the scanner, the items waiting to be parsed
/// together, and the nodes read so far.
struct Stream<R> {
    scan: Scanner<R>,
    file: usize,
    out: Read,
    /// Items not parsed yet: each one's offset in the whole and its place in `bytes`, which
    /// holds them one after another (one buffer, used again for every batch).
    batch: Vec<(usize, std::ops::Range<usize>)>,
    bytes: Vec<u8>,
    /// How many items were parsed before the batch.
    count: usize,
}

/// What the list itself says, beside its items: what decides whether it is a list of Nodes
/// that the streaming read may take.
#[derive(Default)]
struct ListFields {
    kind: Option<String>,
    had_items: bool,
    /// `metadata`, `spec`, `status`: each may come once.
    seen: std::collections::HashSet<String>,
}

impl ListFields {
    /// A list with items whose kind is a list's (or not given) and not one of the cluster's
    /// objects that the whole read keeps (a Namespace, a RuntimeClass list).
    fn is_node_list(&self) -> bool {
        let kind = self.kind.as_deref().unwrap_or_default();
        self.had_items
            && (kind.ends_with("List") || kind.is_empty())
            && !super::is_cluster_kind(kind)
    }
}

/// A member's key, or the end of an empty object.
enum Member {
    Key(String),
    End,
}

impl<R: std::io::Read> Stream<R> {
    /// One member of the list, its key read: false when the whole read must decide (a key
    /// twice, a value that is not what the whole read would accept, an item that is not a
    /// Node the streaming read can take).
    fn member(&mut self, key: &str, list: &mut ListFields) -> std::io::Result<bool> {
        let scan = &mut self.scan;
        let mut value = Vec::new();
        Ok(match key {
            // A key twice is an error of the whole read.
            "items" if list.had_items => false,
            "items" => {
                list.had_items = true;
                return self.items();
            }
            "kind" if list.kind.is_some() => false,
            "kind" => {
                scan.value(&mut value)?
                    && match serde_json::from_slice::<Option<String>>(&value) {
                        Ok(k) => {
                            list.kind = Some(k.unwrap_or_default());
                            true
                        }
                        Err(_) => false,
                    }
            }
            // The fields the whole read reads of the list itself must read the same.
            name @ ("metadata" | "spec" | "status") => {
                scan.value(&mut value)?
                    && list.seen.insert(name.to_string())
                    && match name {
                        "metadata" => {
                            serde_json::from_slice::<Option<Metadata<'_>>>(&value).is_ok()
                        }
                        "spec" => serde_json::from_slice::<Option<Spec<'_>>>(&value).is_ok(),
                        _ => serde_json::from_slice::<Option<Status<'_>>>(&value).is_ok(),
                    }
            }
            // Not read, but it must be JSON, as the whole read requires.
            _ => {
                scan.value(&mut value)?
                    && serde_json::from_slice::<serde::de::IgnoredAny>(&value).is_ok()
            }
        })
    }

    /// The `items` array: each item is cut out as its bytes arrive and batched; a full batch
    /// ([`BATCH_BYTES`]) is parsed at once. False when it is not an array of objects or an
    /// item is not a Node the streaming read can take.
    fn items(&mut self) -> std::io::Result<bool> {
        let scan = &mut self.scan;
        if scan.next()? != Some(b'[') {
            return Ok(false);
        }
        let mut first_item = true;
        loop {
            let scan = &mut self.scan;
            scan.skip_ws()?;
            match scan.peek()? {
                Some(b']') if first_item => {
                    scan.pos += 1;
                    return Ok(true);
                }
                Some(b'{') => first_item = false,
                _ => return Ok(false),
            }
            let base = scan.offset();
            let start = self.bytes.len();
            if !scan.value(&mut self.bytes)? {
                return Ok(false);
            }
            self.batch.push((base, start..self.bytes.len()));
            if self.bytes.len() >= BATCH_BYTES && !self.parse_batch() {
                return Ok(false);
            }
            let scan = &mut self.scan;
            scan.skip_ws()?;
            match scan.next()? {
                Some(b',') => {}
                Some(b']') => return Ok(true),
                _ => return Ok(false),
            }
        }
    }

    /// Parses the items batched so far (see [`parse_batch`]).
    fn parse_batch(&mut self) -> bool {
        let parsed = parse_batch(
            self.file,
            &self.batch,
            &self.bytes,
            &mut self.count,
            &mut self.out,
        );
        self.batch.clear();
        self.bytes.clear();
        parsed
    }
}

/// Parses a batch of items (their offsets, and their places in `bytes`) on every core,
/// numbering them from `count`; false when one is not a Node the streaming read can take.
fn parse_batch(
    file: usize,
    batch: &[(usize, std::ops::Range<usize>)],
    bytes: &[u8],
    count: &mut usize,
    out: &mut Read,
) -> bool {
    use rayon::prelude::*;
    let first = *count;
    let read: Vec<Option<(RawNode, usize)>> = batch
        .par_iter()
        .enumerate()
        .map(|(i, (base, at))| {
            let text = std::str::from_utf8(&bytes[at.clone()]).ok()?;
            item(file, text, *base, first + i).ok().flatten()
        })
        .collect();
    *count += batch.len();
    for r in read {
        let Some((node, invalid)) = r else {
            return false;
        };
        out.nodes.push(node);
        out.invalid_taints += invalid;
    }
    true
}

/// Bytes from a reader, a buffer at a time, with their offsets in the whole.
struct Scanner<R> {
    reader: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    /// The offset of `buf[0]` in the whole.
    base: usize,
}

impl<R: std::io::Read> Scanner<R> {
    fn new(reader: R) -> Self {
        Scanner {
            reader,
            buf: vec![0; 1 << 20],
            pos: 0,
            len: 0,
            base: 0,
        }
    }

    fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Makes at least one unread byte available; false at the end.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.pos < self.len {
            return Ok(true);
        }
        self.base += self.len;
        self.pos = 0;
        self.len = 0;
        loop {
            match self.reader.read(&mut self.buf) {
                Ok(n) => {
                    self.len = n;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        Ok(self.fill()?.then(|| self.buf[self.pos]))
    }

    fn next(&mut self) -> std::io::Result<Option<u8>> {
        let b = self.peek()?;
        self.pos += usize::from(b.is_some());
        Ok(b)
    }

    /// Whether the unread bytes start with `prefix` (which must be shorter than the buffer).
    fn rest_starts_with(&mut self, prefix: &[u8]) -> std::io::Result<bool> {
        if !self.fill()? {
            return Ok(false);
        }
        if self.len - self.pos < prefix.len() {
            // Only at the very start: move what is left to the front and read more.
            self.buf.copy_within(self.pos..self.len, 0);
            self.base += self.pos;
            self.len -= self.pos;
            self.pos = 0;
            while self.len < prefix.len() {
                let n = self.reader.read(&mut self.buf[self.len..])?;
                if n == 0 {
                    break;
                }
                self.len += n;
            }
        }
        Ok(self.buf[self.pos..self.len].starts_with(prefix))
    }

    /// A byte-order mark at the very start, white space, then `{`: false when the text does
    /// not open an object.
    fn object_start(&mut self) -> std::io::Result<bool> {
        if self.rest_starts_with(b"\xef\xbb\xbf")? {
            self.pos += 3;
        }
        self.skip_ws()?;
        Ok(self.next()? == Some(b'{'))
    }

    /// A member's key and its `:` (`first`: the object's first member, where `}` may end an
    /// empty object; JSON has no comma before a closing bracket). The key as JSON reads it (an
    /// escape may spell `items`); `None` when the text is not a key there.
    fn member_key(&mut self, first: bool) -> std::io::Result<Option<Member>> {
        self.skip_ws()?;
        match self.next()? {
            Some(b'}') if first => return Ok(Some(Member::End)),
            Some(b'"') => {}
            _ => return Ok(None),
        }
        let mut key = vec![b'"'];
        if !self.string(&mut key)? {
            return Ok(None);
        }
        let Ok(key) = serde_json::from_slice::<String>(&key) else {
            return Ok(None);
        };
        self.skip_ws()?;
        if self.next()? != Some(b':') {
            return Ok(None);
        }
        self.skip_ws()?;
        Ok(Some(Member::Key(key)))
    }

    fn skip_ws(&mut self) -> std::io::Result<()> {
        while let Some(b) = self.peek()? {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// Copies the rest of a string, after its opening quote, to `out`, closing quote included;
    /// false when the bytes end first.
    fn string(&mut self, out: &mut Vec<u8>) -> std::io::Result<bool> {
        let mut escaped = false;
        while self.fill()? {
            let chunk = &self.buf[self.pos..self.len];
            for (i, &b) in chunk.iter().enumerate() {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    out.extend_from_slice(&chunk[..=i]);
                    self.pos += i + 1;
                    return Ok(true);
                }
            }
            out.extend_from_slice(chunk);
            self.pos = self.len;
        }
        Ok(false)
    }

    /// Copies one JSON value to `out`: an object or array to its closing bracket, a string to
    /// its closing quote, anything else up to the `,`, `}` or `]` after it. Only the value's own
    /// kind of bracket is counted (in JSON the other kind balances inside it), and not checked:
    /// the value is parsed after. False when the bytes end first.
    fn value(&mut self, out: &mut Vec<u8>) -> std::io::Result<bool> {
        let (open, close) = match self.peek()? {
            None => return Ok(false),
            Some(b'{') => (b'{', b'}'),
            Some(b'[') => (b'[', b']'),
            Some(b'"') => {
                self.pos += 1;
                out.push(b'"');
                return self.string(out);
            }
            Some(_) => {
                while let Some(b) = self.peek()? {
                    if matches!(b, b',' | b'}' | b']') {
                        return Ok(true);
                    }
                    out.push(b);
                    self.pos += 1;
                }
                return Ok(true);
            }
        };
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        while self.fill()? {
            let chunk = &self.buf[self.pos..self.len];
            let mut i = 0;
            while i < chunk.len() {
                let b = chunk[i];
                if in_string {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == b'"' {
                        in_string = false;
                    } else if let Some(skip) = memchr::memchr2(b'"', b'\\', &chunk[i..]) {
                        // The string's plain bytes, at once.
                        i += skip;
                        continue;
                    } else {
                        i = chunk.len();
                        continue;
                    }
                } else if b == b'"' {
                    in_string = true;
                } else if b == open {
                    depth += 1;
                } else if b == close {
                    depth -= 1;
                    if depth == 0 {
                        out.extend_from_slice(&chunk[..=i]);
                        self.pos += i + 1;
                        return Ok(true);
                    }
                } else if let Some(skip) = memchr::memchr3(b'"', open, close, &chunk[i..]) {
                    // White space, punctuation, numbers and the other brackets, at once.
                    i += skip;
                    continue;
                } else {
                    i = chunk.len();
                    continue;
                }
                i += 1;
            }
            out.extend_from_slice(chunk);
            self.pos = self.len;
        }
        Ok(false)
    }
}

/// serde_json reports 1-based lines and columns; turn them into a byte offset.
fn json_error(text: &str, e: &serde_json::Error) -> ParseError {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let line = &text[line_start.min(text.len())..];
    let column = line
        .char_indices()
        .nth(e.column().saturating_sub(1))
        .map_or(line.len(), |(i, _)| i);
    let message = e.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m);
    ParseError::at(
        (line_start + column).min(text.len()),
        format!("not valid JSON: {message}"),
    )
}

#[cfg(test)]
mod tests {
    use crate::inventory::Inventory;
    use crate::test_support::Trickle;

    fn load(text: &str) -> Result<Inventory, String> {
        Inventory::load(&[("nodes.json", text)]).map_err(|e| {
            e.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    const LIST: &str = r#"{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
                "labels": {"kubernetes.io/hostname": "gpu-1", "pool": "gpu"},
                "name": "gpu-1"
            },
            "spec": {
                "providerID": "aws:///us-east-1a/i-0",
                "taints": [
                    {"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "pre\u0073ent"},
                    {"effect": "Sometimes", "key": "bad"}
                ]
            },
            "status": {"images": [{"names": ["a", "b"], "sizeBytes": 1}], "nodeInfo": {"kubeletVersion": "v1.31.0"}}
        },
        {
            "metadata": {"name": "web-1", "labels": {"pool": "web"}},
            "spec": {"unschedulable": true},
            "status": {"capacity": {"cpu": "4"}}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}
"#;

    #[test]
    fn nodes_labels_taints_and_places() {
        let inv = load(LIST).unwrap();
        assert_eq!(inv.node_count(), 2);
        assert_eq!(inv.files[0].invalid_taints, 1);
        let gpu = &inv.pools[0];
        assert_eq!(gpu.nodes[0].name, "gpu-1");
        assert_eq!(gpu.label(None, "pool"), Some("gpu"));
        assert_eq!(gpu.taints.len(), 1);
        assert_eq!(
            gpu.taints[0].taint.to_string(),
            "nvidia.com/gpu=present:NoSchedule"
        );
        assert_eq!(
            &LIST[gpu.taints[0].at.range.clone()],
            r#"{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "pre\u0073ent"}"#
        );
        // The item without `kind` is a Node: it has a name and a Node's spec and status.
        let web = &inv.pools[1];
        assert_eq!(web.nodes[0].name, "web-1");
        assert!(web.unschedulable.is_some());
    }

    /// What a read gives, to compare: each node's name, labels, taints and their places.
    fn summary(read: &super::Read) -> Vec<String> {
        let mut out = vec![format!("invalid {}", read.invalid_taints)];
        for n in &read.nodes {
            out.push(format!(
                "{} {:?} {:?} {:?} {:?}",
                n.name,
                n.labels,
                n.taints
                    .iter()
                    .map(|t| (t.taint.to_string(), t.at.range.clone()))
                    .collect::<Vec<_>>(),
                n.unschedulable.as_ref().map(|l| l.range.clone()),
                n.at.range
            ));
        }
        out
    }

    #[test]
    fn a_streamed_list_reads_as_the_whole_text_does() {
        for text in [
            LIST.to_string(),
            format!("\u{feff}  {LIST}"),
            LIST.replace(['\n', ' '], ""),
            // Brackets of the other kind, and in strings, inside an item and beside the items.
            LIST.replace(
                "\"nodeInfo\"",
                "\"conditions\": [[{\"m\": \"}]\\\"{[\"}], []], \"nodeInfo\"",
            )
            .replace(
                "\"kind\": \"List\"",
                "\"kind\": \"List\", \"x\": [{\"a\": [\"]}\"]}, {}]",
            ),
        ] {
            let whole = super::read(0, &text).ok().flatten().unwrap();
            let streamed = super::read_stream(0, Trickle(text.as_bytes()))
                .unwrap()
                .unwrap();
            assert_eq!(summary(&streamed), summary(&whole));
            let big = super::read_stream(0, text.as_bytes()).unwrap().unwrap();
            assert_eq!(summary(&big), summary(&whole));
        }
    }

    #[test]
    fn what_a_stream_cannot_take_is_read_whole() {
        for text in [
            // A single Node, a list of something else, a cluster object among the nodes.
            "{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}}".to_string(),
            LIST.replace("\"kind\": \"List\"", "\"kind\": \"NodePool\""),
            LIST.replace("\"kind\": \"Node\"", "\"kind\": \"Namespace\""),
            LIST.replace("\"kind\": \"Node\"", "\"kind\": \"Pod\""),
            // Not valid: cut short, a stray comma, bytes after the end, not an object.
            LIST[..LIST.len() / 2].to_string(),
            LIST.replace(
                "\"spec\": {\"unschedulable\"",
                "\"spec\": {,\"unschedulable\"",
            ),
            format!("{LIST} x"),
            format!(" \u{feff}{LIST}"),
            // No comma before a closing bracket.
            LIST.replace("}\n    ],", "},\n    ],"),
            LIST.replace("\"resourceVersion\": \"\"}", "\"resourceVersion\": \"\"},"),
            // Brackets that do not pair: in an item, and in a member beside the items.
            LIST.replace("\"sizeBytes\": 1}]", "\"sizeBytes\": 1]}"),
            LIST.replace("\"kind\": \"List\"", "\"kind\": \"List\", \"x\": [{]}"),
            "[1, 2]".to_string(),
            String::new(),
            // What the whole read refuses: a key twice, the list's metadata of the wrong shape.
            LIST.replace(
                "\"kind\": \"List\"",
                "\"kind\": \"List\", \"kind\": \"List\"",
            ),
            LIST.replace(
                "\"metadata\": {\"resourceVersion\": \"\"}",
                "\"metadata\": {\"labels\": 5}",
            ),
        ] {
            assert!(
                super::read_stream(0, Trickle(text.as_bytes()))
                    .unwrap()
                    .is_none(),
                "{text}"
            );
        }
        // Not UTF-8 inside an item.
        let mut bytes = LIST.as_bytes().to_vec();
        let at = LIST.find("gpu-1").unwrap();
        bytes[at] = 0xff;
        assert!(super::read_stream(0, &bytes[..]).unwrap().is_none());
    }

    #[test]
    fn a_single_node_and_a_bom() {
        let inv = load("\u{feff}{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}}").unwrap();
        assert_eq!(inv.pools[0].nodes[0].name, "n");
    }

    #[test]
    fn errors_name_the_place() {
        let e = load("{\"kind\": \"List\",\n \"items\": [\n  {\"kind\": \"Pod\"}]}").unwrap_err();
        assert!(
            e.starts_with("nodes.json:3:3: items[0] is a Pod, not a Node"),
            "{e}"
        );
        let e = load("{\"items\": [{\"metadata\": {}}]}").unwrap_err();
        assert!(e.contains("items[0] has no `kind`"), "{e}");
        let e = load("{\"kind\": \"List\",\n \"items\": [,]}").unwrap_err();
        assert!(e.starts_with("nodes.json:2:12: not valid JSON: "), "{e}");
        let e = load("{\"kind\": \"Pod\"}").unwrap_err();
        assert!(e.contains("a Pod is not a node inventory"), "{e}");
        let e = load("{\"kind\": \"Node\", \"metadata\": {\"name\": \"\"}}").unwrap_err();
        assert!(e.contains("a Node without metadata.name"), "{e}");
    }
}
