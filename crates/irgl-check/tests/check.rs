//! Valid programs: they check clean, and the side tables say what they should.

use irgl_check::{
    GraphField, GraphMethod, InvocationKind, IterKind, LocalKind, ProgramInfo, Resolution, Ty,
    Value, WorklistContext, check,
};
use irgl_diagnostics::{Diagnostic, FileId, SourceMap, render_plain};
use irgl_syntax::ast::{NodeId, Program, Reduction};
use irgl_syntax::visit::{Slot, walk_program_mut};

struct Checked {
    src: String,
    program: Program,
    info: ProgramInfo,
    diagnostics: Vec<Diagnostic>,
    /// Every numbered node with its source text, in pre-order.
    nodes: Vec<(NodeId, String)>,
}

impl Checked {
    fn new(src: &str) -> Checked {
        let (program, parse_diags) = irgl_syntax::parse(FileId(0), src);
        assert!(parse_diags.is_empty(), "parse errors: {parse_diags:?}");
        let (info, diagnostics) = check(&program);
        let mut nodes = Vec::new();
        let mut copy = program.clone();
        walk_program_mut(&mut copy, &mut |slot| {
            if let Slot::Node { id, span } = slot {
                nodes.push((*id, src[span.range()].to_string()));
            }
        });
        Checked {
            src: src.to_string(),
            program,
            info,
            diagnostics,
            nodes,
        }
    }

    fn render(&self) -> String {
        let mut map = SourceMap::new();
        map.add("test.irgl", self.src.clone());
        self.diagnostics
            .iter()
            .map(|d| render_plain(d, &map))
            .collect()
    }

    fn assert_clean(&self) {
        assert!(self.diagnostics.is_empty(), "{}", self.render());
    }

    /// The `n`-th (0-based, pre-order) node whose source text is exactly `text`.
    fn nth(&self, text: &str, n: usize) -> NodeId {
        self.nodes
            .iter()
            .filter(|(_, t)| t == text)
            .nth(n)
            .map(|(id, _)| *id)
            .unwrap_or_else(|| panic!("no node #{n} with text {text:?}"))
    }

    fn id(&self, text: &str) -> NodeId {
        self.nth(text, 0)
    }

    fn ty(&self, text: &str) -> Ty {
        self.info.expr_ty(self.id(text))
    }

    fn res(&self, text: &str) -> Option<Resolution> {
        self.info.resolution(self.id(text))
    }

    fn codes(&self) -> Vec<&'static str> {
        self.diagnostics.iter().map(|d| d.code).collect()
    }
}

const BFS: &str = "
graph g { node level: u32; }
const INF: u32 = 0xffffffff;
param src: node = 0;
output level;

Kernel init(graph g) {
  ForAll (n In g.nodes) { g.level[n] = INF; }
}

Kernel bfs(graph g, u32 LEVEL) {
  ForAll (wi In WL) {
    let n = WL.pop(wi);
    ForAll (e In g.edges(n)) {
      let d = g.dst(e);
      if (g.level[d] == INF) {
        g.level[d] = LEVEL;
        WL.push(d);
      }
    }
  }
}

main {
  Invoke init(g);
  g.level[src] = 0;
  let LEVEL: u32 = 1;
  Iterate bfs(g, LEVEL) Initial [src] { LEVEL += 1; }
}
";

#[test]
fn bfs_symbols_and_folded_values() {
    let c = Checked::new(BFS);
    c.assert_clean();
    let graph = c.info.graph.as_ref().expect("graph");
    assert_eq!(graph.name, "g");
    assert_eq!(graph.props.len(), 1);
    assert_eq!(graph.props[0].ty, Ty::U32);
    assert_eq!(c.info.consts[0].value, Some(Value::U32(u32::MAX)));
    assert_eq!(c.info.params[0].ty, Ty::Node);
    assert_eq!(c.info.params[0].default, Some(Value::U32(0)));
    let level = graph.prop_named("level").expect("level");
    assert_eq!(
        c.info.outputs[0].target,
        Some(irgl_check::OutputTarget::Property(level))
    );
    assert_eq!(
        c.info.kernel_named("bfs").map(|k| c.info.kernel(k).item),
        Some(5)
    );
    assert!(c.info.main.is_some());
}

