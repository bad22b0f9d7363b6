//! Finding and driving the CUDA toolchain: nvcc, the GPU's architecture (through cudarc), the
//! embedded device runtime, and the build cache.

use std::path::{Path, PathBuf};
use std::process::Command;

include!(concat!(env!("OUT_DIR"), "/runtime_headers.rs"));

/// The CUDA compiler and the library folders it links with.
pub struct Toolchain {
    pub nvcc: PathBuf,
    pub lib_dirs: Vec<PathBuf>,
}

/// Looks for nvcc: `$IRGLC_NVCC`, then `.venv-cuda` (scripts/install-cuda.sh) in the current
/// folder or above, then `nvcc` on `PATH`, then `/usr/local/cuda/bin/nvcc`.
pub fn find_toolchain() -> Result<Toolchain, String> {
    let mut candidates = Vec::new();
    if let Some(p) = std::env::var_os("IRGLC_NVCC") {
        candidates.push(PathBuf::from(p));
    }
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            candidates.extend(venv_nvcc(&dir.join(".venv-cuda")));
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("nvcc")));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/nvcc"));
    let nvcc = candidates.into_iter().find(|p| p.is_file()).ok_or_else(|| {
        "no CUDA compiler found: install one with `scripts/install-cuda.sh` (nvcc from PyPI into \
         .venv-cuda), put nvcc on PATH, or set IRGLC_NVCC=/path/to/nvcc"
            .to_string()
    })?;
    // The PyPI toolkit keeps its libraries beside bin/ in lib/.
    let lib_dirs = ["../lib", "../lib64"]
        .iter()
        .filter_map(|rel| nvcc.parent().map(|b| b.join(rel)))
        .filter(|d| d.is_dir())
        .collect();
    Ok(Toolchain { nvcc, lib_dirs })
}

fn venv_nvcc(venv: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path().join("site-packages/nvidia/cu13/bin/nvcc"))
        .collect()
}

/// The GPU of this machine, as nvcc's architecture name (`sm_90`) and the device's name.
pub fn detect_gpu() -> Result<(String, String), String> {
    // cudarc panics if the driver library cannot be loaded, so ask first.
    // SAFETY: only tries to open the driver's shared library.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver on this machine (libcuda not found)".to_string());
    }
    let count = cudarc::driver::CudaContext::device_count().map_err(|e| format!("CUDA: {e}"))?;
    if count == 0 {
        return Err("the CUDA driver reports no GPU".to_string());
    }
    let ctx = cudarc::driver::CudaContext::new(0).map_err(|e| format!("CUDA: {e}"))?;
    let (major, minor) = ctx.compute_capability().map_err(|e| format!("CUDA: {e}"))?;
    let name = ctx.name().unwrap_or_else(|_| "unknown GPU".to_string());
    Ok((format!("sm_{major}{minor}"), name))
}

/// Where irglc keeps built programs and converted graphs: `$IRGLC_CACHE`, else
/// `$XDG_CACHE_HOME/irglc`, else `~/.cache/irglc`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("IRGLC_CACHE") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("irglc");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".cache/irglc"),
        None => std::env::temp_dir().join("irglc-cache"),
    }
}

/// What identifies a version of a file in the caches: a hash of its path, size and
/// modification time.
pub fn file_stamp(path: &Path) -> std::io::Result<u64> {
    let meta = std::fs::metadata(path)?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(fnv1a(&[
        path.display().to_string().as_bytes(),
        &meta.len().to_le_bytes(),
        &mtime.to_le_bytes(),
    ]))
}

/// A hash of the runtime headers this irglc embeds: part of every build cache key, so that a
/// program is rebuilt when the runtime changes.
pub fn runtime_key() -> u64 {
    let parts: Vec<&[u8]> = RUNTIME_HEADERS
        .iter()
        .flat_map(|(n, c)| [n.as_bytes(), c.as_bytes()])
        .collect();
    fnv1a(&parts)
}

