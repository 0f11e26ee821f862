#!/usr/bin/env python3
"""Context economy side by side: hotl, pi, Claude Code and codex run the same scripted tasks
against hotl-fakellm, and each agent's captured requests are replayed, in order, into one
fresh fake to read what its cache simulation bills them (it is deterministic in the request
sequence). Prints one table per task: requests, request bytes, input, cache reads, cache
writes, fresh-token equivalents (input + 1.25 x writes + 0.1 x reads) and the ratio to hotl.

Usage: bench/peers/run.py [--agents hotl,pi,claude,codex] [--tasks ...] [--npm DIR] [--out DIR]

The peers come from `bench/peers/install.sh` (npm, into a scratch prefix); a peer that is not
installed is left out of the tables and said so. Nothing here runs in CI.
"""

import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODEL = "claude-sonnet-4-5"
CODEX_MODEL = "fake-model"
NOTE = (
    "changed: nothing (a read-only investigation)\n"
    "learned: every step's output was long and routine; caveat: nothing failed\n"
    "decided and rejected: kept the defaults, rejected a rerun\n"
    "open: none\n"
    "where: the episode's shell output"
)
DETAIL = "DETAIL-ZEBRA-42"


# --- the tasks ---------------------------------------------------------------------------


@dataclass
class Step:
    """One shell command a scripted model runs."""

    marker: str
    command: str


@dataclass
class Invocation:
    """One run of the agent: a prompt, new or resumed, and what the scripted model does."""

    tag: str
    prompt: str
    resume: bool
    steps: list = field(default_factory=list)
    answer: str = "Done."
    fold: bool = False  # hotl with folds: fold the episode before answering
    recall: bool = False  # hotl: find the answer with recall


def filler(width):
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    out = []
    i = 0
    while len(" ".join(out)) < width:
        out.append(words[i % len(words)] + str(i % 7))
        i += 1
    return " ".join(out)[:width]


# Each output shape is an awk program printing what a kind of command prints; `tag` keeps the
# outputs of different steps apart, and a detail line, when asked for, goes in the middle (where
# a head-and-tail cap would leave it out).


def shape_lines(tag, lines, width):
    """`lines` lines of about `width` characters (the original long shapes)."""
    text = filler(width)
    return f"awk 'BEGIN{{for(i=1;i<={lines};i++) printf \"{tag} line %d {text}\\n\", i}}'"


def shape_oneline(tag, items, width=30):
    """One line of `items` items of `width` characters and a counter: a minified file."""
    text = filler(width)
    return f"awk 'BEGIN{{for(i=1;i<={items};i++) printf \"{tag} item %d {text}; \", i; print \"\"}}'"


def shape_tap(tag, lines):
    """A test runner's terse output: `pass N` a line (350 lines are about 3 KB), a summary."""
    return f"awk 'BEGIN{{for(i=1;i<={lines};i++) printf \"pass %d\\n\", i; print \"{tag} {lines} passed\"}}'"


def shape_tests(tag, lines):
    """cargo test's verbose output: `test module::case ... ok`, about 40 characters a line."""
    return (f"awk 'BEGIN{{print \"running {lines} tests\"; for(i=1;i<={lines};i++) "
            f"printf \"test {tag.lower()}::checks::case_%d ... ok\\n\", i; "
            f"print \"test result: ok. {lines} passed; 0 failed\"}}'")


def shape_compiler(tag, diagnostics):
    """A compiler's warnings: few lines, some of them long (a source line, a note)."""
    code = filler(220)
    note = filler(160)
    return (f"awk 'BEGIN{{for(i=1;i<={diagnostics};i++) {{ "
            f"printf \"warning: unused variable `v%d` in {tag}\\n  --> src/{tag.lower()}/mod.rs:%d:9\\n\", i, i*17; "
            f"printf \"   | let v%d = {code};\\n\", i; "
            f"printf \"   = note: {note}\\n\" }}; print \"warning: {tag} generated {diagnostics} warnings\"}}'")


def shape_small(tag):
    """A small output: a few lines of status."""
    return f"printf 'On branch main\\n{tag}: nothing to commit, working tree clean\\n'"


