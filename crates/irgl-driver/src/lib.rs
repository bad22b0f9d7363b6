//! The compiler driver: [`compile`] takes a source and an [`OptConfig`] and returns CUDA or
//! diagnostics. It does no I/O; the CLI, the snapshot tests and the autotuner call it.
//!
//! The pipeline is [`optimize`], one straight function: the passes in order, the IR
//! verified after lowering and after each of them (in debug builds and tests, or when asked),
//! each step timed.

use std::time::{Duration, Instant};

use irgl_diagnostics::{Diagnostic, FileId};
use irgl_ir::Module;

pub use irgl_cuda::GraphNeeds;
pub use irgl_opt::{LevelChoices, OptConfig, OptLevel, ScheduleSpec};

/// The stack a thread needs to run every stage on any program the parser accepts. The parser
/// rejects nesting deeper than [`irgl_syntax::MAX_NESTING`] levels (E0010) without
/// recursion; past it the stages recurse on the tree, and in a debug build one level costs up to
/// 12 KiB of stack (the checker's statement walk), under 3 MiB at the limit. This is that with a wide
/// margin: `irglc` runs its commands on a thread of this size, and a test of the limit runs on
/// one (`tests/nesting.rs`).
pub const STACK_BYTES: usize = 16 << 20;

/// A source file to compile.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    pub file: FileId,
    /// The file's name as the user gave it (it goes into the generated header).
    pub name: &'a str,
    pub text: &'a str,
}

impl Source<'_> {
    /// The program's name: the file name without folders and `.irgl`.
    pub fn program_name(&self) -> String {
        let base = self.name.rsplit(['/', '\\']).next().unwrap_or(self.name);
        base.strip_suffix(".irgl").unwrap_or(base).to_string()
    }
}

/// The result of a compilation.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub cuda: String,
    /// The IR after every pass.
    pub module: Module,
    /// What the program needs of its input graph.
    pub needs: GraphNeeds,
    /// Warnings of the checker.
    pub warnings: Vec<Diagnostic>,
}

/// Whether `config` asks for an optimization that applies only where the program allows it
/// (`--async all`, `--outline outer`, `--aggregate` at some level), so that it may do nothing.
fn config_may_do_nothing(config: &OptConfig) -> bool {
    config.asynchronous == irgl_opt::KernelSet::All
        || config.outline == irgl_opt::OutlineConfig::Outer
        || config.aggregate.default != irgl_opt::AggregateLevel::None
        || config.adapt.on
        || config.async_switch
        || config.grid_wait
        || config.settle
        || config.split_nodes == irgl_opt::KernelSet::All
}

