//! What a tuning run measured, ranked: each variant's outcome on each graph, the variants
//! ranked per graph by median time, the best single variant across the graphs, and the
//! result files (JSON and CSV). A variant that ran wrong, failed or timed out on a graph is
//! reported and never ranked on it; the best single variant must be correct on every graph.

use serde::{Deserialize, Serialize};

/// How one variant did on one graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// It ran and its output matched the CPU reference: the times of its runs, in ms.
    Ok { times_ms: Vec<f64> },
    /// Its output did not match the reference: the verifier's first line.
    Wrong { why: String },
    /// It ran past the time limit, in seconds, and was stopped.
    Timeout { limit_s: f64 },
    /// It did not run to the end: the exit status or the error.
    Failed { why: String },
    /// Racing (`irglc tune --race`) stopped it at `limit_s` seconds, `margin` times the whole
    /// run of the fastest variant so far on the graph (`best_s`): clearly slower, not
    /// measured further.
    Raced {
        limit_s: f64,
        best_s: f64,
        margin: f64,
    },
}

impl Outcome {
    /// One line for reports: `ok, 5 runs`, `WRONG, ...`, `stopped after 60 s`, ...
    pub fn describe(&self) -> String {
        match self {
            Outcome::Ok { times_ms } => format!("ok, {} runs", times_ms.len()),
            Outcome::Wrong { why } => format!("WRONG, {why}"),
            Outcome::Timeout { limit_s } => format!("stopped after {limit_s} s"),
            Outcome::Failed { why } => format!("failed, {why}"),
            Outcome::Raced {
                limit_s,
                best_s,
                margin,
            } => format!(
                "raced out: stopped after {limit_s:.2} s, {margin}x the fastest variant so far ({best_s:.2} s)"
            ),
        }
    }

    /// Whether the outcome is one a run can give: a correct run has one time or more, each
    /// finite and not negative. A record read from a file (the measurement cache, a bench
    /// report) that is not is corrupt.
    pub fn check(&self) -> Result<(), String> {
        match self {
            Outcome::Ok { times_ms } if times_ms.is_empty() => {
                Err("a correct run without times".into())
            }
            Outcome::Ok { times_ms } => {
                match times_ms.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
                    Some(t) => Err(format!("a time of {t} ms")),
                    None => Ok(()),
                }
            }
            Outcome::Timeout { limit_s } | Outcome::Raced { limit_s, .. }
                if !(limit_s.is_finite() && *limit_s > 0.0) =>
            {
                Err(format!("a time limit of {limit_s} s"))
            }
            _ => Ok(()),
        }
    }
}

/// The most timed runs of one program on one graph.
pub const MAX_RUNS: u32 = 10_000;

/// The longest time limit, in seconds: a week.
pub const MAX_TIMEOUT_S: f64 = 7.0 * 24.0 * 3600.0;

/// `runs` (`--runs`, a suite's `runs`) if it is in `1..=MAX_RUNS`, else why not.
pub fn check_runs(runs: u32) -> Result<u32, String> {
    match runs {
        0 => Err("0: each program runs at least once".into()),
        r if r > MAX_RUNS => Err(format!("{r}: at most {MAX_RUNS} timed runs")),
        r => Ok(r),
    }
}

/// A time limit in seconds (`--timeout`, a suite's `timeout`) if it is positive and at most
/// [`MAX_TIMEOUT_S`], else why not.
pub fn check_timeout(secs: f64) -> Result<std::time::Duration, String> {
    if secs > 0.0 && secs <= MAX_TIMEOUT_S {
        std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("{secs}: {e}"))
    } else {
        Err(format!(
            "{secs}: a positive number of seconds, at most {MAX_TIMEOUT_S} (a week)"
        ))
    }
}

/// One variant on one graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    pub variant: String,
    /// The `irglc compile` options that build it.
    pub options: String,
    pub graph: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

impl Measurement {
    /// The median time of a correct run.
    pub fn median_ms(&self) -> Option<f64> {
        match &self.outcome {
            Outcome::Ok { times_ms } if !times_ms.is_empty() => Some(median(times_ms)),
            _ => None,
        }
    }
}

/// The median of a non-empty list (the mean of the middle two for an even length).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The geometric mean of positive numbers (1 for none).
pub fn geomean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 1.0;
    }
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

/// A variant's place on one graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Placed {
    pub variant: String,
    pub median_ms: f64,
    /// The baseline's median over this variant's, when the baseline ran correctly.
    pub speedup: Option<f64>,
}