SHAPES = {
    # name: a command printing that shape, given the step's tag. The first three are the
    # original long shapes (28-31 KB, over the output cap): 700 x 40 ~ 350 x 80 ~ 1 x 28,000.
    "700": lambda tag: shape_lines(tag, 700, 30),
    "350": lambda tag: shape_lines(tag, 350, 70),
    "oneline": lambda tag: shape_oneline(tag, 700, 0),
    # Ordinary outputs, most under the cap.
    "tap350": lambda tag: shape_tap(tag, 350),
    "line3000": lambda tag: shape_oneline(tag, 68),
    "tests50": lambda tag: shape_tests(tag, 50),
    "tests120": lambda tag: shape_tests(tag, 120),
    "tests400": lambda tag: shape_tests(tag, 400),
    "compiler": lambda tag: shape_compiler(tag, 6),
    "minified": lambda tag: shape_oneline(tag, 500),
    "small": shape_small,
    # The original long task's outputs: 200 lines of 60 characters (12 KB).
    "200x60": lambda tag: shape_lines(tag, 200, 60),
}

# A task's mix of ordinary shapes, as real work prints them: test runners (50 to 400 short
# lines), a compiler's few long lines, a minified file's one huge line, small outputs, and one
# of the original 28 KB outputs.
MIXED = ["small", "tap350", "compiler", "tests120", "line3000", "tap350", "tests50", "700",
         "tap350", "minified", "tests400", "small"]
# An episode of the mixed long task: eight steps, most outputs about 3 KB, none over 5 KB.
EPISODE = ["small", "tap350", "compiler", "tap350", "line3000", "tests120", "tap350", "tests50"]


def output_command(tag, shape, detail=False):
    """A step printing `shape` between two markers (so a head or a tail kept by any agent's
    output cap still holds one); `detail` puts the detail line in the middle of the output."""
    mark = f"STEP-{tag}-MARK"
    body = SHAPES[shape](tag)
    if detail:
        # The same output with the detail line in its middle. The line is written encoded, so
        # that the command (which stays in every agent's context) does not give it away.
        line = base64.b64encode(f"the detail code is {DETAIL}".encode()).decode()
        body = (f"d=$(echo {line} | base64 -d); {{ {body}; }} | "
                f"awk -v d=\"$d\" 'NR==int(n/2){{print d}} {{print}}' n=$({body} | wc -l)")
    return Step(mark, f"echo {mark}; {body}; echo {mark}")


def twelve_step(shapes, fold):
    steps = [output_command(f"T{k}", shapes[(k - 1) % len(shapes)]) for k in range(1, 13)]
    out = [
        Invocation(
            "task",
            "[TASK] Run the twelve build checks one by one and tell me whether they pass.",
            False,
            steps,
            "All twelve checks ran; they pass.",
            fold=fold,
        )
    ]
    for q in range(1, 4):
        out.append(
            Invocation(f"q{q}", f"[Q{q}] Question {q} about the checks: anything odd?", True, [], f"Answer {q}: nothing odd.")
        )
    return out


def long_task(fold, episodes=4, shapes=("700x200",), detail_step=3, questions=2, recall_inline=False):
    out = []
    for e in range(1, episodes + 1):
        steps = [
            output_command(f"E{e}S{k}", shapes[(k - 1) % len(shapes)], detail=(e == 1 and k == detail_step))
            for k in range(1, len(shapes) + 1)
        ]
        out.append(
            Invocation(
                f"e{e}",
                f"[E{e}] Episode {e}: run the {len(steps)} diagnostics for subsystem {e} and summarise.",
                e > 1,
                steps,
                f"Subsystem {e}: all {len(steps)} diagnostics ran clean.",
                fold=fold,
            )
        )
        for q in range(1, questions + 1):
            out.append(
                Invocation(
                    f"e{e}q{q}",
                    f"[E{e}Q{q}] About subsystem {e}: question {q}?",
                    True,
                    [],
                    f"Subsystem {e}, answer {q}: as summarised.",
                )
            )
    out.append(
        Invocation(
            "final",
            "[FINAL] What was the detail code printed during the first episode?",
            True,
            [],
            f"It was {DETAIL}.",
            recall=fold or recall_inline,
        )
    )
    return out


