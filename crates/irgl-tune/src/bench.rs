//! Benchmark suites: programs x graphs x named option sets, what a run of one records, and
//! the comparison of two such records. The running is the CLI's (`irglc bench`); this module
//! reads suites, holds the records and compares them.
//!
//! A suite is a TOML file:
//!
//! ```toml
//! runs = 5            # timed runs of each program, graph and set, in one process
//! timeout = 300       # seconds one such process may take
//! weights_seed = 7    # weights added to graphs without them, for programs that read weights
//!
//! [[graph]]
//! name = "road-NY"
//! path = "../../shared/graphs/road-NY.mtx.gz"   # relative to the suite file
//! [[graph]]
//! name = "rmat20"
//! rmat = { scale = 20, edge_factor = 16, seed = 1 }
//!
//! [[set]]
//! name = "baseline"
//! flags = ""
//! [[set]]
//! name = "tb+wp+fg"
//! flags = "--nested tb+wp+fg"
//!
//! [[program]]
//! file = "../programs/bfs.irgl"     # relative to the suite file
//! sets = ["baseline", "tb+wp+fg"]   # default: every set
//! graphs = ["road-NY"]              # default: every graph
//! args = ["--src", "0"]             # the program's parameters (default: none)
//! # verify = "sssp"                 # its CPU reference (default: the one it is named after),
//! #                                 # or "none": timed only, the table and records say so
//! # check = "python3 mine.py {graph} {output}"  # or a command of your own (0 = correct)
//!
//! [gapbs]                           # the GAP peer (optional; or irglc bench --gapbs DIR)
//! path = "../../shared/peers/gapbs"
//! delta = 256
//! [lonestargpu]                     # LonestarGPU (optional; or --lonestargpu DIR)
//! path = "../../shared/peers/lonestargpu"
//! [ecl]                             # the ECL codes (optional; or --ecl DIR)
//! path = "../../shared/peers/ecl"
//! ```
//!
//! The peers run on the same converted graphs as the programs; [`peer_kernel`] says which of
//! a peer's kernels stands beside a program family, and the tables show the fastest correct
//! peer of each program and graph.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::results::{Outcome, check_runs, check_timeout, median};

/// A benchmark suite, as read from its file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    #[serde(default = "default_runs")]
    pub runs: u32,
    #[serde(default = "default_timeout")]
    pub timeout: f64,
    #[serde(default = "default_seed")]
    pub weights_seed: u64,
    #[serde(rename = "graph", default)]
    pub graphs: Vec<GraphSpec>,
    #[serde(rename = "set", default)]
    pub sets: Vec<SetSpec>,
    #[serde(rename = "program", default)]
    pub programs: Vec<ProgramSpec>,
    #[serde(default)]
    pub gapbs: Option<GapSpec>,
    #[serde(default)]
    pub lonestargpu: Option<PeerPath>,
    #[serde(default)]
    pub ecl: Option<PeerPath>,
    /// The set that stands for the default build (flags `-O2`): the report then says, per
    /// program and graph, how far it is from the best set (`levels_table`).
    #[serde(default)]
    pub default_set: Option<String>,
}

fn default_runs() -> u32 {
    5
}
fn default_timeout() -> f64 {
    300.0
}
fn default_seed() -> u64 {
    1
}

