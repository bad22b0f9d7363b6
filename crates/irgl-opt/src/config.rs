//! `OptConfig`: the one value that says which optimizations run and how. The CLI builds it
//! from flags (or a JSON file), the snapshot tests from named option sets, the autotuner by
//! enumeration; the generated file's header carries its canonical text, which is also the
//! command line that rebuilds the file.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use irgl_ir::{Chunk, GridSize, LaunchGrid, Policy};
use serde::{Deserialize, Serialize};

/// Every option of the middle end. `Default` is the unoptimized baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptConfig {
    /// Threads per block of every kernel: a multiple of 32 in 32..=1024.
    pub block_size: u32,
    /// The grid of host launches of kernels whose outer loop is plain (grid-stride).
    #[serde(with = "as_text")]
    pub grid: LaunchGrid,
    /// Nested `ForAll` scheduling (`schedule_nested_loops`).
    pub nested: NestedConfig,
    /// Iteration outlining: which `Iterate`/`Pipe` regions become device control kernels.
    pub outline: OutlineConfig,
    /// The grid of the control kernels (with `outline` only).
    #[serde(with = "as_text")]
    pub outline_grid: GridSize,
    /// Cooperative conversion: the aggregation level of worklist pushes.
    pub aggregate: AggregateConfig,
    /// Asynchronous worklist kernels: which run as one launch over a shared task queue.
    #[serde(rename = "async")]
    pub asynchronous: KernelSet,
    /// The grid of asynchronous kernels launched from the host (with `async` only).
    #[serde(with = "as_text")]
    pub async_grid: GridSize,
    /// Asynchronous kernels keep one pushed item per thread as its next (with `async` only).
    pub async_local: bool,
    /// Copies of the body of every repeating `Pipe` per trip of its loop (1: no unrolling).
    pub pipe_unroll: u32,
    /// Retry backoff: how the rounds over conflict-heavy retry worklists hand out items.
    pub retry_backoff: BackoffConfig,
    /// Worklist kernels that pop each node at most once per round (`drop_repeats`).
    pub drop_repeats: KernelSet,
    /// ... on graphs of at least this mean degree (edges per node; 0: every graph); on
    /// sparser ones every copy runs (with `drop_repeats` only).
    pub drop_repeats_degree: u32,
    /// Kernels over the nodes that run over the parts of split nodes instead (`split_nodes`):
    /// a node of more out-edges than a degree found when the program loads its graph is cut
    /// into parts of at most that many edges, each part an item of the outer loop.
    pub split_nodes: KernelSet,
    /// Check every index of a property element in kernels (off: only `main`'s and local
    /// arrays' indices are checked); a violation ends the program naming the kernel, the
    /// property and the index.
    pub check_indices: bool,
    /// 64-bit edge indices, for graphs of more than 2^32 - 1 edges (`irglc run` and the
    /// tools turn it on where a graph needs it); node ids stay 32-bit.
    pub wide_edges: bool,
    /// Run-time adaptation: versions of kernels that the generated program chooses between
    /// from the graph it loads.
    pub adapt: AdaptConfig,
    /// An outlined worklist loop that may run in rounds or asynchronously gets both, and
    /// switches between them as it runs by what each costs (`switch_asynchrony`).
    pub async_switch: bool,
    /// ... measuring each way over epochs of at least this many microseconds (with
    /// `async_switch` only; the generated program's `--switch-epoch` overrides it).
    pub switch_epoch_us: u32,
    /// `gd`'s blocks wait for owners that publish late, in a control kernel's call whose
    /// launch leaves nearly every block without an item (`irgl::grid_wait_for_owners`).
    pub grid_wait: bool,
    /// `Iterate Unordered While Any` loops that are outlined run their rounds without grid
    /// barriers, each block repeating its share until none of its items reports, where
    /// `irgl_analysis::settle` accepts them (`settle_rounds`).
    pub settle: bool,
    /// Build the program to run partitioned over several GPUs (`--gpus N` of the program),
    /// where `irgl_analysis::partition` accepts it. Outlining and asynchronous kernels do not
    /// apply: the GPUs exchange node properties from the host between rounds.
    pub multi_gpu: bool,
}

impl Default for OptConfig {
    fn default() -> Self {
        OptConfig {
            block_size: 256,
            grid: LaunchGrid::Resident,
            nested: NestedConfig::default(),
            outline: OutlineConfig::None,
            outline_grid: GridSize::Resident,
            aggregate: AggregateConfig::default(),
            asynchronous: KernelSet::None,
            async_grid: GridSize::PerSm(1),
            async_local: false,
            pipe_unroll: 1,
            retry_backoff: BackoffConfig::default(),
            drop_repeats: KernelSet::None,
            drop_repeats_degree: DROP_REPEATS_DEGREE,
            split_nodes: KernelSet::None,
            check_indices: false,
            wide_edges: false,
            adapt: AdaptConfig::default(),
            async_switch: false,
            switch_epoch_us: irgl_ir::SWITCH_EPOCH_US,
            grid_wait: false,
            settle: false,
            multi_gpu: false,
        }
    }
}

