//! Where pod specs live beyond the core workload kinds: custom resources whose controllers make
//! pods, and chart values that a chart's templates render into a workload's pod spec.
//!
//! A custom resource's pod specs are found by [`custom_pod_specs`], one row per kind: its API
//! group, its kinds, and the paths of its pod specs (a pod template's `spec`, or the mapping
//! that holds pod fields inline). Each row cites the operator's API type it follows. The table
//! covers the kinds and versions of its rows, where the kind's CustomResourceDefinition is not
//! at hand: a CRD read says where its kind keeps them ([`crate::k8s::crd`]).

/// One row of the table: the kinds of an API group, at the versions its operator serves, whose
/// objects hold pod specs at `paths`, or whole objects (each with its own pod specs) at
/// `objects`. A path is written with `.` between mapping keys; `name[]` stands for every item
/// of the sequence `name`, `*` for every value of a mapping (a role name, a replica type).
#[derive(Debug, Clone, Copy)]
pub struct CustomWorkload {
    pub group: &'static str,
    pub versions: &'static [&'static str],
    pub kinds: &'static [&'static str],
    pub paths: &'static [&'static str],
    pub objects: &'static [&'static str],
}

const fn row(
    group: &'static str,
    versions: &'static [&'static str],
    kinds: &'static [&'static str],
    paths: &'static [&'static str],
) -> CustomWorkload {
    CustomWorkload {
        group,
        versions,
        kinds,
        paths,
        objects: &[],
    }
}

/// A row whose objects wrap other objects (each a Kubernetes object with `apiVersion` and
/// `kind`, its pod specs where that kind keeps them).
const fn wrapper(
    group: &'static str,
    versions: &'static [&'static str],
    kinds: &'static [&'static str],
    objects: &'static [&'static str],
) -> CustomWorkload {
    CustomWorkload {
        group,
        versions,
        kinds,
        paths: &[],
        objects,
    }
}

/// The Ray cluster a RayCluster, RayJob or RayService describes: a head group and worker groups,
/// each with a pod template.
macro_rules! ray_cluster {
    ($prefix:literal) => {
        &[
            concat!($prefix, "headGroupSpec.template.spec"),
            concat!($prefix, "workerGroupSpecs[].template.spec"),
        ]
    };
}

/// The versions KubeRay serves (`ray.io/v1alpha1` is still read by its conversion).
const RAY: &[&str] = &["v1", "v1alpha1"];

