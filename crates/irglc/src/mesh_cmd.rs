//! `irglc mesh ...`: generate, convert, describe and refine the triangle meshes of Delaunay
//! mesh refinement (DMR).
//!
//! A mesh on disk is a binary `.mesh` file (the one the generated programs read and write,
//! `docs/graphs.md`) or Triangle's `.node` / `.ele` (/ `.poly`) files, named by any of them or
//! by their common base name. The work is done by `irgl_graph::mesh`; this module reads and
//! writes the files and prints. Exit status: 0 success, 1 a problem with the input, 2 an
//! internal error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use irgl_files::names;
use irgl_graph::GraphError;
use irgl_graph::mesh::{self, Mesh, binary, triangle};

use crate::graph_cmd::finish;

#[derive(clap::Subcommand)]
pub enum MeshCommand {
    /// Generate a random, exactly Delaunay mesh of the unit square with about N triangles
    /// (deterministic for a seed).
    Generate(GenerateArgs),
    /// Convert a mesh between `.mesh` and Triangle's `.node`/`.ele`/`.poly` (Triangle files are
    /// snapped to the grid).
    Convert(ConvertArgs),
    /// Describe a mesh: counts, bad triangles, smallest angle, whether it is exactly Delaunay.
    Describe(DescribeArgs),
    /// Refine a mesh on the CPU (the sequential reference of the dmr program).
    Refine(RefineArgs),
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// About how many triangles (the result has N or N + 1).
    #[arg(long, value_name = "N")]
    pub triangles: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write: a `.mesh` file, or a `.node` name to write Triangle's `.node`, `.ele`
    /// and `.poly` beside each other.
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    /// The mesh: a `.mesh` file, or a Triangle `.node`/`.ele`/`.poly` file or their base name
    /// (BASE.node and BASE.ele are read, BASE.poly too if it exists).
    pub input: PathBuf,
    /// Where to write: a `.mesh` file, or a `.node` name for Triangle files.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Flip edges until the mesh is exactly Delaunay (refinement needs a Delaunay input; a
    /// mesh snapped to the grid may have lost the property).
    #[arg(long)]
    pub delaunay: bool,
}