/// The default of `OptConfig::drop_repeats_degree`: on graphs of a lower mean degree every
/// copy runs (docs/optimizations.md, *drop_repeats*: there a node has few neighbours to be
/// pushed by in one round and few edges to walk again, and the test costs more than it
/// saves).
pub const DROP_REPEATS_DEGREE: u32 = 12;

/// Run-time adaptation (`--adapt`): every kernel whose nested loops are scheduled also gets
/// a version with serial nested loops, which the program launches instead on graphs of mean
/// degree below `serial_below_degree` whose warp efficiency (`irglc graph info`) is at least
/// `serial_efficiency` percent ([`irgl_ir::SerialRule`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdaptConfig {
    pub on: bool,
    pub serial_below_degree: u32,
    pub serial_efficiency: u32,
}

impl Default for AdaptConfig {
    fn default() -> Self {
        AdaptConfig {
            on: false,
            serial_below_degree: irgl_ir::SerialRule::DEFAULT.below_degree,
            serial_efficiency: irgl_ir::SerialRule::DEFAULT.efficiency,
        }
    }
}

impl AdaptConfig {
    /// On, with the default thresholds.
    pub fn on() -> Self {
        AdaptConfig {
            on: true,
            ..AdaptConfig::default()
        }
    }

    /// The rule of the serial versions, when on.
    pub fn serial_rule(&self) -> Option<irgl_ir::SerialRule> {
        self.on.then_some(irgl_ir::SerialRule {
            below_degree: self.serial_below_degree,
            efficiency: self.serial_efficiency,
        })
    }
}

/// How nested `ForAll`s are scheduled: a default for every nested loop, and overrides for
/// single loops, addressed as `KERNEL.loopN` (the loop's number in `irglc emit ir`) or
/// `KERNEL.VAR` (the name of the loop's variable, when it names one nested loop).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NestedConfig {
    pub default: ScheduleSpec,
    pub overrides: BTreeMap<String, ScheduleSpec>,
    /// The smallest trip count the thread-block scheduler takes (default: the block size).
    pub tb_threshold: Option<u32>,
    /// The smallest trip count the warp scheduler takes.
    pub warp_threshold: u32,
}

impl Default for NestedConfig {
    fn default() -> Self {
        NestedConfig {
            default: ScheduleSpec::serial(),
            overrides: BTreeMap::new(),
            tb_threshold: None,
            warp_threshold: 32,
        }
    }
}

/// A combination of scheduling policies, written `tb+wp+fg` (any order; `serial` alone is
/// the baseline). Kept in descending order of the policies' preferred sizes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ScheduleSpec(Vec<Policy>);

impl ScheduleSpec {
    pub fn serial() -> Self {
        ScheduleSpec(vec![Policy::Serial])
    }

    /// The policies, in descending order of preferred size.
    pub fn policies(&self) -> &[Policy] {
        &self.0
    }

    pub fn is_serial(&self) -> bool {
        self.0 == [Policy::Serial]
    }

    /// Parses `tb+wp+fg`, `gd+tb+wp+fg`, `vw8+fg`, `eb`, `serial`, ...
    pub fn parse(text: &str) -> Result<ScheduleSpec, String> {
        let mut policies = Vec::new();
        for part in text.split('+') {
            let p = match part.trim() {
                "gd" | "grid" => Policy::Grid,
                "tb" | "threadblock" => Policy::Threadblock,
                "wp" | "warp" => Policy::Warp,
                "fg" | "finegrained" => Policy::Finegrained,
                "eb" | "edge-balanced" => Policy::EdgeBalanced,
                "serial" => Policy::Serial,
                w if w.starts_with("vw") => match w[2..].parse::<u8>() {
                    Ok(n @ (2 | 4 | 8 | 16)) => Policy::VirtualWarp(n),
                    _ => {
                        return Err(format!(
                            "`{w}`: a virtual warp is vw2, vw4, vw8 or vw16 lanes wide"
                        ));
                    }
                },
                "" => return Err(format!("`{text}`: an empty policy")),
                other => {
                    return Err(format!(
                        "`{other}` is not a scheduling policy (gd, tb, wp, vw2, vw4, vw8, vw16, fg, eb, serial)"
                    ));
                }
            };
            if policies.contains(&p) {
                return Err(format!("`{text}`: {p} appears twice"));
            }
            policies.push(p);
        }
        policies.sort();
        let rest: Vec<&Policy> = policies.iter().filter(|p| p.takes_the_rest()).collect();
        if rest.len() > 1 {
            return Err(format!(
                "`{text}`: {} and {} both take every remaining iteration; keep one",
                rest[0], rest[1]
            ));
        }
        if policies.last() == Some(&Policy::Grid) {
            return Err(format!(
                "`{text}`: gd takes only the items longer than a block's share of the graph; add the policies that take the others (e.g. gd+tb+wp+fg)"
            ));
        }
        Ok(ScheduleSpec(policies))
    }
}

