"""What every pipeline shares: its settings, its result record, the text a solver sees, the
call bookkeeping, the translation of track hooks that are not there yet, and the steps the
model pipelines have in common (:func:`start`, :func:`answer_and_score`)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scir.errors import ConfigError, ScirError
from scir.llm.base import Backend, Constraint, LLMRequest, LLMResponse, Message, Tool, cut_response
from scir.outcomes.status import NO_ANSWER_MESSAGE, STATUS_VALUES, Status, normalise
from scir.pipelines.sr_agent.settings import AgentSettings
from scir.prompts import PromptArgs
from scir.tasks import Task
from scir.tracks import track_of
from scir.tracks.base import Track

BACKUPS = ("cot",)  # what answers a task when NS's formalization fails
PRESENTATIONS = ("nl", "ctl", "obf")
STATUSES = STATUS_VALUES  # scir.outcomes.status.Status, as stored
NO_MODEL = "none"  # the model column of the results of architectures without a model
RETRY_TEMPERATURE = 0.7  # a greedy call's retry samples (scir.pipelines.ns)

# Solvers are called from one thread at a time: the pipelines run tasks in threads so that LLM
# calls overlap, but an in-process Prolog bridge is not thread-safe and the solvers are CPU-bound.
SOLVER_LOCK = threading.Lock()


@dataclass(frozen=True)
class PipelineSettings:
    """How a pipeline runs: presentation, generation parameters, NS retries, and whether the
    formalization is decoded under the track's grammar (``constrained``, the default) or
    free (the model writes what it likes; the parser still decides)."""

    presentation: str = "nl"
    max_tokens: int = 1024
    temperature: float = 0.0
    seed: int = 0
    max_retries: int = 2
    constrained: bool = True
    # the most tokens a formalization call may take; None: the grammar's longest output (so
    # the token limit never cuts a formalization). A cap makes long formalizations fail to
    # parse; it bounds the cost of models that never stop (the demo's random-weight model).
    max_formalization_tokens: int | None = None
    # ns: when no formalization attempt gets an answer from the solver, ask this architecture
    # (``cot``, on the same task and presentation) and record its answer as the backup
    # (Logic-LM's backup answers); None: no backup
    backup: str | None = None
    # the sr-agent architecture's loop settings (iterations, steps, top-K, goals, tools)
    agent: AgentSettings = field(default_factory=AgentSettings)
    # pyoperon / gplearn / pysr: wall-clock seconds of one task's search (the seed: ``seed``)
    symreg_seconds: float = 30.0
    # pyoperon / gplearn / pysr: a search of this many generations instead of the baseline's
    # default budget (None); the seconds above still stop it first. Reproducible: a search
    # that ends on its generations gives the same expression for the same seed
    symreg_generations: int | None = None

    def __post_init__(self) -> None:
        if self.presentation not in PRESENTATIONS:
            raise ConfigError(
                f"presentation must be one of {', '.join(PRESENTATIONS)}, "
                f"got {self.presentation!r}",
                field="presentation",
            )
        if self.max_retries < 0:
            raise ConfigError("max_retries must be >= 0", field="max_retries")
        if self.max_formalization_tokens is not None and self.max_formalization_tokens < 1:
            raise ConfigError(
                "max_formalization_tokens must be >= 1", field="max_formalization_tokens"
            )
        if not self.symreg_seconds > 0:
            raise ConfigError("symreg_seconds must be > 0", field="symreg_seconds")
        if self.symreg_generations is not None and self.symreg_generations < 1:
            raise ConfigError("symreg_generations must be >= 1", field="symreg_generations")
        if self.backup is not None and self.backup not in BACKUPS:
            raise ConfigError(
                f"backup must be one of {', '.join(BACKUPS)}, got {self.backup!r}", field="backup"
            )

    def check_arch(self, arch: str) -> None:
        """Refuse settings that do not apply to ``arch`` (a backup is for ``ns`` only), and
        ``sr-agent`` where its analyzer cannot run isolated (unless told it may)."""
        if arch == "sr-agent":
            self.agent.check_isolation()
        if self.backup is not None and arch != "ns":
            raise ConfigError(
                f"--backup {self.backup} applies to --arch ns only (a backup "
                f"answers when the formalization fails), not --arch {arch}",
                field="backup",
            )


@dataclass
class PipelineResult:
    """The outcome of one task under one (arch, presentation, model)."""

    task_id: str
    domain: str
    tier: str
    arch: str
    presentation: str
    model: str
    answer: str | None
    correct: bool
    status: str  # a scir.outcomes.status.Status value (STATUSES)
    chance: float
    # the task's chance among the answers its question allows (None: results stored before)
    chance_constrained: float | None = None
    difficulty: str = ""  # easy, hard, custom ("" in results stored before)
    constrained: bool = True  # formalization decoded under the grammar
    seed: int = 0  # the seed sent with every call (repeats differ in it)
    # ns: the solver answered the formalization; symbcot: the formalization parsed; None for
    # architectures that do not formalize
    executable: bool | None = None
    gold: str | None = None  # the task's answer (None in results stored before)
    answer_pool: list[str] | None = None  # the accepted answers (None in results stored before)
    formalization: str | None = None  # the (last) formalization text, ns and symbcot
    response: str | None = None  # the answering text, cot and symbcot
    solver_status: str | None = None  # answered, parse_error, input_error, timeout, error
    solver_log: str = ""
    retries: int = 0
    items: int | None = None  # extracted items of the parsed formalization
    # the parsed formalization's items against the gold (Formalizer.extraction: precision, recall,
    # missing, extra, goal); None when it did not parse, the track does not check items, or
    # the result was stored before extraction was checked
    extraction: dict[str, Any] | None = None
    reference_items: int | None = None
    input_chars: int = 0
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    error: str = ""
    # ns with a backup (PipelineSettings.backup): the backup architecture the run was set to
    # ask; whether it was asked (no formalization got an answer from the solver); its status
    # (ok, wrong, no_answer), answer, verdict and response. The ns outcome above (status,
    # answer, correct, formalization, solver log) is never overwritten: "with backup" is
    # scir.outcomes.backup.with_backup of this record.
    backup: str | None = None
    backup_used: bool = False
    backup_status: str | None = None
    backup_answer: str | None = None
    backup_correct: bool = False
    backup_response: str | None = None
    # architecture-specific numbers (sr-agent: iterations, steps, tool calls, best MAPE, ...)
    extras: dict[str, Any] | None = None
    # the scoring rule's per-answer metrics, computed with the verdict (equation: acc_0.1,
    # acc_0.01, acc_0.001, nmse_id, nmse_ood, symbolic; scir.outcomes.regression.METRICS);
    # None for rules without metrics, for results without an answer and in results stored
    # before metrics were recorded
    metrics: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PipelineResult:
        """Rebuild a stored result (unknown keys are ignored)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in normalise(data).items() if k in names})


