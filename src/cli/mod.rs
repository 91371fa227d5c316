//! The command line's own machinery: running work on every core while writing results in a
//! stable order.

pub mod ordered;
