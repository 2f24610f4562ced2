#!/usr/bin/env python3
"""What running hipcc inside an installed toolchain's root costs per invocation, and a compile on each toolchain.

    python bench/toolchain_overhead.py [-n 50]

Prints, for every installed toolchain: the runner's own cost (`porter-in-root true`: a private mount namespace,
the bind mounts, chroot) against a bare `chroot ROOT true` (root only) and against running `true` directly, then
the wall time of `hipcc -c` on a one-kernel file for each test arch, next to the system hipcc's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from porter.build import find_toolchains
from porter.build.toolchain import RUNNER

KERNEL = "#include <hip/hip_runtime.h>\n__global__ void k(float* p, float a) { p[threadIdx.x] *= a; }\n"


def _median_ms(cmd: list[str], n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50, help="invocations per measurement (median reported)")
    args = ap.parse_args()
    direct = _median_ms(["true"], args.n)
    print(f"`true` run directly: {direct:.1f} ms (median of {args.n})")
    with tempfile.TemporaryDirectory(prefix="porter-bench-") as tmp:
        src = Path(tmp) / "k.hip"
        src.write_text(KERNEL)
        for t in find_toolchains():
            if t.root is not None:
                runner = str(t.hipcc.with_name(RUNNER))
                through = _median_ms([runner, "true"], args.n)
                line = f"{t.name}: `porter-in-root true` {through:.1f} ms"
                if os.geteuid() == 0:
                    bare = _median_ms(["chroot", str(t.root), "true"], args.n)
                    line += f", bare `chroot ROOT true` {bare:.1f} ms: the runner adds {through - bare:.1f} ms"
                print(line)
            for arch in ("gfx90a", "gfx942", "gfx950"):
                cmd = t.command(f"--offload-arch={arch}", "-c", str(src), "-o", str(src.with_suffix(".o")))
                start = time.perf_counter()
                proc = subprocess.run(cmd, capture_output=True, env={**os.environ, "HIP_PLATFORM": "amd"})
                wall = time.perf_counter() - start
                verdict = f"{wall:.2f} s" if proc.returncode == 0 else "not accepted"
                print(f"  {t.name} (HIP {t.hip_version}) hipcc -c for {arch}: {verdict}")
    print(f"load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (figures are noisy when it is high)")


if __name__ == "__main__":
    main()
