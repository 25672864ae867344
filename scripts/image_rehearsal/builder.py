"""Apply a planned Dockerfile to real root filesystems: copy the base, run, copy, cache."""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
from collections import deque
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from scripts.image_rehearsal.base_image import base_root, default_cache_dir, ensure_base, locked
from scripts.image_rehearsal.dockerignore import DockerIgnore
from scripts.image_rehearsal.errors import RehearsalError
from scripts.image_rehearsal.host_network import (
    REHEARSAL_DIR,
    HostRegistryAccess,
    collect_host_registry_access,
    install_registry_access,
)
from scripts.image_rehearsal.instructions import BASE_IMAGE, parse_dockerfile, split_stages
from scripts.image_rehearsal.layer_cache import LayerCache
from scripts.image_rehearsal.layered_root import LayeredRoot
from scripts.image_rehearsal.mounts import container_mounts, unmount_all_under
from scripts.image_rehearsal.plan import (
    ImageConfig,
    PlannedStep,
    StagePlan,
    context_entries,
    plan_stages,
)
from scripts.image_rehearsal.rootfs import (
    find_executable,
    interpreter_of,
    resolve_in_root,
    tree_size_bytes,
)

Log = Callable[[str], None]
_OUTPUT_TAIL_LINES = 40


class RehearsalSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    dockerfile: Path
    context: Path
    work_dir: Path
    cache_dir: Path = default_cache_dir()
    layer_cache: bool = True
    build_args: dict[str, str] = {}
    mirror: str | None = None
    step_timeout_seconds: float = 1800.0
    verbose: bool = False


class RehearsalResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    # A read-only overlay mount under the work directory; remove_tree(work_dir) undoes it.
    root: Path
    config: ImageConfig
    size_bytes: int
    steps_run: int
    steps_cached: int

    @property
    def size_mb(self) -> int:
        return round(self.size_bytes / 1_000_000)


def rehearse(settings: RehearsalSettings, log: Log = print) -> RehearsalResult:
    """Build the Dockerfile's last stage into a root filesystem, or raise RehearsalError."""
    instructions = parse_dockerfile(settings.dockerfile)
    stages = split_stages(instructions)
    base = ensure_base(settings.cache_dir, settings.mirror)
    base_identity = (base.parent / "complete").read_text()
    plans = plan_stages(stages, settings.context, base_identity, settings.build_args)
    layers = LayerCache(settings.cache_dir / "layers") if settings.layer_cache else None
    settings.work_dir.mkdir(parents=True, exist_ok=True)
    with locked(settings.cache_dir / "layers.lock"):
        build = _Build(settings, plans, collect_host_registry_access(), layers, log)
        try:
            final_root = build.stage_root(len(plans) - 1)
            final_config = plans[-1].final_config
            _check_entrypoint(final_root, final_config)
        except BaseException:
            # A failed build leaves nothing mounted: its half-made roots are of no use.
            unmount_all_under(settings.work_dir)
            raise
        if layers is not None:
            layers.prune()
    size = tree_size_bytes(final_root, exclude=(str(REHEARSAL_DIR),))
    return RehearsalResult(
        root=final_root,
        config=final_config,
        size_bytes=size,
        steps_run=build.steps_run,
        steps_cached=build.steps_cached,
    )


