//! `choose_options`: the option set of an optimization level, chosen for one program from
//! what its analyses say about it (never from its name).
//!
//! **Why.** The passes pay on some programs and graphs and cost on others; a user who does not
//! know the flags should still get a fast program. `-O0` is the IrGL paper's baseline (every
//! pass off, [`OptConfig::default`]); `-O1` adds what pays inside kernels whatever the graph;
//! `-O2`, the default, adds what pays across rounds.
//!
//! **What each level chooses**, per kernel, loop and site (measurements in
//! docs/optimizations.md, *Optimization levels*):
//! - `-O1`, nested loops: a nested `ForAll` over a node's edges, or over a range whose length is
//!   known only at run time, gets `tb+wp+fg` (hubs to the block, medium items to a warp, the
//!   rest shared evenly by fine-grained); one over a constant range of at most 32 iterations
//!   stays serial (too short to share). A loop the scheduler cannot take keeps its serial
//!   schedule with the reason in `irglc emit ir`, as under `--nested`.
//! - `-O1`, additions: an `atomicAdd` of a value that is not constant to a 64-bit integer
//!   global is aggregated (`block` where its old value is unused: one atomic per block and
//!   trip or loop; `warp` where it is used). nvcc aggregates 32-bit and constant additions by
//!   itself, and pushes (one `atomicAdd` per lane on the worklist's count), so those stay.
//! - `-O2`, items for the whole grid: where a nested loop can take `gd` (it ends its item and
//!   reduces nothing, in a kernel without a grid barrier or asynchrony), the schedule is
//!   `gd+tb+wp+fg`: an item longer than a block's share of the graph's edges goes to the whole
//!   grid. Such a kernel also gets a version without `gd`, launched on graphs where no node is
//!   that long, so that those graphs run the code of `tb+wp+fg`, registers and all.
//! - `-O2`, outlining: the outermost outlinable `Iterate`s, `Pipe`s and host loops run as
//!   control kernels (`--outline outer`). Their grid: every resident block when a kernel
//!   that `main` repeats sweeps all nodes or triangles (each round is as large as the graph);
//!   otherwise (its rounds pop a worklist or run over a slice) 4 blocks per multiprocessor,
//!   whose barrier costs about half that of every resident block: a round may hold a few
//!   items (roads, paths) or most of the graph (social, RMAT), and no statistic taken at load
//!   tells which (measured on one H200 against the grid chosen by the average degree: within
//!   1.04x-1.12x of the best of four grids in geometric mean where the degree's choice was
//!   1.10x-1.62x; docs/optimizations.md, *Four blocks per multiprocessor*).
//! - `-O2`, the launch grid: one block per `BLOCK` items (`--grid items`) when a kernel
//!   retries (conflicting items hold a striding block back; the hardware hands fresh blocks to
//!   free multiprocessors).
//! - `-O2`, repeated pops: every worklist kernel that `drop_repeats` applies to (its items
//!   are nodes, and a second pass over one does nothing more) pops each node once per round
//!   on graphs of mean degree 12 or more (`--drop-repeats-degree`), where a node is pushed
//!   by many neighbours in a round and walks many edges again; on sparser graphs the test
//!   costs more than the few repeats.
//! - `-O2`, node splitting: every kernel over the nodes that `split_nodes` applies to runs
//!   over the parts of split nodes (`--split-nodes all`): on graphs with nodes far above the
//!   typical degree (the degree histogram's tallest bin), their edges are cut into parts
//!   spread over the grid; on others nothing is split and an item pays one comparison.
//!   Measured on one H200 over a star, a Kronecker, a web, a social and a road graph: 0.81x
//!   to 0.90x of `-O2` without it in geometric mean for pr, sssp-bf, mst and traverse, 1.04x
//!   for color (docs/optimizations.md, *`split_nodes`*).
//! - `-O2`, rounds without barriers: every outlined `Iterate Unordered While Any` that
//!   `irgl_analysis::SettleCandidates` accepts (an item that reports nothing never reports
//!   again) runs with each block repeating its share until none of its items reports
//!   (`--settle on`, `settle_rounds`).
//! - Not chosen at any level: asynchronous kernels, retry backoff and Pipe unrolling (each is
//!   faster on some graphs and slower on others; `irglc tune` finds them per graph), and the
//!   switch between rounds and asynchrony (`--async-switch`: measured slower than rounds in
//!   geometric mean, `switch_asynchrony`'s header).
//!
//! **What it assumes.** `m` is the program as lowered (before any pass). Flags given with a
//! level override its choices (`OptConfig::apply_args`).

