//! The Kubernetes domain: names, decoding, taints and tolerations, and where they live.

pub mod cluster;
pub mod decode;
pub mod model;
pub mod names;
pub mod objects;
pub mod well_known;
