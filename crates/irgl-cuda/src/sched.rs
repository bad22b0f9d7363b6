//! Block-scheduled nested `ForAll`s: the schedulers of the paper's section 4.3 (Listings 10
//! and 11), in descending order of preferred size, each a loop that is uniform across the
//! block.
//!
//! Every thread first publishes its item (trip count, first value, closure) in shared
//! memory; then each scheduler takes the items assigned to it: thread block and (virtual)
//! warps elect one owner at a time and spread its iterations over their threads;
//! fine-grained spreads consecutive iterations of all its items over consecutive threads,
//! edge-balanced gives each thread an equal contiguous share; serial leaves each item to its
//! owner. An iteration runs the loop's body with the variable and the owner's closure
//! restored.

use irgl_ir::*;

use crate::expr::c_type;
use crate::stmt::{ContinueAs, Emitter};

impl Emitter<'_> {
    pub(crate) fn scheduled(&mut self, f: &ForAll, b: &BlockSchedule) {
        let n = f.id.index();
        let body = self.body();
        let var_ty = c_type(body.locals[f.var].ty);
        let reached = self.x.local(b.state.reached);
        let count = self.x.local(b.state.count);
        let begin = self.x.local(b.state.begin);
        let plan: Vec<String> = b
            .policies
            .iter()
            .zip(&b.thresholds)
            .map(|(p, t)| {
                if *p == Policy::Grid {
                    format!("{p} (>= a block's share of the graph's edges)")
                } else if p.takes_the_rest() {
                    format!("{p} (the rest)")
                } else {
                    format!("{p} (>= {t})")
                }
            })
            .collect();
        self.w.open(format!(
            "{{  // {}: nested ForAll run by the block's schedulers: {}",
            f.id,
            plan.join(", ")
        ));
        let uses_count = b.policies.iter().any(|p| {
            matches!(
                p,
                Policy::Threadblock | Policy::Warp | Policy::VirtualWarp(_)
            )
        });
        let shared = b.policies.iter().any(|p| *p != Policy::Serial);
        // The first values are read only where the body reads the loop's variable.
        let uses_var = irgl_ir::visit::locals_used(body, &f.body).contains(&f.var);
        let grid = b.policies.contains(&Policy::Grid);
        let konst = if grid { "" } else { "const " };
        self.w.line(format!(
            "{konst}uint32_t irgl_mine{n} = {reached} ? {count} : 0u;"
        ));
        if grid {
            self.w.line(format!(
                "const uint32_t irgl_gd{n} = irgl_grid_min;  // a block's share of the graph's edges (0: no hub)"
            ));
        }
        // Which scheduler takes this thread's item: the first whose threshold it reaches.
        let mut choice = String::new();
        let last = b.policies.len() - 1;
        for (i, (p, t)) in b.policies.iter().zip(&b.thresholds).enumerate().take(last) {
            if *p == Policy::Grid {
                choice.push_str(&format!(
                    "irgl_gd{n} != 0u && irgl_mine{n} >= irgl_gd{n} ? {i}u : "
                ));
            } else {
                choice.push_str(&format!("irgl_mine{n} >= {t}u ? {i}u : "));
            }
        }
        choice.push_str(&format!("{last}u"));
        self.w
            .line(format!("{konst}unsigned irgl_policy{n} = {choice};"));
        if grid {
            self.grid_publish(f, b);
        }
        if shared {
            self.w
                .line("// Each thread's item, for the threads that run its iterations.");
            if uses_count {
                self.w
                    .line(format!("__shared__ uint32_t irgl_count{n}[BLOCK];"));
            }
            if uses_var {
                self.w
                    .line(format!("__shared__ {var_ty} irgl_begin{n}[BLOCK];"));
            }
            for &l in &b.closure {
                let ty = c_type(body.locals[l].ty);
                let name = self.x.local(l);
                self.w
                    .line(format!("__shared__ {ty} irgl_c{n}_{name}[BLOCK];"));
            }
            if uses_count {
                self.w
                    .line(format!("irgl_count{n}[threadIdx.x] = irgl_mine{n};"));
            }
            if uses_var {
                self.w
                    .line(format!("irgl_begin{n}[threadIdx.x] = {begin};"));
            }
            for &l in &b.closure {
                let name = self.x.local(l);
                self.w
                    .line(format!("irgl_c{n}_{name}[threadIdx.x] = {name};"));
            }
            if !f.reductions.is_empty() {
                self.w.line(
                    "// Each owner's reduced locals: the threads that run its iterations combine into them.",
                );
            }
            for r in &f.reductions {
                let ty = c_type(body.locals[r.local].ty);
                let name = self.x.local(r.local);
                self.w.line(format!(
                    "__shared__ irgl::slot_t<{ty}> irgl_r{n}_{name}[BLOCK];"
                ));
                self.w
                    .line(format!("irgl_r{n}_{name}[threadIdx.x] = {name};"));
            }
        }
        // Pushes made once per iteration: the block reserves the slots of all its items'
        // iterations at once (a prefix sum of the trip counts, one atomic).
        let sites = irgl_ir::visit::loop_pushes(body, &f.body, Aggregation::BlockLoop);
        for &s in &sites {
            let StmtKind::Push(p) = &body.stmts[s].kind else {
                panic!("{s} is not a push");
            };
            let wl = crate::device::push_target(p.target, self.asynchrony);
            let i = s.index();
            self.w
                .line(format!("__shared__ irgl::wl_index_t irgl_slots{i}[BLOCK];"));
            self.w.line(format!(
                "irgl_slots{i}[threadIdx.x] = {wl}.reserve_block<BLOCK>(irgl_mine{n});  // every iteration pushes once: one atomic for the block's loop"
            ));
        }
        if shared || !sites.is_empty() {
            self.w.line("__syncthreads();");
        }
        for (i, (p, t)) in b.policies.iter().zip(&b.thresholds).enumerate() {
            match p {
                // Its items run after the block's last trip (`grid_help`).
                Policy::Grid => {}
                Policy::Threadblock => self.tb_stage(f, b, i, *t),
                Policy::Warp => self.warp_stage(f, b, i, 32, *t),
                Policy::VirtualWarp(w) => self.warp_stage(f, b, i, u32::from(*w), *t),
                Policy::Finegrained | Policy::EdgeBalanced => self.scan_stage(f, b, i, *p),
                Policy::Serial => self.serial_stage(f, b, i),
            }
        }
        if shared || !sites.is_empty() {
            self.w
                .line("__syncthreads();  // the next trip rewrites the shared arrays");
        }
        if shared {
            for r in &f.reductions {
                let ty = c_type(body.locals[r.local].ty);
                let name = self.x.local(r.local);
                self.w.line(format!(
                    "{name} = static_cast<{ty}>(irgl_r{n}_{name}[threadIdx.x]);  // its items' combination"
                ));
            }
        }
        self.w.close("}");
    }

    /// `gd`: an owner whose item reaches the grid's threshold publishes it (its first value
    /// and closure in the loop's arrays, by slot) and leaves it to the grid; when the table
    /// is full the next scheduler takes it. Declares the loop's table at file scope.
    fn grid_publish(&mut self, f: &ForAll, b: &BlockSchedule) {
        let n = f.id.index();
        let body = self.body();
        let table = crate::device::grid_table(&self.grid_prefix, f.id);
        let mut decls = vec![format!(
            "// {} of `{}`: the items its owners hand to the whole grid (irgl/grid_items.cuh).",
            f.id,
            self.grid_prefix
                .trim_start_matches("irgl_grid_")
                .trim_end_matches('_')
        )];
        decls.push(format!("__device__ irgl::GridItems {table};"));
        let values: Vec<(String, String)> = grid_values(body, f, b)
            .into_iter()
            .map(|v| match v {
                None => (
                    c_type(body.locals[f.var].ty).to_string(),
                    self.x.local(b.state.begin),
                ),
                Some(l) => (c_type(body.locals[l].ty).to_string(), self.x.local(l)),
            })
            .collect();
        for (i, (ty, _)) in values.iter().enumerate() {
            decls.push(format!("__device__ {ty} {table}_v{i}[irgl::kGridItems];"));
        }
        self.grid_decls.push(decls.join("\n"));
        self.w.open(format!(
            "if (irgl_policy{n} == 0u) {{  // gd: hand the item to the grid"
        ));
        self.w.line(format!(
            "const uint32_t irgl_slot = irgl::grid_publish({table}, irgl_mine{n});"
        ));
        self.w.open("if (irgl_slot < irgl::kGridItems) {");
        for (i, (_, v)) in values.iter().enumerate() {
            self.w.line(format!("{table}_v{i}[irgl_slot] = {v};"));
        }
        self.w
            .line(format!("irgl::grid_ready({table}, irgl_slot);"));
        self.w.line(format!(
            "irgl_mine{n} = 0u;  // no scheduler of the block takes it"
        ));
        self.w.close("} else {");
        self.w.level_up();
        self.w.line(format!(
            "irgl_policy{n} = 1u;  // the table is full: the block's next scheduler takes it"
        ));
        self.w.close("}");
        self.w.close("}");
    }

    /// `gd`, after the outer loop's last trip (uniform code): the block takes chunks of the
    /// items the grid's owners published until none is left and runs their iterations with
    /// the owners' values; then the last block out clears the table (in a control kernel,
    /// the barrier after the call: [`crate::device::grid_tables`]). Inline: run as a
    /// function that is never inlined, the iterations spilled less in control kernels capped
    /// at 32 registers, but bfs, sssp and bc on a star of degree 1 M took 0.7 ms more a run
    /// (0.86 ms against 0.14, one H200).
    /// With `--grid-wait on`, `outer_total` (the outer loop's item count) decides whether the
    /// blocks wait for late owners (`irgl::grid_wait_for_owners`): where at most one block in
    /// 32 has an item, the others reach this loop before an owner publishes. Off by default:
    /// the few lines it adds cost kcore 1.26x on cnr-2000 even where it never waits (ptxas's
    /// code for the control kernel; one H200, docs/optimizations.md).
    pub(crate) fn grid_help(&mut self, f: &ForAll, b: &BlockSchedule, outer_total: &str) {
        let body = self.body();
        let table = crate::device::grid_table(&self.grid_prefix, f.id);
        let ty = c_type(body.locals[f.var].ty);
        let v = self.x.local(f.var);
        let uses_var = irgl_ir::visit::locals_used(body, &f.body).contains(&f.var);
        self.w.open(format!(
            "if (irgl_grid_min != 0u) {{  // {}: the items handed to the grid, a chunk of 4 x BLOCK iterations at a time, by every block",
            f.id
        ));
        if self.m().launch.grid_wait {
            self.w
                .line("__shared__ uint32_t irgl_gslot, irgl_gfirst, irgl_garrived;");
            self.w.line(format!(
                "const bool irgl_gwait = {outer_total} * 32u <= gridDim.x;  // nearly every block without an item: wait for late owners"
            ));
            self.w.line("if (threadIdx.x == 0) irgl_garrived = 0u;");
            self.w.open("for (;;) {");
            self.w.open("if (threadIdx.x == 0) {");
            self.w.line(format!(
                "irgl::grid_claim<4u * BLOCK>({table}, irgl_gslot, irgl_gfirst);"
            ));
            self.w.line(format!(
                "if (irgl_gwait && irgl_gslot == irgl::kGridItems) irgl::grid_wait_for_owners<4u * BLOCK>({table}, irgl_gslot, irgl_gfirst, irgl_garrived);"
            ));
            self.w.close("}");
            self.w
                .line("__syncwarp();  // thread 0's warp, whole again after the call");
        } else {
            self.w.line("__shared__ uint32_t irgl_gslot, irgl_gfirst;");
            self.w.open("for (;;) {");
            self.w.line(format!(
                "if (threadIdx.x == 0) irgl::grid_claim<4u * BLOCK>({table}, irgl_gslot, irgl_gfirst);"
            ));
        }
        self.w.line("__syncthreads();");
        self.w.line("const uint32_t irgl_s = irgl_gslot;");
        self.w.line("const uint32_t irgl_first = irgl_gfirst;");
        self.w
            .line("__syncthreads();  // thread 0 rewrites them in the next claim");
        self.w
            .line("if (irgl_s == irgl::kGridItems) break;  // the same in every thread");
        self.w.line(format!(
            "const uint32_t irgl_trips = irgl::load_coherent({table}.trips[irgl_s]);"
        ));
        self.w.line(
            "const uint32_t irgl_end = irgl_trips - irgl_first < 4u * BLOCK ? irgl_trips : irgl_first + 4u * BLOCK;",
        );
        for (i, value) in grid_values(body, f, b).into_iter().enumerate() {
            let (ty, name) = match value {
                None => (ty, "irgl_gbegin".to_string()),
                Some(l) => (c_type(body.locals[l].ty), self.x.local(l)),
            };
            self.w.line(format!(
                "const {ty} {name} = irgl::load_coherent({table}_v{i}[irgl_s]);"
            ));
        }
        self.w.open(
            "for (uint32_t irgl_k = irgl_first + threadIdx.x; irgl_k < irgl_end; irgl_k += BLOCK) {",
        );
        if uses_var {
            self.w.line(format!(
                "const {ty} {v} = static_cast<{ty}>(irgl_gbegin + irgl_k);"
            ));
        }
        self.continues.push(ContinueAs::Continue);
        self.block_trips.push(false);
        self.grid_help = true;
        self.block(&f.body);
        self.grid_help = false;
        self.block_trips.pop();
        self.continues.pop();
        self.w.close("}");
        self.w.close("}");
        if self.grid_leave {
            self.w
                .line(format!("if (threadIdx.x == 0) irgl::grid_leave({table});"));
        }
        self.w.close("}");
    }

    /// Declares this thread's partial result of each local the loop reduces (the
    /// combiner's identity) and sends the loop's combinations there.
    fn open_partials(&mut self, f: &ForAll) {
        let n = f.id.index();
        for r in &f.reductions {
            let ty = c_type(self.body().locals[r.local].ty);
            let name = self.x.local(r.local);
            let partial = format!("irgl_p{n}_{name}");
            self.w.line(format!(
                "{ty} {partial} = irgl::identity<{}, {ty}>();",
                combiner(r.combiner)
            ));
            self.partials.insert(r.local, partial);
        }
    }

    fn close_partials(&mut self, f: &ForAll) {
        for r in &f.reductions {
            self.partials.remove(&r.local);
        }
    }

    /// Per reduced local: `(C++ type, combiner, partial, slot array)`.
    fn reduced(&self, f: &ForAll) -> Vec<(String, &'static str, String, String)> {
        let n = f.id.index();
        f.reductions
            .iter()
            .map(|r| {
                let name = self.x.local(r.local);
                (
                    c_type(self.body().locals[r.local].ty).to_string(),
                    combiner(r.combiner),
                    format!("irgl_p{n}_{name}"),
                    format!("irgl_r{n}_{name}"),
                )
            })
            .collect()
    }

    /// After a scheduler's loop that every lane of the warp reaches: the partials of the
    /// lanes of each group of `width` (which ran one item, of the thread `owner` names in the
    /// group's first lane) combined by shuffles, then into the owner's slot: with an atomic
    /// (`atomic`: other warps run the same item) or a plain update by the first lane.
    fn combine_groups(&mut self, f: &ForAll, width: u32, owner: &str, valid: &str, atomic: bool) {
        for (ty, c, partial, slot) in self.reduced(f) {
            self.w.line(format!(
                "{partial} = irgl::group_combine<{c}, {width}>({partial});"
            ));
            let first = if width == 32 {
                "(threadIdx.x & 31u) == 0".to_string()
            } else {
                format!("(threadIdx.x & {}u) == 0", width - 1)
            };
            let f = if atomic {
                "combine_atomic"
            } else {
                "combine_into"
            };
            let cond = if valid == "true" {
                first
            } else {
                format!("{first} && {valid}")
            };
            self.w.line(format!(
                "if ({cond}) irgl::{f}<{c}, {ty}>(&{slot}[{owner}], {partial});"
            ));
        }
    }

    /// One iteration: iteration `k` of the item of thread `o`. `block_trip`: this scheduler's
    /// trips are run by the whole block together, one iteration per thread, and a `Continue`
    /// leaves the `do`/`while (0)` around the iteration instead of the loop; `wrapped`: the
    /// iteration is in such a `do`/`while (0)` for another reason (the trip's combinations
    /// follow it).
    fn exec(
        &mut self,
        f: &ForAll,
        b: &BlockSchedule,
        o: &str,
        k: &str,
        block_trip: bool,
        wrapped: bool,
    ) {
        let n = f.id.index();
        let body = self.body();
        let ty = c_type(body.locals[f.var].ty);
        let v = self.x.local(f.var);
        if irgl_ir::visit::locals_used(body, &f.body).contains(&f.var) {
            self.w.line(format!(
                "const {ty} {v} = static_cast<{ty}>(irgl_begin{n}[{o}] + {k});"
            ));
        }
        for &l in &b.closure {
            let lt = c_type(body.locals[l].ty);
            let name = self.x.local(l);
            self.w
                .line(format!("const {lt} {name} = irgl_c{n}_{name}[{o}];"));
        }
        self.continues.push(if block_trip || wrapped {
            ContinueAs::Break
        } else {
            ContinueAs::Continue
        });
        self.block_trips.push(block_trip);
        self.iteration_body(f, o, k);
        self.block_trips.pop();
        self.continues.pop();
    }

    /// The loop's body for iteration `k` of the item of thread `o`, its block-loop pushes
    /// writing at the item's slots plus `k`.
    fn iteration_body(&mut self, f: &ForAll, o: &str, k: &str) {
        let sites = irgl_ir::visit::loop_pushes(self.body(), &f.body, Aggregation::BlockLoop);
        for &s in &sites {
            self.loop_slots.insert(
                s,
                (
                    format!("irgl_slots{}[{o}]", s.index()),
                    format!("static_cast<uint32_t>({k})"),
                ),
            );
        }
        self.block(&f.body);
        for s in sites {
            self.loop_slots.remove(&s);
        }
    }

    fn tb_stage(&mut self, f: &ForAll, b: &BlockSchedule, i: usize, t: u32) {
        let n = f.id.index();
        self.w.open(format!(
            "{{  // tb: items of {t} iterations or more, one at a time, by the whole block"
        ));
        // Each round, each warp names its first waiting thread in its own slot (two sets of
        // slots, by round parity, so that one barrier a round orders writes and reads); the
        // owner is the first named thread.
        self.w
            .line(format!("__shared__ uint32_t irgl_leads{n}[2][BLOCK / 32];"));
        self.w.line(format!(
            "bool irgl_wait = irgl_policy{n} == {i}u && irgl_mine{n} != 0u;"
        ));
        self.w
            .open("for (unsigned irgl_round = 0;; ++irgl_round) {");
        self.w
            .line("const unsigned irgl_votes = __ballot_sync(0xffffffffu, irgl_wait);");
        self.w.line(format!(
            "if ((threadIdx.x & 31u) == 0) irgl_leads{n}[irgl_round & 1][threadIdx.x / 32] = irgl_votes != 0u ? (threadIdx.x & ~31u) + __ffs(irgl_votes) - 1u : BLOCK;"
        ));
        self.w.line("__syncthreads();");
        self.w.line("uint32_t irgl_o = BLOCK;");
        self.w.line(format!(
            "for (unsigned irgl_w = 0; irgl_w < BLOCK / 32 && irgl_o == BLOCK; ++irgl_w) irgl_o = irgl_leads{n}[irgl_round & 1][irgl_w];"
        ));
        self.w
            .line("if (irgl_o == BLOCK) break;  // the same in every thread");
        self.w.line("if (irgl_o == threadIdx.x) irgl_wait = false;");
        self.w
            .line(format!("const uint32_t irgl_n = irgl_count{n}[irgl_o];"));
        let sites = irgl_ir::visit::trip_pushes(self.body(), &f.body);
        self.open_partials(f);
        if sites.is_empty() {
            self.w
                .open("for (uint32_t irgl_k = threadIdx.x; irgl_k < irgl_n; irgl_k += BLOCK) {");
            self.exec(f, b, "irgl_o", "irgl_k", false, false);
            self.w.close("}");
        } else {
            // Trips of one iteration per thread, run by the whole block (block pushes).
            self.w.open(
                "for (uint32_t irgl_base = 0; irgl_base < irgl_n; irgl_base += BLOCK) {  // the same trips in every thread",
            );
            self.w
                .line("const uint32_t irgl_k = irgl_base + threadIdx.x;");
            self.trip_flags(&sites);
            self.w.open("do {  // this thread's iteration of the trip");
            self.w.line("if (irgl_k >= irgl_n) break;");
            self.exec(f, b, "irgl_o", "irgl_k", true, false);
            self.w.close("} while (0);");
            self.trip_reservations(&sites);
            self.w.close("}");
        }
        self.close_partials(f);
        // The item's partials: per warp by shuffles, then one shared atomic per warp.
        self.combine_groups(f, 32, "irgl_o", "true", true);
        self.w.close("}");
        self.w.close("}");
    }

    /// A warp (`width` 32) or a virtual warp of `width` lanes.
    fn warp_stage(&mut self, f: &ForAll, b: &BlockSchedule, i: usize, width: u32, t: u32) {
        let n = f.id.index();
        let who = if width == 32 {
            "a warp".to_string()
        } else {
            format!("{width} lanes")
        };
        let name = if width == 32 {
            "wp".to_string()
        } else {
            format!("vw{width}")
        };
        self.w.open(format!(
            "{{  // {name}: items of {t} iterations or more, one at a time, by {who}"
        ));
        self.w.line(format!(
            "bool irgl_wait = irgl_policy{n} == {i}u && irgl_mine{n} != 0u;"
        ));
        self.w.line("const unsigned irgl_lane = threadIdx.x & 31u;");
        let ballot = "__ballot_sync(0xffffffffu, irgl_wait)";
        self.w.open(format!(
            "for (unsigned irgl_votes = {ballot}; irgl_votes != 0u; irgl_votes = {ballot}) {{"
        ));
        if width == 32 {
            self.w
                .line("const unsigned irgl_leader = __ffs(irgl_votes) - 1u;");
            self.w
                .line("const uint32_t irgl_o = (threadIdx.x & ~31u) + irgl_leader;");
            self.w
                .line("if (irgl_lane == irgl_leader) irgl_wait = false;");
            self.w
                .line(format!("const uint32_t irgl_n = irgl_count{n}[irgl_o];"));
            self.open_partials(f);
            self.w
                .open("for (uint32_t irgl_k = irgl_lane; irgl_k < irgl_n; irgl_k += 32u) {");
            self.exec(f, b, "irgl_o", "irgl_k", false, false);
            self.w.close("}");
            self.close_partials(f);
            // The item is this warp's alone: its first lane updates the owner's slot.
            self.combine_groups(f, 32, "irgl_o", "true", false);
        } else {
            let mask = (1u64 << width) - 1;
            self.w.line(format!(
                "const unsigned irgl_group = irgl_lane & ~{}u;  // the group's first lane",
                width - 1
            ));
            self.w.line(format!(
                "const unsigned irgl_group_votes = (irgl_votes >> irgl_group) & {mask:#x}u;"
            ));
            let reduces = !f.reductions.is_empty();
            if reduces {
                // The group's owner, read after the group's loop by all its lanes.
                self.w.line("uint32_t irgl_go = BLOCK;");
                self.open_partials(f);
            }
            self.w.open("if (irgl_group_votes != 0u) {");
            self.w
                .line("const unsigned irgl_leader = irgl_group + __ffs(irgl_group_votes) - 1u;");
            self.w
                .line("const uint32_t irgl_o = (threadIdx.x & ~31u) + irgl_leader;");
            if reduces {
                self.w.line("irgl_go = irgl_o;");
            }
            self.w
                .line("if (irgl_lane == irgl_leader) irgl_wait = false;");
            self.w
                .line(format!("const uint32_t irgl_n = irgl_count{n}[irgl_o];"));
            self.w.open(format!(
                "for (uint32_t irgl_k = irgl_lane - irgl_group; irgl_k < irgl_n; irgl_k += {width}u) {{"
            ));
            self.exec(f, b, "irgl_o", "irgl_k", false, false);
            self.w.close("}");
            self.w.close("}");
            if reduces {
                self.close_partials(f);
                // Each group's item is its own: its first lane updates the owner's slot.
                self.combine_groups(f, width, "irgl_go", "irgl_go != BLOCK", false);
            }
        }
        self.w.close("}");
        self.w.close("}");
    }

    /// Fine-grained or edge-balanced: a block-wide prefix sum of the remaining items' trip
    /// counts, then each iteration finds its item.
    fn scan_stage(&mut self, f: &ForAll, b: &BlockSchedule, i: usize, p: Policy) {
        let n = f.id.index();
        let what = if p == Policy::Finegrained {
            "fg: the remaining items' iterations, consecutive ones to consecutive threads"
        } else {
            "eb: the remaining items' iterations, an equal contiguous share to each thread"
        };
        self.w.open(format!("{{  // {what}"));
        self.w.line(format!(
            "__shared__ unsigned long long irgl_offset{n}[BLOCK];"
        ));
        self.w.line(format!(
            "__shared__ unsigned long long irgl_scan{n}[BLOCK / 32];"
        ));
        self.w.line("unsigned long long irgl_total;");
        self.w.line(format!(
            "irgl_offset{n}[threadIdx.x] = irgl::block_exclusive_scan<BLOCK>(irgl_policy{n} == {i}u ? irgl_mine{n} : 0u, irgl_scan{n}, irgl_total);"
        ));
        self.w.line("__syncthreads();");
        if p == Policy::Finegrained {
            let sites = irgl_ir::visit::trip_pushes(self.body(), &f.body);
            self.w.open(
                "for (unsigned long long irgl_base = 0; irgl_base < irgl_total; irgl_base += BLOCK) {",
            );
            self.w
                .line("const unsigned long long irgl_k = irgl_base + threadIdx.x;");
            let block_trip = !sites.is_empty();
            let reduces = !f.reductions.is_empty();
            if block_trip {
                self.trip_flags(&sites);
            }
            if reduces {
                // The trip's combinations follow the iteration: every lane must reach them.
                self.w.line(format!(
                    "const uint32_t irgl_o = irgl_k < irgl_total ? irgl::owner_of<BLOCK>(irgl_offset{n}, irgl_k) : BLOCK;"
                ));
                self.open_partials(f);
            }
            if block_trip || reduces {
                self.w.open("do {  // this thread's iteration of the trip");
                self.w.line("if (irgl_k >= irgl_total) break;");
            } else {
                self.w.open("if (irgl_k < irgl_total) {");
            }
            if !reduces {
                self.w.line(format!(
                    "const uint32_t irgl_o = irgl::owner_of<BLOCK>(irgl_offset{n}, irgl_k);"
                ));
            }
            self.exec(
                f,
                b,
                "irgl_o",
                &format!("(irgl_k - irgl_offset{n}[irgl_o])"),
                block_trip,
                reduces,
            );
            if block_trip || reduces {
                self.w.close("} while (0);");
            } else {
                self.w.close("}");
            }
            if block_trip {
                self.trip_reservations(&sites);
            }
            if reduces {
                self.close_partials(f);
                // Consecutive lanes run consecutive iterations: a segmented combination per
                // owner, then one shared atomic per segment.
                self.w.line("bool irgl_tail;");
                for (ty, c, partial, slot) in self.reduced(f) {
                    self.w.line(format!(
                        "{partial} = irgl::segmented_combine<{c}>({partial}, irgl_o, irgl_tail);"
                    ));
                    self.w.line(format!(
                        "if (irgl_tail && irgl_o != BLOCK) irgl::combine_atomic<{c}, {ty}>(&{slot}[irgl_o], {partial});"
                    ));
                }
            }
            self.w.close("}");
        } else {
            self.w
                .line("const unsigned long long irgl_share = (irgl_total + BLOCK - 1) / BLOCK;");
            self.w
                .line("unsigned long long irgl_k = irgl_share * threadIdx.x;");
            self.w.line(
                "const unsigned long long irgl_end = irgl_k + irgl_share < irgl_total ? irgl_k + irgl_share : irgl_total;",
            );
            self.w.open("if (irgl_k < irgl_end) {");
            self.w.line(format!(
                "uint32_t irgl_o = irgl::owner_of<BLOCK>(irgl_offset{n}, irgl_k);"
            ));
            let reduced = self.reduced(f);
            self.open_partials(f);
            self.w.open("for (; irgl_k < irgl_end; ++irgl_k) {");
            if reduced.is_empty() {
                self.w.line(format!(
                    "while (irgl_o + 1 < BLOCK && irgl_offset{n}[irgl_o + 1] <= irgl_k) ++irgl_o;"
                ));
            } else {
                // A share may span items: each item's partial goes to its owner's slot.
                self.w.open(format!(
                    "if (irgl_o + 1 < BLOCK && irgl_offset{n}[irgl_o + 1] <= irgl_k) {{"
                ));
                for (ty, c, partial, slot) in &reduced {
                    self.w.line(format!(
                        "irgl::combine_atomic<{c}, {ty}>(&{slot}[irgl_o], {partial});"
                    ));
                    self.w
                        .line(format!("{partial} = irgl::identity<{c}, {ty}>();"));
                }
                self.w.line(format!(
                    "while (irgl_o + 1 < BLOCK && irgl_offset{n}[irgl_o + 1] <= irgl_k) ++irgl_o;"
                ));
                self.w.close("}");
            }
            self.exec(
                f,
                b,
                "irgl_o",
                &format!("(irgl_k - irgl_offset{n}[irgl_o])"),
                false,
                false,
            );
            self.w.close("}");
            self.close_partials(f);
            for (ty, c, partial, slot) in &reduced {
                self.w.line(format!(
                    "irgl::combine_atomic<{c}, {ty}>(&{slot}[irgl_o], {partial});"
                ));
            }
            self.w.close("}");
        }
        self.w.close("}");
    }

    /// Serial: each remaining item by its own thread (its closure is its own).
    fn serial_stage(&mut self, f: &ForAll, b: &BlockSchedule, i: usize) {
        let n = f.id.index();
        let body = self.body();
        let ty = c_type(body.locals[f.var].ty);
        let v = self.x.local(f.var);
        let begin = self.x.local(b.state.begin);
        self.w.open(format!(
            "if (irgl_policy{n} == {i}u) {{  // serial: the remaining items, each by its own thread"
        ));
        // With other schedulers, the owner's slot holds its reduced locals.
        let slots = b.policies.iter().any(|p| *p != Policy::Serial);
        if slots {
            self.open_partials(f);
        }
        self.w.open(format!(
            "for (uint32_t irgl_k = 0; irgl_k < irgl_mine{n}; ++irgl_k) {{"
        ));
        if irgl_ir::visit::locals_used(body, &f.body).contains(&f.var) {
            self.w.line(format!(
                "const {ty} {v} = static_cast<{ty}>({begin} + irgl_k);"
            ));
        }
        self.continues.push(ContinueAs::Continue);
        self.block_trips.push(false);
        self.iteration_body(f, "threadIdx.x", "irgl_k");
        self.block_trips.pop();
        self.continues.pop();
        self.w.close("}");
        if slots {
            self.close_partials(f);
            for (ty, c, partial, slot) in self.reduced(f) {
                self.w.line(format!(
                    "irgl::combine_into<{c}, {ty}>(&{slot}[threadIdx.x], {partial});"
                ));
            }
        }
        self.w.close("}");
    }
}

/// The runtime's name of a combiner.
fn combiner(c: Combiner) -> &'static str {
    match c {
        Combiner::Sum => "irgl::Combiner::Sum",
        Combiner::Min => "irgl::Combiner::Min",
        Combiner::Max => "irgl::Combiner::Max",
        Combiner::Any => "irgl::Combiner::Any",
        Combiner::All => "irgl::Combiner::All",
        Combiner::Or => "irgl::Combiner::Or",
        Combiner::And => "irgl::Combiner::And",
    }
}

/// What a slot of a `gd` loop's table holds, in the order of its arrays (`TABLE_vI`): the
/// first value of the range where the body reads the loop's variable (`None`), then each
/// local of the closure. The owner writes them (`grid_publish`), the blocks that take the
/// item read them (`grid_help`).
fn grid_values(body: &Body, f: &ForAll, b: &BlockSchedule) -> Vec<Option<LocalId>> {
    let uses_var = irgl_ir::visit::locals_used(body, &f.body).contains(&f.var);
    uses_var
        .then_some(None)
        .into_iter()
        .chain(b.closure.iter().map(|&l| Some(l)))
        .collect()
}
