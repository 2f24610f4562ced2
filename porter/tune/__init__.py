"""Tune stage: an analytical launch-configuration model for the target chip; it never runs a kernel.

Takes a CUDA or HIP tree, a target profile and the toolchains porter found (hipcc for the AMD target, nvcc for the
CUDA original where installed). Returns a `TuneReport`: per kernel, what the real compilers say it uses (VGPRs,
AGPRs, SGPRs, LDS, scratch; registers and shared memory on the NVIDIA arch); per launch site, the block size,
dynamic LDS and grid resolved from constants (or "unknown"), the predicted occupancy and what limits it, the
wave quantization of the grid over the chip's CUs, and better block sizes marked safe or not with the reason.
`plan_edits` turns the safe suggestions into edits (launch sites, `__launch_bounds__`) that the caller writes and
`porter review` shows like any other change. The model is in `model.py` (formulas and sources in its docstring).
"""

from porter.tune.analyze import TuneOptions, TuneReport, analyze, kernel_dict, report_dict, site_dict
from porter.tune.cli import select_toolchain, tune
from porter.tune.edits import FileEdit, plan_edits
from porter.tune.facts import PortFacts, port_facts
from porter.tune.formats import hints, render_json, render_markdown, render_table, side_by_side
from porter.tune.launches import parse_assumptions
from porter.tune.model import (
    AmdChip,
    AmdUsage,
    Convention,
    NoModelError,
    NvidiaChip,
    NvidiaUsage,
    Occupancy,
    Quantization,
    amd_chip,
    amd_chips,
    amd_occupancy,
    better_block_sizes,
    compiler_convention,
    nvidia_chip,
    nvidia_occupancy,
    quantize,
)
from porter.tune.truth import Agreement, agreement
from porter.tune.usage import (
    AmdKernelUsage,
    CudaKernelUsage,
    clang_major,
    find_nvcc,
    parse_amd_remarks,
    parse_ptxas,
)

__all__ = [
    "Agreement", "AmdChip", "AmdKernelUsage", "AmdUsage", "Convention", "CudaKernelUsage", "FileEdit", "NoModelError",
    "NvidiaChip", "NvidiaUsage", "Occupancy", "PortFacts", "Quantization", "TuneOptions", "TuneReport", "agreement",
    "amd_chip",
    "amd_chips", "amd_occupancy", "analyze", "better_block_sizes", "clang_major", "compiler_convention", "find_nvcc",
    "hints", "kernel_dict", "nvidia_chip", "nvidia_occupancy", "parse_amd_remarks", "parse_assumptions", "parse_ptxas",
    "plan_edits", "port_facts", "quantize", "render_json", "render_markdown", "render_table", "report_dict", "select_toolchain",
    "side_by_side", "site_dict", "tune",
]
