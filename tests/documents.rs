//! What a document is, decided per document: a template only when it does not parse and shows
//! Go template syntax; everything that parses is linted, rendered streams whole.

mod common;

use common::{run, run_in};
use serde_json::Value;

/// The findings of a `--format json` run, as (rule, line, column).
fn findings(json: &str) -> Vec<(String, u64, u64)> {
    let doc: Value = serde_json::from_str(json).expect("JSON output");
    doc["diagnostics"]
        .as_array()
        .expect("a diagnostics array")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["range"]["start"]["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The smallest reproducer: a plain annotation that holds Go template actions is
/// data, and the document is linted.
const REPRODUCER: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n    \
                          d: x {{ if .X }}y{{ end }}\nspec:\n  tolerations: [{key: a, operator: \
                          Exists, value: b}]\n";

#[test]
fn a_document_that_parses_is_linted_whatever_its_scalars_hold() {
    let found = common::lint(REPRODUCER);
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["exists-with-value"], "{found:#?}");
    // The same from standard input, with its exit status.
    let r = run(&["lint", "--format", "json", "-"], Some(REPRODUCER));
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        findings(&r.stdout),
        [("exists-with-value".to_string(), 8, 51)]
    );
}

/// `kubectl kustomize` output of a monitoring stack in kube-prometheus's shape (its manifests/
/// directory: PrometheusRules whose alert texts hold Go template actions, the node-exporter
/// DaemonSet that tolerates everything), written here, with one invalid toleration put into the
/// DaemonSet. Returns the stream and the 1-based line of the inserted toleration's `value:`.
/// With `helm`, each document starts with the `# Source:` comment `helm template` writes, and
/// the line is counted from the line after the DaemonSet's.
fn monitoring_stream(documents: usize, helm: bool) -> (String, usize) {
    let mut out = String::new();
    let mut line_of_probe = 0;
    let push_doc = |out: &mut String, doc: &str| {
        if !out.is_empty() || helm {
            out.push_str("---\n");
        }
        if helm {
            let name = doc
                .lines()
                .find_map(|l| l.strip_prefix("kind: "))
                .unwrap_or("x")
                .to_lowercase();
            let n = out.matches("# Source:").count();
            out.push_str(&format!(
                "# Source: kube-prometheus-stack/templates/{n}-{name}.yaml\n"
            ));
        }
        out.push_str(doc);
    };
    for i in 0..documents {
        match i % 4 {
            0 => push_doc(
                &mut out,
                &format!(
                    "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  \
                     labels:\n    app.kubernetes.io/name: kube-prometheus\n  name: rules-{i}\n  \
                     namespace: monitoring\nspec:\n  groups:\n  - name: node-exporter-{i}\n    \
                     rules:\n    - alert: NodeFilesystemSpaceFillingUp\n      annotations:\n        \
                     description: Filesystem on {{{{ $labels.device }}}}, mounted on {{{{ \
                     $labels.mountpoint }}}}, at {{{{ $labels.instance }}}} {{{{ with \
                     $labels.cluster -}}}} on cluster {{{{ . }}}}{{{{- end }}}} has only {{{{ \
                     printf \"%.2f\" $value }}}}% available space left.\n        summary: \
                     Filesystem is predicted to run out of space within the next 24 hours.\n      \
                     expr: |\n        node_filesystem_avail_bytes{{job=\"node-exporter\"}} < 0.4\n      \
                     for: 1h\n      labels:\n        severity: warning\n    - alert: \
                     KubePodNotReady\n      annotations:\n        description: Pod {{{{ \
                     $labels.namespace }}}}/{{{{ $labels.pod }}}} has been in a non-ready state \
                     for longer than 15 minutes{{{{ with $labels.cluster -}}}} on {{{{ . \
                     }}}}{{{{- end }}}}.\n      expr: sum by (namespace, pod) (kube_pod_status_phase) > 0\n"
                ),
            ),
            1 => push_doc(
                &mut out,
                &format!(
                    "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa-{i}\n  \
                     namespace: monitoring\n"
                ),
            ),
            2 => push_doc(
                &mut out,
                &format!(
                    "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc-{i}\n  namespace: \
                     monitoring\nspec:\n  ports:\n  - name: https\n    port: 9100\n    \
                     targetPort: https\n  selector:\n    app.kubernetes.io/name: node-exporter\n"
                ),
            ),
            _ if i == documents / 8 * 4 + 3 => {
                let daemonset = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: \
                                 node-exporter\n  namespace: monitoring\nspec:\n  selector:\n    \
                                 matchLabels:\n      app.kubernetes.io/name: node-exporter\n  \
                                 template:\n    metadata:\n      labels:\n        \
                                 app.kubernetes.io/name: node-exporter\n    spec:\n      \
                                 containers:\n      - name: node-exporter\n        image: \
                                 quay.io/prometheus/node-exporter:v1.8.2\n      hostNetwork: \
                                 true\n      tolerations:\n      - operator: Exists\n      - key: \
                                 node-role.kubernetes.io/control-plane\n        operator: \
                                 Exists\n        value: \"true\"\n        effect: NoSchedule\n";
                let before = if helm {
                    0
                } else {
                    out.lines().count() + usize::from(!out.is_empty())
                };
                let at = daemonset
                    .lines()
                    .position(|l| l.trim_start().starts_with("value:"))
                    .unwrap();
                line_of_probe = before + at + 1;
                push_doc(&mut out, daemonset);
            }
            _ => push_doc(
                &mut out,
                &format!(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: \
                     monitoring\ndata:\n  config.yaml: |\n    receivers:\n    - name: \
                     'null'\n    templates:\n    - '/etc/alertmanager/*.tmpl'\n"
                ),
            ),
        }
    }
    assert!(line_of_probe > 0, "the DaemonSet is in the stream");
    (out, line_of_probe)
}

