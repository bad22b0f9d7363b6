//! `schedule_nested_loops`: hands the iterations of nested `ForAll`s to the block's
//! schedulers (paper section 4.3) instead of the thread that reaches the loop.
//!
//! **Why.** A nested `ForAll` over a node's edges runs serially in one thread by default; on
//! graphs with skewed degrees a few threads walk hub lists while their warps idle (the
//! paper's "graph traversal throughput"). The schedulers spread those iterations: the whole
//! block takes items of at least `tb_threshold` iterations, a warp (or a virtual warp of 2-16
//! lanes) the medium ones, and the rest go to fine-grained (consecutive iterations to
//! consecutive threads, after a block-wide prefix sum), edge-balanced (an equal contiguous
//! share per thread) or serial execution. It pays on power-law graphs and costs on regular
//! ones (road networks), where the inspection, the barriers and the shared-memory traffic
//! buy nothing; the tuner decides.
//!
//! **What it assumes.** The loop is nested directly in an outermost `ForAll` that stands at
//! its kernel's top level, reached from that loop's body through `if`s and scopes only (no
//! sequential loop around it, no other nested `ForAll`), its variable is 32-bit, and no
//! nested `ForAll` follows the `if`s around it. A loop that fails one of these keeps its
//! serial schedule, with the reason in `irglc emit ir`; an explicit `--nested-at` for it is
//! an error that says why.
//!
//! **What it does.** The outer `ForAll` becomes uniform (every thread of the grid makes the
//! same number of trips, with an `active` flag), and its body is cut at each scheduled loop
//! into phases: the part up to the loop runs for the active threads and ends in an `Inspect`
//! that records the loop's trip count and first value; the scheduled loop itself runs for
//! the whole block; the rest of the item runs for the threads that reached the loop. Values
//! that live across the cut are declared at the top of the outer body, and the loop's body
//! reads the owner's values (its closure) from shared memory. Before and after, in IrGL:
//!
//! ```text
//! ForAll (wi In WL) {                      forall loop0 wi in WL [grid uniform] {
//!   let n = WL.pop(wi);                      let n = 0; let irgl_reach1 = false; ...
//!   ForAll (e In g.edges(n)) {     ==>       phase active { n = pop(wi); inspect loop1 edges(n) }
//!     ...                                    forall loop1 e in inspected [block tb+wp+fg closure [n]] {
//!   }                                          ...
//! }                                          }
//!                                          }
//! ```
//!
//! **The grid (`gd`).** First in a schedule, `gd` lets an owner whose item reaches a
//! threshold found at load (a block's share of the graph's edges) hand it to the whole grid:
//! every block runs chunks of it after its own last trip (the code generator's `grid_help`).
//! The item must not wait for those iterations, so `gd` is left out, with the reason kept in
//! the schedule's note, for a loop that reduces or that statements of the item follow, and in
//! kernels that are asynchronous or have a grid barrier; the rest of the schedule stays. A
//! kernel with a loop under `gd` is then copied with `gd` left out, `K_nogd`
//! ([`Kernel::no_grid_version`]): the program launches the copy on graphs where no node
//! reaches the threshold, so that there the code (and its registers) is the schedule's
//! without `gd`.
//!
//! **Serial versions.** With a [`SerialRule`] (`--adapt on`), a kernel whose scheduled loops
//! all sit in `ForAll`s over the nodes, and whose edges cost alike (no push and no loop that
//! runs until a `break` in a scheduled loop), is first copied as it is, `K_serial`, with its
//! nested loops serial ([`Kernel::serial_version`]); the program launches the copy instead on
//! the graphs the rule picks (low, even degrees), decided once when it loads the graph.

use std::collections::{BTreeSet, HashMap, HashSet};

use irgl_diagnostics::Diagnostic;
use irgl_ir::visit;
use irgl_ir::*;

use crate::config::{OptConfig, ScheduleSpec};