TASKS = {
    # The original tasks: every output 12-31 KB, over the cap.
    "12step-700": lambda fold: twelve_step(["700"], fold),
    "12step-350": lambda fold: twelve_step(["350"], fold),
    "12step-oneline": lambda fold: twelve_step(["oneline"], fold),
    "long": lambda fold: long_task(fold, 4, ["200x60"] * 10, 3, recall_inline=True),
    # Ordinary outputs: 350 short lines (2.7 KB), one 3,000-character line, a mix.
    "12step-tap350": lambda fold: twelve_step(["tap350"], fold),
    "12step-line3000": lambda fold: twelve_step(["line3000"], fold),
    "12step-mixed": lambda fold: twelve_step(MIXED, fold),
    # Outputs all under the cap (cargo test's 50 lines, 2 KB): sent whole, as every agent does.
    "12step-tests50": lambda fold: twelve_step(["tests50"], fold),
    # Three episodes of eight mixed steps, two questions after each, then a question only a
    # line in the middle of episode 1's second output answers (hotl, inline too, finds it with
    # recall: its output cap left that line out of the context).
    "long-mixed": lambda fold: long_task(fold, 3, EPISODE, 2, recall_inline=True),
}


# --- the agents --------------------------------------------------------------------------


@dataclass
class Agent:
    name: str
    shell: str  # its shell tool, as its requests name it
    arg: str  # the tool's command argument
    dialect: str  # anthropic or responses
    folds: bool = False


AGENTS = {
    "hotl": Agent("hotl", "bash", "command", "anthropic"),
    "hotl+folds": Agent("hotl+folds", "bash", "command", "anthropic", folds=True),
    "pi": Agent("pi", "bash", "command", "anthropic"),
    "claude": Agent("claude", "Bash", "command", "anthropic"),
    "codex": Agent("codex", "exec_command", "cmd", "responses"),
}


