"""Every failure amelia reports, in one hierarchy, and the exit code each branch maps to.

`AmeliaError` is the root; every error carries a one-line `message` a person can act on.

- `InputError` (exit 2): what we were given cannot work — an input or runner variable, a
  webhook payload, a branch name, a plan path, a command-line argument. Nothing was run.
  It is a `ValueError` too, as pydantic's `ValidationError` is: a library caller that
  passes a bad argument (an unknown driver key) may catch either.
- `RunError` (exit 1): the run itself failed — an agent, a driver, git, GitHub, or a
  pipeline stage (the pipeline's `StageFailedError` belongs to this branch too).
- `ToolRefusedError`: an agent's tool call that the policy refuses. It never ends a run:
  the driver turns it into an error-flagged tool result the model sees.

Entry points (the CLI, the Action) turn an error into an exit code with `exit_code_for`
and nowhere else. SDK and library exceptions are translated into this hierarchy where they
arise (the drivers, the GitHub client, the git runner), so no caller guesses at them.
"""

from __future__ import annotations

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "EXIT_OK",
    "AgentError",
    "AgentRunFailedError",
    "AgentUserError",
    "AmeliaError",
    "BadInputError",
    "BranchNameError",
    "BudgetReachedError",
    "CommandRefused",
    "ConfigError",
    "DriverError",
    "DriverInputError",
    "EventError",
    "GitError",
    "GitHubAuthError",
    "GitHubError",
    "GitHubNotFoundError",
    "GitHubRetryExhaustedError",
    "GitHubValidationError",
    "GitPushDeclinedError",
    "InputError",
    "LeftoverProcessError",
    "McpServerError",
    "PathRefused",
    "PlanError",
    "PlanPathError",
    "RunError",
    "SecretInChangeError",
    "ToolRefusedError",
    "exit_code_for",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


class AmeliaError(Exception):
    """Any failure amelia reports; `message` is the one line shown to people."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- bad input: exit 2 -------------------------------------------------------------------


class InputError(AmeliaError, ValueError):
    """What amelia was given cannot work; reported as one line with exit code 2. A
    `ValueError` as well, for callers that catch Python's error for a bad argument."""


class ConfigError(InputError):
    """An input or runner variable is missing or malformed; the message says which."""


class EventError(InputError):
    """A webhook payload is malformed or lacks a field we need."""


class BranchNameError(InputError):
    """A branch name git would refuse, or one that could be read as an option or code."""


class PlanPathError(InputError):
    """A plan path (or its pattern) that is malformed, leaves the repository or enters `.git`."""


class BadInputError(InputError):
    """A command-line argument or file given to a local command cannot work."""


class DriverInputError(InputError):
    """A driver was handed an argument that cannot work (an empty or unknown model, a model
    of another provider than its key's, a working directory that is missing or not a
    directory, an empty prompt); raised before the driver starts anything."""


# --- the run failed: exit 1 --------------------------------------------------------------


class RunError(AmeliaError):
    """The run failed (an agent, a driver, git, GitHub or a stage); exit code 1."""


class AgentError(RunError):
    """An agent could not produce its outcome."""

    def __init__(self, agent: str, reason: str) -> None:
        super().__init__(f"{agent}: {reason}")
        self.agent = agent
        self.reason = reason


class AgentRunFailedError(AgentError):
    """The driver ended the agent's run with an error result (max turns, API error, refusal…)."""


class BudgetReachedError(AgentError):
    """The driver stopped the agent's run at its spending limit (the run's `max_cost_usd`)."""


class PlanError(AgentError):
    """The architect did not deliver a usable plan, or the plan could not be saved."""

    def __init__(self, reason: str) -> None:
        super().__init__("architect", reason)


class AgentUserError(RunError):
    """Agents cannot run as the unprivileged agent user (missing from the image, no
    setpriv, a process of it that would not stop)."""


class McpServerError(RunError):
    """An MCP server of the configuration did not start or did not answer; the message
    names the server."""


class DriverError(RunError):
    """A driver could not start or could not complete a request (before any RESULT)."""


class GitError(RunError):
    """A git command failed; the message names the command and git's own complaint."""

    def __init__(self, message: str, *, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


class GitPushDeclinedError(GitError):
    """The remote declined a push on principle (a hook, branch protection, a ruleset):
    trying again cannot help; the message carries the remote's own words."""


class SecretInChangeError(GitError):
    """A change about to be pushed holds the value of a secret of the run: it is never
    pushed. The message names the file, never the value."""


class LeftoverProcessError(RunError):
    """Processes an agent left behind would not stop (so amelia's git does not run)."""


class GitHubError(RunError):
    """A GitHub API call failed for good (after any retries)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class GitHubNotFoundError(GitHubError):
    """404: the repository, issue, pull, comment or branch does not exist (or is hidden)."""


class GitHubAuthError(GitHubError):
    """401/403: the token is invalid or lacks a permission."""


class GitHubValidationError(GitHubError):
    """422: GitHub refused the request's content (e.g. a review line outside the diff)."""


class GitHubRetryExhaustedError(GitHubError):
    """5xx, rate limits or connection errors persisted beyond the retry budget."""


# --- refused tool calls: never end a run -------------------------------------------------


class ToolRefusedError(AmeliaError):
    """An agent's tool call the policy refuses; the model sees the message and may go on."""


class PathRefused(ToolRefusedError):
    """The path leaves the allowed directories or touches `.git/`."""


class CommandRefused(ToolRefusedError):
    """The command breaks the shell policy; the message says which rule."""


def exit_code_for(error: AmeliaError) -> int:
    """The process exit code for `error`: 2 for bad input, 1 for everything else."""
    return EXIT_BAD_INPUT if isinstance(error, InputError) else EXIT_FAILED
