//! `irglc mesh ...` and `irglc verify --program dmr` end to end: what they write, print and
//! exit with.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn irglc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_irglc"))
        .args(args)
        .current_dir(workspace())
        .env("NO_COLOR", "1")
        .output()
        .expect("irglc runs")
}

/// Runs irglc and checks its exit status, showing stderr when it differs.
fn expect(args: &[&str], code: i32) -> (String, String) {
    let out = irglc(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    (stdout, stderr)
}

/// A scratch folder for one test, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irglc-mesh-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn generate_and_describe() {
    let dir = scratch("describe");
    let m = dir.join("m.mesh");
    let (_, err) = expect(
        &[
            "mesh",
            "generate",
            "--triangles",
            "500",
            "--seed",
            "3",
            "-o",
            s(&m),
        ],
        0,
    );
    assert!(err.contains("triangles in"), "{err}");
    let bytes = std::fs::read(&m).unwrap();
    assert_eq!(&bytes[..8], b"IRGLMESH");
    let (out, _) = expect(&["mesh", "describe", s(&m)], 0);
    assert!(out.contains("\ntriangles:       500\n"), "{out}");
    assert!(out.contains("\ndelaunay:        yes"), "{out}");
    assert!(out.contains("\nbad triangles:   "), "{out}");
    assert!(out.contains("\nmin angle:       "), "{out}");
    let (json, _) = expect(&["mesh", "describe", s(&m), "--json"], 0);
    assert!(json.contains("\"delaunay\": true"), "{json}");
    // Deterministic per seed.
    let m2 = dir.join("m2.mesh");
    expect(
        &[
            "mesh",
            "generate",
            "--triangles",
            "500",
            "--seed",
            "3",
            "-o",
            s(&m2),
        ],
        0,
    );
    assert_eq!(std::fs::read(&m2).unwrap(), bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_round_trips_through_triangle_files() {
    let dir = scratch("convert");
    let m = dir.join("m.mesh");
    expect(&["mesh", "generate", "--triangles", "300", "-o", s(&m)], 0);
    let node = dir.join("t.node");
    expect(&["mesh", "convert", s(&m), "-o", s(&node)], 0);
    for ext in ["node", "ele", "poly"] {
        assert!(dir.join(format!("t.{ext}")).is_file(), "t.{ext}");
    }
    // Back, naming the files by their base name and by the .ele.
    let back = dir.join("back.mesh");
    expect(&["mesh", "convert", s(&dir.join("t")), "-o", s(&back)], 0);
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&m).unwrap());
    let back2 = dir.join("back2.mesh");
    expect(
        &["mesh", "convert", s(&dir.join("t.ele")), "-o", s(&back2)],
        0,
    );
    assert_eq!(std::fs::read(&back2).unwrap(), std::fs::read(&m).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_accepts_a_refined_mesh_and_rejects_an_unrefined_one() {
    let dir = scratch("verify");
    let m = dir.join("m.mesh");
    let r = dir.join("r.mesh");
    expect(
        &[
            "mesh",
            "generate",
            "--triangles",
            "1000",
            "--seed",
            "5",
            "-o",
            s(&m),
        ],
        0,
    );
    let (_, err) = expect(&["mesh", "refine", s(&m), "-o", s(&r)], 0);
    assert!(err.contains("max cavity"), "{err}");
    let (out, _) = expect(
        &[
            "verify",
            "--program",
            "dmr",
            "--mesh",
            s(&m),
            "--output",
            s(&r),
        ],
        0,
    );
    assert!(out.starts_with("dmr: match\n  input: "), "{out}");
    let (out, _) = expect(&["mesh", "describe", s(&r)], 0);
    assert!(out.contains("\nbad triangles:   0 "), "{out}");

    // The input itself is not refined.
    let (out, _) = expect(
        &[
            "verify",
            "--program",
            "dmr",
            "--mesh",
            s(&m),
            "--output",
            s(&m),
        ],
        1,
    );
    assert!(out.starts_with("dmr: MISMATCH\n"), "{out}");
    assert!(out.contains("mismatches:"), "{out}");

    // A refined mesh with a vertex moved: still a readable mesh, but not a refinement.
    let mut bytes = std::fs::read(&r).unwrap();
    // Vertex 7's x (an input vertex, inside the square) moves by one grid unit.
    let at = 56 + 8 * 7;
    let x = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    bytes[at..at + 4].copy_from_slice(&(x + 1).to_le_bytes());
    let moved = dir.join("moved.mesh");
    std::fs::write(&moved, &bytes).unwrap();
    let out = irglc(&[
        "verify",
        "--program",
        "dmr",
        "--mesh",
        s(&m),
        "--output",
        s(&moved),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("vertex 7: expected"), "{text}");

    // A truncated output is an error naming the byte.
    let cut = dir.join("cut.mesh");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let (_, err) = expect(
        &[
            "verify",
            "--program",
            "dmr",
            "--mesh",
            s(&m),
            "--output",
            s(&cut),
        ],
        1,
    );
    assert!(
        err.starts_with(&format!("error: {}: byte ", cut.display())) && err.contains("truncated"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verify_checks_which_inputs_the_program_takes() {
    let (_, err) = expect(&["verify", "--program", "dmr", "--output", "x.mesh"], 1);
    assert_eq!(
        err,
        "error: --program dmr needs --mesh IN.mesh, the mesh the program refined\n"
    );
    let (_, err) = expect(
        &[
            "verify",
            "--program",
            "dmr",
            "--graph",
            "g.gr",
            "--mesh",
            "m.mesh",
            "--output",
            "x.mesh",
        ],
        1,
    );
    assert!(err.contains("not --graph"), "{err}");
    let (_, err) = expect(&["verify", "--program", "bfs", "--output", "bfs.out"], 1);
    assert_eq!(
        err,
        "error: --program bfs needs --graph, the graph the program ran on\n"
    );
    let (_, err) = expect(
        &[
            "verify",
            "--program",
            "bfs",
            "--graph",
            "g.gr",
            "--mesh",
            "m.mesh",
            "--output",
            "o",
        ],
        1,
    );
    assert!(err.contains("--mesh is for --program dmr"), "{err}");
    let (_, err) = expect(&["verify", "--program", "nope", "--output", "o"], 1);
    assert!(err.contains("unknown program `nope`"), "{err}");
}

#[test]
fn bad_mesh_files_give_located_errors() {
    let dir = scratch("bad");
    std::fs::write(dir.join("b.node"), "4 2 0 0\n1 0 0\n2 1 0\n3 1 1\n4 0 1\n").unwrap();
    std::fs::write(dir.join("b.ele"), "2 3 0\n1 1 2 3\n2 1 3 5\n").unwrap();
    let (_, err) = expect(&["mesh", "describe", s(&dir.join("b"))], 1);
    assert_eq!(
        err,
        format!(
            "error: {}:3:7: corner 3 5 is out of range: {} has vertices 1..=4\n",
            dir.join("b.ele").display(),
            dir.join("b.node").display()
        )
    );
    // A segment that is not on the boundary.
    std::fs::write(dir.join("b.ele"), "2 3 0\n1 1 2 3\n2 1 3 4\n").unwrap();
    std::fs::write(dir.join("b.poly"), "0 2 0 0\n1 0\n1 1 3\n0\n").unwrap();
    let (_, err) = expect(
        &[
            "mesh",
            "convert",
            s(&dir.join("b.node")),
            "-o",
            s(&dir.join("b.mesh")),
        ],
        1,
    );
    assert_eq!(
        err,
        format!(
            "error: {}:3:1: segment 1 (1, 3) is an interior edge of the triangulation: irglc meshes constrain only their boundary\n",
            dir.join("b.poly").display()
        )
    );
    // Without the .poly the files are a mesh.
    std::fs::remove_file(dir.join("b.poly")).unwrap();
    expect(
        &[
            "mesh",
            "convert",
            s(&dir.join("b.node")),
            "-o",
            s(&dir.join("b.mesh")),
        ],
        0,
    );
    // A binary file with a bad magic.
    let bad = dir.join("bad.mesh");
    let mut bytes = std::fs::read(dir.join("b.mesh")).unwrap();
    bytes[0] = b'X';
    std::fs::write(&bad, &bytes).unwrap();
    let (_, err) = expect(&["mesh", "describe", s(&bad)], 1);
    assert_eq!(
        err,
        format!(
            "error: {}: byte 0: expected the magic `IRGLMESH`, found `XRGLMESH` (is this an irglc .mesh file?)\n",
            bad.display()
        )
    );
    // Unknown names.
    let (_, err) = expect(&["mesh", "describe", s(&dir.join("none"))], 1);
    assert!(err.contains("no such file"), "{err}");
    let (_, err) = expect(
        &[
            "mesh",
            "generate",
            "--triangles",
            "10",
            "-o",
            s(&dir.join("m.txt")),
        ],
        1,
    );
    assert!(err.contains("cannot tell what to write"), "{err}");
    // Refinement needs a Delaunay input.
    std::fs::write(
        dir.join("q.node"),
        "4 2 0 0\n1 0 0\n2 10 1\n3 20 0\n4 10 -1\n",
    )
    .unwrap();
    std::fs::write(dir.join("q.ele"), "2 3 0\n1 1 4 3\n2 1 3 2\n").unwrap();
    let (_, err) = expect(
        &[
            "mesh",
            "refine",
            s(&dir.join("q")),
            "-o",
            s(&dir.join("r.mesh")),
        ],
        1,
    );
    assert!(
        err.contains("is not exactly Delaunay") && err.contains("needs a Delaunay input"),
        "{err}"
    );
    expect(
        &[
            "mesh",
            "convert",
            s(&dir.join("q")),
            "--delaunay",
            "-o",
            s(&dir.join("q.mesh")),
        ],
        0,
    );
    expect(
        &[
            "mesh",
            "refine",
            s(&dir.join("q.mesh")),
            "-o",
            s(&dir.join("r.mesh")),
        ],
        0,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tune_checks_dmr_by_its_refined_mesh() {
    // A graph family's reference does not apply to a mesh program.
    let (_, err) = expect(
        &[
            "tune",
            "programs/dmr.irgl",
            "--graph",
            "m.mesh",
            "--verify",
            "bfs",
            "--arch",
            "sm_90",
        ],
        1,
    );
    assert!(
        err.contains("error: --verify bfs: dmr takes a mesh, not a graph"),
        "{err}"
    );
    // The meshes are read before anything is built: a bad one stops the run with its name.
    let dir = scratch("tune");
    let bad = dir.join("bad.mesh");
    std::fs::write(&bad, b"not a mesh").unwrap();
    let (_, err) = expect(
        &[
            "tune",
            "programs/dmr.irgl",
            "--graph",
            bad.to_str().unwrap(),
            "--arch",
            "sm_90",
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        1,
    );
    assert!(err.contains("bad.mesh"), "{err}");
    assert!(!err.contains("built"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
