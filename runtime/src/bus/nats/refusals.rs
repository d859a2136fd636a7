//! What the server refuses a connected client. NATS says "no" to a publish or a subscription the user
//! may not make with an asynchronous `-ERR` on the connection, not as the answer to the request: the
//! request itself only times out (and a publisher would retry it for ever). The connection hears every such
//! `-ERR` (through the client's event callback) and wakes the operations waiting meanwhile, so that a
//! permission violation fails them at once with the subject and the operation, and is never retried.

use tokio::sync::watch;

/// What the server refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The user may not publish to `subject` (a JetStream request is a publish to `$JS.API.…`).
    Publish {
        /// The subject.
        subject: String,
    },
    /// The user may not publish with this reply subject.
    Reply {
        /// The reply subject.
        subject: String,
    },
    /// The user may not subscribe to `subject` (an inbox, for the answers to its requests).
    Subscribe {
        /// The subject.
        subject: String,
    },
    /// The server ended the user's authorisation while connected (its JWT expired or was revoked, or
    /// the credentials stopped being accepted on a reconnection).
    Authorization {
        /// The server's words.
        reason: String,
    },
}

impl Refusal {
    /// Reads a server error; `None` when it is not a refusal.
    pub fn parse(error: &str) -> Option<Refusal> {
        let error = error.trim().trim_matches('\'');
        let quoted = |rest: &str| -> Option<String> {
            let rest = rest.trim_start();
            let rest = rest.strip_prefix('"')?;
            let end = rest.find('"')?;
            Some(rest[..end].to_owned())
        };
        if let Some(rest) = error.strip_prefix("Permissions Violation for Publish with Reply of") {
            return Some(Refusal::Reply {
                subject: quoted(rest)?,
            });
        }
        if let Some(rest) = error.strip_prefix("Permissions Violation for Publish to") {
            return Some(Refusal::Publish {
                subject: quoted(rest)?,
            });
        }
        if let Some(rest) = error.strip_prefix("Permissions Violation for Subscription to") {
            return Some(Refusal::Subscribe {
                subject: quoted(rest)?,
            });
        }
        let lower = error.to_ascii_lowercase();
        if lower == "authorization violation"
            || lower.starts_with("user authentication expired")
            || lower.starts_with("user authentication revoked")
            || lower.starts_with("account authentication expired")
        {
            return Some(Refusal::Authorization {
                reason: error.to_owned(),
            });
        }
        None
    }

    /// Whether this refusal fails a publish to `subject`: a refusal of that subject, or one that fails
    /// every publish (its reply subject, its inbox, its authorisation).
    pub fn concerns_publish_to(&self, subject: &str) -> bool {
        match self {
            Refusal::Publish { subject: refused } => refused == subject,
            Refusal::Reply { .. } | Refusal::Subscribe { .. } | Refusal::Authorization { .. } => {
                true
            }
        }
    }

    /// The refused operation in words, with what it was for when the subject is one of JetStream's:
    /// ``may not publish to `$JS.API.STREAM.CREATE.ENERGY_EVENTS` (create stream `ENERGY_EVENTS`)``.
    pub fn describe(&self) -> String {
        match self {
            Refusal::Publish { subject } => match jetstream_operation(subject) {
                Some(what) => format!("may not publish to `{subject}` ({what})"),
                None => format!("may not publish to `{subject}`"),
            },
            Refusal::Reply { subject } => {
                format!("may not receive replies on `{subject}` (publish with this reply subject)")
            }
            Refusal::Subscribe { subject } => format!(
                "may not subscribe to `{subject}`{}",
                if subject.starts_with("_INBOX") {
                    " (the replies to its requests: allow its inbox, or give it an inbox prefix it may subscribe to)"
                } else {
                    ""
                }
            ),
            Refusal::Authorization { reason } => {
                format!("the server withdrew the authorisation ({reason})")
            }
        }
    }
}

