//! The dimensions of a program's optimization space, their product, and its distinct programs.

use std::collections::BTreeMap;

use irgl_analysis::{AsyncCandidates, OutlineTree, SettleCandidates, SplitCandidates};
use irgl_diagnostics::Diagnostic;
use irgl_driver::Source;
use irgl_ir::{Block, Body, Chunk, GridSize, Module, Policy, StmtKind, visit};
use irgl_opt::{AggregateLevel, BackoffRounds, KernelSet, OptConfig, OutlineConfig, ScheduleSpec};
use rayon::prelude::*;

/// The nested-loop schedules tried by default: the paper's combinations of the thread-block,
/// warp and fine-grained schedulers, the edge-balanced ones, and the grid one for hubs.
pub const DEFAULT_SCHEDULES: &[&str] = &[
    "serial",
    "tb",
    "wp",
    "fg",
    "tb+wp",
    "tb+fg",
    "wp+fg",
    "tb+wp+fg",
    "eb",
    "tb+wp+eb",
    "gd+tb+wp+fg",
];

/// What the user chooses about the space; the program's structure decides the rest.
#[derive(Clone, Debug)]
pub struct SpaceOptions {
    pub schedules: Vec<ScheduleSpec>,
    pub block_sizes: Vec<u32>,
    /// The grids of the control kernels tried with each outline choice (with and without asynchrony).
    pub grids: Vec<GridSize>,
    /// The launches given retry backoff (auto chunk) in the variants tried with it, where a
    /// kernel has a `Retry` (besides no backoff).
    pub backoff_rounds: Vec<BackoffRounds>,
}

impl Default for SpaceOptions {
    fn default() -> Self {
        SpaceOptions {
            schedules: DEFAULT_SCHEDULES
                .iter()
                .map(|s| ScheduleSpec::parse(s).expect("a valid default schedule"))
                .collect(),
            block_sizes: vec![OptConfig::default().block_size],
            grids: vec![GridSize::Resident, GridSize::PerSm(4), GridSize::PerSm(1)],
            backoff_rounds: vec![BackoffRounds::Retry, BackoffRounds::All],
        }
    }
}

/// How the rounds of the loops run: the nodes outlined and the grid of their control
/// kernels, whether the kernels that can run asynchronously do (`--async all`), the chunk
/// of retry backoff (`--retry-backoff all`), and whether rounds drop repeated pops
/// (`--drop-repeats all --drop-repeats-degree 0`: on the graph tuned on, whatever its degree).
#[derive(Clone, Debug, PartialEq)]
pub struct OutlineChoice {
    pub nodes: OutlineConfig,
    pub grid: GridSize,
    pub asynchronous: bool,
    /// With `asynchronous`: threads keep one pushed item as their next (`--async-local on`).
    pub async_local: bool,
    /// Retry backoff of these launches (the default chunk and threshold).
    pub backoff: Option<BackoffRounds>,
    /// Worklist kernels pop each node once per round, on every graph.
    pub drop: bool,
    /// Kernels over the nodes run over the parts of split nodes (`--split-nodes all`).
    pub split: bool,
    /// Outlined `Iterate Unordered` loops run without grid barriers (`--settle on`).
    pub settle: bool,
}

/// The values of each option that can change a program's code.
#[derive(Clone, Debug)]
pub struct Dimensions {
    pub schedules: Vec<ScheduleSpec>,
    pub aggregates: Vec<AggregateLevel>,
    pub outlines: Vec<OutlineChoice>,
    pub block_sizes: Vec<u32>,
    /// Whether `gd`'s idle blocks wait for late owners (`--grid-wait on`): both where a
    /// schedule of the space has `gd` and a loop can take it (the wait changes only the code
    /// of those variants, in outlined loops; the others keep their code and share a program).
    pub grid_waits: Vec<bool>,
    /// Why a dimension keeps only its default, one line each.
    pub fixed: Vec<String>,
}

impl Dimensions {
    /// The number of variants: the product of the dimensions.
    pub fn product(&self) -> usize {
        self.schedules.len()
            * self.aggregates.len()
            * self.outlines.len()
            * self.block_sizes.len()
            * self.grid_waits.len()
    }
}

/// One point of the space: a name in the style of `tests/option-sets.txt` and its options.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant {
    pub name: String,
    pub config: OptConfig,
}

/// Variants whose generated CUDA is the same (the header with the options aside).
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Indices into the variants, the first one the group's representative.
    pub members: Vec<usize>,
    /// The representative's generated CUDA, header included.
    pub cuda: String,
}

impl Group {
    /// The group's code without the header that names one variant's options: what identifies
    /// the program (a build cache's key).
    pub fn code(&self) -> &str {
        code_of(&self.cuda)
    }
}