#[test]
fn a_rendered_stream_is_linted_whole_and_the_probe_found_at_its_line() {
    let (stream, line) = monitoring_stream(120, false);
    assert_eq!(stream.matches("\n---\n").count() + 1, 120);
    assert!(stream.contains("{{ with $labels.cluster -}} on cluster {{ . }}{{- end }}"));
    let r = run(&["lint", "--format", "json", "-"], Some(&stream));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let found = findings(&r.stdout);
    // The probe, at the column of its value, and no template hint anywhere.
    assert!(
        found.contains(&("exists-with-value".to_string(), line as u64, 16)),
        "line {line}: {found:?}"
    );
    assert!(
        found.iter().all(|(rule, ..)| rule != "helm-template"),
        "{found:?}"
    );
    // The DaemonSet's own `operator: Exists` is the only other finding.
    assert!(
        found
            .iter()
            .all(|(rule, ..)| rule == "exists-with-value" || rule == "tolerates-everything"),
        "{found:?}"
    );
    // The same stream as a file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rendered.yaml");
    std::fs::write(&file, &stream).unwrap();
    let r = run(&["lint", "--format", "json", file.to_str().unwrap()], None);
    assert!(findings(&r.stdout).contains(&("exists-with-value".to_string(), line as u64, 16)));

    // `helm template` output: the finding is reported against the DaemonSet's template.
    let (stream, line) = monitoring_stream(120, true);
    let r = run(&["lint", "--format", "concise", "-"], Some(&stream));
    assert_eq!(r.code, 1, "{}", r.stderr);
    let probe = format!(
        "kube-prometheus-stack/templates/63-daemonset.yaml:{line}:16: error[exists-with-value]"
    );
    assert!(r.stdout.contains(&probe), "{probe}\n{}", r.stdout);
    assert!(!r.stdout.contains("helm-template"), "{}", r.stdout);
}

