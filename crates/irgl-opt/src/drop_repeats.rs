//! `drop_repeats`: a worklist kernel pops each node at most once per round.
//!
//! **Why.** A round's worklist holds a node as often as it was pushed: cc-lp and sssp-wl push a
//! node each time a thread lowers its label, and many threads lower the same node in one
//! round. Each copy runs the node's whole edge loop again, for nothing where the kernel does
//! nothing more on a second pass over an item. Run partitioned over GPUs, where each GPU's
//! list holds each node once (docs/multi-gpu.md), cc-lp's rounds at RMAT scale 26 took
//! 40-49 ms of kernel time per GPU on two H200s against 321 ms on one.
//!
//! **What it assumes.** The kernel's second pass over an item does nothing the first did
//! not (`irgl_analysis::partition::repeat_changes`: it does not add, store a value computed
//! from what it updates at the same node, or store an atomic's old value), its items are
//! nodes, and it runs in rounds: an asynchronous kernel pops a node again because it was
//! pushed again after its first pop, which must not be dropped.
//!
//! **What it does.** Gives the program a node property `irgl_popped` (the round in which
//! each node was last popped, 0 before any) and the kernel a parameter `irgl_round`; wraps
//! what follows the kernel's pop in `if (irgl_round == 0 || atomicExch(g.irgl_popped[n],
//! irgl_round) != irgl_round)`, so only the first copy of a node in a round runs it; and
//! numbers the rounds in `main`: a local `irgl_rounds`, incremented before each launch of the
//! kernel and passed to it, or 0 (drop nothing) on a graph of mean degree below
//! `config.drop_repeats_degree` (a local `irgl_drop` set once the graph is loaded): there a
//! node is pushed by few neighbours in a round and has few edges to walk again, and the
//! test's atomic costs more than it saves (cc-lp on a grid: 1.5x slower with it). The
//! properties are zeroed before each run, and the numbers restart with it. Before and after
//! (`irglc emit ir programs/cc-lp.irgl --drop-repeats all --drop-repeats-degree 0`,
//! abridged):
//!
//! ```text
//! kernel k1 propagate(g) {             kernel k1 propagate(g, u32 irgl_round) {
//!   forall wi in wl.in {                 forall wi in wl.in {
//!     let n = pop(wi)                      let n = pop(wi)
//!     ...                          ==>     if (irgl_round == 0 || atomicExch(irgl_popped[n], irgl_round) != irgl_round) {
//!   }                                        ...
//! }                                        }
//!                                        }
//!                                      }
//! main:                                main: let irgl_rounds = 0 ...
//!   launch k1 propagate()                irgl_rounds = irgl_rounds + 1
//!                                        launch k1 propagate(irgl_rounds)
//! ```
//!
//! With a threshold D (the default, 12) `main` starts with `let irgl_drop = u64(g.nedges) >=
//! D * u64(g.nnodes)` and the launch passes `irgl_drop ? irgl_rounds : 0`.

use irgl_diagnostics::Diagnostic;
use irgl_ir::*;

use crate::config::OptConfig;

