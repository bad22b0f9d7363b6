//! Helpers for the parallel host pipeline (rayon): node ranges balanced by their edges, the
//! per-range slices of an edge array, and a slice that many threads write at distinct places.
//!
//! Every parallel pass of the crate gives the same result whatever the number of threads: work
//! is split by node ranges (or chunks of edges) whose results are joined in order.

use std::marker::PhantomData;
use std::ops::Range;

use rayon::prelude::*;

/// Node ranges per thread: enough for rayon to balance ranges of unequal cost.
const RANGES_PER_THREAD: usize = 16;

/// Below this many nodes plus edges, one range: parallel work does not pay.
pub(crate) const SERIAL_BELOW: u64 = 1 << 15;

/// Splits the nodes `0..n` into consecutive ranges of about equal cost, where the nodes before
/// `v` cost `cost_before(v)` (non-decreasing, `cost_before(0) == 0`) plus one each. Every node
/// is in exactly one range; no range is empty.
pub(crate) fn node_ranges(n: usize, cost_before: impl Fn(usize) -> u64) -> Vec<Range<usize>> {
    let total = cost_before(n) + n as u64;
    if n == 0 {
        return Vec::new();
    }
    let parts = if total < SERIAL_BELOW {
        1
    } else {
        (rayon::current_num_threads() * RANGES_PER_THREAD).min(n)
    };
    let mut ranges = Vec::with_capacity(parts);
    let mut start = 0usize;
    for k in 1..=parts {
        let end = if k == parts {
            n
        } else {
            let target = total / parts as u64 * k as u64;
            // The first node whose cost before it reaches the target.
            let (mut lo, mut hi) = (start, n);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if cost_before(mid) + mid as u64 >= target {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo
        };
        if end > start {
            ranges.push(start..end);
            start = end;
        }
    }
    ranges
}

/// [`node_ranges`] balanced by the edges of `offsets` (a CSR's `n + 1` offsets).
pub(crate) fn edge_ranges(offsets: &[u64]) -> Vec<Range<usize>> {
    node_ranges(offsets.len().saturating_sub(1), |v| offsets[v])
}

/// The slices of `data` that hold the edges of each node range (`offsets` as in a CSR; the
/// ranges consecutive from node 0, as [`node_ranges`] gives them).
pub(crate) fn split_by_ranges<'a, T>(
    mut data: &'a mut [T],
    offsets: &[u64],
    ranges: &[Range<usize>],
) -> Vec<&'a mut [T]> {
    let mut parts = Vec::with_capacity(ranges.len());
    for r in ranges {
        let len = (offsets[r.end] - offsets[r.start]) as usize;
        let (head, tail) = std::mem::take(&mut data).split_at_mut(len);
        parts.push(head);
        data = tail;
    }
    parts
}

/// The node slices (`data[r]` for each range) of a per-node array.
pub(crate) fn split_nodes<'a, T>(data: &'a mut [T], ranges: &[Range<usize>]) -> Vec<&'a mut [T]> {
    let mut rest = data;
    let mut parts = Vec::with_capacity(ranges.len());
    let mut at = 0;
    for r in ranges {
        debug_assert_eq!(r.start, at, "ranges are consecutive");
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(r.len());
        parts.push(head);
        rest = tail;
        at = r.end;
    }
    parts
}

/// A slice written by many threads at once, each index by one thread only (the scatter of a
/// counting sort, each thread at positions of its own).
pub(crate) struct Scatter<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: a `Scatter` only hands out writes to distinct indices (the caller's contract on
// `write`), so sharing it between threads is sharing a `&mut [T]` split by index.
unsafe impl<T: Send> Send for Scatter<'_, T> {}
unsafe impl<T: Send> Sync for Scatter<'_, T> {}

impl<'a, T: Copy> Scatter<'a, T> {
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        Scatter {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: PhantomData,
        }
    }

    /// Writes `value` at `index`.
    ///
    /// # Safety
    /// No other thread may read or write `index` while the `Scatter` lives.
    pub(crate) unsafe fn write(&self, index: usize, value: T) {
        assert!(
            index < self.len,
            "scatter index {index} out of {}",
            self.len
        );
        // SAFETY: in bounds (checked), and no other access to this index (the contract).
        unsafe { self.ptr.add(index).write(value) }
    }
}