/// The ranking of a tuning run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ranking {
    /// Per graph, in the order first seen: the correct variants, fastest first.
    pub graphs: Vec<(String, Vec<Placed>)>,
    /// The variant with the best geometric mean of speedups over the graphs, among those
    /// correct on every graph, with that mean; none without a correct baseline everywhere.
    pub best_overall: Option<(String, f64)>,
    /// Every measurement that is not ranked, with its outcome.
    pub excluded: Vec<Measurement>,
}

/// Ranks `ms`; `baseline` names the variant the speedups are measured against. Ties keep the
/// order of `ms`.
pub fn rank(ms: &[Measurement], baseline: &str) -> Ranking {
    let mut graphs: Vec<(String, Vec<Placed>)> = Vec::new();
    let mut excluded = Vec::new();
    for m in ms {
        let Some(t) = m.median_ms() else {
            excluded.push(m.clone());
            continue;
        };
        let slot = match graphs.iter().position(|(g, _)| *g == m.graph) {
            Some(i) => i,
            None => {
                graphs.push((m.graph.clone(), Vec::new()));
                graphs.len() - 1
            }
        };
        graphs[slot].1.push(Placed {
            variant: m.variant.clone(),
            median_ms: t,
            speedup: None,
        });
    }
    for (_, placed) in &mut graphs {
        let base = placed
            .iter()
            .find(|p| p.variant == baseline)
            .map(|p| p.median_ms);
        for p in placed.iter_mut() {
            // A time of 0 (a clock too coarse for a tiny run) has no finite speedup.
            p.speedup = base
                .map(|b| b / p.median_ms)
                .filter(|s| s.is_finite() && *s > 0.0);
        }
        // Stable: variants of the same time (those that share a program) keep the order of
        // the measurements, so that the first, the one whose options name what the code
        // does, is the one ranked first.
        placed.sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
    }
    // The best single variant: correct on every graph, by the geometric mean of its speedups.
    let mut best: Option<(String, f64)> = None;
    if let Some((_, first)) = graphs.first() {
        for candidate in first {
            let speedups: Option<Vec<f64>> = graphs
                .iter()
                .map(|(_, placed)| {
                    placed
                        .iter()
                        .find(|p| p.variant == candidate.variant)
                        .and_then(|p| p.speedup)
                })
                .collect();
            let Some(s) = speedups else { continue };
            let mean = geomean(&s);
            if best.as_ref().is_none_or(|(_, m)| mean > *m) {
                best = Some((candidate.variant.clone(), mean));
            }
        }
    }
    Ranking {
        graphs,
        best_overall: best,
        excluded,
    }
}

