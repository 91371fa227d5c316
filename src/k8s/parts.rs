//! What an object and the part of it that holds a pod template are called: `Deployment
//! shop/web`, `RayCluster ml/rl-train, worker group l4-workers`. One title for every face: the
//! findings' messages, `simulate`'s rows and JSON, the editor's lenses and hovers.
//!
//! A custom resource may hold several pod templates (a RayCluster's head and worker groups, a
//! JobSet's replicated jobs, a PyTorchJob's replica types), and its users know each by the name
//! they gave it (`groupName: l4-workers`), not by its place (`workerGroupSpecs[1]`). A part is
//! named from the path of its pod spec and the object: the item of a list by its own name
//! (`groupName`, else `name`), a replica type by its key, a fixed field by what its operator
//! calls it (`headGroupSpec` is the head group, `leaderTemplate` the leader), anything else by
//! its place, as before.

use crate::k8s::objects::{api_group, pod_spec_path, Object};
use crate::k8s::workloads::custom_kind;
use crate::syntax::{Document, NodeId};

/// What a workload of chart values whose templates are not at hand is, in its title.
const UNKNOWN_KIND: &str = "workload of unknown kind";

/// `Deployment shop/web`, `Pod web`, `RayCluster ml/rl-train, worker group l4-workers`; an
/// unnamed object by its place (``Deployment `items[0]` ``, chart values whose templates are not at
/// hand: `workload of unknown kind `controller``), else its kind alone.
pub fn title(
    kind: Option<&str>,
    namespace: Option<&str>,
    name: Option<&str>,
    object_path: &str,
    part: Option<&str>,
) -> String {
    // Chart values whose templates are not at hand: a Deployment, a DaemonSet, ...
    let kind = kind.unwrap_or(UNKNOWN_KIND);
    let title = match (namespace, name) {
        (Some(ns), Some(n)) => format!("{kind} {ns}/{n}"),
        (None, Some(n)) => format!("{kind} {n}"),
        _ if !object_path.is_empty() => format!("{kind} `{object_path}`"),
        _ => kind.to_string(),
    };
    match part {
        Some(part) => format!("{title}, {part}"),
        None => title,
    }
}

/// [`title`] of an object found in a document; chart values of a workload of unknown kind are
/// named after the object that installs the chart ([`Object::said_as`]: `HelmRelease
/// shop/web, values `worker``, the part [`part`] says).
pub fn object_title(object: &Object<'_>, part: Option<&str>) -> String {
    let (kind, namespace, name) = object.said_as();
    title(kind, namespace, name, &object.path, part)
}

/// The part of an object that installs a chart which chart values at `path` (from the
/// document root) are, the values at `values`: `values `worker``, or `values` for the values
/// mapping itself.
pub fn values_part(values: &str, path: &str) -> String {
    match path
        .strip_prefix(values)
        .map(|rest| rest.trim_start_matches('.'))
        .filter(|rest| !rest.is_empty())
    {
        Some(rest) => format!("values `{rest}`"),
        None => "values".to_string(),
    }
}

/// One step of a path from an object to its pod spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step<'p> {
    Field(&'p str),
    Index(usize),
}

/// The steps of a field path as [`crate::k8s::objects`] writes it: `a.b[1].c`, a key that is no
/// plain field name as `[key]`.
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let Some(end) = inner.find(']') else {
                out.push(Step::Field(inner));
                break;
            };
            let key = &inner[..end];
            out.push(match key.parse() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Field(key),
            });
            rest = &inner[end + 1..];
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            if end > 0 {
                out.push(Step::Field(&rest[..end]));
            }
            rest = &rest[end..];
        }
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    out
}

/// A message about a workload of unknown kind (`workload of unknown kind `worker``, or the
/// bare words for the values' root) in values read from a string of another object (an Argo CD
/// Application's `helm.values`), with the workload named as the object names it: `title` gives
/// that name from the workload's path in the string (`Application argocd/web, values
/// `worker``; `Application argocd/web, values` for the root, whose path is empty).
pub fn retitle_values(message: &str, title: impl Fn(&str) -> String) -> String {
    let Some(start) = message.find(UNKNOWN_KIND) else {
        return message.to_string();
    };
    let after = &message[start + UNKNOWN_KIND.len()..];
    let at = after.strip_prefix(" `").and_then(|quoted| {
        let end = quoted.find('`')?;
        Some((&quoted[..end], &quoted[end + 1..]))
    });
    let (path, rest) = at.unwrap_or(("", after));
    format!("{}{}{rest}", &message[..start], title(path))
}