/// The dimensions of `m`'s space under `opts`.
pub fn dimensions(m: &Module, opts: &SpaceOptions) -> Dimensions {
    let mut fixed = Vec::new();
    let nested = m
        .kernels
        .iter()
        .any(|(_, k)| has_nested_forall(&k.body, &k.body.block, 0));
    let schedules = if nested {
        opts.schedules.clone()
    } else {
        fixed.push("schedule: no kernel has a nested ForAll".to_string());
        vec![ScheduleSpec::serial()]
    };
    let aggregates = if !irgl_opt::aggregate_pushes::site_names(m).is_empty() {
        // Warp before thread and block, which fall back to it: the first of a group of
        // variants with the same code names the level that code has.
        vec![
            AggregateLevel::None,
            AggregateLevel::Warp,
            AggregateLevel::Thread,
            AggregateLevel::Block,
        ]
    } else {
        fixed.push(
            "aggregation: no kernel pushes to a worklist or adds to an integer global".to_string(),
        );
        vec![AggregateLevel::None]
    };
    let tree = OutlineTree::build(m);
    let nodes: Vec<String> = tree
        .nodes()
        .into_iter()
        .filter(|n| n.outlinable.is_ok())
        .map(|n| n.name())
        .collect();
    let mut outlines = vec![OutlineChoice {
        nodes: OutlineConfig::None,
        grid: GridSize::Resident,
        asynchronous: false,
        async_local: false,
        backoff: None,
        drop: false,
        split: false,
        settle: false,
    }];
    if nodes.is_empty() {
        fixed.push("outlining: no node of the outline tree can be outlined".to_string());
    } else {
        let mut choices = vec![OutlineConfig::Outer];
        // Each node alone too, when that is not what `outer` does.
        let outer: Vec<String> = tree.roots.iter().flat_map(outermost_outlinable).collect();
        for n in &nodes {
            if outer != [n.clone()] {
                choices.push(OutlineConfig::parse(n).expect("a node name parses"));
            }
        }
        for nodes in choices {
            for &grid in &opts.grids {
                outlines.push(OutlineChoice {
                    nodes: nodes.clone(),
                    grid,
                    asynchronous: false,
                    async_local: false,
                    backoff: None,
                    drop: false,
                    split: false,
                    settle: false,
                });
            }
        }
    }
    // Each of them again dropping repeated pops, where a kernel qualifies (asynchronous
    // kernels have no rounds, so not with asynchrony).
    let drops = m
        .kernels
        .iter()
        .any(|(k, _)| irgl_opt::drop_repeats::applies(m, k).is_ok());
    if drops {
        let rounds = outlines.clone();
        outlines.extend(rounds.iter().map(|o| OutlineChoice {
            drop: true,
            ..o.clone()
        }));
    } else {
        fixed.push(
            "repeated pops: no worklist kernel pops nodes that a second pass would leave as they are"
                .to_string(),
        );
    }
    // Each of them again with the asynchronous kernels, where some kernel can be one, with
    // and without continuations.
    let candidates = AsyncCandidates::build(m);
    if candidates.kernels.iter().any(|(_, v)| v.is_ok()) {
        let rounds: Vec<OutlineChoice> = outlines.iter().filter(|o| !o.drop).cloned().collect();
        for async_local in [false, true] {
            outlines.extend(rounds.iter().map(|o| OutlineChoice {
                asynchronous: true,
                async_local,
                ..o.clone()
            }));
        }
    } else {
        fixed.push("asynchrony: no worklist kernel can run asynchronously".to_string());
    }
    // Each of them again with retry backoff, where a kernel has a `Retry`.
    if irgl_opt::backoff_retries::candidates(m).is_empty() {
        fixed.push("retry backoff: no kernel has a `Retry`".to_string());
    } else {
        let rounds = outlines.clone();
        for &r in &opts.backoff_rounds {
            outlines.extend(rounds.iter().map(|o| OutlineChoice {
                backoff: Some(r),
                ..o.clone()
            }));
        }
    }
    // Each outlined one in rounds again without grid barriers, where a loop settles.
    let settles = SettleCandidates::build(m)
        .regions
        .iter()
        .any(|(_, _, v)| v.is_ok());
    if settles && !nodes.is_empty() {
        let barriered: Vec<OutlineChoice> = outlines
            .iter()
            .filter(|o| o.nodes != OutlineConfig::None && !o.asynchronous)
            .cloned()
            .collect();
        outlines.extend(barriered.iter().map(|o| OutlineChoice {
            settle: true,
            ..o.clone()
        }));
    } else {
        fixed.push(
            "rounds without barriers: no outlinable `Iterate Unordered` loop whose items settle"
                .to_string(),
        );
    }
    // Each of them again over the parts of split nodes, where a kernel over the nodes can be.
    if SplitCandidates::build(m)
        .kernels
        .iter()
        .any(|(_, v)| v.is_ok())
    {
        let whole = outlines.clone();
        outlines.extend(whole.iter().map(|o| OutlineChoice {
            split: true,
            ..o.clone()
        }));
    } else {
        fixed.push(
            "node splitting: no kernel over the nodes can run over the parts of split nodes"
                .to_string(),
        );
    }
    // Idle blocks waiting for a late owner under gd, where a loop takes gd and a loop is
    // outlined (the wait needs a cooperative launch).
    let grid_waits = if !schedules
        .iter()
        .any(|s| s.policies().contains(&Policy::Grid))
    {
        fixed.push("grid wait: no schedule of the space has gd".to_string());
        vec![false]
    } else if !takes_gd(m) {
        fixed.push("grid wait: no nested loop can hand items to the grid (gd)".to_string());
        vec![false]
    } else if nodes.is_empty() {
        fixed.push(
            "grid wait: no loop is outlined, and the wait needs a control kernel's grid"
                .to_string(),
        );
        vec![false]
    } else {
        vec![false, true]
    };
    Dimensions {
        schedules,
        aggregates,
        outlines,
        block_sizes: opts.block_sizes.clone(),
        grid_waits,
        fixed,
    }
}

