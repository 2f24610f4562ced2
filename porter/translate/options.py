"""Options and result records of the pure translation core (no I/O here)."""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field


class LaunchSyntax(enum.StrEnum):
    CHEVRON = "chevron"  # keep kernel<<<g, b, shm, s>>>(args): hipcc accepts it
    HIP = "hip"  # hipLaunchKernelGGL(kernel, dim3(g), dim3(b), shm, s, args)


class Reason(enum.StrEnum):
    NO_HIP_EQUIVALENT = "no HIP equivalent"
    NOT_MAPPED = "not yet mapped"
    NEEDS_AGENT = "needs the agent"
    NEWER_ROCM = "needs a newer ROCm"


@dataclass(frozen=True, order=True)
class RocmVersion:
    major: int
    minor: int = 0

    @classmethod
    def parse(cls, text: str) -> RocmVersion:
        parts = text.strip().split(".")
        try:
            return cls(int(parts[0]), int(parts[1]) if len(parts) > 1 and parts[1] else 0)
        except (ValueError, IndexError):
            raise ValueError(f"not a ROCm version: {text!r} (expected e.g. 6.4)") from None

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@dataclass(frozen=True)
class TranslateOptions:
    launch_syntax: LaunchSyntax = LaunchSyntax.CHEVRON
    rocm: RocmVersion | None = None  # None: assume the newest ROCm the mapping knows
    target: str = "gfx942"
    # old name -> new name for files renamed by --rename (e.g. "kernels.cu" -> "kernels.hip"), matched on the
    # path as written in #include / build files (basename or relative path)
    renamed: tuple[tuple[str, str], ...] = ()
    # identifiers the project defines itself (macros, functions): never reported as untranslated CUDA
    user_symbols: frozenset[str] = frozenset()
    # CUDA type names the project's headers define as its own types (CUDA by Example's `struct cuComplex`): kept
    user_types: frozenset[str] = frozenset()
    # base names of the headers the project itself contains: never reported as unknown CUDA headers
    local_headers: frozenset[str] = frozenset()
    hazard_fixes: bool = True  # apply the safe mechanical hazard fixes (porter.scan.fixes)
    # parse every file whole; by default tree-sitter parses only the pieces whose meaning needs the grammar
    full_parse: bool = False
    # a .cu file, into which nvcc includes cuda_runtime.h before its first line: where its GPU code has nothing
    # else to bring HIP's runtime (no CUDA or HIP include, no quoted include), hip/hip_runtime.h is included
    nvcc_source: bool = False
    # check macros that paste an API prefix onto their argument (`#define cuda(fn) check(cuda##fn)`), agreed across
    # the tree (porter.translate.pasted_macros); None: the file's own definitions decide
    pasted_macros: tuple[PastedMacro, ...] | None = None


@dataclass(frozen=True)
class PastedMacro:
    """A function-like macro whose argument `index` gets `prefix` pasted before its first token (pasted_macros)."""

    name: str
    index: int
    prefix: str
    # the HIP prefix the project's own HIP definition pastes, if it has one: names no CUDA API has (the project's
    # own hipFoo/cudaFoo pair) get it, as that definition would have given them
    hip_prefix: str | None = None


@dataclass(frozen=True)
class Conversion:
    family: str  # "runtime", "driver", "cublas", "header", "launch", "build", "hazard-fix" ...
    cuda: str
    hip: str
    line: int


@dataclass(frozen=True)
class Unconverted:
    name: str
    line: int
    column: int
    reason: Reason
    family: str = ""
    detail: str = ""


@dataclass
class TranslationResult:
    output: bytes
    conversions: list[Conversion] = field(default_factory=list)
    unconverted: list[Unconverted] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # headers/shims the output needs beside it (shim file names under shims/), filled by later stages
    needs_shims: set[str] = field(default_factory=set)
    # for the hazard scan of the output (porter.translate.core.OutputFacts: its layout mapped from the source's and
    # the map-known names in it); None for build files
    output_facts: object | None = field(default=None, repr=False, compare=False)

    def changed(self, source: bytes) -> bool:
        return self.output != source

    def counts_by_family(self) -> dict[str, int]:
        return dict(Counter(c.family for c in self.conversions))
