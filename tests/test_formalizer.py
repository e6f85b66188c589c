"""The formalization face of a track (``Track.formalizer()``, scir.tracks.formalizer): the
built-in tracks' prompts, grammars and formal texts unchanged byte for byte since the
Formalizer (digests taken before it), the older ``Track`` methods still accepted (a track that
overrides them, and the old names on a built-in track), typed prompt arguments, and prompt
files of a track outside the package."""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from scir.errors import ConfigError
from scir.prompts import PromptArgs
from scir.tasks import Task
from scir.tracks import get_track
from scir.tracks.base import Formalization, Track
from scir.tracks import formalizer as formalizer_module
from scir.tracks.formalizer import TRACK_METHODS, Formalizer, TrackMethods

from parity_track import GRAMMAR, ParityFormalizer, ParityTrack

DIGESTS = Path(__file__).parent / "fixtures" / "formalizer_prompts.json"
# one task per track and tier (and the paper construction, causal open answers); the digests
# were taken on the code before the Formalizer, through the Track methods
CASES = [
    ("deduction", "easy", {}), ("deduction", "hard", {}),
    ("deduction", "easy", {"construction": "paper"}),
    ("induction", "easy", {}), ("induction", "hard", {}),
    ("causal", "easy", {}), ("causal", "hard", {}), ("causal", "easy", {"answer": "open"}),
    ("equation", "easy", {}), ("equation", "hard", {}),
]


def _safe(fn) -> str:
    try:
        value = fn()
        return str(value if isinstance(value, (str, int, float, type(None))) else repr(value))
    except Exception as exc:  # an error is an output too
        return f"ERROR {type(exc).__name__}: {exc}"


def _outputs(track: Track, task: Task, key: str, new: bool) -> dict[str, str]:
    """Every prompt (kind x presentation x arguments), the grammar, its bound, the gold
    formal text, the item counts and the gold's extraction, through the formalizer (new) or
    the older Track methods."""
    f = track.formalizer()
    if new:
        def prompt(kind: str, pres: str, **extra: Any) -> str:
            return f.prompt(kind, task, pres, PromptArgs(**extra))
        grammar, max_chars, fmt = f.grammar, f.max_chars, f.format
        refs, count, parse, extraction = f.reference_items, f.count_items, f.parse, f.extraction
    else:
        def prompt(kind: str, pres: str, **extra: Any) -> str:
            return track.prompt(kind, task, pres, **extra)
        grammar, max_chars, fmt = (track.formalization_grammar, track.formalization_max_chars,
                                   track.format_formal)
        refs, count, parse, extraction = (track.reference_items, track.count_items,
                                          track.parse_formalization, track.extraction)
    out = {
        "grammar": _safe(lambda: grammar(task)),
        "max_chars": _safe(lambda: max_chars(task)),
        "format": _safe(lambda: fmt(task)),
        "refs": _safe(lambda: refs(task)),
        "count": _safe(lambda: count(track.formal(task))),
        "parse_items": _safe(lambda: parse(task, fmt(task)).items),
        "extraction": _safe(lambda: json.dumps(
            extraction(task, parse(task, fmt(task)).formal).to_json())),
    }
    formal_text = out["format"] if not out["format"].startswith("ERROR") else "some formalization"
    for pres in ("nl", "obf", "ctl"):
        for kind in ("cot", "formalize", "symbcot", "answer"):
            base = f"{pres}/{kind}"
            out[f"{base}/explicit"] = _safe(lambda: prompt(
                kind, pres, problem=f"THE {pres} TEXT\nline two", formalization=formal_text))
            out[f"{base}/default"] = _safe(lambda: prompt(kind, pres, formalization=formal_text))
            out[f"{base}/noformal"] = _safe(lambda: prompt(kind, pres, problem="P"))
    return {f"{key}/{name}": value for name, value in out.items()}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the older names, on purpose
@pytest.mark.parametrize("new", [True, False], ids=["formalizer", "track-methods"])
def test_prompts_grammars_and_formal_texts_are_unchanged(new):
    digests = json.loads(DIGESTS.read_text(encoding="utf-8"))
    got = {}
    for name, difficulty, overrides in CASES:
        track = get_track(name)
        task = next(iter(track.generate(1, 7, difficulty, overrides)))
        got.update(_outputs(track, task, f"{name}/{difficulty}/{json.dumps(overrides)}/0", new))
    hashed = {k: hashlib.sha256(v.encode()).hexdigest()[:16] for k, v in got.items()}
    assert sorted(hashed) == sorted(digests)
    assert [k for k in digests if hashed[k] != digests[k]] == []


def test_built_in_tracks_have_their_own_formalizer():
    for name in ("deduction", "induction", "causal", "equation"):
        track = get_track(name)
        face = track.formalizer()
        assert isinstance(face, Formalizer) and not isinstance(face, TrackMethods)
        assert face.track is track
        # the delegating Track methods are gone from the track classes
        for method in ("formalization_grammar", "parse_formalization", "format_formal",
                       "prompt", "count_items", "extraction", "reference_items"):
            assert method not in type(track).__dict__, (name, method)


