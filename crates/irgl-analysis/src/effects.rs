//! Data effects: which properties (of nodes, edges, mesh elements and arrays) and which
//! globals a kernel, or an expression of `main`, reads and writes.
//!
//! A [`PlaceSet`] is a set of those places, one bit each: the properties in declaration order,
//! then the globals. A program with more than 63 places shares the last bit among the rest,
//! which only makes two of them look alike (a conflict that is not one), never the reverse.
//! The mesh (its topology, its allocations) is not a place of its own: a kernel or an
//! expression that queries or changes it reads or writes every place.
//!
//! [`DataEffects::of_kernel`] over-approximates: every expression and statement in the
//! kernel's body counts, reachable or not, and an atomic or a compound assignment both reads
//! and writes its place. The back end separates a control kernel's statements by grid
//! barriers only where their effects conflict (`irgl-cuda`'s hazards), so a place left out
//! here would be a race; one added is only a barrier more.

use irgl_ir::*;

/// A set of places (see the module's header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlaceSet(pub u64);

impl PlaceSet {
    pub const EMPTY: PlaceSet = PlaceSet(0);
    /// Every place (the mesh, a grid barrier's kernel).
    pub const ALL: PlaceSet = PlaceSet(u64::MAX);

    fn bit(index: usize) -> PlaceSet {
        PlaceSet(1u64 << index.min(63))
    }

    /// The property `p` of `m`.
    pub fn prop(p: PropId) -> PlaceSet {
        PlaceSet::bit(p.index())
    }

    /// The global `g` of `m` (after its properties).
    pub fn global(m: &Module, g: GlobalId) -> PlaceSet {
        PlaceSet::bit(m.graph.props.len() + g.index())
    }

    /// The device place of `place`: none for a local or an element of an array local
    /// (thread-local).
    pub fn of_place(m: &Module, place: &Place) -> PlaceSet {
        match place {
            Place::Global(g) => PlaceSet::global(m, *g),
            Place::Element { prop, .. } => PlaceSet::prop(*prop),
            Place::Local(_) | Place::ArrayElement { .. } => PlaceSet::EMPTY,
        }
    }

    pub fn union(self, other: PlaceSet) -> PlaceSet {
        PlaceSet(self.0 | other.0)
    }

    pub fn intersects(self, other: PlaceSet) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// What reads and writes a kernel or an expression does to device data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DataEffects {
    pub reads: PlaceSet,
    pub writes: PlaceSet,
}

impl DataEffects {
    /// Every place, read and written.
    pub const ALL: DataEffects = DataEffects {
        reads: PlaceSet::ALL,
        writes: PlaceSet::ALL,
    };

    pub fn join(self, other: DataEffects) -> DataEffects {
        DataEffects {
            reads: self.reads.union(other.reads),
            writes: self.writes.union(other.writes),
        }
    }

    fn read_write(places: PlaceSet) -> DataEffects {
        DataEffects {
            reads: places,
            writes: places,
        }
    }

    /// The effects of one expression node (not of its operands): an element or a global is
    /// read; an atomic, a lock and marks are read and written.
    fn of_expr_kind(m: &Module, kind: &ExprKind) -> DataEffects {
        match kind {
            ExprKind::Global(g) => DataEffects {
                reads: PlaceSet::global(m, *g),
                writes: PlaceSet::EMPTY,
            },
            ExprKind::Element { prop, .. } => DataEffects {
                reads: PlaceSet::prop(*prop),
                writes: PlaceSet::EMPTY,
            },
            ExprKind::Atomic { place, .. } => DataEffects::read_write(PlaceSet::of_place(m, place)),
            ExprKind::FetchAdd { global, .. } => {
                DataEffects::read_write(PlaceSet::global(m, *global))
            }
            ExprKind::TryLock { locks, .. } => DataEffects::read_write(PlaceSet::prop(*locks)),
            ExprKind::TryMarks { marks, .. } => DataEffects::read_write(PlaceSet::prop(*marks)),
            ExprKind::MeshQuery(..) => DataEffects::ALL,
            _ => DataEffects::default(),
        }
    }

    /// The effects of one statement (not of its expressions or nested statements).
    fn of_stmt_kind(m: &Module, kind: &StmtKind) -> DataEffects {
        match kind {
            StmtKind::Assign { place, op, .. } => {
                let places = PlaceSet::of_place(m, place);
                DataEffects {
                    reads: if op.is_some() {
                        places
                    } else {
                        PlaceSet::EMPTY
                    },
                    writes: places,
                }
            }
            StmtKind::Accumulate(a) => DataEffects::read_write(PlaceSet::global(m, a.global)),
            StmtKind::Unlock { locks, .. } => DataEffects::read_write(PlaceSet::prop(*locks)),
            StmtKind::ReleaseMarks { marks, .. } => DataEffects::read_write(PlaceSet::prop(*marks)),
            StmtKind::MeshUpdate(..) | StmtKind::GridSync => DataEffects::ALL,
            _ => DataEffects::default(),
        }
    }

    /// What a launch of `k` does to device data: the effects of every expression and
    /// statement of its body; every place for a kernel with a grid barrier of its own.
    pub fn of_kernel(m: &Module, k: &Kernel) -> DataEffects {
        let body = &k.body;
        let mut effects = DataEffects::default();
        for (_, e) in body.exprs.iter() {
            effects = effects.join(DataEffects::of_expr_kind(m, &e.kind));
        }
        for (_, s) in body.stmts.iter() {
            effects = effects.join(DataEffects::of_stmt_kind(m, &s.kind));
        }
        effects
    }

    /// What evaluating `exprs` of `body` (and their operands) does to device data.
    pub fn of_exprs(m: &Module, body: &Body, exprs: &[ExprId]) -> DataEffects {
        let mut effects = DataEffects::default();
        for &e in exprs {
            visit::walk_expr(body, e, &mut |x| {
                effects = effects.join(DataEffects::of_expr_kind(m, &body.exprs[x].kind));
            });
        }
        effects
    }

    /// What the statement `s` of `body` does itself to device data: its own effect and that
    /// of its expressions (not of the statements nested in it).
    pub fn of_stmt(m: &Module, body: &Body, s: StmtId) -> DataEffects {
        let kind = &body.stmts[s].kind;
        DataEffects::of_stmt_kind(m, kind).join(DataEffects::of_exprs(
            m,
            body,
            &visit::stmt_exprs(kind),
        ))
    }
}
