"""Record a run under `$AMELIA_HOME/runs/<id>/` (see `amelia.replay.format`).

    recorder = Recorder.start(settings, event_name=…, event_path=…, repo=…, redactor=…)
    github = recorder.github(github)                # every GitHub call
    agent_runtime(…, observer=recorder)             # every model exchange of the proxy
    recorder.checkout_started(checkout.git, …)      # before the mode touches the checkout
    recorder.finish(checkout.git, exit_code=…, …)   # the outcome and the starting pack

Every text goes through the run's redactor and then loses every spelling of every secret
the run knows (as it is, base64, hex), so nothing written holds a credential. The model
exchanges and GitHub calls are cleaned and written on a thread of their own
(`amelia.replay.appender`), in order, so the proxy's event loop only hands them over; the
exchanges of a session are held until the run next calls GitHub (between stages) or
finishes, so that thread does not compete with the session's own requests; `finish` waits
for all of them. A failure to record is a warning: it never fails the run.
"""

from __future__ import annotations

import gzip
import itertools
import json
import uuid
import zlib
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loguru import logger

from amelia import __version__
from amelia.errors import AmeliaError
from amelia.git import Git, mask_secrets
from amelia.redaction import NeedleMemory, Redactor
from amelia.redaction.names import is_secret_name
from amelia.replay.appender import Appender
from amelia.replay.checkout import (
    fetched_by_the_run,
    file_at,
    origin_as_seen,
    origin_logged,
    pack_start,
    pushed_commits,
    starting_checkout,
)
from amelia.replay.exchanges import agent_of, turn_of
from amelia.replay.format import (
    CHECKOUT_PACK,
    FORMAT_VERSION,
    GITHUB_FILE,
    MANIFEST_FILE,
    MODEL_FILE,
    GitHubCall,
    Manifest,
    ModelExchange,
    RecordedOutcome,
    masked_secret,
)
from amelia.replay.github import RecordingGitHub
from amelia.replay.streams import coalesced

if TYPE_CHECKING:
    from amelia.config import Settings
    from amelia.github.port import GitHubPort
    from amelia.isolation.proxy import ProxiedExchange

__all__ = ["RECORDED_PREFIXES", "Cleaner", "Recorder", "recording_environment"]

RECORDED_PREFIXES = (
    "INPUT_",
    "GITHUB_",
    "AMELIA_",
    "CLAUDE_",
    "ANTHROPIC_",
    "OPENAI_",
    "OPENROUTER_",
    "RUNNER_",
)
"""The variables a recording keeps (secrets blanked): what configures a run."""
_LOCAL_VARIABLES = frozenset(
    {
        "GITHUB_EVENT_PATH",
        "GITHUB_OUTPUT",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_ENV",
        "GITHUB_PATH",
        "GITHUB_STATE",
        "RUNNER_TEMP",
        "RUNNER_TOOL_CACHE",
        "AMELIA_HOME",
        "AMELIA_DRY_RUN_DIR",
        "AMELIA_ARTIFACTS_DIR",
        "AMELIA_HANDOFF_FD",
        "CLAUDE_CONFIG_DIR",
    }
)
"""Paths of the machine that ran: a replay puts its own there."""
_KEPT_HEADERS = frozenset({"content-type", "request-id", "x-request-id"})


