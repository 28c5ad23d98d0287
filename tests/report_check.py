#!/usr/bin/env python3
"""Checks report files (docs/report-format.md) for the profiling tests.

Decompresses each file with the zstd command, checks that every line is a JSON
object, that each frame starts with a header and ends with a footer whose
counts match its records, and prints the records, one per line.

  report_check.py FILE...                     validate and print
  report_check.py --frames N FILE             ...and require N frames in all
  report_check.py --parses N FILE             ...and require N parse records in all
  report_check.py --compare-profile J FILE    ...and require the rule records to
                                              equal `pego profile -f json` output J
  report_check.py --adds-up FILE              ...and require each frame's rule records
                                              to add up to its parse records (calls,
                                              evaluations, memo hits): no parse is in
                                              it in part
  report_check.py --pids FILE                 ...and print each frame's pid and parse
                                              count, one frame a line, instead
"""
import json
import subprocess
import sys


def frames_of(path):
    out = subprocess.run(["zstd", "-dcq", path], capture_output=True, check=True).stdout
    frames, current = [], []
    for line in out.decode("utf-8").splitlines():
        rec = json.loads(line)
        if not isinstance(rec, dict) or "type" not in rec:
            raise ValueError(f"{path}: not a record: {line[:80]}")
        current.append(rec)
        if rec["type"] == "footer":
            frames.append(current)
            current = []
    if current:
        raise ValueError(f"{path}: a frame has no footer")
    return frames


def check_frame(path, frame):
    if frame[0]["type"] != "header" or frame[0]["format"] != "pego-profile" or frame[0]["version"] != 1:
        raise ValueError(f"{path}: a frame does not start with a version 1 header")
    footer = frame[-1]
    parses = sum(1 for r in frame if r["type"] == "parse")
    if footer["parses"] != parses or footer["records"] != len(frame):
        raise ValueError(f"{path}: footer says {footer['parses']} parses, {footer['records']} records; "
                         f"the frame has {parses} and {len(frame)}")


def adds_up(path, frame):
    for key in ("calls", "evals", "memo"):
        rules = sum(r[key] for r in frame if r["type"] == "rule")
        parses = sum(r[key] for r in frame if r["type"] == "parse")
        if rules != parses:
            raise ValueError(f"{path}: the rule records count {rules} {key}, the parse records {parses}")


def main(argv):
    want_frames = want_parses = profile = None
    want_sums = want_pids = False
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--frames":
            want_frames = int(argv[i + 1]); i += 2
        elif argv[i] == "--parses":
            want_parses = int(argv[i + 1]); i += 2
        elif argv[i] == "--adds-up":
            want_sums = True; i += 1
        elif argv[i] == "--pids":
            want_pids = True; i += 1
        elif argv[i] == "--compare-profile":
            profile = argv[i + 1]; i += 2
        else:
            files.append(argv[i]); i += 1
    nframes = nparses = 0
    records = []
    for path in files:
        for frame in frames_of(path):
            check_frame(path, frame)
            if want_sums:
                adds_up(path, frame)
            if want_pids:
                print(frame[0]["pid"], sum(1 for r in frame if r["type"] == "parse"))
            nframes += 1
            nparses += sum(1 for r in frame if r["type"] == "parse")
            records.extend(frame)
    if want_frames is not None and nframes != want_frames:
        print(f"{nframes} frames, expected {want_frames}", file=sys.stderr)
        return 1
    if want_parses is not None and nparses != want_parses:
        print(f"{nparses} parse records, expected {want_parses}", file=sys.stderr)
        return 1
    if profile is not None:
        with open(profile) as f:
            prof = json.load(f)
        names = {}
        for r in records:
            if r["type"] == "grammar":
                names.update({(r["id"], x["id"]): x["name"] for x in r["rules"]})
        got = {names[(r["grammar"], r["rule"])]: r for r in records if r["type"] == "rule"}
        # the report's name of each count, and its value in the profile (pego profile -f json)
        keys = {"calls": "calls", "evals": "evals", "memo": "memoHits", "matched": "matched", "failed": "failed",
                "repeats": "repeats", "consumed": "consumed", "wasted": "wasted"}
        bad = 0
        for row in prof["rules"]:
            rec = got.get(row["rule"])
            want = {k: row[v] for k, v in keys.items()}
            want["max_repeats"] = max(row["maxEvals"] - 1, 0)
            for k, v in want.items():
                if rec is None or rec[k] != v:
                    print(f"rule {row['rule']}: {k} is {rec and rec[k]} in the report, {v} in the profile",
                          file=sys.stderr)
                    bad += 1
        if bad or len(prof["rules"]) != len(got):
            return 1
    if not want_pids:
        for r in records:
            print(json.dumps(r))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (ValueError, subprocess.CalledProcessError, json.JSONDecodeError) as e:
        print(f"report_check: {e}", file=sys.stderr)
        sys.exit(1)
