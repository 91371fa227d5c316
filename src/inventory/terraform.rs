//! Terraform node pools, read as HCL (hcl-edit, with byte spans).
//!
//! Resources and where their taints are (provider source, see each const below):
//! `google_container_node_pool` and the `node_pool` blocks of `google_container_cluster`
//! (`node_config { taint { key value effect } }`, or the pre-5.0 attribute `taint = [{...}]`;
//! effects `NO_SCHEDULE`, `PREFER_NO_SCHEDULE`, `NO_EXECUTE`), `aws_eks_node_group` (`taint`
//! blocks, the same effect spelling), the terraform-aws-modules/eks module's
//! `eks_managed_node_groups = { <name> = { taints = { <id> = {key, value, effect} } } }`,
//! `azurerm_kubernetes_cluster_node_pool` (`node_taints = ["key=value:Effect"]`) and the AKS
//! default pool (`only_critical_addons_enabled = true` means
//! `CriticalAddonsOnly=true:NoSchedule`), `huaweicloud_cce_node_pool` (`taints` blocks,
//! Kubernetes spelling).
//!
//! Taints are turned into a tree of the YAML syntax's nodes whose scalars span the exact
//! characters of the HCL strings, so the ordinary taint rules check them where they are
//! written. A value that is not a literal (`var.x`, `"${local.name}"`) is never guessed: a
//! taint with one is left out (of the rules and of the simulation), a pool name is kept as
//! written.

use std::borrow::Cow;
use std::ops::Range;

use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::structure::{Body, Structure};
use hcl_edit::Span;

use super::{compact, hcl_objects, Count, Loc, ParseError, RawNode};
use crate::k8s::objects::List;
use crate::syntax::{Document, Node, NodeId, NodeKind, Style};

/// How a provider spells the taint effects, when not as Kubernetes does.
pub(crate) struct Spelling {
    pub provider: &'static str,
    /// (provider spelling, Kubernetes spelling).
    pub effects: &'static [(&'static str, &'static str)],
}

/// hashicorp/terraform-provider-google `google/services/container/node_config.go` (`taint`
/// effect `StringInSlice`) and hashicorp/terraform-provider-aws
/// `internal/service/eks/node_group.go` (`taint.effect`): the EKS/GKE API enum spelling.
const API_EFFECTS: &[(&str, &str)] = &[
    ("NO_SCHEDULE", "NoSchedule"),
    ("PREFER_NO_SCHEDULE", "PreferNoSchedule"),
    ("NO_EXECUTE", "NoExecute"),
];
const GOOGLE: Spelling = Spelling {
    provider: "the google provider",
    effects: API_EFFECTS,
};
const AWS: Spelling = Spelling {
    provider: "the aws provider",
    effects: API_EFFECTS,
};

/// A node pool found in a Terraform file.
pub(crate) struct TfPool {
    /// As the user knows it: the `name` (or `node_group_name`) as written, else the resource's
    /// address.
    pub name: String,
    pub kind: &'static str,
    pub at: Range<usize>,
    pub labels: Vec<(String, String)>,
    pub count: Count,
    /// Its taint list in [`Hcl::doc`], and taints known without one (the AKS default pool's).
    pub list: Option<List>,
    pub implied: Vec<(crate::k8s::model::Taint, Range<usize>)>,
    /// Taints left out: not literals, or not splittable strings.
    pub skipped: usize,
    /// Labels its platform sets on the nodes where they apply, and only there: on this pool,
    /// those not in `labels` are absent for certain (see [`Declared::provider_labels`]).
    pub provider_labels: &'static [&'static str],
    /// What its nodes offer, as far as the definition says (instance types, accelerators).
    pub capacity: super::capacity::Capacity,
}

/// GKE's labels of Spot and preemptible nodes (GKE docs "Spot VMs", "Preemptible VMs":
/// `cloud.google.com/gke-spot=true`, `cloud.google.com/gke-preemptible=true`).
const GKE_SPOT: &str = "cloud.google.com/gke-spot";
const GKE_PREEMPTIBLE: &str = "cloud.google.com/gke-preemptible";
/// The machine type of a GKE node pool that names none ("Defaults to `e2-medium`",
/// google_container_cluster docs, `node_config.machine_type`).
const GKE_DEFAULT_MACHINE: &str = "e2-medium";
/// The name GKE gives a cluster's default node pool.
const GKE_DEFAULT_POOL: &str = "default-pool";
/// EKS's label of a managed node group's capacity type, always set (`ON_DEMAND` or `SPOT`:
/// aws_eks_node_group `capacity_type`, default `ON_DEMAND`; eksctl pkg/apis/eksctl.io/v1alpha5
/// `EKSCapacityTypeLabel`).
pub(crate) const EKS_CAPACITY_TYPE: &str = "eks.amazonaws.com/capacityType";
/// AKS's label (and taint) of Spot node pools (AKS docs "Add an Azure Spot node pool":
/// `kubernetes.azure.com/scalesetpriority=spot`, and the taint
/// `kubernetes.azure.com/scalesetpriority=spot:NoSchedule` it adds to every Spot pool).
const AKS_SPOT: &str = "kubernetes.azure.com/scalesetpriority";

/// Whether an attribute is the literal `true`.
fn is_true(e: Option<&Expression>) -> bool {
    matches!(e, Some(Expression::Bool(b)) if *b.value())
}

/// The capacity type EKS labels a managed node group's nodes with.
fn eks_capacity_type(e: Option<&Expression>) -> Option<(String, String)> {
    let value = match e {
        None => "ON_DEMAND".to_string(),
        Some(e) => literal(e)?,
    };
    Some((EKS_CAPACITY_TYPE.to_string(), value))
}

/// An effect written where a provider spells effects its own way.
pub(crate) struct Spelled {
    pub range: Range<usize>,
    pub written: String,
    pub spelling: &'static Spelling,
    /// The field's path (`google_container_node_pool.gpu.node_config.taint[0].effect`).
    pub path: String,
}

impl Spelled {
    /// Whether it is one of the provider's effects.
    pub fn valid(&self) -> bool {
        self.spelling
            .effects
            .iter()
            .any(|(p, _)| *p == self.written)
    }
}

/// A Terraform file's node pools and their taints as a syntax tree for the rules.
pub(crate) struct Hcl<'a> {
    pub doc: Document<'a>,
    pub pools: Vec<TfPool>,
    /// Effects written in a provider's spelling (the rules see them in Kubernetes spelling).
    pub spelled: Vec<Spelled>,
    /// Node groups written as an expression taintlint does not evaluate, and why they are not
    /// read.
    pub unread: Vec<Unread>,
    /// Cluster Autoscaler node-template tags, each set with the pool it describes (an index in
    /// `pools`), if one.
    pub tags: Vec<TagSet>,
    /// The manifests the file applies as YAML, each the range of its text (see [`manifest`]).
    pub manifests: Vec<Range<usize>>,
    /// The EKS Auto Mode built-in NodePools its clusters enable.
    pub builtins: Vec<Builtin>,
    /// The values of the karpenter-resources chart a module installs, each the range of its
    /// text (read as [`manifests`](Self::manifests) are).
    pub chart_pools: Vec<Range<usize>>,
    /// Fields that hold taints under a name no one reads (`taint` for `taints`).
    pub ignored: Vec<Ignored>,
}

/// The node-template tags of one Auto Scaling group (see [`super::asg_tags`]): its taint tags
/// as a list for the rules, and what its nodes carry and offer.
pub(crate) struct TagSet {
    pub pool: Option<usize>,
    pub list: Option<List>,
    pub skipped: usize,
    pub labels: Vec<(String, String)>,
    pub capacity: super::capacity::Capacity,
}

/// Node groups a file defines that are not read: where, and what a person is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    pub at: Range<usize>,
    pub message: String,
}

impl Hcl<'_> {
    pub fn lists(&self) -> Vec<List> {
        let pools = self.pools.iter().filter_map(|p| p.list.clone());
        pools
            .chain(self.tags.iter().filter_map(|t| t.list.clone()))
            .collect()
    }
}

/// The `#` comments of an HCL text that are alone on their line (where a
/// `# taintlint: disable=...` directive goes).
pub(crate) fn line_comments(text: &str) -> Vec<crate::syntax::Comment<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let lead = body.len() - body.trim_start_matches([' ', '\t', '\u{feff}']).len();
        if body[lead..].starts_with('#') {
            let start = at + lead;
            out.push(crate::syntax::Comment {
                span: start..at + body.len(),
                text: Cow::Borrowed(&text[start + 1..at + body.len()]),
            });
        }
        at += line.len();
    }
    out
}

/// Whether a Terraform text defines node pools (cheap: by resource type names, a module's
/// `node_pools = ...`, and the kinds of pools applied as manifests in `kubectl_manifest` or
/// `kubernetes_manifest` heredocs).
pub fn defines_pools(text: &str) -> bool {
    let resources = [
        "google_container_node_pool",
        "google_container_cluster",
        "aws_eks_node_group",
        "eks_managed_node_groups",
        "karpenter_resources_helm_config",
        "azurerm_kubernetes_cluster",
        "avm-res-containerservice-managedcluster",
        "huaweicloud_cce_node_pool",
    ];
    // Auto Scaling groups that tell Cluster Autoscaler what their nodes carry.
    let tagged =
        || text.contains("aws_autoscaling_group") || text.contains("autoscaling_group_tags");
    if crate::class::looks_like_hcl(text) && super::asg_tags::mentions(text) && tagged() {
        return true;
    }
    // A module's GKE pools (terraform-google-modules/kubernetes-engine's inputs, or a module of
    // the repository's own that takes them on), or the module's own default pools; a module's
    // AKS pools (the AVM module's inputs, or its own examples').
    let assigned = |input: &str| {
        text.lines().any(|l| {
            l.trim_start()
                .strip_prefix(input)
                .is_some_and(|r| r.trim_start().starts_with('='))
        })
    };
    let gke_module = || {
        [
            "terraform-google-modules/kubernetes-engine",
            "terraform-google-kubernetes-engine",
        ]
        .iter()
        .any(|m| text.contains(m))
            || ["node_pools", "default_agent_pool", "agent_pools"]
                .iter()
                .any(|i| assigned(i))
    };
    let applied = || {
        text.contains("_manifest")
            && [
                "NodePool",
                "Provisioner",
                "MachineDeployment",
                "NodeFeatureRule",
            ]
            .iter()
            .any(|kind| text.contains(&format!("kind: {kind}")))
    };
    crate::class::looks_like_hcl(text)
        && (resources.iter().any(|r| text.contains(r)) || gke_module() || applied())
}

/// The YAML of the Kubernetes manifest a `resource` block applies, as the byte range of its
/// heredoc's lines between the opening and the closing marker: a `kubectl_manifest`'s
/// `yaml_body` (the gavinbunney/kubectl and alekc/kubectl providers) and a
/// `kubernetes_manifest`'s `manifest = yamldecode(<<-EOT ... EOT)` (hashicorp/kubernetes). One
/// document each (both providers take one). A Karpenter NodePool is often applied so, beside
/// the cluster's node groups ([`Hcl::manifests`]).
fn manifest(src: &str, off: usize, resource: &str, body: &Body) -> Option<Range<usize>> {
    let yaml = match resource {
        "kubectl_manifest" => attr(body, "yaml_body"),
        "kubernetes_manifest" => match attr(body, "manifest") {
            Some(Expression::FuncCall(f)) if f.name.name.as_str() == "yamldecode" => {
                f.args.iter().next()
            }
            _ => None,
        },
        _ => None,
    };
    heredoc_body(src, off, yaml?)
}

/// The range of a heredoc's text, its first and last lines (`<<-EOT`, `EOT`) left out.
fn heredoc_body(src: &str, off: usize, e: &Expression) -> Option<Range<usize>> {
    let Expression::HeredocTemplate(heredoc) = e else {
        return None;
    };
    let span = heredoc.span()?;
    let written = &src[span.clone()];
    let (first, last) = (written.find('\n')?, written.trim_end().rfind('\n')?);
    (first < last).then(|| off + span.start + first + 1..off + span.start + last + 1)
}

/// What of a pool read from the heredoc at `range` of `text` Terraform interpolates (`${...}`,
/// `%{...}`), whose value is not known, judged by where each expression is written
/// ([`expression_sites`]): under the taints, the startup taints or the requirements, or writing
/// whole lines (or a whole value) where they are kept, it makes the pool unread, said in the
/// note returned; under the node labels, the label (or, for the labels as a whole, any label)
/// is one its nodes may carry with a value not known ([`super::OpenLabels`]). A label the
/// reader derives from an expression (Karpenter's own, from a `nodeClassRef` name written as
/// one) is left out, with the requirement that stands for it.
pub(crate) fn unknown_parts(
    node: &mut RawNode,
    text: &str,
    range: &Range<usize>,
) -> Option<Unread> {
    /// The fields that decide where a pool's pods may go, and the mappings that hold them.
    const DECIDING: &[&str] = &["taints", "startupTaints", "requirements"];
    const HOLDING: &[&str] = &["spec", "template", "nodePool"];
    let expression = |s: &str| s.contains("${") || s.contains("%{");
    let derived: Vec<String> = (node.labels.iter())
        .filter(|(k, v)| expression(k) || expression(v))
        .map(|(k, _)| k.clone())
        .collect();
    node.labels.retain(|(k, _)| !derived.contains(k));
    if let Some(reqs) = node.declared.as_mut().and_then(|d| d.requirements.as_mut()) {
        reqs.retain(|r| !(derived.contains(&r.key) && r.values.iter().any(|v| expression(v))));
    }
    let mut unread = false;
    for Site { path, whole } in expression_sites(text, range) {
        let segment = |s: &str| path.iter().any(|p| p == s);
        let below = |of: &[&str]| whole && path.last().is_none_or(|l| of.contains(&l.as_str()));
        unread |= DECIDING.iter().any(|s| segment(s)) || below(HOLDING);
        // The node labels: a Node's own; a pool's, under its template (or the chart's
        // `nodePool`), not the object's own `metadata.labels`.
        let own_metadata = node.declared.is_some() && path.first().is_some_and(|p| p == "metadata");
        let labels = path
            .iter()
            .position(|p| p == "labels")
            .filter(|_| !own_metadata);
        let key = labels.map(|i| path[i + 1..].iter().find(|p| *p != "-"));
        let open = match key {
            Some(Some(k)) if !expression(k) => Some(Some(k.as_str())),
            Some(_) => Some(None),
            None if below(&["metadata"]) && !own_metadata => Some(None),
            None => None,
        };
        match (open, node.declared.as_mut()) {
            (Some(k), Some(d)) => d.open_labels.open(k),
            (Some(_), None) => unread = true,
            (None, _) => {}
        }
    }
    unread.then(|| Unread {
        at: node.at.range.clone(),
        message: format!(
            "pool `{}` is written with Terraform expressions (`${{...}}`), which taintlint does \
             not evaluate: its nodes are not read",
            node.pool
                .as_ref()
                .map_or(node.name.as_str(), |(_, n)| n.as_str()),
        ),
    })
}

