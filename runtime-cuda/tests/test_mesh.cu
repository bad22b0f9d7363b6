// Mesh tests (irgl/mesh.cuh):
//  - predicates: hand cases whose double evaluation is wrong (near-collinear,
//    exactly and nearly cocircular points at coordinates ~2^28, the extremes
//    -2^28 and 2^29), checked against an independent exact evaluation (another
//    translation, all in __int128) and against symmetries; make_point,
//    midpoint, circumcenter and min_angle against hand values (and, on
//    generated cases, min_angle against atan2 and the circumcenter against
//    its distances); the device against the host on 200000 generated cases;
//  - .mesh files: byte-exact write, round trip, and one test per corruption
//    (exact message); load_mesh and write_mesh exit 1 with one line (child);
//  - the device view: accessors, out-of-range ids, slots not in use;
//  - concurrent add_triangle/add_vertex from many threads until overflow, with
//    a poisoned guard region past capacity: counts, flags, no write beyond
//    capacity, every slot given once; check_overflow's message and exit;
//  - download(): compaction and remapping after remove/add_triangle/
//    set_neighbor, dangling neighbours, reset();
//  - parallel 1-to-3 splits under Exclusive (optimistic reads, validation
//    under the marks): the result is a valid mesh with the right counts and
//    the same area and boundary, also after reset().
// The host parts run without a GPU with IRGL_TEST_HOST_ONLY=1.
#include <irgl/runtime.cuh>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "test_util.cuh"

using irgl::kNone;
using irgl::Point;
using irgl_test::contains;
using irgl_test::hash32;

// Whether host double arithmetic may be contracted into FMA (then circumcenter
// may differ from the device's in the last bit, so by 1 after rounding).
#if defined(__FMA__) || defined(__aarch64__)
#define HOST_MAY_CONTRACT 1
#else
#define HOST_MAY_CONTRACT 0
#endif

namespace {

constexpr int64_t kLo = -(int64_t(1) << 28);
constexpr int64_t kHi = int64_t(1) << 29;
constexpr double kPi = 3.14159265358979323846;

Point P(int64_t x, int64_t y) { return Point{static_cast<int32_t>(x), static_cast<int32_t>(y)}; }
bool same(Point a, Point b) { return a.x == b.x && a.y == b.y; }
std::string str(Point p) { return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ")"; }

int sign128(__int128 v) { return (v > 0) - (v < 0); }

/// Independent exact orientation: translated by c (orient is invariant under rotation of a, b, c).
int orient_ref(Point a, Point b, Point c) {
  const __int128 ax = __int128(a.x) - c.x, ay = __int128(a.y) - c.y;
  const __int128 bx = __int128(b.x) - c.x, by = __int128(b.y) - c.y;
  return sign128(ax * by - ay * bx);
}

/// Independent exact in-circle: the lifted 4x4 determinant expanded at a
/// (translated by a), which is minus the 3x3 determinant of b, c, d.
int incircle_ref(Point a, Point b, Point c, Point d) {
  const __int128 bx = __int128(b.x) - a.x, by = __int128(b.y) - a.y, bl = bx * bx + by * by;
  const __int128 cx = __int128(c.x) - a.x, cy = __int128(c.y) - a.y, cl = cx * cx + cy * cy;
  const __int128 dx = __int128(d.x) - a.x, dy = __int128(d.y) - a.y, dl = dx * dx + dy * dy;
  const __int128 det = bx * (cy * dl - cl * dy) - by * (cx * dl - cl * dx) + bl * (cx * dy - cy * dx);
  return -sign128(det);
}

/// The naive double evaluations, to show that the hand cases are hard ones.
int orient_double(Point a, Point b, Point c) {
  const double v = double(int64_t(b.x) - a.x) * double(int64_t(c.y) - a.y) -
                   double(int64_t(b.y) - a.y) * double(int64_t(c.x) - a.x);
  return (v > 0) - (v < 0);
}
int incircle_double(Point a, Point b, Point c, Point d) {
  const double adx = double(int64_t(a.x) - d.x), ady = double(int64_t(a.y) - d.y);
  const double bdx = double(int64_t(b.x) - d.x), bdy = double(int64_t(b.y) - d.y);
  const double cdx = double(int64_t(c.x) - d.x), cdy = double(int64_t(c.y) - d.y);
  const double v = (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) + (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy) +
                   (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady);
  return (v > 0) - (v < 0);
}

struct OrientCase {
  Point a, b, c;
  int want;
  bool double_wrong;  // the naive double evaluation gets the sign wrong
};
struct IncircleCase {
  Point a, b, c, d;
  int want;
  bool double_wrong;
};

const int64_t H = kHi, L = kLo;
const OrientCase kOrientCases[] = {
    {P(0, 0), P(1, 0), P(0, 1), 1, false},
    {P(0, 0), P(0, 1), P(1, 0), -1, false},
    {P(0, 0), P(1, 1), P(2, 2), 0, false},
    {P(5, 5), P(5, 5), P(7, 1), 0, false},
    // X*X - (X+1)(X-1) = 1 with X = 2^29 - 1: the products round to the same double.
    {P(0, 0), P(H - 1, H), P(H - 2, H - 1), 1, true},
    // Y = 3 * 2^28 - 1: the largest differences there are.
    {P(L, L), P(H - 1, H), P(H - 2, H - 1), 1, true},
    {P(L, L), P(H - 2, H - 1), P(H - 1, H), -1, true},
    {P(H - 1, H), P(L, L), P(H - 2, H - 1), -1, false},  // translated by (H - 1, H), double gets it right
    {P(L, L), P(H, H), P(0, 0), 0, false},
    {P(L, L), P(H, H), P(1, 0), -1, false},
    {P(L, L), P(H, H), P(0, 1), 1, false},
    {P(L, L), P(H, L), P(H, H), 1, false},
    {P(L, L), P(H, L), P(L, H), 1, false},
    {P(H, H), P(L, H), P(L, L), 1, false},
};
const IncircleCase kIncircleCases[] = {
    {P(0, 0), P(2, 0), P(0, 2), P(1, 1), 1, false},
    {P(0, 0), P(2, 0), P(0, 2), P(2, 2), 0, false},
    {P(0, 0), P(2, 0), P(0, 2), P(3, 3), -1, false},
    {P(0, 0), P(0, 2), P(2, 0), P(1, 1), -1, false},  // clockwise: the sign flips
    // The extreme square [-2^28, 2^29]^2: corners are cocircular.
    {P(H, L), P(H, H), P(L, H), P(L, L), 0, false},
    {P(H, L), P(H, H), P(L, H), P(L + 1, L + 1), 1, false},
    {P(L, L), P(H, L), P(H, L + 1), P(L, H), -1, false},
    {P(L, L), P(H, L), P(H, L + 1), P(L, L + 1), 0, false},
    {P(L, L), P(H, L), P(H, H), P(L, H), 0, false},
    // Thin triangles on a circle of radius ~2^27..2^28, the fourth point
    // near the circle: double gets the sign wrong (found by search).
    {P(206749920, 41306346), P(206755255, 41301302), P(206756061, 41300540), P(491768207, 196825516), 1, true},
    {P(143762380, 21975684), P(143762825, 21975553), P(143764656, 21975014), P(341556724, 477819760), -1, true},
    // Isosceles trapezoids: exactly cocircular, double says otherwise.
    {P(236307914, 231523062), P(43820626, 231523062), P(147850301, -1017203), P(132278239, -1017203), 0, true},
    {P(-120645179, 130774623), P(-36436265, 130774623), P(-48152226, 235223592), P(-108929218, 235223592), 0, true},
    {P(232746759, 347829201), P(28328909, 347829201), P(157911379, -718634), P(103164289, -718634), 0, true},
    {P(-61958511, 31656455), P(-178314437, 31656455), P(-10574259, -72933204), P(-229698689, -72933204), 0, true},
    {P(241093974, -119435078), P(326780834, -119435078), P(303246433, 395057735), P(264628375, 395057735), 0, true},
};

TEST(predicates_hand_cases) {
  for (const OrientCase& k : kOrientCases) {
    const int got = irgl::orient(k.a, k.b, k.c);
    if (got != k.want) std::fprintf(stderr, "     orient%s%s%s\n", str(k.a).c_str(), str(k.b).c_str(), str(k.c).c_str());
    EXPECT_EQ(got, k.want);
    EXPECT_EQ(orient_ref(k.a, k.b, k.c), k.want);
    EXPECT_EQ(irgl::orient(k.b, k.c, k.a), k.want);
    EXPECT_EQ(irgl::orient(k.b, k.a, k.c), -k.want);
    if (k.double_wrong) EXPECT(orient_double(k.a, k.b, k.c) != k.want);  // the case is a hard one
  }
  for (const IncircleCase& k : kIncircleCases) {
    const int got = irgl::incircle(k.a, k.b, k.c, k.d);
    if (got != k.want) {
      std::fprintf(stderr, "     incircle%s%s%s%s\n", str(k.a).c_str(), str(k.b).c_str(), str(k.c).c_str(),
                   str(k.d).c_str());
    }
    EXPECT_EQ(got, k.want);
    EXPECT_EQ(incircle_ref(k.a, k.b, k.c, k.d), k.want);
    EXPECT_EQ(irgl::incircle(k.b, k.c, k.a, k.d), k.want);
    EXPECT_EQ(irgl::incircle(k.b, k.a, k.c, k.d), -k.want);
    if (k.double_wrong) EXPECT(incircle_double(k.a, k.b, k.c, k.d) != k.want);
  }
}

TEST(make_point_midpoint) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT(same(irgl::make_point(2.4, -2.6), P(2, -3)));
  EXPECT(same(irgl::make_point(0.49999999999999994, -0.49999999999999994), P(0, 0)));
  EXPECT(same(irgl::make_point(1.5, -1.5), P(2, -2)));  // halves away from zero
  EXPECT(same(irgl::make_point(2.5, -0.5), P(3, -1)));
  EXPECT(same(irgl::make_point(nan, 7.0), P(0, 7)));
  EXPECT(same(irgl::make_point(3.0, nan), P(3, 0)));
  EXPECT(same(irgl::make_point(inf, -inf), P(kHi, kLo)));
  EXPECT(same(irgl::make_point(1e300, -1e300), P(kHi, kLo)));
  EXPECT(same(irgl::make_point(double(kHi) + 0.4, double(kLo) - 0.4), P(kHi, kLo)));
  EXPECT(same(irgl::make_point(double(kHi) - 1.0, double(kLo) + 1.0), P(kHi - 1, kLo + 1)));
  EXPECT(same(irgl::make_point(268435455.7, 123456789.2), P(268435456, 123456789)));
  EXPECT_EQ(irgl::point_x(P(kLo, kHi)), double(kLo));
  EXPECT_EQ(irgl::point_y(P(kLo, kHi)), double(kHi));

