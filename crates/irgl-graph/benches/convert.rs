//! Conversion throughput, in edges per second: reading a graph file, building the sorted CSR and
//! writing `.gr` v1, as `irglc graph convert` does.
//!
//! - `road-NE`: `../shared/graphs/road-NE.mtx.gz` (gzip, Matrix Market, 3.87 M arcs).
//! - `rmat`: a Graph500 RMAT graph (scale `IRGL_BENCH_RMAT_SCALE`, default 22, edge factor 16)
//!   written once as a SNAP edge list under the system temp folder, then converted.
//!
//! Run with `cargo bench -p irgl-graph --bench convert` (release profile).

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
    let out = std::env::temp_dir().join("irgl-bench-out.gr");
    let road =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/graphs/road-NE.mtx.gz");
    let mut group = c.benchmark_group("convert");
    group.sample_size(10);
    let edges = convert(&road, &out);
    group.throughput(Throughput::Elements(edges));
    group.bench_function("road-NE.mtx.gz", |b| b.iter(|| convert(&road, &out)));
    let scale = std::env::var("IRGL_BENCH_RMAT_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(22);
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
