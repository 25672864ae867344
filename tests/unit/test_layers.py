"""Imports run one way: entry (cli, commands, action) -> modes -> pipeline -> agents ->
drivers -> core. Every import counts, also the lazy ones inside functions and the ones
made only for type checking."""

from __future__ import annotations

import ast
from collections.abc import Iterator
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


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = set(_imports(path.read_text(encoding="utf-8"), package))
    return graph


GRAPH = _graph()


def _in(name: str, packages: tuple[str, ...] | str) -> bool:
    wanted = (packages,) if isinstance(packages, str) else packages
    return any(name == package or name.startswith(f"{package}.") for package in wanted)


def _offenders(importers: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    found = {
        module: sorted(name for name in imported if _in(name, forbidden))
        for module, imported in GRAPH.items()
        if _in(module, importers)
    }
    return {module: names for module, names in found.items() if names}


def test_every_layer_is_seen() -> None:
    for package in ("amelia.core", "amelia.drivers", "amelia.agents", "amelia.pipeline"):
        assert any(_in(module, package) for module in GRAPH), package


def _outside(package: str, allowed: tuple[str, ...]) -> dict[str, list[str]]:
    """What modules of `package` import from amelia beyond themselves and `allowed`."""
    found = {
        module: sorted(
            name
            for name in imported
            if _in(name, "amelia") and name != "amelia" and not _in(name, (package, *allowed))
        )
        for module, imported in GRAPH.items()
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
    ("amelia.drivers.runtime", "amelia.config"),
    ("amelia.drivers.runtime", "amelia.config.driver_environment"),
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
        for module, imported in GRAPH.items()
        if _in(module, ("amelia.core", "amelia.pipeline"))
    }
    assert {module: names for module, names in found.items() if names} == {}


def test_product_modules_never_import_the_testing_package() -> None:
    found = {
        module: sorted(name for name in imported if _in(name, "amelia.testing"))
        for module, imported in GRAPH.items()
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
