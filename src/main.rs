//! The `taintlint` command; see `cli`.

use std::process::ExitCode;

mod cli;

/// The allocator for everything the command does (see Cargo.toml); the library leaves the
/// choice to the program that uses it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
