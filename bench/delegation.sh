#!/usr/bin/env bash
# Background children: one headless run whose model spawns 16 `explore` children in the
# background in one step (each child's answer streams over about 2 s), then takes 10 more
# steps (`ls`) while they run, then answers once their reports are in. From the log's stamps
# (milliseconds): how long the spawns took to return to the parent (creating each child's log
# and starting its task; no model call on the parent's path), and the parent's step time
# while 16 children run (request to the fake and back, plus the harness; the fake answers at
# once). Usage: bench/delegation.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# hotl on its own: built beside the fake, it would get the fake's features too (a slower
# binary than the one users install).
cargo build --release -q -p hotl-fakellm
cargo build --release -q -p hotl
BIN="$PWD/target/release"
OUT=$(mktemp -d /tmp/hotl-delegation.XXXXXX)
trap 'kill $FAKE 2>/dev/null; rm -rf "$OUT"' EXIT
python3 - "$OUT/script.jsonl" <<'PY'
import json, sys
lines = []
spawns = [{"name": "spawn", "input": {"agent": "explore", "task": f"BENCH-CHILD {i}", "background": True}} for i in range(16)]
lines.append({"match": "spawn sixteen", "tools": spawns})
lines.append({"match": "BENCH-CHILD", "text": "looked around", "repeat": True,
              "fault": {"split_at": [4, 8], "chunk_delay_ms": 1000}})
for i in range(10):
    lines.append({"match": "started in the background" if i == 0 else "", "tools": [{"name": "ls", "input": {"path": "." + "/." * i}}]})
lines.append({"match": "", "text": "waiting for them"})
lines.append({"match": "background child", "text": "all reported", "repeat": True})
open(sys.argv[1], "w").write("\n".join(json.dumps(l) for l in lines) + "\n")
PY
"$BIN/hotl-fakellm" serve --port 0 --script "$OUT/script.jsonl" >"$OUT/fake.log" 2>&1 &
FAKE=$!
for _ in $(seq 1 50); do grep -q http "$OUT/fake.log" && break; sleep 0.1; done
URL=$(grep -o 'http://[0-9.:]*' "$OUT/fake.log" | head -1)
mkdir -p "$OUT/project" "$OUT/config/hotl"
printf '[agents]\nmax_concurrent = 16\n' >"$OUT/config/hotl/config.toml"
cd "$OUT/project"
XDG_CONFIG_HOME="$OUT/config" "$BIN/hotl" --home "$OUT/home" -p "spawn sixteen" \
  --provider anthropic --base-url "$URL" --model claude-sonnet-5 >"$OUT/answer.txt" 2>"$OUT/err.txt" || {
  cat "$OUT/err.txt" >&2
  exit 1
}
python3 - "$OUT/home" <<'PY'
import glob, json, sys
from datetime import datetime
home = sys.argv[1]
log = sorted(glob.glob(f"{home}/sessions/*.jsonl"))[0]
records = [json.loads(l) for l in open(log)]
ts = lambda r: datetime.strptime(r["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() * 1000
calls = {}
for r in records:
    if r["type"] == "assistant":
        for b in r.get("content", []):
            if b.get("type") == "tool_use" and b.get("name") == "spawn":
                calls[b["id"]] = r
spawn_results = [r for r in records if r["type"] == "tool_result" and r.get("call") in calls]
# The step's spawns start one after another and are answered together once all have started
# (calls that delegate run side by side): from the answer that made them to the last result.
total = ts(spawn_results[-1]) - ts(calls[spawn_results[0]["call"]])
answers = [r for r in records if r["type"] == "assistant"]
after = [ts(a) for a in answers if ts(a) > ts(spawn_results[-1])]
steps = [b - a for a, b in zip(after, after[1:])][:10]
finished = [r for r in records if r["type"] == "child_finished"]
med = lambda v: sorted(v)[len(v) // 2] if v else float("nan")
print(f"16 background spawns returned to the parent in {total:.0f} ms in all, {total / len(spawn_results):.1f} ms each "
      "(the step's working-tree snapshot included)")
print(f"parent steps while 16 children ran: median {med(steps):.0f} ms, max {max(steps) if steps else float('nan'):.0f} ms (request and answer included)")
print(f"child_finished records: {len(finished)}; final answer: {open(sys.argv[1] + '/../answer.txt').read().strip()!r}")
PY

# Foreground forks of one step run side by side: four `fork` calls in one answer, each child's
# answer streaming over about 1 s. The step (the answer with the calls to the next answer)
# takes about one child's time, not four.
cd "$OUT"
python3 - "$OUT/forks.jsonl" <<'PY'
import json, sys
forks = [{"name": "fork", "input": {"task": f"FG-CHILD {i}"}} for i in range(4)]
lines = [
    {"match": "fork four", "tools": forks},
    {"match": "FG-CHILD", "text": "done", "repeat": True,
     "fault": {"split_at": [4, 8], "chunk_delay_ms": 500}},
    {"match": "finished:", "text": "all four back"},
]
open(sys.argv[1], "w").write("\n".join(json.dumps(l) for l in lines) + "\n")
PY
kill $FAKE 2>/dev/null || true
"$BIN/hotl-fakellm" serve --port 0 --script "$OUT/forks.jsonl" >"$OUT/fake2.log" 2>&1 &
FAKE=$!
for _ in $(seq 1 50); do grep -q http "$OUT/fake2.log" && break; sleep 0.1; done
URL=$(grep -o 'http://[0-9.:]*' "$OUT/fake2.log" | head -1)
mkdir -p "$OUT/project2"
cd "$OUT/project2"
"$BIN/hotl" --home "$OUT/home2" -p "fork four" --provider anthropic --base-url "$URL" \
  --model claude-sonnet-5 >"$OUT/answer2.txt" 2>"$OUT/err2.txt" || {
  cat "$OUT/err2.txt" >&2
  exit 1
}
python3 - "$OUT/home2" <<'PY'
import glob, json, sys
from datetime import datetime
home = sys.argv[1]
log = sorted(glob.glob(f"{home}/sessions/*.jsonl"))[0]
records = [json.loads(l) for l in open(log)]
ts = lambda r: datetime.strptime(r["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() * 1000
answers = [r for r in records if r["type"] == "assistant"]
children = glob.glob(f"{home}/sessions/*/*.jsonl")
child_answer = []
for path in children:
    own = [json.loads(l) for l in open(path)]
    first = next(r for r in own if r["type"] == "run")
    end = [r for r in own if r["type"] == "assistant"][-1]
    child_answer.append(ts(end) - ts(first))
step = ts(answers[1]) - ts(answers[0])
print(f"4 foreground forks in one step: the step took {step:.0f} ms; each child ran "
      f"{min(child_answer):.0f}-{max(child_answer):.0f} ms (one after another: {sum(child_answer):.0f} ms)")
PY