use std::fmt;

use irgl_analysis::OutlineTree;
use irgl_ir::*;

use crate::aggregate_pushes::{AddSite, add_sites};
use crate::config::{
    AdaptConfig, AggregateLevel, KernelSet, OptConfig, OutlineConfig, ScheduleSpec,
};
use crate::schedule_nested_loops::{foralls, schedule_nested_loops};

/// An optimization level (`-O0`, `-O1`, `-O2`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum OptLevel {
    /// The baseline: every pass off.
    O0,
    /// The kernels' own optimizations: nested scheduling and aggregation of additions.
    O1,
    /// `O1`, and the orchestration's: outlining and the launch grid.
    #[default]
    O2,
}

impl OptLevel {
    /// `0`, `1` or `2`.
    pub fn parse(s: &str) -> Result<OptLevel, String> {
        match s {
            "0" => Ok(OptLevel::O0),
            "1" => Ok(OptLevel::O1),
            "2" => Ok(OptLevel::O2),
            other => Err(format!("`{other}`: an optimization level is 0, 1 or 2")),
        }
    }
}

impl fmt::Display for OptLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = match self {
            OptLevel::O0 => 0,
            OptLevel::O1 => 1,
            OptLevel::O2 => 2,
        };
        write!(f, "-O{n}")
    }
}

/// One choice of a level: the flag that gives it, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The flag and its value, as on the command line (`--nested-at relax.loop1=serial`).
    pub flag: String,
    pub why: String,
}

/// What a level chose for one program.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelChoices {
    pub level: OptLevel,
    pub config: OptConfig,
    /// In the order of the flags; what the level leaves at the baseline is not listed.
    pub choices: Vec<Choice>,
}

impl LevelChoices {
    /// One line per choice, `FLAG: WHY`, under a line naming the level.
    pub fn render(&self) -> String {
        let mut out = format!("options of {}", self.level);
        if self.choices.is_empty() {
            out.push_str(": the baseline\n");
            return out;
        }
        out.push_str(" (a flag given beside the level overrides its choice):\n");
        for c in &self.choices {
            out.push_str(&format!("  {}: {}\n", c.flag, c.why));
        }
        out
    }
}

/// The option set that `level` chooses for `m` (as lowered), with the reasons.
pub fn choose_options(m: &Module, level: OptLevel) -> LevelChoices {
    let mut config = OptConfig::default();
    let mut choices = Vec::new();
    if level >= OptLevel::O1 {
        choose_schedules(m, &mut config, &mut choices);
        choose_additions(m, &mut config, &mut choices);
    }
    if level >= OptLevel::O2 {
        choose_grid_items(m, &mut config, &mut choices);
        choose_outlining(m, &mut config, &mut choices);
        choose_grid(m, &mut config, &mut choices);
        choose_drop_repeats(m, &mut config, &mut choices);
        choose_split_nodes(m, &mut config, &mut choices);
        choose_settle(m, &mut config, &mut choices);
    }
    LevelChoices {
        level,
        config,
        choices,
    }
}

/// Repeated pops: dropped on dense graphs by every kernel it applies to.
fn choose_drop_repeats(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let kernels: Vec<&str> = m
        .kernels
        .iter()
        .filter(|&(k, _)| crate::drop_repeats::applies(m, k).is_ok())
        .map(|(_, kernel)| kernel.name.as_str())
        .collect();
    if kernels.is_empty() {
        return;
    }
    config.drop_repeats = KernelSet::All;
    choices.push(Choice {
        flag: "--drop-repeats all".to_string(),
        why: format!(
            "{} pop{} nodes and a second pass over one does nothing more: each node runs once per round on graphs of mean degree {} or more (--drop-repeats-degree), where a node is pushed by many neighbours in a round",
            kernels.join(", "),
            if kernels.len() == 1 { "s" } else { "" },
            config.drop_repeats_degree
        ),
    });
}

