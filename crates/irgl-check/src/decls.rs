//! Program-level declarations: collecting them into the symbol tables, checking their
//! initializers, folding consts, param defaults and global initializers, resolving `output`.
//!
//! Runs before any body is checked, so that kernels and `main` can refer to every declaration
//! regardless of order.

use std::collections::HashMap;

use irgl_diagnostics::Diagnostic;
use irgl_syntax::ast::{Expr, ExprKind, Ident, ItemKind, PropOwner, Span, Type, TypeKind};

use crate::body;
use crate::cx::{Cx, Symbol};
use crate::info::{
    ConstId, ConstInfo, FuncId, FunctionInfo, GlobalId, GlobalInfo, GraphAttrs, GraphInfo,
    KernelId, KernelInfo, OutputInfo, OutputTarget, ParamId, ParamInfo, PropId, PropInfo,
    Resolution,
};
use crate::ty::Ty;
use crate::value::{Value, eval};

/// Fills the symbol tables from the declarations and checks the declarations themselves:
/// duplicates, one graph and one main, graph attributes, property and declaration types,
/// `input`, kernel parameter lists.
pub(crate) fn collect_declarations(cx: &mut Cx<'_>) {
    let program = cx.program;
    let mut first_graph: Option<Span> = None;
    let mut first_main: Option<Span> = None;
    for (index, item) in program.items.iter().enumerate() {
        match &item.kind {
            ItemKind::Graph(g) => {
                if let Some(first) = first_graph {
                    cx.report(
                        Diagnostic::error("E0109", "a program has exactly one graph")
                            .with_label(g.name.span, "a second graph is declared here")
                            .with_label(first, "the graph is first declared here")
                            .with_help("put every property in the one `graph` declaration"),
                    );
                    continue;
                }
                first_graph = Some(g.name.span);
                cx.declare(&g.name, Symbol::Graph);
                let mut attrs = GraphAttrs::default();
                for a in &g.attrs {
                    match a.name.as_str() {
                        "symmetric" => attrs.symmetric = true,
                        "simple" => attrs.simple = true,
                        "in_edges" => attrs.in_edges = true,
                        other => {
                            let mut d = Diagnostic::error(
                                "E0111",
                                format!("unknown graph attribute `{other}`"),
                            )
                            .with_label(a.span, "not a graph attribute");
                            d = match crate::cx::similar(other, ["symmetric", "simple", "in_edges"])
                            {
                                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                                None => d.with_help(
                                    "the graph attributes are `symmetric`, `simple` and `in_edges`",
                                ),
                            };
                            cx.report(d);
                        }
                    }
                }
                let mut info = GraphInfo {
                    name: g.name.name.clone(),
                    mesh: g.mesh,
                    item: index,
                    attrs,
                    props: Vec::new(),
                    input: None,
                };
                for p in &g.props {
                    let id = PropId(info.props.len() as u32);
                    if !cx.declare(&p.name, Symbol::Prop(id)) {
                        continue;
                    }
                    let mut ty = Ty::from(p.ty.kind);
                    let mesh_owner = matches!(p.owner, PropOwner::Triangle | PropOwner::Vertex);
                    if mesh_owner != g.mesh {
                        let (what, owners) = if g.mesh {
                            ("a mesh", "`triangle` and `vertex`")
                        } else {
                            ("a graph", "`node` and `edge`")
                        };
                        cx.report(
                            Diagnostic::error(
                                "E0403",
                                format!("{what} has no {} properties", p.owner.spelling()),
                            )
                            .with_label(p.span, format!("a {} property", p.owner.spelling()))
                            .with_help(format!("the properties of {what} belong to {owners}")),
                        );
                        ty = Ty::Error;
                    } else if ty == Ty::Point {
                        cx.report(
                            Diagnostic::error("E0403", "a property cannot have type `point`")
                                .with_label(p.ty.span, "not a property type")
                                .with_help("keep the two coordinates as `f64` properties"),
                        );
                        ty = Ty::Error;
                    }
                    if ty == Ty::Graph {
                        cx.report(
                            Diagnostic::error("E0403", "a property cannot have type `graph`")
                                .with_label(p.ty.span, "not a property type")
                                .with_help(
                                    "property types are bool, u32, i32, u64, i64, f32, f64, \
                                     node, edge, lock and mark",
                                ),
                        );
                        ty = Ty::Error;
                    } else if matches!(ty, Ty::Lock | Ty::Mark)
                        && matches!(p.owner, PropOwner::Edge | PropOwner::Vertex)
                    {
                        cx.report(
                            Diagnostic::error(
                                "E0403",
                                format!("`{ty}` properties belong to nodes, not edges"),
                            )
                            .with_label(
                                p.ty.span,
                                format!("`{ty}` on an {} property", p.owner.spelling()),
                            )
                            .with_help(if g.mesh {
                                format!("declare it as `triangle {}: {ty};`", p.name.name)
                            } else {
                                format!("declare it as `node {}: {ty};`", p.name.name)
                            }),
                        );
                        ty = Ty::Error;
                    }
                    if p.input {
                        if p.owner != PropOwner::Edge {
                            cx.report(
                                Diagnostic::error("E0404", "only an edge property can be `input`")
                                    .with_label(p.span, "an `input` node property")
                                    .with_help(
                                        "`input` loads the graph file's edge data (weights); \
                                     initialize node properties in a kernel instead",
                                    ),
                            );
                        } else if !matches!(ty, Ty::U32 | Ty::I32 | Ty::Error) {
                            cx.report(
                                Diagnostic::error(
                                    "E0404",
                                    format!("an `input` edge property must be `u32` or `i32`, not `{ty}`"),
                                )
                                .with_label(p.ty.span, "the graph file's edge data are 32-bit integers")
                                .with_help(format!(
                                    "declare it as `u32` or `i32` and convert where needed: `g.{}[e] as {ty}`",
                                    p.name.name
                                )),
                            );
                        } else if let Some(first) = info.input {
                            let first_span = info.props[first.index()].span;
                            cx.report(
                                Diagnostic::error(
                                    "E0405",
                                    "a graph has at most one `input` edge property",
                                )
                                .with_label(p.span, "a second `input` property")
                                .with_label(first_span, "the first one")
                                .with_help("a graph file carries one datum per edge"),
                            );
                        } else {
                            info.input = Some(id);
                        }
                    }
                    info.props.push(PropInfo {
                        name: p.name.name.clone(),
                        owner: p.owner,
                        ty,
                        input: p.input,
                        decl: p.id,
                        span: p.span,
                    });
                }
                cx.info.graph = Some(info);
            }
            ItemKind::Const(c) => {
                let id = ConstId(cx.info.consts.len() as u32);
                if cx.declare(&c.name, Symbol::Const(id)) {
                    let ty = scalar_decl_type(cx, &c.ty, "const");
                    cx.info.consts.push(ConstInfo {
                        name: c.name.name.clone(),
                        ty,
                        value: None,
                        item: index,
                        span: c.name.span,
                    });
                }
            }
            ItemKind::Param(p) => {
                let id = ParamId(cx.info.params.len() as u32);
                if cx.declare(&p.name, Symbol::Param(id)) {
                    let ty = scalar_decl_type(cx, &p.ty, "param");
                    cx.info.params.push(ParamInfo {
                        name: p.name.name.clone(),
                        ty,
                        default: None,
                        item: index,
                        span: p.name.span,
                    });
                }
            }
            ItemKind::Global(g) => {
                let id = GlobalId(cx.info.globals.len() as u32);
                if cx.declare(&g.name, Symbol::Global(id)) {
                    let ty = scalar_decl_type(cx, &g.ty, "global");
                    if g.statistic && ty != Ty::Error && !ty.is_integer() {
                        cx.report(
                            Diagnostic::error(
                                "E0336",
                                format!("a statistic cannot be `{ty}`"),
                            )
                            .with_label(g.ty.span, "not an integer type")
                            .with_help(
                                "a statistic is a count or a bound: `u32`, `i32`, `u64` or `i64`",
                            ),
                        );
                    }
                    cx.info.globals.push(GlobalInfo {
                        name: g.name.name.clone(),
                        ty,
                        init: None,
                        statistic: g.statistic,
                        item: index,
                        span: g.name.span,
                    });
                }
            }
            ItemKind::Kernel(k) => {
                let id = KernelId(cx.info.kernels.len() as u32);
                if !cx.declare(&k.name, Symbol::Kernel(id)) {
                    continue;
                }
                let (params, graph_param) = signature(cx, "kernel", &k.name, &k.params);
                cx.info.kernels.push(KernelInfo {
                    name: k.name.name.clone(),
                    item: index,
                    span: k.name.span,
                    params,
                    graph_param,
                    iterates_worklist: false,
                    pops: false,
                    pushes: false,
                    reduce_sites: Vec::new(),
                    retry_sites: Vec::new(),
                    sync_running_threads: false,
                    uses_atomic: false,
                    uses_exclusive: false,
                    uses_atomic_functions: false,
                    grows_mesh: false,
                    indexes_arrays: false,
                    sync_props: Default::default(),
                    foralls: Vec::new(),
                    calls: Vec::new(),
                    access: Default::default(),
                });
            }
            ItemKind::Array(_) => {} // below, once the graph is known
            ItemKind::Function(f) => {
                let id = FuncId(cx.info.functions.len() as u32);
                if !cx.declare(&f.name, Symbol::Function(id)) {
                    continue;
                }
                let (params, graph_param) = signature(cx, "function", &f.name, &f.params);
                let ret = match &f.ret {
                    None => Ty::Void,
                    Some(t) => match t.kind {
                        TypeKind::Graph | TypeKind::Mesh | TypeKind::Lock | TypeKind::Mark => {
                            cx.report(
                                Diagnostic::error(
                                    "E0403",
                                    format!("a function cannot return a `{}`", t.kind),
                                )
                                .with_label(t.span, "not a value type")
                                .with_help("functions return numbers, `bool`, `node` or `edge`"),
                            );
                            Ty::Error
                        }
                        k => Ty::from(k),
                    },
                };
                cx.info.functions.push(FunctionInfo {
                    name: f.name.name.clone(),
                    item: index,
                    span: f.name.span,
                    params,
                    graph_param,
                    ret,
                    calls: Vec::new(),
                    uses_atomic_functions: false,
                    indexes_arrays: false,
                    access: Default::default(),
                });
            }
            ItemKind::Main(b) => {
                // `main` is a keyword, so the block's opening brace is the best handle.
                let span = Span {
                    end: b.span.start,
                    ..item.span
                };
                if let Some(first) = first_main {
                    cx.report(
                        Diagnostic::error("E0110", "a program has exactly one `main`")
                            .with_label(span, "a second `main`")
                            .with_label(first, "the first `main`")
                            .with_help("merge their bodies into one `main`"),
                    );
                    continue;
                }
                first_main = Some(span);
                cx.main_item = Some(index);
            }
            ItemKind::Output(_) | ItemKind::Error => {}
        }
    }
    let start = program.items.first().map(|i| Span {
        end: i.span.start,
        ..i.span
    });
    let has_errors = program
        .items
        .iter()
        .any(|i| matches!(i.kind, ItemKind::Error));
    // A kernel's input parameter is spelled as the program's input is declared.
    if let Some(mesh) = cx.info.graph.as_ref().map(|g| g.mesh) {
        for k in program.kernels() {
            for p in &k.params {
                let wrong = match p.ty.kind {
                    TypeKind::Graph => mesh,
                    TypeKind::Mesh => !mesh,
                    _ => false,
                };
                if wrong {
                    let (input, found) = if mesh {
                        ("a mesh", "graph")
                    } else {
                        ("a graph", "mesh")
                    };
                    let right = if mesh { "mesh" } else { "graph" };
                    cx.report(
                        Diagnostic::error(
                            "E0407",
                            format!("this program's input is {input}, not a {found}"),
                        )
                        .with_label(p.ty.span, format!("declared `{found}`"))
                        .with_help(format!("take it as `{right} {}`", p.name.name)),
                    );
                }
            }
        }
    }
    if first_graph.is_none() && !has_errors {
        let mut d = Diagnostic::error("E0109", "this program declares no graph").with_help(
            "declare the input graph and its properties: `graph g { node level: u32; }` \
             (or a mesh: `mesh m { triangle bad: bool; }`)",
        );
        if let Some(s) = start {
            d = d.with_label(s, "a program needs one `graph` declaration");
        }
        cx.report(d);
    }
    if first_main.is_none() && !has_errors {
        let mut d = Diagnostic::error("E0110", "this program has no `main`")
            .with_help("add `main { ... }`, the host code that invokes the kernels");
        if let Some(s) = start {
            d = d.with_label(s, "a program needs one `main`");
        }
        cx.report(d);
    }
}

