#!/usr/bin/env bash
# Resume and fork against the size of a session's history: `hotl-synth --folded` sessions of
# 1k, 100k and 1M records (long agentic turns, each folded, a compaction every ten folds), then
#   resume: `hotl -r <id> -p hi` against the fake, process start to the end of its answer;
#           cold is the first run after hotl-synth wrote the session (no checkpoint yet: it
#           reads the log and writes one), warm the median of the runs after it;
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

# Runs a command RUNS times (or once with ONCE=1); prints "median_ms max_rss_mb".
measure() {
  local runs=$RUNS
  [[ ${ONCE:-} == 1 ]] && runs=1
  for _ in $(seq 1 "$runs"); do
    /usr/bin/time -f "%e %M" -o "$OUT/time" "$@" >/dev/null 2>"$OUT/err" || {
      cat "$OUT/err" >&2
      return 1
    }
    cat "$OUT/time"
  done | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { printf "%.0f ms %.0f MB", t[int((NR + 1) / 2)] * 1000, m / 1024 }'
}

printf '| records | log | resume cold | resume warm | fork head | fork --keep-turns 2 |\n'
printf '|---:|---:|---:|---:|---:|---:|\n'
for n in "${SIZES[@]}"; do
  home="$OUT/h$n"
  "$BIN/hotl-synth" --home "$home" --sessions 1 --records "$n" --folded --cwd "$OUT/project" >/dev/null
  id=$(basename "$(ls "$home"/sessions/*.jsonl)" .jsonl)
  size=$(du -h "$home/sessions/$id.jsonl" | cut -f1)
  run=("$BIN/hotl" --home "$home" -r "$id" -p hi --provider anthropic
    --base-url "http://127.0.0.1:$PORT" --model claude-sonnet-4-5)
  cold=$(ONCE=1 measure "${run[@]}")
  warm=$(measure "${run[@]}")
  head=$(measure "$BIN/hotl" --home "$home" sessions fork "$id")
  keep=$(measure "$BIN/hotl" --home "$home" sessions fork "$id" --keep-turns 2)
  printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "$size" "$cold" "$warm" "$head" "$keep"
  rm -rf "$home"
done
