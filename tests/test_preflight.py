"""Fail before the work: ``scir solve`` and ``scir eval`` (and ``--dry-run``) check keys,
servers, model files and solvers before any task is generated or run, with one error line and
exit 2, leaving no run directory, lock file or half-written output; a finished or failed
command leaves no lock; stored task paths are absolute."""

import socket

import pytest

from fake_openai_server import FakeOpenAIServer, Reply, chat_body
from scir.cli import main
from scir.errors import ConfigError
from scir.llm.run_lock import RunLock, lock_path


@pytest.fixture(scope="module")
def taskfile(tmp_path_factory):
    path = tmp_path_factory.mktemp("pre") / "d.jsonl"
    assert main(["generate", "deduction", "-n", "2", "--seed", "5", "-o", str(path)]) == 0
    return path


def one_line(err: str, *parts: str) -> None:
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for part in parts:
        assert part in err, err


def closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def experiment(tmp_path, model_lines: str, archs='["cot"]') -> str:
    path = tmp_path / "e.toml"
    path.write_text(f'architectures = {archs}\npresentations = ["nl"]\ntasks_per_cell = 1\n'
                    f'[tasks.deduction.easy]\nn = 1\nseed = 1\n[[models]]\n{model_lines}\n')
    return str(path)


def test_solve_without_its_key_fails_at_once_and_leaves_nothing(taskfile, tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    run = tmp_path / "run"
    assert main(["solve", str(taskfile), "--arch", "cot", "--model", "openrouter:openai/gpt-4o",
                 "--run", str(run)]) == 2
    one_line(capsys.readouterr().err, "model openrouter:openai/gpt-4o: set the environment "
             "variable OPENROUTER_API_KEY")
    assert not run.exists()


def test_eval_and_its_dry_run_check_keys_before_generating(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    exp = experiment(tmp_path, 'name = "openrouter:openai/gpt-4o-mini"')
    run = tmp_path / "run"
    assert main(["eval", exp, "--run", str(run)]) == 2
    one_line(capsys.readouterr().err, "OPENROUTER_API_KEY")
    assert not run.exists()                   # no tasks generated, no store, no lock
    assert main(["eval", exp, "--run", str(run), "--dry-run"]) == 2
    out, err = capsys.readouterr()
    assert "1 cells, 1 task runs planned" in out
    one_line(err, "OPENROUTER_API_KEY")
    assert not run.exists()


def test_an_unreachable_server_is_named_before_any_work(taskfile, tmp_path, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    run = tmp_path / "run"
    assert main(["solve", str(taskfile), "--arch", "cot", "--model", f"vllm:m@{url}",
                 "--run", str(run)]) == 2
    one_line(capsys.readouterr().err, f"model vllm:m@{url}: cannot reach {url}")
    assert not run.exists()
    exp = experiment(tmp_path, f'name = "vllm:m@{url}"')
    assert main(["eval", exp, "--run", str(run), "--dry-run"]) == 2
    one_line(capsys.readouterr().err, f"cannot reach {url}")


def test_a_reachable_server_passes_the_dry_run(tmp_path, capsys):
    with FakeOpenAIServer(lambda body, i: Reply(body=chat_body("Answer: True"))) as srv:
        exp = experiment(tmp_path, f'name = "vllm:m@{srv.url}"')
        assert main(["eval", exp, "--run", str(tmp_path / "run"), "--dry-run"]) == 0
        assert "checks passed" in capsys.readouterr().out
        assert srv.requests == []             # a connection only: no call was made


@pytest.mark.parametrize("model, why", [
    ("gguf:/nonexistent/model.gguf", "no GGUF file at '/nonexistent/model.gguf'"),
    ("hf:/nonexistent/folder", "no model folder /nonexistent/folder"),
])
def test_missing_model_files_are_named(model, why, taskfile, tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["solve", str(taskfile), "--arch", "ns", "--model", model,
                 "--run", str(run)]) == 2
    one_line(capsys.readouterr().err, why)
    assert not run.exists()


def test_a_missing_solver_is_named(taskfile, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PROVER9", str(tmp_path / "no-prover9"))
    run = tmp_path / "run"
    assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(run)]) == 2
    one_line(capsys.readouterr().err, "the deduction track needs prover9, which is not "
             "installed")
    assert not run.exists()


def test_several_problems_in_one_line(taskfile, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.setenv("PROVER9", str(tmp_path / "no-prover9"))
    assert main(["solve", str(taskfile), "--arch", "cot", "--model", "openrouter:x/y",
                 "--run", str(tmp_path / "run")]) == 2
    one_line(capsys.readouterr().err, "OPENROUTER_API_KEY", "needs prover9")


def test_no_lock_is_left_after_success_or_failure(taskfile, tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(run)]) == 0
    assert (run / "run.sqlite").is_file() and not lock_path(run).exists()
    # a failure after the lock is taken (a changed setting refused): the lock goes too
    assert main(["solve", str(taskfile), "--arch", "oracle", "--run", str(run),
                 "--max-tokens", "7"]) == 2
    assert "use a new --run directory" in capsys.readouterr().err
    assert not lock_path(run).exists()


def test_a_lock_file_removed_by_its_holder_is_never_shared(tmp_path):
    first = RunLock(tmp_path, "first")
    first.acquire()
    with pytest.raises(ConfigError, match="the run is in use by pid"):
        RunLock(tmp_path, "second").acquire()
    first.release()
    assert not lock_path(tmp_path).exists()
    with RunLock(tmp_path, "third"):
        assert lock_path(tmp_path).exists()
        with pytest.raises(ConfigError, match="third"):
            RunLock(tmp_path, "fourth").acquire()
    assert not lock_path(tmp_path).exists()


def test_a_report_from_another_directory_finds_the_tasks(taskfile, tmp_path, capsys,
                                                         monkeypatch):
    monkeypatch.chdir(taskfile.parent)
    run = tmp_path / "run"
    assert main(["solve", taskfile.name, "--arch", "oracle", "--run", str(run)]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    capsys.readouterr()
    assert main(["report", str(run), "-o", "rep", "--no-figures"]) == 0
    assert "results unverified" not in capsys.readouterr().out
