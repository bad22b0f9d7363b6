//! Outlined orchestration: the control kernel of a [`Control`] (iteration outlining), and the
//! host code that launches it.
//!
//! Every thread of the control kernel runs the orchestration alike, with its own copies of
//! `main`'s scalars and of the worklists' views (swapped in every thread). Device state is
//! changed by a launch (every thread calls the kernel's device function), or by one thread (a
//! worklist clear or fill, a reduction reset, an element write); every thread reads it (a
//! worklist's size, a reduction's result) and so takes the same branches.
//!
//! Grid barriers separate what conflicts, and only that: the emitter keeps the [`Hazards`]
//! since the last barrier (what was read and written, by resource: each worklist view, the
//! two words of the reduction flag, the state block, what launches keep of their own, and
//! each property, array and global of the program's data, as `irgl_analysis::DataEffects`
//! finds them) and puts a barrier before a statement that writes what was read or written
//! since, or reads what was written since. A launch reads and writes the places its kernel
//! does, reads the worklists, and writes the lists its kernel pushes to and the flag it
//! contributes to (a kernel with a grid barrier of its own: everything); two launches are
//! always a barrier apart. So a leader's write of `level_start` needs no barrier before a
//! kernel that does not touch it. A worklist swap renames the views in the hazards, so that
//! they stay in the names the code uses; a new reduction (`irgl::RoundFlag::start`, every
//! thread, no write) takes the flag's other word and renames the two. Control flow: an `if`
//! joins the hazards of its paths, and where the first conflict after it is with the
//! hazards of some paths only (and not with what came after the join), the barrier goes at
//! the end of those paths instead ([`Sink`]), so that the others pass without one (bfs-do's
//! push rounds: the pull step's barrier is its own); a loop's body starts from hazards that
//! cover both its entry and its back edge (found by emitting the body aside until they
//! agree), so that a barrier goes only where an access of one round conflicts with one of the
//! round before; after the loop come the hazards of its breaks and of its head.
//!
//! A leader's worklist clear that nothing has touched since the last barrier, with only
//! straight-line code and stops between, joins that barrier as its action
//! (`irgl::grid_sync_then`): the last thread to arrive clears the list before it releases the
//! others. So a bfs round has one barrier: after the kernel, whose last arrival also empties
//! the list that becomes the next output.
//!
//! At the end one thread writes the scalars the control assigns, the rounds counted, the
//! worklists' roles and why it stopped early (an overflow, an `Initial` item out of range) to
//! a state block that the host reads back.

use irgl_analysis::DataEffects;
use irgl_ir::*;

use crate::Side;
use crate::device::kernel_runtime_params;
use crate::expr::{c_type, wl_name};
use crate::names::cpp;
use crate::stmt::Emitter;
use crate::writer::Writer;

/// What the control kernel of one control adds to the file.
pub(crate) struct ControlDef {
    /// The state block shared with the host.
    pub state: String,
    /// Its control kernels: the control itself, then its versions ([`ControlVersion`]).
    pub kernels: Vec<String>,
    /// The state block's type, and the `Host` member that holds its device copy (allocated
    /// once with the host, not at every run: an allocation and its free took 5-10% of a
    /// short run's time).
    pub state_type: String,
    pub state_member: String,
}

/// The control statement's state of emission: the kernels it calls, whether a stop jumps
/// to the end, the hazards since the last barrier, those of the breaks and of the continues
/// of each enclosing loop (innermost last; no continues where a loop's body starts clean and
/// a `continue` flushes), and the last barrier while a clear may join it.
#[derive(Clone, Debug)]
pub(crate) struct ControlCtx {
    pub calls: Vec<KernelId>,
    pub exit_used: bool,
    pub hazards: Hazards,
    pub breaks: Vec<Hazards>,
    pub continues: Vec<Option<Hazards>>,
    pub hoist: Option<Hoist>,
    /// After an `if` some of whose paths end clean: where the others end, while the barrier
    /// their hazards call for may still go there instead of after the join.
    pub sink: Option<Sink>,
    /// Which version of the control kernel this is.
    pub version: ControlVersion,
}

/// The paths of an `if` and what happened since they joined. The first statement after the
/// join that conflicts with the hazards of some paths but not with those of the others, nor
/// with those since the join, gets its barrier at the end of each path it conflicts with
/// instead: the other paths then pass without one.
#[derive(Clone, Debug)]
pub(crate) struct Sink {
    /// Where each path ends, in increasing order of position.
    pub ends: Vec<PathEnd>,
    /// The hazards since the join.
    pub since: Hazards,
}

/// Where a path of an `if` ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PathEnd {
    /// Where its next line starts in the writer's text (a [`Writer::mark`]).
    pub at: usize,
    /// The indentation there.
    pub level: usize,
    /// The hazards the path leaves.
    pub hazards: Hazards,
    /// Whether a barrier may go there (the path does not end by leaving its block; an `else`
    /// that is not written has no place for one).
    pub open: bool,
}

/// A version of a control kernel. A control has one for each combination that its kernels'
/// versions call for: without `gd` where a kernel has a version without it, and rounds only
/// where it switches between rounds and asynchrony on a grid chosen by the graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ControlVersion {
    /// It calls the kernels' versions without `gd` (named `irgl_controlN_nogd`), launched on
    /// graphs without a node past the grid's threshold.
    pub no_grid: bool,
    /// It calls a switched kernel's version in rounds only, without the switch (named
    /// `irgl_controlN_rounds`): launched on the graphs whose rounds are large (every resident
    /// block), where asynchrony lost in every measurement, so that there the control is
    /// `-O2`'s, registers and all. The switched control is launched on one block per
    /// multiprocessor and compiled for it.
    pub rounds_only: bool,
}

impl ControlVersion {
    fn suffix(self) -> &'static str {
        match (self.rounds_only, self.no_grid) {
            (false, false) => "",
            (false, true) => "_nogd",
            (true, false) => "_rounds",
            (true, true) => "_rounds_nogd",
        }
    }
}

/// The last grid barrier, while a leader's worklist clear may still join it as its action:
/// since it, only straight-line code and stops.
#[derive(Clone, Debug)]
pub(crate) struct Hoist {
    /// Where the barrier's line starts in the writer's text.
    at: usize,
    /// For each view (in, out, retry), the view that had its list at the barrier.
    views: [usize; 3],
    /// The actions so far.
    actions: Vec<String>,
    /// The comment that says what the barrier orders (empty: none).
    why: String,
}

/// The worklist roles, in the order of the views' indices (`irgl_roles`, [`Hoist::views`]).
const ROLES: [WorklistRef; 3] = [WorklistRef::In, WorklistRef::Out, WorklistRef::Retry];

fn role(w: WorklistRef) -> usize {
    ROLES
        .iter()
        .position(|&r| r == w)
        .expect("every role is listed")
}

/// A control kernel's view of the list with role `w`: `irgl_in`, `irgl_out`, `irgl_retry`.
fn view(w: WorklistRef) -> String {
    format!("irgl_{}", wl_name(w))
}

/// What the threads of a control kernel read and wrote since the last grid barrier: sets of
/// resources (the `Hazards::IN` ... bits) and of data places (the properties and globals of
/// [`PlaceSet`](irgl_analysis::PlaceSet)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hazards {
    pub reads: u16,
    pub writes: u16,
    pub data: DataEffects,
}

