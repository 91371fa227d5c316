//! A kustomize directory given as an inventory: what its `kustomization.yaml` lists as
//! resources (kubernetes-sigs/kustomize api/types/kustomization.go `Resources`, and the older
//! `bases`). Its patches (`patches`, `patchesStrategicMerge`, `patchesJson6902`) are partial
//! objects that change those resources: read on their own, each would be a pool of its own. The
//! edge renders the directory with `kubectl kustomize` when it can; else it reads only these.

use crate::k8s::json6902::PatchTarget;
use crate::syntax::{self, Document, NodeId};

/// The names of the kustomization files kustomize looks for in a directory, in its order
/// (api/konfig/general.go `RecognizedKustomizationFileNames`).
pub const KUSTOMIZATION_FILES: &[&str] =
    &["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Whether a path a kustomization names is remote (kustomize fetches it): a URL
/// (`https://.../deploy.yaml`), a git repository (`github.com/org/repo//path?ref=v1`,
/// `git@github.com:org/repo`, `git::https://...`), or a path whose first part is a host name
/// (`example.com/org/repo`). `exists` says whether it names a local file or directory, which a
/// name with a dot in its first part (`config.d/base`) may.
pub fn is_remote(value: &str, exists: bool) -> bool {
    if value.contains("://")
        || value.starts_with("git@")
        || value.starts_with("git::")
        || value.starts_with("github.com/")
        || value.starts_with("gitlab.com/")
        || value.starts_with("bitbucket.org/")
        || value.contains("?ref=")
        || value.contains("?version=")
    {
        return true;
    }
    if exists {
        return false;
    }
    // kustomize tries what is no local path as a repository, when it looks like one.
    let first = value.split('/').next().unwrap_or_default();
    value.contains('/') && first.contains('.') && first != "." && first != ".."
}

/// What a kustomization reads and changes, as written (kubernetes-sigs/kustomize
/// api/types/kustomization.go): the part of it that decides whether, and how, taintlint renders
/// it. Paths are as written, relative to its directory; remote ones are apart.
#[derive(Debug, Default, Clone)]
pub struct Kustomization {
    /// `kind: Component`.
    pub component: bool,
    /// Local `resources` and `bases`: files, or directories with a kustomization.
    pub resources: Vec<String>,
    /// Local `components`.
    pub components: Vec<String>,
    /// Local directories named where kustomize takes a kustomization that makes configurations
    /// (`transformers`, `generators`, `validators`).
    pub plugin_entries: Vec<String>,
    /// Other files it reads: patch files, generator sources (`files`, `envs`, `env`),
    /// `replacements` files, `crds`, `openapi.path`, `configurations`, helm values files.
    pub files: Vec<String>,
    /// Remote paths anywhere kustomize takes a path, in order.
    pub remote: Vec<String>,
    /// The patches' texts: inline ones, as written; files are named in `files` and in
    /// `patch_files`.
    pub inline_patches: Vec<String>,
    /// The patch files among `files`, each with the object its entry's `target` names.
    pub patch_files: Vec<(String, Option<PatchTarget>)>,
    /// Generator literals (`KEY=VALUE`), whose values become a ConfigMap's or Secret's data.
    pub literals: Vec<String>,
    /// Whether it runs plugins (`transformers`, `generators`, `validators`): what they write is
    /// not read here.
    pub plugins: bool,
    /// Its `replacements`: each inline entry's text, as written (files are in
    /// `replacement_files`).
    pub replacements: Vec<String>,
    /// The `replacements` files (also in `files`).
    pub replacement_files: Vec<String>,
    /// Whether it has `vars`, substituted into `$(NAME)` references in its resources.
    pub vars: bool,
    /// Whether it inflates Helm charts (`helmCharts`, `helmChartInflationGenerator`): kustomize
    /// runs helm for those only when asked to (`--enable-helm`), which taintlint never does.
    pub helm: bool,
    /// Whether it names or moves the objects (`namespace`, `namePrefix`, `nameSuffix`).
    pub renames: bool,
}

impl Kustomization {
    /// Reads a kustomization's text. `exists` tells whether a path (relative to its
    /// directory) is a local file or directory, for the paths that could be remote.
    pub fn read(text: &str, exists: &dyn Fn(&str) -> bool) -> Kustomization {
        let stream = syntax::parse(text);
        let mut k = Kustomization::default();
        for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
            let Some(root) = doc.root else { continue };
            if doc.get_str(root, "kind") == Some("Component") {
                k.component = true;
            }
            let strings = |node: NodeId| -> Vec<&str> {
                match doc.sequence(node) {
                    Some(items) => items
                        .iter()
                        .filter_map(|&i| doc.scalar(i).map(|(v, _)| v))
                        .collect(),
                    None => doc.scalar(node).map(|(v, _)| v).into_iter().collect(),
                }
            };
            for &(key, value) in doc.mapping(root).unwrap_or_default() {
                let Some((field, _)) = doc.scalar(key) else {
                    continue;
                };
                match field {
                    "resources" | "bases" => {
                        for v in strings(value) {
                            push_local(v, exists, &mut k.resources, &mut k.remote);
                        }
                    }
                    "components" => {
                        for v in strings(value) {
                            push_local(v, exists, &mut k.components, &mut k.remote);
                        }
                    }
                    "transformers" | "generators" | "validators" => {
                        k.plugins = true;
                        for v in strings(value) {
                            // An entry is a file, a directory, or an inline configuration.
                            if v.contains('\n') {
                                continue;
                            }
                            push_local(v, exists, &mut k.plugin_entries, &mut k.remote);
                        }
                        for &item in doc.sequence(value).unwrap_or_default() {
                            if doc.mapping(item).is_some() {
                                k.inline_patches.push(
                                    text.get(doc.node(item).span.clone())
                                        .unwrap_or_default()
                                        .to_string(),
                                );
                            }
                        }
                    }
                    "replacements" => {
                        for &item in doc.sequence(value).unwrap_or_default() {
                            if let Some(p) = doc.get_str(item, "path") {
                                push_local(p, exists, &mut k.replacement_files, &mut k.remote);
                            } else {
                                k.replacements.push(
                                    text.get(doc.node(item).span.clone())
                                        .unwrap_or_default()
                                        .to_string(),
                                );
                            }
                        }
                    }
                    "vars" => k.vars = true,
                    "configMapGenerator" | "secretGenerator" => {
                        for &item in doc.sequence(value).unwrap_or_default() {
                            for list in ["files", "envs", "env"] {
                                let Some((_, v)) = doc.get(item, list) else {
                                    continue;
                                };
                                for entry in strings(v) {
                                    // `files: [key=path]` names the data key before the path.
                                    let path = match entry.split_once('=') {
                                        Some((_, p)) if list == "files" => p,
                                        _ => entry,
                                    };
                                    push_local(path, exists, &mut k.files, &mut k.remote);
                                }
                            }
                            if let Some((_, v)) = doc.get(item, "literals") {
                                k.literals
                                    .extend(strings(v).into_iter().map(str::to_string));
                            }
                        }
                    }
                    "helmCharts" | "helmChartInflationGenerator" | "helmGlobals" => {
                        k.helm = true;
                        for &item in doc.sequence(value).unwrap_or_default() {
                            for f in ["valuesFile", "chartHome"] {
                                if let Some(p) = doc.get_str(item, f) {
                                    k.files.push(p.to_string());
                                }
                            }
                            for f in doc
                                .get(item, "additionalValuesFiles")
                                .map(|(_, v)| strings(v))
                                .unwrap_or_default()
                            {
                                k.files.push(f.to_string());
                            }
                        }
                    }
                    "crds" | "configurations" => {
                        for v in strings(value) {
                            push_local(v, exists, &mut k.files, &mut k.remote);
                        }
                    }
                    "openapi" => {
                        if let Some(p) = doc.get_str(value, "path") {
                            push_local(p, exists, &mut k.files, &mut k.remote);
                        }
                    }
                    "namespace" | "namePrefix" | "nameSuffix" => k.renames = true,
                    _ => {}
                }
            }
            for entry in patch_entries(doc, root) {
                let Some((value, _)) = doc.scalar(entry.value) else {
                    continue;
                };
                if !entry.is_path {
                    k.inline_patches.push(value.to_string());
                } else if is_remote(value, exists(value)) {
                    k.remote.push(value.to_string());
                } else if !value.is_empty() {
                    let target = entry.target.and_then(|t| PatchTarget::read(doc, t));
                    k.patch_files.push((value.to_string(), target));
                }
            }
        }
        k.files.extend(k.patch_files.iter().map(|(p, _)| p.clone()));
        k.files.extend(k.replacement_files.iter().cloned());
        k
    }
}

