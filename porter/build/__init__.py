"""Build stage: compiles a written port with the real HIP compiler and says what failed, where.

Takes an output tree and a `Toolchain` (the system's hipcc on PATH or under ROCM_PATH, one named by
`PORTER_HIPCC` or `--toolchain`, or one `porter toolchain install` provisioned; `resolve_toolchain` picks it,
`accepted_arches` says which `--offload-arch` values it takes); `HipccEnvironment.build()` returns a
`BuildResult` whose errors are `Diagnostic` records (file, line, column, severity, message, notes), with flags from
compile_commands.json, CMake or a Makefile. `provision` installs and removes toolchains; `cli` is `porter toolchain`.
"""

from porter.build.cache import BuildCache
from porter.build.cli import toolchain_app
from porter.build.compile_db import HEADER_SUFFIXES, SOURCE_SUFFIXES, skip_kind, walk_files
from porter.build.diagnostics import render_diagnostics
from porter.build.environment import HipccEnvironment
from porter.build.provision import Limit, ProvisionError, absent_for, limits_for, toolchain_specs
from porter.build.results import BuildResult, Diagnostic, TestResult
from porter.build.toolchain import (
    COMMON_ARCHES,
    ArchChoice,
    Toolchain,
    ToolchainError,
    accepted_arches,
    choose_compile_arch,
    compile_probe,
    detect_rocm_version,
    detect_toolchain,
    find_toolchains,
    hip_version,
    installed_toolchains,
    resolve_toolchain,
)

__all__ = [
    "COMMON_ARCHES", "HEADER_SUFFIXES", "SOURCE_SUFFIXES", "ArchChoice", "BuildCache", "BuildResult", "Diagnostic",
    "HipccEnvironment", "Limit", "ProvisionError", "TestResult", "Toolchain", "ToolchainError", "absent_for",
    "accepted_arches", "choose_compile_arch", "compile_probe", "detect_rocm_version", "detect_toolchain",
    "find_toolchains", "hip_version", "installed_toolchains", "limits_for", "render_diagnostics", "resolve_toolchain",
    "skip_kind", "toolchain_app", "toolchain_specs", "walk_files",
]
