"""The spending limit of the agent run in progress, which every driver honours.

The pipeline knows the run's budget and what the agents spent so far; a driver knows what
its own run costs. `spending_limit(dollars)` wraps one agent's run, and a driver reads
`current_spending_limit()` when its agentic run starts: once the run's own cost reaches
it, the driver stops between two model requests (never during a tool call) and ends with
a RESULT whose `budget_reached` is set. Drivers that cannot price their model ignore it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["current_spending_limit", "spending_limit"]

_LIMIT: ContextVar[float | None] = ContextVar("amelia_spending_limit", default=None)


@contextmanager
def spending_limit(max_cost_usd: float | None) -> Iterator[None]:
    """Within this block an agentic run may cost at most `max_cost_usd` (None: no limit)."""
    token = _LIMIT.set(max_cost_usd)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def current_spending_limit() -> float | None:
    """What the agentic run starting now may cost, in USD; None when unlimited."""
    return _LIMIT.get()
