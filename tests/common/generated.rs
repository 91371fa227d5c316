//! A generated workspace of a few hundred files, of every shape a repository deploys pods in:
//! pod templates in manifests (one or several documents), a chart's values beside its
//! templates, an Argo CD Application's values as a string and as an object, a Flux
//! HelmRelease's values, a kustomization with a JSON6902 patch file and a strategic-merge patch,
//! and custom resources. Each file takes its tolerations and node selector from a list of
//! variants (right, a typo in a key, `Exists` with a value, `tolerationSeconds` without
//! `NoExecute`, a selector no pool has), chosen by a seeded generator, against the pools of
//! `examples/inventory/pools.yaml`.

use std::path::Path;

/// Toleration lists, each as flow-style YAML items (written under `tolerations:`).
const TOLERATIONS: &[&[&str]] = &[
    &[],
    &[
        "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
        "{key: example.com/pool, operator: Equal, value: gpu, effect: NoSchedule}",
    ],
    &["{key: nvidia.com/gpus, operator: Exists, effect: NoSchedule}"],
    &["{key: example.com/spot, operator: Exists, value: \"true\", effect: NoExecute}"],
    &["{key: example.com/batch, operator: Exists, tolerationSeconds: 60}"],
    &["{key: example.com/spot, operator: Equal, value: \"true\", effect: NoExecute, tolerationSeconds: 300}"],
    &["{key: example.com/pool, operator: Equal, value: gpus, effect: NoSchedule}"],
    &["{operator: Exists}"],
];

/// Node selectors, as flow-style YAML mappings.
const SELECTORS: &[&str] = &[
    "{}",
    "{example.com/pool: gpu}",
    "{example.com/pool: batch}",
    "{example.com/pool: spot}",
    "{example.com/pool: nowhere}",
    "{kubernetes.io/os: linux}",
];

/// A seeded generator (a linear congruential one: the same workspace every run).
struct Seed(u64);

impl Seed {
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        &from[(self.0 >> 33) as usize % from.len()]
    }
}

/// A pod spec's tolerations and node selector, indented by `indent` spaces.
fn pod_fields(seed: &mut Seed, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let tolerations = seed.pick(TOLERATIONS);
    let mut out = format!("{pad}nodeSelector: {}\n", seed.pick(SELECTORS));
    if tolerations.is_empty() {
        out.push_str(&format!("{pad}tolerations: []\n"));
    } else {
        out.push_str(&format!("{pad}tolerations:\n"));
        for t in *tolerations {
            out.push_str(&format!("{pad}- {t}\n"));
        }
    }
    out
}

