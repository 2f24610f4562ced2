"""Run the agent's task scheduling on the three-root-causes repository of the tests, and show what it did.

    python scripts/agent_tasks_demo.py [WORKDIR]

It writes the CUDA tree to WORKDIR/proj, starts the scripted OpenAI-compatible server of the tests on 127.0.0.1
(tests/fake_openai_server.py: the "model" answers from a script, it is not a real model), runs
`porter convert proj -o out --target gfx90a -j 2` against it with the real hipcc, and prints porter's summary,
the order in which the server saw the conversations, and the agent part of the report. The README's example
comes from this script.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai_server import MODEL, FakeOpenAIServer  # noqa: E402
from support.task_scenarios import THREE_ROOT_CAUSES, make_tree  # noqa: E402


def main() -> int:
    work = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="porter-tasks-"))
    if (work / "proj").exists() or (work / "out").exists():
        print(f"error: {work} already holds proj/ or out/; give an empty directory", file=sys.stderr)
        return 2
    make_tree(work / "proj", units=5, sums=3, lanes=True)
    env = {**os.environ, "OPENAI_API_KEY": "unused", "HIP_PLATFORM": "amd", "NO_COLOR": "1", "COLUMNS": "120"}
    with FakeOpenAIServer([], conversations=THREE_ROOT_CAUSES) as server:
        cmd = [sys.executable, "-m", "porter", "convert", "proj", "-o", "out", "--target", "gfx90a", "-j", "2",
               "--model", MODEL, "--base-url", server.base_url]
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, check=False)
        arrivals = [server.conversation_of(r.body) for r in server.completions]
    print(f"$ cd {work} && porter convert proj -o out --target gfx90a -j 2 --model {MODEL} --base-url ...")
    print(proc.stderr)
    print(f"exit status {proc.returncode}")
    print("requests, in the order the server saw them:", arrivals)
    report = json.loads((work / "out" / ".porter" / "report.json").read_text())
    agent = report["fix_loop"]["agent"]
    for task in agent["tasks"]:
        task["transcript"] = os.path.relpath(task["transcript"], work / "out")
        task["errors"] = task["errors"][:2]
    agent["transcripts"] = os.path.relpath(agent["transcripts"], work / "out")
    print(json.dumps({"fix_loop": {"agent": agent}}, indent=2, ensure_ascii=False))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