/// Node splitting for every kernel over the nodes that the analysis accepts.
fn choose_split_nodes(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let candidates = irgl_analysis::SplitCandidates::build(m);
    let kernels: Vec<&str> = candidates
        .kernels
        .iter()
        .filter(|(_, v)| v.is_ok())
        .map(|(k, _)| m.kernels[*k].name.as_str())
        .collect();
    if kernels.is_empty() {
        return;
    }
    config.split_nodes = KernelSet::All;
    choices.push(Choice {
        flag: "--split-nodes all".to_string(),
        why: format!(
            "{} run{} the same over parts of a node's edges: nodes above a degree found from the graph's degree histogram when the program loads it are cut into parts spread over the grid (none on graphs without such nodes)",
            kernels.join(", "),
            if kernels.len() == 1 { "s" } else { "" },
        ),
    });
}

/// Rounds without barriers for every outlined `Iterate Unordered` loop the analysis accepts.
fn choose_settle(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let mut trial = config.clone();
    trial.settle = true;
    let settled = crate::settle_rounds::settled_regions(m, &trial);
    if settled.is_empty() {
        return;
    }
    config.settle = true;
    let names: Vec<String> = settled
        .iter()
        .map(|(r, k)| format!("{r} iterate {}", m.kernels[*k].name))
        .collect();
    choices.push(Choice {
        flag: "--settle on".to_string(),
        why: format!(
            "{} {} `Unordered`, and an item that reports nothing never reports again: each block repeats its share until none of its items reports, with no grid barrier between rounds",
            names.join(", "),
            if names.len() == 1 { "is" } else { "are" }
        ),
    });
}

/// The blocks per multiprocessor of a control kernel whose rounds pop a worklist or run
/// over a slice (`choose_outlining`).
const FRONTIER_GRID_PER_SM: u32 = 4;

/// A nested loop too short to share: a constant range of at most this many iterations.
const SHORT_LOOP: u64 = 32;

/// Nested loops: `tb+wp+fg` by default, serial for short constant ranges.
fn choose_schedules(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let shared = ScheduleSpec::parse("tb+wp+fg").expect("a valid schedule");
    let mut any = false;
    let mut serial = Vec::new();
    for (_, kernel) in m.kernels.iter() {
        let body = &kernel.body;
        for (s, id, depth) in foralls(body) {
            if depth == 0 {
                continue;
            }
            let StmtKind::ForAll(f) = &body.stmts[s].kind else {
                unreachable!("foralls lists ForAlls")
            };
            let short = match f.space {
                Space::Range { lo, hi } => match (constant(m, body, lo), constant(m, body, hi)) {
                    (Some(lo), Some(hi)) => {
                        (hi.saturating_sub(lo) <= SHORT_LOOP).then_some(hi.saturating_sub(lo))
                    }
                    _ => None,
                },
                _ => None,
            };
            match short {
                Some(trips) => serial.push((format!("{}.{id}", kernel.name), trips)),
                None => any = true,
            }
        }
    }
    if any {
        config.nested.default = shared.clone();
        choices.push(Choice {
            flag: format!("--nested {shared}"),
            why: "nested ForAlls over a node's edges or a range known at run time: items of a block's size or more to the block, of a warp's to a warp, the rest shared by fine-grained".to_string(),
        });
        for (at, trips) in serial {
            choices.push(Choice {
                flag: format!("--nested-at {at}=serial"),
                why: format!("a constant range of {trips} iterations: too short to share"),
            });
            config.nested.overrides.insert(at, ScheduleSpec::serial());
        }
        let versions = serial_versions(m, config);
        if !versions.is_empty() {
            config.adapt = AdaptConfig::on();
            let rule = config.adapt.serial_rule().expect("adaptation is on");
            choices.push(Choice {
                flag: "--adapt on".to_string(),
                why: format!(
                    "{} also get a version with serial nested loops, run on graphs of {rule}: there the schedulers' inspection and barriers cost more than the imbalance they remove",
                    versions.join(", ")
                ),
            });
        }
    }
}

