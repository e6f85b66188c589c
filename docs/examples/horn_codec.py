"""The rendering codec of the example track ``horn`` (docs/examples/horn_track.py, walked
through in docs/extending.md): how its two clean-NL blocks -- the facts, then the rules --
become scientific-looking documents and are read back.

* block contents: ``{"facts": [atom, ...]}`` and ``{"rules": [{"head", "body"}, ...]}``,
  from the typed formal object (``HornProgram``) the generic layer passes;
* genres: ``horn_genres.json`` beside this file (three genres; the statement wordings are in
  its ``phrases.statements``);
* template writer: one statement per fact or rule in a wording of the genre, shuffled;
* reference extractor: the same wordings compiled into anchored patterns whose slots match
  only the task's propositions ``p0 .. p{atoms-1}`` (from ``task.params``, never from the
  formal object);
* back-translation (the LLM renderer's inverse call): ``p3.`` per fact, ``p4 :- p1, p2.`` per
  rule, under a grammar bounded to the task's atoms.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scir.errors import VerificationError
from scir.tasks import Task
from scir.text.codec import RenderCodec
from scir.text.document import Draft, Section, dressed_draft, fill_slots
from scir.text.genres import Genre, GenreSet
from scir.text.inverse import child_names, parse_tree
from scir.text.patterns import alternation, compile_template, listing, listing_regex
from solvers.fol_grammar import lark_literal

if TYPE_CHECKING:
    from horn_track import HornProgram

HERE = Path(__file__).resolve().parent
KINDS = ("fact", "rule")                 # the statement kind of block 1 and block 2


def atoms(task: Task) -> list[str]:
    """The task's propositions, ``p0 .. p{atoms-1}`` (its universe of names)."""
    return [f"p{i}" for i in range(int(task.params["atoms"]))]


def _slots(kind: str, item: Any) -> dict[str, str]:
    if kind == "fact":
        return {"atom": item}
    body = list(item["body"])
    return {"head": item["head"], "body": listing(body), "verb": "is" if len(body) == 1 else "are"}


class HornCodec(RenderCodec):
    """Facts and rules of a Horn program, rendered as logs, memos and checklists."""

    track = "horn"
    genre_count = None                   # three genres (the built-in tracks have eight)

    def genre_file(self) -> Path:
        return HERE / "horn_genres.json"

    # ---- block contents ------------------------------------------------------------------
    def block_contents(self, task: Task, formal: HornProgram) -> list[dict[str, Any]]:
        """``formal`` is the task's typed formal object (the track's ``formal_type``), given
        by the generic layer: one block of its facts, one of its rules."""
        return [{"facts": list(formal.facts)},
                {"rules": [{"head": head, "body": list(body)} for head, body in formal.rules]}]

    def canonical(self, index: int, content: dict[str, Any]) -> dict[str, Any]:
        if index == 0:
            return {"facts": sorted(content.get("facts", []))}
        return {"rules": sorted([r["head"], sorted(r["body"])]
                                for r in content.get("rules", []))}

    # ---- template writer and reference extractor ---------------------------------------------
    def drafts(self, task: Task, contents: list[dict[str, Any]], genres: list[Genre],
               gset: GenreSet, rng: random.Random) -> tuple[list[Draft], dict[str, Any]]:
        bank = gset.phrases["statements"]
        out = []
        for kind, content, genre in zip(KINDS, contents, genres):
            given = list(content["facts"] if kind == "fact" else content["rules"])
            rng.shuffle(given)
            wrapper = rng.choice(genre.items)
            items = []
            for k, item in enumerate(given, start=1):
                template = rng.choice(bank[kind])["text"]
                text = template.format(**_slots(kind, item))
                items.append(fill_slots(wrapper, rng, gset.slots, {"text": text, "k": str(k)}))
            section = Section(rng.choice(genre.headings), items, genre.layout,
                              rng.randrange(2 ** 31))
            out.append(dressed_draft(genre, gset, [section], rng))
        return out, {}

    def extract(self, task: Task) -> list[dict[str, Any]]:
        atom = alternation(atoms(task))
        slots = {"atom": atom, "head": atom, "body": listing_regex(atom), "verb": "(?:is|are)"}
        bank = self.genres().phrases["statements"]
        if len(task.documents) != len(KINDS):
            raise VerificationError(f"{len(task.documents)} documents for {len(KINDS)} blocks",
                                    task_id=task.task_id)
        out = []
        for number, (kind, doc) in enumerate(zip(KINDS, task.documents), start=1):
            found: list[tuple[int, int, Any]] = []
            for phrase in bank[kind]:
                for m in compile_template(phrase["text"], slots).finditer(doc.text):
                    item = (m.group("atom") if kind == "fact" else
                            {"head": m.group("head"), "body": re.findall(atom, m.group("body"))})
                    found.append((m.start(), m.end(), item))
            found.sort(key=lambda x: (x[0], x[1]))
            for (s1, e1, _), (s2, _, _) in zip(found, found[1:]):
                if s2 < e1:
                    raise VerificationError(f"document {number}: overlapping statements at "
                                            f"characters {s1} and {s2}", task_id=task.task_id)
            items = [item for _, _, item in found]
            out.append({"facts": items} if kind == "fact" else {"rules": items})
        return out

    # ---- back-translation --------------------------------------------------------------------
    def block_description(self, task: Task, index: int, content: dict[str, Any]) -> str:
        names = ", ".join(atoms(task))
        if index == 0:
            return f"One fact per line, 'p3.', for each proposition stated true; atoms: {names}."
        return ("One rule per line, 'p4 :- p1, p2.': the proposition concluded, then every "
                f"condition; atoms: {names}.")

    def _grammar(self, task: Task, index: int, n: int | None) -> str:
        """The block grammar; ``n`` items given: at most ``n + 3`` (decoding), None: any."""
        repeat = "+" if n is None else f" ~ 1..{n + 3}"
        body = int(task.params["body"])
        more = ('(", " atom)*' if n is None else
                f'(", " atom) ~ 0..{body - 1}' if body > 1 else "")
        item = ('fact: atom ".\\n"' if index == 0 else
                f'rule: atom " :- " atom {more} ".\\n"')
        literals = " | ".join(lark_literal(a) for a in atoms(task))
        return f"start: {KINDS[index]}{repeat}\n{item}\natom: {literals}\n"

    def block_grammar(self, task: Task, index: int, content: dict[str, Any]) -> str:
        return self._grammar(task, index, len(content["facts" if index == 0 else "rules"]))

    def format_block(self, task: Task, index: int, content: dict[str, Any]) -> str:
        if index == 0:
            return "".join(f"{a}.\n" for a in content["facts"])
        return "".join(f"{r['head']} :- {', '.join(r['body'])}.\n" for r in content["rules"])

    def parse_block(self, task: Task, index: int, text: str) -> dict[str, Any]:
        tree = parse_tree(task, self._grammar(task, index, None), text)
        if index == 0:
            return {"facts": [child_names(f, "atom")[0] for f in tree.find_data("fact")]}
        rules = []
        for rule in tree.find_data("rule"):
            head, *body = child_names(rule, "atom")
            rules.append({"head": head, "body": body})
        return {"rules": rules}
