"""Exceptions that end the agent loop; each carries the message reported to the caller."""

from __future__ import annotations


class AgentStop(Exception):  # control flow, not an error
    """Base: ends the loop. `status` becomes AgentOutcome.status."""

    status = "model_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Submitted(AgentStop):
    status = "submitted"


class LimitsExceeded(AgentStop):
    status = "limits_exceeded"


class ModelUnavailable(AgentStop):
    """The endpoint failed (after retries) or rejected the request; also used for setup errors."""

    status = "model_error"


class PromptError(RuntimeError):
    """A prompt template is missing or needs a variable that was not given."""
