//! The CUDA back end: a verified IR [`Module`] to one self-contained `.cu` file.
//!
//! The file's fixed shape (prologue, declarations, the `Host` state, argument parsing, output
//! writing, repeated timed runs) is the askama template `templates/program.cu`; kernel bodies
//! and the body of `main` come from a writer with an indentation level ([`writer::Writer`]):
//! statements in [`stmt`], kernel constructs and `ForAll`s in [`device`], the nested-loop
//! schedulers in [`sched`], orchestration and launchers in [`host`], expressions in [`expr`].
//!
//! The back end decides nothing: schedules, aggregation levels and launch shapes are in the
//! IR, and a fact missing from it (a type, a value) is a compiler bug that panics here rather
//! than a default printed into the program. The generated code includes the device runtime
//! (`runtime-cuda/include/irgl`). Output is deterministic: the same module and options give
//! byte-identical CUDA.

use askama::Template;
use irgl_ir::*;

mod control;
mod device;
mod expr;
mod host;
mod names;
mod sched;
mod stmt;
mod writer;

use expr::{c_type, value_literal};
use names::cpp;

/// Which side of the program a piece of code runs on: names of params, globals and
/// properties differ between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Device,
    Host,
}

/// What the generated file's header says besides the program.
#[derive(Clone, Debug)]
pub struct EmitMeta {
    /// The option set, as canonical text (`OptConfig`'s).
    pub options: String,
    /// The command that regenerates this file.
    pub rebuild: String,
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
    /// The input is a mesh (`mesh m { ... }`): a `.mesh` file, not a graph.
    pub mesh: bool,
}