#[test]
fn bfs_types_and_resolutions() {
    let c = Checked::new(BFS);
    // Literals take their context's type.
    assert_eq!(c.ty("0xffffffff"), Ty::U32);
    assert_eq!(c.ty("1"), Ty::U32);
    assert_eq!(c.ty("g.level[src]"), Ty::U32);
    assert_eq!(c.ty("g.dst(e)"), Ty::Node);
    assert_eq!(c.ty("WL.pop(wi)"), Ty::Node);
    assert_eq!(c.ty("WL.push(d)"), Ty::Void);
    assert_eq!(c.ty("g.level[d] == INF"), Ty::Bool);
    let level = c.info.graph.as_ref().and_then(|g| g.prop_named("level"));
    assert_eq!(c.res("g.level[d]"), level.map(Resolution::NodeProperty));
    assert_eq!(
        c.res("g.dst(e)"),
        Some(Resolution::GraphMethod(GraphMethod::Dst))
    );
    assert_eq!(
        c.res("INF"),
        Some(Resolution::Const(irgl_check::ConstId(0)))
    );
    assert_eq!(
        c.res("src"),
        Some(Resolution::Param(irgl_check::ParamId(0)))
    );
    // `d` in `g.level[d]` is the local of `let d = g.dst(e);`.
    let let_d = c.id("let d = g.dst(e);");
    assert_eq!(
        c.info.resolution(c.nth("d", 1)),
        Some(Resolution::Local {
            def: let_d,
            kind: LocalKind::Let
        })
    );
    assert_eq!(c.info.local_types.get(&let_d), Some(&Ty::Node));
    // `wi` is the variable of the worklist ForAll, of type u32.
    let Some(Resolution::Local { def, kind }) = c.res("wi") else {
        panic!("wi unresolved");
    };
    assert_eq!(kind, LocalKind::ForAllVar);
    assert_eq!(c.info.local_types.get(&def), Some(&Ty::U32));
    // The `g` passed to Invoke is the graph.
    assert_eq!(c.info.resolution(c.nth("g", 0)), Some(Resolution::Graph));
}

#[test]
fn bfs_kernel_and_invocation_info() {
    let c = Checked::new(BFS);
    let init = c.info.kernel(c.info.kernel_named("init").expect("init"));
    assert!(!init.uses_worklist());
    assert_eq!(init.params, vec![Ty::Graph]);
    assert_eq!(init.graph_param, Some(0));
    assert_eq!(init.foralls.len(), 1);
    assert_eq!(init.foralls[0].iter, IterKind::Nodes);
    let level = c
        .info
        .graph
        .as_ref()
        .and_then(|g| g.prop_named("level"))
        .expect("level");
    assert!(init.access.props_written.contains(&level));
    assert!(!init.access.props_read.contains(&level));

    let bfs = c.info.kernel(c.info.kernel_named("bfs").expect("bfs"));
    assert!(bfs.iterates_worklist && bfs.pops && bfs.pushes && bfs.uses_worklist());
    assert!(!bfs.has_reduce() && !bfs.uses_retry() && !bfs.sync_running_threads);
    let shape: Vec<_> = bfs
        .foralls
        .iter()
        .map(|f| (f.depth, f.iter, f.var_ty))
        .collect();
    assert_eq!(
        shape,
        vec![
            (0, IterKind::Worklist, Ty::U32),
            (1, IterKind::Edges, Ty::Edge)
        ]
    );
    assert_eq!(bfs.foralls[1].parent, Some(bfs.foralls[0].stmt));
    assert!(bfs.access.props_read.contains(&level) && bfs.access.props_written.contains(&level));

    let kinds: Vec<_> = c
        .info
        .invocations
        .iter()
        .map(|i| (i.kind, i.worklist, i.in_pipe()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (InvocationKind::Invoke, WorklistContext::None, false),
            (InvocationKind::Iterate, WorklistContext::InitialList, false),
        ]
    );
    let main = c.info.main.as_ref().expect("main");
    assert!(main.access.props_written.contains(&level));
}

