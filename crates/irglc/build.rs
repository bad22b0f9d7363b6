//! Embeds the CUDA device runtime (`runtime-cuda/include/irgl/*.cuh`) into the irglc binary,
//! so that `irglc build` works from a binary copied anywhere (for example to a GPU machine).

use std::fmt::Write;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime-cuda/include/irgl");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("runtime-cuda/include/irgl exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cuh"))
        .collect();
    names.sort();
    let mut out = String::from(
        "/// The runtime headers: (file name, contents).\npub const RUNTIME_HEADERS: &[(&str, &str)] = &[\n",
    );
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    out.push_str("];\n");
    let out_path = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("runtime_headers.rs");
    std::fs::write(out_path, out).expect("OUT_DIR is writable");
}
