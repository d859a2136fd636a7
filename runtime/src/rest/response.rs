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
    /// The `Location` header, when present (a redirect's target; never followed).
    pub location: Option<String>,
    /// The body: all of it for a 2xx response, at most [`Error::BODY_EXCERPT_BYTES`] of any other.
    pub body: Vec<u8>,
    /// Whether `body` is the whole body (an error body longer than the excerpt is not read further).
    pub body_complete: bool,
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
                body: self.body_excerpt(),
                api_error: if self.body_complete {
                    serde_json::from_slice::<ApiError>(&self.body)
                        .ok()
                        .map(Box::new)
                } else {
                    None
                },
                retry_after: self.retry_after(now),
                location: self.location.as_deref().map(Box::from),
                retries: 0,
                wait_refused: false,
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
                body: self.body_excerpt(),
            })
    }

    /// The start of the body, as text, for an error: an error keeps no copy of a large body.
    fn body_excerpt(&self) -> String {
        let mut cut = self.body.len().min(Error::BODY_EXCERPT_BYTES);
        // Cut on a character boundary when the body is UTF-8 (at most 3 bytes back).
        while cut < self.body.len() && cut > 0 && (self.body[cut] & 0xC0) == 0x80 {
            cut -= 1;
        }
        String::from_utf8_lossy(&self.body[..cut]).into_owned()
    }
}

/// A body as a transport reads it: all of a 2xx body up to the client's limit (one byte more is
/// [`Error::BodyTooLarge`]), and the start of any other body (an error body is only shown, so at most
/// [`Error::BODY_EXCERPT_BYTES`] of it is read). Its buffer never grows past the limit.
#[derive(Debug)]
pub(crate) struct BodyBuffer {
    bytes: Vec<u8>,
    limit: usize,
    /// A 2xx body: it must fit.
    whole: bool,
    complete: bool,
}

/// A 2xx body passed the limit.
#[derive(Debug)]
pub(crate) struct TooLarge;

impl BodyBuffer {
    /// A buffer for the body of a response with this status; `announced` is its `Content-Length`,
    /// when it is not compressed (a body announced larger than the limit fails before reading).
    pub(crate) fn new(
        status: u16,
        max_body_bytes: u64,
        announced: Option<u64>,
    ) -> Result<Self, TooLarge> {
        let whole = (200..300).contains(&status);
        let limit = if whole {
            usize::try_from(max_body_bytes).unwrap_or(usize::MAX)
        } else {
            Error::BODY_EXCERPT_BYTES
        };
        let announced = announced.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        if whole && announced.is_some_and(|n| n > limit) {
            return Err(TooLarge);
        }
        Ok(Self {
            bytes: Vec::with_capacity(announced.unwrap_or(8 * 1024).min(limit)),
            limit,
            whole,
            complete: true,
        })
    }

    /// Takes the next piece of the body; `Ok(false)` when no more is wanted (an error body's excerpt
    /// is full).
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<bool, TooLarge> {
        let room = self.limit - self.bytes.len();
        if chunk.len() > room {
            if self.whole {
                return Err(TooLarge);
            }
            self.extend(&chunk[..room]);
            self.complete = false;
            return Ok(false);
        }
        self.extend(chunk);
        Ok(true)
    }

    /// The response, with its headers.
    pub(crate) fn finish(
        self,
        status: u16,
        retry_after: Option<String>,
        location: Option<String>,
    ) -> HttpResponse {
        HttpResponse {
            status,
            retry_after,
            location,
            body: self.bytes,
            body_complete: self.complete,
        }
    }

    /// Appends, growing the buffer by doubling but never past the limit.
    fn extend(&mut self, chunk: &[u8]) {
        let needed = self.bytes.len() + chunk.len();
        if needed > self.bytes.capacity() {
            let target = needed.max(self.bytes.capacity() * 2).min(self.limit);
            self.bytes.reserve_exact(target - self.bytes.len());
        }
        self.bytes.extend_from_slice(chunk);
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
            location: None,
            body: body.as_bytes().to_vec(),
            body_complete: true,
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
    fn errors_keep_an_excerpt_of_the_body_only() {
        let body = format!("{{\"detail\": \"{}\"}}", "é".repeat(100_000));
        let error = response(500, &body)
            .decode::<Page<StandardUnitRate>>(&request(), Timestamp::UNIX_EPOCH)
            .expect_err("500");
        let kept = error.body().expect("body");
        assert!(
            kept.len() <= Error::BODY_EXCERPT_BYTES && kept.len() > 16_000,
            "{}",
            kept.len()
        );
        assert!(body.starts_with(kept));
        let error = response(200, &format!("[{body}]"))
            .decode::<Page<StandardUnitRate>>(&request(), Timestamp::UNIX_EPOCH)
            .expect_err("not a page");
        assert!(error.body().expect("body").len() <= Error::BODY_EXCERPT_BYTES);
    }

    #[test]
    fn a_body_buffer_holds_a_whole_2xx_body_and_the_start_of_an_error_body() {
        let mut ok = BodyBuffer::new(200, 10, None).expect("no length");
        assert!(ok.push(b"01234").expect("fits"));
        assert!(ok.push(b"56789").expect("fits exactly"));
        assert!(ok.push(b"!").is_err(), "one byte more");
        assert!(
            BodyBuffer::new(200, 10, Some(11)).is_err(),
            "announced too large"
        );
        let mut ok = BodyBuffer::new(200, 10, Some(10)).expect("announced");
        assert!(ok.push(b"0123456789").expect("fits"));
        assert!(ok.bytes.capacity() <= 10);

        let mut error = BodyBuffer::new(503, 10, Some(1 << 40)).expect("any length");
        assert!(error.push(&vec![b'x'; 20_000]).is_ok_and(|more| !more));
        let response = error.finish(503, None, None);
        assert_eq!(response.body.len(), Error::BODY_EXCERPT_BYTES);
        assert!(!response.body_complete);
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
