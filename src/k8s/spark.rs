//! How Spark sizes the pod of a SparkApplication's driver or executor: the operator passes the
//! `SparkPodSpec`'s fields to spark-submit as Spark configuration, and Spark writes the main
//! container's requests from them.
//!
//! kubeflow/spark-operator internal/controller/sparkapplication/submission.go passes
//! `spark.{driver,executor}.cores` (`cores`), `spark.kubernetes.{driver,executor}.request.cores`
//! (`coreRequest`), `spark.{driver,executor}.memory` (`memory`),
//! `spark.{driver,executor}.memoryOverhead` (`memoryOverhead`) and
//! `spark.kubernetes.memoryOverheadFactor` (the application's `memoryOverheadFactor`), after the
//! application's own `sparkConf` (so a field wins over the same key there, and `sparkConf` over
//! the factor field); its webhook adds the `gpu` (`{name, quantity}`) to the main container's
//! limits (internal/webhook/sparkpod_defaulter.go `addGPU`).
//!
//! apache/spark resource-managers/kubernetes/core/.../features/BasicDriverFeatureStep.scala and
//! BasicExecutorFeatureStep.scala then request, for the main container: CPU, the
//! `request.cores` else the `cores` (1 by default); memory (as request and limit), the memory
//! (1g by default) plus its overhead, the `memoryOverhead` else the memory times the overhead
//! factor, and at least 384 MiB (`ResourceProfile.MEMORY_OVERHEAD_MIN_MIB`). The factor is
//! `spark.{driver,executor}.memoryOverheadFactor`, else `spark.kubernetes.memoryOverheadFactor`,
//! else 0.1, or 0.4 for an application that does not run on the JVM (`type: Python` or `R`:
//! `NON_JVM_MEMORY_OVERHEAD_FACTOR`). An executor adds `spark.executor.pyspark.memory` (a
//! Python application) and `spark.memory.offHeap.size` (when `spark.memory.offHeap.enabled`:
//! `ResourceProfile.getResourcesForClusterManager`). Custom resources
//! (`spark.{driver,executor}.resource.<name>.amount` with its `.vendor`) are limits of
//! `<vendor>/<name>` (`KubernetesUtils.buildResourcesQuantities`).
//!
//! Memory is written as the JVM writes it (`512m`, `2g`, `1024`: MiB when no unit is given;
//! network-common JavaUtils `byteStringAs`, which takes no fraction); what does not parse is
//! not counted.

use crate::k8s::resources::{amount, text as text_of, Resources};
use crate::syntax::{Document, NodeId};

/// One MiB.
const MIB: u128 = 1 << 20;

/// The least memory overhead Spark gives a pod, in MiB.
const MIN_OVERHEAD_MIB: u128 = 384;

