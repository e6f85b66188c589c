"""Write docs/rendering.md: how rendering works, the genres of every track (from their JSON
files), and one real task of each track in clean NL and rendered in two genres by the
template renderer, with the reference extractor's verdict.

    .venv/bin/python scripts/rendering_doc.py [OUT]     (default docs/rendering.md)
"""

from __future__ import annotations

import sys
from pathlib import Path

from scir.rendering.extractors import recovery_problems
from scir.rendering.codecs import load_genres
from scir.rendering.template import render_task
from scir.tracks import get_track

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = {"deduction": 200, "induction": 28, "causal": 40}

INTRO = """# Rendering: clean NL to scientific documents

`scir render` rewrites each clean-NL block of a task into one document of a scientific genre
(deduction 2 blocks, induction 3, causal 2) and fills `documents` (one `{genre, text}` per
block), `problem_obfuscated` (the documents joined by a blank line) and
`provenance["render"]` (renderer, seed, genres, `chars_nl`, `chars_obf`, `ratio`, `retries`,
and what the renderer did: abbreviations, catalogue codes, condition labels, fillers).

```sh
scir render d.jsonl --renderer template --seed 1 -o d.obf.jsonl
scir render d.jsonl --renderer llm --model openrouter:openai/gpt-4o \\
    --inverse-model openrouter:openai/gpt-4o-mini -o d.llm.jsonl
scir stats d.obf.jsonl
```

## One codec per track

Everything track-specific about rendering lives in the track's package, behind one interface,
`scir.text.codec.RenderCodec`, which `Track.codec()` returns (built-in tracks:
`scir/tracks/<track>/codec/`; the example track: `docs/examples/horn_codec.py`):

| method | what it says |
|---|---|
| `block_contents(task)`, `canonical(index, content)` | the formal content of each block, and its normal form (equal normal forms: the same information) |
| `genre_file()` | the track's genre file (JSON, shipped as package data beside the codec) |
| `drafts(task, contents, genres, gset, rng)`, `slot_values(task)` | the template writer: one draft per block in its genre |
| `extract(task)` | the reference extractor: the block contents read back from the documents alone |
| `block_description`, `block_grammar`, `format_block`, `parse_block`, `match_block` | the LLM renderer's back-translation: the block's formal format, its decoding grammar, the faithful formal text, its parser, and the match of a recovered content against the original |

`scir.text` itself is generic machinery -- drafts, sections and filler (`document`), template
patterns (`patterns`), the genre-file reader (`genres`), the two renderers, the
back-translation driver (`inverse`) and the statistics -- and asks the task's codec
(`scir.text.codec.codec_of(task)`) instead of branching on a track's name. A track without a
codec cannot be rendered: `ConfigError: track 'x' has no rendering codec`.

## Genres are data

Each built-in track has eight genres in its genre file
(`scir/tracks/<track>/codec/genres.json`): a title, a style description (used in the LLM
renderer's prompt), header, intro, heading, item and closing templates, a
filler bank, and track options (statement wordings, record and table formats, label formats).
The track file also holds the phrase banks shared by its genres, the fidelity rules given to
the LLM renderer, and the template renderer's target range of the Obf/NL length ratio.

## The template renderer (offline, deterministic)

For each task, distinct genres are drawn for its blocks from `random.Random(seed, task_id)`;
the same input file and seed give byte-identical output. Each block's formal content is
written in its genre:

* **deduction** -- each premise one statement, in one of the genre's meaning-preserving
  wordings: a universal stays universal ("Every", "Without exception,", "In every specimen
  examined, each ..."), never "most"; "no" becomes "None of the ... is", "No cell is both ...";
  "some" becomes "At least one", "A subset of". Statements are shuffled within a block. Some
  populations get an abbreviation ("Kdr+ cells", "ETCs") defined in the glossary of ONE
  document and used, undefined, in the other.
* **induction** -- the facts as sentences grouped by drug, as one database record per drug, or
  as one section per protein and class; the pairs as sentences or list lines. Every drug gets
  a catalogue code defined at its first mention in the facts document ("Velorastat
  (PB-04512)") and used, undefined, in the pair documents.
* **causal** -- the network document names the conditions with labels ("Arm B", "Condition
  C3"); the data document heads each table with its label only, so the intervention is found
  in the other document. Tables become CSV or Markdown with a shuffled column order and
  irrelevant annotation columns (well, barcode, ...), per-protein series, or one sentence per
  cell; every value keeps its printed digits and every row its place.

Filler sentences from the genre's banks (methods, instruments, curation notes -- never a name
of the task's world) are interleaved between items until the documents reach a length drawn
from the track's ratio range (deduction 2.6-3.3x, induction 2.4-3.1x, causal 3.0-4.0x; the
paper reports 2.9x, 2.8x and 4.1x); a filler's slots are filled once per document, so a
document never contradicts itself.

**Recoverability is checked mechanically.** Each track's codec has a rule-based reader (its
`extract`, called through `scir.rendering.extractors`), compiled from the same templates
(anchored regular expressions). It reads only the documents, their genre names and the
track's universe of names (the context vocabulary, the world's drugs and proteins, the Sachs
proteins), never the formal object, and must recover the
exact formal content of every block: the premise set (Prover9 strings in the track's canonical
printing), the fact set with positives and negatives, the known edges, conditions and
identical rows. A rendering that does not pass is redrawn; `tests/test_render_template.py`
checks every task of every track and tier.

## The LLM renderer (with back-translation)

Per block, a renderer call rewrites the block into its genre (style description plus the
track's fidelity rules), and an inverse call -- the same or another model (`--inverse-model`)
-- formalizes the rewrite back, with the task's other ORIGINAL blocks as context, under the
block's grammar (the codec's `block_grammar`): deduction formulas over the task's signature
(`grammars/fol.lark`, bounded), `grammars/induction_block.lark` (facts or pairs),
`grammars/causal_block.lark` (network or rows). The rewrite is accepted when the codec's
`match_block` finds the block's content in the formalization -- deduction: every formula
proved equivalent to an original one by Prover9 in both directions; induction: the same set;
causal: the same edges and conditions and identical rows. Otherwise the block is
retried (the model sees its previous rewrite and what was lost), up to `--max-retries`
(default 2), then the task is dropped and reported. Every call goes through the SQLite cache
(`--cache`, default next to OUT), so a rerun repeats no finished call.

## Statistics

`scir stats FILE` prints per domain and tier: tasks, mean characters NL and Obf and their
ratio, reference items (`track.count_items`), mean chance, rendered tasks and retries, the
answer distribution, the pool sizes of tracks whose tasks accept several answers
(`Track.answer_pools`: induction) and the genres used. `scir render` prints the same table,
the dropped tasks, and writes a JSON report with per-task numbers next to OUT.
"""


