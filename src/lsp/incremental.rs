//! Re-analyses only the YAML documents of a file that changed.
//!
//! A manifest is often a stream of hundreds of documents, and an edit touches one. Each
//! document is analysed on its own (the rules never look across documents), so the file is
//! cut into chunks at its `---` document markers (a `---` at the start of a line always starts
//! a document, even inside a block or quoted scalar, per the YAML grammar), each chunk is
//! analysed by itself, and results are kept per chunk text: after an edit only the chunks
//! whose text changed are analysed again. The file's analysis is its chunks' results with
//! where each chunk sits ([`Pieces`]): an unchanged chunk's result is shared, not copied, and
//! moved to its place (ranges, related places in the same file, fix edits, document indexes)
//! only as it is read, so the result equals analysing the whole text (tests check this on
//! every fixture and on generated streams). A syntax error can run past a `---` (an unclosed
//! quote reaches into the next document, and the parser recovers there), so from the first
//! chunk with a syntax error on, the rest of the text is analysed whole (the whole text, when
//! only the chunks before it show the signs of Kubernetes that make its errors `yaml-syntax`).
//!
//! Texts this cannot cut safely are analysed whole: YAML directives (`%YAML`, `%TAG`),
//! document end markers (`...`), Go template braces (the Helm check looks at the whole file),
//! Namespaces and RuntimeClasses (admission looks them up from the other documents),
//! and CRLF line ends in some chunks but not others (a fix that adds a line ends it as the
//! text does).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;

use crate::analysis::FileAnalysis;
use crate::diagnostic::Diagnostic;
use crate::syntax;

/// One chunk's analysis, relative to the chunk.
#[derive(Debug)]
struct ChunkResult {
    analysis: Arc<FileAnalysis>,
    /// How many YAML documents the parser counts in the chunk.
    documents: usize,
}

/// The per-chunk results of the last analysis of one file.
#[derive(Debug, Default)]
pub struct ChunkCache {
    /// What the results were computed with (the workspace generation).
    generation: u64,
    /// The last text's chunks and their results, in order.
    chunks: Vec<(Arc<str>, Arc<ChunkResult>)>,
    /// The text from the first chunk with a syntax error to the end, and its findings.
    rest: Option<(Arc<str>, Arc<FileAnalysis>)>,
}

