"""The ``tiny`` model: a random-weight 2-layer Llama with a byte-level BPE tokenizer, built
locally at first use (no downloads), cached on disk and identical on every machine.

It knows nothing, so its unconstrained output is noise; under a grammar it still produces text
the grammar accepts. That makes it the model of the tests and the offline demo: every stage of
the constrained-formalization path runs for real, in seconds, on a CPU.

Cache folder: ``$SCIR_CACHE_DIR/tiny-model-v{VERSION}`` (default ``~/.cache/scir``). Building
writes to a temporary folder that is renamed into place, so concurrent first uses are safe.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scir.llm.local import OutlinesBackend, disable_torch_compile

VERSION = 1
SEED = 20260613
EOS, PAD = "<|endoftext|>", "<|pad|>"
CONFIG: dict[str, Any] = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "max_position_embeddings": 16384,
    "rope_theta": 10000.0,
    "tie_word_embeddings": True,
}
VOCAB_SIZE = 512

# a small built-in corpus: the tokenizer learns merges for the words the tracks use
_CORPUS = """
All cells that express a marker are progenitors. Some neurons are not glial cells.
If a cell is a stem cell then it is pluripotent. Every lineage derives from the epiblast.
all x (progenitor(x) -> neural(x)). exists x (cell(x) & -glial(x)). -(a | b) <-> (-a & -b).
interacts(A, B) :- substrate_of(A, P), inhibits_enzyme(B, P). binds(drug_a, protein_b).
agonist_of antagonist_of transported_by induces_transporter inhibits_transporter induces_enzyme
Raf Mek Erk Akt PKA PKC P38 Jnk Plcg PIP2 PIP3 XYZ -> edge. Option A B C D E F G H I J.
Answer: True. Answer: False. Answer: Unknown. The answer is (A). numbers: 1, 2, 3, 4, 5.
0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 100 0.5 1.25 3.75 the of and to in is
"""


def cache_root() -> Path:
    """``$SCIR_CACHE_DIR`` or ``~/.cache/scir``."""
    env = os.environ.get("SCIR_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "scir"


def model_dir() -> Path:
    """Where the tiny model of this version lives."""
    return cache_root() / f"tiny-model-v{VERSION}"


@contextmanager
def _quiet() -> Iterator[None]:
    """Hide transformers' progress bars while the tiny model is saved or loaded."""
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if bars:
            hf_logging.enable_progress_bar()


def _build(target: Path) -> None:
    """Build tokenizer and weights into ``target`` (deterministic in VERSION and SEED)."""
    disable_torch_compile()
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=[EOS, PAD],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    lines = [line for line in _CORPUS.strip().splitlines() if line.strip()]
    tok.train_from_iterator(lines * 4, trainer)
    hf_tok = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token=EOS,
        pad_token=PAD,
        model_max_length=CONFIG["max_position_embeddings"],
    )
    config = LlamaConfig(
        vocab_size=len(hf_tok),
        eos_token_id=hf_tok.eos_token_id,
        bos_token_id=hf_tok.eos_token_id,
        pad_token_id=hf_tok.pad_token_id,
        **CONFIG,
    )
    state = torch.random.get_rng_state()
    try:
        torch.manual_seed(SEED)
        model = LlamaForCausalLM(config)
    finally:
        torch.random.set_rng_state(state)
    model.generation_config.pad_token_id = hf_tok.pad_token_id
    model.generation_config.eos_token_id = hf_tok.eos_token_id
    with _quiet():
        hf_tok.save_pretrained(target)
        model.save_pretrained(target)
    (target / "scir-tiny.json").write_text(
        json.dumps(
            {"version": VERSION, "seed": SEED, "vocab_size": len(hf_tok), **CONFIG}, indent=1
        )
    )


def ensure_model() -> Path:
    """The tiny model's folder, building it first if it is not cached yet."""
    target = model_dir()
    if (target / "scir-tiny.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        _build(tmp)
        tmp.chmod(0o755)
        try:
            os.rename(tmp, target)
        except OSError:
            if not (target / "scir-tiny.json").is_file():  # not a concurrent builder's copy
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def load_tiny(threads: int | None = 1) -> OutlinesBackend:
    """The tiny model as a backend (``threads``: torch CPU threads; tiny matrices gain nothing
    from more than one, and sharing two cores with other work only slows them)."""
    disable_torch_compile()
    import torch
    from transformers import LlamaForCausalLM, PreTrainedTokenizerFast

    path = ensure_model()
    if threads is not None:
        torch.set_num_threads(threads)
    with _quiet():
        tokenizer = PreTrainedTokenizerFast.from_pretrained(path)
        model = LlamaForCausalLM.from_pretrained(path)
    return OutlinesBackend(model, tokenizer, provider="tiny", model=f"tiny-v{VERSION}")