/// Where an expression of a heredoc's YAML is written.
#[derive(Debug, PartialEq, Eq)]
struct Site {
    /// The keys that lead to it, by indentation, with `-` for a list's item (the key on its own
    /// line last: `[spec, template, spec, taints, -, key]` for `- key: ${var.k}`).
    path: Vec<String>,
    /// Whether it is all its line holds after the keys (`taints: ${...}`, or a line of its
    /// own): it may write anything below its place.
    whole: bool,
}

/// A YAML line's list markers (`- `), the key it writes, if any (`key:` ends it or is followed
/// by a blank; a key that is an expression is none), and where that key starts.
fn line_parts(line: &str) -> (usize, Option<&str>, usize) {
    let mut rest = line.trim_start_matches(' ');
    let mut items = 0;
    while let Some(r) = rest.strip_prefix("- ") {
        items += 1;
        rest = r.trim_start_matches(' ');
    }
    let colon = (rest.find(": ")).or_else(|| rest.trim_end().strip_suffix(':').map(str::len));
    let key = colon
        .map(|c| rest[..c].trim().trim_matches(['"', '\''].as_slice()))
        .filter(|k| !k.is_empty() && !k.starts_with(['#', '$', '%']));
    (items, key, line.len() - rest.len())
}

/// The [`Site`] of each of the expressions ([`expressions`]) of `text[range]`, a heredoc's YAML.
fn expression_sites(text: &str, range: &Range<usize>) -> Vec<Site> {
    let Some(yaml) = text.get(range.clone()) else {
        return Vec::new();
    };
    let indent = |line: &str| line.len() - line.trim_start_matches(' ').len();
    let mut out = Vec::new();
    for e in expressions(yaml.as_bytes()) {
        let line_start = yaml[..e.start].rfind('\n').map_or(0, |p| p + 1);
        let line_end = yaml[e.end..].find('\n').map_or(yaml.len(), |p| e.end + p);
        let before = &yaml[line_start..e.start];
        let (items, key, key_at) = line_parts(before);
        let mut path: Vec<String> = vec!["-".to_string(); items];
        // The key it is the value of (a key that is an expression is no key).
        let value_of = key.filter(|_| before[key_at..].contains(':'));
        path.extend(value_of.map(str::to_string));
        let after_key = value_of.map_or(&before[key_at..], |_| {
            before[key_at..].split_once(':').map_or("", |(_, v)| v)
        });
        let whole = after_key.trim().is_empty() && yaml[e.end..line_end].trim().is_empty();
        // The keys above it: each line less indented than the last taken.
        let mut limit = indent(before);
        let mut ancestors = Vec::new();
        for line in yaml[..line_start].lines().rev() {
            let content = line.trim_start_matches(' ');
            if limit == 0 || content.is_empty() || content.starts_with('#') || indent(line) >= limit
            {
                continue;
            }
            let (items, key, key_at) = line_parts(line);
            if key.is_none() && items == 0 {
                continue;
            }
            // Within an item's key (not beside it), the key leads here too.
            if let Some(k) = key.filter(|_| items == 0 || key_at < limit) {
                ancestors.push(k.to_string());
            }
            ancestors.extend(std::iter::repeat_n("-".to_string(), items));
            limit = indent(line);
        }
        ancestors.reverse();
        ancestors.extend(path);
        out.push(Site {
            path: ancestors,
            whole,
        });
    }
    out
}

/// The manifest at `range` of [`Hcl::manifests`] as a YAML text of the file's length: every byte
/// outside it blanked (line breaks kept), so that a place in it is the same in the file.
pub(crate) fn manifest_text(text: &str, range: &Range<usize>) -> Option<String> {
    text.get(range.clone())?;
    let mut bytes = text.as_bytes().to_vec();
    for (i, b) in bytes.iter_mut().enumerate() {
        if !range.contains(&i) && *b != b'\n' {
            *b = b' ';
        }
    }
    neutralize_expressions(&mut bytes[range.clone()]);
    // Whole characters are blanked: the range starts and ends at a line's start.
    String::from_utf8(bytes).ok()
}

/// Where a text's Terraform interpolations (`${...}`) and directives (`%{...}`) are, each to
/// its closing brace (counting the braces it nests); one left open runs to the end. `$${` and
/// `%%{` are Terraform's escapes for the literal text `${` and `%{`: no expression.
pub(crate) fn expressions(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if matches!(bytes[i], b'$' | b'%') && bytes[i + 1] == bytes[i] {
            i += 2;
            continue;
        }
        if !matches!(bytes[i], b'$' | b'%') || bytes[i + 1] != b'{' {
            i += 1;
            continue;
        }
        let mut depth = 0usize;
        let mut end = bytes.len();
        for (j, &b) in bytes.iter().enumerate().skip(i + 1) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push(i..end);
        i = end;
    }
    out
}

/// The fields of the objects read from heredocs whose values are lists or mappings.
const COLLECTIONS: &[&str] = &[
    "labels",
    "taints",
    "startupTaints",
    "requirements",
    "values",
];

/// Makes the Terraform interpolations and directives of a heredoc's text ([`expressions`])
/// harmless to the YAML reader, in place and at the same length: their values are not known,
/// and one that writes a line of its own (`${var.id != null ? "snapshotID: ${var.id}" : ""}`,
/// `%{ if ... }`) is blanked as if it wrote nothing, as is the whole value of a field that holds
/// a list or a mapping ([`COLLECTIONS`]: as a string, it would make the object unreadable); any
/// other keeps its marks (what reads the result still sees an expression there) and its inside
/// becomes `_`. One left open is left as it is. What they stood for is judged apart
/// ([`unknown_parts`]).
fn neutralize_expressions(bytes: &mut [u8]) {
    for e in expressions(bytes) {
        if bytes[e.end - 1] != b'}' {
            continue;
        }
        let line_start = bytes[..e.start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let line_end = bytes[e.end..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| e.end + p);
        let blank = |r: &[u8]| r.iter().all(|b| b.is_ascii_whitespace());
        let before = String::from_utf8_lossy(&bytes[line_start..e.start]);
        let field = before
            .trim()
            .trim_start_matches(['-', ' '])
            .strip_suffix(':');
        let alone = (blank(before.as_bytes()) || field.is_some_and(|f| COLLECTIONS.contains(&f)))
            && blank(&bytes[e.end..line_end]);
        let inside = if alone {
            e.clone()
        } else {
            e.start + 2..e.end - 1
        };
        for b in &mut bytes[inside] {
            if *b != b'\n' {
                *b = if alone { b' ' } else { b'_' };
            }
        }
    }
}

/// Parses a Terraform file's node pools.
pub(crate) fn parse(text: &str) -> Result<Hcl<'_>, ParseError> {
    // The parser does not take a byte order mark: it is skipped, and spans shifted past it.
    let off = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let src = &text[off..];
    let body = super::hcl_objects::parse_terraform_body(src).map_err(|e| {
        ParseError::at(
            off + e.location().offset(),
            format!("not valid HCL: {}", e.message()),
        )
    })?;
    let mut b = Builder {
        text,
        src,
        off,
        doc: Document::synthetic(0..text.len()),
        pools: Vec::new(),
        spelled: Vec::new(),
        unread: Vec::new(),
        tags: Vec::new(),
        builtins: Vec::new(),
        chart_pools: Vec::new(),
        ignored: Vec::new(),
    };
    // The GKE clusters of the file, by resource name: a pool's zones default to its cluster's.
    let clusters: Vec<(&str, &Body)> = body
        .iter()
        .filter_map(|s| match s {
            Structure::Block(block)
                if block.ident.as_str() == "resource"
                    && block.labels.len() == 2
                    && block.labels[0].as_str() == "google_container_cluster" =>
            {
                Some((block.labels[1].as_str(), &block.body))
            }
            _ => None,
        })
        .collect();
    let mut manifests = Vec::new();
    for s in body.iter() {
        let Structure::Block(block) = s else { continue };
        let labels: Vec<&str> = block.labels.iter().map(|l| l.as_str()).collect();
        let at = b.span_of(block).unwrap_or(0..0);
        if let ("resource", [resource, _]) = (block.ident.as_str(), labels.as_slice()) {
            manifests.extend(manifest(src, off, resource, &block.body));
        }
        match (block.ident.as_str(), labels.as_slice()) {
            ("resource", ["google_container_node_pool", name]) => {
                let address = format!("google_container_node_pool.{name}");
                // The `count` meta-argument: `0` makes no pool; an expression
                // (`var.enable_tpu ? 1 : 0`) may make none, which is said.
                let made = attr(&block.body, "count");
                if made.is_some() && number(made) == Some(0) {
                    continue;
                }
                // `cluster = google_container_cluster.<name>.id` (or `.name`): that cluster's.
                let cluster = attr(&block.body, "cluster")
                    .and_then(|e| reference(e, "google_container_cluster"))
                    .and_then(|c| clusters.iter().find(|(n, _)| *n == c))
                    .map(|(_, body)| *body);
                b.gke_pool(
                    &block.body,
                    &address,
                    "google_container_node_pool",
                    at,
                    cluster,
                    false,
                );
                if let Some(e) = made.filter(|e| number(Some(e)).is_none()) {
                    b.made_if(e, &address);
                }
            }
            ("resource", ["google_container_cluster", name]) => {
                let mut pools = 0;
                for (i, pool) in block.body.get_blocks("node_pool").enumerate() {
                    let address = format!("google_container_cluster.{name}.node_pool[{i}]");
                    let at = b.span_of(pool).unwrap_or(at.clone());
                    b.gke_pool(
                        &pool.body,
                        &address,
                        "google_container_cluster",
                        at,
                        Some(&block.body),
                        false,
                    );
                    pools += 1;
                }
                // Without `node_pool` blocks, the cluster makes its default pool, of its own
                // `node_config` and `initial_node_count` (per zone), unless it is removed
                // (google_container_cluster docs: `remove_default_node_pool`).
                if pools == 0 && !is_true(attr(&block.body, "remove_default_node_pool")) {
                    let address = format!("google_container_cluster.{name}");
                    b.gke_pool(
                        &block.body,
                        &address,
                        "google_container_cluster",
                        at,
                        None,
                        true,
                    );
                }
            }
            ("resource", ["aws_eks_node_group", name]) => {
                b.eks_node_group(&block.body, name, at);
            }
            ("resource", ["aws_eks_cluster", name]) => {
                if let Some(config) = block.body.get_blocks("compute_config").next() {
                    let address = format!("aws_eks_cluster.{name}.compute_config");
                    b.auto_mode(Fields::Body(&config.body), &address);
                }
            }
            ("resource", ["azurerm_kubernetes_cluster_node_pool", name]) => {
                let kind = "azurerm_kubernetes_cluster_node_pool";
                let f = Fields::Body(&block.body);
                b.aks_pool(f, format!("{kind}.{name}"), kind, at, &AZURERM);
            }
            ("resource", ["azurerm_kubernetes_cluster", name]) => {
                if let Some(pool) = block.body.get_blocks("default_node_pool").next() {
                    let at = b.span_of(pool).unwrap_or(at.clone());
                    let kind = "azurerm_kubernetes_cluster";
                    let f = Fields::Body(&pool.body);
                    b.aks_pool(f, format!("{kind}.{name}"), kind, at, &AZURERM);
                }
            }
            ("resource", ["huaweicloud_cce_node_pool", name]) => {
                b.cce_pool(&block.body, name, at);
            }
            ("resource", ["aws_autoscaling_group", name]) => {
                b.autoscaling_group(&block.body, name, at);
            }
            ("resource", ["aws_autoscaling_group_tag", name]) => {
                // A tag of a group made elsewhere (an EKS managed group's, say): linted, its
                // group not known here.
                let f = Fields::Body(&block.body);
                let tags = b.tags(&f.children("tag"));
                let address = format!("aws_autoscaling_group_tag.{name}.tag");
                b.tag_set(None, &tags, address);
            }
            ("module", [name]) => {
                // terraform-aws-modules/eks: `cluster_compute_config` (v20), `compute_config`
                // (v21), passed on to the cluster's `compute_config`.
                for input in ["cluster_compute_config", "compute_config"] {
                    if let Some(Expression::Object(config)) = attr(&block.body, input) {
                        let address = format!("module.{name}.{input}");
                        b.auto_mode(Fields::Object(config), &address);
                    }
                }
                // aws-ia/eks-data-addons: a karpenter-resources chart release per entry, its
                // `values` heredocs (the chart renders a NodePool of them).
                if let Some(Expression::Object(releases)) =
                    attr(&block.body, "karpenter_resources_helm_config")
                {
                    for (_, release) in releases.iter() {
                        let values = release
                            .expr()
                            .as_object()
                            .and_then(|o| Fields::Object(o).get("values"));
                        if let Some(Expression::Array(values)) = values {
                            b.chart_pools
                                .extend(values.iter().filter_map(|v| heredoc_body(src, off, v)));
                        }
                    }
                }
                if let Some(groups) = attr(&block.body, "eks_managed_node_groups") {
                    b.eks_module(groups, name, true);
                }
                if let Some(groups) = attr(&block.body, "self_managed_node_groups") {
                    b.eks_module(groups, name, false);
                }
                let source = attr(&block.body, "source")
                    .and_then(literal)
                    .unwrap_or_default();
                // Its own examples name it `../..`: its inputs tell it then.
                let avm = source.contains("avm-res-containerservice-managedcluster");
                let inputs = ["default_agent_pool", "agent_pools"];
                if avm || inputs.iter().any(|i| attr(&block.body, i).is_some()) {
                    b.avm_aks_module(&block.body, name, at.clone());
                }
                for (submodule, managed) in [
                    ("modules/eks-managed-node-group", true),
                    ("modules/self-managed-node-group", false),
                ] {
                    if source.trim_end_matches('/').ends_with(submodule) {
                        let address = format!("module.{name}");
                        b.eks_group(
                            Fields::Body(&block.body),
                            name,
                            address,
                            at.clone(),
                            managed,
                        );
                    }
                }
                if is_gke_module(&source) || takes_gke_module_inputs(&block.body) {
                    b.gke_module(&block.body, name, &source, at.clone());
                }
            }
            _ => {}
        }
    }
    let seq = b.doc.add_node(Node {
        span: 0..text.len(),
        tag: None,
        kind: NodeKind::Sequence {
            items: Vec::new(),
            flow: true,
        },
    });
    b.doc.root = Some(seq);
    Ok(Hcl {
        doc: b.doc,
        pools: b.pools,
        spelled: b.spelled,
        unread: b.unread,
        tags: b.tags,
        manifests,
        builtins: b.builtins,
        chart_pools: b.chart_pools,
        ignored: b.ignored,
    })
}

