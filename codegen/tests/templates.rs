//! The template files the generator copies into every generated crate (`codegen/templates/`), compiled,
//! linted and tested here against a stand-in catalogue of one event type, `meter.read` in versions `v1`
//! and `v2`, written as the generator writes them: this file stands where `events/mod.rs` and a section module
//! stand in a generated crate.
#![allow(
    missing_docs,
    reason = "the stand-in for generated code; the generated code is documented"
)]

#[path = "../templates/events/catalogue.rs"]
mod catalogue;
#[path = "../templates/events/decode.rs"]
mod decode;
pub use decode::{
    DecodeError, EventKind, PayloadError, PayloadErrorKind, UnknownEventType, json_path_at,
};
#[path = "../templates/events/routing.rs"]
mod routing;
pub use routing::{PayloadVersion, TypedEvent};
#[path = "../templates/borrowed/decode.rs"]
mod borrowed_decode;
pub use borrowed_decode::BorrowedPayload;

use energy_api_core::catalogue::{EventRow, PayloadRow};

#[derive(Debug, Clone, PartialEq)]
pub struct MeterReadV1 {
    pub mprn: String,
    pub reading: i64,
}
energy_api_core::table_struct!(MeterReadV1, [mprn: Str, reading: Int], by_name: [0, 1, 2]);

#[derive(Debug, Clone, PartialEq)]
pub struct MeterReadV2 {
    pub mprn: String,
    pub reading: i64,
    pub registers: Vec<String>,
}
energy_api_core::table_struct!(
    MeterReadV2,
    [mprn: Str, reading: Int, registers: Array(&Str)],
    by_name: [0, 1, 2, 3],
);

/// Where a section module finds them in a generated crate (`crate::events`).
mod events {
    pub use super::{Event, EventType, PayloadVersion, TypedEvent};
}

routing::version_enum! {
    /// Event type `meter.read`, in each of its payload versions.
    #[event_type = "meter.read"]
    pub enum MeterRead {
        /// Payload version `v1`.
        #[version = "v1"]
        #[views(V2)]
        V1(MeterReadV1),
        /// Payload version `v2`.
        #[version = "v2"]
        V2(
            MeterReadV2,
        ),
    }
}

impl From<MeterReadV2> for MeterReadV1 {
    fn from(v2: MeterReadV2) -> Self {
        Self {
            mprn: v2.mprn,
            reading: v2.reading,
        }
    }
}

// The data the generator writes for the stand-in catalogue: the rows of the enums, the names, the
// catalogue and the views' table. Everything that reads them is the templates' and `energy_api_core`'s.
energy_api_core::event_enum! {
    owned;
    #[cfg(all())] MeterRead(MeterRead) = "meter.read",
}

const EVENT_TYPE_NAMES: [&str; 1] = ["meter.read"];

/// The generator writes a hash table (`emit/rust/name_table.rs`); a search stands in for it.
fn event_type_index(s: &str) -> Option<usize> {
    EVENT_TYPE_NAMES.iter().position(|name| *name == s)
}

static CATALOGUE: &[EventRow<Event>] = &[EventRow {
    name: "meter.read",
    former_names: &[],
    section: "meters",
    versions: MeterRead::VERSIONS,
    payloads: &[
        PayloadRow::of::<MeterReadV1, MeterRead>(),
        PayloadRow::of::<MeterReadV2, MeterRead>(),
    ],
}];

/// The borrowed views of the stand-in catalogue, as the generator writes them (`borrowed::events`).
pub mod views {
    use energy_api_core::CowStr;

    #[derive(Debug)]
    pub struct MeterReadV1<'a> {
        pub mprn: CowStr<'a>,
        pub reading: i64,
    }
    energy_api_core::table_struct!(
        MeterReadV1<'a>,
        view_of super::MeterReadV1,
        [mprn, reading]
    );

    #[derive(Debug)]
    pub struct MeterReadV2<'a> {
        pub mprn: CowStr<'a>,
        pub reading: i64,
        pub registers: Vec<CowStr<'a>>,
    }
    energy_api_core::table_struct!(
        MeterReadV2<'a>,
        view_of super::MeterReadV2,
        [mprn, reading, registers]
    );

    crate::routing::version_enum! {
        /// The borrowed view of `meter.read`, in each of its payload versions.
        pub enum MeterRead<'a,> {
            /// Payload version `v1`.
            #[version = "v1"]
            V1(MeterReadV1<'a>),
            /// Payload version `v2`.
            #[version = "v2"]
            V2(MeterReadV2<'a>),
        }
    }
}