/// A key is at most 1024 characters (not bytes) long, as in go-yaml (scannerc.go,
/// `yaml_parser_stale_simple_keys`) and the YAML specification: longer, the API server's decoder
/// refuses it too.
#[test]
fn a_key_is_measured_in_characters() {
    let key = "日".repeat(1000);
    let rules: Vec<&str> = common::lint(&format!("{key}: v\n"))
        .iter()
        .map(|d| d.rule)
        .collect();
    assert!(rules.is_empty(), "{rules:?}");
    let key = "a".repeat(1030);
    let found = common::lint(&format!("kind: Pod\n{key}: v\n"));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, "yaml-syntax");
}

/// A template that does not parse is one hint for its document; the file's other documents are
/// linted. Outside a chart's `templates/` it is a Go template; inside, a Helm chart template.
#[test]
fn a_real_template_is_one_hint_for_its_document() {
    let template = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \
                    \"x.fullname\" . }}\nspec:\n  template:\n    spec:\n      {{- with \
                    .Values.tolerations }}\n      tolerations:\n        {{- toYaml . | nindent 8 \
                    }}\n      {{- end }}\n";
    let text = format!("{template}---\n{REPRODUCER}");
    let found = common::lint(&text);
    let rules: Vec<(&str, Option<usize>)> = found.iter().map(|d| (d.rule, d.document)).collect();
    assert_eq!(
        rules,
        [("helm-template", Some(0)), ("exists-with-value", Some(1))],
        "{found:#?}"
    );
    assert_eq!(
        &text[found[0].range.clone()],
        "{{ include \"x.fullname\" . }}"
    );
    assert!(
        found[0].message.starts_with("a Go template"),
        "{}",
        found[0].message
    );

    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: x\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("templates/deployment.yaml"), template).unwrap();
    std::fs::write(dir.path().join("operand.yaml"), template).unwrap();
    let r = run_in(
        dir.path(),
        &[
            "lint",
            "--format",
            "concise",
            "chart/templates/deployment.yaml",
            "operand.yaml",
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(
        lines[0].starts_with(
            "chart/templates/deployment.yaml:4:9: hint[helm-template] a Helm chart template"
        ),
        "{}",
        r.stdout
    );
    assert!(
        lines[1].starts_with("operand.yaml:4:9: hint[helm-template] a Go template"),
        "{}",
        r.stdout
    );
}

/// A chart values file with a commented-out default configuration of 300 lines under
/// `config:` (more than the parser buffers by default), and tolerations after it.
#[test]
fn a_long_comment_run_parses_and_what_follows_is_linted() {
    let mut text = String::from("replicaCount: 1\nconfig:\n");
    for i in 0..300 {
        text.push_str(&format!("#   option{i}: default  # what option {i} does\n"));
    }
    text.push_str("tolerations:\n  - key: a\n    operator: Exists\n    value: b\n");
    let found = common::lint(&text);
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["exists-with-value"], "{found:#?}");
    assert_eq!(&text[found[0].range.clone()], "b");
    // Comments between the entries of a sequence too.
    let text = text.replace("config:\n", "config:\n  - a\n");
    let found = common::lint(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
}

/// A YAML file with no sign of Kubernetes never fails the build: its syntax error is a hint that
/// it is not read. With an `apiVersion`, `kind`, `tolerations` or `taints` key, it stays an error.
#[test]
fn yaml_with_no_sign_of_kubernetes_does_not_fail_the_build() {
    let fixture = "# settings a tool reads\nnames: [first, second\nreplicas: 3\n";
    let found = common::lint(fixture);
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["not-a-manifest"], "{found:#?}");
    assert_eq!(found[0].severity, taintlint::Severity::Hint);
    let r = run(&["lint", "--format", "concise", "-"], Some(fixture));
    assert_eq!(r.code, 0, "{}", r.stdout);
    for sign in [
        "kind: Pod\n",
        "apiVersion: v1\n",
        "\"tolerations\": []\n",
        "taints :\n",
    ] {
        let text = format!("{sign}{fixture}");
        let rules: Vec<&str> = common::lint(&text).iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["yaml-syntax"], "{sign}");
    }
    // The word alone, in a value or a comment, is no sign.
    let text = format!("# kind of a config\ndescription: the kind we like\n{fixture}");
    let rules: Vec<&str> = common::lint(&text).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["not-a-manifest"]);
}

