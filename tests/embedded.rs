//! YAML held in strings (Argo CD `helm.values`, kustomize inline patches, values ConfigMaps)
//! and JSON6902 patches, reported at their characters in the outer file.

mod common;

use taintlint::analysis::{check_streamed, reads_inventory, simulate, Ask};
use taintlint::diagnostic::Diagnostic;
use taintlint::fix::{fix_all, FixMode};
use taintlint::Options;

fn fixture(name: &str) -> String {
    common::fixture(&format!("tests/fixtures/embedded/{name}"))
}

/// The 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    (
        text[..offset].matches('\n').count() + 1,
        text[line_start..offset].chars().count() + 1,
    )
}

/// The one finding of `rule`.
fn one<'d>(found: &'d [Diagnostic], rule: &str) -> &'d Diagnostic {
    let of: Vec<&Diagnostic> = found.iter().filter(|d| d.rule == rule).collect();
    assert_eq!(of.len(), 1, "{rule}: {found:#?}");
    of[0]
}

fn rules(found: &[Diagnostic]) -> Vec<&str> {
    found.iter().map(|d| d.rule).collect()
}

#[test]
fn argo_helm_values_in_a_block_string_at_the_bad_field() {
    let text = fixture("argo-application.yaml");
    let found = common::lint(&text);
    let d = one(&found, "unknown-operator");
    assert_eq!(&text[d.range.clone()], "Equals");
    assert_eq!(line_col(&text, d.range.start), (21, 25));
    assert_eq!(d.document, Some(0));
    // The path inside the values; the object is the Application that holds them.
    assert_eq!(d.path.as_deref(), Some("worker.tolerations[0].operator"));
    let object = d.object.as_ref().unwrap();
    assert_eq!(object.kind.as_deref(), Some("Application"));
    assert_eq!(object.name.as_deref(), Some("ledger"));
}

#[test]
fn argo_helm_values_in_a_quoted_string_through_its_escapes() {
    let text = fixture("argo-application.yaml");
    let found = common::lint(&text);
    let d = one(&found, "unknown-effect");
    assert_eq!(&text[d.range.clone()], "NoSchedul");
    // After `\"spot\"`: columns count the source's characters, escapes included.
    let line = text.lines().nth(37).unwrap();
    let column = line.find("NoSchedul").unwrap() + 1;
    assert_eq!(line_col(&text, d.range.start), (38, column));
    assert_eq!(d.document, Some(1));
    // Its fix edits inside the string.
    let fixed = d.fixes[0].apply(&text);
    assert!(
        fixed.contains(
            r#"values: "tolerations: [{key: \"spot\", operator: Exists, effect: NoSchedule}]""#
        ),
        "{fixed}"
    );
    assert!(!rules(&common::lint(&fixed)).contains(&"unknown-effect"));
}

#[test]
fn argo_sources_block_fix_keeps_the_block_indentation_and_relints_clean() {
    let text = fixture("argo-application.yaml");
    let found = common::lint(&text);
    let d = one(&found, "exists-with-value");
    assert_eq!(&text[d.range.clone()], "\"true\"");
    assert_eq!(line_col(&text, d.range.start).0, 46);
    assert_eq!(
        d.object.as_ref().unwrap().name.as_deref(),
        Some("ledger-multi")
    );
    let fixed = fix_all(&text, &Options::default(), FixMode::Unsafe).text;
    // The `value` line is gone; the block's other lines keep their indentation.
    assert!(
        fixed.contains(
            "        values: |-\n          tolerations:\n          - key: gpu\n            operator: Exists\n          - key: ok\n            operator: Exists\n  destination:"
        ),
        "{fixed}"
    );
    // What had a fix is fixed (`Equals` has none: which operator was meant is not known), and
    // a second pass changes nothing.
    assert_eq!(rules(&common::lint(&fixed)), vec!["unknown-operator"]);
    assert_eq!(
        fix_all(&fixed, &Options::default(), FixMode::Unsafe).text,
        fixed
    );
}

