#!/usr/bin/env bash
# The first request of a new session, in the fake's o200k tokens: hotl's fixed prefix (system
# prompt and tool definitions) plus a two-letter message. Usage: bench/prefix.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --release -q -p hotl -p hotl-fakellm --manifest-path "$root/Cargo.toml"
bin="$root/target/release"
scratch="$(mktemp -d)"
trap 'kill "$fake" 2>/dev/null; rm -rf "$scratch"' EXIT
"$bin/hotl-fakellm" serve --port 0 --capture "$scratch/capture" > "$scratch/url" &
fake=$!
for _ in $(seq 50); do [ -s "$scratch/url" ] && break; sleep 0.1; done
mkdir -p "$scratch/project"
cd "$scratch/project"
env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY HOTL_HOME="$scratch/home" XDG_CONFIG_HOME="$scratch/config" \
  "$bin/hotl" --provider anthropic --base-url "$(cat "$scratch/url")" --model claude-sonnet-4-5 \
  -p hi --output-format json > "$scratch/out.json"
python3 - "$scratch" <<'PY'
import json, sys, glob
scratch = sys.argv[1]
usage = json.load(open(f"{scratch}/out.json"))["usage"]
tokens = usage["input"] + usage["cache_read"] + usage["cache_write_5m"] + usage["cache_write_1h"]
body = json.load(open(sorted(glob.glob(f"{scratch}/capture/*-messages.json"))[0]))
system = len(json.dumps(body["system"]))
tools = sum(len(json.dumps(t, separators=(",", ":"))) for t in body["tools"])
print(f"first request: {tokens} tokens (o200k); {len(body['tools'])} tools, "
      f"{tools} bytes of tool definitions, {system} bytes of system prompt")
PY
