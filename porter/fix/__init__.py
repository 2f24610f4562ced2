"""Shim and fix stage: makes a written port build, after translation.

`run_fix_loop(out_root, config, report, files) -> FixLoopOutcome` builds the port (porter.build), applies the
rule fixers (`porter/data/fixers.toml`) and the compatibility shims (`shims/`) to the errors, hands what is left
to the agent (porter.agent) when a model is configured, and runs the user's tests. `needed_shims` and
`install_shims` are also used at convert time, so a port carries the shims it needs even with `--no-build`.
"""

from porter.fix.loop import MODEL_HELP, FixLoopOutcome, LoopStatus, errors_remain, run_fix_loop
from porter.fix.rules import FixApplied, apply_fixers
from porter.fix.shims import OUT_DIRNAME, SHIMS_DIR, add_shim_include, all_shims, install_shims, needed_shims

__all__ = [
    "MODEL_HELP", "OUT_DIRNAME", "SHIMS_DIR", "FixApplied", "FixLoopOutcome", "LoopStatus", "add_shim_include", "all_shims",
    "apply_fixers", "errors_remain", "install_shims", "needed_shims", "run_fix_loop",
]