/// The type of a const, param or global: `bool u32 i32 u64 i64 f32 f64 node`.
fn scalar_decl_type(cx: &mut Cx<'_>, ty: &Type, what: &str) -> Ty {
    let t = Ty::from(ty.kind);
    if t.is_scalar() && t != Ty::Edge {
        return t;
    }
    cx.report(
        Diagnostic::error("E0403", format!("a {what} cannot have type `{t}`"))
            .with_label(ty.span, format!("not a {what} type"))
            .with_help(format!(
                "{what} types are bool, u32, i32, u64, i64, f32, f64, node, triangle and vertex"
            )),
    );
    Ty::Error
}

/// Type-checks the initializers of consts, params and globals, in constant context.
pub(crate) fn check_initializers(cx: &mut Cx<'_>) {
    let program = cx.program;
    for item in &program.items {
        if let ItemKind::Array(a) = &item.kind {
            body::check_array_len(cx, &a.len);
            continue;
        }
        let (name, e) = match &item.kind {
            ItemKind::Const(c) => (&c.name, &c.value),
            ItemKind::Param(p) => (&p.name, &p.default),
            ItemKind::Global(g) => match &g.init {
                Some(e) => (&g.name, e),
                None => continue,
            },
            _ => continue,
        };
        let ty = match cx.symbol(&name.name) {
            Some(Symbol::Const(id)) if same_decl(cx, name.span, id) => {
                cx.info.consts[id.index()].ty
            }
            Some(Symbol::Param(id)) if cx.info.params[id.index()].span == name.span => {
                cx.info.params[id.index()].ty
            }
            Some(Symbol::Global(id)) if cx.info.globals[id.index()].span == name.span => {
                cx.info.globals[id.index()].ty
            }
            // A duplicate declaration (reported): check the expression on its own.
            _ => Ty::Error,
        };
        body::check_constant_expr(cx, e, ty, name.span);
    }
}

