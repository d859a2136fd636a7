//! Which offsets a consumer group may commit. Records are handled concurrently and settled out of order;
//! a partition's committed offset moves only up to its lowest record not yet settled, so that nothing
//! is acknowledged that was not settled. A partition taken away by a rebalance forgets what it held:
//! a settlement that comes later (its record is the new owner's now) commits nothing.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A partition of a topic.
pub(crate) type Partition = (String, i32);

/// What a consumer holds of one partition.
#[derive(Debug, Default)]
struct PartitionState {
    /// Which assignment this is: settlements of an earlier one are ignored.
    generation: u64,
    /// Offsets received and not yet settled.
    held: BTreeSet<i64>,
    /// One past the highest offset received.
    next: Option<i64>,
    /// The offset last committed (or sent to be).
    committed: Option<i64>,
}

impl PartitionState {
    /// The offset the group may commit: the lowest held, else one past the highest received.
    fn safe(&self) -> Option<i64> {
        self.held.first().copied().or(self.next)
    }
}

/// The offsets of every partition assigned to one consumer.
#[derive(Debug, Default)]
pub(crate) struct Offsets {
    partitions: Mutex<HashMap<Partition, PartitionState>>,
    generations: AtomicU64,
}

impl Offsets {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Partition, PartitionState>> {
        // A panic while holding the lock leaves the map whole (every change is one statement).
        self.partitions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Partitions assigned: each starts afresh (from the group's committed offset, as the broker
    /// delivers it).
    pub(crate) fn assigned(&self, partitions: impl IntoIterator<Item = Partition>) {
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let mut map = self.lock();
        for partition in partitions {
            map.insert(
                partition,
                PartitionState {
                    generation,
                    ..PartitionState::default()
                },
            );
        }
    }

    /// Partitions taken away: forgotten; returns the offsets to commit for them first (what was
    /// settled, not past what is still held).
    pub(crate) fn revoked(
        &self,
        partitions: impl IntoIterator<Item = Partition>,
    ) -> Vec<(Partition, i64)> {
        let mut map = self.lock();
        let mut commits = Vec::new();
        for partition in partitions {
            if let Some(state) = map.remove(&partition)
                && let Some(safe) = state.safe()
                && state.committed != Some(safe)
            {
                commits.push((partition, safe));
            }
        }
        commits
    }

    /// A record received: held until settled. Returns the assignment it belongs to.
    pub(crate) fn received(&self, partition: &Partition, offset: i64) -> u64 {
        let mut map = self.lock();
        let state = map.entry(partition.clone()).or_default();
        state.held.insert(offset);
        state.next = Some(state.next.map_or(offset + 1, |n| n.max(offset + 1)));
        state.generation
    }

    /// A record received that is not this consumer's (another subscription's event type): passed
    /// over, committed past once what is before it is settled.
    pub(crate) fn passed(&self, partition: &Partition, offset: i64) {
        let mut map = self.lock();
        let state = map.entry(partition.clone()).or_default();
        state.next = Some(state.next.map_or(offset + 1, |n| n.max(offset + 1)));
    }

    /// A record settled (handled, dead-lettered, or sent to the retry topic); ignored when its
    /// partition has been reassigned since it was received.
    pub(crate) fn settled(&self, partition: &Partition, offset: i64, generation: u64) {
        let mut map = self.lock();
        if let Some(state) = map.get_mut(partition)
            && state.generation == generation
        {
            state.held.remove(&offset);
        }
    }

    /// The offsets to commit now: each partition whose safe offset moved since it was last committed
    /// (every partition's, with `all`), marked committed.
    pub(crate) fn to_commit(&self, all: bool) -> Vec<(Partition, i64)> {
        let mut map = self.lock();
        let mut commits = Vec::new();
        for (partition, state) in map.iter_mut() {
            if let Some(safe) = state.safe()
                && (all || state.committed != Some(safe))
            {
                state.committed = Some(safe);
                commits.push((partition.clone(), safe));
            }
        }
        commits.sort();
        commits
    }

    /// Records held (received, not settled) now.
    pub(crate) fn held(&self) -> u64 {
        self.lock().values().map(|s| s.held.len() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: i32) -> Partition {
        ("energy.billing".to_owned(), n)
    }

    #[test]
    fn commits_stop_at_the_lowest_unsettled_record() {
        let offsets = Offsets::default();
        offsets.assigned([p(0), p(1)]);
        let g = offsets.received(&p(0), 10);
        offsets.received(&p(0), 11);
        offsets.received(&p(0), 12);
        offsets.settled(&p(0), 11, g);
        offsets.settled(&p(0), 12, g);
        assert_eq!(offsets.to_commit(false), vec![(p(0), 10)]);
        assert_eq!(offsets.to_commit(false), vec![], "nothing moved");
        offsets.settled(&p(0), 10, g);
        offsets.passed(&p(0), 13);
        assert_eq!(offsets.to_commit(false), vec![(p(0), 14)]);
        assert_eq!(offsets.held(), 0);
    }

    #[test]
    fn a_revoked_partition_commits_what_was_settled_and_ignores_later_settlements() {
        let offsets = Offsets::default();
        offsets.assigned([p(0)]);
        let old = offsets.received(&p(0), 5);
        offsets.received(&p(0), 6);
        offsets.settled(&p(0), 6, old);
        assert_eq!(offsets.revoked([p(0)]), vec![(p(0), 5)]);
        // Given back to this consumer: it starts again at 5, delivered anew.
        offsets.assigned([p(0)]);
        let new = offsets.received(&p(0), 5);
        offsets.settled(&p(0), 5, old);
        assert_eq!(
            offsets.held(),
            1,
            "a settlement of the earlier assignment commits nothing"
        );
        offsets.settled(&p(0), 5, new);
        assert_eq!(offsets.to_commit(false), vec![(p(0), 6)]);
    }

    #[test]
    fn a_record_never_settled_holds_its_partition_back() {
        let offsets = Offsets::default();
        offsets.assigned([p(0)]);
        let g = offsets.received(&p(0), 0);
        for offset in 1..100 {
            offsets.received(&p(0), offset);
            offsets.settled(&p(0), offset, g);
        }
        assert_eq!(offsets.to_commit(true), vec![(p(0), 0)]);
    }
}