/// A stable 64-bit FNV-1a hash, for cache keys.
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Writes the embedded runtime headers under the cache (once per content, as a whole
/// folder renamed into place, so that nvcc never reads a header half written) and returns the
/// include folder to pass to nvcc.
pub fn runtime_include_dir() -> Result<PathBuf, String> {
    let dir = cache_dir().join(format!("runtime-{:016x}", runtime_key()));
    if dir.join("irgl/runtime.cuh").is_file() {
        return Ok(dir);
    }
    let fail =
        |e: std::io::Error| format!("cannot write the runtime headers to {}: {e}", dir.display());
    // What an older irglc left half written.
    let _ = std::fs::remove_dir_all(&dir);
    let pending = irgl_files::PendingDir::beside(&dir).map_err(fail)?;
    let irgl = pending.path().join("irgl");
    std::fs::create_dir_all(&irgl).map_err(fail)?;
    for (name, contents) in RUNTIME_HEADERS {
        std::fs::write(irgl.join(name), contents).map_err(fail)?;
    }
    pending.commit().map_err(fail)?;
    Ok(dir)
}

/// nvcc's flags besides the architecture, the include folder and the files: part of every
/// build cache key.
pub const NVCC_FLAGS: &[&str] = &["-O3", "-std=c++17", "-lineinfo"];

/// What identifies the compiler in the build cache: `nvcc --version`'s output, or, where it
/// prints none, the file's stamp (path, size, modification time). Asked once per process.
pub fn nvcc_identity(tc: &Toolchain) -> &'static str {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let version = crate::process::output(Command::new(&tc.nvcc).arg("--version"))
            .ok()
            .filter(|o| o.status.success() && !o.stdout.is_empty())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        version.unwrap_or_else(|| {
            format!(
                "{} {:016x}",
                tc.nvcc.display(),
                file_stamp(&tc.nvcc).unwrap_or(0)
            )
        })
    })
}

/// Compiles one `.cu` file into an executable at `out` (which nvcc writes itself: callers
/// pass a temporary and rename it into place). On failure returns nvcc's output.
pub fn nvcc_build(tc: &Toolchain, cu: &Path, out: &Path, arch: &str) -> Result<(), String> {
    let include = runtime_include_dir()?;
    let mut cmd = Command::new(&tc.nvcc);
    cmd.arg(format!("-arch={arch}"))
        .args(NVCC_FLAGS)
        .arg("-I")
        .arg(&include)
        .arg(cu)
        .arg("-o")
        .arg(out);
    for d in &tc.lib_dirs {
        cmd.arg("-L").arg(d);
    }
    // A program built to run on several GPUs links NCCL, found where it was installed.
    let source =
        std::fs::read_to_string(cu).map_err(|e| format!("cannot read {}: {e}", cu.display()))?;
    if source.contains(MULTI_GPU_INCLUDE) {
        let nccl = find_nccl(tc)?;
        cmd.arg("-I")
            .arg(&nccl.include)
            .arg("-Xlinker")
            .arg(&nccl.library)
            .arg("-Xlinker")
            .arg(format!(
                "-rpath={}",
                nccl.library.parent().unwrap_or(Path::new(".")).display()
            ));
    }
    let output = crate::process::output(&mut cmd)
        .map_err(|e| format!("cannot run {}: {e}", tc.nvcc.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "nvcc failed on {} ({}):\n{}{}",
            cu.display(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// The line by which a generated program built with `--multi-gpu on` includes the runtime's
/// partitioned execution (and NCCL).
pub const MULTI_GPU_INCLUDE: &str = "#include \"irgl/multi.cuh\"";

/// Where NCCL is: its header folder and its shared library.
pub struct Nccl {
    pub include: PathBuf,
    pub library: PathBuf,
}

/// NCCL, for programs built to run on several GPUs: `IRGLC_NCCL` (a folder with
/// `include/nccl.h` and `lib/libnccl.so*`), PyPI's nvidia-nccl wheel beside the nvidia-cuda
/// wheels of nvcc (what `scripts/install-cuda.sh` installs) or in `python3`'s packages, or the
/// toolkit's and the system's folders.
pub fn find_nccl(tc: &Toolchain) -> Result<Nccl, String> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("IRGLC_NCCL") {
        roots.push(PathBuf::from(d));
    }
    // site-packages/nvidia/cu13/bin/nvcc -> site-packages/nvidia/nccl
    if let Some(nvidia) = tc
        .nvcc
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
    {
        roots.push(nvidia.join("nccl"));
    }
    let python = crate::process::output(
        Command::new("python3").args(["-c", "import nvidia.nccl as n; print(list(n.__path__)[0])"]),
    );
    if let Ok(o) = python
        && o.status.success()
    {
        let dir = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if !dir.is_empty() {
            roots.push(PathBuf::from(dir));
        }
    }
    if let Some(toolkit) = tc.nvcc.parent().and_then(Path::parent) {
        roots.push(toolkit.to_path_buf());
    }
    roots.push(PathBuf::from("/usr"));
    for root in &roots {
        let include = root.join("include");
        if !include.join("nccl.h").is_file() {
            continue;
        }
        for lib in ["lib", "lib64", "lib/x86_64-linux-gnu"] {
            for name in ["libnccl.so", "libnccl.so.2"] {
                let library = root.join(lib).join(name);
                if library.is_file() {
                    return Ok(Nccl { include, library });
                }
            }
        }
    }
    Err(format!(
        "this program is built to run on several GPUs (--multi-gpu on) and needs NCCL, found in none of {}: \
         install it with `scripts/install-cuda.sh` (PyPI's nvidia-nccl-cu13), or set IRGLC_NCCL to a folder \
         with include/nccl.h and lib/libnccl.so",
        roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}
