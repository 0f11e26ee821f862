#!/usr/bin/env bash
# Store benchmarks: numbers, not assertions (targets and analysis: docs/performance.md).
#
#   (a) open + project a 100,000-record session vs a bare serde_json::Value parse of each line,
#       and peak RSS vs file size
#   (b) `hotl sessions list --all` over 10,000 sessions, warm metadata cache and cold rebuild
#   (c) `hotl sessions fork` of the 100,000-record session, and of a 1,000-record one
#
# Usage: bench/store.sh [--regen]
#   --regen      regenerate the synthetic homes in bench/out/ even if they are up to date
#   env RUNS=10  runs per timed command (cold listing and open use fewer, see below)
#   env SEED=42  hotl-synth seed
#   env NO_HYPERFINE=1  time with the shell loop even if hyperfine is installed
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=bench/out
BIN=target/release
SEED=${SEED:-42}
RUNS=${RUNS:-10}
OPEN_RUNS=${OPEN_RUNS:-5}    # fresh processes per mode for (a), and runs of the in-process repeat
COLD_RUNS=${COLD_RUNS:-3}
REGEN=0
[[ ${1:-} == --regen ]] && REGEN=1

log() { printf '== %s\n' "$*" >&2; }

log "building release binaries"
cargo build --release --quiet -p hotl -p hotl-synth
mkdir -p "$OUT"

# gen NAME SESSIONS RECORDS: a home in $OUT/NAME, regenerated only when its parameters changed.
gen() {
  local name=$1 sessions=$2 records=$3
  local home=$OUT/$name stamp="sessions=$2 records=$3 seed=$SEED"
  if [[ $REGEN == 0 && -f $home.done && $(cat "$home.done") == "$stamp" ]]; then
    log "reusing $home ($stamp)"
    return
  fi
  log "generating $home ($stamp)"
  rm -rf "$home" "$home.done"
  "$BIN/hotl-synth" --home "$home" --sessions "$sessions" --records "$records" --seed "$SEED" >&2
  echo "$stamp" >"$home.done"
}
gen big 1 100000
gen many 10000 20
gen small 1 1000

