"""Plain progress lines where nobody watches a terminal (scir.progress): at least one every
interval even while one slow item runs, with done / total, accuracy, errors, tokens/s and an
ETA; quiet for work shorter than the interval."""

from __future__ import annotations

import io
import re
import time
from dataclasses import dataclass

from scir.progress import Pace, duration, plain_progress


@dataclass
class Result:
    status: str
    correct: bool
    completion_tokens: int


def test_a_slow_item_still_gets_lines_with_an_eta() -> None:
    out = io.StringIO()

    def slow():
        yield Result("ok", True, 40)
        time.sleep(0.35)                       # one slow item: lines keep coming
        yield Result("parse_error", False, 60)

    items = list(plain_progress(slow(), total=4, desc="solve ns", stream=out, seconds=0.1))
    lines = out.getvalue().splitlines()
    assert len(items) == 2 and len(lines) >= 3
    assert all(line.startswith("solve ns ") for line in lines)
    assert re.search(r"1/4 done, accuracy 1/1; [0-9.]+ tokens/s; ETA \S+", lines[0])
    assert re.search(r"2/4 done, accuracy 1/2, errors: parse 1; [0-9.]+ tokens/s; ETA",
                     lines[-1])


def test_short_work_stays_quiet() -> None:
    out = io.StringIO()
    assert list(plain_progress(range(3), total=3, desc="x", stream=out, seconds=30)) == [0, 1, 2]
    assert out.getvalue() == ""


def test_pace() -> None:
    pace = Pace(10, done=4)                    # 4 stored before: they do not speed up the ETA
    assert pace.summary().endswith("ETA -")
    pace.begun -= 10
    pace.add()
    assert pace.summary() == "5/10 done; ETA 50s"
    assert duration(3725) == "1h02m" and duration(190) == "3m10s"
