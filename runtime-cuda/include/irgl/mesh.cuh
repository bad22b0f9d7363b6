// irgl/mesh.cuh -- triangle meshes for Delaunay mesh refinement (DMR): exact
// geometric predicates, the .mesh file format, and a device view whose
// triangles threads create, delete and relink concurrently.
//
// GEOMETRY. Points have integer grid coordinates (irgl::Point). The input's
// domain is [0, kMeshGrid]^2, kMeshGrid = 2^28; points made by the program
// (make_point, midpoint, circumcenter) are clamped to [-2^28, 2^29], so every
// coordinate difference is below 3 * 2^28 < 2^30 in magnitude. Hence:
//   orient    (b-a) x (c-a): products < 2^60, exact in int64;
//   incircle  translated by d: lifts and 2x2 minors < 2^61 (int64), their
//             products < 2^122, the sum of three < 2^124: exact in __int128.
// Both predicates are exact: no rounding, no epsilon, the same result on the
// host and on the device. midpoint is exact too (floor, in int64).
// circumcenter and min_angle use double, with the formulas of the Rust
// reference (crates/irgl-graph/src/mesh/predicates.rs) operation for
// operation. On the device every operation is __dmul_rn/__dadd_rn/... (no FMA
// contraction), so circumcenter is bit-identical on the host (x86-64 does not
// contract), the device and in Rust; min_angle goes through acos, whose last
// bits may differ between libm and CUDA (a few ulp).
//
// FILE (.mesh, little-endian), size exactly 56 + 8V + 24T:
//   offset 0   8 bytes magic "IRGLMESH"
//   offset 8   u32 version = 1
//   offset 12  u32 reserved = 0
//   offset 16  u64 V (vertices), V < 2^32 - 1
//   offset 24  u64 T (triangles), T < 2^32 - 1
//   offset 32  f64 origin_x, f64 origin_y (finite)
//   offset 48  f64 scale (finite, > 0): the domain point of grid point (x, y) is
//              (origin_x + x * scale, origin_y + y * scale)
//   offset 56  i32 coords[2V]  x, y of each vertex, each in [0, 2^28]
//              u32 tri_v[3T]   each triangle's vertices, counterclockwise
//                              (orient > 0, exactly)
//              u32 tri_n[3T]   tri_n[3t+i] is the triangle across the edge
//                              (tri_v[3t+i], tri_v[3t+(i+1)%3]), or kNone on
//                              the boundary; it must be reciprocal: that
//                              triangle has the edge reversed, with t across it
// read_mesh/load_mesh check all of it (validate_mesh: the contents), in O(V + T).
//
// DEVICE VIEW (irgl::Mesh) AND THE MEMORY MODEL. During refinement, threads on
// other SMs create triangles, delete triangles and rewrite neighbour pointers
// while a thread walks the mesh. Its reads are OPTIMISTIC: a thread reads a
// cavity without holding anything, then takes the cavity's triangles with
// Exclusive (exclusive.cuh), whose acquire fences, and re-validates what it read
// (deleted(), neighbour pointers) before changing anything. For this to work:
//   * The SM's L1 cache is not coherent with other SMs' writes: a plain load
//     could return a stale line forever (and the compiler may keep a plain
//     load in a register across a fence or a retry loop). So EVERY device read
//     of coords, tri_v, tri_n, dead and counts in this view is an
//     ld.relaxed.gpu (what cuda::atomic_ref<T, thread_scope_device>::load
//     (relaxed) emits): served by L2, the point of coherence, and never merged
//     or moved across a fence by the compiler (asm volatile with a memory
//     clobber). A relaxed access also makes the optimistic reads data-race-free
//     in the PTX memory model.
//   * EVERY write is an st.relaxed.gpu (L1 is write-through; the store reaches
//     L2 and is visible device-wide), and counts are updated with atomics.
//     Ordering between writes is given by fences: the compiler's Exclusive
//     release issues __threadfence() before it clears the marks.
//   * PRECONDITION (publication): add_triangle and add_vertex write the new
//     triangle's vertices, neighbours (kNone) and live flag, or the vertex's
//     coordinates, before they return, but these are relaxed stores. Whoever
//     makes the new id reachable by another thread (set_neighbor of a
//     neighbour's pointer, a worklist push, ...) must issue __threadfence()
//     between add_* and that store -- then a thread that sees the id sees the
//     contents too. (The reader relies on the address dependency from the
//     pointer it read to the contents it reads, and validates under Exclusive,
//     which fences, before acting.)
//   * Slots not yet in use read as deleted (DeviceMesh initializes them so),
//     with vertices 0 and neighbours kNone.
//
// OVERFLOW POLICY. add_vertex/add_triangle take a slot with one atomicAdd on
// counts[0]/counts[1]. A slot >= capacity is never written: the call sets bit 0
// (vertices) or bit 1 (triangles) of counts[2], gives the slot back (atomicSub,
// so the u32 counter never runs away: it stays below capacity + the number of
// threads in flight, and ends at exactly capacity) and returns kNone. After the
// kernel the host calls DeviceMesh::check_overflow("K"), which prints
//   error: mesh overflow in kernel K: capacity C triangles (V vertices), at
//          least M triangles (W vertices) needed; rerun with --mesh-capacity <bigger>
// (one line) and exits 1. A mesh that overflowed is left inconsistent (a
// cavity may have been deleted and only partly re-triangulated).
//
// Host:   irgl::HostMesh m = irgl::load_mesh(path);     // exits 1 with "error: ..." on a bad file
//         irgl::DeviceMesh dm(m, 4 * m.ntriangles, 2 * m.nvertices);
//         kernel<<<...>>>(dm.view()); IRGL_CHECK_LAUNCH("K"); dm.check_overflow("K");
//         irgl::HostMesh out = dm.download();           // live triangles, compacted
// Loading, uploading and downloading are not part of an algorithm's timing.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "array.cuh"
#include "check.cuh"
#include "graph.cuh"  // detail::grfmt, detail::FileCloser

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "irgl/mesh.cuh reads and writes .mesh files in host byte order");
#endif

