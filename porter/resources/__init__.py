"""Files porter ships beside its code: the compatibility shims, the agent's prompt templates, the toolchain runner.

They live at the repository root (`shims/`, `prompts/`, `toolchain/`) where reviewers find them; the links here put
them inside the package, so a wheel carries them and an editable install reads them in place.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """`shims`, `prompts` or `toolchain`, whether porter runs from a checkout or from an installed wheel."""
    return RESOURCES / name
