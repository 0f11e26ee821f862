#!/usr/bin/env bash
# Export and share against session size. Writes `hotl-synth` sessions of 100k and 21k records
# (the second about 10k items: a message, an answer or a tool call each),
# then measures:
#   open:    what opening the 100k session costs (`hotl-bench-open ... project`: read the log,
#            project the view and the model view, in process), and `hotl sessions show` as a
#            process, for a like-for-like with the export commands;
#   export:  `hotl sessions export` of the 100k session as a page (default 50 MB budget), with
#            --full, as Markdown and as JSONL, each a process, median of RUNS;
#   share:   redact + render + gzip + seal of about 1 MB of the session, in process
#            (examples/export-bench), median;
#   render:  the page of the 21k session opened in headless Chromium, as exported (50 MB
#            budget) and with --full (its log embedded too): the page's own `performance.now()`
#            when its script finished, written into the DOM, median of 3.
# Usage: bench/export.sh (RUNS=5 by default). Needs chromium for the last line.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p hotl -p hotl-synth
cargo build --release -q -p hotl-export --example export-bench
BIN="$PWD/target/release"
OUT=$(mktemp -d /tmp/hotl-export-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
RUNS=${RUNS:-5}
mkdir -p "$OUT/project"
cd "$OUT/project"

# Median wall time of a command over RUNS runs, in ms.
median_ms() {
  for _ in $(seq 1 "$RUNS"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
  done | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}

"$BIN/hotl-synth" --home "$OUT/h100k" --sessions 1 --records 100000 --cwd "$OUT/project" >/dev/null
id=$(basename "$(ls "$OUT"/h100k/sessions/*.jsonl)" .jsonl)
log="$OUT/h100k/sessions/$id.jsonl"
hotl=("$BIN/hotl" --home "$OUT/h100k")
open=$("$BIN/hotl-bench-open" "$log" project | grep -o 'median_s=[0-9.]*' | cut -d= -f2)
printf '100k records, log %s\n' "$(du -h "$log" | cut -f1)"
printf '  open (in process, median)        %6.0f ms\n' "$(echo "$open * 1000" | bc)"
printf '  sessions show                    %6d ms\n' "$(median_ms "${hotl[@]}" sessions show "$id")"
printf '  export page (50 MB budget)       %6d ms' "$(median_ms "${hotl[@]}" sessions export "$id" -o page.html)"
printf '  -> %s\n' "$(du -h page.html | cut -f1)"
printf '  export page --full               %6d ms' "$(median_ms "${hotl[@]}" sessions export "$id" --full -o full.html)"
printf '  -> %s\n' "$(du -h full.html | cut -f1)"
printf '  export Markdown                  %6d ms\n' "$(median_ms "${hotl[@]}" sessions export "$id" -o page.md)"
printf '  export JSONL                     %6d ms\n' "$(median_ms "${hotl[@]}" sessions export "$id" -o page.jsonl)"
"$BIN/examples/export-bench" "$OUT/h100k" "$id" 1 | grep '^share' | sed 's/^/  /'

"$BIN/hotl-synth" --home "$OUT/h21k" --sessions 1 --records 21000 --cwd "$OUT/project" >/dev/null
id21=$(basename "$(ls "$OUT"/h21k/sessions/*.jsonl)" .jsonl)
render() {
  local page=$1 label=$2
  local items size
  items=$(grep -o 'class="item ' "$page" | wc -l)
  size=$(du -h "$page" | cut -f1)
  if ! command -v chromium >/dev/null; then
    echo "$label: no chromium, first render not measured"
    return
  fi
  for _ in 1 2 3; do
    chromium --headless --no-sandbox --disable-gpu --no-first-run \
      "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1" \
      --user-data-dir="$OUT/profile" --virtual-time-budget=20000 --dump-dom \
      "file://$page" 2>/dev/null | grep -o 'data-rendered-ms="[0-9]*"' | grep -o '[0-9]*'
  done | sort -n | awk -v items="$items" -v size="$size" -v label="$label" \
    '{ t[NR] = $1 } END { printf "%s (%d items, %s): first render in Chromium %d ms (median of 3)\n", label, items, size, t[2] }'
}
"$BIN/hotl" --home "$OUT/h21k" sessions export "$id21" -o "$OUT/project/page21.html" >/dev/null 2>&1
"$BIN/hotl" --home "$OUT/h21k" sessions export "$id21" --full -o "$OUT/project/full21.html" >/dev/null 2>&1
render "$OUT/project/page21.html" "21k records, page"
render "$OUT/project/full21.html" "21k records, --full"
