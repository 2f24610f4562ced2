"""Where the machine's MPI keeps mpi.h: CUDA-aware MPI programs include it, and neither hipcc looks there.

Debian's OpenMPI puts its headers in /usr/lib/x86_64-linux-gnu/openmpi/include, MPICH in
/usr/include/x86_64-linux-gnu/mpich; projects reach them through `mpicxx` or flags a build file computes with
`mpicxx --showme:compile`, which porter does not run. The compiler wrapper says where they are.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
from pathlib import Path


@functools.cache
def mpi_include_dirs() -> tuple[str, ...]:
    """The include folders of the MPI on PATH (OpenMPI's `--showme:incdirs`, MPICH's `-show`), else of $MPI_HOME;
    () when there is none."""
    for tool in ("mpicxx", "mpic++", "mpicc"):
        exe = shutil.which(tool)
        if exe is None:
            continue
        for args in (["--showme:incdirs"], ["-show"]):
            try:
                proc = subprocess.run([exe, *args], capture_output=True, text=True, timeout=30, check=False)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if proc.returncode != 0:
                continue
            words = proc.stdout.split() if args[0].startswith("--") else \
                [w[2:] for w in shlex.split(proc.stdout) if w.startswith("-I")]
            dirs = tuple(d for d in words if Path(d).is_dir())
            if any((Path(d) / "mpi.h").is_file() for d in dirs):
                return dirs
    home = os.environ.get("MPI_HOME") or os.environ.get("MPI_ROOT")
    if home and (Path(home) / "include" / "mpi.h").is_file():
        return (str(Path(home) / "include"),)
    return ()