impl Hazards {
    /// The input worklist's view: its items and its count.
    pub const IN: u16 = 1;
    pub const OUT: u16 = 2;
    pub const RETRY: u16 = 4;
    /// The Any/All reduction flag.
    pub const FLAG: u16 = 8;
    /// The state block (the `Initial` check's report).
    pub const STATE: u16 = 16;
    /// What a launch keeps of its own besides the program's data (the tables of `gd`, of
    /// repeated pops, of the split graph's parts, the device's error flag): every launch reads
    /// and writes it, so that two launches are always a barrier apart.
    pub const LAUNCH: u16 = 32;
    /// The reduction flag's other word (`irgl::RoundFlag`), which the next reduction takes.
    pub const FLAG2: u16 = 64;
    /// The task queue of asynchronous kernels (its counters and stop flag).
    pub const QUEUE: u16 = 128;
    pub const ALL: u16 = 255;

    /// Reads and writes of resources, no data.
    pub fn bits(reads: u16, writes: u16) -> Hazards {
        Hazards {
            reads,
            writes,
            data: DataEffects::default(),
        }
    }

    /// Reads and writes of data, no other resource.
    pub fn of_data(data: DataEffects) -> Hazards {
        Hazards {
            reads: 0,
            writes: 0,
            data,
        }
    }

    /// Every resource and every place.
    pub fn all() -> Hazards {
        Hazards {
            reads: Hazards::ALL,
            writes: Hazards::ALL,
            data: DataEffects::ALL,
        }
    }

    pub fn is_empty(self) -> bool {
        self.reads == 0 && self.writes == 0 && self.data == DataEffects::default()
    }

    /// Whether doing `next` now needs a barrier first: it writes what was read or written
    /// since the last one, or reads what was written.
    pub fn conflicts(self, next: Hazards) -> bool {
        let (resources, places) = self.conflict(next);
        resources != 0 || !places.is_empty()
    }

    /// What of `self` (pending) and `next` conflicts: the resources and the places, as sets.
    pub fn conflict(self, next: Hazards) -> (u16, irgl_analysis::PlaceSet) {
        let resources = (next.writes & (self.reads | self.writes)) | (next.reads & self.writes);
        let pending = self.data.reads.union(self.data.writes);
        let places = irgl_analysis::PlaceSet(
            (next.data.writes.0 & pending.0) | (next.data.reads.0 & self.data.writes.0),
        );
        (resources, places)
    }

    pub fn join(self, other: Hazards) -> Hazards {
        Hazards {
            reads: self.reads | other.reads,
            writes: self.writes | other.writes,
            data: self.data.join(other.data),
        }
    }

    /// The hazards after the views of the input list and of `other` are swapped.
    pub fn swapped(self, other: u16) -> Hazards {
        let swap = |set: u16| {
            let mut out = set & !(Hazards::IN | other);
            if set & Hazards::IN != 0 {
                out |= other;
            }
            if set & other != 0 {
                out |= Hazards::IN;
            }
            out
        };
        Hazards {
            reads: swap(self.reads),
            writes: swap(self.writes),
            data: self.data,
        }
    }

    /// The hazards after a reduction starts on the flag's other word.
    pub fn flag_swapped(self) -> Hazards {
        let swap = |set: u16| {
            let mut out = set & !(Hazards::FLAG | Hazards::FLAG2);
            if set & Hazards::FLAG != 0 {
                out |= Hazards::FLAG2;
            }
            if set & Hazards::FLAG2 != 0 {
                out |= Hazards::FLAG;
            }
            out
        };
        Hazards {
            reads: swap(self.reads),
            writes: swap(self.writes),
            data: self.data,
        }
    }

    pub fn worklist(w: WorklistRef) -> u16 {
        match w {
            WorklistRef::In => Hazards::IN,
            WorklistRef::Out => Hazards::OUT,
            WorklistRef::Retry => Hazards::RETRY,
        }
    }
}

/// What a launch of a kernel with `facts` and the data effects `data` reads and writes (see
/// the module's header).
pub(crate) fn launch_hazards(facts: &KernelFacts, data: DataEffects) -> Hazards {
    if facts.cooperative {
        return Hazards::all();
    }
    let mut reads = Hazards::LAUNCH;
    let mut writes = Hazards::LAUNCH;
    if facts.uses_worklist {
        reads |= Hazards::IN | Hazards::OUT | Hazards::RETRY;
    }
    if facts.pushes {
        writes |= Hazards::OUT;
    }
    if facts.retries {
        writes |= Hazards::RETRY;
    }
    if facts.reduces {
        reads |= Hazards::FLAG;
        writes |= Hazards::FLAG;
    }
    if facts.asynchronous || facts.switched {
        reads |= Hazards::QUEUE;
        writes |= Hazards::QUEUE;
    }
    Hazards {
        reads,
        writes,
        data,
    }
}

/// What a launch of kernel `k` of `m` reads and writes; every place where the program runs
/// over several GPUs (its exchanges follow the launches).
pub(crate) fn kernel_hazards(m: &Module, k: &Kernel) -> Hazards {
    let data = if m.partitioned.is_some() {
        DataEffects::ALL
    } else {
        DataEffects::of_kernel(m, k)
    };
    launch_hazards(&k.facts(), data)
}

/// The device state that evaluating `exprs` in a control kernel touches: the worklists'
/// sizes and the reduction's result it reads, and the data it reads (and writes, where an
/// atomic is among them).
pub(crate) fn device_access(m: &Module, body: &Body, exprs: &[ExprId]) -> Hazards {
    let mut reads = 0;
    for &e in exprs {
        visit::walk_expr(body, e, &mut |x| {
            reads |= match &body.exprs[x].kind {
                ExprKind::WorklistSize(w) => Hazards::worklist(*w),
                ExprKind::ReduceResult => Hazards::FLAG,
                _ => 0,
            };
        });
    }
    Hazards {
        reads,
        writes: 0,
        data: DataEffects::of_exprs(m, body, exprs),
    }
}

/// A grid barrier's line: `irgl::grid_sync();`, or with `actions`
/// `irgl::grid_sync_then([&] { ... });`, and the comment `why`.
fn barrier_text(actions: &[String], why: &str) -> String {
    let call = if actions.is_empty() {
        "irgl::grid_sync();".to_string()
    } else {
        format!("irgl::grid_sync_then([&] {{ {} }});", actions.join(" "))
    };
    if why.is_empty() {
        call
    } else {
        format!("{call}  {why}")
    }
}

/// The names of the places in `set`: `m`'s properties, arrays and globals; `all data` for
/// every place.
fn place_names(m: &Module, set: irgl_analysis::PlaceSet) -> Vec<String> {
    if set == irgl_analysis::PlaceSet::ALL {
        return vec!["all data".to_string()];
    }
    let props = m.graph.props.iter().map(|p| p.name.as_str());
    let globals = m.globals.iter().map(|g| g.name.as_str());
    let all: Vec<&str> = props.chain(globals).collect();
    let mut names: Vec<String> = all
        .iter()
        .take(63)
        .enumerate()
        .filter(|&(i, _)| set.0 & (1u64 << i) != 0)
        .map(|(_, name)| name.to_string())
        .collect();
    if set.0 & (1u64 << 63) != 0 {
        // The last bit stands for every place from the 64th on.
        names.push(match &all[63..] {
            [only] => only.to_string(),
            _ => "the places from the 64th on".to_string(),
        });
    }
    names
}

fn state_name(c: &Control) -> String {
    format!("IrglState{}", c.id.index())
}

/// The `Host` member holding the device copy of `c`'s state block.
fn state_member(c: &Control) -> String {
    format!("irgl_state{}", c.id.index())
}

fn kernel_name(c: &Control) -> String {
    format!("irgl_control{}", c.id.index())
}

/// The name of a kernel's body as a device function.
pub(crate) fn device_fn_name(k: &Kernel) -> String {
    format!("irgl_dev_{}", cpp(&k.name))
}

/// Whether `c` calls serial versions of kernels on some graphs.
fn has_serial_versions(m: &Module, c: &Control) -> bool {
    c.kernels.iter().any(|&k| m.kernels[k].serial_of.is_some())
}

