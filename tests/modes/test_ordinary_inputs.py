"""Ordinary inputs stay readable: a runner passes every input of action.yml with its default
(`/amelia`, `amelia`, `amelia/`, `docs/plans`, `cli:claude`, `COMMENT`, ...), and only the
secret inputs' values, secret-named variables and token patterns are masked, never an
input's value because of its length."""

from __future__ import annotations

from amelia.redaction import MASK
from amelia.testing.action_harness import ActionHarness, ActionRun
from amelia.testing.action_inputs import declared_inputs
from tests.modes.test_implement import implement_agents


def test_a_run_with_every_default_input_reads_its_branch_and_commands_in_clear(
    action: ActionHarness,
) -> None:
    action.agents = implement_agents()
    number = action.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")

    def command(text: str) -> ActionRun:
        return action.run_in_process("issue_comment", action.comment_event(number, text))

    helped = command("/amelia help")
    planned = command("/amelia plan")
    action.fresh_checkout()
    implemented = command("/amelia implement")
    runs = (helped, planned, implemented)
    assert [run.exit_code for run in runs] == [0, 0, 0], implemented.stderr

    # Every input reached amelia, with action.yml's defaults (no test set one).
    branch = f"amelia/issue-{number}"
    assert planned.outputs["branch"] == implemented.outputs["branch"] == branch
    assert implemented.outputs["plan_path"].startswith("docs/plans/")
    (pull,) = action.github.pulls(action.repo)
    comments = action.github.comments(action.repo, number)
    pull_comments = action.github.comments(action.repo, pull["number"])
    reviews = [body["body"] for body in action.github.reviews(action.repo, pull["number"])]
    summaries = [run.summary for run in runs]
    posted = [*comments, *pull_comments, pull["body"], *reviews, *summaries]

    (help_reply,) = [body for body in comments if "<!-- amelia:help -->" in body]
    assert "`/amelia plan`" in help_reply
    progress = [body for body in comments if "amelia:progress" in body]
    assert progress and all(branch in body for body in progress)
    assert "<!-- amelia:begin -->" in pull["body"] and "docs/plans/" in pull["body"]
    assert reviews and all("amelia review" in body for body in reviews)
    assert all(branch in summary for summary in summaries[1:])
    assert summaries[2].startswith("## amelia `implement`")
    # Nothing was masked: none of these texts holds a secret.
    assert [body for body in posted if MASK in body] == []
    assert set(declared_inputs()) >= {"trigger_phrase", "label_trigger", "branch_prefix"}
