"""The Sachs et al. (2005) protein-signalling data: loading, environments, targets, ground truth.

The data folder (``sachs.2005.with.jittered.experimental.continuous.txt`` and
``sachs.2005.ground.truth.graph.txt``) is found from, in order: the ``data_dir`` argument, the
environment variable ``SCIR_SACHS_DIR``, and the copy shipped in ``scir/data/sachs/`` (CC0, from
the CMU example-causal-datasets collection; see its README and LICENSE.CC0). Nothing is
downloaded.

Rows carry nine jittered indicator columns; rounded, ``cd3_cd28`` is the shared stimulation
and the environment of a row is the other indicator that is set (none: the observational
baseline). Targets follow the usual reading of the reagents (README of the data folder).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from scir.errors import ConfigError, ResourceError

DATA_FILE = "sachs.2005.with.jittered.experimental.continuous.txt"
TRUTH_FILE = "sachs.2005.ground.truth.graph.txt"
ENV_VAR = "SCIR_SACHS_DIR"
# what a release of tasks built on this data says about it (the dataset card)
LICENSE = "CC0-1.0"
SOURCE = (
    "Sachs et al. (2005), Causal protein-signaling networks derived from multiparameter "
    "single-cell data, Science 308(5721):523-529; the CMU example-causal-datasets "
    "collection, folder real/sachs/ (shipped in scir/data/sachs/ with LICENSE.CC0)"
)

PROTEINS = ["raf", "mek", "plc", "pip2", "pip3", "erk", "akt", "pka", "pkc", "p38", "jnk"]
INDICATORS = ["cd3_cd28", "icam2", "aktinhib", "g0076", "psitect", "u0126", "ly", "pma", "b2camp"]
STIMULATION = "cd3_cd28"
OBSERVATIONAL = "observational"
ENV_COLUMN = "environment"
# environment -> intervened proteins (inhibitions and activations alike)
TARGETS: dict[str, list[str]] = {
    OBSERVATIONAL: [],
    "icam2": [],
    "aktinhib": ["akt"],
    "g0076": ["pkc"],
    "psitect": ["pip2"],
    "u0126": ["mek"],
    "ly": ["pip3"],
    "pma": ["pkc"],
    "b2camp": ["pka"],
}
ENVIRONMENTS = list(TARGETS)
# the six environments of the classic CD3/CD28 subset with a single targeted inhibitor
SIX_ENVIRONMENTS = [OBSERVATIONAL, "aktinhib", "g0076", "psitect", "u0126", "ly"]
_BNLEARN_NAMES = {"plcg": "plc"}
_EDGE_LINE = re.compile(r"^\s*\d+\.\s+(\w+)\s+-->\s+(\w+)\s*$")
_ARC_LINE = re.compile(r"^\s*(\w+)\s*->\s*(\w+)\s*$")


@dataclass
class SachsData:
    """The Sachs table with one environment per row.

    ``frame``: the 11 protein columns (raw concentrations), the 9 rounded indicator columns and
    an ``environment`` column; ``environments``: environment names in canonical order;
    ``targets``: environment -> intervened proteins; ``proteins``: the 11 protein names.
    """

    frame: pd.DataFrame
    environments: list[str]
    targets: dict[str, list[str]]
    proteins: list[str]

    def counts(self) -> dict[str, int]:
        """Rows per environment, in canonical order."""
        sizes = self.frame[ENV_COLUMN].value_counts()
        return {env: int(sizes.get(env, 0)) for env in self.environments}

    def arrays(
        self, environments: list[str] | None = None, log: bool = True
    ) -> tuple[list[np.ndarray], list[list[int]]]:
        """GIES inputs: one ``n_e x 11`` array per environment and the targets as column indices.

        ``log=True`` takes natural logarithms (all concentrations must be positive).
        """
        envs = list(self.environments if environments is None else environments)
        unknown = [e for e in envs if e not in self.targets]
        if unknown:
            raise ConfigError(f"unknown Sachs environments {unknown}; known: {self.environments}")
        values = self.frame[self.proteins].to_numpy(dtype=np.float64)
        if log:
            if (values <= 0).any():
                raise ResourceError("Sachs data has non-positive concentrations; cannot take logs")
            values = np.log(values)
        env_col = self.frame[ENV_COLUMN].to_numpy()
        data = [values[env_col == e] for e in envs]
        targets = [[self.proteins.index(t) for t in self.targets[e]] for e in envs]
        return data, targets


def _packaged() -> Path:
    """The copy of the (CC0) Sachs folder shipped inside the package: ``scir/data/sachs/``."""
    return Path(__file__).resolve().parent / "sachs"


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The Sachs data folder: ``data_dir``, else ``$SCIR_SACHS_DIR``, else the packaged copy."""
    if data_dir is not None:
        source, folder = "argument data_dir", Path(data_dir)
    elif os.environ.get(ENV_VAR):
        source, folder = f"${ENV_VAR}", Path(os.environ[ENV_VAR])
    else:
        source, folder = "packaged copy", _packaged()
    if not (folder / DATA_FILE).is_file():
        raise ConfigError(
            f"Sachs data not found: {folder / DATA_FILE} ({source}); pass data_dir or set {ENV_VAR}"
        )
    return folder


