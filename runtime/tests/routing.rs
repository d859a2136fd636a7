//! The router (handlers per type, per version, per version view, and the fallback) and the generated
//! version views (`From<newer> for older`).

use energy_api::events::{
    AgreementRevoked, AgreementUpdated, AgreementUpdatedV1, AgreementUpdatedV2,
    BillingBillingDocumentRepresentationDispatched as Dispatched,
    BillingBillingDocumentRepresentationDispatchedV1 as DispatchedV1,
    BillingBillingDocumentRepresentationDispatchedV2 as DispatchedV2,
    BillingBillingDocumentRepresentationDispatchedV3 as DispatchedV3, BillingLedgerEntryPosted,
    BillingLedgerEntryPostedV2, PayloadVersion, TypedEvent,
};
use energy_api::{Event, EventType};
use energy_runtime::events::{Decoded, Decoder, Metadata, Router};
use std::cell::RefCell;

fn decode(line: &str) -> Decoded {
    Decoder::new()
        .decode(line.as_bytes())
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

const STREAM: &[&str] = &[
    r#"{"event_type": "agreement.revoked", "version": "v1", "id": "e1", "payload": {"agreement_id": 11}}"#,
    r#"{"event_type": "agreement.revoked", "version": "v2", "id": "e2", "payload": {"agreement_id": 12, "account_number": "A-1"}}"#,
    r#"{"event_type": "billing.ledger.entry_posted", "version": "v1", "id": "e3", "payload": {"ledger": {"account": {"number": "A-1"}, "number": "L-1"}}}"#,
    r#"{"event_type": "billing.ledger.entry_posted", "version": "v2", "id": "e4", "payload": {"ledger": {"account": {"number": "A-1"}, "number": "L-1"}, "entry": {"id": 9, "is_charge": true, "is_credit": false, "is_payment": false, "is_repayment": false, "is_reversal": false, "is_reversed": false}}}"#,
    r#"{"event_type": "billing.billing_document_representation.dispatched", "version": "v1", "id": "e5", "payload": {"account_number": "A-1", "billing_document_id": 71, "billing_document_identifier": "BD-71"}}"#,
    r#"{"event_type": "billing.billing_document_representation.dispatched", "version": "v2", "id": "e6", "payload": {"account_number": "A-1", "billing_document_id": 72, "billing_document_identifier": "BD-72", "billing_document_representation_dispatch_id": 5, "billing_document_representations_id": [1, 2]}}"#,
    r#"{"event_type": "billing.billing_document_representation.dispatched", "version": "v3", "id": "e7", "payload": {"account_number": "A-1", "billing_document_id": 73, "billing_document_identifier": "BD-73", "billing_document_representation_dispatch_id": 6, "billing_document_representations_id": [3], "support_user_id": 14}}"#,
    r#"{"event_type": "tariff.repriced", "version": "v1", "id": "e8", "payload": {"tariff": "E-1R"}}"#,
    r#"{"event_type": "account.created", "version": "v1", "id": "e9", "payload": {"account_number": "A-2", "account_user_emails": []}}"#,
];

#[test]
fn events_go_to_their_handler_or_the_fallback() {
    let seen = RefCell::new(Vec::new());
    let id = |metadata: &Metadata| metadata.get_str("id").unwrap_or_default();
    let mut router = Router::new(|other: Decoded| {
        let known = if matches!(other, Decoded::Known(_)) {
            "known"
        } else {
            "unknown"
        };
        seen.borrow_mut().push(format!(
            "{}: fallback ({known} {} {})",
            id(other.metadata()),
            other.event_type(),
            other.version()
        ));
    });
    router
        .on(|revoked: AgreementRevoked, metadata| {
            seen.borrow_mut()
                .push(format!("{}: revoked {}", id(metadata), revoked.version()));
        })
        .on_version::<BillingLedgerEntryPosted, BillingLedgerEntryPostedV2>(|posted, metadata| {
            seen.borrow_mut().push(format!(
                "{}: entry {} posted",
                id(metadata),
                posted.entry.id
            ));
        })
        .on_view::<Dispatched, _>(|dispatched: DispatchedV1, metadata| {
            seen.borrow_mut().push(format!(
                "{}: document {} dispatched",
                id(metadata),
                dispatched.billing_document_identifier
            ));
        });
    assert_eq!(router.len(), 3);
    for line in STREAM {
        router.dispatch(decode(line));
    }
    drop(router);
    assert_eq!(
        seen.into_inner(),
        [
            "e1: revoked v1",
            "e2: revoked v2",
            "e3: fallback (known billing.ledger.entry_posted v1)",
            "e4: entry 9 posted",
            "e5: document BD-71 dispatched",
            "e6: document BD-72 dispatched",
            "e7: document BD-73 dispatched",
            "e8: fallback (unknown tariff.repriced v1)",
            "e9: fallback (known account.created v1)",
        ]
    );
}

#[test]
fn handlers_of_one_type_are_tried_in_order_and_return_values() {
    let mut router: Router<'_, String> =
        Router::new(|other| format!("fallback {}", other.version()));
    router
        .on_version::<Dispatched, DispatchedV3>(|v3, _| format!("v3 by {}", v3.support_user_id))
        .on_version::<Dispatched, DispatchedV1>(|v1, _| format!("v1 {}", v1.billing_document_id))
        .on(|any: Dispatched, _| format!("any {}", any.version()));
    let results: Vec<String> = STREAM[4..7]
        .iter()
        .map(|line| router.dispatch(decode(line)))
        .collect();
    assert_eq!(results, ["v1 71", "any v2", "v3 by 14"]);
    // A one-version handler does not take the others, even when a view exists.
    let mut strict_v1: Router<'_, String> =
        Router::new(|other| format!("fallback {}", other.version()));
    strict_v1
        .on_version::<Dispatched, DispatchedV1>(|v1, _| format!("v1 {}", v1.billing_document_id));
    assert_eq!(strict_v1.dispatch(decode(STREAM[6])), "fallback v3");
}

#[test]
fn version_views_convert_newer_payloads_to_older() {
    let v3 = DispatchedV3::new("A-1", 73, "BD-73", 6, vec![3, 4], 14);
    let v2 = DispatchedV2::from(v3.clone());
    assert_eq!(v2, DispatchedV2::new("A-1", 73, "BD-73", 6, vec![3, 4]));
    let v1 = DispatchedV1::from(v3);
    assert_eq!(v1, DispatchedV1::from(v2));
    assert_eq!(v1.billing_document_id, 73);

    // agreement.updated v2 ⊇ v1; the view keeps the optional field as it was.
    let v2 = AgreementUpdatedV2::new(7, serde_json::Map::new(), "A-1").with_is_override(true);
    assert_eq!(
        AgreementUpdatedV1::from(v2.clone()),
        AgreementUpdatedV1::new(7, serde_json::Map::new()).with_is_override(true)
    );
    // Through the version enum: exact version only, or the view.
    let event = AgreementUpdated::V2(v2);
    assert!(
        <AgreementUpdatedV1 as PayloadVersion<AgreementUpdated>>::from_versions(event.clone())
            .is_err()
    );
    let viewed = <AgreementUpdatedV1 as PayloadVersion<AgreementUpdated>>::view_of(event)
        .map(|v1| v1.agreement_id);
    assert_eq!(viewed, Ok(7));
    // An older payload has no view of a newer one.
    let older = AgreementUpdated::V1(AgreementUpdatedV1::new(8, serde_json::Map::new()));
    assert!(<AgreementUpdatedV2 as PayloadVersion<AgreementUpdated>>::view_of(older).is_err());
}

#[test]
fn typed_events_convert_to_and_from_the_event_enum() {
    assert_eq!(AgreementRevoked::TYPE, EventType::AgreementRevoked);
    assert_eq!(AgreementRevoked::EVENT_TYPE, "agreement.revoked");
    let Decoded::Known(known) = decode(STREAM[0]) else {
        panic!("known")
    };
    let revoked = AgreementRevoked::from_event(*known.event).expect("an agreement.revoked event");
    let event: Event = revoked.into();
    let not_updated = AgreementUpdated::from_event(event.clone());
    assert_eq!(not_updated, Err(event));
}
