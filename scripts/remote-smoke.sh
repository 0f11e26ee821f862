#!/usr/bin/env bash
# The manual smoke run of the remote store against a real S3-compatible store (AWS S3,
# Cloudflare R2, MinIO, ...): two homes continue one session through it, sealed under a key
# made for the run, then search it and collect it; everything the run wrote is removed at
# the end. Nothing else under the URL is touched (the run works under a prefix of its own).
#
#   HOTL_TEST_S3_URL=s3://my-bucket/ci            required: a bucket you may write, and a prefix
#   HOTL_TEST_S3_ENDPOINT=https://...             R2 (https://ACCOUNT.r2.cloudflarestorage.com),
#                                                 MinIO (http://127.0.0.1:9000); unset for AWS
#   HOTL_TEST_S3_REGION=eu-west-1                 default: $AWS_REGION, else us-east-1 (R2: auto)
#   HOTL_TEST_S3_ALLOW_HTTP=1                     for a plain http:// endpoint
#   HOTL_TEST_S3_ACCESS_KEY_ID, HOTL_TEST_S3_SECRET_ACCESS_KEY
#                                                 default: the standard AWS variables
#
#   scripts/remote-smoke.sh
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$(dirname "$HERE")"
if [[ -z ${HOTL_TEST_S3_URL:-} ]]; then
  echo "remote-smoke: set HOTL_TEST_S3_URL=s3://bucket/prefix (see the top of this script)" >&2
  exit 2
fi
started=$SECONDS
cargo nextest run --locked -p hotl --test hotl-e2e --run-ignored only --no-fail-fast \
  -E 'test(/^remote::real_store::/)'
echo "remote-smoke: passed in $((SECONDS - started)) s"
