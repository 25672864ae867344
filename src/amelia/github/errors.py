"""Typed failures of the GitHub layer, each with a one-line message a human can act on."""

from __future__ import annotations


class GitHubError(Exception):
    """A GitHub API call failed for good (after any retries)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class GitHubNotFoundError(GitHubError):
    """404: the repository, issue, pull, comment or branch does not exist (or is hidden)."""


class GitHubAuthError(GitHubError):
    """401/403: the token is invalid or lacks a permission."""


class GitHubValidationError(GitHubError):
    """422: GitHub refused the request's content (e.g. a review line outside the diff)."""


class GitHubRetryExhaustedError(GitHubError):
    """5xx, rate limits or connection errors persisted beyond the retry budget."""


class EventError(ValueError):
    """A webhook payload is malformed or lacks a field we need."""


class GitError(RuntimeError):
    """A git command failed; the message names the command and git's own complaint."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr
