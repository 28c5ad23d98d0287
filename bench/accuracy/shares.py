#!/usr/bin/env python3
"""shares.py: the profiled time of each part of a grammar of the profile-accuracy
benchmark (bench/run, docs/benchmarks.md), read from a decompressed report.

    zstd -dc REPORT | python3 shares.py GRAMMAR PART...

GRAMMAR is the grammar's name in the report (its file name without .pego); each PART
is a rule its start rule calls. The rules of a part are its rule and every rule
reachable from it in the report's call graph: its edge records, and the caller-callee
pairs of its stack records (a sampled report has stacks and no edges); a rule
reachable from two parts stops the script, since its time could not be given to one
of them. Prints one
line per part, tab-separated:

    PART  SELF_NS  TIME_NS  RULES

SELF_NS is the sum of the self_ns of the part's rules over every parse of the report
(all frames), TIME_NS the inclusive time_ns of the part's rule, RULES the part's rules,
comma-separated. Exit status 0, or 1 when the report lacks the grammar or a part."""

import json
import sys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: zstd -dc REPORT | shares.py GRAMMAR PART...\n")
        return 2
    grammar, parts = argv[1], argv[2:]
    names = {}         # (frame, grammar id) -> {rule id: name}, for the wanted grammar
    self_ns, time_ns = {}, {}
    callees = {}       # rule name -> set of rule names it calls
    frame = 0
    pending = []       # records of the current frame (a grammar record comes before them)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        rec = json.loads(line)
        kind = rec.get("type")
        if kind == "header":
            frame += 1
        elif kind == "grammar":
            if rec.get("name") == grammar:
                names[(frame, rec["id"])] = {r["id"]: r["name"] for r in rec["rules"]}
        elif kind in ("rule", "edge", "stack"):
            pending.append((frame, rec))
    for fr, rec in pending:
        rules = names.get((fr, rec["grammar"]))
        if rules is None:
            continue
        if rec["type"] == "rule":
            name = rules[rec["rule"]]
            self_ns[name] = self_ns.get(name, 0) + rec.get("self_ns", 0)
            time_ns[name] = time_ns.get(name, 0) + rec.get("time_ns", 0)
        elif rec["type"] == "stack":
            frames = rec["frames"]
            for caller, callee in zip(frames, frames[1:]):
                if caller != callee:
                    callees.setdefault(rules[caller], set()).add(rules[callee])
        elif rec.get("calls", 0) > 0:
            callees.setdefault(rules[rec["caller"]], set()).add(rules[rec["callee"]])
    if not names:
        sys.stderr.write("shares.py: no grammar %s in the report\n" % grammar)
        return 1
    owner = {}
    groups = {}
    for part in parts:
        if part not in time_ns:
            sys.stderr.write("shares.py: no rule %s of %s in the report\n" % (part, grammar))
            return 1
        seen, todo = {part}, [part]
        while todo:
            for callee in callees.get(todo.pop(), ()):
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        for rule in seen:
            if rule in owner:
                sys.stderr.write("shares.py: rule %s belongs to the parts %s and %s\n"
                                 % (rule, owner[rule], part))
                return 1
            owner[rule] = part
        groups[part] = sorted(seen)
    for part in parts:
        total = sum(self_ns.get(rule, 0) for rule in groups[part])
        print("%s\t%d\t%d\t%s" % (part, total, time_ns[part], ",".join(groups[part])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
