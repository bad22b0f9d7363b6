//! Compiles the generated CUDA of every program with nvcc for sm_90, warnings as errors.
//!
//! nvcc comes from `scripts/install-cuda.sh` (`.venv-cuda`), `$IRGLC_NVCC` or `PATH`. Without
//! one the test says so and passes, except under CI (`CI` set), where it fails: CI installs nvcc.

mod common;

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

#[test]
fn every_program_compiles_with_nvcc() {
    let Some(nvcc) = find_nvcc() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have nvcc: scripts/install-cuda.sh installs it"
        );
        eprintln!("no nvcc: skipping (run scripts/install-cuda.sh)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("irglc-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let include = common::workspace().join("runtime-cuda/include");
    let programs = common::generated_programs();
    // Two compilations at a time: each takes a core for ~10 s.
    let failures: Vec<String> = programs
        .chunks(2)
        .flat_map(|pair| {
            let children: Vec<_> = pair
                .iter()
                .map(|(name, cu)| {
                    let path = dir.join(format!("{name}.cu"));
                    std::fs::write(&path, cu).unwrap();
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
                        .arg(&path)
                        .arg("-o")
                        .arg(dir.join(format!("{name}.o")))
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .spawn();
                    (name.clone(), child)
                })
                .collect();
            children.into_iter().filter_map(|(name, out)| {
                let out = out.and_then(|c| c.wait_with_output()).expect("nvcc runs");
                (!out.status.success()).then(|| {
                    format!(
                        "{name}:\n{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    )
                })
            })
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "nvcc failed:\n{}", failures.join("\n"));
}