/// Custom resources whose controllers make pods from pod specs they hold, by API group and kind.
pub const CUSTOM_WORKLOADS: &[CustomWorkload] = &[
    // prometheus-operator/prometheus-operator pkg/apis/monitoring/v1/prometheus_types.go
    // (CommonPrometheusFields: nodeSelector, tolerations, affinity inline in `spec`),
    // alertmanager_types.go, thanos_types.go (ThanosRulerSpec) and
    // v1alpha1/prometheusagent_types.go.
    row(
        "monitoring.coreos.com",
        &["v1", "v1alpha1"],
        &[
            "Prometheus",
            "Alertmanager",
            "ThanosRuler",
            "PrometheusAgent",
        ],
        &["spec"],
    ),
    // argoproj/argo-rollouts pkg/apis/rollouts/v1alpha1/types.go: RolloutSpec.Template
    // (a corev1.PodTemplateSpec).
    row(
        "argoproj.io",
        &["v1alpha1"],
        &["Rollout"],
        &["spec.template.spec"],
    ),
    // kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go: ReplicatedJob.Template (a
    // batchv1.JobTemplateSpec).
    row(
        "jobset.x-k8s.io",
        &["v1alpha2"],
        &["JobSet"],
        &["spec.replicatedJobs[].template.spec.template.spec"],
    ),
    // kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go: LeaderWorkerTemplate
    // (LeaderTemplate, an optional *PodTemplateSpec, and WorkerTemplate).
    row(
        "leaderworkerset.x-k8s.io",
        &["v1"],
        &["LeaderWorkerSet"],
        &[
            "spec.leaderWorkerTemplate.leaderTemplate.spec",
            "spec.leaderWorkerTemplate.workerTemplate.spec",
        ],
    ),
    // ray-project/kuberay ray-operator/apis/ray/v1/raycluster_types.go (HeadGroupSpec,
    // WorkerGroupSpec: Template), rayjob_types.go (RayClusterSpec, SubmitterPodTemplate) and
    // rayservice_types.go (RayClusterSpec, written `rayClusterConfig`).
    row("ray.io", RAY, &["RayCluster"], ray_cluster!("spec.")),
    row(
        "ray.io",
        RAY,
        &["RayJob"],
        &[
            "spec.rayClusterSpec.headGroupSpec.template.spec",
            "spec.rayClusterSpec.workerGroupSpecs[].template.spec",
            "spec.submitterPodTemplate.spec",
        ],
    ),
    row(
        "ray.io",
        RAY,
        &["RayService"],
        ray_cluster!("spec.rayClusterConfig."),
    ),
    // kubeflow/training-operator pkg/apis/kubeflow.org/v1/{pytorch,tensorflow,xgboost,paddlepaddle,
    // jax,mxnet}_types.go and the v2beta1 MPIJob (kubeflow/mpi-operator
    // pkg/apis/kubeflow/v2beta1/types.go): `<x>ReplicaSpecs`, a map of replica type (Master,
    // Worker, Launcher, ...) to a ReplicaSpec whose Template is a corev1.PodTemplateSpec.
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["PyTorchJob"],
        &["spec.pytorchReplicaSpecs.*.template.spec"],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["TFJob"],
        &["spec.tfReplicaSpecs.*.template.spec"],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["MPIJob"],
        &["spec.mpiReplicaSpecs.*.template.spec"],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["XGBoostJob"],
        &["spec.xgbReplicaSpecs.*.template.spec"],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["PaddleJob"],
        &["spec.paddleReplicaSpecs.*.template.spec"],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["JAXJob"],
        &["spec.jaxReplicaSpecs.*.template.spec"],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["MXJob"],
        &["spec.mxReplicaSpecs.*.template.spec"],
    ),
    // volcano-sh/apis pkg/apis/batch/v1alpha1/job.go: TaskSpec.Template (a
    // corev1.PodTemplateSpec).
    row(
        "batch.volcano.sh",
        &["v1alpha1"],
        &["Job"],
        &["spec.tasks[].template.spec"],
    ),
    // kserve/kserve pkg/apis/serving/v1beta1/predictor.go, transformer.go, explainer.go: each
    // component embeds a corev1.PodSpec inline (`PodSpec `json:",inline"``), and
    // predictor.go's WorkerSpec (multi-node serving) does too.
    row(
        "serving.kserve.io",
        &["v1beta1"],
        &["InferenceService"],
        &[
            "spec.predictor",
            "spec.predictor.workerSpec",
            "spec.transformer",
            "spec.explainer",
        ],
    ),
    // kserve/kserve pkg/apis/serving/v1alpha1/servingruntime_types.go: ServingRuntimeSpec
    // embeds ServingRuntimePodSpec inline (containers, nodeSelector, affinity, tolerations) and
    // its WorkerSpec (multi-node serving) embeds one too.
    row(
        "serving.kserve.io",
        &["v1alpha1"],
        &["ServingRuntime", "ClusterServingRuntime"],
        &["spec", "spec.workerSpec"],
    ),
    // kserve/kserve pkg/apis/serving/v1alpha1/llm_inference_service_types.go:
    // LLMInferenceServiceSpec inlines a WorkloadSpec (Template, Worker: corev1.PodSpec) and
    // holds another as Prefill; an LLMInferenceServiceConfig has the same spec.
    row(
        "serving.kserve.io",
        &["v1alpha1", "v1alpha2"],
        &["LLMInferenceService", "LLMInferenceServiceConfig"],
        &[
            "spec.template",
            "spec.worker",
            "spec.prefill.template",
            "spec.prefill.worker",
        ],
    ),
    // kubeflow/trainer pkg/apis/trainer/v1alpha1/trainingruntime_types.go:
    // TrainingRuntimeSpec.Template (a JobSetTemplateSpec: a JobSet's spec, its replicated jobs'
    // batchv1.JobTemplateSpec).
    row(
        "trainer.kubeflow.org",
        &["v1alpha1"],
        &["TrainingRuntime", "ClusterTrainingRuntime"],
        &["spec.template.spec.replicatedJobs[].template.spec.template.spec"],
    ),
    // kubeflow/spark-operator api/v1beta2/sparkapplication_types.go: SparkApplicationSpec.Driver
    // and .Executor embed SparkPodSpec (nodeSelector, affinity, tolerations), and a
    // ScheduledSparkApplication's Template is a SparkApplicationSpec.
    row(
        "sparkoperator.k8s.io",
        &["v1beta2"],
        &["SparkApplication"],
        &["spec.driver", "spec.executor"],
    ),
    row(
        "sparkoperator.k8s.io",
        &["v1beta2"],
        &["ScheduledSparkApplication"],
        &["spec.template.driver", "spec.template.executor"],
    ),
    // knative/serving pkg/apis/serving/v1/revision_types.go: RevisionSpec embeds a corev1.PodSpec
    // inline; service_types.go and configuration_types.go: ConfigurationSpec.Template is a
    // RevisionTemplateSpec.
    row(
        "serving.knative.dev",
        &["v1"],
        &["Service", "Configuration"],
        &["spec.template.spec"],
    ),
    row("serving.knative.dev", &["v1"], &["Revision"], &["spec"]),
    // strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/common/
    // template/PodTemplate.java: each component's `template.pod` holds pod fields (affinity,
    // tolerations, priorityClassName, schedulerName; no containers, no nodeSelector), in a
    // Kafka (KafkaClusterTemplate, ZookeeperClusterTemplate, EntityOperatorTemplate,
    // CruiseControlTemplate, KafkaExporterTemplate) and in a KafkaNodePool, KafkaConnect,
    // KafkaMirrorMaker2 or KafkaBridge.
    row(
        "kafka.strimzi.io",
        &["v1beta2", "v1"],
        &["Kafka"],
        &[
            "spec.kafka.template.pod",
            "spec.zookeeper.template.pod",
            "spec.entityOperator.template.pod",
            "spec.cruiseControl.template.pod",
            "spec.kafkaExporter.template.pod",
        ],
    ),
    row(
        "kafka.strimzi.io",
        &["v1beta2", "v1"],
        &[
            "KafkaNodePool",
            "KafkaConnect",
            "KafkaMirrorMaker2",
            "KafkaBridge",
        ],
        &["spec.template.pod"],
    ),
    // project-codeflare/appwrapper api/v1beta2/appwrapper_types.go: AppWrapperComponent.Template
    // is a runtime.RawExtension holding a whole object (a Job, a PyTorchJob, a RayCluster ...).
    wrapper(
        "workload.codeflare.dev",
        &["v1beta2"],
        &["AppWrapper"],
        &["spec.components[].template"],
    ),
];

