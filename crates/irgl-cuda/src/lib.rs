//! The CUDA back end: a checked IrGL program to one self-contained `.cu` file.
//!
//! The file's fixed shape (prologue, declarations, the `Host` state, argument parsing, output
//! writing) is the askama template `templates/program.cu`; kernel bodies and the body of
//! `main` come from a writer with an indentation level ([`writer::Writer`]): device code in
//! [`device`], host orchestration in [`host`], expressions for both in [`expr`].
//!
//! The generated code includes the device runtime (`runtime-cuda/include/irgl`), which holds
//! the graph, worklists, reductions, locks, the Exclusive protocol and the grid barrier.
//! Output is deterministic: the same program and options give byte-identical CUDA.

use std::collections::HashMap;

use askama::Template;
use irgl_check::{IterKind, KernelInfo, ProgramInfo, Ty, Value};
use irgl_syntax::ast::*;

mod device;
mod expr;
mod host;
mod names;
mod stmt;
mod writer;

/// What the back end needs besides the program.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// The source file's name as the user gave it, for the header.
    pub source: String,
    /// The program's name, used for the binary, its output file and its JSON record.
    pub program: String,
    /// Threads per block.
    pub block_size: u32,
    /// The command that regenerates this file, for the header.
    pub rebuild: String,
}

impl EmitOptions {
    /// The option set as written in the generated file's header.
    pub fn describe(&self) -> String {
        format!(
            "block_size={}, schedule=baseline (serial nested ForAll, one atomic per push, host-driven iteration)",
            self.block_size
        )
    }
}

/// What a program requires of its input graph, from its `graph` declaration: the runner
/// converts graphs to match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphNeeds {
    /// `graph g : symmetric`: every edge has its reverse.
    pub symmetric: bool,
    /// `graph g : simple`: no self-loops, no parallel edges.
    pub simple: bool,
    /// An `input edge` property: the file must carry edge weights.
    pub weights: bool,
}

pub fn graph_needs(program: &Program) -> GraphNeeds {
    let mut needs = GraphNeeds::default();
    for item in &program.items {
        if let ItemKind::Graph(g) = &item.kind {
            needs.symmetric |= g.attrs.iter().any(|a| a.name == "symmetric");
            needs.simple |= g.attrs.iter().any(|a| a.name == "simple");
            needs.weights |= g.props.iter().any(|p| p.input);
        }
    }
    needs
}

/// The C++ type of an IrGL type.
pub(crate) fn c_type(t: TypeKind) -> &'static str {
    match t {
        TypeKind::Bool => "bool",
        TypeKind::U32 | TypeKind::Node | TypeKind::Edge => "uint32_t",
        TypeKind::I32 => "int32_t",
        TypeKind::U64 => "unsigned long long",
        TypeKind::I64 => "long long",
        TypeKind::F32 => "float",
        TypeKind::F64 => "double",
        TypeKind::Lock | TypeKind::Mark => "unsigned int",
        TypeKind::Graph => "G",
    }
}

/// Facts about a kernel that decide how it is declared and launched (from the checker's
/// [`irgl_check::KernelInfo`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct KernelFacts {
    /// Mentions `WL`: takes the worklists, and its invocations swap them.
    pub uses_worklist: bool,
    /// Has a `ForAll (i In WL)`: the launch is sized by the input worklist.
    pub pops: bool,
    /// Has `Retry` or `Respawn`: invoked again while its retry worklist is not empty.
    pub retries: bool,
    /// Has `ReduceAndReturn`.
    pub reduces: bool,
    /// Has `SyncRunningThreads`: launched cooperatively, all blocks resident.
    pub cooperative: bool,
    /// Has an outermost `ForAll` at all (otherwise it runs on one thread).
    pub has_forall: bool,
    /// Has an outermost `ForAll` over the nodes: the launch is sized by the node count.
    pub over_nodes: bool,
}

impl KernelFacts {
    fn of(k: &KernelInfo) -> KernelFacts {
        let outer = || k.foralls.iter().filter(|f| f.depth == 0);
        KernelFacts {
            uses_worklist: k.uses_worklist(),
            pops: k.iterates_worklist,
            retries: !k.retry_sites.is_empty(),
            reduces: k.has_reduce(),
            cooperative: k.sync_running_threads,
            has_forall: outer().next().is_some(),
            over_nodes: outer().any(|f| f.iter == IterKind::Nodes),
        }
    }
}

