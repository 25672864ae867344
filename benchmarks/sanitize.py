"""Sanitizing hostile text: a 65,536-character body of nested HTML comments (each removal
forms the next comment) and one of hidden elements that keep forming new ones, against plain
text of the same size. GitHub accepts bodies this long from anyone who may open an issue or
a pull request, so the time must not grow with how deeply the constructs nest.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from amelia.github.sanitize import MAX_UNTRUSTED_CHARS, sanitize_untrusted
from benchmarks.report import Figure, Target

NESTED_RATIO_TARGET = Target(limit=3.0)
BENCH = f"sanitize: {MAX_UNTRUSTED_CHARS:,}-character body"


def plain_body(size: int) -> str:
    words = "Fix the greeter so that it says goodbye too.\n\n" * (size // 46 + 1)
    return words[:size]


def nested_comments(size: int) -> str:
    """`<!<!<!---->-- x -->-- x -->…`: removing each comment forms the next one."""
    layers = (size - len("<!---->")) // len("<!-- x -->")
    body = "<!" * layers + "<!---->" + "-- x -->" * layers
    return body + "v" * (size - len(body))


def hidden_chain(size: int) -> str:
    """`<d<i hidden></i>iv hidden>…`: removing each hidden element forms the next one."""
    chain = "<div hidden>evil</div>"
    while len(chain) < size - 14:
        chain = chain[:2] + "<i hidden></i>" + chain[2:]
    return chain + "v" * (size - len(chain))


def _seconds(text: str, runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        sanitize_untrusted(text)
        samples.append(time.perf_counter() - started)
    return samples


def sanitize_cost(runs: int) -> list[Figure]:
    size = MAX_UNTRUSTED_CHARS
    bodies: dict[str, Callable[[int], str]] = {
        "plain text": plain_body,
        "nested HTML comments": nested_comments,
        "hidden elements forming new ones": hidden_chain,
    }
    timed = {name: _seconds(make(size), runs) for name, make in bodies.items()}
    figures = [
        Figure.median_of(BENCH, f"{name} wall time", samples, "s")
        for name, samples in timed.items()
    ]
    plain = figures[0].value
    figures += [
        Figure(
            benchmark=BENCH,
            name=f"{name} / plain text",
            value=figure.value / plain,
            unit="x",
            target=NESTED_RATIO_TARGET,
        )
        for name, figure in zip(list(bodies)[1:], figures[1:], strict=True)
    ]
    return figures
