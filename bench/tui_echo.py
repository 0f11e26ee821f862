#!/usr/bin/env python3
"""Keystroke echo of hotl's terminal UI while an answer streams, measured on a pseudo-terminal:
the time from writing a key to the terminal until the key's glyph comes back in hotl's output.

Usage: tui_echo.py HOTL [ARGS...]   (hotl must answer a long, slow stream for any message)
Prints one line: the p50 and p99 of 26 keys (A..Z, which the stream never contains).
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
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(sys.argv[1], sys.argv[1:])
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

    deadline = time.monotonic() + 20
    while b"% ctx" not in seen and time.monotonic() < deadline:
        pump(0.1)
    os.write(fd, b"stream please\r")
    deadline = time.monotonic() + 5
    while b"Esc to interrupt" not in seen and time.monotonic() < deadline:
        pump(0.05)
    samples = []
    for key in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        glyph = bytes([key])
        start = time.monotonic()
        os.write(fd, glyph)
        while time.monotonic() - start < 2:
            chunk = pump(0.5, first=True)
            if glyph in chunk:
                samples.append((time.monotonic() - start) * 1000)
                break
        pump(0.03)
    os.kill(pid, 9)
    samples.sort()
    if not samples:
        print("  no key came back")
        return
    p50 = samples[len(samples) // 2]
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"  {len(samples)} keys: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {samples[-1]:.1f} ms")


if __name__ == "__main__":
    main()
