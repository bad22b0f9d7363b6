// irgl/ops.cuh -- the operations that generated operator code calls: one overload set per
// IrGL built-in, so that the code generator can emit the same call for every type.
//
// - atomic_add/sub/min/max/exch/cas/or/and/xor(T* place, T value...): the IrGL atomics; each
//   returns the old value. CUDA lacks some of these for some types (atomicAdd on long long,
//   atomicSub on 64-bit, atomicMin/Max on floats); they are built from the ones it has.
// - min_of, max_of, abs_of: the IrGL built-ins on one type; popc, ffs, clz: the bit
//   built-ins on u32 (uint32_t) and u64 (unsigned long long), host and device.
// - host_degree/host_dst/host_begin/host_end: graph queries from `main` (host memory).
// - check_node: validates a node id given by the user (Initial items), exits 1 if bad.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "graph.cuh"

namespace irgl {

// ---------------------------------------------------------------- atomics

__device__ __forceinline__ unsigned int atomic_add(unsigned int* p, unsigned int v) { return atomicAdd(p, v); }
__device__ __forceinline__ int atomic_add(int* p, int v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned long long atomic_add(unsigned long long* p, unsigned long long v) {
  return atomicAdd(p, v);
}
__device__ __forceinline__ long long atomic_add(long long* p, long long v) {
  // Two's complement: adding the bit pattern is adding the value.
  return static_cast<long long>(
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
}
__device__ __forceinline__ float atomic_add(float* p, float v) { return atomicAdd(p, v); }
__device__ __forceinline__ double atomic_add(double* p, double v) { return atomicAdd(p, v); }

__device__ __forceinline__ unsigned int atomic_sub(unsigned int* p, unsigned int v) { return atomicSub(p, v); }
__device__ __forceinline__ int atomic_sub(int* p, int v) { return atomicSub(p, v); }
__device__ __forceinline__ unsigned long long atomic_sub(unsigned long long* p, unsigned long long v) {
  return atomicAdd(p, ~v + 1ull);
}
__device__ __forceinline__ long long atomic_sub(long long* p, long long v) {
  return atomic_add(p, static_cast<long long>(~static_cast<unsigned long long>(v) + 1ull));
}
__device__ __forceinline__ float atomic_sub(float* p, float v) { return atomicAdd(p, -v); }
__device__ __forceinline__ double atomic_sub(double* p, double v) { return atomicAdd(p, -v); }

template <class T>
__device__ __forceinline__ T atomic_min(T* p, T v) {
  return atomicMin(p, v);
}
template <class T>
__device__ __forceinline__ T atomic_max(T* p, T v) {
  return atomicMax(p, v);
}
template <class T>
__device__ __forceinline__ T atomic_exch(T* p, T v) {
  return atomicExch(p, v);
}
__device__ __forceinline__ long long atomic_exch(long long* p, long long v) {
  return static_cast<long long>(
      atomicExch(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
}
__device__ __forceinline__ double atomic_exch(double* p, double v) {
  return __longlong_as_double(static_cast<long long>(
      atomicExch(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(__double_as_longlong(v)))));
}
template <class T>
__device__ __forceinline__ T atomic_cas(T* p, T expected, T desired) {
  return atomicCAS(p, expected, desired);
}
__device__ __forceinline__ long long atomic_cas(long long* p, long long expected, long long desired) {
  return static_cast<long long>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                          static_cast<unsigned long long>(expected),
                                          static_cast<unsigned long long>(desired)));
}
template <class T>
__device__ __forceinline__ T atomic_or(T* p, T v) {
  return atomicOr(p, v);
}
template <class T>
__device__ __forceinline__ T atomic_and(T* p, T v) {
  return atomicAnd(p, v);
}
template <class T>
__device__ __forceinline__ T atomic_xor(T* p, T v) {
  return atomicXor(p, v);
}

// ---------------------------------------------------------------- built-ins

template <class T>
__host__ __device__ __forceinline__ T min_of(T a, T b) {
  return b < a ? b : a;
}
template <class T>
__host__ __device__ __forceinline__ T max_of(T a, T b) {
  return a < b ? b : a;
}
template <class T>
__host__ __device__ __forceinline__ T abs_of(T a) {
  return a < T(0) ? T(-a) : a;
}

// ---------------------------------------------------------------- bit built-ins

/// The number of set bits.
__host__ __device__ __forceinline__ uint32_t popc(uint32_t x) {
#ifdef __CUDA_ARCH__
  return static_cast<uint32_t>(__popc(x));
#else
  return static_cast<uint32_t>(__builtin_popcount(x));
#endif
}
__host__ __device__ __forceinline__ uint32_t popc(unsigned long long x) {
#ifdef __CUDA_ARCH__
  return static_cast<uint32_t>(__popcll(x));
#else
  return static_cast<uint32_t>(__builtin_popcountll(x));
#endif
}
/// One plus the index of the lowest set bit; 0 for 0.
__host__ __device__ __forceinline__ uint32_t ffs(uint32_t x) {
#ifdef __CUDA_ARCH__
  return static_cast<uint32_t>(__ffs(static_cast<int>(x)));
#else
  return static_cast<uint32_t>(__builtin_ffs(static_cast<int>(x)));
#endif
}
__host__ __device__ __forceinline__ uint32_t ffs(unsigned long long x) {
#ifdef __CUDA_ARCH__
  return static_cast<uint32_t>(__ffsll(static_cast<long long>(x)));
#else
  return static_cast<uint32_t>(__builtin_ffsll(static_cast<long long>(x)));
#endif
}
/// The number of zero bits above the highest set bit (32 or 64 for 0).
__host__ __device__ __forceinline__ uint32_t clz(uint32_t x) {
#ifdef __CUDA_ARCH__
  return static_cast<uint32_t>(__clz(static_cast<int>(x)));
#else
  return x == 0 ? 32u : static_cast<uint32_t>(__builtin_clz(x));
#endif
}
__host__ __device__ __forceinline__ uint32_t clz(unsigned long long x) {
#ifdef __CUDA_ARCH__
  return static_cast<uint32_t>(__clzll(static_cast<long long>(x)));
#else
  return x == 0 ? 64u : static_cast<uint32_t>(__builtin_clzll(x));
#endif
}

// ---------------------------------------------------------------- host graph queries

inline void check_node(uint64_t n, uint32_t nnodes, const char* what) {
  if (n >= nnodes) {
    std::fprintf(stderr, "error: %s: %llu is not a node of the graph (it has %u nodes)\n", what,
                 static_cast<unsigned long long>(n), nnodes);
    std::exit(1);
  }
}

inline void check_edge(uint64_t e, uint64_t nedges, const char* what) {
  if (e >= nedges) {
    std::fprintf(stderr, "error: %s: %llu is not an edge of the graph (it has %llu edges)\n", what,
                 static_cast<unsigned long long>(e), static_cast<unsigned long long>(nedges));
    std::exit(1);
  }
}

inline uint32_t host_degree(const HostGraph& g, uint64_t n) {
  check_node(n, g.nnodes, "g.degree");
  return static_cast<uint32_t>(g.row_start[n + 1] - g.row_start[n]);
}
inline edge_t host_begin(const HostGraph& g, uint64_t n) {
  check_node(n, g.nnodes, "g.edge_begin");
  return g.row_start[n];
}
inline edge_t host_end(const HostGraph& g, uint64_t n) {
  check_node(n, g.nnodes, "g.edge_end");
  return g.row_start[n + 1];
}
inline uint32_t host_dst(const HostGraph& g, uint64_t e) {
  check_edge(e, g.nedges, "g.dst");
  return g.edge_dst[e];
}
/// The graph file's value of edge e (the program's `input` edge property), from `main`.
inline uint32_t host_edge_data(const HostGraph& g, uint64_t e) {
  check_edge(e, g.nedges, "input edge property");
  return g.edge_data[e];
}

}  // namespace irgl
