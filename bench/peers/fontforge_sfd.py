"""FontForge's own load and save of SFD fonts, timed the way bench_sfd times
Ensemble's: best of N opens (fontforge.open) and saves (font.save to a
temporary path), plus the peak resident memory above the interpreter's own
(give one font per process for that figure to be the font's). Run with
Debian's /usr/bin/python3, which has the fontforge module. JSON on stdout.

With --cold FONT, the first open in this fresh process, measured the way
bench_sfd --cold measures Ensemble's first load: wall and CPU time (user +
system), minor page faults and the growth of the peak resident memory
across the open alone (the interpreter and the module are loaded before)."""
import json
import os
import resource
import shutil
import sys
import tempfile
import time

import fontforge


def measure(path, rounds, tmp):
    load = save = float("inf")
    out = os.path.join(tmp, os.path.basename(path.rstrip("/")))
    for _ in range(rounds):
        t0 = time.perf_counter()
        font = fontforge.open(path)
        t1 = time.perf_counter()
        font.save(out)
        t2 = time.perf_counter()
        font.close()
        load = min(load, t1 - t0)
        save = min(save, t2 - t1)
    return {"load_s": round(load, 5), "save_s": round(save, 5)}


def cold(path):
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0 = time.process_time()
    t0 = time.perf_counter()
    font = fontforge.open(path)
    t1 = time.perf_counter()
    c1 = time.process_time()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({path: {"load_wall_s": round(t1 - t0, 6), "load_cpu_s": round(c1 - c0, 6),
                             "load_minflt": r1.ru_minflt - r0.ru_minflt,
                             "load_rss_growth_bytes": 1024 * (r1.ru_maxrss - r0.ru_maxrss),
                             "load_maxrss_bytes": 1024 * r1.ru_maxrss,
                             "glyphs": sum(1 for _ in font.glyphs())}}))
    font.close()
    return 0


def main():
    args = sys.argv[1:]
    if args[:1] == ["--cold"] and len(args) == 2:
        return cold(args[1])
    rounds = 3
    if args[:1] == ["--rounds"]:
        rounds, args = int(args[1]), args[2:]
    if not args:
        print("usage: fontforge_sfd.py [--rounds N] FONT.sfd...", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="ff-bench-")
    results = {}
    try:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for path in args:
            results[path] = measure(path, rounds, tmp)
            # ru_maxrss only grows: with one font per process it is that font's
            results[path]["peak_rss_bytes"] = 1024 * (
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
            print(f"{path}: load {results[path]['load_s'] * 1e3:.1f} ms, "
                  f"save {results[path]['save_s'] * 1e3:.1f} ms", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps({"fontforge": results, "version": fontforge.version()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