fn same_decl(cx: &Cx<'_>, span: Span, id: ConstId) -> bool {
    cx.info.consts[id.index()].span == span
}

/// Folds every const (in dependency order, reporting cycles), then param defaults and global
/// initializers.
pub(crate) fn evaluate_constants(cx: &mut Cx<'_>) {
    let program = cx.program;
    // The initializer of each const, by ConstId.
    let mut inits: Vec<Option<&Expr>> = vec![None; cx.info.consts.len()];
    for item in &program.items {
        if let ItemKind::Const(c) = &item.kind
            && let Some(Symbol::Const(id)) = cx.symbol(&c.name.name)
            && same_decl(cx, c.name.span, id)
        {
            inits[id.index()] = Some(&c.value);
        }
    }
    // Dependencies: the consts named in each initializer, with the span of the reference.
    let deps: Vec<Vec<(ConstId, Span)>> = inits
        .iter()
        .map(|e| {
            let mut out = Vec::new();
            if let Some(e) = e {
                const_refs(cx, e, &mut out);
            }
            out
        })
        .collect();
    let n = inits.len();
    let mut state = vec![0u8; n]; // 0 new, 1 in progress, 2 done
    let mut order = Vec::new();
    let mut cyclic = vec![false; n];
    for start in 0..n {
        visit(cx, start, &deps, &mut state, &mut order, &mut cyclic);
    }
    let mut values: Vec<Option<Value>> = vec![None; n];
    for i in order {
        if cyclic[i] {
            continue;
        }
        let Some(e) = inits[i] else { continue };
        match eval(e, &cx.info.expr_types, &cx.info.resolutions, &values) {
            Ok(v) => values[i] = Some(v),
            Err(err) => cx.report_eval_error(err),
        }
    }
    for (c, v) in cx.info.consts.iter_mut().zip(&values) {
        c.value = *v;
    }
    for item in &program.items {
        match &item.kind {
            ItemKind::Param(p) => {
                if let Some(Symbol::Param(id)) = cx.symbol(&p.name.name)
                    && cx.info.params[id.index()].span == p.name.span
                {
                    let v = eval(
                        &p.default,
                        &cx.info.expr_types,
                        &cx.info.resolutions,
                        &values,
                    );
                    match v {
                        Ok(v) => cx.info.params[id.index()].default = Some(v),
                        Err(err) => cx.report_eval_error(err),
                    }
                }
            }
            ItemKind::Global(g) => {
                if let Some(Symbol::Global(id)) = cx.symbol(&g.name.name)
                    && cx.info.globals[id.index()].span == g.name.span
                {
                    let ty = cx.info.globals[id.index()].ty;
                    let v = match &g.init {
                        None => Value::zero(ty).ok_or(crate::value::EvalError::Quiet),
                        Some(e) => eval(e, &cx.info.expr_types, &cx.info.resolutions, &values),
                    };
                    match v {
                        Ok(v) => cx.info.globals[id.index()].init = Some(v),
                        Err(err) => cx.report_eval_error(err),
                    }
                }
            }
            _ => {}
        }
    }
}

