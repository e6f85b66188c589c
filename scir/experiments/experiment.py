"""Experiment files: one TOML file (read with ``tomllib``, validated with pydantic) describing
a grid that ``scir eval`` runs -- task sources per track and difficulty, presentations,
architectures, models, constrained / free formalization, seeds, tasks per cell, generation
settings and budgets. docs/experiments.md documents every field with a full example.

:func:`load_experiment` reads and validates a file (any error is one ConfigError naming the
file and the field); :meth:`Experiment.cells` expands the grid into
:class:`~scir.experiments.cells.CellKey` s; :meth:`Experiment.fingerprint` is what a cell's results
depend on (its task source, generation settings, the model's server), used to refuse a rerun
that would change finished cells.

Every count is bounded and checked while the file is validated, before anything is allocated
or generated (the ``MAX_*`` constants below; docs/experiments.md lists them): the file's size
and nesting (:mod:`scir.bounded`), seeds, repeats, tasks, models, the grid's cells, tokens,
retries, concurrency, budgets and the sr-agent counts; floats must be finite. A value out of
bounds is one ConfigError naming the file and the field.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from scir.bounded import parse_toml, read_text
from scir.errors import ConfigError
from scir.experiments.cells import CellKey
from scir.pipelines.registry import ARCHS, BY_NAME, FORMALIZING, MODEL_FREE_ARCHS, SYMREG_ARCHS
from scir.pipelines.result import NO_MODEL
from scir.pipelines.sr_agent.settings import AgentSettings

# the architectures an experiment file names, those run once (the oracle) first: the order its
# error messages list them in
EXPERIMENT_ARCHS = tuple(sorted(ARCHS, key=lambda arch: BY_NAME[arch].seeded))
if TYPE_CHECKING:
    Arch = str
else:
    Arch = Literal[EXPERIMENT_ARCHS]
DEFAULT_TASKS_PER_CELL = 200

# bounds of an experiment file (docs/experiments.md, Bounds)
MAX_EXPERIMENT_BYTES = 1 << 20  # the file itself
MAX_NESTING = 16  # tables and arrays inside each other
MAX_SEED = 2**31 - 1  # seeds, task and render seeds: 0 .. MAX_SEED
MAX_SEEDS = 1000  # entries of seeds, and repeats
MAX_TASKS = 100_000  # tasks_per_cell, n of a generation spec
MAX_MODELS = 100
MAX_CELLS = 100_000  # cells of the grid
MAX_CALL_TOKENS = 1_000_000  # max_tokens, max_formalization_tokens of one call
MAX_RETRIES = 100
MAX_CONCURRENCY = 1024
MAX_PER_MINUTE = 1_000_000.0  # requests_per_minute
MAX_SECONDS = 10_000_000.0  # symreg seconds, budget wall seconds (about 115 days)
MAX_COST_USD = 1_000_000_000.0
MAX_GENERATIONS = 1_000_000  # symreg generations of one search (solvers.symreg.MAX_GENERATIONS)
MAX_BUDGET_TOKENS = 10**15
MAX_TEMPERATURE = 10.0
# sr-agent counts (scir.pipelines.sr_agent.settings.AgentSettings checks their lower bounds)
AGENT_BOUNDS: dict[str, float] = {
    "iterations": 10_000,
    "steps": 1_000,
    "top_k": 100,
    "analyze_memory_mb": 65_536,
    "max_tool_chars": 10_000_000,
    "fit_starts": 1_000,
    "analyze_seconds": 86_400.0,
    "fit_seconds": 86_400.0,
    "goal_start": 1e6,
    "goal_stop": 1e6,
    "s_max": 1e6,
}
SeedValue = Annotated[int, Field(ge=0, le=MAX_SEED)]


class FieldError(ValueError):
    """A check across fields that names the field at fault (its error names it too)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Render(_Strict):
    """How generated tasks are rendered into documents (needed for the ``obf`` presentation;
    ``control = true`` also renders the ``ctl`` presentation)."""

    renderer: Literal["template"] = "template"
    seed: SeedValue = 0
    control: bool = False


class TaskSource(_Strict):
    """The tasks of one track and difficulty: a task ``file`` or a generation spec."""

    file: str | None = None
    n: int | None = Field(default=None, ge=1, le=MAX_TASKS)
    seed: SeedValue = 0
    params: dict[str, Any] = Field(default_factory=dict)
    render: Render | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> TaskSource:
        if self.file is not None and (self.n is not None or self.params or self.render):
            raise ValueError(
                "give either file or a generation spec (n, seed, params, render), not both"
            )
        return self


