#!/usr/bin/env bash
# Agent benchmarks:
#   (a) startup to first request: `hotl -p` on an empty home against the fake provider, whole
#       run (an upper bound: it includes the fake's answer and writing the session);
#   (b) harness overhead per turn on a 10,000-record session (cargo bench -p hotl-agent);
#   (c) delegation (bench/delegation.sh): a background spawn returning to the parent, the
#       parent's step time while 16 children run, four foreground forks of one step.
set -euo pipefail
cd "$(dirname "$0")/.."
# hotl on its own: built beside the fake, it would get the fake's features too (a slower
# binary than the one users install).
cargo build --release -q -p hotl-fakellm
cargo build --release -q -p hotl
BIN=target/release
OUT=$(mktemp -d /tmp/hotl-agent-bench.XXXXXX)
PORT=${PORT:-18777}
"$BIN/hotl-fakellm" serve --port "$PORT" >"$OUT/fake.log" 2>&1 &
FAKE=$!
trap 'kill $FAKE 2>/dev/null; rm -rf "$OUT"' EXIT
for _ in $(seq 1 50); do grep -q http "$OUT/fake.log" && break; sleep 0.1; done
mkdir -p "$OUT/project"
cd "$OUT/project"
RUN=("$OLDPWD/$BIN/hotl" --home "$OUT/home" -p hi --provider anthropic
  --base-url "http://127.0.0.1:$PORT" --model claude-sonnet-5)
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 3 --runs 30 --prepare "rm -rf $OUT/home" "${RUN[*]}" \
    "$OLDPWD/$BIN/hotl --version" 2>&1 | grep -E "Time|±|hotl"
else
  for i in $(seq 1 30); do
    rm -rf "$OUT/home"
    t0=$(date +%s%N); "${RUN[@]}" >/dev/null 2>&1; t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
  done | sort -n | awk '{ a[NR] = $1 } END { printf "hotl -p, empty home: median %.1f ms\n", a[int(NR/2)+1] / 1000 }'
fi
cd "$OLDPWD"
cargo bench -q -p hotl-agent --bench turns 2>/dev/null | grep -E "history|turns in|phases"
# (c) delegation: background spawns returning, parent steps beside 16 children, parallel forks.
bench/delegation.sh
