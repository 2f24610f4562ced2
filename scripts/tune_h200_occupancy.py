"""Record the CUDA runtime's occupancy for porter tune's corpus on a real H200, once, as test data.

    python scripts/tune_h200_occupancy.py build DIR      # here: nvcc -arch=sm_90 -Xptxas -v -> DIR/tune_occupancy,
                                                          #       DIR/ptxas.txt (needs nvcc, no GPU)
    DIR/tune_occupancy > h200.jsonl                        # on the H200 (device properties, then one row per
                                                          #       kernel x block size x dynamic shared memory)
    python scripts/tune_h200_occupancy.py record DIR/ptxas.txt h200.jsonl   # here: -> tests/data/tune/

The recorded table (tests/data/tune/h200_occupancy.json) holds, per row, what ptxas reported (registers, static
shared memory) and what cudaOccupancyMaxActiveBlocksPerMultiprocessor answered; tests/test_tune_model.py checks that
porter's sm_90 model still reproduces every row. The raw ptxas output is kept beside it (h200_ptxas.txt) so the
parser is tested on real output.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "tune" / "corpus"
DATA = ROOT / "tests" / "data" / "tune"
sys.path.insert(0, str(ROOT))

from porter.tune import parse_ptxas  # noqa: E402

_TEMPLATE = re.compile(r"^_Z\d+(?P<name>tune_\w+?)ILi(?P<block>\d+)EE")


def build(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cmd = ["nvcc", "-arch=sm_90", "-O3", "-Xptxas", "-v", f"-I{CORPUS}", str(CORPUS / "corpus.cu"), "-o",
           str(out / "tune_occupancy")]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    (out / "ptxas.txt").write_text(proc.stdout + proc.stderr, "utf-8")
    if proc.returncode:
        sys.exit(f"nvcc failed:\n{proc.stderr[-2000:]}")
    print(f"built {out / 'tune_occupancy'}; ptxas output in {out / 'ptxas.txt'}")


def record(ptxas_path: Path, runtime_path: Path) -> None:
    ptxas_text = ptxas_path.read_text("utf-8")
    usage = {}
    for k in parse_ptxas(ptxas_text):
        m = _TEMPLATE.match(k.symbol)
        if m:
            usage[(m.group("name"), int(m.group("block")))] = k.usage
    lines = [json.loads(line) for line in runtime_path.read_text("utf-8").splitlines() if line.strip()]
    device, rows = lines[0], []
    for row in lines[1:]:
        if row.get("error"):
            continue
        ptx = usage[(row["kernel"], row["block"])]
        rows.append({"kernel": row["kernel"], "block": row["block"], "dynamic_smem": row["dynamic_smem"],
                     "ptxas_registers": ptx.registers, "ptxas_smem": ptx.smem_bytes,
                     "runtime_registers": row["regs"], "runtime_static_smem": row["static_smem"],
                     "blocks_per_sm": row["blocks_per_sm"]})
    columns = list(rows[0]) if rows else []
    body = ",\n".join(json.dumps([row[c] for c in columns]) for row in rows)
    text = (f'{{"device": {json.dumps(device)},\n"script": "scripts/tune_h200_occupancy.py",\n'
            f'"columns": {json.dumps(columns)},\n"rows": [\n{body}\n]}}\n')
    (DATA / "h200_occupancy.json").write_text(text, "utf-8")
    (DATA / "h200_ptxas.txt").write_text(ptxas_text, "utf-8")
    print(f"recorded {len(rows)} rows from {device.get('device')} into {DATA / 'h200_occupancy.json'}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "build":
        build(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "record":
        record(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