class Model(_Strict):
    """One model of the grid."""

    name: str
    base_url: str | None = None
    # the variable holding the key, when not the provider's own (scir.llm.keys): *_API_KEY
    api_key_env: str | None = None
    concurrency: int = Field(default=1, ge=1, le=MAX_CONCURRENCY)
    requests_per_minute: float | None = Field(default=None, gt=0, le=MAX_PER_MINUTE)

    @field_validator("api_key_env")
    @classmethod
    def _key_name(cls, value: str | None) -> str | None:
        from scir.llm.keys import check_key_env

        if value is not None:
            try:
                check_key_env(value)
            except ConfigError as exc:
                raise ValueError(exc.message) from None
        return value


class Generation(_Strict):
    """Settings of every LLM call (they must stay the same across a run's invocations)."""

    max_tokens: int = Field(default=1024, ge=1, le=MAX_CALL_TOKENS)
    temperature: float = Field(default=0.0, ge=0.0, le=MAX_TEMPERATURE)
    max_retries: int = Field(default=2, ge=0, le=MAX_RETRIES)
    # ns / symbcot: the most tokens a formalization call may take (none: the grammar's
    # longest output, so that no formalization is cut)
    max_formalization_tokens: int | None = Field(default=None, ge=1, le=MAX_CALL_TOKENS)


class Symreg(_Strict):
    """Settings of the symbolic-regression baselines (``pyoperon``, ``gplearn``, ``pysr``)."""

    seconds: float = Field(default=30.0, gt=0, le=MAX_SECONDS)  # one task's search (train)
    # a search of this many generations instead of each baseline's default budget: results
    # then repeat exactly with the seed (the seconds above still stop a search first)
    generations: int | None = Field(default=None, ge=1, le=MAX_GENERATIONS)


class Budget(_Strict):
    """Limits that stop a run cleanly (finished work is kept; rerun to continue)."""

    max_cost_usd: float | None = Field(default=None, gt=0, le=MAX_COST_USD)
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_BUDGET_TOKENS)
    max_wall_seconds: float | None = Field(default=None, gt=0, le=MAX_SECONDS)


