//! Progress reporting without I/O: the library calls a [`Progress`] handle, the caller (the CLI)
//! turns it into a progress bar, or ignores it.

/// A sink for progress of long-running work. All methods take `&self` so one handle can be
/// shared; implementations use interior mutability.
pub trait Progress {
    /// A new phase begins; `total` is its length in `unit`s when known.
    fn start(&self, phase: &str, total: Option<u64>, unit: Unit);
    /// The current phase advanced to `done` units (absolute, not a delta).
    fn set(&self, done: u64);
    /// The current phase is over.
    fn finish(&self);
}

/// What a phase counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Items,
}

/// A [`Progress`] that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _phase: &str, _total: Option<u64>, _unit: Unit) {}
    fn set(&self, _done: u64) {}
    fn finish(&self) {}
}