/// The main container's effective requests of a driver's or executor's pod (`pod`, its
/// `SparkPodSpec`), in the application whose spec is `application`; and the names of the
/// resources its requests and limits give.
pub fn container(
    doc: &Document<'_>,
    pod: NodeId,
    application: Option<NodeId>,
    executor: bool,
) -> (Resources, Vec<String>) {
    let role = if executor { "executor" } else { "driver" };
    let text = |node: NodeId, key: &str| -> Option<String> {
        let (_, v) = doc.get(node, key)?;
        text_of(doc, v).filter(|t| !t.trim().is_empty())
    };
    let field = |key: &str| text(pod, key);
    let conf = |key: &str| {
        let conf = application.and_then(|a| doc.get(a, "sparkConf").map(|(_, v)| v))?;
        text(conf, key)
    };
    let mut requests = Resources::new();
    let mut names = vec!["cpu".to_string(), "memory".to_string()];

    let cores = field("coreRequest")
        .or_else(|| conf(&format!("spark.kubernetes.{role}.request.cores")))
        .or_else(|| field("cores"))
        .or_else(|| conf(&format!("spark.{role}.cores")))
        .unwrap_or_else(|| "1".to_string());
    if let Some(cpu) = amount("cpu", &cores) {
        requests.set("cpu", cpu);
    }

    let memory = field("memory")
        .or_else(|| conf(&format!("spark.{role}.memory")))
        .map_or(Some(1024), |m| mebibytes(&m));
    if let Some(memory) = memory {
        let jvm = !application
            .and_then(|a| text(a, "type"))
            .is_some_and(|t| matches!(t.as_str(), "Python" | "R"));
        let factor = conf(&format!("spark.{role}.memoryOverheadFactor"))
            .or_else(|| conf("spark.kubernetes.memoryOverheadFactor"))
            .or_else(|| application.and_then(|a| text(a, "memoryOverheadFactor")))
            .and_then(|f| f.trim().parse::<f64>().ok())
            .filter(|f| f.is_finite() && *f >= 0.0)
            .unwrap_or(if jvm { 0.1 } else { 0.4 });
        let overhead = field("memoryOverhead")
            .or_else(|| conf(&format!("spark.{role}.memoryOverhead")))
            .and_then(|o| mebibytes(&o))
            .unwrap_or_else(|| ((factor * memory as f64) as u128).max(MIN_OVERHEAD_MIB));
        let mut total = memory.saturating_add(overhead);
        if executor {
            if !jvm {
                total = total.saturating_add(
                    conf("spark.executor.pyspark.memory")
                        .and_then(|m| mebibytes(&m))
                        .unwrap_or(0),
                );
            }
            if conf("spark.memory.offHeap.enabled").as_deref() == Some("true") {
                // `spark.memory.offHeap.size` is in bytes when no unit is given.
                let off_heap = conf("spark.memory.offHeap.size")
                    .and_then(|s| bytes(&s, 1))
                    .map_or(0, |b| b / MIB);
                total = total.saturating_add(off_heap);
            }
        }
        requests.set("memory", total.saturating_mul(MIB));
    }

    // The operator's GPU, and Spark's own custom resources: limits, so requests.
    if let Some((_, gpu)) = doc.get(pod, "gpu") {
        let name = text(gpu, "name").filter(|n| !n.is_empty());
        let quantity = text(gpu, "quantity").and_then(|q| q.trim().parse::<u128>().ok());
        if let (Some(name), Some(q)) = (name, quantity.filter(|q| *q > 0)) {
            requests.set(&name, q);
            names.push(name);
        }
    }
    let prefix = format!("spark.{role}.resource.");
    let conf_map = application
        .and_then(|a| doc.get(a, "sparkConf"))
        .and_then(|(_, m)| doc.mapping(m))
        .unwrap_or_default();
    for &(k, v) in conf_map {
        let Some(key) = text_of(doc, k) else {
            continue;
        };
        let Some(resource) = key
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".amount"))
        else {
            continue;
        };
        let vendor = conf(&format!("{prefix}{resource}.vendor"));
        let count = text_of(doc, v).and_then(|a| a.trim().parse().ok());
        if let (Some(vendor), Some(count)) = (vendor, count) {
            let name = format!("{vendor}/{resource}");
            requests.set(&name, count);
            names.push(name);
        }
    }
    (requests, names)
}

/// A JVM memory string (`512m`, `2g`, `1024`) in MiB, a bare number being MiB.
fn mebibytes(text: &str) -> Option<u128> {
    bytes(text, MIB).map(|b| b / MIB)
}

