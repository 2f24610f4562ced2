"""Regenerate tests/data/cases/*/expected from the current translator. Review the diff before committing."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from golden_cases import case_dirs, convert_case

from porter.files import STATE_DIR


def main(names: list[str]) -> None:
    for case in case_dirs():
        if names and case.name not in names:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            convert_case(case, case / "input", out)
            shutil.rmtree(out / STATE_DIR, ignore_errors=True)
            shutil.rmtree(case / "expected", ignore_errors=True)
            shutil.copytree(out, case / "expected", symlinks=True)
        print(f"regenerated {case.name}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
