"""The dry run reads from GitHub and records every write of the port instead of making it."""

from __future__ import annotations

import io
import json
from pathlib import Path

from amelia.github.client import GitHubClient
from amelia.github.dry_run import DryRunGitHub


async def test_dry_run_client_saves_writes_instead_of_sending(tmp_path: Path) -> None:
    out = io.StringIO()
    reads = GitHubClient(token="t", repo="o/r", base_url="http://127.0.0.1:9")
    client = DryRunGitHub(reads, directory=tmp_path, stream=out)
    created = await client.create_comment(3, "hello\nworld")
    await client.edit_comment(created.id, "bye")
    await client.delete_comment(created.id)

    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["001-create_comment.json", "002-edit_comment.json", "003-delete_comment.json"]
    first = json.loads((tmp_path / files[0]).read_text())
    assert first == {"action": "create_comment", "issue_number": 3, "body": "hello\nworld"}
    assert "would create comment" in out.getvalue() and "    world" in out.getvalue()
    assert await client.find_comment_with_marker(3, "hello") is not None