def script_for(agent, inv, since):
    """The fake's script for one invocation: each reply matched on what the request before it
    ended with (the prompt, a step's marker), so side requests a peer makes (titles, counts)
    are answered by the catch-all and never take a step's reply."""
    entries = []
    previous = inv.prompt.split("]")[0] + "]"
    for step in inv.steps:
        entries.append({"match": previous, "tools": [{"name": agent.shell, "input": {agent.arg: step.command}}]})
        previous = step.marker
    if inv.fold and agent.folds:
        entries.append({"match": previous, "tools": [{"name": "fold", "input": {"since": f"t{since}", "note": NOTE}}]})
        entries.append({"text": inv.answer})
    elif inv.recall and agent.name.startswith("hotl"):
        entries.append({"match": previous, "tools": [{"name": "recall", "input": {"query": DETAIL}}]})
        entries.append({"match": DETAIL, "text": inv.answer})
    else:
        entries.append({"match": previous, "text": inv.answer})
    entries.append({"text": "ok", "repeat": True})
    return "\n".join(json.dumps(e) for e in entries) + "\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Fake:
    def __init__(self, binary, port, script=None, capture=None, seed=0):
        args = [str(binary), "serve", "--port", str(port), "--id-seed", str(seed)]
        if script:
            args += ["--script", str(script)]
        if capture:
            args += ["--capture", str(capture)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("hotl-fakellm did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


class Runner:
    """Runs one agent through one task in a scratch home and project."""

    def __init__(self, agent, npm, hotl, fake, port, scratch):
        self.agent = agent
        self.npm = npm
        self.hotl = hotl
        self.fake_bin = fake
        self.port = port
        self.scratch = scratch
        self.home = scratch / "home"
        self.project = scratch / "project"
        self.home.mkdir(parents=True)
        self.project.mkdir(parents=True)
        self.url = f"http://127.0.0.1:{port}"
        self.configure()

    def configure(self):
        name = self.agent.name
        if name == "pi":
            pi = self.home / "pi"
            pi.mkdir()
            (pi / "models.json").write_text(json.dumps({"providers": {"fake-anthropic": {
                "baseUrl": self.url, "api": "anthropic-messages", "apiKey": "FAKE_API_KEY",
                "models": [{"id": MODEL, "contextWindow": 200000, "maxTokens": 8192}]}}}))
            (pi / "settings.json").write_text(json.dumps({
                "defaultProvider": "fake-anthropic", "defaultModel": MODEL,
                "enableInstallTelemetry": False, "quietStartup": True,
                "retry": {"enabled": False, "provider": {"maxRetries": 0}}}))
        elif name == "codex":
            codex = self.home / "codex"
            codex.mkdir()
            (codex / "config.toml").write_text(
                f'model = "{CODEX_MODEL}"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n'
                f'[model_providers.fake]\nname = "fake"\nbase_url = "{self.url}/v1"\nenv_key = "FAKE_API_KEY"\n'
                'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n'
                "[features]\nplugins = false\n[analytics]\nenabled = false\n[feedback]\nenabled = false\n")

    def env(self):
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("HOTL_")}
        env["HOME"] = str(self.home)
        env["PATH"] = f"{self.npm}/node_modules/.bin:{env.get('PATH', '')}"
        name = self.agent.name
        if name.startswith("hotl"):
            env["HOTL_HOME"] = str(self.home / "hotl")
            env["XDG_CONFIG_HOME"] = str(self.home / "config")
        elif name == "claude":
            env.update({
                "CLAUDE_CONFIG_DIR": str(self.home / ".claude"), "ANTHROPIC_BASE_URL": self.url,
                "ANTHROPIC_API_KEY": "sk-dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0"})
        elif name == "pi":
            env.update({"PI_CODING_AGENT_DIR": str(self.home / "pi"), "FAKE_API_KEY": "sk-dummy", "PI_OFFLINE": "1"})
        elif name == "codex":
            env.update({"CODEX_HOME": str(self.home / "codex"), "FAKE_API_KEY": "sk-dummy"})
        return env

    def command(self, inv):
        name = self.agent.name
        if name.startswith("hotl"):
            cmd = [str(self.hotl), "--provider", "anthropic", "--base-url", self.url, "--model", MODEL,
                   "--allow", "bash", "-p", inv.prompt]
            return cmd[:1] + (["-r", "@last"] if inv.resume else []) + cmd[1:]
        if name == "claude":
            return ["claude"] + (["-c"] if inv.resume else []) + ["--model", MODEL, "--allowedTools", "Bash", "-p", inv.prompt]
        if name == "pi":
            return ["pi"] + (["-c"] if inv.resume else []) + ["-p", inv.prompt]
        if name == "codex":
            flags = ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
            if inv.resume:
                return ["codex", "exec", "resume", "--last"] + flags + [inv.prompt]
            return ["codex", "exec"] + flags + [inv.prompt]
        raise ValueError(name)

    def hotl_last_seq(self):
        sessions = self.home / "hotl" / "sessions"
        logs = sorted(sessions.glob("*.jsonl"), key=lambda p: p.stat().st_mtime) if sessions.is_dir() else []
        if not logs:
            return 1
        last = logs[-1].read_text().strip().splitlines()[-1]
        return json.loads(last)["seq"]

    def run(self, task):
        captures = []
        for n, inv in enumerate(task):
            since = self.hotl_last_seq() + 2 if self.agent.folds else 0
            script = self.scratch / f"script-{n:02}.jsonl"
            script.write_text(script_for(self.agent, inv, since))
            capture = self.scratch / f"capture-{n:02}"
            fake = Fake(self.fake_bin, self.port, script, capture, seed=n + 1)
            try:
                done = subprocess.run(self.command(inv), cwd=self.project, env=self.env(),
                                      stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
            finally:
                fake.stop()
            if done.returncode != 0:
                sys.stderr.write(f"{self.agent.name} {inv.tag}: exit {done.returncode}\n{done.stderr[-2000:]}\n")
            captures.append(capture)
        return captures


# --- billing -------------------------------------------------------------------------------


def generation_files(captures):
    files = []
    for capture in captures:
        if capture.is_dir():
            files += sorted(p for p in capture.iterdir() if p.name.endswith(("-messages.json", "-responses.json")))
    return files


def replay(fake_bin, files):
    """What a fresh fake bills each captured request, replayed in order."""
    port = free_port()
    fake = Fake(fake_bin, port)
    totals = {"requests": 0, "bytes": 0, "input": 0, "cache_read": 0, "cache_write": 0}
    bodies = []
    try:
        for path in files:
            body = path.read_bytes()
            bodies.append(body)
            endpoint = "/v1/messages" if path.name.endswith("-messages.json") else "/v1/responses"
            req = urllib.request.Request(fake.url + endpoint, data=body, method="POST", headers={
                "content-type": "application/json", "x-api-key": "k", "authorization": "Bearer k",
                "anthropic-version": "2023-06-01"})
            with urllib.request.urlopen(req, timeout=60) as resp:
                text = resp.read().decode()
            usage = usage_of(text)
            totals["requests"] += 1
            totals["bytes"] += len(body)
            for key in ("input", "cache_read", "cache_write"):
                totals[key] += usage[key]
    finally:
        fake.stop()
    totals["fresh"] = totals["input"] + 1.25 * totals["cache_write"] + 0.1 * totals["cache_read"]
    return totals, bodies


def blocks_of(body):
    """A request's prefix as the cache sees it: system and tools, then each message block
    (with its role), markers left out."""
    req = json.loads(body)

    def clean(v):
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items() if k != "cache_control"}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v

    out = [json.dumps(clean([req.get("system"), req.get("tools")]), sort_keys=True)]
    for m in req.get("messages", []):
        content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
        out += [m["role"] + json.dumps(clean(b), sort_keys=True) for b in content]
    return out


def prefix_breaks(bodies):
    """Requests that do not extend the one before them, except the first after a fold or a
    compaction (which rewrites the prefix on purpose): each one is a cache write of what
    was already written."""
    breaks = 0
    previous = None
    for body in bodies:
        if b'"messages"' not in body:
            continue
        blocks = blocks_of(body)
        if previous is not None and blocks[: len(previous)] != previous:
            text, before = "".join(blocks), "".join(previous)
            collapsed = any(text.count(tag) > before.count(tag) for tag in ("<folded", "<compacted"))
            if not collapsed:
                breaks += 1
        previous = blocks
    return breaks


def usage_of(sse):
    usage = {"input": 0, "cache_read": 0, "cache_write": 0}
    for line in sse.splitlines():
        if not line.startswith("data: "):
            continue
        try:
            event = json.loads(line[6:])
        except json.JSONDecodeError:
            continue
        kind = event.get("type")
        if kind == "message_start":
            u = event["message"]["usage"]
            usage = {"input": u.get("input_tokens", 0), "cache_read": u.get("cache_read_input_tokens", 0) or 0,
                     "cache_write": u.get("cache_creation_input_tokens", 0) or 0}
        elif kind == "response.completed":
            u = event["response"]["usage"]
            cached = (u.get("input_tokens_details") or {}).get("cached_tokens", 0)
            usage = {"input": u["input_tokens"] - cached, "cache_read": cached, "cache_write": 0}
    return usage


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", default="hotl,hotl+folds,pi,claude,codex")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--npm", default=os.environ.get("HOTL_PEERS_NPM", "/tmp/hotl-peers/npm"))
    parser.add_argument("--out", default=None, help="keep the scratch directories here")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    parser.add_argument("--no-build", action="store_true", help="use the release binaries as built")
    parser.add_argument("--bin-dir", default=None, help="take hotl and hotl-fakellm from here (no build)")
    parser.add_argument("--results", default=None, help="a JSON file of earlier rows: read, then "
                        "written back with this run's rows in place (so peers need running once)")
    args = parser.parse_args()
    release = Path(args.bin_dir or Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release")
    hotl, fake_bin = release / "hotl", release / "hotl-fakellm"
    if not args.no_build and not args.bin_dir:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "hotl", "-p", "hotl-fakellm"], cwd=ROOT, check=True)
    npm = Path(args.npm)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="hotl-peers-"))
    saved = Path(args.results) if args.results else None
    results = json.loads(saved.read_text()) if saved and saved.exists() else {}
    for task_name in args.tasks.split(","):
        results.setdefault(task_name, {})
        for agent_name in args.agents.split(","):
            agent = AGENTS[agent_name]
            binary = {"pi": "pi", "claude": "claude", "codex": "codex"}.get(agent_name)
            if binary and not (npm / "node_modules" / ".bin" / binary).exists():
                sys.stderr.write(f"{agent_name} is not installed under {npm}: bench/peers/install.sh\n")
                continue
            scratch = out / task_name / agent_name.replace("+", "-")
            if scratch.exists():
                shutil.rmtree(scratch)
            runner = Runner(agent, npm, hotl, fake_bin, free_port(), scratch)
            started = time.time()
            captures = runner.run(TASKS[task_name](agent.folds))
            totals, bodies = replay(fake_bin, generation_files(captures))
            totals["seconds"] = round(time.time() - started, 1)
            if task_name.startswith("long"):
                # The final question's detail reached the model: in its last request (for
                # hotl with folds, the one after the recall call).
                totals["detail_reached"] = bool(bodies) and DETAIL.encode() in bodies[-1]
            if agent_name.startswith("hotl"):
                totals["prefix_breaks"] = prefix_breaks(bodies)
            results[task_name][agent_name] = totals
            if saved:
                saved.write_text(json.dumps(results, indent=2) + "\n")
        print_table(task_name, results[task_name])
    print_targets({t: results[t] for t in args.tasks.split(",")})
    if args.json:
        print(json.dumps(results, indent=2))
    print(f"scratch: {out}", file=sys.stderr)