class Experiment(_Strict):
    """A validated experiment file."""

    name: str = "experiment"
    presentations: list[Literal["nl", "ctl", "obf"]] = Field(
        default=["nl", "obf"], min_length=1, max_length=3
    )
    architectures: list[Arch] = Field(min_length=1, max_length=len(ARCHS))
    constrained: list[bool] = Field(default=[True], min_length=1, max_length=2)
    seeds: list[SeedValue] | None = Field(default=None, max_length=MAX_SEEDS)
    repeats: int | None = Field(default=None, ge=1, le=MAX_SEEDS)
    tasks_per_cell: int = Field(default=DEFAULT_TASKS_PER_CELL, ge=1, le=MAX_TASKS)
    # ns cells: the backup asked when no formalization attempt gets an answer from the solver
    # (its answer is recorded next to the ns outcome; reports show NS with and without it)
    backup: Literal["cot"] | None = None
    generation: Generation = Generation()
    # sr-agent: fields of scir.pipelines.sr_agent.settings.AgentSettings (defaults there)
    agent: dict[str, float | int | str] = Field(default_factory=dict)
    symreg: Symreg = Symreg()
    budget: Budget = Budget()
    models: list[Model] = Field(default_factory=list, max_length=MAX_MODELS)
    # any registered track (scir.tracks.track_names: built-in, entry points, SCIR_TRACKS)
    tasks: dict[str, dict[Literal["easy", "hard"], TaskSource]] = Field(min_length=1)
    path: str = Field(default="", exclude=True)  # the file it was read from

    @field_validator("tasks")
    @classmethod
    def _known_tracks(cls, tasks: dict[str, Any]) -> dict[str, Any]:
        from scir.tracks import track_names

        known = track_names()
        for name in tasks:
            if name not in known:
                raise FieldError(
                    f"tasks.{name}",
                    f"unknown track {name!r} (known tracks: "
                    f"{', '.join(known)}; register your own with SCIR_TRACKS or "
                    f"an entry point, docs/extending.md)",
                )
        return tasks

    @model_validator(mode="after")
    def _check(self) -> Experiment:
        if self.seeds is not None and self.repeats is not None:
            raise FieldError("seeds", "give seeds or repeats, not both")
        self.agent_settings()
        if self.seeds is not None and (not self.seeds or len(set(self.seeds)) != len(self.seeds)):
            raise FieldError("seeds", "seeds must be a non-empty list without repeats")
        for name, values in (
            ("presentations", self.presentations),
            ("architectures", self.architectures),
            ("constrained", self.constrained),
        ):
            if len(set(values)) != len(values):
                raise FieldError(name, "a value is listed twice")
        if self.cell_count() > MAX_CELLS:
            raise ValueError(f"the grid has {self.cell_count()} cells, more than {MAX_CELLS}")
        if self.backup is not None and "ns" not in self.architectures:
            raise FieldError(
                "backup",
                f"backup = {self.backup!r} applies to the ns "
                f"architecture, which architectures does not list",
            )
        if any(a not in MODEL_FREE_ARCHS for a in self.architectures) and not self.models:
            raise FieldError(
                "models",
                f"architectures other than "
                f"{', '.join(MODEL_FREE_ARCHS)} need at least one [[models]] entry",
            )
        names = [m.name for m in self.models]
        if len(set(names)) != len(names):
            raise FieldError("models", "a model is listed twice")
        for track, tiers in self.tasks.items():
            for tier, source in tiers.items():
                if source.file is None:
                    _check_params(track, tier, source)
                if "obf" in self.presentations and source.file is None and source.render is None:
                    raise FieldError(
                        f"tasks.{track}.{tier}",
                        "the obf presentation needs a "
                        'render spec (render = {renderer = "template", '
                        "seed = 1})",
                    )
                if (
                    "ctl" in self.presentations
                    and source.file is None
                    and (source.render is None or not source.render.control)
                ):
                    raise FieldError(
                        f"tasks.{track}.{tier}",
                        "the ctl presentation needs a "
                        "render spec with control = true (render = {renderer = "
                        '"template", seed = 1, control = true})',
                    )
        return self

    # ---- the grid ----------------------------------------------------------------------------
    def cell_count(self) -> int:
        """How many cells :meth:`grid_cells` makes, computed without making them."""
        seeds = len(self.seeds) if self.seeds is not None else (self.repeats or 1)
        modes = len(set(self.constrained))
        per_group = 0
        for arch in self.architectures:
            if not BY_NAME[arch].needs_model:
                per_group += seeds if BY_NAME[arch].seeded else 1
            else:
                per_group += len(self.models) * (modes if arch in FORMALIZING else 1) * seeds
        return len(self.groups()) * len(self.presentations) * per_group

    def seed_list(self) -> list[int]:
        """The seeds: ``seeds``, or ``0 .. repeats-1``, or ``[0]``."""
        if self.seeds is not None:
            return list(self.seeds)
        return list(range(self.repeats or 1))

    def task_source(self, track: str, tier: str) -> TaskSource:
        """The task source of (track, tier): ``tasks[track][tier]`` for a tier given as a
        plain string (KeyError if the experiment has none)."""
        for name, source in self.tasks[track].items():
            if name == tier:
                return source
        raise KeyError(tier)

    def groups(self) -> list[tuple[str, str]]:
        """The (track, difficulty) pairs of the grid, in file order."""
        return [(t, d) for t, tiers in self.tasks.items() for d in tiers]

    def cells(self) -> list[CellKey]:
        """Every cell that is run, in run order (:meth:`grid_cells` without the
        :meth:`skipped` ones)."""
        skipped = {cell for cell, _ in self.skipped()}
        return [c for c in self.grid_cells() if c not in skipped]

    def skipped(self) -> list[tuple[CellKey, str]]:
        """The cells of the grid whose architecture their track does not take
        (``Track.pipeline_kinds``, e.g. ns on equation tasks), each with the reason; they are
        not planned."""
        from scir.pipelines.runner import check_architecture
        from scir.tracks import get_track

        out = []
        for cell in self.grid_cells():
            try:
                check_architecture(get_track(cell.track), cell.arch)
            except ConfigError as exc:
                out.append((cell, exc.message))
        return out

    def grid_cells(self) -> list[CellKey]:
        """Every cell of the grid, in run order: per track and difficulty, per presentation,
        per architecture, per model, constrained before free, per seed. ``oracle`` (no model,
        no sampling) runs once per track/difficulty/presentation, with the first seed; ``cot``
        and ``oracle`` have no free variant; the symbolic-regression baselines (no model) run
        once per seed."""
        seeds = self.seed_list()
        out = []
        for track, tier in self.groups():
            for pres in self.presentations:
                for arch in self.architectures:
                    if not BY_NAME[arch].needs_model:  # once, or once per seed
                        out += [
                            CellKey(track, tier, pres, arch, NO_MODEL, True, seed)
                            for seed in (seeds if BY_NAME[arch].seeded else seeds[:1])
                        ]
                        continue
                    modes = (
                        sorted(set(self.constrained), reverse=True)
                        if arch in FORMALIZING
                        else [True]
                    )
                    for model in self.models:
                        for mode in modes:
                            for seed in seeds:
                                out.append(
                                    CellKey(
                                        track, tier, pres, arch, model_label(model.name), mode, seed
                                    )
                                )
        return out

    def model_of(self, cell: CellKey) -> Model | None:
        """The model entry of a cell (None for oracle and the symbolic-regression baselines)."""
        return next((m for m in self.models if model_label(m.name) == cell.model), None)

    def backup_of(self, cell: CellKey) -> str | None:
        """The backup of a cell's runs: the experiment's ``backup`` for ns cells, else None."""
        return self.backup if cell.arch == "ns" else None

    def agent_settings(self) -> AgentSettings:
        """The ``[agent]`` table as sr-agent settings (:class:`FieldError` naming a bad
        field)."""
        for name, value in self.agent.items():
            bound = AGENT_BOUNDS.get(name, MAX_SECONDS)
            if isinstance(value, (int, float)) and not (
                math.isfinite(value) and abs(value) <= bound
            ):
                raise FieldError(
                    f"agent.{name}", f"must be a finite number of at most {bound:g}, got {value!r}"
                )
        try:
            # AgentSettings checks each value (ConfigError) and rejects unknown names (TypeError)
            settings: dict[str, Any] = dict(self.agent)
            return AgentSettings(**settings)
        except TypeError as exc:
            raise FieldError("agent", str(exc)) from exc
        except ConfigError as exc:
            raise FieldError("agent", exc.message) from exc

    def fingerprint(self, cell: CellKey) -> dict[str, Any]:
        """What a cell's stored results depend on: its task source, for model cells the
        generation settings and the model's server, for ns cells with a backup the
        backup (absent without one, as in runs recorded before backups existed), and for the
        symbolic-regression baselines their ``[symreg]`` settings."""
        source = self.task_source(cell.track, cell.difficulty)
        out: dict[str, Any] = {"tasks": source.model_dump(mode="json")}
        model = self.model_of(cell)
        if model is not None:
            out["generation"] = self.generation.model_dump(mode="json")
            out["base_url"] = model.base_url
            if cell.arch == "sr-agent":
                out["agent"] = dict(sorted(self.agent.items()))
        if self.backup_of(cell) is not None:
            out["backup"] = self.backup_of(cell)
        if cell.arch in SYMREG_ARCHS:
            # without generations: the settings as recorded before they existed
            out["symreg"] = self.symreg.model_dump(mode="json", exclude_none=True)
        return out

    def with_models(self, names: list[str]) -> Experiment:
        """The experiment with its models replaced by ``names`` (default settings each)."""
        data = self.model_dump(mode="json")
        data["models"] = [{"name": n} for n in names]
        return _validate(data, self.path)


