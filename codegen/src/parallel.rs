//! Independent pieces of work on one thread per core.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `work` applied to every item, on one thread per core (the threads take the next item as they
/// finish one), the results in the items' order: what a run makes does not depend on which thread
/// made what. A panic on a thread goes on in the caller's, as it would on one thread (`emit_all` reports
/// it as the generator's bug).
pub(crate) fn map_in_order<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, work(item)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, result)| result).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_the_items_order() {
        let items: Vec<u64> = (0..1000).collect();
        let squares = super::map_in_order(&items, |n| n * n);
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(super::map_in_order(&[] as &[u8], |n| *n).is_empty());
    }
}