/// The pod spec paths of a custom resource of `kind` in the API `group`, if the table knows it
/// (at any version).
pub fn custom_pod_specs(group: Option<&str>, kind: &str) -> Option<&'static [&'static str]> {
    let group = group?;
    CUSTOM_WORKLOADS
        .iter()
        .find(|r| r.group == group && r.kinds.contains(&kind))
        .map(|r| r.paths)
}

/// The row of a custom resource of `kind` at `api_version` (`group/version`), if the table
/// knows that kind at that version.
pub fn custom_workload(api_version: Option<&str>, kind: &str) -> Option<&'static CustomWorkload> {
    let (group, version) = api_version?.rsplit_once('/')?;
    CUSTOM_WORKLOADS
        .iter()
        .find(|r| r.group == group && r.kinds.contains(&kind) && r.versions.contains(&version))
}

/// The fields of a pod spec that say where it may run; a values mapping that holds
/// `tolerations` and one of the others beside it is taken for a workload's pod fields.
pub const PLACEMENT_FIELDS: &[&str] = &["nodeSelector", "affinity", "resources"];

/// The workload kinds a chart's template may render values into, as `'static` names.
pub fn workload_kind(kind: &str) -> Option<&'static str> {
    [
        "Pod",
        "Deployment",
        "StatefulSet",
        "DaemonSet",
        "ReplicaSet",
        "ReplicationController",
        "Job",
        "CronJob",
    ]
    .into_iter()
    .find(|k| *k == kind)
}