namespace irgl {

/// No triangle (a boundary edge's neighbour, a failed add_*) / no vertex.
constexpr uint32_t kNone = 0xffffffffu;
/// Input coordinates are in [0, kMeshGrid].
constexpr int32_t kMeshGrid = 1 << 28;
/// Every point the predicates see has coordinates in [kMeshMin, kMeshMax].
constexpr int32_t kMeshMin = -(1 << 28);
constexpr int32_t kMeshMax = 1 << 29;
/// The largest triangle or vertex capacity of a DeviceMesh: the u32 counters
/// may run past capacity by the number of threads in flight (at most 2^24).
constexpr uint64_t kMeshMaxCapacity = 0xffffffffull - (1ull << 24);

/// A point of the grid. Coordinates are always within [-2^28, 2^29].
struct Point {
  int32_t x, y;
};

namespace detail {
// Double arithmetic without FMA contraction on the device (the host, x86-64,
// does not contract), so that host and device round alike.
__host__ __device__ __forceinline__ double mesh_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
__host__ __device__ __forceinline__ double mesh_add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
__host__ __device__ __forceinline__ double mesh_sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
__host__ __device__ __forceinline__ double mesh_div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
__host__ __device__ __forceinline__ int32_t mesh_round(double v, int32_t lo, int32_t hi) {
  if (v != v) return 0;  // NaN
  if (v <= static_cast<double>(lo)) return lo;
  if (v >= static_cast<double>(hi)) return hi;
  return static_cast<int32_t>(::round(v));  // to nearest, halves away from zero (as Rust's f64::round)
}
}  // namespace detail

/// The grid point nearest to (x, y) (halves away from zero, as Rust's
/// f64::round), each coordinate clamped to [-2^28, 2^29]; a NaN coordinate
/// becomes 0, +-infinity the bound.
__host__ __device__ __forceinline__ Point make_point(double x, double y) {
  return Point{detail::mesh_round(x, kMeshMin, kMeshMax), detail::mesh_round(y, kMeshMin, kMeshMax)};
}

/// (double)p.x, (double)p.y (exact).
__host__ __device__ __forceinline__ double point_x(Point p) { return static_cast<double>(p.x); }
__host__ __device__ __forceinline__ double point_y(Point p) { return static_cast<double>(p.y); }

/// Exact orientation: +1 if a, b, c are counterclockwise, 0 if collinear
/// (two equal points included), -1 if clockwise.
__host__ __device__ __forceinline__ int orient(Point a, Point b, Point c) {
  const int64_t bx = int64_t(b.x) - a.x, by = int64_t(b.y) - a.y;
  const int64_t cx = int64_t(c.x) - a.x, cy = int64_t(c.y) - a.y;
  const int64_t l = bx * cy, r = by * cx;  // each |.| < 2^60
  return (l > r) - (l < r);
}

/// Exact in-circle test: the sign of the lifted 3x3 determinant (translated by
/// d). For counterclockwise a, b, c: +1 iff d is strictly inside their
/// circumcircle, 0 if on it, -1 if outside. The sign flips when a, b, c are
/// clockwise (swapping two of them negates it).
__host__ __device__ __forceinline__ int incircle(Point a, Point b, Point c, Point d) {
  const int64_t adx = int64_t(a.x) - d.x, ady = int64_t(a.y) - d.y;
  const int64_t bdx = int64_t(b.x) - d.x, bdy = int64_t(b.y) - d.y;
  const int64_t cdx = int64_t(c.x) - d.x, cdy = int64_t(c.y) - d.y;
  const int64_t alift = adx * adx + ady * ady;  // < 2^61
  const int64_t blift = bdx * bdx + bdy * bdy;
  const int64_t clift = cdx * cdx + cdy * cdy;
  const int64_t bc = bdx * cdy - cdx * bdy;  // |.| < 2^61
  const int64_t ca = cdx * ady - adx * cdy;
  const int64_t ab = adx * bdy - bdx * ady;
  const __int128 det = static_cast<__int128>(alift) * bc + static_cast<__int128>(blift) * ca +
                       static_cast<__int128>(clift) * ab;  // |.| < 2^124
  return (det > 0) - (det < 0);
}

/// floor((a + b) / 2) per coordinate (exact).
__host__ __device__ __forceinline__ Point midpoint(Point a, Point b) {
  const int64_t sx = int64_t(a.x) + b.x, sy = int64_t(a.y) + b.y;
  const int64_t qx = sx / 2 - ((sx % 2) < 0 ? 1 : 0);
  const int64_t qy = sy / 2 - ((sy % 2) < 0 ? 1 : 0);
  return Point{static_cast<int32_t>(qx), static_cast<int32_t>(qy)};
}

/// The grid point on segment ab nearest its middle, exactly on the segment: with lo the
/// lexicographically smaller end, g = gcd(|dx|, |dy|) and the step s = (b - a) / g, it is
/// lo + floor(g / 2) s. For an axis-parallel or diagonal segment that is midpoint(a, b).
/// When no grid point lies strictly inside the segment (g < 2) it is lo, an end: the caller
/// compares the result with a and b. (crates/irgl-graph's mesh::refine::split_point is the
/// same rule.)
__host__ __device__ __forceinline__ Point split_point(Point a, Point b) {
  const bool a_lo = a.x < b.x || (a.x == b.x && a.y <= b.y);
  const Point lo = a_lo ? a : b, hi = a_lo ? b : a;
  const int64_t dx = int64_t(hi.x) - lo.x, dy = int64_t(hi.y) - lo.y;
  uint64_t u = static_cast<uint64_t>(dx < 0 ? -dx : dx), v = static_cast<uint64_t>(dy < 0 ? -dy : dy);
  while (v != 0) {
    const uint64_t r = u % v;
    u = v;
    v = r;
  }
  const int64_t g = static_cast<int64_t>(u);
  if (g < 2) return lo;
  const int64_t k = g / 2;
  return Point{static_cast<int32_t>(lo.x + k * (dx / g)), static_cast<int32_t>(lo.y + k * (dy / g))};
}

/// The circumcenter of a, b, c, computed in double from the integer
/// coordinates translated by a, then rounded with make_point: with
/// b - a = (bx, by), c - a = (cx, cy) (exact in double), b2 = bx^2 + by^2,
/// c2 = cx^2 + cy^2, d = 2 * double(exact (b-a) x (c-a)), the center is
/// a + ((cy b2 - by c2) / d, (bx c2 - cx b2) / d), each operation rounded to
/// nearest without FMA -- the same formula, operation for operation, as
/// irgl-graph's mesh::circumcenter, so the host, the device and the Rust
/// verifier agree bit for bit. For collinear points d = 0 and the division
/// gives +-infinity or NaN, so the result is a clamped corner of the range or
/// 0 (callers should not ask).
__host__ __device__ __forceinline__ Point circumcenter(Point a, Point b, Point c) {
  using namespace detail;
  const double bx = mesh_sub(static_cast<double>(b.x), static_cast<double>(a.x));
  const double by = mesh_sub(static_cast<double>(b.y), static_cast<double>(a.y));
  const double cx = mesh_sub(static_cast<double>(c.x), static_cast<double>(a.x));
  const double cy = mesh_sub(static_cast<double>(c.y), static_cast<double>(a.y));
  const double b2 = mesh_add(mesh_mul(bx, bx), mesh_mul(by, by));
  const double c2 = mesh_add(mesh_mul(cx, cx), mesh_mul(cy, cy));
  const int64_t area2 = (int64_t(b.x) - a.x) * (int64_t(c.y) - a.y) - (int64_t(b.y) - a.y) * (int64_t(c.x) - a.x);
  const double d = mesh_mul(2.0, static_cast<double>(area2));
  const double ux = mesh_div(mesh_sub(mesh_mul(cy, b2), mesh_mul(by, c2)), d);
  const double uy = mesh_div(mesh_sub(mesh_mul(bx, c2), mesh_mul(cx, b2)), d);
  return make_point(mesh_add(static_cast<double>(a.x), ux), mesh_add(static_cast<double>(a.y), uy));
}

/// The smallest angle of triangle a, b, c in degrees, by the law of cosines,
/// operation for operation as irgl-graph's mesh::min_angle_deg (so that the
/// GPU and the verifier pick the same bad triangles, up to the last bits of
/// acos): squared side lengths la = |b-c|^2, lb = |c-a|^2, lc = |a-b|^2 in
/// double (dx * dx + dy * dy, no FMA); 0 if one is 0; the shortest side opp
/// (la if la <= lb and la <= lc, else lb if lb <= lc, else lc) and the other
/// two s1, s2 in cyclic order; cos = (s1 + s2 - opp) / (2 * sqrt(s1 * s2)),
/// clamped to [-1, 1]; acos(cos) * (180 / pi). Collinear points give 0 or a
/// tiny angle (the cosine rounds to about 1).
__host__ __device__ __forceinline__ double min_angle(Point a, Point b, Point c) {
  using namespace detail;
  const Point pts[3] = {a, b, c};
  double l[3];  // l[i]: the squared length of the side opposite corner i
  for (int i = 0; i < 3; ++i) {
    const Point p = pts[(i + 1) % 3], q = pts[(i + 2) % 3];
    const double dx = mesh_sub(static_cast<double>(p.x), static_cast<double>(q.x));
    const double dy = mesh_sub(static_cast<double>(p.y), static_cast<double>(q.y));
    l[i] = mesh_add(mesh_mul(dx, dx), mesh_mul(dy, dy));
  }
  const double la = l[0], lb = l[1], lc = l[2];
  if (la == 0.0 || lb == 0.0 || lc == 0.0) return 0.0;
  double opp, s1, s2;
  if (la <= lb && la <= lc) {
    opp = la, s1 = lb, s2 = lc;
  } else if (lb <= lc) {
    opp = lb, s1 = lc, s2 = la;
  } else {
    opp = lc, s1 = la, s2 = lb;
  }
  double cosv = mesh_div(mesh_sub(mesh_add(s1, s2), opp), mesh_mul(2.0, ::sqrt(mesh_mul(s1, s2))));
  if (cosv > 1.0) cosv = 1.0;
  if (cosv < -1.0) cosv = -1.0;
  return mesh_mul(::acos(cosv), 180.0 / 3.14159265358979323846);
}

namespace detail {
// Device-coherent accesses: ld/st.relaxed.gpu (L2, never merged or reordered
// across fences by the compiler). `p` must point to global memory; the 64-bit
// forms need 8-byte alignment.
__device__ __forceinline__ uint32_t mesh_ld(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long mesh_ld64(const void* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void mesh_st(uint32_t* p, uint32_t v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void mesh_st64(void* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
}  // namespace detail

/// Device view of a mesh. Cheap to copy; does not own memory. Every access
/// is bounds-checked against the capacities (see each member).
struct Mesh {
  uint32_t vertex_capacity = 0, triangle_capacity = 0;
  /// [0] vertices in use, [1] triangle slots in use (deleted ones included),
  /// [2] overflow flags (bit 0 vertices, bit 1 triangles), [3] unused.
  uint32_t* counts = nullptr;
  int32_t* coords = nullptr;  ///< x, y per vertex slot (8-byte aligned)
  uint32_t* tri_v = nullptr;  ///< 3 per triangle slot
  uint32_t* tri_n = nullptr;  ///< 3 per triangle slot
  uint32_t* dead = nullptr;   ///< 1 per triangle slot: 0 live, 1 deleted (or not yet created)

  /// Vertices in use: min(counts[0], vertex_capacity).
  __device__ __forceinline__ uint32_t nvertices() const {
    const uint32_t c = detail::mesh_ld(counts);
    return c < vertex_capacity ? c : vertex_capacity;
  }
  /// Triangle slots in use, deleted ones included: min(counts[1], triangle_capacity).
  __device__ __forceinline__ uint32_t ntriangles() const {
    const uint32_t c = detail::mesh_ld(counts + 1);
    return c < triangle_capacity ? c : triangle_capacity;
  }
  /// Vertex v's coordinates; {0, 0} when v >= vertex_capacity.
  __device__ __forceinline__ Point point(uint32_t v) const {
    if (v >= vertex_capacity) return Point{0, 0};
    const unsigned long long xy = detail::mesh_ld64(coords + 2 * size_t(v));
    return Point{static_cast<int32_t>(static_cast<uint32_t>(xy)), static_cast<int32_t>(static_cast<uint32_t>(xy >> 32))};
  }
  /// Vertex i (taken mod 3) of triangle t; 0 when t >= triangle_capacity.
  __device__ __forceinline__ uint32_t vertex(uint32_t t, uint32_t i) const {
    if (t >= triangle_capacity) return 0u;
    return detail::mesh_ld(tri_v + 3 * size_t(t) + i % 3u);
  }
  /// The triangle across edge (vertex(t, i), vertex(t, i + 1)), i taken mod 3;
  /// kNone on the boundary and when t >= triangle_capacity.
  __device__ __forceinline__ uint32_t neighbor(uint32_t t, uint32_t i) const {
    if (t >= triangle_capacity) return kNone;
    return detail::mesh_ld(tri_n + 3 * size_t(t) + i % 3u);
  }
  /// Whether t is deleted, not yet created, or out of range (kNone included).
  __device__ __forceinline__ bool deleted(uint32_t t) const {
    if (t >= triangle_capacity) return true;
    return detail::mesh_ld(dead + t) != 0u;
  }
  /// Sets t's neighbour across edge i (mod 3) to n; ignored when t is out of range.
  /// It publishes: a fence first, so a thread that reads n here also sees everything this
  /// thread wrote before (n's vertices and neighbours when n is new). That is the
  /// publication precondition above, kept by the runtime rather than by each program.
  __device__ __forceinline__ void set_neighbor(uint32_t t, uint32_t i, uint32_t n) const {
    if (t >= triangle_capacity) return;
    __threadfence();
    detail::mesh_st(tri_n + 3 * size_t(t) + i % 3u, n);
  }
  /// Marks t deleted; ignored when t is out of range.
  __device__ __forceinline__ void remove(uint32_t t) const {
    if (t < triangle_capacity) detail::mesh_st(dead + t, 1u);
  }
  /// Appends a vertex (one atomicAdd on counts[0]) and writes its coordinates.
  /// Returns its id, or kNone on overflow (bit 0 of counts[2] set, nothing
  /// written). See the publication precondition in the header comment.
  __device__ __forceinline__ uint32_t add_vertex(Point p) const {
    const uint32_t v = reserve(0, vertex_capacity);
    if (v == kNone) return kNone;
    const unsigned long long xy =
        static_cast<unsigned long long>(static_cast<uint32_t>(p.x)) |
        (static_cast<unsigned long long>(static_cast<uint32_t>(p.y)) << 32);
    detail::mesh_st64(coords + 2 * size_t(v), xy);
    return v;
  }
  /// Appends a live triangle a, b, c (one atomicAdd on counts[1]) with
  /// neighbours kNone. Returns its id, or kNone on overflow (bit 1 of counts[2]
  /// set, nothing written). The caller keeps it counterclockwise. See the
  /// publication precondition in the header comment.
  __device__ __forceinline__ uint32_t add_triangle(uint32_t a, uint32_t b, uint32_t c) const {
    const uint32_t t = reserve(1, triangle_capacity);
    if (t == kNone) return kNone;
    uint32_t* v = tri_v + 3 * size_t(t);
    uint32_t* n = tri_n + 3 * size_t(t);
    detail::mesh_st(v, a);
    detail::mesh_st(v + 1, b);
    detail::mesh_st(v + 2, c);
    detail::mesh_st(n, kNone);
    detail::mesh_st(n + 1, kNone);
    detail::mesh_st(n + 2, kNone);
    detail::mesh_st(dead + t, 0u);
    return t;
  }

 private:
  /// One slot of counter `which` (0 vertices, 1 triangles), or kNone on
  /// overflow: then the flag is set and the slot given back, so the counter
  /// stays below capacity + threads in flight and ends at capacity.
  __device__ __forceinline__ uint32_t reserve(uint32_t which, uint32_t capacity) const {
    const uint32_t slot = atomicAdd(counts + which, 1u);
    if (slot < capacity) return slot;
    atomicOr(counts + 2, 1u << which);
    atomicSub(counts + which, 1u);
    return kNone;
  }
};

/// A mesh in host memory (the file's contents).
struct HostMesh {
  uint32_t nvertices = 0, ntriangles = 0;
  double origin_x = 0, origin_y = 0, scale = 1;
  std::vector<int32_t> coords;  ///< 2 * nvertices
  std::vector<uint32_t> tri_v;  ///< 3 * ntriangles
  std::vector<uint32_t> tri_n;  ///< 3 * ntriangles
};

/// Byte offsets of the parts of a .mesh file.
constexpr uint64_t kMeshHeaderBytes = 56;
inline uint64_t mesh_coords_offset(uint64_t v) { return kMeshHeaderBytes + 8 * v; }
inline uint64_t mesh_tri_v_offset(uint64_t nv, uint64_t k) { return kMeshHeaderBytes + 8 * nv + 4 * k; }
inline uint64_t mesh_tri_n_offset(uint64_t nv, uint64_t nt, uint64_t k) {
  return kMeshHeaderBytes + 8 * nv + 12 * nt + 4 * k;
}
inline uint64_t mesh_file_bytes(uint64_t nv, uint64_t nt) { return kMeshHeaderBytes + 8 * nv + 24 * nt; }

namespace detail {

inline std::string mesh_neighbor_text(uint32_t n) {
  return n == kNone ? std::string("0xffffffff (boundary)") : std::to_string(n);
}

inline int mesh_orient_at(const HostMesh& m, uint32_t t) {
  const uint32_t* v = m.tri_v.data() + 3 * size_t(t);
  const int32_t* c = m.coords.data();
  return orient(Point{c[2 * size_t(v[0])], c[2 * size_t(v[0]) + 1]}, Point{c[2 * size_t(v[1])], c[2 * size_t(v[1]) + 1]},
                Point{c[2 * size_t(v[2])], c[2 * size_t(v[2]) + 1]});
}

}  // namespace detail

/// Checks the contents of a mesh: array sizes, counts below 2^32 - 1, a finite
/// origin and a finite scale > 0, every coordinate in [0, 2^28], every vertex
/// id < V, every triangle counterclockwise (exact orient > 0), every neighbour
/// id < T or kNone, and reciprocity: if t's neighbour across (a, b) is n, then
/// n has the edge (b, a) and t across it. Returns "" when all hold, else ONE
/// line "byte offset O: expected ..., found ..." for the first problem, O being
/// the offset of the offending field in the mesh's .mesh file (or "inconsistent
/// mesh: ..." when the array sizes do not match the counts). O(V + T).
inline std::string validate_mesh(const HostMesh& m) {
  using detail::grfmt;
  const uint64_t nv = m.nvertices, nt = m.ntriangles;
  if (m.coords.size() != 2 * nv || m.tri_v.size() != 3 * nt || m.tri_n.size() != 3 * nt) {
    return grfmt("inconsistent mesh: expected arrays of 2V = %" PRIu64 " coordinates and 3T = %" PRIu64
                   " vertex and neighbour ids, found %zu, %zu and %zu",
                   2 * nv, 3 * nt, m.coords.size(), m.tri_v.size(), m.tri_n.size());
  }
  if (nv >= 0xffffffffull) return grfmt("byte offset 16: expected a vertex count below 2^32 - 1, found %" PRIu64, nv);
  if (nt >= 0xffffffffull) {
    return grfmt("byte offset 24: expected a triangle count below 2^32 - 1, found %" PRIu64, nt);
  }
  if (!std::isfinite(m.origin_x)) return grfmt("byte offset 32: expected a finite origin_x, found %g", m.origin_x);
  if (!std::isfinite(m.origin_y)) return grfmt("byte offset 40: expected a finite origin_y, found %g", m.origin_y);
  if (!(std::isfinite(m.scale) && m.scale > 0)) {
    return grfmt("byte offset 48: expected a finite scale > 0, found %g", m.scale);
  }
  for (uint64_t k = 0; k < 2 * nv; ++k) {
    const int32_t x = m.coords[k];
    if (x < 0 || x > kMeshGrid) {
      return grfmt("byte offset %" PRIu64 ": expected vertex %" PRIu64 "'s %c in [0, 2^28], found %" PRId32,
                     kMeshHeaderBytes + 4 * k, k / 2, k % 2 == 0 ? 'x' : 'y', x);
    }
  }
  for (uint64_t t = 0; t < nt; ++t) {
    for (uint64_t i = 0; i < 3; ++i) {
      const uint32_t v = m.tri_v[3 * t + i];
      if (v >= nv) {
        return grfmt("byte offset %" PRIu64 ": expected tri_v[%" PRIu64 "] < V = %" PRIu64 " (triangle %" PRIu64
                       " vertex %" PRIu64 "), found %" PRIu32,
                       mesh_tri_v_offset(nv, 3 * t + i), 3 * t + i, nv, t, i, v);
      }
    }
    const int o = detail::mesh_orient_at(m, static_cast<uint32_t>(t));
    if (o <= 0) {
      return grfmt("byte offset %" PRIu64 ": expected triangle %" PRIu64
                     " to be counterclockwise (orientation > 0), found %s vertices %" PRIu32 ", %" PRIu32
                     ", %" PRIu32,
                     mesh_tri_v_offset(nv, 3 * t), t, o == 0 ? "collinear" : "clockwise", m.tri_v[3 * t],
                     m.tri_v[3 * t + 1], m.tri_v[3 * t + 2]);
    }
  }
  for (uint64_t k = 0; k < 3 * nt; ++k) {
    const uint32_t n = m.tri_n[k];
    if (n != kNone && n >= nt) {
      return grfmt("byte offset %" PRIu64 ": expected tri_n[%" PRIu64 "] < T = %" PRIu64
                     " or 0xffffffff (triangle %" PRIu64 " edge %" PRIu64 "), found %" PRIu32,
                     mesh_tri_n_offset(nv, nt, k), k, nt, k / 3, k % 3, n);
    }
  }
  for (uint64_t t = 0; t < nt; ++t) {
    for (uint64_t i = 0; i < 3; ++i) {
      const uint32_t n = m.tri_n[3 * t + i];
      if (n == kNone) continue;
      const uint32_t a = m.tri_v[3 * t + i], b = m.tri_v[3 * t + (i + 1) % 3];
      const uint32_t* w = m.tri_v.data() + 3 * size_t(n);
      uint32_t j = 3;
      for (uint32_t k = 0; k < 3; ++k) {
        if (w[k] == b && w[(k + 1) % 3] == a) j = k;
      }
      if (j == 3) {
        return grfmt("byte offset %" PRIu64 ": expected triangle %" PRIu32 ", the neighbour of triangle %" PRIu64
                       " across edge (%" PRIu32 ", %" PRIu32 "), to have the edge (%" PRIu32 ", %" PRIu32
                       "), found vertices %" PRIu32 ", %" PRIu32 ", %" PRIu32,
                       mesh_tri_n_offset(nv, nt, 3 * t + i), n, t, a, b, b, a, w[0], w[1], w[2]);
      }
      const uint32_t back = m.tri_n[3 * size_t(n) + j];
      if (back != t) {
        return grfmt("byte offset %" PRIu64 ": expected triangle %" PRIu32 " to have triangle %" PRIu64
                       " across edge (%" PRIu32 ", %" PRIu32 ") (non-reciprocal neighbours), found %s",
                       mesh_tri_n_offset(nv, nt, 3 * t + i), n, t, b, a, detail::mesh_neighbor_text(back).c_str());
      }
    }
  }
  return std::string();
}

/// Reads and validates a .mesh file. Returns true and fills `m` on success;
/// otherwise returns false with `error` set to one line "<path>: byte offset
/// <O>: expected <what>, found <what>" (or "<path>: cannot open: <reason>").
/// Never exits. The arrays are read with one fread each.
inline bool read_mesh(const std::string& path, HostMesh& m, std::string& error) {
  using detail::grfmt;
  const char* p = path.c_str();
  m = HostMesh();
  detail::FileCloser file{nullptr};
  file.f = std::fopen(p, "rb");
  if (file.f == nullptr) {
    error = grfmt("%s: cannot open: %s", p, std::strerror(errno));
    return false;
  }
  struct stat st;
  if (fstat(fileno(file.f), &st) != 0) {
    error = grfmt("%s: cannot stat: %s", p, std::strerror(errno));
    return false;
  }
  const uint64_t fsize = static_cast<uint64_t>(st.st_size);
  unsigned char hdr[kMeshHeaderBytes];
  if (fsize < kMeshHeaderBytes) {
    error = grfmt("%s: byte offset %" PRIu64 ": expected a 56-byte header, found end of file (file is %" PRIu64
                    " bytes)",
                    p, fsize, fsize);
    return false;
  }
  if (std::fread(hdr, 1, sizeof hdr, file.f) != sizeof hdr) {
    error = grfmt("%s: byte offset 0: read error", p);
    return false;
  }
  if (std::memcmp(hdr, "IRGLMESH", 8) != 0) {
    std::string found;
    for (int i = 0; i < 8; ++i) {
      const unsigned char c = hdr[i];
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        found += static_cast<char>(c);
      } else {
        found += grfmt("\\x%02x", c);
      }
    }
    error = grfmt("%s: byte offset 0: expected magic \"IRGLMESH\", found \"%s\"", p, found.c_str());
    return false;
  }
  uint32_t version, reserved;
  uint64_t nv, nt;
  std::memcpy(&version, hdr + 8, 4);
  std::memcpy(&reserved, hdr + 12, 4);
  std::memcpy(&nv, hdr + 16, 8);
  std::memcpy(&nt, hdr + 24, 8);
  std::memcpy(&m.origin_x, hdr + 32, 8);
  std::memcpy(&m.origin_y, hdr + 40, 8);
  std::memcpy(&m.scale, hdr + 48, 8);
  if (version != 1) {
    error = grfmt("%s: byte offset 8: expected version 1, found %" PRIu32, p, version);
    return false;
  }
  if (reserved != 0) {
    error = grfmt("%s: byte offset 12: expected reserved field 0, found %" PRIu32, p, reserved);
    return false;
  }
  if (nv >= 0xffffffffull) {
    error = grfmt("%s: byte offset 16: expected a vertex count below 2^32 - 1, found %" PRIu64, p, nv);
    return false;
  }
  if (nt >= 0xffffffffull) {
    error = grfmt("%s: byte offset 24: expected a triangle count below 2^32 - 1, found %" PRIu64, p, nt);
    return false;
  }
  const uint64_t expected = mesh_file_bytes(nv, nt);
  if (fsize < expected) {
    error = grfmt("%s: byte offset %" PRIu64 ": expected %" PRIu64 " bytes for %" PRIu64 " vertices and %" PRIu64
                    " triangles, found end of file (file is truncated)",
                    p, fsize, expected, nv, nt);
    return false;
  }
  if (fsize > expected) {
    error = grfmt("%s: byte offset %" PRIu64 ": expected end of file after %" PRIu64 " vertices and %" PRIu64
                    " triangles, found %" PRIu64 " more bytes",
                    p, expected, nv, nt, fsize - expected);
    return false;
  }
  m.nvertices = static_cast<uint32_t>(nv);
  m.ntriangles = static_cast<uint32_t>(nt);
  m.coords.resize(2 * nv);
  m.tri_v.resize(3 * nt);
  m.tri_n.resize(3 * nt);
  if (nv != 0 && std::fread(m.coords.data(), 8, nv, file.f) != nv) {
    error = grfmt("%s: byte offset %" PRIu64 ": read error", p, mesh_coords_offset(0));
    return false;
  }
  if (nt != 0 && std::fread(m.tri_v.data(), 12, nt, file.f) != nt) {
    error = grfmt("%s: byte offset %" PRIu64 ": read error", p, mesh_tri_v_offset(nv, 0));
    return false;
  }
  if (nt != 0 && std::fread(m.tri_n.data(), 12, nt, file.f) != nt) {
    error = grfmt("%s: byte offset %" PRIu64 ": read error", p, mesh_tri_n_offset(nv, nt, 0));
    return false;
  }
  const std::string problem = validate_mesh(m);
  if (!problem.empty()) {
    error = path + ": " + problem;
    return false;
  }
  return true;
}

/// Reads a .mesh file; on any problem prints "error: <path>: ..." (one line)
/// and exits 1.
inline HostMesh load_mesh(const std::string& path) {
  HostMesh m;
  std::string error;
  if (!read_mesh(path, m, error)) fatal("%s", error.c_str());
  return m;
}

/// Writes `m` as a .mesh file, whole or not at all (contents not validated;
/// array sizes must match the counts). Returns false with `error` set on failure.
inline bool write_mesh(const std::string& path, const HostMesh& m, std::string& error) {
  const uint64_t nv = m.nvertices, nt = m.ntriangles;
  if (m.coords.size() != 2 * nv || m.tri_v.size() != 3 * nt || m.tri_n.size() != 3 * nt) {
    error = detail::grfmt("%s: cannot write a mesh of %" PRIu64 " vertices and %" PRIu64
                            " triangles from arrays of %zu coordinates, %zu vertex ids and %zu neighbour ids",
                            path.c_str(), nv, nt, m.coords.size(), m.tri_v.size(), m.tri_n.size());
    return false;
  }
  WholeFile file(path);
  std::FILE* f = file.get();
  if (f == nullptr) {
    error = path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  unsigned char hdr[kMeshHeaderBytes];
  const uint32_t version = 1, reserved = 0;
  std::memcpy(hdr, "IRGLMESH", 8);
  std::memcpy(hdr + 8, &version, 4);
  std::memcpy(hdr + 12, &reserved, 4);
  std::memcpy(hdr + 16, &nv, 8);
  std::memcpy(hdr + 24, &nt, 8);
  std::memcpy(hdr + 32, &m.origin_x, 8);
  std::memcpy(hdr + 40, &m.origin_y, 8);
  std::memcpy(hdr + 48, &m.scale, 8);
  bool ok = std::fwrite(hdr, 1, sizeof hdr, f) == sizeof hdr;
  if (ok && nv != 0) ok = std::fwrite(m.coords.data(), 8, nv, f) == nv;
  if (ok && nt != 0) ok = std::fwrite(m.tri_v.data(), 12, nt, f) == nt;
  if (ok && nt != 0) ok = std::fwrite(m.tri_n.data(), 12, nt, f) == nt;
  if (!ok || !file.commit()) {
    error = path + ": write error: " + std::strerror(errno);
    return false;
  }
  return true;
}

/// Writes `m` as a .mesh file; on failure prints "error: <path>: ..." and exits 1.
inline void write_mesh(const std::string& path, const HostMesh& m) {
  std::string error;
  if (!write_mesh(path, m, error)) fatal("%s", error.c_str());
}

/// "mesh overflow in kernel K: capacity C triangles (V vertices), at least M
/// triangles (W vertices) needed; rerun with --mesh-capacity <bigger>" without
/// the "error: " prefix.
inline std::string mesh_overflow_message(const char* kernel, uint64_t triangle_capacity, uint64_t vertex_capacity,
                                         uint64_t triangles_needed, uint64_t vertices_needed) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "mesh overflow in kernel %s: capacity %" PRIu64 " triangles (%" PRIu64 " vertices), at least %" PRIu64
                " triangles (%" PRIu64 " vertices) needed; rerun with --mesh-capacity <bigger>",
                kernel, triangle_capacity, vertex_capacity, triangles_needed, vertices_needed);
  return buf;
}

/// What an overflow report says is needed, from the device counts {vertices,
/// triangles, flags, -}: a count whose flag is set needs at least capacity + 1.
/// Returns whether anything overflowed.
inline bool mesh_overflow_needed(const uint32_t counts[4], uint64_t triangle_capacity, uint64_t vertex_capacity,
                                 uint64_t* triangles_needed, uint64_t* vertices_needed) {
  const bool tri = (counts[2] & 2u) != 0 || counts[1] > triangle_capacity;
  const bool ver = (counts[2] & 1u) != 0 || counts[0] > vertex_capacity;
  uint64_t t = counts[1], v = counts[0];
  if (tri && t < triangle_capacity + 1) t = triangle_capacity + 1;
  if (ver && v < vertex_capacity + 1) v = vertex_capacity + 1;
  *triangles_needed = t;
  *vertices_needed = v;
  return tri || ver;
}

namespace detail {
/// Adds the number of live slots among dead[0, n) to *live (one atomic per warp).
template <class T>
__global__ void mesh_count_live_kernel(const T* dead, uint32_t n, unsigned long long* live) {
  unsigned long long mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    mine += dead[i] == 0 ? 1u : 0u;
  }
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xffffffffu, mine, off);
  if ((threadIdx.x & 31u) == 0 && mine != 0) atomicAdd(live, mine);
}
}  // namespace detail

/// Device copy of a mesh with room to grow (RAII: freed on destruction).
/// Slots beyond the input read as deleted, with vertices 0 and neighbours kNone.
class DeviceMesh {
 public:
  DeviceMesh() = default;
  /// Allocates room for `triangle_capacity` triangles and `vertex_capacity`
  /// vertices and uploads `m`. Fatal if a capacity is below the mesh's count
  /// or above kMeshMaxCapacity (2^32 - 2^24 - 1; the counters need headroom).
  DeviceMesh(const HostMesh& m, uint64_t triangle_capacity, uint64_t vertex_capacity) {
    check_fits(m, triangle_capacity, vertex_capacity, "DeviceMesh");
    tcap_ = static_cast<uint32_t>(triangle_capacity);
    vcap_ = static_cast<uint32_t>(vertex_capacity);
    counts_ = DeviceArray<uint32_t>(4);
    coords_ = DeviceArray<int32_t>(2 * size_t(vcap_));
    tri_v_ = DeviceArray<uint32_t>(3 * size_t(tcap_));
    tri_n_ = DeviceArray<uint32_t>(3 * size_t(tcap_));
    dead_ = DeviceArray<uint32_t>(tcap_);
    reset(m);
  }

