//! The tools take any program, not only the shipped ones: `--check 'CMD {graph} {output}'`
//! (a user's checker, exit status 0 = correct) and `--verify none` (timed only, said in every
//! report) for `tune`, `bench` suites and `run`; `irglc run` names the converted graph it
//! ran on; `irglc graph convert --for PROGRAM` converts as the program reads. With the
//! stand-in nvcc of `tests/stand-ins/nvcc`, whose programs write the bfs levels of the path
//! 0 -> 1 -> 2.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("irglc-any-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A program of the user's own, named after no CPU reference, and a graph.
    std::fs::copy(
        workspace().join("programs/bfs.irgl"),
        dir.join("levels.irgl"),
    )
    .unwrap();
    std::fs::write(
        dir.join("path.mtx"),
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n",
    )
    .unwrap();
    // The user's checker: the output must hold the levels 0 1 2 (CHECK_WANT overrides).
    std::fs::write(
        dir.join("check.sh"),
        "#!/bin/sh\n# check.sh GRAPH OUTPUT\n[ -f \"$1\" ] || { echo \"no graph $1\"; exit 2; }\nwant=\"${CHECK_WANT:-0 1 2}\"\ngot=$(tail -n 3 \"$2\" | tr '\\n' ' ' | sed 's/ $//')\n[ \"$got\" = \"$want\" ] || { echo \"levels $got, expected $want\"; exit 1; }\n",
    )
    .unwrap();
    dir
}

