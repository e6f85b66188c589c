"""The audit as Markdown (one table per group) and as JSON."""

from __future__ import annotations

from scir.audit.crossval import LEAK_MARGIN, REFERENCE, GroupAudit


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _conf(audit: GroupAudit) -> str:
    return f"{100 * audit.confidence:.3g}%"


def group_table(audit: GroupAudit) -> str:
    """One group's heading and table."""
    head = (
        f"### {audit.track} · {audit.difficulty} · {audit.presentation}\n\n"
        f"{audit.tasks} tasks ({audit.parsed} parsed), {audit.folds}-fold grouped CV; "
        f"chance {_pct(audit.chance)}, constrained chance "
        f"{_pct(audit.chance_constrained)}; leak when the {_conf(audit)} lower bound > "
        f"{_pct(audit.threshold)}\n"
    )
    rows = [
        f"| baseline | family | accuracy | {_conf(audit)} Wilson CI | chance (constr.) | leak |",
        "|---|---|---:|---:|---:|---|",
    ]
    for s in audit.scores:
        rows.append(
            f"| {s.name} | {s.family} | {_pct(s.accuracy)} ({s.correct}/{s.tasks}) | "
            f"{_pct(s.low)}-{_pct(s.high)} | {chance_text(audit, s)} | "
            f"{'**LEAK**' if s.leak else '(reference)' if s.family in REFERENCE else '-'} |"
        )
    return head + "\n" + "\n".join(rows)


def chance_text(audit: GroupAudit, score) -> str:
    """The chance a score is compared with: the group's chance (constrained chance), and a
    baseline's own reference chance when it has one."""
    text = f"{_pct(audit.chance)} ({_pct(audit.chance_constrained)})"
    if score.reference is not None:
        text += f"; reference {_pct(score.reference)}"
    return text


def summary(audits: list[GroupAudit]) -> str:
    """One line: how many leaks in how many groups."""
    leaks = [(a, s) for a in audits for s in a.leaks]
    if not leaks:
        return f"no leak flagged in {len(audits)} group(s)"
    names = ", ".join(f"{a.track}/{a.difficulty}/{a.presentation}:{s.name}" for a, s in leaks)
    return f"{len(leaks)} leak(s) flagged in {len(audits)} group(s): {names}"


def to_markdown(audits: list[GroupAudit], *, files: list[str], folds: int, seed: int) -> str:
    """The whole audit as Markdown."""
    parts = [
        f"# Artifact audit\n\nfiles: {', '.join(files)}; folds {folds}, seed {seed}; "
        f"leak margin {_pct(LEAK_MARGIN)}\n\n**{summary(audits)}**"
    ]
    parts += [group_table(a) for a in audits]
    return "\n\n".join(parts) + "\n"


def to_json(audits: list[GroupAudit], *, files: list[str], folds: int, seed: int) -> dict:
    """The whole audit as a JSON-ready dict."""
    return {
        "files": files,
        "folds": folds,
        "seed": seed,
        "leak_margin": LEAK_MARGIN,
        "leaks": sum(len(a.leaks) for a in audits),
        "groups": [a.to_dict() for a in audits],
    }
