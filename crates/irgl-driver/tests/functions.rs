//! Functions are inlined before the passes run, so every analysis sees what a call does;
//! `return`s leave by the plan of the lowering (falling off, a guard's `else`, a `break`,
//! a `done` flag); an argument never reads the parameter that shadows it. Program-level
//! arrays are allocated when the program starts, from their length expressions, and checked
//! like properties.

mod common;

const MONOTONE: &str = r#"
graph g { node level: u32; node hits: u32; }
const INF: u32 = 0xffffffff;
output level;

Function touch(graph g, node n) {
  atomicAdd(g.hits[n], 1);
}

Kernel init(graph g) {
  ForAll (n In g.nodes) {
    g.level[n] = INF;
  }
}

Kernel relax(graph g) {
  ForAll (wi In WL) {
    let n = WL.pop(wi);
    CALL
    ForAll (e In g.edges(n)) {
      let d = g.dst(e);
      if (g.level[n] + 1 < atomicMin(g.level[d], g.level[n] + 1)) {
        WL.push(d);
      }
    }
  }
}

main {
  Invoke init(g);
  g.level[0] = 0;
  Iterate relax(g) Initial [0];
}
"#;

#[test]
fn what_a_function_does_counts_for_the_kernel_that_calls_it() {
    let config = common::config("--nested serial --async all");
    let without = common::compile_text("m.irgl", &MONOTONE.replace("CALL", ""), &config);
    let relax = |c: &irgl_driver::Compiled| {
        c.module
            .kernels
            .iter()
            .find(|(_, k)| k.name == "relax")
            .map(|(_, k)| k.asynchronous.is_some())
            .unwrap()
    };
    assert!(
        relax(&without),
        "a monotone worklist kernel runs asynchronously"
    );
    let with = common::compile_text("m.irgl", &MONOTONE.replace("CALL", "touch(g, n);"), &config);
    assert!(
        !relax(&with),
        "the atomicAdd inside `touch` makes `relax` order-dependent"
    );
}

#[test]
fn returns_leave_as_the_plan_says() {
    let c = common::compile(
        "tests/gpu/functions.irgl",
        &common::config("--nested serial"),
    );
    let k = common::kernels(&c.cuda);
    // find: the return in the loop that ends the body is a break, no flag, no wrapper.
    assert!(k.contains("a = find_a;"), "{k}");
    assert!(!k.contains("irgl_find_done"), "{k}");
    // first_heavy: returns from two loops deep set the flag, tested after each loop.
    assert!(k.contains("bool irgl_first_heavy_done"), "{k}");
    assert!(k.matches("if (irgl_first_heavy_done").count() >= 2, "{k}");
    // clamp: early returns become guards (if/else), no loop around the body.
    let clamp = &k[k.find("irgl_clamp").unwrap()..];
    let clamp = &clamp[..clamp.find("\n    }\n").unwrap()];
    assert!(clamp.contains("} else {"), "{clamp}");
    assert!(!clamp.contains("while (true)"), "{clamp}");
}

#[test]
fn an_argument_never_reads_the_parameter_that_shadows_it() {
    let text = r#"
graph g { node level: u32; }
output level;

Function twice(u32 a): u32 {
  let b = a * 2;
  return b;
}

Kernel k(graph g) {
  ForAll (n In g.nodes) {
    let a = n + 1;
    let b = twice(a);
    g.level[n] = twice(b);
  }
}

main {
  Invoke k(g);
}
"#;
    let c = common::compile_text("s.irgl", text, &common::config("--nested serial"));
    let k = common::kernels(&c.cuda);
    assert!(k.contains("uint32_t twice_a = a;"), "{k}");
    assert!(k.contains("uint32_t twice_b = twice_a * 2u;"), "{k}");
    // The result goes to the caller's `b`, declared before the call's block; the second
    // call reads it as its argument.
    assert!(
        k.contains("uint32_t b = 0u;\n    {\n      uint32_t twice_a = a;"),
        "{k}"
    );
    assert!(k.contains("      b = twice_b;\n"), "{k}");
    assert!(k.contains("uint32_t twice_a = b;"), "{k}");
    assert!(
        !k.contains("uint32_t a = a;") && !k.contains("uint32_t b = b;"),
        "{k}"
    );
}

#[test]
fn arrays_are_allocated_when_the_program_starts_and_checked_like_properties() {
    let c = common::compile("tests/gpu/arrays.irgl", &common::config("--nested serial"));
    let cu = &c.cuda;
    assert!(cu.contains("  allocate_arrays(h);\n"), "{cu}");
    assert!(cu.contains("const uint64_t n = static_cast<uint64_t>(h_params.buckets);"));
    assert!(
        cu.contains("const uint64_t n = static_cast<uint64_t>(h.hg.nnodes);"),
        "{cu}"
    );
    assert!(cu.contains("  uint64_t hist_len;\n"));
    assert!(!cu.contains("irgl::checked_index"), "unchecked by default");
    let c = common::compile(
        "tests/gpu/arrays.irgl",
        &common::config("--nested serial --check-indices on"),
    );
    assert!(c.cuda.contains("g.count_len, &irgl_error"), "{}", c.cuda);
    assert!(
        c.cuda
            .contains("index out of range of the array `count` in kernel `count_keys`")
    );
}
