//! Reading a stream in order: the events stream for a capture (`energy events capture`, to replay it
//! byte for byte), the dead-letter stream for the dead letters.

use super::consume::deliver_policy;
use super::{Bus, headers_of, request_error};
use crate::bus::capture::{CaptureRange, Captured};
use crate::bus::error::BusError;
use crate::bus::transport::{TransportError, TransportErrorKind};
use async_nats::jetstream::consumer::pull;
use futures_util::StreamExt;
use std::future::Future;
use std::time::Duration;

impl Bus {
    /// Reads the messages of stream `name` in `range`, in stream order, handing each to `each`, until
    /// caught up (or, with `follow`, until `stop` resolves or it is idle). Returns how many were read.
    pub(super) async fn read_stream(
        &self,
        name: &str,
        range: &CaptureRange,
        mut each: impl FnMut(Captured) -> Result<(), String>,
        stop: impl Future<Output = ()>,
    ) -> Result<u64, BusError> {
        let stream = self.stream(name).await?;
        let mut filters = range.filters.clone();
        filters.sort();
        filters.dedup();
        let config = pull::OrderedConfig {
            filter_subject: if filters.len() == 1 {
                filters[0].clone()
            } else {
                String::new()
            },
            filter_subjects: if filters.len() > 1 {
                filters
            } else {
                Vec::new()
            },
            deliver_policy: deliver_policy(range.start),
            ..Default::default()
        };
        let consumer = stream
            .create_consumer(config)
            .await
            .map_err(|e| request_error(&format!("reading stream `{name}`"), e))?;
        let pending = consumer
            .get_info()
            .await
            .map_err(|e| request_error(&format!("reading stream `{name}`"), e))?
            .num_pending;
        if pending == 0 && !range.follow {
            return Ok(0);
        }
        let mut messages = consumer
            .messages()
            .await
            .map_err(|e| request_error(&format!("reading stream `{name}`"), e))?;
        let mut count = 0u64;
        tokio::pin!(stop);
        let idle = range.idle_exit.unwrap_or(Duration::MAX);
        loop {
            let next = tokio::select! {
                next = messages.next() => next,
                () = &mut stop => return Ok(count),
                () = tokio::time::sleep(idle), if range.follow && range.idle_exit.is_some() => return Ok(count),
            };
            let message = match next {
                Some(Ok(message)) => message,
                Some(Err(e)) => {
                    return Err(request_error(&format!("reading stream `{name}`"), e));
                }
                None => return Ok(count),
            };
            let info = message.info().map_err(|e| {
                BusError::Transport(TransportError::new(
                    TransportErrorKind::Rejected,
                    format!("a message of `{name}` without delivery information: {e}"),
                ))
            })?;
            let (sequence, remaining) = (info.stream_sequence, info.pending);
            let message = message.message;
            count += 1;
            each(Captured {
                sequence,
                subject: message.subject.to_string(),
                headers: headers_of(message.headers.as_ref()),
                payload: message.payload,
            })
            .map_err(BusError::Invalid)?;
            if remaining == 0 && !range.follow {
                return Ok(count);
            }
        }
    }
}
