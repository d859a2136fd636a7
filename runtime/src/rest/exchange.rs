//! One call: a request, its response, and whether to retry (on 429 and 503, with backoff).

use std::marker::PhantomData;
use std::time::Duration;

use jiff::Timestamp;
use serde::de::DeserializeOwned;

use super::{Error, HttpRequest, HttpResponse};

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
        if !matches!(response.status, 429 | 503) || retries_done >= self.max_retries {
            return None;
        }
        let wait = response.retry_after(now).unwrap_or_else(|| {
            self.initial_backoff
                .saturating_mul(2u32.saturating_pow(retries_done))
                .min(self.max_wait)
        });
        (wait <= self.max_wait).then_some(wait)
    }
}

/// What a transport does next in an [`Exchange`].
#[derive(Debug)]
pub enum Step<T> {
    /// Wait this long, then send [`Exchange::request`] again.
    Retry(Duration),
    /// The call is over.
    Done(Result<T, Error>),
}

/// One call of an endpoint, as a state machine a transport drives:
///
/// ```text
/// loop {
///     let response = transport.send(exchange.request())?;
///     match exchange.on_response(response, Timestamp::now()) {
///         Step::Retry(wait) => sleep(wait),
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
        if let Some(wait) = self.policy.wait(self.retries_done, &response, now) {
            self.retries_done += 1;
            log::warn!(
                "{}: HTTP {}; retry {} of {} in {:.1}s",
                self.request.summary(),
                response.status,
                self.retries_done,
                self.policy.max_retries,
                wait.as_secs_f64()
            );
            return Step::Retry(wait);
        }
        Step::Done(response.decode(&self.request.summary(), now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, retry_after: Option<&str>) -> HttpResponse {
        HttpResponse {
            status,
            retry_after: retry_after.map(str::to_owned),
            body: b"{}".to_vec(),
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