#[derive(clap::Args)]
pub struct DescribeArgs {
    /// The mesh (as for `convert`).
    pub input: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct RefineArgs {
    /// The mesh to refine (as for `convert`); it must be exactly Delaunay.
    pub input: PathBuf,
    /// Where to write the refined mesh (`.mesh`, or a `.node` name).
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(cmd: MeshCommand) -> ExitCode {
    finish(match cmd {
        MeshCommand::Generate(a) => generate(&a),
        MeshCommand::Convert(a) => convert(&a),
        MeshCommand::Describe(a) => describe(&a),
        MeshCommand::Refine(a) => refine(&a),
    })
}

fn extension(path: &Path) -> Option<&str> {
    path.extension().and_then(|e| e.to_str())
}

/// The extensions of Triangle's files.
const TRIANGLE: &[&str] = &["node", "ele", "poly"];

/// The base name of Triangle files named by `path` (a `.node`, `.ele` or `.poly` file, or the
/// base itself), if `BASE.node` exists.
fn triangle_base(path: &Path) -> Option<PathBuf> {
    let base = names::base_of(path, TRIANGLE);
    triangle::files(&base)[0].is_file().then_some(base)
}

/// The files a mesh named as the commands accept it is read from.
fn input_files(path: &Path) -> Vec<PathBuf> {
    match triangle_base(path) {
        Some(base) if extension(path) != Some("mesh") => triangle::files(&base).to_vec(),
        _ => vec![path.to_path_buf()],
    }
}

/// Refuses an output that would overwrite one of the input's files, before any work.
fn refuse_inputs(output: &Path, input: Option<&Path>) -> Result<(), GraphError> {
    let outputs = match output_kind(output)? {
        Output::Binary => vec![output.to_path_buf()],
        Output::Triangle(base) => triangle::files(&base).to_vec(),
    };
    let inputs = input.map(input_files).unwrap_or_default();
    let outs: Vec<&Path> = outputs.iter().map(PathBuf::as_path).collect();
    let ins: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    irgl_files::refuse_inputs(&outs, &ins).map_err(|clash| GraphError::Invalid(clash.to_string()))
}

/// Reads a mesh named as the commands accept it; prints the notes of a conversion.
pub(crate) fn read_mesh(path: &Path) -> Result<Mesh, GraphError> {
    let name = path.display().to_string();
    if extension(path) == Some("mesh") {
        return binary::read_file(path);
    }
    let Some(base) = triangle_base(path) else {
        if !path.exists() {
            return Err(GraphError::File {
                path: name,
                message:
                    "no such file, and no Triangle files with this base name (BASE.node, BASE.ele)"
                        .into(),
            });
        }
        return Err(GraphError::File {
            path: name,
            message: "cannot tell the format: expected a .mesh file, or a Triangle .node, .ele or .poly file or base name".into(),
        });
    };
    let [node, ele, poly] = triangle::files(&base);
    let (m, notes) = triangle::read_files(&node, &ele, poly.is_file().then_some(poly.as_path()))?;
    for note in notes {
        say!("note: {note}");
    }
    Ok(m)
}

/// What an output name asks for.
enum Output {
    /// A `.mesh` file.
    Binary,
    /// Triangle's `.node`, `.ele` and `.poly` with this base name.
    Triangle(PathBuf),
}

/// A `.mesh` file, or Triangle files when the name ends in `.node`, `.ele` or `.poly`.
fn output_kind(path: &Path) -> Result<Output, GraphError> {
    match extension(path) {
        Some("mesh") => Ok(Output::Binary),
        Some("node" | "ele" | "poly") => Ok(Output::Triangle(names::base_of(path, TRIANGLE))),
        _ => Err(GraphError::File {
            path: path.display().to_string(),
            message: "cannot tell what to write: name a .mesh file, or a .node file for Triangle's .node, .ele and .poly".into(),
        }),
    }
}

fn write_mesh(mesh: &Mesh, path: &Path) -> Result<(), GraphError> {
    match output_kind(path)? {
        Output::Binary => binary::write_file(mesh, path),
        Output::Triangle(base) => triangle::write_files(mesh, &base),
    }
}

/// What was written, for messages.
fn written(path: &Path) -> String {
    match output_kind(path) {
        Ok(Output::Triangle(base)) => format!("{}.{{node,ele,poly}}", base.display()),
        _ => path.display().to_string(),
    }
}

fn generate(args: &GenerateArgs) -> Result<ExitCode, GraphError> {
    let start = Instant::now();
    refuse_inputs(&args.output, None)?; // a bad name is refused before the work
    let m = mesh::generate(args.triangles, args.seed)?;
    let gen_s = start.elapsed().as_secs_f64();
    write_mesh(&m, &args.output)?;
    say!(
        "generated {}: {} vertices, {} triangles in {:.2} s (generation {gen_s:.2} s)",
        written(&args.output),
        m.num_vertices(),
        m.num_triangles(),
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

fn convert(args: &ConvertArgs) -> Result<ExitCode, GraphError> {
    refuse_inputs(&args.output, Some(&args.input))?;
    let mut m = read_mesh(&args.input)?;
    if args.delaunay {
        let flips = m.make_delaunay();
        say!("note: {flips} edge flips made the mesh exactly Delaunay");
    }
    write_mesh(&m, &args.output)?;
    say!(
        "converted {} to {}: {} vertices, {} triangles",
        args.input.display(),
        written(&args.output),
        m.num_vertices(),
        m.num_triangles()
    );
    Ok(ExitCode::SUCCESS)
}

fn describe(args: &DescribeArgs) -> Result<ExitCode, GraphError> {
    let m = read_mesh(&args.input)?;
    let s = m.summary();
    let violations = m.delaunay_violations();
    let name = args.input.display().to_string();
    let (lo, hi) = bounds(&m);
    if args.json {
        let v = serde_json::json!({
            "file": name,
            "vertices": s.vertices,
            "triangles": s.triangles,
            "boundary_edges": s.boundary_edges,
            "bad_triangles": s.bad,
            "bad_triangles_exact": s.bad_exact,
            "min_angle_deg": s.min_angle_deg,
            "delaunay": violations.is_empty(),
            "delaunay_violations": violations.count,
            "area": s.area,
            "bounds": [lo.0, lo.1, hi.0, hi.1],
            "origin": [m.origin_x, m.origin_y],
            "scale": m.scale,
        });
        crate::print_out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let delaunay = if violations.is_empty() {
        "yes (every interior edge is locally Delaunay, exact)".to_string()
    } else {
        format!(
            "no: {} interior edges are not locally Delaunay, e.g. {}",
            violations.count,
            violations
                .first
                .first()
                .map(|p| p.to_string())
                .unwrap_or_default()
        )
    };
    let lines = [
        ("file", name),
        ("vertices", s.vertices.to_string()),
        ("triangles", s.triangles.to_string()),
        ("boundary edges", s.boundary_edges.to_string()),
        (
            "bad triangles",
            format!(
                "{} (smallest angle below 30 degrees; {} exactly)",
                s.bad, s.bad_exact
            ),
        ),
        ("min angle", format!("{:.6} degrees", s.min_angle_deg)),
        ("delaunay", delaunay),
        ("area", format!("{}", s.area)),
        (
            "bounds",
            format!("({}, {}) to ({}, {})", lo.0, lo.1, hi.0, hi.1),
        ),
        (
            "grid",
            format!(
                "origin ({}, {}), {} world units per grid unit, coordinates in [0, 2^28]",
                m.origin_x, m.origin_y, m.scale
            ),
        ),
    ];
    let mut text = String::new();
    for (k, v) in lines {
        text.push_str(&format!("{:<16} {v}\n", format!("{k}:")));
    }
    crate::print_out(&text);
    Ok(ExitCode::SUCCESS)
}

/// The world bounding box of the vertices.
fn bounds(m: &Mesh) -> ((f64, f64), (f64, f64)) {
    let mut lo = (f64::INFINITY, f64::INFINITY);
    let mut hi = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &p in &m.points {
        let (x, y) = m.world(p);
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    (lo, hi)
}

fn refine(args: &RefineArgs) -> Result<ExitCode, GraphError> {
    refuse_inputs(&args.output, Some(&args.input))?;
    let input = read_mesh(&args.input)?;
    let start = Instant::now();
    let r = mesh::refine(&input).map_err(|e| match e {
        GraphError::Invalid(message) => GraphError::File {
            path: args.input.display().to_string(),
            message,
        },
        e => e,
    })?;
    let secs = start.elapsed().as_secs_f64();
    write_mesh(&r.mesh, &args.output)?;
    let n = input.num_triangles().max(1) as f64;
    say!(
        "refined {} to {}: {} -> {} triangles ({:.3} x), {} -> {} vertices in {secs:.2} s; {} insertions, {} boundary splits, {} bad triangles left ({} times given up), max cavity {}, {} triangle slots ({:.3} x the input)",
        args.input.display(),
        written(&args.output),
        input.num_triangles(),
        r.live,
        r.live as f64 / n,
        input.num_vertices(),
        r.mesh.num_vertices(),
        r.insertions,
        r.splits,
        r.bad_out,
        r.left_bad,
        r.max_cavity,
        r.slots,
        r.slots as f64 / n
    );
    Ok(ExitCode::SUCCESS)
}
