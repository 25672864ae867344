"""Why an agent could not finish its job."""

from __future__ import annotations


class AgentError(Exception):
    """An agent could not produce its outcome."""

    def __init__(self, agent: str, reason: str) -> None:
        super().__init__(f"{agent}: {reason}")
        self.agent = agent
        self.reason = reason


class AgentRunError(AgentError):
    """The driver ended the run with an error result (max turns, API error, refusal…)."""


class PlanError(AgentError):
    """The architect did not deliver a usable plan, or the plan could not be saved."""

    def __init__(self, reason: str) -> None:
        super().__init__("architect", reason)