#[test]
fn pipes_reductions_and_synchronization() {
    let c = Checked::new(
        "
graph g : symmetric { node comp: node; node lk: lock; node mk: mark; node hits: u32; }
global changed: bool = false;
global total: u64;
output comp, total;

Kernel seed(graph g) {
  ForAll (n In g.nodes) { g.comp[n] = n; WL.push(n); }
}

Kernel hook(graph g) {
  ForAll (i In WL) {
    let n = WL.pop(i);
    ForAll (e In g.edges(n)) {
      let d = g.dst(e);
      Atomic (g.lk[d]) { g.hits[d] += 1; } Else { Retry n; }
      Exclusive (g.mk, [n, d]) {
        if (g.comp[d] < g.comp[n]) { g.comp[n] = g.comp[d]; WL.push(n); }
      }
    }
  }
}

Kernel count(graph g) {
  ForAll (n In g.nodes) { atomicAdd(total, g.degree(n) as u64); }
  SyncRunningThreads;
  ForAll (n In 0..g.nnodes) { ReduceAndReturn g.hits[n] > 0; }
}

main {
  Pipe Once {
    Invoke seed(g);
    Pipe { Invoke hook(g); }
  }
  changed = Any Invoke count(g);
  while (changed) { changed = All Invoke count(g); }
}
",
    );
    c.assert_clean();
    let graph = c.info.graph.as_ref().expect("graph");
    assert!(graph.attrs.symmetric && !graph.attrs.simple);
    assert_eq!(c.info.globals[0].init, Some(Value::Bool(false)));
    assert_eq!(c.info.globals[1].init, Some(Value::U64(0)));

    let hook = c.info.kernel(c.info.kernel_named("hook").expect("hook"));
    assert!(hook.uses_atomic && hook.uses_exclusive && hook.uses_retry() && !hook.uses_respawn());
    let lk = graph.prop_named("lk").expect("lk");
    let mk = graph.prop_named("mk").expect("mk");
    assert!(hook.sync_props.contains(&lk) && hook.sync_props.contains(&mk));
    assert!(!hook.access.props_read.contains(&lk));
    assert_eq!(c.res("g.mk"), Some(Resolution::NodeProperty(mk)));
    assert_eq!(c.ty("g.lk[d]"), Ty::Lock);

    let count = c.info.kernel(c.info.kernel_named("count").expect("count"));
    assert!(count.sync_running_threads && count.has_reduce() && count.uses_atomic_functions);
    assert!(count.access.globals_read.contains(&irgl_check::GlobalId(1)));
    assert!(
        count
            .access
            .globals_written
            .contains(&irgl_check::GlobalId(1))
    );
    assert_eq!(count.foralls[1].var_ty, Ty::U32);
    assert_eq!(
        c.res("g.nnodes"),
        Some(Resolution::GraphField(GraphField::NNodes))
    );
    assert_eq!(c.ty("atomicAdd(total, g.degree(n) as u64)"), Ty::U64);

    let inv: Vec<_> = c
        .info
        .invocations
        .iter()
        .map(|i| {
            (
                c.info.kernel(i.kernel.expect("kernel")).name.as_str(),
                i.worklist,
                i.reduction,
            )
        })
        .collect();
    assert_eq!(
        inv,
        vec![
            ("seed", WorklistContext::Pipe, None),
            ("hook", WorklistContext::Pipe, None),
            ("count", WorklistContext::None, Some(Reduction::Any)),
            ("count", WorklistContext::None, Some(Reduction::All)),
        ]
    );
    // The inner Pipe is the hook's innermost one; the outer Pipe owns the worklist.
    let hook_inv = &c.info.invocations[1];
    assert_ne!(hook_inv.pipe, hook_inv.outer_pipe);
    assert_eq!(c.info.invocations[0].pipe, hook_inv.outer_pipe);
}

