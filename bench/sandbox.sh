#!/usr/bin/env bash
# The sandbox's cost:
#   (a) setup per bash call: `true` run by the process that leads a command's group, with the
#       session's rules (Landlock, seccomp) and without, RUNS (default 200) times each,
#       interleaved; the median of each and their difference;
#   (b) a project's test suite: `cargo test` of one of this workspace's crates (built first),
#       led by the same group leader with the session's rules and without (as the bash tool
#       runs it: the rules are prepared once a session, not per call), TESTS (default 7) times
#       each, interleaved.
# BIN picks the binary's folder (default: a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
  cargo build --release -q -p hotl
  BIN="$PWD/target/release"
fi
RUNS=${RUNS:-200}
TESTS=${TESTS:-7}
CRATE=${CRATE:-hotl-log}
python3 - "$BIN/hotl" "$RUNS" "$TESTS" "$CRATE" <<'PY'
import json, os, statistics, subprocess, sys, time
hotl, runs, tests, crate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
project = os.getcwd()
# The rules a session here has, as `hotl sandbox check` computes them, passed the way the
# bash tool passes them.
def rules():
    out = subprocess.run([hotl, "sandbox", "run", "--", "sh", "-c", "true"], capture_output=True)
    assert out.returncode == 0, out.stderr
    return out
rules()
probe = subprocess.run(
    [hotl, "sandbox", "run", "--", "sh", "-c", "cat /proc/$PPID/cmdline"],
    capture_output=True, check=True).stdout.split(b"\0")
rules_json = probe[probe.index(b"--sandbox-rules") + 1].decode()
# The session's private temporary directory, which the bash tool passes as TMPDIR (the probe's
# is gone with its process): both arms get it.
tmpdir = json.loads(rules_json)["tmpdir"]
os.makedirs(tmpdir, exist_ok=True)
env = dict(os.environ, TMPDIR=tmpdir)
def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start
me = str(os.getpid())
plain = [hotl, "--reap-group", me, "--", "true"]
confined = [hotl, "--reap-group", me, "--sandbox-rules", rules_json, "--", "true"]
a, b = [], []
for _ in range(runs):
    a.append(timed(plain))
    b.append(timed(confined))
ma, mb = statistics.median(a) * 1000, statistics.median(b) * 1000
print(f"bash call setup, `true` ({runs} runs): unconfined {ma:.2f} ms, confined {mb:.2f} ms, "
      f"difference {mb - ma:.2f} ms (median)")
subprocess.run(["cargo", "test", "-q", "-p", crate, "--no-run"], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
test = ["cargo", "test", "-q", "--offline", "-p", crate]
a, b = [], []
for _ in range(tests):
    a.append(timed([hotl, "--reap-group", me, "--"] + test))
    b.append(timed([hotl, "--reap-group", me, "--sandbox-rules", rules_json, "--"] + test))
ma, mb = statistics.median(a), statistics.median(b)
print(f"cargo test -p {crate} ({tests} runs): unconfined {ma:.2f} s, confined {mb:.2f} s, "
      f"{(mb / ma - 1) * 100:+.1f}% (median)")
import shutil
shutil.rmtree(tmpdir, ignore_errors=True)
PY
