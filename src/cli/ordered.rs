//! Work on every core, results in input order, as soon as each is ready.
//!
//! Workers take inputs in order; the calling thread receives each result in input order as soon
//! as it and every result before it are done, so output starts with the first file and memory
//! holds at most `window` results that wait for an earlier one.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

struct State<R> {
    /// The index of the next result to hand out.
    next: usize,
    ready: BTreeMap<usize, R>,
    /// Workers waiting for room in the window.
    waiting: usize,
}

/// Runs `work` on every item with `threads` workers and calls `emit` with the results in the
/// items' order. A worker does not start item `i` before result `i - window` is handed out.
pub fn run<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    window: usize,
    work: impl Fn(&T) -> R + Sync,
    mut emit: impl FnMut(R),
) {
    let window = window.max(1);
    let taken = AtomicUsize::new(0);
    let state = Mutex::new(State {
        next: 0,
        ready: BTreeMap::new(),
        waiting: 0,
    });
    // Two conditions, so a finished item wakes only the emitter, and only when it is the one
    // the emitter waits for; and workers are woken only when one of them waits for the window.
    let emittable = Condvar::new();
    let room = Condvar::new();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = taken.fetch_add(1, Ordering::SeqCst);
                if i >= items.len() {
                    return;
                }
                {
                    let mut s = state.lock().expect("no worker panics while holding it");
                    while i >= s.next + window {
                        s.waiting += 1;
                        s = room.wait(s).expect("no worker panics while holding it");
                        s.waiting -= 1;
                    }
                }
                let result = work(&items[i]);
                let mut s = state.lock().expect("no worker panics while holding it");
                s.ready.insert(i, result);
                if i == s.next {
                    emittable.notify_one();
                }
            });
        }
        let mut s = state.lock().expect("no worker panics while holding it");
        while s.next < items.len() {
            let next = s.next;
            match s.ready.remove(&next) {
                Some(result) => {
                    s.next += 1;
                    if s.waiting > 0 {
                        room.notify_all();
                    }
                    drop(s);
                    emit(result);
                    s = state.lock().expect("no worker panics while holding it");
                }
                None => {
                    s = emittable
                        .wait(s)
                        .expect("no worker panics while holding it")
                }
            }
        }
    });
}

/// The number of workers: the machine's cores.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_whatever_finishes_first() {
        let items: Vec<u64> = (0..200).collect();
        let mut seen = Vec::new();
        run(
            &items,
            4,
            8,
            |&i| {
                // Early items take longest.
                std::thread::sleep(std::time::Duration::from_micros((200 - i) * 20));
                i * 2
            },
            |r| seen.push(r),
        );
        assert_eq!(seen, (0..200).map(|i| i * 2).collect::<Vec<_>>());
    }

    #[test]
    fn the_first_result_is_handed_out_before_the_last_item_is_started() {
        let items: Vec<usize> = (0..100).collect();
        let started = AtomicUsize::new(0);
        let mut when_first = None;
        run(
            &items,
            2,
            4,
            |&i| {
                started.fetch_max(i, Ordering::SeqCst);
                i
            },
            |r| {
                if r == 0 {
                    when_first = Some(started.load(Ordering::SeqCst));
                }
            },
        );
        // The window keeps workers at most 4 items ahead of what has been handed out.
        assert!(when_first.unwrap() < 8, "{when_first:?}");
    }
}
