# Opens a font (.sfd or SFDir) with FontForge and saves it once to each path
# given (an SFDir when the path ends in .sfdir): /usr/bin/python3 ff_save.py
# FONT OUT... Prints "glyphs N" (every glyph FontForge holds, in GID order:
# "glyph NAME" lines follow), so a test can check that a reader saw them all.
import sys

import fontforge


def main():
    font = fontforge.open(sys.argv[1])
    for out in sys.argv[2:]:
        font.save(out)
    names = list(font)
    print('glyphs %d' % len(names))
    for name in names:
        print('glyph ' + name)


if __name__ == '__main__':
    main()
