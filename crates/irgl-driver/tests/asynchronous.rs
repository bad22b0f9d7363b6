//! `run_asynchronously` through the pipeline: which kernels `--async` makes asynchronous,
//! what it removes from `main`, the generated claims, queue pushes and coherent loads, the
//! control kernel that calls an asynchronous kernel, and the errors of a bad `--async`.

mod common;

use irgl_ir::{Asynchrony, StmtKind, visit};

/// The number of re-invocation loops (`loop while wl.retry.size != 0`) left in `main`.
fn retry_loops(m: &irgl_ir::Module) -> usize {
    let mut n = 0;
    visit::walk_stmts(&m.host, &m.host.block, &mut |s| {
        if let StmtKind::Loop(l) = &m.host.stmts[s].kind
            && l.body
                .iter()
                .any(|&b| matches!(m.host.stmts[b].kind, StmtKind::WorklistSwap(_)))
            && l.body.len() == 2
        {
            n += 1;
        }
    });
    n
}

#[test]
fn respawns_feed_the_launch_and_its_reinvocation_loop_goes() {
    let before = common::compile("programs/sssp-nf.irgl", &common::config(""));
    assert_eq!(retry_loops(&before.module), 1);
    let c = common::compile("programs/sssp-nf.irgl", &common::config("--async all"));
    let m = &c.module;
    let k = m.kernel_named("sssp_nf").unwrap();
    assert_eq!(m.kernels[k].asynchronous, Some(Asynchrony::Respawns));
    // remove_dups stamps with atomicExch: not monotone, stays a round.
    let r = m.kernel_named("remove_dups").unwrap();
    assert_eq!(m.kernels[r].asynchronous, None);
    assert_eq!(retry_loops(m), 0);
    let cuda = &c.cuda;
    assert!(cuda.contains("irgl_queue.claim_block<BLOCK>"), "{cuda}");
    // Respawn to the queue, WL.push (far) to the output worklist.
    assert!(cuda.contains("irgl_queue.push(d);"), "{cuda}");
    assert!(cuda.contains("irgl_out.push(d);"), "{cuda}");
    // dist is read past L1: other blocks lower it while the kernel runs.
    assert!(
        cuda.contains("uint32_t dn = irgl::load_coherent(g.dist[n]);"),
        "{cuda}"
    );
    // One block per multiprocessor by default: idle blocks poll the queue.
    assert!(
        cuda.contains("sssp_nf<<<irgl::min_of(1u * h.sm_count, h.grid_cap), BLOCK>>>"),
        "{cuda}"
    );
    let resident = common::compile(
        "programs/sssp-nf.irgl",
        &common::config("--async all --async-grid resident"),
    );
    assert!(resident.cuda.contains("sssp_nf<<<h.grid_cap, BLOCK>>>"));
    assert!(
        irgl_driver::OptConfig::from_args(&["--async-grid", "2sm"])
            .unwrap()
            .validate()
            .is_err()
    );
    assert!(
        cuda.contains("h.queue.check_overflow(\"sssp_nf\");"),
        "{cuda}"
    );
    assert!(cuda.contains("h.queue.reset();"), "{cuda}");
}

#[test]
fn every_push_of_an_iterate_with_nothing_between_rounds_feeds_the_launch() {
    let c = common::compile("programs/sssp-wl.irgl", &common::config("--async all"));
    let k = c.module.kernel_named("sssp_wl").unwrap();
    assert_eq!(
        c.module.kernels[k].asynchronous,
        Some(Asynchrony::AllPushes)
    );
    assert!(c.cuda.contains("irgl_queue.push(d);"), "{}", c.cuda);
    assert!(!c.cuda.contains("irgl_out.push"), "{}", c.cuda);
    // The rounds of the Iterate stay in main: the first ends it (the output list is empty).
    assert!(c.cuda.contains("h.wl.swap();"), "{}", c.cuda);
    // bfs's Iterate counts LEVEL between rounds: --async all leaves it alone.
    let bfs = common::compile("programs/bfs.irgl", &common::config("--async all"));
    let plain = common::compile("programs/bfs.irgl", &common::config(""));
    assert!(
        bfs.module
            .kernels
            .iter()
            .all(|(_, k)| k.asynchronous.is_none())
    );
    assert_eq!(body_of(&bfs.cuda), body_of(&plain.cuda));
}

/// The generated file without its header (which names the options).
fn body_of(cuda: &str) -> &str {
    let at = cuda.find("#include").expect("an include");
    &cuda[at..]
}

#[test]
fn schedulers_and_block_aggregation_run_inside_the_claims() {
    let c = common::compile(
        "programs/sssp-wl.irgl",
        &common::config("--nested tb+fg --aggregate block --async all"),
    );
    let cuda = &c.cuda;
    assert!(cuda.contains("irgl_queue.claim_block<BLOCK>"), "{cuda}");
    // The block's pushes of a trip reserve their slots in the queue, once per block.
    assert!(
        cuda.contains("irgl_queue.reserve_block_one<BLOCK>"),
        "{cuda}"
    );
    assert!(cuda.contains("if (!irgl_active0) break;"), "{cuda}");
    insta::assert_snapshot!(kernel(cuda, "sssp_wl"));
}

