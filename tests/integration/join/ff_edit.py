# A FontForge user's edit, in a process of its own: open the font, set a
# glyph's advance width, move the first point of its first contour, save
# over the same file (FontForge's own save, as the editor's Save does).
# usage: /usr/bin/python3 ff_edit.py FONT.sfd GLYPH WIDTH DX
# Prints the moved point's new coordinates: "x y".
import sys

import fontforge

path, name, width, dx = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
font = fontforge.open(path)
glyph = font[name]
glyph.width = width
layer = glyph.foreground
contour = layer[0]
point = contour[0]
point.x += dx
contour[0] = point
layer[0] = contour
glyph.foreground = layer
font.save(path)
font.close()
print(f"{point.x:g} {point.y:g}")