#[test]
fn kustomization_inline_patches() {
    let text = fixture("kustomization.yaml");
    let found = common::lint(&text);
    assert_eq!(
        rules(&found),
        vec![
            "unknown-operator",
            "equal-empty-value",
            "unknown-effect",
            "unknown-effect",
            "nonpositive-toleration-seconds"
        ],
        "{found:#?}"
    );
    // An inline JSON6902 patch: the value is the toleration it appends, named in the patched
    // object, which the target names.
    let op = &found[0];
    assert_eq!(&text[op.range.clone()], "Exist");
    assert_eq!(line_col(&text, op.range.start), (15, 21));
    assert_eq!(
        op.path.as_deref(),
        Some("spec.template.spec.tolerations[-].operator")
    );
    assert!(op
        .server_message
        .as_deref()
        .unwrap()
        .starts_with("spec.template.spec.tolerations[-].operator: Unsupported value: \"Exist\""));
    assert_eq!(
        op.object.as_ref().unwrap().kind.as_deref(),
        Some("Deployment")
    );
    assert_eq!(
        op.object.as_ref().unwrap().name.as_deref(),
        Some("checkout")
    );
    // An inline strategic-merge patch is a partial manifest.
    let smp = &found[2];
    assert_eq!(line_col(&text, smp.range.start), (28, 25));
    assert_eq!(
        smp.path.as_deref(),
        Some("spec.template.spec.tolerations[0].effect")
    );
    // A Cluster API machine taint (its target says so): `propagation` is a field of it.
    let taint = &found[3];
    assert_eq!(line_col(&text, taint.range.start), (40, 21));
    assert_eq!(
        taint.path.as_deref(),
        Some("spec.template.spec.taints[0].effect")
    );
    assert_eq!(
        taint.object.as_ref().unwrap().kind.as_deref(),
        Some("MachineDeployment")
    );
    // A `patchesStrategicMerge` string; a DaemonSet may tolerate everything.
    let seconds = &found[4];
    assert_eq!(&text[seconds.range.clone()], "0");
    assert_eq!(line_col(&text, seconds.range.start).0, 53);
}

#[test]
fn a_json6902_taint_without_a_target_is_a_node_taint() {
    let text = "- op: add\n  path: /spec/taints/-\n  value: {key: gpu, effect: NoSchedule, propagation: Always}\n";
    let found = common::lint(text);
    let d = one(&found, "unknown-field");
    assert_eq!(&text[d.range.clone()], "propagation");
    assert_eq!(d.path.as_deref(), Some("spec.taints[-].propagation"));
    // Other operations and fields are not read as a list.
    let other = "- op: remove\n  path: /spec/taints/0\n- op: add\n  path: /spec/taints/0/effect\n  value: NoSchedul\n- op: test\n  path: /spec/tolerations\n  value: [{operator: Foo}]\n";
    assert_eq!(common::lint(other), Vec::new());
}

#[test]
fn values_configmaps_and_secret_string_data() {
    let text = fixture("values-configmap.yaml");
    let found = common::lint(&text);
    assert_eq!(
        rules(&found),
        vec!["unknown-effect", "exists-with-value"],
        "{found:#?}"
    );
    assert_eq!(&text[found[0].range.clone()], "NoSchedulee");
    assert_eq!(line_col(&text, found[0].range.start), (30, 19));
    assert_eq!(found[0].document, Some(1));
    assert_eq!(
        found[0].object.as_ref().unwrap().kind.as_deref(),
        Some("ConfigMap")
    );
    assert_eq!(found[1].document, Some(2));
    assert_eq!(line_col(&text, found[1].range.start).0, 45);
    // The Secret's values look like a workload (tolerations beside a nodeSelector): the
    // finding still names the object that holds them, not an object of no kind and no name.
    let object = found[1].object.as_ref().unwrap();
    assert_eq!(
        (
            object.kind.as_deref(),
            object.name.as_deref(),
            object.namespace.as_deref()
        ),
        (Some("Secret"), Some("search-secret-values"), Some("search"))
    );
}