  EXPECT(same(irgl::midpoint(P(1, 1), P(2, 2)), P(1, 1)));
  EXPECT(same(irgl::midpoint(P(-1, -1), P(0, 0)), P(-1, -1)));  // floor(-0.5) = -1
  EXPECT(same(irgl::midpoint(P(-3, 5), P(0, -2)), P(-2, 1)));
  EXPECT(same(irgl::midpoint(P(kLo, kLo), P(kHi, kHi)), P(1 << 27, 1 << 27)));
  EXPECT(same(irgl::midpoint(P(kHi, kHi), P(kHi - 1, kHi)), P(kHi - 1, kHi)));
  EXPECT(same(irgl::midpoint(P(kLo, kLo), P(kLo + 1, kLo)), P(kLo, kLo)));
}

TEST(split_point) {
  // Axis-parallel and diagonal: the midpoint, rounded towards the lesser end.
  EXPECT(same(irgl::split_point(P(0, 0), P(10, 0)), P(5, 0)));
  EXPECT(same(irgl::split_point(P(10, 0), P(0, 0)), P(5, 0)));
  EXPECT(same(irgl::split_point(P(0, 7), P(0, 0)), P(0, 3)));
  EXPECT(same(irgl::split_point(P(0, 0), P(6, 6)), P(3, 3)));
  // Slanted: on the segment, not the rounded mean. (0,0)-(6,4): g = 2, step (3,2).
  EXPECT(same(irgl::split_point(P(0, 0), P(6, 4)), P(3, 2)));
  // (0,0)-(9,6): g = 3, step (3,2), floor(3/2) = 1 step.
  EXPECT(same(irgl::split_point(P(9, 6), P(0, 0)), P(3, 2)));
  // No grid point inside: the lesser end.
  EXPECT(same(irgl::split_point(P(0, 0), P(1, 0)), P(0, 0)));
  EXPECT(same(irgl::split_point(P(5, 3), P(2, 1)), P(2, 1)));
  EXPECT(same(irgl::split_point(P(kLo, kLo), P(kHi, kHi)), P(1 << 27, 1 << 27)));
}

TEST(circumcenter_min_angle) {
  EXPECT(same(irgl::circumcenter(P(0, 0), P(2, 0), P(0, 2)), P(1, 1)));
  EXPECT(same(irgl::circumcenter(P(0, 0), P(1 << 28, 0), P(0, 1 << 28)), P(1 << 27, 1 << 27)));
  EXPECT(same(irgl::circumcenter(P(kLo, kLo), P(kHi, kLo), P(kHi, kHi)), P(1 << 27, 1 << 27)));
  EXPECT(same(irgl::circumcenter(P(10, 10), P(16, 10), P(10, 18)), P(13, 14)));  // 6-8-10 right triangle
  // Far away (a thin triangle): clamped to the range.
  const Point far = irgl::circumcenter(P(0, 0), P(1 << 28, 1), P(1 << 27, 1));
  EXPECT(far.y == kLo || far.y == kHi);
  // Collinear: division by zero, still a point in range (0 for NaN).
  const Point col = irgl::circumcenter(P(0, 0), P(1, 1), P(2, 2));
  EXPECT(col.x >= kLo && col.x <= kHi && col.y >= kLo && col.y <= kHi);
  EXPECT(same(irgl::circumcenter(P(5, 5), P(5, 5), P(5, 5)), P(0, 0)));  // 0/0

  EXPECT(std::fabs(irgl::min_angle(P(0, 0), P(4, 0), P(0, 4)) - 45.0) < 1e-12);
  EXPECT(std::fabs(irgl::min_angle(P(0, 0), P(4, 0), P(4, 3)) - std::atan2(3.0, 4.0) * 180.0 / kPi) < 1e-12);
  EXPECT(std::fabs(irgl::min_angle(P(kLo, kLo), P(kHi, kLo), P(kHi, kHi)) - 45.0) < 1e-12);
  const double s3 = std::sqrt(3.0) * (1 << 19);  // nearly equilateral
  EXPECT(std::fabs(irgl::min_angle(P(0, 0), P(1 << 20, 0), P(1 << 19, std::llround(s3))) - 60.0) < 1e-4);
  EXPECT_EQ(irgl::min_angle(P(0, 0), P(1, 1), P(2, 2)), 0.0);  // collinear
  EXPECT_EQ(irgl::min_angle(P(3, 3), P(3, 3), P(9, 2)), 0.0);  // two equal points
  EXPECT_EQ(irgl::min_angle(P(0, 0), P(1, 1), P(3, 3)), 0.0);
  // Thin triangles: the law of cosines resolves angles down to about 1e-6
  // degrees (roughly); below that the cosine rounds to 1 and the angle to 0.
  const double thin = irgl::min_angle(P(0, 0), P(1 << 20, 0), P(1 << 19, 1));
  EXPECT(std::fabs(thin - std::atan2(1.0, double(1 << 19)) * 180.0 / kPi) < 1e-6);
  const double thinner = irgl::min_angle(P(0, 0), P(1 << 28, 0), P(1 << 27, 1));
  EXPECT(thinner >= 0.0 && thinner < 1e-5);
}

// ---- generated cases, host against device

struct Quad {
  Point a, b, c, d;
  double mx, my;  // make_point input
};
struct QuadResult {
  int o, ic;
  Point mid, cc, mp;
  double angle;
};

__host__ __device__ QuadResult evaluate(const Quad& q) {
  QuadResult r;
  r.o = irgl::orient(q.a, q.b, q.c);
  r.ic = irgl::incircle(q.a, q.b, q.c, q.d);
  r.mid = irgl::midpoint(q.a, q.b);
  r.cc = irgl::circumcenter(q.a, q.b, q.c);
  r.mp = irgl::make_point(q.mx, q.my);
  r.angle = irgl::min_angle(q.a, q.b, q.c);
  return r;
}

__global__ void evaluate_kernel(const Quad* q, QuadResult* r, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = evaluate(q[i]);
}

int64_t clampc(int64_t v) { return std::min(std::max(v, kLo), kHi); }
Point clampp(int64_t x, int64_t y) { return P(clampc(x), clampc(y)); }

struct Rng {
  uint32_t s;
  uint32_t next() { return s = hash32(s + 0x9e3779b9u); }
  int64_t range(int64_t lo, int64_t hi) {  // [lo, hi]
    const uint64_t span = uint64_t(hi - lo) + 1;
    const uint64_t r = (uint64_t(next()) << 32) | next();
    return lo + int64_t(r % span);
  }
  double unit() { return next() / 4294967296.0; }
  Point any() { return P(range(kLo, kHi), range(kLo, kHi)); }
};

