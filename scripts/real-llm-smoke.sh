#!/usr/bin/env bash
# The smoke run against a real model: builds llama.cpp's llama-server once (cached outside the
# repository, in $HOTL_LLAMA_CACHE or ~/.cache/hotl-llama), fetches SmolLM2-135M, and runs the
# cases in crates/hotl/tests/real_llm.rs one at a time. Each case starts its own server at
# temperature 0 with the window it needs, bounds every hotl run with a timeout, and asserts
# structure (events, stop reasons, records, exit codes), never wording. The wire-level llama
# test (crates/hotl-wire/tests/llama.rs) runs first, against the server the script starts.
#
#   scripts/real-llm-smoke.sh            # ~10-20 min on a fresh machine (the build), a few cached
#
# .ci/run runs it when HOTL_REAL_LLM=1.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
started=$SECONDS
cd "$ROOT"
# llama-server.sh builds and fetches what is missing and sets HOTL_LLAMA_BIN, HOTL_LLAMA_GGUF
# and HOTL_LLAMA_TEMPLATE for the cases, which start servers of their own.
# The wire test talks to the server llama-server.sh started (HOTL_LLAMA_URL).
"$HERE/llama-server.sh" bash -c "
  set -e
  cargo nextest run --locked -p hotl-wire --test hotl-wire-tests -E 'test(/^llama::/)'
  cargo nextest run --locked -p hotl --test hotl-e2e --run-ignored only --test-threads 1 \\
    --no-fail-fast -E 'test(/^real_llm::/)'
"
echo "real-llm-smoke: passed in $((SECONDS - started)) s"
