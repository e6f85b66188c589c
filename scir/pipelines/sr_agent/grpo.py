"""GRPO on the SR agent's own rollouts (SR-Scientist's reinforcement learning), at any scale the
hardware allows; ``scir train`` runs it (docs/sr_agent.md).

A step takes ``problems`` training problems; for each, ``group`` rollouts: one iteration of the
agent's loop (:func:`~scir.pipelines.sr_agent.loop.run_iteration`, at most ``max_turns``
model calls, the real analyzer in its sandbox and the real evaluator as tools) with the policy
sampling each turn. A rollout's reward is the log-linear reward of the best MAPE the evaluator
reported in it (:func:`~scir.pipelines.sr_agent.reward.reward`, goal ``goal_start``); its
advantage is ``(reward - group mean) / (group std + 1e-4)``. The loss is GRPO's with one
policy update per batch of rollouts (the ratio is then 1 and the clipped surrogate reduces to
``-A * log p`` per token): the mean over the group's generated tokens of
``-A * log p(token) + beta * KL``, KL the k3 estimate against the starting model (the adapter
disabled). Only the model's own tokens are trained on; the prompt and tool results are context.

The policy is a transformers causal LM: LoRA adapters (PEFT) on it, or full fine-tuning with
``lora_rank`` 0. Every ``save_every`` steps a checkpoint ``checkpoint-N`` is written in the run
folder: ``model/`` (the merged weights and the tokenizer: ``--model hf:RUN/checkpoint-N/model``
loads it), ``adapter/``, ``optimizer.pt`` and ``state.json`` (written last: a checkpoint
without it is unfinished and ignored). A run started again continues from its last checkpoint;
sampling seeds and the problems of a step depend only on (seed, step), so a resumed run
continues the same sequence. ``log.jsonl`` gets one line per step and ``train.png`` its plot.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import random
import shutil
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from scir.errors import ConfigError
from scir.llm.base import LLMResponse, Message, Tool
from scir.llm.local import disable_torch_compile
from scir.pipelines.sr_agent.buffer import ExperienceBuffer
from scir.pipelines.sr_agent.dialog import TextDialog
from scir.pipelines.sr_agent.loop import run_iteration
from scir.pipelines.sr_agent.settings import AgentSettings
from scir.pipelines.sr_agent.tools import AgentProblem, Toolbox

CHECKPOINT = "checkpoint-"
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")
STD_EPS = 1e-4


@dataclass(frozen=True)
class TrainSettings:
    """A GRPO run's settings (stored in the run folder; a resumed run must use the same)."""

    steps: int = 10
    group: int = 4  # G: rollouts per problem
    problems: int = 1  # problems per step
    lr: float = 1e-4
    lora_rank: int = 8  # 0: full fine-tuning
    lora_alpha: int = 16
    max_turns: int = 2  # model calls per rollout (one iteration of the loop)
    max_tokens: int = 256  # new tokens per model call
    temperature: float = 1.0
    beta: float = 0.0  # KL weight (TRL's default; the KL is logged either way)
    save_every: int = 5
    keep: int = 2  # checkpoints kept (the newest)
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("steps", "group", "problems", "max_turns", "max_tokens", "save_every", "keep"):
            if type(getattr(self, name)) is not int or getattr(self, name) < 1:
                raise ConfigError(
                    f"{name} must be an integer >= 1, got {getattr(self, name)!r}", field=name
                )
        if self.group < 2:
            raise ConfigError(
                "group must be >= 2 (GRPO compares rollouts of one problem)", field="group"
            )
        if self.lora_rank < 0:
            raise ConfigError("lora_rank must be >= 0 (0: full fine-tuning)", field="lora_rank")
        for name in ("lr", "temperature"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f"{name} must be a positive number, got {value!r}", field=name)
        if not (math.isfinite(self.beta) and self.beta >= 0):
            raise ConfigError(f"beta must be >= 0, got {self.beta!r}", field="beta")

    def identity(self) -> dict[str, Any]:
        """What a resumed run must share with the run it continues (not the step count)."""
        data = asdict(self)
        for name in ("steps", "save_every", "keep"):
            data.pop(name)
        return data


@dataclass
class Turn:
    """One model call of a rollout: the prompt's and the generated token ids."""

    prompt: list[int]
    completion: list[int]


