//! Editing bodies: deep copies of expressions and statements, for passes that need a value
//! or a piece of code twice (expressions and statements are trees: each has one parent).

use std::collections::HashMap;

use crate::ir::*;

/// Locals renamed by a copy: those declared inside the copied code get fresh ones.
pub type LocalMap = HashMap<LocalId, LocalId>;

impl Body {
    /// A deep copy of the expression tree at `e`.
    pub fn clone_expr(&mut self, e: ExprId) -> ExprId {
        self.clone_expr_with(e, &LocalMap::new())
    }

    /// A deep copy of the expression tree at `e`, with the locals of `map` replaced.
    pub fn clone_expr_with(&mut self, e: ExprId, map: &LocalMap) -> ExprId {
        let Expr { kind, ty, span } = self.exprs[e].clone();
        let l = |x: LocalId| *map.get(&x).unwrap_or(&x);
        let kind = match kind {
            ExprKind::Local(x) => ExprKind::Local(l(x)),
            ExprKind::TryMarks { marks, ids, count } => ExprKind::TryMarks {
                marks,
                ids: l(ids),
                count: count.map(l),
            },
            ExprKind::ArrayElement { array, index } => ExprKind::ArrayElement {
                array: l(array),
                index: self.clone_expr_with(index, map),
            },
            ExprKind::MeshQuery(m, args) => ExprKind::MeshQuery(
                m,
                args.into_iter()
                    .map(|a| self.clone_expr_with(a, map))
                    .collect(),
            ),
            ExprKind::Element { prop, index } => ExprKind::Element {
                prop,
                index: self.clone_expr_with(index, map),
            },
            ExprKind::Unary(op, a) => ExprKind::Unary(op, self.clone_expr_with(a, map)),
            ExprKind::Binary(op, a, b) => {
                let a = self.clone_expr_with(a, map);
                ExprKind::Binary(op, a, self.clone_expr_with(b, map))
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => {
                let cond = self.clone_expr_with(cond, map);
                let then_expr = self.clone_expr_with(then_expr, map);
                ExprKind::Select {
                    cond,
                    then_expr,
                    else_expr: self.clone_expr_with(else_expr, map),
                }
            }
            ExprKind::Cast(a) => ExprKind::Cast(self.clone_expr_with(a, map)),
            ExprKind::Builtin(b, args) => ExprKind::Builtin(
                b,
                args.into_iter()
                    .map(|a| self.clone_expr_with(a, map))
                    .collect(),
            ),
            ExprKind::Atomic { op, place, args } => {
                let place = self.clone_place_with(place, map);
                ExprKind::Atomic {
                    op,
                    place,
                    args: args
                        .into_iter()
                        .map(|a| self.clone_expr_with(a, map))
                        .collect(),
                }
            }
            ExprKind::FetchAdd {
                global,
                value,
                aggregation,
                note,
            } => ExprKind::FetchAdd {
                global,
                value: self.clone_expr_with(value, map),
                aggregation,
                note,
            },
            ExprKind::GraphQuery(m, a) => ExprKind::GraphQuery(m, self.clone_expr_with(a, map)),
            ExprKind::Split(q, v) => ExprKind::Split(q, self.clone_expr_with(v, map)),
            ExprKind::Pop(a) => ExprKind::Pop(self.clone_expr_with(a, map)),
            ExprKind::TryLock { locks, index } => ExprKind::TryLock {
                locks,
                index: self.clone_expr_with(index, map),
            },
            k @ (ExprKind::Literal(_)
            | ExprKind::Const(_)
            | ExprKind::Param(_)
            | ExprKind::Global(_)
            | ExprKind::GraphSize(_)
            | ExprKind::WorklistSize(_)
            | ExprKind::ReduceResult) => k,
        };
        self.exprs.push(Expr { kind, ty, span })
    }

    /// A copy of a place with its own index expression.
    pub fn clone_place_with(&mut self, place: Place, map: &LocalMap) -> Place {
        match place {
            Place::Element { prop, index } => Place::Element {
                prop,
                index: self.clone_expr_with(index, map),
            },
            Place::Local(x) => Place::Local(*map.get(&x).unwrap_or(&x)),
            Place::ArrayElement { array, index } => Place::ArrayElement {
                array: *map.get(&array).unwrap_or(&array),
                index: self.clone_expr_with(index, map),
            },
            p => p,
        }
    }

    fn clone_space_with(&mut self, space: &Space, map: &LocalMap) -> Space {
        match space {
            Space::Edges { node, dir } => Space::Edges {
                node: self.clone_expr_with(*node, map),
                dir: *dir,
            },
            Space::Range { lo, hi } => {
                let lo = self.clone_expr_with(*lo, map);
                Space::Range {
                    lo,
                    hi: self.clone_expr_with(*hi, map),
                }
            }
            s => s.clone(),
        }
    }

    /// A deep copy of a block: fresh statements and expressions; the locals declared inside
    /// it get fresh copies (recorded in `map`), the others are shared. Loop ids are kept: a
    /// caller that keeps both copies of a `ForAll` must renumber one.
    pub fn clone_block(&mut self, block: &Block, map: &mut LocalMap) -> Block {
        block.iter().map(|&s| self.clone_stmt(s, map)).collect()
    }

    fn fresh_local(&mut self, l: LocalId, map: &mut LocalMap) -> LocalId {
        let copy = self.locals[l].clone();
        let n = self.locals.push(copy);
        map.insert(l, n);
        n
    }

    /// A deep copy of one statement (see [`Body::clone_block`]).
    pub fn clone_stmt(&mut self, s: StmtId, map: &mut LocalMap) -> StmtId {
        let Stmt { kind, span } = self.stmts[s].clone();
        let kind = match kind {
            StmtKind::Let { local, init } => {
                let init = init.map(|e| self.clone_expr_with(e, map));
                StmtKind::Let {
                    local: self.fresh_local(local, map),
                    init,
                }
            }
            StmtKind::LetArray { local, elems } => {
                let elems = elems
                    .into_iter()
                    .map(|e| self.clone_expr_with(e, map))
                    .collect();
                StmtKind::LetArray {
                    local: self.fresh_local(local, map),
                    elems,
                }
            }
            StmtKind::Assign { place, op, value } => {
                let place = self.clone_place_with(place, map);
                StmtKind::Assign {
                    place,
                    op,
                    value: self.clone_expr_with(value, map),
                }
            }
            StmtKind::Eval(e) => StmtKind::Eval(self.clone_expr_with(e, map)),
            StmtKind::Reduce(e) => StmtKind::Reduce(self.clone_expr_with(e, map)),
            StmtKind::Combine {
                local,
                combiner,
                value,
            } => StmtKind::Combine {
                local: *map.get(&local).unwrap_or(&local),
                combiner,
                value: self.clone_expr_with(value, map),
            },
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let cond = self.clone_expr_with(cond, map);
                let then_block = self.clone_block(&then_block, map);
                StmtKind::If {
                    cond,
                    then_block,
                    else_block: self.clone_block(&else_block, map),
                }
            }
            StmtKind::Loop(l) => {
                let init = self.clone_block(&l.init, map);
                let cond = l.cond.map(|c| self.clone_expr_with(c, map));
                let body = self.clone_block(&l.body, map);
                StmtKind::Loop(Loop {
                    init,
                    cond,
                    step: self.clone_block(&l.step, map),
                    body,
                })
            }
            StmtKind::Block(b) => StmtKind::Block(self.clone_block(&b, map)),
            StmtKind::ForAll(f) => {
                let space = self.clone_space_with(&f.space, map);
                let var = self.fresh_local(f.var, map);
                let body = self.clone_block(&f.body, map);
                StmtKind::ForAll(ForAll {
                    id: f.id,
                    var,
                    space,
                    body,
                    schedule: f.schedule,
                    reductions: f
                        .reductions
                        .iter()
                        .map(|r| LoopReduce {
                            local: *map.get(&r.local).unwrap_or(&r.local),
                            ..*r
                        })
                        .collect(),
                })
            }
            StmtKind::Push(p) => StmtKind::Push(Push {
                item: self.clone_expr_with(p.item, map),
                ..p.clone()
            }),
            StmtKind::Accumulate(a) => StmtKind::Accumulate(Accumulate {
                value: self.clone_expr_with(a.value, map),
                ..a.clone()
            }),
            StmtKind::Unlock { locks, index } => StmtKind::Unlock {
                locks,
                index: self.clone_expr_with(index, map),
            },
            StmtKind::ReleaseMarks { marks, ids, count } => StmtKind::ReleaseMarks {
                marks,
                ids: *map.get(&ids).unwrap_or(&ids),
                count: count.map(|c| *map.get(&c).unwrap_or(&c)),
            },
            StmtKind::CopyArray { dst, src, count } => StmtKind::CopyArray {
                dst: *map.get(&dst).unwrap_or(&dst),
                src: *map.get(&src).unwrap_or(&src),
                count: *map.get(&count).unwrap_or(&count),
            },
            StmtKind::MeshUpdate(m, args) => StmtKind::MeshUpdate(
                m,
                args.into_iter()
                    .map(|a| self.clone_expr_with(a, map))
                    .collect(),
            ),
            StmtKind::Phase(p) => StmtKind::Phase(Phase {
                guard: p.guard,
                body: self.clone_block(&p.body, map),
            }),
            StmtKind::Inspect(i) => StmtKind::Inspect(Inspect {
                loop_id: i.loop_id,
                space: self.clone_space_with(&i.space, map),
                state: i.state,
            }),
            StmtKind::Launch(l) => StmtKind::Launch(Launch {
                args: l
                    .args
                    .iter()
                    .map(|a| self.clone_expr_with(*a, map))
                    .collect(),
                ..l
            }),
            StmtKind::WorklistInit(Initial::List(items)) => StmtKind::WorklistInit(Initial::List(
                items
                    .iter()
                    .map(|a| self.clone_expr_with(*a, map))
                    .collect(),
            )),
            StmtKind::Region(r) => StmtKind::Region(Region {
                body: self.clone_block(&r.body, map),
                ..r.clone()
            }),
            StmtKind::Control(c) => StmtKind::Control(Control {
                body: self.clone_block(&c.body, map),
                inputs: c.inputs.iter().map(|l| *map.get(l).unwrap_or(l)).collect(),
                outputs: c.outputs.iter().map(|l| *map.get(l).unwrap_or(l)).collect(),
                ..c.clone()
            }),
            k @ (StmtKind::Break
            | StmtKind::Continue
            | StmtKind::GridSync
            | StmtKind::WorklistClear
            | StmtKind::WorklistInit(Initial::AllNodes)
            | StmtKind::WorklistSwap(_)
            | StmtKind::ReduceReset(_)
            | StmtKind::CountIteration) => k,
        };
        self.stmts.push(Stmt { kind, span })
    }
}
