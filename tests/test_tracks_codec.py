"""Every track end to end through its rendering codec: generate -> render (template renderer)
-> verify -> solve (oracle, and ns with an offline scripted model) on both presentations ->
back-translation (the block formats and the LLM renderer against a scripted server).

The built-in tracks and the example track of docs/examples/, which is loaded the way a
newcomer loads it -- ``SCIR_TRACKS=docs/examples/horn_track.py:HornTrack``, no packaging --
pass the same tests. A track without a codec cannot be rendered, and a bad ``SCIR_TRACKS``
entry is one clear error.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import lark
import pytest

import scir.tracks as registry
from scir.pipelines.registry import architectures
from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.tracks.reading import task_from_dict
from scir.errors import ConfigError, FormalizationError
from scir.llm import get_backend
from scir.runs.store import RunStore
from scir.tasks import Task, write_tasks
from scir.tracks.reading import read_tasks
from scir.rendering.blocks import block_contents, canonical, differences
from scir.rendering.extractors import extract_blocks, recovery_problems
from scir.rendering.inverse import block_format, format_block, match_block, parse_block
from scir.rendering.llm_renderer import LLMRenderer
from scir.reports.taskstats import task_stats
from scir.rendering.template import render_task
from solvers.grammar_check import llguidance_available, validate_lark

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "horn_track.py"
HORN = f"{EXAMPLE}:HornTrack"
# the example, plus any track of the caller's own SCIR_TRACKS (docs/extending.md, section 9)
ENV = ",".join(v for v in (HORN, os.environ.get("SCIR_TRACKS", "")) if v)
N, SEED, RENDER_SEED = 2, 3, 1


def _names() -> list[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCIR_TRACKS", ENV)
        return sorted(set(registry.BUILTIN) | set(registry.track_names()))


NAMES = _names()


@pytest.fixture(scope="module", autouse=True)
def tracks_from_env():
    """The example track (and the caller's SCIR_TRACKS) known only through SCIR_TRACKS for
    this module."""
    registry.unregister("horn")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCIR_TRACKS", ENV)
        assert "horn" in registry.track_names()
        yield
    for name in NAMES:
        if name not in registry.BUILTIN:
            registry.unregister(name)        # drop the cached instances


def gold_formalization(task: Task) -> str:
    """The gold formal object in the track's formalization syntax (what a perfect model
    writes): the track's ``format_formal(task)`` (``Track.format_formal``)."""
    track = registry.get_track(task.domain)
    try:
        return track.formalizer().format(task)
    except NotImplementedError:
        pytest.skip(f"track {task.domain} has no format_formal (the gold formalization)")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """``files(name)`` -> (clean file, rendered file), made once per track with the CLI."""
    folder = tmp_path_factory.mktemp("codec")
    made: dict[str, tuple[Path, Path]] = {}

    def get(name: str) -> tuple[Path, Path]:
        if name not in made:
            clean, obf = folder / f"{name}.jsonl", folder / f"{name}.obf.jsonl"
            # made by whichever test asks first: its output must not reach that test's capsys
            with contextlib.redirect_stdout(io.StringIO()):
                assert main(["generate", name, "-n", str(N), "--seed", str(SEED), "-o",
                             str(clean)]) == 0
                assert main(["render", str(clean), "--renderer", "template", "--seed",
                             str(RENDER_SEED), "-o", str(obf)]) == 0
            made[name] = (clean, obf)
        return made[name]

    return get


@pytest.fixture(params=NAMES)
def name(request) -> str:
    return request.param


def test_generate_help_lists_every_track(capsys):
    assert main(["generate", "--help"]) == 0
    out = capsys.readouterr().out
    for track in NAMES:
        assert re.search(rf"^\s+{track}\b", out, re.M), out