/// Items for the whole grid: `gd` ahead of the shared schedule, where some nested loop can
/// take it (it ends its item and reduces nothing, in a kernel without a grid barrier). Such a
/// kernel gets a version without `gd`, which the program launches on graphs where no node
/// reaches the grid's threshold: there nothing changes, not even the registers.
fn choose_grid_items(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let shared = ScheduleSpec::parse("tb+wp+fg").expect("a valid schedule");
    if config.nested.default != shared || m.graph.mesh {
        return;
    }
    let grid = ScheduleSpec::parse("gd+tb+wp+fg").expect("a valid schedule");
    let mut trial = m.clone();
    let mut with_grid = config.clone();
    with_grid.nested.default = grid.clone();
    if schedule_nested_loops(&mut trial, &with_grid).is_err() {
        return;
    }
    let kernels: Vec<String> = trial
        .kernels
        .iter()
        .filter(|(_, k)| k.no_grid_version.is_some())
        .map(|(_, k)| format!("`{}`", k.name))
        .collect();
    if kernels.is_empty() {
        return;
    }
    config.nested.default = grid.clone();
    let why = format!(
        "; and first gd: in {}, an item longer than a block's share of the graph's edges (a hub) goes to the whole grid, and a version without gd runs on graphs without such a node (loops that reduce, or that statements of the item follow, keep the rest)",
        kernels.join(", ")
    );
    let shared_flag = format!("--nested {shared}");
    match choices.iter_mut().find(|c| c.flag == shared_flag) {
        Some(c) => {
            c.flag = format!("--nested {grid}");
            c.why.push_str(&why);
        }
        None => choices.push(Choice {
            flag: format!("--nested {grid}"),
            why: why.trim_start_matches("; and first ").to_string(),
        }),
    }
}

/// The kernels that get a serial version when `config` (with its schedules) turns
/// adaptation on: those `schedule_nested_loops` finds it pays for.
fn serial_versions(m: &Module, config: &OptConfig) -> Vec<String> {
    if m.graph.mesh {
        return Vec::new();
    }
    let mut trial = m.clone();
    let mut config = config.clone();
    config.adapt = AdaptConfig::on();
    trial.launch.serial_rule = config.adapt.serial_rule();
    if schedule_nested_loops(&mut trial, &config).is_err() {
        return Vec::new();
    }
    trial
        .kernels
        .iter()
        .filter(|(_, k)| k.serial_version.is_some())
        .map(|(_, k)| format!("`{}`", k.name))
        .collect()
}

