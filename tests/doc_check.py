#!/usr/bin/env python3
"""Checks that the documentation matches the code, and extracts what tests build.

    doc_check.py functions   every function declared in include/pego.h is named
                             in docs/libpego.3
    doc_check.py example [PAGE]
                             prints the C program of libpego(3)'s EXAMPLES section
                             (the program the tests build and run); PAGE: an
                             installed copy of the page instead of docs/libpego.3
    doc_check.py flags       every flag of every subcommand (from the command's
                             option table in cli/, and the profiling options of
                             runtime/profiler.c for the commands that parse) is
                             in `pego CMD --help`, and the flags of each --help are
                             those of the command's synopsis in docs/pego.1
                             (with the section "Profiling any parse" for the
                             commands that parse)
    doc_check.py installed-docs
                             every document docs/pego.1 and docs/libpego.3 name
                             is in $INSTALLED_DOCS (what make install installs)
    doc_check.py help-flags CMD
                             prints the flags of `pego CMD --help`, one a line

The source tree is $srcdir (default: this file's parent folder); the command is
$PEGO. Exit status: 0, 1 when something is missing (each named on stderr), 99
when a file is not found.
"""
import os
import re
import subprocess
import sys

SRCDIR = os.environ.get("srcdir") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PEGO = os.environ.get("PEGO", "./pego")
COMMANDS = ["parse", "check", "compile", "trace", "profile", "explain", "report"]
PARSING_COMMANDS = ["parse", "trace", "profile", "explain"]
FLAG = re.compile(r"(?<![\w-])--?([A-Za-z][\w-]*)")


def read(path):
    try:
        with open(os.path.join(SRCDIR, path), encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        print(f"doc_check: {path}: {e.strerror}", file=sys.stderr)
        sys.exit(99)


def roff_text(text):
    """The text of roff source as a reader sees it, near enough to find names."""
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace("\\-", "-").replace("\\e", "\\").replace("\\(aq", "'")


def header_functions(header):
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    code = re.sub(r"^\s*#.*$", "", code, flags=re.M)
    # a declaration: a type, the name, its parameters; not a pointer typedef "(*name)"
    return sorted(set(re.findall(r"[\w*]\s*\**\b(pego_\w+)\s*\(", code)))


def check_functions():
    man = roff_text(read("docs/libpego.3"))
    named = set(re.findall(r"\bpego_\w+", man))
    missing = [f for f in header_functions(read("include/pego.h")) if f not in named]
    for f in missing:
        print(f"docs/libpego.3 does not document {f}, which include/pego.h declares", file=sys.stderr)
    return 1 if missing else 0


def example(page):
    """The lines between .EX and .EE in the EXAMPLES section of libpego(3)."""
    man = read(page)
    m = re.search(r"^\.SH EXAMPLES?\n(.*?)^\.SH ", man, flags=re.S | re.M)
    block = m and re.search(r"^\.EX\n(.*?)^\.EE\n", m.group(1), flags=re.S | re.M)
    if not block:
        print(f"doc_check: {page} has no example program (.SH EXAMPLES, .EX ... .EE)", file=sys.stderr)
        return 1
    sys.stdout.write(roff_text(block.group(1)))
    return 0


def source_flags(command):
    """The flags of the command's option table; profiling options for those that parse."""
    source = read(f"cli/{command}.c")
    header = read("cli/cli.h")
    table = re.search(r"(?:longopts|options)\[\]\s*=\s*\{(.*?)\n\s*\};", source, flags=re.S)
    if not table:
        print(f"doc_check: cli/{command}.c has no option table", file=sys.stderr)
        sys.exit(99)
    body = table.group(1)
    for macro in re.findall(r"\bCLI_[A-Z_]+_OPTIONS?\b", body):
        m = re.search(r"#define " + macro + r"\b((?:.*\\\n)*.*)", header)
        body += m.group(1) if m else ""
    flags = set(re.findall(r'\{\s*"([\w-]+)"', body))
    if command in PARSING_COMMANDS:
        flags |= set(re.findall(r'strcmp\(tok, "--(profile[\w-]*)"\)', read("runtime/profiler.c")))
    return flags - {"h", "help"}


def refused(command, flag):
    """A flag the command takes only to say it is not supported yet."""
    run = subprocess.run([PEGO, command, "-" + flag, "x"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    return "not supported yet" in run.stderr


def help_flags(command):
    run = subprocess.run([PEGO, command, "--help"], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"doc_check: pego {command} --help exits {run.returncode}", file=sys.stderr)
        sys.exit(1)
    flags = set()
    for line in run.stdout.splitlines():
        m = re.match(r"\s+(-[\w-]+(?:[^,]*?,\s+-[\w-]+)*)", line)   # "  -f FORMAT, --format FORMAT"
        if m:
            flags |= set(FLAG.findall(m.group(1)))
    return flags


def man_flags():
    """Flags per command: its synopsis entries in pego.1 (and the profiling section)."""
    man = roff_text(read("docs/pego.1"))
    synopsis = re.search(r"^\.SH SYNOPSIS\n(.*?)^\.SH ", man, flags=re.S | re.M).group(1)
    flags = {}
    for entry in re.split(r"^\.br\n", synopsis, flags=re.M):
        m = re.match(r"\.B pego (\w+)(.*)", entry, flags=re.S)
        if m:
            flags.setdefault(m.group(1), set()).update(FLAG.findall(m.group(2)))
    section = re.search(r"^\.SS Profiling any parse\n(.*?)^\.S[HS] ", man, flags=re.S | re.M)
    profiling = set(FLAG.findall(section.group(1))) if section else set()
    for command in PARSING_COMMANDS:
        flags.setdefault(command, set()).update(profiling)
    return flags


def check_flags():
    bad = 0
    man = man_flags()
    for command in COMMANDS:
        source, shown, documented = source_flags(command), help_flags(command), man.get(command, set())
        for flag in sorted(source - shown):
            if not refused(command, flag):
                print(f"pego {command} --help does not list -{flag}, which the command takes", file=sys.stderr)
                bad += 1
        for flag in sorted(shown - source):
            print(f"pego {command} --help lists -{flag}, which the command does not take", file=sys.stderr)
            bad += 1
        for flag in sorted(shown - documented):
            print(f"docs/pego.1 does not list -{flag} in the synopsis of pego {command}", file=sys.stderr)
            bad += 1
        for flag in sorted(documented - shown):
            print(f"docs/pego.1 lists -{flag} for pego {command}, which its --help does not", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


def check_installed_docs():
    installed = set(os.environ.get("INSTALLED_DOCS", "").split())
    bad = 0
    for page in ["docs/pego.1", "docs/libpego.3"]:
        for doc in sorted(set(re.findall(r"docs/[\w-]+\.md", roff_text(read(page))))):
            if doc not in installed:
                print(f"{page} names {doc}, which make install does not install", file=sys.stderr)
                bad += 1
    return 1 if bad else 0


def main(argv):
    if argv[1:2] == ["functions"]:
        return check_functions()
    if argv[1:2] == ["example"] and len(argv) <= 3:
        return example(argv[2] if len(argv) == 3 else "docs/libpego.3")
    if argv[1:2] == ["flags"]:
        return check_flags()
    if argv[1:2] == ["installed-docs"]:
        return check_installed_docs()
    if argv[1:2] == ["help-flags"] and len(argv) == 3:
        print("\n".join(sorted(help_flags(argv[2]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 99


if __name__ == "__main__":
    sys.exit(main(sys.argv))