  /// The device view.
  Mesh view() const {
    Mesh v;
    v.vertex_capacity = vcap_;
    v.triangle_capacity = tcap_;
    v.counts = const_cast<uint32_t*>(counts_.data());
    v.coords = const_cast<int32_t*>(coords_.data());
    v.tri_v = const_cast<uint32_t*>(tri_v_.data());
    v.tri_n = const_cast<uint32_t*>(tri_n_.data());
    v.dead = const_cast<uint32_t*>(dead_.data());
    return v;
  }
  uint32_t triangle_capacity() const { return tcap_; }
  uint32_t vertex_capacity() const { return vcap_; }

  /// Re-uploads `m` (for --repeat) and resets the counts and flags; no
  /// reallocation (fatal if `m` does not fit the capacities). Synchronous.
  void reset(const HostMesh& m) {
    check_fits(m, tcap_, vcap_, "DeviceMesh::reset");
    const size_t nv = m.nvertices, nt = m.ntriangles;
    origin_x_ = m.origin_x;
    origin_y_ = m.origin_y;
    scale_ = m.scale;
    coords_.upload(m.coords.data(), 2 * nv);
    if (vcap_ > nv) IRGL_CHECK(cudaMemset(coords_.data() + 2 * nv, 0, (vcap_ - nv) * 8));
    tri_v_.upload(m.tri_v.data(), 3 * nt);
    tri_n_.upload(m.tri_n.data(), 3 * nt);
    if (tcap_ > nt) {
      IRGL_CHECK(cudaMemset(tri_v_.data() + 3 * nt, 0, (tcap_ - nt) * 12));
      IRGL_CHECK(cudaMemset(tri_n_.data() + 3 * nt, 0xff, (tcap_ - nt) * 12));  // kNone
    }
    dead_.fill(1u);  // slots not in use read as deleted
    if (nt != 0) IRGL_CHECK(cudaMemset(dead_.data(), 0, nt * 4));
    const uint32_t c[4] = {m.nvertices, m.ntriangles, 0u, 0u};
    counts_.upload(c, 4);
    IRGL_CHECK(cudaDeviceSynchronize());
  }

