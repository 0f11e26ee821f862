#!/usr/bin/env bash
# Recall benchmark: numbers, not assertions (targets and analysis: docs/performance.md, "Recall").
#
# Builds and runs `recall-bench` (crates/hotl-recall/examples/recall-bench/): it writes one
# synthetic session of about MB megabytes of log (tool outputs of compiler, test, server-log,
# source and prose text, folded in spans of 3-20 turns), then measures, in one process:
#   - the cold build of the persisted recall index from the whole lineage, and its size;
#   - a warm open (index up to date) and ranked queries: p50/p90/max over 50 queries of 1-3 words;
#   - exact-mode queries (the same words as phrases) and a few exact and regex searches;
#   - the incremental update after one new turn and fold are appended to the log;
#   - a ripgrep-style baseline: one case-insensitive regex pass over the raw log, from the file
#     (16 MB chunks) and from memory;
# then, in a fresh process, opening the index and the same queries, with the memory it holds.
#
# Usage: bench/recall.sh [MB]        (default 1024)
#   env SEED=42 QUERIES=50   generator seed and number of ranked queries
#   env KEEP=1               keep bench/out/recall (log and index, about 2.2 GB at 1024 MB) for
#                            the next run; by default it is deleted afterwards
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-1024}
SEED=${SEED:-42}
QUERIES=${QUERIES:-50}
OUT=bench/out/recall
mkdir -p bench/out
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$OUT"' EXIT
cargo build --release -q -p hotl-recall --example recall-bench
start=$(date +%s)
{
  target/release/examples/recall-bench --mb "$MB" --dir "$OUT" --seed "$SEED" --queries "$QUERIES"
  target/release/examples/recall-bench --dir "$OUT" --seed "$SEED" --queries "$QUERIES" --open-only
} | tee bench/out/recall.txt
echo "total: $(($(date +%s) - start)) s (results also in bench/out/recall.txt)"
