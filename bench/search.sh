#!/usr/bin/env bash
# Searching every session (`hotl search`, the resume picker's content search): numbers, not
# assertions (targets and analysis: docs/performance.md, "Searching every session").
#
#   1. hotl-synth writes SESSIONS sessions of about RECORDS records each into a scratch home
#      (10,000 × 400 ≈ 10 GB of logs: tool outputs of 0.2-4 KB mostly, 20-60 KB at 5%, about
#      200 KB at 0.3%; source, test, compiler and log text);
#   2. the first `hotl search` builds the index: its time and size;
#   3. warm `hotl search --all` in a fresh process each, over queries drawn from what the logs
#      hold (common, middling and rare words, identifiers, two-word phrases): p50/p90/max; the
#      same with --project, --exact and --regex;
#   4. the incremental update after one session grows by a turn (`hotl -r ID -p`, offline);
#   5. typing in the resume picker while it searches: key-to-glyph latency (bench/picker_echo.py).
#
# Usage: bench/search.sh                 env SESSIONS=10000 RECORDS=400 QUERIES=40 KEEP=1
#   KEEP=1 keeps the home in bench/out/search (about 20 GB at the defaults) for the next run,
#   which then skips step 1; by default it is deleted afterwards. WARM_ONLY=1 (with a kept
#   home) also skips the index build.
set -euo pipefail
cd "$(dirname "$0")/.."
SESSIONS=${SESSIONS:-10000}
RECORDS=${RECORDS:-400}
QUERIES=${QUERIES:-40}
OUT=bench/out/search
HOME_DIR=$OUT/home
mkdir -p "$OUT"
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$OUT"' EXIT
cargo build --release -q -p hotl -p hotl-synth
BIN=$PWD/target/release
if [[ ! -d $HOME_DIR/sessions ]]; then
  echo "== writing $SESSIONS sessions of about $RECORDS records"
  "$BIN/hotl-synth" --home "$HOME_DIR" --sessions "$SESSIONS" --records "$RECORDS" --seed 7
fi
logs=$(du -sb "$HOME_DIR/sessions" | cut -f1)
echo "logs: $SESSIONS sessions, $((logs / 1000000)) MB"
if [[ -z ${WARM_ONLY:-} ]]; then
  rm -rf "$HOME_DIR/index/search"
  sync
  echo "== first search: builds the index"
  start=$(date +%s.%N)
  "$BIN/hotl" --home "$HOME_DIR" search --all "index build probe" >/dev/null
  end=$(date +%s.%N)
  index=$(du -sb "$HOME_DIR/index/search" | cut -f1)
  python3 -c "import sys; b=float(sys.argv[2])-float(sys.argv[1]); print(f'index build: {b:.1f} s ({int(sys.argv[3])/1e6/b:.0f} MB/s of log); index {int(sys.argv[4])/1e6:.0f} MB')" \
    "$start" "$end" "$logs" "$index"
fi
echo "== warm searches, a fresh process each"
python3 - "$BIN/hotl" "$HOME_DIR" "$QUERIES" "$OUT/queries.txt" <<'PY'
import json, os, random, re, statistics, subprocess, sys, time
hotl, home, n, queries_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = random.Random(7)
def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in ("type", "ts", "id", "cache_key", "v", "call", "run", "blob", "hash"):
                yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
logs = sorted(os.listdir(os.path.join(home, "sessions")))
logs = [l for l in logs if l.endswith(".jsonl")]
df, lines, cwds = {}, [], set()
for name in rng.sample(logs, min(200, len(logs))):
    seen = set()
    with open(os.path.join(home, "sessions", name)) as f:
        for raw in f:
            rec = json.loads(raw)
            body = rec.get("body", rec)
            if rec.get("type") == "session" or body.get("cwd"):
                cwds.add(body.get("cwd") or rec.get("cwd"))
            # The words of the record's text (its string values), not of its JSON.
            text = "\n".join(strings(rec))
            for w in re.findall(r"[A-Za-z][A-Za-z0-9_]{3,}", text):
                seen.add(w.lower())
            if rng.random() < 0.01:
                words = re.findall(r"[A-Za-z]{4,}", text)
                if len(words) > 8:
                    i = rng.randrange(len(words) - 1)
                    lines.append(f"{words[i]} {words[i+1]}".lower())
    for w in seen:
        df[w] = df.get(w, 0) + 1
