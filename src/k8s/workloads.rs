//! Where pod specs live beyond the core workload kinds: custom resources whose controllers make
//! pods, and chart values that a chart's templates render into a workload's pod spec.
//!
//! A custom resource's pods are found by [`custom_workload`], one row per kind: its API group,
//! its kinds, and for each kind of pod it makes ([`Pods`]) the component that makes them, where
//! in it the pod fields are (a pod template's `spec`, the mapping that holds pod fields inline,
//! or a template of the operator's own), and where the resource keeps what it puts into the pods
//! outside those fields: the requests and limits (Strimzi's `resources`, a KServe framework's
//! container, a Spark driver's `cores` and `memory`), the replica count, a node selector. Each
//! row cites the operator's API type it follows. The table covers the kinds and versions of its
//! rows; a kind it does not know is read where its CustomResourceDefinition, when at hand, says
//! its pod specs are ([`crate::k8s::crd`]), else searched for pod specs by their shape.

/// One row of the table: the kinds of an API group, at the versions its operator serves, whose
/// objects make the pods of `pods`, or hold whole objects (each with its own pods) at `objects`.
/// A path is written with `.` between mapping keys; `name[]` stands for every item of the
/// sequence `name`, `*` for every value of a mapping (a role name, a replica type).
#[derive(Debug, Clone, Copy)]
pub struct CustomWorkload {
    pub group: &'static str,
    pub versions: &'static [&'static str],
    pub kinds: &'static [&'static str],
    pub pods: &'static [Pods],
    pub objects: &'static [&'static str],
}

/// One kind of pod a custom resource makes, and where the resource keeps what goes into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pods {
    /// The component that makes the pods, from the object's root (`spec.workerGroupSpecs[]`,
    /// `spec.kafka`): each mapping there makes pods of its own.
    pub at: &'static str,
    /// The pod fields (tolerations, nodeSelector, affinity, containers, ...), from the
    /// component: a pod template's `spec` (`template.spec`), a template of the operator's own
    /// (Strimzi's `template.pod`), or `""` when the component holds them inline.
    pub spec: &'static str,
    /// What a component without `spec` makes.
    pub absent: Absent,
    /// Where the pods' requests and limits are.
    pub requests: Requests,
    /// Where the number of pods is, from the component (`None`: one pod, or counted in the pod
    /// template's owner as a core workload counts it).
    pub replicas: Option<&'static str>,
    /// A `nodeSelector` the operator adds to the pods from outside the component, from the
    /// object's root (a SparkApplication's `spec.nodeSelector`, for its driver and executors).
    pub selector: Option<&'static str>,
}

/// What a component written without its pod fields' mapping makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absent {
    /// Pods that cannot be read (a Ray worker group without its template): said on stderr.
    Said,
    /// Its pods all the same, their fields left to the operator (a Strimzi broker without
    /// `template.pod`): simulated with what the component says.
    Component,
    /// No pods of its own (a LeaderWorkerSet's leaders run the worker template when
    /// `leaderTemplate` is left out; a Rollout may name a Deployment's template instead).
    Nothing,
}

/// Where the requests and limits of a custom resource's pods are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requests {
    /// In the pod fields, as a pod spec keeps them: containers, init containers, pod-level
    /// `resources`, overhead.
    PodSpec,
    /// The operator makes one container for each `ResourceRequirements` at these paths (from
    /// the component) that is written, beside the containers the pod fields list, if any; a
    /// `resources` among the pod fields is one of those containers', not the pod's.
    Containers(&'static [&'static str]),
    /// As a pod spec keeps them, with the operator's own container: the first of `replace`
    /// written (a container inline: KServe's `sklearn`, `pytorch`, ...) takes the place of
    /// the first container listed; one of `join` written (KServe's `model`) runs beside all of
    /// them.
    Implementation {
        replace: &'static [&'static str],
        join: &'static [&'static str],
    },
    /// A Spark driver or executor (`SparkPodSpec`: `cores`, `memory`, `gpu`, ... with its
    /// `sidecars` and `initContainers`), of the application whose spec is at `application`
    /// (from the object's root: its `sparkConf`, `type` and `memoryOverheadFactor`), sized as
    /// Spark sizes it ([`crate::k8s::spark`]).
    Spark {
        application: &'static str,
        executor: bool,
    },
    /// A Kubeflow TrainJob's trainer: the `ResourceRequirements` at `resources` (from the
    /// component) are the requests of the trainer's container; its pod fields are those of
    /// the runtime override or patch that names the trainer's job ([`TRAINER_JOB`]).
    Trainer { resources: &'static str },
}