/// What a chart's templates render its values into: per values path (`controller`, or `""`
/// for the values' root), the kind of the workload whose pod spec takes the fields found there
/// (`None` when templates of different kinds use them). Gathered at the edge from the chart's
/// `templates/`, handed to the core with the values file's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChartKinds {
    pub workloads: Vec<(String, Option<&'static str>)>,
}

impl ChartKinds {
    /// Reads what the chart's templates (`(file name, text)`) render values into: a template
    /// that uses `.Values.<path>.tolerations` (or `nodeSelector`, `affinity`) and declares a
    /// workload `kind:` renders `<path>` into that kind's pod spec. A template that declares
    /// two kinds, one for each branch of a condition on the values (`{{- if .Values.useDaemonset
    /// }}kind: DaemonSet{{- else }}kind: Deployment{{- end }}`, as Bitnami's `dep-ds.yaml`),
    /// renders it into the one the values choose: which, the templates alone do not say.
    /// Helpers (`_helpers.tpl`) declare no kind and say nothing.
    pub fn from_templates<'t>(templates: impl IntoIterator<Item = (&'t str, &'t str)>) -> Self {
        let mut workloads: Vec<(String, Option<&'static str>)> = Vec::new();
        for (_, text) in templates {
            let mut kinds = text.lines().filter_map(|l| {
                let kind = l.trim_end().strip_prefix("kind:")?.trim();
                workload_kind(kind.trim_matches(|c| c == '"' || c == '\''))
            });
            let Some(first) = kinds.next() else {
                continue;
            };
            let kind = kinds.all(|k| k == first).then_some(first);
            for path in value_paths(text) {
                match workloads.iter_mut().find(|(p, _)| *p == path) {
                    Some((_, k)) if *k != kind => *k = None,
                    Some(_) => {}
                    None => workloads.push((path, kind)),
                }
            }
        }
        workloads.sort();
        ChartKinds { workloads }
    }

    pub fn is_empty(&self) -> bool {
        self.workloads.is_empty()
    }
}