def test_template_rendering_recovers_every_block(name, files):
    clean, obf = files(name)
    originals, rendered = read_tasks(clean), read_tasks(obf)
    gset = registry.get_track(name).codec().genres()
    assert len(rendered) == len(originals) == N
    for original, task in zip(originals, rendered):
        assert recovery_problems(task) == []
        expected, found = block_contents(original), extract_blocks(task)
        assert len(expected) == len(found) == len(task.documents) == len(task.blocks)
        for i, (a, b) in enumerate(zip(expected, found)):
            assert canonical(name, i, a) == canonical(name, i, b)
        assert task.problem_obfuscated == "\n\n".join(d.text for d in task.documents)
        assert {d.genre for d in task.documents} <= set(gset.names)
        assert 2.0 <= task.provenance["render"]["ratio"] <= 4.5
        assert render_task(original, RENDER_SEED).to_json() == task.to_json()  # seeded
        assert render_task(original, RENDER_SEED + 1).to_json() != task.to_json()
        for field in ("formal", "blocks", "problem_nl", "answer", "answer_pool"):
            assert getattr(task, field) == getattr(original, field)
        # a damaged document is noticed: most of the first document lost
        damaged = task_from_dict(task.to_dict())
        damaged.documents[0].text = "\n".join(damaged.documents[0].text.split("\n")[:2])
        assert recovery_problems(damaged)


def test_rendered_file_verifies(name, files, capsys):
    _, obf = files(name)
    assert main(["verify", str(obf)]) == 0
    assert f"verified {N}/{N} tasks ({name} {N}); 0 failed" in capsys.readouterr().out


