#!/usr/bin/env python3
"""Command-line golden tests for pego.

Usage: tests/golden.py [-k SUBSTRING] [-v] [CASE_OR_DIR...]

Environment:
  PEGO    the pego binary to test (default ./pego, relative to the current directory)
  srcdir  the source directory (default: the repository root, the parent of tests/)

What runs:
  1. every tests/golden/<area>/<name>.case file (or the files and directories given);
  2. every fixture: for each grammar fixtures/<g>.pego and each input fixtures/<g>/<input>
     (any file not ending in .sexpr or .json), the golden files <input>.sexpr and
     <input>.json next to it.  The .sexpr file is in the golden format of docs/language.md
     1.13.4 (the S-expression and a newline, or "error: TEXT" and a newline); the .json
     file holds the indented JSON print form, or "error: TEXT" for an input that fails.
     Each golden file is one test, named fixtures/<g>/<input>.sexpr (or .json); it runs
     `pego parse -g $srcdir/fixtures/<g>.pego [-f sexpr]` with the input on standard
     input and expects the tree on stdout and status 0, or for "error: TEXT" nothing on
     stdout, "pego: TEXT" on stderr and status 1.  A golden file holding a tree followed
     by a line "error: TEXT" (and possibly more lines: recovered errors, Tier 4) expects
     the tree on stdout, "pego: TEXT..." on stderr and status 1.  Fixtures are skipped
     when case files or directories are named on the command line.

Case file format (one case per file; see also tests/golden/README.md):

  A case is a sequence of sections.  A section starts with a header line
      -- NAME --          or          -- NAME ARGUMENT --
  and its content is every line up to the next header line (or the end of the file).
  Text before the first header is a free-form description.  Sections:

  grammar       grammar text, written byte for byte to g.pego in the case's temporary
                directory, which is the working directory of pego: so `-g g.pego` in
                args names it and error messages read `pego: g.pego:1:5: ...`.
  grammar-file  one line: a path relative to srcdir (e.g. fixtures/json.pego), copied
                to g.pego in the same way.
  args          required.  One line, split like a POSIX shell command line (shlex): the
                arguments after the program name, e.g. `parse -g g.pego -f sexpr`.
                `{srcdir}` is replaced by the source directory.
  input         standard input: the content with its one final line feed removed (so a
                one-line section gives a line without LF).  End the section with an
                empty line to give input that ends in LF.  No input section: empty stdin.
  input-expr    standard input given by a Python expression (str is encoded as UTF-8,
                bytes are used as they are), for exact bytes: "a\\r\\nb", b"\\xff",
                "(" * 200000.  Only literals and operators; no builtins.
  file NAME     an extra file NAME in the temporary directory (e.g. an input file given
                as an operand); content as for input (final LF removed).
  file-expr NAME  the same, with the content given by a Python expression.
  stdout        expected standard output, byte for byte including the final LF of the
                section's last line.  Default: empty.
  stdout-expr   expected standard output as a Python expression.
  stderr        expected standard error, as stdout.  Default: empty.
  stderr-expr   expected standard error as a Python expression.
  stderr-re     a Python regular expression the whole of standard error must match
                (re.fullmatch, DOTALL), for messages whose wording is not specified.
  status        expected exit status (an integer).  Default: 0.
  mask          regular expressions, one per line, for output that varies between runs
                (times): every match (re.MULTILINE) in the actual and in the expected
                standard output and error is replaced by "*" before they are compared,
                in the order given.
  json          one line, "lines" or "document": standard output (before masking) must
                parse as JSON, one value per line or as one value.
  input-file    one line: standard input is the file of that name in the temporary
                directory (written by a file section or by setup), opened as a shell's
                `< NAME` opens it, so pego sees a regular file.  Excludes input.
  stdout-to     one line: a path (e.g. /dev/full) pego's standard output is opened on,
                as a shell's `> PATH` opens it; nothing of it is captured, so the
                expected standard output is empty.
  setup         a shell script (sh -e) run in the temporary directory after the files
                are written and before pego runs, e.g. to build report files with
                tests/mkreport.  Its environment adds PEGO (the pego binary), MKREPORT
                (the environment's MKREPORT, else tests/mkreport beside pego) and srcdir.
                A script that fails makes the case fail with its standard error.

The runner prints one FAIL line per failing test followed by a unified diff of each
stream that differs, and finally exactly "N passed, N failed"; it exits 1 if any test
failed.
"""

