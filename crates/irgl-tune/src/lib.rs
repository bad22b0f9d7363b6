//! The autotuner's search space. No single combination of optimizations is fastest for every
//! program and input (the IrGL paper's section 5), so the tuner compiles them all and measures.
//!
//! A program's [`Dimensions`] come from its structure: nested-loop schedules only where a
//! kernel has a nested `ForAll`, aggregation levels only where a kernel pushes, outline
//! choices only where the outline tree has an outlinable node, block sizes as asked. The
//! [`variants`] are their product, the baseline first. Many variants generate the same CUDA
//! (an aggregation level that falls back to another, a schedule whose thresholds no loop
//! reaches differently): [`distinct`] compiles each once, in process, and groups them by
//! the generated code, so that the tuner builds and runs each distinct program once.
//! [`search`] chooses which of them to measure: all, a seeded random sample, or a greedy
//! walk over one dimension at a time, within a budget. [`bench`] holds benchmark suites
//! (programs x graphs x named option sets), their records and the comparison of two runs.
//! [`profile`] is what a tuning run saves for builds to reuse: the best variant per graph
//! with the graph's shape, and the rule that picks one for another graph.
//! [`rank`] turns what the runs measured into the ranking (never ranking a variant that ran
//! wrong, failed or timed out), [`to_csv`]/[`to_json`] into the result files and [`to_svg`]
//! into a picture of every variant's speedup per graph.

pub mod bench;
mod plot;
pub mod profile;
mod results;
mod search;
mod space;

pub use plot::to_svg;
pub use profile::{Profile, ProfileEntry, Shape};
pub use results::{
    MAX_RUNS, MAX_TIMEOUT_S, Measurement, Outcome, Placed, Ranking, check_runs, check_timeout,
    geomean, median, rank, to_csv, to_json,
};
pub use search::{Medians, Search, search};
pub use space::{
    DEFAULT_SCHEDULES, Dimensions, Group, OutlineChoice, SpaceOptions, Variant, code_of,
    dimensions, distinct, variants,
};