  /// The device counts {vertices, triangle slots, flags, unused} (synchronous).
  void counts(uint32_t out[4]) const { counts_.download(out, 4); }
  /// Triangle slots in use, deleted ones included (synchronous).
  uint32_t ntriangles() const {
    uint32_t c[4];
    counts(c);
    return c[1] < tcap_ ? c[1] : tcap_;
  }
  /// Vertices in use (synchronous).
  uint32_t nvertices() const {
    uint32_t c[4];
    counts(c);
    return c[0] < vcap_ ? c[0] : vcap_;
  }
  /// Live triangles among the slots in use (counted on the device; synchronous).
  uint64_t live_triangles() const {
    const uint32_t n = ntriangles();
    if (n == 0) return 0;
    DeviceScalar<unsigned long long> live(0ull);
    const int threads = 256;
    uint32_t blocks = (n + threads - 1) / threads;
    if (blocks > 4096) blocks = 4096;
    detail::mesh_count_live_kernel<uint32_t><<<blocks, threads>>>(dead_.data(), n, live.data());
    IRGL_CHECK_LAUNCH("irgl::detail::mesh_count_live_kernel");
    return live.get();
  }

  /// Whether an add_vertex/add_triangle overflowed since the last reset;
  /// *triangles_needed / *vertices_needed (if given) get the report's numbers.
  bool overflowed(uint64_t* triangles_needed = nullptr, uint64_t* vertices_needed = nullptr) const {
    uint32_t c[4];
    counts(c);
    uint64_t t = 0, v = 0;
    const bool over = mesh_overflow_needed(c, tcap_, vcap_, &t, &v);
    if (triangles_needed != nullptr) *triangles_needed = t;
    if (vertices_needed != nullptr) *vertices_needed = v;
    return over;
  }
  /// After kernel `kernel`: on overflow prints the one-line mesh overflow error
  /// and exits 1. Synchronizes with the device.
  void check_overflow(const char* kernel) const {
    uint64_t t = 0, v = 0;
    if (overflowed(&t, &v)) fatal("%s", mesh_overflow_message(kernel, tcap_, vcap_, t, v).c_str());
  }

