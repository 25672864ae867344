"""The held-back block: which files were not pushed and why, their change as a patch that
applies (unless too long or holding a credential), where they were saved, and what would
let amelia push them."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.action.checkout._held_back import HoldBack
from amelia.action.checkout._held_back_report import (
    INLINE_LIMIT,
    PERMISSION_HINT,
    held_back_lines,
    held_back_summary,
    large_file_note,
    verdict_note,
)
from amelia.git import MAX_FILE_BYTES, PushAllowance
from tests.git_helpers import git, init_repo

WORKFLOW = ".github/workflows/ci.yml"
SECRET = "run-secret-value-0123456789"


def _held(tmp_path: Path, files: dict[str, str | int]) -> tuple[Path, HoldBack, list[str]]:
    repo = init_repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, int):
            with path.open("wb") as handle:
                handle.truncate(content)
        else:
            path.write_text(content, encoding="utf-8")
    holding = HoldBack(
        allowance=PushAllowance(ask=lambda: False),
        directory=tmp_path / "artifacts" / "held-back",
        secrets=[SECRET],
    )
    keep = holding.split(repo, list(files))
    return repo, holding, keep


def _patch_in(text: str) -> str:
    start = text.index("```diff\n") + len("```diff\n")
    return text[start : text.index("\n```", start)] + "\n"


def test_the_block_names_the_file_its_reason_the_permission_and_a_patch_that_applies(
    tmp_path: Path,
) -> None:
    repo, holding, keep = _held(tmp_path, {"app2.py": "y = 2\n", WORKFLOW: "on: push\n"})
    assert keep == ["app2.py"]
    work = holding.work
    assert work is not None and [f.path for f in work.files] == [WORKFLOW]

    block = "\n".join(held_back_lines(work))

    assert f"- `{WORKFLOW}`: a workflow file" in block and "`workflows` permission" in block
    assert PERMISSION_HINT in block
    assert "<details>" in block and "</details>" in block
    assert str(work.patch_path) in block
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (clone / "p.patch").write_text(_patch_in(block), encoding="utf-8")
    git(clone, "apply", "p.patch")
    assert (clone / WORKFLOW).read_text() == "on: push\n"
    assert (tmp_path / "artifacts" / "held-back" / "files" / WORKFLOW).read_text() == "on: push\n"
    summary = held_back_summary(work)
    assert "### Not pushed" in summary and str(work.patch_path) in summary
    assert f"`{WORKFLOW}` (workflow file)" in verdict_note(work)


def test_a_patch_too_long_to_show_says_where_it_is(tmp_path: Path) -> None:
    long = "".join(f"      - run: echo step {n}\n" for n in range(INLINE_LIMIT // 20))
    _repo, holding, _keep = _held(tmp_path, {WORKFLOW: "on: push\njobs:\n" + long})
    work = holding.work
    assert work is not None and len(work.patch) > INLINE_LIMIT

    block = "\n".join(held_back_lines(work))

    assert "```diff" not in block and "too long to show here" in block
    assert str(work.patch_path) in block
    assert len(block) < 5_000


def test_a_held_file_holding_a_secret_is_not_shown_and_saved_masked(tmp_path: Path) -> None:
    _repo, holding, _keep = _held(
        tmp_path,
        {WORKFLOW: f"env:\n  TOKEN: {SECRET}\n", ".github/workflows/b.yml": "on: push\n"},
    )
    work = holding.work
    assert work is not None
    block = "\n".join(held_back_lines(work))
    assert SECRET not in block and SECRET not in work.patch
    assert "Not shown here: it holds the value of a secret of this run" in block
    assert work.shown == (".github/workflows/b.yml",)
    saved = tmp_path / "artifacts" / "held-back" / "files" / WORKFLOW
    assert saved.read_text() == "env:\n  TOKEN: ***\n"


@pytest.fixture(scope="module")
def one_byte_over(tmp_path_factory: pytest.TempPathFactory) -> tuple[HoldBack, list[str]]:
    """A file one byte over GitHub's limit held back (and saved, masked: a pass over its
    100 MiB), once for the tests that read what came of it."""
    size = MAX_FILE_BYTES + 1
    _repo, holding, keep = _held(
        tmp_path_factory.mktemp("one-byte-over"), {"data/big.bin": size, "app2.py": "y = 2\n"}
    )
    return holding, keep


def test_a_file_over_the_limit_is_never_diffed_and_is_saved_whole(
    one_byte_over: tuple[HoldBack, list[str]],
) -> None:
    size = MAX_FILE_BYTES + 1
    holding, keep = one_byte_over
    assert keep == ["app2.py"]
    work = holding.work
    assert work is not None and work.patch == "" and work.shown == ()
    block = "\n".join(held_back_lines(work))
    assert (
        "`data/big.bin`: too large for GitHub (100.00 MiB, 104,857,601 bytes; GitHub refuses "
        "files over 100 MiB, 104,857,600 bytes" in block
    )
    assert "Not shown here: too large to show" in block and "Git LFS" in block
    assert PERMISSION_HINT not in block
    saved = work.saved("data/big.bin")
    assert saved is not None and saved.stat().st_size == size and str(saved) in block


def test_a_file_one_byte_over_the_limit_shows_why_it_is_too_large(
    one_byte_over: tuple[HoldBack, list[str]],
) -> None:
    holding, _keep = one_byte_over
    work = holding.work
    assert work is not None

    block = "\n".join(held_back_lines(work))

    assert "(100.00 MiB, 104,857,601 bytes; GitHub refuses files over 100 MiB, 104,857,600" in block


def test_nothing_held_back_leaves_no_block_and_no_files(tmp_path: Path) -> None:
    _repo, holding, keep = _held(tmp_path, {"app2.py": "y = 2\n"})
    assert keep == ["app2.py"] and holding.work is None
    assert not (tmp_path / "artifacts" / "held-back").exists()


def test_files_github_warns_about_are_named() -> None:
    assert large_file_note({}) is None
    note = large_file_note({"data/a.bin": 60 * 1024 * 1024})
    assert note is not None and "`data/a.bin` (60.00 MiB, 62,914,560 bytes)" in note
    assert "50 MiB" in note


def test_a_later_commit_without_the_file_holds_nothing_back(tmp_path: Path) -> None:
    repo, holding, _keep = _held(tmp_path, {WORKFLOW: "on: push\n"})
    assert holding.work is not None
    (repo / WORKFLOW).unlink()  # the developer's next round took it out again

    assert holding.split(repo, ["app.py"]) == ["app.py"]
    assert holding.work is None
    assert not (tmp_path / "artifacts" / "held-back").exists()


def test_a_held_file_holding_a_stripe_or_gitlab_key_is_not_shown(tmp_path: Path) -> None:
    stripe = "sk_" + "live_51H8x" + "Zq3Rt" * 18
    gitlab = "glpat-" + "xY7z" + "Ab12Cd34Ef56Gh78"
    _repo, holding, _keep = _held(
        tmp_path,
        {
            ".github/workflows/deploy.yml": f"env:\n  STRIPE: {stripe}\n  GITLAB: {gitlab}\n",
            ".github/workflows/b.yml": "on: push\n",
        },
    )
    work = holding.work
    assert work is not None

    block = "\n".join(held_back_lines(work))

    assert stripe not in block and gitlab not in block
    assert any(
        f"Not shown here: it holds a string shaped like a {kind}" in block
        for kind in ("Stripe API key", "GitLab token")
    )
    assert work.shown == (".github/workflows/b.yml",)


def test_when_no_change_is_shown_every_text_says_so_and_where_the_files_are(
    tmp_path: Path,
) -> None:
    _repo, holding, _keep = _held(tmp_path, {WORKFLOW: f"env:\n  TOKEN: {SECRET}\n"})
    work = holding.work
    assert work is not None and work.shown == ()
    block = "\n".join(held_back_lines(work))
    note = verdict_note(work)
    summary = held_back_summary(work)

    # The review does not point to a patch the description does not have.
    assert "as a patch" not in note
    assert "does not show their change" in note
    # One whole sentence: what was saved, where, and the upload step that keeps it.
    assert "The files as the agents left them:" not in block
    files = tmp_path / "artifacts" / "held-back" / "files"
    assert f"amelia saved each held-back file (credentials masked) under `{files}`" in block
    assert "actions/upload-artifact" in block and "keeps them with the workflow run" in block
    # No empty patch is saved, nor pointed to.
    assert not (tmp_path / "artifacts" / "held-back" / "held-back.patch").exists()
    assert work.patch_path is None
    assert "held-back.patch" not in summary and "git apply" not in summary
    assert str(files) in summary


def test_when_the_push_of_the_rest_failed_the_block_does_not_say_it_was_pushed(
    tmp_path: Path,
) -> None:
    _repo, holding, _keep = _held(tmp_path, {WORKFLOW: "on: push\n"})
    work = holding.work
    assert work is not None

    pushed = "\n".join(held_back_lines(work))
    failed = "\n".join(held_back_lines(work, rest_pushed=False))

    assert "amelia pushed the rest of the change without them" in pushed
    assert "pushed the rest" not in failed
    assert "so amelia left them out of its commits, and the push of the rest failed" in failed