#[test]
fn patch_files_named_by_a_kustomization_are_read_with_its_target() {
    let run = common::run(
        &[
            "lint",
            "--format",
            "json",
            "tests/fixtures/embedded/patch-files",
        ],
        None,
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let found: Vec<(String, String, String, String, u64)> = out["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                d["rule"].as_str().unwrap().to_string(),
                d["path"].as_str().unwrap().to_string(),
                d["object"]["kind"].as_str().unwrap_or_default().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let owned = |f: &str, r: &str, p: &str, k: &str, l: u64| {
        (
            f.to_string(),
            r.to_string(),
            p.to_string(),
            k.to_string(),
            l,
        )
    };
    assert_eq!(
        found,
        vec![
            owned(
                "gpu-taints.json",
                "invalid-key",
                "spec.template.spec.taints[1].key",
                "MachineDeployment",
                4
            ),
            owned(
                "tolerate-spot.yaml",
                "exists-with-value",
                "spec.template.spec.tolerations[2].value",
                "Deployment",
                6
            ),
        ]
    );
    // Without its kustomization, the JSON file's taints are read as a Node's: `propagation` is
    // then unknown.
    let alone = common::lint(&fixture("patch-files/gpu-taints.json"));
    assert_eq!(
        rules(&alone),
        vec!["unknown-field", "invalid-key", "unknown-field"]
    );
}

/// A strategic-merge patch (a file a kustomization names in `patches` or
/// `patchesStrategicMerge`, or an inline `patch`) says only what it changes of its target: read
/// as it is written (rendering off, as the editor reads files), its tolerations are checked, but
/// it is no workload of its own to place. The build before judged each as a whole object: the
/// agent's image patch "missed" the tainted pools, the trainer's node selector patch and the
/// inline one "fit no node", and lint counted five pod templates for the overlay's two.
#[test]
fn strategic_merge_patches_are_checked_but_not_placed_alone() {
    let dir = "tests/fixtures/embedded/merge-patches";
    let inventory = "examples/inventory/pools.yaml";
    let args = [
        "--kustomize",
        "off",
        "--format",
        "json",
        "--inventory",
        inventory,
        dir,
    ];
    let run = common::run(&[&["lint"][..], &args].concat(), None);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let found: Vec<(String, &str, u64)> = out["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            (
                file.strip_prefix(dir).unwrap_or(file).to_string(),
                d["rule"].as_str().unwrap(),
                d["range"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            (
                "/base/agent.yaml".to_string(),
                "toleration-does-not-attract",
                34
            ),
            (
                "/gpu/trainer-spot.yaml".to_string(),
                "exists-with-value",
                12
            ),
        ]
    );
    assert!(
        run.stderr.contains("judged 2 pod templates"),
        "{}",
        run.stderr
    );
    // simulate places the base's two workloads and says why the patches are not simulated.
    let run = common::run(&[&["simulate"][..], &args].concat(), None);
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let placed: Vec<&str> = out["workloads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["file"].as_str().unwrap())
        .collect();
    assert_eq!(placed, vec![format!("{dir}/base/agent.yaml"); 2], "{out:#}");
    for patch in [
        "agent-image.yaml",
        "trainer-on-gpus.yaml",
        "trainer-spot.yaml",
    ] {
        assert!(
            run.stderr.contains(&format!(
                "a strategic-merge patch a kustomization applies to another object: its pods \
                 are that object's, as the overlay renders it ({dir}/gpu/{patch})"
            )),
            "{patch}: {}",
            run.stderr
        );
    }
    // A patch its kustomization names only in a comment, for a script to turn on, is a patch
    // too: not a DaemonSet of its own that misses the control plane.
    assert!(
        run.stderr.contains(&format!(
            "its pods are that object's, as the overlay renders it ({dir}/version-template/agent-version.yaml)"
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn odd_strings_never_panic_and_are_not_errors_of_the_outer_file() {
    let head = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  source:\n    helm:\n      values: ";
    for values in [
        "\"\\ttolerations:\\n  - {operator: Foo}\"",
        "\"tolerations: [{key: \\u00e9t\\u00e9, operator: Foo}]\"",
        "'tolerations: [{key: ''a'', operator: Foo}]'",
        "|\n        tolerations:\n        \t- bad\n",
        "|\r\n        tolerations:\r\n          - {operator: Foo}\r\n",
        ">\n        tolerations:\n          - {operator: Foo}\n",
        "|2\n          tolerations: [{operator: Foo}]\n",
        "\"{{ .Values.x }}: [\"",
        "\"tolérations: [ünïcödé 🚀 \\\"\"",
        "|\n        a: b: c\n",
        "\"\"",
        "\"\\\\\"",
        "!!binary aGVsbG8=",
    ] {
        let text = format!("{head}{values}\n");
        let found = common::lint(&text);
        for d in &found {
            assert!(
                !["yaml-syntax", "not-a-manifest", "helm-template"].contains(&d.rule),
                "{text}\n{found:#?}"
            );
            assert!(d.range.end <= text.len() && text.is_char_boundary(d.range.start));
            for f in &d.fixes {
                let _ = f.apply(&text);
            }
        }
    }
    // A folded string is read, and its findings point at its key, without fixes.
    let text = format!("{head}>\n        tolerations: [{{operator: Foo}}]\n");
    let found = common::lint(&text);
    let d = one(&found, "unknown-operator");
    assert_eq!(&text[d.range.clone()], "values");
    assert!(d.fixes.is_empty());
    // A CRLF file: the block maps line by line.
    let text = format!("{head}|\r\n        tolerations:\r\n          - {{operator: Foo}}\r\n");
    let found = common::lint(&text);
    let d = one(&found, "unknown-operator");
    assert_eq!(&text[d.range.clone()], "Foo");
}

#[test]
fn flux_patches_nested_and_post_renderers() {
    let text = fixture("flux-patches.yaml");
    let found = common::lint(&text);
    assert_eq!(
        rules(&found),
        vec!["unknown-effect", "equal-empty-value"],
        "{found:#?}"
    );
    // A patch inside a patch: two strings deep, still at its character.
    let nested = &found[0];
    assert_eq!(&text[nested.range.clone()], "NoExecut");
    assert_eq!(line_col(&text, nested.range.start), (28, 31));
    assert_eq!(
        nested.path.as_deref(),
        Some("spec.template.spec.tolerations[0].effect")
    );
    assert_eq!(
        nested.object.as_ref().unwrap().kind.as_deref(),
        Some("Deployment")
    );
    // A HelmRelease post-renderer's JSON6902 patch, an item it replaces.
    let post = &found[1];
    assert_eq!(line_col(&text, post.range.start), (55, 47));
    assert_eq!(
        post.path.as_deref(),
        Some("spec.template.spec.tolerations[0].operator")
    );
    assert_eq!(
        post.object.as_ref().unwrap().kind.as_deref(),
        Some("StatefulSet")
    );
    let fixed = fix_all(&text, &Options::default(), FixMode::Unsafe).text;
    assert!(
        fixed.contains(
            "                value: {key: queue, operator: Exists, effect: NoSchedule}\n"
        ),
        "{fixed}"
    );
    assert!(
        fixed.contains("                      effect: NoExecute\n"),
        "{fixed}"
    );
    assert_eq!(common::lint(&fixed), Vec::new());
}

/// Streamed in the smallest batches, a file's findings are those of the whole-file analysis,
/// in the same order.
#[test]
fn streamed_findings_are_the_whole_files() {
    for name in [
        "argo-application.yaml",
        "kustomization.yaml",
        "values-configmap.yaml",
        "flux-patches.yaml",
        "patch-files/gpu-taints.json",
    ] {
        let text = fixture(name);
        let options = Options::default();
        let mut streamed = Vec::new();
        check_streamed(&text, Ask::new(&options, None), 1, &mut |batch| {
            streamed.extend(batch)
        });
        assert_eq!(streamed, taintlint::analyse(&text, &options), "{name}");
    }
}

/// A suppression comment inside the string's YAML silences what it names there; one in the
/// outer file silences those of the entry it covers, inside its string too.
#[test]
fn suppressions_inside_and_outside_the_string() {
    let head = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec:\n  source:\n    helm:\n";
    let inside = format!(
        "{head}      values: |\n        tolerations:\n          # taintlint: disable=unknown-operator -- a custom admission plugin rewrites it\n          - {{key: a, operator: Foo}}\n          - {{key: b, operator: Bar}}\n"
    );
    let found = common::lint(&inside);
    assert_eq!(rules(&found), vec!["unknown-operator"], "{found:#?}");
    assert_eq!(&inside[found[0].range.clone()], "Bar");
    let outside = format!(
        "{head}      # taintlint: disable=unknown-operator\n      values: \"tolerations: [{{key: a, operator: Foo}}]\"\n"
    );
    assert_eq!(common::lint(&outside), Vec::new());
}

/// `lint --fix --unsafe-fixes` writes the fixes inside the strings, and the file then lints
/// clean of what they fixed.
#[test]
fn cli_fix_round_trips_inside_strings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flux-patches.yaml");
    std::fs::write(&path, fixture("flux-patches.yaml")).unwrap();
    let file = path.to_str().unwrap();
    let run = common::run(&["lint", "--fix", "--unsafe-fixes", file], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert!(
        fixed.contains("                      effect: NoExecute\n"),
        "{fixed}"
    );
    let again = common::run(&["lint", "--format", "concise", file], None);
    assert_eq!(
        (again.code, again.stdout.as_str()),
        (0, ""),
        "{}",
        again.stderr
    );
}

/// Strings nested in strings are read four levels deep, and no nesting overflows the stack.
#[test]
fn deep_nesting_is_bounded() {
    let mut text = String::from("tolerations: [{key: a, operator: Foo}]\n");
    for _ in 0..60 {
        let indented: String = text.lines().map(|l| format!("      {l}\n")).collect();
        text =
            format!("tolerations: [{{key: a, operator: Foo}}]\npatches:\n  - patch: |\n{indented}");
    }
    let found = common::lint(&text);
    assert_eq!(rules(&found), vec!["unknown-operator"; 5], "{found:#?}");
}

#[test]
fn argo_workflows_resource_manifests() {
    let text = fixture("workflow-template.yaml");
    let found = common::lint(&text);
    let d = one(&found, "unknown-effect");
    assert_eq!(&text[d.range.clone()], "NoSchedul");
    assert_eq!(line_col(&text, d.range.start), (26, 29));
    assert_eq!(
        d.path.as_deref(),
        Some("spec.template.spec.tolerations[0].effect")
    );
    assert_eq!(d.object.as_ref().unwrap().kind.as_deref(), Some("Job"));
}

/// An edit that reaches the end of a block string (`helm.values: |`, an inline patch `|-` or
/// `|`, `|+` with CRLF, a block that ends the file, a line added inside a block with more after
/// it), under `--fix`, `--fix --unsafe-fixes` and `--diff`: the outer document keeps every key
/// and value, every string still parses, the finding the fix addressed is gone, and `--diff`
/// shows what `--fix` writes.
#[test]
fn fixes_at_a_block_strings_end_keep_every_outer_key() {
    let cases = [
        (
            "argo-values-last-line.yaml",
            "toleration-seconds-requires-no-execute",
        ),
        (
            "argo-values-crlf-keep.yaml",
            "toleration-seconds-requires-no-execute",
        ),
        (
            "argo-values-end-of-file.yaml",
            "toleration-seconds-requires-no-execute",
        ),
        (
            "argo-values-insert.yaml",
            "toleration-seconds-requires-no-execute",
        ),
        ("kustomization-patch-last-line.yaml", "exists-with-value"),
    ];
    for (name, rule) in cases {
        let original = fixture(&format!("block-ends/{name}"));
        let before = common::outer_shape(&original);
        assert!(
            rules(&common::lint(&original)).contains(&rule),
            "{name}: {rule}"
        );
        let found = common::lint(&original);
        for (mode, fix_mode) in [
            (&["--fix"][..], FixMode::Safe),
            (&["--fix", "--unsafe-fixes"], FixMode::Unsafe),
        ] {
            let fixes = found
                .iter()
                .any(|d| d.rule == rule && taintlint::fix::fixable(d, fix_mode));
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(name), &original).unwrap();
            let mut args = vec!["lint", "--kustomize", "off", "-o", "concise"];
            args.extend(mode);
            args.push(name);
            let run = common::run_in(dir.path(), &args, None);
            assert!(run.code <= 1, "{name} {mode:?}: {}", run.stderr);
            let fixed = std::fs::read_to_string(dir.path().join(name)).unwrap();
            assert_eq!(
                common::outer_shape(&fixed),
                before,
                "{name} {mode:?}:\n{fixed}"
            );
            assert_eq!(
                rules(&common::lint(&fixed)).contains(&rule),
                !fixes,
                "{name} {mode:?}:\n{fixed}"
            );
            // --diff shows that change and writes nothing.
            std::fs::write(dir.path().join(name), &original).unwrap();
            let mut args = vec!["lint", "--kustomize", "off", "--diff"];
            args.extend(&mode[1..]);
            args.push(name);
            let diff = common::run_in(dir.path(), &args, None);
            assert_eq!(
                diff.stdout,
                taintlint::fix::unified_diff(name, &original, &fixed),
                "{name} {mode:?}"
            );
            assert_eq!(
                std::fs::read_to_string(dir.path().join(name)).unwrap(),
                original
            );
        }
    }
}

/// The audit's reproduction, byte for byte: the safe fix removes the values' last line and
/// nothing after it.
#[test]
fn the_argo_reproduction_keeps_its_destination() {
    let original = fixture("block-ends/argo-values-last-line.yaml");
    let fixed = taintlint::fix::fix_all(&original, &Options::default(), FixMode::Safe).text;
    assert_eq!(
        fixed,
        original.replace("          tolerationSeconds: 60\n", "")
    );
    // The unsafe alternative adds the effect on a line of its own, inside the block.
    let found = common::lint(&original);
    let d = one(&found, "toleration-seconds-requires-no-execute");
    let set = d
        .fixes
        .iter()
        .find(|f| f.title.contains("NoExecute"))
        .unwrap();
    assert_eq!(
        set.apply(&original),
        original.replace(
            "          tolerationSeconds: 60\n",
            "          tolerationSeconds: 60\n          effect: NoExecute\n"
        )
    );
}

/// A fix that adds a line in the middle of a block, with another item after it: the line is
/// written at the block's indentation (plus the list item's), not at the block's base.
#[test]
fn a_line_added_inside_a_block_takes_the_blocks_indentation() {
    let original = fixture("block-ends/argo-values-insert.yaml");
    let found = common::lint(&original);
    let d = one(&found, "toleration-seconds-requires-no-execute");
    let set = d
        .fixes
        .iter()
        .find(|f| f.title.contains("NoExecute"))
        .unwrap();
    let fixed = set.apply(&original);
    assert!(
        fixed.contains(
            "          tolerationSeconds: 60\n          effect: NoExecute\n        - key: gpu\n"
        ),
        "{fixed}"
    );
    assert_eq!(common::outer_shape(&fixed), common::outer_shape(&original));
    assert!(!rules(&common::lint(&fixed)).contains(&"toleration-seconds-requires-no-execute"));
}

/// Helm values held in a string that do not parse are said, once, where the parser stopped,
/// with the line inside the string; a string that is a template is not judged; the outer file
/// has no error of its own.
#[test]
fn a_values_string_that_does_not_parse_is_a_warning() {
    let text = "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web}
spec:
  source:
    helm:
      values: |
        tolerations:
        - key: spot
          operator: Exists
        - key: gpu
         effect: NoSchedule
  destination: {server: https://kubernetes.default.svc}
";
    let found = common::lint(text);
    let d = one(&found, "embedded-yaml-syntax");
    assert_eq!(d.severity, taintlint::Severity::Warning);
    assert_eq!(line_col(text, d.range.start), (12, 10));
    assert!(
        d.message
            .starts_with("the YAML in this string does not parse: ")
            && d.message.ends_with("(line 5 of the string)"),
        "{}",
        d.message
    );
    assert_eq!(
        d.object.as_ref().and_then(|o| o.name.as_deref()),
        Some("web")
    );
    assert!(!rules(&found).contains(&"yaml-syntax"), "{found:#?}");
    // A template's actions are not YAML until rendered: not judged.
    let template = text.replace(
        "- key: gpu\n",
        "{{- if .Values.gpu }}\n        - key: gpu\n",
    );
    assert!(
        !rules(&common::lint(&template)).contains(&"embedded-yaml-syntax"),
        "{:#?}",
        common::lint(&template)
    );
    // A fix never writes a string that does not parse: the issue's case, a second toleration
    // appended at the string's base indentation, is refused by the check.
    let fixed = fix_all(text, &Options::default(), FixMode::Unsafe);
    assert_eq!(
        rules(&common::lint(&fixed.text))
            .iter()
            .filter(|r| **r == "embedded-yaml-syntax")
            .count(),
        1
    );
}

/// An Argo CD Application's values are one workload however they are written: as a string,
/// simulate reads them as lint does (the same verdict as `valuesObject`), and a string that
/// does not parse is said on simulate's standard error and in its JSON, not dropped.
#[test]
fn argo_values_strings_are_simulated_as_lint_judges_them() {
    let file = "tests/fixtures/embedded/argo-gpu-values.yaml";
    let pools = "tests/fixtures/embedded/gpu-pools.yaml";
    let run = common::run(
        &["simulate", "--format", "json", "--inventory", pools, file],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    let workloads = json["workloads"].as_array().unwrap();
    let named: Vec<(&str, &str)> = workloads
        .iter()
        .map(|w| (w["path"].as_str().unwrap(), w["fits"].as_str().unwrap()))
        .collect();
    assert_eq!(
        named,
        [
            ("spec.source.helm.values|worker", "no"),
            ("spec.source.helm.valuesObject.worker", "no"),
        ]
    );
    // The values string's workload is named by the Application that holds it.
    let string = &workloads[0];
    assert_eq!(
        (&string["kind"], &string["name"], &string["namespace"]),
        (
            &"Application".into(),
            &"infer-string".into(),
            &"argocd".into()
        )
    );
    let unread = json["summary"]["unread"].as_array().unwrap();
    assert_eq!(unread.len(), 1, "{unread:?}");
    assert_eq!(unread[0]["why"], "string-syntax");

    let human = common::run(&["simulate", "--inventory", pools, file], None);
    assert!(
        human
            .stderr
            .contains("1 file with a YAML string that does not parse"),
        "{}",
        human.stderr
    );

    // lint judges the same two workloads, and finds each fits no node.
    let lint = common::run(
        &["lint", "--format", "json", "--inventory", pools, file],
        None,
    );
    assert!(
        lint.stderr.contains("judged 2 pod templates"),
        "{}",
        lint.stderr
    );
    let lint: serde_json::Value = serde_json::from_str(&lint.stdout).unwrap();
    let unschedulable: Vec<u64> = lint["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "unschedulable")
        .map(|d| d["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    let text = common::fixture(file);
    let line_of = |needle: &str, after: usize| {
        text.lines()
            .enumerate()
            .skip(after)
            .find(|(_, l)| l.contains(needle))
            .map(|(i, _)| i as u64 + 1)
            .unwrap()
    };
    // At the tolerations of each, the string's inside it.
    let object = line_of("valuesObject:", 0) as usize;
    let expected = [line_of("tolerations:", 0), line_of("tolerations:", object)];
    assert_eq!(unschedulable, expected);
}

/// A kustomization that says its `kind` (a `Kustomization` or a `Component`, as
/// kubernetes-sigs/kustomize api/types/kustomization.go names them) reads its older inline
/// patches at its root as one without: a `patchesJson6902` patch with its target, and each
/// string of `patchesStrategicMerge`. Another group's `Kustomization` (Flux's) has no such
/// fields: strings of those names at its root are not read.
#[test]
fn a_kustomization_with_its_kind_reads_its_older_inline_patches() {
    let body = "patchesJson6902:
  - target: {group: apps, version: v1, kind: Deployment, name: web}
    patch: |
      - op: add
        path: /spec/template/spec/tolerations/-
        value: {key: dedicated, operator: Exist, effect: NoSchedule}
patchesStrategicMerge:
  - |
    apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent}
    spec:
      template:
        spec:
          tolerations:
            - {key: spot, operator: Exists, effect: NoSchedul}
";
    for head in [
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
        "",
    ] {
        let text = format!("{head}{body}");
        let found = common::lint(&text);
        assert_eq!(
            rules(&found),
            vec!["unknown-operator", "unknown-effect"],
            "{text}\n{found:#?}"
        );
        assert_eq!(&text[found[0].range.clone()], "Exist");
        assert_eq!(
            found[0].object.as_ref().unwrap().kind.as_deref(),
            Some("Deployment"),
            "the target names the object the patch applies to"
        );
        assert_eq!(&text[found[1].range.clone()], "NoSchedul");
        assert_eq!(
            found[1].object.as_ref().unwrap().name.as_deref(),
            Some("agent")
        );
        // The effect's fix is written inside its string, and the rest of the file is kept.
        let fixed = fix_all(&text, &Options::default(), FixMode::Unsafe).text;
        assert_eq!(
            rules(&common::lint(&fixed)),
            vec!["unknown-operator"],
            "{fixed}"
        );
        assert!(fixed.contains("effect: NoSchedule}\n"), "{fixed}");
        assert_eq!(common::outer_shape(&fixed), common::outer_shape(&text));
    }
    let flux = format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps}}\n{body}"
    );
    assert!(
        common::lint(&flux)
            .iter()
            .all(|d| !["unknown-operator", "unknown-effect"].contains(&d.rule)),
        "{:#?}",
        common::lint(&flux)
    );
}

/// A `patch` key however YAML writes it: plain, in single quotes or in double quotes (a
/// kustomization written as JSON), at a kustomization's root and in a Flux Kustomization's
/// `spec.patches`; the patch is read at its characters, escapes included.
#[test]
fn a_patch_key_in_quotes_is_a_patch() {
    let patch = r#""[{\"op\": \"add\", \"path\": \"/spec/template/spec/tolerations/-\", \"value\": {\"key\": \"a\", \"operator\": \"Exist\"}}]""#;
    let target = r#"{"kind": "Deployment", "name": "web"}"#;
    let flux = "{\"apiVersion\": \"kustomize.toolkit.fluxcd.io/v1\", \"kind\": \"Kustomization\", \"metadata\": {\"name\": \"apps\"}, \"spec\": ";
    for key in ["patch", "'patch'", "\"patch\""] {
        let patches = format!("{{\"patches\": [{{{key}: {patch}, \"target\": {target}}}]}}");
        for text in [format!("{patches}\n"), format!("{flux}{patches}}}\n")] {
            let found = common::lint(&text);
            let d = one(&found, "unknown-operator");
            // The JSON string `"Exist"`, its quotes written escaped.
            assert_eq!(&text[d.range.clone()], r#"\"Exist\""#, "{text}");
            assert_eq!(
                d.path.as_deref(),
                Some("spec.template.spec.tolerations[-].operator")
            );
        }
    }
}

/// The keys of a ConfigMap's `data` (and a Secret's `stringData`) read as values: those that
/// end in `.yaml`, `.yml` or `values` (a `valuesKey` of any of those names); another key's
/// string is not YAML to lint, and a Secret's `data` is base64.
#[test]
fn values_keys_of_configmaps_and_secrets() {
    let text = "apiVersion: v1
kind: ConfigMap
metadata: {name: chart-values}
data:
  values: \"tolerations: [{key: a, operator: Foo1}]\"
  notes.txt: \"tolerations: [{key: a, operator: Bar}]\"
  gpu.yml: \"tolerations: [{key: a, operator: Foo2}]\"
  override-values: \"tolerations: [{key: a, operator: Foo3}]\"
  values.yaml.bak: \"tolerations: [{key: a, operator: Bar}]\"
  values.yaml: \"tolerations: [{key: a, operator: Foo4}]\"
---
apiVersion: v1
kind: Secret
metadata: {name: chart-values}
stringData:
  values: \"tolerations: [{key: a, operator: Foo5}]\"
  notes: \"tolerations: [{key: a, operator: Bar}]\"
data:
  values.yaml: \"tolerations: [{key: a, operator: Bar}]\"
";
    let found = common::lint(text);
    let operators: Vec<(&str, Option<usize>, Option<&str>)> = found
        .iter()
        .filter(|d| d.rule == "unknown-operator")
        .map(|d| {
            (
                &text[d.range.clone()],
                d.document,
                d.object.as_ref().and_then(|o| o.kind.as_deref()),
            )
        })
        .collect();
    assert_eq!(
        operators,
        [
            ("Foo1", Some(0), Some("ConfigMap")),
            ("Foo2", Some(0), Some("ConfigMap")),
            ("Foo3", Some(0), Some("ConfigMap")),
            ("Foo4", Some(0), Some("ConfigMap")),
            ("Foo5", Some(1), Some("Secret")),
        ],
        "{found:#?}"
    );
}

/// A string under a tag other than `!!str` (`!!binary`, an application's own `!vault`) is not
/// text to read as YAML, neither by lint nor by simulate; one tagged `!!str` is.
#[test]
fn a_string_under_another_tag_is_not_read() {
    let values = |tag: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: web}}
spec:
  source:
    helm:
      values: {tag}|
        nodeSelector: {{example.com/pool: gpu}}
        tolerations:
        - {{key: example.com/pool, operator: Foo}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: web-values}}
data:
  values.yaml: {tag}|
    nodeSelector: {{example.com/pool: gpu}}
    tolerations:
    - {{key: example.com/pool, operator: Bar}}
"
        )
    };
    let pools = taintlint::inventory::Inventory::load(&[(
        "pools.yaml",
        "pools:\n  gpu:\n    labels: {example.com/pool: gpu}\n    taints: [example.com/pool=gpu:NoSchedule]\n",
    )])
    .unwrap();
    let simulated = |text: &str| -> Vec<String> {
        simulate(text, &Options::default(), &pools)
            .workloads
            .into_iter()
            .map(|w| w.path)
            .collect()
    };
    for tag in ["", "!!str "] {
        let text = values(tag);
        let found = common::lint(&text);
        assert_eq!(
            found
                .iter()
                .filter(|d| d.rule == "unknown-operator")
                .map(|d| &text[d.range.clone()])
                .collect::<Vec<_>>(),
            ["Foo", "Bar"],
            "{tag}: {found:#?}"
        );
        assert_eq!(
            simulated(&text),
            ["spec.source.helm.values|", "data[values.yaml]|"],
            "{tag}"
        );
    }
    for tag in ["!vault ", "!!binary "] {
        let text = values(tag);
        let found = common::lint(&text);
        assert!(
            found.iter().all(|d| d.rule != "unknown-operator"),
            "{tag}: {found:#?}"
        );
        assert_eq!(simulated(&text), Vec::<String>::new(), "{tag}");
    }
}

/// A file whose only placement is inside a string reads the inventory (the language server
/// lints it again when the inventory changes); a file whose strings hold no YAML, or that holds
/// nothing about placement, does not.
#[test]
fn a_file_whose_only_placement_is_in_a_string_reads_the_inventory() {
    let reads = |text: &str| reads_inventory(text, None, &Options::default());
    let app = |values: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: web}}\n\
             spec:\n  source:\n    chart: web\n    helm:\n      values: {values}\n"
        )
    };
    assert!(reads(&app(
        "|\n        tolerations: [{key: spot, operator: Exists}]"
    )));
    assert!(!reads(&app("plain words")));
    assert!(!reads(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
    ));
}