  /// The mesh now on the device: the live triangles, compacted in slot order,
  /// with neighbour ids remapped; every vertex in use, ids kept. A live
  /// triangle's neighbour that is not live (deleted, or a slot not in use)
  /// becomes kNone and is counted in *dangling (if given): a consistent mesh
  /// has none. Synchronous.
  HostMesh download(uint64_t* dangling = nullptr) const {
    uint32_t c[4];
    counts(c);
    const uint32_t nt = c[1] < tcap_ ? c[1] : tcap_;
    const uint32_t nv = c[0] < vcap_ ? c[0] : vcap_;
    HostMesh m;
    m.origin_x = origin_x_;
    m.origin_y = origin_y_;
    m.scale = scale_;
    m.nvertices = nv;
    m.coords.resize(2 * size_t(nv));
    coords_.download(m.coords.data(), 2 * size_t(nv));
    std::vector<uint32_t> dead(nt), tv(3 * size_t(nt)), tn(3 * size_t(nt));
    dead_.download(dead.data(), nt);
    tri_v_.download(tv.data(), tv.size());
    tri_n_.download(tn.data(), tn.size());
    std::vector<uint32_t> remap(nt, kNone);
    uint32_t live = 0;
    for (uint32_t t = 0; t < nt; ++t) {
      if (dead[t] == 0) remap[t] = live++;
    }
    m.ntriangles = live;
    m.tri_v.resize(3 * size_t(live));
    m.tri_n.resize(3 * size_t(live));
    uint64_t bad = 0;
    for (uint32_t t = 0; t < nt; ++t) {
      const uint32_t k = remap[t];
      if (k == kNone) continue;
      for (int i = 0; i < 3; ++i) {
        m.tri_v[3 * size_t(k) + i] = tv[3 * size_t(t) + i];
        const uint32_t n = tn[3 * size_t(t) + i];
        uint32_t r = kNone;
        if (n != kNone) {
          if (n < nt) r = remap[n];
          if (r == kNone) ++bad;
        }
        m.tri_n[3 * size_t(k) + i] = r;
      }
    }
    if (dangling != nullptr) *dangling = bad;
    return m;
  }