impl fmt::Display for ScheduleSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.0.iter().map(|p| p.name()).collect();
        f.write_str(&names.join("+"))
    }
}

impl TryFrom<String> for ScheduleSpec {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        ScheduleSpec::parse(&s)
    }
}

impl From<ScheduleSpec> for String {
    fn from(s: ScheduleSpec) -> String {
        s.to_string()
    }
}

/// Which nodes of the outline tree (`irglc emit outline`) become device control kernels.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutlineConfig {
    /// Every region and loop stays on the host.
    #[default]
    None,
    /// The outermost outlinable nodes.
    Outer,
    /// These nodes, by their names in `irglc emit outline` (`r0`, `s12`).
    Nodes(BTreeSet<String>),
}

impl OutlineConfig {
    /// `none`, `outer`, or a comma-separated list of node names.
    pub fn parse(s: &str) -> Result<OutlineConfig, String> {
        match s {
            "none" => Ok(OutlineConfig::None),
            "outer" => Ok(OutlineConfig::Outer),
            list => {
                let nodes: BTreeSet<String> =
                    list.split(',').map(|n| n.trim().to_string()).collect();
                // By characters: a name may hold any text (`é`), and is then refused.
                let bad = |n: &str| {
                    let mut chars = n.chars();
                    let digits = chars.as_str().get(1..).unwrap_or_default();
                    !matches!(chars.next(), Some('r' | 's'))
                        || digits.is_empty()
                        || !digits.bytes().all(|b| b.is_ascii_digit())
                };
                match nodes.iter().find(|n| bad(n)) {
                    Some(n) => Err(format!(
                        "`{n}`: not an outline node (none, outer, or nodes such as r0,s12 as `irglc emit outline` names them)"
                    )),
                    None => Ok(OutlineConfig::Nodes(nodes)),
                }
            }
        }
    }
}

impl fmt::Display for OutlineConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutlineConfig::None => f.write_str("none"),
            OutlineConfig::Outer => f.write_str("outer"),
            OutlineConfig::Nodes(n) => {
                f.write_str(&n.iter().cloned().collect::<Vec<_>>().join(","))
            }
        }
    }
}

/// The kernels an optimization applies to: those of `--async` (`irglc emit outline` lists
/// the candidates) and of `--retry-backoff`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KernelSet {
    /// None of them.
    #[default]
    None,
    /// Every kernel that it applies to.
    All,
    /// These kernels, by name (each must be one it applies to).
    Kernels(BTreeSet<String>),
}

impl KernelSet {
    /// `none`, `all`, or a comma-separated list of kernel names.
    pub fn parse(s: &str) -> Result<KernelSet, String> {
        match s {
            "none" => Ok(KernelSet::None),
            "all" => Ok(KernelSet::All),
            list => {
                let names: BTreeSet<String> =
                    list.split(',').map(|n| n.trim().to_string()).collect();
                match names.iter().find(|n| n.is_empty()) {
                    Some(_) => Err(format!(
                        "`{list}`: not a list of kernels (none, all, or names such as sssp_nf,refine)"
                    )),
                    None => Ok(KernelSet::Kernels(names)),
                }
            }
        }
    }
}

impl fmt::Display for KernelSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelSet::None => f.write_str("none"),
            KernelSet::All => f.write_str("all"),
            KernelSet::Kernels(n) => f.write_str(&n.iter().cloned().collect::<Vec<_>>().join(",")),
        }
    }
}

/// The aggregation level of worklist pushes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AggregateConfig {
    pub default: AggregateLevel,
    /// Levels of single push sites, by `KERNEL.pushN`: the N-th push, `Retry` or `Respawn`
    /// of the kernel in source order, from 0.
    pub overrides: BTreeMap<String, AggregateLevel>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AggregateLevel {
    /// One atomic per push.
    #[default]
    None,
    /// One reservation per thread and loop where the push runs once per iteration of a
    /// serial loop with a known trip count (shared across the warp); warp elsewhere.
    Thread,
    /// One atomic per warp: the lanes that push together share one reservation.
    Warp,
    /// One atomic per block and trip where the push is at a focal point; thread or warp
    /// elsewhere.
    Block,
}

