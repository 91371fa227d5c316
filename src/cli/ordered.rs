//! Work on every core, results in input order, as soon as each is ready.
//!
//! Workers take inputs in order; the calling thread receives each result in input order as soon
//! as it and every result before it are done, so output starts with the first file and memory
//! holds at most `window` results that wait for an earlier one. A result may also come in pieces
//! ([`run_in_pieces`]), each handed out as soon as every earlier item is done, so that one big
//! file's findings are written while it is still being linted.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

struct State<C> {
    /// The index of the item whose pieces are handed out now.
    next: usize,
    /// The pieces sent and not yet handed out, and whether the item is done, by item.
    sent: BTreeMap<usize, (VecDeque<C>, bool)>,
    /// Workers waiting for room (in the window, or in their item's queue).
    waiting: usize,
    /// The emitter waits for the item it hands out next (see [`POLL`]).
    emitter_waits: bool,
    /// A worker panicked: everyone stops, and the scope passes the panic on (rather than
    /// waiting forever for the item that worker held).
    failed: bool,
}

/// How many pieces of one item may wait to be handed out before its worker waits.
const QUEUED: usize = 2;

/// How long the emitter waits for the next item before it looks again. A worker does not wake
/// it when an item is done: a wake is a system call and a switch of threads, and 10,000 small
/// files made 30,000 of them, a third of the time `lint` took beyond parsing. Looking again
/// every millisecond while nothing is ready costs a millisecond of delay at most. (A worker whose
/// item's queue is full does wake it: that worker waits for room.)
const POLL: std::time::Duration = std::time::Duration::from_millis(1);

/// Runs `work` on every item with `threads` workers and calls `emit` with the results in the
/// items' order. A worker does not start item `i` before result `i - window` is handed out.
pub fn run<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    window: usize,
    work: impl Fn(&T) -> R + Sync,
    mut emit: impl FnMut(R),
) {
    run_in_pieces(
        items,
        threads,
        window,
        |item, send| send(work(item)),
        |_, r| emit(r),
    );
}

/// Like [`run`], for work that sends its result in pieces as it goes (`send`): `emit` gets every
/// piece with its item's index, items in order and each item's pieces in the order sent, as
/// soon as every earlier item is done. A piece of the item being handed out goes out while its
/// work goes on; at most a few pieces of each item wait, so memory holds no whole result.
pub fn run_in_pieces<T: Sync, C: Send>(
    items: &[T],
    threads: usize,
    window: usize,
    work: impl Fn(&T, &mut dyn FnMut(C)) + Sync,
    mut emit: impl FnMut(usize, C),
) {
    let window = window.max(1);
    let taken = AtomicUsize::new(0);
    let state = Mutex::new(State {
        next: 0,
        sent: BTreeMap::new(),
        waiting: 0,
        emitter_waits: false,
        failed: false,
    });
    // Two conditions, so a piece wakes only the emitter, and only when it is for the item the
    // emitter waits on; and workers are woken only when one of them waits for room.
    let emittable = Condvar::new();
    let room = Condvar::new();
    let lock = || state.lock().expect("no worker panics while holding it");
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = taken.fetch_add(1, Ordering::SeqCst);
                if i >= items.len() {
                    return;
                }
                {
                    let mut s = lock();
                    while i >= s.next + window && !s.failed {
                        s.waiting += 1;
                        s = room.wait(s).expect("no worker panics while holding it");
                        s.waiting -= 1;
                    }
                    if s.failed {
                        return;
                    }
                }
                let mut send = |piece: C| {
                    let mut s = lock();
                    while !s.failed && s.sent.get(&i).is_some_and(|(q, _)| q.len() >= QUEUED) {
                        s.waiting += 1;
                        s = room.wait(s).expect("no worker panics while holding it");
                        s.waiting -= 1;
                    }
                    let queued = {
                        let queue = &mut s.sent.entry(i).or_default().0;
                        queue.push_back(piece);
                        queue.len()
                    };
                    // The emitter is woken for a full queue: the worker would wait for it.
                    if i == s.next && queued >= QUEUED && s.emitter_waits {
                        emittable.notify_one();
                    }
                };
                let worked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    work(&items[i], &mut send)
                }));
                let mut s = lock();
                if let Err(panic) = worked {
                    s.failed = true;
                    emittable.notify_one();
                    room.notify_all();
                    drop(s);
                    std::panic::resume_unwind(panic);
                }
                s.sent.entry(i).or_default().1 = true;
            });
        }
        let mut s = lock();
        while s.next < items.len() && !s.failed {
            let next = s.next;
            let (piece, done) = match s.sent.get_mut(&next) {
                Some((queue, done)) => (queue.pop_front(), *done),
                None => (None, false),
            };
            match piece {
                Some(piece) => {
                    if s.waiting > 0 {
                        room.notify_all();
                    }
                    drop(s);
                    emit(next, piece);
                    s = lock();
                }
                None if done => {
                    s.sent.remove(&next);
                    s.next += 1;
                    if s.waiting > 0 {
                        room.notify_all();
                    }
                }
                None => {
                    s.emitter_waits = true;
                    s = emittable
                        .wait_timeout(s, POLL)
                        .expect("no worker panics while holding it")
                        .0;
                    s.emitter_waits = false;
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

    #[test]
    fn pieces_come_in_item_order_and_in_the_order_sent() {
        let items: Vec<u64> = (0..50).collect();
        let mut seen = Vec::new();
        run_in_pieces(
            &items,
            3,
            4,
            |&i, send| {
                std::thread::sleep(std::time::Duration::from_micros((50 - i) * 30));
                for piece in 0..(i % 5) {
                    send((i, piece));
                }
            },
            |item, (i, piece)| {
                assert_eq!(item as u64, i);
                seen.push((i, piece));
            },
        );
        let expected: Vec<(u64, u64)> = (0..50)
            .flat_map(|i| (0..i % 5).map(move |p| (i, p)))
            .collect();
        assert_eq!(seen, expected);
    }

    /// One big item's first pieces are handed out while it is still at work, and its worker
    /// never runs far ahead of the emitter: memory holds a few pieces, not the whole result.
    #[test]
    fn a_piece_is_handed_out_before_its_item_is_done() {
        let items = [0u8];
        let sent = AtomicUsize::new(0);
        let mut ahead = Vec::new();
        run_in_pieces(
            &items,
            2,
            4,
            |_, send| {
                for piece in 0..1000 {
                    sent.fetch_add(1, Ordering::SeqCst);
                    send(piece);
                }
            },
            |_, piece: usize| ahead.push(sent.load(Ordering::SeqCst) - piece),
        );
        assert_eq!(ahead.len(), 1000);
        // Sent but not handed out: the piece itself, the queue, and one on its way.
        assert!(
            ahead.iter().all(|&n| n <= QUEUED + 2),
            "{:?}",
            ahead.iter().max()
        );
    }

    /// A worker that panics does not leave the others (or the caller) waiting for its item:
    /// the run ends with that panic.
    #[test]
    fn a_panic_in_a_worker_ends_the_run_instead_of_hanging() {
        let items: Vec<usize> = (0..50).collect();
        let result = std::panic::catch_unwind(|| {
            run(
                &items,
                2,
                4,
                |&i| {
                    assert!(i != 3, "item 3 fails");
                    i
                },
                |_| {},
            )
        });
        assert!(result.is_err());
    }
}