/// Whether a nested loop of `m` hands items to the grid under `gd+tb+wp+fg`.
fn takes_gd(m: &Module) -> bool {
    let mut trial = m.clone();
    let mut config = OptConfig::default();
    config.nested.default = ScheduleSpec::parse("gd+tb+wp+fg").expect("a valid schedule");
    irgl_opt::schedule_nested_loops(&mut trial, &config).is_ok()
        && trial
            .kernels
            .iter()
            .any(|(_, k)| k.hands_items_to_the_grid())
}

/// The names of the outermost outlinable nodes under `n` (what `--outline outer` picks).
fn outermost_outlinable(n: &irgl_analysis::OutlineNode) -> Vec<String> {
    if n.outlinable.is_ok() {
        vec![n.name()]
    } else {
        n.children.iter().flat_map(outermost_outlinable).collect()
    }
}

/// Whether a `ForAll` in `block` lies inside another (`depth` enclosing `ForAll`s so far).
fn has_nested_forall(body: &Body, block: &Block, depth: usize) -> bool {
    block.iter().any(|&s| {
        let kind = &body.stmts[s].kind;
        let inner = match kind {
            StmtKind::ForAll(_) if depth > 0 => return true,
            StmtKind::ForAll(_) => depth + 1,
            _ => depth,
        };
        visit::child_blocks(kind)
            .into_iter()
            .any(|b| has_nested_forall(body, b, inner))
    })
}

/// The product of the dimensions, the baseline (serial, no aggregation, no outlining, the
/// first block size) first.
pub fn variants(d: &Dimensions) -> Vec<Variant> {
    let mut out = Vec::with_capacity(d.product());
    for &grid_wait in &d.grid_waits {
        for &block_size in &d.block_sizes {
            for outline in &d.outlines {
                for &aggregate in &d.aggregates {
                    for schedule in &d.schedules {
                        let mut config = OptConfig {
                            block_size,
                            ..OptConfig::default()
                        };
                        config.nested.default = schedule.clone();
                        config.aggregate.default = aggregate;
                        config.outline = outline.nodes.clone();
                        config.outline_grid = outline.grid;
                        if outline.asynchronous {
                            config.asynchronous = KernelSet::All;
                            config.async_local = outline.async_local;
                        }
                        if let Some(rounds) = outline.backoff {
                            config.retry_backoff.kernels = KernelSet::All;
                            config.retry_backoff.rounds = rounds;
                        }
                        if outline.drop {
                            config.drop_repeats = KernelSet::All;
                            config.drop_repeats_degree = 0;
                        }
                        if outline.split {
                            config.split_nodes = KernelSet::All;
                        }
                        config.settle = outline.settle;
                        config.grid_wait = grid_wait;
                        out.push(Variant {
                            name: name_of(&config),
                            config,
                        });
                    }
                }
            }
        }
    }
    out
}

