"""The pipeline: plan, the develop <-> review loop, review. It sits above the agents.

The Action's modes, the command line and the demo run agents only through this package;
it never talks to GitHub. Callers inject drivers (`RunContext.make_driver`, usually
`default_make_driver(profile)`), event sinks and work between stages (`after_stage`).
"""

from amelia.core.types import AgentRole
from amelia.pipeline.context import (
    ROLE_TOOL_PROFILES,
    AgentSession,
    MakeDriver,
    RunContext,
    StageHook,
)
from amelia.pipeline.drivers import default_make_driver
from amelia.pipeline.loop import develop_and_review, run_pipeline
from amelia.pipeline.stages import (
    BudgetExceededError,
    StageFailedError,
    current_head,
    run_answer,
    run_implement,
    run_plan,
    run_review,
)

__all__ = [
    "ROLE_TOOL_PROFILES",
    "AgentRole",
    "AgentSession",
    "BudgetExceededError",
    "MakeDriver",
    "RunContext",
    "StageFailedError",
    "StageHook",
    "current_head",
    "default_make_driver",
    "develop_and_review",
    "run_answer",
    "run_implement",
    "run_pipeline",
    "run_plan",
    "run_review",
]
