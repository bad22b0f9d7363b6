//! Conversion throughput, in edges per second: reading a graph file, building the sorted CSR and
//! writing `.gr` v1, as `irglc graph convert` does.
//!
//! - `road-NE`: `../shared/graphs/road-NE.mtx.gz` (gzip, Matrix Market, 3.87 M arcs).
//! - `rmat`: a Graph500 RMAT graph (scale `IRGL_BENCH_RMAT_SCALE`, default 22, edge factor 16)
//!   written once as a SNAP edge list under the system temp folder, then converted.
//!
//! Run with `cargo bench -p irgl-graph --bench convert` (release profile). When the test suite
//! runs the benchmarks (`cargo test --all-targets`: a debug build, each function once), the
//! inputs are small: RMAT scale 12 alone (`IRGL_BENCH_RMAT_SCALE` still sets it), so that the
//! code is checked without minutes of debug-build conversion.

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use irgl_graph::Csr;
use irgl_graph::NoProgress;
use irgl_graph::format::{gr, snap};
use irgl_graph::generate::{self, RmatParams};
use irgl_graph::load::{LoadOptions, load};
use irgl_graph::transform::{self, TransformOptions};

fn convert(input: &Path, output: &Path) -> u64 {
    let g = load(input, &LoadOptions::default(), &NoProgress)
        .expect("input loads")
        .csr;
    let (g, _) = transform::apply(g, &TransformOptions::default());
    let file = std::fs::File::create(output).expect("output opens");
    gr::write(&g, file).expect("output written");
    g.num_edges()
}

fn rmat_input(scale: u32) -> PathBuf {
    let path = std::env::temp_dir().join(format!("irgl-bench-rmat{scale}-ef16-seed1.txt"));
    if !path.exists() {
        let list = generate::rmat(scale, 16, RmatParams::default(), 1, &NoProgress).expect("rmat");
        let g = Csr::from_edge_list(list);
        let file = std::io::BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(&path).expect("temp file"),
        );
        snap::write(&g, file).expect("edge list written");
    }
    path
}

fn bench(c: &mut Criterion) {
    // `cargo bench` passes --bench; the test suite does not.
    let timed = std::env::args().any(|a| a == "--bench");
    let out = std::env::temp_dir().join(format!("irgl-bench-out-{}.gr", std::process::id()));
    let mut group = c.benchmark_group("convert");
    group.sample_size(10);
    if timed {
        let road =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/graphs/road-NE.mtx.gz");
        let edges = convert(&road, &out);
        group.throughput(Throughput::Elements(edges));
        group.bench_function("road-NE.mtx.gz", |b| b.iter(|| convert(&road, &out)));
    }
    let scale = std::env::var("IRGL_BENCH_RMAT_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if timed { 22 } else { 12 });
    let rmat = rmat_input(scale);
    let edges = convert(&rmat, &out);
    group.throughput(Throughput::Elements(edges));
    group.bench_function(format!("rmat{scale}.txt"), |b| {
        b.iter(|| convert(&rmat, &out))
    });
    group.finish();
    let _ = std::fs::remove_file(out);
}

criterion_group!(benches, bench);
criterion_main!(benches);
