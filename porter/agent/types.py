"""Records passed between the agent loop, the model and the caller."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from porter.build import Diagnostic
from porter.targets import TargetProfile


@dataclass
class AgentTask:
    """What the agent is asked to repair in the output tree."""

    errors: list[Diagnostic]
    target: TargetProfile
    findings: list[dict] = field(default_factory=list)  # open hazard findings: file,line,rule,category,severity,message,fix
    test_failure: str | None = None
    hip_version: str | None = None
    compile_arch: str = ""  # what hipcc actually compiles for (may differ from target.arch)
    tuning: list[str] = field(default_factory=list)  # porter tune's launch facts, one line per launch site
    # one root cause of a larger build (porter.agent.scheduler): the variables of prompts/focused_task.md.j2
    # (the code around the errors, the files, the lessons of earlier tasks), and the errors its units had before
    # it started. `finish` then needs only `errors` gone, and no new ones in the files it edited.
    focus: dict | None = None
    baseline: list[Diagnostic] | None = None


@dataclass
class AgentOutcome:
    status: str  # "submitted" | "limits_exceeded" | "model_error"
    message: str
    iterations: int = 0
    tokens: int = 0
    edited_files: list[str] = field(default_factory=list)
    build_ok: bool = False
    tests_ok: bool | None = None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model sent it; parsed (and validated) by the tool layer


@dataclass
class ModelResponse:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    finish_reason: str | None = None
    cached: bool = False  # replayed from the response cache, no request made

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def assistant_message(self) -> dict:
        """The message to append to the conversation history (OpenAI chat format)."""
        message: dict = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return message

    def to_dict(self) -> dict:
        data = asdict(self)
        data.pop("cached")
        return data

    @classmethod
    def from_dict(cls, data: dict) -> ModelResponse:
        calls = [ToolCall(**c) for c in data.get("tool_calls", [])]
        return cls(
            content=data.get("content"),
            tool_calls=calls,
            prompt_tokens=int(data.get("prompt_tokens", 0)),
            completion_tokens=int(data.get("completion_tokens", 0)),
            model=data.get("model", ""),
            finish_reason=data.get("finish_reason"),
        )