/// A place that holds fields: a block's body or an object.
#[derive(Clone, Copy)]
enum Fields<'b> {
    Body(&'b Body),
    Object(&'b hcl_edit::expr::Object),
}

impl<'b> Fields<'b> {
    fn get(self, name: &str) -> Option<&'b Expression> {
        match self {
            Fields::Body(b) => attr(b, name),
            Fields::Object(o) => o.iter().find_map(|(k, v)| {
                let key = match k {
                    ObjectKey::Ident(i) => i.as_str(),
                    ObjectKey::Expression(e) => e.as_str()?,
                };
                (key == name).then(|| v.expr())
            }),
        }
    }

    /// The blocks named `name` (in a body) and the objects of an attribute `name` (a list of
    /// objects, or an object of objects).
    fn children(self, name: &str) -> Vec<Fields<'b>> {
        let mut out = Vec::new();
        if let Fields::Body(b) = self {
            out.extend(
                b.blocks()
                    .filter(|b| b.has_ident(name))
                    .map(|b| Fields::Body(&b.body)),
            );
        }
        match self.get(name) {
            Some(Expression::Array(a)) => {
                out.extend(a.iter().filter_map(|e| e.as_object().map(Fields::Object)))
            }
            Some(Expression::Object(o)) => out.extend(
                o.iter()
                    .filter_map(|(_, v)| v.expr().as_object().map(Fields::Object)),
            ),
            _ => {}
        }
        out
    }

    fn child(self, name: &str) -> Option<Fields<'b>> {
        self.children(name).into_iter().next()
    }

    /// Where the name of the field `name` is written (in the parser's text).
    fn key_span(self, name: &str) -> Option<Range<usize>> {
        match self {
            Fields::Body(b) => b.get_attribute(name)?.key.span(),
            Fields::Object(o) => o.iter().find_map(|(k, _)| {
                let key = match k {
                    ObjectKey::Ident(i) => i.as_str(),
                    ObjectKey::Expression(e) => e.as_str()?,
                };
                if key != name {
                    return None;
                }
                match k {
                    ObjectKey::Ident(i) => i.span(),
                    ObjectKey::Expression(e) => e.span(),
                }
            }),
        }
    }
}

fn attr<'b>(body: &'b Body, name: &str) -> Option<&'b Expression> {
    body.get_attribute(name).map(|a| &a.value)
}

/// A literal written as text: a string without interpolation, a number, a bool.
fn literal(e: &Expression) -> Option<String> {
    match e {
        Expression::String(s) => Some(s.value().to_string()),
        Expression::Bool(b) => Some(b.value().to_string()),
        Expression::Number(n) => Some(n.value().to_string()),
        _ => None,
    }
}

fn number(e: Option<&Expression>) -> Option<u64> {
    match e? {
        Expression::Number(n) => n.value().as_u64(),
        _ => None,
    }
}

