"""The ``Track`` interface: everything the generic commands, renderers and pipelines need to
know about one logic domain. A new track is one subclass plus one registry entry
(see ``docs/extending.md``).
"""

from __future__ import annotations

import copy
import random
import re
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, cast

from scir.errors import ConfigError, ScirError
from scir.outcomes.scoring import Scorer
from scir.prompts import PromptArgs
from scir.tasks import Task
from scir.tracks.formalizer import (
    MAX_LISTED,
    TRACK_METHODS,
    Extraction,
    Formalization,
    Formalizer,
    TrackMethods,
    match_items,
    older_method,
)
from scir.tracks.scoring import default_scorer, older_call

if TYPE_CHECKING:
    from scir.text.codec import RenderCodec


@dataclass(frozen=True)
class TrackParam:
    """One generation parameter: exposed as ``--<flag>`` by ``scir generate TRACK``."""

    name: str  # key in Task.params, e.g. "depth"
    type: type  # int, float or str
    help: str
    easy: Any  # value for --difficulty easy
    hard: Any  # value for --difficulty hard
    choices: tuple | None = None
    minimum: float | None = None
    maximum: float | None = None
    # False for parameters that change how a task is built but not how hard it is (e.g.
    # ``construction``): they never make the difficulty ``custom``
    affects_difficulty: bool = True

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


CONSTRUCTIONS = ("balanced", "paper")


def construction_param() -> TrackParam:
    """The ``--construction`` parameter shared by the built-in tracks: ``balanced`` (the
    default: answer-blind statistics independent of the answer, see docs/validity.md) or
    ``paper`` (the SciR paper's construction, reproduced with its artifacts)."""
    return TrackParam(
        "construction",
        str,
        "how tasks are built: balanced (answer-blind "
        "statistics independent of the answer) or paper (the SciR paper's "
        "construction, artifacts included; see docs/validity.md)",
        "balanced",
        "balanced",
        choices=CONSTRUCTIONS,
        affects_difficulty=False,
    )


@dataclass
class Check:
    """The outcome of re-establishing one task's answer with the solvers."""

    task_id: str
    ok: bool
    expected: str  # the answer stored in the file
    found: str | None  # the answer the solvers establish
    details: dict[str, Any] = field(default_factory=dict)
    message: str = ""


class FormalObject(Protocol):
    """A track's typed formal object (``Track.formal_type``), e.g. a frozen dataclass.

    ``load`` reads the JSON form stored in ``Task.formal`` and is the one place it is
    validated (raising the ``scir.errors`` family -- TaskFormatError, FormalizationError --
    with the field, e.g. ``formal.premises[3]``); ``dump`` writes it back, key order
    included, so that a generator that builds its object and dumps it writes the same bytes.
    """

    @classmethod
    def load(cls, data: Any) -> FormalObject: ...

    def dump(self) -> dict[str, Any]: ...


F = TypeVar("F", bound=FormalObject)
_CACHE_SIZE = 1024
_cache: dict[int, tuple[Any, type, Any, Any]] = {}  # id(task) -> (ref, type, snapshot, object)
_cache_lock = threading.Lock()  # the pipelines run tasks in threads


def load_formal(formal_type: type[F], task: Task) -> F:
    """``formal_type.load(task.formal)``, cached per task while ``task.formal`` is unchanged
    (compared with a copy taken at load time, so an edit in place is seen). Errors of
    ``load`` get the task id."""
    key = id(task)
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None and hit[0]() is task and hit[1] is formal_type and hit[2] == task.formal:
        return hit[3]
    try:
        # a formal type's ``load`` builds an object of that type (FormalObject says only
        # "a FormalObject")
        value = cast(F, formal_type.load(task.formal))
    except ScirError as exc:
        if exc.task_id is None:
            exc.task_id = task.task_id
        raise
    entry = (weakref.ref(task), formal_type, copy.deepcopy(task.formal), value)
    with _cache_lock:
        while len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = entry
    return value


@dataclass(frozen=True)
class RegressionData:
    """One split of a regression task: ``X`` (one row per point, one column per input),
    ``y`` and the input names (what :meth:`Track.regression_data` returns)."""

    X: Any
    y: Any
    inputs: tuple[str, ...]


# What a solving architecture needs of a track: its kind. Each architecture of the pipelines'
# registry (scir.pipelines.registry) has one; a track names the kinds it takes
# (Track.pipeline_kinds), so it never names an architecture.
ANSWER = "answer"  # the model answers from the text (the track's prompts and answer reader)
FORMALIZE = "formalize"  # the model formalizes, the track's solver answers (grammar, solve_formal)
SOLVE = "solve"  # the track's solver answers the gold formal object
AGENT = "agent"  # an agent fits an equation to the train split with tools (equation tasks)
REGRESSION = "regression"  # a regressor fits the train split, no model (Track.regression_data)
PIPELINE_KINDS = (ANSWER, FORMALIZE, SOLVE, AGENT, REGRESSION)
# the kinds that need nothing but the track's hooks (the agent and the symbolic-regression
# baselines need equation data)
GENERAL_KINDS = (ANSWER, FORMALIZE, SOLVE)


