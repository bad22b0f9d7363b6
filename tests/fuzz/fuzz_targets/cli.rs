//! Command lines and suite files: the fuzzer's bytes choose one of irglc's commands and its
//! flags (the real subcommands and options; each value a well-formed one, a near miss, an
//! extreme number, Unicode or random text), and a benchmark suite in TOML built the same way.
//! The command line runs in this process (`irglc::run_args`) in a scratch folder whose inputs
//! are written afresh each time, with a stand-in nvcc that always fails and no GPU, so that
//! everything up to a build or a run is exercised. Nothing may panic (irglc reports a caught
//! panic as exit status 2, an internal error, and libFuzzer sees the panic itself), abort or
//! hang (libFuzzer's `-timeout`).
//!
//! Run it with `-close_fd_mask=3`: irglc's own messages are not the fuzzer's.
#![no_main]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;

/// The scratch folder, made once: the process works in it.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("irglc-fuzz-cli-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let nvcc = dir.join("failing-nvcc");
        std::fs::write(&nvcc, "#!/bin/sh\necho 'stand-in nvcc: no' >&2\nexit 1\n").unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&nvcc)
            .status()
            .unwrap();
        // SAFETY: set once, before any command runs, while the fuzzer's thread is the only one.
        unsafe {
            std::env::set_var("IRGLC_NVCC", &nvcc);
            std::env::set_var("IRGLC_CACHE", dir.join("cache"));
            std::env::set_var("NO_COLOR", "1");
        }
        std::env::set_current_dir(&dir).unwrap();
        dir
    })
}

const PROGRAM: &str = include_str!("../../../programs/bfs.irgl");
const SSSP: &str = include_str!("../../../programs/sssp-nf.irgl");
const MTX: &str = "%%MatrixMarket matrix coordinate pattern general\n4 4 4\n1 2\n2 3\n3 4\n4 1\n";
const OUTPUT: &str =
    "irgl-output 1\nprogram bfs\nnodes 4\nedges 4\nparam src 0\nnode level u32\n0\n1\n2\n3\n";
const RECORDS: &str = r#"{"suite":"s","gpu":"G","driver":null,"irglc":"0.1.0","started":1,"runs":2,
"records":[{"program":"bfs","graph":"g","set":"b","options":"","outcome":"ok","times_ms":[1.0,2.0],"median_ms":1.5}]}"#;

/// The command's inputs, written afresh (a command may have changed or replaced them).
fn write_inputs(suite: &str) {
    let files: [(&str, &str); 7] = [
        ("p.irgl", PROGRAM),
        ("sssp-nf.irgl", SSSP),
        ("p.v2.irgl", PROGRAM),
        ("g.mtx", MTX),
        ("bfs.out", OUTPUT),
        ("a.json", RECORDS),
        ("suite.toml", suite),
    ];
    for (name, text) in files {
        let _ = std::fs::remove_file(name);
        std::fs::write(name, text).unwrap();
    }
}

/// Made once: inputs that need irglc to write them (a `.gr`, a mesh in both forms).
fn write_made_inputs() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        write_inputs("");
        for args in [
            &["graph", "convert", "g.mtx", "-o", "base.gr"][..],
            &["mesh", "generate", "--triangles", "40", "-o", "base.mesh"][..],
            &["mesh", "convert", "base.mesh", "-o", "base.node"][..],
        ] {
            assert_eq!(
                run(args.iter().map(|a| a.to_string()).collect()),
                ExitCode::SUCCESS
            );
        }
    });
    for (from, to) in [
        ("base.gr", "g.gr"),
        ("base.mesh", "m.mesh"),
        ("base.node", "box.node"),
        ("base.ele", "box.ele"),
        ("base.poly", "box.poly"),
    ] {
        let _ = std::fs::remove_file(to);
        std::fs::copy(from, to).unwrap();
    }
}

fn run(args: Vec<String>) -> ExitCode {
    let mut argv: Vec<OsString> = vec!["irglc".into()];
    argv.extend(args.into_iter().map(OsString::from));
    irglc::run_args(argv)
}

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    args: Vec<String>,
}