/// Which part of `object` the pod spec at `spec_path` (from the document root) is, in words:
/// `worker group l4-workers`, `replicated job workers`, `Worker replicas`, `leader`, `driver`;
/// `None` for the one place of a core workload's pod template, and for a custom resource's
/// template that is the object's own (a Rollout's `spec.template`).
pub fn part(doc: &Document<'_>, object: &Object<'_>, spec_path: &str) -> Option<String> {
    if let (Some(installer), None) = (&object.installer, object.kind) {
        return Some(values_part(&installer.values, spec_path));
    }
    let kind = object.kind?;
    let group = api_group(doc.get_str(object.node, "apiVersion"));
    if pod_spec_path(kind).is_some() && custom_kind(group, kind).is_none() {
        return None;
    }
    let relative = spec_path
        .strip_prefix(object.path.as_str())?
        .trim_start_matches('.');
    let mut steps = steps(relative);
    // What wraps a pod spec in every kind: `template`, its `spec`, Strimzi's `template.pod`.
    while matches!(steps.last(), Some(Step::Field("spec" | "template" | "pod"))) {
        steps.pop();
    }
    let (&last, before) = steps.split_last()?;
    let parent = match before.last() {
        Some(Step::Field(f)) => Some(*f),
        _ => None,
    };
    Some(match last {
        Step::Index(i) => {
            let list = parent.unwrap_or_default();
            let item = node_at(doc, object.node, before).and_then(|n| {
                let items = doc.sequence(n)?;
                items.get(i).copied()
            });
            let name = item.and_then(|item| {
                doc.get_str(item, "groupName")
                    .or_else(|| doc.get_str(item, "name"))
                    .filter(|n| !n.is_empty())
            });
            match (name, list_noun(list)) {
                (Some(name), Some(noun)) => format!("{noun} {name}"),
                (Some(name), None) => format!("{list} {name}"),
                (None, _) => format!("{list}[{i}]"),
            }
        }
        Step::Field(field) if parent.is_some_and(|p| p.ends_with("ReplicaSpecs")) => {
            format!("{field} replicas")
        }
        Step::Field(field) => field_noun(field, parent),
    })
}

/// The node at `steps` under `node`.
fn node_at(doc: &Document<'_>, node: NodeId, steps: &[Step<'_>]) -> Option<NodeId> {
    let mut at = node;
    for step in steps {
        at = match step {
            Step::Field(f) => doc.get(at, f)?.1,
            Step::Index(i) => *doc.sequence(at)?.get(*i)?,
        };
    }
    Some(at)
}

/// What an operator calls an item of one of its lists of pod templates.
fn list_noun(list: &str) -> Option<&'static str> {
    Some(match list {
        // kuberay: WorkerGroupSpec.GroupName.
        "workerGroupSpecs" => "worker group",
        // jobset, and a Kubeflow TrainingRuntime's JobSet: ReplicatedJob.Name.
        "replicatedJobs" => "replicated job",
        // Volcano: TaskSpec.Name.
        "tasks" => "task",
        // Argo Workflows: Template.Name.
        "templates" => "template",
        // AppWrapper: its components.
        "components" => "component",
        _ => return None,
    })
}

