#!/usr/bin/env bash
# Installs the agents bench/peers/run.py compares hotl with, from npm, into a scratch prefix
# (default /tmp/hotl-peers/npm, or $HOTL_PEERS_NPM): never into the system, never in CI.
set -euo pipefail
prefix="${HOTL_PEERS_NPM:-/tmp/hotl-peers/npm}"
mkdir -p "$prefix"
npm install --prefix "$prefix" --no-audit --no-fund \
  @openai/codex@0.171.0 \
  @mariozechner/pi-coding-agent@0.73.1 \
  @anthropic-ai/claude-code@2.1.332
for bin in codex pi claude; do
  printf '%-7s %s\n' "$bin" "$("$prefix/node_modules/.bin/$bin" --version 2>&1 | tail -1)"
done
