//! `backoff_retries` through the pipeline: which kernels `--retry-backoff` gives backoff,
//! which launches become retry rounds with it, the generated chunked loops and launches (on
//! the host and in a control kernel), and the errors of a bad `--retry-backoff`.

mod common;

use irgl_ir::{Backoff, Chunk, Module, StmtKind, visit};

/// The launches of kernel `name` in `main`, each with whether it is a retry round with backoff.
fn launches(m: &Module, name: &str) -> Vec<bool> {
    let k = m.kernel_named(name).unwrap();
    let mut out = Vec::new();
    visit::walk_stmts(&m.host, &m.host.block, &mut |s| {
        if let StmtKind::Launch(l) = &m.host.stmts[s].kind
            && l.kernel == k
        {
            out.push(l.backoff);
        }
    });
    out
}

#[test]
fn the_retry_rounds_of_a_kernel_with_retry_get_backoff() {
    let c = common::compile(
        "programs/dmr.irgl",
        &common::config("--retry-backoff all --backoff-chunk 8 --backoff-serial-below 100"),
    );
    let m = &c.module;
    let refine = m.kernel_named("refine").unwrap();
    assert_eq!(
        m.kernels[refine].backoff,
        Some(Backoff {
            chunk: Chunk::Items(8),
            serial_below: 100
        })
    );
    // find_bad has no Retry.
    assert_eq!(m.kernels[m.kernel_named("find_bad").unwrap()].backoff, None);
    // The round's own launch strides; the one after `wl.swap retry` hands out chunks.
    assert_eq!(launches(m, "refine"), vec![false, true]);
    let cuda = &c.cuda;
    for line in [
        "refine(G m, irgl::Worklist irgl_in, irgl::Worklist irgl_out, irgl::Worklist irgl_retry, uint32_t irgl_chunk) {",
        "const uint32_t irgl_chunks0 = irgl::chunks_of(irgl_size0, irgl_chunk);",
        "for (uint32_t wi = irgl_first0; wi < irgl_end0; ++wi) {",
        "static void launch_refine(Host& h, bool irgl_backoff) {",
        "const uint32_t irgl_chunk = irgl_backoff ? irgl::backoff_chunk(irgl_items, 8u, 100u, static_cast<uint64_t>(h.grid_cap) * BLOCK) : 1u;",
        "refine<<<blocks_for(h, irgl::chunks_of(irgl_items, irgl_chunk)), BLOCK>>>",
        "launch_refine(h, false);",
        "launch_refine(h, true);  // with backoff",
    ] {
        assert!(cuda.contains(line), "missing `{line}` in\n{cuda}");
    }
    // With every launch, the round's own launch too; the chunk is the grid's by default.
    let every = common::compile(
        "programs/dmr.irgl",
        &common::config("--retry-backoff all --backoff-rounds all"),
    );
    assert_eq!(launches(&every.module, "refine"), vec![true, true]);
    assert!(
        every.cuda.contains(
            "irgl::backoff_chunk(irgl_items, irgl::kChunkAuto, 32u, static_cast<uint64_t>(h.grid_cap) * BLOCK)"
        ),
        "{}",
        every.cuda
    );
    // Naming the kernel does the same.
    let named = common::compile(
        "programs/dmr.irgl",
        &common::config("--retry-backoff refine --backoff-chunk 8 --backoff-serial-below 100"),
    );
    assert_eq!(
        named.cuda,
        c.cuda
            .replace("--retry-backoff all", "--retry-backoff refine")
    );
}

#[test]
fn all_leaves_programs_without_retry_as_they_are() {
    for program in ["programs/bfs.irgl", "programs/sssp-nf.irgl"] {
        let plain = common::compile(program, &common::config(""));
        let c = common::compile(program, &common::config("--retry-backoff all"));
        assert!(c.module.kernels.iter().all(|(_, k)| k.backoff.is_none()));
        assert_eq!(
            common::kernels(&c.cuda),
            common::kernels(&plain.cuda),
            "{program}"
        );
    }
}

#[test]
fn a_uniform_outer_loop_takes_its_chunk_in_uniform_trips() {
    let c = common::compile(
        "tests/gpu/retry-nested.irgl",
        &common::config("--nested tb+fg --aggregate block --retry-backoff all"),
    );
    let cuda = &c.cuda;
    for line in [
        "const uint64_t irgl_chunks0 = irgl::chunks_of(irgl_total0, irgl_chunk);",
        "for (uint64_t irgl_base0 = 0; irgl_base0 < irgl_chunks0; irgl_base0 += static_cast<uint64_t>(blockDim.x) * gridDim.x) {",
        "for (uint32_t irgl_k0 = 0; irgl_k0 < irgl_chunk; ++irgl_k0) {",
        "const uint64_t irgl_i0 = (irgl_base0 + blockIdx.x * blockDim.x + threadIdx.x) * irgl_chunk + irgl_k0;",
        "touch<<<blocks_all(irgl::chunks_of(irgl_items, irgl_chunk)), BLOCK>>>",
    ] {
        assert!(cuda.contains(line), "missing `{line}` in\n{cuda}");
    }
}

