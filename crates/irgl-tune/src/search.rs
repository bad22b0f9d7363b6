//! Which distinct programs a tuning run measures. A full sweep of a large space takes long
//! (sssp-nf has 145 distinct programs), so besides the exhaustive sweep there are two budgeted
//! searches, both of which always measure the baseline first:
//!
//! - **random**: the baseline and a seeded random sample of the other distinct programs, as
//!   many as the budget allows;
//! - **greedy**: coordinate descent over the dimensions, one at a time (schedule, outline,
//!   aggregation, block size): every value of the dimension is tried with the others held at
//!   the best point so far, and the best by the geometric mean of its speedups over the
//!   baseline (correct on every graph) becomes the new point. Passes repeat until one changes
//!   nothing or the budget is spent. Variants whose code is one already measured cost nothing.
//!
//! The search is pure: it asks the caller to measure batches of groups (which builds and runs
//! them, in parallel where it can) and reads back each group's median per graph.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::results::geomean;
use crate::space::{Dimensions, Group};

/// How to choose what to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Every distinct program.
    Exhaustive,
    /// The baseline and a seeded random sample, `budget` distinct programs in all.
    Random { budget: usize, seed: u64 },
    /// Coordinate descent over the dimensions, at most `budget` distinct programs.
    Greedy { budget: usize },
}

impl Search {
    /// The search's name, as `--search` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Search::Exhaustive => "exhaustive",
            Search::Random { .. } => "random",
            Search::Greedy { .. } => "greedy",
        }
    }
}

/// What measuring a group gave: its median time on each graph, in the order of the graphs,
/// or none where it was not correct on every graph.
pub type Medians = Option<Vec<f64>>;

/// Runs the search: `measure` gets batches of group indices (never one twice) and returns
/// their medians in the same order. Returns the groups measured, in the order measured.
pub fn search(
    how: Search,
    d: &Dimensions,
    groups: &[Group],
    measure: &mut dyn FnMut(&[usize]) -> Vec<Medians>,
) -> Vec<usize> {
    let mut s = State {
        known: vec![None; groups.len()],
        order: Vec::new(),
        measure,
    };
    match how {
        Search::Exhaustive => {
            let all: Vec<usize> = (0..groups.len()).collect();
            s.measure(&all);
        }
        Search::Random { budget, seed } => {
            let mut rest: Vec<usize> = (1..groups.len()).collect();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            // Fisher-Yates, the first `budget - 1` places only.
            let take = budget.saturating_sub(1).min(rest.len());
            for i in 0..take {
                let j = i + below(&mut rng, rest.len() - i);
                rest.swap(i, j);
            }
            let mut batch = vec![0];
            batch.extend_from_slice(&rest[..take]);
            if budget > 0 {
                s.measure(&batch);
            }
        }
        Search::Greedy { budget } => greedy(&mut s, d, groups, budget),
    }
    s.order
}

/// A uniform index in `0..bound` (multiply-high; the bias is negligible for these sizes).
fn below(rng: &mut ChaCha8Rng, bound: usize) -> usize {
    ((u128::from(rng.next_u64()) * bound as u128) >> 64) as usize
}

struct State<'a> {
    /// Per group, once measured: its medians.
    known: Vec<Option<Medians>>,
    order: Vec<usize>,
    measure: &'a mut dyn FnMut(&[usize]) -> Vec<Medians>,
}

impl State<'_> {
    /// Measures the groups of `batch` not measured yet.
    fn measure(&mut self, batch: &[usize]) {
        let mut todo: Vec<usize> = Vec::new();
        for &g in batch {
            if self.known[g].is_none() && !todo.contains(&g) {
                todo.push(g);
            }
        }
        if todo.is_empty() {
            return;
        }
        let got = (self.measure)(&todo);
        assert_eq!(got.len(), todo.len(), "one result per group measured");
        for (g, m) in todo.into_iter().zip(got) {
            self.known[g] = Some(m);
            self.order.push(g);
        }
    }

    /// A measured group's geometric mean of speedups over the baseline (group 0), if it and
    /// the baseline were correct on every graph.
    fn score(&self, g: usize) -> Option<f64> {
        let base = self.known[0].as_ref()?.as_ref()?;
        let mine = self.known[g].as_ref()?.as_ref()?;
        let speedups: Vec<f64> = base.iter().zip(mine).map(|(b, m)| b / m).collect();
        Some(geomean(&speedups))
    }
}

/// A variant's coordinates: schedule, aggregation, outline, block size, grid wait (the order
/// of [`crate::variants`], innermost first).
type Point = [usize; 5];

fn index_of(d: &Dimensions, p: Point) -> usize {
    (((p[4] * d.block_sizes.len() + p[3]) * d.outlines.len() + p[2]) * d.aggregates.len() + p[1])
        * d.schedules.len()
        + p[0]
}