impl ChunkCache {
    /// Analyses `text` with `analyse` (which must look at one YAML stream at a time and return
    /// byte ranges into it), reusing what is cached for unchanged chunks.
    ///
    /// An edit changes a run of chunks and keeps the ones before and after it: those are
    /// matched in place, by comparing their texts; only the chunks between are looked up by
    /// text (a document moved) or analysed.
    pub fn analyse<F>(&mut self, text: &str, generation: u64, analyse: F) -> Pieces
    where
        F: Fn(&str) -> FileAnalysis + Sync,
    {
        if generation != self.generation {
            self.chunks.clear();
            self.rest = None;
            self.generation = generation;
        }
        let Some(ranges) = chunks(text) else {
            self.chunks.clear();
            self.rest = None;
            return Pieces(vec![Piece {
                offset: 0,
                documents: 0,
                analysis: Arc::new(analyse(text)),
            }]);
        };
        let pieces: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
        let old = std::mem::take(&mut self.chunks);
        let prefix = pieces
            .iter()
            .zip(&old)
            .take_while(|(p, (o, _))| **p == &**o)
            .count();
        let suffix = pieces[prefix..]
            .iter()
            .rev()
            .zip(old[prefix..].iter().rev())
            .take_while(|(p, (o, _))| **p == &**o)
            .count();
        let middle = prefix..pieces.len() - suffix;
        // The old chunks between, by text; what is not among them is analysed (each distinct
        // text once, in parallel).
        let mut known: HashMap<&str, Arc<ChunkResult>> = old[prefix..old.len() - suffix]
            .iter()
            .map(|(t, r)| (&**t, r.clone()))
            .collect();
        let missing: Vec<&str> = {
            let mut seen = std::collections::HashSet::new();
            pieces[middle.clone()]
                .iter()
                .copied()
                .filter(|p| !known.contains_key(*p) && seen.insert(*p))
                .collect()
        };
        let computed: Vec<(&str, Arc<ChunkResult>)> = missing
            .par_iter()
            .map(|piece| {
                let result = ChunkResult {
                    analysis: Arc::new(analyse(piece)),
                    documents: syntax::parse(piece).documents.len(),
                };
                (*piece, Arc::new(result))
            })
            .collect();
        known.extend(computed);
        let mut current: Vec<(Arc<str>, Arc<ChunkResult>)> = Vec::with_capacity(pieces.len());
        current.extend(old[..prefix].iter().cloned());
        for piece in &pieces[middle] {
            current.push((Arc::from(*piece), known[piece].clone()));
        }
        current.extend(old[old.len() - suffix..].iter().cloned());
        drop(known);
        drop(old);

        // A syntax error can reach past the chunk's `---` (an unclosed quote or bracket runs
        // into the next document, and the parser recovers there), so from the first chunk with
        // one on, the rest of the text is analysed as a whole.
        // (A file with no sign of Kubernetes reports its syntax errors as `not-a-manifest`.)
        let syntax = [
            crate::rules::YAML_SYNTAX.name,
            crate::rules::NOT_A_MANIFEST.name,
        ];
        let broken = current.iter().position(|(_, r)| {
            r.analysis
                .diagnostics
                .iter()
                .any(|d| syntax.contains(&d.rule))
        });
        // Whether a file's syntax errors are `yaml-syntax` or one `not-a-manifest` depends on
        // the whole file's signs of Kubernetes: when only the chunks before the broken one
        // have them, the whole text is analysed.
        let shows = crate::class::shows_kubernetes;
        let broken = broken.map(|k| {
            let rest = &text[ranges[k].start..];
            if k > 0 && !shows(rest) && shows(text) {
                0
            } else {
                k
            }
        });
        let mut out = Vec::with_capacity(current.len());
        let mut documents = 0;
        for (range, (_, result)) in ranges
            .iter()
            .zip(&current)
            .take(broken.unwrap_or(current.len()))
        {
            out.push(Piece {
                offset: range.start,
                documents,
                analysis: result.analysis.clone(),
            });
            documents += result.documents;
        }
        match broken {
            Some(k) => {
                let start = ranges[k].start;
                let rest = &text[start..];
                let analysis = match &self.rest {
                    Some((cached, analysis)) if **cached == *rest => analysis.clone(),
                    _ => {
                        let analysis = Arc::new(analyse(rest));
                        self.rest = Some((Arc::from(rest), analysis.clone()));
                        analysis
                    }
                };
                out.push(Piece {
                    offset: start,
                    documents,
                    analysis,
                });
            }
            None => self.rest = None,
        }
        self.chunks = current;
        Pieces(out)
    }
}

/// A file's analysis as the analyses of the pieces it was cut into, in order, each relative
/// to its piece.
#[derive(Debug, Clone, Default)]
pub struct Pieces(Vec<Piece>);

#[derive(Debug, Clone)]
struct Piece {
    /// Where the piece starts in the file.
    offset: usize,
    /// The YAML documents before it.
    documents: usize,
    analysis: Arc<FileAnalysis>,
}

impl Pieces {
    /// Each finding as found in its piece, with the offset of the piece: its places in the
    /// file (its range, fix edits and related places in the same file) are those plus the
    /// offset.
    pub fn diagnostics(&self) -> impl Iterator<Item = (&Diagnostic, usize)> {
        self.0
            .iter()
            .flat_map(|p| p.analysis.diagnostics.iter().map(move |d| (d, p.offset)))
    }

    /// The findings alone, every place moved to where it is in the file.
    pub fn diagnostics_in_file(&self) -> Vec<Diagnostic> {
        self.0
            .iter()
            .flat_map(|p| {
                p.analysis
                    .diagnostics
                    .iter()
                    .map(move |d| shifted(d, p.offset, p.documents))
            })
            .collect()
    }

    /// The file's analysis, every place moved to where it is in the file.
    pub fn whole(&self) -> FileAnalysis {
        let mut out = FileAnalysis::default();
        for piece in &self.0 {
            let (by, documents) = (piece.offset, piece.documents);
            let chunk = &piece.analysis;
            out.diagnostics
                .extend(chunk.diagnostics.iter().map(|d| shifted(d, by, documents)));
            out.placements.extend(chunk.placements.iter().map(|p| {
                let mut p = p.clone();
                p.document += documents;
                p.anchor = shift(&p.anchor, by);
                p.range = shift(&p.range, by);
                p
            }));
            out.tolerations.extend(chunk.tolerations.iter().map(|t| {
                let mut t = t.clone();
                t.item = shift(&t.item, by);
                t.seconds = t.seconds.as_ref().map(|r| shift(r, by));
                t
            }));
            out.templates += chunk.templates;
        }
        out
    }
}

