"""A tiny Python project with git history, for tests and `amelia demo`."""

from __future__ import annotations

from pathlib import Path

from amelia.git import Git, run_git

__all__ = ["SAMPLE_FILES", "create_sample_repo"]


SAMPLE_FILES: dict[str, str] = {
    "README.md": "# greeter\n\nA tiny library that greets people.\n",
    "greeter/__init__.py": '"""Greets people."""\n',
    "greeter/core.py": (
        '"""Greeting functions."""\n\n\n'
        "def greet(name: str) -> str:\n"
        '    """Return a friendly greeting for `name`."""\n'
        '    return f"Hello, {name}!"\n'
    ),
    "tests/test_core.py": (
        "from greeter.core import greet\n\n\n"
        "def test_greet() -> None:\n"
        '    assert greet("Ada") == "Hello, Ada!"\n'
    ),
}

_IDENTITY = {"user.name": "Amelia Sample", "user.email": "sample@amelia.invalid"}


def _git(repo: Path, *args: str) -> None:
    run_git(args, Git(repo).with_config(_IDENTITY))


def create_sample_repo(path: Path) -> Path:
    """Create the sample project at `path` as a git repo with two commits on `main`."""
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "--quiet", "--initial-branch=main")
    first = dict(list(SAMPLE_FILES.items())[:3])
    for name, text in first.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    _git(path, "add", "--all")
    _git(path, "commit", "--quiet", "-m", "Add the greeter package")
    (path / "tests").mkdir(exist_ok=True)
    (path / "tests/test_core.py").write_text(SAMPLE_FILES["tests/test_core.py"], encoding="utf-8")
    _git(path, "add", "--all")
    _git(path, "commit", "--quiet", "-m", "Test the greeting")
    return path
