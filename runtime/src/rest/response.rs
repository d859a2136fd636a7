//! Responses as data: the status, the `Retry-After` header and the body, read into the generated types.

use std::time::Duration;

use energy_api::rest::ApiError;
use jiff::Timestamp;
use serde::de::DeserializeOwned;

use super::{Error, RequestSummary};

/// What a transport hands back of one HTTP response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The `Retry-After` header, when present.
    pub retry_after: Option<String>,
    /// The whole body.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The `Retry-After` header as a wait from `now`: delta-seconds (`120`) or an HTTP date.
    pub fn retry_after(&self, now: Timestamp) -> Option<Duration> {
        let value = self.retry_after.as_deref()?.trim();
        if let Ok(seconds) = value.parse::<u64>() {
            return Some(Duration::from_secs(seconds));
        }
        let date = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
        // A date already past means "now".
        Some(Duration::try_from(date.duration_since(now)).unwrap_or(Duration::ZERO))
    }

    /// Reads a 2xx body as `T`, or turns any other status into [`Error::Status`].
    ///
    /// Fields the type does not list are ignored (the real API sends more than the spec shows); a
    /// body that does not match is an [`Error::Decode`] naming the JSON path of the mismatch.
    pub fn decode<T: DeserializeOwned>(
        &self,
        request: &RequestSummary,
        now: Timestamp,
    ) -> Result<T, Error> {
        if !(200..300).contains(&self.status) {
            return Err(Error::Status {
                request: request.clone(),
                status: self.status,
                body: self.body_text(),
                api_error: serde_json::from_slice::<ApiError>(&self.body).ok(),
                retry_after: self.retry_after(now),
            });
        }
        // Tracking the path costs a string per key read, so it is done only to explain a failure.
        serde_json::from_slice(&self.body).or_else(|_| self.decode_tracking_path(request))
    }

    /// Decodes again with the JSON path tracked, for the [`Error::Decode`] of a body that failed.
    fn decode_tracking_path<T: DeserializeOwned>(
        &self,
        request: &RequestSummary,
    ) -> Result<T, Error> {
        let mut deserializer = serde_json::Deserializer::from_slice(&self.body);
        serde_path_to_error::deserialize(&mut deserializer)
            .map_err(|e| (e.path().to_string(), e.into_inner()))
            .and_then(|value| {
                deserializer
                    .end()
                    .map(|()| value)
                    .map_err(|e| (".".to_owned(), e))
            })
            .map_err(|(path, error)| Error::Decode {
                request: request.clone(),
                expected: std::any::type_name::<T>(),
                path,
                message: error.to_string(),
                body: self.body_text(),
            })
    }

    fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use energy_api::rest::{Method, Page, StandardUnitRate};

    use super::*;

    fn request() -> RequestSummary {
        RequestSummary {
            method: Method::Get,
            url: "https://api.example.com/v1/products/P/electricity-tariffs/T/standard-unit-rates/"
                .to_owned(),
        }
    }

    fn response(status: u16, body: &str) -> HttpResponse {
        HttpResponse {
            status,
            retry_after: None,
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_mismatch_names_its_json_path() {
        let body = r#"{"count": 2, "next": null, "previous": null, "results": [
            {"value_exc_vat": 1.5, "value_inc_vat": 1.575, "valid_from": "2024-03-31T00:00:00Z", "valid_to": null},
            {"value_exc_vat": "cheap", "value_inc_vat": 1.575, "valid_from": "2024-03-31T00:30:00Z", "valid_to": null}
        ]}"#;
        let error = response(200, body)
            .decode::<Page<StandardUnitRate>>(&request(), Timestamp::UNIX_EPOCH)
            .expect_err("mismatch");
        let Error::Decode { path, message, .. } = &error else {
            panic!("{error}")
        };
        assert_eq!(path, "results[1].value_exc_vat");
        assert!(
            error
                .to_string()
                .contains("does not match `Page<StandardUnitRate>` at `results[1].value_exc_vat`"),
            "{error}"
        );
        assert!(message.contains("line 3"), "{message}");
    }

    #[test]
    fn truncated_and_trailing_bodies_are_errors() {
        for body in [
            "{\"count\": 1, \"results\": [",
            "{\"count\":0,\"results\":[]} x",
            "",
        ] {
            let error = response(200, body)
                .decode::<Page<StandardUnitRate>>(&request(), Timestamp::UNIX_EPOCH)
                .expect_err(body);
            assert!(matches!(error, Error::Decode { .. }), "{error}");
        }
    }

    #[test]
    fn other_statuses_keep_the_body_and_the_api_error() {
        let error = response(404, r#"{"detail": "Not found."}"#)
            .decode::<Page<StandardUnitRate>>(&request(), Timestamp::UNIX_EPOCH)
            .expect_err("404");
        let Error::Status {
            status, api_error, ..
        } = &error
        else {
            panic!("{error}")
        };
        assert_eq!(*status, 404);
        let detail = api_error.as_ref().and_then(|e| e.0.get("detail"));
        assert_eq!(detail, Some(&serde_json::json!("Not found.")));
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let now: Timestamp = "2024-03-31T12:00:00Z".parse().expect("now");
        let mut response = response(429, "");
        response.retry_after = Some("7".to_owned());
        assert_eq!(response.retry_after(now), Some(Duration::from_secs(7)));
        response.retry_after = Some("Sun, 31 Mar 2024 12:00:30 GMT".to_owned());
        assert_eq!(response.retry_after(now), Some(Duration::from_secs(30)));
        response.retry_after = Some("Sun, 31 Mar 2024 11:00:00 GMT".to_owned());
        assert_eq!(response.retry_after(now), Some(Duration::ZERO));
        response.retry_after = Some("soon".to_owned());
        assert_eq!(response.retry_after(now), None);
    }
}