/// The literal strings of a list attribute (`instance_types = ["g5.xlarge"]`); none where
/// one is not a literal (not guessed).
fn strings(e: Option<&Expression>) -> Vec<String> {
    match e {
        Some(Expression::Array(items)) => {
            let all: Option<Vec<String>> = items.iter().map(literal).collect();
            all.unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// The architecture a node group's instance types share, unless its labels say one
/// ([`super::instance_types::shared_arch`]: the kubelet labels every node with its machine's).
fn add_arch(labels: &mut Vec<(String, String)>, types: &[String]) {
    if !labels.iter().any(|(k, _)| k == "kubernetes.io/arch") {
        labels.extend(super::instance_types::shared_arch(types));
    }
}

/// The literal pairs of a map attribute (`labels = {...}`): entries that are not literals
/// are not certain, so they are left out.
fn map(e: Option<&Expression>) -> Vec<(String, String)> {
    let Some(Expression::Object(o)) = e else {
        return Vec::new();
    };
    o.iter()
        .filter_map(|(k, v)| {
            let key = match k {
                ObjectKey::Ident(i) => i.as_str().to_string(),
                ObjectKey::Expression(e) => literal(e)?,
            };
            Some((key, literal(v.expr())?))
        })
        .collect()
}

/// A name as written: a literal's value, else the expression's text.
fn written(text: &str, e: Option<&Expression>, fallback: &str) -> String {
    match e {
        Some(e) => literal(e).unwrap_or_else(|| {
            e.span()
                .and_then(|s| text.get(s))
                .unwrap_or(fallback)
                .to_string()
        }),
        None => fallback.to_string(),
    }
}

/// A label the platform sets to a literal name.
fn platform_label(name: Option<&Expression>, key: &str) -> Option<(String, String)> {
    Some((key.to_string(), literal(name?)?))
}

fn count(min: Option<u64>, max: Option<u64>, exact: Option<u64>) -> Count {
    match (exact, min, max) {
        (_, Some(_), _) | (_, _, Some(_)) => Count { min, max },
        (Some(n), None, None) => Count {
            min: Some(n),
            max: Some(n),
        },
        (None, None, None) => Count::default(),
    }
}

/// How many zones a GKE node pool spans, which its per-zone counts are multiplied by: its
/// `node_locations` (a literal list), else its `location`: a zone (`us-central1-a`) is one, a
/// region three ("By default, GKE replicates each node pool across three zones of the control
/// plane's region", cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters); one to
/// three where neither is a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Zones {
    min: u64,
    max: u64,
}

impl Zones {
    fn exact(n: u64) -> Zones {
        Zones { min: n, max: n }
    }

    /// From a pool's (or cluster's) `node_locations` and `location`.
    fn of(locations: Option<&Expression>, location: Option<&Expression>) -> Zones {
        let listed = strings(locations);
        if !listed.is_empty() {
            return Zones::exact(listed.len() as u64);
        }
        match location.and_then(literal) {
            Some(l) if is_zone(&l) => Zones::exact(1),
            Some(_) => Zones::exact(3),
            None => Zones { min: 1, max: 3 },
        }
    }

    /// A count written per zone as the pool's whole count.
    fn total(self, per_zone: Count) -> Count {
        Count {
            min: per_zone.min.map(|n| n * self.min),
            max: per_zone.max.map(|n| n * self.max),
        }
    }
}

/// The names an AKS pool's definition gives its fields.
struct AksNames {
    count: &'static str,
    priority: &'static str,
    /// A module's default pool: its name and node count where they are not written.
    default_pool: Option<(&'static str, u64)>,
}

impl AksNames {
    /// The same names, for the AVM module's default pool (`systempool`, 3 nodes).
    fn with_default_pool(&self) -> AksNames {
        AksNames {
            default_pool: Some(("systempool", 3)),
            ..*self
        }
    }
}

/// hashicorp/terraform-provider-azurerm's (and the AVM module's before v0.4.0).
const AZURERM: AksNames = AksNames {
    count: "node_count",
    priority: "priority",
    default_pool: None,
};

/// The ARM API's, as the AVM module takes them from v0.4.0.
const AVM: AksNames = AksNames {
    count: "count_of",
    priority: "scale_set_priority",
    default_pool: None,
};

/// Whether a module of the repository's own takes terraform-google-modules/kubernetes-engine's
/// pools on: `node_pools` with an input only that module has beside it (`node_pools_taints`,
/// `node_pools_labels`, ...). `node_pools` alone says nothing: other modules take an input of
/// that name (Azure/terraform-azurerm-aks's AKS pools, a map of another shape).
fn takes_gke_module_inputs(body: &Body) -> bool {
    const GKE_ONLY: &[&str] = &[
        "node_pools_taints",
        "node_pools_labels",
        "node_pools_tags",
        "node_pools_metadata",
        "node_pools_oauth_scopes",
        "ip_range_pods",
    ];
    attr(body, "node_pools").is_some() && GKE_ONLY.iter().any(|i| attr(body, i).is_some())
}

/// The node pools terraform-google-modules/kubernetes-engine makes when `node_pools` is not
/// written (its variables.tf: `default = [{ name = "default-node-pool" }]`).
const GKE_MODULE_DEFAULT_POOLS: &str = "node_pools = [{ name = \"default-node-pool\" }]\n";

/// Whether a module of terraform-google-modules/kubernetes-engine makes
/// [`GKE_MODULE_DEFAULT_POOLS`] when `node_pools` is not written: the root module and the
/// cluster modules whose variables.tf gives that default (not Autopilot's, nor
/// `gke-standard-cluster`, whose pools are `gke-node-pool` modules).
fn gke_module_pools_by_default(source: &str) -> bool {
    const WITH_DEFAULT: &[&str] = &[
        "private-cluster",
        "beta-private-cluster",
        "beta-public-cluster",
        "safer-cluster",
    ];
    let submodule = source
        .split_once("//modules/")
        .map(|(_, m)| m.split(['?', '/']).next().unwrap_or_default());
    is_gke_module(source)
        && submodule
            .is_none_or(|m| WITH_DEFAULT.contains(&m.strip_suffix("-update-variant").unwrap_or(m)))
}

/// Whether a module is terraform-google-modules/kubernetes-engine's (its registry or its
/// repository's source), whose cluster has a default pool whatever its `node_pools`.
fn is_gke_module(source: &str) -> bool {
    source.starts_with("terraform-google-modules/kubernetes-engine/google")
        || source.contains("github.com/terraform-google-modules/terraform-google-kubernetes-engine")
}

/// The resource name a reference to a resource of `kind` names: `google_container_cluster.primary.id`
/// is `primary`.
fn reference(e: &Expression, kind: &str) -> Option<String> {
    let Expression::Traversal(t) = e else {
        return None;
    };
    let Expression::Variable(root) = &t.expr else {
        return None;
    };
    if root.as_str() != kind {
        return None;
    }
    match t.operators.first().map(|o| o.value()) {
        Some(hcl_edit::expr::TraversalOperator::GetAttr(name)) => Some(name.as_str().to_string()),
        _ => None,
    }
}

/// Whether a Google Cloud location is a zone (`us-central1-a`) rather than a region
/// (`us-central1`).
fn is_zone(location: &str) -> bool {
    location.rsplit_once('-').is_some_and(|(region, zone)| {
        region.contains('-') && zone.len() == 1 && zone.bytes().all(|b| b.is_ascii_lowercase())
    })
}

/// What a GKE pool's machine type says of its nodes (instance_types::gce): the type, its family
/// and architecture as labels, and the GPUs of an accelerator-optimized type (with GKE's
/// `cloud.google.com/gke-accelerator` label, "GKE attaches a unique node selector to GPU nodes",
/// cloud.google.com/kubernetes-engine/docs/how-to/gpus).
fn gke_machine(
    machine_type: &str,
    labels: &mut Vec<(String, String)>,
) -> Option<super::instance_types::GceMachine> {
    let m = super::instance_types::gce(machine_type)?;
    let mut set = |k: &str, v: &str| {
        if !labels.iter().any(|(key, _)| key == k) {
            labels.push((k.to_string(), v.to_string()));
        }
    };
    set("node.kubernetes.io/instance-type", machine_type);
    set("cloud.google.com/machine-family", &m.family);
    set("kubernetes.io/arch", m.arch);
    if m.gpus > 0 {
        set("cloud.google.com/gke-accelerator", m.accelerator);
    }
    if m.tpus > 0 {
        set("cloud.google.com/gke-tpu-accelerator", m.tpu_accelerator);
    }
    Some(m)
}

/// What a node of a known Compute Engine type offers of accelerators: its own GPUs (none for
/// most types) and its TPU chips (none but on a TPU VM).
fn gke_accelerators(m: &super::instance_types::GceMachine) -> super::capacity::Capacity {
    let mut capacity = super::capacity::Capacity::gpus(u128::from(m.gpus));
    let tpus = u128::from(m.tpus);
    capacity.set(super::capacity::TPU, tpus, Some(tpus));
    capacity
}

/// A field that holds taints under a name its module does not read: where its name is written,
/// the name, why the module does not read it, and the field's address.
pub(crate) struct Ignored {
    pub range: Range<usize>,
    pub name: String,
    pub why: String,
    pub path: String,
}

/// An EKS Auto Mode built-in NodePool a cluster enables (`compute_config.node_pools`): its name
/// and where the name is written.
pub(crate) struct Builtin {
    pub name: &'static str,
    pub at: Range<usize>,
}

struct Builder<'a> {
    /// The whole text (spans of the tree built point into it).
    text: &'a str,
    /// The text the parser read (after a byte order mark) and how far into `text` it starts.
    src: &'a str,
    off: usize,
    doc: Document<'a>,
    pools: Vec<TfPool>,
    spelled: Vec<Spelled>,
    unread: Vec<Unread>,
    tags: Vec<TagSet>,
    builtins: Vec<Builtin>,
    chart_pools: Vec<Range<usize>>,
    ignored: Vec<Ignored>,
}

impl<'a> Builder<'a> {
    /// A map or list of node groups that is not written out (a `merge(...)`, a `local.` or
    /// `var.` reference, a `for` expression): taintlint evaluates no Terraform expressions.
    fn not_written_out(&mut self, e: &Expression, address: &str) {
        let shown = self.shown(e);
        self.unread.push(Unread {
            at: self.span_of(e).unwrap_or(0..0),
            message: format!(
                "{address} is `{shown}`, an expression taintlint does not evaluate: the node \
                 groups it makes are not read (write them in a pool file to simulate them)"
            ),
        });
    }

    /// An expression as written, on one line and not too long to read.
    fn shown(&self, e: &Expression) -> String {
        let written = written(self.src, Some(e), "?");
        let shown = written.split_whitespace().collect::<Vec<_>>().join(" ");
        if shown.chars().count() > 80 {
            shown.chars().take(76).collect::<String>() + " ..."
        } else {
            shown
        }
    }

    /// The pool just read is made only when `count` (an expression) is not 0: it may have no
    /// node at all, and that is said.
    fn made_if(&mut self, e: &Expression, address: &str) {
        if let Some(pool) = self.pools.last_mut() {
            pool.count.min = Some(0);
        }
        let shown = self.shown(e);
        self.unread.push(Unread {
            at: self.span_of(e).unwrap_or(0..0),
            message: format!(
                "{address} is made only when its `count = {shown}` is not 0, an expression \
                 taintlint does not evaluate: the pool is read as one that may have no node"
            ),
        });
    }

    /// A parsed element's span, in `text`.
    fn span_of(&self, s: &impl Span) -> Option<Range<usize>> {
        s.span().map(|r| r.start + self.off..r.end + self.off)
    }

    fn scalar(&mut self, span: Range<usize>, value: Cow<'a, str>, style: Style) -> NodeId {
        self.doc.add_node(Node {
            span,
            tag: Some("!!str".into()),
            kind: NodeKind::Scalar { value, style },
        })
    }

    /// A scalar for a literal expression: spanning the characters of a string between its
    /// quotes (the whole token when it has escapes).
    fn literal_node(&mut self, e: &Expression) -> Option<NodeId> {
        let span = self.span_of(e)?;
        let value = literal(e)?;
        let inner = if matches!(e, Expression::String(_)) && span.len() >= 2 {
            span.start + 1..span.end - 1
        } else {
            span.clone()
        };
        let (span, value) = match self.text.get(inner.clone()) {
            Some(t) if t == value => (inner, Cow::Borrowed(t)),
            _ => (span, Cow::Owned(value)),
        };
        Some(self.scalar(span, value, Style::Plain))
    }

    /// A `{key, value, effect}` taint as a mapping; `None` when a field is not a literal.
    fn taint_mapping(
        &mut self,
        f: Fields<'_>,
        spelling: Option<&'static Spelling>,
    ) -> Option<NodeId> {
        let mut entries = Vec::new();
        let mut span: Option<Range<usize>> = None;
        for name in ["key", "value", "effect"] {
            let Some(e) = f.get(name) else { continue };
            let mut v = self.literal_node(e)?;
            let vspan = self.doc.node(v).span.clone();
            if name == "effect" {
                if let Some(sp) = spelling {
                    let written = self.doc.scalar(v).map(|(s, _)| s.to_string())?;
                    if let Some((_, k8s)) = sp.effects.iter().find(|(p, _)| *p == written) {
                        v = self.scalar(vspan.clone(), Cow::Borrowed(k8s), Style::Plain);
                    }
                    self.spelled.push(Spelled {
                        range: vspan.clone(),
                        written,
                        spelling: sp,
                        path: String::new(),
                    });
                }
            }
            let k = self.scalar(vspan.clone(), Cow::Borrowed(name), Style::Plain);
            span = Some(match span {
                Some(s) => s.start.min(vspan.start)..s.end.max(vspan.end),
                None => vspan,
            });
            entries.push((k, v));
        }
        Some(self.doc.add_node(Node {
            span: span.unwrap_or(0..0),
            tag: None,
            kind: NodeKind::Mapping {
                entries,
                flow: true,
            },
        }))
    }

    /// A taint list node from taint mappings; returns it and how many were left out.
    fn taint_list(
        &mut self,
        taints: &[Fields<'_>],
        spelling: Option<&'static Spelling>,
        path: String,
    ) -> (Option<List>, usize) {
        if taints.is_empty() {
            return (None, 0);
        }
        let mut items = Vec::new();
        for &t in taints {
            let before = self.spelled.len();
            if let Some(m) = self.taint_mapping(t, spelling) {
                for s in &mut self.spelled[before..] {
                    s.path = format!("{path}[{}].effect", items.len());
                }
                items.push(m);
            } else {
                self.spelled.truncate(before);
            }
        }
        let skipped = taints.len() - items.len();
        (self.list(items, path), skipped)
    }

    fn list(&mut self, items: Vec<NodeId>, path: String) -> Option<List> {
        let start = items.iter().map(|&i| self.doc.node(i).span.start).min()?;
        let end = items.iter().map(|&i| self.doc.node(i).span.end).max()?;
        let node = self.doc.add_node(Node {
            span: start..end,
            tag: None,
            kind: NodeKind::Sequence { items, flow: true },
        });
        Some(List {
            whole: false,
            node,
            key: node,
            path,
            object: None,
        })
    }

    fn push(&mut self, pool: TfPool) {
        self.pools.push(pool);
    }

    /// Where the characters of a literal string are (between its quotes), when they are the
    /// string's value as written (no escapes).
    fn chars(&self, e: &Expression) -> Option<Range<usize>> {
        let Expression::String(s) = e else {
            return None;
        };
        let span = self.span_of(e)?;
        let inner = span.start + 1..span.end.checked_sub(1)?;
        (self.text.get(inner.clone()) == Some(s.value().as_str())).then_some(inner)
    }

    /// Tags written as `{key, value}` (a `tag` block, an object of a `tags` list) whose key
    /// and value are literals.
    fn tags(&self, written: &[Fields<'_>]) -> Vec<super::asg_tags::Tag<'a>> {
        written
            .iter()
            .filter_map(|f| {
                let (k, v) = (f.get("key")?, f.get("value")?);
                Some(super::asg_tags::Tag {
                    key: Cow::Owned(literal(k)?),
                    key_at: self.chars(k),
                    value: Cow::Owned(literal(v)?),
                    value_at: self.chars(v),
                })
            })
            .collect()
    }

    /// Tags written as a map (`autoscaling_group_tags = { "k8s.io/..." = "v:NoSchedule" }`).
    fn map_tags(&self, e: Option<&Expression>) -> Vec<super::asg_tags::Tag<'a>> {
        let Some(Expression::Object(o)) = e else {
            return Vec::new();
        };
        o.iter()
            .filter_map(|(k, v)| {
                let ObjectKey::Expression(k) = k else {
                    return None;
                };
                Some(super::asg_tags::Tag {
                    key: Cow::Owned(literal(k)?),
                    key_at: self.chars(k),
                    value: Cow::Owned(literal(v.expr())?),
                    value_at: self.chars(v.expr()),
                })
            })
            .collect()
    }

    /// Records the node-template tags of a group (of the pool `pool`, if one): its taint tags
    /// as a list at `path`, its label and resources tags.
    fn tag_set(&mut self, pool: Option<usize>, tags: &[super::asg_tags::Tag<'_>], path: String) {
        if !tags
            .iter()
            .any(|t| t.key.starts_with("k8s.io/cluster-autoscaler/"))
        {
            return;
        }
        let (node, skipped) = super::asg_tags::taint_sequence(self.text, &mut self.doc, tags);
        let list = node.map(|node| List {
            whole: false,
            node,
            key: node,
            path,
            object: None,
        });
        let mut capacity = super::capacity::Capacity::default();
        super::asg_tags::add_resources(&mut capacity, tags);
        self.tags.push(TagSet {
            pool,
            list,
            skipped,
            labels: super::asg_tags::labels(tags),
            capacity,
        });
    }

    /// An `aws_autoscaling_group` whose tags are Cluster Autoscaler's (`tag` blocks, or the
    /// `tags` list of provider versions before 5.0): a self-managed node group, its nodes
    /// described by its node-template tags (hashicorp/terraform-provider-aws
    /// `internal/service/autoscaling/group.go`: `name`, `min_size`, `max_size`,
    /// `desired_capacity`, `tag {key value propagate_at_launch}`).
    fn autoscaling_group(&mut self, body: &Body, name: &str, at: Range<usize>) {
        let f = Fields::Body(body);
        let address = format!("aws_autoscaling_group.{name}");
        let (mut tags, mut path) = (self.tags(&f.children("tag")), format!("{address}.tag"));
        if tags.is_empty() {
            tags = self.tags(&f.children("tags"));
            path = format!("{address}.tags");
        }
        if !tags
            .iter()
            .any(|t| t.key.starts_with("k8s.io/cluster-autoscaler/"))
        {
            return;
        }
        let n = |name: &str| number(f.get(name));
        let pool = self.pools.len();
        self.push(TfPool {
            name: written(self.src, f.get("name"), &address),
            kind: "aws_autoscaling_group",
            at,
            labels: Vec::new(),
            count: count(n("min_size"), n("max_size"), n("desired_capacity")),
            list: None,
            implied: Vec::new(),
            skipped: 0,
            provider_labels: &[],
            capacity: super::capacity::Capacity::default(),
        });
        self.tag_set(Some(pool), &tags, path);
    }

    fn gke_pool(
        &mut self,
        body: &Body,
        address: &str,
        kind: &'static str,
        at: Range<usize>,
        cluster: Option<&Body>,
        default_pool: bool,
    ) {
        let f = Fields::Body(body);
        let config = f.child("node_config");
        let taints = config.map(|c| c.children("taint")).unwrap_or_default();
        let (list, skipped) = self.taint_list(
            &taints,
            Some(&GOOGLE),
            format!("{address}.node_config.taint"),
        );
        let auto = f.child("autoscaling");
        let a = |n: &str| number(auto.and_then(|a| a.get(n)));
        // `min_node_count`, `max_node_count`, `node_count` and `initial_node_count` are per zone,
        // `total_min_node_count` and `total_max_node_count` the pool's
        // (google_container_node_pool docs).
        let zones = match (f.get("node_locations"), f.get("location"), cluster) {
            (None, None, Some(c)) => Zones::of(attr(c, "node_locations"), attr(c, "location")),
            (locations, location, _) => Zones::of(locations, location),
        };
        let per_zone = count(
            a("min_node_count"),
            a("max_node_count"),
            number(f.get("node_count")).or(number(f.get("initial_node_count"))),
        );
        let mut total = zones.total(per_zone);
        if let Some(n) = a("total_min_node_count") {
            total.min = Some(n);
        }
        if let Some(n) = a("total_max_node_count") {
            total.max = Some(n);
        }
        let name = if default_pool {
            GKE_DEFAULT_POOL.to_string()
        } else {
            written(self.src, f.get("name"), address)
        };
        // `node_config.guest_accelerator` ({type, count}, a block or a list of objects): the
        // NVIDIA GPUs GKE attaches to each node, which its device plugin advertises as
        // `nvidia.com/gpu` (google_container_node_pool docs, GKE "About GPUs"). Without it the
        // machine type may still have GPUs of its own (A2, G2): unknown.
        let accelerators = config
            .map(|c| c.children("guest_accelerator"))
            .unwrap_or_default();
        let mut capacity = super::capacity::Capacity::default();
        let mut labels = map(config.and_then(|c| c.get("labels")));
        if !accelerators.is_empty() {
            let counts: Vec<Option<u64>> = accelerators
                .iter()
                .map(|a| number(a.get("count")))
                .collect();
            if let Some(total) = counts.iter().copied().sum::<Option<u64>>() {
                capacity = super::capacity::Capacity::gpus(u128::from(total));
            }
            if let Some(kind) = accelerators
                .first()
                .and_then(|a| a.get("type"))
                .and_then(literal)
            {
                labels.push(("cloud.google.com/gke-accelerator".to_string(), kind));
            }
        }
        // A machine type that is not written as a literal (`var.machine_type`) is not
        // GKE's default: it says nothing.
        let machine = match config.and_then(|c| c.get("machine_type")) {
            Some(e) => literal(e),
            None => Some(GKE_DEFAULT_MACHINE.to_string()),
        };
        if let Some(m) = machine.and_then(|m| gke_machine(&m, &mut labels)) {
            if accelerators.is_empty() {
                // The type's own GPUs and TPUs, or none: a known type says.
                capacity = gke_accelerators(&m);
            }
        }
        // GKE labels every node with its pool's name, and Spot and preemptible nodes so.
        if default_pool {
            labels.push((
                "cloud.google.com/gke-nodepool".to_string(),
                GKE_DEFAULT_POOL.to_string(),
            ));
        } else {
            labels.extend(platform_label(
                f.get("name"),
                "cloud.google.com/gke-nodepool",
            ));
        }
        for (field, key) in [("spot", GKE_SPOT), ("preemptible", GKE_PREEMPTIBLE)] {
            if is_true(config.and_then(|c| c.get(field))) {
                labels.push((key.to_string(), "true".to_string()));
            }
        }
        self.push(TfPool {
            name,
            kind,
            at,
            labels,
            count: total,
            list,
            implied: Vec::new(),
            skipped,
            provider_labels: &[GKE_SPOT, GKE_PREEMPTIBLE],
            capacity,
        });
    }

    /// An EKS cluster's Auto Mode `compute_config`: when `enabled = true`, the built-in
    /// NodePools its `node_pools` names (`general-purpose`, `system`; none when left out, as
    /// aws_eks_cluster and terraform-aws-modules/eks default it).
    fn auto_mode(&mut self, f: Fields<'_>, address: &str) {
        if !is_true(f.get("enabled")) {
            return;
        }
        match f.get("node_pools") {
            Some(Expression::Array(names)) => {
                for e in names.iter() {
                    let name = literal(e)
                        .and_then(|n| super::auto_mode::BUILTIN.iter().find(|b| **b == n).copied());
                    if let (Some(name), Some(at)) = (name, self.span_of(e)) {
                        self.builtins.push(Builtin { name, at });
                    }
                }
            }
            Some(other) => {
                let shown = self.shown(other);
                self.unread.push(Unread {
                    at: self.span_of(other).unwrap_or(0..0),
                    message: format!(
                        "{address}.node_pools is `{shown}`, an expression taintlint does not \
                         evaluate: the built-in node pools it enables are not read"
                    ),
                });
            }
            None => {}
        }
    }

    fn eks_node_group(&mut self, body: &Body, name: &str, at: Range<usize>) {
        let f = Fields::Body(body);
        let address = format!("aws_eks_node_group.{name}");
        let taints = f.children("taint");
        let (list, skipped) = self.taint_list(&taints, Some(&AWS), format!("{address}.taint"));
        let scaling = f.child("scaling_config");
        let s = |n: &str| number(scaling.and_then(|a| a.get(n)));
        let mut labels = map(f.get("labels"));
        // EKS labels every node of a managed node group with its name (eksctl types.go
        // EKSNodeGroupNameLabel).
        labels.extend(platform_label(
            f.get("node_group_name"),
            "eks.amazonaws.com/nodegroup",
        ));
        labels.extend(eks_capacity_type(f.get("capacity_type")));
        let types = strings(f.get("instance_types"));
        add_arch(&mut labels, &types);
        let capacity = super::capacity::from_instance_types(&types);
        self.push(TfPool {
            name: written(self.src, f.get("node_group_name"), &address),
            kind: "aws_eks_node_group",
            at,
            labels,
            count: count(s("min_size"), s("max_size"), s("desired_size")),
            list,
            implied: Vec::new(),
            skipped,
            provider_labels: &[],
            capacity,
        });
    }

    /// The node groups of terraform-aws-modules/eks: `eks_managed_node_groups` (labelled with
    /// their capacity type by EKS) or `self_managed_node_groups` (`managed` false), a map of
    /// group key to group; `taints` as a map of name to taint or a list (the module's
    /// variables.tf and modules/*/variables.tf).
    fn eks_module(&mut self, groups: &Expression, module: &str, managed: bool) {
        let field = if managed {
            "eks_managed_node_groups"
        } else {
            "self_managed_node_groups"
        };
        let Expression::Object(o) = groups else {
            self.not_written_out(groups, &format!("module.{module}.{field}"));
            return;
        };
        for (k, v) in o.iter() {
            let Some(group) = v.expr().as_object() else {
                continue;
            };
            let key = match k {
                ObjectKey::Ident(i) => i.as_str().to_string(),
                ObjectKey::Expression(e) => written(self.src, Some(e), "?"),
            };
            let address = format!("module.{module}.{field}.{key}");
            let at = self.span_of(v.expr()).unwrap_or(0..0);
            self.eks_group(Fields::Object(group), &key, address, at, managed);
        }
    }

    /// One node group of the eks module (or the module of one group,
    /// `modules/eks-managed-node-group`, `modules/self-managed-node-group`).
    fn eks_group(
        &mut self,
        f: Fields<'_>,
        key: &str,
        address: String,
        at: Range<usize>,
        managed: bool,
    ) {
        let taints = f.children("taints");
        let (list, skipped) = self.taint_list(&taints, Some(&AWS), format!("{address}.taints"));
        // The module reads a group's `taints` (terraform-aws-modules/terraform-aws-eks
        // node_groups.tf: `taints = try(each.value.taints, ...)`); `taint` is read by no one.
        if let (Some(e), None) = (f.get("taint"), f.get("taints")) {
            self.unread.push(Unread {
                at: self.span_of(e).unwrap_or(0..0),
                message: format!(
                    "{address}.taint is not read by the module, which reads `taints`: the \
                     taints written there are put on no node"
                ),
            });
            if let Some(range) = f
                .key_span("taint")
                .map(|r| r.start + self.off..r.end + self.off)
            {
                self.ignored.push(Ignored {
                    range,
                    name: "taint".to_string(),
                    why: "the module reads `taints`, and ignores this one".to_string(),
                    path: format!("{address}.taint"),
                });
            }
        }
        let n = |name: &str| number(f.get(name));
        let mut labels = map(f.get("labels"));
        if managed {
            labels.extend(eks_capacity_type(f.get("capacity_type")));
        }
        // A managed group's `instance_types`, a self-managed group's `instance_type`.
        let mut types = strings(f.get("instance_types"));
        types.extend(f.get("instance_type").and_then(literal));
        add_arch(&mut labels, &types);
        let capacity = super::capacity::from_instance_types(&types);
        // A self-managed group's `autoscaling_group_tags` are put on its Auto Scaling group
        // (terraform-aws-modules/eks modules/self-managed-node-group main.tf).
        let tags = self.map_tags(f.get("autoscaling_group_tags"));
        let pool = self.pools.len();
        self.tag_set(
            Some(pool),
            &tags,
            format!("{address}.autoscaling_group_tags"),
        );
        self.push(TfPool {
            name: written(self.src, f.get("name"), key),
            kind: if managed {
                "eks_managed_node_group"
            } else {
                "self_managed_node_group"
            },
            at,
            labels,
            count: count(n("min_size"), n("max_size"), n("desired_size")),
            list,
            implied: Vec::new(),
            skipped,
            provider_labels: &[],
            capacity,
        });
    }

    /// terraform-google-modules/kubernetes-engine: `node_pools = [{name, ...}]`, their taints in
    /// `node_pools_taints = { all = [...], <pool> = [{key, value, effect}] }` and labels in
    /// `node_pools_labels` likewise (the module's variables.tf).
    fn gke_module(&mut self, body: &Body, module: &str, source: &str, at: Range<usize>) {
        // The module's cluster spans the zones it is given, else its region's three
        // (`regional`, default true; `zones`), and its pools' counts are per zone (the
        // module's README: "In regional or multi-zonal clusters, this is the number of nodes
        // per zone"; min_count and max_count become the pool's min_node_count and
        // max_node_count).
        let regional = attr(body, "regional").is_none() || is_true(attr(body, "regional"));
        // As many zones as `zones` lists, written as literals or not (`[var.zone]` is one);
        // when it is an expression, one to three.
        let zones = match attr(body, "zones") {
            Some(Expression::Array(a)) if !a.is_empty() => Zones::exact(a.len() as u64),
            Some(Expression::Array(_)) | None if regional => Zones::exact(3),
            Some(Expression::Array(_)) | None => Zones::exact(1),
            Some(_) => Zones { min: 1, max: 3 },
        };
        // The module's default where `node_pools` is not written: one `default-node-pool` of
        // the module's defaults (variables.tf `node_pools`), placed at the module.
        let default_pools = (gke_module_pools_by_default(source))
            .then(|| hcl_objects::parse_terraform_body(GKE_MODULE_DEFAULT_POOLS).ok())
            .flatten();
        let written = attr(body, "node_pools");
        let listed = match written.or_else(|| attr(default_pools.as_ref()?, "node_pools")) {
            Some(Expression::Array(pools)) => Some(pools),
            Some(other) => {
                self.not_written_out(other, &format!("module.{module}.node_pools"));
                None
            }
            None => None,
        };
        let first_machine = listed
            .and_then(|pools| pools.iter().next())
            .and_then(|p| p.as_object())
            .and_then(|o| Fields::Object(o).get("machine_type").and_then(literal));
        // The cluster's `default-pool`, untainted, of `initial_node_count` nodes a zone
        // (default 0: no node, no pool to show), kept unless `remove_default_node_pool`
        // (default false; the safer-cluster and gke-standard-cluster modules remove it): the
        // module's cluster.tf `node_pool { name = "default-pool" ... }`. A module of the
        // repository's own that takes `node_pools` on may set its own `initial_node_count`
        // (GoogleCloudPlatform/kubernetes-engine-samples' `modules/cluster` sets 1): how many
        // nodes it has is then unknown.
        let removes_default = ["modules/safer-cluster", "modules/gke-standard-cluster"]
            .iter()
            .any(|m| source.trim_end_matches('/').ends_with(m));
        let per_zone = match attr(body, "initial_node_count") {
            Some(e) => count(None, None, number(Some(e))),
            None if is_gke_module(source) => count(None, None, Some(0)),
            None => Count::default(),
        };
        if !removes_default
            && !is_true(attr(body, "remove_default_node_pool"))
            && per_zone.max != Some(0)
        {
            let mut labels = vec![(
                "cloud.google.com/gke-nodepool".to_string(),
                GKE_DEFAULT_POOL.to_string(),
            )];
            let gpus = gke_machine(
                first_machine.as_deref().unwrap_or(GKE_DEFAULT_MACHINE),
                &mut labels,
            );
            self.push(TfPool {
                name: GKE_DEFAULT_POOL.to_string(),
                kind: "gke_module_node_pool",
                at: at.clone(),
                labels,
                count: zones.total(per_zone),
                list: None,
                implied: Vec::new(),
                skipped: 0,
                provider_labels: &[GKE_SPOT, GKE_PREEMPTIBLE],
                capacity: gpus
                    .map_or_else(super::capacity::Capacity::default, |m| gke_accelerators(&m)),
            });
        }
        let Some(pools) = listed else {
            return;
        };
        let by_pool = |field: &str, pool: &str| -> Vec<&Expression> {
            let Some(Expression::Object(o)) = attr(body, field) else {
                return Vec::new();
            };
            o.iter()
                .filter(|(k, _)| {
                    let k = match k {
                        ObjectKey::Ident(i) => i.as_str().to_string(),
                        ObjectKey::Expression(e) => literal(e).unwrap_or_default(),
                    };
                    k == "all" || k == pool
                })
                .map(|(_, v)| v.expr())
                .collect()
        };
        for p in pools.iter() {
            let Some(o) = p.as_object() else { continue };
            let f = Fields::Object(o);
            let Some(name) = f.get("name").and_then(literal) else {
                continue;
            };
            let taints: Vec<Fields<'_>> = by_pool("node_pools_taints", &name)
                .into_iter()
                .filter_map(|e| match e {
                    Expression::Array(a) => {
                        Some(a.iter().filter_map(|t| t.as_object().map(Fields::Object)))
                    }
                    _ => None,
                })
                .flatten()
                .collect();
            let (list, skipped) = self.taint_list(
                &taints,
                Some(&GOOGLE),
                format!("module.{module}.node_pools_taints"),
            );
            let mut labels: Vec<(String, String)> = by_pool("node_pools_labels", &name)
                .into_iter()
                .flat_map(|e| map(Some(e)))
                .collect();
            labels.push(("cloud.google.com/gke-nodepool".to_string(), name.clone()));
            for (field, key) in [("spot", GKE_SPOT), ("preemptible", GKE_PREEMPTIBLE)] {
                if is_true(f.get(field)) {
                    labels.push((key.to_string(), "true".to_string()));
                }
            }
            let n = |field: &str| number(f.get(field));
            // The module's default where the field is not written; unknown where it is an
            // expression (`var.max_nodes`), which is not the default.
            let or_default = |field: &str, default: u64| match f.get(field) {
                None => Some(default),
                Some(e) => number(Some(e)),
            };
            let at = match written {
                Some(_) => self.span_of(p).unwrap_or(0..0),
                None => at.clone(),
            };
            // The module's defaults (cluster.tf): autoscaled from 1 to 100 nodes a zone; a
            // pool not autoscaled has `node_count` (1) a zone; `total_min_count` and
            // `total_max_count` are the pool's.
            let autoscaled = f.get("autoscaling").is_none() || is_true(f.get("autoscaling"));
            let per_zone = if autoscaled {
                Count {
                    min: or_default("min_count", 1),
                    max: or_default("max_count", 100),
                }
            } else {
                count(None, None, or_default("node_count", 1))
            };
            let pool_zones = match f.get("node_locations").and_then(literal) {
                Some(l) => {
                    Zones::exact(l.split(',').filter(|z| !z.trim().is_empty()).count() as u64)
                }
                None => zones,
            };
            let mut total = pool_zones.total(per_zone);
            if autoscaled {
                total.min = n("total_min_count").or(total.min);
                total.max = n("total_max_count").or(total.max);
            }
            // The module's default type, or the one written; one not written as a literal
            // says nothing.
            let machine = match f.get("machine_type") {
                Some(e) => literal(e),
                None => Some(GKE_DEFAULT_MACHINE.to_string()),
            };
            let mut capacity = super::capacity::Capacity::default();
            if let Some(m) = machine.and_then(|m| gke_machine(&m, &mut labels)) {
                capacity = gke_accelerators(&m);
            }
            if let (Some(kind), Some(gpus)) = (
                f.get("accelerator_type").and_then(literal),
                n("accelerator_count"),
            ) {
                if gpus > 0 {
                    labels.push(("cloud.google.com/gke-accelerator".to_string(), kind));
                    capacity = super::capacity::Capacity::gpus(u128::from(gpus));
                }
            }
            self.push(TfPool {
                name,
                kind: "gke_module_node_pool",
                at,
                labels,
                count: total,
                list,
                implied: Vec::new(),
                skipped,
                provider_labels: &[GKE_SPOT, GKE_PREEMPTIBLE],
                capacity,
            });
        }
        // The module puts on a pool the taints under `all` and under the pool's name
        // (cluster.tf: `concat(local.node_pools_taints["all"],
        // local.node_pools_taints[each.value["name"]])`): those under a name no pool has are
        // put on no node.
        let names: Option<Vec<String>> = pools
            .iter()
            .map(|p| Fields::Object(p.as_object()?).get("name").and_then(literal))
            .collect();
        if let (Some(names), Some(Expression::Object(o))) = (names, attr(body, "node_pools_taints"))
        {
            for (k, _) in o.iter() {
                let key = match k {
                    ObjectKey::Ident(i) => i.as_str().to_string(),
                    ObjectKey::Expression(e) => match literal(e) {
                        Some(key) => key,
                        None => continue,
                    },
                };
                if key != "all" && !names.contains(&key) {
                    let at = self.span_of(k).unwrap_or(0..0);
                    let pools = names.join(", ");
                    self.unread.push(Unread {
                        at: at.clone(),
                        message: format!(
                            "module.{module}.node_pools_taints.{key} names no pool of \
                             node_pools ({pools}): its taints are put on no node"
                        ),
                    });
                    // The module's own reading; a module of the repository's own that takes
                    // these inputs on may read them otherwise.
                    if !is_gke_module(source) {
                        continue;
                    }
                    self.ignored.push(Ignored {
                        range: at,
                        why: format!(
                            "no pool of node_pools is named so ({pools}), and the module reads \
                             only `all` and the pools' names"
                        ),
                        path: format!("module.{module}.node_pools_taints.{key}"),
                        name: key,
                    });
                }
            }
        }
    }

    /// An AKS pool as `f` defines it, in the names `names` gives them; its `name` (written, or
    /// the module's default) is also the taint list's owner.
    fn aks_pool(
        &mut self,
        f: Fields<'_>,
        address: String,
        kind: &'static str,
        at: Range<usize>,
        names: &AksNames,
    ) {
        let name = match (f.get("name"), names.default_pool) {
            (None, Some((name, _))) => name.to_string(),
            (e, _) => written(self.src, e, &address),
        };
        let mut items = Vec::new();
        let mut skipped = 0;
        if let Some(Expression::Array(a)) = f.get("node_taints") {
            for e in a.iter() {
                let (Some(span), Expression::String(_)) = (self.span_of(e), e) else {
                    skipped += 1;
                    continue;
                };
                let value = literal(e).unwrap_or_default();
                let scalar = self.scalar(span, Cow::Owned(value), Style::DoubleQuoted);
                match compact::taint_spec(self.text, &mut self.doc, scalar, &name) {
                    Ok(m) => items.push(m),
                    Err(_) => skipped += 1,
                }
            }
        }
        let list = self.list(items, format!("{address}.node_taints"));
        // kubernetes_nodepool.go ExpandDefaultNodePool (hashicorp/terraform-provider-azurerm).
        let mut implied = Vec::new();
        if let Some(e) = f.get("only_critical_addons_enabled") {
            if matches!(e, Expression::Bool(b) if *b.value()) {
                implied.push((
                    crate::k8s::model::Taint {
                        key: "CriticalAddonsOnly".to_string(),
                        value: "true".to_string(),
                        effect: crate::k8s::model::Effect::NoSchedule,
                    },
                    self.span_of(e).unwrap_or(at.clone()),
                ));
            }
        }
        // A Spot pool (`priority = "Spot"`): AKS labels and taints its nodes.
        let mut labels = map(f.get("node_labels"));
        if let Some(e) = f
            .get(names.priority)
            .filter(|e| literal(e).as_deref() == Some("Spot"))
        {
            labels.push((AKS_SPOT.to_string(), "spot".to_string()));
            implied.push((
                crate::k8s::model::Taint {
                    key: AKS_SPOT.to_string(),
                    value: "spot".to_string(),
                    effect: crate::k8s::model::Effect::NoSchedule,
                },
                self.span_of(e).unwrap_or(at.clone()),
            ));
        }
        // The operating system its nodes run, which the kubelet labels them with: `os_type`,
        // default Linux (azurerm_kubernetes_cluster_node_pool docs, the ARM API's agent pool;
        // a cluster's default pool is always Linux); unknown when it is an expression.
        let os = match f.get("os_type") {
            Some(e) => literal(e).map(|os| os.to_ascii_lowercase()),
            None => Some("linux".to_string()),
        };
        labels.extend(os.map(|os| ("kubernetes.io/os".to_string(), os)));
        let n = |name: &str| number(f.get(name));
        let nodes = match (f.get(names.count), names.default_pool) {
            (None, Some((_, default))) => Some(default),
            (e, _) => number(e),
        };
        self.push(TfPool {
            name,
            kind,
            at,
            labels,
            count: count(n("min_count"), n("max_count"), nodes),
            list,
            implied,
            skipped,
            provider_labels: &[AKS_SPOT],
            capacity: super::capacity::Capacity::default(),
        });
    }

    /// Azure/terraform-azurerm-avm-res-containerservice-managedcluster (Azure Verified Modules'
    /// AKS cluster): from v0.4.0, `default_agent_pool` (an object, default `{}`: a pool named
    /// `systempool` of 3 nodes, its variables.tf) and `agent_pools` (a map of objects), in the
    /// ARM API's names (`count_of`, `scale_set_priority`); before, `default_node_pool` and
    /// `node_pools`, in azurerm's.
    fn avm_aks_module(&mut self, body: &Body, module: &str, at: Range<usize>) {
        const KIND: &str = "azurerm_kubernetes_cluster";
        // An AKS Automatic cluster (`sku = { name = "Automatic" }`, the module's
        // locals.automatic.tf): node auto-provisioning makes its nodes, not these pools.
        let sku = match attr(body, "sku") {
            Some(Expression::Object(o)) => Fields::Object(o).get("name").and_then(literal),
            _ => None,
        };
        if sku.as_deref() == Some("Automatic") {
            self.unread.push(Unread {
                at,
                message: format!(
                    "module.{module} is an AKS Automatic cluster, whose nodes node \
                     auto-provisioning makes as its pods ask: not read (write them in a pool \
                     file to simulate them)"
                ),
            });
            return;
        }
        // Each pool of a map input, with its address.
        let pools = |input: &str| match attr(body, input) {
            Some(Expression::Object(o)) => (o.iter())
                .map(|(k, v)| {
                    let key = match k {
                        ObjectKey::Ident(i) => i.as_str().to_string(),
                        ObjectKey::Expression(e) => written(self.src, Some(e), "?"),
                    };
                    (format!("module.{module}.{input}.{key}"), v.expr())
                })
                .collect(),
            _ => Vec::new(),
        };
        let (input, named, names, default_names) = match attr(body, "default_node_pool") {
            Some(_) => ("default_node_pool", pools("node_pools"), &AZURERM, AZURERM),
            None => (
                "default_agent_pool",
                pools("agent_pools"),
                &AVM,
                AVM.with_default_pool(),
            ),
        };
        let address = format!("module.{module}.{input}");
        // Not written, the module's default pool, placed at the module.
        let empty = hcl_edit::expr::Object::new();
        let (fields, at_default) = match attr(body, input) {
            Some(Expression::Object(o)) => (Some(o), self.span_of(o).unwrap_or(at.clone())),
            None => (Some(&empty), at.clone()),
            Some(other) => {
                self.not_written_out(other, &address);
                (None, at.clone())
            }
        };
        if let Some(o) = fields {
            self.aks_pool(Fields::Object(o), address, KIND, at_default, &default_names);
        }
        for (address, pool) in named {
            let Some(o) = pool.as_object() else { continue };
            let at = self.span_of(pool).unwrap_or(at.clone());
            let kind = "azurerm_kubernetes_cluster_node_pool";
            self.aks_pool(Fields::Object(o), address, kind, at, names);
        }
    }

    fn cce_pool(&mut self, body: &Body, name: &str, at: Range<usize>) {
        let f = Fields::Body(body);
        let address = format!("huaweicloud_cce_node_pool.{name}");
        let taints = f.children("taints");
        let (list, skipped) = self.taint_list(&taints, None, format!("{address}.taints"));
        let n = |name: &str| number(f.get(name));
        self.push(TfPool {
            name: written(self.src, f.get("name"), &address),
            kind: "huaweicloud_cce_node_pool",
            at,
            labels: map(f.get("labels")),
            count: count(
                n("min_node_count"),
                n("max_node_count"),
                n("initial_node_count"),
            ),
            list,
            implied: Vec::new(),
            skipped,
            provider_labels: &[],
            capacity: super::capacity::Capacity::default(),
        });
    }
}

/// Reads a Terraform file's node pools, one node standing for each pool; with how many taints
/// are left out (invalid) and the node groups not read.
/// The nodes of a Terraform file's node groups, how many taints were left out as invalid, the
/// groups not read, and the manifests it applies ([`Hcl::manifests`], read by the caller).
#[allow(clippy::type_complexity)]
pub(crate) fn read(
    file: usize,
    text: &str,
) -> Result<(Vec<RawNode>, usize, Vec<Unread>, Vec<Range<usize>>), ParseError> {
    let hcl = parse(text)?;
    let mut out = Vec::new();
    let mut invalid = 0;
    for (index, pool) in hcl.pools.iter().enumerate() {
        let mut taints = Vec::new();
        if let Some(list) = &pool.list {
            let (found, left_out) = super::nodes::taints(file, &hcl.doc, list);
            taints = found;
            invalid += left_out;
        }
        invalid += pool.skipped;
        // A taint the platform adds, unless written too (a node has one per key and effect).
        for (t, r) in &pool.implied {
            if !taints
                .iter()
                .any(|w: &super::PoolTaint| w.taint.key == t.key && w.taint.effect == t.effect)
            {
                taints.push(super::PoolTaint {
                    taint: t.clone(),
                    at: Loc {
                        file,
                        range: r.clone(),
                    },
                });
            }
        }
        let at = Loc {
            file,
            range: pool.at.clone(),
        };
        let mut node =
            RawNode::defined(pool.name.clone(), pool.kind, at, (file, index), pool.count);
        node.labels = pool.labels.clone();
        node.taints = taints;
        let mut capacity = pool.capacity.clone();
        // What its node-template tags tell Cluster Autoscaler the nodes carry and offer.
        for set in hcl.tags.iter().filter(|t| t.pool == Some(index)) {
            let (found, left_out) = match &set.list {
                Some(list) => super::nodes::taints(file, &hcl.doc, list),
                None => (Vec::new(), 0),
            };
            invalid += left_out + set.skipped;
            let labels = set.labels.clone();
            super::asg_tags::merge(&mut node.taints, found, &mut node.labels, labels);
            for offer in &set.capacity.offers {
                match capacity
                    .offers
                    .binary_search_by(|o| o.name.cmp(&offer.name))
                {
                    Ok(i) => capacity.offers[i] = offer.clone(),
                    Err(i) => capacity.offers.insert(i, offer.clone()),
                }
            }
        }
        if let Some(d) = node.declared.as_mut() {
            d.provider_labels = pool.provider_labels;
            d.capacity = capacity;
        }
        out.push(node);
    }
    for (k, b) in hcl.builtins.iter().enumerate() {
        out.extend(super::auto_mode::builtin(file, b.name, b.at.clone(), k));
    }
    let mut notes = Vec::new();
    for (k, range) in hcl.chart_pools.iter().enumerate() {
        let Some(yaml) = manifest_text(text, range) else {
            continue;
        };
        let stream = crate::syntax::parse(&yaml);
        let Some((doc, root)) = stream.documents.first().and_then(|d| Some((d, d.root?))) else {
            continue;
        };
        let at = Loc {
            file,
            range: range.clone(),
        };
        // Told apart from the node groups and the pools of applied manifests and built-ins.
        let Some((mut node, left_out)) =
            super::karpenter::from_chart_values(file, doc, root, ((1 << 29) + k, at))
        else {
            continue;
        };
        if let Some(note) = unknown_parts(&mut node, text, range) {
            notes.push(note);
            continue;
        }
        invalid += left_out;
        out.push(node);
    }
    let mut unread = hcl.unread;
    unread.extend(notes);
    Ok((out, invalid, unread, hcl.manifests))
}

#[cfg(test)]
mod tests {
    use crate::config::Options;
    use crate::inventory::{Count, Inventory};

    const GKE: &str = include_str!("../../tests/fixtures/iac/gke.tf");
    const EKS_AKS: &str = include_str!("../../tests/fixtures/iac/eks-aks.tf");

    fn found(text: &str) -> Vec<(&'static str, String, String)> {
        crate::analyse(text, &Options::default())
            .into_iter()
            .map(|d| (d.rule, text[d.range.clone()].to_string(), d.message))
            .collect()
    }

    #[test]
    fn pools_names_taints_labels_counts() {
        let inv = Inventory::load(&[("gke.tf", GKE), ("eks-aks.tf", EKS_AKS)]).unwrap();
        let got: Vec<(String, &str, String, Vec<String>)> = inv
            .pools
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    p.kind(),
                    p.size(),
                    p.taints.iter().map(|t| t.taint.to_string()).collect(),
                )
            })
            .collect();
        // A GKE pool's counts are per zone: the gpu pool's location is a region (three
        // zones), the batch pool's is its cluster's, the same region.
        let want = [
            (
                "gpu-pool",
                "google_container_node_pool",
                "0..12 nodes",
                "nvidia.com/gpu=present:NoSchedule",
            ),
            (
                "\"${var.prefix}-batch\"",
                "google_container_node_pool",
                "9 nodes",
                "dedicated=batch:NoExecute",
            ),
            (
                "system",
                "aws_eks_node_group",
                "1..3 nodes",
                "CriticalAddonsOnly=true:NoSchedule",
            ),
            (
                "spot",
                "eks_managed_node_group",
                "0..10 nodes",
                "example.com/spot=true:NoSchedule",
            ),
            (
                "system#2",
                "azurerm_kubernetes_cluster",
                "1 node",
                "CriticalAddonsOnly=true:NoSchedule",
            ),
            (
                "spot#2",
                "azurerm_kubernetes_cluster_node_pool",
                "0..5 nodes",
                "kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
            ),
        ];
        let want: Vec<(String, &str, String, Vec<String>)> = want
            .iter()
            .map(|(n, k, s, t)| (n.to_string(), *k, s.to_string(), vec![t.to_string()]))
            .collect();
        assert_eq!(got, want);
        // The google cluster with its default pool removed defines no pool of its own.
        let gpu = &inv.pools[0];
        assert_eq!(gpu.label(None, "example.com/accelerator"), Some("nvidia"));
        assert_eq!(
            gpu.label(None, "cloud.google.com/gke-nodepool"),
            Some("gpu-pool")
        );
        // A name that is an expression is kept as written, and no label is guessed from it.
        assert_eq!(
            inv.pools[1].label(None, "cloud.google.com/gke-nodepool"),
            None
        );
        assert_eq!(
            inv.pools[2].label(None, "eks.amazonaws.com/nodegroup"),
            Some("system")
        );
        // Taints point at their place in the HCL text.
        let at = &gpu.taints[0].at.range;
        assert!(
            GKE[at.clone()].starts_with("nvidia.com/gpu"),
            "{}",
            &GKE[at.clone()]
        );
        let aks = &inv.pools[5];
        assert_eq!(
            &EKS_AKS[aks.taints[0].at.range.clone()],
            "\"kubernetes.azure.com/scalesetpriority=spot:NoSchedule\""
        );
        assert_eq!(
            aks.declared.as_ref().unwrap().count,
            Count {
                min: Some(0),
                max: Some(5)
            }
        );
        // The examples lint clean.
        assert_eq!(found(GKE), []);
        assert_eq!(found(EKS_AKS), []);
    }

    /// The Terraform of GoogleCloudPlatform/kubernetes-engine-samples' Ray on GKE, as its
    /// layout goes: a CPU pool, a TPU pool made only when a variable says so (`count = ...`),
    /// a pool of a machine type given by a variable, and a pool switched off with `count = 0`.
    #[test]
    fn tpu_pools_counts_and_machine_types_not_written_out() {
        let text = r#"resource "google_container_node_pool" "cpu_pool" {
  name       = "cpu-pool"
  node_count = 1
  node_config {
    machine_type = "n1-standard-16"
  }
}
resource "google_container_node_pool" "tpu_pool" {
  count      = var.enable_autopilot == false && var.enable_tpu ? 1 : 0
  name       = "tpu-pool"
  node_count = 1
  node_config {
    machine_type = "ct4p-hightpu-4t"
  }
}
resource "google_container_node_pool" "gpu_pool" {
  name       = "gpu-pool"
  node_count = 1
  node_config {
    machine_type = var.gpu_pool_machine_type
  }
}
resource "google_container_node_pool" "off" {
  count      = 0
  name       = "off"
  node_count = 1
}
"#;
        let inv = Inventory::load(&[("main.tf", text)]).unwrap();
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["cpu-pool", "tpu-pool", "gpu-pool"]);
        let pool = |name: &str| inv.pools.iter().find(|p| p.name == name).unwrap();
        let taints = |name: &str| pool(name).taint_texts();
        assert_eq!(taints("tpu-pool"), ["google.com/tpu=present:NoSchedule"]);
        assert!(taints("cpu-pool").is_empty());
        let tpus = |name: &str| pool(name).capacity.offer("google.com/tpu");
        assert_eq!(tpus("tpu-pool"), Some((4, Some(4))));
        assert_eq!(tpus("cpu-pool"), Some((0, Some(0))));
        assert_eq!(
            pool("tpu-pool").label(None, "cloud.google.com/gke-tpu-accelerator"),
            Some("tpu-v4-podslice")
        );
        // Made or not by an expression: it may have no node, and that is said.
        // (One node a zone, in one to three zones of a location not written.)
        assert_eq!(pool("cpu-pool").size(), "1..3 nodes");
        assert_eq!(pool("tpu-pool").size(), "0..3 nodes");
        assert!(
            inv.files[0].unread.iter().any(|u| u.message.contains(
                "google_container_node_pool.tpu_pool is made only when its `count = \
                 var.enable_autopilot == false && var.enable_tpu ? 1 : 0` is not 0"
            )),
            "{:?}",
            inv.files[0].unread
        );
        // A machine type given by a variable is not GKE's default e2-medium: unknown.
        assert_eq!(
            pool("gpu-pool").label(None, "node.kubernetes.io/instance-type"),
            None
        );
        assert_eq!(pool("gpu-pool").capacity.offer("nvidia.com/gpu"), None);
        assert_eq!(
            pool("cpu-pool").label(None, "node.kubernetes.io/instance-type"),
            Some("n1-standard-16")
        );
    }

    /// The GKE module's node pool counts: the module's defaults where a field is not written
    /// (1 to 100 nodes a zone), unknown where it is an expression (qdrant's sample on GKE,
    /// `max_count = var.max_nodes`, was counted as the default 100 a zone).
    #[test]
    fn module_counts_written_as_expressions_are_unknown() {
        let text = r#"module "gke" {
  source     = "terraform-google-modules/kubernetes-engine/google"
  name       = "qdrant"
  zones      = ["europe-west1-b"]
  node_pools = [
    { name = "defaults" },
    { name = "sized", min_count = var.min_nodes, max_count = var.max_nodes },
  ]
}
"#;
        let inv = Inventory::load(&[("main.tf", text)]).unwrap();
        let pool = |name: &str| inv.pools.iter().find(|p| p.name == name).unwrap();
        assert_eq!(pool("defaults").size(), "1..100 nodes");
        assert_eq!(pool("sized").size(), "count unknown");
    }

    #[test]
    fn taint_errors_at_their_characters() {
        let text = GKE
            .replace("\"nvidia.com/gpu\"", "\"nvidia.com/gpu/x\"")
            .replace("\"NO_EXECUTE\"", "\"NoExecute\"");
        assert_eq!(
            found(&text)
                .iter()
                .map(|(r, t, _)| (*r, t.as_str()))
                .collect::<Vec<_>>(),
            [
                ("invalid-key", "nvidia.com/gpu/x"),
                ("unknown-effect", "NoExecute")
            ]
        );
        let (_, _, message) = &found(&text)[1];
        assert_eq!(
            message,
            "unknown effect `NoExecute` for the google provider; did you mean `NO_EXECUTE`? \
             (it expects `NO_SCHEDULE`, `PREFER_NO_SCHEDULE`, `NO_EXECUTE`)"
        );
        let fixed = crate::analyse(&text, &Options::default())[1].fixes[0].apply(&text);
        assert!(fixed.contains("effect = \"NO_EXECUTE\""), "{fixed}");
        // Inside `key=value:Effect` strings (AKS node_taints).
        let text = EKS_AKS.replace("spot:NoSchedule\"]", "spot:NoSchedul\"]");
        let got = found(&text);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(
            (got[0].0, got[0].1.as_str()),
            ("unknown-effect", "NoSchedul")
        );
        let d = &crate::analyse(&text, &Options::default())[0];
        let line_col = crate::position::LineIndex::new(&text).line_col(
            &text,
            d.range.start,
            crate::position::Encoding::Utf32,
        );
        assert_eq!((line_col.line + 1, line_col.col + 1), (76, 62));
        assert_eq!(
            d.fixes[0].apply(&text).lines().nth(75),
            Some("  node_taints = [\"kubernetes.azure.com/scalesetpriority=spot:NoSchedule\"]")
        );
    }

    #[test]
    fn not_literals_are_never_guessed() {
        let text = "resource \"aws_eks_node_group\" \"x\" {\n  node_group_name = var.name\n  scaling_config {\n    desired_size = var.n\n  }\n  taint {\n    key    = var.key\n    effect = \"NO_SCHEDULE\"\n  }\n}\n";
        let inv = Inventory::load(&[("x.tf", text)]).unwrap();
        let pool = &inv.pools[0];
        assert_eq!(pool.name, "var.name");
        assert_eq!(pool.size(), "count unknown");
        assert!(pool.taints.is_empty());
        assert_eq!(inv.files[0].invalid_taints, 1);
        assert_eq!(found(text), []);
    }

    #[test]
    fn broken_hcl_is_a_syntax_error_not_yaml() {
        let text = "resource \"google_container_node_pool\" \"x\" {\n  name =\n}\n";
        let got = crate::analyse(text, &Options::default());
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].rule, "hcl-syntax");
        let e = Inventory::load(&[("x.tf", text)]).unwrap_err();
        assert!(
            e[0].to_string().starts_with("x.tf:2:9: not valid HCL"),
            "{}",
            e[0]
        );
        // Terraform without node pools lints clean and is not an inventory.
        assert_eq!(
            crate::analyse("variable \"x\" {}\n", &Options::default()),
            []
        );
        assert!(Inventory::load(&[("v.tf", "variable \"x\" {}\n")]).is_err());
    }
}

