#!/usr/bin/env python3
"""Progress on standard error (cli/progress.c), through a pseudo-terminal.

Usage: tests/progress.py   (PEGO, MKREPORT and srcdir from the environment)

pego parse of an input that takes more than a second (a JSON document parsed
with -memo all, doubled until its parse takes 3 s on this machine, and at
least 1.5 s on the terminal, whose run may find another load) must show, on
a terminal, lines "FILE: N MB of M MB (P%), R MB/s, S s left", each
rewritten in place ("\\r\\033[K" before it) and erased at the end; nothing on
a pipe, and nothing with -q on the terminal. The same for pego report over a
directory of report files ("reports: N of M files ..."), doubled so too.
Exit status 0, or 1 with the failed checks.
"""

import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import time

PEGO = os.environ.get("PEGO", "./pego")
MKREPORT = os.environ.get("MKREPORT", "./tests/mkreport")
SRCDIR = os.environ.get("srcdir", ".")
# seconds: three times the one second that progress waits for, so that the
# runs after the sizing one show progress even when the machine's load
# changes between them (with 1.6 s, a run of 1.8 s on a pipe once showed no
# line on the terminal run that followed)
LONG = 3.0

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def on_pipe(args):
    """Runs pego with standard error on a pipe: (stderr, seconds)."""
    t0 = time.monotonic()
    p = subprocess.run([PEGO] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return p.stderr, time.monotonic() - t0


def on_terminal(args):
    """Runs pego with standard error on a pseudo-terminal: what it wrote there."""
    return on_terminal_timed(args)[0]


def on_terminal_timed(args):
    """The same, with the seconds the run took and its exit status: (output,
    seconds, status)."""
    t0 = time.monotonic()
    master, slave = pty.openpty()
    p = subprocess.Popen([PEGO] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:   # EIO: the terminal's other side is closed
            break
        if not data:
            break
        out += data
    os.close(master)
    status = p.wait()
    return out, time.monotonic() - t0, status


def progress_checks(name, args, line_re, pipe_err, term):
    """The progress of pego ARGS on a terminal (term: what it wrote there, the
    seconds it took and its exit status) and with -q; pipe_err is what it
    wrote on a pipe."""
    out, seconds, status = term
    check(status == 0, name + ": exit status %d on the terminal, after %.1f s" % (status, seconds))
    out = out.decode(errors="replace")
    lines = out.split("\r\x1b[K")
    shown = [l for l in lines if l]
    print("%s on a terminal: %r" % (name, out[:300]))
    check(out.startswith("\r\x1b[K") and out.endswith("\r\x1b[K"), name + ": each line is rewritten in place and erased at the end")
    check(len(shown) >= 1 and all(re.fullmatch(line_re, l) for l in shown),
          name + ": %d progress lines, each as expected" % len(shown))
    check(pipe_err == b"", name + ": nothing on a pipe (%r)" % pipe_err[:100])
    check(on_terminal(args[:1] + ["-q"] + args[1:]) == b"",
          name + ": nothing with -q")


def main():
    tmp = tempfile.mkdtemp()
    try:
        # pego parse: double the input until the parse takes LONG seconds
        item = '{"a": [1, 2.5, "xyz", true, null], "b": "hello world"}'
        n = 65536
        term = (b"", 0.0, 0)
        while True:
            path = os.path.join(tmp, "input.json")
            with open(path, "w") as f:
                f.write("[" + ",".join([item] * n) + "]")
            args = ["parse", "-g", os.path.join(SRCDIR, "fixtures/json.pego"), "-memo", "all", "-f", "none", path]
            err, seconds = on_pipe(args)
            if err or n >= 1 << 22:
                break
            if seconds >= LONG:
                # the run on the terminal must last long enough too: the load
                # of the machine may change between the two runs
                term = on_terminal_timed(args)
                if term[1] >= LONG / 2:
                    break
            n *= 2
        check(err == b"" and seconds >= LONG and term[1] >= LONG / 2,
              "pego parse of %d bytes takes %.1f s, and %.1f s on the terminal"
              % (os.path.getsize(path), seconds, term[1]))
        num = r"[0-9.]+ (kB|MB|GB)"
        progress_checks("pego parse", args, re.escape(path) + r": %s of %s \([0-9]+%%\), %s/s(, [0-9]+ s left)?"
                        % (num, num, num), err, term)

        # pego report: double the reports until reading them takes LONG seconds
        reports = os.path.join(tmp, "reports")
        os.makedirs(os.path.join(reports, "a"))
        subprocess.run([MKREPORT, "--synthetic", "200", os.path.join(reports, "a")], check=True)
        copies = 0
        term = (b"", 0.0, 0)
        while True:
            args = ["report", reports]
            err, seconds = on_pipe(args)
            if err or copies >= 8:
                break
            if seconds >= LONG:
                term = on_terminal_timed(args)
                if term[1] >= LONG / 2:
                    break
            shutil.copytree(reports, reports + ".copy")
            shutil.move(reports + ".copy", os.path.join(reports, "copy%d" % copies))
            copies += 1
        check(err == b"" and seconds >= LONG and term[1] >= LONG / 2,
              "pego report of %d files takes %.1f s, and %.1f s on the terminal" % (200 << copies, seconds, term[1]))
        progress_checks("pego report", args, r"reports: [0-9]+ of %d files \([0-9]+%%\), [0-9]+ files/s(, [0-9]+ s left)?"
                        % (200 << copies), err, term)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("progress: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