def load_sachs(data_dir: str | os.PathLike[str] | None = None) -> SachsData:
    """Read the Sachs table, round the indicators and derive each row's environment."""
    folder = resolve_data_dir(data_dir)
    path = folder / DATA_FILE
    try:
        frame = pd.read_csv(path, sep="\t")
    except (OSError, ValueError) as exc:
        raise ResourceError(f"cannot read the Sachs data: {exc}", file=str(path)) from exc
    missing = [c for c in PROTEINS + INDICATORS if c not in frame.columns]
    if missing:
        raise ResourceError(f"Sachs data lacks columns {missing}", file=str(path))
    frame = frame[PROTEINS + INDICATORS].copy()
    if frame.isna().any().any():
        row = int(np.flatnonzero(frame.isna().any(axis=1).to_numpy())[0])
        raise ResourceError("Sachs data has a missing value", file=str(path), line=row + 2)
    rounded = frame[INDICATORS].round().astype(int)
    if not rounded.isin([0, 1]).all().all():
        raise ResourceError("Sachs indicator columns do not round to 0/1", file=str(path))
    frame[INDICATORS] = rounded
    others = rounded[[c for c in INDICATORS if c != STIMULATION]]
    n_set = others.sum(axis=1).to_numpy()
    if (n_set > 1).any():
        row = int(np.flatnonzero(n_set > 1)[0])
        raise ResourceError("a row has two reagents set", file=str(path), line=row + 2)
    baseline = (n_set == 0) & (rounded[STIMULATION].to_numpy() == 1)
    if ((n_set == 0) & ~baseline).any():
        row = int(np.flatnonzero((n_set == 0) & ~baseline)[0])
        raise ResourceError("a row has no indicator set", file=str(path), line=row + 2)
    env = np.where(baseline, OBSERVATIONAL, others.idxmax(axis=1).to_numpy())
    frame[ENV_COLUMN] = env
    return SachsData(
        frame=frame,
        environments=list(ENVIRONMENTS),
        targets={k: list(v) for k, v in TARGETS.items()},
        proteins=list(PROTEINS),
    )


def ground_truth_edges(
    list_name: str = "19", data_dir: str | os.PathLike[str] | None = None
) -> list[tuple[str, str]]:
    """Directed consensus edges ``(cause, effect)`` with the data's protein names.

    ``"20"``: the data folder's curated list; ``"19"``: the same without ``pka -> raf`` (the
    list of the SciR paper); ``"17"``: bnlearn's arcs, shipped with the toolkit.
    """
    if list_name == "17":
        text = (
            resources.files("scir.data").joinpath("sachs_bnlearn17.txt").read_text(encoding="utf-8")
        )
        edges = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = _ARC_LINE.match(line)
            if m is None:
                raise ResourceError("malformed arc", file="sachs_bnlearn17.txt", line=number)
            a, b = (_BNLEARN_NAMES.get(n.lower(), n.lower()) for n in m.groups())
            edges.append((a, b))
        _check_names(edges, "sachs_bnlearn17.txt")
        return edges
    if list_name not in ("19", "20"):
        raise ConfigError(f"unknown Sachs edge list {list_name!r}; expected '17', '19' or '20'")
    path = resolve_data_dir(data_dir) / TRUTH_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ResourceError(f"cannot read the Sachs ground truth: {exc}", file=str(path)) from exc
    edges = [(m.group(1), m.group(2)) for m in map(_EDGE_LINE.match, text.splitlines()) if m]
    _check_names(edges, str(path))
    if len(edges) != 20:
        raise ResourceError(f"expected 20 consensus edges, found {len(edges)}", file=str(path))
    if list_name == "19":
        edges = [e for e in edges if e != ("pka", "raf")]
    return edges


def _check_names(edges: list[tuple[str, str]], source: str) -> None:
    unknown = sorted({n for e in edges for n in e} - set(PROTEINS))
    if unknown:
        raise ResourceError(f"unknown protein names {unknown}", file=source)
