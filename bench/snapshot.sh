#!/usr/bin/env bash
# Working-tree snapshot benchmark outside git (numbers, not assertions; see docs/performance.md,
# "Working-tree snapshots"): a content-hash manifest of 5,000 small files, taken first (every
# file stored as a blob), again unchanged (the stat cache answers), after touching 10 files,
# and with an empty cache over blobs already stored. Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
for i in 1 2 3; do
  cargo test --release -q -p hotl-agent --test hotl-agent-tests take_timings_on_5000_files \
    -- --ignored --nocapture 2>/dev/null | grep "take on"
done
