//! Graph inputs and CPU references for irglc.
//!
//! This crate is the part of irglc that knows about graphs as data, not as programs:
//!
//! - [`csr`]: the compressed sparse row graph every other module works on.
//! - [`format`]: readers for Galois `.gr` (v1 and v2), DIMACS shortest-path text, Matrix Market,
//!   SNAP edge lists and METIS, and writers for `.gr` v1 and SNAP edge lists.
//! - [`load`]: opening a file, detecting its format, transparent gzip.
//! - [`transform`]: symmetrize, drop self-loops, merge duplicates, add seeded weights, sort
//!   adjacency.
//! - [`generate`]: RMAT/Kronecker, uniform random, 2D grid and Delaunay meshes, all seeded;
//!   [`memory`] refuses sizes beyond the machine's memory before they are allocated.
//! - [`mesh`]: triangle meshes on an integer grid for Delaunay mesh refinement: exact predicates,
//!   the binary `.mesh` file, Triangle's `.node`/`.ele`/`.poly`, a generator, the sequential
//!   reference refinement and the checks of a refined mesh.
//! - [`reference`]: CPU reference algorithms (BFS, SSSP, CC, PageRank, TC, MIS, MSF).
//! - [`partition`]: a graph split over several GPUs by contiguous node ranges, with mirrors of
//!   the remote ends and the exchange plan between parts.
//! - [`output`] and [`verify`]: reading the output files of generated programs
//!   (`docs/output-format.md`) and comparing them with the references.
//!
//! # Invariants
//!
//! - The crate does no printing and never exits the process. Long-running work reports through a
//!   [`Progress`] handle the caller passes in; the caller decides how (or whether) to show it.
//! - Bad input never panics: every reader returns a [`GraphError`] naming the file, the line or
//!   byte offset, and what was expected.
//! - Node ids are `u32`, edge offsets `u64`, weights `u32`.
//! - Large passes run on every core (rayon) and give the same result on any number of threads.
//! - Conventions (weights, id remapping, PageRank, tolerances) are documented in `docs/graphs.md`.

pub mod csr;
pub mod error;
pub mod format;
pub mod generate;
pub mod load;
pub mod memory;
pub mod mesh;
pub mod output;
mod par;
pub mod partition;
pub mod parts;
pub mod progress;
pub mod reference;
pub mod stats;
pub mod transform;
pub mod verify;

pub use csr::Csr;
pub use error::GraphError;
pub use progress::{NoProgress, Progress};

/// The value of "unreachable" in BFS levels and SSSP distances, as the generated programs write it.
pub const INF_U32: u32 = u32::MAX;
