"""Reading task files: what the validation at the boundary costs.

Measured side by side on the same files, each track separately:
  1. reference: the JSON lines parsed and the generic fields checked only
     (``Task.from_dict(..., check=None)``);
  2. ``scir.tracks.reading.read_tasks`` as every command reads: bounded reader, generic
     fields, and the track's ``validate_formal`` (deduction parses every formula with the
     Lark grammar).
The formula cache of the deduction track is cleared before each timed run.

    python benchmarks/read_tasks.py FILE.jsonl [FILE.jsonl ...]
    python benchmarks/read_tasks.py --generate 200      # Hard tasks of each track, in a temp dir
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from scir.tasks import Task, write_tasks
from scir.tracks import get_track
from scir.tracks.reading import read_tasks
from scir.tracks.deduction.logic import _parsed


def generic_only(path: Path) -> int:
    """Tasks of ``path`` with the generic checks only (the reference)."""
    with path.open(encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip()
                   and Task.from_dict(json.loads(line), check=None))


def best(fn, path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        _parsed.cache_clear()
        start = time.perf_counter()
        fn(path)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--generate", type=int, default=0, metavar="N",
                        help="generate N Hard tasks per track (seed 11) and read those")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = list(args.files)
    if args.generate:
        folder = Path(tempfile.mkdtemp(prefix="scir-read-"))
        for name in ("deduction", "induction", "causal"):
            path = folder / f"{name}.jsonl"
            write_tasks(path, get_track(name).generate(args.generate, 11, "hard"))
            files.append(path)
    print("| file | tasks | MB | generic only (s) | read_tasks (s) | ratio |")
    print("|---|---:|---:|---:|---:|---:|")
    for path in files:
        n = len(read_tasks(path))  # warm up: imports, grammars, the induction world
        ref = best(generic_only, path, args.repeat)
        full = best(read_tasks, path, args.repeat)
        print(f"| {path.name} | {n} | {path.stat().st_size / 1e6:.1f} | {ref:.3f} | "
              f"{full:.3f} | {full / ref:.1f}x |")


if __name__ == "__main__":
    main()