class _Build:
    def __init__(
        self,
        settings: RehearsalSettings,
        plans: list[StagePlan],
        registry: HostRegistryAccess,
        layers: LayerCache | None,
        log: Log,
    ) -> None:
        self.settings = settings
        self.plans = plans
        self.registry = registry
        self.layers = layers
        self.log = log
        self.ignore = DockerIgnore.load(settings.context)
        self.roots: dict[int, LayeredRoot] = {}
        self.steps_run = 0
        self.steps_cached = 0

    def stage_root(self, index: int) -> Path:
        """The finished, read-only root of a stage, built on first use."""
        return self._stage(index).mountpoint

    def _stage(self, index: int) -> LayeredRoot:
        if index not in self.roots:
            self.roots[index] = self._materialize(self.plans[index])
        return self.roots[index]

    def _materialize(self, plan: StagePlan) -> LayeredRoot:
        if plan.stage.base == BASE_IMAGE:
            bottom = [base_root(self.settings.cache_dir)]
        else:
            parent = next(p for p in self.plans if p.stage.name == plan.stage.base)
            bottom = list(self._stage(parent.stage.index).lowers)
        steps = plan.steps
        start, cached_layers = 0, []
        if self.layers is not None:
            for position in range(len(steps) - 1, -1, -1):
                if steps[position].snapshot:
                    found = self.layers.chain(steps[position].key, plan.base_key)
                    if found is not None:
                        start, cached_layers = position + 1, found
                        break
        self.steps_cached += start
        label = plan.stage.label()
        directory = self.settings.work_dir / f"stage-{plan.stage.index}"
        root = LayeredRoot(directory, cached_layers + bottom)
        if steps and start == len(steps):
            self.log(f"[{label}] all {len(steps)} steps cached")
            root.freeze()
            return root
        if start:
            resume_line = steps[start].instruction.line
            self.log(f"[{label}] {start} steps cached, resuming at line {resume_line}")
        root.mount_writable()
        if start == 0 and plan.stage.base == BASE_IMAGE:
            install_registry_access(root.mountpoint, self.registry)
        parent_key = steps[start - 1].key if start else plan.base_key
        for position in range(start, len(steps)):
            step = steps[position]
            self.log(f"[{label}] {step.instruction.describe()}")
            self._apply(step, root.mountpoint)
            self.steps_run += 1
            if step.snapshot and self.layers is not None:
                root.stack(self.layers.store(step.key, parent_key, root.detach_upper()))
                parent_key = step.key
                if position + 1 < len(steps):
                    root.mount_writable()
        root.freeze()
        return root

    def _apply(self, step: PlannedStep, root: Path) -> None:
        keyword = step.instruction.keyword
        if keyword == "RUN":
            self._run(step, root)
        elif keyword == "COPY":
            self._copy(step, root)
        elif keyword == "WORKDIR":
            target = resolve_in_root(root, step.after.workdir)
            if target.exists() and not target.is_dir():
                raise RehearsalError(f"WORKDIR is not a directory at {step.instruction.describe()}")
            target.mkdir(parents=True, exist_ok=True)

    def _run(self, step: PlannedStep, root: Path) -> None:
        instruction, config = step.instruction, step.before
        command = (
            list(instruction.args)
            if instruction.json_form
            else ["/bin/sh", "-c", instruction.args[0]]
        )
        if not resolve_in_root(root, config.workdir).is_dir():
            resolve_in_root(root, config.workdir).mkdir(parents=True)
        argv = ["chroot"]
        if config.user not in ("root", "0", "0:0"):
            argv.append(f"--userspec={config.user}")
        argv += [str(root), "/usr/bin/env", "-C", config.workdir, "--", *command]
        environment = run_environment(root, config, self.registry)
        with container_mounts(root):
            completed, tail = _run_logged(
                argv,
                environment,
                self.settings.step_timeout_seconds,
                self.log if self.settings.verbose else None,
            )
        if completed != 0:
            raise RehearsalError(
                f"RUN failed with exit code {completed} at {instruction.describe()}\n"
                + "\n".join(tail)
            )

    def _copy(self, step: PlannedStep, root: Path) -> None:
        source = step.copy_source
        instruction = step.instruction
        if source is None:
            raise RehearsalError(f"COPY was not planned at {instruction.describe()}")
        destination = posixpath.join(step.before.workdir, source.destination)
        into_directory = source.destination.endswith("/") or len(source.paths) > 1
        owner = _owner(root, source.chown, instruction.describe())
        pairs: list[tuple[Path, Path]] = []
        for path in source.paths:
            entries = self._copy_entries(source.stage_index, path, instruction.describe())
            if any(c in path for c in "*?[") and len(entries) > 0:
                into_directory = True
            for top, descendants in entries:
                target_dir_host = resolve_in_root(root, destination)
                if top.is_dir() and not top.is_symlink():
                    base = target_dir_host
                elif into_directory or target_dir_host.is_dir():
                    base = target_dir_host / top.name
                else:
                    base = target_dir_host
                pairs.append((top, base))
                pairs.extend((d, base / d.relative_to(top)) for d in descendants)
        if into_directory and not source.destination.endswith("/") and len(source.paths) > 1:
            raise RehearsalError(
                "COPY with more than one source needs a destination ending in '/' "
                f"at {instruction.describe()}"
            )
        for host_source, host_target in pairs:
            _copy_entry(host_source, host_target, owner, source.chmod)

    def _copy_entries(
        self, stage_index: int | None, path: str, where: str
    ) -> list[tuple[Path, list[Path]]]:
        if stage_index is None:
            result = context_entries(self.settings.context, self.ignore, path)
            if not result:
                raise RehearsalError(
                    f"COPY source {path!r} is not in the build context (missing or excluded "
                    f"by .dockerignore) at {where}"
                )
            return result
        if any(c in path for c in "*?["):
            raise RehearsalError(f"wildcards in COPY --from are not supported at {where}")
        stage_root = self.stage_root(stage_index)
        top = resolve_in_root(stage_root, path)
        if not (top.exists() or top.is_symlink()):
            raise RehearsalError(
                f"COPY source {path!r} does not exist in stage "
                f"{self.plans[stage_index].stage.label()} at {where}"
            )
        below = sorted(top.rglob("*")) if top.is_dir() and not top.is_symlink() else []
        return [(top, below)]