/// Warnings for the options of [`config_may_do_nothing`] that changed nothing in `m` (the
/// program after the passes; `lowered`, before them), with the reasons the analyses give
/// (what `irglc emit outline` prints).
fn options_without_effect(lowered: &Module, m: &Module, config: &OptConfig) -> Vec<Diagnostic> {
    use irgl_ir::{ExprKind, StmtKind, visit};
    let mut out = Vec::new();
    if config.asynchronous == irgl_opt::KernelSet::All
        && m.kernels.iter().all(|(_, k)| k.asynchronous.is_none())
    {
        let reasons = irgl_analysis::AsyncCandidates::build(lowered).render(lowered);
        let mut d = Diagnostic::warning(
            "W0501",
            "--async all: no kernel can run asynchronously; the program is compiled without it",
        );
        d = if reasons.is_empty() {
            d.with_note("no kernel pops a worklist")
        } else {
            reasons.lines().fold(d, |d, l| d.with_note(l.to_string()))
        };
        out.push(d);
    }
    let outlined = visit::block_any(&m.host, &m.host.block, &|s| {
        matches!(s, StmtKind::Control(_))
    });
    if config.outline == irgl_opt::OutlineConfig::Outer && !outlined {
        let tree = irgl_analysis::OutlineTree::build(lowered).render(lowered);
        let mut d = Diagnostic::warning(
            "W0502",
            "--outline outer: no Iterate or Pipe can be outlined; the program is compiled without it",
        );
        d = if tree.is_empty() {
            d.with_note("main has no Iterate and no Pipe")
        } else {
            tree.lines()
                .fold(d, |d, l| d.with_note(l.trim().to_string()))
        };
        out.push(d);
    }
    if config.aggregate.default != irgl_opt::AggregateLevel::None {
        let mut sites = false;
        for (_, k) in m.kernels.iter() {
            let body = &k.body;
            sites |= visit::block_any(body, &body.block, &|s| {
                matches!(s, StmtKind::Push(_) | StmtKind::Accumulate(_))
            });
            visit::walk_block_exprs(body, &body.block, &mut |e| {
                sites |= matches!(body.exprs[e].kind, ExprKind::FetchAdd { .. });
            });
        }
        if !sites {
            out.push(
                Diagnostic::warning(
                    "W0503",
                    format!(
                        "--aggregate {}: the program has nothing to aggregate",
                        config.aggregate.default.name()
                    ),
                )
                .with_note("no kernel pushes to a worklist or adds to an integer global"),
            );
        }
    }
    if config.adapt.on && m.kernels.iter().all(|(_, k)| k.serial_version.is_none()) {
        let why = if m.graph.mesh {
            "a mesh program: the rule measures a graph's degrees"
        } else {
            "a serial version is made of a kernel whose nested loops are scheduled, in ForAlls over the nodes, and whose scheduled loops neither push nor loop until a break"
        };
        out.push(
            Diagnostic::warning(
                "W0504",
                "--adapt on: no kernel gets a serial version; the program is compiled with one version of each",
            )
            .with_note(why),
        );
    }
    if config.settle && m.kernels.iter().all(|(_, k)| !k.settled) {
        let reasons = irgl_analysis::SettleCandidates::build(lowered).render(lowered);
        let d = Diagnostic::warning(
            "W0507",
            "--settle on: no loop runs its rounds without grid barriers; the option changes nothing",
        );
        out.push(if reasons.is_empty() {
            d.with_note(
                "it applies to `Iterate Unordered While Any` loops, and the program has none",
            )
        } else if config.outline == irgl_opt::OutlineConfig::None {
            d.with_note("it applies to outlined loops (--outline), and none is outlined")
        } else {
            d.with_note(reasons.trim_end().to_string())
        });
    }
    if config.split_nodes == irgl_opt::KernelSet::All
        && m.kernels.iter().all(|(_, k)| !k.facts().over_split)
    {
        let reasons = irgl_analysis::SplitCandidates::build(lowered).render(lowered);
        let d = Diagnostic::warning(
            "W0508",
            "--split-nodes all: no kernel runs over split nodes; the option changes nothing",
        );
        out.push(if reasons.is_empty() {
            d.with_note("it applies to kernels whose body is a ForAll over the nodes, and the program has none")
        } else {
            reasons.lines().fold(d, |d, l| d.with_note(l.to_string()))
        });
    }
    if config.grid_wait && m.kernels.iter().all(|(_, k)| !k.hands_items_to_the_grid()) {
        out.push(
            Diagnostic::warning(
                "W0506",
                "--grid-wait on: no nested loop hands items to the grid; the option changes nothing",
            )
            .with_note("it applies to loops under gd (--nested gd+..., chosen by -O2 where a loop can take it)"),
        );
    }
    if config.async_switch && m.kernels.iter().all(|(_, k)| k.async_version.is_none()) {
        let mut trial = lowered.clone();
        let why = match irgl_opt::run_asynchronously(&mut trial, config) {
            Ok(()) => irgl_opt::switch_asynchrony::candidate(&trial, config)
                .err()
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        out.push(
            Diagnostic::warning(
                "W0505",
                "--async-switch on: no loop can switch between rounds and asynchrony; the program is compiled without it",
            )
            .with_note(why),
        );
    }
    out
}

/// A callback that sees the IR after each step of the pipeline.
pub type StepHook<'a> = &'a mut dyn FnMut(&str, &Module);

/// Options of the pipeline itself (not of the program).
pub struct Trace<'a> {
    /// Verify the IR after lowering and after each pass.
    pub verify: bool,
    /// Called with each step's name and the IR after it (`lower`, then each pass).
    pub on_step: Option<StepHook<'a>>,
    /// How long each step took, in order.
    pub timings: Vec<(&'static str, Duration)>,
}

impl Default for Trace<'_> {
    fn default() -> Self {
        Trace {
            verify: cfg!(debug_assertions),
            on_step: None,
            timings: Vec::new(),
        }
    }
}

