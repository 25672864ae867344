"""A stand-in for the `amelia action` entry, run as a program by the isolation tests.

    python isolated_entry.py <isolate|plain> <workdir> [probe arguments...]

It records each start (pid) in <workdir>/starts, then, with `isolate`, calls
`isolate_secrets()` first thing as the entry does (printing the error's message and
exiting 1 if it fails). It writes the SHA-256 of every credential it holds, and whether it
is marked not inspectable, to <workdir>/received.json (proof that the handover worked,
without the values), and runs the credential probe as an agent's tool would run: a child
whose environment has the credentials blanked, as the drivers do.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from amelia.isolation.handoff import IsolationError, handed_over_secrets, isolate_secrets
from amelia.isolation.inspection import inspection_forbidden
from amelia.redaction.names import secret_variables

PROBE = Path(__file__).with_name("credential_probe.py")


def main(arguments: list[str]) -> int:
    mode, workdir = arguments[0], Path(arguments[1])
    with (workdir / "starts").open("a") as starts:
        starts.write(f"{os.getpid()}\n")
    if mode == "isolate":
        try:
            isolate_secrets()
        except IsolationError as error:
            print(error.message, file=sys.stderr)
            return 1
        held = dict(handed_over_secrets())
    else:
        held = secret_variables(os.environ)
    digests = {name: hashlib.sha256(value.encode()).hexdigest() for name, value in held.items()}
    received = {"digests": digests, "inspection_forbidden": inspection_forbidden()}
    (workdir / "received.json").write_text(json.dumps(received))
    tool_environment = {name: ("" if name in held else value) for name, value in os.environ.items()}
    probe = [sys.executable, str(PROBE), str(workdir / "dump"), *arguments[2:]]
    return subprocess.run(probe, env=tool_environment, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
