#!/usr/bin/env bash
# The remote store against moto (an S3-compatible server, from the virtualenv .ci/run makes)
# on loopback, and the fake provider:
#   turn:   `hotl -r <id> -p ...` on a 20-turn session, each turn a streamed tool call and a
#           streamed answer; with publish = "turn" against no remote, alternating, RUNS each:
#           the turn from its own stamps (run started to run finished) and the whole process
#           (which adds taking the lease before and publishing and letting it go after);
#   push:   a 100k-record session (hotl-synth --folded: mostly folded) pushed; the bytes moto
#           holds counted by listing the bucket, against the log's and its blobs' bytes; then
#           one more turn and a second push: what it sent;
#   resume: `hotl -r <id> -p hi` (answered at once) of that session on a home that has never seen it (its
#           view and the end of its log pulled from the bucket, the archive left there, then
#           opened) against a local resume, median of RESUME_RUNS;
#   list:   `hotl sessions list --remote` over LIST_SESSIONS trees (hotl-synth, pushed with
#           `sessions push --all`): cold (the first, reading every summary, writing the listing
#           object), a new home once the object exists, warm (median), and warm after one more
#           tree was published from another home.
# Usage: bench/remote.sh [turn|push|resume|list ...] (default: all). Needs the moto virtualenv
# (.ci/run makes it; or HOTL_MOTO_SERVER) and about 2 GB of disk.
set -euo pipefail
cd "$(dirname "$0")/.."
PARTS=("${@:-turn push resume list}")
read -r -a PARTS <<<"${PARTS[*]}"
cargo build --release -q -p hotl -p hotl-fakellm -p hotl-synth
BIN="${CARGO_TARGET_DIR:-$PWD/target}/release"
MOTO=${HOTL_MOTO_SERVER:-$HOME/.cache/hotl/moto-venv/bin/moto_server}
PY="$(dirname "$MOTO")/python"
RUNS=${RUNS:-15}
RESUME_RUNS=${RESUME_RUNS:-5}
LIST_SESSIONS=${LIST_SESSIONS:-10000}
OUT=$(mktemp -d /tmp/hotl-remote-bench.XXXXXX)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
S3_PORT=$(free_port)
"$MOTO" -H 127.0.0.1 -p "$S3_PORT" >"$OUT/moto.log" 2>&1 &
MOTO_PID=$!
cat >"$OUT/script.jsonl" <<'JSONL'
{"match": "hi", "repeat": true, "text": "ok"}
{"match": "turn", "repeat": true, "text": "Checking.", "tools": [{"name": "bash", "input": {"command": "true"}}], "fault": {"split_seed": 1, "split_max": 24, "chunk_delay_ms": 4}}
{"repeat": true, "text": "Done: the check passed, nothing else to change here.", "fault": {"split_seed": 2, "split_max": 24, "chunk_delay_ms": 4}}
JSONL
"$BIN/hotl-fakellm" serve --port 0 --script "$OUT/script.jsonl" >"$OUT/fake.log" 2>&1 &
FAKE_PID=$!
trap 'kill $MOTO_PID $FAKE_PID 2>/dev/null; rm -rf "$OUT"' EXIT
for _ in $(seq 1 100); do
  grep -q http "$OUT/fake.log" 2>/dev/null && curl -s "http://127.0.0.1:$S3_PORT" >/dev/null && break
  sleep 0.1
done
FAKE_URL=$(grep -o 'http://[0-9.:]*' "$OUT/fake.log" | head -1)
curl -s -X PUT "http://127.0.0.1:$S3_PORT/sessions" >/dev/null
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench HOTL_HOSTNAME=bench
mkdir -p "$OUT/project" "$OUT/none/hotl"
# A config directory per way of publishing.
config() {
  mkdir -p "$OUT/$1/hotl"
  printf '[remote]\nname = "bench"\nurl = "s3://sessions/%s"\nendpoint = "http://127.0.0.1:%s"\nallow_http = true\npublish = "%s"\n' \
    "$2" "$S3_PORT" "$3" >"$OUT/$1/hotl/config.toml"
}
config turn turns turn
config manual big manual
config many many manual
config resume big turn
cd "$OUT/project"
# hotl with the config directory $1, the fake provider, the rest of the arguments.
hotl() {
  local conf=$1
  shift
  XDG_CONFIG_HOME="$OUT/$conf" "$BIN/hotl" --provider anthropic --base-url "$FAKE_URL" \
    --model claude-sonnet-4-5 "$@"
}
ms_now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# The bytes under a prefix of the bucket, as moto lists them (boto3, from moto's virtualenv).
stored() {
  "$PY" - "$S3_PORT" "$1" <<'PY'
import sys, boto3
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{sys.argv[1]}", region_name="us-east-1",
                  aws_access_key_id="bench", aws_secret_access_key="bench")
total = count = 0
for page in s3.get_paginator("list_objects_v2").paginate(Bucket="sessions", Prefix=sys.argv[2] + "/"):
    for o in page.get("Contents", []):
        total += o["Size"]; count += 1