/// A pod template's or inline pod fields' pods, sized as a pod spec sizes them.
const fn pod(at: &'static str) -> Pods {
    Pods {
        at,
        spec: "",
        absent: Absent::Said,
        requests: Requests::PodSpec,
        replicas: None,
        selector: None,
    }
}

/// The pods of the pod template at `spec` in the component `at`, `replicas` of them.
const fn template(at: &'static str, spec: &'static str, replicas: Option<&'static str>) -> Pods {
    Pods {
        at,
        spec,
        absent: Absent::Said,
        requests: Requests::PodSpec,
        replicas,
        selector: None,
    }
}

/// The pods of the pod template at `spec` in the component `at`, if it is written: a
/// component without it makes no pods of its own.
const fn optional_template(at: &'static str, spec: &'static str) -> Pods {
    Pods {
        at,
        spec,
        absent: Absent::Nothing,
        requests: Requests::PodSpec,
        replicas: None,
        selector: None,
    }
}

/// The pods a Strimzi component makes (`replicas` of them): their pod fields in its
/// `template.pod`, which may be left out, and a container for each `resources` listed.
const fn strimzi(
    at: &'static str,
    resources: &'static [&'static str],
    replicas: Option<&'static str>,
) -> Pods {
    Pods {
        at,
        spec: "template.pod",
        absent: Absent::Component,
        requests: Requests::Containers(resources),
        replicas,
        selector: None,
    }
}

/// A Spark application's driver and executors, the application's spec at `application`.
macro_rules! spark {
    ($application:literal) => {
        &[
            Pods {
                at: concat!($application, ".driver"),
                spec: "",
                absent: Absent::Said,
                requests: Requests::Spark {
                    application: $application,
                    executor: false,
                },
                replicas: None,
                selector: Some(concat!($application, ".nodeSelector")),
            },
            Pods {
                at: concat!($application, ".executor"),
                spec: "",
                absent: Absent::Said,
                requests: Requests::Spark {
                    application: $application,
                    executor: true,
                },
                replicas: Some("instances"),
                selector: Some(concat!($application, ".nodeSelector")),
            },
        ]
    };
}

const fn row(
    group: &'static str,
    versions: &'static [&'static str],
    kinds: &'static [&'static str],
    pods: &'static [Pods],
) -> CustomWorkload {
    CustomWorkload {
        group,
        versions,
        kinds,
        pods,
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
        pods: &[],
        objects,
    }
}

/// The Ray cluster a RayCluster, RayJob or RayService describes: a head group and worker groups
/// (`replicas` each), each with a pod template.
macro_rules! ray_cluster {
    ($prefix:literal) => {
        [
            template(concat!($prefix, "headGroupSpec"), "template.spec", None),
            template(
                concat!($prefix, "workerGroupSpecs[]"),
                "template.spec",
                Some("replicas"),
            ),
        ]
    };
}

/// The versions KubeRay serves (`ray.io/v1alpha1` is still read by its conversion).
const RAY: &[&str] = &["v1", "v1alpha1"];

/// KServe's predictor frameworks (kserve/kserve pkg/apis/serving/v1beta1/predictor.go
/// `PredictorSpec`: each a `PredictorExtensionSpec` that inlines a `corev1.Container`).
const KSERVE_FRAMEWORKS: &[&str] = &[
    "sklearn",
    "xgboost",
    "tensorflow",
    "pytorch",
    "triton",
    "onnx",
    "huggingface",
    "pmml",
    "lightgbm",
    "paddle",
];

/// The name of a Kubeflow TrainJob's trainer job in its runtime, which its overrides and
/// patches name to change the trainer's pods (kubeflow/trainer pkg/constants/constants.go
/// `Node`: "the name of the Job and container for the trainer node").
pub const TRAINER_JOB: &str = "node";