/// Whether `c` calls kernels that have versions without `gd` (then it has a second control
/// kernel, which calls those).
fn has_no_grid_versions(m: &Module, c: &Control) -> bool {
    c.kernels
        .iter()
        .any(|&k| m.kernels[k].no_grid_version.is_some())
}

/// Whether `c` switches between rounds and asynchrony on a grid chosen by the graph (then it
/// has versions in rounds only, for the graphs of large rounds).
fn has_rounds_versions(m: &Module, c: &Control) -> bool {
    switched_kernel(m, c).is_some() && matches!(c.grid, GridSize::Auto(_))
}

/// The kernel of `c` that switches between rounds and asynchrony (it has an asynchronous
/// version), if any.
fn switched_kernel(m: &Module, c: &Control) -> Option<KernelId> {
    c.kernels
        .iter()
        .copied()
        .find(|&k| m.kernels[k].async_version.is_some())
}

/// Whether `block` launches a kernel with a reduction outside a settled region (which has a
/// flag of its own in each block or thread): the control kernel then keeps a `RoundFlag`.
fn reduces_in_rounds(m: &Module, block: &Block) -> bool {
    block.iter().any(|&s| match &m.host.stmts[s].kind {
        StmtKind::Launch(l) => l.reduce.is_some(),
        // Settled, it keeps rounds on the graphs of its kernel's serial version.
        StmtKind::Region(r) if r.settled => match r.kind {
            RegionKind::Iterate(k) => m.kernels[k].serial_version.is_some(),
            RegionKind::Pipe { .. } => false,
        },
        kind => visit::child_blocks(kind)
            .into_iter()
            .any(|b| reduces_in_rounds(m, b)),
    })
}

/// Whether `c` calls an asynchronous kernel (then it takes the task queue).
fn control_is_asynchronous(m: &Module, c: &Control) -> bool {
    c.kernels
        .iter()
        .any(|&k| m.kernels[k].asynchronous.is_some())
}

/// Whether `c` touches the worklists: a kernel it calls pops or pushes one, or its own
/// statements clear, fill or swap them. Only then can one overflow in it.
fn control_uses_worklists(m: &Module, c: &Control) -> bool {
    c.kernels
        .iter()
        .any(|&k| m.kernels[k].facts().uses_worklist)
        || visit::block_any(&m.host, &c.body, &|k| {
            matches!(
                k,
                StmtKind::WorklistClear | StmtKind::WorklistInit(_) | StmtKind::WorklistSwap(_)
            )
        })
}

/// The control kernel of `c` and its state block.
pub(crate) fn control_kernel(m: &Module, c: &Control) -> ControlDef {
    let body = &m.host;
    let state = state_name(c);
    let mut s = Writer::new(0);
    s.open(format!(
        "struct {state} {{  // {}: shared by the host and {}",
        c.origin,
        kernel_name(c)
    ));
    for &l in &c.inputs {
        let local = &body.locals[l];
        s.line(format!("{} {};", c_type(local.ty), cpp(&local.name)));
    }
    s.line("uint64_t iterations;");
    s.line("uint32_t roles[3];    // role (in, out, retry) -> the list that had it at the start");
    s.line(format!(
        "uint32_t stopped;     // 0, 1 + the index of the kernel whose pushes overflowed, or {}: Initial",
        c.kernels.len() + 1
    ));
    s.line("uint32_t bad_initial; // an Initial item out of range: bad_item");
    s.line("uint32_t bad_item;");
    s.line("uint32_t flags[2];    // the words of the reduction flag (irgl::RoundFlag), zero");
    let versions = has_serial_versions(m, c);
    if versions {
        s.line("uint32_t serial_inner;  // 1: call the serial versions (Host::serial_inner)");
    }
    if switched_kernel(m, c).is_some() {
        s.line(
            "irgl::AsyncSwitch sw;  // rounds or asynchrony, launch by launch (irgl/switch.cuh)",
        );
    }
    let calls = c.kernels.len();
    s.line("uint32_t timed;       // 1: time each call, between grid barriers (--kernel-times)");
    s.line(format!(
        "unsigned long long call_ns[{calls}];  // per kernel called: the summed time of its calls"
    ));
    s.line(format!("uint32_t call_counts[{calls}];"));
    s.close("};");
    ControlDef {
        state: s.finish().trim_end().to_string(),
        kernels: control_versions(m, c)
            .into_iter()
            .map(|v| control_kernel_text(m, c, v))
            .collect(),
        state_type: state_name(c),
        state_member: state_member(c),
    }
}

/// The versions of `c`'s control kernel, the control itself first.
fn control_versions(m: &Module, c: &Control) -> Vec<ControlVersion> {
    let mut versions = vec![ControlVersion::default()];
    for rounds_only in [false, true] {
        for no_grid in [false, true] {
            let v = ControlVersion {
                no_grid,
                rounds_only,
            };
            if v != ControlVersion::default()
                && (!no_grid || has_no_grid_versions(m, c))
                && (!rounds_only || has_rounds_versions(m, c))
            {
                versions.push(v);
            }
        }
    }
    versions
}

/// Version `version` of the control kernel of `c`.
fn control_kernel_text(m: &Module, c: &Control, version: ControlVersion) -> String {
    let body = &m.host;
    let state = state_name(c);
    let versions = has_serial_versions(m, c);
    let graph = cpp(&m.graph.name);
    let mut e = Emitter::new(m, body, Side::Device, &m.graph.name, 1);
    e.control = Some(ControlCtx {
        calls: c.kernels.clone(),
        exit_used: false,
        hazards: Hazards::default(),
        breaks: Vec::new(),
        continues: Vec::new(),
        hoist: None,
        sink: None,
        version,
    });
    e.w.line("const bool irgl_leader = blockIdx.x == 0 && threadIdx.x == 0;");
    if versions {
        e.w.line("const bool irgl_serial_inner = irgl_state->serial_inner != 0u;");
    }
    e.w.line("const bool irgl_timed = irgl_state->timed != 0u;");
    let uses_worklists = control_uses_worklists(m, c);
    if uses_worklists {
        e.w.line("irgl::Worklist irgl_in = irgl_wl0, irgl_out = irgl_wl1, irgl_retry = irgl_wl2;");
    }
    if reduces_in_rounds(m, &c.body) {
        e.w.line("irgl::RoundFlag irgl_reduce{irgl_state->flags};");
    }
    e.w.line("uint32_t irgl_roles[3] = {0u, 1u, 2u};");
    e.w.line("uint64_t irgl_iterations = 0;");
    e.w.line("uint32_t irgl_stopped = 0;");
    for &l in &c.inputs {
        let local = &body.locals[l];
        e.w.line(format!(
            "{} {} = irgl_state->{};",
            c_type(local.ty),
            e.x.local(l),
            cpp(&local.name)
        ));
    }
    let switch = switched_kernel(m, c).is_some() && !version.rounds_only;
    if switch {
        // The switch measures the nodes reached since this control began; its choice lives in
        // registers, the same in every thread.
        e.need_bits(0, Hazards::QUEUE | Hazards::STATE);
        e.w.line("irgl_queue.clear_seen();  // the switch counts the nodes reached from here");
        e.w.line("if (irgl_leader) irgl_state->sw.start(irgl::global_ns());");
        e.w.line("uint32_t irgl_sw_mode = irgl_state->sw.mode;  // rounds or asynchrony (irgl/switch.cuh)");
        e.w.line("uint32_t irgl_sw_left = irgl_state->sw.left;  // the epoch's rounds left");
    }
    e.w.open("{");
    e.block(&c.body);
    e.w.close("}");
    let exit_used = e.control.as_ref().is_some_and(|x| x.exit_used);
    if exit_used {
        e.w.line("irgl_done:");
    }
    e.w.open("if (irgl_leader) {");
    if switch {
        e.w.line("irgl_state->sw.finish(irgl::global_ns(), irgl_sw_left);");
    }
    for &l in &c.outputs {
        e.w.line(format!(
            "irgl_state->{} = {};",
            cpp(&body.locals[l].name),
            e.x.local(l)
        ));
    }
    e.w.line("irgl_state->iterations = irgl_iterations;");
    e.w.line("for (int r = 0; r < 3; ++r) irgl_state->roles[r] = irgl_roles[r];");
    e.w.line("irgl_state->stopped = irgl_stopped;");
    e.w.close("}");
    let queue = if control_is_asynchronous(m, c) {
        "irgl::AsyncQueue irgl_queue, "
    } else {
        ""
    };
    let name = format!("{}{}", kernel_name(c), version.suffix());
    let mut what = String::new();
    if version.no_grid {
        what.push_str("; the kernels' versions without gd, for graphs without a node past the grid's threshold");
    }
    if version.rounds_only {
        what.push_str("; in rounds only, for graphs of large rounds (every resident block), where the switch is not launched");
    }
    // The switched control on a grid chosen by the graph runs on one block per multiprocessor
    // only (the graphs of large rounds get the version in rounds): compiled for it, so that
    // the two ways' code need not spill (ptxas left to itself gave it 32-40 registers and up
    // to 780 bytes of spill loads).
    let bounds = if switch && matches!(c.grid, GridSize::Auto(_)) {
        launch_bounds(GridSize::PerSm(1), m.launch.block_size)
    } else {
        launch_bounds(c.grid, m.launch.block_size)
    };
    format!(
        "/// {}, outlined: the orchestration on the device, one resident grid{what}.\n__global__ void {bounds} {name}(G {graph}, irgl::Worklist irgl_wl0, irgl::Worklist irgl_wl1, irgl::Worklist irgl_wl2, {queue}{state}* irgl_state) {{\n{}}}",
        c.origin,
        e.w.finish()
    )
}

