"""The `ci` section of `.github/amelia.yml`: which of the repository's workflows amelia
runs on its pushed commits, and how long it waits for them.

    ci:
      workflows: [ci.yml]      # default: every workflow that runs on push or pull_request
      timeout_minutes: 30      # then the run goes on and says CI is still running
      wait: true               # false: start it, do not wait (see docs/ci.md)
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_CI_TIMEOUT_MINUTES", "CiConfig"]

DEFAULT_CI_TIMEOUT_MINUTES = 30.0
_MAX_WORKFLOWS = 50


def _workflow(value: str) -> str:
    """A workflow's file name (`ci.yml`), its path or its name; never empty."""
    value = value.strip()
    if not value or len(value) > 200 or "\n" in value:
        raise ValueError("a workflow is named by its file (ci.yml), its path or its name")
    return value


class CiConfig(BaseModel):
    """`ci:` of `.github/amelia.yml` (missing: every default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = True
    """False: amelia neither starts nor waits for the repository's CI."""
    workflows: tuple[Annotated[str, AfterValidator(_workflow)], ...] = Field(
        default=(), max_length=_MAX_WORKFLOWS
    )
    """The workflows to run, by file name (`ci.yml`), path or name; empty: every workflow
    that runs on `push` or `pull_request`."""
    wait: bool = True
    """False: start the CI (with the job's token) but do not wait for it, so no runner is
    held while it runs; a workflow on `workflow_run` hands a failure back (see docs/ci.md).
    The change is then never approved by this run."""
    timeout_minutes: float = Field(
        default=DEFAULT_CI_TIMEOUT_MINUTES, gt=0, le=360, allow_inf_nan=False
    )
    """How long amelia waits for the runs after each push."""
    poll_seconds: float = Field(default=10.0, ge=0.05, le=300, allow_inf_nan=False)
    """The first pause between two looks at the runs; each pause is half as long again as
    the one before, up to a minute."""