#[test]
fn literals_take_their_contextual_type() {
    let c = Checked::new(
        "
graph g { node rank: f32; node big: u64; node delta: i64; }
output rank;

Kernel k(graph g) {
  ForAll (n In g.nodes) {
    g.rank[n] = 1 - 0.15;
    g.big[n] = 1 << 40;
    g.delta[n] = -5000000000;
    let plain = 7;
    let f = 2.5;
    let m: u32 = max(3, g.degree(n));
    g.rank[n] = g.rank[n] * 2 + f as f32 + (plain + m as i32) as f32;
  }
}

main { Invoke k(g); }
",
    );
    c.assert_clean();
    assert_eq!(c.ty("1 - 0.15"), Ty::F32);
    assert_eq!(c.ty("0.15"), Ty::F32);
    assert_eq!(c.ty("1 << 40"), Ty::U64);
    assert_eq!(c.ty("40"), Ty::U64);
    assert_eq!(c.ty("-5000000000"), Ty::I64);
    assert_eq!(c.ty("7"), Ty::I32);
    assert_eq!(c.ty("2.5"), Ty::F64);
    assert_eq!(c.ty("3"), Ty::U32);
    assert_eq!(c.ty("2"), Ty::F32);
    assert_eq!(c.ty("max(3, g.degree(n))"), Ty::U32);
}

/// Folds `const X: T = e;` and returns the value (or the diagnostics' codes).
fn fold(ty: &str, e: &str) -> Result<Value, Vec<&'static str>> {
    let src = format!("graph g {{ node x: u32; }}\nconst X: {ty} = {e};\nmain {{ g.x[0] = 0; }}\n");
    let c = Checked::new(&src);
    match c.info.consts[0].value {
        Some(v) if c.diagnostics.is_empty() => Ok(v),
        _ => Err(c.codes()),
    }
}

#[test]
fn constant_folding() {
    assert_eq!(fold("u32", "0xffffffff"), Ok(Value::U32(u32::MAX)));
    assert_eq!(fold("i32", "-2147483648"), Ok(Value::I32(i32::MIN)));
    assert_eq!(fold("u64", "(1 << 40) + 5"), Ok(Value::U64((1 << 40) + 5)));
    assert_eq!(fold("i32", "min(3, -4) * 2"), Ok(Value::I32(-8)));
    assert_eq!(fold("i32", "max(7 / 2, 7 % 4)"), Ok(Value::I32(3)));
    assert_eq!(fold("i32", "-7 / 2"), Ok(Value::I32(-3)));
    assert_eq!(fold("i32", "~0"), Ok(Value::I32(-1)));
    assert_eq!(fold("u32", "~0"), Ok(Value::U32(u32::MAX)));
    assert_eq!(fold("u32", "-1 as u32"), Ok(Value::U32(u32::MAX)));
    assert_eq!(
        fold("u64", "3000000000 as u64"),
        Ok(Value::U64(3_000_000_000))
    );
    assert_eq!(fold("i32", "1 << 31"), Ok(Value::I32(i32::MIN)));
    assert_eq!(fold("f32", "0.5 * 3"), Ok(Value::F32(1.5)));
    assert_eq!(fold("f64", "1.0 / 4"), Ok(Value::F64(0.25)));
    assert_eq!(fold("f64", "sqrt(16.0) + fabs(-1.5)"), Ok(Value::F64(5.5)));
    assert_eq!(fold("f64", "7.5 % 2"), Ok(Value::F64(1.5)));
    assert_eq!(fold("i32", "2.9 as i32"), Ok(Value::I32(2)));
    assert_eq!(fold("f32", "(1 as f32) / 3"), Ok(Value::F32(1.0 / 3.0)));
    assert_eq!(fold("bool", "1 < 2 && !(3 == 4)"), Ok(Value::Bool(true)));
    assert_eq!(fold("u32", "true ? 4 : 5"), Ok(Value::U32(4)));
    assert_eq!(fold("node", "10"), Ok(Value::U32(10)));
    assert_eq!(
        fold("i64", "abs(-9223372036854775807)"),
        Ok(Value::I64(i64::MAX))
    );
    assert_eq!(fold("f64", "1.0 / 0.0"), Ok(Value::F64(f64::INFINITY)));
}