/// The strings the editor's hover looks inside: each string that holds YAML, with the source
/// offset of every byte of its value (through a block's indentation and a quoted string's
/// escapes), from an object's place and from a kustomization without `kind`; a string without
/// YAML is none.
#[test]
fn mapped_strings_map_every_byte_to_its_source() {
    let text = "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web}
spec:
  source:
    chart: web
    helm:
      values: |
        tolerations:
        - {key: spot, operator: Exists}
---
patches:
- patch: \"- op: add\\n  path: /spec/x\\n  value: 1\\n\"
  target: {kind: Deployment}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: plain}
spec:
  source:
    helm:
      values: no yaml here
";
    let stream = taintlint::syntax::parse(text);
    let mut found: Vec<(String, Vec<usize>)> = Vec::new();
    for doc in &stream.documents {
        for (inner, map) in taintlint::analysis::mapped_strings(text, doc) {
            found.push((inner.to_string(), map));
        }
    }
    let inners: Vec<&str> = found.iter().map(|(i, _)| i.as_str()).collect();
    assert_eq!(
        inners,
        [
            "tolerations:\n- {key: spot, operator: Exists}\n",
            "- op: add\n  path: /spec/x\n  value: 1\n",
        ]
    );
    for (inner, map) in &found {
        assert_eq!(map.len(), inner.len() + 1, "{inner:?}");
        for (i, c) in inner.char_indices() {
            let at = map[i];
            if c == '\n' {
                // A line break: a block's own, or a quoted string's `\n` escape.
                assert!(matches!(&text[at..at + 1], "\n" | "\\"), "{inner:?} {i}");
            } else {
                assert_eq!(&text[at..at + c.len_utf8()], &inner[i..i + c.len_utf8()]);
            }
        }
    }
    // The block's first byte sits after its indentation.
    let block = text.find("        tolerations:").unwrap() + 8;
    assert_eq!(found[0].1[0], block);
}

