#!/usr/bin/env bash
# Reads of one step side by side: a headless run whose model calls an MCP tool three times in
# one answer. The fixture server's `peek` sleeps 200 ms and is marked read-only (so its calls
# run together); `slow` sleeps as long and is not (so they run one after another). From the
# log's stamps: the step's time, from the answer that made the calls to the last result.
# Usage: bench/alongside.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
cargo build --release -q -p hotl-fakellm
cargo build --release -q -p hotl-mcp-fixture
cargo build --release -q -p hotl
BIN="$PWD/target/release"
OUT=$(mktemp -d /tmp/hotl-alongside.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/config/hotl" "$OUT/project"
cat >"$OUT/config/hotl/config.toml" <<TOML
[mcp_servers.fixture]
command = "$BIN/hotl-mcp-fixture"
args = ["stdio"]
approval = "allow"
TOML
step() {
  local tool=$1 home=$2
  python3 - "$OUT/script.jsonl" "$tool" <<'PY'
import json, sys
calls = [{"name": f"mcp__fixture__{sys.argv[2]}", "input": {"ms": 200}} for _ in range(3)]
lines = [{"match": "look three times", "tools": calls}, {"match": "", "text": "done"}]
open(sys.argv[1], "w").write("\n".join(json.dumps(l) for l in lines) + "\n")
PY
  "$BIN/hotl-fakellm" serve --port 0 --script "$OUT/script.jsonl" >"$OUT/fake.log" 2>&1 &
  local fake=$!
  for _ in $(seq 1 50); do grep -q http "$OUT/fake.log" && break; sleep 0.1; done
  local url
  url=$(grep -o 'http://[0-9.:]*' "$OUT/fake.log" | head -1)
  (cd "$OUT/project" && XDG_CONFIG_HOME="$OUT/config" "$BIN/hotl" --home "$home" \
    -p "look three times" --provider anthropic --base-url "$url" \
    --model claude-sonnet-5 >/dev/null 2>"$OUT/err.txt") || { cat "$OUT/err.txt" >&2; exit 1; }
  kill $fake 2>/dev/null || true
  wait $fake 2>/dev/null || true
  python3 - "$home" <<'PY'
import glob, json, sys
from datetime import datetime
log = sorted(glob.glob(f"{sys.argv[1]}/sessions/*.jsonl"))[0]
records = [json.loads(l) for l in open(log)]
ts = lambda r: datetime.strptime(r["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() * 1000
calls = [r for r in records if r["type"] == "assistant" and any(b.get("type") == "tool_use" for b in r["content"])][0]
results = [r for r in records if r["type"] == "tool_result"]
print(f"{ts(results[-1]) - ts(calls):.0f}")
PY
}
for tool in peek slow; do
  times=()
  for i in $(seq 1 "$RUNS"); do
    times+=("$(step "$tool" "$OUT/home-$tool-$i")")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v t="$tool" '{ a[NR] = $1 } END {
    printf "three 200 ms calls of %s (%s) in one step: median %d ms over %d runs\n", t,
      (t == "peek" ? "marked read-only: side by side" : "not marked: one after another"),
      a[int((NR + 1) / 2)], NR }'
done