print(total, count)
PY
}

part_turn() {
  local home="$OUT/turn-home"
  hotl none --home "$home" -p "turn 0" --allow bash >/dev/null
  local id
  id=$(basename "$(ls "$home"/sessions/*.jsonl)" .jsonl)
  for i in $(seq 1 19); do hotl none --home "$home" -r "$id" -p "turn $i" --allow bash >/dev/null; done
  hotl turn --home "$home" sessions push "$id" >/dev/null
  : >"$OUT/turn-none" && : >"$OUT/turn-turn"
  for i in $(seq 1 "$RUNS"); do
    for conf in none turn; do
      local t0 t1
      t0=$(ms_now)
      hotl "$conf" --home "$home" -r "$id" -p "turn $conf $i" --allow bash >/dev/null 2>"$OUT/err" ||
        { cat "$OUT/err" >&2; exit 1; }
      t1=$(ms_now)
      local turn
      turn=$(python3 - "$home/sessions/$id.jsonl" <<'PY'
import json, sys
from datetime import datetime
runs = [json.loads(l) for l in open(sys.argv[1]) if '"type":"run"' in l]
ts = lambda r: datetime.strptime(r["ts"], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() * 1000
started = [r for r in runs if r["state"] == "started"][-1]
finished = [r for r in runs if r["run"] == started["run"] and r["state"] != "started"][-1]
print(round(ts(finished) - ts(started)))
PY
)
      echo "$turn $(((t1 - t0) / 1000000))" >>"$OUT/turn-$conf"
    done
  done
  local none_turn turn_turn none_run turn_run
  none_turn=$(cut -d' ' -f1 "$OUT/turn-none" | median)
  turn_turn=$(cut -d' ' -f1 "$OUT/turn-turn" | median)
  none_run=$(cut -d' ' -f2 "$OUT/turn-none" | median)
  turn_run=$(cut -d' ' -f2 "$OUT/turn-turn" | median)
  printf '| no remote | %s ms | %s ms |\n' "$none_turn" "$none_run"
  printf '| publish = "turn" | %s ms (%+.1f%%) | %s ms (%+d ms) |\n' "$turn_turn" \
    "$(python3 -c "print(($turn_turn - $none_turn) * 100 / $none_turn)")" "$turn_run" \
    "$((turn_run - none_run))"
}

# The 100k-record session, made once for push and resume.
big() {
  [[ -f "$OUT/big-id" ]] && return
  "$BIN/hotl-synth" --home "$OUT/big-home" --sessions 1 --records 100000 --folded \
    --turns 60 --cwd "$OUT/project" >/dev/null
  basename "$(ls "$OUT"/big-home/sessions/*.jsonl)" .jsonl >"$OUT/big-id"
}

part_push() {
  big
  local id home="$OUT/big-home"
  id=$(cat "$OUT/big-id")
  local log blobs t0 t1
  log=$(stat -c %s "$home/sessions/$id.jsonl")
  blobs=$({ find "$home/blobs" -type f -printf '%s\n' 2>/dev/null || true; } | awk '{ s += $1 } END { print s + 0 }')
  t0=$(ms_now)
  hotl manual --home "$home" sessions push "$id" --json >"$OUT/push1.json"
  t1=$(ms_now)
  read -r bytes objects < <(stored big)
  printf 'first push: %s segments + %s blobs sent, %s bytes in the bucket (%s objects) for a %s-byte log and %s bytes of blobs; %s ms\n' \
    "$(python3 -c "import json; print(json.load(open('$OUT/push1.json'))['pushed'][0]['segments'])")" \
    "$(python3 -c "import json; print(json.load(open('$OUT/push1.json'))['pushed'][0]['blobs'])")" \
    "$bytes" "$objects" "$log" "$blobs" "$(((t1 - t0) / 1000000))"
  hotl manual --home "$home" -r "$id" -p "one more turn" --allow bash >/dev/null
  local grown
  grown=$(($(stat -c %s "$home/sessions/$id.jsonl") - log))
  hotl manual --home "$home" sessions push "$id" --json >"$OUT/push2.json"
  read -r bytes2 objects2 < <(stored big)
  printf 'second push after one more turn: %s segment(s), %s bytes sent (the log grew %s bytes); the bucket grew %s bytes, %s object(s)\n' \
    "$(python3 -c "import json; print(json.load(open('$OUT/push2.json'))['pushed'][0]['segments'])")" \
    "$(python3 -c "import json; p = json.load(open('$OUT/push2.json'))['pushed'][0]; print(p['bytes'] + p['blob_bytes'])")" \
    "$grown" "$((bytes2 - bytes))" "$((objects2 - objects))"
}

part_resume() {
  big
  local id
  id=$(cat "$OUT/big-id")
  # The session is in the bucket (pushed by part_push, or now). Each run publishes its turn
  # on its way out, and the next one, on either home, catches up as it takes the lease.
  hotl resume --home "$OUT/big-home" sessions push "$id" >/dev/null
  : >"$OUT/resume-local" && : >"$OUT/resume-remote" && : >"$OUT/resume-plain"
  for i in $(seq 1 "$RESUME_RUNS"); do
    local t0 t1
    t0=$(ms_now)
    hotl none --home "$OUT/big-home" -r "$id" -p "hi $i" >/dev/null
    t1=$(ms_now)
    echo $(((t1 - t0) / 1000000)) >>"$OUT/resume-plain"
    t0=$(ms_now)
    hotl resume --home "$OUT/big-home" -r "$id" -p "hi again $i" >/dev/null
    t1=$(ms_now)
    echo $(((t1 - t0) / 1000000)) >>"$OUT/resume-local"
    rm -rf "$OUT/fresh"
    t0=$(ms_now)
    hotl resume --home "$OUT/fresh" -r "$id" -p "hi from elsewhere $i" >/dev/null 2>"$OUT/err" ||
      { cat "$OUT/err" >&2; exit 1; }
    t1=$(ms_now)
    echo $(((t1 - t0) / 1000000)) >>"$OUT/resume-remote"
  done
  # What the fresh home holds on disk (a log left with a hole takes only what was fetched).
  local fetched hole=no
  fetched=$(du -s -B1 "$OUT/fresh/sessions" "$OUT/fresh/blobs" 2>/dev/null | awk '{ s += $1 } END { print s }')
  [[ -f "$OUT/fresh/sessions/$id.jsonl.hole" ]] && hole=yes
  local p l r
  p=$(median <"$OUT/resume-plain")
  l=$(median <"$OUT/resume-local")
  r=$(median <"$OUT/resume-remote")
  printf 'resume of the %s-byte session, median of %s: local with no remote %s ms; local with the remote (lease taken, caught up, published on the way out) %s ms; from the bucket only %s ms (%.1fx the local one), %s bytes on disk after it (log, blobs, caches; archive left in the bucket: %s)\n' \
    "$(stat -c %s "$OUT/big-home/sessions/$id.jsonl")" "$RESUME_RUNS" "$p" "$l" "$r" \
    "$(python3 -c "print($r / $l)")" "$fetched" "$hole"
}

part_list() {
  local home="$OUT/many-home"
  "$BIN/hotl-synth" --home "$home" --sessions "$LIST_SESSIONS" --records 8 --cwd "$OUT/project" >/dev/null
  local t0 t1
  t0=$(ms_now)
  hotl many --home "$home" sessions push --all >/dev/null
  t1=$(ms_now)
  echo "pushed $LIST_SESSIONS sessions in $(((t1 - t0) / 1000000000)) s"
  local other="$OUT/many-other"
  t0=$(ms_now)
  hotl many --home "$other" sessions list --remote --json >"$OUT/listed.json"
  t1=$(ms_now)
  local cold=$(((t1 - t0) / 1000000))
  : >"$OUT/list-warm"
  for _ in $(seq 1 "$RUNS"); do
    t0=$(ms_now)
    hotl many --home "$other" sessions list --remote --json >/dev/null
    t1=$(ms_now)
    echo $(((t1 - t0) / 1000000)) >>"$OUT/list-warm"
  done
  # A third home, after the listing object exists: the object and the journal's end.
  t0=$(ms_now)
  hotl many --home "$OUT/many-third" sessions list --remote --json >/dev/null
  t1=$(ms_now)
  local third=$(((t1 - t0) / 1000000))
  # One more tree published from elsewhere: the warm listing reads its summary only.
  "$BIN/hotl-synth" --home "$OUT/one-more" --sessions 1 --records 8 --cwd "$OUT/project" >/dev/null
  hotl many --home "$OUT/one-more" sessions push --all >/dev/null
  t0=$(ms_now)
  hotl many --home "$other" sessions list --remote --json >"$OUT/listed-after.json"
  t1=$(ms_now)
  local after=$(((t1 - t0) / 1000000))
  printf 'sessions list --remote over %s trees: cold %s ms (no listing object yet: every summary read), a new home once the object exists %s ms, warm median %s ms, warm after one more tree was published elsewhere %s ms (%s trees)\n' \
    "$(python3 -c "import json; print(len(json.load(open('$OUT/listed.json'))))")" "$cold" \
    "$third" "$(median <"$OUT/list-warm")" "$after" \
    "$(python3 -c "import json; print(len(json.load(open('$OUT/listed-after.json'))))")"
}

for part in "${PARTS[@]}"; do
  case $part in
    turn)
      printf '| %s runs | the turn (its stamps), median | the process, median |\n|---|---:|---:|\n' "$RUNS"
      part_turn
      ;;
    push) part_push ;;
    resume) part_resume ;;
    list) part_list ;;
    *) echo "unknown part $part: turn, push, resume or list" >&2; exit 2 ;;
  esac
done
