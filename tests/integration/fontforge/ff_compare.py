# Opens two fonts with FontForge and compares them glyph by glyph, exactly:
# /usr/bin/python3 ff_compare.py OURS.sfd THEIRS.sfd
# Names, code points, widths, references (target and transform), anchors,
# kerning pairs and lookups (getPosSub, which name other glyphs) and every
# layer's contours point by point (x, y, on-curve): layer ==
# layer in FontForge is fuzzy (half a unit), so points are compared here.
# Coordinates are compared as FontForge's own SFD writer keeps them, to 12
# significant digits: its saved file cannot hold 374.7998046875 (it writes
# 374.799804688), so neither side is given more. Whatever FontForge prints
# while opening OURS is a warning. Prints "compared N", then one
# "diff ..." or "warning ..." line per finding.
import os
import sys
import tempfile

import fontforge


def open_quietly(path):
    """fontforge.open with the C library's stdout and stderr captured."""
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile() as cap:
        saved = os.dup(1), os.dup(2)
        os.dup2(cap.fileno(), 1)
        os.dup2(cap.fileno(), 2)
        try:
            font = fontforge.open(path)
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        cap.seek(0)
        return font, cap.read().decode('utf-8', 'replace')


def num(v):
    """A number as FontForge writes it in SFD (%.12g)."""
    return float('%.12g' % v)


def snapshot(font):
    glyphs = {}
    for g in font.glyphs():
        layers = {}
        for name in ('Back', 'Fore'):
            try:
                layer = g.layers[name]
            except Exception:
                continue
            layers[name] = [(bool(c.closed), [(num(p.x), num(p.y), bool(p.on_curve)) for p in c]) for c in layer]
        glyphs[g.glyphname] = {
            'unicode': g.unicode,
            'width': g.width,
            'references': sorted((r[0], tuple(num(v) for v in r[1])) for r in g.references),
            'anchors': sorted(tuple(num(v) if isinstance(v, float) else v for v in a) for a in g.anchorPoints),
            # kerning pairs and the glyph's lookups, which name glyphs
            'possub': sorted(tuple(str(v) for v in p) for p in g.getPosSub('*')),
            'layers': layers,
        }
    return glyphs


def font_level(font):
    """What the font itself says about glyphs by name: kerning classes and
    mark classes."""
    out = {}
    for lookup in font.gpos_lookups:
        for sub in font.getLookupSubtables(lookup):
            if font.isKerningClass(sub):
                first, second, offsets = font.getKerningClass(sub)
                out['kerning class ' + sub] = (first, second, tuple(offsets))
    out['mark classes'] = font.markClasses
    return out


def first_difference(a, b):
    """Where two outlines differ, for people."""
    if len(a) != len(b):
        return '%d contours against %d' % (len(a), len(b))
    for ci, ((ca, pa), (cb, pb)) in enumerate(zip(a, b)):
        if ca != cb:
            return 'contour %d: closed %s against %s' % (ci, ca, cb)
        if len(pa) != len(pb):
            return 'contour %d: %d points against %d' % (ci, len(pa), len(pb))
        for pi, (x, y) in enumerate(zip(pa, pb)):
            if x != y:
                return 'contour %d point %d: %r against %r' % (ci, pi, x, y)
    return 'equal'


def main():
    ours, warnings = open_quietly(sys.argv[1])
    theirs, _ = open_quietly(sys.argv[2])
    a, b = snapshot(ours), snapshot(theirs)
    for line in warnings.splitlines():
        if line.strip():
            print('warning', line.strip())
    fa, fb = font_level(ours), font_level(theirs)
    for key in sorted(set(fa) | set(fb)):
        if fa.get(key) != fb.get(key):
            print('diff font', key)
    names = sorted(set(a) | set(b))
    print('compared', len(names))
    for name in names:
        if name not in a or name not in b:
            print('diff', name, 'only in', 'theirs' if name not in a else 'ours')
            continue
        ga, gb = a[name], b[name]
        for key in ('unicode', 'width', 'references', 'anchors', 'possub'):
            if ga[key] != gb[key]:
                print('diff', name, key, repr(ga[key]), 'against', repr(gb[key]))
        for layer in sorted(set(ga['layers']) | set(gb['layers'])):
            la, lb = ga['layers'].get(layer, []), gb['layers'].get(layer, [])
            if la != lb:
                print('diff', name, layer, first_difference(la, lb))


if __name__ == '__main__':
    main()