def recording_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables a recording keeps: each secret masked (`masked_secret`: `***` when
    set, "" when not, `NAME=***` for each line of the MCP servers' secrets), paths of the
    machine left out."""
    kept: dict[str, str] = {}
    for name, value in sorted(environ.items()):
        if not name.startswith(RECORDED_PREFIXES) or name in _LOCAL_VARIABLES:
            continue
        secret = is_secret_name(name) or name.endswith(("_KEY", "_TOKEN", "_SECRETS"))
        kept[name] = masked_secret(name, value) if secret else value
    return kept


def _decoded(body: bytes, headers: Iterable[tuple[str, str]]) -> bytes:
    encoding = next((v.strip().lower() for k, v in headers if k.lower() == "content-encoding"), "")
    try:
        if encoding == "gzip":
            return gzip.decompress(body)
        if encoding == "deflate":
            return zlib.decompress(body)
    except (OSError, zlib.error):
        return body
    return body


class Cleaner:
    """Masks every secret of a text: the redactor's, then every spelling of `secrets`."""

    def __init__(self, redactor: Redactor, secrets: Iterable[str]) -> None:
        self._redactor = redactor
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)
        self._needles = NeedleMemory()

    def clean(self, text: str, *, repeated: bool = False) -> str:
        """`text` masked. `repeated`: it repeats most of an earlier text given so (a model
        request resends the conversation so far), so the search for token formats looks
        only at what is new in it; what is masked is the same."""
        redacted = self._redactor.redact(text, needles=self._needles if repeated else None)
        if not self._secrets:
            return redacted
        data = mask_secrets(redacted.encode("utf-8"), self._secrets)
        return data.decode("utf-8", "replace")

    def tree(self, value: Any) -> Any:
        """A JSON value with every secret masked."""
        return json.loads(self.clean(json.dumps(value, ensure_ascii=False)))


def _trusting(git: Git) -> Git:
    """`git`, trusting its checkout for the recording's reads only: on a runner another uid
    owns the checkout (the runner's, or the agent user's while agents run), and amelia's
    own git trusts it only between the checkout's preparation and its restoration, while
    the recording reads it before the one and after the other."""
    return git.with_config({"safe.directory": str(git.path.resolve())})


