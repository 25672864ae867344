"""The image configuration each instruction leaves behind, and a cache key for every step.

Planning touches no root filesystem: ENV, ARG, WORKDIR, USER, LABEL, ENTRYPOINT and CMD are
pure changes of configuration, and each step's key chains the previous key with everything
the step reads (its text, the configuration, the bytes a COPY brings in), as Docker's layer
cache does. Equal keys mean the step would produce the same filesystem.
"""

from __future__ import annotations

import hashlib
import posixpath
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from scripts.image_rehearsal.dockerignore import DockerIgnore
from scripts.image_rehearsal.errors import RehearsalError
from scripts.image_rehearsal.instructions import (
    BASE_IMAGE,
    Instruction,
    Stage,
    expand_word,
    key_value_pairs,
)
from scripts.image_rehearsal.rootfs import DEFAULT_PATH

SUPPORTED = frozenset(
    {"ENV", "ARG", "WORKDIR", "COPY", "RUN", "USER", "LABEL", "ENTRYPOINT", "CMD"}
)
COPY_FLAGS = ("from", "chown", "chmod")


class ImageConfig(BaseModel):
    """What `docker inspect` would show of an image, plus the ARGs in effect while building."""

    model_config = ConfigDict(frozen=True)

    env: dict[str, str]
    args: dict[str, str] = {}
    workdir: str = "/"
    user: str = "root"
    entrypoint: tuple[str, ...] = ()
    entrypoint_instruction: Instruction | None = None
    cmd: tuple[str, ...] = ()
    cmd_from_base: bool = True
    labels: dict[str, str] = {}

    def variables(self) -> dict[str, str]:
        return {**self.args, **self.env}


DEBIAN_CONFIG = ImageConfig(env={"PATH": DEFAULT_PATH}, cmd=("bash",))


class CopySource(BaseModel):
    """Where a COPY reads from: the build context (with .dockerignore) or an earlier stage."""

    model_config = ConfigDict(frozen=True)

    stage_index: int | None
    paths: tuple[str, ...]
    destination: str
    chown: str | None
    chmod: int | None


class PlannedStep(BaseModel):
    model_config = ConfigDict(frozen=True)

    instruction: Instruction
    key: str
    before: ImageConfig
    after: ImageConfig
    copy_source: CopySource | None = None
    snapshot: bool = False


class StagePlan(BaseModel):
    model_config = ConfigDict(frozen=True)

    stage: Stage
    base_key: str
    base_config: ImageConfig
    steps: tuple[PlannedStep, ...]

    @property
    def final_key(self) -> str:
        return self.steps[-1].key if self.steps else self.base_key

    @property
    def final_config(self) -> ImageConfig:
        return self.steps[-1].after if self.steps else self.base_config


def _digest(*parts: str) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode())
        hasher.update(b"\0")
    return hasher.hexdigest()


def context_digest(context: Path, ignore: DockerIgnore, sources: Sequence[str]) -> str:
    """A hash of names, modes and contents of what a COPY would take from the context."""
    hasher = hashlib.sha256()
    for source in sources:
        for relative, path in iter_context_files(context, ignore, source):
            info = path.lstat()
            hasher.update(f"{relative}\0{stat.S_IMODE(info.st_mode):o}\0".encode())
            if path.is_symlink():
                hasher.update(str(path.readlink()).encode())
            elif path.is_file():
                hasher.update(hashlib.sha256(path.read_bytes()).digest())
            hasher.update(b"\0")
    return hasher.hexdigest()


def context_entries(
    context: Path, ignore: DockerIgnore, source: str
) -> list[tuple[Path, list[Path]]]:
    """Each context path a COPY source names, with everything below it that is not ignored."""
    relative = posixpath.normpath(source.lstrip("/")) if source not in ("", "/") else "."
    if relative.startswith(".."):
        raise RehearsalError(f"COPY source {source!r} is outside the build context")
    matches = sorted(context.glob(relative)) if any(c in relative for c in "*?[") else []
    entries: list[tuple[Path, list[Path]]] = []
    for top in matches or [context / relative]:
        if not (top.exists() or top.is_symlink()):
            continue
        top_relative = top.relative_to(context).as_posix()
        if top_relative != "." and ignore.excludes(top_relative):
            continue
        below = []
        if top.is_dir() and not top.is_symlink():
            below = [
                path
                for path in sorted(top.rglob("*"))
                if not ignore.excludes(path.relative_to(context).as_posix())
            ]
        entries.append((top, below))
    return entries


def iter_context_files(context: Path, ignore: DockerIgnore, source: str) -> list[tuple[str, Path]]:
    """(context-relative path, host path) of every entry a COPY source names, in order."""
    return [
        (path.relative_to(context).as_posix(), path)
        for top, below in context_entries(context, ignore, source)
        for path in (top, *below)
    ]


def _parse_chmod(value: str, where: Instruction) -> int:
    try:
        return int(value, 8)
    except ValueError as exc:
        raise RehearsalError(f"COPY --chmod must be octal at {where.describe()}") from exc


def plan_stages(
    stages: Sequence[Stage],
    context: Path,
    base_identity: str,
    build_args: Mapping[str, str],
) -> list[StagePlan]:
    ignore = DockerIgnore.load(context)
    plans: list[StagePlan] = []
    for stage in stages:
        if stage.base == BASE_IMAGE:
            base_key, base_config = _digest(BASE_IMAGE, base_identity), DEBIAN_CONFIG
        else:
            parent = next(p for p in plans if p.stage.name == stage.base)
            base_key = parent.final_key
            base_config = parent.final_config.model_copy(update={"args": {}})
        last_stage = stage.index == len(stages) - 1
        plans.append(
            _plan_stage(
                stage, base_key, base_config, plans, context, ignore, build_args, last_stage
            )
        )
    return plans