std::vector<Quad> generate_quads(uint32_t n) {
  static const int64_t kEdge[] = {kLo, kLo + 1, -1, 0, 1, 1 << 28, kHi - 1, kHi};
  static const double kSpecial[] = {0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 1e300, -1e300,
                                    std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN(), double(kHi) + 0.5, double(kLo) - 0.5,
                                    268435456.5, -268435455.5, 4503599627370497.0};
  std::vector<Quad> qs;
  Rng g{12345};
  for (const OrientCase& k : kOrientCases) qs.push_back(Quad{k.a, k.b, k.c, k.a, 0.5, -0.5});
  for (const IncircleCase& k : kIncircleCases) qs.push_back(Quad{k.a, k.b, k.c, k.d, 1.5, 2.5});
  while (qs.size() < n) {
    Quad q;
    switch (g.next() % 6) {
      case 0:  // anywhere
        q.a = g.any(), q.b = g.any(), q.c = g.any(), q.d = g.any();
        break;
      case 1: {  // the extremes
        Point* ps[4] = {&q.a, &q.b, &q.c, &q.d};
        for (Point* p : ps) *p = P(kEdge[g.next() % 8], kEdge[g.next() % 8]);
        break;
      }
      case 2: {  // near-collinear: c on the line a-b, moved by up to 2
        q.a = g.any(), q.b = g.any();
        const int64_t k = g.range(-512, 1536);
        const int64_t cx = q.a.x + (int64_t(q.b.x) - q.a.x) * k / 1024 + g.range(-2, 2);
        const int64_t cy = q.a.y + (int64_t(q.b.y) - q.a.y) * k / 1024 + g.range(-2, 2);
        q.c = clampp(cx, cy);
        q.d = g.any();
        break;
      }
      case 3: {  // an isosceles trapezoid (exactly cocircular), d moved by up to 1
        const int64_t m = g.range(kLo + (1 << 27), kHi - (1 << 27));
        const int64_t p = g.range(1, 1 << 27), r = g.range(1, 1 << 27);
        const int64_t y1 = g.range(kLo, kHi), y2 = g.range(kLo, kHi);
        q.a = P(m - p, y1), q.b = P(m + p, y1), q.c = P(m + r, y2);
        q.d = clampp(m - r + g.range(-1, 1), y2 + g.range(-1, 1));
        if (g.next() % 2) std::swap(q.a, q.b);
        break;
      }
      case 4: {  // a thin triangle on a big circle, d near the circle
        const double R = double(g.range(1 << 26, 1 << 28));
        const double cx = double(g.range(kLo + int64_t(R), kHi - int64_t(R)));
        const double cy = double(g.range(kLo + int64_t(R), kHi - int64_t(R)));
        const double t0 = g.unit() * 6.283185307179586, s = 1e-6 + g.unit() * 1e-4, td = g.unit() * 6.283185307179586;
        auto on = [&](double t) { return clampp(std::llround(cx + R * std::cos(t)), std::llround(cy + R * std::sin(t))); };
        q.a = on(t0), q.b = on(t0 + s * g.unit()), q.c = on(t0 + s), q.d = on(td);
        break;
      }
      default:  // small: many equal and collinear points
        q.a = P(g.range(0, 3), g.range(0, 3)), q.b = P(g.range(0, 3), g.range(0, 3));
        q.c = P(g.range(0, 3), g.range(0, 3)), q.d = P(g.range(0, 3), g.range(0, 3));
        break;
    }
    if (g.next() % 3 == 0) {
      q.mx = kSpecial[g.next() % 16];
      q.my = kSpecial[g.next() % 16];
    } else {
      q.mx = (g.unit() - 0.3) * 1.2e9;
      q.my = (g.unit() - 0.3) * 1.2e9;
    }
    qs.push_back(q);
  }
  return qs;
}

TEST(predicates_generated_host) {
  const std::vector<Quad> qs = generate_quads(irgl_test::scale(200000));
  uint32_t bad = 0, zeros_o = 0, zeros_ic = 0, double_wrong = 0, cc_checked = 0;
  for (const Quad& q : qs) {
    const QuadResult r = evaluate(q);
    bool ok = r.o == orient_ref(q.a, q.b, q.c) && r.ic == incircle_ref(q.a, q.b, q.c, q.d);
    ok = ok && irgl::orient(q.c, q.a, q.b) == r.o && irgl::orient(q.a, q.c, q.b) == -r.o;
    ok = ok && irgl::incircle(q.c, q.a, q.b, q.d) == r.ic && irgl::incircle(q.a, q.c, q.b, q.d) == -r.ic;
    // midpoint: floor of the mean, exactly.
    ok = ok && 2 * int64_t(r.mid.x) <= int64_t(q.a.x) + q.b.x && int64_t(q.a.x) + q.b.x <= 2 * int64_t(r.mid.x) + 1;
    ok = ok && 2 * int64_t(r.mid.y) <= int64_t(q.a.y) + q.b.y && int64_t(q.a.y) + q.b.y <= 2 * int64_t(r.mid.y) + 1;
    ok = ok && r.cc.x >= kLo && r.cc.x <= kHi && r.cc.y >= kLo && r.cc.y <= kHi;
    ok = ok && r.mp.x >= kLo && r.mp.x <= kHi && r.mp.y >= kLo && r.mp.y <= kHi;
    ok = ok && r.angle >= 0.0 && r.angle <= 60.0 + 1e-9;
    if (r.o != 0) {
      // Independent check of min_angle: atan2 at each corner.
      const Point v[3] = {q.a, q.b, q.c};
      double ref = 180.0;
      for (int i = 0; i < 3; ++i) {
        const double ux = double(int64_t(v[(i + 1) % 3].x) - v[i].x), uy = double(int64_t(v[(i + 1) % 3].y) - v[i].y);
        const double wx = double(int64_t(v[(i + 2) % 3].x) - v[i].x), wy = double(int64_t(v[(i + 2) % 3].y) - v[i].y);
        ref = std::min(ref, std::atan2(std::fabs(ux * wy - uy * wx), ux * wx + uy * wy) * 180.0 / kPi);
      }
      if (ref > 0.01) ok = ok && std::fabs(r.angle - ref) < 1e-6;
      // A well-shaped triangle's circumcenter, when in range, is equidistant
      // from the corners up to the rounding to the grid.
      if (ref > 1.0 && r.cc.x > kLo && r.cc.x < kHi && r.cc.y > kLo && r.cc.y < kHi) {
        double dist[3];
        for (int i = 0; i < 3; ++i) dist[i] = std::hypot(double(int64_t(v[i].x) - r.cc.x), double(int64_t(v[i].y) - r.cc.y));
        const double spread = std::max({dist[0], dist[1], dist[2]}) - std::min({dist[0], dist[1], dist[2]});
        ok = ok && spread <= 2.0 + 1e-9 * dist[0];
        ++cc_checked;
      }
    } else {
      ok = ok && r.angle < 1e-5;  // collinear: 0, or the cosine rounded to just below 1
    }
    zeros_o += r.o == 0;
    zeros_ic += r.ic == 0;
    double_wrong += incircle_double(q.a, q.b, q.c, q.d) != r.ic;
    if (!ok && bad++ < 5) {
      std::fprintf(stderr, "     bad case %s %s %s %s\n", str(q.a).c_str(), str(q.b).c_str(), str(q.c).c_str(),
                   str(q.d).c_str());
    }
  }
  EXPECT_EQ(bad, 0u);
  std::printf("     %zu cases: %u collinear, %u cocircular, %u where double incircle is wrong, %u circumcenters "
              "checked\n",
              qs.size(), zeros_o, zeros_ic, double_wrong, cc_checked);
  EXPECT(zeros_o > 0 && zeros_ic > 0 && double_wrong > 0 && cc_checked > 0);  // the generator reaches the hard cases
}

TEST(predicates_device_matches_host) {
  if (irgl_test::host_only()) return;
  const std::vector<Quad> qs = generate_quads(irgl_test::scale(200000));
  const uint32_t n = static_cast<uint32_t>(qs.size());
  irgl::DeviceArray<Quad> dq(qs);
  irgl::DeviceArray<QuadResult> dr(n);
  evaluate_kernel<<<(n + 127) / 128, 128>>>(dq.data(), dr.data(), n);
  IRGL_CHECK_LAUNCH("evaluate_kernel");
  const std::vector<QuadResult> got = dr.to_host();
  uint32_t bad = 0, cc_off_by_one = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const QuadResult h = evaluate(qs[i]), &d = got[i];
    bool ok = h.o == d.o && h.ic == d.ic && same(h.mid, d.mid) && same(h.mp, d.mp);
    if (!same(h.cc, d.cc)) {
      const bool close = std::abs(int64_t(h.cc.x) - d.cc.x) <= 1 && std::abs(int64_t(h.cc.y) - d.cc.y) <= 1;
      cc_off_by_one += close;
      ok = ok && HOST_MAY_CONTRACT && close;
    }
    ok = ok && std::fabs(h.angle - d.angle) <= 1e-12 * std::fabs(h.angle) + 1e-14;
    if (!ok && bad++ < 5) {
      std::fprintf(stderr,
                   "     case %u: host o=%d ic=%d mid=%s cc=%s mp=%s angle=%.17g; device o=%d ic=%d mid=%s cc=%s "
                   "mp=%s angle=%.17g\n",
                   i, h.o, h.ic, str(h.mid).c_str(), str(h.cc).c_str(), str(h.mp).c_str(), h.angle, d.o, d.ic,
                   str(d.mid).c_str(), str(d.cc).c_str(), str(d.mp).c_str(), d.angle);
    }
  }
  EXPECT_EQ(bad, 0u);
  if (cc_off_by_one != 0) std::printf("     %u circumcenters off by one (host FMA contraction)\n", cc_off_by_one);
  // The hand cases on the device give the hand answers.
  size_t k = 0;
  for (const OrientCase& c : kOrientCases) EXPECT_EQ(got[k++].o, c.want);
  for (const IncircleCase& c : kIncircleCases) EXPECT_EQ(got[k++].ic, c.want);
}

// ---- meshes on the host