def print_table(task, rows):
    """One table for the Anthropic dialect (hotl, pi, Claude Code: the same cache rules), and
    codex beside it in its own (the Responses dialect bills by OpenAI's cache rules). Ratios
    are to pi's bill, the targets' yardstick."""
    base = rows.get("pi", {}).get("fresh")
    order = [n for n in AGENTS if n in rows]
    groups = [
        ("Anthropic dialect", [n for n in order if AGENTS[n].dialect == "anthropic"]),
        ("Responses dialect (OpenAI cache rules; not comparable)", [n for n in order if AGENTS[n].dialect == "responses"]),
    ]
    for title, names in groups:
        if not names:
            continue
        print(f"\n## {task}: {title}\n")
        print("| agent | requests | request KB | input | cache read | cache write | fresh eq | vs pi | prefix breaks |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in names:
            t = rows[name]
            ratio = f"{t['fresh'] / base:.2f}" if base else "-"
            note = "" if t.get("detail_reached", True) else " (final detail not in its last request)"
            print(f"| {name}{note} | {t['requests']} | {t['bytes'] / 1024:.0f} | {t['input']:,} | {t['cache_read']:,} "
                  f"| {t['cache_write']:,} | {t['fresh']:,.0f} | {ratio} | {t.get('prefix_breaks', '')} |")


# The targets, as fractions of pi's bill: (inline, with folds).
TARGETS = {"long": (0.70, 0.40), "12step": (1.00, 0.85)}


def print_targets(results):
    """hotl's ratios to pi against the targets, a line a task."""
    print("\n## Targets (hotl / pi)\n")
    print("| task | inline | target | with folds | target |")
    print("|---|---:|---:|---:|---:|")
    for task, rows in results.items():
        pi = rows.get("pi", {}).get("fresh")
        if not pi or "hotl" not in rows or "hotl+folds" not in rows:
            continue
        inline, folds = TARGETS[task.split("-")[0]]
        a, b = rows["hotl"]["fresh"] / pi, rows["hotl+folds"]["fresh"] / pi
        mark = lambda v, t: f"{v:.2f}" + ("" if v <= t else " (missed)")
        print(f"| {task} | {mark(a, inline)} | {inline:.2f} | {mark(b, folds)} | {folds:.2f} |")


if __name__ == "__main__":
    main()
