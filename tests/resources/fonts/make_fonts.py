# Makes the bundled test fonts (README.md) from their upstream sources with
# FontForge's Python module:
#   /usr/bin/python3 make_fonts.py SOURCE_DIR OUT_DIR
# SOURCE_DIR holds dejavu/DejaVuSans-ExtraLight.sfd (dejavu-fonts/dejavu-fonts
# at 9b5d1b2f, src/) and liberation/LiberationSans-Regular.sfd
# (liberationfonts/liberation-fonts at 49e1358e, src/). Each font keeps the
# glyphs of KEEP and every glyph they reference; FontForge removes the rest
# and saves the result, so the files are FontForge's own output.
import os
import sys

import fontforge

KEEP = ['.notdef', '.null', 'nonmarkingreturn', 'space'] + \
    [chr(c) for c in range(ord('A'), ord('Z') + 1)] + \
    [chr(c) for c in range(ord('a'), ord('z') + 1)] + \
    ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine',
     'period', 'comma', 'hyphen', 'quotesingle', 'quotedbl',
     'Agrave', 'Aacute', 'Acircumflex', 'Adieresis', 'Aring', 'Eacute', 'Ccedilla',
     'agrave', 'aacute', 'adieresis', 'eacute', 'egrave', 'ccedilla', 'ntilde', 'odieresis',
     'fi', 'fl']


def closure(font, names):
    """names and every glyph they reference, recursively, that the font has"""
    have = set(font)
    todo = [n for n in names if n in have]
    seen = set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        g = font[n]
        for layer in range(g.layer_cnt):
            for ref in g.layerrefs[layer]:
                todo.append(ref[0])
    return seen


def subset(src, keep):
    font = fontforge.open(src)
    kept = closure(font, keep)
    for g in list(font):
        if g not in kept:
            font.removeGlyph(g)
    return font


def rename(font, family, postscript):
    """A modified version may not carry the reserved names (OFL section 3)."""
    font.familyname = family
    font.fullname = family + ' Regular'
    font.fontname = postscript
    names = []
    for lang, key, value in font.sfnt_names:
        if key in ('Family', 'Fullname', 'PostScriptName', 'UniqueID', 'Preferred Family', 'Compatible Full',
                   'WWS Family', 'Trademark'):
            continue
        names.append((lang, key, value))
    font.sfnt_names = tuple(names)
    font.appendSFNTName('English (US)', 'Family', family)
    font.appendSFNTName('English (US)', 'Fullname', family + ' Regular')
    font.appendSFNTName('English (US)', 'PostScriptName', postscript)


def main():
    src, out = sys.argv[1], sys.argv[2]
    dv = subset(os.path.join(src, 'dejavu/DejaVuSans-ExtraLight.sfd'), KEEP)
    dv.save(os.path.join(out, 'DejaVuSans-ExtraLight-subset.sfd'))
    lib = subset(os.path.join(src, 'liberation/LiberationSans-Regular.sfd'), KEEP)
    rename(lib, 'Ensemble Test Sans', 'EnsembleTestSans-Regular')
    lib.save(os.path.join(out, 'EnsembleTestSans-Regular.sfdir'))


main()