/// A Go format string (a test fixture its program fills in with `fmt.Sprintf`) is not YAML
/// until it is filled in, whatever its kind: a hint that says so, not a build failure. The shape
/// imitates aws/karpenter-provider-aws test/suites/ami/testdata/al2023_userdata_input.yaml.
#[test]
fn a_go_format_string_is_a_template() {
    let fixture = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    \
                   name: %s\n    apiServerEndpoint: %s\n    cidr: 10.100.0.0/16\n";
    let found = common::lint(fixture);
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["helm-template"], "{found:#?}");
    assert!(found[0].message.contains("Go format string"), "{found:#?}");
    assert_eq!(&fixture[found[0].range.clone()], "%s");
    let r = run(&["lint", "--format", "concise", "-"], Some(fixture));
    assert_eq!(r.code, 0, "{}", r.stdout);
    // A percent sign inside a value is no verb, and a manifest that does not parse stays an
    // error.
    let broken = "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    load: 80%\nspec: [\n";
    let rules: Vec<&str> = common::lint(broken).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["yaml-syntax"]);
    // A document that parses is YAML, whatever its strings hold.
    let parses = "apiVersion: v1\nkind: ConfigMap\ndata:\n  format: \"%s\"\n";
    assert!(common::lint(parses).is_empty());
}

/// A file with placeholders that a script fills in is not YAML until it is filled in: a hint
/// that says so, never a `yaml-syntax` error. The shape imitates longhorn/longhorn's
/// `dev/scale-test/statefulset.yaml` (`name: @STS_NAME@`, filled in with `sed` by its
/// `scale-test.py`); the other forms are those of envsubst (`${VAR}`) and of build scripts
/// (`__VAR__` on a line of its own).
#[test]
fn a_file_with_placeholders_is_a_template() {
    let fixture = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: @STS_NAME@\nspec:\n  \
                   serviceName: @STS_NAME@\n  template:\n    spec:\n      nodeName: @NODE_NAME@\n      \
                   containers:\n      - name: '@STS_NAME@'\n        image: busybox\n";
    let found = common::lint(fixture);
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["helm-template"], "{found:#?}");
    assert_eq!(&fixture[found[0].range.clone()], "@STS_NAME@");
    assert_eq!(
        found[0].message,
        "placeholders that a script fills in (`@STS_NAME@`), not YAML until they are filled in"
    );
    let r = run(&["lint", "--format", "concise", "-"], Some(fixture));
    assert_eq!(r.code, 0, "{}", r.stdout);
    for (text, placeholder) in [
        (
            "apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: ${NAME}, image: i}]\n",
            "${NAME}",
        ),
        (
            "apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: a, image: i}]\n  \
             tolerations:\n  __TOLERATIONS__\n",
            "__TOLERATIONS__",
        ),
        (
            "apiVersion: v1\nkind: Pod\nspec:\n  tolerations: [{key: ${KEY:-gpu}, operator: \
             Exists}]\n",
            "${KEY:-gpu}",
        ),
    ] {
        let found = common::lint(text);
        let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["helm-template"], "{text}");
        assert_eq!(&text[found[0].range.clone()], placeholder, "{text}");
    }
    // A document broken elsewhere too keeps its syntax error; one that parses is linted,
    // whatever its strings hold; an address is no placeholder; a comment's placeholder counts
    // for nothing.
    let broken = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: @NAME@\nspec: [\n";
    let rules: Vec<&str> = common::lint(broken).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["yaml-syntax"]);
    let parses = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: '@NAME@'\nspec:\n  \
                  tolerations: [{key: a, operator: Exists, value: b}]\n";
    let rules: Vec<&str> = common::lint(parses).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["exists-with-value"]);
    let address = "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations: {owner: a@b@c}\nspec: [\n";
    let rules: Vec<&str> = common::lint(address).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["yaml-syntax"]);
    let commented = "apiVersion: v1\nkind: Pod\n# name: @NAME@\nspec: [\n";
    let rules: Vec<&str> = common::lint(commented).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["yaml-syntax"]);
}

