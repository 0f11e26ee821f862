#!/usr/bin/env bash
# Terminal UI benchmarks, in tmux against the fake provider, read from HOTL_TUI_METRICS (one
# JSON line per frame, and the first paint):
#   (a) first paint of a new session (process start to the first frame on the terminal);
#   (b) resuming the 100,000-record session: first paint, and bytes written before the prompt,
#       beside the time `hotl sessions show` takes to open the same session;
#   (c) frame cost while an answer streams at 120x40 into a session with 10,000 cells;
#   (d) CPU at an idle prompt over 10 s;
#   (e) keystroke echo while an answer streams (send-keys to the glyph in capture-pane);
#   (f) RSS with the 100,000-record session open, against a headless run on it.
# Numbers, not assertions: docs/performance.md keeps them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p hotl -p hotl-fakellm -p hotl-synth
ROOT=$PWD
BIN=$ROOT/target/release
OUT=$(mktemp -d /tmp/hotl-tui-bench.XXXXXX)
SOCK=$OUT/tmux.sock
PORT=${PORT:-18779}
RUNS=${RUNS:-20}
tm() { tmux -S "$SOCK" "$@"; }
cleanup() {
  tm kill-server 2>/dev/null || true
  kill "${FAKE:-0}" 2>/dev/null || true
  rm -rf "$OUT"
}
trap cleanup EXIT

# Four fast replies of 2,000 numbered lines, then replies of 400 lines streamed at the pace
# of a fast model (a chunk of at most 256 bytes every 2 ms).
python3 - "$OUT/script.jsonl" <<'EOF'
import json, sys
line = lambda i: f"streamed line {i} with a few more words to fill it\n"
fast = "".join(line(i) for i in range(1, 2001))
short = "".join(line(i) for i in range(1, 401))
slow = {"split_seed": 7, "split_max": 256, "chunk_delay_ms": 2}
with open(sys.argv[1], "w") as f:
    for n in range(200):
        entry = {"text": fast}
        if n >= 4:
            entry = {"text": short, "fault": slow}
        f.write(json.dumps(entry) + "\n")
EOF
"$BIN/hotl-fakellm" serve --port "$PORT" --script "$OUT/script.jsonl" >"$OUT/fake.log" 2>&1 &
FAKE=$!
for _ in $(seq 1 50); do grep -q http "$OUT/fake.log" && break; sleep 0.1; done
mkdir -p "$OUT/project"
HOTL=("$BIN/hotl" --provider anthropic --base-url "http://127.0.0.1:$PORT" --model claude-sonnet-5)

# Starts hotl in a fresh tmux session W×H in $CWD with metrics to $OUT/m.jsonl; waits for the
# first paint.
CWD=$OUT/project
start() {
  local w=$1 h=$2 home=$3
  shift 3
  rm -f "$OUT/m.jsonl"
  tm kill-server 2>/dev/null || true
  sleep 0.2
  tm new-session -d -x "$w" -y "$h" -s B -c "$CWD" \
    "env HOTL_TUI_METRICS=$OUT/m.jsonl ${HOTL[*]} --home $home $*; sleep 600"
  for _ in $(seq 1 600); do
    grep -q first_paint "$OUT/m.jsonl" 2>/dev/null && return 0
    sleep 0.01
  done
  echo "no first paint" >&2
  return 1
}
wait_for() {
  for _ in $(seq 1 3000); do
    tm capture-pane -p -t B | grep -q "$1" && return 0
    sleep 0.01
  done
  echo "never saw $1" >&2
  return 1
}
pct() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int(NR*p/100); if (i<1) i=1; print a[i]}'; }
hotl_pid() { pgrep -f -n "$BIN/hotl .*--home $1" ; }

echo "(a) first paint, new session ($RUNS runs, 100x30):"
for _ in $(seq 1 "$RUNS"); do
  start 100 30 "$OUT/home-a" >/dev/null || continue
  grep -o '"first_paint_us":[0-9]*' "$OUT/m.jsonl" | cut -d: -f2
