//! Statements, on both sides: the control flow that kernels and `main` share is written here
//! once; the kernel constructs go to [`crate::device`] and [`crate::sched`], the orchestration
//! to [`crate::host`].

use irgl_ir::*;

use crate::Side;
use crate::control::{Hazards, PathEnd};
use crate::expr::{Exprs, c_type, value_literal};
use crate::names::cpp;
use crate::writer::Writer;

/// How a `Continue` is spelled where it stands.
#[derive(Clone, Debug)]
pub(crate) enum ContinueAs {
    /// Inside a C loop: `continue;`.
    Continue,
    /// Inside a `do { } while (0)` that stands for the rest of an iteration: `break;`.
    Break,
    /// Inside a loop whose step is not one expression: `goto label;` (`used`: whether one
    /// was written, so that the label is only written where a jump reaches it).
    Goto { label: String, used: bool },
}

/// Writes the statements of one body.
pub(crate) struct Emitter<'a> {
    pub x: Exprs<'a>,
    pub w: Writer,
    /// The innermost construct that a `Continue` targets, last.
    pub continues: Vec<ContinueAs>,
    /// The flag of the innermost uniform outer loop: whether this thread has an item.
    pub active: Vec<String>,
    /// Whether the innermost loop or trip is one that the whole block runs together (a
    /// thread-block or fine-grained scheduler's trip, a phase of a uniform loop), so that a
    /// block-aggregated push records its item for the reservation at the trip's end.
    pub block_trips: Vec<bool>,
    /// Thread-aggregated pushes of the enclosing counted loops: the local holding the first
    /// reserved slot, and the expression of the iteration's index.
    pub loop_slots: std::collections::HashMap<StmtId, (String, String)>,
    /// Inside a control kernel (outlined orchestration): its calls and whether it stops.
    pub control: Option<crate::control::ControlCtx>,
    /// The kernel runs asynchronously: which of its pushes go to its task queue.
    pub asynchrony: Option<Asynchrony>,
    /// The kernel has retry backoff: its outermost worklist loop hands each thread
    /// `irgl_chunk` consecutive items at a time.
    pub chunked: bool,
    /// Inside a block-scheduled `ForAll` that reduces locals: the register each reduced
    /// local's combinations go to (the thread's partial result).
    pub partials: std::collections::HashMap<LocalId, String>,
    /// The prefix of the tables of the loops that hand items to the grid (`irgl_grid_K`),
    /// and their file-scope declarations, written as the loops are met.
    pub grid_prefix: String,
    pub grid_decls: Vec<String>,
    /// Inside the iterations the grid took from a loop's owners: its block-loop pushes
    /// reserve per warp (their slots were not reserved with the owner's block).
    pub grid_help: bool,
    /// Each block counts itself out of a loop's table after taking its last chunk
    /// (`irgl::grid_leave`), where the kernel body is the `__global__` function; a device
    /// function for control kernels leaves that to its `__global__` entry and to the control
    /// kernel's barrier after the call.
    pub grid_leave: bool,
    /// The kernel is one way of a switch between rounds and asynchrony: it counts each node
    /// it pops for the first time (`irgl_queue.count_first`), the switch's measure.
    pub counts_first_pops: bool,
}

impl<'a> Emitter<'a> {
    pub fn new(m: &'a Module, body: &'a Body, side: Side, graph: &'a str, level: usize) -> Self {
        Emitter {
            x: Exprs {
                m,
                body,
                side,
                graph,
                asynchronous: false,
                coherent: &[],
                error_base: 0,
                local_nodes: (m.partitioned.is_some() && side == Side::Device)
                    .then(|| irgl_ir::nodes::local_node_ids(body)),
            },
            w: Writer::new(level),
            continues: Vec::new(),
            active: Vec::new(),
            block_trips: Vec::new(),
            loop_slots: std::collections::HashMap::new(),
            control: None,
            asynchrony: None,
            chunked: false,
            partials: std::collections::HashMap::new(),
            grid_prefix: String::new(),
            grid_decls: Vec::new(),
            grid_help: false,
            grid_leave: true,
            counts_first_pops: false,
        }
    }