/// Depth-first search for the evaluation order; reports each cycle once.
fn visit(
    cx: &mut Cx<'_>,
    i: usize,
    deps: &[Vec<(ConstId, Span)>],
    state: &mut [u8],
    order: &mut Vec<usize>,
    cyclic: &mut [bool],
) {
    if state[i] != 0 {
        return;
    }
    state[i] = 1;
    for &(dep, span) in &deps[i] {
        let j = dep.index();
        if state[j] == 1 {
            // A cycle: `j` (in progress) reaches `i` which names `j`.
            cyclic[j] = true;
            cyclic[i] = true;
            let name = cx.info.consts[j].name.clone();
            let decl = cx.info.consts[j].span;
            let mut d = Diagnostic::error(
                "E0406",
                format!("the value of const `{name}` depends on itself"),
            )
            .with_label(span, format!("`{name}` is used here"));
            if i != j {
                d = d.with_label(decl, format!("while computing `{name}`"));
            }
            cx.report(d.with_help("give one of the consts a value that does not refer back"));
        } else {
            visit(cx, j, deps, state, order, cyclic);
            if cyclic[j] {
                cyclic[i] = true;
            }
        }
    }
    state[i] = 2;
    order.push(i);
}

fn const_refs(cx: &Cx<'_>, e: &Expr, out: &mut Vec<(ConstId, Span)>) {
    if let ExprKind::Name(_) = &e.kind
        && let Some(Resolution::Const(id)) = cx.info.resolutions.get(&e.id)
    {
        out.push((*id, e.span));
    }
    for_each_child(e, &mut |c| const_refs(cx, c, out));
}