impl Trace<'_> {
    fn step(&mut self, name: &'static str, start: Instant, m: &Module) {
        self.timings.push((name, start.elapsed()));
        if self.verify {
            irgl_ir::assert_valid(m, name);
        }
        if let Some(f) = self.on_step.as_mut() {
            f(name, m);
        }
    }
}

/// The command that regenerates a program's CUDA with these options (their canonical text
/// starts with `-O0`: the flags are every option that differs from it).
pub fn rebuild_command(source: &str, program: &str, config: &OptConfig) -> String {
    format!(
        "irglc compile {source} {} -o {program}.cu",
        config.canonical()
    )
}

/// The option set that an optimization level chooses for a program, with the reasons
/// (`irgl_opt::choose_options` on the program as lowered).
pub fn choose_options(
    source: Source<'_>,
    level: OptLevel,
) -> Result<LevelChoices, Vec<Diagnostic>> {
    let (module, _) = lower(source)?;
    Ok(irgl_opt::choose_options(&module, level))
}

/// The option set that the words of an `irglc compile` command line give for a program: the
/// choices of the level they name (`-O0`, `-O1`, `-O2`; `unnamed` when they name none), then
/// the other flags over them. Also returns what the level chose. The command line's default
/// level is `-O2`; the named option sets of `tests/option-sets.txt` and of the benchmark
/// suites start from `-O0` unless they name a level, so that each is one fixed option set.
pub fn options_from_words<S: AsRef<str>>(
    source: Source<'_>,
    words: &[S],
    unnamed: OptLevel,
) -> Result<(OptConfig, LevelChoices), Vec<Diagnostic>> {
    let bad = |e: String| vec![Diagnostic::error("E0505", e)];
    let mut level = unnamed;
    let mut flags: Vec<&str> = Vec::new();
    let mut it = words.iter().map(AsRef::as_ref);
    while let Some(w) = it.next() {
        match w.strip_prefix("-O") {
            Some("") => {
                let n = it
                    .next()
                    .ok_or_else(|| bad("-O: a level is missing".into()))?;
                level = OptLevel::parse(n).map_err(|e| bad(format!("-O {e}")))?;
            }
            Some(n) => level = OptLevel::parse(n).map_err(|e| bad(format!("-O {e}")))?,
            None => flags.push(w),
        }
    }
    let chosen = choose_options(source, level)?;
    let mut config = chosen.config.clone();
    config.apply_args(&flags).map_err(bad)?;
    Ok((config, chosen))
}

/// Parses, checks and lowers a program; the checker's warnings come back with the module.
pub fn lower(source: Source<'_>) -> Result<(Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (program, mut diags) = irgl_syntax::parse(source.file, source.text);
    if irgl_check::has_errors(&diags) {
        return Err(diags);
    }
    let (info, check_diags) = irgl_check::check(&program);
    diags.extend(check_diags);
    if irgl_check::has_errors(&diags) {
        return Err(diags);
    }
    let module = irgl_ir::lower(&program, &info, &source.program_name(), source.name);
    Ok((module, diags))
}

