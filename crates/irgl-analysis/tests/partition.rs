//! Whether each program can run partitioned over several GPUs (a snapshot of `irglc emit
//! partition`'s text for every program), and small programs that each break one rule, with
//! the reason, or keep them, with what each round would exchange.

mod common;

use common::{compile, workspace};

use irgl_analysis::PartitionPlan;
use irgl_analysis::partition::{PushDelivery, Sync};
use irgl_ir::{AtomicOp, Module};

fn plan_of(kernels: &str) -> (Module, PartitionPlan) {
    let text = format!(
        "graph g {{\n  node x: u32;\n  node y: u32;\n  node p: node;\n}}\n{kernels}\nmain {{\n  Invoke k(g);\n}}\n"
    );
    let m = compile("t.irgl", &text);
    let plan = PartitionPlan::build(&m);
    (m, plan)
}

fn refusal(kernels: &str) -> String {
    let (_, plan) = plan_of(kernels);
    let r = plan.verdict.expect_err("refused");
    assert_eq!(r.kernel.as_deref(), Some("k"));
    r.why
}

#[test]
fn every_program() {
    let mut names: Vec<String> = std::fs::read_dir(workspace().join("programs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".irgl"))
        .collect();
    names.sort();
    let mut text = String::new();
    for name in names {
        let rel = format!("programs/{name}");
        let src = std::fs::read_to_string(workspace().join(&rel)).unwrap();
        let m = compile(&rel, &src);
        text.push_str(&format!(
            "== {name}\n{}",
            PartitionPlan::build(&m).render(&m)
        ));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn what_each_round_exchanges() {
    // x: lowered at heads (min); y: written by its own node, read at heads; the edge loop
    // is a `for` over the node's own edges.
    let (m, plan) = plan_of(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    g.y[n] = g.x[n] + 1;
    for (let e = g.edge_begin(n); e < g.edge_end(n); e++) {
      let v = g.dst(e);
      if (g.y[v] > 1) {
        atomicMin(g.x[v], g.y[n]);
      }
    }
  }
}",
    );
    let exchanges = plan.verdict.expect("accepted").exchanges;
    let got: Vec<(&str, Sync)> = exchanges
        .iter()
        .map(|x| (m.prop(x.prop).name.as_str(), x.sync))
        .collect();
    assert_eq!(
        got,
        [("x", Sync::Merge(AtomicOp::Min)), ("y", Sync::Broadcast)]
    );
    assert!(
        PartitionPlan::build(&m)
            .render(&m)
            .starts_with("partitioned execution: yes\n  x: updated at neighbours by atomicMin")
    );
}

#[test]
fn an_atomic_that_changes_nothing_is_a_read() {
    // `atomicOr(w, 0)` (mis's fresh read of a neighbour's word) reads x at heads: x is
    // copied from masters to mirrors, not merged by or (which would bring back a mirror's
    // stale bits into a master that has moved on).
    let (m, plan) = plan_of(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    let seen: u32 = 0;
    for (let e = g.edge_begin(n); e < g.edge_end(n); e++) {
      seen |= atomicOr(g.x[g.dst(e)], 0);
    }
    g.x[n] = seen + 1;
  }
}",
    );
    let exchanges = plan.verdict.expect("accepted").exchanges;
    assert_eq!(exchanges.len(), 1);
    assert_eq!(m.prop(exchanges[0].prop).name, "x");
    assert_eq!(exchanges[0].sync, Sync::Broadcast);
    // A non-zero operand is an update, merged by or.
    let (_, plan) = plan_of(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      atomicOr(g.x[g.dst(e)], 2);
    }
  }
}",
    );
    let exchanges = plan.verdict.expect("accepted").exchanges;
    assert_eq!(exchanges[0].sync, Sync::Merge(AtomicOp::Or));
}

/// How pushes are delivered for a worklist kernel `k` with this body (inside `ForAll (wi In
/// WL) { let n = WL.pop(wi); ... }`), and why they are counted.
fn delivery(body: &str) -> (PushDelivery, Option<String>) {
    let text = format!(
        "graph g {{\n  node x: u32;\n  node y: u32;\n}}\nKernel k(graph g) {{\n  ForAll (wi In WL) {{\n    let n = WL.pop(wi);\n{body}\n  }}\n}}\nmain {{\n  Iterate k(g) Initial [0];\n}}\n"
    );
    let m = compile("w.irgl", &text);
    let plan = PartitionPlan::build(&m);
    let pushes = plan.verdict.expect("accepted").pushes;
    (
        pushes,
        plan.counted_because.map(|(k, why)| format!("{k}: {why}")),
    )
}