fn deployment(seed: &mut Seed, name: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: shop\nspec:\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n      containers:\n      - {{name: app, image: example.com/app:1}}\n{}",
        pod_fields(seed, 6)
    )
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes `groups` groups of files (eight shapes, about eleven files a group) under `root`;
/// returns how many files it wrote.
pub fn workspace(root: &Path, groups: usize) -> usize {
    let mut seed = Seed(0x7a17_1197);
    let mut files = 0;
    let mut put = |path: String, text: String| {
        write(root, &path, &text);
        files += 1;
    };
    for g in 0..groups {
        // Pod templates in manifests: a Deployment, and a CronJob beside a ConfigMap.
        put(
            format!("apps/web-{g}.yaml"),
            deployment(&mut seed, &format!("web-{g}")),
        );
        put(
            format!("apps/jobs-{g}.yaml"),
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg-{g}}}\ndata: {{a: b}}\n---\napiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly-{g}\nspec:\n  schedule: \"0 1 * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n          - {{name: job, image: example.com/job:1}}\n{}",
                pod_fields(&mut seed, 10)
            ),
        );
        // A chart's values beside the templates that render them into a Deployment.
        put(
            format!("charts/svc-{g}/Chart.yaml"),
            format!("apiVersion: v2\nname: svc-{g}\nversion: 0.1.0\n"),
        );
        put(
            format!("charts/svc-{g}/values.yaml"),
            format!("replicaCount: 1\n{}", pod_fields(&mut seed, 0)),
        );
        put(
            format!("charts/svc-{g}/templates/deployment.yaml"),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  template:\n    spec:\n      nodeSelector: {{- toYaml .Values.nodeSelector | nindent 8 }}\n      tolerations: {{- toYaml .Values.tolerations | nindent 8 }}\n      containers:\n      - name: app\n        image: example.com/svc:1\n".to_string(),
        );
        // Argo CD Applications: values as a string, and as an object.
        let string_values = pod_fields(&mut seed, 8);
        put(
            format!("argo/values-string-{g}.yaml"),
            format!(
                "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: worker-{g}\n  namespace: argocd\nspec:\n  project: default\n  destination: {{server: https://kubernetes.default.svc, namespace: ml}}\n  source:\n    repoURL: https://charts.example.com\n    chart: worker\n    targetRevision: 1.0.0\n    helm:\n      values: |\n{string_values}"
            ),
        );
        put(
            format!("argo/values-object-{g}.yaml"),
            format!(
                "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: exporter-{g}\n  namespace: argocd\nspec:\n  project: default\n  destination: {{server: https://kubernetes.default.svc, namespace: monitoring}}\n  source:\n    repoURL: https://charts.example.com\n    chart: exporter\n    targetRevision: 2.0.0\n    helm:\n      valuesObject:\n{}",
                pod_fields(&mut seed, 8)
            ),
        );
        // A Flux HelmRelease's values.
        put(
            format!("flux/release-{g}.yaml"),
            format!(
                "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ingress-{g}\n  namespace: flux-system\nspec:\n  interval: 10m\n  chart:\n    spec: {{chart: ingress, sourceRef: {{kind: HelmRepository, name: charts}}}}\n  values:\n    controller:\n{}",
                pod_fields(&mut seed, 6)
            ),
        );
        // A kustomization with a JSON6902 patch file (its target named there) and a
        // strategic-merge patch (of the same namespace, so that kustomize renders it).
        put(
            format!("kustomize/k-{g}/kustomization.yaml"),
            format!(
                "resources:\n  - deployment.yaml\npatches:\n  - path: tolerate.yaml\n    target:\n      kind: Deployment\n      name: api-{g}\n  - path: pin.yaml\n"
            ),
        );
        put(
            format!("kustomize/k-{g}/deployment.yaml"),
            deployment(&mut seed, &format!("api-{g}")),
        );
        let added = seed
            .pick(TOLERATIONS)
            .first()
            .copied()
            .unwrap_or("{key: a, operator: Exists}");
        put(
            format!("kustomize/k-{g}/tolerate.yaml"),
            format!("- op: add\n  path: /spec/template/spec/tolerations/-\n  value: {added}\n"),
        );
        put(
            format!("kustomize/k-{g}/pin.yaml"),
            format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api-{g}\n  namespace: shop\nspec:\n  template:\n    spec:\n{}",
                pod_fields(&mut seed, 6)
            ),
        );
        // A custom resource whose operator makes pods from its templates.
        put(
            format!("ray/cluster-{g}.yaml"),
            format!(
                "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: rl-{g}\n  namespace: ml\nspec:\n  headGroupSpec:\n    rayStartParams: {{}}\n    template:\n      spec:\n        containers:\n        - {{name: head, image: rayproject/ray:2.9.0}}\n{}  workerGroupSpecs:\n  - groupName: gpu-workers\n    replicas: 1\n    rayStartParams: {{}}\n    template:\n      spec:\n        containers:\n        - {{name: worker, image: rayproject/ray:2.9.0}}\n{}",
                pod_fields(&mut seed, 8),
                pod_fields(&mut seed, 8)
            ),
        );
    }
    files
}
