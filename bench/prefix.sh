#!/usr/bin/env bash
# The first request of a new session in a fresh git repository, as hotl-fakellm's
# count_tokens counts it (o200k tokens): hotl's fixed prefix (system prompt and tool
# definitions) plus a two-letter message, then what each part costs. Usage: bench/prefix.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --release -q -p hotl -p hotl-fakellm --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release"
scratch="$(mktemp -d)"
trap 'kill "$fake" 2>/dev/null; rm -rf "$scratch"' EXIT
"$bin/hotl-fakellm" serve --port 0 --capture "$scratch/capture" > "$scratch/url" &
fake=$!
for _ in $(seq 50); do [ -s "$scratch/url" ] && break; sleep 0.1; done
mkdir -p "$scratch/project"
cd "$scratch/project"
git init -q .
env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY HOTL_HOME="$scratch/home" XDG_CONFIG_HOME="$scratch/config" \
  "$bin/hotl" --provider anthropic --base-url "$(cat "$scratch/url")" --model claude-sonnet-4-5 \
  -p hi --output-format json > "$scratch/out.json"
python3 - "$scratch" "$(cat "$scratch/url")" <<'PY'
import json, sys, glob, urllib.request
scratch, url = sys.argv[1], sys.argv[2]
body = json.load(open(sorted(glob.glob(f"{scratch}/capture/*-messages.json"))[0]))

def count(req):
    req = {k: v for k, v in req.items() if k in ("model", "system", "tools", "messages")}
    r = urllib.request.Request(f"{url}/v1/messages/count_tokens", data=json.dumps(req).encode(),
                               headers={"content-type": "application/json", "x-api-key": "k",
                                        "anthropic-version": "2023-06-01"})
    return json.load(urllib.request.urlopen(r))["input_tokens"]

total = count(body)
bare = count({**body, "system": [], "tools": []})
no_tools = count({**body, "tools": []})
print(f"first request: {total} tokens (o200k, count_tokens); system prompt {no_tools - bare}, "
      f"{len(body['tools'])} tools {total - no_tools}, message {bare}")
for tool in body["tools"]:
    others = [t for t in body["tools"] if t is not tool]
    print(f"  {tool['name']:<10} {total - count({**body, 'tools': others}):>4}")
PY
