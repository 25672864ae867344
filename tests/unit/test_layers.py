"""Imports run one way, down the floors of `HOUSE` (entry points, the testing kit, the
Action, the pipeline, the agents, MCP and CI, the drivers, GitHub and the toolchain, the
core, the leaves; drawn in docs/architecture.md), with no circle. Every import counts, also
the lazy ones inside functions and the ones made only for type checking."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import amelia

SOURCE = Path(amelia.__file__).parent

ABOVE_DRIVERS = (
    "amelia.agents",
    "amelia.pipeline",
    "amelia.action",
    "amelia.commands",
    "amelia.cli",
    "amelia.config",
    "amelia.demo",
    "amelia.testing",
)
ABOVE_AGENTS = (*(name for name in ABOVE_DRIVERS if name != "amelia.agents"), "amelia.github")
ABOVE_PIPELINE = tuple(name for name in ABOVE_AGENTS if name != "amelia.pipeline")
SDKS = ("claude_agent_sdk", "pydantic_ai", "openai", "github")
LEAVES = ("amelia.errors", "amelia.redaction")
"""Imported from every layer; they import nothing from amelia but themselves."""
PRODUCT_USES_OF_TESTING = {"amelia.demo"}
"""`amelia demo` runs the scripted model server by design; no other product module may."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(source: str, package: str = "") -> Iterator[str]:
    """Every module `source` imports; relative imports are resolved against `package`."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            prefix = ".".join(base) if node.level else ""
            module = ".".join(part for part in (prefix, node.module or "") if part)
            yield module
            # `from amelia import testing` names a module too.
            yield from (f"{module}.{alias.name}" for alias in node.names)


@cache
def _graph() -> dict[str, set[str]]:
    """amelia's modules and what each imports, read once by the tests that need it (not at
    collection, in every worker: parsing every module takes ~0.5 s)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = set(_imports(path.read_text(encoding="utf-8"), package))
    return graph


def _in(name: str, packages: tuple[str, ...] | str) -> bool:
    wanted = (packages,) if isinstance(packages, str) else packages
    return any(name == package or name.startswith(f"{package}.") for package in wanted)


def _offenders(importers: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {
        module: sorted(name for name in imported if _in(name, forbidden))
        for module, imported in _graph().items()
        if _in(module, importers)
    }
    return {module: names for module, names in found.items() if names}


def test_every_layer_is_seen() -> None:
    for package in ("amelia.core", "amelia.drivers", "amelia.agents", "amelia.pipeline"):
        assert any(_in(module, package) for module in _graph()), package


def _outside(package: str, allowed: tuple[str, ...]) -> dict[str, list[str]]:
    """What modules of `package` import from amelia beyond themselves and `allowed`."""
    found = {
        module: sorted(
            name
            for name in imported
            if _in(name, "amelia") and name != "amelia" and not _in(name, (package, *allowed))
        )
        for module, imported in _graph().items()
        if _in(module, package)
    }
    return {module: names for module, names in found.items() if names}


def test_core_imports_no_other_amelia_layer() -> None:
    assert _outside("amelia.core", ("amelia.errors",)) == {}


def test_the_leaves_import_nothing_from_amelia() -> None:
    for leaf in LEAVES:
        assert _outside(leaf, ()) == {}, leaf


def test_core_never_imports_agents_or_the_driver_factory() -> None:
    assert _offenders("amelia.core", ("amelia.agents", "amelia.drivers.factory")) == {}


DRIVER_DEFAULT_ENVIRONMENT = {
    ("amelia.drivers.default_environment", "amelia.config"),
    ("amelia.drivers.default_environment", "amelia.config.driver_environment"),
}
"""A driver made without an environment gets the one the settings reader builds from the
process environment (`default_environment`): the only import of the drivers upward."""


def test_drivers_never_import_agents_or_anything_above() -> None:
    found = _offenders("amelia.drivers", ABOVE_DRIVERS)
    allowed = {(module, name) for module, names in found.items() for name in names}
    assert allowed == DRIVER_DEFAULT_ENVIRONMENT


def test_agents_never_import_the_pipeline_or_anything_above() -> None:
    assert _offenders("amelia.agents", ABOVE_AGENTS) == {}


def test_the_pipeline_never_imports_github_or_the_entry_points() -> None:
    assert _offenders("amelia.pipeline", ABOVE_PIPELINE) == {}


def test_core_and_pipeline_import_no_github_or_model_sdk() -> None:
    found = {
        module: sorted(name for name in imported if _in(name, SDKS))
        for module, imported in _graph().items()
        if _in(module, ("amelia.core", "amelia.pipeline"))
    }
    assert {module: names for module, names in found.items() if names} == {}


def test_product_modules_never_import_the_testing_package() -> None:
    found = {
        module: sorted(name for name in imported if _in(name, "amelia.testing"))
        for module, imported in _graph().items()
        if not _in(module, "amelia.testing") and module not in PRODUCT_USES_OF_TESTING
    }
    assert {module: names for module, names in found.items() if names} == {}


def test_the_checker_sees_lazy_and_type_checking_imports() -> None:
    sample = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from amelia.agents.architect import Architect\n"
        "def f():\n    import amelia.drivers.factory\n    from amelia import testing\n"
        "from ..agents import developer\n"
    )
    found = set(_imports(sample, "amelia.core"))
    assert {"amelia.agents.architect", "amelia.drivers.factory", "amelia.testing"} <= found
    assert "amelia.agents.developer" in found