impl Gen<'_, '_> {
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        *self.u.choose(items).unwrap_or(&items[0])
    }

    fn flag(&mut self) -> bool {
        bool::arbitrary(self.u).unwrap_or(false)
    }

    /// Text that is not what the option expects: empty, Unicode, a path, a flag, random.
    fn odd(&mut self) -> String {
        match self.u.int_in_range(0..=9u8).unwrap_or(0) {
            0 => String::new(),
            1 => "é".into(),
            2 => "ü.irgl".into(),
            3 => "-".into(),
            4 => "--".into(),
            5 => "a,b,,c".into(),
            6 => "x=y=z".into(),
            7 => "\u{0}\u{7f}".into(),
            8 => " ".repeat(3),
            _ => String::arbitrary(self.u).unwrap_or_default(),
        }
    }

    /// A number: small, a boundary, huge, negative, not a number.
    fn number(&mut self) -> String {
        match self.u.int_in_range(0..=13u8).unwrap_or(0) {
            0 => "0".into(),
            1 => "1".into(),
            2 => "2".into(),
            3 => "3".into(),
            4 => "32".into(),
            5 => "256".into(),
            6 => u32::MAX.to_string(),
            7 => u64::MAX.to_string(),
            8 => "99999999999999999999999".into(),
            9 => "-1".into(),
            10 => "1e300".into(),
            11 => "NaN".into(),
            12 => self.u.int_in_range(0..=40u32).unwrap_or(0).to_string(),
            _ => self.odd(),
        }
    }

    /// One of `good`, else a number or odd text.
    fn value(&mut self, good: &[&str]) -> String {
        match self.u.int_in_range(0..=9u8).unwrap_or(0) {
            0 => self.number(),
            1 => self.odd(),
            _ => self.pick(good).to_string(),
        }
    }

    fn push(&mut self, a: impl Into<String>) {
        self.args.push(a.into());
    }

    fn opt(&mut self, name: &str, good: &[&str]) {
        let v = self.value(good);
        if self.flag() {
            self.push(format!("{name}={v}"));
        } else {
            self.push(name);
            self.push(v);
        }
    }

    fn push_input(&mut self) {
        let f = self.input();
        self.push(f);
    }

    fn push_output(&mut self) {
        let o = self.output();
        self.push(o);
    }

    fn input(&mut self) -> String {
        self.value(&[
            "p.irgl",
            "p.v2.irgl",
            "sssp-nf.irgl",
            "g.mtx",
            "g.gr",
            "m.mesh",
            "box",
            "box.node",
            "bfs.out",
            "missing.irgl",
            ".",
            "/dev/null",
        ])
    }

    fn output(&mut self) -> String {
        self.value(&[
            "out.cu",
            "out.gr",
            "out.txt",
            "out.mtx",
            "out.gr.gz",
            "out.1.node",
            "out.mesh",
            "p.irgl",
            "g.mtx",
            "g.gr",
            "box.node",
            "box.1.ele",
            "d/out.gr",
            "/dev/null",
            "out",
        ])
    }

    /// The optimization flags of compile, build, run and emit.
    fn opt_flags(&mut self) {
        let n = self.u.int_in_range(0..=4u8).unwrap_or(0);
        for _ in 0..n {
            match self.u.int_in_range(0..=18u8).unwrap_or(0) {
                0 => self.opt("--block-size", &["32", "128", "256", "100", "2048"]),
                1 => self.opt(
                    "--nested",
                    &[
                        "serial",
                        "tb",
                        "tb+wp+fg",
                        "vw8+fg",
                        "eb",
                        "fg+serial",
                        "vw3",
                    ],
                ),
                2 => self.opt(
                    "--nested-at",
                    &["bfs.loop1=tb", "bfs.e=wp", "x.loop0=fg", "bfs.loop0=tb"],
                ),
                3 => self.opt("--tb-threshold", &["0", "64", "4096"]),
                4 => self.opt("--warp-threshold", &["0", "8", "32"]),
                5 => self.opt("--aggregate", &["none", "thread", "warp", "block"]),
                6 => self.opt(
                    "--aggregate-at",
                    &["bfs.push0=block", "bfs.add0=warp", "bfs.push9=warp"],
                ),
                7 => self.opt("--outline", &["none", "outer", "r0", "r0,s1", "r99"]),
                8 => self.opt(
                    "--outline-grid",
                    &["resident", "sm", "4sm", "33sm", "1", "0"],
                ),
                9 => self.opt("--async", &["none", "all", "sssp_nf", "bfs"]),
                10 => self.opt("--grid", &["resident", "items"]),
                11 => self.opt("--async-grid", &["sm", "resident", "2sm"]),
                12 => self.opt("--async-local", &["on", "off"]),
                13 => self.opt("--retry-backoff", &["none", "all", "sssp_nf"]),
                14 => self.opt("--backoff-chunk", &["auto", "1", "1024", "1025"]),
                15 => self.opt("--backoff-serial-below", &["0", "32"]),
                16 => self.opt("--backoff-rounds", &["retry", "all"]),
                17 => {
                    if self.flag() {
                        self.opt("--pipe-unroll", &["1", "2", "8", "9"]);
                    } else {
                        self.opt("--check-indices", &["on", "off"]);
                    }
                }
                _ => self.opt("--config", &["a.json", "missing.json", "g.mtx"]),
            }
        }
    }

    fn transform_flags(&mut self) {
        for name in ["--symmetrize", "--drop-self-loops", "--dedup"] {
            if self.flag() {
                self.push(name);
            }
        }
        if self.flag() {
            self.opt("--weights", &["1", "7"]);
        }
    }

    fn command(&mut self) {
        match self.u.int_in_range(0..=19u8).unwrap_or(0) {
            0 => {
                self.push("check");
                self.push_input();
            }
            1 => {
                self.push("fmt");
                self.push_input();
                match self.u.int_in_range(0..=2u8).unwrap_or(0) {
                    0 => self.push("--check"),
                    1 => self.push("--stdout"),
                    _ => {}
                }
            }
            2 => {
                self.push("emit");
                let what = self.value(&["ast", "ir", "outline"]);
                self.push(what);
                self.push_input();
                if self.flag() {
                    self.opt("--after", &["lower", "schedule_nested_loops", "nope"]);
                }
                if self.flag() {
                    self.push("--ids");
                }
                self.opt_flags();
            }
            3 | 4 => {
                let which = if self.flag() { "compile" } else { "build" };
                self.push(which);
                self.push_input();
                if self.flag() {
                    self.push("-o");
                    self.push_output();
                }
                if self.flag() {
                    self.opt("--arch", &["sm_90", "sm_80", "90"]);
                }
                self.opt_flags();
            }
            5 => {
                self.push("run");
                self.push_input();
                self.push("--graph");
                self.push_input();
                self.opt("--arch", &["sm_90"]);
                if self.flag() {
                    self.opt("--verify", &["bfs", "sssp", "dmr", "none"]);
                } else if self.flag() {
                    self.opt("--check", &["true {output}", "exit 1 {output}"]);
                }
                self.opt_flags();
                if self.flag() {
                    self.push("--");
                    self.push("--output");
                    self.push_output();
                }
            }
            6 => {
                self.push("graph");
                self.push("convert");
                self.push_input();
                self.push("-o");
                self.push_output();
                if self.flag() {
                    self.opt("--format", &["gr", "mtx", "snap", "dimacs", "metis"]);
                }
                if self.flag() {
                    self.opt(
                        "--for",
                        &["p.irgl", "sssp-nf.irgl", "missing.irgl", "g.mtx"],
                    );
                }
                if self.flag() {
                    self.push("--keep-ids");
                }
                self.transform_flags();
            }
            7 => {
                self.push("graph");
                self.push("info");
                self.push_input();
                if self.flag() {
                    self.push("--json");
                }
                if self.flag() {
                    self.opt("--seed", &["1", "2"]);
                }
            }
            8 => {
                self.push("graph");
                self.push("gen");
                match self.u.int_in_range(0..=3u8).unwrap_or(0) {
                    0 => {
                        self.push("rmat");
                        self.opt("--scale", &["1", "4", "8", "31", "32"]);
                        if self.flag() {
                            self.opt("--edge-factor", &["0", "1", "16"]);
                        }
                        for p in ["--a", "--b", "--c"] {
                            if self.flag() {
                                self.opt(p, &["0.57", "0.19", "1.5", "-0.1", "0"]);
                            }
                        }
                    }
                    1 => {
                        self.push("grid");
                        self.opt("--rows", &["1", "10", "0"]);
                        self.opt("--cols", &["1", "10", "0"]);
                    }
                    2 => {
                        self.push("random");
                        self.opt("--nodes", &["0", "1", "100"]);
                        self.opt("--edges", &["0", "10", "1000"]);
                    }
                    _ => {
                        self.push("mesh");
                        self.opt("--points", &["0", "3", "100"]);
                        if self.flag() {
                            self.opt("--mesh-out", &["mo", "mo.1", "box"]);
                        }
                    }
                }
                self.push("-o");
                self.push_output();
                self.transform_flags();
            }
            9..=12 => {
                self.push("mesh");
                match self.u.int_in_range(0..=3u8).unwrap_or(0) {
                    0 => {
                        self.push("generate");
                        self.opt("--triangles", &["2", "10", "500", "1"]);
                        self.push("-o");
                        self.push_output();
                    }
                    1 => {
                        self.push("convert");
                        self.push_input();
                        self.push("-o");
                        self.push_output();
                        if self.flag() {
                            self.push("--delaunay");
                        }
                    }
                    2 => {
                        self.push("describe");
                        self.push_input();
                        if self.flag() {
                            self.push("--json");
                        }
                    }
                    _ => {
                        self.push("refine");
                        self.push_input();
                        self.push("-o");
                        self.push_output();
                    }
                }
            }
            13 => {
                self.push("verify");
                self.opt(
                    "--program",
                    &["bfs", "sssp", "cc", "pr", "tc", "mis", "mst", "dmr"],
                );
                if self.flag() {
                    self.push("--graph");
                    self.push_input();
                }
                if self.flag() {
                    self.push("--mesh");
                    self.push_input();
                }
                self.push("--output");
                self.push_input();
            }
            14..=16 => {
                self.push("tune");
                self.push_input();
                match self.u.int_in_range(0..=2u8).unwrap_or(0) {
                    0 => self.push("--list"),
                    1 => self.push("--build"),
                    _ => {
                        let n = self.u.int_in_range(1..=2u8).unwrap_or(1);
                        for _ in 0..n {
                            self.push("--graph");
                            self.push_input();
                        }
                    }
                }
                self.opt("--arch", &["sm_90"]);
                let n = self.u.int_in_range(0..=4u8).unwrap_or(0);
                for _ in 0..n {
                    match self.u.int_in_range(0..=11u8).unwrap_or(0) {
                        0 => self.opt("--runs", &["1", "3"]),
                        1 => self.opt("--timeout", &["0.5", "10"]),
                        2 => {
                            if self.flag() {
                                self.opt("--verify", &["bfs", "sssp", "none"]);
                            } else {
                                self.opt(
                                    "--check",
                                    &["true {output}", "false {graph} {output}", "true"],
                                );
                            }
                        }
                        3 => self.opt("--out", &["t", "p.irgl", "d/t"]),
                        4 => self.opt("--jobs", &["1", "2"]),
                        5 => self.opt("--block-sizes", &["128,256", "64", "0"]),
                        6 => self.opt("--schedules", &["serial,tb", "tb+wp+fg", "zz"]),
                        7 => self.opt("--outline-grids", &["resident,sm", "sm", "0"]),
                        8 => self.opt("--search", &["exhaustive", "random", "greedy"]),
                        9 => self.opt("--budget", &["1", "4", "0"]),
                        10 => self.opt("--seed", &["1", "9"]),
                        _ => self.push("--fresh"),
                    }
                }
            }
            17 => {
                self.push("bench");
                self.push("compare");
                let a = self.value(&["a.json", "suite.toml"]);
                let b = self.value(&["a.json", "bfs.out"]);
                self.push(a);
                self.push(b);
                if self.flag() {
                    self.opt("--threshold", &["0.05", "0", "2"]);
                }
            }
            _ => {
                self.push("bench");
                self.push("suite.toml");
                self.opt("--arch", &["sm_90"]);
                let n = self.u.int_in_range(0..=3u8).unwrap_or(0);
                for _ in 0..n {
                    match self.u.int_in_range(0..=5u8).unwrap_or(0) {
                        0 => self.opt("--out", &["r.json", "suite.toml", "d/r.json"]),
                        1 => self.opt("--runs", &["1", "2"]),
                        2 => self.opt("--only", &["p", "zz"]),
                        3 => self.opt("--graphs", &["g", "g,r", "none"]),
                        4 => self.opt("--gapbs", &["missing", "."]),
                        _ => self.push("--fresh"),
                    }
                }
            }
        }
    }

    /// A suite file: mostly well formed, its values as odd as the command line's.
    fn suite(&mut self) -> String {
        let mut s = String::new();
        let mut kv = |g: &mut Self, key: &str, good: &[&str], quoted: bool| {
            let v = g.value(good);
            if quoted || v.parse::<f64>().is_err() {
                s.push_str(&format!("{key} = {}\n", toml_string(&v)));
            } else {
                s.push_str(&format!("{key} = {v}\n"));
            }
        };
        if self.flag() {
            kv(self, "runs", &["1", "2", "0"], false);
        }
        if self.flag() {
            kv(self, "timeout", &["5", "0.5", "1e300", "-1"], false);
        }
        if self.flag() {
            kv(self, "weights_seed", &["1"], false);
        }
        let graphs = self.u.int_in_range(0..=2u8).unwrap_or(1);
        for i in 0..graphs {
            s.push_str(&format!(
                "[[graph]]\nname = \"{}\"\n",
                ["g", "r"][i as usize % 2]
            ));
            match self.u.int_in_range(0..=2u8).unwrap_or(0) {
                0 => {
                    let p = self.input();
                    s.push_str(&format!("path = {}\n", toml_string(&p)));
                }
                1 => {
                    let scale = self.value(&["2", "4", "40"]);
                    let ef = self.value(&["1", "4"]);
                    s.push_str(&format!(
                        "rmat = {{ scale = {}, edge_factor = {} }}\n",
                        toml_number(&scale),
                        toml_number(&ef)
                    ));
                }
                _ => {
                    let r = self.value(&["2", "3"]);
                    s.push_str(&format!(
                        "grid = {{ rows = {}, cols = 2 }}\n",
                        toml_number(&r)
                    ));
                }
            }
        }
        let sets = self.u.int_in_range(0..=2u8).unwrap_or(1);
        for i in 0..sets {
            let mut g = Gen {
                u: self.u,
                args: Vec::new(),
            };
            g.opt_flags();
            let flags = g.args.join(" ");
            s.push_str(&format!(
                "[[set]]\nname = \"s{i}\"\nflags = {}\n",
                toml_string(&flags)
            ));
        }
        if self.flag() {
            let f = self.value(&["p.irgl", "sssp-nf.irgl", "p.v2.irgl"]);
            s.push_str(&format!("[[program]]\nfile = {}\n", toml_string(&f)));
            if self.flag() {
                s.push_str("args = [\"--src\", \"1\"]\n");
            }
            match self.u.int_in_range(0..=3u8).unwrap_or(0) {
                0 => {
                    let v = self.value(&["none", "bfs", "sssp"]);
                    s.push_str(&format!("verify = {}\n", toml_string(&v)));
                }
                1 => s.push_str("check = \"true {output}\"\n"),
                _ => {}
            }
        }
        if self.flag() {
            s.push_str("[gapbs]\npath = \"missing\"\n");
        }
        s
    }
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn toml_number(s: &str) -> String {
    if s.parse::<i64>().is_ok() {
        s.to_string()
    } else {
        toml_string(s)
    }
}

fuzz_target!(|data: &[u8]| {
    scratch();
    write_made_inputs();
    let mut u = Unstructured::new(data);
    let mut g = Gen {
        u: &mut u,
        args: Vec::new(),
    };
    let suite = g.suite();
    g.command();
    let args = g.args;
    write_inputs(&suite);
    let code = run(args.clone());
    assert_ne!(code, ExitCode::from(2), "an internal error on {args:?}");
});