/// The optimization pipeline, in order. Options that do not apply to the program are
/// errors.
pub fn optimize(
    m: &mut Module,
    config: &OptConfig,
    trace: &mut Trace<'_>,
) -> Result<(), Vec<Diagnostic>> {
    if let Err(errors) = config.validate() {
        return Err(errors
            .into_iter()
            .map(|e| Diagnostic::error("E0505", e))
            .collect());
    }
    m.launch.block_size = config.block_size;
    m.launch.async_grid = config.async_grid;
    m.launch.async_local = config.async_local;
    m.launch.check_indices = config.check_indices;
    m.launch.wide_edges = config.wide_edges;
    m.launch.grid = config.grid;
    m.launch.serial_rule = config.adapt.serial_rule().filter(|_| !m.graph.mesh);
    m.launch.grid_wait = config.grid_wait;
    if config.multi_gpu {
        // Judged on the program as lowered, before the passes rewrite its kernels.
        m.partitioned = Some(partitioned_exchanges(m).map_err(|d| vec![d])?);
    }

    let t = Instant::now();
    irgl_opt::run_asynchronously(m, config)?;
    trace.step("run_asynchronously", t, m);

    let t = Instant::now();
    irgl_opt::switch_asynchrony(m, config)?;
    trace.step("switch_asynchrony", t, m);

    let t = Instant::now();
    irgl_opt::backoff_retries(m, config)?;
    trace.step("backoff_retries", t, m);

    let t = Instant::now();
    irgl_opt::drop_repeats(m, config)?;
    trace.step("drop_repeats", t, m);

    let t = Instant::now();
    irgl_opt::unroll_pipes(m, config)?;
    trace.step("unroll_pipes", t, m);

    let t = Instant::now();
    irgl_opt::settle_rounds(m, config)?;
    trace.step("settle_rounds", t, m);

    let t = Instant::now();
    irgl_opt::split_nodes(m, config)?;
    trace.step("split_nodes", t, m);

    let t = Instant::now();
    irgl_opt::schedule_nested_loops(m, config)?;
    trace.step("schedule_nested_loops", t, m);

    let t = Instant::now();
    irgl_opt::aggregate_pushes(m, config)?;
    trace.step("aggregate_pushes", t, m);

    let t = Instant::now();
    irgl_opt::outline_iterations(m, config)?;
    trace.step("outline_iterations", t, m);

    Ok(())
}

/// What a program built with `--multi-gpu on` exchanges between rounds, or E0513 with why it
/// cannot run partitioned: the analysis's refusal, or a part of partitioned execution that is
/// not built (a global updated by two kinds of atomic, program arrays, edge properties used by
/// `main`).
fn partitioned_exchanges(m: &Module) -> Result<irgl_ir::Partitioned, Diagnostic> {
    use irgl_ir::{ExprKind, Place, PropOwner, StmtKind, visit};
    let refuse = |why: String| {
        Diagnostic::error(
            "E0513",
            format!(
                "--multi-gpu on: {} cannot run partitioned over several GPUs",
                m.name
            ),
        )
        .with_note(why)
        .with_note("`irglc emit partition` gives the verdict; docs/multi-gpu.md says what applies")
    };
    let plan = irgl_analysis::PartitionPlan::build(m);
    let partitioned = plan.verdict.map_err(|r| {
        refuse(match r.kernel {
            Some(k) => format!("kernel `{k}` {}", r.why),
            None => r.why,
        })
    })?;
    // A global is combined after each launch by the merge of the one atomic that updates it
    // (the analysis accepts only merging atomics on globals).
    for (_, k) in m.kernels.iter() {
        let mut ops: Vec<(irgl_ir::GlobalId, irgl_ir::AtomicOp)> = Vec::new();
        let mut mixed = None;
        visit::walk_block_exprs(&k.body, &k.body.block, &mut |e| {
            if let ExprKind::Atomic {
                op,
                place: Place::Global(g),
                ..
            } = &k.body.exprs[e].kind
            {
                match ops.iter().find(|(x, _)| x == g) {
                    Some((_, first)) if first != op && mixed.is_none() => {
                        mixed = Some((*g, *first, *op))
                    }
                    Some(_) => {}
                    None => ops.push((*g, *op)),
                }
            }
        });
        if let Some((g, a, b)) = mixed {
            return Err(refuse(format!(
                "kernel `{}` updates the global `{}` by {} and by {}: the GPUs' copies are combined by one of them",
                k.name,
                m.globals[g.index()].name,
                a.name(),
                b.name()
            )));
        }
    }
    if let Some(p) = m.graph.props.iter().find(|p| p.owner == PropOwner::Array) {
        return Err(refuse(format!(
            "it has program-level arrays (`{}`), which are not partitioned",
            p.name
        )));
    }
    // A kernel's node parameter reaches each GPU as its local id, or none where the GPU
    // holds no copy of the node: it can index and be compared for equality, not be a value.
    for (_, k) in m.kernels.iter() {
        if let Some(l) = node_param_as_value(&k.body) {
            return Err(refuse(format!(
                "kernel `{}` uses its node parameter `{}` as a value (ordered, computed with or stored): passing the global id to every GPU is not built yet",
                k.name, k.body.locals[l].name
            )));
        }
    }
    let body = &m.host;
    let mut edge_prop = None;
    let mut note = |prop: irgl_ir::PropId| {
        if m.prop(prop).owner == PropOwner::Edge {
            edge_prop.get_or_insert(prop);
        }
    };
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        if let ExprKind::Element { prop, .. } = &body.exprs[e].kind {
            note(*prop);
        }
    });
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Assign {
            place: Place::Element { prop, .. },
            ..
        } = &body.stmts[s].kind
        {
            note(*prop);
        }
    });
    if let Some(p) = edge_prop {
        return Err(refuse(format!(
            "main uses the edge property `{}`: reading or setting an edge's value across GPUs is not built yet",
            m.prop(p).name
        )));
    }
    Ok(partitioned)
}

