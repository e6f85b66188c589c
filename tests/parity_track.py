"""A test-only track, "parity": is the sum of a few small numbers even or odd?

It gives the LLM and pipeline tests a complete Track (grammar, prompts, parser, solver, scoring)
that does not depend on the real tracks. Its "solver" is exact arithmetic with two typed
failure modes the NS tests need: numbers above 999 are rejected as input (SolverInputError),
and the number 666 makes it report a timeout (SolverTimeout).

Run as a script, it registers the track and runs the ``scir`` command line:
``python tests/parity_track.py solve FILE ...`` (used by the subprocess tests).
"""

from __future__ import annotations

import re
import sys
from typing import Any, Sequence

import pytest

from scir.errors import FormalizationError, SolverInputError, SolverTimeout
from scir.tasks import Task
from scir.tracks import register, unregister
from scir.prompts import PromptArgs
from scir.tracks.base import Check, Formalization, Formalizer, Track, TrackParam

GRAMMAR = 'start: "numbers: " NUM (", " NUM)~0..8\nNUM: /[0-9]{1,3}/\n'
_FORMAL = re.compile(r"\Anumbers: ([0-9]{1,4}(?:, [0-9]{1,4}){0,8})\Z")


class ParityTrack(Track):
    """Sum parity of 1-9 numbers."""

    name = "parity"
    description = "test track: is the sum of the numbers even or odd?"
    n_blocks = 1

    def parameters(self) -> Sequence[TrackParam]:
        return [TrackParam("count", int, "numbers per task", 3, 5, minimum=1, maximum=9)]

    def tier(self, params: dict[str, Any]) -> str:
        return f"c{params['count']}"

    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        rng = self.rng(seed, index, "parity")
        numbers = [rng.randint(0, 20) for _ in range(params["count"])]
        answer = "even" if sum(numbers) % 2 == 0 else "odd"
        block = "The numbers are " + ", ".join(map(str, numbers)) + "."
        return Task(task_id=self.task_id(params, seed, index), domain=self.name,
                    difficulty="easy", tier=self.tier(params), seed=seed, params=dict(params),
                    question="Is the sum of the numbers even or odd?", answer=answer,
                    answer_pool=[answer], chance=0.5, formal={"numbers": numbers},
                    blocks=[block], problem_nl=block)

    def verify(self, task: Task) -> Check:
        found = self.solve_formal(task, task.formal)
        return Check(task.task_id, found == task.answer, task.answer, found)

    def solve_formal(self, task: Task, formal: dict[str, Any]) -> str:
        numbers = formal.get("numbers")
        if not isinstance(numbers, list) or not all(isinstance(n, int) for n in numbers):
            raise SolverInputError("numbers must be a list of integers", task_id=task.task_id)
        for n in numbers:
            if n > 999:
                raise SolverInputError(f"number {n} is out of range (0-999)")
        if 666 in numbers:
            raise SolverTimeout("parity solver ran out of time")
        return "even" if sum(numbers) % 2 == 0 else "odd"

    def formalizer(self) -> Formalizer:
        return ParityFormalizer(self)


class ParityFormalizer(Formalizer):
    """The parity track's formalization part: ``numbers: a, b, c``."""

    def grammar(self, task: Task) -> str:
        return GRAMMAR

    def parse(self, task: Task, text: str) -> Formalization:
        match = _FORMAL.match(text.strip())
        if match is None:
            raise FormalizationError("expected 'numbers: N, N, ...' with 1-9 numbers", line=1,
                                     column=1)
        numbers = [int(n) for n in re.findall(r"[0-9]+", match.group(1))]
        return Formalization({"numbers": numbers}, len(numbers))

    def prompt(self, kind: str, task: Task, presentation: str,
               args: PromptArgs | None = None) -> str:
        args = args or PromptArgs()
        problem = task.problem_nl if args.problem is None else args.problem
        if kind == "cot":
            return (f"{problem}\n{task.question}\n"
                    "Think, then end with 'Answer: even' or 'Answer: odd'.")
        if kind == "formalize":
            return f"{problem}\nList the numbers as 'numbers: a, b, c'."
        if kind == "symbcot":
            return (f"Formalization: {args.formalization}\n{task.question}\n"
                    "End with 'Answer: even' or 'Answer: odd'.")
        raise NotImplementedError(kind)

    def count_items(self, formal: dict[str, Any]) -> int:
        return len(formal["numbers"])


def install() -> None:
    """Register the parity track (idempotent)."""
    register("parity", ParityTrack)


def uninstall() -> None:
    """Forget the parity track again (tests must not leave it in the registry)."""
    unregister("parity")


@pytest.fixture(autouse=True)
def parity():
    """Import into a test module: the parity track is registered for each of its tests."""
    install()
    yield
    uninstall()


@pytest.fixture()
def taskfile(tmp_path):
    """An 8-task parity file (seed 5)."""
    from scir.tasks import write_tasks

    path = tmp_path / "parity.jsonl"
    write_tasks(path, ParityTrack().generate(8, seed=5))
    return path


if __name__ == "__main__":
    # A child inherits an ignored SIGINT (a suite started with `&` from a non-interactive shell,
    # nohup, some CI runners), and Python then installs no KeyboardInterrupt handler: the
    # Ctrl-C tests would send a signal the child never sees. This runner stands for `scir`
    # started from a terminal, where Ctrl-C reaches it.
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    install()
    from scir.cli import main

    sys.exit(main(sys.argv[1:]))