/// A graph of a suite: a file, or generated.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    pub name: String,
    /// A graph file in any format `irglc graph convert` reads, relative to the suite file.
    pub path: Option<String>,
    /// An RMAT graph with Graph500 parameters.
    pub rmat: Option<RmatSpec>,
    /// A rows x cols 4-neighbour grid.
    pub grid: Option<GridSpec>,
    /// A star: one hub joined to `leaves` nodes.
    pub star: Option<StarSpec>,
    /// A path graph of `nodes` nodes (`path` is a file).
    pub path_graph: Option<PathSpec>,
    /// `count` components of `size` nodes.
    pub components: Option<ComponentsSpec>,
    /// `edges` uniform random directed edges on `nodes` nodes.
    pub random: Option<RandomSpec>,
    /// The Delaunay triangulation of `points` random points in the unit square (its edges).
    pub mesh: Option<MeshSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RandomSpec {
    pub nodes: u32,
    pub edges: u64,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Both directions of every edge (mean degree 2 x edges / nodes).
    #[serde(default)]
    pub symmetrize: bool,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct MeshSpec {
    pub points: u32,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct StarSpec {
    pub leaves: u32,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    pub nodes: u32,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ComponentsSpec {
    pub count: u32,
    pub size: u32,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RmatSpec {
    pub scale: u32,
    #[serde(default = "default_edge_factor")]
    pub edge_factor: u32,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The quadrant probabilities (default: Graph500's 0.57, 0.19, 0.19).
    #[serde(default)]
    pub a: Option<f64>,
    #[serde(default)]
    pub b: Option<f64>,
    #[serde(default)]
    pub c: Option<f64>,
}

fn default_edge_factor() -> u32 {
    16
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    pub rows: u32,
    pub cols: u32,
}

/// A named option set: the flags of `irglc compile`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetSpec {
    pub name: String,
    #[serde(default)]
    pub flags: String,
}

/// A program of a suite and what it runs on.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProgramSpec {
    /// The `.irgl` file, relative to the suite file.
    pub file: String,
    /// The sets it runs under (default: every set of the suite).
    pub sets: Option<Vec<String>>,
    /// The graphs it runs on (default: every graph of the suite).
    pub graphs: Option<Vec<String>>,
    /// The program's own arguments, such as `--src 5`.
    #[serde(default)]
    pub args: Vec<String>,
    /// The CPU reference that checks its outputs (default: the one it is named after), or
    /// `none` to time it without checking.
    pub verify: Option<String>,
    /// A command that checks its outputs instead (`{graph}` and `{output}` replaced by the
    /// paths; exit status 0 means correct).
    pub check: Option<String>,
}

/// The GAP benchmark suite as a peer.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GapSpec {
    /// Its source tree, relative to the suite file.
    pub path: Option<String>,
    /// The delta of GAP's delta-stepping SSSP, for programs without a `delta` parameter.
    #[serde(default = "default_delta")]
    pub delta: u64,
}

fn default_delta() -> u64 {
    256
}

/// A peer given by its source tree.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerPath {
    /// Its source tree, relative to the suite file.
    pub path: String,
}

impl Suite {
    /// Reads a suite from TOML and checks it: names unique, every graph given one way, every
    /// set and graph a program names defined, positive runs and timeout.
    pub fn parse(text: &str) -> Result<Suite, String> {
        let suite: Suite = toml::from_str(text).map_err(|e| e.to_string())?;
        suite.check()?;
        Ok(suite)
    }

    fn check(&self) -> Result<(), String> {
        check_runs(self.runs).map_err(|e| format!("runs = {e}"))?;
        check_timeout(self.timeout).map_err(|e| format!("timeout = {e}"))?;
        if self.programs.is_empty() {
            return Err("the suite has no [[program]]".into());
        }
        if self.graphs.is_empty() {
            return Err("the suite has no [[graph]]".into());
        }
        if self.sets.is_empty() {
            return Err("the suite has no [[set]]".into());
        }
        unique("graph", self.graphs.iter().map(|g| g.name.as_str()))?;
        unique("set", self.sets.iter().map(|s| s.name.as_str()))?;
        for g in &self.graphs {
            let ways = [
                g.path.is_some(),
                g.rmat.is_some(),
                g.grid.is_some(),
                g.star.is_some(),
                g.path_graph.is_some(),
                g.components.is_some(),
                g.random.is_some(),
                g.mesh.is_some(),
            ]
            .iter()
            .filter(|&&b| b)
            .count();
            if ways != 1 {
                return Err(format!(
                    "graph {}: give exactly one of path, rmat, grid, star, path_graph, components, random and mesh",
                    g.name
                ));
            }
        }
        if let Some(d) = &self.default_set
            && !self.sets.iter().any(|s| &s.name == d)
        {
            return Err(format!("default_set = {d:?}: no set is named so"));
        }
        for p in &self.programs {
            if p.verify.is_some() && p.check.is_some() {
                return Err(format!(
                    "program {}: give verify or check, not both",
                    p.file
                ));
            }
            for s in p.sets.iter().flatten() {
                if !self.sets.iter().any(|x| &x.name == s) {
                    return Err(format!("program {}: no set is named {s}", p.file));
                }
            }
            for g in p.graphs.iter().flatten() {
                if !self.graphs.iter().any(|x| &x.name == g) {
                    return Err(format!("program {}: no graph is named {g}", p.file));
                }
            }
        }
        Ok(())
    }

    /// The sets a program runs under, in the suite's order.
    pub fn sets_of<'a>(&'a self, p: &'a ProgramSpec) -> Vec<&'a SetSpec> {
        self.sets
            .iter()
            .filter(|s| p.sets.as_ref().is_none_or(|names| names.contains(&s.name)))
            .collect()
    }

    /// The graphs a program runs on, in the suite's order.
    pub fn graphs_of<'a>(&'a self, p: &'a ProgramSpec) -> Vec<&'a GraphSpec> {
        self.graphs
            .iter()
            .filter(|g| {
                p.graphs
                    .as_ref()
                    .is_none_or(|names| names.contains(&g.name))
            })
            .collect()
    }
}

fn unique<'a>(what: &str, names: impl Iterator<Item = &'a str>) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for n in names {
        if n.is_empty() {
            return Err(format!("a {what} without a name"));
        }
        if !seen.insert(n) {
            return Err(format!("two {what}s are named {n}"));
        }
    }
    Ok(())
}

/// One program on one graph under one option set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchRecord {
    pub program: String,
    pub graph: String,
    pub set: String,
    /// The canonical options (`irglc compile` flags) of the set for this program.
    pub options: String,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The median of the times, for a correct run.
    #[serde(default)]
    pub median_ms: Option<f64>,
    /// Rounds of the host loops, as the program reports them.
    #[serde(default)]
    pub iterations: Option<u64>,
    /// Each kernel's median time in ms, where the program's arguments ask for them
    /// (`--kernel-times`), in the order the program lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernels: Vec<(String, f64)>,
    /// How the output was checked when not by the CPU reference of the program's family:
    /// `none` (timed only) or the user's command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
}

