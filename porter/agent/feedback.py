"""Turning build/test results and task facts into text for the model, truncated so it fits a context window."""

from __future__ import annotations

from porter.agent.types import AgentTask
from porter.build import BuildResult, Diagnostic, TestResult

MAX_DIAGNOSTICS = 25
MAX_OUTPUT_CHARS = 6_000
MAX_OUTPUT_LINES = 120

# words in findings/errors that call for the extra guidance templates
_WAVE_WORDS = ("warp", "wavefront", "wave64", "lane", "ballot", "shfl", "activemask", "warpsize")
_PTX_WORDS = ("asm", "ptx", "inline assembly", "constraint")


def truncate(text: str, max_chars: int = MAX_OUTPUT_CHARS, max_lines: int = MAX_OUTPUT_LINES) -> str:
    """Keep the head (first errors) and the tail (summary lines), drop the middle."""
    lines = text.splitlines()
    if len(lines) <= max_lines and len(text) <= max_chars:
        return text
    head_n, tail_n = max_lines * 2 // 3, max_lines // 3
    if len(lines) > max_lines:
        omitted = len(lines) - head_n - tail_n
        lines = [*lines[:head_n], f"[... {omitted} lines omitted ...]", *lines[-tail_n:]]
    out = "\n".join(lines)
    if len(out) > max_chars:
        half = max_chars // 2
        out = f"{out[: half + half // 2]}\n[... {len(out) - max_chars} characters omitted ...]\n{out[-(half // 2) :]}"
    return out


def format_diagnostics(diagnostics: list[Diagnostic], limit: int = MAX_DIAGNOSTICS) -> list[str]:
    shown = [truncate(d.format(), 2_000, 30) for d in diagnostics[:limit]]
    if len(diagnostics) > limit:
        shown.append(f"[... and {len(diagnostics) - limit} more]")
    return shown


def build_view(result: BuildResult, errors: list[Diagnostic] | None = None) -> dict:
    """Template variables describing a build; `errors` narrows it to one task's (the others are only counted)."""
    shown = result.errors if errors is None else errors
    return {
        "ok": result.ok,
        "command": result.command,
        "errors": format_diagnostics(shown),
        "error_count": len(shown),
        "others": len(result.errors) - len(shown),  # errors of the same units that belong to other tasks
        # raw output only when the parsed diagnostics don't tell the story (linker errors, crashes)
        "output": "" if result.errors or result.ok else truncate(result.output),
    }


def format_view(view: dict) -> str:
    parts = [f"Build failed ({view['error_count']} errors)." + (f" Command: {view['command']}" if view["command"] else "")]
    if view["others"]:
        parts.append(f"({view['others']} other errors in these units belong to other tasks; leave them.)")
    parts += view["errors"]
    if view["output"]:
        parts.append(view["output"])
    return "\n".join(parts)


def format_build(result: BuildResult) -> str:
    if result.ok:
        warnings = [d for d in result.diagnostics if d.severity == "warning"]
        return "Build succeeded." + (f" ({len(warnings)} warnings)" if warnings else "")
    return format_view(build_view(result))


def format_tests(result: TestResult | None) -> str:
    if result is None:
        return "No test command is configured for this port."
    head = "Tests passed." if result.ok else f"Tests failed (exit status {result.returncode})."
    return "\n".join(filter(None, [head, f"Command: {result.command}" if result.command else "", truncate(result.output)]))


def _mentions(words: tuple[str, ...], texts: list[str]) -> bool:
    return any(word in text.lower() for text in texts for word in words)


def guidance_flags(task: AgentTask) -> dict[str, bool]:
    """Which extra guidance sections the task needs (warp-size repair, inline PTX)."""
    finding_texts = [
        " ".join(str(f.get(k, "")) for k in ("rule", "category", "message")) for f in task.findings
    ]
    error_texts = [d.message for d in task.errors]
    texts = finding_texts + error_texts + ([task.test_failure] if task.test_failure else [])
    return {
        "wave64": task.target.wavefront != 32 and _mentions(_WAVE_WORDS, texts),
        "inline_ptx": _mentions(_PTX_WORDS, finding_texts + error_texts),
    }