/// Everything the writers need to know about the program.
pub(crate) struct Ctx<'a> {
    info: &'a ProgramInfo,
    kernels: HashMap<&'a str, (&'a KernelDecl, KernelFacts)>,
}

impl<'a> Ctx<'a> {
    fn new(program: &'a Program, info: &'a ProgramInfo) -> Ctx<'a> {
        let mut kernels = HashMap::new();
        for k in program.kernels() {
            let facts = info
                .kernel_named(&k.name.name)
                .map(|id| KernelFacts::of(info.kernel(id)))
                .unwrap_or_default();
            kernels.insert(k.name.name.as_str(), (k, facts));
        }
        Ctx { info, kernels }
    }

    pub(crate) fn kernel(&self, name: &str) -> Option<&'a KernelDecl> {
        self.kernels.get(name).map(|(k, _)| *k)
    }

    pub(crate) fn facts(&self, kernel: &str) -> KernelFacts {
        self.kernels
            .get(kernel)
            .map(|(_, f)| f.clone())
            .unwrap_or_default()
    }

    /// The type the checker gave an expression (`u32` for the typeless, which a checked
    /// program only has in statement position).
    pub(crate) fn ty(&self, e: &Expr) -> TypeKind {
        type_kind(self.info.expr_ty(e.id))
    }
}

/// The IrGL type behind a checker type (`u32` for the typeless and the erroneous, which a
/// checked program only has where no value is used).
fn type_kind(ty: Ty) -> TypeKind {
    {
        match ty {
            Ty::Bool => TypeKind::Bool,
            Ty::I32 => TypeKind::I32,
            Ty::U64 => TypeKind::U64,
            Ty::I64 => TypeKind::I64,
            Ty::F32 => TypeKind::F32,
            Ty::F64 => TypeKind::F64,
            Ty::Node => TypeKind::Node,
            Ty::Edge => TypeKind::Edge,
            Ty::Graph => TypeKind::Graph,
            Ty::Lock => TypeKind::Lock,
            Ty::Mark => TypeKind::Mark,
            Ty::U32 | Ty::Void | Ty::Error => TypeKind::U32,
        }
    }
}

/// A folded constant as a C++ literal of its own type.
fn value_literal(v: Option<Value>) -> String {
    match v {
        None => "0".to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::U32(x)) => expr::int_literal(u64::from(x), TypeKind::U32),
        Some(Value::U64(x)) => expr::int_literal(x, TypeKind::U64),
        Some(Value::I32(x)) if x < 0 => format!(
            "(-{})",
            expr::int_literal(x.unsigned_abs().into(), TypeKind::I64)
        ),
        Some(Value::I32(x)) => expr::int_literal(x as u64, TypeKind::I32),
        Some(Value::I64(x)) if x < 0 => {
            format!("(-{})", expr::int_literal(x.unsigned_abs(), TypeKind::U64))
        }
        Some(Value::I64(x)) => expr::int_literal(x as u64, TypeKind::I64),
        Some(Value::F32(x)) => {
            // The shortest text that reads back as this f32 (`0.85f`, not `0.8500000238f`).
            let text = format!("{x:?}");
            let text = if text.contains(['.', 'e', 'E']) {
                text
            } else {
                format!("{text}.0")
            };
            format!("{text}f")
        }
        Some(Value::F64(x)) => expr::float_literal(x, TypeKind::F64),
    }
}

// ------------------------------------------------------------------ the template

struct Decl {
    ty: String,
    name: String,
    value: String,
}

struct ParamDecl {
    ty: String,
    name: String,
    value: String,
    flag: String,
    flag_ty: String,
    flag_value: String,
    help: String,
    is_node: bool,
}

struct GlobalDecl {
    ty: String,
    name: String,
    init: String,
}

struct PropDef {
    ty: String,
    name: String,
    on_edges: bool,
    input: bool,
}

struct KernelDef {
    signature: String,
    body: String,
    launcher: String,
}

struct OutputDef {
    name: String,
    irgl_ty: String,
    on_edges: bool,
    /// The `input` edge property: no DeviceArray of its own, it lives in the graph.
    input: bool,
}

