"""The Versions block of reports and the explorer: what produced the runs (toolkit version and
commit, Python, platform, solvers, libraries, models; :mod:`scir.provenance`), read from the
invocations the run stores recorded, and whether the combined runs differ in any of it.

Each component (``toolkit``, ``python``, ``solver prover9``, ``library numpy``, ``model tiny``,
...) is shown with its value when every recording invocation agrees, and with each value and the
runs holding it when they do not. A difference is said plainly: a number in a report built from
runs of two commits or two solver versions is not one experiment. Invocations recorded before
provenance was (older stores) are counted, not guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scir.provenance import MISSING, differences, flatten


@dataclass
class Versions:
    """The provenance records of some runs' invocations."""

    records: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (run, record)
    unrecorded: dict[str, int] = field(default_factory=dict)  # run -> invocations without

    def components(self) -> dict[str, dict[str, list[str]]]:
        """component -> value -> the runs recording it (sorted)."""
        out: dict[str, dict[str, set[str]]] = {}
        for run, record in self.records:
            for name, value in flatten(record).items():
                out.setdefault(name, {}).setdefault(value, set()).add(run)
        return {
            name: {value: sorted(runs) for value, runs in sorted(values.items())}
            for name, values in sorted(out.items(), key=lambda kv: _order(kv[0]))
        }

    def differences(self) -> dict[str, dict[str, list[str]]]:
        """The components with more than one value (:func:`scir.provenance.differences`)."""
        return differences(self.records)

    def summary(self) -> str:
        """One sentence: whether the runs agree, or in what they differ."""
        if not self.records:
            return "Versions: not recorded (runs made before provenance was recorded)."
        diff = self.differences()
        if not diff:
            return (
                "Versions: every recorded invocation ran the same toolkit, Python, solvers, "
                "libraries and models (see Versions)."
            )
        return (
            "Versions DIFFER between the combined runs in: "
            + ", ".join(diff)
            + " (see Versions); their numbers do not come from one setup."
        )

    def markdown(self) -> list[str]:
        """The report's Versions section body."""
        out = [self.summary(), ""]
        if self.unrecorded:
            out += [
                "Invocations without a record (made before provenance was recorded): "
                + ", ".join(f"`{run}` {n}" for run, n in sorted(self.unrecorded.items())),
                "",
            ]
        comps = self.components()
        if not comps:
            return out
        rows = []
        for name, values in comps.items():
            if len(values) == 1:
                rows.append([name, _cell(next(iter(values)))])
            else:
                rows.append(
                    [
                        name + " (DIFFERS)",
                        "; ".join(
                            f"{_cell(v)} in {', '.join(f'`{r}`' for r in runs)}"
                            for v, runs in values.items()
                        ),
                    ]
                )
        out += ["| component | version |", "|---|---|"]
        out += [f"| {a} | {b} |" for a, b in rows]
        return out

    def lines(self) -> list[str]:
        """The printed block (``scir report``, ``scir explore``): the agreed versions in a few
        lines, then each difference."""
        comps = self.components()
        if not comps:
            return [self.summary()]
        single = {k: next(iter(v)) for k, v in comps.items() if len(v) == 1}
        out = ["versions:"]
        for key in ("toolkit", "python", "platform"):
            if key in single:
                out.append(f"  {key} {single[key]}")
        for label, prefix in (("solvers", "solver "), ("libraries", "library ")):
            found = [
                f"{k[len(prefix) :]} {v}"
                for k, v in single.items()
                if k.startswith(prefix) and v != MISSING
            ]
            if found:
                out.append(f"  {label}: {', '.join(found)}")
        out += [f"  {k}: {v}" for k, v in single.items() if k.startswith("model ")]
        for name, values in self.differences().items():
            out.append(
                f"  DIFFERS {name}: "
                + "; ".join(f"{v} in {', '.join(runs)}" for v, runs in values.items())
            )
        if len(out) > 1 and self.differences():
            out.append("  " + self.summary())
        return out

    def to_dict(self) -> dict[str, Any]:
        """``report.json``'s ``versions``: each component's values and runs, the differing
        components, the invocations without a record and the raw records per run."""
        return {
            "components": self.components(),
            "differences": self.differences(),
            "unrecorded": dict(sorted(self.unrecorded.items())),
            "records": [{"run": run, **record} for run, record in self.records],
        }


def _order(name: str) -> tuple[int, str]:
    head = name.split(" ", 1)[0]
    rank = {"toolkit": 0, "python": 1, "platform": 2, "solver": 3, "model": 4, "library": 5}
    return rank.get(head, 6), name


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def read_versions(run_dirs: list[str]) -> Versions:
    """The provenance records of the runs' invocations (a run whose store cannot be read is
    left out: reading its results reports that)."""
    from scir.errors import ScirError
    from scir.runs.store import STORE_NAME, RunStore

    found = Versions()
    for run in run_dirs:
        if not (Path(run) / STORE_NAME).is_file():
            continue
        try:
            with RunStore(run, readonly=True) as store:
                records = store.provenances()
        except ScirError:
            continue
        missing = sum(r is None for r in records)
        if missing:
            found.unrecorded[str(run)] = missing
        found.records += [(str(run), r) for r in records if r is not None]
    return found
