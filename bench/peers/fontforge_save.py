"""FontForge's own save of a font, as an editor that keeps the font open
saves it: open once, then each round change one glyph's advance width and
font.save() over the same file. The first save of the process is reported
apart from the later ones (median and best), the way bench_mirror reports
the mirror's cost per save. Run with Debian's /usr/bin/python3, which has
the fontforge module. JSON on stdout."""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import fontforge


def measure(path, rounds, tmp):
    out = os.path.join(tmp, os.path.basename(path))
    shutil.copy(path, out)
    os.chmod(out, 0o644)
    font = fontforge.open(out)
    names = [g.glyphname for g in font.glyphs()]
    times = []
    for r in range(rounds):
        font[names[(2 * r) % len(names)]].width = 400 + r
        t0 = time.perf_counter()
        font.save(out)
        times.append(time.perf_counter() - t0)
    font.close()
    warm = times[1:]
    return {"first_save_s": round(times[0], 6), "warm_save_s": round(statistics.median(warm), 6),
            "best_save_s": round(min(warm), 6)}


def main():
    args = sys.argv[1:]
    rounds = 10
    if args[:1] == ["--rounds"]:
        rounds, args = int(args[1]), args[2:]
    if not args or rounds < 2:
        print("usage: fontforge_save.py [--rounds N>=2] FONT.sfd...", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="ff-save-")
    results = {}
    try:
        for path in args:
            results[path] = measure(path, rounds, tmp)
            r = results[path]
            print(f"{path}: FontForge save first {r['first_save_s'] * 1e3:.1f} ms, "
                  f"warm {r['warm_save_s'] * 1e3:.1f} ms", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps({"fontforge": results, "version": fontforge.version()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
