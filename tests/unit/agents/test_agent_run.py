"""AgentRun folds a driver's messages into the state without rebuilding what it already holds."""

from __future__ import annotations

import tracemalloc

from amelia.agents.agent_run import AgentRun
from amelia.core.state import ExecutionState, ReviewResult
from amelia.drivers.base import AgenticMessage, AgenticMessageType, DriverUsage


def _session(calls: int, prefix: str) -> list[AgenticMessage]:
    messages: list[AgenticMessage] = []
    for index in range(calls):
        call_id = f"{prefix}-{index}"
        messages.append(
            AgenticMessage(
                type=AgenticMessageType.TOOL_CALL,
                tool_name="Bash",
                tool_input={"command": f"echo {index}"},
                tool_call_id=call_id,
            )
        )
        messages.append(
            AgenticMessage(
                type=AgenticMessageType.TOOL_RESULT,
                tool_name="Bash",
                tool_output=f"{index}\n",
                tool_call_id=call_id,
                is_error=index == 1,
            )
        )
    messages.append(
        AgenticMessage(
            type=AgenticMessageType.RESULT,
            content="done",
            usage=DriverUsage(num_turns=calls + 1, input_tokens=10, cost_usd=0.5),
        )
    )
    return messages


def _play(agent: str, state: ExecutionState, messages: list[AgenticMessage]) -> AgentRun:
    run = AgentRun(agent, "wf", state)
    for message in messages:
        run.apply(message)
    return run


def test_each_state_shares_the_earlier_tool_calls_instead_of_rebuilding_them() -> None:
    earlier = _play("architect", ExecutionState(), _session(3, "a")).state
    run = AgentRun("developer", "wf", earlier)
    states = [run.apply(message)[0] for message in _session(4, "d")]

    first_call, first_result = earlier.tool_calls[0], earlier.tool_results[0]
    for state in states:
        assert state.tool_calls[0] is first_call
        assert state.tool_results[0] is first_result
    assert states[2].tool_calls[3] is states[-1].tool_calls[3]


def _peak_bytes_of_messages(state: ExecutionState, messages: list[AgenticMessage]) -> int:
    """The most memory that folding `messages` into `state` holds at once, beyond the start."""
    run = AgentRun("developer", "wf", state)
    tracemalloc.start()
    try:
        for message in messages:
            run.apply(message)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_message_costs_the_same_however_many_tool_calls_the_state_holds() -> None:
    small = _play("architect", ExecutionState(), _session(3, "a")).state
    large = _play("architect", ExecutionState(), _session(300, "a")).state
    messages = _session(10, "d")

    small_peak = _peak_bytes_of_messages(small, messages)
    large_peak = _peak_bytes_of_messages(large, messages)

    # Copying the whole state per message (a dump and a validation) held every earlier call
    # as a dict at once: 13 times the memory with 300 earlier calls. Only the tuples of
    # pointers to the calls and results grow now (1.6 times).
    assert large_peak < 3 * small_peak


def test_the_last_state_holds_every_call_result_and_the_usage_of_both_agents() -> None:
    earlier = _play("architect", ExecutionState(), _session(2, "a")).state
    run = _play("developer", earlier, _session(3, "d"))
    reviewed = ReviewResult(verdict="approved", summary="fine")
    state = run.update(last_review=reviewed.model_dump(), developer_output="done")

    assert [call.id for call in state.tool_calls] == ["a-0", "a-1", "d-0", "d-1", "d-2"]
    assert [result.tool_input for result in state.tool_results][-1] == {"command": "echo 2"}
    assert [result.call_id for result in state.error_results] == ["a-1", "d-1"]
    assert [(u.agent, u.tool_calls, u.tool_errors, u.turns) for u in state.usage] == [
        ("architect", 2, 1, 3),
        ("developer", 3, 1, 4),
    ]
    assert state.last_review == reviewed and state.developer_output == "done"
    assert state == ExecutionState.model_validate(state.model_dump())
    run.check_finished()
