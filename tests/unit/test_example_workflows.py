"""The workflows README and docs/examples give maintainers work together as documented: the
hand-back of a failed CI run (docs/examples/amelia-ci-failed.yml) dispatches amelia's
workflow with inputs that workflow declares, whose job runs for the dispatch, one issue at
a time, and amelia routes what it receives to the command asked for."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from amelia.github.events import RoutingSettings, parse_event, route
from amelia.github.workflows import runs_amelia

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "docs" / "examples"


def _readme_workflow() -> str:
    """The `.github/workflows/amelia.yml` of README's quick start."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"Add `\.github/workflows/amelia\.yml`.*?```yaml\n(.*?)```", readme, re.S)
    assert found, "README's quick start shows amelia.yml"
    return found.group(1)


AMELIA_YML = {
    "README.md": _readme_workflow(),
    "amelia-plan.yml": (EXAMPLES / "amelia-plan.yml").read_text(encoding="utf-8"),
}
"""amelia.yml as README shows it and as its full example has it."""


def _load(text: str) -> dict[Any, Any]:
    document = yaml.safe_load(text)
    assert isinstance(document, dict)
    return document


def _triggers(document: dict[Any, Any]) -> dict[str, Any]:
    on = document.get("on", document.get(True))  # YAML 1.1 reads a bare `on` as true
    assert isinstance(on, dict)
    return on


def _disjuncts(expression: str) -> list[str]:
    return [" ".join(part.split()) for part in expression.split("||")]


def _dispatch_command() -> tuple[str, dict[str, str]]:
    """The workflow file and the `-f name=value` inputs of the hand-back's `gh workflow run`."""
    document = _load((EXAMPLES / "amelia-ci-failed.yml").read_text(encoding="utf-8"))
    runs = [
        step["run"]
        for job in document["jobs"].values()
        for step in job["steps"]
        if "gh workflow run" in step.get("run", "")
    ]
    assert len(runs) == 1
    words = shlex.split(runs[0])
    workflow = words[words.index("run", words.index("workflow")) + 1]
    fields = dict(
        words[i + 1].split("=", 1) for i, word in enumerate(words) if word in ("-f", "--field")
    )
    return workflow, fields


def test_the_hand_back_dispatches_amelia_yml_with_a_command_and_a_number() -> None:
    workflow, fields = _dispatch_command()
    assert workflow == "amelia.yml"
    assert fields == {"command": "implement", "issue_number": "$PULL"}
    document = _load((EXAMPLES / "amelia-ci-failed.yml").read_text(encoding="utf-8"))
    assert document["permissions"]["actions"] == "write"  # a dispatch needs it


@pytest.mark.parametrize("where", sorted(AMELIA_YML))
def test_amelia_yml_accepts_the_hand_back(where: str) -> None:
    document = _load(AMELIA_YML[where])
    _workflow, fields = _dispatch_command()
    inputs = _triggers(document)["workflow_dispatch"]["inputs"]
    # Every input given is declared, every required one is given, a choice is offered.
    assert set(fields) <= set(inputs)
    assert {name for name, spec in inputs.items() if spec.get("required")} <= set(fields)
    for name, value in fields.items():
        if inputs[name].get("type") == "choice":
            assert value in inputs[name]["options"]
    # The job runs for a dispatch (a comment's body is empty then).
    (job,) = document["jobs"].values()
    assert "github.event_name == 'workflow_dispatch'" in _disjuncts(job["if"])
    # One run at a time per issue: the dispatch's number is in the group.
    group = document["concurrency"]["group"]
    inner = re.fullmatch(r"amelia-\$\{\{(.*)\}\}", group)
    assert inner is not None
    assert "inputs.issue_number" in _disjuncts(inner.group(1))


@pytest.mark.parametrize("where", sorted(AMELIA_YML))
def test_what_amelia_yml_receives_is_routed_to_the_command_asked_for(where: str) -> None:
    inputs = _triggers(_load(AMELIA_YML[where]))["workflow_dispatch"]["inputs"]
    for command in inputs["command"]["options"]:
        # As GitHub sends it: every input a string, the sender the job token's bot.
        payload = {
            "inputs": {"command": command, "issue_number": "42"},
            "sender": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
            "repository": {"full_name": "octo/app", "default_branch": "main"},
        }
        event = parse_event("workflow_dispatch", json.dumps(payload))
        routed = route(event, RoutingSettings())
        assert (routed.kind, routed.number) == (command, 42), routed


def _runs_implement_or_fix(document: dict[Any, Any], job: dict[str, Any]) -> bool:
    """Whether `job` can run `/amelia implement` or `fix`: on a comment (any command), on a
    dispatch that offers them, or with `AMELIA_COMMAND` naming one."""
    triggers = _triggers(document)
    if {"issue_comment", "pull_request_review_comment"} & set(triggers):
        return True
    dispatch = triggers.get("workflow_dispatch") or {}
    offered = ((dispatch.get("inputs") or {}).get("command") or {}).get("options") or []
    if {"implement", "fix"} & set(offered):
        return True
    commands = {
        str((step.get("env") or {}).get("AMELIA_COMMAND", "")) for step in job.get("steps", [])
    }
    return bool({"implement", "fix"} & commands)


def test_every_example_that_implements_or_fixes_may_start_the_repositorys_ci() -> None:
    """implement and fix run the repository's CI with the job's token: a dispatch, which
    needs `actions: write` (docs/ci.md)."""
    workflows = {
        "README.md": AMELIA_YML["README.md"],
        **{path.name: path.read_text(encoding="utf-8") for path in EXAMPLES.glob("*.yml")},
    }
    checked = set()
    for name, text in workflows.items():
        if not runs_amelia(text):
            continue
        document = _load(text)
        for job_name, job in document["jobs"].items():
            if not _runs_implement_or_fix(document, job):
                continue
            permissions = job.get("permissions", document.get("permissions")) or {}
            assert permissions.get("actions") == "write", (name, job_name)
            checked.add(name)
    assert checked == {"README.md", "amelia-plan.yml"}
