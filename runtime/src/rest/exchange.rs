//! One call: a request, its response, and whether to retry (on 429 and 503, with backoff); and the
//! limits both transports hold a call to (its deadline, each attempt's timeout, the retry notices).

use std::fmt;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use serde::de::DeserializeOwned;

use super::error::seconds;
use super::{ClientConfig, Error, HttpRequest, HttpResponse, RequestSummary};

/// When a client retries a request.
///
/// Only `429 Too Many Requests` and `503 Service Unavailable` are retried: both say "later", and every
/// endpoint is a `GET`, safe to repeat. The wait is the server's `Retry-After` when it sends one, else
/// an exponential backoff (`initial_backoff`, doubled each retry). A `Retry-After` longer than
/// `max_wait` is not waited for: the error is returned at once, with the wait the server asked for.
/// Timeouts and connection failures are not retried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` requests at most).
    pub max_retries: u32,
    /// The wait before the first retry when the server gives no `Retry-After`.
    pub initial_backoff: Duration,
    /// The longest wait the client accepts, from `Retry-After` or backoff.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    /// Three retries, starting at half a second, waiting at most a minute.
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_wait: Duration::from_secs(60),
        }
    }
}

/// What the policy says of one response.
enum Decision {
    Retry { wait: Duration, retry_after: bool },
    Stop { wait_refused: bool },
}

impl RetryPolicy {
    /// Never retry.
    pub fn never() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// The wait before the next attempt, after `retries_done` retries got `response`; `None` to stop.
    pub fn wait(
        &self,
        retries_done: u32,
        response: &HttpResponse,
        now: Timestamp,
    ) -> Option<Duration> {
        match self.decide(retries_done, response, now) {
            Decision::Retry { wait, .. } => Some(wait),
            Decision::Stop { .. } => None,
        }
    }

    fn decide(&self, retries_done: u32, response: &HttpResponse, now: Timestamp) -> Decision {
        if !matches!(response.status, 429 | 503) || retries_done >= self.max_retries {
            return Decision::Stop {
                wait_refused: false,
            };
        }
        match response.retry_after(now) {
            Some(wait) if wait > self.max_wait => Decision::Stop { wait_refused: true },
            Some(wait) => Decision::Retry {
                wait,
                retry_after: true,
            },
            None => Decision::Retry {
                wait: self
                    .initial_backoff
                    .saturating_mul(2u32.saturating_pow(retries_done))
                    .min(self.max_wait),
                retry_after: false,
            },
        }
    }
}

/// A retry about to be made, as a client reports it (to the log at `warn`, and to
/// [`ClientConfig::with_retry_notice`]).
///
/// Its `Display`: `GET https://…/v1/products/: HTTP 429; retry 1 of 3 in 59 s, as the server asked
/// (Retry-After)`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryNotice {
    /// The request to be sent again.
    pub request: RequestSummary,
    /// The status that caused the retry (429 or 503).
    pub status: u16,
    /// Which retry this is, from 1.
    pub retry: u32,
    /// The policy's most retries.
    pub max_retries: u32,
    /// The wait before it.
    pub wait: Duration,
    /// Whether the wait is the server's `Retry-After` (else the policy's backoff).
    pub retry_after: bool,
}

impl fmt::Display for RetryNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: HTTP {}; retry {} of {} in {}{}",
            self.request,
            self.status,
            self.retry,
            self.max_retries,
            seconds(self.wait),
            if self.retry_after {
                ", as the server asked (Retry-After)"
            } else {
                " (backoff)"
            }
        )
    }
}

/// What a transport does next in an [`Exchange`].
#[derive(Debug)]
pub enum Step<T> {
    /// Wait `notice.wait`, then send [`Exchange::request`] again.
    Retry(RetryNotice),
    /// The call is over.
    Done(Result<T, Error>),
}

/// One call of an endpoint, as a state machine a transport drives:
///
/// ```text
/// loop {
///     let response = transport.send(exchange.request())?;
///     match exchange.on_response(response, Timestamp::now()) {
///         Step::Retry(notice) => sleep(notice.wait),
///         Step::Done(result) => return result,
///     }
/// }
/// ```
#[derive(Debug)]
pub struct Exchange<T> {
    request: HttpRequest,
    policy: RetryPolicy,
    retries_done: u32,
    response_type: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> Exchange<T> {
    /// A call of `request`, retried by `policy`.
    pub fn new(request: HttpRequest, policy: RetryPolicy) -> Self {
        Self {
            request,
            policy,
            retries_done: 0,
            response_type: PhantomData,
        }
    }

    /// The request to send.
    pub fn request(&self) -> &HttpRequest {
        &self.request
    }

    /// Takes the response to the last request sent.
    pub fn on_response(&mut self, response: HttpResponse, now: Timestamp) -> Step<T> {
        match self.policy.decide(self.retries_done, &response, now) {
            Decision::Retry { wait, retry_after } => {
                self.retries_done += 1;
                let notice = RetryNotice {
                    request: self.request.summary(),
                    status: response.status,
                    retry: self.retries_done,
                    max_retries: self.policy.max_retries,
                    wait,
                    retry_after,
                };
                // The caller is handed the notice too (and the CLI prints it): for a logger, information.
                log::info!("{notice}");
                Step::Retry(notice)
            }
            Decision::Stop { wait_refused } => {
                let mut result = response.decode(&self.request.summary(), now);
                if let Err(Error::Status {
                    retries,
                    wait_refused: refused,
                    ..
                }) = &mut result
                {
                    *retries = self.retries_done;
                    *refused = wait_refused;
                }
                Step::Done(result)
            }
        }
    }
}

/// When a call, or a whole list, must be over.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    started: Instant,
    length: Duration,
}