#[cfg(test)]
mod huawei_tests {
    use crate::config::Options;
    use crate::inventory::Inventory;

    // Adapted from huaweicloud/terraform-provider-huaweicloud docs/resources/cce_node_pool.md.
    const CCE: &str = r#"resource "huaweicloud_cce_node_pool" "node_pool" {
  cluster_id         = huaweicloud_cce_cluster.cluster.id
  name               = "testpool"
  os                 = "EulerOS 2.9"
  initial_node_count = 2
  flavor_id          = "s3.large.4"
  min_node_count     = 0
  max_node_count     = 10
  labels = {
    pool = "test"
  }
  taints {
    key    = "dedicated"
    value  = "test"
    effect = "NoSchedule"
  }
}
"#;

    #[test]
    fn cce_node_pools_use_kubernetes_effects() {
        let inv = Inventory::load(&[("cce.tf", CCE)]).unwrap();
        let pool = &inv.pools[0];
        assert_eq!(
            (pool.name.as_str(), pool.kind(), pool.size().as_str()),
            ("testpool", "huaweicloud_cce_node_pool", "0..10 nodes")
        );
        assert_eq!(
            pool.taints[0].taint.to_string(),
            "dedicated=test:NoSchedule"
        );
        assert_eq!(pool.label(None, "pool"), Some("test"));
        assert_eq!(crate::analyse(CCE, &Options::default()), []);
        // The provider does not check the effect (no ValidateFunc); the rules do.
        let text = CCE.replace("\"NoSchedule\"", "\"NO_SCHEDULE\"");
        let found = crate::analyse(&text, &Options::default());
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].rule, &text[found[0].range.clone()]),
            ("unknown-effect", "NO_SCHEDULE")
        );
    }
}

