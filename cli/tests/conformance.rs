//! One suite of the promises every broker of the bus keeps, written once (`conformance/promises.rs`)
//! and run on each broker (`conformance/plug.rs`): the in-memory broker in the test's process,
//! `nats-server` (JetStream on file storage) and `tansu` (memory storage) on 127.0.0.1; the durable,
//! SQLite `tansu` for the promises of a broker that keeps its data, with `cargo xtask test` once it is
//! built. A test is `<broker>::<promise>`. A broker that cannot keep a promise says why in
//! `Plugged::cannot`, and the promise checks what the broker does instead: no test is skipped for it.
//!
//! What only one broker has stays in its own tests: a JetStream cluster losing its leader
//! (`bus_resilience.rs`), a Kafka group's rebalance (`bus_kafka.rs`), TLS, SASL, NKeys and JWTs
//! (`bus_auth.rs`, `bus_kafka.rs`).
#![cfg(feature = "bus")]

#[path = "conformance/plug.rs"]
mod plug;
#[path = "conformance/promises.rs"]
mod promises;

/// A test per promise for the broker `$kind` (a module of tests named after the broker).
macro_rules! promises_of {
    ($module:ident, $kind:expr, $($promise:ident),+ $(,)?) => {
        mod $module {
            $(
                #[test]
                fn $promise() {
                    let mut plugged = super::plug::Plugged::start($kind);
                    super::promises::$promise(&mut plugged);
                }
            )+
        }
    };
}

/// Every promise, for the broker `$kind`.
macro_rules! every_promise {
    ($module:ident, $kind:expr) => {
        promises_of!(
            $module,
            $kind,
            events_go_round_and_decode_to_equal_values,
            a_handled_event_is_acknowledged_and_not_delivered_again,
            a_retry_comes_after_its_delay_with_its_delivery_counted,
            a_handler_that_always_fails_is_dead_lettered_after_max_deliver,
            a_dead_letter_keeps_the_original_byte_for_byte_and_goes_round_again,
            order_holds_per_key_through_a_retry,
            unknown_types_and_versions_follow_the_consumers_policy,
            structured_mode_reads_as_binary_mode,
            a_capture_reads_its_range_and_consumes_nothing,
            the_same_id_published_twice,
            idle_exit_waits_for_what_a_stopped_consumer_held,
            a_consumer_killed_mid_stream_loses_nothing,
            a_broker_restarted_mid_stream_loses_nothing,
        );
    };
}

every_promise!(memory, super::plug::Kind::Memory);
every_promise!(nats, super::plug::Kind::Nats);
every_promise!(kafka, super::plug::Kind::Kafka);

/// The promises of a broker that keeps its data, on the SQLite `tansu` (`TANSU_DURABLE`, which
/// `cargo xtask test` builds in the background and then runs these with).
mod durable_kafka {
    #[test]
    #[ignore = "needs tansu built with SQLite storage: run by `cargo xtask test` once it is built"]
    fn a_broker_restarted_mid_stream_loses_nothing() {
        let mut plugged = super::plug::Plugged::start(super::plug::Kind::DurableKafka);
        super::promises::a_broker_restarted_mid_stream_loses_nothing(&mut plugged);
    }

    #[test]
    #[ignore = "needs tansu built with SQLite storage: run by `cargo xtask test` once it is built"]
    fn a_consumer_killed_mid_stream_loses_nothing() {
        let mut plugged = super::plug::Plugged::start(super::plug::Kind::DurableKafka);
        super::promises::a_consumer_killed_mid_stream_loses_nothing(&mut plugged);
    }
}
