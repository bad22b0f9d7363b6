//! Analyses over the IR. Each is a struct built from a body and kept beside it, keyed by the
//! IR's handles (statements, loops), never stored in the IR itself.
//!
//! - [`cfg::Cfg`]: the control-flow graph of a body as the back end will emit it: the
//!   scheduler loops of a block-scheduled `ForAll` appear once per policy, each with its own
//!   copy of the loop's body, and the uniform outer `ForAll`'s phases are guarded branches.
//! - [`dom::DomTree`]: dominators and post-dominators of a [`cfg::Cfg`].
//!
//! The next analyses (control dependence, uniform branches, focal points, the outline tree)
//! build on these.

pub mod cfg;
pub mod dom;

pub use cfg::{Cfg, CfgNode, NodeKind};
pub use dom::DomTree;
