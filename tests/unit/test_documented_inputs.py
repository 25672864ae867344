"""Every input of action.yml is documented in README's inputs table with its default, and an
input that takes one of a few words lists each of them there and in action.yml."""

from __future__ import annotations

import re
import typing

import pytest

from amelia.config import ActionInputs
from amelia.testing.action_inputs import ACTION_YML, declared_inputs

README = ACTION_YML.parent / "README.md"
INPUTS = declared_inputs()


def _readme_row(name: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"^\| `{re.escape(name)}` \|(?P<rest>.*)\|$", text, re.MULTILINE)
    assert found is not None, f"README.md has no row for the input `{name}`"
    return [cell.strip() for cell in found["rest"].split("|")]


def _action_yml_description(name: str) -> str:
    block = ACTION_YML.read_text(encoding="utf-8").split(f"\n  {name}:\n", 1)[1]
    found = re.search(r"^    description: (?P<text>.*)$", block, re.MULTILINE)
    assert found is not None, f"action.yml gives `{name}` no description"
    return found["text"]


def test_settings_read_exactly_the_inputs_action_yml_declares() -> None:
    assert set(INPUTS) == set(ActionInputs.model_fields)


@pytest.mark.parametrize("name", list(INPUTS))
def test_readme_documents_each_input_with_its_default(name: str) -> None:
    default, meaning = _readme_row(name)
    if INPUTS[name]:
        assert default == f"`{INPUTS[name]}`"
    else:
        assert default in ("", "driver's default")
    assert meaning


@pytest.mark.parametrize(
    "name",
    [
        name
        for name, field in ActionInputs.model_fields.items()
        if typing.get_origin(field.annotation) is typing.Literal
    ],
)
def test_an_input_of_a_few_words_names_each_of_them(name: str) -> None:
    words = typing.get_args(ActionInputs.model_fields[name].annotation)
    _default, meaning = _readme_row(name)
    description = _action_yml_description(name)
    assert [word for word in words if word not in meaning] == []
    assert [word for word in words if word not in description] == []
