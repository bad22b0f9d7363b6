//! `--grid`: the grid of host launches of kernels whose outer loop is plain. `items` gives
//! them one block per `BLOCK` items; uniform outer loops have that anyway (or, with fewer
//! items than the resident grid has threads, a block per item up to it), and launches in
//! control kernels run on the control kernel's grid. Like the `all` options, `items` applies
//! where it can: a program without a plain outer loop launched from the host is unchanged.

mod common;

use irgl_driver::OptConfig;
use irgl_ir::LaunchGrid;

/// The host's launch lines of the generated CUDA (`NAME<<<...`), in order.
fn launch_lines(cuda: &str) -> Vec<&str> {
    let host = &cuda[cuda.find("// ---- host side").expect("a host side")..];
    host.lines()
        .map(str::trim)
        .filter(|l| l.contains("<<<"))
        .collect()
}

#[test]
fn items_gives_plain_outer_loops_a_block_per_block_of_items() {
    let resident = common::compile("programs/bfs.irgl", &common::config("--nested serial"));
    let items = common::compile(
        "programs/bfs.irgl",
        &common::config("--nested serial --grid items"),
    );
    let before = launch_lines(&resident.cuda);
    let after = launch_lines(&items.cuda);
    assert_eq!(before.len(), after.len());
    assert!(!before.is_empty());
    for (b, a) in before.iter().zip(&after) {
        assert!(b.contains("<<<blocks_for(h, "), "{b}");
        assert!(
            a.contains("<<<blocks_all(") && a.ends_with("// --grid items"),
            "{a}"
        );
    }
    // The device code is the same: only the grid changes.
    assert_eq!(
        common::kernels(&resident.cuda),
        common::kernels(&items.cuda)
    );
    // A uniform outer loop (bfs's kernel with tb+fg) keeps its grid and its comment; init,
    // plain, takes the option.
    let c = common::compile(
        "programs/bfs.irgl",
        &common::config("--nested tb+fg --grid items"),
    );
    let lines = launch_lines(&c.cuda);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.ends_with("// --grid items"))
            .count(),
        1,
        "{lines:?}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("<<<blocks_spread(h, "))
            .count(),
        1,
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.contains("<<<blocks_all(") || l.contains("<<<blocks_spread(h, ")),
        "{lines:?}"
    );
}

/// A uniform outer loop with fewer items than the grid has threads gives each block an even
/// share, spaced over its warps; with enough items, BLOCK a block, one a thread, as before.
#[test]
fn a_uniform_outer_loop_spreads_a_small_frontier_over_the_grid() {
    let c = common::compile("programs/bfs.irgl", &common::config("--nested tb+fg"));
    for line in [
        "const uint32_t irgl_per0 = irgl::items_per_block<BLOCK>(irgl_total0, gridDim.x);",
        "const uint32_t irgl_gap0 = BLOCK / irgl_per0;",
        "irgl_base0 += static_cast<uint64_t>(irgl_per0) * gridDim.x) {",
        "const uint64_t irgl_i0 = irgl_base0 + static_cast<uint64_t>(blockIdx.x) * irgl_per0 + irgl_slot0;",
        "const bool irgl_active0 = threadIdx.x % irgl_gap0 == 0 && irgl_slot0 < irgl_per0 && irgl_i0 < irgl_total0;",
        "<<<blocks_spread(h, h.wl.in().size()), BLOCK>>>",
    ] {
        assert!(c.cuda.contains(line), "missing `{line}`");
    }
}

#[test]
fn the_grid_round_trips_through_flags_and_json() {
    let c = common::config("--grid items");
    assert_eq!(c.grid, LaunchGrid::Items);
    assert_eq!(
        c.canonical(),
        "-O0 --block-size 256 --nested serial --grid items"
    );
    assert_eq!(OptConfig::from_args(&c.to_args()), Ok(c.clone()));
    let json = serde_json::to_string(&c).unwrap();
    assert!(json.contains(r#""grid":"items""#), "{json}");
    assert_eq!(serde_json::from_str::<OptConfig>(&json).unwrap(), c);
    assert!(serde_json::from_str::<OptConfig>(r#"{"grid":"all"}"#).is_err());
    assert_eq!(OptConfig::default().grid, LaunchGrid::Resident);
    assert!(OptConfig::from_args(&["--grid", "some"]).is_err());
}

/// One kernel, whose nested loop the schedulers take: its outer loop becomes uniform.
const ONLY_UNIFORM: &str = r#"
graph g {
  node dist: u32;
}

Kernel relax(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      atomicMin(g.dist[g.dst(e)], g.dist[n] + 1);
    }
  }
}

main {
  Invoke relax(g);
}
"#;

#[test]
fn items_applies_where_it_can_as_the_all_options_do() {
    // No plain outer loop: the same file as without the option (but its header).
    let with = common::compile_text(
        "only-uniform.irgl",
        ONLY_UNIFORM,
        &common::config("--nested tb+fg --grid items"),
    );
    let without = common::compile_text(
        "only-uniform.irgl",
        ONLY_UNIFORM,
        &common::config("--nested tb+fg"),
    );
    let body = |cuda: &str| cuda[cuda.find("#include").unwrap()..].to_string();
    assert_eq!(body(&with.cuda), body(&without.cuda));
    // With a serial nested loop the outer loop is plain, and the option applies.
    let c = common::compile_text(
        "only-uniform.irgl",
        ONLY_UNIFORM,
        &common::config("--grid items"),
    );
    assert!(c.cuda.contains("// --grid items"));
}
