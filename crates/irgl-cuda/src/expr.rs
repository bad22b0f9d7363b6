//! Expressions in generated code, on either side: device code (kernels) and host code (`main`).

use irgl_ir::*;

use crate::Side;
use crate::names::cpp;

/// The C++ type of a value type.
pub(crate) fn c_type(t: Ty) -> &'static str {
    match t {
        Ty::Bool => "bool",
        Ty::U32 | Ty::Node | Ty::Triangle | Ty::Vertex => "uint32_t",
        // 32-bit, or 64-bit in a build for graphs of more than 2^32 - 1 edges (the runtime's
        // `IRGL_EDGE64`).
        Ty::Edge | Ty::InEdge => "irgl::edge_t",
        Ty::I32 => "int32_t",
        Ty::U64 => "unsigned long long",
        Ty::I64 => "long long",
        Ty::F32 => "float",
        Ty::F64 => "double",
        Ty::Lock | Ty::Mark => "unsigned int",
        Ty::Point => "irgl::Point",
        Ty::Graph => "G",
        Ty::Void | Ty::Error => panic!("no C++ type for {t}: the IR verifier rejects it"),
    }
}

/// Prints the expressions of one body.
#[derive(Clone)]
pub(crate) struct Exprs<'a> {
    pub m: &'a Module,
    pub body: &'a Body,
    pub side: Side,
    /// The kernel's name for the graph (device code).
    pub graph: &'a str,
    /// An asynchronous kernel: `WL.pop(i)` is the item its thread took from the queue.
    pub asynchronous: bool,
    /// Properties read with loads that bypass L1 (an asynchronous kernel's, which it updates
    /// while other blocks read them).
    pub coherent: &'a [PropId],
    /// The kernel's part of the device error codes: an index out of range of array local
    /// `l` reports `error_base | l` (see [`array_error_code`]).
    pub error_base: u32,
    /// Several GPUs, device code: the node-typed locals that hold this GPU's local ids
    /// (`irgl_ir::nodes`); a node id used as a value is converted to the global one.
    pub local_nodes: Option<std::collections::BTreeSet<LocalId>>,
}

/// The device error code of an index out of range of array `l` in the kernel with index
/// `kernel`.
pub(crate) fn array_error_code(kernel: usize, l: LocalId) -> u32 {
    ((kernel as u32 + 1) << 16) | l.index() as u32
}

/// The device error code of an index out of range of property `prop` in the kernel with index
/// `kernel` (`--check-indices`): bit 15 set, below it the property's number (array locals
/// have the codes below).
pub(crate) fn prop_error_code(kernel: usize, prop: PropId) -> u32 {
    ((kernel as u32 + 1) << 16) | 0x8000 | prop.index() as u32
}

impl<'a> Exprs<'a> {
    /// The C++ name of a local.
    pub fn local(&self, l: LocalId) -> String {
        let local = &self.body.locals[l];
        match local.kind {
            LocalKind::Temp | LocalKind::Array { .. } => local.name.clone(),
            _ => cpp(&local.name).into_owned(),
        }
    }

    fn ty(&self, e: ExprId) -> Ty {
        self.body.exprs[e].ty
    }

