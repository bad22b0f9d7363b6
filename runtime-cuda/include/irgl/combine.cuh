// irgl/combine.cuh -- reductions over the iterations of a nested ForAll (`Reduce (sum: t)`).
//
// A `ForAll (e In g.edges(n)) Reduce (op: t) { ... }` combines into `t` over the loop's
// iterations. When the block's schedulers spread an item's iterations over other threads,
// every thread that runs iterations combines them into a register (a partial, from the
// combiner's identity); the partials of one item are combined with warp shuffles where the
// lanes share the item, and into the item's slot in shared memory (`slot_t`, seeded with the
// owner's `t`) with one shared-memory atomic per warp or segment; the owner reads the slot
// back when the loop ends. The functions here are those steps, per combiner and type.
//
// Combiners: Sum (integers wrap as in C; floats in an unspecified order), Min, Max (floats:
// NaN-free inputs combine as fminf/fmaxf would), Any, All (bool, kept as `unsigned` in shared
// memory: shared atomics have no bool form), Or, And (the bits of integers).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda/std/limits>
#include <cuda_runtime.h>

namespace irgl {

enum class Combiner { Sum, Min, Max, Any, All, Or, And };

/// The shared-memory slot of a reduced value: the value's type, `unsigned` for bool.
template <typename T>
using slot_t = typename std::conditional<std::is_same<T, bool>::value, unsigned, T>::type;

/// The identity of `C` over `T`: combining it changes nothing.
template <Combiner C, typename T>
__host__ __device__ __forceinline__ T identity() {
  if constexpr (C == Combiner::Sum) {
    return T(0);
  } else if constexpr (C == Combiner::Min) {
    if constexpr (std::is_floating_point<T>::value) {
      return cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::max();
    }
  } else if constexpr (C == Combiner::Max) {
    if constexpr (std::is_floating_point<T>::value) {
      return -cuda::std::numeric_limits<T>::infinity();
    } else {
      return cuda::std::numeric_limits<T>::lowest();
    }
  } else if constexpr (C == Combiner::Any) {
    return false;
  } else if constexpr (C == Combiner::All) {
    return true;
  } else if constexpr (C == Combiner::Or) {
    return T(0);
  } else {
    return static_cast<T>(~T(0));
  }
}

/// `a` combined with `b`.
template <Combiner C, typename T>
__host__ __device__ __forceinline__ T combine(T a, T b) {
  if constexpr (C == Combiner::Sum) {
    return static_cast<T>(a + b);
  } else if constexpr (C == Combiner::Min) {
    return b < a ? b : a;
  } else if constexpr (C == Combiner::Max) {
    return a < b ? b : a;
  } else if constexpr (C == Combiner::Any) {
    return a || b;
  } else if constexpr (C == Combiner::All) {
    return a && b;
  } else if constexpr (C == Combiner::Or) {
    return static_cast<T>(a | b);
  } else {
    return static_cast<T>(a & b);
  }
}

namespace detail {

/// `__shfl_xor_sync` / `__shfl_up_sync` for every reducible type (bool as int).
template <typename T>
__device__ __forceinline__ T shfl_xor(unsigned mask, T v, int lane_mask, int width) {
  if constexpr (std::is_same<T, bool>::value) {
    return __shfl_xor_sync(mask, static_cast<int>(v), lane_mask, width) != 0;
  } else {
    return __shfl_xor_sync(mask, v, lane_mask, width);
  }
}

template <typename T>
__device__ __forceinline__ T shfl_up(unsigned mask, T v, unsigned delta) {
  if constexpr (std::is_same<T, bool>::value) {
    return __shfl_up_sync(mask, static_cast<int>(v), delta) != 0;
  } else {
    return __shfl_up_sync(mask, v, delta);
  }
}

/// A compare-and-swap loop for the combinations shared memory has no atomic for.
template <Combiner C, typename T, typename Bits>
__device__ __forceinline__ void cas_combine(T* p, T v) {
  Bits* bits = reinterpret_cast<Bits*>(p);
  Bits old = *reinterpret_cast<volatile Bits*>(bits);
  for (;;) {
    const T now = *reinterpret_cast<const T*>(&old);
    const T next = combine<C, T>(now, v);
    if (next == now) return;
    const Bits want = *reinterpret_cast<const Bits*>(&next);
    const Bits seen = atomicCAS(bits, old, want);
    if (seen == old) return;
    old = seen;
  }
}

}  // namespace detail

/// `*p = combine(*p, v)` atomically (shared or global memory).
template <Combiner C, typename T>
__device__ __forceinline__ void combine_atomic(slot_t<T>* p, T v) {
  if constexpr (std::is_same<T, bool>::value) {
    if constexpr (C == Combiner::Any) {
      if (v) atomicOr(p, 1u);
    } else {
      if (!v) atomicAnd(p, 0u);
    }
  } else if constexpr (C == Combiner::Or || C == Combiner::And) {
    // The bits of an integer: the unsigned atomics of its width.
    using Bits = typename std::conditional<sizeof(T) == 8, unsigned long long, unsigned>::type;
    static_assert(std::is_integral<T>::value && sizeof(T) == sizeof(Bits), "a 32- or 64-bit integer");
    auto* q = reinterpret_cast<Bits*>(p);
    if constexpr (C == Combiner::Or) atomicOr(q, static_cast<Bits>(v));
    else atomicAnd(q, static_cast<Bits>(v));
  } else if constexpr (std::is_floating_point<T>::value && C != Combiner::Sum) {
    using Bits = typename std::conditional<sizeof(T) == 8, unsigned long long, unsigned>::type;
    detail::cas_combine<C, T, Bits>(p, v);
  } else if constexpr (std::is_integral<T>::value && sizeof(T) == 8) {
    // 64-bit integers (int64_t is `long` or `long long`): the atomics' own 64-bit types.
    if constexpr (C == Combiner::Sum) {
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    } else if constexpr (std::is_signed<T>::value) {
      auto* q = reinterpret_cast<long long*>(p);
      if constexpr (C == Combiner::Min) atomicMin(q, static_cast<long long>(v));
      else atomicMax(q, static_cast<long long>(v));
    } else {
      auto* q = reinterpret_cast<unsigned long long*>(p);
      if constexpr (C == Combiner::Min) atomicMin(q, static_cast<unsigned long long>(v));
      else atomicMax(q, static_cast<unsigned long long>(v));
    }
  } else if constexpr (C == Combiner::Sum) {
    atomicAdd(p, v);
  } else if constexpr (C == Combiner::Min) {
    atomicMin(p, v);
  } else {
    atomicMax(p, v);
  }
}

/// `*p = combine(*p, v)` by the one thread that owns the slot at this time.
template <Combiner C, typename T>
__device__ __forceinline__ void combine_into(slot_t<T>* p, T v) {
  *p = static_cast<slot_t<T>>(combine<C, T>(static_cast<T>(*p), v));
}

/// The combination of `v` over the lanes of each aligned group of `WIDTH` lanes (2, 4, 8,
/// 16 or 32), in every lane of the group. All 32 lanes of the warp must call it together.
template <Combiner C, int WIDTH, typename T>
__device__ __forceinline__ T group_combine(T v) {
  static_assert(WIDTH >= 2 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "a power of two");
#pragma unroll
  for (int d = WIDTH / 2; d > 0; d /= 2) {
    v = combine<C, T>(v, detail::shfl_xor(0xffffffffu, v, d, WIDTH));
  }
  return v;
}

/// A segmented inclusive combination over the warp's lanes: lanes with equal `key` must be
/// consecutive (as the fine-grained scheduler's owners are). Returns, in the last lane of
/// each segment, the combination of the segment's values, and sets `tail` there (and only
/// there). All 32 lanes of the warp must call it together.
template <Combiner C, typename T>
__device__ __forceinline__ T segmented_combine(T v, uint32_t key, bool& tail) {
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (unsigned d = 1; d < 32; d *= 2) {
    const T up = detail::shfl_up(0xffffffffu, v, d);
    const uint32_t up_key = __shfl_up_sync(0xffffffffu, key, d);
    if (lane >= d && up_key == key) v = combine<C, T>(v, up);
  }
  const uint32_t next_key = __shfl_down_sync(0xffffffffu, key, 1);
  tail = lane == 31u || next_key != key;
  return v;
}

}  // namespace irgl