/// A gx x gy grid of squares of side `step` at (x0, y0), each cut into two
/// counterclockwise triangles (the diagonal alternating); neighbours from a
/// sorted list of directed edges (independent of the header).
irgl::HostMesh grid_mesh(uint32_t gx, uint32_t gy, int32_t step, int32_t x0 = 0, int32_t y0 = 0) {
  irgl::HostMesh m;
  m.origin_x = -1.5;
  m.origin_y = 2.25;
  m.scale = 1.0 / 1024;
  m.nvertices = (gx + 1) * (gy + 1);
  for (uint32_t j = 0; j <= gy; ++j) {
    for (uint32_t i = 0; i <= gx; ++i) {
      m.coords.push_back(x0 + int32_t(i) * step);
      m.coords.push_back(y0 + int32_t(j) * step);
    }
  }
  auto id = [&](uint32_t i, uint32_t j) { return j * (gx + 1) + i; };
  for (uint32_t j = 0; j < gy; ++j) {
    for (uint32_t i = 0; i < gx; ++i) {
      const uint32_t v00 = id(i, j), v10 = id(i + 1, j), v01 = id(i, j + 1), v11 = id(i + 1, j + 1);
      const bool flip = (i + j) % 2 == 1;
      const uint32_t t[6] = {v00, v10, v11, v00, v11, v01};
      const uint32_t f[6] = {v00, v10, v01, v10, v11, v01};
      for (int k = 0; k < 6; ++k) m.tri_v.push_back(flip ? f[k] : t[k]);
    }
  }
  m.ntriangles = static_cast<uint32_t>(m.tri_v.size() / 3);
  // Directed edges (a, b) -> triangle, sorted; t's neighbour across (a, b) holds (b, a).
  auto key = [](uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; };
  std::vector<std::pair<uint64_t, uint32_t>> edges;
  edges.reserve(3 * size_t(m.ntriangles));
  for (uint32_t t = 0; t < m.ntriangles; ++t) {
    for (int i = 0; i < 3; ++i) edges.push_back({key(m.tri_v[3 * t + i], m.tri_v[3 * t + (i + 1) % 3]), t});
  }
  std::sort(edges.begin(), edges.end());
  m.tri_n.assign(3 * size_t(m.ntriangles), kNone);
  for (uint32_t t = 0; t < m.ntriangles; ++t) {
    for (int i = 0; i < 3; ++i) {
      const uint64_t k = key(m.tri_v[3 * t + (i + 1) % 3], m.tri_v[3 * t + i]);
      auto it = std::lower_bound(edges.begin(), edges.end(), std::make_pair(k, 0u));
      if (it != edges.end() && it->first == k) m.tri_n[3 * t + i] = it->second;
    }
  }
  return m;
}

bool mesh_equal(const irgl::HostMesh& a, const irgl::HostMesh& b) {
  return a.nvertices == b.nvertices && a.ntriangles == b.ntriangles && a.origin_x == b.origin_x &&
         a.origin_y == b.origin_y && a.scale == b.scale && a.coords == b.coords && a.tri_v == b.tri_v &&
         a.tri_n == b.tri_n;
}

std::string tmp_path(const char* name) {
  return "/tmp/irgl-test-" + std::to_string(getpid()) + "-" + name + ".mesh";
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) irgl::fatal("cannot create %s", path.c_str());
  if (!bytes.empty()) std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}
std::vector<uint8_t> read_bytes(const std::string& path) {
  std::vector<uint8_t> b;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return b;
  int c;
  while ((c = std::fgetc(f)) != EOF) b.push_back(uint8_t(c));
  std::fclose(f);
  return b;
}

/// The file's bytes, built by hand (independently of write_mesh).
std::vector<uint8_t> mesh_bytes(const irgl::HostMesh& m) {
  std::vector<uint8_t> b;
  auto put = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(uint8_t(v >> (8 * i)));
  };
  auto putd = [&](double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    put(u, 8);
  };
  for (const char* p = "IRGLMESH"; *p; ++p) b.push_back(uint8_t(*p));
  put(1, 4);
  put(0, 4);
  put(m.nvertices, 8);
  put(m.ntriangles, 8);
  putd(m.origin_x);
  putd(m.origin_y);
  putd(m.scale);
  for (int32_t c : m.coords) put(uint32_t(c), 4);
  for (uint32_t v : m.tri_v) put(v, 4);
  for (uint32_t n : m.tri_n) put(n, 4);
  return b;
}
void patch(std::vector<uint8_t>& b, size_t off, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[off + i] = uint8_t(v >> (8 * i));
}
void patchd(std::vector<uint8_t>& b, size_t off, double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  patch(b, off, u, 8);
}

/// read_mesh on these bytes must fail; returns the message after "<path>: ".
std::string mesh_error(const std::vector<uint8_t>& bytes, const char* name) {
  const std::string p = tmp_path(name);
  write_bytes(p, bytes);
  irgl::HostMesh m;
  std::string err;
  const bool ok = irgl::read_mesh(p, m, err);
  std::remove(p.c_str());
  EXPECT(!ok);
  EXPECT(irgl_test::starts_with(err, p + ": "));
  EXPECT(err.find('\n') == std::string::npos);
  if (ok) return "";
  std::printf("     %s\n", err.substr(p.size() + 2).c_str());
  return err.substr(p.size() + 2);
}

// The 2 x 1 grid: vertices 0 1 2 / 3 4 5 (bottom row first), triangles
// 0 = (0, 1, 4), 1 = (0, 4, 3), 2 = (1, 2, 5)... with the alternating diagonal:
// cell (1, 0) is flipped: 2 = (1, 2, 4), 3 = (2, 5, 4).
// File: coords at 56, tri_v at 104, tri_n at 152, size 200.
TEST(grid_mesh_by_hand) {
  const irgl::HostMesh m = grid_mesh(2, 1, 10);
  EXPECT_EQ(m.nvertices, 6u);
  EXPECT_EQ(m.ntriangles, 4u);
  EXPECT((m.tri_v == std::vector<uint32_t>{0, 1, 4, 0, 4, 3, 1, 2, 4, 2, 5, 4}));
  EXPECT((m.tri_n == std::vector<uint32_t>{kNone, 2, 1, 0, kNone, kNone, kNone, 3, 0, kNone, kNone, 2}));
  EXPECT_EQ(irgl::validate_mesh(m), std::string());
  EXPECT_EQ(irgl::mesh_file_bytes(6, 4), uint64_t(200));
  EXPECT_EQ(irgl::mesh_tri_v_offset(6, 0), uint64_t(104));
  EXPECT_EQ(irgl::mesh_tri_n_offset(6, 4, 0), uint64_t(152));
}

TEST(write_and_read_round_trip) {
  for (uint32_t g : {0u, 1u, 2u, 7u}) {
    const irgl::HostMesh m = g == 0 ? irgl::HostMesh() : grid_mesh(g, g == 2 ? 1 : g, 1 << 20, 3, 5);
    const std::string p = tmp_path("rt");
    irgl::write_mesh(p, m);
    EXPECT(read_bytes(p) == mesh_bytes(m));  // byte-exact
    EXPECT_EQ(read_bytes(p).size(), size_t(irgl::mesh_file_bytes(m.nvertices, m.ntriangles)));
    irgl::HostMesh r;
    std::string err;
    EXPECT(irgl::read_mesh(p, r, err));
    EXPECT_EQ(err, std::string());
    EXPECT(mesh_equal(r, m));
    EXPECT(mesh_equal(irgl::load_mesh(p), m));
    std::remove(p.c_str());
  }
  // The extreme coordinates 0 and 2^28.
  irgl::HostMesh m = grid_mesh(1, 1, 1 << 28);
  EXPECT_EQ(irgl::validate_mesh(m), std::string());
  const std::string p = tmp_path("big");
  irgl::write_mesh(p, m);
  EXPECT(mesh_equal(irgl::load_mesh(p), m));
  std::remove(p.c_str());
}