import argparse
import contextlib
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HEADER = re.compile(r"^-- ([a-z][a-z0-9-]*)(?: (\S+))? --$")
TEXT_SECTIONS = {"grammar", "input", "stdout", "stderr", "file", "mask", "setup"}
ONE_LINE_SECTIONS = {"grammar-file", "args", "status", "stderr-re", "json", "input-file", "stdout-to"}
EXPR_SECTIONS = {"input-expr", "stdout-expr", "stderr-expr", "file-expr"}
WITH_ARGUMENT = {"file", "file-expr"}
TIMEOUT = 120


class CaseError(Exception):
    """A malformed case file."""


def evaluate(expr, where):
    """Evaluates a Python expression of literals and operators to bytes."""
    try:
        value = eval(compile(expr, where, "eval"), {"__builtins__": {}}, {})
    except Exception as exc:  # noqa: BLE001 - reported as a case error
        raise CaseError(f"{where}: cannot evaluate expression: {exc}") from exc
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, bytes):
        return value
    raise CaseError(f"{where}: expression must give str or bytes, not {type(value).__name__}")


def strip_final_lf(text):
    return text[:-1] if text.endswith(b"\n") else text


def parse_case(path):
    """Reads a case file into a dict of sections (bytes values, files as a list)."""
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    sections = []
    current = None
    for line in lines:
        header = HEADER.match(line.rstrip(b"\r\n").decode("utf-8", "surrogateescape"))
        if header:
            current = [header.group(1), header.group(2), b""]
            sections.append(current)
        elif current is not None:
            current[2] += line
    case = {"files": []}
    for name, argument, content in sections:
        where = f"{path}: section {name}"
        if name not in TEXT_SECTIONS | ONE_LINE_SECTIONS | EXPR_SECTIONS:
            raise CaseError(f"{where}: unknown section")
        if (argument is not None) != (name in WITH_ARGUMENT):
            raise CaseError(f"{where}: {'missing' if argument is None else 'unexpected'} argument")
        if name in ONE_LINE_SECTIONS:
            value = content.decode("utf-8").strip()
        elif name in EXPR_SECTIONS:
            value = evaluate(content.decode("utf-8"), where)
        elif name in ("input", "file"):
            value = strip_final_lf(content)
        else:
            value = content
        key = name[:-5] if name.endswith("-expr") else name
        if key == "file":
            case["files"].append((argument, value))
            continue
        if key in case:
            raise CaseError(f"{where}: given twice")
        case[key] = value
    if "args" not in case:
        raise CaseError(f"{path}: no args section")
    if "grammar" in case and "grammar-file" in case:
        raise CaseError(f"{path}: both grammar and grammar-file")
    if "input" in case and "input-file" in case:
        raise CaseError(f"{path}: both input and input-file")
    if "stdout" in case and "stdout-to" in case:
        raise CaseError(f"{path}: both stdout and stdout-to")
    if "mask" in case:
        try:
            case["mask"] = [re.compile(line, re.MULTILINE)
                            for line in case["mask"].decode("utf-8").splitlines() if line]
        except re.error as exc:
            raise CaseError(f"{path}: bad mask: {exc}") from exc
    if case.get("json", "lines") not in ("lines", "document"):
        raise CaseError(f"{path}: json must be lines or document")
    try:
        case["status"] = int(case.get("status", "0"))
    except ValueError as exc:
        raise CaseError(f"{path}: status is not an integer") from exc
    return case


