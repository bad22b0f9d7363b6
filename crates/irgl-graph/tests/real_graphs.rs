//! The real graphs of `../shared/graphs` (see its README) load with their published node and
//! edge counts, and survive a `.gr` round trip. The folder must exist: a missing folder fails.
//!
//! Everything is checked in one test that spreads the files over two threads, because this
//! crate is built without optimisation in tests and the road graphs are large.

use std::path::PathBuf;

use irgl_graph::format::gr;
use irgl_graph::load::{LoadOptions, load};
use irgl_graph::stats;
use irgl_graph::{Csr, NoProgress};

fn graphs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/graphs")
}

/// How the README counts edges.
#[derive(Clone, Copy, Debug)]
enum Edges {
    /// Arcs as stored.
    Arcs(u64),
    /// Undirected edges, stored once (SNAP) or as one triangle (Matrix Market symmetric):
    /// distinct unordered pairs.
    Undirected(u64),
}

/// (file, nodes, edges, symmetric after loading)
type Expected = (&'static str, u32, Edges, bool);

const GRAPHS: &[Expected] = &[
    ("road-NY.mtx.gz", 264_346, Edges::Undirected(365_050), true),
    (
        "road-FLA.mtx.gz",
        1_070_376,
        Edges::Undirected(1_343_951),
        true,
    ),
    (
        "road-NE.mtx.gz",
        1_524_453,
        Edges::Undirected(1_934_010),
        true,
    ),
    ("rome99.gr", 3_353, Edges::Arcs(8_870), false),
    ("helsinki-drive.gr", 2_158, Edges::Arcs(3_387), false),
    ("cnr-2000.txt.gz", 325_557, Edges::Arcs(3_216_152), false),
    (
        "soc-Slashdot0902.txt.gz",
        82_168,
        Edges::Arcs(948_464),
        false,
    ),
    (
        "ego-twitter.txt.gz",
        81_306,
        Edges::Undirected(1_342_310),
        false,
    ),
    ("wiki-Vote.txt.gz", 7_115, Edges::Arcs(103_689), false),
    (
        "facebook_combined.txt.gz",
        4_039,
        Edges::Undirected(88_234),
        false,
    ),
    (
        "email-Enron.txt.gz",
        36_692,
        Edges::Undirected(183_831),
        false,
    ),
    (
        "ca-AstroPh-cc.txt.gz",
        17_903,
        Edges::Undirected(197_031),
        false,
    ),
    ("karate.mtx", 34, Edges::Undirected(78), true),
    ("dolphins.mtx", 62, Edges::Undirected(159), true),
    ("netscience.mtx", 1_589, Edges::Undirected(2_742), true),
];

/// Checks one graph; returns a description of what is wrong, if anything.
fn check(file: &str, nodes: u32, edges: Edges, symmetric: bool) -> Result<(), String> {
    let path = graphs_dir().join(file);
    let g = load(&path, &LoadOptions::default(), &NoProgress)
        .map_err(|e| e.to_string())?
        .csr;
    let mut problems = Vec::new();
    if g.n != nodes {
        problems.push(format!("{} nodes, README says {nodes}", g.n));
    }
    match edges {
        Edges::Arcs(m) if g.num_edges() != m => {
            problems.push(format!("{} arcs, README says {m}", g.num_edges()));
        }
        Edges::Undirected(m) => {
            let pairs = undirected_pairs(&g);
            // SNAP files store each undirected edge once: arcs as stored = pairs (self-loops
            // aside). Symmetric .mtx stores one triangle: arcs = 2 pairs + diagonal.
            let loops = g.self_loops();
            if pairs + loops != m && pairs != m {
                problems.push(format!(
                    "{pairs} undirected edges (+{loops} self-loops), README says {m}"
                ));
            }
        }
        _ => {}
    }
    if g.is_symmetric() != symmetric {
        problems.push(format!("symmetric = {}, expected {symmetric}", !symmetric));
    }
    // Round trip through .gr.
    let mut bytes = Vec::new();
    gr::write(&g, &mut bytes).map_err(|e| e.to_string())?;
    let back = gr::read(&bytes[..], file, Some(bytes.len() as u64), &NoProgress)
        .map_err(|e| e.to_string())?;
    if back != g {
        problems.push("the .gr round trip changed the graph".into());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{file}: {}", problems.join("; ")))
    }
}

fn undirected_pairs(g: &Csr) -> u64 {
    // Only small graphs need the full statistics; for the big ones count directly.
    if g.num_edges() < 200_000 {
        return stats::describe(g, 1).undirected_edges;
    }
    let mut pairs = 0;
    for u in 0..g.n {
        let nb = g.neighbours(u);
        for (i, &v) in nb.iter().enumerate() {
            if (i == 0 || nb[i - 1] != v) && (u < v || (u > v && !g.has_edge(v, u))) {
                pairs += 1;
            }
        }
    }
    pairs
}

#[test]
fn real_graphs_have_their_published_counts() {
    let dir = graphs_dir();
    assert!(
        dir.join("README.md").is_file(),
        "{} is missing: the real graphs are needed by this test (CI has them)",
        dir.display()
    );
    let (left, right): (Vec<_>, Vec<_>) = GRAPHS.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let run = |part: Vec<(usize, &Expected)>| -> Vec<String> {
        part.into_iter()
            .filter_map(|(_, &(f, n, e, s))| check(f, n, e, s).err())
            .collect()
    };
    let failures: Vec<String> = std::thread::scope(|s| {
        let a = s.spawn(|| run(left));
        let mut f = run(right);
        f.extend(a.join().unwrap());
        f
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