pub fn graph_needs(m: &Module) -> GraphNeeds {
    GraphNeeds {
        symmetric: m.graph.symmetric,
        simple: m.graph.simple,
        weights: m.graph.input.is_some(),
        mesh: m.graph.mesh,
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
    /// Its length, in the `Host` constructor: `hg.nnodes`, `dm.triangle_capacity()`, ...;
    /// for an array, a host expression evaluated by `allocate_arrays`.
    size: String,
    input: bool,
    /// A program-level `array`: allocated after the `Host` is built, its length kept in `G`.
    array: bool,
}

/// A device error code and what it means (an index out of range of a local array).
struct ArrayErrorDef {
    code: String,
    what: String,
}

struct KernelDef {
    /// File-scope tables of the loops that hand items to the grid (else empty).
    grid_items: String,
    signature: String,
    body: String,
    launcher: String,
    /// For a kernel that control kernels call: the device function holding its body, and
    /// the `__global__` kernel's call of it (else empty).
    device_signature: String,
    device_call: String,
}

struct OutputDef {
    name: String,
    /// Its C++ element type.
    ty: String,
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
    controls: Vec<control::ControlDef>,
    main_body: String,
    needs_edge_data: bool,
    /// `graph g : symmetric` and `: simple`: checked when the graph is read.
    needs_symmetric: bool,
    needs_simple: bool,
    /// Some kernel runs asynchronously: the host owns a task queue.
    asynchronous: bool,
    /// Some outlined loop switches between rounds and asynchrony (a kernel has an
    /// asynchronous version): the queue counts first pops, the program takes
    /// `--async-switch` and `--switch-epoch`, the record says how it ran.
    async_switch: bool,
    switch_epoch_us: u32,
    output_scalars: Vec<OutputDef>,
    output_arrays: Vec<OutputDef>,
    /// The input is a mesh (`mesh m { ... }`).
    mesh: bool,
    /// `output m;`: the mesh is written to `--mesh-output` at the end.
    mesh_output: bool,
    /// The local arrays of every kernel, for the device error flag's messages.
    array_errors: Vec<ArrayErrorDef>,
    /// `graph g : in_edges`: the host builds (or shares) the transpose, `g.in_edges`.
    in_edges: bool,
    /// The in-edges are the graph's own CSR (symmetric, no `edge_of`).
    in_edges_shared: bool,
    /// Some property is a program-level `array` (see `allocate_arrays`).
    has_arrays: bool,
    /// Some kernel uses `g.edge_of(k)`: the transpose carries out-edge ids.
    in_edge_ids: bool,
    /// Some kernel has a serial version ([`Kernel::serial_version`]), chosen by this rule.
    serial_versions: bool,
    /// Some nested loop may hand items to the grid ([`Policy::Grid`]): the file declares
    /// `irgl_grid_min`, set when the program loads its graph.
    grid_items: bool,
    /// Some kernel has a version without `gd` ([`Kernel::no_grid_version`]), launched where
    /// `irgl_grid_min` is 0 (`Host::grid_min`).
    grid_versions: bool,
    /// Some kernel runs over the parts of split nodes ([`Space::SplitNodes`]): the host splits
    /// the graph once it knows the grid (`--split-degree`), the kernels read `g.split`.
    split: bool,
    serial_below_degree: u32,
    serial_efficiency: u32,
    /// 64-bit edge indices (`--wide-edges`).
    wide_edges: bool,
    /// Some kernel or `main` uses the worklists: the host allocates the input and output
    /// lists (a program without worklists allocates none).
    worklists: bool,
    /// Some kernel retries or respawns: the host also allocates the retry list.
    retry_list: bool,
    /// Device bytes per worklist item: 4 a list (and 4 for Part::deliver's list with
    /// `multi`), 8 for the asynchronous task queue.
    worklist_bytes: u32,
    /// Built to run partitioned over several GPUs (`--multi-gpu`): a host thread and a
    /// `Host` per GPU over its part (`irgl::Part`).
    multi: bool,
}

/// The worklists a program uses: (the input and output lists, the retry list).
fn worklists_used(m: &Module) -> (bool, bool) {
    let (mut lists, mut retry) = (false, false);
    for (_, k) in m.kernels.iter() {
        let f = k.facts();
        lists |= f.uses_worklist;
        retry |= f.retries;
    }
    visit::walk_stmts(
        &m.host,
        &m.host.block,
        &mut |s| match &m.host.stmts[s].kind {
            StmtKind::WorklistClear | StmtKind::WorklistInit(_) => lists = true,
            StmtKind::WorklistSwap(w) => {
                lists = true;
                retry |= *w == WorklistRef::Retry;
            }
            _ => {}
        },
    );
    (lists, lists && retry)
}

/// Whether some kernel asks for an in-edge's out-edge id (`g.edge_of(k)`).
fn uses_edge_of(m: &Module) -> bool {
    m.kernels.iter().any(|(_, k)| {
        let mut found = false;
        visit::walk_block_exprs(&k.body, &k.body.block, &mut |e| {
            found |= matches!(
                k.body.exprs[e].kind,
                ExprKind::GraphQuery(GraphMethod::EdgeOf, _)
            );
        });
        found
    })
}

/// The kernels that `main` launches outside control kernels.
fn host_launches(body: &Body, block: &Block) -> Vec<KernelId> {
    let mut out = Vec::new();
    for &s in block.iter() {
        match &body.stmts[s].kind {
            StmtKind::Launch(l) => out.push(l.kernel),
            StmtKind::Control(_) => {}
            kind => {
                for b in visit::child_blocks(kind) {
                    out.extend(host_launches(body, b));
                }
            }
        }
    }
    out
}

/// Generates the CUDA source of a module.
pub fn emit_cuda(m: &Module, meta: &EmitMeta) -> String {
    let multi = m.partitioned.is_some();
    let (worklists, retry_list) = worklists_used(m);
    let asynchronous = m.kernels.iter().any(|(_, k)| k.asynchronous.is_some());
    let worklists = worklists || asynchronous;
    let mut t = ProgramTemplate {
        version: env!("CARGO_PKG_VERSION").to_string(),
        source: m.source.clone(),
        options: meta.options.clone(),
        rebuild: meta.rebuild.clone(),
        program: m.name.clone(),
        description: format!("{} (compiled by irglc from {})", m.name, m.source),
        block_size: m.launch.block_size,
        consts: Vec::new(),
        params: Vec::new(),
        globals: Vec::new(),
        props: Vec::new(),
        kernels: Vec::new(),
        controls: Vec::new(),
        main_body: String::new(),
        needs_edge_data: m.graph.input.is_some(),
        needs_symmetric: m.graph.symmetric && !m.graph.mesh,
        needs_simple: m.graph.simple && !m.graph.mesh,
        asynchronous,
        async_switch: m.kernels.iter().any(|(_, k)| k.async_version.is_some()) && !multi,
        switch_epoch_us: m.launch.switch_epoch_us,
        output_scalars: Vec::new(),
        output_arrays: Vec::new(),
        mesh: m.graph.mesh,
        mesh_output: m.outputs.contains(&Output::Mesh),
        array_errors: Vec::new(),
        in_edges: m.graph.in_edges,
        in_edges_shared: m.graph.in_edges && m.graph.symmetric && !uses_edge_of(m),
        has_arrays: false,
        in_edge_ids: m.graph.in_edges && uses_edge_of(m),
        serial_versions: m.kernels.iter().any(|(_, k)| k.serial_version.is_some()),
        grid_items: m
            .kernels
            .iter()
            .any(|(_, k)| !device::grid_loops(&k.body, &k.body.block).is_empty()),
        grid_versions: m.kernels.iter().any(|(_, k)| k.no_grid_version.is_some()),
        split: m.kernels.iter().any(|(_, k)| k.facts().over_split),
        wide_edges: m.launch.wide_edges,
        serial_below_degree: m.launch.serial_rule.map_or(0, |r| r.below_degree),
        serial_efficiency: m.launch.serial_rule.map_or(0, |r| r.efficiency),
        worklists,
        retry_list,
        // Several GPUs: Part::deliver keeps a list of the same capacity, to split the
        // pushes of other GPUs' nodes from the list.
        worklist_bytes: 4 * (2 + u32::from(retry_list) + u32::from(multi)) * u32::from(worklists)
            + 8 * u32::from(asynchronous),
        multi,
    };
    for c in &m.consts {
        t.consts.push(Decl {
            ty: c_type(c.ty).to_string(),
            name: cpp(&c.name).into_owned(),
            value: value_literal(c.value),
        });
    }
    for p in &m.params {
        let value = value_literal(p.default);
        let flag_ty = match p.ty {
            Ty::F32 | Ty::F64 => "double",
            Ty::Bool => "bool",
            Ty::I32 | Ty::I64 => "int64_t",
            _ => "uint64_t",
        };
        t.params.push(ParamDecl {
            ty: c_type(p.ty).to_string(),
            name: cpp(&p.name).into_owned(),
            flag_value: format!("static_cast<{flag_ty}>({value})"),
            value,
            flag: p.name.replace('_', "-"),
            flag_ty: flag_ty.to_string(),
            help: format!("param {} ({})", p.name, p.ty),
            is_node: p.ty == Ty::Node,
        });
    }
    for g in &m.globals {
        let ty = c_type(g.ty);
        t.globals.push(GlobalDecl {
            ty: ty.to_string(),
            name: cpp(&g.name).into_owned(),
            init: format!("static_cast<{ty}>({})", value_literal(g.init)),
        });
    }
    for p in &m.graph.props {
        let size = match (p.owner, p.len) {
            // Several GPUs: the part's graph.
            (PropOwner::Node, _) if multi => "lg.nnodes".to_string(),
            (PropOwner::Edge, _) if multi => "lg.nedges".to_string(),
            (PropOwner::Node, _) => "hg.nnodes".to_string(),
            (PropOwner::Edge, _) => "hg.nedges".to_string(),
            (PropOwner::Triangle, _) => "dm.triangle_capacity()".to_string(),
            (PropOwner::Vertex, _) => "dm.vertex_capacity()".to_string(),
            (PropOwner::Array, Some(len)) => {
                let e = stmt::Emitter::new(m, &m.host, Side::Host, &m.graph.name, 1);
                e.x.cond(len)
            }
            (PropOwner::Array, None) => panic!("array {} has a length", p.name),
        };
        t.props.push(PropDef {
            ty: c_type(p.ty).to_string(),
            name: cpp(&p.name).into_owned(),
            size,
            input: p.input,
            array: p.owner == PropOwner::Array,
        });
    }
    t.has_arrays = t.props.iter().any(|p| p.array);
    let mut controls: Vec<&Control> = Vec::new();
    visit::walk_stmts(&m.host, &m.host.block, &mut |s| {
        if let StmtKind::Control(c) = &m.host.stmts[s].kind {
            controls.push(c);
        }
    });
    let mut from_host = host_launches(&m.host, &m.host.block);
    let versions: Vec<KernelId> = from_host
        .iter()
        .flat_map(|&k| {
            let k = &m.kernels[k];
            [k.serial_version, k.no_grid_version, k.async_version]
        })
        .flatten()
        .collect();
    from_host.extend(versions);
    for (id, k) in m.kernels.iter() {
        // Messages name the kernel of the source (a version's, its kernel).
        let shown = &m.kernels[k.version_of().unwrap_or(id)].name;
        let graph = device::graph_param(k).unwrap_or(&m.graph.name);
        let coherent = device::coherent_props(k);
        let facts = k.facts();
        let indexes_arrays = facts.indexes_arrays;
        if m.launch.check_indices && facts.indexes_props {
            for (i, p) in m.graph.props.iter().enumerate() {
                let owner = match p.owner {
                    PropOwner::Node => "node property",
                    PropOwner::Edge => "edge property",
                    PropOwner::Triangle => "triangle property",
                    PropOwner::Vertex => "vertex property",
                    PropOwner::Array => "array",
                };
                t.array_errors.push(ArrayErrorDef {
                    code: format!(
                        "0x{:x}u",
                        expr::prop_error_code(id.index(), irgl_ir::PropId(i as u32))
                    ),
                    what: format!(
                        "index out of range of the {owner} `{}` in kernel `{}`",
                        p.name, shown
                    ),
                });
            }
        }
        for (l, local) in k.body.locals.iter() {
            if let LocalKind::Array { len } = local.kind
                && indexes_arrays
            {
                t.array_errors.push(ArrayErrorDef {
                    code: format!("0x{:x}u", expr::array_error_code(id.index(), l)),
                    what: format!(
                        "index out of range of the local array `{}` ({len} elements) in kernel `{}`",
                        local.name, shown
                    ),
                });
            }
        }
        let mut e = stmt::Emitter::new(m, &k.body, Side::Device, graph, 1);
        e.x.error_base = expr::array_error_code(id.index(), LocalId::from_index(0));
        e.asynchrony = k.asynchronous;
        e.chunked = k.backoff.is_some();
        e.x.asynchronous = k.asynchronous.is_some();
        e.x.coherent = &coherent;
        e.grid_prefix = device::grid_prefix(k);
        let in_control = controls.iter().any(|c| c.kernels.contains(&id));
        e.grid_leave = !in_control;
        e.counts_first_pops = k.switched();
        e.deferred_sums();
        e.block(&k.body.block);
        e.deferred_adds();
        let (device_signature, device_call) = if in_control {
            let (signature, mut call) = device::device_function(k);
            // Launched from the host too: its blocks count themselves out of the tables.
            let leaves: Vec<String> = device::grid_tables(k)
                .iter()
                .map(|t| format!("irgl::grid_leave({t});"))
                .collect();
            if !leaves.is_empty() {
                call.push_str(&format!(
                    "\n  if (threadIdx.x == 0) {{ {} }}",
                    leaves.join(" ")
                ));
            }
            (signature, call)
        } else {
            (String::new(), String::new())
        };
        // A kernel that only control kernels launch needs neither a launcher nor a
        // `__global__` entry of its own.
        let launched = from_host.contains(&id) || !in_control;
        let grid_items = std::mem::take(&mut e.grid_decls).join("\n");
        t.kernels.push(KernelDef {
            grid_items,
            signature: if launched {
                device::kernel_signature(k)
            } else {
                String::new()
            },
            body: e.w.finish(),
            launcher: if launched {
                host::launcher(
                    k,
                    shown,
                    &m.launch,
                    m.partitioned.as_ref(),
                    &m.graph.props,
                    &m.globals,
                )
            } else {
                String::new()
            },
            device_signature,
            device_call,
        });
    }
    for c in controls {
        t.controls.push(control::control_kernel(m, c));
    }
    let mut e = stmt::Emitter::new(m, &m.host, Side::Host, &m.graph.name, 1);
    e.block(&m.host.block);
    t.main_body = e.w.finish();
    for o in &m.outputs {
        match o {
            Output::Global(g) => {
                let g = &m.globals[g.index()];
                t.output_scalars.push(OutputDef {
                    name: cpp(&g.name).into_owned(),
                    ty: c_type(g.ty).to_string(),
                    irgl_ty: g.ty.spelling().to_string(),
                    on_edges: false,
                    input: false,
                });
            }
            Output::Mesh => {}
            Output::Property(p) => {
                let p = m.prop(*p);
                t.output_arrays.push(OutputDef {
                    name: cpp(&p.name).into_owned(),
                    ty: c_type(p.ty).to_string(),
                    irgl_ty: p.ty.spelling().to_string(),
                    on_edges: p.owner == PropOwner::Edge,
                    input: p.input,
                });
            }
        }
    }
    t.render().expect("the program template renders")
}
