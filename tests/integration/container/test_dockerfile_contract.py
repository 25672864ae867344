"""The product Dockerfile: lint-clean and shaped the way the Action relies on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from scripts.image_rehearsal.instructions import BASE_IMAGE, parse_dockerfile, split_stages
from scripts.image_rehearsal.plan import plan_stages

REPO = Path(__file__).resolve().parents[3]
DOCKERFILE = REPO / "Dockerfile"


def test_hadolint_finds_nothing() -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run(
        [str(hadolint), "--no-color", str(DOCKERFILE)], capture_output=True, text=True
    )
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_every_stage_starts_from_debian_bookworm_slim() -> None:
    stages = split_stages(parse_dockerfile(DOCKERFILE))
    assert [stage.from_instruction.args[0] for stage in stages] == [BASE_IMAGE, BASE_IMAGE]


def test_the_image_starts_amelia_action_from_the_venv() -> None:
    plans = plan_stages(split_stages(parse_dockerfile(DOCKERFILE)), REPO, "base", {})
    config = plans[-1].final_config
    assert config.entrypoint == ("amelia", "action")
    assert config.cmd == ()
    assert config.env["PATH"].split(":")[0] == "/opt/amelia/.venv/bin"
    assert config.user == "root"


def test_uv_builds_the_venv_with_debians_python_only() -> None:
    plans = plan_stages(split_stages(parse_dockerfile(DOCKERFILE)), REPO, "base", {})
    builder_env = plans[0].final_config.env
    assert builder_env["UV_PYTHON_DOWNLOADS"] == "never"
    assert builder_env["UV_PYTHON"] == "/usr/bin/python3.11"
    assert builder_env["UV_PROJECT_ENVIRONMENT"] == "/opt/amelia/.venv"


def test_dependencies_are_installed_before_the_sources_are_copied() -> None:
    builder = split_stages(parse_dockerfile(DOCKERFILE))[0]
    texts = [" ".join(i.original.split()) for i in builder.instructions]
    deps = next(n for n, t in enumerate(texts) if "--no-install-project" in t)
    lock_copy = next(n for n, t in enumerate(texts) if t.startswith("COPY") and "uv.lock" in t)
    source_copy = next(n for n, t in enumerate(texts) if t.startswith("COPY src"))
    assert lock_copy < deps < source_copy


def test_the_final_stage_copies_only_the_venv_from_the_builder() -> None:
    final = split_stages(parse_dockerfile(DOCKERFILE))[-1]
    copies = [i for i in final.instructions if i.keyword == "COPY"]
    assert [(c.flags, c.args) for c in copies] == [
        (("--from=builder",), ("/opt/amelia/.venv", "/opt/amelia/.venv"))
    ]
