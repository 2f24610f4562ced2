"""Keep secrets (the API key) out of everything porter writes or prints."""

from __future__ import annotations

from collections.abc import Iterable

REDACTED = "[redacted]"


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:  # very short values would mangle ordinary text
            text = text.replace(secret, REDACTED)
    return text
