//! Tuning profiles: what `irglc tune --save FILE` writes and `irglc compile --profile FILE`
//! reads. A profile keeps, for one program, the fastest correct variant on each graph it was
//! tuned on with that graph's shape, and the best single variant over all of them; a build
//! from it takes the variant of the tuned graph most like the one it is for (nearest in mean
//! degree and warp efficiency, the two figures the generated programs' own run-time choices
//! read), or the best single variant when no graph is named.

use serde::{Deserialize, Serialize};

use crate::results::{Measurement, Ranking};

/// The format's version, written in every profile.
pub const PROFILE_VERSION: u32 = 1;

/// The figures of a graph (as the program reads it) that a profile's rule compares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    pub nodes: u64,
    pub edges: u64,
    /// Edges per node.
    pub mean_degree: f64,
    /// `irglc graph info`'s warp efficiency, from 0 to 1.
    pub warp_efficiency: f64,
}

impl Shape {
    /// How unlike two shapes are: the difference of their mean degrees in doublings (of
    /// 1 + the mean degree) plus that of their warp efficiencies in quarters, so that twice the
    /// mean degree weighs as much as 25 points of warp efficiency.
    pub fn distance(&self, other: &Shape) -> f64 {
        let degree = ((1.0 + self.mean_degree).log2() - (1.0 + other.mean_degree).log2()).abs();
        let efficiency = (self.warp_efficiency - other.warp_efficiency).abs() / 0.25;
        degree + efficiency
    }
}

/// One tuned graph: its shape and its fastest correct variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileEntry {
    pub graph: String,
    pub shape: Shape,
    /// The variant's options, canonical (they start with `-O0`).
    pub options: String,
    pub variant: String,
    pub median_ms: f64,
}

/// A program's tuning profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub version: u32,
    pub program: String,
    pub graphs: Vec<ProfileEntry>,
    /// The options of the variant of best geometric mean over the graphs, among those correct
    /// on every graph; none when no variant was.
    pub best_single: Option<String>,
}

impl Profile {
    /// The profile of a tuning run of `program`: `ms` its measurements, `ranking` their
    /// ranking, `shapes` each graph's shape by the name the measurements give it.
    pub fn new(
        program: &str,
        ms: &[Measurement],
        ranking: &Ranking,
        shapes: &[(String, Shape)],
    ) -> Profile {
        let options_of = |variant: &str| {
            ms.iter()
                .find(|m| m.variant == variant)
                .map(|m| m.options.clone())
                .unwrap_or_default()
        };
        let graphs = ranking
            .graphs
            .iter()
            .filter_map(|(graph, placed)| {
                let best = placed.first()?;
                let shape = shapes.iter().find(|(g, _)| g == graph)?.1.clone();
                Some(ProfileEntry {
                    graph: graph.clone(),
                    shape,
                    options: options_of(&best.variant),
                    variant: best.variant.clone(),
                    median_ms: best.median_ms,
                })
            })
            .collect();
        Profile {
            version: PROFILE_VERSION,
            program: program.to_string(),
            graphs,
            best_single: ranking.best_overall.as_ref().map(|(v, _)| options_of(v)),
        }
    }

    /// Reads a profile (JSON) and checks that it is one of `program`.
    pub fn parse(text: &str, program: &str) -> Result<Profile, String> {
        let p: Profile =
            serde_json::from_str(text).map_err(|e| format!("not a tuning profile: {e}"))?;
        if p.version != PROFILE_VERSION {
            return Err(format!(
                "a profile of version {}, where this irglc reads version {PROFILE_VERSION}",
                p.version
            ));
        }
        if p.program != program {
            return Err(format!(
                "a profile of `{}`, not of `{program}`: tune this program with --save",
                p.program
            ));
        }
        if p.graphs.is_empty() && p.best_single.is_none() {
            return Err("the profile has no variant (no variant ran correctly)".to_string());
        }
        Ok(p)
    }

    /// The options to build with, and why: for a graph of `shape`, the fastest variant of the
    /// tuned graph nearest to it; without a shape, the best single variant (else the first
    /// graph's).
    pub fn choose(&self, shape: Option<&Shape>) -> Result<(String, String), String> {
        match shape {
            Some(shape) => {
                let nearest = self
                    .graphs
                    .iter()
                    .min_by(|a, b| {
                        shape
                            .distance(&a.shape)
                            .total_cmp(&shape.distance(&b.shape))
                    })
                    .ok_or("the profile records no graph to compare with")?;
                Ok((
                    nearest.options.clone(),
                    format!(
                        "the fastest variant ({}) on {}, the tuned graph most like this one (mean degree {:.2} against {:.2}, warp efficiency {:.0}% against {:.0}%)",
                        nearest.variant,
                        nearest.graph,
                        nearest.shape.mean_degree,
                        shape.mean_degree,
                        nearest.shape.warp_efficiency * 100.0,
                        shape.warp_efficiency * 100.0
                    ),
                ))
            }
            None => match (&self.best_single, self.graphs.first()) {
                (Some(options), _) => Ok((
                    options.clone(),
                    format!(
                        "the best single variant over the {} tuned graphs (name a graph with --profile-graph for the variant of the most similar one)",
                        self.graphs.len()
                    ),
                )),
                (None, Some(first)) => Ok((
                    first.options.clone(),
                    format!(
                        "no variant was correct on every tuned graph: the fastest on {}",
                        first.graph
                    ),
                )),
                (None, None) => Err("the profile has no variant".to_string()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(mean_degree: f64, warp_efficiency: f64) -> Shape {
        Shape {
            nodes: 1000,
            edges: (1000.0 * mean_degree) as u64,
            mean_degree,
            warp_efficiency,
        }
    }

    fn profile() -> Profile {
        let entry = |graph: &str, s: Shape, options: &str| ProfileEntry {
            graph: graph.to_string(),
            shape: s,
            options: options.to_string(),
            variant: options.to_string(),
            median_ms: 1.0,
        };
        Profile {
            version: PROFILE_VERSION,
            program: "bfs".to_string(),
            graphs: vec![
                entry("road", shape(2.5, 0.65), "-O0 --nested serial"),
                entry("rmat", shape(30.0, 0.05), "-O0 --nested tb+wp+fg"),
            ],
            best_single: Some("-O0 --nested wp".to_string()),
        }
    }

    #[test]
    fn a_graph_gets_the_variant_of_the_most_similar_tuned_graph() {
        let p = profile();
        let (options, why) = p.choose(Some(&shape(3.0, 0.7))).unwrap();
        assert_eq!(options, "-O0 --nested serial");
        assert!(why.contains("on road"), "{why}");
        let (options, _) = p.choose(Some(&shape(20.0, 0.2))).unwrap();
        assert_eq!(options, "-O0 --nested tb+wp+fg");
        let (options, why) = p.choose(None).unwrap();
        assert_eq!(options, "-O0 --nested wp");
        assert!(why.contains("best single"));
    }

    #[test]
    fn profiles_round_trip_and_belong_to_one_program() {
        let p = profile();
        let text = serde_json::to_string_pretty(&p).unwrap();
        assert_eq!(Profile::parse(&text, "bfs").unwrap(), p);
        assert!(
            Profile::parse(&text, "sssp")
                .unwrap_err()
                .contains("not of `sssp`")
        );
        assert!(
            Profile::parse("{}", "bfs")
                .unwrap_err()
                .contains("not a tuning profile")
        );
        let old = text.replace("\"version\": 1", "\"version\": 7");
        assert!(
            Profile::parse(&old, "bfs")
                .unwrap_err()
                .contains("version 7")
        );
    }
}
