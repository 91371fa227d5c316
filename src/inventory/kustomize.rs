//! A kustomize directory given as an inventory: what its `kustomization.yaml` lists as
//! resources (kubernetes-sigs/kustomize api/types/kustomization.go `Resources`, and the older
//! `bases`). Its patches (`patches`, `patchesStrategicMerge`, `patchesJson6902`) are partial
//! objects that change those resources: read on their own, each would be a pool of its own. The
//! edge renders the directory with `kubectl kustomize` when it can; else it reads only these.

use crate::k8s::json6902::PatchTarget;
use crate::syntax;

/// The names of the kustomization files kustomize looks for in a directory, in its order
/// (api/konfig/general.go `RecognizedKustomizationFileNames`).
pub const KUSTOMIZATION_FILES: &[&str] =
    &["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The local resources a kustomization lists (`resources`, then `bases`), as written: files, or
/// directories with a kustomization of their own. Remote ones (a URL, `github.com/...`) are
/// left out: they are not in the repository.
pub fn resources(text: &str) -> Vec<String> {
    listed(text, &["resources", "bases"])
}

/// The local kustomizations and files a kustomization builds on: its resources and its
/// `components` (api/types/kustomization.go `Components`), as written.
pub fn references(text: &str) -> Vec<String> {
    listed(text, &["resources", "bases", "components"])
}

/// Whether a kustomization file is a `kind: Component` (rendered only through the
/// kustomizations that use it).
pub fn is_component(text: &str) -> bool {
    let stream = syntax::parse(text);
    stream.documents.iter().any(|d| {
        d.root
            .is_some_and(|root| d.get_str(root, "kind") == Some("Component"))
    })
}

fn listed(text: &str, fields: &[&str]) -> Vec<String> {
    let stream = syntax::parse(text);
    let mut out = Vec::new();
    for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
        let Some(root) = doc.root else { continue };
        for &field in fields {
            let Some((_, list)) = doc.get(root, field) else {
                continue;
            };
            for &item in doc.sequence(list).unwrap_or_default() {
                let Some((value, _)) = doc.scalar(item) else {
                    continue;
                };
                let remote = value.contains("://")
                    || value.starts_with("github.com/")
                    || value.starts_with("git@")
                    || value.contains("?ref=");
                if !value.is_empty() && !remote {
                    out.push(value.to_string());
                }
            }
        }
    }
    out
}

/// The patch files a kustomization applies with a `target` (`patches[]` and the older
/// `patchesJson6902[]`, each `path` with its `target`; api/types/patch.go, api/types/patchjson6902.go
/// of kubernetes-sigs/kustomize), as written: a JSON6902 patch file says nothing of the object it
/// patches, its kustomization does.
pub fn patch_targets(text: &str) -> Vec<(String, PatchTarget)> {
    let stream = syntax::parse(text);
    let mut out = Vec::new();
    for doc in stream.documents.iter().filter(|d| d.error.is_none()) {
        let Some(root) = doc.root else { continue };
        for field in ["patches", "patchesJson6902"] {
            let Some((_, list)) = doc.get(root, field) else {
                continue;
            };
            for &item in doc.sequence(list).unwrap_or_default() {
                let (Some(path), Some((_, target))) =
                    (doc.get_str(item, "path"), doc.get(item, "target"))
                else {
                    continue;
                };
                if let Some(target) = PatchTarget::read(doc, target) {
                    out.push((path.to_string(), target));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_files_with_their_targets() {
        let text = "patches:\n- path: tolerate.yaml\n  target: {kind: Deployment, name: web}\n- path: plain.yaml\npatchesJson6902:\n- target: {group: cluster.x-k8s.io, version: v1beta2, kind: MachineDeployment, name: md-0}\n  path: taints.json\n";
        let found = patch_targets(text);
        let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(names, vec!["tolerate.yaml", "taints.json"]);
        assert_eq!(found[0].1.kind.as_deref(), Some("Deployment"));
        assert_eq!(
            found[1].1.api_version().as_deref(),
            Some("cluster.x-k8s.io/v1beta2")
        );
    }

    #[test]
    fn local_resources_in_order() {
        let text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- nodepools.yaml\n- ../base\n- https://github.com/example/repo//deploy?ref=v1\n- github.com/example/repo/deploy\nbases: [old-base]\npatches:\n- path: gpu-patch.yaml\npatchesStrategicMerge: [spot-patch.yaml]\n";
        assert_eq!(
            resources(text),
            vec!["nodepools.yaml", "../base", "old-base"]
        );
        assert!(resources("not: [valid").is_empty());
        let text = "kind: Kustomization\nresources: [../base]\ncomponents: [../../comp]\n";
        assert_eq!(references(text), vec!["../base", "../../comp"]);
        assert!(!is_component(text));
        assert!(is_component(
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
        ));
    }
}
