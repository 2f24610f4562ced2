"""Build stage: compiles a written port with the real HIP compiler and says what failed, where.

Takes an output tree and a `Toolchain` (hipcc found on PATH or under ROCM_PATH, with the `--offload-arch`
values it accepts); `HipccEnvironment.compile()` returns a `BuildResult` whose errors are `Diagnostic` records
(file, line, column, severity, message, notes), with flags from compile_commands.json, CMake or a Makefile.
"""

from porter.build.cache import BuildCache
from porter.build.compile_db import HEADER_SUFFIXES, SOURCE_SUFFIXES, walk_files
from porter.build.diagnostics import render_diagnostics
from porter.build.environment import HipccEnvironment
from porter.build.results import BuildResult, Diagnostic, TestResult
from porter.build.toolchain import (
    COMMON_ARCHES,
    ArchChoice,
    Toolchain,
    accepted_arches,
    choose_compile_arch,
    detect_rocm_version,
    detect_toolchain,
)

__all__ = [
    "COMMON_ARCHES", "HEADER_SUFFIXES", "SOURCE_SUFFIXES", "ArchChoice", "BuildCache", "BuildResult", "Diagnostic",
    "HipccEnvironment", "TestResult", "Toolchain", "accepted_arches", "choose_compile_arch", "detect_rocm_version",
    "detect_toolchain", "render_diagnostics", "walk_files",
]
