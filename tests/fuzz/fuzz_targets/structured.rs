//! Structured programs: the fuzzer's bytes drive a grammar-aware generator (`arbitrary`) that
//! writes IrGL with the shape of real programs: a graph with properties, several kernels with
//! nested `ForAll`s, `if`/`while`/`for`, atomics, `Atomic` blocks, worklist pushes and
//! reductions, and a `main` of `Invoke`, `Iterate` and nested `Pipe`s; nesting down to past the
//! nesting limit, many kernels, long identifiers. Most generated programs are well typed, so
//! that they go past the checker: each is compiled to CUDA under an option set that the bytes
//! choose, with the IR verified after every pass. Nothing may panic, and what formats must
//! parse back to the same tree.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use irgl_diagnostics::{Diagnostic, FileId};
use libfuzzer_sys::fuzz_target;

/// Option sets the compile step picks from.
const OPTION_SETS: &[&[&str]] = &[
    &[],
    &["--nested", "tb"],
    &["--nested", "wp"],
    &["--nested", "fg"],
    &["--nested", "tb+wp+fg"],
    &["--nested", "vw4+eb"],
    &["--nested", "tb+serial", "--block-size", "128"],
    &["--aggregate", "warp"],
    &["--aggregate", "thread"],
    &["--nested", "tb+fg", "--aggregate", "block"],
    &["--nested", "tb+wp+fg", "--aggregate", "block"],
    &["--outline", "outer"],
    &["--nested", "tb+fg", "--aggregate", "block", "--outline", "outer"],
];

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    out: String,
    /// Node and u32 locals in scope: (name, is_node).
    locals: Vec<(String, bool)>,
    /// Names of properties (all `node ... : u32`, plus `lk: lock`).
    props: Vec<String>,
    fresh: u32,
    /// How deep statements may still nest (decided once per program).
    budget: u32,
    in_worklist_kernel: bool,
    has_reduce: bool,
}

