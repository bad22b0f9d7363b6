//! Format round-trips: `.gr` (with and without weights, odd and even edge counts), SNAP edge
//! lists, gzip-compressed input, and conversions through the transformations.

use std::io::Write;
use std::path::PathBuf;

use irgl_graph::NoProgress;
use irgl_graph::csr::{Csr, EdgeList};
use irgl_graph::format::{gr, snap};
use irgl_graph::generate::{self, RmatParams};
use irgl_graph::load::{Format, LoadOptions, load};
use irgl_graph::transform::{self, TransformOptions};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irgl-graph-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn rmat(scale: u32, seed: u64) -> Csr {
    Csr::from_edge_list(generate::rmat(scale, 8, RmatParams::default(), seed, &NoProgress).unwrap())
}

/// `g` plus the edge `n-1 -> 0`, changing the parity of the edge count.
fn with_extra_edge(g: &Csr) -> Csr {
    let mut l = EdgeList::new(g.n, false);
    for (u, &v) in g.sources().into_iter().zip(&g.dst) {
        l.push(u, v, 0);
    }
    l.push(g.n - 1, 0, 0);
    Csr::from_edge_list(l)
}

#[test]
fn gr_round_trips_through_files() {
    for weighted in [false, true] {
        for parity in [0, 1] {
            let mut g = rmat(8, 3);
            if g.num_edges() % 2 != parity {
                g = with_extra_edge(&g);
            }
            if weighted {
                transform::add_weights(&mut g, 9);
            }
            let path = temp(&format!("rt-{weighted}-{parity}.gr"));
            gr::write(&g, std::fs::File::create(&path).unwrap()).unwrap();
            let back = load(&path, &LoadOptions::default(), &NoProgress).unwrap();
            assert_eq!(back.format, Format::Gr);
            assert_eq!(back.csr, g);
        }
    }
}

#[test]
fn snap_and_gzip_round_trip() {
    let mut g = rmat(9, 5);
    transform::add_weights(&mut g, 1);
    let mut text = Vec::new();
    snap::write(&g, &mut text).unwrap();
    let path = temp("rt.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(&text).unwrap();
    enc.finish().unwrap();
    let opts = LoadOptions {
        snap_ids: snap::SnapIds::Keep,
        ..Default::default()
    };
    let back = load(&path, &opts, &NoProgress).unwrap();
    assert_eq!(back.format, Format::Snap);
    // RMAT has isolated nodes; with kept ids the node count is max id + 1.
    assert_eq!(back.csr.dst, g.dst);
    assert_eq!(back.csr.weights, g.weights);
    // A gzipped .gr is read too.
    let path = temp("rt.gr.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::fast(),
    );
    gr::write(&g, &mut enc).unwrap();
    enc.finish().unwrap();
    assert_eq!(
        load(&path, &LoadOptions::default(), &NoProgress)
            .unwrap()
            .csr,
        g
    );
}

#[test]
fn symmetrized_weighted_conversion_is_deterministic_and_symmetric() {
    let opts = TransformOptions {
        symmetrize: true,
        drop_self_loops: true,
        dedup: true,
        weights_seed: Some(42),
    };
    let (a, notes) = transform::apply(rmat(9, 7), &opts);
    let (b, _) = transform::apply(rmat(9, 7), &opts);
    assert_eq!(a, b);
    assert!(
        notes.iter().any(|n| n.contains("[1, 100] from seed 42")),
        "{notes:?}"
    );
    assert!(a.is_symmetric() && a.is_sorted() && a.self_loops() == 0);
    let w = a.weights.as_ref().unwrap();
    for u in 0..a.n {
        for e in a.edge_range(u) {
            let v = a.dst[e];
            let back = a.edge_range(v).find(|&f| a.dst[f] == u).unwrap();
            assert_eq!(w[e], w[back], "weights of {u} -> {v} and back differ");
        }
    }
}

#[test]
fn converting_a_gr_sorts_it() {
    let g = Csr {
        n: 3,
        offsets: vec![0, 2, 2, 3],
        dst: vec![2, 1, 0],
        weights: Some(vec![7, 8, 9]),
    };
    let mut bytes = Vec::new();
    gr::write(&g, &mut bytes).unwrap();
    let read = gr::read(&bytes[..], "x.gr", Some(bytes.len() as u64), &NoProgress).unwrap();
    assert_eq!(read, g, "reading keeps the stored order");
    let (sorted, _) = transform::apply(read, &TransformOptions::default());
    assert_eq!(sorted.dst, vec![1, 2, 0]);
    assert_eq!(sorted.weights, Some(vec![8, 7, 9]));
}
