//! What irglc guarantees about files, caches and processes (README, "Files"), end to end with
//! the stand-in nvcc of `tests/stand-ins/nvcc` (it records what it compiled and builds shell
//! scripts that remember their source):
//!
//! - derived names keep the whole stem (`bfs.v2.irgl`, Unicode names), and every executable
//!   in the build cache is built from its own source;
//! - an output that is an input of the same command is refused, and outputs follow their
//!   extension;
//! - an interrupted build (SIGINT, SIGKILL, at any moment) never counts as built, and leaves
//!   no stand-in nvcc running;
//! - two irglc processes on one cache both get correct programs;
//! - a full disk (a file size limit) leaves every file as it was;
//! - failures are not cached, corrupt cache entries are discarded, `--fresh` rebuilds;
//! - bad numbers are errors (status 1) before any work, never a panic or a hang;
//! - a broken stdout or stderr never loses the records.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn stand_in_nvcc() -> PathBuf {
    workspace().join("tests/stand-ins/nvcc")
}

/// A scratch folder with its own build cache; commands run in it with the stand-in nvcc.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("irglc-rel-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn cache(&self) -> PathBuf {
        self.dir.join("cache")
    }

    /// `irglc ARGS` in the folder, with the stand-in nvcc and the folder's cache.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_irglc"));
        c.args(args)
            .current_dir(&self.dir)
            .env("NO_COLOR", "1")
            .env("IRGLC_CACHE", self.cache())
            .env("IRGLC_NVCC", stand_in_nvcc());
        c
    }

    /// Runs irglc; checks its status; returns stdout and stderr.
    fn expect(&self, args: &[&str], code: i32) -> (String, String) {
        let out = run_with_limit(self.cmd(args), Duration::from_secs(120));
        let (stdout, stderr) = texts(&out);
        assert_eq!(
            out.status.code(),
            Some(code),
            "irglc {args:?}\nstdout: {stdout}\nstderr: {stderr}"
        );
        (stdout, stderr)
    }

    /// Copies a program of `programs/` into the folder under another name.
    fn program(&self, from: &str, to: &str) -> PathBuf {
        let p = self.path(to);
        std::fs::copy(workspace().join("programs").join(from), &p).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn texts(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `cmd` to its end, failing the test if it takes longer than `limit` (a hang).
fn run_with_limit(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let e = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{cmd:?} ran past {limit:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: o.join().unwrap(),
        stderr: e.join().unwrap(),
    }
}

/// The code of a generated file as the stand-in nvcc identifies it: its lines that are not
/// `//` comments, as a cksum.
fn code_of(cu: &Path) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg("grep -v '^//' \"$1\" | cksum | cut -d' ' -f1")
        .arg("sh")
        .arg(cu)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The code of every distinct variant `irglc tune FILE --list FLAGS` lists, each compiled
/// with `irglc compile` on its own.
fn expected_codes(s: &Scratch, file: &str, flags: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["tune", file, "--list"];
    args.extend_from_slice(flags);
    let (listing, _) = s.expect(&args, 0);
    let mut codes = BTreeSet::new();
    for line in listing.lines().skip(1).filter(|l| !l.starts_with(' ')) {
        let (name, options) = line.split_once(' ').unwrap();
        let cu = s.path(&format!("expected-{name}.cu"));
        let mut compile = vec!["compile", file, "-o", cu.to_str().unwrap()];
        compile.extend(options.split_whitespace());
        s.expect(&compile, 0);
        codes.insert(code_of(&cu));
        std::fs::remove_file(&cu).unwrap();
    }
    codes
}

/// Checks the build cache: every executable runs, says it was built from the code of the
/// source beside it, and that code is one of `expected`. Returns the number of executables
/// and of temporaries.
fn check_cache(s: &Scratch, expected: &BTreeSet<String>) -> (usize, usize) {
    let (mut exes, mut temps) = (0, 0);
    let Ok(entries) = std::fs::read_dir(s.cache().join("build")) else {
        return (0, 0);
    };
    for e in entries {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') {
            temps += 1;
            continue;
        }
        if name.ends_with(".cu") {
            continue;
        }
        exes += 1;
        let out = Command::new(&path).arg("--identify").output();
        let out = out.unwrap_or_else(|e| panic!("{name} does not run: {e}"));
        assert!(out.status.success(), "{name} does not run");
        let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let cu = PathBuf::from(format!("{}.cu", path.display()));
        assert_eq!(
            id,
            code_of(&cu),
            "{name} is not built from {}",
            cu.display()
        );
        assert!(
            expected.contains(&id),
            "{name} is built from no variant's code"
        );
    }
    (exes, temps)
}

/// The number in "built N of M distinct programs".
fn built_count(stderr: &str) -> (usize, usize) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("built "))
        .unwrap_or_else(|| panic!("no summary: {stderr}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[1].parse().unwrap(), words[3].parse().unwrap())
}

#[test]
fn dotted_and_unicode_names_build_each_variant_from_its_own_source() {
    let s = Scratch::new("names");
    let flags = ["--schedules", "serial,tb,fg", "--outline-grids", "resident"];
    for file in ["bfs.v2.irgl", "поиск.v1.irgl"] {
        s.program("bfs.irgl", file);
        let expected = expected_codes(&s, file, &flags);
        let mut args = vec!["tune", file, "--build", "--arch", "sm_90", "--jobs", "2"];
        args.extend_from_slice(&flags);
        let log = s.path("log");
        let _ = std::fs::remove_file(&log);
        let mut cmd = s.cmd(&args);
        cmd.env("STANDIN_LOG", &log);
        let out = run_with_limit(cmd, Duration::from_secs(120));
        let (_, stderr) = texts(&out);
        assert!(out.status.success(), "{stderr}");
        let (built, total) = built_count(&stderr);
        assert_eq!((built, total), (expected.len(), expected.len()), "{stderr}");
        // nvcc saw each distinct source once, each from its own file.
        let log = std::fs::read_to_string(&log).unwrap();
        let sources: BTreeSet<&str> = log.lines().map(|l| l.split(' ').nth(2).unwrap()).collect();
        let codes: BTreeSet<&str> = log.lines().map(|l| l.split(' ').nth(1).unwrap()).collect();
        assert_eq!(sources.len(), expected.len(), "{log}");
        assert_eq!(codes.len(), expected.len(), "{log}");
        let stem = file.strip_suffix(".irgl").unwrap();
        assert!(
            sources.iter().all(|p| p.contains(&format!("/{stem}-"))),
            "{log}"
        );
    }
    // Both programs' executables, each from its own code.
    let mut all = expected_codes(&s, "bfs.v2.irgl", &flags);
    all.extend(expected_codes(&s, "поиск.v1.irgl", &flags));
    let (exes, temps) = check_cache(&s, &all);
    assert_eq!(temps, 0);
    assert_eq!(exes, 2 * built_count_of(&s, "bfs.v2.irgl", &flags));
    // The default output names keep the stem too.
    s.expect(&["compile", "bfs.v2.irgl"], 0);
    assert!(s.path("bfs.v2.cu").is_file());
    s.expect(&["compile", "поиск.v1.irgl"], 0);
    assert!(s.path("поиск.v1.cu").is_file());
}

/// The number of distinct programs of `file` under `flags`.
fn built_count_of(s: &Scratch, file: &str, flags: &[&str]) -> usize {
    let mut args = vec!["tune", file, "--list"];
    args.extend_from_slice(flags);
    let (listing, _) = s.expect(&args, 0);
    let first = listing.lines().next().unwrap();
    let tail = first.rsplit(", ").next().unwrap();
    tail.split(' ').next().unwrap().parse().unwrap()
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The bytes of Triangle's BASE.node, BASE.ele and BASE.poly in the scratch folder.
fn triangle_bytes(s: &Scratch, base: &str) -> Vec<Vec<u8>> {
    ["node", "ele", "poly"]
        .iter()
        .map(|ext| read(&s.path(&format!("{base}.{ext}"))))
        .collect()
}

#[test]
fn outputs_never_overwrite_inputs_and_follow_their_extension() {
    let s = Scratch::new("inputs");
    let prog = s.program("bfs.irgl", "x.irgl");
    let original = read(&prog);
    std::os::unix::fs::symlink(&prog, s.path("link.irgl")).unwrap();
    for (cmd, out) in [
        ("compile", "x.irgl"),
        ("compile", "./x.irgl"),
        ("compile", "link.irgl"),
        ("build", "x.irgl"),
    ] {
        let mut args = vec![cmd, "x.irgl", "-o", out];
        if cmd == "build" {
            args.extend(["--arch", "sm_90"]);
        }
        let (_, err) = s.expect(&args, 1);
        assert!(err.contains("an input of this command"), "{err}");
        assert_eq!(read(&prog), original, "{args:?} changed the program");
    }
    // CUDA under a program's name, and outputs that are devices.
    let (_, err) = s.expect(&["compile", "x.irgl", "-o", "y.irgl"], 1);
    assert!(err.contains("a .irgl name is for IrGL programs"), "{err}");
    assert!(!s.path("y.irgl").exists());
    s.expect(&["compile", "x.irgl", "-o", "/dev/null"], 0);
    assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    // `irglc run` refuses an output of the program that is its graph, before building.
    s.expect(
        &[
            "graph", "gen", "grid", "--rows", "2", "--cols", "2", "-o", "g.gr",
        ],
        0,
    );
    let graph = read(&s.path("g.gr"));
    let (_, err) = s.expect(
        &[
            "run", "x.irgl", "--graph", "g.gr", "--arch", "sm_90", "--", "--output", "g.gr",
        ],
        1,
    );
    assert!(err.contains("an input of this command"), "{err}");
    assert_eq!(read(&s.path("g.gr")), graph);
    assert!(!s.cache().join("build").exists(), "nothing was built");
    // A text graph converted over itself, or to a format irglc cannot write.
    std::fs::write(
        s.path("k.mtx"),
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n",
    )
    .unwrap();
    let mtx = read(&s.path("k.mtx"));
    let (_, err) = s.expect(&["graph", "convert", "k.mtx", "-o", "k.mtx"], 1);
    assert!(err.contains("an input of this command"), "{err}");
    for bad in ["k2.mtx", "k.gr.gz", "k"] {
        let (_, err) = s.expect(&["graph", "convert", "k.mtx", "-o", bad], 1);
        assert!(err.contains("cannot write a graph"), "{bad}: {err}");
        assert!(!s.path(bad).exists());
    }
    assert_eq!(read(&s.path("k.mtx")), mtx);
    s.expect(&["graph", "convert", "k.mtx", "-o", "k.v1.gr"], 0);
    let (info, _) = s.expect(&["graph", "info", "k.v1.gr"], 0);
    assert!(info.contains("edges:            2"), "{info}");
    // Triangle's own naming: box.1 beside box, never over it.
    s.expect(
        &["mesh", "generate", "--triangles", "200", "-o", "box.node"],
        0,
    );
    let input = triangle_bytes(&s, "box");
    let (_, err) = s.expect(&["mesh", "refine", "box.node", "-o", "box.1.node"], 0);
    assert!(err.contains("to box.1.{node,ele,poly}"), "{err}");
    for f in ["box.1.node", "box.1.ele", "box.1.poly"] {
        assert!(s.path(f).is_file(), "{f}");
    }
    for out in ["box.node", "box.ele", "box.poly"] {
        let (_, err) = s.expect(&["mesh", "refine", "box.node", "-o", out], 1);
        assert!(err.contains("an input of this command"), "{out}: {err}");
    }
    s.expect(&["mesh", "convert", "box.1", "-o", "box.2.node"], 0);
    s.expect(&["mesh", "convert", "box.2.ele", "-o", "box.2.mesh"], 0);
    assert_eq!(triangle_bytes(&s, "box"), input, "the input changed");
    s.expect(
        &["mesh", "generate", "--triangles", "50", "-o", "g.1.node"],
        0,
    );
    assert!(s.path("g.1.ele").is_file() && !s.path("g.node").exists());
    s.expect(
        &[
            "graph",
            "gen",
            "mesh",
            "--points",
            "30",
            "--mesh-out",
            "m.1",
            "-o",
            "m.1.gr",
        ],
        0,
    );
    assert!(s.path("m.1.node").is_file() && s.path("m.1.ele").is_file());
    assert!(!s.path("m.node").exists());
    let (_, err) = s.expect(
        &[
            "graph",
            "gen",
            "mesh",
            "--points",
            "30",
            "--mesh-out",
            "m",
            "-o",
            "m.node",
        ],
        1,
    );
    assert!(err.contains("cannot write a graph as .node"), "{err}");
    assert!(!s.path("m.node").exists(), "refused before any work");
}

/// Whether process `pid` is running (a zombie has finished).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(") ").next().and_then(|r| r.chars().next());
            !matches!(state, Some('Z' | 'X'))
        }
        Err(_) => false,
    }
}