TEST(bad_header) {
  const std::vector<uint8_t> good = mesh_bytes(grid_mesh(2, 1, 10));
  EXPECT_EQ(good.size(), size_t(200));
  auto b = good;
  b[7] = 'X';
  EXPECT_EQ(mesh_error(b, "magic"), std::string("byte offset 0: expected magic \"IRGLMESH\", found \"IRGLMESX\""));
  b[7] = 0;
  EXPECT(contains(mesh_error(b, "magic0"), "found \"IRGLMES\\x00\""));
  b = good;
  patch(b, 8, 2, 4);
  EXPECT_EQ(mesh_error(b, "version"), std::string("byte offset 8: expected version 1, found 2"));
  b = good;
  patch(b, 12, 7, 4);
  EXPECT_EQ(mesh_error(b, "reserved"), std::string("byte offset 12: expected reserved field 0, found 7"));
  b = good;
  patch(b, 16, 0xffffffffull, 8);
  EXPECT_EQ(mesh_error(b, "bigv"), std::string("byte offset 16: expected a vertex count below 2^32 - 1, found 4294967295"));
  b = good;
  patch(b, 24, uint64_t(1) << 40, 8);
  EXPECT(contains(mesh_error(b, "bigt"), "byte offset 24: expected a triangle count below 2^32 - 1"));
  for (double s : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    b = good;
    patchd(b, 48, s);
    EXPECT(contains(mesh_error(b, "scale"), "byte offset 48: expected a finite scale > 0, found "));
  }
  b = good;
  patchd(b, 40, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(mesh_error(b, "origin"), std::string("byte offset 40: expected a finite origin_y, found -inf"));
  b = good;
  b.resize(10);
  EXPECT_EQ(mesh_error(b, "short"),
            std::string("byte offset 10: expected a 56-byte header, found end of file (file is 10 bytes)"));
  EXPECT(contains(mesh_error({}, "empty"), "byte offset 0: expected a 56-byte header"));
}

TEST(bad_size) {
  const std::vector<uint8_t> good = mesh_bytes(grid_mesh(2, 1, 10));
  auto b = good;
  b.resize(197);
  EXPECT_EQ(mesh_error(b, "trunc"), std::string("byte offset 197: expected 200 bytes for 6 vertices and 4 triangles, "
                                                "found end of file (file is truncated)"));
  b = good;
  b.push_back(0);
  EXPECT_EQ(mesh_error(b, "trail"),
            std::string("byte offset 200: expected end of file after 6 vertices and 4 triangles, found 1 more bytes"));
  b = good;
  patch(b, 24, 5, 8);  // one triangle more than the file holds
  EXPECT(contains(mesh_error(b, "count"), "byte offset 200: expected 224 bytes for 6 vertices and 5 triangles"));
}

TEST(bad_contents) {
  const std::vector<uint8_t> good = mesh_bytes(grid_mesh(2, 1, 10));
  auto b = good;
  patch(b, 56 + 8 * 2 + 4, (1u << 28) + 1, 4);  // vertex 2's y
  EXPECT_EQ(mesh_error(b, "coord"), std::string("byte offset 76: expected vertex 2's y in [0, 2^28], found 268435457"));
  b = good;
  patch(b, 56, uint32_t(-1), 4);
  EXPECT_EQ(mesh_error(b, "coord2"), std::string("byte offset 56: expected vertex 0's x in [0, 2^28], found -1"));
  b = good;
  patch(b, 104 + 4 * 7, 6, 4);  // tri_v[7] = V
  EXPECT_EQ(mesh_error(b, "vid"),
            std::string("byte offset 132: expected tri_v[7] < V = 6 (triangle 2 vertex 1), found 6"));
  b = good;
  patch(b, 104 + 4 * 4, 3, 4);  // triangle 1 = (0, 3, 3)... then (0, 3, 4): clockwise
  patch(b, 104 + 4 * 5, 4, 4);
  EXPECT_EQ(mesh_error(b, "cw"), std::string("byte offset 116: expected triangle 1 to be counterclockwise "
                                             "(orientation > 0), found clockwise vertices 0, 3, 4"));
  b = good;
  patch(b, 104 + 4 * 2, 2, 4);  // triangle 0 = (0, 1, 2): collinear
  EXPECT_EQ(mesh_error(b, "col"), std::string("byte offset 104: expected triangle 0 to be counterclockwise "
                                              "(orientation > 0), found collinear vertices 0, 1, 2"));
  b = good;
  patch(b, 152 + 4 * 4, 4, 4);  // tri_n[4] = T
  EXPECT_EQ(mesh_error(b, "nid"), std::string("byte offset 168: expected tri_n[4] < T = 4 or 0xffffffff "
                                              "(triangle 1 edge 1), found 4"));
  b = good;
  patch(b, 152 + 4 * 1, 3, 4);  // triangle 0 across (1, 4) claims 3 = (2, 5, 4), which has no edge (4, 1)
  EXPECT_EQ(mesh_error(b, "recip"),
            std::string("byte offset 156: expected triangle 3, the neighbour of triangle 0 across edge (1, 4), to "
                        "have the edge (4, 1), found vertices 2, 5, 4"));
  b = good;
  patch(b, 152 + 4 * 8, kNone, 4);  // triangle 2 forgets 0 across (4, 1)
  EXPECT_EQ(mesh_error(b, "oneway"),
            std::string("byte offset 156: expected triangle 2 to have triangle 0 across edge (4, 1) "
                        "(non-reciprocal neighbours), found 0xffffffff (boundary)"));
  b = good;
  patch(b, 152 + 4 * 1, kNone, 4);  // triangle 0 forgets 2: found at triangle 2's edge 2
  EXPECT_EQ(mesh_error(b, "oneway2"),
            std::string("byte offset 184: expected triangle 0 to have triangle 2 across edge (1, 4) "
                        "(non-reciprocal neighbours), found 0xffffffff (boundary)"));
  b = good;
  patch(b, 152 + 4 * 0, 0, 4);  // triangle 0 is its own neighbour
  EXPECT(contains(mesh_error(b, "self"), "expected triangle 0, the neighbour of triangle 0 across edge (0, 1)"));
  b = good;
  patch(b, 152 + 4 * 9, 1, 4);  // a boundary edge of 3 points at 1, which has no edge (5, 2)... non-reciprocal
  EXPECT(contains(mesh_error(b, "bnd"), "byte offset 188: expected triangle 1, the neighbour of triangle 3"));
  // validate_mesh directly, and inconsistent arrays.
  irgl::HostMesh m = grid_mesh(2, 1, 10);
  m.tri_n.pop_back();
  EXPECT(irgl_test::starts_with(irgl::validate_mesh(m), "inconsistent mesh: expected arrays of 2V = 12 coordinates"));
  irgl::HostMesh bad;
  std::string err;
  EXPECT(!irgl::read_mesh("/nonexistent/dir/x.mesh", bad, err));
  EXPECT_EQ(err, std::string("/nonexistent/dir/x.mesh: cannot open: No such file or directory"));
  EXPECT(!irgl::write_mesh("/nonexistent/dir/x.mesh", grid_mesh(1, 1, 1), err));
  EXPECT(contains(err, "/nonexistent/dir/x.mesh: cannot create: No such file or directory"));
}

TEST(load_and_write_exit) {
  auto b = mesh_bytes(grid_mesh(2, 1, 10));
  patch(b, 152 + 4 * 4, 4, 4);
  const std::string p = tmp_path("child");
  write_bytes(p, b);
  irgl_test::ChildResult r = irgl_test::run_child("load-child " + p);
  std::remove(p.c_str());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, "error: " + p + ": byte offset 168: expected tri_n[4] < T = 4 or 0xffffffff (triangle 1 edge 1), "
                                      "found 4\n");
  r = irgl_test::run_child("write-child /nonexistent/dir/y.mesh");
  EXPECT_EQ(r.status, 1);
  EXPECT(irgl_test::starts_with(r.output, "error: /nonexistent/dir/y.mesh: cannot create: "));
  EXPECT_EQ(irgl_test::count_lines(r.output), 1);
}

TEST(load_is_fast) {
  // ~2M triangles (scaled down under the sanitizer): written and loaded, timed.
  const uint32_t g = irgl_test::scale(1024);
  const irgl::HostMesh m = grid_mesh(g, g, (1 << 28) / int32_t(g));
  const std::string p = tmp_path("fast");
  irgl::write_mesh(p, m);
  const auto t0 = std::chrono::steady_clock::now();
  const irgl::HostMesh r = irgl::load_mesh(p);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::remove(p.c_str());
  EXPECT(mesh_equal(r, m));
  std::printf("     loaded %u triangles in %.1f ms\n", r.ntriangles, ms);
  EXPECT(ms < 1000.0 * (1 + r.ntriangles / 2000000.0));  // generous: linear time
}

TEST(overflow_message) {
  EXPECT_EQ(irgl::mesh_overflow_message("refine", 100, 60, 101, 55),
            std::string("mesh overflow in kernel refine: capacity 100 triangles (60 vertices), at least 101 triangles "
                        "(55 vertices) needed; rerun with --mesh-capacity <bigger>"));
  uint64_t t = 0, v = 0;
  const uint32_t none[4] = {55, 100, 0, 0};
  EXPECT(!irgl::mesh_overflow_needed(none, 100, 60, &t, &v));
  EXPECT(t == 100 && v == 55);
  const uint32_t tri[4] = {55, 100, 2, 0};
  EXPECT(irgl::mesh_overflow_needed(tri, 100, 60, &t, &v));
  EXPECT(t == 101 && v == 55);
  const uint32_t ver[4] = {60, 90, 1, 0};
  EXPECT(irgl::mesh_overflow_needed(ver, 100, 60, &t, &v));
  EXPECT(t == 90 && v == 61);
  const uint32_t past[4] = {70, 130, 0, 0};  // counts past capacity without a flag: overflow too
  EXPECT(irgl::mesh_overflow_needed(past, 100, 60, &t, &v));
  EXPECT(t == 130 && v == 70);
}

// ---- the device view

struct Probe {
  uint32_t nv, nt;
  uint32_t v[3], n[3];
  uint32_t v_mod[3];  // vertex(t, i + 3) and neighbor(t, i + 6)
  uint32_t n_mod[3];
  uint32_t dead;
  Point p;
};

__global__ void probe_kernel(irgl::Mesh m, uint32_t nslots, uint32_t nverts, Probe* out) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nslots) return;
  Probe r;
  r.nv = m.nvertices();
  r.nt = m.ntriangles();
  const uint32_t id = t + 1 == nslots ? kNone : t;  // the last probe asks for kNone
  for (uint32_t i = 0; i < 3; ++i) {
    r.v[i] = m.vertex(id, i);
    r.n[i] = m.neighbor(id, i);
    r.v_mod[i] = m.vertex(id, i + 3);
    r.n_mod[i] = m.neighbor(id, i + 6);
  }
  r.dead = m.deleted(id) ? 1u : 0u;
  r.p = m.point(t < nverts ? t : kNone);
  out[t] = r;
}