/// The values paths whose pod fields a template uses: `controller` for
/// `.Values.controller.tolerations`, `""` for `.Values.tolerations`.
fn value_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(".Values.") {
        rest = &rest[at + ".Values.".len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches('.');
        let (parent, field) = path.rsplit_once('.').unwrap_or(("", path));
        if matches!(field, "tolerations" | "nodeSelector" | "affinity")
            && !out.iter().any(|p| p == parent)
        {
            out.push(parent.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_a_group_kinds_and_paths() {
        let mut seen = std::collections::HashSet::new();
        for r in CUSTOM_WORKLOADS {
            assert!(r.group.contains('.'), "{}", r.group);
            assert!(!r.kinds.is_empty() && !r.versions.is_empty(), "{}", r.group);
            assert!(r.paths.is_empty() != r.objects.is_empty(), "{}", r.group);
            for k in r.kinds {
                assert!(seen.insert((r.group, *k)), "{} {k} twice", r.group);
            }
        }
        assert_eq!(
            custom_pod_specs(Some("ray.io"), "RayJob").map(|p| p.len()),
            Some(3)
        );
        // A kind is known in its group only: Volcano's Job is not batch/v1's.
        assert!(custom_pod_specs(Some("batch.volcano.sh"), "Job").is_some());
        assert!(custom_pod_specs(Some("batch"), "Job").is_none());
        assert!(custom_pod_specs(None, "Prometheus").is_none());
    }

    /// A custom resource is a workload at the versions its operator serves only.
    #[test]
    fn a_row_is_found_by_group_version_and_kind() {
        let found = |api_version, kind| {
            custom_workload(api_version, kind).map(|r| (r.group, r.paths.len(), r.objects.len()))
        };
        assert_eq!(
            found(Some("ray.io/v1"), "RayCluster"),
            Some(("ray.io", 2, 0))
        );
        assert_eq!(
            found(Some("ray.io/v1alpha1"), "RayJob"),
            Some(("ray.io", 3, 0))
        );
        assert_eq!(found(Some("ray.io/v2"), "RayCluster"), None);
        assert_eq!(found(Some("ray.io/v1"), "Deployment"), None);
        assert_eq!(found(Some("apps/v1"), "RayCluster"), None);
        assert_eq!(found(Some("v1"), "RayCluster"), None);
        assert_eq!(found(None, "RayCluster"), None);
    }

    #[test]
    fn templates_say_what_values_render_into() {
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      {{- with .Values.controller.nodeSelector }}\n      nodeSelector: {{ toYaml . | nindent 8 }}\n      {{- end }}\n      tolerations: {{- toYaml .Values.controller.tolerations | nindent 8 }}\n";
        let daemonset = "kind: DaemonSet\nspec:\n  template:\n    spec:\n      tolerations: {{ toYaml .Values.agent.tolerations | nindent 8 }}\n      {{- with .Values.tolerations }}{{ toYaml . }}{{ end }}\n";
        let shared = "kind: \"Job\"\nspec:\n  template:\n    spec:\n      tolerations: {{ toYaml .Values.agent.tolerations }}\n";
        let helpers = "{{- define \"x\" -}}{{ .Values.helper.tolerations }}{{- end }}";
        // The values choose the kind (as Bitnami's kong chart's `dep-ds.yaml`); a kind nested
        // in the spec (a VerticalPodAutoscaler's `targetRef`) is not the template's.
        let either = "{{- if .Values.useDaemonset }}\nkind: DaemonSet\n{{- else }}\nkind: Deployment\n{{- end }}\nspec:\n  template:\n    spec:\n      tolerations: {{ toYaml .Values.proxy.tolerations }}\n";
        let vpa = "kind: VerticalPodAutoscaler\nspec:\n  targetRef:\n    kind: DaemonSet\n---\nkind: Deployment\nspec:\n  template:\n    spec:\n      tolerations: {{ toYaml .Values.web.tolerations }}\n";
        let kinds = ChartKinds::from_templates([
            ("deployment.yaml", deployment),
            ("daemonset.yaml", daemonset),
            ("job.yaml", shared),
            ("_helpers.tpl", helpers),
            ("dep-ds.yaml", either),
            ("web.yaml", vpa),
        ]);
        assert_eq!(
            kinds.workloads,
            vec![
                (String::new(), Some("DaemonSet")),
                ("agent".to_string(), None),
                ("controller".to_string(), Some("Deployment")),
                ("proxy".to_string(), None),
                ("web".to_string(), Some("Deployment")),
            ]
        );
        assert!(!kinds.is_empty());
        // Two templates of one kind (a canary beside the main Deployment) keep the kind.
        let canary = deployment.replace(
            "spec:\n  template:",
            "metadata: {name: canary}\nspec:\n  template:",
        );
        let kinds = ChartKinds::from_templates([
            ("deployment.yaml", deployment),
            ("canary.yaml", canary.as_str()),
        ]);
        assert_eq!(
            kinds.workloads,
            vec![("controller".to_string(), Some("Deployment"))]
        );
        // Other values a template uses are no pod fields.
        let image = "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - image: {{ .Values.image.repository }}\n";
        assert!(ChartKinds::from_templates([("deployment.yaml", image)]).is_empty());
        // Helpers alone render nothing.
        assert!(ChartKinds::from_templates([("_helpers.tpl", helpers)]).is_empty());
    }
}