#[test]
fn a_control_kernel_chooses_the_chunk_of_its_retry_rounds() {
    let c = common::compile(
        "tests/gpu/retry-nested.irgl",
        &common::config("--outline outer --retry-backoff all"),
    );
    let cuda = &c.cuda;
    assert!(
        cuda.contains("irgl_dev_touch(g, irgl_in, irgl_out, irgl_retry, 1u);"),
        "{cuda}"
    );
    assert!(
        cuda.contains(
            "irgl_dev_touch(g, irgl_in, irgl_out, irgl_retry, irgl::backoff_chunk(irgl_in.size(), irgl::kChunkAuto, 32u, static_cast<uint64_t>(gridDim.x) * blockDim.x));"
        ),
        "{cuda}"
    );
}

#[test]
fn a_bad_retry_backoff_is_an_error_that_says_why() {
    let e = common::errors("programs/dmr.irgl", "--retry-backoff refin");
    assert_eq!(e[0].code, "E0510");
    assert!(e[0].message.contains("no kernel `refin`"), "{e:?}");
    assert!(
        e[0].notes.iter().any(|n| n.contains("find_bad, refine")),
        "{e:?}"
    );
    let e = common::errors("programs/dmr.irgl", "--retry-backoff find_bad");
    assert_eq!(e[0].code, "E0512");
    assert!(e[0].message.contains("it has no `Retry`"), "{e:?}");
    let e = common::errors("programs/sssp-nf.irgl", "--retry-backoff sssp_nf");
    assert_eq!(e[0].code, "E0512");
    assert!(e[0].message.contains("`Respawn`s are more work"), "{e:?}");
    // A monotone kernel whose Retry feeds its own asynchronous launch has no retry rounds.
    let retrying = "graph g { node dist: u32; }
        Kernel relax(graph g) {
          ForAll (wi In WL) {
            let n = WL.pop(wi);
            ForAll (e In g.edges(n)) {
              let d = g.dst(e);
              let nd = g.dist[n] + 1;
              if (atomicMin(g.dist[d], nd) > nd) { Retry d; }
            }
          }
        }
        main { Iterate relax(g) Initial [0]; }";
    let e = common::errors(retrying, "--async all --retry-backoff relax");
    assert_eq!(e[0].code, "E0512");
    assert!(e[0].message.contains("runs asynchronously"), "{e:?}");
    // With `all`, the asynchronous kernel is skipped.
    let c = common::compile_text(
        "inline.irgl",
        retrying,
        &common::config("--async all --retry-backoff all"),
    );
    assert!(c.module.kernels.iter().all(|(_, k)| k.backoff.is_none()));
}

#[test]
fn backoff_values_are_checked() {
    let e = irgl_driver::OptConfig::from_args(&["--retry-backoff", "all", "--backoff-chunk", "0"])
        .unwrap_err();
    assert!(e.contains("--backoff-chunk `0`: not a chunk"), "{e}");
    let e = common::errors("programs/dmr.irgl", "--backoff-chunk 8");
    assert!(
        e[0].message
            .contains("--backoff-chunk 8: applies only with --retry-backoff"),
        "{e:?}"
    );
    let e = common::errors("programs/dmr.irgl", "--backoff-serial-below 0");
    assert!(
        e[0].message.contains("applies only with --retry-backoff"),
        "{e:?}"
    );
    let e = common::errors("programs/dmr.irgl", "--backoff-rounds all");
    assert!(
        e[0].message.contains("applies only with --retry-backoff"),
        "{e:?}"
    );
    let c = irgl_driver::OptConfig::from_args(&[
        "--retry-backoff",
        "refine",
        "--backoff-chunk",
        "16",
        "--backoff-serial-below",
        "0",
        "--backoff-rounds",
        "all",
    ])
    .unwrap();
    assert_eq!(
        c.canonical(),
        "-O0 --block-size 256 --nested serial --retry-backoff refine --backoff-chunk 16 --backoff-serial-below 0 --backoff-rounds all"
    );
    assert_eq!(
        irgl_driver::OptConfig::from_args(&c.to_args()),
        Ok(c.clone())
    );
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains(r#""chunk":"16""#), "{json}");
    assert_eq!(
        serde_json::from_str::<irgl_driver::OptConfig>(&json).unwrap(),
        c
    );
}
