#!/usr/bin/env bash
# Resume and fork against the size of a session's history: `hotl-synth --folded --turns 60`
# sessions of 1k, 100k and 1M records: the same conversation (60 user messages, each turn
# folded once done, a compaction every ten folds) with more or less archived work behind it
# (the model view quotes every user message, so it grows with messages, not with records).
# Then
#   resume: `hotl -r <id> -p hi` against the fake, process start to the end of its answer;
#           cold is the first run after hotl-synth wrote the session (with the checkpoint hotl
#           keeps), warm the median of the runs after it, and "from the log" the first run
#           after the checkpoint was deleted (it reads the whole log and writes a new one);
#   fork:   `hotl sessions fork <id>` at the head and with --keep-turns 2, median;
# each with its peak memory (max RSS). Usage: bench/history.sh [SIZES...] (default 1000 100000
# 1000000). Needs about 3 GB of disk for the 1M session.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p hotl -p hotl-fakellm -p hotl-synth
BIN="$PWD/target/release"
SIZES=("${@:-1000 100000 1000000}")
read -r -a SIZES <<<"${SIZES[*]}"
OUT=$(mktemp -d /tmp/hotl-history.XXXXXX)
PORT=${PORT:-18791}
printf '{"text": "ok", "repeat": true}\n' >"$OUT/script.jsonl"
"$BIN/hotl-fakellm" serve --port "$PORT" --script "$OUT/script.jsonl" >"$OUT/fake.log" 2>&1 &
FAKE=$!
trap 'kill $FAKE 2>/dev/null; rm -rf "$OUT"' EXIT
for _ in $(seq 1 50); do grep -q http "$OUT/fake.log" && break; sleep 0.1; done
mkdir -p "$OUT/project"
cd "$OUT/project"
RUNS=${RUNS:-9}

# Runs a command RUNS times (or once with ONCE=1); prints "median ms, peak MB": the time from
# the clock around the process (/usr/bin/time counts in hundredths), the memory from its
# maximum resident set.
measure() {
  local runs=$RUNS
  [[ ${ONCE:-} == 1 ]] && runs=1
  for _ in $(seq 1 "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$OUT/time" "$@" >/dev/null 2>"$OUT/err" || {
      cat "$OUT/err" >&2
      return 1
    }
    t1=$(date +%s%N)
    echo "$(((t1 - t0) / 1000)) $(cat "$OUT/time")"
  done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { printf "%.1f ms, %.0f MB", t[int((NR + 1) / 2)] / 1000, m / 1024 }'
}

printf '| records | log | resume cold | resume warm | fork head | fork --keep-turns 2 | resume from the log |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|\n'
for n in "${SIZES[@]}"; do
  home="$OUT/h$n"
  "$BIN/hotl-synth" --home "$home" --sessions 1 --records "$n" --folded --turns "${TURNS:-60}" \
    --cwd "$OUT/project" >/dev/null
  id=$(basename "$(ls "$home"/sessions/*.jsonl)" .jsonl)
  size=$(du -h "$home/sessions/$id.jsonl" | cut -f1)
  run=("$BIN/hotl" --home "$home" -r "$id" -p hi --provider anthropic
    --base-url "http://127.0.0.1:$PORT" --model claude-sonnet-4-5)
  cold=$(ONCE=1 measure "${run[@]}")
  warm=$(measure "${run[@]}")
  head=$(measure "$BIN/hotl" --home "$home" sessions fork "$id")
  keep=$(measure "$BIN/hotl" --home "$home" sessions fork "$id" --keep-turns 2)
  rm -f "$home/index/views/$id.json"
  log=$(ONCE=1 measure "${run[@]}")
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$size" "$cold" "$warm" "$head" "$keep" "$log"
  rm -rf "$home"
done