fn shift(r: &Range<usize>, by: usize) -> Range<usize> {
    r.start + by..r.end + by
}

/// A finding moved `by` bytes and `documents` YAML documents further into the file.
fn shifted(d: &Diagnostic, by: usize, documents: usize) -> Diagnostic {
    let mut d = d.clone();
    d.range = shift(&d.range, by);
    d.document = d.document.map(|i| i + documents);
    for r in &mut d.related {
        if r.file.is_none() {
            r.range = shift(&r.range, by);
        }
    }
    for f in &mut d.fixes {
        for e in &mut f.edits {
            e.range = shift(&e.range, by);
        }
    }
    d
}

/// The chunks of a text: byte ranges, each (but the first) starting at a `---` line. `None`
/// when the text has what chunks cannot keep the meaning of.
pub fn chunks(text: &str) -> Option<Vec<Range<usize>>> {
    // A Namespace or RuntimeClass in the file is looked up by the other documents' pods.
    if text.contains("{{") || crate::k8s::cluster::may_hold_cluster_objects(text) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut line = 0;
    while line < bytes.len() {
        let rest = &bytes[line..];
        if rest.first() == Some(&b'%') || marker(rest, b"...") {
            return None;
        }
        if line > 0 && marker(rest, b"---") {
            starts.push(line);
        }
        // The next line: after `\n`, `\r\n` or a lone `\r`.
        match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) => {
                let at = line + i;
                line = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                    at + 2
                } else {
                    at + 1
                };
            }
            None => break,
        }
    }
    let mut ranges: Vec<Range<usize>> = starts.windows(2).map(|w| w[0]..w[1]).collect();
    ranges.push(*starts.last().expect("at least one start")..text.len());
    // Fixes that add a line end it the way the text does (CRLF if it has any): a chunk must
    // see the same.
    if text.contains("\r\n") && ranges.iter().any(|r| !text[r.clone()].contains("\r\n")) {
        return None;
    }
    Some(ranges)
}