TEST(device_view) {
  if (irgl_test::host_only()) return;
  const irgl::HostMesh m = grid_mesh(3, 2, 1 << 24);
  const uint32_t T = m.ntriangles, V = m.nvertices, tcap = T + 5, vcap = V + 3;
  irgl::DeviceMesh dm(m, tcap, vcap);
  EXPECT_EQ(dm.ntriangles(), T);
  EXPECT_EQ(dm.nvertices(), V);
  EXPECT_EQ(dm.live_triangles(), uint64_t(T));
  EXPECT(!dm.overflowed());
  dm.check_overflow("none");  // returns
  const uint32_t nslots = tcap + 3;  // past capacity, and kNone last
  irgl::DeviceArray<Probe> out(nslots);
  probe_kernel<<<1, 64>>>(dm.view(), nslots, vcap + 2, out.data());
  IRGL_CHECK_LAUNCH("probe_kernel");
  const std::vector<Probe> got = out.to_host();
  for (uint32_t t = 0; t < nslots; ++t) {
    const Probe& r = got[t];
    EXPECT_EQ(r.nv, V);
    EXPECT_EQ(r.nt, T);
    const uint32_t id = t + 1 == nslots ? kNone : t;
    for (uint32_t i = 0; i < 3; ++i) {
      const uint32_t wv = id < T ? m.tri_v[3 * id + i] : 0u;
      const uint32_t wn = id < T ? m.tri_n[3 * id + i] : kNone;
      EXPECT_EQ(r.v[i], wv);
      EXPECT_EQ(r.n[i], wn);
      EXPECT_EQ(r.v_mod[i], wv);
      EXPECT_EQ(r.n_mod[i], wn);
    }
    EXPECT_EQ(r.dead, id < T ? 0u : 1u);  // slots not in use and out of range read deleted
    if (t < vcap + 2) {
      const Point w = t < V ? P(m.coords[2 * t], m.coords[2 * t + 1]) : P(0, 0);
      EXPECT(same(r.p, w));
    } else {
      EXPECT(same(r.p, P(0, 0)));
    }
  }
  uint64_t dangling = 1;
  EXPECT(mesh_equal(dm.download(&dangling), m));
  EXPECT_EQ(dangling, uint64_t(0));
  // An empty mesh, with and without room.
  irgl::DeviceMesh empty(irgl::HostMesh(), 0, 0);
  EXPECT_EQ(empty.live_triangles(), uint64_t(0));
  EXPECT(mesh_equal(empty.download(), irgl::HostMesh()));
  irgl::DeviceMesh room(irgl::HostMesh(), 10, 10);
  EXPECT_EQ(room.ntriangles(), 0u);
  EXPECT(mesh_equal(room.download(), irgl::HostMesh()));
}

// ---- concurrent appends and overflow

__host__ __device__ uint32_t tv_value(uint32_t tid, uint32_t r, uint32_t k, uint32_t reps) {
  return hash32(tid * reps * 3 + r * 3 + k) >> 1;
}

__global__ void add_kernel(irgl::Mesh m, uint32_t nthreads, uint32_t reps, bool vertices, uint32_t* tri_out,
                           uint32_t* vert_out) {
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nthreads) return;
  for (uint32_t r = 0; r < reps; ++r) {
    tri_out[tid * reps + r] =
        m.add_triangle(tv_value(tid, r, 0, reps), tv_value(tid, r, 1, reps), tv_value(tid, r, 2, reps));
  }
  if (vertices) vert_out[tid] = m.add_vertex(Point{int32_t(tid), -int32_t(tid)});
}

constexpr uint32_t kGuard = 4096;
constexpr uint32_t kPoison = 0xdeadbeefu;

/// A Mesh view over arrays with a poisoned guard region past each capacity,
/// laid out as DeviceMesh lays them out: T0 input slots (sentinel contents),
/// the rest deleted with vertices 0 and neighbours kNone.
struct GuardedMesh {
  uint32_t T0, V0, tcap, vcap;
  irgl::DeviceArray<uint32_t> counts, tri_v, tri_n, dead;
  irgl::DeviceArray<int32_t> coords;
  GuardedMesh(uint32_t t0, uint32_t v0, uint32_t tc, uint32_t vc) : T0(t0), V0(v0), tcap(tc), vcap(vc) {
    std::vector<uint32_t> tv(3 * size_t(tcap) + kGuard, kPoison), tn(3 * size_t(tcap) + kGuard, kPoison),
        dd(size_t(tcap) + kGuard, kPoison);
    std::vector<int32_t> cc(2 * size_t(vcap) + kGuard, int32_t(kPoison));
    for (uint32_t t = 0; t < tcap; ++t) {
      for (int i = 0; i < 3; ++i) {
        tv[3 * t + i] = t < T0 ? 1000 + t : 0u;
        tn[3 * t + i] = t < T0 ? 2000 + t : kNone;
      }
      dd[t] = t < T0 ? 0u : 1u;
    }
    for (uint32_t v = 0; v < vcap; ++v) {
      cc[2 * v] = v < V0 ? int32_t(3000 + v) : 0;
      cc[2 * v + 1] = v < V0 ? int32_t(4000 + v) : 0;
    }
    tri_v = irgl::DeviceArray<uint32_t>(tv);
    tri_n = irgl::DeviceArray<uint32_t>(tn);
    dead = irgl::DeviceArray<uint32_t>(dd);
    coords = irgl::DeviceArray<int32_t>(cc);
    counts = irgl::DeviceArray<uint32_t>(std::vector<uint32_t>{V0, T0, 0u, 0u});
  }
  irgl::Mesh view() {
    irgl::Mesh m;
    m.vertex_capacity = vcap;
    m.triangle_capacity = tcap;
    m.counts = counts.data();
    m.coords = coords.data();
    m.tri_v = tri_v.data();
    m.tri_n = tri_n.data();
    m.dead = dead.data();
    return m;
  }
};

/// Runs add_kernel on a guarded mesh and checks everything.
void run_adds(uint32_t nthreads, uint32_t reps, uint32_t tcap, uint32_t vcap, bool vertices) {
  const uint32_t T0 = 4, V0 = 6;
  GuardedMesh g(T0, V0, tcap, vcap);
  irgl::DeviceArray<uint32_t> tri_out(size_t(nthreads) * reps), vert_out(nthreads, kPoison);
  add_kernel<<<(nthreads + 255) / 256, 256>>>(g.view(), nthreads, reps, vertices, tri_out.data(), vert_out.data());
  IRGL_CHECK_LAUNCH("add_kernel");
  const auto counts = g.counts.to_host();
  const auto tv = g.tri_v.to_host(), tn = g.tri_n.to_host(), dd = g.dead.to_host();
  const auto cc = g.coords.to_host();
  const auto to = tri_out.to_host(), vo = vert_out.to_host();

  const uint64_t tri_asked = uint64_t(nthreads) * reps, vert_asked = vertices ? nthreads : 0;
  const bool tri_over = T0 + tri_asked > tcap, vert_over = V0 + vert_asked > vcap;
  const uint64_t tri_given = tri_over ? tcap - T0 : tri_asked, vert_given = vert_over ? vcap - V0 : vert_asked;
  EXPECT_EQ(counts[0], uint32_t(V0 + vert_given));  // exactly capacity after an overflow
  EXPECT_EQ(counts[1], uint32_t(T0 + tri_given));
  EXPECT_EQ(counts[2], (tri_over ? 2u : 0u) | (vert_over ? 1u : 0u));
  EXPECT_EQ(counts[3], 0u);

  // Each slot in [T0, T0 + given) went to exactly one call, which wrote it; failed calls got kNone.
  std::vector<uint32_t> owner(tcap, kNone);
  uint64_t ok_calls = 0, bad = 0;
  for (uint32_t tid = 0; tid < nthreads; ++tid) {
    for (uint32_t r = 0; r < reps; ++r) {
      const uint32_t s = to[size_t(tid) * reps + r];
      if (s == kNone) continue;
      ++ok_calls;
      if (s < T0 || s >= T0 + tri_given || owner[s] != kNone) {
        ++bad;
        continue;
      }
      owner[s] = tid * reps + r;
      for (uint32_t k = 0; k < 3; ++k) {
        bad += tv[3 * size_t(s) + k] != tv_value(tid, r, k, reps);
        bad += tn[3 * size_t(s) + k] != kNone;
      }
      bad += dd[s] != 0u;
    }
  }
  EXPECT_EQ(ok_calls, tri_given);
  EXPECT_EQ(bad, uint64_t(0));
  // The input slots are untouched, slots never given stay as initialized, the guard is intact.
  uint64_t changed = 0;
  for (uint32_t t = 0; t < tcap; ++t) {
    if (t < T0) {
      for (int i = 0; i < 3; ++i) changed += tv[3 * t + i] != 1000 + t || tn[3 * t + i] != 2000 + t;
      changed += dd[t] != 0u;
    } else if (t >= T0 + tri_given) {
      for (int i = 0; i < 3; ++i) changed += tv[3 * t + i] != 0u || tn[3 * t + i] != kNone;
      changed += dd[t] != 1u;
    }
  }
  for (size_t k = 3 * size_t(tcap); k < tv.size(); ++k) changed += tv[k] != kPoison || tn[k] != kPoison;
  for (size_t k = tcap; k < dd.size(); ++k) changed += dd[k] != kPoison;
  for (size_t k = 2 * size_t(vcap); k < cc.size(); ++k) changed += uint32_t(cc[k]) != kPoison;
  EXPECT_EQ(changed, uint64_t(0));
  // Vertices likewise.
  std::vector<uint8_t> vseen(vcap, 0);
  uint64_t vok = 0, vbad = 0;
  for (uint32_t tid = 0; vertices && tid < nthreads; ++tid) {
    const uint32_t v = vo[tid];
    if (v == kNone) continue;
    ++vok;
    if (v < V0 || v >= vcap || vseen[v]) {
      ++vbad;
      continue;
    }
    vseen[v] = 1;
    vbad += cc[2 * size_t(v)] != int32_t(tid) || cc[2 * size_t(v) + 1] != -int32_t(tid);
  }
  for (uint32_t v = 0; v < V0; ++v) vbad += cc[2 * v] != int32_t(3000 + v) || cc[2 * v + 1] != int32_t(4000 + v);
  EXPECT_EQ(vok, vert_given);
  EXPECT_EQ(vbad, uint64_t(0));
  std::printf("     %u threads x %u triangles, capacity %u/%u: %" PRIu64 " triangles, %" PRIu64 " vertices given\n",
              nthreads, reps, tcap, vcap, tri_given, vert_given);
}