/// Makes the kernels that `config.drop_repeats` names pop each node at most once per round.
/// Errors: a name that is no kernel, or a kernel it does not apply to (with the reason).
pub fn drop_repeats(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let chosen = crate::chosen_kernels(
        m,
        &config.drop_repeats,
        "--drop-repeats",
        "E0514",
        |k, name| match first_pop(m, k) {
            Err(why) => Err(format!("does not apply to `{name}`: {why}")),
            Ok(at) => Ok(at),
        },
    )?;
    if chosen.is_empty() {
        return Ok(());
    }
    let popped = PropId(m.graph.props.len() as u32);
    m.graph.props.push(Prop {
        name: "irgl_popped".to_string(),
        owner: PropOwner::Node,
        ty: Ty::U32,
        input: false,
        span: Span::NONE,
        len: None,
    });
    // main's round numbers.
    let host = &mut m.host;
    let rounds = host.add_local("irgl_rounds", Ty::U32, LocalKind::Temp, Span::NONE);
    let zero = host.add_expr(ExprKind::Literal(Literal::Int(0)), Ty::U32, Span::NONE);
    let declare = host.add_stmt(
        StmtKind::Let {
            local: rounds,
            init: Some(zero),
        },
        Span::NONE,
    );
    host.block.insert(0, declare);
    // Whether this graph drops repeats at all: its mean degree against the threshold.
    let drop = (config.drop_repeats_degree > 0 && !m.graph.mesh).then(|| {
        let host = &mut m.host;
        let drop = host.add_local("irgl_drop", Ty::Bool, LocalKind::Temp, Span::NONE);
        let size = |host: &mut Body, field: GraphField, ty: Ty| {
            let e = host.add_expr(ExprKind::GraphSize(field), ty, Span::NONE);
            host.add_expr(ExprKind::Cast(e), Ty::U64, Span::NONE)
        };
        let edges = size(host, GraphField::NEdges, Ty::Edge);
        let nodes = size(host, GraphField::NNodes, Ty::U32);
        let degree = host.add_expr(
            ExprKind::Literal(Literal::Int(config.drop_repeats_degree.into())),
            Ty::U64,
            Span::NONE,
        );
        let least = host.add_expr(
            ExprKind::Binary(BinaryOp::Mul, degree, nodes),
            Ty::U64,
            Span::NONE,
        );
        let dense = host.add_expr(
            ExprKind::Binary(BinaryOp::Ge, edges, least),
            Ty::Bool,
            Span::NONE,
        );
        let declare = host.add_stmt(
            StmtKind::Let {
                local: drop,
                init: Some(dense),
            },
            Span::NONE,
        );
        host.block.insert(1, declare);
        drop
    });
    for (k, (forall, at)) in chosen {
        guard_pop(&mut m.kernels[k], popped, forall, at);
        let mut block = std::mem::take(&mut m.host.block);
        number_launches(&mut m.host, &mut block, k, rounds, drop);
        m.host.block = block;
    }
    Ok(())
}

/// Whether dropping repeats applies to kernel `k` of `m`, or why not.
pub fn applies(m: &Module, k: KernelId) -> Result<(), String> {
    first_pop(m, k).map(|_| ())
}

/// The kernel's outer worklist `ForAll` and the position in its body of the `let` of the
/// popped node, or why dropping repeats does not apply.
fn first_pop(m: &Module, k: KernelId) -> Result<(StmtId, usize), String> {
    let kernel = &m.kernels[k];
    if kernel.asynchronous.is_some() {
        return Err(
            "it runs asynchronously (--async): a node it pops again was pushed again after its first pop"
                .to_string(),
        );
    }
    let body = &kernel.body;
    let forall = body.block.iter().copied().find(
        |&s| matches!(&body.stmts[s].kind, StmtKind::ForAll(f) if f.space == Space::Worklist),
    );
    let Some(forall) = forall else {
        return Err("it pops no worklist".to_string());
    };
    let StmtKind::ForAll(f) = &body.stmts[forall].kind else {
        unreachable!("found as a ForAll")
    };
    let at = f.body.iter().position(|&s| {
        matches!(&body.stmts[s].kind, StmtKind::Let { init: Some(e), .. }
            if matches!(body.exprs[*e].kind, ExprKind::Pop(_)))
    });
    let Some(at) = at else {
        return Err("its outer ForAll does not start by popping its item".to_string());
    };
    let StmtKind::Let { local, .. } = &body.stmts[f.body[at]].kind else {
        unreachable!("found as a Let")
    };
    if body.locals[*local].ty != Ty::Node {
        return Err("its items are not nodes".to_string());
    }
    if let Some(why) = irgl_analysis::partition::repeat_changes(m, kernel) {
        return Err(format!(
            "a second pass over one of its items would do more: it {why}"
        ));
    }
    Ok((forall, at))
}