/// A path as written: into `remote` when it is remote, else into `out`.
fn push_local(
    v: &str,
    exists: &dyn Fn(&str) -> bool,
    out: &mut Vec<String>,
    remote: &mut Vec<String>,
) {
    if v.is_empty() {
        return;
    }
    if is_remote(v, exists(v)) {
        remote.push(v.to_string());
    } else {
        out.push(v.to_string());
    }
}

/// The patch files a kustomization names only in comments: entries of its patch lists that a
/// script uncomments to turn a part on, after a marker or none (kserve's
/// `config/overlays/version-template/kustomization.yaml`:
/// `#ENABLE_LOCALMODEL - path: localmodelnode_agent_image_patch.yaml`). Such a file is a patch
/// when it is used and deployed by no one when it is not: never a whole object of its own. Only
/// the `- path:` form is read (a commented `- file.yaml` may as well be a resource).
pub fn commented_patch_files(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start();
            let rest = match rest.strip_prefix('-') {
                Some(entry) => entry,
                None => rest
                    .split_once(char::is_whitespace)?
                    .1
                    .trim_start()
                    .strip_prefix('-')?,
            };
            let path = rest.trim_start().strip_prefix("path:")?.trim();
            let path = path.trim_matches(['"', '\'']);
            (!path.is_empty() && !path.contains(char::is_whitespace)).then(|| path.to_string())
        })
        .collect()
}