TEST(concurrent_adds_until_overflow) {
  if (irgl_test::host_only()) return;
  const uint32_t n = irgl_test::scale(1u << 18);
  run_adds(n, 4, 4 + n + n / 3, 6 + n / 2, true);       // both overflow, with many calls after
  run_adds(n, 4, 4 + 4 * n, 6 + n / 2, true);           // vertices only
  run_adds(n, 4, 4 + 4 * n - 1, 6 + n, true);           // triangles, by one
  run_adds(n, 4, 4 + 4 * n, 6 + n, true);               // exactly full: no overflow
  run_adds(n, 2, 4 + 10, 6, false);                     // a tiny capacity
  run_adds(n, 1, 4, 6, true);                           // no room at all
}

__global__ void overflow_child_kernel(irgl::Mesh m) { m.add_triangle(0, 1, 4); }

TEST(check_overflow_exits) {
  if (irgl_test::host_only()) return;
  irgl_test::ChildResult r = irgl_test::run_child("overflow-child");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, std::string("error: mesh overflow in kernel refine: capacity 10 triangles (8 vertices), at least "
                                  "11 triangles (6 vertices) needed; rerun with --mesh-capacity <bigger>\n"));
  r = irgl_test::run_child("capacity-child");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.output, std::string("error: DeviceMesh: capacity of 3 triangles and 6 vertices must hold the mesh's 4 "
                                  "triangles and 6 vertices and be at most 4278190079; rerun with --mesh-capacity "
                                  "<bigger>\n"));
}

// ---- splits: download() after remove/add_triangle/set_neighbor

__host__ __device__ int32_t floor_div3(int64_t s) { return int32_t(s >= 0 ? s / 3 : -((-s + 2) / 3)); }
__host__ __device__ Point centroid(Point a, Point b, Point c) {
  return Point{floor_div3(int64_t(a.x) + b.x + c.x), floor_div3(int64_t(a.y) + b.y + c.y)};
}

/// Replaces t by three triangles around its centroid. nb: t's neighbours,
/// which the caller holds (or nobody else touches). err bits: 1 vertex
/// overflow, 2 triangle overflow, 4 a neighbour without t.
__device__ void split_triangle(irgl::Mesh m, uint32_t t, const uint32_t nb[3], uint32_t* err) {
  const uint32_t a = m.vertex(t, 0), b = m.vertex(t, 1), c = m.vertex(t, 2);
  const uint32_t p = m.add_vertex(centroid(m.point(a), m.point(b), m.point(c)));
  if (p == kNone) {
    atomicOr(err, 1u);
    return;
  }
  const uint32_t t0 = m.add_triangle(a, b, p), t1 = m.add_triangle(b, c, p), t2 = m.add_triangle(c, a, p);
  if (t0 == kNone || t1 == kNone || t2 == kNone) {
    atomicOr(err, 2u);
    return;
  }
  m.remove(t);
  const uint32_t nt[3] = {t0, t1, t2};
  for (uint32_t i = 0; i < 3; ++i) {
    m.set_neighbor(nt[i], 0, nb[i]);
    m.set_neighbor(nt[i], 1, nt[(i + 1) % 3]);
    m.set_neighbor(nt[i], 2, nt[(i + 2) % 3]);
  }
  __threadfence();  // publication: the new triangles before the pointers to them
  for (uint32_t i = 0; i < 3; ++i) {
    if (nb[i] == kNone) continue;
    uint32_t j = 0;
    while (j < 3 && m.neighbor(nb[i], j) != t) ++j;
    if (j == 3) {
      atomicOr(err, 4u);
    } else {
      m.set_neighbor(nb[i], j, nt[i]);
    }
  }
}

__global__ void split_script_kernel(irgl::Mesh m, const uint32_t* script, uint32_t n, const uint32_t* removes,
                                    uint32_t nremoves, uint32_t* err) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t t = script[k];
    const uint32_t nb[3] = {m.neighbor(t, 0), m.neighbor(t, 1), m.neighbor(t, 2)};
    split_triangle(m, t, nb, err);
  }
  for (uint32_t k = 0; k < nremoves; ++k) m.remove(removes[k]);
}

/// The same on the host, in slot space.
struct SlotMesh {
  std::vector<int32_t> coords;
  std::vector<uint32_t> tv, tn, dead;
  explicit SlotMesh(const irgl::HostMesh& m) : coords(m.coords), tv(m.tri_v), tn(m.tri_n), dead(m.ntriangles, 0u) {}
  uint32_t add(uint32_t a, uint32_t b, uint32_t c) {
    tv.insert(tv.end(), {a, b, c});
    tn.insert(tn.end(), {kNone, kNone, kNone});
    dead.push_back(0);
    return uint32_t(dead.size() - 1);
  }
  Point point(uint32_t v) const { return P(coords[2 * v], coords[2 * v + 1]); }
  void split(uint32_t t) {
    const uint32_t a = tv[3 * t], b = tv[3 * t + 1], c = tv[3 * t + 2];
    const uint32_t nb[3] = {tn[3 * t], tn[3 * t + 1], tn[3 * t + 2]};
    const Point q = centroid(point(a), point(b), point(c));
    const uint32_t p = uint32_t(coords.size() / 2);
    coords.push_back(q.x);
    coords.push_back(q.y);
    const uint32_t nt[3] = {add(a, b, p), add(b, c, p), add(c, a, p)};
    dead[t] = 1;
    for (uint32_t i = 0; i < 3; ++i) {
      tn[3 * nt[i]] = nb[i];
      tn[3 * nt[i] + 1] = nt[(i + 1) % 3];
      tn[3 * nt[i] + 2] = nt[(i + 2) % 3];
      if (nb[i] == kNone) continue;
      for (uint32_t j = 0; j < 3; ++j) {
        if (tn[3 * nb[i] + j] == t) tn[3 * nb[i] + j] = nt[i];
      }
    }
  }
  /// Compacted, as download() should return it.
  irgl::HostMesh compact(const irgl::HostMesh& like, uint64_t* dangling) const {
    irgl::HostMesh m;
    m.origin_x = like.origin_x;
    m.origin_y = like.origin_y;
    m.scale = like.scale;
    m.nvertices = uint32_t(coords.size() / 2);
    m.coords = coords;
    std::vector<uint32_t> id(dead.size(), kNone);
    for (size_t t = 0; t < dead.size(); ++t) {
      if (!dead[t]) id[t] = m.ntriangles++;
    }
    *dangling = 0;
    for (size_t t = 0; t < dead.size(); ++t) {
      if (dead[t]) continue;
      for (int i = 0; i < 3; ++i) {
        m.tri_v.push_back(tv[3 * t + i]);
        const uint32_t n = tn[3 * t + i];
        const uint32_t r = n == kNone ? kNone : id[n];
        *dangling += n != kNone && r == kNone;
        m.tri_n.push_back(r);
      }
    }
    return m;
  }
};

