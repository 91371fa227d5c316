//! Memory kept where it is: a representative small run (`lint` of a few manifests with pod
//! templates, the same files linted and simulated against a small `kubectl get nodes -o json`),
//! run through the library as the command runs it, may not allocate more often or hold more at
//! its peak than the bounds below. Not a timed test: it counts calls and bytes, which do not
//! depend on the machine's speed or load.
//!
//! Determinism: the counting allocator wraps the system's (no allocator's own caching in the
//! figures) and counts only while `COUNTING` is on. The measured work runs inside a rayon pool
//! of one thread, so the inventory's parallel reads split their work the same way on every
//! machine (a pool of one thread per core would allocate a stack, a deque and partial results
//! per core, and so differ between a 2-core and a 64-core machine); the pool is built before
//! counting starts. This file holds one test, so no other test's thread allocates meanwhile.
//!
//! The data imitates benches/support/cluster.rs (which imitates an EKS/GKE cluster's node list
//! and a monorepo's Deployments): 400 Deployments in 40 files, 60 nodes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use taintlint::analysis::{simulate, Ask};

use taintlint::inventory::Inventory;
use taintlint::Options;

#[path = "../benches/support/cluster.rs"]
#[allow(dead_code)]
mod cluster;

/// The measured figures (`cargo test --test allocations -- --nocapture` prints them), and the
/// bounds: about 1.5 times each, so that a change that doubles one fails.
/// Measured on the test profile (debug), the same on every run.
const LINT_ALLOCATIONS: (usize, usize) = (41_402, 62_000);
const LINT_PEAK: (usize, usize) = (86_864, 130_000);
const SIMULATE_ALLOCATIONS: (usize, usize) = (218_413, 328_000);
const SIMULATE_PEAK: (usize, usize) = (4_770_472, 7_150_000);

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static CALLS: AtomicUsize = AtomicUsize::new(0);
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grew(size: usize) {
        if COUNTING.load(Relaxed) {
            CALLS.fetch_add(1, Relaxed);
            let now = CURRENT.fetch_add(size, Relaxed) + size;
            PEAK.fetch_max(now, Relaxed);
        }
    }

    fn shrank(size: usize) {
        if COUNTING.load(Relaxed) {
            // What was allocated before counting began is not counted as freed below zero.
            let _ = CURRENT.fetch_update(Relaxed, Relaxed, |c| Some(c.saturating_sub(size)));
        }
    }
}

// SAFETY: every call is passed to the system's allocator unchanged; only counters move.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        Self::shrank(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::shrank(layout.size());
        Self::grew(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocation calls and peak bytes (above what was held when it began) of `work`.
fn measure<T>(work: impl FnOnce() -> T) -> (T, usize, usize) {
    CALLS.store(0, Relaxed);
    CURRENT.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    let out = work();
    COUNTING.store(false, Relaxed);
    (out, CALLS.load(Relaxed), PEAK.load(Relaxed))
}

fn check(what: &str, figure: usize, (measured, bound): (usize, usize)) -> Option<String> {
    eprintln!("{what}: {figure} (measured {measured}, bound {bound})");
    (figure > bound).then(|| format!("{what}: {figure}, over the bound of {bound}"))
}

#[test]
fn a_small_run_allocates_within_its_bounds() {
    let files = cluster::manifest_files(400, 40);
    let nodes = cluster::nodes_json(60);
    let options = Options::default();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();

    // `lint` without an inventory: every file analysed, its findings kept.
    let (found, lint_calls, lint_peak) = pool.install(|| {
        measure(|| {
            files
                .iter()
                .map(|text| taintlint::analyse(text, &options))
                .collect::<Vec<_>>()
        })
    });
    assert_eq!(found.len(), files.len());
    drop(found);

    // `simulate` (and `lint` with the inventory): the node list read, every file simulated on
    // it and linted against it, the results kept as the report holds them.
    let ((workloads, findings), simulate_calls, simulate_peak) = pool.install(|| {
        measure(|| {
            let inventory = Inventory::load(&[("nodes.json", nodes.as_str())]).unwrap();
            let mut workloads = Vec::new();
            let mut findings = Vec::new();
            for text in &files {
                workloads.push(simulate(text, &options, &inventory).workloads);
                findings.push(
                    taintlint::analysis::check(text, Ask::new(&options, Some(&inventory)))
                        .diagnostics,
                );
            }
            (workloads, findings)
        })
    });
    assert_eq!(workloads.iter().map(Vec::len).sum::<usize>(), 400);
    assert!(findings.iter().any(|f| !f.is_empty()));

    let over: Vec<String> = [
        check("lint: allocations", lint_calls, LINT_ALLOCATIONS),
        check("lint: peak bytes", lint_peak, LINT_PEAK),
        check(
            "simulate: allocations",
            simulate_calls,
            SIMULATE_ALLOCATIONS,
        ),
        check("simulate: peak bytes", simulate_peak, SIMULATE_PEAK),
    ]
    .into_iter()
    .flatten()
    .collect();
    assert!(over.is_empty(), "{}", over.join("\n"));
}
