//! CPU reference algorithms, one module per program family. They favour plainness over speed,
//! but are linear or near-linear so that they run on the real road and web graphs.
//!
//! Where petgraph implements the algorithm (Dijkstra, union-find, Kruskal) it is used as a second,
//! independent reference; tests check that both agree.

pub mod bc;
pub mod bfs;
pub mod cc;
pub mod kcore;
pub mod mis;
pub mod msf;
pub mod pagerank;
pub mod sssp;
pub mod tc;
