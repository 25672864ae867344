"""Small Dockerfiles on the cached base: what builds, and what fails naming its instruction."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts.image_rehearsal.entrypoint import image_command, run_entrypoint
from scripts.image_rehearsal.errors import RehearsalError
from scripts.image_rehearsal.mounts import mount_points_under

from tests.integration.container.conftest import RehearseSmall, requires_rehearsal

pytestmark = requires_rehearsal

BASE = "FROM debian:bookworm-slim\n"


def test_run_env_arg_workdir_and_copy_shape_the_root(rehearse_small: RehearseSmall) -> None:
    result = rehearse_small(
        BASE + "ARG GREETING=hello\n"
        'ENV TARGET="the world" PATH=/opt/tool/bin:$PATH\n'
        "WORKDIR /srv/app\n"
        'RUN echo "$GREETING $TARGET from $(pwd) as $(id -u)" > said.txt\n'
        "COPY notes.txt conf/ ./\n"
        "COPY --chmod=755 tool.sh /opt/tool/bin/tool\n"
        'ENTRYPOINT ["tool"]\n',
        files={"notes.txt": "n", "conf/a.ini": "a=1", "tool.sh": "#!/bin/sh\necho tool\n"},
    )
    app = result.root / "srv/app"
    assert (app / "said.txt").read_text() == "hello the world from /srv/app as 0\n"
    assert (app / "notes.txt").read_text() == "n"
    assert (app / "a.ini").read_text() == "a=1"
    tool = result.root / "opt/tool/bin/tool"
    assert tool.stat().st_mode & 0o777 == 0o755
    assert (tool.stat().st_uid, tool.stat().st_gid) == (0, 0)
    assert "GREETING" not in result.config.env
    assert result.size_mb > 50


def test_dockerignore_keeps_files_out_of_a_copy(rehearse_small: RehearseSmall) -> None:
    result = rehearse_small(
        BASE + 'COPY . /ctx/\nENTRYPOINT ["true"]\n',
        files={
            ".dockerignore": "secret.env\n**/*.pyc\n",
            "secret.env": "x",
            "a/b.py": "",
            "a/b.pyc": "",
        },
    )
    copied = sorted(
        p.relative_to(result.root / "ctx").as_posix() for p in (result.root / "ctx").rglob("*")
    )
    assert copied == [".dockerignore", "Dockerfile", "a", "a/b.py"]


def test_copy_from_an_earlier_stage_and_start_it_as_an_action(
    rehearse_small: RehearseSmall, tmp_path: Path
) -> None:
    result = rehearse_small(
        "FROM debian:bookworm-slim AS maker\nRUN mkdir /out && echo made > /out/thing\n"
        "FROM debian:bookworm-slim\nCOPY --from=maker /out /data\n"
        'ENTRYPOINT ["/bin/sh", "-c", "cat /data/thing; echo \\"seen=$INPUT_WHO\\" >> '
        '$GITHUB_OUTPUT; ls -n -d . | cut -d\\" \\" -f3"]\n'
    )
    assert not (result.root / "out").exists()
    workspace = tmp_path / "checkout"
    workspace.mkdir()
    run = run_entrypoint(
        result.root,
        {"INPUT_WHO": "octocat"},
        workspace,
        {"action": "created"},
        command=image_command(result.config),
        image_env=result.config.env,
    )
    assert (run.returncode, run.stdout, run.outputs) == (0, "made\n1001\n", {"seen": "octocat"})
    assert workspace.stat().st_uid == 1001
    assert {p.name for p in mount_points_under(tmp_path / "work")} == {"rootfs"}


@pytest.mark.parametrize(
    ("dockerfile", "files", "message"),
    [
        (BASE + "RUN true\nRUN exit 3\n", {}, r"RUN failed with exit code 3 at line 3: RUN exit 3"),
        (BASE + "COPY missing.txt /m\n", {}, r"'missing.txt' is not in the build context.*line 2"),
        (
            BASE + "COPY ignored.txt /m\n",
            {".dockerignore": "ignored.txt\n", "ignored.txt": "x"},
            r"'ignored.txt' is not in the build context.*line 2",
        ),
        (
            BASE + 'ENTRYPOINT ["no-such-binary", "action"]\n',
            {},
            r"ENTRYPOINT executable 'no-such-binary' is not in the image .*line 2",
        ),
        (
            BASE + 'COPY --chmod=755 tool.sh /usr/local/bin/tool\nENTRYPOINT ["tool"]\n',
            {"tool.sh": "#!/opt/missing/python\n"},
            r"needs interpreter /opt/missing/python.*line 3",
        ),
        (
            "FROM debian:bookworm-slim AS a\nFROM debian:bookworm-slim\n"
            "COPY --from=a /nothing /n\n",
            {},
            r"'/nothing' does not exist in stage a at line 3",
        ),
        (BASE + "USER nobody\nVOLUME /data\n", {}, r"unsupported instruction VOLUME at line 3"),
    ],
)
def test_a_broken_dockerfile_fails_naming_the_instruction(
    rehearse_small: RehearseSmall,
    tmp_path: Path,
    dockerfile: str,
    files: dict[str, str],
    message: str,
) -> None:
    with pytest.raises(RehearsalError, match=message):
        rehearse_small(dockerfile, files)
    assert mount_points_under(tmp_path) == []


@pytest.mark.e2e
def test_a_misspelled_apt_package_fails_the_run_step(rehearse_small: RehearseSmall) -> None:
    with pytest.raises(RehearsalError) as failure:
        rehearse_small(
            BASE + "RUN apt-get update && apt-get install -y --no-install-recommends "
            "python3-venvv\n"
        )
    message = str(failure.value)
    assert "RUN failed with exit code 100 at line 2: RUN apt-get update" in message
    assert "Unable to locate package python3-venvv" in message