/// One peer program on one graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerRecord {
    pub peer: String,
    /// The peer's kernel (`bfs`, `sssp`, ...).
    pub kernel: String,
    pub graph: String,
    /// Its command line, the graph file aside.
    pub args: Vec<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
    #[serde(default)]
    pub median_ms: Option<f64>,
    /// How its output was checked (`irglc's bfs reference`, `its own verification`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
}

/// What a run of a suite recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    pub suite: String,
    /// The GPU, as the programs name it.
    pub gpu: Option<String>,
    /// The driver's version (nvidia-smi), where known.
    pub driver: Option<String>,
    /// irglc's version.
    pub irglc: String,
    /// Seconds since the Unix epoch when the run started.
    pub started: u64,
    pub runs: u32,
    /// CPU threads the peers ran with.
    #[serde(default)]
    pub peer_threads: Option<usize>,
    pub records: Vec<BenchRecord>,
    #[serde(default)]
    pub peers: Vec<PeerRecord>,
    /// Whether the run went through the whole suite: the records are rewritten after every
    /// program and graph, so a run that was stopped leaves what it measured, marked `false`.
    /// (Records written before this field were complete.)
    #[serde(default = "complete_by_default")]
    pub complete: bool,
    /// Each program's reference family (`bfs`, `cc`, ...), by which its peers are matched.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub families: BTreeMap<String, String>,
    /// The suite's default set, which the levels table compares with the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_set: Option<String>,
}

fn complete_by_default() -> bool {
    true
}

impl BenchRecord {
    pub fn new(program: &str, graph: &str, set: &str, options: String, outcome: Outcome) -> Self {
        let median_ms = match &outcome {
            Outcome::Ok { times_ms } if !times_ms.is_empty() => Some(median(times_ms)),
            _ => None,
        };
        BenchRecord {
            program: program.to_string(),
            graph: graph.to_string(),
            set: set.to_string(),
            options,
            outcome,
            median_ms,
            iterations: None,
            kernels: Vec::new(),
            check: None,
        }
    }
}

/// The peers `irglc bench` runs, by the names its records give them.
pub const PEERS: [&str; 3] = ["gapbs", "lonestargpu", "ecl"];

/// The kernel of `peer` (one of [`PEERS`]) that computes what a program of `family` (a CPU
/// reference's name) does, if the peer has one.
pub fn peer_kernel(peer: &str, family: &str) -> Option<&'static str> {
    PEER_KERNELS
        .iter()
        .find(|(p, f, _)| *p == peer && *f == family)
        .map(|(_, _, k)| *k)
}

/// Peer, program family, the peer's kernel.
const PEER_KERNELS: &[(&str, &str, &str)] = &[
    ("gapbs", "bfs", "bfs"),
    ("gapbs", "sssp", "sssp"),
    ("gapbs", "pr", "pr"),
    ("gapbs", "cc", "cc"),
    ("gapbs", "tc", "tc"),
    ("lonestargpu", "bfs", "bfs"),
    ("lonestargpu", "sssp", "sssp"),
    ("lonestargpu", "pr", "pagerank"),
    ("lonestargpu", "cc", "cc"),
    ("lonestargpu", "tc", "tc"),
    ("lonestargpu", "mis", "mis"),
    ("lonestargpu", "mst", "mst"),
    ("ecl", "cc", "ecl-cc"),
    ("ecl", "mis", "ecl-mis"),
    ("ecl", "mst", "ecl-mst"),
    ("ecl", "color", "ecl-gc"),
];

/// The fastest correct peer run beside a program of `family` on `graph`.
pub fn best_peer<'r>(report: &'r BenchReport, family: &str, graph: &str) -> Option<&'r PeerRecord> {
    report
        .peers
        .iter()
        .filter(|p| p.graph == graph && peer_kernel(&p.peer, family) == Some(p.kernel.as_str()))
        .filter(|p| p.median_ms.is_some())
        .min_by(|a, b| a.median_ms.unwrap().total_cmp(&b.median_ms.unwrap()))
}

/// Whether any peer ran beside a program of `family` on `graph` (correct or not).
fn any_peer(report: &BenchReport, family: &str, graph: &str) -> bool {
    report
        .peers
        .iter()
        .any(|p| p.graph == graph && peer_kernel(&p.peer, family) == Some(p.kernel.as_str()))
}

/// The best peer's cell of a table: its time and name, `failed` where every peer beside the
/// program failed or was wrong, `-` where none ran.
fn peer_cell(report: &BenchReport, family: Option<&str>, graph: &str) -> (String, Option<f64>) {
    let Some(f) = family else {
        return ("-".into(), None);
    };
    match best_peer(report, f, graph) {
        Some(p) => {
            let t = p.median_ms.expect("a best peer has a time");
            (format!("{t:.3} {}", short_peer(&p.peer)), Some(t))
        }
        None if any_peer(report, f, graph) => ("failed".into(), None),
        None => ("-".into(), None),
    }
}