/// A control kernel's `__launch_bounds__`. On a grid of K blocks per multiprocessor it is
/// compiled for K (`__launch_bounds__(BLOCK, K)`): more resident blocks would not be used,
/// so ptxas may give each thread up to 65536 / (K x BLOCK) registers rather than spill to
/// keep blocks resident that never run (left to itself it gave kcore's control kernel 48
/// registers and 104 bytes of spills, for a grid of one block per multiprocessor). Every
/// other grid keeps ptxas's choice: there the registers decide how many blocks run.
fn launch_bounds(grid: GridSize, block_size: u32) -> String {
    match grid {
        GridSize::PerSm(k) if k * block_size < 2048 => format!("__launch_bounds__(BLOCK, {k})"),
        _ => "__launch_bounds__(BLOCK)".to_string(),
    }
}

impl Emitter<'_> {
    fn ctx(&mut self) -> &mut ControlCtx {
        self.control.as_mut().expect("in a control kernel")
    }

    /// Stops the control (all threads alike) and reports why through the state block.
    fn stop(&mut self, why: &str) {
        self.ctx().exit_used = true;
        if !why.is_empty() {
            self.w.line(why);
        }
        self.w.line("goto irgl_done;");
    }

    /// The hazards since the last barrier (none outside a control kernel).
    pub(crate) fn hazards(&self) -> Hazards {
        self.control.as_ref().map(|c| c.hazards).unwrap_or_default()
    }

    pub(crate) fn set_hazards(&mut self, h: Hazards) {
        if let Some(c) = self.control.as_mut() {
            c.hazards = h;
            c.sink = None;
        }
    }

    /// After an `if` whose paths ended at `ends`: the hazards of the join, and the paths kept
    /// for a barrier that only some of them need ([`Sink`]).
    pub(crate) fn join_paths(&mut self, ends: &[PathEnd]) {
        let joined = ends
            .iter()
            .fold(Hazards::default(), |j, e| j.join(e.hazards));
        self.set_hazards(joined);
        if let Some(c) = self.control.as_mut()
            && ends.len() > 1
        {
            c.sink = Some(Sink {
                ends: ends.to_vec(),
                since: Hazards::default(),
            });
        }
    }

    /// A grid barrier: nothing is pending after it, and a clear may join it.
    fn barrier(&mut self) {
        self.barrier_then(Vec::new());
    }

    /// A grid barrier before `next`, which conflicts with what is pending: its comment names
    /// what it orders.
    fn barrier_for(&mut self, next: Hazards) {
        let why = self.orders(self.hazards(), next);
        self.barrier_line(Vec::new(), why);
    }

    /// A grid barrier whose last arrival runs `actions` (one thread, before it releases the
    /// others); a clear may join them.
    fn barrier_then(&mut self, actions: Vec<String>) {
        self.barrier_line(actions, String::new());
    }

    fn barrier_line(&mut self, actions: Vec<String>, why: String) {
        let at = self.w.mark();
        self.w.line(barrier_text(&actions, &why));
        let c = self.ctx();
        c.hazards = Hazards::default();
        c.sink = None;
        c.hoist = Some(Hoist {
            at,
            views: [0, 1, 2],
            actions,
            why,
        });
    }

    /// The comment of a barrier between `pending` and `next`: `// orders: ` and what of them
    /// conflicts (the worklist views, the flag, the launches, the properties and globals).
    fn orders(&self, pending: Hazards, next: Hazards) -> String {
        let (resources, places) = pending.conflict(next);
        let mut names: Vec<String> = [
            (Hazards::IN, "irgl_in"),
            (Hazards::OUT, "irgl_out"),
            (Hazards::RETRY, "irgl_retry"),
            (Hazards::FLAG | Hazards::FLAG2, "the reduction flag"),
            (Hazards::STATE, "the state block"),
            (Hazards::QUEUE, "the task queue"),
            (Hazards::LAUNCH, "the launches"),
        ]
        .iter()
        .filter(|(bit, _)| resources & bit != 0)
        .map(|(_, name)| name.to_string())
        .collect();
        names.extend(place_names(self.m(), places));
        if names.is_empty() {
            return String::new();
        }
        format!("// orders: {}", names.join(", "))
    }

    /// Control flow branches or joins here: no clear after it may join a barrier before it.
    pub(crate) fn end_straight_line(&mut self) {
        if let Some(c) = self.control.as_mut() {
            c.hoist = None;
            c.sink = None;
        }
    }

    /// A grid barrier if anything is pending since the last one.
    pub(crate) fn flush(&mut self) {
        if !self.hazards().is_empty() {
            self.barrier();
        }
    }

    /// Before doing `next`: a barrier if that conflicts with what is pending (at the ends of
    /// the paths of an `if` that left the conflict pending, where the others did not:
    /// [`Sink`]); then it is pending.
    pub(crate) fn need(&mut self, next: Hazards) {
        let Some(c) = self.control.as_mut() else {
            return;
        };
        if !c.hazards.conflicts(next) {
            if let Some(sink) = c.sink.as_mut() {
                sink.since = sink.since.join(next);
            }
            c.hazards = c.hazards.join(next);
            return;
        }
        if let Some(sink) = c.sink.take()
            && !sink.since.conflicts(next)
        {
            let (hit, missed): (Vec<&PathEnd>, Vec<&PathEnd>) =
                sink.ends.iter().partition(|e| e.hazards.conflicts(next));
            if !missed.is_empty() && hit.iter().all(|e| e.open) {
                // Later ends first, so that the earlier positions stay where they are.
                for e in hit.iter().rev() {
                    let why = self.orders(e.hazards, next);
                    self.w.insert_line(e.at, e.level, &barrier_text(&[], &why));
                }
                let c = self.control.as_mut().expect("in a control kernel");
                c.hazards = missed
                    .iter()
                    .fold(sink.since, |j, e| j.join(e.hazards))
                    .join(next);
                c.hoist = None;
                return;
            }
        }
        self.barrier_for(next);
        let h = self.hazards().join(next);
        self.set_hazards(h);
    }

    /// [`Self::need`] of resources only.
    pub(crate) fn need_bits(&mut self, reads: u16, writes: u16) {
        self.need(Hazards::bits(reads, writes));
    }

    /// Before evaluating `exprs` in a control kernel (no-op elsewhere).
    pub(crate) fn need_reads(&mut self, exprs: &[ExprId]) {
        if self.control.is_some() {
            let access = device_access(self.m(), self.body(), exprs);
            self.need(access);
        }
    }

    /// The leader's clear of worklist view `w`: the action of the last barrier if nothing
    /// touched the list since it, with straight-line code between; else an effect here.
    fn control_clear(&mut self, w: WorklistRef) {
        let bit = Hazards::worklist(w);
        let name = view(w);
        let pending = self.hazards();
        let c = self.ctx();
        if let Some(h) = c.hoist.as_mut()
            && !pending.conflicts(Hazards::bits(0, bit))
        {
            h.actions
                .push(format!("{}.clear_device();", view(ROLES[h.views[role(w)]])));
            let text = barrier_text(&h.actions, &h.why);
            let at = h.at;
            self.w.replace_line(at, &text);
            self.w.line(format!(
                "// {name} was cleared by the last arrival at the barrier above"
            ));
            return;
        }
        self.control_effect(&[format!("{name}.clear_device();")], Hazards::bits(0, bit));
    }

    /// An effect on device state by one thread, that does `effect`.
    pub(crate) fn control_effect(&mut self, lines: &[String], effect: Hazards) {
        self.need(effect);
        self.w.open("if (irgl_leader) {");
        for l in lines {
            self.w.line(l);
        }
        self.w.close("}");
    }

    /// The position of kernel `k` among the control kernel's calls.
    fn call_index(&mut self, k: KernelId) -> usize {
        self.ctx()
            .calls
            .iter()
            .position(|&c| c == k)
            .expect("a called kernel among the control's calls")
    }

    /// `call` (the call of the `index`-th kernel of the control), timed between grid
    /// barriers when the program runs with `--kernel-times`.
    fn timed_call(&mut self, call: &str, index: usize) {
        self.w.open("{");
        self.w
            .line("const unsigned long long irgl_t0 = irgl::timed_call_start(irgl_timed);");
        self.w.line(call);
        self.w.line(format!(
            "irgl::timed_call_end(irgl_timed, irgl_t0, &irgl_state->call_ns[{index}], &irgl_state->call_counts[{index}]);"
        ));
        self.w.close("}");
    }

    /// The call of kernel `k`'s device function for launch `l` (of `k` or of the kernel it is a
    /// version of): the graph, the launch's arguments for `k`'s scalar parameters (a version
    /// may take fewer: passes append parameters), then the runtime's.
    fn call_text(&mut self, k: KernelId, l: &Launch) -> String {
        self.call_text_queue(k, l, "irgl_queue")
    }

    /// [`Self::call_text`], with `queue` for the task queue's argument.
    fn call_text_queue(&mut self, k: KernelId, l: &Launch, queue: &str) -> String {
        let m = self.m();
        let kernel = &m.kernels[k];
        let mut args: Vec<String> = Vec::new();
        let mut scalars = kernel.scalar_params().zip(&l.args);
        for p in &kernel.params {
            match p {
                KernelParam::Graph(_) => args.push(cpp(&m.graph.name).into_owned()),
                KernelParam::Scalar(_) => {
                    let (param, &arg) = scalars.next().expect("an argument a parameter");
                    let ty = c_type(kernel.body.locals[param].ty);
                    args.push(format!("static_cast<{ty}>({})", self.x.cond(arg)));
                }
            }
        }
        for (_, runtime) in kernel_runtime_params(&kernel.facts()) {
            args.push(match runtime {
                "irgl_rkind" => match l.reduce {
                    Some(Reduction::Any) => "irgl::Reduce::Any".to_string(),
                    Some(Reduction::All) => "irgl::Reduce::All".to_string(),
                    None => {
                        panic!("{}: a reducing kernel launched without a reduction", kernel.name)
                    }
                },
                "irgl_chunk" => match kernel.backoff {
                    Some(b) if l.backoff => format!(
                        "irgl::backoff_chunk(irgl_in.size(), {}, {}u, static_cast<uint64_t>(gridDim.x) * blockDim.x)",
                        crate::host::chunk_arg(b.chunk),
                        b.serial_below
                    ),
                    _ => "1u".to_string(),
                },
                "irgl_queue" => queue.to_string(),
                other => other.to_string(),
            });
        }
        format!("{}({});", device_fn_name(kernel), args.join(", "))
    }

    /// An orchestration statement inside a control kernel.
    pub(crate) fn control_stmt(&mut self, s: StmtId) {
        let body = self.body();
        match &body.stmts[s].kind {
            StmtKind::Launch(l) => {
                let m = self.m();
                // The control kernel for graphs without a node past the grid's threshold
                // calls the versions without gd.
                let version = self.ctx().version;
                let called = match m.kernels[l.kernel].no_grid_version {
                    Some(v) if version.no_grid => v,
                    _ => l.kernel,
                };
                let k = &m.kernels[called];
                let index = self.call_index(called);
                let facts = k.facts();
                let has_async = m.kernels[called].async_version;
                let switched = has_async.filter(|_| !version.rounds_only);
                // A switched kernel's rounds count their first pops as the control says; the
                // version in rounds only calls them without counting.
                let counted = format!("irgl_sw_counted{}", s.index());
                let queue = match (has_async, switched) {
                    (Some(_), Some(_)) => format!("irgl_queue.counting({counted})"),
                    (Some(_), None) => "irgl_queue.counting(false)".to_string(),
                    _ => "irgl_queue".to_string(),
                };
                let call = self.call_text_queue(called, l, &queue);
                // The launch, and the arguments every thread evaluates for it.
                let mut effects = kernel_hazards(m, k).join(device_access(m, self.body(), &l.args));
                if let Some(a) = switched {
                    effects = effects.join(kernel_hazards(m, &m.kernels[a]));
                }
                self.need(effects);
                // The list the next round pops: what a yield leaves goes there.
                let next = match switched.and_then(|a| m.kernels[a].asynchronous) {
                    Some(Asynchrony::Respawns) => "irgl_retry",
                    _ => "irgl_out",
                };
                if let Some(a) = switched {
                    // Rounds or asynchrony, as the switch chose after the last launch.
                    let async_call = self.call_text(a, l);
                    let at = self.call_index(a);
                    self.w.line(format!(
                        "bool {counted} = true;  // the launch counts its first pops (the switch's measure)"
                    ));
                    self.w.open(
                        "if (irgl_sw_mode == irgl::kSwitchAsync) {  // the switch's choice, the same in every thread",
                    );
                    self.timed_call(&async_call, at);
                    self.w
                        .line("irgl::grid_sync();  // every block has left the queue");
                    // The queue's stop is read here, between this barrier and the round's:
                    // read after the round's, a thread could see the next launch's overflow
                    // that the others did not, and that read would cost the loop a barrier.
                    self.w.open("if (irgl_queue.overflowed()) {");
                    self.stop(&format!("irgl_stopped = {}u;", at + 1));
                    self.w.close("}");
                    self.w.line(format!(
                        "irgl_queue.drain_into(irgl_in, {next});  // what a yield left unclaimed"
                    ));
                    self.w.close("} else {");
                    self.w.level_up();
                    // A round counts its first pops while its items fit the grid's threads.
                    self.w.line(format!(
                        "{counted} = irgl_in.size() <= static_cast<unsigned long long>(gridDim.x) * blockDim.x;"
                    ));
                    self.timed_call(&call, index);
                    self.w.close("}");
                } else if let Some(v) = m.kernels[l.kernel].serial_version {
                    let serial = self.call_text(v, l);
                    let at = self.call_index(v);
                    self.w.open("if (irgl_serial_inner) {");
                    self.timed_call(&serial, at);
                    self.w.close("} else {");
                    self.w.level_up();
                    self.timed_call(&call, index);
                    self.w.close("}");
                } else if facts.has_forall || facts.cooperative {
                    self.timed_call(&call, index);
                } else {
                    // A kernel without a ForAll (or a grid barrier) runs on one thread.
                    self.timed_call(&format!("if (irgl_leader) {call}"), index);
                }
                // The tables of its loops under gd are reset by the barrier after the call
                // (the next launch reads the data it wrote: that barrier comes anyway), whose
                // last arrival also steps the switch: every block is done with the launch.
                let mut actions: Vec<String> = crate::device::grid_tables(k)
                    .iter()
                    .map(|t| format!("irgl::grid_reset({t});"))
                    .collect();
                let due = format!("irgl_sw_due{}", s.index());
                if switched.is_some() {
                    // An asynchronous launch is an epoch; rounds count the epoch's down.
                    // An unmeasured round ends its epoch too, with the rounds it ran.
                    self.w.line(format!(
                        "const bool {due} = irgl_sw_mode == irgl::kSwitchAsync || --irgl_sw_left == 0u || !{counted};  // the epoch ends"
                    ));
                    actions.push(format!(
                        "if ({due}) irgl_state->sw.step(irgl::global_ns(), irgl_queue.first_pops(), irgl_queue.left() != 0ull, {next}.ctl->count, static_cast<unsigned long long>(gridDim.x) * blockDim.x, irgl_queue.ctl, {counted}, irgl_sw_left);"
                    ));
                }
                if !actions.is_empty() {
                    self.barrier_then(actions);
                }
                if switched.is_some() {
                    self.w
                        .open(format!("if ({due}) {{  // the switch's next choice"));
                    self.w.line("irgl_sw_mode = irgl_state->sw.next();");
                    self.w.line("irgl_sw_left = irgl_state->sw.rounds_next();");
                    self.w.close("}");
                }
                let mut pushed: Vec<(u16, &str)> = Vec::new();
                if facts.pushes {
                    pushed.push((Hazards::OUT, "irgl_out"));
                }
                if facts.retries {
                    pushed.push((Hazards::RETRY, "irgl_retry"));
                }
                // A switched launch's queue was checked in its asynchronous branch.
                if facts.asynchronous {
                    pushed.push((Hazards::QUEUE, "irgl_queue"));
                }
                if !pushed.is_empty() {
                    self.need_bits(pushed.iter().fold(0, |r, (bit, _)| r | bit), 0);
                    let tests: Vec<String> = pushed
                        .iter()
                        .map(|(_, view)| format!("{view}.overflowed()"))
                        .collect();
                    self.w.open(format!("if ({}) {{", tests.join(" || ")));
                    self.stop(&format!("irgl_stopped = {}u;", index + 1));
                    self.w.close("}");
                }
            }
            StmtKind::WorklistClear => self.control_effect(
                &[
                    "irgl_in.clear_device();".into(),
                    "irgl_out.clear_device();".into(),
                    "irgl_retry.clear_device();".into(),
                ],
                Hazards::bits(0, Hazards::IN | Hazards::OUT | Hazards::RETRY),
            ),
            StmtKind::WorklistInit(init) => {
                let g = cpp(&self.m().graph.name);
                let mut lines = vec!["irgl_in.clear_device();".to_string()];
                match init {
                    Initial::List(items) => {
                        let items: Vec<String> = items
                            .iter()
                            .map(|e| format!("static_cast<uint32_t>({})", self.x.cond(*e)))
                            .collect();
                        lines.push(format!(
                            "const uint32_t irgl_initial[{}] = {{{}}};",
                            items.len(),
                            items.join(", ")
                        ));
                        lines.push(format!(
                            "for (uint32_t i = 0; i < {}u; ++i) {{ if (irgl_initial[i] >= {g}.csr.nnodes) {{ irgl_state->bad_initial = 1u; irgl_state->bad_item = irgl_initial[i]; }} irgl_in.write(0ull, i, irgl_initial[i]); }}",
                            items.len()
                        ));
                        lines.push(format!("irgl_in.ctl->count = {}ull;", items.len()));
                    }
                    Initial::AllNodes => {}
                }
                match init {
                    Initial::List(_) => {
                        self.control_effect(&lines, Hazards::bits(0, Hazards::IN | Hazards::STATE))
                    }
                    Initial::AllNodes => {
                        // Cleared by one thread, filled by all, counted by one.
                        self.control_effect(&lines, Hazards::bits(0, Hazards::IN));
                        self.need_bits(0, Hazards::IN);
                        self.w.line(format!(
                            "for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < {g}.csr.nnodes; i += blockDim.x * gridDim.x) irgl_in.write(0ull, i, i);"
                        ));
                        self.need_bits(0, Hazards::IN);
                        self.w.line(format!(
                            "if (irgl_leader) irgl_in.ctl->count = {g}.csr.nnodes;"
                        ));
                    }
                }
                self.need_bits(Hazards::IN | Hazards::STATE, 0);
                self.w.open(
                    "if (*reinterpret_cast<volatile uint32_t*>(&irgl_state->bad_initial) != 0u || irgl_in.overflowed()) {",
                );
                // One past the calls: the host then names `<initial>` in the report.
                let initial = self.ctx().calls.len() + 1;
                self.stop(&format!("irgl_stopped = {initial}u;"));
                self.w.close("}");
            }
            StmtKind::WorklistSwap(w) => {
                assert!(*w != WorklistRef::In, "swap of the input worklist");
                let (other, role) = (view(*w), role(*w));
                let h = self.hazards().swapped(Hazards::worklist(*w));
                self.set_hazards(h);
                if let Some(hoist) = self.ctx().hoist.as_mut() {
                    hoist.views.swap(0, role);
                }
                self.w.open("{  // every thread swaps its views alike");
                self.w.line("const irgl::Worklist irgl_t = irgl_in;");
                self.w.line(format!("irgl_in = {other};"));
                self.w.line(format!("{other} = irgl_t;"));
                self.w.line("const uint32_t irgl_r = irgl_roles[0];");
                self.w.line(format!("irgl_roles[0] = irgl_roles[{role}];"));
                self.w.line(format!("irgl_roles[{role}] = irgl_r;"));
                self.w.close("}");
                self.control_clear(*w);
            }
            StmtKind::ReduceReset(r) => {
                // Every thread takes the flag's other word: nothing is written.
                let h = self.hazards().flag_swapped();
                self.set_hazards(h);
                let kind = match r {
                    Reduction::Any => "Any",
                    Reduction::All => "All",
                };
                self.w
                    .line(format!("irgl_reduce.start(irgl::Reduce::{kind});"));
            }
            StmtKind::CountIteration => self.w.line("++irgl_iterations;"),
            StmtKind::Region(r) if r.settled => self.settled_rounds(r),
            StmtKind::Region(r) => {
                self.w.open("{");
                self.block(&r.body);
                self.w.close("}");
            }
            k => panic!("{k:?} in a control kernel"),
        }
    }

    /// A settled `Iterate` (`settle_rounds`): its kernel's rounds without grid barriers. Each
    /// block repeats its share of the items until a pass reports nothing, a pass counted in
    /// every thread's `irgl_iterations` (the grid's first thread's is the run's). The kernel's
    /// serial version, where it has one, keeps its rounds. The region's loop is `reduce.reset
    /// any; launch; count_iteration; if !reduce.result break`, so its launch is the whole of it.
    fn settled_rounds(&mut self, r: &Region) {
        let body = self.body();
        let launch = visit::first_launch(body, &r.body)
            .expect("a settled region launches its kernel")
            .clone();
        let m = self.m();
        let k = &m.kernels[launch.kernel];
        let effects = kernel_hazards(m, k).join(device_access(m, body, &launch.args));
        self.need(effects);
        let call = self.call_text(launch.kernel, &launch);
        let index = self.call_index(launch.kernel);
        self.w.open(format!(
            "{{  // {} iterate {}, settled: each block repeats its share until none of its items reports, no grid barrier between rounds",
            r.id, k.name
        ));
        self.w
            .line("const unsigned long long irgl_t0 = irgl::timed_call_start(irgl_timed);");
        let passes = |e: &mut Self, call: &str, index: usize| {
            e.w.open("while (true) {  // a pass of the block over its share");
            e.w.line("if (threadIdx.x == 0) irgl_block_any = 0u;");
            e.w.line("__syncthreads();");
            e.w.line("const irgl::BlockAnyFlag irgl_reduce{&irgl_block_any};");
            e.w.line(call);
            e.w.line("__syncthreads();");
            e.w.line("const bool irgl_again = irgl_reduce.result();");
            e.w.line("__syncthreads();  // read by every thread before the next pass clears it");
            e.w.line("++irgl_iterations;");
            e.w.line("if (!irgl_again) break;");
            e.w.close("}");
            e.w.line(format!(
                "irgl::timed_call_end(irgl_timed, irgl_t0, &irgl_state->call_ns[{index}], &irgl_state->call_counts[{index}]);"
            ));
        };
        match k.serial_version {
            Some(v) => {
                let serial = self.call_text(v, &launch);
                let at = self.call_index(v);
                // The graphs of the serial version (low, even degrees) keep their rounds: there
                // a thread repeating its own items measured slower than rounds
                // (docs/optimizations.md, *Rounds without barriers*).
                self.w.open(
                    "if (irgl_serial_inner) {  // serial nested loops: rounds, with a grid barrier",
                );
                self.w.open("while (true) {");
                self.w.line("irgl_reduce.start(irgl::Reduce::Any);");
                self.w.line(&serial);
                self.w.line("++irgl_iterations;");
                self.w.line("irgl::grid_sync();");
                self.w.line("if (!irgl_reduce.result()) break;");
                self.w.close("}");
                self.w.line(format!(
                    "irgl::timed_call_end(irgl_timed, irgl_t0, &irgl_state->call_ns[{at}], &irgl_state->call_counts[{at}]);"
                ));
                self.w.close("} else {");
                self.w.level_up();
                self.w.line("__shared__ unsigned int irgl_block_any;");
                passes(self, &call, index);
                self.w.close("}");
            }
            None => {
                self.w.line("__shared__ unsigned int irgl_block_any;");
                passes(self, &call, index);
            }
        }
        self.w.close("}");
    }

    /// The host side of a control: fill the state, launch the control kernel on every
    /// resident block, read the state back, take its scalars, roles, rounds and reports.
    pub(crate) fn control_launch(&mut self, c: &Control) {
        let state = state_name(c);
        let kernel = kernel_name(c);
        let m = self.m();
        let body = self.body();
        self.w.open(format!(
            "{{  // {}: {}, outlined (one cooperative launch)",
            c.id, c.origin
        ));
        let calls: Vec<String> = c
            .kernels
            .iter()
            .map(|&k| format!("\"{}\"", m.kernels[k].name))
            .collect();
        self.w.line(format!(
            "static const char* const irgl_calls[] = {{{}}};",
            calls.join(", ")
        ));
        // Messages name the kernels of the source (a version's, its kernel).
        let sources: Vec<String> = c
            .kernels
            .iter()
            .map(|&k| {
                let source = m.kernels[k].version_of().unwrap_or(k);
                format!("\"{}\"", m.kernels[source].name)
            })
            .collect();
        // Only the overflow reports name them.
        let reports = control_uses_worklists(m, c) || control_is_asynchronous(m, c);
        let named = if sources == calls || !reports {
            "irgl_calls"
        } else {
            self.w.line(format!(
                "static const char* const irgl_sources[] = {{{}}};  // the kernels of the source, for messages",
                sources.join(", ")
            ));
            "irgl_sources"
        };
        self.w.line(format!("{state} irgl_s{{}};"));
        for &l in &c.inputs {
            self.w.line(format!(
                "irgl_s.{} = {};",
                cpp(&body.locals[l].name),
                self.x.local(l)
            ));
        }
        if has_serial_versions(m, c) {
            self.w
                .line("irgl_s.serial_inner = h.serial_inner ? 1u : 0u;");
        }
        let switch = switched_kernel(m, c).is_some();
        if switch {
            self.w
                .line("irgl_s.sw.init(h.switch_force, h.switch_epoch_us);");
        }
        self.w.line("irgl_s.timed = h.times.enabled ? 1u : 0u;");
        self.w.line(format!(
            "irgl::DeviceArray<{state}>& irgl_sd = h.{};",
            state_member(c)
        ));
        self.w.line("irgl_sd.upload_async(&irgl_s, 1);");
        let blocks = match c.grid {
            GridSize::Resident => "0".to_string(),
            GridSize::PerSm(1) => "irgl::sm_count()".to_string(),
            GridSize::PerSm(k) => format!("{k} * irgl::sm_count()"),
            GridSize::Blocks(n) => n.to_string(),
            // By the graph: many small rounds below the degree (a cheaper barrier), large
            // rounds at or above it (every resident block).
            GridSize::Auto(d) => {
                format!("(h.hg.nedges < {d}ull * h.hg.nnodes ? irgl::sm_count() : 0)")
            }
        };
        let asynchronous = control_is_asynchronous(m, c);
        let queue = if asynchronous { "h.queue.view(), " } else { "" };
        let rounds = has_rounds_versions(m, c);
        let blocks = if rounds {
            // The switch where rounds are small (one block per multiprocessor), rounds alone
            // where they are large (every resident block), unless a way is pinned.
            let GridSize::Auto(d) = c.grid else {
                unreachable!("versions in rounds only come with a grid chosen by the graph")
            };
            self.w.line(format!(
                "const bool irgl_small = h.hg.nedges < {d}ull * h.hg.nnodes;  // many small rounds: one block per multiprocessor"
            ));
            self.w.line(
                "const bool irgl_switch = irgl_small || h.switch_force != irgl::kSwitchAuto;  // the switch, or a way pinned",
            );
            "(irgl_small ? irgl::sm_count() : 0)".to_string()
        } else {
            blocks
        };
        let nogd = has_no_grid_versions(m, c);
        let function = if nogd || rounds {
            let pick = |suffix: &str| {
                if nogd {
                    format!("h.grid_min != 0u ? {kernel}{suffix} : {kernel}{suffix}_nogd")
                } else {
                    format!("{kernel}{suffix}")
                }
            };
            if nogd {
                self.w.line(
                    "// On a graph without a node past the grid's threshold, the kernels' versions without gd.",
                );
            }
            let chosen = if rounds {
                let operand = |t: String| if nogd { format!("({t})") } else { t };
                format!(
                    "irgl_switch ? {} : {}",
                    operand(pick("")),
                    operand(pick("_rounds"))
                )
            } else {
                pick("")
            };
            self.w.line(format!("auto* const irgl_control = {chosen};"));
            "irgl_control".to_string()
        } else {
            kernel.clone()
        };
        self.w.line(format!("h.times.begin(\"{kernel}\");"));
        self.w.line(format!(
            "irgl::launch_cooperative(\"{kernel} ({})\", {function}, {blocks}, BLOCK, 0, 0, h.g, h.wl.in().view(), h.wl.out().view(), h.wl.retry().view(), {queue}irgl_sd.data());",
            c.origin
        ));
        self.w.line("h.times.end();");
        self.w.line(format!("IRGL_CHECK_LAUNCH(\"{kernel}\");"));
        self.w.line("irgl_sd.download(&irgl_s, 1);");
        for &l in &c.outputs {
            self.w.line(format!(
                "{} = irgl_s.{};",
                self.x.local(l),
                cpp(&body.locals[l].name)
            ));
        }
        // The calls' times (--kernel-times), under their kernels' names.
        self.w.open(format!(
            "for (size_t i = 0; i < {}; ++i) {{",
            c.kernels.len()
        ));
        self.w.line(format!(
            "h.times.add(std::string(irgl_calls[i]) + \" (in {kernel})\", static_cast<double>(irgl_s.call_ns[i]) / 1e6, irgl_s.call_counts[i]);"
        ));
        self.w.close("}");
        self.w.line("h.iterations += irgl_s.iterations;");
        if switch && rounds {
            self.w.line(
                "if (irgl_switch) h.switched.add(irgl_s.sw); else h.switched.add_unswitched();",
            );
        } else if switch {
            self.w.line("h.switched.add(irgl_s.sw);");
        }
        self.w.line("h.wl.permute(irgl_s.roles);");
        self.w.line(
            "if (irgl_s.bad_initial != 0u) irgl::check_node(irgl_s.bad_item, h.hg.nnodes, \"Initial\");",
        );
        if control_uses_worklists(m, c) {
            // The lists' counters (three synchronous copies) only after a stop, to name the
            // overflow: a list overflows only where the control stops.
            self.w.line(format!(
                "if (irgl_s.stopped != 0u) h.wl.check_overflow_any(irgl_s.stopped <= {n}u ? {named}[irgl_s.stopped - 1] : \"<initial>\");",
                n = c.kernels.len()
            ));
        }
        if asynchronous {
            self.w.line(
                format!("if (irgl_s.stopped != 0u && irgl_s.stopped <= {n}u) h.queue.check_overflow({named}[irgl_s.stopped - 1]);", n = c.kernels.len()),
            );
        }
        // An index out of range in a kernel it called (local arrays, or checked properties).
        let checked = c.kernels.iter().any(|&k| {
            let f = m.kernels[k].facts();
            f.indexes_arrays || (m.launch.check_indices && f.indexes_props)
        });
        if checked {
            self.w
                .line(format!("check_device_error(\"{kernel} ({})\");", c.origin));
        }
        self.w.close("}");
    }
}