/// Where a TrainJob's runtime overrides and patches are, each item naming the jobs it changes:
/// (the items, from the object's root; their pod fields, from the item; the job names, from the
/// item). kubeflow/trainer pkg/apis/trainer/v1alpha1/trainjob_types.go: `podSpecOverrides`
/// (v2.0: `PodSpecOverride`, pod fields inline, `targetJobs[].name`), `podTemplateOverrides`
/// (v2.1: `PodTemplateOverride.Spec`, `targetJobs[].name`) and `runtimePatches` (v2.2 on:
/// `ReplicatedJobPatch` by `name`, its `template.spec.template.spec` a `PodSpecPatch`).
pub const TRAINER_OVERRIDES: &[(&str, &str, &str)] = &[
    ("spec.podSpecOverrides[]", "", "targetJobs[].name"),
    ("spec.podTemplateOverrides[]", "spec", "targetJobs[].name"),
    (
        "spec.runtimePatches[].trainingRuntimeSpec.template.spec.replicatedJobs[]",
        "template.spec.template.spec",
        "name",
    ),
];

/// Custom resources whose controllers make pods from pod specs they hold, by API group and kind.
pub const CUSTOM_WORKLOADS: &[CustomWorkload] = &[
    // prometheus-operator/prometheus-operator pkg/apis/monitoring/v1/prometheus_types.go
    // (CommonPrometheusFields: nodeSelector, tolerations, affinity inline in `spec`;
    // `resources` "of the 'prometheus' container", `containers` added or merged by name;
    // `replicas`), alertmanager_types.go, thanos_types.go (ThanosRulerSpec) and
    // v1alpha1/prometheusagent_types.go, each `resources` its main container's.
    row(
        "monitoring.coreos.com",
        &["v1", "v1alpha1"],
        &[
            "Prometheus",
            "Alertmanager",
            "ThanosRuler",
            "PrometheusAgent",
        ],
        &[Pods {
            at: "spec",
            spec: "",
            absent: Absent::Said,
            requests: Requests::Containers(&["resources"]),
            replicas: Some("replicas"),
            selector: None,
        }],
    ),
    // argoproj/argo-rollouts pkg/apis/rollouts/v1alpha1/types.go: RolloutSpec.Template
    // (a corev1.PodTemplateSpec; or WorkloadRef, a Deployment's template), RolloutSpec.Replicas.
    row(
        "argoproj.io",
        &["v1alpha1"],
        &["Rollout"],
        &[Pods {
            replicas: Some("replicas"),
            ..optional_template("spec", "template.spec")
        }],
    ),
    // kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go: ReplicatedJob.Template (a
    // batchv1.JobTemplateSpec), ReplicatedJob.Replicas.
    row(
        "jobset.x-k8s.io",
        &["v1alpha2"],
        &["JobSet"],
        &[template(
            "spec.replicatedJobs[]",
            "template.spec.template.spec",
            Some("replicas"),
        )],
    ),
    // kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go: LeaderWorkerTemplate
    // (LeaderTemplate, an optional *PodTemplateSpec: without it the leader runs the worker
    // template; WorkerTemplate; Size pods a group).
    row(
        "leaderworkerset.x-k8s.io",
        &["v1"],
        &["LeaderWorkerSet"],
        &[
            optional_template("spec.leaderWorkerTemplate", "leaderTemplate.spec"),
            template(
                "spec.leaderWorkerTemplate",
                "workerTemplate.spec",
                Some("size"),
            ),
        ],
    ),
    // ray-project/kuberay ray-operator/apis/ray/v1/raycluster_types.go (HeadGroupSpec,
    // WorkerGroupSpec: Template, Replicas), rayjob_types.go (RayClusterSpec, and the optional
    // SubmitterPodTemplate: without it KubeRay makes a submitter of its own) and rayservice_types.go (RayClusterSpec, written
    // `rayClusterConfig`).
    row("ray.io", RAY, &["RayCluster"], &ray_cluster!("spec.")),
    row(
        "ray.io",
        RAY,
        &["RayJob"],
        &[
            ray_cluster!("spec.rayClusterSpec.")[0],
            ray_cluster!("spec.rayClusterSpec.")[1],
            optional_template("spec.submitterPodTemplate", "spec"),
        ],
    ),
    row(
        "ray.io",
        RAY,
        &["RayService"],
        &ray_cluster!("spec.rayClusterConfig."),
    ),
    // kubeflow/training-operator pkg/apis/kubeflow.org/v1/{pytorch,tensorflow,xgboost,paddlepaddle,
    // jax,mxnet}_types.go and the v2beta1 MPIJob (kubeflow/mpi-operator
    // pkg/apis/kubeflow/v2beta1/types.go): `<x>ReplicaSpecs`, a map of replica type (Master,
    // Worker, Launcher, ...) to a ReplicaSpec whose Template is a corev1.PodTemplateSpec.
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["PyTorchJob"],
        &[template(
            "spec.pytorchReplicaSpecs.*",
            "template.spec",
            Some("replicas"),
        )],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["TFJob"],
        &[template(
            "spec.tfReplicaSpecs.*",
            "template.spec",
            Some("replicas"),
        )],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["MPIJob"],
        &[template(
            "spec.mpiReplicaSpecs.*",
            "template.spec",
            Some("replicas"),
        )],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["XGBoostJob"],
        &[template(
            "spec.xgbReplicaSpecs.*",
            "template.spec",
            Some("replicas"),
        )],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["PaddleJob"],
        &[template(
            "spec.paddleReplicaSpecs.*",
            "template.spec",
            Some("replicas"),
        )],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["JAXJob"],
        &[template(
            "spec.jaxReplicaSpecs.*",
            "template.spec",
            Some("replicas"),
        )],
    ),
    row(
        "kubeflow.org",
        &["v1", "v2beta1"],
        &["MXJob"],
        &[template(
            "spec.mxReplicaSpecs.*",
            "template.spec",
            Some("replicas"),
        )],
    ),
    // volcano-sh/apis pkg/apis/batch/v1alpha1/job.go: TaskSpec.Template (a
    // corev1.PodTemplateSpec), TaskSpec.Replicas; a CronJob's JobTemplate (JobTemplateSpec)
    // holds a Job's spec, tasks and all (CronJobSpec.JobTemplate). Its kind is batch/v1's
    // name: the group tells them apart.
    row(
        "batch.volcano.sh",
        &["v1alpha1"],
        &["Job"],
        &[template("spec.tasks[]", "template.spec", Some("replicas"))],
    ),
    row(
        "batch.volcano.sh",
        &["v1alpha1"],
        &["CronJob"],
        &[template(
            "spec.jobTemplate.spec.tasks[]",
            "template.spec",
            Some("replicas"),
        )],
    ),
    // kserve/kserve pkg/apis/serving/v1beta1/predictor.go, transformer.go, explainer.go: each
    // component embeds a PodSpec inline (`PodSpec `json:",inline"``, podspec.go) and a
    // ComponentExtensionSpec (component.go: MinReplicas, MaxReplicas). A predictor's model
    // container is its framework's (`sklearn`, `pytorch`, ...: a PredictorExtensionSpec inlining
    // a corev1.Container), which takes the place of its first container
    // (pkg/controller/v1beta1/inferenceservice/components/predictor.go: `podSpec.Containers[0]
    // = *predContainer`), or its `model` (ModelSpec), merged with its ServingRuntime's container
    // and run beside the containers it lists (`buildPodSpec`); an explainer's `art` (and
    // before v0.11 `alibi`, `aix`: ExplainerExtensionSpec) likewise takes the first
    // container's place (components/explainer.go). predictor.go's WorkerSpec (multi-node
    // serving) embeds a PodSpec too.
    row(
        "serving.kserve.io",
        &["v1beta1"],
        &["InferenceService"],
        &[
            Pods {
                at: "spec.predictor",
                spec: "",
                absent: Absent::Said,
                requests: Requests::Implementation {
                    replace: KSERVE_FRAMEWORKS,
                    join: &["model"],
                },
                replicas: Some("minReplicas"),
                selector: None,
            },
            pod("spec.predictor.workerSpec"),
            template("spec.transformer", "", Some("minReplicas")),
            Pods {
                at: "spec.explainer",
                spec: "",
                absent: Absent::Said,
                requests: Requests::Implementation {
                    replace: &["art", "alibi", "aix"],
                    join: &[],
                },
                replicas: Some("minReplicas"),
                selector: None,
            },
        ],
    ),
    // kserve/kserve pkg/apis/serving/v1alpha1/inference_graph.go: InferenceGraphSpec keeps the
    // router's pod fields inline (Affinity, Tolerations, NodeSelector, NodeName), its
    // container's `Resources` (pkg/controller/v1alpha1/inferencegraph/raw_ig.go,
    // knative_reconciler.go) and MinReplicas.
    row(
        "serving.kserve.io",
        &["v1alpha1"],
        &["InferenceGraph"],
        &[Pods {
            at: "spec",
            spec: "",
            absent: Absent::Said,
            requests: Requests::Containers(&["resources"]),
            replicas: Some("minReplicas"),
            selector: None,
        }],
    ),
    // kserve/kserve pkg/apis/serving/v1alpha1/servingruntime_types.go: ServingRuntimeSpec
    // embeds ServingRuntimePodSpec inline (containers, nodeSelector, affinity, tolerations) and
    // its WorkerSpec (multi-node serving) embeds one too.
    row(
        "serving.kserve.io",
        &["v1alpha1"],
        &["ServingRuntime", "ClusterServingRuntime"],
        &[pod("spec"), pod("spec.workerSpec")],
    ),
    // kserve/kserve pkg/apis/serving/v1alpha1/llm_inference_service_types.go:
    // LLMInferenceServiceSpec inlines a WorkloadSpec (Replicas, Template, Worker:
    // corev1.PodSpec, each optional: a config's or KServe's defaults fill them) and holds
    // another as Prefill; an LLMInferenceServiceConfig has the same spec.
    row(
        "serving.kserve.io",
        &["v1alpha1", "v1alpha2"],
        &["LLMInferenceService", "LLMInferenceServiceConfig"],
        &[
            Pods {
                replicas: Some("replicas"),
                ..optional_template("spec", "template")
            },
            optional_template("spec", "worker"),
            Pods {
                replicas: Some("replicas"),
                ..optional_template("spec.prefill", "template")
            },
            optional_template("spec.prefill", "worker"),
        ],
    ),
    // kubeflow/trainer pkg/apis/trainer/v1alpha1/trainingruntime_types.go:
    // TrainingRuntimeSpec.Template (a JobSetTemplateSpec: a JobSet's spec, its replicated jobs'
    // batchv1.JobTemplateSpec).
    row(
        "trainer.kubeflow.org",
        &["v1alpha1"],
        &["TrainingRuntime", "ClusterTrainingRuntime"],
        &[template(
            "spec.template.spec.replicatedJobs[]",
            "template.spec.template.spec",
            Some("replicas"),
        )],
    ),
    // kubeflow/trainer pkg/apis/trainer/v1alpha1/trainjob_types.go: a TrainJob's pods are its
    // runtime's (RuntimeRef), changed by its Trainer (NumNodes; ResourcesPerNode, the
    // requests of the trainer job's `node` container: pkg/runtime/core/trainingruntime.go) and
    // by the overrides or patches that name the trainer's job ([`TRAINER_OVERRIDES`]).
    row(
        "trainer.kubeflow.org",
        &["v1alpha1"],
        &["TrainJob"],
        &[Pods {
            at: "spec",
            spec: "",
            absent: Absent::Component,
            requests: Requests::Trainer {
                resources: "trainer.resourcesPerNode",
            },
            replicas: Some("trainer.numNodes"),
            selector: None,
        }],
    ),
    // kubeflow/spark-operator api/v1beta2/sparkapplication_types.go: SparkApplicationSpec.Driver
    // and .Executor embed SparkPodSpec (cores, coreLimit, memory, memoryOverhead, gpu,
    // nodeSelector, affinity, tolerations, sidecars, initContainers; Executor.Instances), beside
    // the application's own NodeSelector for both; a ScheduledSparkApplication's Template is a
    // SparkApplicationSpec. v1beta1 (pkg/apis/sparkoperator.k8s.io/v1beta1/types.go, up to
    // operator v1beta2-1.4) has the same fields, `cores` a float.
    row(
        "sparkoperator.k8s.io",
        &["v1beta2", "v1beta1"],
        &["SparkApplication"],
        spark!("spec"),
    ),
    row(
        "sparkoperator.k8s.io",
        &["v1beta2", "v1beta1"],
        &["ScheduledSparkApplication"],
        spark!("spec.template"),
    ),
    // knative/serving pkg/apis/serving/v1/revision_types.go: RevisionSpec embeds a corev1.PodSpec
    // inline; service_types.go and configuration_types.go: ConfigurationSpec.Template is a
    // RevisionTemplateSpec.
    row(
        "serving.knative.dev",
        &["v1"],
        &["Service", "Configuration"],
        &[template("spec.template", "spec", None)],
    ),
    row(
        "serving.knative.dev",
        &["v1"],
        &["Revision"],
        &[pod("spec")],
    ),
    // strimzi/strimzi-kafka-operator api/src/main/java/io/strimzi/api/kafka/model/common/
    // template/PodTemplate.java: each component's `template.pod` holds pod fields (affinity,
    // tolerations, priorityClassName, schedulerName; no containers, no nodeSelector), and may be
    // left out. Its containers' requests are the component's `resources` (KafkaClusterSpec,
    // ZookeeperClusterSpec, CruiseControlSpec, KafkaExporterSpec; an Entity Operator runs a
    // container per operator, EntityTopicOperatorSpec and EntityUserOperatorSpec `resources`,
    // its `tlsSidecar` ignored since 0.41), its pods `replicas`. A KafkaNodePool, KafkaConnect,
    // KafkaMirrorMaker2, KafkaMirrorMaker or KafkaBridge keeps them in its `spec`
    // (KafkaNodePoolSpec, AbstractKafkaConnectSpec, KafkaBridgeSpec, KafkaMirrorMakerSpec). A
    // node pool that leaves out `resources` or `template` takes its Kafka's `spec.kafka` ones
    // (cluster-operator/.../model/KafkaPool.java), which are read with the Kafka.
    row(
        "kafka.strimzi.io",
        &["v1beta2", "v1"],
        &["Kafka"],
        &[
            strimzi("spec.kafka", &["resources"], Some("replicas")),
            strimzi("spec.zookeeper", &["resources"], Some("replicas")),
            strimzi(
                "spec.entityOperator",
                &["topicOperator.resources", "userOperator.resources"],
                None,
            ),
            strimzi("spec.cruiseControl", &["resources"], None),
            strimzi("spec.kafkaExporter", &["resources"], None),
        ],
    ),
    row(
        "kafka.strimzi.io",
        &["v1beta2", "v1"],
        &[
            "KafkaNodePool",
            "KafkaConnect",
            "KafkaMirrorMaker2",
            "KafkaMirrorMaker",
            "KafkaBridge",
        ],
        &[strimzi("spec", &["resources"], Some("replicas"))],
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

/// The row of a custom resource of `kind` in the API `group`, if the table knows it (at any
/// version).
pub fn custom_kind(group: Option<&str>, kind: &str) -> Option<&'static CustomWorkload> {
    let group = group?;
    CUSTOM_WORKLOADS
        .iter()
        .find(|r| r.group == group && r.kinds.contains(&kind))
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
    fn every_row_names_a_group_kinds_and_pods() {
        let mut seen = std::collections::HashSet::new();
        for r in CUSTOM_WORKLOADS {
            assert!(r.group.contains('.'), "{}", r.group);
            assert!(!r.kinds.is_empty() && !r.versions.is_empty(), "{}", r.group);
            assert!(r.pods.is_empty() != r.objects.is_empty(), "{}", r.group);
            for k in r.kinds {
                assert!(seen.insert((r.group, *k)), "{} {k} twice", r.group);
            }
            for p in r.pods {
                // A component is a path; its pod fields, replicas and resources are plain
                // field paths inside it (one mapping each).
                assert!(!p.at.is_empty(), "{}", r.group);
                let plain = |s: &str| !s.contains(['[', '*']);
                assert!(plain(p.spec), "{} {}", r.group, p.spec);
                assert!(p.replicas.is_none_or(plain), "{}", r.group);
                if let Requests::Containers(paths) = p.requests {
                    assert!(paths.iter().all(|s| plain(s)), "{}", r.group);
                }
            }
        }
        assert_eq!(
            custom_kind(Some("ray.io"), "RayJob").map(|r| r.pods.len()),
            Some(3)
        );
        // A kind is known in its group only: Volcano's Job and CronJob are not batch/v1's.
        assert!(custom_kind(Some("batch.volcano.sh"), "Job").is_some());
        assert!(custom_kind(Some("batch.volcano.sh"), "CronJob").is_some());
        assert!(custom_kind(Some("batch"), "Job").is_none());
        assert!(custom_kind(None, "Prometheus").is_none());
    }

    /// A custom resource is a workload at the versions its operator serves only.
    #[test]
    fn a_row_is_found_by_group_version_and_kind() {
        let found = |api_version, kind| {
            custom_workload(api_version, kind).map(|r| (r.group, r.pods.len(), r.objects.len()))
        };
        assert_eq!(
            found(Some("ray.io/v1"), "RayCluster"),
            Some(("ray.io", 2, 0))
        );
        assert_eq!(
            found(Some("ray.io/v1alpha1"), "RayJob"),
            Some(("ray.io", 3, 0))
        );
        assert_eq!(
            found(Some("sparkoperator.k8s.io/v1beta1"), "SparkApplication"),
            Some(("sparkoperator.k8s.io", 2, 0))
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