energy_api_core::event_enum! {
    borrowed<'a>, uninhabited_unless all();
    #[cfg(all())] MeterRead(views::MeterRead<'a>) = "meter.read",
}

static VIEWS: &[&[borrowed_decode::ViewOf]] = &[&[
    energy_api_core::view_row!(EventRef::MeterRead, views::MeterRead::V1),
    energy_api_core::view_row!(EventRef::MeterRead, views::MeterRead::V2),
]];

#[test]
fn borrowed_views_point_into_the_payload_and_fail_as_decoding_does() {
    let payload = br#"{"mprn": "7512345606", "reading": 12345, "registers": ["0\u0031"]}"#;
    let view = EventRef::decode("meter.read", "v2", payload).expect("decodes");
    let EventRef::MeterRead(views::MeterRead::V2(v2)) = &view else {
        panic!("{view:?}")
    };
    assert!(
        v2.mprn.is_borrowed(),
        "a plain string points into the payload"
    );
    assert!(!v2.registers[0].is_borrowed(), "an escaped one is decoded");
    assert_eq!(
        (v2.mprn.as_str(), v2.registers[0].as_str()),
        ("7512345606", "01")
    );
    assert_eq!(view.kind(), EventKind::new("meter.read", "v2").unwrap());
    assert_eq!(
        EventKind::new("meter.read", "v1")
            .unwrap()
            .borrowed()
            .kind()
            .version(),
        "v1"
    );
    for broken in [
        &br#"{"mprn": "1", "reading": 1}"#[..],
        br#"{"mprn": 1, "reading": 1, "registers": []}"#,
        br#"{"mprn": "1", "reading": 1, "registers": []"#,
        b"\xff",
    ] {
        assert_eq!(
            EventRef::decode("meter.read", "v2", broken).unwrap_err(),
            Event::decode("meter.read", "v2", broken).unwrap_err(),
        );
    }
    assert_eq!(
        EventRef::decode("meter.read", "v9", payload)
            .unwrap_err()
            .to_string(),
        "unknown version `v9` of event type `meter.read` (known: v1, v2)"
    );
}

#[test]
fn payloads_decode_by_type_and_version_and_serialize_back() {
    let payload = br#"{"mprn": "7512345606", "reading": 12345, "registers": ["01"], "extra": 1}"#;
    let event = Event::decode("meter.read", "v2", payload).expect("decodes");
    assert_eq!(
        event,
        Event::MeterRead(MeterRead::V2(MeterReadV2 {
            mprn: "7512345606".into(),
            reading: 12345,
            registers: vec!["01".into()]
        }))
    );
    assert_eq!(event.kind().version(), "v2");
    assert_eq!(event.kind().event_type().to_string(), "meter.read");
    assert_eq!(
        event.to_payload_json(),
        br#"{"mprn":"7512345606","reading":12345,"registers":["01"]}"#
    );
    assert_eq!(
        serde_json::to_string(&EventType::MeterRead).unwrap(),
        "\"meter.read\""
    );
}

#[test]
fn unknown_types_and_versions_are_errors_that_say_so() {
    let unknown = Event::decode("meter.exploded", "v1", b"{}").unwrap_err();
    assert_eq!(unknown.to_string(), "unknown event type `meter.exploded`");
    let version = Event::decode("meter.read", "v9", b"{}").unwrap_err();
    assert_eq!(
        version.to_string(),
        "unknown version `v9` of event type `meter.read` (known: v1, v2)"
    );
}