/// What a JetStream subject does, when it is one (`$JS.API.…`, `$JS.ACK.…`).
fn jetstream_operation(subject: &str) -> Option<String> {
    let tokens: Vec<&str> = subject.split('.').collect();
    let at = |i: usize| tokens.get(i).copied().unwrap_or("?");
    match tokens.as_slice() {
        ["$JS", "ACK", ..] => Some(format!(
            "settle messages of consumer `{}` on stream `{}`",
            at(3),
            at(2)
        )),
        ["$JS", "API", "STREAM", "CREATE", ..] => Some(format!("create stream `{}`", at(4))),
        ["$JS", "API", "STREAM", "UPDATE", ..] => Some(format!("update stream `{}`", at(4))),
        ["$JS", "API", "STREAM", "INFO", ..] => Some(format!("read stream `{}`", at(4))),
        ["$JS", "API", "STREAM", "MSG", "GET", ..] | ["$JS", "API", "DIRECT", "GET", ..] => {
            Some(format!(
                "read messages of stream `{}`",
                tokens.last().copied().unwrap_or("?")
            ))
        }
        ["$JS", "API", "STREAM", "MSG", "DELETE", ..] => {
            Some(format!("delete a message of stream `{}`", at(5)))
        }
        ["$JS", "API", "CONSUMER", "CREATE", ..]
        | ["$JS", "API", "CONSUMER", "DURABLE", "CREATE", ..] => {
            let (stream, consumer) = if at(3) == "DURABLE" {
                (at(5), at(6))
            } else {
                (at(4), at(5))
            };
            Some(format!(
                "create or update consumer `{consumer}` on stream `{stream}`"
            ))
        }
        ["$JS", "API", "CONSUMER", "INFO", ..] => {
            Some(format!("read consumer `{}` of stream `{}`", at(5), at(4)))
        }
        ["$JS", "API", "CONSUMER", "MSG", "NEXT", ..] => Some(format!(
            "pull from consumer `{}` of stream `{}`",
            at(6),
            at(5)
        )),
        ["$JS", "API", "CONSUMER", "DELETE", ..] => {
            Some(format!("delete consumer `{}` of stream `{}`", at(5), at(4)))
        }
        ["$JS", "API", ..] => Some("a JetStream request".to_owned()),
        _ => None,
    }
}

/// How many refusals a connection remembers for the operations still waiting: far more than can
/// arrive between two polls of one of them.
const REMEMBERED: usize = 256;

/// The refusals a connection has heard, in the order heard; cheap to clone (every clone hears the
/// same). A log rather than the last refusal alone: a publisher with many publishes in flight to
/// subjects it may not use hears one refusal per subject, and each publish must fail with its own.
#[derive(Clone, Debug)]
pub(crate) struct Refusals(watch::Sender<Heard>);

/// The refusals heard: how many in all, and the most recent of them.
#[derive(Debug, Default)]
struct Heard {
    count: u64,
    recent: std::collections::VecDeque<Refusal>,
}

impl Default for Refusals {
    fn default() -> Self {
        Refusals(watch::channel(Heard::default()).0)
    }
}

impl Refusals {
    /// Records the server error `error` if it is a refusal.
    pub(crate) fn hear(&self, error: &str) {
        if let Some(refusal) = Refusal::parse(error) {
            log::debug!("the server refused: {}", refusal.describe());
            self.0.send_modify(|heard| {
                if heard.recent.len() == REMEMBERED {
                    heard.recent.pop_front();
                }
                heard.recent.push_back(refusal);
                heard.count += 1;
            });
        }
    }

    /// A watch that resolves on a refusal heard after it was made.
    pub(crate) fn watch(&self) -> RefusalWatch {
        let mut receiver = self.0.subscribe();
        let from = receiver.borrow_and_update().count;
        RefusalWatch { receiver, from }
    }
}

/// Waits for a refusal (see [`Refusals::watch`]).
pub(crate) struct RefusalWatch {
    receiver: watch::Receiver<Heard>,
    /// The number of the first refusal not yet looked at.
    from: u64,
}

impl RefusalWatch {
    /// The next refusal; pending for ever when none comes.
    pub(crate) async fn next(&mut self) -> Refusal {
        self.next_concerning(|_| true).await
    }

