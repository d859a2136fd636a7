//! The errors of the REST client. None of them ever holds a credential.

use std::fmt;
use std::time::Duration;

use energy_api::rest::{ApiError, Method};

use crate::text::Shown;

/// The most of a URL an error message shows (a `next` link is the server's text, of any length).
const URL_SHOWN: usize = 500;
/// The most of a `next` link, a `Location` or a message from the server an error message shows.
const SERVER_TEXT_SHOWN: usize = 300;

/// A request as errors and logs show it: method and URL, never a header (so never a credential).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestSummary {
    /// The HTTP method.
    pub method: Method,
    /// The absolute URL, with its query string.
    pub url: String,
}

impl fmt::Display for RequestSummary {
    /// Method and URL; a URL longer than 500 characters is shortened, and any control character
    /// (a `next` link is the server's text) is shown as an escape.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            self.method.as_str(),
            Shown::new(&self.url, URL_SHOWN)
        )
    }
}

/// Everything that can go wrong between building a request and holding its decoded response.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The base URL is not usable (not `https://` outside loopback, user information, ...).
    #[error("invalid base URL {}: {reason}", Shown::new(url, SERVER_TEXT_SHOWN))]
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
    #[error(
        "invalid date-time `{}`: {reason}",
        Shown::new(input, SERVER_TEXT_SHOWN)
    )]
    InvalidDateTime {
        /// The text as given.
        input: String,
        /// Why it could not be used.
        reason: String,
    },
    /// The server answered with a status other than 2xx (after any retries).
    #[error(
        "{request}: HTTP {status}{}{}{}",
        redirect_note(location.as_deref()),
        body_excerpt(body),
        retry_note(*retries, *retry_after, *wait_refused)
    )]
    Status {
        /// The request that failed.
        request: RequestSummary,
        /// The HTTP status code.
        status: u16,
        /// The start of the response body, as text: at most [`Error::BODY_EXCERPT_BYTES`] of it.
        body: String,
        /// The body read as the API's error object, when it is a JSON object (and was read whole).
        api_error: Option<Box<ApiError>>,
        /// The server's `Retry-After` wait, when it sent one (on 429 and 503).
        retry_after: Option<Duration>,
        /// Where a redirect (3xx) pointed: its `Location` header. Redirects are never followed.
        location: Option<Box<str>>,
        /// How many times the request was retried before this answer.
        retries: u32,
        /// Whether the server's `Retry-After` was longer than the retry policy's `max_wait`, and so
        /// not waited for.
        wait_refused: bool,
    },
    /// A 2xx response whose body does not match the expected type.
    #[error(
        "{request}: the response does not match `{}`{}: {}",
        short_type_name(expected),
        at_path(path),
        Shown::new(message, SERVER_TEXT_SHOWN)
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
        /// The start of the response body, as text: at most [`Error::BODY_EXCERPT_BYTES`] of it.
        body: String,
    },
    /// The response body is larger than the client's limit ([`ClientConfig::with_max_body_bytes`],
    /// 10 MiB by default), counted after decompression; the rest was not read.
    ///
    /// [`ClientConfig::with_max_body_bytes`]: super::ClientConfig::with_max_body_bytes
    #[error(
        "{request}: the response body is larger than the limit of {} (counted decompressed); \
         stopped reading it",
        bytes(*limit)
    )]
    BodyTooLarge {
        /// The request whose response this is.
        request: RequestSummary,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The call, or the whole list, did not end within the client's deadline
    /// ([`ClientConfig::with_deadline`], 10 minutes by default): retries, their waits and every page
    /// count towards it.
    ///
    /// [`ClientConfig::with_deadline`]: super::ClientConfig::with_deadline
    #[error("{request}: {}", deadline_message(*deadline, *pages, *records))]
    DeadlineExceeded {
        /// The request under way when the deadline came (or whose retry would have passed it).
        request: RequestSummary,
        /// The deadline.
        deadline: Duration,
        /// The pages of a list received in full before it; 0 for a call of one request.
        pages: usize,
        /// The records of those pages.
        records: usize,
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
    #[error("{request}: {}", Shown::new(message, SERVER_TEXT_SHOWN))]
    Transport {
        /// The request that failed.
        request: RequestSummary,
        /// What the transport reported.
        message: String,
    },
    /// A page's `next` link leads to a page already fetched: following it would never end.
    #[error(
        "{request}: the next page link `{}` repeats a page already fetched; stopping",
        Shown::new(next, SERVER_TEXT_SHOWN)
    )]
    PaginationLoop {
        /// The request of the page that carried the link.
        request: RequestSummary,
        /// The `next` link.
        next: String,
    },
    /// A page's `next` link leads to another origin than the base URL: it is not followed, so that
    /// neither credentials nor requests go to a host nobody configured.
    #[error(
        "{request}: the next page link `{}` leaves the API's origin {origin}; not following it",
        Shown::new(next, SERVER_TEXT_SHOWN)
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
    #[error(
        "{request}: the next page link `{}` is not a valid URL: {reason}",
        Shown::new(next, SERVER_TEXT_SHOWN)
    )]
    InvalidNextPage {
        /// The request of the page that carried the link.
        request: RequestSummary,
        /// The `next` link.
        next: String,
        /// Why it cannot be parsed.
        reason: String,
    },
    /// The cap on pages ([`ClientConfig::with_max_pages`], 1,000 by default) was reached while more
    /// pages remained.
    ///
    /// [`ClientConfig::with_max_pages`]: super::ClientConfig::with_max_pages
    #[error(
        "{request}: stopped after {limit} pages ({records} records), the page limit; more remain"
    )]
    PageLimit {
        /// The request of the last page fetched.
        request: RequestSummary,
        /// The cap.
        limit: usize,
        /// The records of the pages fetched.
        records: usize,
    },
    /// A path parameter that cannot be sent as a path segment: empty, `.` or `..` would make the
    /// request path another endpoint's (`GET /v1/accounts/../` is `GET /v1/`). Nothing is sent.
    #[error(
        "`{operation}`: the path parameter `{parameter}` is `{}`, which cannot be sent: as a path \
         segment it would {}",
        Shown::new(value, SERVER_TEXT_SHOWN),
        if value.is_empty() { "be empty" } else { "name another path" }
    )]
    InvalidPathParameter {
        /// The endpoint's operation name.
        operation: &'static str,
        /// The parameter's name in the path template.
        parameter: String,
        /// The value given.
        value: String,
    },
}

