"""How a GitHub call is retried, and what its failure becomes.

Every call is retried on 5xx, 429, secondary rate limits, exhausted primary rate limits,
connection errors and timeouts, honouring `Retry-After` and `X-RateLimit-Reset`, within a
bounded number of attempts and a bounded total wait. Anything else becomes a typed
`GitHubError` with a one-line message. A call that creates something is made once in
effect (`Retrier.create_once`).

The failures it reads are PyGithub's (`GithubException`) and the network's (`OSError`,
which `requests`' errors derive from): the adapter over PyGithub raises them, and so does
the in-memory GitHub of `amelia.testing.github`, so both retry and fail alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import TypeVar

from github import GithubException
from loguru import logger
from pydantic import BaseModel, ConfigDict
from tenacity import RetryCallState, Retrying, retry_if_exception

from amelia.errors import (
    GitHubAuthError,
    GitHubError,
    GitHubNotFoundError,
    GitHubRetryExhaustedError,
    GitHubValidationError,
)
from amelia.github.options import RetryPolicy

__all__ = ["Retrier", "RetryRecord", "is_retryable", "server_requested_delay"]

T = TypeVar("T")


class RetryRecord(BaseModel):
    """One retry the client made: which call, why, and how long it waited first."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    operation: str
    attempt: int
    reason: str
    wait_seconds: float


def _header(exc: GithubException, name: str) -> str | None:
    headers = exc.headers or {}
    value = headers.get(name) or headers.get(name.lower())
    return None if value is None else str(value)


def _message(exc: BaseException) -> str:
    if isinstance(exc, GithubException):
        data = exc.data if isinstance(exc.data, dict) else {}
        text = str(data.get("message") or exc.message or "").strip()
        errors = data.get("errors")
        if errors:
            details = [
                e.get("message", e.get("code", "")) if isinstance(e, dict) else e for e in errors
            ]
            text = f"{text} ({'; '.join(str(d) for d in details)})"
        return " ".join(f"{exc.status} {text}".split())
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def is_retryable(exc: BaseException) -> bool:
    """True for failures that may pass on their own: server errors, rate limits, the network."""
    if isinstance(exc, GithubException):
        if exc.status >= 500 or exc.status == 429:
            return True
        if exc.status == 403:
            text = _message(exc).lower()
            return (
                "rate limit" in text
                or _header(exc, "retry-after") is not None
                or _header(exc, "x-ratelimit-remaining") == "0"
            )
        return False
    # requests' exceptions (connection reset, timeouts) derive from OSError.
    return isinstance(exc, OSError)


def server_requested_delay(exc: BaseException, now: float) -> float | None:
    """Seconds GitHub asked us to wait (`Retry-After`, or until `X-RateLimit-Reset`)."""
    if not isinstance(exc, GithubException):
        return None
    retry_after = _header(exc, "retry-after")
    if retry_after is not None:
        if retry_after.strip().isdigit():
            return float(retry_after)
        try:
            return max(0.0, parsedate_to_datetime(retry_after).timestamp() - now)
        except (TypeError, ValueError):
            pass
    reset = _header(exc, "x-ratelimit-reset")
    if _header(exc, "x-ratelimit-remaining") == "0" and reset is not None and reset.isdigit():
        # One second of slack: GitHub's reset epoch is rounded down.
        return max(0.0, float(reset) - now + 1.0)
    return None


def _typed_error(operation: str, exc: BaseException, attempts: int) -> GitHubError:
    text = _message(exc)
    if is_retryable(exc):
        return GitHubRetryExhaustedError(
            f"GitHub {operation} failed after {attempts} attempt(s): {text}",
            status=getattr(exc, "status", None),
        )
    status = exc.status if isinstance(exc, GithubException) else None
    kind: type[GitHubError] = {
        401: GitHubAuthError,
        403: GitHubAuthError,
        404: GitHubNotFoundError,
        410: GitHubNotFoundError,
        422: GitHubValidationError,
    }.get(status or 0, GitHubError)
    return kind(f"GitHub {operation} failed: {text}", status=status)


class Retrier:
    """Runs GitHub calls with `policy`'s bounded retries; `retry_log` holds each retry."""

    def __init__(
        self,
        *,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.retry_log: list[RetryRecord] = []
        self._sleep = sleep
        self._clock = clock

    def call(self, operation: str, fn: Callable[[], T]) -> T:
        """`fn()`, retried while it fails in a way that may pass; a failure for good is a
        `GitHubError` naming `operation`."""

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            requested = server_requested_delay(exc, self._clock()) if exc else None
            if requested is not None:
                return requested
            backoff = self.policy.backoff_base * 2 ** (state.attempt_number - 1)
            return float(min(backoff, self.policy.backoff_max))

        def stop(state: RetryCallState) -> bool:
            return (
                state.attempt_number >= self.policy.max_attempts
                or state.idle_for + state.upcoming_sleep > self.policy.max_total_wait
            )

        def record(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            entry = RetryRecord(
                operation=operation,
                attempt=state.attempt_number,
                reason=_message(exc) if exc else "",
                wait_seconds=state.upcoming_sleep,
            )
            self.retry_log.append(entry)
            logger.warning(
                "GitHub {} attempt {} failed ({}); retrying in {:.1f}s",
                operation,
                entry.attempt,
                entry.reason,
                entry.wait_seconds,
            )

        retrying = Retrying(
            retry=retry_if_exception(is_retryable),
            wait=wait,
            stop=stop,
            sleep=self._sleep,
            before_sleep=record,
            reraise=True,
        )
        attempts = 0

        def counted() -> T:
            nonlocal attempts
            attempts += 1
            return fn()

        try:
            return retrying(counted)
        except (GithubException, OSError) as exc:
            raise _typed_error(operation, exc, attempts) from exc

    def create_once(
        self, operation: str, post: Callable[[], T], existing: Callable[[], T | None]
    ) -> T:
        """POST once in effect: GitHub may have acted on an attempt whose answer was lost (a
        timeout, a reset), so before each retry look for what that attempt made."""
        attempts = 0

        def attempt() -> T:
            nonlocal attempts
            attempts += 1
            if attempts > 1:
                found = existing()
                if found is not None:
                    logger.info("GitHub {}: the earlier attempt took effect", operation)
                    return found
            return post()

        return self.call(operation, attempt)
