//! What a change does: the same command's results at two revisions compared (`--base REV`).
//! Pure: the command line runs taintlint on the repository as committed at the base revision
//! and on the working tree, reads the files, and hands the results here as data.
//!
//! - [`placements`]: the workloads whose placement moved, before and after, and the cause,
//!   placed at the line that holds it;
//! - [`findings`]: which findings of the working tree are new;
//! - [`lines`]: which lines of a file a change touched.

pub mod findings;
pub mod lines;
pub mod model;
pub mod placements;