#[test]
fn constant_folding_errors() {
    assert_eq!(fold("u32", "-1"), Err(vec!["E0203"]));
    assert_eq!(fold("i32", "2147483648"), Err(vec!["E0203"]));
    assert_eq!(fold("u32", "0 - 1"), Err(vec!["E0402"]));
    assert_eq!(fold("i32", "2147483647 + 1"), Err(vec!["E0402"]));
    assert_eq!(fold("u64", "0xffffffffffffffff * 2"), Err(vec!["E0402"]));
    assert_eq!(fold("i32", "1 / 0"), Err(vec!["E0402"]));
    assert_eq!(fold("u32", "1 << 32"), Err(vec!["E0402"]));
    assert_eq!(fold("i32", "1e10 as i32"), Err(vec!["E0402"]));
    assert_eq!(fold("f32", "1e39"), Err(vec!["E0203"]));
    assert_eq!(fold("u32", "1.5"), Err(vec!["E0201"]));
    assert_eq!(fold("bool", "1"), Err(vec!["E0201"]));
}

#[test]
fn consts_may_refer_to_later_consts() {
    let c = Checked::new(
        "graph g { node x: u32; }\nconst B: u32 = A * 2;\nconst A: u32 = 21;\n\
         param p: u32 = B + 1;\nglobal q: i64 = -B as i64;\nmain { g.x[0] = p; }\n",
    );
    assert!(c.codes().contains(&"E0204"), "{}", c.render());
    let c = Checked::new(
        "graph g { node x: u32; }\nconst B: u32 = A * 2;\nconst A: u32 = 21;\n\
         param p: u32 = B + 1;\nglobal q: i64 = -(B as i64);\nmain { g.x[0] = p; }\n",
    );
    c.assert_clean();
    assert_eq!(c.info.consts[0].value, Some(Value::U32(42)));
    assert_eq!(c.info.params[0].default, Some(Value::U32(43)));
    assert_eq!(c.info.globals[0].init, Some(Value::I64(-42)));
}

#[test]
fn warnings_for_unused_locals_and_kernels() {
    let c = Checked::new(
        "graph g { node x: u32; }\nKernel k(graph g) { ForAll (n In g.nodes) { g.x[n] = 1; } }\n\
         main { let unused = 1; let _fine = 2; }\n",
    );
    assert_eq!(c.codes(), vec!["W0002", "W0001"]);
    assert!(!irgl_check::has_errors(&c.diagnostics));
}

#[test]
fn recovered_programs_do_not_cascade() {
    // The `const` fails to parse; its uses are not reported again.
    let src = "graph g { node x: u32; }\nconst INF: u32 = ;\n\
               Kernel k(graph g) { ForAll (n In g.nodes) { g.x[n] = INF; } }\nmain { Invoke k(g); }\n";
    let (program, parse) = irgl_syntax::parse(FileId(0), src);
    assert!(!parse.is_empty());
    let (_, diags) = check(&program);
    assert!(diags.is_empty(), "{diags:?}");
}

/// No input, however broken, makes the checker panic: every prefix of every corpus file and
/// example program is parsed (with recovery) and checked.
#[test]
fn never_panics_on_truncated_programs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["tests/fail", "programs"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            files.extend(entries.filter_map(Result::ok).map(|e| e.path()));
        }
    }
    for path in files {
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        for cut in (0..src.len())
            .step_by(5)
            .filter(|&i| src.is_char_boundary(i))
        {
            let (program, _) = irgl_syntax::parse(FileId(0), &src[..cut]);
            let _ = check(&program);
        }
    }
}

#[test]
fn program_ids_are_covered() {
    // Every expression of a clean program has a type that is not an error.
    let c = Checked::new(BFS);
    let mut copy = c.program.clone();
    let mut exprs = Vec::new();
    irgl_syntax::visit::walk_program_mut(&mut copy, &mut |slot| {
        if let Slot::Node { id, .. } = slot {
            exprs.push(*id);
        }
    });
    let typed = exprs
        .iter()
        .filter(|id| c.info.expr_types.contains_key(id))
        .count();
    assert!(typed > 20);
    assert!(c.info.expr_types.values().all(|t| *t != Ty::Error));
}
