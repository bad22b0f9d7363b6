//! nvcc compiles the generated CUDA of every program and corpus file under every named option
//! set, for sm_90, with warnings as errors.
//!
//! To keep this fast, distinct files are compiled in bundles: one translation unit includes
//! several generated files, each in a namespace of its own (`irgl_program` and `main` renamed
//! by macros), so that the runtime headers are parsed once per bundle. nvcc comes from
//! `scripts/install-cuda.sh` (`.venv-cuda`), `$IRGLC_NVCC` or `PATH`. Without one the test
//! says so and passes, except under CI (`CI` set), where it fails: CI installs nvcc.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn find_nvcc() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IRGLC_NVCC") {
        return Some(PathBuf::from(p));
    }
    let venv = common::workspace().join(".venv-cuda/lib");
    if let Ok(entries) = std::fs::read_dir(venv) {
        for e in entries.flatten() {
            let nvcc = e.path().join("site-packages/nvidia/cu13/bin/nvcc");
            if nvcc.is_file() {
                return Some(nvcc);
            }
        }
    }
    std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("nvcc"))
            .find(|p| p.is_file())
    })
}

/// NCCL's header folder: `$IRGLC_NCCL/include`, else PyPI's nvidia-nccl wheel beside
/// nvcc's (site-packages/nvidia/nccl, as `scripts/install-cuda.sh` installs it).
fn find_nccl_include(nvcc: &std::path::Path) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(d) = std::env::var_os("IRGLC_NCCL") {
        candidates.push(PathBuf::from(d).join("include"));
    }
    if let Some(nvidia) = nvcc
        .parent()
        .and_then(|b| b.parent())
        .and_then(|c| c.parent())
    {
        candidates.push(nvidia.join("nccl/include"));
    }
    candidates.into_iter().find(|d| d.join("nccl.h").is_file())
}

/// The option sets of the quick tier.
const QUICK_SETS: [&str; 3] = ["baseline", "O2", "agg-block+async+outline-sm"];

/// Files per translation unit.
const BUNDLE: usize = 24;

#[test]
fn every_generated_file_compiles_with_nvcc() {
    // The quick tier of scripts/test compiles every file under a few sets that between them
    // reach each part of the template (no worklists, outlining, asynchronous queues, -O2);
    // `scripts/test --full` (and CI) compiles them under every set.
    let quick = std::env::var_os("IRGLC_TEST_QUICK").is_some();
    let Some(nvcc) = find_nvcc() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have nvcc: scripts/install-cuda.sh installs it"
        );
        eprintln!("no nvcc: skipping (run scripts/install-cuda.sh)");
        return;
    };
    // Every distinct generated file (the header, which names the options, aside).
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut inputs = common::programs();
    inputs.extend(common::corpus("tests/compile"));
    for (set, flags) in common::option_sets() {
        if quick && !QUICK_SETS.contains(&set.as_str()) {
            continue;
        }
        for (name, rel) in &inputs {
            let cuda = common::compile(rel, &common::config_for(rel, &flags)).cuda;
            let body = cuda.lines().skip(3).collect::<Vec<_>>().join("\n");
            files.entry(body).or_insert_with(|| format!("{name}@{set}"));
        }
    }
    // The programs built to run on several GPUs (those the partition analysis accepts), which
    // include NCCL's header: at -O2 (and -O0 in the full tier).
    let nccl = find_nccl_include(&nvcc);
    match &nccl {
        Some(_) => {
            let levels: &[&str] = if quick { &["-O2"] } else { &["-O0", "-O2"] };
            let mut built = 0;
            for (name, rel) in &inputs {
                for level in levels {
                    let flags = format!("{level} --multi-gpu on");
                    if let Some(cuda) = common::try_compile_words(rel, &flags) {
                        built += 1;
                        let body = cuda.lines().skip(3).collect::<Vec<_>>().join("\n");
                        files
                            .entry(body)
                            .or_insert_with(|| format!("{name}@multi-gpu{level}"));
                    }
                }
            }
            // bfs, sssp, pr, cc-lp, mis and the others that multi_gpu.rs lists, at least.
            assert!(
                built >= 10 * levels.len(),
                "only {built} --multi-gpu builds"
            );
        }
        None => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must have NCCL's header: scripts/install-cuda.sh installs it"
            );
            eprintln!("no nccl.h beside nvcc: skipping the --multi-gpu builds");
        }
    }
    let dir = std::env::temp_dir().join(format!("irglc-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let include = common::workspace().join("runtime-cuda/include");
    let files: Vec<(String, String)> = files.into_iter().map(|(body, name)| (name, body)).collect();
    let bundles: Vec<PathBuf> = files
        .chunks(BUNDLE)
        .enumerate()
        .map(|(i, chunk)| {
            let mut tu = String::from("#include \"irgl/runtime.cuh\"\n");
            for (j, (name, body)) in chunk.iter().enumerate() {
                let file = format!("f{i}_{j}.cu");
                std::fs::write(dir.join(&file), format!("// {name}\n{body}\n")).unwrap();
                tu.push_str(&format!(
                    "#define irgl_program irgl_program_{i}_{j}\n#define main irgl_main_{i}_{j}\n#include \"{file}\"  // {name}\n#undef main\n#undef irgl_program\n"
                ));
            }
            let path = dir.join(format!("bundle{i}.cu"));
            std::fs::write(&path, tu).unwrap();
            path
        })
        .collect();
    eprintln!(
        "{} distinct files in {} bundles{}",
        files.len(),
        bundles.len(),
        if quick {
            " (quick: three option sets)"
        } else {
            ""
        }
    );
    // Two compilations at a time: each takes a core.
    let failures: Vec<String> = bundles
        .chunks(2)
        .flat_map(|pair| {
            let children: Vec<_> = pair
                .iter()
                .map(|path| {
                    let child = Command::new(&nvcc)
                        .args(["-arch=sm_90", "-std=c++17", "-O3", "-c"])
                        .args([
                            "-Werror",
                            "all-warnings",
                            "-Xcompiler",
                            "-Wall,-Wextra,-Werror",
                        ])
                        .arg("-I")
                        .arg(&include)
                        .arg("-I")
                        .arg(&dir)
                        .args(
                            nccl.iter()
                                .flat_map(|d| [std::ffi::OsStr::new("-I"), d.as_os_str()]),
                        )
                        .arg(path)
                        .arg("-o")
                        .arg(path.with_extension("o"))
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .spawn();
                    (path.clone(), child)
                })
                .collect();
            children.into_iter().filter_map(|(path, out)| {
                let out = out.and_then(|c| c.wait_with_output()).expect("nvcc runs");
                (!out.status.success()).then(|| {
                    format!(
                        "{}:\n{}{}",
                        path.display(),
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    )
                })
            })
        })
        .collect();
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(
        failures.is_empty(),
        "nvcc failed (files kept in {}):\n{}",
        dir.display(),
        failures.join("\n")
    );
}