impl Gen<'_, '_> {
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        *self.u.choose(items).unwrap_or(&items[0])
    }

    fn int(&mut self, lo: u32, hi: u32) -> u32 {
        self.u.int_in_range(lo..=hi).unwrap_or(lo)
    }

    fn flag(&mut self) -> bool {
        bool::arbitrary(self.u).unwrap_or(false)
    }

    fn name(&mut self, stem: &str) -> String {
        self.fresh += 1;
        // Sometimes a long identifier.
        if self.int(0, 40) == 0 {
            let len = self.int(64, 4000) as usize;
            format!("{stem}{}_{}", "x".repeat(len), self.fresh)
        } else {
            format!("{stem}{}", self.fresh)
        }
    }

    /// A u32 expression; `depth` bounds operator nesting (occasionally past the limit).
    fn expr(&mut self, depth: u32) -> String {
        let nodes: Vec<String> = self
            .locals
            .iter()
            .filter(|(_, node)| *node)
            .map(|(n, _)| n.clone())
            .collect();
        let plain: Vec<String> = self
            .locals
            .iter()
            .filter(|(_, node)| !*node)
            .map(|(n, _)| n.clone())
            .collect();
        let choice = if depth == 0 {
            self.int(0, 3)
        } else {
            self.int(0, 9)
        };
        match choice {
            0 => self.int(0, 1 << 20).to_string(),
            1 if !plain.is_empty() => self.pick_str(&plain),
            2 if !nodes.is_empty() && !self.props.is_empty() => {
                let n = self.pick_str(&nodes);
                let p = self.pick_str(&self.props.clone());
                format!("g.{p}[{n}]")
            }
            3 if !nodes.is_empty() => {
                let n = self.pick_str(&nodes);
                format!("g.degree({n})")
            }
            4..=6 => {
                let op = self.pick(&["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]);
                let a = self.expr(depth - 1);
                let b = self.expr(depth - 1);
                format!("({a} {op} {b})")
            }
            7 => {
                let c = self.cond(depth - 1);
                let a = self.expr(depth - 1);
                let b = self.expr(depth - 1);
                format!("({c} ? {a} : {b})")
            }
            8 => {
                let a = self.expr(depth - 1);
                format!("min({a}, {})", self.int(0, 100))
            }
            9 => {
                // A long left-leaning chain: the shape that overflowed the stack.
                let len = self.int(1, 400);
                let mut s = self.expr(0);
                for _ in 0..len {
                    s.push_str(" + 1");
                }
                s
            }
            _ => "g.nnodes".to_string(),
        }
    }

    fn pick_str(&mut self, items: &[String]) -> String {
        self.u.choose(items).cloned().unwrap_or_else(|_| items[0].clone())
    }

    fn cond(&mut self, depth: u32) -> String {
        match self.int(0, 3) {
            0 => "true".to_string(),
            1 => {
                let op = self.pick(&["==", "!=", "<", "<=", ">", ">="]);
                let a = self.expr(depth);
                let b = self.expr(depth);
                format!("{a} {op} {b}")
            }
            2 if depth > 0 => {
                let op = self.pick(&["&&", "||"]);
                let a = self.cond(depth - 1);
                let b = self.cond(depth - 1);
                format!("({a} {op} {b})")
            }
            _ => format!("!({} == 0)", self.expr(depth)),
        }
    }

    fn line(&mut self, indent: usize, text: &str) {
        self.out.push_str(&"  ".repeat(indent.min(40)));
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// Statements of a ForAll body over node `n`.
    fn body(&mut self, indent: usize, depth: u32) {
        let count = self.int(1, 4);
        for _ in 0..count {
            if self.u.is_empty() {
                return;
            }
            self.stmt(indent, depth);
        }
    }

    fn stmt(&mut self, indent: usize, depth: u32) {
        let nodes: Vec<String> = self
            .locals
            .iter()
            .filter(|(_, node)| *node)
            .map(|(n, _)| n.clone())
            .collect();
        let node = if nodes.is_empty() {
            "0".to_string()
        } else {
            self.pick_str(&nodes)
        };
        let deep = depth < self.budget;
        let choice = if deep { self.int(0, 11) } else { self.int(0, 4) };
        match choice {
            0 | 1 => {
                let p = self.pick_str(&self.props.clone());
                let e = self.expr(3);
                self.line(indent, &format!("g.{p}[{node}] = {e};"));
            }
            2 => {
                let v = self.name("t");
                let e = self.expr(3);
                self.line(indent, &format!("let {v}: u32 = {e};"));
                self.locals.push((v, false));
            }
            3 => {
                let p = self.pick_str(&self.props.clone());
                let f = self.pick(&["atomicAdd", "atomicMin", "atomicMax"]);
                let e = self.expr(2);
                self.line(indent, &format!("{f}(g.{p}[{node}], {e});"));
            }
            4 if self.in_worklist_kernel => {
                self.line(indent, &format!("WL.push({node});"));
            }
            4 if self.has_reduce => {
                let c = self.cond(2);
                self.line(indent, &format!("ReduceAndReturn {c};"));
            }
            5 | 6 => {
                let c = self.cond(2);
                self.line(indent, &format!("if ({c}) {{"));
                self.nested(indent, depth);
                if self.flag() {
                    self.line(indent, "} else {");
                    self.nested(indent, depth);
                }
                self.line(indent, "}");
            }
            7 => {
                let e = self.name("e");
                self.line(indent, &format!("ForAll ({e} In g.edges({node})) {{"));
                let d = self.name("d");
                self.line(indent + 1, &format!("let {d} = g.dst({e});"));
                let mark = self.locals.len();
                self.locals.push((d, true));
                self.body(indent + 1, depth + 1);
                self.locals.truncate(mark);
                self.line(indent, "}");
            }
            8 => {
                let i = self.name("i");
                let hi = self.int(0, 8);
                self.line(indent, &format!("for (let {i}: u32 = 0; {i} < {hi}; {i} += 1) {{"));
                let mark = self.locals.len();
                self.locals.push((i, false));
                self.body(indent + 1, depth + 1);
                self.locals.truncate(mark);
                self.line(indent, "}");
            }
            9 => {
                self.line(indent, "{");
                self.nested(indent, depth);
                self.line(indent, "}");
            }
            10 => {
                // A run of nested blocks, sometimes past the nesting limit.
                let n = self.int(1, 300) as usize;
                let p = self.pick_str(&self.props.clone());
                self.line(
                    indent,
                    &format!("{}g.{p}[{node}] = 1;{}", "{ ".repeat(n), " }".repeat(n)),
                );
            }
            11 => {
                self.line(indent, &format!("Atomic (g.lk[{node}]) {{"));
                let p = self.pick_str(&self.props.clone());
                let e = self.expr(2);
                self.line(indent + 1, &format!("g.{p}[{node}] = {e};"));
                self.line(indent, "}");
            }
            _ => {
                let p = self.pick_str(&self.props.clone());
                self.line(indent, &format!("g.{p}[{node}] += 1;"));
            }
        }
    }

    fn nested(&mut self, indent: usize, depth: u32) {
        let mark = self.locals.len();
        self.body(indent + 1, depth + 1);
        self.locals.truncate(mark);
    }

    fn program(&mut self) -> Option<String> {
        self.budget = self.int(1, 12);
        if self.int(0, 30) == 0 {
            self.budget = self.int(200, 300);
        }
        let nprops = self.int(1, 4);
        self.line(0, "graph g {");
        for _ in 0..nprops {
            let p = self.name("p");
            self.line(1, &format!("node {p}: u32;"));
            self.props.push(p);
        }
        self.line(1, "node lk: lock;");
        self.line(0, "}");
        self.line(0, "param src: node = 0;");
        let first = self.props[0].clone();
        self.line(0, &format!("output {first};"));

        // Kernels: (name, kind) with kind 0 = topology, 1 = worklist, 2 = reduction.
        let nkernels = if self.int(0, 20) == 0 {
            self.int(20, 200)
        } else {
            self.int(1, 4)
        };
        let mut kernels = Vec::new();
        for _ in 0..nkernels {
            let name = self.name("k");
            let kind = self.int(0, 2);
            self.in_worklist_kernel = kind == 1;
            self.has_reduce = kind == 2;
            self.line(0, &format!("Kernel {name}(graph g) {{"));
            let n = self.name("n");
            if kind == 1 {
                let i = self.name("i");
                self.line(1, &format!("ForAll ({i} In WL) {{"));
                self.line(2, &format!("let {n} = WL.pop({i});"));
            } else {
                self.line(1, &format!("ForAll ({n} In g.nodes) {{"));
            }
            self.locals = vec![(n, true)];
            self.body(2, 0);
            if kind == 2 {
                let c = self.cond(1);
                self.line(2, &format!("ReduceAndReturn {c};"));
            }
            self.line(1, "}");
            self.line(0, "}");
            kernels.push((name, kind));
        }

        self.line(0, "main {");
        let pipes = if self.int(0, 20) == 0 {
            self.int(1, 300)
        } else {
            self.int(0, 2)
        };
        for _ in 0..pipes {
            self.line(1, "Pipe {");
        }
        for (name, kind) in kernels.clone() {
            match kind {
                0 => self.line(1, &format!("Invoke {name}(g);")),
                1 if pipes > 0 => self.line(1, &format!("Iterate {name}(g);")),
                1 => self.line(1, &format!("Iterate {name}(g) Initial [src];")),
                _ => self.line(1, &format!("Iterate While Any {name}(g);")),
            }
        }
        for _ in 0..pipes {
            self.line(1, "}");
        }
        self.line(0, "}");
        Some(std::mem::take(&mut self.out))
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let set = u.choose_index(OPTION_SETS.len()).unwrap_or(0);
    let mut generator = Gen {
        u: &mut u,
        out: String::new(),
        locals: Vec::new(),
        props: Vec::new(),
        fresh: 0,
        budget: 0,
        in_worklist_kernel: false,
        has_reduce: false,
    };
    let Some(src) = generator.program() else {
        return;
    };

    let (program, diags) = irgl_syntax::parse(FileId(0), &src);
    if diags.iter().any(Diagnostic::is_error) {
        return;
    }
    let (_, diags) = irgl_check::check(&program);
    if diags.iter().any(Diagnostic::is_error) {
        return;
    }
    // Formatting keeps the tree.
    let formatted = irgl_syntax::print::format_source(FileId(0), &src).expect("parsed once");
    let (mut again, diags) = irgl_syntax::parse(FileId(0), &formatted);
    assert!(diags.is_empty(), "formatted text does not parse:\n{formatted}");
    let mut original = program;
    original.erase_locations();
    again.erase_locations();
    assert_eq!(original, again, "formatting changed the program:\n{formatted}");

    // The whole pipeline, IR verified after each pass.
    let config = irgl_driver::OptConfig::from_args(OPTION_SETS[set]).expect("a valid option set");
    let source = irgl_driver::Source {
        file: FileId(0),
        name: "fuzz.irgl",
        text: &src,
    };
    let mut trace = irgl_driver::Trace {
        verify: true,
        ..irgl_driver::Trace::default()
    };
    // Options may not apply to a program: an error is fine, a panic is not.
    let _ = irgl_driver::compile_traced(source, &config, &mut trace);
});
