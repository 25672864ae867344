"""The documented environment knobs of the GitHub client: retries, timeout, write pause."""

from __future__ import annotations

import pytest

from amelia.config import GitHubTuning
from amelia.errors import ConfigError
from amelia.github.options import DEFAULT_TIMEOUT, RetryPolicy


def _tuning(environ: dict[str, str]) -> GitHubTuning:
    return GitHubTuning.from_environ(environ)


def test_retry_policy_reads_each_field_from_the_environment() -> None:
    policy = _tuning(
        {
            "AMELIA_GITHUB_RETRY_MAX_ATTEMPTS": "3",
            "AMELIA_GITHUB_RETRY_MAX_TOTAL_WAIT": "7.5",
            "AMELIA_GITHUB_RETRY_BACKOFF_BASE": "0.01",
            "AMELIA_GITHUB_RETRY_BACKOFF_MAX": " ",
        }
    ).retry_policy()
    assert policy == RetryPolicy(max_attempts=3, max_total_wait=7.5, backoff_base=0.01)
    assert _tuning({}).retry_policy() == RetryPolicy()


@pytest.mark.parametrize("value", ["zero", "0", "-1", "1.5"])
def test_an_invalid_attempt_count_names_the_variable(value: str) -> None:
    with pytest.raises(ConfigError, match="AMELIA_GITHUB_RETRY_MAX_ATTEMPTS"):
        _tuning({"AMELIA_GITHUB_RETRY_MAX_ATTEMPTS": value}).retry_policy()


def test_timeout_is_whole_seconds_of_at_least_one() -> None:
    assert _tuning({}).timeout_seconds() == DEFAULT_TIMEOUT
    assert _tuning({"AMELIA_GITHUB_TIMEOUT": "2"}).timeout_seconds() == 2
    for bad in ("0", "1.5", "soon"):
        with pytest.raises(ConfigError, match="AMELIA_GITHUB_TIMEOUT"):
            _tuning({"AMELIA_GITHUB_TIMEOUT": bad}).timeout_seconds()


@pytest.mark.parametrize(
    ("value", "throttled"), [(None, True), ("1", True), ("0", False), ("false", False)]
)
def test_throttle_is_on_unless_switched_off(value: str | None, throttled: bool) -> None:
    env = {} if value is None else {"AMELIA_GITHUB_THROTTLE": value}
    assert _tuning(env).throttled() is throttled
