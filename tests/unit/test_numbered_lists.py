"""Every numbered list of the README and the docs counts 1, 2, 3, … without a gap or a
repeat: a reader follows the quick start step by step."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", REPO / "SECURITY.md", *sorted((REPO / "docs").glob("*.md"))]
_ITEM = re.compile(r"^(\d+)\. ")
_HEADING = re.compile(r"^#{1,6} ")


def numbered_lists(text: str) -> list[list[tuple[int, int]]]:
    """The top-level numbered items (line number, number) of each list: a heading or an
    item numbered 1 starts a new list; code blocks, indented lines and paragraphs between
    items do not (the quick start has a workflow file between its steps)."""
    lists: list[list[tuple[int, int]]] = [[]]
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if _HEADING.match(line):
            lists.append([])
        elif item := _ITEM.match(line):
            if int(item.group(1)) == 1:
                lists.append([])  # a list that starts at 1 again is a new list
            lists[-1].append((number, int(item.group(1))))
    return [items for items in lists if items]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_numbered_lists_count_up_by_one(document: Path) -> None:
    for items in numbered_lists(document.read_text(encoding="utf-8")):
        numbers = [number for _, number in items]
        expected = list(range(numbers[0], numbers[0] + len(numbers)))
        assert numbers == expected, f"{document.name} line {items[0][0]}: {numbers}"


def test_the_check_sees_a_list_that_goes_back() -> None:
    text = "## Steps\n\n1. a\n2. b\n\n```yaml\n1. not an item\n```\n\n3. c\n2. d\n## Next\n1. e\n"
    assert [[n for _, n in items] for items in numbered_lists(text)] == [[1, 2, 3, 2], [1]]


def test_a_list_starting_at_one_again_is_a_new_list() -> None:
    text = "## Release\n\n1. build\n2. pin\n\nThe maintainer's part:\n\n1. tag\n2. publish\n"
    assert [[n for _, n in items] for items in numbered_lists(text)] == [[1, 2], [1, 2]]
