"""The registry of Action modes: one package per command kind, imported when it runs.

A mode is a package under `amelia.action.modes` whose `__init__` exports `MODE =
Mode(...)` (defined in its `_mode.py`), registered by its line in `MODE_MODULES`; the
router in `amelia.github.events` decides which events ask for it (docs/architecture.md,
"Adding a mode", lists every step). Packages load lazily, so a mode's heavy imports never
slow down routing, and an event is only routed to kinds listed here.
"""

from __future__ import annotations

import importlib
from typing import Any

from amelia.action.modes.base import Mode, ModeContext, ModeExit, ModeOutcome

__all__ = [
    "MODE_MODULES",
    "REQUESTABLE_KINDS",
    "Mode",
    "ModeContext",
    "ModeExit",
    "ModeOutcome",
    "load_mode",
]

MODE_MODULES: dict[str, str] = {
    "plan": "amelia.action.modes.plan",
    "implement": "amelia.action.modes.implement",
    "review": "amelia.action.modes.review",
    "ask": "amelia.action.modes.ask",
    "fix": "amelia.action.modes.fix",
    "scan": "amelia.action.modes.scan",
    "help": "amelia.action.modes.help",
    "unknown-command": "amelia.action.modes.help",
}
"""Command kind (see `amelia.github.events.CommandKind`) → module defining `MODE`."""

REQUESTABLE_KINDS = tuple(kind for kind in MODE_MODULES if kind not in ("unknown-command", "ask"))
"""The commands a workflow can ask for by name (`AMELIA_COMMAND`): every registered mode but
the reply to a command nobody knows and `ask`, whose question only a comment carries."""


def load_mode(kind: str) -> Mode[Any] | None:
    """The mode handling `kind`, or None when no module is registered for it."""
    module_name = MODE_MODULES.get(kind)
    if module_name is None:
        return None
    mode = getattr(importlib.import_module(module_name), "MODE", None)
    if not isinstance(mode, Mode):
        raise TypeError(f"{module_name} must define MODE = Mode(...)")
    return mode