def excerpt(text: str, limit: int) -> str:
    lines = text.splitlines()
    if len(lines) <= limit:
        return text
    return "\n".join(lines[:limit] + [f"[... {len(lines) - limit} more lines ...]"])


def genres_section(track: str) -> list[str]:
    gset = load_genres(track)
    out = [f"### {track}", "", "| genre | title | style |", "|---|---|---|"]
    out += [f"| `{g.name}` | {g.title} | {g.style} |" for g in gset.genres]
    return out + [""]


def example(track: str) -> list[str]:
    task = next(iter(get_track(track).generate(1, 1, "easy")))
    limit = MAX_LINES[track]
    out = [f"### {track}: `{task.task_id}`", "", f"Question: {task.question.splitlines()[0]}",
           "", f"Clean NL ({len(task.problem_nl)} characters):", "", "```text",
           excerpt(task.problem_nl, limit), "```", ""]
    seen: set[str] = set()
    seed = 0
    shown = 0
    while shown < 2:
        rendered = render_task(task, seed)
        first = rendered.documents[0].genre
        seed += 1
        if first in seen:
            continue
        seen.add(first)
        shown += 1
        record = rendered.provenance["render"]
        verdict = "recovers every block exactly" if not recovery_problems(rendered) \
            else "FAILS"
        out += [f"Rendered with `--seed {seed - 1}`: genres {', '.join(record['genres'])}; "
                f"{record['chars_obf']} characters, {record['ratio']}x the clean text; the "
                f"reference extractor {verdict}.", ""]
        for doc in rendered.documents:
            out += [f"Document `{doc.genre}`:", "", "```text", excerpt(doc.text, limit), "```",
                    ""]
    return out


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "rendering.md"
    lines = [INTRO, "## The genres", ""]
    for track in ("deduction", "induction", "causal"):
        lines += genres_section(track)
    lines += ["## Examples (generated by `scripts/rendering_doc.py`)", "",
              "One Easy task per track (seed 1), its clean NL and two renderings whose first "
              "documents have different genres. Long texts are cut after a few dozen lines.",
              ""]
    for track in ("deduction", "induction", "causal"):
        lines += example(track)
    out.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