/// Wraps what follows the pop at `at` of the body of `forall` in the first-pop test, with
/// the round as a new last parameter of `k`.
fn guard_pop(k: &mut Kernel, popped: PropId, forall: StmtId, at: usize) {
    let body = &mut k.body;
    let round = body.add_local("irgl_round", Ty::U32, LocalKind::Param, Span::NONE);
    k.params.push(KernelParam::Scalar(round));
    let StmtKind::ForAll(f) = &body.stmts[forall].kind else {
        unreachable!("first_pop found it")
    };
    let mut block = f.body.clone();
    let StmtKind::Let { local: node, .. } = body.stmts[block[at]].kind else {
        unreachable!("first_pop found it")
    };
    let span = body.stmts[block[at]].span;
    let item = body.add_expr(ExprKind::Local(node), Ty::Node, span);
    let stamp = body.add_expr(ExprKind::Local(round), Ty::U32, span);
    let exch = body.add_expr(
        ExprKind::Atomic {
            op: AtomicOp::Exch,
            place: Place::Element {
                prop: popped,
                index: item,
            },
            args: vec![stamp],
        },
        Ty::U32,
        span,
    );
    let again = body.add_expr(ExprKind::Local(round), Ty::U32, span);
    let first = body.add_expr(ExprKind::Binary(BinaryOp::Ne, exch, again), Ty::Bool, span);
    // Round 0 drops nothing (a sparse graph), and stamps nothing.
    let off_round = body.add_expr(ExprKind::Local(round), Ty::U32, span);
    let zero = body.add_expr(ExprKind::Literal(Literal::Int(0)), Ty::U32, span);
    let off = body.add_expr(
        ExprKind::Binary(BinaryOp::Eq, off_round, zero),
        Ty::Bool,
        span,
    );
    let first = body.add_expr(ExprKind::Binary(BinaryOp::Or, off, first), Ty::Bool, span);
    let rest: Block = block.split_off(at + 1);
    let guard = body.add_stmt(
        StmtKind::If {
            cond: first,
            then_block: rest,
            else_block: Vec::new(),
        },
        span,
    );
    block.push(guard);
    if let StmtKind::ForAll(f) = &mut body.stmts[forall].kind {
        f.body = block;
    }
}

/// Before each launch of `k` in `block` (nested blocks included): `rounds = rounds + 1`, and
/// `rounds` passed as the launch's last argument, or 0 where `drop` is false.
fn number_launches(
    host: &mut Body,
    block: &mut Block,
    k: KernelId,
    rounds: LocalId,
    drop: Option<LocalId>,
) {
    let mut i = 0;
    while i < block.len() {
        let s = block[i];
        let launches_k = matches!(&host.stmts[s].kind, StmtKind::Launch(l) if l.kernel == k);
        if launches_k {
            let span = host.stmts[s].span;
            let old = host.add_expr(ExprKind::Local(rounds), Ty::U32, span);
            let one = host.add_expr(ExprKind::Literal(Literal::Int(1)), Ty::U32, span);
            let next = host.add_expr(ExprKind::Binary(BinaryOp::Add, old, one), Ty::U32, span);
            let step = host.add_stmt(
                StmtKind::Assign {
                    place: Place::Local(rounds),
                    op: None,
                    value: next,
                },
                span,
            );
            let mut arg = host.add_expr(ExprKind::Local(rounds), Ty::U32, span);
            if let Some(drop) = drop {
                let dense = host.add_expr(ExprKind::Local(drop), Ty::Bool, span);
                let zero = host.add_expr(ExprKind::Literal(Literal::Int(0)), Ty::U32, span);
                arg = host.add_expr(
                    ExprKind::Select {
                        cond: dense,
                        then_expr: arg,
                        else_expr: zero,
                    },
                    Ty::U32,
                    span,
                );
            }
            if let StmtKind::Launch(l) = &mut host.stmts[s].kind {
                l.args.push(arg);
            }
            block.insert(i, step);
            i += 2;
            continue;
        }
        // The statement's own blocks.
        let mut kind = std::mem::replace(&mut host.stmts[s].kind, StmtKind::Break);
        for b in visit::child_blocks_mut(&mut kind) {
            number_launches(host, b, k, rounds, drop);
        }
        host.stmts[s].kind = kind;
        i += 1;
    }
}
