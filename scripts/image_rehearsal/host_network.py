"""How this host reaches package registries, carried into the rehearsal root (never the image).

Registries are reached here through a TLS-intercepting gateway, so pip and uv inside the
root must trust the host's CA bundle, and apt must use the host's sources and Acquire
settings. A real `docker build` on GitHub needs none of this; the Dockerfile stays clean and
only the rehearsal root gets these files, under paths named for the rehearsal.
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

REHEARSAL_DIR = Path("etc/amelia-rehearsal")
CA_IN_ROOT = Path("/") / REHEARSAL_DIR / "host-ca-certificates.crt"
HOST_CA_CANDIDATES = (
    Path("/etc/ssl/certs/ca-certificates.crt"),
    Path("/etc/pki/tls/certs/ca-bundle.crt"),
)
_CA_ENV_VARS = ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
_INDEX_ENV_VARS = (
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_TRUSTED_HOST",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
)
_PIP_CONFIG_FILES = (
    Path("/etc/pip.conf"),
    Path("/etc/xdg/pip/pip.conf"),
    Path.home() / ".config/pip/pip.conf",
    Path.home() / ".pip/pip.conf",
)
_PIP_INDEX_KEYS = {"index-url": "PIP_INDEX_URL", "extra-index-url": "PIP_EXTRA_INDEX_URL"}


class HostRegistryAccess(BaseModel):
    """The host's registry settings that a process inside the root needs."""

    model_config = ConfigDict(frozen=True)

    ca_bundle: Path | None
    environment: dict[str, str]
    apt_files: dict[str, str]


def _host_ca_bundle(environ: Mapping[str, str]) -> Path | None:
    for name in _CA_ENV_VARS:
        candidate = Path(environ.get(name, "") or "/nonexistent")
        if candidate.is_file():
            return candidate
    return next((path for path in HOST_CA_CANDIDATES if path.is_file()), None)


def _remote_urls(value: str) -> str:
    # file:// indexes and bare paths name the host's disk, which the root cannot see.
    urls = [url for url in value.split() if re.match(r"https?://", url)]
    return " ".join(urls)


def _pip_config_indexes() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in _PIP_CONFIG_FILES:
        if not path.is_file():
            continue
        parser = configparser.ConfigParser()
        parser.read(path)
        for section in ("global", "install"):
            for key, variable in _PIP_INDEX_KEYS.items():
                urls = _remote_urls(parser.get(section, key, fallback=""))
                if urls:
                    found[variable] = urls
    return found


def _apt_files() -> dict[str, str]:
    """Host apt sources and the apt.conf.d files that shape how apt fetches."""
    files: dict[str, str] = {}
    apt = Path("/etc/apt")
    if (apt / "sources.list").is_file():
        files["etc/apt/sources.list"] = (apt / "sources.list").read_text()
    for path in sorted((apt / "sources.list.d").glob("*")):
        if path.suffix in (".list", ".sources") and path.is_file():
            files[f"etc/apt/sources.list.d/{path.name}"] = path.read_text()
    for path in sorted((apt / "apt.conf.d").glob("*")):
        if path.is_file() and re.search(r"Acquire::", path.read_text()):
            files[f"etc/apt/apt.conf.d/{path.name}"] = path.read_text()
    for path in sorted((apt / "auth.conf.d").glob("*")):
        if path.is_file():
            files[f"etc/apt/auth.conf.d/{path.name}"] = path.read_text()
    return files


def collect_host_registry_access(environ: Mapping[str, str] | None = None) -> HostRegistryAccess:
    env = os.environ if environ is None else environ
    ca_bundle = _host_ca_bundle(env)
    environment: dict[str, str] = {"UV_NATIVE_TLS": "1"}
    environment.update(_pip_config_indexes())
    for name in _INDEX_ENV_VARS:
        value = env.get(name, "")
        if name.endswith(("INDEX_URL", "INDEX")):
            value = _remote_urls(value)
        if value:
            environment[name] = value
    if ca_bundle is not None:
        for name in ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
            environment[name] = str(CA_IN_ROOT)
    return HostRegistryAccess(ca_bundle=ca_bundle, environment=environment, apt_files=_apt_files())


def install_registry_access(root: Path, access: HostRegistryAccess) -> None:
    """Put the host's CA bundle, apt sources, DNS and hosts files into `root`."""
    if access.ca_bundle is not None:
        target = root / CA_IN_ROOT.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(access.ca_bundle, target)
    if access.apt_files:
        # The host's sources replace the image's own: apt must go where the host goes.
        for stale in (root / "etc/apt/sources.list.d").glob("*"):
            stale.unlink()
        (root / "etc/apt/sources.list").unlink(missing_ok=True)
    for relative, content in access.apt_files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    for name in ("resolv.conf", "hosts"):
        host_file = Path("/etc") / name
        target = root / "etc" / name
        if host_file.is_file():
            target.unlink(missing_ok=True)
            shutil.copyfile(host_file, target)
