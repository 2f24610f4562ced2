"""Function-calling schemas of the agent's tools (OpenAI `tools=` format). Data only; see tools.py for behaviour."""

from __future__ import annotations


def _tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


_PATH = {"type": "string", "description": "File path relative to the root of the ported tree."}

TOOLS: list[dict] = [
    _tool(
        "read_file",
        "Read a text file of the ported tree, with line numbers. Use start_line/end_line (1-based, inclusive) "
        "for large files.",
        {
            "path": _PATH,
            "start_line": {"type": "integer", "description": "First line to show (1-based)."},
            "end_line": {"type": "integer", "description": "Last line to show (inclusive)."},
        },
        ["path"],
    ),
    _tool(
        "replace_in_file",
        "Replace one exact occurrence of `old` with `new` in a file. `old` must match exactly once, whitespace "
        "included; add surrounding lines to make it unique.",
        {
            "path": _PATH,
            "old": {"type": "string", "description": "Exact text to replace (must occur exactly once)."},
            "new": {"type": "string", "description": "Replacement text."},
        },
        ["path", "old", "new"],
    ),
    _tool(
        "write_file",
        "Create or overwrite a whole file. Prefer replace_in_file for small edits.",
        {"path": _PATH, "content": {"type": "string", "description": "The complete new file content."}},
        ["path", "content"],
    ),
    _tool(
        "compile",
        "Build the port (or only one file when `path` is given) with hipcc and return the diagnostics.",
        {"path": {"type": "string", "description": "Optional: compile only this file."}},
        [],
    ),
    _tool("run_tests", "Run the project's configured test command and return its output.", {}, []),
    _tool(
        "finish",
        "Call when the port builds (and its tests pass). porter verifies the build before accepting.",
        {"summary": {"type": "string", "description": "What you changed and why, in a few sentences."}},
        ["summary"],
    ),
]

TOOL_NAMES: tuple[str, ...] = tuple(t["function"]["name"] for t in TOOLS)
