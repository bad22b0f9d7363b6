//! The nesting limit (`irgl_syntax::MAX_NESTING`, E0010), end to end: a program nested exactly
//! to the limit goes through every stage (parse, check, lower, passes, CUDA) on a thread of
//! `irgl_driver::STACK_BYTES` in a debug build; one level more is rejected with E0010 at a
//! location, and far more is rejected on a test thread's default stack (2 MiB).
//!
//! Each shape below nests one construct `n` times and says at which `n` the program is exactly
//! `MAX_NESTING` levels deep, counting as `irgl_syntax::depth` does (statements and expressions;
//! blocks and parentheses add none), or, for parentheses, brackets `MAX_BRACKETS` deep.

mod common;

use irgl_diagnostics::SourceMap;
use irgl_driver::Source;
use irgl_syntax::{MAX_BRACKETS, MAX_NESTING};

const GRAPH: &str = "graph g {\n  node x: u32;\n}\n\n";
const MAIN: &str = "\nmain {\n  Invoke k(g);\n}\n";

/// A kernel whose outer `ForAll` (level 1) holds `body`.
fn kernel(body: &str) -> String {
    format!("{GRAPH}Kernel k(graph g) {{\n  ForAll (n In g.nodes) {{\n{body}\n  }}\n}}\n{MAIN}")
}

struct Shape {
    name: &'static str,
    source: fn(u32) -> String,
    /// The `n` at which the program is exactly `MAX_NESTING` levels deep.
    at_limit: u32,
}

fn shapes() -> Vec<Shape> {
    let m = MAX_NESTING;
    vec![
        // ForAll 1, blocks 2..=n+1, the assignment n+2, `g.x[n]` n+3, its `n` n+4.
        Shape {
            name: "blocks",
            source: |n| {
                kernel(&format!(
                    "{}g.x[n] = 1;{}",
                    "{".repeat(n as usize),
                    "}".repeat(n as usize)
                ))
            },
            at_limit: m - 4,
        },
        // The same with `if (true)` before each block: the condition is one level below the `if`.
        Shape {
            name: "ifs",
            source: |n| {
                kernel(&format!(
                    "{}g.x[n] = 1;{}",
                    "if (true) {".repeat(n as usize),
                    "}".repeat(n as usize)
                ))
            },
            at_limit: m - 4,
        },
        // `if` 2, each `else if` one deeper, the last condition n+3.
        Shape {
            name: "else-ifs",
            source: |n| {
                kernel(&format!(
                    "if (true) {{}}{}",
                    " else if (true) {}".repeat(n as usize)
                ))
            },
            at_limit: m - 3,
        },
        // Assignment 2, n additions 3..=n+2, the innermost operand n+3.
        Shape {
            name: "sum",
            source: |n| kernel(&format!("g.x[n] = 1{};", " + 1".repeat(n as usize))),
            at_limit: m - 3,
        },
        // Assignment 2, n right-nested `?:` 3..=n+2, their operands n+3.
        Shape {
            name: "ternaries",
            source: |n| kernel(&format!("g.x[n] = {}2;", "true ? 1 : ".repeat(n as usize))),
            at_limit: m - 3,
        },
        // Parentheses are no level, but brackets nest at most MAX_BRACKETS deep: the kernel's
        // and the ForAll's braces, then n parentheses.
        Shape {
            name: "parentheses",
            source: |n| {
                kernel(&format!(
                    "g.x[n] = {}1{};",
                    "(".repeat(n as usize),
                    ")".repeat(n as usize)
                ))
            },
            at_limit: MAX_BRACKETS - 2,
        },
        // `let` 2, n negations 3..=n+2, the literal n+3.
        Shape {
            name: "negations",
            source: |n| {
                kernel(&format!(
                    "let y: i32 = {}1;\ng.x[n] = y as u32;",
                    "- ".repeat(n as usize)
                ))
            },
            at_limit: m - 3,
        },
        // Assignment 2, n casts 3..=n+2, the literal n+3.
        Shape {
            name: "casts",
            source: |n| kernel(&format!("g.x[n] = 1{};", " as u32".repeat(n as usize))),
            at_limit: m - 3,
        },
        // ForAll 1, nested ForAlls 2..=n+1 (each `g.edges(n)` one below), the assignment n+2,
        // `g.x[n]` n+3, `n` n+4.
        Shape {
            name: "foralls",
            source: |n| {
                let opens: String = (0..n)
                    .map(|i| format!("ForAll (e{i} In g.edges(n)) {{"))
                    .collect();
                kernel(&format!("{opens}g.x[n] = 1;{}", "}".repeat(n as usize)))
            },
            at_limit: m - 4,
        },
        // Pipes 1..=n in `main`, the `Invoke` n+1, its argument n+2.
        Shape {
            name: "pipes",
            source: |n| {
                format!(
                    "{GRAPH}Kernel k(graph g) {{\n  ForAll (n In g.nodes) {{\n    g.x[n] = 1;\n  }}\n}}\n\nmain {{\n{}Invoke k(g);{}\n}}\n",
                    "Pipe {".repeat(n as usize),
                    "}".repeat(n as usize)
                )
            },
            at_limit: m - 2,
        },
    ]
}