/// A JVM byte string in bytes, a bare number being `unit` bytes (network-common JavaUtils
/// `byteStringAs`: `b`, `k`/`kb`, `m`/`mb`, `g`/`gb`, `t`/`tb`, `p`/`pb`, in any case; no
/// fraction).
fn bytes(text: &str, unit: u128) -> Option<u128> {
    let lower = text.trim().to_ascii_lowercase();
    let digits = lower.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let (number, suffix) = lower.split_at(digits);
    let number: u128 = number.parse().ok()?;
    let multiplier: u128 = match suffix {
        "" => unit,
        "b" => 1,
        "k" | "kb" => 1 << 10,
        "m" | "mb" => 1 << 20,
        "g" | "gb" => 1 << 30,
        "t" | "tb" => 1 << 40,
        "p" | "pb" => 1 << 50,
        _ => return None,
    };
    number.checked_mul(multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    /// The driver and an executor of `application` (a SparkApplication's spec, YAML).
    fn sized(application: &str) -> [(Resources, Vec<String>); 2] {
        let stream = syntax::parse(application);
        let doc = &stream.documents[0];
        let app = doc.root.unwrap();
        let pod = |role| doc.get(app, role).unwrap().1;
        [
            container(doc, pod("driver"), Some(app), false),
            container(doc, pod("executor"), Some(app), true),
        ]
    }

    fn r(pairs: &[(&str, u128)]) -> Resources {
        Resources::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), *v)))
    }

    /// spark-operator's examples/spark-pi.yaml: `cores: 1`, `memory: 512m`; the overhead is
    /// Spark's least, 384 MiB.
    #[test]
    fn the_operators_pi_example() {
        let [driver, executor] = sized(
            "type: Scala\n\
             driver: {cores: 1, memory: 512m}\n\
             executor: {instances: 1, cores: 1, memory: 512m}\n",
        );
        assert_eq!(driver.0, r(&[("cpu", 1000), ("memory", 896 * MIB)]));
        assert_eq!(executor.0, driver.0);
    }

    /// Defaults, factors, overheads, requests over cores, and GPUs.
    #[test]
    fn what_spark_asks_for() {
        // Nothing written: 1 CPU, 1g and 384 MiB.
        let [driver, _] = sized("driver: {}\nexecutor: {}\n");
        assert_eq!(driver.0, r(&[("cpu", 1000), ("memory", 1408 * MIB)]));
        // A Python application: the overhead factor is 0.4 (of 8g: 3276 MiB), and the
        // executor's PySpark memory adds to it; `coreRequest` wins over `cores`.
        let [driver, executor] = sized(
            "type: Python\n\
             sparkConf: {spark.executor.pyspark.memory: 1g}\n\
             driver: {cores: 2, coreRequest: 500m, memory: 8g}\n\
             executor: {cores: 4, memory: 8g, gpu: {name: nvidia.com/gpu, quantity: 1}}\n",
        );
        assert_eq!(
            driver.0,
            r(&[("cpu", 500), ("memory", (8192 + 3276) * MIB)])
        );
        assert_eq!(
            executor.0,
            r(&[
                ("cpu", 4000),
                ("memory", (8192 + 3276 + 1024) * MIB),
                ("nvidia.com/gpu", 1)
            ])
        );
        assert!(executor.1.contains(&"nvidia.com/gpu".to_string()));
        // The application's factor, a written overhead, `sparkConf` beneath the fields, and
        // Spark's own custom resources with their vendor.
        let [driver, executor] = sized(
            "memoryOverheadFactor: \"0.2\"\n\
             sparkConf:\n\
             \x20 spark.driver.memory: 4g\n\
             \x20 spark.driver.cores: \"3\"\n\
             \x20 spark.executor.resource.gpu.amount: \"2\"\n\
             \x20 spark.executor.resource.gpu.vendor: amd.com\n\
             driver: {}\n\
             executor: {memory: \"2048\", memoryOverhead: 1g}\n",
        );
        assert_eq!(
            driver.0,
            r(&[("cpu", 3000), ("memory", (4096 + 819) * MIB)])
        );
        assert_eq!(
            executor.0,
            r(&[("amd.com/gpu", 2), ("cpu", 1000), ("memory", 3072 * MIB)])
        );
        // v1beta1's fractional cores; a memory Spark cannot read is not counted.
        let [driver, _] = sized("driver: {cores: 0.1, memory: 512Mi}\nexecutor: {}\n");
        assert_eq!(driver.0, r(&[("cpu", 100)]));
    }

    #[test]
    fn jvm_byte_strings() {
        assert_eq!(mebibytes("512m"), Some(512));
        assert_eq!(mebibytes("2G"), Some(2048));
        assert_eq!(mebibytes("1024"), Some(1024));
        assert_eq!(mebibytes("1536k"), Some(1));
        assert_eq!(mebibytes("1.5g"), None);
        assert_eq!(mebibytes("512Mi"), None);
        assert_eq!(mebibytes(""), None);
        assert_eq!(bytes("99999999999999999999999999999999999999p", 1), None);
    }
}