/// The measurements as CSV: one line per variant and graph, with the median (empty unless
/// correct) and the outcome.
/// The measurements as CSV, each row naming how its output was checked (`check`).
pub fn to_csv(ms: &[Measurement], check: &str) -> String {
    let mut out = String::from("variant,graph,outcome,median_ms,runs,options,detail,check\n");
    for m in ms {
        let (outcome, runs, detail) = match &m.outcome {
            Outcome::Ok { times_ms } => ("ok", times_ms.len(), String::new()),
            Outcome::Wrong { why } => ("wrong", 0, why.clone()),
            Outcome::Timeout { limit_s } => ("timeout", 0, format!("limit {limit_s} s")),
            Outcome::Failed { why } => ("failed", 0, why.clone()),
            Outcome::Raced { .. } => ("raced", 0, m.outcome.describe()),
        };
        let median = m.median_ms().map(|t| format!("{t}")).unwrap_or_default();
        out.push_str(&format!(
            "{},{},{outcome},{median},{runs},{},{},{}\n",
            csv_field(&m.variant),
            csv_field(&m.graph),
            csv_field(&m.options),
            csv_field(&detail),
            csv_field(check)
        ));
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The measurements and the ranking as one JSON document, with how the outputs were checked.
pub fn to_json(program: &str, check: &str, ms: &[Measurement], ranking: &Ranking) -> String {
    let doc = serde_json::json!({
        "program": program,
        "check": check,
        "measurements": ms,
        "ranking": ranking,
    });
    serde_json::to_string_pretty(&doc).expect("plain data serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(variant: &str, graph: &str, times: &[f64]) -> Measurement {
        Measurement {
            variant: variant.into(),
            options: format!("--nested {variant}"),
            graph: graph.into(),
            outcome: Outcome::Ok {
                times_ms: times.to_vec(),
            },
        }
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn wrong_failed_and_slow_variants_are_never_ranked() {
        let mut ms = vec![
            ok("baseline", "g1", &[10.0, 12.0, 11.0]),
            ok("tb", "g1", &[5.0, 5.0, 6.0]),
            ok("fast-but-wrong", "g1", &[1.0]),
            ok("baseline", "g2", &[20.0]),
            ok("tb", "g2", &[40.0]),
            ok("fast-but-wrong", "g2", &[1.0]),
        ];
        ms[2].outcome = Outcome::Wrong {
            why: "bfs: MISMATCH".into(),
        };
        ms.push(Measurement {
            outcome: Outcome::Timeout { limit_s: 60.0 },
            ..ok("hangs", "g1", &[])
        });
        ms.push(Measurement {
            outcome: Outcome::Failed {
                why: "exit status 1".into(),
            },
            ..ok("crashes", "g2", &[])
        });
        let r = rank(&ms, "baseline");
        let g1: Vec<&str> = r.graphs[0].1.iter().map(|p| p.variant.as_str()).collect();
        assert_eq!(g1, ["tb", "baseline"]);
        assert_eq!(r.graphs[0].1[0].speedup, Some(11.0 / 5.0));
        let g2: Vec<&str> = r.graphs[1].1.iter().map(|p| p.variant.as_str()).collect();
        assert_eq!(g2, ["fast-but-wrong", "baseline", "tb"]);
        // fast-but-wrong (20x on g2) is not correct on g1: it cannot be the best single
        // variant; tb is, 2.2x and 0.5x.
        let (best, mean) = r.best_overall.clone().unwrap();
        assert_eq!(best, "tb");
        assert!((mean - (2.2f64 * 0.5).sqrt()).abs() < 1e-12);
        let excluded: Vec<&str> = r.excluded.iter().map(|m| m.variant.as_str()).collect();
        assert_eq!(excluded, ["fast-but-wrong", "hangs", "crashes"]);
    }

    #[test]
    fn the_best_single_variant_is_by_geometric_mean() {
        let ms = vec![
            ok("baseline", "g1", &[10.0]),
            ok("a", "g1", &[2.5]),
            ok("b", "g1", &[5.0]),
            ok("baseline", "g2", &[10.0]),
            ok("a", "g2", &[20.0]),
            ok("b", "g2", &[5.0]),
        ];
        // a: 4x and 0.5x (mean sqrt(2)); b: 2x and 2x (mean 2).
        let r = rank(&ms, "baseline");
        let (best, mean) = r.best_overall.unwrap();
        assert_eq!(best, "b");
        assert!((mean - 2.0).abs() < 1e-12);
        // Variants of one program (the same times) keep the order of the measurements: the
        // first is ranked and chosen first, whatever the names.
        let tied = vec![
            ok("baseline", "g1", &[10.0]),
            ok("z-first", "g1", &[5.0]),
            ok("a-second", "g1", &[5.0]),
        ];
        let r = rank(&tied, "baseline");
        assert_eq!(r.graphs[0].1[0].variant, "z-first");
        assert_eq!(r.best_overall.unwrap().0, "z-first");
        // Without a correct baseline there are no speedups and no best variant.
        let r = rank(&ms[1..3], "baseline");
        assert_eq!(r.graphs[0].1[0].speedup, None);
        assert_eq!(r.best_overall, None);
    }

    #[test]
    fn csv_and_json_hold_every_measurement() {
        let mut ms = vec![ok("baseline", "g1", &[10.0, 12.0]), ok("x", "g1", &[1.0])];
        ms[1].outcome = Outcome::Wrong {
            why: "pr: MISMATCH, 3 nodes".into(),
        };
        let csv = to_csv(&ms, "by pr");
        assert_eq!(
            csv,
            "variant,graph,outcome,median_ms,runs,options,detail,check\n\
             baseline,g1,ok,11,2,--nested baseline,,by pr\n\
             x,g1,wrong,,0,--nested x,\"pr: MISMATCH, 3 nodes\",by pr\n"
        );
        let json: serde_json::Value =
            serde_json::from_str(&to_json("bfs", "by pr", &ms, &rank(&ms, "baseline"))).unwrap();
        assert_eq!(json["program"], "bfs");
        assert_eq!(json["check"], "by pr");
        assert_eq!(json["measurements"][0]["outcome"], "ok");
        assert_eq!(json["measurements"][0]["times_ms"][1], 12.0);
        assert_eq!(json["measurements"][1]["outcome"], "wrong");
        assert_eq!(json["ranking"]["excluded"][0]["variant"], "x");
        assert_eq!(json["ranking"]["best_overall"][0], "baseline");
    }
}