skip = {"body", "type", "text", "content", "seq", "role", "input", "command", "tool", "name"}
ranked = sorted((w for w in df if w not in skip), key=lambda w: -df[w])
common, middle, rare = ranked[:60], ranked[len(ranked)//10: len(ranked)//10 + 300], [w for w in ranked if df[w] == 1]
idents = [w for w in rare if "_" in w or any(c.isdigit() for c in w)]
third = max(1, n // 5)
qs = (rng.sample(common, min(third, len(common))) + rng.sample(middle, min(third, len(middle)))
      + rng.sample(rare, min(third, len(rare))) + rng.sample(idents or rare, min(third, len(idents or rare)))
      + rng.sample(lines, min(third, len(lines))))
with open(queries_file, "w") as f:
    f.write("\n".join(q for q in qs[:8]) + "\n")
def run(args):
    t = time.perf_counter()
    out = subprocess.run([hotl, "--home", home, "search", *args], capture_output=True, text=True)
    ms = (time.perf_counter() - t) * 1000
    if out.returncode != 0:
        print("  failed:", args, out.stderr.strip()[:200])
    return ms, out.stdout.count("\n  t")
def report(label, argsets):
    for a in argsets[:3]:
        run(a)
    times, hits = [], []
    for a in argsets:
        ms, h = run(a)
        times.append(ms); hits.append(h)
    times.sort()
    p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
    print(f"{label}: {len(times)} queries, p50 {statistics.median(times):.0f} ms, p90 {p90:.0f} ms, max {times[-1]:.0f} ms; hits per query p50 {statistics.median(hits):.0f}")
report("ranked --all", [[q, "--all"] for q in qs])
cwd = sorted(c for c in cwds if c)[0] if cwds else "/"
report(f"ranked --project {cwd}", [[q, "--project", cwd] for q in qs])
report("exact --all", [[q, "--all", "--exact"] for q in qs[third:3*third]])
report("regex --all (a literal prefix)", [[re.escape(q) + r"\w*", "--all", "--regex"] for q in qs[2*third:3*third]])
print("nothing to find (--exact zzzz-not-there):", f"{run(['zzzz-not-there', '--all', '--exact'])[0]:.0f} ms")
PY
echo "== incremental: one session grows by a turn, then a search"
id=$(find "$HOME_DIR/sessions" -maxdepth 1 -name '*.jsonl' -printf '%f\n' -quit)
id=${id%.jsonl}
# The offline demo model answers; the session's recorded directory must exist for a resume.
dir=$(head -1 "$HOME_DIR/sessions/$id.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cwd"])')
mkdir -p "$dir" "$OUT/project"
home=$(cd "$HOME_DIR" && pwd)
(cd "$dir" && "$BIN/hotl" --home "$home" -r "$id" -p "remember the kiwano-7731 ticket" >/dev/null)
start=$(date +%s.%N)
"$BIN/hotl" --home "$HOME_DIR" search --all kiwano >"$OUT/inc.txt"
end=$(date +%s.%N)
python3 -c "import sys; print(f'after one new turn: {(float(sys.argv[2])-float(sys.argv[1]))*1000:.0f} ms (found: {sys.argv[3]})')" "$start" "$end" "$(grep -c kiwano "$OUT/inc.txt" || true)"
echo "== typing in the resume picker while it searches"
(cd "$OUT/project" && python3 "$OLDPWD/bench/picker_echo.py" "$OLDPWD/$OUT/queries.txt" "$BIN/hotl" --home "$OLDPWD/$HOME_DIR")
