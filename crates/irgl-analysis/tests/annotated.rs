//! Analysis tests in the style of Cranelift's `test domtree`: each `tests/analysis/*.irgl`
//! labels statements with `// @name` comments on their lines and states the expected facts
//! in comment lines:
//!
//! ```text
//! // options: --nested tb+fg        the option set (default: the baseline)
//! // idom: A B                      B is A's immediate dominator
//! // ipdom: A B                     B is A's immediate post-dominator
//! // dominates: A B                 A dominates B   (!dominates: it does not)
//! // cdep: A B                      A is directly control-dependent on B   (!cdep: it is not)
//! // uniform: A B ...               each is a uniform branch   (!uniform: a non-uniform one)
//! // focal: A B ...                 each is a focal point      (!focal: it is not)
//! ```
//!
//! Nodes: `entry`, `exit`, a label (the first statement that starts on the labelled line,
//! or the loop when a scheduled loop and its inspection share it; for branches and loops,
//! their test),
//! `label.join` (where an `if` meets), `label.phaseN` (the N-th phase of a uniform loop), `label.schedN` / `label.execN` (scheduler N of a
//! block-scheduled loop), with `/I` for the copy of a statement in scheduler I's body.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use irgl_analysis::{Cfg, ControlDeps, DomTree, NodeKind, Uniformity};
use irgl_diagnostics::SourceMap;
use irgl_driver::{OptConfig, Source, Trace};
use irgl_ir::{Module, StmtId, visit};
use petgraph::graph::NodeIndex;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn config(flags: &str) -> OptConfig {
    let words: Vec<&str> = flags.split_whitespace().collect();
    OptConfig::from_args(&words).unwrap_or_else(|e| panic!("options `{flags}`: {e}"))
}

/// The module after the pipeline, and its source map.
fn compile(rel: &str, text: &str, flags: &str) -> (Module, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add(rel.to_string(), text.to_string());
    let mut last = None;
    let mut hook = |_: &str, m: &Module| last = Some(m.clone());
    let mut trace = Trace {
        verify: true,
        on_step: Some(&mut hook),
        timings: Vec::new(),
    };
    let source = Source {
        file,
        name: rel,
        text,
    };
    irgl_driver::compile_traced(source, &config(flags), &mut trace)
        .unwrap_or_else(|d| panic!("{rel}: {d:?}"));
    drop(trace);
    (last.expect("the pipeline ran"), sources)
}

struct Checker {
    /// label -> (kernel index, statement)
    labels: HashMap<String, (usize, StmtId)>,
    cfgs: Vec<(Cfg, DomTree, DomTree)>,
    /// Control dependences and uniformity, by kernel.
    uniformity: Vec<(ControlDeps, Uniformity)>,
    /// The phases of each uniform ForAll's body, in order, by kernel and loop statement.
    phases: HashMap<(usize, StmtId), Vec<StmtId>>,
}

impl Checker {
    fn node(&self, name: &str) -> (usize, NodeIndex) {
        let (base, instance) = match name.split_once('/') {
            Some((b, i)) => (b, i.parse::<u8>().expect("instance number")),
            None => (name, 0),
        };
        let (label, part) = base.split_once('.').unwrap_or((base, ""));
        if label == "entry" || label == "exit" {
            panic!("use entry/exit only as the second node of a fact (they have no kernel)");
        }
        let &(k, s) = self
            .labels
            .get(label)
            .unwrap_or_else(|| panic!("no statement labelled @{label}"));
        let cfg = &self.cfgs[k].0;
        if let Some(i) = part.strip_prefix("phase") {
            let phase = self.phases[&(k, s)][i.parse::<usize>().unwrap()];
            let n = cfg.stmt_node(phase, instance).expect("phase node");
            return (k, n);
        }
        let kind = match part {
            "" => NodeKind::Stmt,
            "join" => NodeKind::Join,
            p if p.starts_with("sched") => NodeKind::Scheduler(p[5..].parse().unwrap()),
            p if p.starts_with("exec") => NodeKind::Executor(p[4..].parse().unwrap()),
            p => panic!("unknown node part .{p}"),
        };
        let n = cfg
            .node(kind, s, instance)
            .unwrap_or_else(|| panic!("{name}: no such node"));
        (k, n)
    }

    fn other(&self, k: usize, name: &str) -> NodeIndex {
        match name {
            "entry" => self.cfgs[k].0.entry,
            "exit" => self.cfgs[k].0.exit,
            _ => {
                let (k2, n) = self.node(name);
                assert_eq!(k, k2, "{name} is in another kernel");
                n
            }
        }
    }
}

