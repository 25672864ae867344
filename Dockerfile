# amelia GitHub Action image.
# dependencies: Debian's Python 3.11 + uv resolve the locked dependencies into /opt/amelia/.venv.
# builder: amelia itself installed into that venv, its files set apart in /opt/amelia-package.
# Final: the same Debian Python, git and CA certificates, plus only that virtual environment,
# in three layers: the Claude Code binary, the dependencies, amelia.

FROM debian:bookworm-slim AS dependencies

ARG UV_VERSION=0.13.9

# The venv is made by uv from Debian's interpreter, so it runs unchanged in the final stage
# where the same /usr/bin/python3.11 exists; uv must never fetch its own Python.
ARG DEBIAN_FRONTEND=noninteractive

ENV UV_PYTHON_DOWNLOADS=never \
    UV_PYTHON=/usr/bin/python3.11 \
    UV_PROJECT_ENVIRONMENT=/opt/amelia/.venv \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_NO_CACHE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Version pins for Debian packages would break at every bookworm point release;
# the base image tag already fixes the distribution.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# uv comes from PyPI into a throwaway venv of the builder stage (Debian's pip is
# externally managed); the final image never contains uv.
RUN python3 -m venv /opt/uv \
    && /opt/uv/bin/pip install "uv==${UV_VERSION}"

WORKDIR /opt/amelia

# Dependencies first: this layer is reused until pyproject.toml or uv.lock change. The
# Claude Code binary bundled with claude-agent-sdk (about 380 MB, half the image) is moved
# out of the venv, so that the final stage copies it into a layer of its own, which only a
# new claude-agent-sdk changes.
ARG CLAUDE_BINARY=lib/python3.11/site-packages/claude_agent_sdk/_bundled/claude
COPY pyproject.toml uv.lock ./
# uv's lock file in the venv (`.lock`, writable by everyone) goes too: nothing in the image
# runs uv, and no file of the venv is the agent user's to write.
RUN /opt/uv/bin/uv sync --frozen --no-dev --no-install-project \
    && mkdir /opt/claude \
    && mv "/opt/amelia/.venv/${CLAUDE_BINARY}" /opt/claude/claude \
    && rm /opt/amelia/.venv/.lock


FROM dependencies AS builder

# Then the package itself, installed non-editable so the venv holds no link to /opt/amelia/src.
# Its files (the package, its dist-info, the console script; RECORD lists every one, and the
# build fails if it lists anything else) are set apart, so that the final stage copies them
# in a layer of their own above the dependencies': a change of amelia writes that small
# layer, not the whole venv again.
COPY README.md ./
COPY src ./src
WORKDIR /opt/amelia/.venv/lib/python3.11/site-packages
RUN /opt/uv/bin/uv sync --project /opt/amelia --frozen --no-dev --no-editable \
    && sed 's/,.*//' amelia-*.dist-info/RECORD > /tmp/amelia-files \
    && ! grep -Ev '^(amelia/|amelia-[^/]+[.]dist-info/|[.][.]/[.][.]/[.][.]/bin/amelia$)' \
        /tmp/amelia-files \
    && mkdir -p /opt/amelia-package/bin /opt/amelia-package/lib/python3.11/site-packages \
    && cp -a amelia amelia-*.dist-info /opt/amelia-package/lib/python3.11/site-packages/ \
    && cp -a /opt/amelia/.venv/bin/amelia /opt/amelia-package/bin/


FROM debian:bookworm-slim

LABEL org.opencontainers.image.title="amelia" \
      org.opencontainers.image.description="Turn an issue into a reviewed change: plan, implement, review." \
      org.opencontainers.image.licenses="MIT"

ARG DEBIAN_FRONTEND=noninteractive

# The workspace GitHub mounts at /github/workspace belongs to the runner's uid, not root:
# git would refuse it as "dubious ownership" without the system-wide safe.directory.
# pip, venv, curl and xz-utils are what a project's setup needs to start (pip install,
# python3 -m venv, fetching and unpacking a toolchain such as Node.js); a setup that needs
# a compiler installs build-essential itself (docs/container.md, "Size").
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 git ca-certificates \
        python3-pip python3-venv curl xz-utils \
    && rm -rf /var/lib/apt/lists/* \
    && git config --system --add safe.directory '*'

# The agents' processes (the Claude Code CLI and its tools, the API driver's shell, the
# project's test command) run as amelia-agent, through setpriv (util-linux): not root, in
# no group but its own, so neither the Docker socket the runner mounts nor amelia's /proc
# files are theirs. The MCP servers amelia starts run as amelia-mcp, so the agents cannot
# read a server's environment, memory or files either. No login shell, no home: each run
# gives each a fresh temporary HOME.
RUN groupadd --system --gid 10001 amelia-agent \
    && useradd --system --uid 10001 --gid 10001 --no-user-group --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin amelia-agent \
    && groupadd --system --gid 10002 amelia-mcp \
    && useradd --system --uid 10002 --gid 10002 --no-user-group --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin amelia-mcp \
    && command -v setpriv

ARG CLAUDE_BINARY=lib/python3.11/site-packages/claude_agent_sdk/_bundled/claude
COPY --from=dependencies /opt/claude/claude /opt/amelia/.venv/${CLAUDE_BINARY}
COPY --from=dependencies /opt/amelia/.venv /opt/amelia/.venv
COPY --from=builder /opt/amelia-package/ /opt/amelia/.venv/

# A project's setup may `pip install` into the system's Python of this throwaway container.
ENV PATH=/opt/amelia/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    VIRTUAL_ENV=/opt/amelia/.venv \
    PIP_BREAK_SYSTEM_PACKAGES=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/root

ENTRYPOINT ["amelia", "action"]