TEST(download_compacts_and_remaps) {
  if (irgl_test::host_only()) return;
  const irgl::HostMesh m = grid_mesh(3, 2, 1 << 26);  // 12 triangles
  const std::vector<uint32_t> script = {0, 5, 11, 13, 6, 20, 2};  // 13 and 20 are triangles made by splits
  const std::vector<uint32_t> removes = {1, 24};
  irgl::DeviceMesh dm(m, m.ntriangles + 3 * script.size() + 4, m.nvertices + script.size() + 2);
  irgl::DeviceArray<uint32_t> ds(script), dr(removes), err(1, 0u);
  for (int pass = 0; pass < 2; ++pass) {  // the second pass after reset()
    split_script_kernel<<<1, 1>>>(dm.view(), ds.data(), uint32_t(script.size()), dr.data(), 0, err.data());
    IRGL_CHECK_LAUNCH("split_script_kernel");
    SlotMesh ref(m);
    for (uint32_t t : script) ref.split(t);
    uint64_t want_dangling = 1, dangling = 1;
    const irgl::HostMesh want = ref.compact(m, &want_dangling);
    const irgl::HostMesh got = dm.download(&dangling);
    EXPECT_EQ(err.to_host()[0], 0u);
    EXPECT(mesh_equal(got, want));
    EXPECT_EQ(dangling, uint64_t(0));
    EXPECT_EQ(want_dangling, uint64_t(0));
    EXPECT_EQ(irgl::validate_mesh(got), std::string());  // still a valid, counterclockwise mesh
    EXPECT_EQ(got.ntriangles, m.ntriangles + 2 * uint32_t(script.size()));
    EXPECT_EQ(dm.live_triangles(), uint64_t(got.ntriangles));
    EXPECT_EQ(dm.ntriangles(), m.ntriangles + 3 * uint32_t(script.size()));
    EXPECT_EQ(dm.nvertices(), m.nvertices + uint32_t(script.size()));
    EXPECT(!dm.overflowed());
    // Remove two triangles without fixing their neighbours: their neighbours dangle.
    split_script_kernel<<<1, 1>>>(dm.view(), ds.data(), 0, dr.data(), uint32_t(removes.size()), err.data());
    IRGL_CHECK_LAUNCH("split_script_kernel");
    for (uint32_t t : removes) ref.dead[t] = 1;
    const irgl::HostMesh want2 = ref.compact(m, &want_dangling);
    const irgl::HostMesh got2 = dm.download(&dangling);
    EXPECT(mesh_equal(got2, want2));
    EXPECT_EQ(dangling, want_dangling);
    EXPECT(want_dangling > 0);
    EXPECT_EQ(dm.live_triangles(), uint64_t(got2.ntriangles));
    // reset(): back to the input.
    dm.reset(m);
    EXPECT(mesh_equal(dm.download(&dangling), m));
    EXPECT_EQ(dm.ntriangles(), m.ntriangles);
    EXPECT_EQ(dm.nvertices(), m.nvertices);
    EXPECT_EQ(dm.live_triangles(), uint64_t(m.ntriangles));
  }
}

// ---- parallel splits under Exclusive

__global__ void split_round_kernel(irgl::Mesh m, unsigned int* marks, uint8_t* done, uint32_t n0,
                                   unsigned int* successes, uint32_t* err) {
  const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n0 || done[t]) return;
  uint32_t nb[3];
  uint32_t ids[4];
  uint32_t k = 0;
  ids[k++] = t;
  for (uint32_t i = 0; i < 3; ++i) {  // optimistic reads
    nb[i] = m.neighbor(t, i);
    if (nb[i] != kNone) ids[k++] = nb[i];
  }
  if (!irgl::exclusive_acquire(marks, ids, k)) return;
  // Validate what was read: t's neighbours are still those we hold.
  bool ok = !m.deleted(t);
  for (uint32_t i = 0; i < 3; ++i) ok = ok && m.neighbor(t, i) == nb[i];
  if (ok) {
    for (uint32_t i = 0; i < 3; ++i) {
      if (nb[i] == kNone) continue;
      // Under the marks a neighbour is live and has the reversed edge: its
      // vertices were visible once its id was.
      const uint32_t a = m.vertex(t, i), b = m.vertex(t, i + 1);
      bool edge = false;
      for (uint32_t j = 0; j < 3; ++j) edge = edge || (m.vertex(nb[i], j) == b && m.vertex(nb[i], j + 1) == a);
      if (m.deleted(nb[i]) || !edge) atomicOr(err, 8u);
    }
    split_triangle(m, t, nb, err);
    done[t] = 1;
    atomicAdd(successes, 1u);
  }
  irgl::exclusive_release(marks, ids, k);
}

/// Sum of doubled areas (exact) and the number of boundary edges.
std::pair<int64_t, uint64_t> area_and_boundary(const irgl::HostMesh& m) {
  int64_t area = 0;
  uint64_t boundary = 0;
  for (uint32_t t = 0; t < m.ntriangles; ++t) {
    Point p[3];
    for (int i = 0; i < 3; ++i) p[i] = P(m.coords[2 * m.tri_v[3 * t + i]], m.coords[2 * m.tri_v[3 * t + i] + 1]);
    area += (int64_t(p[1].x) - p[0].x) * (int64_t(p[2].y) - p[0].y) -
            (int64_t(p[1].y) - p[0].y) * (int64_t(p[2].x) - p[0].x);
    for (int i = 0; i < 3; ++i) boundary += m.tri_n[3 * t + i] == kNone;
  }
  return {area, boundary};
}

TEST(parallel_splits_under_exclusive) {
  if (irgl_test::host_only()) return;
  const uint32_t g = irgl_test::scale(256);
  const irgl::HostMesh m = grid_mesh(g, g, (1 << 28) / int32_t(g));
  const uint32_t T0 = m.ntriangles, V0 = m.nvertices;
  irgl::DeviceMesh dm(m, 4 * uint64_t(T0), uint64_t(V0) + T0);
  irgl::DeviceArray<unsigned int> marks(4 * size_t(T0), 0u), succ(1);
  irgl::DeviceArray<uint32_t> err(1, 0u);
  irgl::DeviceArray<uint8_t> done(T0);
  const auto before = area_and_boundary(m);
  for (int pass = 0; pass < 2; ++pass) {  // the second after reset(), as --repeat does
    if (pass == 1) dm.reset(m);
    done.zero();
    uint32_t pending = T0, rounds = 0, rounds_without_success = 0;
    while (pending > 0 && rounds < 10000) {
      succ.zero();
      split_round_kernel<<<(T0 + 255) / 256, 256>>>(dm.view(), marks.data(), done.data(), T0, succ.data(),
                                                    err.data());
      IRGL_CHECK_LAUNCH("split_round_kernel");
      const unsigned int s = succ.to_host()[0];
      rounds_without_success += s == 0;
      pending -= std::min(s, pending);
      ++rounds;
    }
    EXPECT_EQ(pending, 0u);
    EXPECT_EQ(rounds_without_success, 0u);
    EXPECT_EQ(err.to_host()[0], 0u);
    const auto mk = marks.to_host();
    EXPECT(std::all_of(mk.begin(), mk.end(), [](unsigned int x) { return x == 0; }));
    EXPECT_EQ(dm.nvertices(), V0 + T0);
    EXPECT_EQ(dm.ntriangles(), 4 * T0);
    EXPECT_EQ(dm.live_triangles(), uint64_t(3) * T0);
    EXPECT(!dm.overflowed());
    uint64_t dangling = 1;
    const irgl::HostMesh out = dm.download(&dangling);
    EXPECT_EQ(dangling, uint64_t(0));
    EXPECT_EQ(out.ntriangles, 3 * T0);
    EXPECT_EQ(irgl::validate_mesh(out), std::string());
    const auto after = area_and_boundary(out);
    EXPECT_EQ(after.first, before.first);
    EXPECT_EQ(after.second, before.second);
    // Every triangle has exactly one new vertex, and every new vertex is in 3 triangles.
    std::vector<uint32_t> uses(out.nvertices, 0);
    uint64_t wrong = 0;
    for (uint32_t t = 0; t < out.ntriangles; ++t) {
      uint32_t fresh = 0;
      for (int i = 0; i < 3; ++i) {
        const uint32_t v = out.tri_v[3 * t + i];
        fresh += v >= V0;
        ++uses[v];
      }
      wrong += fresh != 1;
    }
    for (uint32_t v = V0; v < out.nvertices; ++v) wrong += uses[v] != 3;
    EXPECT_EQ(wrong, uint64_t(0));
    std::printf("     %u triangles split in parallel in %u rounds\n", T0, rounds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "load-child") {
    irgl::load_mesh(argv[2]);  // exits 1 on the bad file
    return 0;
  }
  if (argc > 2 && std::string(argv[1]) == "write-child") {
    irgl::write_mesh(argv[2], grid_mesh(1, 1, 1));  // exits 1
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "overflow-child") {
    irgl::DeviceMesh dm(grid_mesh(2, 1, 10), 10, 8);
    overflow_child_kernel<<<1, 64>>>(dm.view());
    IRGL_CHECK_LAUNCH("overflow_child_kernel");
    dm.check_overflow("refine");  // exits 1
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "capacity-child") {
    irgl::DeviceMesh dm(grid_mesh(2, 1, 10), 3, 6);  // exits 1
    return 0;
  }
  RUN(predicates_hand_cases);
  RUN(make_point_midpoint);
  RUN(split_point);
  RUN(circumcenter_min_angle);
  RUN(predicates_generated_host);
  RUN(predicates_device_matches_host);
  RUN(grid_mesh_by_hand);
  RUN(write_and_read_round_trip);
  RUN(bad_header);
  RUN(bad_size);
  RUN(bad_contents);
  RUN(load_and_write_exit);
  RUN(load_is_fast);
  RUN(overflow_message);
  RUN(device_view);
  RUN(concurrent_adds_until_overflow);
  RUN(check_overflow_exits);
  RUN(download_compacts_and_remaps);
  RUN(parallel_splits_under_exclusive);
  return irgl_test::finish();
}
