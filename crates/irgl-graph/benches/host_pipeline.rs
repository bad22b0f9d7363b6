//! The host pipeline on a Graph500 RMAT graph, stage by stage, as `irglc graph gen rmat
//! --symmetrize --weights` and `irglc graph info` run it: generating the edge list and building
//! the CSR, symmetrizing (self-loops dropped, duplicates merged), adding weights, and the
//! statistics of `graph info`.
//!
//! The scale is `IRGL_BENCH_RMAT_SCALE` (edge factor 16): 22 by default under `cargo bench`,
//! 16 when the test suite runs the benchmarks once as tests.
//!
//! Run with `cargo bench -p irgl-graph --bench host_pipeline` (release profile).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use irgl_graph::Csr;
use irgl_graph::NoProgress;
use irgl_graph::generate::{self, RmatParams};
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

fn bench(c: &mut Criterion) {
    let timed = std::env::args().any(|a| a == "--bench");
    let scale = std::env::var("IRGL_BENCH_RMAT_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if timed { 22 } else { 16 });
    let mut group = c.benchmark_group(format!("rmat{scale}"));
    group.sample_size(10);
    let g = generated(scale);
    group.throughput(Throughput::Elements(g.num_edges()));
    group.bench_function("generate", |b| b.iter(|| generated(scale)));
    group.bench_function("symmetrize", |b| {
        b.iter_batched(
            || g.clone(),
            symmetrized,
            criterion::BatchSize::PerIteration,
        )
    });
    let s = symmetrized(g);
    group.throughput(Throughput::Elements(s.num_edges()));
    group.bench_function("weights", |b| {
        b.iter_batched(|| s.clone(), weighted, criterion::BatchSize::PerIteration)
    });
    group.bench_function("info", |b| b.iter(|| stats::describe(&s, 1)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
