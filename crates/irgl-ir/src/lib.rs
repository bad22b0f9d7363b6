//! The IR of irglc's middle end: what the optimization passes rewrite and the only input of
//! the CUDA back end.
//!
//! # Shape
//!
//! A [`Module`] is one program: the graph and its properties ([`Graph`], indexed by the
//! checker's [`PropId`]), consts, params and globals with their folded values, the outputs,
//! the kernels ([`Kernel`], in an arena indexed by [`KernelId`]) and `main` (a [`Body`] run on
//! the host). Every body owns three arenas: locals ([`LocalId`]), expressions ([`ExprId`]) and
//! statements ([`StmtId`]); a [`Block`] is a list of statement handles. Statements nest
//! (structured control flow, as the emitted CUDA will be); expressions are trees: every
//! expression has exactly one parent, so a pass that needs a value twice copies it
//! ([`Body::clone_expr`]). Names are resolved to handles, types are the checker's [`Ty`]
//! (never `Void` or `Error` on an expression), and spans point back into the source for
//! diagnostics (`Span::NONE` on what the compiler made). Analyses keep their results in side
//! tables keyed by these handles (`irgl-analysis`); the IR itself carries only what the back
//! end must print.
//!
//! # Semantics
//!
//! Kernels run on the GPU, `main` on the host, and the two sides share statement and
//! expression kinds except for those marked device-only or host-only below; the verifier
//! keeps each on its side.
//!
//! - **Values and places.** Expressions are pure except [`ExprKind::Atomic`] (an atomic
//!   read-modify-write returning the old value), [`ExprKind::FetchAdd`], [`ExprKind::TryLock`] and
//!   [`ExprKind::TryMarks`]. Locals are per thread; a [`StmtKind::Let`] declares one in its
//!   block (with the zero of its type when it has no initializer). Globals and property
//!   elements live in device memory; on the host, reading or writing one is a copy.
//!   Arithmetic is C's (unsigned wraps, signed overflow is undefined).
//! - **`ForAll`** ([`StmtKind::ForAll`]): the iterations of its [`Space`] may run in any
//!   order on any threads. Its [`Schedule`] slot says who runs them: an outermost `ForAll` is
//!   `Grid` (grid-stride over the launch; `uniform` when every thread makes the same number of
//!   trips, the trip count rounded up and the body guarded), a nested one `Serial` (the thread
//!   that reaches it) or `Block` (the block's schedulers: thread block, warp, virtual warp,
//!   fine-grained, edge-balanced or serial, by trip count). A block-scheduled loop is split in
//!   two: an [`Inspect`] statement where the loop was, which records the thread's iteration
//!   space in an [`InspectState`] and ends the enclosing [`Phase`], and the `ForAll` itself
//!   (space `Inspected`) at the top level of the uniform outer body, run by every thread of
//!   the block. A `Phase` runs its body for the threads its guard selects (the active ones,
//!   or those that reached a given loop); the body of a uniform `ForAll` is only `Let`s
//!   (declarations of the values that live across phases), `Phase`s and block-scheduled
//!   `ForAll`s. `Continue` ends the current iteration of the innermost `Loop`, `ForAll` or
//!   `Phase` (for a phase: the thread is done with its item); `Break` leaves the innermost
//!   `Loop` and never crosses a `ForAll` or `Phase`.
//! - **Worklists.** A kernel pops its input worklist ([`ExprKind::Pop`], only of the variable
//!   of a `ForAll` over `Worklist`) and pushes to its output or retry worklist
//!   ([`StmtKind::Push`], with an [`Aggregation`] slot for cooperative conversion). Pushes of
//!   one launch are popped by the next (bulk-synchronous). On the host, a launch pops `In`;
//!   [`StmtKind::WorklistSwap`] makes `Out` (or `Retry`) the new `In` and empties it;
//!   [`ExprKind::WorklistSize`] reads a size.
//! - **Reductions.** [`StmtKind::Reduce`] contributes a `bool` to the reduction of the launch
//!   (`Launch::reduce`: `Any` is an OR with identity false, `All` an AND with identity true);
//!   the host resets the flag ([`StmtKind::ReduceReset`]) and reads it ([`ExprKind::ReduceResult`]).
//!   An addition to an integer global whose old value is unused becomes an
//!   [`StmtKind::Accumulate`] when `aggregate_pushes` aggregates it (its [`Aggregation`] slot:
//!   per warp at the site, or deferred to the end of the kernel per thread or per block);
//!   one whose old value is used becomes an [`ExprKind::FetchAdd`] (per warp at the site).
//! - **Mutual exclusion.** `Atomic` is its protocol: `TryLock` (one attempt, acquire fence),
//!   the locked statements, `Unlock` (release fence); the blocking form retries the whole
//!   attempt in a loop, so that a lane holding a lock is never starved by its warp.
//!   `Exclusive` is `LetArray` of the elements, `TryMarks` (all or nothing, at least one of
//!   the conflicting threads wins) and `ReleaseMarks`.
//! - **Grid barrier.** [`StmtKind::GridSync`] (`SyncRunningThreads`) only at a kernel's top
//!   level; such a kernel is launched cooperatively, all blocks resident.
//! - **Orchestration** (host). [`StmtKind::Launch`] runs a kernel once over the current input
//!   worklist with its scalar arguments; an invocation of the source is the launch, then,
//!   for kernels with `Retry`/`Respawn`, a loop that swaps in the retry worklist and launches
//!   again while it is not empty, then the swap of the output worklist. `Iterate` and `Pipe`
//!   are [`StmtKind::Region`]s around their loops: the nodes of the outline tree that
//!   iteration outlining moves into a device control kernel. `CountIteration` counts the
//!   rounds reported in the run's record. A [`StmtKind::Control`] (after
//!   `outline_iterations`) holds such a node: its statements run in every thread of one
//!   cooperative control kernel, with the semantics of the host loop (each effect on device
//!   state between grid barriers), the locals it names copied in and those it assigns out.
//!
//! # Invariants
//!
//! [`verify()`] checks them: handles in range; every statement and expression in the tree
//! once; locals declared before use and in scope; types consistent; side-specific kinds on
//! their side; `Break`/`Continue` inside what they leave; loop ids unique in a kernel and
//! region ids in `main`; the schedule structure described above (`Grid` only outermost,
//! `Block` only in a uniform body after its `Inspect`, policies in descending order of size
//! with at most one that takes the rest, last); launches with the right arguments.
//!
//! # Modules
//!
//! [`lower()`] builds a module from a checked program; [`verify()`] checks one; [`dump`]
//! prints one; [`visit`] walks bodies.

#[macro_use]
pub mod entity;
pub mod dump;
pub mod edit;
mod ir;
pub mod lower;
pub mod nodes;
pub mod verify;
pub mod visit;

pub use dump::{DumpOptions, dump_module};
pub use ir::*;
pub use lower::lower;
pub use verify::{VerifyError, assert_valid, verify};
