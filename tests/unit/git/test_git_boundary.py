"""One git layer: only `amelia.git` starts git, and it depends on nothing else of amelia."""

from __future__ import annotations

import ast
from pathlib import Path

import amelia

SRC = Path(amelia.__file__).parent
GIT_LAYER = SRC / "git"

# Functions that start a process, by the name they are called with (`subprocess.run`,
# `asyncio.create_subprocess_exec`, `os.execvp`, ... or imported bare).
PROCESS_STARTERS = frozenset(
    {
        "run",
        "Popen",
        "call",
        "check_call",
        "check_output",
        "getoutput",
        "getstatusoutput",
        "create_subprocess_exec",
        "create_subprocess_shell",
        "system",
        "popen",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "execl",
        "execlp",
        "spawnv",
        "spawnvp",
        "posix_spawn",
        "posix_spawnp",
    }
)
PROCESS_MODULES = frozenset({"subprocess", "asyncio", "os"})


def _called_name(call: ast.Call) -> tuple[str | None, str | None]:
    """(module, function) of a call such as `subprocess.run(...)`, or (None, name)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        owner = func.value
        if isinstance(owner, ast.Name):
            return owner.id, func.attr
        if isinstance(owner, ast.Attribute):  # asyncio.subprocess.create_subprocess_exec
            return owner.attr, func.attr
        return None, func.attr
    if isinstance(func, ast.Name):
        return None, func.id
    return None, None


def _names_git(node: ast.AST) -> bool:
    """True when a string constant in `node` is the program `git` (alone or as the start of
    a command line)."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            text = inner.value.strip()
            if text == "git" or text.startswith(("git ", "/usr/bin/git")):
                return True
    return False


def _git_starts(path: Path, root: Path = SRC) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            module, function = _called_name(node)
            starts_process = function in PROCESS_STARTERS and (
                module in PROCESS_MODULES or module is None
            )
            if starts_process and any(_names_git(arg) for arg in [*node.args, *node.keywords]):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
        elif isinstance(node, ast.List | ast.Tuple) and node.elts:
            # An argument list built ahead of the call: ["git", ...].
            first = node.elts[0]
            if isinstance(first, ast.Constant) and first.value == "git":
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return sorted(set(found))


def _amelia_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return {name for name in names if name == "amelia" or name.startswith("amelia.")}


def test_no_module_but_the_git_layer_starts_git() -> None:
    offenders = [
        where
        for path in sorted(SRC.rglob("*.py"))
        if not path.is_relative_to(GIT_LAYER)
        for where in _git_starts(path)
    ]
    assert offenders == []


def test_the_check_finds_a_module_that_starts_git(tmp_path: Path) -> None:
    sample = tmp_path / "probe.py"
    cases = {
        "import subprocess\nsubprocess.run(['git', 'status'])\n": 1,
        "import asyncio\nasync def f():\n    await asyncio.create_subprocess_exec('git')\n": 1,
        "from subprocess import check_output\ncheck_output(('git', 'rev-parse', 'HEAD'))\n": 1,
        "import os\nos.system('git push')\n": 1,
        "import subprocess\nsubprocess.run(['ls'])\n": 0,
    }
    for source, expected in cases.items():
        sample.write_text(source, encoding="utf-8")
        assert len(_git_starts(sample, tmp_path)) == expected, source


def test_the_git_layer_imports_only_errors_and_redaction() -> None:
    allowed = ("amelia.errors", "amelia.redaction", "amelia.git")
    outside = {
        f"{path.relative_to(SRC)}: {name}"
        for path in GIT_LAYER.rglob("*.py")
        for name in _amelia_imports(path)
        if not name.startswith(allowed)
    }
    assert outside == set()


def test_the_git_layer_keeps_no_ambient_state() -> None:
    """What a command gets travels in the `Git` value it is handed: no module of the layer
    holds a context variable that a `with` block in another file could set."""
    holders = sorted(
        str(path.relative_to(SRC))
        for path in GIT_LAYER.rglob("*.py")
        if "contextvars" in _imports_of(path) or "ContextVar" in path.read_text(encoding="utf-8")
    )
    assert holders == []


def _imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names
