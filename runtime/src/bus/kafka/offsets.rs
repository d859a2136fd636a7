//! Which offsets a consumer group may commit. Records are handled concurrently and settled out of order;
//! a partition's committed offset moves only up to its lowest record not yet settled, so that nothing
//! is acknowledged that was not settled. A partition taken away by a rebalance forgets what it held:
//! a settlement that comes later (its record is the new owner's now) commits nothing.
//!
//! A commit counts only once the broker has answered it: one sent while the broker is away (killed,
//! restarting) fails, and its offset is sent again on a later tick until one is confirmed. (Marking an
//! offset committed when it was sent left the group's offset behind for good after a broker restart:
//! the consumer's lag never reached 0, so it never went idle.)

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A partition of a topic.
pub(crate) type Partition = (String, i32);

/// How long a commit sent and not yet answered is waited for before its offset is sent again.
const UNANSWERED: Duration = Duration::from_secs(5);

/// What a consumer holds of one partition.
#[derive(Debug, Default)]
struct PartitionState {
    /// Which assignment this is: settlements of an earlier one are ignored.
    generation: u64,
    /// Offsets received and not yet settled.
    held: BTreeSet<i64>,
    /// One past the highest offset received.
    next: Option<i64>,
    /// The offset the broker last confirmed as committed.
    confirmed: Option<i64>,
    /// The offset last sent to be committed, and when, until the broker answers.
    sent: Option<(i64, Instant)>,
    /// A gap being read again: the offset expected, and the one that came instead.
    rereading: Option<(i64, i64)>,
}

/// How a record's offset follows the ones before it in its partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// The next one (or the first of the assignment, or one again).
    InOrder,
    /// Past a gap not seen before: dropped, and the partition read again from `from`.
    Gap {
        /// The first offset missing.
        from: i64,
    },
    /// Past a gap being read again: dropped (it comes again after the gap).
    Dropped,
    /// The gap came again when read again: no record is there (compaction, a transaction's
    /// marker); `missing` offsets are passed over.
    Hole {
        /// How many offsets hold no record.
        missing: i64,
    },
    /// The gap was filled when read again: the first read had skipped `missing` records (a broker's
    /// or a client's fault).
    Refilled {
        /// How many the first read skipped.
        missing: i64,
    },
}

impl PartitionState {
    /// The offset the group may commit: the lowest held, else one past the highest received.
    fn safe(&self) -> Option<i64> {
        self.held.first().copied().or(self.next)
    }