/// The pids of the stand-in nvcc processes in the log.
fn logged_pids(log: &Path) -> Vec<i32> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split(' ').next()?.parse().ok())
        .collect()
}

fn wait_until_dead(pids: &[i32]) {
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "stand-in nvcc processes outlived irglc: {:?}",
            pids.iter().filter(|&&p| alive(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) on the pid of a child this test started.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

#[test]
fn interrupted_builds_never_count_as_built_and_leave_no_compiler_running() {
    let s = Scratch::new("kill");
    s.program("bfs.irgl", "bfs.v2.irgl");
    let flags = [
        "--schedules",
        "serial,tb,wp,fg",
        "--outline-grids",
        "resident",
    ];
    let expected = expected_codes(&s, "bfs.v2.irgl", &flags);
    let mut args = vec![
        "tune",
        "bfs.v2.irgl",
        "--build",
        "--arch",
        "sm_90",
        "--jobs",
        "2",
    ];
    args.extend_from_slice(&flags);
    let log = s.path("log");
    // SIGINT rounds, then SIGKILL rounds, each landing at a different moment of a build: after
    // the k-th compile started, plus a few milliseconds.
    let rounds: Vec<(i32, usize, u64)> = (0..12)
        .map(|r| {
            let sig = if r < 6 { libc::SIGINT } else { libc::SIGKILL };
            (sig, 1 + (r * 7) % 5, ((r * 37) % 90) as u64)
        })
        .collect();
    for (round, &(sig, after, ms)) in rounds.iter().enumerate() {
        let _ = std::fs::remove_file(&log);
        let mut cmd = s.cmd(&args);
        cmd.env("STANDIN_LOG", &log)
            .env("STANDIN_DELAY", "0.15")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let start = Instant::now();
        while logged_pids(&log).len() < after
            && child.try_wait().unwrap().is_none()
            && start.elapsed() < Duration::from_secs(60)
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(ms));
        signal(&child, sig);
        let status = child.wait().unwrap();
        if sig == libc::SIGINT {
            // Killed by its handler's exit (130), or done just before the signal.
            assert!(
                matches!(status.code(), Some(130 | 0)),
                "round {round}: {status:?}"
            );
        }
        wait_until_dead(&logged_pids(&log));
        let (_, temps) = check_cache(&s, &expected);
        if sig == libc::SIGINT {
            assert_eq!(temps, 0, "round {round}: SIGINT leaves no temporary");
        }
    }
    // The next run builds what is missing and finds the rest built; every entry is right.
    let (_, stderr) = s.expect(&args, 0);
    let (built, total) = built_count(&stderr);
    assert_eq!(total, expected.len());
    assert!(built < total, "earlier rounds built some: {stderr}");
    let (exes, _) = check_cache(&s, &expected);
    assert_eq!(exes, expected.len());
}

#[test]
fn two_tunes_on_one_cache_both_get_correct_programs() {
    let s = Scratch::new("concurrent");
    s.program("bfs.irgl", "bfs.irgl");
    std::fs::write(
        s.path("path.mtx"),
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n",
    )
    .unwrap();
    let flags = ["--schedules", "serial,tb,fg", "--outline-grids", "resident"];
    let expected = expected_codes(&s, "bfs.irgl", &flags);
    let tune = |out: &str| {
        let mut args = vec![
            "tune", "bfs.irgl", "--arch", "sm_90", "--jobs", "2", "--runs", "2", "--graph",
            "path.mtx", "--out", out,
        ];
        args.extend_from_slice(&flags);
        let mut cmd = s.cmd(&args);
        cmd.env("STANDIN_DELAY", "0.05")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd.spawn().unwrap()
    };
    let (a, b) = (tune("a"), tune("b"));
    for (name, child) in [("a", a), ("b", b)] {
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = texts(&out);
        assert!(out.status.success(), "{name}: {stdout}\n{stderr}");
        assert!(stdout.contains("best on every graph: "), "{name}: {stdout}");
        assert!(!stdout.contains("left out"), "{name}: {stdout}");
        assert!(s.path(name).join("results.json").is_file());
    }
    let (exes, temps) = check_cache(&s, &expected);
    assert_eq!((exes, temps), (expected.len(), 0));
}

/// `irglc ARGS` under a file size limit of `bytes` (a full disk: writes past it fail with
/// EFBIG instead of killing the process).
fn with_size_limit(mut cmd: Command, bytes: u64) -> Output {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only setrlimit and signal, both async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    run_with_limit(cmd, Duration::from_secs(120))
}

#[test]
fn a_full_disk_leaves_every_file_as_it_was() {
    let s = Scratch::new("full");
    // A program that formats to more than the limit, written by a formatter.
    let messy = s.path("messy.irgl");
    let text = std::fs::read_to_string(workspace().join("programs/sssp-nf.irgl"))
        .unwrap()
        .replace("\n  ", "\n");
    std::fs::write(&messy, &text).unwrap();
    let out = with_size_limit(s.cmd(&["fmt", "messy.irgl"]), 1000);
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        text,
        "fmt truncated the source"
    );
    // A graph converted over an older output, and CUDA over an older file.
    s.expect(
        &[
            "graph", "gen", "grid", "--rows", "2", "--cols", "2", "-o", "old.gr",
        ],
        0,
    );
    s.expect(
        &[
            "graph", "gen", "grid", "--rows", "50", "--cols", "50", "-o", "big.gr",
        ],
        0,
    );
    let old = read(&s.path("old.gr"));
    let out = with_size_limit(s.cmd(&["graph", "convert", "big.gr", "-o", "old.gr"]), 4096);
    assert_eq!(out.status.code(), Some(1), "{}", texts(&out).1);
    assert_eq!(read(&s.path("old.gr")), old);
    std::fs::write(s.path("x.cu"), "// an older file\n").unwrap();
    s.program("bfs.irgl", "x.irgl");
    let out = with_size_limit(s.cmd(&["compile", "x.irgl", "-o", "x.cu"]), 2000);
    assert_eq!(out.status.code(), Some(1), "{}", texts(&out).1);
    assert_eq!(read(&s.path("x.cu")), b"// an older file\n");
    // Triangle files: none of the three replaced.
    s.expect(
        &["mesh", "generate", "--triangles", "20", "-o", "a.node"],
        0,
    );
    s.expect(
        &["mesh", "generate", "--triangles", "2000", "-o", "b.mesh"],
        0,
    );
    let before = triangle_bytes(&s, "a");
    let out = with_size_limit(s.cmd(&["mesh", "convert", "b.mesh", "-o", "a.node"]), 8192);
    assert_eq!(out.status.code(), Some(1), "{}", texts(&out).1);
    assert_eq!(triangle_bytes(&s, "a"), before, "a Triangle file changed");
    // No temporary is left behind by a write that failed.
    let temps: Vec<String> = std::fs::read_dir(&s.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

/// `irglc run` on a graph of more than 2^32 - 1 edges builds with 64-bit edge indices by
/// itself (and says so); a 32-bit build is what it gets otherwise, or with `--wide-edges off`.
/// The graph is a sparse file: one node with 2^32 edges to itself (16 GiB of zeros that take
/// no disk).
#[test]
fn a_graph_beyond_32_bit_edges_gets_a_wide_build() {
    let s = Scratch::new("wide");
    s.program("bfs.irgl", "bfs.irgl");
    let edges = 1u64 << 32;
    let mut head = Vec::new();
    for x in [1u64, 0, 1, edges, edges] {
        head.extend_from_slice(&x.to_le_bytes());
    }
    let big = s.path("big.gr");
    std::fs::write(&big, &head).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(head.len() as u64 + 4 * edges)
        .unwrap();
    let built = |s: &Scratch| -> Vec<String> {
        let mut sources: Vec<String> = std::fs::read_dir(s.cache().join("build"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cu"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        sources.sort();
        sources
    };
    let run = ["run", "bfs.irgl", "--graph", "big.gr", "--arch", "sm_90"];
    let (_, err) = s.expect(&run, 0);
    assert!(
        err.contains("has 4294967296 edges, more than 32-bit edge indices hold: building with --wide-edges on"),
        "{err}"
    );
    let sources = built(&s);
    assert_eq!(sources.len(), 1);
    assert!(
        sources[0].contains("\n#define IRGL_EDGE64 1"),
        "the wide build"
    );
    assert!(sources[0].contains("--wide-edges on"), "the header says so");
    // Asked for 32-bit indices: no note, and a second, narrow build.
    let (_, err) = s.expect(&[&run[..], &["--wide-edges", "off"]].concat(), 0);
    assert!(!err.contains("wide-edges"), "{err}");
    let sources = built(&s);
    assert_eq!(sources.len(), 2);
    assert!(sources.iter().any(|c| !c.contains("IRGL_EDGE64")));
    // A small graph: 32-bit indices, the narrow build again (nothing new built).
    s.expect(
        &[
            "graph", "gen", "grid", "--rows", "2", "--cols", "2", "-o", "g.gr",
        ],
        0,
    );
    let (_, err) = s.expect(
        &["run", "bfs.irgl", "--graph", "g.gr", "--arch", "sm_90"],
        0,
    );
    assert!(!err.contains("wide-edges"), "{err}");
    assert_eq!(built(&s).len(), 2);
}

/// A DIMACS text file named `.gr` is converted before a run, not handed to the program as a
/// binary `.gr`.
#[test]
fn a_dimacs_file_named_gr_is_converted_for_a_run() {
    let s = Scratch::new("dimacs");
    s.program("bfs.irgl", "bfs.irgl");
    std::fs::write(s.path("road.gr"), "c a path\np sp 3 2\na 1 2 5\na 2 3 7\n").unwrap();
    let (_, err) = s.expect(
        &["run", "bfs.irgl", "--graph", "road.gr", "--arch", "sm_90"],
        0,
    );
    assert!(err.contains("note: the program reads"), "{err}");
    assert!(err.contains("(the .gr of road.gr)"), "{err}");
}

fn path_graph(s: &Scratch) {
    std::fs::write(
        s.path("path.mtx"),
        "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n",
    )
    .unwrap();
}

#[test]
fn failures_are_not_cached_corrupt_entries_are_discarded_and_fresh_rebuilds() {
    let s = Scratch::new("fresh");
    s.program("bfs.irgl", "bfs.irgl");
    path_graph(&s);
    let flags = [
        "--schedules",
        "serial,tb",
        "--outline-grids",
        "resident",
        "--runs",
        "2",
    ];
    let tune = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["tune", "bfs.irgl", "--arch", "sm_90", "--graph", "path.mtx"];
        args.extend_from_slice(&flags);
        args.extend_from_slice(extra);
        let mut cmd = s.cmd(&args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = run_with_limit(cmd, Duration::from_secs(120));
        let (stdout, stderr) = texts(&out);
        (out.status.code(), stdout, stderr)
    };
    // A build that fails and a run that fails once: both reported, neither kept.
    let (code, stdout, stderr) = tune(
        &[],
        &[("STANDIN_FAIL", "--nested tb"), ("STANDIN_RUN_FAIL", "1")],
    );
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("does not build"), "{stderr}");
    assert!(
        stdout.contains("failed, error: a one-off failure"),
        "{stdout}"
    );
    let (code, stdout, stderr) = tune(&[], &[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains("left out"), "{stdout}");
    let (built, total) = built_count(&stderr);
    assert!(
        built > 0 && built < total,
        "the failed ones are built now: {stderr}"
    );
    // Measured again from the cache; then with every entry corrupt: discarded and measured.
    let (_, _, stderr) = tune(&[], &[]);
    assert!(stderr.contains("found in the cache"), "{stderr}");
    let measure = s.cache().join("measure");
    let entries: Vec<PathBuf> = std::fs::read_dir(&measure)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!entries.is_empty());
    for (i, p) in entries.iter().enumerate() {
        let bad = match i % 3 {
            0 => r#"{"check":"bfs (irglc 0.1.0)","outcome":{"outcome":"ok","times_ms":[]}}"#,
            1 => "{ not json",
            _ => r#"{"check":"bfs (irglc 0.1.0)","outcome":{"outcome":"ok","times_ms":[-1,2]}}"#,
        };
        std::fs::write(p, bad).unwrap();
    }
    let (code, stdout, stderr) = tune(&[], &[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("discarded, measured again"), "{stderr}");
    assert!(!stdout.contains("left out"), "{stdout}");
    // --fresh builds and measures everything again.
    let (code, _, stderr) = tune(&["--fresh"], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let (built, total) = built_count(&stderr);
    assert_eq!(built, total, "{stderr}");
    assert!(!stderr.contains("found in the cache"), "{stderr}");
}

#[test]
fn bad_numbers_are_errors_before_any_work_never_panics_or_hangs() {
    let s = Scratch::new("numbers");
    s.program("bfs.irgl", "bfs.irgl");
    path_graph(&s);
    let (_, err) = s.expect(&["compile", "bfs.irgl", "--outline", "é"], 1);
    assert!(err.contains("not an outline node"), "{err}");
    for bad in ["1e20", "inf", "NaN", "-1", "0"] {
        let timeout = format!("--timeout={bad}");
        let (_, err) = s.expect(
            &[
                "tune", "bfs.irgl", "--arch", "sm_90", "--graph", "path.mtx", &timeout,
            ],
            1,
        );
        assert!(err.contains("--timeout"), "{bad}: {err}");
        assert!(
            !err.contains("built "),
            "{bad}: checked before the build: {err}"
        );
    }
    let (_, err) = s.expect(
        &[
            "tune",
            "bfs.irgl",
            "--arch",
            "sm_90",
            "--graph",
            "path.mtx",
            "--runs",
            "4000000000",
        ],
        1,
    );
    assert!(err.contains("--runs"), "{err}");
    let (_, err) = s.expect(
        &[
            "graph",
            "gen",
            "rmat",
            "--scale",
            "31",
            "--edge-factor",
            "100000",
            "-o",
            "x.gr",
        ],
        1,
    );
    assert!(
        err.contains("needs about") && err.contains("of memory"),
        "{err}"
    );
    let (_, err) = s.expect(
        &[
            "mesh",
            "generate",
            "--triangles",
            "4000000000",
            "-o",
            "x.mesh",
        ],
        1,
    );
    assert!(err.contains("needs about"), "{err}");
    for (line, what) in [
        ("timeout = 1e300", "timeout = "),
        ("timeout = -5", "timeout = "),
        ("runs = 99999999", "runs = "),
    ] {
        std::fs::write(
            s.path("suite.toml"),
            format!(
                "{line}\n[[graph]]\nname = \"p\"\npath = \"path.mtx\"\n[[set]]\nname = \"b\"\n[[program]]\nfile = \"bfs.irgl\"\n"
            ),
        )
        .unwrap();
        let (_, err) = s.expect(&["bench", "suite.toml", "--arch", "sm_90"], 1);
        assert!(err.contains(what), "{line}: {err}");
        assert!(!err.contains("built "), "{line}: {err}");
    }
    // A variant timed at 0 ms: ranked, drawn, and the run ends.
    let mut cmd = s.cmd(&[
        "tune",
        "bfs.irgl",
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
    ]);
    cmd.env("STANDIN_ZERO", "--nested fg");
    let out = run_with_limit(cmd, Duration::from_secs(60));
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let svg = std::fs::read_to_string(s.path("tune-bfs/speedups.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
}

#[test]
fn broken_streams_keep_the_records_and_a_failed_stdout_is_an_error() {
    let s = Scratch::new("streams");
    s.program("bfs.irgl", "bfs.irgl");
    let out = Command::new(env!("CARGO_BIN_EXE_irglc"))
        .args(["emit", "ast", "bfs.irgl"])
        .current_dir(&s.dir)
        .stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .output()
        .unwrap();
    let (_, err) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write the output"), "{err}");
    // `irglc bench ... 2>&1 | head`, the reader gone: every write to stdout and stderr fails
    // (a broken pipe); the run goes on, saves its records and ends by itself.
    path_graph(&s);
    std::fs::write(
        s.path("suite.toml"),
        "runs = 2\n[[graph]]\nname = \"p\"\npath = \"path.mtx\"\n[[set]]\nname = \"base\"\n[[set]]\nname = \"fg\"\nflags = \"--nested fg\"\n[[program]]\nfile = \"bfs.irgl\"\n",
    )
    .unwrap();
    let broken = broken_pipe();
    let mut cmd = s.cmd(&[
        "bench",
        "suite.toml",
        "--arch",
        "sm_90",
        "--out",
        "records.json",
    ]);
    cmd.stdout(broken.try_clone().unwrap()).stderr(broken);
    let status = cmd.status().unwrap();
    assert_eq!(status.code(), Some(0));
    let records = std::fs::read_to_string(s.path("records.json")).unwrap();
    assert!(records.contains("\"set\": \"fg\""), "{records}");
}

/// The write end of a pipe whose read end is closed: every write fails with EPIPE.
fn broken_pipe() -> std::fs::File {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills two new descriptors; the read end is closed at once and the
    // write end owned by the File.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::close(fds[0]);
        std::fs::File::from_raw_fd(fds[1])
    }
}