impl Error {
    /// The most of a response body an error keeps: 16 KiB, cut on a character boundary.
    pub const BODY_EXCERPT_BYTES: usize = 16 * 1024;

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
            | Self::BodyTooLarge { request, .. }
            | Self::DeadlineExceeded { request, .. }
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
            | Self::InvalidPathParameter { .. }
            | Self::InvalidDateTime { .. } => None,
        }
    }

    /// The start of the response body, for [`Error::Status`] and [`Error::Decode`].
    pub fn body(&self) -> Option<&str> {
        match self {
            Self::Status { body, .. } | Self::Decode { body, .. } => Some(body),
            _ => None,
        }
    }
}

/// `energy_api::rest::Page<energy_api::rest::Product>` as `Page<Product>`.
/// ` at `results[3].valid_from``, or nothing for the whole body (`.`).
fn at_path(path: &str) -> String {
    match path {
        "." | "" => String::new(),
        path => format!(" at `{}`", Shown::new(path, SERVER_TEXT_SHOWN)),
    }
}

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
    format!(": {}", Shown::new(&one_line, LIMIT))
}

/// ` (a redirect to `...`, not followed)` for a 3xx with a `Location`.
fn redirect_note(location: Option<&str>) -> String {
    location.map_or_else(String::new, |location| {
        format!(
            " (a redirect to `{}`, not followed)",
            Shown::new(location, SERVER_TEXT_SHOWN)
        )
    })
}

