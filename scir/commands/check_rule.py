"""``scir check-rule FILE --task ID "RULE"``: test a hand-written induction rule against one
task: is it valid (covers a known interacting pair and no known non-interacting pair), which
pairs does it cover, and is it in the task's answer pool?"""

from __future__ import annotations

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError
from scir.tasks import read_tasks


def add_parser(sub) -> None:
    p = sub.add_parser(
        "check-rule", help="check a hand-written induction rule against a task",
        formatter_class=HelpFormatter,
        description="Parse an induction rule interacts(X,Y) :- r1(X,P), r2(Y,P). (either "
                    "orientation, either body order, any variable names) and test it against "
                    "one task with the coverage of prolog/induction.pl.",
        epilog="Example:\n  scir check-rule i.jsonl --task induction-d2p2-7-0 "
               "\"interacts(A,B) :- substrate_of(A,P), inhibits_enzyme(B,P).\"\n"
               "Exit code 0: the rule is in the answer pool; 1: it is not; 2: the rule or the "
               "task could not be read.")
    p.add_argument("file", help="task file (JSONL)")
    p.add_argument("--task", required=True, metavar="ID", help="task id in FILE")
    p.add_argument("rule", help="the rule, e.g. \"interacts(A,B) :- binds(A,P), binds(B,P).\"")
    p.set_defaults(func=run)


def _pairs(pairs: list[tuple[str, str]]) -> str:
    return ", ".join(f"{a}+{b}" for a, b in pairs) if pairs else "none"


def run(args) -> int:
    from scir.tracks import get_track
    from scir.tracks.induction.rules import check_rule

    tasks = {t.task_id: t for t in read_tasks(args.file)}
    task = tasks.get(args.task)
    if task is None:
        raise ConfigError(f"no task {args.task!r} in the file ({len(tasks)} tasks)",
                          file=args.file, field="task")
    if task.domain != "induction":
        raise ConfigError(f"task {args.task} is a {task.domain} task; check-rule takes "
                          "induction tasks", file=args.file, field="task")
    result = check_rule(get_track("induction").formal(task), args.rule)
    category = result.category or "none (mixed pair)"
    print(f"rule:       {result.clause}")
    print(f"answer:     {result.answer} (category: {category}; target category: "
          f"{result.target_category})")
    print(f"positives:  covers {len(result.covered_positives)} of {result.n_positives}: "
          f"{_pairs(result.covered_positives)}")
    print(f"negatives:  covers {len(result.covered_negatives)} of {result.n_negatives}: "
          f"{_pairs(result.covered_negatives)}")
    if result.valid:
        print("valid:      yes (covers at least one interacting pair and no non-interacting "
              "pair)")
    elif result.covered_negatives:
        print("valid:      no (wrongly covers a non-interacting pair)")
    else:
        print("valid:      no (covers no interacting pair)")
    if result.in_pool:
        print("in pool:    yes (an accepted answer)")
    elif result.valid:
        print(f"in pool:    no (valid, but not a rule of the {result.target_category} category)")
    else:
        print("in pool:    no")
    stored = result.answer in task.answer_pool
    if stored != result.in_pool:
        print(f"warning:    the task file's answer pool {task.answer_pool} disagrees; run "
              f"`scir verify {args.file}`")
    return 0 if result.in_pool else 1
