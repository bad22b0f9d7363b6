// irgl/runtime.cuh -- the whole irgl device runtime (umbrella header).
// Header-only, C++17, CUDA 13; sm_90 (and sm_80). See runtime-cuda/README.md.
#pragma once

#include "check.cuh"
#include "warp.cuh"
#include "block.cuh"
#include "array.cuh"
#include "graph.cuh"
#include "worklist.cuh"
#include "queue.cuh"
#include "reduce.cuh"
#include "accumulate.cuh"
#include "combine.cuh"
#include "lock.cuh"
#include "exclusive.cuh"
#include "local.cuh"
#include "mesh.cuh"
#include "grid.cuh"
#include "sched.cuh"
#include "grid_items.cuh"
#include "timer.cuh"
#include "host.cuh"
#include "ops.cuh"
