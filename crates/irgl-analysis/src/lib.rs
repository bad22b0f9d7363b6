//! Analyses over the IR. Each is a struct built from a body and kept beside it, keyed by the
//! IR's handles (statements, loops), never stored in the IR itself.
//!
//! - [`cfg::Cfg`]: the control-flow graph of a body as the back end will emit it: the
//!   scheduler loops of a block-scheduled `ForAll` appear once per policy, each with its own
//!   copy of the loop's body, and the uniform outer `ForAll`'s phases are guarded branches.
//! - [`dom::DomTree`]: dominators and post-dominators of a [`cfg::Cfg`].
//! - [`cdg::ControlDeps`]: the control-dependence graph, from the CFG and its post-dominators.
//! - [`uniform::Uniformity`]: uniform branches (by construction and by analysis of their
//!   conditions), uniform locals, and the focal points where a block-wide barrier may go.
//! - [`asynchrony::AsyncCandidates`]: which worklist kernels may run asynchronously (one
//!   launch draining the items their own pushes feed), and why not.
//! - [`outline::OutlineTree`]: the `Iterate`/`Pipe` regions of `main`, nested, each
//!   outlinable into a device control kernel or not, with the reason.
//! - [`settle::SettleCandidates`]: which `Iterate Unordered` loops may run their rounds
//!   without grid barriers (each block repeating its share until none of its items
//!   reports), and why not.
//! - [`split::SplitCandidates`]: which kernels over the nodes may run over the parts of
//!   split nodes (a hub's edges cut into parts of at most the split degree), and why not.
//! - [`effects::DataEffects`]: which properties and globals a kernel or an expression of
//!   `main` reads and writes (what a control kernel's grid barriers separate).
//! - [`partition::PartitionPlan`]: whether the program can run partitioned over several GPUs,
//!   what each round would exchange, or why not.

pub mod asynchrony;
pub mod cdg;
pub mod cfg;
pub mod dom;
pub mod effects;
pub mod outline;
pub mod partition;
pub mod settle;
pub mod split;
pub mod uniform;

pub use asynchrony::AsyncCandidates;
pub use cdg::ControlDeps;
pub use cfg::{Cfg, CfgNode, NodeKind};
pub use dom::DomTree;
pub use effects::{DataEffects, PlaceSet};
pub use outline::{OutlineKind, OutlineNode, OutlineTree};
pub use partition::PartitionPlan;
pub use settle::SettleCandidates;
pub use split::SplitCandidates;
pub use uniform::Uniformity;
