"""The Task record and its JSONL files: round trip, validation messages, atomic writing."""

from __future__ import annotations

import json
import re
import os
import stat
from pathlib import Path

import pytest

from scir.errors import TaskFormatError
from scir.tracks.reading import task_from_dict
from scir.tasks import SCHEMA_VERSION, Document, Task, write_tasks
from scir.tracks.reading import iter_tasks, read_tasks


def make_task(index: int = 0, **changes) -> Task:
    fields = dict(
        task_id=f"demo-e1-7-{index}", domain="deduction", difficulty="easy", tier="e1", seed=7,
        params={"depth": 1, "nested": {"a": [1, 2]}},
        question="Is ü true?", answer="True", answer_pool=["True"], chance=1 / 3,
        formal={"premises": ["all x (a(x) -> b(x))"], "goal": "b(c)"},
        blocks=["Alle A sind B. 🧬", "c ist ein A."],
        options=[], documents=[Document("lab record", "Zeile 1\nZeile \"2\"")],
        problem_nl="Alle A sind B. 🧬\n\nc ist ein A.", problem_obfuscated="...",
        domain_metadata={"k": None}, provenance={"generator": "test"},
    )
    fields.update(changes)
    return Task(**fields)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_round_trip(tmp_path):
    tasks = [make_task(0), make_task(1, answer="Unknown", answer_pool=["Unknown"], chance=1)]
    path = tmp_path / "t.jsonl"
    assert write_tasks(path, tasks) == 2
    back = read_tasks(path)
    assert back == tasks
    assert isinstance(back[1].chance, float)
    assert [t.to_json() for t in back] == path.read_text(encoding="utf-8").splitlines()
    assert json.loads(tasks[0].to_json())["schema_version"] == SCHEMA_VERSION
    assert list(tasks[0].to_dict())[:3] == ["schema_version", "task_id", "domain"]


def test_blank_lines_are_skipped_and_iter_is_lazy(tmp_path):
    path = write_lines(tmp_path / "t.jsonl", ["", make_task(0).to_json(), "   ",
                                              make_task(1).to_json(), "{broken"])
    it = iter_tasks(path)
    assert next(it).task_id == "demo-e1-7-0"
    assert next(it).task_id == "demo-e1-7-1"
    with pytest.raises(TaskFormatError, match="invalid JSON"):
        next(it)


def good() -> dict:
    return make_task(5).to_dict()


def without(key: str) -> dict:
    data = good()
    del data[key]
    return data


def changed(**values) -> dict:
    data = good()
    data.update(values)
    return data


# (description, second line of the file, field the error must name, message pattern)
BAD_LINES = [
    ("wrong type", changed(seed="7"), "seed", "expected int, got str"),
    ("bool is no int", changed(seed=True), "seed", "expected int, got bool"),
    ("wrong container", changed(blocks="a block"), "blocks", "expected list, got str"),
    ("non-string list item", changed(answer_pool=["True", 1]), "answer_pool",
     "list of strings"),
    ("missing field", without("answer"), "answer", "missing required field"),
    ("unknown field", changed(anwser="True"), "anwser", r"unknown field\(s\): anwser"),
    ("bad difficulty", changed(difficulty="medium"), "difficulty", "easy, hard, custom"),
    ("bad schema version", changed(schema_version=SCHEMA_VERSION + 1), "schema_version",
     f"schema version {SCHEMA_VERSION + 1} is not supported"),
    ("chance out of range", changed(chance=1.5), "chance", r"chance must lie in \[0, 1\]"),
    ("bad document", changed(documents=[{"genre": "x"}]), "documents", "document 0 must be"),
    ("path in task_id", changed(task_id="../../X"), "task_id", "is not a safe id"),
    ("absolute task_id", changed(task_id="/tmp/x"), "task_id", "is not a safe id"),
    ("newline in task_id", changed(task_id="a\nb"), "task_id", "is not a safe id"),
    ("leading dot", changed(task_id=".a"), "task_id", "is not a safe id"),
    ("empty task_id", changed(task_id=""), "task_id", "is not a safe id"),
    ("task_id too long", changed(task_id="a" * 201), "task_id", "is not a safe id"),
]


@pytest.mark.parametrize("case", BAD_LINES, ids=[c[0] for c in BAD_LINES])
def test_validation_error_names_file_line_and_field(tmp_path, case):
    _, data, field, message = case
    path = write_lines(tmp_path / "bad.jsonl", [make_task(0).to_json(), json.dumps(data)])
    with pytest.raises(TaskFormatError, match=message) as info:
        read_tasks(path)
    err = info.value
    assert (err.file, err.line, err.field) == (str(path), 2, field)
    text = str(err)
    assert text.startswith(f"{path}:2")
    assert repr(field) in text
    if field != "task_id":
        assert err.task_id == data["task_id"]
    assert "\n" not in text


def test_malformed_json_names_file_line_and_column(tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", [make_task(0).to_json(), "",
                                                '{"task_id": "x",, }'])
    with pytest.raises(TaskFormatError, match="invalid JSON") as info:
        read_tasks(path)
    assert (info.value.file, info.value.line, info.value.column) == (str(path), 3, 17)
    assert str(info.value).startswith(f"{path}:3:17: invalid JSON")