/// Calls `f` on each direct sub-expression of `e`.
pub(crate) fn for_each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Name(_)
        | ExprKind::Error
        | ExprKind::Field { .. } => {}
        ExprKind::Unary { operand, .. } => f(operand),
        ExprKind::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::Ternary {
            cond,
            then_expr,
            else_expr,
        } => {
            f(cond);
            f(then_expr);
            f(else_expr);
        }
        ExprKind::Cast { expr, .. } => f(expr),
        ExprKind::Call { args, .. } | ExprKind::Method { args, .. } => args.iter().for_each(f),
        ExprKind::Index { index, .. } | ExprKind::ArrayIndex { index, .. } => f(index),
        ExprKind::Pop(x) | ExprKind::Push(x) => f(x),
        ExprKind::Invoke { call, .. } => call.args.iter().for_each(f),
    }
}

/// Resolves every `output` entry to a property or a global.
pub(crate) fn resolve_outputs(cx: &mut Cx<'_>) {
    let program = cx.program;
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for item in &program.items {
        let ItemKind::Output(o) = &item.kind else {
            continue;
        };
        for name in &o.names {
            if let Some(first) = seen.get(name.name.as_str()) {
                cx.report(
                    Diagnostic::error("E0102", format!("`{}` is output twice", name.name))
                        .with_label(name.span, "listed again here")
                        .with_label(*first, "first listed here")
                        .with_help("list each property or global once"),
                );
                continue;
            }
            seen.insert(&name.name, name.span);
            let target = match cx.symbol(&name.name) {
                Some(Symbol::Graph) if cx.info.graph.as_ref().is_some_and(|g| g.mesh) => {
                    Some(OutputTarget::Mesh)
                }
                Some(Symbol::Prop(p)) => {
                    let prop = cx.info.graph.as_ref().map(|g| &g.props[p.index()]);
                    let prop_ty = prop.map(|p| p.ty);
                    let owner = prop.map(|p| p.owner);
                    if let Some(o @ (PropOwner::Triangle | PropOwner::Vertex)) = owner {
                        cx.report(
                            Diagnostic::error(
                                "E0113",
                                format!(
                                    "`{}` is a {} property and cannot be output",
                                    name.name,
                                    o.spelling()
                                ),
                            )
                            .with_label(name.span, format!("a {} property", o.spelling()))
                            .with_help(
                                "a mesh program outputs the mesh itself (`output m;`) and globals",
                            ),
                        );
                        None
                    } else if let Some(t @ (Ty::Lock | Ty::Mark)) = prop_ty {
                        cx.report(
                            Diagnostic::error(
                                "E0113",
                                format!("`{}` is a `{t}` property and cannot be output", name.name),
                            )
                            .with_label(name.span, format!("a `{t}` property"))
                            .with_help(format!(
                                "`{t}` properties only synchronize threads; they hold no result"
                            )),
                        );
                        None
                    } else {
                        Some(OutputTarget::Property(p))
                    }
                }
                Some(Symbol::Global(g)) => Some(OutputTarget::Global(g)),
                Some(sym) => {
                    let mut d = Diagnostic::error(
                        "E0112",
                        format!("`{}` is {} and cannot be output", name.name, sym.describe()),
                    )
                    .with_label(name.span, "not a property or a global");
                    if let Some(decl) = cx.symbol_span(&name.name) {
                        d = d.with_label(decl, "declared here");
                    }
                    cx.report(d.with_help("`output` lists properties and globals"));
                    None
                }
                None if cx.recovered => None,
                None => {
                    let candidates: Vec<&str> = cx
                        .names
                        .iter()
                        .filter(|(_, (s, _))| matches!(s, Symbol::Prop(_) | Symbol::Global(_)))
                        .map(|(n, _)| n.as_str())
                        .collect();
                    let mut d = Diagnostic::error(
                        "E0112",
                        format!(
                            "cannot output `{}`: no property or global has this name",
                            name.name
                        ),
                    )
                    .with_label(name.span, "unknown name");
                    d = match crate::cx::similar(&name.name, sorted(candidates)) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")),
                        None => d.with_help("`output` lists properties and globals"),
                    };
                    cx.report(d);
                    None
                }
            };
            cx.info.outputs.push(OutputInfo {
                name: name.name.clone(),
                target,
                span: name.span,
            });
        }
    }
}