def problem_text(task: Task, presentation: str) -> str:
    """The text a solver sees: the clean NL (``nl``), the control documents (``ctl``) or the
    rendered scientific documents (``obf``)."""
    if presentation == "nl":
        text = task.problem_nl or "\n\n".join(task.blocks)
    elif presentation == "obf":
        text = task.problem_obfuscated
        if not text:
            raise ConfigError(
                "task has not been rendered: no obfuscated text "
                "(run `scir render` first, or use --presentation nl)",
                task_id=task.task_id,
                field="problem_obfuscated",
            )
    elif presentation == "ctl":
        text = task.problem_control
        if not text:
            raise ConfigError(
                "task has no control text (render it with `scir render FILE "
                "--control -o OUT`, or use --presentation nl/obf)",
                task_id=task.task_id,
                field="problem_control",
            )
    else:
        raise ConfigError(
            f"presentation must be one of {', '.join(PRESENTATIONS)}, got {presentation!r}",
            field="presentation",
        )
    return text


def hook(track: Track, name: str, *args: Any, **kwargs: Any) -> Any:
    """Call a track hook; a hook the track does not provide yet stops the run (ConfigError)
    instead of being recorded as a failure of every task."""
    fn: Callable[..., Any] = getattr(track, name)
    try:
        return fn(*args, **kwargs)
    except NotImplementedError as exc:
        raise _unsupported(track, name, exc) from exc


def formalizer_hook(track: Track, name: str, *args: Any) -> Any:
    """Call method ``name`` of the track's formalizer (``Track.formalizer()``); as with
    :func:`hook`, one the track does not provide yet stops the run (ConfigError naming it,
    e.g. ``Formalizer.grammar``)."""
    fn: Callable[..., Any] = getattr(track.formalizer(), name)
    try:
        return fn(*args)
    except NotImplementedError as exc:
        raise _unsupported(track, f"Formalizer.{name}", exc) from exc


def _unsupported(track: Track, name: str, exc: NotImplementedError) -> ConfigError:
    return ConfigError(
        f"track {track.name!r} does not support {name} yet{': ' + str(exc) if str(exc) else ''}",
        field="arch",
    )


