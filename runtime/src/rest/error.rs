//! The errors of the REST client. None of them ever holds a credential.

use std::fmt;
use std::time::Duration;

use energy_api::rest::{ApiError, Method};

/// A request as errors and logs show it: method and URL, never a header (so never a credential).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestSummary {
    /// The HTTP method.
    pub method: Method,
    /// The absolute URL, with its query string.
    pub url: String,
}

impl fmt::Display for RequestSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method.as_str(), self.url)
    }
}

/// Everything that can go wrong between building a request and holding its decoded response.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The base URL is not usable (not `https://` outside loopback, user information, ...).
    #[error("invalid base URL {url}: {reason}")]
    InvalidBaseUrl {
        /// The URL as given, hidden when it holds user information.
        url: String,
        /// Why it is refused.
        reason: String,
    },
    /// The HTTP client could not be set up (its TLS configuration, say).
    #[error("cannot set up the HTTP client: {message}")]
    Setup {
        /// What failed.
        message: String,
    },
    /// The credentials cannot be sent (empty, or not a valid header value). The value is never shown.
    #[error("invalid credentials: {0}")]
    InvalidCredentials(&'static str),
    /// The endpoint needs credentials and the client has none.
    #[error("`{operation}` requires authentication: give an API key or a token")]
    MissingCredentials {
        /// The endpoint's operation name.
        operation: &'static str,
    },
    /// A date-time parameter could not be read or resolved.
    #[error("invalid date-time `{input}`: {reason}")]
    InvalidDateTime {
        /// The text as given.
        input: String,
        /// Why it could not be used.
        reason: String,
    },
    /// The server answered with a status other than 2xx (after any retries).
    #[error("{request}: HTTP {status}{}", body_excerpt(body))]
    Status {
        /// The request that failed.
        request: RequestSummary,
        /// The HTTP status code.
        status: u16,
        /// The response body, as text.
        body: String,
        /// The body read as the API's error object, when it is a JSON object.
        api_error: Option<ApiError>,
        /// The server's `Retry-After` wait, when it sent one (on 429 and 503).
        retry_after: Option<Duration>,
    },
    /// A 2xx response whose body does not match the expected type.
    #[error(
        "{request}: the response does not match `{}` at `{path}`: {message}",
        short_type_name(expected)
    )]
    Decode {
        /// The request whose response this is.
        request: RequestSummary,
        /// The Rust type the body should have matched (its full path).
        expected: &'static str,
        /// The JSON path of the first mismatch (`results[3].valid_from`; `.` for the whole body).
        path: String,
        /// What is wrong there, with the line and column in the body.
        message: String,
        /// The response body, as text.
        body: String,
    },
    /// No complete response within the configured timeout.
    #[error("{request}: no response within {}s", timeout.as_secs_f64())]
    Timeout {
        /// The request that timed out.
        request: RequestSummary,
        /// The timeout that expired.
        timeout: Duration,
    },
    /// The connection or the HTTP exchange failed (refused connection, DNS, TLS, broken body, ...).
    #[error("{request}: {message}")]
    Transport {
        /// The request that failed.
        request: RequestSummary,
        /// What the transport reported.
        message: String,
    },
    /// A page's `next` link leads to a page already fetched: following it would never end.
    #[error("{request}: the next page link `{next}` repeats a page already fetched; stopping")]
    PaginationLoop {
        /// The request of the page that carried the link.
        request: RequestSummary,
        /// The `next` link.
        next: String,
    },
    /// A page's `next` link leads to another origin than the base URL: it is not followed, so that
    /// neither credentials nor requests go to a host nobody configured.
    #[error(
        "{request}: the next page link `{next}` leaves the API's origin {origin}; not following it"
    )]
    ForeignNextPage {
        /// The request of the page that carried the link.
        request: RequestSummary,
        /// The `next` link.
        next: String,
        /// The base URL's origin.
        origin: String,
    },
    /// A page's `next` link is not a URL.
    #[error("{request}: the next page link `{next}` is not a valid URL: {reason}")]
    InvalidNextPage {
        /// The request of the page that carried the link.
        request: RequestSummary,
        /// The `next` link.
        next: String,
        /// Why it cannot be parsed.
        reason: String,
    },
    /// The configured cap on pages was reached while more pages remained.
    #[error("{request}: stopped after {limit} pages (the configured page limit); more remain")]
    PageLimit {
        /// The request of the last page fetched.
        request: RequestSummary,
        /// The cap.
        limit: usize,
    },
}

impl Error {
    /// The HTTP status, for [`Error::Status`].
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The request the error is about, when one was made.
    pub fn request(&self) -> Option<&RequestSummary> {
        match self {
            Self::Status { request, .. }
            | Self::Decode { request, .. }
            | Self::Timeout { request, .. }
            | Self::Transport { request, .. }
            | Self::PaginationLoop { request, .. }
            | Self::ForeignNextPage { request, .. }
            | Self::InvalidNextPage { request, .. }
            | Self::PageLimit { request, .. } => Some(request),
            Self::InvalidBaseUrl { .. }
            | Self::Setup { .. }
            | Self::InvalidCredentials(_)
            | Self::MissingCredentials { .. }
            | Self::InvalidDateTime { .. } => None,
        }
    }

    /// The response body, for [`Error::Status`] and [`Error::Decode`].
    pub fn body(&self) -> Option<&str> {
        match self {
            Self::Status { body, .. } | Self::Decode { body, .. } => Some(body),
            _ => None,
        }
    }
}

/// `energy_api::rest::Page<energy_api::rest::Product>` as `Page<Product>`.
fn short_type_name(full: &str) -> String {
    let mut short = String::new();
    let mut segment = String::new();
    for c in full.chars() {
        if c.is_alphanumeric() || c == '_' || c == ':' {
            segment.push(c);
        } else {
            short.push_str(segment.rsplit("::").next().unwrap_or_default());
            segment.clear();
            short.push(c);
        }
    }
    short.push_str(segment.rsplit("::").next().unwrap_or_default());
    short
}

/// The start of a body, on one line, for a message: `: {"detail":"Not found."}`.
fn body_excerpt(body: &str) -> String {
    const LIMIT: usize = 300;
    let one_line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.is_empty() {
        return String::new();
    }
    match one_line.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!(": {}...", &one_line[..cut]),
        None => format!(": {one_line}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_errors_show_the_request_status_and_body() {
        let error = Error::Status {
            request: RequestSummary {
                method: Method::Get,
                url: "https://api.example.com/v1/accounts/A-1/".to_owned(),
            },
            status: 404,
            body: "{\n  \"detail\": \"Not found.\"\n}".to_owned(),
            api_error: None,
            retry_after: None,
        };
        assert_eq!(
            error.to_string(),
            "GET https://api.example.com/v1/accounts/A-1/: HTTP 404: { \"detail\": \"Not found.\" }"
        );
        assert_eq!(error.status(), Some(404));
    }

    #[test]
    fn long_bodies_are_cut() {
        let excerpt = body_excerpt(&"é".repeat(1000));
        assert_eq!(excerpt.chars().count(), 2 + 300 + 3);
    }
}