#[cfg(test)]
mod tests {
    use super::{Hazards, launch_hazards};
    use irgl_analysis::{DataEffects, PlaceSet};
    use irgl_ir::KernelFacts;

    #[test]
    fn conflicts_are_write_after_anything_and_read_after_write() {
        let read_in = Hazards::bits(Hazards::IN, 0);
        assert!(
            !read_in.conflicts(Hazards::bits(Hazards::IN, 0)),
            "reads do not conflict"
        );
        assert!(
            read_in.conflicts(Hazards::bits(0, Hazards::IN)),
            "a write after a read does"
        );
        assert!(
            !read_in.conflicts(Hazards::bits(0, Hazards::OUT)),
            "other resources do not"
        );
        let wrote_flag = Hazards::bits(0, Hazards::FLAG);
        assert!(wrote_flag.conflicts(Hazards::bits(Hazards::FLAG, 0)));
        assert!(wrote_flag.conflicts(Hazards::bits(0, Hazards::FLAG)));
        assert!(!wrote_flag.conflicts(Hazards::bits(Hazards::IN, Hazards::OUT)));
        assert!(Hazards::default().is_empty() && !read_in.is_empty());
    }

    #[test]
    fn data_conflicts_by_place() {
        let (a, b) = (PlaceSet(1), PlaceSet(2));
        let read_a = Hazards::of_data(DataEffects {
            reads: a,
            writes: PlaceSet::EMPTY,
        });
        let write = |p| {
            Hazards::of_data(DataEffects {
                reads: PlaceSet::EMPTY,
                writes: p,
            })
        };
        assert!(read_a.conflicts(write(a)), "a write after a read of it");
        assert!(!read_a.conflicts(write(b)), "a write of another place");
        assert!(write(a).conflicts(read_a), "a read after a write of it");
        assert!(write(a).conflicts(write(a)), "two writes of one place");
        assert!(!write(a).conflicts(write(b)));
        assert!(read_a.conflicts(Hazards::all()), "everything");
        assert!(!read_a.is_empty());
    }