class Calls:
    """Runs a pipeline's LLM calls and adds up calls, tokens and cost."""

    def __init__(self, backend: Backend, settings: PipelineSettings) -> None:
        self.backend = backend
        self.settings = settings
        self.calls = 0
        self.cached = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost = 0.0

    def ask(
        self,
        messages: list[tuple[str, str]] | list[Message],
        constraint: Constraint | None = None,
        tokens: int | None = None,
        formalization: bool = False,
        tools: tuple[Tool, ...] = (),
        max_response_chars: int | None = None,
        attempt: int = 0,
    ) -> LLMResponse:
        """One call with the pipeline's generation settings (BackendError propagates);
        ``messages`` as (role, content) pairs or Message records, ``tools`` offered to the
        model (OpenAI tool calls); the response's text and tool-call arguments cut to
        ``max_response_chars`` (:func:`scir.llm.base.cut_response`: stored and returned cut).

        ``tokens`` is this call's limit instead of ``settings.max_tokens`` (a formalization's
        budget from the task's size, :func:`formalization_tokens`); for a ``formalization``
        call, ``settings.max_formalization_tokens``, when set, is the limit instead. A retry
        (``attempt`` > 0) of a greedy call samples at :data:`RETRY_TEMPERATURE` with seed
        ``seed + attempt``: greedy decoding would repeat the failed output almost word for
        word.
        """
        max_tokens = self.settings.max_tokens if tokens is None else tokens
        temperature, seed = self.settings.temperature, self.settings.seed
        if attempt > 0 and temperature == 0:
            temperature, seed = RETRY_TEMPERATURE, seed + attempt
        cap = self.settings.max_formalization_tokens
        if formalization and cap is not None:
            max_tokens = cap
        request = LLMRequest(
            messages=tuple(m if isinstance(m, Message) else Message(*m) for m in messages),
            constraint=constraint,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            tools=tuple(tools),
            max_response_chars=max_response_chars,
        )
        response = cut_response(self.backend.complete(request), max_response_chars)
        self.calls += 1
        self.cached += int(response.cached)
        self.prompt_tokens += response.prompt_tokens
        self.completion_tokens += response.completion_tokens
        self.cost += response.cost_usd
        return response

    def fill(self, result: PipelineResult) -> PipelineResult:
        """Copy the counts into a result."""
        result.calls = self.calls
        result.cached_calls = self.cached
        result.prompt_tokens = self.prompt_tokens
        result.completion_tokens = self.completion_tokens
        result.cost_usd = self.cost
        return result


def new_result(
    task: Task, arch: str, settings: PipelineSettings, model: str, **fields: Any
) -> PipelineResult:
    """A result for a task with the task's fields filled in and the answer still empty."""
    base: dict[str, Any] = {"answer": None, "correct": False, "status": Status.NO_ANSWER.value}
    base.update(fields)
    return PipelineResult(
        task_id=task.task_id,
        domain=track_of(task).name,
        tier=task.tier,
        arch=arch,
        presentation=settings.presentation,
        model=model,
        chance=task.chance,
        chance_constrained=task.chance_constrained,
        difficulty=task.difficulty,
        constrained=settings.constrained,
        seed=settings.seed,
        gold=task.answer,
        answer_pool=list(task.answer_pool),
        backup=settings.backup,
        **base,
    )


def verdict(track: Track, task: Task, answer: str) -> tuple[bool, str, dict[str, Any] | None]:
    """Whether the track accepts ``answer``, the status that says so (``ok``/``wrong``) and
    the scoring rule's metrics of the answer (the track's scorer's ``assess``: computed
    here, once per answer; None for rules without metrics)."""
    got = track.scorer().assess(task, answer)
    return got.correct, Status.of_answer(got.correct).value, got.metrics


def set_answer(track: Track, task: Task, result: PipelineResult, answer: str) -> None:
    """Record an answer, its verdict (status ``ok`` or ``wrong``) and its metrics."""
    result.answer = answer
    result.correct, result.status, result.metrics = verdict(track, task, answer)


def extraction_of(track: Track, task: Task, formal: Any) -> dict[str, Any] | None:
    """The formalizer's ``extraction`` of a parsed formalization, as stored with a result (None when
    the track does not check items, or the check itself fails: a formalization is never
    failed by its statistics)."""
    try:
        got = track.formalizer().extraction(task, formal)
    except (ScirError, NotImplementedError):
        return None
    return None if got is None else got.to_json()


def formalization_constraint(track: Track, task: Task) -> Constraint:
    """The Lark grammar a formalization of ``task`` must follow, as a constraint."""
    return Constraint("lark", formalizer_hook(track, "grammar", task))