@dataclass
class Rollout:
    """One rollout: the problem, its turns, the best MAPE the evaluator reported, the best
    equation and the reward."""

    task_id: str
    turns: list[Turn] = field(default_factory=list)
    best_mape: float | None = None
    best_equation: str | None = None
    best_skeleton: str | None = None
    reward: float = 0.0
    end: str = ""

    def summary(self) -> dict[str, Any]:
        """The JSON-ready record of the rollout (no token ids)."""
        return {
            "task_id": self.task_id,
            "reward": self.reward,
            "best_mape": self.best_mape,
            "best_equation": self.best_equation,
            "best_skeleton": self.best_skeleton,
            "end": self.end,
            "turns": len(self.turns),
            "tokens": sum(len(t.completion) for t in self.turns),
        }


# ---- the policy ----------------------------------------------------------------------------
def _gguf_copy(gguf: Path) -> Path:
    """A transformers copy of a GGUF model (dequantised to fp32 by transformers, as the
    benchmark's fp32 path does), cached outside the repository by the file's content."""
    from scir.llm.tiny import cache_root

    digest = hashlib.sha256()
    with open(gguf, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    target = cache_root() / f"hf-{gguf.stem}-{digest.hexdigest()[:16]}"
    if (target / "config.json").is_file():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tmp = target.with_name(target.name + f".tmp{random.getrandbits(32):08x}")
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        # transformers marks a model read from GGUF as quantized and will not save it; its
        # weights are plain fp32 tensors, so they go into the same architecture unmarked
        config = loaded.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        model = AutoModelForCausalLM.from_config(config)
        model.load_state_dict(loaded.state_dict())
        tokenizer.save_pretrained(tmp)
        model.save_pretrained(tmp)
        tmp.rename(target)
    except OSError:
        if not (target / "config.json").is_file():  # not a concurrent builder's copy
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def model_folder(model: str) -> Path:
    """The transformers folder of a ``--model`` name: ``hf:PATH``, ``tiny``, ``smollm2`` or
    ``gguf:FILE`` (dequantised once into the cache)."""
    from scir.llm.names import parse_model_name

    name = parse_model_name(model)
    if name.provider == "tiny":
        from scir.llm.tiny import ensure_model

        return ensure_model()
    if name.provider == "gguf":
        from scir.llm.gguf import model_path

        return _gguf_copy(model_path(name.model))
    if name.provider != "hf":
        raise ConfigError(
            f"scir train needs a local model (hf:PATH, smollm2, gguf:FILE or tiny), got {model!r}",
            field="model",
        )
    path = Path(name.model).expanduser()
    if not (path / "config.json").is_file():
        raise ConfigError(
            f"hf:{name.model}: no transformers model folder (config.json) there", field="model"
        )
    return path


class Policy:
    """The model being trained, its tokenizer and how it samples a chat turn."""

    def __init__(self, model: Any, tokenizer: Any, settings: TrainSettings) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.settings = settings
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.chat = bool(getattr(tokenizer, "chat_template", None))
        self.reference: Any = None  # full fine-tuning: the starting model (for the KL)

    def encode(self, messages: Sequence[Message]) -> list[int]:
        """The prompt's token ids (the chat template, or plain role lines without one)."""
        chat = [
            {"role": m.role if m.role != "tool" else "user", "content": m.content} for m in messages
        ]
        if self.chat:
            ids = self.tokenizer.apply_chat_template(
                chat, add_generation_prompt=True, tokenize=True, return_dict=False
            )
            return [int(i) for i in (ids["input_ids"] if isinstance(ids, dict) else ids)]
        text = "\n\n".join(f"{m['role'].capitalize()}: {m['content']}" for m in chat)
        return [int(i) for i in self.tokenizer(text + "\n\nAssistant:")["input_ids"]]

    def sample(self, prompt: list[int], seed: int) -> list[int]:
        """Sampled completion ids (the EOS kept: the model learns where to stop)."""
        import torch

        torch.manual_seed(seed)
        self.model.eval()
        with torch.inference_mode():
            device = self.model.device
            out = self.model.generate(
                torch.tensor([prompt], device=device),
                attention_mask=torch.ones(1, len(prompt), dtype=torch.long, device=device),
                do_sample=True,
                temperature=self.settings.temperature,
                top_p=1.0,
                top_k=0,
                max_new_tokens=self.settings.max_tokens,
                pad_token_id=self.tokenizer.pad_token_id,
                eos_token_id=self.tokenizer.eos_token_id,
            )
        return [int(i) for i in out[0, len(prompt) :]]


def load_policy(
    model: str,
    settings: TrainSettings,
    adapter: Path | None = None,
    full: Path | None = None,
    threads: int | None = None,
) -> Policy:
    """The policy: the base model with new LoRA adapters, with the ``adapter`` of a checkpoint,
    or (full fine-tuning) the base model or a checkpoint's ``full`` weights. ``threads``:
    torch's CPU threads (default: the idle cores, as for llama.cpp -- threads beyond them
    wait for each other: on 2 busy cores, 1 thread sampled 10x faster than 2)."""
    disable_torch_compile()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from scir.llm.gguf import default_threads

    torch.set_num_threads(threads or default_threads())

    base = model_folder(model)
    torch.manual_seed(settings.seed)
    source = full if full is not None else base
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    net: Any = AutoModelForCausalLM.from_pretrained(str(source), dtype=torch.float32)
    if torch.cuda.is_available():
        net = net.to("cuda")
    if settings.lora_rank > 0:
        from peft import LoraConfig, PeftModel, get_peft_model

        if adapter is not None:
            net = PeftModel.from_pretrained(net, str(adapter), is_trainable=True)
        else:
            targets = [
                t for t in LORA_TARGETS if any(n.endswith(t) for n, _ in net.named_modules())
            ]
            if not targets:
                raise ConfigError(
                    f"{model}: none of {', '.join(LORA_TARGETS)} to put LoRA "
                    "adapters on; use --lora-rank 0",
                    field="lora_rank",
                )
            net = get_peft_model(
                net,
                LoraConfig(
                    r=settings.lora_rank,
                    lora_alpha=settings.lora_alpha,
                    lora_dropout=0.0,
                    target_modules=targets,
                    task_type="CAUSAL_LM",
                ),
            )
    return Policy(net, tokenizer, settings)


# ---- rollouts ------------------------------------------------------------------------------
def rollout(
    policy: Policy,
    problem: AgentProblem,
    agent: AgentSettings,
    seed: int,
    say: Callable[[str], None] = lambda _: None,
) -> Rollout:
    """One rollout of the agent's loop on ``problem`` with the policy sampling each turn."""
    result = Rollout(problem.task_id)

    def ask(messages: list[Message], tools: tuple[Tool, ...]) -> LLMResponse:
        start = time.monotonic()
        prompt = policy.encode(messages)
        completion = policy.sample(prompt, seed * 1000 + len(result.turns))
        result.turns.append(Turn(prompt, completion))
        text = policy.tokenizer.decode(completion, skip_special_tokens=True)
        seconds = time.monotonic() - start
        say(f"  turn {len(result.turns)}: {len(completion)} tokens, {seconds:.1f} s")
        return LLMResponse(
            text=text,
            prompt_tokens=len(prompt),
            completion_tokens=len(completion),
            latency_s=seconds,
            cost_usd=0.0,
            raw_finish_reason="stop",
            backend="train",
            model="policy",
        )

    toolbox = Toolbox(problem, agent)
    buffer = ExperienceBuffer()
    it, _ = run_iteration(problem, ask, toolbox, agent, buffer, 0, agent.goal_start, TextDialog())
    result.best_mape, result.best_equation = it.best_mape, it.best_equation
    top = buffer.top(1)
    result.best_skeleton = top[0].skeleton if top else None
    result.reward, result.end = it.reward, it.end
    return result


def advantages(rewards: Sequence[float]) -> list[float]:
    """GRPO's group-relative advantages: (r - mean) / (std + eps); all 0 when all are equal."""
    mean = statistics.fmean(rewards)
    std = statistics.pstdev(rewards)
    return [(r - mean) / (std + STD_EPS) for r in rewards]


def _token_logps(model: Any, turn: Turn) -> Any:
    import torch
    from trl.trainer.utils import selective_log_softmax

    ids = torch.tensor([turn.prompt + turn.completion], device=model.device)
    logits = model(ids).logits[:, len(turn.prompt) - 1 : -1, :]
    return selective_log_softmax(logits, ids[:, len(turn.prompt) :])[0]


def policy_update(
    policy: Policy, optimizer: Any, rollouts: Sequence[Rollout], advs: Sequence[float], beta: float
) -> tuple[float, float | None]:
    """One GRPO update over the rollouts; returns (loss, mean KL per token). Without a KL
    term and with every advantage 0 (every group's rewards equal) the gradient is 0: no
    update is made (the KL is then not measured: None)."""
    import torch

    if beta == 0 and not any(advs):
        return 0.0, None
    model = policy.model
    model.train()
    optimizer.zero_grad()
    total = sum(len(t.completion) for r in rollouts for t in r.turns)
    loss_sum, kl_sum = 0.0, 0.0
    for r, adv in zip(rollouts, advs, strict=True):
        for turn in r.turns:
            if not turn.completion:
                continue
            logps = _token_logps(model, turn)
            with torch.no_grad():
                if policy.reference is not None:
                    ref = _token_logps(policy.reference, turn)
                else:
                    with model.disable_adapter():
                        ref = _token_logps(model, turn)
            delta = ref - logps
            kl = torch.exp(delta) - delta - 1
            loss = (-adv * logps + beta * kl).sum() / total
            loss.backward()
            loss_sum += float(loss.detach())
            kl_sum += float(kl.detach().sum())
    torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
    optimizer.step()
    optimizer.zero_grad()
    return loss_sum, kl_sum / max(1, total)


# ---- the run -------------------------------------------------------------------------------
def checkpoints(run: Path) -> list[tuple[int, Path]]:
    """The run's finished checkpoints (state.json written), oldest first."""
    found = []
    for path in run.glob(CHECKPOINT + "*"):
        step = path.name[len(CHECKPOINT) :]
        if step.isdigit() and (path / "state.json").is_file():
            found.append((int(step), path))
    return sorted(found)


def _save(
    policy: Policy, optimizer: Any, run: Path, step: int, settings: TrainSettings, model: str
) -> Path:
    import torch

    target = run / f"{CHECKPOINT}{step}"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    net = policy.model
    if settings.lora_rank > 0:
        net.save_pretrained(target / "adapter")
        merged = copy.deepcopy(net).merge_and_unload()
    else:
        merged = net
    merged.save_pretrained(target / "model")
    policy.tokenizer.save_pretrained(target / "model")
    torch.save(optimizer.state_dict(), target / "optimizer.pt")
    (target / "state.json").write_text(
        json.dumps({"step": step, "model": model, "settings": asdict(settings)}, indent=1)
    )
    for _, old in checkpoints(run)[: -settings.keep]:
        shutil.rmtree(old, ignore_errors=True)
    return target


def _pick(
    problems: Sequence[AgentProblem], settings: TrainSettings, step: int
) -> list[AgentProblem]:
    rng = random.Random(f"{settings.seed}:{step}")
    return [problems[rng.randrange(len(problems))] for _ in range(settings.problems)]


def mean_reward(
    policy: Policy,
    problems: Sequence[AgentProblem],
    agent: AgentSettings,
    samples: int,
    seed: int,
    say: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """The mean reward of ``samples`` rollouts on each problem (seeds fixed by ``seed``:
    the same before and after training)."""
    rewards = []
    for i, problem in enumerate(problems):
        for k in range(samples):
            say(f"held-out {problem.task_id} sample {k + 1}/{samples}")
            rewards.append(
                rollout(policy, problem, agent, seed + 7919 * (i * samples + k), say).reward
            )
    return {
        "mean_reward": statistics.fmean(rewards),
        "rewards": rewards,
        "solved": sum(r > 0 for r in rewards),
    }


def plot(log: Path, target: Path) -> None:
    """``train.png``: mean reward (with the group std) and loss per step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    steps = [r["step"] for r in rows]
    mean = [r["mean_reward"] for r in rows]
    std = [r["std_reward"] for r in rows]
    fig, (a, b) = plt.subplots(2, 1, figsize=(6, 5), sharex=True)
    a.plot(steps, mean, marker="o")
    a.fill_between(
        steps,
        [m - s for m, s in zip(mean, std, strict=True)],
        [m + s for m, s in zip(mean, std, strict=True)],
        alpha=0.2,
    )
    a.set_ylabel("reward (mean ± std)")
    a.set_ylim(-0.05, 1.05)
    b.plot(steps, [r["loss"] for r in rows], marker="o", color="tab:red")
    b.set_ylabel("loss")
    b.set_xlabel("step")
    fig.tight_layout()
    fig.savefig(target, dpi=100, metadata={"Software": None})
    plt.close(fig)


@dataclass
class TrainReport:
    """What a call to :func:`train` did."""

    start_step: int
    end_step: int
    checkpoint: Path | None
    heldout: list[dict[str, Any]] = field(default_factory=list)


def train(
    problems: Sequence[AgentProblem],
    model: str,
    run: Path,
    settings: TrainSettings,
    agent: AgentSettings,
    heldout: Sequence[AgentProblem] = (),
    say: Callable[[str], None] = print,
    threads: int | None = None,
) -> TrainReport:
    """Train (or continue training) in ``run`` up to ``settings.steps`` steps (``threads``:
    see :func:`load_policy`)."""
    import torch

    if not problems:
        raise ConfigError("no training problems", field="tasks")
    agent = replace(agent, steps=settings.max_turns)
    agent.check_isolation()
    model_folder(model)  # a bad model name fails before the run folder is made
    run.mkdir(parents=True, exist_ok=True)
    stored = run / "settings.json"
    if stored.is_file():
        old = json.loads(stored.read_text())
        mine = {"model": model, **settings.identity()}
        if old != mine:
            diff = sorted(k for k in set(old) | set(mine) if old.get(k) != mine.get(k))
            raise ConfigError(
                f"{run} was started with other settings ({', '.join(diff)}); "
                "use the same, or a new --run",
                field="run",
            )
    else:
        stored.write_text(json.dumps({"model": model, **settings.identity()}, indent=1))
    done = checkpoints(run)
    start = done[-1][0] if done else 0
    last = done[-1][1] if done else None
    if last is not None:
        say(f"resuming {run} from {last.name}")
    policy = load_policy(
        model,
        settings,
        adapter=last / "adapter" if last and settings.lora_rank else None,
        full=last / "model" if last and not settings.lora_rank else None,
        threads=threads,
    )
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.lr)
    if last is not None:
        optimizer.load_state_dict(torch.load(last / "optimizer.pt"))
    if settings.lora_rank == 0:
        policy.reference = load_policy(model, settings, threads=threads).model.eval()
    report = TrainReport(start, start, last)
    heldout_log = run / "heldout.jsonl"

    def evaluate(step: int) -> None:
        if heldout:
            row = {
                "step": step,
                **mean_reward(policy, heldout, agent, settings.group, settings.seed, say),
            }
            report.heldout.append(row)
            with open(heldout_log, "a") as f:
                f.write(json.dumps(row) + "\n")
            say(f"held-out mean reward at step {step}: {row['mean_reward']:.4f}")

    log = run / "log.jsonl"
    if log.is_file():  # steps after the last checkpoint are done again
        rows = [
            line
            for line in log.read_text().splitlines()
            if line.strip() and json.loads(line)["step"] <= start
        ]
        log.write_text("".join(line + "\n" for line in rows))
    if start == 0:
        evaluate(0)
    for step in range(start + 1, settings.steps + 1):
        t0 = time.monotonic()
        rollouts: list[Rollout] = []
        advs: list[float] = []
        for j, problem in enumerate(_pick(problems, settings, step)):
            group = []
            for k in range(settings.group):
                say(
                    f"step {step}/{settings.steps} {problem.task_id} rollout "
                    f"{k + 1}/{settings.group}"
                )
                seed = ((settings.seed * 100_003 + step) * 101 + j) * 1009 + k
                group.append(rollout(policy, problem, agent, seed, say))
            rollouts += group
            advs += advantages([r.reward for r in group])
        loss, kl = policy_update(policy, optimizer, rollouts, advs, settings.beta)
        rewards = [r.reward for r in rollouts]
        row = {
            "step": step,
            "mean_reward": statistics.fmean(rewards),
            "std_reward": statistics.pstdev(rewards),
            "loss": loss,
            "kl": kl,
            "tokens": sum(len(t.completion) for r in rollouts for t in r.turns),
            "seconds": round(time.monotonic() - t0, 2),
            "rollouts": [r.summary() for r in rollouts],
        }
        with open(log, "a") as f:
            f.write(json.dumps(row) + "\n")
        say(
            f"step {step}/{settings.steps}: mean reward {row['mean_reward']:.4f} "
            f"(std {row['std_reward']:.4f}), loss {loss:.4g}, "
            f"kl {'-' if kl is None else format(kl, '.3g')}, "
            f"{row['tokens']} tokens, {row['seconds']} s"
        )
        report.end_step = step
        if step % settings.save_every == 0 or step == settings.steps:
            report.checkpoint = _save(policy, optimizer, run, step, settings, model)
            say(f"checkpoint {report.checkpoint}")
    if log.is_file():
        plot(log, run / "train.png")
    if report.end_step > start:
        evaluate(report.end_step)
    return report