#[cfg(test)]
mod capacity_tests {
    use crate::inventory::Inventory;

    // After the aws_eks_node_group and google_container_node_pool examples of the Terraform
    // AWS and Google providers' docs, and terraform-aws-modules/eks' GPU node group example.
    #[test]
    fn instance_types_and_accelerators_say_what_nodes_offer() {
        let text = r#"
resource "aws_eks_node_group" "gpu" {
  cluster_name    = "main"
  node_group_name = "gpu"
  instance_types  = ["g5.2xlarge", "g5.4xlarge"]
  scaling_config {
    desired_size = 1
    max_size     = 4
    min_size     = 0
  }
}

resource "aws_eks_node_group" "templated" {
  cluster_name    = "main"
  node_group_name = "templated"
  instance_types  = [var.instance_type]
}

module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = {
    general = {
      instance_types = ["m6i.large"]
      min_size       = 1
      max_size       = 3
    }
  }
}

resource "google_container_node_pool" "a100" {
  name    = "a100"
  cluster = "main"
  node_config {
    machine_type = "a2-highgpu-2g"
    guest_accelerator {
      type  = "nvidia-tesla-a100"
      count = 2
    }
  }
}
"#;
        let inv = Inventory::load(&[("main.tf", text)]).unwrap();
        let offer = |pool: &str, resource: &str| {
            inv.pools
                .iter()
                .find(|p| p.name == pool)
                .unwrap_or_else(|| panic!("no pool {pool}"))
                .capacity
                .offer(resource)
        };
        // g5.2xlarge 7910m to g5.4xlarge 15890m (the instance type table), one GPU each.
        assert_eq!(offer("gpu", "cpu"), Some((7910, Some(15890))));
        assert_eq!(offer("gpu", "nvidia.com/gpu"), Some((1, Some(1))));
        assert_eq!(offer("templated", "cpu"), None);
        assert_eq!(offer("general", "cpu"), Some((1930, Some(1930))));
        assert_eq!(offer("general", "nvidia.com/gpu"), Some((0, Some(0))));
        assert_eq!(offer("a100", "nvidia.com/gpu"), Some((2, Some(2))));
        assert_eq!(offer("a100", "cpu"), None);
    }

    // After aws-samples/karpenter-blueprints' cluster/terraform (a managed node group beside the
    // default NodePool applied with `kubectl_manifest`) and the hashicorp/kubernetes provider's
    // `kubernetes_manifest` docs.
    /// The karpenter-resources chart's values, as aws-ia/eks-data-addons'
    /// `karpenter_resources_helm_config` installs them (after awslabs/ai-on-eks'
    /// infra/base/terraform/addons.tf), are the NodePools the chart renders: labelled
    /// `NodeGroupType` with their name, their taints where they are written, whatever else the
    /// heredoc interpolates.
    #[test]
    fn karpenter_resources_chart_values_are_nodepools() {
        let text = r#"module "data_addons" {
  source  = "aws-ia/eks-data-addons/aws"
  enable_karpenter_resources = true
  karpenter_resources_helm_config = {
    g5-gpu-karpenter = {
      values = [
        <<-EOT
      name: g5-gpu-karpenter
      clusterName: ${module.eks.cluster_name}
      ec2NodeClass:
        blockDeviceMappings:
          - deviceName: /dev/xvdb
            ebs:
              volumeSize: 300Gi
              ${var.snapshot_id != null ? "snapshotID: ${var.snapshot_id}" : ""}
      nodePool:
        labels:
          - instanceType: g5-gpu-karpenter
          - gpuType: a10g
        taints:
          - key: nvidia.com/gpu
            value: "Exists"
            effect: "NoSchedule"
        requirements:
          - key: "karpenter.k8s.aws/instance-family"
            operator: In
            values: ["g5"]
        limits:
          cpu: 1000
      EOT
      ]
    }
    off = {
      values = [
        <<-EOT
      name: off
      nodePool:
        enabled: false
      EOT
      ]
    }
    team = {
      values = [
        <<-EOT
      name: team
      nodePool:
        taints:
          - key: ${var.team_key}
            effect: NoSchedule
      EOT
      ]
    }
  }
}
"#;
        assert!(super::defines_pools(text));
        let inv = Inventory::load(&[("addons.tf", text)]).unwrap();
        let names: Vec<&str> = inv.pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["g5-gpu-karpenter"]);
        let pool = &inv.pools[0];
        let label = |k: &str| crate::inventory::find_label(&pool.labels, k);
        assert_eq!(label("NodeGroupType"), Some("g5-gpu-karpenter"));
        assert_eq!(label("NodePool"), Some("g5-gpu-karpenter"));
        assert_eq!(label("gpuType"), Some("a10g"));
        assert_eq!(pool.taint_texts(), ["nvidia.com/gpu=Exists:NoSchedule"]);
        let at = &text[pool.taints[0].at.range.clone()];
        assert!(at.starts_with("key: nvidia.com/gpu"), "{at:?}");
        // A g5 has at least one NVIDIA GPU.
        let gpus = pool
            .declared
            .as_ref()
            .unwrap()
            .capacity
            .offer("nvidia.com/gpu");
        assert!(gpus.is_some_and(|(min, _)| min >= 1), "{gpus:?}");
        let said: Vec<&str> = inv.files[0]
            .unread
            .iter()
            .map(|u| u.message.as_str())
            .collect();
        assert_eq!(
            said,
            [
                "pool `team` is written with Terraform expressions (`${...}`), which taintlint \
              does not evaluate: its nodes are not read"
            ]
        );
    }

    /// A heredoc's interpolations are read as unknown values: one that writes a line of its
    /// own is no line, another keeps its marks.
    #[test]
    fn interpolations_do_not_break_the_yaml_of_a_heredoc() {
        let text =
            "a: 1\n  ${x ? \"k: v\" : \"\"}\nb: ${var.b}-node\n%{ if x ~}\nc: y\n%{ endif ~}\n";
        let yaml = super::manifest_text(text, &(0..text.len())).unwrap();
        assert_eq!(yaml.len(), text.len());
        let blank = |n: usize| " ".repeat(n);
        assert_eq!(
            yaml,
            format!(
                "a: 1\n{}\nb: ${{_____}}-node\n{}\nc: y\n{}\n",
                blank(20),
                blank(10),
                blank(11)
            )
        );
        assert!(crate::syntax::parse(&yaml).documents[0].error.is_none());
    }

    /// Terraform's escapes (`$${`, `%%{`) are literal text, not expressions.
    #[test]
    fn escaped_interpolations_are_no_expressions() {
        let text = b"a: $${HOME} ${var.b} %%{ if x }";
        let found: Vec<&[u8]> = (super::expressions(text).into_iter())
            .map(|r| &text[r])
            .collect();
        assert_eq!(found, [&b"${var.b}"[..]]);
    }

    #[test]
    fn an_expression_is_placed_by_the_keys_that_lead_to_it() {
        let text = "spec:\n  template:\n    metadata:\n      labels: ${var.labels}\n    spec:\n      \
                    taints:\n        ${indent(8, yamlencode(var.taints))}\n      requirements:\n        \
                    - key: zone\n          values: [\"${var.zone}\"]\n  limits:\n    cpu: ${var.cpu}m\n";
        let sites = super::expression_sites(text, &(0..text.len()));
        let site = |path: &str, whole: bool| super::Site {
            path: path.split('.').map(str::to_string).collect(),
            whole,
        };
        assert_eq!(
            sites,
            [
                site("spec.template.metadata.labels", true),
                site("spec.template.spec.taints", true),
                site("spec.template.spec.requirements.-.values", false),
                site("spec.limits.cpu", false),
            ]
        );
    }

    /// What a pool written with expressions is read as: the labels they write may be on its
    /// nodes with any value; taints or requirements written so make it unread, wherever the
    /// expression stands (inside a value, as the value, or on a line of its own).
    #[test]
    fn a_pool_is_read_as_far_as_its_expressions_allow() {
        let pool = |labels: &str, taints: &str| {
            format!(
                "resource \"kubectl_manifest\" \"np\" {{\n  yaml_body = <<-YAML\n    \
                 apiVersion: karpenter.sh/v1\n    kind: NodePool\n    metadata:\n      \
                 name: gpu\n      labels:\n        app: ${{var.app}}\n    spec:\n      \
                 template:\n        metadata:\n          labels:{labels}\n        spec:\n          \
                 taints:{taints}\n          requirements:\n            - key: kubernetes.io/arch\n              \
                 operator: In\n              values: [amd64]\n  YAML\n}}\n"
            )
        };
        let read = |labels: &str, taints: &str| {
            let text = pool(labels, taints);
            // A file whose only pool is unread holds none: an error that says why.
            let inv = match Inventory::load(&[("main.tf", text.as_str())]) {
                Ok(inv) => inv,
                Err(e) => return (None, None, e.iter().map(|e| e.message.clone()).collect()),
            };
            let said: Vec<String> = inv.files[0]
                .unread
                .iter()
                .map(|u| u.message.clone())
                .collect();
            let open =
                (inv.pools.first()).map(|p| p.declared.as_ref().unwrap().open_labels.clone());
            (open, inv.pools.first().map(|p| p.labels.clone()), said)
        };
        let literal = "\n            - key: a\n              effect: NoSchedule";
        use crate::inventory::OpenLabels;
        // A label's value: that label may be there, with any value; the object's own labels
        // are not its nodes'.
        let (open, labels, said) = read("\n            team: ${var.team}", literal);
        assert_eq!(
            open,
            Some(OpenLabels::Keys(vec!["team".into()])),
            "{said:?}"
        );
        let labels = labels.unwrap();
        assert_eq!(crate::inventory::find_label(&labels, "team"), None);
        assert_eq!(crate::inventory::find_label(&labels, "app"), None);
        // The labels as a whole, on their key's line or on a line of their own: any label.
        for labels in [
            " ${jsonencode(var.labels)}",
            "\n            ${yamlencode(var.labels)}",
        ] {
            let (open, _, said) = read(labels, literal);
            assert_eq!(open, Some(OpenLabels::All), "{labels:?}: {said:?}");
        }
        // Taints written by an expression, in any of the three ways: the pool is not read.
        for taints in [
            " ${jsonencode(var.taints)}",
            "\n            ${indent(12, yamlencode(var.taints))}",
            "\n            - key: ${var.key}\n              effect: NoSchedule",
        ] {
            let (open, _, said) = read(" {}", taints);
            assert_eq!(open, None, "{taints:?}");
            assert!(
                said.iter()
                    .any(|m| m.contains("pool `gpu` is written with Terraform")),
                "{taints:?}: {said:?}"
            );
        }
        // Literal ones: read, nothing open.
        let (open, _, said) = read(" {}", literal);
        assert_eq!(open, Some(OpenLabels::None), "{said:?}");
    }

    #[test]
    fn pools_applied_as_manifests_are_read_where_they_are_written() {
        let text = r#"module "eks" {
  source = "terraform-aws-modules/eks/aws"
  eks_managed_node_groups = {
    mng = {
      instance_types = ["m4.large", "m5.large", "t3.large"]
      labels = { "karpenter.sh/controller" = "true" }
    }
  }
}

