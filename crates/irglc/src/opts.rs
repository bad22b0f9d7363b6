//! The optimization flags shared by `compile`, `build`, `run` and `emit ir`, and how they
//! become an [`OptConfig`].

use std::path::PathBuf;

use irgl_ir::GridSize;
use irgl_opt::{
    AggregateLevel, BackoffRounds, KernelSet, LevelChoices, OptConfig, OptLevel, OutlineConfig,
    ScheduleSpec,
};

/// Optimization options: a level's choices for the program (or a `--config` file), each
/// flag overriding the same option of them.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OptArgs {
    /// The optimization level: 0 (the IrGL paper's baseline, every pass off), 1 (nested
    /// scheduling and aggregation chosen per loop and site) or 2 (the default: 1, and
    /// outlining and the launch grid chosen per loop). `irglc emit ir` shows what a level
    /// chose and why; flags given as well override its choices.
    #[arg(short = 'O', value_name = "LEVEL", value_parser = OptLevel::parse)]
    pub level: Option<OptLevel>,
    /// Read the options from a JSON file (an `OptConfig`: docs/optimizations.md) instead of a
    /// level's choices; flags given as well override it.
    #[arg(long, value_name = "FILE", conflicts_with = "level")]
    pub config: Option<PathBuf>,
    /// Build the variant that a tuning profile (`irglc tune --save FILE`) chose: the best
    /// single variant over its graphs, or with --profile-graph the fastest on the tuned graph
    /// most like that one; flags given as well override it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["level", "config"])]
    pub profile: Option<PathBuf>,
    /// With --profile: the graph to build for (read as the program reads it; compared by
    /// mean degree and warp efficiency).
    #[arg(long, value_name = "GRAPH", requires = "profile")]
    pub profile_graph: Option<PathBuf>,
    /// Threads per block of every kernel (a multiple of 32; default 256).
    #[arg(long, value_name = "N")]
    pub block_size: Option<u32>,
    /// How nested ForAlls run, by default: `serial` (in the thread that reaches them), or a
    /// combination of gd (the whole grid, for items longer than a block's share of the
    /// graph), tb (thread block), wp (warp), vw2/vw4/vw8/vw16 (virtual warps), fg
    /// (fine-grained), eb (edge-balanced) and serial, joined by `+`, e.g. `tb+wp+fg`.
    #[arg(long, value_name = "SCHEDULE", value_parser = parse_spec)]
    pub nested: Option<ScheduleSpec>,
    /// The schedule of one nested ForAll: `KERNEL.LOOP=SCHEDULE`, where LOOP is `loopN` as
    /// `irglc emit ir` numbers it, or the loop variable's name (repeatable).
    #[arg(long, value_name = "KERNEL.LOOP=SCHEDULE", value_parser = parse_at)]
    pub nested_at: Vec<(String, ScheduleSpec)>,
    /// Smallest trip count that the thread-block scheduler takes (default: the block size).
    #[arg(long, value_name = "N")]
    pub tb_threshold: Option<u32>,
    /// Smallest trip count that the warp scheduler takes (default 32).
    #[arg(long, value_name = "N")]
    pub warp_threshold: Option<u32>,
    /// How worklist pushes reserve their slots: `none` (one atomic per push), `thread` (one
    /// reservation before a serial loop whose every iteration pushes once, else warp), `warp`
    /// (one atomic per warp for the lanes that push together) or `block` (one per block and
    /// trip where every thread of the block passes together, else thread, else warp).
    #[arg(long, value_name = "LEVEL", value_parser = AggregateLevel::parse)]
    pub aggregate: Option<AggregateLevel>,
    /// The aggregation level of one site: `KERNEL.pushN=LEVEL`, N counting the kernel's
    /// pushes, Retry and Respawn in source order from 0, or `KERNEL.addN=LEVEL`, N counting
    /// its atomicAdds to integer globals (repeatable).
    #[arg(long, value_name = "KERNEL.pushN=LEVEL", value_parser = parse_aggregate_at)]
    pub aggregate_at: Vec<(String, AggregateLevel)>,
    /// Iteration outlining: which nodes of the outline tree (`irglc emit outline`) run as
    /// device control kernels: `none`, `outer` (the outermost outlinable ones) or a list such
    /// as `r0,s12`.
    #[arg(long, value_name = "NODES", value_parser = OutlineConfig::parse)]
    pub outline: Option<OutlineConfig>,
    /// The grid of the control kernels (with --outline): `resident` (every block that fits,
    /// the default of -O0 and -O1), `sm` (one block per multiprocessor), `Ksm` (K per
    /// multiprocessor), a number of blocks, or `auto`/`autoD` (one block per multiprocessor
    /// on graphs of average degree below D, default 12, every resident block otherwise).
    /// Fewer blocks make the grid barrier cheaper: loops of many small rounds (bfs on road
    /// networks) run faster on `sm`. -O2 takes `resident` for loops that sweep every node and
    /// `4sm` for the others (`irglc emit ir` says which).
    #[arg(long, value_name = "GRID", value_parser = GridSize::parse)]
    pub outline_grid: Option<GridSize>,
    /// Asynchronous worklist kernels: `none`, `all` (every kernel that can), or a list of
    /// kernels. Such a kernel is one launch that keeps claiming the items its own pushes
    /// feed (its Respawns, or every push of its Iterate) until none is left, without rounds;
    /// `irglc emit outline` says which kernels can and why not.
    #[arg(long = "async", value_name = "KERNELS", value_parser = KernelSet::parse)]
    pub asynchronous: Option<KernelSet>,
    /// The grid of the kernels launched from the host whose outer loop is plain: `resident`
    /// (the default: the blocks that fit at once, the outer loop striding over the rest) or
    /// `items` (one block per BLOCK items: the GPU starts each block as a multiprocessor frees
    /// up, so blocks whose items take long, as dmr's conflicting cavities, do not hold the
    /// others back). A uniform outer loop (nested schedulers, block aggregation) always gets
    /// `items`.
    #[arg(long, value_name = "GRID", value_parser = irgl_ir::LaunchGrid::parse)]
    pub grid: Option<irgl_ir::LaunchGrid>,
    /// The grid of asynchronous kernels launched from the host (with --async): `sm` (one
    /// block per multiprocessor, the default), `Ksm`, `resident` or a number of blocks. Idle
    /// blocks poll the task queue: more blocks than the work needs slow the others. (An
    /// outlined loop runs them on its own grid, --outline-grid.)
    #[arg(long, value_name = "GRID", value_parser = GridSize::parse)]
    pub async_grid: Option<GridSize>,
    /// In asynchronous kernels, whether a thread keeps the first item it pushes in a trip as
    /// its own next item (`on`: a chain of items skips the queue's round trips; it pays with
    /// the fine-grained scheduler on road networks and costs with serial inner loops) or
    /// sends every push through the queue (`off`, the default).
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub async_local: Option<bool>,
    /// Worklist kernels that pop each node at most once per round: `none` (the default of
    /// -O0 and -O1), `all` (every kernel it applies to: its items are nodes, it runs in
    /// rounds, and a second pass over an item does nothing more, as `irglc emit partition`
    /// judges; -O2 chooses it where one applies) or a list of kernels. The later copies of a
    /// node pushed several times in a round are dropped at their pop (a stamp per node).
    #[arg(long, value_name = "KERNELS", value_parser = KernelSet::parse)]
    pub drop_repeats: Option<KernelSet>,
    /// With --drop-repeats: repeats are dropped on graphs of at least this mean degree
    /// (edges per node; default 12, 0: every graph), found when the program loads its graph;
    /// on sparser graphs (roads, grids, paths) a node is pushed by few neighbours in a round
    /// and has few edges to walk again, and every copy runs.
    #[arg(long, value_name = "D")]
    pub drop_repeats_degree: Option<u32>,
    /// Kernels over the nodes that run over parts of split nodes (node splitting): `none`
    /// (the default), `all` (every kernel it applies to, as `irglc emit outline` judges) or a
    /// list of kernels. A node of more out-edges than a degree found when the program loads
    /// its graph (the program's `--split-degree`: auto from the degree histogram, off, or a
    /// number) is cut into parts of at most that many edges, each an item of the kernel's
    /// loop, so that a hub's edges spread over many threads.
    #[arg(long, value_name = "KERNELS", value_parser = KernelSet::parse)]
    pub split_nodes: Option<KernelSet>,
    /// Retry backoff: `none`, `all` (every kernel with a `Retry`) or a list of kernels. The
    /// rounds over such a kernel's retry worklist hand each thread a run of consecutive
    /// items (items that conflict lie close together there), and all of them to one thread
    /// once few are left.
    #[arg(long, value_name = "KERNELS", value_parser = KernelSet::parse)]
    pub retry_backoff: Option<KernelSet>,
    /// The run of consecutive items per thread with --retry-backoff: `auto` (the default: one
    /// run per thread of the resident grid, so no fewer threads than without backoff) or 1
    /// to 1024 items (a thread per run: fewer threads, fewer conflicts).
    #[arg(long, value_name = "auto|N", value_parser = irgl_ir::Chunk::parse)]
    pub backoff_chunk: Option<irgl_ir::Chunk>,
    /// Below this many items, one thread takes them all (with --retry-backoff; default 32;
    /// 0: never).
    #[arg(long, value_name = "N")]
    pub backoff_serial_below: Option<u32>,
    /// Which launches have backoff (with --retry-backoff): `retry` (the retry rounds, the
    /// default) or `all` (every launch of the kernel: the items of its input worklist that
    /// were pushed together conflict alike).
    #[arg(long, value_name = "retry|all", value_parser = BackoffRounds::parse)]
    pub backoff_rounds: Option<BackoffRounds>,
    /// Check every index of a property element in kernels (`on`), as `main`'s and local
    /// arrays' indices always are: an index out of range ends the program naming the kernel,
    /// the property and the index. Off by default (each access costs a comparison).
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub check_indices: Option<bool>,
    /// 64-bit edge indices (`on`), for graphs of more than 2^32 - 1 edges (`irglc run` turns
    /// it on by itself where its graph needs it; a program built without it stops on such a
    /// graph, naming this flag). Off by default: 32-bit indices take half the memory of the
    /// graph's offsets. Node ids stay 32-bit either way.
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub wide_edges: Option<bool>,
    /// Build the program to run partitioned over several GPUs (`on`; `--gpus N` of the
    /// program, all visible GPUs by default), where the program allows it (`irglc emit
    /// partition` says whether and why). Outlining and asynchronous kernels give way: the GPUs
    /// exchange node properties from the host between rounds. Needs NCCL (scripts/install-cuda.sh).
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub multi_gpu: Option<bool>,
    /// Pipe unrolling: copies of the body of every repeating Pipe per trip of its loop
    /// (1, the default: none; up to 8). Programs without such a Pipe are left as they are.
    #[arg(long, value_name = "K")]
    pub pipe_unroll: Option<u32>,
    /// Run-time adaptation (on at -O1 and -O2): each kernel whose nested loops are scheduled
    /// also gets a version with serial nested loops, which the program runs instead on graphs
    /// of low, even degree (see --serial-below-degree and --serial-efficiency). `off` builds
    /// one version of each kernel.
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub adapt: Option<bool>,
    /// With --adapt: the serial versions run on graphs whose mean degree (edges per node) is
    /// below D (default 5) ...
    #[arg(long, value_name = "D")]
    pub serial_below_degree: Option<u32>,
    /// ... and whose warp efficiency, the share of a warp's lanes busy when each thread walks
    /// one node's edges (`irglc graph info`), is at least P percent (default 50).
    #[arg(long, value_name = "P")]
    pub serial_efficiency: Option<u32>,
    /// The switch between rounds and asynchrony (`on`; off at every level): an outlined
    /// worklist loop whose kernel may run either way gets both, and switches between them as
    /// it runs, keeping the one that spends less time per node reached (docs/optimizations.md
    /// says what it costs). The program's --async-switch rounds|async pins one way.
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub async_switch: Option<bool>,
    /// gd's blocks wait for owners that publish late (`on`; off at every level): in a control
    /// kernel's call whose launch leaves nearly every block without an item (a hub alone in a
    /// round), the blocks that find nothing wait until every block's trips are done rather
    /// than leave the hub to its owner's block. sssp-nf on a star 30x faster; kcore on a web
    /// graph 1.26x slower (docs/optimizations.md).
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub grid_wait: Option<bool>,
    /// Rounds without grid barriers (`on`; chosen by -O2): an outlined `Iterate Unordered
    /// While Any` loop whose kernel's items, once silent, stay silent (`irglc emit outline`
    /// says which) runs with each block repeating its share until none of its items reports,
    /// instead of a grid barrier and a reduction between rounds.
    #[arg(long, value_name = "on|off", value_parser = irgl_opt::config::parse_switch)]
    pub settle: Option<bool>,
    /// With --async-switch on: the shortest span, in microseconds, over which the switch
    /// measures a way before it may change (default 20; the program's --switch-epoch
    /// overrides it).
    #[arg(long, value_name = "US")]
    pub switch_epoch: Option<u32>,
}