    /// Whether `safe` is to be sent now: not confirmed, and not sent lately.
    fn due(&self, safe: i64, now: Instant) -> bool {
        self.confirmed != Some(safe)
            && !self
                .sent
                .is_some_and(|(offset, at)| offset == safe && now.duration_since(at) < UNANSWERED)
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
                && state.confirmed != Some(safe)
            {
                commits.push((partition, safe));
            }
        }
        commits
    }

    /// Where a record at `offset` stands, before it is received: in order, or past a gap. A gap is
    /// read again once (the caller seeks back to its start): if the re-read brings the records, the
    /// first read had skipped them; if it brings the same record again, no record is there.
    pub(crate) fn arrival(&self, partition: &Partition, offset: i64) -> Arrival {
        let mut map = self.lock();
        let Some(state) = map.get_mut(partition) else {
            return Arrival::InOrder;
        };
        let Some(next) = state.next else {
            return Arrival::InOrder;
        };
        match state.rereading {
            Some((expected, seen)) if offset == expected => {
                state.rereading = None;
                return Arrival::Refilled {
                    missing: seen - expected,
                };
            }
            Some((expected, seen)) if offset > expected && offset <= seen => {
                // The re-read starts past the gap's start: no record before `offset`.
                state.rereading = None;
                state.next = Some(offset);
                return Arrival::Hole {
                    missing: offset - expected,
                };
            }
            Some((_, seen)) if offset > seen => return Arrival::Dropped,
            _ => {}
        }
        if offset > next {
            state.rereading = Some((next, offset));
            return Arrival::Gap { from: next };
        }
        Arrival::InOrder
    }

    /// A gap that could not be read again: passed over as it is.
    pub(crate) fn reread_failed(&self, partition: &Partition) {
        if let Some(state) = self.lock().get_mut(partition) {
            state.rereading = None;
        }
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

    /// The offsets to commit now: each partition whose safe offset is neither confirmed nor awaiting
    /// an answer (every partition's, with `all`), marked sent.
    pub(crate) fn to_commit(&self, all: bool) -> Vec<(Partition, i64)> {
        self.to_commit_at(all, Instant::now())
    }

    fn to_commit_at(&self, all: bool, now: Instant) -> Vec<(Partition, i64)> {
        let mut map = self.lock();
        let mut commits = Vec::new();
        for (partition, state) in map.iter_mut() {
            if let Some(safe) = state.safe()
                && (all || state.due(safe, now))
            {
                state.sent = Some((safe, now));
                commits.push((partition.clone(), safe));
            }
        }
        commits.sort();
        commits
    }

    /// The broker's answer to a commit of `offsets`: stored (`true`) or not. A stored offset is
    /// confirmed; a refused one is sent again on the next tick.
    pub(crate) fn answered(&self, offsets: &[(Partition, i64)], stored: bool) {
        let mut map = self.lock();
        for (partition, offset) in offsets {
            if let Some(state) = map.get_mut(partition) {
                if stored {
                    state.confirmed = Some(*offset);
                }
                if state.sent.is_some_and(|(sent, _)| sent == *offset) {
                    state.sent = None;
                }
            }
        }
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
    fn a_commit_counts_once_the_broker_answers_it_and_one_refused_or_unanswered_is_sent_again() {
        let offsets = Offsets::default();
        offsets.assigned([p(0)]);
        let g = offsets.received(&p(0), 0);
        offsets.settled(&p(0), 0, g);
        let sent = offsets.to_commit(false);
        assert_eq!(sent, vec![(p(0), 1)]);
        assert_eq!(offsets.to_commit(false), vec![], "awaiting the answer");
        // The broker was away: the commit failed, and is sent again.
        offsets.answered(&sent, false);
        let again = offsets.to_commit(false);
        assert_eq!(again, vec![(p(0), 1)]);
        // No answer at all (the request died with the broker): sent again once the wait is over.
        let later = Instant::now() + UNANSWERED + Duration::from_millis(1);
        assert_eq!(offsets.to_commit_at(false, later), vec![(p(0), 1)]);
        offsets.answered(&again, true);
        assert_eq!(offsets.to_commit_at(false, later + UNANSWERED * 2), vec![]);
        assert_eq!(
            offsets.revoked([p(0)]),
            vec![],
            "confirmed: nothing left to commit"
        );
    }

    #[test]
    fn a_gap_is_read_again_once_and_told_apart_from_a_hole() {
        let offsets = Offsets::default();
        offsets.assigned([p(0)]);
        let g = offsets.received(&p(0), 10);
        offsets.settled(&p(0), 10, g);
        assert_eq!(offsets.arrival(&p(0), 11), Arrival::InOrder);
        offsets.received(&p(0), 11);
        // 12 and 13 skipped: read again from 12; what was fetched past the gap is dropped meanwhile.
        assert_eq!(offsets.arrival(&p(0), 14), Arrival::Gap { from: 12 });
        assert_eq!(offsets.arrival(&p(0), 15), Arrival::Dropped);
        assert_eq!(offsets.arrival(&p(0), 12), Arrival::Refilled { missing: 2 });
        offsets.received(&p(0), 12);
        assert_eq!(offsets.arrival(&p(0), 13), Arrival::InOrder);
        offsets.received(&p(0), 13);
        // Nothing stored at 14 to 16 (compaction): the re-read brings 17 again.
        assert_eq!(offsets.arrival(&p(0), 17), Arrival::Gap { from: 14 });
        assert_eq!(offsets.arrival(&p(0), 17), Arrival::Hole { missing: 3 });
        offsets.received(&p(0), 17);
        assert_eq!(offsets.arrival(&p(0), 18), Arrival::InOrder);
        // Nothing was committed past a record not settled.
        assert_eq!(offsets.to_commit(false), vec![(p(0), 11)]);
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