#[test]
fn payload_errors_name_the_path_kind_and_place() {
    let kind = EventKind::new("meter.read", "v2").unwrap();
    let cases: [(&[u8], PayloadErrorKind, &str); 5] = [
        (
            br#"{"mprn": "1", "reading": 1}"#,
            PayloadErrorKind::MissingField,
            "registers",
        ),
        (
            br#"{"mprn": "1", "reading": 1, "registers": ["01", 2]}"#,
            PayloadErrorKind::InvalidType,
            "registers[1]",
        ),
        (
            br#"{"mprn": "1", "reading": 9223372036854775808, "registers": []}"#,
            PayloadErrorKind::InvalidValue,
            "reading",
        ),
        (
            br#"{"mprn": "1", "mprn": "2", "reading": 1, "registers": []}"#,
            PayloadErrorKind::DuplicateField,
            "mprn",
        ),
        (b"{\"mprn\": \"\xff\"}", PayloadErrorKind::Syntax, "mprn"),
    ];
    for (payload, expected_kind, path) in cases {
        let Err(DecodeError::Payload(e)) = kind.decode(payload) else {
            panic!("{} decodes", String::from_utf8_lossy(payload))
        };
        assert_eq!((e.kind, e.path.as_str()), (expected_kind, path), "{e}");
        assert_eq!(e.event_type, EventType::MeterRead);
        // Validation gives the same verdict and the same error.
        assert_eq!(kind.validate(payload), Err(DecodeError::Payload(e)));
    }
    let Err(DecodeError::Payload(e)) =
        kind.decode(br#"{"mprn": 7, "reading": 1, "registers": []}"#)
    else {
        panic!("decodes")
    };
    assert_eq!(
        e.to_string(),
        "`meter.read` v2 payload, at `mprn`: invalid type: integer `7`, expected a string (line 1, column 10)"
    );
    assert_eq!(json_path_at(br#"{"a": [1, {"b": 2}]}"#, 16), "a[1].b");
}

#[test]
fn validation_accepts_what_decoding_accepts() {
    let kind = EventKind::new("meter.read", "v1").unwrap();
    for payload in [
        &br#"{"mprn": "1", "reading": 3}"#[..],
        br#"{"reading": 3, "mprn": "1", "unlisted": {"deep": [null]}}"#,
    ] {
        assert!(kind.decode(payload).is_ok());
        assert_eq!(kind.validate(payload), Ok(()));
    }
}

#[test]
fn routing_traits_read_newer_versions_through_views() {
    let event = Event::decode(
        "meter.read",
        "v2",
        br#"{"mprn": "1", "reading": 3, "registers": []}"#,
    )
    .unwrap();
    let typed = MeterRead::from_event(event).unwrap();
    assert_eq!(<MeterRead as TypedEvent>::TYPE, EventType::MeterRead);
    let as_v1 = MeterReadV1::view_of(typed.clone()).unwrap();
    assert_eq!(as_v1.reading, 3);
    assert!(MeterReadV1::from_versions(typed.clone()).is_err());
    // What `version_enum!` writes besides the routing traits.
    assert_eq!(typed.version(), "v2");
    assert_eq!(<MeterReadV2 as PayloadVersion<MeterRead>>::VERSION, "v2");
    assert_eq!(
        (MeterRead::EVENT_TYPE, MeterRead::VERSIONS),
        ("meter.read", &["v1", "v2"][..])
    );
    let v2 = MeterReadV2::from_versions(typed.clone()).unwrap();
    assert_eq!(MeterRead::from(v2.clone()), typed);
    assert!(
        MeterReadV2::view_of(MeterRead::from(as_v1.clone())).is_err(),
        "an older version is no view of a newer"
    );
    assert_eq!(Event::from(typed.clone()), Event::MeterRead(typed.clone()));
    assert_eq!(
        serde_json::to_string(&typed).unwrap(),
        serde_json::to_string(&v2).unwrap(),
        "a version enum serializes as its payload"
    );
}

#[test]
fn event_types_are_read_from_the_catalogue_and_found_by_name() {
    assert_eq!(EventType::ALL, &[EventType::MeterRead]);
    let meter_read = EventType::MeterRead;
    assert_eq!(
        (
            meter_read.as_str(),
            meter_read.versions(),
            meter_read.section()
        ),
        ("meter.read", &["v1", "v2"][..], "meters")
    );
    assert_eq!("meter.read".parse::<EventType>(), Ok(meter_read));
    assert_eq!(
        "meter.reads".parse::<EventType>(),
        Err(UnknownEventType("meter.reads".to_owned()))
    );
    assert_eq!(meter_read.kind("v2").map(EventKind::version), Some("v2"));
    assert_eq!(meter_read.kind("v3"), None);
    let kind = meter_read.kind("v1").unwrap();
    assert_eq!(kind.table().name, "struct MeterReadV1");
    let mut reader = energy_api_core::read::Reader::new(r#"{"mprn": "1", "reading": 2}"#);
    assert_eq!(
        kind.read(&mut reader).map(|e| e.version()),
        Ok("v1"),
        "the fast reader"
    );
}

#[test]
fn the_enums_over_event_types_serialize_as_their_payload() {
    let payload = br#"{"mprn":"7512345606","reading":12345}"#;
    let event = Event::decode("meter.read", "v1", payload).unwrap();
    assert_eq!(
        (event.event_type(), event.version()),
        (EventType::MeterRead, "v1")
    );
    assert_eq!(serde_json::to_vec(&event).unwrap(), payload);
    let view = EventRef::decode("meter.read", "v1", payload).unwrap();
    assert_eq!(
        (view.event_type(), view.version()),
        (EventType::MeterRead, "v1")
    );
    assert_eq!(serde_json::to_vec(&view).unwrap(), payload);
    let EventRef::MeterRead(versions) = &view;
    assert_eq!(versions.version(), "v1");
}
