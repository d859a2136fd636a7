//! A consumer's figures for an operator: what became of the messages (per outcome and event type), how
//! long handlers took, what is held, what was dead-lettered, and the durable consumer's backlog on the
//! broker; and whether the consumer is healthy.
//!
//! The figures live in a [`prometheus_client`] `Registry` that the caller owns and passes in
//! ([`ConsumerMetrics::register`]): `energy events consume --metrics ADDR` serves it at `/metrics`
//! ([`super::serve`]); a library user serves it beside its own figures, or reads the same numbers from
//! [`super::Counters`]. Why `prometheus-client` rather than the `metrics` facade: a library must not
//! install a process-wide recorder, the figures (the lag above all) belong to one consumer and are
//! refreshed by it, several consumers in one process keep apart by their consumer label in one
//! registry, and it is the Prometheus project's own client, writing both the OpenMetrics and the
//! Prometheus text formats.
//!
//! Names follow OpenTelemetry's messaging conventions where one fits (`messaging.client.consumed.messages`,
//! `messaging.process.duration`; attributes `messaging.system`, `messaging.consumer.group.name`,
//! `cloudevents.event_type`, `error.type`), as their Prometheus translation writes them (dots as
//! underscores, the unit and `_total` as suffixes); the rest are `energy_consumer_*`:
//!
//! | metric | type | labels | what |
//! |---|---|---|---|
//! | `messaging_client_consumed_messages_total` | counter | `cloudevents_event_type`, `energy_outcome` | messages settled, by outcome (`handled`, `retried`, `dead_lettered`, `unknown`, `skipped`, `handed_back`) |
//! | `messaging_process_duration_seconds` | histogram | `cloudevents_event_type` | time in the handler |
//! | `energy_consumer_messages_in_flight` | gauge | | messages pulled and not yet settled |
//! | `energy_consumer_dead_letters_total` | counter | `error_type` | dead letters, by why (`invalid_type`, `handler_failed`, …) |
//! | `energy_consumer_pending_messages` | gauge | | the durable's messages not yet delivered (`num_pending`) |
//! | `energy_consumer_ack_pending_messages` | gauge | | delivered and not yet settled, by every process of the durable (`num_ack_pending`) |
//! | `energy_consumer_healthy` | gauge | | 1 while connected and pulling, else 0 |
//! | `energy_consumer_partition_lag` | gauge | `messaging_destination_name`, `messaging_destination_partition_id` | Kafka: a partition's high watermark minus the group's committed offset |
//! | `energy_consumer_offset_gaps_total` | counter | the same | Kafka: records a fetch skipped and a second read delivered |
//!
//! Every series also has `messaging_system` (`nats`, `kafka`, `memory`) and
//! `messaging_consumer_group_name="<durable>"`.
//! An event type the catalogue does not know is counted as `cloudevents_event_type="unknown"` (its name
//! is a producer's choice: as a label it could grow the series without bound), and one whose headers
//! name no type as `""`.