#[test]
fn annotated_facts_hold() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(workspace().join("tests/analysis"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "irgl"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut checked = 0;
    for path in files {
        let rel = format!(
            "tests/analysis/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let flags = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("// options:"))
            .unwrap_or("")
            .trim()
            .to_string();
        let (module, sources) = compile(&rel, &text, &flags);
        let file = sources.files().next().unwrap().1;
        // Labels: `// @name` at the end of a line names the first statement starting there.
        let mut by_line: HashMap<usize, String> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find("// @") {
                let name = line[pos + 4..].split_whitespace().next().unwrap();
                by_line.insert(i + 1, name.to_string());
            }
        }
        let mut checker = Checker {
            labels: HashMap::new(),
            cfgs: Vec::new(),
            uniformity: Vec::new(),
            phases: HashMap::new(),
        };
        for (ki, (_, k)) in module.kernels.iter().enumerate() {
            visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
                let span = k.body.stmts[s].span;
                if span.is_none() {
                    return;
                }
                let (line, _) = file.line_col(span.start as usize);
                if let Some(name) = by_line.get(&line) {
                    // A scheduled loop shares its line with its Inspect: the label names
                    // the loop.
                    let is_loop = matches!(k.body.stmts[s].kind, irgl_ir::StmtKind::ForAll(_));
                    if is_loop || !checker.labels.contains_key(name) {
                        checker.labels.insert(name.clone(), (ki, s));
                    }
                }
            });
            visit::walk_stmts(&k.body, &k.body.block, &mut |s| {
                if let irgl_ir::StmtKind::ForAll(f) = &k.body.stmts[s].kind {
                    let phases = f
                        .body
                        .iter()
                        .copied()
                        .filter(|p| matches!(k.body.stmts[*p].kind, irgl_ir::StmtKind::Phase(_)))
                        .collect();
                    checker.phases.insert((ki, s), phases);
                }
            });
            let cfg = Cfg::build(&k.body);
            let dom = DomTree::dominators(&cfg);
            let pdom = DomTree::post_dominators(&cfg);
            let cdg = ControlDeps::build(&cfg, &pdom);
            let uniformity = Uniformity::analyze(&k.body, &cfg, &cdg);
            checker.cfgs.push((cfg, dom, pdom));
            checker.uniformity.push((cdg, uniformity));
        }
        for name in by_line.values() {
            assert!(
                checker.labels.contains_key(name),
                "{rel}: @{name} labels no statement"
            );
        }
        for line in text.lines() {
            let line = line.trim();
            let Some(fact) = line.strip_prefix("// ") else {
                continue;
            };
            let Some((what, args)) = fact.split_once(": ") else {
                continue;
            };
            let args: Vec<&str> = args.split_whitespace().collect();
            if matches!(what, "uniform" | "!uniform" | "focal" | "!focal") {
                for a in &args {
                    let (k, n) = checker.node(a);
                    let (cdg, u) = &checker.uniformity[k];
                    let cfg = &checker.cfgs[k].0;
                    let why = || {
                        let deps: Vec<String> = cdg
                            .iterated_deps(n)
                            .iter()
                            .map(|&b| format!("{} ({:?})", cfg.describe(b), u.is_uniform(b)))
                            .collect();
                        format!("{rel}: {what} {a}; depends on {}", deps.join(", "))
                    };
                    match what {
                        "uniform" | "!uniform" => {
                            let expected = what == "uniform";
                            assert_eq!(u.is_uniform(n), Some(expected), "{}", why());
                        }
                        _ => assert_eq!(u.is_focal(n), what == "focal", "{}", why()),
                    }
                    checked += 1;
                }
                continue;
            }
            if !matches!(
                what,
                "idom" | "ipdom" | "dominates" | "!dominates" | "cdep" | "!cdep"
            ) {
                continue;
            }
            let [a, b] = args[..] else {
                panic!("{rel}: `{line}` needs two nodes");
            };
            let (k, na) = checker.node(a);
            let nb = checker.other(k, b);
            let (cfg, dom, pdom) = &checker.cfgs[k];
            let cdg = &checker.uniformity[k].0;
            match what {
                "idom" => assert_eq!(
                    dom.idom(na).map(|n| cfg.describe(n)),
                    Some(cfg.describe(nb)),
                    "{rel}: idom of {a}"
                ),
                "ipdom" => assert_eq!(
                    pdom.idom(na).map(|n| cfg.describe(n)),
                    Some(cfg.describe(nb)),
                    "{rel}: ipdom of {a}"
                ),
                "dominates" => assert!(dom.dominates(na, nb), "{rel}: {a} should dominate {b}"),
                "!dominates" => {
                    assert!(!dom.dominates(na, nb), "{rel}: {a} should not dominate {b}")
                }
                "cdep" => assert!(cdg.depends_on(na, nb), "{rel}: {a} should depend on {b}"),
                _ => assert!(
                    !cdg.depends_on(na, nb),
                    "{rel}: {a} should not depend on {b}"
                ),
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} facts checked");
}
