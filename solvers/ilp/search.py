"""The learning-from-failures loop: generate a program, test it, turn the outcome into
constraints (:mod:`solvers.ilp.constraints`), by increasing program size (literals, heads
included).

Constraints, for a tested program P (one clause, or with recursion / invention a base clause
and recursive or invented ones):
- P covers a negative: ``gen`` -- programs containing P's clauses cover it too.
- P covers no negative, or no positive (classic, partial): ``spec`` -- programs specialising
  P's clauses (as many) cover a subset of what P covers: no positive, or fewer positives with
  more literals, which no optimal program needs. Without recursion a single clause covers
  what it covers in any program, so its ban holds in every program (``spec_any``); and a
  program with invention covering no positive bans, from every program, the background
  literals of its main clause when they alone cover no positive either.
- Classic mode, one clause covering a negative, every positive of which a good clause found
  so far covers too: ``spec`` -- its specialisations are never better than that clause; and
  when such a good clause is found only later, the ``spec`` is added then.
- Noisy mode (score = FN + FP + size, Popper's MDL), Popper's size bounds: ``spec`` of P
  from size min(TP, FP + size) on (all of them when that is not above P's size: no
  positive, no negative, or no more positives than literals), for a whole program also
  from best - FN on; with several clause slots ``gen`` from min(FN + size, #pos - FP,
  best - FP) on. Units for the combine stage: clauses with TP >= size + FP.
- One clause covering no positive: a smaller part of its body that, with the head, surely
  covers no positive either is banned from every clause containing it (``spec`` of that
  part; Popper's explanation of a totally incomplete program).
- One clause covering no example whose body has no solution at all in the background
  knowledge: ``unsat`` -- a minimal unsatisfiable part of its body is banned from every clause
  (Popper's UNSAT constraint).
- Recursion without invention (Popper's redundancy constraints): a program of base and
  recursive clauses covering no positive, made more general first (``Tester.program_cores``),
  gives ``red``; a single base clause covering no positive (or its smaller part) gives
  ``rec_spec``; both ban programs in which such a clause could prove no positive.
Every tested program also bans its variants; a generated variant of a tested program is not
tested again, nor is a program with a clause that has a redundant literal (that clause is
banned instead: its reduct means the same with fewer literals).

Goals. Classic: the smallest program covering every positive and no negative: a complete
program found at size n is optimal (sizes increase); consistent non-recursive clauses are
combined after each size and within a size as their number doubles
(:mod:`solvers.ilp.combine`; with recursion, also unions of two good programs, tested), and
the search stops once no larger unit can take part in a smaller program. Partial: the clause with the most positives and no
negative (ties by size, then canonical order). Noisy: the program of least score.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

from solvers.errors import SolverError, SolverTimeout
from solvers.ilp.bias import IlpBias
from solvers.ilp.clauses import Clause, Literal, canonical, redundant_literal, sort_key
from solvers.ilp.clauses import is_recursive as calls_itself
from solvers.ilp.combine import combine, combine_noisy, noisy_unit, unite_pairs
from solvers.ilp.constraints import (
    constraint_rule,
    redundancy_nogoods,
    spec_nogoods,
    unsat_rule,
    variant_nogoods,
)
from solvers.ilp.generate import Generator, Program
from solvers.ilp.tester import Outcome, Tester

# Programs tested together (one Prolog call for the single clauses among them): within a
# size, batches grow from FIRST_BATCH to BATCH programs (doubling), so that the first
# programs of a size are tested, and their constraints join the running enumeration, early.
FIRST_BATCH = 8
BATCH = 64
# Within a size, good clauses are combined once their number has doubled since the last
# combination (and is at least this): a long size still leaves a program at a time-out.
MID_COMBINE = 4
# Seconds past the deadline for combining the good clauses found since the last combination
# when the search times out (the program reported is then the best they make).
FINAL_COMBINE = 0.5
# Noisy mode: a combination within the search takes at most this share of the seconds
# searched so far, and at least COMBINE_MIN seconds.
COMBINE_SHARE = 0.25
COMBINE_MIN = 1.0


@dataclass
class SearchState:
    """What the search knows so far (also what a timeout returns)."""

    program: list[Clause] = field(default_factory=list)
    covered: frozenset[int] = frozenset()
    neg_covered: frozenset[int] = frozenset()
    tested: int = 0
    variants: int = 0
    redundant: int = 0  # programs not tested: a clause has a redundant literal
    bans: int = 0
    score: int | None = None  # noisy mode: FN + FP + size of ``program``


@lru_cache(maxsize=100_000)
def _redundant(clause: Clause) -> Literal | None:
    return redundant_literal(clause)


def program_key(program: Program) -> frozenset:
    """Programs equal up to variable renaming within clauses share one key."""
    return frozenset(canonical(c) for _, c in program)


def is_recursive(program: Program) -> bool:
    """Whether some clause calls its own head predicate."""
    return any(lit.pred == c.head.pred for _, c in program for lit in c.body)


def search(
    bias: IlpBias,
    tester: Tester,
    deadline: float,
    state: SearchState,
    noisy: bool = False,
    generator: Generator | None = None,
) -> SearchState:
    """Run the loop for ``bias`` (its mode decides the goal; ``noisy`` for the MDL goal) and
    fill ``state``; raises SolverTimeout past ``deadline`` (``state`` then holds the best
    program so far). A ``generator`` made by the caller is used (and not closed)."""
    tester.declare(bias.body_preds, deadline)
    own = generator is None
    gen = generator or Generator(bias)
    loop = _Loop(bias, tester, gen, deadline, state, noisy)
    try:
        return loop.run()
    except SolverTimeout:
        loop.combine_at_time_out()
        raise
    finally:
        if own:
            gen.close()


class _Loop:
    def __init__(
        self,
        bias: IlpBias,
        tester: Tester,
        gen: Generator,
        deadline: float,
        state: SearchState,
        noisy: bool,
    ) -> None:
        self.bias, self.tester, self.gen = bias, tester, gen
        self.deadline, self.state, self.noisy = deadline, state, noisy
        self.started = time.monotonic()
        self.partial = bias.mode == "partial" and not noisy
        self.n_pos, self.n_neg = tester.n_pos, tester.n_neg
        self.seen: set[frozenset] = set()
        self.explained: set[Clause] = set()  # clauses whose unsat core is known
        self.redundant: set[Clause] = set()  # clauses with a redundant literal, banned
        self.redundancy_bans: set[tuple] = set()  # red / rec_spec constraints added
        self.good: dict[Clause, frozenset[int]] = {}  # classic: consistent clauses
        # classic: single clauses covering a negative and some positives whose
        # specialisations are not banned yet (see :meth:`subsume_pending`)
        self.pending: dict[Clause, tuple[Program, frozenset[int]]] = {}
        self.units: dict[Clause, tuple[frozenset[int], frozenset[int]]] = {}  # noisy
        # classic, recursion without invention: good programs (canonical clause sets), whose
        # unions the combine stage tries (invented names would clash in a union)
        self.unite = bias.enable_recursion and not bias.enable_pi
        self.programs: dict[frozenset[Clause], frozenset[int]] = {}
        self.united: set[frozenset[Clause]] = set()
        # clauses of the head predicate cover examples directly (no recursion)
        self.direct = bias.multi_clause and not bias.enable_recursion
        self.invented = {f"inv{i}" for i in range(1, bias.max_clauses)} if bias.enable_pi else set()
        self.best_key: tuple | None = None
        self.best_size: int | None = None
        self.combined = 0
        if noisy:  # the empty program: every positive missed
            state.score, state.program = self.n_pos, []

    def bound(self) -> int | None:
        """Programs of this size or more cannot beat the best so far."""
        if self.noisy:
            return self.state.score
        return self.best_size

    def noisy_score(self) -> int:
        """The best program's score (noisy mode, where the empty program's is set first)."""
        score = self.state.score
        if score is None:
            raise SolverError("noisy search without a score (internal)")
        return score

    def run(self) -> SearchState:
        for size in self.gen.sizes():
            limit = self.bound()
            if limit is not None and size >= limit:
                break
            batch: list[Program] = []
            batch_size = FIRST_BATCH
            for program, model in self.gen.programs(size, self.deadline):
                # variants are banned at once; tests and constraints wait for a batch (most
                # constraints concern larger programs only; those that may concern this size,
                # the parts of useless clauses, join the running enumeration as nogoods)
                self.gen.ban_now(variant_nogoods(self.gen, program), model)
                key = program_key(program)
                if key in self.seen:
                    self.state.variants += 1
                    continue
                self.seen.add(key)
                if self.ban_redundant(program):
                    continue
                batch.append(program)
                if len(batch) >= batch_size:
                    if self.visit_batch(batch, model):
                        return self.state
                    batch, batch_size = [], min(2 * batch_size, BATCH)
                    if self.units_found() >= max(2 * self.combined, MID_COMBINE):
                        # a program to report if time runs out within this size (classic:
                        # the bound is only used between sizes, so the search itself is
                        # unchanged; noisy: a better score lowers the bound at once)
                        remaining = max(self.deadline - time.monotonic(), 0.001)
                        if self.noisy:
                            self.combine_units(remaining)
                        else:
                            self.combine_good(remaining)
            if batch and self.visit_batch(batch):
                return self.state
            if self.partial and len(self.state.covered) == self.n_pos:
                break
            self.after_size()
        return self.state

    def ban_redundant(self, program: Program) -> bool:
        """Whether a clause of ``program`` has a redundant literal (:func:`redundant_literal`):
        the program is then not tested, and every program containing such a clause is
        banned from the next size on (Popper bans them once tested; here no test is needed).
        Within this size, programs containing it are skipped here as they come (banning
        them in the running enumeration, every slot and renaming, cost more than that on
        alleven, reverse and robots-recursion)."""
        found = False
        for _, clause in program:
            if _redundant(clause) is None:
                continue
            found = True
            key = canonical(clause)
            if key in self.redundant:
                continue
            self.redundant.add(key)
            self.gen.add_constraints([constraint_rule([(0, clause)], "gen", self.gen.slots)])
        if found:
            self.state.redundant += 1
        return found

    def test(self, program: Program) -> tuple[frozenset[int], frozenset[int]]:
        """(positives covered, negatives covered); unless noisy, the negatives are at most
        the first one found and then the positives at most one."""
        clauses = [c for _, c in program]
        directions = self.bias.directions
        if len(clauses) == 1 and not is_recursive(program) and not self.noisy:
            outcome = self.tester.test(clauses[0], directions, self.deadline)
            return outcome.pos, frozenset() if outcome.neg is None else frozenset({outcome.neg})
        if self.noisy:
            return self.tester.score(clauses, directions, self.deadline)
        outcome = self.tester.test_program(clauses, directions, self.deadline)
        return outcome.pos, frozenset() if outcome.neg is None else frozenset({outcome.neg})

    def constrain(self, program: Program, kinds: list[str]) -> None:
        """Add ``kinds`` constraints (for later sizes) learned from ``program``."""
        self.gen.add_constraints(
            constraint_rule(program, kind, self.gen.slots) for kind in kinds if kind != "exact"
        )
        self.state.bans = self.gen.constraints

    def visit_batch(self, batch: list[Program], model=None) -> bool:
        """Test a batch of new programs in generation order (one Prolog call for the single
        clauses); True when the search is over. ``model``: the generator's current model,
        when the enumeration of this size goes on (constraints that concern programs of
        this size are then also added to it as nogoods)."""
        singles = [p[0][1] for p in batch if len(p) == 1 and not is_recursive(p)]
        known: dict[Clause, Outcome] = {}
        if self.noisy:
            scored = dict(
                zip(singles, self.tester.score_many(singles, self.bias.directions, self.deadline))
            )
            done = False
            for program in batch:
                if len(program) == 1 and program[0][1] in scored:
                    pos, neg = scored[program[0][1]]
                    self.state.tested += 1
                    done = self.visit_noisy(program, pos, neg, program[0][1].size, True) or done
                else:
                    done = self.visit(program) or done
            return done
        if not self.noisy and singles:
            # with one clause slot, a clause covering no positive needs no negative tested:
            # it gets ``spec`` either way, and ``gen`` would only ban its own variants
            outcomes = self.tester.test_many(
                singles,
                self.bias.directions,
                self.deadline,
                negatives_without_positives=self.gen.slots > 1,
            )
            known = dict(zip(singles, outcomes))
            empty = [c for c, o in zip(singles, outcomes) if not o.pos and o.neg is None]
            if empty:
                self.explain_unsat(empty)
                self.explained.update(empty)
            useless = [c for c, o in zip(singles, outcomes) if not o.pos]
            parts = self.explain_incomplete([c for c in useless if len(c.body) > 1], model)
            if self.unite and useless:
                # recursion: no program's only recursive clause contains them
                self.ban_redundant_programs([[parts.get(c, c)] for c in useless], "rec_spec", model)
        # the other programs (recursive, invented predicates, several clauses) in one call too
        others = [i for i, p in enumerate(batch) if not (len(p) == 1 and not is_recursive(p))]
        tested: dict[int, Outcome] = {}
        if not self.noisy and others:
            outcomes = self.tester.test_programs(
                [[c for _, c in batch[i]] for i in others], self.bias.directions, self.deadline
            )
            tested = dict(zip(others, outcomes))
            if self.unite:
                unproductive = [
                    [c for _, c in batch[i]]
                    for i, o in zip(others, outcomes)
                    if not o.pos and is_recursive(batch[i])
                ]
                if unproductive:
                    cores = self.tester.program_cores(
                        unproductive, self.bias.directions, self.deadline
                    )
                    self.ban_redundant_programs(cores, "red", model)
        return any(
            self.visit(
                program, tested.get(i) or (known.get(program[0][1]) if len(program) == 1 else None)
            )
            for i, program in enumerate(batch)
        )

    def visit(self, program: Program, outcome: Outcome | None = None) -> bool:
        """Test one generated program (``outcome``: its test's, when known already); True
        when the search is over."""
        if outcome is not None:
            pos = outcome.pos
            neg = frozenset() if outcome.neg is None else frozenset({outcome.neg})
        else:
            pos, neg = self.test(program)
        self.state.tested += 1
        size = sum(c.size for _, c in program)
        single = len(program) == 1 and not is_recursive(program)
        if single and not pos and not neg and program[0][1] not in self.explained:
            self.explain_unsat([program[0][1]])
        if self.noisy:
            return self.visit_noisy(program, pos, neg, size, single)
        consistent = not neg
        # (an inconsistent program's positives are only known to be empty or not)
        kinds = []
        if not consistent:
            kinds.append("gen")
        if consistent or not pos or (single and not self.partial and self.subsumed(pos)):
            # without recursion a clause of the head predicate covers what it covers in any
            # program: a useless one (and its specialisations) is banned from every program
            kinds.append("spec_any" if single and self.direct else "spec")
        elif single and not self.partial:
            self.pending[canonical(program[0][1])] = (program, pos)
        self.constrain(program, kinds)
        if not pos and self.direct and len(program) > 1:
            self.explain_invention(program)
        if not consistent or not pos:
            return False
        clauses = [c for _, c in program]
        if self.partial:
            if not single:
                return False
            rank = (-len(pos), sort_key(clauses[0]))
            if self.best_key is None or rank < self.best_key:
                self.best_key = rank
                self.state.program, self.state.covered = clauses, pos
            return False
        if len(pos) == self.n_pos:
            if self.best_size is None or size < self.best_size:
                self.state.program, self.state.covered = clauses, pos
                self.best_size = size
            return True
        if single:
            self.good[canonical(clauses[0])] = pos
            self.subsume_pending(pos)
        if self.unite:
            self.programs[program_key(program)] = pos
        return False

    def subsumed(self, pos: frozenset[int]) -> bool:
        """Whether a good clause found so far (no larger than the current size) covers every
        positive in ``pos`` (all the positives a single clause covers: batch tests list them
        even past a negative): then no specialisation of that clause is needed (classic)."""
        return any(pos <= covered for covered in self.good.values())

    def subsume_pending(self, covered: frozenset[int]) -> None:
        """A new good clause covering ``covered``: the earlier single clauses covering a
        negative whose positives it covers get the ``subsumed`` constraint after all (as
        when tested after it: their specialisations, generated from now on, are no smaller
        than the good clause, found at the current size, and cover a subset of its
        positives; Popper's backtracking subsumption check)."""
        done = [key for key, (_, pos) in self.pending.items() if pos <= covered]
        for key in done:
            program, _ = self.pending.pop(key)
            self.constrain(program, ["spec_any" if self.direct else "spec"])

    def ban_redundant_programs(self, programs: list[list[Clause]], kind: str, model=None) -> None:
        """Recursion without invention: the ``red`` (programs of base and recursive clauses
        covering no positive) or ``rec_spec`` (single base clauses covering no positive)
        constraint of each of ``programs`` (:mod:`solvers.ilp.constraints`), from the next
        size on, and at once in the running enumeration when ``model`` is given."""
        for program in programs:
            if kind == "red" and (
                all(calls_itself(c) for c in program) or not any(calls_itself(c) for c in program)
            ):
                continue
            key = (kind, frozenset(canonical(c) for c in program))
            if key in self.redundancy_bans:
                continue
            self.redundancy_bans.add(key)
            self.gen.add_constraints(
                [constraint_rule(list(enumerate(program)), kind, self.gen.slots)]
            )
            if model is not None:
                self.gen.ban_now(redundancy_nogoods(self.gen, program, kind), model)

    def explain_invention(self, program: Program) -> None:
        """A program with invention covering no positive: when the background literals of
        one of its head-predicate clauses cover no positive either, every clause containing
        them is useless in any program (invented literals only restrict it)."""
        head = self.bias.head_pred[0]
        for _, clause in program:
            if clause.head.pred != head:
                continue
            known = tuple(lit for lit in clause.body if lit.pred not in self.invented)
            if not known or len(known) == len(clause.body):
                continue
            part = Clause(clause.head, known)
            outcome = self.tester.test(part, self.bias.directions, self.deadline)
            if not outcome.pos:
                self.gen.add_constraints([constraint_rule([(0, part)], "spec_any", self.gen.slots)])

    def explain_incomplete(self, clauses: list[Clause], model=None) -> dict[Clause, Clause]:
        """For single non-recursive clauses covering no positive: ban every clause
        containing the head and a smaller part of the body that surely covers no positive
        either (:meth:`Tester.pos_cores`), in one-clause programs (without recursion, in
        any program: the clause's coverage does not depend on the others); at once in the
        running enumeration too when ``model`` is given (the part may be small enough to
        occur in programs of the current size). Returns each clause's part, where smaller."""
        if not clauses:
            return {}
        cores = self.tester.pos_cores(clauses, self.bias.directions, self.deadline)
        any_program = self.direct or self.gen.slots == 1
        kind = "spec_any" if any_program else "spec"
        found = {
            c: Clause(c.head, core)
            for c, core in zip(clauses, cores)
            if core and len(core) < len(c.body)
        }
        parts = sorted(set(found.values()), key=lambda part: (sort_key(part), part.body))
        self.gen.add_constraints(
            constraint_rule([(0, part)], kind, self.gen.slots) for part in parts
        )
        if model is not None:
            for part in parts:
                self.gen.ban_now(spec_nogoods(self.gen, part, any_program), model)
        return found

    def explain_unsat(self, clauses: list[Clause]) -> None:
        """For clauses covering no example whose bodies have no solution at all in the
        background knowledge, ban a minimal unsatisfiable part of each from every clause."""
        bodies = [c.body for c in clauses if c.body]
        if not bodies:
            return
        cores = self.tester.unsat_cores(bodies, self.bias.directions, self.deadline)
        self.gen.add_constraints(
            unsat_rule(list(core)) for core in dict.fromkeys(cores) if core is not None
        )

    def visit_noisy(
        self,
        program: Program,
        pos: frozenset[int],
        neg: frozenset[int] | None,
        size: int,
        single: bool,
    ) -> bool:
        """Noisy mode (score = FN + FP + size): keep the best program, bound its
        specialisations and generalisations by size as Popper d48951f does (``loop.py``:
        ``spec_size``, ``gen_size``), and keep a non-recursive clause whose positives pay
        for its literals and negatives as a unit for the combine stage. ``neg`` None: not
        tested (no more positives than literals: the program cannot beat the empty one;
        the bounds then take no negative)."""
        tp, fp = len(pos), len(neg or ())
        fn = self.n_pos - tp
        score = fn + fp + size
        if neg is not None and score < self.noisy_score():
            self.state.score = score
            self.state.program = [c for _, c in program]
            self.state.covered, self.state.neg_covered = pos, neg
        best = self.noisy_score()
        # A specialisation S (as many clauses, each containing one of P's) covers a subset
        # of P's examples with s >= size literals. s >= tp: its positives do not pay for
        # its literals (as a program it scores >= the empty one; as a unit it never lowers
        # a score); s >= fp + size: P in its place does no worse (at most fp negatives
        # more, s - size literals fewer). A whole program (not a unit of the combine
        # stage) also scores >= fn + s, so s >= best - fn cannot beat the best.
        spec_at = min(tp, fp + size)
        if not single:
            spec_at = min(spec_at, best - fn)
        rules = [self.sized_rule(program, "spec", spec_at, size)]
        if self.gen.slots > 1:
            # A generalisation G (P's clauses and more) covers a superset with s >= size
            # literals: it scores >= fp + s, against P's fn + fp + size, the empty
            # program's n_pos and the best's.
            gen_at = min(fn + size, self.n_pos - fp, best - fp)
            rules.append(self.sized_rule(program, "gen", gen_at, size))
        self.gen.add_constraints(rule for rule in rules if rule is not None)
        self.state.bans = self.gen.constraints
        if single and neg is not None and noisy_unit(tp, fp, size, None):
            self.units[canonical(program[0][1])] = (pos, neg)
        return False

    def sized_rule(self, program: Program, kind: str, at: int, size: int) -> str | None:
        """The ``kind`` constraint for ``program`` banning programs of ``at`` literals or
        more (all of them when ``at <= size``); None when no size reaches ``at``."""
        if at <= size:
            return constraint_rule(program, kind, self.gen.slots)
        if at > self.gen.sizes()[-1]:
            return None
        return constraint_rule(program, kind, self.gen.slots, min_size=at)

    def after_size(self) -> None:
        remaining = max(self.deadline - time.monotonic(), 0.001)
        if self.noisy:
            self.combine_units(remaining)
            return
        self.combine_good(remaining)

    def combine_units(self, time_limit: float) -> None:
        """Noisy mode: combine the units found so far, when there are new ones (the best
        set :func:`combine_noisy` finds within ``time_limit`` s), and keep it when it
        scores better than the best program so far."""
        if self.units_found() <= self.combined:
            return
        self.combined = self.units_found()
        # one combination never takes the rest of the run: at most a share of the time
        # searched so far (a combination cut short keeps the best set it found, if any)
        share = max(COMBINE_MIN, COMBINE_SHARE * (time.monotonic() - self.started))
        try:
            found = combine_noisy(
                self.units,
                self.n_pos,
                self.bias.max_clauses,
                min(time_limit, share),
                bound=self.noisy_score(),
            )
        except SolverTimeout:
            # no set found within the share: the search goes on (the next combination,
            # with twice the units, gets a larger share); the deadline is the loop's
            found = None
        if found is None:
            return
        chosen, score = found
        if score < self.noisy_score():
            self.state.score, self.state.program = score, chosen
            self.state.covered = frozenset().union(*(self.units[canonical(c)][0] for c in chosen))
            self.state.neg_covered = frozenset().union(
                *(self.units[canonical(c)][1] for c in chosen)
            )

    def combine_good(self, remaining: float) -> None:
        """Classic mode: combine the good clauses found so far, when there are new ones, and
        keep the combination when it is smaller than the best program so far."""
        if self.partial or self.bias.max_clauses <= 1 and not self.bias.multi_clause:
            return
        if self.units_found() <= self.combined:
            return
        self.combined = self.units_found()
        if self.unite:
            self.unite_programs()
            remaining = max(self.deadline - time.monotonic(), 0.001)
        self.combine_into_best(remaining)

    def combine_into_best(self, time_limit: float) -> None:
        """The optimal combination of the good clauses becomes the best program when it is
        smaller than the best so far."""
        limit = self.bias.max_clauses if not self.bias.multi_clause else len(self.good)
        chosen = combine(self.good, self.n_pos, limit, time_limit)
        if chosen is not None:
            total = sum(c.size for c in chosen)
            if self.best_size is None or total < self.best_size:
                self.best_size = total
                self.state.program = chosen
                self.state.covered = frozenset().union(*(self.good[canonical(c)] for c in chosen))

    def combine_at_time_out(self) -> None:
        """Classic mode, time out: combine the good clauses found since the last combination
        (within :data:`FINAL_COMBINE` s more), so that the program reported is the best
        they make (iggp-rps: 13 good clauses at the time-out, 4 at the last combination,
        and a complete program among them)."""
        if self.partial or self.units_found() <= self.combined:
            return
        if self.bias.max_clauses <= 1 and not self.bias.multi_clause:
            return
        try:
            if self.noisy:
                self.combine_units(FINAL_COMBINE)
            else:
                self.combine_into_best(FINAL_COMBINE)
        except SolverTimeout:
            pass

    def units_found(self) -> int:
        """How many units the combine stage has to choose from."""
        if self.noisy:
            return len(self.units)
        return len(self.good) + (len(self.programs) if self.unite else 0)

    def unite_programs(self) -> None:
        """Recursion: a complete, consistent union of two good programs smaller than the
        best program so far becomes the best (it need not be optimal: smaller programs are
        still generated, up to the bound it sets)."""
        directions = self.bias.directions

        def test(clauses: list[Clause]) -> tuple[bool, frozenset[int]]:
            outcome = self.tester.test_program(clauses, directions, self.deadline)
            return outcome.neg is None, outcome.pos

        new = [k for k in self.programs if k not in self.united]
        self.united.update(new)
        chosen = unite_pairs(
            self.programs, new, self.n_pos, self.bias.max_clauses, self.best_size, test
        )
        if chosen is not None:
            self.best_size = sum(c.size for c in chosen)
            self.state.program = chosen
            self.state.covered = frozenset(range(self.n_pos))