done | awk '{print $1/1000}' | sort -n | awk '{a[NR]=$1} END {printf "  median %.1f ms, worst %.1f ms\n", a[int(NR/2)+1], a[NR]}'

echo "(b) resume the 100,000-record session:"
# The session lives in bench/out/tui-big, recorded in bench/out/tui-big-project (kept between
# runs: writing 100,000 records takes a while).
BIG=$ROOT/bench/out/tui-big
CWD=$ROOT/bench/out/tui-big-project
mkdir -p "$CWD"
if [ ! -d "$BIG" ]; then
  "$BIN/hotl-synth" --home "$BIG" --sessions 1 --records 100000 --seed 42 --cwd "$CWD" >/dev/null
fi
ID=$("$BIN/hotl" --home "$BIG" sessions list --all --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
open_ms=$( { /usr/bin/time -f %e "$BIN/hotl" --home "$BIG" sessions show "$ID" >/dev/null; } 2>&1 | awk '{print $1*1000}')
echo "  hotl sessions show (open + project + print): ${open_ms} ms"
for _ in 1 2 3; do
  start 120 40 "$BIG" -r "$ID" >/dev/null || continue
  paint=$(grep -o '"first_paint_us":[0-9]*' "$OUT/m.jsonl" | cut -d: -f2)
  opened=$(grep -o '"opened_us":[0-9]*' "$OUT/m.jsonl" | cut -d: -f2)
  bytes=$(grep -o '"bytes":[0-9]*' "$OUT/m.jsonl" | head -1 | cut -d: -f2)
  echo "  session open at $((opened / 1000)) ms, first paint at $((paint / 1000)) ms (+$(((paint - opened) / 1000)) ms), ${bytes} bytes written before the prompt"
done
PID=$(hotl_pid "$BIG" || true)
if [ -n "$PID" ]; then
  rss_tui=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
fi
tm kill-server 2>/dev/null || true
(cd "$CWD" && /usr/bin/time -o "$OUT/rss" -f %M "${HOTL[@]}" --home "$BIG" -r "$ID" -p hi >/dev/null 2>&1 || true)
rss_headless=$(tail -1 "$OUT/rss")
CWD=$OUT/project
echo "(f) peak RSS with it open: terminal UI ${rss_tui:-?} KiB, headless -p ${rss_headless} KiB"

echo "(c) frames while a 400-line answer streams at 120x40 after four of 2,000 lines:"
start 120 40 "$OUT/home-c" >/dev/null
idle() {
  for _ in $(seq 1 6000); do
    tm capture-pane -p -t B | grep -q 'Esc to interrupt' || return 0
    sleep 0.01
  done
  return 1
}
for turn in 1 2 3 4 5; do
  [ "$turn" = 5 ] && : >"$OUT/m.jsonl"
  tm send-keys -t B -l "stream please $turn"
  tm send-keys -t B Enter
  sleep 0.5
  idle
done
frames=$(grep -c '"frame"' "$OUT/m.jsonl")
us() { grep -o '"render_us":[0-9]*' "$OUT/m.jsonl" | cut -d: -f2 | pct "$1"; }
echo "  $frames frames; render+diff+write: p50 $(us 50) µs, p99 $(us 99) µs, max $(us 100) µs; bytes a frame p50 $(grep -o '"bytes":[0-9]*' "$OUT/m.jsonl" | cut -d: -f2 | pct 50)"

sleep 3
echo "(d) CPU at an idle prompt over 10 s (3 s after the answer):"
PID=$(hotl_pid "$OUT/home-c")
tick=$(getconf CLK_TCK)
t0=$(awk '{print $14+$15}' "/proc/$PID/stat"); sleep 10; t1=$(awk '{print $14+$15}' "/proc/$PID/stat")
python3 -c "print(f'  {($t1-$t0)/$tick/10*100:.2f}% of a core')"

echo "(e) keystroke echo while an answer streams (on a pty, 26 keys):"
tm kill-server 2>/dev/null || true
(cd "$OUT/project" && python3 "$ROOT/bench/tui_echo.py" "${HOTL[@]}" --home "$OUT/home-e")