/// A node-typed kernel parameter that `body` orders, computes with, converts or stores.
fn node_param_as_value(body: &irgl_ir::Body) -> Option<irgl_ir::LocalId> {
    use irgl_ir::{BinaryOp, ExprId, ExprKind, LocalKind, Place, StmtKind, Ty, visit};
    let param = |e: ExprId| {
        let mut e = e;
        while let ExprKind::Cast(a) = &body.exprs[e].kind {
            e = *a;
        }
        match &body.exprs[e].kind {
            ExprKind::Local(l)
                if body.locals[*l].kind == LocalKind::Param && body.locals[*l].ty == Ty::Node =>
            {
                Some(*l)
            }
            _ => None,
        }
    };
    let mut found = None;
    visit::walk_block_exprs(body, &body.block, &mut |e| {
        let x = &body.exprs[e];
        let hit = match &x.kind {
            ExprKind::Binary(op, a, b) if !matches!(op, BinaryOp::Eq | BinaryOp::Ne) => {
                param(*a).or_else(|| param(*b))
            }
            ExprKind::Cast(a) if x.ty != Ty::Node => param(*a),
            ExprKind::Atomic { args, .. } => args.iter().find_map(|a| param(*a)),
            ExprKind::Builtin(_, args) => args.iter().find_map(|a| param(*a)),
            _ => None,
        };
        found = found.or(hit);
    });
    visit::walk_stmts(body, &body.block, &mut |s| {
        if let StmtKind::Assign {
            place: Place::Element { .. },
            value,
            ..
        } = &body.stmts[s].kind
        {
            found = found.or(param(*value));
        }
    });
    found
}

/// Compiles a program with `config`.
pub fn compile(source: Source<'_>, config: &OptConfig) -> Result<Compiled, Vec<Diagnostic>> {
    compile_traced(source, config, &mut Trace::default())
}

/// [`compile`] with the pipeline's tracing and verification options.
pub fn compile_traced(
    source: Source<'_>,
    config: &OptConfig,
    trace: &mut Trace<'_>,
) -> Result<Compiled, Vec<Diagnostic>> {
    let t = Instant::now();
    let (mut module, mut warnings) = lower(source)?;
    trace.step("lower", t, &module);
    // The options that can leave a program as it is say so, with the analyses' reasons.
    let lowered = config_may_do_nothing(config).then(|| module.clone());
    optimize(&mut module, config, trace)?;
    if let Some(lowered) = &lowered {
        warnings.extend(options_without_effect(lowered, &module, config));
    }
    let t = Instant::now();
    let meta = irgl_cuda::EmitMeta {
        options: config.canonical(),
        rebuild: rebuild_command(source.name, &module.name, config),
    };
    let cuda = irgl_cuda::emit_cuda(&module, &meta);
    trace.timings.push(("emit_cuda", t.elapsed()));
    let needs = irgl_cuda::graph_needs(&module);
    Ok(Compiled {
        cuda,
        module,
        needs,
        warnings,
    })
}
