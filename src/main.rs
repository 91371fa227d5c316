//! The `taintlint` command; see `cli`.

use std::process::ExitCode;

mod cli;

/// The allocator for everything the command does (see Cargo.toml); the library leaves the
/// choice to the program that uses it. Without the `mimalloc` feature, the system's.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's defaults keep far more memory than a run holds (docs/development.md, "Where the
/// memory goes"): every arena it reserves is committed at once where the OS overcommits, and
/// what is freed is given back 10 ms later. A run of `lint` on a repository holding 5 MB at its
/// peak was 100 MB resident. Options are read when first used, so they are set before the first
/// allocation: from the executable's initializers, which run before Rust's runtime allocates.
#[cfg(feature = "mimalloc")]
extern "C" fn configure_allocator() {
    // The numbers of `mi_option_arena_eager_commit` and `mi_option_purge_delay` in mimalloc.h's
    // `mi_option_e` (v3, which libmimalloc-sys builds by default).
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: setting an option is a store to mimalloc's table of options; no allocation is
    // live that depends on it.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

#[cfg(all(feature = "mimalloc", any(target_os = "linux", target_os = "android")))]
#[used]
#[link_section = ".init_array"]
static CONFIGURE_ALLOCATOR: extern "C" fn() = configure_allocator;

fn main() -> ExitCode {
    // Where no initializer runs it first, it is set here: late, but still before the run's work.
    #[cfg(all(
        feature = "mimalloc",
        not(any(target_os = "linux", target_os = "android"))
    ))]
    configure_allocator();
    cli::main()
}
