"""The Action's engine: from a GitHub runner's environment (or explicit arguments) to an exit
code. It routes the event, resolves the run's settings, builds the mode's context and
reports the outcome; what serves it alone lives in its private modules here.

`run_action(request=ActionRequest(...), ports=ActionPorts(...))`: the request says what to
run, the ports what the engine reaches outside itself (GitHub, the agents' drivers, the
clock, origin, the streams), each None the real one. `run_action_to_exit` also says which
signal, if any, stopped the run."""

from amelia.action.engine._engine import (
    ActionExit,
    ActionRequest,
    run_action,
    run_action_to_exit,
)
from amelia.action.engine._ports import ActionPorts, Clock

__all__ = [
    "ActionExit",
    "ActionPorts",
    "ActionRequest",
    "Clock",
    "run_action",
    "run_action_to_exit",
]
