"""JSONL transcript of an agent run: one event per line, flushed as it happens, secrets scrubbed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO

from porter.agent.redact import scrub


class Transcript:
    def __init__(self, path: Path | None, secrets: tuple[str | None, ...] = ()) -> None:
        self.path = path
        self._secrets = secrets
        self._handle: IO[str] | None = None
        self._start = time.monotonic()
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = path.open("w", encoding="utf-8")

    def event(self, kind: str, **fields: object) -> None:
        if self._handle is None:
            return
        record = {"event": kind, "t": round(time.monotonic() - self._start, 3), **fields}
        line = json.dumps(record, ensure_ascii=False, default=str)
        self._handle.write(scrub(line, self._secrets) + "\n")
        self._handle.flush()  # a crash or Ctrl-C still leaves everything up to here

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_transcript(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