# -- the house: every package on a floor, no arrow up, no circle --------------------------

HOUSE: tuple[tuple[str, ...], ...] = (
    ("amelia.cli", "amelia.commands", "amelia.demo"),
    ("amelia.testing", "amelia.replay.player"),
    ("amelia.action", "amelia.replay.session"),
    ("amelia.pipeline", "amelia.replay"),
    ("amelia.agents", "amelia.repo_config", "amelia.config"),
    ("amelia.mcp", "amelia.ci"),
    ("amelia.drivers",),
    ("amelia.github", "amelia.toolchain"),
    ("amelia.core", "amelia.git", "amelia.isolation"),
    ("amelia", "amelia.errors", "amelia.redaction", "amelia.text"),
)
"""The floors, top first: a module imports from its own package or from packages on lower
floors. The entry points stand on the action, the Action's engine and modes on the
pipeline, the pipeline on the agents, the agents on the drivers, the drivers on the core;
GitHub, git, the toolchain and the isolation are libraries the floors above them use. The
repository's CI (`amelia.ci`) stands on GitHub; a run's recording (`amelia.replay`) beside
the pipeline, the engine's start and finish of it (`amelia.replay.session`) with the
engine, and its replay (`amelia.replay.player`), which runs the engine, above it."""

UPWARD = {
    ("amelia.drivers.default_environment", "amelia.config"): "a driver made without an "
    "environment gets the one the settings reader builds (DRIVER_DEFAULT_ENVIRONMENT)",
    ("amelia.mcp.runtime", "amelia.config"): "the MCP servers of a run start from the run's "
    "settings (their secrets, their user, the inherited environment)",
}
"""The arrows that run up, each with its reason; neither closes a circle of modules."""


def _floor(module: str) -> int | None:
    """The floor of `module`: of the longest package of `HOUSE` holding it."""
    found = [
        (len(package), floor)
        for floor, packages in enumerate(HOUSE)
        for package in packages
        if module == package or (package != "amelia" and module.startswith(f"{package}."))
    ]
    return max(found)[1] if found else None


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def _upward(graph: dict[str, set[str]]) -> dict[tuple[str, str], int]:
    """Every import of a module from a higher floor (a smaller index), outside its package."""
    found: dict[tuple[str, str], int] = {}
    for module, imported in graph.items():
        own = _floor(module)
        for name in imported:
            if not _in(name, "amelia") or _package(name) == _package(module):
                continue
            target = _floor(name)
            if own is not None and target is not None and target < own:
                found[(module, _package(name))] = target
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles among the modules of `graph` (strongly connected parts of two or more)."""
    edges = {module: sorted(name for name in graph[module] if name in graph) for module in graph}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for name in edges[module]:
            if name not in order:
                visit(name)
                low[module] = min(low[module], low[name])
            elif name in on_stack:
                low[module] = min(low[module], order[name])
        if low[module] == order[module]:
            part: list[str] = []
            while not part or part[-1] != module:
                part.append(stack.pop())
                on_stack.discard(part[-1])
            if len(part) > 1:
                circles.append(sorted(part))

    for module in sorted(edges):
        if module not in order:
            visit(module)
    return circles


def test_every_module_has_a_floor() -> None:
    assert [module for module in _graph() if _floor(module) is None] == []


def test_no_import_runs_up_the_house() -> None:
    assert set(_upward(_graph())) == set(UPWARD)


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert _circles(_graph()) == []


def test_the_house_checks_see_a_circle_and_an_arrow_up() -> None:
    graph = {
        "amelia.core.a": {"amelia.agents.b"},
        "amelia.agents.b": {"amelia.core.c"},
        "amelia.core.c": {"amelia.core.a"},
    }
    assert _circles(graph) == [["amelia.agents.b", "amelia.core.a", "amelia.core.c"]]
    assert set(_upward(graph)) == {("amelia.core.a", "amelia.agents")}


# -- the process environment -----------------------------------------------------------------

ENVIRONMENT_READER = "amelia.config"
"""The one module that reads the process environment; the rest get settings or a mapping."""
PENDING_ENVIRONMENT_READERS = {
    "amelia.isolation.handoff": "the restart without credentials, before any settings exist",
    "amelia.git.runner": "git's hardened child environment: a leaf that cannot get settings",
}
"""Readers outside the settings, each with its reason; an entry that no longer reads must go."""
_ENVIRONMENT_NAMES = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})


def _environment_uses(source: str) -> list[str]:
    """Every place `source` touches the process environment through `os` (or `posix`)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("os", "posix")
            and node.attr in _ENVIRONMENT_NAMES
        ):
            found.append(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "posix"):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name in _ENVIRONMENT_NAMES]
    return found