use super::outcome::Outcome;
use super::transport::Lag;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    cloudevents_event_type: &'static str,
    energy_outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TypeLabels {
    cloudevents_event_type: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FaultLabels {
    error_type: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PartitionLabels {
    messaging_destination_name: String,
    messaging_destination_partition_id: String,
}

/// Handler durations' bucket bounds, in seconds: 1 ms to 10 s.
const DURATION_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The figures of one consumer, registered in a caller's registry. Cheap to clone: clones count into
/// the same series.
#[derive(Clone, Debug)]
pub struct ConsumerMetrics {
    consumed: Family<OutcomeLabels, Counter>,
    duration: Family<TypeLabels, Histogram>,
    in_flight: Gauge,
    dead_letters: Family<FaultLabels, Counter>,
    pending: Gauge,
    ack_pending: Gauge,
    healthy: Gauge,
    partition_lag: Family<PartitionLabels, Gauge>,
    offset_gaps: Family<PartitionLabels, Counter>,
    /// Each event type's series, found once: a family's lookup hashes its labels under a lock, which
    /// a consumer would pay twice per message.
    series: Arc<[TypeSeries]>,
}

/// The series of one event type label: a counter per outcome, and the handler durations.
#[derive(Debug, Default)]
struct TypeSeries {
    outcomes: [OnceLock<Counter>; Outcome::ALL.len()],
    duration: OnceLock<Histogram>,
}

impl ConsumerMetrics {
    /// Registers in `registry` the figures of the durable consumer (on Kafka, the group) `durable` on
    /// the broker kind `system` (`nats`, `kafka`, `memory`: its `messaging_system` label). On Kafka,
    /// each partition's lag (its high watermark minus the group's committed offset) is a series of
    /// `energy_consumer_partition_lag`.
    pub fn register(registry: &mut Registry, system: &str, durable: &str) -> Self {
        let metrics = ConsumerMetrics {
            consumed: Family::default(),
            duration: Family::new_with_constructor(|| {
                Histogram::new(DURATION_BUCKETS.iter().copied())
            }),
            in_flight: Gauge::default(),
            dead_letters: Family::default(),
            pending: Gauge::default(),
            ack_pending: Gauge::default(),
            healthy: Gauge::default(),
            partition_lag: Family::default(),
            offset_gaps: Family::default(),
            // Every type of the catalogue, then `unknown`, then no type.
            series: (0..energy_api::EventType::ALL.len() + 2)
                .map(|_| TypeSeries::default())
                .collect(),
        };
        let scope = registry.sub_registry_with_labels(
            [
                ("messaging_system".into(), system.to_owned().into()),
                (
                    "messaging_consumer_group_name".into(),
                    durable.to_owned().into(),
                ),
            ]
            .into_iter(),
        );
        scope.register(
            "messaging_client_consumed_messages",
            "Messages settled by the consumer, by event type and outcome",
            metrics.consumed.clone(),
        );
        scope.register_with_unit(
            "messaging_process_duration",
            "Time a handler took, by event type",
            Unit::Seconds,
            metrics.duration.clone(),
        );
        scope.register(
            "energy_consumer_messages_in_flight",
            "Messages pulled and not yet settled",
            metrics.in_flight.clone(),
        );
        scope.register(
            "energy_consumer_dead_letters",
            "Messages dead-lettered, by why",
            metrics.dead_letters.clone(),
        );
        scope.register(
            "energy_consumer_pending_messages",
            "Messages of the durable consumer not yet delivered (the broker's num_pending)",
            metrics.pending.clone(),
        );
        scope.register(
            "energy_consumer_ack_pending_messages",
            "Messages delivered and not yet settled, by every process of the durable consumer (num_ack_pending)",
            metrics.ack_pending.clone(),
        );
        scope.register(
            "energy_consumer_healthy",
            "1 while the consumer is connected and pulling, else 0",
            metrics.healthy.clone(),
        );
        if system == "kafka" {
            scope.register(
                "energy_consumer_partition_lag",
                "Records of a partition not yet committed by the group: its high watermark minus the committed offset",
                metrics.partition_lag.clone(),
            );
            scope.register(
                "energy_consumer_offset_gaps",
                "Records of a partition a fetch skipped and a second read delivered (a broker's or client's fault; not compaction or transaction markers)",
                metrics.offset_gaps.clone(),
            );
        }
        metrics
    }

    /// The lag of one partition, as last read from the broker (Kafka).
    #[cfg_attr(not(feature = "kafka"), allow(dead_code))]
    pub(crate) fn partition_lag(&self, topic: &str, partition: i32, lag: u64) {
        self.partition_lag
            .get_or_create(&PartitionLabels {
                messaging_destination_name: topic.to_owned(),
                messaging_destination_partition_id: partition.to_string(),
            })
            .set(i64::try_from(lag).unwrap_or(i64::MAX));
    }

    /// Records of a partition that a fetch skipped and a second read delivered (Kafka).
    #[cfg_attr(not(feature = "kafka"), allow(dead_code))]
    pub(crate) fn offset_gap(&self, topic: &str, partition: i32, records: u64) {
        self.offset_gaps
            .get_or_create(&PartitionLabels {
                messaging_destination_name: topic.to_owned(),
                messaging_destination_partition_id: partition.to_string(),
            })
            .inc_by(records);
    }

    /// Counts one settlement.
    pub(crate) fn settled(&self, event_type: TypeLabel, outcome: Outcome, cause: Option<&str>) {
        let slot = &self.series[event_type.slot].outcomes[outcome as usize];
        slot.get_or_init(|| {
            self.consumed
                .get_or_create(&OutcomeLabels {
                    cloudevents_event_type: event_type.name,
                    energy_outcome: outcome.as_str(),
                })
                .clone()
        })
        .inc();
        if outcome == Outcome::DeadLettered {
            self.dead_letters
                .get_or_create(&FaultLabels {
                    error_type: cause.unwrap_or("").to_owned(),
                })
                .inc();
        }
    }

    /// Records how long a handler took.
    pub(crate) fn handler_took(&self, event_type: TypeLabel, took: Duration) {
        self.series[event_type.slot]
            .duration
            .get_or_init(|| {
                self.duration
                    .get_or_create(&TypeLabels {
                        cloudevents_event_type: event_type.name,
                    })
                    .clone()
            })
            .observe(took.as_secs_f64());
    }

    /// The messages held now.
    pub(crate) fn in_flight(&self) -> &Gauge {
        &self.in_flight
    }

    /// The backlog, as last read from the broker.
    pub(crate) fn backlog(&self, lag: Lag) {
        self.pending
            .set(i64::try_from(lag.pending).unwrap_or(i64::MAX));
        self.ack_pending
            .set(i64::try_from(lag.ack_pending).unwrap_or(i64::MAX));
    }

    /// Whether the consumer is healthy now.
    pub(crate) fn health(&self, healthy: bool) {
        self.healthy.set(i64::from(healthy));
    }
}

/// The label of an event type, and where its series are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypeLabel {
    /// The catalogue's name of a type it knows, `unknown` for one it does not, `""` for none.
    pub name: &'static str,
    slot: usize,
}

/// The label of an event type named `event_type` (if any).
pub(crate) fn event_type_label(event_type: Option<&str>) -> TypeLabel {
    let known = energy_api::EventType::ALL.len();
    match event_type.map(str::parse::<energy_api::EventType>) {
        // The variant's position among the compiled-in types: a slot for this process's table.
        Some(Ok(t)) => TypeLabel {
            name: t.as_str(),
            slot: t as usize,
        },
        Some(Err(_)) => TypeLabel {
            name: "unknown",
            slot: known,
        },
        None => TypeLabel {
            name: "",
            slot: known + 1,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::health::Health;

    #[test]
    fn the_figures_are_written_under_their_documented_names() {
        let mut registry = Registry::default();
        let metrics = ConsumerMetrics::register(&mut registry, "nats", "billing");
        let bill = event_type_label(Some("billing.final_bill"));
        metrics.settled(bill, Outcome::Handled, None);
        metrics.settled(bill, Outcome::Handled, None);
        metrics.settled(
            event_type_label(None),
            Outcome::DeadLettered,
            Some("bad_envelope"),
        );
        metrics.handler_took(bill, Duration::from_millis(3));
        metrics.backlog(Lag {
            pending: 7,
            ack_pending: 2,
        });
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            r#"messaging_client_consumed_messages_total{messaging_system="nats",messaging_consumer_group_name="billing",cloudevents_event_type="billing.final_bill",energy_outcome="handled"} 2"#,
            r#"energy_consumer_dead_letters_total{messaging_system="nats",messaging_consumer_group_name="billing",error_type="bad_envelope"} 1"#,
            r#"messaging_process_duration_seconds_count{messaging_system="nats",messaging_consumer_group_name="billing",cloudevents_event_type="billing.final_bill"} 1"#,
            r#"energy_consumer_pending_messages{messaging_system="nats",messaging_consumer_group_name="billing"} 7"#,
            r#"energy_consumer_ack_pending_messages{messaging_system="nats",messaging_consumer_group_name="billing"} 2"#,
        ] {
            assert!(text.contains(line), "{line} not in\n{text}");
        }
    }

    #[test]
    fn unknown_event_types_share_one_label() {
        assert_eq!(
            event_type_label(Some("billing.final_bill")).name,
            "billing.final_bill"
        );
        let made_up = event_type_label(Some("made.up.by.a.producer"));
        let other = event_type_label(Some("another.made.up"));
        assert_eq!((made_up.name, made_up), ("unknown", other));
        assert_eq!(event_type_label(None).name, "");
        let slots: std::collections::HashSet<usize> = energy_api::EventType::ALL
            .iter()
            .map(|t| event_type_label(Some(t.as_str())).slot)
            .chain([made_up.slot, event_type_label(None).slot])
            .collect();
        assert_eq!(
            slots.len(),
            energy_api::EventType::ALL.len() + 2,
            "a slot each"
        );
        assert!(
            slots
                .iter()
                .all(|s| *s < energy_api::EventType::ALL.len() + 2)
        );
    }

    #[test]
    fn outcomes_are_listed_in_the_order_of_their_slots() {
        for (i, outcome) in Outcome::ALL.iter().enumerate() {
            assert_eq!(*outcome as usize, i);
        }
    }

    #[test]
    fn health_says_why_not() {
        let health = Health::default();
        assert_eq!(health.check(), Err("not started".to_owned()));
        health.started();
        assert_eq!(health.check(), Ok(()));
        health.pulled(false);
        health.pulled(false);
        assert_eq!(
            health.check(),
            Err("the last 2 pull requests failed".to_owned())
        );
        health.pulled(true);
        health.connected(false);
        assert_eq!(health.check(), Err("not connected to a server".to_owned()));
        health.connected(true);
        health.stopped();
        assert_eq!(health.check(), Err("stopped".to_owned()));
    }
}