 private:
  static void check_fits(const HostMesh& m, uint64_t tcap, uint64_t vcap, const char* what) {
    if (m.coords.size() != 2 * uint64_t(m.nvertices) || m.tri_v.size() != 3 * uint64_t(m.ntriangles) ||
        m.tri_n.size() != 3 * uint64_t(m.ntriangles)) {
      fatal("%s: mesh of %" PRIu32 " vertices and %" PRIu32
            " triangles has arrays of %zu coordinates, %zu vertex ids and %zu neighbour ids",
            what, m.nvertices, m.ntriangles, m.coords.size(), m.tri_v.size(), m.tri_n.size());
    }
    if (tcap < m.ntriangles || vcap < m.nvertices || tcap > kMeshMaxCapacity || vcap > kMeshMaxCapacity) {
      fatal("%s: capacity of %" PRIu64 " triangles and %" PRIu64 " vertices must hold the mesh's %" PRIu32
            " triangles and %" PRIu32 " vertices and be at most %" PRIu64 "; rerun with --mesh-capacity <bigger>",
            what, tcap, vcap, m.ntriangles, m.nvertices, kMeshMaxCapacity);
    }
  }

  uint32_t tcap_ = 0, vcap_ = 0;
  double origin_x_ = 0, origin_y_ = 0, scale_ = 1;
  DeviceArray<uint32_t> counts_;
  DeviceArray<int32_t> coords_;
  DeviceArray<uint32_t> tri_v_, tri_n_, dead_;
};

}  // namespace irgl
