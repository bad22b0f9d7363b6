//! The host pipeline on a Graph500 RMAT graph, stage by stage: what `irglc graph gen rmat
//! --symmetrize --weights` runs (generating the edge list and building the CSR, symmetrizing
//! with self-loops dropped and duplicates merged, adding weights), writing and reading the
//! `.gr` file (mapped, and streamed as from gzip), `irglc graph info`'s
//! statistics, and the CPU reference of every program family `irglc verify` checks (on the
//! symmetrized, weighted graph; the source a node of the largest degree).
//!
//! Each stage runs `IRGL_BENCH_REPEAT` times (3 under `cargo bench`) and its median is
//! printed, with the stage's edges per second. The scale is `IRGL_BENCH_RMAT_SCALE` (edge
//! factor 16): 22 by default under `cargo bench`, 14 when the test suite runs the benchmarks
//! once as tests. The stages use every core (rayon; `RAYON_NUM_THREADS` sets how many).
//! Seconds-long stages do not suit criterion's sampling, so this harness is a plain loop.
//!
//! Run with `cargo bench -p irgl-graph --bench host_pipeline` (release profile); `STAGES`
//! (a comma-separated list of the names below) runs some stages only.

use std::time::{Duration, Instant};

use irgl_graph::Csr;
use irgl_graph::NoProgress;
use irgl_graph::format::gr;
use irgl_graph::generate::{self, RmatParams};
use irgl_graph::load::{LoadOptions, load};
use irgl_graph::reference::{bc, bfs, cc, kcore, mis, msf, pagerank, sssp, tc};
use irgl_graph::stats;
use irgl_graph::transform::{self, TransformOptions};

fn generated(scale: u32) -> Csr {
    let list = generate::rmat(scale, 16, RmatParams::default(), 1, &NoProgress).expect("rmat");
    Csr::from_edge_list(list)
}

fn symmetrized(g: Csr) -> Csr {
    let opts = TransformOptions {
        drop_self_loops: true,
        symmetrize: true,
        dedup: true,
        weights_seed: None,
    };
    transform::apply(g, &opts).0
}

fn weighted(g: Csr) -> Csr {
    let opts = TransformOptions {
        weights_seed: Some(7),
        ..TransformOptions::default()
    };
    transform::apply(g, &opts).0
}

/// Runs `stage` `repeat` times on a fresh input from `input` (not timed), prints the median and
/// returns the last output.
fn time<I, O>(
    name: &str,
    edges: u64,
    repeat: usize,
    wanted: &dyn Fn(&str) -> bool,
    mut input: impl FnMut() -> I,
    mut stage: impl FnMut(I) -> O,
) -> Option<O> {
    if !wanted(name) {
        return None;
    }
    let mut times: Vec<Duration> = Vec::with_capacity(repeat);
    let mut out = None;
    for _ in 0..repeat {
        let i = input();
        let t = Instant::now();
        let o = std::hint::black_box(stage(i));
        times.push(t.elapsed());
        out = Some(o);
    }
    times.sort();
    let median = times[times.len() / 2].as_secs_f64();
    println!(
        "{name:<14} {median:>9.3} s  {:>8.1} M edges/s  (median of {repeat})",
        edges as f64 / median / 1e6
    );
    out
}

fn main() {
    let timed = std::env::args().any(|a| a == "--bench");
    let env = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<usize>().ok());
    let scale = env("IRGL_BENCH_RMAT_SCALE").unwrap_or(if timed { 22 } else { 14 }) as u32;
    let repeat = env("IRGL_BENCH_REPEAT")
        .unwrap_or(if timed { 3 } else { 1 })
        .max(1);
    let stages: Option<Vec<String>> = std::env::var("STAGES")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let wanted = |name: &str| stages.as_ref().is_none_or(|s| s.iter().any(|x| x == name));
    // The stages below need the graph whatever is asked for.
    let all = |_: &str| true;
    println!(
        "RMAT scale {scale}, edge factor 16, {} threads",
        rayon::current_num_threads()
    );
    let m = 16u64 << scale;
    let g = time("generate", m, repeat, &wanted, || (), |()| generated(scale))
        .unwrap_or_else(|| generated(scale));
    let s = time(
        "symmetrize",
        g.num_edges(),
        repeat,
        &all,
        || g.clone(),
        symmetrized,
    )
    .expect("always run");
    drop(g);
    let sm = s.num_edges();
    let s = time("weights", sm, repeat, &all, || s.clone(), weighted).expect("always run");
    // Writing the graph as `.gr` and reading it back: mapped (as `irglc` loads a `.gr` file)
    // and streamed (as from gzip).
    let file = std::env::temp_dir().join(format!("irgl-host-pipeline-{}.gr", std::process::id()));
    let write = |()| {
        let out = std::fs::File::create(&file).expect("temp file");
        gr::write(&s, out).expect("written");
    };
    if time("write-gr", sm, repeat, &wanted, || (), write).is_some() {
        let mapped = time(
            "read-gr",
            sm,
            repeat,
            &wanted,
            || (),
            |()| load(&file, &LoadOptions::default(), &NoProgress).expect("reads"),
        );
        let streamed = time(
            "read-gr-stream",
            sm,
            repeat,
            &wanted,
            || (),
            |()| {
                let f = std::io::BufReader::new(std::fs::File::open(&file).expect("opens"));
                gr::read(f, "x.gr", None, &NoProgress).expect("reads")
            },
        );
        assert!(mapped.is_none_or(|g| g.csr == s) && streamed.is_none_or(|g| g == s));
        std::fs::remove_file(&file).expect("temp file removed");
    }
    // The source: a node of the largest degree, in the largest component.
    let src = (0..s.n).max_by_key(|&v| s.degree(v)).unwrap_or(0);
    println!("symmetrized: {} nodes, {sm} edges, source {src}", s.n);
    time(
        "info",
        sm,
        repeat,
        &wanted,
        || (),
        |()| stats::describe(&s, 1),
    );
    time(
        "bfs",
        sm,
        repeat,
        &wanted,
        || (),
        |()| bfs::bfs_levels(&s, src),
    );
    time(
        "sssp",
        sm,
        repeat,
        &wanted,
        || (),
        |()| sssp::dijkstra(&s, src),
    );
    time(
        "cc",
        sm,
        repeat,
        &wanted,
        || (),
        |()| cc::components_union_find(&s),
    );
    time(
        "pr",
        sm,
        repeat,
        &wanted,
        || (),
        |()| {
            let p = pagerank::PageRankParams {
                alpha: 0.85,
                tol: 1e-4,
                max_iter: 100,
            };
            pagerank::pagerank(&s, p)
        },
    );
    time("tc", sm, repeat, &wanted, || (), |()| tc::triangles(&s));
    time(
        "kcore",
        sm,
        repeat,
        &wanted,
        || (),
        |()| kcore::core_numbers(&s),
    );
    time("mst", sm, repeat, &wanted, || (), |()| msf::kruskal(&s));
    time(
        "mis",
        sm,
        repeat,
        &wanted,
        || (),
        |()| mis::check(&s, &mis::greedy(&s)),
    );
    time(
        "bc",
        sm,
        repeat,
        &wanted,
        || (),
        |()| bc::dependencies(&s, src),
    );
}
