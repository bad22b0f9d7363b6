//! A tuning run as a picture, in the manner of the IrGL paper's Figure 9: every variant that
//! ran correctly somewhere, with its speedup over the baseline on each graph (one colour per
//! graph, a log scale, the baseline's 1x marked), the variants ordered by the geometric mean
//! of their speedups, best at the top.

use plotters::prelude::*;

use crate::results::{Ranking, geomean};

/// Pixels per variant row, and the figure's width.
const ROW: u32 = 16;
const WIDTH: u32 = 900;

/// The SVG text of the picture of `ranking`.
pub fn to_svg(program: &str, ranking: &Ranking) -> String {
    // Each variant's speedups, by graph.
    let graphs: Vec<&str> = ranking.graphs.iter().map(|(g, _)| g.as_str()).collect();
    let mut rows: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    for (gi, (_, placed)) in ranking.graphs.iter().enumerate() {
        for p in placed {
            // Only finite, positive speedups have a place on a log scale.
            let Some(s) = p.speedup.filter(|s| s.is_finite() && *s > 0.0) else {
                continue;
            };
            let row = match rows.iter().position(|(v, _)| *v == p.variant) {
                Some(i) => i,
                None => {
                    rows.push((p.variant.clone(), vec![None; graphs.len()]));
                    rows.len() - 1
                }
            };
            rows[row].1[gi] = Some(s);
        }
    }
    let mean = |xs: &[Option<f64>]| geomean(&xs.iter().flatten().copied().collect::<Vec<_>>());
    rows.sort_by(|a, b| mean(&b.1).total_cmp(&mean(&a.1)).then(a.0.cmp(&b.0)));
    let all = rows.iter().flat_map(|(_, s)| s.iter().flatten().copied());
    let (lo, hi) = all.fold((1.0f64, 1.0f64), |(lo, hi), s| (lo.min(s), hi.max(s)));
    let (lo, hi) = (lo / 1.25, hi * 1.25);
    let n = rows.len().max(1);
    let label_width = rows.iter().map(|(v, _)| v.len()).max().unwrap_or(8) as u32 * 7 + 16;
    let height = 110 + ROW * n as u32;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).expect("an SVG string takes any drawing");
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{program}: speedup of each variant over the baseline"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(label_width)
            .build_cartesian_2d((lo..hi).log_scale(), (0..n).into_segmented())
            .expect("a chart with a positive range");
        let names: Vec<String> = rows.iter().map(|(v, _)| v.clone()).collect();
        chart
            .configure_mesh()
            .y_labels(n)
            .y_label_formatter(&|v| match v {
                // Row i from the bottom: the best variant at the top.
                SegmentValue::CenterOf(i) => names
                    .get(n.saturating_sub(1 + *i))
                    .cloned()
                    .unwrap_or_default(),
                _ => String::new(),
            })
            .label_style(("sans-serif", 12))
            .x_desc("speedup over the baseline (log scale)")
            .x_label_formatter(&|x| format!("{x:.2}x"))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .expect("an SVG string takes any drawing");
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(1.0, SegmentValue::Exact(0)), (1.0, SegmentValue::Last)],
                BLACK.mix(0.5).stroke_width(1),
            )))
            .expect("an SVG string takes any drawing");
        for (gi, graph) in graphs.iter().enumerate() {
            let colour = Palette99::pick(gi).to_rgba();
            let points: Vec<(f64, SegmentValue<usize>)> = rows
                .iter()
                .enumerate()
                .filter_map(|(r, (_, s))| s[gi].map(|x| (x, SegmentValue::CenterOf(n - 1 - r))))
                .collect();
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 4, colour.filled())),
                )
                .expect("an SVG string takes any drawing")
                .label(graph.to_string())
                .legend(move |(x, y)| Circle::new((x, y), 4, colour.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font(("sans-serif", 12))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.4))
            .draw()
            .expect("an SVG string takes any drawing");
        root.present().expect("an SVG string takes any drawing");
    }
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Measurement, Outcome, rank};

    #[test]
    fn every_correct_variant_is_drawn_on_every_graph() {
        let m = |variant: &str, graph: &str, t: f64| Measurement {
            variant: variant.into(),
            options: String::new(),
            graph: graph.into(),
            outcome: Outcome::Ok {
                times_ms: vec![t, t, t],
            },
        };
        let wrong = Measurement {
            outcome: Outcome::Wrong { why: "x".into() },
            ..m("wp", "road-NY", 1.0)
        };
        let ms = vec![
            m("baseline", "road-NY", 8.0),
            m("tb+fg", "road-NY", 2.0),
            m("outline", "road-NY", 4.0),
            wrong,
            m("baseline", "rmat20", 10.0),
            m("tb+fg", "rmat20", 1.0),
        ];
        let svg = to_svg("bfs", &rank(&ms, "baseline"));
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("bfs: speedup of each variant over the baseline"));
        let texts: Vec<&str> = svg.lines().map(str::trim).collect();
        for label in ["tb+fg", "outline", "baseline", "road-NY", "rmat20"] {
            assert!(texts.contains(&label), "{label}: {svg}");
        }
        assert!(!texts.contains(&"wp"), "a wrong variant is not drawn");
        // One point per correct variant and graph (5) and one per legend entry (2).
        assert_eq!(svg.matches("<circle").count(), 7);
    }
}