impl AggregateLevel {
    pub fn parse(s: &str) -> Result<AggregateLevel, String> {
        match s {
            "none" => Ok(AggregateLevel::None),
            "warp" => Ok(AggregateLevel::Warp),
            "block" => Ok(AggregateLevel::Block),
            "thread" => Ok(AggregateLevel::Thread),
            other => Err(format!(
                "`{other}`: not an aggregation level (none, thread, warp, block)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AggregateLevel::None => "none",
            AggregateLevel::Thread => "thread",
            AggregateLevel::Warp => "warp",
            AggregateLevel::Block => "block",
        }
    }
}

/// Retry backoff (`backoff_retries`): the launches with backoff of these kernels (their
/// retry rounds, or all of them) hand each thread a run of consecutive items (a blocked
/// distribution), and all of them to one thread below `serial_below` items.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BackoffConfig {
    pub kernels: KernelSet,
    /// The run of items per thread: `auto` (one run per thread of the resident grid) or 1 to
    /// 1024 items (a thread per run: fewer threads).
    #[serde(with = "as_text")]
    pub chunk: Chunk,
    /// Below this many items, one thread takes them all (0: never).
    pub serial_below: u32,
    /// Which launches of the kernels have backoff.
    pub rounds: BackoffRounds,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        BackoffConfig {
            kernels: KernelSet::None,
            chunk: Chunk::Auto,
            serial_below: 32,
            rounds: BackoffRounds::Retry,
        }
    }
}

/// The launches that retry backoff applies to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackoffRounds {
    /// The rounds over the retry worklist (the IrGL paper).
    #[default]
    Retry,
    /// Every launch of the kernel: its rounds over the input worklist too, whose items that
    /// neighbour each other (pushed together) conflict alike.
    All,
}

impl BackoffRounds {
    pub fn parse(s: &str) -> Result<BackoffRounds, String> {
        match s {
            "retry" => Ok(BackoffRounds::Retry),
            "all" => Ok(BackoffRounds::All),
            other => Err(format!(
                "`{other}`: not a choice of rounds (retry: the retry rounds; all: every launch)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BackoffRounds::Retry => "retry",
            BackoffRounds::All => "all",
        }
    }
}

/// A value written in JSON as its command-line text (`"auto"`, `"4sm"`, `"items"`).
trait Text: Sized + fmt::Display {
    fn parse_text(s: &str) -> Result<Self, String>;
}

impl Text for Chunk {
    fn parse_text(s: &str) -> Result<Self, String> {
        Chunk::parse(s)
    }
}

impl Text for GridSize {
    fn parse_text(s: &str) -> Result<Self, String> {
        GridSize::parse(s)
    }
}

impl Text for LaunchGrid {
    fn parse_text(s: &str) -> Result<Self, String> {
        LaunchGrid::parse(s)
    }
}

/// `#[serde(with = "as_text")]` for a [`Text`] value.
mod as_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: super::Text, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, T: super::Text, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        T::parse_text(&text).map_err(serde::de::Error::custom)
    }
}

/// `on` or `off`, the value of a switch flag (`--async-local`).
pub fn parse_switch(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("`{s}`: on or off")),
    }
}

impl OptConfig {
    /// The thread-block scheduler's threshold: the option, else the block size.
    pub fn tb_threshold(&self) -> u32 {
        self.nested.tb_threshold.unwrap_or(self.block_size)
    }