/// A Go template can parse as YAML when each action stands as a whole value: `{{.Name}}` is
/// then a mapping whose key is a mapping. Such a document is a template all the same, and is
/// neither linted nor simulated as written. The shape imitates kuberay's clusterloader2 object
/// templates (ray-project/kuberay `benchmark/perf-tests/100-rayjob/pytorch-mnist-rayjob.yaml`).
#[test]
fn go_template_actions_read_as_mappings_make_a_template() {
    let fixture = "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: {{.Name}}\nspec:\n  \
                   rayClusterSpec:\n    headGroupSpec:\n      template:\n        spec:\n          \
                   containers:\n          - name: ray-head\n            image: {{.Image}}\n            \
                   resources: {requests: {cpu: \"64\"}}\n";
    let found = common::lint(fixture);
    let rules: Vec<&str> = found.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["helm-template"], "{found:#?}");
    assert_eq!(&fixture[found[0].range.clone()], "{{.Name}}");
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            ("rayjob.yaml", fixture),
            (
                "pools.yaml",
                "pools:\n  small: {count: 1, allocatable: {cpu: 4}}\n",
            ),
        ],
    );
    let r = run_in(
        dir.path(),
        &["simulate", "--inventory", "pools.yaml", "rayjob.yaml"],
        None,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("1 file not all simulated"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("RayJob"), "{}", r.stdout);
    // In a string, or beside other text, an action is no mapping: the document is linted.
    let quoted = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: '{{.Name}}'\nspec:\n  \
                  tolerations: [{key: a, operator: Exists, value: b}]\n";
    let rules: Vec<&str> = common::lint(quoted).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["exists-with-value"]);
    let flow = "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {app: web}\nspec:\n  \
                tolerations: [{key: a, operator: Exists, value: b}]\n";
    let rules: Vec<&str> = common::lint(flow).iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["exists-with-value"]);
}