/// Program-level arrays join the graph's properties (after its own), as `PropOwner::Array`.
pub(crate) fn collect_arrays(cx: &mut Cx<'_>) {
    let program = cx.program;
    for item in &program.items {
        let ItemKind::Array(a) = &item.kind else {
            continue;
        };
        let Some(graph) = cx.info.graph.as_ref() else {
            return; // E0109 reported
        };
        let id = PropId(graph.props.len() as u32);
        if !cx.declare(&a.name, Symbol::Array(id)) {
            continue;
        }
        let mut ty = Ty::from(a.ty.kind);
        if !ty.is_scalar() || matches!(ty, Ty::Lock | Ty::Mark | Ty::InEdge) {
            cx.report(
                Diagnostic::error(
                    "E0403",
                    format!("an array cannot have elements of type `{}`", a.ty.kind),
                )
                .with_label(a.ty.span, "not an element type")
                .with_help("array elements are bool, u32, i32, u64, i64, f32, f64, node or edge"),
            );
            ty = Ty::Error;
        }
        let decl = item.id;
        if let Some(graph) = cx.info.graph.as_mut() {
            graph.props.push(PropInfo {
                name: a.name.name.clone(),
                owner: PropOwner::Array,
                ty,
                input: false,
                decl,
                span: a.name.span,
            });
        }
    }
}