# ---- the older Track methods ---------------------------------------------------------------
class OldStyle(ParityTrack):
    """A track written against the older Track methods: grammar, parser, writer, prompt,
    count and bound as methods of the track, no formalizer of its own."""

    name = "parity-old"
    formalizer = Track.formalizer  # the default: the adapter over the methods below

    def formalization_grammar(self, task: Task) -> str:
        return ParityFormalizer(self).grammar(task)

    def formalization_max_chars(self, task: Task) -> int:
        return 77

    def parse_formalization(self, task: Task, text: str) -> Formalization:
        return ParityFormalizer(self).parse(task, text)

    def format_formal(self, task: Task, formal: Any = None) -> str:
        numbers = (formal or task.formal)["numbers"]
        return "numbers: " + ", ".join(map(str, numbers))

    def prompt(self, kind: str, task: Task, presentation: str, **extra: Any) -> str:
        return ParityFormalizer(self).prompt(kind, task, presentation, PromptArgs.of(extra))

    def count_items(self, formal: Any) -> int:
        return len(formal["numbers"])


def test_the_base_track_lists_no_formalization_methods():
    for method in TRACK_METHODS.values():
        assert not hasattr(Track, method), method
    public = sorted(n for n, v in vars(Track).items() if callable(v) and not n.startswith("_"))
    # 29 methods before the Formalizer and the Scorer; the formalization and scoring parts are
    # now the objects formalizer() and scorer() return
    assert public == [
        "check_param", "codec", "data_sources", "difficulty_of", "exporters", "formal",
        "formalizer", "generate", "generate_one", "parameters", "parse_answer",
        "regression_data", "resolve_params", "rng", "scorer", "solve_formal", "task_id", "tier",
        "validate_formal", "verify"], public


def test_a_track_on_the_older_methods_works_through_its_formalizer():
    formalizer_module._warned.discard(OldStyle)
    track = OldStyle()
    task = next(iter(track.generate(1, seed=3)))
    with pytest.warns(DeprecationWarning, match=r"track 'parity-old' \(OldStyle\) defines the "
                      r"older formalization methods formalization_grammar, "
                      r"formalization_max_chars, parse_formalization, format_formal, prompt, "
                      r"count_items; return a Formalizer from Track.formalizer\(\) instead"):
        face = track.formalizer()
    assert isinstance(face, TrackMethods)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning per track class, not per call
        again = track.formalizer()
        assert again.grammar(task) == track.formalization_grammar(task) == GRAMMAR
    assert face.max_chars(task) == 77
    text = face.format(task)
    assert text == track.format_formal(task) == "numbers: " + ", ".join(
        map(str, task.formal["numbers"]))
    parsed = face.parse(task, text)
    assert isinstance(parsed, Formalization) and parsed.formal == task.formal
    assert face.count_items(parsed.formal) == parsed.items == len(task.formal["numbers"])
    # the methods it does not define: the Formalizer's defaults (with a warning when called
    # on the track by their older names)
    assert face.reference_items(task) == parsed.items
    with pytest.warns(DeprecationWarning, match=r"Track.reference_items is deprecated: call "
                      r"track.formalizer\(\).reference_items \(removed in scir 0.2\)"):
        assert track.reference_items(task) == parsed.items
    assert face.extraction(task, parsed.formal) is None
    # the prompt is the track's own, called with the keywords that are set
    assert face.prompt("cot", task, "nl", PromptArgs(problem="THE TEXT")) == track.prompt(
        "cot", task, "nl", problem="THE TEXT")
    assert face.prompt("symbcot", task, "nl", PromptArgs(formalization=text)).startswith(
        f"Formalization: {text}\n")