    /// Checks the values that do not depend on the program; the messages name the flag.
    pub fn validate(&self) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        let b = self.block_size;
        if !(32..=1024).contains(&b) || b % 32 != 0 {
            errors.push(format!(
                "--block-size {b}: the block size must be a multiple of 32 from 32 to 1024 (the warp schedulers need whole warps)"
            ));
        }
        if self.nested.warp_threshold == 0 {
            errors.push("--warp-threshold 0: a threshold is at least 1".to_string());
        }
        if self.tb_threshold() == 0 {
            errors.push("--tb-threshold 0: a threshold is at least 1".to_string());
        }
        if self.tb_threshold() < self.nested.warp_threshold {
            errors.push(format!(
                "--tb-threshold {} is below --warp-threshold {}: the thread-block scheduler takes the larger items",
                self.tb_threshold(),
                self.nested.warp_threshold
            ));
        }
        if self.outline == OutlineConfig::None && self.outline_grid != GridSize::Resident {
            errors.push(format!(
                "--outline-grid {}: the grid of the control kernels applies only with --outline",
                self.outline_grid
            ));
        }
        if matches!(self.async_grid, GridSize::Auto(_)) {
            errors.push(format!(
                "--async-grid {}: an asynchronous kernel's grid is fixed (resident, sm, Ksm or a number); auto applies to --outline-grid",
                self.async_grid
            ));
        }
        if self.asynchronous == KernelSet::None && self.async_grid != GridSize::PerSm(1) {
            errors.push(format!(
                "--async-grid {}: the grid of asynchronous kernels applies only with --async",
                self.async_grid
            ));
        }
        if self.asynchronous == KernelSet::None && !self.async_switch && self.async_local {
            errors.push(
                "--async-local on: continuations apply only to asynchronous kernels (--async, or the asynchronous versions of --async-switch on)"
                    .to_string(),
            );
        }
        if !(1..=8).contains(&self.pipe_unroll) {
            errors.push(format!(
                "--pipe-unroll {}: from 1 (no unrolling) to 8 copies of a Pipe's body",
                self.pipe_unroll
            ));
        }
        let backoff = &self.retry_backoff;
        let defaults = BackoffConfig::default();
        if backoff.kernels == KernelSet::None {
            if backoff.chunk != defaults.chunk {
                errors.push(format!(
                    "--backoff-chunk {}: applies only with --retry-backoff",
                    backoff.chunk
                ));
            }
            if backoff.serial_below != defaults.serial_below {
                errors.push(format!(
                    "--backoff-serial-below {}: applies only with --retry-backoff",
                    backoff.serial_below
                ));
            }
            if backoff.rounds != defaults.rounds {
                errors.push(format!(
                    "--backoff-rounds {}: applies only with --retry-backoff",
                    backoff.rounds.name()
                ));
            }
        }
        let adapt = &self.adapt;
        let adapt_defaults = AdaptConfig::default();
        if adapt.serial_below_degree == 0 {
            errors.push(
                "--serial-below-degree 0: no graph has a mean degree below 0 (turn the versions off with --adapt off)".to_string(),
            );
        }
        if adapt.serial_efficiency > 100 {
            errors.push(format!(
                "--serial-efficiency {}: a share of a warp's lanes, in percent from 0 to 100",
                adapt.serial_efficiency
            ));
        }
        if !(1..=1_000_000).contains(&self.switch_epoch_us) {
            errors.push(format!(
                "--switch-epoch {}: microseconds, from 1 to 1000000",
                self.switch_epoch_us
            ));
        }
        if !self.async_switch && self.switch_epoch_us != irgl_ir::SWITCH_EPOCH_US {
            errors.push(format!(
                "--switch-epoch {}: applies only with --async-switch on",
                self.switch_epoch_us
            ));
        }
        if self.async_switch && self.multi_gpu {
            errors.push(
                "--async-switch on: does not apply with --multi-gpu on: the GPUs exchange node properties between rounds, which an asynchronous launch does not have (use --async-switch off)".to_string(),
            );
        }
        if !adapt.on {
            if adapt.serial_below_degree != adapt_defaults.serial_below_degree {
                errors.push(format!(
                    "--serial-below-degree {}: applies only with --adapt on",
                    adapt.serial_below_degree
                ));
            }
            if adapt.serial_efficiency != adapt_defaults.serial_efficiency {
                errors.push(format!(
                    "--serial-efficiency {}: applies only with --adapt on",
                    adapt.serial_efficiency
                ));
            }
        }
        if self.drop_repeats == KernelSet::None && self.drop_repeats_degree != DROP_REPEATS_DEGREE {
            errors.push(format!(
                "--drop-repeats-degree {}: applies only with --drop-repeats",
                self.drop_repeats_degree
            ));
        }
        if self.multi_gpu {
            if self.outline != OutlineConfig::None {
                errors.push(format!(
                    "--outline {}: does not apply with --multi-gpu on: the GPUs exchange node properties from the host between rounds, which a loop run by a control kernel on one GPU would skip (use --outline none)",
                    self.outline
                ));
            }
            if self.asynchronous != KernelSet::None {
                errors.push(format!(
                    "--async {}: does not apply with --multi-gpu on: an asynchronous kernel has no rounds to exchange node properties between (use --async none)",
                    self.asynchronous
                ));
            }
            if self.drop_repeats != KernelSet::None {
                errors.push(format!(
                    "--drop-repeats {}: does not apply with --multi-gpu on: a partitioned run already delivers each node once per round where a second pass over it does nothing more (use --drop-repeats none)",
                    self.drop_repeats
                ));
            }
            if self.split_nodes != KernelSet::None {
                errors.push(format!(
                    "--split-nodes {}: does not apply with --multi-gpu on: each GPU loops over the nodes of its part, which are not split (use --split-nodes none)",
                    self.split_nodes
                ));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The command-line flags that build this configuration, in a fixed order: the canonical
    /// text of the option set. They start with `-O0`, the level they are relative to, so that
    /// `irglc compile` (whose default is `-O2`) builds exactly this configuration from them.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            "-O0".to_string(),
            "--block-size".to_string(),
            self.block_size.to_string(),
            "--nested".to_string(),
            self.nested.default.to_string(),
        ];
        if self.grid != LaunchGrid::Resident {
            args.push("--grid".to_string());
            args.push(self.grid.to_string());
        }
        for (at, spec) in &self.nested.overrides {
            args.push("--nested-at".to_string());
            args.push(format!("{at}={spec}"));
        }
        if let Some(t) = self.nested.tb_threshold {
            args.push("--tb-threshold".to_string());
            args.push(t.to_string());
        }
        if self.nested.warp_threshold != NestedConfig::default().warp_threshold {
            args.push("--warp-threshold".to_string());
            args.push(self.nested.warp_threshold.to_string());
        }
        if self.outline != OutlineConfig::None {
            args.push("--outline".to_string());
            args.push(self.outline.to_string());
        }
        if self.outline_grid != GridSize::Resident {
            args.push("--outline-grid".to_string());
            args.push(self.outline_grid.to_string());
        }
        if self.asynchronous != KernelSet::None {
            args.push("--async".to_string());
            args.push(self.asynchronous.to_string());
        }
        if self.async_grid != GridSize::PerSm(1) {
            args.push("--async-grid".to_string());
            args.push(self.async_grid.to_string());
        }
        if self.async_local {
            args.push("--async-local".to_string());
            args.push("on".to_string());
        }
        if self.pipe_unroll != 1 {
            args.push("--pipe-unroll".to_string());
            args.push(self.pipe_unroll.to_string());
        }
        let backoff = &self.retry_backoff;
        let defaults = BackoffConfig::default();
        if backoff.kernels != KernelSet::None {
            args.push("--retry-backoff".to_string());
            args.push(backoff.kernels.to_string());
        }
        if backoff.chunk != defaults.chunk {
            args.push("--backoff-chunk".to_string());
            args.push(backoff.chunk.to_string());
        }
        if backoff.serial_below != defaults.serial_below {
            args.push("--backoff-serial-below".to_string());
            args.push(backoff.serial_below.to_string());
        }
        if backoff.rounds != defaults.rounds {
            args.push("--backoff-rounds".to_string());
            args.push(backoff.rounds.name().to_string());
        }
        if self.aggregate.default != AggregateLevel::None {
            args.push("--aggregate".to_string());
            args.push(self.aggregate.default.name().to_string());
        }
        for (at, level) in &self.aggregate.overrides {
            args.push("--aggregate-at".to_string());
            args.push(format!("{at}={}", level.name()));
        }
        if self.check_indices {
            args.push("--check-indices".to_string());
            args.push("on".to_string());
        }
        if self.wide_edges {
            args.push("--wide-edges".to_string());
            args.push("on".to_string());
        }
        let adapt_defaults = AdaptConfig::default();
        if self.adapt.on {
            args.push("--adapt".to_string());
            args.push("on".to_string());
        }
        if self.adapt.serial_below_degree != adapt_defaults.serial_below_degree {
            args.push("--serial-below-degree".to_string());
            args.push(self.adapt.serial_below_degree.to_string());
        }
        if self.adapt.serial_efficiency != adapt_defaults.serial_efficiency {
            args.push("--serial-efficiency".to_string());
            args.push(self.adapt.serial_efficiency.to_string());
        }
        if self.async_switch {
            args.push("--async-switch".to_string());
            args.push("on".to_string());
        }
        if self.switch_epoch_us != irgl_ir::SWITCH_EPOCH_US {
            args.push("--switch-epoch".to_string());
            args.push(self.switch_epoch_us.to_string());
        }
        if self.grid_wait {
            args.push("--grid-wait".to_string());
            args.push("on".to_string());
        }
        if self.settle {
            args.push("--settle".to_string());
            args.push("on".to_string());
        }
        if self.drop_repeats != KernelSet::None {
            args.push("--drop-repeats".to_string());
            args.push(self.drop_repeats.to_string());
        }
        if self.drop_repeats_degree != DROP_REPEATS_DEGREE {
            args.push("--drop-repeats-degree".to_string());
            args.push(self.drop_repeats_degree.to_string());
        }
        if self.split_nodes != KernelSet::None {
            args.push("--split-nodes".to_string());
            args.push(self.split_nodes.to_string());
        }
        if self.multi_gpu {
            args.push("--multi-gpu".to_string());
            args.push("on".to_string());
        }
        args
    }