/// The `__global__` kernel named `name`, up to its closing brace.
fn kernel<'a>(cuda: &'a str, name: &str) -> &'a str {
    let start = cuda
        .find(&format!("__launch_bounds__(BLOCK) {name}("))
        .expect("the kernel");
    let start = cuda[..start].rfind('\n').map_or(0, |i| i + 1);
    let end = start + cuda[start..].find("\n}\n").expect("its end") + 3;
    &cuda[start..end]
}

#[test]
fn an_outlined_loop_calls_the_asynchronous_kernel_and_stops_on_its_overflow() {
    let c = common::compile(
        "programs/bfs-wl.irgl",
        &common::config("--async all --outline outer --outline-grid sm"),
    );
    let cuda = &c.cuda;
    assert!(
        cuda.contains(
            "irgl::Worklist irgl_wl2, irgl::AsyncQueue irgl_queue, IrglState0* irgl_state"
        ),
        "{cuda}"
    );
    assert!(
        cuda.contains("irgl_dev_bfs_wl(g, irgl_in, irgl_out, irgl_retry, irgl_queue);"),
        "{cuda}"
    );
    assert!(cuda.contains("irgl_queue.overflowed()"), "{cuda}");
    assert!(
        cuda.contains("h.wl.retry().view(), h.queue.view(), irgl_sd.data());"),
        "{cuda}"
    );
    assert!(
        cuda.contains("if (irgl_s.stopped != 0u && irgl_s.stopped <= 1u) h.queue.check_overflow("),
        "{cuda}"
    );
}

#[test]
fn naming_a_kernel_that_cannot_is_an_error_with_the_reason() {
    let e = common::errors("programs/bfs.irgl", "--async bfs");
    assert_eq!(e[0].code, "E0511");
    assert!(e[0].message.contains("assigns `level`"), "{e:?}");
    let e = common::errors("programs/bfs.irgl", "--async init");
    assert_eq!(e[0].code, "E0511");
    assert!(e[0].message.contains("pops no worklist"), "{e:?}");
    let e = common::errors("programs/bfs.irgl", "--async bsf");
    assert_eq!(e[0].code, "E0510");
    assert!(format!("{:?}", e[0]).contains("init, bfs"), "{e:?}");
    // A named kernel that can.
    let c = common::compile("programs/sssp-nf.irgl", &common::config("--async sssp_nf"));
    assert!(c.cuda.contains("irgl_queue.claim_block"));
    assert!(irgl_driver::OptConfig::from_args(&["--async", "a,,b"]).is_err());
}

#[test]
fn with_async_local_a_thread_keeps_its_first_plain_push_as_its_next_item() {
    let on = common::compile(
        "programs/sssp-wl.irgl",
        &common::config("--async all --async-local on"),
    );
    assert!(
        on.cuda.contains(
            "if (!irgl_carry) { irgl_carry = true; irgl_next = d; } else { irgl_queue.push(d); }"
        ),
        "{}",
        on.cuda
    );
    let off = common::compile("programs/sssp-wl.irgl", &common::config("--async all"));
    assert!(!off.cuda.contains("irgl_next = d;"), "{}", off.cuda);
    assert!(off.cuda.contains("irgl_queue.push(d);"), "{}", off.cuda);
    // Aggregated pushes reserve together: no continuation.
    let warp = common::compile(
        "programs/sssp-wl.irgl",
        &common::config("--async all --async-local on --aggregate warp"),
    );
    assert!(!warp.cuda.contains("irgl_next = d;"), "{}", warp.cuda);
    // The option needs --async.
    let c = irgl_driver::OptConfig::from_args(&["--async-local", "on"]).unwrap();
    assert!(c.validate().is_err());
}

/// A sample of the worklist index taken only for a statistic (sssp-nf's largest round) leaves
/// a kernel asynchronous; the same sample into a plain global is a use of the index, which
/// keeps it in rounds.
#[test]
fn a_statistic_may_sample_the_worklist_index() {
    let program = |word: &str| {
        format!(
            "graph g {{ node d: u32; }}
             {word} global widest: u32 = 0;
             output d;
             Kernel relax(graph g) {{
               ForAll (wi In WL) {{
                 if (wi % 32 == 0) {{
                   atomicMax(widest, wi + 1);
                 }}
                 let n = WL.pop(wi);
                 ForAll (e In g.edges(n)) {{
                   let d = g.dst(e);
                   if (g.d[n] + 1 < atomicMin(g.d[d], g.d[n] + 1)) {{
                     WL.push(d);
                   }}
                 }}
               }}
             }}
             main {{
               Iterate relax(g) Initial [0];
               widest = 0;
             }}"
        )
    };
    let with = common::compile_text(
        "stat.irgl",
        &program("statistic"),
        &common::config("--async all"),
    );
    let k = with.module.kernel_named("relax").unwrap();
    assert_eq!(
        with.module.kernels[k].asynchronous,
        Some(Asynchrony::AllPushes)
    );
    let without = common::compile_text("plain.irgl", &program(""), &common::config("--async all"));
    let k = without.module.kernel_named("relax").unwrap();
    assert_eq!(without.module.kernels[k].asynchronous, None);
}
