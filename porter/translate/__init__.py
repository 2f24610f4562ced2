"""Translate stage: CUDA source in, HIP source out, with a record of every change and every leftover (pure).

`translate(source: bytes, options) -> TranslationResult` for C/C++/CUDA sources and
`translate_build_file(name, source, options) -> TranslationResult` for CMake files and Makefiles. Neither touches
a file. The API map they apply is data (`porter/data/apis/*.toml`, `headers.toml`, `rewrites.toml`,
`buildfiles.toml`) loaded by `load_api_map`; `RocmVersion` and `TranslateOptions` say what the port is for.
"""

from porter.translate.buildfiles import is_build_file, load_build_data, translate_build_file
from porter.translate.core import translate
from porter.translate.device_props import device_prop_fields, rewrite_access
from porter.translate.inline_ptx import looks_like_ptx, rewrite_with_string_macros
from porter.translate.inline_ptx import rewrite as rewrite_inline_ptx
from porter.translate.mapping import CUDA_LOOKING, ApiEntry, ApiMap, HeaderEntry, defined_types, load_api_map
from porter.translate.options import (
    Conversion,
    LaunchSyntax,
    PastedMacro,
    Reason,
    RocmVersion,
    TranslateOptions,
    TranslationResult,
    Unconverted,
)
from porter.translate.pasted_macros import find_pasted_macros

__all__ = [
    "CUDA_LOOKING",
    "ApiEntry",
    "ApiMap",
    "Conversion",
    "HeaderEntry",
    "LaunchSyntax",
    "PastedMacro",
    "Reason",
    "RocmVersion",
    "TranslateOptions",
    "TranslationResult",
    "Unconverted",
    "defined_types",
    "device_prop_fields",
    "find_pasted_macros",
    "is_build_file",
    "load_api_map",
    "load_build_data",
    "looks_like_ptx",
    "rewrite_access",
    "rewrite_inline_ptx",
    "rewrite_with_string_macros",
    "translate",
    "translate_build_file",
]