/// A manifest an Argo workflow applies keeps its own kind when it has no name (a Job made with
/// `generateName`): only a workload with neither is named by the object that holds the string.
#[test]
fn a_workflow_manifest_without_a_name_keeps_its_kind() {
    let file = "tests/fixtures/embedded/workflow-template.yaml";
    let pools = "tests/fixtures/embedded/gpu-pools.yaml";
    let run = common::run(
        &["simulate", "--format", "json", "--inventory", pools, file],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    let w = &json["workloads"][0];
    assert_eq!(w["kind"], "Job", "{json}");
    assert_eq!(w["name"], serde_json::Value::Null, "{json}");
}

/// A fix of two edits inside a string (`operator: Equal` with an empty value made `Exists`:
/// the operator replaced and the value removed) is written whole, both edits mapped.
#[test]
fn a_fix_of_two_edits_inside_a_string_is_written_whole() {
    let text = "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web}
spec:
  source:
    chart: web
    helm:
      values: |
        tolerations:
        - key: dedicated
          operator: Equal
          value: \"\"
          effect: NoSchedule
  destination:
    server: https://kubernetes.default.svc
";
    assert_eq!(rules(&common::lint(text)), vec!["equal-empty-value"]);
    let fixed = fix_all(text, &Options::default(), FixMode::Unsafe);
    assert_eq!(
        fixed.text,
        text.replace(
            "operator: Equal\n          value: \"\"\n",
            "operator: Exists\n"
        ),
        "{:?}",
        fixed
    );
}