def test_not_an_object(tmp_path):
    path = write_lines(tmp_path / "bad.jsonl", ['["a", "list"]'])
    with pytest.raises(TaskFormatError, match="expected a JSON object, got list") as info:
        read_tasks(path)
    assert (info.value.file, info.value.line) == (str(path), 1)


def test_invalid_utf8(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(make_task(0).to_json().encode() + b"\n" + b'{"task_id": "\xff"}\n')
    with pytest.raises(TaskFormatError, match="invalid UTF-8") as info:
        read_tasks(path)
    assert (info.value.file, info.value.line) == (str(path), 2)


def test_duplicate_task_id_names_both_lines(tmp_path):
    path = write_lines(tmp_path / "dup.jsonl", [make_task(0).to_json(), make_task(1).to_json(),
                                                make_task(0).to_json()])
    with pytest.raises(TaskFormatError, match=r"duplicate task_id \(first on line 1\)") as info:
        read_tasks(path)
    err = info.value
    assert (err.file, err.line, err.field, err.task_id) == (str(path), 3, "task_id",
                                                            "demo-e1-7-0")


def test_missing_file(tmp_path):
    with pytest.raises(TaskFormatError, match="cannot read task file") as info:
        read_tasks(tmp_path / "nope.jsonl")
    assert info.value.file == str(tmp_path / "nope.jsonl")


def _failing(tasks: list[Task], exc: BaseException):
    yield from tasks
    raise exc


@pytest.mark.parametrize("exc", [RuntimeError("generator broke"), KeyboardInterrupt()],
                         ids=["error", "interrupt"])
def test_failed_write_keeps_previous_file(tmp_path, exc):
    path = tmp_path / "t.jsonl"
    write_tasks(path, [make_task(0), make_task(1)])
    before = path.read_bytes()
    with pytest.raises(type(exc)):
        write_tasks(path, _failing([make_task(7), make_task(8)], exc))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]  # no temporary left


def test_an_unsafe_task_id_is_never_written(tmp_path):
    path = tmp_path / "t.jsonl"
    write_tasks(path, [make_task(0)])
    before = path.read_bytes()
    with pytest.raises(TaskFormatError, match=r"task_id '\.\./x' is not a safe id") as info:
        write_tasks(path, [make_task(1), make_task(2, task_id="../x")])
    assert (info.value.file, info.value.field) == (str(path), "task_id")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


def test_failed_first_write_creates_nothing(tmp_path):
    path = tmp_path / "sub" / "t.jsonl"
    with pytest.raises(RuntimeError):
        write_tasks(path, _failing([make_task(0)], RuntimeError("boom")))
    assert not path.exists()
    assert list(path.parent.iterdir()) == []


def test_written_file_mode(tmp_path):
    path = tmp_path / "t.jsonl"
    write_tasks(path, [make_task(0)])
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    os.chmod(path, 0o640)
    write_tasks(path, [make_task(1)])  # replacing keeps the existing mode
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert read_tasks(path) == [make_task(1)]


def documented_schema() -> dict:
    """The JSON Schema written in docs/formats.md (between the task-schema markers)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "formats.md").read_text()
    match = re.search(r"<!-- task-schema:begin -->\s*```json\n(.*?)```\s*<!-- task-schema:end -->",
                      text, re.S)
    assert match, "docs/formats.md lost its task schema"
    return json.loads(match.group(1))


def test_documented_schema_agrees_with_reader():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(documented_schema())
    validator.check_schema(validator.schema)
    # the control presentation's fields are written only when filled (docs/formats.md)
    assert set(validator.schema["properties"]) == set(make_task().to_dict()) | {
        "documents_control", "problem_control"}
    minimal = {k: v for k, v in make_task().to_dict().items()
               if k in validator.schema["required"]}
    control = {**make_task().to_dict(), "problem_control": "B",
               "documents_control": [{"genre": "g", "text": "B"}]}
    assert set(task_from_dict(control).to_dict()) == set(validator.schema["properties"])
    for data in (make_task().to_dict(), minimal, control):
        validator.validate(data)
        task_from_dict(data)
    for description, data, _, _ in BAD_LINES:
        assert not validator.is_valid(data), f"the schema accepts: {description}"


def test_version_1_records_read_with_chance_as_constrained_chance(tmp_path):
    record = make_task(chance=0.25).to_dict()
    record["schema_version"] = 1
    del record["chance_constrained"]
    path = write_lines(tmp_path / "v1.jsonl", [json.dumps(record)])
    task = read_tasks(path)[0]
    assert task.chance_constrained == 0.25
    assert json.loads(task.to_json())["schema_version"] == SCHEMA_VERSION == 2
    record["chance_constrained"] = 0.5
    write_lines(path, [json.dumps(record)])
    with pytest.raises(TaskFormatError, match="version 1 has no chance_constrained"):
        read_tasks(path)


def test_constrained_chance_is_validated_and_kept(tmp_path):
    task = make_task(chance=0.02, chance_constrained=0.125)
    path = tmp_path / "c.jsonl"
    write_tasks(path, [task])
    assert read_tasks(path)[0].chance_constrained == 0.125
    bad = task.to_dict()
    bad["chance_constrained"] = 2
    write_lines(path, [json.dumps(bad)])
    with pytest.raises(TaskFormatError, match=r"chance_constrained must lie in \[0, 1\]"):
        read_tasks(path)
