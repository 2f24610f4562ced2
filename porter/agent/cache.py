"""Response cache: re-running the same port replays the model's answers instead of asking again."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from porter.agent.protocols import Model
from porter.agent.redact import scrub
from porter.agent.types import ModelResponse

CACHE_VERSION = 1


def request_key(model: str, messages: list[dict], tools: list[dict]) -> str:
    """Hash of everything that determines the answer (the endpoint URL and key deliberately excluded)."""
    payload = {"v": CACHE_VERSION, "model": model, "messages": messages, "tools": tools}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachedModel:
    """Wraps a Model; answers from `<cache_dir>/<key>.json` when the exact request was seen before."""

    def __init__(self, inner: Model, cache_dir: Path, model_name: str, secrets: tuple[str | None, ...] = ()) -> None:
        self.inner = inner
        self.cache_dir = cache_dir
        self.model_name = model_name
        self._secrets = secrets
        self.hits = 0
        self.misses = 0

    def query(self, messages: list[dict], tools: list[dict]) -> ModelResponse:
        key = request_key(self.model_name, messages, tools)
        path = self.cache_dir / f"{key}.json"
        cached = self._load(path)
        if cached is not None:
            self.hits += 1
            return cached
        self.misses += 1
        response = self.inner.query(messages, tools)
        self._store(path, response)
        return response

    def _load(self, path: Path) -> ModelResponse | None:
        try:
            data = json.loads(path.read_text("utf-8"))
            response = ModelResponse.from_dict(data["response"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing or corrupt entry: ask the model
        response.cached = True
        return response

    def _store(self, path: Path, response: ModelResponse) -> None:
        text = json.dumps({"model": self.model_name, "response": response.to_dict()}, ensure_ascii=False, indent=1)
        text = scrub(text, self._secrets)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs a repeat request later