def _plan_stage(
    stage: Stage,
    base_key: str,
    base_config: ImageConfig,
    earlier: Sequence[StagePlan],
    context: Path,
    ignore: DockerIgnore,
    build_args: Mapping[str, str],
    last_stage: bool,
) -> StagePlan:
    steps: list[PlannedStep] = []
    key, config = base_key, base_config
    for instruction in stage.instructions:
        if instruction.keyword not in SUPPORTED:
            raise RehearsalError(
                f"unsupported instruction {instruction.keyword} at {instruction.describe()}"
            )
        if instruction.has_heredoc:
            raise RehearsalError(f"heredocs are not supported at {instruction.describe()}")
        after, copy_source, extra = _apply_config(
            instruction, config, earlier, context, ignore, build_args
        )
        key = _digest(
            key,
            instruction.keyword,
            repr(instruction.args),
            repr(instruction.flags),
            str(instruction.json_form),
            config.model_dump_json(exclude={"entrypoint_instruction"}),
            extra,
        )
        steps.append(
            PlannedStep(
                instruction=instruction,
                key=key,
                before=config,
                after=after,
                copy_source=copy_source,
            )
        )
        config = after
    return StagePlan(
        stage=stage,
        base_key=base_key,
        base_config=base_config,
        steps=_mark_snapshots(steps, last_stage=last_stage),
    )


def _mark_snapshots(steps: list[PlannedStep], *, last_stage: bool) -> tuple[PlannedStep, ...]:
    """Cache the last RUN before each COPY (what a COPY brings in is what changes between
    runs, so those are the points a rebuild restarts from) and the image itself. An earlier
    stage's end is not kept: it changes with every source change and is only read by a
    COPY --from, whose result the image layer already holds."""
    marked = set()
    last_run: int | None = None
    for index, step in enumerate(steps):
        keyword = step.instruction.keyword
        if keyword == "RUN":
            last_run = index
        elif keyword == "COPY" and last_run is not None:
            marked.add(last_run)
    if steps and last_stage:
        marked.add(len(steps) - 1)
    return tuple(
        step.model_copy(update={"snapshot": True}) if index in marked else step
        for index, step in enumerate(steps)
    )


def _apply_config(
    instruction: Instruction,
    config: ImageConfig,
    earlier: Sequence[StagePlan],
    context: Path,
    ignore: DockerIgnore,
    build_args: Mapping[str, str],
) -> tuple[ImageConfig, CopySource | None, str]:
    keyword = instruction.keyword
    variables = config.variables()
    if keyword not in ("COPY",):
        instruction.flag_values(allowed=())
    if keyword == "ENV":
        env = dict(config.env)
        env.update(key_value_pairs(instruction, variables))
        return config.model_copy(update={"env": env}), None, ""
    if keyword == "LABEL":
        labels = dict(config.labels)
        labels.update(key_value_pairs(instruction, variables))
        return config.model_copy(update={"labels": labels}), None, ""
    if keyword == "ARG":
        args = dict(config.args)
        for word in instruction.args:
            name, sep, default = word.partition("=")
            if name in build_args:
                args[name] = build_args[name]
            elif sep:
                args[name] = expand_word(default, variables, instruction)
        return config.model_copy(update={"args": args}), None, ""
    if keyword == "WORKDIR":
        target = expand_word(instruction.args[0], variables, instruction)
        workdir = posixpath.normpath(posixpath.join(config.workdir, target))
        return config.model_copy(update={"workdir": workdir}), None, ""
    if keyword == "USER":
        user = expand_word(instruction.args[0], variables, instruction)
        return config.model_copy(update={"user": user}), None, ""
    command = _exec_form(instruction)
    if keyword == "ENTRYPOINT":
        update: dict[str, object] = {
            "entrypoint": tuple(command),
            "entrypoint_instruction": instruction,
        }
        if config.cmd_from_base:
            update["cmd"] = ()
        return config.model_copy(update=update), None, ""
    if keyword == "CMD":
        return config.model_copy(update={"cmd": tuple(command), "cmd_from_base": False}), None, ""
    if keyword == "RUN":
        return config, None, ""
    return _plan_copy(instruction, config, earlier, context, ignore)


def _exec_form(instruction: Instruction) -> tuple[str, ...]:
    if instruction.json_form:
        return instruction.args
    return ("/bin/sh", "-c", instruction.args[0])


def _plan_copy(
    instruction: Instruction,
    config: ImageConfig,
    earlier: Sequence[StagePlan],
    context: Path,
    ignore: DockerIgnore,
) -> tuple[ImageConfig, CopySource, str]:
    flags = instruction.flag_values(allowed=COPY_FLAGS)
    variables = config.variables()
    words = [expand_word(word, variables, instruction) for word in instruction.args]
    if len(words) < 2:
        raise RehearsalError(f"COPY needs a source and a destination at {instruction.describe()}")
    *sources, destination = words
    stage_index: int | None = None
    if "from" in flags:
        wanted = flags["from"].lower()
        for plan in earlier:
            if wanted in (plan.stage.name, str(plan.stage.index)):
                stage_index = plan.stage.index
        if stage_index is None:
            raise RehearsalError(
                f"COPY --from={flags['from']} names no earlier stage (images cannot be "
                f"rehearsed) at {instruction.describe()}"
            )
        extra = _digest(earlier[stage_index].final_key, *sources)
    else:
        extra = context_digest(context, ignore, sources)
    copy_source = CopySource(
        stage_index=stage_index,
        paths=tuple(sources),
        destination=destination,
        chown=flags.get("chown"),
        chmod=_parse_chmod(flags["chmod"], instruction) if "chmod" in flags else None,
    )
    return config, copy_source, extra