/// `baseline`, or the schedule, `agg-LEVEL`, `async` or `async-local`, `backoff` (then `-all`
/// for every launch, `-cN` for a chunk of N items), `drop` (repeated pops dropped), `split`
/// (kernels over the nodes run over the parts of split nodes), `settle` (outlined `Iterate
/// Unordered` loops without grid barriers), `grid-wait`
/// (gd's idle blocks wait for late owners), `outline` (`outline-r1` for a named node, then `-GRID`
/// for a grid other than the resident one) joined by `+`, and `-bN` for a block size other
/// than the default.
fn name_of(c: &OptConfig) -> String {
    let mut parts = Vec::new();
    if c.nested.default != ScheduleSpec::serial() {
        parts.push(c.nested.default.to_string());
    }
    if c.aggregate.default != AggregateLevel::None {
        parts.push(format!("agg-{}", c.aggregate.default.name()));
    }
    if c.asynchronous != KernelSet::None {
        parts.push(
            if c.async_local {
                "async-local"
            } else {
                "async"
            }
            .to_string(),
        );
    }
    let backoff = &c.retry_backoff;
    if backoff.kernels != KernelSet::None {
        let mut part = "backoff".to_string();
        if backoff.rounds == BackoffRounds::All {
            part.push_str("-all");
        }
        if let Chunk::Items(n) = backoff.chunk {
            part.push_str(&format!("-c{n}"));
        }
        parts.push(part);
    }
    if c.drop_repeats != KernelSet::None {
        parts.push("drop".to_string());
    }
    if c.split_nodes != KernelSet::None {
        parts.push("split".to_string());
    }
    if c.settle {
        parts.push("settle".to_string());
    }
    if c.grid_wait {
        parts.push("grid-wait".to_string());
    }
    match &c.outline {
        OutlineConfig::None => {}
        OutlineConfig::Outer => parts.push("outline".to_string()),
        nodes => parts.push(format!("outline-{nodes}")),
    }
    if c.outline != OutlineConfig::None && c.outline_grid != GridSize::Resident {
        let last = parts.last_mut().expect("the outline part");
        last.push_str(&format!("-{}", c.outline_grid));
    }
    let mut name = if parts.is_empty() {
        "baseline".to_string()
    } else {
        parts.join("+")
    };
    if c.block_size != OptConfig::default().block_size {
        name.push_str(&format!("-b{}", c.block_size));
    }
    name
}

/// Compiles every variant and groups those that generate the same CUDA, in the order of
/// their first member. A variant that does not compile is an error, with its name.
pub fn distinct(
    source: Source<'_>,
    variants: &[Variant],
) -> Result<Vec<Group>, (String, Vec<Diagnostic>)> {
    // Every variant compiled on every core (hundreds for some programs), then grouped in order.
    let compiled: Vec<Result<String, (String, Vec<Diagnostic>)>> = variants
        .par_iter()
        .map(|v| {
            irgl_driver::compile(source, &v.config)
                .map(|c| c.cuda)
                .map_err(|d| (v.name.clone(), d))
        })
        .collect();
    let mut by_code: BTreeMap<String, usize> = BTreeMap::new();
    let mut groups: Vec<Group> = Vec::new();
    for (i, cuda) in compiled.into_iter().enumerate() {
        let cuda = cuda?;
        let code = code_of(&cuda).to_string();
        match by_code.get(&code) {
            Some(&g) => groups[g].members.push(i),
            None => {
                by_code.insert(code, groups.len());
                groups.push(Group {
                    members: vec![i],
                    cuda,
                });
            }
        }
    }
    Ok(groups)
}

/// The generated file without its leading comment lines (which name the options): what
/// identifies the program.
pub fn code_of(cuda: &str) -> &str {
    let mut rest = cuda;
    while rest.starts_with("//") {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_option_sets() {
        let mut c = OptConfig::default();
        assert_eq!(name_of(&c), "baseline");
        c.aggregate.default = AggregateLevel::Warp;
        assert_eq!(name_of(&c), "agg-warp");
        c.nested.default = ScheduleSpec::parse("tb+fg").unwrap();
        c.outline = OutlineConfig::Outer;
        assert_eq!(name_of(&c), "tb+fg+agg-warp+outline");
        c.outline = OutlineConfig::parse("r1").unwrap();
        c.block_size = 128;
        assert_eq!(name_of(&c), "tb+fg+agg-warp+outline-r1-b128");
        c.retry_backoff.kernels = KernelSet::All;
        assert_eq!(name_of(&c), "tb+fg+agg-warp+backoff+outline-r1-b128");
        c.retry_backoff.chunk = Chunk::Items(16);
        c.retry_backoff.rounds = BackoffRounds::All;
        assert_eq!(
            name_of(&c),
            "tb+fg+agg-warp+backoff-all-c16+outline-r1-b128"
        );
    }

    #[test]
    fn the_header_is_not_part_of_the_code() {
        assert_eq!(code_of("// a\n// b\n#include x\n"), "#include x\n");
        assert_eq!(code_of("// only"), "");
    }
}
