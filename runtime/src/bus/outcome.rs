//! What became of a message a consumer settled: the outcomes reported, counted and measured.

/// What became of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Its handler succeeded; acknowledged.
    Handled,
    /// Not handled this time; it comes again.
    Retried,
    /// Stored as a dead letter, then terminated.
    DeadLettered,
    /// Of an unknown type or version; acknowledged (the default policy).
    Unknown,
    /// Known, but no handler takes it; acknowledged.
    Skipped,
    /// Still held when a stop's `shutdown_timeout` ran out: handed back to the broker, to be delivered
    /// again at once.
    HandedBack,
}

impl Outcome {
    /// Every outcome, in the order of their discriminants.
    pub const ALL: [Outcome; 6] = [
        Outcome::Handled,
        Outcome::Retried,
        Outcome::DeadLettered,
        Outcome::Unknown,
        Outcome::Skipped,
        Outcome::HandedBack,
    ];

    /// The outcome's name in reports: `handled`, `retried`, `dead_lettered`, `unknown`, `skipped`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Handled => "handled",
            Outcome::Retried => "retried",
            Outcome::DeadLettered => "dead_lettered",
            Outcome::Unknown => "unknown",
            Outcome::Skipped => "skipped",
            Outcome::HandedBack => "handed_back",
        }
    }
}