FORMAL_CHARS_FACTOR = 2  # a formalization's budget: twice the gold text's characters
FORMAL_SLACK = 64  # ... plus this many tokens


def formalization_tokens(track: Track, task: Task) -> int | None:
    """The token budget of a formalization of ``task``, from the task's size: twice the
    characters of its gold formalization (``Formalizer.format``: as many lines as the task
    has premises, facts, rows or edges; characters bound tokens from above for byte-level
    tokenizers) plus :data:`FORMAL_SLACK`, and never more than the grammar's longest output
    (``Formalizer.max_chars``) plus room for EOS. A formalization twice as long
    as the task's own is not one; a grammar-bounded one is never cut short. None when the
    track can say neither (the call takes ``max_tokens``)."""
    budgets = []
    formalizer = track.formalizer()
    chars = formalizer.max_chars(task)
    if chars is not None:
        budgets.append(chars + 8)
    try:
        gold = formalizer.format(task)
    except (NotImplementedError, ScirError):
        gold = None
    if gold:
        budgets.append(FORMAL_CHARS_FACTOR * len(gold) + FORMAL_SLACK)
    return min(budgets) if budgets else None


@dataclass
class PipelineStart:
    """What a model pipeline starts from (see :func:`start`)."""

    text: str  # the problem text the solver sees
    prompt: str  # the first prompt
    constraint: Constraint | None  # the formalization grammar, for a ``formalize`` prompt
    calls: Calls
    result: PipelineResult


def first_prompt(track: Track, task: Task, presentation: str, kind: str) -> tuple[str, str]:
    """The problem text a solver sees under ``presentation`` and the track's ``kind`` prompt
    (``cot``, ``formalize``, ...) built on it: (text, prompt)."""
    text = problem_text(task, presentation)
    return text, formalizer_hook(
        track, "prompt", kind, task, presentation, PromptArgs(problem=text)
    )


def start(
    track: Track, task: Task, backend: Backend, settings: PipelineSettings, arch: str, kind: str
) -> PipelineStart:
    """The first steps of pipeline ``arch``: the problem text, for ``kind`` ``formalize`` the
    grammar constraint (unless ``settings.constrained`` is off), the track's ``kind`` prompt,
    the call counter and a new result."""
    text, prompt = first_prompt(track, task, settings.presentation, kind)
    constraint = (
        formalization_constraint(track, task)
        if kind == "formalize" and settings.constrained
        else None
    )
    calls = Calls(backend, settings)
    result = new_result(
        task,
        arch,
        settings,
        backend.name,
        input_chars=len(text),
        reference_items=track.formalizer().reference_items(task),
    )
    return PipelineStart(text, prompt, constraint, calls, result)


@dataclass
class Answered:
    """A scored answer to one question: the response, the answer read from it (None: none
    found), its verdict and status (``ok``, ``wrong`` or ``no_answer``) and the scoring
    rule's metrics (None: no answer, or a rule without metrics)."""

    response: str
    answer: str | None
    correct: bool
    status: str
    metrics: dict[str, Any] | None = None


def ask_and_score(track: Track, task: Task, prompt: str, calls: Calls) -> Answered:
    """Ask ``prompt``, read the answer from the response and score it (BackendError
    propagates)."""
    return read(track, task, calls.ask([("user", prompt)]).text)


def answer_and_score(
    track: Track, task: Task, prompt: str, calls: Calls, result: PipelineResult
) -> PipelineResult:
    """Ask ``prompt``, read the answer from the response and score it; a response without an
    answer is ``no_answer``. Returns ``result`` with the call counts filled in."""
    response = calls.ask([("user", prompt)])
    read_answer(track, task, result, response.text)
    return calls.fill(result)


def read(track: Track, task: Task, text: str) -> Answered:
    """The answer the track reads from ``text`` (``Track.parse_answer``) and its verdict;
    status ``no_answer`` when it states none."""
    answer = track.parse_answer(task, text)
    if answer is None:
        return Answered(text, None, False, Status.NO_ANSWER.value)
    return Answered(text, answer, *verdict(track, task, answer))


def read_answer(track: Track, task: Task, result: PipelineResult, text: str) -> None:
    """Record the answering text ``text`` in ``result``: the answer the track reads from it
    and its verdict (:func:`read`), or ``no_answer`` when it states none."""
    got = read(track, task, text)
    result.response = got.response
    result.answer, result.correct, result.status = got.answer, got.correct, got.status
    result.metrics = got.metrics
    if got.answer is None:
        result.error = NO_ANSWER_MESSAGE