    pub fn body(&self) -> &'a Body {
        self.x.body
    }

    pub fn m(&self) -> &'a Module {
        self.x.m
    }

    pub fn side(&self) -> Side {
        self.x.side
    }

    pub fn block(&mut self, b: &Block) {
        for &s in b {
            self.stmt(s);
        }
    }

    /// `head {`, the block, `}`.
    pub fn braced(&mut self, head: &str, b: &Block) {
        self.w.open(format!("{head}{{"));
        self.block(b);
        self.w.close("}");
    }

    /// The declaration of a local with an initial value.
    pub fn declare(&self, l: LocalId, init: Option<ExprId>) -> String {
        let local = &self.body().locals[l];
        let value = match init {
            Some(e) => self.x.cond(e),
            None => value_literal(
                Value::zero(local.ty).unwrap_or_else(|| panic!("no zero for local {l}")),
            ),
        };
        format!("{} {} = {value}", c_type(local.ty), self.x.local(l))
    }

    pub fn stmt(&mut self, s: StmtId) {
        let body = self.body();
        if self.control.is_some() {
            self.control_reads(s);
        }
        match &body.stmts[s].kind {
            StmtKind::Let { local, init } => {
                let text = self.declare(*local, *init);
                self.w.line(format!("{text};"));
                let pops = init.is_some_and(|e| matches!(body.exprs[e].kind, ExprKind::Pop(_)));
                if self.counts_first_pops && pops && body.locals[*local].ty == Ty::Node {
                    self.w.line(format!(
                        "irgl_queue.count_first({});  // the switch's measure: nodes reached",
                        self.x.local(*local)
                    ));
                }
            }
            StmtKind::LetArray { local, elems } => {
                let items: Vec<String> = elems.iter().map(|e| self.x.cond(*e)).collect();
                let l = &body.locals[*local];
                let len = crate::expr::array_len(body, *local);
                let init = match (items.is_empty(), l.kind) {
                    // The compiler's copy of an `Exclusive` array: filled before it is read.
                    (true, LocalKind::Array { .. }) if l.name.starts_with("irgl_") => String::new(),
                    (true, _) => " = {}".to_string(),
                    (false, _) => format!(" = {{{}}}", items.join(", ")),
                };
                self.w.line(format!(
                    "{} {}[{len}]{init};",
                    c_type(l.ty),
                    self.x.local(*local),
                ));
            }
            StmtKind::CopyArray { dst, src, count } => {
                let n = self.x.local(*count);
                self.w.line(format!(
                    "{n} = irgl::copy_prefix({}, {}, {n}, &irgl_error, 0x{:x}u);",
                    self.x.local(*dst),
                    self.x.local(*src),
                    self.x.error_base | src.index() as u32
                ));
            }
            StmtKind::MeshUpdate(m, args) => {
                let a: Vec<String> = args.iter().map(|a| self.x.cond(*a)).collect();
                self.w.line(format!(
                    "{}.mesh.{}({});",
                    self.x.graph(),
                    m.name(),
                    a.join(", ")
                ));
            }
            StmtKind::Assign { place, op, value } => {
                let text = self.assignment(place, *op, *value);
                if self.control.is_some() && !matches!(place, Place::Local(_)) {
                    // Device state written from a control kernel: by one thread. (An element of an
                    // array local is not a place of the data's: taken as all of it.)
                    let places = match place {
                        Place::Global(_) | Place::Element { .. } => {
                            irgl_analysis::DataEffects::of_stmt(self.m(), self.body(), s)
                        }
                        _ => irgl_analysis::DataEffects::ALL,
                    };
                    self.control_effect(&[format!("{text};")], Hazards::of_data(places));
                } else {
                    self.w.line(format!("{text};"));
                }
            }
            StmtKind::Combine {
                local,
                combiner,
                value,
            } => {
                let t = self
                    .partials
                    .get(local)
                    .cloned()
                    .unwrap_or_else(|| self.x.local(*local));
                let v = self.x.cond(*value);
                let ty = c_type(body.locals[*local].ty);
                let text = match combiner {
                    Combiner::Sum => format!("{t} += {v};"),
                    Combiner::Min => format!("{t} = irgl::min_of({t}, static_cast<{ty}>({v}));"),
                    Combiner::Max => format!("{t} = irgl::max_of({t}, static_cast<{ty}>({v}));"),
                    Combiner::Any if v == "true" => format!("{t} = true;"),
                    Combiner::Any => format!("if ({v}) {t} = true;"),
                    Combiner::All if v == "false" => format!("{t} = false;"),
                    Combiner::All => format!("if (!({v})) {t} = false;"),
                    Combiner::Or => format!("{t} |= static_cast<{ty}>({v});"),
                    Combiner::And => format!("{t} &= static_cast<{ty}>({v});"),
                };
                self.w.line(text);
            }
            StmtKind::Eval(e) => {
                let text = self.x.cond(*e);
                let is_call = matches!(body.exprs[*e].kind, ExprKind::Atomic { .. });
                if is_call {
                    self.w.line(format!("{text};"));
                } else {
                    self.w.line(format!("(void)({text});"));
                }
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                self.end_straight_line();
                self.w.open(format!("if ({}) {{", self.x.cond(*cond)));
                let start = self.hazards();
                self.block(then_block);
                let mut ends = vec![self.path_end(then_block)];
                self.else_chain(else_block, start, &mut ends);
                self.end_straight_line();
                self.join_paths(&ends);
            }
            StmtKind::Loop(l) => self.loop_stmt(s, l),
            StmtKind::Break => {
                if let Some(c) = self.control.as_mut() {
                    let top = c.breaks.last_mut().expect("a break inside a loop");
                    *top = top.join(c.hazards);
                }
                self.w.line("break;");
            }
            StmtKind::Continue => {
                let pending = self.hazards();
                match self.control.as_mut().and_then(|c| c.continues.last_mut()) {
                    Some(Some(top)) => *top = top.join(pending),
                    _ => self.flush(),
                }
                let text = match self.continues.last_mut() {
                    Some(ContinueAs::Continue) => "continue;".to_string(),
                    Some(ContinueAs::Break) => "break;".to_string(),
                    Some(ContinueAs::Goto { label, used }) => {
                        *used = true;
                        format!("goto {label};")
                    }
                    None => panic!("Continue outside any loop: the IR verifier rejects it"),
                };
                self.w.line(text);
            }
            StmtKind::Block(b) => self.braced("", b),
            StmtKind::CountIteration if self.control.is_some() => self.control_stmt(s),
            StmtKind::CountIteration => self.w.line("++h.iterations;"),
            StmtKind::Control(c) => self.control_launch(c),
            StmtKind::ForAll(_)
            | StmtKind::Push(_)
            | StmtKind::Accumulate(_)
            | StmtKind::Reduce(_)
            | StmtKind::Unlock { .. }
            | StmtKind::ReleaseMarks { .. }
            | StmtKind::GridSync
            | StmtKind::Phase(_)
            | StmtKind::Inspect(_) => self.device_stmt(s),
            StmtKind::Launch(_)
            | StmtKind::WorklistClear
            | StmtKind::WorklistInit(_)
            | StmtKind::WorklistSwap(_)
            | StmtKind::ReduceReset(_)
            | StmtKind::Region(_)
                if self.control.is_some() =>
            {
                self.control_stmt(s)
            }
            StmtKind::Launch(_)
            | StmtKind::WorklistClear
            | StmtKind::WorklistInit(_)
            | StmtKind::WorklistSwap(_)
            | StmtKind::ReduceReset(_)
            | StmtKind::Region(_) => self.host_stmt(s),
        }
    }

    /// `} else {` ... `}`, with `else if` for an else block that is one `if`. Every branch
    /// starts from the hazards `start` (of a control kernel) and `ends` gathers where each
    /// path ends ([`Self::path_end`]; an empty `else` is a path that cannot take a line).
    fn else_chain(&mut self, else_block: &Block, start: Hazards, ends: &mut Vec<PathEnd>) {
        let body = self.body();
        if else_block.is_empty() {
            ends.push(PathEnd {
                at: 0,
                level: 0,
                hazards: start,
                open: false,
            });
            self.w.close("}");
            return;
        }
        if let [only] = else_block[..]
            && let StmtKind::If {
                cond,
                then_block,
                else_block,
            } = &body.stmts[only].kind
        {
            self.w
                .close(format!("}} else if ({}) {{", self.x.cond(*cond)));
            self.w.level_up();
            self.set_hazards(start);
            self.block(then_block);
            ends.push(self.path_end(then_block));
            self.else_chain(else_block, start, ends);
            return;
        }
        self.w.close("} else {");
        self.w.level_up();
        self.set_hazards(start);
        self.block(else_block);
        ends.push(self.path_end(else_block));
        self.w.close("}");
    }

    /// Where the path of `block`, just emitted, ends: the position and indentation of its next
    /// line, its hazards, and whether a barrier may go there (the block does not end by
    /// leaving it: a barrier after a `break` would be dead code).
    fn path_end(&self, block: &Block) -> PathEnd {
        let leaves = block.last().is_some_and(|&last| {
            matches!(
                self.body().stmts[last].kind,
                StmtKind::Break | StmtKind::Continue
            )
        });
        PathEnd {
            at: self.w.mark(),
            level: self.w.level(),
            hazards: self.hazards(),
            open: !leaves,
        }
    }

    /// In a control kernel, before statement `s`: a barrier if what it reads (of an `if`,
    /// the conditions of its whole `else if` chain, which are evaluated with nothing between)
    /// conflicts with what is pending. Loops see to their own.
    fn control_reads(&mut self, s: StmtId) {
        let body = self.body();
        let kind = &body.stmts[s].kind;
        let mut exprs = visit::stmt_exprs(kind);
        match kind {
            StmtKind::Loop(_) | StmtKind::Launch(_) => return,
            StmtKind::If { else_block, .. } => {
                let mut rest = else_block;
                while let [only] = rest[..]
                    && let StmtKind::If {
                        cond, else_block, ..
                    } = &body.stmts[only].kind
                {
                    exprs.push(*cond);
                    rest = else_block;
                }
            }
            _ => {}
        }
        // What the statement reads (and an atomic among its expressions, as `Eval` has,
        // writes).
        let access = crate::control::device_access(self.m(), body, &exprs);
        self.need(access);
    }

    /// `place op= value` without the `;`.
    pub fn assignment(&self, place: &Place, op: Option<BinaryOp>, value: ExprId) -> String {
        let v = self.x.cond(value);
        let sym = op.map_or("=".to_string(), |o| format!("{}=", o.spelling()));
        match (self.side(), place) {
            // A node id stored in a property is the global one (several GPUs).
            (Side::Device, p @ Place::Element { .. }) => format!(
                "{} {sym} {}",
                self.x.device_place(p),
                self.x.global_id(value).unwrap_or(v)
            ),
            (Side::Device, p) | (Side::Host, p @ Place::Local(_)) => {
                format!("{} {sym} {v}", self.x.device_place(p))
            }
            (Side::Host, Place::Global(g)) => {
                let global = &self.m().globals[g.index()];
                let name = cpp(&global.name);
                let ty = c_type(global.ty);
                let value = match op {
                    None => format!("static_cast<{ty}>({v})"),
                    Some(b) => format!("static_cast<{ty}>(get_{name}() {} {v})", b.spelling()),
                };
                format!("set_{name}({value})")
            }
            (Side::Host, Place::ArrayElement { .. }) => {
                panic!("an array element in host code: the checker rejects it")
            }
            (Side::Host, Place::Element { prop, index }) => {
                let p = self.m().prop(*prop);
                let ty = c_type(p.ty);
                let i = self.x.cond(*index);
                let (read, write) = if p.input {
                    (
                        format!("read_device(h.g.{}, h.hg.nedges, {i})", cpp(&p.name)),
                        format!("write_device(h.g.{}, h.hg.nedges, {i}, ", cpp(&p.name)),
                    )
                } else if self.m().partitioned.is_some() {
                    // Several GPUs: the master and every mirror of the node.
                    (
                        format!("h.part.read(h.{}, {i})", cpp(&p.name)),
                        format!("h.part.write(h.{}, {i}, ", cpp(&p.name)),
                    )
                } else {
                    (
                        format!("read_element(h.{}, {i})", cpp(&p.name)),
                        format!("write_element(h.{}, {i}, ", cpp(&p.name)),
                    )
                };
                let value = match op {
                    None => format!("static_cast<{ty}>({v})"),
                    Some(b) => format!("static_cast<{ty}>({read} {} {v})", b.spelling()),
                };
                match &self.m().partitioned {
                    Some(x) if !p.input => {
                        format!(
                            "{write}{value}, {})",
                            crate::host::merge_of(&x.exchanges, *prop)
                        )
                    }
                    _ => format!("{write}{value})"),
                }
            }
        }
    }

    /// A statement that fits in a `for` header (a declaration, assignment or call).
    fn inline_stmt(&self, s: StmtId) -> Option<String> {
        match &self.body().stmts[s].kind {
            StmtKind::Let { local, init } => Some(self.declare(*local, *init)),
            StmtKind::Assign { place, op, value } => Some(self.assignment(place, *op, *value)),
            StmtKind::Eval(e) => Some(self.x.cond(*e)),
            _ => None,
        }
    }

    fn loop_stmt(&mut self, s: StmtId, l: &Loop) {
        let cond = l.cond.map(|c| self.x.cond(c));
        let control = self.control.is_some();
        // In a control kernel only a bare `while` keeps its header: an init or a step goes
        // through the statement emitter, which sees to its barriers.
        let header = |e: &Self, stmts: &[StmtId]| match stmts {
            [] => Some(String::new()),
            [_] if control => None,
            [one] => e.inline_stmt(*one),
            _ => None,
        };
        let init = header(self, &l.init);
        let step = header(self, &l.step);
        self.end_straight_line();
        match (init, step) {
            (Some(init), Some(step)) => {
                let head = self.loop_head(l);
                self.w.open(head_text(init, &cond, step));
                self.continues.push(ContinueAs::Continue);
                self.block_trips.push(false);
                self.block(&l.body);
                self.block_trips.pop();
                self.continues.pop();
                self.loop_back(head);
                self.w.close("}");
                self.after_loop(head);
            }
            _ => {
                // A step of several statements (a reduction in `main`): `continue` jumps to it.
                self.w.open("{");
                self.block(&l.init);
                self.end_straight_line();
                let head = self.loop_head(l);
                let label = format!("irgl_next_{}", s.index());
                self.w.open(format!(
                    "while ({}) {{",
                    cond.unwrap_or_else(|| "true".into())
                ));
                self.continues.push(ContinueAs::Goto {
                    label: label.clone(),
                    used: false,
                });
                self.block_trips.push(false);
                // Its own scope: the jump to the label must not skip a declaration.
                self.braced("", &l.body);
                self.block_trips.pop();
                if let Some(ContinueAs::Goto { used: true, .. }) = self.continues.pop() {
                    self.w.line(format!("{label}:;"));
                }
                self.join_continues();
                self.block(&l.step);
                self.loop_back(head);
                self.w.close("}");
                self.w.close("}");
                self.after_loop(head);
            }
        }
        self.end_straight_line();
    }

    /// Before a loop of a control kernel (no-op elsewhere): the hazards its body starts from,
    /// which cover the entry and the back edge, so that the back edge needs no barrier. They
    /// are found by emitting the body (and step) aside from the entry's hazards, and again
    /// from the union with what it ends with, until that adds nothing. Where the condition
    /// reads what those hazards write, the loop starts clean instead (a barrier before it and
    /// at the end of its body). Pushes the loop's break and continue sets.
    fn loop_head(&mut self, l: &Loop) -> Option<Hazards> {
        let c = self.control.as_ref()?;
        let entry = c.hazards;
        let reads = crate::control::device_access(self.m(), self.body(), l.cond.as_slice());
        let mut start = entry;
        let mut settled = None;
        // Each round adds a resource or a place or stops: the sets are bounded (16 resource
        // bits and 64 place bits, read and written).
        for _ in 0..=2 * (16 + 64) {
            if start.conflicts(reads) {
                break;
            }
            let head = start.join(reads);
            let end = self.aside(|e| {
                e.enter_loop(Some(head));
                e.set_hazards(head);
                e.continues.push(ContinueAs::Continue);
                e.braced("", &l.body);
                e.continues.pop();
                e.join_continues();
                e.block(&l.step);
                let end = e.hazards();
                e.leave_loop();
                end
            });
            let next = start.join(end);
            if next == start {
                settled = Some(head);
                break;
            }
            start = next;
        }
        match settled {
            Some(head) => {
                self.enter_loop(Some(head));
                self.set_hazards(head);
                Some(head)
            }
            None => {
                self.flush();
                self.need_reads(l.cond.as_slice());
                let head = self.hazards();
                self.enter_loop(None);
                Some(head)
            }
        }
    }

    /// At the end of a loop's body (and step) in a control kernel: a barrier where the body
    /// starts clean; else what is pending is within the head's hazards.
    fn loop_back(&mut self, head: Option<Hazards>) {
        self.join_continues();
        let Some(c) = self.control.as_ref() else {
            return;
        };
        match c.continues.last() {
            Some(Some(_)) => {
                let end = c.hazards;
                let head = head.expect("a control loop's head");
                debug_assert_eq!(head.join(end), head, "a loop's back edge beyond its head");
            }
            _ => self.flush(),
        }
    }

    /// Where a `continue` lands before the step: the hazards of the continues join.
    fn join_continues(&mut self) {
        if let Some(c) = self.control.as_mut()
            && let Some(Some(top)) = c.continues.last()
        {
            c.hazards = c.hazards.join(*top);
            c.sink = None;
        }
    }

    fn enter_loop(&mut self, head: Option<Hazards>) {
        if let Some(c) = self.control.as_mut() {
            c.breaks.push(Hazards::default());
            c.continues.push(head.map(|_| Hazards::default()));
        }
    }

    fn leave_loop(&mut self) -> Hazards {
        let c = self.control.as_mut().expect("in a control kernel");
        c.continues.pop();
        c.breaks.pop().expect("the loop's breaks")
    }

    /// Runs `f` on a scratch copy of the emission state (writer and control context) and
    /// returns its result; what it wrote is dropped.
    fn aside<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let level = self.w.level();
        let w = std::mem::replace(&mut self.w, Writer::new(level));
        let control = self.control.clone();
        let slots = self.loop_slots.clone();
        let r = f(self);
        self.w = w;
        self.control = control;
        self.loop_slots = slots;
        r
    }

    /// After a loop of a control kernel: the hazards of its breaks and of its head (where
    /// the condition ends it).
    fn after_loop(&mut self, head: Option<Hazards>) {
        if self.control.is_some() {
            let breaks = self.leave_loop();
            let head = head.expect("a control loop's head");
            self.set_hazards(head.join(breaks));
        }
    }
}

/// The header of a loop: `while (cond) {`, `while (true) {` or `for (init; cond; step) {`.
fn head_text(init: String, cond: &Option<String>, step: String) -> String {
    match (init.is_empty(), cond, step.is_empty()) {
        (true, Some(c), true) => format!("while ({c}) {{"),
        (true, None, true) => "while (true) {".to_string(),
        _ => format!(
            "for ({init}; {}; {step}) {{",
            cond.clone().unwrap_or_default()
        ),
    }
}