    /// The next refusal that `concerns` the operation waiting; pending for ever when none comes.
    pub(crate) async fn next_concerning(&mut self, concerns: impl Fn(&Refusal) -> bool) -> Refusal {
        loop {
            {
                let heard = self.receiver.borrow_and_update();
                let first = heard.count - heard.recent.len() as u64;
                let skip = self.from.saturating_sub(first);
                let found = heard
                    .recent
                    .iter()
                    .skip(usize::try_from(skip).unwrap_or(usize::MAX))
                    .find(|refusal| concerns(refusal))
                    .cloned();
                self.from = heard.count;
                if let Some(refusal) = found {
                    return refusal;
                }
            }
            if self.receiver.changed().await.is_err() {
                return std::future::pending().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_words_are_read() {
        assert_eq!(
            Refusal::parse(
                r#"Permissions Violation for Publish to "energy.billing.final_bill.v1""#
            ),
            Some(Refusal::Publish {
                subject: "energy.billing.final_bill.v1".to_owned()
            })
        );
        assert_eq!(
            Refusal::parse(
                r#"'Permissions Violation for Subscription to "_INBOX.abc.*" using queue "q"'"#
            ),
            Some(Refusal::Subscribe {
                subject: "_INBOX.abc.*".to_owned()
            })
        );
        assert_eq!(
            Refusal::parse(r#"Permissions Violation for Publish with Reply of "_INBOX.x""#),
            Some(Refusal::Reply {
                subject: "_INBOX.x".to_owned()
            })
        );
        assert!(matches!(
            Refusal::parse("User Authentication Revoked"),
            Some(Refusal::Authorization { .. })
        ));
        assert_eq!(Refusal::parse("Slow Consumer"), None);
    }

    #[test]
    fn jetstream_subjects_say_what_they_were_for() {
        let describe = |s: &str| {
            Refusal::Publish {
                subject: s.to_owned(),
            }
            .describe()
        };
        assert_eq!(
            describe("$JS.API.STREAM.CREATE.ENERGY_EVENTS"),
            "may not publish to `$JS.API.STREAM.CREATE.ENERGY_EVENTS` (create stream `ENERGY_EVENTS`)"
        );
        assert!(
            describe("$JS.API.CONSUMER.CREATE.ENERGY_EVENTS.crm.energy.>")
                .ends_with("(create or update consumer `crm` on stream `ENERGY_EVENTS`)")
        );
        assert!(
            describe("$JS.API.CONSUMER.MSG.NEXT.ENERGY_EVENTS.billing")
                .ends_with("(pull from consumer `billing` of stream `ENERGY_EVENTS`)")
        );
        assert!(
            describe("$JS.ACK.ENERGY_EVENTS.billing.1.2.3.4.5")
                .ends_with("(settle messages of consumer `billing` on stream `ENERGY_EVENTS`)")
        );
        assert_eq!(
            describe("energy.billing.final_bill.v1"),
            "may not publish to `energy.billing.final_bill.v1`"
        );
    }

    #[tokio::test]
    async fn a_watch_hears_only_what_comes_after_it() {
        let refusals = Refusals::default();
        refusals.hear(r#"Permissions Violation for Publish to "old""#);
        let mut watch = refusals.watch();
        refusals.hear("Slow Consumer");
        refusals.hear(r#"Permissions Violation for Publish to "new""#);
        assert_eq!(
            watch.next().await,
            Refusal::Publish {
                subject: "new".to_owned()
            }
        );
    }

    #[tokio::test]
    async fn each_operation_hears_the_refusal_of_its_own_subject() {
        let refusals = Refusals::default();
        let mut first = refusals.watch();
        let mut second = refusals.watch();
        // The server refuses two publishes in flight, in the order sent, before either waiter looks.
        refusals.hear(r#"Permissions Violation for Publish to "energy.account.created.v1""#);
        refusals.hear(
            r#"Permissions Violation for Publish to "energy.billing.ledger.entry_posted.v2""#,
        );
        let concerning = |subject: &'static str| move |refusal: &Refusal| matches!(refusal, Refusal::Publish { subject: s } if s == subject);
        assert_eq!(
            second
                .next_concerning(concerning("energy.billing.ledger.entry_posted.v2"))
                .await,
            Refusal::Publish {
                subject: "energy.billing.ledger.entry_posted.v2".to_owned()
            }
        );
        assert_eq!(
            first
                .next_concerning(concerning("energy.account.created.v1"))
                .await,
            Refusal::Publish {
                subject: "energy.account.created.v1".to_owned()
            }
        );
    }
}