/// Schedules the nested `ForAll`s of every kernel as `config` asks. Errors are the overrides
/// that name no loop or cannot apply.
pub fn schedule_nested_loops(m: &mut Module, config: &OptConfig) -> Result<(), Vec<Diagnostic>> {
    let overrides = resolve_overrides(m, config)?;
    let mut errors = Vec::new();
    let kernel_ids: Vec<KernelId> = m.kernels.keys().collect();
    for k in kernel_ids {
        let kernel = &mut m.kernels[k];
        let plans = plan_kernel(kernel, k, config, &overrides, &mut errors);
        if !plans.is_empty() && m.launch.serial_rule.is_some() && serial_pays(kernel, &plans) {
            add_serial_version(m, k);
        }
        let kernel = &mut m.kernels[k];
        let no_grid = if kernel.asynchronous.is_some() {
            Some(
                "the kernel is asynchronous: its blocks keep taking items until none is left, and gd runs an item's iterations after the owner's last trip",
            )
        } else if kernel.facts().cooperative {
            Some(
                "the kernel has a grid barrier, which the iterations run after the owner's last trip would cross",
            )
        } else if kernel.settled {
            Some(
                "the kernel's rounds run without grid barriers (settle_rounds), and gd's tables are emptied at the barrier after a round",
            )
        } else {
            None
        };
        let mut shared = 0u32;
        for (outer, loops) in plans {
            shared += transform_outer(&mut kernel.body, outer, &loops, config, no_grid);
        }
        kernel.shared_bytes = shared;
        if m.kernels[k].hands_items_to_the_grid() {
            add_no_grid_version(m, k);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Whether a serial version of the kernel can pay on the graphs [`SerialRule`] picks: every
/// outer loop of `plans` is over the nodes (or the parts of split nodes), in order (the order of the warp efficiency the
/// rule measures: a worklist's items come in another), and every scheduled loop's iterations
/// cost alike (no loop that runs until a `break`, whose trips depend on the data or on other
/// threads, and no push, which the schedulers line up for aggregation, in its body).
/// Measured on an H200 over road networks, a grid, a path and many small components: serial
/// inner loops made the node sweeps of color, tc, pr, pr-pull and bfs-topo 1.1-2x faster,
/// but bfs and sssp over worklists 1.3-1.8x slower, cc's hooking (a retry loop per edge)
/// 2.7x slower on the path, and a sweep that pushes every edge 1.2-1.4x slower.
fn serial_pays(kernel: &Kernel, plans: &[(StmtId, Vec<Scheduled>)]) -> bool {
    let body = &kernel.body;
    plans.iter().all(|(outer, loops)| {
        let over_nodes = matches!(
            &body.stmts[*outer].kind,
            StmtKind::ForAll(ForAll {
                space: Space::Nodes | Space::SplitNodes,
                ..
            })
        );
        over_nodes
            && loops.iter().all(|l| {
                let StmtKind::ForAll(f) = &body.stmts[l.stmt].kind else {
                    unreachable!("a scheduled loop is a ForAll")
                };
                !visit::block_any(body, &f.body, &|k| match k {
                    StmtKind::Push(_) => true,
                    StmtKind::Loop(l) => until_break(body, l),
                    _ => false,
                })
            })
    })
}

/// Whether a loop runs until a `break` (`while (true)`, `loop`): a retry or a search, whose
/// trips depend on the data or on other threads rather than on a bound.
fn until_break(body: &Body, l: &Loop) -> bool {
    match l.cond {
        None => true,
        Some(c) => matches!(body.exprs[c].kind, ExprKind::Literal(Literal::Bool(true))),
    }
}

/// Adds a copy of kernel `k` as it is now (its nested loops serial) as its serial version,
/// named `K_serial` (or `K_serial2`, ... where the program has a kernel of that name).
fn add_serial_version(m: &mut Module, k: KernelId) {
    let mut copy = m.kernels[k].clone();
    copy.name = crate::version_name(m, &copy.name, "serial");
    copy.serial_of = Some(k);
    // A settled loop keeps its rounds on the serial version's graphs: there a grid barrier
    // ends every round, after which plain loads see the round's stores.
    copy.settled = false;
    let version = m.kernels.push(copy);
    m.kernels[k].serial_version = Some(version);
}

/// Adds a copy of kernel `k` with `gd` left out of every schedule (the next policy takes
/// the items `gd` would have), named `K_nogd`, as its version for graphs without a node
/// past the grid's threshold ([`Kernel::no_grid_version`]): there the program launches the
/// copy, which has no publish step and no help loop, and so the registers and the code of
/// the schedule without `gd`.
fn add_no_grid_version(m: &mut Module, k: KernelId) {
    let mut copy = m.kernels[k].clone();
    copy.name = crate::version_name(m, &copy.name, "nogd");
    copy.serial_version = None;
    copy.no_grid_of = Some(k);
    let ids: Vec<StmtId> = copy.body.stmts.keys().collect();
    for s in ids {
        if let StmtKind::ForAll(ForAll {
            schedule: Schedule::Block(b),
            ..
        }) = &mut copy.body.stmts[s].kind
            && let Some(i) = b.policies.iter().position(|p| *p == Policy::Grid)
        {
            b.policies.remove(i);
            b.thresholds.remove(i);
            b.note = Some(
                "gd left out: the version for graphs without a node past the grid's threshold"
                    .into(),
            );
        }
    }
    let version = m.kernels.push(copy);
    m.kernels[k].no_grid_version = Some(version);
}

/// The `--nested-at` overrides, by loop: the schedule and the key as written.
type Overrides = HashMap<(KernelId, LoopId), (ScheduleSpec, String)>;

/// One loop to schedule, with what the options asked.
struct Scheduled {
    stmt: StmtId,
    spec: ScheduleSpec,
}

/// `KERNEL.LOOP` keys resolved to loops.
fn resolve_overrides(m: &Module, config: &OptConfig) -> Result<Overrides, Vec<Diagnostic>> {
    let mut out = HashMap::new();
    let mut errors = Vec::new();
    for (key, spec) in &config.nested.overrides {
        let Some((kname, lname)) = key.split_once('.') else {
            errors.push(Diagnostic::error(
                "E0502",
                format!("--nested-at {key}: expected KERNEL.LOOP, such as bfs.loop1 or bfs.e"),
            ));
            continue;
        };
        let Some(k) = m.kernel_named(kname) else {
            let names: Vec<&str> = m.kernels.values().map(|k| k.name.as_str()).collect();
            errors.push(
                Diagnostic::error(
                    "E0501",
                    format!("--nested-at {key}: the program has no kernel `{kname}`"),
                )
                .with_note(format!("its kernels: {}", names.join(", "))),
            );
            continue;
        };
        let kernel = &m.kernels[k];
        let loops = foralls(&kernel.body);
        let found: Vec<&(StmtId, LoopId, usize)> = loops
            .iter()
            .filter(|(s, id, _)| {
                id.to_string() == lname || {
                    let StmtKind::ForAll(f) = &kernel.body.stmts[*s].kind else {
                        unreachable!()
                    };
                    kernel.body.locals[f.var].name == lname
                }
            })
            .collect();
        let listing = || {
            let items: Vec<String> = loops
                .iter()
                .map(|(s, id, depth)| {
                    let StmtKind::ForAll(f) = &kernel.body.stmts[*s].kind else {
                        unreachable!()
                    };
                    let what = if *depth == 0 { "outermost" } else { "nested" };
                    format!("{id} ({what}, over `{}`)", kernel.body.locals[f.var].name)
                })
                .collect();
            format!("the ForAlls of {kname}: {}", items.join(", "))
        };
        match found[..] {
            [] => errors.push(
                Diagnostic::error(
                    "E0502",
                    format!("--nested-at {key}: kernel `{kname}` has no ForAll `{lname}`"),
                )
                .with_label(kernel.span, format!("kernel `{kname}`"))
                .with_note(listing()),
            ),
            [(s, id, depth)] => {
                let StmtKind::ForAll(f) = &kernel.body.stmts[*s].kind else {
                    unreachable!()
                };
                let span = kernel.body.locals[f.var].span;
                if *depth == 0 {
                    errors.push(
                        Diagnostic::error(
                            "E0503",
                            format!(
                                "--nested-at {key}: {id} is the outermost ForAll of `{kname}`; its iterations are spread over the grid, only nested ForAlls are scheduled"
                            ),
                        )
                        .with_label(span, "an outermost ForAll")
                        .with_note(listing()),
                    );
                } else {
                    out.insert((k, *id), (spec.clone(), key.clone()));
                }
            }
            _ => errors.push(
                Diagnostic::error(
                    "E0502",
                    format!("--nested-at {key}: `{lname}` names several ForAlls of `{kname}`"),
                )
                .with_label(kernel.span, format!("kernel `{kname}`"))
                .with_note(listing())
                .with_help("address the loop by its number, as listed"),
            ),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Every `ForAll` of a body with its nesting depth, in pre-order.
pub(crate) fn foralls(body: &Body) -> Vec<(StmtId, LoopId, usize)> {
    fn walk(body: &Body, block: &Block, depth: usize, out: &mut Vec<(StmtId, LoopId, usize)>) {
        for &s in block {
            let kind = &body.stmts[s].kind;
            let inner = if let StmtKind::ForAll(f) = kind {
                out.push((s, f.id, depth));
                depth + 1
            } else {
                depth
            };
            for b in visit::child_blocks(kind) {
                walk(body, b, inner, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &body.block, 0, &mut out);
    out
}

/// Decides, for each outermost `ForAll` of a kernel, which of its nested loops to schedule;
/// marks the others with the reason when a schedule was asked for.
fn plan_kernel(
    kernel: &mut Kernel,
    k: KernelId,
    config: &OptConfig,
    overrides: &Overrides,
    errors: &mut Vec<Diagnostic>,
) -> Vec<(StmtId, Vec<Scheduled>)> {
    let body = &kernel.body;
    let mut plans = Vec::new();
    let mut serial: Vec<(StmtId, String)> = Vec::new();
    for (outer, at_top) in visit::outer_foralls(body) {
        let StmtKind::ForAll(of) = &body.stmts[outer].kind else {
            unreachable!()
        };
        let outer_id = of.id;
        let mut nested = Vec::new();
        collect_nested(body, &of.body, &mut Vec::new(), &mut nested);
        let mut chosen = Vec::new();
        for n in &nested {
            let StmtKind::ForAll(f) = &body.stmts[n.stmt].kind else {
                unreachable!()
            };
            let (spec, explicit) = match overrides.get(&(k, f.id)) {
                Some((spec, key)) => (spec.clone(), Some(key.clone())),
                None => (config.nested.default.clone(), None),
            };
            if spec.is_serial() {
                continue;
            }
            let why = if n.depth > 1 {
                Some(
                    "nested in another nested ForAll: only the first nesting level is scheduled"
                        .to_string(),
                )
            } else if !at_top {
                Some(format!(
                    "its outer ForAll ({outer_id}) is inside a condition or loop of the kernel, so the block's threads may not all reach the schedulers"
                ))
            } else if n.in_loop {
                Some(format!(
                    "it is inside a sequential loop of the body of {outer_id}, whose trip count differs between threads"
                ))
            } else if body.locals[f.var].ty.bits() != 32 {
                Some(format!(
                    "its variable is {}: only 32-bit iteration spaces are scheduled",
                    body.locals[f.var].ty
                ))
            } else if n.followed_by_forall {
                Some(
                    "another nested ForAll follows the `if` around it, and the rest of the item would have to be copied with that loop in it"
                        .to_string(),
                )
            } else {
                None
            };
            match (why, explicit) {
                (None, _) => chosen.push(Scheduled { stmt: n.stmt, spec }),
                (Some(why), Some(key)) => errors.push(
                    Diagnostic::error(
                        "E0504",
                        format!(
                            "--nested-at {key}={spec}: {} of `{}` cannot be scheduled",
                            f.id, kernel.name
                        ),
                    )
                    .with_label(body.locals[f.var].span, why),
                ),
                (Some(why), None) => serial.push((n.stmt, why)),
            }
        }
        if !chosen.is_empty() {
            plans.push((outer, chosen));
        }
    }
    for (s, why) in serial {
        if let StmtKind::ForAll(f) = &mut kernel.body.stmts[s].kind {
            f.schedule = Schedule::Serial { why: Some(why) };
        }
    }
    plans
}

/// A nested `ForAll` of an outer loop's body, and where it stands.
struct Nested {
    stmt: StmtId,
    /// 1: in the outer loop's body; 2: in a nested loop's body; ...
    depth: usize,
    /// Inside a sequential `Loop` (or a lock protocol) of the outer body.
    in_loop: bool,
    /// Some statement after an enclosing `if`/scope (not its own block) holds a `ForAll`.
    followed_by_forall: bool,
}

/// The nested `ForAll`s of `block` (an outer loop's body), in pre-order. `path` holds, for
/// each enclosing statement, whether it is a loop and whether a `ForAll` follows it.
fn collect_nested(body: &Body, block: &Block, path: &mut Vec<Frame>, out: &mut Vec<Nested>) {
    // Whether some statement after position i holds a ForAll, for every i (one pass).
    let mut after = vec![false; block.len()];
    for i in (0..block.len().saturating_sub(1)).rev() {
        after[i] = after[i + 1]
            || visit::block_any(body, &vec![block[i + 1]], &|k| {
                matches!(k, StmtKind::ForAll(_))
            });
    }
    for (i, &s) in block.iter().enumerate() {
        let kind = &body.stmts[s].kind;
        let tail_has_forall = after[i];
        if let StmtKind::ForAll(_) = kind {
            let depth = 1 + path.iter().filter(|f| f.forall.is_some()).count();
            out.push(Nested {
                stmt: s,
                depth,
                in_loop: path.iter().any(|f| f.is_loop && f.forall.is_none()),
                // Our own block's tail moves with us; only enclosing tails are copied.
                followed_by_forall: path.iter().any(|f| f.tail_has_forall),
            });
        }
        let frame = Frame {
            is_loop: matches!(kind, StmtKind::Loop(_)),
            forall: matches!(kind, StmtKind::ForAll(_)).then_some(s),
            tail_has_forall,
        };
        for b in visit::child_blocks(kind) {
            path.push(frame.clone());
            collect_nested(body, b, path, out);
            path.pop();
        }
    }
}

#[derive(Clone)]
struct Frame {
    is_loop: bool,
    forall: Option<StmtId>,
    tail_has_forall: bool,
}

/// A piece of the uniform outer body.
enum Part {
    Phase(PhaseGuard, Block),
    Loop(StmtId),
}

/// Makes the outermost `ForAll` `outer` uniform with its whole body in one `Phase`, without
/// scheduling a nested loop: the phases are then trips of the block for block-level
/// aggregation (`aggregate_pushes`). `outer` stands at its kernel's top level.
pub(crate) fn make_uniform(body: &mut Body, outer: StmtId, config: &OptConfig) {
    let shared = transform_outer(body, outer, &[], config, None);
    debug_assert_eq!(shared, 0, "no scheduler, no shared memory");
}

/// Makes `outer` uniform and splits its body at each of `loops`; returns the shared memory
/// the schedulers use, in bytes. `no_grid`: why no loop of this kernel may hand items to the
/// grid ([`Policy::Grid`]), if so.
fn transform_outer(
    body: &mut Body,
    outer: StmtId,
    loops: &[Scheduled],
    config: &OptConfig,
    no_grid: Option<&str>,
) -> u32 {
    let block_size = config.block_size;
    let StmtKind::ForAll(of) = &body.stmts[outer].kind else {
        unreachable!()
    };
    let mut parts = vec![Part::Phase(PhaseGuard::Active, of.body.clone())];
    let mut decls: Vec<StmtId> = Vec::new();
    let mut shared = 0u32;
    for l in loops {
        let StmtKind::ForAll(f) = &body.stmts[l.stmt].kind else {
            unreachable!()
        };
        let (loop_id, var, span) = (f.id, f.var, body.stmts[l.stmt].span);
        let var_ty = body.locals[var].ty;
        let n = loop_id.index();
        let state = InspectState {
            reached: body.add_local(format!("irgl_reach{n}"), Ty::Bool, LocalKind::Temp, span),
            count: body.add_local(format!("irgl_trips{n}"), Ty::U32, LocalKind::Temp, span),
            begin: body.add_local(format!("irgl_start{n}"), var_ty, LocalKind::Temp, span),
        };
        for l in [state.reached, state.count, state.begin] {
            decls.push(body.add_stmt(
                StmtKind::Let {
                    local: l,
                    init: None,
                },
                span,
            ));
        }
        let space = std::mem::replace(
            match &mut body.stmts[l.stmt].kind {
                StmtKind::ForAll(f) => &mut f.space,
                _ => unreachable!(),
            },
            Space::Inspected,
        );
        let inspect = body.add_stmt(
            StmtKind::Inspect(Inspect {
                loop_id,
                space,
                state,
            }),
            span,
        );
        // Split the phase that holds the loop.
        let (index, guard, before, after) = parts
            .iter()
            .enumerate()
            .find_map(|(i, p)| match p {
                Part::Phase(g, b) => {
                    split(body, b, l.stmt, inspect).map(|(before, after)| (i, *g, before, after))
                }
                Part::Loop(_) => None,
            })
            .expect("a planned loop is in some phase");
        // Nothing of the item runs after the loop: it may leave its iterations to the grid.
        let ends_item = after.is_empty();
        parts.splice(
            index..=index,
            [
                Part::Phase(guard, before),
                Part::Loop(l.stmt),
                Part::Phase(PhaseGuard::Reached(loop_id), after),
            ],
        );
        // The closure: what the loop's body reads from outside it (parameters are uniform).
        let StmtKind::ForAll(f) = &body.stmts[l.stmt].kind else {
            unreachable!()
        };
        let inside = declared_in(body, &f.body);
        // Reduced locals are not read by the body: each thread combines into a partial, and
        // the owner's slot in shared memory collects them.
        let reduced: Vec<LocalId> = f.reductions.iter().map(|r| r.local).collect();
        let closure: Vec<LocalId> = visit::locals_used(body, &f.body)
            .into_iter()
            .filter(|x| {
                *x != var
                    && !inside.contains(x)
                    && !reduced.contains(x)
                    && body.locals[*x].kind != LocalKind::Param
            })
            .collect();
        let mut policies = l.spec.policies().to_vec();
        let mut note = None;
        if policies.contains(&Policy::Grid) {
            let why = if let Some(why) = no_grid {
                Some(why)
            } else if !f.reductions.is_empty() {
                Some(
                    "the loop reduces, and its owner reads the result in its trip, before the grid runs the iterations",
                )
            } else if !ends_item {
                Some(
                    "statements of the item follow the loop, and would run before the grid runs the iterations",
                )
            } else {
                None
            };
            if let Some(why) = why {
                policies.retain(|p| *p != Policy::Grid);
                note = Some(format!("gd left out: {why}"));
            }
        }
        // Each policy's smallest trip count, never above the previous policy's (the grid's
        // is computed at run time).
        let mut thresholds: Vec<u32> = Vec::new();
        for p in &policies {
            let natural = match p {
                Policy::Grid => u32::MAX,
                Policy::Threadblock => config.tb_threshold(),
                Policy::Warp => config.nested.warp_threshold,
                Policy::VirtualWarp(w) => u32::from(*w),
                _ => 0,
            };
            let cap = thresholds.last().copied().unwrap_or(u32::MAX);
            thresholds.push(natural.min(cap));
        }
        let uses_var = visit::locals_used(body, &f.body).contains(&var);
        shared += shared_bytes(
            body, &closure, &reduced, var_ty, uses_var, &policies, block_size,
        );
        if let StmtKind::ForAll(f) = &mut body.stmts[l.stmt].kind {
            f.schedule = Schedule::Block(BlockSchedule {
                policies,
                thresholds,
                closure,
                state,
                note,
            });
        }
    }
    // Drop empty phases (the rest of an item that ends with the loop).
    parts.retain(|p| !matches!(p, Part::Phase(_, b) if b.is_empty()));
    // Values that live across the cuts are declared before the first phase.
    let mut home: HashMap<LocalId, usize> = HashMap::new();
    for (i, p) in parts.iter().enumerate() {
        if let Part::Phase(_, b) = p {
            for l in declared_in(body, b) {
                home.insert(l, i);
            }
        }
    }
    let mut hoist: BTreeSet<LocalId> = BTreeSet::new();
    for (i, p) in parts.iter().enumerate() {
        let used = match p {
            Part::Phase(_, b) => visit::locals_used(body, b),
            Part::Loop(s) => visit::locals_used(body, &vec![*s]),
        };
        for l in used {
            if home.get(&l).is_some_and(|h| *h != i) {
                hoist.insert(l);
            }
        }
    }
    let mut new_body: Block = Vec::new();
    for &l in &hoist {
        undeclare(body, &parts, l);
        let span = body.locals[l].span;
        new_body.push(body.add_stmt(
            StmtKind::Let {
                local: l,
                init: None,
            },
            span,
        ));
    }
    new_body.extend(decls);
    for p in parts {
        match p {
            Part::Phase(guard, block) => new_body
                .push(body.add_stmt(StmtKind::Phase(Phase { guard, body: block }), Span::NONE)),
            Part::Loop(s) => new_body.push(s),
        }
    }
    if let StmtKind::ForAll(f) = &mut body.stmts[outer].kind {
        f.schedule = Schedule::Grid { uniform: true };
        f.body = new_body;
    }
    shared
}

/// Splits `block` at `target` (found under `if`s and scopes): `before` is `block` with
/// `target` replaced by `replacement` and the target's own tail removed; `after` is that
/// tail, then, outwards, a copy of the tail of each enclosing block. `None` when `target` is
/// not in `block`.
fn split(
    body: &mut Body,
    block: &Block,
    target: StmtId,
    replacement: StmtId,
) -> Option<(Block, Block)> {
    for (i, &s) in block.iter().enumerate() {
        if s == target {
            let mut before = block[..i].to_vec();
            before.push(replacement);
            return Some((before, block[i + 1..].to_vec()));
        }
        let children: Vec<Block> = visit::child_blocks(&body.stmts[s].kind)
            .into_iter()
            .cloned()
            .collect();
        for (ci, child) in children.iter().enumerate() {
            if let Some((inner_before, inner_after)) = split(body, child, target, replacement) {
                if let Some(slot) = visit::child_blocks_mut(&mut body.stmts[s].kind)
                    .into_iter()
                    .nth(ci)
                {
                    *slot = inner_before;
                }
                let mut after = inner_after;
                let tail = block[i + 1..].to_vec();
                let mut map = irgl_ir::edit::LocalMap::new();
                after.extend(body.clone_block(&tail, &mut map));
                return Some((block.clone(), after));
            }
        }
    }
    None
}

/// The locals declared (by `Let`s and `ForAll`s) anywhere in `block`.
fn declared_in(body: &Body, block: &Block) -> HashSet<LocalId> {
    let mut out = HashSet::new();
    visit::walk_stmts(body, block, &mut |s| match &body.stmts[s].kind {
        StmtKind::Let { local, .. } | StmtKind::LetArray { local, .. } => {
            out.insert(*local);
        }
        StmtKind::ForAll(f) => {
            out.insert(f.var);
        }
        _ => {}
    });
    out
}

/// Turns the `Let` of `l` in the parts into an assignment (the declaration moves up).
fn undeclare(body: &mut Body, parts: &[Part], l: LocalId) {
    let mut found = None;
    for p in parts {
        if let Part::Phase(_, b) = p {
            visit::walk_stmts(body, b, &mut |s| {
                if matches!(&body.stmts[s].kind, StmtKind::Let { local, .. } if *local == l) {
                    found = Some(s);
                }
            });
        }
    }
    let Some(s) = found else {
        panic!("hoisted local {l} has no Let in the phases")
    };
    let StmtKind::Let { init, .. } = body.stmts[s].kind.clone() else {
        unreachable!()
    };
    let value = match init {
        Some(e) => e,
        None => {
            let ty = body.locals[l].ty;
            let lit = match ty {
                Ty::Bool => Literal::Bool(false),
                t if t.is_float() => Literal::Float(0.0),
                _ => Literal::Int(0),
            };
            body.add_expr(ExprKind::Literal(lit), ty, Span::NONE)
        }
    };
    body.stmts[s].kind = StmtKind::Assign {
        place: Place::Local(l),
        op: None,
        value,
    };
}

/// Bytes of shared memory one scheduled loop uses (`irgl-cuda`'s `sched` declares them).
fn shared_bytes(
    body: &Body,
    closure: &[LocalId],
    reduced: &[LocalId],
    var_ty: Ty,
    uses_var: bool,
    policies: &[Policy],
    block: u32,
) -> u32 {
    let size = |t: Ty| {
        if t.bits() == 64 {
            8
        } else if t == Ty::Bool {
            1
        } else {
            4
        }
    };
    if policies == [Policy::Serial] {
        return 0;
    }
    let mut bytes = 0;
    if policies.iter().any(|p| {
        matches!(
            p,
            Policy::Threadblock | Policy::Warp | Policy::VirtualWarp(_)
        )
    }) {
        bytes += 4 * block; // trip counts
    }
    if uses_var {
        bytes += size(var_ty) * block; // first values
    }
    for &l in closure {
        bytes += size(body.locals[l].ty) * block;
    }
    for &l in reduced {
        // Each owner's slot (bool as a 32-bit word, for the shared atomics).
        bytes += size(body.locals[l].ty).max(4) * block;
    }
    for p in policies {
        bytes += match p {
            Policy::Threadblock => 2 * 4 * (block / 32), // each warp's first waiting thread, two rounds
            Policy::Finegrained | Policy::EdgeBalanced => 8 * block + 8 * (block / 32), // offsets, scan
            _ => 0,
        };
    }
    bytes
}