def model_label(name: str) -> str:
    """The model column of a model name's results (``provider:model``, ``tiny-v1``), i.e. what
    :attr:`scir.llm.base.Backend.name` of its backend is."""
    from scir.llm import parse_model_name

    parsed = parse_model_name(name)
    if parsed.provider == "tiny":
        from scir.llm.tiny import VERSION

        return f"tiny-v{VERSION}"  # the tiny backend's model name
    return f"{parsed.provider}:{parsed.model}"


def _check_params(track: str, tier: str, source: TaskSource) -> None:
    """A generation spec's ``params`` checked by the track (names, types, ranges), before
    anything is generated (:class:`FieldError`)."""
    from scir.tracks import get_track

    try:
        get_track(track).resolve_params(tier, source.params)
    except ConfigError as exc:
        raise FieldError(f"tasks.{track}.{tier}.params", exc.message) from None


def _location(error: ErrorDetails) -> str | None:
    """The field of a validation error: its location, or the field a :class:`FieldError`
    names (None: the file as a whole)."""
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, FieldError):
        return cause.field
    return ".".join(str(p) for p in error["loc"]) or None


def _validate(data: dict[str, Any], path: str) -> Experiment:
    try:
        exp = Experiment.model_validate({**data, "path": path})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _location(first)
        message = first["msg"].removeprefix("Value error, ")
        if where is not None and not message.startswith(f"{where}: "):
            message = f"{where}: {message}"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"{message}{more}", file=path, field=where) from None
    for model in exp.models:
        try:
            model_label(model.name)
        except ConfigError as exc:
            raise ConfigError(f"models: {exc.message}", file=path, field="models.name") from None
    return exp


def load_experiment(path: str | Path) -> Experiment:
    """Read and validate an experiment file; relative task files are taken relative to it."""
    path = Path(path)
    text = read_text(path, MAX_EXPERIMENT_BYTES, ConfigError, "the experiment")
    data = parse_toml(text, file=str(path), max_depth=MAX_NESTING)
    if "path" in data:
        raise ConfigError("path: unknown field", file=str(path), field="path")
    return _validate(data, str(path))


def digest(path: str | Path) -> str:
    """sha256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