/// One entry of a kustomization's patch lists (api/types/kustomization.go `Patches`,
/// `PatchesStrategicMerge`, `PatchesJson6902` of kubernetes-sigs/kustomize), as written.
#[derive(Debug, Clone, Copy)]
pub struct PatchEntry {
    /// The key of the string: `path` or `patch` of an item, or the list's key.
    pub key: NodeId,
    /// The string: a patch file's path, or the patch itself.
    pub value: NodeId,
    /// Whether `value` names a file: in `patchesStrategicMerge` a string is a path unless it
    /// holds a line break.
    pub is_path: bool,
    /// The entry's `target` mapping.
    pub target: Option<NodeId>,
}

/// The patch entries of the kustomization whose root mapping is `root`, in the order of its
/// lists: `patchesStrategicMerge`, `patchesJson6902`, `patches`. The one reader of these lists.
pub fn patch_entries(doc: &Document<'_>, root: NodeId) -> Vec<PatchEntry> {
    let mut out = Vec::new();
    for field in ["patchesStrategicMerge", "patchesJson6902", "patches"] {
        if let Some((key, list)) = doc.get(root, field) {
            patch_list(doc, key, list, field == "patchesStrategicMerge", &mut out);
        }
    }
    out
}

/// The entries of the patch list `list` (whose key is `key`): strings (`patchesStrategicMerge`)
/// or items with a `path` or a `patch` string and a `target` (`patches`, `patchesJson6902`,
/// and the lists of the objects that take kustomize patches: a Flux Kustomization's
/// `spec.patches`).
pub fn patch_list(
    doc: &Document<'_>,
    key: NodeId,
    list: NodeId,
    strings: bool,
    out: &mut Vec<PatchEntry>,
) {
    for &item in doc.sequence(list).unwrap_or_default() {
        let (key, value, is_path) = if strings {
            let Some((v, _)) = doc.scalar(item) else {
                continue;
            };
            (key, item, !v.contains('\n'))
        } else if let Some((k, v)) = doc.get(item, "path") {
            (k, v, true)
        } else if let Some((k, v)) = doc.get(item, "patch") {
            (k, v, false)
        } else {
            continue;
        };
        if doc.scalar(value).is_some() {
            let target = (!strings).then(|| doc.get(item, "target")).flatten();
            out.push(PatchEntry {
                key,
                value,
                is_path,
                target: target.map(|(_, t)| t),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Kustomization {
        Kustomization::read(text, &|_| false)
    }

    /// Every patch list is read, in the order kustomize applies them; inline patches apart.
    #[test]
    fn patch_files_with_their_targets() {
        let text = "patches:\n- path: tolerate.yaml\n  target: {kind: Deployment, name: web}\n- path: plain.yaml\n- patch: '[{op: remove, path: /spec/x}]'\npatchesJson6902:\n- target: {group: cluster.x-k8s.io, version: v1beta2, kind: MachineDeployment, name: md-0}\n  path: taints.json\npatchesStrategicMerge:\n- spot.yaml\n- |\n  kind: Deployment\n  metadata: {name: inline}\n";
        let k = read(text);
        let names: Vec<&str> = k.patch_files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            names,
            vec!["spot.yaml", "taints.json", "tolerate.yaml", "plain.yaml"]
        );
        let target = |i: usize| k.patch_files[i].1.as_ref();
        assert_eq!(target(2).unwrap().kind.as_deref(), Some("Deployment"));
        assert!(target(0).is_none() && target(3).is_none());
        assert_eq!(
            target(1).unwrap().api_version().as_deref(),
            Some("cluster.x-k8s.io/v1beta2")
        );
        assert_eq!(k.inline_patches.len(), 2);
        assert!(k.remote.is_empty());
        let remote = read("patches:\n- path: https://example.com/p.yaml\n");
        assert!(remote.patch_files.is_empty());
        assert_eq!(remote.remote, ["https://example.com/p.yaml"]);
        assert!(k.inline_patches[0].starts_with("kind: Deployment"));
        assert!(k.inline_patches[1].starts_with("[{op: remove"));
        assert_eq!(
            k.files,
            ["spot.yaml", "taints.json", "tolerate.yaml", "plain.yaml"]
        );
    }

    #[test]
    fn patch_files_named_in_comments() {
        let text = "patches:\n#ENABLE_KSERVE - path: manager_image_patch.yaml\n# - path: \"quoted.yaml\"\n#  -  path: spaced.yaml\n- path: live.yaml\nresources:\n# - deployment.yaml\n# path: no-entry.yaml\n# see docs - path: two words before.yaml\n";
        assert_eq!(
            commented_patch_files(text),
            ["manager_image_patch.yaml", "quoted.yaml", "spaced.yaml"]
        );
    }

    #[test]
    fn local_resources_in_order() {
        let text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- nodepools.yaml\n- ../base\n- https://github.com/example/repo//deploy?ref=v1\n- github.com/example/repo/deploy\nbases: [old-base]\npatches:\n- path: gpu-patch.yaml\npatchesStrategicMerge: [spot-patch.yaml]\n";
        let k = read(text);
        assert_eq!(k.resources, ["nodepools.yaml", "../base", "old-base"]);
        assert_eq!(k.remote.len(), 2);
        assert!(read("not: [valid").resources.is_empty());
        let k = read("kind: Kustomization\nresources: [../base]\ncomponents: [../../comp]\n");
        assert_eq!(
            (k.resources, k.components),
            (vec!["../base".to_string()], vec!["../../comp".to_string()])
        );
        assert!(!k.component);
        assert!(read("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n").component);
    }
}