/// A peer's name in a table column.
fn short_peer(peer: &str) -> &str {
    match peer {
        "gapbs" => "GAP",
        "lonestargpu" => "LSG",
        "ecl" => "ECL",
        other => other,
    }
}

/// The report as a table: one line per program, graph and set, with the median, the speedup
/// over the program's first set on that graph, and the peer's time where there is one.
pub fn table(report: &BenchReport, family_of: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let has_peers = !report.peers.is_empty();
    out.push_str(&format!(
        "{:<10} {:<16} {:<28} {:>12} {:>9}{}\n",
        "program",
        "graph",
        "set",
        "median ms",
        "speedup",
        if has_peers {
            format!(" {:>16} {:>8}", "best peer ms", "vs peer")
        } else {
            String::new()
        }
    ));
    for r in &report.records {
        let first = report
            .records
            .iter()
            .find(|x| x.program == r.program && x.graph == r.graph);
        let time = match (&r.outcome, r.median_ms) {
            (_, Some(t)) => format!("{t:.3}"),
            (Outcome::Wrong { .. }, _) => "WRONG".into(),
            (Outcome::Timeout { .. }, _) => "timeout".into(),
            _ => "failed".into(),
        };
        let speedup = match (first.and_then(|f| f.median_ms), r.median_ms) {
            (Some(b), Some(t)) => format!("{:.2}x", b / t),
            _ => "-".into(),
        };
        let peer = if has_peers {
            let (cell, t) = peer_cell(report, family_of(&r.program).as_deref(), &r.graph);
            let vs = match (t, r.median_ms) {
                (Some(p), Some(t)) => format!("{:.2}x", p / t),
                _ => "-".into(),
            };
            format!(" {cell:>16} {vs:>8}")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{:<10} {:<16} {:<28} {time:>12} {speedup:>9}{peer}\n",
            r.program, r.graph, r.set
        ));
    }
    // How the outputs were checked where not by the CPU reference: said once per program.
    let mut said: Vec<&str> = Vec::new();
    for r in &report.records {
        if let Some(check) = &r.check
            && !said.contains(&r.program.as_str())
        {
            said.push(&r.program);
            out.push_str(&format!("{}: outputs {check}\n", r.program));
        }
    }
    if has_peers {
        out.push_str(
            "best peer: the fastest correct peer run on that graph; vs peer: its time over this set's (above 1: irglc is faster)\n",
        );
    }
    out
}

/// Every peer run of a report: peer, kernel, graph, median, and how its output was checked.
pub fn peers_table(report: &BenchReport) -> Option<String> {
    if report.peers.is_empty() {
        return None;
    }
    let mut out = format!(
        "{:<12} {:<10} {:<16} {:>12}  {}\n",
        "peer", "kernel", "graph", "median ms", "checked"
    );
    for p in &report.peers {
        let time = match (&p.outcome, p.median_ms) {
            (_, Some(t)) => format!("{t:.3}"),
            (Outcome::Wrong { .. }, _) => "WRONG".into(),
            (Outcome::Timeout { .. }, _) => "timeout".into(),
            _ => "failed".into(),
        };
        let how = match &p.outcome {
            Outcome::Ok { .. } => p.check.clone().unwrap_or_else(|| "not checked".into()),
            other => other.describe(),
        };
        out.push_str(&format!(
            "{:<12} {:<10} {:<16} {time:>12}  {how}\n",
            p.peer, p.kernel, p.graph
        ));
    }
    Some(out)
}

