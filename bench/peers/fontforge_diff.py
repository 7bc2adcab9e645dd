"""FontForge's comparison of two fonts, warm: best of N of the two opens
(fontforge.open) and of CompareFonts with sfddiff's default flags (0x789),
in one process, timed the way bench_diff times Ensemble's semantic diff.
Run with Debian's /usr/bin/python3, which has the fontforge module.
   fontforge_diff.py [--rounds N] OLD NEW      JSON on stdout"""
import json
import os
import sys
import time

import fontforge


def main():
    args = sys.argv[1:]
    rounds = 5
    if args[:1] == ["--rounds"]:
        rounds = int(args[1])
        args = args[2:]
    old, new = args
    load = diff = float("inf")
    lines = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        a = fontforge.open(old)
        b = fontforge.open(new)
        t1 = time.perf_counter()
        # sfddiff opens NEW then OLD and compares OLD with NEW, to stdout
        out = "/tmp/fontforge_diff.%d.txt" % os.getpid()
        a.compareFonts(b, out, ("outlines", "hints", "strikes", "fontnames", "gpos", "gsub"))
        t2 = time.perf_counter()
        with open(out) as f:
            lines = sum(1 for _ in f)
        os.unlink(out)
        a.close()
        b.close()
        load = min(load, t1 - t0)
        diff = min(diff, t2 - t1)
    print(json.dumps({"rounds": rounds, "report_lines": lines, "load_s": round(load, 6), "diff_s": round(diff, 6)}))


if __name__ == "__main__":
    main()