    #[test]
    fn a_swap_renames_the_views() {
        let h = Hazards::bits(Hazards::OUT | Hazards::FLAG, Hazards::IN);
        let s = h.swapped(Hazards::OUT);
        assert_eq!(s.reads, Hazards::IN | Hazards::FLAG);
        assert_eq!(s.writes, Hazards::OUT);
        assert_eq!(s.swapped(Hazards::OUT), h, "twice is the identity");
        let r = h.swapped(Hazards::RETRY);
        assert_eq!(r.reads, Hazards::OUT | Hazards::FLAG);
        assert_eq!(r.writes, Hazards::RETRY);
    }

    #[test]
    fn a_new_reduction_takes_the_other_word() {
        let h = Hazards::bits(Hazards::FLAG | Hazards::IN, Hazards::FLAG2);
        let s = h.flag_swapped();
        assert_eq!(s.reads, Hazards::FLAG2 | Hazards::IN);
        assert_eq!(s.writes, Hazards::FLAG);
        assert_eq!(s.flag_swapped(), h, "twice is the identity");
        // The last round's read of its result does not stop the next round's contributions.
        let read_result = Hazards::bits(Hazards::FLAG, 0);
        assert!(read_result.conflicts(Hazards::bits(0, Hazards::FLAG)));
        assert!(
            !read_result
                .flag_swapped()
                .conflicts(Hazards::bits(0, Hazards::FLAG))
        );
    }