impl Deadline {
    pub(crate) fn start(length: Duration) -> Self {
        Self {
            started: Instant::now(),
            length,
        }
    }

    /// The time left, zero once passed.
    pub(crate) fn remaining(&self) -> Duration {
        self.length.saturating_sub(self.started.elapsed())
    }
}

/// The limits of one call as both transports apply them: the deadline (of the call, or of the list
/// it is a page of), each attempt's timeout within it, and the retry notices.
pub(crate) struct CallLimits<'a> {
    config: &'a ClientConfig,
    deadline: Deadline,
    /// The pages and records of the list received before this call, for the deadline's error.
    pages: usize,
    records: usize,
}

impl<'a> CallLimits<'a> {
    /// A call of its own: its deadline starts now.
    pub(crate) fn single(config: &'a ClientConfig) -> Self {
        Self::in_list(config, Deadline::start(config.deadline()), 0, 0)
    }

    /// A page of a list whose deadline is `deadline`, after `pages` pages of `records` records.
    pub(crate) fn in_list(
        config: &'a ClientConfig,
        deadline: Deadline,
        pages: usize,
        records: usize,
    ) -> Self {
        Self {
            config,
            deadline,
            pages,
            records,
        }
    }

    /// The timeout of the next attempt: the configured one, or less when the deadline is nearer.
    pub(crate) fn attempt_timeout(&self, request: &HttpRequest) -> Result<Duration, Error> {
        let remaining = self.deadline.remaining();
        if remaining.is_zero() {
            return Err(self.exceeded(request));
        }
        Ok(self.config.timeout().min(remaining))
    }

    /// A timeout of an attempt whose timeout the deadline shortened is the deadline's error.
    pub(crate) fn on_error(&self, error: Error, request: &HttpRequest) -> Error {
        match error {
            Error::Timeout { timeout, .. } if timeout < self.config.timeout() => {
                self.exceeded(request)
            }
            other => other,
        }
    }

    /// Before a retry's wait: tells the observer, or ends the call if the wait would pass the deadline.
    pub(crate) fn before_retry(
        &self,
        notice: &RetryNotice,
        request: &HttpRequest,
    ) -> Result<Duration, Error> {
        if notice.wait >= self.deadline.remaining() {
            return Err(self.exceeded(request));
        }
        self.config.notify_retry(notice);
        Ok(notice.wait)
    }

    fn exceeded(&self, request: &HttpRequest) -> Error {
        Error::DeadlineExceeded {
            request: request.summary(),
            deadline: self.config.deadline(),
            pages: self.pages,
            records: self.records,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, retry_after: Option<&str>) -> HttpResponse {
        HttpResponse {
            status,
            retry_after: retry_after.map(str::to_owned),
            location: None,
            body: b"{}".to_vec(),
            body_complete: true,
        }
    }

    #[test]
    fn backoff_doubles_and_retry_after_wins() {
        let policy = RetryPolicy::default();
        let now = Timestamp::UNIX_EPOCH;
        let waits: Vec<_> = (0..4)
            .map(|n| policy.wait(n, &response(503, None), now))
            .collect();
        assert_eq!(
            waits,
            [
                Some(Duration::from_millis(500)),
                Some(Duration::from_secs(1)),
                Some(Duration::from_secs(2)),
                None
            ]
        );
        assert_eq!(
            policy.wait(0, &response(429, Some("3")), now),
            Some(Duration::from_secs(3))
        );
    }

    #[test]
    fn only_429_and_503_are_retried_and_long_waits_are_refused() {
        let policy = RetryPolicy::default();
        let now = Timestamp::UNIX_EPOCH;
        for status in [200, 400, 401, 404, 500, 502, 504] {
            assert_eq!(policy.wait(0, &response(status, Some("1")), now), None);
        }
        assert_eq!(policy.wait(0, &response(429, Some("3600")), now), None);
        assert_eq!(
            RetryPolicy::never().wait(0, &response(429, None), now),
            None
        );
    }
}
