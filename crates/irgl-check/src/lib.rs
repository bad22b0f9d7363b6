//! The IrGL semantic checker: name resolution, types, construct placement and orchestration
//! rules (`docs/language.md`), and the side tables that later passes consume.
//!
//! [`check`] takes a parsed [`Program`] (possibly one the parser recovered from: `Error` items
//! and statements are skipped) and returns a [`ProgramInfo`] with every diagnostic it found.
//! It does no I/O and never panics. The tables are complete only when no error is reported;
//! the CUDA back end and the optimization passes must not run otherwise.
//!
//! # `ProgramInfo`
//!
//! Like naga's `valid::ModuleInfo`, the result describes the program without changing it;
//! everything is keyed by a handle.
//!
//! - [`graph`](ProgramInfo::graph): the `graph` declaration ([`GraphInfo`]): its name, item
//!   index, attributes ([`GraphAttrs`]: `symmetric`, `simple`), its properties in declaration
//!   order ([`PropInfo`]: name, owner node/edge, element [`Ty`] — `Lock`/`Mark` for lock and
//!   mark arrays —, `input`, the `PropDecl` id), and which one is the `input` edge property.
//!   [`PropId`] indexes `props`.
//! - [`consts`](ProgramInfo::consts), [`params`](ProgramInfo::params),
//!   [`globals`](ProgramInfo::globals): declared type and folded [`Value`] (the const's value,
//!   the param's default, the global's initial value — zero when omitted), indexed by
//!   [`ConstId`], [`ParamId`], [`GlobalId`]. Folding is exact: integer overflow, division by
//!   zero and out-of-range shifts are errors (see [`value`]).
//! - [`outputs`](ProgramInfo::outputs): each `output` entry resolved to a property or a
//!   global ([`OutputTarget`]).
//! - [`kernels`](ProgramInfo::kernels): one [`KernelInfo`] per kernel, in source order,
//!   indexed by [`KernelId`] ([`ProgramInfo::kernel_named`] looks one up by name); each has its
//!   item index, parameter types, the position of its graph parameter, whether it iterates,
//!   pops or pushes the worklist ([`KernelInfo::uses_worklist`]), its `ReduceAndReturn`,
//!   `Retry`/`Respawn` sites, whether it uses `SyncRunningThreads`, `Atomic`, `Exclusive`,
//!   atomic functions, the lock/mark properties it synchronizes on, every `ForAll`
//!   ([`ForAllInfo`]: statement id, nesting depth, parent, iterator kind, variable type), and
//!   the globals and properties it reads and writes ([`Access`]).
//! - [`main`](ProgramInfo::main): the item index of `main` and the host's [`Access`].
//! - [`invocations`](ProgramInfo::invocations): every kernel launch in `main`
//!   ([`InvocationInfo`]): the site and `Call` ids, the kind (`Invoke`, `Any`/`All Invoke`,
//!   `Iterate`), the kernel, the enclosing `Pipe`s, the worklist context ([`WorklistContext`]:
//!   none, `Initial [..]`, `Initial g.nodes`, Pipe), the reduction and the `While`/`Until`.
//! - [`expr_types`](ProgramInfo::expr_types): the [`Ty`] of every expression, by `Expr::id`.
//!   Literals carry their contextual type: in `g.level[0]` the `0` is `node`, in
//!   `let x: u64 = 1 << 40` every part of `1 << 40` is `u64`.
//! - [`local_types`](ProgramInfo::local_types): the type of every local by its definition
//!   (`Let` statement, `ForAll` statement, `KernelParam`).
//! - [`resolutions`](ProgramInfo::resolutions): what each use site means ([`Resolution`]):
//!   every `Name` (a local and its definition, a const, param or global, or the graph as a
//!   kernel argument), `Index` (node or edge property), `Field` (`nnodes`/`nedges`, or the mark
//!   property of an `Exclusive`), `Method` (`dst`, `degree`, `edge_begin`, `edge_end`) and
//!   `Call` (built-in or atomic function).
//!
//! # Passes
//!
//! [`check`] runs, in order: [`decls`] (collect declarations into the symbol tables; check
//! and fold initializers; resolve outputs), [`body`] (each kernel, then `main`: names, types
//! and placement in one walk), [`orchestrate`] (rules that relate a kernel to its launches).
//! Diagnostics come back sorted by position. Codes: `E01xx` names, `E02xx` types, `E03xx`
//! placement and orchestration, `E04xx` declarations, `W0xxx` warnings; each is documented in
//! `docs/diagnostics.md`.

mod body;
mod calls;
mod cx;
mod decls;
mod info;
mod orchestrate;
mod ty;
pub mod value;

pub use calls::always_returns;
pub use info::*;
pub use ty::Ty;
pub use value::Value;

use irgl_diagnostics::Diagnostic;
use irgl_syntax::ast::{ItemKind, Program};

use crate::cx::{Cx, Symbol};

/// Checks a program. Returns the side tables and every diagnostic (errors and warnings),
/// sorted by position.
pub fn check(program: &Program) -> (ProgramInfo, Vec<Diagnostic>) {
    let mut cx = Cx::new(program);
    decls::collect_declarations(&mut cx);
    decls::collect_arrays(&mut cx);
    decls::check_initializers(&mut cx);
    decls::evaluate_constants(&mut cx);
    decls::resolve_outputs(&mut cx);
    for (index, item) in program.items.iter().enumerate() {
        if let ItemKind::Kernel(k) = &item.kind
            && let Some(Symbol::Kernel(id)) = cx.symbol(&k.name.name)
            && cx.info.kernels[id.index()].item == index
        {
            body::check_kernel(&mut cx, id, k);
        }
        if let ItemKind::Function(f) = &item.kind
            && let Some(Symbol::Function(id)) = cx.symbol(&f.name.name)
            && cx.info.functions[id.index()].item == index
        {
            body::check_function(&mut cx, id, f);
        }
    }
    if let Some(index) = cx.main_item
        && let Some(ItemKind::Main(b)) = program.items.get(index).map(|i| &i.kind)
    {
        body::check_main(&mut cx, index, b);
    }
    calls::check_calls(&mut cx);
    orchestrate::check_invocations(&mut cx);
    orchestrate::report_unused_kernels(&mut cx);
    let mut diags = cx.diags;
    diags.sort_by_key(|d| d.span().map(|s| (s.start, s.end)));
    // One diagnostic per code and position: some rules are reached on several paths.
    let mut seen = std::collections::HashSet::new();
    diags.retain(|d| seen.insert((d.code, d.span())));
    (cx.info, diags)
}

/// Whether any diagnostic is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}
