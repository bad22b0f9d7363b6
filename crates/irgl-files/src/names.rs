//! File names derived from other file names. Every derived name in irglc comes from here, and
//! all of them keep the whole stem, dots included: `bfs.v2.irgl` is the program `bfs.v2`
//! (whose CUDA is `bfs.v2.cu`, not `bfs.cu`), and Triangle's `box.1` is `box.1.node`,
//! `box.1.ele` and `box.1.poly`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `path` with `.ext` added after its whole name: `box.1` and `node` give `box.1.node`
/// (where `Path::with_extension` would give `box.node`).
pub fn with_added_extension(path: &Path, ext: &str) -> PathBuf {
    let mut s = OsString::from(path.as_os_str());
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Extensions of compressed files, which the readers look through.
const COMPRESSED: &[&str] = &["gz"];

/// A file's name without its folder, its compression (`.gz`) and its last extension, dots
/// before it kept: `programs/bfs.v2.irgl` is `bfs.v2`, `road-NY.mtx.gz` is `road-NY`,
/// `rmat.s20.gr` is `rmat.s20`, `x` is `x`. Names that are not valid Unicode are read lossily.
pub fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let inner = match name.rsplit_once('.') {
        Some((head, ext)) if !head.is_empty() && COMPRESSED.contains(&ext) => head,
        _ => name.as_str(),
    };
    match inner.rsplit_once('.') {
        Some((head, _)) if !head.is_empty() => head.to_string(),
        _ => inner.to_string(),
    }
}

/// `path` without its last extension when that is one of `exts` (`box.1.node` with `node`
/// among them gives `box.1`); otherwise `path` itself. Where a name stands for a family of
/// files (Triangle's `.node`, `.ele`, `.poly`), this is the family's base name.
pub fn base_of(path: &Path, exts: &[&str]) -> PathBuf {
    let name = path.as_os_str().to_string_lossy();
    match name.rsplit_once('.') {
        Some((head, ext))
            if exts.contains(&ext)
                && !head.is_empty()
                && !head.ends_with('/')
                && path.extension().is_some() =>
        {
            PathBuf::from(head)
        }
        _ => path.to_path_buf(),
    }
}

/// `name` made safe to be part of a cache file's name: letters (any script), digits and
/// `.`, `_`, `-` kept, any other character `_`; never empty and never starting with `.`.
pub fn file_safe(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_names_keep_the_whole_stem() {
        let added = |p: &str, e: &str| with_added_extension(Path::new(p), e);
        assert_eq!(added("box.1", "node"), PathBuf::from("box.1.node"));
        assert_eq!(added("d.x/bfs", "cu"), PathBuf::from("d.x/bfs.cu"));
        assert_eq!(
            added("cache/build/bfs.v2-00ff", "cu"),
            PathBuf::from("cache/build/bfs.v2-00ff.cu")
        );
        assert_eq!(added("grafo-ñandú", "gr"), PathBuf::from("grafo-ñandú.gr"));
    }

    #[test]
    fn stems_drop_the_folder_the_compression_and_the_last_extension() {
        let s = |p: &str| stem(Path::new(p));
        assert_eq!(s("programs/bfs.v2.irgl"), "bfs.v2");
        assert_eq!(s("bfs.irgl"), "bfs");
        assert_eq!(s("../g/road-NY.mtx.gz"), "road-NY");
        assert_eq!(s("rmat.s20.gr"), "rmat.s20");
        assert_eq!(s("ego-twitter.txt.gz"), "ego-twitter");
        assert_eq!(s("x"), "x");
        assert_eq!(s("x.gz"), "x");
        assert_eq!(s(".hidden"), ".hidden");
        assert_eq!(s("a.b.c.irgl"), "a.b.c");
        assert_eq!(s("программа.v1.irgl"), "программа.v1");
        assert_eq!(s("图.gr"), "图");
    }

    #[test]
    fn base_names_strip_only_a_family_extension() {
        let b = |p: &str| base_of(Path::new(p), &["node", "ele", "poly"]);
        assert_eq!(b("box.1.node"), PathBuf::from("box.1"));
        assert_eq!(b("box.1.ele"), PathBuf::from("box.1"));
        assert_eq!(b("box.1"), PathBuf::from("box.1"));
        assert_eq!(b("box.mesh"), PathBuf::from("box.mesh"));
        assert_eq!(b("d.x/box"), PathBuf::from("d.x/box"));
        assert_eq!(b(".node"), PathBuf::from(".node"));
        assert_eq!(b("d/.node"), PathBuf::from("d/.node"));
        assert_eq!(b("малая.сетка.node"), PathBuf::from("малая.сетка"));
    }

    #[test]
    fn cache_names_are_safe() {
        assert_eq!(file_safe("bfs.v2"), "bfs.v2");
        assert_eq!(file_safe("bfs ü/x"), "bfs_ü_x");
        assert_eq!(file_safe(""), "_");
        assert_eq!(file_safe(".."), "_..");
        assert_eq!(file_safe("a\nb"), "a_b");
    }
}
