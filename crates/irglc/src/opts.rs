//! The optimization flags shared by `compile`, `build`, `run` and `emit ir`, and how they
//! become an [`OptConfig`].

use std::path::PathBuf;

use irgl_ir::GridSize;
use irgl_opt::{AggregateLevel, BackoffRounds, KernelSet, OptConfig, OutlineConfig, ScheduleSpec};

/// Optimization options. Each flag overrides the same option of `--config`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct OptArgs {
    /// Read the options from a JSON file (an `OptConfig`: docs/optimizations.md);
    /// flags given as well override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Threads per block of every kernel (a multiple of 32; default 256).
    #[arg(long, value_name = "N")]
    pub block_size: Option<u32>,
    /// How nested ForAlls run, by default: `serial` (in the thread that reaches them), or a
    /// combination of tb (thread block), wp (warp), vw2/vw4/vw8/vw16 (virtual warps), fg
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
    /// the default), `sm` (one block per multiprocessor), `Ksm` (K per multiprocessor) or a
    /// number of blocks. Fewer blocks make the grid barrier cheaper: loops of many small
    /// rounds (bfs on road networks) run faster on `sm` or fewer.
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
    /// Pipe unrolling: copies of the body of every repeating Pipe per trip of its loop
    /// (1, the default: none; up to 8). Programs without such a Pipe are left as they are.
    #[arg(long, value_name = "K")]
    pub pipe_unroll: Option<u32>,
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
    /// The option set: `--config` (or the defaults), then the flags.
    pub fn to_config(&self) -> Result<OptConfig, String> {
        let mut c = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                serde_json::from_str(&text)
                    .map_err(|e| format!("{}: not an option set: {e}", path.display()))?
            }
            None => OptConfig::default(),
        };
        if let Some(b) = self.block_size {
            c.block_size = b;
        }
        if let Some(s) = &self.nested {
            c.nested.default = s.clone();
        }
        for (at, spec) in &self.nested_at {
            c.nested.overrides.insert(at.clone(), spec.clone());
        }
        if let Some(t) = self.tb_threshold {
            c.nested.tb_threshold = Some(t);
        }
        if let Some(t) = self.warp_threshold {
            c.nested.warp_threshold = t;
        }
        if let Some(level) = self.aggregate {
            c.aggregate.default = level;
        }
        for (at, level) in &self.aggregate_at {
            c.aggregate.overrides.insert(at.clone(), *level);
        }
        if let Some(o) = &self.outline {
            c.outline = o.clone();
        }
        if let Some(g) = self.outline_grid {
            c.outline_grid = g;
        }
        if let Some(a) = &self.asynchronous {
            c.asynchronous = a.clone();
        }
        if let Some(g) = self.async_grid {
            c.async_grid = g;
        }
        if let Some(g) = self.grid {
            c.grid = g;
        }
        if let Some(l) = self.async_local {
            c.async_local = l;
        }
        if let Some(on) = self.check_indices {
            c.check_indices = on;
        }
        if let Some(k) = &self.retry_backoff {
            c.retry_backoff.kernels = k.clone();
        }
        if let Some(n) = self.backoff_chunk {
            c.retry_backoff.chunk = n;
        }
        if let Some(n) = self.backoff_serial_below {
            c.retry_backoff.serial_below = n;
        }
        if let Some(r) = self.backoff_rounds {
            c.retry_backoff.rounds = r;
        }
        if let Some(k) = self.pipe_unroll {
            c.pipe_unroll = k;
        }
        Ok(c)
    }
}