resource "kubectl_manifest" "default_node_pool" {
  yaml_body = <<-YAML
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: default
    spec:
      template:
        metadata:
          labels:
            intent: apps
        spec:
          taints:
            - key: example.com/gpu
              effect: NoSchedule
          requirements:
            - key: kubernetes.io/arch
              operator: In
              values: ["amd64", "arm64"]
          nodeClassRef:
            name: ${local.node_class}
            group: karpenter.k8s.aws
            kind: EC2NodeClass
  YAML
}

resource "kubectl_manifest" "node_class" {
  yaml_body = <<-YAML
    apiVersion: karpenter.k8s.aws/v1
    kind: EC2NodeClass
    metadata:
      name: default
    spec:
      role: "${module.karpenter.node_iam_role_name}"
  YAML
}

resource "kubernetes_manifest" "templated" {
  manifest = yamldecode(<<-EOT
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: team
    spec:
      template:
        metadata:
          labels:
            team: ${var.team}
        spec:
          requirements:
            - key: topology.kubernetes.io/zone
              operator: In
              values: ["${var.zone}", "us-east-1b"]
          nodeClassRef:
            name: default
            group: karpenter.k8s.aws
            kind: EC2NodeClass
  EOT
  )
}
"#;
        let Ok(hcl) = super::parse(text) else {
            panic!("the file parses")
        };
        let bodies = hcl.manifests;
        assert_eq!(bodies.len(), 3);
        for body in &bodies {
            assert!(text[body.clone()]
                .trim_start()
                .starts_with("apiVersion: karpenter"));
            assert!(
                text[..body.start].ends_with("YAML\n") || text[..body.start].ends_with("EOT\n")
            );
            assert!(
                text[body.end..].trim_start().starts_with("YAML")
                    || text[body.end..].trim_start().starts_with("EOT")
            );
        }
        // A file that only applies a NodePool defines pools too (an inventory directory takes it).
        assert!(super::defines_pools(
            &text[text.find("resource").unwrap()..]
        ));
        let inv = Inventory::load(&[("main.tf", text)]).unwrap();
        let pool = |name: &str| inv.pools.iter().find(|p| p.name == name);
        // The NodePool, its taint placed at its characters in the Terraform file.
        let default = pool("default").expect("the NodePool applied with kubectl_manifest");
        assert_eq!(
            crate::inventory::find_label(&default.labels, "intent"),
            Some("apps")
        );
        // Its node class is named by an expression: the label Karpenter derives from it is
        // left out, the pool is read.
        let class = crate::inventory::find_label(&default.labels, "karpenter.k8s.aws/ec2nodeclass");
        assert_eq!(class, None);
        let taint = &default.taints[0];
        assert_eq!(taint.taint.key, "example.com/gpu");
        let at = &text[taint.at.range.clone()];
        assert!(at.starts_with("key: example.com/gpu"), "{at:?}");
        // The node group's instance types are all x86: so are its nodes.
        let mng = pool("mng").expect("the managed node group");
        assert_eq!(
            crate::inventory::find_label(&mng.labels, "kubernetes.io/arch"),
            Some("amd64")
        );
        assert!(mng.taints.is_empty());
        // A NodePool whose requirements are Terraform expressions is not read, and said so.
        assert!(pool("team").is_none());
        let said: Vec<&str> = inv.files[0]
            .unread
            .iter()
            .map(|u| u.message.as_str())
            .collect();
        assert!(
            said.iter()
                .any(|m| m.starts_with("pool `team` is written with Terraform expressions")),
            "{said:?}"
        );
        assert_eq!(inv.pools.len(), 2);
    }
}