/// Writes `files` (path, text) under `dir`.
fn write_tree(dir: &std::path::Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

const HELM_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ \
                               include \"x.fullname\" . }}\nspec:\n  template:\n    spec:\n      \
                               {{- with .Values.tolerations }}\n      tolerations:\n        {{- \
                               toYaml . | nindent 8 }}\n      {{- end }}\n";

/// A directory walk says once, on standard error, how many templates and foreign files it
/// skipped, and lists them on request; none of them is a finding of its own.
#[test]
fn a_walk_reports_what_it_skipped_once() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            (
                "chart/Chart.yaml",
                "apiVersion: v2\nname: x\nversion: 0.1.0\n",
            ),
            ("chart/templates/deployment.yaml", HELM_DEPLOYMENT),
            ("chart/templates/daemonset.yaml", HELM_DEPLOYMENT),
            ("chart/templates/NOTES.txt", "{{ .Release.Name }}\n"),
            ("chart/values.yaml", "tolerations: []\n"),
            ("operator/assets/a.yaml", HELM_DEPLOYMENT),
            ("operator/assets/b.yaml", HELM_DEPLOYMENT),
            (
                "operator/assets/parses.yaml",
                "kind: Pod\nmetadata:\n  name: {{ .Name }}\n",
            ),
            (
                "dev/scale-test/statefulset.yaml",
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: @STS_NAME@\n",
            ),
            ("testdata/fixture.yaml", "names: [first, second\n"),
            ("app.yaml", REPRODUCER),
        ],
    );
    let r = run_in(dir.path(), &["lint", "--format", "concise", "."], None);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "./app.yaml:8:51: error[exists-with-value] value `b` is not allowed with `operator: \
         Exists`, which matches any value\n"
    );
    assert_eq!(
        r.stderr,
        "taintlint: skipped 5 Go/Helm template files, 1 file with placeholders a script fills \
         in and 1 YAML file that is not a Kubernetes manifest and does not parse; \
         `--show-skipped` lists them\n"
    );
    let r = run_in(
        dir.path(),
        &["lint", "--format", "json", "--show-skipped", "."],
        None,
    );
    let listed: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        listed,
        [
            "taintlint: skipped ./chart/templates/daemonset.yaml: a Go or Helm template, not \
             YAML until rendered",
            "taintlint: skipped ./chart/templates/deployment.yaml: a Go or Helm template, not \
             YAML until rendered",
            "taintlint: skipped ./dev/scale-test/statefulset.yaml: placeholders that a script \
             fills in, not YAML until they are filled in",
            "taintlint: skipped ./operator/assets/a.yaml: a Go or Helm template, not YAML until \
             rendered",
            "taintlint: skipped ./operator/assets/b.yaml: a Go or Helm template, not YAML until \
             rendered",
            "taintlint: skipped ./operator/assets/parses.yaml: a Go or Helm template, not YAML \
             until rendered",
            "taintlint: skipped ./testdata/fixture.yaml: YAML that does not parse, with no sign \
             of Kubernetes",
            "taintlint: skipped 5 Go/Helm template files, 1 file with placeholders a script \
             fills in and 1 YAML file that is not a Kubernetes manifest and does not parse",
        ]
    );
    assert_eq!(findings(&r.stdout).len(), 1, "{}", r.stdout);
    // Named on the command line, a template still gets its hint, and nothing is summed up.
    let r = run_in(
        dir.path(),
        &["lint", "--format", "concise", "operator/assets/a.yaml"],
        None,
    );
    assert!(
        r.stdout.contains("hint[helm-template] a Go template"),
        "{}",
        r.stdout
    );
    assert_eq!(r.stderr, "");
    let r = run_in(
        dir.path(),
        &[
            "lint",
            "--format",
            "concise",
            "dev/scale-test/statefulset.yaml",
        ],
        None,
    );
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (
            0,
            "dev/scale-test/statefulset.yaml:4:9: hint[helm-template] placeholders that a script \
             fills in (`@STS_NAME@`), not YAML until they are filled in\n",
            ""
        )
    );
}

/// A file git tracks is linted even when an ignore pattern meant for something else (the
/// `manager` binary kubebuilder builds) matches its directory; untracked ignored files stay
/// ignored.
#[test]
fn a_tracked_file_is_never_hidden_by_an_ignore_pattern() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            (".gitignore", "manager\n"),
            ("config/manager/manager.yaml", REPRODUCER),
            (
                "config/manager/kustomization.yaml",
                "resources: [manager.yaml]\n",
            ),
        ],
    );
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .expect("git runs");
        assert!(status.status.success(), "git {args:?}: {status:?}");
    };
    git(&["init", "-q", "."]);
    git(&["add", ".gitignore"]);
    git(&["add", "-f", "config/manager/manager.yaml"]);
    git(&["commit", "-qm", "init"]);
    let r = run_in(dir.path(), &["lint", "--format", "concise", "."], None);
    assert_eq!(
        r.stdout,
        "./config/manager/manager.yaml:8:51: error[exists-with-value] value `b` is not allowed \
         with `operator: Exists`, which matches any value\n",
        "{}",
        r.stderr
    );
    // The untracked kustomization.yaml beside it stays ignored, as .gitignore says.
    let r = run_in(dir.path(), &["lint", "--format", "json", "config"], None);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["files"], 1, "{}", r.stdout);
}