def run_pego(pego, args, stdin, cwd, stdin_file=None, stdout_to=None):
    """Runs pego with the bytes stdin, or the file stdin_file, as standard input, and
    its standard output captured, or opened on stdout_to (then b"" stands for it)."""
    try:
        with contextlib.ExitStack() as files:
            fin = files.enter_context(open(stdin_file, "rb")) if stdin_file else None
            fout = files.enter_context(open(stdout_to, "wb")) if stdout_to else subprocess.PIPE
            proc = subprocess.run([pego] + args, input=None if fin else stdin, stdin=fin, stdout=fout,
                                  stderr=subprocess.PIPE, cwd=cwd, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {TIMEOUT} s".encode(), -1
    except OSError as exc:
        return None, b"", f"cannot run {pego}: {exc}".encode(), -1
    return proc, proc.stdout or b"", proc.stderr, proc.returncode


def show(data):
    return data.decode("utf-8", "backslashreplace").splitlines(keepends=True)


def diff(label, expected, actual):
    lines = difflib.unified_diff(show(expected), show(actual), f"expected {label}",
                                 f"actual {label}")
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end\n")
    return "".join(out)


def json_problem(kind, stdout):
    """Why stdout is not JSON of the given kind ("lines" or "document"), or None."""
    text = stdout.decode("utf-8", "replace")
    for i, value in enumerate(text.splitlines() if kind == "lines" else [text]):
        try:
            json.loads(value)
        except ValueError as exc:
            return f"stdout is not JSON {kind} ({'line %d: ' % (i + 1) if kind == 'lines' else ''}{exc})\n"
    return None


def masked(data, masks):
    """data with every match of each mask replaced by "*"."""
    text = data.decode("utf-8", "surrogateescape")
    for mask in masks:
        text = mask.sub("*", text)
    return text.encode("utf-8", "surrogateescape")


def check(name, expect, stdout, stderr, status):
    """Compares one run with the expectations; returns a report or None."""
    report = []
    if "json" in expect:
        problem = json_problem(expect["json"], stdout)
        if problem:
            report.append(problem)
    masks = expect.get("mask", [])
    if masks:
        stdout, stderr = masked(stdout, masks), masked(stderr, masks)
        expect = dict(expect)
        for key in ("stdout", "stderr"):
            if key in expect:
                expect[key] = masked(expect[key], masks)
    if stdout != expect.get("stdout", b""):
        report.append(diff("stdout", expect.get("stdout", b""), stdout))
    if "stderr-re" in expect:
        if not re.fullmatch(expect["stderr-re"], stderr.decode("utf-8", "replace"), re.DOTALL):
            report.append(f"stderr does not match /{expect['stderr-re']}/:\n"
                          + "".join("  " + line for line in show(stderr)) + "\n")
    elif stderr != expect.get("stderr", b""):
        report.append(diff("stderr", expect.get("stderr", b""), stderr))
    if status != expect["status"]:
        report.append(f"exit status: expected {expect['status']}, got {status}\n")
    if not report:
        return None
    return f"FAIL {name}\n" + "".join(report)


def run_setup(name, script, pego, srcdir, cwd):
    """Runs a case's setup script in its directory; a failure is a case error."""
    env = dict(os.environ, PEGO=pego, srcdir=srcdir)
    env.setdefault("MKREPORT", os.path.join(os.path.dirname(pego), "tests", "mkreport"))
    try:
        proc = subprocess.run(["sh", "-e", "-c", script.decode("utf-8")], cwd=cwd, env=env,
                              capture_output=True, timeout=TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CaseError(f"{name}: setup cannot run: {exc}") from exc
    if proc.returncode != 0:
        raise CaseError(f"{name}: setup failed with status {proc.returncode}: "
                        + proc.stderr.decode("utf-8", "replace"))


def run_case(name, path, pego, srcdir):
    case = parse_case(path)
    with tempfile.TemporaryDirectory(prefix="pego-golden-") as tmp:
        if "grammar" in case:
            with open(os.path.join(tmp, "g.pego"), "wb") as f:
                f.write(case["grammar"])
        elif "grammar-file" in case:
            shutil.copyfile(os.path.join(srcdir, case["grammar-file"]), os.path.join(tmp, "g.pego"))
        for fname, content in case["files"]:
            path = os.path.join(tmp, fname)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(content)
        if "setup" in case:
            run_setup(name, case["setup"], pego, srcdir, tmp)
        args = [a.replace("{srcdir}", srcdir) for a in shlex.split(case["args"])]
        stdin_file = os.path.join(tmp, case["input-file"]) if "input-file" in case else None
        _, stdout, stderr, status = run_pego(pego, args, case.get("input", b""), tmp, stdin_file,
                                             case.get("stdout-to"))
    return check(name, case, stdout, stderr, status)


def fixture_tests(srcdir):
    """Yields (name, grammar path, input path, golden path, format) for every fixture."""
    fixtures = os.path.join(srcdir, "fixtures")
    if not os.path.isdir(fixtures):
        return
    for entry in sorted(os.listdir(fixtures)):
        if not entry.endswith(".pego"):
            continue
        gname = entry[:-5]
        inputs = os.path.join(fixtures, gname)
        if not os.path.isdir(inputs):
            continue
        names = set(os.listdir(inputs))
        goldens = {f"{n}.{fmt}" for n in names for fmt in ("sexpr", "json")} & names
        for inp in sorted(names - goldens):
            for fmt in ("sexpr", "json"):
                golden = os.path.join(inputs, f"{inp}.{fmt}")
                if f"{inp}.{fmt}" in goldens:
                    yield (f"fixtures/{gname}/{inp}.{fmt}", os.path.join(fixtures, entry),
                           os.path.join(inputs, inp), golden, fmt)


def run_fixture(name, grammar, inp, golden, fmt, pego, srcdir):
    with open(inp, "rb") as f:
        stdin = f.read()
    with open(golden, "rb") as f:
        want = f.read()
    recovered = want.find(b"\nerror: ")
    if want.startswith(b"error: "):
        expect = {"stderr": b"pego: " + want[len(b"error: "):], "status": 1}
    elif recovered >= 0:
        # a tree, then "error: " and the recovered errors (docs/language.md 1.13.4, 1.14)
        expect = {"stdout": want[:recovered + 1],
                  "stderr": b"pego: " + want[recovered + len(b"\nerror: "):], "status": 1}
    else:
        expect = {"stdout": want, "status": 0}
    args = ["parse", "-g", grammar] + (["-f", "sexpr"] if fmt == "sexpr" else [])
    _, stdout, stderr, status = run_pego(pego, args, stdin, srcdir)
    return check(name, expect, stdout, stderr, status)


def find_cases(paths):
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                found += [os.path.join(root, f) for f in files if f.endswith(".case")]
        else:
            found.append(path)
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description="pego command-line golden tests")
    parser.add_argument("-k", metavar="SUBSTRING", help="run only tests whose name contains it")
    parser.add_argument("-v", action="store_true", help="print a line for each passing test too")
    parser.add_argument("paths", nargs="*", help="case files or directories (default: all)")
    opts = parser.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    srcdir = os.path.abspath(os.environ.get("srcdir") or os.path.dirname(here))
    pego = os.environ.get("PEGO", "./pego")
    if os.sep in pego:
        pego = os.path.abspath(pego)
    else:
        pego = shutil.which(pego) or os.path.abspath(pego)

    golden_dir = os.path.join(srcdir, "tests", "golden")
    tests = []
    for path in find_cases(opts.paths or [golden_dir]):
        rel = os.path.relpath(path, golden_dir)
        name = rel[:-5] if rel.endswith(".case") else rel
        tests.append((name, lambda p=path, n=name: run_case(n, p, pego, srcdir)))
    if not opts.paths:
        for name, grammar, inp, golden, fmt in fixture_tests(srcdir):
            tests.append((name, lambda a=(name, grammar, inp, golden, fmt):
                          run_fixture(*a, pego, srcdir)))

    passed = failed = 0
    for name, run in tests:
        if opts.k and opts.k not in name:
            continue
        try:
            report = run()
        except (CaseError, OSError) as exc:
            report = f"FAIL {name}\nbad case: {exc}\n"
        if report is None:
            passed += 1
            if opts.v:
                print(f"ok   {name}")
        else:
            failed += 1
            sys.stdout.write(report)
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