/// How the default build compares with the other sets: per program and graph, the default's
/// time, the program's first set's (the baseline), the best set on that graph, the best single
/// set of the program (least geometric mean over the graphs where every set ran correctly),
/// and GAP; per program, the default's ratio to the best per graph (geometric mean and
/// worst) and to the best single set. Only correct runs count; `None` without such a set.
pub fn levels_table(
    report: &BenchReport,
    default: &str,
    family_of: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let time = |p: &str, g: &str, s: &str| {
        report
            .records
            .iter()
            .find(|r| r.program == p && r.graph == g && r.set == s)
            .and_then(|r| r.median_ms)
    };
    let mut programs: Vec<&str> = Vec::new();
    for r in &report.records {
        if !programs.contains(&r.program.as_str()) {
            programs.push(&r.program);
        }
    }
    let mut out = String::new();
    let mut any = false;
    for p in programs {
        let records: Vec<&BenchRecord> = report.records.iter().filter(|r| r.program == p).collect();
        if !records.iter().any(|r| r.set == default) {
            continue;
        }
        any = true;
        let mut graphs: Vec<&str> = Vec::new();
        let mut sets: Vec<&str> = Vec::new();
        for r in &records {
            if !graphs.contains(&r.graph.as_str()) {
                graphs.push(&r.graph);
            }
            if !sets.contains(&r.set.as_str()) {
                sets.push(&r.set);
            }
        }
        let baseline = sets[0];
        // The best single set: every graph correct, least geometric mean.
        let single = sets
            .iter()
            .filter_map(|&s| {
                let logs: Option<Vec<f64>> =
                    graphs.iter().map(|g| time(p, g, s).map(f64::ln)).collect();
                logs.map(|l| (s, l.iter().sum::<f64>() / l.len() as f64))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(s, _)| s);
        out.push_str(&format!(
            "{p}: default = {default}, baseline = {baseline}, best single = {}\n",
            single.unwrap_or("none (no set is correct on every graph)")
        ));
        out.push_str(&format!(
            "  {:<16} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8}  {:<28} {:>16}\n",
            "graph",
            "default",
            "baseline",
            "single",
            "best",
            "/single",
            "/best",
            "best set",
            "best peer ms"
        ));
        let mut ratios = Vec::new();
        let mut single_ratios = Vec::new();
        let ms = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{t:.3}"));
        for g in &graphs {
            let d = time(p, g, default);
            let best = sets
                .iter()
                .filter_map(|&s| time(p, g, s).map(|t| (s, t)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let st = single.and_then(|s| time(p, g, s));
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => Some(a / b),
                _ => None,
            };
            let r_best = ratio(d, best.map(|b| b.1));
            let r_single = ratio(d, st);
            ratios.extend(r_best);
            single_ratios.extend(r_single);
            let (peer, _) = peer_cell(report, family_of(p).as_deref(), g);
            out.push_str(&format!(
                "  {g:<16} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8}  {:<28} {:>16}\n",
                ms(d),
                ms(time(p, g, baseline)),
                ms(st),
                ms(best.map(|b| b.1)),
                r_single.map_or("-".into(), |r| format!("{r:.2}x")),
                r_best.map_or("-".into(), |r| format!("{r:.2}x")),
                best.map_or("-", |b| b.0),
                peer,
            ));
        }
        let geo = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
        if !ratios.is_empty() {
            let worst = ratios.iter().cloned().fold(0.0, f64::max);
            out.push_str(&format!(
                "  default / best per graph: {:.2}x geometric mean, {worst:.2}x worst; / best single: {}\n",
                geo(&ratios),
                if single_ratios.is_empty() {
                    "-".to_string()
                } else {
                    format!(
                        "{:.2}x geometric mean, {:.2}x worst",
                        geo(&single_ratios),
                        single_ratios.iter().cloned().fold(0.0, f64::max)
                    )
                }
            ));
        }
    }
    any.then_some(out)
}

/// How one record changed between two reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub program: String,
    pub graph: String,
    pub set: String,
    pub old_ms: Option<f64>,
    pub new_ms: Option<f64>,
    /// The relative change that counts as noise for this pair.
    pub noise: f64,
    pub verdict: Verdict,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within the noise.
    Same,
    Faster,
    /// Slower beyond the noise.
    Regression,
    /// Correct before, not now (wrong, failed or timed out).
    Broken,
    /// Not correct before, correct now.
    Fixed,
    /// Not correct in either.
    NeitherOk,
}

/// The relative spread of a correct run's times: half the range over the median.
fn spread(o: &Outcome) -> f64 {
    match o {
        Outcome::Ok { times_ms } if times_ms.len() > 1 => {
            let lo = times_ms.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = times_ms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (hi - lo) / 2.0 / median(times_ms)
        }
        _ => 0.0,
    }
}

/// Compares the records two reports share (by program, graph and set). A change counts when
/// it is beyond `threshold` (relative) and beyond the two runs' own spread (half the range
/// of each one's times over its median, summed).
pub fn compare(old: &BenchReport, new: &BenchReport, threshold: f64) -> Vec<Change> {
    let mut out = Vec::new();
    for n in &new.records {
        let Some(o) = old
            .records
            .iter()
            .find(|o| o.program == n.program && o.graph == n.graph && o.set == n.set)
        else {
            continue;
        };
        let noise = threshold.max(spread(&o.outcome) + spread(&n.outcome));
        let verdict = match (o.median_ms, n.median_ms) {
            (Some(a), Some(b)) if b > a * (1.0 + noise) => Verdict::Regression,
            (Some(a), Some(b)) if b * (1.0 + noise) < a => Verdict::Faster,
            (Some(_), Some(_)) => Verdict::Same,
            (Some(_), None) => Verdict::Broken,
            (None, Some(_)) => Verdict::Fixed,
            (None, None) => Verdict::NeitherOk,
        };
        out.push(Change {
            program: n.program.clone(),
            graph: n.graph.clone(),
            set: n.set.clone(),
            old_ms: o.median_ms,
            new_ms: n.median_ms,
            noise,
            verdict,
        });
    }
    out
}

/// The comparison as a table, flags on the lines that changed.
pub fn compare_table(changes: &[Change]) -> String {
    let mut out = format!(
        "{:<10} {:<16} {:<28} {:>11} {:>11} {:>9} {:>7}\n",
        "program", "graph", "set", "old ms", "new ms", "speedup", "noise"
    );
    let ms = |t: Option<f64>| t.map_or("-".to_string(), |t| format!("{t:.3}"));
    for c in changes {
        let speedup = match (c.old_ms, c.new_ms) {
            (Some(a), Some(b)) => format!("{:.2}x", a / b),
            _ => "-".into(),
        };
        let flag = match c.verdict {
            Verdict::Same => "",
            Verdict::Faster => "  faster",
            Verdict::Regression => "  REGRESSION",
            Verdict::Broken => "  BROKEN (not correct now)",
            Verdict::Fixed => "  fixed (correct now)",
            Verdict::NeitherOk => "  not correct in either",
        };
        out.push_str(&format!(
            "{:<10} {:<16} {:<28} {:>11} {:>11} {speedup:>9} {:>6.1}%{flag}\n",
            c.program,
            c.graph,
            c.set,
            ms(c.old_ms),
            ms(c.new_ms),
            c.noise * 100.0
        ));
    }
    out
}

/// One report of several runs' records, such as the calls of one suite split by graphs: their
/// records and peers side by side. Refused when the runs come from different GPUs (their times
/// do not share a table) or two of them measured the same program, graph and set (or peer
/// kernel and graph). One run may hold a peer's kernel on a graph more than once (it runs the
/// peer beside each program of the peer's family: LonestarGPU's sssp beside sssp-nf and
/// sssp-wl); that is not a second run.
pub fn merge(reports: Vec<BenchReport>) -> Result<BenchReport, String> {
    let mut it = reports.into_iter();
    let mut out = it.next().ok_or("no records to merge")?;
    let mut seen: BTreeSet<(String, String, String)> = out
        .records
        .iter()
        .map(|r| (r.program.clone(), r.graph.clone(), r.set.clone()))
        .collect();
    let mut seen_peers: BTreeSet<(String, String, String)> = out
        .peers
        .iter()
        .map(|p| (p.peer.clone(), p.kernel.clone(), p.graph.clone()))
        .collect();
    for r in it {
        if r.gpu != out.gpu {
            return Err(format!(
                "the records come from different GPUs ({} and {}): their times do not share a table",
                out.gpu.as_deref().unwrap_or("unknown"),
                r.gpu.as_deref().unwrap_or("unknown")
            ));
        }
        let mut new_records = BTreeSet::new();
        for rec in r.records {
            let key = (rec.program.clone(), rec.graph.clone(), rec.set.clone());
            if seen.contains(&key) {
                return Err(format!(
                    "{} on {} [{}] is in two of the records",
                    rec.program, rec.graph, rec.set
                ));
            }
            new_records.insert(key);
            out.records.push(rec);
        }
        seen.extend(new_records);
        let mut new_peers = BTreeSet::new();
        for peer in r.peers {
            let key = (peer.peer.clone(), peer.kernel.clone(), peer.graph.clone());
            if seen_peers.contains(&key) {
                return Err(format!(
                    "{} {} on {} is in two of the records",
                    peer.peer, peer.kernel, peer.graph
                ));
            }
            new_peers.insert(key);
            out.peers.push(peer);
        }
        seen_peers.extend(new_peers);
        out.complete &= r.complete;
        out.started = out.started.min(r.started);
        out.families.extend(r.families);
        if out.default_set.is_none() {
            out.default_set = r.default_set;
        }
        if out.peer_threads.is_none() {
            out.peer_threads = r.peer_threads;
        }
    }
    Ok(out)
}

/// Every table of a report, as `irglc bench` prints them at the end of a run and
/// `irglc bench show` prints them from its records: the programs (with the best correct peer
/// of each), the peers' runs, and the default set against the others.
pub fn tables(report: &BenchReport) -> String {
    let family_of = |p: &str| report.families.get(p).cloned();
    let mut out = String::new();
    if !report.complete {
        out.push_str("(an incomplete run: the records of the programs and graphs it reached)\n");
    }
    out.push_str(&table(report, &family_of));
    if let Some(peers) = peers_table(report) {
        out.push_str(&format!("\nThe peers:\n{peers}"));
    }
    if let Some(default) = &report.default_set
        && let Some(levels) = levels_table(report, default, &family_of)
    {
        out.push_str(&format!(
            "\nThe default build ({default}) against the other sets:\n{levels}"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUITE: &str = r#"
runs = 3
[[graph]]
name = "ny"
path = "ny.mtx"
[[graph]]
name = "r"
rmat = { scale = 10 }
[[set]]
name = "baseline"
[[set]]
name = "tb"
flags = "--nested tb"
[[program]]
file = "bfs.irgl"
[[program]]
file = "tc.irgl"
sets = ["tb"]
graphs = ["r"]
args = ["--x", "1"]
[gapbs]
path = "gap"
[lonestargpu]
path = "lsg"
[ecl]
path = "ecl"
"#;

    #[test]
    fn a_suite_reads_with_its_defaults() {
        let s = Suite::parse(SUITE).unwrap();
        assert_eq!(s.runs, 3);
        assert_eq!(s.timeout, 300.0);
        assert_eq!(
            s.graphs[1].rmat,
            Some(RmatSpec {
                scale: 10,
                edge_factor: 16,
                seed: 1,
                a: None,
                b: None,
                c: None,
            })
        );
        assert_eq!(s.sets[0].flags, "");
        let names = |v: Vec<&SetSpec>| v.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(s.sets_of(&s.programs[0])), ["baseline", "tb"]);
        assert_eq!(names(s.sets_of(&s.programs[1])), ["tb"]);
        assert_eq!(s.graphs_of(&s.programs[1]).len(), 1);
        assert_eq!(s.gapbs.as_ref().unwrap().delta, 256);
        assert_eq!(s.lonestargpu.as_ref().unwrap().path, "lsg");
        assert_eq!(s.ecl.as_ref().unwrap().path, "ecl");
    }

    #[test]
    fn bad_suites_say_what_is_wrong() {
        for (edit, message) in [
            (("sets = [\"tb\"]", "sets = [\"fg\"]"), "no set is named fg"),
            (
                ("graphs = [\"r\"]", "graphs = [\"x\"]"),
                "no graph is named x",
            ),
            (("runs = 3", "runs = 0"), "runs = 0"),
            (
                ("name = \"tb\"", "name = \"baseline\""),
                "two sets are named baseline",
            ),
            (
                (
                    "path = \"ny.mtx\"",
                    "path = \"ny.mtx\"\ngrid = { rows = 2, cols = 2 }",
                ),
                "exactly one of path, rmat, grid",
            ),
            (("runs = 3", "runs = 3\nrusn = 4"), "unknown field `rusn`"),
            (
                ("runs = 3", "runs = 3\ndefault_set = \"O2\""),
                "default_set = \"O2\": no set is named so",
            ),
            (
                (
                    "rmat = { scale = 10 }",
                    "star = { leaves = 4 }\npath_graph = { nodes = 3 }",
                ),
                "exactly one of path, rmat, grid",
            ),
        ] {
            let text = SUITE.replacen(edit.0, edit.1, 1);
            let err = Suite::parse(&text).unwrap_err();
            assert!(err.contains(message), "{message}: {err}");
        }
    }

    #[test]
    fn generated_shapes_and_rmat_parameters_read() {
        let text = SUITE
            .replacen("rmat = { scale = 10 }", "rmat = { scale = 10, a = 0.45, b = 0.15, c = 0.15 }", 1)
            .replacen(
                "[[set]]",
                "[[graph]]\nname = \"s\"\nstar = { leaves = 9 }\n[[graph]]\nname = \"p\"\npath_graph = { nodes = 5 }\n[[graph]]\nname = \"c\"\ncomponents = { count = 3, size = 4 }\n[[graph]]\nname = \"rnd\"\nrandom = { nodes = 10, edges = 20, symmetrize = true }\n[[graph]]\nname = \"msh\"\nmesh = { points = 100, seed = 3 }\n[[set]]",
                1,
            );
        let s = Suite::parse(&text).unwrap();
        assert_eq!(s.graphs[1].rmat.unwrap().a, Some(0.45));
        assert_eq!(s.graphs[2].star, Some(StarSpec { leaves: 9 }));
        assert_eq!(s.graphs[3].path_graph, Some(PathSpec { nodes: 5 }));
        assert_eq!(
            s.graphs[4].components,
            Some(ComponentsSpec {
                count: 3,
                size: 4,
                seed: 1
            })
        );
        assert_eq!(
            s.graphs[5].random,
            Some(RandomSpec {
                nodes: 10,
                edges: 20,
                seed: 1,
                symmetrize: true
            })
        );
        assert_eq!(
            s.graphs[6].mesh,
            Some(MeshSpec {
                points: 100,
                seed: 3
            })
        );
    }

    #[test]
    fn the_levels_table_compares_the_default_with_the_best_sets() {
        let r = report(&[
            ("g1", "O0", ok(&[10.0])),
            ("g1", "default", ok(&[2.0])),
            ("g1", "x", ok(&[1.0])),
            ("g2", "O0", ok(&[10.0])),
            ("g2", "default", ok(&[1.0])),
            ("g2", "x", ok(&[4.0])),
            ("g2", "y", ok(&[0.5])),
        ]);
        let family = |_: &str| None;
        let t = levels_table(&r, "default", &family).unwrap();
        // Best single: default (geomean sqrt(2)) over x (2); y ran on g2 only.
        assert!(
            t.contains("bfs: default = default, baseline = O0, best single = default"),
            "{t}"
        );
        assert!(t.contains("2.00x  x"), "{t}");
        assert!(t.contains("2.00x  y"), "{t}");
        assert!(
            t.contains("default / best per graph: 2.00x geometric mean, 2.00x worst"),
            "{t}"
        );
        assert!(levels_table(&r, "nope", &family).is_none());
    }

    #[test]
    fn the_best_correct_peer_stands_beside_each_program() {
        let mut r = report(&[("g1", "s", ok(&[2.0])), ("g2", "s", ok(&[2.0]))]);
        let peer = |peer: &str, kernel: &str, graph: &str, o: Outcome| {
            let median_ms = match &o {
                Outcome::Ok { times_ms } => Some(median(times_ms)),
                _ => None,
            };
            PeerRecord {
                peer: peer.into(),
                kernel: kernel.into(),
                graph: graph.into(),
                args: Vec::new(),
                outcome: o,
                median_ms,
                check: None,
            }
        };
        r.peers = vec![
            peer("gapbs", "bfs", "g1", ok(&[8.0])),
            peer("lonestargpu", "bfs", "g1", ok(&[4.0])),
            // Faster, but wrong: never the best.
            peer("lonestargpu", "sssp", "g1", ok(&[0.1])),
            peer("gapbs", "bfs", "g2", Outcome::Wrong { why: "x".into() }),
        ];
        assert_eq!(best_peer(&r, "bfs", "g1").unwrap().peer, "lonestargpu");
        assert!(best_peer(&r, "bfs", "g2").is_none());
        assert!(best_peer(&r, "cc", "g1").is_none());
        let family = |_: &str| Some("bfs".to_string());
        let t = table(&r, &family);
        assert!(t.contains("4.000 LSG"), "{t}");
        assert!(t.contains("2.00x"), "{t}");
        assert!(t.contains("failed"), "{t}");
        let p = peers_table(&r).unwrap();
        assert!(p.contains("lonestargpu  bfs"), "{p}");
        assert!(p.contains("WRONG"), "{p}");
        assert_eq!(peer_kernel("ecl", "color"), Some("ecl-gc"));
        assert_eq!(peer_kernel("lonestargpu", "pr"), Some("pagerank"));
        assert_eq!(peer_kernel("gapbs", "mis"), None);
    }

    fn report(rows: &[(&str, &str, Outcome)]) -> BenchReport {
        BenchReport {
            suite: "s.toml".into(),
            gpu: Some("GPU".into()),
            driver: None,
            irglc: "0".into(),
            started: 0,
            runs: 3,
            peer_threads: None,
            records: rows
                .iter()
                .map(|(g, set, o)| BenchRecord::new("bfs", g, set, String::new(), o.clone()))
                .collect(),
            peers: Vec::new(),
            complete: true,
            families: BTreeMap::new(),
            default_set: None,
        }
    }

    fn ok(times: &[f64]) -> Outcome {
        Outcome::Ok {
            times_ms: times.to_vec(),
        }
    }

    #[test]
    fn comparison_flags_changes_beyond_the_noise() {
        let old = report(&[
            ("a", "s", ok(&[10.0, 10.0, 10.0])),
            ("b", "s", ok(&[10.0, 10.0, 10.0])),
            ("c", "s", ok(&[10.0, 8.0, 12.0])),
            ("d", "s", ok(&[10.0])),
            ("e", "s", ok(&[10.0])),
            ("f", "s", Outcome::Wrong { why: "x".into() }),
            ("only-old", "s", ok(&[1.0])),
        ]);
        let new = report(&[
            ("a", "s", ok(&[12.0, 12.0, 12.0])),
            ("b", "s", ok(&[10.2, 10.2, 10.2])),
            ("c", "s", ok(&[12.0, 12.0, 12.0])),
            ("d", "s", ok(&[5.0])),
            ("e", "s", Outcome::Timeout { limit_s: 1.0 }),
            ("f", "s", ok(&[1.0])),
        ]);
        let changes = compare(&old, &new, 0.05);
        let verdicts: Vec<(&str, Verdict)> = changes
            .iter()
            .map(|c| (c.graph.as_str(), c.verdict))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("a", Verdict::Regression),
                // 2% is within the 5% threshold.
                ("b", Verdict::Same),
                // 20% slower, but the old runs spread by 20% around their median.
                ("c", Verdict::Same),
                ("d", Verdict::Faster),
                ("e", Verdict::Broken),
                ("f", Verdict::Fixed),
            ]
        );
        let table = compare_table(&changes);
        assert!(table.contains("REGRESSION"), "{table}");
        assert!(table.contains("0.83x"), "{table}");
    }

    #[test]
    fn merging_refuses_a_cell_two_runs_measured_but_not_a_peer_one_run_holds_twice() {
        let peer = |graph: &str| PeerRecord {
            peer: "lonestargpu".into(),
            kernel: "sssp".into(),
            graph: graph.into(),
            args: Vec::new(),
            outcome: ok(&[1.0]),
            median_ms: Some(1.0),
            check: None,
        };
        // One run holds LonestarGPU's sssp on a graph twice: once beside each sssp program.
        let with_peers = |graph: &str| {
            let mut r = report(&[(graph, "s", ok(&[1.0]))]);
            r.peers = vec![peer(graph), peer(graph)];
            r
        };
        for (first, second) in [("a", "b"), ("b", "a")] {
            let merged = merge(vec![with_peers(first), with_peers(second)]).unwrap();
            assert_eq!(merged.records.len(), 2);
            assert_eq!(merged.peers.len(), 4);
        }
        let err = merge(vec![with_peers("a"), with_peers("a")]).unwrap_err();
        assert!(
            err.contains("bfs on a [s] is in two of the records"),
            "{err}"
        );
        let mut b = with_peers("b");
        b.peers[1].graph = "a".into();
        let err = merge(vec![with_peers("a"), b]).unwrap_err();
        assert!(err.contains("lonestargpu sssp on a is in two"), "{err}");
    }

    #[test]
    fn reports_round_trip_through_json() {
        let r = report(&[("a", "s", ok(&[1.0, 2.0, 3.0]))]);
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("\"median_ms\":2.0"), "{text}");
        let back: BenchReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
    }
}
