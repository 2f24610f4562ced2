"""The repository the agent-task tests (and scripts/agent_tasks_demo.py) port: three root causes of build errors
after translation, and the scripted model's fixes for each.

- `common.cuh` uses TILE_SIZE, which the CUDA build passed with -D; five units include it, and each of them also
  fails ("reference to __host__ variable 'kTile'") only because of it;
- `__vimax_s32_relu` (a CUDA 12 DPX intrinsic), which HIP lacks and no porter shim provides, used in three files
  (the scripted model swaps in a helper of its own; these tests check the agent's task handling, not the arithmetic.
  They used `__reduce_add_sync` until porter_warp_reduce.h made it build);
- `lanes.cu`, with inline PTX of its own.
"""

from __future__ import annotations

from pathlib import Path

from fake_openai_server import Turn, call, reply

COMMON = """#pragma once
#include <cuda_runtime.h>

constexpr int kTile = TILE_SIZE;

__device__ inline float tile_scale(int i) { return 1.0f / (1 + i % kTile); }
"""
UNIT = """#include <cuda_runtime.h>
#include "common.cuh"

__global__ void scale{n}(float* out) {{
    __shared__ float buf[kTile];
    buf[threadIdx.x % kTile] = out[threadIdx.x] * tile_scale(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x % kTile];
}}
"""
SUM = """#include <cuda_runtime.h>

__global__ void block_sum{n}(const int* in, int* out) {{
    int v = in[threadIdx.x];
    int total = __vimax_s32_relu(0xffffffff, v);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}}
"""
LANES = """#include <cuda_runtime.h>

__device__ unsigned lane_id() {
    unsigned lane;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(lane));
    return lane;
}

__global__ void lanes(unsigned* out) { out[threadIdx.x] = lane_id(); }
"""
WAVE_REDUCE = """#pragma once
#include <hip/hip_runtime.h>

// porter: the scripted model's stand-in for __vimax_s32_relu, which has no HIP counterpart
__device__ inline int wave_reduce_add(unsigned long long mask, int v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
    return v;
}
"""
INCLUDE_HIP = "#include <hip/hip_runtime.h>\n"
WITH_WAVE = '#include <hip/hip_runtime.h>\n#include "wave_reduce.cuh"\n'

FIX_HEADER = call("replace_in_file", {
    "path": "common.cuh", "old": "constexpr int kTile = TILE_SIZE;",
    "new": "#ifndef TILE_SIZE\n#define TILE_SIZE 64  // porter: the CUDA build passed -DTILE_SIZE=64\n#endif\n"
           "constexpr int kTile = TILE_SIZE;"})
FIX_LANES = call("replace_in_file", {"path": "lanes.cu", "old": '    asm volatile("mov.u32 %0, %%warpid;" : "=r"(lane));',
                                     "new": "    lane = threadIdx.x / warpSize;"})


def finish(summary: str) -> Turn:
    return reply(call("finish", {"summary": summary}))


def fix_sums(*numbers: int) -> Turn:
    calls = [call("write_file", {"path": "wave_reduce.cuh", "content": WAVE_REDUCE})]
    for n in numbers:
        calls.append(call("replace_in_file", {"path": f"sum{n}.cu", "old": INCLUDE_HIP, "new": WITH_WAVE}))
        calls.append(call("replace_in_file", {"path": f"sum{n}.cu", "old": "__vimax_s32_relu(", "new": "wave_reduce_add("}))
    return reply(*calls)


def make_tree(root: Path, *, units: int = 0, sums: int = 0, lanes: bool = False) -> Path:
    root.mkdir(parents=True)
    if units:
        (root / "common.cuh").write_text(COMMON)
    for n in range(1, units + 1):
        (root / f"u{n}.cu").write_text(UNIT.format(n=n))
    for n in range(1, sums + 1):
        (root / f"sum{n}.cu").write_text(SUM.format(n=n))
    if lanes:
        (root / "lanes.cu").write_text(LANES)
    return root



THREE_ROOT_CAUSES = {
    "header common.cuh": [reply(FIX_HEADER), finish("TILE_SIZE came from the CUDA build's flags: default it to 64")],
    "`__vimax_s32_relu`": [fix_sums(1, 2, 3), finish("__vimax_s32_relu -> a wavefront butterfly in wave_reduce.cuh")],
    "unit lanes.cu": [reply(FIX_LANES), finish("inline PTX %warpid -> threadIdx.x / warpSize")],
    # the units' own errors are consequences of the header: their task must never be asked for
    "`kTile`": [],
}