def test_a_track_without_the_methods_gets_the_formalizer_defaults():
    class Bare(ParityTrack):
        name = "parity-bare"
        formalizer = Track.formalizer  # neither a formalizer nor the older methods

    track, task = Bare(), next(iter(Bare().generate(1, seed=3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no older method defined: no warning
        face = track.formalizer()
    with pytest.raises(NotImplementedError, match="has no formalization grammar yet"):
        face.grammar(task)
    with pytest.warns(DeprecationWarning), pytest.raises(
            NotImplementedError, match="has no formalization grammar yet"):
        track.formalization_grammar(task)
    assert face.max_chars(task) is None and face.reference_items(task) is None
    with pytest.raises(AttributeError, match="'Bare' object has no attribute 'grammar'"):
        track.grammar  # only the older names forward, nothing else


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_older_method_names_forward_to_a_built_in_formalizer():
    track = get_track("deduction")
    task = next(iter(track.generate(1, seed=1)))
    face = track.formalizer()
    assert track.formalization_grammar(task) == face.grammar(task)
    assert track.format_formal(task) == face.format(task)
    assert track.reference_items(task) == face.reference_items(task) == len(
        task.formal["premises"])
    with pytest.raises(ConfigError, match="unknown prompt argument 'problme'"):
        track.prompt("cot", task, "nl", problme="text")


# ---- typed prompt arguments -------------------------------------------------------------------
def test_prompt_arguments_refuse_an_unknown_key():
    track = get_track("deduction")
    task = next(iter(track.generate(1, seed=1)))
    with pytest.raises(ConfigError, match="unknown prompt argument 'problme': a prompt takes "
                                          "problem and formalization") as caught:
        track.formalizer().prompt("cot", task, "nl", PromptArgs.of({"problme": "text"}))
    assert caught.value.field == "problme"
    with pytest.raises(ConfigError, match="unknown prompt argument 'formal', 'text'"):
        PromptArgs.of({"text": "a", "formal": "b", "problem": "c"})
    with pytest.raises(TypeError):
        PromptArgs(problme="text")  # type: ignore[call-arg]
    assert PromptArgs.of({"problem": "c"}) == PromptArgs(problem="c")
    assert PromptArgs(problem="c").keywords() == {"problem": "c"}


# ---- prompt files of a track outside the package ----------------------------------------------
def _prompt_dir(root: Path, track: str, kinds: dict[str, str]) -> Path:
    folder = root / "prompts"
    (folder / track).mkdir(parents=True)
    for kind, text in kinds.items():
        (folder / track / f"{kind}.txt").write_text(text, encoding="utf-8")
    return folder


def test_a_track_outside_the_package_ships_its_own_prompt_files(tmp_path):
    folder = _prompt_dir(tmp_path, "parity-files", {
        "cot": "Q: $question\n$problem\nThere are $count numbers.\n",
        "symbcot": "$formalization\n$question\n",
    })

    class Files(Formalizer):
        prompt_dir = folder

        def prompt_values(self, kind: str, task: Task) -> dict[str, str]:
            return {"count": str(len(task.formal["numbers"]))}

    class FileTrack(ParityTrack):
        name = "parity-files"

        def formalizer(self) -> Formalizer:
            return Files(self)

    track = FileTrack()
    task = next(iter(track.generate(1, seed=2)))
    count = len(task.formal["numbers"])
    expected = f"Q: {task.question}\n{task.problem_nl}\nThere are {count} numbers.\n"
    assert track.formalizer().prompt("cot", task, "nl") == expected
    assert track.formalizer().prompt(
        "symbcot", task, "nl", PromptArgs(formalization="numbers: 1")) == (
        f"numbers: 1\n{task.question}\n")
    with pytest.raises(ConfigError, match="needs the formalization"):
        track.formalizer().prompt("symbcot", task, "nl")
    # a kind without a file: the track has no such prompt (the pipelines: a ConfigError)
    with pytest.raises(NotImplementedError, match="track parity-files has no formalize prompt"):
        track.formalizer().prompt("formalize", task, "nl")
    with pytest.raises(ConfigError, match="prompt kind must be one of"):
        track.formalizer().prompt("answer", task, "nl")


def test_a_tracks_prompt_files_come_before_the_built_in_ones(tmp_path):
    from scir.tracks.deduction.formalizer import DeductionFormalizer
    from scir.tracks.deduction.track import DeductionTrack

    folder = _prompt_dir(tmp_path, "deduction", {"cot": "Mine: $question\n"})

    class Mine(DeductionFormalizer):
        prompt_dir = folder

    class MyDeduction(DeductionTrack):
        def formalizer(self) -> Formalizer:
            return Mine(self)

    track = MyDeduction()
    task = next(iter(track.generate(1, seed=1)))
    assert track.formalizer().prompt("cot", task, "nl") == f"Mine: {task.question}\n"
    # the kinds it does not ship are the built-in files
    assert track.formalizer().prompt("formalize", task, "nl") == (
        get_track("deduction").formalizer().prompt("formalize", task, "nl"))


def test_a_track_on_the_older_methods_names_its_prompt_files(tmp_path):
    folder = _prompt_dir(tmp_path, "parity-dir", {"cot": "$problem / $question\n"})

    class OldFiles(ParityTrack):
        name = "parity-dir"
        prompt_dir = folder
        formalizer = Track.formalizer  # the older methods; no prompt of its own: the files

        def count_items(self, formal: Any) -> int:
            return len(formal["numbers"])

    track = OldFiles()
    task = next(iter(track.generate(1, seed=2)))
    with pytest.warns(DeprecationWarning, match="defines the older formalization methods "
                      "count_items;"):
        assert isinstance(track.formalizer(), TrackMethods)
    with pytest.warns(DeprecationWarning, match="Track.prompt is deprecated"):
        assert track.prompt("cot", task, "nl") == f"{task.problem_nl} / {task.question}\n"
    assert track.formalizer().prompt("cot", task, "nl", PromptArgs(problem="X")) == (
        f"X / {task.question}\n")
