#!/usr/bin/env python3
"""Typing latency in hotl's resume picker while it searches every session's text, measured on
a pseudo-terminal: the time from writing a key to the terminal until the key's glyph comes back
in hotl's output (the picker's filter line). Each key starts a search of the session index
beside the UI's loop (one at a time), so later keys land while a search runs.

Usage: picker_echo.py QUERIES_FILE HOTL [ARGS...]
  QUERIES_FILE: one query per line; each is typed into a fresh /resume picker, key by key.
Prints the p50, p99 and max over every key typed, and how many keys there were.
"""
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time


def main() -> None:
    queries = [q.strip() for q in open(sys.argv[1]) if q.strip()]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.argv[2], sys.argv[2:])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = bytearray()

    def pump(timeout: float, first: bool = False) -> bytes:
        got = bytearray()
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                break
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if b"\x1b[6n" in chunk:
                os.write(fd, b"\x1b[40;1R")
            got += chunk
            if first:
                break
        seen.extend(got)
        return bytes(got)

    def wait_for(text: bytes, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in seen:
                return True
            pump(0.05)
        return text in seen

    if not wait_for(b"% ctx", 30):
        print("  hotl did not start")
        os.kill(pid, 9)
        return
    samples = []
    for query in queries:
        seen.clear()
        os.write(fd, b"/resume\r")
        if not wait_for(b"resume a session", 10):
            print("  the picker did not open")
            break
        pump(0.2)
        for ch in query:
            glyph = ch.encode()
            start = time.monotonic()
            os.write(fd, glyph)
            while time.monotonic() - start < 2:
                chunk = pump(0.5, first=True)
                if glyph in chunk:
                    samples.append((time.monotonic() - start) * 1000)
                    break
        # Let the last search end, then close the picker.
        pump(1.0)
        os.write(fd, b"\x1b")
        pump(0.3)
    os.kill(pid, 9)
    samples.sort()
    if not samples:
        print("  no key came back")
        return
    p50 = samples[len(samples) // 2]
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(
        f"  {len(samples)} keys: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {samples[-1]:.1f} ms"
    )


if __name__ == "__main__":
    main()