fn greedy(s: &mut State<'_>, d: &Dimensions, groups: &[Group], budget: usize) {
    let mut group_of = vec![0; d.product()];
    for (gi, g) in groups.iter().enumerate() {
        for &v in &g.members {
            group_of[v] = gi;
        }
    }
    if budget == 0 {
        return;
    }
    s.measure(&[0]);
    let sizes = [
        d.schedules.len(),
        d.aggregates.len(),
        d.outlines.len(),
        d.block_sizes.len(),
        d.grid_waits.len(),
    ];
    // The dimension that matters most first: schedules, then outlining, aggregation, block,
    // the grid wait (which changes only variants with gd).
    const ORDER: [usize; 5] = [0, 2, 1, 3, 4];
    let mut point: Point = [0; 5];
    loop {
        let mut changed = false;
        for dim in ORDER {
            if sizes[dim] < 2 {
                continue;
            }
            let candidates: Vec<(Point, usize)> = (0..sizes[dim])
                .map(|v| {
                    let mut p = point;
                    p[dim] = v;
                    (p, group_of[index_of(d, p)])
                })
                .collect();
            let room = budget.saturating_sub(s.order.len());
            let mut batch = Vec::new();
            for &(_, g) in &candidates {
                if s.known[g].is_none() && !batch.contains(&g) && batch.len() < room {
                    batch.push(g);
                }
            }
            s.measure(&batch);
            let here = s.score(group_of[index_of(d, point)]);
            let best = candidates
                .iter()
                .filter_map(|&(p, g)| s.score(g).map(|sc| (p, sc)))
                .fold(None::<(Point, f64)>, |acc, (p, sc)| match acc {
                    Some((_, a)) if a >= sc => acc,
                    _ => Some((p, sc)),
                });
            if let Some((p, sc)) = best
                && p != point
                && here.is_none_or(|h| sc > h)
            {
                point = p;
                changed = true;
            }
        }
        if !changed || s.order.len() >= budget {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::space::{OutlineChoice, Variant, variants};
    use irgl_ir::GridSize;
    use irgl_opt::{AggregateLevel, OutlineConfig, ScheduleSpec};

    /// A space of 3 schedules x 2 aggregation levels x 2 orchestration choices, each variant its
    /// own group.
    fn space() -> (Dimensions, Vec<Variant>, Vec<Group>) {
        let d = Dimensions {
            schedules: ["serial", "tb", "fg"]
                .iter()
                .map(|s| ScheduleSpec::parse(s).unwrap())
                .collect(),
            aggregates: vec![AggregateLevel::None, AggregateLevel::Warp],
            outlines: vec![
                OutlineChoice {
                    nodes: OutlineConfig::None,
                    grid: GridSize::Resident,
                    asynchronous: false,
                    async_local: false,
                    backoff: None,
                    drop: false,
                    split: false,
                    settle: false,
                },
                OutlineChoice {
                    nodes: OutlineConfig::Outer,
                    grid: GridSize::Resident,
                    asynchronous: false,
                    async_local: false,
                    backoff: None,
                    drop: false,
                    split: false,
                    settle: false,
                },
            ],
            block_sizes: vec![256],
            grid_waits: vec![false],
            fixed: Vec::new(),
        };
        let vs = variants(&d);
        let groups = (0..vs.len())
            .map(|i| Group {
                members: vec![i],
                cuda: String::new(),
            })
            .collect();
        (d, vs, groups)
    }

    /// Times on two graphs from a variant's name: fg is fast, outline faster still on the
    /// second graph, agg-warp slightly slow, tb wrong.
    fn time(name: &str) -> Medians {
        if name.contains("tb") {
            return None;
        }
        let mut t = [10.0, 10.0];
        if name.contains("fg") {
            t = [2.0, 4.0];
        }
        if name.contains("outline") {
            t[1] /= 2.0;
        }
        if name.contains("agg-warp") {
            t = [t[0] * 1.1, t[1] * 1.1];
        }
        Some(t.to_vec())
    }

    #[test]
    fn exhaustive_measures_everything_once() {
        let (d, vs, groups) = space();
        let mut batches = Vec::new();
        let order = search(Search::Exhaustive, &d, &groups, &mut |b| {
            batches.push(b.to_vec());
            b.iter().map(|&g| time(&vs[g].name)).collect()
        });
        assert_eq!(order, (0..vs.len()).collect::<Vec<_>>());
        assert_eq!(batches.len(), 1);
    }

    #[test]
    fn random_takes_the_baseline_and_a_seeded_sample() {
        let (d, vs, groups) = space();
        let run = |seed| {
            search(Search::Random { budget: 5, seed }, &d, &groups, &mut |b| {
                b.iter().map(|&g| time(&vs[g].name)).collect()
            })
        };
        let a = run(1);
        assert_eq!(a.len(), 5);
        assert_eq!(a[0], 0, "the baseline first");
        let mut unique = a.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 5);
        assert_eq!(run(1), a, "the same seed, the same sample");
        assert_ne!(run(2), a, "another seed, another sample");
        // A budget beyond the space measures it all.
        let all = search(
            Search::Random {
                budget: 100,
                seed: 1,
            },
            &d,
            &groups,
            &mut |b| b.iter().map(|&g| time(&vs[g].name)).collect(),
        );
        assert_eq!(all.len(), vs.len());
    }

    #[test]
    fn greedy_walks_one_dimension_at_a_time_to_the_best_point() {
        let (d, vs, groups) = space();
        let mut seen = Vec::new();
        let order = search(Search::Greedy { budget: 100 }, &d, &groups, &mut |b| {
            b.iter()
                .map(|&g| {
                    seen.push(vs[g].name.clone());
                    time(&vs[g].name)
                })
                .collect()
        });
        // Schedules first (fg wins, tb is wrong), then outlining with fg (wins), then
        // aggregation with fg+outline (loses), then a second pass that changes nothing.
        assert_eq!(
            seen,
            [
                "baseline",
                "tb",
                "fg",
                "fg+outline",
                "fg+agg-warp+outline",
                "outline",
                "tb+outline"
            ]
        );
        assert_eq!(order.len(), seen.len());
        // With a budget of 3, it stops after the schedules.
        let order = search(Search::Greedy { budget: 3 }, &d, &groups, &mut |b| {
            b.iter().map(|&g| time(&vs[g].name)).collect()
        });
        assert_eq!(order.len(), 3);
    }
}
