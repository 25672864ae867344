"""`amelia plan | implement | review | demo`: the pipeline's stages on a local repository.

Only typer and the standard library are imported at module level: the orchestrator, the
drivers and the model SDKs load inside the commands, so `amelia --help` stays fast.
Exit codes: 0 success (review: approved), 1 the run failed (review: changes requested),
2 bad input. Bad input is one `error:` line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from amelia.errors import EXIT_FAILED, AmeliaError, BadInputError, GitError, exit_code_for

if TYPE_CHECKING:
    from amelia.config import Settings
    from amelia.core.state import ExecutionState
    from amelia.core.types import Profile
    from amelia.isolation.model_access import ModelAccess
    from amelia.isolation.upstreams import Upstream
    from amelia.pipeline import RunContext
    from amelia.pipeline.sinks import Sink
    from amelia.redaction import Redactor

__all__ = [
    "ConfigOption",
    "DriverOption",
    "MaxTurnsOption",
    "ModelOption",
    "RepoOption",
    "TranscriptOption",
    "VerboseOption",
    "demo",
    "implement",
    "plan",
    "register",
    "review",
]


RepoOption = Annotated[
    Path, typer.Option("--repo", help="The git repository (worktree) to work in.")
]
DriverOption = Annotated[
    str | None,
    typer.Option(
        "--driver",
        help="Driver key: cli:claude (default), api:openai, api:openrouter, api, cli "
        "[default: $AMELIA_DRIVER].",
    ),
]
ModelOption = Annotated[
    str | None,
    typer.Option("--model", help="Model name for the driver [default: $AMELIA_MODEL]."),
]
MaxTurnsOption = Annotated[
    int | None, typer.Option("--max-turns", min=1, help="Turn limit per agent run.")
]
TranscriptOption = Annotated[
    Path | None, typer.Option("--transcript", help="Append every event as JSON lines here.")
]
VerboseOption = Annotated[bool, typer.Option("--verbose", "-v", help="Log details to stderr.")]
ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="The configuration file [default: .github/amelia.yml in the repository].",
    ),
]


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


@contextmanager
def _reported_errors() -> Iterator[None]:
    """Turn expected failures into one line and an exit code instead of a traceback."""
    try:
        yield
    except AmeliaError as error:
        raise _fail(error.message, exit_code_for(error)) from None


def _configure_logging(verbose: bool) -> None:
    from loguru import logger

    logger.remove()
    # diagnose=False: a traceback must never print variable values (tokens live in some).
    logger.add(sys.stderr, level="DEBUG" if verbose else "WARNING", diagnose=False)


def _git_root(repo: Path) -> Path:
    """The top of the work tree `repo` is in (plans are saved relative to it, also when
    `repo` is a folder inside it)."""
    from amelia.git import is_bare_repository, worktree_root

    if not repo.is_dir():
        raise BadInputError(f"repository directory not found: {repo}")
    try:
        return worktree_root(repo)
    except GitError:
        if is_bare_repository(repo):
            raise BadInputError(
                f"{repo} is a bare repository, which has no files to work on: "
                "clone it and pass the clone to --repo"
            ) from None
        raise BadInputError(f"not a git repository: {repo}") from None


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise BadInputError(f"cannot read {what} {path}: {error}") from None


@dataclass(frozen=True)
class _Run:
    """What a local command runs with, checked before anything is printed."""

    repo: Path
    key: str | None
    """A driver registered at run time, for every agent (None: each agent's own)."""
    profile: Profile
    settings: Settings
    upstreams: list[Upstream]
    redactor: Redactor

    def context(self, access: ModelAccess, sinks: list[Sink]) -> RunContext:
        """The pipeline's context; the drivers reach their models through `access`."""
        from amelia.drivers.runtime import DriverEnvironment
        from amelia.pipeline import RunContext, default_make_driver

        if access.token is not None:
            self.redactor.add_secrets([access.token])
        environment = DriverEnvironment(
            inherited=self.settings.environ,
            credentials=access.environment,
            home=self.settings.amelia.home,
            redactor=self.redactor,
        )
        make_driver = default_make_driver(
            self.profile, driver_key=self.key, environment=environment
        )
        return RunContext(
            repo_dir=self.repo, make_driver=make_driver, profile=self.profile, sinks=sinks
        )


def _work_tree_reader(root: Path) -> Callable[[str], bytes | None]:
    """Files of the work tree at `root` by relative path (None: missing, or outside it)."""

    def read(relative: str) -> bytes | None:
        path = (root / relative).resolve()
        if not path.is_relative_to(root.resolve()) or not path.is_file():
            return None
        try:
            return path.read_bytes()
        except OSError as error:
            raise BadInputError(f"cannot read {relative}: {error.strerror}") from None

    return read


def _configured(root: Path, base: Profile, explicit: set[str], config: Path | None) -> Profile:
    """`base` with the repository's configuration applied: `--config`, else
    `.github/amelia.yml` of the work tree; instruction files come from the work tree."""
    from amelia.repo_config import (
        DEFAULT_CONFIG_FILE,
        configure_profile,
        instruction_files_for,
        load_trusted_files,
    )

    in_tree = _work_tree_reader(root)
    config_file = str(config) if config is not None else DEFAULT_CONFIG_FILE

    def read(path: str) -> bytes | None:
        if config is not None and path == config_file:
            if not config.is_file():
                raise BadInputError(f"configuration file not found: {config}")
            return config.read_bytes()
        return in_tree(path)

    trusted = load_trusted_files(
        read,
        config_file=config_file,
        where="the work tree",
        instruction_files=instruction_files_for(base, explicit=explicit),
    )
    return configure_profile(base, trusted, explicit=explicit)


def _prepare_run(
    repo: Path,
    driver: str | None,
    model: str | None,
    max_turns: int | None,
    config: Path | None,
) -> _Run:
    """The run's choices, once every agent's driver is known to reach its model (else bad
    input). A driver, model or turn limit given here wins over the configuration file."""
    from typing import get_args

    from amelia.config import load_settings
    from amelia.core.types import AgentRole, DriverType, Profile
    from amelia.drivers.credentials import missing_credentials
    from amelia.drivers.factory import DriverFactory
    from amelia.drivers.runtime import DriverEnvironment
    from amelia.isolation.model_access import model_upstreams
    from amelia.redaction import Redactor

    settings = load_settings()
    chosen_driver = driver or settings.amelia.driver
    key = DriverFactory.resolve_key(key=chosen_driver)
    chosen_model = model or settings.amelia.model
    profile_fields: dict[str, Any] = {"model": chosen_model, "max_turns": max_turns}
    builtin = key in get_args(DriverType)
    if builtin:
        profile_fields["driver"] = key
    explicit = {
        name
        for name, value in (
            ("driver", chosen_driver),
            ("model", chosen_model),
            ("max_turns", max_turns),
        )
        if value
    }
    profile = _configured(repo, Profile.model_validate(profile_fields), explicit, config)
    credentials = settings.model_credentials()
    held = DriverEnvironment(inherited=settings.environ, credentials=credentials)
    roles: tuple[AgentRole, ...] = get_args(AgentRole)
    for role in roles:
        agent = profile.agent(role)
        problem = missing_credentials(str(agent.driver) if builtin else key, agent.model, held)
        if problem is not None:
            raise BadInputError(problem)
    return _Run(
        repo=repo,
        key=key if not builtin else None,
        profile=profile,
        settings=settings,
        upstreams=model_upstreams(credentials, settings.environ),
        redactor=Redactor(secrets=settings.secret_values()),
    )


def _run_stage(
    root: Path,
    driver: str | None,
    model: str | None,
    max_turns: int | None,
    transcript: Path | None,
    stage: Callable[[RunContext], Awaitable[ExecutionState]],
    *,
    config: Path | None = None,
) -> ExecutionState:
    """Run one pipeline stage in `root` with the terminal, log and optional transcript sinks.

    The model keys stay in this process: the drivers get the credential proxy's URL and
    per-run token (`amelia.isolation.model_access`), so neither the Claude Code CLI nor an
    agent's tool holds the user's key in its environment."""
    from amelia.isolation.model_access import model_access
    from amelia.pipeline.sinks import JsonlTranscriptSink, TerminalProgressSink

    # Before any output: a driver that cannot reach its model is one line, not a failed run.
    run = _prepare_run(root, driver, model, max_turns, config)

    async def main() -> ExecutionState:
        async with (
            model_access(run.upstreams) as access,
            TerminalProgressSink(stream=sys.stderr) as progress,
        ):
            # The progress lines show every event, errors too, on stderr: a log sink there
            # as well would print each error twice.
            sinks: list[Sink] = [progress]
            if transcript is not None:
                sinks.append(JsonlTranscriptSink(transcript))
            return await stage(run.context(access, sinks))

    import asyncio

    return asyncio.run(main())


@contextmanager
def _local_command(repo: Path, verbose: bool) -> Iterator[Path]:
    """Set up logging and error reporting for a command; yields the repository's root."""
    _configure_logging(verbose)
    with _reported_errors():
        yield _git_root(repo)


def plan(
    title: Annotated[str, typer.Option("--title", help="Issue title.")],
    repo: RepoOption,
    *,
    body_file: Annotated[
        Path | None, typer.Option("--body-file", help="File holding the issue body.")
    ] = None,
    issue_number: Annotated[
        int | None, typer.Option("--issue-number", min=1, help="Issue number for the plan path.")
    ] = None,
    driver: DriverOption = None,
    model: ModelOption = None,
    max_turns: MaxTurnsOption = None,
    transcript: TranscriptOption = None,
    config: ConfigOption = None,
    verbose: VerboseOption = False,
) -> None:
    """Write an implementation plan for an issue.

    The architect explores the repository read-only and saves the plan under docs/plans.
    """
    with _local_command(repo, verbose) as root:
        body = _read_text(body_file, "issue body file") if body_file else ""
        if not title.strip():
            raise BadInputError("--title must not be empty")

        from amelia.core.state import ExecutionState
        from amelia.core.types import Issue
        from amelia.pipeline import run_plan

        issue = Issue(
            id=str(issue_number) if issue_number else "local",
            number=issue_number,
            title=title,
            description=body,
        )

        async def stage(context: RunContext) -> ExecutionState:
            return await run_plan(ExecutionState(issue=issue), context)

        state = _run_stage(root, driver, model, max_turns, transcript, stage, config=config)
    typer.echo(f"plan: {root / (state.plan_path or '')}")
    if state.goal:
        typer.echo(f"goal: {state.goal}")


def implement(
    plan_file: Annotated[Path, typer.Option("--plan", help="The plan markdown file.")],
    repo: RepoOption,
    *,
    driver: DriverOption = None,
    model: ModelOption = None,
    max_turns: MaxTurnsOption = None,
    transcript: TranscriptOption = None,
    config: ConfigOption = None,
    verbose: VerboseOption = False,
) -> None:
    """Implement a plan with the developer agent.

    The changes stay uncommitted in the repository.
    """
    with _local_command(repo, verbose) as root:
        markdown = _read_text(plan_file, "plan file")
        if not markdown.strip():
            raise BadInputError(f"plan file is empty: {plan_file}")

        from amelia.core.state import ExecutionState
        from amelia.pipeline import run_implement

        resolved = plan_file.resolve()
        relative = str(resolved.relative_to(root)) if resolved.is_relative_to(root) else None
        start = ExecutionState(plan_markdown=markdown, plan_path=relative)

        async def stage(context: RunContext) -> ExecutionState:
            return await run_implement(start, context)

        state = _run_stage(root, driver, model, max_turns, transcript, stage, config=config)
    from amelia.git import status_short

    status = status_short(root)
    typer.echo("changed files:")
    typer.echo(status.rstrip() or "  (none)")
    if state.error_results:
        typer.echo(f"tool errors: {len(state.error_results)}")
    typer.echo(f"developer: {state.developer_output or ''}".rstrip())


def review(
    base: Annotated[str, typer.Option("--base", help="Review changes since this git ref.")],
    repo: RepoOption,
    *,
    plan_file: Annotated[
        Path | None, typer.Option("--plan", help="The plan the change implements.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    driver: DriverOption = None,
    model: ModelOption = None,
    max_turns: MaxTurnsOption = None,
    transcript: TranscriptOption = None,
    config: ConfigOption = None,
    verbose: VerboseOption = False,
) -> None:
    """Review the changes since --base.

    Exit 0 when the reviewer approves or there is nothing to review, 1 when it requests
    changes.
    """
    with _local_command(repo, verbose) as root:
        import asyncio

        from amelia.git import collect_changes, head_sha

        try:
            head_sha(root, ref=base)
        except GitError:
            raise BadInputError(f"unknown git ref for --base: {base}") from None
        markdown = _read_text(plan_file, "plan file") if plan_file else None
        # Nothing changed at all: said before any model or key is needed.
        if asyncio.run(collect_changes(root, base)).is_empty:
            _nothing_to_review(base, as_json=as_json)

        from amelia.core.state import ExecutionState
        from amelia.pipeline import run_review

        unchanged: list[bool] = []

        async def stage(context: RunContext) -> ExecutionState:
            # Only paths the configuration leaves out of the review (`review.ignore_paths`).
            ignored = context.profile.review.ignore_paths
            if (await collect_changes(root, base, exclude=ignored)).is_empty:
                unchanged.append(True)
                return ExecutionState(plan_markdown=markdown)
            return await run_review(ExecutionState(plan_markdown=markdown), context, base_ref=base)

        state = _run_stage(root, driver, model, max_turns, transcript, stage, config=config)
        if unchanged:
            _nothing_to_review(base, as_json=as_json)
    verdict = state.last_review
    if verdict is None:
        raise _fail("the reviewer returned no verdict", EXIT_FAILED)
    if as_json:
        typer.echo(verdict.model_dump_json(indent=2))
    else:
        typer.echo(f"verdict: {verdict.verdict} (severity {verdict.severity})")
        typer.echo(f"summary: {verdict.summary}")
        for comment in verdict.comments:
            where = f"{comment.path}:{comment.line}" if comment.line else comment.path
            typer.echo(f"- [{comment.severity}] {where}: {comment.body}")
    raise typer.Exit(0 if verdict.approved else EXIT_FAILED)


def _nothing_to_review(base: str, *, as_json: bool) -> NoReturn:
    """No change since `base` to review: say so and exit 0 (an empty diff is no failure)."""
    summary = f"There are no changes since {base} to review."
    if as_json:
        typer.echo(json.dumps({"verdict": None, "summary": summary, "comments": []}, indent=2))
    else:
        typer.echo(f"nothing to review: {summary}")
    raise typer.Exit(0)


def demo(
    *,
    output: Annotated[
        Path | None,
        typer.Option("--output", help="Folder for the sample repository (default: a temp dir)."),
    ] = None,
    verbose: VerboseOption = False,
) -> None:
    """Run the whole pipeline offline on a sample repository.

    The real Claude Code CLI talks to a scripted model: no key and no network needed.
    """
    _configure_logging(verbose)
    from amelia.config import load_settings
    from amelia.demo import run_demo

    with _reported_errors():
        if output is not None and output.exists() and any(output.iterdir()):
            raise BadInputError(f"--output must be empty or new: {output}")
        report = run_demo(output=output, inherited=load_settings().environ)
    typer.echo(f"repository: {report.repository}")
    typer.echo(f"plan:       {report.plan}")
    typer.echo(f"diff:       {report.diff}")
    typer.echo(
        f"verdict:    {report.verdict} ({'approved' if report.approved else 'not approved'})"
    )
    typer.echo(f"events:     {report.transcript}")
    if not report.approved:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add the local commands to the `amelia` app."""
    app.command("plan")(plan)
    app.command("implement")(implement)
    app.command("review")(review)
    app.command("demo")(demo)
