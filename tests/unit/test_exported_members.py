"""Every public module of amelia says what it exports in `__all__`, and says it truly: each
name listed exists and is public, and each public class or function the module defines is
listed. A module is public unless a part of its dotted name starts with an underscore."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

import amelia

SOURCE = Path(amelia.__file__).parent


def public_modules() -> list[str]:
    names = []
    for path in sorted(SOURCE.rglob("*.py")):
        parts = path.relative_to(SOURCE.parent).with_suffix("").parts
        if any(part.startswith("_") and part != "__init__" for part in parts):
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_the_package_exports_its_version_only() -> None:
    """As httpx pins its public names: the package itself exports `__version__`; its
    subpackages (attributes once imported) say their own."""
    members = sorted(
        member
        for member, value in vars(amelia).items()
        if (not member.startswith("_") or member == "__version__") and not inspect.ismodule(value)
    )
    assert amelia.__all__ == members == ["__version__"]


@pytest.mark.parametrize("name", public_modules())
def test_public_module_exports_what_it_defines(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list), f"{name} has no __all__"
    assert len(set(exported)) == len(exported), f"{name}.__all__ names something twice"
    missing = [member for member in exported if not hasattr(module, member)]
    assert not missing, f"{name}.__all__ names what the module does not have: {missing}"
    private = [member for member in exported if _private(member)]
    assert not private, f"{name}.__all__ exports private names: {private}"
    defined = [
        member
        for member, value in vars(module).items()
        if not member.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == name
    ]
    unlisted = sorted(set(defined) - set(exported))
    assert not unlisted, f"{name} defines public names it does not export: {unlisted}"


CURATED: dict[str, list[str]] = {
    "amelia.action.engine": [
        "ActionExit",
        "ActionPorts",
        "ActionRequest",
        "Clock",
        "run_action",
        "run_action_to_exit",
    ],
    "amelia.action.modes": [
        "MODE_MODULES",
        "REQUESTABLE_KINDS",
        "Mode",
        "ModeContext",
        "ModeExit",
        "ModeOutcome",
        "load_mode",
    ],
    "amelia.action.checkout": [
        "AgentSessions",
        "AgentsStopped",
        "Checkout",
        "CommittedWork",
        "CredentialGuard",
        "GitHome",
        "HeldBackWork",
        "Publisher",
        "RunnerFiles",
        "held_back_lines",
        "held_back_summary",
        "private_git_config",
        "verdict_note",
        "workflow_path",
        "workflow_permission_asker",
    ],
    "amelia.action.modes.plan": ["MODE", "STAGES", "commit_title", "run"],
    "amelia.action.modes.implement": [
        "MODE",
        "STAGES",
        "Planned",
        "commit_title",
        "implement",
        "no_plan_reply",
        "prepare",
    ],
    "amelia.action.modes.fix": ["MODE", "STAGES", "Found", "fix", "prepare"],
    "amelia.action.modes.review": ["MODE", "run", "steering_note"],
    "amelia.action.modes.ask": ["MODE", "answer_body", "contained_diff", "run", "thread_context"],
    "amelia.action.modes.scan": ["MODE", "planned_issue_numbers", "run", "scan_report"],
    "amelia.action.modes.help": ["MODE", "run"],
}
"""The Action's packages and what each exports from its private modules: a name added to
or dropped from one of them is a decision made here, as httpx pins its own."""


@pytest.mark.parametrize("name", sorted(CURATED))
def test_the_actions_packages_export_only_what_is_curated(name: str) -> None:
    assert importlib.import_module(name).__all__ == CURATED[name]


def test_the_actions_packages_keep_their_implementation_in_private_modules() -> None:
    action = SOURCE / "action"
    packages = [action / "engine", action / "checkout", *(action / "modes").glob("[a-z]*/")]
    public = [
        str(path.relative_to(action))
        for package in packages
        for path in sorted(package.glob("*.py"))
        if path.name != "__init__.py" and not path.name.startswith("_")
    ]
    assert public == []
    assert {str(p.relative_to(SOURCE)).replace("/", ".") for p in packages} <= {
        name.removeprefix("amelia.") for name in CURATED
    }