    /// The configuration that a list of flags (as [`OptConfig::to_args`] writes them, or as
    /// `tests/option-sets.txt` lists them) builds from the defaults.
    pub fn from_args<S: AsRef<str>>(args: &[S]) -> Result<OptConfig, String> {
        let mut c = OptConfig::default();
        let args: Vec<&str> = args.iter().map(AsRef::as_ref).collect();
        let args = match args.split_first() {
            Some((&"-O0", rest)) => rest,
            _ => &args[..],
        };
        c.apply_args(args)?;
        Ok(c)
    }

    /// Sets the options that `args` give, over this configuration (an optimization level's
    /// choices, or a `--config` file). A flag that gives an option's default for every site
    /// (`--nested`, `--aggregate`) replaces the per-site choices of that option too, except
    /// those that `args` give themselves; an option that `args` turn off (`--outline none`,
    /// `--async none`, `--retry-backoff none`) takes its dependent options back to their
    /// defaults unless `args` give them.
    pub fn apply_args<S: AsRef<str>>(&mut self, args: &[S]) -> Result<(), String> {
        let given = |flag: &str| args.iter().any(|a| a.as_ref() == flag);
        let c = self;
        if given("--nested") {
            c.nested.overrides.clear();
        }
        if given("--aggregate") {
            c.aggregate.overrides.clear();
        }
        let mut words = args.iter().map(AsRef::as_ref);
        while let Some(flag) = words.next() {
            let value = words
                .next()
                .ok_or_else(|| format!("{flag}: a value is missing"))?;
            let number = || {
                value
                    .parse::<u32>()
                    .map_err(|_| format!("{flag} {value}: not a number"))
            };
            match flag {
                "--block-size" => c.block_size = number()?,
                "--grid" => c.grid = LaunchGrid::parse(value).map_err(|e| format!("{flag} {e}"))?,
                "--nested" => c.nested.default = ScheduleSpec::parse(value)?,
                "--nested-at" => {
                    let (at, spec) = value
                        .split_once('=')
                        .ok_or_else(|| format!("{flag} {value}: expected KERNEL.LOOP=SCHEDULE"))?;
                    c.nested
                        .overrides
                        .insert(at.to_string(), ScheduleSpec::parse(spec)?);
                }
                "--tb-threshold" => c.nested.tb_threshold = Some(number()?),
                "--warp-threshold" => c.nested.warp_threshold = number()?,
                "--outline" => {
                    c.outline = OutlineConfig::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--async" => {
                    c.asynchronous = KernelSet::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--drop-repeats" => {
                    c.drop_repeats = KernelSet::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--drop-repeats-degree" => c.drop_repeats_degree = number()?,
                "--split-nodes" => {
                    c.split_nodes = KernelSet::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--retry-backoff" => {
                    c.retry_backoff.kernels =
                        KernelSet::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--backoff-chunk" => {
                    c.retry_backoff.chunk =
                        Chunk::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--backoff-rounds" => {
                    c.retry_backoff.rounds =
                        BackoffRounds::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--backoff-serial-below" => c.retry_backoff.serial_below = number()?,
                "--pipe-unroll" => c.pipe_unroll = number()?,
                "--async-local" => {
                    c.async_local = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--check-indices" => {
                    c.check_indices = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--wide-edges" => {
                    c.wide_edges = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--adapt" => {
                    c.adapt.on = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--multi-gpu" => {
                    c.multi_gpu = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--serial-below-degree" => c.adapt.serial_below_degree = number()?,
                "--serial-efficiency" => c.adapt.serial_efficiency = number()?,
                "--switch-epoch" => c.switch_epoch_us = number()?,
                "--async-switch" => {
                    c.async_switch = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--grid-wait" => {
                    c.grid_wait = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--settle" => {
                    c.settle = parse_switch(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--async-grid" => {
                    c.async_grid = GridSize::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--outline-grid" => {
                    c.outline_grid = GridSize::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                "--aggregate-at" => {
                    let (at, level) = value
                        .split_once('=')
                        .ok_or_else(|| format!("{flag} {value}: expected KERNEL.pushN=LEVEL"))?;
                    let level = AggregateLevel::parse(level).map_err(|e| format!("{flag} {e}"))?;
                    c.aggregate.overrides.insert(at.to_string(), level);
                }
                "--aggregate" => {
                    c.aggregate.default =
                        AggregateLevel::parse(value).map_err(|e| format!("{flag} {e}"))?;
                }
                level if level.starts_with("-O") => {
                    return Err(format!(
                        "{level}: a level comes first, and its choices depend on the program (irgl_driver::options_from_words)"
                    ));
                }
                other => return Err(format!("{other}: not an option")),
            }
        }
        // Several GPUs exchange between rounds on the host: a level's outlining and asynchrony
        // give way (flags that ask for them are refused by `validate`).
        if c.multi_gpu {
            if !given("--outline") {
                c.outline = OutlineConfig::None;
            }
            if !given("--async") {
                c.asynchronous = KernelSet::None;
            }
            if !given("--drop-repeats") {
                c.drop_repeats = KernelSet::None;
            }
            if !given("--split-nodes") {
                c.split_nodes = KernelSet::None;
            }
        }
        let defaults = OptConfig::default();
        if c.outline == OutlineConfig::None && !given("--outline-grid") {
            c.outline_grid = defaults.outline_grid;
        }
        if c.asynchronous == KernelSet::None {
            if !given("--async-grid") {
                c.async_grid = defaults.async_grid;
            }
            if !given("--async-local") && !c.async_switch {
                c.async_local = defaults.async_local;
            }
        }
        if c.drop_repeats == KernelSet::None && !given("--drop-repeats-degree") {
            c.drop_repeats_degree = defaults.drop_repeats_degree;
        }
        if !c.adapt.on {
            if !given("--serial-below-degree") {
                c.adapt.serial_below_degree = defaults.adapt.serial_below_degree;
            }
            if !given("--serial-efficiency") {
                c.adapt.serial_efficiency = defaults.adapt.serial_efficiency;
            }
        }
        if !c.async_switch && !given("--switch-epoch") {
            c.switch_epoch_us = defaults.switch_epoch_us;
        }
        if c.retry_backoff.kernels == KernelSet::None {
            let backoff = &mut c.retry_backoff;
            if !given("--backoff-chunk") {
                backoff.chunk = defaults.retry_backoff.chunk;
            }
            if !given("--backoff-serial-below") {
                backoff.serial_below = defaults.retry_backoff.serial_below;
            }
            if !given("--backoff-rounds") {
                backoff.rounds = defaults.retry_backoff.rounds;
            }
        }
        Ok(())
    }

    /// [`OptConfig::to_args`] joined by spaces.
    pub fn canonical(&self) -> String {
        self.to_args().join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_canonical() {
        let s = ScheduleSpec::parse("fg+tb+wp").unwrap();
        assert_eq!(s.to_string(), "tb+wp+fg");
        assert_eq!(ScheduleSpec::parse("vw8+tb").unwrap().to_string(), "tb+vw8");
        assert!(ScheduleSpec::parse("fg+serial").is_err());
        assert!(ScheduleSpec::parse("tb+tb").is_err());
        assert!(ScheduleSpec::parse("vw3").is_err());
        assert!(ScheduleSpec::parse("warpy").is_err());
        assert_eq!(
            ScheduleSpec::parse("fg+grid+tb").unwrap().to_string(),
            "gd+tb+fg"
        );
        let alone = ScheduleSpec::parse("gd").unwrap_err();
        assert!(alone.contains("gd+tb+wp+fg"), "{alone}");
    }

    #[test]
    fn json_round_trips() {
        let mut c = OptConfig::default();
        c.nested.default = ScheduleSpec::parse("tb+wp+fg").unwrap();
        c.nested
            .overrides
            .insert("tc.loop1".into(), ScheduleSpec::parse("eb").unwrap());
        let text = serde_json::to_string(&c).unwrap();
        let back: OptConfig = serde_json::from_str(&text).unwrap();
        assert_eq!(back, c);
        assert!(serde_json::from_str::<OptConfig>(r#"{"nested":{"default":"xx"}}"#).is_err());
        assert!(serde_json::from_str::<OptConfig>(r#"{"blocksize":3}"#).is_err());
    }

    #[test]
    fn canonical_text_is_the_command_line() {
        let mut c = OptConfig::default();
        assert_eq!(c.canonical(), "-O0 --block-size 256 --nested serial");
        c.nested
            .overrides
            .insert("bfs.loop1".into(), ScheduleSpec::parse("wp+tb").unwrap());
        c.nested.warp_threshold = 16;
        c.aggregate.default = AggregateLevel::Warp;
        c.aggregate
            .overrides
            .insert("bfs.push0".into(), AggregateLevel::Block);
        assert_eq!(
            c.canonical(),
            "-O0 --block-size 256 --nested serial --nested-at bfs.loop1=tb+wp --warp-threshold 16 --aggregate warp --aggregate-at bfs.push0=block"
        );
        assert_eq!(OptConfig::from_args(&c.to_args()), Ok(c));
        assert!(OptConfig::from_args(&["--nested"]).is_err());
        assert!(OptConfig::from_args(&["--block", "3"]).is_err());
    }

    #[test]
    fn validation_names_the_flag() {
        let c = OptConfig {
            block_size: 100,
            ..OptConfig::default()
        };
        let e = c.validate().unwrap_err();
        assert!(e[0].contains("--block-size 100"), "{e:?}");
    }
}