/// The value of an integer literal or constant.
fn constant(m: &Module, body: &Body, e: ExprId) -> Option<u64> {
    match &body.exprs[e].kind {
        ExprKind::Literal(Literal::Int(v)) => Some(*v),
        ExprKind::Const(c) => match m.consts[c.index()].value {
            Value::U32(v) => Some(u64::from(v)),
            Value::U64(v) => Some(v),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Additions of values that are not constant to 64-bit integer globals: aggregated.
fn choose_additions(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let globals: Vec<Ty> = m.globals.iter().map(|g| g.ty).collect();
    for (_, kernel) in m.kernels.iter() {
        let body = &kernel.body;
        for (i, (site, global, value)) in add_sites(&globals, body).into_iter().enumerate() {
            let wide = matches!(globals[global.index()], Ty::U64 | Ty::I64);
            if !wide || constant(m, body, value).is_some() {
                continue;
            }
            let name = &m.globals[global.index()].name;
            let (level, why) = match site {
                AddSite::Unused(_) => (
                    AggregateLevel::Block,
                    format!(
                        "adds a value that varies to the 64-bit `{name}`: one atomic per block (nvcc combines only 32-bit and constant additions itself)"
                    ),
                ),
                AddSite::Used(_) => (
                    AggregateLevel::Warp,
                    format!(
                        "adds a value that varies to the 64-bit `{name}` and uses the old value: one atomic per warp"
                    ),
                ),
            };
            let at = format!("{}.add{i}", kernel.name);
            choices.push(Choice {
                flag: format!("--aggregate-at {at}={}", level.name()),
                why,
            });
            config.aggregate.overrides.insert(at, level);
        }
    }
}

/// The outermost outlinable nodes of the outline tree, and their grid.
fn choose_outlining(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let tree = OutlineTree::build(m);
    let mut outer = Vec::new();
    let mut stack: Vec<&irgl_analysis::OutlineNode> = tree.roots.iter().collect();
    while let Some(node) = stack.pop() {
        if node.outlinable.is_ok() {
            outer.push(node);
        } else {
            stack.extend(&node.children);
        }
    }
    if outer.is_empty() {
        return;
    }
    outer.sort_by_key(|n| n.name());
    let names: Vec<String> = outer.iter().map(|n| n.name()).collect();
    config.outline = OutlineConfig::Outer;
    choices.push(Choice {
        flag: "--outline outer".to_string(),
        why: format!(
            "{} {} run as control kernels: a grid barrier between rounds instead of a launch and a copy",
            if names.len() == 1 { "loop" } else { "loops" },
            names.join(", ")
        ),
    });
    // A kernel that `main` launches once (outside every loop) does not size the rounds.
    let mut sweeps = None;
    for (k, repeated) in launches(&m.host, &m.host.block, false) {
        let facts = m.kernels[k].facts();
        if repeated && (facts.over_nodes || facts.over_split || facts.over_triangles) {
            sweeps.get_or_insert(m.kernels[k].name.clone());
        }
    }
    match sweeps {
        Some(kernel) => choices.push(Choice {
            flag: "--outline-grid resident".to_string(),
            why: format!(
                "`{kernel}` sweeps every node (or triangle) each round: every resident block shares the sweep"
            ),
        }),
        None => {
            config.outline_grid = GridSize::PerSm(FRONTIER_GRID_PER_SM);
            choices.push(Choice {
                flag: format!("--outline-grid {FRONTIER_GRID_PER_SM}sm"),
                why: format!(
                    "no kernel the loops repeat sweeps every node: a round's work is its worklist or a slice, which may be a few items (roads, paths) or most of the graph (social, RMAT), so {FRONTIER_GRID_PER_SM} blocks per multiprocessor: a barrier about half the cost of every resident block's, and the threads for a large round"
                ),
            });
        }
    }
}

/// The kernels that `block` launches, each with whether a loop repeats the launch.
fn launches(host: &Body, block: &Block, repeated: bool) -> Vec<(KernelId, bool)> {
    let mut out = Vec::new();
    for &s in block {
        let kind = &host.stmts[s].kind;
        if let StmtKind::Launch(l) = kind {
            out.push((l.kernel, repeated));
        }
        let inner = repeated || matches!(kind, StmtKind::Loop(_));
        for b in visit::child_blocks(kind) {
            out.extend(launches(host, b, inner));
        }
    }
    out
}

/// One block per `BLOCK` items where a kernel retries (`Retry`: a conflict; `Respawn` is a
/// continuation).
fn choose_grid(m: &Module, config: &mut OptConfig, choices: &mut Vec<Choice>) {
    let conflicts = |k: &Kernel| {
        visit::block_any(
            &k.body,
            &k.body.block,
            &|s| matches!(s, StmtKind::Push(p) if p.kind == PushKind::Retry),
        )
    };
    let retries: Vec<&str> = m
        .kernels
        .iter()
        .filter(|(_, k)| conflicts(k))
        .map(|(_, k)| k.name.as_str())
        .collect();
    if retries.is_empty() {
        return;
    }
    config.grid = LaunchGrid::Items;
    choices.push(Choice {
        flag: "--grid items".to_string(),
        why: format!(
            "{} {}: a block whose items conflict holds its multiprocessor; with a block per {} items the hardware hands the others on",
            retries.join(", "),
            if retries.len() == 1 { "retries" } else { "retry" },
            config.block_size
        ),
    });
}
