//! taintlint: a policy linter for Kubernetes taints and tolerations.
//!
//! [`analysis::analyse`] is the pure core (text in, diagnostics with byte ranges out); the CLI
//! and the reports convert at the edges.

pub mod admission_config;
pub mod analysis;
pub mod changes;
pub mod class;
pub mod config;
pub mod config_file;
pub mod diagnostic;
pub mod fix;
pub mod inventory;
pub mod k8s;
pub mod lsp;
pub mod overlays;
pub mod position;
pub mod report;
pub mod rules;
pub mod schedule;
pub mod suppress;
pub mod syntax;
#[cfg(test)]
mod test_support;
pub mod walk;

pub use analysis::analyse;
pub use config::Options;
pub use diagnostic::{Diagnostic, Severity};
pub use k8s::workloads::ChartKinds;