class Track(ABC):
    """One benchmark track (deduction, induction, causal, ...)."""

    name: str = ""  # registry name, also Task.domain
    description: str = ""
    n_blocks: int = 2  # clean-NL blocks per task
    answer_kind: str = "label"  # "label", "rule", "option": how CoT answers are parsed
    answer_pools: bool = False  # whether a task may accept several answers (stats show
    # the pool sizes)
    # the rule of the default scorer (Track.scorer): label, pool or option
    # (scir.outcomes.scoring.RULES); a track with a scorer of its own names its rule here too
    scoring: str = "pool"
    # the typed formal object (a FormalObject: ``load`` / ``dump``); None: the JSON dict itself
    formal_type: ClassVar[type | None] = None
    # the kinds of architecture (PIPELINE_KINDS) that apply to the track; None: all. Its
    # architectures are those of the registry with these kinds
    # (scir.pipelines.registry.architectures); the pipelines refuse the others with a
    # ConfigError before any call, and ``scir eval`` does not plan them (the logic tracks:
    # GENERAL_KINDS)
    pipeline_kinds: ClassVar[tuple[str, ...] | None] = None
    # the symbolic solvers the track's checks and solving pipelines run (names of
    # :func:`scir.provenance.solvers`: prover9, swi-prolog, clingo); ``scir solve`` and
    # ``scir eval`` check that they are installed before any work
    solvers: ClassVar[tuple[str, ...]] = ()

    def formal(self, task: Task) -> Any:
        """The task's formal object, ``formal_type.load(task.formal)`` (cached; see
        :func:`load_formal`); ``task.formal`` itself when the track has no ``formal_type``."""
        if self.formal_type is None:
            return task.formal
        return load_formal(self.formal_type, task)

    # ---- generation -------------------------------------------------------------------
    @abstractmethod
    def parameters(self) -> Sequence[TrackParam]:
        """The track's generation parameters, with Easy and Hard presets."""

    @abstractmethod
    def tier(self, params: dict[str, Any]) -> str:
        """The tier code of a parameter set, e.g. ``e4d1``."""

    @abstractmethod
    def generate_one(self, params: dict[str, Any], seed: int, index: int) -> Task:
        """Generate task ``index`` of a file made with ``seed``; deterministic in its inputs."""

    def resolve_params(
        self, difficulty: str, overrides: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Merge a difficulty preset with explicit values; returns (difficulty, params).

        Any override that differs from the preset makes the difficulty ``custom``.
        """
        if difficulty not in ("easy", "hard"):
            raise ConfigError(
                f"difficulty must be easy or hard, got {difficulty!r}", field="difficulty"
            )
        params = {p.name: getattr(p, difficulty) for p in self.parameters()}
        custom = False
        for key, value in (overrides or {}).items():
            if value is None:
                continue
            spec = next((p for p in self.parameters() if p.name == key), None)
            if spec is None:
                raise ConfigError(f"track {self.name} has no parameter {key!r}", field=key)
            value = self.check_param(spec, value)
            if value != params[key] and spec.affects_difficulty:
                custom = True
            params[key] = value
        return ("custom" if custom else difficulty), params

    def difficulty_of(self, params: dict[str, Any]) -> str:
        """``easy`` or ``hard`` when ``params`` equal that preset, else ``custom``."""
        for level in ("easy", "hard"):
            if all(
                params.get(p.name) == getattr(p, level)
                for p in self.parameters()
                if p.affects_difficulty
            ):
                return level
        return "custom"

    @staticmethod
    def check_param(spec: TrackParam, value: Any) -> Any:
        """Coerce and range-check one parameter value (raises ConfigError)."""
        try:
            value = spec.type(value)
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"{spec.flag} expects {spec.type.__name__}, got {value!r}", field=spec.name
            ) from exc
        if spec.choices is not None and value not in spec.choices:
            raise ConfigError(
                f"{spec.flag} must be one of {list(spec.choices)}, got {value!r}", field=spec.name
            )
        if spec.minimum is not None and value < spec.minimum:
            raise ConfigError(
                f"{spec.flag} must be >= {spec.minimum}, got {value!r}", field=spec.name
            )
        if spec.maximum is not None and value > spec.maximum:
            raise ConfigError(
                f"{spec.flag} must be <= {spec.maximum}, got {value!r}", field=spec.name
            )
        return value

    def generate(
        self, n: int, seed: int, difficulty: str = "easy", overrides: dict[str, Any] | None = None
    ) -> Iterator[Task]:
        """Generate ``n`` tasks deterministically from ``seed``."""
        if n < 0:
            raise ConfigError("the number of tasks must be >= 0", field="n")
        level, params = self.resolve_params(difficulty, overrides)
        for index in range(n):
            task = self.generate_one(dict(params), seed, index)
            task.difficulty = level
            yield task

    def task_id(self, params: dict[str, Any], seed: int, index: int) -> str:
        """``{track}-{tier}-{seed}-{index}``."""
        return f"{self.name}-{self.tier(params)}-{seed}-{index}"

    @staticmethod
    def rng(seed: int, index: int, salt: str = "") -> random.Random:
        """A private random generator for one task (independent of other tasks)."""
        return random.Random(f"{salt}:{seed}:{index}")

    # ---- checking and scoring ---------------------------------------------------------
    @abstractmethod
    def verify(self, task: Task) -> Check:
        """Re-establish the task's answer (and pool) with the solvers."""

    @abstractmethod
    def solve_formal(self, task: Task, formal: Any) -> str:
        """The answer a symbolic solver gives for a formal object (gold: ``self.formal(task)``,
        or formalized: ``parse_formalization(...).formal``), of ``formal_type``.

        Raises ``SolverError`` subclasses on solver failure.
        """

    def validate_formal(self, task: Task) -> None:
        """Check a record read from a file against the track's shapes: ``answer``,
        ``answer_pool``, ``options``, ``domain_metadata`` and the formal object (its
        ``formal_type.load``), with bounded sizes; extra keys are allowed. Raises
        TaskFormatError naming the field (``scir.tasks`` adds file, line and task). Called
        once per record by the reader, so no command starts on a malformed record. The
        default loads the formal object when the track has a ``formal_type``."""
        if self.formal_type is not None:
            self.formal(task)

    def scorer(self) -> Scorer:
        """How the track's answers are scored (:class:`scir.outcomes.scoring.Scorer`: the
        verdict, the rule's per-answer metrics, the rule's name per task). The default is the
        generic scorer :attr:`scoring` names (:func:`scir.tracks.scoring.default_scorer`:
        ``label``, ``pool``, ``option``); a track with a rule of its own overrides this."""
        return default_scorer(self)

    def regression_data(self, task: Task, split: str = "train") -> RegressionData:
        """The numeric data of a task's ``split`` for the symbolic-regression baselines
        (``--arch pyoperon|gplearn|pysr``); tracks without such data do not override this,
        and those architectures refuse them (``scir.pipelines.symreg``)."""
        raise NotImplementedError(
            f"track {self.name} has no numeric data for the symbolic-regression baselines"
        )

    def parse_answer(self, task: Task, text: str) -> str | None:
        """Extract the final answer from free text (a CoT response); None if absent.

        The default reads the last line of the form ``Answer: X``.
        """
        matches = re.findall(
            r"(?im)^\s*\**\s*(?:final\s+)?answer\s*\**\s*[:=]\s*\**\s*(.+?)\s*\**\s*$", text
        )
        return matches[-1].strip() if matches else None

    # ---- hooks for pipelines and renderers --------------------------------------------
    def codec(self) -> RenderCodec:
        """The track's rendering codec (:class:`scir.text.codec.RenderCodec`): block contents,
        genres, template writer, reference extractor and back-translation format. A track
        without one cannot be rendered (ConfigError naming it)."""
        raise ConfigError(
            f"track {self.name!r} has no rendering codec (Track.codec), so its "
            "tasks cannot be rendered; see docs/extending.md",
            field="domain",
        )

    def formalizer(self) -> Formalizer:
        """The track's formalization part (:class:`scir.tracks.formalizer.Formalizer`):
        prompts, grammar, parser and writer of formalization text, reference items. The
        default, :class:`~scir.tracks.formalizer.TrackMethods`, calls the older methods
        (``formalization_grammar``, ``prompt``, ...) that a track written before the
        Formalizer defines, with a DeprecationWarning."""
        return TrackMethods(self)

    # a directory of the track's own prompt files, for a track on the older methods (a
    # Formalizer names its own: Formalizer.prompt_dir)
    prompt_dir: ClassVar[str | Path | None] = None

    if not TYPE_CHECKING:  # the type checker sees only the Track face above

        def __getattr__(self, name: str) -> Any:
            """The older formalization methods (``prompt``, ``parse_formalization``, ...) and
            scoring calls (``score``, ``scoring_of``, ``answer_metrics``), called on a track
            that does not define them: they forward to ``formalizer()`` / ``scorer()`` with a
            DeprecationWarning (removed in :data:`~scir.tracks.formalizer.
            OLDER_METHODS_REMOVED_IN`)."""
            return older_call(self, name) or older_method(self, name)

    def exporters(self) -> dict[str, Callable[[list[Task], Path], int]]:
        """Track-specific export formats: name -> function(tasks, out_dir) -> files written."""
        return {}

    def data_sources(self) -> list[str]:
        """Third-party data the track's tasks are built from, each with its source and licence
        (a dataset card states them); empty when the tasks are fully synthetic."""
        return []


__all__ = [
    "AGENT",
    "ANSWER",
    "CONSTRUCTIONS",
    "FORMALIZE",
    "GENERAL_KINDS",
    "MAX_LISTED",
    "PIPELINE_KINDS",
    "REGRESSION",
    "SOLVE",
    "TRACK_METHODS",
    "Check",
    "Extraction",
    "FormalObject",
    "Formalization",
    "Formalizer",
    "PromptArgs",
    "RegressionData",
    "Track",
    "TrackParam",
    "construction_param",
    "load_formal",
    "match_items",
]