/// Why the client stopped retrying, when it retried or was asked to wait.
fn retry_note(retries: u32, retry_after: Option<Duration>, wait_refused: bool) -> String {
    match (retry_after, wait_refused) {
        (Some(asked), true) => format!(
            "; the server asked to wait {} (Retry-After), longer than this client waits, so the \
             request was not retried",
            seconds(asked)
        ),
        _ if retries == 0 => String::new(),
        (Some(asked), _) => format!(
            "; gave up after {retries} {} (the last Retry-After: {})",
            if retries == 1 { "retry" } else { "retries" },
            seconds(asked)
        ),
        (None, _) => format!(
            "; gave up after {retries} {}",
            if retries == 1 { "retry" } else { "retries" }
        ),
    }
}

fn deadline_message(deadline: Duration, pages: usize, records: usize) -> String {
    if pages == 0 {
        format!(
            "no complete answer within the deadline of {} (retries and their waits included)",
            seconds(deadline)
        )
    } else {
        format!(
            "stopped at the deadline of {} for the whole list, after {pages} {} ({records} records)",
            seconds(deadline),
            if pages == 1 { "page" } else { "pages" }
        )
    }
}

/// `59 s`, `0.5 s`.
pub(crate) fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// `10 MiB`, `512 KiB`, `1000 bytes`.
pub(crate) fn bytes(count: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    if count >= MIB && count.is_multiple_of(MIB) {
        format!("{} MiB", count / MIB)
    } else if count >= KIB && count.is_multiple_of(KIB) {
        format!("{} KiB", count / KIB)
    } else {
        format!("{count} bytes")
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
            location: None,
            retries: 0,
            wait_refused: false,
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
        assert_eq!(
            excerpt,
            format!(": {}… (700 more characters)", "é".repeat(300))
        );
    }

    #[test]
    fn server_text_in_messages_is_shown_escaped_and_short() {
        let request = RequestSummary {
            method: Method::Get,
            url: format!(
                "https://api.example.com/v1/products/?page=\x1b[2J{}",
                "9".repeat(1000)
            ),
        };
        let error = Error::ForeignNextPage {
            request: request.clone(),
            next: format!(
                "https://evil.example.net/\x1b]0;owned\x07{}",
                "x".repeat(100_000)
            ),
            origin: "https://api.example.com".to_owned(),
        };
        let message = error.to_string();
        assert!(!message.contains('\x1b'), "{message}");
        assert!(message.contains(r"\x1b]0;owned\x07"), "{message}");
        assert!(message.len() < 1_100, "{} bytes", message.len());
        assert!(message.contains("more characters)"), "{message}");
    }

    #[test]
    fn retry_notes_name_retry_after() {
        let status = |retries, retry_after, wait_refused| {
            Error::Status {
                request: RequestSummary {
                    method: Method::Get,
                    url: "https://api.example.com/v1/products/".to_owned(),
                },
                status: 429,
                body: String::new(),
                api_error: None,
                retry_after,
                location: None,
                retries,
                wait_refused,
            }
            .to_string()
        };
        assert_eq!(
            status(0, Some(Duration::from_secs(3600)), true),
            "GET https://api.example.com/v1/products/: HTTP 429; the server asked to wait 3600 s \
             (Retry-After), longer than this client waits, so the request was not retried"
        );
        assert_eq!(
            status(3, Some(Duration::ZERO), false),
            "GET https://api.example.com/v1/products/: HTTP 429; gave up after 3 retries (the last \
             Retry-After: 0 s)"
        );
        assert_eq!(
            status(1, None, false),
            "GET https://api.example.com/v1/products/: HTTP 429; gave up after 1 retry"
        );
        assert_eq!(bytes(10 * 1024 * 1024), "10 MiB");
        assert_eq!(bytes(1000), "1000 bytes");
    }
}