def _environment_readers() -> dict[str, list[str]]:
    readers: dict[str, list[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        uses = _environment_uses(path.read_text(encoding="utf-8"))
        if uses:
            readers[_module_name(path)] = sorted(set(uses))
    return readers


def test_only_the_settings_read_the_process_environment() -> None:
    readers = _environment_readers()
    others = {
        module: uses
        for module, uses in readers.items()
        if module != ENVIRONMENT_READER and module not in PENDING_ENVIRONMENT_READERS
    }
    assert others == {}
    assert ENVIRONMENT_READER in readers
    stale = set(PENDING_ENVIRONMENT_READERS) - set(readers)
    assert stale == set(), "these no longer read the environment: drop them from the list"


def test_the_environment_check_sees_every_spelling() -> None:
    sample = (
        "import os\nfrom os import environ, getenv as g\n"
        "a = os.environ['X']\nb = os.getenv('Y')\nc = {**os.environ}\nos.environ.pop('Z')\n"
    )
    assert set(_environment_uses(sample)) == {"os.environ", "os.getenv"}
    assert _environment_uses("import os\nos.path.join('a')\n") == []


# -- inside the Action: the engine on the modes, the modes on the Action's parts ------------

ACTION_FLOORS = ("amelia.action.engine", "amelia.action.modes", "amelia.action")
"""Top first: the engine routes, resolves the settings and reports; each mode (a package of
its own under `amelia.action.modes`, with what modes share in its private modules) does
one command; the checkout, the settings, the progress and the workflow's files serve both."""
MODE_PACKAGES = ("plan", "implement", "fix", "review", "ask", "scan", "help")
MODE_USES_OF_MODES = {
    ("amelia.action.modes.scan._mode", "amelia.action.modes.plan"): "a scan plans the first "
    "issues it hands out in its own job, with the plan mode",
}


def _action_floor(module: str) -> int:
    return next(index for index, floor in enumerate(ACTION_FLOORS) if _in(module, floor))


def _inside_the_action(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Imports inside `amelia.action` that run from a lower floor to a higher one."""
    found = {
        module: sorted(
            name
            for name in imported
            if _in(name, "amelia.action") and _action_floor(name) < _action_floor(module)
        )
        for module, imported in graph.items()
        if _in(module, "amelia.action")
    }
    return {module: names for module, names in found.items() if names}


def test_inside_the_action_the_engine_stands_on_the_modes_and_they_on_its_parts() -> None:
    assert _inside_the_action(_graph()) == {}
    sample = {"amelia.action.modes.plan._mode": {"amelia.action.engine._report"}}
    assert _inside_the_action(sample) == {
        "amelia.action.modes.plan._mode": ["amelia.action.engine._report"]
    }


def test_each_mode_is_a_package_that_imports_no_other_mode() -> None:
    for name in MODE_PACKAGES:
        assert f"amelia.action.modes.{name}" in _graph(), name
    found = {
        (module, f"amelia.action.modes.{other}")
        for module, imported in _graph().items()
        for own in MODE_PACKAGES
        if _in(module, f"amelia.action.modes.{own}")
        for other in MODE_PACKAGES
        if other != own and any(_in(name, f"amelia.action.modes.{other}") for name in imported)
    }
    assert found == set(MODE_USES_OF_MODES)
