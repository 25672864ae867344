"""What of the toolchain's PATH the agent user could not reach, as the agent's view says."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.toolchain.reach import BlockedProgram, blocked_toolchain, command_programs


@pytest.mark.parametrize(
    ("command", "programs"),
    [
        ('python3 -c "import tomli_w"', ["python3"]),
        ("FOO=1 pytest -q && cd x; npm test | tee out # python", ["pytest", "npm", "tee"]),
        ("if [ -f x ]; then make check; fi", ["make"]),
        ("/root/.pyenv/shims/python -m pytest", ["/root/.pyenv/shims/python"]),
        ('"$PYTHON" -m pytest\nuv run pytest', ["uv"]),
        ("time nohup cargo test", ["cargo"]),
    ],
)
def test_the_programs_of_a_command_line_are_the_words_bash_looks_up(
    command: str, programs: list[str]
) -> None:
    assert command_programs(command) == programs


def _program(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / name
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def test_a_test_program_found_where_the_agent_cannot_reach_is_named_with_what_it_would_run(
    tmp_path: Path,
) -> None:
    closed = tmp_path / "root" / ".pyenv" / "shims"
    shim = _program(closed, "python3")
    system = _program(tmp_path / "usr" / "bin", "python3")
    _program(tmp_path / "usr" / "bin", "pytest")
    empty_closed = tmp_path / "root" / ".cargo" / "bin"
    empty_closed.mkdir(parents=True)
    path = f"{closed}:{empty_closed}:{tmp_path / 'missing'}:{system.parent}"

    def can_reach(target: Path) -> bool:
        return not target.is_relative_to(tmp_path / "root")

    reach = blocked_toolchain(
        path, can_reach=can_reach, test_command='python3 -c "import tomli_w" && pytest'
    )

    assert reach.blocked
    assert reach.programs == (BlockedProgram("python3", shim, system),)
    assert reach.added == ()
    assert reach.others == (str(empty_closed),)  # named in a warning, not a reason to stop

    only_closed = blocked_toolchain(str(closed), can_reach=can_reach, test_command="python3")
    assert only_closed.programs == (BlockedProgram("python3", shim, None),)


def test_directories_the_setup_added_count_when_the_agent_cannot_reach_them(
    tmp_path: Path,
) -> None:
    closed, open_ = tmp_path / "root" / "bin", tmp_path / "opt" / "bin"
    closed.mkdir(parents=True)
    open_.mkdir(parents=True)

    def can_reach(target: Path) -> bool:
        return not target.is_relative_to(tmp_path / "root")

    reach = blocked_toolchain(
        f"{closed}:{open_}", can_reach=can_reach, added=[str(closed), str(open_)]
    )
    assert reach.added == (str(closed),) and reach.programs == () and reach.others == ()

    fine = blocked_toolchain(
        f"{closed}:{open_}", can_reach=can_reach, added=[str(open_)], test_command="make"
    )
    assert not fine.blocked and fine.others == (str(closed),)
