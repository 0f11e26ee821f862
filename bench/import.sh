#!/usr/bin/env bash
# Import of foreign sessions: `hotl sessions import --from claude` on a generated Claude Code
# session of about 50 MB (fixture-shaped records, fresh uuids: streamed chunks, parallel tool
# results, snapshots), each run into an empty home (a re-import of an unchanged file is
# recognised and would cost nothing). Prints the median of RUNS runs (default 7).
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${MB:-50}
RUNS=${RUNS:-7}
cargo build --release -q -p hotl
cargo build --release -q -p hotl-import --example gen-claude
OUT=$(mktemp -d /tmp/hotl-import-bench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
SRC="$OUT/0b5e55ed-0000-4000-8000-000000000001.jsonl"
target/release/examples/gen-claude "$SRC" "$MB"
mkdir -p "$OUT/project"
for _ in $(seq 1 "$RUNS"); do
  rm -rf "$OUT/home"
  t0=$(date +%s%N)
  target/release/hotl --home "$OUT/home" sessions import --from claude "$SRC" \
    --cwd "$OUT/project" >/dev/null 2>"$OUT/stderr"
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000))
done | sort -n | awk -v mb="$MB" -v size="$(stat -c %s "$SRC")" '
  { a[NR] = $1 }
  END { printf "import --from claude, %.1f MB: median %.0f ms (min %.0f, max %.0f, %d runs)\n",
        size / 1e6, a[int((NR + 1) / 2)] / 1000, a[1] / 1000, a[NR] / 1000, NR }'
tail -n 3 "$OUT/stderr"
printf 'log written: %s bytes\n' "$(du -cb "$OUT"/home/sessions/*.jsonl | tail -1 | cut -f1)"
