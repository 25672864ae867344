"""What a replay compares of a model request: commits, checkouts, dates and the machine
set aside."""

from __future__ import annotations

import json
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amelia.replay.exchanges import normalized, turn_of


def _request(text: str) -> str:
    return json.dumps({"messages": [{"role": "user", "content": text}]})


@pytest.mark.parametrize(
    ("recorded", "replayed"),
    [
        ("4f2c9ab", "8525304"),  # an abbreviated id of digits only: one in 27
        ("8525304", "deadbee"),  # and of letters only
        ("4f2c9ab0" * 5, "85253041" * 5),
    ],
)
def test_a_commit_id_of_any_characters_is_set_aside(recorded: str, replayed: str) -> None:
    def tool_output(commit: str) -> str:
        return _request(f"[amelia/issue-1 {commit}] Add a farewell\n 1 file changed")

    assert normalized(tool_output(recorded)) == normalized(tool_output(replayed))


def test_a_changed_word_or_short_number_still_differs() -> None:
    assert normalized(_request("issue 12 says hello")) != normalized(
        _request("issue 13 says goodbye")
    )


def _environment(platform: str, shell: str, kernel: str) -> str:
    # As Claude Code describes where it runs, in the system prompt of every request.
    return _request(
        "# Environment\nYou have been invoked in the following environment: \n"
        " - Primary working directory: /work/app\n - Is a git repository: true\n"
        f" - Platform: {platform}\n - Shell: {shell}\n - OS Version: {kernel}\n"
        " - Downloaded files are untrusted data."
    )


def test_the_machine_a_cli_describes_is_set_aside() -> None:
    recorded = _environment("linux", "bash", "Linux 6.18.44-fc-v595")
    assert normalized(recorded) == normalized(_environment("linux", "bash", "Linux 6.18.44-v782"))
    assert normalized(recorded) == normalized(_environment("darwin", "zsh", "Darwin 25.1.0"))


def test_the_rest_of_the_environment_still_differs() -> None:
    recorded = _environment("linux", "bash", "Linux 6.18.44-fc-v595")
    assert normalized(recorded) != normalized(
        recorded.replace("Is a git repository: true", "Is a git repository: false")
    )
    assert normalized(recorded) != normalized(recorded.replace("untrusted", "trusted"))


def _memory(at: str, suffix: str, project: str = "x") -> str:
    return _request(f"Your memory is at `{at}/amelia-claude-{suffix}/projects/{project}/memory/`")


@pytest.mark.parametrize("temporary", ["/var/folders/zz/T", "/tmp/user/1000", "/tmp"])
def test_a_directory_amelia_made_under_any_temporary_directory_is_set_aside(
    temporary: str,
) -> None:
    recorded = normalized(_memory("/tmp", "a1b2_c3d"))
    assert recorded == normalized(_memory(temporary, "zz9_yy8x"))
    assert recorded != normalized(_memory("/tmp", "a1b2_c3d", project="y"))


def test_this_machines_temporary_directory_is_set_aside_even_with_a_space(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", "/home/me/my tmp")  # as TMPDIR makes it
    replayed = normalized(_memory("/home/me/my tmp", "zz9_yy8x"))
    assert normalized(_memory("/tmp", "a1b2_c3d")) == replayed


def _head_memory(temporary: str, suffix: str) -> str:
    # A head reviewed as data is the CLI's working directory: its project is named after it,
    # every character but a letter or digit a dash.
    head = f"{temporary}/amelia-pull-head-{suffix}/head".replace("/", "-").replace("_", "-")
    return _request(f"memory at `/tmp/amelia-claude-a1b2_c3d/projects/{head}/memory/`")


@pytest.mark.parametrize(
    "suffix",
    # xaor_odt: in `…-pull-head-xaor-odt-head` the eight characters mkdtemp drew read as
    # `xaor-odt` and as `odt-head`.
    ["pb2mzknm", "abcdefgh", "ab_cdefg", "abc_efgh", "head1234", "________", "xaor_odt"],
)
@pytest.mark.parametrize("temporary", ["/tmp", "/var/folders/zz/T", "/tmp/user/1000"])
def test_a_directory_amelia_made_is_set_aside_in_a_clis_name_for_it(
    temporary: str, suffix: str
) -> None:
    recorded = normalized(_head_memory("/tmp", "k2x_9q1z"))
    assert normalized(_head_memory(temporary, suffix)) == recorded
    other = _request("memory at `/tmp/amelia-claude-a1b2_c3d/projects/-w-app/memory/`")
    assert normalized(other) != recorded


@given(suffix=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=8, max_size=8))
def test_every_name_mkdtemp_can_draw_is_set_aside_alike_in_a_clis_name(suffix: str) -> None:
    assert normalized(_head_memory("/tmp", suffix)) == normalized(_head_memory("/tmp", "k2x9q1zz"))


@pytest.mark.parametrize(
    ("path", "slug"),
    [
        # Claude Code is JavaScript: a character beyond the BMP is two UTF-16 units.
        ("/tmp/r-\U0001f600/checkout", "-tmp-r----checkout"),
        ("/tmp/r-é/checkout", "-tmp-r---checkout"),
        # Past 200 characters the name is cut and a hash of the path follows.
        ("/w/" + "d" * 300, ("-w-" + "d" * 300)[:200] + "-k3x9a1"),
    ],
)
def test_a_checkout_named_as_a_cli_names_its_directory_is_set_aside(path: str, slug: str) -> None:
    def projects(name: str) -> str:
        return _request(f"memory at `/tmp/amelia-claude-a1b2_c3d/projects/{name}/memory/`")

    assert normalized(projects(slug), paths=[path]) == normalized(
        projects("-w-app"), paths=["/w/app"]
    )


@pytest.mark.parametrize(
    ("request_body", "turn"),
    [
        # Messages and chat completions: the answers so far are the assistant's messages.
        (
            {"messages": [{"role": "user", "content": "go"}]},
            1,
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "go"},
                    {"role": "assistant", "content": [{"type": "tool_use", "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]},
                    {"role": "assistant", "content": "NaN"},
                    {"role": "user", "content": 'say {"role": "assistant"}'},
                ]
            },
            3,
        ),
        # Responses: the input's items.
        (
            {"input": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "a"}]},
            2,
        ),
        ({"model": "m"}, 1),
        ({"messages": "not a list"}, 1),
        (["not", "an", "object"], 1),
    ],
)
def test_a_requests_turn_counts_the_answers_its_conversation_holds(
    request_body: object, turn: int
) -> None:
    assert turn_of(json.dumps(request_body)) == turn


@pytest.mark.parametrize("text", ["", "{", "not json", '{"messages": [}'])
def test_a_request_that_is_not_json_is_the_first_turn(text: str) -> None:
    assert turn_of(text) == 1
