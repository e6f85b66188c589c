"""``scir audit FILE [FILE ...]``: the artifact audit -- answer-blind baselines (majority,
count features with logistic regression and gradient boosting, per-option / per-pair rankers,
word n-grams, per-track heuristics), cross-validated with folds grouped by task id on exactly
what a solver sees, each accuracy with its 95% Wilson interval beside the chance; a leak is
flagged when the lower bound exceeds max(chance, constrained chance) + 3 points (exit code 1).
See docs/validity.md."""

from __future__ import annotations

import json
from pathlib import Path

from scir.commands._common import HelpFormatter
from scir.errors import ConfigError


def add_parser(sub) -> None:
    p = sub.add_parser(
        "audit",
        help="answer-blind baselines: do surface features give answers away?",
        formatter_class=HelpFormatter,
        description=__doc__.split(": ", 1)[1],
        epilog="Examples:\n  scir audit d.jsonl d.obf.jsonl\n"
        "  scir audit i.obf.jsonl --presentation obf --folds 10 -o audit/\n"
        "Exit code: 0 no leak, 1 a leak flagged, 2 bad input.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="task files (JSONL)")
    p.add_argument(
        "--presentation",
        choices=("nl", "ctl", "obf", "both"),
        default="both",
        help="which text the baselines read (obf and ctl need rendered files; "
        "files without them are skipped; both: nl and obf)",
    )
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (>= 2)")
    p.add_argument("--seed", type=int, default=1, help="seed of folds, models and tie-breaks")
    p.add_argument(
        "--family-wise",
        action="store_true",
        help="Bonferroni-correct the intervals over every (baseline, group) pair, so "
        "a run flags nothing by chance with 95%% confidence overall (for small "
        "files; the default is a 95%% interval per baseline)",
    )
    p.add_argument(
        "-o", "--output", metavar="DIR", help="also write DIR/audit.md and DIR/audit.json"
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from scir.audit.report import to_json, to_markdown
    from scir.audit.run import audit_files

    if args.folds < 2:
        raise ConfigError("--folds must be at least 2", field="folds")
    presentations = ["nl", "obf"] if args.presentation == "both" else [args.presentation]
    audits = audit_files(
        args.files, presentations, folds=args.folds, seed=args.seed, family_wise=args.family_wise
    )
    if not audits:
        raise ConfigError(
            "no group has enough tasks to cross-validate (at least 10 distinct "
            "tasks per track, difficulty and presentation)",
            file=args.files[0],
        )
    markdown = to_markdown(audits, files=args.files, folds=args.folds, seed=args.seed)
    print(markdown, end="")
    if args.output:
        out = Path(args.output)
        out.mkdir(parents=True, exist_ok=True)
        (out / "audit.md").write_text(markdown, encoding="utf-8")
        data = to_json(audits, files=args.files, folds=args.folds, seed=args.seed)
        (out / "audit.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 1 if any(a.leaks for a in audits) else 0