@pytest.mark.parametrize("presentation", ["nl", "obf"])
def test_oracle_solves_both_presentations(name, files, presentation, tmp_path, capsys):
    _, obf = files(name)
    assert main(["solve", str(obf), "--arch", "oracle", "--presentation", presentation,
                 "--run", str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"accuracy: {N}/{N}"


class GoldModel:
    """Answers each formalize prompt with the gold formalization of the task it shows (the
    task found by its text in the given presentation)."""

    def __init__(self, tasks: list[Task], presentation: str) -> None:
        self.tasks, self.presentation = tasks, presentation

    def __call__(self, body, index):
        prompt = "\n".join(m["content"] for m in body["messages"])
        shown = [t for t in self.tasks
                 if (t.problem_nl if self.presentation == "nl" else t.problem_obfuscated)
                 in prompt]
        assert len(shown) == 1, "the prompt shows exactly one task's text"
        return Reply(body=chat_body(gold_formalization(shown[0])))


@pytest.mark.parametrize("presentation", ["nl", "obf"])
def test_ns_with_a_scripted_model_on_both_presentations(name, files, presentation, tmp_path,
                                                        capsys):
    _, obf = files(name)
    tasks = read_tasks(obf)
    run = tmp_path / "run"
    with FakeOpenAIServer(GoldModel(tasks, presentation)) as srv:
        code = main(["solve", str(obf), "--arch", "ns", "--model", f"vllm:fake@{srv.url}",
                     "--presentation", presentation, "--run", str(run), "--max-retries", "0",
                     "--api-retries", "0"])
        bodies = srv.bodies()
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    archs = architectures(registry.get_track(name))
    if "ns" not in archs:                            # refused before any call (ConfigError)
        assert code == 2 and bodies == [], captured
        assert f"--arch ns does not apply to the {name} track" in captured.err
        return
    assert code == 0 and out[:2] == [f"accuracy: {N}/{N}", "parse failures: 0"], out
    assert len(bodies) == N
    for body in bodies:                       # each call was constrained by the task grammar
        assert "start" in body["structured_outputs"]["grammar"]
    with RunStore(run) as store:
        assert all(r["status"] == "ok" and r["correct"] for r in store.results(arch="ns"))


def test_block_formats_round_trip_and_catch_losses(name, files):
    clean, _ = files(name)
    for task in read_tasks(clean):
        for i, content in enumerate(block_contents(task)):
            fmt = block_format(task, i, content)
            text = format_block(task, i, content)
            if llguidance_available():
                validate_lark(fmt.grammar)                    # a valid decoding constraint
            lark.Lark(fmt.grammar, parser="earley").parse(text)   # that accepts the text
            assert fmt.description and fmt.max_tokens > len(text) // 4
            assert match_block(task, i, content, parse_block(task, i, text)) == []
            lines = text.splitlines(keepends=True)
            if len(lines) > 1:                                # the last item dropped
                lossy = parse_block(task, i, "".join(lines[:-1]))
                assert match_block(task, i, content, lossy)
                assert differences(name, i, content, lossy)
            with pytest.raises(FormalizationError):
                parse_block(task, i, "Every cell is a cell, probably.\n")


class GuardedJSON(dict):
    """A task's stored formal JSON that only its track's typed loader (``formal_type.load``)
    may read: any other read raises, naming the key."""

    readers = 0                           # > 0 while a load is running

    def _check(self, what: object) -> None:
        if not GuardedJSON.readers:
            raise AssertionError(f"task.formal read outside Track.formal: {what!r}")

    def __getitem__(self, key):
        self._check(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._check(key)
        return super().get(key, default)

    def __contains__(self, key):
        self._check(key)
        return super().__contains__(key)

    def __iter__(self):
        self._check("iteration")
        return super().__iter__()

    def keys(self):
        self._check("keys()")
        return super().keys()

    def items(self):
        self._check("items()")
        return super().items()

    def values(self):
        self._check("values()")
        return super().values()

    def __deepcopy__(self, memo):         # the loader's cache keeps a plain snapshot
        return copy.deepcopy(dict(dict.items(self)), memo)


def test_rendering_reads_only_the_typed_formal_object(name, files, monkeypatch):
    """Block contents, back-translation, the template renderer, the reference extractor and
    the statistics see the formal object only as ``Track.formal(task)`` (loaded by the
    track's ``formal_type.load``), never the JSON dict ``task.formal``."""
    track = registry.get_track(name)
    ftype = track.formal_type
    assert ftype is not None
    load = ftype.__dict__["load"].__func__

    def guarded_load(cls, data, *args, **kwargs):
        GuardedJSON.readers += 1
        try:
            return load(cls, data, *args, **kwargs)
        finally:
            GuardedJSON.readers -= 1

    monkeypatch.setattr(ftype, "load", classmethod(guarded_load))
    clean, _ = files(name)
    plain = read_tasks(clean)[0]
    task = task_from_dict(plain.to_dict())
    task.formal = GuardedJSON(task.formal)
    with pytest.raises(AssertionError, match="outside Track.formal"):
        task.formal.get("anything")                                  # the guard works
    contents = block_contents(task)
    assert contents == block_contents(plain)
    for i, content in enumerate(contents):
        fmt = block_format(task, i, content)
        assert fmt == block_format(plain, i, content)
        text = format_block(task, i, content)
        assert match_block(task, i, content, parse_block(task, i, text)) == []
    rendered = render_task(task, RENDER_SEED)
    assert rendered.documents == render_task(plain, RENDER_SEED).documents
    assert recovery_problems(rendered) == [] and len(extract_blocks(rendered)) == len(contents)
    assert task_stats(rendered).items == task_stats(render_task(plain, RENDER_SEED)).items


class RenderScript:
    """The LLM renderer's two calls, scripted: a rewrite is the template renderer's document
    of that block; the inverse call writes the block's faithful formal text."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.documents = render_task(task, 0).documents

    def __call__(self, body, index):
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        if system.startswith("You rewrite"):
            part = re.search(r"<<<\n(.*)\n>>>", user, re.S).group(1)
            block = self.task.blocks.index(part)
            return Reply(body=chat_body(self.documents[block].text))
        block = next(i for i, d in enumerate(self.documents) if d.text in user)
        content = block_contents(self.task)[block]
        return Reply(body=chat_body(format_block(self.task, block, content)))


def test_llm_renderer_accepts_faithful_back_translations(name, files, tmp_path):
    clean, _ = files(name)
    task = read_tasks(clean)[0]
    with FakeOpenAIServer(RenderScript(task)) as srv, RunStore(tmp_path / "run") as store:
        model = get_backend(f"vllm:fake@{srv.url}", timeout=10.0, backoff=0.0, max_retries=0)
        outcome = LLMRenderer(model, store, max_retries=0, seed=0).render(task)
    assert not outcome.dropped, outcome.reason
    assert outcome.retries == 0 and outcome.calls == 2 * len(task.blocks)
    assert recovery_problems(outcome.task) == []


def test_example_track_in_a_fresh_process_through_scir_tracks(tmp_path):
    """Nothing but the environment variable makes the example known to ``scir``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(SCIR_TRACKS=str(EXAMPLE.relative_to(ROOT)) + ":HornTrack", PYTHONPATH=str(ROOT))
    scir = [sys.executable, "-m", "scir"]

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(scir + list(args), cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)

    clean, obf = tmp_path / "h.jsonl", tmp_path / "h.obf.jsonl"
    assert run("generate", "horn", "-n", "3", "--seed", "4", "-o", str(clean)).returncode == 0
    rendered = run("render", str(clean), "-o", str(obf))
    assert rendered.returncode == 0 and "rendered 3/3 tasks" in rendered.stdout
    solved = run("solve", str(obf), "--arch", "oracle", "--presentation", "obf", "--run",
                 str(tmp_path / "run"))
    assert solved.returncode == 0 and solved.stdout.startswith("accuracy: 3/3"), solved.stderr


def test_a_bad_scir_tracks_entry_is_one_error_line(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SCIR_TRACKS", "docs/examples/horn_track.py:Nope")
    assert main(["generate", "--help"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert "SCIR_TRACKS entry 'docs/examples/horn_track.py:Nope'" in err
    assert "has no Track subclass 'Nope'" in err


def test_a_track_without_a_codec_cannot_be_rendered(tmp_path, capsys):
    from parity_track import ParityTrack

    registry.register("parity", ParityTrack)
    try:
        (task,) = ParityTrack().generate(1, seed=1)
        with pytest.raises(ConfigError, match="track 'parity' has no rendering codec"):
            render_task(task)
        path = tmp_path / "p.jsonl"
        write_tasks(path, [task])
        assert main(["render", str(path), "-o", str(tmp_path / "out.jsonl")]) == 2
        assert "track 'parity' has no rendering codec" in capsys.readouterr().err
    finally:
        registry.unregister("parity")


@pytest.mark.parametrize("value, message", [
    ("nowhere/track.py:HornTrack", r"entry 'nowhere/track.py:HornTrack': no such file"),
    (f"{EXAMPLE}:Nope", r"has no Track subclass 'Nope'"),
    (f"{EXAMPLE}:HornProgram", r"has no Track subclass 'HornProgram'"),
    (f"{EXAMPLE}:forward_chain", r"has no Track subclass 'forward_chain'"),
    (str(EXAMPLE), r"is not PATH\.py:TrackClass"),
    (f"{EXAMPLE}:HornTrack;x", r"entry '.*;x' is not PATH\.py:TrackClass"),
])
def test_bad_scir_tracks_entries_are_named(monkeypatch, value, message):
    monkeypatch.setenv("SCIR_TRACKS", value)
    with pytest.raises(ConfigError, match=message):
        registry.track_names()


def test_scir_tracks_reports_a_failing_file_and_a_name_clash(monkeypatch, tmp_path):
    broken = tmp_path / "broken_track_file.py"
    broken.write_text("raise RuntimeError('boom')\n")
    monkeypatch.setenv("SCIR_TRACKS", f"{broken}:Broken")
    with pytest.raises(ConfigError, match="importing .*broken_track_file.py' failed: "
                                          "RuntimeError: boom"):
        registry.track_names()
    assert "broken_track_file" not in sys.modules
    clash = tmp_path / "clash_track_file.py"
    clash.write_text("from scir.tracks.deduction import DeductionTrack\n\n\n"
                     "class Copy(DeductionTrack):\n    pass\n")
    monkeypatch.setenv("SCIR_TRACKS", f"{clash}:Copy")
    with pytest.raises(ConfigError, match="a track called 'deduction' is already known"):
        registry.track_names()


def test_scir_tracks_takes_several_entries(monkeypatch):
    parity = ROOT / "tests" / "parity_track.py"
    for sep in (os.pathsep, ","):
        monkeypatch.setenv("SCIR_TRACKS", f"{HORN}{sep}{parity}:ParityTrack{sep}")
        names = registry.track_names()
        assert {"horn", "parity"} <= set(names)
        assert registry.get_track("parity").name == "parity"
        registry.unregister("parity")
    monkeypatch.setenv("SCIR_TRACKS", f"{HORN},{HORN}")          # the same file twice: fine
    assert "horn" in registry.track_names()
    monkeypatch.setenv("SCIR_TRACKS", f"{parity}:ParityTrack,{parity}:ParityTrack")
    assert "parity" in registry.track_names()
    registry.unregister("parity")


def test_stats_show_pools_only_for_tracks_with_answer_pools(files, capsys):
    for track in NAMES:
        _, obf = files(track)
        assert main(["stats", str(obf)]) == 0
        out = capsys.readouterr().out
        assert ("pool sizes" in out) == registry.get_track(track).answer_pools, track
    assert registry.get_track("induction").answer_pools


def test_generic_layers_never_branch_on_a_track():
    """scir.text, scir.rendering, scir.pipelines, scir.runs, scir.experiments and scir.reports ask the track
    (its codec, hooks): no ``task.domain`` test, no comparison with a track name, no import of a track's
    modules (the issue's done-when grep, plus the imports)."""
    branch = re.compile(r"task\.domain\b|domain ==")    # domain_metadata is data, not a branch
    internals = re.compile(r"^\s*(?:from|import) scir\.tracks\.(?!base\b|reading\b)\w+", re.M)
    offending = []
    for layer in ("text", "rendering", "pipelines", "runs", "evaluate"):
        for path in sorted((ROOT / "scir" / layer).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            for number, line in enumerate(source.splitlines(), start=1):
                if branch.search(line):
                    offending.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
            offending += [f"{path.relative_to(ROOT)}: {m.group(0).strip()}"
                          for m in internals.finditer(source)]
    assert offending == []
    assert list((ROOT / "scir" / "text").rglob("*.py"))    # the scan saw the files
    assert list((ROOT / "scir" / "rendering").rglob("*.py"))


def test_genre_files_are_checked_where_they_are_read(tmp_path):
    from scir.errors import ResourceError
    from scir.text.genres import read_genre_file

    horn = json.loads((ROOT / "docs" / "examples" / "horn_genres.json").read_text())
    with pytest.raises(ResourceError, match="cannot read the horn genre file .*nothing.json"):
        read_genre_file("horn", tmp_path / "nothing.json", None)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(horn))
    assert len(read_genre_file("horn", path, None).genres) == 3
    with pytest.raises(ResourceError, match="expected 8 genres, found 3"):
        read_genre_file("horn", path, 8)
    with pytest.raises(ResourceError, match='expected an object with "track": "other"'):
        read_genre_file("other", path, None)
    horn["genres"][0]["items"] = ["no text slot"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(horn))
    with pytest.raises(ResourceError, match=r"item wrapper 'no text slot' needs exactly one"):
        read_genre_file("horn", bad, None)


def test_filler_never_reads_as_a_statement(name, files):
    """Documents made only of a genre's dressing and filler (slots filled) hold nothing the
    track's extractor reads as content: filler can pad a document, never change it."""
    import random

    from scir.errors import VerificationError
    from scir.text.document import fill_slots

    _, obf = files(name)
    codec = registry.get_track(name).codec()
    gset = codec.genres()
    rng = random.Random(0)
    for task in read_tasks(obf):
        values = codec.slot_values(task)
        padded = task_from_dict(task.to_dict())
        for doc in padded.documents:
            genre = gset.genre(doc.genre)
            templates = (genre.headers + genre.intro + genre.filler + gset.filler
                         + genre.closing)
            doc.text = "\n".join(fill_slots(t, rng, gset.slots, values) for t in templates)
        try:
            contents = codec.extract(padded)
        except VerificationError:             # e.g. no network statement at all (causal)
            continue
        assert all(not value for content in contents for value in content.values()
                   if isinstance(value, list)), contents