#[derive(Template)]
#[template(path = "program.cu", escape = "none")]
struct ProgramTemplate {
    version: String,
    source: String,
    options: String,
    rebuild: String,
    program: String,
    description: String,
    block_size: u32,
    consts: Vec<Decl>,
    params: Vec<ParamDecl>,
    globals: Vec<GlobalDecl>,
    props: Vec<PropDef>,
    kernels: Vec<KernelDef>,
    main_body: String,
    needs_edge_data: bool,
    output_scalars: Vec<OutputDef>,
    output_arrays: Vec<OutputDef>,
}

/// Generates the CUDA source of a checked program (one without errors).
pub fn emit_program(program: &Program, info: &ProgramInfo, opts: &EmitOptions) -> String {
    let cx = Ctx::new(program, info);
    let mut t = ProgramTemplate {
        version: env!("CARGO_PKG_VERSION").to_string(),
        source: opts.source.clone(),
        options: opts.describe(),
        rebuild: opts.rebuild.clone(),
        program: opts.program.clone(),
        description: format!("{} (compiled by irglc from {})", opts.program, opts.source),
        block_size: opts.block_size,
        consts: Vec::new(),
        params: Vec::new(),
        globals: Vec::new(),
        props: Vec::new(),
        kernels: Vec::new(),
        main_body: String::new(),
        needs_edge_data: false,
        output_scalars: Vec::new(),
        output_arrays: Vec::new(),
    };
    let mut prop_types: HashMap<&str, (TypeKind, bool, bool)> = HashMap::new();
    let mut global_types: HashMap<&str, TypeKind> = HashMap::new();
    for c in &info.consts {
        t.consts.push(Decl {
            ty: c_type(type_kind(c.ty)).to_string(),
            name: names::cpp(&c.name).into_owned(),
            value: value_literal(c.value),
        });
    }
    for p in &info.params {
        let ty = type_kind(p.ty);
        let value = value_literal(p.default);
        let flag_ty = match ty {
            TypeKind::F32 | TypeKind::F64 => "double",
            TypeKind::Bool => "bool",
            TypeKind::I32 | TypeKind::I64 => "int64_t",
            _ => "uint64_t",
        };
        t.params.push(ParamDecl {
            ty: c_type(ty).to_string(),
            name: names::cpp(&p.name).into_owned(),
            flag_value: format!("static_cast<{flag_ty}>({value})"),
            value,
            flag: p.name.replace('_', "-"),
            flag_ty: flag_ty.to_string(),
            help: format!("param {} ({})", p.name, ty),
            is_node: ty == TypeKind::Node,
        });
    }
    for g in &info.globals {
        let ty = type_kind(g.ty);
        global_types.insert(g.name.as_str(), ty);
        t.globals.push(GlobalDecl {
            ty: c_type(ty).to_string(),
            name: names::cpp(&g.name).into_owned(),
            init: format!("static_cast<{}>({})", c_type(ty), value_literal(g.init)),
        });
    }
    for item in &program.items {
        match &item.kind {
            ItemKind::Graph(g) => {
                for p in &g.props {
                    let on_edges = p.owner == PropOwner::Edge;
                    prop_types.insert(p.name.name.as_str(), (p.ty.kind, on_edges, p.input));
                    t.needs_edge_data |= p.input;
                    t.props.push(PropDef {
                        ty: c_type(p.ty.kind).to_string(),
                        name: names::cpp(&p.name.name).into_owned(),
                        on_edges,
                        input: p.input,
                    });
                }
            }
            ItemKind::Kernel(k) => {
                let facts = cx.facts(&k.name.name);
                t.kernels.push(KernelDef {
                    signature: cx.kernel_signature(k, &facts),
                    body: cx.kernel_body(k),
                    launcher: cx.launchers(k, &facts),
                });
            }
            ItemKind::Main(b) => t.main_body = cx.main_body(b),
            _ => {}
        }
    }
    for item in &program.items {
        if let ItemKind::Output(o) = &item.kind {
            for n in &o.names {
                if let Some(&ty) = global_types.get(n.name.as_str()) {
                    t.output_scalars.push(OutputDef {
                        name: names::cpp(&n.name).into_owned(),
                        irgl_ty: ty.spelling().to_string(),
                        on_edges: false,
                        input: false,
                    });
                } else if let Some(&(ty, on_edges, input)) = prop_types.get(n.name.as_str()) {
                    t.output_arrays.push(OutputDef {
                        name: names::cpp(&n.name).into_owned(),
                        irgl_ty: ty.spelling().to_string(),
                        on_edges,
                        input,
                    });
                }
            }
        }
    }
    t.render().expect("the program template renders")
}