/// What an operator calls the part of its resource that a field holds.
fn field_noun(field: &str, parent: Option<&str>) -> String {
    let component = parent.and_then(|p| match p {
        "predictor" | "transformer" | "explainer" | "prefill" => Some(p),
        _ => None,
    });
    match (field, component) {
        // kuberay.
        ("headGroupSpec", _) => "head group".into(),
        ("submitterPodTemplate", _) => "submitter".into(),
        // LeaderWorkerSet.
        ("leaderTemplate", _) => "leader".into(),
        ("workerTemplate", _) => "workers".into(),
        // Spark.
        ("driver", _) => "driver".into(),
        ("executor", _) => "executors".into(),
        // KServe: multi-node serving's workers of a component, or of the service.
        ("workerSpec" | "worker", Some(c)) => format!("{c} workers"),
        ("workerSpec" | "worker", None) => "workers".into(),
        // Strimzi's components, as its documentation names them.
        ("kafka", _) => "Kafka brokers".into(),
        ("zookeeper", _) => "ZooKeeper".into(),
        ("entityOperator", _) => "Entity Operator".into(),
        ("cruiseControl", _) => "Cruise Control".into(),
        ("kafkaExporter", _) => "Kafka Exporter".into(),
        // KServe's predictor, transformer, explainer and prefill are called so.
        (other, _) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::objects::extract;
    use crate::syntax;

    /// The title of each pod template of `text`, in the order found.
    fn titles(text: &str) -> Vec<String> {
        let stream = syntax::parse(text);
        let mut out = Vec::new();
        for doc in &stream.documents {
            let ex = extract(doc);
            for spec in &ex.pod_specs {
                let object = &ex.objects[spec.object];
                out.push(object_title(
                    object,
                    part(doc, object, &spec.path).as_deref(),
                ));
            }
        }
        out
    }

    #[test]
    fn steps_of_paths() {
        assert_eq!(
            steps("spec.workerGroupSpecs[1].template.spec"),
            [
                Step::Field("spec"),
                Step::Field("workerGroupSpecs"),
                Step::Index(1),
                Step::Field("template"),
                Step::Field("spec")
            ]
        );
        assert_eq!(
            steps("spec.x[a key][2]"),
            [
                Step::Field("spec"),
                Step::Field("x"),
                Step::Field("a key"),
                Step::Index(2)
            ]
        );
        assert_eq!(steps(""), []);
    }

    /// Imitates ray-project/kuberay ray-operator/config/samples/ray-cluster.gpu.yaml, with two
    /// worker groups, the second without a name.
    #[test]
    fn ray_groups_by_their_names() {
        let text = "\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rl-train, namespace: ml}
spec:
  headGroupSpec:
    template: {spec: {containers: [{name: head, image: ray}]}}
  workerGroupSpecs:
  - groupName: l4-workers
    template: {spec: {containers: [{name: w, image: ray}]}}
  - template: {spec: {containers: [{name: w, image: ray}]}}
";
        assert_eq!(
            titles(text),
            [
                "RayCluster ml/rl-train, head group",
                "RayCluster ml/rl-train, worker group l4-workers",
                "RayCluster ml/rl-train, workerGroupSpecs[1]",
            ]
        );
    }

    #[test]
    fn every_kind_that_names_its_parts() {
        let text = "\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js}
spec:
  replicatedJobs:
  - name: workers
    template: {spec: {template: {spec: {containers: [{name: c, image: i}]}}}}
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws}
spec:
  leaderWorkerTemplate:
    leaderTemplate: {spec: {containers: [{name: c, image: i}]}}
    workerTemplate: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: bert, namespace: ml}
spec:
  pytorchReplicaSpecs:
    Master: {template: {spec: {containers: [{name: c, image: i}]}}}
    Worker: {template: {spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vj}
spec:
  tasks:
  - name: ps
    template: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: pi}
spec:
  driver: {cores: 1}
  executor: {cores: 1}
---
apiVersion: kafka.strimzi.io/v1beta2
kind: Kafka
metadata: {name: main}
spec:
  kafka: {template: {pod: {tolerations: []}}}
  entityOperator: {template: {pod: {tolerations: []}}}
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: llm}
spec:
  predictor:
    containers: [{name: c, image: i}]
    workerSpec: {containers: [{name: c, image: i}]}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web}
spec:
  template: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: apps/v1
kind: CronJob
metadata: {name: nightly}
spec:
  jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: i}]}}}}
";
        assert_eq!(
            titles(text),
            [
                "JobSet js, replicated job workers",
                "LeaderWorkerSet lws, leader",
                "LeaderWorkerSet lws, workers",
                "PyTorchJob ml/bert, Master replicas",
                "PyTorchJob ml/bert, Worker replicas",
                "Job vj, task ps",
                "SparkApplication pi, driver",
                "SparkApplication pi, executors",
                "Kafka main, Kafka brokers",
                "Kafka main, Entity Operator",
                "InferenceService llm, predictor",
                "InferenceService llm, predictor workers",
                // A template that is the object's own, and a core workload's: no part.
                "Rollout web",
                "CronJob nightly",
            ]
        );
    }

    #[test]
    fn values_in_a_string_are_named_after_their_installer() {
        let title = |at: &str| format!("Application argocd/web, {}", values_part("", at));
        let unknown = |path: &str| title_of_unknown(path);
        assert_eq!(
            retitle_values(&format!("{} fits no node", unknown("worker")), title),
            "Application argocd/web, values `worker` fits no node"
        );
        // Pod fields at the values' root: the bare words, the values themselves.
        assert_eq!(
            retitle_values(&format!("{} fits no node", unknown("")), title),
            "Application argocd/web, values fits no node"
        );
        assert_eq!(
            retitle_values("Deployment web fits no node", title),
            "Deployment web fits no node"
        );
    }

    fn title_of_unknown(path: &str) -> String {
        title(None, None, None, path, None)
    }

    #[test]
    fn titles_name_the_object_or_its_place() {
        assert_eq!(
            title(Some("Deployment"), None, Some("web"), "", None),
            "Deployment web"
        );
        // An unnamed item of a `kind: List`.
        assert_eq!(
            title(Some("Deployment"), None, None, "items[0]", None),
            "Deployment `items[0]`"
        );
        // Chart values without their templates: the key that holds the pod template.
        assert_eq!(
            title(None, None, None, "controller", None),
            "workload of unknown kind `controller`"
        );
        assert_eq!(title(Some("Job"), None, None, "", None), "Job");
        assert_eq!(
            title(
                Some("RayCluster"),
                Some("ml"),
                Some("rl"),
                "",
                Some("head group")
            ),
            "RayCluster ml/rl, head group"
        );
    }
}
