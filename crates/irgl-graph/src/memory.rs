//! The memory a generator will need, checked before it allocates: a size beyond the machine's
//! memory is an error that says how much it needs, where an allocation that fails would abort
//! the process.

use crate::error::{GraphError, Result};

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`), where known.
pub fn physical() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `bytes` as GiB (or MiB below one GiB), for messages.
pub fn human(bytes: u128) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    let b = bytes as f64;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    }
}

/// Ok if `bytes` fit in `limit` (or no limit is known); else an error saying that `what`
/// needs about that much.
pub fn fits_in(bytes: u128, limit: Option<u64>, what: &str) -> Result<()> {
    match limit {
        Some(limit) if bytes > u128::from(limit) => Err(GraphError::Invalid(format!(
            "{what} needs about {} of memory; this machine has {}",
            human(bytes),
            human(u128::from(limit))
        ))),
        _ => Ok(()),
    }
}

/// [`fits_in`] the machine's physical memory.
pub fn fits(bytes: u128, what: &str) -> Result<()> {
    fits_in(bytes, physical(), what)
}

/// The peak memory of a graph of `n` nodes and `m` edges built from an edge list: the list
/// (8 bytes an edge), then the CSR (4 bytes an edge, 8 a node) and its construction's counts.
pub fn graph_bytes(n: u64, m: u64) -> u128 {
    16 * u128::from(m) + 16 * u128::from(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_beyond_the_limit_are_errors_that_say_how_much() {
        assert!(fits_in(10, Some(100), "x").is_ok());
        assert!(fits_in(10, None, "x").is_ok());
        let e = fits_in(
            graph_bytes(1 << 31, 1 << 40),
            Some(24 << 30),
            "an RMAT graph",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(
                "an RMAT graph needs about 16416.0 GiB of memory; this machine has 24.0 GiB"
            ),
            "{e}"
        );
        assert!(physical().is_none_or(|b| b > 1 << 20));
    }
}
