"""The container tests' runner builds `docker run` as actions/runner does (no engine needed)."""

from __future__ import annotations

from pathlib import Path

from amelia.testing.action_inputs import declared_inputs
from tests.integration.container.engine import Engine
from tests.integration.container.runner import (
    ActionManifest,
    ContainerActionRunner,
    GitHubContext,
    RunnerDirectories,
)

ENGINE = Engine(client="docker", host="unix:///run/some-engine.sock")
TOKEN = "ghs_" + "RunnerContractToken0123456789abcdef"


def _built(tmp_path: Path) -> tuple[list[str], dict[str, str], RunnerDirectories]:
    directories = RunnerDirectories(
        temp=tmp_path / "_work" / "_temp", workspace=tmp_path / "_work" / "app" / "app"
    )
    runner = ContainerActionRunner(ENGINE, "amelia:test")
    variables = runner.environment(
        directories,
        event_name="issue_comment",
        github=GitHubContext(),
        inputs={"anthropic_api_key": "sk-ant-contract-key", "plan_dir": "plans"},
        token=TOKEN,
        env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
        runtime_token="eyJruntime",
        file_commands={"GITHUB_OUTPUT": "set_output_1", "GITHUB_STEP_SUMMARY": "step_summary_1"},
    )
    argv, _name = runner.command(directories, list(variables), {})
    return argv, variables, directories


def test_every_variable_goes_by_name_so_no_value_is_on_the_command_line(tmp_path: Path) -> None:
    argv, variables, _ = _built(tmp_path)
    passed = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-e"]
    assert passed == [*variables, "GITHUB_ACTIONS=true", "CI=true"]
    line = " ".join(argv)
    for secret in (TOKEN, "sk-ant-contract-key", "eyJruntime"):
        assert secret not in line


def test_every_input_of_action_yml_is_passed_with_its_default(tmp_path: Path) -> None:
    _, variables, _ = _built(tmp_path)
    declared = declared_inputs()
    inputs = {name: value for name, value in variables.items() if name.startswith("INPUT_")}
    assert set(inputs) == {f"INPUT_{name.upper()}" for name in declared}
    assert inputs["INPUT_GITHUB_TOKEN"] == TOKEN
    assert inputs["INPUT_PLAN_DIR"] == "plans"
    assert inputs["INPUT_TRIGGER_PHRASE"] == declared["trigger_phrase"] == "/amelia"


def test_host_paths_under_a_mount_become_the_containers(tmp_path: Path) -> None:
    _, variables, directories = _built(tmp_path)
    assert variables["HOME"] == "/github/home"
    assert variables["GITHUB_WORKSPACE"] == "/github/workspace"
    assert variables["GITHUB_EVENT_PATH"] == "/github/workflow/event.json"
    assert variables["GITHUB_OUTPUT"] == "/github/file_commands/set_output_1"
    assert variables["RUNNER_TEMP"] == "/github/runner_temp"
    # Not under a mount: passed as the host's path, as the runner does.
    assert variables["RUNNER_WORKSPACE"] == str(directories.workspace.parent)
    assert variables["ACTIONS_RUNTIME_TOKEN"] == "eyJruntime"
    assert variables["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"


def test_the_mounts_workdir_and_removal_are_the_runners(tmp_path: Path) -> None:
    argv, _, directories = _built(tmp_path)
    assert argv[:1] == ["run"]
    assert argv[argv.index("--workdir") + 1] == "/github/workspace"
    assert "--rm" in argv
    volumes = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-v"]
    assert volumes == [
        "/run/some-engine.sock:/var/run/docker.sock",
        f"{directories.temp}:/github/runner_temp",
        f"{directories.temp}/_github_home:/github/home",
        f"{directories.temp}/_github_workflow:/github/workflow",
        f"{directories.temp}/_runner_file_commands:/github/file_commands",
        f"{directories.workspace}:/github/workspace",
    ]
    # action.yml sets no entrypoint or args: the image's ENTRYPOINT runs, with nothing after.
    assert "--entrypoint" not in argv
    assert argv[-1] == "amelia:test"


def test_amelias_action_yml_is_a_docker_action_without_args() -> None:
    manifest = ActionManifest.load()
    assert manifest.entrypoint is None and manifest.args is None
    assert manifest.image == "Dockerfile" or manifest.image.startswith("docker://")