class Recorder:
    """Writes one run's recording; `exchange` and the GitHub calls only hand their entry
    to the appender's thread, so the proxy's loop never waits for a recording."""

    def __init__(self, directory: Path, manifest: Manifest, *, cleaner: Cleaner) -> None:
        self.directory = directory
        self.manifest = manifest
        self._cleaner = cleaner
        self.clean = cleaner.clean
        self._appender = Appender(directory)
        self._indexes = itertools.count(1)
        self._origin_logged: dict[str, int] = {}
        self._write_manifest()

    @classmethod
    def start(
        cls,
        settings: Settings,
        *,
        event_name: str,
        event_path: Path | None,
        repo: str,
        dry_run: bool,
        redactor: Redactor,
        secrets: Iterable[str] = (),
        started: datetime | None = None,
    ) -> Recorder:
        """A new recording under `<AMELIA_HOME>/runs/<id>/` for this run, which started at
        `started` (None: now): its replay runs with that clock."""
        stamp = (started or datetime.now(UTC)).astimezone(UTC)
        run_id = f"{stamp:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}"
        directory = settings.action_home / "runs" / run_id
        directory.mkdir(parents=True, exist_ok=True)
        event: dict[str, Any] = {}
        if event_path is not None:
            try:
                loaded = json.loads(event_path.read_text(encoding="utf-8"))
                event = loaded if isinstance(loaded, dict) else {}
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                event = {}
        cleaner = Cleaner(redactor, [*settings.secret_values(), *secrets])
        manifest = Manifest(
            version=FORMAT_VERSION,
            id=run_id,
            created_at=stamp.isoformat(),
            amelia_version=__version__,
            event_name=event_name,
            event=cleaner.tree(event),
            repository=repo,
            dry_run=dry_run,
            environment=cleaner.tree(
                recording_environment({**settings.environ, **settings.secrets})
            ),
        )
        return cls(directory, manifest, cleaner=cleaner)

    # what the run hands over ------------------------------------------------------------------

    def github(self, inner: GitHubPort) -> GitHubPort:
        """`inner`, recording every call."""
        return RecordingGitHub(inner, self._github_call)

    def _github_call(self, call: GitHubCall) -> None:
        text = call.model_dump_json()  # as the call is now
        self._appender.append(GITHUB_FILE, lambda: self.clean(text))

    def exchange(self, seen: ProxiedExchange) -> None:
        """An exchange of the credential proxy (`ExchangeObserver`): handed over, made and
        written in the order of the calls once the run next calls GitHub or finishes."""
        self._appender.append(MODEL_FILE, lambda: self._exchange_line(seen), hold=True)

    def _exchange_line(self, seen: ProxiedExchange) -> str:
        request = self.clean(seen.request_body.decode("utf-8", "replace"), repeated=True)
        body = _decoded(seen.response_body, seen.response_headers)
        headers = [
            (name.lower(), self.clean(value))
            for name, value in seen.response_headers
            if name.lower() in _KEPT_HEADERS
        ]
        exchange = ModelExchange(
            index=next(self._indexes),
            provider=seen.provider,
            method=seen.method,
            path=seen.path,
            agent=agent_of(request),
            turn=turn_of(request),
            request=request,
            status=seen.status,
            headers=headers,
            # Fragments joined first: a secret the model streamed in pieces is whole again
            # for the cleaner (the client would get the same content in fewer events).
            response=self.clean(coalesced(body.decode("utf-8", "replace"))),
            complete=seen.complete,
        )
        return exchange.model_dump_json()

    def checkout_started(self, git: Git) -> None:
        """Note the checkout as the run found it (before the mode changes anything)."""
        git = _trusting(git)
        start = starting_checkout(git, shown_path=self.clean(str(git.path)))
        self._origin_logged = origin_logged(git)
        if start is not None and start.origin_url is not None:
            start = start.model_copy(update={"origin_url": self.clean(start.origin_url)})
        self.manifest = self.manifest.model_copy(update={"checkout": start})
        self._write_manifest()

    def finish(
        self,
        git: Git | None,
        *,
        exit_code: int,
        conclusion: str | None,
        outputs: Mapping[str, str],
        default_branch: str | None = None,
    ) -> None:
        """The outcome, origin as the run saw it, and the starting commits' pack, once
        every exchange and call handed over is written."""
        self._appender.close()
        start = self.manifest.checkout
        commits = []
        plan = None
        plan_path = outputs.get("plan_path") or None
        try:
            if git is not None and start is not None:
                git = _trusting(git)
                start = start.model_copy(
                    update={
                        "origin": origin_as_seen(git, start, logged=self._origin_logged),
                        "tracking": start.origin,
                        "default_branch": default_branch,
                        "fetched": fetched_by_the_run(git),
                    }
                )
                pack_start(git, start, self.directory / CHECKOUT_PACK)
                commits = pushed_commits(git, start, local=self.manifest.dry_run)
                branch = outputs.get("branch")
                tips = [c.sha for c in commits if c.branch == branch] or [start.head]
                if plan_path:
                    found = file_at(git, tips[-1], plan_path)
                    plan = None if found is None else self.clean(found)
        except AmeliaError as error:
            logger.warning("amelia: the recording misses the checkout: {}", error.message)
        outcome = RecordedOutcome(
            exit_code=exit_code,
            conclusion=conclusion,
            outputs={key: self.clean(value) for key, value in outputs.items()},
            commits=commits,
            plan_path=plan_path,
            plan=plan,
        )
        lines = {name: self._appender.written.get(name, 0) for name in (MODEL_FILE, GITHUB_FILE)}
        self.manifest = self.manifest.model_copy(
            update={"checkout": start, "outcome": outcome, "lines": lines}
        )
        self._write_manifest()

    # files ------------------------------------------------------------------------------------

    def _write_manifest(self) -> None:
        text = json.dumps(self.manifest.model_dump(mode="json"), indent=1, ensure_ascii=False)
        path = self.directory / MANIFEST_FILE
        partial = path.with_suffix(".partial")
        partial.write_text(text + "\n", encoding="utf-8")
        partial.replace(path)

    def size(self) -> int:
        """The recording's bytes on disk."""
        return sum(p.stat().st_size for p in self.directory.iterdir() if p.is_file())

    @property
    def cpu_time(self) -> float:
        """The CPU seconds spent writing exchanges and calls (off the proxy's loop), as far
        as counted: all of them once `finish` returned."""
        return self._appender.cpu_time
