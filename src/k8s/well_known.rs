//! Well-known taint keys (k8s.io/api/core/v1 well_known_taints.go) and their retired names.

/// Taint keys that Kubernetes itself sets: the condition taints first, then the control
/// plane's.
pub const WELL_KNOWN_TAINT_KEYS: &[&str] = &[
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/out-of-service",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "node.cloudprovider.kubernetes.io/shutdown",
    "node-role.kubernetes.io/control-plane",
];

/// Taint keys the node lifecycle controller and cloud providers set and clear as conditions
/// come and go (every well-known key but the control plane's): an inventory snapshot not
/// having them says nothing.
pub const CONDITION_TAINT_KEYS: &[&str] = WELL_KNOWN_TAINT_KEYS
    .split_at(WELL_KNOWN_TAINT_KEYS.len() - 1)
    .0;

pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// A retired taint key and what replaced it (`None`: nothing sets it any more).
pub struct Deprecated {
    pub key: &'static str,
    pub replacement: Option<&'static str>,
    pub note: &'static str,
}

const DEPRECATED: &[Deprecated] = &[
    Deprecated {
        key: "node.alpha.kubernetes.io/notReady",
        replacement: Some("node.kubernetes.io/not-ready"),
        note: "renamed in Kubernetes 1.9",
    },
    Deprecated {
        key: "node.alpha.kubernetes.io/unreachable",
        replacement: Some("node.kubernetes.io/unreachable"),
        note: "renamed in Kubernetes 1.9",
    },
    Deprecated {
        key: "node-role.kubernetes.io/master",
        replacement: Some("node-role.kubernetes.io/control-plane"),
        note: "kubeadm stopped setting it in Kubernetes 1.25",
    },
    Deprecated {
        key: "node.kubernetes.io/out-of-disk",
        replacement: None,
        note: "the OutOfDisk condition and its taint were removed in Kubernetes 1.13",
    },
];

/// The retired key `key` is, if it is one. Any other `node.alpha.kubernetes.io/` key is retired
/// too, with no replacement.
pub fn deprecated(key: &str) -> Option<Deprecated> {
    if let Some(d) = DEPRECATED.iter().find(|d| d.key == key) {
        return Some(Deprecated {
            key: d.key,
            replacement: d.replacement,
            note: d.note,
        });
    }
    key.starts_with("node.alpha.kubernetes.io/")
        .then_some(Deprecated {
            key: "node.alpha.kubernetes.io/*",
            replacement: None,
            note: "the node.alpha.kubernetes.io/ taints were retired in Kubernetes 1.9",
        })
}

/// The well-known key `key` is probably a misspelling of: one or two edits away, and not
/// itself well known or retired.
pub fn likely_misspelling(key: &str) -> Option<&'static str> {
    if WELL_KNOWN_TAINT_KEYS.contains(&key) || deprecated(key).is_some() {
        return None;
    }
    // Only keys in a kubernetes.io namespace, or of nearly the same length, can be close.
    WELL_KNOWN_TAINT_KEYS
        .iter()
        .copied()
        .filter(|known| known.len().abs_diff(key.len()) <= 2)
        .map(|known| (edit_distance(key, known, 2), known))
        .filter(|&(d, _)| d <= 2)
        .min_by_key(|&(d, _)| d)
        .map(|(_, known)| known)
}

/// Levenshtein distance over characters, giving up (returning `limit + 1`) once it must exceed
/// `limit`.
pub fn edit_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            row_min = row_min.min(cur[j]);
        }
        if row_min > limit {
            return limit + 1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()].min(limit + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condition_keys_are_the_well_known_ones_but_the_control_plane() {
        assert_eq!(CONDITION_TAINT_KEYS.len() + 1, WELL_KNOWN_TAINT_KEYS.len());
        assert!(!CONDITION_TAINT_KEYS.contains(&"node-role.kubernetes.io/control-plane"));
        assert!(CONDITION_TAINT_KEYS.contains(&NOT_READY));
        assert!(CONDITION_TAINT_KEYS.contains(&"node.cloudprovider.kubernetes.io/shutdown"));
    }

    #[test]
    fn misspellings() {
        assert_eq!(
            likely_misspelling("node.kubernetes.io/net-ready"),
            Some("node.kubernetes.io/not-ready")
        );
        assert_eq!(
            likely_misspelling("node.kubernetes.io/unreachible"),
            Some("node.kubernetes.io/unreachable")
        );
        assert_eq!(likely_misspelling("node.kubernetes.io/not-ready"), None);
        assert_eq!(likely_misspelling("dedicated"), None);
        assert_eq!(likely_misspelling("node-role.kubernetes.io/master"), None);
        assert_eq!(likely_misspelling("nvidia.com/gpu"), None);
    }

    #[test]
    fn deprecations() {
        assert_eq!(
            deprecated("node-role.kubernetes.io/master").and_then(|d| d.replacement),
            Some("node-role.kubernetes.io/control-plane")
        );
        assert!(deprecated("node.alpha.kubernetes.io/ismaster").is_some());
        assert!(deprecated("node.kubernetes.io/not-ready").is_none());
    }

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kitten", "sitting", 5), 3);
        assert_eq!(edit_distance("kitten", "sitting", 2), 3);
        assert_eq!(edit_distance("", "ab", 2), 2);
        assert_eq!(edit_distance("same", "same", 2), 0);
    }
}