fn parse_spec(s: &str) -> Result<ScheduleSpec, String> {
    ScheduleSpec::parse(s)
}

fn parse_at(s: &str) -> Result<(String, ScheduleSpec), String> {
    let (at, spec) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected KERNEL.LOOP=SCHEDULE, such as bfs.loop1=tb+wp"))?;
    Ok((at.to_string(), ScheduleSpec::parse(spec)?))
}

fn parse_aggregate_at(s: &str) -> Result<(String, AggregateLevel), String> {
    let (at, level) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected KERNEL.pushN=LEVEL, such as bfs.push0=block"))?;
    Ok((at.to_string(), AggregateLevel::parse(level)?))
}

impl OptArgs {
    /// The option set for a program: the `--config` file's, or what the level (`-O`, else
    /// `-O2`) chooses for `source` with its reasons; then the flags. `Err` holds either the
    /// program's diagnostics (it does not compile) or a message about the options.
    pub fn resolve(
        &self,
        source: irgl_driver::Source<'_>,
    ) -> Result<(OptConfig, Option<LevelChoices>), OptError> {
        if let Some(path) = &self.profile {
            return self.resolve_profile(source, path);
        }
        let (mut config, choices): (OptConfig, Option<LevelChoices>) = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    OptError::Options(format!("cannot read {}: {e}", path.display()))
                })?;
                let c = serde_json::from_str(&text).map_err(|e| {
                    OptError::Options(format!("{}: not an option set: {e}", path.display()))
                })?;
                (c, None)
            }
            None => {
                let mut words = vec![self.level.unwrap_or_default().to_string()];
                words.extend(self.flags());
                let (config, chosen) =
                    irgl_driver::options_from_words(source, &words, OptLevel::O2)
                        .map_err(OptError::Program)?;
                return Ok((config, Some(chosen)));
            }
        };
        config
            .apply_args(&self.flags())
            .map_err(OptError::Options)?;
        Ok((config, choices))
    }

    /// The options of a tuning profile's variant for this program (and `--profile-graph`),
    /// then the flags.
    fn resolve_profile(
        &self,
        source: irgl_driver::Source<'_>,
        path: &std::path::Path,
    ) -> Result<(OptConfig, Option<LevelChoices>), OptError> {
        let at = |e: String| OptError::Options(format!("--profile {}: {e}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
        let profile = irgl_tune::Profile::parse(&text, &source.program_name()).map_err(at)?;
        let shape = match &self.profile_graph {
            None => None,
            Some(graph) => {
                let needs = irgl_driver::compile(source, &OptConfig::default())
                    .map_err(OptError::Program)?
                    .needs;
                let unreadable = || {
                    OptError::Options(format!(
                        "--profile-graph {}: the graph cannot be read (above)",
                        graph.display()
                    ))
                };
                let gr =
                    crate::build_cmd::prepare_graph(graph, &needs, 1).map_err(|_| unreadable())?;
                let input = crate::graph_cmd::InputOptions {
                    format: None,
                    keep_ids: false,
                };
                let (csr, _) = crate::graph_cmd::load_graph(&gr, &input).map_err(|e| {
                    say!("error: {e}");
                    unreadable()
                })?;
                Some(crate::tune_cmd::shape_of(&csr))
            }
        };
        let (options, why) = profile.choose(shape.as_ref()).map_err(at)?;
        let mut words: Vec<String> = options.split_whitespace().map(str::to_string).collect();
        words.extend(self.flags());
        let (config, mut chosen) = irgl_driver::options_from_words(source, &words, OptLevel::O2)
            .map_err(OptError::Program)?;
        chosen.choices.insert(
            0,
            irgl_opt::Choice {
                flag: format!("--profile {} ({options})", path.display()),
                why,
            },
        );
        Ok((config, Some(chosen)))
    }

    /// The flags given, as `OptConfig::apply_args` reads them.
    pub fn flags(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut flag = |name: &str, value: String| {
            out.push(name.to_string());
            out.push(value);
        };
        if let Some(b) = self.block_size {
            flag("--block-size", b.to_string());
        }
        if let Some(s) = &self.nested {
            flag("--nested", s.to_string());
        }
        for (at, spec) in &self.nested_at {
            flag("--nested-at", format!("{at}={spec}"));
        }
        if let Some(t) = self.tb_threshold {
            flag("--tb-threshold", t.to_string());
        }
        if let Some(t) = self.warp_threshold {
            flag("--warp-threshold", t.to_string());
        }
        if let Some(level) = self.aggregate {
            flag("--aggregate", level.name().to_string());
        }
        for (at, level) in &self.aggregate_at {
            flag("--aggregate-at", format!("{at}={}", level.name()));
        }
        if let Some(o) = &self.outline {
            flag("--outline", o.to_string());
        }
        if let Some(g) = self.outline_grid {
            flag("--outline-grid", g.to_string());
        }
        if let Some(a) = &self.asynchronous {
            flag("--async", a.to_string());
        }
        if let Some(g) = self.async_grid {
            flag("--async-grid", g.to_string());
        }
        if let Some(g) = self.grid {
            flag("--grid", g.to_string());
        }
        if let Some(l) = self.async_local {
            flag("--async-local", switch(l));
        }
        if let Some(on) = self.check_indices {
            flag("--check-indices", switch(on));
        }
        if let Some(on) = self.wide_edges {
            flag("--wide-edges", switch(on));
        }
        if let Some(on) = self.multi_gpu {
            flag("--multi-gpu", switch(on));
        }
        if let Some(k) = &self.drop_repeats {
            flag("--drop-repeats", k.to_string());
        }
        if let Some(d) = self.drop_repeats_degree {
            flag("--drop-repeats-degree", d.to_string());
        }
        if let Some(k) = &self.split_nodes {
            flag("--split-nodes", k.to_string());
        }
        if let Some(k) = &self.retry_backoff {
            flag("--retry-backoff", k.to_string());
        }
        if let Some(n) = self.backoff_chunk {
            flag("--backoff-chunk", n.to_string());
        }
        if let Some(n) = self.backoff_serial_below {
            flag("--backoff-serial-below", n.to_string());
        }
        if let Some(r) = self.backoff_rounds {
            flag("--backoff-rounds", r.name().to_string());
        }
        if let Some(k) = self.pipe_unroll {
            flag("--pipe-unroll", k.to_string());
        }
        if let Some(on) = self.adapt {
            flag("--adapt", switch(on));
        }
        if let Some(d) = self.serial_below_degree {
            flag("--serial-below-degree", d.to_string());
        }
        if let Some(p) = self.serial_efficiency {
            flag("--serial-efficiency", p.to_string());
        }
        if let Some(on) = self.async_switch {
            flag("--async-switch", switch(on));
        }
        if let Some(on) = self.grid_wait {
            flag("--grid-wait", switch(on));
        }
        if let Some(on) = self.settle {
            flag("--settle", switch(on));
        }
        if let Some(us) = self.switch_epoch {
            flag("--switch-epoch", us.to_string());
        }
        out
    }
}

/// Why the options of a compilation could not be resolved.
pub enum OptError {
    /// The program does not compile: its diagnostics.
    Program(Vec<irgl_diagnostics::Diagnostic>),
    /// The options are wrong.
    Options(String),
}

fn switch(on: bool) -> String {
    if on { "on" } else { "off" }.to_string()
}