fn irglc(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_irglc"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("IRGLC_CACHE", dir.join("cache"))
        .env("IRGLC_NVCC", workspace().join("tests/stand-ins/nvcc"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const TUNE: &[&str] = &[
    "tune",
    "levels.irgl",
    "--arch",
    "sm_90",
    "--graph",
    "path.mtx",
    "--schedules",
    "serial,fg",
    "--outline-grids",
    "resident",
    "--runs",
    "2",
];

#[test]
fn tune_checks_a_users_program_with_its_command_or_not_at_all() {
    let dir = scratch("tune");
    // Named after no reference: the error says the three ways on.
    let (code, _, err) = irglc(&dir, TUNE, &[]);
    assert_eq!(code, Some(1), "{err}");
    for way in ["--verify FAMILY", "--check", "--verify none"] {
        assert!(err.contains(way), "{way}: {err}");
    }
    // The user's checker accepts every variant.
    let mut args = TUNE.to_vec();
    args.extend(["--check", "sh check.sh {graph} {output}"]);
    let (code, out, err) = irglc(&dir, &args, &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.starts_with("outputs checked by `sh check.sh {graph} {output}`\n"),
        "{out}"
    );
    assert!(out.contains("best on every graph: "), "{out}");
    assert!(!out.contains("left out"), "{out}");
    let json = std::fs::read_to_string(dir.join("tune-levels/results.json")).unwrap();
    assert!(
        json.contains("\"check\": \"checked by `sh check.sh"),
        "{json}"
    );
    // ... and rejects them all with its reason when the expectation changes (measured
    // again: the checker is part of the cached measurement's identity).
    let (code, out, _) = irglc(&dir, &args, &[("CHECK_WANT", "0 1 1")]);
    assert_eq!(code, Some(0), "the cache keeps the first verdict: {out}");
    std::fs::write(
        dir.join("check.sh"),
        "#!/bin/sh\necho 'levels are wrong'; exit 1\n",
    )
    .unwrap();
    let (code, out, _) = irglc(&dir, &args, &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("WRONG, the check command rejected it: levels are wrong"),
        "{out}"
    );
    // Timed without checking: ranked, and every report says so.
    let mut args = TUNE.to_vec();
    args.extend(["--verify", "none"]);
    let (code, out, err) = irglc(&dir, &args, &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.starts_with("outputs NOT CHECKED (--verify none)"),
        "{out}"
    );
    let csv = std::fs::read_to_string(dir.join("tune-levels/results.csv")).unwrap();
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .ends_with(",NOT CHECKED (--verify none): ranked by time alone"),
        "{csv}"
    );
    // --check and --verify do not go together.
    let mut args = TUNE.to_vec();
    args.extend(["--verify", "none", "--check", "true {output}"]);
    assert_eq!(irglc(&dir, &args, &[]).0, Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_suites_check_programs_their_own_way() {
    let dir = scratch("bench");
    std::fs::copy(dir.join("levels.irgl"), dir.join("timed.irgl")).unwrap();
    std::fs::write(
        dir.join("suite.toml"),
        "runs = 2\n[[graph]]\nname = \"path\"\npath = \"path.mtx\"\n[[set]]\nname = \"base\"\n\
         [[program]]\nfile = \"levels.irgl\"\ncheck = \"sh check.sh {graph} {output}\"\n\
         [[program]]\nfile = \"timed.irgl\"\nverify = \"none\"\n",
    )
    .unwrap();
    let (code, out, err) = irglc(&dir, &["bench", "suite.toml", "--arch", "sm_90"], &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("levels: outputs checked by `sh check.sh"),
        "{out}"
    );
    assert!(
        out.contains("timed: outputs NOT CHECKED (verify = \"none\")"),
        "{out}"
    );
    let records = std::fs::read_to_string(dir.join("bench-suite.json")).unwrap();
    assert!(records.contains("\"check\": \"NOT CHECKED"), "{records}");
    // `--only` keeps the programs whose name contains one of its texts.
    let (code, out, err) = irglc(
        &dir,
        &[
            "bench",
            "suite.toml",
            "--arch",
            "sm_90",
            "--only",
            "zzz,tim",
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("timed: outputs NOT CHECKED") && !out.contains("levels: outputs"),
        "{out}"
    );
    let (code, _, err) = irglc(&dir, &["bench", "suite.toml", "--only", "zzz"], &[]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("no program of the suite has a name containing zzz (--only); its programs: levels, timed"),
        "{err}"
    );
    // A program named after no reference, and given no way to check it: the suite's error.
    std::fs::write(
        dir.join("bad.toml"),
        "[[graph]]\nname = \"path\"\npath = \"path.mtx\"\n[[set]]\nname = \"base\"\n[[program]]\nfile = \"levels.irgl\"\n",
    )
    .unwrap();
    let (code, _, err) = irglc(&dir, &["bench", "bad.toml", "--arch", "sm_90"], &[]);
    assert_eq!(code, Some(1));
    assert!(err.contains("verify = \"none\""), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_names_the_graph_it_read_and_checks_with_a_command() {
    let dir = scratch("run");
    let args = [
        "run",
        "levels.irgl",
        "--graph",
        "path.mtx",
        "--arch",
        "sm_90",
        "--check",
        "sh check.sh {graph} {output}",
    ];
    let (code, out, err) = irglc(&dir, &args, &[]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("match (the check command accepted the output)"),
        "{out}"
    );
    let note = err
        .lines()
        .find(|l| l.starts_with("note: the program reads "))
        .unwrap_or_else(|| panic!("{err}"));
    let read = note
        .strip_prefix("note: the program reads ")
        .unwrap()
        .split(" (")
        .next()
        .unwrap();
    assert!(Path::new(read).is_file(), "{note}");
    let (code, out, _) = irglc(&dir, &args, &[("CHECK_WANT", "0 0 0")]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("MISMATCH: the check command rejected it: levels 0 1 2, expected 0 0 0"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph_convert_for_a_program_converts_as_it_reads() {
    let dir = scratch("convert");
    let w = workspace();
    let cc = w.join("programs/cc.irgl");
    let sssp = w.join("programs/sssp-nf.irgl");
    let (code, _, err) = irglc(
        &dir,
        &[
            "graph",
            "convert",
            "path.mtx",
            "--for",
            cc.to_str().unwrap(),
            "-o",
            "cc.gr",
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    let (_, info, _) = irglc(&dir, &["graph", "info", "cc.gr"], &[]);
    assert!(info.contains("symmetric:        yes"), "{info}");
    // As `irglc run` weighs a graph without weights: seed 1.
    irglc(
        &dir,
        &[
            "graph",
            "convert",
            "path.mtx",
            "--for",
            sssp.to_str().unwrap(),
            "-o",
            "a.gr",
        ],
        &[],
    );
    irglc(
        &dir,
        &[
            "graph",
            "convert",
            "path.mtx",
            "--weights",
            "1",
            "-o",
            "b.gr",
        ],
        &[],
    );
    assert_eq!(
        std::fs::read(dir.join("a.gr")).unwrap(),
        std::fs::read(dir.join("b.gr")).unwrap()
    );
    // A mesh program reads meshes.
    let dmr = w.join("programs/dmr.irgl");
    let (code, _, err) = irglc(
        &dir,
        &[
            "graph",
            "convert",
            "path.mtx",
            "--for",
            dmr.to_str().unwrap(),
            "-o",
            "m.gr",
        ],
        &[],
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("irglc mesh convert"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