    /// The C++ text of `e`. Composite expressions are fully parenthesized.
    pub fn expr(&self, e: ExprId) -> String {
        let x = &self.body.exprs[e];
        match &x.kind {
            ExprKind::Literal(Literal::Bool(b)) => b.to_string(),
            ExprKind::Literal(Literal::Int(v)) => int_literal(*v, x.ty),
            ExprKind::Literal(Literal::Float(v)) => float_literal(*v, x.ty),
            ExprKind::Local(l) => self.local(*l),
            ExprKind::Const(c) => cpp(&self.m.consts[c.index()].name).into_owned(),
            ExprKind::Param(p) => {
                let name = cpp(&self.m.params[p.index()].name);
                match self.side {
                    Side::Device => format!("params.{name}"),
                    Side::Host => format!("h_params.{name}"),
                }
            }
            ExprKind::Global(g) => {
                let name = cpp(&self.m.globals[g.index()].name);
                match self.side {
                    Side::Device => name.into_owned(),
                    Side::Host => format!("get_{name}()"),
                }
            }
            ExprKind::Element { prop, index } => self.element(*prop, *index),
            ExprKind::ArrayElement { array, index } => self.array_element(*array, *index),
            ExprKind::MeshQuery(m, args) => {
                let a: Vec<String> = args.iter().map(|a| self.cond(*a)).collect();
                format!("{}.mesh.{}({})", self.graph(), m.name(), a.join(", "))
            }
            ExprKind::Unary(op, a) => format!("({}{})", op.spelling(), self.expr(*a)),
            ExprKind::Binary(op, a, b) => {
                let (l, r) = if self.ty(*a) == Ty::Node || self.ty(*b) == Ty::Node {
                    // Node ids compared for equality on one GPU are its local ids; ordered or
                    // computed with, they are the global ids.
                    let same = matches!(op, BinaryOp::Eq | BinaryOp::Ne)
                        && self.is_local_node(*a)
                        && self.is_local_node(*b);
                    if same {
                        (self.expr(*a), self.expr(*b))
                    } else {
                        (
                            self.global_id(*a).unwrap_or_else(|| self.expr(*a)),
                            self.global_id(*b).unwrap_or_else(|| self.expr(*b)),
                        )
                    }
                } else {
                    (self.expr(*a), self.expr(*b))
                };
                let lt = self.ty(*a);
                if *op == BinaryOp::Rem && lt.is_float() {
                    let f = if lt == Ty::F32 { "fmodf" } else { "fmod" };
                    return format!("{f}({l}, {r})");
                }
                format!("({l} {} {r})", op.spelling())
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => format!(
                "({} ? {} : {})",
                self.expr(*cond),
                self.expr(*then_expr),
                self.expr(*else_expr)
            ),
            ExprKind::Cast(a) if x.ty != Ty::Node => {
                format!(
                    "static_cast<{}>({})",
                    c_type(x.ty),
                    self.global_id(*a).unwrap_or_else(|| self.expr(*a))
                )
            }
            ExprKind::Cast(a) => format!("static_cast<{}>({})", c_type(x.ty), self.expr(*a)),
            ExprKind::Builtin(b, args) => self.builtin(*b, args, x.ty),
            ExprKind::Atomic { op, place, args } => {
                // atomicAdd(place, v) -> irgl::atomic_add(&place, v): one overload set per type.
                let name = op.name().trim_start_matches("atomic").to_ascii_lowercase();
                let mut parts = vec![self.address(place)];
                let ty = c_type(x.ty);
                parts.extend(args.iter().map(|a| {
                    let v = self.global_id(*a).unwrap_or_else(|| self.cond(*a));
                    format!("static_cast<{ty}>({v})")
                }));
                format!("irgl::atomic_{name}({})", parts.join(", "))
            }
            ExprKind::FetchAdd {
                global,
                value,
                aggregation,
                ..
            } => {
                assert_eq!(
                    *aggregation,
                    Aggregation::Warp,
                    "a fetch-and-add at warp level only"
                );
                let ty = c_type(x.ty);
                format!(
                    "irgl::warp_fetch_add({}, static_cast<{ty}>({}))",
                    self.address(&Place::Global(*global)),
                    self.cond(*value)
                )
            }
            ExprKind::GraphSize(f) => {
                let field = match f {
                    GraphField::NNodes => "nnodes",
                    GraphField::NEdges => "nedges",
                    GraphField::NTriangles | GraphField::NVertices => {
                        let f = if *f == GraphField::NTriangles {
                            "ntriangles()"
                        } else {
                            "nvertices()"
                        };
                        return match self.side {
                            Side::Device => format!("{}.mesh.{f}", self.graph()),
                            Side::Host => format!("h.dm.{f}"),
                        };
                    }
                };
                match self.side {
                    // Several GPUs: a kernel's graph is its part; the whole graph's sizes are
                    // parameters.
                    Side::Device if self.m.partitioned.is_some() => format!("params.irgl_{field}"),
                    Side::Device => format!("{}.csr.{field}", self.graph()),
                    Side::Host => format!("h.hg.{field}"),
                }
            }
            ExprKind::Split(q, v) => {
                let method = match q {
                    SplitQuery::Node => "node",
                    SplitQuery::Begin => "begin",
                    SplitQuery::End => "end",
                };
                format!("{}.split.{method}({})", self.graph(), self.expr(*v))
            }
            ExprKind::GraphQuery(m, a) => {
                let (csr, method) = match m {
                    GraphMethod::Dst => ("csr", "dst"),
                    GraphMethod::Degree => ("csr", "degree"),
                    GraphMethod::EdgeBegin => ("csr", "begin"),
                    GraphMethod::EdgeEnd => ("csr", "end"),
                    GraphMethod::Src => ("in_edges", "src"),
                    GraphMethod::EdgeOf => ("in_edges", "edge_of"),
                    GraphMethod::InDegree => ("in_edges", "degree"),
                    GraphMethod::InEdgeBegin => ("in_edges", "begin"),
                    GraphMethod::InEdgeEnd => ("in_edges", "end"),
                };
                let a = self.expr(*a);
                match self.side {
                    Side::Device => format!("{}.{csr}.{method}({a})", self.graph()),
                    Side::Host => format!("irgl::host_{method}(h.hg, {a})"),
                }
            }
            ExprKind::Pop(i) if self.asynchronous => format!("irgl_popped_{}", self.expr(*i)),
            ExprKind::Pop(i) => format!("irgl_in.pop({})", self.expr(*i)),
            ExprKind::TryLock { locks, index } => format!(
                "irgl::try_lock({}.{}, {})",
                self.graph(),
                cpp(&self.m.prop(*locks).name),
                self.prop_index(*locks, self.cond(*index))
            ),
            ExprKind::TryMarks { marks, ids, count } => {
                let n = match count {
                    Some(c) => self.local(*c),
                    None => array_len(self.body, *ids).to_string(),
                };
                // Checked, every element is below the property's size (the release that
                // follows takes the same, checked, list).
                let ids = if self.checks_indices() {
                    format!(
                        "irgl::checked_ids({}, {n}, {}, &irgl_error, 0x{:x}u)",
                        self.local(*ids),
                        self.prop_size(*marks),
                        self.error_base | 0x8000 | marks.index() as u32
                    )
                } else {
                    self.local(*ids)
                };
                format!(
                    "irgl::exclusive_acquire({}.{}, {ids}, {n})",
                    self.graph(),
                    cpp(&self.m.prop(*marks).name),
                )
            }
            ExprKind::WorklistSize(w) => match self.side {
                // Several GPUs: the sum over them (every GPU takes the same branch).
                Side::Host if self.m.partitioned.is_some() => {
                    format!("h.part.sum(h.wl.{}().size())", wl_name(*w))
                }
                Side::Host => format!("h.wl.{}().size()", wl_name(*w)),
                // In a control kernel: every thread's view, read between barriers.
                Side::Device => format!("irgl_{}.size()", wl_name(*w)),
            },
            ExprKind::ReduceResult => match self.side {
                Side::Host if self.m.partitioned.is_some() => "h.part.reduce(h.reduce)".to_string(),
                Side::Host => "h.reduce.read()".to_string(),
                // In a control kernel: every thread's view (`irgl::RoundFlag`).
                Side::Device => "irgl_reduce.result()".to_string(),
            },
        }
    }

    /// Several GPUs: whether `e` is a node id of this GPU's numbering.
    fn is_local_node(&self, e: ExprId) -> bool {
        self.local_nodes
            .as_ref()
            .is_some_and(|set| irgl_ir::nodes::is_local_id(self.body, set, e))
    }

    /// Several GPUs: `e`, a node id of this GPU's numbering, as the global id (a node used
    /// as a value); None where `e` is no such id.
    pub(crate) fn global_id(&self, e: ExprId) -> Option<String> {
        // A node param: its global id, which each GPU's params also carry.
        let mut inner = e;
        while let ExprKind::Cast(a) = &self.body.exprs[inner].kind {
            inner = *a;
        }
        if let ExprKind::Param(p) = &self.body.exprs[inner].kind
            && self.is_local_node(inner)
        {
            let name = cpp(&self.m.params[p.index()].name);
            return Some(format!("params.irgl_global_{name}"));
        }
        self.is_local_node(e)
            .then(|| format!("irgl_global({})", self.cond(e)))
    }

    /// The graph as kernels name it.
    pub fn graph(&self) -> String {
        cpp(self.graph).into_owned()
    }

    /// Whether property indices are checked here (`--check-indices`, device code).
    fn checks_indices(&self) -> bool {
        self.side == Side::Device && self.m.launch.check_indices
    }

    /// The index `i` of an element of `prop`, checked when the options ask for it: an index
    /// out of range records the device error (kernel, property, index) and reads element 0.
    fn prop_index(&self, prop: PropId, i: String) -> String {
        if !self.checks_indices() {
            return i;
        }
        format!(
            "irgl::checked_index({}, {}, &irgl_error, 0x{:x}u)",
            strip_parens(i),
            self.prop_size(prop),
            self.error_base | 0x8000 | prop.index() as u32
        )
    }

    /// The index of a lock of `locks`, checked as [`Exprs::prop_index`].
    pub(crate) fn lock_index(&self, locks: PropId, index: ExprId) -> String {
        self.prop_index(locks, self.cond(index))
    }

    /// The number of elements of `prop`, in device code.
    pub(crate) fn prop_size(&self, prop: PropId) -> String {
        let g = self.graph();
        match self.m.prop(prop).owner {
            // Several GPUs: a part's masters and mirrors.
            PropOwner::Node if self.m.partitioned.is_some() => "params.irgl_nlocal".to_string(),
            PropOwner::Node => format!("{g}.csr.nnodes"),
            PropOwner::Edge => format!("{g}.csr.nedges"),
            PropOwner::Triangle => format!("{g}.mesh.triangle_capacity"),
            PropOwner::Vertex => format!("{g}.mesh.vertex_capacity"),
            PropOwner::Array => format!("{g}.{}_len", cpp(&self.m.prop(prop).name)),
        }
    }

    /// An element read: `g.level[i]` on the device, a copy on the host.
    fn element(&self, prop: PropId, index: ExprId) -> String {
        let p = self.m.prop(prop);
        let i = self.prop_index(prop, self.expr(index));
        match self.side {
            Side::Device if self.coherent.contains(&prop) => {
                format!(
                    "irgl::load_coherent({}.{}[{i}])",
                    self.graph(),
                    cpp(&p.name)
                )
            }
            Side::Device => format!("{}.{}[{i}]", self.graph(), cpp(&p.name)),
            // The input property is the graph file's edge data, also kept on the host.
            Side::Host if p.input => format!("irgl::host_edge_data(h.hg, {i})"),
            // Several GPUs: the master's value (every GPU reads it).
            Side::Host if self.m.partitioned.is_some() => {
                format!("h.part.read(h.{}, {i})", cpp(&p.name))
            }
            Side::Host => format!("read_element(h.{}, {i})", cpp(&p.name)),
        }
    }

    /// `a[i]`, checked: an index out of range raises the device error flag.
    pub fn array_element(&self, array: LocalId, index: ExprId) -> String {
        format!(
            "irgl::at({}, {}, &irgl_error, 0x{:x}u)",
            self.local(array),
            self.cond(index),
            self.error_base | array.index() as u32
        )
    }

    /// An expression in a position that brings its own parentheses (`if (...)`).
    pub fn cond(&self, e: ExprId) -> String {
        strip_parens(self.expr(e))
    }

    /// The address of a place (a property element or a global), for atomics.
    fn address(&self, place: &Place) -> String {
        match place {
            Place::Element { prop, index } => format!(
                "&{}.{}[{}]",
                self.graph(),
                cpp(&self.m.prop(*prop).name),
                self.prop_index(*prop, self.expr(*index))
            ),
            Place::Global(g) => format!("&{}", cpp(&self.m.globals[g.index()].name)),
            Place::Local(l) | Place::ArrayElement { array: l, .. } => {
                panic!("atomic on the local {l}: the checker rejects it")
            }
        }
    }

    /// A place on the device, as an lvalue.
    pub fn device_place(&self, place: &Place) -> String {
        match place {
            Place::Local(l) => self.local(*l),
            Place::Global(g) => cpp(&self.m.globals[g.index()].name).into_owned(),
            Place::Element { prop, index } => format!(
                "{}.{}[{}]",
                self.graph(),
                cpp(&self.m.prop(*prop).name),
                self.prop_index(*prop, self.expr(*index))
            ),
            Place::ArrayElement { array, index } => self.array_element(*array, *index),
        }
    }

    fn builtin(&self, b: Builtin, args: &[ExprId], ty: Ty) -> String {
        let a: Vec<String> = args.iter().map(|a| self.cond(*a)).collect();
        let is_f32 = ty == Ty::F32;
        match b {
            Builtin::Min | Builtin::Max => {
                let t = c_type(ty);
                let args: Vec<String> =
                    a.iter().map(|x| format!("static_cast<{t}>({x})")).collect();
                let f = if b == Builtin::Min { "min" } else { "max" };
                format!("irgl::{f}_of({})", args.join(", "))
            }
            Builtin::Abs | Builtin::Fabs if ty.is_float() => {
                format!("{}({})", if is_f32 { "fabsf" } else { "fabs" }, a[0])
            }
            Builtin::Abs | Builtin::Fabs => format!("irgl::abs_of({})", a[0]),
            Builtin::Sqrt => format!("{}({})", if is_f32 { "sqrtf" } else { "sqrt" }, a[0]),
            Builtin::Orient => format!("irgl::orient({})", a.join(", ")),
            Builtin::Incircle => format!("irgl::incircle({})", a.join(", ")),
            Builtin::Midpoint => format!("irgl::midpoint({})", a.join(", ")),
            Builtin::SplitPoint => format!("irgl::split_point({})", a.join(", ")),
            Builtin::Circumcenter => format!("irgl::circumcenter({})", a.join(", ")),
            Builtin::MinAngle => format!("irgl::min_angle({})", a.join(", ")),
            Builtin::MakePoint => format!("irgl::make_point({})", a.join(", ")),
            Builtin::PointX => format!("irgl::point_x({})", a[0]),
            Builtin::PointY => format!("irgl::point_y({})", a[0]),
            Builtin::Popc | Builtin::Ffs | Builtin::Clz => {
                // The overload of the argument's own type (u32 or u64).
                let f = match b {
                    Builtin::Popc => "popc",
                    Builtin::Ffs => "ffs",
                    _ => "clz",
                };
                let t = c_type(self.ty(args[0]));
                format!("irgl::{f}(static_cast<{t}>({}))", a[0])
            }
        }
    }
}

/// The length of an array local.
pub(crate) fn array_len(body: &Body, l: LocalId) -> u32 {
    match body.locals[l].kind {
        LocalKind::Array { len } => len,
        k => panic!("{l} is a {k:?} local, not an array"),
    }
}

pub(crate) fn wl_name(w: WorklistRef) -> &'static str {
    match w {
        WorklistRef::In => "in",
        WorklistRef::Out => "out",
        WorklistRef::Retry => "retry",
    }
}