/// The per-range slices of an optional edge array (`None` for each range when it is absent).
pub(crate) fn split_optional<'a>(
    data: &'a mut Option<Vec<u32>>,
    offsets: &[u64],
    ranges: &[Range<usize>],
) -> Vec<Option<&'a mut [u32]>> {
    match data {
        Some(d) => split_by_ranges(d, offsets, ranges)
            .into_iter()
            .map(Some)
            .collect(),
        None => ranges.iter().map(|_| None).collect(),
    }
}

/// Builds one list per node (and its weights, when `weighted`) in two passes over node
/// ranges in parallel: `count(u)` gives the length of node `u`'s list, then `fill(u, list,
/// weights)` writes it into slices of exactly that length. Returns the offsets, the lists and
/// their weights, as a CSR holds them.
pub(crate) fn build_lists(
    n: usize,
    ranges: &[Range<usize>],
    weighted: bool,
    count: impl Fn(usize) -> u64 + Sync,
    fill: impl Fn(usize, &mut [u32], Option<&mut [u32]>) + Sync,
) -> (Vec<u64>, Vec<u32>, Option<Vec<u32>>) {
    let mut offsets = vec![0u64; n + 1];
    split_nodes(&mut offsets[..n], ranges)
        .into_par_iter()
        .zip(ranges)
        .for_each(|(lens, r)| {
            for (len, u) in lens.iter_mut().zip(r.clone()) {
                *len = count(u);
            }
        });
    exclusive_prefix_sums(&mut offsets);
    let m = offsets[n] as usize;
    let mut lists = vec![0u32; m];
    let mut weights = weighted.then(|| vec![0u32; m]);
    let offsets_ref = &offsets;
    split_by_ranges(&mut lists, offsets_ref, ranges)
        .into_par_iter()
        .zip(split_optional(&mut weights, offsets_ref, ranges))
        .zip(ranges)
        .for_each(|((mut list, mut w), r)| {
            for u in r.clone() {
                let len = (offsets_ref[u + 1] - offsets_ref[u]) as usize;
                let (mine, rest) = std::mem::take(&mut list).split_at_mut(len);
                list = rest;
                let mine_w = match w.take() {
                    Some(ws) => {
                        let (a, b) = ws.split_at_mut(len);
                        w = Some(b);
                        Some(a)
                    }
                    None => None,
                };
                fill(u, mine, mine_w);
            }
        });
    (offsets, lists, weights)
}

/// Exclusive prefix sums of `counts` in place, so that `counts[v]` becomes the sum of the
/// counts before `v` (the last entry, one past the nodes, the total).
pub(crate) fn exclusive_prefix_sums(counts: &mut [u64]) {
    let mut sum = 0u64;
    for c in counts.iter_mut() {
        let x = *c;
        *c = sum;
        sum += x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_nodes_once_and_balance_edges() {
        // A hub, then many small nodes.
        let mut offsets = vec![0u64, 1_000_000];
        for _ in 0..100_000 {
            offsets.push(offsets.last().unwrap() + 3);
        }
        let ranges = edge_ranges(&offsets);
        let n = offsets.len() - 1;
        assert_eq!(ranges.first().unwrap().start, 0);
        assert_eq!(ranges.last().unwrap().end, n);
        for w in ranges.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
        assert!(ranges.iter().all(|r| !r.is_empty()));
        // The hub's range is the hub alone (when there is more than one range).
        if ranges.len() > 1 {
            assert_eq!(ranges[0], 0..1);
        }
    }

    #[test]
    fn small_inputs_are_one_range_and_empty_none() {
        assert_eq!(edge_ranges(&[0, 2, 3]), vec![0..2]);
        assert!(edge_ranges(&[0]).is_empty());
    }

    #[test]
    fn splits_follow_the_ranges() {
        let offsets = [0u64, 2, 2, 5, 6];
        let mut data = [0u32, 1, 2, 3, 4, 5];
        let ranges = [0..1, 1..3, 3..4];
        let parts = split_by_ranges(&mut data, &offsets, &ranges);
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [2, 3, 1]);
        let mut nodes = [7u8; 4];
        let parts = split_nodes(&mut nodes, &ranges);
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [1, 2, 1]);
    }

    #[test]
    fn prefix_sums_are_exclusive() {
        let mut c = [3u64, 0, 2, 0];
        exclusive_prefix_sums(&mut c);
        assert_eq!(c, [0, 3, 3, 5]);
    }
}