only_log() { local logs=("$OUT/$1"/sessions/*.jsonl); echo "${logs[0]}"; }
BIG_LOG=$(only_log big)
SMALL_LOG=$(only_log small)
BIG_ID=$(basename "$BIG_LOG" .jsonl)
SMALL_ID=$(basename "$SMALL_LOG" .jsonl)

# measure RUNS PREPARE CMD...: prints the median wall time in seconds of CMD (stdout discarded).
# PREPARE (a shell string, may be empty) runs before every timed run; one untimed warmup first.
if command -v hyperfine >/dev/null && [[ -z ${NO_HYPERFINE:-} ]]; then
  TIMER=hyperfine
else
  TIMER="shell loop (date +%s%N)"
fi
measure() {
  local runs=$1 prepare=$2
  shift 2
  if [[ $TIMER == hyperfine ]]; then
    local csv=$OUT/.hyperfine.csv
    local args=(--style none --runs "$runs" --warmup 1 --export-csv "$csv")
    # Without a shell hyperfine times millisecond commands exactly; a prepare step needs one.
    if [[ -n $prepare ]]; then args+=(--prepare "$prepare"); else args+=(-N); fi
    hyperfine "${args[@]}" "$(printf '%q ' "$@")" >/dev/null
    # command,mean,stddev,median,user,system,min,max
    awk -F, 'NR == 2 { printf "%.6f\n", $4 }' "$csv"
    rm -f "$csv"
  else
    local i t0 t1 times=()
    [[ -n $prepare ]] && bash -c "$prepare"
    "$@" >/dev/null
    for ((i = 0; i < runs; i++)); do
      [[ -n $prepare ]] && bash -c "$prepare"
      t0=$(date +%s%N)
      "$@" >/dev/null
      t1=$(date +%s%N)
      times+=($(((t1 - t0) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { printf "%.6f\n", t[int((NR + 1) / 2)] / 1e6 }'
  fi
}

# field KEY LINE: the value of KEY=... in a hotl-bench-open line.
field() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
calc() { awk "BEGIN { printf \"$1\n\", $2 }"; }
verdict() { awk "BEGIN { print (($1) ? \"ok\" : \"MISSED\") }"; }

log "(a) open + project vs bare parse: $BIG_LOG"
# Fresh processes, alternating, one run each: what opening a session costs in hotl.
median_of() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
VALUE_FIRST=() PROJECT_FIRST=() PROJECT_PEAKS=()
for ((i = 0; i < OPEN_RUNS; i++)); do
  line=$("$BIN/hotl-bench-open" "$BIG_LOG" value --runs 1)
  VALUE_FIRST+=("$(field first_s "$line")")
  line=$("$BIN/hotl-bench-open" "$BIG_LOG" project --runs 1)
  PROJECT_FIRST+=("$(field first_s "$line")")
  PROJECT_PEAKS+=("$(field peak_rss_bytes "$line")")
  FRESH=$line
done
echo "last fresh project run: $FRESH" >&2
VALUE_S=$(printf '%s\n' "${VALUE_FIRST[@]}" | median_of)
PROJECT_S=$(printf '%s\n' "${PROJECT_FIRST[@]}" | median_of)
OPEN_RATIO=$(calc %.2f "$PROJECT_S / $VALUE_S")
RSS=$(printf '%s\n' "${PROJECT_PEAKS[@]}" | sort -n | tail -1)
PHASES=$(calc "read %.2f + view %.2f + model %.2f s" "$(field first_read_s "$FRESH"), $(field first_view_s "$FRESH"), $(field first_model_s "$FRESH")")
# One process per mode, repeated runs: the allocator reuses freed memory after the first.
VALUE=$("$BIN/hotl-bench-open" "$BIG_LOG" value --runs "$OPEN_RUNS")
PROJECT=$("$BIN/hotl-bench-open" "$BIG_LOG" project --runs "$OPEN_RUNS")
echo "$VALUE" >&2
echo "$PROJECT" >&2
FILE_BYTES=$(field file_bytes "$PROJECT")
RECORDS=$(field records "$PROJECT")
VALUE_REP_S=$(field median_s "$VALUE")
PROJECT_REP_S=$(field median_s "$PROJECT")
REP_RATIO=$(calc %.2f "$PROJECT_REP_S / $VALUE_REP_S")
RSS=$(printf '%s\n' "$RSS" "$(field peak_rss_bytes "$PROJECT")" | sort -n | tail -1)
RSS_RATIO=$(calc %.2f "$RSS / $FILE_BYTES")
VALUE_RSS=$(field peak_rss_bytes "$VALUE")
RSS_READ=$(field first_rss_after_read_bytes "$FRESH")

MANY=$OUT/many
MANY_SESSIONS=$(find "$MANY/sessions" -maxdepth 1 -name '*.jsonl' | wc -l)
MANY_BYTES=$(find "$MANY/sessions" -maxdepth 1 -name '*.jsonl' -printf '%s\n' | awk '{ s += $1 } END { print s }')
log "(b) sessions list --all over $MANY_SESSIONS sessions ($(calc %.0f "$MANY_BYTES / 1e6") MB of logs)"
"$BIN/hotl" --home "$MANY" sessions list --all >/dev/null # make sure every cache is warm
WARM_S=$(measure "$RUNS" "" "$BIN/hotl" --home "$MANY" sessions list --all)
COLD_S=$(measure "$COLD_RUNS" "rm -f $(printf '%q' "$MANY")/sessions/*.meta.json $(printf '%q' "$MANY")/sessions/list.cache.json" \
  "$BIN/hotl" --home "$MANY" sessions list --all)
"$BIN/hotl" --home "$MANY" sessions list --all >/dev/null # leave the caches warm
COLD_MBS=$(calc %.0f "$MANY_BYTES / 1e6 / $COLD_S")
# The same reads and summaries without writing any cache file: parsing vs filesystem cost.
SUMMARIZE=$("$BIN/hotl-bench-open" "$MANY" summarize --runs "$COLD_RUNS")
echo "$SUMMARIZE" >&2
READ_ONLY_S=$(field median_s "$SUMMARIZE")
READ_ONLY_MBS=$(calc %.0f "$MANY_BYTES / 1e6 / $READ_ONLY_S")

# Forks add sessions to a home: remove whatever (c) created, even on failure.
snapshot() { find "$1/sessions" -maxdepth 1 -name '*.jsonl' -printf '%f\n' | sort; }
BIG_BEFORE=$(snapshot "$OUT/big")
SMALL_BEFORE=$(snapshot "$OUT/small")
remove_forks() {
  local home=$1 before=$2 f id
  for f in $(comm -13 <(echo "$before") <(snapshot "$home")); do
    id=${f%.jsonl}
    rm -rf "$home/sessions/$id.jsonl" "$home/sessions/$id.meta.json" "$home/sessions/$id.lock" \
      "${home:?}/sessions/$id"
  done
}
cleanup() {
  remove_forks "$OUT/big" "$BIG_BEFORE"
  remove_forks "$OUT/small" "$SMALL_BEFORE"
}
trap cleanup EXIT

log "(c) sessions fork of the $RECORDS-record session and of a 1,000-record one"
FORK_BIG_S=$(measure "$RUNS" "" "$BIN/hotl" --home "$OUT/big" sessions fork "$BIG_ID")
FORK_SMALL_S=$(measure "$RUNS" "" "$BIN/hotl" --home "$OUT/small" sessions fork "$SMALL_ID")
cleanup

ms() { calc %.1f "$1 * 1000"; }
mb() { calc %.0f "$1 / 1e6"; }
row() { printf '%-46s %-26s %-14s %s\n' "$@"; }
{
  echo
  echo "hotl store benchmarks ($(nproc) cores, timer: $TIMER, seed $SEED, $(date -u +%Y-%m-%dT%H:%MZ))"
  row benchmark measured target verdict
  row "(a) bare Value parse, $(mb "$FILE_BYTES") MB, $RECORDS records" "$(ms "$VALUE_S") ms" baseline -
  row "(a) open + project (lineage, view, model)" "$(ms "$PROJECT_S") ms" "" ""
  row "    phases (last fresh run)" "$PHASES" "" ""
  row "(a) open + project / bare parse" "${OPEN_RATIO}x" "<= 1.5x" "$(verdict "$OPEN_RATIO <= 1.5")"
  row "    same, repeated in one process" "${REP_RATIO}x ($(ms "$PROJECT_REP_S") / $(ms "$VALUE_REP_S") ms)" \
    "" "$(verdict "$REP_RATIO <= 1.5")"
  row "(a) peak RSS / file size" "${RSS_RATIO}x ($(mb "$RSS") MB)" "<= 2x" "$(verdict "$RSS_RATIO <= 2")"
  row "    RSS after the read alone" "$(mb "$RSS_READ") MB" "" ""
  row "    bare parse peak RSS" "$(mb "$VALUE_RSS") MB" "" ""
  row "(b) list --all, $MANY_SESSIONS sessions, warm cache" "$(ms "$WARM_S") ms" "< 150 ms" \
    "$(verdict "$WARM_S < 0.150")"
  row "(b) list --all, cold rebuild, $(mb "$MANY_BYTES") MB" "$COLD_MBS MB/s ($(ms "$COLD_S") ms)" \
    ">= 200 MB/s" "$(verdict "$COLD_MBS >= 200")"
  row "    same reads, no cache writes (summarize)" "$READ_ONLY_MBS MB/s ($(ms "$READ_ONLY_S") ms)" "" ""
  row "(c) fork, $RECORDS-record session" "$(ms "$FORK_BIG_S") ms" "< 20 ms" \
    "$(verdict "$FORK_BIG_S < 0.020")"
  row "(c) fork, 1000-record session" "$(ms "$FORK_SMALL_S") ms" "same as above" -
} | tee "$OUT/results.txt"