/// Whether a line starts with a document marker: `---` or `...` then a space, a tab, a line
/// break or the end.
fn marker(line: &[u8], marker: &[u8]) -> bool {
    line.starts_with(marker)
        && matches!(
            line.get(marker.len()),
            None | Some(b' ' | b'\t' | b'\n' | b'\r')
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;

    fn full(text: &str) -> Vec<Diagnostic> {
        crate::analyse(text, &Options::default())
    }

    /// The findings of `text` through the cache. On the way, checks that the editor's
    /// diagnostics made from the pieces equal those made from the whole file.
    fn chunked(cache: &mut ChunkCache, text: &str) -> Vec<Diagnostic> {
        let pieces = cache.analyse(text, 1, |t| crate::analyse(t, &Options::default()).into());
        let whole = pieces.whole();
        assert_eq!(
            editor(text, pieces.diagnostics()),
            editor(text, whole.diagnostics.iter().map(|d| (d, 0))),
            "text:\n{text}"
        );
        whole.diagnostics
    }

    fn editor<'a>(
        text: &str,
        diagnostics: impl IntoIterator<Item = (&'a Diagnostic, usize)>,
    ) -> Vec<tower_lsp_server::ls_types::Diagnostic> {
        use crate::lsp::convert::Lines;
        use crate::lsp::diagnostics::{all_to_lsp, Links};
        use crate::position::{Encoding, LineIndex};
        let index = LineIndex::new(text);
        let uri = "file:///m.yaml".parse().unwrap();
        all_to_lsp(
            diagnostics,
            Lines::new(text, &index, Encoding::Utf16),
            &uri,
            Some(1),
            &|_, _| None,
            &Links::default(),
        )
    }

    fn assert_same(text: &str) {
        let mut cache = ChunkCache::default();
        assert_eq!(chunked(&mut cache, text), full(text), "text:\n{text}");
    }

    #[test]
    fn cuts_at_document_markers_only() {
        let text = "a: 1\n---\nb: |\n  ---\n--- # c\nd\n---";
        let r = chunks(text).unwrap();
        let pieces: Vec<&str> = r.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(
            pieces,
            ["a: 1\n", "---\nb: |\n  ---\n", "--- # c\nd\n", "---"]
        );
        assert_eq!(chunks("a\r\n---\r\nb\r\n").map(|c| c.len()), Some(2));
        assert!(chunks("a\r\n---\nb\n").is_none());
        assert!(chunks("%YAML 1.2\n---\na").is_none());
        assert!(chunks("a\n...\n").is_none());
        assert!(chunks("a: {{ .Values.x }}").is_none());
        assert_eq!(chunks("----\n---x\n").map(|c| c.len()), Some(1));
    }

    /// Every YAML file of the project, whole and joined into one stream, in several spellings.
    #[test]
    fn equals_the_whole_analysis_on_every_fixture() {
        let root = env!("CARGO_MANIFEST_DIR");
        let mut texts = Vec::new();
        for dir in ["examples", "tests/fixtures"] {
            for entry in ignore::Walk::new(format!("{root}/{dir}")).flatten() {
                let p = entry.path();
                if matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")) {
                    texts.push(std::fs::read_to_string(p).unwrap());
                }
            }
        }
        assert!(texts.len() >= 5);
        let joined = texts.join("\n---\n");
        texts.push(joined.clone());
        texts.push(joined.replace('\n', "\r\n"));
        texts.push(format!("\u{feff}# lead\n---\n{joined}\n---\n---\n"));
        texts.push(format!("---\n{joined}"));
        for t in &texts {
            assert_same(t);
        }
    }

    #[test]
    fn equals_the_whole_analysis_with_broken_documents() {
        let docs = [
            "tolerations:\n- key: a\n  effect: noschedule\n",
            "tolerations: [ {key: a, effect: NoSchedule}\n",
            "kind: Pod\nspec:\n  tolerations:\n  - *missing\n",
            "x: \"unterminated\n",
            "kind: Node\nspec:\n  taints:\n  - key: a\n  - key: a\n    effect: NoSchedule\n",
            "a: &x {operator: Exists}\ntolerations:\n- <<: *x\n  key: k\n  value: v\n",
            "",
            "# only a comment\n",
            "\tbad: tab\n",
            "tolerations:\n- key: \"日本🚀\"\n  operator: exists\n",
        ];
        for a in &docs {
            for b in &docs {
                for c in &docs {
                    assert_same(&format!("{a}---\n{b}--- \n{c}"));
                }
            }
        }
    }

    proptest::proptest! {
        /// Streams made of YAML fragments, documents markers among them.
        #[test]
        fn equals_the_whole_analysis_on_generated_streams(
            parts in proptest::collection::vec(0usize..31, 0..60)
        ) {
            const FRAGMENTS: &[&str] = &[
                "---\n", "--- ", "tolerations:\n", "- key: a\n", "  operator: Exists\n",
                "  effect: noschedule\n", "  value: \"x\"\n", "kind: Node\n", "spec:\n",
                "  taints:\n", "  - {key: b, effect: NoSchedule}\n", "x: [\n", "'\n", "\t\n",
                "# 日本🚀\r\n", "a: |\n  ---\n", "- *x\n", "a: &x {k: v}\n", "- <<: *x\n",
                "kind: Deployment\n", "  template:\n", "    spec:\n", "      tolerations:\n",
                "      - key: node.kubernetes.io/net-ready\n", "  tolerationSeconds: 0\n",
                "\"\n", "}\n", "kind: List\nitems:\n", "- kind: Pod\n", "---", "\n",
            ];
            let text: String = parts.iter().map(|&i| FRAGMENTS[i]).collect();
            let mut cache = ChunkCache::default();
            proptest::prop_assert_eq!(chunked(&mut cache, &text), full(&text));
        }

        /// One text after another in the same cache (an edit that inserts, removes, changes
        /// or moves documents): the second's result is the whole analysis of the second.
        #[test]
        fn equals_the_whole_analysis_after_an_edit(
            docs in proptest::collection::vec(0usize..6, 0..12),
            at in 0usize..12,
            remove in 0usize..3,
            insert in proptest::collection::vec(0usize..6, 0..3),
        ) {
            const DOCS: &[&str] = &[
                "tolerations:\n- key: a\n  effect: noschedule\n",
                "kind: Node\nspec:\n  taints:\n  - {key: b, effect: NoSchedule}\n",
                "# 日本🚀\ntolerations: [{key: c, operator: Exists, value: x}]\n",
                "kind: Pod\nspec:\n  tolerations:\n  - key: node.kubernetes.io/net-ready\n",
                "x: [\n",
                "a: 1\n",
            ];
            let join = |d: &[usize]| d.iter().map(|&i| DOCS[i]).collect::<Vec<_>>().join("---\n");
            let mut cache = ChunkCache::default();
            let before = join(&docs);
            proptest::prop_assert_eq!(chunked(&mut cache, &before), full(&before));
            let mut edited = docs.clone();
            let at = at.min(edited.len());
            let end = (at + remove).min(edited.len());
            edited.splice(at..end, insert);
            let after = join(&edited);
            proptest::prop_assert_eq!(chunked(&mut cache, &after), full(&after));
        }
    }

    /// Placements and toleration places land where analysing the whole text puts them.
    #[test]
    fn placements_equal_the_whole_analysis() {
        let pools = "pools:\n  gpu:\n    nodes: [g1]\n    taints: [\"gpu=a:NoSchedule\"]\n  web:\n    count: 2\n";
        let inventory = crate::inventory::Inventory::load(&[("pools.yaml", pools)]).unwrap();
        let options = Options::default();
        let ask = crate::analysis::Ask::new(&options, Some(&inventory)).placed();
        let whole = |t: &str| crate::analysis::check(t, ask);
        let doc = |i: usize| {
            format!(
                "# 日本🚀 {i}\nkind: Deployment\nmetadata: {{name: w{i}}}\nspec:\n  template:\n    spec:\n      tolerations:\n      - {{key: gpu, operator: Exists, tolerationSeconds: {i}}}\n"
            )
        };
        let text: String = (0..6).map(doc).collect::<Vec<_>>().join("---\n");
        let mut cache = ChunkCache::default();
        let first = cache.analyse(&text, 1, whole).whole();
        assert_eq!(first, whole(&text));
        assert_eq!(first.placements.len(), 6);
        assert_eq!(first.tolerations.len(), 6);
        let edited = text
            .replacen("w3", "renamed", 1)
            .replacen("name: w0", "", 1);
        assert_eq!(cache.analyse(&edited, 1, whole).whole(), whole(&edited));
        let broken = edited.replacen("w4}", "w4", 1);
        assert_eq!(cache.analyse(&broken, 1, whole).whole(), whole(&broken));
    }

    #[test]
    fn only_changed_chunks_are_analysed_again() {
        let doc = "tolerations:\n- key: a\n  effect: noschedule\n";
        let text = vec![doc; 50].join("---\n");
        let mut cache = ChunkCache::default();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let count = |t: &str| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            FileAnalysis::from(crate::analyse(t, &Options::default()))
        };
        cache.analyse(&text, 1, count);
        // The same 20 chunk texts repeat: each is analysed once.
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
        let edited = text.replacen("key: a", "key: b", 1);
        let out = cache.analyse(&edited, 1, count);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 3);
        assert_eq!(out.whole().diagnostics, full(&edited));
        // New settings: everything again.
        cache.analyse(&edited, 2, count);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 5);

        // Documents that move are found by their text, not analysed again; the ones before
        // and after an edit are kept in place.
        let docs: Vec<String> = (0..5)
            .map(|i| format!("tolerations:\n- key: m{i}\n  effect: noschedule\n"))
            .collect();
        let mut cache = ChunkCache::default();
        calls.store(0, std::sync::atomic::Ordering::SeqCst);
        cache.analyse(&docs.join("---\n"), 1, count);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 5);
        let mut moved = docs.clone();
        moved.swap(1, 3);
        let text = moved.join("---\n");
        assert_eq!(
            cache.analyse(&text, 1, count).whole().diagnostics,
            full(&text)
        );
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 5);
        moved[2] = "kind: Node\n".to_string();
        let text = moved.join("---\n");
        assert_eq!(
            cache.analyse(&text, 1, count).whole().diagnostics,
            full(&text)
        );
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 6);
    }
}
