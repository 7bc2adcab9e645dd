# Reads fonts with FontForge and checks glyphs in them, in a process of its
# own: each check is GLYPH=WIDTH or GLYPH=WIDTH@X,Y (the first point of the
# first contour). Exit status 1 with a message for the first mismatch.
# usage: /usr/bin/python3 ff_check.py FONT.sfd [FONT.sfd...] -- CHECK...
import sys

import fontforge

sep = sys.argv.index('--')
fonts, checks = sys.argv[1:sep], sys.argv[sep + 1:]
bad = 0
for path in fonts:
    font = fontforge.open(path)
    for check in checks:
        name, want = check.split('=', 1)
        width, _, at = want.partition('@')
        glyph = font[name]
        if glyph.width != int(width):
            print(f"{path}: glyph {name} width {glyph.width}, expected {width}")
            bad = 1
        if at:
            x, y = (float(v) for v in at.split(','))
            p = glyph.foreground[0][0]
            if abs(p.x - x) > 1e-6 or abs(p.y - y) > 1e-6:
                print(f"{path}: glyph {name} first point ({p.x:g}, {p.y:g}), expected ({x:g}, {y:g})")
                bad = 1
    font.close()
sys.exit(bad)