fn compile(text: &str, flags: &str) -> Result<String, Vec<irgl_diagnostics::Diagnostic>> {
    let mut sources = SourceMap::new();
    let file = sources.add("deep.irgl".to_string(), text.to_string());
    let source = Source {
        file,
        name: "deep.irgl",
        text,
    };
    irgl_driver::compile(source, &common::config(flags)).map(|c| c.cuda)
}

#[test]
fn programs_at_the_limit_compile_and_one_level_more_is_e0010() {
    std::thread::Builder::new()
        .stack_size(irgl_driver::STACK_BYTES)
        .spawn(at_the_limit)
        .expect("a thread")
        .join()
        .expect("no panic");
}

fn at_the_limit() {
    for shape in shapes() {
        let name = shape.name;
        let at_limit = (shape.source)(shape.at_limit);
        for flags in ["", "--nested tb+wp+fg"] {
            if let Err(diags) = compile(&at_limit, flags) {
                panic!("{name} at the limit ({flags}): {diags:?}");
            }
        }
        let past = (shape.source)(shape.at_limit + 1);
        let diags = compile(&past, "").expect_err(name);
        assert_eq!(diags.len(), 1, "{name}: {diags:?}");
        assert_eq!(diags[0].code, "E0010", "{name}: {diags:?}");
        let span = diags[0].span().expect("located");
        assert!((span.start as usize) < past.len(), "{name}: {span:?}");
        let message = if name == "parentheses" {
            format!("brackets nested deeper than {MAX_BRACKETS} levels")
        } else {
            format!("nesting deeper than {MAX_NESTING} levels")
        };
        assert_eq!(diags[0].message, message, "{name}");
    }
}

/// Far past the limit (the inputs of the hostile-input report among them): rejected before any
/// stage recurses, so on a test thread's default stack.
#[test]
fn far_past_the_limit_is_e0010_not_a_stack_overflow() {
    for shape in shapes() {
        let text = (shape.source)(20_000);
        let diags = compile(&text, "").expect_err(shape.name);
        assert!(
            diags.iter().any(|d| d.code == "E0010"),
            "{}: {diags:?}",
            shape.name
        );
    }
    // Unclosed and unbalanced: error recovery never sees a parse stack past the limit.
    for text in [
        kernel(&"if (true) {".repeat(100_000)),
        kernel(&format!("g.x[n] = {} $;", "1 +".repeat(100_000))),
        kernel(&format!("g.x[n] = {} 1 1;", "1 +".repeat(100_000))),
        kernel(&format!(
            "{}1 1;{}",
            "if (true) {".repeat(100_000),
            "}".repeat(100_000)
        )),
    ] {
        let diags = compile(&text, "").expect_err("rejected");
        assert!(diags.iter().any(|d| d.code == "E0010"), "{diags:?}");
    }
}