    #[test]
    fn a_launch_writes_what_its_kernel_pushes_to() {
        let bfs = KernelFacts {
            uses_worklist: true,
            pops: true,
            pushes: true,
            has_forall: true,
            ..KernelFacts::default()
        };
        let data = DataEffects {
            reads: PlaceSet(3),
            writes: PlaceSet(1),
        };
        let h = launch_hazards(&bfs, data);
        assert_eq!(h.writes, Hazards::OUT | Hazards::LAUNCH);
        assert_eq!(
            h.reads,
            Hazards::IN | Hazards::OUT | Hazards::RETRY | Hazards::LAUNCH
        );
        assert_eq!(h.data, data, "the kernel's places");
        assert!(
            h.conflicts(launch_hazards(&bfs, DataEffects::default())),
            "two launches are a barrier apart"
        );
        let relax = KernelFacts {
            reduces: true,
            has_forall: true,
            ..KernelFacts::default()
        };
        let h = launch_hazards(&relax, data);
        assert_eq!(h.writes, Hazards::FLAG | Hazards::LAUNCH);
        assert_eq!(h.reads & Hazards::IN, 0, "no worklist, no list read");
        let retrying = KernelFacts {
            uses_worklist: true,
            retries: true,
            ..KernelFacts::default()
        };
        assert_eq!(
            launch_hazards(&retrying, data).writes,
            Hazards::RETRY | Hazards::LAUNCH
        );
        let sync = KernelFacts {
            cooperative: true,
            ..KernelFacts::default()
        };
        assert_eq!(launch_hazards(&sync, data), Hazards::all());
    }
}