#[test]
fn pushes_are_merged_only_where_a_second_pass_over_an_item_does_nothing_more() {
    // sssp's and cc's relaxation: a second pass repeats the same atomicMins.
    let relax = "    let dn = g.x[n];
    ForAll (e In g.edges(n)) {
      let d = g.dst(e);
      if (dn + 1 < atomicMin(g.x[d], dn + 1)) {
        WL.push(d);
      }
    }";
    assert_eq!(delivery(relax), (PushDelivery::Once, None));
    // bfs's store of one value, and a store of a value read elsewhere.
    assert_eq!(
        delivery(
            "    g.y[n] = 3;\n    ForAll (e In g.edges(n)) {\n      g.x[g.dst(e)] = 1;\n    }"
        )
        .0,
        PushDelivery::Once
    );
    for (body, why) in [
        ("    atomicAdd(g.y[n], 1);", "k: updates `y` with atomicAdd"),
        (
            "    g.y[n] += 1;",
            "k: updates `y` by a read and a store (`op=`)",
        ),
        (
            "    let t = g.y[n];\n    g.y[n] = t + 1;",
            "k: updates `y` with a value computed from `y` at the same node",
        ),
        (
            "    let old = atomicExch(g.x[n], 0);\n    g.y[n] = old;",
            "k: stores an atomic's old value in `y`",
        ),
        (
            "    ForAll (e In g.edges(n)) {\n      let d = g.dst(e);\n      atomicMin(g.x[d], g.x[d] - 1);\n    }",
            "k: updates `x` with a value computed from `x` at the same node",
        ),
    ] {
        assert_eq!(
            delivery(body),
            (PushDelivery::Counted, Some(why.to_string())),
            "{body}"
        );
    }
}

#[test]
fn a_store_to_a_neighbour_is_refused_unless_every_thread_stores_one_value() {
    let why = refusal(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      g.x[g.dst(e)] = g.y[n];
    }
  }
}",
    );
    assert!(
        why.starts_with("stores to `x` of a neighbour a value that differs between threads"),
        "{why}"
    );
    // bfs's store: the same value (a kernel parameter plus a constant) from every thread.
    let text = "graph g {\n  node x: u32;\n}\nconst ONE: u32 = 1;\nKernel k(graph g, u32 L) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      let d = g.dst(e);
      if (g.x[d] == 0) {
        g.x[d] = L + ONE;
      }
    }
  }
}\nmain {\n  Invoke k(g, 3);\n}\n";
    let m = compile("u.irgl", text);
    let plan = PartitionPlan::build(&m);
    let exchanges = plan.verdict.expect("accepted").exchanges;
    assert_eq!(exchanges.len(), 1);
    assert_eq!(exchanges[0].sync, Sync::Uniform);
}

#[test]
fn a_read_and_store_at_a_neighbour_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      g.x[g.dst(e)] += 1;
    }
  }
}",
    );
    assert!(
        why.starts_with("updates `x` of another node by a read and a store"),
        "{why}"
    );
}

#[test]
fn a_pointer_chase_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    g.x[n] = g.x[g.p[n]];
  }
}",
    );
    assert!(
        why.starts_with("reads `x` at an index that is neither"),
        "{why}"
    );
}

#[test]
fn a_compare_and_swap_at_a_neighbour_is_refused() {
    let why = refusal(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      atomicCAS(g.x[g.dst(e)], 0, 1);
    }
  }
}",
    );
    assert!(
        why.starts_with("updates `x` of a neighbour with atomicCAS"),
        "{why}"
    );
}

#[test]
fn two_merges_of_one_property_are_refused() {
    let why = refusal(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      atomicMin(g.x[g.dst(e)], 1);
      atomicMax(g.x[g.dst(e)], 2);
    }
  }
}",
    );
    assert!(why.contains("one merge per property"), "{why}");
}

#[test]
fn a_sum_read_at_neighbours_is_refused() {
    let (_, plan) = plan_of(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      let v = g.dst(e);
      if (g.x[v] < 10) {
        atomicAdd(g.x[v], 1);
      }
    }
  }
}",
    );
    let r = plan.verdict.expect_err("refused");
    assert!(
        r.why
            .contains("a mirror holds only its own GPU's additions"),
        "{r:?}"
    );
}

#[test]
fn an_edge_that_is_not_the_nodes_own_is_refused() {
    // The edge after the node's last one is another node's.
    let why = refusal(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    let e = g.edge_begin(n);
    let v = g.dst(e + g.y[n]);
    atomicMin(g.x[v], 1);
  }
}",
    );
    assert!(why.contains("neither its own node nor the head"), "{why}");
}

#[test]
fn the_degree_of_a_neighbour_is_refused() {
    // A mirror has no edges on its GPU: its degree there is 0.
    let why = refusal(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      let v = g.dst(e);
      atomicMax(g.x[v], g.degree(v));
    }
  }
}",
    );
    assert!(
        why.contains("`g.degree` of a node that is not its own"),
        "{why}"
    );
    // Its own degree is its master's, which holds all its edges.
    let (_, plan) = plan_of(
        "Kernel k(graph g) {
  ForAll (n In g.nodes) {
    ForAll (e In g.edges(n)) {
      let v = g.dst(e);
      atomicMax(g.x[v], g.degree(n));
    }
  }
}",
    );
    assert!(plan.verdict.is_ok(), "{:?}", plan.verdict);
}
