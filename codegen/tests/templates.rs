//! The template files the generator copies into every generated crate (`codegen/templates/`), compiled,
//! linted and tested here against a stand-in catalogue of one event type, `meter.read` in versions `v1`
//! and `v2`, written as the generator writes them: this file stands where `events/mod.rs` and a section module
//! stand in a generated crate.
#![allow(
    missing_docs,
    reason = "the stand-in for generated code; the generated code is documented"
)]

#[path = "../templates/events/decode.rs"]
mod decode;
pub use decode::{DecodeError, EventKind, PayloadError, PayloadErrorKind, json_path_at};
#[path = "../templates/events/routing.rs"]
mod routing;
pub use routing::{PayloadVersion, TypedEvent};
#[path = "../templates/borrowed/decode.rs"]
mod borrowed_decode;
pub use borrowed_decode::BorrowedPayload;

use energy_api_core::catalogue::{EventRow, PayloadRow};
use energy_api_core::table::{Fields, Mode, StructTable};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventType {
    MeterRead,
}

impl EventType {
    pub const fn as_str(self) -> &'static str {
        CATALOGUE[self as usize].name
    }
    pub const fn versions(self) -> &'static [&'static str] {
        CATALOGUE[self as usize].versions
    }
    pub fn kind(self, version: &str) -> Option<EventKind> {
        let index = self.versions().iter().position(|v| *v == version)?;
        Some(EventKind {
            event_type: self,
            version: u8::try_from(index).ok()?,
        })
    }
}

impl std::str::FromStr for EventType {
    type Err = decode::UnknownEventType;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        (s == "meter.read")
            .then_some(EventType::MeterRead)
            .ok_or_else(|| decode::UnknownEventType(s.to_owned()))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    MeterRead(MeterRead),
}

impl Event {
    pub fn event_type(&self) -> EventType {
        EventType::MeterRead
    }
    pub fn version(&self) -> &'static str {
        match self {
            Self::MeterRead(e) => e.version(),
        }
    }
}

impl serde::Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::MeterRead(e) => e.serialize(s),
        }
    }
}

/// The catalogue as the generator writes it: a row per event type (`EventType as usize`), a row per
/// payload version in it.
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

/// The borrowed views' table, as the generator writes it.
type ViewOf = for<'a> fn(&mut Fields<'a>) -> Result<EventRef<'a>, energy_api_core::read::Stop>;
static VIEWS: &[&[ViewOf]] = &[&[
    energy_api_core::view_row!(EventRef::MeterRead, views::MeterRead::V1),
    energy_api_core::view_row!(EventRef::MeterRead, views::MeterRead::V2),
]];

impl EventKind {
    fn payload_row(self) -> &'static PayloadRow<Event> {
        &CATALOGUE[self.event_type as usize].payloads[usize::from(self.version)]
    }

    pub(crate) fn table(self) -> &'static StructTable {
        self.payload_row().table
    }

    fn event_of(self, fields: &mut Fields<'_>) -> Result<Event, energy_api_core::read::Stop> {
        (self.payload_row().build)(fields)
    }

    fn view_of<'a>(
        self,
        fields: &mut Fields<'a>,
    ) -> Result<EventRef<'a>, energy_api_core::read::Stop> {
        VIEWS[self.event_type as usize][usize::from(self.version)](fields)
    }

    pub fn read(
        self,
        reader: &mut energy_api_core::read::Reader<'_>,
    ) -> Result<Event, energy_api_core::read::Stop> {
        let mut fields = Fields::of(self.table());
        energy_api_core::table::read(reader, self.table(), Mode::Owned, &mut fields)?;
        self.event_of(&mut fields)
    }

    pub fn read_borrowed<'a>(
        self,
        reader: &mut energy_api_core::read::Reader<'a>,
    ) -> Result<EventRef<'a>, energy_api_core::read::Stop> {
        let mut fields = Fields::of(self.table());
        energy_api_core::table::read(reader, self.table(), Mode::Borrowed, &mut fields)?;
        self.view_of(&mut fields)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for EventKind {
    type Value = Event;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Event, D::Error> {
        let mut fields = energy_api_core::table::deserialize_object(d, self.table(), Mode::Owned)?;
        self.event_of(&mut fields)
            .map_err(|_| <D::Error as serde::de::Error>::custom(energy_api_core::table::MISMATCH))
    }
}

/// The borrowed views of the stand-in catalogue, as the generator writes them (`borrowed::events`).
pub mod views {
    use energy_api_core::CowStr;

    #[derive(Debug, Clone, PartialEq)]
    pub struct MeterReadV1<'a> {
        pub mprn: CowStr<'a>,
        pub reading: i64,
    }
    energy_api_core::table_struct!(
        MeterReadV1<'a>,
        view_of super::MeterReadV1,
        [mprn, reading]
    );

    #[derive(Debug, Clone, PartialEq)]
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

    #[derive(Debug, Clone, PartialEq)]
    pub enum MeterRead<'a> {
        V1(MeterReadV1<'a>),
        V2(MeterReadV2<'a>),
    }

    impl MeterRead<'_> {
        pub fn version(&self) -> &'static str {
            match self {
                Self::V1(_) => "v1",
                Self::V2(_) => "v2",
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventRef<'a> {
    MeterRead(views::MeterRead<'a>),
}

impl EventRef<'_> {
    pub fn event_type(&self) -> EventType {
        EventType::MeterRead
    }
    pub fn version(&self) -> &'static str {
        match self {
            Self::MeterRead(e) => e.version(),
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for BorrowedPayload {
    type Value = EventRef<'de>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<EventRef<'de>, D::Error> {
        let mut fields =
            energy_api_core::table::deserialize_object(d, self.0.table(), Mode::Borrowed)?;
        self.0
            .view_of(&mut fields)
            .map_err(|_| <D::Error as serde::de::Error>::custom(energy_api_core::table::MISMATCH))
    }
}

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
