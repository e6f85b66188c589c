#!/usr/bin/env bash
# The offline demo (`make demo`): check the solvers, generate a small benchmark for every track,
# verify every answer with the solvers, export it, and print what came out.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
OUT="${DEMO_OUT:-demo-out}"
N="${DEMO_N:-6}"
mkdir -p "$OUT"

step() { printf '\n== %s\n' "$*"; }

step "scir doctor"
scir doctor

tracks=$(python -c "from scir.tracks import track_names; print(' '.join(track_names()))")
for track in $tracks; do
    step "generate $track (easy, $N tasks, seed 1)"
    scir generate "$track" --difficulty easy -n "$N" --seed 1 -o "$OUT/$track.jsonl"
    step "verify $track"
    scir verify "$OUT/$track.jsonl"
done

step "export (SciR release format)"
for track in $tracks; do
    scir export "$OUT/$track.jsonl" --format scir -o "$OUT/$track.scir.json"
done

step "one task per track (clean NL)"
for track in $tracks; do
    python - "$OUT/$track.jsonl" <<'PY'
import sys
from scir.tasks import read_tasks
task = read_tasks(sys.argv[1])[0]
print(f"--- {task.task_id} (answer: {task.answer})")
print(task.problem_nl[:1200] + (" [...]" if len(task.problem_nl) > 1200 else ""))
print("Q:", task.question[:400])
PY
done
printf '\ndemo finished: outputs in %s/\n' "$OUT"