/// Removes one pair of parentheses around the whole of `s`, if there is one.
pub(crate) fn strip_parens(s: String) -> String {
    if !(s.starts_with('(') && s.ends_with(')')) {
        return s;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 && i + 1 < s.len() {
            return s; // the first parenthesis closes before the end: `(a) + (b)`
        }
    }
    s[1..s.len() - 1].to_string()
}

/// An integer literal with the C++ suffix of its type.
pub(crate) fn int_literal(v: u64, ty: Ty) -> String {
    match ty {
        Ty::U64 => format!("{v}ull"),
        Ty::I64 if v <= i64::MAX as u64 => format!("{v}ll"),
        Ty::I64 => format!("static_cast<long long>({v}ull)"),
        Ty::I32 if v <= i32::MAX as u64 => format!("{v}"),
        Ty::I32 => format!("static_cast<int32_t>({v}ll)"),
        Ty::F32 => format!("{v}.0f"),
        Ty::F64 => format!("{v}.0"),
        Ty::U32 | Ty::Node | Ty::Edge | Ty::InEdge | Ty::Triangle | Ty::Vertex => format!("{v}u"),
        t => panic!("integer literal of type {t}"),
    }
}

/// A floating-point literal that reads back exactly.
pub(crate) fn float_literal(v: f64, ty: Ty) -> String {
    let text = format!("{v:?}");
    let text = if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    };
    if ty == Ty::F32 {
        format!("{text}f")
    } else {
        text
    }
}

/// A folded constant as a C++ literal of its own type.
pub(crate) fn value_literal(v: Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::U32(x) => int_literal(u64::from(x), Ty::U32),
        Value::U64(x) => int_literal(x, Ty::U64),
        Value::I32(x) if x < 0 => format!("(-{})", int_literal(x.unsigned_abs().into(), Ty::I64)),
        Value::I32(x) => int_literal(x as u64, Ty::I32),
        Value::I64(x) if x < 0 => format!("(-{})", int_literal(x.unsigned_abs(), Ty::U64)),
        Value::I64(x) => int_literal(x as u64, Ty::I64),
        Value::F32(x) => {
            // The shortest text that reads back as this f32 (`0.85f`, not `0.8500000238f`).
            let text = format!("{x:?}");
            let text = if text.contains(['.', 'e', 'E']) {
                text
            } else {
                format!("{text}.0")
            };
            format!("{text}f")
        }
        Value::F64(x) => float_literal(x, Ty::F64),
    }
}