/// Sorted, so that suggestions do not depend on hash order.
pub(crate) fn sorted(mut v: Vec<&str>) -> Vec<&str> {
    v.sort_unstable();
    v
}

/// The parameter types of a kernel or function (`what`), and the position of its graph
/// parameter; reports duplicate names, a second graph and parameters that cannot be passed.
fn signature(
    cx: &mut Cx<'_>,
    what: &str,
    name: &Ident,
    decl: &[irgl_syntax::ast::KernelParam],
) -> (Vec<Ty>, Option<usize>) {
    let mut params = Vec::new();
    let mut graph_param = None;
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for (i, p) in decl.iter().enumerate() {
        if let Some(first) = seen.get(p.name.name.as_str()) {
            cx.report(
                Diagnostic::error(
                    "E0102",
                    format!(
                        "{what} `{}` has two parameters named `{}`",
                        name.name, p.name.name
                    ),
                )
                .with_label(p.name.span, "declared again here")
                .with_label(*first, "first declared here")
                .with_help("rename one of them"),
            );
        } else {
            seen.insert(&p.name.name, p.name.span);
        }
        let mut ty = Ty::from(p.ty.kind);
        match p.ty.kind {
            TypeKind::Graph | TypeKind::Mesh => {
                if let Some(first) = graph_param {
                    let first: &irgl_syntax::ast::KernelParam = &decl[first];
                    cx.report(
                        Diagnostic::error(
                            "E0407",
                            format!(
                                "{what} `{}` takes more than one `graph` parameter",
                                name.name
                            ),
                        )
                        .with_label(p.span, "a second graph parameter")
                        .with_label(first.span, "the first one")
                        .with_help("a program has one graph; take it once"),
                    );
                } else {
                    graph_param = Some(i);
                }
            }
            TypeKind::Lock | TypeKind::Mark => {
                cx.report(
                    Diagnostic::error(
                        "E0403",
                        format!("a {what} parameter cannot have type `{}`", p.ty.kind),
                    )
                    .with_label(p.ty.span, "not a parameter type")
                    .with_help(
                        "lock and mark properties are reached through the graph \
                                     parameter: `g.lk[n]`",
                    ),
                );
                ty = Ty::Error;
            }
            _ => {}
        }
        params.push(ty);
    }
    (params, graph_param)
}
