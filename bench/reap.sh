#!/usr/bin/env bash
# How long a bash tool's processes outlive a SIGKILL of hotl: the tool starts a command that
# forks a background sleeper and sleeps itself; hotl is killed with SIGKILL (nothing can catch
# it); the time until both processes are gone is measured by polling /proc every millisecond.
# The issue's bound is 1 s. Prints the median and the worst of RUNS (default 20) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# hotl on its own: built beside the fake, it would get the fake's features too (a slower
# binary than the one users install).
cargo build --release -q -p hotl-fakellm
cargo build --release -q -p hotl
BIN="$PWD/target/release"
OUT=$(mktemp -d /tmp/hotl-reap-bench.XXXXXX)
RUNS=${RUNS:-20}
FAKE=
trap '[ -n "$FAKE" ] && kill $FAKE 2>/dev/null; rm -rf "$OUT"' EXIT
cat >"$OUT/script.jsonl" <<'EOF'
{"tools": [{"name": "bash", "input": {"command": "sleep 600 & echo $! > pids; echo $$ >> pids; sleep 600"}}], "repeat": true}
EOF
"$BIN/hotl-fakellm" serve --script "$OUT/script.jsonl" >"$OUT/fake.log" 2>&1 &
FAKE=$!
for _ in $(seq 1 50); do grep -q http "$OUT/fake.log" && break; sleep 0.1; done
URL=$(grep -o 'http://[^ ]*' "$OUT/fake.log" | head -1)
mkdir -p "$OUT/project"
cd "$OUT/project"

# Whether every pid in the file is gone (a zombie counts as gone).
all_gone() {
  local pid state
  while read -r pid; do
    state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null || echo gone)
    [ "$state" = gone ] || [ "$state" = Z ] || return 1
  done <pids
}

for _ in $(seq 1 "$RUNS"); do
  rm -f pids
  "$BIN/hotl" --home "$OUT/home" -p sleep --allow bash --provider anthropic \
    --base-url "$URL" --model claude-sonnet-5 >/dev/null 2>&1 &
  HOTL=$!
  until [ -s pids ] && [ "$(wc -l <pids)" -ge 2 ]; do sleep 0.01; done
  t0=$(date +%s%N)
  kill -KILL "$HOTL"
  until all_gone; do sleep 0.001; done
  t1=$(date +%s%N)
  wait "$HOTL" 2>/dev/null || true
  echo $(((t1 - t0) / 1000))
done 2>/dev/null | sort -n | awk '{ a[NR] = $1 } END {
  printf "bash tool group after SIGKILL of hotl: median %.1f ms, worst %.1f ms (%d runs)\n",
    a[int(NR/2)+1] / 1000, a[NR] / 1000, NR }'