def run_environment(
    root: Path, config: ImageConfig, registry: HostRegistryAccess
) -> dict[str, str]:
    """`env -i` plus what Docker gives a RUN step, plus how this host reaches registries."""
    environment = {**config.args, **config.env}
    environment.setdefault("HOME", _home_of(root, config.user))
    environment.setdefault("HOSTNAME", "rehearsal")
    environment.update(registry.environment)
    return environment


def _home_of(root: Path, user: str) -> str:
    name = user.split(":")[0]
    passwd = root / "etc/passwd"
    if passwd.is_file():
        for line in passwd.read_text().splitlines():
            fields = line.split(":")
            if len(fields) >= 6 and name in (fields[0], fields[2]):
                return fields[5]
    return "/root" if name in ("root", "0") else "/"


def _owner(root: Path, chown: str | None, where: str) -> tuple[int, int]:
    if chown is None:
        return 0, 0
    user, _, group = chown.partition(":")
    uid = _lookup_id(root / "etc/passwd", user, where)
    gid = _lookup_id(root / "etc/group", group, where) if group else uid
    return uid, gid


def _lookup_id(table: Path, name: str, where: str) -> int:
    if name.isdigit():
        return int(name)
    for line in table.read_text().splitlines() if table.is_file() else []:
        fields = line.split(":")
        if fields[0] == name:
            return int(fields[2])
    raise RehearsalError(f"COPY --chown: {name!r} is not in the image's {table.name} at {where}")


def _copy_entry(source: Path, target: Path, owner: tuple[int, int], chmod: int | None) -> None:
    for parent in reversed(target.parents):
        if not parent.exists():
            parent.mkdir(mode=0o755)
            os.chown(parent, 0, 0)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        target.unlink()
    if source.is_symlink():
        target.symlink_to(source.readlink())
    elif source.is_dir():
        if target.is_dir():
            # Copying into an existing directory (`COPY dir/ /usr/local/`) leaves it as it is.
            return
        target.mkdir()
        shutil.copystat(source, target)
    else:
        shutil.copy2(source, target)
    os.lchown(target, *owner)
    if chmod is not None and not target.is_symlink():
        target.chmod(chmod)


def _run_logged(
    argv: list[str], environment: dict[str, str], timeout: float, log: Log | None
) -> tuple[int, list[str]]:
    tail: deque[str] = deque(maxlen=_OUTPUT_TAIL_LINES)
    with subprocess.Popen(
        argv,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            tail.append(line.rstrip("\n"))
            if log is not None:
                log("    " + line.rstrip("\n"))
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            return -9, [*tail, f"(killed after {timeout:.0f}s)"]
    return returncode, list(tail)


def _check_entrypoint(root: Path, config: ImageConfig) -> None:
    """The image must be able to start: its entrypoint (and a script's interpreter) exists."""
    command = config.entrypoint or config.cmd
    where = (
        config.entrypoint_instruction.describe()
        if config.entrypoint_instruction is not None
        else "the last stage"
    )
    if not command:
        raise RehearsalError(f"the image has neither ENTRYPOINT nor CMD ({where})")
    path_variable = config.env.get("PATH", "")
    executable = find_executable(root, command[0], path_variable)
    if executable is None:
        raise RehearsalError(
            f"ENTRYPOINT executable {command[0]!r} is not in the image "
            f"(PATH={path_variable}) at {where}"
        )
    interpreter = interpreter_of(root, executable)
    if interpreter is not None and find_executable(root, interpreter, path_variable) is None:
        raise RehearsalError(
            f"ENTRYPOINT {executable} needs interpreter {interpreter}, which is not in the image, "
            f"at {where}"
        )
